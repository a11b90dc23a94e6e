/* gcuda-buffer-private.h: buffers over memory GCuda does not allocate itself
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

/* A buffer over memory someone else owns (a module's global): never freed
 * by GCuda; @owner is kept alive as long as the buffer. */
GCudaBuffer *_gcuda_buffer_new_borrowed (GCudaContext    *context,
                                         CUdeviceptr      ptr,
                                         guint64          size,
                                         GCudaBufferKind  kind,
                                         GObject         *owner);

/* A mapped graphics resource's memory (gcuda-graphics-resource.c): never
 * freed by GCuda; gcuda_buffer_free() retires it at the unmap, after which
 * it is GCUDA_ERROR_FREED with a message that says so. */
GCudaBuffer *_gcuda_buffer_new_graphics (GCudaContext          *context,
                                         CUdeviceptr            ptr,
                                         guint64                size);

/* Pooled memory (gcuda-memory-pool.c, gcuda-host-memory-pool.c,
 * gcuda-stream-pool.c): instead of the driver's free, @release (@pool,
 * address, size, @data) runs exactly once, on free() or finalization, even
 * after the context was destroyed; the buffer keeps @pool alive, and
 * @data is the pool's (@release owns it). */
typedef void (*GCudaPoolReleaseFunc) (GObject  *pool,
                                      guint64   address,
                                      guint64   size,
                                      gpointer  data);

GCudaBuffer *_gcuda_buffer_new_pooled   (GCudaContext          *context,
                                         CUdeviceptr            ptr,
                                         guint64                size,
                                         GObject               *pool,
                                         GCudaPoolReleaseFunc   release,
                                         gpointer               data);

/* Whether @self (a #GCudaBuffer, not checked) has memory and was not
 * freed: the launch path's test of a kernel argument. */
gboolean     _gcuda_buffer_is_usable    (GCudaBuffer           *self);
/* _gcuda_buffer_is_usable(), and of @context: a launch's common case */
gboolean     _gcuda_buffer_is_usable_in (GCudaBuffer           *self,
                                         GCudaContext          *context);
/* Whether the memory is mapped only in the buffer's context (cuMemAlloc's,
 * a module's variables, IPC memory opened there), not on its whole device
 * (managed memory, memory pools) nor unknown (foreign memory): a kernel of
 * another context on the same device faults on it. */
gboolean     _gcuda_buffer_is_context_bound (GCudaBuffer       *self);

/* A buffer given as an argument: made by a constructor (else
 * GCUDA_ERROR_INVALID_ARGUMENT) and not freed (else GCUDA_ERROR_FREED). */
gboolean     _gcuda_buffer_check        (GCudaBuffer           *self,
                                         GError               **error);

/* _gcuda_buffer_check(), then @offset + @size within the buffer
 * (GCUDA_ERROR_OUT_OF_BOUNDS). */
gboolean     _gcuda_buffer_check_range  (GCudaBuffer           *self,
                                         guint64                offset,
                                         guint64                size,
                                         GError               **error);

/* @stream (nullable) is a stream of the buffer's context. */
gboolean     _gcuda_buffer_check_stream (GCudaBuffer           *self,
                                         GCudaStream           *stream,
                                         GError               **error);

G_END_DECLS
