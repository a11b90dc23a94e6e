/* gcuda-copy-3d-peer.c: GCudaCopy3DPeer, a 3D copy between contexts (cuMemcpy3DPeer)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-copy-private.h"

/**
 * GCudaCopy3DPeer:
 *
 * A [class@GCuda.Copy3D] between memory of two contexts, possibly on two
 * devices (PyCUDA's `Memcpy3DPeer`, the driver's `cuMemcpy3DPeer`).
 *
 * ```c
 * static gboolean
 * copy_between_devices (GCudaBuffer *dest, GCudaBuffer *source, guint64 size,
 *                       GError **error)
 * {
 *   g_autoptr(GCudaCopy3DPeer) copy = gcuda_copy_3d_peer_new ();
 *
 *   // dest and source may be in contexts of two different devices
 *   gcuda_copy_3d_peer_set_src_buffer (copy, source);
 *   gcuda_copy_3d_peer_set_dst_buffer (copy, dest);
 *   g_object_set (copy,
 *                 "width-in-bytes", size,
 *                 "height", (guint64) 1,
 *                 "depth", (guint64) 1,
 *                 NULL);
 *   return gcuda_copy_3d_peer_execute (copy, NULL, error);
 * }
 * ```
 *
 * In Python, PyCUDA's `memcpy_peer()` copies a whole range between contexts:
 *
 * ```python
 * other = GCuda.Device(1).retain_primary_context()
 * src = GCuda.to_device(numpy.ones(1024, numpy.float32))
 * dest = GCuda.mem_alloc(src.get_size(), context=other)
 * GCuda.memcpy_peer(dest, src, src.get_size())
 * ```
 *
 * The context of a device buffer endpoint is the buffer's; for host and
 * unified endpoints it can be named with
 * [method@GCuda.Copy3DPeer.set_src_context] and
 * [method@GCuda.Copy3DPeer.set_dst_context]. The driver stages the copy through
 * the host when the devices have no peer access.
 *
 * Since: 1.0
 */

struct _GCudaCopy3DPeer
{
  GCudaCopyObject copy;
};

G_DEFINE_FINAL_TYPE (GCudaCopy3DPeer, gcuda_copy_3d_peer, G_TYPE_OBJECT)

static GParamSpec *properties[GCUDA_COPY_N_PROPS_3D];

/**
 * GCudaCopy3DPeer:src-x-in-bytes:
 *
 * The byte offset of the region within each source row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:src-y:
 *
 * The first source row of the region within each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:src-z:
 *
 * The first source slice of the region.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:src-pitch:
 *
 * The distance in bytes between the starts of two source rows.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:src-height:
 *
 * The number of rows in each source slice; it may stay 0 for a single
 * slice at [property@GCuda.Copy3DPeer:src-z] 0.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:dst-x-in-bytes:
 *
 * The byte offset of the region within each destination row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:dst-y:
 *
 * The first destination row of the region within each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:dst-z:
 *
 * The first destination slice of the region.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:dst-pitch:
 *
 * The distance in bytes between the starts of two destination rows.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:dst-height:
 *
 * The number of rows in each destination slice; it may stay 0 for a
 * single slice at [property@GCuda.Copy3DPeer:dst-z] 0.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:width-in-bytes:
 *
 * The number of bytes copied from each row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:height:
 *
 * The number of rows copied from each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:depth:
 *
 * The number of slices copied.
 *
 * Since: 1.0
 */

static void
gcuda_copy_3d_peer_class_init (GCudaCopy3DPeerClass *klass)
{
  _gcuda_copy_class_setup (G_OBJECT_CLASS (klass), properties, GCUDA_COPY_N_PROPS_3D);
}

static void
gcuda_copy_3d_peer_init (GCudaCopy3DPeer *self)
{
}

/**
 * gcuda_copy_3d_peer_new:
 *
 * Creates a cross-context 3D copy with every property 0, no endpoints and
 * no explicit contexts (PyCUDA's `Memcpy3DPeer()`).
 *
 * Returns: (transfer full): the new copy
 *
 * Since: 1.0
 */
GCudaCopy3DPeer *
gcuda_copy_3d_peer_new (void)
{
  return g_object_new (GCUDA_TYPE_COPY_3D_PEER, NULL);
}
#define COPY_CLASS GCudaCopy3DPeer, gcuda_copy_3d_peer, GCUDA_IS_COPY_3D_PEER

/**
 * gcuda_copy_3d_peer_set_src_host:
 * @self: a [class@GCuda.Copy3DPeer]
 * @address: the host address of the source memory
 * @size: the size of the source memory in bytes
 *
 * Copies from host memory; see [method@GCuda.Copy2D.set_src_host].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_dst_host:
 * @self: a [class@GCuda.Copy3DPeer]
 * @address: the host address of the destination memory
 * @size: the size of the destination memory in bytes
 *
 * Copies into host memory; see [method@GCuda.Copy2D.set_dst_host].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_src_host_buffer:
 * @self: a [class@GCuda.Copy3DPeer]
 * @buffer: (nullable): the host buffer, or %NULL to unset the source
 *
 * Copies from a [class@GCuda.HostBuffer], which the copy keeps alive.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_dst_host_buffer:
 * @self: a [class@GCuda.Copy3DPeer]
 * @buffer: (nullable): the host buffer, or %NULL to unset the destination
 *
 * Copies into a [class@GCuda.HostBuffer], which the copy keeps alive.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_src_buffer:
 * @self: a [class@GCuda.Copy3DPeer]
 * @buffer: (nullable): the device buffer, or %NULL to unset the source
 *
 * Copies from device memory of any context; the copy keeps @buffer alive.
 * Its context is the source context.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_dst_buffer:
 * @self: a [class@GCuda.Copy3DPeer]
 * @buffer: (nullable): the device buffer, or %NULL to unset the destination
 *
 * Copies into device memory of any context; the copy keeps @buffer alive.
 * Its context is the destination context.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_src_unified:
 * @self: a [class@GCuda.Copy3DPeer]
 * @address: an address in the unified address space
 * @size: the size of the source memory in bytes
 *
 * Copies from memory the driver locates itself; name its context with
 * [method@GCuda.Copy3DPeer.set_src_context] when it is not the one the copy
 * runs in.
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_dst_unified:
 * @self: a [class@GCuda.Copy3DPeer]
 * @address: an address in the unified address space
 * @size: the size of the destination memory in bytes
 *
 * Copies into memory the driver locates itself; name its context with
 * [method@GCuda.Copy3DPeer.set_dst_context] when it is not the one the copy
 * runs in.
 *
 * Since: 1.0
 */
GCUDA_COPY_ENDPOINT_SETTERS (COPY_CLASS)

/**
 * gcuda_copy_3d_peer_set_src_context:
 * @self: a [class@GCuda.Copy3DPeer]
 * @context: (nullable): the context of the source memory, or %NULL for
 *   the source buffer's
 *
 * Names the context the source memory belongs to (PyCUDA's
 * `set_src_context()`). With a device buffer as the source it must be the
 * buffer's context (else [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error] on
 * execution); without either, the context the copy runs in is used.
 *
 * Since: 1.0
 */
GCUDA_COPY_OBJECT_SETTER (COPY_CLASS, src, context, GCudaContext)

/**
 * gcuda_copy_3d_peer_set_dst_context:
 * @self: a [class@GCuda.Copy3DPeer]
 * @context: (nullable): the context of the destination memory, or %NULL
 *   for the destination buffer's
 *
 * Names the context the destination memory belongs to (PyCUDA's
 * `set_dst_context()`); see [method@GCuda.Copy3DPeer.set_src_context].
 *
 * Since: 1.0
 */
GCUDA_COPY_OBJECT_SETTER (COPY_CLASS, dst, context, GCudaContext)

/**
 * gcuda_copy_3d_peer_execute:
 * @self: a [class@GCuda.Copy3DPeer]
 * @stream: (nullable): the stream to order the copy on, or %NULL to copy
 *   synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Performs the copy (PyCUDA's `Memcpy3DPeer.__call__()`, `cuMemcpy3DPeer` or,
 * with a stream, `cuMemcpy3DPeerAsync`). It runs in the destination context,
 * else the source context, else the stream's, else the default context; a
 * stream must belong to the destination context when there is one, else to the
 * source context ([GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error]). A
 * destroyed context is [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error].
 * Every check is made before the driver is called.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_copy_3d_peer_execute (GCudaCopy3DPeer  *self,
                            GCudaStream      *stream,
                            GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), FALSE);
  return _gcuda_copy_execute (&self->copy.spec, GCUDA_COPY_FORM_3D_PEER, stream, error);
}
/**
 * gcuda_copy_3d_peer_get_src_x_in_bytes: (get-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:src-x-in-bytes].
 *
 * Returns: the first source byte of each row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_src_x_in_bytes: (set-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 * @src_x_in_bytes: the first source byte of each row
 *
 * Sets [property@GCuda.Copy3DPeer:src-x-in-bytes].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_src_y: (get-property src-y)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:src-y].
 *
 * Returns: the first source row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_src_y: (set-property src-y)
 * @self: a [class@GCuda.Copy3DPeer]
 * @src_y: the first source row
 *
 * Sets [property@GCuda.Copy3DPeer:src-y].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_src_pitch: (get-property src-pitch)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:src-pitch].
 *
 * Returns: the distance in bytes between the starts of two source rows
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_src_pitch: (set-property src-pitch)
 * @self: a [class@GCuda.Copy3DPeer]
 * @src_pitch: the distance in bytes between the starts of two source rows
 *
 * Sets [property@GCuda.Copy3DPeer:src-pitch].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_dst_x_in_bytes: (get-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:dst-x-in-bytes].
 *
 * Returns: the first destination byte of each row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_dst_x_in_bytes: (set-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 * @dst_x_in_bytes: the first destination byte of each row
 *
 * Sets [property@GCuda.Copy3DPeer:dst-x-in-bytes].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_dst_y: (get-property dst-y)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:dst-y].
 *
 * Returns: the first destination row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_dst_y: (set-property dst-y)
 * @self: a [class@GCuda.Copy3DPeer]
 * @dst_y: the first destination row
 *
 * Sets [property@GCuda.Copy3DPeer:dst-y].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_dst_pitch: (get-property dst-pitch)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:dst-pitch].
 *
 * Returns: the distance in bytes between the starts of two destination rows
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_dst_pitch: (set-property dst-pitch)
 * @self: a [class@GCuda.Copy3DPeer]
 * @dst_pitch: the distance in bytes between the starts of two destination rows
 *
 * Sets [property@GCuda.Copy3DPeer:dst-pitch].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_width_in_bytes: (get-property width-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:width-in-bytes].
 *
 * Returns: the number of bytes copied from each row
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_width_in_bytes: (set-property width-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 * @width_in_bytes: the number of bytes copied from each row
 *
 * Sets [property@GCuda.Copy3DPeer:width-in-bytes].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_height: (get-property height)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:height].
 *
 * Returns: the number of rows copied
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_height: (set-property height)
 * @self: a [class@GCuda.Copy3DPeer]
 * @height: the number of rows copied
 *
 * Sets [property@GCuda.Copy3DPeer:height].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_src_z: (get-property src-z)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:src-z].
 *
 * Returns: the first source slice
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_src_z: (set-property src-z)
 * @self: a [class@GCuda.Copy3DPeer]
 * @src_z: the first source slice
 *
 * Sets [property@GCuda.Copy3DPeer:src-z].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_src_height: (get-property src-height)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:src-height].
 *
 * Returns: the number of rows in a source slice
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_src_height: (set-property src-height)
 * @self: a [class@GCuda.Copy3DPeer]
 * @src_height: the number of rows in a source slice
 *
 * Sets [property@GCuda.Copy3DPeer:src-height].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_dst_z: (get-property dst-z)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:dst-z].
 *
 * Returns: the first destination slice
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_dst_z: (set-property dst-z)
 * @self: a [class@GCuda.Copy3DPeer]
 * @dst_z: the first destination slice
 *
 * Sets [property@GCuda.Copy3DPeer:dst-z].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_dst_height: (get-property dst-height)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:dst-height].
 *
 * Returns: the number of rows in a destination slice
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_dst_height: (set-property dst-height)
 * @self: a [class@GCuda.Copy3DPeer]
 * @dst_height: the number of rows in a destination slice
 *
 * Sets [property@GCuda.Copy3DPeer:dst-height].
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_get_depth: (get-property depth)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:depth].
 *
 * Returns: the number of slices copied
 *
 * Since: 1.0
 */
/**
 * gcuda_copy_3d_peer_set_depth: (set-property depth)
 * @self: a [class@GCuda.Copy3DPeer]
 * @depth: the number of slices copied
 *
 * Sets [property@GCuda.Copy3DPeer:depth].
 *
 * Since: 1.0
 */
GCUDA_COPY_3D_FIELDS (GCUDA_COPY_FIELD_ACCESSORS, COPY_CLASS, properties)
