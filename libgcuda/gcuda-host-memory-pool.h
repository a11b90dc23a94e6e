/* gcuda-host-memory-pool.h: a pool of page-locked host memory blocks
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

#define GCUDA_TYPE_HOST_MEMORY_POOL (gcuda_host_memory_pool_get_type ())

/**
 * GCudaHostMemoryPoolClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.HostMemoryPool]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaHostMemoryPool, gcuda_host_memory_pool, GCUDA, HOST_MEMORY_POOL, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaHostMemoryPool *gcuda_host_memory_pool_new                (GCudaContext         *context,
                                                                GCudaHostAllocFlags   flags);
GCUDA_AVAILABLE_IN_1_0
GCudaHostBuffer     *gcuda_host_memory_pool_allocate           (GCudaHostMemoryPool  *self,
                                                                guint64               size,
                                                                GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean             gcuda_host_memory_pool_allocate_address   (GCudaHostMemoryPool  *self,
                                                                guint64               size,
                                                                guint64              *address,
                                                                GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean             gcuda_host_memory_pool_free_address       (GCudaHostMemoryPool  *self,
                                                                guint64               address,
                                                                GError              **error);
GCUDA_AVAILABLE_IN_1_0
GCudaHostBuffer     *gcuda_host_memory_pool_adopt_address      (GCudaHostMemoryPool  *self,
                                                                guint64               address,
                                                                GError              **error);
GCUDA_AVAILABLE_IN_1_0
void                 gcuda_host_memory_pool_free_held          (GCudaHostMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
void                 gcuda_host_memory_pool_stop_holding       (GCudaHostMemoryPool  *self);

GCUDA_AVAILABLE_IN_1_0
GCudaContext        *gcuda_host_memory_pool_get_context        (GCudaHostMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
GCudaHostAllocFlags  gcuda_host_memory_pool_get_flags          (GCudaHostMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
guint64              gcuda_host_memory_pool_get_held_blocks    (GCudaHostMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
guint64              gcuda_host_memory_pool_get_active_blocks  (GCudaHostMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
guint64              gcuda_host_memory_pool_get_managed_bytes  (GCudaHostMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
guint64              gcuda_host_memory_pool_get_active_bytes   (GCudaHostMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
guint64              gcuda_host_memory_pool_get_max_held_bytes (GCudaHostMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
void                 gcuda_host_memory_pool_set_max_held_bytes (GCudaHostMemoryPool  *self,
                                                                guint64               max_held_bytes);

G_END_DECLS
