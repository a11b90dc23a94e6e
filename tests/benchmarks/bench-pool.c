/* bench-pool.c: allocate+free pairs through GCuda's pools beside the raw
 * driver, in the same process, on the same context
 *
 * Per pair, in µs: gcuda_memory_pool_allocate() and dropping the buffer
 * (warm pool: the block is reused), the same with gcuda_buffer_free() first,
 * gcuda_memory_pool_allocate_address() + free_address() (no buffer object),
 * gcuda_stream_pool_allocate() on one stream and dropping the buffer (the
 * driver's stream-ordered allocator; the stream is synchronized every 1000
 * pairs and at the end of a round, inside the timing), the same with
 * gcuda_stream_pool_allocate_address() + free_address() (no buffer object),
 * and the same with the context pushed beforehand (as the raw rows have it:
 * the rest is what GCuda adds besides making its context current for each
 * call), gcuda_buffer_new() and dropping it (no pool), raw cuMemAlloc_v2 +
 * cuMemFree_v2 with the context pushed by raw cuCtxPushCurrent_v2, and raw
 * cuMemAllocFromPoolAsync + cuMemFreeAsync from a pool made as
 * GCudaStreamPool makes its own (cuMemPoolCreate, all freed memory kept),
 * on the same stream, synchronized as the stream pool's; then the
 * page-locked equivalents (GCudaHostMemoryPool, raw cuMemHostAlloc +
 * cuMemFreeHost). Several sizes; the best and the median of the rounds are
 * printed. With --json FILE every round's µs per pair goes to FILE (the
 * schema of tools/run-benchmarks): the device pools and gcuda_buffer_new
 * beside raw cuMemAlloc + cuMemFree, the stream pool beside the raw
 * stream-ordered pair, the host pool beside cuMemHostAlloc +
 * cuMemFreeHost. A driver without the stream-ordered allocator leaves
 * those rows "not run". It asserts nothing; exit 77 without a GPU.
 *
 * Usage: bench-pool [--json FILE] [pairs per round for the pools, default 100000] [rounds, default 7]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "gcuda-cuda-abi-private.h"
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
  /* optional: the stream-ordered allocator */
  CUresult (*pool_create) (CUmemoryPool *, const CUmemPoolProps *);
  CUresult (*pool_set_attribute) (CUmemoryPool, CUmemPool_attribute, void *);
  CUresult (*pool_destroy) (CUmemoryPool);
  CUresult (*alloc_from_pool_async) (CUdeviceptr *, size_t, CUmemoryPool, CUstream);
  CUresult (*free_async) (CUdeviceptr, CUstream);
  CUresult (*stream_synchronize) (CUstream);
  CUcontext context;
  CUdevice device;
  CUmemoryPool pool;  /* NULL: no stream-ordered allocator */
  CUstream stream;    /* the GCudaStream's handle */
} Raw;

typedef enum {
  POOL_UNREF,
  POOL_FREE,
  POOL_ADDRESS,
  STREAM_POOL_UNREF,
  STREAM_POOL_ADDRESS,
  STREAM_POOL_ADDRESS_CURRENT,
  BUFFER_NEW,
  RAW_ALLOC,
  RAW_STREAM_ALLOC,
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
  "GCudaStreamPool allocate/free_address",
  "GCudaStreamPool allocate/free_address, ctx current",
  "gcuda_buffer_new + unref (no pool)",
  "raw cuMemAlloc + cuMemFree",
  "raw cuMemAllocFromPoolAsync + cuMemFreeAsync",
  "GCudaHostMemoryPool allocate + unref",
  "GCudaHostMemoryPool allocate/free_address",
  "raw cuMemHostAlloc + cuMemFreeHost",
};

/* the raw path each one is compared with in the --json report */
static const Kind kind_references[N_KINDS] = {
  [POOL_UNREF] = RAW_ALLOC,
  [POOL_FREE] = RAW_ALLOC,
  [POOL_ADDRESS] = RAW_ALLOC,
  [STREAM_POOL_UNREF] = RAW_STREAM_ALLOC,
  [STREAM_POOL_ADDRESS] = RAW_STREAM_ALLOC,
  [STREAM_POOL_ADDRESS_CURRENT] = RAW_STREAM_ALLOC,
  [BUFFER_NEW] = RAW_ALLOC,
  [RAW_ALLOC] = N_KINDS,
  [RAW_STREAM_ALLOC] = N_KINDS,
  [HOST_POOL] = RAW_HOST_ALLOC,
  [HOST_POOL_ADDRESS] = RAW_HOST_ALLOC,
  [RAW_HOST_ALLOC] = N_KINDS,
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
#define OPTIONAL(field, exported, base) \
  raw->field = (__typeof__ (raw->field)) bench_resolve_optional (lib, exported, base)
  OPTIONAL (pool_create, "cuMemPoolCreate", "cuMemPoolCreate");
  OPTIONAL (pool_set_attribute, "cuMemPoolSetAttribute", "cuMemPoolSetAttribute");
  OPTIONAL (pool_destroy, "cuMemPoolDestroy", "cuMemPoolDestroy");
  OPTIONAL (alloc_from_pool_async, "cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync");
  OPTIONAL (free_async, "cuMemFreeAsync", "cuMemFreeAsync");
  OPTIONAL (stream_synchronize, "cuStreamSynchronize", "cuStreamSynchronize");
#undef OPTIONAL
  return TRUE;
}

/* The raw side's stream-ordered pool, made as gcuda_stream_pool_new()
 * makes its own; NULL with the reason in @why where it cannot be. */
static CUmemoryPool
raw_pool_new (Raw         *raw,
              const char **why)
{
  CUmemPoolProps props = { 0 };
  cuuint64_t threshold = G_MAXUINT64;
  CUmemoryPool pool = NULL;
  CUcontext popped;

  if (raw->pool_create == NULL || raw->pool_set_attribute == NULL || raw->pool_destroy == NULL ||
      raw->alloc_from_pool_async == NULL || raw->free_async == NULL || raw->stream_synchronize == NULL)
    {
      *why = "the driver has no stream-ordered allocator";
      return NULL;
    }
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = raw->device;
  bench_raw_check (raw->ctx_push (raw->context), "cuCtxPushCurrent");
  if (raw->pool_create (&pool, &props) != CUDA_SUCCESS)
    {
      *why = "cuMemPoolCreate failed (no memory pools on this device)";
      pool = NULL;
    }
  else
    bench_raw_check (raw->pool_set_attribute (pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold),
                     "cuMemPoolSetAttribute");
  bench_raw_check (raw->ctx_pop (&popped), "cuCtxPopCurrent");
  return pool;
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

  /* the raw calls need the context current; so does the ctx current row,
   * to show what GCuda adds besides making its context current */
  if (kind == RAW_ALLOC || kind == RAW_STREAM_ALLOC || kind == RAW_HOST_ALLOC || kind == STREAM_POOL_ADDRESS_CURRENT)
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
            guint64 address = gcuda_memory_pool_allocate_address (pool, size, &error);

            if (G_UNLIKELY (address == 0 ||
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
        case STREAM_POOL_ADDRESS:
        case STREAM_POOL_ADDRESS_CURRENT:
          {
            guint64 address = gcuda_stream_pool_allocate_address (stream_pool, size, stream, &error);

            if (G_UNLIKELY (address == 0 ||
                            !gcuda_stream_pool_free_address (stream_pool, address, stream, &error)))
              bench_gcuda_check (FALSE, error, "gcuda_stream_pool_allocate/free_address");
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
        case RAW_STREAM_ALLOC:
          {
            CUdeviceptr ptr = 0;

            bench_raw_check (raw->alloc_from_pool_async (&ptr, size, raw->pool, raw->stream),
                             "cuMemAllocFromPoolAsync");
            bench_raw_check (raw->free_async (ptr, raw->stream), "cuMemFreeAsync");
            /* as the stream pool's loop does */
            if ((i + 1) % 1000 == 0)
              bench_raw_check (raw->stream_synchronize (raw->stream), "cuStreamSynchronize");
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
            guint64 address = gcuda_host_memory_pool_allocate_address (host_pool, size, &error);

            if (G_UNLIKELY (address == 0 ||
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
  if ((kind == STREAM_POOL_UNREF || kind == STREAM_POOL_ADDRESS || kind == STREAM_POOL_ADDRESS_CURRENT) &&
      !gcuda_stream_synchronize (stream, &error))
    bench_gcuda_check (FALSE, error, "gcuda_stream_synchronize");
  if (kind == RAW_STREAM_ALLOC)
    bench_raw_check (raw->stream_synchronize (raw->stream), "cuStreamSynchronize");
  start = g_get_monotonic_time () - start;
  if (kind == RAW_ALLOC || kind == RAW_STREAM_ALLOC || kind == RAW_HOST_ALLOC || kind == STREAM_POOL_ADDRESS_CURRENT)
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

static char *
size_label (guint64 size)
{
  return size >= (1 << 20) ? g_strdup_printf ("%" G_GUINT64_FORMAT " MiB", size >> 20)
                           : g_strdup_printf ("%" G_GUINT64_FORMAT " KiB", size >> 10);
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
  g_autofree char *no_stream_pool = NULL;
  const char *no_raw_pool = NULL;
  const char *json = bench_take_json_arg (&argc, argv);
  guint pairs = argc > 1 ? (guint) g_ascii_strtoull (argv[1], NULL, 10) : 100000;
  int rounds = argc > 2 ? atoi (argv[2]) : 7;
  BenchReport *report;
  Raw raw = { 0 };

  g_set_prgname ("bench-pool");
  if (pairs == 0 || rounds < 1)
    {
      fprintf (stderr, "usage: bench-pool [--json FILE] [pairs per round] [rounds]\n");
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
  raw.device = gcuda_device_get_ordinal (gcuda_context_get_device (context));
  pool = gcuda_memory_pool_new (context);
  host_pool = gcuda_host_memory_pool_new (context, GCUDA_HOST_ALLOC_FLAGS_DEFAULT);
  /* the stream-ordered rows need a stream and the driver's memory pools:
   * without them (e.g. on the mock driver) those rows are not run */
  stream = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_DEFAULT, 0, &error);
  if (stream == NULL)
    no_stream_pool = g_strdup_printf ("no stream: %s", error->message);
  else if ((stream_pool = gcuda_stream_pool_new (context, &error)) == NULL)
    no_stream_pool = g_strdup_printf ("gcuda_stream_pool_new: %s", error->message);
  g_clear_error (&error);
  if (stream == NULL)
    no_raw_pool = "no stream";
  else
    {
      raw.stream = (CUstream) (guintptr) gcuda_stream_get_handle (stream);
      raw.pool = raw_pool_new (&raw, &no_raw_pool);
    }

  report = bench_report_new ("pool", "pool-c", "Allocate+free pairs, C: GCuda's pools beside the raw driver");
  bench_report_param_int (report, "pairs", pairs);
  bench_report_param_int (report, "rounds", rounds);
  bench_report_env (report, "device", gcuda_device_get_name (gcuda_context_get_device (context)));

  printf ("# allocate+free pairs, µs per pair (best / median of %d rounds)\n", rounds);
  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autofree char *group = size_label (sizes[s]);

      printf ("\n## %" G_GUINT64_FORMAT " bytes\n", sizes[s]);
      for (Kind kind = 0; kind < N_KINDS; kind++)
        {
          /* the driver's calls take ~100 µs, page-locking megabytes far
           * longer: fewer of them */
          gboolean slow = kind == BUFFER_NEW || kind == RAW_ALLOC;
          guint n = kind == RAW_HOST_ALLOC ? (sizes[s] > (1 << 20) ? MAX (pairs / 5000, 5) : MAX (pairs / 1000, 10))
                  : slow ? MAX (pairs / 100, 10) : pairs;
          const char *reference = kind_references[kind] == N_KINDS ? NULL : kind_names[kind_references[kind]];
          BenchRole role = kind_references[kind] == N_KINDS ? BENCH_ROLE_REFERENCE : BENCH_ROLE_GCUDA;
          const char *why = kind == STREAM_POOL_UNREF || kind == STREAM_POOL_ADDRESS ||
                            kind == STREAM_POOL_ADDRESS_CURRENT ? no_stream_pool
                          : kind == RAW_STREAM_ALLOC ? no_raw_pool : NULL;
          g_autofree char *per_round = g_strdup_printf ("%u pairs", n);
          double *times, *sorted;

          if (why != NULL)
            {
              printf ("%-52s not run: %s\n", kind_names[kind], why);
              bench_report_not_run (report, group, kind_names[kind], role, why);
              continue;
            }
          times = g_new (double, rounds);
          run (kind, &raw, context, pool, host_pool, stream_pool, stream, sizes[s], MAX (n / 10, 1));  /* warm-up */
          for (int r = 0; r < rounds; r++)
            times[r] = run (kind, &raw, context, pool, host_pool, stream_pool, stream, sizes[s], n);
          bench_report_row (report, group, kind_names[kind], role, "µs", FALSE, times, rounds, reference, NULL,
                            per_round);
          sorted = g_memdup2 (times, rounds * sizeof *times);
          qsort (sorted, rounds, sizeof (double), compare_doubles);
          printf ("%-52s %10.3f %10.3f   (%u pairs a round)\n", kind_names[kind], sorted[0],
                  rounds % 2 ? sorted[rounds / 2] : (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2, n);
          fflush (stdout);
          g_free (sorted);
          g_free (times);
        }
    }
  printf ("\npool after the run: %" G_GUINT64_FORMAT " held blocks, %" G_GUINT64_FORMAT " managed bytes\n",
          gcuda_memory_pool_get_held_blocks (pool), gcuda_memory_pool_get_managed_bytes (pool));
  bench_report_finish (report, json);
  if (raw.pool != NULL)
    raw.pool_destroy (raw.pool);
  return 0;
}
