/* gcuda-graph-exec.h: an instantiated CUDA graph
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <gio/gio.h>

#include "gcuda-types.h"
#include "gcuda-version-macros.h"
#include "gcuda-enums.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_GRAPH_EXEC (gcuda_graph_exec_get_type ())

/**
 * GCudaGraphExecClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.GraphExec]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaGraphExec, gcuda_graph_exec, GCUDA, GRAPH_EXEC, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaContext *gcuda_graph_exec_get_context (GCudaGraphExec  *self);
GCUDA_AVAILABLE_IN_1_0
gboolean      gcuda_graph_exec_launch      (GCudaGraphExec  *self,
                                            GCudaStream     *stream,
                                            GError         **error);
GCUDA_AVAILABLE_IN_1_0
gboolean      gcuda_graph_exec_update      (GCudaGraphExec  *self,
                                            GCudaGraph      *graph,
                                            GError         **error);

G_END_DECLS
