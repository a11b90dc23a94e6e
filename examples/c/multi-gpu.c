/* multi-gpu.c: split a vector add over every GPU present, each GPU on its
 * own stream, gather the parts and check the result
 *
 * Build it against an installed GCuda with
 *
 *   cc multi-gpu.c -o multi-gpu $(pkg-config --cflags --libs gcuda-1)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gcuda.h>

#define N (1 << 24)
#define BLOCK 256

static const char kernel_source[] =
  "__global__ void add (float *c, const float *a, const float *b, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    c[i] = a[i] + b[i];\n"
  "}\n";

/* What one GPU holds while its part runs. */
typedef struct
{
  GCudaContext *context;
  GCudaStream *stream;
  GCudaFunction *add;
  GCudaBuffer *a, *b, *c;
  GCudaKernelArgs *args;
  guint first, count;
} Part;

static void
part_clear (Part *part)
{
  g_clear_object (&part->args);
  g_clear_object (&part->c);
  g_clear_object (&part->b);
  g_clear_object (&part->a);
  g_clear_object (&part->add);
  g_clear_object (&part->stream);
  g_clear_object (&part->context);
}

/* Compiles the kernel for the part's device and queues its uploads, the
 * launch and the download on the part's stream; nothing waits here. */
static gboolean
part_queue (Part        *part,
            int          ordinal,
            guint64      a_host,
            guint64      b_host,
            guint64      c_host,
            GError     **error)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaCompiler) compiler = NULL;
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GCudaModule) module = NULL;
  const guint64 offset = (guint64) part->first * sizeof (float);
  const guint64 size = (guint64) part->count * sizeof (float);

  device = gcuda_device_get (ordinal, error);
  if (device == NULL)
    return FALSE;
  /* The device's primary context: the one PyTorch and CuPy use too. */
  part->context = gcuda_device_get_primary_context (device, error);
  if (part->context == NULL)
    return FALSE;

  /* A cubin for this device (GPUs of a host may differ), cached on disk. */
  compiler = gcuda_compiler_new (part->context);
  program = gcuda_compiler_compile (compiler, kernel_source, error);
  if (program == NULL)
    return FALSE;
  module = gcuda_module_new_from_program (part->context, program, error);
  if (module == NULL)
    return FALSE;
  part->add = gcuda_module_get_function (module, "add", error);
  if (part->add == NULL)
    return FALSE;

  part->stream = gcuda_stream_new (part->context, GCUDA_STREAM_FLAGS_NON_BLOCKING, 0, error);
  if (part->stream == NULL)
    return FALSE;
  part->a = gcuda_buffer_new (part->context, size, error);
  part->b = part->a ? gcuda_buffer_new (part->context, size, error) : NULL;
  part->c = part->b ? gcuda_buffer_new (part->context, size, error) : NULL;
  if (part->c == NULL)
    return FALSE;

  /* Page-locked host memory: these copies return at once and run on the
   * stream, so every GPU copies and computes at the same time. */
  if (!gcuda_buffer_upload_from_address_on_stream (part->a, 0, a_host + offset, size,
                                                   part->stream, error) ||
      !gcuda_buffer_upload_from_address_on_stream (part->b, 0, b_host + offset, size,
                                                   part->stream, error))
    return FALSE;
  part->args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (part->args, part->c);
  gcuda_kernel_args_add_buffer (part->args, part->a);
  gcuda_kernel_args_add_buffer (part->args, part->b);
  gcuda_kernel_args_add_int32 (part->args, (gint32) part->count);
  if (!gcuda_function_launch (part->add, (part->count + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1,
                              0, part->stream, part->args, error))
    return FALSE;
  return gcuda_buffer_download_to_address_on_stream (part->c, 0, c_host + offset, size,
                                                     part->stream, error);
}

static gboolean
multi_gpu (GError **error)
{
  g_autoptr(GCudaDevice) device0 = NULL;
  g_autoptr(GCudaContext) context0 = NULL;
  g_autoptr(GCudaHostBuffer) a_host = NULL;
  g_autoptr(GCudaHostBuffer) b_host = NULL;
  g_autoptr(GCudaHostBuffer) c_host = NULL;
  g_autofree Part *parts = NULL;
  const guint64 size = (guint64) N * sizeof (float);
  float *a, *b, *c;
  double max_error = 0.0;
  gboolean ok = TRUE;
  int n_devices;

  n_devices = gcuda_device_get_count (error);
  if (n_devices < 0)
    return FALSE;
  if (n_devices == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_FAILED,
                           "No CUDA device found: check the NVIDIA driver installation");
      return FALSE;
    }

  /* PORTABLE: page-locked for the contexts of every device, not only the
   * one allocating it. */
  device0 = gcuda_device_get (0, error);
  context0 = device0 ? gcuda_device_get_primary_context (device0, error) : NULL;
  if (context0 == NULL)
    return FALSE;
  a_host = gcuda_host_buffer_new_pagelocked (context0, size, GCUDA_HOST_ALLOC_FLAGS_PORTABLE, error);
  b_host = a_host ? gcuda_host_buffer_new_pagelocked (context0, size, GCUDA_HOST_ALLOC_FLAGS_PORTABLE, error) : NULL;
  c_host = b_host ? gcuda_host_buffer_new_pagelocked (context0, size, GCUDA_HOST_ALLOC_FLAGS_PORTABLE, error) : NULL;
  if (c_host == NULL)
    return FALSE;
  a = GSIZE_TO_POINTER (gcuda_host_buffer_get_address (a_host));
  b = GSIZE_TO_POINTER (gcuda_host_buffer_get_address (b_host));
  c = GSIZE_TO_POINTER (gcuda_host_buffer_get_address (c_host));
  for (guint i = 0; i < N; i++)
    {
      a[i] = (float) g_random_double ();
      b[i] = (float) g_random_double ();
      c[i] = NAN;
    }

  /* Queue every GPU's part first, then wait for them all. */
  parts = g_new0 (Part, n_devices);
  for (int d = 0; d < n_devices && ok; d++)
    {
      parts[d].first = (guint) ((guint64) N * d / n_devices);
      parts[d].count = (guint) ((guint64) N * (d + 1) / n_devices) - parts[d].first;
      ok = part_queue (&parts[d], d, gcuda_host_buffer_get_address (a_host),
                       gcuda_host_buffer_get_address (b_host),
                       gcuda_host_buffer_get_address (c_host), error);
    }
  /* Even after an error: the queued copies still use the host memory. */
  for (int d = 0; d < n_devices; d++)
    {
      if (parts[d].stream != NULL &&
          !gcuda_stream_synchronize (parts[d].stream, ok ? error : NULL))
        ok = FALSE;
      part_clear (&parts[d]);
    }
  if (!ok)
    return FALSE;

  /* IEEE single-precision addition is exact to the last bit on both sides. */
  for (guint i = 0; i < N; i++)
    {
      float expected = a[i] + b[i];
      double err = fabs ((double) c[i] - (double) expected);

      if (!(err <= max_error))  /* also catches NaN: a part never written */
        max_error = isnan (err) ? INFINITY : err;
    }
  if (max_error != 0.0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_FAILED,
                   "wrong result: max error %g", max_error);
      return FALSE;
    }

  printf ("multi-gpu: %d elements on %d GPU%s OK (max error %g)\n",
          N, n_devices, n_devices == 1 ? "" : "s", max_error);
  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;

  if (!multi_gpu (&error))
    {
      fprintf (stderr, "multi-gpu: %s\n", error->message);
      return EXIT_FAILURE;
    }
  return EXIT_SUCCESS;
}
