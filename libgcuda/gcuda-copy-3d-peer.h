/* gcuda-copy-3d-peer.h: GCudaCopy3DPeer, a 3D copy between contexts (cuMemcpy3DPeer)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <gio/gio.h>

#include "gcuda-types.h"
#include "gcuda-version-macros.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_COPY_3D_PEER (gcuda_copy_3d_peer_get_type ())

/**
 * GCudaCopy3DPeerClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Copy3DPeer]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaCopy3DPeer, gcuda_copy_3d_peer, GCUDA, COPY_3D_PEER, GObject)

/* GCudaCopy3DPeer */

GCUDA_AVAILABLE_IN_1_0
GCudaCopy3DPeer *gcuda_copy_3d_peer_new                (void);

GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_src_host       (GCudaCopy3DPeer   *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_dst_host       (GCudaCopy3DPeer   *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_src_host_buffer (GCudaCopy3DPeer  *self,
                                                        GCudaHostBuffer   *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_dst_host_buffer (GCudaCopy3DPeer  *self,
                                                        GCudaHostBuffer   *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_src_buffer     (GCudaCopy3DPeer   *self,
                                                        GCudaBuffer       *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_dst_buffer     (GCudaCopy3DPeer   *self,
                                                        GCudaBuffer       *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_src_unified    (GCudaCopy3DPeer   *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_dst_unified    (GCudaCopy3DPeer   *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_src_context    (GCudaCopy3DPeer   *self,
                                                        GCudaContext      *context);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_dst_context    (GCudaCopy3DPeer   *self,
                                                        GCudaContext      *context);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_copy_3d_peer_execute            (GCudaCopy3DPeer   *self,
                                                        GCudaStream       *stream,
                                                        GError           **error);

/* the fields' getters and setters */
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_src_x_in_bytes (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_src_x_in_bytes (GCudaCopy3DPeer *self,
                                                        guint64 src_x_in_bytes);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_src_y (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_src_y (GCudaCopy3DPeer *self,
                                               guint64 src_y);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_src_pitch (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_src_pitch (GCudaCopy3DPeer *self,
                                                   guint64 src_pitch);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_dst_x_in_bytes (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_dst_x_in_bytes (GCudaCopy3DPeer *self,
                                                        guint64 dst_x_in_bytes);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_dst_y (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_dst_y (GCudaCopy3DPeer *self,
                                               guint64 dst_y);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_dst_pitch (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_dst_pitch (GCudaCopy3DPeer *self,
                                                   guint64 dst_pitch);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_width_in_bytes (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_width_in_bytes (GCudaCopy3DPeer *self,
                                                        guint64 width_in_bytes);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_height (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_height (GCudaCopy3DPeer *self,
                                                guint64 height);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_src_z (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_src_z (GCudaCopy3DPeer *self,
                                               guint64 src_z);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_src_height (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_src_height (GCudaCopy3DPeer *self,
                                                    guint64 src_height);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_dst_z (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_dst_z (GCudaCopy3DPeer *self,
                                               guint64 dst_z);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_dst_height (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_dst_height (GCudaCopy3DPeer *self,
                                                    guint64 dst_height);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_peer_get_depth (GCudaCopy3DPeer *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_peer_set_depth (GCudaCopy3DPeer *self,
                                               guint64 depth);

G_END_DECLS
