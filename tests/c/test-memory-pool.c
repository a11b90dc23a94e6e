/* test-memory-pool.c: GCudaMemoryPool and GCudaHostMemoryPool
 *
 * The cases under /memory-pool/nogpu need no driver and no GPU (the bin
 * helpers, and errors found before the driver is needed): run them alone,
 * in CI, with `-p /memory-pool/nogpu`. Every other case needs a GPU, or the
 * mock driver (c-memory-pool-mock, a 256 MiB device: the churn and
 * out-of-memory cases size themselves from the device's memory).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-test-async.h"
#include "gcuda-test-memory.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ helpers */

/* A random size spread over every exponent up to 2^@max_bits. */
static guint64
random_size (guint max_bits)
{
  guint bits = (guint) g_random_int_range (0, (gint32) max_bits);
  guint64 value = ((guint64) g_random_int () << 32) | g_random_int ();

  value >>= 63 - bits;  /* keeps bits + 1 bits */
  return MAX (value, 1);
}

typedef struct {
  guint64 held_blocks;
  guint64 active_blocks;
  guint64 managed_bytes;
  guint64 active_bytes;
} Counters;

static void
assert_counters_at (const char      *file,
                    int              line,
                    GCudaMemoryPool *pool,
                    const Counters  *want)
{
  Counters got;

  g_object_get (pool, "held-blocks", &got.held_blocks, "active-blocks", &got.active_blocks,
                "managed-bytes", &got.managed_bytes, "active-bytes", &got.active_bytes, NULL);
  g_assert_cmpuint (gcuda_memory_pool_get_held_blocks (pool), ==, got.held_blocks);
  g_assert_cmpuint (gcuda_memory_pool_get_active_blocks (pool), ==, got.active_blocks);
  g_assert_cmpuint (gcuda_memory_pool_get_managed_bytes (pool), ==, got.managed_bytes);
  g_assert_cmpuint (gcuda_memory_pool_get_active_bytes (pool), ==, got.active_bytes);
  if (memcmp (&got, want, sizeof got) != 0)
    g_error ("%s:%d: pool counters held %" G_GUINT64_FORMAT " active %" G_GUINT64_FORMAT
             " managed %" G_GUINT64_FORMAT " B active %" G_GUINT64_FORMAT " B; expected %"
             G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " B %" G_GUINT64_FORMAT " B",
             file, line, got.held_blocks, got.active_blocks, got.managed_bytes, got.active_bytes,
             want->held_blocks, want->active_blocks, want->managed_bytes, want->active_bytes);
}

#define assert_counters(pool, held, active, managed, active_bytes) \
  G_STMT_START { \
    Counters want_ = { (held), (active), (managed), (active_bytes) }; \
    assert_counters_at (__FILE__, __LINE__, (pool), &want_); \
  } G_STMT_END

static guint64
block_size (guint64 size)
{
  return gcuda_memory_pool_alloc_size (gcuda_memory_pool_bin_number (size));
}

static GCudaBuffer *
pool_allocate (GCudaMemoryPool *pool,
               guint64          size)
{
  GError *error = NULL;
  GCudaBuffer *buffer = gcuda_memory_pool_allocate (pool, size, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_BUFFER (buffer));
  g_assert_cmpuint (gcuda_buffer_get_size (buffer), ==, size);
  g_assert_cmpuint (gcuda_buffer_get_address (buffer), !=, 0);
  return buffer;
}

/* Writes fresh random bytes over the whole buffer and reads them back. */
static void
check_round_trip (GCudaBuffer *buffer)
{
  gsize size = gcuda_buffer_get_size (buffer);
  g_autofree guint8 *data = random_data (size);
  g_autoptr(GBytes) back = NULL;
  GError *error = NULL;

  upload_ok (buffer, 0, data, size);
  back = gcuda_buffer_download (buffer, 0, size, &error);
  g_assert_no_error (error);
  assert_bytes (back, data, size);
}

/* The same for 4 KiB at each end, for big buffers. */
static void
check_edges (GCudaBuffer *buffer)
{
  gsize size = gcuda_buffer_get_size (buffer);
  gsize part = MIN (size, 4096);
  g_autofree guint8 *head = random_data (part);
  g_autofree guint8 *tail = random_data (part);
  g_autoptr(GBytes) back_head = NULL;
  g_autoptr(GBytes) back_tail = NULL;
  GError *error = NULL;

  upload_ok (buffer, 0, head, part);
  upload_ok (buffer, size - part, tail, part);
  back_tail = gcuda_buffer_download (buffer, size - part, part, &error);
  g_assert_no_error (error);
  back_head = gcuda_buffer_download (buffer, 0, part, &error);
  g_assert_no_error (error);
  if (size >= 2 * part)
    assert_bytes (back_head, head, part);
  assert_bytes (back_tail, tail, part);
}

static guint64
total_memory (GCudaContext *context)
{
  guint64 free_bytes = 0, total = 0;
  GError *error = NULL;

  g_assert_true (gcuda_context_get_memory_info (context, &free_bytes, &total, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (total, >, 0);
  return total;
}

/* ------------------------------------------------------------ no GPU */

static void
test_bitlog2 (void)
{
  /* PyCUDA's test_bitlog values */
  g_assert_cmpuint (gcuda_bitlog2 (17), ==, 4);
  g_assert_cmpuint (gcuda_bitlog2 (0xAFFE), ==, 15);
  g_assert_cmpuint (gcuda_bitlog2 (0x3AFFE), ==, 17);
  g_assert_cmpuint (gcuda_bitlog2 (0xCC3AFFE), ==, 27);

  g_assert_cmpuint (gcuda_bitlog2 (0), ==, 0);
  g_assert_cmpuint (gcuda_bitlog2 (1), ==, 0);
  g_assert_cmpuint (gcuda_bitlog2 (2), ==, 1);
  g_assert_cmpuint (gcuda_bitlog2 (G_GUINT64_CONSTANT (1) << 40), ==, 40);
  g_assert_cmpuint (gcuda_bitlog2 ((G_GUINT64_CONSTANT (1) << 40) - 1), ==, 39);
  g_assert_cmpuint (gcuda_bitlog2 (G_MAXUINT64), ==, 63);
  for (guint i = 0; i < 64; i++)
    {
      guint64 v = G_GUINT64_CONSTANT (1) << i;
      guint64 extra = random_size (64) & (v - 1);

      g_assert_cmpuint (gcuda_bitlog2 (v | extra), ==, i);
    }
}

static void
check_bins_for (guint64 size)
{
  guint bin = gcuda_memory_pool_bin_number (size);
  guint64 alloc = gcuda_memory_pool_alloc_size (bin);

  g_assert_cmpuint (bin, <, 1024);
  if (alloc < size)
    g_error ("alloc_size (bin_number (%" G_GUINT64_FORMAT ")) = %" G_GUINT64_FORMAT " is too small", size, alloc);
  g_assert_cmpuint (gcuda_memory_pool_bin_number (alloc), ==, bin);
  /* less than 1/16 wasted */
  if ((alloc - size) >= alloc / 16 + (alloc % 16 != 0))
    g_error ("%" G_GUINT64_FORMAT " bytes get a block of %" G_GUINT64_FORMAT ": 6.25 %% or more wasted",
             size, alloc);
  /* the bin's largest size: one more byte is a later bin */
  if (alloc < G_MAXUINT64)
    g_assert_cmpuint (gcuda_memory_pool_bin_number (alloc + 1), >, bin);
}

static void
test_bins (void)
{
  /* 2000 random sizes over every exponent (PyCUDA's test_mempool_2) */
  for (guint i = 0; i < 2000; i++)
    check_bins_for (random_size (64));
  /* every small size, and the edges of every exponent */
  for (guint64 s = 1; s <= 4096; s++)
    check_bins_for (s);
  for (guint i = 1; i < 64; i++)
    {
      guint64 p = G_GUINT64_CONSTANT (1) << i;

      check_bins_for (p - 1);
      check_bins_for (p);
      check_bins_for (p + 1);
    }
  check_bins_for (G_MAXUINT64);

  /* PyCUDA's numbers: 4 mantissa bits after the leading 1 */
  g_assert_cmpuint (gcuda_memory_pool_bin_number (1), ==, 0);
  g_assert_cmpuint (gcuda_memory_pool_bin_number (17), ==, (4 << 4) | 1);
  g_assert_cmpuint (gcuda_memory_pool_bin_number (1000), ==, (9 << 4) | 15);
  g_assert_cmpuint (gcuda_memory_pool_alloc_size ((9 << 4) | 15), ==, 1023);
  g_assert_cmpuint (gcuda_memory_pool_bin_number (1024), ==, 10 << 4);
  g_assert_cmpuint (gcuda_memory_pool_alloc_size (10 << 4), ==, 1087);
  g_assert_cmpuint (gcuda_memory_pool_alloc_size (1023), ==, G_MAXUINT64);
  /* not a bin */
  g_assert_cmpuint (gcuda_memory_pool_alloc_size (1024), ==, 0);
  g_assert_cmpuint (gcuda_memory_pool_alloc_size (G_MAXUINT), ==, 0);
}

static void
test_nogpu_pool (void)
{
  g_autoptr(GCudaMemoryPool) pool = gcuda_memory_pool_new (NULL);
  g_autoptr(GCudaHostMemoryPool) host_pool = gcuda_host_memory_pool_new (NULL, 1u << 7);
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaHostBuffer) host = NULL;
  GError *error = NULL;
  guint64 max_held = 0;

  /* fresh pools need no driver */
  g_assert_null (gcuda_memory_pool_get_context (pool));
  assert_counters (pool, 0, 0, 0, 0);
  g_assert_cmpuint (gcuda_memory_pool_get_max_held_bytes (pool), ==, G_MAXUINT64);
  g_object_set (pool, "max-held-bytes", (guint64) 12345, NULL);
  g_object_get (pool, "max-held-bytes", &max_held, NULL);
  g_assert_cmpuint (max_held, ==, 12345);
  gcuda_memory_pool_free_held (pool);
  gcuda_memory_pool_stop_holding (pool);
  assert_counters (pool, 0, 0, 0, 0);
  g_assert_cmpuint (gcuda_host_memory_pool_get_flags (host_pool), ==, 1u << 7);

  /* found before the driver is needed */
  buffer = gcuda_memory_pool_allocate (pool, 0, &error);
  g_assert_null (buffer);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  host = gcuda_host_memory_pool_allocate (host_pool, 64, &error);
  g_assert_null (host);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_blocks (host_pool), ==, 0);
}

static void
test_nogpu_no_driver (void)
{
  g_autoptr(GCudaMemoryPool) pool = gcuda_memory_pool_new (NULL);
  g_autoptr(GCudaBuffer) buffer = NULL;
  GError *error = NULL;

  /* Run with an unloadable driver in CI: an error, not a crash. Where a
   * device exists this is an ordinary allocation. */
  buffer = gcuda_memory_pool_allocate (pool, 100, &error);
  if (buffer == NULL)
    {
      g_assert_nonnull (error);
      g_clear_error (&error);
      assert_counters (pool, 0, 0, 0, 0);
    }
  else
    {
      g_assert_no_error (error);
      assert_counters (pool, 0, 1, block_size (100), 100);
    }
}

/* ------------------------------------------------------------ GPU */

static void
test_basic (void)
{
  g_autoptr(GCudaMemoryPool) pool = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaBuffer) a = NULL;
  g_autoptr(GCudaBuffer) b = NULL;
  g_autoptr(GCudaBuffer) c = NULL;
  guint64 addr_a, addr_b, size_a = 1000, size_b = 1010;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  pool = gcuda_memory_pool_new (NULL);
  g_assert_cmpuint (block_size (size_a), ==, block_size (size_b));  /* one bin */

  a = pool_allocate (pool, size_a);
  g_assert_true (gcuda_memory_pool_get_context (pool) == context);
  g_assert_true (gcuda_buffer_get_context (a) == context);
  g_assert_cmpint (gcuda_buffer_get_kind (a), ==, GCUDA_BUFFER_KIND_DEVICE);
  b = pool_allocate (pool, size_b);
  addr_a = gcuda_buffer_get_address (a);
  addr_b = gcuda_buffer_get_address (b);
  g_assert_cmpuint (addr_a, !=, addr_b);
  check_round_trip (a);
  check_round_trip (b);
  assert_counters (pool, 0, 2, 2 * block_size (size_a), size_a + size_b);

  /* given back: held, the last one reused first */
  g_assert_true (gcuda_buffer_free (a, NULL));
  g_assert_true (gcuda_buffer_is_freed (a));
  assert_counters (pool, 1, 1, 2 * block_size (size_a), size_b);
  g_clear_object (&b);
  assert_counters (pool, 2, 0, 2 * block_size (size_a), 0);
  c = pool_allocate (pool, 1020);
  g_assert_cmpuint (gcuda_buffer_get_address (c), ==, addr_b);
  check_round_trip (c);
  assert_counters (pool, 1, 1, 2 * block_size (size_a), 1020);

  /* another bin: new memory */
  g_clear_object (&b);
  b = pool_allocate (pool, 100000);
  g_assert_cmpuint (gcuda_buffer_get_address (b), !=, addr_a);
  assert_counters (pool, 1, 2, 2 * block_size (size_a) + block_size (100000), 1020 + 100000);

  gcuda_memory_pool_free_held (pool);
  assert_counters (pool, 0, 2, block_size (size_a) + block_size (100000), 1020 + 100000);
  g_clear_object (&b);
  g_clear_object (&c);
  assert_counters (pool, 2, 0, block_size (size_a) + block_size (100000), 0);
  gcuda_test_assert_no_current_context ();
}

/* PyCUDA's test_mempool: many allocations of 1/64 and 1/32 of the free
 * memory, at most 10 alive, then stop_holding(). */
static void
test_churn (void)
{
  g_autoptr(GCudaMemoryPool) pool = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GPtrArray) queue = g_ptr_array_new_with_free_func (g_object_unref);
  guint64 free_bytes = 0, total = 0, sizes[2], queued_bytes = 0;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  g_assert_true (gcuda_context_get_memory_info (context, &free_bytes, &total, &error));
  g_assert_no_error (error);
  sizes[0] = free_bytes / 64;
  sizes[1] = free_bytes / 32;
  pool = gcuda_memory_pool_new (context);

  for (guint i = 0; i < 300; i++)
    {
      guint64 size = sizes[g_random_int_range (0, 2)] - (guint64) g_random_int_range (0, 4096);
      GCudaBuffer *buffer = pool_allocate (pool, size);

      /* the whole size is usable */
      if (i % 10 == 0)
        check_edges (buffer);
      g_ptr_array_add (queue, buffer);
      queued_bytes += size;
      if (queue->len > 10)
        {
          queued_bytes -= gcuda_buffer_get_size (g_ptr_array_index (queue, 0));
          g_ptr_array_remove_index (queue, 0);
        }
      g_assert_cmpuint (gcuda_memory_pool_get_active_blocks (pool), ==, queue->len);
      g_assert_cmpuint (gcuda_memory_pool_get_active_bytes (pool), ==, queued_bytes);
    }

  g_ptr_array_set_size (queue, 0);
  g_assert_cmpuint (gcuda_memory_pool_get_active_blocks (pool), ==, 0);
  g_assert_cmpuint (gcuda_memory_pool_get_held_blocks (pool), >, 0);
  gcuda_memory_pool_stop_holding (pool);
  assert_counters (pool, 0, 0, 0, 0);

  /* after stop_holding(), freed blocks go straight back */
  {
    g_autoptr(GCudaBuffer) buffer = pool_allocate (pool, 4096);

    assert_counters (pool, 0, 1, block_size (4096), 4096);
    g_clear_object (&buffer);
    assert_counters (pool, 0, 0, 0, 0);
  }
}

/* Exact counters after a random mix of allocations and frees. */
static void
test_counters (void)
{
  g_autoptr(GCudaMemoryPool) pool = NULL;
  g_autoptr(GPtrArray) alive = g_ptr_array_new_with_free_func (g_object_unref);
  guint64 active_bytes = 0, managed = 0, held = 0;
  guint64 held_per_bin[1024] = { 0 };

  if (!gcuda_test_require_gpu ())
    return;

  pool = gcuda_memory_pool_new (NULL);
  for (guint i = 0; i < 2000; i++)
    {
      if (alive->len < 20 && (alive->len == 0 || g_random_boolean ()))
        {
          guint64 size = random_size (22);
          guint bin = gcuda_memory_pool_bin_number (size);
          GCudaBuffer *buffer = pool_allocate (pool, size);

          if (held_per_bin[bin] > 0)
            {
              held_per_bin[bin]--;
              held--;
            }
          else
            managed += gcuda_memory_pool_alloc_size (bin);
          active_bytes += size;
          g_ptr_array_add (alive, buffer);
        }
      else
        {
          guint index = (guint) g_random_int_range (0, (gint32) alive->len);
          GCudaBuffer *buffer = g_ptr_array_index (alive, index);
          guint64 size = gcuda_buffer_get_size (buffer);

          held_per_bin[gcuda_memory_pool_bin_number (size)]++;
          held++;
          active_bytes -= size;
          if (g_random_boolean ())
            g_assert_true (gcuda_buffer_free (buffer, NULL)); /* given back now, dropped below */
          g_ptr_array_remove_index_fast (alive, index);
        }
      assert_counters (pool, held, alive->len, managed, active_bytes);
    }
  /* the buffers still alive go back to the pool too */
  held += alive->len;
  g_ptr_array_set_size (alive, 0);
  assert_counters (pool, held, 0, managed, 0);

  /* a cap on held bytes frees the largest first */
  gcuda_memory_pool_set_max_held_bytes (pool, managed / 2);
  g_assert_cmpuint (gcuda_memory_pool_get_managed_bytes (pool), <=, managed / 2);
  g_assert_cmpuint (gcuda_memory_pool_get_held_blocks (pool), <, held);
  gcuda_memory_pool_set_max_held_bytes (pool, 0);
  assert_counters (pool, 0, 0, 0, 0);
  {
    g_autoptr(GCudaBuffer) buffer = pool_allocate (pool, 5000);

    g_clear_object (&buffer);
    assert_counters (pool, 0, 0, 0, 0);  /* nothing may be held */
  }
  gcuda_memory_pool_set_max_held_bytes (pool, G_MAXUINT64);
  {
    g_autoptr(GCudaBuffer) buffer = pool_allocate (pool, 5000);

    g_clear_object (&buffer);
    assert_counters (pool, 1, 0, block_size (5000), 0);
  }
}

/* Out of memory with held blocks: the pool frees them and succeeds. */
static void
test_oom_recovery (void)
{
  g_autoptr(GCudaMemoryPool) pool = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GPtrArray) alive = g_ptr_array_new_with_free_func (g_object_unref);
  GError *error = NULL;
  guint64 chunk, held;
  GCudaBuffer *buffer;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  chunk = total_memory (context) / 16;
  pool = gcuda_memory_pool_new (context);

  /* fill the device: the last request fails with nothing held to free */
  for (;;)
    {
      buffer = gcuda_memory_pool_allocate (pool, chunk, &error);
      if (buffer == NULL)
        break;
      g_ptr_array_add (alive, buffer);
      g_assert_cmpuint (alive->len, <=, 64);
    }
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_OUT_OF_MEMORY);
  g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_MEMORY);
  g_clear_error (&error);
  g_assert_cmpuint (alive->len, >=, 2);
  assert_counters (pool, 0, alive->len, alive->len * block_size (chunk), alive->len * chunk);

  /* all held now; a request of another bin needs some of them freed */
  held = alive->len;
  g_ptr_array_set_size (alive, 0);
  assert_counters (pool, held, 0, held * block_size (chunk), 0);
  g_assert_cmpuint (gcuda_memory_pool_bin_number (chunk * 3 / 2), !=, gcuda_memory_pool_bin_number (chunk));
  buffer = gcuda_memory_pool_allocate (pool, chunk * 3 / 2, &error);
  g_assert_no_error (error);
  g_assert_nonnull (buffer);
  check_edges (buffer);
  g_assert_cmpuint (gcuda_memory_pool_get_held_blocks (pool), <, held);
  g_assert_cmpuint (gcuda_memory_pool_get_active_blocks (pool), ==, 1);
  g_assert_cmpuint (gcuda_memory_pool_get_managed_bytes (pool), ==,
                    gcuda_memory_pool_get_held_blocks (pool) * block_size (chunk) + block_size (chunk * 3 / 2));
  g_object_unref (buffer);
  gcuda_memory_pool_free_held (pool);
  assert_counters (pool, 0, 0, 0, 0);
}

static void
test_bad_sizes (void)
{
  g_autoptr(GCudaMemoryPool) pool = NULL;
  g_autoptr(GCudaBuffer) held = NULL;
  GCudaBuffer *buffer;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  pool = gcuda_memory_pool_new (NULL);
  held = pool_allocate (pool, 4096);
  g_clear_object (&held);
  assert_counters (pool, 1, 0, block_size (4096), 0);

  buffer = gcuda_memory_pool_allocate (pool, 0, &error);
  g_assert_null (buffer);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* a petabyte: out of memory, after freeing what was held */
  buffer = gcuda_memory_pool_allocate (pool, G_GUINT64_CONSTANT (1) << 50, &error);
  g_assert_null (buffer);
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_OUT_OF_MEMORY);
  g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_MEMORY);
  g_clear_error (&error);
  assert_counters (pool, 0, 0, 0, 0);

  /* the largest size of all: an error, whichever the driver gives */
  buffer = gcuda_memory_pool_allocate (pool, G_MAXUINT64, &error);
  g_assert_null (buffer);
  g_assert_nonnull (error);
  g_clear_error (&error);
  assert_counters (pool, 0, 0, 0, 0);

  /* still usable */
  held = pool_allocate (pool, 12345);
  check_round_trip (held);
  assert_counters (pool, 0, 1, block_size (12345), 12345);
}

/* Freeing a pooled buffer twice gives its block back once. */
static void
test_double_free (void)
{
  g_autoptr(GCudaMemoryPool) pool = NULL;
  g_autoptr(GCudaBuffer) a = NULL;
  g_autoptr(GCudaBuffer) b = NULL;
  g_autoptr(GCudaBuffer) c = NULL;
  g_autofree guint8 *data = random_data (64);
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  pool = gcuda_memory_pool_new (NULL);
  a = pool_allocate (pool, 64);
  g_assert_true (gcuda_buffer_free (a, NULL));
  /* twice: an error, and nothing is released again */
  g_assert_false (gcuda_buffer_free (a, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  assert_counters (pool, 1, 0, block_size (64), 0);
  g_assert_false (gcuda_buffer_upload (a, 0, data, 64, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  /* the block is handed out once only */
  b = pool_allocate (pool, 64);
  c = pool_allocate (pool, 64);
  g_assert_cmpuint (gcuda_buffer_get_address (b), !=, gcuda_buffer_get_address (c));
  g_assert_cmpuint (gcuda_buffer_get_address (b), ==, gcuda_buffer_get_address (a));
  g_clear_object (&a);  /* finalizing the freed buffer gives nothing back again */
  assert_counters (pool, 0, 2, 2 * block_size (64), 128);
  check_round_trip (b);
  check_round_trip (c);
}

/* Pools, buffers and contexts dropped in every order. */
static void
test_drop_order (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;
  GCudaMemoryPool *pool;
  GCudaBuffer *a, *b, *view;
  gpointer weak_pool;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();

  /* the pool first: its buffers keep it */
  pool = gcuda_memory_pool_new (context);
  a = pool_allocate (pool, 3000);
  b = pool_allocate (pool, 3000);
  view = gcuda_buffer_new_view (a, 100, 200, &error);
  g_assert_no_error (error);
  weak_pool = pool;
  g_object_add_weak_pointer (G_OBJECT (pool), &weak_pool);
  g_object_unref (pool);
  g_assert_nonnull (weak_pool);
  check_round_trip (view);
  check_round_trip (b);
  g_object_unref (a);  /* the view keeps it */
  check_round_trip (view);
  g_object_unref (b);
  g_assert_nonnull (weak_pool);
  g_object_unref (view);
  g_assert_null (weak_pool);

  /* buffers first */
  pool = gcuda_memory_pool_new (context);
  a = pool_allocate (pool, 3000);
  g_object_unref (a);
  g_object_unref (pool);

  /* a context destroyed under a pool with active and held blocks */
  dedicated = create_dedicated (NULL, 0);
  pool = gcuda_memory_pool_new (dedicated);
  a = pool_allocate (pool, 3000);
  b = pool_allocate (pool, 5000);
  g_object_unref (b);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  g_object_unref (a);  /* to the driver: nothing is held for a destroyed context */
  g_assert_cmpuint (gcuda_memory_pool_get_active_blocks (pool), ==, 0);
  g_assert_cmpuint (gcuda_memory_pool_get_held_blocks (pool), ==, 1);
  a = gcuda_memory_pool_allocate (pool, 3000, &error);
  g_assert_null (a);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_object_unref (pool);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ by address */

/* Blocks handed out by address: the pool's bins and counters, no buffer
 * object; what is given back is checked. */
static void
test_by_address (void)
{
  g_autoptr(GCudaContext) context = NULL;
  GCudaMemoryPool *pool;
  g_autoptr(GCudaBuffer) object = NULL;
  guint64 address, again, base = 0, size = 0, free_before, free_after, total;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  context = gcuda_context_get_default (&error);
  g_assert_no_error (error);
  pool = gcuda_memory_pool_new (context);

  g_assert_true (gcuda_memory_pool_allocate_address (pool, 1000, &address, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (address, !=, 0);
  assert_counters (pool, 0, 1, block_size (1000), 1000);
  /* a real allocation of the bin's size */
  g_assert_true (gcuda_context_get_address_range (context, address, &base, &size, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (base, ==, address);
  g_assert_cmpuint (size, ==, block_size (1000));

  /* given back once; anything else is an error that changes nothing */
  g_assert_true (gcuda_memory_pool_free_address (pool, address, &error));
  g_assert_no_error (error);
  assert_counters (pool, 1, 0, block_size (1000), 0);
  g_assert_false (gcuda_memory_pool_free_address (pool, address, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_memory_pool_free_address (pool, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  assert_counters (pool, 1, 0, block_size (1000), 0);

  /* the same bins as buffers: LIFO across both forms */
  g_assert_true (gcuda_memory_pool_allocate_address (pool, 995, &again, &error));
  g_assert_cmpuint (again, ==, address);
  g_assert_false (gcuda_memory_pool_free_address (pool, again + 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_true (gcuda_memory_pool_free_address (pool, again, &error));
  object = pool_allocate (pool, 1000);
  g_assert_cmpuint (gcuda_buffer_get_address (object), ==, address);
  check_round_trip (object);
  /* a buffer's block is not one handed out by address */
  g_assert_false (gcuda_memory_pool_free_address (pool, address, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_clear_object (&object);
  assert_counters (pool, 1, 0, block_size (1000), 0);

  /* adopted by a buffer, which then owns the block */
  g_assert_true (gcuda_memory_pool_allocate_address (pool, 1000, &address, &error));
  object = gcuda_memory_pool_adopt_address (pool, address, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_buffer_get_address (object), ==, address);
  g_assert_cmpuint (gcuda_buffer_get_size (object), ==, 1000);
  g_assert_true (gcuda_buffer_get_context (object) == context);
  check_round_trip (object);
  assert_counters (pool, 0, 1, block_size (1000), 1000);
  g_assert_false (gcuda_memory_pool_free_address (pool, address, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_memory_pool_adopt_address (pool, address, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_clear_object (&object);
  assert_counters (pool, 1, 0, block_size (1000), 0);
  g_assert_null (gcuda_memory_pool_adopt_address (NULL, address, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* bad sizes as for allocate() */
  g_assert_false (gcuda_memory_pool_allocate_address (pool, 0, &address, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (address, ==, 0);
  g_assert_false (gcuda_memory_pool_allocate_address (pool, G_MAXUINT64 / 2, &address, &error));
  g_assert_nonnull (error);
  g_assert_cmpint (gcuda_driver_error_get_category (error->code), ==, GCUDA_ERROR_CATEGORY_MEMORY);
  g_clear_error (&error);
  g_assert_false (gcuda_memory_pool_allocate_address (NULL, 1, &address, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_object_unref (pool);

  /* the pool releases the blocks still out by address when it goes */
  g_assert_true (gcuda_context_get_memory_info (context, &free_before, &total, &error));
  pool = gcuda_memory_pool_new (context);
  g_assert_true (gcuda_memory_pool_allocate_address (pool, 64 * MiB, &address, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_context_get_memory_info (context, &free_after, &total, &error));
  g_assert_cmpuint (free_after + 60 * MiB, <=, free_before);
  g_object_unref (pool);
  g_assert_true (gcuda_context_get_memory_info (context, &free_after, &total, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (free_after + 4 * MiB, >=, free_before);
  gcuda_test_assert_no_current_context ();
}

/* The host pool's blocks by address: host memory to read and write. */
static void
test_host_by_address (void)
{
  GCudaHostMemoryPool *pool;
  g_autofree guint8 *data = random_data (5000);
  guint64 address, again;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  pool = gcuda_host_memory_pool_new (NULL, 0);
  g_assert_true (gcuda_host_memory_pool_allocate_address (pool, 5000, &address, &error));
  g_assert_no_error (error);
  memcpy (GSIZE_TO_POINTER (address), data, 5000);
  g_assert_cmpmem (GSIZE_TO_POINTER (address), 5000, data, 5000);
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_blocks (pool), ==, 1);
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_bytes (pool), ==, 5000);
  g_assert_true (gcuda_host_memory_pool_free_address (pool, address, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_host_memory_pool_free_address (pool, address, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcuda_host_memory_pool_get_held_blocks (pool), ==, 1);
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_blocks (pool), ==, 0);
  g_assert_true (gcuda_host_memory_pool_allocate_address (pool, 4990, &again, &error));
  g_assert_cmpuint (again, ==, address);
  /* adopted by a host buffer, which then owns the block */
  {
    g_autoptr(GCudaHostBuffer) host = gcuda_host_memory_pool_adopt_address (pool, again, &error);
    g_autoptr(GBytes) back = NULL;

    g_assert_no_error (error);
    g_assert_cmpuint (gcuda_host_buffer_get_address (host), ==, again);
    g_assert_cmpuint (gcuda_host_buffer_get_size (host), ==, 4990);
    back = gcuda_host_buffer_read (host, 0, 4990, &error);
    g_assert_no_error (error);
    assert_bytes (back, data, 4990);
    g_assert_false (gcuda_host_memory_pool_free_address (pool, again, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    g_assert_null (gcuda_host_memory_pool_adopt_address (pool, again, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  }
  g_assert_cmpuint (gcuda_host_memory_pool_get_held_blocks (pool), ==, 1);
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_blocks (pool), ==, 0);
  g_assert_true (gcuda_host_memory_pool_allocate_address (pool, 4990, &again, &error));
  g_assert_false (gcuda_host_memory_pool_allocate_address (pool, 0, &again, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_object_unref (pool);  /* with a block still out: released */
  gcuda_test_assert_no_current_context ();
}

/* A context destroyed under blocks handed out by address (and one adopted
 * by a host buffer): they are the caller's until given back, so the context
 * is retired at once but goes after the pool and the buffer; they go back
 * to the driver, nothing is held for a destroyed context, nothing leaks. */
static void
test_host_by_address_destroyed_context (void)
{
  GCudaContext *dedicated;
  GCudaHostMemoryPool *pool;
  GCudaHostBuffer *host;
  guint64 a = 0, b = 0;
  gsize live0, leaks0, live, leaks;
  gboolean mock;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;
  mock = mock_memory_counts (&live0, &leaks0);

  dedicated = create_dedicated (NULL, 0);
  pool = gcuda_host_memory_pool_new (dedicated, 0);
  g_assert_true (gcuda_host_memory_pool_allocate_address (pool, 5000, &a, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_host_memory_pool_allocate_address (pool, 100, &b, &error));
  g_assert_no_error (error);
  host = gcuda_host_memory_pool_adopt_address (pool, b, &error);
  g_assert_no_error (error);

  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_host_memory_pool_allocate_address (pool, 100, &b, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_host_buffer_read (host, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  memset (GSIZE_TO_POINTER (a), 1, 5000);
  memset (host_ptr (host), 2, 100);

  g_assert_true (gcuda_host_memory_pool_free_address (pool, a, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_blocks (pool), ==, 1);
  g_assert_cmpuint (gcuda_host_memory_pool_get_held_blocks (pool), ==, 0);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0 + mock);
  g_object_unref (host);
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_blocks (pool), ==, 0);
  g_assert_cmpuint (gcuda_host_memory_pool_get_managed_bytes (pool), ==, 0);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0);
  g_assert_cmpuint (leaks, ==, leaks0);
  g_object_unref (pool);
  g_object_unref (dedicated);

  /* a block still out when the pool goes: the pool releases it */
  dedicated = create_dedicated (NULL, 0);
  pool = gcuda_host_memory_pool_new (dedicated, 0);
  g_assert_true (gcuda_host_memory_pool_allocate_address (pool, 5000, &a, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  memset (GSIZE_TO_POINTER (a), 3, 5000);
  g_object_unref (pool);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0);
  g_assert_cmpuint (leaks, ==, leaks0);
  g_object_unref (dedicated);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ threads */

#define N_THREADS 8

typedef struct {
  GCudaMemoryPool *pool;
  GMutex lock;
  GHashTable *live;  /* addresses in use */
} ThreadsData;

static gpointer
churn_thread (gpointer user_data)
{
  ThreadsData *data = user_data;
  GCudaBuffer *mine[4] = { NULL, };
  guint64 by_address[2] = { 0, };  /* blocks from allocate_address() */

  for (guint i = 0; i < 2000; i++)
    {
      guint slot = (guint) g_random_int_range (0, G_N_ELEMENTS (mine) + G_N_ELEMENTS (by_address));

      if (slot >= G_N_ELEMENTS (mine))
        {
          guint64 *address = &by_address[slot - G_N_ELEMENTS (mine)];
          GError *error = NULL;

          if (*address != 0)
            {
              g_mutex_lock (&data->lock);
              g_assert_true (g_hash_table_remove (data->live, GSIZE_TO_POINTER (*address)));
              g_mutex_unlock (&data->lock);
              g_assert_true (gcuda_memory_pool_free_address (data->pool, *address, &error));
              g_assert_no_error (error);
              *address = 0;
            }
          else
            {
              g_assert_true (gcuda_memory_pool_allocate_address (data->pool, (guint64) g_random_int_range (1, 1 << 16),
                                                                 address, &error));
              g_assert_no_error (error);
              g_mutex_lock (&data->lock);
              g_assert_true (g_hash_table_add (data->live, GSIZE_TO_POINTER (*address)));
              g_mutex_unlock (&data->lock);
            }
          continue;
        }
      if (mine[slot] != NULL)
        {
          guint64 address = gcuda_buffer_get_address (mine[slot]);

          g_mutex_lock (&data->lock);
          g_assert_true (g_hash_table_remove (data->live, GSIZE_TO_POINTER (address)));
          g_mutex_unlock (&data->lock);
          g_clear_object (&mine[slot]);
        }
      else
        {
          GError *error = NULL;
          guint64 size = (guint64) g_random_int_range (1, 1 << 16);
          guint64 address;

          mine[slot] = gcuda_memory_pool_allocate (data->pool, size, &error);
          g_assert_no_error (error);
          address = gcuda_buffer_get_address (mine[slot]);
          g_mutex_lock (&data->lock);
          /* no block handed out twice */
          g_assert_true (g_hash_table_add (data->live, GSIZE_TO_POINTER (address)));
          g_mutex_unlock (&data->lock);
          if (i % 50 == 0)
            {
              guint8 byte = (guint8) i;
              g_autoptr(GBytes) back = NULL;

              upload_ok (mine[slot], size - 1, &byte, 1);
              back = gcuda_buffer_download (mine[slot], size - 1, 1, &error);
              g_assert_no_error (error);
              assert_bytes (back, &byte, 1);
            }
        }
    }
  for (guint slot = 0; slot < G_N_ELEMENTS (mine); slot++)
    if (mine[slot] != NULL)
      {
        g_mutex_lock (&data->lock);
        g_hash_table_remove (data->live, GSIZE_TO_POINTER (gcuda_buffer_get_address (mine[slot])));
        g_mutex_unlock (&data->lock);
        g_clear_object (&mine[slot]);
      }
  for (guint slot = 0; slot < G_N_ELEMENTS (by_address); slot++)
    if (by_address[slot] != 0)
      {
        g_mutex_lock (&data->lock);
        g_hash_table_remove (data->live, GSIZE_TO_POINTER (by_address[slot]));
        g_mutex_unlock (&data->lock);
        g_assert_true (gcuda_memory_pool_free_address (data->pool, by_address[slot], NULL));
      }
  return NULL;
}

static void
test_threads (void)
{
  ThreadsData data;
  GThread *threads[N_THREADS];

  if (!gcuda_test_require_gpu ())
    return;

  data.pool = gcuda_memory_pool_new (NULL);
  g_mutex_init (&data.lock);
  data.live = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < N_THREADS; i++)
    threads[i] = g_thread_new ("pool-churn", churn_thread, &data);
  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);

  g_assert_cmpuint (g_hash_table_size (data.live), ==, 0);
  g_assert_cmpuint (gcuda_memory_pool_get_active_blocks (data.pool), ==, 0);
  g_assert_cmpuint (gcuda_memory_pool_get_active_bytes (data.pool), ==, 0);
  g_assert_cmpuint (gcuda_memory_pool_get_held_blocks (data.pool), >, 0);
  /* every block is back and held: the bytes managed are those of held blocks,
   * each at least as large as the smallest request */
  g_assert_cmpuint (gcuda_memory_pool_get_managed_bytes (data.pool), >=,
                    gcuda_memory_pool_get_held_blocks (data.pool));
  gcuda_memory_pool_free_held (data.pool);
  assert_counters (data.pool, 0, 0, 0, 0);

  g_hash_table_unref (data.live);
  g_mutex_clear (&data.lock);
  g_object_unref (data.pool);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ page-locked */

static void
test_host_pool (void)
{
  g_autoptr(GCudaHostMemoryPool) pool = NULL;
  g_autoptr(GCudaHostBuffer) a = NULL;
  g_autoptr(GCudaHostBuffer) b = NULL;
  g_autoptr(GCudaBuffer) device = NULL;
  g_autofree guint8 *data = random_data (5000);
  g_autoptr(GBytes) bytes = g_bytes_new (data, 5000);
  g_autoptr(GBytes) back = NULL;
  GError *error = NULL;
  guint64 address;

  if (!gcuda_test_require_gpu ())
    return;

  pool = gcuda_host_memory_pool_new (NULL, GCUDA_HOST_ALLOC_FLAGS_PORTABLE);
  a = gcuda_host_memory_pool_allocate (pool, 5000, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_host_buffer_get_size (a), ==, 5000);
  g_assert_cmpint (gcuda_host_buffer_get_kind (a), ==, GCUDA_HOST_BUFFER_KIND_PAGELOCKED);
  g_assert_cmpuint (gcuda_host_buffer_get_alloc_flags (a), ==, GCUDA_HOST_ALLOC_FLAGS_PORTABLE);
  g_assert_nonnull (gcuda_host_memory_pool_get_context (pool));
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_blocks (pool), ==, 1);
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_bytes (pool), ==, 5000);
  g_assert_cmpuint (gcuda_host_memory_pool_get_managed_bytes (pool), ==, block_size (5000));

  /* usable as page-locked memory: write, copy through the device, read */
  g_assert_true (gcuda_host_buffer_write (a, 0, bytes, &error));
  g_assert_no_error (error);
  device = new_buffer (NULL, 5000);
  g_assert_true (gcuda_buffer_upload_from_address (device, 0, gcuda_host_buffer_get_address (a), 5000, &error));
  g_assert_no_error (error);
  back = gcuda_buffer_download (device, 0, 5000, &error);
  g_assert_no_error (error);
  assert_bytes (back, data, 5000);

  /* given back and reused */
  address = gcuda_host_buffer_get_address (a);
  g_assert_true (gcuda_host_buffer_free (a, NULL));
  /* twice: an error, and nothing is released again */
  g_assert_false (gcuda_host_buffer_free (a, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_cmpuint (gcuda_host_memory_pool_get_held_blocks (pool), ==, 1);
  g_assert_cmpuint (gcuda_host_memory_pool_get_active_blocks (pool), ==, 0);
  g_assert_null (gcuda_host_buffer_read (a, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  b = gcuda_host_memory_pool_allocate (pool, 4990, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_host_buffer_get_address (b), ==, address);
  g_assert_cmpuint (gcuda_host_memory_pool_get_held_blocks (pool), ==, 0);
  {
    g_autoptr(GBytes) part = g_bytes_new (data, 4990);
    g_autoptr(GBytes) read = NULL;

    g_assert_true (gcuda_host_buffer_write (b, 0, part, &error));
    g_assert_no_error (error);
    read = gcuda_host_buffer_read (b, 0, 4990, &error);
    g_assert_no_error (error);
    assert_bytes (read, data, 4990);
  }

  gcuda_host_memory_pool_stop_holding (pool);
  g_clear_object (&b);
  g_assert_cmpuint (gcuda_host_memory_pool_get_managed_bytes (pool), ==, 0);
  g_assert_cmpuint (gcuda_host_memory_pool_get_held_blocks (pool), ==, 0);

  g_assert_null (gcuda_host_memory_pool_allocate (pool, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  /* no driver, no GPU */
  g_test_add_func ("/memory-pool/nogpu/bitlog2", test_bitlog2);
  g_test_add_func ("/memory-pool/nogpu/bins", test_bins);
  g_test_add_func ("/memory-pool/nogpu/pool", test_nogpu_pool);
  g_test_add_func ("/memory-pool/nogpu/no-driver", test_nogpu_no_driver);

  /* a GPU */
  g_test_add_func ("/memory-pool/basic", test_basic);
  g_test_add_func ("/memory-pool/churn", test_churn);
  g_test_add_func ("/memory-pool/counters", test_counters);
  g_test_add_func ("/memory-pool/oom-recovery", test_oom_recovery);
  g_test_add_func ("/memory-pool/bad-sizes", test_bad_sizes);
  g_test_add_func ("/memory-pool/double-free", test_double_free);
  g_test_add_func ("/memory-pool/drop-order", test_drop_order);
  g_test_add_func ("/memory-pool/threads", test_threads);
  g_test_add_func ("/memory-pool/host", test_host_pool);
  g_test_add_func ("/memory-pool/by-address", test_by_address);
  g_test_add_func ("/memory-pool/host-by-address", test_host_by_address);
  g_test_add_func ("/memory-pool/host-by-address/destroyed-context", test_host_by_address_destroyed_context);

  return g_test_run ();
}
