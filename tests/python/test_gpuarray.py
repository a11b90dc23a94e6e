# gcuda.gpuarray (PyCUDA's GPUArray as a device container) and
# gcuda._dtypes (PyCUDA's dtype machinery and vector types).
#
# Without the gpu marker (run in nogpu too, the driver made unloadable):
# dtype_to_ctype, the registry, parse_c_arg, the vector types checked
# against CUDA's own sizes, alignments and offsets (NVRTC compiles
# static_asserts), GPUArray's shape and stride logic over a fake device
# address compared with numpy's, the NotImplementedError messages and the
# CUDA Array Interface dict. With it: transfers, fills, slices, views,
# streams, foreign memory and kernels on a GPU, against numpy with fresh
# random data.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import warnings

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from gcuda import _dtypes, gpuarray  # noqa: E402
from gcuda.gpuarray import GPUArray, vec  # noqa: E402
from gcudatest import gpu, raises_gerror, require_nvrtc  # noqa: E402

FAKE_ADDRESS = 0x7f0000000000  # never dereferenced: layout tests only


def rng():
    return np.random.default_rng()  # fresh, unseeded: new data every run


class Holder:
    """PyCUDA's PointerHolderBase as user code writes it: get_pointer()."""

    def __init__(self, address, keep=None):
        self.address = address
        self.keep = keep

    def get_pointer(self):
        return self.address


def random_array(shape, dtype):
    """Fresh random bits for any dtype (compared as bytes: NaNs are fine)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return np.frombuffer(rng().bytes(n), np.uint8).copy().view(dtype).reshape(shape)


def fake(shape, dtype=np.float32, order='C', strides=None):
    return GPUArray(shape, dtype, gpudata=Holder(FAKE_ADDRESS), order=order, strides=strides)


# ---------------------------------------------------------------- dtype_to_ctype

SCALARS = [
    (np.bool_, 'bool'), (np.int8, 'signed char'), (np.uint8, 'unsigned char'), (np.int16, 'short'),
    (np.uint16, 'unsigned short'), (np.int32, 'int'), (np.uint32, 'unsigned'), (np.int64, 'long'),
    (np.uint64, 'unsigned long'), (np.intc, 'int'), (np.uintc, 'unsigned'), (np.longlong, 'long'),
    (np.ulonglong, 'unsigned long'), (np.intp, 'long'), (np.uintp, 'unsigned long'), (np.float16, '__half'),
    (np.float32, 'float'), (np.float64, 'double'), (np.complex64, 'pycuda::complex<float>'),
    (np.complex128, 'pycuda::complex<double>'),
]


@pytest.mark.parametrize('dtype,ctype', SCALARS, ids=[np.dtype(t).name for t, _ in SCALARS])
def test_dtype_to_ctype_scalars(dtype, ctype):
    assert _dtypes.dtype_to_ctype(dtype) == ctype
    assert _dtypes.dtype_to_ctype(np.dtype(dtype)) == ctype
    assert _dtypes.dtype_to_ctype(np.dtype(dtype).str) == ctype
    # and back: the name parses to the same dtype
    assert _dtypes.parse_c_arg('%s x' % ctype).dtype == np.dtype(dtype)


def test_every_numpy_scalar_type_maps_or_says_why():
    types = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
             np.longlong, np.ulonglong, np.float16, np.float32, np.float64, np.longdouble, np.complex64,
             np.complex128, np.clongdouble, np.object_, np.bytes_, np.str_, np.void, np.datetime64, np.timedelta64]
    for t in types:
        dt = np.dtype(t)
        if dt.kind in 'biufc' and dt not in (np.dtype(np.longdouble), np.dtype(np.clongdouble)):
            assert _dtypes.dtype_to_ctype(dt), dt
        else:
            with pytest.raises(ValueError, match='unable to map dtype'):
                _dtypes.dtype_to_ctype(dt)
    with pytest.raises(ValueError, match='may not be None'):
        _dtypes.dtype_to_ctype(None)
    with pytest.raises(ValueError):
        _dtypes.dtype_to_ctype(np.dtype([('a', np.int32), ('b', np.int8)]))  # never registered


def test_fp_tex_hack_names():
    assert _dtypes.dtype_to_ctype(np.float32, with_fp_tex_hack=True) == 'fp_tex_float'
    assert _dtypes.dtype_to_ctype(np.float64, with_fp_tex_hack=True) == 'fp_tex_double'
    assert _dtypes.dtype_to_ctype(np.complex64, with_fp_tex_hack=True) == 'fp_tex_cfloat'
    assert _dtypes.dtype_to_ctype(np.complex128, with_fp_tex_hack=True) == 'fp_tex_cdouble'
    assert _dtypes.dtype_to_ctype(np.int32, with_fp_tex_hack=True) == 'int'


# PyCUDA registers the vector types in this order, so equal dtypes
# (long2, longlong2) give the first name
VEC_CTYPES = {
    'char1': 'char1', 'uchar4': 'uchar4', 'short3': 'short3', 'ushort2': 'ushort2', 'int4': 'int4',
    'uint3': 'uint3', 'long1': 'long1', 'ulong4': 'ulong4', 'longlong1': 'long1', 'longlong2': 'long2',
    'ulonglong2': 'ulong2', 'float1': 'float1', 'float2': 'float2', 'float3': 'float3', 'float4': 'float4',
    'double1': 'double1', 'double2': 'double2', 'double3': 'double3', 'double4': 'double4',
    'double4_16a': 'double4', 'longlong3': 'long3',
}


def test_dtype_to_ctype_vector_types():
    for name, ctype in VEC_CTYPES.items():
        assert _dtypes.dtype_to_ctype(getattr(vec, name)) == ctype, name
    # as PyCUDA builds them: equal to a plain numpy struct of x, y, z, w
    plain = np.dtype([('x', np.float32), ('y', np.float32), ('z', np.float32), ('w', np.float32)])
    assert vec.float4 == plain and hash(vec.float4) == hash(plain)
    assert _dtypes.dtype_to_ctype(plain) == 'float4'
    assert _dtypes.parse_c_arg('float4 *v').dtype == vec.float4
    assert _dtypes.parse_c_arg('const double2 d').dtype == vec.double2


# ---------------------------------------------------------------- the registry

def test_get_or_register_dtype():
    reg = _dtypes.DTypeRegistry()
    dt = np.dtype([('re', np.float32), ('im', np.float32), ('n', np.int32)])
    got = reg.get_or_register_dtype(['my_struct', 'struct my_struct'], dt)
    assert got == dt
    assert reg.dtype_to_ctype(dt) == 'my_struct'
    assert reg.get_or_register_dtype('struct my_struct') is got
    assert reg.get_or_register_dtype(['my_struct', 'struct my_struct']) is got
    # an equal dtype registered again keeps the first object and name
    again = reg.get_or_register_dtype('alias_struct', np.dtype(dt.descr))
    assert again is got and reg.dtype_to_ctype(dt) == 'my_struct'
    with pytest.raises(RuntimeError, match='already registered to different dtype'):
        reg.get_or_register_dtype('my_struct', np.int16)
    assert 'my_struct' in reg.name_to_dtype and reg.name_to_dtype['my_struct'] == dt  # unchanged
    with pytest.raises(_dtypes.TypeNameNotKnown):
        reg.get_or_register_dtype('nope')


def test_global_registry_and_parse_c_arg_of_a_registered_struct():
    dt = np.dtype([('a', np.float64), ('b', np.int32), ('c', np.int32)])
    assert _dtypes.get_or_register_dtype('gpuarray_test_struct', dt) == dt
    assert _dtypes.dtype_to_ctype(dt) == 'gpuarray_test_struct'
    arg = _dtypes.parse_c_arg('gpuarray_test_struct s')
    assert isinstance(arg, _dtypes.ScalarArg) and arg.dtype == dt
    assert arg.struct_char == '16s'
    assert _dtypes.get_arg_type('const gpuarray_test_struct *s') == 'P'


def test_register_dtype_is_deprecated_and_refuses_aliases():
    dt = np.dtype([('p', np.int16), ('q', np.int16), ('r', np.int8)])
    with pytest.warns(DeprecationWarning):
        _dtypes.register_dtype(dt, 'gpuarray_test_small')
    with pytest.warns(DeprecationWarning), pytest.raises(RuntimeError, match='already registered'):
        _dtypes.register_dtype(dt, 'gpuarray_test_small2')
    with pytest.warns(DeprecationWarning):
        _dtypes.register_dtype(dt, 'gpuarray_test_small2', alias_ok=True)
    assert _dtypes.dtype_to_ctype(dt) == 'gpuarray_test_small'
    assert _dtypes.parse_c_arg('gpuarray_test_small2 x').dtype == dt


# ---------------------------------------------------------------- parse_c_arg

PARSES = [
    ('float *a', _dtypes.VectorArg, np.float32, 'a', 'P'),
    ('const float *__restrict__ a', _dtypes.VectorArg, np.float32, 'a', 'P'),
    ('double b[]', _dtypes.VectorArg, np.float64, 'b', 'P'),
    ('int c[16]', _dtypes.VectorArg, np.int32, 'c', 'P'),
    ('unsigned int n', _dtypes.ScalarArg, np.uint32, 'n', 'I'),
    ('unsigned n', _dtypes.ScalarArg, np.uint32, 'n', 'I'),
    ('  volatile   short   s ', _dtypes.ScalarArg, np.int16, 's', 'h'),
    ('long long ll', _dtypes.ScalarArg, np.int64, 'll', 'l'),
    ('unsigned long long ull', _dtypes.ScalarArg, np.uint64, 'ull', 'L'),
    ('int64_t i64', _dtypes.ScalarArg, np.int64, 'i64', 'l'),
    ('size_t n', _dtypes.ScalarArg, np.uint64, 'n', 'L'),
    ('uint u', _dtypes.ScalarArg, np.uint32, 'u', 'I'),
    ('char c', _dtypes.ScalarArg, np.int8, 'c', 'b'),
    ('unsigned char *bytes', _dtypes.VectorArg, np.uint8, 'bytes', 'P'),
    ('float f', _dtypes.ScalarArg, np.float32, 'f', 'f'),
    ('double d', _dtypes.ScalarArg, np.float64, 'd', 'd'),
    ('pycuda::complex<float> z', _dtypes.ScalarArg, np.complex64, 'z', 'F'),
    ('cuDoubleComplex *z', _dtypes.VectorArg, np.complex128, 'z', 'P'),
    ('float3 v', _dtypes.ScalarArg, vec.float3, 'v', '12s'),
    ('float4 **pp', _dtypes.VectorArg, vec.float4, 'pp', 'P'),
    ('int constant_count', _dtypes.ScalarArg, np.int32, 'constant_count', 'i'),  # 'const' inside a name
]


@pytest.mark.parametrize('decl,cls,dtype,name,char', PARSES, ids=[p[0].strip() for p in PARSES])
def test_parse_c_arg(decl, cls, dtype, name, char):
    arg = _dtypes.parse_c_arg(decl)
    assert type(arg) is cls
    assert arg.dtype == np.dtype(dtype)
    assert arg.name == name
    assert arg.struct_char == char
    assert _dtypes.get_arg_type(decl) == char
    ctype = _dtypes.dtype_to_ctype(dtype)
    assert arg.declarator() == ('%s *%s' % (ctype, name) if cls is _dtypes.VectorArg else '%s %s' % (ctype, name))
    assert name in repr(arg)


def test_parse_c_arg_errors():
    with pytest.raises(ValueError, match="unknown type 'quux'"):
        _dtypes.parse_c_arg('quux *a')
    with pytest.raises(ValueError, match="couldn't parse C declarator"):
        _dtypes.parse_c_arg('float *')
    with pytest.raises(ValueError, match="couldn't parse C declarator"):
        _dtypes.parse_c_arg('')
    with pytest.raises(TypeError):
        _dtypes.parse_c_arg(None)


def test_tools_names_are_importable_from_the_package():
    from gcuda import _dtypes as d
    for name in ('dtype_to_ctype', 'parse_c_arg', 'VectorArg', 'ScalarArg', 'get_arg_type', 'register_dtype',
                 'get_or_register_dtype', 'vec'):
        assert hasattr(d, name)
    assert gpuarray.vec is _dtypes.vec


# ---------------------------------------------------------------- vector types against CUDA

def vec_types():
    return sorted(name for name in vars(vec) if not name.startswith('make_'))


def test_vector_type_names_are_pycudas_and_cudas():
    names = set(vec_types())
    pycuda = {'%s%d' % (b, n) for b in ('char', 'uchar', 'short', 'ushort', 'int', 'uint', 'long', 'ulong', 'float')
              for n in (1, 2, 3, 4)} | {'longlong1', 'longlong2', 'ulonglong1', 'ulonglong2', 'double1', 'double2'}
    assert pycuda <= names
    assert {'double3', 'double4', 'longlong3', 'longlong4', 'ulonglong4', 'double4_16a', 'double4_32a'} <= names
    for name in names:
        assert callable(getattr(vec, 'make_' + name))


def test_vector_types_match_cuda_sizes_alignments_and_offsets():
    """NVRTC checks every vector type's sizeof and alignof against the
    numpy dtype's itemsize and cuda_alignment() (no GPU needed). NVRTC has
    no offsetof, but a struct of n members of one type whose size is n
    times the member's has no padding: its offsets are 0, s, 2s, ...,
    which the dtype's must be."""
    from gcuda import compiler
    lines = []
    for name in vec_types():
        dt = getattr(vec, name)
        fields = list(dt.fields.items())
        base = fields[0][1][0]
        lines.append('static_assert(sizeof(%s) == %d, "sizeof(%s)");' % (name, dt.itemsize, name))
        lines.append('static_assert(sizeof(%s) == %d * sizeof(((%s *) 0)->x), "packed %s");'
                     % (name, len(fields), name, name))
        lines.append('static_assert(alignof(%s) == %d, "alignof(%s)");'
                     % (name, _dtypes.cuda_alignment(dt), name))
        assert [f for f, _ in fields] == ['x', 'y', 'z', 'w'][:len(fields)]
        assert [offset for _, (_, offset) in fields] == [i * base.itemsize for i in range(len(fields))], name
        assert all(t == base for _, (t, _) in fields) and dt.itemsize == len(fields) * base.itemsize
    require_nvrtc()  # the checks above need none, those below do
    source = '\n'.join(lines) + '\n__global__ void gpuarray_vec_check() {}\n'
    # the deprecated 4-element 64-bit names only warn
    cubin = compiler.compile(source, arch='sm_90', cache_dir=False)
    assert cubin[:4] == b'\x7fELF'
    # the checks do check: one wrong alignment fails to compile
    with pytest.raises(GCuda.CompileError, match='alignof'):
        compiler.compile('static_assert(alignof(float4) == 4, "alignof");\n__global__ void k() {}\n',
                         arch='sm_90', cache_dir=False)


def test_vector_alignment_values():
    expected = {'char1': 1, 'char2': 2, 'char3': 1, 'char4': 4, 'short2': 4, 'short3': 2, 'short4': 8,
                'int2': 8, 'int3': 4, 'int4': 16, 'float2': 8, 'float3': 4, 'float4': 16, 'long2': 16,
                'double1': 8, 'double2': 16, 'double3': 8, 'double4': 16, 'double4_32a': 32, 'longlong2': 16}
    for name, alignment in expected.items():
        assert _dtypes.cuda_alignment(getattr(vec, name)) == alignment, name
    assert vec.float3.itemsize == 12 and vec.float4.itemsize == 16 and vec.double2.itemsize == 16
    assert vec.char3.itemsize == 3 and vec.double4.itemsize == 32
    assert _dtypes.cuda_alignment(np.float64) == 8
    assert _dtypes.cuda_alignment(np.complex128) == 16
    assert _dtypes.cuda_alignment(np.dtype([('a', np.int8), ('v', vec.float4)])) == 16


def test_make_vector_values():
    v = vec.make_float3(1.5, -2.25, 3)
    assert v.dtype == vec.float3 and v.shape == ()
    assert (float(v['x']), float(v['y']), float(v['z'])) == (1.5, -2.25, 3.0)
    assert v.tobytes() == np.array([1.5, -2.25, 3.0], np.float32).tobytes()
    r = rng().integers(-2**31, 2**31, 4)
    i4 = vec.make_int4(*r)
    assert i4.tobytes() == r.astype(np.int32).tobytes()
    d2 = vec.make_double2(y=2.0, x=1.0)
    assert (float(d2['x']), float(d2['y'])) == (1.0, 2.0)
    u1 = vec.make_uchar1(255)
    assert u1.dtype.itemsize == 1 and int(u1['x']) == 255
    with pytest.raises(TypeError):
        vec.make_float3(1, 2)
    with pytest.raises(TypeError):
        vec.make_float2(1, 2, 3)
    with pytest.raises(TypeError):
        vec.make_float2(1, q=2)
    # arrays of them pack without padding, as CUDA's
    a = np.zeros(5, vec.float3)
    assert a.nbytes == 60


# ---------------------------------------------------------------- layout logic (fake memory)

def offset_of(view, base):
    return view.ptr - base.ptr


def host_offset(view, base):
    return view.__array_interface__['data'][0] - base.__array_interface__['data'][0]


INDICES = [
    (slice(1, 3),), (slice(None, None, 2),), (slice(None, None, -1),), (slice(5, 1, -2),), (2,), (-1,),
    (1, 2), (slice(None), 3), (Ellipsis, 1), (None, Ellipsis), (slice(1, 4), None, slice(None, None, 3)),
    (0, Ellipsis, None), (slice(2, 2),), (slice(3, 1),), (slice(None), slice(-2, None), 0),
]


@pytest.mark.parametrize('index', INDICES, ids=[repr(i) for i in INDICES])
def test_getitem_layout_matches_numpy(index):
    shape = (6, 5, 4)
    host = np.empty(shape, np.float64)
    a = fake(shape, np.float64)
    assert a.strides == host.strides
    v, h = a[index], host[index]
    assert v.shape == h.shape
    if v.size:
        # (the stride of a length-1 axis never matters)
        assert [s for s, d in zip(v.strides, v.shape) if d != 1] == [s for s, d in zip(h.strides, h.shape) if d != 1]
        assert offset_of(v, a) == host_offset(h, host)
        assert v.flags.c_contiguous == h.flags.c_contiguous
        assert v.base is a
    else:
        assert v.gpudata is None


def test_getitem_errors():
    a = fake((4, 3))
    with pytest.raises(IndexError):
        a[4]
    with pytest.raises(IndexError):
        a[0, -4]
    with pytest.raises(IndexError):
        a[0, 0, 0]
    with pytest.raises(IndexError):
        a[..., ...]
    with pytest.raises(IndexError):
        a[[0, 1]]  # no fancy indexing


def test_views_of_foreign_memory_are_addresses():
    a = fake((10,), np.int32)
    assert a.ptr == FAKE_ADDRESS and isinstance(a.gpudata, Holder)
    v = a[3:]
    assert v.gpudata == FAKE_ADDRESS + 12 and v.ptr == FAKE_ADDRESS + 12  # as PyCUDA: int(gpudata) + offset
    assert a[:4].gpudata is a.gpudata  # same start: the same object


def test_shapes_sizes_strides_and_flags():
    for shape in [(), (0,), (7,), (3, 4), (2, 3, 4), (1, 5, 1), (0, 3)]:
        for order in 'CF':
            host = np.empty(shape, np.complex64, order=order)
            a = fake(shape, np.complex64, order=order)
            assert a.shape == host.shape
            assert a.strides == host.strides or not host.size  # (numpy's for empty arrays vary)
            assert a.size == a.mem_size == host.size and a.nbytes == host.nbytes
            assert a.ndim == host.ndim and a.itemsize == 8 and a.dtype == np.complex64
            assert a.flags.c_contiguous == host.flags.c_contiguous, (shape, order)
            assert a.flags.f_contiguous == host.flags.f_contiguous, (shape, order)
            assert a.flags.forc
            if shape:
                assert len(a) == shape[0]
            else:
                with pytest.raises(TypeError):
                    len(a)
    a = fake(np.int64(5))
    assert a.shape == (5,) and isinstance(a.shape[0], int)
    a = fake(np.array([2, 3]))
    assert a.shape == (2, 3)
    with pytest.raises(ValueError):
        fake((2, -1))
    with pytest.raises(ValueError):
        fake((2, 3), order='X')
    with pytest.raises(ValueError):
        fake((2, 3), strides=(4,))
    with pytest.raises(TypeError):
        fake((2.5, 3))
    with pytest.raises(TypeError):
        GPUArray((3,), object, gpudata=Holder(FAKE_ADDRESS))
    with pytest.raises(TypeError, match='gpudata must be device memory'):
        GPUArray((3,), np.float32, gpudata='nope')
    # a negative stride needs memory given
    with pytest.raises(ValueError):
        GPUArray((3,), np.float32, strides=(-4,))


def test_reshape_view_ravel_squeeze_transpose_match_numpy():
    host = np.empty((4, 6), np.float32)
    a = fake((4, 6))
    for shape in [(24,), (2, 12), (-1, 3), (2, 3, 4), ((3, 8),)]:
        r = a.reshape(*shape)
        h = host.reshape(*shape)
        assert r.shape == h.shape and r.strides == h.strides and r.ptr == a.ptr and r.base is a
    assert a.reshape(4, 6) is a
    # reading a C array in F order would need a copy (numpy makes one)
    with pytest.raises(ValueError, match='would need a copy'):
        a.reshape(6, 4, order='F')
    fa, fh = fake((4, 6), order='F'), np.empty((4, 6), np.float32, order='F')
    f = fa.reshape(3, 8, order='F')
    assert f.strides == fh.reshape(3, 8, order='F').strides and f.flags.f_contiguous
    with pytest.raises(ValueError):
        a.reshape(5, 5)
    with pytest.raises(ValueError):
        a.reshape(-1, -1)
    with pytest.raises(ValueError):
        a.reshape(7, -1)
    with pytest.raises(RuntimeError):
        a[:, ::2].reshape(12)
    assert a.ravel().shape == (24,) and a.ravel().strides == (4,)
    for dtype in (np.uint8, np.float64, vec.float2, np.int32, np.int16):
        v, h = a.view(dtype), host.view(dtype)
        assert v.shape == h.shape and v.strides == h.strides and v.dtype == np.dtype(dtype) and v.ptr == a.ptr
    with pytest.raises(ValueError):
        a.view(np.dtype((np.void, 20)))  # 24 bytes per row, not a multiple of 20
    s = fake((1, 5, 1, 3)).squeeze()
    assert s.shape == (5, 3) and s.strides == (12, 4)
    t = a.T
    assert t.shape == host.T.shape and t.strides == host.T.strides and t.flags.f_contiguous
    p = fake((2, 3, 4)).transpose((1, 2, 0))
    hp = np.empty((2, 3, 4), np.float32).transpose((1, 2, 0))
    assert p.shape == hp.shape and p.strides == hp.strides
    assert gpuarray.transpose(a).shape == (6, 4) and gpuarray.reshape(a, 24).shape == (24,)
    with pytest.raises(ValueError):
        a.transpose((0, 0))


def test_copy_plans():
    # packed: one run of bytes
    assert gpuarray._plan((4, 5), (20, 4), (20, 4), 4) == (0, 0, [20], [4], [4])
    # strided rows: 6 elements, pitches 8 and 4
    assert gpuarray._plan((2, 3), (24, 8), (12, 4), 4) == (0, 0, [1, 6], [0, 8], [0, 4])
    # a row block: rows of 3 elements
    assert gpuarray._plan((4, 3), (40, 4), (12, 4), 4) == (0, 0, [3, 4], [4, 40], [4, 12])
    # both reversed: made forward, from the last element
    assert gpuarray._plan((5,), (-8,), (-8,), 8) == (-32, -32, [5], [8], [8])
    # orders or directions differ, or elements repeat: no plan
    assert gpuarray._plan((2, 3), (4, 8), (12, 4), 4) is None
    assert gpuarray._plan((5,), (-4,), (4,), 4) is None
    assert gpuarray._plan((5,), (0,), (4,), 4) is None


# ---------------------------------------------------------------- view(dtype) by numpy's rules (fake memory)

VIEW_DTYPES = [np.int8, np.uint8, np.int16, np.float16, np.int32, np.float32, np.complex64, np.float64,
               np.complex128, vec.char3, vec.float3, vec.double2, np.dtype((np.void, 5)), np.dtype((np.void, 6)),
               np.dtype('>i4')]
# and what only a view can be asked for: subarrays, unsized types, objects
VIEW_TARGETS = VIEW_DTYPES + [np.dtype((np.float16, (2,))), np.dtype((np.int8, (2, 2))),
                              np.dtype((np.float32, (3,))), np.dtype('V'), np.dtype('S'), np.dtype(object)]


def random_index(r, ndim):
    """A random basic index for @ndim axes: slices with any step (negative
    too), integers, newaxis; an Ellipsis now and then."""
    index = []
    for _ in range(ndim):
        kind = r.integers(0, 4)
        if kind == 0:
            index.append(slice(None))
        elif kind == 1:
            index.append(('int', r.random()))  # made an integer of the axis below
        else:
            step = int(r.choice([-3, -2, -1, 1, 2, 3]))
            start, stop = (int(v) for v in r.integers(-6, 7, 2))
            index.append(slice(start if r.random() < 0.7 else None, stop if r.random() < 0.7 else None, step))
        if r.random() < 0.2:
            index.append(None)
    if r.random() < 0.2:
        index.insert(int(r.integers(0, len(index) + 1)), None)
    return index


def paired_random_layout(r, device=False):
    """(GPUArray, host array, root host array, root GPUArray, description):
    the same random layout on a fake device address (with @device, on
    device memory holding the root's random bytes) and on a numpy array,
    built from a packed root by slicing (negative steps, empty ones),
    integers, newaxis, transposes and stride-0 broadcasts."""
    dtype = np.dtype(VIEW_DTYPES[r.integers(0, len(VIEW_DTYPES))])
    shape = tuple(int(n) for n in r.integers(0, 6, r.integers(0, 4)))
    if device or r.random() < 0.9:
        shape = tuple(max(n, 1) for n in shape)  # mostly non-empty
    a = GPUArray(shape, dtype) if device else GPUArray(shape, dtype, gpudata=Holder(FAKE_ADDRESS))
    # (numpy's strides of empty arrays vary: GPUArray's packed ones)
    root = np.lib.stride_tricks.as_strided(random_array((a.size,), dtype), shape, a.strides)
    if device:
        a.set(root)
    first = a
    h = root
    steps = ['root %s %r' % (dtype, shape)]
    for _ in range(r.integers(0, 4)):
        op = r.integers(0, 3)
        if op == 0:
            index = random_index(r, a.ndim)
            axis, concrete = 0, []
            for entry in index:
                if isinstance(entry, tuple):  # an integer inside the axis, or a slice of an empty one
                    dim = a.shape[axis]
                    concrete.append(int(entry[1] * dim) - dim if dim else slice(None))
                    axis += 1
                else:
                    concrete.append(entry)
                    axis += entry is not None
            index = tuple(concrete)
            a, h = a[index], h[index + (Ellipsis,)]  # (numpy gives a scalar for h[()] of a 0-d h)
            steps.append('[%r]' % (index,))
        elif op == 1 and a.ndim:
            perm = tuple(int(p) for p in r.permutation(a.ndim))
            a, h = a.transpose(perm), h.transpose(perm)
            steps.append('.transpose(%r)' % (perm,))
        elif a.size:
            # a stride-0 axis: a length-1 axis broadcast, or a new one
            shape, strides = list(a.shape), list(a.strides)
            ones = [i for i, n in enumerate(shape) if n == 1]
            n = int(r.integers(1, 4))
            if ones and r.random() < 0.5:
                i = ones[r.integers(0, len(ones))]
                shape[i], strides[i] = n, 0
            else:
                i = int(r.integers(0, len(shape) + 1))
                shape.insert(i, n)
                strides.insert(i, 0)
            a = GPUArray(shape, a.dtype, gpudata=a, strides=strides)
            h = np.lib.stride_tricks.as_strided(h, shape, strides)
            steps.append('broadcast %r %r' % (tuple(shape), tuple(strides)))
    assert a.shape == h.shape and a.strides == h.strides, steps
    return a, h, root, first, ' '.join(steps)


def covered(shape, strides, itemsize):
    """[lo, hi) of the bytes a layout covers, from its first element."""
    if 0 in shape:
        return 0, 0
    lo = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    hi = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    return lo, hi + itemsize


def assert_exports_inside(v, start, nbytes, why):
    """What @v exports (ptr and __cuda_array_interface__) lies in the
    @nbytes bytes from @start."""
    cai = v.__cuda_array_interface__
    assert cai['shape'] == v.shape, why
    if not v.size:
        assert cai['data'][0] == 0, why
        return
    itemsize = np.dtype(cai['descr'] if 'descr' in cai else cai['typestr']).itemsize
    assert itemsize == v.itemsize, why
    strides = cai['strides'] if cai['strides'] is not None else v.strides
    lo, hi = covered(cai['shape'], strides, itemsize)
    assert cai['data'][0] == v.ptr, why
    assert start <= v.ptr + lo and v.ptr + hi <= start + nbytes, why


def test_view_matches_numpy_on_random_layouts():
    seed = np.random.SeedSequence().entropy
    r = np.random.default_rng(seed)
    outcomes = {'view': 0, 'refused': 0}
    for case in range(3000):
        a, h, root, first, steps = paired_random_layout(r)
        nbytes = root.nbytes
        target = np.dtype(VIEW_TARGETS[r.integers(0, len(VIEW_TARGETS))])
        why = 'seed %d case %d: %s .view(%r)' % (seed, case, steps, target)
        try:
            hv = h.view(target)
        except (ValueError, TypeError) as e:
            with pytest.raises(type(e)):
                a.view(target)
            outcomes['refused'] += 1
            continue
        v = a.view(target)
        outcomes['view'] += 1
        assert (v.shape, v.strides, v.dtype) == (hv.shape, hv.strides, hv.dtype), why
        assert v.base is a and v.flags.c_contiguous == hv.flags.c_contiguous, why
        if v.size:
            assert offset_of(v, a) == host_offset(hv, h), why
            assert v.ptr - FAKE_ADDRESS == host_offset(hv, root), why
        assert_exports_inside(v, FAKE_ADDRESS, nbytes, why)
        # and the view's views
        for w in ((v[::-1], v[..., ::2], v.T, v[None]) if v.ndim else (v[None], v[...])):
            assert_exports_inside(w, FAKE_ADDRESS, nbytes, why)
    assert outcomes['view'] > 300 and outcomes['refused'] > 100, outcomes


def test_view_reported_layouts():
    # 24 bytes, reversed: numpy refuses (the last axis is not contiguous)
    a = fake((3,), np.float64)
    for dtype in (np.float32, np.complex128, np.int8):
        with pytest.raises(ValueError, match='last axis must be contiguous'):
            a[::-1].view(dtype)
    with pytest.raises(ValueError, match='last axis must be contiguous'):
        fake((4,), np.float32)[::-1].view(np.float64)
    # a newaxis last: numpy's strides (8, 4), and the same bytes
    v = a[:, None].view(np.float32)
    assert v.shape == (3, 2) and v.strides == (8, 4) and v.ptr == a.ptr
    assert_exports_inside(v, FAKE_ADDRESS, 24, 'a[:, None]')
    v = a[::-1, None].view(np.float32)
    assert v.shape == (3, 2) and v.strides == (-8, 4) and v.ptr == a.ptr + 16
    assert_exports_inside(v, FAKE_ADDRESS, 24, 'a[::-1, None]')
    assert_exports_inside(v[::-1, ::-1], FAKE_ADDRESS, 24, 'a[::-1, None] reversed')
    # the last axis, not the one of the smallest stride (a Fortran array: numpy refuses)
    f = fake((4, 6), np.float32, order='F')
    with pytest.raises(ValueError, match='last axis must be contiguous'):
        f.view(np.float64)
    assert f.view(np.int32).strides == f.strides
    # numpy's other refusals, with its messages
    with pytest.raises(ValueError, match='0d array'):
        fake((), np.float32).view(np.float64)
    assert fake((), np.float32).view(np.int32).shape == ()
    with pytest.raises(ValueError, match='smaller dtype, its size must be a divisor'):
        fake((4,), np.float64).view(np.dtype((np.void, 3)))
    with pytest.raises(ValueError, match='larger dtype, its size must be a divisor'):
        fake((3,), np.float32).view(np.float64)
    with pytest.raises(ValueError, match='subarray type'):
        fake((3,), np.float32).view(np.dtype((np.float32, (2,))))
    with pytest.raises(TypeError, match='object array'):
        fake((3,), np.float64).view(object)
    # a subarray of the same size adds its axes; an unsized void takes the item size
    s = fake((3, 4), np.float32).view(np.dtype((np.float16, (2,))))
    assert s.shape == (3, 4, 2) and s.strides == (16, 4, 2) and s.dtype == np.float16
    assert fake((3,), vec.float3).view('V').dtype == np.dtype('V12')
    # an empty array: no contiguity asked, no bytes exported
    e = fake((0, 3), np.float32)[:, ::2].view(np.float64)
    assert e.shape == (0, 1) and e.strides == (12, 8) and e.__cuda_array_interface__['data'][0] == 0


def test_layouts_outside_the_memory_are_neither_made_nor_exported():
    a = fake((6,), np.float32)  # 24 bytes at FAKE_ADDRESS, as the caller said
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        a._view((7,), (4,))
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        a._view((2,), (-4,))  # one element before the first
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        a[2:]._view((2,), (4,), byte_offset=12)  # the end of a view is not the end of the memory
    # a GPUArray over another stays inside what the first was given
    assert GPUArray((5,), np.float32, gpudata=a[1:]).ptr == FAKE_ADDRESS + 4
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GPUArray((6,), np.float32, gpudata=a[1:])
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GPUArray((2,), np.float32, gpudata=a, strides=(-4,))
    # a layout changed by hand is not exported
    b = fake((6,), np.float32)
    b.strides = (8,)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        b.__cuda_array_interface__
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        b.__dlpack__()
    # the 64-bit address space, of which address 0 is no device memory
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GPUArray((4,), np.float32, gpudata=(1 << 64) - 8)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GPUArray((4,), np.float32, gpudata=0)
    assert GPUArray((0,), np.float32, gpudata=0).ptr == 0
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GPUArray((4,), np.float32, gpudata=Holder(8))[::-1]._view((4,), (-4,), byte_offset=-12)


class ForeignCAI:
    def __init__(self, cai):
        self.__cuda_array_interface__ = cai


def test_as_gpuarray_starts_at_the_data_pointer():
    # a reversed foreign array: its first element is the data pointer, its
    # lowest byte 12 bytes below
    f = ForeignCAI({'shape': (4,), 'strides': (-4,), 'typestr': '<f4', 'data': (FAKE_ADDRESS + 12, False),
                    'version': 3, 'stream': None})
    a = gpuarray.as_gpuarray(f)
    assert a.ptr == FAKE_ADDRESS + 12 and a.strides == (-4,) and a.gpudata is f
    assert_exports_inside(a, FAKE_ADDRESS, 16, 'reversed foreign array')
    r = a[::-1]
    assert r.ptr == FAKE_ADDRESS and r.strides == (4,)
    assert_exports_inside(r.view(np.uint8), FAKE_ADDRESS, 16, 'its bytes')
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        r._view((5,), (4,))
    # an array made over it must fit in what the interface describes
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GPUArray((5,), np.float32, gpudata=f)
    assert GPUArray((4,), np.float32, gpudata=f).ptr == FAKE_ADDRESS  # at its lowest byte
    # a malformed interface is refused with what is wrong
    bad = dict(f.__cuda_array_interface__, shape=(3, -1), strides=None)
    with pytest.raises(ValueError, match='negative dimension'):
        gpuarray.as_gpuarray(ForeignCAI(bad))
    with pytest.raises(TypeError, match='Python objects'):
        gpuarray.as_gpuarray(ForeignCAI(dict(bad, shape=(3,), typestr='|O')))


# ---------------------------------------------------------------- what is not provided

def test_arithmetic_raises_with_the_cupy_recipe():
    a = fake((4,))
    ops = [lambda: a + 1, lambda: 1 + a, lambda: a - a, lambda: a * 2.0, lambda: a / 2, lambda: 2 ** a,
           lambda: a ** 2, lambda: -a, lambda: abs(a), lambda: a == a, lambda: a < 1, lambda: a @ a,
           lambda: a.sum(), lambda: a.dot(a), lambda: a.max(), lambda: a.mul_add(1, a, 2), lambda: a.astype(np.int32),
           lambda: gpuarray.sum(a), lambda: gpuarray.dot(a, a), lambda: gpuarray.max(a), lambda: gpuarray.where(a, a, a),
           lambda: gpuarray.concatenate([a, a]), lambda: gpuarray.minimum(a, a)]

    def iadd():
        b = a
        b += 1

    ops.append(iadd)
    for op in ops:
        with pytest.raises(NotImplementedError) as info:
            op()
        message = str(info.value)
        assert 'cupy.asarray(a)' in message and 'without a copy' in message
        assert 'gcuda.gpuarray.as_gpuarray(c)' in message
    assert +a is a
    assert a.real is a and a.conj() is a
    with pytest.raises(TypeError):
        hash(a)
    with pytest.raises(NotImplementedError):
        fake((3,), np.complex64).real


def test_texture_references_are_not_supported():
    a = fake((16,))
    for call in (lambda: a.bind_to_texref(object()), lambda: a.bind_to_texref_ext(object(), channels=2)):
        with raises_gerror(GCuda.Error.NOT_SUPPORTED, GCuda.RuntimeError) as info:
            call()
        assert 'CUDA 12' in info.value.message and 'GCuda.Texture' in info.value.message


# ---------------------------------------------------------------- CUDA Array Interface (fake memory)

def test_cuda_array_interface_dict():
    a = fake((3, 4), np.float32)
    cai = a.__cuda_array_interface__
    assert cai['version'] == 3
    assert cai['shape'] == (3, 4)
    assert cai['strides'] == a.strides  # PyCUDA's test_gpuarray_cai
    assert cai['typestr'] == np.dtype(np.float32).str
    assert cai['data'] == (FAKE_ADDRESS, False)
    assert cai['stream'] is None
    v = a[1:, ::2].__cuda_array_interface__
    assert v['data'][0] == FAKE_ADDRESS + 16 and v['strides'] == (16, 8) and v['shape'] == (2, 2)
    s = fake((2,), vec.float3).__cuda_array_interface__
    assert s['typestr'] == '|V12' and np.dtype(s['descr']) == vec.float3
    empty = fake((0, 4)).__cuda_array_interface__
    assert empty['data'][0] == 0 and empty['shape'] == (0, 4)


def test_as_gpuarray_over_an_interface():
    class Foreign:
        def __init__(self, cai):
            self.__cuda_array_interface__ = cai

    f = Foreign({'shape': (5, 2), 'typestr': '<i2', 'data': (FAKE_ADDRESS + 64, False), 'version': 3,
                 'strides': None})
    a = gpuarray.as_gpuarray(f)
    assert a.shape == (5, 2) and a.dtype == np.int16 and a.strides == (4, 2) and a.ptr == FAKE_ADDRESS + 64
    assert a.gpudata is f  # kept alive
    assert gpuarray.as_gpuarray(a) is a
    with pytest.raises(TypeError):
        gpuarray.as_gpuarray(np.zeros(3))


def test_allocation_needs_the_driver():
    # nogpu: the driver cannot be loaded, and allocating says so; on a GPU it works
    if os.environ.get('GCUDA_TEST_DRIVER') == 'missing':
        with raises_gerror(GCuda.Error.DRIVER_NOT_FOUND, GCuda.RuntimeError):
            GPUArray((4,), np.float32)
    else:
        from conftest import require_gpu
        require_gpu()  # the gpu suite on a machine without one
        a = GPUArray((4,), np.float32)
        assert isinstance(a.gpudata, GCuda.Buffer) and a.gpudata.get_size() >= 16
    # an empty array allocates nothing
    e = GPUArray((0, 3), np.float32)
    assert e.gpudata is None and e.ptr == 0 and e.get().shape == (0, 3)


# ================================================================ on a GPU

def same(x, y):
    assert x.shape == y.shape and x.dtype == y.dtype
    assert np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes()


DTYPES = [np.int8, np.uint16, np.int32, np.float32, np.float64, np.complex64, np.complex128, vec.float3,
          vec.double2, vec.char3]
SHAPES = [(), (1,), (1000,), (33, 17), (4, 5, 6)]


@gpu
@pytest.mark.parametrize('dtype', DTYPES, ids=[np.dtype(d).name if np.dtype(d).names is None
                                               else _dtypes.dtype_to_ctype(d) for d in DTYPES])
def test_round_trips(dtype):
    for shape in SHAPES:
        x = random_array(shape, dtype)
        a = gpuarray.to_gpu(x)
        assert isinstance(a.gpudata, GCuda.Buffer)
        assert a.shape == x.shape and a.dtype == x.dtype and a.strides == x.strides
        same(a.get(), x)
        out = np.empty_like(x)
        assert a.get(out) is out
        same(out, x)
        y = random_array(shape, dtype)
        a.set(y)
        same(a.get(), y)
        same(a.copy().get(), y)
        assert int(a.copy().gpudata) != int(a.gpudata)


@gpu
def test_non_contiguous_and_fortran_host_arrays():
    x = random_array((40, 30), np.float32)
    for host in (np.asfortranarray(x), x[::2, 1::3], x.T, x[5:25, 3:9], x[::-1], x[:, ::-2]):
        a = gpuarray.to_gpu(host)
        same(a.get(), host)
        b = GPUArray(host.shape, host.dtype)  # C order on the device
        b.set(host)
        same(b.get(), host)
    f = gpuarray.to_gpu(np.asfortranarray(x))
    assert f.flags.f_contiguous and f.get().flags.f_contiguous
    # set() from an array of another shape: reshaped, with a warning
    a = GPUArray((30, 40), np.float32)
    with pytest.warns(UserWarning):
        a.set(x)
    same(a.get(), x.reshape(30, 40))
    with pytest.raises(ValueError):
        a.set(x[:10])
    with pytest.raises(ValueError):
        a.set(x.astype(np.float64))
    with pytest.raises(TypeError):
        a.get(np.empty((30, 40), np.int32))


FILL_DTYPES = [np.uint8, np.int16, np.float32, np.float64, np.int64, np.complex128, vec.float4, vec.char3,
               vec.float3, vec.double4, np.float16]


@gpu
@pytest.mark.parametrize('dtype', FILL_DTYPES, ids=[str(np.dtype(d).itemsize) + '-' + (
    np.dtype(d).name if np.dtype(d).names is None else _dtypes.dtype_to_ctype(d)) for d in FILL_DTYPES])
def test_zeros_and_fill(dtype):
    dtype = np.dtype(dtype)
    z = gpuarray.zeros((257, 3), dtype)
    assert z.dtype == dtype and z.shape == (257, 3)
    same(z.get(), np.zeros((257, 3), dtype))
    for _ in range(3):
        value = random_array((), dtype)
        a = gpuarray.empty((1001,), dtype)
        assert a.fill(value) is a
        same(a.get(), np.full((1001,), value, dtype))
    # a value whose words are all alike (one memset) and one of mixed words
    if dtype.itemsize % 4 == 0:
        alike = np.frombuffer(bytes([1, 2, 3, 4]) * (dtype.itemsize // 4), dtype)[0]
        a = gpuarray.empty((77,), dtype).fill(alike)
        same(a.get(), np.full((77,), alike, dtype))
    # on non-contiguous views: the rest must stay
    base = random_array((23, 19), dtype)
    value = random_array((), dtype)
    expected = base.copy()
    expected[::3, 2:11] = value
    expected[4, ::-2] = value
    expected[:, 17] = value
    a = gpuarray.to_gpu(base)
    a[::3, 2:11].fill(value)
    a[4, ::-2].fill(value)
    a[:, 17] = value
    same(a.get(), expected)
    ones = gpuarray.ones((5,), dtype) if dtype.names is None else None
    if ones is not None:
        same(ones.get(), np.ones(5, dtype))


@gpu
def test_fill_on_a_stream_and_like_functions():
    stream = GCuda.Stream()
    a = gpuarray.empty((4096,), np.float64)
    a.fill(3.25, stream=stream)
    stream.synchronize()
    assert (a.get() == 3.25).all()
    x = random_array((6, 7), np.float32)
    f = gpuarray.to_gpu(np.asfortranarray(x))
    for like, value in ((gpuarray.zeros_like, 0), (gpuarray.ones_like, 1)):
        b = like(f)
        assert b.shape == f.shape and b.flags.f_contiguous and b.dtype == np.float32
        assert (b.get() == value).all()
    e = gpuarray.empty_like(f, dtype=np.int16)
    assert e.dtype == np.int16 and e.shape == (6, 7)
    z = gpuarray.zeros_like(f, dtype=np.complex64, order='C')
    assert z.flags.c_contiguous and (z.get() == 0).all()
    r = gpuarray.arange(3, 40, 3, dtype=np.int32)
    assert (r.get() == np.arange(3, 40, 3, dtype=np.int32)).all()


@gpu
def test_slices_views_and_setitem():
    x = random_array((12, 10, 6), np.int32)
    a = gpuarray.to_gpu(x)
    for index in [np.s_[3], np.s_[2:9], np.s_[::2], np.s_[::-1], np.s_[1, :, 2], np.s_[..., 4], np.s_[5:1:-2, 3],
                  np.s_[:, ::3, 1:], np.s_[None, 2], np.s_[-1, -1, -1]]:
        v = a[index]
        same(v.get(), x[index])
        if v.flags.forc and v.size:
            # a view's gpudata is a GCuda.Buffer at the view's first element
            assert isinstance(v.gpudata, GCuda.Buffer) and int(v.gpudata) == v.ptr
    same(a.reshape(120, 6).get(), x.reshape(120, 6))
    same(a.reshape(-1).get(), x.reshape(-1))
    same(a.view(np.uint8).get(), x.view(np.uint8))
    same(a.view(np.int16).get(), x.view(np.int16))
    same(a[2].T.get(), x[2].T)
    same(a[:, 0:1, :].squeeze().get(), x[:, 0:1, :].squeeze())
    same(a.ravel().get(), x.ravel())
    # a[...] = ...
    y = x.copy()
    block = random_array((4, 10, 6), np.int32)
    a[2:6] = block
    y[2:6] = block
    a[7, :, 1] = 5
    y[7, :, 1] = 5
    v = random_array((), np.int32)
    a[::-3, 2] = v
    y[::-3, 2] = v
    other = gpuarray.to_gpu(random_array((10, 6), np.int32))
    a[11] = other
    y[11] = other.get()
    same(a.get(), y)
    # copies of views are packed
    c = a[::2, 3:7].copy()
    assert c.flags.c_contiguous and c.base is None
    same(c.get(), y[::2, 3:7])
    r = a[::-1].copy()
    same(r.get(), y[::-1])
    # a 0-d element
    assert int(a[1, 2, 3].get()) == y[1, 2, 3]
    assert bool(gpuarray.to_gpu(np.array([7]))) is True


class DLPackOf:
    """Only the DLPack side of a GPUArray (its CUDA Array Interface would be read first)."""

    def __init__(self, ary):
        self.__dlpack__ = ary.__dlpack__
        self.__dlpack_device__ = ary.__dlpack_device__


@gpu
def test_view_get_matches_numpy_on_random_layouts():
    from gcuda._override import interop
    seed = np.random.SeedSequence().entropy
    r = np.random.default_rng(seed)
    views = 0
    for case in range(200):
        a, h, root, first, steps = paired_random_layout(r, device=True)
        target = np.dtype(VIEW_TARGETS[r.integers(0, len(VIEW_TARGETS))])
        why = 'seed %d case %d: %s .view(%r)' % (seed, case, steps, target)
        same(a.get(), h)
        try:
            hv = h.view(target)
        except (ValueError, TypeError) as e:
            with pytest.raises(type(e)):
                a.view(target)
            continue
        v = a.view(target)
        views += 1
        assert (v.shape, v.strides, v.dtype) == (hv.shape, hv.strides, hv.dtype), why
        got = v.get()
        assert got.shape == hv.shape and got.dtype == hv.dtype, why
        assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(hv).tobytes(), why
        allocation = first.gpudata
        assert_exports_inside(v, int(allocation), allocation.get_size(), why)
        if not v.size:
            continue
        # what the exports describe is the same data
        back = gpuarray.as_gpuarray(ForeignCAI(v.__cuda_array_interface__))
        assert back.ptr == v.ptr and back.strides == v.strides, why
        assert np.ascontiguousarray(back.get()).tobytes() == np.ascontiguousarray(hv).tobytes(), why
        try:
            layout = interop._foreign_layout(DLPackOf(v))
        except BufferError:  # a type or stride DLPack cannot express
            continue
        assert (layout.address, layout.shape, layout.strides) == (v.ptr, v.shape, v.strides), why
        assert int(allocation) <= layout.extent()[0], why
        assert sum(layout.extent()) <= int(allocation) + allocation.get_size(), why
    assert views > 40, views


@gpu
def test_views_with_stride_0_and_reversed_axes_on_the_gpu():
    x = random_array((3,), np.float64)
    a = gpuarray.to_gpu(x)
    v = a[:, None].view(np.float32)  # numpy's strides (8, 4)
    assert v.strides == (8, 4)
    same(v.get(), x[:, None].view(np.float32))
    same(a[::-1, None].view(np.uint8).get(), x[::-1, None].view(np.uint8))
    # a broadcast axis: get() reads the bytes once and repeats them
    b = GPUArray((4, 3), np.float64, gpudata=a, strides=(0, 8))
    same(b.get(), np.broadcast_to(x, (4, 3)))
    same(b.view(np.int16).get(), np.broadcast_to(x, (4, 3)).view(np.int16))
    same(b[::-1, ::-2].get(), np.broadcast_to(x, (4, 3))[::-1, ::-2])
    same(b.copy().get(), np.broadcast_to(x, (4, 3)))
    out = np.empty((4, 3), np.float64)
    assert b.get(out) is out
    same(out, np.broadcast_to(x, (4, 3)))
    # writing into elements that overlap has no single answer
    with pytest.raises(ValueError, match='overlap'):
        b.set(random_array((4, 3), np.float64))
    same(a.get(), x)


@gpu
def test_async_get_set_with_streams():
    stream = GCuda.Stream()
    x = random_array((512, 64), np.float32)
    host = GCuda.pagelocked_empty(x.shape, x.dtype)
    host[...] = x
    a = gpuarray.to_gpu_async(host, stream=stream)
    out = a.get_async(stream=stream)
    stream.synchronize()
    same(out, x)
    y = random_array(x.shape, x.dtype)
    host[...] = y
    a.set_async(host, stream=stream)
    dest = GCuda.pagelocked_empty(x.shape, x.dtype)
    assert a.get(dest, async_=True, stream=stream) is dest
    stream.synchronize()
    same(dest, y)
    locked = a.get(pagelocked=True)
    assert GCuda.get_host_buffer(locked) is not None
    same(locked, y)
    # PyCUDA's deprecated async= keyword
    z = a.get(**{'async': False})
    same(z, y)
    with pytest.raises(TypeError):
        a.get(bogus=1)
    # a strided view, asynchronously
    part = a[::4, 8:40]
    got = part.get_async(stream=stream)
    stream.synchronize()
    same(got, y[::4, 8:40])


@gpu
def test_gpuarray_over_a_pointer_holder():
    buf = GCuda.mem_alloc(64 * 8)
    holder = Holder(int(buf), keep=buf)
    a = GPUArray((64,), np.float64, gpudata=holder)
    assert a.gpudata is holder and a.ptr == int(buf)
    x = random_array((64,), np.float64)
    a.set(x)
    same(a.get(), x)
    # the same memory through the buffer
    same(GCuda.from_device(buf, (64,), np.float64), x)
    same(a[10:20].get(), x[10:20])
    assert a[10:].gpudata == int(buf) + 80
    same(a[::3].get(), x[::3])
    a[5:9].fill(-1.5)  # foreign memory: uploaded from the host
    x[5:9] = -1.5
    same(a.get(), x)
    c = a.copy()
    assert isinstance(c.gpudata, GCuda.Buffer)
    same(c.get(), x)
    b = gpuarray.empty((64,), np.float64)
    b[...] = a
    same(b.get(), x)
    # a PyCUDA-style slice address: int(gpudata) + offset
    tail = GPUArray((8,), np.float64, gpudata=int(buf) + 8 * 56)
    same(tail.get(), x[56:])


@gpu
def test_gpuarray_over_a_buffer_and_a_pool():
    buf = GCuda.mem_alloc(1024)
    a = GPUArray((16, 16), np.float32, gpudata=buf)
    x = random_array((16, 16), np.float32)
    a.set(x)
    same(GCuda.from_device(buf, (16, 16), np.float32), x)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        GPUArray((257,), np.float32, gpudata=buf)
    view = buf.new_view(512, 512)
    h = GPUArray((8, 16), np.float32, gpudata=view)
    same(h.get(), x[8:])
    pool = GCuda.DeviceMemoryPool()
    p = gpuarray.to_gpu(x, allocator=pool.allocate)
    same(p.get(), x)
    same(p.copy().get(), x)
    q = gpuarray.zeros((100,), np.complex64, allocator=pool.allocate)
    assert (q.get() == 0).all()


@gpu
def test_cuda_array_interface_on_the_gpu():
    x = random_array((7, 9), np.float32)
    a = gpuarray.to_gpu(x)
    cai = a.__cuda_array_interface__
    assert cai['shape'] == x.shape and cai['strides'] == a.strides == x.strides
    assert cai['typestr'] == x.dtype.str and cai['version'] == 3
    assert cai['data'] == (int(a.gpudata), False) and cai['data'][0] == a.ptr
    v = a[2:, 3:].__cuda_array_interface__
    assert v['data'][0] == a.ptr + 2 * 36 + 12 and v['strides'] == (36, 4)

    class Foreign:  # what CuPy or PyTorch expose
        def __init__(self, cai, owner):
            self.__cuda_array_interface__ = cai
            self.owner = owner

    b = gpuarray.as_gpuarray(Foreign(cai, a))
    same(b.get(), x)
    same(gpuarray.as_gpuarray(Foreign(v, a)).get(), x[2:, 3:])
    assert a.__dlpack_device__() == (2, a.gpudata.get_context().get_device().get_ordinal())


KERNEL = '''
__global__ void twice(float *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] *= 2.0f;
}
'''


@gpu
def test_kernel_on_gpuarray_memory():
    mod = GCuda.SourceModule(KERNEL)
    twice = mod.get_function('twice')
    x = rng().uniform(-100, 100, 1000).astype(np.float32)
    a = gpuarray.to_gpu(x)
    twice(a.gpudata, np.int32(a.size), block=(256, 1, 1), grid=(4, 1))
    np.testing.assert_array_equal(a.get(), x * 2)
    # a view's gpudata starts at the view
    tail = a[600:]
    twice(tail.gpudata, np.int32(tail.size), block=(256, 1, 1), grid=(2, 1))
    expected = x * 2
    expected[600:] *= 2
    np.testing.assert_array_equal(a.get(), expected)


@gpu
def test_pickle_and_repr():
    import pickle
    x = random_array((3, 4), np.int16)
    a = gpuarray.to_gpu(x)
    b = pickle.loads(pickle.dumps(a))
    same(b.get(), x)
    assert repr(a) == repr(x) and str(a) == str(x)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert a.get().flags.c_contiguous
