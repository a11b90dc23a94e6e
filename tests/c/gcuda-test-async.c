/* gcuda-test-async.c: helpers shared by GCuda's stream, event and context
 * tests (see gcuda-test-async.h)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "gcuda-test-async.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ objects */

GCudaContext *
get_default (void)
{
  GError *error = NULL;
  GCudaContext *context = gcuda_context_get_default (&error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_CONTEXT (context));
  return context;
}

GCudaContext *
create_dedicated (GCudaDevice       *device,
                  GCudaContextFlags  flags)
{
  g_autoptr(GCudaDevice) device0 = device != NULL ? NULL : gcuda_test_get_device ();
  GError *error = NULL;
  GCudaContext *context = gcuda_device_create_context (device != NULL ? device : device0, flags, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_CONTEXT (context));
  return context;
}

GCudaStream *
new_stream (GCudaContext     *context,
            GCudaStreamFlags  flags)
{
  GError *error = NULL;
  GCudaStream *stream = gcuda_stream_new (context, flags, 0, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_STREAM (stream));
  return stream;
}

GCudaEvent *
new_event (GCudaContext    *context,
           GCudaEventFlags  flags)
{
  GError *error = NULL;
  GCudaEvent *event = gcuda_event_new (context, flags, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_EVENT (event));
  return event;
}

void
record (GCudaEvent  *event,
        GCudaStream *stream)
{
  GError *error = NULL;

  g_assert_true (gcuda_event_record (event, stream, &error) == event);
  g_assert_no_error (error);
}

/* ------------------------------------------------------------ main contexts */

static gboolean
tick (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

void
iterate_until (int  *flag,
               guint timeout_ms)
{
  g_autoptr(GMainContext) main_context = g_main_context_ref_thread_default ();
  gint64 deadline = g_get_monotonic_time () + timeout_ms * MS;
  GSource *wake = g_timeout_source_new (5);

  g_source_set_callback (wake, tick, NULL, NULL);
  g_source_attach (wake, main_context);
  while (!g_atomic_int_get (flag))
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("timed out after %u ms waiting for a stream callback", timeout_ms);
      g_main_context_iteration (main_context, TRUE);
    }
  g_source_destroy (wake);
  g_source_unref (wake);
}

void
iterate_for (guint ms)
{
  g_autoptr(GMainContext) main_context = g_main_context_ref_thread_default ();
  gint64 end = g_get_monotonic_time () + ms * MS;

  while (g_get_monotonic_time () < end)
    {
      if (!g_main_context_iteration (main_context, FALSE))
        g_usleep (500);
    }
}

void
wait_for_finalize (gpointer *weak)
{
  gint64 deadline = g_get_monotonic_time () + 5000 * MS;

  while (*weak != NULL && g_get_monotonic_time () < deadline)
    iterate_for (5);
  g_assert_null (*weak);
}

/* ------------------------------------------------------------ order log */

void
order_log_init (OrderLog *log)
{
  g_mutex_init (&log->lock);
  log->text = g_string_new (NULL);
}

void
order_log_clear (OrderLog *log)
{
  g_string_free (log->text, TRUE);
  g_mutex_clear (&log->lock);
}

void
order_log_append (OrderLog *log,
                  char      c)
{
  g_mutex_lock (&log->lock);
  g_string_append_c (log->text, c);
  g_mutex_unlock (&log->lock);
}

char *
order_log_dup (OrderLog *log)
{
  char *s;

  g_mutex_lock (&log->lock);
  s = g_strdup (log->text->str);
  g_mutex_unlock (&log->lock);
  return s;
}

/* ------------------------------------------------------------ steps */

Step *
step_new (guint  sleep_ms,
          int   *ran)
{
  Step *step = g_new0 (Step, 1);

  step->sleep_ms = sleep_ms;
  step->ran = ran;
  return step;
}

static void
step_cb (GCudaStream *stream,
         gpointer     data)
{
  Step *step = data;

  g_assert_true (GCUDA_IS_STREAM (stream));
  if (step->expect_stream != NULL)
    g_assert_true (stream == step->expect_stream);
  if (step->sleep_ms > 0)
    g_usleep (step->sleep_ms * MS);
  if (step->log != NULL)
    order_log_append (step->log, step->tag);
  if (step->counter != NULL)
    g_atomic_int_inc (step->counter);
  if (step->ran != NULL)
    g_atomic_int_set (step->ran, 1);
}

void
add_blocking_step (GCudaStream *stream,
                   Step        *step)
{
  GError *error = NULL;

  g_assert_true (gcuda_stream_add_blocking_callback (stream, step_cb, step, g_free, &error));
  g_assert_no_error (error);
}

void
add_step (GCudaStream *stream,
          Step        *step)
{
  GError *error = NULL;

  g_assert_true (gcuda_stream_add_callback (stream, step_cb, step, g_free, &error));
  g_assert_no_error (error);
}

/* ------------------------------------------------------------ the staller */

struct _Staller {
  GThread *thread;
  GMainContext *context;
  GMainLoop *loop;
};

static gpointer
staller_thread (gpointer data)
{
  Staller *staller = data;

  g_main_context_push_thread_default (staller->context);
  g_main_loop_run (staller->loop);
  g_main_context_pop_thread_default (staller->context);
  gcuda_test_assert_no_current_context ();
  return NULL;
}

Staller *
staller_new (void)
{
  Staller *staller = g_new0 (Staller, 1);

  staller->context = g_main_context_new ();
  staller->loop = g_main_loop_new (staller->context, FALSE);
  staller->thread = g_thread_new ("staller", staller_thread, staller);
  return staller;
}

static gboolean
staller_quit (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

void
staller_free (Staller *staller)
{
  g_main_context_invoke (staller->context, staller_quit, staller->loop);
  g_thread_join (staller->thread);
  g_main_loop_unref (staller->loop);
  g_main_context_unref (staller->context);
  g_free (staller);
}

typedef struct {
  GCudaStream *stream;
  Step *step;
  GMutex lock;
  GCond cond;
  gboolean done;
  gboolean ok;
  GError *error;
} StallRequest;

static gboolean
staller_add_in_thread (gpointer data)
{
  StallRequest *req = data;
  gboolean ok = gcuda_stream_add_blocking_callback (req->stream, step_cb, req->step, g_free, &req->error);

  gcuda_test_assert_no_current_context ();
  g_mutex_lock (&req->lock);
  req->ok = ok;
  req->done = TRUE;
  g_cond_signal (&req->cond);
  g_mutex_unlock (&req->lock);
  return G_SOURCE_REMOVE;
}

void
staller_block (Staller     *staller,
               GCudaStream *stream,
               Step        *step)
{
  StallRequest req = { .stream = stream, .step = step };

  g_mutex_init (&req.lock);
  g_cond_init (&req.cond);
  g_main_context_invoke (staller->context, staller_add_in_thread, &req);
  g_mutex_lock (&req.lock);
  while (!req.done)
    g_cond_wait (&req.cond, &req.lock);
  g_mutex_unlock (&req.lock);
  g_assert_no_error (req.error);
  g_assert_true (req.ok);
  g_mutex_clear (&req.lock);
  g_cond_clear (&req.cond);
}

/* ------------------------------------------------------------ _async results */

void
async_result_clear (AsyncResult *r)
{
  g_clear_error (&r->error);
  g_clear_object (&r->source);
}

/* What every _async callback does before its _finish call: checks the
 * source's type and that the callback runs once only, keeps the source. */
static AsyncResult *
async_result_begin (GObject  *source,
                    GType     type,
                    gpointer  data)
{
  AsyncResult *r = data;

  g_assert_true (G_TYPE_CHECK_INSTANCE_TYPE (source, type));
  g_assert_false (g_atomic_int_get (&r->done));  /* exactly once */
  r->source = g_object_ref (source);
  return r;
}

/* ... and after it: where and when it ran, what the watched flags were;
 * done last. */
static void
async_result_complete (AsyncResult *r)
{
  r->thread = g_thread_self ();
  r->thread_default = g_main_context_get_thread_default ();
  r->at = g_get_monotonic_time ();
  if (r->ran_before != NULL)
    r->ran_before_value = g_atomic_int_get (r->ran_before);
  if (r->ran_before2 != NULL)
    r->ran_before2_value = g_atomic_int_get (r->ran_before2);
  g_atomic_int_set (&r->done, 1);
}

void
stream_sync_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      data)
{
  AsyncResult *r = async_result_begin (source, GCUDA_TYPE_STREAM, data);

  r->ok = gcuda_stream_synchronize_finish (GCUDA_STREAM (source), result, &r->error);
  async_result_complete (r);
}

void
context_sync_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      data)
{
  AsyncResult *r = async_result_begin (source, GCUDA_TYPE_CONTEXT, data);

  r->ok = gcuda_context_synchronize_finish (GCUDA_CONTEXT (source), result, &r->error);
  async_result_complete (r);
}

void
event_wait_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      data)
{
  AsyncResult *r = async_result_begin (source, GCUDA_TYPE_EVENT, data);

  r->ok = gcuda_event_synchronize_finish (GCUDA_EVENT (source), result, &r->error);
  async_result_complete (r);
}

void
drain (GCudaStream *stream)
{
  AsyncResult r = { 0 };
  GError *error = NULL;

  gcuda_stream_synchronize_async (stream, NULL, stream_sync_cb, &r);
  iterate_until (&r.done, 10000);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  async_result_clear (&r);
  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
}
