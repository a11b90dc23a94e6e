/* test-module-crafted.c: crafted module images against the real driver
 *
 * The images of gcuda-test-images.c, made for the device's architecture:
 * every valid one (cubin, PTX, fatbins uncompressed, LZ4 and Zstandard,
 * with names and JIT options) loads through gcuda_module_new_from_data()
 * and its kernel runs; every damaged one (one per check of the image
 * checker, the audit's findings among them) is refused by GCuda with
 * GCUDA_ERROR_INVALID_ARGUMENT, which only the checker raises there,
 * before the driver is called. Every image lies right before an
 * inaccessible page, so a driver read past its end is a crash.
 *
 * Fast (a few seconds), so that it runs under compute-sanitizer:
 *   compute-sanitizer --tool memcheck --leak-check full build/tests/c/test-module-crafted
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gcuda-test-images.h"
#include "gcuda-test-kernels.h"
#include "gcuda-test-util.h"

static const char source[] =
  "__constant__ int bias;\n"
  "__device__ int calls;\n"
  "__global__ void fill (int *out, int value)\n"
  "{\n"
  "  out[threadIdx.x] = value + bias + (int) threadIdx.x;\n"
  "  if (threadIdx.x == 0)\n"
  "    atomicAdd (&calls, 1);\n"
  "}\n";

/* ------------------------------------------------------------ guarded images */

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

/* A copy of @image ending (within the 8-byte alignment of its start) right
 * before an inaccessible page. */
static GBytes *
guarded (GBytes *image)
{
  gsize size = g_bytes_get_size (image);
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  gsize aligned = (size + 7) & ~(gsize) 7;
  gsize span = (aligned + page - 1) / page * page;
  Guarded *g = g_new0 (Guarded, 1);

  g->length = span + page;
  g->map = mmap (NULL, g->length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert_true (g->map != MAP_FAILED);
  g_assert_cmpint (mprotect (g->map + span, page, PROT_NONE), ==, 0);
  memcpy (g->map + span - aligned, g_bytes_get_data (image, NULL), size);
  return g_bytes_new_with_free_func (g->map + span - aligned, size, guarded_free, g);
}

/* ------------------------------------------------------------ helpers */

static guint
device_arch (void)
{
  g_autoptr(GCudaDevice) device = gcuda_test_get_device ();
  int major = 0, minor = 0;

  gcuda_device_get_compute_capability (device, &major, &minor);
  return major * 10 + minor;
}

/* Runs fill from @module and checks what it wrote. */
static void
check_fill (GCudaModule *module,
            const char  *what)
{
  g_autoptr(GCudaFunction) fill = get_kernel (module, "fill");
  g_autoptr(GCudaBuffer) bias = NULL, calls = NULL, out = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  gint32 b = g_random_int_range (-1000, 1000), value = g_random_int_range (-1000, 1000), zero = 0, n = 0;
  gint32 got[64];
  GError *error = NULL;

  bias = gcuda_module_get_global (module, "bias", &error);
  g_assert_no_error (error);
  calls = gcuda_module_get_global (module, "calls", &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_upload (bias, 0, (const guint8 *) &b, 4, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_upload (calls, 0, (const guint8 *) &zero, 4, &error));
  g_assert_no_error (error);
  out = gcuda_buffer_new (NULL, sizeof got, &error);
  g_assert_no_error (error);

  gcuda_kernel_args_add_buffer (args, out);
  gcuda_kernel_args_add_int32 (args, value);
  launch_ok (fill, 1, 1, 1, 64, 1, 1, 0, NULL, args);
  context_sync (NULL);
  download_into (out, got, sizeof got);
  download_into (calls, &n, 4);
  for (int i = 0; i < 64; i++)
    if (got[i] != value + b + i)
      g_error ("%s: fill wrote %d at %d, not %d", what, got[i], i, value + b + i);
  g_assert_cmpint (n, ==, 1);
}

/* ------------------------------------------------------------ tests */

static void
test_valid (void)
{
  TestImages images;
  guint n = 0;

  if (!gcuda_test_require_gpu ())
    return;

  test_images_init (&images, source, device_arch ());
  for (const TestCraftedImage *c = test_valid_images; c->name != NULL; c++, n++)
    {
      g_autoptr(GBytes) made = c->make (&images);
      g_autoptr(GBytes) image = guarded (made);
      g_autoptr(GCudaModule) module = NULL;
      GError *error = NULL;

      module = gcuda_module_new_from_data (NULL, image, NULL, &error);
      if (module == NULL)
        g_error ("%s (%" G_GSIZE_FORMAT " bytes) did not load: %s", c->name, g_bytes_get_size (image),
                 error->message);
      check_fill (module, c->name);
      g_test_message ("%s: loaded and ran", c->name);
    }
  g_test_message ("%u valid images loaded and ran on sm_%u", n, images.arch);
  test_images_clear (&images);
  gcuda_test_assert_no_current_context ();
}

static void
test_damaged (void)
{
  TestImages images;
  guint n = 0;

  if (!gcuda_test_require_gpu ())
    return;

  test_images_init (&images, source, device_arch ());
  for (const TestCraftedImage *c = test_damaged_images; c->name != NULL; c++, n++)
    {
      g_autoptr(GBytes) made = c->make (&images);
      g_autoptr(GBytes) image = guarded (made);
      GCudaModule *module;
      GError *error = NULL;

      module = gcuda_module_new_from_data (NULL, image, NULL, &error);
      if (module != NULL)
        g_error ("%s: loaded, though the image checker should have refused it", c->name);
      /* GCUDA_ERROR_INVALID_ARGUMENT comes from the checker, before the
       * context is looked up or the driver called: the driver's own
       * refusals are GCUDA_DRIVER_ERROR. */
      gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      if (!g_pattern_match_simple (c->refusal, error->message))
        g_error ("%s: refused, but not as expected:\n  expected %s\n  got      %s", c->name, c->refusal,
                 error->message);
      g_clear_error (&error);
    }
  g_test_message ("%u damaged images refused before the driver", n);

  /* and the context is as good as before */
  {
    g_autoptr(GBytes) cubin = guarded (images.cubin);
    g_autoptr(GCudaModule) module = NULL;
    GError *error = NULL;

    module = gcuda_module_new_from_data (NULL, cubin, NULL, &error);
    g_assert_no_error (error);
    check_fill (module, "cubin after the damaged images");
  }
  test_images_clear (&images);
  gcuda_test_assert_no_current_context ();
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/module-crafted/valid", test_valid);
  g_test_add_func ("/module-crafted/damaged", test_damaged);

  return g_test_run ();
}
