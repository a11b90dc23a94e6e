/* gcuda-stream.h: a CUDA stream
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

#define GCUDA_TYPE_STREAM (gcuda_stream_get_type ())

/**
 * GCudaStreamClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Stream]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaStream, gcuda_stream, GCUDA, STREAM, GObject)

/**
 * GCudaStreamCallback:
 * @stream: the stream
 * @user_data: the data given to [method@GCuda.Stream.add_callback]
 *
 * A function run by [method@GCuda.Stream.add_callback] once the stream's
 * earlier work has finished.
 *
 * Since: 1.0
 */
typedef void (*GCudaStreamCallback) (GCudaStream *stream,
                                     gpointer     user_data);

GCUDA_AVAILABLE_IN_1_0
GCudaStream      *gcuda_stream_new                    (GCudaContext        *context,
                                                       GCudaStreamFlags     flags,
                                                       int                  priority,
                                                       GError             **error);
GCUDA_AVAILABLE_IN_1_0
GCudaStream      *gcuda_stream_get_per_thread_default (GCudaContext        *context,
                                                       GError             **error);

GCUDA_AVAILABLE_IN_1_0
GCudaStream      *gcuda_stream_new_for_handle         (GCudaContext        *context,
                                                       guint64              handle,
                                                       GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_stream_is_borrowed            (GCudaStream         *self);

GCUDA_AVAILABLE_IN_1_0
GCudaContext     *gcuda_stream_get_context            (GCudaStream         *self);
GCUDA_AVAILABLE_IN_1_0
GCudaStreamFlags  gcuda_stream_get_flags              (GCudaStream         *self);
GCUDA_AVAILABLE_IN_1_0
int               gcuda_stream_get_priority           (GCudaStream         *self);
GCUDA_AVAILABLE_IN_1_0
guint64           gcuda_stream_get_handle             (GCudaStream         *self);

GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_stream_synchronize            (GCudaStream         *self,
                                                       GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_stream_is_done                (GCudaStream         *self,
                                                       GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_stream_wait_event             (GCudaStream         *self,
                                                       GCudaEvent          *event,
                                                       GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_stream_add_callback           (GCudaStream         *self,
                                                       GCudaStreamCallback  callback,
                                                       gpointer             user_data,
                                                       GDestroyNotify       destroy,
                                                       GError             **error);

GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_stream_add_blocking_callback  (GCudaStream         *self,
                                                       GCudaStreamCallback  callback,
                                                       gpointer             user_data,
                                                       GDestroyNotify       destroy,
                                                       GError             **error);

GCUDA_AVAILABLE_IN_1_0
void              gcuda_stream_synchronize_async      (GCudaStream         *self,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_stream_synchronize_finish     (GCudaStream         *self,
                                                       GAsyncResult        *result,
                                                       GError             **error);

GCUDA_AVAILABLE_IN_1_0
gboolean           gcuda_stream_begin_capture         (GCudaStream         *self,
                                                       GCudaCaptureMode     mode,
                                                       GError             **error);
GCUDA_AVAILABLE_IN_1_0
GCudaGraph        *gcuda_stream_end_capture           (GCudaStream         *self,
                                                       GError             **error);
GCUDA_AVAILABLE_IN_1_0
GCudaCaptureStatus gcuda_stream_get_capture_status    (GCudaStream         *self,
                                                       GError             **error);

G_END_DECLS
