/* gcuda-async-private.h: handing GPU completion over to a GMainContext
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "gcuda-private.h"

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

G_END_DECLS
