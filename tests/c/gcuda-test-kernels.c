/* gcuda-test-kernels.c: helpers shared by GCuda's kernel tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <string.h>

#include "gcuda-test-kernels.h"
#include "gcuda-test-memory.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ sources */

static void
compile_source (const TestKernelSource *s,
                GCudaProgramKind        kind)
{
  g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GPtrArray) options = g_ptr_array_new ();
  GError *error = NULL;

  for (guint i = 0; s->options[i] != NULL; i++)
    g_ptr_array_add (options, (gpointer) s->options[i]);
  if (s->relocatable)
    g_ptr_array_add (options, "--relocatable-device-code=true");
  g_ptr_array_add (options, NULL);

  gcuda_compiler_set_arch (compiler, "sm_90");
  gcuda_compiler_set_cache_dir (compiler, "");
  gcuda_compiler_set_no_extern_c (compiler, s->no_extern_c);
  gcuda_compiler_set_options (compiler, (const char * const *) options->pdata);
  gcuda_compiler_set_target (compiler, kind);
  program = gcuda_compiler_compile (compiler, s->source, &error);
  if (program == NULL)
    g_error ("the kernel source “%s” does not compile (%s): %s", s->name,
             kind == GCUDA_PROGRAM_KIND_PTX ? "PTX" : "cubin", error->message);
  g_assert_cmpuint (g_bytes_get_size (gcuda_program_get_image (program)), >, 0);
}

void
test_kernel_sources_compile (const TestKernelSource *sources)
{
  guint n = 0;

  if (!gcuda_test_require_nvrtc ())
    return;

  for (const TestKernelSource *s = sources; s->name != NULL; s++, n++)
    {
      compile_source (s, GCUDA_PROGRAM_KIND_PTX);
      if (!s->relocatable)
        compile_source (s, GCUDA_PROGRAM_KIND_CUBIN);
    }
  g_assert_cmpuint (n, >, 0);
  g_test_message ("%u kernel sources compile for sm_90", n);
}

/* ------------------------------------------------------------ kernels */

GCudaProgram *
compile_for_device (const char         *source,
                    GCudaProgramKind    kind,
                    const char * const *options)
{
  g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
  GError *error = NULL;
  GCudaProgram *program;

  gcuda_compiler_set_options (compiler, options);
  gcuda_compiler_set_target (compiler, kind);
  program = gcuda_compiler_compile (compiler, source, &error);
  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_PROGRAM (program));
  return program;
}

GCudaModule *
load_module (GCudaContext       *context,
             const char         *source,
             const char * const *options)
{
  g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (context);
  g_autoptr(GCudaProgram) program = NULL;
  GError *error = NULL;
  GCudaModule *module;

  gcuda_compiler_set_options (compiler, options);
  program = gcuda_compiler_compile (compiler, source, &error);
  g_assert_no_error (error);
  module = gcuda_module_new_from_program (context, program, &error);
  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_MODULE (module));
  return module;
}

GCudaFunction *
get_kernel (GCudaModule *module,
            const char  *name)
{
  GError *error = NULL;
  GCudaFunction *function = gcuda_module_get_function (module, name, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_FUNCTION (function));
  g_assert_cmpstr (gcuda_function_get_name (function), ==, name);
  return function;
}

void
launch_ok (GCudaFunction   *function,
           guint            grid_x,
           guint            grid_y,
           guint            grid_z,
           guint            block_x,
           guint            block_y,
           guint            block_z,
           guint            shared_bytes,
           GCudaStream     *stream,
           GCudaKernelArgs *args)
{
  GError *error = NULL;
  gboolean ok = gcuda_function_launch (function, grid_x, grid_y, grid_z, block_x, block_y, block_z,
                                       shared_bytes, stream, args, &error);

  g_assert_no_error (error);
  g_assert_true (ok);
}

void
context_sync (GCudaContext *context)
{
  g_autoptr(GCudaContext) ctx = NULL;
  GError *error = NULL;

  if (context == NULL)
    {
      ctx = gcuda_context_get_default (&error);
      g_assert_no_error (error);
      context = ctx;
    }
  g_assert_true (gcuda_context_synchronize (context, &error));
  g_assert_no_error (error);
}

/* ------------------------------------------------------------ data */

GCudaBuffer *
buffer_with (gconstpointer data,
             gsize         size)
{
  GCudaBuffer *buffer = new_buffer (NULL, size);

  upload_ok (buffer, 0, data, size);
  return buffer;
}

void
download_into (GCudaBuffer *buffer,
               gpointer     dest,
               gsize        size)
{
  GError *error = NULL;

  g_assert_true (gcuda_buffer_download_to_address (buffer, 0, (guint64) (guintptr) dest, size, &error));
  g_assert_no_error (error);
}

float *
random_floats (gsize n)
{
  float *values = g_new (float, MAX (n, 1));

  for (gsize i = 0; i < n; i++)
    values[i] = (float) g_random_double_range (-100.0, 100.0);
  return values;
}

guint32 *
random_u32 (gsize n)
{
  guint32 *values = g_new (guint32, MAX (n, 1));

  fill_random (values, n * sizeof (guint32));
  return values;
}

void
assert_floats_close_at (const char  *file,
                        int          line,
                        const float *got,
                        const float *want,
                        gsize        n,
                        double       tolerance)
{
  for (gsize i = 0; i < n; i++)
    {
      double scale = MAX (1.0, fabs ((double) want[i]));

      if (!(fabs ((double) got[i] - (double) want[i]) <= tolerance * scale))
        g_error ("%s:%d: element %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " is %.9g, expected %.9g",
                 file, line, i, n, got[i], want[i]);
    }
}

void
assert_u32_equal_at (const char    *file,
                     int            line,
                     const guint32 *got,
                     const guint32 *want,
                     gsize          n)
{
  for (gsize i = 0; i < n; i++)
    if (got[i] != want[i])
      g_error ("%s:%d: element %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " is %u (0x%08x), expected %u (0x%08x)",
               file, line, i, n, got[i], got[i], want[i], want[i]);
}
