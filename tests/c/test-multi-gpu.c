/* test-multi-gpu.c: several GPUs from C: peer attributes and access, copies
 * between devices with peer access off and on, every device's primary
 * context from one thread and from one thread per device. Each test needs
 * two devices (gcuda_test_require_gpus (2)); meson runs the program on a GPU
 * host and on the mock driver's two devices.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "gcuda-test-util.h"

#define COPY_SIZE ((1 << 20) + 13)

static guint8 *
random_bytes (gsize n)
{
  guint8 *data = g_malloc (n);

  for (gsize i = 0; i < n; i++)
    data[i] = (guint8) g_random_int_range (0, 256);
  return data;
}

static void
test_peer_attributes (void)
{
  g_autoptr(GCudaDevice) d0 = NULL;
  g_autoptr(GCudaDevice) d1 = NULL;
  g_autoptr(GError) error = NULL;
  int supported;

  if (!gcuda_test_require_gpus (2))
    return;
  d0 = gcuda_device_get (0, &error);
  g_assert_no_error (error);
  d1 = gcuda_device_get (1, &error);
  g_assert_no_error (error);

  supported = gcuda_device_get_peer_attribute (d0, d1, GCUDA_PEER_ATTRIBUTE_ACCESS_SUPPORTED, &error);
  g_assert_no_error (error);
  g_assert_cmpint (supported, ==, gcuda_device_can_access_peer (d0, d1, &error) ? 1 : 0);
  g_assert_no_error (error);
  for (int attr = GCUDA_PEER_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED; attr <= GCUDA_PEER_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED; attr++)
    {
      int value = gcuda_device_get_peer_attribute (d1, d0, attr, &error);

      g_assert_no_error (error);
      g_assert_true (value == 0 || value == 1);
    }
  g_assert_cmpint (gcuda_device_get_peer_attribute (d0, d1, GCUDA_PEER_ATTRIBUTE_PERFORMANCE_RANK, &error), >=, 0);
  g_assert_no_error (error);

  /* bad input: itself, an unknown attribute, an unbound device */
  g_assert_cmpint (gcuda_device_get_peer_attribute (d0, d0, GCUDA_PEER_ATTRIBUTE_ACCESS_SUPPORTED, &error), ==, -1);
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpint (gcuda_device_get_peer_attribute (d0, d1, 99, &error), ==, -1);
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "99"));
  g_clear_error (&error);
  {
    g_autoptr(GCudaDevice) unbound = g_object_new (GCUDA_TYPE_DEVICE, NULL);

    g_assert_cmpint (gcuda_device_get_peer_attribute (d0, unbound, GCUDA_PEER_ATTRIBUTE_ACCESS_SUPPORTED, &error), ==, -1);
    gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
  }
}

static void
test_peer_access_errors (void)
{
  g_autoptr(GCudaDevice) d0 = NULL;
  g_autoptr(GCudaDevice) d1 = NULL;
  g_autoptr(GCudaContext) p0 = NULL;
  g_autoptr(GCudaContext) p1 = NULL;
  g_autoptr(GError) error = NULL;

  if (!gcuda_test_require_gpus (2))
    return;
  d0 = gcuda_device_get (0, NULL);
  d1 = gcuda_device_get (1, NULL);
  p0 = gcuda_device_get_primary_context (d0, &error);
  g_assert_no_error (error);
  p1 = gcuda_device_get_primary_context (d1, &error);
  g_assert_no_error (error);

  if (!gcuda_device_can_access_peer (d0, d1, NULL))
    {
      g_assert_false (gcuda_context_enable_peer_access (p0, p1, &error));
      gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_PEER_ACCESS_UNSUPPORTED);
      g_assert_nonnull (strstr (error->message, "device 0 to device 1"));
      return;
    }
  g_assert_true (gcuda_context_enable_peer_access (p0, p1, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_context_enable_peer_access (p0, p1, &error));
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_PEER_ACCESS_ALREADY_ENABLED);
  g_assert_nonnull (strstr (error->message, "from device 0 to device 1"));
  g_clear_error (&error);
  g_assert_true (gcuda_context_disable_peer_access (p0, p1, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_context_disable_peer_access (p0, p1, &error));
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_PEER_ACCESS_NOT_ENABLED);
  g_assert_nonnull (strstr (error->message, "from device 0 to device 1"));
  gcuda_test_assert_no_current_context ();
}

/* a -> b -> a through copy_from, checked against the host's bytes */
static void
copy_both_ways (GCudaContext *a,
                GCudaContext *b)
{
  g_autofree guint8 *data = random_bytes (COPY_SIZE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaBuffer) src = gcuda_buffer_new (a, COPY_SIZE, &error);
  g_autoptr(GCudaBuffer) dst = gcuda_buffer_new (b, COPY_SIZE, &error);
  g_autoptr(GCudaBuffer) back = gcuda_buffer_new (a, COPY_SIZE, &error);
  g_autoptr(GBytes) there = NULL;
  g_autoptr(GBytes) again = NULL;

  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_upload (src, 0, data, COPY_SIZE, &error));
  g_assert_true (gcuda_buffer_copy_from (dst, 0, src, 0, COPY_SIZE, &error));
  g_assert_true (gcuda_buffer_copy_from (back, 0, dst, 0, COPY_SIZE, &error));
  g_assert_no_error (error);
  there = gcuda_buffer_download (dst, 0, COPY_SIZE, &error);
  again = gcuda_buffer_download (back, 0, COPY_SIZE, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (there, NULL), g_bytes_get_size (there), data, COPY_SIZE);
  g_assert_cmpmem (g_bytes_get_data (again, NULL), g_bytes_get_size (again), data, COPY_SIZE);
  g_assert_true (gcuda_buffer_free (src, NULL) && gcuda_buffer_free (dst, NULL) && gcuda_buffer_free (back, NULL));
}

static void
test_copies (void)
{
  g_autoptr(GCudaDevice) d0 = NULL;
  g_autoptr(GCudaDevice) d1 = NULL;
  g_autoptr(GCudaContext) p0 = NULL;
  g_autoptr(GCudaContext) p1 = NULL;
  g_autoptr(GError) error = NULL;

  if (!gcuda_test_require_gpus (2))
    return;
  d0 = gcuda_device_get (0, NULL);
  d1 = gcuda_device_get (1, NULL);
  p0 = gcuda_device_get_primary_context (d0, &error);
  p1 = gcuda_device_get_primary_context (d1, &error);
  g_assert_no_error (error);

  copy_both_ways (p0, p1);  /* staged */
  if (!gcuda_device_can_access_peer (d0, d1, NULL) || !gcuda_device_can_access_peer (d1, d0, NULL))
    return;
  g_assert_true (gcuda_context_enable_peer_access (p0, p1, &error));
  g_assert_true (gcuda_context_enable_peer_access (p1, p0, &error));
  g_assert_no_error (error);
  copy_both_ways (p0, p1);  /* direct */
  copy_both_ways (p1, p0);
  g_assert_true (gcuda_context_disable_peer_access (p0, p1, &error));
  g_assert_true (gcuda_context_disable_peer_access (p1, p0, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* Uploads and downloads in the primary context of @device: TRUE when the
 * bytes came back. No push: the context is named. */
static gboolean
work_on_device (GCudaDevice *device)
{
  g_autoptr(GCudaContext) ctx = gcuda_device_get_primary_context (device, NULL);
  g_autofree guint8 *data = random_bytes (65537);
  g_autoptr(GCudaBuffer) buf = NULL;
  g_autoptr(GBytes) back = NULL;
  gboolean ok;

  if (ctx == NULL)
    return FALSE;
  buf = gcuda_buffer_new (ctx, 65537, NULL);
  if (buf == NULL || gcuda_buffer_get_context (buf) != ctx || !gcuda_buffer_upload (buf, 0, data, 65537, NULL))
    return FALSE;
  back = gcuda_buffer_download (buf, 0, 65537, NULL);
  ok = back != NULL && memcmp (g_bytes_get_data (back, NULL), data, 65537) == 0;
  return gcuda_buffer_free (buf, NULL) && ok;
}

static void
test_every_device_one_thread (void)
{
  g_autoptr(GCudaContext) before = NULL;
  g_autoptr(GCudaContext) after = NULL;
  int count;

  if (!gcuda_test_require_gpus (2))
    return;
  before = gcuda_context_get_default (NULL);
  count = gcuda_device_get_count (NULL);
  for (int i = 0; i < count; i++)
    {
      g_autoptr(GCudaDevice) device = gcuda_device_get (i, NULL);

      g_assert_true (work_on_device (device));
    }
  after = gcuda_context_get_default (NULL);
  g_assert_true (before == after);
  gcuda_test_assert_no_current_context ();
}

static gpointer
device_thread (gpointer data)
{
  GCudaDevice *device = data;
  gboolean ok = TRUE;

  for (int i = 0; i < 20 && ok; i++)
    ok = work_on_device (device);
  return GINT_TO_POINTER (ok);
}

static void
test_one_thread_per_device (void)
{
  g_autoptr(GPtrArray) devices = NULL;
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();

  if (!gcuda_test_require_gpus (2))
    return;
  devices = gcuda_device_list (NULL);
  g_assert_nonnull (devices);
  for (guint i = 0; i < devices->len; i++)
    g_ptr_array_add (threads, g_thread_new ("device", device_thread, g_ptr_array_index (devices, i)));
  for (guint i = 0; i < threads->len; i++)
    g_assert_true (GPOINTER_TO_INT (g_thread_join (g_ptr_array_index (threads, i))));
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/multi-gpu/peer-attributes", test_peer_attributes);
  g_test_add_func ("/multi-gpu/peer-access-errors", test_peer_access_errors);
  g_test_add_func ("/multi-gpu/copies", test_copies);
  g_test_add_func ("/multi-gpu/every-device-one-thread", test_every_device_one_thread);
  g_test_add_func ("/multi-gpu/one-thread-per-device", test_one_thread_per_device);

  return g_test_run ();
}
