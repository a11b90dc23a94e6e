/* gcuda-copy-2d.c: GCudaCopy2D, a copy of a rectangle of bytes (cuMemcpy2D)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-copy-private.h"

/**
 * GCudaCopy2D:
 *
 * A copy of a rectangle of bytes between two pitched memory regions
 * (PyCUDA's `Memcpy2D`, the driver's `cuMemcpy2D`).
 *
 * ```c
 * static gboolean
 * download_rows (GCudaBuffer *pitched, guint64 width_in_bytes, guint64 rows,
 *                guint8 *host, GError **error)
 * {
 *   g_autoptr(GCudaCopy2D) copy = gcuda_copy_2d_new ();
 *
 *   gcuda_copy_2d_set_src_buffer (copy, pitched);
 *   gcuda_copy_2d_set_dst_host (copy, (guint64) (guintptr) host, width_in_bytes * rows);
 *   g_object_set (copy,
 *                 "src-pitch", gcuda_buffer_get_pitch (pitched),
 *                 "dst-pitch", width_in_bytes,
 *                 "width-in-bytes", width_in_bytes,
 *                 "height", rows,
 *                 NULL);
 *   return gcuda_copy_2d_execute (copy, NULL, error);
 * }
 * ```
 *
 * In Python:
 *
 * ```python
 * a = numpy.random.rand(100, 50).astype(numpy.float32)
 * buf, pitch = GCuda.mem_alloc_pitch(50 * 4, 100, 4)
 * copy = GCuda.Copy2D.new()
 * copy.set_src_host(a.__array_interface__['data'][0], a.nbytes)
 * copy.set_dst_buffer(buf)
 * copy.props.src_pitch = copy.props.width_in_bytes = 50 * 4
 * copy.props.dst_pitch = pitch
 * copy.props.height = 100
 * copy.execute(None)
 * ```
 *
 * Describe the copy with properties and endpoints, then call
 * [method@GCuda.Copy2D.execute], as often as needed. Each endpoint is host
 * memory ([method@GCuda.Copy2D.set_src_host],
 * [method@GCuda.Copy2D.set_src_host_buffer]), device memory
 * ([method@GCuda.Copy2D.set_src_buffer]), memory of either kind in the unified
 * address space ([method@GCuda.Copy2D.set_src_unified]) or a
 * [class@GCuda.Array] ([method@GCuda.Copy2D.set_src_array], where the region
 * must lie within the array's extent and pitches do not apply), and the same
 * for the destination. Row `r` of the region starts at byte `x-in-bytes + (y +
 * r) × pitch` of its endpoint; [property@GCuda.Copy2D:width-in-bytes] bytes of
 * [property@GCuda.Copy2D:height] rows are copied.
 *
 * Like PyCUDA's, every property starts at 0: set at least
 * [property@GCuda.Copy2D:width-in-bytes], [property@GCuda.Copy2D:height] and
 * the pitches. The region is checked against both endpoints before the driver
 * is called: a region reaching outside the memory is
 * [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error], a missing endpoint, an empty
 * region or a pitch smaller than `x-in-bytes + width-in-bytes` is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], a freed buffer is
 * [GCUDA_ERROR_FREED][error@GCuda.Error], and device buffers of two different
 * contexts are [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error] (use
 * [class@GCuda.Copy3DPeer] for those). A pitch that cannot matter (one row at
 * `y` 0) is not checked.
 *
 * The properties are `guint64`: in C, pass `(guint64)` values to
 * [method@GObject.Object.set]. The object keeps references to the buffers it
 * was given; it is not thread-safe, but may be used from one thread at a time.
 *
 * Since: 1.0
 */

struct _GCudaCopy2D
{
  GCudaCopyObject copy;
};

G_DEFINE_FINAL_TYPE (GCudaCopy2D, gcuda_copy_2d, G_TYPE_OBJECT)

static GParamSpec *properties[GCUDA_COPY_N_PROPS_2D];
static GParamSpec *aligned_pspec;

/**
 * GCudaCopy2D:src-x-in-bytes:
 *
 * The byte offset of the region within each source row (PyCUDA's
 * `src_x_in_bytes`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:src-y:
 *
 * The first source row of the region (PyCUDA's `src_y`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:src-pitch:
 *
 * The distance in bytes between the starts of two source rows (PyCUDA's
 * `src_pitch`); the [property@GCuda.Buffer:pitch] of a pitched buffer.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:dst-x-in-bytes:
 *
 * The byte offset of the region within each destination row (PyCUDA's
 * `dst_x_in_bytes`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:dst-y:
 *
 * The first destination row of the region (PyCUDA's `dst_y`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:dst-pitch:
 *
 * The distance in bytes between the starts of two destination rows
 * (PyCUDA's `dst_pitch`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:width-in-bytes:
 *
 * The number of bytes copied from each row (PyCUDA's `width_in_bytes`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:height:
 *
 * The number of rows copied (PyCUDA's `height`).
 *
 * Since: 1.0
 */

/**
 * GCudaCopy2D:aligned: (getter get_aligned) (setter set_aligned)
 *
 * Whether a synchronous device-to-device copy may assume the driver's
 * alignment (`cuMemcpy2D`, the default, as PyCUDA's `aligned=True`); %FALSE
 * tolerates misaligned regions at some cost in bandwidth
 * (`cuMemcpy2DUnaligned`). Copies on a stream ignore it.
 *
 * Since: 1.0
 */

static void
gcuda_copy_2d_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  if (prop_id == GCUDA_COPY_PROP_ALIGNED)
    g_value_set_boolean (value, gcuda_copy_2d_get_aligned (GCUDA_COPY_2D (object)));
  else
    _gcuda_copy_get_property (object, prop_id, value, pspec);
}

static void
gcuda_copy_2d_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  if (prop_id == GCUDA_COPY_PROP_ALIGNED)
    gcuda_copy_2d_set_aligned (GCUDA_COPY_2D (object), g_value_get_boolean (value));
  else
    _gcuda_copy_set_property (object, prop_id, value, pspec);
}

static void
gcuda_copy_2d_class_init (GCudaCopy2DClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  _gcuda_copy_class_setup (object_class, properties, GCUDA_COPY_N_PROPS_2D);
  object_class->get_property = gcuda_copy_2d_get_property;
  object_class->set_property = gcuda_copy_2d_set_property;
  aligned_pspec = g_param_spec_boolean ("aligned", NULL, NULL, TRUE,
                                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_property (object_class, GCUDA_COPY_PROP_ALIGNED, aligned_pspec);
}

static void
gcuda_copy_2d_init (GCudaCopy2D *self)
{
  self->copy.spec.depth = 1;
}

/**
 * gcuda_copy_2d_new:
 *
 * Creates a 2D copy with every property 0 and no endpoints (PyCUDA's
 * `Memcpy2D()`).
 *
 * Returns: (transfer full): the new copy
 *
 * Since: 1.0
 */
GCudaCopy2D *
gcuda_copy_2d_new (void)
{
  return g_object_new (GCUDA_TYPE_COPY_2D, NULL);
}
#define COPY_CLASS GCudaCopy2D, gcuda_copy_2d, GCUDA_IS_COPY_2D

/**
 * gcuda_copy_2d_set_src_host:
 * @self: a [class@GCuda.Copy2D]
 * @address: the host address of the source memory
 * @size: the size of the source memory in bytes
 *
 * Copies from host memory (PyCUDA's `set_src_host()`). The region is
 * checked against @size; the memory must stay readable while copies run.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_dst_host:
 * @self: a [class@GCuda.Copy2D]
 * @address: the host address of the destination memory
 * @size: the size of the destination memory in bytes
 *
 * Copies into host memory (PyCUDA's `set_dst_host()`). The region is
 * checked against @size; the memory must stay writable while copies run.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_src_host_buffer:
 * @self: a [class@GCuda.Copy2D]
 * @buffer: (nullable): the host buffer, or %NULL to unset the source
 *
 * Copies from a [class@GCuda.HostBuffer], which the copy keeps alive.
 * Page-locked memory makes stream-ordered copies truly asynchronous.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_dst_host_buffer:
 * @self: a [class@GCuda.Copy2D]
 * @buffer: (nullable): the host buffer, or %NULL to unset the destination
 *
 * Copies into a [class@GCuda.HostBuffer], which the copy keeps alive.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_src_buffer:
 * @self: a [class@GCuda.Copy2D]
 * @buffer: (nullable): the device buffer, or %NULL to unset the source
 *
 * Copies from device memory (PyCUDA's `set_src_device()`); the copy keeps
 * @buffer alive. For a pitched buffer, set [property@GCuda.Copy2D:src-pitch] to
 * its [property@GCuda.Buffer:pitch].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_dst_buffer:
 * @self: a [class@GCuda.Copy2D]
 * @buffer: (nullable): the device buffer, or %NULL to unset the destination
 *
 * Copies into device memory (PyCUDA's `set_dst_device()`); the copy keeps
 * @buffer alive.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_src_unified:
 * @self: a [class@GCuda.Copy2D]
 * @address: an address in the unified address space
 * @size: the size of the source memory in bytes
 *
 * Copies from memory the driver locates itself, host or device (PyCUDA's
 * `set_src_unified()`, `CU_MEMORYTYPE_UNIFIED`): managed memory, or any
 * address from another CUDA library.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_dst_unified:
 * @self: a [class@GCuda.Copy2D]
 * @address: an address in the unified address space
 * @size: the size of the destination memory in bytes
 *
 * Copies into memory the driver locates itself, host or device (PyCUDA's
 * `set_dst_unified()`).
 *
 * Since: 1.0
 */
GCUDA_COPY_ENDPOINT_SETTERS (COPY_CLASS)

/**
 * gcuda_copy_2d_set_src_array:
 * @self: a [class@GCuda.Copy2D]
 * @array: (nullable): the array, or %NULL to unset the source
 *
 * Copies from a [class@GCuda.Array] (PyCUDA's `set_src_array()`), which the
 * copy keeps alive. The src-x-in-bytes, src-y place the region in the array;
 * the pitch do not apply. A region outside the array's extent is
 * [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_dst_array:
 * @self: a [class@GCuda.Copy2D]
 * @array: (nullable): the array, or %NULL to unset the destination
 *
 * Copies into a [class@GCuda.Array] (PyCUDA's `set_dst_array()`), which the
 * copy keeps alive. The dst-x-in-bytes, dst-y place the region in the array;
 * the pitch do not apply. A region outside the array's extent is
 * [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error].
 *
 * Since: 1.0
 */
GCUDA_COPY_ARRAY_SETTERS (COPY_CLASS)

/**
 * gcuda_copy_2d_execute:
 * @self: a [class@GCuda.Copy2D]
 * @stream: (nullable): the stream to order the copy on, or %NULL to copy
 *   synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Performs the copy (PyCUDA's `Memcpy2D.__call__()`). Without a stream it
 * returns once the copy is done (with `cuMemcpy2D`, or `cuMemcpy2DUnaligned`
 * when [property@GCuda.Copy2D:aligned] is %FALSE); with one it queues the copy
 * there (`cuMemcpy2DAsync`) and the memory of both endpoints must stay valid
 * until the stream has done it (host memory should be page-locked).
 *
 * The copy runs in the context of the device buffer (the destination's when
 * both are), else the stream's, else the default context; a stream of another
 * context than the device buffer's is
 * [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error]. Every check is made before
 * the driver is called (see [class@GCuda.Copy2D]).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_copy_2d_execute (GCudaCopy2D  *self,
                       GCudaStream  *stream,
                       GError      **error)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), FALSE);
  return _gcuda_copy_execute (&self->copy.spec, GCUDA_COPY_FORM_2D, stream, error);
}
/**
 * gcuda_copy_2d_get_aligned: (get-property aligned)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:aligned].
 *
 * Returns: whether a synchronous device-to-device copy assumes alignment
 *
 * Since: 1.0
 */
gboolean
gcuda_copy_2d_get_aligned (GCudaCopy2D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), TRUE);
  return !self->copy.spec.unaligned;
}
/**
 * gcuda_copy_2d_set_aligned: (set-property aligned)
 * @self: a [class@GCuda.Copy2D]
 * @aligned: %FALSE to tolerate misaligned device-to-device copies
 *
 * Sets [property@GCuda.Copy2D:aligned].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_aligned (GCudaCopy2D *self,
                           gboolean     aligned)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  if (self->copy.spec.unaligned == !aligned)
    return;
  self->copy.spec.unaligned = !aligned;
  g_object_notify_by_pspec (G_OBJECT (self), aligned_pspec);
}
/**
 * gcuda_copy_2d_get_src_x_in_bytes: (get-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:src-x-in-bytes].
 *
 * Returns: the first source byte of each row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_src_x_in_bytes: (set-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 * @src_x_in_bytes: the first source byte of each row
 *
 * Sets [property@GCuda.Copy2D:src-x-in-bytes].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_get_src_y: (get-property src-y)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:src-y].
 *
 * Returns: the first source row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_src_y: (set-property src-y)
 * @self: a [class@GCuda.Copy2D]
 * @src_y: the first source row
 *
 * Sets [property@GCuda.Copy2D:src-y].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_get_src_pitch: (get-property src-pitch)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:src-pitch].
 *
 * Returns: the distance in bytes between the starts of two source rows
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_src_pitch: (set-property src-pitch)
 * @self: a [class@GCuda.Copy2D]
 * @src_pitch: the distance in bytes between the starts of two source rows
 *
 * Sets [property@GCuda.Copy2D:src-pitch].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_get_dst_x_in_bytes: (get-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:dst-x-in-bytes].
 *
 * Returns: the first destination byte of each row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_dst_x_in_bytes: (set-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 * @dst_x_in_bytes: the first destination byte of each row
 *
 * Sets [property@GCuda.Copy2D:dst-x-in-bytes].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_get_dst_y: (get-property dst-y)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:dst-y].
 *
 * Returns: the first destination row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_dst_y: (set-property dst-y)
 * @self: a [class@GCuda.Copy2D]
 * @dst_y: the first destination row
 *
 * Sets [property@GCuda.Copy2D:dst-y].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_get_dst_pitch: (get-property dst-pitch)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:dst-pitch].
 *
 * Returns: the distance in bytes between the starts of two destination rows
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_dst_pitch: (set-property dst-pitch)
 * @self: a [class@GCuda.Copy2D]
 * @dst_pitch: the distance in bytes between the starts of two destination rows
 *
 * Sets [property@GCuda.Copy2D:dst-pitch].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_get_width_in_bytes: (get-property width-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:width-in-bytes].
 *
 * Returns: the number of bytes copied from each row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_width_in_bytes: (set-property width-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 * @width_in_bytes: the number of bytes copied from each row
 *
 * Sets [property@GCuda.Copy2D:width-in-bytes].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_get_height: (get-property height)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:height].
 *
 * Returns: the number of rows copied
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_2d_set_height: (set-property height)
 * @self: a [class@GCuda.Copy2D]
 * @height: the number of rows copied
 *
 * Sets [property@GCuda.Copy2D:height].
 *
 * Since: 1.0
 */
GCUDA_COPY_2D_FIELDS (GCUDA_COPY_FIELD_ACCESSORS, COPY_CLASS, properties)
