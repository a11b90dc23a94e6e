/* gcuda-device-model.h: the CUDA devices as a GListModel
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

#define GCUDA_TYPE_DEVICE_MODEL (gcuda_device_model_get_type ())

/**
 * GCudaDeviceModelClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.DeviceModel]. The type is final: it
 * cannot be subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaDeviceModel, gcuda_device_model, GCUDA, DEVICE_MODEL, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaDeviceModel *gcuda_device_model_get_default        (void);
GCUDA_AVAILABLE_IN_1_0
const GError    *gcuda_device_model_get_error          (GCudaDeviceModel *self);
GCUDA_AVAILABLE_IN_1_0
const char      *gcuda_device_model_get_status_message (GCudaDeviceModel *self);

G_END_DECLS
