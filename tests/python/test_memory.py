# Device, page-locked, registered and managed memory from Python on a real
# GPU: PyCUDA's memory functions in the GCuda override (mem_alloc, to_device,
# from_device, memcpy_*, memset_*, pagelocked_*, managed_*,
# register_host_memory), GCuda.Buffer and GCuda.HostBuffer, stream-ordered
# and GLib/asyncio transfers, IPC across two processes, peer copies across
# contexts, and bad input with precise error codes.
#
# Data is always fresh random data (never zeros), compared with numpy.
#
# Negative sizes and offsets are refused by PyGObject (or by the override,
# in the same words) with OverflowError before GCuda is called; sizes that fit
# a guint64 but no buffer are GCuda errors.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import array
import asyncio
import gc
import hashlib
import os
import subprocess
import sys
import time

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

pytestmark = pytest.mark.gpu

HERE = os.path.dirname(os.path.abspath(__file__))
KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30
UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32}


# ---------------------------------------------------------------- helpers

def rng():
    return np.random.default_rng()  # fresh, unseeded: new data every run


def random_array(shape, dtype=np.uint8, order='C'):
    """Fresh random values of @dtype (finite, so == compares them)."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape))
    r = rng()
    if dtype.kind in 'iu':
        info = np.iinfo(dtype)
        flat = r.integers(info.min, info.max, size, dtype=dtype, endpoint=True)
    elif dtype.kind == 'f':
        flat = (r.standard_normal(size) * 1000).astype(dtype)
    elif dtype.kind == 'c':
        flat = (r.standard_normal(size) + 1j * r.standard_normal(size)).astype(dtype)
    elif dtype.kind == 'b':
        flat = r.integers(0, 2, size).astype(bool)
    else:
        raise AssertionError(dtype)
    out = np.empty(shape, dtype, order=order)
    out[...] = flat.reshape(shape)
    if size >= 16:
        assert out.any()
    return out


def random_value(bits):
    """A random non-zero memset value of @bits."""
    return int(rng().integers(1, 1 << bits))


def address(ary):
    return ary.__array_interface__['data'][0]


def device_bytes(buf, offset=0, size=None):
    """The buffer's bytes, read back independently of the code under test."""
    if size is None:
        size = buf.get_size() - offset
    return np.frombuffer(buf.download(offset, size).get_data(), np.uint8)


class Finalized:
    """Tells when a GObject has been finalized (not only its wrapper dropped)."""

    def __init__(self, obj):
        self.done = []
        self._ref = obj.weak_ref(lambda *a: self.done.append(True))

    def __bool__(self):
        gc.collect()
        return bool(self.done)


def iterate_until(predicate, timeout=30.0):
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError('timed out after %.1f s' % timeout)
        if not context.iteration(False):
            time.sleep(0.0005)


@pytest.fixture
def dedicated(ctx):
    """A second context on device 0, not made current (make_context() would
    push it: calls without a context would use it)."""
    c = GCuda.Device(0).create_context(GCuda.ContextFlags.SCHED_AUTO)
    yield c
    gc.collect()
    if not c.is_destroyed():
        c.destroy()


# ---------------------------------------------------------------- allocation

def test_mem_alloc(ctx):
    buf = GCuda.mem_alloc(1000)
    assert isinstance(buf, GCuda.Buffer)
    assert type(buf).__module__ == 'gi.overrides.GCuda'
    assert buf.get_kind() == GCuda.BufferKind.DEVICE
    assert buf.get_context() is ctx
    assert int(buf) == buf.get_address() == buf.props.address != 0
    assert len(buf) == buf.get_size() == 1000
    assert buf.get_parent() is None
    assert repr(buf) == '<GCuda.Buffer device, 1000 bytes at 0x%x>' % int(buf)
    assert GCuda.mem_alloc(1, context=ctx).get_context() is ctx
    assert GCuda.mem_alloc(np.int64(5)).get_size() == 5
    assert not buf.is_freed()
    buf.free()
    assert buf.is_freed()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        buf.free()  # twice: an error, as in PyCUDA
    assert int(buf) != 0  # the address stays readable
    assert repr(buf).endswith(', freed>')


def test_mem_alloc_pitch():
    for width, height, access in ((1, 1, 4), (1000, 37, 4), (4096, 3, 8), (513, 64, 16)):
        buf, pitch = GCuda.mem_alloc_pitch(width, height, access)
        assert buf.get_kind() == GCuda.BufferKind.PITCHED
        assert pitch == buf.get_pitch() >= width
        assert buf.get_size() == pitch * height


def test_mem_get_info(ctx):
    free, total = GCuda.mem_get_info()
    assert 0 < free <= total
    # other processes may allocate meanwhile: only the total is stable
    assert ctx.get_memory_info()[1] == total
    assert total <= ctx.get_device().total_memory() + GiB


# ---------------------------------------------------------------- round trips

SIZES = [1, 2, 3, 255, 4096, 4097, 65537, MiB, MiB + 13, 64 * MiB]
DTYPES = [np.uint8, np.int16, np.float32, np.float64, np.complex64]


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize('nbytes', SIZES)
def test_round_trip(nbytes, dtype):
    count = max(1, nbytes // np.dtype(dtype).itemsize)
    host = random_array(count, dtype)

    # to_device / from_device
    buf = GCuda.to_device(host)
    assert buf.get_size() == host.nbytes
    back = GCuda.from_device(buf, count, dtype)
    assert back.dtype == np.dtype(dtype) and back.shape == (count,)
    assert np.array_equal(back, host)
    assert np.array_equal(GCuda.from_device_like(buf, host), host)

    # memcpy_htod / memcpy_dtoh into preallocated memory, fresh data each way
    fresh = random_array(count, dtype)
    GCuda.memcpy_htod(buf, fresh)
    out = random_array(count, dtype)
    GCuda.memcpy_dtoh(out, buf)
    assert np.array_equal(out, fresh)
    assert device_bytes(buf).tobytes() == fresh.tobytes()

    # the address methods of the buffer itself
    again = random_array(count, dtype)
    assert buf.upload_from_address(0, address(again), again.nbytes)
    out2 = np.empty_like(again)
    assert buf.download_to_address(0, address(out2), out2.nbytes)
    assert np.array_equal(out2, again)


def test_round_trip_1gib(ctx):
    free, total = GCuda.mem_get_info()
    if free <= 4 * GiB:
        pytest.skip('only %d MiB of device memory free' % (free // MiB))
    host = random_array(GiB, np.uint8)
    buf = GCuda.to_device(host)
    assert buf.get_size() == GiB
    back = GCuda.from_device(buf, GiB, np.uint8)
    assert np.array_equal(back, host)
    del back

    # page-locked both ways, float32 this time
    pinned = GCuda.pagelocked_empty(GiB // 4, np.float32)
    pinned[:] = random_array(GiB // 4, np.float32)
    GCuda.memcpy_htod(buf, pinned)
    out = GCuda.pagelocked_empty_like(pinned)
    out[:] = random_array(GiB // 4, np.float32)
    GCuda.memcpy_dtoh(out, buf)
    assert np.array_equal(out, pinned)

    # and device to device
    other = GCuda.mem_alloc(GiB)
    GCuda.memcpy_dtod(other, buf, GiB)
    assert np.array_equal(GCuda.from_device(other, GiB // 4, np.float32), pinned)


@pytest.mark.parametrize('order', ['C', 'F'])
def test_shapes_and_orders(order):
    for shape, dtype in (((7, 13), np.float32), ((3, 4, 5), np.int16), ((1, 1000), np.complex128),
                         ((2, 3, 4, 5), np.float64), ((17,), np.bool_)):
        host = random_array(shape, dtype, order)
        buf = GCuda.to_device(host)
        # the array's memory as it lies, C or Fortran order
        assert device_bytes(buf).tobytes() == host.tobytes(order='A')
        back = GCuda.from_device(buf, shape, dtype, order=order)
        assert back.flags[order + '_CONTIGUOUS']
        assert np.array_equal(back, host)
        like = GCuda.from_device_like(buf, host)
        assert like.flags[order + '_CONTIGUOUS'] and np.array_equal(like, host)


def test_host_objects():
    data = random_array(3 * KiB, np.uint8)
    # bytes, bytearray, memoryview, array.array, GLib.Bytes: no numpy needed
    for src in (data.tobytes(), bytearray(data.tobytes()), memoryview(data.tobytes()),
                GLib.Bytes.new(data.tobytes())):
        buf = GCuda.to_device(src)
        assert device_bytes(buf).tobytes() == data.tobytes()
    ints = array.array('i', random_array(100, np.int32).tolist())
    buf = GCuda.to_device(ints)
    assert GCuda.from_device(buf, 100, np.int32).tolist() == ints.tolist()

    # into a bytearray and a memoryview of one
    fresh = random_array(3 * KiB, np.uint8)
    buf = GCuda.mem_alloc(3 * KiB)
    GCuda.memcpy_htod(buf, fresh)
    target = bytearray(3 * KiB)
    GCuda.memcpy_dtoh(target, buf)
    assert bytes(target) == fresh.tobytes()
    target = bytearray(4 * KiB)
    GCuda.memcpy_dtoh(memoryview(target)[KiB:], buf)
    assert bytes(target[KiB:]) == fresh.tobytes() and not any(target[:KiB])


def test_strided_host_memory():
    host = random_array((64, 64), np.float32)
    strided = host[::2, 1::3]
    assert not strided.flags.c_contiguous and not strided.flags.f_contiguous
    # a strided source is made contiguous (C order) first
    buf = GCuda.to_device(strided)
    assert buf.get_size() == strided.nbytes
    assert np.array_equal(GCuda.from_device(buf, strided.shape, np.float32), strided)
    fresh = random_array((64, 64), np.float32)[::2, 1::3]
    GCuda.memcpy_htod(buf, fresh)
    assert np.array_equal(GCuda.from_device_like(buf, fresh), fresh)
    GCuda.memcpy_htod_async(buf, strided)
    GCuda.Context.get_default().synchronize()
    assert np.array_equal(GCuda.from_device_like(buf, strided), strided)
    # a strided destination cannot be filled in place
    dest = np.zeros((64, 64), np.float32)[::2, 1::3]
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.memcpy_dtoh(dest, buf)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.memcpy_dtoh_async(dest, buf)
    # nor a read-only one
    readonly = np.zeros(strided.shape, np.float32)
    readonly.flags.writeable = False
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.memcpy_dtoh(readonly, buf)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.memcpy_dtoh(bytes(strided.nbytes), buf)


# ---------------------------------------------------------------- offsets and views

def test_views():
    n = 64 * KiB
    data = random_array(n, np.uint8)
    buf = GCuda.to_device(data)
    r = rng()
    inner = None
    for _ in range(20):
        offset = int(r.integers(0, n))
        size = int(r.integers(1, n - offset + 1))
        view = buf.new_view(offset, size)
        assert view.get_kind() == GCuda.BufferKind.VIEW
        assert view.get_parent() is buf
        assert int(view) == int(buf) + offset  # PyCUDA's int(buf) + offset
        assert len(view) == size
        assert np.array_equal(GCuda.from_device(view, size, np.uint8), data[offset:offset + size])

        fresh = random_array(size, np.uint8)
        GCuda.memcpy_htod(view, fresh)
        data[offset:offset + size] = fresh
        assert np.array_equal(device_bytes(buf), data)

        # a view of a view
        if size > 2:
            inner = view.new_view(1, size - 2)
            assert int(inner) == int(buf) + offset + 1
            assert inner.get_parent() is view
            assert np.array_equal(GCuda.from_device(inner, size - 2, np.uint8), data[offset + 1:offset + size - 1])

    # the view keeps its parent alive
    del inner
    view = buf.new_view(100, 200)
    gone = Finalized(buf)
    del buf
    assert not gone
    assert np.array_equal(GCuda.from_device(view, 200, np.uint8), data[100:300])
    del view
    assert gone


def test_offsets():
    n = 256 * KiB
    data = random_array(n, np.uint8)
    buf = GCuda.to_device(data)
    other = GCuda.to_device(random_array(n, np.uint8))
    expected_other = device_bytes(other).copy()
    r = rng()
    for _ in range(20):
        offset = int(r.integers(0, n))
        size = int(r.integers(0, n - offset + 1))
        fresh = random_array(max(size, 1), np.uint8)[:size]
        assert buf.upload_from_address(offset, address(fresh), size)
        data[offset:offset + size] = fresh
        out = np.empty(size, np.uint8)
        assert buf.download_to_address(offset, address(out), size)
        assert np.array_equal(out, data[offset:offset + size])
        assert (buf.download(offset, size).get_data() or b'') == data[offset:offset + size].tobytes()

        dst_offset = int(r.integers(0, n - size + 1))
        assert other.copy_from(dst_offset, buf, offset, size)
        expected_other[dst_offset:dst_offset + size] = data[offset:offset + size]
        assert np.array_equal(device_bytes(other), expected_other)
    assert np.array_equal(device_bytes(buf), data)


def test_memcpy_dtod():
    data = random_array(MiB + 7, np.uint8)
    src = GCuda.to_device(data)
    dst = GCuda.to_device(random_array(MiB + 7, np.uint8))
    GCuda.memcpy_dtod(dst, src, MiB + 7)
    assert np.array_equal(device_bytes(dst), data)

    stream = GCuda.Stream()
    fresh = random_array(MiB + 7, np.uint8)
    GCuda.memcpy_htod(src, fresh)
    GCuda.memcpy_dtod_async(dst.new_view(10, 1000), src.new_view(20, 1000), 1000, stream)
    stream.synchronize()
    expected = data.copy()
    expected[10:1010] = fresh[20:1020]
    assert np.array_equal(device_bytes(dst), expected)

    GCuda.memcpy_dtod_async(dst, src, 5)  # the legacy default stream
    GCuda.Context.get_default().synchronize()
    expected[:5] = fresh[:5]
    assert np.array_equal(device_bytes(dst), expected)


# ---------------------------------------------------------------- memsets

@pytest.mark.parametrize('bits', [8, 16, 32])
def test_memset(bits):
    es = bits // 8
    n = 64 * KiB + 3 * es
    r = rng()
    data = random_array(n, np.uint8)
    buf = GCuda.to_device(data)
    expected = data.copy()
    one_d = getattr(GCuda, 'memset_d%d' % bits)
    one_d_async = getattr(GCuda, 'memset_d%d_async' % bits)
    stream = GCuda.Stream()
    for i in range(12):
        first = int(r.integers(0, n // es))
        count = int(r.integers(0, n // es - first + 1))
        value = random_value(bits)
        view = buf.new_view(first * es, n - first * es)
        if i % 3 == 0:
            one_d(view, value, count)
        elif i % 3 == 1:
            one_d_async(view, value, count, stream)
            stream.synchronize()
        else:
            assert getattr(buf, 'memset_d%d' % bits)(first * es, value, count, None)
        expected.view(UINT[bits])[first:first + count] = value
        assert np.array_equal(device_bytes(buf), expected), (first, count, value)

    # all of it, and on the legacy default stream
    value = random_value(bits)
    one_d_async(buf, value, n // es)
    GCuda.Context.get_default().synchronize()
    assert np.array_equal(device_bytes(buf).view(UINT[bits]), np.full(n // es, value, UINT[bits]))


@pytest.mark.parametrize('bits', [8, 16, 32])
def test_memset_2d(bits):
    es = bits // 8
    utype = UINT[bits]
    width, height = 1000 * es + 4, 37
    buf, pitch = GCuda.mem_alloc_pitch(width, height, 4)
    assert pitch >= width and pitch % es == 0
    data = random_array(pitch * height, np.uint8)
    GCuda.memcpy_htod(buf, data)
    expected = data.copy().view(utype).reshape(height, pitch // es)
    two_d = getattr(GCuda, 'memset_d2d%d' % bits)
    two_d_async = getattr(GCuda, 'memset_d2d%d_async' % bits)
    stream = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    r = rng()
    for i in range(12):
        row = int(r.integers(0, height))
        col = int(r.integers(0, width // es))
        rows = int(r.integers(1, height - row + 1))
        cols = int(r.integers(1, width // es - col + 1))
        value = random_value(bits)
        offset = row * pitch + col * es
        view = buf.new_view(offset, buf.get_size() - offset)
        if i % 3 == 0:
            two_d(view, pitch, value, cols, rows)
        elif i % 3 == 1:
            two_d_async(view, pitch, value, cols, rows, stream)
            stream.synchronize()
        else:
            assert getattr(buf, 'memset_d%d_2d' % bits)(offset, pitch, value, cols, rows, None)
        expected[row:row + rows, col:col + cols] = value
        got = device_bytes(buf).view(utype).reshape(height, pitch // es)
        assert np.array_equal(got, expected), (row, col, rows, cols, value)

    # a narrower pitch than the allocation's: every other row
    value = random_value(bits)
    two_d(buf, 2 * pitch, value, 3, height // 2)
    expected[0:2 * (height // 2):2, :3] = value
    assert np.array_equal(device_bytes(buf).view(utype).reshape(height, pitch // es), expected)


def test_memset_bad_input():
    buf = GCuda.mem_alloc(4096)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memset_d8(buf, 1, 4097)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memset_d16(buf, 1, 2049)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memset_d32(buf, 1, 1025)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memset_d32(buf, 1, 2**62)  # 2**64 bytes: no overflow to a small size
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memset_d8(buf, 1, 2**64 - 1)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        buf.memset_d8(4000, 1, 97, None)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        buf.memset_d8(2**64 - 1, 1, 1, None)
    # misaligned for the element size
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        buf.memset_d16(1, 1, 1, None)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        buf.memset_d32(2, 1, 1, None)
    # 2D: rows wider than the pitch; rows past the end
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.memset_d2d8(buf, 64, 1, 65, 2)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.memset_d2d32(buf, 64, 1, 17, 2)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.memset_d2d16(buf, 63, 1, 2, 2)  # pitch not a multiple of 2
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memset_d2d8(buf, 64, 1, 64, 65)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memset_d2d32(buf, 1024, 1, 1, 2**60)
    # values wider than the element: PyGObject's range check
    with pytest.raises(OverflowError):
        GCuda.memset_d8(buf, 256, 1)
    with pytest.raises(OverflowError):
        GCuda.memset_d16(buf, 1 << 16, 1)
    with pytest.raises(OverflowError):
        GCuda.memset_d32(buf, -1, 1)
    with pytest.raises(OverflowError):
        GCuda.memset_d8(buf, 1, -1)
    with pytest.raises(TypeError):
        GCuda.memset_d8(buf, 1.5, 1)
    # nothing was written
    GCuda.memset_d8(buf, 7, 4096)
    assert set(device_bytes(buf).tolist()) == {7}


# ---------------------------------------------------------------- host memory kinds

def test_pagelocked_arrays(ctx):
    for shape, dtype, order in (((100,), np.float32, 'C'), ((30, 40), np.int16, 'F'), ((0,), np.float64, 'C'),
                                ((2, 3, 4), np.complex64, 'C'), (7, (np.uint8, 3), 'C')):
        ary = GCuda.pagelocked_empty(shape, dtype, order=order)
        expected = np.empty(shape, dtype, order=order)
        assert ary.shape == expected.shape and ary.dtype == expected.dtype
        assert ary.strides == expected.strides or ary.size == 0
        hb = ary.base
        assert isinstance(hb, GCuda.HostBuffer)  # PyCUDA: a PagelockedHostAllocation
        assert GCuda.get_host_buffer(ary) is hb
        assert hb.get_kind() == GCuda.HostBufferKind.PAGELOCKED
        assert hb.get_context() is ctx
        assert int(hb) == address(ary)
        assert len(hb) >= ary.nbytes
        assert hb.get_flags() == 0
        if ary.size:
            ary[...] = random_array(ary.shape, ary.dtype)
            assert hb.read(0, ary.nbytes).get_data() == ary.tobytes(order='A')
        z = GCuda.pagelocked_zeros(shape, dtype, order=order)
        assert z.shape == expected.shape and not z.any()

    src = random_array((5, 6), np.float64, 'F')
    for fn in (GCuda.pagelocked_empty_like, GCuda.pagelocked_zeros_like):
        like = fn(src)
        assert like.shape == src.shape and like.dtype == src.dtype and like.flags.f_contiguous
        assert isinstance(like.base, GCuda.HostBuffer)
    assert not GCuda.pagelocked_zeros_like(src).any()

    # the array keeps the memory; free() retires it at once, releases it after it
    ary = GCuda.pagelocked_empty(MiB, np.uint8)
    hb = ary.base
    gone = Finalized(hb)
    view = ary[10:]
    del ary, hb
    assert not gone
    view[:] = 1
    del view
    assert gone
    hb = GCuda.pagelocked_empty(10, np.uint8).base
    hb.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        hb.read(0, 1)
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        hb.as_buffer()


@pytest.mark.parametrize('flags', [GCuda.HostAllocFlags.DEFAULT, GCuda.HostAllocFlags.PORTABLE,
                                   GCuda.HostAllocFlags.DEVICEMAP, GCuda.HostAllocFlags.WRITECOMBINED,
                                   GCuda.HostAllocFlags.PORTABLE | GCuda.HostAllocFlags.DEVICEMAP])
def test_pagelocked_flags(flags):
    ary = GCuda.pagelocked_zeros(MiB, np.uint8, mem_flags=flags)
    hb = ary.base
    assert hb.get_flags() == int(flags)
    assert hb.get_alloc_flags() == flags and isinstance(hb.get_alloc_flags(), GCuda.HostAllocFlags)
    assert hb.props.alloc_flags == flags and hb.get_register_flags() == 0
    if flags & GCuda.HostAllocFlags.DEVICEMAP:
        assert hb.get_device_pointer() != 0
    else:
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            hb.get_device_pointer()
    data = random_array(MiB, np.uint8)
    buf = GCuda.to_device(data)
    GCuda.memcpy_dtoh(ary, buf)
    assert np.array_equal(ary, data)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.pagelocked_empty(10, np.uint8, mem_flags=1 << 10)


HOST_KINDS = ['pageable', 'pagelocked', 'registered', 'managed']


def host_array(kind, n, dtype):
    if kind == 'pageable':
        return np.empty(n, dtype)
    if kind == 'pagelocked':
        return GCuda.pagelocked_empty(n, dtype)
    if kind == 'registered':
        return GCuda.register_host_memory(GCuda.aligned_empty(n, dtype))
    return GCuda.managed_empty(n, dtype)


@pytest.mark.parametrize('kind', HOST_KINDS)
def test_pinned_and_pageable(kind):
    """The same transfers, sync and stream-ordered, from and into each kind
    of host memory, all correct."""
    n = 4 * MiB  # whole pages, for register_host_memory()
    stream = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    src = host_array(kind, n // 4, np.float32)
    dst = host_array(kind, n // 4, np.float32)
    src[:] = random_array(n // 4, np.float32)
    dst[:] = random_array(n // 4, np.float32)
    buf = GCuda.mem_alloc(src.nbytes)

    GCuda.memcpy_htod(buf, src)
    GCuda.memcpy_dtoh(dst, buf)
    assert np.array_equal(dst, src)

    src[:] = random_array(n // 4, np.float32)
    GCuda.memcpy_htod_async(buf, src, stream)
    GCuda.memcpy_dtoh_async(dst, buf, stream)
    stream.synchronize()
    assert np.array_equal(dst, src)

    src[:] = random_array(n // 4, np.float32)
    GCuda.memcpy_htod_async(buf, src)  # legacy default stream
    GCuda.memcpy_dtoh_async(dst, buf)
    GCuda.Context.get_default().synchronize()
    assert np.array_equal(dst, src)


def test_register_host_memory(ctx):
    n = MiB
    plain = GCuda.aligned_empty(n, np.uint8)
    plain[:] = random_array(n, np.uint8)
    reg = GCuda.register_host_memory(plain)
    hb = reg.base
    assert isinstance(hb, GCuda.HostBuffer)  # PyCUDA: RegisteredHostMemory
    assert hb.get_kind() == GCuda.HostBufferKind.REGISTERED
    assert hb.get_context() is ctx
    assert hb.base is plain  # PyCUDA: .base of the registration is the array
    assert GCuda.get_host_buffer(reg) is hb
    assert GCuda.get_host_buffer(plain) is plain.base is not hb
    assert address(reg) == address(plain) and np.shares_memory(reg, plain)
    assert reg.shape == plain.shape and reg.dtype == plain.dtype

    buf = GCuda.to_device(reg)
    assert np.array_equal(device_bytes(buf), plain)
    fresh = random_array(n, np.uint8)
    GCuda.memcpy_htod(buf, fresh)
    stream = GCuda.Stream()
    GCuda.memcpy_dtoh_async(reg, buf, stream)
    stream.synchronize()
    assert np.array_equal(plain, fresh)

    # 2-D, Fortran order, other dtypes, flags
    f = GCuda.aligned_empty((256, 64), np.float64, order='F')
    rf = GCuda.register_host_memory(f, GCuda.HostRegisterFlags.PORTABLE | GCuda.HostRegisterFlags.DEVICEMAP)
    assert rf.flags.f_contiguous and rf.shape == f.shape
    assert rf.base.get_flags() == int(GCuda.HostRegisterFlags.PORTABLE | GCuda.HostRegisterFlags.DEVICEMAP)
    assert rf.base.get_register_flags() == GCuda.HostRegisterFlags.PORTABLE | GCuda.HostRegisterFlags.DEVICEMAP
    assert isinstance(rf.base.props.register_flags, GCuda.HostRegisterFlags) and rf.base.get_alloc_flags() == 0
    assert rf.base.get_device_pointer() != 0
    rf.base.unregister()
    assert rf.base.is_freed()

    # the registration keeps the array's memory: drop everything but reg
    gone_reg = Finalized(hb)
    gone_plain = Finalized(plain.base)
    del plain, hb
    assert not gone_reg and not gone_plain
    fresh = random_array(n, np.uint8)
    GCuda.memcpy_htod(buf, fresh)
    GCuda.memcpy_dtoh(reg, buf)
    assert np.array_equal(reg, fresh)
    # unregister: the memory stays (it is the array's), page-locking ends
    GCuda.get_host_buffer(reg).unregister()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        GCuda.get_host_buffer(reg).unregister()
    assert np.array_equal(reg, fresh)
    del reg
    assert gone_reg and gone_plain


def test_register_bad_input():
    aligned = GCuda.aligned_empty(3 * 4096, np.uint8)
    # PyCUDA: the address must be page-aligned
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.register_host_memory(aligned[1:])
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.register_host_memory(GCuda.aligned_empty(4096, np.uint8, alignment=64)[64:])
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.register_host_memory(aligned.reshape(3, 4096)[:, ::2])  # not contiguous
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.register_host_memory(aligned[:0])  # 0 bytes
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.register_host_memory(aligned, 1 << 10)  # unknown flags
    with pytest.raises(TypeError):
        GCuda.register_host_memory(bytearray(4096))
    with pytest.raises(TypeError):
        GCuda.register_host_memory(np.empty(4, object))


# ---------------------------------------------------------------- stream-ordered copies overlap with the host

def test_stream_copies_overlap_host_work():
    n = 512 * MiB
    src = GCuda.pagelocked_empty(n, np.uint8)
    dst = GCuda.pagelocked_empty(n, np.uint8)
    buf = GCuda.mem_alloc(n)
    stream = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    src[:] = random_array(n, np.uint8)
    dst[:] = random_array(n, np.uint8)
    # warm up (first use of the memory by the DMA engines)
    GCuda.memcpy_htod_async(buf, src, stream)
    GCuda.memcpy_dtoh_async(dst, buf, stream)
    stream.synchronize()
    assert np.array_equal(dst, src)

    src[:] = random_array(n, np.uint8)
    work = random_array(16 * MiB, np.float64)
    t0 = time.perf_counter()
    GCuda.memcpy_htod_async(buf, src, stream)
    GCuda.memcpy_dtoh_async(dst, buf, stream)
    queued = time.perf_counter() - t0
    pending = not stream.is_done()
    # host work while the copies run
    t1 = time.perf_counter()
    checksum = float(np.sum(work))
    host_work = time.perf_counter() - t1
    stream.synchronize()
    total = time.perf_counter() - t0
    print('queueing 2 × %d MiB: %.3f ms; host work %.3f ms; all done after %.3f ms'
          % (n // MiB, queued * 1e3, host_work * 1e3, total * 1e3))
    assert checksum == checksum  # the work was done
    assert pending, 'the copies had finished when the queuing calls returned'
    assert queued * 10 < total, 'queuing took %.3f ms of %.3f ms' % (queued * 1e3, total * 1e3)
    assert np.array_equal(dst, src)


# ---------------------------------------------------------------- managed memory

def test_managed(ctx, dev):
    n = 1000
    ary = GCuda.managed_empty((n,), np.float64)
    buf = ary.base
    assert isinstance(buf, GCuda.Buffer)  # PyCUDA: a ManagedAllocation
    assert GCuda.get_buffer(ary) is buf and GCuda.get_buffer(ary[5:]) is buf
    assert GCuda.get_host_buffer(ary) is None
    assert buf.get_kind() == GCuda.BufferKind.MANAGED
    assert int(buf) == address(ary) == buf.get_device_pointer()

    # host writes, the device reads after synchronizing
    data = random_array(n, np.float64)
    ary[:] = data
    ctx.synchronize()
    assert buf.download(0, ary.nbytes).get_data() == data.tobytes()
    assert np.array_equal(GCuda.from_device(buf, n, np.float64), data)

    # the device writes, the host reads after synchronizing
    fresh = random_array(n, np.float64)
    GCuda.memcpy_htod(buf, fresh)
    ctx.synchronize()
    assert np.array_equal(ary, fresh)
    value = random_value(32)
    GCuda.memset_d32(buf.new_view(8, 16), value, 4)
    ctx.synchronize()
    assert np.array_equal(ary.view(np.uint32)[2:6], np.full(4, value, np.uint32))

    # prefetch to the device and back to the host, attach, advise
    stream = GCuda.Stream()
    buf.prefetch(dev, stream)
    buf.prefetch(None, stream)
    buf.attach(GCuda.MemAttachFlags.SINGLE, stream)
    stream.synchronize()
    buf.attach(GCuda.MemAttachFlags.GLOBAL, None)
    buf.advise(GCuda.MemoryAdvice.SET_READ_MOSTLY, dev)
    ctx.synchronize()
    assert np.array_equal(ary.view(np.uint32)[2:6], np.full(4, value, np.uint32))

    # as_buffer / as_array / numpy.asarray: the same memory, no copy
    mv = buf.as_buffer(16, 8)
    assert isinstance(mv, memoryview) and mv.nbytes == 16 and not mv.readonly
    other = random_array(16, np.uint8)
    mv[:] = other.tobytes()
    assert ary.view(np.uint8)[8:24].tobytes() == other.tobytes()
    assert GCuda.get_buffer(mv) is buf
    assert buf.as_buffer().nbytes == buf.get_size()
    whole = np.asarray(buf)
    assert whole.dtype == np.uint8 and whole.base is buf and address(whole) == int(buf)
    a2 = buf.as_array((10, 10), np.float64)
    assert np.shares_memory(a2, ary) and a2.base is buf
    v = buf.new_view(80, 800)
    assert np.array_equal(v.as_array(dtype=np.float64), ary[10:110])
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        buf.as_buffer(buf.get_size() + 1)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        v.as_array(101, np.float64)

    # the array keeps the buffer; free() makes every later use FREED
    gone = Finalized(buf)
    del buf, a2, whole, mv, v
    assert not gone
    base = ary.base
    del ary
    assert not gone
    base.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        base.as_buffer(1)
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        base.as_array()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        base.download(0, 1)


def test_managed_arrays():
    for flags in (GCuda.MemAttachFlags.GLOBAL, GCuda.MemAttachFlags.HOST, 0):
        z = GCuda.managed_zeros((30, 40), np.int32, order='F', mem_flags=flags)
        assert z.flags.f_contiguous and z.shape == (30, 40) and not z.any()
        assert z.base.get_kind() == GCuda.BufferKind.MANAGED
    src = random_array((5, 7), np.complex128)
    for fn in (GCuda.managed_empty_like, GCuda.managed_zeros_like):
        like = fn(src)
        like[...] = src
        GCuda.Context.get_default().synchronize()
        assert np.array_equal(GCuda.from_device_like(like.base, src), src)
    empty = GCuda.managed_empty(0, np.float32)
    assert empty.size == 0 and isinstance(empty.base, GCuda.Buffer)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.managed_empty(10, np.float32, mem_flags=GCuda.MemAttachFlags.SINGLE)


def test_as_buffer_needs_managed_memory():
    for buf in (GCuda.mem_alloc(100), GCuda.mem_alloc_pitch(100, 2, 4)[0], GCuda.mem_alloc(100).new_view(1, 10)):
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            buf.as_buffer(10)
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            buf.as_buffer(10, 0)
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            buf.as_array()
        # numpy does not see device memory as host memory
        assert np.asarray(buf).dtype == object


# ---------------------------------------------------------------- IPC

def test_ipc_handle_errors():
    buf = GCuda.to_device(random_array(1000, np.uint8))
    handle = buf.ipc_handle()
    assert isinstance(handle, bytes) and len(handle) == 64
    assert GCuda.mem_get_ipc_handle(buf) == handle
    assert buf.get_ipc_handle().get_size() == 64
    for size in (0, 1, 63, 65, 128):
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            GCuda.Buffer.open_ipc_handle(None, GLib.Bytes.new(bytes(size)))
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            GCuda.Buffer.from_ipc_handle(bytes(size))
    # views and managed memory have no handle of their own
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        buf.new_view(0, 10).get_ipc_handle()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.managed_empty(10, np.uint8).base.ipc_handle()
    buf.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        buf.ipc_handle()


def test_ipc_two_processes():
    n = 3 * MiB + 5
    data = random_array(n, np.uint8)
    buf = GCuda.to_device(data)
    handle = buf.ipc_handle()
    child = subprocess.run([sys.executable, os.path.join(HERE, 'ipc_memory_child.py'), handle.hex(), str(n)],
                           capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    assert child.returncode == 0, child.stderr
    lines = child.stdout.split('\n')
    assert lines[0] == 'sha256 ' + hashlib.sha256(data).hexdigest(), child.stdout
    assert lines[1] == 'reversed', child.stdout
    # the child's writes are in this process's memory
    assert np.array_equal(GCuda.from_device(buf, n, np.uint8), data[::-1])


# ---------------------------------------------------------------- peer copies between contexts

def peer_contexts(dedicated):
    contexts = [GCuda.Context.get_default(), dedicated]
    if GCuda.Device.count() >= 2:
        contexts.append(GCuda.Device(1).retain_primary_context())
    return contexts


def test_peer_copy(dedicated):
    contexts = peer_contexts(dedicated)
    n = 8 * MiB + 3
    for a in contexts:
        for b in contexts:
            if a is b:
                continue
            data = random_array(n, np.uint8)
            src = GCuda.to_device(data, context=a)
            assert src.get_context() is a
            dst = GCuda.to_device(random_array(n, np.uint8), context=b)
            assert dst.get_context() is b

            assert dst.copy_from(0, src, 0, n)
            assert np.array_equal(device_bytes(dst), data)

            fresh = random_array(n, np.uint8)
            GCuda.memcpy_htod(src, fresh)
            stream = GCuda.Stream(context=b)
            assert dst.copy_from_on_stream(100, src, 200, n - 300, stream)
            stream.synchronize()
            expected = data.copy()
            expected[100:n - 200] = fresh[200:n - 100]
            assert np.array_equal(device_bytes(dst), expected)

            GCuda.memcpy_peer(dst, src, n, dest_context=b, src_context=a)
            assert np.array_equal(device_bytes(dst), fresh)
            GCuda.memcpy_htod(src, data)
            GCuda.memcpy_peer_async(dst, src, n, stream=stream)
            stream.synchronize()
            assert np.array_equal(device_bytes(dst), data)
            GCuda.memcpy_dtod(dst, src.new_view(1, n - 1), n - 1)  # the same, without naming contexts
            assert np.array_equal(device_bytes(dst, 0, n - 1), data[1:])

            with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
                GCuda.memcpy_peer(dst, src, n, dest_context=a)
            with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
                GCuda.memcpy_peer(dst, src, n, src_context=b)
            # the stream must be of the destination's context
            with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
                dst.copy_from_on_stream(0, src, 0, n, GCuda.Stream(context=a))
            with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
                dst.copy_from(0, src, 1, n)


def test_copy_from_destroyed_context(dedicated):
    src = GCuda.to_device(random_array(1000, np.uint8), context=dedicated)
    dst = GCuda.mem_alloc(1000)
    dedicated.destroy()
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        dst.copy_from(0, src, 0, 1000)
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        GCuda.from_device(src, 10, np.uint8)


# ---------------------------------------------------------------- GLib main loop and asyncio

def test_async_main_loop(dedicated):
    n = 2 * MiB + 1
    data = random_array(n, np.uint8)
    buf = GCuda.to_device(data)
    stream = GCuda.Stream()
    results = []

    def on_download(b, res, *unused):
        try:
            results.append(b.download_finish(res))
        except GLib.Error as e:
            results.append(e)

    buf.download_async(0, n, None, None, on_download)
    buf.download_async(10, 1000, stream, None, on_download)
    iterate_until(lambda: len(results) == 2)
    # the two streams complete in either order
    results.sort(key=lambda r: r.get_size())
    assert all(isinstance(r, GLib.Bytes) for r in results)
    assert results[0].get_data() == data[10:1010].tobytes()
    assert results[1].get_data() == data.tobytes()

    fresh = random_array(5000, np.uint8)
    done = []
    buf.upload_async(77, GLib.Bytes.new(fresh.tobytes()), stream, None,
                     lambda b, res, *a: done.append(b.upload_finish(res)))
    buf.upload_async(9000, fresh, None, None, lambda b, res, *a: done.append(b.upload_finish(res)))
    iterate_until(lambda: len(done) == 2)
    assert done == [True, True]
    expected = data.copy()
    expected[77:5077] = fresh
    expected[9000:14000] = fresh
    assert np.array_equal(device_bytes(buf), expected)

    # errors come through the finish functions
    results.clear()
    buf.download_async(n, 1, None, None, on_download)
    iterate_until(lambda: results)
    assert isinstance(results[0], GCuda.LogicError)
    assert results[0].code == int(GCuda.Error.OUT_OF_BOUNDS)
    results.clear()
    buf.download_async(0, 10, GCuda.Stream(context=dedicated), None, on_download)
    iterate_until(lambda: results)
    assert isinstance(results[0], GCuda.LogicError)
    assert results[0].code == int(GCuda.Error.CONTEXT_MISMATCH)


def test_asyncio():
    n = MiB + 3
    data = random_array(n, np.uint8)
    buf = GCuda.to_device(data)
    stream = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)

    async def main():
        got = await asyncio.wait_for(buf.download_async(), 30)
        assert isinstance(got, GLib.Bytes) and got.get_data() == data.tobytes()
        got = await asyncio.wait_for(buf.download_async(100, 1000, stream), 30)
        assert got.get_data() == data[100:1100].tobytes()

        fresh = random_array(n, np.uint8)
        assert await asyncio.wait_for(buf.upload_async(0, fresh, stream), 30) is True
        assert np.array_equal(device_bytes(buf), fresh)

        # several at once, in order on one stream
        parts = [random_array(1000, np.uint8) for _ in range(8)]
        uploads = [buf.upload_async(i * 1000, part, stream) for i, part in enumerate(parts)]
        assert await asyncio.wait_for(asyncio.gather(*uploads), 30) == [True] * 8
        downloads = [buf.download_async(i * 1000, 1000, stream) for i in range(8)]
        for part, got in zip(parts, await asyncio.wait_for(asyncio.gather(*downloads), 30)):
            assert got.get_data() == part.tobytes()

        with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
            await asyncio.wait_for(buf.download_async(n - 1, 2), 30)
        with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
            await asyncio.wait_for(buf.upload_async(n, b'x'), 30)
        dead = GCuda.mem_alloc(10)
        dead.free()
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            await asyncio.wait_for(dead.download_async(), 30)

    asyncio.run(main())


# ---------------------------------------------------------------- bad input

def test_bad_sizes(ctx):
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.mem_alloc(0)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Buffer.new(None, 0)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.to_device(b'')
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.to_device(np.empty(0))
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Buffer.new_managed(None, 0, GCuda.MemAttachFlags.GLOBAL)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.HostBuffer.new_pagelocked(None, 0, GCuda.HostAllocFlags.DEFAULT)
    for args in ((0, 10, 4), (10, 0, 4), (10, 10, 3), (10, 10, 0), (10, 10, 32)):
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            GCuda.mem_alloc_pitch(*args)
    # negative and too wide for a guint64: PyGObject's OverflowError
    for size in (-1, -2**63, 2**64):
        with pytest.raises(OverflowError):
            GCuda.mem_alloc(size)
        with pytest.raises(OverflowError):
            GCuda.Buffer.new_managed(None, size, GCuda.MemAttachFlags.GLOBAL)
    with pytest.raises(TypeError):
        GCuda.mem_alloc(1.0)
    with pytest.raises(ValueError):
        GCuda.pagelocked_empty(-1, np.uint8)
    with pytest.raises(ValueError):
        GCuda.from_device(GCuda.mem_alloc(8), (-1, 2), np.uint8)
    # more than any device has: the memory category
    with raises_gerror(GCuda.DriverError.OUT_OF_MEMORY, GCuda.MemoryError):
        GCuda.mem_alloc(2**64 - 1)
    with raises_gerror(GCuda.DriverError.OUT_OF_MEMORY, GCuda.MemoryError):
        GCuda.mem_alloc(ctx.get_device().total_memory() * 2)
    # and allocating still works
    assert GCuda.mem_alloc(MiB).get_size() == MiB


def test_out_of_bounds():
    n = 4096
    buf = GCuda.to_device(random_array(n, np.uint8))
    big = random_array(n + 1, np.uint8)
    host = np.empty(n + 1, np.uint8)

    # views
    for offset, size in ((n, 1), (0, n + 1), (1, n), (n + 1, 1), (2**64 - 1, 1), (1, 2**64 - 1),
                         (2**63, 2**63), (n - 1, 2)):
        with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
            buf.new_view(offset, size)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        buf.new_view(0, 0)
    with pytest.raises(OverflowError):
        buf.new_view(-1, 10)
    view = buf.new_view(100, 100)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        view.new_view(1, 100)  # a view's bounds are its own

    # copies
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memcpy_htod(buf, big)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memcpy_htod(view, big[:101])
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memcpy_htod_async(buf, big)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memcpy_dtoh(host, buf)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memcpy_dtoh_async(host, buf)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.from_device(buf, n + 1, np.uint8)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.from_device(buf, n // 4 + 1, np.float32)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memcpy_dtod(buf, GCuda.mem_alloc(n + 1), n + 1)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memcpy_dtod_async(GCuda.mem_alloc(n + 1), buf, n + 1)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        buf.upload_from_address(n - 1, address(big), 2)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        buf.download_to_address(2**64 - 1, address(host), 1)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        buf.download(1, 2**64 - 1)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        buf.copy_from(0, buf, 2**64 - 1, 2)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        buf.copy_from(2**63, buf, 0, 2**63)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        buf.upload_bytes(n, GLib.Bytes.new(b'x'))
    with pytest.raises(OverflowError):
        buf.download(-1, 1)
    with pytest.raises(OverflowError):
        buf.copy_from(0, buf, -5, 1)


def test_free_under_live_arrays():
    # free() retires page-locked and managed memory at once (every GCuda
    # call on it is FREED) but releases it after the last array or
    # memoryview over it: writing them stays safe (64 MiB: a release would
    # unmap it, and a write fault at once)
    size = 64 * MiB
    pinned = GCuda.pagelocked_empty(size, np.uint8)
    pinned_view = pinned.base.as_buffer()
    managed = GCuda.managed_empty(size, np.uint8)
    managed_view = GCuda.get_buffer(managed).new_view(MiB, MiB).as_array()
    pool = GCuda.PageLockedMemoryPool()
    pool.stop_holding()
    pooled = pool.allocate(size, np.uint8)
    owners = [pinned.base, managed.base, pooled.base]
    gone = [Finalized(o) for o in owners[:2]]
    for o in owners:
        o.free()
        assert o.is_freed()
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            o.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        pinned.base.read(0, 1)
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        managed.base.download(0, 1)
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        pinned.base.as_array()
    assert pool.active_blocks == 1  # not back until the array goes
    for a in (pinned, managed, pooled, managed_view):
        a[:] = 5
        assert a[0] == a[-1] == 5
    pinned_view[-1] = 6
    assert pinned[-1] == 6
    del owners, o, a, pinned, pooled, managed
    gc.collect()
    assert pool.active_blocks == 0 and pool.managed_bytes == 0
    assert not gone[0] and not gone[1]  # pinned_view, managed_view
    del pinned_view, managed_view
    assert gone[0] and gone[1]


def test_destroy_under_live_arrays(dev):
    # the context is retired at once, destroyed after the last array
    # or memoryview over its memory
    c = dev.create_context(GCuda.ContextFlags.SCHED_AUTO)
    pinned = GCuda.pagelocked_empty(64 * MiB, np.uint8, context=c)
    managed = GCuda.managed_empty(64 * MiB, np.uint8, context=c)
    c.destroy()
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        pinned.base.read(0, 1)
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        managed.base.as_array()
    pinned[:] = 1
    managed[:] = 2
    assert pinned[-1] == 1 and managed[-1] == 2


def test_use_after_free():
    data = random_array(4096, np.uint8)
    buf = GCuda.to_device(data)
    view = buf.new_view(10, 100)
    inner = view.new_view(5, 10)
    other = GCuda.mem_alloc(4096)
    host = np.empty(4096, np.uint8)
    stream = GCuda.Stream()

    # freeing a view only retires the view
    retired = buf.new_view(0, 10)
    retired.free()
    assert retired.is_freed() and not buf.is_freed()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        GCuda.from_device(retired, 10, np.uint8)
    assert np.array_equal(GCuda.from_device(buf, 4096, np.uint8), data)

    buf.free()
    for b in (buf, view, inner):
        assert b.is_freed()
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            GCuda.from_device(b, 1, np.uint8)
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            GCuda.memcpy_htod(b, data[:1])
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            GCuda.memcpy_htod_async(b, data[:1], stream)
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            GCuda.memcpy_dtoh(host[:1], b)
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            GCuda.memcpy_dtoh_async(host[:1], b, stream)
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            GCuda.memcpy_dtod(other, b, 1)
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            GCuda.memcpy_dtod(b, other, 1)
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            GCuda.memset_d8(b, 1, 1)
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            GCuda.memset_d2d32_async(b, 4, 1, 1, 1, stream)
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            b.new_view(0, 1)
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            b.download(0, 0)
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            b.get_ipc_handle()
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            b.free()  # twice: an error
    # the buffer being free, other uses still work
    GCuda.memcpy_htod(other, data)
    assert np.array_equal(GCuda.from_device(other, 4096, np.uint8), data)


def test_stream_of_another_context(dedicated):
    buf = GCuda.to_device(random_array(4096, np.uint8))
    host = np.empty(4096, np.uint8)
    foreign = GCuda.Stream(context=dedicated)
    calls = [
        lambda: GCuda.memcpy_htod_async(buf, host, foreign),
        lambda: GCuda.memcpy_dtoh_async(host, buf, foreign),
        lambda: GCuda.memcpy_dtod_async(buf, GCuda.mem_alloc(10), 10, foreign),
        lambda: GCuda.memset_d8_async(buf, 1, 10, foreign),
        lambda: GCuda.memset_d16_async(buf, 1, 10, foreign),
        lambda: GCuda.memset_d32_async(buf, 1, 10, foreign),
        lambda: GCuda.memset_d2d8_async(buf, 64, 1, 10, 2, foreign),
        lambda: GCuda.memset_d2d16_async(buf, 64, 1, 10, 2, foreign),
        lambda: GCuda.memset_d2d32_async(buf, 64, 1, 10, 2, foreign),
        lambda: buf.upload_from_address_on_stream(0, address(host), 10, foreign),
        lambda: buf.download_to_address_on_stream(0, address(host), 10, foreign),
    ]
    for call in calls:
        with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
            call()
    del foreign
    gc.collect()


def test_type_errors():
    buf = GCuda.mem_alloc(16)
    # integer device addresses work as in PyCUDA: test_foreign_memory.py
    with pytest.raises(TypeError):
        GCuda.memcpy_htod('0x1000', b'x')
    with pytest.raises(TypeError):
        GCuda.memcpy_htod(buf, object())
    with pytest.raises(TypeError):
        GCuda.memcpy_htod(buf, 'text')
    with pytest.raises(TypeError):
        GCuda.to_device(np.array([object()]))
    with pytest.raises(TypeError):
        GCuda.from_device(buf, 1, object)


# ---------------------------------------------------------------- gcuda.driver

def test_pycuda_names():
    import gcuda.driver as cuda
    assert cuda.DeviceAllocation is GCuda.Buffer
    assert cuda.PagelockedHostAllocation is GCuda.HostBuffer
    assert cuda.host_alloc_flags is GCuda.HostAllocFlags
    assert cuda.mem_attach_flags is GCuda.MemAttachFlags
    assert cuda.mem_host_register_flags is GCuda.HostRegisterFlags

    a = random_array((40, 30), np.float32)
    a_gpu = cuda.mem_alloc(a.nbytes)
    cuda.memcpy_htod(a_gpu, a)
    b = np.empty_like(a)
    cuda.memcpy_dtoh(b, a_gpu)
    assert np.array_equal(a, b)
    assert np.array_equal(cuda.from_device_like(cuda.to_device(a), a), a)

    stream = cuda.Stream()
    pinned = cuda.pagelocked_empty(a.shape, a.dtype, mem_flags=cuda.host_alloc_flags.PORTABLE)
    cuda.memcpy_dtoh_async(pinned, a_gpu, stream)
    stream.synchronize()
    assert np.array_equal(pinned, a)
    value = random_value(32)
    cuda.memset_d32(a_gpu, value, a.size)
    assert np.array_equal(cuda.from_device(a_gpu, a.shape, np.uint32), np.full(a.shape, value, np.uint32))
    free, total = cuda.mem_get_info()
    assert 0 < free <= total
    managed = cuda.managed_zeros(10, np.float32, mem_flags=cuda.mem_attach_flags.GLOBAL)
    assert isinstance(managed.base, cuda.ManagedAllocation)
    aligned = cuda.aligned_zeros(4096, np.uint8)
    registered = cuda.register_host_memory(aligned)
    assert isinstance(registered.base, cuda.RegisteredHostMemory)
    registered.base.unregister()
