/* test-module.c: GCudaModule (cubin, PTX with JIT options, files,
 * programs, globals, garbage) and gcuda_module_new_from_source() on a real GPU
 *
 * /module/nogpu/ (the kernels compile, JIT option properties, the image
 * checker on crafted images) also runs without a GPU (suite nogpu).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gcuda-test-async.h"
#include "gcuda-test-images.h"
#include "gcuda-test-kernels.h"
#include "gcuda-test-memory.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ kernels */

static const char module_source[] =
  "__constant__ float coeffs[16];\n"
  "__device__ int offset_h2;\n"
  "\n"
  "__global__ void scale (const float *x, float *y, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    y[i] = coeffs[i % 16] * x[i] + (float) offset_h2;\n"
  "}\n"
  "\n"
  "__global__ void bump_offset (int by)\n"
  "{\n"
  "  offset_h2 += by;\n"
  "}\n";

/* Needs many registers: 48 values live at once (each product pairs two of
 * them); with max-registers 32 the JIT must spill. */
static const char heavy_source[] =
  "__global__ void heavy (const float *in, float *out)\n"
  "{\n"
  "  float r[48];\n"
  "#pragma unroll\n"
  "  for (int k = 0; k < 48; k++)\n"
  "    r[k] = in[threadIdx.x + k * 64];\n"
  "  float acc = 0.0f;\n"
  "#pragma unroll\n"
  "  for (int a = 0; a < 48; a++)\n"
  "#pragma unroll\n"
  "    for (int b = a; b < 48; b++)\n"
  "      acc += r[a] * r[b];\n"
  "  out[threadIdx.x] = acc;\n"
  "}\n";

static const char scale_n_source[] =
  "__global__ void scale_n (float *x, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    x[i] *= SCALE;\n"
  "}\n";

static const TestKernelSource sources[] = {
  { "module_source", module_source, FALSE, FALSE, { NULL } },
  { "heavy_source", heavy_source, FALSE, FALSE, { NULL } },
  { "scale_n_source", scale_n_source, FALSE, FALSE, { "-DSCALE=3.0f", NULL } },
  { NULL }
};

/* ------------------------------------------------------------ helpers */

static char *
make_tmp_dir (void)
{
  GError *error = NULL;
  char *dir = g_dir_make_tmp ("gcuda-test-module-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static GCudaModule *
module_from_data (GBytes          *image,
                  GCudaJitOptions *options)
{
  GError *error = NULL;
  GCudaModule *module = gcuda_module_new_from_data (NULL, image, options, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_MODULE (module));
  return module;
}

/* Runs scale from @module on fresh data with fresh coefficients and
 * offset, uploaded through the globals, and checks the result. */
static void
check_scale (GCudaModule *module)
{
  const int n = 1000;
  g_autoptr(GCudaFunction) f = get_kernel (module, "scale");
  g_autoptr(GCudaBuffer) coeffs = NULL, offset = NULL, dx = NULL, dy = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  g_autofree float *x = random_floats (n);
  g_autofree float *c = random_floats (16);
  g_autofree float *want = g_new (float, n);
  g_autofree float *got = g_new (float, n);
  gint32 off = g_random_int_range (-1000, 1000);
  GError *error = NULL;

  coeffs = gcuda_module_get_global (module, "coeffs", &error);
  g_assert_no_error (error);
  offset = gcuda_module_get_global (module, "offset_h2", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_buffer_get_size (coeffs), ==, 16 * 4);
  g_assert_cmpuint (gcuda_buffer_get_size (offset), ==, 4);
  g_assert_cmpint (gcuda_buffer_get_kind (coeffs), ==, GCUDA_BUFFER_KIND_GLOBAL);
  upload_ok (coeffs, 0, (const guint8 *) c, 16 * 4);
  upload_ok (offset, 0, (const guint8 *) &off, 4);

  dx = buffer_with (x, n * 4);
  dy = new_buffer (NULL, n * 4);
  poison (dy, 0x77);
  gcuda_kernel_args_add_buffer (args, dx);
  gcuda_kernel_args_add_buffer (args, dy);
  gcuda_kernel_args_add_int32 (args, n);
  launch_ok (f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args);
  context_sync (NULL);
  for (int i = 0; i < n; i++)
    want[i] = c[i % 16] * x[i] + (float) off;
  download_into (dy, got, n * 4);
  /* the device may contract the multiply-add into one rounding */
  assert_floats_close (got, want, n, 1e-3);
}

/* Whether the image checker let @image through: without a driver the
 * load then fails for want of one (nogpu), with one it loads (or the
 * driver answers). Refusals are GCUDA_ERROR_INVALID_ARGUMENT, before the
 * driver is looked for. */
static void
assert_image_accepted (GBytes     *image,
                       const char *what)
{
  g_autoptr(GCudaModule) module = NULL;
  GError *error = NULL;

  module = gcuda_module_new_from_data (NULL, image, NULL, &error);
  if (error != NULL && error->domain == GCUDA_ERROR && error->code == GCUDA_ERROR_INVALID_ARGUMENT)
    g_error ("%s: refused by the image checker: %s", what, error->message);
  g_test_message ("%s: accepted (%s)", what,
                  error == NULL ? "loaded" : error->domain == GCUDA_ERROR ? "then no driver" : "then the driver's answer");
  g_clear_error (&error);
}

static void
assert_image_refused (GBytes     *image,
                      const char *what,
                      const char *pattern)
{
  GCudaModule *module;
  GError *error = NULL;

  module = gcuda_module_new_from_data (NULL, image, NULL, &error);
  g_assert_null (module);
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  if (!g_pattern_match_simple (pattern, error->message))
    g_error ("%s: refused, but not as expected:\n  expected %s\n  got      %s", what, pattern, error->message);
  g_test_message ("%s: %s", what, error->message);
  g_clear_error (&error);
}

/* ------------------------------------------------------------ tests */

static void
test_sources (void)
{
  test_kernel_sources_compile (sources);
}

static void
test_jit_options_properties (void)
{
  g_autoptr(GCudaJitOptions) options = gcuda_jit_options_new ();
  guint max_registers = 1, threads = 1;
  int level = 0;
  gboolean debug = TRUE, line = TRUE, verbose = TRUE;

  /* the driver's defaults */
  g_assert_cmpuint (gcuda_jit_options_get_max_registers (options), ==, 0);
  g_assert_cmpint (gcuda_jit_options_get_optimization_level (options), ==, -1);
  g_assert_cmpuint (gcuda_jit_options_get_threads_per_block (options), ==, 0);
  g_assert_false (gcuda_jit_options_get_generate_debug_info (options));
  g_assert_false (gcuda_jit_options_get_generate_line_info (options));
  g_assert_false (gcuda_jit_options_get_log_verbose (options));

  gcuda_jit_options_set_max_registers (options, 32);
  gcuda_jit_options_set_optimization_level (options, 2);
  gcuda_jit_options_set_threads_per_block (options, 256);
  gcuda_jit_options_set_generate_debug_info (options, TRUE);
  gcuda_jit_options_set_generate_line_info (options, TRUE);
  gcuda_jit_options_set_log_verbose (options, TRUE);
  g_object_get (options, "max-registers", &max_registers, "optimization-level", &level,
                "threads-per-block", &threads, "generate-debug-info", &debug,
                "generate-line-info", &line, "log-verbose", &verbose, NULL);
  g_assert_cmpuint (max_registers, ==, 32);
  g_assert_cmpint (level, ==, 2);
  g_assert_cmpuint (threads, ==, 256);
  g_assert_true (debug);
  g_assert_true (line);
  g_assert_true (verbose);

  g_object_set (options, "optimization-level", -1, "log-verbose", FALSE, NULL);
  g_assert_cmpint (gcuda_jit_options_get_optimization_level (options), ==, -1);
  g_assert_false (gcuda_jit_options_get_log_verbose (options));
}

/* The images of gcuda-test-images.c, made from NVRTC's sm_90 output: the
 * valid ones pass the image checker, and each damaged one is refused with
 * the message of its check (the audit's findings among them). */
static void
test_images_valid (void)
{
  TestImages images;

  test_images_init (&images, module_source, 90);
  for (const TestCraftedImage *c = test_valid_images; c->name != NULL; c++)
    {
      g_autoptr(GBytes) image = c->make (&images);

      assert_image_accepted (image, c->name);
    }
  test_images_clear (&images);
}

static void
test_images_damaged (void)
{
  TestImages images;
  guint n = 0;

  test_images_init (&images, module_source, 90);
  for (const TestCraftedImage *c = test_damaged_images; c->name != NULL; c++, n++)
    {
      g_autoptr(GBytes) image = c->make (&images);

      assert_image_refused (image, c->name, c->refusal);
    }
  g_test_message ("%u damaged images refused", n);
  test_images_clear (&images);
}

/* What the toolkit's fatbinary writes (uncompressed, Zstandard, LZ4, with
 * names and JIT options) passes the checker: it must not refuse real
 * fatbins. GCUDA_TEST_FATBINARY is the fatbinary the build found (meson
 * registers no such case without one); run by hand without it, the
 * toolkit's in /usr/local/cuda, skipped when absent. */
static void
test_images_fatbinary (void)
{
  static const char * const modes[][4] = {
    { "--compress=false", NULL },
    { NULL },  /* the default: PTX compressed with Zstandard */
    { "--compress-all", NULL },
    { "--compress-all", "--compress-mode=speed", NULL },  /* LZ4 */
    { "--compress-all", "--compress-mode=size", NULL },
    { "--compress=false", "--ident=kernels.cu", "--cmdline=-O3 --maxrregcount=32", NULL },
  };
  const char *configured = g_getenv ("GCUDA_TEST_FATBINARY");
  const char *fatbinary = configured != NULL ? configured : "/usr/local/cuda/bin/fatbinary";
  g_autofree char *dir = NULL, *cubin = NULL, *ptx = NULL, *out = NULL;
  TestImages images;
  GError *error = NULL;

  if (!g_file_test (fatbinary, G_FILE_TEST_IS_EXECUTABLE))
    {
      if (configured != NULL)
        g_test_fail_printf ("GCUDA_TEST_FATBINARY: %s is not an executable: the build found it there", fatbinary);
      else
        g_test_skip_printf ("no %s (GCUDA_TEST_FATBINARY)", fatbinary);
      return;
    }

  test_images_init (&images, module_source, 90);
  dir = make_tmp_dir ();
  cubin = g_build_filename (dir, "kernels.cubin", NULL);
  ptx = g_build_filename (dir, "kernels.ptx", NULL);
  out = g_build_filename (dir, "kernels.fatbin", NULL);
  g_file_set_contents (cubin, g_bytes_get_data (images.cubin, NULL), g_bytes_get_size (images.cubin), &error);
  g_assert_no_error (error);
  g_file_set_contents (ptx, g_bytes_get_data (images.ptx, NULL), -1, &error);
  g_assert_no_error (error);

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *contents = NULL, *what = NULL;
      g_autoptr(GBytes) image = NULL;
      gsize length = 0;
      int status = 0;

      g_ptr_array_add (argv, g_strdup (fatbinary));
      g_ptr_array_add (argv, g_strdup ("-64"));
      g_ptr_array_add (argv, g_strdup_printf ("--create=%s", out));
      g_ptr_array_add (argv, g_strdup_printf ("--image3=kind=elf,sm=90,file=%s", cubin));
      g_ptr_array_add (argv, g_strdup_printf ("--image3=kind=ptx,sm=90,file=%s", ptx));
      for (guint i = 0; modes[m][i] != NULL; i++)
        g_ptr_array_add (argv, g_strdup (modes[m][i]));
      g_ptr_array_add (argv, NULL);
      what = g_strjoinv (" ", (char **) argv->pdata + 5);
      g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error);
      g_assert_no_error (error);
      g_spawn_check_wait_status (status, &error);
      g_assert_no_error (error);
      g_file_get_contents (out, &contents, &length, &error);
      g_assert_no_error (error);
      image = g_bytes_new_take (g_steal_pointer (&contents), length);
      assert_image_accepted (image, *what ? what : "fatbinary's defaults");
    }

  g_unlink (out);
  g_unlink (cubin);
  g_unlink (ptx);
  g_rmdir (dir);
  test_images_clear (&images);
}

static void
test_cubin (void)
{
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaContext) prop_context = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  program = compile_for_device (module_source, GCUDA_PROGRAM_KIND_CUBIN, NULL);
  g_assert_cmpint (gcuda_program_get_kind (program), ==, GCUDA_PROGRAM_KIND_CUBIN);
  module = module_from_data (gcuda_program_get_image (program), NULL);
  context = get_default ();
  g_assert_true (gcuda_module_get_context (module) == context);
  g_object_get (module, "context", &prop_context, NULL);
  g_assert_true (prop_context == context);
  g_assert_nonnull (gcuda_module_get_info_log (module));
  g_assert_nonnull (gcuda_module_get_error_log (module));
  g_assert_cmpstr (gcuda_module_get_error_log (module), ==, "");
  check_scale (module);
  check_scale (module);  /* other coefficients, same module */

  gcuda_test_assert_no_current_context ();
}

/* PTX is compiled by the driver on load, with the JIT options given. */
static void
test_ptx_jit_options (void)
{
  g_autoptr(GCudaProgram) program = NULL, heavy = NULL;
  g_autoptr(GCudaModule) module = NULL, limited = NULL, unlimited = NULL;
  g_autoptr(GCudaJitOptions) options = gcuda_jit_options_new ();
  g_autoptr(GCudaFunction) f_limited = NULL, f_unlimited = NULL;
  g_autoptr(GCudaBuffer) din = NULL, dout = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  g_autofree float *in = random_floats (64 * 48);  /* made positive below */
  g_autofree char *info_log = NULL;
  float want[64], got[64];
  int regs_limited = 0, regs_unlimited = 0;

  if (!gcuda_test_require_gpu ())
    return;

  /* in [0, 1): no cancellation, so float and double sums agree closely */
  for (int i = 0; i < 64 * 48; i++)
    in[i] = fabsf (in[i]) / 100.0f;

  program = compile_for_device (module_source, GCUDA_PROGRAM_KIND_PTX, NULL);
  g_assert_cmpint (gcuda_program_get_kind (program), ==, GCUDA_PROGRAM_KIND_PTX);
  module = module_from_data (gcuda_program_get_image (program), NULL);
  check_scale (module);

  /* max-registers and a verbose log */
  heavy = compile_for_device (heavy_source, GCUDA_PROGRAM_KIND_PTX, NULL);
  gcuda_jit_options_set_max_registers (options, 32);
  gcuda_jit_options_set_log_verbose (options, TRUE);
  limited = module_from_data (gcuda_program_get_image (heavy), options);
  g_object_get (limited, "info-log", &info_log, NULL);
  g_test_message ("JIT info log: %s", info_log);
  g_assert_cmpstr (info_log, ==, gcuda_module_get_info_log (limited));
  g_assert_cmpstr (info_log, !=, "");
  g_assert_nonnull (strstr (info_log, "registers"));
  f_limited = get_kernel (limited, "heavy");
  g_object_get (f_limited, "num-regs", &regs_limited, NULL);
  g_assert_cmpint (regs_limited, >, 0);
  g_assert_cmpint (regs_limited, <=, 32);

  /* without the limit it takes more (so the limit did something) */
  unlimited = module_from_data (gcuda_program_get_image (heavy), NULL);
  f_unlimited = get_kernel (unlimited, "heavy");
  g_object_get (f_unlimited, "num-regs", &regs_unlimited, NULL);
  g_test_message ("heavy: %d registers with max-registers 32, %d without", regs_limited, regs_unlimited);
  g_assert_cmpint (regs_unlimited, >, 32);

  /* both compute the same */
  for (int t = 0; t < 64; t++)
    {
      double acc = 0;

      for (int a = 0; a < 48; a++)
        for (int b = a; b < 48; b++)
          acc += (double) in[t + a * 64] * in[t + b * 64];
      want[t] = (float) acc;
    }
  din = buffer_with (in, 64 * 48 * 4);
  dout = new_buffer (NULL, sizeof got);
  gcuda_kernel_args_add_buffer (args, din);
  gcuda_kernel_args_add_buffer (args, dout);
  poison (dout, 0x41);
  launch_ok (f_limited, 1, 1, 1, 64, 1, 1, 0, NULL, args);
  context_sync (NULL);
  download_into (dout, got, sizeof got);
  assert_floats_close (got, want, 64, 1e-3);
  poison (dout, 0x42);
  launch_ok (f_unlimited, 1, 1, 1, 64, 1, 1, 0, NULL, args);
  context_sync (NULL);
  download_into (dout, got, sizeof got);
  assert_floats_close (got, want, 64, 1e-3);

  /* the other options are accepted */
  {
    g_autoptr(GCudaJitOptions) more = gcuda_jit_options_new ();
    g_autoptr(GCudaModule) m = NULL;

    gcuda_jit_options_set_optimization_level (more, 0);
    gcuda_jit_options_set_threads_per_block (more, 128);
    gcuda_jit_options_set_generate_line_info (more, TRUE);
    m = module_from_data (gcuda_program_get_image (program), more);
    check_scale (m);
  }

  gcuda_test_assert_no_current_context ();
}

static void
test_from_file (void)
{
  g_autofree char *dir = NULL, *cubin_path = NULL, *ptx_path = NULL, *missing = NULL;
  g_autoptr(GCudaProgram) cubin = NULL, ptx = NULL;
  g_autoptr(GCudaModule) module = NULL;
  GError *error = NULL;
  gsize ptx_size;

  if (!gcuda_test_require_gpu ())
    return;

  dir = make_tmp_dir ();
  cubin_path = g_build_filename (dir, "kernel.cubin", NULL);
  ptx_path = g_build_filename (dir, "kernel.ptx", NULL);
  missing = g_build_filename (dir, "missing.cubin", NULL);

  cubin = compile_for_device (module_source, GCUDA_PROGRAM_KIND_CUBIN, NULL);
  ptx = compile_for_device (module_source, GCUDA_PROGRAM_KIND_PTX, NULL);
  g_file_set_contents (cubin_path, g_bytes_get_data (gcuda_program_get_image (cubin), NULL),
                       g_bytes_get_size (gcuda_program_get_image (cubin)), &error);
  g_assert_no_error (error);
  /* PTX as a text file: without its NUL */
  ptx_size = strnlen (g_bytes_get_data (gcuda_program_get_image (ptx), NULL),
                      g_bytes_get_size (gcuda_program_get_image (ptx)));
  g_file_set_contents (ptx_path, g_bytes_get_data (gcuda_program_get_image (ptx), NULL), ptx_size, &error);
  g_assert_no_error (error);

  module = gcuda_module_new_from_file (NULL, cubin_path, NULL, &error);
  g_assert_no_error (error);
  check_scale (module);
  g_clear_object (&module);

  module = gcuda_module_new_from_file (NULL, ptx_path, NULL, &error);
  g_assert_no_error (error);
  check_scale (module);
  g_clear_object (&module);

  module = gcuda_module_new_from_file (NULL, missing, NULL, &error);
  g_assert_null (module);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);
  module = gcuda_module_new_from_file (NULL, NULL, NULL, &error);
  g_assert_null (module);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_unlink (cubin_path);
  g_unlink (ptx_path);
  g_rmdir (dir);
  gcuda_test_assert_no_current_context ();
}

static void
test_from_program (void)
{
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaKernelArgs) not_a_program = gcuda_kernel_args_new ();
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  program = compile_for_device (module_source, GCUDA_PROGRAM_KIND_CUBIN, NULL);
  module = gcuda_module_new_from_program (NULL, program, &error);
  g_assert_no_error (error);
  check_scale (module);
  g_clear_object (&module);

  /* the same program in another context */
  dedicated = create_dedicated (NULL, 0);
  module = gcuda_module_new_from_program (dedicated, program, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_module_get_context (module) == dedicated);
  {
    g_autoptr(GCudaFunction) f = get_kernel (module, "bump_offset");
    g_autoptr(GCudaBuffer) offset = gcuda_module_get_global (module, "offset_h2", &error);
    g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
    gint32 start = g_random_int_range (-1000, 1000), by = g_random_int_range (1, 1000), got = 0;

    g_assert_no_error (error);
    g_assert_true (gcuda_buffer_get_context (offset) == dedicated);
    upload_ok (offset, 0, (const guint8 *) &start, 4);
    gcuda_kernel_args_add_int32 (args, by);
    launch_ok (f, 1, 1, 1, 1, 1, 1, 0, NULL, args);
    launch_ok (f, 1, 1, 1, 1, 1, 1, 0, NULL, args);
    context_sync (dedicated);
    download_into (offset, &got, 4);
    g_assert_cmpint (got, ==, start + 2 * by);
  }
  g_clear_object (&module);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);

  module = gcuda_module_new_from_program (NULL, NULL, &error);
  g_assert_null (module);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  module = gcuda_module_new_from_program (NULL, (GCudaProgram *) not_a_program, &error);
  g_assert_null (module);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_test_assert_no_current_context ();
}

static void
test_get_function (void)
{
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaFunction) a = NULL, b = NULL, other = NULL;
  g_autoptr(GCudaModule) prop_module = NULL;
  GCudaFunction *missing;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  module = load_module (NULL, module_source, NULL);
  a = get_kernel (module, "scale");
  b = get_kernel (module, "scale");
  g_assert_true (a == b);
  other = get_kernel (module, "bump_offset");
  g_assert_true (other != a);
  g_assert_true (gcuda_function_get_module (a) == module);
  g_object_get (a, "module", &prop_module, NULL);
  g_assert_true (prop_module == module);
  g_assert_cmpuint (gcuda_function_get_param_count (a), ==, 3);
  g_assert_cmpuint (gcuda_function_get_param_count (other), ==, 1);

  /* once every reference is gone, a new object that works */
  g_clear_object (&b);
  g_clear_object (&a);
  a = get_kernel (module, "scale");
  check_scale (module);

  missing = gcuda_module_get_function (module, "no_such_kernel_h2", &error);
  g_assert_null (missing);
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no_such_kernel_h2"));
  g_clear_error (&error);
  /* a global is not a kernel */
  missing = gcuda_module_get_function (module, "coeffs", &error);
  g_assert_null (missing);
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_FOUND);
  missing = gcuda_module_get_function (module, "", &error);
  g_assert_null (missing);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  missing = gcuda_module_get_function (module, NULL, &error);
  g_assert_null (missing);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_test_assert_no_current_context ();
}

static void
test_globals (void)
{
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaBuffer) coeffs = NULL, again = NULL;
  g_autoptr(GBytes) back = NULL;
  g_autofree float *c = random_floats (16);
  GCudaBuffer *missing;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  module = load_module (NULL, module_source, NULL);
  check_scale (module);

  /* what is uploaded is there to download, through another view too */
  coeffs = gcuda_module_get_global (module, "coeffs", &error);
  g_assert_no_error (error);
  upload_ok (coeffs, 0, (const guint8 *) c, 64);
  again = gcuda_module_get_global (module, "coeffs", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_buffer_get_address (again), ==, gcuda_buffer_get_address (coeffs));
  back = gcuda_buffer_download (again, 0, 64, &error);
  g_assert_no_error (error);
  assert_bytes (back, (const guint8 *) c, 64);

  /* out of the variable's bounds */
  g_assert_false (gcuda_buffer_upload (coeffs, 60, (const guint8 *) c, 8, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);

  /* the buffer keeps the module loaded */
  g_clear_object (&module);
  g_clear_pointer (&back, g_bytes_unref);
  c[3] = 12345.0f;
  upload_ok (coeffs, 0, (const guint8 *) c, 64);
  back = gcuda_buffer_download (coeffs, 0, 64, &error);
  g_assert_no_error (error);
  assert_bytes (back, (const guint8 *) c, 64);

  /* unknown names */
  module = load_module (NULL, module_source, NULL);
  missing = gcuda_module_get_global (module, "no_such_global_h2", &error);
  g_assert_null (missing);
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no_such_global_h2"));
  g_clear_error (&error);
  missing = gcuda_module_get_global (module, "", &error);
  g_assert_null (missing);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_test_assert_no_current_context ();
}

static void
assert_refused (GBytes *image,
                GQuark  domain,
                int     code)
{
  GError *error = NULL;
  GCudaModule *module = gcuda_module_new_from_data (NULL, image, NULL, &error);

  g_assert_null (module);
  if (code >= 0)
    gcuda_assert_error (error, domain, code);
  else if (error == NULL || (domain != 0 && error->domain != domain))
    g_error ("expected an error in %s, got %s", domain ? g_quark_to_string (domain) : "any domain",
             error ? error->message : "none");
  g_test_message ("refused: %s", error->message);
  g_clear_error (&error);
}

/* Data that is no device code is refused, never a crash. Each case is in
 * a child, so a crash in the driver is this test's failure alone. */
static void
test_garbage (void)
{
  if (!gcuda_test_require_gpu ())
    return;

  if (g_test_subprocess ())
    {
      g_autoptr(GCudaProgram) cubin = compile_for_device (module_source, GCUDA_PROGRAM_KIND_CUBIN, NULL);
      g_autoptr(GCudaProgram) ptx = compile_for_device (module_source, GCUDA_PROGRAM_KIND_PTX, NULL);
      GBytes *real = gcuda_program_get_image (cubin);
      g_autofree guint8 *bytes = random_data (4096);
      g_autoptr(GBytes) b = NULL;

      /* random bytes (not starting like ELF or a fatbin) */
      bytes[0] = 'G';
      b = g_bytes_new (bytes, 4096);
      assert_refused (b, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_clear_pointer (&b, g_bytes_unref);

      /* nothing */
      b = g_bytes_new (NULL, 0);
      assert_refused (b, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_clear_pointer (&b, g_bytes_unref);
      assert_refused (NULL, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      b = g_bytes_new ("\177EL", 3);
      assert_refused (b, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_clear_pointer (&b, g_bytes_unref);

      /* PTX without its NUL */
      b = g_bytes_new (g_bytes_get_data (gcuda_program_get_image (ptx), NULL),
                       strlen (g_bytes_get_data (gcuda_program_get_image (ptx), NULL)));
      assert_refused (b, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_clear_pointer (&b, g_bytes_unref);

      /* text that only looks like PTX */
      {
        static const char fake[] = ".version 8.0\nthis is not PTX at all;\n";

        b = g_bytes_new_static (fake, sizeof fake);
      }
      assert_refused (b, GCUDA_DRIVER_ERROR, -1);
      g_clear_pointer (&b, g_bytes_unref);

      /* and the context is fine after all that */
      {
        g_autoptr(GCudaModule) module = module_from_data (real, NULL);

        check_scale (module);
      }
      printf ("garbage refused\n");
      return;
    }

  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*garbage refused*");
}

typedef struct {
  guint8 *map;
  gsize length;
} Guarded;

static void
guarded_free (gpointer data)
{
  Guarded *g = data;

  munmap (g->map, g->length);
  g_free (g);
}

/* @size bytes of @data ending (within the 8-byte alignment of its start)
 * right before an inaccessible page: reading past the end crashes instead
 * of reading whatever follows. */
static GBytes *
guarded_bytes (gconstpointer data,
               gsize         size)
{
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  gsize aligned = (size + 7) & ~(gsize) 7;
  gsize span = (aligned + page - 1) / page * page;
  Guarded *g = g_new0 (Guarded, 1);

  g->length = span + page;
  g->map = mmap (NULL, g->length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert_true (g->map != MAP_FAILED);
  g_assert_cmpint (mprotect (g->map + span, page, PROT_NONE), ==, 0);
  memcpy (g->map + span - aligned, data, size);
  return g_bytes_new_with_free_func (g->map + span - aligned, size, guarded_free, g);
}

/* Images whose ELF or fatbin headers point outside the data: the driver
 * takes no size, so GCuda must check the headers against the GBytes before
 * handing them over, or the driver reads past the end (or wherever a
 * garbage offset points). The images end at an inaccessible page, so such
 * a read is a crash, in a child. */
static void
test_malformed_headers (void)
{
  if (!gcuda_test_require_gpu ())
    return;

  if (g_test_subprocess ())
    {
      g_autoptr(GCudaProgram) cubin = compile_for_device (module_source, GCUDA_PROGRAM_KIND_CUBIN, NULL);
      GBytes *real = gcuda_program_get_image (cubin);
      gsize real_size = g_bytes_get_size (real);
      const guint8 *real_data = g_bytes_get_data (real, NULL);
      g_autoptr(GBytes) b = NULL;

      /* the whole cubin, guarded: loads and works (the guard is harmless) */
      {
        g_autoptr(GCudaModule) module = NULL;

        b = guarded_bytes (real_data, real_size);
        module = module_from_data (b, NULL);
        check_scale (module);
        g_clear_pointer (&b, g_bytes_unref);
      }

      /* cut in half: the section headers are past the end */
      b = guarded_bytes (real_data, real_size / 2);
      assert_refused (b, 0, -1);
      g_clear_pointer (&b, g_bytes_unref);

      /* only the ELF header */
      b = guarded_bytes (real_data, 64);
      assert_refused (b, 0, -1);
      g_clear_pointer (&b, g_bytes_unref);

      /* the ELF magic, then garbage */
      {
        g_autofree guint8 *garbage = random_data (4096);

        memcpy (garbage, "\177ELF", 4);
        b = guarded_bytes (garbage, 4096);
        assert_refused (b, 0, -1);
        g_clear_pointer (&b, g_bytes_unref);

        /* a real ELF header, then garbage (random section headers) */
        fill_random (garbage, 4096);
        memcpy (garbage, real_data, 64);
        b = guarded_bytes (garbage, 4096);
        assert_refused (b, 0, -1);
        g_clear_pointer (&b, g_bytes_unref);
      }

      /* a fatbin header announcing a megabyte, and 64 bytes */
      {
        guint8 fat[64] = { 0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00 };
        guint64 claimed = GUINT64_TO_LE (1 << 20);

        memcpy (fat + 8, &claimed, 8);
        b = guarded_bytes (fat, sizeof fat);
        assert_refused (b, 0, -1);
        g_clear_pointer (&b, g_bytes_unref);
      }
      printf ("malformed refused\n");
      return;
    }

  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*malformed refused*");
}

/* Replaces the first ".target sm_XX" of @ptx by @target. */
static GBytes *
retarget_ptx (GBytes     *ptx,
              const char *target)
{
  g_autofree char *text = g_strdup (g_bytes_get_data (ptx, NULL));
  char *line = strstr (text, ".target ");
  char *end;
  g_autofree char *out = NULL;

  g_assert_nonnull (line);
  end = strchr (line, '\n');
  g_assert_nonnull (end);
  *line = '\0';
  out = g_strconcat (text, ".target ", target, end, NULL);
  return g_bytes_new (out, strlen (out) + 1);
}

static void
test_ptx_too_new (void)
{
  g_autoptr(GCudaProgram) ptx = NULL;
  g_autoptr(GBytes) bad = NULL;
  g_autoptr(GCudaJitOptions) options = gcuda_jit_options_new ();
  GCudaModule *module;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  ptx = compile_for_device (module_source, GCUDA_PROGRAM_KIND_PTX, NULL);
  bad = retarget_ptx (gcuda_program_get_image (ptx), "sm_200");
  gcuda_jit_options_set_log_verbose (options, TRUE);
  module = gcuda_module_new_from_data (NULL, bad, options, &error);
  g_assert_null (module);
  g_assert_nonnull (error);
  g_assert_true (error->domain == GCUDA_DRIVER_ERROR);
  g_test_message ("too new: %s", error->message);
  /* the JIT's error log is in the message: it names the target */
  g_assert_nonnull (strstr (error->message, "sm_200"));
  g_clear_error (&error);

  /* a PTX ISA version from the future */
  g_clear_pointer (&bad, g_bytes_unref);
  {
    g_autofree char *text = g_strdup (g_bytes_get_data (gcuda_program_get_image (ptx), NULL));
    char *version = strstr (text, ".version ");
    g_autofree char *out = NULL;

    g_assert_nonnull (version);
    *version = '\0';
    out = g_strconcat (text, ".version 99.9", strchr (version + 1, '\n'), NULL);
    bad = g_bytes_new (out, strlen (out) + 1);
  }
  module = gcuda_module_new_from_data (NULL, bad, NULL, &error);
  g_assert_null (module);
  g_assert_nonnull (error);
  g_assert_true (error->domain == GCUDA_DRIVER_ERROR);
  g_test_message ("future PTX: %s", error->message);
  g_clear_error (&error);

  /* an architecture the device cannot run */
  g_clear_pointer (&bad, g_bytes_unref);
  {
    g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
    g_autoptr(GCudaProgram) other = NULL;
    g_autoptr(GCudaDevice) device = gcuda_test_get_device ();
    int major = 0, minor = 0;

    gcuda_device_get_compute_capability (device, &major, &minor);
    gcuda_compiler_set_arch (compiler, major >= 10 ? "sm_90" : "sm_100");
    other = gcuda_compiler_compile (compiler, module_source, &error);
    g_assert_no_error (error);
    module = gcuda_module_new_from_data (NULL, gcuda_program_get_image (other), NULL, &error);
    g_assert_null (module);
    gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NO_BINARY_FOR_GPU);
    g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_RUNTIME);
    g_clear_error (&error);
  }

  gcuda_test_assert_no_current_context ();
}

static void
module_ready_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      data)
{
  AsyncResult *r = data;
  GCudaModule *module;

  g_assert_null (source);
  module = gcuda_module_new_from_source_finish (result, &r->error);
  r->ok = module != NULL;
  r->source = module ? G_OBJECT (module) : NULL;
  r->thread = g_thread_self ();
  r->done = 1;
}

static void
check_scale_n (GCudaModule *module,
               float        factor)
{
  const int n = 777;
  g_autoptr(GCudaFunction) f = get_kernel (module, "scale_n");
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  g_autofree float *x = random_floats (n);
  g_autofree float *want = g_new (float, n);
  g_autofree float *got = g_new (float, n);
  g_autoptr(GCudaBuffer) dx = buffer_with (x, n * 4);

  gcuda_kernel_args_add_buffer (args, dx);
  gcuda_kernel_args_add_int32 (args, n);
  launch_ok (f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args);
  context_sync (NULL);
  for (int i = 0; i < n; i++)
    want[i] = x[i] * factor;
  download_into (dx, got, n * 4);
  assert_floats_close (got, want, n, 1e-6);
}

static void
test_source_module (void)
{
  const char *three[] = { "-DSCALE=3.0f", NULL };
  const char *five[] = { "-DSCALE=5.0f", NULL };
  g_autoptr(GCudaModule) module = NULL;
  AsyncResult r = { 0 }, r2 = { 0 };
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  module = gcuda_module_new_from_source (NULL, scale_n_source, three, &error);
  g_assert_no_error (error);
  check_scale_n (module, 3.0f);
  g_clear_object (&module);

  /* a compile error is the compiler's */
  module = gcuda_module_new_from_source (NULL, scale_n_source, NULL, &error);
  g_assert_null (module);
  gcuda_assert_error (error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);
  g_assert_nonnull (strstr (error->message, "SCALE"));
  g_clear_error (&error);

  /* asynchronously, finished in this thread's main context */
  gcuda_module_new_from_source_async (NULL, scale_n_source, five, NULL, module_ready_cb, &r);
  g_assert_cmpint (r.done, ==, 0);
  iterate_until (&r.done, 60000);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (r.thread == g_thread_self ());
  check_scale_n (GCUDA_MODULE (r.source), 5.0f);
  async_result_clear (&r);

  gcuda_module_new_from_source_async (NULL, "__global__ void broken (", NULL, NULL, module_ready_cb, &r2);
  iterate_until (&r2.done, 60000);
  g_assert_false (r2.ok);
  gcuda_assert_error (r2.error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);
  async_result_clear (&r2);

  gcuda_test_assert_no_current_context ();
}

int
main (int    argc,
      char **argv)
{
  const char *fatbinary = g_getenv ("GCUDA_TEST_FATBINARY");

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/module/nogpu/sources", test_sources);
  g_test_add_func ("/module/nogpu/jit-options-properties", test_jit_options_properties);
  gcuda_test_add_nvrtc_func ("/module/nogpu/images-valid", test_images_valid);
  gcuda_test_add_nvrtc_func ("/module/nogpu/images-damaged", test_images_damaged);
  /* meson sets it empty in a build that found no toolkit: no such case there */
  if (fatbinary == NULL || *fatbinary != '\0')
    gcuda_test_add_nvrtc_func ("/module/nogpu/images-fatbinary", test_images_fatbinary);
  g_test_add_func ("/module/cubin", test_cubin);
  g_test_add_func ("/module/ptx-jit-options", test_ptx_jit_options);
  g_test_add_func ("/module/from-file", test_from_file);
  g_test_add_func ("/module/from-program", test_from_program);
  g_test_add_func ("/module/get-function", test_get_function);
  g_test_add_func ("/module/globals", test_globals);
  g_test_add_func ("/module/garbage", test_garbage);
  g_test_add_func ("/module/malformed-headers", test_malformed_headers);
  g_test_add_func ("/module/ptx-too-new", test_ptx_too_new);
  g_test_add_func ("/module/source-module", test_source_module);

  return g_test_run ();
}
