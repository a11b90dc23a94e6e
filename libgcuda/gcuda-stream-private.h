/* gcuda-stream-private.h: what other classes need of GCudaStream
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

CUstream  _gcuda_stream_get_handle (GCudaStream *stream);  /* NULL stream: legacy default */

/* @stream as an argument: NULL (the legacy default stream) or a stream made
 * by a constructor. Not a GCudaStream, or one made by hand (nothing behind
 * it), is GCUDA_ERROR_INVALID_ARGUMENT: callers check this before comparing
 * contexts, so a stream made by hand is never a CONTEXT_MISMATCH. */
gboolean  _gcuda_stream_check_arg  (GCudaStream  *stream,
                                    GError      **error);
/* Whether @stream is a GCudaStream of @context (a few compares, for the
 * launch path: on FALSE, _gcuda_stream_check_arg() tells why). */
gboolean  _gcuda_stream_is_of      (GCudaStream  *stream,
                                    GCudaContext *context);

/* With a context current: waits for its legacy default stream. The driver
 * may return from "synchronous" cuMemcpyHtoD (from pageable memory),
 * cuMemcpyDtoD, memsets and 2D/3D copies before the work is done, and work
 * on NON_BLOCKING streams is not ordered after it; GCuda's synchronous
 * forms promise the data is in place when they return. */
gboolean  _gcuda_legacy_stream_synchronize (GError **error);

G_END_DECLS
