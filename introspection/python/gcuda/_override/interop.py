# SPDX-License-Identifier: LGPL-2.1-or-later
"""Device memory and streams shared with other CUDA libraries (CuPy,
PyTorch, Numba, PyCUDA-style objects) without copies, both ways:
``__cuda_array_interface__`` (v3, with its stream rule), DLPack
(``__dlpack__``/``__dlpack_device__``, legacy and versioned capsules),
PyCUDA's ``get_pointer()``/``gpudata``, and foreign stream handles
(``__cuda_stream__``, CuPy's ``Stream.ptr``, PyTorch's ``cuda_stream``).

DLPack is done with ctypes, not in the optional C extension: the extension
is built for the build machine's Python, while the libraries GCuda meets
(CuPy, PyTorch) often live in another interpreter, where only the
pure-Python path exists. ctypes callbacks take the GIL themselves, so a
consumer may call the deleter from any thread.

The functions here are the contract other parts of the override use
(gpuarray's GPUArray, kernel arguments): foreign_memory(),
interface_layout(), interface_pointer(), cuda_array_interface(),
dlpack_capsule(), dlpack_device(), buffer_from_foreign(), and
stream_from_foreign(). What a foreign array says about itself (shape,
strides, type, data pointer) is checked before it is used: a wrong size
must never become a buffer."""

import ctypes
import math
import numbers
import operator
import threading

from gi.module import get_introspection_module
from gi.repository import GLib

from .errors import _convert, _library_error
from .pools import PooledDeviceAllocation
from .views import _export, _numpy

GCuda = get_introspection_module('GCuda')

__all__ = []

_KDL_CUDA = 2
_KDL_CUDA_HOST = 3
_KDL_CUDA_MANAGED = 13

# CU_STREAM_LEGACY, CU_STREAM_PER_THREAD
_LEGACY, _PER_THREAD = 1, 2


def _call(fn, *args):
    """@fn(*args) with GErrors raised as GCuda's exception classes."""
    try:
        return fn(*args)
    except GLib.Error as e:
        raise _convert(e).with_traceback(None) from None


# ---------------------------------------------------------------- streams

def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def stream_handle(stream):
    """The CUstream handle (an int) of @stream, or None for None: a
    GCuda.Stream, an object with ``__cuda_stream__`` (a method or attribute
    giving ``(version, handle)``), PyTorch's ``torch.cuda.Stream``
    (``cuda_stream``), CuPy's ``cupy.cuda.Stream`` (``ptr``), or an int."""
    if stream is None:
        return None
    if isinstance(stream, GCuda.Stream):
        return stream.get_handle()
    if _is_int(stream):
        return operator.index(stream)
    protocol = getattr(stream, '__cuda_stream__', None)
    if protocol is not None:
        value = protocol() if callable(protocol) else protocol
        try:
            version, handle = value
        except (TypeError, ValueError):
            raise TypeError('__cuda_stream__ of %s gave %r, not (version, handle)'
                            % (type(stream).__name__, value)) from None
        if version != 0:
            raise TypeError('__cuda_stream__ version %r is not supported (only 0)' % (version,))
        return operator.index(handle)
    for attribute in ('cuda_stream', 'ptr'):  # PyTorch, CuPy
        handle = getattr(stream, attribute, None)
        if _is_int(handle):
            return operator.index(handle)
    raise TypeError('a stream is a GCuda.Stream, an object with __cuda_stream__, a torch.cuda.Stream, '
                    'a cupy.cuda.Stream or an int handle, not %s' % type(stream).__name__)


def stream_from_foreign(stream, context=None):
    """@stream as a GCuda.Stream (None stays None): a GCuda.Stream as it
    is, any other stream (see stream_handle()) borrowed with
    GCuda.Stream.new_for_handle(), which never destroys it; the object
    given is kept alive as long as the GCuda.Stream."""
    if stream is None or isinstance(stream, GCuda.Stream):
        return stream
    handle = stream_handle(stream)
    borrowed = _call(GCuda.Stream.new_for_handle, context, handle)
    if not _is_int(stream):
        borrowed.__dict__['_gcuda_foreign_owner'] = stream  # the owner outlives the borrow
    return borrowed


def _stream_follow(context, consumer, producer):
    """Makes the stream @consumer (a handle) wait for the work queued so far
    on @producer (a GCuda.Stream), through an event, without blocking."""
    if producer is None or consumer is None:
        return
    if consumer == producer.get_handle():
        return
    event = _call(GCuda.Event.new, context, GCuda.EventFlags.DISABLE_TIMING)
    _call(GCuda.Event.record, event, producer)
    _call(GCuda.Stream.wait_event, _call(GCuda.Stream.new_for_handle, context, consumer), event)


# ---------------------------------------------------------------- layouts

def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _extent(shape, strides, itemsize):
    """(lowest byte offset, bytes covered) of an array of @shape and
    @strides (bytes) from its first element; (0, 0) when it is empty."""
    if any(n == 0 for n in shape):
        return 0, 0
    low = high = 0
    for n, s in zip(shape, strides):
        if s < 0:
            low += (n - 1) * s
        else:
            high += (n - 1) * s
    return low, high - low + itemsize


# numpy kinds whose elements are plain bytes, which device memory can hold
# ('O' elements are host pointers to Python objects)
_PLAIN_KINDS = frozenset('biufcmMSUV')
# device addresses are 64-bit: no layout may reach below 0 or past 2**64
_ADDRESS_LIMIT = 1 << 64


def _index(value, what, name):
    """@value as an int (numpy integers too, bools not), else TypeError."""
    if isinstance(value, bool):
        raise TypeError('%s: %s %r is not an integer' % (what, name, value))
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError('%s: %s %r is not an integer' % (what, name, value)) from None


def _ints(values, what, name):
    """The sequence @values as a tuple of ints, else TypeError naming it."""
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, '__iter__'):
        raise TypeError('%s: %s must be a tuple of integers, not %r' % (what, name, values))
    result = tuple(values)
    for value in result:
        if isinstance(value, bool) or not hasattr(type(value), '__index__'):
            raise TypeError('%s: %s %r holds %r, which is not an integer' % (what, name, result, value))
    return tuple(operator.index(value) for value in result)


def _checked_dtype(dtype, what):
    """@dtype, refused when device memory cannot hold it: Python objects,
    kinds that are not plain data, no size."""
    if dtype.hasobject:
        raise TypeError('%s: dtype %s holds Python objects (host pointers), which device memory cannot hold'
                        % (what, dtype))
    if dtype.kind not in _PLAIN_KINDS:
        raise TypeError('%s: dtype %s (kind %r) is not plain data' % (what, dtype, dtype.kind))
    if dtype.itemsize <= 0:
        raise ValueError('%s: dtype %s has no size (itemsize %d)' % (what, dtype, dtype.itemsize))
    return dtype


def _dtype_of_interface(interface, what='the __cuda_array_interface__'):
    """The dtype a __cuda_array_interface__ describes (its descr when that
    is a struct), checked."""
    np = _numpy()
    typestr = interface.get('typestr')
    if not isinstance(typestr, str):
        raise TypeError('%s: typestr must be a numpy type string such as "<f4", not %r' % (what, typestr))
    try:
        dtype = np.dtype(typestr)
    except (TypeError, ValueError):
        raise TypeError('%s: typestr %r is not a numpy type string' % (what, typestr)) from None
    descr = interface.get('descr')
    if descr:
        try:
            entries = [tuple(entry) for entry in descr]
            # [('', typestr)] says no more than typestr
            described = None if len(entries) == 1 and entries[0][0] == '' else np.dtype(entries)
        except (TypeError, ValueError, IndexError):
            described = None  # as numpy: the typestr decides
        if described is not None:
            _checked_dtype(described, what)
            if described.itemsize != dtype.itemsize:
                raise ValueError('%s: descr describes %d bytes per element, typestr %r %d'
                                 % (what, described.itemsize, typestr, dtype.itemsize))
            dtype = described
    _checked_dtype(dtype, what)
    if dtype.fields is None and len(_typestr_sizes) < _TYPESTR_SIZES_MAX:
        _typestr_sizes[typestr] = dtype.itemsize  # the typestr's own dtype, fine
    return dtype


# typestrs _dtype_of_interface() accepted -> their item size: what
# interface_pointer() checks kernel arguments with, without numpy
_typestr_sizes = {}
_TYPESTR_SIZES_MAX = 256


def interface_pointer(interface):
    """The data pointer of a __cuda_array_interface__ dict when it is well
    formed as the usual ones are (a known typestr, no descr beyond it, no
    mask, a shape tuple of positive ints, an int version, strides None or
    one int per dimension, a data pointer whose bytes lie in the address
    space), else None: interface_layout() then says what is wrong, or
    takes it. This is the check on every kernel launch, so it costs
    little."""
    if type(interface) is not dict:
        return None
    shape = interface.get('shape')
    data = interface.get('data')
    strides = interface.get('strides')
    typestr = interface.get('typestr')
    itemsize = _typestr_sizes.get(typestr) if type(typestr) is str else None
    descr = interface.get('descr')
    if (itemsize is None or type(shape) is not tuple or type(data) is not tuple or len(data) != 2
            or interface.get('mask') is not None or type(interface.get('version', 0)) is not int):
        return None
    if descr is not None and not (type(descr) is list and len(descr) == 1 and descr[0] == ('', typestr)):
        return None  # (CuPy and Numba give [('', typestr)], which says no more)
    address = data[0]
    if type(address) is not int or address <= 0:
        return None
    high = itemsize
    if strides is None:
        for n in shape:
            if type(n) is not int or n <= 0:
                return None
            high *= n
        return address if address + high <= _ADDRESS_LIMIT else None
    if type(strides) is not tuple or len(strides) != len(shape):
        return None
    low = 0
    for n, stride in zip(shape, strides):
        if type(n) is not int or type(stride) is not int or n <= 0:
            return None
        if stride < 0:
            low += (n - 1) * stride
        else:
            high += (n - 1) * stride
    return address if address + low > 0 and address + high <= _ADDRESS_LIMIT else None


def _checked_extent(address, shape, strides, itemsize, what, error=ValueError):
    """(lowest address, bytes) of a checked layout: its bytes must lie in
    the 64-bit address space, and a non-empty array needs a data pointer."""
    low, size = _extent(shape, strides, itemsize)
    if size == 0:
        return address, 0
    if address == 0:
        raise error('%s: the data pointer is NULL, but shape %r holds %d elements'
                    % (what, shape, math.prod(shape)))
    if not 0 < address < _ADDRESS_LIMIT:
        raise error('%s: the data pointer %#x is not a 64-bit device address' % (what, address))
    if address + low < 0:
        raise error('%s: shape %r and strides %r reach %d bytes below the data pointer %#x, below address 0'
                    % (what, shape, strides, -low, address))
    if address + low + size > _ADDRESS_LIMIT:
        raise error('%s: shape %r and strides %r (%d bytes from %#x) reach past the end of the 64-bit address space'
                    % (what, shape, strides, size, address + low))
    return address + low, size


class _Layout:
    """What a foreign array describes: address of its first element, shape,
    strides in bytes, dtype, and the object that keeps the memory alive.
    Checked when made: integer dimensions, none negative, one stride per
    dimension, a dtype device memory can hold, and bytes that lie in the
    address space (@what names the array in the errors; @error is the
    class of the value errors: ValueError, BufferError for DLPack)."""

    __slots__ = ('address', 'shape', 'strides', 'dtype', 'keepalive', 'readonly')

    def __init__(self, address, shape, strides, dtype, keepalive, readonly=False, what='the foreign array',
                 error=ValueError):
        self.keepalive = keepalive  # first: an error below still releases a DLPack import
        self.address = _index(address, what, 'data pointer')
        self.shape = _ints(shape, what, 'shape')
        for n in self.shape:
            if n < 0:
                raise error('%s: shape %r has a negative dimension (%d)' % (what, self.shape, n))
        self.dtype = _checked_dtype(dtype, what)
        if strides is None:
            self.strides = _c_strides(self.shape, dtype.itemsize)
        else:
            self.strides = _ints(strides, what, 'strides')
            if len(self.strides) != len(self.shape):
                raise error('%s: %d strides %r for the %d dimensions of shape %r'
                            % (what, len(self.strides), self.strides, len(self.shape), self.shape))
        self.readonly = readonly
        _checked_extent(self.address, self.shape, self.strides, dtype.itemsize, what, error)

    @property
    def contiguous(self):
        """C-contiguous (or one element per dimension that matters)."""
        expected = _c_strides(self.shape, self.dtype.itemsize)
        return all(n <= 1 or s == e for n, s, e in zip(self.shape, self.strides, expected))

    def extent(self):
        """(lowest address covered, bytes covered)."""
        low, size = _extent(self.shape, self.strides, self.dtype.itemsize)
        return self.address + low, size


# ---------------------------------------------------------------- DLPack structures

class _DLDevice(ctypes.Structure):
    _fields_ = [('device_type', ctypes.c_int32), ('device_id', ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [('code', ctypes.c_uint8), ('bits', ctypes.c_uint8), ('lanes', ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [('data', ctypes.c_void_p), ('device', _DLDevice), ('ndim', ctypes.c_int32),
                ('dtype', _DLDataType), ('shape', ctypes.POINTER(ctypes.c_int64)),
                ('strides', ctypes.POINTER(ctypes.c_int64)), ('byte_offset', ctypes.c_uint64)]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [('dl_tensor', _DLTensor), ('manager_ctx', ctypes.c_void_p), ('deleter', ctypes.c_void_p)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [('major', ctypes.c_uint32), ('minor', ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [('version', _DLPackVersion), ('manager_ctx', ctypes.c_void_p), ('deleter', ctypes.c_void_p),
                ('flags', ctypes.c_uint64), ('dl_tensor', _DLTensor)]


_DLPACK_VERSION = (1, 0)
_FLAG_READ_ONLY = 1

# Capsule names: module constants, since a capsule keeps the pointer to its name.
_NAME = b'dltensor'
_USED_NAME = b'used_dltensor'
_NAME_VERSIONED = b'dltensor_versioned'
_USED_NAME_VERSIONED = b'used_dltensor_versioned'

# Prototypes of our own (ctypes.pythonapi's function objects are shared).
_capsule_api = []


def _capsules():
    if not _capsule_api:
        api = ctypes.pythonapi
        new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
            ('PyCapsule_New', api))
        # raw pointers: the destructor sees a capsule being deallocated
        is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(('PyCapsule_IsValid', api))
        get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
            ('PyCapsule_GetPointer', api))
        obj_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
            ('PyCapsule_IsValid', api))
        obj_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
            ('PyCapsule_GetPointer', api))
        set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(('PyCapsule_SetName', api))
        _capsule_api.append((new, is_valid, get_pointer, obj_is_valid, obj_get_pointer, set_name))
    return _capsule_api[0]


# DLPack exports alive: the managed tensor's address -> (its ctypes memory,
# shape and strides arrays, owner), until the consumer calls the deleter
# or the capsule dies unconsumed.
_dlpack_exports = {}
_dlpack_lock = threading.Lock()


def _release_export(address):
    with _dlpack_lock:
        entry = _dlpack_exports.pop(address, None)
    del entry  # the owner (and with it GCuda's memory) may go now


@_DELETER
def _dlpack_deleter(address):
    # The consumer is done (PyTorch and CuPy call this from their tensor's
    # destructor, in any thread: ctypes takes the GIL).
    if address:
        _release_export(address)


@_DELETER
def _capsule_destructor(capsule):
    # A capsule dying unconsumed still owns its tensor; a consumed one was
    # renamed used_dltensor[_versioned] and belongs to the consumer.
    _, is_valid, get_pointer, _, _, _ = _capsules()
    for name in (_NAME, _NAME_VERSIONED):
        if is_valid(capsule, name):
            _release_export(get_pointer(capsule, name))
            return


_DLPACK_CODES = {'i': 0, 'u': 1, 'f': 2, 'c': 5, 'b': 6}


def _dlpack_dtype(dtype):
    np = _numpy()
    dtype = np.dtype(dtype)
    code = _DLPACK_CODES.get(dtype.kind)
    if code is None or dtype.fields is not None or dtype.subdtype is not None:
        raise BufferError('DLPack has no type for %s' % dtype)
    if dtype.byteorder == '>' or (dtype.byteorder == '=' and not np.little_endian):
        raise BufferError('DLPack needs native byte order, not %s' % dtype.str)
    return code, dtype.itemsize * 8


def dlpack_device(device_ordinal):
    """``__dlpack_device__()`` of CUDA device memory: (kDLCUDA, ordinal)."""
    return (_KDL_CUDA, operator.index(device_ordinal))


def dlpack_capsule(owner, address, shape, dtype, strides, device_ordinal, stream=None, *,
                   producer_stream=None, max_version=None, readonly=False, context=None):
    """A DLPack capsule of the memory at @address (@shape, numpy @dtype,
    @strides in bytes or None for C order, on device @device_ordinal) that
    keeps @owner alive until the consumer calls the deleter (or the capsule
    dies unconsumed). @owner must make sure the memory stays (a
    GCuda.Buffer's _export()).

    @max_version (the consumer's, a (major, minor) tuple) of 1.0 or more
    gives a versioned capsule ("dltensor_versioned", with the read-only
    flag), else a legacy one ("dltensor"). @stream is the consumer's stream
    from ``__dlpack__(stream=...)``: None or 1 the legacy default stream, 2
    the per-thread one, -1 no synchronization, another int a stream handle;
    when @producer_stream (a GCuda.Stream the data was last written on) is
    given, the consumer's stream is made to wait for its work (an event,
    the host does not block)."""
    np = _numpy()
    dtype = np.dtype(dtype)
    shape = tuple(operator.index(n) for n in shape)
    code, bits = _dlpack_dtype(dtype)
    itemsize = dtype.itemsize
    if strides is None:
        strides = _c_strides(shape, itemsize)
    strides = tuple(operator.index(s) for s in strides)
    if len(strides) != len(shape):
        raise ValueError('%d strides for %d dimensions' % (len(strides), len(shape)))
    if any(s % itemsize for s in strides):
        raise BufferError('DLPack strides count elements: a stride of %s bytes is not a multiple of %d'
                          % (strides, itemsize))
    if stream is not None:
        if not _is_int(stream):
            raise TypeError('stream must be an int or None, not %s' % type(stream).__name__)
        if stream == 0:
            raise BufferError('stream=0 is ambiguous for CUDA: use 1 for the legacy default stream, '
                              '2 for the per-thread one')
    if stream != -1 and producer_stream is not None:
        _stream_follow(context if context is not None else producer_stream.get_context(),
                       _LEGACY if stream is None else stream, producer_stream)

    versioned = max_version is not None and tuple(max_version) >= _DLPACK_VERSION
    ndim = len(shape)
    shape_array = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_array = (ctypes.c_int64 * max(ndim, 1))(*(s // itemsize for s in strides))
    managed = _DLManagedTensorVersioned() if versioned else _DLManagedTensor()
    tensor = managed.dl_tensor
    tensor.data = address if math.prod(shape) else None
    tensor.device = _DLDevice(_KDL_CUDA, operator.index(device_ordinal))
    tensor.ndim = ndim
    tensor.dtype = _DLDataType(code, bits, 1)
    tensor.shape = ctypes.cast(shape_array, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = ctypes.cast(strides_array, ctypes.POINTER(ctypes.c_int64))
    tensor.byte_offset = 0
    managed.manager_ctx = None
    managed.deleter = ctypes.cast(_dlpack_deleter, ctypes.c_void_p).value
    if versioned:
        managed.version = _DLPackVersion(*_DLPACK_VERSION)
        managed.flags = _FLAG_READ_ONLY if readonly else 0
    pointer = ctypes.addressof(managed)
    with _dlpack_lock:
        _dlpack_exports[pointer] = (managed, shape_array, strides_array, owner)
    new = _capsules()[0]
    try:
        return new(pointer, _NAME_VERSIONED if versioned else _NAME,
                   ctypes.cast(_capsule_destructor, ctypes.c_void_p).value)
    except BaseException:
        _release_export(pointer)
        raise


def _dlpack_import(obj, stream):
    """The _Layout of an object with __dlpack__ on a CUDA device, or None
    for another device. The capsule is consumed; the layout's keepalive
    calls the producer's deleter when it goes. @stream is the handle of
    the stream the memory will be used on (None: the legacy default)."""
    device = obj.__dlpack_device__()
    device_type = int(device[0])
    if device_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        return None
    consumer = _LEGACY if stream is None else stream
    try:
        capsule = obj.__dlpack__(stream=consumer, max_version=_DLPACK_VERSION)
    except TypeError:  # a producer from before DLPack 1.0
        capsule = obj.__dlpack__(stream=consumer)
    _, _, _, is_valid, get_pointer, set_name = _capsules()
    if is_valid(capsule, _NAME_VERSIONED):
        pointer = get_pointer(capsule, _NAME_VERSIONED)
        managed = _DLManagedTensorVersioned.from_address(pointer)
        if managed.version.major != _DLPACK_VERSION[0]:
            if managed.deleter:
                _DELETER(managed.deleter)(pointer)
            set_name(capsule, _USED_NAME_VERSIONED)
            raise BufferError('DLPack version %d.%d is not supported' % (managed.version.major,
                                                                        managed.version.minor))
        readonly = bool(managed.flags & _FLAG_READ_ONLY)
        set_name(capsule, _USED_NAME_VERSIONED)
    elif is_valid(capsule, _NAME):
        pointer = get_pointer(capsule, _NAME)
        managed = _DLManagedTensor.from_address(pointer)
        readonly = False
        set_name(capsule, _USED_NAME)
    else:
        raise TypeError('__dlpack__ of %s did not give a DLPack capsule' % type(obj).__name__)
    keepalive = _DLPackImport(obj, pointer, managed.deleter)
    # (an error from here on drops keepalive, which calls the producer's deleter)
    what = 'the DLPack tensor of %s' % type(obj).__name__
    tensor = managed.dl_tensor
    if tensor.device.device_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        raise BufferError('the DLPack tensor is not in CUDA memory (device type %d)' % tensor.device.device_type)
    if not 0 <= tensor.ndim <= _DLPACK_MAX_NDIM:
        raise BufferError('%s has ndim %d (0 to %d dimensions are possible)' % (what, tensor.ndim, _DLPACK_MAX_NDIM))
    if tensor.ndim and not tensor.shape:
        raise BufferError('%s has %d dimensions but no shape (a NULL shape array)' % (what, tensor.ndim))
    dtype = _dlpack_numpy_dtype(tensor.dtype, what)
    shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
    strides = None
    if tensor.strides:
        strides = tuple(tensor.strides[i] * dtype.itemsize for i in range(tensor.ndim))
    data = tensor.data or 0
    if data + tensor.byte_offset >= _ADDRESS_LIMIT:
        raise BufferError('%s: data pointer %#x plus byte_offset %d lies past the 64-bit address space'
                          % (what, data, tensor.byte_offset))
    return _Layout(data + tensor.byte_offset, shape, strides, dtype, keepalive, readonly, what, BufferError)


# numpy kind and the sizes in bits DLPack's type codes have there (kDLInt,
# kDLUInt, kDLFloat: IEEE binary16/32/64, kDLComplex, kDLBool)
_DLPACK_TYPES = {0: ('i', (8, 16, 32, 64)), 1: ('u', (8, 16, 32, 64)), 2: ('f', (16, 32, 64)),
                 5: ('c', (64, 128)), 6: ('b', (8,))}
_DLPACK_MAX_NDIM = 64  # numpy's and CuPy's limit


def _dlpack_numpy_dtype(dl_dtype, what):
    """The numpy dtype of a DLDataType: one lane of a type numpy has."""
    if dl_dtype.lanes != 1:
        raise BufferError('DLPack vector types (%d lanes) are not supported' % dl_dtype.lanes)
    kind, sizes = _DLPACK_TYPES.get(dl_dtype.code, (None, ()))
    if kind is None or dl_dtype.bits not in sizes:
        raise BufferError('%s: DLPack type code %d (%d bits) has no numpy dtype' % (what, dl_dtype.code, dl_dtype.bits))
    np = _numpy()
    return np.dtype('?') if kind == 'b' else np.dtype('%s%d' % (kind, dl_dtype.bits // 8))


class _DLPackImport:
    """Keeps a consumed DLPack tensor: its producer's deleter runs when this
    goes (the GCuda.Buffer over the memory holds it)."""

    __slots__ = ('owner', 'pointer', 'deleter', '__weakref__')

    def __init__(self, owner, pointer, deleter):
        self.owner = owner
        self.pointer = pointer
        self.deleter = deleter

    def __del__(self):
        deleter, self.deleter = self.deleter, None
        if deleter:
            _DELETER(deleter)(self.pointer)


# ---------------------------------------------------------------- import

def _interface_version(interface, what):
    if not isinstance(interface, dict):
        raise TypeError('%s is a %s, not a dict' % (what, type(interface).__name__))
    version = interface.get('version', 0)
    if not _is_int(version):
        raise TypeError('%s: version must be an int, not %r' % (what, version))
    return version


def interface_layout(obj, interface, what=None):
    """The checked _Layout of the __cuda_array_interface__ @interface of
    @obj (kept alive by the layout), without waiting for its stream:
    TypeError or ValueError naming what is wrong (missing keys, a shape
    that is no tuple of non-negative ints, strides of another length, a
    typestr of Python objects or no size, a data pointer that is no
    address)."""
    if what is None:
        what = 'the __cuda_array_interface__ of %s' % type(obj).__name__
    _interface_version(interface, what)
    for key in ('shape', 'typestr', 'data'):
        if key not in interface:
            raise TypeError('%s has no "%s"' % (what, key))
    dtype = _dtype_of_interface(interface, what)
    data = interface['data']
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise TypeError('%s: data must be a (pointer, read-only) tuple, not %r' % (what, data))
    address, readonly = data
    if interface.get('mask') is not None:
        raise BufferError('%s: masked arrays (__cuda_array_interface__ with a mask) are not supported' % what)
    return _Layout(0 if address is None else address, interface['shape'], interface.get('strides'), dtype, obj,
                   bool(readonly), what)


def _interface_layout(obj, interface, stream):
    """The _Layout of a __cuda_array_interface__ dict (checked first, see
    interface_layout()); its stream (v3) is waited for as the protocol
    says: @stream (a handle) is made to wait for it, or without one the
    host waits."""
    layout = interface_layout(obj, interface)
    producer = interface.get('stream') if interface.get('version', 0) >= 3 else None
    if producer is not None:
        if not _is_int(producer):
            raise BufferError('__cuda_array_interface__ stream must be None or an int, not %r' % (producer,))
        if producer == 0:  # ambiguous by the protocol; the driver's NULL stream is the legacy one
            producer = _LEGACY
        if stream is None:
            _call(GCuda.Stream.synchronize, _call(GCuda.Stream.new_for_handle, None, producer))
        else:
            borrowed = _call(GCuda.Stream.new_for_handle, None, producer)
            _stream_follow(borrowed.get_context(), stream, borrowed)
    return layout


def _foreign_layout(obj, stream=None):
    """The _Layout of @obj's device memory, or None when @obj has none of
    the protocols (see foreign_memory()). @stream: the handle of the stream
    the memory will be used on, None for the legacy default stream."""
    interface = getattr(obj, '__cuda_array_interface__', None)
    if interface is not None and _interface_version(interface, 'the __cuda_array_interface__ of %s'
                                                    % type(obj).__name__) >= 3:
        return _interface_layout(obj, interface, stream)
    if hasattr(obj, '__dlpack__') and hasattr(obj, '__dlpack_device__'):
        layout = _dlpack_import(obj, stream)
        if layout is not None:
            return layout
    if interface is not None:
        return _interface_layout(obj, interface, stream)
    get_pointer = getattr(obj, 'get_pointer', None)
    if callable(get_pointer):
        address = operator.index(get_pointer())
        return _Layout(address, (_allocation_rest(address),), None, _numpy().dtype('uint8'), obj,
                       what='the get_pointer() of %s' % type(obj).__name__)
    gpudata = getattr(obj, 'gpudata', None)
    if gpudata is not None:
        if isinstance(gpudata, GCuda.Buffer):
            address, nbytes = gpudata.get_address(), gpudata.get_size()
        else:
            inner = _foreign_layout(gpudata, stream)
            if inner is not None:
                address, nbytes = inner.extent()
            else:
                address = operator.index(gpudata)
                nbytes = getattr(obj, 'nbytes', None)
                if nbytes is None:
                    nbytes = _allocation_rest(address)
        np = _numpy()
        dtype = getattr(obj, 'dtype', None)
        shape = getattr(obj, 'shape', None)
        strides = getattr(obj, 'strides', None)
        if dtype is not None and shape is not None:
            layout = _Layout(address, shape, strides, np.dtype(dtype), (obj, gpudata),
                             what='%s (gpudata, shape, strides, dtype)' % type(obj).__name__)
            if layout.extent()[1] <= nbytes:
                return layout
        return _Layout(address, (nbytes,), None, np.dtype('uint8'), (obj, gpudata))
    return None


def _allocation_rest(address):
    """Bytes from @address to the end of the allocation it lies in (the
    driver's cuMemGetAddressRange)."""
    context = _call(GCuda.Context.get_default)
    base, size = _call(GCuda.Context.get_address_range, context, address)
    return base + size - address


def foreign_memory(obj, stream=None):
    """(address, nbytes, keepalive) of the device memory @obj exposes, or
    None when it is not such an object (a GCuda.Buffer, a numpy array, any
    host object): ``__cuda_array_interface__`` v3 first (its stream is
    waited for as the protocol says), then DLPack (CUDA devices only; the
    capsule is consumed and @keepalive calls its deleter when it goes), then
    an older ``__cuda_array_interface__``, PyCUDA's ``get_pointer()``
    (PointerHolderBase; its size is the rest of the driver's allocation),
    a ``gpudata`` attribute (GPUArray-like). @address is the lowest byte the
    array covers (its data pointer unless a stride is negative), @nbytes
    the bytes its shape and strides cover. Keep @keepalive alive while the
    memory is used. @stream: the stream that will use the memory (anything
    stream_handle() takes), None for the legacy default stream."""
    if isinstance(obj, GCuda.Buffer):
        return None
    layout = _foreign_layout(obj, stream_handle(stream))
    if layout is None:
        return None
    address, nbytes = layout.extent()
    return address, nbytes, layout.keepalive


def foreign_pointer(obj, stream=None):
    """(data pointer, keepalive) of the device memory @obj exposes, or None
    as foreign_memory(): the address of its first element (a kernel
    argument's pointer), which is above the lowest byte when a stride is
    negative."""
    if isinstance(obj, GCuda.Buffer):
        return None
    layout = _foreign_layout(obj, stream_handle(stream))
    if layout is None:
        return None
    return layout.address, layout.keepalive


def _borrow(context, address, nbytes, keepalive):
    buf = _call(GCuda.Buffer.new_for_address, context, address, nbytes, None, None)
    # kept in the wrapper's dict: PyGObject keeps the wrapper, and so the
    # owner, as long as the GObject (views of it, pending work) lives
    buf.__dict__['_gcuda_foreign_owner'] = keepalive
    return buf


def buffer_from_foreign(obj, context=None, stream=None, size=None):
    """A GCuda.Buffer borrowing the device memory of @obj (see
    foreign_memory(); also PyCUDA's pooled allocations), without a copy,
    that keeps @obj alive as long as it lives: C's
    gcuda_buffer_new_for_address(), which checks the range against the
    driver's allocation. A GCuda.Buffer is returned as it is. An int is a
    device address: @size bytes (default: to the end of its allocation).
    Empty arrays have no memory to borrow: GCuda.Error.INVALID_ARGUMENT."""
    if isinstance(obj, GCuda.Buffer):
        return obj
    if isinstance(obj, PooledDeviceAllocation):
        return obj.buffer
    if _is_int(obj):
        address = operator.index(obj)
        nbytes = _allocation_rest(address) if size is None else operator.index(size)
        return _call(GCuda.Buffer.new_for_address, context, address, nbytes, None, None)
    layout = _foreign_layout(obj, stream_handle(stream))
    if layout is None:
        raise TypeError('%s exposes no device memory (__cuda_array_interface__, __dlpack__ on a CUDA device, '
                        'get_pointer() or gpudata)' % type(obj).__name__)
    address, nbytes = layout.extent()
    if size is not None:
        nbytes = operator.index(size)
    if nbytes == 0:
        raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                             'The %s is empty: there is no device memory to borrow' % type(obj).__name__)
    return _borrow(context, address, nbytes, layout.keepalive)


# ---------------------------------------------------------------- export

def cuda_array_interface(address, shape, dtype, strides=None, stream=None, readonly=False):
    """The ``__cuda_array_interface__`` (version 3) dict of the device
    memory at @address: @shape, numpy @dtype, @strides in bytes (None, or
    C-contiguous ones, give None), @stream the stream consumers must wait
    for (a GCuda.Stream or any stream stream_handle() takes; None: no
    pending work). The legacy default stream is named 1, as the protocol
    asks (0 is ambiguous)."""
    np = _numpy()
    dtype = np.dtype(dtype)
    shape = tuple(operator.index(n) for n in shape)
    if strides is not None:
        strides = tuple(operator.index(s) for s in strides)
        if len(strides) != len(shape):
            raise ValueError('%d strides for %d dimensions' % (len(strides), len(shape)))
        if strides == _c_strides(shape, dtype.itemsize):
            strides = None
    handle = stream_handle(stream)
    if handle == 0:
        handle = _LEGACY
    interface = {
        'version': 3,
        'shape': shape,
        'typestr': dtype.str,
        'data': (operator.index(address) if math.prod(shape) else 0, bool(readonly)),
        'strides': strides,
        'stream': handle,
    }
    if dtype.fields is not None:
        interface['descr'] = dtype.descr
    return interface


def _device_ordinal(buffer):
    return buffer.get_context().get_device().get_ordinal()


def _export_for_consumer(buffer):
    """GCuda's side of an export: the buffer's memory stays allocated until
    the Python object goes (views.py's _export()); freed memory raises."""
    if buffer.is_freed():
        raise _library_error(GCuda.Error.FREED, 'The buffer at 0x%x was freed' % buffer.get_address())
    _export(buffer)


def _dlpack_method(owner, buffer, address, shape, dtype, strides, producer_stream, readonly,
                   stream=None, max_version=None, dl_device=None, copy=None):
    """__dlpack__() of @owner (a Buffer or DeviceView over @buffer)."""
    ordinal = _device_ordinal(buffer)
    if dl_device is not None and tuple(int(v) for v in dl_device) != (_KDL_CUDA, ordinal):
        raise BufferError('GCuda memory is on CUDA device %d, not %r; copying to another device is not '
                          'supported' % (ordinal, tuple(dl_device)))
    if copy:
        raise BufferError('GCuda exports its memory without copies: copy=True is not supported')
    _export_for_consumer(buffer)
    return dlpack_capsule(owner, address, shape, dtype, strides, ordinal, stream,
                          producer_stream=producer_stream, max_version=max_version, readonly=readonly,
                          context=buffer.get_context())
