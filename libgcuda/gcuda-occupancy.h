/* gcuda-occupancy.h: the occupancy of a kernel workload on a device
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
#include "gcuda-enums.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_OCCUPANCY (gcuda_occupancy_get_type ())

/**
 * GCudaOccupancyClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Occupancy]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaOccupancy, gcuda_occupancy, GCUDA, OCCUPANCY, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaOccupancy      *gcuda_occupancy_new              (GCudaDeviceData     *devdata,
                                                       guint                threads,
                                                       guint64              shared_mem,
                                                       guint                registers,
                                                       GError             **error);

GCUDA_AVAILABLE_IN_1_0
int                  gcuda_occupancy_get_tb_per_mp    (GCudaOccupancy      *self);
GCUDA_AVAILABLE_IN_1_0
GCudaOccupancyLimit  gcuda_occupancy_get_limited_by   (GCudaOccupancy      *self);
GCUDA_AVAILABLE_IN_1_0
int                  gcuda_occupancy_get_warps_per_mp (GCudaOccupancy      *self);
GCUDA_AVAILABLE_IN_1_0
double               gcuda_occupancy_get_occupancy    (GCudaOccupancy      *self);
GCUDA_AVAILABLE_IN_1_0
int                  gcuda_occupancy_get_limit        (GCudaOccupancy      *self,
                                                       GCudaOccupancyLimit  limit);

G_END_DECLS
