/* test-interop.c: memory and streams GCuda borrows from other libraries
 * (gcuda_buffer_new_for_address, gcuda_stream_new_for_handle)
 *
 * "Foreign" memory is played by a GCuda allocation whose address is handed
 * over as an integer, as another library's pointer would be; each case
 * checks the data through both objects against a host copy of random bytes.
 *
 * /interop/nogpu/ needs no driver (argument checks come first; the
 * driver-missing case is registered only with GCUDA_TEST_DRIVER=missing); the
 * memory cases run on the mock driver (which answers pointer attributes) and
 * a GPU; /interop/stream/foreign needs real streams (GPU only).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-test-memory.h"
#include "gcuda-test-util.h"

/* A GCudaBufferNotify that counts its calls and checks its data. */
typedef struct {
  int calls;
} NotifyCount;

static void
count_notify (gpointer user_data)
{
  NotifyCount *count = user_data;

  count->calls++;
}

/* ------------------------------------------------------------ no driver */

static void
test_nogpu_buffer_arguments (void)
{
  NotifyCount count = { 0 };
  GError *error = NULL;
  GCudaBuffer *buffer;

  buffer = gcuda_buffer_new_for_address (NULL, 0, 16, count_notify, &count, &error);
  g_assert_null (buffer);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (count.calls, ==, 1);  /* the notify runs on failure too */

  buffer = gcuda_buffer_new_for_address (NULL, 0x10000, 0, count_notify, &count, &error);
  g_assert_null (buffer);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (count.calls, ==, 2);

  /* the last byte would be past 2^64 - 1 */
  buffer = gcuda_buffer_new_for_address (NULL, G_MAXUINT64 - 15, 17, count_notify, &count, &error);
  g_assert_null (buffer);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (count.calls, ==, 3);

  /* not a context */
  buffer = gcuda_buffer_new_for_address ((GCudaContext *) g_object_new (G_TYPE_OBJECT, NULL),
                                         0x10000, 16, count_notify, &count, &error);
  g_assert_null (buffer);
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_cmpint (count.calls, ==, 4);

  /* a NULL notify is fine */
  buffer = gcuda_buffer_new_for_address (NULL, 0, 16, NULL, NULL, &error);
  g_assert_null (buffer);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
}

static void
test_nogpu_driver_missing (void)
{
  NotifyCount count = { 0 };
  GError *error = NULL;
  GCudaBuffer *buffer;
  GCudaStream *stream;

  /* a valid range reaches the driver, which cannot be loaded here */
  buffer = gcuda_buffer_new_for_address (NULL, 0x10000, 16, count_notify, &count, &error);
  g_assert_null (buffer);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND);
  g_assert_cmpint (count.calls, ==, 1);

  stream = gcuda_stream_new_for_handle (NULL, 0x1234560, &error);
  g_assert_null (stream);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND);
  stream = gcuda_stream_new_for_handle (NULL, 1, &error);
  g_assert_null (stream);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND);
}

/* ------------------------------------------------------------ memory */

static void
test_buffer_borrow (void)
{
  g_autoptr(GCudaBuffer) owner = NULL;
  g_autoptr(GBytes) back = NULL;
  g_autofree guint8 *data = NULL;
  g_autofree guint8 *part = NULL;
  NotifyCount count = { 0 };
  GError *error = NULL;
  GCudaBuffer *borrowed;
  guint64 base;

  if (!gcuda_test_require_gpu ())
    return;

  owner = new_buffer (NULL, 4096);
  base = gcuda_buffer_get_address (owner);
  data = random_data (4096);
  g_assert_true (gcuda_buffer_upload (owner, 0, data, 4096, &error));
  g_assert_no_error (error);

  /* the middle of the allocation, as another library's pointer */
  borrowed = gcuda_buffer_new_for_address (NULL, base + 64, 1024, count_notify, &count, &error);
  g_assert_no_error (error);
  g_assert_nonnull (borrowed);
  g_assert_cmpint (gcuda_buffer_get_kind (borrowed), ==, GCUDA_BUFFER_KIND_FOREIGN);
  g_assert_cmpuint (gcuda_buffer_get_address (borrowed), ==, base + 64);
  g_assert_cmpuint (gcuda_buffer_get_size (borrowed), ==, 1024);
  g_assert_true (gcuda_buffer_get_context (borrowed) == gcuda_buffer_get_context (owner));
  g_assert_null (gcuda_buffer_get_parent (borrowed));

  /* reads what the owner wrote */
  back = gcuda_buffer_download (borrowed, 0, 1024, &error);
  g_assert_no_error (error);
  assert_bytes (back, data + 64, 1024);
  g_clear_pointer (&back, g_bytes_unref);

  /* writes where the owner reads */
  part = random_data (100);
  g_assert_true (gcuda_buffer_upload (borrowed, 900, part, 100, &error));
  g_assert_no_error (error);
  memcpy (data + 64 + 900, part, 100);
  back = gcuda_buffer_download (owner, 0, 4096, &error);
  g_assert_no_error (error);
  assert_bytes (back, data, 4096);
  g_clear_pointer (&back, g_bytes_unref);

  /* its own bounds are checked like any buffer's */
  g_assert_false (gcuda_buffer_upload (borrowed, 1000, part, 100, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);

  /* the last reference: notified once, the memory stays the owner's */
  g_assert_cmpint (count.calls, ==, 0);
  g_object_unref (borrowed);
  g_assert_cmpint (count.calls, ==, 1);
  back = gcuda_buffer_download (owner, 0, 4096, &error);
  g_assert_no_error (error);
  assert_bytes (back, data, 4096);

  gcuda_test_assert_no_current_context ();
}

static void
test_buffer_free_and_export (void)
{
  g_autoptr(GCudaBuffer) owner = NULL;
  g_autoptr(GCudaBuffer) borrowed = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GBytes) back = NULL;
  g_autofree guint8 *data = NULL;
  NotifyCount count = { 0 };
  GError *error = NULL;
  guint64 base;

  if (!gcuda_test_require_gpu ())
    return;

  owner = new_buffer (NULL, 256);
  base = gcuda_buffer_get_address (owner);
  data = random_data (256);
  g_assert_true (gcuda_buffer_upload (owner, 0, data, 256, &error));
  g_assert_no_error (error);

  /* free() retires it and notifies at once; the memory is not freed */
  borrowed = gcuda_buffer_new_for_address (NULL, base, 256, count_notify, &count, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_free (borrowed, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count.calls, ==, 1);
  g_assert_false (gcuda_buffer_free (borrowed, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_null (gcuda_buffer_download (borrowed, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_clear_object (&borrowed);
  g_assert_cmpint (count.calls, ==, 1);  /* once only */
  back = gcuda_buffer_download (owner, 0, 256, &error);
  g_assert_no_error (error);
  assert_bytes (back, data, 256);

  /* with an export, free() leaves the notify to the export's end */
  count.calls = 0;
  borrowed = gcuda_buffer_new_for_address (NULL, base, 256, count_notify, &count, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_export_begin (borrowed, &error));
  g_assert_true (gcuda_buffer_free (borrowed, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count.calls, ==, 0);
  g_assert_true (gcuda_buffer_export_end (borrowed, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count.calls, ==, 1);
  g_clear_object (&borrowed);
  g_assert_cmpint (count.calls, ==, 1);

  /* a view keeps the borrowed buffer, and so the notify, waiting */
  count.calls = 0;
  borrowed = gcuda_buffer_new_for_address (NULL, base, 256, count_notify, &count, &error);
  g_assert_no_error (error);
  view = gcuda_buffer_new_view (borrowed, 16, 32, &error);
  g_assert_no_error (error);
  g_clear_object (&borrowed);
  g_assert_cmpint (count.calls, ==, 0);
  g_clear_pointer (&back, g_bytes_unref);
  back = gcuda_buffer_download (view, 0, 32, &error);
  g_assert_no_error (error);
  assert_bytes (back, data + 16, 32);
  g_clear_object (&view);
  g_assert_cmpint (count.calls, ==, 1);

  gcuda_test_assert_no_current_context ();
}

static void
test_buffer_ranges (void)
{
  g_autoptr(GCudaBuffer) owner = NULL;
  g_autofree guint8 *host = g_malloc (4096);
  NotifyCount count = { 0 };
  GError *error = NULL;
  guint64 base;
  g_autofree char *start = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  owner = new_buffer (NULL, 1000);
  base = gcuda_buffer_get_address (owner);

  /* one byte too many: both ranges are named */
  g_assert_null (gcuda_buffer_new_for_address (NULL, base + 10, 991, count_notify, &count, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  start = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", base + 10);
  g_assert_nonnull (strstr (error->message, start));
  g_clear_pointer (&start, g_free);
  start = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", base);
  g_assert_nonnull (strstr (error->message, start));
  g_clear_error (&error);
  g_assert_cmpint (count.calls, ==, 1);

  /* exactly to the end is fine */
  {
    g_autoptr(GCudaBuffer) whole = gcuda_buffer_new_for_address (NULL, base + 10, 990, NULL, NULL, &error);

    g_assert_no_error (error);
    g_assert_nonnull (whole);
  }

  /* ordinary host memory is not memory the driver knows */
  g_assert_null (gcuda_buffer_new_for_address (NULL, (guint64) (guintptr) host, 4096, count_notify, &count,
                                               &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (count.calls, ==, 2);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ streams */

static void
test_stream_default_handles (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GBytes) back = NULL;
  guint8 want[64];
  GError *error = NULL;
  const struct { guint64 handle, expect; } cases[] = { { 0, 1 }, { 1, 1 }, { 2, 2 } };

  if (!gcuda_test_require_gpu ())
    return;

  context = gcuda_context_get_default (&error);
  g_assert_no_error (error);
  buffer = new_buffer (NULL, 64);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GCudaStream) stream = gcuda_stream_new_for_handle (NULL, cases[i].handle, &error);
      guint8 value = (guint8) g_random_int_range (1, 256);

      g_assert_no_error (error);
      g_assert_nonnull (stream);
      g_assert_cmpuint (gcuda_stream_get_handle (stream), ==, cases[i].expect);
      g_assert_true (gcuda_stream_is_borrowed (stream));
      g_assert_true (gcuda_stream_get_context (stream) == context);

      /* work queued on it lands */
      g_assert_true (gcuda_buffer_memset_d8 (buffer, 0, value, 64, stream, &error));
      g_assert_no_error (error);
      g_assert_true (gcuda_stream_synchronize (stream, &error));
      g_assert_no_error (error);
      memset (want, value, sizeof want);
      g_clear_pointer (&back, g_bytes_unref);
      back = gcuda_buffer_download (buffer, 0, 64, &error);
      g_assert_no_error (error);
      assert_bytes (back, want, 64);
    }

  gcuda_test_assert_no_current_context ();
}

static void
test_stream_foreign (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaContext) other = NULL;
  g_autoptr(GCudaStream) owner = NULL;
  g_autoptr(GCudaStream) borrowed = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GBytes) back = NULL;
  g_autofree guint8 *data = random_data (1 << 16);
  GError *error = NULL;
  int least = 0, greatest = 0;

  if (!gcuda_test_require_gpu ())
    return;

  context = gcuda_context_get_default (&error);
  g_assert_no_error (error);
  gcuda_context_get_stream_priority_range (context, &least, &greatest, &error);
  owner = gcuda_stream_new (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING, greatest, &error);
  g_assert_no_error (error);

  borrowed = gcuda_stream_new_for_handle (NULL, gcuda_stream_get_handle (owner), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_stream_get_handle (borrowed), ==, gcuda_stream_get_handle (owner));
  g_assert_true (gcuda_stream_get_context (borrowed) == context);
  g_assert_cmpint (gcuda_stream_get_flags (borrowed), ==, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  g_assert_cmpint (gcuda_stream_get_priority (borrowed), ==, greatest);
  g_assert_true (gcuda_stream_is_borrowed (borrowed));
  g_assert_false (gcuda_stream_is_borrowed (owner));

  /* an upload on the borrowed stream, awaited there */
  buffer = new_buffer (NULL, 1 << 16);
  g_assert_true (gcuda_buffer_upload_from_address_on_stream (buffer, 0, (guint64) (guintptr) data, 1 << 16,
                                                             borrowed, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_synchronize (borrowed, &error));
  g_assert_no_error (error);
  back = gcuda_buffer_download (buffer, 0, 1 << 16, &error);
  g_assert_no_error (error);
  assert_bytes (back, data, 1 << 16);

  /* dropping the borrowed object leaves the stream alive */
  g_clear_object (&borrowed);
  g_assert_true (gcuda_buffer_memset_d8 (buffer, 0, 7, 16, owner, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_synchronize (owner, &error));
  g_assert_no_error (error);

  /* the stream's context is not @other */
  device = gcuda_test_get_device ();
  other = gcuda_device_create_context (device, 0, &error);
  g_assert_no_error (error);
  g_assert_null (gcuda_stream_new_for_handle (other, gcuda_stream_get_handle (owner), &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_true (gcuda_context_destroy (other, &error));
  g_assert_no_error (error);

  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/interop/nogpu/buffer-arguments", test_nogpu_buffer_arguments);
  /* only where the driver was made unloadable (GCUDA_TEST_DRIVER=missing) */
  if (g_strcmp0 (g_getenv ("GCUDA_TEST_DRIVER"), "missing") == 0)
    g_test_add_func ("/interop/nogpu/driver-missing", test_nogpu_driver_missing);
  g_test_add_func ("/interop/buffer/borrow", test_buffer_borrow);
  g_test_add_func ("/interop/buffer/free-and-export", test_buffer_free_and_export);
  g_test_add_func ("/interop/buffer/ranges", test_buffer_ranges);
  g_test_add_func ("/interop/stream/default-handles", test_stream_default_handles);
  g_test_add_func ("/interop/stream/foreign", test_stream_foreign);

  return g_test_run ();
}
