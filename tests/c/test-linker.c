/* test-linker.c: GCudaLinker (PyCUDA's DynamicModule) on a real GPU:
 * dynamic parallelism with cudadevrt, two sources linked with device
 * printf, files, and what the linker refuses
 *
 * /linker/sources also runs without a GPU (suite nogpu): it compiles every
 * kernel of this file for sm_90, relocatable as the linker does.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "gcuda-test-async.h"
#include "gcuda-test-kernels.h"
#include "gcuda-test-memory.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ kernels */

/* PyCUDA's test_dynamic_parallelism, in the shape of its example: each
 * parent block launches a child grid filling its part of out. */
static const char dynamic_source[] =
  "__global__ void child_k (unsigned int *out, unsigned int base, unsigned int salt)\n"
  "{\n"
  "  unsigned int i = base + threadIdx.x;\n"
  "  out[i] = i * 3u + salt;\n"
  "}\n"
  "\n"
  "__global__ void parent_k (unsigned int *out, unsigned int per_block, unsigned int salt)\n"
  "{\n"
  "  if (threadIdx.x == 0)\n"
  "    child_k<<<1, per_block>>> (out, blockIdx.x * per_block, salt);\n"
  "}\n";

/* Two sources: one calls a __device__ function the other defines, and
 * prints from the device (only where compiled with -DPRINT: device printf
 * goes to the process's stdout, which in the test process is TAP). */
static const char user_source[] =
  "extern __device__ int helper_h2 (int x);\n"
  "\n"
  "__global__ void use_helper (int *out)\n"
  "{\n"
  "  int v = helper_h2 ((int) threadIdx.x);\n"
  "  out[threadIdx.x] = v;\n"
  "#ifdef PRINT\n"
  "  printf (\"gcuda linker thread %d value %d\\n\", (int) threadIdx.x, v);\n"
  "#endif\n"
  "}\n";

static const char helper_source[] =
  "__device__ int helper_h2 (int x)\n"
  "{\n"
  "  return x * 7 + 1;\n"
  "}\n";

static const TestKernelSource sources[] = {
  { "dynamic_source", dynamic_source, FALSE, TRUE, { NULL } },
  { "user_source", user_source, FALSE, TRUE, { NULL } },
  { "helper_source", helper_source, FALSE, TRUE, { NULL } },
  { NULL }
};

/* ------------------------------------------------------------ helpers */

static GCudaLinker *
new_linker (GCudaJitOptions *options)
{
  GError *error = NULL;
  GCudaLinker *linker = gcuda_linker_new (NULL, options, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_LINKER (linker));
  return linker;
}

static void
add_source_ok (GCudaLinker   *linker,
               GCudaCompiler *compiler,
               const char    *source)
{
  GError *error = NULL;

  g_assert_true (gcuda_linker_add_source (linker, compiler, source, &error));
  g_assert_no_error (error);
}

static GCudaModule *
complete_ok (GCudaLinker *linker)
{
  GError *error = NULL;
  GCudaModule *module = gcuda_linker_complete (linker, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_MODULE (module));
  return module;
}

/* Relocatable PTX of @source for the device, as a program. */
static GCudaProgram *
relocatable_ptx (const char *source)
{
  const char *options[] = { "-rdc=true", NULL };

  return compile_for_device (source, GCUDA_PROGRAM_KIND_PTX, options);
}

/* Runs use_helper of @module with 8 threads and checks what it wrote. */
static void
check_use_helper (GCudaModule *module)
{
  g_autoptr(GCudaFunction) f = get_kernel (module, "use_helper");
  g_autoptr(GCudaBuffer) out = new_buffer (NULL, 8 * 4);
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  guint32 got[8], want[8];

  poison (out, 0xd1);
  gcuda_kernel_args_add_buffer (args, out);
  launch_ok (f, 1, 1, 1, 8, 1, 1, 0, NULL, args);
  context_sync (NULL);
  for (guint i = 0; i < 8; i++)
    want[i] = i * 7 + 1;
  download_into (out, got, sizeof got);
  assert_u32_equal (got, want, 8);
}

/* ------------------------------------------------------------ tests */

static void
test_sources (void)
{
  test_kernel_sources_compile (sources);
}

static void
test_dynamic_parallelism (void)
{
  const guint blocks = 6, per_block = 64, n = blocks * per_block;
  g_autoptr(GCudaLinker) linker = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaFunction) parent = NULL;
  g_autoptr(GCudaBuffer) out = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  g_autoptr(GCudaContext) context = NULL;
  g_autofree guint32 *got = g_new (guint32, n);
  g_autofree guint32 *want = g_new (guint32, n);
  guint32 salt = g_random_int_range (0, 1 << 30);
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  linker = new_linker (NULL);
  context = get_default ();
  g_assert_true (gcuda_linker_get_context (linker) == context);
  add_source_ok (linker, NULL, dynamic_source);
  g_assert_true (gcuda_linker_add_library (linker, "cudadevrt", &error));
  g_assert_no_error (error);
  module = complete_ok (linker);
  g_assert_true (gcuda_module_get_context (module) == context);

  parent = get_kernel (module, "parent_k");
  out = new_buffer (NULL, n * 4);
  poison (out, 0xee);
  gcuda_kernel_args_add_buffer (args, out);
  gcuda_kernel_args_add_uint32 (args, per_block);
  gcuda_kernel_args_add_uint32 (args, salt);
  launch_ok (parent, blocks, 1, 1, 32, 1, 1, 0, NULL, args);
  context_sync (NULL);
  for (guint i = 0; i < n; i++)
    want[i] = i * 3u + salt;
  download_into (out, got, n * 4);
  assert_u32_equal (got, want, n);

  /* the child kernel is a kernel of the module too */
  {
    g_autoptr(GCudaFunction) child = get_kernel (module, "child_k");

    g_assert_cmpuint (gcuda_function_get_param_count (child), ==, 3);
  }

  gcuda_test_assert_no_current_context ();
}

/* Without cudadevrt the device launch's runtime calls stay unresolved. */
static void
test_dynamic_parallelism_without_cudadevrt (void)
{
  g_autoptr(GCudaLinker) linker = NULL;
  GCudaModule *module;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  linker = new_linker (NULL);
  add_source_ok (linker, NULL, dynamic_source);
  module = gcuda_linker_complete (linker, &error);
  g_assert_null (module);
  g_assert_nonnull (error);
  g_assert_true (error->domain == GCUDA_DRIVER_ERROR);
  g_test_message ("without cudadevrt: %s", error->message);
  g_assert_cmpstr (gcuda_linker_get_error_log (linker), !=, "");
  g_assert_nonnull (strstr (error->message, gcuda_linker_get_error_log (linker)));
  g_clear_error (&error);

  gcuda_test_assert_no_current_context ();
}

/* Two sources, one calling the other's function, with device printf: the
 * printed lines are checked in a child's stdout. */
static void
test_two_sources_printf (void)
{
  if (!gcuda_test_require_gpu ())
    return;

  if (g_test_subprocess ())
    {
      g_autoptr(GCudaLinker) linker = new_linker (NULL);
      g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
      g_autoptr(GCudaProgram) helper = relocatable_ptx (helper_source);
      g_autoptr(GCudaModule) module = NULL;
      GError *error = NULL;

      /* one through the linker's compile, one as a program of the caller */
      gcuda_compiler_set_options (compiler, (const char *[]) { "-DPRINT", NULL });
      add_source_ok (linker, compiler, user_source);
      g_assert_true (gcuda_linker_add_program (linker, helper, &error));
      g_assert_no_error (error);
      module = complete_ok (linker);
      check_use_helper (module);
      fflush (stdout);
      printf ("linked\n");
      return;
    }

  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*gcuda linker thread 0 value 1\n*");
  g_test_trap_assert_stdout ("*gcuda linker thread 3 value 22\n*");
  g_test_trap_assert_stdout ("*gcuda linker thread 7 value 50\n*");
  g_test_trap_assert_stdout ("*linked*");
}

static void
test_add_data_and_files (void)
{
  g_autoptr(GCudaProgram) user = NULL, helper = NULL;
  g_autofree char *dir = NULL, *helper_path = NULL, *user_path = NULL, *odd_path = NULL;
  GError *error = NULL;
  gsize len;

  if (!gcuda_test_require_gpu ())
    return;

  user = relocatable_ptx (user_source);
  helper = relocatable_ptx (helper_source);
  dir = g_dir_make_tmp ("gcuda-test-linker-XXXXXX", &error);
  g_assert_no_error (error);
  helper_path = g_build_filename (dir, "helper.ptx", NULL);
  user_path = g_build_filename (dir, "user.ptx", NULL);
  odd_path = g_build_filename (dir, "helper.code", NULL);
  /* as text files, without the NUL */
  len = strlen (g_bytes_get_data (gcuda_program_get_image (helper), NULL));
  g_file_set_contents (helper_path, g_bytes_get_data (gcuda_program_get_image (helper), NULL), len, &error);
  g_assert_no_error (error);
  g_file_set_contents (odd_path, g_bytes_get_data (gcuda_program_get_image (helper), NULL), len, &error);
  g_assert_no_error (error);
  len = strlen (g_bytes_get_data (gcuda_program_get_image (user), NULL));
  g_file_set_contents (user_path, g_bytes_get_data (gcuda_program_get_image (user), NULL), len, &error);
  g_assert_no_error (error);

  /* data (type guessed, and named) + a file (type from its name) */
  {
    g_autoptr(GCudaLinker) linker = new_linker (NULL);
    g_autoptr(GCudaModule) module = NULL;

    g_assert_true (gcuda_linker_add_data (linker, GCUDA_LINK_INPUT_TYPE_AUTO, gcuda_program_get_image (user),
                                          "user", &error));
    g_assert_no_error (error);
    g_assert_true (gcuda_linker_add_file (linker, GCUDA_LINK_INPUT_TYPE_AUTO, helper_path, &error));
    g_assert_no_error (error);
    module = complete_ok (linker);
    check_use_helper (module);
  }

  /* explicit types; a file whose name says nothing (its content does); PTX
   * data without its NUL */
  {
    g_autoptr(GCudaLinker) linker = new_linker (NULL);
    g_autoptr(GCudaModule) module = NULL;
    g_autoptr(GBytes) no_nul = g_bytes_new (g_bytes_get_data (gcuda_program_get_image (user), NULL),
                                            strlen (g_bytes_get_data (gcuda_program_get_image (user), NULL)));

    g_assert_true (gcuda_linker_add_data (linker, GCUDA_LINK_INPUT_TYPE_PTX, no_nul, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (gcuda_linker_add_file (linker, GCUDA_LINK_INPUT_TYPE_AUTO, odd_path, &error));
    g_assert_no_error (error);
    module = complete_ok (linker);
    check_use_helper (module);
  }

  /* both as files, typed */
  {
    g_autoptr(GCudaLinker) linker = new_linker (NULL);
    g_autoptr(GCudaModule) module = NULL;

    g_assert_true (gcuda_linker_add_file (linker, GCUDA_LINK_INPUT_TYPE_PTX, user_path, &error));
    g_assert_no_error (error);
    g_assert_true (gcuda_linker_add_file (linker, GCUDA_LINK_INPUT_TYPE_PTX, helper_path, &error));
    g_assert_no_error (error);
    module = complete_ok (linker);
    check_use_helper (module);
  }

  g_unlink (helper_path);
  g_unlink (user_path);
  g_unlink (odd_path);
  g_rmdir (dir);
  gcuda_test_assert_no_current_context ();
}

/* JIT options and logs */
static void
test_logs (void)
{
  g_autoptr(GCudaJitOptions) options = gcuda_jit_options_new ();
  g_autoptr(GCudaLinker) linker = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaContext) prop_context = NULL;
  g_autofree char *info = NULL, *err = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  gcuda_jit_options_set_log_verbose (options, TRUE);
  linker = new_linker (options);
  add_source_ok (linker, NULL, user_source);
  add_source_ok (linker, NULL, helper_source);
  module = complete_ok (linker);
  g_object_get (linker, "info-log", &info, "error-log", &err, "context", &prop_context, NULL);
  g_test_message ("linker info log: %s", info);
  g_assert_nonnull (info);
  g_assert_cmpstr (info, !=, "");
  g_assert_nonnull (err);
  g_assert_true (prop_context == gcuda_linker_get_context (linker));
  g_assert_cmpstr (gcuda_module_get_info_log (module), ==, info);
  check_use_helper (module);

  gcuda_test_assert_no_current_context ();
}

static void
test_bad_input (void)
{
  g_autoptr(GCudaLinker) linker = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autofree guint8 *garbage = random_data (1000);
  g_autoptr(GBytes) garbage_bytes = NULL;
  g_autoptr(GBytes) empty = g_bytes_new (NULL, 0);
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  linker = new_linker (NULL);

  /* an unknown library: named in the error */
  g_assert_false (gcuda_linker_add_library (linker, "nosuchlib_h2", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "nosuchlib_h2"));
  g_clear_error (&error);
  g_assert_false (gcuda_linker_add_library (linker, "/usr/lib/libfoo.a", &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_linker_add_library (linker, "", &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* garbage: not recognized, or refused by the driver when declared */
  garbage[0] = 'G';
  garbage_bytes = g_bytes_new (garbage, 1000);
  g_assert_false (gcuda_linker_add_data (linker, GCUDA_LINK_INPUT_TYPE_AUTO, garbage_bytes, "garbage", &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "garbage"));
  g_clear_error (&error);
  /* declared a cubin: the driver refuses it when added or at the latest
   * when linking */
  {
    g_autoptr(GCudaLinker) other = new_linker (NULL);

    if (gcuda_linker_add_data (other, GCUDA_LINK_INPUT_TYPE_CUBIN, garbage_bytes, "garbage", &error))
      {
        g_assert_no_error (error);
        module = gcuda_linker_complete (other, &error);
        g_assert_null (module);
      }
    g_assert_nonnull (error);
    g_assert_true (error->domain == GCUDA_DRIVER_ERROR);
    g_test_message ("garbage cubin: %s", error->message);
    g_clear_error (&error);
  }
  g_assert_false (gcuda_linker_add_data (linker, GCUDA_LINK_INPUT_TYPE_AUTO, empty, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_linker_add_data (linker, 17, garbage_bytes, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* files that are not there */
  g_assert_false (gcuda_linker_add_file (linker, GCUDA_LINK_INPUT_TYPE_PTX, "/nonexistent/h2.ptx", &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);

  /* a source that does not compile */
  g_assert_false (gcuda_linker_add_source (linker, NULL, "__global__ void broken (", &error));
  gcuda_assert_error_clear (&error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);

  /* nothing added yet */
  module = gcuda_linker_complete (linker, &error);
  g_assert_null (module);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_test_assert_no_current_context ();
}

/* An extern nobody defines: complete fails with the linker's log, which
 * names it. */
static void
test_unresolved (void)
{
  g_autoptr(GCudaLinker) linker = NULL;
  GCudaModule *module;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  linker = new_linker (NULL);
  add_source_ok (linker, NULL, user_source);
  module = gcuda_linker_complete (linker, &error);
  g_assert_null (module);
  g_assert_nonnull (error);
  g_assert_true (error->domain == GCUDA_DRIVER_ERROR);
  g_test_message ("unresolved: %s", error->message);
  g_assert_nonnull (strstr (error->message, "helper_h2"));
  g_assert_nonnull (strstr (gcuda_linker_get_error_log (linker), "helper_h2"));
  g_clear_error (&error);

  /* a completed linker takes nothing more */
  g_assert_false (gcuda_linker_add_source (linker, NULL, helper_source, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  module = gcuda_linker_complete (linker, &error);
  g_assert_null (module);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* nor after a success */
  {
    g_autoptr(GCudaLinker) good = new_linker (NULL);
    g_autoptr(GCudaModule) linked = NULL;

    add_source_ok (good, NULL, user_source);
    add_source_ok (good, NULL, helper_source);
    linked = complete_ok (good);
    g_assert_false (gcuda_linker_add_library (good, "cudadevrt", &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    module = gcuda_linker_complete (good, &error);
    g_assert_null (module);
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    check_use_helper (linked);
  }

  gcuda_test_assert_no_current_context ();
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/linker/sources", test_sources);
  g_test_add_func ("/linker/dynamic-parallelism", test_dynamic_parallelism);
  g_test_add_func ("/linker/dynamic-parallelism-without-cudadevrt", test_dynamic_parallelism_without_cudadevrt);
  g_test_add_func ("/linker/two-sources-printf", test_two_sources_printf);
  g_test_add_func ("/linker/add-data-and-files", test_add_data_and_files);
  g_test_add_func ("/linker/logs", test_logs);
  g_test_add_func ("/linker/bad-input", test_bad_input);
  g_test_add_func ("/linker/unresolved", test_unresolved);

  return g_test_run ();
}
