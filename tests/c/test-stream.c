/* test-stream.c: GCudaStream, host callbacks and synchronize_async on a real GPU
 *
 * Without GPU kernels to measure, host callbacks are the "work": a blocking
 * callback (gcuda_stream_add_blocking_callback()) that sleeps stalls the
 * stream for that long, because later work waits until it has run in its
 * main context.
 *
 * A blocking callback runs in the thread-default main context of the thread
 * that added it. When a test must keep its own main thread free while a
 * stream is stalled (to see a cancellation delivered at once, or the order of
 * side effects of two streams), the stalling callback is added from a
 * "staller" thread that iterates its own GMainContext, so it sleeps there.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-test-async.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ creation */

static void
test_new_default (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaStream) non_blocking = NULL;
  g_autoptr(GCudaContext) prop_context = NULL;
  GCudaStreamFlags flags = 0;
  int priority = -1;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  stream = gcuda_stream_new (NULL, GCUDA_STREAM_FLAGS_DEFAULT, 0, &error);
  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_STREAM (stream));
  g_assert_true (gcuda_stream_get_context (stream) == context);
  g_assert_cmpint (gcuda_stream_get_flags (stream), ==, GCUDA_STREAM_FLAGS_DEFAULT);
  g_assert_cmpint (gcuda_stream_get_priority (stream), ==, 0);
  g_assert_cmpuint (gcuda_stream_get_handle (stream), !=, 0);

  g_object_get (stream, "context", &prop_context, "flags", &flags, "priority", &priority, NULL);
  g_assert_true (prop_context == context);
  g_assert_cmpint (flags, ==, GCUDA_STREAM_FLAGS_DEFAULT);
  g_assert_cmpint (priority, ==, 0);

  /* an idle stream is done; synchronizing it returns at once */
  g_assert_true (gcuda_stream_is_done (stream, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);

  non_blocking = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_get_context (non_blocking) == context);
  g_assert_cmpint (gcuda_stream_get_flags (non_blocking), ==, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  g_object_get (non_blocking, "flags", &flags, NULL);
  g_assert_cmpint (flags, ==, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  g_assert_cmpuint (gcuda_stream_get_handle (non_blocking), !=, gcuda_stream_get_handle (stream));

  gcuda_test_assert_no_current_context ();
}

static void
test_dedicated_context (void)
{
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaContext) prop_context = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  dedicated = create_dedicated (NULL, 0);
  stream = new_stream (dedicated, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  g_assert_true (gcuda_stream_get_context (stream) == dedicated);
  g_object_get (stream, "context", &prop_context, NULL);
  g_assert_true (prop_context == dedicated);
  g_assert_true (gcuda_stream_is_done (stream, &error));
  g_assert_no_error (error);
  drain (stream);

  g_clear_object (&stream);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

static void
test_priorities (void)
{
  g_autoptr(GCudaContext) context = NULL;
  GCudaStream *stream;
  GError *error = NULL;
  int least = 0, greatest = 0, p;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  g_assert_true (gcuda_context_get_stream_priority_range (context, &least, &greatest, &error));
  g_assert_no_error (error);
  g_assert_cmpint (greatest, <=, least);

  /* every priority of the range, both flags */
  for (p = greatest; p <= least; p++)
    {
      int priority = G_MININT;

      stream = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_DEFAULT, p, &error);
      g_assert_no_error (error);
      g_assert_cmpint (gcuda_stream_get_priority (stream), ==, p);
      g_object_get (stream, "priority", &priority, NULL);
      g_assert_cmpint (priority, ==, p);
      g_assert_true (gcuda_stream_synchronize (stream, &error));
      g_assert_no_error (error);
      g_object_unref (stream);

      stream = gcuda_stream_new (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING, p, &error);
      g_assert_no_error (error);
      g_assert_cmpint (gcuda_stream_get_priority (stream), ==, p);
      g_object_unref (stream);
    }

  /* out of range: an error, never a silent clamp */
  stream = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_DEFAULT, greatest - 1, &error);
  g_assert_null (stream);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  stream = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_DEFAULT, least + 1, &error);
  g_assert_null (stream);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  stream = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_NON_BLOCKING, G_MININT, &error);
  g_assert_null (stream);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  stream = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_NON_BLOCKING, G_MAXINT, &error);
  g_assert_null (stream);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_test_assert_no_current_context ();
}

static void
test_bad_flags (void)
{
  GCudaStream *stream;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  stream = gcuda_stream_new (NULL, 1 << 5, 0, &error);
  g_assert_null (stream);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  stream = gcuda_stream_new (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING | (1u << 31), 0, &error);
  g_assert_null (stream);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_test_assert_no_current_context ();
}

static void
test_per_thread_default (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaStream) again = NULL;
  GError *error = NULL;
  int ran = 0;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  stream = gcuda_stream_get_per_thread_default (NULL, &error);
  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_STREAM (stream));
  g_assert_true (gcuda_stream_get_context (stream) == context);

  g_assert_true (gcuda_stream_is_done (stream, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);

  /* callbacks and synchronize_async work on it too */
  add_blocking_step (stream, step_new (5, &ran));
  drain (stream);
  g_assert_true (g_atomic_int_get (&ran));
  g_assert_true (gcuda_stream_is_done (stream, &error));
  g_assert_no_error (error);

  again = gcuda_stream_get_per_thread_default (context, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_stream_get_handle (again), ==, gcuda_stream_get_handle (stream));
  g_clear_object (&again);  /* the per-thread stream is not destroyed with the object */
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ host callbacks as work */

static void
test_blocking_callback_stalls (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaEvent) e0 = NULL;
  g_autoptr(GCudaEvent) e1 = NULL;
  GError *error = NULL;
  int ran = 0;
  float ms, ms_till, ms_elapsed;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  e0 = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);
  e1 = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);

  record (e0, stream);
  add_blocking_step (stream, step_new (50, &ran));
  record (e1, stream);

  /* the callback cannot have run: this thread has not iterated its context */
  g_assert_false (gcuda_stream_is_done (stream, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_event_query (e1, &error));
  g_assert_no_error (error);
  g_assert_false (g_atomic_int_get (&ran));

  drain (stream);
  g_assert_true (g_atomic_int_get (&ran));
  g_assert_true (gcuda_stream_is_done (stream, &error));
  g_assert_no_error (error);

  ms = gcuda_event_time_since (e1, e0, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ms, >=, 49.f);
  g_assert_cmpfloat (ms, <, 5000.f);
  ms_till = gcuda_event_time_till (e0, e1, &error);
  g_assert_no_error (error);
  ms_elapsed = gcuda_event_elapsed (e0, e1, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ms_till, ==, ms);
  g_assert_cmpfloat (ms_elapsed, ==, ms);

  gcuda_test_assert_no_current_context ();
}

/* add_callback does not stall the stream: work queued after it completes
 * even though the callback has not run yet (this thread did not iterate). */
static void
test_callback_does_not_stall (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaEvent) after = NULL;
  GError *error = NULL;
  int ran = 0;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  after = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);

  add_step (stream, step_new (0, &ran));
  record (after, stream);

  g_assert_true (gcuda_event_synchronize (after, &error) == after);
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_event_query (after, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_is_done (stream, &error));
  g_assert_no_error (error);

  /* it needs the main context to run */
  g_usleep (20 * MS);
  g_assert_false (g_atomic_int_get (&ran));
  iterate_until (&ran, 10000);

  gcuda_test_assert_no_current_context ();
}

typedef struct {
  int calls;
  int destroyed;
  int destroyed_after_call;
  GThread *thread;
  GThread *destroy_thread;
} Counted;

static void
counted_cb (GCudaStream *stream,
            gpointer     data)
{
  Counted *c = data;

  g_assert_true (GCUDA_IS_STREAM (stream));
  g_assert_cmpint (g_atomic_int_get (&c->destroyed), ==, 0);
  c->thread = g_thread_self ();
  g_atomic_int_inc (&c->calls);
}

static void
counted_destroy (gpointer data)
{
  Counted *c = data;

  c->destroy_thread = g_thread_self ();
  c->destroyed_after_call = g_atomic_int_get (&c->calls);
  g_atomic_int_inc (&c->destroyed);
}

/* The destroy notify runs once, after the callback, in the main context;
 * the stream stays alive until the callback has run even when the caller
 * dropped it right after adding the callback. */
static void
test_callback_destroy_notify (void)
{
  GCudaStream *stream;
  GCudaStream *weak;
  GError *error = NULL;
  Counted plain = { 0 }, blocking = { 0 };

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  weak = stream;
  g_object_add_weak_pointer (G_OBJECT (stream), (gpointer *) &weak);

  g_assert_true (gcuda_stream_add_blocking_callback (stream, counted_cb, &blocking, counted_destroy, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_add_callback (stream, counted_cb, &plain, counted_destroy, &error));
  g_assert_no_error (error);
  g_object_unref (stream);
  g_assert_nonnull (weak);  /* the pending callbacks keep it */

  iterate_until (&plain.destroyed, 10000);
  iterate_until (&blocking.destroyed, 10000);
  g_assert_cmpint (plain.calls, ==, 1);
  g_assert_cmpint (plain.destroyed, ==, 1);
  g_assert_cmpint (plain.destroyed_after_call, ==, 1);
  g_assert_true (plain.thread == g_thread_self ());
  g_assert_true (plain.destroy_thread == g_thread_self ());
  g_assert_cmpint (blocking.calls, ==, 1);
  g_assert_cmpint (blocking.destroyed, ==, 1);
  g_assert_cmpint (blocking.destroyed_after_call, ==, 1);
  g_assert_true (blocking.thread == g_thread_self ());
  g_assert_true (blocking.destroy_thread == g_thread_self ());

  /* nothing else holds the stream now: it is finalized */
  wait_for_finalize ((gpointer *) &weak);
  iterate_for (20);
  g_assert_cmpint (plain.calls, ==, 1);
  g_assert_cmpint (blocking.calls, ==, 1);

  gcuda_test_assert_no_current_context ();
}

/* Callbacks that run in order, and a callback that runs a main loop of
 * its own (as a modal dialog does) while the next one is due: the next
 * one runs in that loop. */
typedef struct {
  int order[8];
  int n;
  int second_ran;
} Nested;

static void
nested_second (GCudaStream *stream,
               gpointer     data)
{
  Nested *nested = data;

  nested->order[nested->n++] = 2;
  g_atomic_int_set (&nested->second_ran, 1);
}

static void
nested_first (GCudaStream *stream,
              gpointer     data)
{
  Nested *nested = data;

  nested->order[nested->n++] = 1;
  iterate_until (&nested->second_ran, 10000);
  nested->order[nested->n++] = 3;
}

static void
nested_numbered (GCudaStream *stream,
                 gpointer     data)
{
  Nested *nested = data;
  int i = nested->n;


  nested->order[i] = 4 + i;
  nested->n = i + 1;
}

static void
test_callback_nested_loop (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  GError *error = NULL;
  Nested nested = { 0 };

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  g_assert_true (gcuda_stream_add_callback (stream, nested_first, &nested, NULL, &error));
  g_assert_true (gcuda_stream_add_callback (stream, nested_second, &nested, NULL, &error));
  g_assert_no_error (error);
  iterate_until (&nested.second_ran, 10000);
  iterate_for (20);
  g_assert_cmpint (nested.n, ==, 3);
  g_assert_cmpint (nested.order[0], ==, 1);
  g_assert_cmpint (nested.order[1], ==, 2);
  g_assert_cmpint (nested.order[2], ==, 3);

  /* many at once: each once, in the order queued */
  nested.n = 0;
  for (int i = 0; i < 5; i++)
    g_assert_true (gcuda_stream_add_callback (stream, nested_numbered, &nested, NULL, &error));
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
  iterate_for (50);
  g_assert_cmpint (nested.n, ==, 5);
  for (int i = 0; i < 5; i++)
    g_assert_cmpint (nested.order[i], ==, 4 + i);
  gcuda_test_assert_no_current_context ();
}

/* Checks that @b (made to wait for @event, recorded on @a behind a 100 ms
 * stall) really waits: an event recorded on @b stays pending while @c (not
 * waiting) gets through, and @b's callback runs after @a's work.
 *
 * The real driver may run the host functions of independent streams one at a
 * time on a single thread, so a stalled host function on @a may delay a
 * callback of @c too: only events, which need no host function, show what
 * @b waits for. */
static void
check_wait_event (GCudaStream *a,
                  GCudaStream *b,
                  GCudaStream *c,
                  GCudaEvent  *event)
{
  g_autoptr(GCudaEvent) on_b = NULL;
  g_autoptr(GCudaEvent) on_c = NULL;
  g_autofree char *order = NULL;
  Staller *staller;
  GError *error = NULL;
  OrderLog log;
  int a_ran = 0, b_ran = 0;
  gint64 start;
  Step *step;

  order_log_init (&log);
  staller = staller_new ();
  on_b = new_event (gcuda_stream_get_context (b), GCUDA_EVENT_FLAGS_DISABLE_TIMING);
  on_c = new_event (gcuda_stream_get_context (c), GCUDA_EVENT_FLAGS_DISABLE_TIMING);

  start = g_get_monotonic_time ();
  step = step_new (100, &a_ran);
  step->log = &log;
  step->tag = 'a';
  staller_block (staller, a, step);
  record (event, a);
  g_assert_true (gcuda_stream_wait_event (b, event, &error));
  g_assert_no_error (error);
  record (on_b, b);
  step = step_new (0, &b_ran);
  step->log = &log;
  step->tag = 'b';
  step->expect_stream = b;
  add_step (b, step);
  record (on_c, c);

  /* c is not held up; b is, as long as a is stalled */
  g_assert_true (gcuda_event_synchronize (on_c, &error) == on_c);
  g_assert_no_error (error);
  g_assert_false (gcuda_event_query (on_b, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_stream_is_done (b, &error));
  g_assert_no_error (error);
  g_assert_false (g_atomic_int_get (&a_ran));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 90 * MS);

  iterate_until (&b_ran, 10000);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 95 * MS);
  order = order_log_dup (&log);
  g_assert_cmpstr (order, ==, "ab");
  g_assert_true (gcuda_event_synchronize (on_b, &error) == on_b);
  g_assert_no_error (error);

  g_assert_true (gcuda_stream_synchronize (a, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_synchronize (b, &error));
  g_assert_no_error (error);
  staller_free (staller);
  order_log_clear (&log);
}

/* wait_event orders two streams of one context. */
static void
test_wait_event_orders (void)
{
  g_autoptr(GCudaStream) a = NULL;
  g_autoptr(GCudaStream) b = NULL;
  g_autoptr(GCudaStream) c = NULL;
  g_autoptr(GCudaEvent) event = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  a = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  b = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  c = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);
  check_wait_event (a, b, c, event);

  /* again with a timing event and default-flag streams */
  g_clear_object (&event);
  g_clear_object (&a);
  g_clear_object (&b);
  a = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  b = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  event = new_event (NULL, GCUDA_EVENT_FLAGS_DEFAULT);
  check_wait_event (a, b, c, event);
  gcuda_test_assert_no_current_context ();
}

/* An event of a dedicated context, waited on by a stream of the default
 * context: allowed (the driver accepts it), and it orders the streams. */
static void
test_wait_event_cross_context (void)
{
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaStream) other = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaStream) free_stream = NULL;
  g_autoptr(GCudaEvent) event = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  dedicated = create_dedicated (NULL, 0);
  other = new_stream (dedicated, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  free_stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  event = new_event (dedicated, GCUDA_EVENT_FLAGS_DISABLE_TIMING);
  g_assert_true (gcuda_event_get_context (event) == dedicated);
  g_assert_true (gcuda_stream_get_context (stream) != dedicated);

  check_wait_event (other, stream, free_stream, event);

  g_clear_object (&other);
  g_clear_object (&event);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ main contexts and threads */

typedef struct {
  gboolean blocking;
  GMainContext *context;   /* the worker's own */
  GThread *thread;         /* the worker */
  /* seen by the callback */
  int ran;
  GThread *cb_thread;
  GMainContext *cb_thread_default;
  gboolean cb_owner;
  gboolean ran_before_iterating;
} CallbackInThread;

static void
callback_in_thread_cb (GCudaStream *stream,
                       gpointer     data)
{
  CallbackInThread *w = data;

  g_assert_true (GCUDA_IS_STREAM (stream));
  w->cb_thread = g_thread_self ();
  w->cb_thread_default = g_main_context_get_thread_default ();
  w->cb_owner = g_main_context_is_owner (w->context);
  g_atomic_int_set (&w->ran, 1);
}

static gpointer
callback_in_thread_worker (gpointer data)
{
  CallbackInThread *w = data;
  GCudaStream *stream;
  GError *error = NULL;

  w->thread = g_thread_self ();
  w->context = g_main_context_new ();
  g_main_context_push_thread_default (w->context);

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  if (w->blocking)
    g_assert_true (gcuda_stream_add_blocking_callback (stream, callback_in_thread_cb, w, NULL, &error));
  else
    g_assert_true (gcuda_stream_add_callback (stream, callback_in_thread_cb, w, NULL, &error));
  g_assert_no_error (error);

  if (!w->blocking)
    {
      /* the stream is not stalled; the callback waits for this context */
      g_assert_true (gcuda_stream_synchronize (stream, &error));
      g_assert_no_error (error);
    }
  g_usleep (20 * MS);
  w->ran_before_iterating = g_atomic_int_get (&w->ran);

  iterate_until (&w->ran, 10000);
  if (w->blocking)
    {
      g_assert_true (gcuda_stream_synchronize (stream, &error));
      g_assert_no_error (error);
    }
  g_object_unref (stream);

  g_main_context_pop_thread_default (w->context);
  gcuda_test_assert_no_current_context ();
  return NULL;
}

static void
check_callback_in_thread (gboolean blocking)
{
  CallbackInThread w = { 0 };

  w.blocking = blocking;
  g_thread_join (g_thread_new ("callback-worker", callback_in_thread_worker, &w));

  g_assert_true (w.ran);
  g_assert_false (w.ran_before_iterating);
  g_assert_true (w.cb_thread == w.thread);
  g_assert_true (w.cb_thread != g_thread_self ());
  g_assert_true (w.cb_thread_default == w.context);
  g_assert_true (w.cb_owner);
  g_main_context_unref (w.context);
}

static void
test_callback_thread_default_context (void)
{
  if (!gcuda_test_require_gpu ())
    return;

  while (g_main_context_iteration (NULL, FALSE))
    ;
  check_callback_in_thread (FALSE);
  check_callback_in_thread (TRUE);
  /* nothing went to this thread's (the global default) context */
  g_assert_false (g_main_context_pending (g_main_context_default ()));
  gcuda_test_assert_no_current_context ();
}

/* Added from the main thread with no thread-default context pushed: the
 * callback runs in the global default main context, in this thread. */
static void
test_callback_global_default_context (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  Counted c = { 0 };
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  g_assert_null (g_main_context_get_thread_default ());
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  g_assert_true (gcuda_stream_add_callback (stream, counted_cb, &c, counted_destroy, &error));
  g_assert_no_error (error);
  iterate_until (&c.destroyed, 10000);
  g_assert_cmpint (c.calls, ==, 1);
  g_assert_true (c.thread == g_thread_self ());
  gcuda_test_assert_no_current_context ();
}

typedef struct {
  GMainContext *context;
  GThread *thread;
  int blocking_ran;
  AsyncResult r;
} SyncInThread;

static gpointer
sync_in_thread_worker (gpointer data)
{
  SyncInThread *w = data;
  GCudaStream *stream;

  w->thread = g_thread_self ();
  w->context = g_main_context_new ();
  g_main_context_push_thread_default (w->context);

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  add_blocking_step (stream, step_new (20, &w->blocking_ran));
  w->r.ran_before = &w->blocking_ran;
  gcuda_stream_synchronize_async (stream, NULL, stream_sync_cb, &w->r);
  g_object_unref (stream);
  iterate_until (&w->r.done, 10000);

  g_main_context_pop_thread_default (w->context);
  gcuda_test_assert_no_current_context ();
  return NULL;
}

static void
test_synchronize_async_thread (void)
{
  SyncInThread w = { 0 };

  if (!gcuda_test_require_gpu ())
    return;

  while (g_main_context_iteration (NULL, FALSE))
    ;

  g_thread_join (g_thread_new ("sync-worker", sync_in_thread_worker, &w));
  g_assert_no_error (w.r.error);
  g_assert_true (w.r.ok);
  g_assert_true (w.r.ran_before_value);
  g_assert_true (w.r.thread == w.thread);
  g_assert_true (w.r.thread != g_thread_self ());
  g_assert_true (w.r.thread_default == w.context);
  g_assert_true (GCUDA_IS_STREAM (w.r.source));
  async_result_clear (&w.r);
  g_main_context_unref (w.context);

  g_assert_false (g_main_context_pending (g_main_context_default ()));
  gcuda_test_assert_no_current_context ();
}

typedef struct {
  int index;
  GArray *order;
  int *blocking_ran;  /* how many blocking steps had run */
  int seen_blocking;
  int done;
} Ordered;

static void
ordered_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      data)
{
  Ordered *o = data;
  GError *error = NULL;

  g_assert_true (gcuda_stream_synchronize_finish (GCUDA_STREAM (source), result, &error));
  g_assert_no_error (error);
  g_array_append_val (o->order, o->index);
  o->seen_blocking = g_atomic_int_get (o->blocking_ran);
  g_atomic_int_set (&o->done, 1);
}

static void
test_synchronize_async_order (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (int));
  Ordered o[3];
  int blocking_ran = 0;
  int i;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  for (i = 0; i < 3; i++)
    {
      Step *step = step_new (15, NULL);

      step->counter = &blocking_ran;
      o[i] = (Ordered) { i, order, &blocking_ran, 0, 0 };
      add_blocking_step (stream, step);
      gcuda_stream_synchronize_async (stream, NULL, ordered_cb, &o[i]);
    }
  iterate_until (&o[2].done, 10000);
  iterate_for (20);

  g_assert_cmpuint (order->len, ==, 3);
  for (i = 0; i < 3; i++)
    {
      g_assert_cmpint (g_array_index (order, int, i), ==, i);
      /* completion i came after blocking step i */
      g_assert_cmpint (o[i].seen_blocking, >=, i + 1);
    }
  gcuda_test_assert_no_current_context ();
}

static void
test_synchronize_async_cancel (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCancellable) cancellable = NULL;
  Staller *staller;
  AsyncResult cancelled = { 0 }, normal = { 0 }, pre = { 0 };
  int step_ran = 0;
  gint64 start;

  if (!gcuda_test_require_gpu ())
    return;

  staller = staller_new ();
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);

  /* cancelled before the call: completes with CANCELLED, never TRUE */
  cancellable = g_cancellable_new ();
  g_cancellable_cancel (cancellable);
  gcuda_stream_synchronize_async (stream, cancellable, stream_sync_cb, &pre);
  iterate_until (&pre.done, 10000);
  g_assert_false (pre.ok);
  gcuda_assert_error (pre.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_object (&cancellable);

  /* cancelled right after the call, while the stream is stalled 200 ms
   * (in the staller's thread: this one stays free) */
  start = g_get_monotonic_time ();
  staller_block (staller, stream, step_new (200, &step_ran));
  cancellable = g_cancellable_new ();
  cancelled.ran_before = &step_ran;
  gcuda_stream_synchronize_async (stream, cancellable, stream_sync_cb, &cancelled);
  g_cancellable_cancel (cancellable);
  iterate_until (&cancelled.done, 10000);
  g_assert_false (cancelled.ok);
  gcuda_assert_error (cancelled.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (cancelled.at - start, <, 150 * MS);
  g_assert_false (cancelled.ran_before_value);
  g_assert_true (cancelled.thread == g_thread_self ());

  /* the GPU work goes on; the stream completes normally afterwards */
  normal.ran_before = &step_ran;
  gcuda_stream_synchronize_async (stream, NULL, stream_sync_cb, &normal);
  iterate_until (&normal.done, 10000);
  g_assert_no_error (normal.error);
  g_assert_true (normal.ok);
  g_assert_true (normal.ran_before_value);
  g_assert_cmpint (normal.at - start, >=, 190 * MS);

  /* the cancelled task's own driver callback has run by now: no second call */
  iterate_for (30);
  g_assert_true (gcuda_stream_synchronize (stream, NULL));
  g_assert_true (gcuda_stream_is_done (stream, NULL));

  async_result_clear (&pre);
  async_result_clear (&cancelled);
  async_result_clear (&normal);
  staller_free (staller);
  gcuda_test_assert_no_current_context ();
}

/* Cancelling after completion changes nothing. */
static void
test_synchronize_async_cancel_after (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  AsyncResult r = { 0 };

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  add_blocking_step (stream, step_new (5, NULL));
  gcuda_stream_synchronize_async (stream, cancellable, stream_sync_cb, &r);
  iterate_until (&r.done, 10000);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_cancellable_cancel (cancellable);
  iterate_for (20);  /* stream_sync_cb asserts it is not called twice */
  async_result_clear (&r);
  gcuda_test_assert_no_current_context ();
}

/* Every reference dropped right after the call: the task keeps the stream;
 * the callback's source object is a valid stream and finish works. */
static void
test_synchronize_async_drop_refs (void)
{
  GCudaStream *stream;
  GCancellable *cancellable;
  gpointer weak_stream, weak_cancellable;
  AsyncResult r = { 0 };
  int ran = 0;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  cancellable = g_cancellable_new ();
  weak_stream = stream;
  weak_cancellable = cancellable;
  g_object_add_weak_pointer (G_OBJECT (stream), &weak_stream);
  g_object_add_weak_pointer (G_OBJECT (cancellable), &weak_cancellable);

  add_blocking_step (stream, step_new (50, &ran));
  r.ran_before = &ran;
  gcuda_stream_synchronize_async (stream, cancellable, stream_sync_cb, &r);
  g_object_unref (stream);
  g_object_unref (cancellable);
  g_assert_nonnull (weak_stream);

  iterate_until (&r.done, 10000);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (r.ran_before_value);
  g_assert_true (r.source == weak_stream);
  async_result_clear (&r);

  wait_for_finalize (&weak_stream);
  wait_for_finalize (&weak_cancellable);
  gcuda_test_assert_no_current_context ();
}

/* Cancelled, then every reference dropped, while the stream is still
 * stalled: the pending driver callback keeps what it touches alive, and
 * everything is released once it has run. */
static void
test_synchronize_async_cancel_drop_refs (void)
{
  GCudaStream *stream;
  GCancellable *cancellable;
  gpointer weak_stream, weak_cancellable;
  Staller *staller;
  AsyncResult r = { 0 };
  int ran = 0;

  if (!gcuda_test_require_gpu ())
    return;

  staller = staller_new ();
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  cancellable = g_cancellable_new ();
  weak_stream = stream;
  weak_cancellable = cancellable;
  g_object_add_weak_pointer (G_OBJECT (stream), &weak_stream);
  g_object_add_weak_pointer (G_OBJECT (cancellable), &weak_cancellable);

  staller_block (staller, stream, step_new (100, &ran));
  gcuda_stream_synchronize_async (stream, cancellable, stream_sync_cb, &r);
  g_cancellable_cancel (cancellable);
  g_object_unref (cancellable);
  g_object_unref (stream);

  iterate_until (&r.done, 10000);
  gcuda_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (g_atomic_int_get (&ran));
  async_result_clear (&r);

  iterate_until (&ran, 10000);
  wait_for_finalize (&weak_stream);
  wait_for_finalize (&weak_cancellable);
  staller_free (staller);
  gcuda_test_assert_no_current_context ();
}

#define N_STREAMS 8
#define N_WAITS 1000

typedef struct {
  int *counters;
  int *total;
  int *failures;
} Many;

typedef struct {
  Many *many;
  int index;
} ManyWait;

static void
many_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  ManyWait *w = data;
  GError *error = NULL;

  if (!gcuda_stream_synchronize_finish (GCUDA_STREAM (source), result, &error))
    {
      g_printerr ("wait %d: %s\n", w->index, error ? error->message : "FALSE");
      g_clear_error (&error);
      g_atomic_int_inc (w->many->failures);
    }
  g_atomic_int_inc (&w->many->counters[w->index]);
  g_atomic_int_inc (w->many->total);
}

static void
test_synchronize_async_many (void)
{
  GCudaStream *streams[N_STREAMS];
  g_autofree int *counters = g_new0 (int, N_WAITS);
  g_autofree ManyWait *waits = g_new0 (ManyWait, N_WAITS);
  int total = 0, failures = 0;
  Many many = { counters, &total, &failures };
  int i;

  if (!gcuda_test_require_gpu ())
    return;

  /* each stream starts stalled, so the 1000 waits are all pending at once */
  for (i = 0; i < N_STREAMS; i++)
    {
      streams[i] = new_stream (NULL, i % 2 ? GCUDA_STREAM_FLAGS_NON_BLOCKING : GCUDA_STREAM_FLAGS_DEFAULT);
      add_blocking_step (streams[i], step_new (2, NULL));
    }
  for (i = 0; i < N_WAITS; i++)
    {
      waits[i] = (ManyWait) { &many, i };
      gcuda_stream_synchronize_async (streams[i % N_STREAMS], NULL, many_cb, &waits[i]);
      if (i % 97 == 0)  /* some more work in between */
        add_blocking_step (streams[i % N_STREAMS], step_new (0, NULL));
    }
  g_assert_cmpint (g_atomic_int_get (&total), ==, 0);
  for (i = 0; i < N_STREAMS; i++)
    g_object_unref (streams[i]);

  {
    gint64 deadline = g_get_monotonic_time () + 20000 * MS;

    while (g_atomic_int_get (&total) < N_WAITS && g_get_monotonic_time () < deadline)
      iterate_for (5);
  }
  iterate_for (50);  /* a second completion would show up now */

  g_assert_cmpint (failures, ==, 0);
  g_assert_cmpint (total, ==, N_WAITS);
  for (i = 0; i < N_WAITS; i++)
    if (counters[i] != 1)
      g_error ("wait %d completed %d times", i, counters[i]);
  gcuda_test_assert_no_current_context ();
}

/* gcuda_context_synchronize_async() waits for a NON_BLOCKING GCudaStream of
 * the context and for a default-flag stream. */
static void
test_context_synchronize_async (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaStream) non_blocking = NULL;
  g_autoptr(GCudaStream) blocking = NULL;
  AsyncResult r = { 0 };
  int nb_ran = 0, def_ran = 0;
  gint64 start;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  non_blocking = new_stream (context, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  blocking = new_stream (context, GCUDA_STREAM_FLAGS_DEFAULT);

  start = g_get_monotonic_time ();
  add_blocking_step (non_blocking, step_new (100, &nb_ran));
  add_blocking_step (blocking, step_new (100, &def_ran));
  r.ran_before = &nb_ran;
  r.ran_before2 = &def_ran;
  gcuda_context_synchronize_async (context, NULL, context_sync_cb, &r);
  iterate_until (&r.done, 10000);

  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (r.source == G_OBJECT (context));
  g_assert_true (r.ran_before_value);
  g_assert_true (r.ran_before2_value);
  g_assert_cmpint (r.at - start, >=, 95 * MS);
  g_assert_true (r.thread == g_thread_self ());
  async_result_clear (&r);
  gcuda_test_assert_no_current_context ();
}

/* A dedicated context, each kind of stream stalled alone, in the staller's
 * thread (so that this thread's own dispatch order proves nothing): the
 * completion waits for either. */
static void
test_context_synchronize_async_dedicated (void)
{
  g_autoptr(GCudaContext) dedicated = NULL;
  GCudaStream *streams[2];
  Staller *staller;
  GError *error = NULL;
  int i;

  if (!gcuda_test_require_gpu ())
    return;

  staller = staller_new ();
  dedicated = create_dedicated (NULL, 0);
  streams[0] = new_stream (dedicated, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  streams[1] = new_stream (dedicated, GCUDA_STREAM_FLAGS_DEFAULT);

  for (i = 0; i < 2; i++)
    {
      AsyncResult r = { 0 };
      int ran = 0;
      gint64 start = g_get_monotonic_time ();

      staller_block (staller, streams[i], step_new (100, &ran));
      r.ran_before = &ran;
      gcuda_context_synchronize_async (dedicated, NULL, context_sync_cb, &r);
      iterate_until (&r.done, 10000);
      g_assert_no_error (r.error);
      g_assert_true (r.ok);
      g_assert_true (r.ran_before_value);
      g_assert_cmpint (r.at - start, >=, 95 * MS);
      async_result_clear (&r);
    }

  staller_free (staller);
  g_object_unref (streams[0]);
  g_object_unref (streams[1]);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* Not a check but a report (a TAP comment): whether the driver runs the
 * host functions of independent streams concurrently, or one at a time, in
 * which case a blocking callback not yet run holds up every host function
 * (every add_callback and every _async completion) of the device. */
static void
test_host_function_concurrency (void)
{
  g_autoptr(GCudaStream) stalled = NULL;
  g_autoptr(GCudaStream) other = NULL;
  g_autoptr(GCudaEvent) after = NULL;
  GError *error = NULL;
  gboolean concurrent = FALSE;
  int ran1 = 0, ran2 = 0;
  gint64 deadline;

  if (!gcuda_test_require_gpu ())
    return;

  stalled = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  other = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  after = new_event (NULL, GCUDA_EVENT_FLAGS_DISABLE_TIMING);

  /* its host function waits until this thread iterates */
  add_blocking_step (stalled, step_new (0, &ran1));
  g_usleep (10 * MS);
  /* a host function that returns at once, then an event */
  add_step (other, step_new (0, &ran2));
  record (after, other);

  deadline = g_get_monotonic_time () + 1000 * MS;
  while (g_get_monotonic_time () < deadline)
    {
      concurrent = gcuda_event_query (after, &error);
      g_assert_no_error (error);
      if (concurrent)
        break;
      g_usleep (MS);
    }
  g_test_message ("the driver runs host functions of independent streams %s",
                  concurrent ? "concurrently"
                             : "one at a time: a blocking callback not yet run holds up the host "
                               "functions of every stream (add_callback, _async completions)");

  iterate_until (&ran1, 10000);
  iterate_until (&ran2, 10000);
  g_assert_true (gcuda_event_synchronize (after, &error) == after);
  g_assert_no_error (error);
  g_assert_true (gcuda_stream_synchronize (stalled, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ bad input */

static void
never_cb (GCudaStream *stream,
          gpointer     data)
{
  g_error ("this callback must never run");
}

static void
test_bad_input (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  GCudaStream *none;
  GError *error = NULL;
  Counted c = { 0 };

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);

  g_assert_false (gcuda_stream_wait_event (stream, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* an object that is not an event */
  g_assert_false (gcuda_stream_wait_event (stream, (GCudaEvent *) stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_false (gcuda_stream_add_callback (stream, NULL, NULL, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_stream_add_blocking_callback (stream, NULL, &c, counted_destroy, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (c.destroyed, ==, 1);  /* destroy runs on failure: bindings free their closure */

  /* an object that is not a context */
  device = gcuda_test_get_device ();
  none = gcuda_stream_new ((GCudaContext *) device, 0, 0, &error);
  g_assert_null (none);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  none = gcuda_stream_get_per_thread_default ((GCudaContext *) device, &error);
  g_assert_null (none);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* the stream is fine afterwards */
  drain (stream);
  gcuda_test_assert_no_current_context ();
}

/* A context destroyed with gcuda_context_destroy(): every use is a precise
 * error, an _async call completes its task with it; nothing crashes. */
static void
test_destroyed_context (void)
{
  GCudaContext *dedicated;
  GCudaStream *stream;
  GCudaStream *none;
  GError *error = NULL;
  AsyncResult r = { 0 }, rc = { 0 };
  Counted c = { 0 };

  if (!gcuda_test_require_gpu ())
    return;

  dedicated = create_dedicated (NULL, 0);
  stream = new_stream (dedicated, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_context_is_destroyed (dedicated));

  none = gcuda_stream_new (dedicated, GCUDA_STREAM_FLAGS_DEFAULT, 0, &error);
  g_assert_null (none);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  g_assert_false (gcuda_stream_synchronize (stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_stream_is_done (stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_stream_add_callback (stream, never_cb, &c, counted_destroy, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_stream_add_blocking_callback (stream, never_cb, &c, counted_destroy, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_cmpint (c.destroyed, ==, 2);  /* both refusals freed their user_data */

  gcuda_stream_synchronize_async (stream, NULL, stream_sync_cb, &r);
  iterate_until (&r.done, 10000);
  g_assert_false (r.ok);
  gcuda_assert_error (r.error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_true (r.thread == g_thread_self ());
  async_result_clear (&r);

  gcuda_context_synchronize_async (dedicated, NULL, context_sync_cb, &rc);
  iterate_until (&rc.done, 10000);
  g_assert_false (rc.ok);
  gcuda_assert_error (rc.error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  async_result_clear (&rc);

  /* finalizing the stream after its context is gone is fine */
  g_object_unref (stream);
  g_object_unref (dedicated);
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/stream/new-default", test_new_default);
  g_test_add_func ("/stream/dedicated-context", test_dedicated_context);
  g_test_add_func ("/stream/priorities", test_priorities);
  g_test_add_func ("/stream/bad-flags", test_bad_flags);
  g_test_add_func ("/stream/per-thread-default", test_per_thread_default);
  g_test_add_func ("/stream/blocking-callback-stalls", test_blocking_callback_stalls);
  g_test_add_func ("/stream/callback-does-not-stall", test_callback_does_not_stall);
  g_test_add_func ("/stream/callback-destroy-notify", test_callback_destroy_notify);
  g_test_add_func ("/stream/callback-nested-loop", test_callback_nested_loop);
  g_test_add_func ("/stream/wait-event-orders", test_wait_event_orders);
  g_test_add_func ("/stream/wait-event-cross-context", test_wait_event_cross_context);
  g_test_add_func ("/stream/callback-thread-default-context", test_callback_thread_default_context);
  g_test_add_func ("/stream/callback-global-default-context", test_callback_global_default_context);
  g_test_add_func ("/stream/synchronize-async-thread", test_synchronize_async_thread);
  g_test_add_func ("/stream/synchronize-async-order", test_synchronize_async_order);
  g_test_add_func ("/stream/synchronize-async-cancel", test_synchronize_async_cancel);
  g_test_add_func ("/stream/synchronize-async-cancel-after", test_synchronize_async_cancel_after);
  g_test_add_func ("/stream/synchronize-async-drop-refs", test_synchronize_async_drop_refs);
  g_test_add_func ("/stream/synchronize-async-cancel-drop-refs", test_synchronize_async_cancel_drop_refs);
  g_test_add_func ("/stream/synchronize-async-many", test_synchronize_async_many);
  g_test_add_func ("/stream/context-synchronize-async", test_context_synchronize_async);
  g_test_add_func ("/stream/context-synchronize-async-dedicated", test_context_synchronize_async_dedicated);
  g_test_add_func ("/stream/host-function-concurrency", test_host_function_concurrency);
  g_test_add_func ("/stream/bad-input", test_bad_input);
  g_test_add_func ("/stream/destroyed-context", test_destroyed_context);

  return g_test_run ();
}
