/* gcuda-launch-config.c: how a kernel is launched (cuLaunchKernelEx)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-launch-config-private.h"

/**
 * GCudaLaunchConfig:
 *
 * A kernel launch's shape and attributes for
 * [method@GCuda.Function.launch_with_config]: grid, block, dynamic shared
 * memory and stream like [method@GCuda.Function.launch], plus what only
 * `cuLaunchKernelEx` offers: cooperative launches (the whole grid resident at
 * once, so `cooperative_groups::this_grid().sync()` works) and thread block
 * clusters (compute capability 9.0 and later).
 *
 * ```c
 * static gboolean
 * launch_in_clusters (GCudaFunction *kernel, GCudaKernelArgs *args, GCudaStream *stream,
 *                     GError **error)
 * {
 *   g_autoptr(GCudaLaunchConfig) config = gcuda_launch_config_new ();
 *
 *   gcuda_launch_config_set_grid (config, 128, 1, 1);
 *   gcuda_launch_config_set_block (config, 256, 1, 1);
 *   gcuda_launch_config_set_cluster (config, 2, 1, 1);
 *   gcuda_launch_config_set_stream (config, stream);
 *   return gcuda_function_launch_with_config (kernel, config, args, error);
 * }
 * ```
 *
 * In Python, where kernels are otherwise called with their arguments, a
 * configured launch takes a [class@GCuda.KernelArgs]:
 *
 * ```python
 * mod = GCuda.SourceModule('''
 * __global__ void fill(int *out)
 * {
 *     out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x;
 * }''')
 * sms = GCuda.Context.get_default().get_device().get_multiprocessor_count()
 * out = GCuda.mem_alloc(sms * 256 * 4)
 * config = GCuda.LaunchConfig.new()
 * config.set_grid(sms, 1, 1)  # one block per multiprocessor: all resident at once
 * config.set_block(256, 1, 1)
 * config.props.cooperative = True
 * args = GCuda.KernelArgs.new()
 * args.add_buffer(out)
 * mod.get_function('fill').launch_with_config(config, args)
 * ```
 *
 * A configuration can be reused for any number of launches; it starts as
 * one block of one thread on the legacy default stream.
 *
 * Since: 1.0
 */

struct _GCudaLaunchConfig
{
  GObject parent_instance;

  guint grid[3];
  guint block[3];
  guint cluster[3];      /* all 0: no cluster attribute */
  guint shared_bytes;
  GCudaStream *stream;
  gboolean cooperative;
};

G_DEFINE_FINAL_TYPE (GCudaLaunchConfig, gcuda_launch_config, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_SHARED_BYTES,
  PROP_STREAM,
  PROP_COOPERATIVE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
gcuda_launch_config_dispose (GObject *object)
{
  GCudaLaunchConfig *self = GCUDA_LAUNCH_CONFIG (object);

  g_clear_object (&self->stream);

  G_OBJECT_CLASS (gcuda_launch_config_parent_class)->dispose (object);
}

static void
gcuda_launch_config_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  GCudaLaunchConfig *self = GCUDA_LAUNCH_CONFIG (object);

  switch (prop_id)
    {
    case PROP_SHARED_BYTES:
      g_value_set_uint (value, self->shared_bytes);
      break;
    case PROP_STREAM:
      g_value_set_object (value, self->stream);
      break;
    case PROP_COOPERATIVE:
      g_value_set_boolean (value, self->cooperative);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_launch_config_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  GCudaLaunchConfig *self = GCUDA_LAUNCH_CONFIG (object);

  switch (prop_id)
    {
    case PROP_SHARED_BYTES:
      gcuda_launch_config_set_shared_bytes (self, g_value_get_uint (value));
      break;
    case PROP_STREAM:
      gcuda_launch_config_set_stream (self, g_value_get_object (value));
      break;
    case PROP_COOPERATIVE:
      gcuda_launch_config_set_cooperative (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_launch_config_class_init (GCudaLaunchConfigClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->dispose = gcuda_launch_config_dispose;
  object_class->get_property = gcuda_launch_config_get_property;
  object_class->set_property = gcuda_launch_config_set_property;

  /**
   * GCudaLaunchConfig:shared-bytes: (setter set_shared_bytes) (getter get_shared_bytes)
   *
   * Dynamic shared memory per block, in bytes.
   *
   * Since: 1.0
   */
  properties[PROP_SHARED_BYTES] =
    g_param_spec_uint ("shared-bytes", NULL, NULL, 0, G_MAXUINT, 0, rw);

  /**
   * GCudaLaunchConfig:stream: (setter set_stream) (getter get_stream)
   *
   * The stream, or %NULL for the legacy default stream.
   *
   * Since: 1.0
   */
  properties[PROP_STREAM] =
    g_param_spec_object ("stream", NULL, NULL, GCUDA_TYPE_STREAM, rw);

  /**
   * GCudaLaunchConfig:cooperative: (setter set_cooperative) (getter get_cooperative)
   *
   * Whether the launch is cooperative: all blocks run at once and may
   * synchronize with each other. The grid must fit on the device at once (see
   * [method@GCuda.Function.get_max_active_blocks_per_multiprocessor]), or the
   * launch fails with
   * [GCUDA_DRIVER_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE][error@GCuda.DriverError].
   *
   * Since: 1.0
   */
  properties[PROP_COOPERATIVE] =
    g_param_spec_boolean ("cooperative", NULL, NULL, FALSE, rw);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_launch_config_init (GCudaLaunchConfig *self)
{
  self->grid[0] = self->grid[1] = self->grid[2] = 1;
  self->block[0] = self->block[1] = self->block[2] = 1;
}

/**
 * gcuda_launch_config_new:
 *
 * Creates a launch configuration for a grid of one block of one thread, without
 * dynamic shared memory, on the legacy default stream.
 *
 * Returns: (transfer full): a configuration for one block of one thread
 *
 * Since: 1.0
 */
GCudaLaunchConfig *
gcuda_launch_config_new (void)
{
  return g_object_new (GCUDA_TYPE_LAUNCH_CONFIG, NULL);
}

static void
set3 (guint v[3], guint x, guint y, guint z)
{
  v[0] = x;
  v[1] = y;
  v[2] = z;
}

static void
get3 (const guint v[3], guint *x, guint *y, guint *z)
{
  if (x != NULL)
    *x = v[0];
  if (y != NULL)
    *y = v[1];
  if (z != NULL)
    *z = v[2];
}

/**
 * gcuda_launch_config_set_grid:
 * @self: a [class@GCuda.LaunchConfig]
 * @x: blocks in x
 * @y: blocks in y
 * @z: blocks in z
 *
 * Sets the grid. With a cluster, each dimension must be a multiple of the
 * cluster's. Zero dimensions are refused at launch.
 *
 * Since: 1.0
 */
void
gcuda_launch_config_set_grid (GCudaLaunchConfig *self,
                              guint              x,
                              guint              y,
                              guint              z)
{
  g_return_if_fail (GCUDA_IS_LAUNCH_CONFIG (self));
  set3 (self->grid, x, y, z);
}

/**
 * gcuda_launch_config_get_grid:
 * @self: a [class@GCuda.LaunchConfig]
 * @x: (out) (optional): blocks in x
 * @y: (out) (optional): blocks in y
 * @z: (out) (optional): blocks in z
 *
 * Gets the grid.
 *
 * Since: 1.0
 */
void
gcuda_launch_config_get_grid (GCudaLaunchConfig *self,
                              guint             *x,
                              guint             *y,
                              guint             *z)
{
  g_return_if_fail (GCUDA_IS_LAUNCH_CONFIG (self));
  get3 (self->grid, x, y, z);
}

/**
 * gcuda_launch_config_set_block:
 * @self: a [class@GCuda.LaunchConfig]
 * @x: threads per block in x
 * @y: threads per block in y
 * @z: threads per block in z
 *
 * Sets the block shape.
 *
 * Since: 1.0
 */
void
gcuda_launch_config_set_block (GCudaLaunchConfig *self,
                               guint              x,
                               guint              y,
                               guint              z)
{
  g_return_if_fail (GCUDA_IS_LAUNCH_CONFIG (self));
  set3 (self->block, x, y, z);
}

/**
 * gcuda_launch_config_get_block:
 * @self: a [class@GCuda.LaunchConfig]
 * @x: (out) (optional): threads per block in x
 * @y: (out) (optional): threads per block in y
 * @z: (out) (optional): threads per block in z
 *
 * Gets the block shape.
 *
 * Since: 1.0
 */
void
gcuda_launch_config_get_block (GCudaLaunchConfig *self,
                               guint             *x,
                               guint             *y,
                               guint             *z)
{
  g_return_if_fail (GCUDA_IS_LAUNCH_CONFIG (self));
  get3 (self->block, x, y, z);
}

/**
 * gcuda_launch_config_set_cluster:
 * @self: a [class@GCuda.LaunchConfig]
 * @x: blocks per cluster in x
 * @y: blocks per cluster in y
 * @z: blocks per cluster in z
 *
 * Groups blocks into thread block clusters (compute capability 9.0 and
 * later), whose blocks share distributed shared memory. All zeros (the
 * default) launches without clusters; otherwise each dimension must be at
 * least 1. Portable cluster sizes are at most 8 blocks.
 *
 * Since: 1.0
 */
void
gcuda_launch_config_set_cluster (GCudaLaunchConfig *self,
                                 guint              x,
                                 guint              y,
                                 guint              z)
{
  g_return_if_fail (GCUDA_IS_LAUNCH_CONFIG (self));
  set3 (self->cluster, x, y, z);
}

/**
 * gcuda_launch_config_get_cluster:
 * @self: a [class@GCuda.LaunchConfig]
 * @x: (out) (optional): blocks per cluster in x
 * @y: (out) (optional): blocks per cluster in y
 * @z: (out) (optional): blocks per cluster in z
 *
 * Gets the cluster shape; all zeros when clusters are not used.
 *
 * Since: 1.0
 */
void
gcuda_launch_config_get_cluster (GCudaLaunchConfig *self,
                                 guint             *x,
                                 guint             *y,
                                 guint             *z)
{
  g_return_if_fail (GCUDA_IS_LAUNCH_CONFIG (self));
  get3 (self->cluster, x, y, z);
}

/**
 * gcuda_launch_config_set_shared_bytes: (set-property shared-bytes)
 * @self: a [class@GCuda.LaunchConfig]
 * @bytes: dynamic shared memory per block
 *
 * Sets [property@GCuda.LaunchConfig:shared-bytes].
 *
 * Since: 1.0
 */
void
gcuda_launch_config_set_shared_bytes (GCudaLaunchConfig *self,
                                      guint              bytes)
{
  g_return_if_fail (GCUDA_IS_LAUNCH_CONFIG (self));
  if (self->shared_bytes == bytes)
    return;
  self->shared_bytes = bytes;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHARED_BYTES]);
}

/**
 * gcuda_launch_config_get_shared_bytes: (get-property shared-bytes)
 * @self: a [class@GCuda.LaunchConfig]
 *
 * Gets the dynamic shared memory per block, in bytes.
 *
 * Returns: the dynamic shared memory per block
 *
 * Since: 1.0
 */
guint
gcuda_launch_config_get_shared_bytes (GCudaLaunchConfig *self)
{
  g_return_val_if_fail (GCUDA_IS_LAUNCH_CONFIG (self), 0);
  return self->shared_bytes;
}

/**
 * gcuda_launch_config_set_stream: (set-property stream)
 * @self: a [class@GCuda.LaunchConfig]
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 *
 * Sets [property@GCuda.LaunchConfig:stream].
 *
 * Since: 1.0
 */
void
gcuda_launch_config_set_stream (GCudaLaunchConfig *self,
                                GCudaStream       *stream)
{
  g_return_if_fail (GCUDA_IS_LAUNCH_CONFIG (self));
  g_return_if_fail (stream == NULL || GCUDA_IS_STREAM (stream));
  if (g_set_object (&self->stream, stream))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STREAM]);
}

/**
 * gcuda_launch_config_get_stream: (get-property stream)
 * @self: a [class@GCuda.LaunchConfig]
 *
 * Gets the stream the kernel is launched on.
 *
 * Returns: (transfer none) (nullable): the stream, %NULL for the legacy
 *   default stream
 *
 * Since: 1.0
 */
GCudaStream *
gcuda_launch_config_get_stream (GCudaLaunchConfig *self)
{
  g_return_val_if_fail (GCUDA_IS_LAUNCH_CONFIG (self), NULL);
  return self->stream;
}

/**
 * gcuda_launch_config_set_cooperative: (set-property cooperative)
 * @self: a [class@GCuda.LaunchConfig]
 * @cooperative: whether the launch is cooperative
 *
 * Sets [property@GCuda.LaunchConfig:cooperative].
 *
 * Since: 1.0
 */
void
gcuda_launch_config_set_cooperative (GCudaLaunchConfig *self,
                                     gboolean           cooperative)
{
  g_return_if_fail (GCUDA_IS_LAUNCH_CONFIG (self));
  cooperative = !!cooperative;
  if (self->cooperative == cooperative)
    return;
  self->cooperative = cooperative;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COOPERATIVE]);
}

/**
 * gcuda_launch_config_get_cooperative: (get-property cooperative)
 * @self: a [class@GCuda.LaunchConfig]
 *
 * Gets whether the launch is cooperative.
 *
 * Returns: whether the launch is cooperative
 *
 * Since: 1.0
 */
gboolean
gcuda_launch_config_get_cooperative (GCudaLaunchConfig *self)
{
  g_return_val_if_fail (GCUDA_IS_LAUNCH_CONFIG (self), FALSE);
  return self->cooperative;
}

void
_gcuda_launch_config_get (GCudaLaunchConfig  *self,
                          const guint       **grid,
                          const guint       **block,
                          const guint       **cluster,
                          guint              *shared_bytes,
                          GCudaStream       **stream,
                          gboolean           *cooperative)
{
  *grid = self->grid;
  *block = self->block;
  *cluster = self->cluster;
  *shared_bytes = self->shared_bytes;
  *stream = self->stream;
  *cooperative = self->cooperative;
}
