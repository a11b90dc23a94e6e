/* gcuda-function.c: a kernel
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-context-private.h"
#include "gcuda-device-private.h"
#include "gcuda-function-private.h"
#include "gcuda-kernel-args-private.h"
#include "gcuda-launch-config-private.h"
#include "gcuda-stream-private.h"

/**
 * GCudaFunction:
 *
 * A `__global__` function of a [class@GCuda.Module] (PyCUDA's `Function`), from
 * [method@GCuda.Module.get_function]. Its properties are the driver's function
 * attributes (registers, shared/constant/local memory, …), read once.
 *
 * ```c
 * static gboolean
 * scale_on_gpu (GCudaModule *module, GCudaBuffer *x, int n, GError **error)
 * {
 *   g_autoptr(GCudaFunction) scale = gcuda_module_get_function (module, "scale", error);
 *   g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
 *
 *   if (scale == NULL)
 *     return FALSE;
 *   gcuda_kernel_args_add_buffer (args, x);
 *   gcuda_kernel_args_add_float (args, 2.0f);
 *   gcuda_kernel_args_add_int32 (args, n);
 *   return gcuda_function_launch (scale, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, error);
 * }
 * ```
 *
 * In Python, a function is called as in PyCUDA, with numpy scalars for the
 * scalar parameters; `prepare()` and `prepared_call()` do less work per launch:
 *
 * ```python
 * mod = GCuda.SourceModule('''
 * __global__ void scale(float *x, float a, int n)
 * {
 *     int i = blockIdx.x * blockDim.x + threadIdx.x;
 *     if (i < n)
 *         x[i] *= a;
 * }''')
 * scale = mod.get_function('scale')
 * x = GCuda.to_device(numpy.ones(1000, numpy.float32))
 * scale(x, numpy.float32(2), numpy.int32(1000), block=(256, 1, 1), grid=(4, 1))
 * scale.prepare('Pfi')
 * scale.prepared_call((4, 1), (256, 1, 1), x, 0.5, 1000)
 * ```
 *
 * [method@GCuda.Function.launch] runs it with a [class@GCuda.KernelArgs];
 * [method@GCuda.Function.launch_packed] with a parameter buffer packed by the
 * caller (PyCUDA's `prepared_call`). Both check the arguments against the
 * kernel's parameters (count and sizes, from `cuFuncGetParamInfo`) and the
 * launch dimensions before the driver is called: a mismatch is a
 * [struct@GLib.Error], never a crash or garbage on the GPU. The function keeps
 * its module loaded and can be launched from any thread.
 *
 * Since: 1.0
 */

struct _GCudaFunction
{
  GObject parent_instance;

  GCudaModule *module;
  GCudaContext *context;
  CUfunction handle;
  char *name;
  guint n_params;
  gsize *param_sizes;
  gsize *param_offsets;
  gsize params_size;     /* offset + size of the last parameter */
  int attrs[8];          /* see attr_ids */
  guint max_block[3];    /* the device's largest block and grid, for check_launch() */
  guint max_grid[3];
};

G_DEFINE_FINAL_TYPE (GCudaFunction, gcuda_function, G_TYPE_OBJECT)

static const CUfunction_attribute attr_ids[] = {
  CU_FUNC_ATTRIBUTE_NUM_REGS,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
  CU_FUNC_ATTRIBUTE_PTX_VERSION,
  CU_FUNC_ATTRIBUTE_BINARY_VERSION,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
};

enum {
  PROP_0,
  PROP_NAME,
  PROP_MODULE,
  PROP_PARAM_COUNT,
  /* in the order of attr_ids */
  PROP_NUM_REGS,
  PROP_SHARED_SIZE_BYTES,
  PROP_CONST_SIZE_BYTES,
  PROP_LOCAL_SIZE_BYTES,
  PROP_MAX_THREADS_PER_BLOCK,
  PROP_PTX_VERSION,
  PROP_BINARY_VERSION,
  PROP_MAX_DYNAMIC_SHARED_SIZE_BYTES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
gcuda_function_finalize (GObject *object)
{
  GCudaFunction *self = GCUDA_FUNCTION (object);

  g_clear_object (&self->module);
  g_clear_object (&self->context);
  g_free (self->name);
  g_free (self->param_sizes);
  g_free (self->param_offsets);

  G_OBJECT_CLASS (gcuda_function_parent_class)->finalize (object);
}

static void
gcuda_function_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  GCudaFunction *self = GCUDA_FUNCTION (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_MODULE:
      g_value_set_object (value, self->module);
      break;
    case PROP_PARAM_COUNT:
      g_value_set_uint (value, self->n_params);
      break;
    case PROP_NUM_REGS ... PROP_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      g_value_set_int (value, self->attrs[prop_id - PROP_NUM_REGS]);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_function_class_init (GCudaFunctionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_function_finalize;
  object_class->get_property = gcuda_function_get_property;

  /**
   * GCudaFunction:name: (getter get_name)
   *
   * The kernel's name in its module.
   *
   * Since: 1.0
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, ro);

  /**
   * GCudaFunction:module: (getter get_module)
   *
   * The module the kernel comes from.
   *
   * Since: 1.0
   */
  properties[PROP_MODULE] = g_param_spec_object ("module", NULL, NULL, GCUDA_TYPE_MODULE, ro);

  /**
   * GCudaFunction:param-count: (getter get_param_count)
   *
   * The number of the kernel's parameters.
   *
   * Since: 1.0
   */
  properties[PROP_PARAM_COUNT] = g_param_spec_uint ("param-count", NULL, NULL, 0, G_MAXUINT, 0, ro);

  /**
   * GCudaFunction:num-regs:
   *
   * Registers per thread.
   *
   * Since: 1.0
   */
  properties[PROP_NUM_REGS] = g_param_spec_int ("num-regs", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaFunction:shared-size-bytes:
   *
   * Static shared memory per block, in bytes.
   *
   * Since: 1.0
   */
  properties[PROP_SHARED_SIZE_BYTES] = g_param_spec_int ("shared-size-bytes", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaFunction:const-size-bytes:
   *
   * Constant memory used, in bytes.
   *
   * Since: 1.0
   */
  properties[PROP_CONST_SIZE_BYTES] = g_param_spec_int ("const-size-bytes", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaFunction:local-size-bytes:
   *
   * Local memory per thread, in bytes.
   *
   * Since: 1.0
   */
  properties[PROP_LOCAL_SIZE_BYTES] = g_param_spec_int ("local-size-bytes", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaFunction:max-threads-per-block: (getter get_max_threads_per_block)
   *
   * The largest block this kernel can be launched with on its device.
   *
   * Since: 1.0
   */
  properties[PROP_MAX_THREADS_PER_BLOCK] =
    g_param_spec_int ("max-threads-per-block", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaFunction:ptx-version:
   *
   * The PTX virtual architecture it was compiled for, as major × 10 + minor.
   *
   * Since: 1.0
   */
  properties[PROP_PTX_VERSION] = g_param_spec_int ("ptx-version", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaFunction:binary-version:
   *
   * The binary architecture it was compiled for, as major × 10 + minor.
   *
   * Since: 1.0
   */
  properties[PROP_BINARY_VERSION] = g_param_spec_int ("binary-version", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaFunction:max-dynamic-shared-size-bytes:
   *
   * The most dynamic shared memory a launch may ask for, in bytes (see
   * [method@GCuda.Function.set_max_dynamic_shared_size]).
   *
   * Since: 1.0
   */
  properties[PROP_MAX_DYNAMIC_SHARED_SIZE_BYTES] =
    g_param_spec_int ("max-dynamic-shared-size-bytes", NULL, NULL, 0, G_MAXINT, 0, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_function_init (GCudaFunction *self)
{
}

/* With the module's context current: reads the attributes. */
static gboolean
read_attributes (GCudaFunction  *self,
                 GError        **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (attr_ids); i++)
    if (!GCUDA_CHECK (GCUDA_DRV->fn_cuFuncGetAttribute (&self->attrs[i], attr_ids[i], self->handle),
                      "cuFuncGetAttribute", error))
      return FALSE;
  return TRUE;
}

GCudaFunction *
_gcuda_function_new (GCudaModule  *module,
                     CUfunction    handle,
                     const char   *name,
                     GError      **error)
{
  g_autoptr(GCudaFunction) self = g_object_new (GCUDA_TYPE_FUNCTION, NULL);
  g_autoptr(GArray) sizes = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr(GArray) offsets = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

  self->module = g_object_ref (module);
  self->context = g_object_ref (gcuda_module_get_context (module));
  self->handle = handle;
  self->name = g_strdup (name);
  _gcuda_device_get_launch_limits (gcuda_context_get_device (self->context), self->max_block, self->max_grid);

  if (!_gcuda_context_enter (self->context, &scope, error) || !read_attributes (self, error))
    return NULL;
  /* The parameters: cuFuncGetParamInfo answers until the index is past the
   * last one (CUDA_ERROR_INVALID_VALUE). */
  for (guint i = 0; ; i++)
    {
      size_t offset = 0, size = 0;
      CUresult res = GCUDA_DRV->fn_cuFuncGetParamInfo (handle, i, &offset, &size);

      if (res == CUDA_ERROR_INVALID_VALUE)
        break;
      if (!_gcuda_check (res, "cuFuncGetParamInfo", error))
        return NULL;
      g_array_append_vals (sizes, &(gsize) { size }, 1);
      g_array_append_vals (offsets, &(gsize) { offset }, 1);
      self->params_size = MAX (self->params_size, offset + size);
    }

  self->n_params = sizes->len;
  self->param_sizes = (gsize *) g_array_free (g_steal_pointer (&sizes), FALSE);
  self->param_offsets = (gsize *) g_array_free (g_steal_pointer (&offsets), FALSE);
  return g_steal_pointer (&self);
}

static gboolean
function_check (GCudaFunction  *self,
                GError        **error)
{
  return GCUDA_CHECK_MADE (self->handle != NULL, error,
                           _("This GCuda.Function was made without a kernel: functions come from "
                             "Module.get_function()"));
}

/**
 * gcuda_function_get_name: (get-property name)
 * @self: a [class@GCuda.Function]
 *
 * Gets the kernel's name in its module.
 *
 * Returns: the kernel's name
 *
 * Since: 1.0
 */
const char *
gcuda_function_get_name (GCudaFunction *self)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), NULL);
  return self->name;
}

/**
 * gcuda_function_get_module: (get-property module)
 * @self: a [class@GCuda.Function]
 *
 * Gets the module the kernel comes from, which the function keeps loaded.
 *
 * Returns: (transfer none): the kernel's module
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_function_get_module (GCudaFunction *self)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), NULL);
  return self->module;
}

/**
 * gcuda_function_get_param_count: (get-property param-count)
 * @self: a [class@GCuda.Function]
 *
 * Gets the number of the kernel's parameters, which every launch is checked
 * against.
 *
 * Returns: the number of parameters
 *
 * Since: 1.0
 */
guint
gcuda_function_get_param_count (GCudaFunction *self)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);
  return self->n_params;
}

/**
 * gcuda_function_get_param_size:
 * @self: a [class@GCuda.Function]
 * @index: a parameter's index
 *
 * Gets the size of one of the kernel's parameters, as the driver reports it
 * (`cuFuncGetParamInfo`).
 *
 * Returns: the parameter's size in bytes, or 0 past the last parameter
 *
 * Since: 1.0
 */
guint64
gcuda_function_get_param_size (GCudaFunction *self,
                               guint          index)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);
  return index < self->n_params ? self->param_sizes[index] : 0;
}

/**
 * gcuda_function_get_param_offset:
 * @self: a [class@GCuda.Function]
 * @index: a parameter's index
 *
 * Where the parameter lies in the kernel's parameter buffer, the layout
 * [method@GCuda.Function.launch_packed] expects (vector types such as `float4`
 * are aligned more than their fields, so offsets cannot always be guessed
 * from sizes).
 *
 * Returns: the parameter's offset in bytes, or 0 past the last parameter
 *
 * Since: 1.0
 */
guint64
gcuda_function_get_param_offset (GCudaFunction *self,
                                 guint          index)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);
  return index < self->n_params ? self->param_offsets[index] : 0;
}

/**
 * gcuda_function_get_max_threads_per_block: (get-property max-threads-per-block)
 * @self: a [class@GCuda.Function]
 *
 * Gets the largest block this kernel can be launched with on its device, which
 * its register and shared memory use may make smaller than the device's limit.
 *
 * Returns: [property@GCuda.Function:max-threads-per-block]
 *
 * Since: 1.0
 */
int
gcuda_function_get_max_threads_per_block (GCudaFunction *self)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);
  return self->attrs[PROP_MAX_THREADS_PER_BLOCK - PROP_NUM_REGS];
}

/**
 * gcuda_function_get_max_active_blocks_per_multiprocessor:
 * @self: a [class@GCuda.Function]
 * @block_size: threads per block
 * @dynamic_shared_bytes: dynamic shared memory per block
 * @error: return location for a [struct@GLib.Error]
 *
 * How many blocks of this kernel fit on one multiprocessor at once (the
 * driver's occupancy calculator).
 *
 * Returns: the number of blocks, or 0 with @error set
 *
 * Since: 1.0
 */
int
gcuda_function_get_max_active_blocks_per_multiprocessor (GCudaFunction  *self,
                                                         guint           block_size,
                                                         guint64         dynamic_shared_bytes,
                                                         GError        **error)
{
  int blocks = 0;

  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);

  if (!function_check (self, error))
    return 0;
  if (block_size == 0 || block_size > G_MAXINT)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%u is not a block size: a block needs at least one thread"), block_size);
      return 0;
    }
  if (dynamic_shared_bytes > G_MAXSIZE)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%" PRIu64 " bytes is too much shared memory"), dynamic_shared_bytes);
      return 0;
    }
  if (!GCUDA_CONTEXT_CALL (self->context,
                           GCUDA_DRV->fn_cuOccupancyMaxActiveBlocksPerMultiprocessor (&blocks, self->handle,
                                                                                      (int) block_size,
                                                                                      dynamic_shared_bytes),
                           "cuOccupancyMaxActiveBlocksPerMultiprocessor", error))
    return 0;
  return blocks;
}

/**
 * gcuda_function_set_cache_config:
 * @self: a [class@GCuda.Function]
 * @config: the preference
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets the kernel's preferred split between L1 and shared memory
 * (PyCUDA's `Function.set_cache_config()`).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_function_set_cache_config (GCudaFunction     *self,
                                 GCudaCacheConfig   config,
                                 GError           **error)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), FALSE);

  if (!function_check (self, error))
    return FALSE;
  if ((guint) config > GCUDA_CACHE_CONFIG_PREFER_EQUAL)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%d is not a cache configuration (see GCuda.CacheConfig)"), (int) config);
      return FALSE;
    }
  return GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuFuncSetCacheConfig (self->handle, (CUfunc_cache) config),
                             "cuFuncSetCacheConfig", error);
}

/* Sets an attribute, then reads back those the properties show. */
static gboolean
set_attribute (GCudaFunction         *self,
               CUfunction_attribute   attribute,
               int                    value,
               GError               **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

  return function_check (self, error) &&
         _gcuda_context_enter (self->context, &scope, error) &&
         GCUDA_CHECK (GCUDA_DRV->fn_cuFuncSetAttribute (self->handle, attribute, value), "cuFuncSetAttribute", error) &&
         read_attributes (self, error);
}

/**
 * gcuda_function_set_max_dynamic_shared_size:
 * @self: a [class@GCuda.Function]
 * @bytes: the most dynamic shared memory launches will ask for
 * @error: return location for a [struct@GLib.Error]
 *
 * Allows launches with more than the default 48 KiB of dynamic shared
 * memory, up to what the device offers.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_function_set_max_dynamic_shared_size (GCudaFunction  *self,
                                             guint           bytes,
                                             GError        **error)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), FALSE);

  if (!function_check (self, error))
    return FALSE;
  if (bytes > G_MAXINT)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("%u bytes is too much shared memory"), bytes);
      return FALSE;
    }
  return set_attribute (self, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int) bytes, error);
}

/* The checks every launch shares; cheap (no driver call). */
static gboolean
check_launch (GCudaFunction  *self,
              guint           grid_x,
              guint           grid_y,
              guint           grid_z,
              guint           block_x,
              guint           block_y,
              guint           block_z,
              GCudaStream    *stream,
              GError        **error)
{
  guint64 threads = (guint64) block_x * block_y * block_z;
  int max_threads = self->attrs[PROP_MAX_THREADS_PER_BLOCK - PROP_NUM_REGS];

  if (!function_check (self, error))
    return FALSE;
  if (G_UNLIKELY (grid_x == 0 || grid_y == 0 || grid_z == 0 || threads == 0))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Launching %s with grid %u×%u×%u and block %u×%u×%u: every dimension must be at least 1"),
                   self->name, grid_x, grid_y, grid_z, block_x, block_y, block_z);
      return FALSE;
    }
  /* The device's limits, read with the device: compares only, no driver
   * call on the launch path. */
  if (G_UNLIKELY (block_x > self->max_block[0] || block_y > self->max_block[1] || block_z > self->max_block[2]))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Launching %s with block %u×%u×%u: the device allows blocks of at most %u×%u×%u"),
                   self->name, block_x, block_y, block_z, self->max_block[0], self->max_block[1], self->max_block[2]);
      return FALSE;
    }
  if (G_UNLIKELY (grid_x > self->max_grid[0] || grid_y > self->max_grid[1] || grid_z > self->max_grid[2]))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Launching %s with grid %u×%u×%u: the device allows grids of at most %u×%u×%u"),
                   self->name, grid_x, grid_y, grid_z, self->max_grid[0], self->max_grid[1], self->max_grid[2]);
      return FALSE;
    }
  if (G_UNLIKELY (threads > (guint64) max_threads))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Launching %s with %" PRIu64 " threads per block: it allows at most %d"),
                   self->name, threads, max_threads);
      return FALSE;
    }
  if (G_UNLIKELY (stream != NULL && !_gcuda_stream_is_of (stream, self->context)))
    {
      /* not a stream, or one made by hand: INVALID_ARGUMENT */
      if (!_gcuda_stream_check_arg (stream, error))
        return FALSE;
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                   _("Launching %s on a stream that is not of its module's context"), self->name);
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_function_launch:
 * @self: a [class@GCuda.Function]
 * @grid_x: blocks in x, at least 1
 * @grid_y: blocks in y, at least 1
 * @grid_z: blocks in z, at least 1
 * @block_x: threads per block in x, at least 1
 * @block_y: threads per block in y, at least 1
 * @block_z: threads per block in z, at least 1
 * @shared_bytes: dynamic shared memory per block
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 * @args: (nullable): the arguments (%NULL for a kernel without parameters)
 * @error: return location for a [struct@GLib.Error]
 *
 * Queues a launch of the kernel. Arguments that do not match the kernel's
 * parameters in number or size are
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], naming the parameter; zero
 * or too large dimensions (more threads per block than the kernel allows, a
 * block or grid dimension beyond the device's maximum) are
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], checked without a driver
 * call. Faults inside the kernel
 * (an illegal address, say) are reported by the next synchronizing call, with a
 * [GCUDA_ERROR_CATEGORY_LAUNCH][enum@GCuda.ErrorCategory] driver error. Such an
 * error is sticky: the CUDA driver keeps reporting it for the device's contexts
 * in this process (on the H100, the primary context too, even after a fault in
 * a dedicated one), so the only recovery is a new process.
 *
 * Returns: %TRUE if the launch was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_function_launch (GCudaFunction    *self,
                       guint             grid_x,
                       guint             grid_y,
                       guint             grid_z,
                       guint             block_x,
                       guint             block_y,
                       guint             block_z,
                       guint             shared_bytes,
                       GCudaStream      *stream,
                       GCudaKernelArgs  *args,
                       GError          **error)
{
  GError *local_error = NULL;
  void **params;

  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), FALSE);

  if (!check_launch (self, grid_x, grid_y, grid_z, block_x, block_y, block_z, stream, error))
    return FALSE;
  if (args != NULL && !GCUDA_IS_KERNEL_ARGS (args))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.KernelArgs"));
      return FALSE;
    }
  params = _gcuda_kernel_args_prepare (args, self->context, self->param_sizes, self->n_params, self->name, &local_error);
  if (G_UNLIKELY (local_error != NULL))
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  return GCUDA_CONTEXT_CALL (self->context,
                             GCUDA_DRV->fn_cuLaunchKernel (self->handle, grid_x, grid_y, grid_z, block_x, block_y,
                                                           block_z, shared_bytes, _gcuda_stream_get_handle (stream),
                                                           params, NULL),
                             "cuLaunchKernel", error);
}

/**
 * gcuda_function_launch_packed:
 * @self: a [class@GCuda.Function]
 * @grid_x: blocks in x, at least 1
 * @grid_y: blocks in y, at least 1
 * @grid_z: blocks in z, at least 1
 * @block_x: threads per block in x, at least 1
 * @block_y: threads per block in y, at least 1
 * @block_z: threads per block in z, at least 1
 * @shared_bytes: dynamic shared memory per block
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 * @params: (array length=params_size) (nullable): the parameters packed as
 *   the kernel lays them out (each at its natural alignment)
 * @params_size: the size of @params
 * @error: return location for a [struct@GLib.Error]
 *
 * Queues a launch with a parameter buffer packed by the caller (PyCUDA's
 * `prepared_call`, which packs with `struct`). A buffer of the wrong size for
 * the kernel's parameters is [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error].
 *
 * Returns: %TRUE if the launch was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_function_launch_packed (GCudaFunction  *self,
                              guint           grid_x,
                              guint           grid_y,
                              guint           grid_z,
                              guint           block_x,
                              guint           block_y,
                              guint           block_z,
                              guint           shared_bytes,
                              GCudaStream    *stream,
                              const guint8   *params,
                              gsize           params_size,
                              GError        **error)
{
  size_t size = params_size;
  void *extra[] = {
    CU_LAUNCH_PARAM_BUFFER_POINTER, (void *) params,
    CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
    CU_LAUNCH_PARAM_END,
  };

  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), FALSE);

  if (!check_launch (self, grid_x, grid_y, grid_z, block_x, block_y, block_z, stream, error))
    return FALSE;
  if (G_UNLIKELY (params_size != self->params_size || (params == NULL && params_size > 0)))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS,
                   _("Kernel %s takes %" "zu" " bytes of parameters (%u parameters), not %" "zu"),
                   self->name, self->params_size, self->n_params, params_size);
      return FALSE;
    }
  return GCUDA_CONTEXT_CALL (self->context,
                             GCUDA_DRV->fn_cuLaunchKernel (self->handle, grid_x, grid_y, grid_z, block_x, block_y,
                                                           block_z, shared_bytes, _gcuda_stream_get_handle (stream),
                                                           NULL, params_size > 0 ? extra : NULL),
                             "cuLaunchKernel", error);
}

/**
 * gcuda_function_launch_with_config:
 * @self: a [class@GCuda.Function]
 * @config: the launch's shape, stream and attributes
 * @args: (nullable): the arguments (%NULL for a kernel without parameters)
 * @error: return location for a [struct@GLib.Error]
 *
 * Queues a launch through `cuLaunchKernelEx`, for what
 * [method@GCuda.Function.launch] cannot express: cooperative launches and
 * thread block clusters (see [class@GCuda.LaunchConfig]). Arguments and
 * dimensions are checked as [method@GCuda.Function.launch] checks them; a grid
 * that is not a multiple of the cluster, or a cooperative grid too large to be
 * resident at once, is the driver's error.
 *
 * Returns: %TRUE if the launch was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_function_launch_with_config (GCudaFunction     *self,
                                   GCudaLaunchConfig *config,
                                   GCudaKernelArgs   *args,
                                   GError           **error)
{
  const guint *grid, *block, *cluster;
  guint shared_bytes;
  GCudaStream *stream;
  gboolean cooperative;
  CUlaunchAttribute attrs[2];
  CUlaunchConfig cfg = { 0 };
  GError *local_error = NULL;
  void **params;

  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), FALSE);

  if (!GCUDA_IS_LAUNCH_CONFIG (config) || (args != NULL && !GCUDA_IS_KERNEL_ARGS (args)))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.LaunchConfig and GCuda.KernelArgs"));
      return FALSE;
    }
  _gcuda_launch_config_get (config, &grid, &block, &cluster, &shared_bytes, &stream, &cooperative);
  if (!check_launch (self, grid[0], grid[1], grid[2], block[0], block[1], block[2], stream, error))
    return FALSE;
  if ((cluster[0] | cluster[1] | cluster[2]) != 0 && (cluster[0] == 0 || cluster[1] == 0 || cluster[2] == 0))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Launching %s with clusters of %u×%u×%u blocks: every dimension must be at least 1"),
                   self->name, cluster[0], cluster[1], cluster[2]);
      return FALSE;
    }
  params = _gcuda_kernel_args_prepare (args, self->context, self->param_sizes, self->n_params, self->name, &local_error);
  if (G_UNLIKELY (local_error != NULL))
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }

  cfg.gridDimX = grid[0];
  cfg.gridDimY = grid[1];
  cfg.gridDimZ = grid[2];
  cfg.blockDimX = block[0];
  cfg.blockDimY = block[1];
  cfg.blockDimZ = block[2];
  cfg.sharedMemBytes = shared_bytes;
  cfg.hStream = _gcuda_stream_get_handle (stream);
  cfg.attrs = attrs;
  if (cooperative)
    {
      attrs[cfg.numAttrs].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attrs[cfg.numAttrs].value.cooperative = 1;
      cfg.numAttrs++;
    }
  if (cluster[0] != 0)
    {
      attrs[cfg.numAttrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[cfg.numAttrs].value.clusterDim.x = cluster[0];
      attrs[cfg.numAttrs].value.clusterDim.y = cluster[1];
      attrs[cfg.numAttrs].value.clusterDim.z = cluster[2];
      cfg.numAttrs++;
    }

  return GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuLaunchKernelEx (&cfg, self->handle, params, NULL),
                             "cuLaunchKernelEx", error);
}

/**
 * gcuda_function_launch_with_number:
 * @self: a [class@GCuda.Function]
 * @config: the launch's shape, stream and attributes
 * @args: the arguments, reused from launch to launch
 * @index: the index of the argument to change
 * @value: its new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces argument @index of @args as [method@GCuda.KernelArgs.set_number]
 * does, then launches as [method@GCuda.Function.launch_with_config] does: a
 * launch loop that changes one scalar argument per launch (a time step, an
 * offset, a frame number) in one call. Language bindings pay for each call
 * (from GJS about a microsecond), so this halves their cost of such a loop;
 * C gains nothing over the two calls.
 *
 * ```js
 * const args = GCuda.KernelArgs.new();
 * args.add_buffer(pixels);
 * args.add_float(0);        // float t
 * const config = GCuda.LaunchConfig.new();
 * config.set_grid(blocks, 1, 1);
 * config.set_block(256, 1, 1);
 * config.set_stream(stream);
 * for (let frame = 0; frame < 100; frame++)
 *     step.launch_with_number(config, args, 1, frame / 60);
 * ```
 *
 * A value @index cannot take is [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error]
 * and nothing is launched; otherwise the new value stays in @args.
 *
 * Returns: %TRUE if the launch was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_function_launch_with_number (GCudaFunction     *self,
                                   GCudaLaunchConfig *config,
                                   GCudaKernelArgs   *args,
                                   guint              index,
                                   double             value,
                                   GError           **error)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), FALSE);

  if (!GCUDA_IS_LAUNCH_CONFIG (config) || !GCUDA_IS_KERNEL_ARGS (args))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.LaunchConfig and GCuda.KernelArgs"));
      return FALSE;
    }
  return _gcuda_kernel_args_set_number (args, index, value, error) &&
         gcuda_function_launch_with_config (self, config, args, error);
}

/**
 * gcuda_function_launch_timed:
 * @self: a [class@GCuda.Function]
 * @grid_x: blocks in x, at least 1
 * @grid_y: blocks in y, at least 1
 * @grid_z: blocks in z, at least 1
 * @block_x: threads per block in x, at least 1
 * @block_y: threads per block in y, at least 1
 * @block_z: threads per block in z, at least 1
 * @shared_bytes: dynamic shared memory per block
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 * @args: (nullable): the arguments (%NULL for a kernel without parameters)
 * @error: return location for a [struct@GLib.Error]
 *
 * Launches as [method@GCuda.Function.launch] does, between two events, waits
 * for the kernel to finish and returns its GPU time (PyCUDA's
 * `time_kernel=True` and `prepared_timed_call()`, which give seconds). A fault
 * inside the kernel is reported here.
 *
 * Returns: the kernel's time in milliseconds, or a negative value with
 *   @error set
 *
 * Since: 1.0
 */
double
gcuda_function_launch_timed (GCudaFunction    *self,
                             guint             grid_x,
                             guint             grid_y,
                             guint             grid_z,
                             guint             block_x,
                             guint             block_y,
                             guint             block_z,
                             guint             shared_bytes,
                             GCudaStream      *stream,
                             GCudaKernelArgs  *args,
                             GError          **error)
{
  CUevent start = NULL, end = NULL;
  CUstream handle = _gcuda_stream_get_handle (stream);
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  float ms = -1.0f;
  gboolean ok;

  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), -1.0);

  if (!check_launch (self, grid_x, grid_y, grid_z, block_x, block_y, block_z, stream, error) ||
      !_gcuda_context_enter (self->context, &scope, error))
    return -1.0;
  ok = GCUDA_CHECK (GCUDA_DRV->fn_cuEventCreate (&start, CU_EVENT_DEFAULT), "cuEventCreate", error) &&
       GCUDA_CHECK (GCUDA_DRV->fn_cuEventCreate (&end, CU_EVENT_DEFAULT), "cuEventCreate", error) &&
       GCUDA_CHECK (GCUDA_DRV->fn_cuEventRecord (start, handle), "cuEventRecord", error) &&
       gcuda_function_launch (self, grid_x, grid_y, grid_z, block_x, block_y, block_z,
                              shared_bytes, stream, args, error) &&
       GCUDA_CHECK (GCUDA_DRV->fn_cuEventRecord (end, handle), "cuEventRecord", error) &&
       GCUDA_CHECK (GCUDA_DRV->fn_cuEventSynchronize (end), "cuEventSynchronize", error) &&
       GCUDA_CHECK (GCUDA_DRV->fn_cuEventElapsedTime (&ms, start, end), "cuEventElapsedTime", error);
  if (start != NULL)
    GCUDA_DRV->fn_cuEventDestroy (start);
  if (end != NULL)
    GCUDA_DRV->fn_cuEventDestroy (end);
  return ok ? (double) ms : -1.0;
}

static gboolean
check_attribute (GCudaFunctionAttribute   attribute,
                 GError                 **error)
{
  if ((guint) attribute <= GCUDA_FUNCTION_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE)
    return TRUE;
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
               _("%d is not a kernel attribute (see GCuda.FunctionAttribute)"), (int) attribute);
  return FALSE;
}

/**
 * gcuda_function_get_attribute:
 * @self: a [class@GCuda.Function]
 * @attribute: the attribute
 * @error: return location for a [struct@GLib.Error]
 *
 * Reads one of the kernel's attributes from the driver (PyCUDA's
 * `Function.get_attribute()`); the common ones are also properties.
 *
 * Returns: the value, or 0 with @error set
 *
 * Since: 1.0
 */
int
gcuda_function_get_attribute (GCudaFunction           *self,
                              GCudaFunctionAttribute   attribute,
                              GError                 **error)
{
  int value = 0;

  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);

  if (!function_check (self, error) || !check_attribute (attribute, error) ||
      !GCUDA_CONTEXT_CALL (self->context,
                           GCUDA_DRV->fn_cuFuncGetAttribute (&value, (CUfunction_attribute) attribute, self->handle),
                           "cuFuncGetAttribute", error))
    return 0;
  return value;
}

/**
 * gcuda_function_set_attribute:
 * @self: a [class@GCuda.Function]
 * @attribute: a settable attribute
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets one of the kernel's settable attributes (`cuFuncSetAttribute`):
 * [GCUDA_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES][enum@GCuda.FunctionAttribute],
 * [GCUDA_FUNCTION_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT][enum@GCuda.FunctionAttribute],
 * the required cluster dimensions,
 * [GCUDA_FUNCTION_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED][enum@GCuda.FunctionAttribute]
 * and
 * [GCUDA_FUNCTION_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE][enum@GCuda.FunctionAttribute].
 * Others are the driver's
 * [GCUDA_DRIVER_ERROR_INVALID_VALUE][error@GCuda.DriverError].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_function_set_attribute (GCudaFunction           *self,
                              GCudaFunctionAttribute   attribute,
                              int                      value,
                              GError                 **error)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), FALSE);

  return function_check (self, error) && check_attribute (attribute, error) &&
         set_attribute (self, (CUfunction_attribute) attribute, value, error);
}

/**
 * gcuda_function_get_potential_block_size:
 * @self: a [class@GCuda.Function]
 * @dynamic_shared_bytes: dynamic shared memory per block the launches will use
 * @block_size_limit: the largest block size to consider, 0 for no limit
 * @min_grid_size: (out) (optional): the smallest grid that fills the device
 * @block_size: (out) (optional): the block size with the best occupancy
 * @error: return location for a [struct@GLib.Error]
 *
 * The driver's occupancy calculator (`cuOccupancyMaxPotentialBlockSize`):
 * the block size that keeps the most warps resident.
 *
 * On failure @error is set and the out values are 0.
 *
 * Since: 1.0
 */
void
gcuda_function_get_potential_block_size (GCudaFunction  *self,
                                         guint64         dynamic_shared_bytes,
                                         guint           block_size_limit,
                                         int            *min_grid_size,
                                         int            *block_size,
                                         GError        **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  int grid = 0, block = 0;

  if (min_grid_size != NULL)
    *min_grid_size = 0;
  if (block_size != NULL)
    *block_size = 0;

  g_return_if_fail (GCUDA_IS_FUNCTION (self));

  if (!function_check (self, error))
    return;
  if (dynamic_shared_bytes > G_MAXSIZE || block_size_limit > G_MAXINT)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Shared memory size or block size limit out of range"));
      return;
    }
  if (!_gcuda_context_enter (self->context, &scope, error))
    return;
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuOccupancyMaxPotentialBlockSize (&grid, &block, self->handle, NULL,
                                                                    dynamic_shared_bytes, (int) block_size_limit),
                    "cuOccupancyMaxPotentialBlockSize", error))
    return;
  if (min_grid_size != NULL)
    *min_grid_size = grid;
  if (block_size != NULL)
    *block_size = block;
}

/**
 * gcuda_function_get_num_regs: (get-property num-regs)
 * @self: a [class@GCuda.Function]
 *
 * Gets [property@GCuda.Function:num-regs].
 *
 * Returns: the registers per thread
 *
 * Since: 1.0
 */
int
gcuda_function_get_num_regs (GCudaFunction *self)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);
  return self->attrs[PROP_NUM_REGS - PROP_NUM_REGS];
}

/**
 * gcuda_function_get_shared_size_bytes: (get-property shared-size-bytes)
 * @self: a [class@GCuda.Function]
 *
 * Gets [property@GCuda.Function:shared-size-bytes].
 *
 * Returns: the static shared memory per block, in bytes
 *
 * Since: 1.0
 */
int
gcuda_function_get_shared_size_bytes (GCudaFunction *self)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);
  return self->attrs[PROP_SHARED_SIZE_BYTES - PROP_NUM_REGS];
}

/**
 * gcuda_function_get_const_size_bytes: (get-property const-size-bytes)
 * @self: a [class@GCuda.Function]
 *
 * Gets [property@GCuda.Function:const-size-bytes].
 *
 * Returns: the constant memory used, in bytes
 *
 * Since: 1.0
 */
int
gcuda_function_get_const_size_bytes (GCudaFunction *self)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);
  return self->attrs[PROP_CONST_SIZE_BYTES - PROP_NUM_REGS];
}

/**
 * gcuda_function_get_local_size_bytes: (get-property local-size-bytes)
 * @self: a [class@GCuda.Function]
 *
 * Gets [property@GCuda.Function:local-size-bytes].
 *
 * Returns: the local memory per thread, in bytes
 *
 * Since: 1.0
 */
int
gcuda_function_get_local_size_bytes (GCudaFunction *self)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);
  return self->attrs[PROP_LOCAL_SIZE_BYTES - PROP_NUM_REGS];
}

/**
 * gcuda_function_get_ptx_version: (get-property ptx-version)
 * @self: a [class@GCuda.Function]
 *
 * Gets [property@GCuda.Function:ptx-version].
 *
 * Returns: the PTX virtual architecture, as major × 10 + minor
 *
 * Since: 1.0
 */
int
gcuda_function_get_ptx_version (GCudaFunction *self)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);
  return self->attrs[PROP_PTX_VERSION - PROP_NUM_REGS];
}

/**
 * gcuda_function_get_binary_version: (get-property binary-version)
 * @self: a [class@GCuda.Function]
 *
 * Gets [property@GCuda.Function:binary-version].
 *
 * Returns: the binary architecture, as major × 10 + minor
 *
 * Since: 1.0
 */
int
gcuda_function_get_binary_version (GCudaFunction *self)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);
  return self->attrs[PROP_BINARY_VERSION - PROP_NUM_REGS];
}

/**
 * gcuda_function_get_max_dynamic_shared_size_bytes: (get-property max-dynamic-shared-size-bytes)
 * @self: a [class@GCuda.Function]
 *
 * Gets [property@GCuda.Function:max-dynamic-shared-size-bytes].
 *
 * Returns: the most dynamic shared memory a launch may ask for, in bytes
 *
 * Since: 1.0
 */
int
gcuda_function_get_max_dynamic_shared_size_bytes (GCudaFunction *self)
{
  g_return_val_if_fail (GCUDA_IS_FUNCTION (self), 0);
  return self->attrs[PROP_MAX_DYNAMIC_SHARED_SIZE_BYTES - PROP_NUM_REGS];
}
