/* gcuda-copy-3d.h: GCudaCopy3D, a copy of a box of bytes (cuMemcpy3D)
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

#define GCUDA_TYPE_COPY_3D (gcuda_copy_3d_get_type ())

/**
 * GCudaCopy3DClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Copy3D]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaCopy3D, gcuda_copy_3d, GCUDA, COPY_3D, GObject)

/* GCudaCopy3D */

GCUDA_AVAILABLE_IN_1_0
GCudaCopy3D     *gcuda_copy_3d_new                     (void);

GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_src_host            (GCudaCopy3D       *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_dst_host            (GCudaCopy3D       *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_src_host_buffer     (GCudaCopy3D       *self,
                                                        GCudaHostBuffer   *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_dst_host_buffer     (GCudaCopy3D       *self,
                                                        GCudaHostBuffer   *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_src_buffer          (GCudaCopy3D       *self,
                                                        GCudaBuffer       *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_dst_buffer          (GCudaCopy3D       *self,
                                                        GCudaBuffer       *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_src_unified         (GCudaCopy3D       *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_dst_unified         (GCudaCopy3D       *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_src_array           (GCudaCopy3D       *self,
                                                        GCudaArray        *array);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_dst_array           (GCudaCopy3D       *self,
                                                        GCudaArray        *array);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_copy_3d_execute                 (GCudaCopy3D       *self,
                                                        GCudaStream       *stream,
                                                        GError           **error);

/* the fields' getters and setters */
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_src_x_in_bytes (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_src_x_in_bytes (GCudaCopy3D *self,
                                                   guint64 src_x_in_bytes);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_src_y (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_src_y (GCudaCopy3D *self,
                                          guint64 src_y);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_src_pitch (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_src_pitch (GCudaCopy3D *self,
                                              guint64 src_pitch);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_dst_x_in_bytes (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_dst_x_in_bytes (GCudaCopy3D *self,
                                                   guint64 dst_x_in_bytes);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_dst_y (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_dst_y (GCudaCopy3D *self,
                                          guint64 dst_y);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_dst_pitch (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_dst_pitch (GCudaCopy3D *self,
                                              guint64 dst_pitch);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_width_in_bytes (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_width_in_bytes (GCudaCopy3D *self,
                                                   guint64 width_in_bytes);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_height (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_height (GCudaCopy3D *self,
                                           guint64 height);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_src_z (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_src_z (GCudaCopy3D *self,
                                          guint64 src_z);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_src_height (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_src_height (GCudaCopy3D *self,
                                               guint64 src_height);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_dst_z (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_dst_z (GCudaCopy3D *self,
                                          guint64 dst_z);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_dst_height (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_dst_height (GCudaCopy3D *self,
                                               guint64 dst_height);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_3d_get_depth (GCudaCopy3D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_3d_set_depth (GCudaCopy3D *self,
                                          guint64 depth);

G_END_DECLS
