/* gcuda-event.h: a CUDA event
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

#define GCUDA_TYPE_EVENT (gcuda_event_get_type ())

/**
 * GCudaEventClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Event]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaEvent, gcuda_event, GCUDA, EVENT, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaEvent      *gcuda_event_new                 (GCudaContext        *context,
                                                  GCudaEventFlags      flags,
                                                  GError             **error);
GCUDA_AVAILABLE_IN_1_0
GCudaEvent      *gcuda_event_new_from_ipc_handle (GCudaContext        *context,
                                                  GBytes              *handle,
                                                  GError             **error);

GCUDA_AVAILABLE_IN_1_0
GCudaContext    *gcuda_event_get_context         (GCudaEvent          *self);
GCUDA_AVAILABLE_IN_1_0
GCudaEventFlags  gcuda_event_get_flags           (GCudaEvent          *self);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_event_get_handle          (GCudaEvent          *self);

GCUDA_AVAILABLE_IN_1_0
GCudaEvent      *gcuda_event_record              (GCudaEvent          *self,
                                                  GCudaStream         *stream,
                                                  GError             **error);
GCUDA_AVAILABLE_IN_1_0
GCudaEvent      *gcuda_event_synchronize         (GCudaEvent          *self,
                                                  GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_event_query               (GCudaEvent          *self,
                                                  GError             **error);
GCUDA_AVAILABLE_IN_1_0
float            gcuda_event_time_since          (GCudaEvent          *self,
                                                  GCudaEvent          *start,
                                                  GError             **error);
GCUDA_AVAILABLE_IN_1_0
float            gcuda_event_time_till           (GCudaEvent          *self,
                                                  GCudaEvent          *end,
                                                  GError             **error);
GCUDA_AVAILABLE_IN_1_0
float            gcuda_event_elapsed             (GCudaEvent          *start,
                                                  GCudaEvent          *end,
                                                  GError             **error);

GCUDA_AVAILABLE_IN_1_0
GBytes          *gcuda_event_get_ipc_handle      (GCudaEvent          *self,
                                                  GError             **error);

GCUDA_AVAILABLE_IN_1_0
void             gcuda_event_synchronize_async          (GCudaEvent          *self,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_event_synchronize_finish         (GCudaEvent          *self,
                                                  GAsyncResult        *result,
                                                  GError             **error);

G_END_DECLS
