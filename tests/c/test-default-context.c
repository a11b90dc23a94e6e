/* test-default-context.c: PyCUDA's make_default_context() rules for
 * gcuda_context_get_default(). Registered once per CUDA_DEVICE value, each in
 * its own process (the default is chosen once per process):
 *
 *   CUDA_DEVICE=0    GCUDA_TEST_EXPECT=device-0          device 0's primary context
 *   CUDA_DEVICE=abc  GCUDA_TEST_EXPECT=invalid-argument  GCUDA_ERROR_INVALID_ARGUMENT
 *   CUDA_DEVICE=99   GCUDA_TEST_EXPECT=invalid-device    GCUDA_DRIVER_ERROR_INVALID_DEVICE
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-test-util.h"

static void
test_choice (void)
{
  const char *expect = g_getenv ("GCUDA_TEST_EXPECT");
  const char *cuda_device = g_getenv ("CUDA_DEVICE");
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = NULL;

  if (expect == NULL || cuda_device == NULL)
    {
      g_test_skip ("GCUDA_TEST_EXPECT and CUDA_DEVICE are not set (run through meson test)");
      return;
    }
  if (!gcuda_test_require_gpu ())
    return;

  context = gcuda_context_get_default (&error);

  if (g_str_equal (expect, "device-0"))
    {
      g_autoptr(GCudaDevice) device0 = gcuda_test_get_device ();

      g_assert_no_error (error);
      g_assert_true (gcuda_context_get_device (context) == device0);
      g_assert_true (gcuda_context_is_primary (context));
      g_assert_true (gcuda_context_synchronize (context, &error));
      g_assert_no_error (error);
    }
  else if (g_str_equal (expect, "invalid-argument"))
    {
      g_assert_null (context);
      gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      /* says where the bad value came from */
      g_assert_nonnull (strstr (error->message, "CUDA_DEVICE"));
      g_assert_nonnull (strstr (error->message, cuda_device));
      g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_LOGIC);
    }
  else if (g_str_equal (expect, "invalid-device"))
    {
      g_assert_null (context);
      gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_DEVICE);
      g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_LOGIC);
    }
  else
    g_error ("unknown GCUDA_TEST_EXPECT=%s", expect);

  /* asking again gives the same answer */
  g_clear_error (&error);
  {
    g_autoptr(GCudaContext) again = gcuda_context_get_default (&error);

    g_assert_true (again == context);
    if (context != NULL)
      g_assert_no_error (error);
    else
      g_assert_nonnull (error);
  }
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/default-context/choice", test_choice);

  return g_test_run ();
}
