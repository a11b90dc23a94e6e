/* gcuda-test-egl.c: headless OpenGL on the NVIDIA GPU through EGL (see the
 * header)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "gcuda-test-egl.h"

/* EGL's types and values (the Khronos EGL registry's) */
typedef void *EGLDisplay;
typedef void *EGLDeviceEXT;
typedef void *EGLConfig;
typedef void *EGLContext;
typedef void *EGLSurface;
typedef int32_t EGLint;
typedef unsigned int EGLBoolean;
typedef unsigned int EGLenum;
typedef intptr_t EGLAttrib;

#define EGL_FALSE 0
#define EGL_SUCCESS 0x3000
#define EGL_SURFACE_TYPE 0x3033
#define EGL_NONE 0x3038
#define EGL_RENDERABLE_TYPE 0x3040
#define EGL_EXTENSIONS 0x3055
#define EGL_OPENGL_API 0x30A2
#define EGL_PBUFFER_BIT 0x0001
#define EGL_OPENGL_BIT 0x0008
#define EGL_PLATFORM_DEVICE_EXT 0x313F  /* EGL_EXT_platform_device */
#define EGL_CUDA_DEVICE_NV 0x323A       /* EGL_NV_device_cuda */
#define EGL_NO_DISPLAY ((EGLDisplay) 0)
#define EGL_NO_CONTEXT ((EGLContext) 0)
#define EGL_NO_SURFACE ((EGLSurface) 0)

static struct {
  void *(*GetProcAddress) (const char *name);
  EGLint (*GetError) (void);
  const char *(*QueryString) (EGLDisplay dpy, EGLint name);
  EGLBoolean (*Initialize) (EGLDisplay dpy, EGLint *major, EGLint *minor);
  EGLBoolean (*BindAPI) (EGLenum api);
  EGLBoolean (*ChooseConfig) (EGLDisplay dpy, const EGLint *attribs, EGLConfig *configs, EGLint size,
                              EGLint *n);
  EGLContext (*CreateContext) (EGLDisplay dpy, EGLConfig config, EGLContext share, const EGLint *attribs);
  EGLBoolean (*MakeCurrent) (EGLDisplay dpy, EGLSurface draw, EGLSurface read, EGLContext ctx);
  /* extensions */
  EGLBoolean (*QueryDevicesEXT) (EGLint max, EGLDeviceEXT *devices, EGLint *n);
  EGLBoolean (*QueryDeviceAttribEXT) (EGLDeviceEXT device, EGLint attribute, EGLAttrib *value);
  EGLDisplay (*GetPlatformDisplayEXT) (EGLenum platform, void *native, const EGLint *attribs);
} egl;

static TestGL gl;
static EGLDisplay display = EGL_NO_DISPLAY;
static EGLContext context = EGL_NO_CONTEXT;
static int context_ordinal = -1;
static char *setup_failure;  /* why the set-up failed, once it did */

static gboolean
has_extension (const char *list,
               const char *name)
{
  gsize len = strlen (name);

  for (const char *p = list; p != NULL && (p = strstr (p, name)) != NULL; p += len)
    if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
      return TRUE;
  return FALSE;
}

/* A GL entry point: eglGetProcAddress() (every one with EGL 1.5 or
 * EGL_KHR_get_all_proc_addresses), else libOpenGL.so.0's. */
static void *
gl_proc (const char *name)
{
  static void *libopengl;
  void *fn = egl.GetProcAddress (name);

  if (fn == NULL)
    {
      if (libopengl == NULL)
        libopengl = dlopen ("libOpenGL.so.0", RTLD_NOW | RTLD_LOCAL);
      if (libopengl != NULL)
        fn = dlsym (libopengl, name);
    }
  return fn;
}

static gboolean
load_gl (char **reason)
{
#define GL_PROC(field, name) \
  if ((gl.field = (__typeof__ (gl.field)) gl_proc (name)) == NULL) \
    { \
      *reason = g_strdup ("OpenGL has no " name " (eglGetProcAddress, libOpenGL.so.0)"); \
      return FALSE; \
    }
  GL_PROC (GetError, "glGetError");
  GL_PROC (GetString, "glGetString");
  GL_PROC (Finish, "glFinish");
  GL_PROC (PixelStorei, "glPixelStorei");
  GL_PROC (GenBuffers, "glGenBuffers");
  GL_PROC (DeleteBuffers, "glDeleteBuffers");
  GL_PROC (BindBuffer, "glBindBuffer");
  GL_PROC (BufferData, "glBufferData");
  GL_PROC (GetBufferSubData, "glGetBufferSubData");
  GL_PROC (GenTextures, "glGenTextures");
  GL_PROC (DeleteTextures, "glDeleteTextures");
  GL_PROC (BindTexture, "glBindTexture");
  GL_PROC (TexParameteri, "glTexParameteri");
  GL_PROC (TexStorage2D, "glTexStorage2D");
  GL_PROC (TexSubImage2D, "glTexSubImage2D");
  GL_PROC (GetTexImage, "glGetTexImage");
#undef GL_PROC
  return TRUE;
}

static gboolean
set_up (int    cuda_ordinal,
        char **reason)
{
  void *lib = dlopen ("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
  const char *client_extensions;
  EGLDeviceEXT devices[32];
  EGLDeviceEXT device = NULL;
  EGLint n_devices = 0, major = 0, minor = 0, n_configs = 0;
  EGLConfig config = NULL;
  const EGLint pbuffer_config[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                    EGL_NONE };
  const EGLint any_config[] = { EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE };
  const EGLint no_attribs[] = { EGL_NONE };
  g_autoptr(GString) seen = g_string_new (NULL);

  if (lib == NULL)
    {
      *reason = g_strdup_printf ("libEGL.so.1 cannot be loaded (%s): install libegl1 (glvnd) and the NVIDIA "
                                 "driver's EGL", dlerror ());
      return FALSE;
    }
#define EGL_CORE(field, name) \
  if ((egl.field = (__typeof__ (egl.field)) dlsym (lib, name)) == NULL) \
    { \
      *reason = g_strdup ("libEGL.so.1 has no " name); \
      return FALSE; \
    }
  EGL_CORE (GetProcAddress, "eglGetProcAddress");
  EGL_CORE (GetError, "eglGetError");
  EGL_CORE (QueryString, "eglQueryString");
  EGL_CORE (Initialize, "eglInitialize");
  EGL_CORE (BindAPI, "eglBindAPI");
  EGL_CORE (ChooseConfig, "eglChooseConfig");
  EGL_CORE (CreateContext, "eglCreateContext");
  EGL_CORE (MakeCurrent, "eglMakeCurrent");
#undef EGL_CORE

  client_extensions = egl.QueryString (EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (client_extensions == NULL ||
      !(has_extension (client_extensions, "EGL_EXT_device_enumeration") ||
        has_extension (client_extensions, "EGL_EXT_device_base")) ||
      !has_extension (client_extensions, "EGL_EXT_platform_device"))
    {
      *reason = g_strdup_printf ("EGL lacks device enumeration or the device platform (client extensions: %s): "
                                 "is the NVIDIA driver's EGL vendor library installed?",
                                 client_extensions ? client_extensions : "none");
      return FALSE;
    }
#define EGL_EXT(field, name) \
  if ((egl.field = (__typeof__ (egl.field)) egl.GetProcAddress (name)) == NULL) \
    { \
      *reason = g_strdup ("EGL has no " name); \
      return FALSE; \
    }
  EGL_EXT (QueryDevicesEXT, "eglQueryDevicesEXT");
  EGL_EXT (QueryDeviceAttribEXT, "eglQueryDeviceAttribEXT");
  EGL_EXT (GetPlatformDisplayEXT, "eglGetPlatformDisplayEXT");
#undef EGL_EXT

  if (!egl.QueryDevicesEXT (G_N_ELEMENTS (devices), devices, &n_devices) || n_devices <= 0)
    {
      *reason = g_strdup_printf ("eglQueryDevicesEXT found no EGL device (EGL error 0x%x)",
                                 (unsigned int) egl.GetError ());
      return FALSE;
    }
  for (EGLint i = 0; i < n_devices && device == NULL; i++)
    {
      EGLAttrib ordinal = -1;

      /* EGL_FALSE for a device that is not CUDA's (software, another GPU) */
      if (egl.QueryDeviceAttribEXT (devices[i], EGL_CUDA_DEVICE_NV, &ordinal))
        {
          g_string_append_printf (seen, " %d", (int) ordinal);
          if (ordinal == cuda_ordinal)
            device = devices[i];
        }
      else
        (void) egl.GetError ();
    }
  if (device == NULL)
    {
      *reason = g_strdup_printf ("none of the %d EGL devices is CUDA device %d (EGL_CUDA_DEVICE_NV of the "
                                 "others:%s)", (int) n_devices, cuda_ordinal, seen->len ? seen->str : " none");
      return FALSE;
    }

  display = egl.GetPlatformDisplayEXT (EGL_PLATFORM_DEVICE_EXT, device, no_attribs);
  if (display == EGL_NO_DISPLAY || !egl.Initialize (display, &major, &minor))
    {
      *reason = g_strdup_printf ("the EGL device of CUDA device %d gives no display (EGL error 0x%x)",
                                 cuda_ordinal, (unsigned int) egl.GetError ());
      return FALSE;
    }
  if (!has_extension (egl.QueryString (display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context"))
    {
      *reason = g_strdup ("the EGL display has no EGL_KHR_surfaceless_context");
      return FALSE;
    }
  if (!egl.BindAPI (EGL_OPENGL_API))
    {
      *reason = g_strdup_printf ("eglBindAPI (EGL_OPENGL_API) failed (EGL error 0x%x)",
                                 (unsigned int) egl.GetError ());
      return FALSE;
    }
  if ((!egl.ChooseConfig (display, pbuffer_config, &config, 1, &n_configs) || n_configs < 1) &&
      (!egl.ChooseConfig (display, any_config, &config, 1, &n_configs) || n_configs < 1))
    {
      *reason = g_strdup_printf ("no EGL config renders OpenGL (EGL error 0x%x)", (unsigned int) egl.GetError ());
      return FALSE;
    }
  context = egl.CreateContext (display, config, EGL_NO_CONTEXT, no_attribs);
  if (context == EGL_NO_CONTEXT)
    {
      *reason = g_strdup_printf ("eglCreateContext failed (EGL error 0x%x)", (unsigned int) egl.GetError ());
      return FALSE;
    }
  if (!egl.MakeCurrent (display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
    {
      *reason = g_strdup_printf ("eglMakeCurrent of a surfaceless context failed (EGL error 0x%x)",
                                 (unsigned int) egl.GetError ());
      return FALSE;
    }
  if (!load_gl (reason))
    return FALSE;
  context_ordinal = cuda_ordinal;
  return TRUE;
}

const TestGL *
test_egl_make_current (int    cuda_ordinal,
                       char **reason)
{
  static gsize once;

  if (g_once_init_enter (&once))
    {
      char *why = NULL;

      if (!set_up (cuda_ordinal, &why))
        setup_failure = why;
      g_once_init_leave (&once, 1);
    }
  if (setup_failure != NULL)
    {
      *reason = g_strdup (setup_failure);
      return NULL;
    }
  if (cuda_ordinal != context_ordinal)
    {
      *reason = g_strdup_printf ("the GL context was made for CUDA device %d, not %d", context_ordinal,
                                 cuda_ordinal);
      return NULL;
    }
  if (!egl.MakeCurrent (display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
    {
      *reason = g_strdup_printf ("eglMakeCurrent failed (EGL error 0x%x)", (unsigned int) egl.GetError ());
      return NULL;
    }
  return &gl;
}

void
test_egl_release_current (void)
{
  if (display != EGL_NO_DISPLAY)
    egl.MakeCurrent (display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

char *
test_egl_describe (void)
{
  if (gl.GetString == NULL)
    return g_strdup ("no GL");
  return g_strdup_printf ("OpenGL %s on %s", gl.GetString (TEST_GL_VERSION), gl.GetString (TEST_GL_RENDERER));
}
