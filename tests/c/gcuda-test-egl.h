/* gcuda-test-egl.h: headless OpenGL on the NVIDIA GPU through EGL, for the
 * graphics interop tests and benchmark
 *
 * libEGL.so.1 is opened at run time (no link dependency, no EGL or GL
 * headers: the few values used are written down here from the Khronos
 * registry), and every GL entry point comes from eglGetProcAddress(). The
 * display is the EGL device (EGL_EXT_device_enumeration,
 * EGL_EXT_platform_device) whose EGL_CUDA_DEVICE_NV (EGL_NV_device_cuda) is
 * the CUDA device asked for; the GL context is surfaceless
 * (EGL_KHR_surfaceless_context), so no display server is needed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* OpenGL values (the GL registry's) */
#define TEST_GL_NO_ERROR 0
#define TEST_GL_UNSIGNED_BYTE 0x1401
#define TEST_GL_FLOAT 0x1406
#define TEST_GL_RED 0x1903
#define TEST_GL_RGBA 0x1908
#define TEST_GL_VERSION 0x1F02
#define TEST_GL_RENDERER 0x1F01
#define TEST_GL_PACK_ALIGNMENT 0x0D05
#define TEST_GL_UNPACK_ALIGNMENT 0x0CF5
#define TEST_GL_TEXTURE_2D 0x0DE1
#define TEST_GL_TEXTURE_3D 0x806F
#define TEST_GL_TEXTURE_MAG_FILTER 0x2800
#define TEST_GL_TEXTURE_MIN_FILTER 0x2801
#define TEST_GL_NEAREST 0x2600
#define TEST_GL_RGBA8 0x8058
#define TEST_GL_R32F 0x822E
#define TEST_GL_ARRAY_BUFFER 0x8892
#define TEST_GL_DYNAMIC_DRAW 0x88E8
#define TEST_GL_PIXEL_UNPACK_BUFFER 0x88EC

/* The GL entry points the tests use, from eglGetProcAddress(). */
typedef struct {
  unsigned int  (*GetError) (void);
  const char   *(*GetString) (unsigned int name);
  void          (*Finish) (void);
  void          (*PixelStorei) (unsigned int pname, int param);
  void          (*GenBuffers) (int n, unsigned int *buffers);
  void          (*DeleteBuffers) (int n, const unsigned int *buffers);
  void          (*BindBuffer) (unsigned int target, unsigned int buffer);
  void          (*BufferData) (unsigned int target, gssize size, const void *data, unsigned int usage);
  void          (*GetBufferSubData) (unsigned int target, gssize offset, gssize size, void *data);
  void          (*GenTextures) (int n, unsigned int *textures);
  void          (*DeleteTextures) (int n, const unsigned int *textures);
  void          (*BindTexture) (unsigned int target, unsigned int texture);
  void          (*TexParameteri) (unsigned int target, unsigned int pname, int param);
  void          (*TexStorage2D) (unsigned int target, int levels, unsigned int internalformat, int width,
                                 int height);
  void          (*TexSubImage2D) (unsigned int target, int level, int xoffset, int yoffset, int width,
                                  int height, unsigned int format, unsigned int type, const void *pixels);
  void          (*GetTexImage) (unsigned int target, int level, unsigned int format, unsigned int type,
                                void *pixels);
} TestGL;

/* Makes a surfaceless OpenGL context on the EGL device of CUDA device
 * @cuda_ordinal current on the calling thread (once per process: later
 * calls make the same context current again). Returns the GL entry points,
 * or NULL with @reason set (libEGL missing, no EGL device of that CUDA
 * device, an extension or call that failed: the step that failed and why). */
const TestGL *test_egl_make_current (int     cuda_ordinal,
                                     char  **reason);

/* Releases the calling thread's current GL context (for the "no current
 * context" cases); test_egl_make_current() makes it current again. */
void          test_egl_release_current (void);

/* The GL version and renderer strings, for the test log. */
char         *test_egl_describe (void);

G_END_DECLS
