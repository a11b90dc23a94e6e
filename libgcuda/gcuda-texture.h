/* gcuda-texture.h: texture objects
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <gio/gio.h>

#include "gcuda-types.h"
#include "gcuda-enums.h"
#include "gcuda-version-macros.h"

G_BEGIN_DECLS

/**
 * GCudaTextureDescriptor:
 * @address_mode_x: the address mode of the first dimension
 * @address_mode_y: the address mode of the second dimension
 * @address_mode_z: the address mode of the third dimension
 * @filter_mode: how reads between elements are answered
 * @flags: read options
 *
 * How a [class@GCuda.Texture] reads (the driver's `CUDA_TEXTURE_DESC`, PyCUDA's
 * `TextureReference` settings). [ctor@GCuda.TextureDescriptor.new] starts at
 * [GCUDA_ADDRESS_MODE_CLAMP][enum@GCuda.AddressMode],
 * [GCUDA_FILTER_MODE_POINT][enum@GCuda.FilterMode] and no flags.
 *
 * Since: 1.0
 */
struct _GCudaTextureDescriptor
{
  GCudaAddressMode address_mode_x;
  GCudaAddressMode address_mode_y;
  GCudaAddressMode address_mode_z;
  GCudaFilterMode filter_mode;
  GCudaTextureFlags flags;
};

#define GCUDA_TYPE_TEXTURE_DESCRIPTOR (gcuda_texture_descriptor_get_type ())

GCUDA_AVAILABLE_IN_1_0
GType                   gcuda_texture_descriptor_get_type (void) G_GNUC_CONST;
GCUDA_AVAILABLE_IN_1_0
GCudaTextureDescriptor *gcuda_texture_descriptor_new      (void);
GCUDA_AVAILABLE_IN_1_0
GCudaTextureDescriptor *gcuda_texture_descriptor_copy     (const GCudaTextureDescriptor *self);
GCUDA_AVAILABLE_IN_1_0
void                    gcuda_texture_descriptor_free     (GCudaTextureDescriptor       *self);
GCUDA_AVAILABLE_IN_1_0
void                    gcuda_texture_descriptor_set_address_mode (GCudaTextureDescriptor *self,
                                                                   GCudaAddressMode        mode);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GCudaTextureDescriptor, gcuda_texture_descriptor_free)

#define GCUDA_TYPE_TEXTURE (gcuda_texture_get_type ())

/**
 * GCudaTextureClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Texture]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaTexture, gcuda_texture, GCUDA, TEXTURE, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaTexture *gcuda_texture_new_from_array   (GCudaArray                    *array,
                                              const GCudaTextureDescriptor  *descriptor,
                                              GError                       **error);
GCUDA_AVAILABLE_IN_1_0
GCudaTexture *gcuda_texture_new_from_buffer  (GCudaBuffer                   *buffer,
                                              GCudaArrayFormat               format,
                                              guint                          num_channels,
                                              const GCudaTextureDescriptor  *descriptor,
                                              GError                       **error);
GCUDA_AVAILABLE_IN_1_0
GCudaTexture *gcuda_texture_new_from_pitched (GCudaBuffer                   *buffer,
                                              GCudaArrayFormat               format,
                                              guint                          num_channels,
                                              guint64                        width,
                                              guint64                        height,
                                              guint64                        pitch,
                                              const GCudaTextureDescriptor  *descriptor,
                                              GError                       **error);
GCUDA_AVAILABLE_IN_1_0
guint64       gcuda_texture_get_handle       (GCudaTexture                  *self);
GCUDA_AVAILABLE_IN_1_0
GCudaContext *gcuda_texture_get_context      (GCudaTexture                  *self);
GCUDA_AVAILABLE_IN_1_0
GCudaArray   *gcuda_texture_get_array        (GCudaTexture                  *self);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer  *gcuda_texture_get_buffer       (GCudaTexture                  *self);

G_END_DECLS
