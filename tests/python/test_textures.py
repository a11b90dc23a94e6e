# Arrays, texture objects and surface objects from Python, ported from
# PyCUDA's texture tests to texture objects (CUDA 12 removed texture
# references): 2D textures in C and F order, two textures summed, float4
# multichannel and linear textures, 2D and 3D textures of int16, float32,
# float64, complex64 and complex128 (the 64-bit ones through int2/int4),
# a 2D layered texture, 3D and 2D-layered surfaces written then read,
# PyCUDA's 1D array copies (memcpy_htoa/atoh/dtoa/atod/atoa) and bad input.
#
# Every result is checked against numpy on fresh random data. Tests marked
# gpu need a device; the others (descriptor checks, the kernels compiled for
# sm_90 with NVRTC) run everywhere.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402

import pytest  # noqa: E402

from gcudatest import gpu, nvrtc, raises_gerror  # noqa: E402

try:
    import numpy as np
except ImportError:  # pragma: no cover - numpy is a test dependency
    if os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1':
        raise
    pytest.skip('numpy is not installed', allow_module_level=True)

# SourceModule wraps this in extern "C": the names are plain, helpers have
# distinct names (no overloads).
SOURCE = r'''
__device__ float conv_float(float v) { return v; }
__device__ short conv_short(short v) { return v; }
__device__ double conv_double(int2 v) { return __hiloint2double(v.y, v.x); }
__device__ float2 conv_cfloat(float2 v) { return v; }
__device__ double2 conv_cdouble(int4 v)
{
  return make_double2(__hiloint2double(v.y, v.x), __hiloint2double(v.w, v.z));
}

#define READERS(NAME, OUT_T, FETCH_T, CONV) \
__global__ void NAME##_2d(OUT_T *out, cudaTextureObject_t t, int w, int h) \
{ \
  int x = blockIdx.x * blockDim.x + threadIdx.x; \
  int y = blockIdx.y * blockDim.y + threadIdx.y; \
  if (x < w && y < h) \
    out[y * w + x] = CONV(tex2D<FETCH_T>(t, x + 0.5f, y + 0.5f)); \
} \
__global__ void NAME##_3d(OUT_T *out, cudaTextureObject_t t, int w, int h, int d) \
{ \
  int x = blockIdx.x * blockDim.x + threadIdx.x; \
  int y = blockIdx.y * blockDim.y + threadIdx.y; \
  int z = blockIdx.z; \
  if (x < w && y < h && z < d) \
    out[(z * h + y) * w + x] = CONV(tex3D<FETCH_T>(t, x + 0.5f, y + 0.5f, z + 0.5f)); \
}

READERS(read_float32, float, float, conv_float)
READERS(read_int16, short, short, conv_short)
READERS(read_float64, double, int2, conv_double)
READERS(read_complex64, float2, float2, conv_cfloat)
READERS(read_complex128, double2, int4, conv_cdouble)

__global__ void sum_two(float *out, cudaTextureObject_t a, cudaTextureObject_t b, int w, int h)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = tex2D<float>(a, x + 0.5f, y + 0.5f) + tex2D<float>(b, x + 0.5f, y + 0.5f);
}

__global__ void read_float4_2d(float4 *out, cudaTextureObject_t t, int w, int h)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = tex2D<float4>(t, x + 0.5f, y + 0.5f);
}

__global__ void fetch_float4(float4 *out, cudaTextureObject_t t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex1Dfetch<float4>(t, i);
}

__global__ void read_layered(float *out, cudaTextureObject_t t, int w, int h, int layers)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int l = blockIdx.z;
  if (x < w && y < h && l < layers)
    out[(l * h + y) * w + x] = tex2DLayered<float>(t, x + 0.5f, y + 0.5f, l);
}

__global__ void surf3d_twice_plus_z(cudaSurfaceObject_t s, int w, int h, int d)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x < w && y < h && z < d)
    {
      float v;
      surf3Dread(&v, s, x * (int) sizeof(float), y, z);
      surf3Dwrite(2.0f * v + z, s, x * (int) sizeof(float), y, z);
    }
}

__global__ void surf_layered_twice_plus_layer(cudaSurfaceObject_t s, int w, int h, int layers)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int l = blockIdx.z;
  if (x < w && y < h && l < layers)
    {
      float v;
      surf2DLayeredread(&v, s, x * (int) sizeof(float), y, l);
      surf2DLayeredwrite(2.0f * v + l, s, x * (int) sizeof(float), y, l);
    }
}
'''

BLOCK = (8, 8, 1)


def grid_for(w, h, d=1):
    return ((w + 7) // 8, (h + 7) // 8, d)


def random_of(dtype, shape, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == 'c':
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind == 'f':
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


@pytest.fixture
def rng():
    return np.random.default_rng()


@pytest.fixture(scope='module')
def mod():
    return GCuda.SourceModule(SOURCE)


def extents(ary):
    d = ary.get_descriptor()
    return d.width, max(d.height, 1), max(d.depth, 1)


def handle(obj):
    return np.uint64(obj.props.handle)


# ---------------------------------------------------------------- no GPU

@nvrtc
def test_kernels_compile_for_sm_90():
    program = GCuda.compile_program(SOURCE, arch='sm_90', cache_dir=False)
    assert program.get_image().get_size() > 0


def test_descriptor_fields_and_checks():
    d = GCuda.ArrayDescriptor.new(7, 5, 3, GCuda.ArrayFormat.SIGNED_INT16, 2, GCuda.ArrayFlags.SURFACE_LDST)
    assert (d.width, d.height, d.depth, d.num_channels) == (7, 5, 3, 2)
    assert d.format == GCuda.ArrayFormat.SIGNED_INT16
    assert d.get_element_size() == 4
    assert d.get_size() == 4 * 7 * 5 * 3
    d.num_channels = 3
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        d.validate()
    # Refused before the driver is called: no device needed.
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Array.new(None, d)
    d.num_channels = 1
    d.width = 0
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.Array.new(None, d)
    cube = GCuda.ArrayDescriptor.new(4, 5, 6, GCuda.ArrayFormat.FLOAT, 1, GCuda.ArrayFlags.CUBEMAP)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.Array.new(None, cube)

    t = GCuda.TextureDescriptor.new()
    assert t.address_mode_x == GCuda.AddressMode.CLAMP
    assert t.filter_mode == GCuda.FilterMode.POINT
    t.set_address_mode(GCuda.AddressMode.WRAP)
    assert (t.address_mode_x, t.address_mode_y, t.address_mode_z) == (GCuda.AddressMode.WRAP,) * 3


def test_dtype_formats_and_helper_arguments():
    assert GCuda.dtype_to_array_format(np.float32) == (GCuda.ArrayFormat.FLOAT, 1)
    assert GCuda.dtype_to_array_format(np.int16) == (GCuda.ArrayFormat.SIGNED_INT16, 1)
    assert GCuda.dtype_to_array_format(np.float64) == (GCuda.ArrayFormat.SIGNED_INT32, 2)
    assert GCuda.dtype_to_array_format(np.complex64) == (GCuda.ArrayFormat.FLOAT, 2)
    assert GCuda.dtype_to_array_format(np.complex128) == (GCuda.ArrayFormat.SIGNED_INT32, 4)
    with pytest.raises(TypeError):
        GCuda.dtype_to_array_format(np.bool_)
    with pytest.raises(ValueError):
        GCuda.matrix_to_array(np.zeros((3, 4), np.float32), 'X')
    with pytest.raises(ValueError):
        GCuda.matrix_to_array(np.zeros((3, 4, 5), np.float32), 'C')
    with pytest.raises(ValueError):
        GCuda.np_to_array(np.zeros(5, np.float32), 'C')
    with pytest.raises(ValueError):
        GCuda.make_multichannel_2d_array(np.zeros((3, 4), np.float32), 'C')


# ---------------------------------------------------------------- textures

@gpu
@pytest.mark.parametrize('order', ['C', 'F'])
def test_2d_texture(mod, rng, order):
    a = rng.standard_normal((23, 37)).astype(np.float32)
    ary = GCuda.matrix_to_array(a, order)
    w, h, _ = extents(ary)
    assert (h, w) == (a.shape if order == 'C' else a.T.shape)
    tex = GCuda.make_texture(ary)
    dest = np.zeros((h, w), np.float32)
    mod.get_function('read_float32_2d')(GCuda.Out(dest), handle(tex), np.int32(w), np.int32(h),
                                        block=BLOCK, grid=grid_for(w, h))
    # 'C': tex2D(x, y) is a[y, x]; 'F': a[x, y], so the result is the transpose.
    np.testing.assert_array_equal(dest, a if order == 'C' else a.T)


@gpu
def test_two_textures_summed(mod, rng):
    a = rng.standard_normal((19, 41)).astype(np.float32)
    b = rng.standard_normal((19, 41)).astype(np.float32)
    ta = GCuda.make_texture(a)
    tb = GCuda.make_texture(b)
    dest = np.zeros_like(a)
    h, w = a.shape
    mod.get_function('sum_two')(GCuda.Out(dest), handle(ta), handle(tb), np.int32(w), np.int32(h),
                                block=BLOCK, grid=grid_for(w, h))
    np.testing.assert_allclose(dest, a + b, rtol=1e-6)


@gpu
@pytest.mark.parametrize('order', ['C', 'F'])
def test_float4_multichannel_2d_texture(mod, rng, order):
    h, w = 13, 29
    a = rng.standard_normal((h, w, 4)).astype(np.float32)
    src = a if order == 'C' else np.asfortranarray(a.T)  # (channels, width, height) for 'F'
    ary = GCuda.make_multichannel_2d_array(src, order)
    d = ary.get_descriptor()
    assert (d.width, d.height, d.num_channels) == (w, h, 4)
    tex = GCuda.make_texture(ary)
    dest = np.zeros((h, w, 4), np.float32)
    mod.get_function('read_float4_2d')(GCuda.Out(dest), handle(tex), np.int32(w), np.int32(h),
                                       block=BLOCK, grid=grid_for(w, h))
    np.testing.assert_array_equal(dest, a)


@gpu
def test_float4_linear_texture(mod, rng):
    n = 1000
    a = rng.standard_normal((n, 4)).astype(np.float32)
    buf = GCuda.to_device(a)
    tex = GCuda.Texture.new_from_buffer(buf, GCuda.ArrayFormat.FLOAT, 4, None)
    assert tex.get_buffer() is not None
    dest = np.zeros_like(a)
    mod.get_function('fetch_float4')(GCuda.Out(dest), handle(tex), np.int32(n),
                                     block=(128, 1, 1), grid=((n + 127) // 128, 1))
    np.testing.assert_array_equal(dest, a)


TYPES = ['int16', 'float32', 'float64', 'complex64', 'complex128']


@gpu
@pytest.mark.parametrize('dtype', TYPES)
@pytest.mark.parametrize('order', ['C', 'F'])
def test_2d_textures_of_types(mod, rng, dtype, order):
    a = random_of(dtype, (17, 26), rng)
    ary = GCuda.np_to_array(a, order)
    w, h, _ = extents(ary)
    tex = GCuda.make_texture(ary)
    dest = np.zeros((h, w), a.dtype)
    mod.get_function('read_%s_2d' % dtype)(GCuda.Out(dest), handle(tex), np.int32(w), np.int32(h),
                                           block=BLOCK, grid=grid_for(w, h))
    np.testing.assert_array_equal(dest, a if order == 'C' else a.T)


@gpu
@pytest.mark.parametrize('dtype', TYPES)
@pytest.mark.parametrize('order', ['C', 'F'])
def test_3d_textures_of_types(mod, rng, dtype, order):
    a = random_of(dtype, (5, 11, 14), rng)
    ary = GCuda.np_to_array(a, order)
    w, h, d = extents(ary)
    assert (d, h, w) == (a.shape if order == 'C' else a.T.shape)
    tex = GCuda.make_texture(ary)
    dest = np.zeros((d, h, w), a.dtype)
    mod.get_function('read_%s_3d' % dtype)(GCuda.Out(dest), handle(tex), np.int32(w), np.int32(h),
                                           np.int32(d), block=BLOCK, grid=grid_for(w, h, d))
    np.testing.assert_array_equal(dest, a if order == 'C' else a.T)
    # The array downloads as it was filled.
    np.testing.assert_array_equal(ary.to_numpy(dtype=a.dtype, order=order), a)


@gpu
def test_2d_layered_texture(mod, rng):
    a = rng.standard_normal((3, 15, 22)).astype(np.float32)  # (layers, height, width)
    ary = GCuda.np_to_array(a, 'C', layered=True)
    assert ary.get_descriptor().flags & GCuda.ArrayFlags.LAYERED
    w, h, layers = extents(ary)
    tex = GCuda.make_texture(ary)
    dest = np.zeros_like(a)
    mod.get_function('read_layered')(GCuda.Out(dest), handle(tex), np.int32(w), np.int32(h),
                                     np.int32(layers), block=BLOCK, grid=grid_for(w, h, layers))
    np.testing.assert_array_equal(dest, a)


@gpu
def test_buffer_to_array_and_copies(rng):
    a = rng.standard_normal((6, 9, 10)).astype(np.float32)
    ary = GCuda.buffer_to_array(GCuda.to_device(a), a.shape, a.dtype, 'C')
    np.testing.assert_array_equal(ary.to_numpy(), a)
    other = GCuda.Array.new(None, ary.get_descriptor())
    other.copy_from_array(0, ary, 0, ary.get_size())
    back = GCuda.Buffer.new(None, a.nbytes)
    other.copy_to_buffer(0, back, 0, other.get_size())
    np.testing.assert_array_equal(GCuda.from_device(back, a.shape, a.dtype), a)
    # A part of it through GCuda.Copy3D: the box [1:4, 2:7, 3:8] into host memory.
    part = np.zeros((3, 5, 5), np.float32)
    copy = GCuda.Copy3D.new()
    copy.set_src_array(ary)
    copy.set_dst_host(part.__array_interface__['data'][0], part.nbytes)
    copy.props.src_x_in_bytes = 3 * 4
    copy.props.src_y = 2
    copy.props.src_z = 1
    copy.props.dst_pitch = 5 * 4
    copy.props.dst_height = 5
    copy.props.width_in_bytes = 5 * 4
    copy.props.height = 5
    copy.props.depth = 3
    copy.execute(None)
    np.testing.assert_array_equal(part, a[1:4, 2:7, 3:8])


# ---------------------------------------------------------------- 1D array copies (memcpy_*toa, memcpy_ato*)

def array_1d(width, fmt=GCuda.ArrayFormat.FLOAT, channels=1):
    return GCuda.Array.new(None, GCuda.ArrayDescriptor.new(width, 0, 0, fmt, channels, GCuda.ArrayFlags.NONE))


def test_1d_copies_refuse_what_is_no_array_or_buffer():
    # TypeErrors raised before the driver is needed.
    with pytest.raises(TypeError):
        GCuda.memcpy_htoa(None, 0, np.zeros(4, np.float32))
    with pytest.raises(TypeError):
        GCuda.memcpy_atoh(np.zeros(4, np.float32), 'ary', 0)
    with pytest.raises(TypeError):
        GCuda.memcpy_dtoa(object(), 0, None, 16)
    with pytest.raises(TypeError):
        GCuda.memcpy_atod(None, [], 0, 16)
    with pytest.raises(TypeError):
        GCuda.memcpy_atoa(None, 0, None, 0, 16)
    from gi.overrides import GCuda as impl
    for name in ('memcpy_htoa', 'memcpy_atoh', 'memcpy_dtoa', 'memcpy_atod', 'memcpy_atoa'):
        assert name in impl.__all__


@gpu
def test_1d_copies_every_direction(rng):
    w = 1000
    model = rng.standard_normal(w).astype(np.float32)
    ary = array_1d(w)

    # htoa: all of it, then 300 elements at element 17, then from bytes at the last element
    GCuda.memcpy_htoa(ary, 0, model)
    np.testing.assert_array_equal(ary.to_numpy(), model)
    part = rng.standard_normal(300).astype(np.float32)
    GCuda.memcpy_htoa(ary, 17 * 4, part)
    model[17:317] = part
    np.testing.assert_array_equal(ary.to_numpy(), model)
    last = rng.standard_normal(1).astype(np.float32)
    GCuda.memcpy_htoa(ary, (w - 1) * 4, last.tobytes())
    model[-1] = last[0]
    np.testing.assert_array_equal(ary.to_numpy(), model)

    # atoh: into a numpy array and into a bytearray
    dest = np.zeros(200, np.float32)
    GCuda.memcpy_atoh(dest, ary, 123 * 4)
    np.testing.assert_array_equal(dest, model[123:323])
    raw = bytearray(399 * 4)
    GCuda.memcpy_atoh(raw, ary, 601 * 4)
    np.testing.assert_array_equal(np.frombuffer(raw, np.float32), model[601:])

    # empty copies change nothing
    GCuda.memcpy_htoa(ary, w * 4, b'')
    GCuda.memcpy_atoh(np.zeros(0, np.float32), ary, 8)
    np.testing.assert_array_equal(ary.to_numpy(), model)

    # dtoa: 250 elements from element 64 of a buffer (a view) into element 500
    bmodel = rng.standard_normal(2000).astype(np.float32)
    buf = GCuda.to_device(bmodel)
    GCuda.memcpy_dtoa(ary, 500 * 4, buf.new_view(64 * 4, 250 * 4), 250 * 4)
    model[500:750] = bmodel[64:314]
    np.testing.assert_array_equal(ary.to_numpy(), model)

    # atod: 400 elements from element 10 into element 1000 of the buffer
    GCuda.memcpy_atod(buf.new_view(1000 * 4, 400 * 4), ary, 10 * 4, 400 * 4)
    bmodel[1000:1400] = model[10:410]
    np.testing.assert_array_equal(GCuda.from_device(buf, bmodel.shape, bmodel.dtype), bmodel)

    # atoa: into an int32 array (same element size: the bits as they are),
    # then within one array
    other_model = rng.integers(-2**31, 2**31, 600, dtype=np.int32)
    other = array_1d(600, GCuda.ArrayFormat.SIGNED_INT32)
    GCuda.memcpy_htoa(other, 0, other_model)
    GCuda.memcpy_atoa(other, 7 * 4, ary, 300 * 4, 350 * 4)
    other_model[7:357] = model[300:650].view(np.int32)
    np.testing.assert_array_equal(other.to_numpy(), other_model)
    np.testing.assert_array_equal(ary.to_numpy(), model)
    GCuda.memcpy_atoa(ary, 0, ary, 800 * 4, 100 * 4)
    model[0:100] = model[800:900]
    np.testing.assert_array_equal(ary.to_numpy(), model)


@gpu
def test_1d_copies_of_multichannel_elements(rng):
    # float2 elements (8 bytes): complex64 data, offsets in bytes
    model = (rng.standard_normal(333) + 1j * rng.standard_normal(333)).astype(np.complex64)
    ary = array_1d(333, GCuda.ArrayFormat.FLOAT, 2)
    GCuda.memcpy_htoa(ary, 0, model)
    part = (rng.standard_normal(50) + 1j * rng.standard_normal(50)).astype(np.complex64)
    GCuda.memcpy_htoa(ary, 281 * 8, part)
    model[281:331] = part
    dest = np.zeros(333, np.complex64)
    GCuda.memcpy_atoh(dest, ary, 0)
    np.testing.assert_array_equal(dest, model)
    buf = GCuda.Buffer.new(None, 100 * 8)
    GCuda.memcpy_atod(buf, ary, 3 * 8, 100 * 8)
    np.testing.assert_array_equal(GCuda.from_device(buf, (100,), np.complex64), model[3:103])


@gpu
def test_1d_copies_bad_input(rng):
    w = 64
    model = rng.standard_normal(w).astype(np.float32)
    ary = array_1d(w)
    GCuda.memcpy_htoa(ary, 0, model)
    buf = GCuda.Buffer.new(None, 1024)
    host = np.zeros(16, np.float32)

    # not 1D: a 2D array
    flat2d = GCuda.matrix_to_array(rng.standard_normal((4, 16)).astype(np.float32), 'C')
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.memcpy_htoa(flat2d, 0, host)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_atoh(host, flat2d, 0)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_dtoa(flat2d, 0, buf, 16)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_atod(buf, flat2d, 0, 16)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_atoa(ary, 0, flat2d, 0, 16)
    # all of a 2D array is one copy, as Array.upload(0, data) of its whole size
    whole = rng.standard_normal((4, 16)).astype(np.float32)
    GCuda.memcpy_htoa(flat2d, 0, whole)
    back2d = np.zeros_like(whole)
    GCuda.memcpy_atoh(back2d, flat2d, 0)
    np.testing.assert_array_equal(back2d, whole)
    flat2d.upload(0, whole[::-1].tobytes())
    assert flat2d.download(0, flat2d.get_size()).get_data() == whole[::-1].tobytes()

    # out of bounds: offset past the end, size past the end, overflow-sized values
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        GCuda.memcpy_htoa(ary, (w + 1) * 4, np.zeros(1, np.float32))
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GCuda.memcpy_htoa(ary, 4, model)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GCuda.memcpy_atoh(np.zeros(w + 1, np.float32), ary, 0)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GCuda.memcpy_atoh(host, ary, (1 << 64) - 4)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GCuda.memcpy_dtoa(ary, 0, buf, (1 << 64) - 4)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GCuda.memcpy_dtoa(ary, 0, buf.new_view(1000, 24), 64)   # past the buffer
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GCuda.memcpy_atod(buf, ary, 0, w * 4 + 4)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GCuda.memcpy_atoa(ary, 4, ary, 0, w * 4)
    with pytest.raises(OverflowError):
        GCuda.memcpy_htoa(ary, -4, host)
    with pytest.raises(OverflowError):
        GCuda.memcpy_atoa(ary, 0, ary, 0, 1 << 64)

    # not whole elements
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_htoa(ary, 2, host)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_atod(buf, ary, 0, 6)

    # element sizes differ (4 and 8 bytes)
    wide = array_1d(32, GCuda.ArrayFormat.FLOAT, 2)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_atoa(wide, 0, ary, 0, 16)

    # an integer device address is taken as PyCUDA takes it, checked
    # against the allocation it lies in (buf: 1024 bytes of its own)
    address = int(buf)
    values = rng.standard_normal(4).astype(np.float32)
    GCuda.memcpy_htod(buf.new_view(512, 16), values)
    GCuda.memcpy_dtoa(ary, 0, address + 512, 16)
    got = np.empty(4, np.float32)
    GCuda.memcpy_atoh(got, ary, 0)
    np.testing.assert_array_equal(got, values)
    model[:4] = values
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_dtoa(ary, 0, address + 1024 - 8, 16)   # runs past the allocation

    # a read-only destination
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_atoh(b'\0' * 16, ary, 0)

    # freed array, freed buffer
    freed = array_1d(w)
    freed.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        GCuda.memcpy_htoa(freed, 0, host)
    with raises_gerror(GCuda.Error.FREED):
        GCuda.memcpy_atoh(host, freed, 0)
    with raises_gerror(GCuda.Error.FREED):
        GCuda.memcpy_atoa(ary, 0, freed, 0, 16)
    dead = GCuda.Buffer.new(None, 1024)
    dead.free()
    with raises_gerror(GCuda.Error.FREED):
        GCuda.memcpy_dtoa(ary, 0, dead, 16)
    with raises_gerror(GCuda.Error.FREED):
        GCuda.memcpy_atod(dead, ary, 0, 16)

    # a buffer and an array of another context
    other = GCuda.Context.get_default().get_device().create_context(GCuda.ContextFlags.SCHED_AUTO)
    try:
        foreign_buf = GCuda.Buffer.new(other, 1024)
        foreign = GCuda.Array.new(other, ary.get_descriptor())
        with raises_gerror(GCuda.Error.CONTEXT_MISMATCH):
            GCuda.memcpy_dtoa(ary, 0, foreign_buf, 16)
        with raises_gerror(GCuda.Error.CONTEXT_MISMATCH):
            GCuda.memcpy_atod(foreign_buf, ary, 0, 16)
        with raises_gerror(GCuda.Error.CONTEXT_MISMATCH):
            GCuda.memcpy_atoa(foreign, 0, ary, 0, 16)
        del foreign, foreign_buf
    finally:
        other.destroy()

    # nothing of that touched the array
    np.testing.assert_array_equal(ary.to_numpy(), model)


# ---------------------------------------------------------------- surfaces

@gpu
@pytest.mark.parametrize('order', ['C', 'F'])
def test_3d_surface_written_then_read(mod, rng, order):
    a = rng.standard_normal((4, 9, 13)).astype(np.float32)
    if order == 'F':
        a = np.asfortranarray(a.T)  # (width, height, depth)
    ary = GCuda.np_to_array(a, order, allow_surface_bind=True)
    surf = GCuda.Surface.new(ary)
    w, h, d = extents(ary)
    mod.get_function('surf3d_twice_plus_z')(handle(surf), np.int32(w), np.int32(h), np.int32(d),
                                            block=BLOCK, grid=grid_for(w, h, d))
    GCuda.Context.get_default().synchronize()
    z = np.arange(d, dtype=np.float32)
    want = 2 * a + (z[:, None, None] if order == 'C' else z[None, None, :])
    np.testing.assert_allclose(ary.to_numpy(order=order), want, rtol=1e-6)
    # Read as a texture afterwards, transposed for 'F'.
    tex = GCuda.make_texture(ary)
    dest = np.zeros((d, h, w), np.float32)
    mod.get_function('read_float32_3d')(GCuda.Out(dest), handle(tex), np.int32(w), np.int32(h), np.int32(d),
                                        block=BLOCK, grid=grid_for(w, h, d))
    np.testing.assert_allclose(dest, want if order == 'C' else want.T, rtol=1e-6)


@gpu
def test_2d_layered_surface_written_then_read(mod, rng):
    a = rng.standard_normal((3, 10, 12)).astype(np.float32)
    ary = GCuda.np_to_array(a, 'C', allow_surface_bind=True, layered=True)
    surf = GCuda.Surface.new(ary)
    w, h, layers = extents(ary)
    mod.get_function('surf_layered_twice_plus_layer')(handle(surf), np.int32(w), np.int32(h), np.int32(layers),
                                                      block=BLOCK, grid=grid_for(w, h, layers))
    GCuda.Context.get_default().synchronize()
    want = 2 * a + np.arange(layers, dtype=np.float32)[:, None, None]
    np.testing.assert_allclose(ary.to_numpy(), want, rtol=1e-6)


# ---------------------------------------------------------------- bad input

@gpu
def test_bad_input():
    plain = GCuda.matrix_to_array(np.ones((4, 4), np.float32), 'C')
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Surface.new(plain)

    buf = GCuda.Buffer.new(None, 4096)
    buf.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        GCuda.Texture.new_from_buffer(buf, GCuda.ArrayFormat.FLOAT, 1, None)

    live = GCuda.Buffer.new(None, 4096)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.Texture.new_from_buffer(live, GCuda.ArrayFormat.FLOAT, 3, None)

    freed = GCuda.np_to_array(np.ones((4, 4), np.float32), 'C', allow_surface_bind=True)
    freed.free()
    with raises_gerror(GCuda.Error.FREED):
        GCuda.Surface.new(freed)
    with raises_gerror(GCuda.Error.FREED):
        GCuda.make_texture(freed)
    with raises_gerror(GCuda.Error.FREED):
        freed.to_numpy()

    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        plain.upload(0, b'\0' * 10)

    # Beyond the device's limits: the driver refuses (INVALID_VALUE).
    with pytest.raises(GLib.Error) as info:
        GCuda.Array.new(None, GCuda.ArrayDescriptor.new(1 << 30, 1 << 20, 0, GCuda.ArrayFormat.UNSIGNED_INT8, 1,
                                                        GCuda.ArrayFlags.NONE))
    assert info.value.domain == 'gcuda-driver-error-quark', info.value.message
