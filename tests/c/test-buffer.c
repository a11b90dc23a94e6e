/* test-buffer.c: GCudaBuffer (device, pitched, managed memory, views) on a
 * real GPU
 *
 * Every case writes fresh random data and compares what comes back with a
 * host copy. Before data is written, the memory it goes to is poisoned with
 * a byte that differs from the data's first byte, so a copy that did nothing
 * cannot pass (not even for one byte).
 *
 * Copies on streams use streams made with GCUDA_STREAM_FLAGS_DEFAULT, which
 * are ordered after the legacy default stream where the synchronous calls
 * run (a synchronous upload from pageable memory may return before its DMA
 * has finished), except where a test says why it needs a non-blocking one.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <string.h>

#include "gcuda-test-async.h"
#include "gcuda-test-memory.h"
#include "gcuda-test-util.h"

#define IPC_HANDLE_SIZE 64  /* CU_IPC_HANDLE_SIZE */

/* ------------------------------------------------------------ data */

/* A new GBytes of @size fresh random bytes. */
static GBytes *
random_bytes (gsize size)
{
  return g_bytes_new_take (random_data (size), size);
}

/* A random byte other than @avoid. */
static guint8
random_byte_except (guint8 avoid)
{
  return (guint8) (avoid + g_random_int_range (1, 256));
}

static guint64
addr (gconstpointer p)
{
  return (guint64) (guintptr) p;
}

static void
assert_device_at (const char   *file,
                  int           line,
                  GCudaBuffer  *buffer,
                  guint64       offset,
                  const guint8 *want,
                  gsize         size)
{
  GError *error = NULL;
  g_autoptr(GBytes) bytes = gcuda_buffer_download (buffer, offset, size, &error);

  if (error != NULL)
    g_error ("%s:%d: download failed: %s", file, line, error->message);
  assert_bytes_at (file, line, bytes, want, size);
}

/* Downloads @size bytes of @buffer at @offset and compares them with @want. */
#define assert_device(buffer, offset, want, size) \
  assert_device_at (__FILE__, __LINE__, (buffer), (offset), (want), (size))

/* ------------------------------------------------------------ device helpers */

static GCudaBuffer *
new_view (GCudaBuffer *parent,
          guint64      offset,
          guint64      size)
{
  GError *error = NULL;
  GCudaBuffer *view = gcuda_buffer_new_view (parent, offset, size, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_BUFFER (view));
  return view;
}

static void
sync_context (GCudaContext *context)
{
  GError *error = NULL;

  g_assert_true (gcuda_context_synchronize (context, &error));
  g_assert_no_error (error);
}

/* What the host expects of memset_d8/16/32 and their 2D forms: @height rows
 * of @width elements of @elem_size bytes, @pitch bytes apart. */
static void
host_memset (guint8  *expected,
             guint64  offset,
             guint64  pitch,
             guint    elem_size,
             guint32  value,
             guint64  width,
             guint64  height)
{
  guint16 v16 = (guint16) value;
  guint8 v8 = (guint8) value;

  for (guint64 y = 0; y < height; y++)
    for (guint64 x = 0; x < width; x++)
      {
        guint8 *p = expected + offset + y * pitch + x * elem_size;

        if (elem_size == 1)
          *p = v8;
        else if (elem_size == 2)
          memcpy (p, &v16, 2);  /* host and device are both little-endian */
        else
          memcpy (p, &value, 4);
      }
}

/* memset_d8/16/32 (by @elem_size) of @buffer, the 2D form unless @pitch is 0
 * (then @height is 1), asserted to succeed; the same is done to @expected. */
static void
memset_ok (GCudaBuffer *buffer,
           guint8      *expected,
           guint64      offset,
           guint64      pitch,
           guint        elem_size,
           guint32      value,
           guint64      width,
           guint64      height,
           GCudaStream *stream)
{
  GError *error = NULL;
  gboolean ok;

  if (pitch == 0 && elem_size == 1)
    ok = gcuda_buffer_memset_d8 (buffer, offset, (guint8) value, width, stream, &error);
  else if (pitch == 0 && elem_size == 2)
    ok = gcuda_buffer_memset_d16 (buffer, offset, (guint16) value, width, stream, &error);
  else if (pitch == 0)
    ok = gcuda_buffer_memset_d32 (buffer, offset, value, width, stream, &error);
  else if (elem_size == 1)
    ok = gcuda_buffer_memset_d8_2d (buffer, offset, pitch, (guint8) value, width, height, stream, &error);
  else if (elem_size == 2)
    ok = gcuda_buffer_memset_d16_2d (buffer, offset, pitch, (guint16) value, width, height, stream, &error);
  else
    ok = gcuda_buffer_memset_d32_2d (buffer, offset, pitch, value, width, height, stream, &error);
  g_assert_true (ok);
  g_assert_no_error (error);
  host_memset (expected, offset, pitch, elem_size, value, width, height);
}

/* ------------------------------------------------------------ _async results */

/* What a download_async/upload_async callback saw. */
typedef struct {
  GMainLoop *loop;
  int done;
  gboolean ok;
  GBytes *bytes;
  GError *error;
  GThread *thread;
  gint64 at;
  int *watch;           /* a flag copied when the callback runs */
  int watch_value;
  gpointer *weak;       /* a weak pointer looked at when the callback runs */
  gboolean weak_alive;
} Transfer;

static void
transfer_init (Transfer *t)
{
  memset (t, 0, sizeof *t);
  t->loop = g_main_loop_new (NULL, FALSE);
}

static void
transfer_clear (Transfer *t)
{
  g_clear_pointer (&t->loop, g_main_loop_unref);
  g_clear_pointer (&t->bytes, g_bytes_unref);
  g_clear_error (&t->error);
}

static void
transfer_complete (Transfer *t)
{
  g_assert_false (t->done);  /* exactly once */
  t->thread = g_thread_self ();
  t->at = g_get_monotonic_time ();
  if (t->watch != NULL)
    t->watch_value = g_atomic_int_get (t->watch);
  if (t->weak != NULL)
    t->weak_alive = *t->weak != NULL;
  t->done = 1;
  g_main_loop_quit (t->loop);
}

static void
download_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      data)
{
  Transfer *t = data;

  g_assert_true (GCUDA_IS_BUFFER (source));
  t->bytes = gcuda_buffer_download_finish (GCUDA_BUFFER (source), result, &t->error);
  t->ok = t->bytes != NULL;
  g_assert_true (t->ok == (t->error == NULL));
  transfer_complete (t);
}

static void
upload_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  Transfer *t = data;

  g_assert_true (GCUDA_IS_BUFFER (source));
  t->ok = gcuda_buffer_upload_finish (GCUDA_BUFFER (source), result, &t->error);
  g_assert_true (t->ok == (t->error == NULL));
  transfer_complete (t);
}

static gboolean
transfer_timeout (gpointer data)
{
  g_error ("timed out waiting for a download_async/upload_async callback");
  return G_SOURCE_REMOVE;
}

/* Runs the main loop until the callback has run. */
static void
transfer_wait (Transfer *t)
{
  guint id;

  if (!t->done)
    {
      id = g_timeout_add_seconds (30, transfer_timeout, NULL);
      g_main_loop_run (t->loop);
      g_source_remove (id);
    }
  g_assert_true (t->done);
}

/* download_async of @size bytes of @buffer at @offset on @stream, waited
 * for: @t holds what its callback saw (transfer_clear() it). */
static void
download_async_wait (Transfer    *t,
                     GCudaBuffer *buffer,
                     guint64      offset,
                     guint64      size,
                     GCudaStream *stream)
{
  transfer_init (t);
  gcuda_buffer_download_async (buffer, offset, size, stream, NULL, download_cb, t);
  transfer_wait (t);
}

/* upload_async of @bytes (NULL, or a reference dropped as soon as the call
 * has returned) to @buffer at @offset on @stream, waited for, into @t. */
static void
upload_async_wait (Transfer    *t,
                   GCudaBuffer *buffer,
                   guint64      offset,
                   GBytes      *bytes,
                   GCudaStream *stream)
{
  transfer_init (t);
  gcuda_buffer_upload_async (buffer, offset, bytes, stream, NULL, upload_cb, t);
  if (bytes != NULL)
    g_bytes_unref (bytes);
  transfer_wait (t);
}

/* Asserts that download_async (@size bytes) and upload_async (@bytes) of
 * @buffer at offset 0 on @stream both fail with GCUDA_ERROR @code. */
static void
assert_async_fail (GCudaBuffer *buffer,
                   guint64      size,
                   GBytes      *bytes,
                   GCudaStream *stream,
                   GCudaError   code)
{
  Transfer t;

  download_async_wait (&t, buffer, 0, size, stream);
  gcuda_assert_error (t.error, GCUDA_ERROR, code);
  transfer_clear (&t);
  upload_async_wait (&t, buffer, 0, g_bytes_ref (bytes), stream);
  gcuda_assert_error (t.error, GCUDA_ERROR, code);
  transfer_clear (&t);
}

/* GBytes over a page-locked host buffer, holding the buffer's only
 * reference: the buffer lives as long as the bytes. */
static GBytes *
bytes_owning_host (GCudaHostBuffer *host)
{
  return g_bytes_new_with_free_func (host_ptr (host), gcuda_host_buffer_get_size (host),
                                     g_object_unref, host);
}

/* ------------------------------------------------------------ properties */

static void
test_properties (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GCudaBuffer) pitched = NULL;
  g_autoptr(GCudaBuffer) managed = NULL;
  GCudaContext *prop_context = NULL;
  GCudaBuffer *prop_parent = NULL;
  guint64 address = 0, size = 0, pitch = 1;
  GCudaBufferKind kind = GCUDA_BUFFER_KIND_VIEW;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  buffer = new_buffer (NULL, 12345);
  g_object_get (buffer, "context", &prop_context, "address", &address, "size", &size,
                "pitch", &pitch, "kind", &kind, "parent", &prop_parent, NULL);
  g_assert_true (prop_context == context);
  g_clear_object (&prop_context);
  g_assert_cmpuint (address, ==, gcuda_buffer_get_address (buffer));
  g_assert_cmpuint (address, !=, 0);
  g_assert_cmpuint (size, ==, 12345);
  g_assert_cmpuint (pitch, ==, 0);
  g_assert_cmpint (kind, ==, GCUDA_BUFFER_KIND_DEVICE);
  g_assert_null (prop_parent);
  g_assert_false (gcuda_buffer_is_freed (buffer));

  view = new_view (buffer, 100, 200);
  g_object_get (view, "context", &prop_context, "address", &address, "size", &size,
                "pitch", &pitch, "kind", &kind, "parent", &prop_parent, NULL);
  g_assert_true (prop_context == context);
  g_clear_object (&prop_context);
  g_assert_cmpuint (address, ==, gcuda_buffer_get_address (buffer) + 100);
  g_assert_cmpuint (size, ==, 200);
  g_assert_cmpuint (pitch, ==, 0);
  g_assert_cmpint (kind, ==, GCUDA_BUFFER_KIND_VIEW);
  g_assert_true (prop_parent == buffer);
  g_clear_object (&prop_parent);

  pitched = gcuda_buffer_new_pitched (NULL, 100, 3, 4, &error);
  g_assert_no_error (error);
  g_object_get (pitched, "size", &size, "pitch", &pitch, "kind", &kind, NULL);
  g_assert_cmpuint (pitch, >=, 100);
  g_assert_cmpuint (pitch, ==, gcuda_buffer_get_pitch (pitched));
  g_assert_cmpuint (size, ==, pitch * 3);
  g_assert_cmpint (kind, ==, GCUDA_BUFFER_KIND_PITCHED);

  managed = gcuda_buffer_new_managed (NULL, 4096, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
  g_assert_no_error (error);
  g_object_get (managed, "kind", &kind, "size", &size, NULL);
  g_assert_cmpint (kind, ==, GCUDA_BUFFER_KIND_MANAGED);
  g_assert_cmpuint (size, ==, 4096);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ round trips */

static void
test_round_trip (gconstpointer data_size)
{
  const gsize size = GPOINTER_TO_SIZE (data_size);
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaBuffer) copy = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GBytes) down = NULL;
  g_autofree guint8 *data = NULL;
  g_autofree guint8 *host = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  data = random_data (size);
  host = g_malloc (size);

  buffer = new_buffer (NULL, size);
  g_assert_true (gcuda_buffer_get_context (buffer) == context);
  g_assert_cmpuint (gcuda_buffer_get_size (buffer), ==, size);
  g_assert_cmpuint (gcuda_buffer_get_address (buffer), !=, 0);
  g_assert_cmpint (gcuda_buffer_get_kind (buffer), ==, GCUDA_BUFFER_KIND_DEVICE);
  g_assert_cmpuint (gcuda_buffer_get_pitch (buffer), ==, 0);
  g_assert_null (gcuda_buffer_get_parent (buffer));

  /* upload (an array) -> download (GBytes) */
  poison (buffer, data[0] ^ 0xff);
  upload_ok (buffer, 0, data, size);
  down = gcuda_buffer_download (buffer, 0, size, &error);
  g_assert_no_error (error);
  assert_bytes (down, data, size);
  g_clear_pointer (&down, g_bytes_unref);

  /* upload_bytes -> download_to_address */
  fill_random (data, size);
  bytes = g_bytes_new (data, size);
  poison (buffer, data[0] ^ 0xff);
  g_assert_true (gcuda_buffer_upload_bytes (buffer, 0, bytes, &error));
  g_assert_no_error (error);
  memset (host, data[0] ^ 0xff, size);
  g_assert_true (gcuda_buffer_download_to_address (buffer, 0, addr (host), size, &error));
  g_assert_no_error (error);
  assert_same (host, data, size);
  g_clear_pointer (&bytes, g_bytes_unref);

  /* upload_from_address -> download_to_address */
  fill_random (data, size);
  poison (buffer, data[0] ^ 0xff);
  g_assert_true (gcuda_buffer_upload_from_address (buffer, 0, addr (data), size, &error));
  g_assert_no_error (error);
  memset (host, data[0] ^ 0xff, size);
  g_assert_true (gcuda_buffer_download_to_address (buffer, 0, addr (host), size, &error));
  g_assert_no_error (error);
  assert_same (host, data, size);

  /* new_from_bytes copies at once: changing the source later changes nothing */
  fill_random (data, size);
  bytes = g_bytes_new (data, size);
  copy = gcuda_buffer_new_from_bytes (NULL, bytes, &error);
  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_BUFFER (copy));
  g_assert_cmpint (gcuda_buffer_get_kind (copy), ==, GCUDA_BUFFER_KIND_DEVICE);
  g_assert_cmpuint (gcuda_buffer_get_size (copy), ==, size);
  g_assert_true (gcuda_buffer_get_context (copy) == context);
  assert_device (copy, 0, data, size);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ offsets */

static void
test_offsets (void)
{
  const gsize size = 64 * KiB + 13;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GBytes) down = NULL;
  g_autofree guint8 *expected = NULL;
  g_autofree guint8 *part = NULL;
  g_autofree guint8 *host = NULL;
  GError *error = NULL;
  guint8 last;

  if (!gcuda_test_require_gpu ())
    return;

  expected = random_data (size);
  part = g_malloc (1000);
  host = g_malloc (size);
  buffer = new_buffer (NULL, size);
  poison (buffer, expected[0] ^ 0xff);
  upload_ok (buffer, 0, expected, size);

  /* writes at offsets land there and nowhere else */
  fill_random (part, 1000);
  upload_ok (buffer, 777, part, 1000);
  memcpy (expected + 777, part, 1000);

  fill_random (part, 1000);
  g_assert_true (gcuda_buffer_upload_from_address (buffer, size - 1000, addr (part), 1000, &error));
  g_assert_no_error (error);
  memcpy (expected + size - 1000, part, 1000);

  last = random_byte_except (expected[size - 1]);
  bytes = g_bytes_new (&last, 1);
  g_assert_true (gcuda_buffer_upload_bytes (buffer, size - 1, bytes, &error));
  g_assert_no_error (error);
  expected[size - 1] = last;
  assert_device (buffer, 0, expected, size);

  /* reads at offsets */
  assert_device (buffer, 1234, expected + 1234, 5000);
  assert_device (buffer, size - 1, expected + size - 1, 1);
  assert_device (buffer, 776, expected + 776, 1002);
  memset (host, expected[3] ^ 0xff, size);
  g_assert_true (gcuda_buffer_download_to_address (buffer, 3, addr (host), size - 3, &error));
  g_assert_no_error (error);
  assert_same (host, expected + 3, size - 3);
  g_assert_cmpuint (host[size - 3], ==, expected[3] ^ 0xff);  /* not one byte more */

  /* empty ranges, up to the very end, are fine and change nothing */
  g_assert_true (gcuda_buffer_upload (buffer, size, part, 0, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_upload_from_address (buffer, 5, addr (part), 0, &error));
  g_assert_no_error (error);
  down = gcuda_buffer_download (buffer, size, 0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (down);
  g_assert_cmpuint (g_bytes_get_size (down), ==, 0);
  g_assert_true (gcuda_buffer_download_to_address (buffer, size, addr (host), 0, &error));
  g_assert_no_error (error);
  assert_device (buffer, 0, expected, size);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ views */

static void
test_views (void)
{
  const gsize size = 256 * KiB;
  const guint64 off = 4096 + 5, vsize = 100000, off2 = 333, vsize2 = 5000;
  g_autoptr(GCudaBuffer) parent = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GCudaBuffer) view2 = NULL;
  g_autofree guint8 *expected = NULL;
  g_autofree guint8 *part = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  expected = random_data (size);
  part = g_malloc (1000);
  parent = new_buffer (NULL, size);
  poison (parent, expected[0] ^ 0xff);
  upload_ok (parent, 0, expected, size);

  view = new_view (parent, off, vsize);
  g_assert_cmpint (gcuda_buffer_get_kind (view), ==, GCUDA_BUFFER_KIND_VIEW);
  g_assert_true (gcuda_buffer_get_parent (view) == parent);
  g_assert_true (gcuda_buffer_get_context (view) == gcuda_buffer_get_context (parent));
  g_assert_cmpuint (gcuda_buffer_get_address (view), ==, gcuda_buffer_get_address (parent) + off);
  g_assert_cmpuint (gcuda_buffer_get_size (view), ==, vsize);

  /* the view sees the parent's range */
  assert_device (view, 0, expected + off, vsize);
  assert_device (view, 10, expected + off + 10, 100);

  /* writes through the view land in the parent, at the right place */
  fill_random (part, 1000);
  upload_ok (view, 50, part, 1000);
  memcpy (expected + off + 50, part, 1000);
  assert_device (parent, 0, expected, size);

  /* and writes to the parent show through the view */
  fill_random (part, 1000);
  upload_ok (parent, off + 2000, part, 1000);
  memcpy (expected + off + 2000, part, 1000);
  assert_device (view, 0, expected + off, vsize);

  /* memset and copies through views */
  memset_ok (view, expected + off, vsize - 10, 0, 1, 0x5a, 10, 1, NULL);
  assert_device (parent, 0, expected, size);

  /* a view of a view */
  view2 = new_view (view, off2, vsize2);
  g_assert_true (gcuda_buffer_get_parent (view2) == view);
  g_assert_cmpint (gcuda_buffer_get_kind (view2), ==, GCUDA_BUFFER_KIND_VIEW);
  g_assert_cmpuint (gcuda_buffer_get_address (view2), ==, gcuda_buffer_get_address (parent) + off + off2);
  g_assert_cmpuint (gcuda_buffer_get_size (view2), ==, vsize2);
  assert_device (view2, 0, expected + off + off2, vsize2);
  fill_random (part, 1000);
  upload_ok (view2, vsize2 - 1000, part, 1000);
  memcpy (expected + off + off2 + vsize2 - 1000, part, 1000);
  assert_device (parent, 0, expected, size);
  assert_device (view, 0, expected + off, vsize);

  /* a view may reach the parent's last byte */
  g_clear_object (&view2);
  view2 = new_view (parent, size - 1, 1);
  assert_device (view2, 0, expected + size - 1, 1);

  gcuda_test_assert_no_current_context ();
}

static void
test_view_keeps_parent (void)
{
  const gsize size = 64 * KiB;
  GCudaBuffer *parent, *view, *view2;
  gpointer weak_parent, weak_view;
  g_autofree guint8 *expected = NULL;
  g_autofree guint8 *part = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  expected = random_data (size);
  part = random_data (100);
  parent = new_buffer (NULL, size);
  upload_ok (parent, 0, expected, size);
  view = new_view (parent, 1000, 10000);
  view2 = new_view (view, 100, 1000);

  weak_parent = parent;
  g_object_add_weak_pointer (G_OBJECT (parent), &weak_parent);
  weak_view = view;
  g_object_add_weak_pointer (G_OBJECT (view), &weak_view);

  /* the caller drops the parent, then the middle view: both stay alive */
  g_object_unref (parent);
  g_assert_nonnull (weak_parent);
  g_assert_false (gcuda_buffer_is_freed (view));
  assert_device (view, 0, expected + 1000, 10000);
  g_object_unref (view);
  g_assert_nonnull (weak_view);
  g_assert_nonnull (weak_parent);

  /* the memory is still there and still usable through the last view */
  assert_device (view2, 0, expected + 1100, 1000);
  upload_ok (view2, 10, part, 100);
  memcpy (expected + 1110, part, 100);
  assert_device (view2, 0, expected + 1100, 1000);
  assert_device (gcuda_buffer_get_parent (gcuda_buffer_get_parent (view2)), 0, expected, size);

  /* the last view goes: everything goes */
  g_object_unref (view2);
  g_assert_null (weak_view);
  g_assert_null (weak_parent);

  gcuda_test_assert_no_current_context ();
}

static void
test_view_free (void)
{
  const gsize size = 8 * KiB;
  g_autoptr(GCudaBuffer) parent = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GCudaBuffer) sibling = NULL;
  g_autofree guint8 *expected = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  expected = random_data (size);
  parent = new_buffer (NULL, size);
  upload_ok (parent, 0, expected, size);
  view = new_view (parent, 100, 1000);
  sibling = new_view (parent, 200, 1000);

  /* freeing a view retires the view only */
  g_assert_true (gcuda_buffer_free (view, NULL));
  g_assert_true (gcuda_buffer_is_freed (view));
  g_assert_false (gcuda_buffer_is_freed (parent));
  g_assert_false (gcuda_buffer_is_freed (sibling));
  g_assert_null (gcuda_buffer_download (view, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  /* twice: an error, and nothing is released again */
  g_assert_false (gcuda_buffer_free (view, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  assert_device (parent, 0, expected, size);
  assert_device (sibling, 0, expected + 200, 1000);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ memset */

static void
test_memset (void)
{
  const gsize size = 64 * KiB;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autofree guint8 *expected = NULL;
  GError *error = NULL;
  guint8 v8;
  guint16 v16;
  guint32 v32;

  if (!gcuda_test_require_gpu ())
    return;

  expected = random_data (size);
  buffer = new_buffer (NULL, size);
  upload_ok (buffer, 0, expected, size);
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);

  /* synchronous, at offsets, counts in elements */
  v8 = random_byte_except (0);
  memset_ok (buffer, expected, 3, 0, 1, v8, 1001, 1, NULL);

  v16 = (guint16) g_random_int_range (1, 0x10000);
  memset_ok (buffer, expected, 2000, 0, 2, v16, 777, 1, NULL);

  v32 = g_random_int () | 0x01010101;
  memset_ok (buffer, expected, 8196, 0, 4, v32, 1234, 1, NULL);
  assert_device (buffer, 0, expected, size);

  /* stream-ordered, up to the last element */
  v8 = random_byte_except (v8);
  memset_ok (buffer, expected, 20001, 0, 1, v8, 3, 1, stream);
  v16 = (guint16) (v16 + g_random_int_range (1, 0x10000));
  memset_ok (buffer, expected, 30002, 0, 2, v16, 5, 1, stream);
  v32 = ~v32;
  memset_ok (buffer, expected, size - 400, 0, 4, v32, 100, 1, stream);
  sync_stream (stream);
  assert_device (buffer, 0, expected, size);

  /* overlapping sets apply in order */
  memset_ok (buffer, expected, 40000, 0, 4, 0xa1b2c3d4, 64, 1, NULL);
  memset_ok (buffer, expected, 40001, 0, 1, 0x77, 10, 1, NULL);

  /* a count of 0 changes nothing, even at the end */
  g_assert_true (gcuda_buffer_memset_d32 (buffer, size, v32, 0, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_memset_d8 (buffer, 5, 0, 0, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  assert_device (buffer, 0, expected, size);

  /* the whole buffer */
  v32 = g_random_int () | 1;
  memset_ok (buffer, expected, 0, 0, 4, v32, size / 4, 1, NULL);
  assert_device (buffer, 0, expected, size);

  gcuda_test_assert_no_current_context ();
}

static void
test_memset_2d (void)
{
  const guint64 width = 1000, height = 37;
  g_autoptr(GCudaBuffer) pitched = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GCudaBuffer) flat = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autofree guint8 *expected = NULL;
  g_autofree guint8 *flat_expected = NULL;
  GError *error = NULL;
  guint64 pitch, size;
  guint8 v8;
  guint16 v16;
  guint32 v32;

  if (!gcuda_test_require_gpu ())
    return;

  pitched = gcuda_buffer_new_pitched (NULL, width, height, 4, &error);
  g_assert_no_error (error);
  pitch = gcuda_buffer_get_pitch (pitched);
  size = gcuda_buffer_get_size (pitched);
  g_assert_cmpuint (pitch, >=, width);
  g_assert_cmpuint (pitch % 4, ==, 0);
  g_assert_cmpuint (size, ==, pitch * height);
  g_test_message ("pitch of a %" G_GUINT64_FORMAT "-byte row: %" G_GUINT64_FORMAT, width, pitch);

  expected = random_data (size);
  upload_ok (pitched, 0, expected, size);
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);

  /* bytes: rows 2..11, bytes 5..304 of each */
  v8 = random_byte_except (0);
  memset_ok (pitched, expected, 2 * pitch + 5, pitch, 1, v8, 300, 10, NULL);

  /* 16-bit: rows 13..19, from byte 6 */
  v16 = (guint16) g_random_int_range (1, 0x10000);
  memset_ok (pitched, expected, 13 * pitch + 6, pitch, 2, v16, 200, 7, NULL);

  /* 32-bit on a stream: rows 21..36, the last row included */
  v32 = g_random_int () | 0x01010101;
  memset_ok (pitched, expected, 21 * pitch + 8, pitch, 4, v32, 100, 16, stream);
  sync_stream (stream);
  assert_device (pitched, 0, expected, size);

  /* whole rows, padding included, up to the buffer's last byte */
  v32 = ~v32;
  memset_ok (pitched, expected, 35 * pitch, pitch, 4, v32, pitch / 4, 2, NULL);

  /* another pitch than the buffer's: 5 rows of 10 bytes, 64 bytes apart */
  v8 = random_byte_except (v8);
  memset_ok (pitched, expected, 3 * pitch + 600, 64, 1, v8, 10, 5, stream);
  sync_stream (stream);
  assert_device (pitched, 0, expected, size);

  /* a view of a pitched buffer has its pitch; 2D sets through it land at
   * the view's offsets */
  view = new_view (pitched, 5 * pitch, 4 * pitch);
  g_assert_cmpuint (gcuda_buffer_get_pitch (view), ==, pitch);
  v16 = (guint16) (v16 + g_random_int_range (1, 0x10000));
  memset_ok (view, expected + 5 * pitch, pitch + 10, pitch, 2, v16, 20, 3, NULL);
  assert_device (pitched, 0, expected, size);

  /* 2D forms on a plain buffer with a made-up pitch, exactly to its end */
  flat = new_buffer (NULL, 1000);
  flat_expected = random_data (1000);
  upload_ok (flat, 0, flat_expected, 1000);
  v8 = random_byte_except (0);
  memset_ok (flat, flat_expected, 0, 100, 1, v8, 100, 10, NULL);
  v32 = g_random_int () | 1;
  memset_ok (flat, flat_expected, 200, 100, 4, v32, 3, 8, NULL);
  memset_ok (flat, flat_expected, 900, 50, 2, v16, 25, 2, NULL);
  assert_device (flat, 0, flat_expected, 1000);

  gcuda_test_assert_no_current_context ();
}

static void
test_pitched (void)
{
  static const guint access_sizes[] = { 4, 8, 16 };
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  for (gsize i = 0; i < G_N_ELEMENTS (access_sizes); i++)
    {
      g_autoptr(GCudaBuffer) pitched = NULL;
      g_autofree guint8 *data = NULL;
      guint64 pitch, size;

      pitched = gcuda_buffer_new_pitched (NULL, 333, 7, access_sizes[i], &error);
      g_assert_no_error (error);
      g_assert_cmpint (gcuda_buffer_get_kind (pitched), ==, GCUDA_BUFFER_KIND_PITCHED);
      pitch = gcuda_buffer_get_pitch (pitched);
      size = gcuda_buffer_get_size (pitched);
      g_assert_cmpuint (pitch, >=, 333);
      g_assert_cmpuint (size, ==, pitch * 7);

      /* all of it, padding included, is ordinary memory */
      data = random_data (size);
      poison (pitched, data[0] ^ 0xff);
      upload_ok (pitched, 0, data, size);
      assert_device (pitched, 0, data, size);
    }

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ copies */

static void
test_copy (void)
{
  const gsize size = 1 * MiB + 3;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaBuffer) a = NULL;
  g_autoptr(GCudaBuffer) b = NULL;
  g_autoptr(GCudaBuffer) c = NULL;
  g_autoptr(GCudaBuffer) va = NULL;
  g_autoptr(GCudaBuffer) vb = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autofree guint8 *a_data = NULL;
  g_autofree guint8 *b_data = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  a_data = random_data (size);
  b_data = random_data (size);
  a = new_buffer (NULL, size);
  b = new_buffer (NULL, size);
  upload_ok (a, 0, a_data, size);
  upload_ok (b, 0, b_data, size);

  /* the whole buffer */
  c = new_buffer (NULL, size);
  poison (c, a_data[0] ^ 0xff);
  g_assert_true (gcuda_buffer_copy_from (c, 0, a, 0, size, &error));
  g_assert_no_error (error);
  assert_device (c, 0, a_data, size);

  /* part of a into part of b */
  g_assert_true (gcuda_buffer_copy_from (b, 100, a, 200, 5000, &error));
  g_assert_no_error (error);
  memcpy (b_data + 100, a_data + 200, 5000);
  assert_device (b, 0, b_data, size);
  assert_device (a, 0, a_data, size);

  /* on a stream, to b's last byte */
  g_assert_true (gcuda_buffer_copy_from_on_stream (b, size - 1000, a, 17, 1000, stream, &error));
  g_assert_no_error (error);
  memcpy (b_data + size - 1000, a_data + 17, 1000);
  sync_stream (stream);
  assert_device (b, 0, b_data, size);

  /* on the legacy default stream */
  g_assert_true (gcuda_buffer_copy_from_on_stream (b, 7, a, size - 10, 10, NULL, &error));
  g_assert_no_error (error);
  memcpy (b_data + 7, a_data + size - 10, 10);
  sync_context (context);
  assert_device (b, 0, b_data, size);

  /* within one buffer, ranges apart */
  g_assert_true (gcuda_buffer_copy_from (a, 0, a, size / 2, 4096, &error));
  g_assert_no_error (error);
  memcpy (a_data, a_data + size / 2, 4096);
  assert_device (a, 0, a_data, size);

  /* between views */
  va = new_view (a, 1000, 2000);
  vb = new_view (b, 5000, 3000);
  g_assert_true (gcuda_buffer_copy_from (vb, 500, va, 0, 2000, &error));
  g_assert_no_error (error);
  memcpy (b_data + 5500, a_data + 1000, 2000);
  assert_device (b, 0, b_data, size);

  /* nothing at the very end */
  g_assert_true (gcuda_buffer_copy_from (b, size, a, size, 0, &error));
  g_assert_no_error (error);
  assert_device (b, 0, b_data, size);
  assert_device (a, 0, a_data, size);

  gcuda_test_assert_no_current_context ();
}

/* Copies between @ctx_a and @ctx_b (other contexts, maybe other devices)
 * both ways, synchronously and on streams of the destination's context. */
static void
check_copy_between (GCudaContext *ctx_a,
                    GCudaContext *ctx_b)
{
  const gsize size = 4 * MiB + 1;
  g_autoptr(GCudaBuffer) a = new_buffer (ctx_a, size);
  g_autoptr(GCudaBuffer) b = new_buffer (ctx_b, size);
  g_autoptr(GCudaBuffer) va = NULL;
  g_autoptr(GCudaStream) stream_a = new_stream (ctx_a, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(GCudaStream) stream_b = new_stream (ctx_b, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  g_autofree guint8 *a_data = random_data (size);
  g_autofree guint8 *b_data = random_data (size);
  GError *error = NULL;

  g_assert_true (gcuda_buffer_get_context (a) == ctx_a);
  g_assert_true (gcuda_buffer_get_context (b) == ctx_b);
  upload_ok (a, 0, a_data, size);
  upload_ok (b, 0, b_data, size);
  /* the streams are non-blocking and the contexts differ: settle both */
  sync_context (ctx_a);
  sync_context (ctx_b);

  /* a -> b, synchronous */
  g_assert_true (gcuda_buffer_copy_from (b, 10, a, 20, size - 20, &error));
  g_assert_no_error (error);
  memcpy (b_data + 10, a_data + 20, size - 20);
  assert_device (b, 0, b_data, size);
  assert_device (a, 0, a_data, size);

  /* b -> a on a stream of a's context */
  fill_random (b_data, size);
  upload_ok (b, 0, b_data, size);
  sync_context (ctx_b);
  g_assert_true (gcuda_buffer_copy_from_on_stream (a, 0, b, 0, size, stream_a, &error));
  g_assert_no_error (error);
  memcpy (a_data, b_data, size);
  sync_stream (stream_a);
  assert_device (a, 0, a_data, size);

  /* a view of a -> b on a stream of b's context */
  fill_random (a_data, size);
  upload_ok (a, 0, a_data, size);
  sync_context (ctx_a);
  va = new_view (a, 4096, 8192);
  g_assert_true (gcuda_buffer_copy_from_on_stream (b, 1, va, 0, 8192, stream_b, &error));
  g_assert_no_error (error);
  memcpy (b_data + 1, a_data + 4096, 8192);
  sync_stream (stream_b);
  assert_device (b, 0, b_data, size);
}

static void
test_copy_peer (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;
  GError *error = NULL;
  int count;

  if (!gcuda_test_require_gpu ())
    return;

  /* two contexts of one device */
  context = get_default ();
  dedicated = create_dedicated (NULL, 0);
  check_copy_between (context, dedicated);
  check_copy_between (dedicated, context);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);

  /* two devices, where there are */
  count = gcuda_device_get_count (&error);
  g_assert_no_error (error);
  if (count >= 2)
    {
      g_autoptr(GCudaDevice) device1 = gcuda_device_get (1, &error);
      g_autoptr(GCudaContext) primary1 = NULL;

      g_assert_no_error (error);
      primary1 = gcuda_device_get_primary_context (device1, &error);
      g_assert_no_error (error);
      check_copy_between (context, primary1);
      check_copy_between (primary1, context);
    }
  else
    g_test_message ("one device: peer copies between two contexts of device 0 only");

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ stream-ordered copies with page-locked memory */

/* Copies @size bytes between @pinned (page-locked) and @buffer on @stream,
 * HtoD when @upload, and asserts that the call only queued the copy: the
 * stream was still busy after it, and it took under a quarter of the copy's
 * time (reported under @what). */
static void
assert_copy_queued (GCudaBuffer  *buffer,
                    guint8       *pinned,
                    gsize         size,
                    GCudaStream  *stream,
                    gboolean      upload,
                    const char   *what)
{
  GError *error = NULL;
  gint64 t0, t1, t2;
  gboolean ok, busy;

  t0 = g_get_monotonic_time ();
  if (upload)
    ok = gcuda_buffer_upload_from_address_on_stream (buffer, 0, addr (pinned), size, stream, &error);
  else
    ok = gcuda_buffer_download_to_address_on_stream (buffer, 0, addr (pinned), size, stream, &error);
  g_assert_true (ok);
  t1 = g_get_monotonic_time ();
  g_assert_no_error (error);
  busy = !gcuda_stream_is_done (stream, &error);
  g_assert_no_error (error);
  sync_stream (stream);
  t2 = g_get_monotonic_time ();
  g_test_message ("%s on a stream: the call took %" G_GINT64_FORMAT
                  " us, the copy %" G_GINT64_FORMAT " us", what, t1 - t0, t2 - t0);
  g_assert_true (busy);
  g_assert_cmpint ((t1 - t0) * 4, <, t2 - t0);
}

static void
test_pinned_on_stream (void)
{
  const gsize size = 256 * MiB;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaHostBuffer) host = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autofree guint8 *expected = NULL;
  g_autofree guint8 *pageable = NULL;
  GError *error = NULL;
  guint8 *pinned;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  host = new_pagelocked (NULL, size);
  pinned = host_ptr (host);
  buffer = new_buffer (NULL, size);
  expected = g_malloc (size);

  /* warm up both directions */
  memset (pinned, 0, 4096);
  g_assert_true (gcuda_buffer_upload_from_address_on_stream (buffer, 0, addr (pinned), 4096, stream, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_download_to_address_on_stream (buffer, 0, addr (pinned), 4096, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);

  /* HtoD: the call only queues the copy */
  fill_random (pinned, size);
  memcpy (expected, pinned, size);
  poison (buffer, expected[0] ^ 0xff);
  sync_context (context);
  assert_copy_queued (buffer, pinned, size, stream, TRUE, "HtoD of 256 MiB from page-locked memory");
  assert_device (buffer, 0, expected, size);

  /* DtoH: likewise */
  fill_random (expected, size);
  upload_ok (buffer, 0, expected, size);
  memset (pinned, expected[0] ^ 0xff, size);
  sync_context (context);
  assert_copy_queued (buffer, pinned, size, stream, FALSE, "DtoH of 256 MiB into page-locked memory");
  assert_same (pinned, expected, size);

  /* at offsets, on the legacy default stream */
  fill_random (pinned, 8192);
  g_assert_true (gcuda_buffer_upload_from_address_on_stream (buffer, 1001, addr (pinned + 7), 4096, NULL, &error));
  g_assert_no_error (error);
  memcpy (expected + 1001, pinned + 7, 4096);
  sync_context (context);
  assert_device (buffer, 0, expected, 1 * MiB);
  memset (pinned, expected[size - 5000] ^ 0xff, 8192);
  g_assert_true (gcuda_buffer_download_to_address_on_stream (buffer, size - 5000, addr (pinned + 3), 5000, NULL, &error));
  g_assert_no_error (error);
  sync_context (context);
  assert_same (pinned + 3, expected + size - 5000, 5000);

  /* from and into pageable memory: the data is right too */
  pageable = random_data (size);
  memcpy (expected, pageable, size);
  g_assert_true (gcuda_buffer_upload_from_address_on_stream (buffer, 0, addr (pageable), size, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  assert_device (buffer, 0, expected, size);
  memset (pageable, expected[0] ^ 0xff, size);
  g_assert_true (gcuda_buffer_download_to_address_on_stream (buffer, 0, addr (pageable), size, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  assert_same (pageable, expected, size);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ download_async, upload_async */

static void
test_async (void)
{
  const gsize size = 4 * MiB + 5;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autofree guint8 *data = NULL;
  GCudaHostBuffer *host;
  gpointer weak_host;
  Transfer t;

  if (!gcuda_test_require_gpu ())
    return;

  data = random_data (size);
  buffer = new_buffer (NULL, size);
  upload_ok (buffer, 0, data, size);
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);

  /* download on a stream, at an offset; the callback runs in this thread's main loop */
  download_async_wait (&t, buffer, 3, size - 3, stream);
  g_assert_no_error (t.error);
  g_assert_true (t.ok);
  g_assert_true (t.thread == g_thread_self ());
  assert_bytes (t.bytes, data + 3, size - 3);
  transfer_clear (&t);

  /* on the legacy default stream */
  download_async_wait (&t, buffer, 0, size, NULL);
  g_assert_no_error (t.error);
  assert_bytes (t.bytes, data, size);
  transfer_clear (&t);

  /* upload: the caller may drop the bytes at once */
  fill_random (data, size);
  upload_async_wait (&t, buffer, 0, g_bytes_new (data, size), stream);
  g_assert_no_error (t.error);
  g_assert_true (t.ok);
  g_assert_true (t.thread == g_thread_self ());
  assert_device (buffer, 0, data, size);
  transfer_clear (&t);

  /* upload from page-locked memory held by the bytes, at an offset: the
   * memory lives until the copy is done, then goes */
  host = new_pagelocked (NULL, size - 100);
  fill_random (host_ptr (host), size - 100);
  memcpy (data + 100, host_ptr (host), size - 100);
  weak_host = host;
  g_object_add_weak_pointer (G_OBJECT (host), &weak_host);
  upload_async_wait (&t, buffer, 100, bytes_owning_host (host), NULL);
  g_assert_no_error (t.error);
  g_assert_true (t.ok);
  transfer_clear (&t);
  wait_for_finalize (&weak_host);
  assert_device (buffer, 0, data, size);

  /* nothing, at the end */
  download_async_wait (&t, buffer, size, 0, stream);
  g_assert_no_error (t.error);
  assert_bytes (t.bytes, data, 0);
  transfer_clear (&t);
  upload_async_wait (&t, buffer, size, g_bytes_new (NULL, 0), stream);
  g_assert_no_error (t.error);
  g_assert_true (t.ok);
  transfer_clear (&t);

  /* errors come through the callback */
  download_async_wait (&t, buffer, 1, size, stream);
  gcuda_assert_error (t.error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (t.bytes);
  transfer_clear (&t);

  upload_async_wait (&t, buffer, size - 1, random_bytes (2), stream);
  gcuda_assert_error (t.error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (t.ok);
  transfer_clear (&t);

  upload_async_wait (&t, buffer, 0, NULL, stream);
  gcuda_assert_error (t.error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  transfer_clear (&t);

  drain (stream);
  assert_device (buffer, 0, data, size);
  gcuda_test_assert_no_current_context ();
}

/* Cancelled right after queuing, behind a stall: the callback says
 * CANCELLED at once, the copy still runs later, from and into memory that
 * GCuda keeps alive until then. */
static void
test_async_cancel (void)
{
  const gsize size = 16 * MiB;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCancellable) cancellable = NULL;
  g_autofree guint8 *data = NULL;
  g_autofree guint8 *fresh = NULL;
  GCudaHostBuffer *host;
  gpointer weak_host;
  Staller *staller;
  GBytes *bytes;
  int stalled = 0;
  gint64 t0;
  Transfer t;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  data = random_data (size);
  buffer = new_buffer (NULL, size);
  upload_ok (buffer, 0, data, size);
  /* non-blocking, so that nothing of the legacy stream waits for the stall */
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  sync_context (context);
  staller = staller_new ();

  /* download */
  staller_block (staller, stream, step_new (500, &stalled));
  cancellable = g_cancellable_new ();
  transfer_init (&t);
  t.watch = &stalled;
  t0 = g_get_monotonic_time ();
  gcuda_buffer_download_async (buffer, 0, size, stream, cancellable, download_cb, &t);
  g_cancellable_cancel (cancellable);
  transfer_wait (&t);
  gcuda_assert_error (t.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (t.bytes);
  g_assert_cmpint (t.watch_value, ==, 0);  /* the stall still held the copy back */
  g_assert_cmpint (t.at - t0, <, 400 * MS);
  transfer_clear (&t);
  drain (stream);
  g_assert_true (g_atomic_int_get (&stalled));
  iterate_for (20);
  assert_device (buffer, 0, data, size);

  /* upload from page-locked memory that only the bytes hold */
  fresh = g_malloc (size);
  host = new_pagelocked (NULL, size);
  fill_random (host_ptr (host), size);
  memcpy (fresh, host_ptr (host), size);
  weak_host = host;
  g_object_add_weak_pointer (G_OBJECT (host), &weak_host);
  bytes = bytes_owning_host (host);
  host = NULL;

  stalled = 0;
  staller_block (staller, stream, step_new (500, &stalled));
  g_clear_object (&cancellable);
  cancellable = g_cancellable_new ();
  transfer_init (&t);
  t.watch = &stalled;
  t.weak = &weak_host;
  t0 = g_get_monotonic_time ();
  gcuda_buffer_upload_async (buffer, 0, bytes, stream, cancellable, upload_cb, &t);
  g_bytes_unref (bytes);
  g_cancellable_cancel (cancellable);
  transfer_wait (&t);
  gcuda_assert_error (t.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (t.ok);
  g_assert_cmpint (t.watch_value, ==, 0);
  g_assert_cmpint (t.at - t0, <, 400 * MS);
  g_assert_true (t.weak_alive);
  transfer_clear (&t);
  /* the copy has not run yet: its source must still be there */
  g_assert_nonnull (weak_host);
  drain (stream);
  wait_for_finalize (&weak_host);
  /* and it did run */
  assert_device (buffer, 0, fresh, size);

  staller_free (staller);
  gcuda_test_assert_no_current_context ();
}

static void
freed_flag_destroy (gpointer data)
{
  int **flags = data;

  /* flags[0]: set when freed; flags[1]: the stall's flag, copied */
  *flags[0] = 1 + g_atomic_int_get (flags[1]);
}

/* A cancellable cancelled before the call: CANCELLED at once. GCuda may
 * skip the copy, or do it with the bytes kept alive until it is done; it
 * may not release the bytes while a copy from them is still queued. The
 * bytes are pageable and small (staged at once), so a failure here is
 * reported, never a crash. */
static void
test_async_cancelled_before (void)
{
  const gsize size = 64 * KiB;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCancellable) cancellable = NULL;
  g_autoptr(GBytes) down = NULL;
  g_autofree guint8 *data = NULL;
  guint8 *fresh;
  int stalled = 0, freed = 0;
  int *flags[2] = { &freed, &stalled };
  GError *error = NULL;
  Staller *staller;
  GBytes *bytes;
  gboolean copied;
  Transfer t;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  data = random_data (size);
  buffer = new_buffer (NULL, size);
  upload_ok (buffer, 0, data, size);
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  sync_context (context);
  staller = staller_new ();
  cancellable = g_cancellable_new ();
  g_cancellable_cancel (cancellable);

  fresh = random_data (size);
  fresh[0] = data[0] ^ 0xff;
  bytes = g_bytes_new_with_free_func (fresh, size, freed_flag_destroy, flags);
  staller_block (staller, stream, step_new (300, &stalled));
  transfer_init (&t);
  gcuda_buffer_upload_async (buffer, 0, bytes, stream, cancellable, upload_cb, &t);
  g_bytes_unref (bytes);
  transfer_wait (&t);
  gcuda_assert_error (t.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  transfer_clear (&t);
  drain (stream);
  iterate_for (20);
  g_assert_cmpint (freed, !=, 0);

  down = gcuda_buffer_download (buffer, 0, size, &error);
  g_assert_no_error (error);
  copied = memcmp (g_bytes_get_data (down, NULL), data, size) != 0;
  if (copied)
    {
      /* the copy ran: the bytes must have lived until after the stall */
      assert_bytes (down, fresh, size);
      /* (not fatal: the later cases still run) */
      if (freed != 2)
        g_test_fail_printf ("the copy of a pre-cancelled upload_async() ran after its bytes were released "
                            "(the bytes must live until the copy is done, or the copy must not be queued)");
    }
  else
    assert_bytes (down, data, size);
  g_test_message ("a pre-cancelled upload_async() %s the copy", copied ? "still did" : "skipped");
  g_free (fresh);

  staller_free (staller);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ managed memory */

static void
test_managed (void)
{
  const gsize size = 8 * MiB + 3;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaBuffer) managed = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GCudaBuffer) host_attached = NULL;
  g_autofree guint8 *expected = NULL;
  g_autofree guint8 *out = NULL;
  GError *error = NULL;
  gboolean concurrent;
  guint8 *host;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  if (!gcuda_device_get_attribute (device, GCUDA_DEVICE_ATTRIBUTE_MANAGED_MEMORY, &error))
    {
      g_assert_no_error (error);
      g_test_skip ("the device has no managed memory");
      return;
    }
  concurrent = gcuda_device_get_attribute (device, GCUDA_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, &error) != 0;
  g_assert_no_error (error);

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  managed = gcuda_buffer_new_managed (NULL, size, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcuda_buffer_get_kind (managed), ==, GCUDA_BUFFER_KIND_MANAGED);
  g_assert_cmpuint (gcuda_buffer_get_size (managed), ==, size);
  g_assert_cmpuint (gcuda_buffer_get_address (managed), !=, 0);
  host = GSIZE_TO_POINTER (gcuda_buffer_get_address (managed));
  expected = g_malloc (size);
  out = g_malloc (size);

  /* the host writes through the address; the device copy sees it */
  fill_random (host, size);
  memcpy (expected, host, size);
  assert_device (managed, 0, expected, size);

  /* prefetch to the device, advice, back to the host */
  if (concurrent)
    {
      g_assert_true (gcuda_buffer_prefetch (managed, device, stream, &error));
      g_assert_no_error (error);
      sync_stream (stream);
    }
  g_assert_true (gcuda_buffer_advise (managed, GCUDA_MEMORY_ADVICE_SET_READ_MOSTLY, device, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_advise (managed, GCUDA_MEMORY_ADVICE_UNSET_READ_MOSTLY, device, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_advise (managed, GCUDA_MEMORY_ADVICE_SET_PREFERRED_LOCATION, device, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_advise (managed, GCUDA_MEMORY_ADVICE_SET_ACCESSED_BY, device, &error));
  g_assert_no_error (error);
  assert_device (managed, 0, expected, size);
  g_assert_true (gcuda_buffer_advise (managed, GCUDA_MEMORY_ADVICE_UNSET_ACCESSED_BY, device, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_advise (managed, GCUDA_MEMORY_ADVICE_UNSET_PREFERRED_LOCATION, device, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_advise (managed, GCUDA_MEMORY_ADVICE_SET_PREFERRED_LOCATION, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_advise (managed, GCUDA_MEMORY_ADVICE_UNSET_PREFERRED_LOCATION, NULL, &error));
  g_assert_no_error (error);

  /* the device side writes (a copy), the host reads after a prefetch home */
  fill_random (expected, size);
  upload_ok (managed, 0, expected, size);
  sync_context (gcuda_buffer_get_context (managed));
  if (concurrent)
    {
      g_assert_true (gcuda_buffer_prefetch (managed, NULL, stream, &error));
      g_assert_no_error (error);
      sync_stream (stream);
    }
  assert_same (host, expected, size);

  /* attach to the host, write there, attach to one stream, read on it */
  g_assert_true (gcuda_buffer_attach (managed, GCUDA_MEM_ATTACH_FLAGS_HOST, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  fill_random (host, size);
  memcpy (expected, host, size);
  g_assert_true (gcuda_buffer_attach (managed, GCUDA_MEM_ATTACH_FLAGS_SINGLE, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  memset (out, expected[0] ^ 0xff, size);
  g_assert_true (gcuda_buffer_download_to_address_on_stream (managed, 0, addr (out), size, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  assert_same (out, expected, size);
  g_assert_true (gcuda_buffer_attach (managed, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  assert_device (managed, 0, expected, size);

  /* a view of managed memory: prefetch, advise, attach (the allocation) */
  view = new_view (managed, 4096, 1 * MiB);
  if (concurrent)
    {
      g_assert_true (gcuda_buffer_prefetch (view, device, stream, &error));
      g_assert_no_error (error);
    }
  g_assert_true (gcuda_buffer_advise (view, GCUDA_MEMORY_ADVICE_SET_READ_MOSTLY, device, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_attach (view, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  assert_device (view, 0, expected + 4096, 1 * MiB);
  assert_same (host, expected, size);

  /* memory attached to the host from the start */
  host_attached = gcuda_buffer_new_managed (NULL, 3 * 4096, GCUDA_MEM_ATTACH_FLAGS_HOST, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcuda_buffer_get_kind (host_attached), ==, GCUDA_BUFFER_KIND_MANAGED);
  host = GSIZE_TO_POINTER (gcuda_buffer_get_address (host_attached));
  fill_random (host, 3 * 4096);
  memcpy (expected, host, 3 * 4096);
  g_assert_true (gcuda_buffer_attach (host_attached, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  assert_device (host_attached, 0, expected, 3 * 4096);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ IPC handles */

static void
test_ipc_handle (void)
{
  g_autoptr(GCudaBuffer) a = NULL;
  g_autoptr(GCudaBuffer) b = NULL;
  g_autoptr(GCudaBuffer) pitched = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GCudaBuffer) managed = NULL;
  g_autoptr(GBytes) ha = NULL;
  g_autoptr(GBytes) hb = NULL;
  g_autoptr(GBytes) hp = NULL;
  g_autoptr(GBytes) short_handle = NULL;
  g_autoptr(GBytes) long_handle = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  a = new_buffer (NULL, 1 * MiB);
  b = new_buffer (NULL, 1 * MiB);
  ha = gcuda_buffer_get_ipc_handle (a, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (ha), ==, IPC_HANDLE_SIZE);
  hb = gcuda_buffer_get_ipc_handle (b, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (hb), ==, IPC_HANDLE_SIZE);
  g_assert_false (g_bytes_equal (ha, hb));

  pitched = gcuda_buffer_new_pitched (NULL, 1000, 10, 4, &error);
  g_assert_no_error (error);
  hp = gcuda_buffer_get_ipc_handle (pitched, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (hp), ==, IPC_HANDLE_SIZE);

  /* views and managed memory have none */
  view = new_view (a, 4096, 4096);
  g_assert_null (gcuda_buffer_get_ipc_handle (view, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  managed = gcuda_buffer_new_managed (NULL, 4096, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
  g_assert_no_error (error);
  g_assert_null (gcuda_buffer_get_ipc_handle (managed, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* handles of the wrong length, checked before the driver sees them */
  short_handle = g_bytes_new ("abc", 3);
  g_assert_null (gcuda_buffer_open_ipc_handle (NULL, short_handle, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  long_handle = random_bytes (IPC_HANDLE_SIZE + 1);
  g_assert_null (gcuda_buffer_open_ipc_handle (NULL, long_handle, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_buffer_open_ipc_handle (NULL, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* a freed buffer has none */
  g_assert_true (gcuda_buffer_free (b, NULL));
  g_assert_null (gcuda_buffer_get_ipc_handle (b, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ what the driver knows of an address */

static void
test_address_info (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaContext) found = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GCudaBuffer) managed = NULL;
  g_autoptr(GCudaHostBuffer) pinned = NULL;
  g_autofree guint8 *pageable = NULL;
  GCudaBuffer *dbuf;
  GCudaMemoryType type = 99;
  gboolean is_managed = TRUE;
  GError *error = NULL;
  guint64 base = 0, size = 0;
  int ordinal = -2;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  buffer = new_buffer (NULL, 1 * MiB);
  view = new_view (buffer, 4096, 100);

  /* the allocation a view's address belongs to is its parent's */
  gcuda_context_get_address_range (NULL, gcuda_buffer_get_address (view), &base, &size, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (base, ==, gcuda_buffer_get_address (buffer));
  g_assert_cmpuint (size, >=, 1 * MiB);

  gcuda_context_get_pointer_info (gcuda_buffer_get_address (view), &type, &ordinal,
                                                 &is_managed, &found, &error);
  g_assert_no_error (error);
  g_assert_cmpint (type, ==, GCUDA_MEMORY_TYPE_DEVICE);
  g_assert_cmpint (ordinal, ==, 0);
  g_assert_false (is_managed);
  g_assert_true (found == context);
  g_clear_object (&found);

  /* managed memory */
  managed = gcuda_buffer_new_managed (NULL, 4096, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
  g_assert_no_error (error);
  gcuda_context_get_pointer_info (gcuda_buffer_get_address (managed), &type, NULL,
                                                 &is_managed, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (is_managed);
  g_assert_true (type == GCUDA_MEMORY_TYPE_DEVICE || type == GCUDA_MEMORY_TYPE_UNIFIED);

  /* page-locked host memory */
  pinned = new_pagelocked (NULL, 4096);
  gcuda_context_get_pointer_info (gcuda_host_buffer_get_address (pinned), &type, NULL,
                                                 &is_managed, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (type, ==, GCUDA_MEMORY_TYPE_HOST);
  g_assert_false (is_managed);

  /* ordinary host memory: unknown, not an error */
  pageable = g_malloc (4096);
  gcuda_context_get_pointer_info (addr (pageable), &type, &ordinal, NULL, &found, &error);
  g_assert_no_error (error);
  g_assert_cmpint (type, ==, GCUDA_MEMORY_TYPE_UNKNOWN);
  g_assert_cmpint (ordinal, ==, -1);
  g_assert_null (found);
  /* and in no device allocation */
  gcuda_context_get_address_range (context, addr (pageable), &base, &size, &error);
  g_assert_nonnull (error);
  if (!g_error_matches (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_FOUND))
    gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);
  g_clear_error (&error);

  /* memory of a dedicated context names that context */
  dedicated = create_dedicated (NULL, 0);
  dbuf = new_buffer (dedicated, 4096);
  gcuda_context_get_pointer_info (gcuda_buffer_get_address (dbuf), &type, NULL, NULL,
                                                 &found, &error);
  g_assert_no_error (error);
  g_assert_cmpint (type, ==, GCUDA_MEMORY_TYPE_DEVICE);
  g_assert_true (found == dedicated);
  g_clear_object (&found);
  gcuda_context_get_address_range (dedicated, gcuda_buffer_get_address (dbuf) + 10,
                                                  &base, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (base, ==, gcuda_buffer_get_address (dbuf));
  g_object_unref (dbuf);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ bad input */

static void
test_bad_arguments (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GBytes) empty = NULL;
  g_autofree guint8 *data = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();

  /* sizes of 0 */
  g_assert_null (gcuda_buffer_new (NULL, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_buffer_new (context, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_buffer_new_managed (NULL, 0, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  empty = g_bytes_new (NULL, 0);
  g_assert_null (gcuda_buffer_new_from_bytes (NULL, empty, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_buffer_new_from_bytes (NULL, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* pitched: widths, heights and access sizes */
  g_assert_null (gcuda_buffer_new_pitched (NULL, 100, 10, 3, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_buffer_new_pitched (NULL, 100, 10, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_buffer_new_pitched (NULL, 100, 10, 32, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_buffer_new_pitched (NULL, 0, 10, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_buffer_new_pitched (NULL, 100, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* managed memory is allocated GLOBAL or HOST, nothing else */
  g_assert_null (gcuda_buffer_new_managed (NULL, 4096, GCUDA_MEM_ATTACH_FLAGS_SINGLE, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_buffer_new_managed (NULL, 4096, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_buffer_new_managed (NULL, 4096, GCUDA_MEM_ATTACH_FLAGS_GLOBAL | GCUDA_MEM_ATTACH_FLAGS_HOST,
                                           &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  buffer = new_buffer (NULL, 1000);
  data = random_data (1000);
  upload_ok (buffer, 0, data, 1000);

  /* views of nothing */
  g_assert_null (gcuda_buffer_new_view (buffer, 0, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* NULL host memory */
  g_assert_false (gcuda_buffer_upload (buffer, 0, NULL, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_upload_bytes (buffer, 0, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_upload_from_address (buffer, 0, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_download_to_address (buffer, 0, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_download_to_address_on_stream (buffer, 0, 0, 10, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* something else than a stream */
  g_assert_false (gcuda_buffer_upload_from_address_on_stream (buffer, 0, addr (data), 10,
                                                              (gpointer) context, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  assert_device (buffer, 0, data, 1000);
  gcuda_test_assert_no_current_context ();
}

static void
test_out_of_bounds (void)
{
  const gsize size = 1000;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaBuffer) big = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GBytes) two = NULL;
  g_autofree guint8 *data = NULL;
  g_autofree guint8 *other = NULL;
  g_autofree guint8 *host = NULL;
  GError *error = NULL;
  Transfer t;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  data = random_data (size);
  other = random_data (2 * size);
  host = g_malloc (2 * size);
  buffer = new_buffer (NULL, size);
  upload_ok (buffer, 0, data, size);
  big = new_buffer (NULL, 2 * size);
  upload_ok (big, 0, other, 2 * size);
  two = random_bytes (2);

  /* uploads */
  g_assert_false (gcuda_buffer_upload (buffer, size - 1, other, 2, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_upload (buffer, 0, other, size + 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_upload (buffer, size, other, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_upload (buffer, size + 1, other, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_upload (buffer, 2, other, G_MAXSIZE, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_upload_bytes (buffer, size - 1, two, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_upload_bytes (buffer, G_MAXUINT64, two, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_upload_from_address (buffer, 1, addr (other), size, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  /* offset + size wraps around 2^64 */
  g_assert_false (gcuda_buffer_upload_from_address (buffer, G_MAXUINT64 - 1, addr (other), 2, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_upload_from_address (buffer, 10, addr (other), G_MAXUINT64 - 5, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_upload_from_address_on_stream (buffer, size - 10, addr (other), 11, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);

  /* downloads */
  g_assert_null (gcuda_buffer_download (buffer, 0, size + 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_buffer_download (buffer, size, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_buffer_download (buffer, 1, G_MAXUINT64, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_buffer_download (buffer, G_MAXUINT64, G_MAXUINT64, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_download_to_address (buffer, size - 10, addr (host), 11, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_download_to_address (buffer, G_MAXUINT64 - 3, addr (host), 8, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_download_to_address_on_stream (buffer, 0, addr (host), size + 1, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);

  /* copies: the destination's range, the source's range, wrap-around */
  g_assert_false (gcuda_buffer_copy_from (buffer, 0, big, 0, size + 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_copy_from (buffer, 1, big, 0, size, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_copy_from (big, 0, buffer, 1, size, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_copy_from (big, 0, buffer, G_MAXUINT64, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_copy_from (buffer, 1, big, 1, G_MAXUINT64, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_copy_from_on_stream (buffer, 500, big, 0, 501, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);

  /* memsets: counts in elements */
  g_assert_false (gcuda_buffer_memset_d8 (buffer, 0, 0xab, size + 1, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d8 (buffer, size, 0xab, 1, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d16 (buffer, size - 2, 0xabcd, 2, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d16 (buffer, 0, 0xabcd, size / 2 + 1, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d32 (buffer, size - 4, 0xabcdef01, 2, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d32 (buffer, 0, 0xabcdef01, size / 4 + 1, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d32 (buffer, 0, 1, G_MAXUINT64 / 2, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d16 (buffer, G_MAXUINT64 - 1, 1, 1, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d8_2d (buffer, 0, 100, 1, 50, 11, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d8_2d (buffer, 1, 100, 1, 100, 10, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d16_2d (buffer, 0, 2, 1, 1, 501, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d32_2d (buffer, 0, 8, 1, 2, G_MAXUINT64, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d32_2d (buffer, 0, G_MAXUINT64 - 3, 1, 1, 3, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);

  /* views */
  g_assert_null (gcuda_buffer_new_view (buffer, size - 1, 2, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_buffer_new_view (buffer, size, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_buffer_new_view (buffer, G_MAXUINT64, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_buffer_new_view (buffer, 10, G_MAXUINT64, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_buffer_new_view (buffer, G_MAXUINT64 - 5, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);

  /* a view's bounds are its own, not its parent's */
  view = new_view (buffer, 100, 200);
  g_assert_false (gcuda_buffer_upload (view, 150, other, 51, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_buffer_download (view, 0, 201, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_memset_d8 (view, 0, 1, 201, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_copy_from (view, 0, big, 0, 201, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_buffer_copy_from (big, 0, view, 1, 200, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_buffer_new_view (view, 0, 201, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);

  /* _async: through the callback */
  download_async_wait (&t, buffer, size - 1, 2, stream);
  gcuda_assert_error (t.error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  transfer_clear (&t);
  upload_async_wait (&t, view, 199, g_bytes_ref (two), stream);
  gcuda_assert_error (t.error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  transfer_clear (&t);

  /* nothing was written, not even the part that fitted */
  sync_stream (stream);
  assert_device (buffer, 0, data, size);
  assert_device (big, 0, other, 2 * size);

  gcuda_test_assert_no_current_context ();
}

static void
test_memset_alignment (void)
{
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autofree guint8 *data = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  data = random_data (4096);
  buffer = new_buffer (NULL, 4096);
  upload_ok (buffer, 0, data, 4096);

  g_assert_false (gcuda_buffer_memset_d16 (buffer, 1, 1, 10, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_memset_d32 (buffer, 2, 1, 10, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_memset_d32 (buffer, 5, 1, 10, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_memset_d32_2d (buffer, 2, 64, 1, 4, 4, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  /* pitches that are not multiples of the element size */
  g_assert_false (gcuda_buffer_memset_d16_2d (buffer, 0, 101, 1, 10, 3, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_memset_d32_2d (buffer, 0, 6, 1, 1, 3, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  /* rows wider than the pitch */
  g_assert_false (gcuda_buffer_memset_d32_2d (buffer, 0, 8, 1, 3, 2, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_memset_d8_2d (buffer, 0, 10, 1, 11, 2, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  assert_device (buffer, 0, data, 4096);
  gcuda_test_assert_no_current_context ();
}

/* The memsets' twins taking a double (what bindings call as memset_d8()
 * ...): a whole number of the width sets as the integer memset does;
 * anything else is INVALID_ARGUMENT, naming the value, and sets nothing. */
static void
test_memset_numbers (void)
{
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autofree guint8 *data = NULL;
  guint8 want[256];
  GError *error = NULL;
  const double bad8[] = { 3.7, -1, 256, NAN, INFINITY, -INFINITY, 1e-300 };
  const double bad32[] = { 0.5, -1, 4294967296.0, NAN, 9007199254740994.0 };

  if (!gcuda_test_require_gpu ())
    return;

  data = random_data (sizeof want);
  buffer = new_buffer (NULL, sizeof want);
  upload_ok (buffer, 0, data, sizeof want);
  for (guint i = 0; i < G_N_ELEMENTS (bad8); i++)
    {
      g_assert_false (gcuda_buffer_memset_d8_number (buffer, 0, bad8[i], 16, NULL, &error));
      g_assert_nonnull (strstr (error->message, "The memset value"));
      g_assert_nonnull (strstr (error->message, "from 0 to 255"));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_assert_false (gcuda_buffer_memset_d8_2d_number (buffer, 0, 16, bad8[i], 4, 2, NULL, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    }
  g_assert_false (gcuda_buffer_memset_d16_number (buffer, 0, 65536, 4, NULL, &error));
  g_assert_nonnull (strstr (error->message, "65536"));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_memset_d16_2d_number (buffer, 0, 16, 1.5, 4, 2, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  for (guint i = 0; i < G_N_ELEMENTS (bad32); i++)
    {
      g_assert_false (gcuda_buffer_memset_d32_number (buffer, 0, bad32[i], 4, NULL, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_assert_false (gcuda_buffer_memset_d32_2d_number (buffer, 0, 16, bad32[i], 2, 2, NULL, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    }
  /* 2^53 + 2 with every digit */
  g_assert_false (gcuda_buffer_memset_d32_number (buffer, 0, 9007199254740994.0, 4, NULL, &error));
  g_assert_nonnull (strstr (error->message, "9007199254740994"));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  assert_device (buffer, 0, data, sizeof want);

  /* exact values: as the integer memsets set them */
  memcpy (want, data, sizeof want);
  g_assert_true (gcuda_buffer_memset_d8_number (buffer, 1, 255, 3, NULL, &error));
  memset (want + 1, 0xff, 3);
  g_assert_true (gcuda_buffer_memset_d16_number (buffer, 8, 0xbeef, 2, NULL, &error));
  want[8] = want[10] = 0xef;
  want[9] = want[11] = 0xbe;
  g_assert_true (gcuda_buffer_memset_d32_number (buffer, 16, 4294967295.0, 2, NULL, &error));
  memset (want + 16, 0xff, 8);
  g_assert_true (gcuda_buffer_memset_d32_number (buffer, 24, 0, 1, NULL, &error));
  memset (want + 24, 0, 4);
  /* 2 rows of 2 elements, 16 bytes apart, from byte 64 */
  g_assert_true (gcuda_buffer_memset_d8_2d_number (buffer, 64, 16, 7, 2, 2, NULL, &error));
  want[64] = want[65] = want[80] = want[81] = 7;
  g_assert_true (gcuda_buffer_memset_d16_2d_number (buffer, 96, 16, 0x0102, 2, 2, NULL, &error));
  for (guint r = 0; r < 2; r++)
    for (guint e = 0; e < 2; e++)
      {
        want[96 + 16 * r + 2 * e] = 0x02;
        want[96 + 16 * r + 2 * e + 1] = 0x01;
      }
  g_assert_true (gcuda_buffer_memset_d32_2d_number (buffer, 128, 16, 0x01020304, 2, 2, NULL, &error));
  for (guint r = 0; r < 2; r++)
    for (guint e = 0; e < 2; e++)
      {
        guint8 *w = want + 128 + 16 * r + 4 * e;

        w[0] = 0x04; w[1] = 0x03; w[2] = 0x02; w[3] = 0x01;
      }
  g_assert_no_error (error);
  assert_device (buffer, 0, want, sizeof want);
  /* the memset's own errors after the value's */
  g_assert_false (gcuda_buffer_memset_d32_number (buffer, 2, 1, 1, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_memset_d8_number (buffer, 0, 1, sizeof want + 1, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  assert_device (buffer, 0, want, sizeof want);
  gcuda_test_assert_no_current_context ();
}

static void
test_freed (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaBuffer) live = NULL;
  g_autoptr(GCudaBuffer) managed = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree guint8 *data = NULL;
  GError *error = NULL;
  guint64 address, prop_address = 0;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  device = gcuda_test_get_device ();
  data = random_data (4096);
  bytes = g_bytes_new (data, 100);
  live = new_buffer (NULL, 4096);
  upload_ok (live, 0, data, 4096);
  buffer = new_buffer (NULL, 4096);
  upload_ok (buffer, 0, data, 4096);
  address = gcuda_buffer_get_address (buffer);

  g_assert_true (gcuda_buffer_free (buffer, NULL));
  g_assert_true (gcuda_buffer_is_freed (buffer));
  /* twice: an error, and nothing is released again */
  g_assert_false (gcuda_buffer_free (buffer, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_true (gcuda_buffer_is_freed (buffer));
  /* the address stays readable */
  g_assert_cmpuint (gcuda_buffer_get_address (buffer), ==, address);
  g_object_get (buffer, "address", &prop_address, NULL);
  g_assert_cmpuint (prop_address, ==, address);

  /* every use */
  g_assert_false (gcuda_buffer_upload (buffer, 0, data, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_upload_bytes (buffer, 0, bytes, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_upload_from_address (buffer, 0, addr (data), 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_upload_from_address_on_stream (buffer, 0, addr (data), 10, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_null (gcuda_buffer_download (buffer, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_download_to_address (buffer, 0, addr (data), 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_download_to_address_on_stream (buffer, 0, addr (data), 10, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_copy_from (buffer, 0, live, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_copy_from (live, 0, buffer, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_copy_from_on_stream (live, 0, buffer, 0, 10, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_memset_d8 (buffer, 0, 1, 10, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_memset_d16 (buffer, 0, 1, 10, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_memset_d32 (buffer, 0, 1, 10, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_memset_d8_2d (buffer, 0, 64, 1, 10, 2, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_memset_d32_2d (buffer, 0, 64, 1, 10, 2, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_null (gcuda_buffer_new_view (buffer, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_null (gcuda_buffer_get_ipc_handle (buffer, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  assert_async_fail (buffer, 10, bytes, stream, GCUDA_ERROR_FREED);

  /* freed managed memory */
  managed = gcuda_buffer_new_managed (NULL, 4096, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_free (managed, NULL));
  g_assert_false (gcuda_buffer_attach (managed, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_prefetch (managed, device, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_advise (managed, GCUDA_MEMORY_ADVICE_SET_READ_MOSTLY, device, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  /* the other buffer is untouched */
  sync_stream (stream);
  assert_device (live, 0, data, 4096);
  gcuda_test_assert_no_current_context ();
}

static void
test_freed_parent (void)
{
  g_autoptr(GCudaBuffer) parent = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GCudaBuffer) view2 = NULL;
  g_autoptr(GCudaBuffer) live = NULL;
  g_autofree guint8 *data = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  data = random_data (4096);
  live = new_buffer (NULL, 4096);
  parent = new_buffer (NULL, 4096);
  upload_ok (parent, 0, data, 4096);
  view = new_view (parent, 10, 1000);
  view2 = new_view (view, 1, 100);

  g_assert_true (gcuda_buffer_free (parent, NULL));
  g_assert_true (gcuda_buffer_is_freed (parent));
  g_assert_true (gcuda_buffer_is_freed (view));
  g_assert_true (gcuda_buffer_is_freed (view2));

  g_assert_false (gcuda_buffer_upload (view, 0, data, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_null (gcuda_buffer_download (view, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_null (gcuda_buffer_download (view2, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_download_to_address (view2, 0, addr (data), 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_memset_d8 (view, 0, 1, 10, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_copy_from (live, 0, view2, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_copy_from (view, 0, live, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_null (gcuda_buffer_new_view (view, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  /* freeing the views now is FREED (their memory went with the parent);
   * dropping them is harmless */
  g_assert_false (gcuda_buffer_free (view2, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_is_freed (live));
  g_clear_object (&view2);
  g_clear_object (&view);
  gcuda_test_assert_no_current_context ();
}

static void
test_out_of_memory (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaBuffer) small = NULL;
  GCudaBuffer *buffer;
  GError *error = NULL;
  guint64 total;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  total = gcuda_device_get_total_memory (device);
  g_assert_cmpuint (total, >, 0);

  buffer = gcuda_buffer_new (NULL, total * 2, &error);
  g_assert_null (buffer);
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_OUT_OF_MEMORY);
  g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_MEMORY);
  g_clear_error (&error);

  /* the context is fine afterwards */
  small = new_buffer (NULL, 4096);
  poison (small, 0x3c);
  gcuda_test_assert_no_current_context ();
}

static void
test_not_managed (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaBuffer) pitched = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GCudaBuffer) managed = NULL;
  GCudaBuffer *not_managed[3];
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  buffer = new_buffer (NULL, 4096);
  pitched = gcuda_buffer_new_pitched (NULL, 100, 10, 4, &error);
  g_assert_no_error (error);
  view = new_view (buffer, 0, 100);
  not_managed[0] = buffer;
  not_managed[1] = pitched;
  not_managed[2] = view;

  for (gsize i = 0; i < G_N_ELEMENTS (not_managed); i++)
    {
      g_assert_false (gcuda_buffer_attach (not_managed[i], GCUDA_MEM_ATTACH_FLAGS_GLOBAL, stream, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_assert_false (gcuda_buffer_attach (not_managed[i], GCUDA_MEM_ATTACH_FLAGS_HOST, NULL, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_assert_false (gcuda_buffer_prefetch (not_managed[i], device, stream, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_assert_false (gcuda_buffer_prefetch (not_managed[i], NULL, NULL, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_assert_false (gcuda_buffer_advise (not_managed[i], GCUDA_MEMORY_ADVICE_SET_READ_MOSTLY, device, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    }

  /* managed memory, bad flags and advice */
  managed = gcuda_buffer_new_managed (NULL, 4096, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
  g_assert_no_error (error);
  g_assert_false (gcuda_buffer_attach (managed, 0, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_attach (managed, GCUDA_MEM_ATTACH_FLAGS_GLOBAL | GCUDA_MEM_ATTACH_FLAGS_HOST,
                                       stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_attach (managed, 1 << 5, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_attach (managed, GCUDA_MEM_ATTACH_FLAGS_SINGLE, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_advise (managed, 0, device, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_advise (managed, 7, device, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  sync_stream (stream);
  gcuda_test_assert_no_current_context ();
}

static void
test_context_mismatch (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  GCudaStream *other_stream, *stream;
  GCudaBuffer *buffer, *other, *managed, *dbuf;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree guint8 *data = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  device = gcuda_test_get_device ();
  dedicated = create_dedicated (NULL, 0);
  other_stream = new_stream (dedicated, GCUDA_STREAM_FLAGS_DEFAULT);
  stream = new_stream (context, GCUDA_STREAM_FLAGS_DEFAULT);
  data = random_data (4096);
  bytes = g_bytes_new (data, 100);
  buffer = new_buffer (context, 4096);
  upload_ok (buffer, 0, data, 4096);
  other = new_buffer (context, 4096);
  dbuf = new_buffer (dedicated, 4096);
  managed = gcuda_buffer_new_managed (context, 4096, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
  g_assert_no_error (error);

  /* a stream of another context than the buffer's */
  g_assert_false (gcuda_buffer_upload_from_address_on_stream (buffer, 0, addr (data), 100, other_stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_false (gcuda_buffer_download_to_address_on_stream (buffer, 0, addr (data), 100, other_stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_false (gcuda_buffer_copy_from_on_stream (other, 0, buffer, 0, 100, other_stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  /* across contexts the stream is the destination's */
  g_assert_false (gcuda_buffer_copy_from_on_stream (dbuf, 0, buffer, 0, 100, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_false (gcuda_buffer_memset_d8 (buffer, 0, 1, 100, other_stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_false (gcuda_buffer_memset_d16 (buffer, 0, 1, 10, other_stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_false (gcuda_buffer_memset_d32_2d (buffer, 0, 64, 1, 4, 4, other_stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_false (gcuda_buffer_attach (managed, GCUDA_MEM_ATTACH_FLAGS_SINGLE, other_stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_false (gcuda_buffer_prefetch (managed, device, other_stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);

  assert_async_fail (buffer, 100, bytes, other_stream, GCUDA_ERROR_CONTEXT_MISMATCH);

  /* nothing happened */
  assert_device (buffer, 0, data, 4096);

  g_object_unref (other_stream);
  g_object_unref (stream);
  g_object_unref (buffer);
  g_object_unref (other);
  g_object_unref (dbuf);
  g_object_unref (managed);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

static void
test_destroyed_context (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaBuffer) live = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree guint8 *data = NULL;
  GCudaBuffer *buffer, *view, *managed;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  device = gcuda_test_get_device ();
  data = random_data (4096);
  bytes = g_bytes_new (data, 100);
  live = new_buffer (context, 4096);
  upload_ok (live, 0, data, 4096);

  dedicated = create_dedicated (NULL, 0);
  buffer = new_buffer (dedicated, 4096);
  upload_ok (buffer, 0, data, 4096);
  view = new_view (buffer, 10, 100);
  managed = gcuda_buffer_new_managed (dedicated, 4096, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
  g_assert_no_error (error);
  sync_context (dedicated);

  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);

  /* new memory in it */
  g_assert_null (gcuda_buffer_new (dedicated, 16, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_buffer_new_pitched (dedicated, 16, 2, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_buffer_new_managed (dedicated, 16, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_buffer_new_from_bytes (dedicated, bytes, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  /* memory that was in it */
  g_assert_false (gcuda_buffer_upload (buffer, 0, data, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_buffer_download (buffer, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_buffer_download_to_address (buffer, 0, addr (data), 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_buffer_memset_d8 (buffer, 0, 1, 10, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_buffer_get_ipc_handle (buffer, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_buffer_upload (view, 0, data, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  /* copies from and into it, with a live buffer on the other side */
  g_assert_false (gcuda_buffer_copy_from (live, 0, buffer, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_buffer_copy_from (buffer, 0, live, 0, 10, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  /* managed memory */
  g_assert_false (gcuda_buffer_attach (managed, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_buffer_prefetch (managed, device, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_buffer_advise (managed, GCUDA_MEMORY_ADVICE_SET_READ_MOSTLY, device, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  assert_async_fail (buffer, 10, bytes, NULL, GCUDA_ERROR_CONTEXT_DESTROYED);

  /* freeing and finalizing afterwards is harmless */
  g_assert_true (gcuda_buffer_free (buffer, NULL));
  g_assert_true (gcuda_buffer_is_freed (buffer));
  g_object_unref (view);
  g_object_unref (buffer);
  g_object_unref (managed);

  /* the live buffer in the default context is untouched */
  assert_device (live, 0, data, 4096);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ exports */

/* Exports keep the memory: free() retires the buffer (and its views) at
 * once, the memory goes with the last export; a view's exports keep the
 * memory it views. With the mock driver, its accounting shows when. */
static void
test_export (void)
{
  GCudaBuffer *managed, *view, *other_view, *by_hand;
  GCudaContext *dedicated;
  GError *error = NULL;
  gsize live0, leaks0, live, leaks;
  gboolean mock;
  guint8 *host;

  if (!gcuda_test_require_gpu ())
    return;
  mock = mock_memory_counts (&live0, &leaks0);

  managed = gcuda_buffer_new_managed (NULL, 1 * MiB, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
  g_assert_no_error (error);
  host = GSIZE_TO_POINTER (gcuda_buffer_get_address (managed));
  view = new_view (managed, 4096, 4096);
  other_view = new_view (managed, 0, 16);

  g_assert_false (gcuda_buffer_export_end (view, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_true (gcuda_buffer_export_begin (view, &error));
  g_assert_no_error (error);

  /* freeing a view retires the view only; freeing what it views retires all */
  g_assert_true (gcuda_buffer_free (other_view, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_free (managed, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_is_freed (managed));
  g_assert_true (gcuda_buffer_is_freed (view));
  g_assert_null (gcuda_buffer_download (view, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_export_begin (managed, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_buffer_free (managed, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  /* the memory is still the export's */
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0 + mock);
  memset (host, 7, 1 * MiB);
  g_assert_true (gcuda_buffer_export_end (view, &error));
  g_assert_no_error (error);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0);
  g_assert_false (gcuda_buffer_export_end (managed, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_object_unref (other_view);
  g_object_unref (view);
  g_object_unref (managed);

  /* a context destroyed under an export: retired at once, destroyed after
   * the memory was released with the export's end */
  dedicated = create_dedicated (NULL, 0);
  managed = gcuda_buffer_new_managed (dedicated, 1 * MiB, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
  g_assert_no_error (error);
  host = GSIZE_TO_POINTER (gcuda_buffer_get_address (managed));
  g_assert_true (gcuda_buffer_export_begin (managed, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  g_assert_null (gcuda_buffer_download (managed, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_buffer_export_begin (managed, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  memset (host, 8, 1 * MiB);
  g_assert_true (gcuda_buffer_free (managed, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_export_end (managed, &error));
  g_assert_no_error (error);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0);
  g_assert_cmpuint (leaks, ==, leaks0);
  g_object_unref (managed);
  g_object_unref (dedicated);

  /* device memory too (a pointer handed to another library), and an
   * export left unended goes with the last reference */
  managed = new_buffer (NULL, 4096);
  g_assert_true (gcuda_buffer_export_begin (managed, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_free (managed, &error));
  g_assert_no_error (error);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0 + mock);
  g_object_unref (managed);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0);

  by_hand = g_object_new (GCUDA_TYPE_BUFFER, NULL);
  g_assert_false (gcuda_buffer_export_begin (by_hand, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_buffer_export_end (by_hand, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_object_unref (by_hand);

  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (leaks, ==, leaks0);
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/buffer/properties", test_properties);
  g_test_add_data_func ("/buffer/round-trip/1", GSIZE_TO_POINTER (1), test_round_trip);
  g_test_add_data_func ("/buffer/round-trip/3", GSIZE_TO_POINTER (3), test_round_trip);
  g_test_add_data_func ("/buffer/round-trip/4096", GSIZE_TO_POINTER (4096), test_round_trip);
  g_test_add_data_func ("/buffer/round-trip/1MiB+7", GSIZE_TO_POINTER (MiB + 7), test_round_trip);
  g_test_add_data_func ("/buffer/round-trip/256MiB", GSIZE_TO_POINTER (256 * MiB), test_round_trip);
  g_test_add_func ("/buffer/offsets", test_offsets);
  g_test_add_func ("/buffer/views", test_views);
  g_test_add_func ("/buffer/view-keeps-parent", test_view_keeps_parent);
  g_test_add_func ("/buffer/view-free", test_view_free);
  g_test_add_func ("/buffer/memset", test_memset);
  g_test_add_func ("/buffer/memset-2d", test_memset_2d);
  g_test_add_func ("/buffer/pitched", test_pitched);
  g_test_add_func ("/buffer/copy", test_copy);
  g_test_add_func ("/buffer/copy-peer", test_copy_peer);
  g_test_add_func ("/buffer/pinned-on-stream", test_pinned_on_stream);
  g_test_add_func ("/buffer/async", test_async);
  g_test_add_func ("/buffer/async-cancel", test_async_cancel);
  g_test_add_func ("/buffer/async-cancelled-before", test_async_cancelled_before);
  g_test_add_func ("/buffer/managed", test_managed);
  g_test_add_func ("/buffer/export", test_export);
  g_test_add_func ("/buffer/ipc-handle", test_ipc_handle);
  g_test_add_func ("/buffer/address-info", test_address_info);
  g_test_add_func ("/buffer/bad-input/arguments", test_bad_arguments);
  g_test_add_func ("/buffer/bad-input/out-of-bounds", test_out_of_bounds);
  g_test_add_func ("/buffer/bad-input/memset-alignment", test_memset_alignment);
  g_test_add_func ("/buffer/bad-input/memset-numbers", test_memset_numbers);
  g_test_add_func ("/buffer/bad-input/freed", test_freed);
  g_test_add_func ("/buffer/bad-input/freed-parent", test_freed_parent);
  g_test_add_func ("/buffer/bad-input/out-of-memory", test_out_of_memory);
  g_test_add_func ("/buffer/bad-input/not-managed", test_not_managed);
  g_test_add_func ("/buffer/bad-input/context-mismatch", test_context_mismatch);
  g_test_add_func ("/buffer/bad-input/destroyed-context", test_destroyed_context);

  return g_test_run ();
}
