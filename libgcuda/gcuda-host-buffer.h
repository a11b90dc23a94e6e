/* gcuda-host-buffer.h: page-locked, aligned and registered host memory
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
#include "gcuda-enums.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_HOST_BUFFER (gcuda_host_buffer_get_type ())

/**
 * GCudaHostBufferClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.HostBuffer]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaHostBuffer, gcuda_host_buffer, GCUDA, HOST_BUFFER, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaHostBuffer     *gcuda_host_buffer_new_pagelocked   (GCudaContext            *context,
                                                         guint64                  size,
                                                         GCudaHostAllocFlags      flags,
                                                         GError                 **error);
GCUDA_AVAILABLE_IN_1_0
GCudaHostBuffer     *gcuda_host_buffer_new_aligned      (guint64                  size,
                                                         guint64                  alignment,
                                                         GError                 **error);
GCUDA_AVAILABLE_IN_1_0
GCudaHostBuffer     *gcuda_host_buffer_register         (GCudaContext            *context,
                                                         guint64                  address,
                                                         guint64                  size,
                                                         GCudaHostRegisterFlags   flags,
                                                         GError                 **error);

GCUDA_AVAILABLE_IN_1_0
GCudaContext        *gcuda_host_buffer_get_context      (GCudaHostBuffer         *self);
GCUDA_AVAILABLE_IN_1_0
guint64              gcuda_host_buffer_get_address      (GCudaHostBuffer         *self);
GCUDA_AVAILABLE_IN_1_0
guint64              gcuda_host_buffer_get_size         (GCudaHostBuffer         *self);
GCUDA_AVAILABLE_IN_1_0
GCudaHostBufferKind  gcuda_host_buffer_get_kind         (GCudaHostBuffer         *self);
GCUDA_AVAILABLE_IN_1_0
GCudaHostAllocFlags  gcuda_host_buffer_get_alloc_flags  (GCudaHostBuffer         *self);
GCUDA_AVAILABLE_IN_1_0
GCudaHostRegisterFlags gcuda_host_buffer_get_register_flags (GCudaHostBuffer       *self);
GCUDA_AVAILABLE_IN_1_0
guint64              gcuda_host_buffer_get_device_address (GCudaHostBuffer       *self,
                                                         GError                 **error);
GCUDA_AVAILABLE_IN_1_0
gboolean             gcuda_host_buffer_is_freed         (GCudaHostBuffer         *self);
GCUDA_AVAILABLE_IN_1_0
gboolean             gcuda_host_buffer_free             (GCudaHostBuffer         *self,
                                                         GError                 **error);
GCUDA_AVAILABLE_IN_1_0
gboolean             gcuda_host_buffer_unregister       (GCudaHostBuffer         *self,
                                                         GError                 **error);
GCUDA_AVAILABLE_IN_1_0
gboolean             gcuda_host_buffer_export_begin     (GCudaHostBuffer         *self,
                                                         GError                 **error);
GCUDA_AVAILABLE_IN_1_0
gboolean             gcuda_host_buffer_export_end       (GCudaHostBuffer         *self,
                                                         GError                 **error);

GCUDA_AVAILABLE_IN_1_0
GBytes              *gcuda_host_buffer_read             (GCudaHostBuffer         *self,
                                                         guint64                  offset,
                                                         guint64                  size,
                                                         GError                 **error);
GCUDA_AVAILABLE_IN_1_0
gboolean             gcuda_host_buffer_write            (GCudaHostBuffer         *self,
                                                         guint64                  offset,
                                                         GBytes                  *bytes,
                                                         GError                 **error);

G_END_DECLS
