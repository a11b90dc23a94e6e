# GCuda.Context on a real GPU.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gc
import os

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

import pytest  # noqa: E402

from gcudatest import mock_memory_counts, raises_gerror  # noqa: E402

pytestmark = pytest.mark.gpu

MiB = 1 << 20


@pytest.fixture
def dedicated(ctx):
    c = ctx.get_device().create_context(GCuda.ContextFlags.SCHED_AUTO)
    yield c
    c.destroy()


def test_default(ctx):
    assert GCuda.Context.get_default() is ctx
    assert ctx.is_primary()
    assert ctx.props.primary
    assert not ctx.is_destroyed()
    assert ctx.get_handle() != 0
    assert ctx.props.handle == ctx.get_handle()
    dev = ctx.get_device()
    assert isinstance(dev, GCuda.Device)
    assert ctx.props.device is dev
    assert isinstance(ctx.get_flags(), GCuda.ContextFlags)
    assert repr(ctx).startswith('<GCuda.Context on device ')


def test_primary_is_default(ctx):
    dev = ctx.get_device()
    assert dev.get_primary_context() is ctx
    assert dev.retain_primary_context() is ctx


def test_primary_shared(dev):
    p1 = dev.get_primary_context()
    p2 = dev.get_primary_context()
    assert p1 is p2
    assert p1.get_handle() == p2.get_handle()
    assert p1.is_primary()
    flags, active = dev.get_primary_context_state()
    assert active
    p1.synchronize()


def test_dedicated(ctx, dedicated):
    assert dedicated.get_handle() not in (0, ctx.get_handle())
    assert not dedicated.is_primary()
    assert dedicated.get_device() is ctx.get_device()
    assert int(dedicated.get_flags()) == 0
    dedicated.synchronize()
    free, total = dedicated.get_memory_info()
    assert 0 < free <= total
    assert dedicated.get_api_version() > 0


def test_make_context_flags(dev):
    c = dev.make_context(GCuda.ContextFlags.SCHED_BLOCKING_SYNC | GCuda.ContextFlags.LMEM_RESIZE_TO_MAX)
    try:
        assert not c.is_primary()
        assert int(c.get_flags()) == int(GCuda.ContextFlags.SCHED_BLOCKING_SYNC | GCuda.ContextFlags.LMEM_RESIZE_TO_MAX)
        c.synchronize()
        # PyCUDA's make_context() makes it current on this thread
        assert GCuda.Context.get_current() is c
        assert GCuda.Context.get_thread_default() is c
    finally:
        c.detach()  # popped, then destroyed
    assert c.is_destroyed()
    assert GCuda.Context.get_current() is None


def test_destroyed(ctx):
    c = ctx.get_device().create_context(GCuda.ContextFlags.SCHED_AUTO)
    c.destroy()
    assert c.is_destroyed()
    for call in (c.synchronize,
                 lambda: c.get_limit(GCuda.Limit.STACK_SIZE),
                 lambda: c.set_limit(GCuda.Limit.STACK_SIZE, 4096),
                 c.get_cache_config,
                 lambda: c.set_cache_config(GCuda.CacheConfig.L1),
                 c.get_memory_info,
                 c.get_stream_priority_range,
                 c.get_api_version,
                 c.push,
                 lambda: ctx.enable_peer_access(c)):
        with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
            call()
    # destroying twice is harmless
    c.destroy()
    c.detach()
    # the primary context is independent and still works
    ctx.synchronize()
    free, total = ctx.get_memory_info()
    assert free <= total


def test_limits(dedicated):
    for limit, value in ((GCuda.Limit.STACK_SIZE, 4096),
                         (GCuda.Limit.MALLOC_HEAP_SIZE, 64 * MiB),
                         (GCuda.Limit.PRINTF_FIFO_SIZE, 4 * MiB)):
        before = dedicated.get_limit(limit)
        value = max(value, 2 * before)
        dedicated.set_limit(limit, value)
        assert dedicated.get_limit(limit) >= value, limit
    # every CUlimit is accepted by GCuda; the driver may refuse some
    for value in sorted(GCuda.Limit.__enum_values__):
        try:
            dedicated.get_limit(GCuda.Limit(value))
        except GCuda.CudaError as e:
            assert e.domain == 'gcuda-driver-error-quark', e.message


def test_invalid_limit_rejected_by_pygobject(dedicated):
    with pytest.raises((TypeError, ValueError)):
        dedicated.get_limit(99)
    with pytest.raises((TypeError, ValueError)):
        dedicated.set_limit(GCuda.Limit(99), 1)


def test_cache_config(dedicated):
    for config in (GCuda.CacheConfig.SHARED, GCuda.CacheConfig.L1,
                   GCuda.CacheConfig.EQUAL, GCuda.CacheConfig.NONE):
        dedicated.set_cache_config(config)
        got = dedicated.get_cache_config()
        assert isinstance(got, GCuda.CacheConfig)
        # a device with a fixed L1/shared split reads back NONE
        assert got in (config, GCuda.CacheConfig.NONE)


def test_memory_info(ctx):
    free, total = ctx.get_memory_info()
    assert 0 < free <= total
    # the device's memory (within 2 %, in case a driver counts a reservation)
    assert abs(total - ctx.get_device().total_memory()) <= ctx.get_device().total_memory() * 0.02
    # PyCUDA's mem_get_info(): the default context's (free changes with other processes)
    assert GCuda.mem_get_info()[1] == total


def test_stream_priority_range(ctx):
    least, greatest = ctx.get_stream_priority_range()
    assert greatest <= least


def test_api_version(ctx):
    assert ctx.get_api_version() > 0


def test_push_pop(ctx, dedicated):
    assert GCuda.Context.get_current() is None
    ctx.push()
    try:
        assert GCuda.Context.get_current() is ctx
        dedicated.push()
        try:
            assert GCuda.Context.get_current() is dedicated
            # GCuda calls on another context leave the current one alone
            ctx.synchronize()
            ctx.get_memory_info()
            assert GCuda.Context.get_current() is dedicated
        finally:
            GCuda.Context.pop()
        assert GCuda.Context.get_current() is ctx
    finally:
        GCuda.Context.pop()
    assert GCuda.Context.get_current() is None
    with raises_gerror(GCuda.DriverError.INVALID_CONTEXT, GCuda.LogicError):
        GCuda.Context.pop()


def test_with_statement(ctx):
    with ctx as c:
        assert c is ctx
        assert GCuda.Context.get_current() is ctx
    assert GCuda.Context.get_current() is None


def test_nothing_left_current(ctx, dev):
    # every call leaves the thread's context stack as it found it
    ctx.synchronize()
    assert GCuda.Context.get_current() is None
    c = dev.create_context(GCuda.ContextFlags.SCHED_AUTO)
    assert GCuda.Context.get_current() is None
    c.get_limit(GCuda.Limit.STACK_SIZE)
    assert GCuda.Context.get_current() is None
    c.destroy()
    assert GCuda.Context.get_current() is None


def test_buffer_reachable_from_another_context(ctx, dedicated):
    """What a kernel of another context of the device may be given: not
    memory only its own context maps (a plain allocation, a view of it),
    but managed memory and a stream pool's, which the device maps."""
    plain = GCuda.mem_alloc(64, ctx)
    view = plain.new_view(16, 32)
    managed = GCuda.Buffer.new_managed(ctx, 64, GCuda.MemAttachFlags.GLOBAL)
    for buf in (plain, view, managed):
        assert buf.check_reachable(ctx)
    for buf in (plain, view):
        with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError) as info:
            buf.check_reachable(dedicated)
        assert 'another context on the same device' in info.value.message
    assert managed.check_reachable(dedicated)
    # the mock driver has streams and pools only with GCUDA_MOCK_KERNELS=1
    if not (os.environ.get('GCUDA_DRIVER_LIBRARY', '').endswith('libgcuda-mock-cuda.so') and
            os.environ.get('GCUDA_MOCK_KERNELS') != '1'):
        stream = GCuda.Stream(0, 0, ctx)
        pooled = GCuda.StreamPool.new(ctx).allocate(64, stream)
        assert pooled.check_reachable(ctx)
        assert pooled.check_reachable(dedicated)
        pooled.free()
        stream.synchronize()
    plain.free()
    with raises_gerror(GCuda.Error.FREED):
        plain.check_reachable(ctx)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.Buffer().check_reachable(ctx)
    managed.free()


def test_peer_access_to_itself(ctx, dedicated):
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        ctx.enable_peer_access(ctx)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        ctx.disable_peer_access(ctx)
    # same device
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        ctx.enable_peer_access(dedicated)


def test_pycuda_autoinit(ctx):
    import gcuda.autoinit
    import gcuda.autoprimaryctx
    import gcuda.driver as cuda
    assert gcuda.autoinit.context is ctx
    assert gcuda.autoinit.device is ctx.get_device()
    assert gcuda.autoprimaryctx.context is ctx
    cuda.init()
    assert cuda.get_driver_version() >= 12000
    free, total = cuda.mem_get_info()
    assert free <= total
    assert cuda.Device(0) is GCuda.Device.get(0)
    # nothing was pushed: GCuda needs no context stack
    assert cuda.Context.get_current() is None


# ---------------------------------------------------------------- destroyed under live memory

def test_destroy_under_live_arrays(dev):
    # numpy arrays and memoryviews over the context's memory keep it: the
    # context is retired at once (every call CONTEXT_DESTROYED), the
    # driver's context goes after the objects made in it, and the memory is
    # the arrays' till then
    np = pytest.importorskip('numpy')
    counts = mock_memory_counts()
    c = dev.create_context(GCuda.ContextFlags.SCHED_AUTO)
    pinned = GCuda.pagelocked_zeros(1 << 20, np.uint8, context=c)
    view = GCuda.HostBuffer.new_pagelocked(c, 4096, GCuda.HostAllocFlags.DEFAULT).as_buffer()
    managed = GCuda.managed_zeros((256, 256), np.float32, context=c)
    pool = GCuda.PageLockedMemoryPool(context=c)
    pooled = pool.allocate(1000, np.float64)
    plain = GCuda.HostBuffer.new_pagelocked(c, 4096, GCuda.HostAllocFlags.DEFAULT)  # never mapped
    c.destroy()
    assert c.is_destroyed()
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        c.synchronize()
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        pinned.base.read(0, 1)
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        managed.base.download(0, 1)
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        plain.as_array()  # no new views of it
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        pool.allocate(10, np.uint8)
    pinned[:] = 1
    view[:] = b'\x02' * len(view)
    managed[:] = 3
    pooled[:] = 4
    assert pinned.sum() == pinned.size and view[-1] == 2 and managed[-1, -1] == 3 and pooled[-1] == 4
    # every object gives its memory back, in any order, before the
    # context goes
    del pinned, view, managed, pooled, pool, plain
    gc.collect()
    if counts is not None:
        # everything went back before the context went: nothing leaked
        assert mock_memory_counts() == counts


def test_destroy_primary_under_children(dev):
    # the objects of a destroyed primary context keep its retain: they give
    # their memory back with the context still there, and the retain goes
    # after them (nothing leaks in the primary context, which lives on)
    np = pytest.importorskip('numpy')
    counts = mock_memory_counts()
    primary = dev.get_primary_context()
    buf = GCuda.mem_alloc(4096, context=primary)
    ary = GCuda.pagelocked_empty(1000, np.uint8, context=primary)
    primary.destroy()
    assert primary.is_destroyed()
    fresh = dev.get_primary_context()
    assert fresh is not primary and fresh.get_handle() == primary.get_handle()
    assert GCuda.Context.get_default() is fresh
    ary[:] = 1
    buf.free()
    del ary, buf
    gc.collect()
    if counts is not None:
        assert mock_memory_counts() == counts
    del primary
    gc.collect()
    fresh.synchronize()


def test_destroyed_context_memory_has_no_array_interface(dev):
    """numpy reads an AttributeError as "no interface": the driver's
    reason must come through it, not a NameError or a view of retired
    memory."""
    ctx = dev.create_context(0)
    hb = GCuda.HostBuffer.new_pagelocked(ctx, 64, 0)
    assert hb.__array_interface__['data'][0] == int(hb)
    ctx.destroy()
    with pytest.raises(AttributeError, match="context was destroyed"):
        hb.__array_interface__
    assert repr(hb).startswith('<GCuda.HostBuffer pagelocked, 64 bytes at 0x')
