/* gcuda-surface.c: surface objects
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-array-private.h"
#include "gcuda-context-private.h"

/**
 * GCudaSurface:
 *
 * A surface object (the driver's `CUsurfObject`; CUDA 12 removed the surface
 * references PyCUDA binds): read and write access from kernels to a
 * [class@GCuda.Array] made with
 * [GCUDA_ARRAY_FLAGS_SURFACE_LDST][flags@GCuda.ArrayFlags].
 *
 * ```c
 * static GCudaSurface *
 * make_writable_image (guint64 width, guint64 height, GError **error)
 * {
 *   g_autoptr(GCudaArrayDescriptor) descriptor =
 *     gcuda_array_descriptor_new (width, height, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1,
 *                                 GCUDA_ARRAY_FLAGS_SURFACE_LDST);
 *   g_autoptr(GCudaArray) array = gcuda_array_new (NULL, descriptor, error);
 *
 *   // a kernel takes gcuda_surface_get_handle() as a cudaSurfaceObject_t
 *   return array != NULL ? gcuda_surface_new (array, error) : NULL;
 * }
 * ```
 *
 * In Python:
 *
 * ```python
 * mod = GCuda.SourceModule('''
 * __global__ void fill(cudaSurfaceObject_t s, int w)
 * {
 *     int x = threadIdx.x, y = blockIdx.x;
 *     surf2Dwrite((float) (y * w + x), s, x * (int) sizeof(float), y);
 * }''')
 * array = GCuda.np_to_array(numpy.zeros((16, 32), numpy.float32), allow_surface_bind=True)
 * surf = GCuda.Surface.new(array)
 * mod.get_function('fill')(numpy.uint64(surf.props.handle), numpy.int32(32),
 *                          block=(32, 1, 1), grid=(16, 1))
 * assert (array.to_numpy() == numpy.arange(512).reshape(16, 32)).all()
 * ```
 *
 * Kernels take the surface as a `cudaSurfaceObject_t` parameter, a 64-bit
 * integer: pass [property@GCuda.Surface:handle] with
 * [method@GCuda.KernelArgs.add_uint64] and use `surf2Dread()`, `surf2Dwrite()`,
 * `surf3Dwrite()`, `surf2DLayeredwrite()` and so on, whose x coordinate is in
 * bytes.
 *
 * The surface keeps its array alive and is destroyed with its last
 * reference.
 *
 * Since: 1.0
 */

struct _GCudaSurface
{
  GObject parent_instance;

  GCudaArray *array;
  CUsurfObject handle;
};

G_DEFINE_FINAL_TYPE (GCudaSurface, gcuda_surface, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_HANDLE,
  PROP_ARRAY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
gcuda_surface_finalize (GObject *object)
{
  GCudaSurface *self = GCUDA_SURFACE (object);

  if (self->handle != 0 && self->array != NULL)
    GCUDA_CONTEXT_RELEASE (gcuda_array_get_context (self->array), GCUDA_DRV->fn_cuSurfObjectDestroy (self->handle));
  g_clear_object (&self->array);

  G_OBJECT_CLASS (gcuda_surface_parent_class)->finalize (object);
}

static void
gcuda_surface_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  GCudaSurface *self = GCUDA_SURFACE (object);

  switch (prop_id)
    {
    case PROP_HANDLE:
      g_value_set_uint64 (value, self->handle);
      break;
    case PROP_ARRAY:
      g_value_set_object (value, self->array);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_surface_class_init (GCudaSurfaceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags r = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_surface_finalize;
  object_class->get_property = gcuda_surface_get_property;

  /**
   * GCudaSurface:handle: (getter get_handle)
   *
   * The surface object, the value of a kernel's `cudaSurfaceObject_t`
   * parameter.
   *
   * Since: 1.0
   */
  properties[PROP_HANDLE] = g_param_spec_uint64 ("handle", NULL, NULL, 0, G_MAXUINT64, 0, r);

  /**
   * GCudaSurface:array: (getter get_array)
   *
   * The array the surface reads and writes.
   *
   * Since: 1.0
   */
  properties[PROP_ARRAY] = g_param_spec_object ("array", NULL, NULL, GCUDA_TYPE_ARRAY, r);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_surface_init (GCudaSurface *self)
{
}

/**
 * gcuda_surface_new:
 * @array: an array made with
 *   [GCUDA_ARRAY_FLAGS_SURFACE_LDST][flags@GCuda.ArrayFlags]
 * @error: return location for a [struct@GLib.Error]
 *
 * Creates a surface over a whole array (PyCUDA's
 * `SurfaceReference.set_array()`). An array without
 * [GCUDA_ARRAY_FLAGS_SURFACE_LDST][flags@GCuda.ArrayFlags] is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], a freed one
 * [GCUDA_ERROR_FREED][error@GCuda.Error], both before the driver is called.
 *
 * Returns: (transfer full): the surface, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaSurface *
gcuda_surface_new (GCudaArray  *array,
                   GError     **error)
{
  g_autoptr(GCudaArrayDescriptor) desc = NULL;
  CUDA_RESOURCE_DESC res = { 0 };
  CUsurfObject handle = 0;
  GCudaSurface *self;

  if (!_gcuda_array_check (array, error))
    return NULL;
  desc = gcuda_array_get_descriptor (array);
  if (!(desc->flags & GCUDA_ARRAY_FLAGS_SURFACE_LDST))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("A surface needs an array made with the SURFACE_LDST flag"));
      return NULL;
    }
  res.resType = CU_RESOURCE_TYPE_ARRAY;
  res.res.array.hArray = _gcuda_array_get_handle (array);
  if (!GCUDA_CONTEXT_CALL (gcuda_array_get_context (array), GCUDA_DRV->fn_cuSurfObjectCreate (&handle, &res),
                           "cuSurfObjectCreate", error))
    return NULL;

  self = g_object_new (GCUDA_TYPE_SURFACE, NULL);
  self->array = g_object_ref (array);
  self->handle = handle;
  return self;
}

/**
 * gcuda_surface_get_handle: (get-property handle)
 * @self: a [class@GCuda.Surface]
 *
 * Gets the surface object, the value a kernel takes as a `cudaSurfaceObject_t`
 * parameter.
 *
 * Returns: the surface object, to pass as a kernel's `cudaSurfaceObject_t`
 *
 * Since: 1.0
 */
guint64
gcuda_surface_get_handle (GCudaSurface *self)
{
  g_return_val_if_fail (GCUDA_IS_SURFACE (self), 0);
  return self->handle;
}

/**
 * gcuda_surface_get_array: (get-property array)
 * @self: a [class@GCuda.Surface]
 *
 * The array the surface reads and writes; the surface keeps it alive.
 *
 * Returns: (transfer none): the array the surface accesses
 *
 * Since: 1.0
 */
GCudaArray *
gcuda_surface_get_array (GCudaSurface *self)
{
  g_return_val_if_fail (GCUDA_IS_SURFACE (self), NULL);
  return self->array;
}
