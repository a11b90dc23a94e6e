# Aligned host memory in Python: GCuda.aligned_empty/zeros/_like and
# GCuda.HostBuffer's numpy and memoryview mappings. None of this needs the
# driver: meson runs this file with an unloadable one
# (GCUDA_TEST_DRIVER=missing), and then also checks that the functions which
# do need it say so.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gc
import os

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

DTYPES = [np.uint8, np.int16, np.uint32, np.float32, np.float64, np.complex128, np.bool_, 'S3',
          np.dtype([('a', np.int8), ('b', np.float64)]), np.dtype([('a', np.int8), ('b', np.float64)], align=True)]


def random_fill(ary):
    """Fresh random bytes into @ary, through its memory (any dtype)."""
    rng = np.random.default_rng()
    flat = ary.reshape(-1, order='A').view(np.uint8)
    flat[...] = rng.integers(0, 256, flat.size, dtype=np.uint8)
    if ary.nbytes >= 16:
        assert flat.any()


def address(ary):
    return ary.__array_interface__['data'][0]


class Finalized:
    def __init__(self, obj):
        self.done = []
        self._ref = obj.weak_ref(lambda *a: self.done.append(True))

    def __bool__(self):
        gc.collect()
        return bool(self.done)


@pytest.mark.parametrize('dtype', DTYPES, ids=str)
@pytest.mark.parametrize('order', ['C', 'F'])
@pytest.mark.parametrize('shape', [1, 7, (3, 5), (2, 3, 4), (4097,)], ids=str)
def test_aligned_empty(shape, dtype, order):
    ary = GCuda.aligned_empty(shape, dtype, order=order)
    expected = np.empty(shape, dtype, order=order)
    assert ary.shape == expected.shape
    assert ary.dtype == expected.dtype
    assert ary.strides == expected.strides
    assert ary.flags.writeable
    assert ary.flags.c_contiguous == expected.flags.c_contiguous
    assert ary.flags.f_contiguous == expected.flags.f_contiguous
    assert address(ary) % 4096 == 0

    hb = GCuda.get_host_buffer(ary)
    assert isinstance(hb, GCuda.HostBuffer)
    assert hb.get_kind() == GCuda.HostBufferKind.ALIGNED
    assert hb.get_context() is None
    assert hb.get_flags() == 0
    assert hb.get_address() == int(hb) == address(ary)
    assert hb.get_size() == len(hb) >= ary.nbytes
    if np.dtype(dtype).fields is None or not np.dtype(dtype).isalignedstruct:
        assert ary.base is hb  # PyCUDA: .base is the allocation

    # the array is the memory: what numpy writes, the host buffer holds
    random_fill(ary)
    raw = hb.read(0, ary.nbytes).get_data()
    assert raw == ary.tobytes(order='A')


@pytest.mark.parametrize('alignment', [8, 16, 64, 256, 4096, 1 << 16, 1 << 21])
def test_alignment(alignment):
    for _ in range(4):
        ary = GCuda.aligned_empty(100, np.uint8, alignment=alignment)
        assert address(ary) % alignment == 0
        random_fill(ary)


@pytest.mark.parametrize('alignment', [0, 1, 2, 3, 4, 12, 4095, 3 << 12])
def test_bad_alignment(alignment):
    if alignment == 0:
        # 0 is the page size in C
        ary = GCuda.aligned_empty(10, np.uint8, alignment=0)
        assert address(ary) % os.sysconf('SC_PAGESIZE') == 0
        return
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.aligned_empty(10, np.uint8, alignment=alignment)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.aligned_zeros(10, np.uint8, alignment=alignment)


def test_bad_shape_dtype():
    with pytest.raises(ValueError):
        GCuda.aligned_empty((3, -1), np.float32)
    with pytest.raises(ValueError):
        GCuda.aligned_empty(-1, np.float32)
    with pytest.raises(TypeError):
        GCuda.aligned_empty(3, object)
    with pytest.raises(TypeError):
        GCuda.aligned_empty(3, np.dtype([('a', object)]))
    with pytest.raises(ValueError):
        GCuda.aligned_empty(3, np.float32, order='K')
    with pytest.raises(OverflowError):  # as PyGObject says for a negative guint64
        GCuda.aligned_empty(3, np.float32, alignment=-4096)
    with pytest.raises(TypeError):
        GCuda.aligned_empty(3.0, np.float32)


def test_aligned_zeros():
    for order in 'CF':
        for _ in range(3):
            # dirty memory first, so that zeros has something to clear
            dirty = GCuda.aligned_empty((64, 33), np.float64, order=order)
            random_fill(dirty)
            del dirty
            z = GCuda.aligned_zeros((64, 33), np.float64, order=order)
            assert not z.any()
            assert z.flags.f_contiguous == (order == 'F')


def test_like():
    rng = np.random.default_rng()
    for src in (rng.random((5, 6)), np.asfortranarray(rng.random((5, 6))),
                rng.integers(0, 100, (3, 4, 5), dtype=np.int16)[:, ::2],
                np.arange(7, dtype=np.complex64)):
        for fn in (GCuda.aligned_empty_like, GCuda.aligned_zeros_like):
            ary = fn(src)
            assert ary.shape == src.shape and ary.dtype == src.dtype
            order = 'F' if src.flags.f_contiguous and not src.flags.c_contiguous else 'C'
            assert ary.flags[order + '_CONTIGUOUS']
            if fn is GCuda.aligned_zeros_like:
                assert not ary.any()
            ary[...] = src
            assert np.array_equal(ary, src)
            assert isinstance(GCuda.get_host_buffer(ary), GCuda.HostBuffer)
    ary = GCuda.aligned_zeros_like(np.ones((2, 2)), alignment=1 << 16)
    assert address(ary) % (1 << 16) == 0


def test_zero_size():
    for shape in (0, (0,), (3, 0), (0, 5, 2)):
        ary = GCuda.aligned_empty(shape, np.float32)
        assert ary.shape == np.empty(shape).shape
        assert ary.size == 0
        assert isinstance(ary.base, GCuda.HostBuffer)
        z = GCuda.aligned_zeros(shape, np.float32, order='F')
        assert z.size == 0


def test_subarray_dtype():
    ary = GCuda.aligned_zeros(4, (np.float32, 3))
    assert ary.shape == (4, 3) and ary.dtype == np.float32
    assert ary.shape == np.zeros(4, (np.float32, 3)).shape


def test_host_buffer_views():
    rng = np.random.default_rng()
    data = rng.integers(0, 256, 8192, dtype=np.uint8)
    hb = GCuda.HostBuffer.new_aligned(8192, 0)
    assert repr(hb).startswith('<GCuda.HostBuffer aligned, 8192 bytes at 0x')

    whole = np.asarray(hb)  # its bytes
    assert whole.shape == (8192,) and whole.dtype == np.uint8 and whole.base is hb
    whole[:] = data
    assert hb.read(0, 8192).get_data() == data.tobytes()

    a = hb.as_array((16, 64), np.float64)
    assert a.base is hb and address(a) == int(hb)
    assert np.array_equal(a.view(np.uint8).ravel(), data)
    b = hb.as_array(dtype=np.uint32, offset=4)
    assert b.shape == (2047,) and address(b) == int(hb) + 4
    assert np.array_equal(b.view(np.uint8), data[4:8192])
    f = hb.as_array((8, 4), np.int32, order='F', offset=64)
    assert f.flags.f_contiguous and np.array_equal(f.ravel(order='F').view(np.uint8), data[64:64 + 128])

    m = hb.as_buffer(100, 10)
    assert isinstance(m, memoryview) and m.format == 'B' and m.nbytes == 100 and not m.readonly
    assert m.tobytes() == data[10:110].tobytes()
    fresh = rng.integers(0, 256, 100, dtype=np.uint8)
    m[:] = fresh.tobytes()
    assert np.array_equal(whole[10:110], fresh)
    assert hb.as_buffer().nbytes == 8192
    assert hb.as_buffer(offset=8000).nbytes == 192
    assert hb.as_buffer(8192, 0).nbytes == 8192
    assert hb.as_buffer(0, 8192).nbytes == 0
    assert hb.as_buffer(0, 0).nbytes == 0
    assert GCuda.get_host_buffer(m) is hb
    assert GCuda.get_buffer(m) is None

    more = rng.integers(0, 256, 50, dtype=np.uint8).tobytes()
    hb.write(1000, GLib.Bytes.new(more))
    assert whole[1000:1050].tobytes() == more

    for off, size in ((0, 8193), (8192, 1), (8193, 0), (1, 8192), (1 << 63, 1 << 63)):
        with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
            hb.as_buffer(size, off)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        hb.as_array(1025, np.float64)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        hb.as_array(1024, np.float64, offset=1)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        hb.as_array(offset=8193)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        hb.read(8000, 193)
    for bad in (dict(size=-1), dict(offset=-1)):
        with pytest.raises(OverflowError):
            hb.as_buffer(**bad)
    with pytest.raises(OverflowError):
        hb.read(-1, 1)  # PyGObject's check of a guint64
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        hb.get_device_pointer()  # aligned memory is not mapped for the device


def test_get_host_buffer_chain():
    ary = GCuda.aligned_empty((10, 10), np.float32)
    hb = ary.base
    for view in (ary[2:, 3], ary.T, ary.view(np.uint8)[::3], ary.reshape(100)[5:], memoryview(ary)):
        assert GCuda.get_host_buffer(view) is hb
        assert GCuda.get_buffer(view) is None
    assert GCuda.get_host_buffer(np.zeros(3)) is None
    assert GCuda.get_host_buffer(np.zeros(3)[1:]) is None
    assert GCuda.get_host_buffer(b'abc') is None
    assert GCuda.get_host_buffer(None) is None


def test_keep_alive():
    rng = np.random.default_rng()
    ary = GCuda.aligned_empty(1 << 20, np.uint8)
    data = rng.integers(0, 256, 1 << 20, dtype=np.uint8)
    ary[:] = data
    gone = Finalized(ary.base)
    tail = ary[1000:]
    mv = ary.base.as_buffer(10, 5)
    del ary
    gc.collect()
    # the views hold the host buffer: its memory is still there
    assert not gone
    assert np.array_equal(tail, data[1000:])
    del tail
    assert not gone
    assert mv.tobytes() == data[5:15].tobytes()
    del mv
    assert gone


def test_free():
    ary = GCuda.aligned_empty(4096, np.uint8)
    hb = GCuda.get_host_buffer(ary)
    del ary  # not to be touched once freed
    assert not hb.is_freed()
    hb.free()
    assert hb.is_freed()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        hb.free()  # twice: an error, as in PyCUDA
    assert repr(hb).endswith(', freed>')
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        hb.read(0, 1)
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        hb.write(0, GLib.Bytes.new(b'x'))
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        hb.as_buffer(1)
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        hb.as_array()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        hb.unregister()
    # numpy no longer maps it
    assert np.asarray(hb).dtype == object


def test_free_under_live_views():
    # free() retires the host buffer at once (every GCuda call on it is
    # FREED) but the arrays and memoryviews over it keep its memory, which
    # goes with the object, after the last of them
    rng = np.random.default_rng()
    data = rng.integers(0, 256, 1 << 20, dtype=np.uint8)
    ary = GCuda.aligned_empty(1 << 20, np.uint8)
    ary[:] = data
    hb = ary.base
    gone = Finalized(hb)
    tail = ary[1000:]
    mv = hb.as_buffer(10, 5)
    whole = np.asarray(hb)  # numpy's own mapping, through __array_interface__
    assert whole.base is hb
    hb.free()
    assert hb.is_freed() and ary.base is hb
    for call in (lambda: hb.read(0, 1), lambda: hb.write(0, GLib.Bytes.new(b'x')), hb.as_buffer, hb.as_array,
                 hb.free, hb.export_begin):
        with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
            call()
    del call  # it holds hb
    assert np.asarray(hb).dtype == object  # no new mapping
    # the old ones are still the memory's
    assert np.array_equal(ary, data) and mv.tobytes() == data[5:15].tobytes()
    ary[:] = 7
    assert tail[0] == 7 and mv[0] == 7 and whole[-1] == 7
    del ary, hb, tail, mv
    assert not gone
    whole[:] = 8
    del whole
    assert gone


def test_free_without_views():
    # nothing was mapped: free() releases at once, as ever
    hb = GCuda.HostBuffer.new_aligned(4096, 0)
    gone = Finalized(hb)
    hb.write(0, GLib.Bytes.new(b'abc'))
    hb.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        hb.read(0, 1)
    del hb
    assert gone


def test_export_calls():
    # the C API's exports, which the override makes for its views
    hb = GCuda.HostBuffer.new_aligned(4096, 0)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        hb.export_end()  # no export to end
    hb.export_begin()
    hb.export_begin()
    hb.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        hb.export_begin()
    hb.export_end()
    hb.export_end()  # the memory goes here
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        hb.export_end()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.HostBuffer().export_begin()  # no memory behind it


def test_zero_bytes_host_buffer():
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.HostBuffer.new_aligned(0, 0)
    with pytest.raises(OverflowError):
        GCuda.HostBuffer.new_aligned(-1, 0)


def test_driver_functions_without_driver():
    """With the driver unloadable (meson's run), the functions that need it
    fail cleanly while the aligned ones above worked."""
    if os.environ.get('GCUDA_TEST_DRIVER') != 'missing':
        # with a driver present there is nothing to check here
        return
    with raises_gerror(GCuda.Error.DRIVER_NOT_FOUND, GCuda.RuntimeError):
        GCuda.pagelocked_empty(10, np.float32)
    with raises_gerror(GCuda.Error.DRIVER_NOT_FOUND, GCuda.RuntimeError):
        GCuda.managed_empty(10, np.float32)
    with raises_gerror(GCuda.Error.DRIVER_NOT_FOUND, GCuda.RuntimeError):
        GCuda.mem_alloc(10)
    with raises_gerror(GCuda.Error.DRIVER_NOT_FOUND, GCuda.RuntimeError):
        GCuda.to_device(np.arange(4))
    ary = GCuda.aligned_empty(4096, np.uint8)
    with raises_gerror(GCuda.Error.DRIVER_NOT_FOUND, GCuda.RuntimeError):
        GCuda.register_host_memory(ary)
    # no driver call is made for input that is wrong anyway
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.register_host_memory(ary[1:])
