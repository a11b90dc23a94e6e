/* test-gl-interop.c: GCudaGraphicsResource with real OpenGL objects, on a
 * surfaceless GL context of the NVIDIA GPU through headless EGL
 * (gcuda-test-egl.c): buffers and textures written by kernels through the
 * mapped pointer and through surfaces, read back by OpenGL and compared
 * with a host reference on fresh random data; several resources mapped at
 * once, streams ordered by events, and every bad input.
 *
 * Without libEGL or an EGL device of the CUDA device the GPU cases are
 * skipped with the reason (failed with GCUDA_TEST_REQUIRE_GPU=1). On the
 * GPU hosts, EGL needs the glvnd libraries carried along:
 * GPU_RUNTIME_EXTRA_PACKAGES="libegl1 libglvnd0 libopengl0" (see
 * shared/gpu/README.md). /gl/nogpu/sources compiles the kernels without a
 * GPU.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-test-egl.h"
#include "gcuda-test-kernels.h"
#include "gcuda-test-util.h"

static const char kernel_source[] =
  "__global__ void scale_add (float *p, int n, float a, float b)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    p[i] = p[i] * a + b;\n"
  "}\n"
  "\n"
  "__global__ void shade_rgba8 (cudaSurfaceObject_t s, int w, int h, unsigned int salt)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x < w && y < h)\n"
  "    {\n"
  "      uchar4 old;\n"
  "      surf2Dread (&old, s, x * 4, y);\n"
  "      uchar4 v = make_uchar4 ((old.x ^ salt) & 255, (x + 3 * y + salt) & 255, (old.z + x) & 255, 255 - old.w);\n"
  "      surf2Dwrite (v, s, x * 4, y);\n"
  "    }\n"
  "}\n"
  "\n"
  "__global__ void shade_r32f (cudaSurfaceObject_t s, int w, int h, float salt)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x < w && y < h)\n"
  "    {\n"
  "      float old;\n"
  "      surf2Dread (&old, s, x * 4, y);\n"
  "      surf2Dwrite (old * 0.5f + salt + x - 2 * y, s, x * 4, y);\n"
  "    }\n"
  "}\n";

static const TestKernelSource sources[] = {
  { "OpenGL interop kernels", kernel_source, FALSE, FALSE, { NULL } },
  { NULL },
};

static void
test_sources (void)
{
  test_kernel_sources_compile (sources);
}

/* ------------------------------------------------------------ helpers */

/* The GL context on the default context's device, current on this thread;
 * NULL (test skipped, or failed with GCUDA_TEST_REQUIRE_GPU=1) without. */
static const TestGL *
require_gl (void)
{
  static gboolean described;
  g_autoptr(GCudaContext) ctx = NULL;
  g_autofree char *reason = NULL;
  const TestGL *gl;
  GError *error = NULL;
  int ordinal;

  if (!gcuda_test_require_gpu ())
    return NULL;
  ctx = gcuda_context_get_default (&error);
  g_assert_no_error (error);
  ordinal = gcuda_device_get_ordinal (gcuda_context_get_device (ctx));
  gl = test_egl_make_current (ordinal, &reason);
  if (gl == NULL)
    {
      if (gcuda_test_gpu_required ())
        g_test_fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but no headless OpenGL on CUDA device %d: %s", ordinal,
                            reason);
      else
        g_test_skip_printf ("no headless OpenGL on CUDA device %d: %s", ordinal, reason);
      return NULL;
    }
  if (!described)
    {
      g_autofree char *what = test_egl_describe ();

      g_test_message ("%s", what);
      described = TRUE;
    }
  return gl;
}

#define assert_no_gl_error(gl) \
  G_STMT_START { \
    unsigned int e_ = (gl)->GetError (); \
    if (e_ != TEST_GL_NO_ERROR) \
      g_error ("%s:%d: OpenGL error 0x%x", __FILE__, __LINE__, e_); \
  } G_STMT_END

static unsigned int
make_gl_buffer (const TestGL *gl,
                const void   *data,
                gsize         size)
{
  unsigned int name = 0;

  gl->GenBuffers (1, &name);
  gl->BindBuffer (TEST_GL_ARRAY_BUFFER, name);
  gl->BufferData (TEST_GL_ARRAY_BUFFER, (gssize) size, data, TEST_GL_DYNAMIC_DRAW);
  gl->BindBuffer (TEST_GL_ARRAY_BUFFER, 0);
  assert_no_gl_error (gl);
  return name;
}

static void
read_gl_buffer (const TestGL *gl,
                unsigned int  name,
                void         *dest,
                gsize         size)
{
  gl->BindBuffer (TEST_GL_ARRAY_BUFFER, name);
  gl->GetBufferSubData (TEST_GL_ARRAY_BUFFER, 0, (gssize) size, dest);
  gl->BindBuffer (TEST_GL_ARRAY_BUFFER, 0);
  assert_no_gl_error (gl);
}

/* A texture of one level, filled with @pixels. */
static unsigned int
make_gl_texture (const TestGL *gl,
                 unsigned int  internal_format,
                 unsigned int  format,
                 unsigned int  type,
                 int           width,
                 int           height,
                 const void   *pixels)
{
  unsigned int name = 0;

  gl->GenTextures (1, &name);
  gl->BindTexture (TEST_GL_TEXTURE_2D, name);
  gl->TexStorage2D (TEST_GL_TEXTURE_2D, 1, internal_format, width, height);
  gl->TexParameteri (TEST_GL_TEXTURE_2D, TEST_GL_TEXTURE_MIN_FILTER, TEST_GL_NEAREST);
  gl->TexParameteri (TEST_GL_TEXTURE_2D, TEST_GL_TEXTURE_MAG_FILTER, TEST_GL_NEAREST);
  gl->PixelStorei (TEST_GL_UNPACK_ALIGNMENT, 1);
  gl->TexSubImage2D (TEST_GL_TEXTURE_2D, 0, 0, 0, width, height, format, type, pixels);
  gl->BindTexture (TEST_GL_TEXTURE_2D, 0);
  assert_no_gl_error (gl);
  return name;
}

static void
read_gl_texture (const TestGL *gl,
                 unsigned int  name,
                 unsigned int  format,
                 unsigned int  type,
                 void         *dest)
{
  gl->BindTexture (TEST_GL_TEXTURE_2D, name);
  gl->PixelStorei (TEST_GL_PACK_ALIGNMENT, 1);
  gl->GetTexImage (TEST_GL_TEXTURE_2D, 0, format, type, dest);
  gl->BindTexture (TEST_GL_TEXTURE_2D, 0);
  assert_no_gl_error (gl);
}

static GCudaFunction *
interop_kernel (GCudaModule **module,
                const char   *name)
{
  if (*module == NULL)
    *module = load_module (NULL, kernel_source, NULL);
  return get_kernel (*module, name);
}

static void
assert_driver_error_one_of (const GError *error,
                            const int    *codes,
                            const char   *message_part)
{
  gboolean known = FALSE;

  g_assert_nonnull (error);
  if (error->domain != GCUDA_DRIVER_ERROR)
    g_error ("expected a GCudaDriverError, got %s %d: %s", g_quark_to_string (error->domain), error->code,
             error->message);
  /* NULL: any driver error (what the driver answers is not documented) */
  known = codes == NULL;
  for (const int *c = codes; c != NULL && *c != 0; c++)
    known |= error->code == *c;
  if (!known)
    g_error ("unexpected driver error %d: %s", error->code, error->message);
  if (message_part != NULL && strstr (error->message, message_part) == NULL)
    g_error ("message \"%s\" does not say \"%s\"", error->message, message_part);
  g_test_message ("as expected: %s", error->message);
}

static const int bad_object_codes[] = { GCUDA_DRIVER_ERROR_INVALID_VALUE, GCUDA_DRIVER_ERROR_INVALID_HANDLE, 0 };

/* ------------------------------------------------------------ devices */

static void
test_gl_devices (void)
{
  g_autoptr(GCudaContext) ctx = NULL;
  g_autoptr(GPtrArray) devices = NULL;
  GError *error = NULL;
  gboolean found = FALSE;

  if (require_gl () == NULL)
    return;
  ctx = gcuda_context_get_default (&error);
  devices = gcuda_graphics_get_gl_devices (GCUDA_GL_DEVICE_LIST_ALL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < devices->len; i++)
    found |= gcuda_device_equal (devices->pdata[i], gcuda_context_get_device (ctx));
  g_assert_true (found);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ buffers */

static void
test_buffer_kernel (void)
{
  const int n = 100003;
  const float a = 1.5f, b = -0.25f;
  const TestGL *gl;
  g_autofree float *data = NULL;
  g_autofree float *want = g_new (float, n);
  g_autofree float *back = g_new (float, n);
  g_autoptr(GCudaGraphicsResource) res = NULL;
  g_autoptr(GCudaBuffer) mapped = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  g_autoptr(GBytes) seen = NULL;
  GError *error = NULL;
  unsigned int name;

  if ((gl = require_gl ()) == NULL)
    return;
  data = random_floats (n);
  name = make_gl_buffer (gl, data, n * sizeof (float));

  res = gcuda_graphics_resource_new_for_gl_buffer (NULL, name, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  g_assert_no_error (error);
  mapped = gcuda_graphics_resource_get_mapped_buffer (res, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_buffer_get_size (mapped), ==, n * sizeof (float));
  g_assert_cmpint (gcuda_buffer_get_kind (mapped), ==, GCUDA_BUFFER_KIND_GRAPHICS);

  /* what GL wrote, CUDA reads */
  seen = gcuda_buffer_download (mapped, 0, n * sizeof (float), &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (seen, NULL), g_bytes_get_size (seen), data, n * sizeof (float));

  gcuda_kernel_args_add_buffer (args, mapped);
  gcuda_kernel_args_add_int32 (args, n);
  gcuda_kernel_args_add_float (args, a);
  gcuda_kernel_args_add_float (args, b);
  launch_ok (interop_kernel (&module, "scale_add"), (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args);
  g_assert_true (gcuda_graphics_resource_unmap (res, NULL, &error));
  g_assert_no_error (error);

  /* what CUDA wrote, GL reads */
  for (int i = 0; i < n; i++)
    want[i] = data[i] * a + b;
  read_gl_buffer (gl, name, back, n * sizeof (float));
  assert_floats_close (back, want, n, 1e-6);

  /* the mapping's buffer is gone with it */
  g_assert_null (gcuda_buffer_download (mapped, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  g_clear_object (&res);
  gl->DeleteBuffers (1, &name);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ textures */

static void
test_texture_rgba8_surface (void)
{
  const int w = 97, h = 61;
  const gsize size = (gsize) w * h * 4;
  const guint salt = g_test_rand_int_range (0, 256);
  const TestGL *gl;
  g_autofree guint8 *data = g_malloc (size);
  g_autofree guint8 *want = g_malloc (size);
  g_autofree guint8 *back = g_malloc (size);
  g_autoptr(GCudaGraphicsResource) res = NULL;
  g_autoptr(GCudaArray) array = NULL;
  g_autoptr(GCudaArrayDescriptor) desc = NULL;
  g_autoptr(GCudaSurface) surf = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  g_autoptr(GBytes) seen = NULL;
  GError *error = NULL;
  unsigned int name;

  if ((gl = require_gl ()) == NULL)
    return;
  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) g_test_rand_int ();
  name = make_gl_texture (gl, TEST_GL_RGBA8, TEST_GL_RGBA, TEST_GL_UNSIGNED_BYTE, w, h, data);

  res = gcuda_graphics_resource_new_for_gl_image (NULL, name, TEST_GL_TEXTURE_2D,
                                                  GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  g_assert_no_error (error);
  array = gcuda_graphics_resource_get_mapped_array (res, 0, 0, &error);
  g_assert_no_error (error);
  desc = gcuda_array_get_descriptor (array);
  g_assert_cmpuint (desc->width, ==, w);
  g_assert_cmpuint (desc->height, ==, h);
  g_assert_cmpint (desc->format, ==, GCUDA_ARRAY_FORMAT_UNSIGNED_INT8);
  g_assert_cmpuint (desc->num_channels, ==, 4);

  /* what GL has, CUDA reads (an existing copy) */
  seen = gcuda_array_download (array, 0, size, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (seen, NULL), g_bytes_get_size (seen), data, size);

  surf = gcuda_surface_new (array, &error);
  g_assert_no_error (error);
  gcuda_kernel_args_add_uint64 (args, gcuda_surface_get_handle (surf));
  gcuda_kernel_args_add_int32 (args, w);
  gcuda_kernel_args_add_int32 (args, h);
  gcuda_kernel_args_add_uint32 (args, salt);
  launch_ok (interop_kernel (&module, "shade_rgba8"), (w + 15) / 16, (h + 15) / 16, 1, 16, 16, 1, 0, NULL, args);
  g_clear_object (&surf);  /* made anew for every mapping */
  g_assert_true (gcuda_graphics_resource_unmap (res, NULL, &error));
  g_assert_no_error (error);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        const guint8 *o = data + ((gsize) y * w + x) * 4;
        guint8 *v = want + ((gsize) y * w + x) * 4;

        v[0] = (guint8) ((o[0] ^ salt) & 255);
        v[1] = (guint8) ((x + 3 * y + salt) & 255);
        v[2] = (guint8) ((o[2] + x) & 255);
        v[3] = (guint8) (255 - o[3]);
      }
  read_gl_texture (gl, name, TEST_GL_RGBA, TEST_GL_UNSIGNED_BYTE, back);
  g_assert_cmpmem (back, size, want, size);

  g_assert_null (gcuda_array_download (array, 0, size, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  g_clear_object (&res);
  gl->DeleteTextures (1, &name);
  gcuda_test_assert_no_current_context ();
}

static void
test_texture_r32f_copy_and_surface (void)
{
  const int w = 129, h = 33;
  const gsize n = (gsize) w * h;
  const float salt = 0.375f;
  const TestGL *gl;
  g_autofree float *first = NULL;
  g_autofree float *data = NULL;
  g_autofree float *want = g_new (float, n);
  g_autofree float *back = g_new (float, n);
  g_autoptr(GCudaGraphicsResource) res = NULL;
  g_autoptr(GCudaArray) array = NULL;
  g_autoptr(GCudaArrayDescriptor) desc = NULL;
  g_autoptr(GCudaSurface) surf = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  GError *error = NULL;
  unsigned int name;

  if ((gl = require_gl ()) == NULL)
    return;
  first = random_floats (n);
  data = random_floats (n);
  name = make_gl_texture (gl, TEST_GL_R32F, TEST_GL_RED, TEST_GL_FLOAT, w, h, first);

  res = gcuda_graphics_resource_new_for_gl_image (NULL, name, TEST_GL_TEXTURE_2D,
                                                  GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  g_assert_no_error (error);
  array = gcuda_graphics_resource_get_mapped_array (res, 0, 0, &error);
  g_assert_no_error (error);
  desc = gcuda_array_get_descriptor (array);
  g_assert_cmpint (desc->format, ==, GCUDA_ARRAY_FORMAT_FLOAT);
  g_assert_cmpuint (desc->num_channels, ==, 1);

  /* an existing copy into the mapped array, then a kernel on it */
  g_assert_true (gcuda_array_upload (array, 0, (const guint8 *) data, n * sizeof (float), &error));
  g_assert_no_error (error);
  surf = gcuda_surface_new (array, &error);
  g_assert_no_error (error);
  gcuda_kernel_args_add_uint64 (args, gcuda_surface_get_handle (surf));
  gcuda_kernel_args_add_int32 (args, w);
  gcuda_kernel_args_add_int32 (args, h);
  gcuda_kernel_args_add_float (args, salt);
  launch_ok (interop_kernel (&module, "shade_r32f"), (w + 15) / 16, (h + 15) / 16, 1, 16, 16, 1, 0, NULL, args);
  g_clear_object (&surf);
  g_assert_true (gcuda_graphics_resource_unmap (res, NULL, &error));
  g_assert_no_error (error);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      want[(gsize) y * w + x] = data[(gsize) y * w + x] * 0.5f + salt + x - 2 * y;
  read_gl_texture (gl, name, TEST_GL_RED, TEST_GL_FLOAT, back);
  assert_floats_close (back, want, n, 1e-6);

  g_clear_object (&res);
  gl->DeleteTextures (1, &name);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ several at once, two streams */

static void
test_map_all_streams (void)
{
  const int n = 4099, w = 64, h = 40;
  const gsize tn = (gsize) w * h;
  const float a = -2.0f, b = 0.5f, salt = 1.25f;
  const TestGL *gl;
  g_autofree float *da = NULL;
  g_autofree float *db = NULL;
  g_autofree float *dt = NULL;
  g_autofree float *want = g_new (float, MAX ((gsize) n, tn));
  g_autofree float *back = g_new (float, MAX ((gsize) n, tn));
  g_autoptr(GCudaStream) s1 = NULL;
  g_autoptr(GCudaStream) s2 = NULL;
  g_autoptr(GCudaEvent) mapped_event = NULL;
  g_autoptr(GCudaEvent) done_event = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaSurface) surf = NULL;
  g_autoptr(GCudaArray) array = NULL;
  GCudaGraphicsResource *res[3] = { NULL };
  unsigned int names[3];
  GError *error = NULL;

  if ((gl = require_gl ()) == NULL)
    return;
  da = random_floats (n);
  db = random_floats (n);
  dt = random_floats (tn);
  names[0] = make_gl_buffer (gl, da, n * sizeof (float));
  names[1] = make_gl_buffer (gl, db, n * sizeof (float));
  names[2] = make_gl_texture (gl, TEST_GL_R32F, TEST_GL_RED, TEST_GL_FLOAT, w, h, dt);
  res[0] = gcuda_graphics_resource_new_for_gl_buffer (NULL, names[0], GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  res[1] = gcuda_graphics_resource_new_for_gl_buffer (NULL, names[1], GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  res[2] = gcuda_graphics_resource_new_for_gl_image (NULL, names[2], TEST_GL_TEXTURE_2D,
                                                     GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE, &error);
  g_assert_no_error (error);

  s1 = gcuda_stream_new (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  s2 = gcuda_stream_new (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  mapped_event = gcuda_event_new (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);
  done_event = gcuda_event_new (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);

  /* mapped on s1, written on s2 after an event, unmapped on s1 after another */
  g_assert_true (gcuda_graphics_resource_map_all (res, 3, s1, &error));
  g_assert_no_error (error);
  g_assert_nonnull (gcuda_event_record (mapped_event, s1, &error));
  g_assert_true (gcuda_stream_wait_event (s2, mapped_event, &error));
  g_assert_no_error (error);
  for (int i = 0; i < 2; i++)
    {
      g_autoptr(GCudaBuffer) mapped = gcuda_graphics_resource_get_mapped_buffer (res[i], &error);
      g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();

      g_assert_no_error (error);
      gcuda_kernel_args_add_buffer (args, mapped);
      gcuda_kernel_args_add_int32 (args, n);
      gcuda_kernel_args_add_float (args, a);
      gcuda_kernel_args_add_float (args, b);
      launch_ok (interop_kernel (&module, "scale_add"), (n + 255) / 256, 1, 1, 256, 1, 1, 0, s2, args);
    }
  array = gcuda_graphics_resource_get_mapped_array (res[2], 0, 0, &error);
  g_assert_no_error (error);
  surf = gcuda_surface_new (array, &error);
  g_assert_no_error (error);
  {
    g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();

    gcuda_kernel_args_add_uint64 (args, gcuda_surface_get_handle (surf));
    gcuda_kernel_args_add_int32 (args, w);
    gcuda_kernel_args_add_int32 (args, h);
    gcuda_kernel_args_add_float (args, salt);
    launch_ok (interop_kernel (&module, "shade_r32f"), (w + 15) / 16, (h + 15) / 16, 1, 16, 16, 1, 0, s2, args);
  }
  g_assert_nonnull (gcuda_event_record (done_event, s2, &error));
  g_assert_true (gcuda_stream_wait_event (s1, done_event, &error));
  g_assert_no_error (error);
  g_clear_object (&surf);
  g_assert_true (gcuda_graphics_resource_unmap_all (res, 3, s1, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_synchronize (s1, &error));
  g_assert_no_error (error);

  for (int i = 0; i < 2; i++)
    {
      const float *d = i == 0 ? da : db;

      for (int k = 0; k < n; k++)
        want[k] = d[k] * a + b;
      read_gl_buffer (gl, names[i], back, n * sizeof (float));
      assert_floats_close (back, want, n, 1e-6);
    }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      want[(gsize) y * w + x] = dt[(gsize) y * w + x] * 0.5f + salt + x - 2 * y;
  read_gl_texture (gl, names[2], TEST_GL_RED, TEST_GL_FLOAT, back);
  assert_floats_close (back, want, tn, 1e-6);

  for (int i = 0; i < 3; i++)
    g_object_unref (res[i]);
  gl->DeleteBuffers (2, names);
  gl->DeleteTextures (1, &names[2]);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ bad input */

static void
test_bad_input (void)
{
  const TestGL *gl;
  float zeros[64] = { 0 };
  g_autofree char *reason = NULL;
  g_autoptr(GCudaGraphicsResource) res = NULL;
  g_autoptr(GCudaGraphicsResource) image = NULL;
  g_autoptr(GCudaBuffer) mapped = NULL;
  g_autoptr(GPtrArray) devices = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  GCudaGraphicsResource *none;
  GError *error = NULL;
  unsigned int buffer, texture;
  const unsigned int never_made = 0x7fffff00;  /* no object of any kind has it */
  const int no_context_codes[] = { GCUDA_DRIVER_ERROR_INVALID_GRAPHICS_CONTEXT, GCUDA_DRIVER_ERROR_INVALID_CONTEXT,
                                   GCUDA_DRIVER_ERROR_INVALID_VALUE, GCUDA_DRIVER_ERROR_INVALID_HANDLE, 0 };

  if ((gl = require_gl ()) == NULL)
    return;
  buffer = make_gl_buffer (gl, zeros, sizeof zeros);
  /* buffers and textures have names of their own: the texture's must not
   * be the buffer's, or "a texture as a buffer" would be the buffer */
  texture = make_gl_texture (gl, TEST_GL_R32F, TEST_GL_RED, TEST_GL_FLOAT, 8, 8, zeros);
  while (texture == buffer)
    {
      unsigned int collided = texture;

      texture = make_gl_texture (gl, TEST_GL_R32F, TEST_GL_RED, TEST_GL_FLOAT, 8, 8, zeros);
      gl->DeleteTextures (1, &collided);
    }

  /* not a buffer object; not a texture; not of that target */
  none = gcuda_graphics_resource_new_for_gl_buffer (NULL, texture, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_null (none);
  assert_driver_error_one_of (error, bad_object_codes, "not a buffer object");
  g_clear_error (&error);
  none = gcuda_graphics_resource_new_for_gl_buffer (NULL, never_made, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_null (none);
  assert_driver_error_one_of (error, NULL, NULL);
  g_clear_error (&error);
  none = gcuda_graphics_resource_new_for_gl_image (NULL, buffer, TEST_GL_TEXTURE_2D,
                                                   GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_null (none);
  assert_driver_error_one_of (error, bad_object_codes, "not a texture or renderbuffer");
  g_clear_error (&error);
  /* a 2D texture named with another target: the driver on the H200
   * (580.159) registers it all the same, as the texture it is; either way
   * no crash, and a resource made is a working one */
  none = gcuda_graphics_resource_new_for_gl_image (NULL, texture, TEST_GL_TEXTURE_3D,
                                                   GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  if (none != NULL)
    {
      g_test_message ("the driver registered a 2D texture named as GL_TEXTURE_3D");
      g_assert_no_error (error);
      g_assert_true (gcuda_graphics_resource_unregister (none, &error));
      g_assert_no_error (error);
      g_clear_object (&none);
    }
  else
    assert_driver_error_one_of (error, NULL, NULL);
  g_clear_error (&error);
  none = gcuda_graphics_resource_new_for_gl_image (NULL, texture, 0x1234, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE,
                                                   &error);
  g_assert_null (none);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* no current GL context */
  test_egl_release_current ();
  none = gcuda_graphics_resource_new_for_gl_buffer (NULL, buffer, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_null (none);
  assert_driver_error_one_of (error, no_context_codes, "current");
  g_clear_error (&error);
  devices = gcuda_graphics_get_gl_devices (GCUDA_GL_DEVICE_LIST_ALL, &error);
  if (devices != NULL)
    g_assert_cmpuint (devices->len, ==, 0);  /* no GL context: no device of it either */
  else
    {
      g_assert_true (error->domain == GCUDA_DRIVER_ERROR);
      g_test_message ("gl devices without a GL context: %s", error->message);
      g_clear_error (&error);
    }
  device = gcuda_test_get_device ();
  g_assert_nonnull (test_egl_make_current (gcuda_device_get_ordinal (device), &reason));

  /* the state machine */
  res = gcuda_graphics_resource_new_for_gl_buffer (NULL, buffer, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_false (gcuda_graphics_resource_unmap (res, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_MAPPED);
  g_assert_null (gcuda_graphics_resource_get_mapped_buffer (res, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_MAPPED);
  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  g_assert_false (gcuda_graphics_resource_map (res, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_ALREADY_MAPPED);
  g_assert_null (gcuda_graphics_resource_get_mapped_array (res, 0, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_MAPPED_AS_ARRAY);
  mapped = gcuda_graphics_resource_get_mapped_buffer (res, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_graphics_resource_unmap (res, NULL, &error));
  g_assert_false (gcuda_buffer_upload (mapped, 0, (const guint8 *) zeros, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  image = gcuda_graphics_resource_new_for_gl_image (NULL, texture, TEST_GL_TEXTURE_2D,
                                                    GCUDA_GRAPHICS_REGISTER_FLAGS_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_graphics_resource_map (image, NULL, &error));
  g_assert_null (gcuda_graphics_resource_get_mapped_buffer (image, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_MAPPED_AS_POINTER);
  g_assert_null (gcuda_graphics_resource_get_mapped_array (image, 1, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);
  g_assert_null (gcuda_graphics_resource_get_mapped_array (image, 0, 3, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);
  g_assert_true (gcuda_graphics_resource_unmap (image, NULL, &error));

  g_assert_true (gcuda_graphics_resource_unregister (res, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_graphics_resource_map (res, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  g_clear_object (&res);
  g_clear_object (&image);
  gl->DeleteBuffers (1, &buffer);
  gl->DeleteTextures (1, &texture);
  gcuda_test_assert_no_current_context ();
}

static void
test_destroyed_context (void)
{
  const TestGL *gl;
  float zeros[64] = { 0 };
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaContext) ctx = NULL;
  g_autoptr(GCudaGraphicsResource) res = NULL;
  g_autoptr(GCudaBuffer) mapped = NULL;
  GError *error = NULL;
  unsigned int buffer;

  if ((gl = require_gl ()) == NULL)
    return;
  buffer = make_gl_buffer (gl, zeros, sizeof zeros);
  device = gcuda_test_get_device ();
  ctx = gcuda_device_create_context (device, GCUDA_CONTEXT_FLAGS_SCHED_AUTO, &error);
  g_assert_no_error (error);
  res = gcuda_graphics_resource_new_for_gl_buffer (ctx, buffer, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  mapped = gcuda_graphics_resource_get_mapped_buffer (res, &error);
  g_assert_no_error (error);

  g_assert_true (gcuda_context_destroy (ctx, &error));
  g_assert_false (gcuda_graphics_resource_unmap (res, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_buffer_download (mapped, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  /* the finalizer unmaps and unregisters in the driver's context, which
   * goes after it; GL can use the buffer again */
  g_clear_object (&res);
  g_clear_object (&mapped);
  g_clear_object (&ctx);
  read_gl_buffer (gl, buffer, zeros, sizeof zeros);
  gl->DeleteBuffers (1, &buffer);
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gl/nogpu/sources", test_sources);
  g_test_add_func ("/gl/devices", test_gl_devices);
  gcuda_test_add_nvrtc_func ("/gl/buffer-kernel", test_buffer_kernel);
  gcuda_test_add_nvrtc_func ("/gl/texture-rgba8-surface", test_texture_rgba8_surface);
  gcuda_test_add_nvrtc_func ("/gl/texture-r32f-copy-and-surface", test_texture_r32f_copy_and_surface);
  gcuda_test_add_nvrtc_func ("/gl/map-all-streams", test_map_all_streams);
  g_test_add_func ("/gl/bad-input", test_bad_input);
  g_test_add_func ("/gl/destroyed-context", test_destroyed_context);

  return g_test_run ();
}
