# GCuda.StreamPool from Python: the driver's stream-ordered allocator
# (cuMemAllocFromPoolAsync / cuMemFreeAsync), also as the allocator of
# GCuda.to_device(). Every case needs a GPU.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools
import gc
import os

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

import pytest  # noqa: E402

from gcudatest import raises_gerror  # noqa: E402

try:
    import numpy as np
except ImportError:  # pragma: no cover - numpy is a test dependency
    if os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1':
        raise
    pytest.skip('numpy is not installed', allow_module_level=True)

gpu = pytest.mark.gpu

MIB = 1 << 20


@gpu
def test_round_trip_on_stream():
    pool = GCuda.StreamPool.new(None)
    stream = GCuda.Stream()
    rng = np.random.default_rng()
    data = rng.standard_normal(100003).astype(np.float32)
    buf = pool.allocate(data.nbytes, stream)
    assert isinstance(buf, GCuda.Buffer)
    assert len(buf) == data.nbytes and int(buf) != 0
    assert buf.get_context() == pool.get_context()

    GCuda.memcpy_htod_async(buf, data, stream)
    back = np.empty_like(data)
    GCuda.memcpy_dtoh_async(back, buf, stream)
    stream.synchronize()
    np.testing.assert_array_equal(back, data)

    # the synchronous copies run on the legacy stream, which waits for a
    # blocking stream's work
    other = rng.integers(-2**31, 2**31, 1000, dtype=np.int32)
    GCuda.memcpy_htod(buf, other)
    out = np.empty_like(other)
    GCuda.memcpy_dtoh(out, buf)
    np.testing.assert_array_equal(out, other)
    buf.free()
    stream.synchronize()
    assert pool.get_used_bytes_current() == 0


@gpu
def test_used_bytes_rise_and_fall():
    pool = GCuda.StreamPool.new(None)
    stream = GCuda.Stream()
    assert pool.get_used_bytes_current() == 0
    buffers = [pool.allocate(3 * MIB, stream) for _ in range(4)]
    stream.synchronize()
    used = pool.get_used_bytes_current()
    assert used >= 4 * 3 * MIB
    assert pool.props.used_bytes_current == used
    reserved = pool.get_reserved_bytes_current()
    assert reserved >= used

    del buffers
    gc.collect()
    stream.synchronize()
    assert pool.get_used_bytes_current() == 0
    # the default threshold keeps the memory reserved until trimmed
    assert pool.get_reserved_bytes_current() > 0
    pool.trim(0)
    assert pool.get_reserved_bytes_current() < reserved


@gpu
def test_release_threshold():
    pool = GCuda.StreamPool.new(None)
    assert pool.props.release_threshold == 2**64 - 1
    assert pool.get_release_threshold() == 2**64 - 1
    pool.props.release_threshold = 5 * MIB
    assert pool.get_release_threshold() == 5 * MIB
    pool.set_release_threshold(0)
    assert pool.props.release_threshold == 0
    pool.set_release_threshold(2**64 - 1)
    assert pool.props.release_threshold == 2**64 - 1


@gpu
def test_errors():
    pool = GCuda.StreamPool.new(None)
    stream = GCuda.Stream()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.allocate(0, stream)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.allocate(0, None)
    with pytest.raises((TypeError, OverflowError, ValueError)):
        pool.allocate(-1, stream)
    stream.synchronize()
    assert pool.get_used_bytes_current() == 0


@gpu
@pytest.mark.parametrize('dtype', [np.float64, np.int16])
def test_as_to_device_allocator(dtype):
    pool = GCuda.StreamPool.new(None)
    stream = GCuda.Stream()
    rng = np.random.default_rng()
    ary = (rng.standard_normal((41, 23)) * 1000).astype(dtype)
    buf = GCuda.to_device(ary, allocator=functools.partial(pool.allocate, stream=stream))
    assert len(buf) == ary.nbytes
    np.testing.assert_array_equal(GCuda.from_device_like(buf, ary), ary)
    stream.synchronize()
    assert pool.get_used_bytes_current() >= ary.nbytes
    del buf
    gc.collect()
    stream.synchronize()
    assert pool.get_used_bytes_current() == 0


@gpu
def test_by_address():
    """allocate_address / free_address: memory without buffer objects, the
    addresses usable wherever PyCUDA takes an int; bad ones refused."""
    pool = GCuda.StreamPool.new(None)
    stream = GCuda.Stream()
    data = np.random.default_rng().standard_normal(100003).astype(np.float32)
    address = pool.allocate_address(data.nbytes, stream)
    assert isinstance(address, int) and address != 0
    GCuda.memcpy_htod_async(address, data, stream)
    back = np.empty_like(data)
    GCuda.memcpy_dtoh_async(back, address, stream)
    stream.synchronize()
    np.testing.assert_array_equal(back, data)
    assert pool.get_used_bytes_current() >= data.nbytes

    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.allocate_address(0, stream)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.free_address(address + 4, stream)
    pool.free_address(address, stream)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        pool.free_address(address, stream)  # twice
    for _ in range(100):
        pool.free_address(pool.allocate_address(4096, None), None)
    stream.synchronize()
    assert pool.get_used_bytes_current() == 0
