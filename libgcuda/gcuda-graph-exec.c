/* gcuda-graph-exec.c: an instantiated CUDA graph
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-context-private.h"
#include "gcuda-graph-exec-private.h"
#include "gcuda-graph-private.h"
#include "gcuda-stream-private.h"

/**
 * GCudaGraphExec:
 *
 * An executable graph, made by [method@GCuda.Graph.instantiate]:
 * [method@GCuda.GraphExec.launch] queues all of the graph's work on a stream in
 * one call. Its parameters (kernel arguments, copy addresses) can be replaced
 * by those of a graph with the same shape ([method@GCuda.GraphExec.update])
 * without instantiating again.
 *
 * ```c
 * static gboolean
 * replay (GCudaGraphExec *graph_exec, GCudaGraph *captured_again, GCudaStream *stream,
 *         GError **error)
 * {
 *   // the new graph's kernel arguments and addresses, without instantiating again
 *   if (!gcuda_graph_exec_update (graph_exec, captured_again, error))
 *     return FALSE;
 *   for (int i = 0; i < 100; i++)
 *     if (!gcuda_graph_exec_launch (graph_exec, stream, error))
 *       return FALSE;
 *   return gcuda_stream_synchronize (stream, error);
 * }
 * ```
 *
 * In Python:
 *
 * ```python
 * stream = GCuda.Stream()
 * a, b = GCuda.mem_alloc(1 << 20), GCuda.mem_alloc(1 << 20)
 *
 * def capture(buf):
 *     stream.begin_capture(GCuda.CaptureMode.GLOBAL)
 *     GCuda.memset_d8_async(buf, 0xff, 1 << 20, stream)
 *     return stream.end_capture()
 *
 * graph_exec = capture(a).instantiate()
 * graph_exec.launch(stream)
 * graph_exec.update(capture(b))
 * graph_exec.launch(stream)
 * stream.synchronize()
 * ```
 *
 * Since: 1.0
 */

struct _GCudaGraphExec
{
  GObject parent_instance;

  GCudaContext *context;
  CUgraphExec handle;
};

G_DEFINE_FINAL_TYPE (GCudaGraphExec, gcuda_graph_exec, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
gcuda_graph_exec_finalize (GObject *object)
{
  GCudaGraphExec *self = GCUDA_GRAPH_EXEC (object);

  if (self->handle != NULL)
    GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuGraphExecDestroy (self->handle));
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_graph_exec_parent_class)->finalize (object);
}

static void
gcuda_graph_exec_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  GCudaGraphExec *self = GCUDA_GRAPH_EXEC (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_graph_exec_class_init (GCudaGraphExecClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = gcuda_graph_exec_finalize;
  object_class->get_property = gcuda_graph_exec_get_property;

  /**
   * GCudaGraphExec:context: (getter get_context)
   *
   * The context the graph runs in.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_graph_exec_init (GCudaGraphExec *self)
{
}

GCudaGraphExec *
_gcuda_graph_exec_new_for_handle (GCudaContext *context,
                                  CUgraphExec   handle)
{
  GCudaGraphExec *self = g_object_new (GCUDA_TYPE_GRAPH_EXEC, NULL);

  self->context = g_object_ref (context);
  self->handle = handle;
  return self;
}

static gboolean
graph_exec_check (GCudaGraphExec  *self,
                  GError         **error)
{
  return GCUDA_CHECK_MADE (self->handle != NULL, error,
                           _("This GCuda.GraphExec was made without an executable graph: executable graphs "
                             "come from Graph.instantiate()"));
}

/**
 * gcuda_graph_exec_get_context: (get-property context)
 * @self: a [class@GCuda.GraphExec]
 *
 * Gets the context the executable graph runs in.
 *
 * Returns: (transfer none): the context the graph runs in
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_graph_exec_get_context (GCudaGraphExec *self)
{
  g_return_val_if_fail (GCUDA_IS_GRAPH_EXEC (self), NULL);
  return self->context;
}

/**
 * gcuda_graph_exec_launch:
 * @self: a [class@GCuda.GraphExec]
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Queues the graph's work on @stream, after the stream's earlier work. A
 * launch waits for the previous launch of the same executable graph.
 *
 * Returns: %TRUE if the graph was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_graph_exec_launch (GCudaGraphExec  *self,
                         GCudaStream     *stream,
                         GError         **error)
{
  g_return_val_if_fail (GCUDA_IS_GRAPH_EXEC (self), FALSE);

  if (!graph_exec_check (self, error) || !_gcuda_stream_check_arg (stream, error))
    return FALSE;
  if (stream != NULL && gcuda_stream_get_context (stream) != self->context)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                           _("Launching a graph on a stream that is not of the graph's context"));
      return FALSE;
    }
  return GCUDA_CONTEXT_CALL (self->context,
                             GCUDA_DRV->fn_cuGraphLaunch (self->handle, _gcuda_stream_get_handle (stream)),
                             "cuGraphLaunch", error);
}

static const char *
update_result_reason (CUgraphExecUpdateResult result)
{
  switch (result)
    {
    case CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED:
      return _("the graph's nodes or their dependencies differ");
    case CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED:
      return _("a node changed type");
    case CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED:
      return _("a kernel node runs another function");
    case CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED:
      return _("a node's parameters changed in a way an update cannot apply");
    case CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED:
      return _("a node's change is not supported by updates");
    case CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE:
      return _("a kernel node's function changed in an unsupported way");
    case CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED:
      return _("a node's attributes changed");
    default:
      return _("the graphs differ");
    }
}

/**
 * gcuda_graph_exec_update:
 * @self: a [class@GCuda.GraphExec]
 * @graph: a graph of the same shape (say, the same work captured again with
 *   other arguments)
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces the executable graph's parameters with @graph's
 * (`cuGraphExecUpdate`), much cheaper than instantiating @graph. A graph of
 * another shape is
 * [GCUDA_DRIVER_ERROR_GRAPH_EXEC_UPDATE_FAILURE][error@GCuda.DriverError],
 * saying what differs; the executable graph is then unchanged and still usable.
 *
 * Returns: %TRUE if the update was applied
 *
 * Since: 1.0
 */
gboolean
gcuda_graph_exec_update (GCudaGraphExec  *self,
                         GCudaGraph      *graph,
                         GError         **error)
{
  CUgraphExecUpdateResultInfo info = { 0 };
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  CUresult res;

  g_return_val_if_fail (GCUDA_IS_GRAPH_EXEC (self), FALSE);

  if (!graph_exec_check (self, error))
    return FALSE;
  if (!GCUDA_IS_GRAPH (graph))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.Graph"));
      return FALSE;
    }
  if (!_gcuda_graph_check (graph, error))
    return FALSE;
  if (gcuda_graph_get_context (graph) != self->context)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                           _("Updating a graph with one captured in another context"));
      return FALSE;
    }
  if (!_gcuda_context_enter (self->context, &scope, error))
    return FALSE;
  res = GCUDA_DRV->fn_cuGraphExecUpdate (self->handle, _gcuda_graph_get_handle (graph), &info);
  if (!_gcuda_check (res, "cuGraphExecUpdate", error))
    {
      if (res == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)
        g_prefix_error (error, _("Cannot update the executable graph: %s. "), update_result_reason (info.result));
      return FALSE;
    }
  return TRUE;
}
