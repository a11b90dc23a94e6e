/* gcuda-test-util.c: helpers shared by GCuda's C tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "gcuda-test-util.h"

static char *no_gpu_reason;  /* NULL when a device is usable */

gboolean
gcuda_test_gpu_required (void)
{
  return g_strcmp0 (g_getenv ("GCUDA_TEST_REQUIRE_GPU"), "1") == 0;
}

static void
probe_gpu (void)
{
  static gsize once;

  if (g_once_init_enter (&once))
    {
      GError *error = NULL;
      int count = gcuda_device_get_count (&error);

      if (count < 0)
        {
          g_assert_nonnull (error);
          no_gpu_reason = g_strdup_printf ("%s (%s %d)", error->message,
                                           g_quark_to_string (error->domain), error->code);
          g_clear_error (&error);
        }
      else if (count == 0)
        {
          g_assert_no_error (error);
          no_gpu_reason = g_strdup ("the driver reports no CUDA device");
        }
      g_once_init_leave (&once, 1);
    }
}

gboolean
gcuda_test_require_gpu (void)
{
  probe_gpu ();
  if (no_gpu_reason == NULL)
    return TRUE;

  if (gcuda_test_gpu_required ())
    g_test_fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but no GPU is usable: %s", no_gpu_reason);
  else
    g_test_skip_printf ("no GPU: %s", no_gpu_reason);
  return FALSE;
}

GCudaDevice *
gcuda_test_get_device (void)
{
  GError *error = NULL;
  GCudaDevice *device = gcuda_device_get (0, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_DEVICE (device));
  return device;
}

void
gcuda_test_assert_no_current_context (void)
{
  GError *error = NULL;
  GCudaContext *current = gcuda_context_get_current (&error);

  g_assert_no_error (error);
  if (current != NULL)
    g_error ("a context (handle 0x%" G_GINT64_MODIFIER "x) was left current on this thread",
             gcuda_context_get_handle (current));
}
