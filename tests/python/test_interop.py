# GCuda with CuPy and PyTorch in one process: device memory both ways
# without copies (__cuda_array_interface__, DLPack), lifetimes, streams,
# and kernels of one library run on the memory of another. Every result is
# compared with numpy on random data.
#
# Runs under the GPU host's Python 3.12 (python3.12-gi: see
# ../shared/gpu/README.md, fetch-runtime --with-py312), which has CuPy and
# PyTorch; meson runs it with GCUDA_PYTHON_ONLY=python3.12-gi. Without CuPy
# or PyTorch the tests that need them are skipped, or failed under
# GCUDA_TEST_REQUIRE_GPU=1. GCuda's default context is the device's primary
# context, the one CuPy and PyTorch use.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gc
import os

import numpy as np
import pytest

from gcudatest import GCuda, gpu, raises_gerror

rng = np.random.default_rng()


def gpu_required():
    return os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1'


def _library(name):
    try:
        return __import__(name)
    except ImportError as e:
        reason = '%s is not installed in this Python (%s)' % (name, e)
        if gpu_required():
            pytest.fail('GCUDA_TEST_REQUIRE_GPU=1 but ' + reason, pytrace=False)
        pytest.skip(reason)


@pytest.fixture(autouse=True)
def _no_context_left_current():
    """Replaces conftest.py's check: CuPy and PyTorch go through the CUDA
    runtime, which leaves the primary context current on the thread (as it
    should), so that check does not apply to this file."""
    yield


@pytest.fixture
def cupy():
    return _library('cupy')


@pytest.fixture
def torch():
    torch = _library('torch')
    if not torch.cuda.is_available():
        reason = 'PyTorch sees no CUDA device'
        if gpu_required():
            pytest.fail('GCUDA_TEST_REQUIRE_GPU=1 but ' + reason, pytrace=False)
        pytest.skip(reason)
    return torch


def random_array(shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == 'f':
        return rng.standard_normal(shape).astype(dtype)
    if dtype.kind == 'c':
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind == 'b':
        return rng.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, endpoint=True).astype(dtype)


def on_device(host):
    """A GCuda buffer holding @host (its memory order) and a DeviceView of it."""
    order = 'F' if host.flags.f_contiguous and not host.flags.c_contiguous else 'C'
    buf = GCuda.to_device(host)
    return buf, buf.device_view(host.shape, host.dtype, order=order)


LAYOUTS = [
    (np.float32, (1000,), 'C'),
    (np.float64, (17, 33), 'C'),
    (np.int32, (8, 9, 10), 'F'),
    (np.int16, (64, 3), 'C'),
    (np.complex64, (12, 5), 'F'),
    (np.uint8, (257,), 'C'),
    (np.bool_, (31, 2), 'C'),
]


# ---------------------------------------------------------------- GCuda -> CuPy, PyTorch

@gpu
@pytest.mark.parametrize('dtype,shape,order', LAYOUTS)
def test_cupy_reads_gcuda(cupy, dtype, shape, order):
    host = np.asarray(random_array(shape, dtype), order=order)
    buf, view = on_device(host)
    by_cai = cupy.asarray(view)
    assert by_cai.data.ptr == view.ptr  # shared, not copied
    assert by_cai.shape == host.shape and by_cai.dtype == host.dtype
    assert (cupy.asnumpy(by_cai) == host).all()
    by_dlpack = cupy.from_dlpack(view)
    assert by_dlpack.data.ptr == view.ptr
    assert (cupy.asnumpy(by_dlpack) == host).all()
    # the flat bytes of the buffer itself
    flat = cupy.asarray(buf)
    assert flat.dtype == np.uint8 and flat.size == host.nbytes
    assert (cupy.asnumpy(flat) == np.frombuffer(host.tobytes(order='A'), np.uint8)).all()
    # CuPy writes, GCuda reads
    if dtype is np.bool_:
        by_cai[...] = ~by_cai
        expect = ~host
    else:
        by_cai *= 2
        expect = host * 2
    assert (view.get() == expect).all()


@gpu
@pytest.mark.parametrize('dtype,shape,order', [layout for layout in LAYOUTS if layout[0] is not np.complex64] +
                         [(np.complex64, (12, 5), 'C')])
def test_torch_reads_gcuda(torch, dtype, shape, order):
    host = np.asarray(random_array(shape, dtype), order=order)
    buf, view = on_device(host)
    if dtype is not np.int16 and dtype is not np.complex64:  # as_tensor's CAI import knows fewer types
        by_cai = torch.as_tensor(view, device='cuda')
        assert by_cai.data_ptr() == view.ptr
        assert (by_cai.cpu().numpy() == host).all()
    by_dlpack = torch.from_dlpack(view)
    assert by_dlpack.data_ptr() == view.ptr
    assert tuple(by_dlpack.shape) == host.shape and tuple(by_dlpack.stride()) == tuple(
        s // host.itemsize for s in host.strides)
    assert (by_dlpack.cpu().numpy() == host).all()
    flat = torch.from_dlpack(buf)
    assert flat.dtype == torch.uint8 and flat.numel() == host.nbytes


@gpu
def test_strided_views_exported(cupy, torch):
    """Non-contiguous views: every other column, a reversed axis (CAI only:
    DLPack consumers may refuse negative strides)."""
    host = random_array((16, 24), np.float32)
    buf, _ = on_device(host)
    every_other = buf.device_view((16, 12), np.float32, strides=(96, 8))
    assert (cupy.asnumpy(cupy.asarray(every_other)) == host[:, ::2]).all()
    assert (torch.from_dlpack(every_other).cpu().numpy() == host[:, ::2]).all()
    assert (cupy.asnumpy(cupy.from_dlpack(every_other)) == host[:, ::2]).all()
    reversed_rows = buf.device_view((16, 24), np.float32, offset=15 * 96, strides=(-96, 4))
    assert (cupy.asnumpy(cupy.asarray(reversed_rows)) == host[::-1]).all()


# ---------------------------------------------------------------- CuPy, PyTorch -> GCuda

@gpu
@pytest.mark.parametrize('dtype,shape', [(np.float32, (300,)), (np.int64, (7, 11)), (np.uint8, (4, 4, 4))])
def test_gcuda_reads_and_writes_cupy(cupy, dtype, shape):
    host = random_array(shape, dtype)
    c = cupy.asarray(host)
    borrowed = GCuda.Buffer.from_foreign(c)
    assert int(borrowed) == c.data.ptr and len(borrowed) == c.nbytes
    assert borrowed.get_kind() == GCuda.BufferKind.FOREIGN
    assert (GCuda.from_device(borrowed, shape, dtype) == host).all()
    assert (GCuda.from_device(c, shape, dtype) == host).all()
    assert (GCuda.from_device_like(c, c) == host).all()
    out = np.empty_like(host)
    GCuda.memcpy_dtoh(out, c)
    assert (out == host).all()
    new = random_array(shape, dtype)
    GCuda.memcpy_htod(c, new)
    assert (cupy.asnumpy(c) == new).all()
    copy = GCuda.to_device(c)
    assert int(copy) != c.data.ptr
    assert (GCuda.from_device(copy, shape, dtype) == new).all()
    # device to device, both ways, and an integer address
    other = cupy.zeros_like(c)
    GCuda.memcpy_dtod(other, copy, c.nbytes)
    assert (cupy.asnumpy(other) == new).all()
    GCuda.memset_d8(other.data.ptr, 0, other.nbytes)
    assert not cupy.asnumpy(other).any()


@gpu
def test_gcuda_cupy_non_contiguous(cupy):
    host = random_array((10, 12), np.float32)
    c = cupy.asarray(host)[:, ::3]
    borrowed = GCuda.Buffer.from_foreign(c)  # the bytes the view reaches
    assert int(borrowed) == c.data.ptr and len(borrowed) == (9 * 48 + 9 * 4 + 4)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_dtoh(np.empty((10, 4), np.float32), c)


@gpu
@pytest.mark.parametrize('dtype', [np.float32, np.int32, np.float64, np.uint8])
def test_gcuda_reads_and_writes_torch(torch, dtype):
    host = random_array((33, 17), dtype)
    t = torch.from_numpy(host).cuda()
    borrowed = GCuda.Buffer.from_foreign(t)
    assert int(borrowed) == t.data_ptr() and len(borrowed) == host.nbytes
    assert (GCuda.from_device(t, host.shape, host.dtype) == host).all()
    assert (GCuda.from_device_like(borrowed, host) == host).all()
    new = random_array((33, 17), dtype)
    GCuda.memcpy_htod(t, new)
    assert (t.cpu().numpy() == new).all()
    # a slice is an address inside torch's allocation
    row = t[5]
    assert (GCuda.from_device(row, 17, dtype) == new[5]).all()
    GCuda.memset_d8(row, 0, row.numel() * row.element_size())
    new[5] = 0
    assert (t.cpu().numpy() == new).all()


# ---------------------------------------------------------------- lifetimes

@gpu
def test_gcuda_producer_dropped_first(cupy, torch):
    host = random_array((1 << 16,), np.float32)
    buf, view = on_device(host)
    c = cupy.asarray(view)
    t = torch.from_dlpack(buf.device_view(host.shape, host.dtype))
    buf.free()  # retired for GCuda, but the consumers still hold it
    del buf, view
    gc.collect()
    junk = [GCuda.mem_alloc(host.nbytes) for _ in range(4)]  # would reuse freed memory
    for j in junk:
        GCuda.memset_d8(j, 0xFF, host.nbytes)
    assert (cupy.asnumpy(c) == host).all()
    assert (t.cpu().numpy() == host).all()
    del c, t
    gc.collect()


@gpu
def test_foreign_producer_dropped_first(cupy, torch):
    host = random_array((1 << 16,), np.float64)
    c = cupy.asarray(host)
    from_cupy = GCuda.Buffer.from_foreign(c)
    t = torch.from_numpy(host).cuda()
    from_torch = GCuda.Buffer.from_foreign(t)
    del c, t
    gc.collect()
    cupy.get_default_memory_pool().free_all_blocks()
    torch.cuda.empty_cache()
    junk_c = cupy.full(host.size, -1.0)
    junk_t = torch.full((host.size,), -1.0, device='cuda', dtype=torch.float64)
    assert (GCuda.from_device(from_cupy, host.shape, host.dtype) == host).all()
    assert (GCuda.from_device(from_torch, host.shape, host.dtype) == host).all()
    del junk_c, junk_t


# ---------------------------------------------------------------- streams

@gpu
def test_gcuda_stream_work_seen_by_cupy(cupy):
    n = 16 << 20
    stream = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    buf = GCuda.mem_alloc(n * 4)
    GCuda.memset_d32(buf, 0, n)
    for value in range(1, 6):  # queued work, still running when CuPy starts
        GCuda.memset_d32_async(buf, value, n, stream=stream)
    view = buf.device_view((n,), np.uint32)
    assert view.__cuda_array_interface__['stream'] == stream.get_handle()
    with cupy.cuda.Stream(non_blocking=True):
        c = cupy.asarray(view)  # CAI v3: CuPy waits for the stream named
        total = int(c.sum(dtype=cupy.uint64))
    assert total == 5 * n
    stream.synchronize()


@gpu
def test_gcuda_stream_work_seen_by_torch(torch):
    n = 16 << 20
    stream = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    buf = GCuda.mem_alloc(n * 4)
    GCuda.memset_d32(buf, 0, n)
    for value in range(1, 6):
        GCuda.memset_d32_async(buf, value, n, stream=stream)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        t = torch.from_dlpack(buf.device_view((n,), np.int32))  # DLPack: side waits for GCuda's stream
        total = int(t.sum(dtype=torch.int64).item())
    assert total == 5 * n
    stream.synchronize()


@gpu
def test_foreign_streams_in_gcuda(cupy, torch):
    data = random_array((1 << 20,), np.uint8)
    pinned = GCuda.pagelocked_empty(data.shape, data.dtype)
    pinned[:] = data
    buf = GCuda.mem_alloc(data.nbytes)
    cs = cupy.cuda.Stream(non_blocking=True)
    GCuda.memcpy_htod_async(buf, pinned, stream=cs)  # CuPy's stream, borrowed
    cs.synchronize()
    assert (GCuda.from_device(buf, data.shape, data.dtype) == data).all()
    ts = torch.cuda.Stream()
    back = GCuda.pagelocked_zeros(data.shape, data.dtype)
    GCuda.memcpy_dtoh_async(back, buf, stream=ts)
    ts.synchronize()
    assert (back == data).all()
    # the handles match, and GCuda's own stream goes the other way
    assert GCuda.Stream.from_foreign(cs).get_handle() == cs.ptr
    assert GCuda.Stream.from_foreign(ts).get_handle() == ts.cuda_stream
    gs = GCuda.Stream()
    ext = cupy.cuda.ExternalStream(gs.__cuda_stream__()[1])
    with ext:
        c = cupy.asarray(buf.device_view(data.shape, data.dtype))
        c += 1
    ext.synchronize()
    assert (GCuda.from_device(buf, data.shape, data.dtype) == data + 1).all()
    textern = torch.cuda.ExternalStream(int(gs))
    assert textern.cuda_stream == gs.get_handle()


# ---------------------------------------------------------------- kernels across libraries

SAXPY = r'''
__global__ void saxpy(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
'''


@gpu
def test_gcuda_kernel_on_torch_tensors(torch):
    n = 100_003
    x = random_array(n, np.float32)
    y = random_array(n, np.float32)
    tx = torch.from_numpy(x).cuda()
    ty = torch.from_numpy(y).cuda()
    torch.cuda.synchronize()
    f = GCuda.SourceModule(SAXPY).get_function('saxpy')
    f(GCuda.Buffer.from_foreign(ty), GCuda.Buffer.from_foreign(tx), np.float32(2.5), np.int32(n),
      block=(256, 1, 1), grid=((n + 255) // 256, 1))
    GCuda.Context.get_default().synchronize()
    # atol: the device fuses a*x+y (one rounding); where the sum nearly cancels numpy differs by an ulp of the terms
    np.testing.assert_allclose(ty.cpu().numpy(), 2.5 * x + y, rtol=1e-6, atol=1e-6)


@gpu
def test_torch_and_cupy_arrays_as_kernel_arguments(torch, cupy):
    """Foreign arrays passed straight to a GCuda kernel call and to
    prepared_call (their __cuda_array_interface__), on a torch stream."""
    n = 50_001
    x = random_array(n, np.float32)
    y = random_array(n, np.float32)
    tx = torch.from_numpy(x).cuda()
    cy = cupy.asarray(y)
    cupy.cuda.get_current_stream().synchronize()
    f = GCuda.SourceModule(SAXPY).get_function('saxpy')
    s = torch.cuda.Stream()
    stream = GCuda.Stream.from_foreign(s)
    f(cy, tx, np.float32(0.5), np.int32(n), block=(128, 1, 1), grid=((n + 127) // 128, 1), stream=stream)
    s.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(cy), 0.5 * x + y, rtol=1e-6, atol=1e-6)
    f.prepare('PPfi')
    f.prepared_call(((n + 127) // 128, 1), (128, 1, 1), tx, cy, np.float32(2.0), np.int32(n))
    GCuda.Context.get_default().synchronize()
    np.testing.assert_allclose(tx.cpu().numpy(), 2.0 * (0.5 * x + y) + x, rtol=1e-5, atol=1e-5)


@gpu
def test_cupy_kernel_on_gcuda_buffers(cupy):
    n = 100_003
    x = random_array(n, np.float32)
    y = random_array(n, np.float32)
    bx, vx = on_device(x)
    by, vy = on_device(y)
    kernel = cupy.RawKernel('extern "C" ' + SAXPY.strip(), 'saxpy')
    kernel(((n + 255) // 256,), (256,), (cupy.asarray(vy), cupy.asarray(vx), np.float32(-1.5), np.int32(n)))
    cupy.cuda.get_current_stream().synchronize()
    np.testing.assert_allclose(vy.get(), -1.5 * x + y, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(GCuda.from_device(by, n, np.float32), -1.5 * x + y, rtol=1e-6, atol=1e-6)
