/* gcuda-test-async.h: helpers shared by GCuda's stream, event and context
 * tests: objects made with assertions, main-context iteration, host-callback
 * "work" (steps), the staller thread and the results of _async calls
 *
 * Without GPU kernels to measure, host callbacks are the "work": a blocking
 * callback (gcuda_stream_add_blocking_callback()) that sleeps stalls the
 * stream for that long, because later work waits until it has run in its
 * main context. A blocking callback runs in the thread-default main context
 * of the thread that added it: the staller is a thread iterating its own
 * GMainContext, so a stall added through it leaves the test's main thread
 * free.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gcuda.h>

G_BEGIN_DECLS

#define MS (G_GINT64_CONSTANT (1000))  /* in g_get_monotonic_time() units */

/* ------------------------------------------------------------ objects
 *
 * Each asserts that the call succeeded and returns a new reference. */

/* The default context (gcuda_context_get_default()). */
GCudaContext *get_default       (void);

/* A dedicated context of @device (NULL: device 0) with @flags. */
GCudaContext *create_dedicated  (GCudaDevice       *device,
                                 GCudaContextFlags  flags);

/* A stream of @context (NULL: the default context), priority 0. */
GCudaStream  *new_stream        (GCudaContext      *context,
                                 GCudaStreamFlags   flags);

/* An event of @context (NULL: the default context). */
GCudaEvent   *new_event         (GCudaContext      *context,
                                 GCudaEventFlags    flags);

/* Records @event on @stream (NULL: the context's legacy stream), asserting
 * success. */
void          record            (GCudaEvent        *event,
                                 GCudaStream       *stream);

/* ------------------------------------------------------------ main contexts */

/* Iterates the calling thread's thread-default main context until *@flag is
 * non-zero; aborts after @timeout_ms. */
void          iterate_until     (int               *flag,
                                 guint              timeout_ms);

/* Iterates the thread-default main context for @ms milliseconds. */
void          iterate_for       (guint              ms);

/* Iterates the main context until the weak pointer *@weak is cleared (the
 * object finalized), at most 5 s, and asserts that it was. */
void          wait_for_finalize (gpointer          *weak);

/* ------------------------------------------------------------ order log */

/* A log of one-character side effects, appended from any thread. */
typedef struct {
  GMutex lock;
  GString *text;
} OrderLog;

void          order_log_init    (OrderLog          *log);
void          order_log_clear   (OrderLog          *log);
void          order_log_append  (OrderLog          *log,
                                 char               c);
/* A copy of the log so far (free it). */
char         *order_log_dup     (OrderLog          *log);

/* ------------------------------------------------------------ steps */

/* One host-callback "step" of work: sleeps, then leaves its side effects.
 * Queued with g_free() as its destroy notify. */
typedef struct {
  guint sleep_ms;
  OrderLog *log;      /* appends @tag when not NULL */
  char tag;
  int *ran;           /* set to 1 (atomically) at the end when not NULL */
  int *counter;       /* incremented (atomically) at the end when not NULL */
  GCudaStream *expect_stream;
} Step;

/* A step sleeping @sleep_ms, setting *@ran (when not NULL) at the end; the
 * other fields may be set before it is queued. */
Step         *step_new          (guint              sleep_ms,
                                 int               *ran);

/* Queues a blocking step in the calling thread's main context. */
void          add_blocking_step (GCudaStream       *stream,
                                 Step              *step);

/* Queues a (non-blocking) callback step. */
void          add_step          (GCudaStream       *stream,
                                 Step              *step);

/* ------------------------------------------------------------ the staller */

/* The staller: a thread iterating its own main context, in which blocking
 * steps run (and sleep) without occupying the test's main thread. */
typedef struct _Staller Staller;

Staller      *staller_new       (void);
void          staller_free      (Staller           *staller);

/* Queues @step as a blocking callback on @stream, added (and so run) in the
 * staller's thread; returns once it is queued. */
void          staller_block     (Staller           *staller,
                                 GCudaStream       *stream,
                                 Step              *step);

/* ------------------------------------------------------------ _async results */

/* What an _async callback saw. */
typedef struct {
  int done;
  gboolean ok;
  GError *error;
  GObject *source;
  GThread *thread;
  GMainContext *thread_default;  /* g_main_context_get_thread_default() in the callback */
  gint64 at;
  int *ran_before;               /* a flag to copy when the callback runs */
  int ran_before_value;
  int *ran_before2;
  int ran_before2_value;
} AsyncResult;

/* Frees what the callback kept (the error and the source object). */
void          async_result_clear (AsyncResult      *r);

/* GAsyncReadyCallbacks for gcuda_stream_synchronize_async(),
 * gcuda_context_synchronize_async() and gcuda_event_synchronize_async(), @data an
 * AsyncResult: each calls the _finish function, fills in the AsyncResult and
 * sets its done flag last, and asserts that it runs once only. */
void          stream_sync_cb    (GObject           *source,
                                 GAsyncResult      *result,
                                 gpointer           data);
void          context_sync_cb   (GObject           *source,
                                 GAsyncResult      *result,
                                 gpointer           data);
void          event_wait_cb     (GObject           *source,
                                 GAsyncResult      *result,
                                 gpointer           data);

/* Waits, iterating the main context, until @stream's work has finished.
 *
 * synchronize_async completes when the driver starts its marker host
 * function, which may still count as the stream's work for a moment (the
 * driver has not seen it return): the final gcuda_stream_synchronize(),
 * which cannot stall any more, makes gcuda_stream_is_done() TRUE after. */
void          drain             (GCudaStream       *stream);

G_END_DECLS
