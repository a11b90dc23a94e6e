/* gcuda-stream-pool.h: the driver's stream-ordered allocator
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

#define GCUDA_TYPE_STREAM_POOL (gcuda_stream_pool_get_type ())

/**
 * GCudaStreamPoolClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.StreamPool]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaStreamPool, gcuda_stream_pool, GCUDA, STREAM_POOL, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaStreamPool *gcuda_stream_pool_new                        (GCudaContext     *context,
                                                               GError          **error);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer     *gcuda_stream_pool_allocate                   (GCudaStreamPool  *self,
                                                               guint64           size,
                                                               GCudaStream      *stream,
                                                               GError          **error);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_stream_pool_allocate_address           (GCudaStreamPool  *self,
                                                               guint64           size,
                                                               GCudaStream      *stream,
                                                               GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_stream_pool_free_address               (GCudaStreamPool  *self,
                                                               guint64           address,
                                                               GCudaStream      *stream,
                                                               GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_stream_pool_trim                       (GCudaStreamPool  *self,
                                                               guint64           keep_bytes,
                                                               GError          **error);

GCUDA_AVAILABLE_IN_1_0
GCudaContext    *gcuda_stream_pool_get_context                (GCudaStreamPool  *self);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_stream_pool_get_release_threshold      (GCudaStreamPool  *self);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_stream_pool_set_release_threshold      (GCudaStreamPool  *self,
                                                               guint64           release_threshold,
                                                               GError          **error);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_stream_pool_get_reserved_bytes_current (GCudaStreamPool  *self,
                                                               GError          **error);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_stream_pool_get_used_bytes_current     (GCudaStreamPool  *self,
                                                               GError          **error);

G_END_DECLS
