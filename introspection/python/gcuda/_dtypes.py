# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyCUDA's C type <-> numpy dtype machinery (pycuda.tools and
pycuda.compyte.dtypes) and its vector types (pycuda.gpuarray.vec).

One registry maps C type names to numpy dtypes: dtype_to_ctype() gives the
first name a dtype was registered under, parse_c_arg() reads a C
declaration ("const float *a") as a VectorArg or ScalarArg with the dtype
and the struct format character a prepared call packs it with.
``gcuda.tools`` re-exports these names and ``gcuda.gpuarray.vec`` is
``vec`` below. Needs numpy only: no driver, no GPU."""

import re
import struct
import sys
import types
import warnings

import numpy as np

__all__ = ['TypeNameNotKnown', 'DTypeRegistry', 'TYPE_REGISTRY', 'dtype_to_ctype', 'get_or_register_dtype',
           'register_dtype', 'parse_c_arg', 'parse_c_arg_backend', 'get_arg_type', 'Argument',
           'VectorArg', 'ScalarArg', 'vec', 'cuda_alignment']


class TypeNameNotKnown(RuntimeError):  # noqa: N818 - compyte's name
    """A C type name was looked up that no dtype was registered under."""


class DTypeRegistry:
    """C type names <-> numpy dtypes (compyte's DTypeRegistry): a dtype's
    C name is the first one it was registered under."""

    def __init__(self):
        self.dtype_to_name = {}
        self.name_to_dtype = {}

    def get_or_register_dtype(self, c_names, dtype=None):
        """With @dtype None: the dtype @c_names (a name or a list of names,
        all of one dtype) are registered to (TypeNameNotKnown if one is
        not). Else registers @dtype under each of @c_names and returns the
        dtype object registered first for an equal dtype; a name already
        registered to another dtype is a RuntimeError (nothing is changed
        then)."""
        if isinstance(c_names, str):
            c_names = [c_names]
        c_names = list(c_names)
        if not c_names:
            raise ValueError('no C type name given')

        if dtype is None:
            found = set()
            for name in c_names:
                try:
                    found.add(self.name_to_dtype[name])
                except KeyError:
                    raise TypeNameNotKnown('C type name %r is not registered' % name) from None
            if len(found) != 1:
                raise RuntimeError('the names %s are registered to different dtypes' % ', '.join(c_names))
            return found.pop()

        dtype = np.dtype(dtype)
        for name in c_names:  # check everything before changing anything
            known = self.name_to_dtype.get(name)
            if known is not None and known != dtype:
                raise RuntimeError("name '%s' already registered to different dtype (%s, not %s)"
                                   % (name, known, dtype))

        existing_name = self.dtype_to_name.get(dtype)
        if existing_name is not None:
            dtype = self.name_to_dtype[existing_name]
        for name in c_names:
            self.name_to_dtype.setdefault(name, dtype)
        if existing_name is None:
            self.dtype_to_name[dtype] = c_names[0]
        return dtype

    def dtype_to_ctype(self, dtype):
        if dtype is None:
            raise ValueError('dtype may not be None')
        dtype = np.dtype(dtype)
        try:
            return self.dtype_to_name[dtype]
        except KeyError:
            raise ValueError("unable to map dtype '%s'" % dtype) from None


TYPE_REGISTRY = DTypeRegistry()
get_or_register_dtype = TYPE_REGISTRY.get_or_register_dtype

# compyte's deprecated module-level tables
DTYPE_TO_NAME = TYPE_REGISTRY.dtype_to_name
NAME_TO_DTYPE = TYPE_REGISTRY.name_to_dtype


def _fill_registry(reg):
    """compyte's fill_registry_with_c_types() for this platform (the first
    name of each list is what dtype_to_ctype() gives), then names kernels
    written for NVRTC also use (stdint, long long, uint), which only add
    to what parse_c_arg() understands."""
    reg.get_or_register_dtype('bool', np.bool_)
    reg.get_or_register_dtype(['signed char', 'char'], np.int8)
    reg.get_or_register_dtype('unsigned char', np.uint8)
    reg.get_or_register_dtype(['short', 'signed short', 'signed short int', 'short signed int'], np.int16)
    reg.get_or_register_dtype(['unsigned short', 'unsigned short int', 'short unsigned int'], np.uint16)
    reg.get_or_register_dtype(['int', 'signed int'], np.int32)
    reg.get_or_register_dtype(['unsigned', 'unsigned int'], np.uint32)

    if struct.calcsize('@P') == 8:
        # PyCUDA's respect_windows=True: 64-bit Windows' long has 32 bits
        i64 = 'long long' if sys.platform == 'win32' else 'long'
        reg.get_or_register_dtype([i64, '%s int' % i64, 'signed %s int' % i64, '%s signed int' % i64], np.int64)
        reg.get_or_register_dtype(['unsigned %s' % i64, 'unsigned %s int' % i64, '%s unsigned int' % i64],
                                  np.uint64)
        reg.get_or_register_dtype(['unsigned %s' % i64], np.uintp)
    else:  # pragma: no cover - GCuda needs a 64-bit platform (CUDA does)
        reg.get_or_register_dtype(['unsigned'], np.uintp)

    reg.get_or_register_dtype('float', np.float32)
    reg.get_or_register_dtype('double', np.float64)

    # pycuda.tools registers its complex template; CUDA's own names parse too
    reg.get_or_register_dtype(['pycuda::complex<float>', 'cuFloatComplex', 'cuComplex',
                               'cuda::std::complex<float>', 'thrust::complex<float>'], np.complex64)
    reg.get_or_register_dtype(['pycuda::complex<double>', 'cuDoubleComplex',
                               'cuda::std::complex<double>', 'thrust::complex<double>'], np.complex128)

    # beyond PyCUDA: half precision (cuda_fp16.h) and more spellings
    reg.get_or_register_dtype(['__half', 'half'], np.float16)
    reg.get_or_register_dtype(['int8_t'], np.int8)
    reg.get_or_register_dtype(['uint8_t'], np.uint8)
    reg.get_or_register_dtype(['int16_t'], np.int16)
    reg.get_or_register_dtype(['uint16_t', 'ushort'], np.uint16)
    reg.get_or_register_dtype(['int32_t'], np.int32)
    reg.get_or_register_dtype(['uint32_t', 'uint'], np.uint32)
    if sys.platform != 'win32':
        reg.get_or_register_dtype(['long long', 'long long int', 'signed long long', 'signed long long int',
                                   'long long signed int'], np.int64)
        reg.get_or_register_dtype(['unsigned long long', 'unsigned long long int', 'long long unsigned int'],
                                  np.uint64)
    reg.get_or_register_dtype(['int64_t', 'intptr_t', 'ptrdiff_t', 'ssize_t'], np.int64)
    reg.get_or_register_dtype(['uint64_t', 'uintptr_t', 'size_t', 'CUdeviceptr'], np.uint64)


_fill_registry(TYPE_REGISTRY)


def register_dtype(dtype, c_names, alias_ok=False):
    """Deprecated (as in PyCUDA): use get_or_register_dtype(). Registers
    @dtype under @c_names; a dtype registered before is a RuntimeError
    unless @alias_ok."""
    warnings.warn('register_dtype is deprecated. Use get_or_register_dtype instead.',
                  DeprecationWarning, stacklevel=2)
    if isinstance(c_names, str):
        c_names = [c_names]
    dtype = np.dtype(dtype)
    if not alias_ok and dtype in TYPE_REGISTRY.dtype_to_name:
        raise RuntimeError("dtype '%s' already registered (as '%s', new names '%s')"
                           % (dtype, TYPE_REGISTRY.dtype_to_name[dtype], ', '.join(c_names)))
    TYPE_REGISTRY.get_or_register_dtype(c_names, dtype)


def dtype_to_ctype(dtype, with_fp_tex_hack=False):
    """The C name of @dtype ("float", "unsigned int", "float4", ...); a
    dtype nobody registered is a ValueError. @with_fp_tex_hack gives
    PyCUDA's fp_tex_* names for floating point types (texture references
    read through pycuda-helpers.hpp; texture references are gone since CUDA
    12: see GCuda.Texture)."""
    if dtype is None:
        raise ValueError('dtype may not be None')
    dtype = np.dtype(dtype)
    if with_fp_tex_hack:
        hack = {np.dtype(np.float32): 'fp_tex_float', np.dtype(np.float64): 'fp_tex_double',
                np.dtype(np.complex64): 'fp_tex_cfloat', np.dtype(np.complex128): 'fp_tex_cdouble'}.get(dtype)
        if hack is not None:
            return hack
    return TYPE_REGISTRY.dtype_to_ctype(dtype)


# ---------------------------------------------------------------- C declarations

class Argument:
    """A kernel parameter: its dtype and name."""

    def __init__(self, dtype, name):
        self.dtype = np.dtype(dtype)
        self.name = name

    def __repr__(self):
        return '%s(%r, %s)' % (type(self).__name__, self.name, self.dtype)


class VectorArg(Argument):
    """A pointer parameter (``float *a``): packed as an address."""

    struct_char = 'P'

    def declarator(self):
        return '%s *%s' % (dtype_to_ctype(self.dtype), self.name)


class ScalarArg(Argument):
    """A parameter passed by value (``float f``)."""

    def declarator(self):
        return '%s %s' % (dtype_to_ctype(self.dtype), self.name)

    @property
    def struct_char(self):
        char = self.dtype.char
        if char == 'V':  # structs: their bytes
            return '%ds' % self.dtype.itemsize
        return char


_DECLARATOR_RE = re.compile(r'(\**)\s*([_a-zA-Z0-9]+)(\s*\[[ 0-9]*\])*\s*$')
_QUALIFIERS_RE = re.compile(r'\b(const|volatile|__restrict__|__restrict|restrict)\b')


def parse_c_arg_backend(c_arg, scalar_arg_factory, vec_arg_factory, name_to_dtype=None):
    """compyte's parser: @c_arg ("const float *a", "int n", "float a[]")
    as scalar_arg_factory(dtype, name) or, for a pointer or an array,
    vec_arg_factory(dtype, name). An unknown type or a declaration that is
    not one is a ValueError."""
    if isinstance(name_to_dtype, DTypeRegistry):
        name_to_dtype = name_to_dtype.name_to_dtype.__getitem__
    elif name_to_dtype is None:
        name_to_dtype = TYPE_REGISTRY.name_to_dtype.__getitem__

    if not isinstance(c_arg, str):
        raise TypeError('a C declaration is a str, not %s' % type(c_arg).__name__)
    # compyte removes the qualifiers as substrings; whole words only here,
    # so a type or name that contains one ("constant") survives
    stripped = _QUALIFIERS_RE.sub(' ', c_arg)

    match = _DECLARATOR_RE.search(stripped)
    if match is None:
        raise ValueError("couldn't parse C declarator '%s'" % c_arg)
    name = match.group(2)
    factory = vec_arg_factory if (match.group(1) or match.group(3) is not None) else scalar_arg_factory

    tp = ' '.join(stripped[:match.start()].split())
    try:
        dtype = name_to_dtype(tp)
    except KeyError:
        raise ValueError("unknown type '%s'" % tp) from None
    return factory(dtype, name)


def parse_c_arg(c_arg):
    """A C parameter declaration as a ScalarArg or VectorArg."""
    return parse_c_arg_backend(c_arg, ScalarArg, VectorArg)


def get_arg_type(c_arg):
    """The struct format character of a C parameter declaration ("P" for
    pointers), as prepare() takes them."""
    return parse_c_arg(c_arg).struct_char


# ---------------------------------------------------------------- vector types
#
# As pycuda.gpuarray creates them: numpy structs with fields x, y, z, w of
# the base type, registered under CUDA's names, with make_<name>(x, ...)
# constructors. Their sizes and field offsets are CUDA's (no padding in
# either). numpy cannot give a dtype an alignment above its fields' own,
# so CUDA's alignment (float4: 16 bytes, float3: 4, double2: 16) is kept
# as the dtype's metadata ("cuda_alignment") and given by
# cuda_alignment(); metadata does not change the dtype's equality or hash,
# so these dtypes are equal to PyCUDA's.

def _vector_alignment(base_size, count, name):
    size = base_size * count
    if name.endswith('_32a'):
        return 32
    if count == 3:
        return base_size  # no __align__ in vector_types.h: the base type's
    if count == 1:
        return base_size
    # the 2- and 4-element types are aligned to their size, at most 16
    return min(size, 16)


def _make_constructor(name, dtype, fields):
    def make(*args, **kwargs):
        if kwargs:
            values = list(args)
            for field in fields[len(args):]:
                if field not in kwargs:
                    raise TypeError('make_%s() missing argument %r' % (name, field))
                values.append(kwargs.pop(field))
            if kwargs:
                raise TypeError('make_%s() got unexpected arguments %s' % (name, ', '.join(sorted(kwargs))))
            args = tuple(values)
        if len(args) != len(fields):
            raise TypeError('make_%s() takes %d arguments (%s), not %d'
                            % (name, len(fields), ', '.join(fields), len(args)))
        return np.array(tuple(args), dtype=dtype)

    make.__name__ = make.__qualname__ = 'make_' + name
    make.__doc__ = 'A 0-d numpy array of vec.%s with the fields %s.' % (name, ', '.join(fields))
    return make


def _create_vector_types():
    namespace = types.SimpleNamespace()
    if struct.calcsize('@P') == 8 and sys.platform != 'win32':
        long_type, ulong_type = np.int64, np.uint64
    else:  # pragma: no cover - LLP64 / 32-bit: long is 32 bits
        long_type, ulong_type = np.int32, np.uint32

    field_names = ('x', 'y', 'z', 'w')
    four = [1, 2, 3, 4]
    # PyCUDA's list (its order decides the names dtype_to_ctype() gives),
    # then CUDA's other vector types: 3- and 4-element 64-bit ones and
    # CUDA 13's explicitly aligned 4-element ones
    table = [
        ('char', np.int8, four), ('uchar', np.uint8, four),
        ('short', np.int16, four), ('ushort', np.uint16, four),
        ('int', np.int32, four), ('uint', np.uint32, four),
        ('long', long_type, four), ('ulong', ulong_type, four),
        ('longlong', np.int64, [1, 2]), ('ulonglong', np.uint64, [1, 2]),
        ('float', np.float32, four), ('double', np.float64, [1, 2]),
        ('longlong', np.int64, [3, 4]), ('ulonglong', np.uint64, [3, 4]),
        ('double', np.float64, [3, 4]),
    ]
    names = []
    for base_name, base_type, counts in table:
        for count in counts:
            names.append(('%s%d' % (base_name, count), base_type, count))
    for base_name, base_type in (('long', long_type), ('ulong', ulong_type), ('longlong', np.int64),
                                 ('ulonglong', np.uint64), ('double', np.float64)):
        for suffix in ('_16a', '_32a'):
            names.append(('%s4%s' % (base_name, suffix), base_type, 4))

    for name, base_type, count in names:
        fields = field_names[:count]
        base = np.dtype(base_type)
        alignment = _vector_alignment(base.itemsize, count, name)
        dtype = np.dtype([(f, base) for f in fields], align=True, metadata={'cuda_alignment': alignment})
        get_or_register_dtype(name, dtype)
        setattr(namespace, name, dtype)
        setattr(namespace, 'make_' + name, _make_constructor(name, dtype, fields))
    return namespace


vec = _create_vector_types()


def cuda_alignment(dtype):
    """The alignment CUDA gives @dtype in device code, in bytes: the
    vector types' own (vec.float4: 16), a struct's largest member's, a
    scalar's size. numpy's dtype.alignment can be smaller for the vector
    types (numpy cannot express CUDA's __align__)."""
    dtype = np.dtype(dtype)
    if dtype.metadata and 'cuda_alignment' in dtype.metadata:
        return dtype.metadata['cuda_alignment']
    if dtype.subdtype is not None:
        return cuda_alignment(dtype.subdtype[0])
    if dtype.fields:
        return max(cuda_alignment(field[0]) for field in dtype.fields.values())
    if dtype.kind == 'c':  # cuComplex (float2) and cuDoubleComplex (double2)
        return dtype.itemsize
    return dtype.alignment
