# Arrays, texture objects and surface objects from Python, ported from
# PyCUDA's texture tests to texture objects (CUDA 12 removed texture
# references): 2D textures in C and F order, two textures summed, float4
# multichannel and linear textures, 2D and 3D textures of int16, float32,
# float64, complex64 and complex128 (the 64-bit ones through int2/int4),
# a 2D layered texture, 3D and 2D-layered surfaces written then read, and
# bad input.
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

from gcudatest import gpu, raises_gerror  # noqa: E402

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
    other.copy_from_array(ary)
    back = GCuda.Buffer.new(None, a.nbytes)
    other.copy_to_buffer(back, 0)
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
        plain.upload(b'\0' * 10)

    # Beyond the device's limits: the driver refuses (INVALID_VALUE).
    with pytest.raises(GLib.Error) as info:
        GCuda.Array.new(None, GCuda.ArrayDescriptor.new(1 << 30, 1 << 20, 0, GCuda.ArrayFormat.UNSIGNED_INT8, 1,
                                                        GCuda.ArrayFlags.NONE))
    assert info.value.domain == 'gcuda-driver-error-quark', info.value.message
