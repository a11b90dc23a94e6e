/* gcuda-device.h: a CUDA device
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <glib-object.h>

#include "gcuda-types.h"
#include "gcuda-version-macros.h"
#include "gcuda-cuda-enums.h"
#include "gcuda-enums.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_DEVICE (gcuda_device_get_type ())

/**
 * GCudaDeviceClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Device]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaDevice, gcuda_device, GCUDA, DEVICE, GObject)

GCUDA_AVAILABLE_IN_1_0
int               gcuda_device_get_count                  (GError             **error);
GCUDA_AVAILABLE_IN_1_0
GCudaDevice      *gcuda_device_get                        (int                  ordinal,
                                                           GError             **error);
GCUDA_AVAILABLE_IN_1_0
GCudaDevice      *gcuda_device_get_by_pci_bus_id          (const char          *pci_bus_id,
                                                           GError             **error);
GCUDA_AVAILABLE_IN_1_0
GPtrArray        *gcuda_device_list                       (GError             **error);

GCUDA_AVAILABLE_IN_1_0
int               gcuda_device_get_ordinal                (GCudaDevice         *self);
GCUDA_AVAILABLE_IN_1_0
const char       *gcuda_device_get_name                   (GCudaDevice         *self);
GCUDA_AVAILABLE_IN_1_0
const char       *gcuda_device_get_pci_bus_id             (GCudaDevice         *self);
GCUDA_AVAILABLE_IN_1_0
const char       *gcuda_device_get_uuid                   (GCudaDevice         *self);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_device_get_compute_capability     (GCudaDevice         *self,
                                                           int                 *major,
                                                           int                 *minor);
GCUDA_AVAILABLE_IN_1_0
guint64           gcuda_device_get_total_memory           (GCudaDevice         *self);
GCUDA_AVAILABLE_IN_1_0
int               gcuda_device_get_multiprocessor_count   (GCudaDevice         *self);
GCUDA_AVAILABLE_IN_1_0
int               gcuda_device_get_max_threads_per_block  (GCudaDevice         *self);
GCUDA_AVAILABLE_IN_1_0
int               gcuda_device_get_warp_size              (GCudaDevice         *self);
GCUDA_AVAILABLE_IN_1_0
GCudaComputeMode  gcuda_device_get_compute_mode           (GCudaDevice         *self);

GCUDA_AVAILABLE_IN_1_0
int               gcuda_device_get_attribute              (GCudaDevice         *self,
                                                           GCudaDeviceAttribute attribute,
                                                           GError             **error);
GCUDA_AVAILABLE_IN_1_0
GHashTable       *gcuda_device_get_attributes             (GCudaDevice         *self,
                                                           GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_device_can_access_peer            (GCudaDevice         *self,
                                                           GCudaDevice         *peer,
                                                           GError             **error);
GCUDA_AVAILABLE_IN_1_0
int               gcuda_device_get_peer_attribute         (GCudaDevice         *self,
                                                           GCudaDevice         *peer,
                                                           GCudaPeerAttribute   attribute,
                                                           GError             **error);

GCUDA_AVAILABLE_IN_1_0
GCudaContext     *gcuda_device_get_primary_context        (GCudaDevice         *self,
                                                           GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_device_set_primary_context_flags  (GCudaDevice         *self,
                                                           GCudaContextFlags    flags,
                                                           GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_device_get_primary_context_state  (GCudaDevice         *self,
                                                           GCudaContextFlags   *flags,
                                                           gboolean            *active,
                                                           GError             **error);
GCUDA_AVAILABLE_IN_1_0
GCudaContext     *gcuda_device_create_context             (GCudaDevice         *self,
                                                           GCudaContextFlags    flags,
                                                           GError             **error);

GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_device_equal                      (GCudaDevice         *self,
                                                           GCudaDevice         *other);
GCUDA_AVAILABLE_IN_1_0
guint             gcuda_device_hash                       (GCudaDevice         *self);

GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_get_compute_capability_major (GCudaDevice *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_get_compute_capability_minor (GCudaDevice *self);

G_END_DECLS
