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
/* The largest block and grid dimensions (x, y, z), read once with the
 * device, for launches to check without a driver call. */
void         _gcuda_device_get_launch_limits (GCudaDevice *self,
                                              guint        max_block[3],
                                              guint        max_grid[3]);

G_END_DECLS
