/* test-event.c: GCudaEvent on a real GPU
 *
 * Host callbacks are the "work" the events mark (see test-stream.c): a
 * blocking callback that sleeps stalls its stream for that long. Stalls that
 * must not occupy the test's main thread (to block in
 * gcuda_event_synchronize(), or to see a cancellation delivered at once) are
 * added from a "staller" thread iterating its own GMainContext.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-cuda-abi-private.h"
#include <dlfcn.h>

#include "gcuda-test-async.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ creation */

static void
test_new (void)
{
  const GCudaEventFlags valid[] = {
    GCUDA_EVENT_FLAGS_DEFAULT,
    GCUDA_EVENT_FLAGS_BLOCKING_SYNC,
    GCUDA_EVENT_FLAGS_DISABLE_TIMING,
    GCUDA_EVENT_FLAGS_BLOCKING_SYNC | GCUDA_EVENT_FLAGS_DISABLE_TIMING,
    GCUDA_EVENT_FLAGS_INTERPROCESS | GCUDA_EVENT_FLAGS_DISABLE_TIMING,
    GCUDA_EVENT_FLAGS_INTERPROCESS | GCUDA_EVENT_FLAGS_DISABLE_TIMING | GCUDA_EVENT_FLAGS_BLOCKING_SYNC,
  };
  g_autoptr(GCudaContext) context = NULL;
  GError *error = NULL;
  guint i;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  for (i = 0; i < G_N_ELEMENTS (valid); i++)
    {
      GCudaEvent *event = gcuda_event_new (NULL, valid[i], &error);
      g_autoptr(GCudaContext) prop_context = NULL;
      GCudaEventFlags flags = 0;

      g_assert_no_error (error);
      g_assert_true (GCUDA_IS_EVENT (event));
      g_assert_true (gcuda_event_get_context (event) == context);
      g_assert_cmpint (gcuda_event_get_flags (event), ==, valid[i]);
      g_assert_cmpuint (gcuda_event_get_handle (event), !=, 0);
      g_object_get (event, "context", &prop_context, "flags", &flags, NULL);
      g_assert_true (prop_context == context);
      g_assert_cmpint (flags, ==, valid[i]);

      /* never recorded: complete */
      g_assert_true (gcuda_event_query (event, &error));
      g_assert_no_error (error);
      g_assert_true (gcuda_event_synchronize (event, &error) == event);
      g_assert_no_error (error);
      g_object_unref (event);
    }
  gcuda_test_assert_no_current_context ();
}

static void
test_bad_flags (void)
{
  const guint invalid[] = {
    GCUDA_EVENT_FLAGS_INTERPROCESS,
    GCUDA_EVENT_FLAGS_INTERPROCESS | GCUDA_EVENT_FLAGS_BLOCKING_SYNC,
    1u << 3,
    GCUDA_EVENT_FLAGS_DISABLE_TIMING | (1u << 4),
    1u << 31,
  };
  GError *error = NULL;
  guint i;

  if (!gcuda_test_require_gpu ())
    return;

  for (i = 0; i < G_N_ELEMENTS (invalid); i++)
    {
      GCudaEvent *event = gcuda_event_new (NULL, invalid[i], &error);

      g_assert_null (event);
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    }
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ record, synchronize, query */

static void
test_record_chain (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaEvent) event = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);

  /* record() and synchronize() return the event itself: they chain */
  g_assert_true (gcuda_event_synchronize (gcuda_event_record (event, stream, &error), &error) == event);
  g_assert_no_error (error);
  g_assert_true (gcuda_event_query (event, &error));
  g_assert_no_error (error);

  /* NULL: the legacy default stream of the event's context */
  g_assert_true (gcuda_event_record (event, NULL, &error) == event);
  g_assert_no_error (error);
  g_assert_true (gcuda_event_synchronize (event, &error) == event);
  g_assert_no_error (error);
  g_assert_true (gcuda_event_query (event, &error));
  g_assert_no_error (error);

  /* recorded again and again */
  g_assert_true (gcuda_event_record (event, stream, &error) == event);
  g_assert_true (gcuda_event_record (event, stream, &error) == event);
  g_assert_no_error (error);
  g_assert_true (gcuda_event_synchronize (event, &error) == event);
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* query() is FALSE while a blocking callback queued before the event is
 * pending, TRUE once the event has been reached. */
static void
test_query_pending (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaEvent) event = NULL;
  GError *error = NULL;
  int ran = 0;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);

  add_blocking_step (stream, step_new (200, &ran));
  record (event, stream);
  g_assert_false (gcuda_event_query (event, &error));
  g_assert_no_error (error);
  g_usleep (20 * MS);  /* still: this thread has not run the callback */
  g_assert_false (gcuda_event_query (event, &error));
  g_assert_no_error (error);

  /* this thread must run the callback before it may block on the event */
  iterate_until (&ran, 10000);
  g_assert_true (gcuda_event_synchronize (event, &error) == event);
  g_assert_no_error (error);
  g_assert_true (gcuda_event_query (event, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* gcuda_event_synchronize() blocks until the event: with the stall in the
 * staller's thread, this thread can block right away. */
static void
test_synchronize_blocks (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaEvent) event = NULL;
  g_autoptr(GCudaEvent) blocking_sync = NULL;
  Staller *staller;
  GError *error = NULL;
  int ran = 0, ran2 = 0;
  gint64 start;

  if (!gcuda_test_require_gpu ())
    return;

  staller = staller_new ();
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);
  blocking_sync = new_event (NULL, GCUDA_EVENT_FLAGS_BLOCKING_SYNC | GCUDA_EVENT_FLAGS_DISABLE_TIMING);

  start = g_get_monotonic_time ();
  staller_block (staller, stream, step_new (100, &ran));
  record (event, stream);
  g_assert_false (gcuda_event_query (event, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_event_synchronize (event, &error) == event);
  g_assert_no_error (error);
  g_assert_true (g_atomic_int_get (&ran));
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 95 * MS);
  g_assert_true (gcuda_event_query (event, &error));
  g_assert_no_error (error);

  start = g_get_monotonic_time ();
  staller_block (staller, stream, step_new (50, &ran2));
  record (blocking_sync, stream);
  g_assert_true (gcuda_event_synchronize (blocking_sync, &error) == blocking_sync);
  g_assert_no_error (error);
  g_assert_true (g_atomic_int_get (&ran2));
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 45 * MS);

  staller_free (staller);
  gcuda_test_assert_no_current_context ();
}

/* NULL is the legacy default stream: an event recorded there waits for the
 * work of default-flag (blocking) streams, not for NON_BLOCKING streams. */
static void
test_record_legacy_stream (void)
{
  g_autoptr(GCudaStream) blocking = NULL;
  g_autoptr(GCudaStream) non_blocking = NULL;
  g_autoptr(GCudaEvent) event = NULL;
  Staller *staller;
  GError *error = NULL;
  int ran = 0, nb_ran = 0;

  if (!gcuda_test_require_gpu ())
    return;

  staller = staller_new ();
  blocking = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  non_blocking = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);

  /* a stalled NON_BLOCKING stream does not hold the legacy stream up */
  staller_block (staller, non_blocking, step_new (150, &nb_ran));
  record (event, NULL);
  g_assert_true (gcuda_event_synchronize (event, &error) == event);
  g_assert_no_error (error);
  g_assert_false (g_atomic_int_get (&nb_ran));

  /* a stalled default-flag stream does */
  staller_block (staller, blocking, step_new (100, &ran));
  record (event, NULL);
  g_assert_false (gcuda_event_query (event, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_event_synchronize (event, &error) == event);
  g_assert_no_error (error);
  g_assert_true (g_atomic_int_get (&ran));

  g_assert_true (gcuda_stream_synchronize (non_blocking, &error));
  g_assert_no_error (error);
  g_assert_true (g_atomic_int_get (&nb_ran));
  staller_free (staller);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ synchronize_async */

static void
test_synchronize_async (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaEvent) event = NULL;
  g_autoptr(GCudaEvent) never = NULL;
  AsyncResult r = { 0 }, rn = { 0 };
  int ran = 0;
  gint64 start;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);
  never = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);

  /* the blocking work runs in this thread's main context, as does the
   * completion, after it */
  start = g_get_monotonic_time ();
  add_blocking_step (stream, step_new (100, &ran));
  record (event, stream);
  r.ran_before = &ran;
  gcuda_event_synchronize_async (event, NULL, event_wait_cb, &r);
  iterate_until (&r.done, 10000);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (r.ran_before_value);
  g_assert_true (r.source == G_OBJECT (event));
  g_assert_true (r.thread == g_thread_self ());
  g_assert_cmpint (r.at - start, >=, 95 * MS);
  async_result_clear (&r);

  /* a never-recorded event is complete */
  gcuda_event_synchronize_async (never, NULL, event_wait_cb, &rn);
  iterate_until (&rn.done, 10000);
  g_assert_no_error (rn.error);
  g_assert_true (rn.ok);
  async_result_clear (&rn);

  drain (stream);
  gcuda_test_assert_no_current_context ();
}

typedef struct {
  GMainContext *context;
  GThread *thread;
  Staller *staller;
  int ran;
  AsyncResult r;
} WaitInThread;

static gpointer
wait_in_thread_worker (gpointer data)
{
  WaitInThread *w = data;
  GCudaStream *stream;
  GCudaEvent *event;

  w->thread = g_thread_self ();
  w->context = g_main_context_new ();
  g_main_context_push_thread_default (w->context);

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);
  staller_block (w->staller, stream, step_new (50, &w->ran));
  record (event, stream);
  w->r.ran_before = &w->ran;
  gcuda_event_synchronize_async (event, NULL, event_wait_cb, &w->r);
  g_object_unref (event);
  iterate_until (&w->r.done, 10000);
  g_assert_true (gcuda_stream_synchronize (stream, NULL));
  g_object_unref (stream);

  g_main_context_pop_thread_default (w->context);
  gcuda_test_assert_no_current_context ();
  return NULL;
}

/* synchronize_async completes in the thread-default main context of the thread
 * that called it. */
static void
test_synchronize_async_thread (void)
{
  WaitInThread w = { 0 };

  if (!gcuda_test_require_gpu ())
    return;

  while (g_main_context_iteration (NULL, FALSE))
    ;
  w.staller = staller_new ();
  g_thread_join (g_thread_new ("wait-worker", wait_in_thread_worker, &w));
  g_assert_no_error (w.r.error);
  g_assert_true (w.r.ok);
  g_assert_true (w.r.ran_before_value);
  g_assert_true (w.r.thread == w.thread);
  g_assert_true (w.r.thread_default == w.context);
  async_result_clear (&w.r);
  g_main_context_unref (w.context);
  staller_free (w.staller);

  g_assert_false (g_main_context_pending (g_main_context_default ()));
  gcuda_test_assert_no_current_context ();
}

static void
test_synchronize_async_cancel (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaEvent) event = NULL;
  g_autoptr(GCancellable) cancellable = NULL;
  AsyncResult cancelled = { 0 }, normal = { 0 }, pre = { 0 };
  Staller *staller;
  int ran = 0;
  gint64 start;

  if (!gcuda_test_require_gpu ())
    return;

  staller = staller_new ();
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);

  cancellable = g_cancellable_new ();
  g_cancellable_cancel (cancellable);
  gcuda_event_synchronize_async (event, cancellable, event_wait_cb, &pre);
  iterate_until (&pre.done, 10000);
  g_assert_false (pre.ok);
  gcuda_assert_error (pre.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_object (&cancellable);

  start = g_get_monotonic_time ();
  staller_block (staller, stream, step_new (200, &ran));
  record (event, stream);
  cancellable = g_cancellable_new ();
  cancelled.ran_before = &ran;
  gcuda_event_synchronize_async (event, cancellable, event_wait_cb, &cancelled);
  g_cancellable_cancel (cancellable);
  iterate_until (&cancelled.done, 10000);
  g_assert_false (cancelled.ok);
  gcuda_assert_error (cancelled.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (cancelled.at - start, <, 150 * MS);
  g_assert_false (cancelled.ran_before_value);

  /* the event is still reached; a new wait completes normally */
  normal.ran_before = &ran;
  gcuda_event_synchronize_async (event, NULL, event_wait_cb, &normal);
  iterate_until (&normal.done, 10000);
  g_assert_no_error (normal.error);
  g_assert_true (normal.ok);
  g_assert_true (normal.ran_before_value);
  g_assert_cmpint (normal.at - start, >=, 190 * MS);

  async_result_clear (&pre);
  async_result_clear (&cancelled);
  async_result_clear (&normal);
  iterate_for (20);
  staller_free (staller);
  gcuda_test_assert_no_current_context ();
}

/* Every reference dropped right after the call. */
static void
test_synchronize_async_drop_refs (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  GCudaEvent *event;
  GCancellable *cancellable;
  gpointer weak_event, weak_cancellable;
  AsyncResult r = { 0 };
  int ran = 0;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);
  cancellable = g_cancellable_new ();
  weak_event = event;
  weak_cancellable = cancellable;
  g_object_add_weak_pointer (G_OBJECT (event), &weak_event);
  g_object_add_weak_pointer (G_OBJECT (cancellable), &weak_cancellable);

  add_blocking_step (stream, step_new (50, &ran));
  record (event, stream);
  r.ran_before = &ran;
  gcuda_event_synchronize_async (event, cancellable, event_wait_cb, &r);
  g_object_unref (event);
  g_object_unref (cancellable);
  g_assert_nonnull (weak_event);

  iterate_until (&r.done, 10000);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (r.ran_before_value);
  g_assert_true (r.source == weak_event);
  async_result_clear (&r);
  wait_for_finalize (&weak_event);
  wait_for_finalize (&weak_cancellable);

  /* and cancelled, then dropped, while the event is still pending */
  {
    Staller *staller = staller_new ();
    AsyncResult rc = { 0 };
    int ran2 = 0;

    event = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);
    cancellable = g_cancellable_new ();
    weak_event = event;
    weak_cancellable = cancellable;
    g_object_add_weak_pointer (G_OBJECT (event), &weak_event);
    g_object_add_weak_pointer (G_OBJECT (cancellable), &weak_cancellable);

    staller_block (staller, stream, step_new (100, &ran2));
    record (event, stream);
    gcuda_event_synchronize_async (event, cancellable, event_wait_cb, &rc);
    g_cancellable_cancel (cancellable);
    g_object_unref (cancellable);
    g_object_unref (event);
    iterate_until (&rc.done, 10000);
    gcuda_assert_error (rc.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    async_result_clear (&rc);
    iterate_until (&ran2, 10000);
    wait_for_finalize (&weak_event);
    wait_for_finalize (&weak_cancellable);
    g_assert_true (gcuda_stream_synchronize (stream, NULL));
    staller_free (staller);
  }
  gcuda_test_assert_no_current_context ();
}

/* A stall on the GPU itself, not a host function (the driver may run host
 * functions one at a time, so a host-function stall would hold up every
 * completion): the stream waits, through the raw driver, until a word of
 * mapped page-locked memory becomes non-zero. */
typedef struct {
  CUresult (*ctx_push) (CUcontext);
  CUresult (*ctx_pop) (CUcontext *);
  CUresult (*host_alloc) (void **, size_t, unsigned int);
  CUresult (*host_device_pointer) (CUdeviceptr *, void *, unsigned int);
  CUresult (*wait_value) (CUstream, CUdeviceptr, cuuint32_t, unsigned int);
  CUresult (*free_host) (void *);
  CUcontext context;
  guint32 *word;
} GpuStall;

static GpuStall *
gpu_stall_new (GCudaContext *context,
               GCudaStream  *stream)
{
  GpuStall *stall = g_new0 (GpuStall, 1);
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  CUdeviceptr word_on_device = 0;
  CUcontext popped;

  g_assert_nonnull (lib);
  stall->ctx_push = (CUresult (*) (CUcontext)) dlsym (lib, "cuCtxPushCurrent_v2");
  stall->ctx_pop = (CUresult (*) (CUcontext *)) dlsym (lib, "cuCtxPopCurrent_v2");
  stall->host_alloc = (CUresult (*) (void **, size_t, unsigned int)) dlsym (lib, "cuMemHostAlloc");
  stall->host_device_pointer = (CUresult (*) (CUdeviceptr *, void *, unsigned int))
    dlsym (lib, "cuMemHostGetDevicePointer_v2");
  stall->wait_value = (CUresult (*) (CUstream, CUdeviceptr, cuuint32_t, unsigned int))
    dlsym (lib, "cuStreamWaitValue32_v2");
  stall->free_host = (CUresult (*) (void *)) dlsym (lib, "cuMemFreeHost");
  g_assert_true (stall->ctx_push && stall->ctx_pop && stall->host_alloc &&
                 stall->host_device_pointer && stall->wait_value && stall->free_host);

  stall->context = (CUcontext) (guintptr) gcuda_context_get_handle (context);
  g_assert_cmpint (stall->ctx_push (stall->context), ==, CUDA_SUCCESS);
  g_assert_cmpint (stall->host_alloc ((void **) &stall->word, sizeof (guint32),
                                      CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE), ==, CUDA_SUCCESS);
  __atomic_store_n (stall->word, 0, __ATOMIC_SEQ_CST);
  g_assert_cmpint (stall->host_device_pointer (&word_on_device, stall->word, 0), ==, CUDA_SUCCESS);
  g_assert_cmpint (stall->wait_value ((CUstream) (guintptr) gcuda_stream_get_handle (stream),
                                      word_on_device, 1, CU_STREAM_WAIT_VALUE_GEQ), ==, CUDA_SUCCESS);
  g_assert_cmpint (stall->ctx_pop (&popped), ==, CUDA_SUCCESS);
  return stall;
}

static void
gpu_stall_release (GpuStall *stall)
{
  __atomic_store_n (stall->word, 1, __ATOMIC_SEQ_CST);
}

static void
gpu_stall_free (GpuStall *stall)
{
  CUcontext popped;

  g_assert_cmpint (stall->ctx_push (stall->context), ==, CUDA_SUCCESS);
  stall->free_host (stall->word);
  g_assert_cmpint (stall->ctx_pop (&popped), ==, CUDA_SUCCESS);
  g_free (stall);
}

/* Each wait completes when its own event does: a wait on an event already
 * reached is not held up by an earlier wait on a pending one, nor by a
 * pending context-wide wait. */
static void
test_synchronize_async_independent (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaStream) stalled = NULL;
  g_autoptr(GCudaStream) idle = NULL;
  g_autoptr(GCudaEvent) pending = NULL;
  g_autoptr(GCudaEvent) reached = NULL;
  AsyncResult r_pending = { 0 }, r_reached = { 0 }, r_context = { 0 }, r_reached2 = { 0 };
  GpuStall *stall;
  gint64 t0;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  stalled = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  idle = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  pending = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);
  reached = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);

  stall = gpu_stall_new (context, stalled);
  record (pending, stalled);
  record (reached, idle);
  g_assert_true (gcuda_event_synchronize (reached, NULL) == reached);
  g_assert_false (gcuda_event_query (pending, NULL));

  gcuda_event_synchronize_async (pending, NULL, event_wait_cb, &r_pending);
  t0 = g_get_monotonic_time ();
  gcuda_event_synchronize_async (reached, NULL, event_wait_cb, &r_reached);
  iterate_until (&r_reached.done, 10000);
  g_assert_no_error (r_reached.error);
  g_assert_cmpint (r_reached.at - t0, <, 100 * MS);
  g_assert_false (r_pending.done);

  /* the same behind a context-wide wait */
  gcuda_context_synchronize_async (context, NULL, context_sync_cb, &r_context);
  t0 = g_get_monotonic_time ();
  gcuda_event_synchronize_async (reached, NULL, event_wait_cb, &r_reached2);
  iterate_until (&r_reached2.done, 10000);
  g_assert_no_error (r_reached2.error);
  g_assert_cmpint (r_reached2.at - t0, <, 100 * MS);

  /* the stalled work holds the pending wait and the context-wide wait */
  for (int i = 0; i < 20; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (5 * MS);
    }
  g_assert_false (r_pending.done);
  g_assert_false (r_context.done);

  gpu_stall_release (stall);
  iterate_until (&r_pending.done, 10000);
  iterate_until (&r_context.done, 10000);
  g_assert_no_error (r_pending.error);
  g_assert_no_error (r_context.error);
  g_assert_true (gcuda_event_query (pending, NULL));
  async_result_clear (&r_pending);
  async_result_clear (&r_reached);
  async_result_clear (&r_reached2);
  async_result_clear (&r_context);
  g_assert_true (gcuda_stream_synchronize (stalled, NULL));
  gpu_stall_free (stall);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ timing */

static void
test_timing (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaEvent) e0 = NULL;
  g_autoptr(GCudaEvent) e1 = NULL;
  g_autoptr(GCudaEvent) e2 = NULL;
  GError *error = NULL;
  float since, till, elapsed, total;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  e0 = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);
  e1 = new_event (NULL, GCUDA_EVENT_FLAGS_BLOCKING_SYNC);
  e2 = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);

  record (e0, stream);
  add_blocking_step (stream, step_new (50, NULL));
  record (e1, stream);
  add_blocking_step (stream, step_new (20, NULL));
  record (e2, stream);
  drain (stream);

  since = gcuda_event_time_since (e1, e0, &error);
  g_assert_no_error (error);
  till = gcuda_event_time_till (e0, e1, &error);
  g_assert_no_error (error);
  elapsed = gcuda_event_elapsed (e0, e1, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (since, >=, 49.f);
  g_assert_cmpfloat (since, <, 5000.f);
  g_assert_cmpfloat (till, ==, since);
  g_assert_cmpfloat (elapsed, ==, since);

  total = gcuda_event_elapsed (e0, e2, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (total, >=, since + 19.f);
  /* an event against itself */
  g_assert_cmpfloat (gcuda_event_elapsed (e1, e1, &error), ==, 0.f);
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

static void
test_timing_errors (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaEvent) timed = NULL;
  g_autoptr(GCudaEvent) untimed = NULL;
  g_autoptr(GCudaEvent) never = NULL;
  g_autoptr(GCudaEvent) later = NULL;
  GError *error = NULL;
  int ran = 0;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  timed = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);
  untimed = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);
  never = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);
  later = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);

  g_assert_true (gcuda_event_synchronize (gcuda_event_record (timed, stream, &error), &error) == timed);
  g_assert_no_error (error);
  g_assert_true (gcuda_event_synchronize (gcuda_event_record (untimed, stream, &error), &error) == untimed);
  g_assert_no_error (error);

  /* DISABLE_TIMING, as either end */
  g_assert_cmpfloat (gcuda_event_time_since (untimed, timed, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpfloat (gcuda_event_time_since (timed, untimed, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpfloat (gcuda_event_elapsed (untimed, untimed, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* never recorded, as either end */
  g_assert_cmpfloat (gcuda_event_time_since (never, timed, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpfloat (gcuda_event_time_till (never, timed, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* NULL */
  g_assert_cmpfloat (gcuda_event_elapsed (timed, NULL, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpfloat (gcuda_event_elapsed (NULL, timed, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* not reached yet: the driver's NOT_READY */
  add_blocking_step (stream, step_new (200, &ran));
  record (later, stream);
  g_assert_cmpfloat (gcuda_event_time_since (later, timed, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_READY);
  g_assert_cmpfloat (gcuda_event_elapsed (timed, later, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_READY);

  iterate_until (&ran, 10000);
  g_assert_true (gcuda_event_synchronize (later, &error) == later);
  g_assert_no_error (error);
  g_assert_cmpfloat (gcuda_event_time_since (later, timed, &error), >=, 199.f);
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ contexts */

static void
test_contexts (void)
{
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaStream) other_stream = NULL;
  g_autoptr(GCudaEvent) event = NULL;
  g_autoptr(GCudaEvent) other_event = NULL;
  g_autoptr(GCudaEvent) fresh = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  dedicated = create_dedicated (NULL, 0);
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  other_stream = new_stream (dedicated, GCUDA_STREAM_FLAGS_DEFAULT);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);
  other_event = new_event (dedicated, GCUDA_EVENT_FLAGS_DEFAULT);
  fresh = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);
  g_assert_true (gcuda_event_get_context (other_event) == dedicated);

  /* recording into a stream of another context */
  g_assert_null (gcuda_event_record (fresh, other_stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_null (gcuda_event_record (other_event, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  /* a failed record did not count as recorded */
  record (event, stream);
  g_assert_true (gcuda_event_synchronize (event, &error) == event);
  g_assert_no_error (error);
  gcuda_event_time_since (fresh, event, &error);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* each in its own context (NULL: that context's legacy stream) */
  record (other_event, other_stream);
  record (other_event, NULL);
  g_assert_true (gcuda_event_synchronize (other_event, &error) == other_event);
  g_assert_no_error (error);

  /* timing across contexts */
  g_assert_cmpfloat (gcuda_event_time_since (other_event, event, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_cmpfloat (gcuda_event_elapsed (event, other_event, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_cmpfloat (gcuda_event_time_till (other_event, event, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);

  /* a stream may wait for an event of another context */
  g_assert_true (gcuda_stream_wait_event (stream, other_event, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_wait_event (other_stream, event, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_synchronize (other_stream, &error));
  g_assert_no_error (error);

  g_clear_object (&other_stream);
  g_clear_object (&other_event);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* A context destroyed with gcuda_context_destroy(): events made in it give
 * precise errors, never a crash. */
static void
test_destroyed_context (void)
{
  GCudaContext *dedicated;
  GCudaEvent *event, *recorded, *recorded2, *ipc, *none;
  GError *error = NULL;
  AsyncResult r = { 0 };

  if (!gcuda_test_require_gpu ())
    return;

  dedicated = create_dedicated (NULL, 0);
  event = new_event (dedicated, GCUDA_EVENT_FLAGS_DEFAULT);
  recorded = new_event (dedicated, GCUDA_EVENT_FLAGS_DEFAULT);
  recorded2 = new_event (dedicated, GCUDA_EVENT_FLAGS_DEFAULT);
  ipc = new_event (dedicated, GCUDA_EVENT_FLAGS_INTERPROCESS | GCUDA_EVENT_FLAGS_DISABLE_TIMING);
  record (recorded, NULL);
  record (recorded2, NULL);
  g_assert_true (gcuda_event_synchronize (recorded2, &error) == recorded2);
  g_assert_no_error (error);

  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);

  g_assert_null (gcuda_event_record (event, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_event_synchronize (event, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_event_query (event, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_cmpfloat (gcuda_event_time_since (recorded2, recorded, &error), ==, 0.f);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_event_get_ipc_handle (ipc, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  none = gcuda_event_new (dedicated, GCUDA_EVENT_FLAGS_DEFAULT, &error);
  g_assert_null (none);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  gcuda_event_synchronize_async (recorded, NULL, event_wait_cb, &r);
  iterate_until (&r.done, 10000);
  g_assert_false (r.ok);
  gcuda_assert_error (r.error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  async_result_clear (&r);

  /* finalizing after the context is gone is fine */
  g_object_unref (event);
  g_object_unref (recorded);
  g_object_unref (recorded2);
  g_object_unref (ipc);
  g_object_unref (dedicated);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ IPC */

static void
test_ipc_handle (void)
{
  g_autoptr(GCudaEvent) ipc = NULL;
  g_autoptr(GCudaEvent) normal = NULL;
  g_autoptr(GBytes) handle = NULL;
  g_autoptr(GBytes) handle2 = NULL;
  g_autoptr(GBytes) short_handle = NULL;
  g_autoptr(GBytes) long_handle = NULL;
  g_autoptr(GBytes) empty = NULL;
  guint8 buf[65] = { 0 };
  GCudaEvent *opened;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  ipc = new_event (NULL, GCUDA_EVENT_FLAGS_INTERPROCESS | GCUDA_EVENT_FLAGS_DISABLE_TIMING);
  handle = gcuda_event_get_ipc_handle (ipc, &error);
  g_assert_no_error (error);
  g_assert_nonnull (handle);
  g_assert_cmpuint (g_bytes_get_size (handle), ==, 64);
  handle2 = gcuda_event_get_ipc_handle (ipc, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (handle2), ==, 64);

  /* an INTERPROCESS event is an ordinary one otherwise */
  g_assert_true (gcuda_event_synchronize (gcuda_event_record (ipc, NULL, &error), &error) == ipc);
  g_assert_no_error (error);

  /* only INTERPROCESS events have a handle */
  normal = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);
  g_assert_null (gcuda_event_get_ipc_handle (normal, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* a handle of the wrong size */
  short_handle = g_bytes_new (buf, 3);
  opened = gcuda_event_new_from_ipc_handle (NULL, short_handle, &error);
  g_assert_null (opened);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  long_handle = g_bytes_new (buf, 65);
  opened = gcuda_event_new_from_ipc_handle (NULL, long_handle, &error);
  g_assert_null (opened);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  empty = g_bytes_new (NULL, 0);
  opened = gcuda_event_new_from_ipc_handle (NULL, empty, &error);
  g_assert_null (opened);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  opened = gcuda_event_new_from_ipc_handle (NULL, NULL, &error);
  g_assert_null (opened);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ bad input */

static void
test_bad_input (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaEvent) event = NULL;
  GCudaEvent *none;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  /* an object that is not a context */
  device = gcuda_test_get_device ();
  none = gcuda_event_new ((GCudaContext *) device, 0, &error);
  g_assert_null (none);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* a stream that is not a GCudaStream... is a programming error
   * (g_return_if_fail), so only the documented NULL is tried */
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);
  g_assert_false (gcuda_stream_wait_event (stream, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_true (gcuda_event_record (event, NULL, &error) == event);
  g_assert_no_error (error);
  g_assert_true (gcuda_event_synchronize (event, &error) == event);
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/event/new", test_new);
  g_test_add_func ("/event/bad-flags", test_bad_flags);
  g_test_add_func ("/event/record-chain", test_record_chain);
  g_test_add_func ("/event/query-pending", test_query_pending);
  g_test_add_func ("/event/synchronize-blocks", test_synchronize_blocks);
  g_test_add_func ("/event/record-legacy-stream", test_record_legacy_stream);
  g_test_add_func ("/event/synchronize-async", test_synchronize_async);
  g_test_add_func ("/event/synchronize-async-thread", test_synchronize_async_thread);
  g_test_add_func ("/event/synchronize-async-cancel", test_synchronize_async_cancel);
  g_test_add_func ("/event/synchronize-async-drop-refs", test_synchronize_async_drop_refs);
  g_test_add_func ("/event/timing", test_timing);
  g_test_add_func ("/event/timing-errors", test_timing_errors);
  g_test_add_func ("/event/contexts", test_contexts);
  g_test_add_func ("/event/destroyed-context", test_destroyed_context);
  g_test_add_func ("/event/ipc-handle", test_ipc_handle);
  g_test_add_func ("/event/bad-input", test_bad_input);
  /* last: it fails with a library whose waits queue up behind each other
   * (one wait stream per context), and a failed assertion ends the program */
  g_test_add_func ("/event/synchronize-async-independent", test_synchronize_async_independent);

  return g_test_run ();
}
