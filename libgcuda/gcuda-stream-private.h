/* gcuda-stream-private.h: what other classes need of GCudaStream
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

CUstream  _gcuda_stream_get_handle (GCudaStream *stream);  /* NULL stream: legacy default */

/* With a context current: waits for its legacy default stream. The driver
 * may return from "synchronous" cuMemcpyHtoD (from pageable memory),
 * cuMemcpyDtoD, memsets and 2D/3D copies before the work is done, and work
 * on NON_BLOCKING streams is not ordered after it; GCuda's synchronous
 * forms promise the data is in place when they return. */
gboolean  _gcuda_legacy_stream_synchronize (GError **error);

G_END_DECLS
