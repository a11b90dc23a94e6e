/* bench-memcpy.c: copy bandwidth through GCuda's C API beside the raw
 * driver, measured the same way in the same run, on the same memory
 *
 * HtoD and DtoH from and into page-locked memory (a GCudaHostBuffer) and
 * pageable memory (malloc), and DtoD between two device buffers. GCuda's
 * side is gcuda_buffer_upload_from_address(), _download_to_address() and
 * _copy_from(), called with no context current (as an application calls
 * them, so GCuda's push and pop of its context are counted). The raw side
 * is cuMemcpyHtoD_v2, cuMemcpyDtoH_v2 and cuMemcpyDtoD_v2 from
 * dlopen("libcuda.so.1"), with the GCuda context's handle pushed by raw
 * cuCtxPushCurrent_v2.
 *
 * Each copy is timed with g_get_monotonic_time() from the call until the
 * copy is complete: GCuda's synchronous calls return then (they are
 * documented to); the raw side adds what the driver needs for that,
 * cuStreamSynchronize(CU_STREAM_LEGACY) after HtoD (which may return
 * before the DMA from pageable memory is done) and after DtoD (asynchronous
 * to the host); cuMemcpyDtoH returns when done. DtoD bandwidth counts each
 * byte read and written (2 × size).
 *
 * DtoD is also timed on the GPU, with events recorded on the legacy stream
 * around the stream-ordered forms (gcuda_buffer_copy_from_on_stream() with
 * a NULL stream, raw cuMemcpyDtoDAsync_v2 on the NULL stream), the context
 * pushed for the records only on both sides: the time between the events
 * is the copy plus the host's latency in queuing it.
 *
 * The repetitions of the two sides alternate (raw first on even rounds,
 * GCuda first on odd ones), after warm-up rounds; the best and the median
 * of the repetitions are printed, and GCuda/raw (1.000 = same speed,
 * below 1 = GCuda slower). It asserts nothing. With --json FILE every
 * repetition's GB/s goes to FILE (the schema of tools/run-benchmarks); a
 * driver without events leaves the GPU-time rows "not run". Exit status
 * 77: no GPU or no driver.
 *
 * Usage: bench-memcpy [--json FILE] [MiB per copy, default 256] [repetitions, default 10]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "gcuda-cuda-abi-private.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcuda.h>

#include "bench-util.h"

#define WARMUP 2
/* the rows' names in the --json report */
#define RAW_NAME "raw cuMemcpy*"
#define GCUDA_NAME "GCuda C API"

typedef struct {
  CUresult (*memcpy_htod) (CUdeviceptr, const void *, size_t);
  CUresult (*memcpy_dtoh) (void *, CUdeviceptr, size_t);
  CUresult (*memcpy_dtod) (CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*memcpy_dtod_async) (CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*ctx_push) (CUcontext);
  CUresult (*ctx_pop) (CUcontext *);
  CUresult (*stream_synchronize) (CUstream);
  CUresult (*event_create) (CUevent *, unsigned int);
  CUresult (*event_record) (CUevent, CUstream);
  CUresult (*event_synchronize) (CUevent);
  CUresult (*event_elapsed) (float *, CUevent, CUevent);
  CUresult (*event_destroy) (CUevent);
  CUcontext context;
} Raw;

typedef enum {
  HTOD_PINNED,
  DTOH_PINNED,
  HTOD_PAGEABLE,
  DTOH_PAGEABLE,
  DTOD,
  DTOD_EVENTS,
  N_KINDS
} Kind;

static const char *const kind_names[N_KINDS] = {
  "HtoD pinned", "DtoH pinned", "HtoD pageable", "DtoH pageable",
  "DtoD (read+write)", "DtoD async, GPU time",
};

typedef struct {
  Raw *raw;
  GCudaContext *context;
  GCudaBuffer *dev_a;
  GCudaBuffer *dev_b;
  void *pinned;
  void *pageable;
  guint64 size;
  CUevent start;
  CUevent stop;
} Bench;

static gboolean
raw_load (Raw *raw)
{
  void *lib = bench_open_driver ();

  if (lib == NULL)
    return FALSE;
#define RESOLVE(field, exported, base) \
  raw->field = (__typeof__ (raw->field)) bench_resolve (lib, exported, base)
  RESOLVE (memcpy_htod, "cuMemcpyHtoD_v2", "cuMemcpyHtoD");
  RESOLVE (memcpy_dtoh, "cuMemcpyDtoH_v2", "cuMemcpyDtoH");
  RESOLVE (memcpy_dtod, "cuMemcpyDtoD_v2", "cuMemcpyDtoD");
  RESOLVE (ctx_push, "cuCtxPushCurrent_v2", "cuCtxPushCurrent");
  RESOLVE (ctx_pop, "cuCtxPopCurrent_v2", "cuCtxPopCurrent");
  RESOLVE (stream_synchronize, "cuStreamSynchronize", "cuStreamSynchronize");
#undef RESOLVE
  /* the GPU-time rows only; a driver without them (the mock) leaves those
   * rows not run */
#define OPTIONAL(field, exported, base) \
  raw->field = (__typeof__ (raw->field)) bench_resolve_optional (lib, exported, base)
  OPTIONAL (memcpy_dtod_async, "cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync");
  OPTIONAL (event_create, "cuEventCreate", "cuEventCreate");
  OPTIONAL (event_record, "cuEventRecord", "cuEventRecord");
  OPTIONAL (event_synchronize, "cuEventSynchronize", "cuEventSynchronize");
  /* _v2 (CUDA 12.8) where the driver has it; same signature */
  raw->event_elapsed = (__typeof__ (raw->event_elapsed)) dlsym (lib, "cuEventElapsedTime_v2");
  if (raw->event_elapsed == NULL)
    OPTIONAL (event_elapsed, "cuEventElapsedTime", "cuEventElapsedTime");
  OPTIONAL (event_destroy, "cuEventDestroy_v2", "cuEventDestroy");
#undef OPTIONAL
  return TRUE;
}

static gboolean
has_events (Raw *raw)
{
  return raw->memcpy_dtod_async != NULL && raw->event_create != NULL && raw->event_record != NULL &&
         raw->event_synchronize != NULL && raw->event_elapsed != NULL && raw->event_destroy != NULL;
}

static void
push (Raw *raw)
{
  bench_raw_check (raw->ctx_push (raw->context), "cuCtxPushCurrent");
}

static void
pop (Raw *raw)
{
  CUcontext popped = NULL;

  bench_raw_check (raw->ctx_pop (&popped), "cuCtxPopCurrent");
}

static CUdeviceptr
dptr (GCudaBuffer *buffer)
{
  return (CUdeviceptr) gcuda_buffer_get_address (buffer);
}

/* One raw copy, complete; seconds. */
static double
time_raw (Bench *b,
          Kind   kind)
{
  Raw *raw = b->raw;
  gint64 t0, t1;

  push (raw);
  if (kind == DTOD_EVENTS)
    {
      float ms = 0;

      bench_raw_check (raw->event_record (b->start, NULL), "cuEventRecord");
      pop (raw);
      push (raw);
      bench_raw_check (raw->memcpy_dtod_async (dptr (b->dev_b), dptr (b->dev_a), b->size, NULL), "cuMemcpyDtoDAsync");
      pop (raw);
      push (raw);
      bench_raw_check (raw->event_record (b->stop, NULL), "cuEventRecord");
      bench_raw_check (raw->event_synchronize (b->stop), "cuEventSynchronize");
      bench_raw_check (raw->event_elapsed (&ms, b->start, b->stop), "cuEventElapsedTime");
      pop (raw);
      return ms / 1e3;
    }

  t0 = g_get_monotonic_time ();
  switch (kind)
    {
    case HTOD_PINNED:
    case HTOD_PAGEABLE:
      bench_raw_check (raw->memcpy_htod (dptr (b->dev_a), kind == HTOD_PINNED ? b->pinned : b->pageable, b->size),
                 "cuMemcpyHtoD");
      bench_raw_check (raw->stream_synchronize (CU_STREAM_LEGACY), "cuStreamSynchronize");
      break;
    case DTOH_PINNED:
    case DTOH_PAGEABLE:
      bench_raw_check (raw->memcpy_dtoh (kind == DTOH_PINNED ? b->pinned : b->pageable, dptr (b->dev_a), b->size),
                 "cuMemcpyDtoH");
      break;
    case DTOD:
      bench_raw_check (raw->memcpy_dtod (dptr (b->dev_b), dptr (b->dev_a), b->size), "cuMemcpyDtoD");
      bench_raw_check (raw->stream_synchronize (CU_STREAM_LEGACY), "cuStreamSynchronize");
      break;
    default:
      g_assert_not_reached ();
    }
  t1 = g_get_monotonic_time ();
  pop (raw);
  return (t1 - t0) / 1e6;
}

/* One copy through GCuda, no context current; seconds. */
static double
time_gcuda (Bench *b,
            Kind   kind)
{
  GError *error = NULL;
  gint64 t0, t1;
  gboolean ok;

  if (kind == DTOD_EVENTS)
    {
      Raw *raw = b->raw;
      float ms = 0;

      push (raw);
      bench_raw_check (raw->event_record (b->start, NULL), "cuEventRecord");
      pop (raw);
      ok = gcuda_buffer_copy_from_on_stream (b->dev_b, 0, b->dev_a, 0, b->size, NULL, &error);
      bench_gcuda_check (ok, error, "gcuda_buffer_copy_from_on_stream");
      push (raw);
      bench_raw_check (raw->event_record (b->stop, NULL), "cuEventRecord");
      bench_raw_check (raw->event_synchronize (b->stop), "cuEventSynchronize");
      bench_raw_check (raw->event_elapsed (&ms, b->start, b->stop), "cuEventElapsedTime");
      pop (raw);
      return ms / 1e3;
    }

  t0 = g_get_monotonic_time ();
  switch (kind)
    {
    case HTOD_PINNED:
    case HTOD_PAGEABLE:
      ok = gcuda_buffer_upload_from_address (b->dev_a, 0, (guint64) (guintptr) (kind == HTOD_PINNED ? b->pinned : b->pageable),
                                             b->size, &error);
      break;
    case DTOH_PINNED:
    case DTOH_PAGEABLE:
      ok = gcuda_buffer_download_to_address (b->dev_a, 0, (guint64) (guintptr) (kind == DTOH_PINNED ? b->pinned : b->pageable),
                                             b->size, &error);
      break;
    case DTOD:
      ok = gcuda_buffer_copy_from (b->dev_b, 0, b->dev_a, 0, b->size, &error);
      break;
    default:
      g_assert_not_reached ();
    }
  t1 = g_get_monotonic_time ();
  bench_gcuda_check (ok, error, kind_names[kind]);
  return (t1 - t0) / 1e6;
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* @seconds (@n of them) as GB/s in @gbps, in the same order; the best and
 * the median GB/s. */
static void
summarize (const double *seconds,
           int           n,
           double        bytes,
           double       *gbps,
           double       *best,
           double       *median)
{
  double *sorted = g_new (double, n);

  for (int i = 0; i < n; i++)
    sorted[i] = gbps[i] = bytes / seconds[i] / 1e9;
  qsort (sorted, n, sizeof *sorted, cmp_double);
  *best = sorted[n - 1];
  *median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  g_free (sorted);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaBuffer) dev_a = NULL;
  g_autoptr(GCudaBuffer) dev_b = NULL;
  g_autoptr(GCudaHostBuffer) pinned = NULL;
  double *raw_times, *gcuda_times, *raw_gbps, *gcuda_gbps;
  const char *json = bench_take_json_arg (&argc, argv);
  guint64 mib = argc > 1 ? g_ascii_strtoull (argv[1], NULL, 10) : 256;
  int reps = argc > 2 ? atoi (argv[2]) : 10;
  BenchReport *report;
  Raw raw = { 0 };
  Bench b = { 0 };

  g_set_prgname ("bench-memcpy");
  if (mib == 0 || reps < 1)
    {
      fprintf (stderr, "usage: bench-memcpy [--json FILE] [MiB per copy] [repetitions]\n");
      return 2;
    }

  context = gcuda_context_get_default (&error);
  if (context == NULL)
    {
      fprintf (stderr, "bench-memcpy: %s\n", error->message);
      return 77;
    }
  if (!raw_load (&raw))
    return 77;
  raw.context = (CUcontext) (guintptr) gcuda_context_get_handle (context);

  b.raw = &raw;
  b.context = context;
  b.size = mib << 20;
  dev_a = gcuda_buffer_new (context, b.size, &error);
  bench_gcuda_check (dev_a != NULL, error, "gcuda_buffer_new");
  dev_b = gcuda_buffer_new (context, b.size, &error);
  bench_gcuda_check (dev_b != NULL, error, "gcuda_buffer_new");
  pinned = gcuda_host_buffer_new_pagelocked (context, b.size, GCUDA_HOST_ALLOC_FLAGS_DEFAULT, &error);
  bench_gcuda_check (pinned != NULL, error, "gcuda_host_buffer_new_pagelocked");
  b.dev_a = dev_a;
  b.dev_b = dev_b;
  b.pinned = GSIZE_TO_POINTER (gcuda_host_buffer_get_address (pinned));
  b.pageable = malloc (b.size);
  if (b.pageable == NULL)
    {
      fprintf (stderr, "bench-memcpy: out of host memory\n");
      return 1;
    }
  /* touch every page, so that no copy pays for first faults */
  memset (b.pageable, 0x5a, b.size);
  memset (b.pinned, 0xa5, b.size);
  bench_gcuda_check (gcuda_buffer_memset_d8 (dev_a, 0, 0x3c, b.size, NULL, &error), error, "memset");
  bench_gcuda_check (gcuda_buffer_memset_d8 (dev_b, 0, 0xc3, b.size, NULL, &error), error, "memset");
  if (has_events (&raw))
    {
      push (&raw);
      bench_raw_check (raw.event_create (&b.start, CU_EVENT_DEFAULT), "cuEventCreate");
      bench_raw_check (raw.event_create (&b.stop, CU_EVENT_DEFAULT), "cuEventCreate");
      pop (&raw);
    }

  raw_times = g_new (double, reps);
  gcuda_times = g_new (double, reps);
  raw_gbps = g_new (double, reps);
  gcuda_gbps = g_new (double, reps);
  report = bench_report_new ("memcpy", "memcpy-c", "Copy bandwidth, C: GCuda's C API beside the raw driver");
  bench_report_param_int (report, "mib", (gint64) mib);
  bench_report_param_int (report, "reps", reps);
  bench_report_param_int (report, "warmup", WARMUP);
  bench_report_env (report, "device", gcuda_device_get_name (gcuda_context_get_device (context)));

  printf ("Copy bandwidth, %" G_GUINT64_FORMAT " MiB per copy, best and median of %d (after %d warm-up rounds),\n"
          "GB/s = 1e9 bytes/s; device: %s; raw = libcuda called directly in the same process\n\n",
          mib, reps, WARMUP, gcuda_device_get_name (gcuda_context_get_device (context)));
  printf ("%-26s %19s %19s %17s\n", "", "raw driver", "GCuda C API", "GCuda / raw");
  printf ("%-26s %9s %9s %9s %9s %8s %8s\n", "", "best", "median", "best", "median", "best", "median");

  for (Kind kind = 0; kind < N_KINDS; kind++)
    {
      const double bytes = (kind == DTOD || kind == DTOD_EVENTS ? 2.0 : 1.0) * b.size;
      const char *limit = kind == DTOD || kind == DTOD_EVENTS ? "hbm" : "pcie";
      double raw_best, raw_median, gcuda_best, gcuda_median;

      if (kind == DTOD_EVENTS && !has_events (&raw))
        {
          printf ("%-26s not run: the driver has no events\n", kind_names[kind]);
          bench_report_not_run (report, kind_names[kind], RAW_NAME, BENCH_ROLE_REFERENCE, "the driver has no events");
          bench_report_not_run (report, kind_names[kind], GCUDA_NAME, BENCH_ROLE_GCUDA, "the driver has no events");
          continue;
        }
      for (int i = 0; i < WARMUP; i++)
        {
          time_raw (&b, kind);
          time_gcuda (&b, kind);
        }
      for (int i = 0; i < reps; i++)
        {
          if (i % 2 == 0)
            {
              raw_times[i] = time_raw (&b, kind);
              gcuda_times[i] = time_gcuda (&b, kind);
            }
          else
            {
              gcuda_times[i] = time_gcuda (&b, kind);
              raw_times[i] = time_raw (&b, kind);
            }
        }
      summarize (raw_times, reps, bytes, raw_gbps, &raw_best, &raw_median);
      summarize (gcuda_times, reps, bytes, gcuda_gbps, &gcuda_best, &gcuda_median);
      bench_report_row (report, kind_names[kind], RAW_NAME, BENCH_ROLE_REFERENCE, "GB/s", TRUE,
                        raw_gbps, reps, NULL, limit, NULL);
      bench_report_row (report, kind_names[kind], GCUDA_NAME, BENCH_ROLE_GCUDA, "GB/s", TRUE,
                        gcuda_gbps, reps, RAW_NAME, limit, NULL);
      printf ("%-26s %9.2f %9.2f %9.2f %9.2f %8.4f %8.4f\n", kind_names[kind],
              raw_best, raw_median, gcuda_best, gcuda_median,
              gcuda_best / raw_best, gcuda_median / raw_median);
      fflush (stdout);
    }

  if (has_events (&raw))
    {
      push (&raw);
      raw.event_destroy (b.start);
      raw.event_destroy (b.stop);
      pop (&raw);
    }
  bench_report_finish (report, json);
  g_free (raw_times);
  g_free (gcuda_times);
  g_free (raw_gbps);
  g_free (gcuda_gbps);
  free (b.pageable);
  return 0;
}
