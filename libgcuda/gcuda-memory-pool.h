/* gcuda-memory-pool.h: a pool of device memory blocks
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

#define GCUDA_TYPE_MEMORY_POOL (gcuda_memory_pool_get_type ())

/**
 * GCudaMemoryPoolClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.MemoryPool]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaMemoryPool, gcuda_memory_pool, GCUDA, MEMORY_POOL, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaMemoryPool *gcuda_memory_pool_new                (GCudaContext     *context);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer     *gcuda_memory_pool_allocate           (GCudaMemoryPool  *self,
                                                       guint64           size,
                                                       GError          **error);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_memory_pool_allocate_address   (GCudaMemoryPool  *self,
                                                       guint64           size,
                                                       GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_memory_pool_free_address       (GCudaMemoryPool  *self,
                                                       guint64           address,
                                                       GError          **error);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer     *gcuda_memory_pool_adopt_address      (GCudaMemoryPool  *self,
                                                       guint64           address,
                                                       GError          **error);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_memory_pool_free_held          (GCudaMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_memory_pool_stop_holding       (GCudaMemoryPool  *self);

GCUDA_AVAILABLE_IN_1_0
GCudaContext    *gcuda_memory_pool_get_context        (GCudaMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_memory_pool_get_held_blocks    (GCudaMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_memory_pool_get_active_blocks  (GCudaMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_memory_pool_get_managed_bytes  (GCudaMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_memory_pool_get_active_bytes   (GCudaMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_memory_pool_get_max_held_bytes (GCudaMemoryPool  *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_memory_pool_set_max_held_bytes (GCudaMemoryPool  *self,
                                                       guint64           max_held_bytes);

GCUDA_AVAILABLE_IN_1_0
guint            gcuda_memory_pool_bin_number         (guint64           size);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_memory_pool_alloc_size         (guint             bin);
GCUDA_AVAILABLE_IN_1_0
guint            gcuda_bitlog2                        (guint64           value);

G_END_DECLS
