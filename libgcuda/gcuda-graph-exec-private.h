/* gcuda-graph-exec-private.h: executable graphs instantiated by graphs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

/* Takes ownership of @handle. */
GCudaGraphExec *_gcuda_graph_exec_new_for_handle (GCudaContext    *context,
                                                  CUgraphExec      handle);

G_END_DECLS
