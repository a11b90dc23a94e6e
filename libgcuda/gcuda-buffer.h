/* gcuda-buffer.h: device memory
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

#define GCUDA_TYPE_BUFFER (gcuda_buffer_get_type ())

/**
 * GCudaBufferClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Buffer]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaBuffer, gcuda_buffer, GCUDA, BUFFER, GObject)

/**
 * GCudaBufferNotify:
 * @user_data: the data given to [ctor@GCuda.Buffer.new_for_address]
 *
 * Called once when GCuda no longer uses memory it borrowed with
 * [ctor@GCuda.Buffer.new_for_address]: typically drops a reference to what
 * owns the memory. It has the signature of [callback@GLib.DestroyNotify],
 * so `g_object_unref` or `g_free` can be passed as they are.
 *
 * Since: 1.0
 */
typedef void (*GCudaBufferNotify) (gpointer user_data);

GCUDA_AVAILABLE_IN_1_0
GCudaBuffer     *gcuda_buffer_new                     (GCudaContext         *context,
                                                       guint64               size,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer     *gcuda_buffer_new_pitched             (GCudaContext         *context,
                                                       guint64               width,
                                                       guint64               height,
                                                       guint                 access_size,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer     *gcuda_buffer_new_from_bytes          (GCudaContext         *context,
                                                       GBytes               *bytes,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer     *gcuda_buffer_new_managed             (GCudaContext         *context,
                                                       guint64               size,
                                                       GCudaMemAttachFlags   flags,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer     *gcuda_buffer_new_view                (GCudaBuffer          *parent,
                                                       guint64               offset,
                                                       guint64               size,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer     *gcuda_buffer_new_for_address         (GCudaContext         *context,
                                                       guint64               address,
                                                       guint64               size,
                                                       GCudaBufferNotify     notify,
                                                       gpointer              user_data,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer     *gcuda_buffer_open_ipc_handle         (GCudaContext         *context,
                                                       GBytes               *handle,
                                                       GError              **error);

GCUDA_AVAILABLE_IN_1_0
GCudaContext    *gcuda_buffer_get_context             (GCudaBuffer          *self);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_buffer_get_address             (GCudaBuffer          *self);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_buffer_get_size                (GCudaBuffer          *self);
GCUDA_AVAILABLE_IN_1_0
guint64          gcuda_buffer_get_pitch               (GCudaBuffer          *self);
GCUDA_AVAILABLE_IN_1_0
GCudaBufferKind  gcuda_buffer_get_kind                (GCudaBuffer          *self);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer     *gcuda_buffer_get_parent              (GCudaBuffer          *self);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_is_freed                (GCudaBuffer          *self);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_check_reachable         (GCudaBuffer          *self,
                                                       GCudaContext         *context,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_free                    (GCudaBuffer          *self,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_export_begin            (GCudaBuffer          *self,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_export_end              (GCudaBuffer          *self,
                                                       GError              **error);

GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_upload                  (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       const guint8         *data,
                                                       gsize                 size,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_upload_bytes            (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       GBytes               *bytes,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_upload_from_address     (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint64               address,
                                                       guint64               size,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_upload_from_address_on_stream (GCudaBuffer    *self,
                                                       guint64               offset,
                                                       guint64               address,
                                                       guint64               size,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
GBytes          *gcuda_buffer_download                (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint64               size,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_download_to_address     (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint64               address,
                                                       guint64               size,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_download_to_address_on_stream (GCudaBuffer    *self,
                                                       guint64               offset,
                                                       guint64               address,
                                                       guint64               size,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_copy_from               (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       GCudaBuffer          *source,
                                                       guint64               source_offset,
                                                       guint64               size,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_copy_from_on_stream     (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       GCudaBuffer          *source,
                                                       guint64               source_offset,
                                                       guint64               size,
                                                       GCudaStream          *stream,
                                                       GError              **error);

GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d8               (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint8                value,
                                                       guint64               count,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d16              (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint16               value,
                                                       guint64               count,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d32              (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint32               value,
                                                       guint64               count,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d8_2d            (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint64               pitch,
                                                       guint8                value,
                                                       guint64               width,
                                                       guint64               height,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d16_2d           (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint64               pitch,
                                                       guint16               value,
                                                       guint64               width,
                                                       guint64               height,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d32_2d           (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint64               pitch,
                                                       guint32               value,
                                                       guint64               width,
                                                       guint64               height,
                                                       GCudaStream          *stream,
                                                       GError              **error);

GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d8_number        (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       double                value,
                                                       guint64               count,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d16_number        (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       double                value,
                                                       guint64               count,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d32_number        (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       double                value,
                                                       guint64               count,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d8_2d_number     (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint64               pitch,
                                                       double                value,
                                                       guint64               width,
                                                       guint64               height,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d16_2d_number     (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint64               pitch,
                                                       double                value,
                                                       guint64               width,
                                                       guint64               height,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_memset_d32_2d_number     (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint64               pitch,
                                                       double                value,
                                                       guint64               width,
                                                       guint64               height,
                                                       GCudaStream          *stream,
                                                       GError              **error);

GCUDA_AVAILABLE_IN_1_0
void             gcuda_buffer_download_async          (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       guint64               size,
                                                       GCudaStream          *stream,
                                                       GCancellable         *cancellable,
                                                       GAsyncReadyCallback   callback,
                                                       gpointer              user_data);
GCUDA_AVAILABLE_IN_1_0
GBytes          *gcuda_buffer_download_finish         (GCudaBuffer          *self,
                                                       GAsyncResult         *result,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_buffer_upload_async            (GCudaBuffer          *self,
                                                       guint64               offset,
                                                       GBytes               *bytes,
                                                       GCudaStream          *stream,
                                                       GCancellable         *cancellable,
                                                       GAsyncReadyCallback   callback,
                                                       gpointer              user_data);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_upload_finish           (GCudaBuffer          *self,
                                                       GAsyncResult         *result,
                                                       GError              **error);

GCUDA_AVAILABLE_IN_1_0
GBytes          *gcuda_buffer_get_ipc_handle          (GCudaBuffer          *self,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_attach                  (GCudaBuffer          *self,
                                                       GCudaMemAttachFlags   flags,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_prefetch                (GCudaBuffer          *self,
                                                       GCudaDevice          *device,
                                                       GCudaStream          *stream,
                                                       GError              **error);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_buffer_advise                  (GCudaBuffer          *self,
                                                       GCudaMemoryAdvice     advice,
                                                       GCudaDevice          *device,
                                                       GError              **error);

G_END_DECLS
