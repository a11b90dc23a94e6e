/* gcuda-graph-private.h: graphs captured by streams
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

/* Takes ownership of @handle. */
GCudaGraph *_gcuda_graph_new_for_handle (GCudaContext *context,
                                         CUgraph       handle);
CUgraph     _gcuda_graph_get_handle     (GCudaGraph   *graph);
/* GCUDA_ERROR_INVALID_ARGUMENT for a graph made by hand (no CUgraph). */
gboolean    _gcuda_graph_check          (GCudaGraph   *self,
                                         GError      **error);

G_END_DECLS
