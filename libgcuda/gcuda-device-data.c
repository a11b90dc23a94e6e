/* gcuda-device-data.c: a device's figures for occupancy and alignment
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-device-private.h"

/**
 * GCudaDeviceData:
 *
 * The figures of a device that occupancy and alignment computations need
 * (PyCUDA's `pycuda.tools.DeviceData`).
 *
 * ```c
 * static void
 * print_limits (GCudaDevice *device)
 * {
 *   g_autoptr(GError) error = NULL;
 *   g_autoptr(GCudaDeviceData) data = gcuda_device_data_new (device, &error);
 *
 *   if (data == NULL)
 *     {
 *       g_printerr ("%s\n", error->message);
 *       return;
 *     }
 *   g_print ("%d threads per block; %d warps and %d blocks per multiprocessor\n",
 *            gcuda_device_data_get_max_threads (data),
 *            gcuda_device_data_get_warps_per_mp (data),
 *            gcuda_device_data_get_thread_blocks_per_mp (data));
 * }
 * ```
 *
 * In Python (PyCUDA's `pycuda.tools.DeviceData`):
 *
 * ```python
 * data = GCuda.DeviceData()  # the default context's device
 * print(data.max_threads, data.warps_per_mp, data.shared_memory)
 * print(data.align_bytes(), data.align(1000))  # 64 1024: PyCUDA's alignment
 * ```
 *
 * [ctor@GCuda.DeviceData.new] reads them from the device's attributes, so they
 * describe the architecture at hand (PyCUDA used Fermi-era constants). The
 * figures the driver does not report (the granularities) come from the
 * tables of CUDA's occupancy calculator (`cuda_occupancy.h`) for the
 * device's compute capability.
 *
 * Every property can also be given to [ctor@GObject.Object.new] (they are
 * construct-only), which describes a device that is not there: occupancy
 * can then be worked out without a GPU. Figures given so are not checked
 * when the object is made (any int is kept, without GObject's warning): a
 * figure missing or negative is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]
 * where it is used, in [ctor@GCuda.Occupancy.new].
 *
 * A `GCudaDeviceData` is immutable and thread-safe. See
 * [class@GCuda.Occupancy].
 *
 * Since: 1.0
 */

enum {
  PROP_0,
  PROP_COMPUTE_CAPABILITY_MAJOR,
  PROP_COMPUTE_CAPABILITY_MINOR,
  PROP_MAX_THREADS,
  PROP_WARP_SIZE,
  PROP_WARPS_PER_MP,
  PROP_THREAD_BLOCKS_PER_MP,
  PROP_REGISTERS,
  PROP_REGISTERS_PER_BLOCK,
  PROP_MAX_REGISTERS_PER_THREAD,
  PROP_REGISTER_ALLOC_GRANULARITY,
  PROP_SHARED_MEMORY,
  PROP_SHARED_MEMORY_PER_BLOCK,
  PROP_SHARED_MEMORY_PER_BLOCK_OPTIN,
  PROP_RESERVED_SHARED_MEMORY_PER_BLOCK,
  PROP_SMEM_GRANULARITY,
  PROP_SMEM_ALLOC_GRANULARITY,
  N_PROPS
};

struct _GCudaDeviceData
{
  GObject parent_instance;

  int values[N_PROPS];  /* indexed by property id */
};

G_DEFINE_FINAL_TYPE (GCudaDeviceData, gcuda_device_data, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];

static void
gcuda_device_data_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  GCudaDeviceData *self = GCUDA_DEVICE_DATA (object);

  if (prop_id > PROP_0 && prop_id < N_PROPS)
    g_value_set_int (value, self->values[prop_id]);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gcuda_device_data_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  GCudaDeviceData *self = GCUDA_DEVICE_DATA (object);

  if (prop_id > PROP_0 && prop_id < N_PROPS)
    self->values[prop_id] = g_value_get_int (value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

/* Any int: the figures are checked where used (gcuda_occupancy_new(), with
 * a GError), since GObject would only warn about one out of range and
 * drop it. */
static GParamSpec *
int_property (const char *name)
{
  return g_param_spec_int (name, NULL, NULL, G_MININT, G_MAXINT, 0,
                           G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
}

static void
gcuda_device_data_class_init (GCudaDeviceDataClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = gcuda_device_data_get_property;
  object_class->set_property = gcuda_device_data_set_property;

  /**
   * GCudaDeviceData:compute-capability-major:
   *
   * The device's major compute capability (9 on an H100): it selects the
   * granularities and the number of register-file partitions.
   *
   * Since: 1.0
   */
  properties[PROP_COMPUTE_CAPABILITY_MAJOR] = int_property ("compute-capability-major");

  /**
   * GCudaDeviceData:compute-capability-minor:
   *
   * The device's minor compute capability.
   *
   * Since: 1.0
   */
  properties[PROP_COMPUTE_CAPABILITY_MINOR] = int_property ("compute-capability-minor");

  /**
   * GCudaDeviceData:max-threads: (getter get_max_threads)
   *
   * The largest number of threads in a block
   * (`CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK`).
   *
   * Since: 1.0
   */
  properties[PROP_MAX_THREADS] = int_property ("max-threads");

  /**
   * GCudaDeviceData:warp-size: (getter get_warp_size)
   *
   * The number of threads in a warp (`CU_DEVICE_ATTRIBUTE_WARP_SIZE`).
   *
   * Since: 1.0
   */
  properties[PROP_WARP_SIZE] = int_property ("warp-size");

  /**
   * GCudaDeviceData:warps-per-mp: (getter get_warps_per_mp)
   *
   * The number of warps resident on one multiprocessor at most:
   * `CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR` divided by the
   * warp size (64 on an H100).
   *
   * Since: 1.0
   */
  properties[PROP_WARPS_PER_MP] = int_property ("warps-per-mp");

  /**
   * GCudaDeviceData:thread-blocks-per-mp: (getter get_thread_blocks_per_mp)
   *
   * The number of blocks resident on one multiprocessor at most
   * (`CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR`, 32 on an H100).
   *
   * Since: 1.0
   */
  properties[PROP_THREAD_BLOCKS_PER_MP] = int_property ("thread-blocks-per-mp");

  /**
   * GCudaDeviceData:registers: (getter get_registers)
   *
   * The number of 32-bit registers of one multiprocessor
   * (`CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR`).
   *
   * Since: 1.0
   */
  properties[PROP_REGISTERS] = int_property ("registers");

  /**
   * GCudaDeviceData:registers-per-block:
   *
   * The number of 32-bit registers one block can use at most
   * (`CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK`).
   *
   * Since: 1.0
   */
  properties[PROP_REGISTERS_PER_BLOCK] = int_property ("registers-per-block");

  /**
   * GCudaDeviceData:max-registers-per-thread:
   *
   * The number of registers one thread can use at most (255 since compute
   * capability 3.0; from CUDA's occupancy calculator).
   *
   * Since: 1.0
   */
  properties[PROP_MAX_REGISTERS_PER_THREAD] = int_property ("max-registers-per-thread");

  /**
   * GCudaDeviceData:register-alloc-granularity:
   *
   * Registers are given to warps in multiples of this many (256 since
   * compute capability 3.0; from CUDA's occupancy calculator).
   *
   * Since: 1.0
   */
  properties[PROP_REGISTER_ALLOC_GRANULARITY] = int_property ("register-alloc-granularity");

  /**
   * GCudaDeviceData:shared-memory: (getter get_shared_memory)
   *
   * The shared memory of one multiprocessor, in bytes
   * (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR`, 228 KiB on
   * an H100), which the blocks resident on it share.
   *
   * Since: 1.0
   */
  properties[PROP_SHARED_MEMORY] = int_property ("shared-memory");

  /**
   * GCudaDeviceData:shared-memory-per-block:
   *
   * The shared memory one block can use without opting in, in bytes
   * (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK`, 48 KiB).
   *
   * Since: 1.0
   */
  properties[PROP_SHARED_MEMORY_PER_BLOCK] = int_property ("shared-memory-per-block");

  /**
   * GCudaDeviceData:shared-memory-per-block-optin:
   *
   * The shared memory one block can use at most once its kernel opted in
   * with [method@GCuda.Function.set_max_dynamic_shared_size], in bytes
   * (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`).
   *
   * Since: 1.0
   */
  properties[PROP_SHARED_MEMORY_PER_BLOCK_OPTIN] = int_property ("shared-memory-per-block-optin");

  /**
   * GCudaDeviceData:reserved-shared-memory-per-block:
   *
   * The shared memory the driver reserves for itself in every block, in
   * bytes (`CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK`; 1 KiB
   * since compute capability 8.0, 0 before).
   *
   * Since: 1.0
   */
  properties[PROP_RESERVED_SHARED_MEMORY_PER_BLOCK] = int_property ("reserved-shared-memory-per-block");

  /**
   * GCudaDeviceData:smem-granularity: (getter get_smem_granularity)
   *
   * The number of threads that take part in one banked, simultaneous access
   * to shared memory: the number of shared memory banks (32 since compute
   * capability 2.0, 16 before).
   *
   * Since: 1.0
   */
  properties[PROP_SMEM_GRANULARITY] = int_property ("smem-granularity");

  /**
   * GCudaDeviceData:smem-alloc-granularity: (getter get_smem_alloc_granularity)
   *
   * The size of the smallest non-empty shared memory allocation, in bytes;
   * a block's shared memory is rounded up to a multiple of it. From CUDA's
   * occupancy calculator (`cudaOccSMemAllocationGranularity`): 128 since
   * compute capability 8.0, 256 for 3.x to 7.x.
   *
   * Since: 1.0
   */
  properties[PROP_SMEM_ALLOC_GRANULARITY] = int_property ("smem-alloc-granularity");

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_device_data_init (GCudaDeviceData *self)
{
}

static gboolean
read_attribute (CUdevice            dev,
                CUdevice_attribute  attr,
                int                *value,
                GError            **error)
{
  return GCUDA_CHECK (GCUDA_DRV->fn_cuDeviceGetAttribute (value, attr, dev),
                      "cuDeviceGetAttribute", error);
}

/**
 * gcuda_device_data_new:
 * @device: (nullable): a [class@GCuda.Device], or %NULL for the default
 *   context's device
 * @error: return location for a [struct@GLib.Error]
 *
 * Reads @device's figures (PyCUDA's `DeviceData(dev)`).
 *
 * Returns: (transfer full): the device's data, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaDeviceData *
gcuda_device_data_new (GCudaDevice  *device,
                       GError      **error)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaDeviceData) self = NULL;
  int max_threads_per_mp = 0;
  int *v;
  CUdevice dev;

  g_return_val_if_fail (device == NULL || GCUDA_IS_DEVICE (device), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (device == NULL)
    {
      context = gcuda_context_get_default (error);
      if (context == NULL)
        return NULL;
      device = gcuda_context_get_device (context);
    }
  if (gcuda_device_get_ordinal (device) < 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("This GCuda.Device was not obtained from Device.get(): it has no device behind it"));
      return NULL;
    }

  self = g_object_new (GCUDA_TYPE_DEVICE_DATA, NULL);
  v = self->values;
  dev = _gcuda_device_get_handle (device);
  gcuda_device_get_compute_capability (device, &v[PROP_COMPUTE_CAPABILITY_MAJOR],
                                       &v[PROP_COMPUTE_CAPABILITY_MINOR]);

  if (!read_attribute (dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &v[PROP_MAX_THREADS], error) ||
      !read_attribute (dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE, &v[PROP_WARP_SIZE], error) ||
      !read_attribute (dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &max_threads_per_mp, error) ||
      !read_attribute (dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
                       &v[PROP_THREAD_BLOCKS_PER_MP], error) ||
      !read_attribute (dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &v[PROP_REGISTERS], error) ||
      !read_attribute (dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, &v[PROP_REGISTERS_PER_BLOCK], error) ||
      !read_attribute (dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                       &v[PROP_SHARED_MEMORY], error) ||
      !read_attribute (dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
                       &v[PROP_SHARED_MEMORY_PER_BLOCK], error) ||
      !read_attribute (dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                       &v[PROP_SHARED_MEMORY_PER_BLOCK_OPTIN], error) ||
      !read_attribute (dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
                       &v[PROP_RESERVED_SHARED_MEMORY_PER_BLOCK], error))
    return NULL;

  v[PROP_WARPS_PER_MP] = v[PROP_WARP_SIZE] > 0 ? max_threads_per_mp / v[PROP_WARP_SIZE] : 0;

  /* The driver does not report these: CUDA's occupancy calculator's tables. */
  v[PROP_SMEM_GRANULARITY] = v[PROP_COMPUTE_CAPABILITY_MAJOR] >= 2 ? 32 : 16;
  if (v[PROP_COMPUTE_CAPABILITY_MAJOR] >= 8)
    v[PROP_SMEM_ALLOC_GRANULARITY] = 128;
  else if (v[PROP_COMPUTE_CAPABILITY_MAJOR] >= 3)
    v[PROP_SMEM_ALLOC_GRANULARITY] = 256;
  else if (v[PROP_COMPUTE_CAPABILITY_MAJOR] == 2)
    v[PROP_SMEM_ALLOC_GRANULARITY] = 128;
  else
    v[PROP_SMEM_ALLOC_GRANULARITY] = 512;
  v[PROP_REGISTER_ALLOC_GRANULARITY] = 256;
  v[PROP_MAX_REGISTERS_PER_THREAD] = v[PROP_COMPUTE_CAPABILITY_MAJOR] >= 3 ? 255 : 63;

  return g_steal_pointer (&self);
}

/**
 * gcuda_device_data_get_max_threads: (get-property max-threads)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets the largest number of threads in a block.
 *
 * Returns: the value of [property@GCuda.DeviceData:max-threads]
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_max_threads (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_MAX_THREADS];
}

/**
 * gcuda_device_data_get_warp_size: (get-property warp-size)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets the number of threads in a warp.
 *
 * Returns: the value of [property@GCuda.DeviceData:warp-size]
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_warp_size (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_WARP_SIZE];
}

/**
 * gcuda_device_data_get_warps_per_mp: (get-property warps-per-mp)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets the largest number of warps resident on one multiprocessor.
 *
 * Returns: the value of [property@GCuda.DeviceData:warps-per-mp]
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_warps_per_mp (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_WARPS_PER_MP];
}

/**
 * gcuda_device_data_get_thread_blocks_per_mp: (get-property thread-blocks-per-mp)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets the largest number of blocks resident on one multiprocessor.
 *
 * Returns: the value of [property@GCuda.DeviceData:thread-blocks-per-mp]
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_thread_blocks_per_mp (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_THREAD_BLOCKS_PER_MP];
}

/**
 * gcuda_device_data_get_registers: (get-property registers)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets the number of 32-bit registers of one multiprocessor.
 *
 * Returns: the value of [property@GCuda.DeviceData:registers]
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_registers (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_REGISTERS];
}

/**
 * gcuda_device_data_get_shared_memory: (get-property shared-memory)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets the shared memory of one multiprocessor, in bytes.
 *
 * Returns: the value of [property@GCuda.DeviceData:shared-memory]
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_shared_memory (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_SHARED_MEMORY];
}

/**
 * gcuda_device_data_get_smem_granularity: (get-property smem-granularity)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets the number of shared memory banks, the threads that take part in one
 * simultaneous access.
 *
 * Returns: the value of [property@GCuda.DeviceData:smem-granularity]
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_smem_granularity (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_SMEM_GRANULARITY];
}

/**
 * gcuda_device_data_get_smem_alloc_granularity: (get-property smem-alloc-granularity)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets the granularity, in bytes, to which a block's shared memory is rounded
 * up.
 *
 * Returns: the value of [property@GCuda.DeviceData:smem-alloc-granularity]
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_smem_alloc_granularity (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_SMEM_ALLOC_GRANULARITY];
}

/**
 * gcuda_device_data_align_bytes:
 * @self: a [class@GCuda.DeviceData]
 * @word_size: the size of the words a kernel reads, in bytes: 4, 8 or 16
 * @error: return location for a [struct@GLib.Error]
 *
 * The distance between global memory base addresses that lets accesses of
 * @word_size bytes coalesce (PyCUDA's `align_bytes`, same values: 64 for
 * 4-byte words, 128 for 8- and 16-byte words).
 *
 * Another @word_size is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: the alignment in bytes, or 0 with @error set
 *
 * Since: 1.0
 */
guint
gcuda_device_data_align_bytes (GCudaDeviceData  *self,
                               guint             word_size,
                               GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  switch (word_size)
    {
    case 4:
      return 64;
    case 8:
    case 16:
      return 128;
    default:
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("No alignment possible for fetches of %u bytes: the word size must be 4, 8 or 16"),
                   word_size);
      return 0;
    }
}

/* @value rounded up to a multiple of @multiple, or FALSE on overflow. */
static gboolean
round_up (guint64   value,
          guint64   multiple,
          guint64  *result,
          GError  **error)
{
  guint64 rest = value % multiple;

  if (rest != 0 && value > G_MAXUINT64 - (multiple - rest))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%" PRIu64 " rounded up to a multiple of %" PRIu64
                     " does not fit in 64 bits"), value, multiple);
      return FALSE;
    }
  *result = rest == 0 ? value : value + (multiple - rest);
  return TRUE;
}

/**
 * gcuda_device_data_align:
 * @self: a [class@GCuda.DeviceData]
 * @bytes: a size in bytes
 * @word_size: the size of the words a kernel reads: 4, 8 or 16
 * @error: return location for a [struct@GLib.Error]
 *
 * @bytes rounded up to the next multiple of
 * [method@GCuda.DeviceData.align_bytes] (PyCUDA's `align`).
 *
 * Returns: the rounded size, or 0 with @error set (an invalid @word_size,
 *   or a result beyond 64 bits)
 *
 * Since: 1.0
 */
guint64
gcuda_device_data_align (GCudaDeviceData  *self,
                         guint64           bytes,
                         guint             word_size,
                         GError          **error)
{
  guint align;
  guint64 result = 0;

  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  align = gcuda_device_data_align_bytes (self, word_size, error);
  if (align == 0)
    return 0;
  if (!round_up (bytes, align, &result, error))
    return 0;
  return result;
}

/**
 * gcuda_device_data_align_words:
 * @self: a [class@GCuda.DeviceData]
 * @word_size: the size of the words a kernel reads: 4, 8 or 16
 * @error: return location for a [struct@GLib.Error]
 *
 * [method@GCuda.DeviceData.align_bytes] in words of @word_size bytes (PyCUDA's
 * `align_words`; the division is always exact).
 *
 * Returns: the alignment in words, or 0 with @error set
 *
 * Since: 1.0
 */
guint
gcuda_device_data_align_words (GCudaDeviceData  *self,
                               guint             word_size,
                               GError          **error)
{
  guint align;

  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  align = gcuda_device_data_align_bytes (self, word_size, error);
  if (align == 0)
    return 0;
  /* align_bytes() answers only for word sizes 4, 8 and 16, whose multiples
   * (64 or 128) it returns */
  return align / word_size;
}

/**
 * gcuda_device_data_align_dtype:
 * @self: a [class@GCuda.DeviceData]
 * @elements: a number of elements
 * @dtype_size: the size of one element in bytes: 4, 8 or 16
 * @error: return location for a [struct@GLib.Error]
 *
 * @elements rounded up to the next alignment boundary of
 * [method@GCuda.DeviceData.align_bytes], counted in elements of @dtype_size
 * bytes (PyCUDA's `align_dtype`).
 *
 * Returns: the rounded number of elements, or 0 with @error set
 *
 * Since: 1.0
 */
guint64
gcuda_device_data_align_dtype (GCudaDeviceData  *self,
                               guint64           elements,
                               guint             dtype_size,
                               GError          **error)
{
  guint words;
  guint64 result = 0;

  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  words = gcuda_device_data_align_words (self, dtype_size, error);
  if (words == 0)
    return 0;
  if (!round_up (elements, words, &result, error))
    return 0;
  return result;
}

/**
 * gcuda_device_data_make_valid_tex_channel_count:
 * @size: a number of channels
 * @error: return location for a [struct@GLib.Error]
 *
 * @size rounded up to a valid texture channel count: 1, 2 or 4 (PyCUDA's
 * `DeviceData.make_valid_tex_channel_count`; 0 gives 1, as there).
 *
 * More than 4 channels is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: 1, 2 or 4, or 0 with @error set
 *
 * Since: 1.0
 */
guint
gcuda_device_data_make_valid_tex_channel_count (guint     size,
                                                GError  **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if (size <= 1)
    return 1;
  if (size <= 2)
    return 2;
  if (size <= 4)
    return 4;
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
               _("Could not enlarge %u to a valid texture channel count (1, 2 or 4)"), size);
  return 0;
}

/**
 * gcuda_device_data_get_compute_capability_major: (get-property compute-capability-major)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets [property@GCuda.DeviceData:compute-capability-major].
 *
 * Returns: the major compute capability
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_compute_capability_major (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_COMPUTE_CAPABILITY_MAJOR];
}

/**
 * gcuda_device_data_get_compute_capability_minor: (get-property compute-capability-minor)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets [property@GCuda.DeviceData:compute-capability-minor].
 *
 * Returns: the minor compute capability
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_compute_capability_minor (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_COMPUTE_CAPABILITY_MINOR];
}

/**
 * gcuda_device_data_get_registers_per_block: (get-property registers-per-block)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets [property@GCuda.DeviceData:registers-per-block].
 *
 * Returns: the most 32-bit registers one block may use
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_registers_per_block (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_REGISTERS_PER_BLOCK];
}

/**
 * gcuda_device_data_get_max_registers_per_thread: (get-property max-registers-per-thread)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets [property@GCuda.DeviceData:max-registers-per-thread].
 *
 * Returns: the most registers one thread may use
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_max_registers_per_thread (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_MAX_REGISTERS_PER_THREAD];
}

/**
 * gcuda_device_data_get_register_alloc_granularity: (get-property register-alloc-granularity)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets [property@GCuda.DeviceData:register-alloc-granularity].
 *
 * Returns: the number of registers allocated at a time
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_register_alloc_granularity (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_REGISTER_ALLOC_GRANULARITY];
}

/**
 * gcuda_device_data_get_shared_memory_per_block: (get-property shared-memory-per-block)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets [property@GCuda.DeviceData:shared-memory-per-block].
 *
 * Returns: the shared memory one block may use by default, in bytes
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_shared_memory_per_block (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_SHARED_MEMORY_PER_BLOCK];
}

/**
 * gcuda_device_data_get_shared_memory_per_block_optin: (get-property shared-memory-per-block-optin)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets [property@GCuda.DeviceData:shared-memory-per-block-optin].
 *
 * Returns: the shared memory one block may use when it opts in, in bytes
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_shared_memory_per_block_optin (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_SHARED_MEMORY_PER_BLOCK_OPTIN];
}

/**
 * gcuda_device_data_get_reserved_shared_memory_per_block: (get-property reserved-shared-memory-per-block)
 * @self: a [class@GCuda.DeviceData]
 *
 * Gets [property@GCuda.DeviceData:reserved-shared-memory-per-block].
 *
 * Returns: the shared memory the system reserves per block, in bytes
 *
 * Since: 1.0
 */
int
gcuda_device_data_get_reserved_shared_memory_per_block (GCudaDeviceData *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (self), 0);
  return self->values[PROP_RESERVED_SHARED_MEMORY_PER_BLOCK];
}
