/* gcuda-stream.c: a CUDA stream
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-async-private.h"
#include "gcuda-context-private.h"
#include "gcuda-event-private.h"
#include "gcuda-graph-private.h"
#include "gcuda-stream-private.h"

/**
 * GCudaStream:
 *
 * A CUDA stream (PyCUDA's `Stream`): a queue of GPU work that runs in order.
 *
 * ```c
 * static void
 * upload_done (GObject *source, GAsyncResult *result, gpointer user_data)
 * {
 *   g_autoptr(GError) error = NULL;
 *
 *   if (!gcuda_stream_synchronize_finish (GCUDA_STREAM (source), result, &error))
 *     g_warning ("Upload failed: %s", error->message);
 * }
 *
 * static gboolean
 * upload_in_background (GCudaBuffer *buffer, GCudaHostBuffer *host, GError **error)
 * {
 *   g_autoptr(GCudaStream) stream =
 *     gcuda_stream_new (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING, 0, error);
 *
 *   if (stream == NULL ||
 *       !gcuda_buffer_upload_from_address_on_stream (buffer, 0,
 *                                                    gcuda_host_buffer_get_address (host),
 *                                                    gcuda_host_buffer_get_size (host),
 *                                                    stream, error))
 *     return FALSE;
 *   gcuda_stream_synchronize_async (stream, NULL, upload_done, NULL);
 *   return TRUE;
 * }
 * ```
 *
 * In Python, PyCUDA's `memcpy_*_async()` functions take the stream, and
 * `synchronize_async()` without a callback can be awaited from asyncio:
 *
 * ```python
 * stream = GCuda.Stream()
 * host = GCuda.pagelocked_empty(1 << 20, numpy.float32)
 * buf = GCuda.mem_alloc(host.nbytes)
 * GCuda.memcpy_htod_async(buf, host, stream)
 * stream.synchronize()  # in a coroutine: await stream.synchronize_async()
 * ```
 *
 * In JavaScript, `Gio._promisify()` makes the `_async` calls promises:
 *
 * ```js
 * Gio._promisify(GCuda.Stream.prototype, 'synchronize_async', 'synchronize_finish');
 *
 * async function drain(stream) {
 *     await stream.synchronize_async(null);
 * }
 * ```
 *
 * Wherever GCuda takes a stream, %NULL means the legacy default stream of
 * the context involved. [func@GCuda.Stream.get_per_thread_default] gives the
 * per-thread default stream instead.
 *
 * Completion is reported the GNOME way, without blocking or polling:
 * [method@GCuda.Stream.synchronize_async] completes a [class@Gio.Task], and
 * [method@GCuda.Stream.add_callback] runs a function in the main context of the
 * thread that added it, once the work queued before has finished. The
 * driver's own callback thread only wakes that main context up.
 *
 * A stream holds a reference to its context and may be used from any thread.
 *
 * Since: 1.0
 */

struct _GCudaStream
{
  GObject parent_instance;

  GCudaContext *context;
  CUstream handle;
  GCudaStreamFlags flags;
  int priority;
  gboolean owned;  /* FALSE for the per-thread default stream */
};

G_DEFINE_FINAL_TYPE (GCudaStream, gcuda_stream, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_FLAGS,
  PROP_PRIORITY,
  PROP_HANDLE,
  PROP_BORROWED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
gcuda_stream_finalize (GObject *object)
{
  GCudaStream *self = GCUDA_STREAM (object);

  if (self->owned && self->handle != NULL)
    {
      _gcuda_context_remove_stream (self->context, self->handle);
      /* Not once the driver's context is gone: the stream died with it (a
       * destroyed primary context is still there until its objects go).
       * cuStreamDestroy needs no current context and returns at once; work
       * still queued completes. */
      if (!_gcuda_context_is_released (self->context))
        GCUDA_DRV->fn_cuStreamDestroy (self->handle);
    }
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_stream_parent_class)->finalize (object);
}

static void
gcuda_stream_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  GCudaStream *self = GCUDA_STREAM (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_PRIORITY:
      g_value_set_int (value, self->priority);
      break;
    case PROP_HANDLE:
      g_value_set_uint64 (value, gcuda_stream_get_handle (self));
      break;
    case PROP_BORROWED:
      g_value_set_boolean (value, gcuda_stream_is_borrowed (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_stream_class_init (GCudaStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_stream_finalize;
  object_class->get_property = gcuda_stream_get_property;

  /**
   * GCudaStream:context: (getter get_context)
   *
   * The context the stream belongs to.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT, ro);

  /**
   * GCudaStream:flags: (getter get_flags)
   *
   * The flags the stream was created with.
   *
   * Since: 1.0
   */
  properties[PROP_FLAGS] = g_param_spec_flags ("flags", NULL, NULL, GCUDA_TYPE_STREAM_FLAGS, 0, ro);

  /**
   * GCudaStream:priority: (getter get_priority)
   *
   * The stream's priority; lower numbers are higher priorities (see
   * [method@GCuda.Context.get_stream_priority_range]).
   *
   * Since: 1.0
   */
  properties[PROP_PRIORITY] = g_param_spec_int ("priority", NULL, NULL, G_MININT, G_MAXINT, 0, ro);

  /**
   * GCudaStream:handle: (getter get_handle)
   *
   * The driver's `CUstream` as an integer (see
   * [method@GCuda.Stream.get_handle]).
   *
   * Since: 1.0
   */
  properties[PROP_HANDLE] = g_param_spec_uint64 ("handle", NULL, NULL, 0, G_MAXUINT64, 0, ro);

  /**
   * GCudaStream:borrowed: (getter is_borrowed)
   *
   * Whether GCuda did not create the stream and never destroys it.
   *
   * Since: 1.0
   */
  properties[PROP_BORROWED] = g_param_spec_boolean ("borrowed", NULL, NULL, FALSE, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_stream_init (GCudaStream *self)
{
}

CUstream
_gcuda_stream_get_handle (GCudaStream *stream)
{
  return stream ? stream->handle : CU_STREAM_LEGACY;
}

static gboolean
stream_check (GCudaStream  *self,
              GError      **error)
{
  return GCUDA_CHECK_MADE (self->context != NULL, error,
                           _("This GCuda.Stream has no CUDA stream behind it: create streams with its constructor"));
}

gboolean
_gcuda_stream_check_arg (GCudaStream  *stream,
                         GError      **error)
{
  if (stream == NULL)
    return TRUE;
  if (!GCUDA_IS_STREAM (stream))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.Stream, or NULL for the legacy default stream"));
      return FALSE;
    }
  return stream_check (stream, error);
}

gboolean
_gcuda_stream_is_of (GCudaStream  *stream,
                     GCudaContext *context)
{
  return GCUDA_IS_STREAM (stream) && stream->context == context;
}

/**
 * gcuda_stream_new:
 * @context: (nullable): the context, or %NULL for the default context
 * @flags: creation flags
 * @priority: the priority, within
 *   [method@GCuda.Context.get_stream_priority_range]; 0 is the default
 * @error: return location for a [struct@GLib.Error]
 *
 * Creates a stream (PyCUDA's `Stream(flags)`). A priority outside the context's
 * range is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], not silently
 * clamped.
 *
 * Returns: (transfer full): the new stream, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaStream *
gcuda_stream_new (GCudaContext      *context,
                  GCudaStreamFlags   flags,
                  int                priority,
                  GError           **error)
{
  g_autoptr(GCudaContext) ctx = _gcuda_context_resolve (context, error);
  GCudaStream *self;
  CUstream handle = NULL;
  int least = 0, greatest = 0;
  GError *local_error = NULL;

  if (ctx == NULL)
    return NULL;

  if ((flags & ~GCUDA_STREAM_FLAGS_NON_BLOCKING) != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown stream flags 0x%x"), flags & ~GCUDA_STREAM_FLAGS_NON_BLOCKING);
      return NULL;
    }
  gcuda_context_get_stream_priority_range (ctx, &least, &greatest, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return NULL;
    }
  if (priority < greatest || priority > least)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Stream priority %d is out of range: this context accepts %d (highest) to %d (lowest)"),
                   priority, greatest, least);
      return NULL;
    }

  if (!GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuStreamCreateWithPriority (&handle, flags, priority),
                           "cuStreamCreateWithPriority", error))
    return NULL;

  self = g_object_new (GCUDA_TYPE_STREAM, NULL);
  self->context = g_steal_pointer (&ctx);
  self->handle = handle;
  self->flags = flags;
  self->priority = priority;
  self->owned = TRUE;
  _gcuda_context_add_stream (self->context, handle);
  return self;
}

/**
 * gcuda_stream_get_per_thread_default:
 * @context: (nullable): the context, or %NULL for the default context
 * @error: return location for a [struct@GLib.Error]
 *
 * A stream object standing for the per-thread default stream of @context:
 * whichever thread uses it, work goes to that thread's own default stream,
 * which does not synchronize with other streams.
 *
 * Returns: (transfer full): the stream, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaStream *
gcuda_stream_get_per_thread_default (GCudaContext  *context,
                                     GError       **error)
{
  g_autoptr(GCudaContext) ctx = _gcuda_context_resolve (context, error);
  GCudaStream *self;

  if (ctx == NULL)
    return NULL;

  self = g_object_new (GCUDA_TYPE_STREAM, NULL);
  self->context = g_steal_pointer (&ctx);
  self->handle = CU_STREAM_PER_THREAD;
  self->flags = GCUDA_STREAM_FLAGS_DEFAULT;  /* it synchronizes with the legacy stream */
  return self;
}

/* The context a borrowed stream belongs to: @context when given (which the
 * stream's own must be), else the stream's own if GCuda knows it, else the
 * default context when that is the stream's. */
static GCudaContext *
borrowed_stream_context (GCudaContext  *context,
                         CUstream       handle,
                         GError       **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  CUcontext owner = NULL;

  if (context != NULL && !GCUDA_IS_CONTEXT (context))
    return _gcuda_context_resolve (context, error);  /* sets the error */
  if (_gcuda_driver_get (error) == NULL)
    return NULL;
  /* cuStreamGetCtx needs no current context for a stream of its own. */
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuStreamGetCtx (handle, &owner), "cuStreamGetCtx", error))
    return NULL;
  if (context == NULL)
    {
      ctx = _gcuda_context_lookup (owner);
      if (ctx == NULL && (ctx = _gcuda_context_resolve (NULL, error)) == NULL)
        return NULL;
    }
  else
    ctx = g_object_ref (context);
  if (_gcuda_context_get_handle_internal (ctx) != owner)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                   context != NULL
                   ? _("The stream 0x%" PRIx64 " belongs to another CUDA context than the one given")
                   : _("The stream 0x%" PRIx64 " belongs to a CUDA context GCuda has no GCuda.Context for: "
                       "pass the context it belongs to"),
                   (guint64) (guintptr) handle);
      return NULL;
    }
  return g_steal_pointer (&ctx);
}

/**
 * gcuda_stream_new_for_handle:
 * @context: (nullable): the context the stream belongs to, or %NULL for the
 *   stream's own context (the default context for the default streams)
 * @handle: a `CUstream` as an integer: 0 or 1 (`CU_STREAM_LEGACY`) for the
 *   legacy default stream, 2 (`CU_STREAM_PER_THREAD`) for the per-thread
 *   default stream, or a stream another library created
 * @error: return location for a [struct@GLib.Error]
 *
 * Borrows a stream GCuda did not create: CuPy's `Stream.ptr`, PyTorch's
 * `torch.cuda.Stream.cuda_stream`, a `cudaStream_t` or `CUstream` of C code,
 * so that GCuda's copies, memsets and launches queue their work on it. GCuda
 * never destroys a borrowed stream: whoever created it must keep it alive
 * as long as the returned object is used.
 *
 * For 0 and 1 the object stands for the legacy default stream of @context
 * ([method@GCuda.Stream.get_handle] then gives 1), for 2 for the per-thread
 * default stream (as [func@GCuda.Stream.get_per_thread_default] does); no
 * driver call checks them. Any other handle must be a live stream: the
 * driver is asked which context it belongs to (`cuStreamGetCtx`), its flags
 * and priority. With @context %NULL that context must be one GCuda has a
 * [class@GCuda.Context] for (the default context, the primary context CuPy
 * and PyTorch use, is one); a stream of another context than @context is
 * [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error]. A handle that is not a
 * stream at all cannot always be detected: the driver may crash on it.
 *
 * Returns: (transfer full): the stream, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaStream *
gcuda_stream_new_for_handle (GCudaContext  *context,
                             guint64        handle,
                             GError       **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  CUstream h = (CUstream) (guintptr) handle;
  GCudaStream *self;
  unsigned int flags = 0;
  int priority = 0;

  if (handle != (guint64) (guintptr) h)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("0x%" PRIx64 " is not a stream handle on this platform"), handle);
      return NULL;
    }
  if (_gcuda_stream_handle_is_default (h))
    {
      if ((ctx = _gcuda_context_resolve (context, error)) == NULL)
        return NULL;
      h = h == CU_STREAM_PER_THREAD ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
    }
  else
    {
      g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

      if ((ctx = borrowed_stream_context (context, h, error)) == NULL ||
          !_gcuda_context_enter (ctx, &scope, error) ||
          !GCUDA_CHECK (GCUDA_DRV->fn_cuStreamGetFlags (h, &flags), "cuStreamGetFlags", error) ||
          !GCUDA_CHECK (GCUDA_DRV->fn_cuStreamGetPriority (h, &priority), "cuStreamGetPriority", error))
        return NULL;
    }

  self = g_object_new (GCUDA_TYPE_STREAM, NULL);
  self->context = g_steal_pointer (&ctx);
  self->handle = h;
  self->flags = flags & GCUDA_STREAM_FLAGS_NON_BLOCKING;
  self->priority = priority;
  self->owned = FALSE;
  return self;
}

/**
 * gcuda_stream_is_borrowed: (get-property borrowed)
 * @self: a [class@GCuda.Stream]
 *
 * Whether the stream is one GCuda did not create and never destroys: a
 * stream from [ctor@GCuda.Stream.new_for_handle] or
 * [func@GCuda.Stream.get_per_thread_default].
 *
 * Returns: %TRUE for a borrowed stream, %FALSE for one of
 *   [ctor@GCuda.Stream.new]
 *
 * Since: 1.0
 */
gboolean
gcuda_stream_is_borrowed (GCudaStream *self)
{
  g_return_val_if_fail (GCUDA_IS_STREAM (self), FALSE);
  return self->context != NULL && !self->owned;
}

/**
 * gcuda_stream_get_context: (get-property context)
 * @self: a [class@GCuda.Stream]
 *
 * Gets the context the stream belongs to.
 *
 * Returns: (transfer none): the stream's context
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_stream_get_context (GCudaStream *self)
{
  g_return_val_if_fail (GCUDA_IS_STREAM (self), NULL);
  return self->context;
}

/**
 * gcuda_stream_get_flags: (get-property flags)
 * @self: a [class@GCuda.Stream]
 *
 * Gets the flags the stream was created with.
 *
 * Returns: the creation flags
 *
 * Since: 1.0
 */
GCudaStreamFlags
gcuda_stream_get_flags (GCudaStream *self)
{
  g_return_val_if_fail (GCUDA_IS_STREAM (self), 0);
  return self->flags;
}

/**
 * gcuda_stream_get_priority: (get-property priority)
 * @self: a [class@GCuda.Stream]
 *
 * Gets the stream's priority; lower numbers are higher priorities.
 *
 * Returns: the priority
 *
 * Since: 1.0
 */
int
gcuda_stream_get_priority (GCudaStream *self)
{
  g_return_val_if_fail (GCUDA_IS_STREAM (self), 0);
  return self->priority;
}

/**
 * gcuda_stream_get_handle: (get-property handle)
 * @self: a [class@GCuda.Stream]
 *
 * The driver's `CUstream` as an integer, for other CUDA libraries (CuPy's
 * `cupy.cuda.ExternalStream`, PyTorch's `torch.cuda.ExternalStream`): 1
 * (`CU_STREAM_LEGACY`) for the legacy default stream, 2
 * (`CU_STREAM_PER_THREAD`) for the per-thread default stream. In Python a
 * stream also has the `__cuda_stream__` protocol.
 *
 * Returns: the handle
 *
 * Since: 1.0
 */
guint64
gcuda_stream_get_handle (GCudaStream *self)
{
  g_return_val_if_fail (GCUDA_IS_STREAM (self), 0);
  return (guint64) (guintptr) self->handle;
}

/**
 * gcuda_stream_synchronize:
 * @self: a [class@GCuda.Stream]
 * @error: return location for a [struct@GLib.Error]
 *
 * Blocks until the work queued on the stream has finished. Errors of that
 * work (a faulting kernel) are reported here.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_stream_synchronize (GCudaStream  *self,
                          GError      **error)
{
  g_return_val_if_fail (GCUDA_IS_STREAM (self), FALSE);

  return stream_check (self, error) &&
         GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuStreamSynchronize (self->handle),
                             "cuStreamSynchronize", error);
}

/**
 * gcuda_stream_is_done:
 * @self: a [class@GCuda.Stream]
 * @error: return location for a [struct@GLib.Error]
 *
 * Whether all work queued on the stream has finished (PyCUDA's
 * `Stream.is_done()`). Work still running is %FALSE, not an error.
 *
 * Returns: %TRUE when the stream is idle; %FALSE when it is busy or on error
 *
 * Since: 1.0
 */
gboolean
gcuda_stream_is_done (GCudaStream  *self,
                      GError      **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (GCUDA_IS_STREAM (self), FALSE);

  if (!stream_check (self, error) || !_gcuda_context_enter (self->context, &scope, error))
    return FALSE;
  return _gcuda_check_ready (GCUDA_DRV->fn_cuStreamQuery (self->handle), "cuStreamQuery", error);
}

/**
 * gcuda_stream_wait_event:
 * @self: a [class@GCuda.Stream]
 * @event: the event to wait for
 * @error: return location for a [struct@GLib.Error]
 *
 * Makes later work on the stream wait until @event has completed (PyCUDA's
 * `Stream.wait_for_event()`); the host is not blocked. The event may belong
 * to another context, even on another device: the driver allows it.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_stream_wait_event (GCudaStream  *self,
                         GCudaEvent   *event,
                         GError      **error)
{
  g_return_val_if_fail (GCUDA_IS_STREAM (self), FALSE);

  if (!GCUDA_IS_EVENT (event))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Waiting for an event needs a GCuda.Event"));
      return FALSE;
    }
  if (!stream_check (self, error) ||
      !GCUDA_CHECK_MADE (_gcuda_event_get_handle (event) != NULL, error,
                         _("The event has no CUDA event behind it: create events with the GCuda.Event constructor")))
    return FALSE;
  if (gcuda_context_is_destroyed (gcuda_event_get_context (event)))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED,
                           _("The event's context was destroyed"));
      return FALSE;
    }
  return GCUDA_CONTEXT_CALL (self->context,
                             GCUDA_DRV->fn_cuStreamWaitEvent (self->handle, _gcuda_event_get_handle (event), 0),
                             "cuStreamWaitEvent", error);
}

typedef struct {
  GCudaStream *stream;
  GCudaStreamCallback callback;
  gpointer user_data;
  GDestroyNotify destroy;
} StreamCallback;

static gboolean
stream_callback_dispatch (gpointer data)
{
  StreamCallback *cb = data;

  cb->callback (cb->stream, cb->user_data);
  return G_SOURCE_REMOVE;
}

static void
stream_callback_free (gpointer data)
{
  StreamCallback *cb = data;

  if (cb->destroy)
    cb->destroy (cb->user_data);
  g_object_unref (cb->stream);
  g_free (cb);
}

/* Queues @cb's dispatch on the stream, for the calling thread's main
 * context. On failure @cb still belongs to the caller. */
static gboolean
queue_callback (GCudaStream     *self,
                gboolean         blocking,
                StreamCallback  *cb,
                GError         **error)
{
  g_autoptr(GMainContext) main_context = g_main_context_ref_thread_default ();
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

  if (!_gcuda_context_enter (self->context, &scope, error))
    return FALSE;
  if (blocking)
    return _gcuda_host_notify_blocking (self->handle, main_context, stream_callback_dispatch, cb,
                                        stream_callback_free, error);
  return _gcuda_host_notify (self->handle, main_context, stream_callback_dispatch, cb,
                             stream_callback_free, error);
}

static gboolean
add_callback (GCudaStream          *self,
              gboolean              blocking,
              GCudaStreamCallback   callback,
              gpointer              user_data,
              GDestroyNotify        destroy,
              GError              **error)
{
  StreamCallback *cb;

  if (!GCUDA_IS_STREAM (self) || callback == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           callback == NULL ? _("A stream callback is needed") : _("Expected a GCuda.Stream"));
      if (destroy)
        destroy (user_data);
      return FALSE;
    }
  if (!stream_check (self, error))
    {
      if (destroy)
        destroy (user_data);
      return FALSE;
    }

  cb = g_new (StreamCallback, 1);
  cb->stream = g_object_ref (self);
  cb->callback = callback;
  cb->user_data = user_data;
  cb->destroy = destroy;
  /* Freed outside the context scope: @destroy is the caller's code. */
  if (!queue_callback (self, blocking, cb, error))
    {
      stream_callback_free (cb);  /* calls @destroy: bindings free their closure */
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_stream_add_callback:
 * @self: a [class@GCuda.Stream]
 * @callback: (scope notified) (closure user_data) (destroy destroy): the function to run
 * @user_data: data for @callback
 * @destroy: (nullable): frees @user_data after @callback has run
 * @error: return location for a [struct@GLib.Error]
 *
 * Runs @callback once all work queued on the stream before this call has
 * finished, in the thread-default [struct@GLib.MainContext] of the calling
 * thread (as captured now), never on the driver's thread. The stream does not
 * wait for the callback: work queued after it starts as soon as the GPU has
 * reached this point (see [method@GCuda.Stream.add_blocking_callback] for the
 * other way).
 *
 * The main context must be iterated for @callback to run. The stream stays
 * alive until then. On failure @destroy is called at once.
 *
 * Returns: %TRUE if the callback was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_stream_add_callback (GCudaStream          *self,
                           GCudaStreamCallback   callback,
                           gpointer              user_data,
                           GDestroyNotify        destroy,
                           GError              **error)
{
  return add_callback (self, FALSE, callback, user_data, destroy, error);
}

/**
 * gcuda_stream_add_blocking_callback:
 * @self: a [class@GCuda.Stream]
 * @callback: (scope notified) (closure user_data) (destroy destroy): the function to run
 * @user_data: data for @callback
 * @destroy: (nullable): frees @user_data after @callback has run
 * @error: return location for a [struct@GLib.Error]
 *
 * Like [method@GCuda.Stream.add_callback], but work queued on the stream after
 * this call waits until @callback has returned, as with the driver's own
 * `cuLaunchHostFunc()`: @callback is a step of the stream's work (host
 * processing between two kernels, say).
 *
 * The stream is stalled until the calling thread's main context has run the
 * callback, so do not block that thread in [method@GCuda.Stream.synchronize]
 * (or anything that waits for this stream) before it has; wait with
 * [method@GCuda.Stream.synchronize_async] instead. The driver may run the host
 * functions of all streams one at a time, so while a blocking callback waits
 * for its main context, other streams' callbacks and GCuda's async completions
 * may wait too: keep blocking callbacks short, and never block the thread of
 * their main context on the GPU while one is pending. If that main context is
 * never iterated, the stream never goes on. Synchronous GCuda transfers,
 * memsets and copies wait for the legacy default stream, so they too must not
 * run on that thread while a blocking callback is pending on a blocking stream.
 * On failure @destroy is called at once.
 *
 * Returns: %TRUE if the callback was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_stream_add_blocking_callback (GCudaStream          *self,
                                    GCudaStreamCallback   callback,
                                    gpointer              user_data,
                                    GDestroyNotify        destroy,
                                    GError              **error)
{
  return add_callback (self, TRUE, callback, user_data, destroy, error);
}

/**
 * gcuda_stream_synchronize_async:
 * @self: a [class@GCuda.Stream]
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: (scope async): called when the stream's work has finished
 * @user_data: data for @callback
 *
 * Waits, without blocking any thread and without polling, until the work
 * queued on the stream so far has finished. @callback runs in the
 * thread-default main context of the calling thread.
 *
 * Cancelling completes the task at once with
 * [G_IO_ERROR_CANCELLED][error@Gio.IOErrorEnum]; the GPU work is not cancelled,
 * and the stream stays alive until it is done.
 *
 * The completion is signalled by a host function on the stream, which the
 * driver counts as the stream's work until it has returned: right after
 * @callback runs, [method@GCuda.Stream.is_done] may still be %FALSE for a
 * moment.
 *
 * Since: 1.0
 */
void
gcuda_stream_synchronize_async (GCudaStream         *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (GCUDA_IS_STREAM (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gcuda_stream_synchronize_async);

  if (!stream_check (self, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    _gcuda_wait_task_start (task, self->context, self->handle, NULL);
}

/**
 * gcuda_stream_synchronize_finish:
 * @self: a [class@GCuda.Stream]
 * @result: the [iface@Gio.AsyncResult]
 * @error: return location for a [struct@GLib.Error]
 *
 * Finishes [method@GCuda.Stream.synchronize_async].
 *
 * Returns: %TRUE once the work has finished
 *
 * Since: 1.0
 */
gboolean
gcuda_stream_synchronize_finish (GCudaStream   *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_STREAM (self), FALSE);

  return _gcuda_wait_task_finish (self, result, gcuda_stream_synchronize_async, error);
}

gboolean
_gcuda_legacy_stream_synchronize (GError **error)
{
  return GCUDA_CHECK (GCUDA_DRV->fn_cuStreamSynchronize (CU_STREAM_LEGACY), "cuStreamSynchronize", error);
}

/**
 * gcuda_stream_begin_capture:
 * @self: a [class@GCuda.Stream]
 * @mode: which calls the capture refuses while it runs
 * @error: return location for a [struct@GLib.Error]
 *
 * Starts capturing the work queued on the stream into a graph instead of
 * running it (`cuStreamBeginCapture`); [method@GCuda.Stream.end_capture]
 * returns the graph. Work on other streams that waits for an event recorded
 * here joins the capture. GCuda's synchronous transfers and synchronizing calls
 * are refused while a [GCUDA_CAPTURE_MODE_GLOBAL][enum@GCuda.CaptureMode]
 * capture runs (the driver's
 * [GCUDA_DRIVER_ERROR_STREAM_CAPTURE_UNSUPPORTED][error@GCuda.DriverError]),
 * and break the capture: use the `_on_stream` forms.
 *
 * Returns: %TRUE if the capture started
 *
 * Since: 1.0
 */
gboolean
gcuda_stream_begin_capture (GCudaStream       *self,
                            GCudaCaptureMode   mode,
                            GError           **error)
{
  g_return_val_if_fail (GCUDA_IS_STREAM (self), FALSE);

  if (!stream_check (self, error))
    return FALSE;
  if (mode != GCUDA_CAPTURE_MODE_GLOBAL && mode != GCUDA_CAPTURE_MODE_THREAD_LOCAL &&
      mode != GCUDA_CAPTURE_MODE_RELAXED)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%d is not a graph capture mode"), (int) mode);
      return FALSE;
    }
  return GCUDA_CONTEXT_CALL (self->context,
                             GCUDA_DRV->fn_cuStreamBeginCapture (self->handle, (CUstreamCaptureMode) mode),
                             "cuStreamBeginCapture", error);
}

/**
 * gcuda_stream_end_capture:
 * @self: a [class@GCuda.Stream]
 * @error: return location for a [struct@GLib.Error]
 *
 * Ends the capture begun by [method@GCuda.Stream.begin_capture] (in the same
 * thread, for the non-relaxed modes). A capture broken by an illegal call fails
 * here with
 * [GCUDA_DRIVER_ERROR_STREAM_CAPTURE_INVALIDATED][error@GCuda.DriverError]; a
 * stream that was not capturing is
 * [GCUDA_DRIVER_ERROR_ILLEGAL_STATE][error@GCuda.DriverError].
 *
 * Like the CUDA driver's, the graph refers to the kernels, memory and streams
 * it uses by handle, not by reference: keep the [class@GCuda.Module], the
 * [class@GCuda.Buffer] and [class@GCuda.HostBuffer] objects the captured work
 * used alive as long as the graph (or a [class@GCuda.GraphExec] made from it)
 * may run.
 *
 * Returns: (transfer full): the captured graph, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaGraph *
gcuda_stream_end_capture (GCudaStream  *self,
                          GError      **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  CUgraph graph = NULL;
  CUresult res;

  g_return_val_if_fail (GCUDA_IS_STREAM (self), NULL);

  if (!stream_check (self, error) || !_gcuda_context_enter (self->context, &scope, error))
    return NULL;
  res = GCUDA_DRV->fn_cuStreamEndCapture (self->handle, &graph);
  if (res == CUDA_SUCCESS && graph == NULL)
    res = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  if (!_gcuda_check (res, "cuStreamEndCapture", error))
    {
      if (graph != NULL)
        GCUDA_DRV->fn_cuGraphDestroy (graph);
      return NULL;
    }
  return _gcuda_graph_new_for_handle (self->context, graph);
}

/**
 * gcuda_stream_get_capture_status:
 * @self: a [class@GCuda.Stream]
 * @error: return location for a [struct@GLib.Error]
 *
 * Asks the driver whether the stream is capturing into a graph
 * (`cuStreamIsCapturing`).
 *
 * Returns: whether the stream is capturing into a graph, or
 *   [GCUDA_CAPTURE_STATUS_NONE][enum@GCuda.CaptureStatus] with @error set
 *
 * Since: 1.0
 */
GCudaCaptureStatus
gcuda_stream_get_capture_status (GCudaStream  *self,
                                 GError      **error)
{
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;

  g_return_val_if_fail (GCUDA_IS_STREAM (self), GCUDA_CAPTURE_STATUS_NONE);

  if (!stream_check (self, error) ||
      !GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuStreamIsCapturing (self->handle, &status),
                           "cuStreamIsCapturing", error))
    return GCUDA_CAPTURE_STATUS_NONE;
  return (GCudaCaptureStatus) status;
}
