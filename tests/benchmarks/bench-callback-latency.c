/* bench-callback-latency.c: how long after the GPU reaches a host callback
 * does GCuda's GLib callback run in the main loop, beside the raw
 * cuLaunchHostFunc() latency, measured the same way in the same run.
 *
 * Each sample starts after 200 us of idleness, so every path starts from a
 * sleeping driver callback thread (back-to-back launches find it awake and
 * look faster, which made the order of the measurements matter).
 *
 * All are timed from the launch call on an idle stream to the moment the
 * callback body runs in the thread that waits for it: the raw callback is
 * waited for by spinning (the body runs on the driver's thread, seen at
 * once), and by a thread sleeping on a GCond that the body signals (the
 * sample ends when that thread is awake again), GCuda's by iterating the
 * main context (a thread sleeping in poll(), where the body runs). The three take turns, sample by sample,
 * after WARMUP (200) samples of each; with --json FILE every sample goes to FILE
 * (the schema of tools/run-benchmarks), GCuda's beside the raw callback
 * woken by a GCond (a sleeping thread woken, as the main loop's is).
 * Exit status 77: no GPU, or no driver with streams and host functions.
 *
 * Usage: bench-callback-latency [--json FILE] [samples of each, default 10000]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "gcuda-cuda-abi-private.h"
#include <stdio.h>
#include <stdlib.h>

#include <gcuda.h>

#include "bench-util.h"

#define N_DEFAULT 10000
#define WARMUP 200
#define RAW_SPIN "raw cuLaunchHostFunc, spin-waited"
#define RAW_COND "raw cuLaunchHostFunc, thread woken by GCond"
#define GCUDA_MAIN_LOOP "GCuda add_callback, GLib main loop"

static gint64 raw_reached;
static gint64 glib_reached;

static void CUDA_CB
raw_fn (void *data)
{
  __atomic_store_n (&raw_reached, g_get_monotonic_time (), __ATOMIC_RELEASE);
}

static GMutex cond_lock;
static GCond cond;
static gboolean cond_reached;

/* Only wakes the waiting thread up: the sample ends when that thread runs,
 * as GCuda's ends when the main loop's thread runs the callback body (a
 * time taken here, on the driver's thread, would leave the wake-up out). */
static void CUDA_CB
raw_cond_fn (void *data)
{
  g_mutex_lock (&cond_lock);
  cond_reached = TRUE;
  g_cond_signal (&cond);
  g_mutex_unlock (&cond_lock);
}

static void
glib_fn (GCudaStream *stream,
         gpointer     data)
{
  glib_reached = g_get_monotonic_time ();
}

static int
cmp_i64 (const void *a,
         const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return (x > y) - (x < y);
}

static void
report_row (BenchReport *json,
            const char  *what,
            const char  *reference,
            gint64      *samples,
            int          n)
{
  double *us = g_new (double, n);

  for (int i = 0; i < n; i++)
    us[i] = (double) samples[i];
  bench_report_row (json, "launch to callback body", what, reference ? BENCH_ROLE_GCUDA : BENCH_ROLE_REFERENCE,
                    "µs", FALSE, us, n, reference, NULL, NULL);
  g_free (us);
  qsort (samples, n, sizeof *samples, cmp_i64);
  printf ("%-44s median %6.1f us   p10 %6.1f   p90 %6.1f   (n=%d)\n", what,
          (double) samples[n / 2], (double) samples[n / 10], (double) samples[n * 9 / 10], n);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  const char *json = bench_take_json_arg (&argc, argv);
  int n = argc > 1 ? atoi (argv[1]) : N_DEFAULT;
  gint64 *raw, *rawc, *glib;
  CUresult (*launch_host_func) (CUstream, CUhostFn, void *);
  CUresult (*ctx_push) (CUcontext);
  CUresult (*ctx_pop) (CUcontext *);
  BenchReport *report;
  void *lib;

  g_set_prgname ("bench-callback-latency");
  if (n < 1)
    {
      fprintf (stderr, "usage: bench-callback-latency [--json FILE] [samples]\n");
      return 2;
    }
  context = gcuda_context_get_default (&error);
  if (context == NULL)
    {
      fprintf (stderr, "bench-callback-latency: %s\n", error->message);
      return 77;
    }
  stream = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  if (stream == NULL)
    {
      fprintf (stderr, "bench-callback-latency: no stream: %s\n", error->message);
      return 77;
    }

  /* The raw path calls the same driver directly, on the same stream. */
  if ((lib = bench_open_driver ()) == NULL)
    return 77;
  launch_host_func = (CUresult (*) (CUstream, CUhostFn, void *)) bench_resolve_optional (lib, "cuLaunchHostFunc",
                                                                                        "cuLaunchHostFunc");
  if (launch_host_func == NULL)
    {
      fprintf (stderr, "bench-callback-latency: the driver has no cuLaunchHostFunc\n");
      return 77;
    }
  ctx_push = (CUresult (*) (CUcontext)) bench_resolve (lib, "cuCtxPushCurrent_v2", "cuCtxPushCurrent");
  ctx_pop = (CUresult (*) (CUcontext *)) bench_resolve (lib, "cuCtxPopCurrent_v2", "cuCtxPopCurrent");
  bench_raw_check (ctx_push ((CUcontext) (guintptr) gcuda_context_get_handle (context)), "cuCtxPushCurrent");

  raw = g_new (gint64, MAX (n, WARMUP));
  rawc = g_new (gint64, MAX (n, WARMUP));
  glib = g_new (gint64, MAX (n, WARMUP));
  for (int warm = 0; warm < 2; warm++)
    for (int i = 0; i < (warm == 0 ? WARMUP : n); i++)
      {
        gint64 t0;

        g_usleep (200);
        __atomic_store_n (&raw_reached, 0, __ATOMIC_RELEASE);
        t0 = g_get_monotonic_time ();
        bench_raw_check (launch_host_func ((CUstream) (guintptr) gcuda_stream_get_handle (stream), raw_fn, NULL),
                         "cuLaunchHostFunc");
        while (__atomic_load_n (&raw_reached, __ATOMIC_ACQUIRE) == 0)
          ;
        raw[i] = __atomic_load_n (&raw_reached, __ATOMIC_ACQUIRE) - t0;

        g_usleep (200);
        g_mutex_lock (&cond_lock);
        cond_reached = FALSE;
        t0 = g_get_monotonic_time ();
        bench_raw_check (launch_host_func ((CUstream) (guintptr) gcuda_stream_get_handle (stream), raw_cond_fn, NULL),
                         "cuLaunchHostFunc");
        while (!cond_reached)
          g_cond_wait (&cond, &cond_lock);
        rawc[i] = g_get_monotonic_time () - t0;  /* in the woken thread */
        g_mutex_unlock (&cond_lock);

        g_usleep (200);
        glib_reached = 0;
        t0 = g_get_monotonic_time ();
        if (!gcuda_stream_add_callback (stream, glib_fn, NULL, NULL, &error))
          g_error ("%s", error->message);
        while (glib_reached == 0)
          g_main_context_iteration (NULL, TRUE);
        glib[i] = glib_reached - t0;
      }

  {
    CUcontext popped;
    ctx_pop (&popped);
  }

  report = bench_report_new ("callback-latency", "callback-latency-c",
                             "Host callback latency, C: GCuda's main-loop callback beside raw cuLaunchHostFunc");
  bench_report_param_int (report, "samples", n);
  bench_report_param_int (report, "warmup", WARMUP);
  bench_report_env (report, "device", gcuda_device_get_name (gcuda_context_get_device (context)));
  printf ("Host callback latency, launch -> callback body, %d callbacks each, interleaved:\n", n);
  report_row (report, RAW_SPIN, NULL, raw, n);
  report_row (report, RAW_COND, NULL, rawc, n);
  report_row (report, GCUDA_MAIN_LOOP, RAW_COND, glib, n);
  bench_report_finish (report, json);
  g_free (raw);
  g_free (rawc);
  g_free (glib);
  return 0;
}
