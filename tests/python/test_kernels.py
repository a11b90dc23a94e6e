# Kernels from Python on a real GPU: PyCUDA's calling conventions
# (Function.__call__ with In/Out/InOut handlers, numpy scalars and structs,
# buffers, pointer offsets; prepare() and prepared_call/_async_call/
# _timed_call through the packed launch), SourceModule, module_from_buffer,
# __constant__ memory through get_global, static and dynamic shared memory,
# DynamicModule (dynamic parallelism, JIT linking with device printf),
# function attributes, occupancy, and bad input.
#
# Every result is checked against numpy on fresh random data. Faults that
# are sticky for a process (an illegal address) run in a child Python.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import json
import os
import subprocess
import sys
import textwrap

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

from gcuda import compiler, driver  # noqa: E402

pytestmark = pytest.mark.gpu

SOURCE = r'''
__global__ void multiply_them(float *dest, const float *a, const float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}

__global__ void add_one(float *dest, const float *src, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dest[i] = src[i] + 1.0f;
}

__global__ void twice(float *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] *= 2.0f;
}

__global__ void scale3(float *out, float3 v, float s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    {
      out[3 * i + 0] = v.x * s + i;
      out[3 * i + 1] = v.y * s - i;
      out[3 * i + 2] = v.z * s * i;
    }
}

/* c at 0, v at 4, d at 16, h at 24, out at 32 */
__global__ void mixed(char c, float3 v, double d, short h, double *out)
{
  out[0] = c;
  out[1] = v.x;
  out[2] = v.y;
  out[3] = v.z;
  out[4] = d;
  out[5] = h;
}

/* a 3-component grid; each block reverses its part through dynamic shared memory */
extern __shared__ float dyn[];
__global__ void reverse_blocks(float *out, const float *in, float f)
{
  int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int t = threadIdx.x;
  dyn[t] = in[block * blockDim.x + t];
  __syncthreads();
  out[block * blockDim.x + t] = dyn[blockDim.x - 1 - t] * f;
}

__constant__ float coeffs[16];
__global__ void apply_coeffs(float *out, const float *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * coeffs[i % 16];
}

__device__ int device_counter;

__global__ void big_shared(float *out, const float *in)
{
  __shared__ float buf[4000];  /* 16 000 bytes */
  for (int j = threadIdx.x; j < 4000; j += blockDim.x)
    buf[j] = in[j];
  __syncthreads();
  for (int j = threadIdx.x; j < 4000; j += blockDim.x)
    out[j] = buf[3999 - j] + 1.0f;
}

__global__ void store(unsigned *out, unsigned value)
{
  out[threadIdx.x] = value + threadIdx.x;
}

__global__ void cmul(float2 *out, float2 c, double2 z, int n)
{
  int i = threadIdx.x;
  if (i < n)
    {
      out[2 * i].x = c.x * i;
      out[2 * i].y = c.y * i;
      out[2 * i + 1].x = (float) z.x;
      out[2 * i + 1].y = (float) z.y;
    }
}

__global__ void no_params(void)
{
}
'''

FLOAT3 = np.dtype([('x', np.float32), ('y', np.float32), ('z', np.float32)])


def rng():
    return np.random.default_rng()  # fresh, unseeded: new data every run


def random_floats(n):
    return rng().uniform(-100, 100, n).astype(np.float32)


@pytest.fixture(scope='module')
def mod():
    return GCuda.SourceModule(SOURCE)


def run_child(body, timeout=120, env=None):
    """Runs @body in a fresh Python (stdout captured); returns the process."""
    prelude = textwrap.dedent('''
        import json, sys
        import numpy as np
        import gi
        gi.require_version('GCuda', '1.0')
        from gi.repository import GCuda
        from gcuda import compiler, driver
    ''')
    return subprocess.run([sys.executable, '-c', prelude + textwrap.dedent(body)], capture_output=True,
                          text=True, timeout=timeout, env=env)


# ---------------------------------------------------------------- plain calls

def test_multiply_them_with_handlers(mod):
    f = mod.get_function('multiply_them')
    a, b = random_floats(400), random_floats(400)
    dest = np.zeros_like(a)
    assert f(GCuda.Out(dest), GCuda.In(a), GCuda.In(b), block=(400, 1, 1), grid=(1, 1)) is None
    np.testing.assert_array_equal(dest, a * b)
    # the driver module's names are the same classes
    dest2 = np.zeros_like(a)
    f(driver.Out(dest2), driver.In(b), driver.In(a), block=(400, 1, 1))
    np.testing.assert_array_equal(dest2, b * a)


def test_inout_and_handlers_on_a_stream(mod):
    f = mod.get_function('twice')
    a = random_floats(1000)
    original = a.copy()
    f(GCuda.InOut(a), np.int32(a.size), block=(128, 1, 1), grid=(8, 1))
    np.testing.assert_array_equal(a, original * 2)
    stream = GCuda.Stream()
    f(GCuda.InOut(a), np.int32(a.size), block=(128, 1, 1), grid=(8, 1), stream=stream)
    # copies went on the stream and were waited for before returning
    np.testing.assert_array_equal(a, original * 4)
    # a handler's device memory is its own and can be reused
    h = GCuda.InOut(a)
    f(h, np.int32(a.size), block=(128, 1, 1), grid=(8, 1))
    f(h, np.int32(a.size), block=(128, 1, 1), grid=(8, 1))
    np.testing.assert_array_equal(a, original * 16)
    assert isinstance(h.get_device_alloc(), GCuda.Buffer)


def test_handlers_check_their_arrays():
    with pytest.raises(GCuda.LogicError):
        GCuda.Out(np.zeros((8, 8), np.float32)[:, ::2])  # strided: cannot be copied into in place
    ro = np.zeros(8, np.float32)
    ro.flags.writeable = False
    with pytest.raises(GCuda.LogicError):
        GCuda.Out(ro)
    GCuda.In(ro)  # reading is fine


def test_buffer_arguments_and_pointer_offsets(mod):
    f = mod.get_function('add_one')
    n, off = 1000, 100
    src = random_floats(n)
    src_gpu = GCuda.to_device(src)
    dest_gpu = GCuda.mem_alloc(src.nbytes)
    GCuda.memset_d32(dest_gpu, 0, n)
    f(dest_gpu, src_gpu, np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
    np.testing.assert_array_equal(GCuda.from_device(dest_gpu, n, np.float32), src + 1)

    # PyCUDA's pointer arithmetic: np.intp(int(buf) + offset)
    GCuda.memset_d32(dest_gpu, 0, n)
    f(np.intp(int(dest_gpu) + off * 4), np.uintp(int(src_gpu) + off * 4), np.int32(n - off),
      block=(256, 1, 1), grid=((n + 255) // 256, 1))
    result = GCuda.from_device(dest_gpu, n, np.float32)
    np.testing.assert_array_equal(result[:off], np.zeros(off, np.float32))
    np.testing.assert_array_equal(result[off:], src[off:] + 1)

    # a view stands for buf + offset too
    GCuda.memset_d32(dest_gpu, 0, n)
    f(dest_gpu.new_view(off * 4, (n - off) * 4), src_gpu.new_view(off * 4, (n - off) * 4),
      np.int32(n - off), block=(256, 1, 1), grid=((n + 255) // 256, 1))
    result = GCuda.from_device(dest_gpu, n, np.float32)
    np.testing.assert_array_equal(result[off:], src[off:] + 1)
    np.testing.assert_array_equal(result[:off], np.zeros(off, np.float32))


class DeviceArray:
    """A minimal foreign device array (numba/CuPy style)."""

    def __init__(self, buf, n):
        self.buf = buf
        self.__cuda_array_interface__ = {'shape': (n,), 'typestr': '<f4', 'data': (int(buf), False),
                                         'version': 3}


def test_cuda_array_interface_and_managed_arrays(mod):
    f = mod.get_function('add_one')
    n = 300
    src = random_floats(n)
    out = GCuda.mem_alloc(src.nbytes)
    f(DeviceArray(out, n), DeviceArray(GCuda.to_device(src), n), np.int32(n), block=(128, 1, 1), grid=(3, 1))
    np.testing.assert_array_equal(GCuda.from_device(out, n, np.float32), src + 1)

    managed_in = GCuda.managed_empty(n, np.float32)
    managed_in[:] = src
    managed_out = GCuda.managed_zeros(n, np.float32)
    f(managed_out, managed_in, np.int32(n), block=(128, 1, 1), grid=(3, 1))
    GCuda.Context.get_default().synchronize()
    np.testing.assert_array_equal(managed_out, src + 1)


def test_pooled_allocations_as_arguments(mod):
    # a DeviceMemoryPool's PooledDeviceAllocation goes by its address, in
    # plain and prepared calls; once freed it is refused
    f = mod.get_function('twice')
    pool = GCuda.DeviceMemoryPool()
    n = 1000
    data = random_floats(n)
    a = pool.allocate(data.nbytes)
    GCuda.memcpy_htod(a, data)
    f(a, np.int32(n), block=(256, 1, 1), grid=(4, 1))
    np.testing.assert_array_equal(GCuda.from_device(a, n, np.float32), data * 2)
    f.prepare('Pi')
    f.prepared_call((4, 1), (256, 1, 1), a, n)
    np.testing.assert_array_equal(GCuda.from_device(a, n, np.float32), data * 4)
    a.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        f(a, np.int32(n), block=(256, 1, 1), grid=(4, 1))
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        f.prepared_call((4, 1), (256, 1, 1), a, n)


def test_struct_by_value(mod):
    f = mod.get_function('scale3')
    n = 100
    x, y, z = (float(v) for v in rng().uniform(-10, 10, 3).astype(np.float32))
    s = np.float32(rng().uniform(0.5, 2))
    v = np.array((x, y, z), FLOAT3)[()]
    assert isinstance(v, np.void)
    out = GCuda.mem_alloc(n * 12)
    f(out, v, s, np.int32(n), block=(64, 1, 1), grid=(2, 1))
    got = GCuda.from_device(out, (n, 3), np.float32)
    i = np.arange(n, dtype=np.float32)
    vx, vy, vz = np.float32(x), np.float32(y), np.float32(z)
    want = np.stack([vx * s + i, vy * s - i, vz * s * i], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)


FLOAT4_SRC = r"""
__global__ void vec4(char c, float4 v, float *out)
{
    out[0] = c; out[1] = v.x; out[2] = v.y; out[3] = v.z; out[4] = v.w;
}
"""


def test_vector_type_alignment():
    # float4 is 16-byte aligned although its fields are floats: the packed
    # layout must come from the kernel (get_param_offset), not be guessed.
    mod = GCuda.SourceModule(FLOAT4_SRC)
    f = mod.get_function('vec4')
    assert [f.get_param_offset(i) for i in range(3)] == [0, 16, 32]
    float4 = np.dtype([('x', np.float32), ('y', np.float32), ('z', np.float32), ('w', np.float32)])
    r = rng()
    c = np.int8(r.integers(-100, 100))
    v = np.array(tuple(r.uniform(-10, 10, 4)), float4)[()]
    want = np.array([c, v['x'], v['y'], v['z'], v['w']], np.float32)
    out = GCuda.mem_alloc(5 * 4)
    f(c, v, out, block=(1, 1, 1))
    np.testing.assert_array_equal(GCuda.from_device(out, 5, np.float32), want)
    GCuda.memset_d8(out, 0, 20)
    f.prepare([np.int8, float4, np.intp])
    f.prepared_call((1, 1), (1, 1, 1), int(c), v, out)
    np.testing.assert_array_equal(GCuda.from_device(out, 5, np.float32), want)


def test_mixed_alignment(mod):
    f = mod.get_function('mixed')
    r = rng()
    c = np.int8(r.integers(-100, 100))
    v = np.array(tuple(r.uniform(-10, 10, 3)), FLOAT3)[()]
    d = np.float64(r.uniform(-1e6, 1e6))
    h = np.int16(r.integers(-30000, 30000))
    out = GCuda.mem_alloc(6 * 8)
    want = np.array([c, v['x'], v['y'], v['z'], d, h], np.float64)
    assert [f.get_param_size(i) for i in range(f.get_param_count())] == [1, 12, 8, 2, 8]

    f(c, v, d, h, out, block=(1, 1, 1))
    np.testing.assert_array_equal(GCuda.from_device(out, 6, np.float64), want)

    GCuda.memset_d8(out, 0, 48)
    f.prepare([np.int8, FLOAT3, np.float64, np.int16, np.intp])
    f.prepared_call((1, 1), (1, 1, 1), int(c), v, float(d), int(h), out)
    np.testing.assert_array_equal(GCuda.from_device(out, 6, np.float64), want)

    GCuda.memset_d8(out, 0, 48)
    f.prepare('b12sdhP')
    f.prepared_call((1, 1), (1, 1, 1), c, v.tobytes(), d, h, out)
    np.testing.assert_array_equal(GCuda.from_device(out, 6, np.float64), want)


def test_complex_arguments(mod):
    f = mod.get_function('cmul')
    r = rng()
    c = np.complex64(complex(*r.uniform(-5, 5, 2)))
    z = np.complex128(complex(*r.uniform(-5, 5, 2)))
    n = 16
    out = GCuda.mem_alloc(n * 16)
    want = np.empty((n, 2), np.complex64)
    want[:, 0] = c * np.arange(n, dtype=np.float32)
    want[:, 1] = np.complex64(z)
    f(out, c, z, np.int32(n), block=(n, 1, 1))
    np.testing.assert_allclose(GCuda.from_device(out, (n, 2), np.complex64), want, rtol=1e-6)
    GCuda.memset_d8(out, 0, n * 16)
    f.prepare('PFDi')
    f.prepared_call((1, 1), (n, 1, 1), out, complex(c), complex(z), n)
    np.testing.assert_allclose(GCuda.from_device(out, (n, 2), np.complex64), want, rtol=1e-6)


def test_streamed_kernel_on_pagelocked_memory(mod):
    f = mod.get_function('twice')
    n = 4096
    host = GCuda.pagelocked_empty(n, np.float32)
    host[:] = random_floats(n)
    original = host.copy()
    result = GCuda.pagelocked_zeros(n, np.float32)
    stream = GCuda.Stream()
    gpu = GCuda.mem_alloc(host.nbytes)
    GCuda.memcpy_htod_async(gpu, host, stream)
    f(gpu, np.int32(n), block=(256, 1, 1), grid=(n // 256, 1), stream=stream)
    f.prepare('Pi')
    f.prepared_async_call((n // 256, 1), (256, 1, 1), stream, gpu, n)
    GCuda.memcpy_dtoh_async(result, gpu, stream)
    stream.synchronize()
    np.testing.assert_array_equal(result, original * 4)


def test_time_kernel(mod):
    f = mod.get_function('twice')
    n = 1 << 20
    a = random_floats(n)
    gpu = GCuda.to_device(a)
    seconds = f(gpu, np.int32(n), block=(256, 1, 1), grid=(n // 256, 1), time_kernel=True)
    assert isinstance(seconds, float)
    assert 0 < seconds < 10
    np.testing.assert_array_equal(GCuda.from_device(gpu, n, np.float32), a * 2)
    stream = GCuda.Stream()
    seconds = f(gpu, np.int32(n), block=(256, 1, 1), grid=(n // 256, 1), time_kernel=True, stream=stream)
    assert isinstance(seconds, float) and 0 < seconds < 10
    np.testing.assert_array_equal(GCuda.from_device(gpu, n, np.float32), a * 4)


# ---------------------------------------------------------------- prepared calls

def test_prepared_with_dynamic_shared_memory_and_3d_grid(mod):
    f = mod.get_function('reverse_blocks')
    grid, threads = (2, 3, 4), 64
    n = 2 * 3 * 4 * threads
    src = random_floats(n)
    factor = np.float32(rng().uniform(0.5, 3))
    in_gpu, out_gpu = GCuda.to_device(src), GCuda.mem_alloc(src.nbytes)
    assert f.prepare('PPf') is f
    f.prepared_call(grid, (threads, 1, 1), out_gpu, in_gpu, factor, shared_size=threads * 4)
    want = src.reshape(-1, threads)[:, ::-1].reshape(-1) * factor
    np.testing.assert_array_equal(GCuda.from_device(out_gpu, n, np.float32), want)

    # numpy dtypes and ints for the pointers
    GCuda.memset_d32(out_gpu, 0, n)
    f.prepare([np.intp, np.intp, np.float32])
    f.prepared_call(grid, (threads, 1, 1), int(out_gpu), int(in_gpu), float(factor), shared_size=threads * 4)
    np.testing.assert_array_equal(GCuda.from_device(out_gpu, n, np.float32), want)


def test_prepared_with_a_struct(mod):
    f = mod.get_function('scale3')
    n = 70
    x, y, z = (float(v) for v in rng().uniform(-10, 10, 3).astype(np.float32))
    s = float(np.float32(rng().uniform(0.5, 2)))
    out = GCuda.mem_alloc(n * 12)
    f.prepare([np.intp, FLOAT3, np.float32, np.int32])
    i = np.arange(n, dtype=np.float32)
    want = np.stack([np.float32(x) * np.float32(s) + i, np.float32(y) * np.float32(s) - i,
                     np.float32(z) * np.float32(s) * i], axis=1)
    f.prepared_call((2, 1), (64, 1, 1), out, np.array((x, y, z), FLOAT3)[()], s, n)
    np.testing.assert_allclose(GCuda.from_device(out, (n, 3), np.float32), want, rtol=1e-6, atol=1e-5)
    GCuda.memset_d8(out, 0, n * 12)
    f.prepared_call((2, 1), (64, 1, 1), out, (x, y, z), s, n)  # a tuple for the struct
    np.testing.assert_allclose(GCuda.from_device(out, (n, 3), np.float32), want, rtol=1e-6, atol=1e-5)


def test_prepared_timed_call(mod):
    f = mod.get_function('twice').prepare('Pi')
    n = 1 << 20
    a = random_floats(n)
    gpu = GCuda.to_device(a)
    get_time = f.prepared_timed_call((n // 256, 1), (256, 1, 1), gpu, n)
    assert callable(get_time)
    seconds = get_time()
    assert isinstance(seconds, float) and 0 < seconds < 10
    np.testing.assert_array_equal(GCuda.from_device(gpu, n, np.float32), a * 2)


def test_prepared_no_params(mod):
    f = mod.get_function('no_params').prepare('')
    with pytest.raises(TypeError, match='shared_size'):
        mod.get_function('no_params').prepare('', shared=128)  # old PyCUDA's argument
    f.prepared_call((1, 1), (32, 1, 1))
    f(block=(32, 1, 1))
    GCuda.Context.get_default().synchronize()
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError):
        f.prepared_call((1, 1), (32, 1, 1), 5)


@pytest.fixture(params=['extension', 'ctypes', 'pygobject'])
def launch_path(request):
    """Runs a test with each launch path: the _gcuda_launch extension, ctypes,
    and plain PyGObject."""
    from gcuda._override import launch as impl
    saved = list(impl._fast_state)
    if request.param == 'pygobject':
        impl._fast_state[:] = [None]
    else:
        if request.param == 'extension' and os.environ.get('GCUDA_TEST_LAUNCH_EXTENSION') != '1':
            pytest.skip('the _gcuda_launch extension was not built (no Python headers at build time)')
        binding = impl._bind_fast_launch(request.param)
        assert binding is not None, 'the %s fast launch path could not be bound' % request.param
        impl._fast_state[:] = [binding]
    yield request.param
    impl._fast_state[:] = saved


def test_prepared_paths(mod, launch_path):
    f = mod.get_function('store')
    out = GCuda.mem_alloc(128 * 4)
    stream = GCuda.Stream()
    for call in range(3):
        value = int(rng().integers(0, 1 << 30))
        f.prepare('PI')
        if call == 0:
            f.prepared_call((1, 1), (128, 1, 1), out, value)
        elif call == 1:
            f.prepared_async_call((1, 1, 1), [128, 1, 1], stream, out, np.uint32(value))
            stream.synchronize()
        else:
            f.prepared_async_call((1,), (128,), None, int(out), value)
        np.testing.assert_array_equal(GCuda.from_device(out, 128, np.uint32),
                                      value + np.arange(128, dtype=np.uint32))
    # numpy integers as dimensions go the checked way and work the same
    value = int(rng().integers(0, 1 << 30))
    f.prepared_call((np.int64(1), np.int32(1), 1), (np.uint16(128), 1, 1), out, value)
    np.testing.assert_array_equal(GCuda.from_device(out, 128, np.uint32), value + np.arange(128, dtype=np.uint32))
    # errors come out the same on both paths
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        f.prepared_call((1, 1), (0, 1, 1), out, 1)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        f.prepared_call((1, 0), (32, 1, 1), out, 1)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        f.prepared_call((1, 1), (2048, 1, 1), out, 1)
    with raises_gerror(GCuda.DriverError.INVALID_VALUE):
        f.prepared_call((1, 1), (32, 1, 1), out, 1, shared_size=1 << 30)
    with pytest.raises(TypeError):
        f.prepared_async_call((1, 1), (32, 1, 1), 'not a stream', out, 1)
    GCuda.Context.get_default().synchronize()


def test_prepared_launches_into_a_graph(mod):
    f = mod.get_function('twice').prepare('Pi')
    n = 1024
    a = random_floats(n)
    gpu = GCuda.to_device(a)
    stream = GCuda.Stream()
    stream.begin_capture(GCuda.CaptureMode.GLOBAL)
    f.prepared_async_call((n // 128, 1), (128, 1, 1), stream, gpu, n)
    f.prepared_async_call((n // 128, 1), (128, 1, 1), stream, gpu, n)
    graph = stream.end_capture()
    assert graph.get_node_count() == 2
    np.testing.assert_array_equal(GCuda.from_device(gpu, n, np.float32), a)  # captured, not run
    exec_ = graph.instantiate()
    exec_.launch(stream)
    exec_.launch(stream)
    stream.synchronize()
    np.testing.assert_array_equal(GCuda.from_device(gpu, n, np.float32), a * 16)


def test_mapped_host_memory_as_a_pointer(mod):
    f = mod.get_function('store').prepare('PI')
    hb = GCuda.HostBuffer.new_pagelocked(None, 64 * 4, GCuda.HostAllocFlags.DEVICEMAP)
    host = hb.as_array(64, np.uint32)
    host[:] = 0
    value = int(rng().integers(0, 1 << 30))
    f.prepared_call((1, 1), (64, 1, 1), hb, value)
    GCuda.Context.get_default().synchronize()
    np.testing.assert_array_equal(host, value + np.arange(64, dtype=np.uint32))
    plain = GCuda.HostBuffer.new_pagelocked(None, 256, GCuda.HostAllocFlags(0))
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        f.prepared_call((1, 1), (64, 1, 1), plain, value)


def test_freed_buffer_is_refused(mod):
    f = mod.get_function('store').prepare('PI')
    out = GCuda.mem_alloc(32 * 4)
    f.prepared_call((1, 1), (32, 1, 1), out, 7)
    np.testing.assert_array_equal(GCuda.from_device(out, 32, np.uint32), 7 + np.arange(32, dtype=np.uint32))
    out.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        f.prepared_call((1, 1), (32, 1, 1), out, 7)
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        f(out, np.uint32(7), block=(32, 1, 1))


# ---------------------------------------------------------------- modules

def test_constant_memory_through_get_global(mod):
    ptr, size = mod.get_global('coeffs')
    assert isinstance(ptr, GCuda.Buffer)
    assert size == 64 == len(ptr)
    coeffs = random_floats(16)
    GCuda.memcpy_htod(ptr, coeffs)
    f = mod.get_function('apply_coeffs')
    n = 1000
    src = random_floats(n)
    out = GCuda.mem_alloc(src.nbytes)
    f(out, GCuda.to_device(src), np.int32(n), block=(256, 1, 1), grid=(4, 1))
    np.testing.assert_array_equal(GCuda.from_device(out, n, np.float32), src * coeffs[np.arange(n) % 16])
    # the C method is still there
    assert mod.get_global_buffer('device_counter').get_size() == 4
    # read back what was uploaded
    np.testing.assert_array_equal(GCuda.from_device(ptr, 16, np.float32), coeffs)


def test_static_shared_memory_16000_bytes(mod):
    f = mod.get_function('big_shared')
    assert f.shared_size_bytes == 16000
    assert f.get_attribute(GCuda.FunctionAttribute.SHARED_SIZE_BYTES) == 16000
    src = random_floats(4000)
    out = GCuda.mem_alloc(src.nbytes)
    f(out, GCuda.to_device(src), block=(256, 1, 1))
    np.testing.assert_array_equal(GCuda.from_device(out, 4000, np.float32), src[::-1] + 1)


def test_module_from_buffer_cubin_and_ptx(mod):
    value = int(rng().integers(0, 1 << 30))
    source = 'extern "C" __global__ void fill(unsigned *out, unsigned v) { out[threadIdx.x] = v ^ threadIdx.x; }'
    want = value ^ np.arange(32, dtype=np.uint32)
    messages = []
    cubin = compiler.compile(source, no_extern_c=True)
    ptx = compiler.compile(source, no_extern_c=True, target='ptx')
    assert ptx.rstrip(b'\0').decode().lstrip().startswith(('//', '.version'))
    for image in (cubin, ptx, ptx.rstrip(b'\0').decode(), GLib.Bytes.new(cubin), np.frombuffer(cubin, np.uint8)):
        m = GCuda.module_from_buffer(image, message_handler=lambda *a: messages.append(a))
        out = GCuda.mem_alloc(128)
        m.get_function('fill')(out, np.uint32(value), block=(32, 1, 1))
        np.testing.assert_array_equal(GCuda.from_device(out, 32, np.uint32), want)
    assert len(messages) == 5 and all(m[0] is True for m in messages)


def test_module_from_buffer_jit_options():
    # register-hungry PTX, limited to 32 registers by the JIT
    source = '''
    extern "C" __global__ void hungry(double *out, const double *in)
    {
      double acc[24];
      for (int k = 0; k < 24; k++) acc[k] = in[threadIdx.x * 24 + k];
      double s = 0;
      for (int k = 0; k < 24; k++) for (int j = 0; j < 24; j++) s += acc[k] * acc[j] / (1 + k + j);
      out[threadIdx.x] = s;
    }
    '''
    ptx = compiler.compile(source, no_extern_c=True, target='ptx')
    limited = GCuda.module_from_buffer(ptx, options=[(driver.jit_option.MAX_REGISTERS, 32)])
    f = limited.get_function('hungry')
    assert 0 < f.num_regs <= 32
    data = rng().uniform(-1, 1, 32 * 24)
    out = GCuda.mem_alloc(32 * 8)
    f(out, GCuda.to_device(data), block=(32, 1, 1))
    acc = data.reshape(32, 24)
    kj = 1 + np.arange(24)[:, None] + np.arange(24)[None, :]
    want = np.einsum('ik,ij,kj->i', acc, acc, 1.0 / kj)
    np.testing.assert_allclose(GCuda.from_device(out, 32, np.float64), want, rtol=1e-9, atol=1e-9)


def test_module_from_file(tmp_path):
    path = tmp_path / 'k.cubin'
    source = 'extern "C" __global__ void fill(unsigned *out, unsigned v) { out[threadIdx.x] = v + 3 * threadIdx.x; }'
    path.write_bytes(compiler.compile(source, no_extern_c=True))
    m = driver.module_from_file(str(path))
    value = int(rng().integers(0, 1 << 30))
    out = GCuda.mem_alloc(128)
    m.get_function('fill')(out, np.uint32(value), block=(32, 1, 1))
    np.testing.assert_array_equal(GCuda.from_device(out, 32, np.uint32), value + 3 * np.arange(32, dtype=np.uint32))


def test_source_module_options_and_templates():
    source = '''
    template <typename T>
    __global__ void axpy(T *y, const T *x, T a, int n)
    {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n)
        y[i] += a * x[i] + OFFSET;
    }
    '''
    m = compiler.SourceModule(source, no_extern_c=True, options=['-DOFFSET=3'],
                              name_expressions=['axpy<float>', 'axpy<double>'])
    assert m.get_lowered_name('axpy<double>').startswith('_Z')
    n = 500
    for dtype, scalar in ((np.float32, np.float32), (np.float64, np.float64)):
        x, y = rng().uniform(-1, 1, n).astype(dtype), rng().uniform(-1, 1, n).astype(dtype)
        a = scalar(rng().uniform(1, 2))
        y_gpu = GCuda.to_device(y)
        name = 'axpy<float>' if dtype is np.float32 else 'axpy<double>'
        f = m.get_function(name)
        assert f is m.get_function(m.get_lowered_name(name))
        f(y_gpu, GCuda.to_device(x), a, np.int32(n), block=(128, 1, 1), grid=(4, 1))
        np.testing.assert_allclose(GCuda.from_device(y_gpu, n, dtype), y + a * x + 3,
                                   # the GPU fuses a * x + y (one rounding), numpy rounds twice
                                   rtol=1e-5 if dtype is np.float32 else 1e-12)


def test_source_module_cache_dir_and_keep(tmp_path, capsys):
    source = 'extern "C" __global__ void k(int *o) { o[threadIdx.x] = %d; }' % int(rng().integers(1, 1 << 30))
    first = GCuda.SourceModule(source, no_extern_c=True, cache_dir=str(tmp_path / 'cache'))
    assert not first.program.is_from_cache()
    second = GCuda.SourceModule(source, no_extern_c=True, cache_dir=str(tmp_path / 'cache'))
    assert second.program.is_from_cache()
    kept = GCuda.SourceModule(source, no_extern_c=True, cache_dir=False, keep=True)
    assert not kept.program.is_from_cache()
    assert kept.keep_dir in capsys.readouterr().out
    assert os.path.exists(os.path.join(kept.keep_dir, 'kernel.cubin'))


# ---------------------------------------------------------------- linking

DP_SOURCE = r'''
__global__ void child_k(int *out, int base, int salt)
{
  out[base + threadIdx.x] = (base + threadIdx.x) * 3 + salt;
}

__global__ void parent_k(int *out, int salt)
{
  if (threadIdx.x == 0)
    child_k<<<1, 32>>>(out, blockIdx.x * 32, salt);
}
'''


def test_dynamic_parallelism():
    # Needs GCuda.Linker: relocatable device code and the toolkit's cudadevrt.
    m = compiler.DynamicModule()
    assert m.add_source(DP_SOURCE, nvcc_options=['-rdc=true', '-lcudadevrt']) is m
    assert m.add_stdlib('cudadevrt') is m
    assert m.link() is m
    salt = int(rng().integers(0, 1 << 20))
    out = GCuda.mem_alloc(256 * 4)
    GCuda.memset_d32(out, 0, 256)
    m.get_function('parent_k')(out, np.int32(salt), block=(1, 1, 1), grid=(8, 1))
    np.testing.assert_array_equal(GCuda.from_device(out, 256, np.int32), np.arange(256, dtype=np.int32) * 3 + salt)


def test_jit_linking_with_device_printf():
    # Two sources, one calling into the other, linked by GCuda.Linker; the
    # printf output is the child's stdout.
    base = int(rng().integers(0, 1000))
    proc = run_child('''
        base = %d
        helper = '__device__ int helper(int x) { printf("helper %%d\\\\n", x); return x * 7 + 1; }'
        user = ('extern __device__ int helper(int x);\\n'
                '__global__ void use_helper(int *out, int n)\\n'
                '{ int i = threadIdx.x; if (i < n) out[i] = helper(i + BASE); }')
        messages = []
        m = compiler.DynamicModule(message_handler=lambda *a: messages.append(a))
        m.add_source(helper).add_source(user, nvcc_options=['-DBASE=%%d' %% base]).link()
        out = GCuda.mem_alloc(8 * 4)
        m.get_function('use_helper')(out, np.int32(8), block=(8, 1, 1))
        GCuda.Context.get_default().synchronize()
        sys.stdout.flush()
        result = GCuda.from_device(out, 8, np.int32).tolist()
        print('RESULT ' + json.dumps({'result': result, 'linked': messages[0][0]}), flush=True)
    ''' % base)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    result = json.loads([x for x in lines if x.startswith('RESULT ')][-1][len('RESULT '):])
    assert result['linked'] is True
    assert result['result'] == [(base + i) * 7 + 1 for i in range(8)]
    printed = sorted(int(x.split()[1]) for x in lines if x.startswith('helper '))
    assert printed == [base + i for i in range(8)], proc.stdout


def test_link_errors():
    m = compiler.DynamicModule()
    m.add_source('__device__ int missing_function(int);\n'
                 '__global__ void k(int *o) { o[0] = missing_function(1); }')
    with pytest.raises(GCuda.CudaError) as info:
        m.link()
    assert 'missing_function' in info.value.message
    with pytest.raises(GCuda.CompileError):
        compiler.DynamicModule().add_source('__global__ void k( {')
    with pytest.raises(GCuda.LogicError):
        compiler.DynamicModule().get_function('k')  # not linked


# ---------------------------------------------------------------- attributes, occupancy

def test_function_attributes(mod):
    f = mod.get_function('add_one')
    assert f is mod.get_function('add_one')
    assert f.get_name() == 'add_one'
    assert f.get_param_count() == 3
    assert [f.get_param_size(i) for i in range(3)] == [8, 8, 4]
    assert 0 < f.num_regs <= 255
    assert f.num_regs == f.get_attribute(GCuda.FunctionAttribute.NUM_REGS) == f.props.num_regs
    dev = GCuda.Context.get_default().get_device()
    assert 0 < f.max_threads_per_block <= dev.get_max_threads_per_block()
    assert f.max_threads_per_block == f.get_max_threads_per_block()
    assert f.shared_size_bytes == 0
    assert f.local_size_bytes >= 0 and f.const_size_bytes >= 0
    major, minor = dev.get_compute_capability()
    assert f.binary_version == 10 * major + minor
    assert f.ptx_version > 0
    with pytest.raises(AttributeError):
        f.no_such_attribute
    f.set_cache_config(driver.func_cache.PREFER_L1)


def test_occupancy(mod):
    f = mod.get_function('add_one')
    dev = GCuda.Context.get_default().get_device()
    blocks = f.get_max_active_blocks_per_multiprocessor(256, 0)
    max_per_sm = dev.get_attribute(GCuda.DeviceAttribute.MAX_THREADS_PER_MULTIPROCESSOR)
    assert 1 <= blocks <= max_per_sm // 256
    min_grid, block = f.get_potential_block_size(0, 0)
    assert 32 <= block <= f.max_threads_per_block and block % 32 == 0
    assert min_grid >= dev.get_multiprocessor_count()
    big = mod.get_function('big_shared')
    assert big.get_max_active_blocks_per_multiprocessor(256, 0) <= blocks


# ---------------------------------------------------------------- bad input

def test_wrong_arguments(mod):
    f = mod.get_function('add_one')
    out = GCuda.mem_alloc(1024)
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError) as info:
        f(out, out, block=(32, 1, 1))
    assert '3' in info.value.message
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError) as info:
        f(out, out, np.int64(5), block=(32, 1, 1))
    assert '#2' in info.value.message
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError):
        f(out, out, np.int32(5), np.int32(6), block=(32, 1, 1))
    for bad in (5, 5.0, True, None, 'x'):
        with pytest.raises(TypeError) as info:
            f(out, out, bad, block=(32, 1, 1))
        assert 'parameter #2' in str(info.value)
    with pytest.raises(TypeError) as info:
        f(1234, out, np.int32(5), block=(32, 1, 1))
    assert 'parameter #0' in str(info.value)
    with pytest.raises(ValueError):
        f(out, out, np.int32(5))  # no block
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError):
        f.prepare('PPq')
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError):
        f.prepare('PP')
    f.prepare('PPi')
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError):
        f.prepared_call((1, 1), (32, 1, 1), out, out)
    with pytest.raises(TypeError) as info:
        f.prepared_call((1, 1), (32, 1, 1), out, out, 2.5)
    assert 'parameter #2' in str(info.value)
    with pytest.raises(TypeError):
        f.prepared_call((1, 1), (32, 1, 1), 1.5, out, 2)
    # the C method refuses a packed buffer of the wrong size
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError):
        f.launch_packed(1, 1, 1, 32, 1, 1, 0, None, bytes(16))
    GCuda.Context.get_default().synchronize()


def test_bad_dimensions(mod):
    f = mod.get_function('add_one')
    out = GCuda.mem_alloc(1024)
    n = np.int32(0)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        f(out, out, n, block=(0, 1, 1))
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        f(out, out, n, block=(32, 1, 1), grid=(0, 1))
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError) as info:
        f(out, out, n, block=(2048, 1, 1))
    assert '2048' in info.value.message
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        f(out, out, n, block=(32, 1, 1), grid=(1, 1 << 16))
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        f(out, out, n, block=(1, 1, 65))
    with raises_gerror(GCuda.DriverError.INVALID_VALUE, GCuda.LogicError):
        f(out, out, n, block=(32, 1, 1), shared=1 << 20)
    with pytest.raises(ValueError):
        f(out, out, n, block=(1, 1, 1, 1))
    with pytest.raises(TypeError):
        f(out, out, n, block=(32.0, 1, 1))
    with pytest.raises(GCuda.CudaError):
        f(out, out, n, block=(32, 1, 1), texrefs=[object()])
    GCuda.Context.get_default().synchronize()


def test_unknown_names(mod):
    with raises_gerror(GCuda.DriverError.NOT_FOUND) as info:
        mod.get_function('no_such_kernel')
    assert 'no_such_kernel' in info.value.message
    with raises_gerror(GCuda.DriverError.NOT_FOUND) as info:
        mod.get_global('no_such_global')
    assert 'no_such_global' in info.value.message
    with pytest.raises(GCuda.CudaError):
        mod.get_texref('tex')


def test_garbage_images_in_a_child():
    # Refused images must not hurt the context: checked in a child, which
    # then runs a kernel.
    proc = run_child('''
        refused = []
        for image in (b'garbage', b'this is not a module image at all' * 10, b'\\x7fELF' + bytes(200),
                      '.version 8.0\\nthis is not PTX at all;\\n'):
            calls = []
            try:
                GCuda.module_from_buffer(image, message_handler=lambda *a: calls.append(a))
            except GCuda.CudaError as e:
                assert e.message and calls and calls[0][0] is False
                refused.append(e.code)
        mod = compiler.SourceModule('__global__ void k(int *o) { o[threadIdx.x] = 5 * threadIdx.x; }')
        out = GCuda.mem_alloc(128)
        mod.get_function('k')(out, block=(32, 1, 1))
        ok = GCuda.from_device(out, 32, np.int32).tolist() == [5 * i for i in range(32)]
        print('RESULT ' + json.dumps({'refused': len(refused), 'ok': ok}))
    ''')
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.split('RESULT ')[-1])
    assert result == {'refused': 4, 'ok': True}


def test_illegal_address_in_a_child():
    proc = run_child('''
        mod = compiler.SourceModule('__global__ void store(unsigned *out, unsigned v) { out[threadIdx.x] = v; }')
        f = mod.get_function('store')
        stream = GCuda.Stream()
        f(np.intp(0xdeadbeef000), np.uint32(1), block=(32, 1, 1), stream=stream)  # accepted
        try:
            stream.synchronize()
        except GCuda.LaunchError as e:
            first = [e.domain, e.code, GCuda.error_category(e) == GCuda.ErrorCategory.LAUNCH, e.message]
        else:
            first = None
        try:  # sticky
            GCuda.mem_alloc(1024)
            second = None
        except GCuda.CudaError as e:
            second = [e.domain, e.code]
        print('RESULT ' + json.dumps({'first': first, 'second': second}))
    ''')
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.split('RESULT ')[-1])
    code = int(GCuda.DriverError.ILLEGAL_ADDRESS)
    assert result['first'] is not None, 'the fault was not reported at synchronize()'
    assert result['first'][:3] == ['gcuda-driver-error-quark', code, True], result
    assert result['second'] == ['gcuda-driver-error-quark', code], result


def test_buffer_of_another_context_is_refused(dev):
    """A buffer only another context of the device maps, given to a kernel:
    CONTEXT_MISMATCH naming the argument, on every launch path, before the
    kernel could fault; managed memory is the device's and launches."""
    c = dev.create_context(GCuda.ContextFlags.SCHED_AUTO)
    try:
        m = compiler.SourceModule('__global__ void store(unsigned *out, unsigned v) '
                                  '{ out[threadIdx.x] = v + threadIdx.x; }', context=c)
        f = m.get_function('store')
        stream = GCuda.Stream(0, 0, c)
        theirs = GCuda.mem_alloc(32 * 4)  # the default context's
        for call in (lambda: f(theirs, np.uint32(1), block=(32, 1, 1), stream=stream),
                     lambda: f(theirs.new_view(0, 64), np.uint32(1), block=(32, 1, 1), stream=stream)):
            with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError) as info:
                call()
            assert info.value.message.startswith('Argument #0 (0-based): ')
        f.prepare('PI')
        with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
            f.prepared_async_call((1, 1), (32, 1, 1), stream, theirs, 1)
        # used with a kernel of its own context first: still refused here
        own = GCuda.SourceModule('__global__ void store(unsigned *out, unsigned v) '
                                 '{ out[threadIdx.x] = v + threadIdx.x; }').get_function('store')
        own(theirs, np.uint32(2), block=(32, 1, 1))
        GCuda.Context.get_default().synchronize()
        with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
            f(theirs, np.uint32(1), block=(32, 1, 1), stream=stream)
        managed = GCuda.Buffer.new_managed(None, 32 * 4, GCuda.MemAttachFlags.GLOBAL)
        value = int(rng().integers(0, 1 << 30))
        f(managed, np.uint32(value), block=(32, 1, 1), stream=stream)
        stream.synchronize()
        np.testing.assert_array_equal(GCuda.from_device(managed, 32, np.uint32),
                                      value + np.arange(32, dtype=np.uint32))
        managed.free()
        theirs.free()
    finally:
        c.detach()


def test_launch_on_a_stream_of_a_destroyed_context(dev):
    c = dev.create_context(GCuda.ContextFlags.SCHED_AUTO)  # not current: GCuda.Stream() is the default's
    try:
        m = compiler.SourceModule('__global__ void store(unsigned *out, unsigned v) '
                                  '{ out[threadIdx.x] = v + threadIdx.x; }', context=c)
        f = m.get_function('store')
        stream = GCuda.Stream(0, 0, c)
        out = GCuda.mem_alloc(32 * 4, c)
        value = int(rng().integers(0, 1 << 30))
        f(out, np.uint32(value), block=(32, 1, 1), stream=stream)
        stream.synchronize()
        np.testing.assert_array_equal(GCuda.from_device(out, 32, np.uint32), value + np.arange(32, dtype=np.uint32))
        f.prepare('PI')
        # a stream of another context is refused
        with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
            f.prepared_async_call((1, 1), (32, 1, 1), GCuda.Stream(), out, 1)
    finally:
        c.detach()
    assert c.is_destroyed()
    with pytest.raises(GCuda.CudaError) as info:
        f(out, np.uint32(1), block=(32, 1, 1), stream=stream)
    assert info.value.message
    with pytest.raises(GCuda.CudaError):
        f.prepared_async_call((1, 1), (32, 1, 1), stream, out, 1)
    with pytest.raises(GCuda.CudaError):
        f.prepared_call((1, 1), (32, 1, 1), out, 1)
