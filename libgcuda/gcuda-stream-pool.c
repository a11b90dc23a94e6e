/* gcuda-stream-pool.c: the driver's stream-ordered allocator
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>

#include "gcuda-error-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-context-private.h"
#include "gcuda-device-private.h"
#include "gcuda-pool-bins-private.h"
#include "gcuda-stream-private.h"

/**
 * GCudaStreamPool:
 *
 * A memory pool of the driver's stream-ordered allocator
 * (`cuMemPoolCreate`, `cuMemAllocFromPoolAsync`, `cuMemFreeAsync`): an
 * allocation and its free are operations on a stream, ordered with the
 * stream's other work, and the driver reuses freed memory without
 * synchronizing the device.
 *
 * ```c
 * static gboolean
 * clear_scratch (GCudaStreamPool *pool, GCudaStream *stream, GError **error)
 * {
 *   const guint64 size = 64 << 20;
 *   g_autoptr(GCudaBuffer) scratch = gcuda_stream_pool_allocate (pool, size, stream, error);
 *
 *   // the allocation, the memset and the free (when scratch goes) are
 *   // operations on the stream, in that order
 *   return scratch != NULL &&
 *          gcuda_buffer_memset_d8 (scratch, 0, 0, size, stream, error);
 * }
 * ```
 *
 * In Python:
 *
 * ```python
 * pool = GCuda.StreamPool.new(None)
 * stream = GCuda.Stream()
 * scratch = pool.allocate(64 << 20, stream)
 * GCuda.memset_d8_async(scratch, 0, 64 << 20, stream)
 * del scratch
 * stream.synchronize()
 * ```
 *
 * [method@GCuda.StreamPool.allocate] returns an ordinary [class@GCuda.Buffer]:
 * [method@GCuda.Buffer.free], or its last reference going, frees the memory on
 * the stream it was allocated on. The memory may be used on that stream right
 * away; on another stream only after synchronizing with it (an event or a
 * stream synchronization), as for any stream-ordered allocation.
 *
 * Memory freed to the pool is kept for reuse up to
 * [property@GCuda.StreamPool:release-threshold] bytes at each synchronization;
 * the default, [const@GLib.MAXUINT64], keeps everything until
 * [method@GCuda.StreamPool.trim].
 *
 * A pool may be used from any thread. It holds its context, and each of
 * its buffers holds the pool, so objects may be dropped in any order.
 *
 * C code that allocates in a hot loop can skip the buffer objects:
 * [method@GCuda.StreamPool.allocate_address] and
 * [method@GCuda.StreamPool.free_address] hand out and take back device
 * addresses (each holds the pool until given back).
 *
 * Since: 1.0
 */

struct _GCudaStreamPool
{
  GObject parent_instance;

  GCudaContext *context;
  CUmemoryPool handle;        /* NULL unless made by gcuda_stream_pool_new() */
  guint64 release_threshold;

  GMutex lock;
  GCudaAddressTable by_address;  /* addresses handed out by address (sizes), under @lock */
};

G_STATIC_ASSERT (sizeof (gsize) >= sizeof (CUdeviceptr));

G_DEFINE_FINAL_TYPE (GCudaStreamPool, gcuda_stream_pool, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_RELEASE_THRESHOLD,
  PROP_RESERVED_BYTES_CURRENT,
  PROP_USED_BYTES_CURRENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
check_created (GCudaStreamPool  *self,
               GError          **error)
{
  if (G_UNLIKELY (self->handle == NULL))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("The stream pool was not made by its constructor"));
      return FALSE;
    }
  return TRUE;
}

/* A stream argument: %NULL (the legacy default stream) or a live stream of
 * the pool's context. */
static gboolean
check_stream (GCudaStreamPool  *self,
              GCudaStream      *stream,
              const char       *mismatch_message,
              GError          **error)
{
  /* the common case in one test; the errors below tell which it is */
  if (G_LIKELY (stream == NULL || _gcuda_stream_is_of (stream, self->context)))
    return TRUE;
  if (!_gcuda_stream_check_arg (stream, error))
    return FALSE;
  if (gcuda_stream_get_context (stream) != self->context)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH, _(mismatch_message));
      return FALSE;
    }
  return TRUE;
}

/* Runs exactly once per buffer (gcuda-buffer.c), on free() or finalization;
 * @data is the stream the buffer was allocated on (a reference), NULL for
 * the legacy default stream. */
static void
stream_pool_release (GObject  *pool,
                     guint64   address,
                     guint64   size,
                     gpointer  data)
{
  GCudaStreamPool *self = GCUDA_STREAM_POOL (pool);
  g_autoptr(GCudaStream) stream = data;
  CUstream h = _gcuda_stream_get_handle (stream);

  GCUDA_CONTEXT_STREAM_RELEASE (self->context, h, GCUDA_DRV->fn_cuMemFreeAsync ((CUdeviceptr) address, h));
}

static void
gcuda_stream_pool_finalize (GObject *object)
{
  GCudaStreamPool *self = GCUDA_STREAM_POOL (object);

  /* Every buffer of the pool, and every address handed out, holds it: all
   * were freed (frees still queued on streams complete; the driver
   * releases the pool after them). */
  if (self->handle != NULL)
    GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuMemPoolDestroy (self->handle));
  _gcuda_address_table_clear (&self->by_address, NULL, NULL);
  g_mutex_clear (&self->lock);
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_stream_pool_parent_class)->finalize (object);
}

static void
gcuda_stream_pool_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  GCudaStreamPool *self = GCUDA_STREAM_POOL (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_RELEASE_THRESHOLD:
      g_value_set_uint64 (value, self->release_threshold);
      break;
    case PROP_RESERVED_BYTES_CURRENT:
      g_value_set_uint64 (value, gcuda_stream_pool_get_reserved_bytes_current (self, NULL));
      break;
    case PROP_USED_BYTES_CURRENT:
      g_value_set_uint64 (value, gcuda_stream_pool_get_used_bytes_current (self, NULL));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_stream_pool_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  GCudaStreamPool *self = GCUDA_STREAM_POOL (object);
  g_autoptr(GError) error = NULL;

  switch (prop_id)
    {
    case PROP_RELEASE_THRESHOLD:
      if (self->handle == NULL)
        self->release_threshold = g_value_get_uint64 (value);
      else if (!gcuda_stream_pool_set_release_threshold (self, g_value_get_uint64 (value), &error))
        g_warning ("GCudaStreamPool:release-threshold: %s", error->message);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_stream_pool_class_init (GCudaStreamPoolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = gcuda_stream_pool_finalize;
  object_class->get_property = gcuda_stream_pool_get_property;
  object_class->set_property = gcuda_stream_pool_set_property;

  /**
   * GCudaStreamPool:context: (getter get_context)
   *
   * The context whose device the memory is allocated on.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL,
                         GCUDA_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaStreamPool:release-threshold: (setter set_release_threshold) (getter get_release_threshold)
   *
   * The bytes of freed memory the pool keeps reserved when a stream, event or
   * context synchronizes; beyond it the driver gives memory back to the device
   * (`CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`). The default, [const@GLib.MAXUINT64],
   * keeps everything. A driver error while setting it is a warning;
   * [method@GCuda.StreamPool.set_release_threshold] reports it.
   *
   * Since: 1.0
   */
  properties[PROP_RELEASE_THRESHOLD] =
    g_param_spec_uint64 ("release-threshold", NULL, NULL,
                         0, G_MAXUINT64, G_MAXUINT64,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaStreamPool:reserved-bytes-current: (getter get_reserved_bytes_current)
   *
   * The bytes the pool has reserved from the device, in use or kept for
   * reuse (`CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT`); 0 when the driver
   * cannot tell (not notified).
   *
   * Since: 1.0
   */
  properties[PROP_RESERVED_BYTES_CURRENT] =
    g_param_spec_uint64 ("reserved-bytes-current", NULL, NULL,
                         0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaStreamPool:used-bytes-current: (getter get_used_bytes_current)
   *
   * The bytes of the pool's allocations not yet freed, as the driver
   * counts them (`CU_MEMPOOL_ATTR_USED_MEM_CURRENT`); a free counts once
   * its stream reached it. 0 when the driver cannot tell (not notified).
   *
   * Since: 1.0
   */
  properties[PROP_USED_BYTES_CURRENT] =
    g_param_spec_uint64 ("used-bytes-current", NULL, NULL,
                         0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_stream_pool_init (GCudaStreamPool *self)
{
  self->release_threshold = G_MAXUINT64;
  g_mutex_init (&self->lock);
}

/**
 * gcuda_stream_pool_new:
 * @context: (nullable): the context, or %NULL for the default context
 * @error: return location for a [struct@GLib.Error]
 *
 * Creates a pool of the driver's stream-ordered allocator on @context's device
 * (`cuMemPoolCreate`), keeping all freed memory for reuse (see
 * [property@GCuda.StreamPool:release-threshold]). A device without memory pools
 * is a driver error
 * ([GCUDA_DRIVER_ERROR_NOT_SUPPORTED][error@GCuda.DriverError]).
 *
 * Returns: (transfer full): the pool, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaStreamPool *
gcuda_stream_pool_new (GCudaContext  *context,
                       GError       **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  g_autoptr(GCudaStreamPool) self = NULL;
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  CUmemPoolProps props = { 0 };
  cuuint64_t threshold = G_MAXUINT64;
  CUmemoryPool handle = NULL;

  g_return_val_if_fail (context == NULL || GCUDA_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((ctx = _gcuda_context_resolve (context, error)) == NULL ||
      !_gcuda_context_enter (ctx, &scope, error))
    return NULL;

  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = (int) _gcuda_device_get_handle (gcuda_context_get_device (ctx));
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuMemPoolCreate (&handle, &props), "cuMemPoolCreate", error))
    return NULL;
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuMemPoolSetAttribute (handle, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold),
                    "cuMemPoolSetAttribute", error))
    {
      GCUDA_DRV->fn_cuMemPoolDestroy (handle);
      return NULL;
    }

  self = g_object_new (GCUDA_TYPE_STREAM_POOL, NULL);
  self->context = g_steal_pointer (&ctx);
  self->handle = handle;
  return g_steal_pointer (&self);
}

/* What allocate() and allocate_address() check, then the driver's allocation */
static gboolean
stream_allocate (GCudaStreamPool  *self,
                 guint64           size,
                 GCudaStream      *stream,
                 CUdeviceptr      *ptr,
                 GError          **error)
{
  CUstream h;

  if (!check_created (self, error) || !_gcuda_check_alloc_size (size, error) ||
      !check_stream (self, stream, N_("Allocating from a stream pool on a stream that is not of its context"),
                     error))
    return FALSE;
  h = _gcuda_stream_get_handle (stream);
  /* with a stream of its own, the driver needs no current context */
  return GCUDA_CONTEXT_STREAM_CALL (self->context, h,
                                    GCUDA_DRV->fn_cuMemAllocFromPoolAsync (ptr, (size_t) size, self->handle, h),
                                    "cuMemAllocFromPoolAsync", error);
}

/**
 * gcuda_stream_pool_allocate:
 * @self: a [class@GCuda.StreamPool]
 * @size: the size in bytes, at least 1
 * @stream: (nullable): the stream to allocate on, or %NULL for the legacy
 *   default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Allocates @size bytes on @stream (`cuMemAllocFromPoolAsync`). The returned
 * buffer is an ordinary [class@GCuda.Buffer]; [method@GCuda.Buffer.free], or
 * its last reference going, frees the memory on the same stream
 * (`cuMemFreeAsync`), which the buffer keeps alive until then.
 *
 * A size of 0 is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]; a stream of
 * another context is [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error]; running
 * out of device memory is
 * [GCUDA_DRIVER_ERROR_OUT_OF_MEMORY][error@GCuda.DriverError] (category
 * [GCUDA_ERROR_CATEGORY_MEMORY][enum@GCuda.ErrorCategory]).
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_stream_pool_allocate (GCudaStreamPool  *self,
                            guint64           size,
                            GCudaStream      *stream,
                            GError          **error)
{
  CUdeviceptr ptr = 0;

  g_return_val_if_fail (GCUDA_IS_STREAM_POOL (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!stream_allocate (self, size, stream, &ptr, error))
    return NULL;
  /* the stream goes with the buffer, for its free */
  return _gcuda_buffer_new_pooled (self->context, ptr, size, G_OBJECT (self), stream_pool_release,
                                   stream != NULL ? g_object_ref (stream) : NULL);
}

/**
 * gcuda_stream_pool_allocate_address:
 * @self: a [class@GCuda.StreamPool]
 * @size: the size in bytes, at least 1
 * @stream: (nullable): the stream to allocate on, or %NULL for the legacy
 *   default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * [method@GCuda.StreamPool.allocate] without a [class@GCuda.Buffer]: the
 * device address of @size bytes allocated on @stream
 * (`cuMemAllocFromPoolAsync`), for C code that allocates in a hot loop, where
 * making and finalizing a buffer object would cost as much as the driver's own
 * work. Give it back with [method@GCuda.StreamPool.free_address].
 *
 * Each address handed out holds the pool, as a buffer does: a pool with
 * addresses not given back stays alive (their memory too). Errors are those
 * of [method@GCuda.StreamPool.allocate].
 *
 * The address is the return value, as [method@GCuda.MemoryPool.allocate_address]
 * has it, so that every language gets it alone (an out parameter beside a
 * boolean would reach GJS as `[true, address]`).
 *
 * Returns: the device address, or 0 with @error set (no allocation is at 0)
 *
 * Since: 1.0
 */
guint64
gcuda_stream_pool_allocate_address (GCudaStreamPool  *self,
                                    guint64           size,
                                    GCudaStream      *stream,
                                    GError          **error)
{
  CUdeviceptr ptr = 0;

  g_return_val_if_fail (GCUDA_IS_STREAM_POOL (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if (!stream_allocate (self, size, stream, &ptr, error))
    return 0;
  g_mutex_lock (&self->lock);
  _gcuda_address_table_insert (&self->by_address, (guint64) ptr, size);
  g_mutex_unlock (&self->lock);
  g_object_ref (self);
  return (guint64) ptr;
}

/**
 * gcuda_stream_pool_free_address:
 * @self: a [class@GCuda.StreamPool]
 * @address: a device address from [method@GCuda.StreamPool.allocate_address]
 * @stream: (nullable): the stream to free on, or %NULL for the legacy default
 *   stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Frees memory handed out by [method@GCuda.StreamPool.allocate_address] on
 * @stream (`cuMemFreeAsync`): the free is ordered after the work queued on
 * @stream so far. Free on the stream the memory was used on, or on another
 * after synchronizing with it, as for any stream-ordered allocation.
 *
 * Any other address, or one given back already, is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and nothing changes; a
 * stream of another context is
 * [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error].
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 1.0
 */
gboolean
gcuda_stream_pool_free_address (GCudaStreamPool  *self,
                                guint64           address,
                                GCudaStream      *stream,
                                GError          **error)
{
  guint64 size = 0;
  gboolean found;
  CUstream h;

  g_return_val_if_fail (GCUDA_IS_STREAM_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_created (self, error) ||
      !check_stream (self, stream, N_("Freeing to a stream pool on a stream that is not of its context"), error))
    return FALSE;
  g_mutex_lock (&self->lock);
  found = _gcuda_address_table_steal (&self->by_address, address, &size);
  g_mutex_unlock (&self->lock);
  if (!found)
    {
      /* freeing twice lands here too: the first free forgot the address */
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("0x%" PRIx64 " is not an address this stream pool handed out by address, "
                     "or it was given back already"), address);
      return FALSE;
    }
  h = _gcuda_stream_get_handle (stream);
  if (!GCUDA_CONTEXT_STREAM_CALL (self->context, h, GCUDA_DRV->fn_cuMemFreeAsync ((CUdeviceptr) address, h),
                                  "cuMemFreeAsync", error))
    {
      /* not freed: still the caller's to give back */
      g_mutex_lock (&self->lock);
      _gcuda_address_table_insert (&self->by_address, address, size);
      g_mutex_unlock (&self->lock);
      return FALSE;
    }
  g_object_unref (self);
  return TRUE;
}

/**
 * gcuda_stream_pool_trim:
 * @self: a [class@GCuda.StreamPool]
 * @keep_bytes: the most bytes of freed memory to keep reserved
 * @error: return location for a [struct@GLib.Error]
 *
 * Gives freed memory back to the device until at most @keep_bytes bytes
 * of it stay reserved (`cuMemPoolTrimTo`). Memory whose free has not yet
 * been reached by its stream is still in use: synchronize first to trim it.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 1.0
 */
gboolean
gcuda_stream_pool_trim (GCudaStreamPool  *self,
                        guint64           keep_bytes,
                        GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_STREAM_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return check_created (self, error) &&
         GCUDA_CONTEXT_CALL (self->context,
                             GCUDA_DRV->fn_cuMemPoolTrimTo (self->handle, (size_t) MIN (keep_bytes, G_MAXSIZE)),
                             "cuMemPoolTrimTo", error);
}

/**
 * gcuda_stream_pool_get_context: (get-property context)
 * @self: a [class@GCuda.StreamPool]
 *
 * Gets the context of the pool.
 *
 * Returns: (transfer none) (nullable): the context; %NULL only for a pool
 *   not made by [ctor@GCuda.StreamPool.new]
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_stream_pool_get_context (GCudaStreamPool *self)
{
  g_return_val_if_fail (GCUDA_IS_STREAM_POOL (self), NULL);

  return self->context;
}

/**
 * gcuda_stream_pool_get_release_threshold: (get-property release-threshold)
 * @self: a [class@GCuda.StreamPool]
 *
 * Gets [property@GCuda.StreamPool:release-threshold].
 *
 * Returns: the bytes of freed memory kept reserved at synchronizations
 *
 * Since: 1.0
 */
guint64
gcuda_stream_pool_get_release_threshold (GCudaStreamPool *self)
{
  g_return_val_if_fail (GCUDA_IS_STREAM_POOL (self), 0);

  return self->release_threshold;
}

/**
 * gcuda_stream_pool_set_release_threshold: (set-property release-threshold)
 * @self: a [class@GCuda.StreamPool]
 * @release_threshold: the bytes of freed memory to keep reserved at
 *   synchronizations; [const@GLib.MAXUINT64] keeps everything
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets [property@GCuda.StreamPool:release-threshold]
 * (`CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`).
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 1.0
 */
gboolean
gcuda_stream_pool_set_release_threshold (GCudaStreamPool  *self,
                                         guint64           release_threshold,
                                         GError          **error)
{
  cuuint64_t value = release_threshold;

  g_return_val_if_fail (GCUDA_IS_STREAM_POOL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_created (self, error) ||
      !GCUDA_CONTEXT_CALL (self->context,
                           GCUDA_DRV->fn_cuMemPoolSetAttribute (self->handle, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                                                &value),
                           "cuMemPoolSetAttribute", error))
    return FALSE;
  /* Notified outside the context scope: handlers are the caller's code. */
  if (self->release_threshold != release_threshold)
    {
      self->release_threshold = release_threshold;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RELEASE_THRESHOLD]);
    }
  return TRUE;
}

static guint64
get_attribute (GCudaStreamPool     *self,
               CUmemPool_attribute  attribute,
               GError             **error)
{
  cuuint64_t value = 0;

  if (!check_created (self, error) ||
      !GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuMemPoolGetAttribute (self->handle, attribute, &value),
                           "cuMemPoolGetAttribute", error))
    return 0;
  return value;
}

/**
 * gcuda_stream_pool_get_reserved_bytes_current: (get-property reserved-bytes-current)
 * @self: a [class@GCuda.StreamPool]
 * @error: return location for a [struct@GLib.Error]
 *
 * Gets the bytes the pool has reserved from the device, in use or kept for
 * reuse (`CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT`).
 *
 * Returns: the bytes, or 0 with @error set
 *
 * Since: 1.0
 */
guint64
gcuda_stream_pool_get_reserved_bytes_current (GCudaStreamPool  *self,
                                              GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_STREAM_POOL (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  return get_attribute (self, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, error);
}

/**
 * gcuda_stream_pool_get_used_bytes_current: (get-property used-bytes-current)
 * @self: a [class@GCuda.StreamPool]
 * @error: return location for a [struct@GLib.Error]
 *
 * Gets the bytes of the pool's allocations not yet freed
 * (`CU_MEMPOOL_ATTR_USED_MEM_CURRENT`). A free counts once its stream has
 * reached it.
 *
 * Returns: the bytes, or 0 with @error set
 *
 * Since: 1.0
 */
guint64
gcuda_stream_pool_get_used_bytes_current (GCudaStreamPool  *self,
                                          GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_STREAM_POOL (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  return get_attribute (self, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, error);
}
