# SPDX-License-Identifier: LGPL-2.1-or-later
"""Kernel launches with PyCUDA's calling conventions (GCuda.Function's
call, prepare() and prepared_call()) by the three launch paths: the
_gcuda_launch extension, ctypes and PyGObject."""

import ctypes
import operator
import os
import struct
import sys

from gi.module import get_introspection_module

from . import OVERRIDE_MODULE
from .aio import Event
from .errors import _library_error, _raising
from .native import _gobject_pointer
from .params import (ArgumentHandler, _blob, _call_plan, _complex, _kernel_args_error, _pack_error, _param_layout,
                     _address_key, _kernel_context, _pointer_value, _prepared_fields)

GCuda = get_introspection_module('GCuda')

# Every launch packs the kernel's parameters into one buffer laid out as
# the kernel expects (params.py) and makes ONE call into C,
# gcuda_function_launch_packed().
#
# prepare() generates a launcher for its signature. It calls launch_packed
# through the _gcuda_launch extension (built with GCuda), else through ctypes
# when ctypes can reach the libgcuda that GI loaded: either costs a fraction
# of a PyGObject call. It passes no GError location (NULL), so nothing is
# shared between threads, and a failed launch (which queued nothing) is
# repeated through PyGObject to raise the proper exception.
# GCUDA_PYTHON_FAST_LAUNCH=0 leaves only PyGObject.
#
# A plain call (Function.__call__) does the same through a launcher
# generated for the types of its arguments (_make_call_launcher), made the
# first time those types come and kept with the plan: the per-call cost is
# a prepared call's plus a check of each argument's class. Handlers,
# arrays and structs by value, time_kernel take the general way.

__all__ = []


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
    ext = _fast_binding()[3]
    if ext is not None:
        try:  # as the generated launchers do (see _EXT_LAUNCH)
            sptr = None if stream is None else _stream_pointer(stream)
            if ext(_function_pointer(func), grid, block, shared, sptr, params):
                return
        except (TypeError, ValueError, OverflowError):
            pass  # the checked way below says what is wrong
    elif fast is not None:
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
{stream_ptr}
{convert}
    try:
        params = _pack({values})
    except _struct_error as e:
        raise _pack_error(_owner, _fields, ({values}), e) from None
{launch}
'''

# A plain call's launcher for one tuple of argument types (see
# Function.__call__): _MISS when @args are not of those types, else None
# once launched.
_CALL_TEMPLATE = '''
def call(args, grid, block, stream, shared_size):
    if len(args) != {n}:
        return _MISS
    {unpack}
    if {guard}:
        return _MISS
{stream_ptr}
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
    try:
        ok = not (gx | gy | gz | bx | by | bz | shared_size) >> 32 and \\
            _fast(_fptr, gx, gy, gz, bx, by, bz, shared_size, sptr, params, _psize, None)
    except (TypeError, _ArgumentError):
        ok = False
    if not ok:
        _launch_failed(_owner, (gx, gy, gz), (bx, by, bz), shared_size, {stream}, params)
'''

# The stream's pointer first: a stream that is none is refused before an
# argument's producer stream is waited for.
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

# A pointer argument of a GCuda buffer: its cached address (see
# params._pointer_value), else the checked way.
# a buffer's address, remembered under the key of the kernel's context once
# checked for it (params._pointer_for)
_BUFFER_ADDRESS = '    a{0} = getattr(a{0}, {2!r}, None) or _pointer_value(a{0}, {0}, {1}, _akey, _fctx)'


def _launch_code(fast, with_stream):
    """The launch part of a generated launcher."""
    stream = 'stream' if with_stream else 'None'
    if fast is not None and _fast_binding()[3] is not None:
        return _EXT_LAUNCH.format(stream=stream)
    if fast is not None:
        return _FAST_LAUNCH.format(stream=stream)
    return _GI_LAUNCH.format(stream=stream)


def _namespace(func, fields, packer, fast):
    """What the generated launchers of @func see."""
    return {
        '_owner': func, '_fields': fields, '_pack': packer.pack, '_struct_error': struct.error,
        '_dims': _dims, '_pack_error': _pack_error, '_pointer_value': _pointer_value, '_blob': _blob,
        '_complex': _complex, '_stream_pointer': _stream_pointer, '_launch_failed': _launch_failed,
        '_fast': fast, '_ArgumentError': ctypes.ArgumentError, '_attr': _fast_binding()[2],
        '_launch': _fast_binding()[3],
        '_fptr': _function_pointer(func) if fast is not None else None,
        '_psize': ctypes.c_size_t(packer.size), '_MISS': _MISS,
        '_akey': _address_key(_kernel_context(func)), '_fctx': _kernel_context(func),
    }


def _make_launchers(func, fields, packer, fast):
    """prepared_call and prepared_async_call for @fields, as generated code
    (the launch path is the per-call cost: no loops, no lookups it can avoid)."""
    n = len(fields)
    names = ['a%d' % i for i in range(n)]
    namespace = _namespace(func, fields, packer, fast)
    namespace['_count_error'] = lambda got: _kernel_args_error(
        'Kernel %s was prepared for %d arguments, %d given' % (func.get_name(), n, got))
    convert = []
    for i, field in enumerate(fields):
        kind = field[3]
        if kind == 'pointer':
            convert.append('    if a{0}.__class__ is not int:\n    '.format(i) + _BUFFER_ADDRESS.format(i, 'stream', namespace['_akey']))
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
        source = _LAUNCHER_TEMPLATE.format(name=name, stream_arg='stream, ' if with_stream else '', n=n,
                                           unpack=unpack, convert='\n'.join(convert) or '    pass',
                                           stream_ptr=_STREAM_POINTER if with_stream else '    sptr = stream = None',
                                           values=values, launch=_launch_code(fast, with_stream))
        exec(compile(source, '<GCuda %s launcher of %s>' % (name, func.get_name()), 'exec'), namespace)
        launchers[name] = namespace[name]
    return launchers


def _make_call_launcher(func, plan, types):
    """The launcher of plain calls with arguments of @types (a fixed plan
    without handlers): the type check, each argument's conversion, the
    packing and the launch, as generated code."""
    n = len(types)
    names = ['a%d' % i for i in range(n)]
    namespace = _namespace(func, plan.fields, plan.packer, _fast_launch())
    convert = []
    for i, cls in enumerate(types):
        namespace['_c%d' % i] = cls
        conv = plan.convs[i] if plan.convs is not None else None
        if conv is None:
            continue
        if getattr(conv, 'buffer_address_key', None) == namespace['_akey'] and \
                issubclass(cls, (GCuda.Buffer, GCuda.HostBuffer)):
            convert.append(_BUFFER_ADDRESS.format(i, 'stream', namespace['_akey']))
        else:
            namespace['_conv%d' % i] = conv
            convert.append('    a{0} = _conv{0}(a{0}, {0}, stream)'.format(i))
    values = ', '.join(names) + (',' if n == 1 else '')
    source = _CALL_TEMPLATE.format(
        n=n, unpack=('%s = args' % values) if n else 'pass',
        guard=' or '.join('a{0}.__class__ is not _c{0}'.format(i) for i in range(n)) or 'False',
        stream_ptr=_STREAM_POINTER, convert='\n'.join(convert) or '    pass',
        values=values, launch=_launch_code(_fast_launch(), True))
    exec(compile(source, '<GCuda call launcher of %s>' % func.get_name(), 'exec'), namespace)
    return namespace['call']


class _Miss:
    __slots__ = ()

    def __repr__(self):
        return '<no launcher for these arguments>'


_MISS = _Miss()


def _no_launcher(args, grid, block, stream, shared_size):
    return _MISS


class Function(GCuda.Function):
    """A kernel (PyCUDA's ``Function``): ``func(*args, block=(x, y, z),
    grid=(x, y[, z]), stream=None, shared=0, time_kernel=False)`` launches
    it; ``func.prepare("PPi")`` then ``func.prepared_call(grid, block, *args)``
    launches with less work per call. Driver attributes read as
    ``func.num_regs``, ``func.max_threads_per_block`` … (lower-case
    GCuda.FunctionAttribute names)."""

    __module__ = OVERRIDE_MODULE

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

    # A plain call costs a prepared call and a type check: the launcher of
    # the last argument types (a generated function, see
    # _make_call_launcher) is tried first, and says _MISS for other types;
    # then the launchers by types; then the general way (handlers, arrays
    # and structs by value, time_kernel), which makes the launchers.
    _gcuda_call = staticmethod(_no_launcher)

    def __call__(self, *args, block=None, grid=(1, 1), stream=None, shared=0, texrefs=None,
                 time_kernel=False):
        """Launches the kernel with @args: numpy scalars (np.int32(n) …),
        numpy structs (np.void), GCuda.Buffer / HostBuffer, device arrays of
        other libraries (an object with ``gpudata``, as PyCUDA's GPUArray; a
        PointerHolderBase with ``get_pointer()``; ``__cuda_array_interface__``,
        as CuPy, PyTorch and numba arrays, whose producer stream the launch
        waits for), GCuda.In/Out/InOut(array), plain bytes. A device
        address as an integer is ``np.intp(address)`` (``np.intp(buf) + 4``
        as in PyCUDA), passed as is: nothing checks what the kernel does
        with it. A Python int or float is a TypeError (its C type is
        unknown). With handlers, the copies go on @stream and the call
        returns once the kernel and the copies are done. With
        @time_kernel, returns the kernel's time in seconds."""
        if block is not None and not texrefs and not time_kernel and \
                self._gcuda_call(args, grid, block, stream, shared) is not _MISS:
            return None
        return self._call(args, block, grid, stream, shared, texrefs, time_kernel)

    def _call(self, args, block, grid, stream, shared, texrefs, time_kernel):
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
                if not plan.handlers:
                    plan.launcher = _make_call_launcher(self, plan, key)
                plans[key] = plan
        if plan.launcher is not None and not time_kernel:
            self._gcuda_call = plan.launcher  # tried first from now on
            if plan.launcher(args, grid, block, stream, shared) is not _MISS:
                return None
        handlers = [a for a in args if isinstance(a, ArgumentHandler)] if plan.handlers else ()
        if handlers:
            ctx = self._context()
            for h in handlers:
                h.get_device_alloc(ctx)
                h.pre_call(stream)
        if plan.convs is None:
            values = args
        else:
            values = [a if conv is None else conv(a, i, stream) for i, (conv, a) in enumerate(zip(plan.convs, args))]
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
        """Launches with the prepared argument types (prepare() first). A
        pointer ('P') parameter takes a GCuda.Buffer, a device object (as
        in a plain call: gpudata, get_pointer(), __cuda_array_interface__)
        or an integer address (int, np.intp), passed as is."""
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
