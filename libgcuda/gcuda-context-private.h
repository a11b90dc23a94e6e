/* gcuda-context-private.h: entering contexts, and what other classes need
 * of GCudaContext
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda-error-private.h"

G_BEGIN_DECLS

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

/* Whether @stream names a default stream (NULL, CU_STREAM_LEGACY,
 * CU_STREAM_PER_THREAD) rather than a stream of its own. */
static inline gboolean
_gcuda_stream_handle_is_default (CUstream stream)
{
  return stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD;
}

/* _gcuda_context_enter() for a call that the driver runs in @stream's
 * context when @stream is a stream of its own: the stream-ordered
 * allocator's cuMemAllocFromPoolAsync, cuMemAllocAsync and cuMemFreeAsync,
 * whose only CUDA_ERROR_INVALID_CONTEXT is "default stream specified with no
 * current context" (cuda.h). For those, with such a stream, nothing is made
 * current: no push and pop around every allocation, which cost as much as
 * the driver's own work. @context is checked as for any call; the default
 * streams (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) enter it. Only for
 * those calls: others need the current context whatever the stream. */
gboolean  _gcuda_context_enter_for_stream (GCudaContext       *self,
                                           CUstream            stream,
                                           GCudaContextScope  *scope,
                                           GError            **error);
gboolean  _gcuda_context_enter_release_for_stream (GCudaContext      *self,
                                                   CUstream           stream,
                                                   GCudaContextScope *scope);

#define GCUDA_CONTEXT_STREAM_CALL(context, stream, call_expr, name, error) \
  (__extension__ ({ \
    g_auto(GCudaContextScope) gcuda_call_scope_ = GCUDA_CONTEXT_SCOPE_INIT; \
    _gcuda_context_enter_for_stream ((context), (stream), &gcuda_call_scope_, (error)) && \
      GCUDA_CHECK ((call_expr), (name), (error)); \
  }))

#define GCUDA_CONTEXT_STREAM_RELEASE(context, stream, call_expr) \
  G_STMT_START { \
    g_auto(GCudaContextScope) gcuda_release_scope_ = GCUDA_CONTEXT_SCOPE_INIT; \
    if (_gcuda_context_enter_release_for_stream ((context), (stream), &gcuda_release_scope_)) \
      (void) (call_expr); \
  } G_STMT_END

/* Finalizers and free(): releases a driver resource, @call_expr, with
 * @context current. Not skipped because gcuda_context_destroy() was called:
 * the driver's context goes only after its objects, which give back what
 * they hold (skipped only once it is gone, which a live object of it never
 * sees). Errors are ignored, since at process exit the driver may be shut
 * down already. */
#define GCUDA_CONTEXT_RELEASE(context, call_expr) \
  G_STMT_START { \
    g_auto(GCudaContextScope) gcuda_release_scope_ = GCUDA_CONTEXT_SCOPE_INIT; \
    if (_gcuda_context_enter_release ((context), &gcuda_release_scope_)) \
      (void) (call_expr); \
  } G_STMT_END

/* _gcuda_context_enter() for releasing: FALSE, with nothing pushed and no
 * error, once the driver's context was released (or for NULL). */
gboolean  _gcuda_context_enter_release (GCudaContext      *self,
                                        GCudaContextScope *scope);

/* Whether the driver's context is gone, for finalizers of handles that
 * need no current context (streams, events). */
gboolean  _gcuda_context_is_released   (GCudaContext      *self);

/* gcuda_context_is_destroyed() without the type check, for hot paths that
 * hold a context they checked when they took it. */
gboolean  _gcuda_context_is_destroyed_internal (GCudaContext *self);

CUcontext _gcuda_context_get_handle_internal (GCudaContext *self);

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

/* @context, or when it is NULL the calling thread's default context: the
 * context it last pushed with gcuda_context_push() and has not popped, else
 * gcuda_context_get_default() (see gcuda_context_get_thread_default()); a
 * new reference. */
GCudaContext *_gcuda_context_resolve (GCudaContext  *context,
                                      GError       **error);

/* The live, not destroyed GCudaContext of a driver context, if GCuda made
 * one for it; a new reference, or NULL. */
GCudaContext *_gcuda_context_lookup (CUcontext handle);

G_END_DECLS
