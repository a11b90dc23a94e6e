# GCuda's PyGObject override: PyCUDA's names and habits on top of the
# introspected API, and GErrors raised as PyCUDA-style exception classes.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import ctypes
import functools
import math
import numbers
import operator
import os
import re
import struct
import sys
import tempfile
import threading

from gi import _gi
from gi.repository import GLib

from ..importer import modules
from ..overrides import override

from gcuda._override import aio, context, errors, memory, pools
from gcuda._override.aio import Event, Stream
from gcuda._override.buffers import Buffer, HostBuffer
from gcuda._override.context import Context, Device
from gcuda._override.errors import _library_error, _raising
from gcuda._override.memory import (_device, get_buffer, memcpy_dtoh, memcpy_dtoh_async, memcpy_htod,
                                    memcpy_htod_async)
from gcuda._override.native import _gobject_pointer
from gcuda._override.pools import HostMemoryPool, MemoryPool
from gcuda._override.views import _as_gbytes, _host, _numpy, _uint64

GCuda = modules['GCuda']._introspection_module

# The public names of the override's modules, which PyGObject copies from
# __all__ onto the namespace: GCuda.X.
__all__ = []
for _module in (errors, context, aio, memory, pools):
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
    __all__ += _module.__all__
del _module, _name


# ---------------------------------------------------------------- kernels
#
# PyCUDA's calling conventions. Every launch packs the kernel's parameters
# into one buffer laid out as the kernel expects (each parameter at its
# natural alignment; count and sizes checked against cuFuncGetParamInfo
# first, so a mismatch is GCuda.Error.KERNEL_ARGUMENTS naming the parameter)
# and makes ONE call into C, gcuda_function_launch_packed().
#
# prepare() generates a launcher for its signature. It calls launch_packed
# through the _gcuda_launch extension (built with GCuda), else through ctypes
# when ctypes can reach the libgcuda that GI loaded: either costs a fraction
# of a PyGObject call. It passes no GError location
# (NULL), so nothing is shared between threads, and a failed launch (which
# queued nothing) is repeated through PyGObject to raise the proper
# exception. GCUDA_PYTHON_FAST_LAUNCH=0 turns the ctypes path off.
#
# Pointer parameters take GCuda.Buffer (its address; a buffer that is no
# view remembers it, and its free() forgets it; views are checked on every
# use, as freeing their parent frees them), GCuda.HostBuffer (its device
# address: DEVICEMAP memory), objects with __cuda_array_interface__ or
# .gpudata, numpy integers and plain ints (raw addresses, as
# `int(buf) + offset`).

_fast_state = []  # [(launch function, pointer type, cache attribute) or None], bound on first use


def _loaded_libgcuda():
    """The libgcuda GI has loaded, never another copy (RTLD_NOLOAD): by its
    soname, else by the path /proc/self/maps shows."""
    mode = getattr(os, 'RTLD_NOLOAD', 0) | getattr(os, 'RTLD_LAZY', 1)
    if not getattr(os, 'RTLD_NOLOAD', 0):
        return None
    try:
        return ctypes.CDLL('libgcuda-1.so.0', mode=mode)
    except OSError:
        pass
    try:
        with open('/proc/self/maps', encoding='utf-8', errors='replace') as maps:
            for line in maps:
                path = line.split(None, 5)[-1].strip()
                if os.path.basename(path).startswith('libgcuda-1.so'):
                    return ctypes.CDLL(path, mode=mode)
    except OSError:
        pass
    return None


def _bind_fast_launch(kind=None):
    """(launch_packed, pointer type, attribute caching pointers): the
    _gcuda_launch extension (built with GCuda when Python's headers were
    there) taking ints, else ctypes on the libgcuda GI loaded taking
    c_void_p; None without either. @kind ('extension' or 'ctypes') asks
    for one of them."""
    if os.environ.get('GCUDA_PYTHON_FAST_LAUNCH', '') == '0' or sys.implementation.name != 'cpython':
        return None
    try:
        _gobject_pointer(GCuda.JitOptions.new())  # the capsule API works
    except (AttributeError, TypeError, ValueError):
        return None
    if kind in (None, 'extension'):
        try:
            import _gcuda_launch
            return _gcuda_launch.launch_packed, int, '_gcuda_pointer', _gcuda_launch.launch
        except ImportError:
            if kind is not None:
                return None
    try:
        lib = _loaded_libgcuda()
        if lib is None:
            return None
        fn = lib.gcuda_function_launch_packed
        # No argtypes (ctypes would call back into Python for each argument):
        # the launchers pass ctypes objects made once (pointers, the size),
        # bytes and ints they have checked (see _FAST_LAUNCH).
        fn.restype = ctypes.c_int
        return fn, ctypes.c_void_p, '_gcuda_cpointer', None
    except (AttributeError, OSError):
        return None


def _fast_binding():
    if not _fast_state:
        _fast_state.append(_bind_fast_launch())
    return _fast_state[0] or (None, ctypes.c_void_p, '_gcuda_cpointer', None)


def _fast_launch():
    """gcuda_function_launch_packed the fast way, or None."""
    return _fast_binding()[0]


def _kernel_args_error(message):
    return _library_error(GCuda.Error.KERNEL_ARGUMENTS, message)


def _dims(value, what):
    """(x, y, z) of a grid or block given as 1 to 3 integers."""
    try:
        dims = tuple(operator.index(v) for v in value)
    except TypeError:
        raise TypeError('%s must be a tuple of 1 to 3 integers, not %r' % (what, value)) from None
    if not 1 <= len(dims) <= 3:
        raise ValueError('%s must have 1 to 3 dimensions, not %d' % (what, len(dims)))
    return dims + (1,) * (3 - len(dims))


def _stream_pointer(stream):
    """A c_void_p of @stream's GObject, remembered on the stream."""
    _, pointer, attr, _ = _fast_binding()
    ptr = getattr(stream, attr, None)
    if ptr is None:
        if not isinstance(stream, GCuda.Stream):
            raise TypeError('stream must be a GCuda.Stream or None, not %s' % type(stream).__name__)
        ptr = pointer(_gobject_pointer(stream))
        setattr(stream, attr, ptr)
    return ptr


def _function_pointer(func):
    _, pointer, attr, _ = _fast_binding()
    ptr = func.__dict__.get(attr)
    if ptr is None:
        ptr = pointer(_gobject_pointer(func))
        setattr(func, attr, ptr)
    return ptr


def _pointer_value(a, i):
    """The device address argument #@i stands for."""
    if isinstance(a, GCuda.Buffer):
        if a.is_freed():
            raise _library_error(GCuda.Error.FREED, 'Argument #%d: the buffer at 0x%x was freed' % (i, a.get_address()))
        address = a.get_address()
        if a.get_parent() is None:
            a._gcuda_address = address
        return address
    if isinstance(a, GCuda.HostBuffer):
        address = a._gcuda_address = a.get_device_address()  # DEVICEMAP memory only
        return address
    if isinstance(a, ArgumentHandler):
        return a._device_address()
    if isinstance(a, (bool, float, complex)):
        raise TypeError('invalid type on parameter #%d (0-based): %s is not an address' % (i, type(a).__name__))
    cai = getattr(a, '__cuda_array_interface__', None)
    if cai is not None:
        return cai['data'][0]
    gpudata = getattr(a, 'gpudata', None)
    if gpudata is not None:
        return _pointer(gpudata, i)
    try:
        return operator.index(a)
    except TypeError:
        raise TypeError('invalid type on parameter #%d (0-based): %s is not an address'
                        % (i, type(a).__name__)) from None


def _pointer(a, i):
    address = getattr(a, '_gcuda_address', None)
    if address is not None:
        return address
    return _pointer_value(a, i)


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
        raise _kernel_args_error('Argument #%d is %d bytes, the parameter %d' % (i, len(data), size))
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
    count = func.get_param_count()
    name = func.get_name()
    if len(fields) != count:
        raise _kernel_args_error('Kernel %s takes %d parameters, %d %ss given' % (name, count, len(fields), what))
    get_offset = getattr(func, 'get_param_offset', None)  # exact offsets where the library has them
    fmt, end = ['='], 0
    for i, field in enumerate(fields):
        char, size, align = field[0], field[1], field[2]
        expected = func.get_param_size(i)
        if size != expected:
            raise _kernel_args_error('Parameter #%d of kernel %s is %d bytes, the %s (%s) %d'
                                     % (i, name, expected, what, field[4], size))
        offset = get_offset(i) if get_offset is not None else (end + align - 1) // align * align
        if offset < end:
            raise _kernel_args_error('Parameter #%d of kernel %s overlaps the one before' % (i, name))
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


_gi_launch_packed = _raising(GCuda.Function.launch_packed)


def _launch_failed(func, grid, block, shared, stream, params):
    """Repeats a launch that failed on the ctypes path (or could not be made
    there) through PyGObject: raises its error, or launches."""
    gx, gy, gz = _dims(grid, 'grid')
    bx, by, bz = _dims(block, 'block')
    _gi_launch_packed(func, gx, gy, gz, bx, by, bz, operator.index(shared), stream, params)


def _launch_packed(func, grid, block, shared, stream, params):
    """One launch with packed @params, the fast way when there is one."""
    fast = _fast_launch()
    if fast is not None:
        try:  # as the generated launchers do (see _FAST_LAUNCH)
            if len(grid) == 3:
                gx, gy, gz = grid
            elif len(grid) == 2:
                (gx, gy), gz = grid, 1
            else:
                gx, gy, gz = _dims(grid, 'grid')
            if len(block) == 3:
                bx, by, bz = block
            else:
                bx, by, bz = _dims(block, 'block')
            sptr = None if stream is None else _stream_pointer(stream)
            if not (gx | gy | gz | bx | by | bz | shared) >> 32 and \
                    fast(_function_pointer(func), gx, gy, gz, bx, by, bz, shared, sptr,
                         params, ctypes.c_size_t(len(params)), None):
                return
        except (TypeError, ctypes.ArgumentError):
            pass  # the checked way below says what is wrong
    _launch_failed(func, grid, block, shared, stream, params)


_LAUNCHER_TEMPLATE = '''
def {name}(grid, block, {stream_arg}*args, shared_size=0):
    try:
        {unpack}
    except ValueError:
        raise _count_error(len(args)) from None
{convert}
    try:
        params = _pack({values})
    except _struct_error as e:
        raise _pack_error(_owner, _fields, ({values}), e) from None
{launch}
'''

_UNPACK_DIMS = '''
    if len(grid) == 3:
        gx, gy, gz = grid
    elif len(grid) == 2:
        gx, gy = grid
        gz = 1
    else:
        gx, gy, gz = _dims(grid, 'grid')
    if len(block) == 3:
        bx, by, bz = block
    else:
        bx, by, bz = _dims(block, 'block')
'''

# The extension takes grid and block as given and checks them itself: any
# value it refuses (numpy integers, a wrong shape) takes the checked way.
_EXT_LAUNCH = '''
{stream_ptr}
    try:
        ok = _launch(_fptr, grid, block, shared_size, sptr, params)
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        _launch_failed(_owner, grid, block, shared_size, {stream}, params)
'''

# Without argtypes, ctypes passes a float as a double, a str as a pointer
# and an int as its low 32 bits: only ints in guint range go the fast way
# (the | refuses floats, strings and None; numpy integers pass it and are
# refused by ctypes).
_FAST_LAUNCH = _UNPACK_DIMS + '''
{stream_ptr}
    try:
        ok = not (gx | gy | gz | bx | by | bz | shared_size) >> 32 and \\
            _fast(_fptr, gx, gy, gz, bx, by, bz, shared_size, sptr, params, _psize, None)
    except (TypeError, _ArgumentError):
        ok = False
    if not ok:
        _launch_failed(_owner, (gx, gy, gz), (bx, by, bz), shared_size, {stream}, params)
'''

_STREAM_POINTER = '''
    if stream is None:
        sptr = None
    else:
        sptr = getattr(stream, _attr, None)
        if sptr is None:
            sptr = _stream_pointer(stream)
'''

_GI_LAUNCH = _UNPACK_DIMS + '''
    _launch_failed(_owner, (gx, gy, gz), (bx, by, bz), shared_size, {stream}, params)
'''


def _make_launchers(func, fields, packer, fast):
    """prepared_call and prepared_async_call for @fields, as generated code
    (the launch path is the per-call cost: no loops, no lookups it can avoid)."""
    n = len(fields)
    names = ['a%d' % i for i in range(n)]
    namespace = {
        '_owner': func, '_fields': fields, '_pack': packer.pack, '_struct_error': struct.error,
        '_dims': _dims, '_pack_error': _pack_error, '_pointer_value': _pointer_value, '_blob': _blob,
        '_complex': _complex, '_stream_pointer': _stream_pointer, '_launch_failed': _launch_failed,
        '_fast': fast, '_ArgumentError': ctypes.ArgumentError, '_attr': _fast_binding()[2],
        '_launch': _fast_binding()[3],
        '_fptr': _function_pointer(func) if fast is not None else None,
        '_psize': ctypes.c_size_t(packer.size),
        '_count_error': lambda got: _kernel_args_error(
            'Kernel %s was prepared for %d arguments, %d given' % (func.get_name(), n, got)),
    }
    convert = []
    for i, field in enumerate(fields):
        kind = field[3]
        if kind == 'pointer':
            convert.append('    if a{0}.__class__ is not int:\n'
                           '        a{0} = getattr(a{0}, "_gcuda_address", None) or _pointer_value(a{0}, {0})'
                           .format(i))
        elif kind == 'blob':
            namespace['_t%d' % i] = field[5]
            convert.append('    a{0} = _blob(a{0}, {0}, {1}, _t{0})'.format(i, field[1]))
        elif kind == 'complex':
            namespace['_t%d' % i] = field[5]
            convert.append('    a{0} = _complex(a{0}, {0}, _t{0})'.format(i))
    values = ', '.join(names) + (',' if n == 1 else '')
    unpack = '%s = args' % values if n else '() = args'
    launchers = {}
    for name, with_stream in (('prepared_call', False), ('prepared_async_call', True)):
        stream = 'stream' if with_stream else 'None'
        if fast is not None and namespace['_launch'] is not None:
            launch = _EXT_LAUNCH.format(stream=stream,
                                        stream_ptr=_STREAM_POINTER if with_stream else '    sptr = None')
        elif fast is not None:
            launch = _FAST_LAUNCH.format(stream=stream,
                                         stream_ptr=_STREAM_POINTER if with_stream else '    sptr = None')
        else:
            launch = _GI_LAUNCH.format(stream=stream)
        source = _LAUNCHER_TEMPLATE.format(name=name, stream_arg='stream, ' if with_stream else '', n=n,
                                           unpack=unpack, convert='\n'.join(convert) or '    pass',
                                           values=values, launch=launch)
        exec(compile(source, '<GCuda %s launcher of %s>' % (name, func.get_name()), 'exec'), namespace)
        launchers[name] = namespace[name]
    return launchers


class ArgumentHandler:
    """PyCUDA's ArgumentHandler: a numpy array (or any buffer) that a plain
    call (``func(..., block=...)``) passes as device memory, allocated in the
    kernel's context on first use and kept by the handler."""

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

    def pre_call(self, stream):
        if stream is None:
            memcpy_htod(self.get_device_alloc(), self.array)
        else:
            memcpy_htod_async(self.get_device_alloc(), self.array, stream)


class Out(ArgumentHandler):
    """Copies the device memory into the array after the launch."""

    _writable = True

    def post_call(self, stream):
        if stream is None:
            memcpy_dtoh(self.array, self.get_device_alloc())
        else:
            memcpy_dtoh_async(self.array, self.get_device_alloc(), stream)


class InOut(In, Out):
    """Copies the array to the device before the launch and back after it."""


class _CallPlan:
    __slots__ = ('fields', 'convs', 'packer', 'fixed', 'handlers')


def _call_field(a, i):
    """(field, converter, fixed by the type) of argument #@i of a plain call."""
    np = _numpy()
    if isinstance(a, np.generic):
        dtype = a.dtype
        if dtype.kind == 'V':
            return _dtype_field(dtype), (lambda v, i: v.tobytes()), False
        if dtype.kind == 'c':
            return _dtype_field(dtype), (lambda v, i: v.tobytes()), True
        if dtype.kind in 'biuf':
            field = _dtype_field(dtype)
            return field, None, True
    elif isinstance(a, (GCuda.Buffer, GCuda.HostBuffer, ArgumentHandler)):
        return ('Q', 8, 8, 'pointer', type(a).__name__, None), _pointer, True
    elif isinstance(a, np.ndarray):
        if get_buffer(a) is not None:  # managed memory: its address, as PyCUDA
            return ('Q', 8, 8, 'pointer', 'managed array', None), \
                (lambda v, i: v.__array_interface__['data'][0]), False
        field = ('%ds' % a.nbytes, a.nbytes, _c_alignment(a.dtype), 'blob', 'array of %s' % a.dtype, None)
        return field, (lambda v, i: np.ascontiguousarray(v).tobytes()), False
    elif isinstance(a, (bool, int, float, complex, str)):
        pass
    elif getattr(a, '__cuda_array_interface__', None) is not None or getattr(a, 'gpudata', None) is not None:
        return ('Q', 8, 8, 'pointer', type(a).__name__, None), _pointer, True
    else:
        try:
            size = memoryview(a).nbytes
        except TypeError:
            pass
        else:
            field = ('%ds' % size, size, _guess_alignment(size), 'blob', '%d bytes' % size, None)
            return field, (lambda v, i: bytes(memoryview(v))), False
    raise TypeError('invalid type on parameter #%d (0-based): %s (GCuda passes numpy scalars, numpy '
                    'structs, GCuda buffers, In/Out/InOut and device arrays)' % (i, type(a).__name__))


def _call_plan(func, args):
    plan = _CallPlan()
    plan.fields, plan.convs, plan.fixed, plan.handlers = [], [], True, False
    for i, a in enumerate(args):
        field, conv, fixed = _call_field(a, i)
        plan.fields.append(field)
        plan.convs.append(conv)
        plan.fixed = plan.fixed and fixed
        plan.handlers = plan.handlers or isinstance(a, ArgumentHandler)
    plan.packer = _param_layout(func, plan.fields)
    if not any(plan.convs):
        plan.convs = None
    return plan


class Function(GCuda.Function):
    """A kernel (PyCUDA's ``Function``): ``func(*args, block=(x, y, z),
    grid=(x, y[, z]), stream=None, shared=0, time_kernel=False)`` launches
    it; ``func.prepare("PPi")`` then ``func.prepared_call(grid, block, *args)``
    launches with less work per call. Driver attributes read as
    ``func.num_regs``, ``func.max_threads_per_block`` … (lower-case
    GCuda.FunctionAttribute names)."""

    def __repr__(self):
        return '<GCuda.Function %s>' % self.get_name()

    def __getattr__(self, name):
        if not name.startswith('_'):
            attr = getattr(GCuda.FunctionAttribute, name.upper(), None)
            if isinstance(attr, GCuda.FunctionAttribute):
                return self.get_attribute(attr)
        raise AttributeError('%r object has no attribute %r' % (type(self).__name__, name))

    def _context(self):
        ctx = self.__dict__.get('_gcuda_context')
        if ctx is None:
            ctx = self._gcuda_context = self.get_module().get_context()
        return ctx

    def __call__(self, *args, block=None, grid=(1, 1), stream=None, shared=0, texrefs=None,
                 time_kernel=False):
        """Launches the kernel with @args: numpy scalars (np.int32(n) …),
        numpy structs (np.void), GCuda.Buffer / HostBuffer, objects with
        __cuda_array_interface__, GCuda.In/Out/InOut(array), plain bytes;
        a Python int or float is a TypeError (its C type is unknown). With
        handlers, the copies go on @stream and the call returns once the
        kernel and the copies are done. With @time_kernel, returns the
        kernel's time in seconds."""
        if block is None:
            raise ValueError('must specify block size')
        if texrefs:
            raise _library_error(GCuda.Error.NOT_SUPPORTED,
                                 'Texture references do not exist in CUDA 12 and later; pass texture objects')
        plans = self.__dict__.get('_gcuda_call_plans')
        if plans is None:
            plans = self._gcuda_call_plans = {}
        key = tuple(map(type, args))
        plan = plans.get(key)
        if plan is None:
            plan = _call_plan(self, args)
            if plan.fixed:
                plans[key] = plan
        handlers = [a for a in args if isinstance(a, ArgumentHandler)] if plan.handlers else ()
        if handlers:
            ctx = self._context()
            for h in handlers:
                h.get_device_alloc(ctx)
                h.pre_call(stream)
        if plan.convs is None:
            values = args
        else:
            values = [a if conv is None else conv(a, i) for i, (conv, a) in enumerate(zip(plan.convs, args))]
        try:
            params = plan.packer.pack(*values)
        except struct.error as e:
            raise _pack_error(self, plan.fields, values, e) from None
        start = Event(0, self._context()).record(stream) if time_kernel else None
        _launch_packed(self, grid, block, shared, stream, params)
        end = Event(0, self._context()).record(stream) if time_kernel else None
        if handlers:
            for h in handlers:
                h.post_call(stream)
            # The handlers' memory must outlive the kernel and the copies.
            Event(GCuda.EventFlags.DISABLE_TIMING, self._context()).record(stream).synchronize()
        if time_kernel:
            end.synchronize()
            return end.time_since(start) * 1e-3
        return None

    def prepare(self, arg_types, shared=None, texrefs=None):
        """Sets the argument types for prepared_call() and friends (PyCUDA's
        prepare()): a struct-module format string such as "PPi" (P: a
        pointer; also F and D for complex64 and complex128; Ns: a struct of
        N bytes) or a list of numpy dtypes / type characters (a structured
        dtype passes a struct by value, aligned as C aligns it). Checked
        against the kernel's parameters now. Returns self. @shared is old
        PyCUDA's default dynamic shared memory: modern PyCUDA (and GCuda)
        takes shared_size per call, so it is refused rather than ignored."""
        if shared:
            raise TypeError('prepare(shared=...) is gone from PyCUDA: pass shared_size= to prepared_call()')
        if texrefs:
            raise _library_error(GCuda.Error.NOT_SUPPORTED,
                                 'Texture references do not exist in CUDA 12 and later; pass texture objects')
        fields = _prepared_fields(arg_types)
        packer = _param_layout(self, fields, 'prepared type')
        self.__dict__.update(_make_launchers(self, fields, packer, _fast_launch()))
        self.arg_format = packer.format
        return self

    def prepared_call(self, grid, block, *args, shared_size=0):
        """Launches with the prepared argument types (prepare() first)."""
        raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'Call prepare() before prepared_call()')

    def prepared_async_call(self, grid, block, stream, *args, shared_size=0):
        """prepared_call() on @stream (None: the legacy default stream)."""
        raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'Call prepare() before prepared_async_call()')

    def prepared_timed_call(self, grid, block, *args, shared_size=0):
        """prepared_call() between two events; returns a callable that waits
        for the kernel and gives its time in seconds (PyCUDA's semantics)."""
        if 'prepared_async_call' not in self.__dict__:
            raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'Call prepare() before prepared_timed_call()')
        ctx = self._context()
        start = Event(0, ctx).record(None)
        self.prepared_async_call(grid, block, None, *args, shared_size=shared_size)
        end = Event(0, ctx).record(None)

        def get_call_time():
            end.synchronize()
            return end.time_since(start) * 1e-3
        return get_call_time


class Module(GCuda.Module):
    """Loaded device code (PyCUDA's ``Module``; SourceModule() gives one):
    get_function(name), get_global(name) -> (buffer, size)."""

    def __repr__(self):
        return '<GCuda.Module%s>' % (' (%s)' % self.keep_dir if getattr(self, 'keep_dir', None) else '')

    @_raising
    def get_function(self, name):
        """The kernel @name (the same object every time; a name expression
        given to SourceModule(name_expressions=…) finds its lowered name)."""
        lowered = self.__dict__.get('_gcuda_lowered')
        if lowered:
            name = lowered.get(name, name)
        return GCuda.Module.get_function(self, name)

    def get_lowered_name(self, name_expression):
        """The mangled name of a name expression given to SourceModule()."""
        lowered = self.__dict__.get('_gcuda_lowered') or {}
        if name_expression not in lowered:
            raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                                 '%r was not a name expression of this module' % (name_expression,))
        return lowered[name_expression]

    @_raising
    def get_global(self, name):
        """PyCUDA's ``(device_ptr, size_in_bytes)`` of a ``__device__`` or
        ``__constant__`` variable; the pointer is a GCuda.Buffer view of it
        (upload to it with memcpy_htod()). get_global_buffer() gives only
        the buffer."""
        buf = GCuda.Module.get_global(self, name)
        return buf, buf.get_size()

    get_global_buffer = _raising(GCuda.Module.get_global)

    def get_texref(self, name):
        raise _library_error(GCuda.Error.NOT_SUPPORTED,
                             'Texture references do not exist in CUDA 12 and later; use texture objects')

    get_surfref = get_texref


# ---------------------------------------------------------------- loading device code

_JIT_SETTINGS = ('max_registers', 'optimization_level', 'threads_per_block', 'generate_debug_info',
                 'generate_line_info', 'log_verbose')
# PyCUDA options GCuda handles by itself: the logs are module properties, the
# target is the context's device.
_JIT_IGNORED = ('info_log_buffer', 'info_log_buffer_size_bytes', 'error_log_buffer',
                'error_log_buffer_size_bytes', 'target_from_cucontext', 'wall_time')


def _jit_options(options):
    """A GCuda.JitOptions from None, a GCuda.JitOptions, a dict or a list of
    (name, value) pairs; names are JitOptions property names with - or _
    (max_registers, optimization_level, threads_per_block,
    generate_debug_info, generate_line_info, log_verbose; case ignored) or
    gcuda.driver.jit_option members."""
    if options is None or isinstance(options, GCuda.JitOptions):
        return options
    jit = GCuda.JitOptions.new()
    items = options.items() if isinstance(options, dict) else options
    for item in items:
        try:
            name, value = item
        except (TypeError, ValueError):
            raise TypeError('JIT options are (name, value) pairs, not %r' % (item,)) from None
        key = str(getattr(name, 'value_nick', name)).lower().replace('-', '_')
        if key in _JIT_IGNORED:
            continue
        if key not in _JIT_SETTINGS:
            raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'Unknown or unsupported JIT option %r' % (name,))
        pspec = GCuda.JitOptions.find_property(key.replace('_', '-'))
        low, high = getattr(pspec, 'minimum', None), getattr(pspec, 'maximum', None)
        if low is not None and not isinstance(value, bool) and not low <= operator.index(value) <= high:
            # the setter would only warn (a g_return_if_fail) and keep the old value
            raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                                 'JIT option %s must be in %d..%d, not %r' % (key, low, high, value))
        getattr(jit, 'set_' + key)(value)
    return jit


_FATBIN_MAGIC = b'\x50\xed\x55\xba'


def _image_bytes(data):
    """GLib.Bytes of a module image; PTX text gets the NUL the driver needs."""
    if isinstance(data, str):
        return GLib.Bytes.new(data.encode('utf-8') + b'\0')
    image = data if isinstance(data, GLib.Bytes) else _as_gbytes(data)
    raw = image.get_data() or b''
    if raw[-1:] not in (b'', b'\0') and raw[:4] not in (b'\x7fELF', _FATBIN_MAGIC) and \
            raw.lstrip()[:1] in (b'/', b'.'):
        image = GLib.Bytes.new(raw + b'\0')
    return image


def _load_module(load, options, message_handler):
    """Loads with @options as JIT options, telling PyCUDA's message_handler
    (success, info log, error log) how it went."""
    jit = _jit_options(options)
    try:
        module = load(jit)
    except GLib.Error as e:
        if message_handler is not None:
            message_handler(False, '', e.message)
        raise
    if message_handler is not None:
        message_handler(True, module.get_info_log() or '', module.get_error_log() or '')
    return module


@_raising
def module_from_buffer(buffer, options=None, message_handler=None, context=None):
    """Loads a cubin, fatbin or PTX from memory (PyCUDA's
    ``module_from_buffer()``): @buffer is bytes, str (PTX), GLib.Bytes or
    any buffer; @options are JIT options (see GCuda.JitOptions: a
    JitOptions, a dict or (name, value) pairs); @message_handler is called
    with (success, info_log, error_log) before the module is returned or the
    error raised."""
    return _load_module(lambda jit: Module.new_from_data(context, _image_bytes(buffer), jit),
                        options, message_handler)


@_raising
def module_from_file(filename, options=None, message_handler=None, context=None):
    """module_from_buffer() with the contents of @filename."""
    return _load_module(lambda jit: Module.new_from_file(context, os.fspath(filename), jit),
                        options, message_handler)


# ---------------------------------------------------------------- compiling (pycuda.compiler)

# Options SourceModule() and compile() use when given none (PyCUDA's list;
# modify it in place). `GCUDA_DEFAULT_NVRTC_FLAGS` in the environment is
# applied by the library before any options.
DEFAULT_NVCC_FLAGS = []

_TARGETS = {'cubin': GCuda.ProgramKind.CUBIN, 'ptx': GCuda.ProgramKind.PTX}


def _make_compiler(options=None, keep=False, no_extern_c=False, arch=None, code=None, cache_dir=None,
                   include_dirs=(), headers=None, name_expressions=None, target='cubin', context=None):
    """A GCuda.Compiler set up as PyCUDA's compile() arguments say, and the
    directory kept files go to (or None)."""
    compiler = GCuda.Compiler.new(context)
    if options is None:
        options = DEFAULT_NVCC_FLAGS
    if isinstance(options, (str, bytes)):
        raise TypeError('options must be a list of strings, not a string')
    compiler.set_options([os.fspath(o) for o in options])
    compiler.set_include_dirs([os.fspath(d) for d in (include_dirs or ())])
    if arch:
        compiler.set_arch(arch)
    if code:
        compiler.set_code(code)
    compiler.set_no_extern_c(bool(no_extern_c))
    if target not in _TARGETS:
        raise _library_error(GCuda.Error.NOT_SUPPORTED,
                             'Target %r: GCuda compiles to "cubin" or "ptx"' % (target,))
    compiler.set_target(_TARGETS[target])
    if cache_dir is False:
        compiler.set_cache_dir('')
    elif cache_dir is not None and cache_dir is not True:
        compiler.set_cache_dir(os.fspath(cache_dir))
    for name, text in (headers.items() if isinstance(headers, dict) else headers or ()):
        compiler.add_header(name, text)
    for expression in name_expressions or ():
        compiler.add_name_expression(expression)
    keep_dir = None
    if keep:
        keep_dir = os.fspath(keep) if isinstance(keep, (str, os.PathLike)) else \
            tempfile.mkdtemp(prefix='gcuda-compile-')
        compiler.set_keep(keep_dir)
        print('*** compiler output in %s' % keep_dir)
    return compiler, keep_dir


@_raising
def compile_program(source, nvcc='nvcc', options=None, keep=False, no_extern_c=False, arch=None, code=None,
                    cache_dir=None, include_dirs=(), target='cubin', headers=None, name_expressions=None,
                    context=None):
    """PyCUDA's compile() arguments (@nvcc is ignored: NVRTC compiles in
    process), giving the GCuda.Program (image, kind, log, lowered names,
    is_from_cache()). @headers maps include names to text; @name_expressions
    are template instantiations whose mangled names the program gives."""
    compiler, keep_dir = _make_compiler(options, keep, no_extern_c, arch, code, cache_dir, include_dirs,
                                        headers, name_expressions, target, context)
    program = compiler.compile(source)
    program.keep_dir = keep_dir
    return program


@_raising
def SourceModule(source, nvcc='nvcc', options=None, keep=False, no_extern_c=False, arch=None,  # noqa: N802
                 code=None, cache_dir=None, include_dirs=[], headers=None, name_expressions=None,
                 context=None):
    """Compiles CUDA C++ @source with NVRTC and loads it (PyCUDA's
    ``SourceModule``; @nvcc is ignored). @arch defaults to the context
    device's own; @cache_dir=False disables the compile cache; @keep=True
    keeps the source, log and output in a directory it prints (and puts in
    ``module.keep_dir``). Also @headers ({name: text}) and
    @name_expressions (``get_function("f<int>")`` then finds the
    instantiation). Returns a GCuda.Module."""
    program = compile_program(source, options=options, keep=keep, no_extern_c=no_extern_c, arch=arch,
                              code=code, cache_dir=cache_dir, include_dirs=include_dirs,
                              headers=headers, name_expressions=name_expressions, context=context)
    module = Module.new_from_program(context, program)
    module._gcuda_lowered = {e: program.get_lowered_name(e) for e in name_expressions or ()}
    module.program = program
    module.keep_dir = program.keep_dir
    return module


class DynamicModule:
    """PyCUDA's ``DynamicModule``: several sources and binaries linked by the
    driver (GCuda.Linker) into one module, e.g. for dynamic parallelism::

        mod = DynamicModule().add_source(src).add_stdlib('cudadevrt').link()
        mod.get_function('parent')

    Sources are compiled as relocatable device code; nvcc-only options
    (-l…, -rdc=true) are dropped. @link_options are JIT options."""

    def __init__(self, nvcc='nvcc', link_options=None, keep=False, no_extern_c=False, arch=None, code=None,
                 cache_dir=None, include_dirs=[], message_handler=None, libdir=None, cuda_libdir=None,
                 context=None):
        self._settings = dict(keep=keep, no_extern_c=no_extern_c, arch=arch, code=code, cache_dir=cache_dir,
                              include_dirs=list(include_dirs), context=context)
        self.message_handler = message_handler
        self.cuda_libdir = cuda_libdir
        self.linker = _raising(GCuda.Linker.new)(context, _jit_options(link_options))
        self.module = None

    def _linker(self):
        if self.linker is None:
            raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'This DynamicModule is already linked')
        return self.linker

    @_raising
    def add_source(self, source, nvcc_options=None, name='kernel.ptx'):
        options = DEFAULT_NVCC_FLAGS if nvcc_options is None else nvcc_options
        options = [o for o in options
                   if not o.startswith('-l') and o not in ('-rdc=true', '--relocatable-device-code=true')]
        compiler, _ = _make_compiler(options=options, target='ptx', **self._settings)
        self._linker().add_source(compiler, source)
        return self

    @_raising
    def add_data(self, data, input_type, name='unknown'):
        self._linker().add_data(input_type, _image_bytes(data), name)
        return self

    @_raising
    def add_file(self, filename, input_type=GCuda.LinkInputType.AUTO):
        self._linker().add_file(input_type, os.fspath(filename))
        return self

    @_raising
    def add_stdlib(self, libname):
        """Adds lib@libname.a of the toolkit (``cudadevrt``)."""
        if self.cuda_libdir is not None:
            return self.add_file(os.path.join(self.cuda_libdir, 'lib%s.a' % libname),
                                 GCuda.LinkInputType.LIBRARY)
        self._linker().add_library(libname)
        return self

    @_raising
    def link(self):
        linker = self._linker()
        try:
            self.module = linker.complete()
        except GLib.Error as e:
            if self.message_handler is not None:
                self.message_handler(False, linker.get_info_log() or '', linker.get_error_log() or e.message)
            raise
        if self.message_handler is not None:
            self.message_handler(True, linker.get_info_log() or '', linker.get_error_log() or '')
        self.linker = None
        return self

    def _module(self):
        if self.module is None:
            raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'Call link() first')
        return self.module

    def get_function(self, name):
        return self._module().get_function(name)

    def get_global(self, name):
        return self._module().get_global(name)

    def get_texref(self, name):
        return self._module().get_texref(name)


__all__ += ['ArgumentHandler', 'In', 'Out', 'InOut', 'module_from_buffer', 'module_from_file',
            'DEFAULT_NVCC_FLAGS', 'compile_program', 'SourceModule', 'DynamicModule']

_OVERRIDES = {'Device': Device, 'Context': Context, 'Stream': Stream, 'Event': Event,
              'MemoryPool': MemoryPool, 'HostMemoryPool': HostMemoryPool,
              'Buffer': Buffer, 'HostBuffer': HostBuffer, 'Module': Module, 'Function': Function}


def _wrap_class(info, cls):
    """Replaces each throwing method of @cls's introspected base with a
    wrapper that converts GErrors; static functions stay static."""
    base = getattr(GCuda, info.get_name())
    for method in info.get_methods():
        name = method.get_name()
        if not method.can_throw_gerror() or name in cls.__dict__:
            continue
        fn = getattr(base, name)
        if method.is_method():
            setattr(cls, name, _raising(fn))
        else:
            setattr(cls, name, staticmethod(_raising(fn)))


def _wrap_namespace():
    repo = _gi.Repository.get_default()
    for info in repo.get_infos('GCuda'):
        name = info.get_name()
        if isinstance(info, _gi.ObjectInfo):
            cls = _OVERRIDES.get(name)
            if cls is None:
                cls = type(name, (getattr(GCuda, name),), {'__module__': __name__})
            _wrap_class(info, cls)
            globals()[name] = override(cls)
            __all__.append(name)
        elif isinstance(info, _gi.FunctionInfo) and info.can_throw_gerror():
            globals()[name] = _raising(getattr(GCuda, name))
            __all__.append(name)


_wrap_namespace()


# --- device tools (issue 6) ---

_OCCUPANCY_LIMIT_NAMES = {GCuda.OccupancyLimit.DEVICE: 'device', GCuda.OccupancyLimit.WARPS: 'warps',
                          GCuda.OccupancyLimit.REGISTERS: 'regs', GCuda.OccupancyLimit.SHARED_MEMORY: 'smem'}


def _devdata_new(cls, dev=None, **props):
    # DeviceData(dev=None) reads a device, as in PyCUDA; DeviceData(max_threads=...,
    # ...) describes a device that is not there (the GObject is made by __init__).
    if dev is None and props:
        return GCuda.DeviceData.__new__(cls)
    return cls.new(dev)


def _devdata_init(self, dev=None, **props):
    if dev is None and props:
        GCuda.DeviceData.__init__(self, **props)


DeviceData.__new__ = _devdata_new
DeviceData.__init__ = _devdata_init
for _name in ('max_threads', 'warp_size', 'warps_per_mp', 'thread_blocks_per_mp', 'registers',
              'shared_memory', 'smem_granularity', 'smem_alloc_granularity'):
    setattr(DeviceData, _name, property(lambda self, _n=_name: getattr(self.props, _n)))
_align_bytes = DeviceData.align_bytes
_align = DeviceData.align
_align_words = DeviceData.align_words
DeviceData.align_bytes = lambda self, word_size=4: _align_bytes(self, word_size)
DeviceData.align = lambda self, bytes, word_size=4: _align(self, bytes, word_size)  # noqa: A002
DeviceData.align_words = lambda self, word_size: _align_words(self, word_size)


def _occupancy_new(cls, devdata, threads, shared_mem=0, registers=0):
    return cls.new(devdata, threads, shared_mem, registers)


Occupancy.__new__ = _occupancy_new
Occupancy.__init__ = lambda self, *args, **kwargs: None
Occupancy.tb_per_mp = property(lambda self: self.props.tb_per_mp)
Occupancy.warps_per_mp = property(lambda self: self.props.warps_per_mp)
Occupancy.occupancy = property(lambda self: self.props.occupancy)
# PyCUDA's strings ('device', 'warps', 'regs', 'smem'); the enum is props.limited_by
Occupancy.limited_by = property(lambda self: _OCCUPANCY_LIMIT_NAMES[self.props.limited_by])
Occupancy.tb_per_mp_limits = property(lambda self: [
    (self.get_limit(limit), name) for limit, name in _OCCUPANCY_LIMIT_NAMES.items()
    if self.get_limit(limit) != GLib.MAXINT])
OccupancyRecord = Occupancy


class _ContextCaches:
    """Every context_dependent_memoize cache, for clear_context_caches()."""
    lock = threading.Lock()
    caches = []


def _memoize_context():
    # the context GCuda's calls would use: the current one if GCuda knows
    # it, else the default context
    ctx = Context.get_current()
    return ctx if ctx is not None else Context.get_default()


def context_dependent_memoize(func):
    """Caches @func's result per context and arguments (PyCUDA's
    pycuda.tools.context_dependent_memoize): for kernels built on first
    use. The context is the current one (``with ctx:``) if GCuda knows it,
    else the default context; @func should build its objects in that
    context. The arguments must be hashable. Results for a destroyed
    context are dropped."""
    cache = {}  # context handle -> (context, {arguments: result})
    with _ContextCaches.lock:
        _ContextCaches.caches.append(cache)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        ctx = _memoize_context()
        key = (args, frozenset(kwargs.items())) if kwargs else args
        with _ContextCaches.lock:
            entry = cache.get(ctx.get_handle())
            # a handle of a destroyed context may come back for a new one
            if entry is not None and not entry[0].is_destroyed():
                try:
                    return entry[1][key]
                except KeyError:
                    pass
        result = func(*args, **kwargs)
        with _ContextCaches.lock:
            entry = cache.get(ctx.get_handle())
            if entry is None or entry[0].is_destroyed():
                entry = cache[ctx.get_handle()] = (ctx, {})
            entry[1][key] = result
        return result

    wrapper.clear_cache = cache.clear
    return wrapper


def clear_context_caches():
    """Empties every context_dependent_memoize cache, which also drops the
    references they hold to contexts (PyCUDA's clear_context_caches)."""
    with _ContextCaches.lock:
        for cache in _ContextCaches.caches:
            cache.clear()


def mark_cuda_test(func):
    """PyCUDA's mark_cuda_test for users' pytest tests: marks @func with
    pytest's 'cuda' mark (when pytest is there), makes sure the default
    context exists (a GCuda error when there is no device), and waits for
    the context's work after @func."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        ctx = Context.get_default()
        try:
            return func(*args, **kwargs)
        finally:
            if not ctx.is_destroyed():
                ctx.synchronize()

    try:
        import pytest
    except ImportError:
        return wrapper
    return pytest.mark.cuda(wrapper)


def start_profiler(context=None):
    """PyCUDA's pycuda.driver.start_profiler (cuProfilerStart)."""
    profiler_start(context)


def stop_profiler(context=None):
    """PyCUDA's pycuda.driver.stop_profiler (cuProfilerStop)."""
    profiler_stop(context)


__all__ += ['OccupancyRecord', 'context_dependent_memoize', 'clear_context_caches', 'mark_cuda_test',
            'start_profiler', 'stop_profiler']


# --- arrays and textures (issue 6) ---

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
    """Copies all of @src (host memory) into the 1D GCuda.Array @ary at
    byte @index and returns when done."""
    host, address, nbytes = _host(src, 'src', False)
    _array(ary, 'ary').upload_range_from_address(_uint64(index, 'index'), address, nbytes)


@_raising
def memcpy_atoh(dest, ary, index):
    """Fills all of @dest (writable, contiguous host memory) from the 1D
    GCuda.Array @ary at byte @index and returns when done."""
    host, address, nbytes = _host(dest, 'dest', True)
    _array(ary, 'ary').download_range_to_address(_uint64(index, 'index'), address, nbytes)


@_raising
def memcpy_dtoa(ary, index, src, len):
    """Copies @len bytes from the start of @src (a GCuda.Buffer) into the
    1D GCuda.Array @ary at byte @index."""
    _array(ary, 'ary').copy_range_from_buffer(_uint64(index, 'index'), _device(src, 'src'), 0,
                                              _uint64(len, 'len'))


@_raising
def memcpy_atod(dest, ary, index, len):
    """Copies @len bytes of the 1D GCuda.Array @ary from byte @index to the
    start of @dest (a GCuda.Buffer)."""
    _array(ary, 'ary').copy_range_to_buffer(_uint64(index, 'index'), _device(dest, 'dest'), 0,
                                            _uint64(len, 'len'))


@_raising
def memcpy_atoa(dest, dest_index, src, src_index, len):
    """Copies @len bytes from the 1D GCuda.Array @src at byte @src_index
    into the 1D GCuda.Array @dest at byte @dest_index (equal element
    sizes)."""
    _array(dest, 'dest').copy_range_from_array(_uint64(dest_index, 'dest_index'), _array(src, 'src'),
                                               _uint64(src_index, 'src_index'), _uint64(len, 'len'))


__all__ += ['memcpy_htoa', 'memcpy_atoh', 'memcpy_dtoa', 'memcpy_atod', 'memcpy_atoa']

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
    array.upload_from_address(ary.__array_interface__['data'][0], ary.nbytes)
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
    buffer = _device(buffer, 'buffer')
    array = Array.new(context if context is not None else buffer.get_context(), desc)
    array.copy_from_buffer(buffer, 0)
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


def _array_to_numpy(self, shape=None, dtype=None, order='C'):
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
    self.download_to_address(result.__array_interface__['data'][0], result.nbytes)
    if order == 'F':
        result = result.T
    if shape is not None:
        result = result.reshape(shape, order=order)
    return result


Array.to_numpy = _raising(_array_to_numpy)
GCuda.ArrayDescriptor.validate = _raising(GCuda.ArrayDescriptor.validate)
Array.get_descriptor_3d = Array.get_descriptor  # PyCUDA's name


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
    texture = Texture.new_from_array(array, desc)
    return texture


gpuarray_to_array = buffer_to_array

__all__ += ['dtype_to_array_format', 'matrix_to_array', 'np_to_array', 'buffer_to_array',
            'gpuarray_to_array', 'make_multichannel_2d_array', 'make_texture']
