/* gcuda-device-list.h: the CUDA devices as a GListModel
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

#define GCUDA_TYPE_DEVICE_LIST (gcuda_device_list_get_type ())

/**
 * GCudaDeviceListClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.DeviceList]. The type is final: it
 * cannot be subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaDeviceList, gcuda_device_list, GCUDA, DEVICE_LIST, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaDeviceList *gcuda_device_list_get_default        (void);
GCUDA_AVAILABLE_IN_1_0
const GError    *gcuda_device_list_get_error          (GCudaDeviceList *self);
GCUDA_AVAILABLE_IN_1_0
const char      *gcuda_device_list_get_status_message (GCudaDeviceList *self);

G_END_DECLS
