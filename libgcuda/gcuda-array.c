/* gcuda-array.c: CUDA arrays, the storage of textures and surfaces
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-array-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-context-private.h"
#include "gcuda-stream-private.h"

/**
 * GCudaArray:
 *
 * Opaque device memory laid out for texture and surface access (PyCUDA's
 * `Array`, the driver's `CUarray`): 1D, 2D or 3D, layered or cubemap, made
 * from a [struct@GCuda.ArrayDescriptor] with [ctor@GCuda.Array.new].
 *
 * ```c
 * static GCudaArray *
 * upload_image (const float *pixels, guint64 width, guint64 height, GError **error)
 * {
 *   g_autoptr(GCudaArrayDescriptor) descriptor =
 *     gcuda_array_descriptor_new (width, height, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1,
 *                                 GCUDA_ARRAY_FLAGS_NONE);
 *   g_autoptr(GCudaArray) array = gcuda_array_new (NULL, descriptor, error);
 *
 *   if (array == NULL ||
 *       !gcuda_array_upload (array, 0, (const guint8 *) pixels,
 *                            width * height * sizeof (float), error))
 *     return NULL;
 *   return g_steal_pointer (&array);
 * }
 * ```
 *
 * In Python, PyCUDA's helpers make arrays from numpy data:
 *
 * ```python
 * image = numpy.random.rand(480, 640).astype(numpy.float32)
 * array = GCuda.np_to_array(image)  # 640 × 480: tex2D(t, x, y) reads image[y, x]
 * assert (array.to_numpy() == image).all()
 * ```
 *
 * Arrays have no address: data goes in and out by copies, with the arguments
 * of the [class@GCuda.Buffer] methods of the same names (an offset and a size
 * in bytes, the other side's offset after it): from and to tightly packed host
 * memory ([method@GCuda.Array.upload], [method@GCuda.Array.download]), device
 * buffers ([method@GCuda.Array.copy_from_buffer],
 * [method@GCuda.Array.copy_to_buffer]) and other arrays
 * ([method@GCuda.Array.copy_from_array]), as PyCUDA's `memcpy_htoa()`,
 * `memcpy_atoh()`, `memcpy_dtoa()`, `memcpy_atod()` and `memcpy_atoa()`. In
 * the packed layout, x (the width) varies fastest, then y, then z (or the
 * layer). Any array is copied as a whole (offset 0,
 * [method@GCuda.Array.get_size] bytes), a byte range of it only if it is 1D;
 * part of a 2D or 3D array is copied with [class@GCuda.Copy2D] and
 * [class@GCuda.Copy3D] ([method@GCuda.Copy3D.set_src_array]).
 *
 * The array is destroyed when the last reference goes, or at once with
 * [method@GCuda.Array.free]; every later use is
 * [GCUDA_ERROR_FREED][error@GCuda.Error]. Textures and surfaces keep their
 * array alive, but do not free an array that a texture or surface still reads.
 * An array holds a reference to its context and may be used from any thread.
 *
 * Since: 1.0
 */

struct _GCudaArray
{
  GObject parent_instance;

  GCudaContext *context;
  CUarray handle;
  GCudaArrayDescriptor desc;
  int freed;             /* atomic */
  gboolean graphics;     /* a mapped graphics resource's: never destroyed by
                          * GCuda, retired (freed) at the unmap */
};

G_DEFINE_FINAL_TYPE (GCudaArray, gcuda_array, G_TYPE_OBJECT)

G_DEFINE_BOXED_TYPE (GCudaArrayDescriptor, gcuda_array_descriptor,
                     gcuda_array_descriptor_copy, gcuda_array_descriptor_free)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_DESCRIPTOR,
  PROP_SIZE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ------------------------------------------------------------ formats */

guint
_gcuda_array_format_size (GCudaArrayFormat format)
{
  switch (format)
    {
    case GCUDA_ARRAY_FORMAT_UNSIGNED_INT8:
    case GCUDA_ARRAY_FORMAT_SIGNED_INT8:
      return 1;
    case GCUDA_ARRAY_FORMAT_UNSIGNED_INT16:
    case GCUDA_ARRAY_FORMAT_SIGNED_INT16:
    case GCUDA_ARRAY_FORMAT_HALF:
      return 2;
    case GCUDA_ARRAY_FORMAT_UNSIGNED_INT32:
    case GCUDA_ARRAY_FORMAT_SIGNED_INT32:
    case GCUDA_ARRAY_FORMAT_FLOAT:
      return 4;
    }
  return 0;
}

gboolean
_gcuda_array_format_check (GCudaArrayFormat   format,
                           guint              num_channels,
                           GError           **error)
{
  if (_gcuda_array_format_size (format) == 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%d is not a GCuda.ArrayFormat"), (int) format);
      return FALSE;
    }
  if (num_channels != 1 && num_channels != 2 && num_channels != 4)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("An element has 1, 2 or 4 channels, not %u"), num_channels);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ GCudaArrayDescriptor */

/**
 * gcuda_array_descriptor_new:
 * @width: the width in elements, at least 1
 * @height: the height in elements; 0 for a 1D array
 * @depth: the depth in elements or the number of layers; 0 for 1D and 2D
 * @format: the type of each channel
 * @num_channels: the number of channels: 1, 2 or 4
 * @flags: the array's layout and uses
 *
 * Creates an array descriptor. It is not checked until it is used, or
 * with [method@GCuda.ArrayDescriptor.validate].
 *
 * Returns: (transfer full): the new descriptor
 *
 * Since: 1.0
 */
GCudaArrayDescriptor *
gcuda_array_descriptor_new (guint64          width,
                            guint64          height,
                            guint64          depth,
                            GCudaArrayFormat format,
                            guint            num_channels,
                            GCudaArrayFlags  flags)
{
  GCudaArrayDescriptor *self = g_new0 (GCudaArrayDescriptor, 1);

  self->width = width;
  self->height = height;
  self->depth = depth;
  self->format = format;
  self->num_channels = num_channels;
  self->flags = flags;
  return self;
}

/**
 * gcuda_array_descriptor_copy:
 * @self: a [struct@GCuda.ArrayDescriptor]
 *
 * Copies a descriptor.
 *
 * Returns: (transfer full): the copy
 *
 * Since: 1.0
 */
GCudaArrayDescriptor *
gcuda_array_descriptor_copy (const GCudaArrayDescriptor *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return g_memdup2 (self, sizeof *self);
}

/**
 * gcuda_array_descriptor_free:
 * @self: (nullable): a [struct@GCuda.ArrayDescriptor]
 *
 * Frees a descriptor.
 *
 * Since: 1.0
 */
void
gcuda_array_descriptor_free (GCudaArrayDescriptor *self)
{
  g_free (self);
}

/**
 * gcuda_array_descriptor_get_element_size:
 * @self: a [struct@GCuda.ArrayDescriptor]
 *
 * The size of one element: channel size × channels.
 *
 * Returns: the size in bytes, or 0 when the format or the channel count is
 *   invalid
 *
 * Since: 1.0
 */
guint
gcuda_array_descriptor_get_element_size (const GCudaArrayDescriptor *self)
{
  g_return_val_if_fail (self != NULL, 0);
  if (!_gcuda_array_format_check (self->format, self->num_channels, NULL))
    return 0;
  return _gcuda_array_format_size (self->format) * self->num_channels;
}

/**
 * gcuda_array_descriptor_get_size:
 * @self: a [struct@GCuda.ArrayDescriptor]
 *
 * The size of the whole array's data, tightly packed: element size × width ×
 * height × depth, where a height or depth of 0 counts as 1. This is the size
 * [method@GCuda.Array.upload] and [method@GCuda.Array.download] move.
 *
 * Returns: the size in bytes, or 0 when the descriptor is invalid
 *
 * Since: 1.0
 */
guint64
gcuda_array_descriptor_get_size (const GCudaArrayDescriptor *self)
{
  g_return_val_if_fail (self != NULL, 0);
  if (!gcuda_array_descriptor_validate (self, NULL))
    return 0;
  /* validate() checked that this does not overflow */
  return gcuda_array_descriptor_get_element_size (self) * self->width *
         MAX (self->height, 1) * MAX (self->depth, 1);
}

/**
 * gcuda_array_descriptor_validate:
 * @self: a [struct@GCuda.ArrayDescriptor]
 * @error: return location for a [struct@GLib.Error]
 *
 * Checks what GCuda can check without the driver: a known format, 1, 2 or
 * 4 channels, known flags, a width of at least 1, a height when there is a
 * depth (unless layered), a cubemap's square faces and 6 (or a multiple of
 * 6 when layered) faces, and a total size below 2^64 bytes. The driver
 * checks the device's limits when the array is made.
 *
 * Returns: %TRUE when the descriptor passes; otherwise %FALSE with
 *   [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]
 *
 * Since: 1.0
 */
gboolean
gcuda_array_descriptor_validate (const GCudaArrayDescriptor  *self,
                                 GError                     **error)
{
  const guint known = GCUDA_ARRAY_FLAGS_LAYERED | GCUDA_ARRAY_FLAGS_SURFACE_LDST |
                      GCUDA_ARRAY_FLAGS_CUBEMAP | GCUDA_ARRAY_FLAGS_TEXTURE_GATHER;
  guint64 size;

  g_return_val_if_fail (self != NULL, FALSE);

  if (!_gcuda_array_format_check (self->format, self->num_channels, error))
    return FALSE;
  if ((self->flags & ~known) != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown array flags 0x%x"), (guint) (self->flags & ~known));
      return FALSE;
    }
  if (self->width == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("An array's width must be at least 1"));
      return FALSE;
    }
  if (self->depth > 0 && self->height == 0 && !(self->flags & GCUDA_ARRAY_FLAGS_LAYERED))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("An array with a depth needs a height (or the LAYERED flag for 1D layers)"));
      return FALSE;
    }
  if ((self->flags & GCUDA_ARRAY_FLAGS_LAYERED) && self->depth == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("A layered array needs a depth: the number of layers"));
      return FALSE;
    }
  if (self->flags & GCUDA_ARRAY_FLAGS_CUBEMAP)
    {
      gboolean layered = (self->flags & GCUDA_ARRAY_FLAGS_LAYERED) != 0;

      if (self->width != self->height ||
          (layered ? self->depth == 0 || self->depth % 6 != 0 : self->depth != 6))
        {
          g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                               _("A cubemap array needs width == height and a depth of 6 "
                                 "(a multiple of 6 when layered)"));
          return FALSE;
        }
    }
  if (!g_uint64_checked_mul (&size, _gcuda_array_format_size (self->format) * self->num_channels,
                             self->width) ||
      !g_uint64_checked_mul (&size, size, MAX (self->height, 1)) ||
      !g_uint64_checked_mul (&size, size, MAX (self->depth, 1)) ||
      size > G_MAXSIZE)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("The array is larger than this system can address"));
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ GCudaArray object */

static void
release_array (GCudaArray *self)
{
  if (self->handle != NULL && !self->graphics)
    GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuArrayDestroy (self->handle));
}

static void
gcuda_array_finalize (GObject *object)
{
  GCudaArray *self = GCUDA_ARRAY (object);

  if (self->context != NULL && g_atomic_int_compare_and_exchange (&self->freed, FALSE, TRUE))
    release_array (self);
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_array_parent_class)->finalize (object);
}

static void
gcuda_array_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  GCudaArray *self = GCUDA_ARRAY (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_DESCRIPTOR:
      g_value_set_boxed (value, &self->desc);
      break;
    case PROP_SIZE:
      g_value_set_uint64 (value, gcuda_array_get_size (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_array_class_init (GCudaArrayClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = gcuda_array_finalize;
  object_class->get_property = gcuda_array_get_property;

  /**
   * GCudaArray:context: (getter get_context)
   *
   * The context the array belongs to.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaArray:descriptor: (getter get_descriptor)
   *
   * The array's shape and element type, as it was made.
   *
   * Since: 1.0
   */
  properties[PROP_DESCRIPTOR] =
    g_param_spec_boxed ("descriptor", NULL, NULL, GCUDA_TYPE_ARRAY_DESCRIPTOR,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaArray:size: (getter get_size)
   *
   * The array's size in bytes, tightly packed: what a whole-array copy moves.
   *
   * Since: 1.0
   */
  properties[PROP_SIZE] =
    g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_array_init (GCudaArray *self)
{
}

/**
 * gcuda_array_new:
 * @context: (nullable): the context, or %NULL for the default context
 * @descriptor: the array's shape and element type
 * @error: return location for a [struct@GLib.Error]
 *
 * Allocates an array (PyCUDA's `Array(descriptor)`, `cuArray3DCreate`). A
 * descriptor that fails [method@GCuda.ArrayDescriptor.validate] is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error] before the driver is
 * called; extents beyond the device's limits are
 * [GCUDA_DRIVER_ERROR_INVALID_VALUE][error@GCuda.DriverError].
 *
 * Returns: (transfer full): the array, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaArray *
gcuda_array_new (GCudaContext                *context,
                 const GCudaArrayDescriptor  *descriptor,
                 GError                     **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  CUDA_ARRAY3D_DESCRIPTOR d = { 0 };
  CUarray handle = NULL;
  GCudaArray *self;

  if (descriptor == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("An array needs a descriptor"));
      return NULL;
    }
  if (!gcuda_array_descriptor_validate (descriptor, error))
    return NULL;

  d.Width = descriptor->width;
  d.Height = descriptor->height;
  d.Depth = descriptor->depth;
  d.Format = (CUarray_format) descriptor->format;
  d.NumChannels = descriptor->num_channels;
  d.Flags = descriptor->flags;
  if ((ctx = _gcuda_context_resolve (context, error)) == NULL ||
      !GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuArray3DCreate (&handle, &d), "cuArray3DCreate", error))
    return NULL;

  self = g_object_new (GCUDA_TYPE_ARRAY, NULL);
  self->context = g_steal_pointer (&ctx);
  self->handle = handle;
  self->desc = *descriptor;
  return self;
}

/**
 * gcuda_array_get_context: (get-property context)
 * @self: a [class@GCuda.Array]
 *
 * The context the array was made in.
 *
 * Returns: (transfer none): the array's context
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_array_get_context (GCudaArray *self)
{
  g_return_val_if_fail (GCUDA_IS_ARRAY (self), NULL);
  return self->context;
}

/**
 * gcuda_array_get_descriptor: (get-property descriptor)
 * @self: a [class@GCuda.Array]
 *
 * The array's shape and element type (PyCUDA's `Array.get_descriptor_3d()`).
 *
 * Returns: (transfer full): a copy of the descriptor the array was made from
 *
 * Since: 1.0
 */
GCudaArrayDescriptor *
gcuda_array_get_descriptor (GCudaArray *self)
{
  g_return_val_if_fail (GCUDA_IS_ARRAY (self), NULL);
  return gcuda_array_descriptor_copy (&self->desc);
}

/**
 * gcuda_array_get_size: (get-property size)
 * @self: a [class@GCuda.Array]
 *
 * The size of the array's data tightly packed; see
 * [method@GCuda.ArrayDescriptor.get_size].
 *
 * Returns: the size in bytes
 *
 * Since: 1.0
 */
guint64
gcuda_array_get_size (GCudaArray *self)
{
  g_return_val_if_fail (GCUDA_IS_ARRAY (self), 0);
  return gcuda_array_descriptor_get_size (&self->desc);
}

/**
 * gcuda_array_is_freed:
 * @self: a [class@GCuda.Array]
 *
 * Whether the array was destroyed with [method@GCuda.Array.free].
 *
 * Returns: %TRUE when [method@GCuda.Array.free] was called
 *
 * Since: 1.0
 */
gboolean
gcuda_array_is_freed (GCudaArray *self)
{
  g_return_val_if_fail (GCUDA_IS_ARRAY (self), TRUE);
  return g_atomic_int_get (&self->freed);
}

/**
 * gcuda_array_free:
 * @self: a [class@GCuda.Array]
 * @error: return location for a [struct@GLib.Error]
 *
 * Destroys the array now instead of when the last reference goes (PyCUDA's
 * `Array.free()`); any later use is [GCUDA_ERROR_FREED][error@GCuda.Error].
 * As for [method@GCuda.Buffer.free], freeing an array that is freed already is
 * [GCUDA_ERROR_FREED][error@GCuda.Error] (two owners of one array is a mistake
 * the second call must not hide), and an array made without
 * [ctor@GCuda.Array.new] is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 * Do not free an array that queued GPU work, a texture or a surface still uses.
 *
 * Returns: %TRUE if the array was destroyed, %FALSE with @error set
 *
 * Since: 1.0
 */
gboolean
gcuda_array_free (GCudaArray  *self,
                  GError     **error)
{
  /* made by hand: nothing to free, as every other call says */
  if (!GCUDA_IS_ARRAY (self) || self->context == NULL)
    return _gcuda_array_check (self, error);
  if (!g_atomic_int_compare_and_exchange (&self->freed, FALSE, TRUE))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_FREED, _("The array was freed already"));
      return FALSE;
    }
  release_array (self);
  return TRUE;
}

gboolean
_gcuda_array_check (GCudaArray  *self,
                    GError     **error)
{
  if (!GCUDA_IS_ARRAY (self) || self->context == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.Array made by its constructor"));
      return FALSE;
    }
  if (g_atomic_int_get (&self->freed))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_FREED,
                           self->graphics
                           ? _("The array was an OpenGL image mapped for CUDA, and it was unmapped: map the "
                               "graphics resource again and get its array anew")
                           : _("The array was freed"));
      return FALSE;
    }
  if (gcuda_context_is_destroyed (self->context))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED,
                           _("The array's context was destroyed"));
      return FALSE;
    }
  return TRUE;
}

GCudaArray *
_gcuda_array_new_graphics (GCudaContext               *context,
                           CUarray                     handle,
                           const GCudaArrayDescriptor *descriptor)
{
  GCudaArray *self = g_object_new (GCUDA_TYPE_ARRAY, NULL);

  self->context = g_object_ref (context);
  self->handle = handle;
  self->desc = *descriptor;
  self->graphics = TRUE;
  return self;
}

CUarray
_gcuda_array_get_handle (GCudaArray *self)
{
  return self->handle;
}

void
_gcuda_array_get_extent (GCudaArray *self,
                         guint64    *row_bytes,
                         guint64    *rows,
                         guint64    *slices)
{
  *row_bytes = gcuda_array_descriptor_get_element_size (&self->desc) * self->desc.width;
  *rows = MAX (self->desc.height, 1);
  *slices = MAX (self->desc.depth, 1);
}

/* ------------------------------------------------------------ copies */

typedef enum {
  SIDE_HOST,
  SIDE_DEVICE,
  SIDE_ARRAY,
} Side;

/* Copies the whole of @self to or from packed memory (@side HOST or
 * DEVICE) or another array of the same extent, then waits for it. */
static gboolean
whole_copy (GCudaArray   *self,
            gboolean      into_array,
            Side          side,
            gpointer      host,
            CUdeviceptr   device,
            GCudaArray   *other,
            GError      **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  CUDA_MEMCPY3D d = { 0 };
  guint64 row_bytes, rows, slices;

  _gcuda_array_get_extent (self, &row_bytes, &rows, &slices);
  d.WidthInBytes = row_bytes;
  d.Height = rows;
  d.Depth = slices;
  if (into_array)
    {
      d.dstMemoryType = CU_MEMORYTYPE_ARRAY;
      d.dstArray = self->handle;
      d.srcMemoryType = side == SIDE_HOST ? CU_MEMORYTYPE_HOST
                        : side == SIDE_DEVICE ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_ARRAY;
      d.srcHost = host;
      d.srcDevice = device;
      d.srcArray = other != NULL ? other->handle : NULL;
      if (side != SIDE_ARRAY)
        {
          d.srcPitch = row_bytes;
          d.srcHeight = rows;
        }
    }
  else
    {
      d.srcMemoryType = CU_MEMORYTYPE_ARRAY;
      d.srcArray = self->handle;
      d.dstMemoryType = side == SIDE_HOST ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      d.dstHost = host;
      d.dstDevice = device;
      d.dstPitch = row_bytes;
      d.dstHeight = rows;
    }

  return _gcuda_context_enter (self->context, &scope, error) &&
         GCUDA_CHECK (GCUDA_DRV->fn_cuMemcpy3D (&d), "cuMemcpy3D", error) &&
         _gcuda_legacy_stream_synchronize (error);
}

/* A non-NULL host address for a copy of @size bytes (a range of 0 bytes
 * may have none). */
static gboolean
check_host_address (guint64   address,
                    guint64   size,
                    GError  **error)
{
  if (size != 0 && address == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("The host address is NULL"));
      return FALSE;
    }
  return TRUE;
}

/* @buffer is a live buffer of @self's context holding @offset + @size. */
static gboolean
check_buffer_bytes (GCudaArray   *self,
                    GCudaBuffer  *buffer,
                    guint64       offset,
                    guint64       size,
                    GError      **error)
{
  if (!GCUDA_IS_BUFFER (buffer))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.Buffer"));
      return FALSE;
    }
  /* made by hand: INVALID_ARGUMENT before any context comparison; freed: FREED */
  if (!_gcuda_buffer_check (buffer, error))
    return FALSE;
  if (gcuda_buffer_get_context (buffer) != self->context)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                           _("The buffer and the array belong to different contexts"));
      return FALSE;
    }
  return _gcuda_check_range (offset, size, gcuda_buffer_get_size (buffer), _("the buffer"), error);
}

/* Whether [@offset, @offset + @size) is all of @self, which is copied as a
 * whole whatever its dimensions; any other range needs a 1D array. */
static gboolean
is_whole (GCudaArray *self,
          guint64     offset,
          guint64     size)
{
  return offset == 0 && size == gcuda_array_get_size (self);
}


typedef enum {
  RANGE_HTOA,
  RANGE_ATOH,
  RANGE_DTOA,
  RANGE_ATOD,
  RANGE_ATOA,
} RangeDirection;

/* Byte ranges other than the whole array: @self is a live 1D array and
 * @offset + @size lies within its bytes, both multiples of the element size
 * (the driver copies whole elements). */
static gboolean
check_array_range (GCudaArray   *self,
                   const char   *what,
                   guint64       offset,
                   guint64       size,
                   GError      **error)
{
  guint64 row_bytes, rows, slices;
  guint element;

  if (!_gcuda_array_check (self, error))
    return FALSE;
  if (self->desc.height != 0 || self->desc.depth != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("A copy reaches %s, a %" PRIu64 " × %" PRIu64 " × %" PRIu64 " array, only as a whole "
                     "(offset 0, %" PRIu64 " bytes): byte ranges need a 1D array (height and depth 0); "
                     "copy part of a 2D or 3D array with GCuda.Copy2D or GCuda.Copy3D"),
                   what, self->desc.width, self->desc.height, self->desc.depth, gcuda_array_get_size (self));
      return FALSE;
    }
  _gcuda_array_get_extent (self, &row_bytes, &rows, &slices);
  if (!_gcuda_check_range (offset, size, row_bytes, what, error))
    return FALSE;
  element = gcuda_array_descriptor_get_element_size (&self->desc);
  if (offset % element != 0 || size % element != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The offset (%" PRIu64 ") and size (%" PRIu64 ") in %s must be "
                     "multiples of its element size, %u bytes"),
                   offset, size, what, element);
      return FALSE;
    }
  return TRUE;
}

/* @buffer is a live buffer of @self's context holding @offset + @size,
 * aligned there to @self's element size (the driver's AtoD requires it). */
static gboolean
check_buffer_range (GCudaArray   *self,
                    GCudaBuffer  *buffer,
                    guint64       offset,
                    guint64       size,
                    GError      **error)
{
  guint element;

  if (!check_buffer_bytes (self, buffer, offset, size, error))
    return FALSE;
  element = gcuda_array_descriptor_get_element_size (&self->desc);
  if ((gcuda_buffer_get_address (buffer) + offset) % element != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The buffer's address at offset %" PRIu64 " is not aligned to the "
                     "array's element size, %u bytes"),
                   offset, element);
      return FALSE;
    }
  return TRUE;
}

/* One checked 1D copy between @self at @offset and @host, @device or @other
 * at @other_offset, then (except into the host, which the driver finishes
 * before returning) a wait for the legacy stream, as whole_copy() does. */
static gboolean
range_copy (GCudaArray      *self,
            RangeDirection   direction,
            guint64          offset,
            gpointer         host,
            CUdeviceptr      device,
            GCudaArray      *other,
            guint64          other_offset,
            guint64          size,
            GError         **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  const GCudaDriver *drv;
  gboolean ok = FALSE;

  if (size == 0)
    return TRUE;
  if (!_gcuda_context_enter (self->context, &scope, error))
    return FALSE;
  drv = GCUDA_DRV;
  switch (direction)
    {
    case RANGE_HTOA:
      ok = GCUDA_CHECK (drv->fn_cuMemcpyHtoA (self->handle, offset, host, size), "cuMemcpyHtoA", error);
      break;
    case RANGE_ATOH:
      ok = GCUDA_CHECK (drv->fn_cuMemcpyAtoH (host, self->handle, offset, size), "cuMemcpyAtoH", error);
      break;
    case RANGE_DTOA:
      ok = GCUDA_CHECK (drv->fn_cuMemcpyDtoA (self->handle, offset, device, size), "cuMemcpyDtoA", error);
      break;
    case RANGE_ATOD:
      ok = GCUDA_CHECK (drv->fn_cuMemcpyAtoD (device, self->handle, offset, size), "cuMemcpyAtoD", error);
      break;
    case RANGE_ATOA:
      ok = GCUDA_CHECK (drv->fn_cuMemcpyAtoA (self->handle, offset, other->handle, other_offset, size),
                        "cuMemcpyAtoA", error);
      break;
    }
  if (ok && direction != RANGE_ATOH)
    ok = _gcuda_legacy_stream_synchronize (error);
  return ok;
}

/* The copies between @self and packed memory, into the array
 * (@into_array) or out of it: host memory at @address (@side HOST) or
 * @buffer at @address bytes in (@side DEVICE). All of @self is copied as
 * a whole; any other range of a 1D array as elements. */
static gboolean
packed_copy (GCudaArray   *self,
             gboolean      into_array,
             guint64       offset,
             Side          side,
             GCudaBuffer  *buffer,
             guint64       address,
             guint64       size,
             GError      **error)
{
  RangeDirection direction;
  gpointer host = NULL;
  CUdeviceptr device = 0;
  gboolean whole;

  if (!_gcuda_array_check (self, error))
    return FALSE;
  whole = is_whole (self, offset, size);
  if (!whole && !check_array_range (self, _("the array"), offset, size, error))
    return FALSE;
  if (side == SIDE_HOST)
    {
      if (!check_host_address (address, size, error))
        return FALSE;
      host = GSIZE_TO_POINTER (address);
      direction = into_array ? RANGE_HTOA : RANGE_ATOH;
    }
  else
    {
      if (whole ? !check_buffer_bytes (self, buffer, address, size, error)
                : !check_buffer_range (self, buffer, address, size, error))
        return FALSE;
      device = (CUdeviceptr) (gcuda_buffer_get_address (buffer) + address);
      direction = into_array ? RANGE_DTOA : RANGE_ATOD;
    }
  if (whole)
    return whole_copy (self, into_array, side, host, device, NULL, error);
  return range_copy (self, direction, offset, host, device, NULL, 0, size, error);
}

/**
 * gcuda_array_upload:
 * @self: a [class@GCuda.Array]
 * @offset: where to write, in bytes from the start of the array
 * @data: (array length=size) (nullable): the bytes to write, tightly packed
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies host data into the array (PyCUDA's `memcpy_htoa(ary, index, src)`)
 * and returns when the copy is done. The arguments are those of
 * [method@GCuda.Buffer.upload]; the whole array is offset 0 and
 * [method@GCuda.Array.get_size] bytes.
 *
 * The array's copies (this one, [method@GCuda.Array.download],
 * [method@GCuda.Array.copy_from_buffer], [method@GCuda.Array.copy_to_buffer]
 * and [method@GCuda.Array.copy_from_array]) reach an array of any
 * dimensions as a whole, in its packed layout (x varies fastest, then y, then z
 * or the layer). Any other byte range needs a 1D array (height and depth 0),
 * else [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error] (copy part of a 2D or
 * 3D array with [class@GCuda.Copy2D] or [class@GCuda.Copy3D]): @offset and
 * @size must then be multiples of the array's element size (else
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]) and lie within the
 * array's width × element size bytes (else
 * [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error]); a size of 0 copies nothing
 * and succeeds once these checks pass. A freed array is
 * [GCUDA_ERROR_FREED][error@GCuda.Error].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_array_upload (GCudaArray    *self,
                    guint64        offset,
                    const guint8  *data,
                    gsize          size,
                    GError       **error)
{
  return gcuda_array_upload_from_address (self, offset, (guint64) GPOINTER_TO_SIZE (data), size, error);
}

/**
 * gcuda_array_upload_from_address:
 * @self: a [class@GCuda.Array]
 * @offset: where to write, in bytes from the start of the array
 * @address: the host address of the data, tightly packed
 * @size: the number of bytes there
 * @error: return location for a [struct@GLib.Error]
 *
 * [method@GCuda.Array.upload] from an address (a numpy array's data, without a
 * copy in the binding).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_array_upload_from_address (GCudaArray  *self,
                                 guint64      offset,
                                 guint64      address,
                                 guint64      size,
                                 GError     **error)
{
  return packed_copy (self, TRUE, offset, SIDE_HOST, NULL, address, size, error);
}

/**
 * gcuda_array_download:
 * @self: a [class@GCuda.Array]
 * @offset: where to read, in bytes from the start of the array
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Reads the array into host memory, tightly packed (PyCUDA's
 * `memcpy_atoh(dest, ary, index)`); the arguments are those of
 * [method@GCuda.Buffer.download] and the checks those of
 * [method@GCuda.Array.upload].
 *
 * Returns: (transfer full): the @size bytes, or %NULL with @error set
 *
 * Since: 1.0
 */
GBytes *
gcuda_array_download (GCudaArray  *self,
                      guint64      offset,
                      guint64      size,
                      GError     **error)
{
  guint8 *data;

  /* checked before the allocation, which a wrong size could make huge */
  if (!_gcuda_array_check (self, error) ||
      (!is_whole (self, offset, size) && !check_array_range (self, _("the array"), offset, size, error)))
    return NULL;
  if (size == 0)
    return g_bytes_new (NULL, 0);
  data = g_malloc (size);
  if (!gcuda_array_download_to_address (self, offset, (guint64) GPOINTER_TO_SIZE (data), size, error))
    {
      g_free (data);
      return NULL;
    }
  return g_bytes_new_take (data, size);
}

/**
 * gcuda_array_download_to_address:
 * @self: a [class@GCuda.Array]
 * @offset: where to read, in bytes from the start of the array
 * @address: the host address to write to
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * [method@GCuda.Array.download] into memory the caller owns (a numpy array).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_array_download_to_address (GCudaArray  *self,
                                 guint64      offset,
                                 guint64      address,
                                 guint64      size,
                                 GError     **error)
{
  return packed_copy (self, FALSE, offset, SIDE_HOST, NULL, address, size, error);
}

/**
 * gcuda_array_copy_from_buffer:
 * @self: a [class@GCuda.Array]
 * @offset: where to write, in bytes from the start of the array
 * @buffer: the device buffer to read, tightly packed
 * @buffer_offset: where to read in @buffer, in bytes
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies device memory into the array (PyCUDA's `memcpy_dtoa(ary, index, src,
 * len)`) and returns when the copy is done; the arguments are those of
 * [method@GCuda.Buffer.copy_from]. Besides the checks of
 * [method@GCuda.Array.upload]: @buffer_offset + @size must lie within the
 * buffer (else [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error]), a freed buffer
 * is [GCUDA_ERROR_FREED][error@GCuda.Error] and one of another context
 * [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error]; for a byte range of a 1D
 * array (not the whole array), the buffer's address at @buffer_offset must also
 * be a multiple of the array's element size (else
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_array_copy_from_buffer (GCudaArray   *self,
                              guint64       offset,
                              GCudaBuffer  *buffer,
                              guint64       buffer_offset,
                              guint64       size,
                              GError      **error)
{
  return packed_copy (self, TRUE, offset, SIDE_DEVICE, buffer, buffer_offset, size, error);
}

/**
 * gcuda_array_copy_to_buffer:
 * @self: a [class@GCuda.Array]
 * @offset: where to read, in bytes from the start of the array
 * @buffer: the device buffer to write to
 * @buffer_offset: where to write in @buffer, in bytes
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies the array into device memory, tightly packed (PyCUDA's
 * `memcpy_atod(dest, ary, index, len)`), and returns when the copy is done;
 * the checks are those of [method@GCuda.Array.copy_from_buffer].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_array_copy_to_buffer (GCudaArray   *self,
                            guint64       offset,
                            GCudaBuffer  *buffer,
                            guint64       buffer_offset,
                            guint64       size,
                            GError      **error)
{
  return packed_copy (self, FALSE, offset, SIDE_DEVICE, buffer, buffer_offset, size, error);
}

/**
 * gcuda_array_copy_from_array:
 * @self: the destination array
 * @offset: where to write, in bytes from the start of @self
 * @source: the source array
 * @source_offset: where to read, in bytes from the start of @source
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies @source, or part of it, into @self (PyCUDA's `memcpy_atoa(dest,
 * dest_index, src, src_index, len)`) and returns when the copy is done; the
 * arguments are those of [method@GCuda.Buffer.copy_from]. Both arrays must
 * share a context (else [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error]).
 * All of one array into all of another needs the same extent in bytes, rows
 * and slices (else [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]); any
 * other range goes through the checks of [method@GCuda.Array.upload] on both
 * arrays, whose element sizes must then be equal (else
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]). @source may be @self.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_array_copy_from_array (GCudaArray  *self,
                             guint64      offset,
                             GCudaArray  *source,
                             guint64      source_offset,
                             guint64      size,
                             GError     **error)
{
  guint dst_element, src_element;

  if (!_gcuda_array_check (self, error) || !_gcuda_array_check (source, error))
    return FALSE;
  if (source->context != self->context)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                           _("The two arrays belong to different contexts"));
      return FALSE;
    }
  if (is_whole (self, offset, size) && is_whole (source, source_offset, size))
    {
      guint64 w1, h1, d1, w2, h2, d2;

      _gcuda_array_get_extent (self, &w1, &h1, &d1);
      _gcuda_array_get_extent (source, &w2, &h2, &d2);
      if (w1 != w2 || h1 != h2 || d1 != d2)
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                       _("The source array (%" PRIu64 " bytes × %" PRIu64 " × %"
                         PRIu64 ") and the destination array (%" PRIu64 " bytes × %"
                         PRIu64 " × %" PRIu64 ") differ in extent"),
                       w2, h2, d2, w1, h1, d1);
          return FALSE;
        }
      return whole_copy (self, TRUE, SIDE_ARRAY, NULL, 0, source, error);
    }
  if (!check_array_range (self, _("the destination array"), offset, size, error) ||
      !check_array_range (source, _("the source array"), source_offset, size, error))
    return FALSE;
  dst_element = gcuda_array_descriptor_get_element_size (&self->desc);
  src_element = gcuda_array_descriptor_get_element_size (&source->desc);
  if (dst_element != src_element)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The source array's elements have %u bytes, the destination's %u: "
                     "a range copy needs equal element sizes"),
                   src_element, dst_element);
      return FALSE;
    }
  return range_copy (self, RANGE_ATOA, offset, NULL, 0, source, source_offset, size, error);
}
