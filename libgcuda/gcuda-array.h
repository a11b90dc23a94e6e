/* gcuda-array.h: CUDA arrays, the storage of textures and surfaces
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
 * GCudaArrayDescriptor:
 * @width: the width in elements, at least 1
 * @height: the height in elements; 0 for a 1D array (or 1D layers)
 * @depth: the depth in elements, or the number of layers of a layered
 *   array; 0 for a 1D or 2D array
 * @format: the type of each channel
 * @num_channels: the number of channels per element: 1, 2 or 4
 * @flags: the array's layout and uses
 *
 * The shape and element type of a [class@GCuda.Array] (PyCUDA's
 * `ArrayDescriptor3D`, the driver's `CUDA_ARRAY3D_DESCRIPTOR`).
 *
 * Since: 1.0
 */
struct _GCudaArrayDescriptor
{
  guint64 width;
  guint64 height;
  guint64 depth;
  GCudaArrayFormat format;
  guint num_channels;
  GCudaArrayFlags flags;
};

#define GCUDA_TYPE_ARRAY_DESCRIPTOR (gcuda_array_descriptor_get_type ())

GCUDA_AVAILABLE_IN_1_0
GType                 gcuda_array_descriptor_get_type     (void) G_GNUC_CONST;
GCUDA_AVAILABLE_IN_1_0
GCudaArrayDescriptor *gcuda_array_descriptor_new          (guint64                      width,
                                                           guint64                      height,
                                                           guint64                      depth,
                                                           GCudaArrayFormat             format,
                                                           guint                        num_channels,
                                                           GCudaArrayFlags              flags);
GCUDA_AVAILABLE_IN_1_0
GCudaArrayDescriptor *gcuda_array_descriptor_copy         (const GCudaArrayDescriptor  *self);
GCUDA_AVAILABLE_IN_1_0
void                  gcuda_array_descriptor_free         (GCudaArrayDescriptor        *self);
GCUDA_AVAILABLE_IN_1_0
gboolean              gcuda_array_descriptor_validate     (const GCudaArrayDescriptor  *self,
                                                           GError                     **error);
GCUDA_AVAILABLE_IN_1_0
guint                 gcuda_array_descriptor_get_element_size (const GCudaArrayDescriptor *self);
GCUDA_AVAILABLE_IN_1_0
guint64               gcuda_array_descriptor_get_size     (const GCudaArrayDescriptor  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GCudaArrayDescriptor, gcuda_array_descriptor_free)

#define GCUDA_TYPE_ARRAY (gcuda_array_get_type ())

/**
 * GCudaArrayClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Array]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaArray, gcuda_array, GCUDA, ARRAY, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaArray           *gcuda_array_new                     (GCudaContext                *context,
                                                           const GCudaArrayDescriptor  *descriptor,
                                                           GError                     **error);
GCUDA_AVAILABLE_IN_1_0
GCudaContext         *gcuda_array_get_context             (GCudaArray                  *self);
GCUDA_AVAILABLE_IN_1_0
GCudaArrayDescriptor *gcuda_array_get_descriptor          (GCudaArray                  *self);
GCUDA_AVAILABLE_IN_1_0
guint64               gcuda_array_get_size                (GCudaArray                  *self);
GCUDA_AVAILABLE_IN_1_0
gboolean              gcuda_array_is_freed                (GCudaArray                  *self);
GCUDA_AVAILABLE_IN_1_0
gboolean              gcuda_array_free                    (GCudaArray                  *self,
                                                           GError                     **error);

GCUDA_AVAILABLE_IN_1_0
gboolean              gcuda_array_upload                  (GCudaArray                  *self,
                                                           guint64                      offset,
                                                           const guint8                *data,
                                                           gsize                        size,
                                                           GError                     **error);
GCUDA_AVAILABLE_IN_1_0
gboolean              gcuda_array_upload_from_address     (GCudaArray                  *self,
                                                           guint64                      offset,
                                                           guint64                      address,
                                                           guint64                      size,
                                                           GError                     **error);
GCUDA_AVAILABLE_IN_1_0
GBytes               *gcuda_array_download                (GCudaArray                  *self,
                                                           guint64                      offset,
                                                           guint64                      size,
                                                           GError                     **error);
GCUDA_AVAILABLE_IN_1_0
gboolean              gcuda_array_download_to_address     (GCudaArray                  *self,
                                                           guint64                      offset,
                                                           guint64                      address,
                                                           guint64                      size,
                                                           GError                     **error);
GCUDA_AVAILABLE_IN_1_0
gboolean              gcuda_array_copy_from_buffer        (GCudaArray                  *self,
                                                           guint64                      offset,
                                                           GCudaBuffer                 *buffer,
                                                           guint64                      buffer_offset,
                                                           guint64                      size,
                                                           GError                     **error);
GCUDA_AVAILABLE_IN_1_0
gboolean              gcuda_array_copy_to_buffer          (GCudaArray                  *self,
                                                           guint64                      offset,
                                                           GCudaBuffer                 *buffer,
                                                           guint64                      buffer_offset,
                                                           guint64                      size,
                                                           GError                     **error);
GCUDA_AVAILABLE_IN_1_0
gboolean              gcuda_array_copy_from_array         (GCudaArray                  *self,
                                                           guint64                      offset,
                                                           GCudaArray                  *source,
                                                           guint64                      source_offset,
                                                           guint64                      size,
                                                           GError                     **error);

G_END_DECLS
