/* gcuda-copy-3d.c: GCudaCopy3D, a copy of a box of bytes (cuMemcpy3D)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-copy-private.h"

/**
 * GCudaCopy3D:
 *
 * A copy of a box of bytes between two memory regions laid out as slices
 * of pitched rows (PyCUDA's `Memcpy3D`, the driver's `cuMemcpy3D`).
 *
 * ```c
 * static gboolean
 * upload_volume (GCudaArray *array, const float *volume,
 *                guint64 width, guint64 height, guint64 depth, GError **error)
 * {
 *   g_autoptr(GCudaCopy3D) copy = gcuda_copy_3d_new ();
 *   guint64 row = width * sizeof (float);
 *
 *   gcuda_copy_3d_set_src_host (copy, (guint64) (guintptr) volume, row * height * depth);
 *   gcuda_copy_3d_set_dst_array (copy, array);
 *   g_object_set (copy,
 *                 "src-pitch", row,
 *                 "src-height", height,
 *                 "width-in-bytes", row,
 *                 "height", height,
 *                 "depth", depth,
 *                 NULL);
 *   return gcuda_copy_3d_execute (copy, NULL, error);
 * }
 * ```
 *
 * In Python, the box `[1:3, 2:6, 3:11]` of a 3D array into host memory:
 *
 * ```python
 * a = numpy.random.rand(8, 16, 32).astype(numpy.float32)  # depth, height, width
 * array = GCuda.np_to_array(a)
 * part = numpy.zeros((2, 4, 8), numpy.float32)
 * copy = GCuda.Copy3D.new()
 * copy.set_src_array(array)
 * copy.set_dst_host(part.__array_interface__['data'][0], part.nbytes)
 * copy.props.src_x_in_bytes, copy.props.src_y, copy.props.src_z = 3 * 4, 2, 1
 * copy.props.dst_pitch, copy.props.dst_height = 8 * 4, 4
 * copy.props.width_in_bytes, copy.props.height, copy.props.depth = 8 * 4, 4, 2
 * copy.execute(None)
 * assert (part == a[1:3, 2:6, 3:11]).all()
 * ```
 *
 * It works like [class@GCuda.Copy2D], with a third dimension: row `r` of slice
 * `s` of the region starts at byte `x-in-bytes + (y + r + (z + s) ×
 * rows-per-slice) × pitch` of its endpoint, where the rows per slice are
 * [property@GCuda.Copy3D:src-height] and [property@GCuda.Copy3D:dst-height];
 * [property@GCuda.Copy3D:depth] slices of [property@GCuda.Copy3D:height] rows
 * of [property@GCuda.Copy3D:width-in-bytes] bytes are copied. Every property
 * starts at 0, [property@GCuda.Copy3D:depth] included: set it.
 *
 * The rows per slice must be at least `y + height` when they matter (more than
 * one slice, or `z` above 0); otherwise
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]. Both endpoints must be in
 * one context; [class@GCuda.Copy3DPeer] copies between contexts.
 *
 * Since: 1.0
 */

struct _GCudaCopy3D
{
  GCudaCopyObject copy;
};

G_DEFINE_FINAL_TYPE (GCudaCopy3D, gcuda_copy_3d, G_TYPE_OBJECT)

static GParamSpec *properties[GCUDA_COPY_N_PROPS_3D];

/**
 * GCudaCopy3D:src-x-in-bytes:
 *
 * The byte offset of the region within each source row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:src-y:
 *
 * The first source row of the region within each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:src-z:
 *
 * The first source slice of the region (PyCUDA's `src_z`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:src-pitch:
 *
 * The distance in bytes between the starts of two source rows.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:src-height:
 *
 * The number of rows in each source slice (PyCUDA's `src_height`): slices are
 * [property@GCuda.Copy3D:src-pitch] × src-height bytes apart. It may stay 0 for
 * a single slice at [property@GCuda.Copy3D:src-z] 0.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:dst-x-in-bytes:
 *
 * The byte offset of the region within each destination row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:dst-y:
 *
 * The first destination row of the region within each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:dst-z:
 *
 * The first destination slice of the region (PyCUDA's `dst_z`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:dst-pitch:
 *
 * The distance in bytes between the starts of two destination rows.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:dst-height:
 *
 * The number of rows in each destination slice (PyCUDA's `dst_height`).
 * It may stay 0 for a single slice at [property@GCuda.Copy3D:dst-z] 0.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:width-in-bytes:
 *
 * The number of bytes copied from each row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:height:
 *
 * The number of rows copied from each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:depth:
 *
 * The number of slices copied (PyCUDA's `depth`).
 *
 * Since: 1.0
 */

static void
gcuda_copy_3d_class_init (GCudaCopy3DClass *klass)
{
  _gcuda_copy_class_setup (G_OBJECT_CLASS (klass), properties, GCUDA_COPY_N_PROPS_3D);
}

static void
gcuda_copy_3d_init (GCudaCopy3D *self)
{
}

/**
 * gcuda_copy_3d_new:
 *
 * Creates a 3D copy with every property 0 and no endpoints (PyCUDA's
 * `Memcpy3D()`).
 *
 * Returns: (transfer full): the new copy
 *
 * Since: 1.0
 */
GCudaCopy3D *
gcuda_copy_3d_new (void)
{
  return g_object_new (GCUDA_TYPE_COPY_3D, NULL);
}
#define COPY_CLASS GCudaCopy3D, gcuda_copy_3d, GCUDA_IS_COPY_3D

/**
 * gcuda_copy_3d_set_src_host:
 * @self: a [class@GCuda.Copy3D]
 * @address: the host address of the source memory
 * @size: the size of the source memory in bytes
 *
 * Copies from host memory; see [method@GCuda.Copy2D.set_src_host].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_dst_host:
 * @self: a [class@GCuda.Copy3D]
 * @address: the host address of the destination memory
 * @size: the size of the destination memory in bytes
 *
 * Copies into host memory; see [method@GCuda.Copy2D.set_dst_host].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_src_host_buffer:
 * @self: a [class@GCuda.Copy3D]
 * @buffer: (nullable): the host buffer, or %NULL to unset the source
 *
 * Copies from a [class@GCuda.HostBuffer], which the copy keeps alive.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_dst_host_buffer:
 * @self: a [class@GCuda.Copy3D]
 * @buffer: (nullable): the host buffer, or %NULL to unset the destination
 *
 * Copies into a [class@GCuda.HostBuffer], which the copy keeps alive.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_src_buffer:
 * @self: a [class@GCuda.Copy3D]
 * @buffer: (nullable): the device buffer, or %NULL to unset the source
 *
 * Copies from device memory (PyCUDA's `set_src_device()`); the copy keeps
 * @buffer alive.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_dst_buffer:
 * @self: a [class@GCuda.Copy3D]
 * @buffer: (nullable): the device buffer, or %NULL to unset the destination
 *
 * Copies into device memory (PyCUDA's `set_dst_device()`); the copy keeps
 * @buffer alive.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_src_unified:
 * @self: a [class@GCuda.Copy3D]
 * @address: an address in the unified address space
 * @size: the size of the source memory in bytes
 *
 * Copies from memory the driver locates itself; see
 * [method@GCuda.Copy2D.set_src_unified].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_dst_unified:
 * @self: a [class@GCuda.Copy3D]
 * @address: an address in the unified address space
 * @size: the size of the destination memory in bytes
 *
 * Copies into memory the driver locates itself; see
 * [method@GCuda.Copy2D.set_dst_unified].
 *
 * Since: 1.0
 */
GCUDA_COPY_ENDPOINT_SETTERS (COPY_CLASS)

/**
 * gcuda_copy_3d_set_src_array:
 * @self: a [class@GCuda.Copy3D]
 * @array: (nullable): the array, or %NULL to unset the source
 *
 * Copies from a [class@GCuda.Array] (PyCUDA's `set_src_array()`), which the
 * copy keeps alive. The src-x-in-bytes, src-y, src-z place the region in the
 * array; the pitch and rows per slice do not apply. A region outside the
 * array's extent is [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_dst_array:
 * @self: a [class@GCuda.Copy3D]
 * @array: (nullable): the array, or %NULL to unset the destination
 *
 * Copies into a [class@GCuda.Array] (PyCUDA's `set_dst_array()`), which the
 * copy keeps alive. The dst-x-in-bytes, dst-y, dst-z place the region in the
 * array; the pitch and rows per slice do not apply. A region outside the
 * array's extent is [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error].
 *
 * Since: 1.0
 */
GCUDA_COPY_ARRAY_SETTERS (COPY_CLASS)

/**
 * gcuda_copy_3d_execute:
 * @self: a [class@GCuda.Copy3D]
 * @stream: (nullable): the stream to order the copy on, or %NULL to copy
 *   synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Performs the copy (PyCUDA's `Memcpy3D.__call__()`, `cuMemcpy3D` or, with
 * a stream, `cuMemcpy3DAsync`). Contexts, streams and checks are as for
 * [method@GCuda.Copy2D.execute].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_copy_3d_execute (GCudaCopy3D  *self,
                       GCudaStream  *stream,
                       GError      **error)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), FALSE);
  return _gcuda_copy_execute (&self->copy.spec, GCUDA_COPY_FORM_3D, stream, error);
}
/**
 * gcuda_copy_3d_get_src_x_in_bytes: (get-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:src-x-in-bytes].
 *
 * Returns: the first source byte of each row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_src_x_in_bytes: (set-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 * @src_x_in_bytes: the first source byte of each row
 *
 * Sets [property@GCuda.Copy3D:src-x-in-bytes].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_src_y: (get-property src-y)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:src-y].
 *
 * Returns: the first source row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_src_y: (set-property src-y)
 * @self: a [class@GCuda.Copy3D]
 * @src_y: the first source row
 *
 * Sets [property@GCuda.Copy3D:src-y].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_src_pitch: (get-property src-pitch)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:src-pitch].
 *
 * Returns: the distance in bytes between the starts of two source rows
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_src_pitch: (set-property src-pitch)
 * @self: a [class@GCuda.Copy3D]
 * @src_pitch: the distance in bytes between the starts of two source rows
 *
 * Sets [property@GCuda.Copy3D:src-pitch].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_dst_x_in_bytes: (get-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:dst-x-in-bytes].
 *
 * Returns: the first destination byte of each row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_dst_x_in_bytes: (set-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 * @dst_x_in_bytes: the first destination byte of each row
 *
 * Sets [property@GCuda.Copy3D:dst-x-in-bytes].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_dst_y: (get-property dst-y)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:dst-y].
 *
 * Returns: the first destination row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_dst_y: (set-property dst-y)
 * @self: a [class@GCuda.Copy3D]
 * @dst_y: the first destination row
 *
 * Sets [property@GCuda.Copy3D:dst-y].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_dst_pitch: (get-property dst-pitch)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:dst-pitch].
 *
 * Returns: the distance in bytes between the starts of two destination rows
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_dst_pitch: (set-property dst-pitch)
 * @self: a [class@GCuda.Copy3D]
 * @dst_pitch: the distance in bytes between the starts of two destination rows
 *
 * Sets [property@GCuda.Copy3D:dst-pitch].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_width_in_bytes: (get-property width-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:width-in-bytes].
 *
 * Returns: the number of bytes copied from each row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_width_in_bytes: (set-property width-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 * @width_in_bytes: the number of bytes copied from each row
 *
 * Sets [property@GCuda.Copy3D:width-in-bytes].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_height: (get-property height)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:height].
 *
 * Returns: the number of rows copied
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_height: (set-property height)
 * @self: a [class@GCuda.Copy3D]
 * @height: the number of rows copied
 *
 * Sets [property@GCuda.Copy3D:height].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_src_z: (get-property src-z)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:src-z].
 *
 * Returns: the first source slice
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_src_z: (set-property src-z)
 * @self: a [class@GCuda.Copy3D]
 * @src_z: the first source slice
 *
 * Sets [property@GCuda.Copy3D:src-z].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_src_height: (get-property src-height)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:src-height].
 *
 * Returns: the number of rows in a source slice
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_src_height: (set-property src-height)
 * @self: a [class@GCuda.Copy3D]
 * @src_height: the number of rows in a source slice
 *
 * Sets [property@GCuda.Copy3D:src-height].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_dst_z: (get-property dst-z)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:dst-z].
 *
 * Returns: the first destination slice
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_dst_z: (set-property dst-z)
 * @self: a [class@GCuda.Copy3D]
 * @dst_z: the first destination slice
 *
 * Sets [property@GCuda.Copy3D:dst-z].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_dst_height: (get-property dst-height)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:dst-height].
 *
 * Returns: the number of rows in a destination slice
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_dst_height: (set-property dst-height)
 * @self: a [class@GCuda.Copy3D]
 * @dst_height: the number of rows in a destination slice
 *
 * Sets [property@GCuda.Copy3D:dst-height].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_get_depth: (get-property depth)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:depth].
 *
 * Returns: the number of slices copied
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_set_depth: (set-property depth)
 * @self: a [class@GCuda.Copy3D]
 * @depth: the number of slices copied
 *
 * Sets [property@GCuda.Copy3D:depth].
 *
 * Since: 1.0
 */
GCUDA_COPY_3D_FIELDS (GCUDA_COPY_FIELD_ACCESSORS, COPY_CLASS, properties)
