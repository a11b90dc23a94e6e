/* test-stream-pool.c: GCudaStreamPool, the driver's stream-ordered allocator
 *
 * Every case needs a GPU (it skips without one).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-test-util.h"

#define MIB (G_GUINT64_CONSTANT (1) << 20)

static guint8 *
random_data (gsize size)
{
  guint8 *data = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) g_random_int ();
  return data;
}

static GCudaStreamPool *
new_pool (GCudaContext *context)
{
  GError *error = NULL;
  GCudaStreamPool *pool = gcuda_stream_pool_new (context, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_STREAM_POOL (pool));
  return pool;
}

static GCudaStream *
new_stream (GCudaContext *context)
{
  GError *error = NULL;
  GCudaStream *stream = gcuda_stream_new (context, 0, 0, &error);

  g_assert_no_error (error);
  return stream;
}

/* Uploads fresh random data on @stream and reads it back on @stream. */
static void
check_round_trip_on_stream (GCudaBuffer *buffer,
                            GCudaStream *stream)
{
  gsize size = gcuda_buffer_get_size (buffer);
  g_autofree guint8 *data = random_data (size);
  g_autofree guint8 *back = g_malloc0 (size);
  GError *error = NULL;

  g_assert_true (gcuda_buffer_upload_from_address_on_stream (buffer, 0, (guint64) (guintptr) data, size,
                                                             stream, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_download_to_address_on_stream (buffer, 0, (guint64) (guintptr) back, size,
                                                             stream, &error));
  g_assert_no_error (error);
  if (stream != NULL)
    g_assert_true (gcuda_stream_synchronize (stream, &error));
  else
    g_assert_true (gcuda_context_synchronize (gcuda_buffer_get_context (buffer), &error));
  g_assert_no_error (error);
  g_assert_cmpmem (back, size, data, size);
}

/* Synchronous upload/download through the legacy stream. */
static void
check_round_trip (GCudaBuffer *buffer)
{
  gsize size = gcuda_buffer_get_size (buffer);
  g_autofree guint8 *data = random_data (size);
  g_autoptr(GBytes) back = NULL;
  GError *error = NULL;

  g_assert_true (gcuda_buffer_upload (buffer, 0, data, size, &error));
  g_assert_no_error (error);
  back = gcuda_buffer_download (buffer, 0, size, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (back, NULL), g_bytes_get_size (back), data, size);
}

static void
test_round_trip (void)
{
  g_autoptr(GCudaStreamPool) pool = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaBuffer) a = NULL;
  g_autoptr(GCudaBuffer) b = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  pool = new_pool (NULL);
  g_assert_nonnull (gcuda_stream_pool_get_context (pool));
  stream = new_stream (gcuda_stream_pool_get_context (pool));

  a = gcuda_stream_pool_allocate (pool, 100003, stream, &error);
  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_BUFFER (a));
  g_assert_cmpuint (gcuda_buffer_get_size (a), ==, 100003);
  g_assert_cmpuint (gcuda_buffer_get_address (a), !=, 0);
  g_assert_true (gcuda_buffer_get_context (a) == gcuda_stream_pool_get_context (pool));
  check_round_trip_on_stream (a, stream);

  /* the legacy stream */
  b = gcuda_stream_pool_allocate (pool, 4097, NULL, &error);
  g_assert_no_error (error);
  check_round_trip (b);
  check_round_trip_on_stream (b, NULL);

  g_assert_true (gcuda_buffer_free (a, NULL));
  g_assert_true (gcuda_buffer_free (b, NULL));
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

static void
test_many_pairs (void)
{
  g_autoptr(GCudaStreamPool) pool = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  pool = new_pool (NULL);
  stream = new_stream (NULL);
  for (guint i = 0; i < 2000; i++)
    {
      guint64 size = (guint64) g_random_int_range (1, 1 << 20);
      GCudaBuffer *buffer = gcuda_stream_pool_allocate (pool, size, stream, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (gcuda_buffer_get_size (buffer), ==, size);
      if (i % 250 == 0)
        check_round_trip_on_stream (buffer, stream);
      if (i % 2 == 0)
        g_assert_true (gcuda_buffer_free (buffer, NULL)); /* free() then the last reference: freed once */
      g_object_unref (buffer);
    }
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_stream_pool_get_used_bytes_current (pool, &error), ==, 0);
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

static void
test_counters_and_trim (void)
{
  g_autoptr(GCudaStreamPool) pool = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  GCudaBuffer *buffers[4];
  GError *error = NULL;
  guint64 used, reserved, reserved_before_trim, prop = 0;

  if (!gcuda_test_require_gpu ())
    return;

  pool = new_pool (NULL);
  stream = new_stream (NULL);
  g_assert_cmpuint (gcuda_stream_pool_get_used_bytes_current (pool, &error), ==, 0);
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (buffers); i++)
    {
      buffers[i] = gcuda_stream_pool_allocate (pool, 3 * MIB, stream, &error);
      g_assert_no_error (error);
    }
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);

  used = gcuda_stream_pool_get_used_bytes_current (pool, &error);
  g_assert_no_error (error);
  reserved = gcuda_stream_pool_get_reserved_bytes_current (pool, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (used, >=, G_N_ELEMENTS (buffers) * 3 * MIB);
  g_assert_cmpuint (reserved, >=, used);
  g_object_get (pool, "used-bytes-current", &prop, NULL);
  g_assert_cmpuint (prop, ==, used);
  g_object_get (pool, "reserved-bytes-current", &prop, NULL);
  g_assert_cmpuint (prop, ==, reserved);

  for (guint i = 0; i < G_N_ELEMENTS (buffers); i++)
    g_object_unref (buffers[i]);
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_stream_pool_get_used_bytes_current (pool, &error), ==, 0);
  g_assert_no_error (error);

  /* the default threshold keeps the freed memory until trimmed */
  reserved_before_trim = gcuda_stream_pool_get_reserved_bytes_current (pool, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (reserved_before_trim, >, 0);
  g_assert_true (gcuda_stream_pool_trim (pool, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_stream_pool_get_reserved_bytes_current (pool, &error), <, reserved_before_trim);
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_pool_trim (pool, G_MAXUINT64, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

static void
test_release_threshold (void)
{
  g_autoptr(GCudaStreamPool) pool = NULL;
  GError *error = NULL;
  guint64 value = 0;

  if (!gcuda_test_require_gpu ())
    return;

  pool = new_pool (NULL);
  g_assert_cmpuint (gcuda_stream_pool_get_release_threshold (pool), ==, G_MAXUINT64);
  g_object_get (pool, "release-threshold", &value, NULL);
  g_assert_cmpuint (value, ==, G_MAXUINT64);

  g_object_set (pool, "release-threshold", (guint64) (5 * MIB), NULL);
  g_assert_cmpuint (gcuda_stream_pool_get_release_threshold (pool), ==, 5 * MIB);
  g_assert_true (gcuda_stream_pool_set_release_threshold (pool, 0, &error));
  g_assert_no_error (error);
  g_object_get (pool, "release-threshold", &value, NULL);
  g_assert_cmpuint (value, ==, 0);
  g_assert_true (gcuda_stream_pool_set_release_threshold (pool, G_MAXUINT64, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_stream_pool_get_release_threshold (pool), ==, G_MAXUINT64);
  gcuda_test_assert_no_current_context ();
}

static void
test_errors (void)
{
  g_autoptr(GCudaStreamPool) pool = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaContext) other = NULL;
  g_autoptr(GCudaStream) foreign = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  pool = new_pool (NULL);
  g_assert_null (gcuda_stream_pool_allocate (pool, 0, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  device = gcuda_test_get_device ();
  other = gcuda_device_create_context (device, 0, &error);
  g_assert_no_error (error);
  foreign = new_stream (other);
  g_assert_null (gcuda_stream_pool_allocate (pool, 1024, foreign, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);

  /* nothing broke: the pool still allocates */
  buffer = gcuda_stream_pool_allocate (pool, 1024, NULL, &error);
  g_assert_no_error (error);
  check_round_trip (buffer);

  g_clear_object (&foreign);
  g_assert_true (gcuda_context_destroy (other, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* The buffers hold the pool: dropping it first changes nothing. */
static void
test_pool_dropped_first (void)
{
  GCudaStreamPool *pool;
  g_autoptr(GCudaStream) stream = NULL;
  GCudaBuffer *a, *b;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  pool = new_pool (NULL);
  stream = new_stream (NULL);
  g_object_add_weak_pointer (G_OBJECT (pool), (gpointer *) &pool);
  a = gcuda_stream_pool_allocate (pool, 65536, stream, &error);
  g_assert_no_error (error);
  b = gcuda_stream_pool_allocate (pool, 1000, NULL, &error);
  g_assert_no_error (error);
  g_object_unref (pool);
  g_assert_nonnull (pool);

  check_round_trip_on_stream (a, stream);
  check_round_trip (b);
  g_assert_true (gcuda_buffer_free (a, NULL));
  g_object_unref (a);
  g_assert_nonnull (pool);
  g_object_unref (b);
  g_assert_null (pool);
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* A pool in a context destroyed under it: its buffers report it, and
 * dropping everything afterwards is harmless. */
static void
test_context_destroyed (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaContext) context = NULL;
  GCudaStreamPool *pool;
  GCudaStream *stream;
  GCudaBuffer *buffer;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  context = gcuda_device_create_context (device, 0, &error);
  g_assert_no_error (error);
  pool = new_pool (context);
  g_assert_true (gcuda_stream_pool_get_context (pool) == context);
  stream = new_stream (context);
  buffer = gcuda_stream_pool_allocate (pool, 4096, stream, &error);
  g_assert_no_error (error);
  check_round_trip_on_stream (buffer, stream);

  g_assert_true (gcuda_context_destroy (context, &error));
  g_assert_no_error (error);
  g_assert_null (gcuda_stream_pool_allocate (pool, 4096, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_stream_pool_trim (pool, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  g_object_unref (pool);
  g_object_unref (buffer);
  g_object_unref (stream);
  gcuda_test_assert_no_current_context ();
}

/* With a stream of its own, the stream-ordered allocator runs in the
 * stream's context, which GCuda does not make current: whatever context the
 * thread has current (none, another one) stays, and the memory is the
 * stream's context's. */
static void
test_other_context_current (void)
{
  g_autoptr(GCudaStreamPool) pool = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaContext) other = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  GCudaContext *context, *current;
  GError *error = NULL;
  guint64 address;

  if (!gcuda_test_require_gpu ())
    return;

  pool = new_pool (NULL);
  context = gcuda_stream_pool_get_context (pool);
  stream = new_stream (context);
  device = gcuda_test_get_device ();
  other = gcuda_device_create_context (device, 0, &error);
  g_assert_no_error (error);

  g_assert_true (gcuda_context_push (other, &error));
  g_assert_no_error (error);
  address = gcuda_stream_pool_allocate_address (pool, 65536, stream, &error);
  g_assert_no_error (error);
  buffer = gcuda_stream_pool_allocate (pool, 4099, stream, &error);
  g_assert_no_error (error);
  current = gcuda_context_get_current (&error);
  g_assert_no_error (error);
  g_assert_true (current == other);
  g_assert_true (gcuda_context_pop (&error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();

  {
    g_autoptr(GCudaBuffer) view = gcuda_buffer_new_for_address (context, address, 65536, NULL, NULL, &error);

    g_assert_no_error (error);
    check_round_trip_on_stream (view, stream);
  }
  check_round_trip_on_stream (buffer, stream);
  g_assert_true (gcuda_stream_pool_free_address (pool, address, stream, &error));
  g_assert_no_error (error);
  g_clear_object (&buffer);
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_stream_pool_get_used_bytes_current (pool, &error), ==, 0);
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* Memory by address: the same allocations without buffer objects. Each
 * address holds the pool; bad addresses and streams are refused and
 * change nothing. */
static void
test_by_address (void)
{
  GCudaStreamPool *pool;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaContext) other = NULL;
  g_autoptr(GCudaStream) foreign = NULL;
  GCudaContext *context;
  GError *error = NULL;
  guint64 address = 0, second = 0, refused = 1;
  const guint64 size = 100003;

  if (!gcuda_test_require_gpu ())
    return;

  pool = new_pool (NULL);
  context = gcuda_stream_pool_get_context (pool);
  stream = new_stream (context);
  g_object_add_weak_pointer (G_OBJECT (pool), (gpointer *) &pool);

  address = gcuda_stream_pool_allocate_address (pool, size, stream, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (address, !=, 0);
  {
    g_autoptr(GCudaBuffer) view = gcuda_buffer_new_for_address (context, address, size, NULL, NULL, &error);

    g_assert_no_error (error);
    check_round_trip_on_stream (view, stream);
  }
  g_assert_cmpuint (gcuda_stream_pool_get_used_bytes_current (pool, &error), >=, size);
  g_assert_no_error (error);
  second = gcuda_stream_pool_allocate_address (pool, 4096, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (second, !=, 0);
  g_assert_cmpuint (second, !=, address);

  /* refused, nothing changes */
  refused = gcuda_stream_pool_allocate_address (pool, 0, stream, &error);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (refused, ==, 0);
  g_assert_false (gcuda_stream_pool_free_address (pool, 0x1000, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_stream_pool_free_address (pool, address + 8, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  device = gcuda_test_get_device ();
  other = gcuda_device_create_context (device, 0, &error);
  g_assert_no_error (error);
  foreign = new_stream (other);
  refused = gcuda_stream_pool_allocate_address (pool, 64, foreign, &error);
  g_assert_cmpuint (refused, ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_false (gcuda_stream_pool_free_address (pool, address, foreign, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);

  /* the addresses hold the pool: dropped, it lives until the last is given back */
  g_object_unref (pool);
  g_assert_nonnull (pool);
  g_assert_true (gcuda_stream_pool_free_address (pool, address, stream, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_stream_pool_free_address (pool, address, stream, &error));   /* twice */
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_stream_pool_get_used_bytes_current (pool, &error), >=, 4096);
  g_assert_no_error (error);
  g_assert_nonnull (pool);
  g_assert_true (gcuda_stream_pool_free_address (pool, second, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (pool);   /* the last address given back */
  g_clear_object (&foreign);
  g_assert_true (gcuda_context_destroy (other, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* Many allocate/free_address pairs on one stream, as a hot loop makes them:
 * every byte is given back. */
static void
test_by_address_many (void)
{
  g_autoptr(GCudaStreamPool) pool = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  pool = new_pool (NULL);
  stream = new_stream (gcuda_stream_pool_get_context (pool));
  for (guint i = 0; i < 2000; i++)
    {
      guint64 address = 0;

      address = gcuda_stream_pool_allocate_address (pool, 1 + g_random_int_range (0, 1 << 20), stream, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (address, !=, 0);
      g_assert_true (gcuda_stream_pool_free_address (pool, address, stream, &error));
      g_assert_no_error (error);
    }
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_stream_pool_get_used_bytes_current (pool, &error), ==, 0);
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/stream-pool/round-trip", test_round_trip);
  g_test_add_func ("/stream-pool/many-pairs", test_many_pairs);
  g_test_add_func ("/stream-pool/counters-and-trim", test_counters_and_trim);
  g_test_add_func ("/stream-pool/release-threshold", test_release_threshold);
  g_test_add_func ("/stream-pool/errors", test_errors);
  g_test_add_func ("/stream-pool/pool-dropped-first", test_pool_dropped_first);
  g_test_add_func ("/stream-pool/context-destroyed", test_context_destroyed);
  g_test_add_func ("/stream-pool/other-context-current", test_other_context_current);
  g_test_add_func ("/stream-pool/by-address", test_by_address);
  g_test_add_func ("/stream-pool/by-address-many", test_by_address_many);

  return g_test_run ();
}
