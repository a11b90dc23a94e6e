/* gcuda-graphics-resource.c: OpenGL buffers, textures and renderbuffers
 * registered with CUDA
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-array-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-context-private.h"
#include "gcuda-device-private.h"
#include "gcuda-stream-private.h"

/**
 * GCudaGraphicsResource:
 *
 * An OpenGL object registered with CUDA (PyCUDA's `pycuda.gl.RegisteredBuffer`
 * and `RegisteredImage`, the driver's `CUgraphicsResource`): kernels write
 * into what OpenGL draws, and read what it rendered, without a copy.
 *
 * GCuda links no OpenGL library: objects are given by their GL names and
 * targets, as `guint`s, and **the OpenGL context that owns them must be
 * current on the calling thread** when they are registered, mapped,
 * unmapped and unregistered (`eglMakeCurrent()`,
 * `gdk_gl_context_make_current()`). The GL context must run on the CUDA
 * context's device: [func@GCuda.graphics_get_gl_devices] tells which CUDA
 * devices the current GL context uses, none when it is not the NVIDIA
 * driver's (Mesa's software renderer, another GPU of a hybrid laptop),
 * where zero-copy is not possible.
 *
 * A buffer object ([ctor@GCuda.GraphicsResource.new_for_gl_buffer]) is
 * mapped as a [class@GCuda.Buffer], a texture or renderbuffer
 * ([ctor@GCuda.GraphicsResource.new_for_gl_image]) as one
 * [class@GCuda.Array] per layer and mip level. Between
 * [method@GCuda.GraphicsResource.map] and
 * [method@GCuda.GraphicsResource.unmap], OpenGL must not use the object;
 * after the unmap, CUDA must not. The buffer and arrays a mapping gives are
 * borrowed: they work wherever others do (copies, kernel arguments,
 * [class@GCuda.Texture] and [class@GCuda.Surface] objects), and after the
 * unmap every use of them is [GCUDA_ERROR_FREED][error@GCuda.Error], with a
 * message that says so. Texture and surface objects made on a mapped array
 * must not be used by kernels after the unmap either (a kernel argument is
 * only a number, which GCuda cannot check): make them anew for each mapping.
 *
 * ```c
 * // pbo: a GL buffer of n floats, the GL context current
 * static gboolean
 * fill_from_cuda (guint pbo, GCudaFunction *fill, guint n, GError **error)
 * {
 *   g_autoptr(GCudaGraphicsResource) res =
 *     gcuda_graphics_resource_new_for_gl_buffer (NULL, pbo,
 *                                                GCUDA_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD, error);
 *   g_autoptr(GCudaBuffer) mapped = NULL;
 *   g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
 *
 *   if (res == NULL || !gcuda_graphics_resource_map (res, NULL, error) ||
 *       (mapped = gcuda_graphics_resource_get_mapped_buffer (res, error)) == NULL)
 *     return FALSE;
 *   gcuda_kernel_args_add_buffer (args, mapped);
 *   gcuda_kernel_args_add_uint32 (args, n);
 *   if (!gcuda_function_launch (fill, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, error))
 *     return FALSE;
 *   // the unmap orders OpenGL's later use of pbo after the kernel
 *   return gcuda_graphics_resource_unmap (res, NULL, error);
 * }
 * ```
 *
 * In Python, `gcuda.gl` has PyCUDA's names:
 *
 * <!-- doc-snippet: fragment -->
 * ```python
 * import gcuda.gl
 * res = gcuda.gl.RegisteredBuffer(int(pbo), gcuda.gl.graphics_map_flags.WRITE_DISCARD)
 * mapping = res.map()
 * ptr, size = mapping.device_ptr_and_size()
 * fill(numpy.uintp(ptr), block=(256, 1, 1), grid=(n // 256, 1))
 * mapping.unmap()
 * ```
 *
 * Mapping twice is [GCUDA_DRIVER_ERROR_ALREADY_MAPPED][error@GCuda.DriverError],
 * unmapping or asking an unmapped resource for its memory
 * [GCUDA_DRIVER_ERROR_NOT_MAPPED][error@GCuda.DriverError]; a buffer object's
 * array is [GCUDA_DRIVER_ERROR_NOT_MAPPED_AS_ARRAY][error@GCuda.DriverError]
 * and an image's buffer
 * [GCUDA_DRIVER_ERROR_NOT_MAPPED_AS_POINTER][error@GCuda.DriverError].
 * Without a current OpenGL context of the NVIDIA driver, registering is
 * [GCUDA_DRIVER_ERROR_INVALID_GRAPHICS_CONTEXT][error@GCuda.DriverError]; a
 * GL name that is not an object of the kind asked for is the driver's
 * [GCUDA_DRIVER_ERROR_INVALID_VALUE][error@GCuda.DriverError] or
 * [GCUDA_DRIVER_ERROR_INVALID_HANDLE][error@GCuda.DriverError]. The messages
 * say what to check.
 *
 * The resource is unregistered with [method@GCuda.GraphicsResource.unregister]
 * or when its last reference goes (unmapped first when it is still mapped),
 * in its CUDA context from any thread; do that while the GL object still
 * exists, with its GL context current. After
 * [method@GCuda.Context.destroy], every call is
 * [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error]. A resource holds a
 * reference to its context and may be used from any thread that has the GL
 * context current.
 *
 * Since: 1.0
 */

/* OpenGL's targets cuGraphicsGLRegisterImage takes (the GL registry's values) */
#define GL_TEXTURE_2D 0x0DE1
#define GL_TEXTURE_3D 0x806F
#define GL_TEXTURE_RECTANGLE 0x84F5
#define GL_TEXTURE_CUBE_MAP 0x8513
#define GL_TEXTURE_2D_ARRAY 0x8C1A
#define GL_RENDERBUFFER 0x8D41

typedef struct {
  guint index;
  guint level;
  GCudaArray *array;
} MappedArray;

struct _GCudaGraphicsResource
{
  GObject parent_instance;

  GCudaContext *context;
  CUgraphicsResource handle;
  GCudaGraphicsResourceKind kind;
  guint gl_name;
  guint gl_target;
  GCudaGraphicsRegisterFlags flags;

  /* under graphics_lock */
  gboolean mapped;
  gboolean unregistered;
  GCudaBuffer *mapped_buffer;  /* what this mapping gave out, retired at */
  GArray *mapped_arrays;       /* the unmap (MappedArray) */
};

/* One lock for every resource: map_all() changes several at once, and
 * mapping is rare enough (a few times a frame) not to contend. */
G_LOCK_DEFINE_STATIC (graphics);

G_DEFINE_FINAL_TYPE (GCudaGraphicsResource, gcuda_graphics_resource, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_KIND,
  PROP_GL_NAME,
  PROP_GL_TARGET,
  PROP_FLAGS,
  PROP_MAPPED,
  PROP_REGISTERED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* With graphics_lock held: what the mapping gave out becomes unusable. */
static void
retire_views (GCudaGraphicsResource *self)
{
  if (self->mapped_buffer != NULL)
    {
      /* retires it (nothing is freed: the memory is OpenGL's); an error
       * only says the caller freed it already */
      gcuda_buffer_free (self->mapped_buffer, NULL);
      g_clear_object (&self->mapped_buffer);
    }
  for (guint i = 0; i < self->mapped_arrays->len; i++)
    {
      MappedArray *m = &g_array_index (self->mapped_arrays, MappedArray, i);

      gcuda_array_free (m->array, NULL);  /* an error only says it was freed already */
      g_clear_object (&m->array);
    }
  g_array_set_size (self->mapped_arrays, 0);
}

static void
gcuda_graphics_resource_finalize (GObject *object)
{
  GCudaGraphicsResource *self = GCUDA_GRAPHICS_RESOURCE (object);

  if (self->handle != NULL && !self->unregistered)
    {
      CUgraphicsResource handle = self->handle;

      if (self->mapped)
        GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuGraphicsUnmapResources (1, &handle, NULL));
      GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuGraphicsUnregisterResource (handle));
    }
  retire_views (self);
  g_array_unref (self->mapped_arrays);
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_graphics_resource_parent_class)->finalize (object);
}

static void
gcuda_graphics_resource_get_property (GObject    *object,
                                      guint       prop_id,
                                      GValue     *value,
                                      GParamSpec *pspec)
{
  GCudaGraphicsResource *self = GCUDA_GRAPHICS_RESOURCE (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case PROP_GL_NAME:
      g_value_set_uint (value, self->gl_name);
      break;
    case PROP_GL_TARGET:
      g_value_set_uint (value, self->gl_target);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_MAPPED:
      g_value_set_boolean (value, gcuda_graphics_resource_is_mapped (self));
      break;
    case PROP_REGISTERED:
      g_value_set_boolean (value, gcuda_graphics_resource_is_registered (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_graphics_resource_class_init (GCudaGraphicsResourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_graphics_resource_finalize;
  object_class->get_property = gcuda_graphics_resource_get_property;

  /**
   * GCudaGraphicsResource:context: (getter get_context)
   *
   * The CUDA context the resource was registered in.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT, ro);

  /**
   * GCudaGraphicsResource:kind: (getter get_kind)
   *
   * Whether an OpenGL buffer object or image was registered.
   *
   * Since: 1.0
   */
  properties[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, GCUDA_TYPE_GRAPHICS_RESOURCE_KIND,
                                             GCUDA_GRAPHICS_RESOURCE_KIND_BUFFER, ro);

  /**
   * GCudaGraphicsResource:gl-name: (getter get_gl_name)
   *
   * The OpenGL name of the buffer, texture or renderbuffer (PyCUDA's
   * `gl_handle()`).
   *
   * Since: 1.0
   */
  properties[PROP_GL_NAME] = g_param_spec_uint ("gl-name", NULL, NULL, 0, G_MAXUINT, 0, ro);

  /**
   * GCudaGraphicsResource:gl-target: (getter get_gl_target)
   *
   * The OpenGL target of an image (`GL_TEXTURE_2D`, `GL_RENDERBUFFER` …);
   * 0 for a buffer object.
   *
   * Since: 1.0
   */
  properties[PROP_GL_TARGET] = g_param_spec_uint ("gl-target", NULL, NULL, 0, G_MAXUINT, 0, ro);

  /**
   * GCudaGraphicsResource:flags: (getter get_flags)
   *
   * How CUDA uses the resource, as it was registered.
   *
   * Since: 1.0
   */
  properties[PROP_FLAGS] = g_param_spec_flags ("flags", NULL, NULL, GCUDA_TYPE_GRAPHICS_REGISTER_FLAGS,
                                               GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, ro);

  /**
   * GCudaGraphicsResource:mapped: (getter is_mapped)
   *
   * Whether the resource is mapped for CUDA now. Not notified: it changes
   * on whichever thread maps and unmaps.
   *
   * Since: 1.0
   */
  properties[PROP_MAPPED] = g_param_spec_boolean ("mapped", NULL, NULL, FALSE, ro);

  /**
   * GCudaGraphicsResource:registered: (getter is_registered)
   *
   * Whether the resource is registered: made by a constructor and not
   * unregistered yet. Not notified.
   *
   * Since: 1.0
   */
  properties[PROP_REGISTERED] = g_param_spec_boolean ("registered", NULL, NULL, FALSE, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_graphics_resource_init (GCudaGraphicsResource *self)
{
  self->mapped_arrays = g_array_new (FALSE, FALSE, sizeof (MappedArray));
}

/* ------------------------------------------------------------ errors */

/* Adds @hint to a driver error of @local (the driver's own text names the
 * call and the code, not what to check) and passes it on. */
static void
explain (GError     *local,
         const char *hint,
         GError    **error)
{
  if (hint != NULL && local->domain == GCUDA_DRIVER_ERROR)
    g_propagate_prefixed_error (error, local, "%s: ", hint);
  else
    g_propagate_error (error, local);
}

static const char *
no_gl_context_hint (void)
{
  return _("No OpenGL context of the NVIDIA driver is current on this thread: make the GL context that owns "
           "the object current first (eglMakeCurrent(), gdk_gl_context_make_current()); a GL context of "
           "another driver, such as Mesa's, cannot share with CUDA (GCuda.graphics_get_gl_devices() tells)");
}

/* Made by a constructor, not unregistered, its context not destroyed.
 * With graphics_lock held. */
static gboolean
resource_check (GCudaGraphicsResource  *self,
                GError                **error)
{
  if (!GCUDA_IS_GRAPHICS_RESOURCE (self))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.GraphicsResource"));
      return FALSE;
    }
  if (!GCUDA_CHECK_MADE (self->handle != NULL, error,
                         _("This GCuda.GraphicsResource has no OpenGL object behind it: register one with "
                           "GraphicsResource.new_for_gl_buffer() or new_for_gl_image()")))
    return FALSE;
  if (self->unregistered)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_FREED,
                   _("The graphics resource of OpenGL object %u was unregistered"), self->gl_name);
      return FALSE;
    }
  if (gcuda_context_is_destroyed (self->context))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED,
                           _("The graphics resource's context was destroyed (Context.destroy())"));
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ registering */

static GCudaGraphicsResource *
resource_new (GCudaContext               *context,
              CUgraphicsResource          handle,
              GCudaGraphicsResourceKind   kind,
              guint                       gl_name,
              guint                       gl_target,
              GCudaGraphicsRegisterFlags  flags)
{
  GCudaGraphicsResource *self = g_object_new (GCUDA_TYPE_GRAPHICS_RESOURCE, NULL);

  self->context = context;
  self->handle = handle;
  self->kind = kind;
  self->gl_name = gl_name;
  self->gl_target = gl_target;
  self->flags = flags;
  return self;
}

static gboolean
check_flags (GCudaGraphicsRegisterFlags   flags,
             gboolean                     image,
             GError                     **error)
{
  const guint all = GCUDA_GRAPHICS_REGISTER_FLAGS_READ_ONLY | GCUDA_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD |
                    GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE | GCUDA_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER;
  const guint image_only = GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE |
                           GCUDA_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER;

  if ((flags & ~all) != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown graphics register flags 0x%x"), (guint) (flags & ~all));
      return FALSE;
    }
  if ((flags & GCUDA_GRAPHICS_REGISTER_FLAGS_READ_ONLY) && (flags & GCUDA_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("READ_ONLY and WRITE_DISCARD exclude each other: CUDA either only reads or only writes"));
      return FALSE;
    }
  if (!image && (flags & image_only) != 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("SURFACE_LOAD_STORE and TEXTURE_GATHER are for images (textures and renderbuffers), "
                             "not buffer objects"));
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_graphics_resource_new_for_gl_buffer:
 * @context: (nullable): the CUDA context, or %NULL for the default context
 * @buffer: the OpenGL name of a buffer object of the current GL context
 * @flags: how CUDA will use it: NONE, READ_ONLY or WRITE_DISCARD
 * @error: return location for a [struct@GLib.Error]
 *
 * Registers an OpenGL buffer object (a vertex, pixel or shader storage
 * buffer) with CUDA (PyCUDA's `RegisteredBuffer`,
 * `cuGraphicsGLRegisterBuffer`); once mapped, it is a [class@GCuda.Buffer]
 * of its size. The GL context that owns @buffer must be current on this
 * thread and run on @context's device, and @buffer must have storage
 * (`glBufferData()`).
 *
 * Name 0, unknown flags, READ_ONLY with WRITE_DISCARD, or flags for images
 * are [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]; no current GL
 * context of the NVIDIA driver is
 * [GCUDA_DRIVER_ERROR_INVALID_GRAPHICS_CONTEXT][error@GCuda.DriverError]; a
 * name that is not a buffer object of that context is the driver's
 * [GCUDA_DRIVER_ERROR_INVALID_VALUE][error@GCuda.DriverError] or
 * [GCUDA_DRIVER_ERROR_INVALID_HANDLE][error@GCuda.DriverError].
 *
 * Returns: (transfer full): the registered resource, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaGraphicsResource *
gcuda_graphics_resource_new_for_gl_buffer (GCudaContext                *context,
                                           guint                        buffer,
                                           GCudaGraphicsRegisterFlags   flags,
                                           GError                     **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  CUgraphicsResource handle = NULL;
  GError *local = NULL;

  if (buffer == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("OpenGL name 0 is no buffer object: pass a name from glGenBuffers() or glCreateBuffers()"));
      return NULL;
    }
  if (!check_flags (flags, FALSE, error) || (ctx = _gcuda_context_resolve (context, error)) == NULL)
    return NULL;
  if (!GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuGraphicsGLRegisterBuffer (&handle, buffer, flags),
                           "cuGraphicsGLRegisterBuffer", &local))
    {
      g_autofree char *hint = NULL;

      if (g_error_matches (local, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_GRAPHICS_CONTEXT))
        hint = g_strdup (no_gl_context_hint ());
      else if (g_error_matches (local, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_VALUE) ||
               g_error_matches (local, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_HANDLE))
        hint = g_strdup_printf (_("OpenGL name %u is not a buffer object with storage in the current GL context "
                                  "(check glIsBuffer() and glBufferData(), and that the right GL context is "
                                  "current)"), buffer);
      else if (g_error_matches (local, GCUDA_DRIVER_ERROR, CUDA_ERROR_ALREADY_MAPPED))
        hint = g_strdup_printf (_("OpenGL buffer %u is mapped already (by another registration)"), buffer);
      else if (local->domain == GCUDA_DRIVER_ERROR)
        hint = g_strdup_printf (_("OpenGL buffer %u could not be registered: check that its GL context is current "
                                  "and runs on the CUDA context's device"), buffer);
      explain (local, hint, error);
      return NULL;
    }
  return resource_new (g_steal_pointer (&ctx), handle, GCUDA_GRAPHICS_RESOURCE_KIND_BUFFER, buffer, 0, flags);
}

/**
 * gcuda_graphics_resource_new_for_gl_image:
 * @context: (nullable): the CUDA context, or %NULL for the default context
 * @image: the OpenGL name of a texture or renderbuffer of the current GL
 *   context
 * @target: its target: `GL_TEXTURE_2D` (0x0DE1), `GL_TEXTURE_RECTANGLE`
 *   (0x84F5), `GL_TEXTURE_CUBE_MAP` (0x8513), `GL_TEXTURE_3D` (0x806F),
 *   `GL_TEXTURE_2D_ARRAY` (0x8C1A) or `GL_RENDERBUFFER` (0x8D41)
 * @flags: how CUDA will use it; SURFACE_LOAD_STORE for kernels that write
 *   it through a [class@GCuda.Surface]
 * @error: return location for a [struct@GLib.Error]
 *
 * Registers an OpenGL texture or renderbuffer with CUDA (PyCUDA's
 * `RegisteredImage`, `cuGraphicsGLRegisterImage`); once mapped, each layer
 * and mip level is a [class@GCuda.Array]. The GL context that owns @image
 * must be current on this thread and run on @context's device. Internal
 * formats of 1, 2 or 4 channels of 8, 16 or 32 bits (`GL_RGBA8`, `GL_R32F`,
 * `GL_RG16F` …) can be shared; textures with borders and multisampled
 * renderbuffers cannot.
 *
 * Name 0, another target, unknown flags or READ_ONLY with WRITE_DISCARD are
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]; no current GL context
 * of the NVIDIA driver is
 * [GCUDA_DRIVER_ERROR_INVALID_GRAPHICS_CONTEXT][error@GCuda.DriverError]; a
 * name that is not an image of @target in that context, or a format CUDA
 * cannot share, is the driver's
 * [GCUDA_DRIVER_ERROR_INVALID_VALUE][error@GCuda.DriverError] or
 * [GCUDA_DRIVER_ERROR_INVALID_HANDLE][error@GCuda.DriverError].
 *
 * Returns: (transfer full): the registered resource, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaGraphicsResource *
gcuda_graphics_resource_new_for_gl_image (GCudaContext                *context,
                                          guint                        image,
                                          guint                        target,
                                          GCudaGraphicsRegisterFlags   flags,
                                          GError                     **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  CUgraphicsResource handle = NULL;
  GError *local = NULL;

  if (image == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("OpenGL name 0 is no texture or renderbuffer: pass a name from glGenTextures() or "
                             "glGenRenderbuffers()"));
      return NULL;
    }
  switch (target)
    {
    case GL_TEXTURE_2D:
    case GL_TEXTURE_RECTANGLE:
    case GL_TEXTURE_CUBE_MAP:
    case GL_TEXTURE_3D:
    case GL_TEXTURE_2D_ARRAY:
    case GL_RENDERBUFFER:
      break;
    default:
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("OpenGL target 0x%04x cannot be registered: use GL_TEXTURE_2D (0x0DE1), GL_TEXTURE_RECTANGLE "
                     "(0x84F5), GL_TEXTURE_CUBE_MAP (0x8513), GL_TEXTURE_3D (0x806F), GL_TEXTURE_2D_ARRAY "
                     "(0x8C1A) or GL_RENDERBUFFER (0x8D41); buffer objects have their own constructor"),
                   target);
      return NULL;
    }
  if (!check_flags (flags, TRUE, error) || (ctx = _gcuda_context_resolve (context, error)) == NULL)
    return NULL;
  if (!GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuGraphicsGLRegisterImage (&handle, image, target, flags),
                           "cuGraphicsGLRegisterImage", &local))
    {
      g_autofree char *hint = NULL;

      if (g_error_matches (local, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_GRAPHICS_CONTEXT))
        hint = g_strdup (no_gl_context_hint ());
      else if (g_error_matches (local, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_VALUE) ||
               g_error_matches (local, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_HANDLE))
        hint = g_strdup_printf (_("OpenGL name %u is not a texture or renderbuffer of target 0x%04x with storage in "
                                  "the current GL context, or its internal format cannot be shared with CUDA "
                                  "(check the target, glTexStorage2D()/glTexImage2D(), and a format of 1, 2 or 4 "
                                  "channels of 8, 16 or 32 bits such as GL_RGBA8 or GL_R32F)"), image, target);
      else if (g_error_matches (local, GCUDA_DRIVER_ERROR, CUDA_ERROR_ALREADY_MAPPED))
        hint = g_strdup_printf (_("OpenGL image %u is mapped already (by another registration)"), image);
      else if (local->domain == GCUDA_DRIVER_ERROR)
        hint = g_strdup_printf (_("OpenGL image %u could not be registered: check that its GL context is current "
                                  "and runs on the CUDA context's device"), image);
      explain (local, hint, error);
      return NULL;
    }
  return resource_new (g_steal_pointer (&ctx), handle, GCUDA_GRAPHICS_RESOURCE_KIND_IMAGE, image, target,
                       flags);
}

/* ------------------------------------------------------------ properties */

/**
 * gcuda_graphics_resource_get_context: (get-property context)
 * @self: a [class@GCuda.GraphicsResource]
 *
 * The CUDA context the resource was registered in.
 *
 * Returns: (transfer none) (nullable): the context; %NULL for an object
 *   made with g_object_new()
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_graphics_resource_get_context (GCudaGraphicsResource *self)
{
  g_return_val_if_fail (GCUDA_IS_GRAPHICS_RESOURCE (self), NULL);
  return self->context;
}

/**
 * gcuda_graphics_resource_get_kind: (get-property kind)
 * @self: a [class@GCuda.GraphicsResource]
 *
 * Whether an OpenGL buffer object or image was registered.
 *
 * Returns: the kind of resource
 *
 * Since: 1.0
 */
GCudaGraphicsResourceKind
gcuda_graphics_resource_get_kind (GCudaGraphicsResource *self)
{
  g_return_val_if_fail (GCUDA_IS_GRAPHICS_RESOURCE (self), GCUDA_GRAPHICS_RESOURCE_KIND_BUFFER);
  return self->kind;
}

/**
 * gcuda_graphics_resource_get_gl_name: (get-property gl-name)
 * @self: a [class@GCuda.GraphicsResource]
 *
 * The OpenGL name that was registered (PyCUDA's `gl_handle()`).
 *
 * Returns: the GL name
 *
 * Since: 1.0
 */
guint
gcuda_graphics_resource_get_gl_name (GCudaGraphicsResource *self)
{
  g_return_val_if_fail (GCUDA_IS_GRAPHICS_RESOURCE (self), 0);
  return self->gl_name;
}

/**
 * gcuda_graphics_resource_get_gl_target: (get-property gl-target)
 * @self: a [class@GCuda.GraphicsResource]
 *
 * The OpenGL target of an image; 0 for a buffer object.
 *
 * Returns: the GL target
 *
 * Since: 1.0
 */
guint
gcuda_graphics_resource_get_gl_target (GCudaGraphicsResource *self)
{
  g_return_val_if_fail (GCUDA_IS_GRAPHICS_RESOURCE (self), 0);
  return self->gl_target;
}

/**
 * gcuda_graphics_resource_get_flags: (get-property flags)
 * @self: a [class@GCuda.GraphicsResource]
 *
 * How CUDA uses the resource, as it was registered.
 *
 * Returns: the register flags
 *
 * Since: 1.0
 */
GCudaGraphicsRegisterFlags
gcuda_graphics_resource_get_flags (GCudaGraphicsResource *self)
{
  g_return_val_if_fail (GCUDA_IS_GRAPHICS_RESOURCE (self), GCUDA_GRAPHICS_REGISTER_FLAGS_NONE);
  return self->flags;
}

/**
 * gcuda_graphics_resource_is_mapped: (get-property mapped)
 * @self: a [class@GCuda.GraphicsResource]
 *
 * Whether the resource is mapped for CUDA now.
 *
 * Returns: %TRUE between [method@GCuda.GraphicsResource.map] and
 *   [method@GCuda.GraphicsResource.unmap]
 *
 * Since: 1.0
 */
gboolean
gcuda_graphics_resource_is_mapped (GCudaGraphicsResource *self)
{
  gboolean mapped;

  g_return_val_if_fail (GCUDA_IS_GRAPHICS_RESOURCE (self), FALSE);
  G_LOCK (graphics);
  mapped = self->mapped;
  G_UNLOCK (graphics);
  return mapped;
}

/**
 * gcuda_graphics_resource_is_registered: (get-property registered)
 * @self: a [class@GCuda.GraphicsResource]
 *
 * Whether the resource is registered: made by a constructor and not
 * unregistered yet.
 *
 * Returns: %TRUE until [method@GCuda.GraphicsResource.unregister]
 *
 * Since: 1.0
 */
gboolean
gcuda_graphics_resource_is_registered (GCudaGraphicsResource *self)
{
  gboolean registered;

  g_return_val_if_fail (GCUDA_IS_GRAPHICS_RESOURCE (self), FALSE);
  G_LOCK (graphics);
  registered = self->handle != NULL && !self->unregistered;
  G_UNLOCK (graphics);
  return registered;
}

/* ------------------------------------------------------------ mapping */

/* With graphics_lock held: @resources are registered resources of one
 * context, each once, all mapped (@want_mapped) or all unmapped, and
 * @stream NULL or of their context. Returns the context (not a new
 * reference). */
static GCudaContext *
check_set (GCudaGraphicsResource **resources,
           guint                   n_resources,
           GCudaStream            *stream,
           gboolean                want_mapped,
           GError                **error)
{
  GCudaContext *context;

  if (resources == NULL || n_resources == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("No graphics resources given"));
      return NULL;
    }
  for (guint i = 0; i < n_resources; i++)
    if (!resource_check (resources[i], error))
      return NULL;
  context = resources[0]->context;
  for (guint i = 0; i < n_resources; i++)
    {
      GCudaGraphicsResource *r = resources[i];

      if (r->context != context)
        {
          g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                               _("Graphics resources of different CUDA contexts are mapped and unmapped apart"));
          return NULL;
        }
      for (guint j = 0; j < i; j++)
        if (resources[j] == r)
          {
            g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                         _("The graphics resource of OpenGL object %u is given twice"), r->gl_name);
            return NULL;
          }
      if (r->mapped != want_mapped)
        {
          if (want_mapped)
            g_set_error (error, GCUDA_DRIVER_ERROR, CUDA_ERROR_NOT_MAPPED,
                         _("The graphics resource of OpenGL object %u is not mapped: there is nothing to unmap"),
                         r->gl_name);
          else
            g_set_error (error, GCUDA_DRIVER_ERROR, CUDA_ERROR_ALREADY_MAPPED,
                         _("The graphics resource of OpenGL object %u is mapped already: unmap it first"),
                         r->gl_name);
          return NULL;
        }
    }
  if (!_gcuda_stream_check_arg (stream, error))
    return NULL;
  if (stream != NULL && gcuda_stream_get_context (stream) != context)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                           _("The stream and the graphics resources belong to different contexts"));
      return NULL;
    }
  return context;
}

static gboolean
map_or_unmap (GCudaGraphicsResource **resources,
              guint                   n_resources,
              GCudaStream            *stream,
              gboolean                map,
              GError                **error)
{
  g_autofree CUgraphicsResource *handles = NULL;
  GCudaContext *context;
  GError *local = NULL;
  gboolean ok;

  G_LOCK (graphics);
  context = check_set (resources, n_resources, stream, !map, error);
  if (context == NULL)
    {
      G_UNLOCK (graphics);
      return FALSE;
    }
  handles = g_new (CUgraphicsResource, n_resources);
  for (guint i = 0; i < n_resources; i++)
    handles[i] = resources[i]->handle;
  if (map)
    ok = GCUDA_CONTEXT_CALL (context,
                             GCUDA_DRV->fn_cuGraphicsMapResources (n_resources, handles,
                                                                   _gcuda_stream_get_handle (stream)),
                             "cuGraphicsMapResources", &local);
  else
    ok = GCUDA_CONTEXT_CALL (context,
                             GCUDA_DRV->fn_cuGraphicsUnmapResources (n_resources, handles,
                                                                     _gcuda_stream_get_handle (stream)),
                             "cuGraphicsUnmapResources", &local);
  if (ok)
    for (guint i = 0; i < n_resources; i++)
      {
        resources[i]->mapped = map;
        if (!map)
          retire_views (resources[i]);
      }
  G_UNLOCK (graphics);

  if (!ok)
    explain (local,
             g_error_matches (local, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_GRAPHICS_CONTEXT)
             ? no_gl_context_hint () : NULL,
             error);
  return ok;
}

/**
 * gcuda_graphics_resource_map:
 * @self: a [class@GCuda.GraphicsResource]
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Maps the resource for CUDA (PyCUDA's `RegisteredObject.map()`,
 * `cuGraphicsMapResources`): OpenGL work issued before is done before work
 * queued on @stream after this call starts. Until
 * [method@GCuda.GraphicsResource.unmap], OpenGL must not use the object;
 * [method@GCuda.GraphicsResource.get_mapped_buffer] and
 * [method@GCuda.GraphicsResource.get_mapped_array] give its memory. Work on
 * other streams must wait for @stream (an event) before it uses that
 * memory.
 *
 * Mapping a mapped resource is
 * [GCUDA_DRIVER_ERROR_ALREADY_MAPPED][error@GCuda.DriverError].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_graphics_resource_map (GCudaGraphicsResource  *self,
                             GCudaStream            *stream,
                             GError                **error)
{
  return map_or_unmap (&self, 1, stream, TRUE, error);
}

/**
 * gcuda_graphics_resource_unmap:
 * @self: a [class@GCuda.GraphicsResource]
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Gives the resource back to OpenGL (PyCUDA's `RegisteredMapping.unmap()`,
 * `cuGraphicsUnmapResources`): CUDA work queued on @stream before this call
 * is done before OpenGL work issued after it starts. Work on other streams
 * that used the memory must be ordered before @stream (an event) first.
 * The buffer and arrays the mapping gave are unusable from now on
 * ([GCUDA_ERROR_FREED][error@GCuda.Error]).
 *
 * Unmapping a resource that is not mapped is
 * [GCUDA_DRIVER_ERROR_NOT_MAPPED][error@GCuda.DriverError].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_graphics_resource_unmap (GCudaGraphicsResource  *self,
                               GCudaStream            *stream,
                               GError                **error)
{
  return map_or_unmap (&self, 1, stream, FALSE, error);
}

/**
 * gcuda_graphics_resource_map_all:
 * @resources: (array length=n_resources): resources of one CUDA context
 * @n_resources: the number of resources, at least 1
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Maps several resources in one driver call, which is cheaper than one
 * [method@GCuda.GraphicsResource.map] each. All or none are mapped: one
 * that is mapped already
 * ([GCUDA_DRIVER_ERROR_ALREADY_MAPPED][error@GCuda.DriverError]), given
 * twice ([GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]) or of another
 * context ([GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error]) fails the call
 * before the driver is asked.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_graphics_resource_map_all (GCudaGraphicsResource **resources,
                                 guint                   n_resources,
                                 GCudaStream            *stream,
                                 GError                **error)
{
  return map_or_unmap (resources, n_resources, stream, TRUE, error);
}

/**
 * gcuda_graphics_resource_unmap_all:
 * @resources: (array length=n_resources): mapped resources of one CUDA
 *   context
 * @n_resources: the number of resources, at least 1
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Unmaps several resources in one driver call; all must be mapped
 * ([GCUDA_DRIVER_ERROR_NOT_MAPPED][error@GCuda.DriverError] otherwise,
 * before the driver is asked). See [method@GCuda.GraphicsResource.unmap].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_graphics_resource_unmap_all (GCudaGraphicsResource **resources,
                                   guint                   n_resources,
                                   GCudaStream            *stream,
                                   GError                **error)
{
  return map_or_unmap (resources, n_resources, stream, FALSE, error);
}

/* With graphics_lock held: registered and mapped. */
static gboolean
check_mapped (GCudaGraphicsResource  *self,
              GError                **error)
{
  if (!resource_check (self, error))
    return FALSE;
  if (!self->mapped)
    {
      g_set_error (error, GCUDA_DRIVER_ERROR, CUDA_ERROR_NOT_MAPPED,
                   _("The graphics resource of OpenGL object %u is not mapped: call "
                     "GraphicsResource.map() first"), self->gl_name);
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_graphics_resource_get_mapped_buffer:
 * @self: a mapped [class@GCuda.GraphicsResource] of a GL buffer object
 * @error: return location for a [struct@GLib.Error]
 *
 * The mapped buffer object's memory (PyCUDA's
 * `RegisteredMapping.device_ptr_and_size()`,
 * `cuGraphicsResourceGetMappedPointer`), as a borrowed [class@GCuda.Buffer]
 * of kind [GCUDA_BUFFER_KIND_GRAPHICS][enum@GCuda.BufferKind]; the same
 * object for every call during one mapping. It is never freed by GCuda, and
 * unusable after the unmap ([GCUDA_ERROR_FREED][error@GCuda.Error]).
 *
 * An unmapped resource is
 * [GCUDA_DRIVER_ERROR_NOT_MAPPED][error@GCuda.DriverError], an image
 * [GCUDA_DRIVER_ERROR_NOT_MAPPED_AS_POINTER][error@GCuda.DriverError].
 *
 * Returns: (transfer full): the mapped memory, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_graphics_resource_get_mapped_buffer (GCudaGraphicsResource  *self,
                                           GError                **error)
{
  CUdeviceptr ptr = 0;
  size_t size = 0;
  GCudaBuffer *buffer = NULL;

  G_LOCK (graphics);
  if (!check_mapped (self, error))
    goto out;
  if (self->kind != GCUDA_GRAPHICS_RESOURCE_KIND_BUFFER)
    {
      g_set_error (error, GCUDA_DRIVER_ERROR, CUDA_ERROR_NOT_MAPPED_AS_POINTER,
                   _("OpenGL object %u is an image, mapped as arrays: use "
                     "GraphicsResource.get_mapped_array()"), self->gl_name);
      goto out;
    }
  if (self->mapped_buffer == NULL)
    {
      if (!GCUDA_CONTEXT_CALL (self->context,
                               GCUDA_DRV->fn_cuGraphicsResourceGetMappedPointer (&ptr, &size, self->handle),
                               "cuGraphicsResourceGetMappedPointer", error))
        goto out;
      if (ptr == 0 || size == 0)
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                       _("OpenGL buffer %u has no storage (glBufferData() gives it some)"), self->gl_name);
          goto out;
        }
      self->mapped_buffer = _gcuda_buffer_new_graphics (self->context, ptr, size);
    }
  buffer = g_object_ref (self->mapped_buffer);
out:
  G_UNLOCK (graphics);
  return buffer;
}

/**
 * gcuda_graphics_resource_get_mapped_array:
 * @self: a mapped [class@GCuda.GraphicsResource] of a GL texture or
 *   renderbuffer
 * @array_index: the layer of an array texture, or the face of a cube map
 *   (`GL_TEXTURE_CUBE_MAP_POSITIVE_X` + @array_index); 0 otherwise
 * @mip_level: the mip level; 0 for the full-size image (and renderbuffers)
 * @error: return location for a [struct@GLib.Error]
 *
 * One layer and mip level of the mapped image (PyCUDA's
 * `RegisteredMapping.array(index, level)`,
 * `cuGraphicsSubResourceGetMappedArray`), as a borrowed
 * [class@GCuda.Array] whose descriptor the driver gives; the same object for
 * every call with these numbers during one mapping. It works with copies,
 * [class@GCuda.Texture] and, when the image was registered with
 * [GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE][flags@GCuda.GraphicsRegisterFlags],
 * [class@GCuda.Surface]. It is never freed by GCuda, and unusable after the
 * unmap ([GCUDA_ERROR_FREED][error@GCuda.Error]).
 *
 * An unmapped resource is
 * [GCUDA_DRIVER_ERROR_NOT_MAPPED][error@GCuda.DriverError], a buffer object
 * [GCUDA_DRIVER_ERROR_NOT_MAPPED_AS_ARRAY][error@GCuda.DriverError]; a layer
 * or level the image does not have is the driver's
 * [GCUDA_DRIVER_ERROR_INVALID_VALUE][error@GCuda.DriverError].
 *
 * Returns: (transfer full): the mapped array, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaArray *
gcuda_graphics_resource_get_mapped_array (GCudaGraphicsResource  *self,
                                          guint                   array_index,
                                          guint                   mip_level,
                                          GError                **error)
{
  const guint known = GCUDA_ARRAY_FLAGS_LAYERED | GCUDA_ARRAY_FLAGS_SURFACE_LDST |
                      GCUDA_ARRAY_FLAGS_CUBEMAP | GCUDA_ARRAY_FLAGS_TEXTURE_GATHER;
  CUDA_ARRAY3D_DESCRIPTOR d = { 0 };
  GCudaArrayDescriptor desc = { 0 };
  CUarray handle = NULL;
  GCudaArray *array = NULL;
  GError *local = NULL;
  MappedArray m;

  G_LOCK (graphics);
  if (!check_mapped (self, error))
    goto out;
  if (self->kind != GCUDA_GRAPHICS_RESOURCE_KIND_IMAGE)
    {
      g_set_error (error, GCUDA_DRIVER_ERROR, CUDA_ERROR_NOT_MAPPED_AS_ARRAY,
                   _("OpenGL object %u is a buffer object, mapped as a buffer: use "
                     "GraphicsResource.get_mapped_buffer()"), self->gl_name);
      goto out;
    }
  for (guint i = 0; i < self->mapped_arrays->len; i++)
    {
      MappedArray *known_array = &g_array_index (self->mapped_arrays, MappedArray, i);

      if (known_array->index == array_index && known_array->level == mip_level)
        {
          array = g_object_ref (known_array->array);
          goto out;
        }
    }
  if (!GCUDA_CONTEXT_CALL (self->context,
                           GCUDA_DRV->fn_cuGraphicsSubResourceGetMappedArray (&handle, self->handle, array_index,
                                                                              mip_level),
                           "cuGraphicsSubResourceGetMappedArray", &local))
    {
      g_autofree char *hint = NULL;

      if (g_error_matches (local, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_VALUE))
        hint = g_strdup_printf (_("OpenGL image %u has no layer %u or no mip level %u"), self->gl_name,
                                array_index, mip_level);
      explain (local, hint, error);
      goto out;
    }
  if (!GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuArray3DGetDescriptor (&d, handle),
                           "cuArray3DGetDescriptor", error))
    goto out;

  desc.width = d.Width;
  desc.height = d.Height;
  desc.depth = d.Depth;
  desc.format = (GCudaArrayFormat) d.Format;
  desc.num_channels = d.NumChannels;
  /* what the registration allows, whether or not the driver reports it */
  desc.flags = (GCudaArrayFlags) (d.Flags & known);
  if (self->flags & GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE)
    desc.flags |= GCUDA_ARRAY_FLAGS_SURFACE_LDST;
  if (self->flags & GCUDA_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER)
    desc.flags |= GCUDA_ARRAY_FLAGS_TEXTURE_GATHER;
  if (!_gcuda_array_format_check (desc.format, desc.num_channels, NULL))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED,
                   _("OpenGL image %u maps to a CUDA array of format 0x%x with %u channels, which GCuda.Array "
                     "does not know"), self->gl_name, (guint) d.Format, d.NumChannels);
      goto out;
    }

  m.index = array_index;
  m.level = mip_level;
  m.array = _gcuda_array_new_graphics (self->context, handle, &desc);
  g_array_append_val (self->mapped_arrays, m);
  array = g_object_ref (m.array);
out:
  G_UNLOCK (graphics);
  return array;
}

/**
 * gcuda_graphics_resource_unregister:
 * @self: a [class@GCuda.GraphicsResource]
 * @error: return location for a [struct@GLib.Error]
 *
 * Unregisters the resource now instead of when the last reference goes
 * (PyCUDA's `unregister()`, `cuGraphicsUnregisterResource`), unmapping it
 * first on the legacy default stream when it is mapped. Do it while the GL
 * object exists and its GL context is current. Every later call is
 * [GCUDA_ERROR_FREED][error@GCuda.Error], unregistering again included.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_graphics_resource_unregister (GCudaGraphicsResource  *self,
                                    GError                **error)
{
  gboolean ok = FALSE;

  G_LOCK (graphics);
  if (!resource_check (self, error))
    goto out;
  if (self->mapped)
    {
      if (!GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuGraphicsUnmapResources (1, &self->handle, NULL),
                               "cuGraphicsUnmapResources", error))
        goto out;
      self->mapped = FALSE;
      retire_views (self);
    }
  if (!GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuGraphicsUnregisterResource (self->handle),
                           "cuGraphicsUnregisterResource", error))
    goto out;
  self->unregistered = TRUE;
  ok = TRUE;
out:
  G_UNLOCK (graphics);
  return ok;
}

/* ------------------------------------------------------------ devices */

/**
 * gcuda_graphics_get_gl_devices:
 * @which: which devices of the current OpenGL context to list
 * @error: return location for a [struct@GLib.Error]
 *
 * The CUDA devices the OpenGL context current on this thread renders on
 * (`cuGLGetDevices`): an app can tell from it whether zero-copy display is
 * possible, which it is when the device it computes on is among them. The
 * list is empty when the GL context runs on a GPU without CUDA.
 *
 * No current GL context, or one of another driver than NVIDIA's (Mesa's,
 * as on a laptop whose other GPU draws the desktop), is
 * [GCUDA_DRIVER_ERROR_INVALID_GRAPHICS_CONTEXT][error@GCuda.DriverError]:
 * no zero-copy either. A @which that is no [enum@GCuda.GLDeviceList] is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: (transfer container) (element-type GCudaDevice): the devices
 *   (possibly none), or %NULL with @error set
 *
 * Since: 1.0
 */
GPtrArray *
gcuda_graphics_get_gl_devices (GCudaGLDeviceList   which,
                               GError            **error)
{
  CUdevice found[64];
  unsigned int count = 0;
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GPtrArray) list = NULL;
  GError *local = NULL;
  CUresult res;

  if (which != GCUDA_GL_DEVICE_LIST_ALL && which != GCUDA_GL_DEVICE_LIST_CURRENT_FRAME &&
      which != GCUDA_GL_DEVICE_LIST_NEXT_FRAME)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%d is not a GCuda.GLDeviceList"), (int) which);
      return NULL;
    }
  if (_gcuda_driver_get (error) == NULL)
    return NULL;

  res = GCUDA_DRV->fn_cuGLGetDevices (&count, found, G_N_ELEMENTS (found), (CUGLDeviceList) which);
  if (res == CUDA_ERROR_INVALID_CONTEXT)
    {
      /* a driver that wants a CUDA context current for it */
      g_autoptr(GCudaContext) ctx = _gcuda_context_resolve (NULL, error);
      g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

      if (ctx == NULL || !_gcuda_context_enter (ctx, &scope, error))
        return NULL;
      count = 0;
      res = GCUDA_DRV->fn_cuGLGetDevices (&count, found, G_N_ELEMENTS (found), (CUGLDeviceList) which);
    }
  list = g_ptr_array_new_with_free_func (g_object_unref);
  if (res == CUDA_ERROR_NO_DEVICE)
    return g_steal_pointer (&list);  /* GL runs on a GPU without CUDA */
  if (!GCUDA_CHECK (res, "cuGLGetDevices", &local))
    {
      explain (local,
               g_error_matches (local, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_GRAPHICS_CONTEXT)
               ? no_gl_context_hint () : NULL,
               error);
      return NULL;
    }
  if ((all = gcuda_device_list (error)) == NULL)
    return NULL;
  for (unsigned int i = 0; i < MIN (count, G_N_ELEMENTS (found)); i++)
    for (guint j = 0; j < all->len; j++)
      if (_gcuda_device_get_handle (all->pdata[j]) == found[i])
        {
          g_ptr_array_add (list, g_object_ref (all->pdata[j]));
          break;
        }
  return g_steal_pointer (&list);
}
