/* test-gtk-frame-sink.c: GCudaGtkFrameSink (libgcuda-gtk) on the mock
 * driver, with GTK on a real (headless) display: which path it chooses and
 * why, for no GL context, a GL context the CUDA driver does not run, one it
 * runs on another GPU and one on the sink's GPU (where registering the real
 * GL texture with the mock fails, so the sink turns to the copy path); the
 * copy path's pixels against the bytes written; the errors of bad calls.
 * With GCUDA_MOCK_GL_REAL=1 the mock registers GDK's real (software) GL
 * textures, and the zero-copy path runs for real: pixels read back from the
 * GL textures, the ring of three, the textures freed with the last holder.
 * test-app (examples/gtk) runs it on a Weston of its own.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <dlfcn.h>
#include <string.h>

#include <gcuda-gtk.h>

#include "gcuda-test-util.h"

static int (*mock_gl_make_current) (int device);
static size_t (*mock_gl_get_registered) (void);
static gboolean have_display;

static gboolean
real_gl (void)
{
  return g_strcmp0 (g_getenv ("GCUDA_MOCK_GL_REAL"), "1") == 0;
}

/* The mock's per-thread GL "device", once GCuda loaded the mock; FALSE
 * (skipped) on another driver. */
static gboolean
require_mock (void)
{
  const char *path = g_getenv ("GCUDA_DRIVER_LIBRARY");

  if (!gcuda_test_require_gpu ())
    return FALSE;
  if (mock_gl_make_current == NULL && path != NULL)
    {
      void *lib = dlopen (path, RTLD_NOW | RTLD_NOLOAD);

      if (lib != NULL)
        {
          mock_gl_make_current = (int (*) (int)) dlsym (lib, "gcuda_mock_gl_make_current");
          mock_gl_get_registered = (size_t (*) (void)) dlsym (lib, "gcuda_mock_gl_get_registered");
          dlclose (lib);
        }
    }
  if (mock_gl_make_current == NULL || mock_gl_get_registered == NULL)
    {
      g_test_skip ("needs the mock driver (GCUDA_DRIVER_LIBRARY=the mock)");
      return FALSE;
    }
  mock_gl_make_current (-1);
  return TRUE;
}

/* A realized GL context of the display, or NULL (the case is skipped). */
static GdkGLContext *
require_gl (void)
{
  g_autoptr(GdkGLContext) context = NULL;
  g_autoptr(GError) error = NULL;

  if (!have_display)
    {
      g_test_skip ("no display (run through examples/gtk/test-app with-display)");
      return NULL;
    }
  context = gdk_display_create_gl_context (gdk_display_get_default (), &error);
  if (context != NULL && !gdk_gl_context_realize (context, &error))
    g_clear_object (&context);
  if (context == NULL)
    {
      g_test_skip_printf ("GDK has no OpenGL here: %s", error->message);
      return NULL;
    }
  return g_steal_pointer (&context);
}

static void
assert_has (const char *text,
            const char *part)
{
  if (text == NULL || strstr (text, part) == NULL)
    g_error ("\"%s\" does not say \"%s\"", text ? text : "(null)", part);
}

static void
got_result (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
count_signal (gpointer user_data)
{
  (*(int *) user_data)++;
}

/* end_frame_async() and the main loop until it is done */
static gboolean
end_frame (GCudaGtkFrameSink  *sink,
           GCudaStream        *stream,
           GError            **error)
{
  GAsyncResult *result = NULL;
  gboolean ok;

  gcuda_gtk_frame_sink_end_frame_async (sink, stream, NULL, got_result, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  ok = gcuda_gtk_frame_sink_end_frame_finish (sink, result, error);
  g_object_unref (result);
  return ok;
}

enum { ANY_TEXTURE = -1, MEMORY_TEXTURE = 0, GL_TEXTURE = 1 };

/* Writes fresh random RGBA pixels (premultiplied: each colour at most the
 * alpha) into the sink's buffer, ends the frame on a stream and checks that
 * the texture (of the kind @kind) shows exactly them. */
static void
check_frame (GCudaGtkFrameSink *sink,
             guint              width,
             guint              height,
             int                kind)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autofree guint8 *pixels = g_malloc ((gsize) width * height * 4);
  g_autofree guint8 *shown = g_malloc0 ((gsize) width * height * 4);
  GError *error = NULL;
  GCudaBuffer *buffer;
  GdkTexture *texture;
  gboolean resized = gdk_paintable_get_intrinsic_width (GDK_PAINTABLE (sink)) != (int) width ||
                     gdk_paintable_get_intrinsic_height (GDK_PAINTABLE (sink)) != (int) height;
  int contents = 0, size = 0, notified = 0;
  gulong ids[3];

  for (gsize i = 0; i < (gsize) width * height; i++)
    {
      /* a quarter opaque, the rest any alpha */
      guint8 alpha = g_test_rand_int_range (0, 4) == 0 ? 255 : (guint8) g_test_rand_int_range (0, 256);

      for (int c = 0; c < 3; c++)
        pixels[4 * i + c] = (guint8) g_test_rand_int_range (0, alpha + 1);
      pixels[4 * i + 3] = alpha;
    }

  buffer = gcuda_gtk_frame_sink_begin_frame (sink, width, height, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_buffer_get_size (buffer), ==, (guint64) width * height * 4);
  g_assert_true (gcuda_buffer_upload_from_address (buffer, 0, (guint64) (guintptr) pixels,
                                                   (guint64) width * height * 4, &error));
  g_assert_no_error (error);
  stream = gcuda_stream_new (gcuda_gtk_frame_sink_get_context (sink), GCUDA_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);

  ids[0] = g_signal_connect_swapped (sink, "invalidate-contents", G_CALLBACK (count_signal), &contents);
  ids[1] = g_signal_connect_swapped (sink, "invalidate-size", G_CALLBACK (count_signal), &size);
  ids[2] = g_signal_connect_swapped (sink, "notify::texture", G_CALLBACK (count_signal), &notified);
  g_assert_true (end_frame (sink, stream, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    g_signal_handler_disconnect (sink, ids[i]);
  /* the sink shows the new frame */
  g_assert_cmpint (contents, ==, 1);
  g_assert_cmpint (size, ==, resized ? 1 : 0);
  g_assert_cmpint (notified, ==, 1);
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (GDK_PAINTABLE (sink)), ==, (int) width);
  g_assert_cmpint (gdk_paintable_get_intrinsic_height (GDK_PAINTABLE (sink)), ==, (int) height);
  texture = gcuda_gtk_frame_sink_get_texture (sink);
  if (kind == MEMORY_TEXTURE)
    g_assert_true (GDK_IS_MEMORY_TEXTURE (texture));
  else if (kind == GL_TEXTURE)
    g_assert_true (GDK_IS_GL_TEXTURE (texture));
  g_assert_cmpint (gdk_texture_get_width (texture), ==, (int) width);
  g_assert_cmpint (gdk_texture_get_height (texture), ==, (int) height);
  /* GDK_MEMORY_DEFAULT: B8G8R8A8 premultiplied */
  gdk_texture_download (texture, shown, (gsize) width * 4);
  for (gsize i = 0; i < (gsize) width * height; i++)
    if (shown[4 * i] != pixels[4 * i + 2] || shown[4 * i + 1] != pixels[4 * i + 1] ||
        shown[4 * i + 2] != pixels[4 * i] || shown[4 * i + 3] != pixels[4 * i + 3])
      g_error ("pixel %" G_GSIZE_FORMAT " (%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "): wrote RGBA %u %u %u %u, shown BGRA %u %u %u %u",
               i, i % width, i / width, pixels[4 * i], pixels[4 * i + 1], pixels[4 * i + 2], pixels[4 * i + 3],
               shown[4 * i], shown[4 * i + 1], shown[4 * i + 2], shown[4 * i + 3]);
}

/* ------------------------------------------------------------- cases */

static void
test_no_gl (void)
{
  g_autoptr(GCudaGtkFrameSink) sink = NULL;
  GError *error = NULL;

  if (!require_mock ())
    return;
  sink = gcuda_gtk_frame_sink_new (NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (gcuda_gtk_frame_sink_get_context (sink));
  g_assert_null (gcuda_gtk_frame_sink_get_gl_context (sink));
  g_assert_cmpint (gcuda_gtk_frame_sink_get_path (sink), ==, GCUDA_GTK_FRAME_PATH_COPY);
  assert_has (gcuda_gtk_frame_sink_get_reason (sink), "No OpenGL context");
  check_frame (sink, 37, 23, MEMORY_TEXTURE);
  /* the same buffer for the same size, a new one for another */
  check_frame (sink, 37, 23, MEMORY_TEXTURE);
  check_frame (sink, 64, 48, MEMORY_TEXTURE);
}

static void
test_gl_not_cuda (void)
{
  g_autoptr(GdkGLContext) gl = NULL;
  GError *error = NULL;

  if (!require_mock () || (gl = require_gl ()) == NULL)
    return;
  /* a context of another driver (Mesa's, as on a hybrid laptop:
   * INVALID_GRAPHICS_CONTEXT), then one on a GPU without CUDA (the driver
   * lists no device) */
  for (int device = -1; device >= -2; device--)
    {
      g_autoptr(GCudaGtkFrameSink) sink = NULL;

      mock_gl_make_current (device);
      sink = gcuda_gtk_frame_sink_new (NULL, gl, &error);
      g_assert_no_error (error);
      g_assert_true (gcuda_gtk_frame_sink_get_gl_context (sink) == gl);
      g_assert_cmpint (gcuda_gtk_frame_sink_get_path (sink), ==, GCUDA_GTK_FRAME_PATH_COPY);
      if (device == -1)
        {
          assert_has (gcuda_gtk_frame_sink_get_reason (sink), "does not run this OpenGL context");
          assert_has (gcuda_gtk_frame_sink_get_reason (sink), "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT");
        }
      else
        {
          assert_has (gcuda_gtk_frame_sink_get_reason (sink), "runs on a GPU without CUDA");
        }
      check_frame (sink, 16, 16, MEMORY_TEXTURE);
    }
  /* the previous GL context is current again */
  g_assert_null (gdk_gl_context_get_current ());
}

static void
test_gl_other_gpu (void)
{
  g_autoptr(GCudaContext) second = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaGtkFrameSink) sink = NULL;
  g_autoptr(GdkGLContext) gl = NULL;
  GError *error = NULL;

  if (!require_mock () || (gl = require_gl ()) == NULL)
    return;
  if (gcuda_device_get_count (NULL) < 2)
    {
      g_test_skip ("needs the mock's second device (GCUDA_MOCK_DEVICES=2)");
      return;
    }
  mock_gl_make_current (0);
  device = gcuda_device_get (1, &error);
  g_assert_no_error (error);
  second = gcuda_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  sink = gcuda_gtk_frame_sink_new (second, gl, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcuda_gtk_frame_sink_get_path (sink), ==, GCUDA_GTK_FRAME_PATH_COPY);
  assert_has (gcuda_gtk_frame_sink_get_reason (sink), "runs on another GPU than");
  check_frame (sink, 8, 8, MEMORY_TEXTURE);
}

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  (*(int *) user_data)++;
}

static void
test_gl_on_device (void)
{
  g_autoptr(GCudaGtkFrameSink) sink = NULL;
  g_autoptr(GdkGLContext) gl = NULL;
  GError *error = NULL;
  int path_notified = 0;

  if (!require_mock () || (gl = require_gl ()) == NULL)
    return;
  if (real_gl ())
    {
      g_test_skip ("the mock registers real GL textures here (GCUDA_MOCK_GL_REAL=1): see /gtk-frame-sink/zero-copy");
      return;
    }
  mock_gl_make_current (0);
  sink = gcuda_gtk_frame_sink_new (NULL, gl, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcuda_gtk_frame_sink_get_path (sink), ==, GCUDA_GTK_FRAME_PATH_ZERO_COPY);
  assert_has (gcuda_gtk_frame_sink_get_reason (sink), "frames stay on the GPU");
  g_signal_connect (sink, "notify::path", G_CALLBACK (count_notify), &path_notified);
  /* GDK's texture is no object of the mock's fake GL: registering it fails,
   * and the sink turns to the copy path for good, with that frame */
  check_frame (sink, 40, 30, MEMORY_TEXTURE);
  g_assert_cmpint (gcuda_gtk_frame_sink_get_path (sink), ==, GCUDA_GTK_FRAME_PATH_COPY);
  g_assert_cmpint (path_notified, ==, 1);
  assert_has (gcuda_gtk_frame_sink_get_reason (sink), "Zero-copy display failed");
  assert_has (gcuda_gtk_frame_sink_get_reason (sink), "CUDA_ERROR_INVALID_VALUE");
  check_frame (sink, 40, 30, MEMORY_TEXTURE);
  g_assert_cmpint (path_notified, ==, 1);
}

static gboolean
tick_seen (GtkWidget     *widget,
           GdkFrameClock *clock,
           gpointer       user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
test_zero_copy (void)
{
  g_autoptr(GCudaGtkFrameSink) sink = NULL;
  g_autoptr(GdkGLContext) gl = NULL;
  GdkTexture *held[3];
  GdkTexture *last;
  GError *error = NULL;
  size_t registered;

  if (!require_mock ())
    return;
  if (!real_gl ())
    {
      g_test_skip ("needs the mock to register real GL textures (GCUDA_MOCK_GL_REAL=1)");
      return;
    }
  if ((gl = require_gl ()) == NULL)
    return;
  registered = mock_gl_get_registered ();
  mock_gl_make_current (0);
  sink = gcuda_gtk_frame_sink_new (NULL, gl, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcuda_gtk_frame_sink_get_path (sink), ==, GCUDA_GTK_FRAME_PATH_ZERO_COPY);

  /* what GL holds is what was written, through every size change */
  check_frame (sink, 40, 30, GL_TEXTURE);
  check_frame (sink, 40, 30, GL_TEXTURE);
  check_frame (sink, 33, 17, GL_TEXTURE);
  check_frame (sink, 1, 1, GL_TEXTURE);
  g_assert_cmpint (gcuda_gtk_frame_sink_get_path (sink), ==, GCUDA_GTK_FRAME_PATH_ZERO_COPY);
  g_assert_cmpuint (mock_gl_get_registered () - registered, >=, 1);
  g_assert_cmpuint (mock_gl_get_registered () - registered, <=, 3);

  /* a texture someone holds is never written: with all three held, that
   * frame goes through host memory; once one is released, GL again */
  for (guint i = 0; i < G_N_ELEMENTS (held); i++)
    {
      check_frame (sink, 16, 16, GL_TEXTURE);
      held[i] = g_object_ref (gcuda_gtk_frame_sink_get_texture (sink));
    }
  check_frame (sink, 16, 16, MEMORY_TEXTURE);
  g_assert_cmpint (gcuda_gtk_frame_sink_get_path (sink), ==, GCUDA_GTK_FRAME_PATH_ZERO_COPY);
  g_object_unref (held[1]);
  check_frame (sink, 16, 16, GL_TEXTURE);
  /* that one is the sink's now, the other two still held */
  check_frame (sink, 16, 16, MEMORY_TEXTURE);
  g_object_unref (held[0]);
  g_object_unref (held[2]);
  check_frame (sink, 16, 16, GL_TEXTURE);
  g_assert_cmpuint (mock_gl_get_registered () - registered, ==, 3);

  /* the textures outlive the sink while GTK holds one, and go with it */
  last = g_object_ref (gcuda_gtk_frame_sink_get_texture (sink));
  g_clear_object (&sink);
  g_assert_cmpuint (mock_gl_get_registered () - registered, ==, 3);
  g_object_unref (last);
  g_assert_cmpuint (mock_gl_get_registered (), ==, registered);
}

static void
test_widget (void)
{
  g_autoptr(GCudaGtkFrameSink) sink = NULL;
  GtkWidget *window, *picture;
  GError *error = NULL;

  if (!require_mock ())
    return;
  if (!have_display)
    {
      g_test_skip ("no display (run through examples/gtk/test-app with-display)");
      return;
    }
  picture = gtk_picture_new ();
  g_object_ref_sink (picture);
  sink = gcuda_gtk_frame_sink_new_for_widget (NULL, picture, &error);
  g_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  assert_has (error->message, "not realized");
  g_assert_null (sink);
  g_clear_error (&error);
  g_object_unref (picture);

  window = gtk_window_new ();
  picture = gtk_picture_new ();
  gtk_window_set_child (GTK_WINDOW (window), picture);
  gtk_widget_realize (picture);
  g_assert_true (gtk_widget_get_realized (picture));
  mock_gl_make_current (0);
  sink = gcuda_gtk_frame_sink_new_for_widget (NULL, picture, &error);
  g_assert_no_error (error);
  /* the renderer decides (GSK_RENDERER): with GL the mock's device is the
   * GL context's, with Cairo GTK would read a GL texture back */
  if (GSK_IS_CAIRO_RENDERER (gtk_native_get_renderer (GTK_NATIVE (window))))
    {
      g_assert_cmpint (gcuda_gtk_frame_sink_get_path (sink), ==, GCUDA_GTK_FRAME_PATH_COPY);
      assert_has (gcuda_gtk_frame_sink_get_reason (sink), "GskCairoRenderer, not with OpenGL");
      g_assert_null (gcuda_gtk_frame_sink_get_gl_context (sink));
    }
  else
    {
      g_test_message ("renderer %s: %s", G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (window))),
                      gcuda_gtk_frame_sink_get_reason (sink));
      if (gcuda_gtk_frame_sink_get_gl_context (sink) != NULL)
        g_assert_cmpint (gcuda_gtk_frame_sink_get_path (sink), ==, GCUDA_GTK_FRAME_PATH_ZERO_COPY);
    }
  check_frame (sink, 32, 16, ANY_TEXTURE);

  /* GTK draws the sink (a GdkGLTexture with GL, a memory texture else) */
  gtk_picture_set_paintable (GTK_PICTURE (picture), GDK_PAINTABLE (sink));
  gtk_window_present (GTK_WINDOW (window));
  {
    gboolean drawn = FALSE;
    gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

    gtk_widget_add_tick_callback (picture, tick_seen, &drawn, NULL);
    while (!drawn && g_get_monotonic_time () < end)
      g_main_context_iteration (NULL, FALSE);
    g_assert_true (drawn);
    /* a second frame while GTK may still hold the first */
    check_frame (sink, 32, 16, ANY_TEXTURE);
    drawn = FALSE;
    gtk_widget_add_tick_callback (picture, tick_seen, &drawn, NULL);
    end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    while (!drawn && g_get_monotonic_time () < end)
      g_main_context_iteration (NULL, FALSE);
    g_assert_true (drawn);
  }
  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&sink);
}

static void
test_bad_calls (void)
{
  g_autoptr(GCudaGtkFrameSink) sink = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GdkPaintable) image = NULL;
  GAsyncResult *first = NULL, *second = NULL;
  GError *error = NULL;

  if (!require_mock ())
    return;
  sink = gcuda_gtk_frame_sink_new (NULL, NULL, &error);
  g_assert_no_error (error);
  /* nothing to show yet */
  g_assert_null (gcuda_gtk_frame_sink_get_texture (sink));
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (GDK_PAINTABLE (sink)), ==, 0);
  image = gdk_paintable_get_current_image (GDK_PAINTABLE (sink));
  g_assert_nonnull (image);
  g_clear_object (&image);

  /* no frame begun */
  g_assert_false (end_frame (sink, NULL, &error));
  g_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  assert_has (error->message, "begin_frame()");
  g_clear_error (&error);

  /* sizes */
  g_assert_null (gcuda_gtk_frame_sink_begin_frame (sink, 0, 10, &error));
  g_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (gcuda_gtk_frame_sink_begin_frame (sink, 10, 0, &error));
  g_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (gcuda_gtk_frame_sink_begin_frame (sink, 65536, 65536, &error));
  g_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  assert_has (error->message, "65536×65536");
  g_clear_error (&error);

  /* one frame ended at a time */
  g_assert_nonnull (gcuda_gtk_frame_sink_begin_frame (sink, 4, 4, &error));
  g_assert_no_error (error);
  stream = gcuda_stream_new (gcuda_gtk_frame_sink_get_context (sink), GCUDA_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  gcuda_gtk_frame_sink_end_frame_async (sink, stream, NULL, got_result, &first);
  g_assert_null (gcuda_gtk_frame_sink_begin_frame (sink, 4, 4, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PENDING);
  g_clear_error (&error);
  gcuda_gtk_frame_sink_end_frame_async (sink, stream, NULL, got_result, &second);
  while (first == NULL || second == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (gcuda_gtk_frame_sink_end_frame_finish (sink, second, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PENDING);
  g_clear_error (&error);
  g_assert_true (gcuda_gtk_frame_sink_end_frame_finish (sink, first, &error));
  g_assert_no_error (error);
  g_assert_true (GDK_IS_TEXTURE (gcuda_gtk_frame_sink_get_texture (sink)));
  image = gdk_paintable_get_current_image (GDK_PAINTABLE (sink));
  g_assert_true (image == GDK_PAINTABLE (gcuda_gtk_frame_sink_get_texture (sink)));
  g_object_unref (first);
  g_object_unref (second);
  /* and the next frame goes */
  g_assert_nonnull (gcuda_gtk_frame_sink_begin_frame (sink, 4, 4, &error));
  g_assert_no_error (error);
}

/* GCUDA_TEST_EXPECT=no-device: the mock without devices */
static void
test_no_device (void)
{
  GError *error = NULL;

  g_assert_null (gcuda_gtk_frame_sink_new (NULL, NULL, &error));
  g_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NO_DEVICE);
  g_clear_error (&error);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  have_display = gtk_init_check ();

  if (g_strcmp0 (g_getenv ("GCUDA_TEST_EXPECT"), "no-device") == 0)
    {
      g_test_add_func ("/gtk-frame-sink/no-device", test_no_device);
      return g_test_run ();
    }
  g_test_add_func ("/gtk-frame-sink/no-gl", test_no_gl);
  g_test_add_func ("/gtk-frame-sink/gl-not-cuda", test_gl_not_cuda);
  g_test_add_func ("/gtk-frame-sink/gl-other-gpu", test_gl_other_gpu);
  g_test_add_func ("/gtk-frame-sink/gl-on-device", test_gl_on_device);
  g_test_add_func ("/gtk-frame-sink/zero-copy", test_zero_copy);
  g_test_add_func ("/gtk-frame-sink/widget", test_widget);
  g_test_add_func ("/gtk-frame-sink/bad-calls", test_bad_calls);
  return g_test_run ();
}
