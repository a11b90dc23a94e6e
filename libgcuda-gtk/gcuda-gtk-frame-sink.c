/* gcuda-gtk-frame-sink.c: CUDA frames shown by GTK 4, zero-copy through
 * OpenGL where possible
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <libintl.h>

#include <epoxy/gl.h>

#include "gcuda-gtk.h"
/* not in <gtk/gtk.h>; included after it, as GSK asks */
#include <gsk/gl/gskglrenderer.h>

/**
 * GCudaGtkFrameSink:
 *
 * Hands frames that a CUDA kernel draws to GTK 4, without a trip through
 * host memory when the OpenGL context GTK draws with runs on the CUDA
 * device. The sink is a [iface@Gdk.Paintable] that shows the last frame:
 * set it once as a `GtkPicture`'s paintable.
 *
 * The kernel always writes the same thing: `width × height` RGBA pixels, 8
 * bits per channel with the colour premultiplied by alpha (as GTK takes an
 * OpenGL texture; for opaque pixels it makes no difference), rows
 * `width * 4` bytes apart, row 0 at the top, into the
 * [class@GCuda.Buffer] that [method@GCudaGtk.FrameSink.begin_frame] returns.
 * [method@GCudaGtk.FrameSink.end_frame_async] then turns it into the
 * sink's [property@GCudaGtk.FrameSink:texture] along one of two paths
 * ([property@GCudaGtk.FrameSink:path]):
 *
 * - [enum@GCudaGtk.FramePath.ZERO_COPY]: the pixels are copied on the GPU
 *   into one of a ring of three OpenGL textures registered with CUDA
 *   ([class@GCuda.GraphicsResource]), and the texture goes to GTK as a
 *   [class@Gdk.GLTexture]. GTK gets it only once the CUDA work that wrote it
 *   has finished (the stream is waited for without blocking, after the
 *   unmap and a `glFlush()`), and a texture is written again only after
 *   every [class@Gdk.GLTexture] made from it is gone (the sink drops its
 *   own when the next frame comes; GTK drops its once it has drawn it);
 *   when all three are still held, that one frame takes the copy path.
 * - [enum@GCudaGtk.FramePath.COPY]: the pixels are downloaded into a
 *   [struct@GLib.Bytes] and wrapped in a [class@Gdk.MemoryTexture]
 *   (`GDK_MEMORY_R8G8B8A8_PREMULTIPLIED`), as an app without this class would
 *   do.
 *
 * The path is chosen when the sink is made and said in
 * [property@GCudaGtk.FrameSink:reason]: zero-copy when an OpenGL context is
 * given (or, with [ctor@GCudaGtk.FrameSink.new_for_widget], when GTK renders
 * the widget's window with OpenGL and a GL context can be made for it) and
 * the CUDA driver lists the sink's device among those of that GL context
 * ([func@GCuda.graphics_get_gl_devices]); not on a hybrid laptop whose other
 * GPU draws the desktop, nor with GTK's Cairo or Vulkan renderers. When
 * making, registering or mapping a texture fails later, the sink turns to
 * the copy path for good, says why, and notifies `path` and `reason`. Both
 * paths show the same pixels.
 *
 * In GJS (an app whose kernel writes `buffer`; the window is realized):
 *
 * ```js
 * const sink = GCudaGtk.FrameSink.new_for_widget(context, window);
 * picture.paintable = sink;
 * headerBar.subtitle = sink.reason;
 * // each frame
 * const buffer = sink.begin_frame(width, height);
 * kernel.launch(gridX, gridY, 1, 16, 16, 1, 0, stream, argsWriting(buffer));
 * sink.end_frame_async(stream, null, (s, res) => s.end_frame_finish(res));
 * ```
 *
 * A sink is not thread-safe: use it from the thread that owns its GL context
 * (GTK's main thread). One frame is ended at a time.
 *
 * Since: 1.0
 */

#define RING_SIZE 3

typedef struct _Ring Ring;

typedef struct
{
  Ring *ring;
  guint texture;                    /* GL name, 0 before the first frame */
  guint width;
  guint height;
  GCudaGraphicsResource *resource;  /* the texture, registered with CUDA */
  int busy;                         /* atomic: being written, or held by GTK */
} Slot;

/* The textures, shared by the sink and every GdkGLTexture made from one
 * of them (each holds a reference until GTK releases it), so that neither
 * keeps the other alive and the GL objects go with the last of them. */
struct _Ring
{
  gatomicrefcount ref_count;
  GdkGLContext *gl_context;
  Slot slots[RING_SIZE];
};

struct _GCudaGtkFrameSink
{
  GObject parent_instance;

  GCudaContext *context;
  GdkGLContext *gl_context;
  GError *init_error;       /* no context: every frame fails with it */

  GCudaGtkFramePath path;
  char *reason;

  GCudaBuffer *buffer;      /* what the kernel writes */
  guint width;
  guint height;
  gboolean ending;          /* end_frame_async() has not completed */

  GdkTexture *texture;      /* the last frame */
  Ring *ring;               /* zero-copy: the textures, else NULL */
};

static void gcuda_gtk_frame_sink_paintable_init (GdkPaintableInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GCudaGtkFrameSink, gcuda_gtk_frame_sink, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GDK_TYPE_PAINTABLE, gcuda_gtk_frame_sink_paintable_init))

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_GL_CONTEXT,
  PROP_PATH,
  PROP_REASON,
  PROP_TEXTURE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char *
_ (const char *msgid)
{
  static gsize bound;

  if (g_once_init_enter (&bound))
    {
      bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      g_once_init_leave (&bound, 1);
    }
  return g_dgettext (GETTEXT_PACKAGE, msgid);
}

/* Makes @context current and returns what was current before, for
 * restore_gl(). */
static GdkGLContext *
enter_gl (GdkGLContext *context)
{
  GdkGLContext *previous = gdk_gl_context_get_current ();

  if (previous != NULL)
    g_object_ref (previous);
  gdk_gl_context_make_current (context);
  return previous;
}

static void
restore_gl (GdkGLContext *previous)
{
  if (previous != NULL)
    {
      gdk_gl_context_make_current (previous);
      g_object_unref (previous);
    }
  else
    {
      gdk_gl_context_clear_current ();
    }
}

static void
set_path (GCudaGtkFrameSink *self,
          GCudaGtkFramePath  path,
          const char        *reason)
{
  gboolean path_changed = self->path != path;

  self->path = path;
  if (g_strcmp0 (self->reason, reason) != 0)
    {
      g_free (self->reason);
      self->reason = g_strdup (reason);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REASON]);
    }
  if (path_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PATH]);
}

/* The decision: zero-copy when the CUDA driver runs the GL context on the
 * sink's device. */
static void
decide_path (GCudaGtkFrameSink *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) devices = NULL;
  GCudaDevice *device;
  g_autofree char *reason = NULL;
  GdkGLContext *previous;

  if (self->context == NULL)
    {
      set_path (self, GCUDA_GTK_FRAME_PATH_COPY, self->init_error->message);
      return;
    }
  if (self->gl_context == NULL)
    {
      set_path (self, GCUDA_GTK_FRAME_PATH_COPY,
                _("No OpenGL context: frames are copied through host memory"));
      return;
    }

  /* (a no-op for a realized context; making an unrealized one current
   * would realize it with no way to report a failure) */
  if (!gdk_gl_context_realize (self->gl_context, &error))
    {
      reason = g_strdup_printf (_("No OpenGL context (%s): frames are copied through host memory"),
                                error->message);
      set_path (self, GCUDA_GTK_FRAME_PATH_COPY, reason);
      return;
    }
  previous = enter_gl (self->gl_context);
  devices = gcuda_graphics_get_gl_devices (GCUDA_GL_DEVICE_LIST_ALL, &error);
  restore_gl (previous);

  device = gcuda_context_get_device (self->context);
  if (devices == NULL)
    {
      reason = g_strdup_printf (_("The CUDA driver does not run this OpenGL context (%s): frames are copied through host memory"),
                                error->message);
      set_path (self, GCUDA_GTK_FRAME_PATH_COPY, reason);
      return;
    }
  for (guint i = 0; i < devices->len; i++)
    if (gcuda_device_equal (device, g_ptr_array_index (devices, i)))
      {
        reason = g_strdup_printf (_("The OpenGL context runs on %s: frames stay on the GPU"),
                                  gcuda_device_get_name (device));
        set_path (self, GCUDA_GTK_FRAME_PATH_ZERO_COPY, reason);
        return;
      }
  if (devices->len == 0)
    reason = g_strdup (_("The OpenGL context runs on a GPU without CUDA: frames are copied through host memory"));
  else
    reason = g_strdup_printf (_("The OpenGL context runs on another GPU than %s: frames are copied through host memory"),
                              gcuda_device_get_name (device));
  set_path (self, GCUDA_GTK_FRAME_PATH_COPY, reason);
}

static void
gcuda_gtk_frame_sink_constructed (GObject *object)
{
  GCudaGtkFrameSink *self = GCUDA_GTK_FRAME_SINK (object);

  G_OBJECT_CLASS (gcuda_gtk_frame_sink_parent_class)->constructed (object);

  if (self->context == NULL)
    self->context = gcuda_context_get_default (&self->init_error);
  decide_path (self);
}

static Ring *
ring_new (GdkGLContext *gl_context)
{
  Ring *ring = g_new0 (Ring, 1);

  g_atomic_ref_count_init (&ring->ref_count);
  ring->gl_context = g_object_ref (gl_context);
  for (guint i = 0; i < RING_SIZE; i++)
    ring->slots[i].ring = ring;
  return ring;
}

static Ring *
ring_ref (Ring *ring)
{
  g_atomic_ref_count_inc (&ring->ref_count);
  return ring;
}

/* The last reference unregisters and deletes the textures, with the GL
 * context current (both need it). */
static void
ring_unref (Ring *ring)
{
  GdkGLContext *previous;

  if (!g_atomic_ref_count_dec (&ring->ref_count))
    return;
  previous = enter_gl (ring->gl_context);
  for (guint i = 0; i < RING_SIZE; i++)
    {
      Slot *slot = &ring->slots[i];

      g_clear_object (&slot->resource);
      if (slot->texture != 0)
        glDeleteTextures (1, &slot->texture);
    }
  restore_gl (previous);
  g_object_unref (ring->gl_context);
  g_free (ring);
}

static void
gcuda_gtk_frame_sink_finalize (GObject *object)
{
  GCudaGtkFrameSink *self = GCUDA_GTK_FRAME_SINK (object);

  g_clear_object (&self->texture);
  g_clear_pointer (&self->ring, ring_unref);
  g_clear_object (&self->buffer);
  g_clear_object (&self->gl_context);
  g_clear_object (&self->context);
  g_clear_error (&self->init_error);
  g_free (self->reason);

  G_OBJECT_CLASS (gcuda_gtk_frame_sink_parent_class)->finalize (object);
}

static void
gcuda_gtk_frame_sink_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  GCudaGtkFrameSink *self = GCUDA_GTK_FRAME_SINK (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_GL_CONTEXT:
      g_value_set_object (value, self->gl_context);
      break;
    case PROP_PATH:
      g_value_set_enum (value, self->path);
      break;
    case PROP_REASON:
      g_value_set_string (value, self->reason);
      break;
    case PROP_TEXTURE:
      g_value_set_object (value, self->texture);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_gtk_frame_sink_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  GCudaGtkFrameSink *self = GCUDA_GTK_FRAME_SINK (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      self->context = g_value_dup_object (value);
      break;
    case PROP_GL_CONTEXT:
      self->gl_context = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_gtk_frame_sink_class_init (GCudaGtkFrameSinkClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = gcuda_gtk_frame_sink_constructed;
  object_class->finalize = gcuda_gtk_frame_sink_finalize;
  object_class->get_property = gcuda_gtk_frame_sink_get_property;
  object_class->set_property = gcuda_gtk_frame_sink_set_property;

  /**
   * GCudaGtkFrameSink:context: (getter get_context)
   *
   * The CUDA context the frames are computed in; %NULL at construction means
   * the calling thread's default context ([func@GCuda.Context.get_default]).
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaGtkFrameSink:gl-context: (getter get_gl_context)
   *
   * The OpenGL context the textures of the zero-copy path belong to, or
   * %NULL (then the sink always takes the copy path). It must share its
   * objects with the context GTK renders with, as every context made by
   * [method@Gdk.Surface.create_gl_context] or
   * [method@Gdk.Display.create_gl_context] does, and be realized.
   *
   * Since: 1.0
   */
  properties[PROP_GL_CONTEXT] =
    g_param_spec_object ("gl-context", NULL, NULL, GDK_TYPE_GL_CONTEXT,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaGtkFrameSink:path: (getter get_path)
   *
   * How frames go to GTK. It changes at most once, from
   * [enum@GCudaGtk.FramePath.ZERO_COPY] to [enum@GCudaGtk.FramePath.COPY],
   * when a texture cannot be registered or mapped.
   *
   * Since: 1.0
   */
  properties[PROP_PATH] =
    g_param_spec_enum ("path", NULL, NULL, GCUDA_GTK_TYPE_FRAME_PATH, GCUDA_GTK_FRAME_PATH_COPY,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaGtkFrameSink:reason: (getter get_reason)
   *
   * Why [property@GCudaGtk.FrameSink:path] is what it is, a sentence to show
   * the user (e.g. "The OpenGL context runs on a GPU without CUDA: frames are
   * copied through host memory").
   *
   * Since: 1.0
   */
  properties[PROP_REASON] =
    g_param_spec_string ("reason", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaGtkFrameSink:texture: (getter get_texture)
   *
   * The last frame, %NULL before the first. Holding it keeps its texture
   * of the ring from being written again: where references go away only
   * with a garbage collector (GJS), show the sink itself (it is a
   * [iface@Gdk.Paintable]) rather than this texture.
   *
   * Since: 1.0
   */
  properties[PROP_TEXTURE] =
    g_param_spec_object ("texture", NULL, NULL, GDK_TYPE_TEXTURE,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_gtk_frame_sink_init (GCudaGtkFrameSink *self)
{
}

/* GdkPaintable: the last frame */

static void
gcuda_gtk_frame_sink_snapshot (GdkPaintable *paintable,
                               GdkSnapshot  *snapshot,
                               double        width,
                               double        height)
{
  GCudaGtkFrameSink *self = GCUDA_GTK_FRAME_SINK (paintable);

  if (self->texture != NULL)
    gdk_paintable_snapshot (GDK_PAINTABLE (self->texture), snapshot, width, height);
}

static GdkPaintable *
gcuda_gtk_frame_sink_get_current_image (GdkPaintable *paintable)
{
  GCudaGtkFrameSink *self = GCUDA_GTK_FRAME_SINK (paintable);

  if (self->texture != NULL)
    return GDK_PAINTABLE (g_object_ref (self->texture));
  return gdk_paintable_new_empty (0, 0);
}

static int
gcuda_gtk_frame_sink_get_intrinsic_width (GdkPaintable *paintable)
{
  GCudaGtkFrameSink *self = GCUDA_GTK_FRAME_SINK (paintable);

  return self->texture != NULL ? gdk_texture_get_width (self->texture) : 0;
}

static int
gcuda_gtk_frame_sink_get_intrinsic_height (GdkPaintable *paintable)
{
  GCudaGtkFrameSink *self = GCUDA_GTK_FRAME_SINK (paintable);

  return self->texture != NULL ? gdk_texture_get_height (self->texture) : 0;
}

static void
gcuda_gtk_frame_sink_paintable_init (GdkPaintableInterface *iface)
{
  iface->snapshot = gcuda_gtk_frame_sink_snapshot;
  iface->get_current_image = gcuda_gtk_frame_sink_get_current_image;
  iface->get_intrinsic_width = gcuda_gtk_frame_sink_get_intrinsic_width;
  iface->get_intrinsic_height = gcuda_gtk_frame_sink_get_intrinsic_height;
}

/* The new last frame: the previous one is released (and with it, on the
 * zero-copy path, its texture of the ring once GTK has drawn it). */
static void
show_frame (GCudaGtkFrameSink *self,
            GdkTexture        *texture)
{
  gboolean resized = self->texture == NULL ||
                     gdk_texture_get_width (self->texture) != gdk_texture_get_width (texture) ||
                     gdk_texture_get_height (self->texture) != gdk_texture_get_height (texture);

  g_set_object (&self->texture, texture);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXTURE]);
  if (resized)
    gdk_paintable_invalidate_size (GDK_PAINTABLE (self));
  gdk_paintable_invalidate_contents (GDK_PAINTABLE (self));
}

/**
 * gcuda_gtk_frame_sink_new:
 * @context: (nullable): the CUDA context the kernel runs in, or %NULL for
 *   the calling thread's default
 * @gl_context: (nullable): a realized OpenGL context sharing GTK's (see
 *   [property@GCudaGtk.FrameSink:gl-context]), or %NULL for the copy path
 * @error: return location for a [struct@GLib.Error]
 *
 * Makes a frame sink and chooses its path (see
 * [property@GCudaGtk.FrameSink:reason]); @gl_context is made current for
 * that and the previous context made current again. That zero-copy is not
 * possible is no error.
 *
 * Returns: (transfer full): the sink, or %NULL with @error set when
 *   @context is %NULL and there is no default context (no driver, no GPU)
 *
 * Since: 1.0
 */
GCudaGtkFrameSink *
gcuda_gtk_frame_sink_new (GCudaContext  *context,
                          GdkGLContext  *gl_context,
                          GError       **error)
{
  g_autoptr(GCudaGtkFrameSink) self = NULL;

  g_return_val_if_fail (context == NULL || GCUDA_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (gl_context == NULL || GDK_IS_GL_CONTEXT (gl_context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (GCUDA_GTK_TYPE_FRAME_SINK, "context", context, "gl-context", gl_context, NULL);
  if (self->init_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->init_error));
      return NULL;
    }
  return g_steal_pointer (&self);
}

/**
 * gcuda_gtk_frame_sink_new_for_widget:
 * @context: (nullable): the CUDA context the kernel runs in, or %NULL for
 *   the calling thread's default
 * @widget: a realized widget of the window the frames are shown in
 * @error: return location for a [struct@GLib.Error]
 *
 * Makes a frame sink for a widget: when GTK renders the widget's window
 * with OpenGL ([class@Gsk.GLRenderer]), with a GL context made for the
 * window's surface ([method@Gdk.Surface.create_gl_context]); otherwise (the
 * Cairo or Vulkan renderer, or no GL context to be had) the sink takes the
 * copy path and [property@GCudaGtk.FrameSink:reason] says why.
 *
 * A widget that is not realized yet (make the sink from its
 * [signal@Gtk.Widget::realize] handler or later) is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: (transfer full): the sink, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaGtkFrameSink *
gcuda_gtk_frame_sink_new_for_widget (GCudaContext  *context,
                                     GtkWidget     *widget,
                                     GError       **error)
{
  g_autoptr(GdkGLContext) gl_context = NULL;
  g_autoptr(GError) gl_error = NULL;
  g_autofree char *reason = NULL;
  GCudaGtkFrameSink *self;
  GtkNative *native;
  GskRenderer *renderer;

  g_return_val_if_fail (context == NULL || GCUDA_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (GTK_IS_WIDGET (widget), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  native = gtk_widget_get_native (widget);
  if (!gtk_widget_get_realized (widget) || native == NULL || gtk_native_get_surface (native) == NULL)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("GCudaGtk.FrameSink.new_for_widget(): the %s is not realized yet; make the sink in its ::realize handler or later"),
                   G_OBJECT_TYPE_NAME (widget));
      return NULL;
    }

  renderer = gtk_native_get_renderer (native);
  if (renderer == NULL || !GSK_IS_GL_RENDERER (renderer))
    {
      reason = g_strdup_printf (_("GTK draws this window with %s, not with OpenGL: frames are copied through host memory"),
                                renderer != NULL ? G_OBJECT_TYPE_NAME (renderer) : "no renderer");
    }
  else
    {
      gl_context = gdk_surface_create_gl_context (gtk_native_get_surface (native), &gl_error);
      if (gl_context != NULL && !gdk_gl_context_realize (gl_context, &gl_error))
        g_clear_object (&gl_context);
      if (gl_context == NULL)
        reason = g_strdup_printf (_("No OpenGL context (%s): frames are copied through host memory"),
                                  gl_error->message);
    }

  self = gcuda_gtk_frame_sink_new (context, gl_context, error);
  if (self != NULL && reason != NULL)
    set_path (self, GCUDA_GTK_FRAME_PATH_COPY, reason);
  return self;
}

/**
 * gcuda_gtk_frame_sink_get_context: (get-property context)
 * @self: a [class@GCudaGtk.FrameSink]
 *
 * The CUDA context of the frames.
 *
 * Returns: (transfer none) (nullable): the context, or %NULL when there was
 *   no default context to take
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_gtk_frame_sink_get_context (GCudaGtkFrameSink *self)
{
  g_return_val_if_fail (GCUDA_GTK_IS_FRAME_SINK (self), NULL);
  return self->context;
}

/**
 * gcuda_gtk_frame_sink_get_gl_context: (get-property gl-context)
 * @self: a [class@GCudaGtk.FrameSink]
 *
 * The OpenGL context of the zero-copy path's textures.
 *
 * Returns: (transfer none) (nullable): the GL context, or %NULL
 *
 * Since: 1.0
 */
GdkGLContext *
gcuda_gtk_frame_sink_get_gl_context (GCudaGtkFrameSink *self)
{
  g_return_val_if_fail (GCUDA_GTK_IS_FRAME_SINK (self), NULL);
  return self->gl_context;
}

/**
 * gcuda_gtk_frame_sink_get_path: (get-property path)
 * @self: a [class@GCudaGtk.FrameSink]
 *
 * How frames go to GTK now.
 *
 * Returns: the path
 *
 * Since: 1.0
 */
GCudaGtkFramePath
gcuda_gtk_frame_sink_get_path (GCudaGtkFrameSink *self)
{
  g_return_val_if_fail (GCUDA_GTK_IS_FRAME_SINK (self), GCUDA_GTK_FRAME_PATH_COPY);
  return self->path;
}

/**
 * gcuda_gtk_frame_sink_get_reason: (get-property reason)
 * @self: a [class@GCudaGtk.FrameSink]
 *
 * Why the path is what it is.
 *
 * Returns: (transfer none): a sentence for the user
 *
 * Since: 1.0
 */
const char *
gcuda_gtk_frame_sink_get_reason (GCudaGtkFrameSink *self)
{
  g_return_val_if_fail (GCUDA_GTK_IS_FRAME_SINK (self), NULL);
  return self->reason;
}

/**
 * gcuda_gtk_frame_sink_get_texture: (get-property texture)
 * @self: a [class@GCudaGtk.FrameSink]
 *
 * The last frame (see [property@GCudaGtk.FrameSink:texture]).
 *
 * Returns: (transfer none) (nullable): the texture, or %NULL before the
 *   first frame
 *
 * Since: 1.0
 */
GdkTexture *
gcuda_gtk_frame_sink_get_texture (GCudaGtkFrameSink *self)
{
  g_return_val_if_fail (GCUDA_GTK_IS_FRAME_SINK (self), NULL);
  return self->texture;
}

/**
 * gcuda_gtk_frame_sink_begin_frame:
 * @self: a [class@GCudaGtk.FrameSink]
 * @width: the frame's width in pixels, at least 1
 * @height: the frame's height in pixels, at least 1
 * @error: return location for a [struct@GLib.Error]
 *
 * The device memory the next frame is drawn into: @width × @height RGBA
 * pixels, 8 bits per channel, premultiplied alpha, rows `@width * 4` bytes
 * apart, row 0 at the top. The same buffer comes back while the size stays the same. Launch the
 * kernel that writes it, then call [method@GCudaGtk.FrameSink.end_frame_async]
 * with the kernel's stream.
 *
 * A size of 0 or one whose bytes do not fit in 31 bits is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]; a call while a frame
 * is being ended is [G_IO_ERROR_PENDING][error@Gio.IOErrorEnum.PENDING];
 * without a CUDA context, the error that left the sink without one.
 *
 * Returns: (transfer none): the buffer, owned by the sink, or %NULL with
 *   @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_gtk_frame_sink_begin_frame (GCudaGtkFrameSink  *self,
                                  guint               width,
                                  guint               height,
                                  GError            **error)
{
  g_return_val_if_fail (GCUDA_GTK_IS_FRAME_SINK (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->context == NULL)
    {
      g_set_error_literal (error, self->init_error->domain, self->init_error->code,
                           self->init_error->message);
      return NULL;
    }
  if (self->ending)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PENDING,
                           _("GCudaGtk.FrameSink.begin_frame(): the previous frame is still being ended; wait for end_frame_finish()"));
      return NULL;
    }
  if (width == 0 || height == 0 || (guint64) width * height * 4 > G_MAXINT32)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("GCudaGtk.FrameSink.begin_frame(): a frame of %u×%u pixels is not possible (each side at least 1, at most 2 GiB of pixels)"),
                   width, height);
      return NULL;
    }
  if (self->buffer == NULL || width != self->width || height != self->height)
    {
      GCudaBuffer *buffer = gcuda_buffer_new (self->context, (guint64) width * height * 4, error);

      if (buffer == NULL)
        return NULL;
      g_clear_object (&self->buffer);
      self->buffer = buffer;
      self->width = width;
      self->height = height;
    }
  return self->buffer;
}

typedef struct
{
  GCudaBuffer *buffer;  /* the frame's pixels */
  guint width;
  guint height;
  Slot *slot;           /* zero-copy: the texture written */
} EndFrame;

static void
end_frame_free (gpointer data)
{
  EndFrame *frame = data;

  g_clear_object (&frame->buffer);
  g_free (frame);
}

static void
texture_released (gpointer data)
{
  Slot *slot = data;

  g_atomic_int_set (&slot->busy, 0);
  ring_unref (slot->ring);
}

/* A free texture of the ring (no GdkGLTexture of it alive), or NULL. */
static Slot *
take_slot (GCudaGtkFrameSink *self)
{
  if (self->ring == NULL)
    self->ring = ring_new (self->gl_context);
  for (guint i = 0; i < RING_SIZE; i++)
    if (g_atomic_int_compare_and_exchange (&self->ring->slots[i].busy, 0, 1))
      return &self->ring->slots[i];
  return NULL;
}

/* Copies the frame into @slot's texture on @stream, the GL context current:
 * (re)makes and registers the texture at the frame's size, maps it, copies
 * the buffer into its array, unmaps, flushes GL. */
static gboolean
write_slot (GCudaGtkFrameSink  *self,
            Slot               *slot,
            EndFrame           *frame,
            GCudaStream        *stream,
            GError            **error)
{
  g_autoptr(GCudaArray) array = NULL;
  g_autoptr(GCudaCopy2D) copy = NULL;
  gboolean ok;

  if (slot->texture == 0 || slot->width != frame->width || slot->height != frame->height)
    {
      GLint max_size = 0;
      GLenum gl_error;

      g_clear_object (&slot->resource);
      if (slot->texture != 0)
        glDeleteTextures (1, &slot->texture);
      slot->texture = 0;

      glGetIntegerv (GL_MAX_TEXTURE_SIZE, &max_size);
      if (frame->width > (guint) max_size || frame->height > (guint) max_size)
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED,
                       _("OpenGL textures are at most %d pixels wide and high here, the frame is %u×%u"),
                       max_size, frame->width, frame->height);
          return FALSE;
        }
      while (glGetError () != GL_NO_ERROR)
        ;
      glGenTextures (1, &slot->texture);
      glBindTexture (GL_TEXTURE_2D, slot->texture);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
      glTexImage2D (GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei) frame->width, (GLsizei) frame->height, 0,
                    GL_RGBA, GL_UNSIGNED_BYTE, NULL);
      glBindTexture (GL_TEXTURE_2D, 0);
      gl_error = glGetError ();
      if (gl_error != GL_NO_ERROR)
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_FAILED,
                       _("OpenGL could not make a %u×%u RGBA texture (GL error 0x%04x)"),
                       frame->width, frame->height, gl_error);
          return FALSE;
        }
      slot->width = frame->width;
      slot->height = frame->height;
      slot->resource = gcuda_graphics_resource_new_for_gl_image (self->context, slot->texture, GL_TEXTURE_2D,
                                                                 GCUDA_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD,
                                                                 error);
      if (slot->resource == NULL)
        return FALSE;
    }

  if (!gcuda_graphics_resource_map (slot->resource, stream, error))
    return FALSE;
  array = gcuda_graphics_resource_get_mapped_array (slot->resource, 0, 0, error);
  if (array != NULL)
    {
      copy = gcuda_copy_2d_new ();
      gcuda_copy_2d_set_src_buffer (copy, frame->buffer);
      gcuda_copy_2d_set_dst_array (copy, array);
      g_object_set (copy,
                    "src-pitch", (guint64) frame->width * 4,
                    "width-in-bytes", (guint64) frame->width * 4,
                    "height", (guint64) frame->height,
                    NULL);
    }
  ok = array != NULL && gcuda_copy_2d_execute (copy, stream, error);
  g_clear_object (&copy);
  g_clear_object (&array);
  /* unmap even after a failed copy; the first error is the one to tell */
  if (!gcuda_graphics_resource_unmap (slot->resource, stream, ok ? error : NULL))
    ok = FALSE;
  /* GTK's context sees the texture as the unmap left it */
  glFlush ();
  return ok;
}

static void
copy_downloaded (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCudaGtkFrameSink *self = g_task_get_source_object (task);
  EndFrame *frame = g_task_get_task_data (task);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GError *error = NULL;

  self->ending = FALSE;
  bytes = gcuda_buffer_download_finish (GCUDA_BUFFER (source), result, &error);
  if (bytes == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* premultiplied, as GTK takes the GL textures of the other path */
  texture = gdk_memory_texture_new ((int) frame->width, (int) frame->height,
                                    GDK_MEMORY_R8G8B8A8_PREMULTIPLIED, bytes, (gsize) frame->width * 4);
  show_frame (self, texture);
  g_task_return_boolean (task, TRUE);
}

static void
zero_copy_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCudaGtkFrameSink *self = g_task_get_source_object (task);
  EndFrame *frame = g_task_get_task_data (task);
  Slot *slot = frame->slot;
  g_autoptr(GdkTexture) texture = NULL;
  GError *error = NULL;
  gboolean ok;

  self->ending = FALSE;
  if (GCUDA_IS_STREAM (source))
    ok = gcuda_stream_synchronize_finish (GCUDA_STREAM (source), result, &error);
  else
    ok = gcuda_context_synchronize_finish (GCUDA_CONTEXT (source), result, &error);
  if (!ok)
    {
      g_atomic_int_set (&slot->busy, 0);
      g_task_return_error (task, error);
      return;
    }
  /* the CUDA work that wrote the texture is done: GTK may sample it; the
   * slot stays busy until GTK releases the texture (texture_released),
   * and the texture holds the ring until then */
  ring_ref (slot->ring);
  texture = gdk_gl_texture_new (self->gl_context, slot->texture, (int) slot->width, (int) slot->height,
                                texture_released, slot);
  show_frame (self, texture);
  g_task_return_boolean (task, TRUE);
}

/**
 * gcuda_gtk_frame_sink_end_frame_async:
 * @self: a [class@GCudaGtk.FrameSink]
 * @stream: (nullable): the stream the kernel that wrote the frame ran on, or
 *   %NULL for the context's default stream
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: (scope async): called when the texture is ready
 * @user_data: data for @callback
 *
 * Turns the frame drawn into [method@GCudaGtk.FrameSink.begin_frame]'s
 * buffer into a texture, without blocking: on the zero-copy path the
 * buffer is copied on @stream into a free texture of the ring (with the GL
 * context current; the previous one is made current again) and the texture
 * is handed over once @stream has finished; on the copy path the buffer is
 * downloaded on @stream. Call [method@GCudaGtk.FrameSink.end_frame_finish]
 * in @callback.
 *
 * Cancelling stops the wait, not the GPU work.
 *
 * Since: 1.0
 */
void
gcuda_gtk_frame_sink_end_frame_async (GCudaGtkFrameSink   *self,
                                      GCudaStream         *stream,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  EndFrame *frame;

  g_return_if_fail (GCUDA_GTK_IS_FRAME_SINK (self));
  g_return_if_fail (stream == NULL || GCUDA_IS_STREAM (stream));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gcuda_gtk_frame_sink_end_frame_async);

  if (self->ending)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING, "%s",
                               _("GCudaGtk.FrameSink.end_frame_async(): the previous frame is still being ended; wait for end_frame_finish()"));
      return;
    }
  if (self->buffer == NULL)
    {
      g_task_return_new_error (task, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, "%s",
                               _("GCudaGtk.FrameSink.end_frame_async(): no frame was begun; call begin_frame() first"));
      return;
    }

  frame = g_new0 (EndFrame, 1);
  frame->buffer = g_object_ref (self->buffer);
  frame->width = self->width;
  frame->height = self->height;
  g_task_set_task_data (task, frame, end_frame_free);
  self->ending = TRUE;

  if (self->path == GCUDA_GTK_FRAME_PATH_ZERO_COPY)
    {
      Slot *slot = take_slot (self);

      /* all textures still GTK's: this frame goes through host memory */
      if (slot == NULL)
        g_debug ("GCudaGtk.FrameSink: every texture of the ring is still in use; copying this frame");
      else
        {
          g_autoptr(GError) error = NULL;
          GdkGLContext *previous = enter_gl (self->gl_context);
          gboolean written = write_slot (self, slot, frame, stream, &error);

          restore_gl (previous);
          if (written)
            {
              frame->slot = slot;
              if (stream != NULL)
                gcuda_stream_synchronize_async (stream, cancellable, zero_copy_done, g_steal_pointer (&task));
              else
                gcuda_context_synchronize_async (self->context, cancellable, zero_copy_done,
                                                 g_steal_pointer (&task));
              return;
            }
          else
            {
              g_autofree char *reason =
                g_strdup_printf (_("Zero-copy display failed (%s): frames are copied through host memory"),
                                 error->message);

              g_atomic_int_set (&slot->busy, 0);
              g_message ("%s", reason);
              set_path (self, GCUDA_GTK_FRAME_PATH_COPY, reason);
            }
        }
    }

  gcuda_buffer_download_async (frame->buffer, 0, (guint64) frame->width * frame->height * 4, stream,
                               cancellable, copy_downloaded, g_steal_pointer (&task));
}

/**
 * gcuda_gtk_frame_sink_end_frame_finish:
 * @self: a [class@GCudaGtk.FrameSink]
 * @result: the [iface@Gio.AsyncResult] given to the callback
 * @error: return location for a [struct@GLib.Error]
 *
 * Finishes [method@GCudaGtk.FrameSink.end_frame_async]. On success the
 * frame is the sink's [property@GCudaGtk.FrameSink:texture], and the sink,
 * a [iface@Gdk.Paintable], shows it (set it once as a `GtkPicture`'s
 * paintable).
 *
 * Returns: %TRUE on success, %FALSE with @error set (the errors of the copy
 *   or of the wait for the stream, or those
 *   [method@GCudaGtk.FrameSink.end_frame_async] describes)
 *
 * Since: 1.0
 */
gboolean
gcuda_gtk_frame_sink_end_frame_finish (GCudaGtkFrameSink  *self,
                                       GAsyncResult       *result,
                                       GError            **error)
{
  g_return_val_if_fail (GCUDA_GTK_IS_FRAME_SINK (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == gcuda_gtk_frame_sink_end_frame_async, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
