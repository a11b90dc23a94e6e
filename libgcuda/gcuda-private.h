/* gcuda-private.h: helpers shared by the library's classes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib/gi18n-lib.h>

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

/* Sets a GCUDA_DRIVER_ERROR "CALL failed: NAME (description)" and returns
 * FALSE when @res is not CUDA_SUCCESS; returns TRUE otherwise. */
gboolean _gcuda_check (CUresult     res,
                       const char  *call,
                       GError     **error);

#define GCUDA_CHECK(call_expr, name, error) \
  G_LIKELY (_gcuda_check ((call_expr), (name), (error)))

/* _gcuda_check() for the queries (cuStreamQuery, cuEventQuery): "not
 * ready" is FALSE, not an error. */
gboolean _gcuda_check_ready (CUresult     res,
                             const char  *call,
                             GError     **error);

/* Makes a context current on this thread for the duration of driver calls.
 * Cheap when it is already current (one TLS read); otherwise push/pop, so a
 * caller's own context stack is left exactly as it was.
 *
 * Declared g_auto(GCudaContextScope) with GCUDA_CONTEXT_SCOPE_INIT, a scope
 * is left when its block ends, on every path; _gcuda_context_leave() leaves
 * it earlier (leaving twice is harmless). No allocation: launches use it.
 * Keep such a block short: nothing in it may drop the context's last
 * reference (declare the scope after a g_autoptr(GCudaContext)) or run user
 * code (signals, callbacks), which would find GCuda's context current. */
typedef struct {
  CUcontext pushed;  /* NULL when nothing was pushed */
} GCudaContextScope;

#define GCUDA_CONTEXT_SCOPE_INIT { NULL }

gboolean  _gcuda_context_enter (GCudaContext       *self,
                                GCudaContextScope  *scope,
                                GError            **error);
void      _gcuda_context_leave (GCudaContextScope  *scope);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (GCudaContextScope, _gcuda_context_leave)

/* The common case: one driver call, @call_expr, with @context current just
 * for it. TRUE on success, else FALSE with @error set, also when @context
 * cannot be entered (destroyed, say) and @call_expr never ran. */
#define GCUDA_CONTEXT_CALL(context, call_expr, name, error) \
  (__extension__ ({ \
    g_auto(GCudaContextScope) gcuda_call_scope_ = GCUDA_CONTEXT_SCOPE_INIT; \
    _gcuda_context_enter ((context), &gcuda_call_scope_, (error)) && \
      GCUDA_CHECK ((call_expr), (name), (error)); \
  }))

/* Finalizers: releases a driver resource, @call_expr, with @context
 * current. Skipped when the context was destroyed (the resource went with
 * it); errors are ignored, since at process exit the driver may be shut
 * down already. */
#define GCUDA_CONTEXT_RELEASE(context, call_expr) \
  G_STMT_START { \
    g_auto(GCudaContextScope) gcuda_release_scope_ = GCUDA_CONTEXT_SCOPE_INIT; \
    if (_gcuda_context_enter ((context), &gcuda_release_scope_, NULL)) \
      (void) (call_expr); \
  } G_STMT_END
CUcontext _gcuda_context_get_handle_internal (GCudaContext *self);

GCudaDevice *_gcuda_device_new (int       ordinal,
                                CUdevice  handle,
                                GError  **error);
CUdevice     _gcuda_device_get_handle (GCudaDevice *self);

GCudaContext *_gcuda_context_new_primary  (GCudaDevice *device,
                                           GError     **error);
GCudaContext *_gcuda_context_new_owned    (GCudaDevice *device,
                                           CUcontext    handle,
                                           guint        flags);

void      _gcuda_context_add_stream    (GCudaContext *self,
                                        CUstream      stream);
void      _gcuda_context_remove_stream (GCudaContext *self,
                                        CUstream      stream);
CUstream  _gcuda_context_prepare_wait  (GCudaContext *self,
                                        CUevent       event,
                                        GError      **error);

/* @context, or the default context when it is NULL; a new reference. */
GCudaContext *_gcuda_context_resolve (GCudaContext  *context,
                                      GError       **error);

CUstream  _gcuda_stream_get_handle (GCudaStream *stream);  /* NULL stream: legacy default */
CUevent   _gcuda_event_get_handle  (GCudaEvent  *event);

void _gcuda_launch_config_get (GCudaLaunchConfig  *self,
                               const guint       **grid,
                               const guint       **block,
                               const guint       **cluster,
                               guint              *shared_bytes,
                               GCudaStream       **stream,
                               gboolean           *cooperative);

GCudaProgram *_gcuda_compiler_compile_relocatable (GCudaCompiler  *self,
                                                  const char     *source,
                                                  GError        **error);

/* Takes ownership of @handle. */
GCudaGraph *_gcuda_graph_new_for_handle (GCudaContext *context,
                                         CUgraph       handle);
CUgraph     _gcuda_graph_get_handle     (GCudaGraph   *graph);
GCudaGraphExec *_gcuda_graph_exec_new_for_handle (GCudaContext    *context,
                                                  CUgraphExec      handle);

/* With a context current: waits for its legacy default stream. The driver
 * may return from "synchronous" cuMemcpyHtoD (from pageable memory),
 * cuMemcpyDtoD, memsets and 2D/3D copies before the work is done, and work
 * on NON_BLOCKING streams is not ordered after it; GCuda's synchronous
 * forms promise the data is in place when they return. */
gboolean  _gcuda_legacy_stream_synchronize (GError **error);

/* A buffer over memory someone else owns (a module's global): never freed
 * by GCuda; @owner is kept alive as long as the buffer. */
GCudaBuffer *_gcuda_buffer_new_borrowed (GCudaContext    *context,
                                         CUdeviceptr      ptr,
                                         guint64          size,
                                         GCudaBufferKind  kind,
                                         GObject         *owner);

/* Pooled memory (gcuda-memory-pool.c, gcuda-host-memory-pool.c): instead
 * of the driver's free, @release (@pool, address, size) runs exactly once,
 * on free() or finalization, even after the context was destroyed; the
 * buffer keeps @pool alive. */
typedef void (*GCudaPoolReleaseFunc) (GObject  *pool,
                                      guint64   address,
                                      guint64   size);

GCudaBuffer     *_gcuda_buffer_new_pooled      (GCudaContext          *context,
                                                CUdeviceptr            ptr,
                                                guint64                size,
                                                GObject               *pool,
                                                GCudaPoolReleaseFunc   release);
GCudaHostBuffer *_gcuda_host_buffer_new_pooled (GCudaContext          *context,
                                                void                  *ptr,
                                                guint64                size,
                                                guint                  flags,
                                                GObject               *pool,
                                                GCudaPoolReleaseFunc   release);

/* Usable host memory: a host buffer from a constructor, not freed, and
 * (page-locked) not gone with a destroyed context. */
gboolean _gcuda_host_buffer_check (GCudaHostBuffer  *self,
                                   GError          **error);

/* Copies an IPC handle of @size bytes out of @bytes, or says which kind of
 * handle (@what) has which size. */
gboolean _gcuda_ipc_handle_from_bytes (GBytes      *bytes,
                                       void        *handle,
                                       gsize        size,
                                       const char  *what,
                                       GError     **error);

G_END_DECLS
