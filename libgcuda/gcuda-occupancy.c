/* gcuda-occupancy.c: the occupancy of a kernel workload on a device
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"

/**
 * GCudaOccupancy:
 *
 * How many blocks of a kernel workload are resident on one multiprocessor,
 * what limits that number, and the resulting occupancy (PyCUDA's
 * `pycuda.tools.OccupancyRecord`).
 *
 * ```c
 * static void
 * print_occupancy (GCudaDeviceData *data, GCudaFunction *kernel)
 * {
 *   g_autoptr(GError) error = NULL;
 *   int registers = gcuda_function_get_attribute (kernel, GCUDA_FUNCTION_ATTRIBUTE_NUM_REGS, NULL);
 *   g_autoptr(GCudaOccupancy) occupancy = gcuda_occupancy_new (data, 256, 0, registers, &error);
 *
 *   if (occupancy == NULL)
 *     g_printerr ("%s\n", error->message);
 *   else
 *     g_print ("%d blocks of 256 threads per multiprocessor, occupancy %.2f\n",
 *              gcuda_occupancy_get_tb_per_mp (occupancy),
 *              gcuda_occupancy_get_occupancy (occupancy));
 * }
 * ```
 *
 * In Python (PyCUDA's `pycuda.tools.OccupancyRecord`):
 *
 * ```python
 * occ = GCuda.OccupancyRecord(GCuda.DeviceData(), 256, shared_mem=4096, registers=32)
 * print(occ.tb_per_mp, occ.limited_by, occ.occupancy)
 * ```
 *
 * The workload is described by its block size, its shared memory per block
 * (static plus dynamic) and its registers per thread (the
 * [property@GCuda.Function:num-regs] of a compiled kernel). The computation is
 * that of CUDA's occupancy calculator (`cuda_occupancy.h`) for devices of
 * compute capability 3.0 and later: registers are given to warps in multiples
 * of [property@GCuda.DeviceData:register-alloc-granularity] and spread over the
 * multiprocessor's register-file partitions, shared memory is given to blocks
 * in multiples of [property@GCuda.DeviceData:smem-alloc-granularity] with the
 * driver's [property@GCuda.DeviceData:reserved-shared-memory-per-block] added
 * to each block, and the multiprocessor's whole shared memory is assumed
 * available (the default carveout). For a kernel with the default cache
 * settings the result equals
 * [method@GCuda.Function.get_max_active_blocks_per_multiprocessor].
 *
 * Shared memory beyond [property@GCuda.DeviceData:shared-memory-per-block] is
 * taken to be allowed (up to
 * [property@GCuda.DeviceData:shared-memory-per-block-optin]), as it is once the
 * kernel opted in with [method@GCuda.Function.set_max_dynamic_shared_size].
 *
 * A `GCudaOccupancy` is immutable and thread-safe.
 *
 * Since: 1.0
 */

#define N_LIMITS (GCUDA_OCCUPANCY_LIMIT_SHARED_MEMORY + 1)

struct _GCudaOccupancy
{
  GObject parent_instance;

  int tb_per_mp;
  GCudaOccupancyLimit limited_by;
  int warps_per_mp;
  double occupancy;
  int limits[N_LIMITS];  /* blocks per multiprocessor each resource allows */
};

G_DEFINE_FINAL_TYPE (GCudaOccupancy, gcuda_occupancy, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TB_PER_MP,
  PROP_LIMITED_BY,
  PROP_WARPS_PER_MP,
  PROP_OCCUPANCY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
gcuda_occupancy_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  GCudaOccupancy *self = GCUDA_OCCUPANCY (object);

  switch (prop_id)
    {
    case PROP_TB_PER_MP:
      g_value_set_int (value, self->tb_per_mp);
      break;
    case PROP_LIMITED_BY:
      g_value_set_enum (value, self->limited_by);
      break;
    case PROP_WARPS_PER_MP:
      g_value_set_int (value, self->warps_per_mp);
      break;
    case PROP_OCCUPANCY:
      g_value_set_double (value, self->occupancy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_occupancy_class_init (GCudaOccupancyClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->get_property = gcuda_occupancy_get_property;

  /**
   * GCudaOccupancy:tb-per-mp: (getter get_tb_per_mp)
   *
   * How many blocks are resident on each multiprocessor.
   *
   * Since: 1.0
   */
  properties[PROP_TB_PER_MP] = g_param_spec_int ("tb-per-mp", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaOccupancy:limited-by: (getter get_limited_by)
   *
   * What limits [property@GCuda.Occupancy:tb-per-mp]. When several resources
   * allow the same number of blocks, the first of device, warps, registers and
   * shared memory is named.
   *
   * Since: 1.0
   */
  properties[PROP_LIMITED_BY] =
    g_param_spec_enum ("limited-by", NULL, NULL, GCUDA_TYPE_OCCUPANCY_LIMIT,
                       GCUDA_OCCUPANCY_LIMIT_DEVICE, ro);

  /**
   * GCudaOccupancy:warps-per-mp: (getter get_warps_per_mp)
   *
   * How many warps are resident on each multiprocessor.
   *
   * Since: 1.0
   */
  properties[PROP_WARPS_PER_MP] = g_param_spec_int ("warps-per-mp", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaOccupancy:occupancy: (getter get_occupancy)
   *
   * The resident warps divided by the multiprocessor's warp slots
   * ([property@GCuda.DeviceData:warps-per-mp]): how much of each
   * multiprocessor's scheduling capacity the workload occupies, from 0 to 1.
   *
   * Since: 1.0
   */
  properties[PROP_OCCUPANCY] = g_param_spec_double ("occupancy", NULL, NULL, 0.0, 1.0, 0.0, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_occupancy_init (GCudaOccupancy *self)
{
  self->limited_by = GCUDA_OCCUPANCY_LIMIT_DEVICE;
}

static const char *
limit_name (GCudaOccupancyLimit limit)
{
  switch (limit)
    {
    case GCUDA_OCCUPANCY_LIMIT_DEVICE:
      return "the device's blocks per multiprocessor";
    case GCUDA_OCCUPANCY_LIMIT_WARPS:
      return "warps";
    case GCUDA_OCCUPANCY_LIMIT_REGISTERS:
      return "registers";
    case GCUDA_OCCUPANCY_LIMIT_SHARED_MEMORY:
    default:
      return "shared memory";
    }
}

static guint64
round_up (guint64 value,
          guint64 multiple)
{
  return (value + multiple - 1) / multiple * multiple;
}

/* The figures the computation needs, all checked positive. */
typedef struct {
  int cc_major, cc_minor;
  int max_threads, warp_size, warps_per_mp, blocks_per_mp;
  int registers, registers_per_block, max_registers_per_thread, register_granularity;
  int shared_memory, shared_per_block, shared_per_block_optin, reserved_shared, smem_granularity;
} Figures;

static gboolean
get_figures (GCudaDeviceData  *devdata,
             Figures          *f,
             GError          **error)
{
  struct { const char *name; int *value; gboolean may_be_zero; } fields[] = {
    { "compute-capability-major", &f->cc_major, TRUE },
    { "compute-capability-minor", &f->cc_minor, TRUE },
    { "max-threads", &f->max_threads, FALSE },
    { "warp-size", &f->warp_size, FALSE },
    { "warps-per-mp", &f->warps_per_mp, FALSE },
    { "thread-blocks-per-mp", &f->blocks_per_mp, FALSE },
    { "registers", &f->registers, FALSE },
    { "registers-per-block", &f->registers_per_block, FALSE },
    { "max-registers-per-thread", &f->max_registers_per_thread, FALSE },
    { "register-alloc-granularity", &f->register_granularity, FALSE },
    { "shared-memory", &f->shared_memory, FALSE },
    { "shared-memory-per-block", &f->shared_per_block, FALSE },
    { "shared-memory-per-block-optin", &f->shared_per_block_optin, TRUE },
    { "reserved-shared-memory-per-block", &f->reserved_shared, TRUE },
    { "smem-alloc-granularity", &f->smem_granularity, FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      g_object_get (devdata, fields[i].name, fields[i].value, NULL);
      if (*fields[i].value < 0)
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                       _("The device data's %s is %d: a device's figure cannot be negative"),
                       fields[i].name, *fields[i].value);
          return FALSE;
        }
      if (*fields[i].value == 0 && !fields[i].may_be_zero)
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                       _("The device data has no %s: a GCuda.DeviceData made without a device must give it"),
                       fields[i].name);
          return FALSE;
        }
    }
  return TRUE;
}

/**
 * gcuda_occupancy_new:
 * @devdata: the device's data
 * @threads: the number of threads in a block
 * @shared_mem: the shared memory of a block in bytes, static and dynamic
 * @registers: the registers of a thread (0: not counted)
 * @error: return location for a [struct@GLib.Error]
 *
 * Works out the occupancy of a workload (PyCUDA's
 * `OccupancyRecord(devdata, threads, shared_mem, registers)`).
 *
 * A workload that cannot run at all is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error] naming the limit it
 * exceeds: no threads or more than [property@GCuda.DeviceData:max-threads],
 * more registers than a thread or a block can have, more shared memory than a
 * block can have, or (with data given to [ctor@GObject.Object.new]) no block
 * fitting on a multiprocessor. So is a [class@GCuda.DeviceData] that lacks a
 * figure the computation needs or has a negative one.
 *
 * Returns: (transfer full): the occupancy, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaOccupancy *
gcuda_occupancy_new (GCudaDeviceData  *devdata,
                     guint             threads,
                     guint64           shared_mem,
                     guint             registers,
                     GError          **error)
{
  g_autoptr(GCudaOccupancy) self = NULL;
  Figures f;
  guint64 warps, regs_per_warp, regs_assumed, smem_alloc, smem_limit;
  int sub_partitions;

  g_return_val_if_fail (GCUDA_IS_DEVICE_DATA (devdata), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!get_figures (devdata, &f, error))
    return NULL;

  if (threads == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Too few threads: a block needs at least one thread"));
      return NULL;
    }
  if (threads > (guint) f.max_threads)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Too many threads: %u in a block, the device allows %d"),
                   threads, f.max_threads);
      return NULL;
    }
  if (registers > (guint) f.max_registers_per_thread)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Too many registers: %u per thread, the device allows %d"),
                   registers, f.max_registers_per_thread);
      return NULL;
    }

  /* Registers go to warps, rounded up to the allocation granularity; the
   * hardware checks a block's registers as if its warps were spread over
   * all the register-file partitions (compute capability 6.0 has 2, the
   * others 4). */
  sub_partitions = (f.cc_major == 6 && f.cc_minor == 0) ? 2 : 4;
  warps = (threads + (guint) f.warp_size - 1) / (guint) f.warp_size;
  regs_per_warp = round_up ((guint64) registers * (guint64) f.warp_size, (guint64) f.register_granularity);
  regs_assumed = regs_per_warp * round_up (warps, sub_partitions);
  if (regs_assumed > (guint64) f.registers_per_block)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Too many registers: a block of %u threads with %u registers each takes %"
                     PRIu64 " registers, the device allows %d per block"),
                   threads, registers, regs_assumed, f.registers_per_block);
      return NULL;
    }

  /* Shared memory: the driver's reserve is part of every block. */
  if (shared_mem > G_MAXUINT32)
    smem_alloc = shared_mem;
  else
    smem_alloc = round_up (shared_mem + (guint64) f.reserved_shared, (guint64) f.smem_granularity);
  smem_limit = (guint64) MAX (f.shared_per_block, f.shared_per_block_optin) + (guint64) f.reserved_shared;
  if (smem_alloc > smem_limit)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Too much shared memory: %" PRIu64 " bytes in a block, the device allows %d"),
                   shared_mem, MAX (f.shared_per_block, f.shared_per_block_optin));
      return NULL;
    }

  self = g_object_new (GCUDA_TYPE_OCCUPANCY, NULL);
  self->limits[GCUDA_OCCUPANCY_LIMIT_DEVICE] = f.blocks_per_mp;
  self->limits[GCUDA_OCCUPANCY_LIMIT_WARPS] = (int) ((guint64) f.warps_per_mp / warps);
  if (regs_per_warp > 0)
    {
      guint64 warps_per_partition = (guint64) (f.registers / sub_partitions) / regs_per_warp;
      self->limits[GCUDA_OCCUPANCY_LIMIT_REGISTERS] = (int) (warps_per_partition * sub_partitions / warps);
    }
  else
    self->limits[GCUDA_OCCUPANCY_LIMIT_REGISTERS] = G_MAXINT;
  if (smem_alloc > 0)
    self->limits[GCUDA_OCCUPANCY_LIMIT_SHARED_MEMORY] = (int) ((guint64) f.shared_memory / smem_alloc);
  else
    self->limits[GCUDA_OCCUPANCY_LIMIT_SHARED_MEMORY] = G_MAXINT;

  self->limited_by = GCUDA_OCCUPANCY_LIMIT_DEVICE;
  for (int i = 1; i < N_LIMITS; i++)
    if (self->limits[i] < self->limits[self->limited_by])
      self->limited_by = (GCudaOccupancyLimit) i;
  self->tb_per_mp = self->limits[self->limited_by];

  if (self->tb_per_mp == 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("No block of %u threads fits on a multiprocessor: %s limit it"),
                   threads, limit_name (self->limited_by));
      return NULL;
    }

  self->warps_per_mp = self->tb_per_mp * (int) warps;
  self->occupancy = MIN (1.0, (double) self->warps_per_mp / (double) f.warps_per_mp);

  return g_steal_pointer (&self);
}

/**
 * gcuda_occupancy_get_tb_per_mp: (get-property tb-per-mp)
 * @self: a [class@GCuda.Occupancy]
 *
 * Gets how many blocks are resident on each multiprocessor.
 *
 * Returns: the value of [property@GCuda.Occupancy:tb-per-mp]
 *
 * Since: 1.0
 */
int
gcuda_occupancy_get_tb_per_mp (GCudaOccupancy *self)
{
  g_return_val_if_fail (GCUDA_IS_OCCUPANCY (self), 0);
  return self->tb_per_mp;
}

/**
 * gcuda_occupancy_get_limited_by: (get-property limited-by)
 * @self: a [class@GCuda.Occupancy]
 *
 * Gets the resource that limits the number of resident blocks.
 *
 * Returns: the value of [property@GCuda.Occupancy:limited-by]
 *
 * Since: 1.0
 */
GCudaOccupancyLimit
gcuda_occupancy_get_limited_by (GCudaOccupancy *self)
{
  g_return_val_if_fail (GCUDA_IS_OCCUPANCY (self), GCUDA_OCCUPANCY_LIMIT_DEVICE);
  return self->limited_by;
}

/**
 * gcuda_occupancy_get_warps_per_mp: (get-property warps-per-mp)
 * @self: a [class@GCuda.Occupancy]
 *
 * Gets how many warps are resident on each multiprocessor.
 *
 * Returns: the value of [property@GCuda.Occupancy:warps-per-mp]
 *
 * Since: 1.0
 */
int
gcuda_occupancy_get_warps_per_mp (GCudaOccupancy *self)
{
  g_return_val_if_fail (GCUDA_IS_OCCUPANCY (self), 0);
  return self->warps_per_mp;
}

/**
 * gcuda_occupancy_get_occupancy: (get-property occupancy)
 * @self: a [class@GCuda.Occupancy]
 *
 * Gets the occupancy: the resident warps divided by the multiprocessor's warp
 * slots.
 *
 * Returns: the value of [property@GCuda.Occupancy:occupancy]
 *
 * Since: 1.0
 */
double
gcuda_occupancy_get_occupancy (GCudaOccupancy *self)
{
  g_return_val_if_fail (GCUDA_IS_OCCUPANCY (self), 0.0);
  return self->occupancy;
}

/**
 * gcuda_occupancy_get_limit:
 * @self: a [class@GCuda.Occupancy]
 * @limit: a resource
 *
 * How many blocks per multiprocessor @limit alone allows (PyCUDA's
 * `OccupancyRecord.tb_per_mp_limits`). %G_MAXINT when the resource sets no
 * limit (registers given as 0).
 *
 * Returns: the number of blocks
 *
 * Since: 1.0
 */
int
gcuda_occupancy_get_limit (GCudaOccupancy      *self,
                           GCudaOccupancyLimit  limit)
{
  g_return_val_if_fail (GCUDA_IS_OCCUPANCY (self), 0);
  g_return_val_if_fail ((int) limit >= 0 && (int) limit < N_LIMITS, 0);
  return self->limits[limit];
}
