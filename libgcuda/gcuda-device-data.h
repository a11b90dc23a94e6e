/* gcuda-device-data.h: a device's figures for occupancy and alignment
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

G_BEGIN_DECLS

#define GCUDA_TYPE_DEVICE_DATA (gcuda_device_data_get_type ())

/**
 * GCudaDeviceDataClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.DeviceData]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaDeviceData, gcuda_device_data, GCUDA, DEVICE_DATA, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaDeviceData *gcuda_device_data_new                 (GCudaDevice      *device,
                                                        GError          **error);

GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_max_threads     (GCudaDeviceData  *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_warp_size       (GCudaDeviceData  *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_warps_per_mp    (GCudaDeviceData  *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_thread_blocks_per_mp (GCudaDeviceData *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_registers       (GCudaDeviceData  *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_shared_memory   (GCudaDeviceData  *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_smem_granularity (GCudaDeviceData *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_smem_alloc_granularity (GCudaDeviceData *self);

GCUDA_AVAILABLE_IN_1_0
guint            gcuda_device_data_align_bytes         (GCudaDeviceData  *self,
                                                        guint             word_size,
                                                        GError          **error);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_device_data_align               (GCudaDeviceData  *self,
                                                        guint64           bytes,
                                                        guint             word_size,
                                                        GError          **error);
GCUDA_AVAILABLE_IN_1_0
guint            gcuda_device_data_align_words         (GCudaDeviceData  *self,
                                                        guint             word_size,
                                                        GError          **error);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_device_data_align_dtype         (GCudaDeviceData  *self,
                                                        guint64           elements,
                                                        guint             dtype_size,
                                                        GError          **error);
GCUDA_AVAILABLE_IN_1_0
guint            gcuda_device_data_make_valid_tex_channel_count (guint     size,
                                                                 GError  **error);

GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_compute_capability_major (GCudaDeviceData *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_compute_capability_minor (GCudaDeviceData *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_registers_per_block (GCudaDeviceData *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_max_registers_per_thread (GCudaDeviceData *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_register_alloc_granularity (GCudaDeviceData *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_shared_memory_per_block (GCudaDeviceData *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_shared_memory_per_block_optin (GCudaDeviceData *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_device_data_get_reserved_shared_memory_per_block (GCudaDeviceData *self);

G_END_DECLS
