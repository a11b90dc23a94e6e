/* bench-pool.c: allocate+free pairs through GCuda's pools beside the raw
 * driver, in the same process, on the same context
 *
 * Per pair, in µs: gcuda_memory_pool_allocate() and dropping the buffer
 * (warm pool: the block is reused), the same with gcuda_buffer_free() first,
 * gcuda_memory_pool_allocate_address() + free_address() (no buffer object),
 * gcuda_stream_pool_allocate() on one stream and dropping the buffer (the
 * driver's stream-ordered allocator; the stream is synchronized every 1000
 * pairs and at the end of a round, inside the timing),
 * gcuda_buffer_new() and dropping it (no pool), and raw cuMemAlloc_v2 +
 * cuMemFree_v2 with the context pushed by raw cuCtxPushCurrent_v2; then the
 * page-locked equivalents (GCudaHostMemoryPool, raw cuMemHostAlloc +
 * cuMemFreeHost). Several sizes; the best and the median of the rounds are
 * printed. It asserts nothing; exit 77 without a GPU.
 *
 * Usage: bench-pool [pairs per round for the pools, default 100000] [rounds, default 7]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#include <gcuda.h>

#include "bench-util.h"

typedef struct {
  CUresult (*mem_alloc) (CUdeviceptr *, size_t);
  CUresult (*mem_free) (CUdeviceptr);
  CUresult (*mem_host_alloc) (void **, size_t, unsigned int);
  CUresult (*mem_free_host) (void *);
  CUresult (*ctx_push) (CUcontext);
  CUresult (*ctx_pop) (CUcontext *);
  CUcontext context;
} Raw;

typedef enum {
  POOL_UNREF,
  POOL_FREE,
  POOL_ADDRESS,
  STREAM_POOL_UNREF,
  BUFFER_NEW,
  RAW_ALLOC,
  HOST_POOL,
  HOST_POOL_ADDRESS,
  RAW_HOST_ALLOC,
  N_KINDS
} Kind;

static const char *const kind_names[N_KINDS] = {
  "GCudaMemoryPool allocate + unref",
  "GCudaMemoryPool allocate + free + unref",
  "GCudaMemoryPool allocate/free_address",
  "GCudaStreamPool allocate + unref",
  "gcuda_buffer_new + unref (no pool)",
  "raw cuMemAlloc + cuMemFree",
  "GCudaHostMemoryPool allocate + unref",
  "GCudaHostMemoryPool allocate/free_address",
  "raw cuMemHostAlloc + cuMemFreeHost",
};

static gboolean
raw_load (Raw *raw)
{
  void *lib = bench_open_driver ();

  if (lib == NULL)
    return FALSE;
#define RESOLVE(field, exported, base) \
  raw->field = (__typeof__ (raw->field)) bench_resolve (lib, exported, base)
  RESOLVE (mem_alloc, "cuMemAlloc_v2", "cuMemAlloc");
  RESOLVE (mem_free, "cuMemFree_v2", "cuMemFree");
  RESOLVE (mem_host_alloc, "cuMemHostAlloc", "cuMemHostAlloc");
  RESOLVE (mem_free_host, "cuMemFreeHost", "cuMemFreeHost");
  RESOLVE (ctx_push, "cuCtxPushCurrent_v2", "cuCtxPushCurrent");
  RESOLVE (ctx_pop, "cuCtxPopCurrent_v2", "cuCtxPopCurrent");
#undef RESOLVE
  return TRUE;
}

/* µs per pair over @n pairs of @kind. */
static double
run (Kind              kind,
     Raw              *raw,
     GCudaContext     *context,
     GCudaMemoryPool  *pool,
     GCudaHostMemoryPool *host_pool,
     GCudaStreamPool  *stream_pool,
     GCudaStream      *stream,
     guint64           size,
     guint             n)
{
  GError *error = NULL;
  gint64 start;
  CUcontext popped;

  if (kind == RAW_ALLOC || kind == RAW_HOST_ALLOC)
    bench_raw_check (raw->ctx_push (raw->context), "cuCtxPushCurrent");
  start = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    {
      switch (kind)
        {
        case POOL_UNREF:
        case POOL_FREE:
          {
            GCudaBuffer *buffer = gcuda_memory_pool_allocate (pool, size, &error);

            if (G_UNLIKELY (buffer == NULL))
              bench_gcuda_check (FALSE, error, "gcuda_memory_pool_allocate");
            if (kind == POOL_FREE)
              gcuda_buffer_free (buffer, NULL);
            g_object_unref (buffer);
          }
          break;
        case POOL_ADDRESS:
          {
            guint64 address;

            if (G_UNLIKELY (!gcuda_memory_pool_allocate_address (pool, size, &address, &error) ||
                            !gcuda_memory_pool_free_address (pool, address, &error)))
              bench_gcuda_check (FALSE, error, "gcuda_memory_pool_allocate/free_address");
          }
          break;
        case STREAM_POOL_UNREF:
          {
            GCudaBuffer *buffer = gcuda_stream_pool_allocate (stream_pool, size, stream, &error);

            if (G_UNLIKELY (buffer == NULL))
              bench_gcuda_check (FALSE, error, "gcuda_stream_pool_allocate");
            g_object_unref (buffer);
            /* bounds the work queued on the stream */
            if ((i + 1) % 1000 == 0 && !gcuda_stream_synchronize (stream, &error))
              bench_gcuda_check (FALSE, error, "gcuda_stream_synchronize");
          }
          break;
        case BUFFER_NEW:
          {
            GCudaBuffer *buffer = gcuda_buffer_new (context, size, &error);

            if (G_UNLIKELY (buffer == NULL))
              bench_gcuda_check (FALSE, error, "gcuda_buffer_new");
            g_object_unref (buffer);
          }
          break;
        case RAW_ALLOC:
          {
            CUdeviceptr ptr = 0;

            bench_raw_check (raw->mem_alloc (&ptr, size), "cuMemAlloc");
            bench_raw_check (raw->mem_free (ptr), "cuMemFree");
          }
          break;
        case HOST_POOL:
          {
            GCudaHostBuffer *buffer = gcuda_host_memory_pool_allocate (host_pool, size, &error);

            if (G_UNLIKELY (buffer == NULL))
              bench_gcuda_check (FALSE, error, "gcuda_host_memory_pool_allocate");
            g_object_unref (buffer);
          }
          break;
        case HOST_POOL_ADDRESS:
          {
            guint64 address;

            if (G_UNLIKELY (!gcuda_host_memory_pool_allocate_address (host_pool, size, &address, &error) ||
                            !gcuda_host_memory_pool_free_address (host_pool, address, &error)))
              bench_gcuda_check (FALSE, error, "gcuda_host_memory_pool_allocate/free_address");
          }
          break;
        case RAW_HOST_ALLOC:
          {
            void *ptr = NULL;

            bench_raw_check (raw->mem_host_alloc (&ptr, size, 0), "cuMemHostAlloc");
            bench_raw_check (raw->mem_free_host (ptr), "cuMemFreeHost");
          }
          break;
        case N_KINDS:
          g_assert_not_reached ();
        }
    }
  if (kind == STREAM_POOL_UNREF && !gcuda_stream_synchronize (stream, &error))
    bench_gcuda_check (FALSE, error, "gcuda_stream_synchronize");
  start = g_get_monotonic_time () - start;
  if (kind == RAW_ALLOC || kind == RAW_HOST_ALLOC)
    bench_raw_check (raw->ctx_pop (&popped), "cuCtxPopCurrent");
  return (double) start / n;
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

int
main (int argc, char **argv)
{
  static const guint64 sizes[] = { 4096, 1 << 20, 64 << 20 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaMemoryPool) pool = NULL;
  g_autoptr(GCudaHostMemoryPool) host_pool = NULL;
  g_autoptr(GCudaStreamPool) stream_pool = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  guint pairs = argc > 1 ? (guint) g_ascii_strtoull (argv[1], NULL, 10) : 100000;
  int rounds = argc > 2 ? atoi (argv[2]) : 7;
  Raw raw = { 0 };

  g_set_prgname ("bench-pool");
  if (pairs == 0 || rounds < 1)
    {
      fprintf (stderr, "usage: bench-pool [pairs per round] [rounds]\n");
      return 2;
    }
  context = gcuda_context_get_default (&error);
  if (context == NULL)
    {
      fprintf (stderr, "bench-pool: %s\n", error->message);
      return 77;
    }
  if (!raw_load (&raw))
    return 77;
  raw.context = (CUcontext) (guintptr) gcuda_context_get_handle (context);
  pool = gcuda_memory_pool_new (context);
  host_pool = gcuda_host_memory_pool_new (context, GCUDA_HOST_ALLOC_FLAGS_DEFAULT);
  stream_pool = gcuda_stream_pool_new (context, &error);
  bench_gcuda_check (stream_pool != NULL, error, "gcuda_stream_pool_new");
  stream = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_DEFAULT, 0, &error);
  bench_gcuda_check (stream != NULL, error, "gcuda_stream_new");

  printf ("# allocate+free pairs, µs per pair (best / median of %d rounds)\n", rounds);
  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      printf ("\n## %" G_GUINT64_FORMAT " bytes\n", sizes[s]);
      for (Kind kind = 0; kind < N_KINDS; kind++)
        {
          /* the driver's calls take ~100 µs, page-locking megabytes far
           * longer: fewer of them */
          gboolean slow = kind == BUFFER_NEW || kind == RAW_ALLOC;
          guint n = kind == RAW_HOST_ALLOC ? MAX (pairs / 1000, 10) : slow ? MAX (pairs / 100, 10) : pairs;
          double *times = g_new (double, rounds);

          run (kind, &raw, context, pool, host_pool, stream_pool, stream, sizes[s], MAX (n / 10, 1));  /* warm-up */
          for (int r = 0; r < rounds; r++)
            times[r] = run (kind, &raw, context, pool, host_pool, stream_pool, stream, sizes[s], n);
          qsort (times, rounds, sizeof (double), compare_doubles);
          printf ("%-42s %10.3f %10.3f   (%u pairs a round)\n", kind_names[kind], times[0], times[rounds / 2], n);
          g_free (times);
        }
    }
  printf ("\npool after the run: %" G_GUINT64_FORMAT " held blocks, %" G_GUINT64_FORMAT " managed bytes\n",
          gcuda_memory_pool_get_held_blocks (pool), gcuda_memory_pool_get_managed_bytes (pool));
  return 0;
}
