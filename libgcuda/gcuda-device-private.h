/* gcuda-device-private.h: what contexts need of GCudaDevice
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

GCudaDevice *_gcuda_device_new (int       ordinal,
                                CUdevice  handle,
                                GError  **error);
CUdevice     _gcuda_device_get_handle (GCudaDevice *self);

G_END_DECLS
