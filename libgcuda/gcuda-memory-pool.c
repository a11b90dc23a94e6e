/* gcuda-memory-pool.c: a pool of device memory blocks
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-pool-bins-private.h"

/**
 * GCudaMemoryPool:
 *
 * A pool of device memory blocks (PyCUDA's `DeviceMemoryPool`), for code
 * that allocates and frees often: a freed block is kept and handed out
 * again instead of going back to the driver, whose `cuMemAlloc` and
 * `cuMemFree` are slow and synchronize the device.
 *
 * ```c
 * static gboolean
 * use_temporaries (GError **error)
 * {
 *   g_autoptr(GCudaMemoryPool) pool = gcuda_memory_pool_new (NULL);
 *
 *   for (int i = 0; i < 1000; i++)
 *     {
 *       g_autoptr(GCudaBuffer) scratch = gcuda_memory_pool_allocate (pool, 1 << 20, error);
 *
 *       if (scratch == NULL)
 *         return FALSE;
 *       // use scratch; dropping it gives the block back to the pool
 *     }
 *   g_print ("%" G_GUINT64_FORMAT " block(s) held for reuse\n",
 *            gcuda_memory_pool_get_held_blocks (pool));
 *   return TRUE;
 * }
 * ```
 *
 * In Python, PyCUDA's `DeviceMemoryPool` hands out blocks by address, and its
 * `allocate` is an allocator for `to_device()` and `mem_alloc()`:
 *
 * ```python
 * pool = GCuda.DeviceMemoryPool()
 * for _ in range(1000):
 *     block = pool.allocate(1 << 20)
 *     block.free()
 * buf = GCuda.to_device(numpy.zeros(256, numpy.float32), allocator=pool.allocate)
 * print(pool.held_blocks, pool.active_blocks)
 * ```
 *
 * In GJS and Vala, [method@GCuda.MemoryPool.allocate_address] returns the
 * address itself (a number; a `uint64`):
 *
 * ```js
 * const pool = GCuda.MemoryPool.new(null);
 * const address = pool.allocate_address(4096);
 * pool.free_address(address);
 * ```
 *
 * Sizes are rounded up with PyCUDA's bin scheme: a bin is a size's
 * exponent followed by the 4 bits after its leading 1, and every block of
 * a bin has the bin's largest size, so less than 1/16 (6.25 %) of a block
 * is wasted. Within a bin the block given back last is reused first. See
 * [func@GCuda.MemoryPool.bin_number] and [func@GCuda.MemoryPool.alloc_size].
 *
 * [method@GCuda.MemoryPool.allocate] returns an ordinary [class@GCuda.Buffer]:
 * [method@GCuda.Buffer.free], or its last reference going, gives the block back
 * to the pool. When the driver runs out of memory the pool frees the blocks it
 * holds, largest first, retrying after each, before it reports
 * [GCUDA_DRIVER_ERROR_OUT_OF_MEMORY][error@GCuda.DriverError].
 *
 * A pool may be used from any thread. It holds its context, and each of its
 * buffers holds the pool, so objects may be dropped in any order.
 *
 * Since: 1.0
 */

struct _GCudaMemoryPool
{
  GObject parent_instance;

  GCudaPoolCore core;
};

G_DEFINE_FINAL_TYPE (GCudaMemoryPool, gcuda_memory_pool, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
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
  CUdeviceptr ptr = 0;
  gboolean ok;

  ok = GCUDA_CHECK (GCUDA_DRV->fn_cuMemAlloc (&ptr, size), "cuMemAlloc", error);
  *address = ptr;
  return ok;
}

static void
pool_free (gpointer owner,
           guint64  address)
{
  GCUDA_DRV->fn_cuMemFree ((CUdeviceptr) address);
}

static void
gcuda_memory_pool_finalize (GObject *object)
{
  GCudaMemoryPool *self = GCUDA_MEMORY_POOL (object);

  /* Every buffer of the pool holds it: none is active any more. */
  _gcuda_pool_core_clear (&self->core);

  G_OBJECT_CLASS (gcuda_memory_pool_parent_class)->finalize (object);
}

static void
gcuda_memory_pool_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  GCudaMemoryPool *self = GCUDA_MEMORY_POOL (object);

  if (!_gcuda_pool_core_get_property (&self->core, prop_id, PROP_CONTEXT, PROP_HELD_BLOCKS, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gcuda_memory_pool_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  GCudaMemoryPool *self = GCUDA_MEMORY_POOL (object);

  if (!_gcuda_pool_core_set_property (&self->core, object, prop_id, PROP_CONTEXT, PROP_HELD_BLOCKS, value,
                                      properties[PROP_MAX_HELD_BYTES]))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gcuda_memory_pool_class_init (GCudaMemoryPoolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = gcuda_memory_pool_finalize;
  object_class->get_property = gcuda_memory_pool_get_property;
  object_class->set_property = gcuda_memory_pool_set_property;

  /**
   * GCudaMemoryPool:context: (getter get_context)
   *
   * The context the blocks are allocated in; %NULL for the default
   * context, until the first allocation resolves it.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] = _gcuda_pool_context_pspec ();

  /**
   * GCudaMemoryPool:held-blocks: (getter get_held_blocks)
   *
   * The number of blocks the pool keeps for reuse (not notified).
   *
   * Since: 1.0
   */

  /**
   * GCudaMemoryPool:active-blocks: (getter get_active_blocks)
   *
   * The number of blocks in use: allocated and not yet freed (not notified).
   *
   * Since: 1.0
   */

  /**
   * GCudaMemoryPool:managed-bytes: (getter get_managed_bytes)
   *
   * The bytes allocated from the driver, active and held blocks together,
   * at their rounded-up sizes (not notified).
   *
   * Since: 1.0
   */

  /**
   * GCudaMemoryPool:active-bytes: (getter get_active_bytes)
   *
   * The bytes requested by the allocations in use (not notified).
   *
   * Since: 1.0
   */

  /**
   * GCudaMemoryPool:max-held-bytes: (setter set_max_held_bytes) (getter get_max_held_bytes)
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
gcuda_memory_pool_init (GCudaMemoryPool *self)
{
  _gcuda_pool_core_init (&self->core, pool_alloc, pool_free, self);
}

/**
 * gcuda_memory_pool_new:
 * @context: (nullable): the context, or %NULL for the default context
 *   (resolved at the first allocation)
 *
 * Creates an empty pool. The pool binds its context at its first
 * allocation, and this constructor cannot fail: a destroyed @context is
 * [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error] at the first allocation
 * (one made without a constructor
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]).
 *
 * Returns: (transfer full): the pool
 *
 * Since: 1.0
 */
GCudaMemoryPool *
gcuda_memory_pool_new (GCudaContext *context)
{
  g_return_val_if_fail (context == NULL || GCUDA_IS_CONTEXT (context), NULL);

  return g_object_new (GCUDA_TYPE_MEMORY_POOL, "context", context, NULL);
}

static gboolean
check_pool (GCudaMemoryPool  *self,
            GError          **error)
{
  if (!GCUDA_IS_MEMORY_POOL (self))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.MemoryPool"));
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_memory_pool_allocate:
 * @self: a [class@GCuda.MemoryPool]
 * @size: the size in bytes, at least 1
 * @error: return location for a [struct@GLib.Error]
 *
 * A buffer of @size bytes from the pool (PyCUDA's
 * `DeviceMemoryPool.allocate()`): a held block of the size's bin if there is
 * one, else a new block of [func@GCuda.MemoryPool.alloc_size] bytes. The
 * buffer's [property@GCuda.Buffer:size] is @size; freeing the buffer gives the
 * block back to the pool.
 *
 * 0 bytes is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]; when the
 * device's memory runs out even after the held blocks were freed, the error is
 * [GCUDA_DRIVER_ERROR_OUT_OF_MEMORY][error@GCuda.DriverError] (category
 * [GCUDA_ERROR_CATEGORY_MEMORY][enum@GCuda.ErrorCategory]); a destroyed context
 * is [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error].
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_memory_pool_allocate (GCudaMemoryPool  *self,
                            guint64           size,
                            GError          **error)
{
  GCudaContext *context;
  guint64 address = 0;

  if (!check_pool (self, error))
    return NULL;
  context = _gcuda_pool_core_allocate (&self->core, size, N_("The memory pool's context was destroyed"), &address, error);
  if (context == NULL)
    return NULL;
  return _gcuda_buffer_new_pooled (context, (CUdeviceptr) address, size, G_OBJECT (self),
                                   _gcuda_pool_core_release_block, &self->core);
}

/**
 * gcuda_memory_pool_allocate_address:
 * @self: a [class@GCuda.MemoryPool]
 * @size: the size in bytes, at least 1
 * @error: return location for a [struct@GLib.Error]
 *
 * [method@GCuda.MemoryPool.allocate] without a [class@GCuda.Buffer]: a block's
 * device address, for C code that allocates in a hot loop. Making and
 * finalizing a buffer object costs more than the pool's own work; a block
 * handed out by address costs neither. Give it back with
 * [method@GCuda.MemoryPool.free_address]; it counts in the pool's counters like
 * any block.
 *
 * Nothing keeps the pool alive for such a block: finalizing the pool
 * releases the blocks still handed out by address. Errors are those of
 * [method@GCuda.MemoryPool.allocate].
 *
 * Returns: the block's device address, or 0 with @error set (no block is at 0)
 *
 * Since: 1.0
 */

/**
 * gcuda_memory_pool_free_address:
 * @self: a [class@GCuda.MemoryPool]
 * @address: a device address from [method@GCuda.MemoryPool.allocate_address]
 * @error: return location for a [struct@GLib.Error]
 *
 * Gives a block handed out by [method@GCuda.MemoryPool.allocate_address] back
 * to the pool. Any other address, or a block given back already, is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and nothing changes.
 *
 * Do not give back memory that queued GPU work still uses.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 1.0
 */

/**
 * gcuda_memory_pool_adopt_address:
 * @self: a [class@GCuda.MemoryPool]
 * @address: a device address from [method@GCuda.MemoryPool.allocate_address]
 * @error: return location for a [struct@GLib.Error]
 *
 * Turns a block handed out by address into an ordinary pooled
 * [class@GCuda.Buffer], as [method@GCuda.MemoryPool.allocate] returns: from now
 * on the buffer owns the block ([method@GCuda.Buffer.free], or its last
 * reference going, gives it back) and [method@GCuda.MemoryPool.free_address] no
 * longer accepts the address. Its size is the size asked for. Python's
 * `PooledDeviceAllocation` uses this to hand out a [class@GCuda.Buffer] only
 * when one is needed.
 *
 * Any other address is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_memory_pool_adopt_address (GCudaMemoryPool  *self,
                                 guint64           address,
                                 GError          **error)
{
  guint64 size;

  if (!check_pool (self, error))
    return NULL;
  size = _gcuda_pool_core_adopt_address (&self->core, address, N_("memory pool"), error);
  if (size == 0)
    return NULL;
  return _gcuda_buffer_new_pooled (self->core.context, (CUdeviceptr) address, size, G_OBJECT (self),
                                   _gcuda_pool_core_release_block, &self->core);
}

/**
 * gcuda_memory_pool_free_held:
 * @self: a [class@GCuda.MemoryPool]
 *
 * Gives every block the pool holds back to the driver (PyCUDA's
 * `free_held()`). Blocks in use are not affected.
 *
 * Since: 1.0
 */

/**
 * gcuda_memory_pool_stop_holding:
 * @self: a [class@GCuda.MemoryPool]
 *
 * Frees the held blocks, and from now on gives blocks back to the driver
 * as soon as they are freed (PyCUDA's `stop_holding()`).
 *
 * Since: 1.0
 */

/**
 * gcuda_memory_pool_get_context: (get-property context)
 * @self: a [class@GCuda.MemoryPool]
 *
 * Gets the context the blocks are allocated in.
 *
 * Returns: (transfer none) (nullable): the context, see
 *   [property@GCuda.MemoryPool:context]
 *
 * Since: 1.0
 */

/**
 * gcuda_memory_pool_get_held_blocks: (get-property held-blocks)
 * @self: a [class@GCuda.MemoryPool]
 *
 * Gets the number of blocks the pool keeps for reuse.
 *
 * Returns: the number of blocks held for reuse
 *
 * Since: 1.0
 */

/**
 * gcuda_memory_pool_get_active_blocks: (get-property active-blocks)
 * @self: a [class@GCuda.MemoryPool]
 *
 * Gets the number of blocks handed out and not given back yet.
 *
 * Returns: the number of blocks in use
 *
 * Since: 1.0
 */

/**
 * gcuda_memory_pool_get_managed_bytes: (get-property managed-bytes)
 * @self: a [class@GCuda.MemoryPool]
 *
 * Gets the bytes the pool allocated from the driver, for the blocks in use and
 * the blocks held.
 *
 * Returns: the bytes allocated from the driver, see
 *   [property@GCuda.MemoryPool:managed-bytes]
 *
 * Since: 1.0
 */

/**
 * gcuda_memory_pool_get_active_bytes: (get-property active-bytes)
 * @self: a [class@GCuda.MemoryPool]
 *
 * Gets the bytes requested by the blocks in use.
 *
 * Returns: the bytes requested by the allocations in use
 *
 * Since: 1.0
 */

/**
 * gcuda_memory_pool_get_max_held_bytes: (get-property max-held-bytes)
 * @self: a [class@GCuda.MemoryPool]
 *
 * Gets the most bytes the pool keeps for reuse.
 *
 * Returns: the cap on held bytes, see
 *   [property@GCuda.MemoryPool:max-held-bytes]
 *
 * Since: 1.0
 */

/**
 * gcuda_memory_pool_set_max_held_bytes: (set-property max-held-bytes)
 * @self: a [class@GCuda.MemoryPool]
 * @max_held_bytes: the most bytes to keep for reuse; [const@GLib.MAXUINT64] for
 *   no cap
 *
 * Sets [property@GCuda.MemoryPool:max-held-bytes], freeing held blocks (largest
 * first) until the pool holds no more than that.
 *
 * Since: 1.0
 */

/* The methods documented above without a body of their own: they hand
 * over to the pool core, as every bin pool's do. */
GCUDA_POOL_DEFINE_CORE_METHODS (GCudaMemoryPool, gcuda_memory_pool, GCUDA_IS_MEMORY_POOL, check_pool,
                                N_("The memory pool's context was destroyed"),
                                N_("memory pool"), properties[PROP_MAX_HELD_BYTES])

/**
 * gcuda_memory_pool_bin_number:
 * @size: a size in bytes
 *
 * The bin a request for @size bytes falls in (PyCUDA's
 * `DeviceMemoryPool.bin_number()`): the exponent of @size's leading 1
 * shifted left by 4, with the 4 bits after the leading 1 below it. Bins go
 * from 0 to 1023. Pools of device and page-locked memory use the same bins.
 *
 * Returns: the bin number
 *
 * Since: 1.0
 */
guint
gcuda_memory_pool_bin_number (guint64 size)
{
  return _gcuda_pool_bin_number (size);
}

/**
 * gcuda_memory_pool_alloc_size:
 * @bin: a bin number, from 0 to 1023
 *
 * The size of the blocks of @bin (PyCUDA's `alloc_size()`): the largest
 * size whose [func@GCuda.MemoryPool.bin_number] is @bin, so that
 * `alloc_size (bin_number (s)) ≥ s` with less than 6.25 % to spare.
 *
 * Returns: the block size in bytes, or 0 for a bin number over 1023
 *
 * Since: 1.0
 */
guint64
gcuda_memory_pool_alloc_size (guint bin)
{
  return _gcuda_pool_alloc_size (bin);
}

/**
 * gcuda_bitlog2:
 * @value: a number
 *
 * The position of @value's highest set bit (PyCUDA's `bitlog2()`), that
 * is ⌊log₂ @value⌋; 0 for 0.
 *
 * Returns: the base-2 logarithm, rounded down
 *
 * Since: 1.0
 */
guint
gcuda_bitlog2 (guint64 value)
{
  return _gcuda_pool_bitlog2 (value);
}
