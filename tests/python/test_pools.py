# Memory pools in Python: GCuda.MemoryPool, GCuda.DeviceMemoryPool and its
# PooledDeviceAllocation,
# GCuda.PageLockedMemoryPool, bitlog2 and the bins, and gcuda.tools.
#
# meson runs this file twice: in the nogpu suite with an unloadable driver
# and the gpu-marked cases deselected, and whole in the gpu suite.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gc
import operator
import os
import random
import subprocess
import sys
import textwrap
import threading

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402

import pytest  # noqa: E402

from gcudatest import raises_gerror  # noqa: E402

try:
    import numpy as np
except ImportError:  # pragma: no cover - numpy is a test dependency
    if os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1':
        raise
    pytest.skip('numpy is not installed', allow_module_level=True)

gpu = pytest.mark.gpu  # the nogpu registration deselects these (-m "not gpu")


def block(size):
    return GCuda.MemoryPool.alloc_size(GCuda.MemoryPool.bin_number(size))


def counters(pool):
    return (pool.held_blocks, pool.active_blocks, pool.managed_bytes, pool.active_bytes)


# ---------------------------------------------------------------- no GPU

def test_bitlog2():
    # PyCUDA's test_bitlog
    assert GCuda.bitlog2(17) == 4
    assert GCuda.bitlog2(0xAFFE) == 15
    assert GCuda.bitlog2(0x3AFFE) == 17
    assert GCuda.bitlog2(0xCC3AFFE) == 27
    rng = random.Random()
    for _ in range(200):
        v = rng.getrandbits(64) or 1
        assert GCuda.bitlog2(v) == v.bit_length() - 1
    assert GCuda.bitlog2(0) == 0
    with pytest.raises((TypeError, OverflowError, ValueError)):
        GCuda.bitlog2(-1)


def test_bins():
    # PyCUDA's test_mempool_2, with the waste bound of 4 mantissa bits
    rng = random.Random()
    for _ in range(2000):
        s = rng.getrandbits(rng.randrange(1, 64)) or 1
        bin_nr = GCuda.MemoryPool.bin_number(s)
        asize = GCuda.MemoryPool.alloc_size(bin_nr)
        assert asize >= s, s
        assert GCuda.MemoryPool.bin_number(asize) == bin_nr, s
        assert (asize - s) * 16 < asize or asize == s, s
        assert GCuda.MemoryPool.bin_number(asize + 1) > bin_nr
    assert GCuda.MemoryPool.alloc_size(1024) == 0
    # the same on both kinds of pool, as PyCUDA's pool methods too
    assert GCuda.DeviceMemoryPool.bin_number(1000) == GCuda.PageLockedMemoryPool.bin_number(1000) == 9 << 4 | 15
    assert GCuda.PageLockedMemoryPool.alloc_size(9 << 4 | 15) == 1023


def test_fresh_pools_need_no_driver():
    pool = GCuda.DeviceMemoryPool()
    assert isinstance(pool.pool, GCuda.MemoryPool)
    assert counters(pool) == (0, 0, 0, 0)
    assert pool.max_held_bytes == 2**64 - 1
    pool.max_held_bytes = 1 << 20
    assert pool.pool.props.max_held_bytes == 1 << 20
    pool.free_held()
    pool.stop_holding()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.allocate(0)

    host = GCuda.PageLockedMemoryPool()
    assert (host.held_blocks, host.active_blocks, host.managed_bytes, host.active_bytes) == (0, 0, 0, 0)
    bad = GCuda.PageLockedMemoryPool(flags=1 << 7)
    assert int(bad.pool.get_flags()) == 1 << 7
    portable = GCuda.HostMemoryPool.new(None, GCuda.HostAllocFlags.PORTABLE)
    assert portable.get_flags() == portable.props.flags == GCuda.HostAllocFlags.PORTABLE
    assert isinstance(portable.get_flags(), GCuda.HostAllocFlags)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        bad.allocate(10, np.float32)
    with pytest.raises(ValueError):
        host.allocate((2, 3), np.float32, order='X')


def test_tools_module():
    from gcuda import tools
    assert tools.DeviceMemoryPool is GCuda.DeviceMemoryPool
    assert tools.PageLockedMemoryPool is GCuda.PageLockedMemoryPool
    assert tools.bitlog2(0xCC3AFFE) == 27
    with pytest.raises(AttributeError):
        tools.no_such_name
    for name in ('DeviceData', 'OccupancyRecord', 'context_dependent_memoize', 'clear_context_caches'):
        if hasattr(GCuda, name):
            assert getattr(tools, name) is getattr(GCuda, name)


def test_allocator_checked_without_driver():
    # mem_alloc/to_device(allocator=...): the callable gets the byte count and
    # must return a GCuda.Buffer; the pool's own checks come through
    asked = []

    def not_a_buffer(n):
        asked.append(n)
        return bytearray(n)

    data = np.random.default_rng().standard_normal(7)
    with pytest.raises(TypeError):
        GCuda.to_device(data, allocator=not_a_buffer)
    with pytest.raises(TypeError):
        GCuda.mem_alloc(13, allocator=not_a_buffer)
    assert asked == [data.nbytes, 13]
    pool = GCuda.DeviceMemoryPool()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.mem_alloc(0, allocator=pool.allocate)
    assert counters(pool) == (0, 0, 0, 0)


# ---------------------------------------------------------------- the fast path
#
# allocate() goes through the _gcuda_launch extension's pool calls when it
# was built with PyGObject's C API (GCUDA_TEST_POOL_EXTENSION=1), else
# through PyGObject; both must give the same buffers and the same errors.

def impl():
    from gcuda._override import pools
    return pools


def pool_extension_built():
    """Whether the fast path must be there (GCUDA_PYTHON_FAST_LAUNCH=0 turns it off)."""
    return (os.environ.get('GCUDA_TEST_POOL_EXTENSION') == '1'
            and os.environ.get('GCUDA_PYTHON_FAST_LAUNCH') != '0')


@pytest.fixture(params=['fast', 'pygobject'])
def pool_path(request):
    """Runs a test with the extension's pool calls, then with PyGObject."""
    mod = impl()
    mod._pool_binding()
    mod._pool_address_calls()
    saved = list(mod._pool_fast_state), list(mod._pool_address_state)
    if request.param == 'pygobject':
        mod._pool_fast_state[:] = [None]
        mod._pool_address_state[:] = [None]
    elif not pool_extension_built():
        pytest.skip('the _gcuda_launch extension was built without PyGObject\'s C API (python-gi-dev)')
    else:
        assert mod._pool_fast_state[0] is not None
    yield request.param
    mod._pool_fast_state[:], mod._pool_address_state[:] = saved


def assert_allocate_errors(pool):
    """What both paths of a device pool's allocate() raise for bad sizes."""
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.allocate(0)
    with raises_gerror(GCuda.DriverError.OUT_OF_MEMORY, GCuda.MemoryError):
        pool.allocate(1 << 50)
    with pytest.raises(OverflowError):
        pool.allocate(-1)
    with pytest.raises(TypeError):
        pool.allocate('8')


def outcome(call, *args):
    """What @call(*args) raised, as (class, domain, code), or None."""
    try:
        call(*args)
    except GLib.Error as e:
        return type(e), e.domain, e.code
    except (TypeError, OverflowError, ValueError) as e:
        return type(e), None, None
    return None


def test_pool_fast_path_bound():
    mod = impl()
    calls = mod._pool_binding()
    if not pool_extension_built():
        assert calls is None
        return
    assert calls is not None, 'the extension has pool calls but the override did not bind them'
    pool = GCuda.MemoryPool()
    host = GCuda.HostMemoryPool()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.allocate(0)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        host.allocate(0)
    # allocate() took the pointer for the extension
    assert pool._gcuda_pointer == mod._gobject_pointer(pool) != 0
    assert host._gcuda_pointer == mod._gobject_pointer(host) != 0
    # anything failed or unusual is None: the override repeats it through PyGObject
    for size in (0, -1, 1 << 64, 2.5, '8', None):
        assert calls[0](pool._gcuda_pointer, size) is None, size
        assert calls[1](host._gcuda_pointer, size) is None, size
    with pytest.raises(TypeError):
        calls[0](0, 8)
    assert counters(pool) == (0, 0, 0, 0)


def test_pool_errors_same_on_both_paths():
    slow = GCuda.MemoryPool.allocate.__wrapped__
    host_slow = GCuda.HostMemoryPool.allocate.__wrapped__
    pool = GCuda.MemoryPool()
    host = GCuda.HostMemoryPool()
    for size in (0, -1, 1 << 64, 1 << 70, '8', None, np.int64(0), np.uint8(0)):
        expected = outcome(slow, pool, size)
        assert expected is not None, size
        assert outcome(pool.allocate, size) == expected, size
        expected = outcome(host_slow, host, size)
        assert expected is not None, size
        assert outcome(host.allocate, size) == expected, size
    # a wrong self
    for other in (host, 5, None):
        assert outcome(GCuda.MemoryPool.allocate, other, 8) == outcome(slow, other, 8) == (TypeError, None, None)
    assert outcome(GCuda.HostMemoryPool.allocate, pool, 8) == outcome(host_slow, pool, 8) == (TypeError, None, None)
    assert counters(pool) == (0, 0, 0, 0)
    assert GCuda.MemoryPool.allocate.__name__ == 'allocate'
    assert GCuda.MemoryPool.allocate.__doc__ == slow.__doc__


def test_array_layouts_cached_alike():
    # PageLockedMemoryPool and aligned_empty map memory through one cache of
    # layouts: whatever was cached, the arrays and errors are as uncached
    rng = np.random.default_rng()
    for _ in range(2):
        for shape, dtype, order in (((3, 5), np.float32, 'F'), (7, 'i2', 'C'), ([2, 3], np.complex128, 'C'),
                                    ((4,), np.dtype([('a', np.int32), ('b', np.float64, 3)]), 'C'),
                                    ((2, 2), (np.float32, 3), 'C')):
            ary = GCuda.aligned_empty(shape, dtype, order)
            want = np.empty(shape, dtype, order)
            assert (ary.shape, ary.dtype, ary.strides) == (want.shape, want.dtype, want.strides)
            assert isinstance(ary.base, GCuda.HostBuffer) and len(ary.base) >= ary.nbytes
            assert ary.__array_interface__['data'][0] == int(ary.base)
            values = rng.integers(0, 256, ary.nbytes, dtype=np.uint8).tobytes()
            ary.base.as_buffer(ary.nbytes)[:] = values
            assert ary.tobytes(order='A') == values  # the array is that memory, in its order
        # (2.0, 3) == (2, 3) but is no shape
        with pytest.raises(TypeError):
            GCuda.aligned_empty((3.0, 5), np.float32, 'F')
        with pytest.raises(TypeError):
            GCuda.aligned_empty(7.0, 'i2')
        with pytest.raises(ValueError):
            GCuda.aligned_empty((3, -5), np.float32)
        with pytest.raises(ValueError):
            GCuda.aligned_empty((3, 5), np.float32, 'X')


# ---------------------------------------------------------------- GPU

@gpu
def test_device_pool_round_trip():
    pool = GCuda.DeviceMemoryPool()
    rng = np.random.default_rng()
    data = rng.standard_normal(1000).astype(np.float32)
    buf = pool.allocate(data.nbytes)
    assert isinstance(buf, GCuda.PooledDeviceAllocation)
    assert len(buf) == data.nbytes and int(buf) != 0
    buf.upload(0, data.tobytes())
    back = np.frombuffer(buf.download(0, data.nbytes).get_data(), dtype=np.float32)
    np.testing.assert_array_equal(back, data)
    assert counters(pool) == (0, 1, block(4000), 4000)

    address = int(buf)
    buf.free()
    assert counters(pool) == (1, 0, block(4000), 0)
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        buf.free()  # twice: an error, and given back once only
    assert counters(pool) == (1, 0, block(4000), 0)
    with raises_gerror(GCuda.Error.FREED):
        buf.upload(0, b'x')
    again = pool.allocate(3990)
    assert int(again) == address  # the same bin, reused
    assert counters(pool) == (0, 1, block(4000), 3990)
    del again
    gc.collect()
    assert counters(pool) == (1, 0, block(4000), 0)
    pool.stop_holding()
    assert counters(pool) == (0, 0, 0, 0)


@gpu
def test_device_pool_churn():
    # PyCUDA's test_mempool, <= 10 alive, with smaller blocks than its 1/64
    # and 1/32 of the free memory (test-memory-pool.c has those): other tests
    # may run beside this one
    free, _ = GCuda.mem_get_info()
    pool = GCuda.DeviceMemoryPool()
    queue = []
    for i in range(100):
        size = random.choice([free // 512, free // 256]) - random.randrange(4096)
        queue.append(pool.allocate(size))
        if len(queue) > 10:
            queue.pop(0)
        assert pool.active_blocks == len(queue)
        assert pool.active_bytes == sum(len(b) for b in queue)
    del queue
    gc.collect()
    assert pool.active_blocks == 0 and pool.held_blocks > 0
    pool.stop_holding()
    assert counters(pool) == (0, 0, 0, 0)


@gpu
def test_device_pool_errors():
    pool = GCuda.DeviceMemoryPool()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.allocate(0)
    with raises_gerror(GCuda.DriverError.OUT_OF_MEMORY, GCuda.MemoryError):
        pool.allocate(1 << 50)
    with pytest.raises((TypeError, OverflowError, ValueError)):
        pool.allocate(-1)
    assert counters(pool) == (0, 0, 0, 0)


@gpu
def test_device_pool_threads():
    pool = GCuda.DeviceMemoryPool()
    live, lock, failures = set(), threading.Lock(), []

    def work():
        try:
            mine = []
            for _ in range(300):
                if mine and random.random() < 0.5:
                    b = mine.pop(random.randrange(len(mine)))
                    with lock:
                        live.remove(int(b))
                    b.free()
                else:
                    b = pool.allocate(random.randrange(1, 1 << 16))
                    with lock:
                        assert int(b) not in live
                        live.add(int(b))
                    mine.append(b)
            for b in mine:
                with lock:
                    live.remove(int(b))
                b.free()
        except Exception as e:  # reported by the main thread
            failures.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    assert not live
    assert pool.active_blocks == 0 and pool.active_bytes == 0
    pool.free_held()
    assert counters(pool) == (0, 0, 0, 0)


@gpu
@pytest.mark.parametrize('order', ['C', 'F'])
@pytest.mark.parametrize('dtype', [np.float32, np.int16, np.complex128])
def test_pagelocked_pool(dtype, order):
    pool = GCuda.PageLockedMemoryPool()
    shape = (37, 21)
    ary = pool.allocate(shape, dtype, order)
    assert isinstance(ary, np.ndarray)
    assert ary.shape == shape and ary.dtype == np.dtype(dtype)
    assert ary.flags.f_contiguous if order == 'F' else ary.flags.c_contiguous
    hb = GCuda.get_host_buffer(ary)
    assert isinstance(hb, GCuda.HostBuffer) and hb.get_kind() == GCuda.HostBufferKind.PAGELOCKED
    nbytes = ary.nbytes
    assert (pool.active_blocks, pool.active_bytes, pool.managed_bytes) == (1, nbytes, block(nbytes))

    rng = np.random.default_rng()
    src = (rng.standard_normal(shape) * 1000).astype(dtype)
    ary[...] = src
    dev = GCuda.to_device(ary)
    out = pool.allocate(shape, dtype, order)
    GCuda.memcpy_dtoh(out, dev)
    np.testing.assert_array_equal(out, src)

    address = ary.__array_interface__['data'][0]
    del ary, hb
    gc.collect()
    assert pool.held_blocks == 1 and pool.active_blocks == 1
    again = pool.allocate(shape, dtype, order)
    assert again.__array_interface__['data'][0] == address
    del again, out
    gc.collect()
    assert pool.active_blocks == 0 and pool.active_bytes == 0
    pool.stop_holding()
    assert (pool.held_blocks, pool.managed_bytes) == (0, 0)


@gpu
def test_pools_dropped_first():
    pool = GCuda.DeviceMemoryPool()
    buf = pool.allocate(100)
    hpool = GCuda.PageLockedMemoryPool()
    ary = hpool.allocate(100, np.uint8)
    del pool, hpool
    gc.collect()
    data = np.random.default_rng().integers(0, 256, 100, dtype=np.uint8)
    ary[...] = data
    buf.upload(0, ary.tobytes())
    np.testing.assert_array_equal(np.frombuffer(buf.download(0, 100).get_data(), np.uint8), data)
    del buf, ary
    gc.collect()


@gpu
@pytest.mark.parametrize('dtype', [np.float32, np.int16, np.complex128])
def test_pool_as_allocator(dtype):
    pool = GCuda.DeviceMemoryPool()
    rng = np.random.default_rng()
    ary = (rng.standard_normal((29, 31)) * 1000).astype(dtype)
    nbytes = ary.nbytes
    buf = GCuda.to_device(ary, allocator=pool.allocate)
    assert isinstance(buf, GCuda.Buffer) and len(buf) == nbytes
    assert counters(pool) == (0, 1, block(nbytes), nbytes)
    np.testing.assert_array_equal(GCuda.from_device_like(buf, ary), ary)

    address = int(buf)
    del buf
    gc.collect()
    assert counters(pool) == (1, 0, block(nbytes), 0)
    # the held block serves the next allocation of the same bin
    out = GCuda.mem_alloc(nbytes, allocator=pool.allocate)
    assert int(out) == address
    assert counters(pool) == (0, 1, block(nbytes), nbytes)
    other = (rng.standard_normal(ary.shape) * 1000).astype(dtype)
    GCuda.memcpy_htod(out, other)
    np.testing.assert_array_equal(GCuda.from_device_like(out, other), other)
    out.free()
    assert counters(pool) == (1, 0, block(nbytes), 0)
    pool.stop_holding()
    assert counters(pool) == (0, 0, 0, 0)


@gpu
def test_allocator_too_small():
    real = GCuda.DeviceMemoryPool()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.to_device(np.arange(100, dtype=np.int32), allocator=lambda n: real.allocate(n // 2))
    gc.collect()
    assert real.active_blocks == 0


@gpu
def test_device_pool_paths_alike(pool_path):
    pool = GCuda.MemoryPool()
    rng = np.random.default_rng()
    data = rng.standard_normal(3000).astype(np.float32)
    a = pool.allocate(data.nbytes)
    b = pool.allocate(data.nbytes - 5)
    for buf, size in ((a, data.nbytes), (b, data.nbytes - 5)):
        assert type(buf) is GCuda.Buffer
        assert len(buf) == size and buf.props.size == size and int(buf) != 0
        assert buf.get_context() == pool.get_context()
        assert not buf.is_freed()
    assert int(a) != int(b)
    a.upload(0, data.tobytes())
    b.upload(0, data[::-1].tobytes()[:data.nbytes - 5])
    np.testing.assert_array_equal(np.frombuffer(a.download(0, data.nbytes).get_data(), np.float32), data)
    assert b.download(0, data.nbytes - 5).get_data() == data[::-1].tobytes()[:data.nbytes - 5]
    assert counters(pool) == (0, 2, 2 * block(data.nbytes), 2 * data.nbytes - 5)
    # LIFO within the bin: the block given back last is taken first
    assert block(data.nbytes - 100) == block(data.nbytes - 5) == block(data.nbytes)
    address_a, address_b = int(a), int(b)
    del a
    gc.collect()
    b.free()
    assert counters(pool) == (2, 0, 2 * block(data.nbytes), 0)
    c = pool.allocate(data.nbytes - 100)
    assert int(c) == address_b
    d = pool.allocate(data.nbytes)
    assert int(d) == address_a
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        b.free()
    # the same errors, counters untouched
    assert_allocate_errors(pool)
    assert counters(pool) == (0, 2, 2 * block(data.nbytes), 2 * data.nbytes - 100)
    del c, d
    gc.collect()
    pool.stop_holding()
    assert counters(pool) == (0, 0, 0, 0)


@gpu
def test_fast_path_in_use():
    mod = impl()
    if not pool_extension_built():
        pytest.skip('the _gcuda_launch extension was built without PyGObject\'s C API (python-gi-dev)')
    real = mod._pool_binding()
    assert real is not None
    made = []

    def counted(i):
        def call(ptr, size):
            got = real[i](ptr, size)
            made.append((i, got is not None))
            return got
        return call

    mod._pool_fast_state[:] = [(counted(0), counted(1))]
    try:
        pool = GCuda.MemoryPool()
        buf = pool.allocate(1000)
        hpool = GCuda.PageLockedMemoryPool()
        ary = hpool.allocate((10, 10), np.float64)
        hb = hpool.pool.allocate(64)
    finally:
        mod._pool_fast_state[:] = [real]
    # the page-locked pool's arrays lie over blocks by address (no HostBuffer)
    assert made == [(0, True), (1, True)]
    assert type(buf) is GCuda.Buffer and len(buf) == 1000
    assert type(ary.base) is GCuda.PooledHostAllocation and ary.base.size == 800
    assert isinstance(ary.base, impl()._pool_ext.PinnedBlock)
    assert type(hb) is GCuda.HostBuffer and len(hb) == 64
    data = np.random.default_rng().standard_normal((10, 10))
    ary[...] = data
    GCuda.memcpy_htod(buf, ary[:5].copy())
    np.testing.assert_array_equal(GCuda.from_device(buf, (5, 10), np.float64), data[:5])


@gpu
@pytest.mark.parametrize('order', ['C', 'F'])
def test_pagelocked_pool_paths_alike(pool_path, order):
    pool = GCuda.PageLockedMemoryPool()
    rng = np.random.default_rng()
    src = rng.standard_normal((33, 17)).astype(np.float32)
    ary = pool.allocate(src.shape, np.float32, order)
    assert type(ary.base) is GCuda.PooledHostAllocation and ary.base.pool is pool
    assert ary.flags.f_contiguous if order == 'F' else ary.flags.c_contiguous
    assert ary.__array_interface__['data'][0] == int(ary.base)
    ary[...] = src
    dev = GCuda.to_device(ary)
    out = pool.allocate(src.shape, np.float32, order)
    GCuda.memcpy_dtoh(out, dev)
    np.testing.assert_array_equal(out, src)
    address = int(ary.base)
    del ary
    gc.collect()
    again = pool.allocate(src.shape, np.float32, order)
    assert again.__array_interface__['data'][0] == address
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.PageLockedMemoryPool(flags=1 << 7).allocate(10, np.float32)
    del again, out
    gc.collect()
    assert pool.active_blocks == 0
    pool.stop_holding()


@gpu
def test_pool_by_address():
    # blocks without buffer objects: the same bins and counters, checked frees
    pool = GCuda.MemoryPool()
    address = pool.allocate_address(4000)
    assert address != 0
    assert counters(pool) == (0, 1, block(4000), 4000)
    base, size = GCuda.Context.get_default().get_address_range(address)
    assert (base, size) == (address, block(4000))
    pool.free_address(address)
    assert counters(pool) == (1, 0, block(4000), 0)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.free_address(address)  # twice
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.free_address(12345)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.allocate_address(0)
    # the block is reused by the object form, whose data round-trips
    buf = pool.allocate(4000)
    assert int(buf) == address
    data = np.random.default_rng().integers(0, 256, 4000, dtype=np.uint8)
    GCuda.memcpy_htod(buf, data)
    assert np.array_equal(GCuda.from_device(buf, 4000, np.uint8), data)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.free_address(int(buf))  # a buffer's block
    del buf
    assert counters(pool) == (1, 0, block(4000), 0)

    host = GCuda.HostMemoryPool()
    address = host.allocate_address(100)
    assert host.active_blocks == 1
    host.free_address(address)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        host.free_address(address)
    assert (host.held_blocks, host.active_blocks) == (1, 0)


@gpu
def test_pooled_device_allocation(pool_path):
    # PyCUDA's PooledDeviceAllocation: a block by address, a GCuda.Buffer
    # only when one is needed, freed once
    pool = GCuda.DeviceMemoryPool()
    # the extension's address calls, or PyGObject's (never silently)
    assert (pool._allocate is not None) == (pool_path == 'fast')
    rng = np.random.default_rng()
    data = rng.standard_normal(1000).astype(np.float32)
    a = pool.allocate(data.nbytes)
    assert type(a) is GCuda.PooledDeviceAllocation and a.pool is pool
    if pool_path == 'fast':  # made and given back in C
        assert isinstance(a, impl()._pool_ext.PooledBlock)
    assert a.size == len(a) == data.nbytes and int(a) == operator.index(a) != 0
    assert not a.is_freed() and a._buffer is None
    assert a.__cuda_array_interface__['data'] == (int(a), False)
    assert counters(pool) == (0, 1, block(4000), 4000)
    address = int(a)

    # given back by free() and reused, LIFO; a second free() is FREED
    a.free()
    assert a.is_freed() and counters(pool) == (1, 0, block(4000), 0)
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        a.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        a.buffer
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        a.__cuda_array_interface__
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        GCuda.memcpy_htod(a, data)
    assert counters(pool) == (1, 0, block(4000), 0)

    # by dropping it; the block comes back to the next allocation
    b = pool.allocate(3990)
    assert int(b) == address
    del b
    gc.collect()
    assert counters(pool) == (1, 0, block(4000), 0)

    # where a GCuda.Buffer goes: copies, from_device, Buffer methods
    c = pool.allocate(data.nbytes)
    GCuda.memcpy_htod(c, data)
    np.testing.assert_array_equal(GCuda.from_device(c, data.shape, np.float32), data)
    buf = c.buffer
    assert type(buf) is GCuda.Buffer and int(buf) == int(c) and len(buf) == data.nbytes
    assert c.buffer is buf and c.get_size() == data.nbytes
    assert np.frombuffer(c.download(0, 16).get_data(), np.float32).tolist() == data[:4].tolist()
    with pytest.raises(AttributeError):
        c.no_such_method
    # the buffer owns the block now: freeing either frees it once
    c.free()
    assert buf.is_freed() and c.is_freed()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        buf.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        c.free()
    assert counters(pool) == (1, 0, block(4000), 0)

    # allocator= takes the buffer, which owns the block
    out = GCuda.mem_alloc(100, allocator=pool.allocate)
    assert type(out) is GCuda.Buffer and len(out) == 100
    assert counters(pool)[1] == 1
    del out
    gc.collect()
    assert counters(pool)[1] == 0

    # errors as GCuda.MemoryPool's
    assert_allocate_errors(pool)
    assert pool.allocate(np.int64(8)).size == 8
    gc.collect()
    assert pool.active_blocks == 0
    pool.stop_holding()
    assert counters(pool) == (0, 0, 0, 0)


@gpu
def test_pooled_device_allocation_without_extension():
    # GCUDA_PYTHON_FAST_LAUNCH=0: PooledDeviceAllocation and
    # PooledHostAllocation are Python classes over PyGObject's calls, with
    # the same behaviour
    body = textwrap.dedent('''
        import gc
        import gi
        gi.require_version('GCuda', '1.0')
        from gi.repository import GCuda
        import numpy as np
        from gcuda._override import pools as impl
        assert impl._pool_ext is None
        pool = GCuda.DeviceMemoryPool()
        a = pool.allocate(4000)
        assert type(a) is GCuda.PooledDeviceAllocation and len(a) == 4000
        address = int(a)
        data = np.random.default_rng().integers(0, 256, 4000, dtype=np.uint8)
        a.free()
        try:
            a.free()
        except GCuda.LogicError as e:
            assert e.code == int(GCuda.Error.FREED)
        else:
            raise AssertionError('freed twice')
        b = pool.allocate(3990)
        assert int(b) == address
        del b
        gc.collect()
        assert (pool.held_blocks, pool.active_blocks) == (1, 0)
        c = pool.allocate(4000)
        GCuda.memcpy_htod(c, data)
        assert np.array_equal(GCuda.from_device(c, 4000, np.uint8), data)
        assert type(c.buffer) is GCuda.Buffer and c.get_size() == 4000
        del c
        gc.collect()
        assert (pool.held_blocks, pool.active_blocks) == (1, 0)
        hpool = GCuda.PageLockedMemoryPool()
        ary = hpool.allocate((4, 5), np.float32, 'F')
        assert type(ary.base) is GCuda.PooledHostAllocation and ary.flags.f_contiguous
        assert ary.__array_interface__['data'][0] == int(ary.base)
        ary[...] = np.arange(20, dtype=np.float32).reshape(4, 5)
        assert GCuda.get_host_buffer(ary).read(0, 8).get_data() == np.float32([0, 5]).tobytes()
        block = hpool.allocate(8, np.uint8).base
        block.free()
        try:
            block.free()
        except GCuda.LogicError as e:
            assert e.code == int(GCuda.Error.FREED)
        else:
            raise AssertionError('freed twice')
        d = pool.allocate(100)  # still out at exit: nothing may break
        e = hpool.allocate(100, np.uint8)
        print('ok')
    ''')
    env = dict(os.environ, GCUDA_PYTHON_FAST_LAUNCH='0')
    done = subprocess.run([sys.executable, '-c', body], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == 'ok', done.stderr


@gpu
def test_pooled_host_allocation(pool_path):
    # PyCUDA's PooledHostAllocation: the array's .base, freed once
    pool = GCuda.PageLockedMemoryPool()
    rng = np.random.default_rng()
    src = rng.standard_normal((20, 30))
    ary = pool.allocate(src.shape, np.float64)
    block = ary.base
    assert type(block) is GCuda.PooledHostAllocation and block.size == src.nbytes == len(block)
    if pool_path == 'fast':
        assert isinstance(block, impl()._pool_ext.PinnedBlock)
    assert ary.__array_interface__['data'][0] == int(block)
    assert (pool.active_blocks, pool.active_bytes) == (1, src.nbytes)
    ary[...] = src
    dev = GCuda.to_device(ary)
    np.testing.assert_array_equal(GCuda.from_device(dev, src.shape, np.float64), src)
    # free() retires the block at once (twice is FREED), but an array was
    # made over it: the block goes back only with the allocation object,
    # after the last array over it, which is still valid memory meanwhile
    address = int(block)
    view = ary[5:]
    block.free()
    assert block.is_freed() and (pool.held_blocks, pool.active_blocks) == (0, 1)
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        block.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        block.buffer
    with pytest.raises(BufferError if impl()._pool_ext is not None else TypeError):
        memoryview(block)  # no new export (without the extension it has none at all)
    ary[...] = 7
    assert view[0, 0] == 7
    del ary, block
    gc.collect()
    assert (pool.held_blocks, pool.active_blocks) == (0, 1)  # the view keeps it
    view[...] = 8
    del view
    gc.collect()
    assert (pool.held_blocks, pool.active_blocks) == (1, 0)
    # dropping the array (and its views) gives it back too
    again = pool.allocate((src.size,), np.float64)
    assert again.__array_interface__['data'][0] == address
    view = again[10:20]
    del again
    gc.collect()
    assert pool.active_blocks == 1
    del view
    gc.collect()
    assert (pool.held_blocks, pool.active_blocks) == (1, 0)
    # get_host_buffer() gives a GCuda.HostBuffer, which then owns the block
    ary = pool.allocate(src.shape, np.float64)
    hb = GCuda.get_host_buffer(ary)
    assert type(hb) is GCuda.HostBuffer and int(hb) == int(ary.base) and hb.get_size() == src.nbytes
    assert GCuda.get_host_buffer(ary[3:]) is hb and ary.base.buffer is hb
    assert GCuda.get_buffer(ary) is None
    ary[...] = src
    assert hb.read(0, 16).get_data() == src.tobytes()[:16]
    del ary
    gc.collect()
    assert pool.active_blocks == 1  # hb holds it
    # arrays were made over it: free() retires it, the block goes back
    # with the last reference
    hb.free()
    assert hb.is_freed() and (pool.held_blocks, pool.active_blocks) == (0, 1)
    del hb
    gc.collect()
    assert (pool.held_blocks, pool.active_blocks) == (1, 0)
    # empty arrays still take a block
    empty = pool.allocate((0, 4), np.float32)
    assert empty.shape == (0, 4) and pool.active_blocks == 1
    del empty
    gc.collect()
    pool.stop_holding()
    assert (pool.held_blocks, pool.active_blocks, pool.managed_bytes) == (0, 0, 0)


@gpu
def test_pooled_allocations_in_a_cycle():
    # a cycle holding a pool and its allocations: the collector may clear
    # the pool's Python side first; the blocks still go back safely
    class Holder:
        pass

    for _ in range(3):
        h = Holder()
        h.self = h
        h.pool = GCuda.DeviceMemoryPool()
        h.hpool = GCuda.PageLockedMemoryPool()
        h.blocks = [h.pool.allocate(1000 * (i + 1)) for i in range(5)]
        h.arrays = [h.hpool.allocate(100 * (i + 1), np.uint8) for i in range(5)]
        h.arrays[0][...] = 7
        del h
        gc.collect()
