/* bench-callback-latency.c: how long after the GPU reaches a host callback
 * does GCuda's GLib callback run in the main loop, beside the raw
 * cuLaunchHostFunc() latency, measured the same way in the same run.
 *
 * Each sample starts after 200 us of idleness, so every path starts from a
 * sleeping driver callback thread (back-to-back launches find it awake and
 * look faster, which made the order of the measurements matter).
 *
 * All are timed from the launch call on an idle stream to the moment the
 * callback body runs; the raw callback is waited for by spinning and by a
 * thread sleeping on a GCond, GCuda's by iterating the main context (a
 * thread sleeping in poll()).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <gcuda.h>

#define N_DEFAULT 10000

static gint64 raw_reached;
static gint64 glib_reached;

static void CUDA_CB
raw_fn (void *data)
{
  __atomic_store_n (&raw_reached, g_get_monotonic_time (), __ATOMIC_RELEASE);
}

static GMutex cond_lock;
static GCond cond;
static gint64 cond_reached;

static void CUDA_CB
raw_cond_fn (void *data)
{
  g_mutex_lock (&cond_lock);
  cond_reached = g_get_monotonic_time ();
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
report (const char *what,
        gint64     *samples,
        int         n)
{
  qsort (samples, n, sizeof *samples, cmp_i64);
  printf ("%-42s median %6.1f us   p10 %6.1f   p90 %6.1f   (n=%d)\n", what,
          (double) samples[n / 2], (double) samples[n / 10], (double) samples[n * 9 / 10], n);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  int n = argc > 1 ? atoi (argv[1]) : N_DEFAULT;
  gint64 *raw = g_new (gint64, n), *rawc = g_new (gint64, n), *glib = g_new (gint64, n);
  CUresult (*launch_host_func) (CUstream, CUhostFn, void *);
  CUresult (*ctx_push) (CUcontext);
  CUresult (*ctx_pop) (CUcontext *);
  void *lib;

  context = gcuda_context_get_default (&error);
  if (context == NULL)
    {
      fprintf (stderr, "bench-callback-latency: %s\n", error->message);
      return 77;
    }
  stream = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);

  /* The raw path calls the same driver directly, on the same stream. */
  lib = dlopen ("libcuda.so.1", RTLD_NOW);
  launch_host_func = (CUresult (*) (CUstream, CUhostFn, void *)) dlsym (lib, "cuLaunchHostFunc");
  ctx_push = (CUresult (*) (CUcontext)) dlsym (lib, "cuCtxPushCurrent_v2");
  ctx_pop = (CUresult (*) (CUcontext *)) dlsym (lib, "cuCtxPopCurrent_v2");
  ctx_push ((CUcontext) (guintptr) gcuda_context_get_handle (context));

  for (int warm = 0; warm < 2; warm++)
    for (int i = 0; i < n; i++)
      {
        gint64 t0;

        g_usleep (200);
        __atomic_store_n (&raw_reached, 0, __ATOMIC_RELEASE);
        t0 = g_get_monotonic_time ();
        launch_host_func ((CUstream) (guintptr) gcuda_stream_get_handle (stream), raw_fn, NULL);
        while (__atomic_load_n (&raw_reached, __ATOMIC_ACQUIRE) == 0)
          ;
        raw[i] = __atomic_load_n (&raw_reached, __ATOMIC_ACQUIRE) - t0;

        g_usleep (200);
        g_mutex_lock (&cond_lock);
        cond_reached = 0;
        t0 = g_get_monotonic_time ();
        launch_host_func ((CUstream) (guintptr) gcuda_stream_get_handle (stream), raw_cond_fn, NULL);
        while (cond_reached == 0)
          g_cond_wait (&cond, &cond_lock);
        rawc[i] = cond_reached - t0;
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

  printf ("Host callback latency, launch -> callback body, %d callbacks each, interleaved:\n", n);
  report ("raw cuLaunchHostFunc (spin-waited)", raw, n);
  report ("raw cuLaunchHostFunc (thread woken by GCond)", rawc, n);
  report ("GCuda add_callback -> GLib main loop", glib, n);
  g_free (raw);
  g_free (rawc);
  g_free (glib);
  return 0;
}
