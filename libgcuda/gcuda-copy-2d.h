/* gcuda-copy-2d.h: GCudaCopy2D, a copy of a rectangle of bytes (cuMemcpy2D)
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

#define GCUDA_TYPE_COPY_2D (gcuda_copy_2d_get_type ())

/**
 * GCudaCopy2DClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Copy2D]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaCopy2D, gcuda_copy_2d, GCUDA, COPY_2D, GObject)

/* GCudaCopy2D */

GCUDA_AVAILABLE_IN_1_0
GCudaCopy2D     *gcuda_copy_2d_new                     (void);

GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_src_host            (GCudaCopy2D       *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_dst_host            (GCudaCopy2D       *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_src_host_buffer     (GCudaCopy2D       *self,
                                                        GCudaHostBuffer   *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_dst_host_buffer     (GCudaCopy2D       *self,
                                                        GCudaHostBuffer   *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_src_buffer          (GCudaCopy2D       *self,
                                                        GCudaBuffer       *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_dst_buffer          (GCudaCopy2D       *self,
                                                        GCudaBuffer       *buffer);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_src_unified         (GCudaCopy2D       *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_dst_unified         (GCudaCopy2D       *self,
                                                        guint64            address,
                                                        guint64            size);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_src_array           (GCudaCopy2D       *self,
                                                        GCudaArray        *array);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_dst_array           (GCudaCopy2D       *self,
                                                        GCudaArray        *array);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_copy_2d_execute                 (GCudaCopy2D       *self,
                                                        GCudaStream       *stream,
                                                        GError           **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_copy_2d_get_aligned             (GCudaCopy2D       *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_aligned             (GCudaCopy2D       *self,
                                                        gboolean           aligned);

/* the fields' getters and setters */
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_2d_get_src_x_in_bytes (GCudaCopy2D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_src_x_in_bytes (GCudaCopy2D *self,
                                                   guint64 src_x_in_bytes);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_2d_get_src_y (GCudaCopy2D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_src_y (GCudaCopy2D *self,
                                          guint64 src_y);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_2d_get_src_pitch (GCudaCopy2D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_src_pitch (GCudaCopy2D *self,
                                              guint64 src_pitch);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_2d_get_dst_x_in_bytes (GCudaCopy2D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_dst_x_in_bytes (GCudaCopy2D *self,
                                                   guint64 dst_x_in_bytes);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_2d_get_dst_y (GCudaCopy2D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_dst_y (GCudaCopy2D *self,
                                          guint64 dst_y);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_2d_get_dst_pitch (GCudaCopy2D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_dst_pitch (GCudaCopy2D *self,
                                              guint64 dst_pitch);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_2d_get_width_in_bytes (GCudaCopy2D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_width_in_bytes (GCudaCopy2D *self,
                                                   guint64 width_in_bytes);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_copy_2d_get_height (GCudaCopy2D *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_copy_2d_set_height (GCudaCopy2D *self,
                                           guint64 height);

G_END_DECLS
