/* gcuda-context.h: a CUDA context
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
#include "gcuda-enums.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_CONTEXT (gcuda_context_get_type ())

/**
 * GCudaContextClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Context]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaContext, gcuda_context, GCUDA, CONTEXT, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaContext     *gcuda_context_get_default               (GError          **error);

GCUDA_AVAILABLE_IN_1_0
GCudaDevice      *gcuda_context_get_device                (GCudaContext     *self);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_context_is_primary                (GCudaContext     *self);
GCUDA_AVAILABLE_IN_1_0
GCudaContextFlags gcuda_context_get_flags                 (GCudaContext     *self);
GCUDA_AVAILABLE_IN_1_0
guint64           gcuda_context_get_handle                (GCudaContext     *self);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_context_is_destroyed              (GCudaContext     *self);

GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_context_synchronize               (GCudaContext     *self,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_context_synchronize_async         (GCudaContext     *self,
                                                           GCancellable     *cancellable,
                                                           GAsyncReadyCallback callback,
                                                           gpointer          user_data);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_context_synchronize_finish        (GCudaContext     *self,
                                                           GAsyncResult     *result,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
guint64           gcuda_context_get_limit                 (GCudaContext     *self,
                                                           GCudaLimit        limit,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_context_set_limit                 (GCudaContext     *self,
                                                           GCudaLimit        limit,
                                                           guint64           value,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
GCudaCacheConfig  gcuda_context_get_cache_config          (GCudaContext     *self,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_context_set_cache_config          (GCudaContext     *self,
                                                           GCudaCacheConfig  config,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_context_get_memory_info           (GCudaContext     *self,
                                                           guint64          *free,
                                                           guint64          *total,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_context_get_stream_priority_range (GCudaContext     *self,
                                                           int              *least,
                                                           int              *greatest,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
guint             gcuda_context_get_api_version           (GCudaContext     *self,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_context_enable_peer_access        (GCudaContext     *self,
                                                           GCudaContext     *peer,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_context_disable_peer_access       (GCudaContext     *self,
                                                           GCudaContext     *peer,
                                                           GError          **error);

GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_context_push                      (GCudaContext     *self,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_context_pop                       (GError          **error);
GCUDA_AVAILABLE_IN_1_0
GCudaContext     *gcuda_context_get_current               (GError          **error);
GCUDA_AVAILABLE_IN_1_0
GCudaContext     *gcuda_context_get_thread_default        (GError          **error);

GCUDA_AVAILABLE_IN_1_0
void              gcuda_context_get_address_range         (GCudaContext     *self,
                                                           guint64           address,
                                                           guint64          *base,
                                                           guint64          *size,
                                                           GError          **error);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_context_get_pointer_info          (guint64           address,
                                                           GCudaMemoryType  *memory_type,
                                                           int              *device_ordinal,
                                                           gboolean         *is_managed,
                                                           GCudaContext    **context,
                                                           GError          **error);

GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_context_destroy                   (GCudaContext     *self,
                                                           GError          **error);

G_END_DECLS
