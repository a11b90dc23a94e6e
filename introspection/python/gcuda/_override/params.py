# SPDX-License-Identifier: LGPL-2.1-or-later
"""Kernel parameters: the layout a kernel expects, the values packed into
it, PyCUDA's In/Out/InOut argument handlers and the plans of plain calls."""

import numbers
import operator
import re
import struct

from gi.module import get_introspection_module
from gi.repository import GLib

from . import OVERRIDE_MODULE, interop
from .buffers import ADDRESS, Buffer
from .errors import _exact_integer, _library_error, _raising
from .memory import get_buffer, memcpy_dtoh, memcpy_dtoh_async, memcpy_htod, memcpy_htod_async
from .views import _host, _numpy

GCuda = get_introspection_module('GCuda')

# Each parameter lies at its natural alignment; count and sizes are checked
# against cuFuncGetParamInfo first, so a mismatch is
# GCuda.Error.KERNEL_ARGUMENTS naming the parameter.
#
# Pointer parameters take GCuda.Buffer (its address; a buffer that is no
# view remembers it, and its free() forgets it; views are checked on every
# use, as freeing their parent frees them), GCuda.HostBuffer (its device
# address: DEVICEMAP memory), objects with __cuda_array_interface__ or
# .gpudata, numpy integers and plain ints (raw addresses, as
# `int(buf) + offset`).

__all__ = ['ArgumentHandler', 'In', 'Out', 'InOut']


def _kernel_args_error(message):
    return _library_error(GCuda.Error.KERNEL_ARGUMENTS, message)


def _kernel_context(func):
    """The context of @func's kernels, or None where it has none to tell (a
    function made by hand)."""
    try:
        context = func._context()
    except (AttributeError, TypeError, GLib.Error):
        return None
    return context if isinstance(context, GCuda.Context) else None


def _address_key(context):
    """The attribute under which a buffer remembers its address once checked
    for kernels of @context (None: ADDRESS, checked for no context). By the
    context's handle and device: a key that comes back for a new context
    is of the same device, for which the check's answer stands."""
    if context is None:
        return ADDRESS
    return '%s_%x_%d' % (ADDRESS, context.get_handle(), context.get_device().get_ordinal())


def _pointer_value(a, i, stream=None, key=ADDRESS, context=None):
    """The device address argument #@i stands for, for a launch on @stream
    (None: the legacy default stream), which waits for the producer's
    stream of a __cuda_array_interface__ (v3) that names one; remembered on
    a buffer under @key. A GCuda.Buffer is checked for kernels of @context
    (None: not checked) as KernelArgs does (Buffer.check_reachable())."""
    if isinstance(a, GCuda.Buffer):
        if a.is_freed():
            raise _library_error(GCuda.Error.FREED, 'Argument #%d (0-based): the buffer at 0x%x was freed'
                                 % (i, a.get_address()))
        if a.get_context() is None:
            # made by hand (GCuda.Buffer()): its address 0 would fault in the kernel
            raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                                 'Argument #%d (0-based): the GCuda.Buffer was made without memory: allocate it with '
                                 'mem_alloc()' % i)
        if context is not None:
            try:
                GCuda.Buffer.check_reachable(a, context)
            except GLib.Error as e:
                raise _library_error(e.code, 'Argument #%d (0-based): %s' % (i, e.message)) from None
        address = a.get_address()
        if a.get_parent() is None:
            setattr(a, key, address)
        return address
    if isinstance(a, GCuda.HostBuffer):
        address = a.get_device_address()  # DEVICEMAP memory only
        setattr(a, key, address)
        return address
    if isinstance(a, ArgumentHandler):
        return a._device_address()
    if isinstance(a, (bool, float, complex, str, bytes)):
        raise TypeError('invalid type on parameter #%d (0-based): %s is not an address' % (i, type(a).__name__))
    if isinstance(a, _integer_types()):  # a raw address (int, np.intp ...): passed as is
        return operator.index(a)
    address = _foreign_pointer(a, i, stream)
    if address is not None:
        return address
    try:
        return operator.index(a)
    except TypeError:
        raise TypeError('invalid type on parameter #%d (0-based): %s is not an address'
                        % (i, type(a).__name__)) from None


def _pointer(a, i, stream=None):
    address = getattr(a, ADDRESS, None)
    if address is not None:
        return address
    return _pointer_value(a, i, stream)


def _pointer_for(context):
    """_pointer() for the kernels of @context: buffers checked for it."""
    key = _address_key(context)

    def pointer(a, i, stream=None):
        address = getattr(a, key, None)
        if address is not None:
            return address
        return _pointer_value(a, i, stream, key, context)
    pointer.buffer_address_key = key  # the launchers read buffers' addresses under it
    return pointer


_int_types = []  # [(int, numpy.integer)], made on first use (numpy is imported lazily)


def _integer_types():
    if not _int_types:
        _int_types.append((int, _numpy().integer))
    return _int_types[0]


# Device memory of other libraries, recognised by duck typing. PyCUDA's GPUArray and GCuda's stand for int(a.gpudata); a
# PointerHolderBase for a.get_pointer(); CuPy, PyTorch and numba arrays for
# their __cuda_array_interface__ data pointer; an object with DLPack alone
# goes through the interop module. The address goes
# to the kernel as is: what the kernel reads or writes of it is the
# kernel's business, as in PyCUDA.

def _foreign_pointer(a, i, stream=None):
    """The device address of a device object that is no GCuda memory, or
    None if @a is none."""
    gpudata = getattr(a, 'gpudata', None)
    if gpudata is not None:
        return _gpudata_pointer(a, i, stream)
    if callable(getattr(a, 'get_pointer', None)):
        return _holder_pointer(a, i, stream)
    if getattr(a, '__cuda_array_interface__', None) is not None:
        return _cai_pointer(a, i, stream)
    if _cuda_dlpack(a):
        return _dlpack_pointer(a, i, stream)
    return None


_DLPACK_CUDA_DEVICES = (2, 13)  # kDLCUDA, kDLCUDAManaged


def _cuda_dlpack(a):
    """Whether @a is CUDA memory by DLPack alone (numpy arrays have DLPack
    too: host memory)."""
    device = getattr(a, '__dlpack_device__', None)
    if device is None or getattr(a, '__dlpack__', None) is None:
        return False
    try:
        return device()[0] in _DLPACK_CUDA_DEVICES
    except (TypeError, ValueError, IndexError):
        return False


def _gpudata_pointer(a, i, stream=None):
    gpudata = getattr(a, 'gpudata', None)
    if gpudata is None:  # another object of the same class may lack it
        return _pointer_value(a, i, stream)
    return _pointer(gpudata, i, stream)


def _holder_pointer(a, i, stream=None):
    """A PointerHolderBase's get_pointer()."""
    get_pointer = getattr(a, 'get_pointer', None)
    if get_pointer is None:
        return _pointer_value(a, i, stream)
    try:
        return operator.index(get_pointer())
    except TypeError:
        raise TypeError('invalid value on parameter #%d (0-based): %s.get_pointer() gave no integer address'
                        % (i, type(a).__name__)) from None


def _cai_pointer(a, i, stream=None):
    """The data pointer of a __cuda_array_interface__ (the whole interface
    checked: a malformed one is refused, as everywhere foreign arrays are
    taken), once @stream waits for the producer's stream."""
    cai = getattr(a, '__cuda_array_interface__', None)
    if cai is None:
        return _pointer_value(a, i, stream)
    address = interop.interface_pointer(cai)
    if address is None:  # empty, or malformed: the whole check, which says what is wrong
        address = interop.interface_layout(a, cai, 'invalid value on parameter #%d (0-based): the '
                                           '__cuda_array_interface__ of %s' % (i, type(a).__name__)).address
    producer = cai.get('stream')
    if producer is not None:
        _wait_for_producer(producer, stream, i)
    return address


def _dlpack_pointer(a, i, stream=None):
    """An object with DLPack alone, through the interop module."""
    if not _cuda_dlpack(a):  # another object of the same class may be host memory
        return _pointer_value(a, i, stream)
    found = interop.foreign_pointer(a)
    if found is None:
        raise TypeError('invalid type on parameter #%d (0-based): %s is not an address' % (i, type(a).__name__))
    return found[0]


# The producer's stream of a __cuda_array_interface__ v3 (its "stream":
# 1 the legacy default stream, 2 the per-thread one, else a CUstream; 0 is
# forbidden). The consumer makes its own work wait for it: nothing to do
# when it is the launch stream, or when CUDA orders the two already (the
# legacy default stream and a blocking stream wait for each other's earlier
# work; the per-thread default stream is a blocking stream); otherwise an
# event recorded on the producer's stream that the launch stream waits for
# (the host, for a launch on the legacy stream). A CUstream GCuda cannot
# record on: the context is synchronized.

_CAI_LEGACY, _CAI_PER_THREAD = 1, 2


def _wait_for_producer(producer, stream, i):
    try:
        producer = operator.index(producer)
    except TypeError:
        raise TypeError('invalid value on parameter #%d (0-based): the __cuda_array_interface__ "stream" is %s, '
                        'not an int' % (i, type(producer).__name__)) from None
    if producer == 0:
        raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                             'Argument #%d (0-based): the __cuda_array_interface__ "stream" is 0, which the '
                             'interface forbids (1 is the legacy default stream, 2 the per-thread default stream)' % i)
    if stream is None:
        if producer in (_CAI_LEGACY, _CAI_PER_THREAD):
            return
    else:
        if producer == stream.get_handle():
            return
        if producer == _CAI_LEGACY and not stream.get_flags() & GCuda.StreamFlags.NON_BLOCKING:
            return
    _producer_wait(producer, stream)


def _producer_wait(producer, stream):
    from .aio import Event
    context = stream.get_context() if stream is not None else GCuda.Context.get_default()
    if producer == _CAI_LEGACY:
        on = None
    elif producer == _CAI_PER_THREAD:
        on = GCuda.Stream.get_per_thread_default(context)
    else:
        on = _foreign_stream(context, producer)
        if on is None:
            context.synchronize()
            return
    event = Event(GCuda.EventFlags.DISABLE_TIMING, context).record(on)
    if stream is None:
        event.synchronize()
    else:
        stream.wait_event(event)


def _foreign_stream(context, handle):
    """A GCuda.Stream borrowing the CUstream @handle, or None when @handle
    is no stream handle at all (the caller then synchronizes the context)."""
    try:
        return GCuda.Stream.new_for_handle(context, handle)
    except (TypeError, OverflowError):
        return None


def _blob(a, i, size, dtype=None):
    """The bytes of a struct argument, exactly @size of them."""
    np = _numpy()
    if isinstance(a, bytes):
        data = a
    elif isinstance(a, (np.generic, np.ndarray)):
        data = a.tobytes()
    elif dtype is not None and not isinstance(a, (bytearray, memoryview)):
        data = np.array(a, dtype).tobytes()
    else:
        try:
            data = bytes(memoryview(a))
        except TypeError:
            raise TypeError('invalid type on parameter #%d (0-based): %s is not a struct value'
                            % (i, type(a).__name__)) from None
    if len(data) != size:
        raise _kernel_args_error('Argument #%d (0-based) is %d bytes, the parameter %d' % (i, len(data), size))
    return data


def _complex(a, i, dtype):
    np = _numpy()
    if isinstance(a, (str, bytes)) or not isinstance(a, (numbers.Number, np.generic)):
        raise TypeError('invalid type on parameter #%d (0-based): %s is not a complex number'
                        % (i, type(a).__name__))
    return np.asarray(a, dtype).tobytes()


# A parameter as the packer sees it: (struct char in '=' mode, size, alignment,
# kind, description, dtype). Kinds: 'value' (struct packs the argument),
# 'pointer' (an 8-byte integer; buffers and such become their address),
# 'blob' (bytes of exactly size), 'complex'.

def _guess_alignment(size):
    """Alignment of a struct known only by its size: the largest power of two
    dividing it, at most 16 (CUDA's vector types go up to 16)."""
    align = 1
    while align < 16 and size % (align * 2) == 0:
        align *= 2
    return align


def _c_alignment(dtype):
    """The alignment C gives a value of numpy @dtype."""
    if dtype.fields:
        align = max((_c_alignment(f[0]) for f in dtype.fields.values()), default=1)
        return max(align, dtype.alignment if dtype.isalignedstruct else 1)
    if dtype.subdtype is not None:
        return _c_alignment(dtype.subdtype[0])
    if dtype.kind == 'V':
        return _guess_alignment(dtype.itemsize)
    if dtype.kind == 'c':
        return dtype.itemsize  # as CUDA's complex types (float2, double2)
    return max(dtype.itemsize, 1)


_SCALAR_CHARS = {('b', 1): '?', ('i', 1): 'b', ('u', 1): 'B', ('i', 2): 'h', ('u', 2): 'H',
                 ('i', 4): 'i', ('u', 4): 'I', ('i', 8): 'q', ('u', 8): 'Q',
                 ('f', 2): 'e', ('f', 4): 'f', ('f', 8): 'd'}


def _dtype_field(dtype):
    np = _numpy()
    dtype = np.dtype(dtype)
    if dtype.kind == 'V':
        return ('%ds' % dtype.itemsize, dtype.itemsize, _c_alignment(dtype), 'blob', str(dtype), dtype)
    if dtype.kind == 'c' and dtype.itemsize in (8, 16):  # aligned as float2 / double2
        return ('%ds' % dtype.itemsize, dtype.itemsize, dtype.itemsize, 'complex', str(dtype), dtype)
    char = _SCALAR_CHARS.get((dtype.kind, dtype.itemsize))
    if char is None:
        raise TypeError('GCuda cannot pass %s values to kernels' % dtype)
    kind = 'pointer' if dtype.itemsize == 8 and dtype.kind in 'iu' else 'value'
    return (char, dtype.itemsize, dtype.itemsize, kind, str(dtype), None)


def _format_fields(fmt):
    """The fields of a struct-module format (PyCUDA's prepare() strings, with
    its 'F' and 'D' for complex64 and complex128; native sizes)."""
    np = _numpy()
    text = ''.join(fmt.split())
    if text[:1] == '@':
        text = text[1:]
    fields = []
    for count, char in re.findall(r'(\d*)(.)', text):
        n = int(count) if count else 1
        if char == 's':
            fields.append(('%ds' % n, n, _guess_alignment(n), 'blob', '%d bytes' % n, None))
            continue
        if char == 'F':
            field = _dtype_field(np.complex64)
        elif char == 'D':
            field = _dtype_field(np.complex128)
        elif char == 'c':
            field = ('c', 1, 1, 'value', 'char', None)
        elif char in 'bB?hHiIlLqQnNPefd':
            size = struct.calcsize('@' + char)
            if char in 'lLqQnNP' and size == 8:
                std = 'Q' if char in 'LQNP' else 'q'
                field = (std, 8, 8, 'pointer', 'pointer' if char == 'P' else 'int64', None)
            elif char in 'lLnNP':
                field = ('I' if char in 'LNP' else 'i', size, size, 'value', 'int32', None)
            else:
                field = (char, size, size, 'value', char, None)
        else:
            raise ValueError('%r is not a kernel argument type in the format %r (use b B ? h H i I l L q Q '
                             'n N P e f d F D and Ns)' % (char, fmt))
        fields.extend([field] * n)
    return fields


def _prepared_fields(arg_types):
    if isinstance(arg_types, str):
        return _format_fields(arg_types)
    fields = []
    for t in arg_types:  # PyCUDA: struct type characters or numpy dtypes
        if isinstance(t, str):
            fields.extend(_format_fields(t))
        else:
            fields.append(_dtype_field(t))
    return fields


def _param_layout(func, fields, what='argument'):
    """A struct.Struct packing @fields where @func's parameters lie, after
    checking their number and sizes."""
    if func.get_module() is None:  # made by hand (GObject.new()): no kernel behind it
        raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                             'This GCuda.Function was made without a kernel: functions come from '
                             'Module.get_function()')
    count = func.get_param_count()
    name = func.get_name()
    if len(fields) != count:
        hint = ''
        if len(fields) > count:
            # PyCUDA's idiom prepare("PPfi") flattens a struct {float; int;}
            hint = ('; a struct parameter is one %s: a numpy structured dtype such as '
                    "numpy.dtype([('f', numpy.float32), ('n', numpy.int32)]), or its size in bytes "
                    'such as "8s", not one per field' % what)
        raise _kernel_args_error('Kernel %s takes %d parameters, %d %ss given%s'
                                 % (name, count, len(fields), what, hint))
    get_offset = getattr(func, 'get_param_offset', None)  # exact offsets where the library has them
    fmt, end = ['='], 0
    for i, field in enumerate(fields):
        char, size, align = field[0], field[1], field[2]
        expected = func.get_param_size(i)
        if size != expected:
            raise _kernel_args_error('Parameter #%d (0-based) of kernel %s is %d bytes, the %s (%s) %d'
                                     % (i, name, expected, what, field[4], size))
        offset = get_offset(i) if get_offset is not None else (end + align - 1) // align * align
        if offset < end:
            raise _kernel_args_error('Parameter #%d (0-based) of kernel %s overlaps the one before' % (i, name))
        if offset > end:
            fmt.append('%dx' % (offset - end))
        fmt.append(char)
        end = offset + size
    return struct.Struct(''.join(fmt))


def _pack_error(func, fields, values, error):
    """A TypeError naming the first value struct refused."""
    for i, (field, value) in enumerate(zip(fields, values)):
        try:
            struct.pack('=' + field[0], value)
        except struct.error as e:
            return TypeError('invalid value on parameter #%d (0-based) of kernel %s: %s (%s) for a %s parameter: %s'
                             % (i, func.get_name(), _short_repr(value), type(value).__name__, field[4], e))
    return TypeError('kernel %s: %s' % (func.get_name(), error))


def _short_repr(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + '...'


class ArgumentHandler:
    """PyCUDA's ArgumentHandler: a numpy array (or any buffer) that a plain
    call (``func(..., block=...)``) passes as device memory, allocated in the
    kernel's context on first use and kept by the handler."""

    __module__ = OVERRIDE_MODULE

    _writable = False

    def __init__(self, array):
        _host(array, 'array', self._writable)  # checked now: contiguous (and writable for Out)
        self.array = array
        self.dev_alloc = None

    def get_device_alloc(self, context=None):
        """The device memory standing for the array."""
        if self.dev_alloc is None:
            _, _, nbytes = _host(self.array, 'array', self._writable)
            self.dev_alloc = Buffer.new(context, max(nbytes, 1))
        return self.dev_alloc

    def _device_address(self):
        return _pointer(self.get_device_alloc(), 0)

    def pre_call(self, stream):
        pass

    def post_call(self, stream):
        pass


class In(ArgumentHandler):
    """Copies the array to the device before the launch."""

    __module__ = OVERRIDE_MODULE

    def pre_call(self, stream):
        if stream is None:
            memcpy_htod(self.get_device_alloc(), self.array)
        else:
            memcpy_htod_async(self.get_device_alloc(), self.array, stream)


class Out(ArgumentHandler):
    """Copies the device memory into the array after the launch."""

    __module__ = OVERRIDE_MODULE

    _writable = True

    def post_call(self, stream):
        if stream is None:
            memcpy_dtoh(self.array, self.get_device_alloc())
        else:
            memcpy_dtoh_async(self.array, self.get_device_alloc(), stream)


class InOut(In, Out):
    """Copies the array to the device before the launch and back after it."""

    __module__ = OVERRIDE_MODULE


# ------------------------------------------------------------ KernelArgs

# Introspection gives KernelArgs.add_int8() ... set_uint64() a double: the
# C twins gcuda_kernel_args_*_number take their place there, so that a
# JavaScript number the type cannot hold exactly (3.7, NaN, 2**31 for an
# int32, beyond 2**53 for a 64-bit integer) is an error rather than
# truncated or wrapped by the binding. A Python int is exact at any size, so
# here the setters take integers as every integer parameter of GCuda's does
# (operator.index(): a float is a TypeError; out of the type's range an
# OverflowError, with PyGObject's words), and a 64-bit value beyond 2**53
# goes through set_pointer(), which replaces any 64-bit integer argument
# with its exact bits.

_INTEGER_RANGES = {
    'int8': (-2 ** 7, 2 ** 7 - 1), 'uint8': (0, 2 ** 8 - 1),
    'int16': (-2 ** 15, 2 ** 15 - 1), 'uint16': (0, 2 ** 16 - 1),
    'int32': (-2 ** 31, 2 ** 31 - 1), 'uint32': (0, 2 ** 32 - 1),
    'int64': (-2 ** 63, 2 ** 63 - 1), 'uint64': (0, 2 ** 64 - 1),
}
_DOUBLE_EXACT = 2 ** 53
_UINT64_MASK = 2 ** 64 - 1


def _kernel_args_setters(name):
    low, high = _INTEGER_RANGES[name]
    add_number = getattr(GCuda.KernelArgs, 'add_' + name)
    set_number = getattr(GCuda.KernelArgs, 'set_' + name)
    set_pointer = GCuda.KernelArgs.set_pointer

    def add(self, value):
        value = _exact_integer(value, low, high)
        if -_DOUBLE_EXACT <= value <= _DOUBLE_EXACT:
            return add_number(self, value)
        index = add_number(self, 0)
        set_pointer(self, index, value & _UINT64_MASK)
        return index

    def set_(self, index, value):
        value = _exact_integer(value, low, high)
        if -_DOUBLE_EXACT <= value <= _DOUBLE_EXACT:
            return set_number(self, index, value)
        return set_pointer(self, index, value & _UINT64_MASK)

    add.__name__ = add.__qualname__ = 'add_' + name
    add.__doc__ = 'Appends a %s argument (a Python integer, exact); returns its index.' % name
    set_.__name__ = set_.__qualname__ = 'set_' + name
    set_.__doc__ = 'Replaces argument @index with a %s (a Python integer, exact).' % name
    return _raising(add), _raising(set_)


class KernelArgs(GCuda.KernelArgs):
    """The arguments of a launch (GCuda.KernelArgs), whose integer setters
    take Python integers exactly (see above)."""

    __module__ = OVERRIDE_MODULE


for _name in _INTEGER_RANGES:
    _add, _set = _kernel_args_setters(_name)
    setattr(KernelArgs, _add.__name__, _add)
    setattr(KernelArgs, _set.__name__, _set)
del _name, _add, _set


class _CallPlan:
    """How a plain call packs arguments of given types: the fields, a
    converter per argument (None: struct packs it as it is) taking
    (argument, index, stream), the packer; fixed: the types alone decide
    all of it (the plan and its launcher are kept by types); handlers: an
    argument is an In/Out/InOut."""

    __slots__ = ('fields', 'convs', 'packer', 'fixed', 'handlers', 'launcher')


def _tobytes(v, i, stream):
    return v.tobytes()


def _managed_address(v, i, stream):
    return v.__array_interface__['data'][0]


def _array_bytes(v, i, stream):
    return _numpy().ascontiguousarray(v).tobytes()


def _buffer_bytes(v, i, stream):
    return bytes(memoryview(v))



def _address_field(a):
    return ('Q', 8, 8, 'pointer', type(a).__name__, None)


def _call_field(a, i):
    """(field, converter, fixed by the type) of argument #@i of a plain call."""
    np = _numpy()
    if isinstance(a, np.generic):
        dtype = a.dtype
        if dtype.kind == 'V':
            return _dtype_field(dtype), _tobytes, False
        if dtype.kind == 'c':
            return _dtype_field(dtype), _tobytes, True
        if dtype.kind in 'biuf':
            field = _dtype_field(dtype)
            return field, None, True
    elif isinstance(a, (GCuda.Buffer, GCuda.HostBuffer, ArgumentHandler)):
        return _address_field(a), _pointer, True
    elif isinstance(a, np.ndarray):
        if get_buffer(a) is not None:  # managed memory: its address, as PyCUDA
            return ('Q', 8, 8, 'pointer', 'managed array', None), _managed_address, False
        field = ('%ds' % a.nbytes, a.nbytes, _c_alignment(a.dtype), 'blob', 'array of %s' % a.dtype, None)
        return field, _array_bytes, False
    elif isinstance(a, (bool, int, float, complex, str)):
        # PyCUDA's rule: the C type of a Python number is unknown
        raise TypeError('invalid type on parameter #%d (0-based): %s (a Python %s has no C type: pass a numpy '
                        'scalar such as np.int32(n), np.float32(x), or np.intp(address) for a device address)'
                        % (i, type(a).__name__, type(a).__name__))
    elif getattr(a, 'gpudata', None) is not None:
        return _address_field(a), _gpudata_pointer, True
    elif callable(getattr(a, 'get_pointer', None)):
        return _address_field(a), _holder_pointer, True
    elif getattr(a, '__cuda_array_interface__', None) is not None:
        return _address_field(a), _cai_pointer, True
    elif _cuda_dlpack(a):
        return _address_field(a), _dlpack_pointer, True
    else:
        try:
            size = memoryview(a).nbytes
        except TypeError:
            pass
        else:
            field = ('%ds' % size, size, _guess_alignment(size), 'blob', '%d bytes' % size, None)
            return field, _buffer_bytes, False
    raise TypeError('invalid type on parameter #%d (0-based): %s (GCuda passes numpy scalars, numpy '
                    'structs, GCuda buffers, In/Out/InOut, device arrays (gpudata, get_pointer(), '
                    '__cuda_array_interface__) and bytes)' % (i, type(a).__name__))


def _call_plan(func, args):
    plan = _CallPlan()
    plan.fields, plan.convs, plan.fixed, plan.handlers, plan.launcher = [], [], True, False, None
    pointer = None
    for i, a in enumerate(args):
        field, conv, fixed = _call_field(a, i)
        if conv is _pointer:
            # buffers are checked for the kernel's context
            pointer = pointer or _pointer_for(_kernel_context(func))
            conv = pointer
        plan.fields.append(field)
        plan.convs.append(conv)
        plan.fixed = plan.fixed and fixed
        plan.handlers = plan.handlers or isinstance(a, ArgumentHandler)
    plan.packer = _param_layout(func, plan.fields)
    if not any(plan.convs):
        plan.convs = None
    return plan
