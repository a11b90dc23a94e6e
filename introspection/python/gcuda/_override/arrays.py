# SPDX-License-Identifier: LGPL-2.1-or-later
"""CUDA arrays and textures: GCuda.Array (to_numpy()) and its descriptor,
PyCUDA's 1D array copies and array helpers (np_to_array(),
matrix_to_array(), ...), and make_texture()."""

import math
import operator

from gi.module import get_introspection_module

from . import OVERRIDE_MODULE
from .errors import _library_error, _raising
from .memory import _device
from .views import _host, _numpy, _uint64

GCuda = get_introspection_module('GCuda')

__all__ = ['memcpy_htoa', 'memcpy_atoh', 'memcpy_dtoa', 'memcpy_atod', 'memcpy_atoa', 'dtype_to_array_format',
           'matrix_to_array', 'np_to_array', 'buffer_to_array', 'gpuarray_to_array', 'make_multichannel_2d_array',
           'make_texture']


# PyCUDA's 1D array copies: @index and @len count bytes, as in PyCUDA, and
# must be whole elements; only 1D arrays (height and depth 0) qualify.
# Device memory is a GCuda.Buffer (a view for PyCUDA's int(buf) + offset),
# host memory is copied in place through its address.


def _array(obj, what):
    if isinstance(obj, GCuda.Array):
        return obj
    raise TypeError('%s must be a GCuda.Array, not %s' % (what, type(obj).__name__))


@_raising
def memcpy_htoa(ary, index, src):
    """Copies all of @src (host memory) into the GCuda.Array @ary at
    byte @index and returns when done (a byte range of a 1D array, or all
    of any array)."""
    host, address, nbytes = _host(src, 'src', False)
    _array(ary, 'ary').upload_from_address(_uint64(index, 'index'), address, nbytes)


@_raising
def memcpy_atoh(dest, ary, index):
    """Fills all of @dest (writable, contiguous host memory) from the
    GCuda.Array @ary at byte @index and returns when done."""
    host, address, nbytes = _host(dest, 'dest', True)
    _array(ary, 'ary').download_to_address(_uint64(index, 'index'), address, nbytes)


@_raising
def memcpy_dtoa(ary, index, src, len):
    """Copies @len bytes from the start of @src (a GCuda.Buffer) into the
    GCuda.Array @ary at byte @index."""
    nbytes = _uint64(len, 'len')
    src = _device(src, 'src', nbytes)
    if src is not None:
        _array(ary, 'ary').copy_from_buffer(_uint64(index, 'index'), src, 0, nbytes)


@_raising
def memcpy_atod(dest, ary, index, len):
    """Copies @len bytes of the GCuda.Array @ary from byte @index to the
    start of @dest (a GCuda.Buffer)."""
    nbytes = _uint64(len, 'len')
    dest = _device(dest, 'dest', nbytes)
    if dest is not None:
        _array(ary, 'ary').copy_to_buffer(_uint64(index, 'index'), dest, 0, nbytes)


@_raising
def memcpy_atoa(dest, dest_index, src, src_index, len):
    """Copies @len bytes from the GCuda.Array @src at byte @src_index
    into the GCuda.Array @dest at byte @dest_index (1D arrays of equal
    element sizes, or all of one array into all of another)."""
    _array(dest, 'dest').copy_from_array(_uint64(dest_index, 'dest_index'), _array(src, 'src'),
                                         _uint64(src_index, 'src_index'), _uint64(len, 'len'))


# Arrays hold data in "packed" order: x (the width) fastest, then y, then z.
# A C-ordered numpy array of shape (depth, height, width) and an F-ordered
# one of shape (width, height, depth) both have exactly that layout, so
# order 'C' makes tex3D(t, x, y, z) read a[z, y, x] and order 'F' a[x, y, z].

# numpy dtype -> (array format, channels per numpy item). 64-bit types go
# through 32-bit channels (PyCUDA's int2/int4 technique): read them with
# tex*<int2>/<int4> (READ_AS_INTEGER) and reassemble with __hiloint2double
# (float64) or as two floats (complex64, float2).
_TEXTURE_DTYPES = {
    'int8': (GCuda.ArrayFormat.SIGNED_INT8, 1),
    'uint8': (GCuda.ArrayFormat.UNSIGNED_INT8, 1),
    'int16': (GCuda.ArrayFormat.SIGNED_INT16, 1),
    'uint16': (GCuda.ArrayFormat.UNSIGNED_INT16, 1),
    'int32': (GCuda.ArrayFormat.SIGNED_INT32, 1),
    'uint32': (GCuda.ArrayFormat.UNSIGNED_INT32, 1),
    'float16': (GCuda.ArrayFormat.HALF, 1),
    'float32': (GCuda.ArrayFormat.FLOAT, 1),
    'float64': (GCuda.ArrayFormat.SIGNED_INT32, 2),
    'int64': (GCuda.ArrayFormat.SIGNED_INT32, 2),
    'uint64': (GCuda.ArrayFormat.UNSIGNED_INT32, 2),
    'complex64': (GCuda.ArrayFormat.FLOAT, 2),
    'complex128': (GCuda.ArrayFormat.SIGNED_INT32, 4),
}

_FORMAT_DTYPES = {
    GCuda.ArrayFormat.SIGNED_INT8: 'int8', GCuda.ArrayFormat.UNSIGNED_INT8: 'uint8',
    GCuda.ArrayFormat.SIGNED_INT16: 'int16', GCuda.ArrayFormat.UNSIGNED_INT16: 'uint16',
    GCuda.ArrayFormat.SIGNED_INT32: 'int32', GCuda.ArrayFormat.UNSIGNED_INT32: 'uint32',
    GCuda.ArrayFormat.HALF: 'float16', GCuda.ArrayFormat.FLOAT: 'float32',
}


def dtype_to_array_format(dtype):
    """(GCuda.ArrayFormat, channels) holding one item of numpy @dtype
    (PyCUDA's ``dtype_to_array_format`` plus the 64-bit types carried as
    2 or 4 32-bit channels). Other dtypes are a TypeError."""
    np = _numpy()
    dtype = np.dtype(dtype)
    try:
        return _TEXTURE_DTYPES[dtype.name]
    except KeyError:
        raise TypeError('no texture format holds numpy %s' % dtype) from None


def _check_order(order):
    if not isinstance(order, str) or order.upper() not in ('C', 'F'):
        raise ValueError("order must be 'C' or 'F', not %r" % (order,))
    return order.upper()


def _packed(ary, order):
    """(C-contiguous packed data, (width, height, depth) extents) of @ary
    read in @order: shape reversed for 'C', as is for 'F'."""
    np = _numpy()
    ary = np.asarray(ary)
    if order == 'F':
        ary = ary.T
    return np.ascontiguousarray(ary), tuple(reversed(ary.shape))


def _upload_array(ary, extents, dtype, channels_axis, flags, context):
    """A new GCuda.Array of @extents (width, height[, depth]) filled with
    the packed numpy @ary."""
    fmt, per_item = dtype_to_array_format(dtype)
    channels = per_item
    if channels_axis is not None:
        if per_item != 1:
            raise TypeError('multichannel arrays of numpy %s are not supported' % dtype)
        channels = channels_axis
    width, height, depth = (tuple(extents) + (0, 0))[:3]
    desc = GCuda.ArrayDescriptor.new(width, height, depth, fmt, channels, flags)
    array = Array.new(context, desc)
    array.upload_from_address(0, ary.__array_interface__['data'][0], ary.nbytes)
    return array


@_raising
def matrix_to_array(matrix, order='C', context=None):
    """PyCUDA's ``matrix_to_array``: a 2D GCuda.Array holding the 2D numpy
    @matrix. With order 'C', tex2D(t, x, y) reads matrix[y, x]; with 'F',
    matrix[x, y]. The matrix is copied in whatever memory order it has."""
    order = _check_order(order)
    np = _numpy()
    matrix = np.asarray(matrix)
    if matrix.ndim != 2:
        raise ValueError('matrix_to_array() needs a 2D array, not %dD' % matrix.ndim)
    packed, extents = _packed(matrix, order)
    return _upload_array(packed, extents, packed.dtype, None, GCuda.ArrayFlags.NONE, context)


@_raising
def np_to_array(nparray, order='C', allow_surface_bind=False, layered=False, context=None):
    """PyCUDA's ``np_to_array``: a GCuda.Array holding a 2D or 3D numpy
    array. Order 'C' reads a[z, y, x] (a[y, x]) at texture coordinates
    (x, y, z); 'F' reads a[x, y, z]. float64, int64, complex64 and
    complex128 are carried as 2 or 4 32-bit channels (see
    dtype_to_array_format()). @allow_surface_bind adds SURFACE_LDST;
    @layered makes the depth (or a 2D array's single slice) layers."""
    order = _check_order(order)
    np = _numpy()
    nparray = np.asarray(nparray)
    if nparray.ndim not in (2, 3):
        raise ValueError('np_to_array() needs a 2D or 3D array, not %dD' % nparray.ndim)
    packed, extents = _packed(nparray, order)
    flags = GCuda.ArrayFlags.NONE
    if allow_surface_bind:
        flags |= GCuda.ArrayFlags.SURFACE_LDST
    if layered:
        flags |= GCuda.ArrayFlags.LAYERED
        if len(extents) == 2:
            extents = extents + (1,)
    return _upload_array(packed, extents, packed.dtype, None, flags, context)


@_raising
def buffer_to_array(buffer, shape, dtype, order='C', allow_surface_bind=False, context=None):
    """PyCUDA's ``gpuarray_to_array``: a GCuda.Array filled on the device
    from the contiguous data of @shape and @dtype at the start of @buffer
    (a GCuda.Buffer) in memory @order (same reading as np_to_array())."""
    order = _check_order(order)
    np = _numpy()
    dtype = np.dtype(dtype)
    shape = tuple(int(n) for n in shape)
    if len(shape) not in (2, 3):
        raise ValueError('buffer_to_array() needs a 2D or 3D shape, not %r' % (shape,))
    extents = tuple(reversed(shape)) if order == 'C' else shape
    fmt, channels = dtype_to_array_format(dtype)
    width, height, depth = (extents + (0,))[:3]
    flags = GCuda.ArrayFlags.SURFACE_LDST if allow_surface_bind else GCuda.ArrayFlags.NONE
    desc = GCuda.ArrayDescriptor.new(width, height, depth, fmt, channels, flags)
    buffer = _device(buffer, 'buffer', max(1, math.prod(shape) * dtype.itemsize))
    array = Array.new(context if context is not None else buffer.get_context(), desc)
    array.copy_from_buffer(0, buffer, 0, array.get_size())
    return array


@_raising
def make_multichannel_2d_array(matrix, order='C', context=None):
    """PyCUDA's ``make_multichannel_2d_array``: a 2D GCuda.Array with 1, 2
    or 4 channels from a 3D numpy array of shape (height, width, channels)
    for order 'C' or (channels, width, height) for 'F'; tex2D<float4>(t, x,
    y) reads the channels of pixel (x, y)."""
    order = _check_order(order)
    np = _numpy()
    matrix = np.asarray(matrix)
    if matrix.ndim != 3:
        raise ValueError('make_multichannel_2d_array() needs a 3D array, not %dD' % matrix.ndim)
    packed, extents = _packed(matrix, order)
    channels, width, height = extents
    return _upload_array(packed, (width, height), packed.dtype, channels, GCuda.ArrayFlags.NONE, context)


# Array and ArrayDescriptor keep PyGObject's docstrings (their constructors).

class Array(GCuda.Array):
    __module__ = OVERRIDE_MODULE

    def __new__(cls, descriptor=None, context=None):
        # PyCUDA: Array(descriptor), a new array in the thread's default
        # context; GCuda.Array.new(context, descriptor) is the same.
        if descriptor is None:
            return GCuda.Array.__new__(cls)  # GObject.new(): an unbound object
        return _array_new(context, descriptor)

    def __init__(self, *args, **kwargs):
        pass  # made by Array.new() in __new__

    @_raising
    def to_numpy(self, shape=None, dtype=None, order='C'):
        """Downloads the whole array into a new numpy array. By default its
        shape is (depth, height, width[, channels]) in C order of the channel
        type; with @dtype (a 64-bit type, say) and @shape, the bytes are
        reinterpreted; order 'F' reverses the axes as np_to_array() does."""
        np = _numpy()
        desc = self.get_descriptor()
        order = _check_order(order)
        if dtype is None:
            dtype = np.dtype(_FORMAT_DTYPES[GCuda.ArrayFormat(desc.format)])
            extents = [n for n in (desc.depth, desc.height, desc.width) if n] + \
                ([desc.num_channels] if desc.num_channels > 1 else [])
        else:
            dtype = np.dtype(dtype)
            extents = [n for n in (desc.depth, desc.height) if n]
            extents.append(self.get_size() // dtype.itemsize // max(1, math.prod(extents)))
        result = np.empty(tuple(extents), dtype)
        if result.nbytes != self.get_size():
            raise ValueError('numpy %s does not tile the array\'s %d bytes' % (dtype, self.get_size()))
        self.download_to_address(0, result.__array_interface__['data'][0], result.nbytes)
        if order == 'F':
            result = result.T
        if shape is not None:
            result = result.reshape(shape, order=order)
        return result

    get_descriptor_3d = GCuda.Array.get_descriptor  # PyCUDA's name


class ArrayDescriptor(GCuda.ArrayDescriptor):
    __module__ = OVERRIDE_MODULE

    validate = _raising(GCuda.ArrayDescriptor.validate)


@_raising
def make_texture(source, order='C', address_mode=GCuda.AddressMode.CLAMP,
                 filter_mode=GCuda.FilterMode.POINT, flags=None, normalized_coordinates=False,
                 context=None):
    """A GCuda.Texture over a numpy array (2D or 3D, copied into a new
    GCuda.Array with np_to_array()) or over an existing GCuda.Array, in one
    call. @address_mode is one mode or a sequence of one per dimension.
    @flags defaults to READ_AS_INTEGER for integer data (and the 32-bit
    channels carrying 64-bit types), as PyCUDA's element-type reads, else
    none; @normalized_coordinates adds NORMALIZED_COORDINATES. Pass
    ``tex.props.handle`` to the kernel (a 'Q' / numpy.uint64 argument)."""
    if isinstance(source, GCuda.Array):
        array = source
    else:
        array = np_to_array(source, order, context=context)
    desc = GCuda.TextureDescriptor.new()
    if isinstance(address_mode, (list, tuple)):
        modes = list(address_mode) + [GCuda.AddressMode.CLAMP] * (3 - len(address_mode))
        desc.address_mode_x, desc.address_mode_y, desc.address_mode_z = modes[:3]
    else:
        desc.set_address_mode(address_mode)
    desc.filter_mode = filter_mode
    if flags is None:
        fmt = GCuda.ArrayFormat(array.get_descriptor().format)
        flags = GCuda.TextureFlags.NONE if fmt in (GCuda.ArrayFormat.FLOAT, GCuda.ArrayFormat.HALF) \
            else GCuda.TextureFlags.READ_AS_INTEGER
    if normalized_coordinates:
        flags |= GCuda.TextureFlags.NORMALIZED_COORDINATES
    desc.flags = flags
    texture = GCuda.Texture.new_from_array(array, desc)
    return texture


gpuarray_to_array = buffer_to_array


_array_new = _raising(GCuda.Array.new)


# ---------------------------------------------------------------- PyCUDA's Memcpy2D/3D/3DPeer

def _copy_fields(gtype_class):
    return frozenset(p.name.replace('-', '_') for p in gtype_class.list_properties())


def _device_endpoint(obj, what):
    """(buffer or None, address, size) of device memory @obj: a GCuda.Buffer,
    a PyCUDA-style holder (gpudata, get_pointer()) or an integer address,
    sized by the allocation it lies in when the driver knows it."""
    if isinstance(obj, GCuda.Buffer):
        return obj, 0, 0
    gpudata = getattr(obj, 'gpudata', None)
    if gpudata is not None:
        return _device_endpoint(gpudata, what)
    if hasattr(obj, 'get_pointer'):
        obj = obj.get_pointer()
    try:
        address = operator.index(obj)
    except TypeError:
        raise TypeError('%s must be a GCuda.Buffer, an object with gpudata or get_pointer(), or a device '
                        'address (int), not %s' % (what, type(obj).__name__)) from None
    if address <= 0 or address >= 1 << 64:
        raise _library_error(GCuda.Error.INVALID_ARGUMENT, '%s: %#x is no device address' % (what, address))
    try:
        base, size = _address_range(_thread_default(), address)
        return None, address, base + size - address
    except GCuda.CudaError:
        # not an allocation the driver can size (PyCUDA passes it on unchecked)
        return None, address, (1 << 64) - 1 - address


_address_range = _raising(GCuda.Context.get_address_range)
_thread_default = _raising(GCuda.Context.get_thread_default)


class _CopyFields:  # a template: _copy_class() copies its methods into each class
    """PyCUDA's Memcpy2D/Memcpy3D/Memcpy3DPeer interface over GCuda's copy
    objects: the GObject properties read and written as attributes
    (``copy.src_pitch = 256``), set_src_host()/set_src_device()/... taking
    Python objects (kept alive by the copy), and ``copy()`` / ``copy(stream)``.
    Any other attribute assignment is an AttributeError: PyGObject would keep
    it as a plain Python attribute, so a misspelt field would be silently
    ignored."""

    _FIELDS = frozenset()

    def __getattr__(self, name):
        # only reached when normal lookup fails: the fields
        if name in type(self)._FIELDS:
            return self.get_property(name)
        raise AttributeError('%r object has no attribute %r' % (type(self).__name__, name))

    def __setattr__(self, name, value):
        if name in type(self)._FIELDS:
            self.set_property(name, operator.index(value))
            return
        raise AttributeError('%r object has no field %r (its fields: %s)'
                             % (type(self).__name__, name, ', '.join(sorted(type(self)._FIELDS))))

    def _keep(self, key, obj):
        # the Python memory behind an endpoint, alive as long as the copy uses it
        self.__dict__.setdefault('_keepalive', {})[key] = obj

    def _set_host(self, end, obj, size, writable):
        if size is not None:  # GCuda's form: (address, size)
            getattr(type(self), '_gcuda_set_%s_host' % end)(self, obj, size)
            self._keep(end, None)
            return
        if isinstance(obj, GCuda.HostBuffer):
            getattr(self, 'set_%s_host_buffer' % end)(obj)
            self._keep(end, obj)
            return
        ary, address, nbytes = _host(obj, end == 'src' and 'source' or 'destination', writable)
        getattr(type(self), '_gcuda_set_%s_host' % end)(self, address, nbytes)
        self._keep(end, ary)

    def _set_unified(self, end, obj, size, writable):
        if size is not None:
            getattr(type(self), '_gcuda_set_%s_unified' % end)(self, obj, size)
            self._keep(end, None)
            return
        try:
            buf, address, nbytes = _device_endpoint(obj, end)
        except TypeError:
            ary, address, nbytes = _host(obj, end, writable)
            getattr(type(self), '_gcuda_set_%s_unified' % end)(self, address, nbytes)
            self._keep(end, ary)
            return
        self._set_device(end, obj)

    def _set_device(self, end, devptr):
        buf, address, nbytes = _device_endpoint(devptr, end)
        if buf is not None:
            getattr(self, 'set_%s_buffer' % end)(buf)
        else:
            getattr(type(self), '_gcuda_set_%s_unified' % end)(self, address, nbytes)
        self._keep(end, devptr)

    def set_src_host(self, buffer, size=None):
        """PyCUDA: copy from @buffer (host memory with the buffer protocol,
        or a GCuda.HostBuffer). GCuda's set_src_host(address, size) also
        works."""
        self._set_host('src', buffer, size, False)

    def set_dst_host(self, buffer, size=None):
        """PyCUDA: copy into @buffer (writable host memory, or a
        GCuda.HostBuffer). GCuda's set_dst_host(address, size) also works."""
        self._set_host('dst', buffer, size, True)

    def set_src_device(self, devptr):
        """PyCUDA: copy from device memory @devptr (a GCuda.Buffer, a
        PyCUDA-style holder, or an int address)."""
        self._set_device('src', devptr)

    def set_dst_device(self, devptr):
        """PyCUDA: copy into device memory @devptr (see set_src_device())."""
        self._set_device('dst', devptr)

    def set_src_unified(self, buffer, size=None):
        """PyCUDA: copy from memory of either kind in the unified address
        space; GCuda's set_src_unified(address, size) also works."""
        self._set_unified('src', buffer, size, False)

    def set_dst_unified(self, buffer, size=None):
        """PyCUDA: copy into memory of either kind in the unified address
        space; GCuda's set_dst_unified(address, size) also works."""
        self._set_unified('dst', buffer, size, True)

    def set_src_array(self, ary):
        type(self)._gcuda_set_src_array(self, ary)
        self._keep('src', ary)

    def set_dst_array(self, ary):
        type(self)._gcuda_set_dst_array(self, ary)
        self._keep('dst', ary)


def _copy_class(base, name, doc, with_aligned):
    def call(self, stream=None, aligned=False):
        # PyCUDA: copy() / copy(aligned=...) waits; copy(stream) queues it
        if isinstance(stream, bool):
            stream, aligned = None, stream
        if with_aligned:
            self.set_aligned(bool(aligned))
        self.execute(stream)

    namespace = {'__module__': OVERRIDE_MODULE, '__doc__': doc, '__call__': call,
                 '_FIELDS': _copy_fields(base)}
    for end in ('src', 'dst'):
        for kind in ('host', 'unified', 'array'):
            if hasattr(base, 'set_%s_%s' % (end, kind)):  # Copy3DPeer has no arrays
                namespace['_gcuda_set_%s_%s' % (end, kind)] = getattr(base, 'set_%s_%s' % (end, kind))
    # The methods go into the class itself: the override wraps every
    # introspected method a class does not define (see gi/overrides/GCuda.py).
    for key, value in _CopyFields.__dict__.items():
        if 'array' in key and not hasattr(base, key):
            continue
        if key in ('__getattr__', '__setattr__') or not key.startswith('__'):
            namespace.setdefault(key, value)
    return type(name, (base,), namespace)


Copy2D = _copy_class(GCuda.Copy2D, 'Copy2D', GCuda.Copy2D.__doc__, True)
Copy3D = _copy_class(GCuda.Copy3D, 'Copy3D', GCuda.Copy3D.__doc__, False)
Copy3DPeer = _copy_class(GCuda.Copy3DPeer, 'Copy3DPeer', GCuda.Copy3DPeer.__doc__, False)
