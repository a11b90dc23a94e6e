/* gcuda-graph.h: a captured CUDA graph
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

#define GCUDA_TYPE_GRAPH (gcuda_graph_get_type ())

/**
 * GCudaGraphClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Graph]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaGraph, gcuda_graph, GCUDA, GRAPH, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaContext   *gcuda_graph_get_context    (GCudaGraph  *self);
GCUDA_AVAILABLE_IN_1_0
gsize           gcuda_graph_get_node_count (GCudaGraph  *self,
                                            GError     **error);
GCUDA_AVAILABLE_IN_1_0
GCudaGraphExec *gcuda_graph_instantiate    (GCudaGraph  *self,
                                            GError     **error);
GCUDA_AVAILABLE_IN_1_0
gboolean        gcuda_graph_write_dot      (GCudaGraph  *self,
                                            const char  *path,
                                            GError     **error);

G_END_DECLS
