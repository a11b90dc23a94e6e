/* gcuda-host-memory-pool.c: a pool of page-locked host memory blocks
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-host-buffer-private.h"
#include "gcuda-pool-bins-private.h"

/**
 * GCudaHostMemoryPool:
 *
 * A pool of page-locked host memory blocks (PyCUDA's
 * `PageLockedMemoryPool`): [class@GCuda.MemoryPool]'s bins, counters, reuse and
 * out-of-memory handling for memory from `cuMemHostAlloc`, which is much
 * slower to allocate than ordinary memory.
 *
 * ```c
 * static gboolean
 * upload_in_chunks (GCudaBuffer *dest, const guint8 *data, gsize size, GError **error)
 * {
 *   g_autoptr(GCudaHostMemoryPool) pool =
 *     gcuda_host_memory_pool_new (NULL, GCUDA_HOST_ALLOC_FLAGS_DEFAULT);
 *   const gsize chunk = 1 << 20;
 *
 *   for (gsize offset = 0; offset < size; offset += chunk)
 *     {
 *       gsize n = MIN (chunk, size - offset);
 *       g_autoptr(GCudaHostBuffer) staging = gcuda_host_memory_pool_allocate (pool, n, error);
 *       guint64 address;
 *
 *       if (staging == NULL)
 *         return FALSE;
 *       address = gcuda_host_buffer_get_address (staging);
 *       memcpy ((guint8 *) (guintptr) address, data + offset, n);
 *       if (!gcuda_buffer_upload_from_address (dest, offset, address, n, error))
 *         return FALSE;
 *     }
 *   return TRUE;
 * }
 * ```
 *
 * In Python, PyCUDA's `PageLockedMemoryPool` hands out numpy arrays:
 *
 * ```python
 * pool = GCuda.PageLockedMemoryPool()
 * host = pool.allocate((1024, 1024), numpy.float32)
 * host[:] = 0.5
 * buf = GCuda.to_device(host)
 * del host  # the block goes back to the pool
 * ```
 *
 * [method@GCuda.HostMemoryPool.allocate] returns an ordinary page-locked
 * [class@GCuda.HostBuffer] with the pool's
 * [property@GCuda.HostMemoryPool:flags]; [method@GCuda.HostBuffer.free], or its
 * last reference going, gives the block back to the pool.
 *
 * A pool may be used from any thread. It holds its context, and each of its
 * buffers holds the pool, so objects may be dropped in any order.
 *
 * Since: 1.0
 */

struct _GCudaHostMemoryPool
{
  GObject parent_instance;

  guint flags;
  GCudaPoolCore core;
};

G_DEFINE_FINAL_TYPE (GCudaHostMemoryPool, gcuda_host_memory_pool, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_FLAGS,
  PROP_HELD_BLOCKS,
  PROP_ACTIVE_BLOCKS,
  PROP_MANAGED_BYTES,
  PROP_ACTIVE_BYTES,
  PROP_MAX_HELD_BYTES,
  N_PROPS
};

/* The counters in the core's order, see _gcuda_pool_counter_pspecs(). */
G_STATIC_ASSERT (PROP_MAX_HELD_BYTES - PROP_HELD_BLOCKS + 1 == GCUDA_POOL_N_COUNTERS);

static GParamSpec *properties[N_PROPS];

static gboolean
pool_alloc (gpointer   owner,
            guint64    size,
            guint64   *address,
            GError   **error)
{
  GCudaHostMemoryPool *self = owner;
  void *ptr = NULL;
  gboolean ok;

  ok = GCUDA_CHECK (GCUDA_DRV->fn_cuMemHostAlloc (&ptr, size, self->flags), "cuMemHostAlloc", error);
  *address = (guint64) (guintptr) ptr;
  return ok;
}

static void
pool_free (gpointer owner,
           guint64  address)
{
  GCUDA_DRV->fn_cuMemFreeHost (GSIZE_TO_POINTER (address));
}

static void
gcuda_host_memory_pool_finalize (GObject *object)
{
  GCudaHostMemoryPool *self = GCUDA_HOST_MEMORY_POOL (object);

  /* Every buffer of the pool holds it: none is active any more. */
  _gcuda_pool_core_clear (&self->core);

  G_OBJECT_CLASS (gcuda_host_memory_pool_parent_class)->finalize (object);
}

static void
gcuda_host_memory_pool_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  GCudaHostMemoryPool *self = GCUDA_HOST_MEMORY_POOL (object);

  if (prop_id == PROP_FLAGS)
    g_value_set_flags (value, self->flags);
  else if (!_gcuda_pool_core_get_property (&self->core, prop_id, PROP_CONTEXT, PROP_HELD_BLOCKS, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gcuda_host_memory_pool_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  GCudaHostMemoryPool *self = GCUDA_HOST_MEMORY_POOL (object);

  if (prop_id == PROP_FLAGS)
    self->flags = g_value_get_flags (value);  /* construct-only */
  else if (!_gcuda_pool_core_set_property (&self->core, object, prop_id, PROP_CONTEXT, PROP_HELD_BLOCKS, value,
                                           properties[PROP_MAX_HELD_BYTES]))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gcuda_host_memory_pool_class_init (GCudaHostMemoryPoolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = gcuda_host_memory_pool_finalize;
  object_class->get_property = gcuda_host_memory_pool_get_property;
  object_class->set_property = gcuda_host_memory_pool_set_property;

  /**
   * GCudaHostMemoryPool:context: (getter get_context)
   *
   * The context the blocks are allocated in; %NULL for the default
   * context, until the first allocation resolves it.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] = _gcuda_pool_context_pspec ();

  /**
   * GCudaHostMemoryPool:flags: (getter get_flags)
   *
   * The [flags@GCuda.HostAllocFlags] every block is allocated with.
   *
   * Since: 1.0
   */
  properties[PROP_FLAGS] =
    g_param_spec_flags ("flags", NULL, NULL, GCUDA_TYPE_HOST_ALLOC_FLAGS, GCUDA_HOST_ALLOC_FLAGS_DEFAULT,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaHostMemoryPool:held-blocks: (getter get_held_blocks)
   *
   * The number of blocks the pool keeps for reuse (not notified).
   *
   * Since: 1.0
   */

  /**
   * GCudaHostMemoryPool:active-blocks: (getter get_active_blocks)
   *
   * The number of blocks in use: allocated and not yet freed (not notified).
   *
   * Since: 1.0
   */

  /**
   * GCudaHostMemoryPool:managed-bytes: (getter get_managed_bytes)
   *
   * The bytes allocated from the driver, active and held blocks together,
   * at their rounded-up sizes (not notified).
   *
   * Since: 1.0
   */

  /**
   * GCudaHostMemoryPool:active-bytes: (getter get_active_bytes)
   *
   * The bytes requested by the allocations in use (not notified).
   *
   * Since: 1.0
   */

  /**
   * GCudaHostMemoryPool:max-held-bytes: (setter set_max_held_bytes) (getter get_max_held_bytes)
   *
   * The most bytes the pool keeps for reuse; blocks given back beyond it
   * go back to the driver, and lowering it frees held blocks, largest
   * first. The default, [const@GLib.MAXUINT64], keeps everything.
   *
   * Since: 1.0
   */
  _gcuda_pool_counter_pspecs (&properties[PROP_HELD_BLOCKS]);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_host_memory_pool_init (GCudaHostMemoryPool *self)
{
  _gcuda_pool_core_init (&self->core, pool_alloc, pool_free, self);
}

/**
 * gcuda_host_memory_pool_new:
 * @context: (nullable): the context, or %NULL for the default context
 *   (resolved at the first allocation)
 * @flags: the flags to allocate every block with (checked at allocation)
 *
 * Creates an empty pool. As for [ctor@GCuda.MemoryPool.new], a destroyed
 * @context is [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error] at the first
 * allocation: this constructor cannot fail.
 *
 * Returns: (transfer full): the pool
 *
 * Since: 1.0
 */
GCudaHostMemoryPool *
gcuda_host_memory_pool_new (GCudaContext        *context,
                            GCudaHostAllocFlags  flags)
{
  g_return_val_if_fail (context == NULL || GCUDA_IS_CONTEXT (context), NULL);

  GCudaHostMemoryPool *self = g_object_new (GCUDA_TYPE_HOST_MEMORY_POOL, "context", context, NULL);

  /* set here, not as the property: flags the type does not know are
   * reported at the first allocation, not warned about by GObject */
  self->flags = flags;
  return self;
}

static gboolean
check_pool (GCudaHostMemoryPool  *self,
            GError              **error)
{
  const guint known = GCUDA_HOST_ALLOC_FLAGS_PORTABLE | GCUDA_HOST_ALLOC_FLAGS_DEVICEMAP |
                      GCUDA_HOST_ALLOC_FLAGS_WRITECOMBINED;

  if (!GCUDA_IS_HOST_MEMORY_POOL (self))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.HostMemoryPool"));
      return FALSE;
    }
  if ((self->flags & ~known) != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown host allocation flags 0x%x"), self->flags & ~known);
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_host_memory_pool_allocate:
 * @self: a [class@GCuda.HostMemoryPool]
 * @size: the size in bytes, at least 1
 * @error: return location for a [struct@GLib.Error]
 *
 * A page-locked buffer of @size bytes from the pool (PyCUDA's
 * `PageLockedMemoryPool.allocate()`): a held block of the size's bin if there
 * is one, else a new block of [func@GCuda.MemoryPool.alloc_size] bytes. The
 * buffer's [property@GCuda.HostBuffer:size] is @size; freeing the buffer gives
 * the block back to the pool.
 *
 * 0 bytes, and unknown [property@GCuda.HostMemoryPool:flags], are
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]; running out of page-locked
 * memory even after the held blocks were freed is
 * [GCUDA_DRIVER_ERROR_OUT_OF_MEMORY][error@GCuda.DriverError]; a destroyed
 * context is [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error].
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaHostBuffer *
gcuda_host_memory_pool_allocate (GCudaHostMemoryPool  *self,
                                 guint64               size,
                                 GError              **error)
{
  GCudaContext *context;
  guint64 address = 0;

  if (!check_pool (self, error))
    return NULL;
  context = _gcuda_pool_core_allocate (&self->core, size, N_("The host memory pool's context was destroyed"),
                                       &address, error);
  if (context == NULL)
    return NULL;
  return _gcuda_host_buffer_new_pooled (context, GSIZE_TO_POINTER (address), size, self->flags,
                                        G_OBJECT (self), _gcuda_pool_core_release_block, &self->core);
}

/**
 * gcuda_host_memory_pool_allocate_address:
 * @self: a [class@GCuda.HostMemoryPool]
 * @size: the size in bytes, at least 1
 * @error: return location for a [struct@GLib.Error]
 *
 * [method@GCuda.HostMemoryPool.allocate] without a [class@GCuda.HostBuffer]: a
 * block's host address, for C code that allocates in a hot loop (see
 * [method@GCuda.MemoryPool.allocate_address]). Give it back with
 * [method@GCuda.HostMemoryPool.free_address]; finalizing the pool releases the
 * blocks still handed out this way. Until then the block stays valid even if
 * the context is destroyed: the pool holds the context, which goes after it
 * (see [method@GCuda.Context.destroy]).
 *
 * Returns: the block's host address, or 0 with @error set (no block is at 0)
 *
 * Since: 1.0
 */

/**
 * gcuda_host_memory_pool_free_address:
 * @self: a [class@GCuda.HostMemoryPool]
 * @address: a host address from [method@GCuda.HostMemoryPool.allocate_address]
 * @error: return location for a [struct@GLib.Error]
 *
 * Gives a block handed out by [method@GCuda.HostMemoryPool.allocate_address]
 * back to the pool. Any other address, or a block given back already, is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and nothing changes.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 1.0
 */

/**
 * gcuda_host_memory_pool_adopt_address:
 * @self: a [class@GCuda.HostMemoryPool]
 * @address: a host address from [method@GCuda.HostMemoryPool.allocate_address]
 * @error: return location for a [struct@GLib.Error]
 *
 * Turns a block handed out by address into an ordinary pooled
 * [class@GCuda.HostBuffer], as [method@GCuda.HostMemoryPool.allocate] returns
 * (see [method@GCuda.MemoryPool.adopt_address]): the buffer owns the block from
 * now on. Any other address is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: (transfer full): the host buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaHostBuffer *
gcuda_host_memory_pool_adopt_address (GCudaHostMemoryPool  *self,
                                      guint64               address,
                                      GError              **error)
{
  guint64 size;

  if (!check_pool (self, error))
    return NULL;
  size = _gcuda_pool_core_adopt_address (&self->core, address, N_("host memory pool"), error);
  if (size == 0)
    return NULL;
  return _gcuda_host_buffer_new_pooled (self->core.context, GSIZE_TO_POINTER (address), size, self->flags,
                                        G_OBJECT (self), _gcuda_pool_core_release_block, &self->core);
}

/**
 * gcuda_host_memory_pool_free_held:
 * @self: a [class@GCuda.HostMemoryPool]
 *
 * Gives every block the pool holds back to the driver (PyCUDA's
 * `free_held()`). Blocks in use are not affected.
 *
 * Since: 1.0
 */

/**
 * gcuda_host_memory_pool_stop_holding:
 * @self: a [class@GCuda.HostMemoryPool]
 *
 * Frees the held blocks, and from now on gives blocks back to the driver
 * as soon as they are freed (PyCUDA's `stop_holding()`).
 *
 * Since: 1.0
 */

/**
 * gcuda_host_memory_pool_get_context: (get-property context)
 * @self: a [class@GCuda.HostMemoryPool]
 *
 * Gets the context the blocks are allocated in.
 *
 * Returns: (transfer none) (nullable): the context, see
 *   [property@GCuda.HostMemoryPool:context]
 *
 * Since: 1.0
 */

/**
 * gcuda_host_memory_pool_get_flags: (get-property flags)
 * @self: a [class@GCuda.HostMemoryPool]
 *
 * Gets the flags every block is allocated with.
 *
 * Returns: the [flags@GCuda.HostAllocFlags] of the blocks
 *
 * Since: 1.0
 */
GCudaHostAllocFlags
gcuda_host_memory_pool_get_flags (GCudaHostMemoryPool *self)
{
  g_return_val_if_fail (GCUDA_IS_HOST_MEMORY_POOL (self), 0);
  return self->flags;
}

/**
 * gcuda_host_memory_pool_get_held_blocks: (get-property held-blocks)
 * @self: a [class@GCuda.HostMemoryPool]
 *
 * Gets the number of blocks the pool keeps for reuse.
 *
 * Returns: the number of blocks held for reuse
 *
 * Since: 1.0
 */

/**
 * gcuda_host_memory_pool_get_active_blocks: (get-property active-blocks)
 * @self: a [class@GCuda.HostMemoryPool]
 *
 * Gets the number of blocks handed out and not given back yet.
 *
 * Returns: the number of blocks in use
 *
 * Since: 1.0
 */

/**
 * gcuda_host_memory_pool_get_managed_bytes: (get-property managed-bytes)
 * @self: a [class@GCuda.HostMemoryPool]
 *
 * Gets the bytes the pool allocated from the driver, for the blocks in use and
 * the blocks held.
 *
 * Returns: the bytes allocated from the driver, see
 *   [property@GCuda.HostMemoryPool:managed-bytes]
 *
 * Since: 1.0
 */

/**
 * gcuda_host_memory_pool_get_active_bytes: (get-property active-bytes)
 * @self: a [class@GCuda.HostMemoryPool]
 *
 * Gets the bytes requested by the blocks in use.
 *
 * Returns: the bytes requested by the allocations in use
 *
 * Since: 1.0
 */

/**
 * gcuda_host_memory_pool_get_max_held_bytes: (get-property max-held-bytes)
 * @self: a [class@GCuda.HostMemoryPool]
 *
 * Gets the most bytes the pool keeps for reuse.
 *
 * Returns: the cap on held bytes, see
 *   [property@GCuda.HostMemoryPool:max-held-bytes]
 *
 * Since: 1.0
 */

/**
 * gcuda_host_memory_pool_set_max_held_bytes: (set-property max-held-bytes)
 * @self: a [class@GCuda.HostMemoryPool]
 * @max_held_bytes: the most bytes to keep for reuse; [const@GLib.MAXUINT64] for
 *   no cap
 *
 * Sets [property@GCuda.HostMemoryPool:max-held-bytes], freeing held blocks
 * (largest first) until the pool holds no more than that.
 *
 * Since: 1.0
 */

/* The methods documented above without a body of their own: they hand
 * over to the pool core, as every bin pool's do. */
GCUDA_POOL_DEFINE_CORE_METHODS (GCudaHostMemoryPool, gcuda_host_memory_pool, GCUDA_IS_HOST_MEMORY_POOL, check_pool,
                                N_("The host memory pool's context was destroyed"),
                                N_("host memory pool"), properties[PROP_MAX_HELD_BYTES])
