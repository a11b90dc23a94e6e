/* test-host-buffer.c: GCudaHostBuffer: page-locked, aligned and registered
 * host memory
 *
 * The cases under /host-buffer/aligned need no driver and no GPU (aligned
 * memory is plain posix_memalign() memory): run them alone, in CI, with
 * `-p /host-buffer/aligned`. Every other case needs a GPU.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>
#include <unistd.h>

#include "gcuda-test-async.h"
#include "gcuda-test-memory.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ data */

static guint64
page_size (void)
{
  return (guint64) sysconf (_SC_PAGESIZE);
}

/* Asserts that gcuda_host_buffer_read() of the whole buffer gives @want. */
static void
assert_host_read_at (const char      *file,
                     int              line,
                     GCudaHostBuffer *host,
                     guint64          offset,
                     const guint8    *want,
                     gsize            size)
{
  GError *error = NULL;
  g_autoptr(GBytes) bytes = gcuda_host_buffer_read (host, offset, size, &error);

  if (error != NULL)
    g_error ("%s:%d: read failed: %s", file, line, error->message);
  assert_bytes_at (file, line, bytes, want, size);
}

#define assert_host_read(host, offset, want, size) \
  assert_host_read_at (__FILE__, __LINE__, (host), (offset), (want), (size))

static GCudaHostBuffer *
new_aligned (guint64 size,
             guint64 alignment)
{
  GError *error = NULL;
  GCudaHostBuffer *host = gcuda_host_buffer_new_aligned (size, alignment, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_HOST_BUFFER (host));
  return host;
}

static void
write_ok (GCudaHostBuffer *host,
          guint64          offset,
          const guint8    *data,
          gsize            size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  GError *error = NULL;

  g_assert_true (gcuda_host_buffer_write (host, offset, bytes, &error));
  g_assert_no_error (error);
}

/* Byte access, bounds and freeing: the same for every kind of host buffer
 * (and needing no driver for aligned memory). Frees @host. */
static void
check_byte_access (GCudaHostBuffer *host)
{
  const gsize size = gcuda_host_buffer_get_size (host);
  g_autofree guint8 *expected = random_data (size);
  g_autofree guint8 *part = random_data (MIN (size, 100));
  g_autoptr(GBytes) two = g_bytes_new (part, MIN (size, 2));
  g_autoptr(GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr(GBytes) bytes = NULL;
  GError *error = NULL;
  guint64 address = gcuda_host_buffer_get_address (host), prop_address = 0;

  g_assert_cmpuint (size, >=, 2);

  /* round trip, and the bytes are really at the address */
  write_ok (host, 0, expected, size);
  assert_same (host_ptr (host), expected, size);
  assert_host_read (host, 0, expected, size);
  fill_random (host_ptr (host), size);
  memcpy (expected, host_ptr (host), size);
  assert_host_read (host, 0, expected, size);

  /* at offsets */
  write_ok (host, size - MIN (size, 100), part, MIN (size, 100));
  memcpy (expected + size - MIN (size, 100), part, MIN (size, 100));
  write_ok (host, 1, part, 1);
  expected[1] = part[0];
  assert_host_read (host, 0, expected, size);
  assert_host_read (host, 1, expected + 1, size - 1);
  assert_host_read (host, size - 1, expected + size - 1, 1);

  /* nothing, at the end */
  bytes = gcuda_host_buffer_read (host, size, 0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (bytes);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 0);
  g_clear_pointer (&bytes, g_bytes_unref);
  g_assert_true (gcuda_host_buffer_write (host, size, empty, &error));
  g_assert_no_error (error);

  /* out of bounds, including offset + size wrapping around 2^64 */
  g_assert_null (gcuda_host_buffer_read (host, 0, size + 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_host_buffer_read (host, size, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_host_buffer_read (host, size + 1, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_host_buffer_read (host, 1, G_MAXUINT64, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_null (gcuda_host_buffer_read (host, G_MAXUINT64, 2, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_host_buffer_write (host, size - 1, two, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_host_buffer_write (host, G_MAXUINT64 - 1, two, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_host_buffer_write (host, size + 1, empty, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_host_buffer_write (host, 0, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  /* nothing was written, not even the part that fitted */
  assert_host_read (host, 0, expected, size);

  /* freed: every use, but the address stays readable */
  g_assert_true (gcuda_host_buffer_free (host, NULL));
  g_assert_true (gcuda_host_buffer_is_freed (host));
  /* twice: an error, and nothing is released again */
  g_assert_false (gcuda_host_buffer_free (host, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_true (gcuda_host_buffer_is_freed (host));
  g_assert_cmpuint (gcuda_host_buffer_get_address (host), ==, address);
  g_object_get (host, "address", &prop_address, NULL);
  g_assert_cmpuint (prop_address, ==, address);
  g_assert_null (gcuda_host_buffer_read (host, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_host_buffer_write (host, 0, two, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_cmpuint (gcuda_host_buffer_get_device_address (host, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_host_buffer_unregister (host, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
}

/* ------------------------------------------------------------ aligned: no driver */

static void
test_aligned (void)
{
  static const guint64 alignments[] = { 64, 4096, 65536 };
  static const guint64 sizes[] = { 1, 1000, 1 * MiB + 3 };

  for (gsize a = 0; a < G_N_ELEMENTS (alignments); a++)
    for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
      {
        g_autoptr(GCudaHostBuffer) host = NULL;
        g_autofree guint8 *data = random_data (sizes[s]);
        GCudaContext *prop_context = NULL;
        GCudaHostBufferKind kind = GCUDA_HOST_BUFFER_KIND_PAGELOCKED;
        guint64 address = 0, size = 0;
        guint flags = 1;

        host = new_aligned (sizes[s], alignments[a]);
        g_assert_cmpint (gcuda_host_buffer_get_kind (host), ==, GCUDA_HOST_BUFFER_KIND_ALIGNED);
        g_assert_null (gcuda_host_buffer_get_context (host));
        g_assert_cmpuint (gcuda_host_buffer_get_alloc_flags (host), ==, 0);
        g_assert_cmpuint (gcuda_host_buffer_get_register_flags (host), ==, 0);
        g_assert_cmpuint (gcuda_host_buffer_get_size (host), ==, sizes[s]);
        g_assert_cmpuint (gcuda_host_buffer_get_address (host), !=, 0);
        g_assert_cmpuint (gcuda_host_buffer_get_address (host) % alignments[a], ==, 0);
        g_assert_false (gcuda_host_buffer_is_freed (host));

        g_object_get (host, "context", &prop_context, "address", &address, "size", &size,
                      "kind", &kind, "alloc-flags", &flags, NULL);
        g_assert_null (prop_context);
        g_assert_cmpuint (address, ==, gcuda_host_buffer_get_address (host));
        g_assert_cmpuint (size, ==, sizes[s]);
        g_assert_cmpint (kind, ==, GCUDA_HOST_BUFFER_KIND_ALIGNED);
        g_assert_cmpuint (flags, ==, 0);

        /* the memory is usable to its last byte */
        memcpy (host_ptr (host), data, sizes[s]);
        assert_host_read (host, 0, data, sizes[s]);
      }
}

static void
test_aligned_page (void)
{
  g_autoptr(GCudaHostBuffer) host = NULL;

  /* alignment 0: the page size */
  host = new_aligned (100, 0);
  g_assert_cmpuint (gcuda_host_buffer_get_address (host) % page_size (), ==, 0);
  g_clear_object (&host);

  /* the smallest alignment: a pointer's size */
  host = new_aligned (100, sizeof (void *));
  g_assert_cmpuint (gcuda_host_buffer_get_address (host) % sizeof (void *), ==, 0);
}

static void
test_aligned_bytes (void)
{
  g_autoptr(GCudaHostBuffer) host = new_aligned (1 * MiB + 3, 4096);

  check_byte_access (host);
}

static void
test_aligned_bad_input (void)
{
  static const guint64 bad_alignments[] = { 1, 3, 4, 48, 100, 4097, G_MAXUINT64 };
  g_autoptr(GCudaHostBuffer) host = NULL;
  GError *error = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (bad_alignments); i++)
    {
      g_assert_null (gcuda_host_buffer_new_aligned (100, bad_alignments[i], &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    }
  g_assert_null (gcuda_host_buffer_new_aligned (0, 64, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* aligned memory is not mapped into any device nor registered */
  host = new_aligned (4096, 4096);
  g_assert_cmpuint (gcuda_host_buffer_get_device_address (host, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_host_buffer_unregister (host, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_host_buffer_is_freed (host));
}

/* ------------------------------------------------------------ page-locked */

static GCudaBuffer *
new_device_buffer (guint64 size)
{
  GError *error = NULL;
  GCudaBuffer *buffer = gcuda_buffer_new (NULL, size, &error);

  g_assert_no_error (error);
  return buffer;
}

static gboolean
device_attribute (GCudaDeviceAttribute attribute)
{
  g_autoptr(GCudaDevice) device = gcuda_test_get_device ();
  GError *error = NULL;
  int value = gcuda_device_get_attribute (device, attribute, &error);

  g_assert_no_error (error);
  return value != 0;
}

/* Copies through @host both ways between the device and host memory, on
 * the legacy stream and on a stream (page-locked: truly asynchronous). */
static void
check_device_transfers (GCudaHostBuffer *host,
                        gboolean         device_writes)
{
  const gsize size = gcuda_host_buffer_get_size (host);
  g_autoptr(GCudaBuffer) buffer = new_device_buffer (size);
  g_autoptr(GCudaStream) stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  g_autofree guint8 *expected = g_malloc (size);
  g_autoptr(GBytes) down = NULL;
  GError *error = NULL;

  /* HtoD, synchronous */
  fill_random (host_ptr (host), size);
  memcpy (expected, host_ptr (host), size);
  poison (buffer, expected[0] ^ 0xff);
  g_assert_true (gcuda_buffer_upload_from_address (buffer, 0, gcuda_host_buffer_get_address (host), size, &error));
  g_assert_no_error (error);
  down = gcuda_buffer_download (buffer, 0, size, &error);
  g_assert_no_error (error);
  assert_bytes (down, expected, size);
  g_clear_pointer (&down, g_bytes_unref);

  /* HtoD on a stream */
  fill_random (host_ptr (host), size);
  memcpy (expected, host_ptr (host), size);
  g_assert_true (gcuda_buffer_upload_from_address_on_stream (buffer, 0, gcuda_host_buffer_get_address (host),
                                                             size, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  down = gcuda_buffer_download (buffer, 0, size, &error);
  g_assert_no_error (error);
  assert_bytes (down, expected, size);
  g_clear_pointer (&down, g_bytes_unref);

  if (!device_writes)
    return;

  /* DtoH, synchronous and on a stream */
  fill_random (expected, size);
  upload_ok (buffer, 0, expected, size);
  memset (host_ptr (host), expected[0] ^ 0xff, size);
  g_assert_true (gcuda_buffer_download_to_address (buffer, 0, gcuda_host_buffer_get_address (host), size, &error));
  g_assert_no_error (error);
  assert_same (host_ptr (host), expected, size);

  memset (host_ptr (host), expected[0] ^ 0xff, size);
  g_assert_true (gcuda_buffer_download_to_address_on_stream (buffer, 0, gcuda_host_buffer_get_address (host),
                                                             size, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  assert_same (host_ptr (host), expected, size);
  assert_host_read (host, 0, expected, size);
}

static void
test_pagelocked (void)
{
  static const guint flag_sets[] = {
    GCUDA_HOST_ALLOC_FLAGS_DEFAULT,
    GCUDA_HOST_ALLOC_FLAGS_PORTABLE,
    GCUDA_HOST_ALLOC_FLAGS_DEVICEMAP,
    GCUDA_HOST_ALLOC_FLAGS_WRITECOMBINED,
    GCUDA_HOST_ALLOC_FLAGS_PORTABLE | GCUDA_HOST_ALLOC_FLAGS_DEVICEMAP,
    GCUDA_HOST_ALLOC_FLAGS_PORTABLE | GCUDA_HOST_ALLOC_FLAGS_DEVICEMAP | GCUDA_HOST_ALLOC_FLAGS_WRITECOMBINED,
  };
  const gsize size = 1 * MiB + 5;
  g_autoptr(GCudaContext) context = NULL;
  GError *error = NULL;
  gboolean uva;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  uva = device_attribute (GCUDA_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);

  for (gsize i = 0; i < G_N_ELEMENTS (flag_sets); i++)
    {
      g_autoptr(GCudaHostBuffer) host = NULL;
      GCudaContext *prop_context = NULL;
      GCudaHostBufferKind kind = GCUDA_HOST_BUFFER_KIND_ALIGNED;
      GCudaMemoryType type = GCUDA_MEMORY_TYPE_UNKNOWN;
      guint64 address = 0, prop_size = 0, device_address;
      guint flags = G_MAXUINT;

      host = gcuda_host_buffer_new_pagelocked (NULL, size, flag_sets[i], &error);
      g_assert_no_error (error);
      g_assert_true (GCUDA_IS_HOST_BUFFER (host));
      g_assert_cmpint (gcuda_host_buffer_get_kind (host), ==, GCUDA_HOST_BUFFER_KIND_PAGELOCKED);
      g_assert_true (gcuda_host_buffer_get_context (host) == context);
      g_assert_cmpuint (gcuda_host_buffer_get_alloc_flags (host), ==, flag_sets[i]);
      g_assert_cmpuint (gcuda_host_buffer_get_register_flags (host), ==, 0);
      g_assert_cmpuint (gcuda_host_buffer_get_size (host), ==, size);
      g_assert_cmpuint (gcuda_host_buffer_get_address (host), !=, 0);
      g_assert_false (gcuda_host_buffer_is_freed (host));

      g_object_get (host, "context", &prop_context, "address", &address, "size", &prop_size,
                    "kind", &kind, "alloc-flags", &flags, NULL);
      g_assert_true (prop_context == context);
      g_clear_object (&prop_context);
      g_assert_cmpuint (address, ==, gcuda_host_buffer_get_address (host));
      g_assert_cmpuint (prop_size, ==, size);
      g_assert_cmpint (kind, ==, GCUDA_HOST_BUFFER_KIND_PAGELOCKED);
      g_assert_cmpuint (flags, ==, flag_sets[i]);

      /* the driver knows it as page-locked host memory */
      g_assert_true (gcuda_context_get_pointer_info (address, &type, NULL, NULL, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpint (type, ==, GCUDA_MEMORY_TYPE_HOST);

      device_address = gcuda_host_buffer_get_device_address (host, &error);
      if (flag_sets[i] & GCUDA_HOST_ALLOC_FLAGS_DEVICEMAP)
        {
          g_assert_no_error (error);
          g_assert_cmpuint (device_address, !=, 0);
          /* with unified addressing, host and device see one address */
          if (uva)
            g_assert_cmpuint (device_address, ==, address);
        }
      else
        {
          g_assert_cmpuint (device_address, ==, 0);
          gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
        }

      /* page-locked memory is not registered memory */
      g_assert_false (gcuda_host_buffer_unregister (host, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

      check_device_transfers (host, TRUE);
    }

  gcuda_test_assert_no_current_context ();
}

static void
test_pagelocked_bytes (void)
{
  if (!gcuda_test_require_gpu ())
    return;

  {
    g_autoptr(GCudaHostBuffer) host = NULL;
    GError *error = NULL;

    host = gcuda_host_buffer_new_pagelocked (NULL, 64 * KiB + 1, GCUDA_HOST_ALLOC_FLAGS_DEVICEMAP, &error);
    g_assert_no_error (error);
    check_byte_access (host);
  }
  gcuda_test_assert_no_current_context ();
}

static void
test_pagelocked_bad_input (void)
{
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  g_assert_null (gcuda_host_buffer_new_pagelocked (NULL, 0, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_host_buffer_new_pagelocked (NULL, 4096, 1 << 5, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_host_buffer_new_pagelocked (NULL, 4096, GCUDA_HOST_ALLOC_FLAGS_PORTABLE | (1u << 31), &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ registered */

static void
test_register (void)
{
  const guint64 page = page_size ();
  const guint64 size = 16 * page;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaHostBuffer) memory = NULL;
  g_autofree guint8 *expected = NULL;
  GArray *flag_sets;
  GError *error = NULL;
  gboolean same_pointer;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  same_pointer = device_attribute (GCUDA_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
  memory = new_aligned (size, page);
  expected = g_malloc (size);

  flag_sets = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_append_vals (flag_sets, (guint[]) {
    GCUDA_HOST_REGISTER_FLAGS_DEFAULT,
    GCUDA_HOST_REGISTER_FLAGS_PORTABLE,
    GCUDA_HOST_REGISTER_FLAGS_DEVICEMAP,
    GCUDA_HOST_REGISTER_FLAGS_PORTABLE | GCUDA_HOST_REGISTER_FLAGS_DEVICEMAP,
  }, 4);
  if (device_attribute (GCUDA_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED))
    g_array_append_val (flag_sets, (guint) { GCUDA_HOST_REGISTER_FLAGS_READ_ONLY });
  else
    g_test_message ("READ_ONLY registration is not supported: not tried");

  for (guint i = 0; i < flag_sets->len; i++)
    {
      const guint flags = g_array_index (flag_sets, guint, i);
      g_autoptr(GCudaHostBuffer) registered = NULL;
      GCudaContext *prop_context = NULL;
      GCudaHostBufferKind kind = GCUDA_HOST_BUFFER_KIND_ALIGNED;
      GCudaMemoryType type = GCUDA_MEMORY_TYPE_UNKNOWN;
      guint64 device_address;
      guint prop_flags = G_MAXUINT;

      registered = gcuda_host_buffer_register (NULL, gcuda_host_buffer_get_address (memory), size, flags, &error);
      g_assert_no_error (error);
      g_assert_true (GCUDA_IS_HOST_BUFFER (registered));
      g_assert_cmpint (gcuda_host_buffer_get_kind (registered), ==, GCUDA_HOST_BUFFER_KIND_REGISTERED);
      g_assert_true (gcuda_host_buffer_get_context (registered) == context);
      g_assert_cmpuint (gcuda_host_buffer_get_address (registered), ==, gcuda_host_buffer_get_address (memory));
      g_assert_cmpuint (gcuda_host_buffer_get_size (registered), ==, size);
      g_assert_cmpuint (gcuda_host_buffer_get_register_flags (registered), ==, flags);
      g_assert_cmpuint (gcuda_host_buffer_get_alloc_flags (registered), ==, 0);
      g_object_get (registered, "context", &prop_context, "kind", &kind, "register-flags", &prop_flags, NULL);
      g_assert_true (prop_context == context);
      g_clear_object (&prop_context);
      g_assert_cmpint (kind, ==, GCUDA_HOST_BUFFER_KIND_REGISTERED);
      g_assert_cmpuint (prop_flags, ==, flags);

      g_assert_true (gcuda_context_get_pointer_info (gcuda_host_buffer_get_address (registered), &type,
                                                     NULL, NULL, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpint (type, ==, GCUDA_MEMORY_TYPE_HOST);

      device_address = gcuda_host_buffer_get_device_address (registered, &error);
      if (flags & GCUDA_HOST_REGISTER_FLAGS_DEVICEMAP)
        {
          g_assert_no_error (error);
          g_assert_cmpuint (device_address, !=, 0);
          g_test_message ("registered with DEVICEMAP: device address %s the host address (%s)",
                          device_address == gcuda_host_buffer_get_address (registered) ? "==" : "!=",
                          same_pointer ? "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM" : "no host pointer use");
        }
      else
        {
          g_assert_cmpuint (device_address, ==, 0);
          gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
        }

      /* the same memory, seen through either object */
      fill_random (host_ptr (memory), size);
      assert_host_read (registered, 0, host_ptr (memory), size);
      check_device_transfers (registered, !(flags & GCUDA_HOST_REGISTER_FLAGS_READ_ONLY));

      /* unregister: the registered buffer is retired, the memory stays the caller's */
      memcpy (expected, host_ptr (memory), size);
      g_assert_true (gcuda_host_buffer_unregister (registered, &error));
      g_assert_no_error (error);
      g_assert_true (gcuda_host_buffer_is_freed (registered));
      g_assert_null (gcuda_host_buffer_read (registered, 0, 1, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
      g_assert_false (gcuda_host_buffer_unregister (registered, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
      /* twice: an error, and nothing is released again */
      g_assert_false (gcuda_host_buffer_free (registered, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
      g_assert_false (gcuda_host_buffer_is_freed (memory));
      assert_host_read (memory, 0, expected, size);
    }
  g_array_unref (flag_sets);

  /* part of it, pages inside */
  {
    g_autoptr(GCudaHostBuffer) part = NULL;
    GCudaHostBuffer *again;
    gpointer weak;

    part = gcuda_host_buffer_register (NULL, gcuda_host_buffer_get_address (memory) + page, 2 * page, 0, &error);
    g_assert_no_error (error);
    check_device_transfers (part, TRUE);

    /* registered twice: the driver refuses */
    again = gcuda_host_buffer_register (NULL, gcuda_host_buffer_get_address (memory) + page, 2 * page, 0, &error);
    g_assert_null (again);
    gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_HOST_MEMORY_ALREADY_REGISTERED);

    /* the last reference going unregisters: registering again works */
    weak = part;
    g_object_add_weak_pointer (G_OBJECT (part), &weak);
    g_clear_object (&part);
    g_assert_null (weak);
    part = gcuda_host_buffer_register (NULL, gcuda_host_buffer_get_address (memory) + page, 2 * page, 0, &error);
    g_assert_no_error (error);
    /* and so does free() */
    g_assert_true (gcuda_host_buffer_free (part, NULL));
    g_clear_object (&part);
    part = gcuda_host_buffer_register (NULL, gcuda_host_buffer_get_address (memory) + page, 2 * page, 0, &error);
    g_assert_no_error (error);
  }

  /* byte access to registered memory */
  {
    GCudaHostBuffer *registered;

    registered = gcuda_host_buffer_register (NULL, gcuda_host_buffer_get_address (memory), size, 0, &error);
    g_assert_no_error (error);
    check_byte_access (registered);
    g_object_unref (registered);
  }

  gcuda_test_assert_no_current_context ();
}

static void
test_register_bad_input (void)
{
  const guint64 page = page_size ();
  g_autoptr(GCudaHostBuffer) memory = NULL;
  g_autoptr(GCudaHostBuffer) pagelocked = NULL;
  GError *error = NULL;
  guint64 address;

  if (!gcuda_test_require_gpu ())
    return;

  memory = new_aligned (4 * page, page);
  address = gcuda_host_buffer_get_address (memory);

  /* not page-aligned */
  g_assert_null (gcuda_host_buffer_register (NULL, address + 64, page, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_host_buffer_register (NULL, address + 1, page, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_host_buffer_register (NULL, address + page / 2, page, GCUDA_HOST_REGISTER_FLAGS_PORTABLE,
                                             &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  /* NULL, nothing, unknown flags */
  g_assert_null (gcuda_host_buffer_register (NULL, 0, page, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_host_buffer_register (NULL, address, 0, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_host_buffer_register (NULL, address, page, 1 << 6, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* none of them registered anything: the whole range registers now */
  {
    g_autoptr(GCudaHostBuffer) registered = NULL;

    registered = gcuda_host_buffer_register (NULL, address, 4 * page, 0, &error);
    g_assert_no_error (error);
  }

  /* only registered memory can be unregistered */
  pagelocked = gcuda_host_buffer_new_pagelocked (NULL, 4096, 0, &error);
  g_assert_no_error (error);
  g_assert_false (gcuda_host_buffer_unregister (pagelocked, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_host_buffer_is_freed (pagelocked));

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ destroyed contexts */

static void
test_destroyed_context (void)
{
  const guint64 page = page_size ();
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaHostBuffer) memory = NULL;
  g_autofree guint8 *data = NULL;
  GCudaHostBuffer *pagelocked, *registered;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  dedicated = create_dedicated (NULL, 0);
  memory = new_aligned (4 * page, page);
  data = random_data (4 * page);
  memcpy (host_ptr (memory), data, 4 * page);

  pagelocked = gcuda_host_buffer_new_pagelocked (dedicated, 4096, GCUDA_HOST_ALLOC_FLAGS_DEVICEMAP, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_host_buffer_get_context (pagelocked) == dedicated);
  registered = gcuda_host_buffer_register (dedicated, gcuda_host_buffer_get_address (memory), 4 * page,
                                           GCUDA_HOST_REGISTER_FLAGS_DEVICEMAP, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_host_buffer_get_context (registered) == dedicated);

  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);

  g_assert_null (gcuda_host_buffer_new_pagelocked (dedicated, 4096, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_host_buffer_register (dedicated, gcuda_host_buffer_get_address (memory), page, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_cmpuint (gcuda_host_buffer_get_device_address (pagelocked, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_cmpuint (gcuda_host_buffer_get_device_address (registered, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  /* finalizing afterwards is harmless; registered memory stays the caller's */
  g_object_unref (pagelocked);
  g_assert_true (gcuda_host_buffer_free (registered, NULL));
  g_object_unref (registered);
  assert_host_read (memory, 0, data, 4 * page);

  gcuda_test_assert_no_current_context ();
}

/* Page-locked memory goes with its context: reading or writing it after
 * gcuda_context_destroy() must be CONTEXT_DESTROYED, not a use of freed
 * memory. In a subprocess, so that a crash fails this case only. */
static void
test_destroyed_context_bytes (void)
{
  if (!gcuda_test_require_gpu ())
    return;

  if (g_test_subprocess ())
    {
      g_autoptr(GCudaContext) dedicated = create_dedicated (NULL, 0);
      g_autofree guint8 *data = random_data (4096);
      g_autoptr(GBytes) bytes = g_bytes_new (data, 4096);
      GCudaHostBuffer *host;
      GError *error = NULL;

      host = gcuda_host_buffer_new_pagelocked (dedicated, 4096, 0, &error);
      g_assert_no_error (error);
      write_ok (host, 0, data, 4096);
      g_assert_true (gcuda_context_destroy (dedicated, &error));
      g_assert_no_error (error);

      g_assert_null (gcuda_host_buffer_read (host, 0, 4096, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
      g_assert_false (gcuda_host_buffer_write (host, 0, bytes, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
      g_object_unref (host);
      gcuda_test_assert_no_current_context ();
      return;
    }

  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  /* not fatal: report and go on */
  if (!g_test_trap_has_passed ())
    g_test_fail_printf ("read()/write() of page-locked memory whose context was destroyed did not fail "
                        "with GCUDA_ERROR_CONTEXT_DESTROYED (the subprocess failed or crashed; its "
                        "stderr is above)");
}

/* ------------------------------------------------------------ exports */

/* Exports keep the memory: free() retires the buffer at once, the memory
 * goes with the last export. Under ASan a use after the release is an
 * error, and a release that never comes a leak. */
static void
test_aligned_export (void)
{
  const gsize size = 64 * KiB;
  g_autoptr(GBytes) one = g_bytes_new ("x", 1);
  GCudaHostBuffer *host = new_aligned (size, 4096);
  GCudaHostBuffer *by_hand;
  GError *error = NULL;
  guint8 *p = host_ptr (host);

  /* an end needs a begin */
  g_assert_false (gcuda_host_buffer_export_end (host, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_true (gcuda_host_buffer_export_begin (host, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_host_buffer_export_begin (host, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_host_buffer_free (host, &error));
  g_assert_no_error (error);

  /* retired for GCuda at once */
  g_assert_true (gcuda_host_buffer_is_freed (host));
  g_assert_null (gcuda_host_buffer_read (host, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_host_buffer_write (host, 0, one, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_host_buffer_export_begin (host, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_host_buffer_free (host, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  /* the memory is the exports' until the last one ends */
  memset (p, 0x5a, size);
  g_assert_true (gcuda_host_buffer_export_end (host, &error));
  g_assert_no_error (error);
  memset (p, 0xa5, size);
  g_assert_cmpuint (p[size - 1], ==, 0xa5);
  g_assert_true (gcuda_host_buffer_export_end (host, &error));  /* released here */
  g_assert_no_error (error);
  g_assert_false (gcuda_host_buffer_export_end (host, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_object_unref (host);

  /* exports that ended leave free() to release at once; one left unended
   * goes with the last reference */
  host = new_aligned (size, 0);
  g_assert_true (gcuda_host_buffer_export_begin (host, NULL));
  g_assert_true (gcuda_host_buffer_export_end (host, NULL));
  g_assert_true (gcuda_host_buffer_free (host, NULL));
  g_object_unref (host);
  host = new_aligned (size, 0);
  g_assert_true (gcuda_host_buffer_export_begin (host, NULL));
  g_object_unref (host);
  host = new_aligned (size, 0);
  g_assert_true (gcuda_host_buffer_export_begin (host, NULL));
  g_assert_true (gcuda_host_buffer_free (host, NULL));
  g_object_unref (host);

  /* no memory behind it */
  by_hand = g_object_new (GCUDA_TYPE_HOST_BUFFER, NULL);
  g_assert_false (gcuda_host_buffer_export_begin (by_hand, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_host_buffer_export_end (by_hand, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_object_unref (by_hand);
}

/* The same for page-locked memory, plain and pooled: with the mock driver,
 * its accounting shows when the memory goes. */
static void
test_pagelocked_export (void)
{
  g_autoptr(GCudaHostMemoryPool) pool = NULL;
  GCudaHostBuffer *host;
  GError *error = NULL;
  gsize live0, leaks0, live, leaks;
  gboolean mock;
  guint8 *p;

  if (!gcuda_test_require_gpu ())
    return;
  mock = mock_memory_counts (&live0, &leaks0);

  host = new_pagelocked (NULL, 1 * MiB);
  p = host_ptr (host);
  g_assert_true (gcuda_host_buffer_export_begin (host, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_host_buffer_free (host, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_host_buffer_is_freed (host));
  g_assert_cmpuint (gcuda_host_buffer_get_device_address (host, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0 + mock);  /* still there */
  memset (p, 1, 1 * MiB);
  g_assert_true (gcuda_host_buffer_export_end (host, &error));
  g_assert_no_error (error);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0);  /* released with the export's end */
  g_object_unref (host);

  /* a pooled block goes back to its pool with the last export */
  pool = gcuda_host_memory_pool_new (NULL, GCUDA_HOST_ALLOC_FLAGS_DEFAULT);
  host = gcuda_host_memory_pool_allocate (pool, 1000, &error);
  g_assert_no_error (error);
  p = host_ptr (host);
  g_assert_true (gcuda_host_buffer_export_begin (host, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_host_buffer_free (host, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_blocks (pool), ==, 1);
  g_assert_cmpuint (gcuda_host_memory_pool_get_held_blocks (pool), ==, 0);
  memset (p, 2, 1000);
  g_assert_true (gcuda_host_buffer_export_end (host, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_blocks (pool), ==, 0);
  g_assert_cmpuint (gcuda_host_memory_pool_get_held_blocks (pool), ==, 1);
  g_object_unref (host);
  gcuda_host_memory_pool_free_held (pool);

  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0);
  g_assert_cmpuint (leaks, ==, leaks0);
  gcuda_test_assert_no_current_context ();
}

/* A context destroyed under exported page-locked memory: retired at once
 * (every use CONTEXT_DESTROYED); the memory stays the export's, and the
 * driver's context goes with the last object of it, after they gave back
 * their memory: nothing leaks. */
static void
test_destroyed_context_export (void)
{
  GCudaContext *dedicated;
  GCudaHostBuffer *host, *kept;
  GError *error = NULL;
  gsize live0, leaks0, live, leaks;
  gboolean mock;
  guint8 *p;

  if (!gcuda_test_require_gpu ())
    return;
  mock = mock_memory_counts (&live0, &leaks0);

  dedicated = create_dedicated (NULL, 0);
  host = new_pagelocked (dedicated, 1 * MiB);
  kept = new_pagelocked (dedicated, 4096);
  p = host_ptr (host);
  g_assert_true (gcuda_host_buffer_export_begin (host, &error));
  g_assert_no_error (error);

  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_context_is_destroyed (dedicated));
  g_assert_null (gcuda_host_buffer_read (host, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_host_buffer_export_begin (host, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_host_buffer_export_begin (kept, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_host_buffer_new_pagelocked (dedicated, 16, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_context_synchronize (dedicated, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  /* the driver's context is still there: the exported memory too, and
   * objects of the context that go meanwhile give back what they hold */
  memset (p, 3, 1 * MiB);
  g_object_unref (kept);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0 + mock);
  g_assert_cmpuint (leaks, ==, leaks0);

  /* freed, then the export ends: the memory is released */
  g_assert_true (gcuda_host_buffer_free (host, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_host_buffer_export_end (host, &error));
  g_assert_no_error (error);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0);
  g_object_unref (host);

  /* not freed: the export's end leaves it to the buffer's last reference */
  g_object_unref (dedicated);
  dedicated = create_dedicated (NULL, 0);
  host = new_pagelocked (dedicated, 4096);
  g_assert_true (gcuda_host_buffer_export_begin (host, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_host_buffer_export_end (host, &error));
  g_assert_no_error (error);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0 + mock);
  g_object_unref (host);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0);

  /* the context object goes last, with nothing left in it */
  g_object_unref (dedicated);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (leaks, ==, leaks0);

  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  /* no driver, no GPU */
  g_test_add_func ("/host-buffer/aligned", test_aligned);
  g_test_add_func ("/host-buffer/aligned/page", test_aligned_page);
  g_test_add_func ("/host-buffer/aligned/bytes", test_aligned_bytes);
  g_test_add_func ("/host-buffer/aligned/bad-input", test_aligned_bad_input);
  g_test_add_func ("/host-buffer/aligned/export", test_aligned_export);

  /* a GPU */
  g_test_add_func ("/host-buffer/pagelocked", test_pagelocked);
  g_test_add_func ("/host-buffer/pagelocked/bytes", test_pagelocked_bytes);
  g_test_add_func ("/host-buffer/pagelocked/bad-input", test_pagelocked_bad_input);
  g_test_add_func ("/host-buffer/register", test_register);
  g_test_add_func ("/host-buffer/register/bad-input", test_register_bad_input);
  g_test_add_func ("/host-buffer/destroyed-context", test_destroyed_context);
  g_test_add_func ("/host-buffer/pagelocked/export", test_pagelocked_export);
  g_test_add_func ("/host-buffer/destroyed-context/export", test_destroyed_context_export);
  /* last (a suite made last): it runs in a subprocess */
  g_test_add_func ("/host-buffer/destroyed-context/bytes", test_destroyed_context_bytes);

  return g_test_run ();
}
