/* gcuda-texture.c: texture objects
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-array-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-context-private.h"

/**
 * GCudaTexture:
 *
 * A texture object (the driver's `CUtexObject`; CUDA 12 removed the texture
 * references PyCUDA binds): read-only, cached, optionally filtered access to a
 * [class@GCuda.Array] ([ctor@GCuda.Texture.new_from_array]), a linear device
 * buffer ([ctor@GCuda.Texture.new_from_buffer]) or a pitched 2D buffer
 * ([ctor@GCuda.Texture.new_from_pitched]).
 *
 * ```c
 * static GCudaTexture *
 * make_filtered_texture (GCudaArray *array, GError **error)
 * {
 *   g_autoptr(GCudaTextureDescriptor) descriptor = gcuda_texture_descriptor_new ();
 *
 *   descriptor->filter_mode = GCUDA_FILTER_MODE_LINEAR;
 *   descriptor->flags = GCUDA_TEXTURE_FLAGS_NORMALIZED_COORDINATES;
 *   gcuda_texture_descriptor_set_address_mode (descriptor, GCUDA_ADDRESS_MODE_WRAP);
 *   // a kernel takes gcuda_texture_get_handle() as a cudaTextureObject_t:
 *   // gcuda_kernel_args_add_uint64 (args, gcuda_texture_get_handle (texture))
 *   return gcuda_texture_new_from_array (array, descriptor, error);
 * }
 * ```
 *
 * In Python, `make_texture()` makes the array and the texture in one call:
 *
 * ```python
 * mod = GCuda.SourceModule('''
 * __global__ void sample(float *out, cudaTextureObject_t tex, int w)
 * {
 *     int x = threadIdx.x, y = blockIdx.x;
 *     out[y * w + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
 * }''')
 * image = numpy.random.rand(32, 64).astype(numpy.float32)
 * tex = GCuda.make_texture(image)
 * out = numpy.zeros_like(image)
 * mod.get_function('sample')(GCuda.Out(out), numpy.uint64(tex.props.handle), numpy.int32(64),
 *                            block=(64, 1, 1), grid=(32, 1))
 * assert (out == image).all()
 * ```
 *
 * Kernels take the texture as a `cudaTextureObject_t` parameter, a 64-bit
 * integer: pass [property@GCuda.Texture:handle] with
 * [method@GCuda.KernelArgs.add_uint64] (`'Q'` in Python's struct notation) and
 * read with `tex1Dfetch<T>()`, `tex2D<T>()`, `tex3D<T>()` or
 * `tex2DLayered<T>()`, which NVRTC knows without includes.
 *
 * The texture keeps its array or buffer alive and is destroyed with its
 * last reference. An array or buffer freed explicitly while a texture
 * reads it makes the reads undefined; one freed before is
 * [GCUDA_ERROR_FREED][error@GCuda.Error].
 *
 * Since: 1.0
 */

struct _GCudaTexture
{
  GObject parent_instance;

  GCudaContext *context;
  GCudaArray *array;     /* the source, one of two (kept alive) */
  GCudaBuffer *buffer;
  CUtexObject handle;
};

G_DEFINE_FINAL_TYPE (GCudaTexture, gcuda_texture, G_TYPE_OBJECT)

G_DEFINE_BOXED_TYPE (GCudaTextureDescriptor, gcuda_texture_descriptor,
                     gcuda_texture_descriptor_copy, gcuda_texture_descriptor_free)

enum {
  PROP_0,
  PROP_HANDLE,
  PROP_CONTEXT,
  PROP_ARRAY,
  PROP_BUFFER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ------------------------------------------------------------ GCudaTextureDescriptor */

/**
 * gcuda_texture_descriptor_new:
 *
 * Creates a texture descriptor: clamped addressing in every dimension,
 * point filtering, no flags.
 *
 * Returns: (transfer full): the new descriptor
 *
 * Since: 1.0
 */
GCudaTextureDescriptor *
gcuda_texture_descriptor_new (void)
{
  GCudaTextureDescriptor *self = g_new0 (GCudaTextureDescriptor, 1);

  gcuda_texture_descriptor_set_address_mode (self, GCUDA_ADDRESS_MODE_CLAMP);
  self->filter_mode = GCUDA_FILTER_MODE_POINT;
  self->flags = GCUDA_TEXTURE_FLAGS_NONE;
  return self;
}

/**
 * gcuda_texture_descriptor_copy:
 * @self: a [struct@GCuda.TextureDescriptor]
 *
 * Copies a descriptor.
 *
 * Returns: (transfer full): the copy
 *
 * Since: 1.0
 */
GCudaTextureDescriptor *
gcuda_texture_descriptor_copy (const GCudaTextureDescriptor *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return g_memdup2 (self, sizeof *self);
}

/**
 * gcuda_texture_descriptor_free:
 * @self: (nullable): a [struct@GCuda.TextureDescriptor]
 *
 * Frees a descriptor.
 *
 * Since: 1.0
 */
void
gcuda_texture_descriptor_free (GCudaTextureDescriptor *self)
{
  g_free (self);
}

/**
 * gcuda_texture_descriptor_set_address_mode:
 * @self: a [struct@GCuda.TextureDescriptor]
 * @mode: the address mode
 *
 * Sets the address mode of all three dimensions (PyCUDA's
 * `set_address_mode()` for every dimension).
 *
 * Since: 1.0
 */
void
gcuda_texture_descriptor_set_address_mode (GCudaTextureDescriptor *self,
                                           GCudaAddressMode        mode)
{
  g_return_if_fail (self != NULL);
  self->address_mode_x = self->address_mode_y = self->address_mode_z = mode;
}

static gboolean
descriptor_to_driver (const GCudaTextureDescriptor  *desc,
                      CUDA_TEXTURE_DESC             *out,
                      GError                       **error)
{
  const guint known = GCUDA_TEXTURE_FLAGS_READ_AS_INTEGER | GCUDA_TEXTURE_FLAGS_NORMALIZED_COORDINATES |
                      GCUDA_TEXTURE_FLAGS_SRGB;
  g_autoptr(GCudaTextureDescriptor) fallback = NULL;

  if (desc == NULL)
    desc = fallback = gcuda_texture_descriptor_new ();

  memset (out, 0, sizeof *out);
  out->addressMode[0] = (CUaddress_mode) desc->address_mode_x;
  out->addressMode[1] = (CUaddress_mode) desc->address_mode_y;
  out->addressMode[2] = (CUaddress_mode) desc->address_mode_z;
  for (guint i = 0; i < 3; i++)
    if ((guint) out->addressMode[i] > GCUDA_ADDRESS_MODE_BORDER)
      {
        g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                     _("%d is not a GCuda.AddressMode (dimension %u)"), (int) out->addressMode[i], i);
        return FALSE;
      }
  if ((guint) desc->filter_mode > GCUDA_FILTER_MODE_LINEAR)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%d is not a GCuda.FilterMode"), (int) desc->filter_mode);
      return FALSE;
    }
  if ((desc->flags & ~known) != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown texture flags 0x%x"), (guint) (desc->flags & ~known));
      return FALSE;
    }
  out->filterMode = (CUfilter_mode) desc->filter_mode;
  out->flags = desc->flags;
  return TRUE;
}

/* ------------------------------------------------------------ GCudaTexture */

static void
gcuda_texture_finalize (GObject *object)
{
  GCudaTexture *self = GCUDA_TEXTURE (object);

  if (self->handle != 0 && self->context != NULL)
    GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuTexObjectDestroy (self->handle));
  g_clear_object (&self->array);
  g_clear_object (&self->buffer);
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_texture_parent_class)->finalize (object);
}

static void
gcuda_texture_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  GCudaTexture *self = GCUDA_TEXTURE (object);

  switch (prop_id)
    {
    case PROP_HANDLE:
      g_value_set_uint64 (value, self->handle);
      break;
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_ARRAY:
      g_value_set_object (value, self->array);
      break;
    case PROP_BUFFER:
      g_value_set_object (value, self->buffer);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_texture_class_init (GCudaTextureClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags r = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_texture_finalize;
  object_class->get_property = gcuda_texture_get_property;

  /**
   * GCudaTexture:handle: (getter get_handle)
   *
   * The texture object, the value of a kernel's `cudaTextureObject_t`
   * parameter.
   *
   * Since: 1.0
   */
  properties[PROP_HANDLE] = g_param_spec_uint64 ("handle", NULL, NULL, 0, G_MAXUINT64, 0, r);

  /**
   * GCudaTexture:context: (getter get_context)
   *
   * The context of the texture's memory.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT, r);

  /**
   * GCudaTexture:array: (getter get_array)
   *
   * The array the texture reads, or %NULL for a buffer texture.
   *
   * Since: 1.0
   */
  properties[PROP_ARRAY] = g_param_spec_object ("array", NULL, NULL, GCUDA_TYPE_ARRAY, r);

  /**
   * GCudaTexture:buffer: (getter get_buffer)
   *
   * The buffer the texture reads, or %NULL for an array texture.
   *
   * Since: 1.0
   */
  properties[PROP_BUFFER] = g_param_spec_object ("buffer", NULL, NULL, GCUDA_TYPE_BUFFER, r);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_texture_init (GCudaTexture *self)
{
}

static GCudaTexture *
texture_create (GCudaContext                  *context,
                GCudaArray                    *array,
                GCudaBuffer                   *buffer,
                const CUDA_RESOURCE_DESC      *res,
                const GCudaTextureDescriptor  *descriptor,
                GError                       **error)
{
  CUDA_TEXTURE_DESC tex;
  CUtexObject handle = 0;
  GCudaTexture *self;

  if (!descriptor_to_driver (descriptor, &tex, error))
    return NULL;
  if (gcuda_context_is_destroyed (context))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED,
                           _("The context of the texture's memory was destroyed"));
      return NULL;
    }
  if (!GCUDA_CONTEXT_CALL (context, GCUDA_DRV->fn_cuTexObjectCreate (&handle, res, &tex, NULL),
                           "cuTexObjectCreate", error))
    return NULL;

  self = g_object_new (GCUDA_TYPE_TEXTURE, NULL);
  self->context = g_object_ref (context);
  self->array = array != NULL ? g_object_ref (array) : NULL;
  self->buffer = buffer != NULL ? g_object_ref (buffer) : NULL;
  self->handle = handle;
  return self;
}

/**
 * gcuda_texture_new_from_array:
 * @array: the array to read
 * @descriptor: (nullable): how to read, or %NULL for
 *   [ctor@GCuda.TextureDescriptor.new]'s defaults
 * @error: return location for a [struct@GLib.Error]
 *
 * Creates a texture over a whole array (PyCUDA's
 * `TextureReference.set_array()`); the element type is the array's. A freed
 * array is [GCUDA_ERROR_FREED][error@GCuda.Error]; an invalid mode or flag is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: (transfer full): the texture, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaTexture *
gcuda_texture_new_from_array (GCudaArray                    *array,
                              const GCudaTextureDescriptor  *descriptor,
                              GError                       **error)
{
  CUDA_RESOURCE_DESC res = { 0 };

  if (!_gcuda_array_check (array, error))
    return NULL;
  res.resType = CU_RESOURCE_TYPE_ARRAY;
  res.res.array.hArray = _gcuda_array_get_handle (array);
  return texture_create (gcuda_array_get_context (array), array, NULL, &res, descriptor, error);
}

static gboolean
check_buffer (GCudaBuffer       *buffer,
              GCudaArrayFormat   format,
              guint              num_channels,
              GError           **error)
{
  if (!GCUDA_IS_BUFFER (buffer))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.Buffer"));
      return FALSE;
    }
  /* made by hand (no memory, no context): INVALID_ARGUMENT; freed: FREED */
  if (!_gcuda_buffer_check (buffer, error))
    {
      g_prefix_error (error, _("Cannot make a texture over the buffer: "));
      return FALSE;
    }
  return _gcuda_array_format_check (format, num_channels, error);
}

/**
 * gcuda_texture_new_from_buffer:
 * @buffer: the device buffer to read, whole
 * @format: the type of each channel
 * @num_channels: the number of channels per element: 1, 2 or 4
 * @descriptor: (nullable): how to read, or %NULL for the defaults
 * @error: return location for a [struct@GLib.Error]
 *
 * Creates a 1D texture over linear memory (PyCUDA's
 * `TextureReference.set_address()`), read with `tex1Dfetch<T>()` at integer
 * indices; address and filter modes do not apply. The buffer's size must be a
 * whole number of elements (else
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]) and its address aligned as
 * the device requires ([class@GCuda.Device]'s texture alignment, else the
 * driver's [GCUDA_DRIVER_ERROR_INVALID_VALUE][error@GCuda.DriverError]). A
 * freed buffer is [GCUDA_ERROR_FREED][error@GCuda.Error].
 *
 * Returns: (transfer full): the texture, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaTexture *
gcuda_texture_new_from_buffer (GCudaBuffer                   *buffer,
                               GCudaArrayFormat               format,
                               guint                          num_channels,
                               const GCudaTextureDescriptor  *descriptor,
                               GError                       **error)
{
  CUDA_RESOURCE_DESC res = { 0 };
  guint64 size, element;

  if (!check_buffer (buffer, format, num_channels, error))
    return NULL;
  size = gcuda_buffer_get_size (buffer);
  element = (guint64) _gcuda_array_format_size (format) * num_channels;
  if (size % element != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The buffer's %" PRIu64 " bytes are not a whole number of %"
                     PRIu64 "-byte elements"),
                   size, element);
      return NULL;
    }
  res.resType = CU_RESOURCE_TYPE_LINEAR;
  res.res.linear.devPtr = (CUdeviceptr) gcuda_buffer_get_address (buffer);
  res.res.linear.format = (CUarray_format) format;
  res.res.linear.numChannels = num_channels;
  res.res.linear.sizeInBytes = size;
  return texture_create (gcuda_buffer_get_context (buffer), NULL, buffer, &res, descriptor, error);
}

/**
 * gcuda_texture_new_from_pitched:
 * @buffer: the device buffer to read, typically from
 *   [ctor@GCuda.Buffer.new_pitched]
 * @format: the type of each channel
 * @num_channels: the number of channels per element: 1, 2 or 4
 * @width: the width in elements, at least 1
 * @height: the height in rows, at least 1
 * @pitch: the distance between rows in bytes, or 0 for the buffer's
 *   [property@GCuda.Buffer:pitch]
 * @descriptor: (nullable): how to read, or %NULL for the defaults
 * @error: return location for a [struct@GLib.Error]
 *
 * Creates a 2D texture over pitched linear memory (PyCUDA's
 * `TextureReference.set_address_2d()`), read with `tex2D<T>()`. The rows must
 * fit the pitch and the buffer (else
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error] or
 * [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error]); the driver requires the
 * device's pitch alignment.
 *
 * Returns: (transfer full): the texture, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaTexture *
gcuda_texture_new_from_pitched (GCudaBuffer                   *buffer,
                                GCudaArrayFormat               format,
                                guint                          num_channels,
                                guint64                        width,
                                guint64                        height,
                                guint64                        pitch,
                                const GCudaTextureDescriptor  *descriptor,
                                GError                       **error)
{
  CUDA_RESOURCE_DESC res = { 0 };
  guint64 row, end;

  if (!check_buffer (buffer, format, num_channels, error))
    return NULL;
  if (pitch == 0)
    pitch = gcuda_buffer_get_pitch (buffer);
  if (width == 0 || height == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("A pitched texture needs a width and a height of at least 1"));
      return NULL;
    }
  if (!g_uint64_checked_mul (&row, width, (guint64) _gcuda_array_format_size (format) * num_channels) ||
      row > pitch)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Rows of %" PRIu64 " elements do not fit a pitch of %" PRIu64 " bytes"),
                   width, pitch);
      return NULL;
    }
  if (!g_uint64_checked_mul (&end, height - 1, pitch) || !g_uint64_checked_add (&end, end, row) ||
      end > gcuda_buffer_get_size (buffer))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS,
                   _("%" PRIu64 " rows with a pitch of %" PRIu64
                     " bytes reach outside the buffer of %" PRIu64 " bytes"),
                   height, pitch, gcuda_buffer_get_size (buffer));
      return NULL;
    }
  res.resType = CU_RESOURCE_TYPE_PITCH2D;
  res.res.pitch2D.devPtr = (CUdeviceptr) gcuda_buffer_get_address (buffer);
  res.res.pitch2D.format = (CUarray_format) format;
  res.res.pitch2D.numChannels = num_channels;
  res.res.pitch2D.width = width;
  res.res.pitch2D.height = height;
  res.res.pitch2D.pitchInBytes = pitch;
  return texture_create (gcuda_buffer_get_context (buffer), NULL, buffer, &res, descriptor, error);
}

/**
 * gcuda_texture_get_handle: (get-property handle)
 * @self: a [class@GCuda.Texture]
 *
 * Gets the texture object, the value a kernel takes as a `cudaTextureObject_t`
 * parameter.
 *
 * Returns: the texture object, to pass as a kernel's `cudaTextureObject_t`
 *
 * Since: 1.0
 */
guint64
gcuda_texture_get_handle (GCudaTexture *self)
{
  g_return_val_if_fail (GCUDA_IS_TEXTURE (self), 0);
  return self->handle;
}

/**
 * gcuda_texture_get_context: (get-property context)
 * @self: a [class@GCuda.Texture]
 *
 * Gets the context of the texture's memory.
 *
 * Returns: (transfer none): the context of the texture's memory
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_texture_get_context (GCudaTexture *self)
{
  g_return_val_if_fail (GCUDA_IS_TEXTURE (self), NULL);
  return self->context;
}

/**
 * gcuda_texture_get_array: (get-property array)
 * @self: a [class@GCuda.Texture]
 *
 * The array a texture made by [ctor@GCuda.Texture.new_from_array] reads; the
 * texture keeps it alive.
 *
 * Returns: (transfer none) (nullable): the array read, or %NULL
 *
 * Since: 1.0
 */
GCudaArray *
gcuda_texture_get_array (GCudaTexture *self)
{
  g_return_val_if_fail (GCUDA_IS_TEXTURE (self), NULL);
  return self->array;
}

/**
 * gcuda_texture_get_buffer: (get-property buffer)
 * @self: a [class@GCuda.Texture]
 *
 * Gets the buffer a texture made from a buffer reads.
 *
 * Returns: (transfer none) (nullable): the buffer read, or %NULL
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_texture_get_buffer (GCudaTexture *self)
{
  g_return_val_if_fail (GCUDA_IS_TEXTURE (self), NULL);
  return self->buffer;
}
