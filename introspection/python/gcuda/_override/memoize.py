# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyCUDA's context_dependent_memoize() and clear_context_caches(): results
cached per context, for kernels built on first use."""

import functools
import threading

from .context import Context

__all__ = ['context_dependent_memoize', 'clear_context_caches']


class _ContextCaches:
    """Every context_dependent_memoize cache, for clear_context_caches()."""
    lock = threading.Lock()
    caches = []


def _memoize_context():
    # the context GCuda's calls use for context=None: the one this thread
    # pushed through GCuda, else the default context (a context another
    # library made current, as CuPy's runtime does, is not it)
    return Context.get_thread_default()


def context_dependent_memoize(func):
    """Caches @func's result per context and arguments (PyCUDA's
    pycuda.tools.context_dependent_memoize): for kernels built on first
    use. The context is the one GCuda's calls use for context=None: the
    one this thread pushed (``with ctx:``, make_context()), else the
    default context; @func should build its objects in that
    context. The arguments must be hashable. Results for a destroyed
    context are dropped."""
    cache = {}  # context handle -> (context, {arguments: result})
    with _ContextCaches.lock:
        _ContextCaches.caches.append(cache)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        ctx = _memoize_context()
        key = (args, frozenset(kwargs.items())) if kwargs else args
        with _ContextCaches.lock:
            entry = cache.get(ctx.get_handle())
            # a handle of a destroyed context may come back for a new one
            if entry is not None and not entry[0].is_destroyed():
                try:
                    return entry[1][key]
                except KeyError:
                    pass
        result = func(*args, **kwargs)
        with _ContextCaches.lock:
            entry = cache.get(ctx.get_handle())
            if entry is None or entry[0].is_destroyed():
                entry = cache[ctx.get_handle()] = (ctx, {})
            entry[1][key] = result
        return result

    wrapper.clear_cache = cache.clear
    return wrapper


def clear_context_caches():
    """Empties every context_dependent_memoize cache, which also drops the
    references they hold to contexts (PyCUDA's clear_context_caches)."""
    with _ContextCaches.lock:
        for cache in _ContextCaches.caches:
            cache.clear()
