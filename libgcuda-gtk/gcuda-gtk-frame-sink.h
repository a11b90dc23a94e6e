/* gcuda-gtk-frame-sink.h: CUDA frames shown by GTK 4, zero-copy through
 * OpenGL where possible
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_GTK_INSIDE) && !defined(GCUDA_GTK_COMPILATION)
# error "Only <gcuda-gtk.h> can be included directly."
#endif

#include <gtk/gtk.h>
#include <gcuda.h>

G_BEGIN_DECLS

/**
 * GCudaGtkFramePath:
 * @GCUDA_GTK_FRAME_PATH_COPY: frames are downloaded into host memory and
 *   shown as [class@Gdk.MemoryTexture]s (one copy to the host, one upload by
 *   GTK): works with any renderer and any GPU
 * @GCUDA_GTK_FRAME_PATH_ZERO_COPY: frames are copied on the GPU into OpenGL
 *   textures that CUDA maps, and shown as [class@Gdk.GLTexture]s: no copy
 *   through host memory
 *
 * How a [class@GCudaGtk.FrameSink] hands frames to GTK.
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_GTK_FRAME_PATH_COPY,
  GCUDA_GTK_FRAME_PATH_ZERO_COPY,
} GCudaGtkFramePath;

#define GCUDA_GTK_TYPE_FRAME_SINK (gcuda_gtk_frame_sink_get_type ())

/**
 * GCudaGtkFrameSinkClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCudaGtk.FrameSink]. The type is final: it
 * cannot be subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaGtkFrameSink, gcuda_gtk_frame_sink, GCUDA_GTK, FRAME_SINK, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaGtkFrameSink *gcuda_gtk_frame_sink_new              (GCudaContext        *context,
                                                          GdkGLContext        *gl_context,
                                                          GError             **error);
GCUDA_AVAILABLE_IN_1_0
GCudaGtkFrameSink *gcuda_gtk_frame_sink_new_for_widget   (GCudaContext        *context,
                                                          GtkWidget           *widget,
                                                          GError             **error);

GCUDA_AVAILABLE_IN_1_0
GCudaContext      *gcuda_gtk_frame_sink_get_context      (GCudaGtkFrameSink   *self);
GCUDA_AVAILABLE_IN_1_0
GdkGLContext      *gcuda_gtk_frame_sink_get_gl_context   (GCudaGtkFrameSink   *self);
GCUDA_AVAILABLE_IN_1_0
GCudaGtkFramePath  gcuda_gtk_frame_sink_get_path         (GCudaGtkFrameSink   *self);
GCUDA_AVAILABLE_IN_1_0
const char        *gcuda_gtk_frame_sink_get_reason       (GCudaGtkFrameSink   *self);
GCUDA_AVAILABLE_IN_1_0
GdkTexture        *gcuda_gtk_frame_sink_get_texture      (GCudaGtkFrameSink   *self);

GCUDA_AVAILABLE_IN_1_0
GCudaBuffer       *gcuda_gtk_frame_sink_begin_frame      (GCudaGtkFrameSink   *self,
                                                          guint                width,
                                                          guint                height,
                                                          GError             **error);
GCUDA_AVAILABLE_IN_1_0
void               gcuda_gtk_frame_sink_end_frame_async  (GCudaGtkFrameSink   *self,
                                                          GCudaStream         *stream,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
GCUDA_AVAILABLE_IN_1_0
gboolean           gcuda_gtk_frame_sink_end_frame_finish (GCudaGtkFrameSink   *self,
                                                          GAsyncResult        *result,
                                                          GError             **error);

G_END_DECLS
