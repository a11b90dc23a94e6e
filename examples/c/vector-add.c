/* vector-add.c: compile a kernel with NVRTC, launch it and check the result
 *
 * Build it against an installed GCuda with
 *
 *   cc vector-add.c -o vector-add $(pkg-config --cflags --libs gcuda-1)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gcuda.h>

#define N 1000000
#define BLOCK 256

static const char kernel_source[] =
  "__global__ void add (float *c, const float *a, const float *b, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    c[i] = a[i] + b[i];\n"
  "}\n";

static gboolean
vector_add (GError **error)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaCompiler) compiler = NULL;
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaFunction) add = NULL;
  g_autoptr(GCudaBuffer) a_gpu = NULL;
  g_autoptr(GCudaBuffer) b_gpu = NULL;
  g_autoptr(GCudaBuffer) c_gpu = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autoptr(GBytes) result = NULL;
  g_autofree float *a = g_new (float, N);
  g_autofree float *b = g_new (float, N);
  const float *c;
  const gsize size = N * sizeof (float);
  double max_error = 0.0;
  guint grid = (N + BLOCK - 1) / BLOCK;

  /* The primary context of the device chosen by CUDA_DEVICE,
   * ~/.cuda_device or the first device that works. */
  context = gcuda_context_get_default (error);
  if (context == NULL)
    return FALSE;

  /* cubin for this context's device; the result is cached on disk, so the
   * next run does not even load NVRTC. */
  compiler = gcuda_compiler_new (context);
  program = gcuda_compiler_compile (compiler, kernel_source, error);
  if (program == NULL)
    return FALSE;
  module = gcuda_module_new_from_program (context, program, error);
  if (module == NULL)
    return FALSE;
  add = gcuda_module_get_function (module, "add", error);
  if (add == NULL)
    return FALSE;

  for (guint i = 0; i < N; i++)
    {
      a[i] = (float) g_random_double ();
      b[i] = (float) g_random_double ();
    }

  a_gpu = gcuda_buffer_new (context, size, error);
  b_gpu = a_gpu ? gcuda_buffer_new (context, size, error) : NULL;
  c_gpu = b_gpu ? gcuda_buffer_new (context, size, error) : NULL;
  if (c_gpu == NULL)
    return FALSE;
  if (!gcuda_buffer_upload (a_gpu, 0, (const guint8 *) a, size, error) ||
      !gcuda_buffer_upload (b_gpu, 0, (const guint8 *) b, size, error))
    return FALSE;

  /* In the order of the kernel's parameters; the launch checks them
   * against the kernel's parameter list. */
  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, c_gpu);
  gcuda_kernel_args_add_buffer (args, a_gpu);
  gcuda_kernel_args_add_buffer (args, b_gpu);
  gcuda_kernel_args_add_int32 (args, N);
  if (!gcuda_function_launch (add, grid, 1, 1, BLOCK, 1, 1, 0, NULL, args, error))
    return FALSE;

  /* A synchronous download waits for the kernel (same, legacy stream). */
  result = gcuda_buffer_download (c_gpu, 0, size, error);
  if (result == NULL)
    return FALSE;
  if (g_bytes_get_size (result) != size)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_FAILED,
                   "downloaded %" G_GSIZE_FORMAT " bytes, expected %" G_GSIZE_FORMAT,
                   g_bytes_get_size (result), size);
      return FALSE;
    }
  c = g_bytes_get_data (result, NULL);

  /* IEEE single-precision addition is exact to the last bit on both sides. */
  for (guint i = 0; i < N; i++)
    {
      float expected = a[i] + b[i];
      double err = fabs ((double) c[i] - (double) expected);

      if (!(err <= max_error))  /* also catches NaN */
        max_error = isnan (err) ? INFINITY : err;
    }
  if (max_error != 0.0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_FAILED,
                   "wrong result: max error %g (c[0] = %g, expected %g)",
                   max_error, c[0], a[0] + b[0]);
      return FALSE;
    }

  printf ("vector-add: %d elements OK (max error %g)\n", N, max_error);
  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;

  if (!vector_add (&error))
    {
      fprintf (stderr, "vector-add: %s\n", error->message);
      return EXIT_FAILURE;
    }
  return EXIT_SUCCESS;
}
