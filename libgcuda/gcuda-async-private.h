/* gcuda-async-private.h: handing GPU completion over to a GMainContext
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

/* Queues a host function on @stream (its context must be current) that,
 * once all work queued before it has finished, attaches an idle source
 * running @func (@data) in @main_context; @notify frees @data there too.
 * The driver's thread does nothing else: no CUDA call, no finalizer.
 * On failure nothing is queued and @data still belongs to the caller. */
gboolean _gcuda_host_notify (CUstream       stream,
                             GMainContext  *main_context,
                             GSourceFunc    func,
                             gpointer       data,
                             GDestroyNotify notify,
                             GError       **error);

/* Like _gcuda_host_notify(), but later work on @stream waits until @func
 * has run in @main_context (or its source was destroyed unrun). */
gboolean _gcuda_host_notify_blocking (CUstream       stream,
                                      GMainContext  *main_context,
                                      GSourceFunc    func,
                                      gpointer       data,
                                      GDestroyNotify notify,
                                      GError       **error);

/* Completes @task (a boolean task) in its context once the work queued on
 * @stream so far has finished, or with G_IO_ERROR_CANCELLED as soon as the
 * task's cancellable fires — whichever comes first, exactly once. The task
 * and its source object stay alive until the driver's callback has run.
 * @stream's context must be current. On failure @task is completed with the
 * error. */
void     _gcuda_task_complete_on_stream (GTask    *task,
                                         CUstream  stream);

/* The body of every GCuda wait _async: completes @task (tagged by the
 * caller) once, in @context, the work queued so far on @stream has
 * finished; with @stream NULL, once @event has; with both NULL, once every
 * stream's work has (gcuda_context_synchronize_async()). */
void     _gcuda_wait_task_start  (GTask        *task,
                                  GCudaContext *context,
                                  CUstream      stream,
                                  CUevent       event);

/* The matching _finish: checks @result came from @source_object's
 * @source_tag call and propagates its boolean. */
gboolean _gcuda_wait_task_finish (gpointer       source_object,
                                  GAsyncResult  *result,
                                  gpointer       source_tag,
                                  GError       **error);

/* The work of a long _async call, run on a worker thread: returns its
 * result (a new reference or allocation) or %NULL with @error set. It may
 * test @cancellable between steps to skip what nobody will use. */
typedef gpointer (*GCudaWorkFunc) (gpointer       source_object,
                                   gpointer       work_data,
                                   GCancellable  *cancellable,
                                   GError       **error);

/* Runs @func (@source_object of @task, @work_data) on a worker thread, for
 * work that cannot be interrupted (NVRTC, the driver's JIT), and completes
 * @task (a pointer task) with what it returns, @result_free freeing it if
 * nobody takes it. When @task's cancellable fires first, @task completes at
 * once with G_IO_ERROR_CANCELLED instead (in its context, from an idle
 * source, never inside g_cancellable_cancel()); @func goes on in the
 * background, holding @task (so its source object) and @work_data, and
 * its late result is freed on the worker thread. Either way @task completes
 * exactly once. Takes @work_data, freed with @work_data_free (on the worker
 * thread, or here when the work never starts). */
void     _gcuda_task_run_worker  (GTask          *task,
                                  GCudaWorkFunc   func,
                                  gpointer        work_data,
                                  GDestroyNotify  work_data_free,
                                  GDestroyNotify  result_free);

/* Makes exit() wait for running jobs before the static destructors
 * registered so far (atexit() again): called right after GCuda loads NVRTC
 * or the driver, whose destructors a job may otherwise meet. */
void     _gcuda_exit_wait_register (void);

G_END_DECLS
