/* gcuda-graphics-resource.h: OpenGL objects registered with CUDA
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <gio/gio.h>

#include "gcuda-enums.h"
#include "gcuda-types.h"
#include "gcuda-version-macros.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_GRAPHICS_RESOURCE (gcuda_graphics_resource_get_type ())

/**
 * GCudaGraphicsResourceClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.GraphicsResource]. The type is final:
 * it cannot be subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaGraphicsResource, gcuda_graphics_resource, GCUDA, GRAPHICS_RESOURCE, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaGraphicsResource    *gcuda_graphics_resource_new_for_gl_buffer (GCudaContext                *context,
                                                                     guint                        buffer,
                                                                     GCudaGraphicsRegisterFlags   flags,
                                                                     GError                     **error);
GCUDA_AVAILABLE_IN_1_0
GCudaGraphicsResource    *gcuda_graphics_resource_new_for_gl_image  (GCudaContext                *context,
                                                                     guint                        image,
                                                                     guint                        target,
                                                                     GCudaGraphicsRegisterFlags   flags,
                                                                     GError                     **error);

GCUDA_AVAILABLE_IN_1_0
GCudaContext             *gcuda_graphics_resource_get_context       (GCudaGraphicsResource       *self);
GCUDA_AVAILABLE_IN_1_0
GCudaGraphicsResourceKind gcuda_graphics_resource_get_kind          (GCudaGraphicsResource       *self);
GCUDA_AVAILABLE_IN_1_0
guint                     gcuda_graphics_resource_get_gl_name       (GCudaGraphicsResource       *self);
GCUDA_AVAILABLE_IN_1_0
guint                     gcuda_graphics_resource_get_gl_target     (GCudaGraphicsResource       *self);
GCUDA_AVAILABLE_IN_1_0
GCudaGraphicsRegisterFlags gcuda_graphics_resource_get_flags        (GCudaGraphicsResource       *self);
GCUDA_AVAILABLE_IN_1_0
gboolean                  gcuda_graphics_resource_is_mapped         (GCudaGraphicsResource       *self);
GCUDA_AVAILABLE_IN_1_0
gboolean                  gcuda_graphics_resource_is_registered     (GCudaGraphicsResource       *self);

GCUDA_AVAILABLE_IN_1_0
gboolean                  gcuda_graphics_resource_map               (GCudaGraphicsResource       *self,
                                                                     GCudaStream                 *stream,
                                                                     GError                     **error);
GCUDA_AVAILABLE_IN_1_0
gboolean                  gcuda_graphics_resource_unmap             (GCudaGraphicsResource       *self,
                                                                     GCudaStream                 *stream,
                                                                     GError                     **error);
GCUDA_AVAILABLE_IN_1_0
gboolean                  gcuda_graphics_resource_map_all           (GCudaGraphicsResource      **resources,
                                                                     guint                        n_resources,
                                                                     GCudaStream                 *stream,
                                                                     GError                     **error);
GCUDA_AVAILABLE_IN_1_0
gboolean                  gcuda_graphics_resource_unmap_all         (GCudaGraphicsResource      **resources,
                                                                     guint                        n_resources,
                                                                     GCudaStream                 *stream,
                                                                     GError                     **error);

GCUDA_AVAILABLE_IN_1_0
GCudaBuffer              *gcuda_graphics_resource_get_mapped_buffer (GCudaGraphicsResource       *self,
                                                                     GError                     **error);
GCUDA_AVAILABLE_IN_1_0
GCudaArray               *gcuda_graphics_resource_get_mapped_array  (GCudaGraphicsResource       *self,
                                                                     guint                        array_index,
                                                                     guint                        mip_level,
                                                                     GError                     **error);

GCUDA_AVAILABLE_IN_1_0
gboolean                  gcuda_graphics_resource_unregister        (GCudaGraphicsResource       *self,
                                                                     GError                     **error);

GCUDA_AVAILABLE_IN_1_0
GPtrArray                *gcuda_graphics_get_gl_devices             (GCudaGLDeviceList            which,
                                                                     GError                     **error);

G_END_DECLS
