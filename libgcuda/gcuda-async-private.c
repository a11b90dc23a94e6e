/* gcuda-async-private.c: handing GPU completion over to a GMainContext
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE 1  /* syscall */

#include "config.h"

#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gcuda-error-private.h"
#include "gcuda-async-private.h"
#include "gcuda-context-private.h"

/* What a host function hands over to the main context. */
typedef struct {
  GMainContext  *main_context;
  GSourceFunc    func;
  gpointer       data;
  GDestroyNotify notify;
} HostCall;

static void
host_call_init (HostCall       *call,
                GMainContext   *main_context,
                GSourceFunc     func,
                gpointer        data,
                GDestroyNotify  notify)
{
  call->main_context = g_main_context_ref (main_context ? main_context : g_main_context_default ());
  call->func = func;
  call->data = data;
  call->notify = notify;
}

/* Handing over to a main context: one source per main context, attached
 * once and kept, with a queue of the calls the driver's thread handed over.
 * A call queues its entry and, when the queue was empty, marks the source
 * ready (g_source_set_ready_time (0), which wakes the context up): no
 * source to make, attach, destroy and free per call. The calls run in
 * order, one per dispatch. */
typedef struct {
  GSourceFunc    dispatch;
  GDestroyNotify finish;
  gpointer       data;
} Handover;

typedef struct {
  GSource  source;
  GMutex   lock;
  GArray  *queue;     /* Handover, under @lock */
} HandoverSource;

static GMutex handover_lock;
static GHashTable *handover_sources;  /* GMainContext * -> HandoverSource * (no references), under handover_lock */

static gboolean
handover_source_dispatch (GSource     *source,
                          GSourceFunc  callback,
                          gpointer     user_data)
{
  HandoverSource *self = (HandoverSource *) source;
  Handover call;

  /* One call per dispatch, as with a source per call: a callback that
   * runs a main loop of its own (a modal dialog, or waiting for the next
   * callback) sees the calls after it dispatched in that loop. */
  g_mutex_lock (&self->lock);
  if (self->queue->len == 0)
    {
      g_source_set_ready_time (source, -1);
      g_mutex_unlock (&self->lock);
      return G_SOURCE_CONTINUE;
    }
  call = g_array_index (self->queue, Handover, 0);
  g_array_remove_index (self->queue, 0);
  if (self->queue->len == 0)
    g_source_set_ready_time (source, -1);
  g_mutex_unlock (&self->lock);

  if (call.dispatch (call.data) == G_SOURCE_CONTINUE)
    {
      /* called again, after the others queued by now, as an idle source's is */
      g_mutex_lock (&self->lock);
      g_array_append_val (self->queue, call);
      g_source_set_ready_time (source, 0);
      g_mutex_unlock (&self->lock);
    }
  else if (call.finish != NULL)
    call.finish (call.data);
  return G_SOURCE_CONTINUE;
}

static gboolean
is_source (gpointer key,
           gpointer value,
           gpointer source)
{
  return value == source;
}

static void
handover_source_finalize (GSource *source)
{
  HandoverSource *self = (HandoverSource *) source;

  /* Its main context went (every queued call holds the context: none is
   * left); the next call for another context at this address makes anew. */
  g_mutex_lock (&handover_lock);
  if (handover_sources != NULL)
    g_hash_table_foreach_remove (handover_sources, is_source, source);
  g_mutex_unlock (&handover_lock);
  for (guint i = 0; self->queue != NULL && i < self->queue->len; i++)
    {
      Handover *call = &g_array_index (self->queue, Handover, i);

      if (call->finish != NULL)
        call->finish (call->data);
    }
  g_clear_pointer (&self->queue, g_array_unref);
  g_mutex_clear (&self->lock);
}

static GSourceFuncs handover_source_funcs = {
  NULL, NULL, handover_source_dispatch, handover_source_finalize, NULL, NULL
};

/* The driver's thread: only wakes the main context up, to run @dispatch
 * and then @finish (with @data) there. */
static void
host_call_attach (HostCall       *call,
                  GSourceFunc     dispatch,
                  GDestroyNotify  finish,
                  gpointer        data)
{
  Handover handover = { dispatch, finish, data };
  HandoverSource *source;

  g_mutex_lock (&handover_lock);
  if (handover_sources == NULL)
    handover_sources = g_hash_table_new (NULL, NULL);
  source = g_hash_table_lookup (handover_sources, call->main_context);
  if (source == NULL)
    {
      source = (HandoverSource *) g_source_new (&handover_source_funcs, sizeof (HandoverSource));
      g_mutex_init (&source->lock);
      source->queue = g_array_new (FALSE, FALSE, sizeof (Handover));
      g_source_set_priority (&source->source, G_PRIORITY_DEFAULT);
      g_source_set_static_name (&source->source, "[gcuda] stream callbacks");
      /* a callback that runs a main loop of its own (a modal dialog) still
       * sees the calls queued after it, as with a source per call */
      g_source_set_can_recurse (&source->source, TRUE);
      g_source_set_ready_time (&source->source, -1);
      g_source_attach (&source->source, call->main_context);
      /* the main context holds it, for its life */
      g_source_unref (&source->source);
      g_hash_table_insert (handover_sources, call->main_context, source);
    }
  g_mutex_lock (&source->lock);
  g_mutex_unlock (&handover_lock);
  g_array_append_val (source->queue, handover);
  if (source->queue->len == 1)
    g_source_set_ready_time (&source->source, 0);
  g_mutex_unlock (&source->lock);
}

static gboolean
host_call_dispatch (gpointer user_data)
{
  HostCall *call = user_data;

  return call->func (call->data);
}

static void
host_call_free (gpointer user_data)
{
  HostCall *call = user_data;

  /* Runs in the main context, like everything that can free GCuda objects. */
  if (call->notify)
    call->notify (call->data);
  g_main_context_unref (call->main_context);
  g_free (call);
}

static void CUDA_CB
host_call_trampoline (void *user_data)
{
  HostCall *call = user_data;

  host_call_attach (call, host_call_dispatch, host_call_free, call);
}

gboolean
_gcuda_host_notify (CUstream       stream,
                    GMainContext  *main_context,
                    GSourceFunc    func,
                    gpointer       data,
                    GDestroyNotify notify,
                    GError       **error)
{
  HostCall *call = g_new (HostCall, 1);

  host_call_init (call, main_context, func, data, notify);
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuLaunchHostFunc (stream, host_call_trampoline, call),
                    "cuLaunchHostFunc", error))
    {
      g_main_context_unref (call->main_context);
      g_free (call);
      return FALSE;
    }
  return TRUE;
}

/* A blocking call: the driver's thread waits, in the host function, until
 * the main context has run the callback. Shared by that thread and the
 * idle source: two references. */
typedef struct {
  HostCall call;
  gatomicrefcount ref_count;
  GMutex lock;
  GCond cond;
  gboolean finished;
} BlockingCall;

static void
blocking_call_unref (BlockingCall *call)
{
  if (g_atomic_ref_count_dec (&call->ref_count))
    {
      g_mutex_clear (&call->lock);
      g_cond_clear (&call->cond);
      g_free (call);
    }
}

static gboolean
blocking_call_dispatch (gpointer user_data)
{
  BlockingCall *call = user_data;

  call->call.func (call->call.data);
  return G_SOURCE_REMOVE;
}

static void
blocking_call_finish (gpointer user_data)
{
  BlockingCall *call = user_data;
  GMainContext *main_context = call->call.main_context;
  GDestroyNotify notify = call->call.notify;
  gpointer data = call->call.data;

  /* Main context: after the callback ran, or when its source is destroyed
   * unrun. Let the stream go on first: freeing the data may drop the last
   * reference to GPU memory, whose release can wait for the stream. */
  g_mutex_lock (&call->lock);
  call->finished = TRUE;
  g_cond_signal (&call->cond);
  g_mutex_unlock (&call->lock);
  blocking_call_unref (call);
  if (notify)
    notify (data);
  g_main_context_unref (main_context);
}

static void CUDA_CB
blocking_call_trampoline (void *user_data)
{
  BlockingCall *call = user_data;

  host_call_attach (&call->call, blocking_call_dispatch, blocking_call_finish, call);
  g_mutex_lock (&call->lock);
  while (!call->finished)
    g_cond_wait (&call->cond, &call->lock);
  g_mutex_unlock (&call->lock);
  blocking_call_unref (call);
}

gboolean
_gcuda_host_notify_blocking (CUstream       stream,
                             GMainContext  *main_context,
                             GSourceFunc    func,
                             gpointer       data,
                             GDestroyNotify notify,
                             GError       **error)
{
  BlockingCall *call = g_new0 (BlockingCall, 1);

  g_atomic_ref_count_init (&call->ref_count);
  g_atomic_ref_count_inc (&call->ref_count);
  g_mutex_init (&call->lock);
  g_cond_init (&call->cond);
  host_call_init (&call->call, main_context, func, data, notify);
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuLaunchHostFunc (stream, blocking_call_trampoline, call),
                    "cuLaunchHostFunc", error))
    {
      g_main_context_unref (call->call.main_context);
      g_mutex_clear (&call->lock);
      g_cond_clear (&call->cond);
      g_free (call);
      return FALSE;
    }
  return TRUE;
}

typedef struct {
  gatomicrefcount ref_count;
  GTask *task;
  GCancellable *cancellable;
  gulong cancel_id;
  int done;  /* atomic: the task was completed */
  /* A stream made for this wait alone (_gcuda_wait_task_start), destroyed
   * once the wait is over, in @context. */
  GCudaContext *context;
  CUstream wait_stream;
} TaskWait;

static void
task_wait_destroy_stream (TaskWait *wait)
{
  if (wait->wait_stream != NULL)
    GCUDA_CONTEXT_RELEASE (wait->context, GCUDA_DRV->fn_cuStreamDestroy (wait->wait_stream));
  wait->wait_stream = NULL;
}

static TaskWait *
task_wait_ref (TaskWait *wait)
{
  g_atomic_ref_count_inc (&wait->ref_count);
  return wait;
}

static void
task_wait_unref (gpointer data)
{
  TaskWait *wait = data;

  if (g_atomic_ref_count_dec (&wait->ref_count))
    {
      task_wait_destroy_stream (wait);
      g_clear_object (&wait->context);
      g_clear_object (&wait->cancellable);
      g_object_unref (wait->task);
      g_free (wait);
    }
}

static void
task_wait_cancelled (GCancellable *cancellable,
                     gpointer      data)
{
  TaskWait *wait = data;

  /* Any thread; GTask delivers the result in the task's context. */
  if (g_atomic_int_compare_and_exchange (&wait->done, FALSE, TRUE))
    g_task_return_new_error (wait->task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                             "%s", _("Operation was cancelled"));
}

static gboolean
task_wait_reached (gpointer data)
{
  TaskWait *wait = data;

  if (wait->cancel_id != 0)
    {
      /* Drops the handler's reference; waits for a handler running now. */
      g_cancellable_disconnect (wait->cancellable, wait->cancel_id);
      wait->cancel_id = 0;
    }
  /* in the task's context, after the host function: the stream is idle */
  task_wait_destroy_stream (wait);
  if (g_atomic_int_compare_and_exchange (&wait->done, FALSE, TRUE))
    g_task_return_boolean (wait->task, TRUE);
  return G_SOURCE_REMOVE;
}

/* Completes @task when the work queued so far on @stream is done; a
 * @wait_stream (the same stream, made for this wait alone) is destroyed
 * then. Call with the stream's context current. */
static void
task_complete_on_stream (GTask        *task,
                         CUstream      stream,
                         GCudaContext *context,
                         CUstream      wait_stream)
{
  g_autoptr(GError) error = NULL;
  TaskWait *wait;

  /* No early return for a cancellable already cancelled: the caller has
   * queued work (a copy into memory the task owns) that must finish before
   * the task may go. Connecting to a cancelled cancellable completes the
   * task at once, and the wait still holds it until the host function. */
  wait = g_new0 (TaskWait, 1);
  g_atomic_ref_count_init (&wait->ref_count);
  wait->task = g_object_ref (task);
  wait->cancellable = g_task_get_cancellable (task);
  if (wait->cancellable)
    g_object_ref (wait->cancellable);
  if (wait_stream != NULL)
    {
      wait->context = g_object_ref (context);
      wait->wait_stream = wait_stream;
    }

  /* Connect before queuing: the completion may be dispatched by another
   * thread iterating the task's context before this function returns. */
  if (wait->cancellable != NULL)
    wait->cancel_id = g_cancellable_connect (wait->cancellable, G_CALLBACK (task_wait_cancelled),
                                             task_wait_ref (wait), task_wait_unref);

  if (!_gcuda_host_notify (stream, g_task_get_context (task), task_wait_reached,
                           wait, task_wait_unref, &error))
    {
      if (wait->cancel_id != 0)
        g_cancellable_disconnect (wait->cancellable, wait->cancel_id);
      if (g_atomic_int_compare_and_exchange (&wait->done, FALSE, TRUE))
        g_task_return_error (task, g_steal_pointer (&error));
      task_wait_unref (wait);
    }
}

void
_gcuda_task_complete_on_stream (GTask    *task,
                                CUstream  stream)
{
  task_complete_on_stream (task, stream, NULL, NULL);
}

void
_gcuda_wait_task_start (GTask        *task,
                        GCudaContext *context,
                        CUstream      stream,
                        CUevent       event)
{
  g_autoptr(GError) error = NULL;
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  CUstream wait_stream;

  if (!_gcuda_context_enter (context, &scope, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (stream != NULL)
    {
      _gcuda_task_complete_on_stream (task, stream);
      return;
    }
  wait_stream = _gcuda_context_prepare_wait (context, event, &error);
  if (wait_stream == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* Returns at once. The wait stream goes when the wait is over, not now:
   * destroying a stream with work queued is allowed, but a tool that makes
   * driver calls synchronous (compute-sanitizer) would then wait here for
   * a blocking callback ahead in the streams it follows, which waits for
   * this thread's main loop. */
  task_complete_on_stream (task, wait_stream, context, wait_stream);
}

gboolean
_gcuda_wait_task_finish (gpointer       source_object,
                         GAsyncResult  *result,
                         gpointer       source_tag,
                         GError       **error)
{
  /* Bindings can pass any result: say so instead of a critical. */
  if (!g_task_is_valid (result, source_object) || g_task_get_source_tag (G_TASK (result)) != source_tag)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("This result does not come from the matching _async call on this object"));
      return FALSE;
    }
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ------------------------------------------------------------ workers
 *
 * A long job (an NVRTC compile, a JIT load) cannot be interrupted, but its
 * caller must not wait for it once it cancels: the task and the job part
 * ways. The job holds a reference to the task (and so to its source object)
 * and its own data until it ends; the first of the job's end and the
 * cancellation completes the task (an atomic flag decides), the other one
 * only cleans up. */

typedef struct {
  gatomicrefcount ref_count;
  GTask *task;
  GCancellable *cancellable;
  gulong cancel_id;
  int done;  /* atomic: the task was completed */
  GCudaWorkFunc func;
  gpointer data;
  GDestroyNotify data_free;
  GDestroyNotify result_free;
} Work;

static Work *
work_ref (Work *work)
{
  g_atomic_ref_count_inc (&work->ref_count);
  return work;
}

static void
work_unref (gpointer data)
{
  Work *work = data;

  if (g_atomic_ref_count_dec (&work->ref_count))
    {
      if (work->data_free != NULL && work->data != NULL)
        work->data_free (work->data);
      g_clear_object (&work->cancellable);
      g_object_unref (work->task);
      g_free (work);
    }
}

static gboolean
work_return_cancelled (gpointer data)
{
  Work *work = data;

  /* The task's context: GTask calls back from here at once. */
  g_task_return_new_error (work->task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", _("Operation was cancelled"));
  return G_SOURCE_REMOVE;
}

static void
work_cancelled (GCancellable *cancellable,
                gpointer      data)
{
  Work *work = data;
  GSource *source;

  /* Any thread, inside g_cancellable_cancel(): the callback must not run
   * here (it could disconnect from @cancellable, which deadlocks inside
   * its emission), so it is handed to the task's context. */
  if (!g_atomic_int_compare_and_exchange (&work->done, FALSE, TRUE))
    return;
  source = g_idle_source_new ();
  g_source_set_priority (source, g_task_get_priority (work->task));
  g_source_set_callback (source, work_return_cancelled, work_ref (work), work_unref);
  g_source_set_static_name (source, "[gcuda] cancelled work");
  g_source_attach (source, g_task_get_context (work->task));
  g_source_unref (source);
}

/* Jobs still running, cancelled ones included: exit() waits for them.
 * A job left in NVRTC or the driver while exit() runs their libraries'
 * static destructors crashes the process (seen with NVRTC after a
 * cancelled compile: the user cancels and quits). Those destructors are
 * atexit handlers (__cxa_atexit()), which exit() runs newest first, and
 * NVRTC registers some while it loads and more during its first compile
 * (function-local statics): no atexit handler of ours can be newer than
 * those of a compile still running. So the wait is, first, a thread-local
 * destructor of the main thread: exit() runs the exiting thread's before
 * any atexit handler (glibc; C++ requires that order of thread_local
 * objects). It is registered when the library loads on the main thread and
 * when the main thread starts a job. For exit() from another thread it is
 * also an atexit handler, registered at the first job's start and again
 * right after GCuda loads NVRTC or the driver (on the thread that loaded
 * it, a job's included) and at the first job's end: newer than the
 * destructors registered while they loaded, though not than those of a
 * first compile still running then. The wait lasts until no job runs, at
 * most 30 s (a job stuck on something the exiting thread holds must not
 * hang the exit).
 *
 * An exit() from the main thread while a job is inside dlopen() is safe:
 * the wait runs before every atexit handler, and glibc runs the handlers
 * registered during it after it. Left open: exit() from another thread
 * while a job runs the process's first compile or is between loading a
 * library and registering the wait after it. */
static GMutex jobs_lock;
static GCond jobs_cond;
static guint jobs_running;

static void
jobs_wait_at_exit (void)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;

  g_mutex_lock (&jobs_lock);
  while (jobs_running > 0)
    if (!g_cond_wait_until (&jobs_cond, &jobs_lock, deadline))
      break;
  g_mutex_unlock (&jobs_lock);
}

/* glibc's (2.18 and later), what C++ thread_local destructors use; weak:
 * elsewhere only the atexit handler is there. */
extern int __cxa_thread_atexit_impl (void (*func) (void *), void *obj, void *dso_symbol) __attribute__ ((weak));
extern void *__dso_handle __attribute__ ((visibility ("hidden")));

static void
jobs_wait_at_thread_exit (void *data)
{
  /* Only the main thread has it: its thread-local destructors run at
   * exit() (or a pthread_exit() of main, where waiting is harmless). */
  jobs_wait_at_exit ();
}

static gboolean
on_main_thread (void)
{
  return getpid () == (pid_t) syscall (SYS_gettid);
}

static void
exit_wait_register_main_thread (void)
{
  static gsize once;

  if (__cxa_thread_atexit_impl == NULL || !on_main_thread ())
    return;
  if (g_once_init_enter (&once))
    {
      /* &__dso_handle keeps libgcuda loaded until it has run */
      __cxa_thread_atexit_impl (jobs_wait_at_thread_exit, NULL, &__dso_handle);
      g_once_init_leave (&once, 1);
    }
}

__attribute__ ((constructor)) static void
exit_wait_register_at_load (void)
{
  exit_wait_register_main_thread ();
}

void
_gcuda_exit_wait_register (void)
{
  atexit (jobs_wait_at_exit);
}

static void
jobs_end (void)
{
  static gsize after_first_job;

  /* after what the first job made NVRTC or the driver register */
  if (g_once_init_enter (&after_first_job))
    {
      _gcuda_exit_wait_register ();
      g_once_init_leave (&after_first_job, 1);
    }
  g_mutex_lock (&jobs_lock);
  if (--jobs_running == 0)
    g_cond_broadcast (&jobs_cond);
  g_mutex_unlock (&jobs_lock);
}

static void
work_run (gpointer data,
          gpointer pool_data)
{
  Work *work = data;
  g_autoptr(GError) error = NULL;
  gpointer result;

  result = work->func (g_task_get_source_object (work->task), work->data, work->cancellable, &error);
  if (result == NULL && error == NULL)
    {
      g_critical ("%s: a work function returned neither a result nor an error", G_STRFUNC);
      g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_FAILED, "Internal error: no result");
    }
  /* Waits for a cancellation handler running now in another thread. */
  if (work->cancel_id != 0)
    g_cancellable_disconnect (work->cancellable, work->cancel_id);
  if (g_atomic_int_compare_and_exchange (&work->done, FALSE, TRUE))
    {
      if (result != NULL)
        g_task_return_pointer (work->task, result, work->result_free);
      else
        g_task_return_error (work->task, g_steal_pointer (&error));
    }
  else if (result != NULL && work->result_free != NULL)
    {
      /* cancelled: nobody takes the late result */
      work->result_free (result);
    }
  work_unref (work);
  jobs_end ();
}

/* Jobs run on their own pool, without a limit: a cancelled job still runs
 * to its end, and must not hold up the next ones (nor GIO's pool). Idle
 * threads are shared with GLib's other non-exclusive pools. */
static GThreadPool *
work_pool (void)
{
  static gsize pool;

  if (g_once_init_enter (&pool))
    g_once_init_leave (&pool, (gsize) g_thread_pool_new (work_run, NULL, -1, FALSE, NULL));
  return (GThreadPool *) pool;
}

void
_gcuda_task_run_worker (GTask          *task,
                        GCudaWorkFunc   func,
                        gpointer        work_data,
                        GDestroyNotify  work_data_free,
                        GDestroyNotify  result_free)
{
  static gsize at_first_start;
  g_autoptr(GError) error = NULL;
  Work *work;

  exit_wait_register_main_thread ();
  if (g_once_init_enter (&at_first_start))
    {
      _gcuda_exit_wait_register ();
      g_once_init_leave (&at_first_start, 1);
    }
  work = g_new0 (Work, 1);
  g_atomic_ref_count_init (&work->ref_count);
  work->task = g_object_ref (task);
  work->func = func;
  work->data = work_data;
  work->data_free = work_data_free;
  work->result_free = result_free;
  work->cancellable = g_task_get_cancellable (task);
  if (work->cancellable != NULL)
    g_object_ref (work->cancellable);

  if (g_task_return_error_if_cancelled (task))
    {
      work->done = TRUE;
      work_unref (work);
      return;
    }
  /* Before the job starts: it may end, and disconnect, at once. Connecting
   * to a cancellable cancelled since runs the handler now. */
  if (work->cancellable != NULL)
    work->cancel_id = g_cancellable_connect (work->cancellable, G_CALLBACK (work_cancelled),
                                             work_ref (work), work_unref);
  g_mutex_lock (&jobs_lock);
  jobs_running++;
  g_mutex_unlock (&jobs_lock);
  if (!g_thread_pool_push (work_pool (), work, &error))
    {
      g_mutex_lock (&jobs_lock);
      jobs_running--;
      g_mutex_unlock (&jobs_lock);
      if (work->cancel_id != 0)
        g_cancellable_disconnect (work->cancellable, work->cancel_id);
      if (g_atomic_int_compare_and_exchange (&work->done, FALSE, TRUE))
        g_task_return_error (task, g_steal_pointer (&error));
      work_unref (work);
    }
}
