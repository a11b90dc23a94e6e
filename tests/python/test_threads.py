# Any thread may use any context, with no push/pop (a smaller version of the
# C test tests/c/test-threads.c).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import threading

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

import pytest  # noqa: E402

pytestmark = pytest.mark.gpu

N_THREADS = 8
N_ITERATIONS = 200


def hammer(shared, own, barrier, errors, index):
    try:
        if own is not None:
            own.push()
        before = GCuda.Context.get_current()
        barrier.wait()
        for i in range(N_ITERATIONS):
            shared.synchronize()
            free, total = shared.get_memory_info()
            assert free <= total
            assert shared.get_limit(GCuda.Limit.STACK_SIZE) > 0
            shared.set_cache_config(GCuda.CacheConfig.L1 if (i + index) % 2 else GCuda.CacheConfig.SHARED)
            shared.get_cache_config()
        after = GCuda.Context.get_current()
        assert before is own and after is own, (before, after, own)
        if own is not None:
            GCuda.Context.pop()
        assert GCuda.Context.get_current() is None
    except Exception as e:  # noqa: BLE001 - reported by the main thread
        errors.append('thread %d: %r' % (index, e))


def run(shared, own):
    barrier = threading.Barrier(N_THREADS)
    errors = []
    threads = [threading.Thread(target=hammer, args=(shared, own if i % 2 else None, barrier, errors, i))
               for i in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_hammer_dedicated(ctx):
    shared = ctx.get_device().create_context(GCuda.ContextFlags.SCHED_AUTO)
    try:
        run(shared, ctx)
    finally:
        shared.destroy()


def test_hammer_primary(ctx):
    other = ctx.get_device().create_context(GCuda.ContextFlags.SCHED_AUTO)
    try:
        run(ctx, other)
    finally:
        other.destroy()


def test_singletons_from_threads(ctx):
    ordinal = ctx.get_device().get_ordinal()
    results = []

    def look():
        for _ in range(100):
            dev = GCuda.Device.get(ordinal)
            results.append(dev is ctx.get_device() and GCuda.Context.get_default() is ctx
                           and dev.get_primary_context() is ctx)

    threads = [threading.Thread(target=look) for _ in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == N_THREADS * 100 and all(results)
