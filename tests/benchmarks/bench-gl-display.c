/* bench-gl-display.c: getting a 3840x2160 RGBA kernel result into an OpenGL
 * texture, zero-copy beside the copy path, in the same run.
 *
 * Zero-copy: map the registered texture, a kernel writes its mapped array
 * through a surface object, unmap. Copy path (what examples/gtk did before
 * zero-copy): the same kernel writes a device buffer, the buffer is
 * downloaded to host memory, glTexSubImage2D() uploads it. Each frame ends
 * when the texture holds the result and GL has finished (the zero-copy
 * frame also waits for the CUDA context, so both count the same work).
 * The paths take turns, round by round, after warm-up frames of each; one
 * frame of each path is read back with glGetTexImage() and compared with
 * the host's pattern first (a path that writes wrong pixels is not timed).
 *
 * The GL context is a surfaceless one of the NVIDIA GPU through headless
 * EGL (tests/c/gcuda-test-egl.c). Exit status 77 (nothing measured): no
 * GPU, no NVRTC, or no EGL device of the CUDA device.
 *
 * Usage: bench-gl-display [--json FILE] [frames per round, default 20] [rounds, default 10]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcuda.h>

#include "bench-util.h"
#include "gcuda-test-egl.h"

#define WIDTH 3840
#define HEIGHT 2160
#define WARMUP 5
#define ZERO_COPY "zero-copy: map, kernel writes the mapped array through a surface, unmap"
#define COPY_PATH "copy path: kernel into a buffer, download to host, glTexSubImage2D"

static const char source[] =
  "__device__ uchar4 pixel (int x, int y, int t)\n"
  "{\n"
  "  return make_uchar4 ((x + t) & 255, (3 * y + t) & 255, (x ^ y) & 255, 255);\n"
  "}\n"
  "__global__ void frame_surface (cudaSurfaceObject_t s, int w, int h, int t)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x < w && y < h)\n"
  "    surf2Dwrite (pixel (x, y, t), s, x * 4, y);\n"
  "}\n"
  "__global__ void frame_buffer (uchar4 *p, int w, int h, int t)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x < w && y < h)\n"
  "    p[(size_t) y * w + x] = pixel (x, y, t);\n"
  "}\n";

typedef struct {
  const TestGL *gl;
  GCudaContext *context;
  GCudaFunction *frame_surface;
  GCudaFunction *frame_buffer;
  GCudaGraphicsResource *resource;  /* the zero-copy texture */
  unsigned int zero_copy_texture;
  unsigned int copy_texture;
  GCudaBuffer *buffer;               /* the copy path's device buffer */
  guint8 *host;                      /* and its host memory */
} Bench;

static void
gl_check (const Bench *b,
          const char  *what)
{
  unsigned int e = b->gl->GetError ();

  if (e != TEST_GL_NO_ERROR)
    {
      fprintf (stderr, "bench-gl-display: OpenGL error 0x%x after %s\n", e, what);
      exit (1);
    }
}

static unsigned int
make_texture (const Bench *b)
{
  unsigned int name = 0;

  b->gl->GenTextures (1, &name);
  b->gl->BindTexture (TEST_GL_TEXTURE_2D, name);
  b->gl->TexStorage2D (TEST_GL_TEXTURE_2D, 1, TEST_GL_RGBA8, WIDTH, HEIGHT);
  b->gl->TexParameteri (TEST_GL_TEXTURE_2D, TEST_GL_TEXTURE_MIN_FILTER, TEST_GL_NEAREST);
  b->gl->TexParameteri (TEST_GL_TEXTURE_2D, TEST_GL_TEXTURE_MAG_FILTER, TEST_GL_NEAREST);
  b->gl->BindTexture (TEST_GL_TEXTURE_2D, 0);
  gl_check (b, "making a texture");
  return name;
}

static void
launch (const Bench   *b,
        GCudaFunction *function,
        guint64        target,
        gboolean       is_surface,
        int            t)
{
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  GError *error = NULL;

  if (is_surface)
    gcuda_kernel_args_add_uint64 (args, target);
  else
    gcuda_kernel_args_add_buffer (args, b->buffer);
  gcuda_kernel_args_add_int32 (args, WIDTH);
  gcuda_kernel_args_add_int32 (args, HEIGHT);
  gcuda_kernel_args_add_int32 (args, t);
  bench_gcuda_check (gcuda_function_launch (function, (WIDTH + 31) / 32, (HEIGHT + 7) / 8, 1, 32, 8, 1, 0, NULL,
                                            args, &error),
                     error, "gcuda_function_launch");
}

static void
zero_copy_frame (const Bench *b,
                 int          t)
{
  g_autoptr(GCudaArray) array = NULL;
  g_autoptr(GCudaSurface) surface = NULL;
  GError *error = NULL;

  bench_gcuda_check (gcuda_graphics_resource_map (b->resource, NULL, &error), error, "map");
  array = gcuda_graphics_resource_get_mapped_array (b->resource, 0, 0, &error);
  bench_gcuda_check (array != NULL, error, "get_mapped_array");
  surface = gcuda_surface_new (array, &error);
  bench_gcuda_check (surface != NULL, error, "gcuda_surface_new");
  launch (b, b->frame_surface, gcuda_surface_get_handle (surface), TRUE, t);
  g_clear_object (&surface);
  bench_gcuda_check (gcuda_graphics_resource_unmap (b->resource, NULL, &error), error, "unmap");
  bench_gcuda_check (gcuda_context_synchronize (b->context, &error), error, "gcuda_context_synchronize");
  b->gl->Finish ();
}

static void
copy_frame (const Bench *b,
            int          t)
{
  GError *error = NULL;

  launch (b, b->frame_buffer, 0, FALSE, t);
  bench_gcuda_check (gcuda_buffer_download_to_address (b->buffer, 0, (guint64) (guintptr) b->host,
                                                       (guint64) WIDTH * HEIGHT * 4, &error),
                     error, "gcuda_buffer_download_to_address");
  b->gl->BindTexture (TEST_GL_TEXTURE_2D, b->copy_texture);
  b->gl->PixelStorei (TEST_GL_UNPACK_ALIGNMENT, 4);
  b->gl->TexSubImage2D (TEST_GL_TEXTURE_2D, 0, 0, 0, WIDTH, HEIGHT, TEST_GL_RGBA, TEST_GL_UNSIGNED_BYTE, b->host);
  b->gl->BindTexture (TEST_GL_TEXTURE_2D, 0);
  b->gl->Finish ();
}

/* The texture holds frame @t's pattern? */
static gboolean
check_pixels (const Bench  *b,
              unsigned int  texture,
              int           t)
{
  g_autofree guint8 *pixels = g_malloc ((gsize) WIDTH * HEIGHT * 4);

  b->gl->BindTexture (TEST_GL_TEXTURE_2D, texture);
  b->gl->PixelStorei (TEST_GL_PACK_ALIGNMENT, 4);
  b->gl->GetTexImage (TEST_GL_TEXTURE_2D, 0, TEST_GL_RGBA, TEST_GL_UNSIGNED_BYTE, pixels);
  b->gl->BindTexture (TEST_GL_TEXTURE_2D, 0);
  gl_check (b, "glGetTexImage");
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++)
      {
        const guint8 *p = pixels + ((gsize) y * WIDTH + x) * 4;

        if (p[0] != ((x + t) & 255) || p[1] != ((3 * y + t) & 255) || p[2] != ((x ^ y) & 255) || p[3] != 255)
          {
            fprintf (stderr, "bench-gl-display: pixel (%d, %d) is %u %u %u %u\n", x, y, p[0], p[1], p[2], p[3]);
            return FALSE;
          }
      }
  return TRUE;
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

int
main (int    argc,
      char **argv)
{
  const char *json = bench_take_json_arg (&argc, argv);
  int frames = argc > 1 ? atoi (argv[1]) : 20;
  int rounds = argc > 2 ? atoi (argv[2]) : 10;
  g_autoptr(GCudaCompiler) compiler = NULL;
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autofree double *zero_ms = NULL;
  g_autofree double *copy_ms = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *gl_description = NULL;
  g_autofree char *per_sample = NULL;
  double zero_median, copy_median;
  BenchReport *report;
  GError *error = NULL;
  Bench b = { 0 };
  int t = 0;

  g_set_prgname ("bench-gl-display");
  if (frames < 1 || rounds < 1)
    {
      fprintf (stderr, "usage: bench-gl-display [--json FILE] [frames per round] [rounds]\n");
      return 2;
    }

  b.context = gcuda_context_get_default (&error);
  if (b.context == NULL)
    {
      fprintf (stderr, "bench-gl-display: no GPU: %s\n", error->message);
      return 77;
    }
  b.gl = test_egl_make_current (gcuda_device_get_ordinal (gcuda_context_get_device (b.context)), &reason);
  if (b.gl == NULL)
    {
      fprintf (stderr, "bench-gl-display: no headless OpenGL on the GPU: %s\n", reason);
      return 77;
    }
  gl_description = test_egl_describe ();

  compiler = gcuda_compiler_new (b.context);
  gcuda_compiler_set_cache_dir (compiler, "");
  program = gcuda_compiler_compile (compiler, source, &error);
  if (program == NULL)
    {
      fprintf (stderr, "bench-gl-display: cannot compile the kernels: %s\n", error->message);
      return g_error_matches (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND) ? 77 : 1;
    }
  module = gcuda_module_new_from_program (b.context, program, &error);
  bench_gcuda_check (module != NULL, error, "gcuda_module_new_from_program");
  b.frame_surface = gcuda_module_get_function (module, "frame_surface", &error);
  bench_gcuda_check (b.frame_surface != NULL, error, "frame_surface");
  b.frame_buffer = gcuda_module_get_function (module, "frame_buffer", &error);
  bench_gcuda_check (b.frame_buffer != NULL, error, "frame_buffer");

  b.zero_copy_texture = make_texture (&b);
  b.copy_texture = make_texture (&b);
  b.resource = gcuda_graphics_resource_new_for_gl_image (b.context, b.zero_copy_texture, TEST_GL_TEXTURE_2D,
                                                         GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE |
                                                         GCUDA_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD, &error);
  bench_gcuda_check (b.resource != NULL, error, "gcuda_graphics_resource_new_for_gl_image");
  b.buffer = gcuda_buffer_new (b.context, (guint64) WIDTH * HEIGHT * 4, &error);
  bench_gcuda_check (b.buffer != NULL, error, "gcuda_buffer_new");
  b.host = g_malloc ((gsize) WIDTH * HEIGHT * 4);  /* pageable, as a GBytes for GdkMemoryTexture is */

  /* both paths give the right pixels before either is timed */
  zero_copy_frame (&b, 7);
  copy_frame (&b, 11);
  if (!check_pixels (&b, b.zero_copy_texture, 7) || !check_pixels (&b, b.copy_texture, 11))
    {
      fprintf (stderr, "bench-gl-display: a path wrote wrong pixels\n");
      return 1;
    }
  printf ("pixels of both paths equal the host's pattern (%dx%d RGBA8)\n", WIDTH, HEIGHT);

  for (int i = 0; i < WARMUP; i++)
    {
      zero_copy_frame (&b, t++);
      copy_frame (&b, t++);
    }
  zero_ms = g_new (double, rounds);
  copy_ms = g_new (double, rounds);
  for (int r = 0; r < rounds; r++)
    {
      gint64 start = g_get_monotonic_time ();

      for (int i = 0; i < frames; i++)
        zero_copy_frame (&b, t++);
      zero_ms[r] = (g_get_monotonic_time () - start) / 1000.0 / frames;
      start = g_get_monotonic_time ();
      for (int i = 0; i < frames; i++)
        copy_frame (&b, t++);
      copy_ms[r] = (g_get_monotonic_time () - start) / 1000.0 / frames;
    }

  report = bench_report_new ("gl-display", "gl-display-c",
                             "OpenGL display, C: a 3840x2160 RGBA kernel result into a GL texture");
  bench_report_param_int (report, "width", WIDTH);
  bench_report_param_int (report, "height", HEIGHT);
  bench_report_param_int (report, "frames", frames);
  bench_report_param_int (report, "rounds", rounds);
  bench_report_param_int (report, "warmup", WARMUP);
  bench_report_env (report, "device", gcuda_device_get_name (gcuda_context_get_device (b.context)));
  bench_report_env (report, "gl", gl_description);
  bench_report_note (report, "pixels of both paths checked against the host's pattern before timing");
  per_sample = g_strdup_printf ("mean of %d frames", frames);
  bench_report_row (report, "3840x2160 RGBA8 frame", ZERO_COPY, BENCH_ROLE_GCUDA, "ms", FALSE, zero_ms, rounds,
                    COPY_PATH, NULL, per_sample);
  bench_report_row (report, "3840x2160 RGBA8 frame", COPY_PATH, BENCH_ROLE_REFERENCE, "ms", FALSE, copy_ms, rounds,
                    NULL, NULL, per_sample);

  qsort (zero_ms, rounds, sizeof *zero_ms, cmp_double);
  qsort (copy_ms, rounds, sizeof *copy_ms, cmp_double);
  zero_median = zero_ms[rounds / 2];
  copy_median = copy_ms[rounds / 2];
  printf ("%s (%s)\n", gcuda_device_get_name (gcuda_context_get_device (b.context)), gl_description);
  printf ("%-80s %8.3f ms/frame (median of %d rounds of %d)\n", ZERO_COPY, zero_median, rounds, frames);
  printf ("%-80s %8.3f ms/frame\n", COPY_PATH, copy_median);
  printf ("ratio zero-copy / copy path: %.3f\n", zero_median / copy_median);
  bench_report_finish (report, json);

  g_clear_object (&b.resource);
  g_clear_object (&b.buffer);
  b.gl->DeleteTextures (1, &b.zero_copy_texture);
  b.gl->DeleteTextures (1, &b.copy_texture);
  g_free (b.host);
  g_clear_object (&b.context);
  return 0;
}
