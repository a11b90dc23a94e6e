/* gcuda-event.c: a CUDA event
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-async-private.h"
#include "gcuda-context-private.h"
#include "gcuda-event-private.h"
#include "gcuda-stream-private.h"

/**
 * GCudaEvent:
 *
 * A CUDA event (PyCUDA's `Event`): a marker in a stream, used to wait for
 * work, to order streams and to time GPU work.
 *
 * ```c
 * static float
 * time_upload (GCudaBuffer *buffer, const guint8 *data, gsize size, GError **error)
 * {
 *   g_autoptr(GCudaEvent) start = gcuda_event_new (NULL, GCUDA_EVENT_FLAGS_DEFAULT, error);
 *   g_autoptr(GCudaEvent) end = start ? gcuda_event_new (NULL, GCUDA_EVENT_FLAGS_DEFAULT, error) : NULL;
 *
 *   if (end == NULL ||
 *       !gcuda_event_record (start, NULL, error) ||
 *       !gcuda_buffer_upload (buffer, 0, data, size, error) ||
 *       !gcuda_event_record (end, NULL, error) ||
 *       !gcuda_event_synchronize (end, error))
 *     return -1.0f;
 *   return gcuda_event_elapsed (start, end, error);  // milliseconds
 * }
 * ```
 *
 * In Python:
 *
 * ```python
 * start, end = GCuda.Event(), GCuda.Event()
 * start.record()
 * buf = GCuda.to_device(numpy.ones(1 << 24, numpy.float32))
 * end.record().synchronize()
 * print('%.2f ms' % end.time_since(start))
 * ```
 *
 * [method@GCuda.Event.record] and [method@GCuda.Event.synchronize] return the
 * event, so calls chain as in PyCUDA: `end.record(stream).synchronize()`.
 * [method@GCuda.Event.synchronize_async] waits without blocking a thread.
 *
 * An event holds a reference to its context and may be used from any thread.
 *
 * Since: 1.0
 */

struct _GCudaEvent
{
  GObject parent_instance;

  GCudaContext *context;
  CUevent handle;
  GCudaEventFlags flags;
  int recorded;  /* atomic */
};

G_DEFINE_FINAL_TYPE (GCudaEvent, gcuda_event, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_FLAGS,
  PROP_HANDLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
gcuda_event_finalize (GObject *object)
{
  GCudaEvent *self = GCUDA_EVENT (object);

  /* Not once the driver's context is gone (it took the event with it). */
  if (self->handle != NULL && !_gcuda_context_is_released (self->context))
    GCUDA_DRV->fn_cuEventDestroy (self->handle);
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_event_parent_class)->finalize (object);
}

static void
gcuda_event_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  GCudaEvent *self = GCUDA_EVENT (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_HANDLE:
      g_value_set_uint64 (value, gcuda_event_get_handle (self));
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_event_class_init (GCudaEventClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_event_finalize;
  object_class->get_property = gcuda_event_get_property;

  /**
   * GCudaEvent:context: (getter get_context)
   *
   * The context the event belongs to.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT, ro);

  /**
   * GCudaEvent:flags: (getter get_flags)
   *
   * The flags the event was created with.
   *
   * Since: 1.0
   */
  properties[PROP_FLAGS] = g_param_spec_flags ("flags", NULL, NULL, GCUDA_TYPE_EVENT_FLAGS, 0, ro);

  /**
   * GCudaEvent:handle: (getter get_handle)
   *
   * The driver's `CUevent` as an integer (see [method@GCuda.Event.get_handle]).
   *
   * Since: 1.0
   */
  properties[PROP_HANDLE] = g_param_spec_uint64 ("handle", NULL, NULL, 0, G_MAXUINT64, 0, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_event_init (GCudaEvent *self)
{
}

CUevent
_gcuda_event_get_handle (GCudaEvent *event)
{
  return event->handle;
}

static gboolean
event_check (GCudaEvent  *self,
             GError     **error)
{
  return GCUDA_CHECK_MADE (self->handle != NULL, error,
                           _("This GCuda.Event has no CUDA event behind it: create events with its constructor"));
}

/* Takes @context's reference and @handle. */
static GCudaEvent *
event_wrap (GCudaContext    *context,
            CUevent          handle,
            GCudaEventFlags  flags)
{
  GCudaEvent *self = g_object_new (GCUDA_TYPE_EVENT, NULL);

  self->context = context;
  self->handle = handle;
  self->flags = flags;
  return self;
}

/**
 * gcuda_event_new:
 * @context: (nullable): the context, or %NULL for the default context
 * @flags: creation flags
 * @error: return location for a [struct@GLib.Error]
 *
 * Creates an event (PyCUDA's `Event(flags)`).
 * [GCUDA_EVENT_FLAGS_INTERPROCESS][flags@GCuda.EventFlags] needs
 * [GCUDA_EVENT_FLAGS_DISABLE_TIMING][flags@GCuda.EventFlags] too.
 *
 * Returns: (transfer full): the new event, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaEvent *
gcuda_event_new (GCudaContext     *context,
                 GCudaEventFlags   flags,
                 GError          **error)
{
  const guint known = GCUDA_EVENT_FLAGS_BLOCKING_SYNC | GCUDA_EVENT_FLAGS_DISABLE_TIMING |
                      GCUDA_EVENT_FLAGS_INTERPROCESS;
  g_autoptr(GCudaContext) ctx = NULL;
  CUevent handle = NULL;

  if ((flags & ~known) != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown event flags 0x%x"), flags & ~known);
      return NULL;
    }
  if ((flags & GCUDA_EVENT_FLAGS_INTERPROCESS) && !(flags & GCUDA_EVENT_FLAGS_DISABLE_TIMING))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("An INTERPROCESS event must also have DISABLE_TIMING"));
      return NULL;
    }

  ctx = _gcuda_context_resolve (context, error);
  if (ctx == NULL ||
      !GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuEventCreate (&handle, flags), "cuEventCreate", error))
    return NULL;
  return event_wrap (g_steal_pointer (&ctx), handle, flags);
}

/**
 * gcuda_event_new_from_ipc_handle:
 * @context: (nullable): the context, or %NULL for the default context
 * @handle: a handle from [method@GCuda.Event.get_ipc_handle] in another process
 * @error: return location for a [struct@GLib.Error]
 *
 * Opens an event shared by another process (PyCUDA's
 * `Event.from_ipc_handle()`). A handle of the wrong size is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: (transfer full): the event, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaEvent *
gcuda_event_new_from_ipc_handle (GCudaContext  *context,
                                 GBytes        *handle,
                                 GError       **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  CUipcEventHandle ipc;
  GCudaEvent *self;
  CUevent event = NULL;

  if (!_gcuda_ipc_handle_from_bytes (handle, &ipc, sizeof ipc, _("An event"), error))
    return NULL;

  ctx = _gcuda_context_resolve (context, error);
  if (ctx == NULL ||
      !GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuIpcOpenEventHandle (&event, ipc), "cuIpcOpenEventHandle", error))
    return NULL;

  self = event_wrap (g_steal_pointer (&ctx), event, GCUDA_EVENT_FLAGS_INTERPROCESS | GCUDA_EVENT_FLAGS_DISABLE_TIMING);
  self->recorded = TRUE;  /* recorded, or not, by the other process */
  return self;
}

/**
 * gcuda_event_get_context: (get-property context)
 * @self: a [class@GCuda.Event]
 *
 * Gets the context the event belongs to.
 *
 * Returns: (transfer none): the event's context
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_event_get_context (GCudaEvent *self)
{
  g_return_val_if_fail (GCUDA_IS_EVENT (self), NULL);
  return self->context;
}

/**
 * gcuda_event_get_flags: (get-property flags)
 * @self: a [class@GCuda.Event]
 *
 * Gets the flags the event was created with.
 *
 * Returns: the creation flags
 *
 * Since: 1.0
 */
GCudaEventFlags
gcuda_event_get_flags (GCudaEvent *self)
{
  g_return_val_if_fail (GCUDA_IS_EVENT (self), 0);
  return self->flags;
}

/**
 * gcuda_event_get_handle: (get-property handle)
 * @self: a [class@GCuda.Event]
 *
 * The driver's `CUevent` as an integer, for other CUDA libraries.
 *
 * Returns: the handle
 *
 * Since: 1.0
 */
guint64
gcuda_event_get_handle (GCudaEvent *self)
{
  g_return_val_if_fail (GCUDA_IS_EVENT (self), 0);
  return (guint64) (guintptr) self->handle;
}

/**
 * gcuda_event_record:
 * @self: a [class@GCuda.Event]
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Records the event in @stream: it completes when the work queued on the
 * stream before it has finished. The stream must be in the event's context
 * ([GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error] otherwise).
 *
 * Returns: (transfer none) (nullable): @self, for chaining, or %NULL with
 *   @error set
 *
 * Since: 1.0
 */
GCudaEvent *
gcuda_event_record (GCudaEvent   *self,
                    GCudaStream  *stream,
                    GError      **error)
{
  g_return_val_if_fail (GCUDA_IS_EVENT (self), NULL);

  if (!event_check (self, error) || !_gcuda_stream_check_arg (stream, error))
    return NULL;
  if (stream != NULL && gcuda_stream_get_context (stream) != self->context)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                           _("An event can only be recorded in a stream of its own context"));
      return NULL;
    }
  if (!GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuEventRecord (self->handle, _gcuda_stream_get_handle (stream)),
                           "cuEventRecord", error))
    return NULL;
  g_atomic_int_set (&self->recorded, TRUE);
  return self;
}

/**
 * gcuda_event_synchronize:
 * @self: a [class@GCuda.Event]
 * @error: return location for a [struct@GLib.Error]
 *
 * Blocks until the event has completed. An event never recorded completes
 * at once.
 *
 * Returns: (transfer none) (nullable): @self, for chaining, or %NULL with
 *   @error set
 *
 * Since: 1.0
 */
GCudaEvent *
gcuda_event_synchronize (GCudaEvent  *self,
                         GError     **error)
{
  g_return_val_if_fail (GCUDA_IS_EVENT (self), NULL);

  if (!event_check (self, error) ||
      !GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuEventSynchronize (self->handle), "cuEventSynchronize", error))
    return NULL;
  return self;
}

/**
 * gcuda_event_query:
 * @self: a [class@GCuda.Event]
 * @error: return location for a [struct@GLib.Error]
 *
 * Whether the event has completed. Not yet completed is %FALSE, not an error.
 *
 * Returns: %TRUE if the event has completed
 *
 * Since: 1.0
 */
gboolean
gcuda_event_query (GCudaEvent  *self,
                   GError     **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (GCUDA_IS_EVENT (self), FALSE);

  if (!event_check (self, error) || !_gcuda_context_enter (self->context, &scope, error))
    return FALSE;
  return _gcuda_check_ready (GCUDA_DRV->fn_cuEventQuery (self->handle), "cuEventQuery", error);
}

static gboolean
check_timing (GCudaEvent  *event,
              const char  *role,
              GError     **error)
{
  if (!GCUDA_IS_EVENT (event))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The %s event must be a GCuda.Event"), role);
      return FALSE;
    }
  if (!event_check (event, error))
    return FALSE;
  if (event->flags & GCUDA_EVENT_FLAGS_DISABLE_TIMING)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The %s event was created with DISABLE_TIMING: it records no time"), role);
      return FALSE;
    }
  if (!g_atomic_int_get (&event->recorded))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The %s event has never been recorded"), role);
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_event_elapsed:
 * @start: the event at the start
 * @end: the event at the end
 * @error: return location for a [struct@GLib.Error]
 *
 * The time between two completed events, in milliseconds (about 0.5 µs
 * resolution). Events with
 * [GCUDA_EVENT_FLAGS_DISABLE_TIMING][flags@GCuda.EventFlags], never recorded,
 * or from different contexts are
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error] or
 * [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error]; an event not reached yet
 * is the driver's [GCUDA_DRIVER_ERROR_NOT_READY][error@GCuda.DriverError].
 *
 * Returns: the time in milliseconds, or 0 with @error set
 *
 * Since: 1.0
 */
float
gcuda_event_elapsed (GCudaEvent  *start,
                     GCudaEvent  *end,
                     GError     **error)
{
  float ms = 0.f;

  if (!check_timing (start, "start", error) || !check_timing (end, "end", error))
    return 0.f;
  if (start->context != end->context)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                           _("Events from different contexts cannot be timed against each other"));
      return 0.f;
    }
  if (!GCUDA_CONTEXT_CALL (start->context, GCUDA_DRV->fn_cuEventElapsedTime (&ms, start->handle, end->handle),
                           "cuEventElapsedTime", error))
    return 0.f;
  return ms;
}

/**
 * gcuda_event_time_since:
 * @self: the later event
 * @start: the earlier event
 * @error: return location for a [struct@GLib.Error]
 *
 * Milliseconds from @start to @self (PyCUDA's `Event.time_since()`), see
 * [method@GCuda.Event.elapsed].
 *
 * Returns: the time in milliseconds, or 0 with @error set
 *
 * Since: 1.0
 */
float
gcuda_event_time_since (GCudaEvent  *self,
                        GCudaEvent  *start,
                        GError     **error)
{
  g_return_val_if_fail (GCUDA_IS_EVENT (self), 0.f);
  return gcuda_event_elapsed (start, self, error);
}

/**
 * gcuda_event_time_till:
 * @self: the earlier event
 * @end: the later event
 * @error: return location for a [struct@GLib.Error]
 *
 * Milliseconds from @self to @end (PyCUDA's `Event.time_till()`), see
 * [method@GCuda.Event.elapsed].
 *
 * Returns: the time in milliseconds, or 0 with @error set
 *
 * Since: 1.0
 */
float
gcuda_event_time_till (GCudaEvent  *self,
                       GCudaEvent  *end,
                       GError     **error)
{
  g_return_val_if_fail (GCUDA_IS_EVENT (self), 0.f);
  return gcuda_event_elapsed (self, end, error);
}

/**
 * gcuda_event_get_ipc_handle:
 * @self: a [class@GCuda.Event] created with
 *   [GCUDA_EVENT_FLAGS_INTERPROCESS][flags@GCuda.EventFlags]
 * @error: return location for a [struct@GLib.Error]
 *
 * A handle another process can open with [ctor@GCuda.Event.new_from_ipc_handle]
 * (PyCUDA's `Event.ipc_handle()`).
 *
 * Returns: (transfer full): the handle, or %NULL with @error set
 *
 * Since: 1.0
 */
GBytes *
gcuda_event_get_ipc_handle (GCudaEvent  *self,
                            GError     **error)
{
  CUipcEventHandle ipc;

  g_return_val_if_fail (GCUDA_IS_EVENT (self), NULL);

  if (!event_check (self, error))
    return NULL;
  if (!(self->flags & GCUDA_EVENT_FLAGS_INTERPROCESS))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Only an event created with INTERPROCESS (and DISABLE_TIMING) has an IPC handle"));
      return NULL;
    }
  if (!GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuIpcGetEventHandle (&ipc, self->handle),
                           "cuIpcGetEventHandle", error))
    return NULL;
  return g_bytes_new (&ipc, sizeof ipc);
}

/**
 * gcuda_event_synchronize_async:
 * @self: a [class@GCuda.Event]
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: (scope async): called when the event has completed
 * @user_data: data for @callback
 *
 * The asynchronous form of [method@GCuda.Event.synchronize]: waits, without
 * blocking any thread, until the event (as last recorded) has completed. @callback runs in the thread-default main context of the
 * calling thread. Cancelling completes the task at once with
 * [G_IO_ERROR_CANCELLED][error@Gio.IOErrorEnum].
 *
 * Since: 1.0
 */
void
gcuda_event_synchronize_async (GCudaEvent          *self,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (GCUDA_IS_EVENT (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gcuda_event_synchronize_async);

  if (!event_check (self, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    _gcuda_wait_task_start (task, self->context, NULL, self->handle);
}

/**
 * gcuda_event_synchronize_finish:
 * @self: a [class@GCuda.Event]
 * @result: the [iface@Gio.AsyncResult]
 * @error: return location for a [struct@GLib.Error]
 *
 * Finishes [method@GCuda.Event.synchronize_async].
 *
 * Returns: %TRUE once the event has completed
 *
 * Since: 1.0
 */
gboolean
gcuda_event_synchronize_finish (GCudaEvent    *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_EVENT (self), FALSE);

  return _gcuda_wait_task_finish (self, result, gcuda_event_synchronize_async, error);
}
