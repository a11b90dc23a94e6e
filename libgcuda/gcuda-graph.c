/* gcuda-graph.c: a captured CUDA graph
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-context-private.h"
#include "gcuda-graph-exec-private.h"
#include "gcuda-graph-private.h"

/**
 * GCudaGraph:
 *
 * A CUDA graph: work recorded once by capturing a stream
 * ([method@GCuda.Stream.begin_capture], [method@GCuda.Stream.end_capture]) and
 * replayed many times with little launch cost once instantiated
 * ([method@GCuda.Graph.instantiate], [method@GCuda.GraphExec.launch]).
 *
 * ```c
 * static GCudaGraphExec *
 * capture_two_launches (GCudaStream *stream, GCudaFunction *kernel, GCudaKernelArgs *args,
 *                       GError **error)
 * {
 *   g_autoptr(GCudaGraph) graph = NULL;
 *   gboolean queued;
 *
 *   if (!gcuda_stream_begin_capture (stream, GCUDA_CAPTURE_MODE_GLOBAL, error))
 *     return NULL;
 *   queued = gcuda_function_launch (kernel, 4, 1, 1, 256, 1, 1, 0, stream, args, error) &&
 *            gcuda_function_launch (kernel, 4, 1, 1, 256, 1, 1, 0, stream, args, error);
 *   // end the capture in any case
 *   graph = gcuda_stream_end_capture (stream, queued ? error : NULL);
 *   if (!queued || graph == NULL)
 *     return NULL;
 *   return gcuda_graph_instantiate (graph, error);
 * }
 * ```
 *
 * In Python:
 *
 * ```python
 * stream = GCuda.Stream()
 * buf = GCuda.mem_alloc(4 << 20)
 * stream.begin_capture(GCuda.CaptureMode.GLOBAL)
 * GCuda.memset_d32_async(buf, 0, 1 << 20, stream)
 * graph = stream.end_capture()
 * print(graph.get_node_count())
 * graph_exec = graph.instantiate()
 * graph_exec.launch(stream)
 * stream.synchronize()
 * ```
 *
 * The graph holds its context. Usable from any thread, but the driver does
 * not allow one graph to be used by two threads at the same time.
 *
 * Since: 1.0
 */

struct _GCudaGraph
{
  GObject parent_instance;

  GCudaContext *context;
  CUgraph handle;
};

G_DEFINE_FINAL_TYPE (GCudaGraph, gcuda_graph, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
gcuda_graph_finalize (GObject *object)
{
  GCudaGraph *self = GCUDA_GRAPH (object);

  /* A graph is not tied to a current context, and the driver keeps it valid
   * after its context is destroyed. */
  if (self->handle != NULL && _gcuda_driver_peek () != NULL)
    GCUDA_DRV->fn_cuGraphDestroy (self->handle);
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_graph_parent_class)->finalize (object);
}

static void
gcuda_graph_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  GCudaGraph *self = GCUDA_GRAPH (object);

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
gcuda_graph_class_init (GCudaGraphClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = gcuda_graph_finalize;
  object_class->get_property = gcuda_graph_get_property;

  /**
   * GCudaGraph:context: (getter get_context)
   *
   * The context of the stream the graph was captured on.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_graph_init (GCudaGraph *self)
{
}

GCudaGraph *
_gcuda_graph_new_for_handle (GCudaContext *context,
                             CUgraph       handle)
{
  GCudaGraph *self = g_object_new (GCUDA_TYPE_GRAPH, NULL);

  self->context = g_object_ref (context);
  self->handle = handle;
  return self;
}

CUgraph
_gcuda_graph_get_handle (GCudaGraph *graph)
{
  return graph->handle;
}

gboolean
_gcuda_graph_check (GCudaGraph  *self,
                    GError     **error)
{
  return GCUDA_CHECK_MADE (self->handle != NULL, error,
                           _("This GCuda.Graph was made without a graph: graphs come from "
                             "Stream.end_capture()"));
}

/**
 * gcuda_graph_get_context: (get-property context)
 * @self: a [class@GCuda.Graph]
 *
 * Gets the context of the stream the graph was captured on.
 *
 * Returns: (transfer none): the graph's context
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_graph_get_context (GCudaGraph *self)
{
  g_return_val_if_fail (GCUDA_IS_GRAPH (self), NULL);
  return self->context;
}

/**
 * gcuda_graph_get_node_count:
 * @self: a [class@GCuda.Graph]
 * @error: return location for a [struct@GLib.Error]
 *
 * Counts the operations the graph holds (`cuGraphGetNodes`).
 *
 * Returns: how many operations (kernels, copies, memsets, …) the graph
 *   holds; 0 with @error set on failure
 *
 * Since: 1.0
 */
gsize
gcuda_graph_get_node_count (GCudaGraph  *self,
                            GError     **error)
{
  size_t count = 0;

  g_return_val_if_fail (GCUDA_IS_GRAPH (self), 0);

  if (!_gcuda_graph_check (self, error) ||
      !GCUDA_CHECK (GCUDA_DRV->fn_cuGraphGetNodes (self->handle, NULL, &count), "cuGraphGetNodes", error))
    return 0;
  return count;
}

/**
 * gcuda_graph_instantiate:
 * @self: a [class@GCuda.Graph]
 * @error: return location for a [struct@GLib.Error]
 *
 * Turns the graph into an executable graph (`cuGraphInstantiate`), which
 * [method@GCuda.GraphExec.launch] runs. The graph may be changed or dropped
 * afterwards; the executable graph does not depend on it.
 *
 * Returns: (transfer full): the executable graph, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaGraphExec *
gcuda_graph_instantiate (GCudaGraph  *self,
                         GError     **error)
{
  CUgraphExec exec = NULL;

  g_return_val_if_fail (GCUDA_IS_GRAPH (self), NULL);

  if (!_gcuda_graph_check (self, error) ||
      !GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuGraphInstantiateWithFlags (&exec, self->handle, 0),
                           "cuGraphInstantiate", error))
    return NULL;
  return _gcuda_graph_exec_new_for_handle (self->context, exec);
}

/**
 * gcuda_graph_write_dot:
 * @self: a [class@GCuda.Graph]
 * @path: (type filename): the file to write
 * @error: return location for a [struct@GLib.Error]
 *
 * Writes the graph in Graphviz's DOT language, with each node's parameters
 * (`cuGraphDebugDotPrint`), for debugging.
 *
 * Returns: %TRUE if the file was written
 *
 * Since: 1.0
 */
gboolean
gcuda_graph_write_dot (GCudaGraph  *self,
                       const char  *path,
                       GError     **error)
{
  g_return_val_if_fail (GCUDA_IS_GRAPH (self), FALSE);

  if (!_gcuda_graph_check (self, error))
    return FALSE;
  if (path == NULL || *path == '\0')
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("No file name given"));
      return FALSE;
    }
  /* CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE: every parameter of every node. */
  return GCUDA_CHECK (GCUDA_DRV->fn_cuGraphDebugDotPrint (self->handle, path, CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE),
                      "cuGraphDebugDotPrint", error);
}
