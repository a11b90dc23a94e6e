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

G_END_DECLS
