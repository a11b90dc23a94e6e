# GCuda's PyGObject override: PyCUDA's names and habits on top of the
# introspected API, and GErrors raised as PyCUDA-style exception classes.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import ctypes
import builtins
import functools
import math
import numbers
import operator
import threading

from gi import _gi
from gi.repository import GLib, Gio

from ..importer import modules
from ..overrides import override

GCuda = modules['GCuda']._introspection_module

__all__ = []


# ---------------------------------------------------------------- errors

class CudaError(GLib.Error):
    """Base of every error GCuda raises (a GLib.Error, so ``except
    GLib.Error`` and ``e.matches(domain, code)`` keep working)."""


class LogicError(CudaError):
    """The call was wrong: bad argument, bad state, use after free."""


class LaunchError(CudaError):
    """A kernel launch failed or a kernel faulted."""


class MemoryError(CudaError):  # noqa: A001 - PyCUDA's name
    """The device ran out of memory."""


class RuntimeError(CudaError):  # noqa: A001 - PyCUDA's name
    """The environment is at fault: no driver, no device, hardware error."""


class CompileError(CudaError):
    """NVRTC rejected the source; the message carries the compiler log."""


_CATEGORY_CLASSES = {
    GCuda.ErrorCategory.LOGIC: LogicError,
    GCuda.ErrorCategory.LAUNCH: LaunchError,
    GCuda.ErrorCategory.MEMORY: MemoryError,
    GCuda.ErrorCategory.RUNTIME: RuntimeError,
    GCuda.ErrorCategory.COMPILE: CompileError,
    GCuda.ErrorCategory.UNKNOWN: CudaError,
}

_DRIVER_DOMAIN = GLib.quark_to_string(GCuda.driver_error_quark())
_LIBRARY_DOMAIN = GLib.quark_to_string(GCuda.error_quark())
_COMPILE_DOMAIN = 'gcuda-compile-error-quark'
_RUNTIME_LIBRARY_CODES = (GCuda.Error.DRIVER_NOT_FOUND, GCuda.Error.NVRTC_NOT_FOUND,
                          GCuda.Error.NOT_SUPPORTED)


def error_category(error):
    """The GCuda.ErrorCategory of a GLib.Error (NONE for foreign domains)."""
    if error.domain == _DRIVER_DOMAIN:
        return GCuda.driver_error_get_category(error.code)
    if error.domain == _LIBRARY_DOMAIN:
        if error.code in _RUNTIME_LIBRARY_CODES:
            return GCuda.ErrorCategory.RUNTIME
        return GCuda.ErrorCategory.LOGIC
    if error.domain == _COMPILE_DOMAIN:
        return GCuda.ErrorCategory.COMPILE
    return GCuda.ErrorCategory.NONE


def _convert(error):
    if isinstance(error, CudaError):
        return error
    cls = _CATEGORY_CLASSES.get(error_category(error))
    if cls is None:
        return error
    return cls(error.message, error.domain, error.code)


def _raising(fn):
    """Wraps a callable so GCuda's GErrors come out as CudaError subclasses."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except GLib.Error as e:
            converted = _convert(e)
            if converted is e:
                raise
            raise converted.with_traceback(e.__traceback__) from None
    return wrapper


__all__ += ['CudaError', 'LogicError', 'LaunchError', 'MemoryError', 'RuntimeError',
            'CompileError', 'error_category']


# ---------------------------------------------------------------- classes

class Device(GCuda.Device):
    """A CUDA device. ``GCuda.Device(0)`` is the same object as
    ``GCuda.Device.get(0)``, as in PyCUDA; attributes read as
    ``dev.max_threads_per_block``."""

    def __new__(cls, ordinal):
        return cls.get(ordinal)

    def __init__(self, *args, **kwargs):
        pass  # the object is fully made by the driver lookup in __new__

    def __getattr__(self, name):
        # PyCUDA: dev.max_threads_per_block == dev.get_attribute(MAX_THREADS_PER_BLOCK)
        if not name.startswith('_'):
            attr = getattr(GCuda.DeviceAttribute, name.upper(), None)
            if isinstance(attr, GCuda.DeviceAttribute):
                return self.get_attribute(attr)
        raise AttributeError('%r object has no attribute %r' % (type(self).__name__, name))

    def __eq__(self, other):
        return isinstance(other, GCuda.Device) and self.equal(other)

    def __hash__(self):
        return self.hash()

    def __repr__(self):
        return '<GCuda.Device %d: %s>' % (self.get_ordinal(), self.get_name())

    @staticmethod
    def count():
        return Device.get_count()

    def name(self):
        return self.get_name()

    def pci_bus_id(self):
        return self.get_pci_bus_id()

    def compute_capability(self):
        return tuple(self.get_compute_capability())

    def total_memory(self):
        return self.get_total_memory()

    def make_context(self, flags=0):
        return self.create_context(GCuda.ContextFlags(flags))

    def retain_primary_context(self):
        return self.get_primary_context()


class Context(GCuda.Context):
    """A CUDA context. GCuda makes contexts current by itself; ``with ctx:``
    pushes it for code that needs a current context, and pops it after."""

    def __enter__(self):
        self.push()
        return self

    def __exit__(self, *exc):
        Context.pop()
        return False

    def __repr__(self):
        return '<GCuda.Context on device %d%s>' % (
            self.get_device().get_ordinal(), ', primary' if self.is_primary() else '')

    def detach(self):
        self.destroy()


# ---------------------------------------------------------------- asyncio

class _GLibThread:
    """One private thread iterating a private GMainContext, so `_async`
    calls can complete into any asyncio loop (GLib-integrated or not)
    without blocking a thread or polling: the thread sleeps in poll() until
    the driver's callback wakes its context."""

    _lock = threading.Lock()
    _instance = None

    def __init__(self):
        self.context = GLib.MainContext.new()
        self.loop = GLib.MainLoop.new(self.context, False)
        ready = threading.Event()

        def run():
            self.context.push_thread_default()
            ready.set()
            self.loop.run()

        thread = threading.Thread(target=run, name='gcuda-glib', daemon=True)
        thread.start()
        ready.wait()

    @classmethod
    def get(cls):
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def invoke(self, fn):
        """Runs fn() on the GLib thread and returns once it has run (the
        work it queues is then ordered before the caller's next call);
        re-raises its exception in the caller."""
        ran = threading.Event()
        failure = []

        def call(*unused):
            try:
                fn()
            except BaseException as e:  # noqa: B902 - handed to the caller
                failure.append(e)
            finally:
                ran.set()
            return False

        self.context.invoke_full(GLib.PRIORITY_DEFAULT, call)
        ran.wait()
        if failure:
            raise failure[0]


def _awaitable(obj, start, finish, cancellable):
    """An asyncio future completed by start(obj, cancellable, callback),
    started now; outside a running loop (``asyncio.run(s.synchronize_async())``)
    a coroutine that starts it when awaited."""
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except builtins.RuntimeError:  # this module's RuntimeError is GCuda's
        async def when_awaited():
            return await _awaitable(obj, start, finish, cancellable)
        return when_awaited()
    future = loop.create_future()
    cancellable = cancellable or Gio.Cancellable()

    def resolve(result, error):
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def done(source, res, *unused):
        try:
            result = finish(source, res)
            loop.call_soon_threadsafe(resolve, result, None)
        except GLib.Error as e:
            loop.call_soon_threadsafe(resolve, None, _convert(e))

    def on_future_done(fut):
        if fut.cancelled():
            cancellable.cancel()

    future.add_done_callback(on_future_done)
    _GLibThread.get().invoke(lambda: start(obj, cancellable, done))
    return future


def _async_method(base, name):
    """`obj.name_async(cancellable=None, callback=None, user_data=None)`:
    with a callback, the plain GIO form; without one, an awaitable (as in
    PyGObject 3.50), usable from any asyncio loop."""
    start = getattr(base, name + '_async')
    finish = _raising(getattr(base, name + '_finish'))

    def method(self, cancellable=None, callback=None, *user_data):
        if callback is not None:
            return start(self, cancellable, callback, *user_data)
        return _awaitable(self, start, finish, cancellable)

    method.__name__ = name + '_async'
    method.__doc__ = start.__doc__
    return method


class Stream(GCuda.Stream):
    """A CUDA stream. ``GCuda.Stream(flags=0, priority=0, context=None)``
    as in PyCUDA; ``await stream.synchronize_async()`` from asyncio."""

    def __new__(cls, flags=0, priority=0, context=None):
        return cls.new(context, GCuda.StreamFlags(flags), priority)

    def __init__(self, *args, **kwargs):
        pass

    def synchronize_async(self, cancellable=None, callback=None, *user_data):
        """With a callback, the GIO form; without one, an awaitable. The
        awaitable marks the point with an event here, in the calling thread
        (a per-thread default stream is that thread's own), and awaits it."""
        if callback is not None:
            return GCuda.Stream.synchronize_async(self, cancellable, callback, *user_data)
        event = Event(GCuda.EventFlags.DISABLE_TIMING, self.get_context()).record(self)
        return event.wait_async(cancellable)

    def wait_for_event(self, event):
        self.wait_event(event)

    def __int__(self):
        return self.get_handle()


class Event(GCuda.Event):
    """A CUDA event. ``GCuda.Event(flags=0, context=None)`` as in PyCUDA;
    record() and synchronize() chain; ``await event.wait_async()``."""

    def __new__(cls, flags=0, context=None):
        return cls.new(context, GCuda.EventFlags(flags))

    def __init__(self, *args, **kwargs):
        pass

    wait_async = _async_method(GCuda.Event, 'wait')

    def ipc_handle(self):
        return self.get_ipc_handle().get_data()

    @staticmethod
    def from_ipc_handle(handle, context=None):
        if not isinstance(handle, GLib.Bytes):
            handle = GLib.Bytes.new(bytes(handle))
        return Event.new_from_ipc_handle(context, handle)


# ---------------------------------------------------------------- memory
#
# Device memory (GCuda.Buffer) and host memory (GCuda.HostBuffer) meet
# numpy through addresses only: arrays are made over the memory itself
# (numpy's __array_interface__ pointing at the address), never copied
# element by element, and their .base is the GCuda object, which keeps the
# memory alive as long as any array or view of it.

_UINT64_MAX = (1 << 64) - 1


def _library_error(code, message):
    """A GCuda.Error raised from Python, as the class _convert() gives it."""
    cls = RuntimeError if code in _RUNTIME_LIBRARY_CODES else LogicError
    return cls(message, _LIBRARY_DOMAIN, int(code))


def _uint64(value, what):
    """@value as an int in guint64 range; OverflowError otherwise, as
    PyGObject raises for an integer argument out of range."""
    value = operator.index(value)
    if not 0 <= value <= _UINT64_MAX:
        raise OverflowError('%s: %d not in range 0 to %d' % (what, value, _UINT64_MAX))
    return value


def _check_range(total, offset, size):
    offset = _uint64(offset, 'offset')
    size = _uint64(size, 'size')
    if offset > total or size > total - offset:
        raise _library_error(GCuda.Error.OUT_OF_BOUNDS,
                             'Bytes %d to %d are outside the memory of %d bytes' % (offset, offset + size, total))
    return offset, size


def _numpy():
    import numpy  # imported on first use: only arrays need it
    return numpy


def _layout(shape, dtype, order='C'):
    """(shape, dtype, strides or None, nbytes) of an array numpy would make
    with np.empty(shape, dtype, order)."""
    np = _numpy()
    dtype = np.dtype(dtype)
    try:
        shape = (operator.index(shape),)
    except TypeError:
        shape = tuple(operator.index(n) for n in shape)
    if dtype.subdtype is not None:  # np.empty(2, (np.float32, 3)) is 2 × 3 float32
        dtype, sub = dtype.subdtype
        shape += sub
    if any(n < 0 for n in shape):
        raise ValueError('negative dimensions are not allowed')
    if dtype.hasobject:
        raise TypeError('GCuda memory cannot hold Python objects (dtype %s)' % dtype)
    if order not in ('C', 'F', 'c', 'f'):
        raise ValueError("order must be 'C' or 'F', not %r" % (order,))
    strides = None
    if order in ('F', 'f') and len(shape) > 1:
        strides, step = [], dtype.itemsize
        for n in shape:
            strides.append(step)
            step *= max(n, 1)
        strides = tuple(strides)
    return shape, dtype, strides, math.prod(shape) * dtype.itemsize


def _order_of(ary):
    """'F' for a Fortran-ordered array, else 'C' (what the _like functions keep)."""
    return 'F' if ary.flags.f_contiguous and not ary.flags.c_contiguous else 'C'


_array_request = threading.local()


def _array_over(owner, address, shape, dtype, order='C', readonly=False):
    """A numpy array over the memory at @address (no copy) whose .base is
    @owner, a GCuda.Buffer or GCuda.HostBuffer: numpy reads @owner's
    __array_interface__, which answers this request."""
    np = _numpy()
    shape, dtype, strides, nbytes = _layout(shape, dtype, order)
    interface = {'version': 3, 'shape': shape, 'typestr': dtype.str, 'strides': strides,
                 'data': (address, bool(readonly))}
    if dtype.fields is not None:
        interface['descr'] = dtype.descr
    _array_request.pending = (owner, interface)
    try:
        ary = np.asarray(owner)
    finally:
        _array_request.pending = None
    if ary.dtype != dtype:  # a structured dtype numpy's descr does not carry whole
        ary = ary.view(dtype)
    if ary.__array_interface__['data'][0] != address or ary.nbytes != nbytes:
        raise AssertionError('numpy did not map GCuda memory in place')
    return ary


def _requested_interface(owner):
    pending = getattr(_array_request, 'pending', None)
    if pending is not None and pending[0] is owner:
        return pending[1]
    return None


def _memoryview_over(owner, address, size):
    """A writable memoryview of @size bytes at @address (no copy) that
    keeps @owner alive."""
    holder = (ctypes.c_ubyte * size).from_address(address)
    holder._gcuda_object = owner
    return memoryview(holder).cast('B')


def _root_buffer(buf):
    while True:
        parent = buf.get_parent()
        if parent is None:
            return buf
        buf = parent


def _check_managed(buf, what):
    if buf.is_freed():
        raise _library_error(GCuda.Error.FREED, 'The buffer at 0x%x was freed' % buf.get_address())
    if _root_buffer(buf).get_kind() != GCuda.BufferKind.MANAGED:
        raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                             '%s needs managed memory (GCuda.managed_empty(), GCuda.Buffer.new_managed()): '
                             'device memory is not addressable from the host; download it instead' % what)


def _check_host(hb):
    if hb.is_freed():
        raise _library_error(GCuda.Error.FREED,
                             'The host buffer at 0x%x was freed or unregistered' % hb.get_address())


class Buffer(GCuda.Buffer):
    """Device memory (PyCUDA's ``DeviceAllocation``). ``int(buf)`` is the
    device address and ``len(buf)`` the size in bytes; ``free()`` releases
    it now. Managed memory is host memory too: ``buf.as_array(shape,
    dtype)`` and ``buf.as_buffer(size, offset)`` map it as a numpy array
    or memoryview (no copy), and ``numpy.asarray(buf)`` gives its bytes.
    ``await buf.download_async(offset, size)`` and ``await
    buf.upload_async(offset, data)`` work from asyncio."""

    def __int__(self):
        return self.get_address()

    def __len__(self):
        return self.get_size()

    def __repr__(self):
        return '<GCuda.Buffer %s, %d bytes at 0x%x%s>' % (
            self.get_kind().value_nick, self.get_size(), self.get_address(),
            ', freed' if self.is_freed() else '')

    @property
    def __array_interface__(self):
        interface = _requested_interface(self)
        if interface is not None:
            return interface
        if self.is_freed() or _root_buffer(self).get_kind() != GCuda.BufferKind.MANAGED:
            raise AttributeError('__array_interface__: only managed memory is host memory')
        return {'version': 3, 'shape': (self.get_size(),), 'typestr': '|u1',
                'data': (self.get_address(), False)}

    def get_device_pointer(self):
        """PyCUDA's ``ManagedAllocation.get_device_pointer()``: the address,
        the same on the host and the device for managed memory."""
        return self.get_address()

    def as_buffer(self, size=None, offset=0):
        """PyCUDA's ``as_buffer(size, offset=0)``: a writable memoryview of
        @size bytes (default: to the end) at @offset of managed memory,
        without a copy, that keeps the buffer alive. Only managed memory
        (or a view of it) is host-addressable: other kinds are
        GCuda.Error.INVALID_ARGUMENT; a range outside the buffer is
        OUT_OF_BOUNDS, a freed buffer FREED. Host access must wait until
        GPU work using the memory has finished (synchronize first)."""
        _check_managed(self, 'as_buffer()')
        total = self.get_size()
        offset = _uint64(offset, 'offset')
        if size is None:
            size = max(total - offset, 0)
        offset, size = _check_range(total, offset, size)
        return _memoryview_over(self, self.get_address() + offset, size)

    def as_array(self, shape=None, dtype='uint8', order='C', offset=0):
        """Managed memory at @offset as a numpy array of @shape and @dtype
        (default: all of it to the end, as elements of @dtype), without a
        copy; its .base is this buffer. Errors as for as_buffer()."""
        _check_managed(self, 'as_array()')
        total = self.get_size()
        offset, _ = _check_range(total, offset, 0)
        if shape is None:
            shape = (total - offset) // _numpy().dtype(dtype).itemsize
        shape, dtype, _, nbytes = _layout(shape, dtype, order)
        _check_range(total, offset, nbytes)
        return _array_over(self, self.get_address() + offset, shape, dtype, order)

    def ipc_handle(self):
        """The IPC handle as bytes (PyCUDA's ``mem_get_ipc_handle()``)."""
        return self.get_ipc_handle().get_data()

    @staticmethod
    def from_ipc_handle(handle, context=None):
        """Opens memory another process shared (PyCUDA's ``IPCMemoryHandle``);
        @handle is bytes or GLib.Bytes."""
        if not isinstance(handle, GLib.Bytes):
            handle = GLib.Bytes.new(bytes(handle))
        return Buffer.open_ipc_handle(context, handle)

    def download_async(self, offset=0, size=None, stream=None, cancellable=None, callback=None,
                       *user_data):
        """Copies @size bytes (default: to the end) at @offset out of the
        buffer without blocking. With a @callback, the GIO form (finish with
        download_finish(), which gives GLib.Bytes); without one, an
        awaitable for asyncio that gives the GLib.Bytes."""
        if size is None:
            size = max(self.get_size() - _uint64(offset, 'offset'), 0)
        start = GCuda.Buffer.download_async
        if callback is not None:
            return start(self, offset, size, stream, cancellable, callback, *user_data)
        return _awaitable(self, lambda obj, c, done: start(obj, offset, size, stream, c, done, None),
                          _raising(GCuda.Buffer.download_finish), cancellable)

    def upload_async(self, offset, data, stream=None, cancellable=None, callback=None, *user_data):
        """Copies @data (GLib.Bytes, bytes, a numpy array or any buffer) into
        the buffer at @offset without blocking; the data is kept alive until
        the copy has finished. Other than GLib.Bytes, @data is copied once
        into a GLib.Bytes (for no copy, use GCuda.memcpy_htod_async() from
        page-locked memory and await the stream). With a @callback, the GIO
        form; without one, an awaitable for asyncio that gives True."""
        data = _as_gbytes(data)
        start = GCuda.Buffer.upload_async
        if callback is not None:
            return start(self, offset, data, stream, cancellable, callback, *user_data)
        return _awaitable(self, lambda obj, c, done: start(obj, offset, data, stream, c, done, None),
                          _raising(GCuda.Buffer.upload_finish), cancellable)


class HostBuffer(GCuda.HostBuffer):
    """Page-locked, aligned or registered host memory (PyCUDA's
    ``PagelockedHostAllocation``, ``AlignedHostAllocation``,
    ``RegisteredHostMemory``). ``int(hb)`` is the host address and
    ``len(hb)`` the size; ``hb.as_array(shape, dtype)`` and
    ``hb.as_buffer(size, offset)`` map it without a copy, and
    ``numpy.asarray(hb)`` gives its bytes. Registered memory has ``base``:
    the array it was registered from."""

    def __int__(self):
        return self.get_address()

    def __len__(self):
        return self.get_size()

    def __repr__(self):
        return '<GCuda.HostBuffer %s, %d bytes at 0x%x%s>' % (
            self.get_kind().value_nick, self.get_size(), self.get_address(),
            ', freed' if self.is_freed() else '')

    @property
    def __array_interface__(self):
        interface = _requested_interface(self)
        if interface is not None:
            return interface
        if self.is_freed():
            raise AttributeError('__array_interface__: the host buffer was freed')
        return {'version': 3, 'shape': (self.get_size(),), 'typestr': '|u1',
                'data': (self.get_address(), False)}

    def get_device_pointer(self):
        """PyCUDA's name for get_device_address() (DEVICEMAP memory)."""
        return self.get_device_address()

    def as_buffer(self, size=None, offset=0):
        """A writable memoryview of @size bytes (default: to the end) at
        @offset, without a copy, that keeps the host buffer alive. A range
        outside is GCuda.Error.OUT_OF_BOUNDS, freed memory FREED."""
        _check_host(self)
        total = self.get_size()
        offset = _uint64(offset, 'offset')
        if size is None:
            size = max(total - offset, 0)
        offset, size = _check_range(total, offset, size)
        return _memoryview_over(self, self.get_address() + offset, size)

    def as_array(self, shape=None, dtype='uint8', order='C', offset=0):
        """The memory at @offset as a numpy array of @shape and @dtype
        (default: all of it to the end), without a copy; its .base is this
        host buffer."""
        _check_host(self)
        total = self.get_size()
        offset, _ = _check_range(total, offset, 0)
        if shape is None:
            shape = (total - offset) // _numpy().dtype(dtype).itemsize
        shape, dtype, _, nbytes = _layout(shape, dtype, order)
        _check_range(total, offset, nbytes)
        return _array_over(self, self.get_address() + offset, shape, dtype, order)


Context.synchronize_async = _async_method(GCuda.Context, 'synchronize')

_OVERRIDES = {'Device': Device, 'Context': Context, 'Stream': Stream, 'Event': Event,
              'Buffer': Buffer, 'HostBuffer': HostBuffer}


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


# ---------------------------------------------------------------- PyCUDA module functions

def get_version():
    """The CUDA version GCuda was built against, as (major, minor, revision)."""
    return tuple(GCuda.get_cuda_version())


def mem_get_info():
    """(free, total) bytes of the default context's device."""
    return tuple(Context.get_default().get_memory_info())


__all__ += ['get_version', 'mem_get_info']


# ---------------------------------------------------------------- PyCUDA memory functions
#
# Device pointers are GCuda.Buffer objects (a view, buf.new_view(offset,
# size), stands for PyCUDA's int(buf) + offset): bare integer addresses are
# refused with a TypeError. Host memory is a numpy array or any object with
# the buffer protocol, copied from and into in place through its address.

def _device(obj, what):
    if isinstance(obj, GCuda.Buffer):
        return obj
    if isinstance(obj, numbers.Integral):
        raise TypeError('%s: GCuda copies to and from GCuda.Buffer objects, not bare device addresses; '
                        'pass the buffer, or buf.new_view(offset, size) for int(buf) + offset' % what)
    raise TypeError('%s must be a GCuda.Buffer, not %s' % (what, type(obj).__name__))


def _host(obj, what, writable):
    """(array, address, nbytes) of the host memory of @obj, without a copy.
    A strided (non-contiguous) source is copied once into a contiguous
    array; a strided destination is an error. The array must be kept alive
    while its address is used."""
    np = _numpy()
    if isinstance(obj, GLib.Bytes):
        obj = obj.get_data()
    if isinstance(obj, np.ndarray):
        ary = obj
    else:
        try:
            view = memoryview(obj)
        except TypeError:
            raise TypeError('%s must be a numpy array or support the buffer protocol, not %s'
                            % (what, type(obj).__name__)) from None
        if view.nbytes == 0:
            ary = np.empty(0, np.uint8)
        elif view.c_contiguous:
            ary = np.frombuffer(view.cast('B'), np.uint8)
        else:
            ary = np.asarray(view)
    if ary.dtype.hasobject:
        raise TypeError('%s holds Python objects (dtype %s), not data' % (what, ary.dtype))
    if not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        if writable:
            raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                                 '%s is not contiguous: a copy into host memory needs one block' % what)
        ary = np.ascontiguousarray(ary)
    if writable and not ary.flags.writeable:
        raise _library_error(GCuda.Error.INVALID_ARGUMENT, '%s is read-only' % what)
    return ary, ary.__array_interface__['data'][0], ary.nbytes


def _as_gbytes(data):
    if isinstance(data, GLib.Bytes):
        return data
    if isinstance(data, bytes):
        return GLib.Bytes.new(data)
    ary, address, nbytes = _host(data, 'data', False)
    return GLib.Bytes.new(ctypes.string_at(address, nbytes) if nbytes else b'')


def _check_context(buf, context, what):
    if context is not None and buf.get_context() != context:
        raise _library_error(GCuda.Error.CONTEXT_MISMATCH, '%s does not belong to the context given' % what)


def _zero(address, nbytes):
    if nbytes:
        ctypes.memset(address, 0, nbytes)


@_raising
def mem_alloc(nbytes, context=None):
    """Device memory of @nbytes bytes (PyCUDA's ``mem_alloc()``): a
    GCuda.Buffer. 0 bytes is GCuda.Error.INVALID_ARGUMENT; more than the
    device has, GCuda.MemoryError (DriverError.OUT_OF_MEMORY)."""
    return Buffer.new(context, operator.index(nbytes))


@_raising
def mem_alloc_pitch(width, height, access_size, context=None):
    """(buffer, pitch): @height rows of at least @width bytes, padded for
    coalesced access by elements of @access_size (4, 8 or 16) bytes."""
    buf = Buffer.new_pitched(context, operator.index(width), operator.index(height), operator.index(access_size))
    return buf, buf.get_pitch()


@_raising
def mem_get_ipc_handle(devptr):
    """The IPC handle of a device allocation, as bytes."""
    return _device(devptr, 'devptr').ipc_handle()


@_raising
def to_device(ary, context=None):
    """A new GCuda.Buffer holding a copy of @ary (a numpy array or any
    buffer), uploaded from its memory in place. A non-contiguous array is
    first made contiguous (C order), which copies it once on the host."""
    ary, address, nbytes = _host(ary, 'ary', False)
    buf = Buffer.new(context, nbytes)
    buf.upload_from_address(0, address, nbytes)
    return buf


@_raising
def from_device(devptr, shape, dtype, order='C'):
    """A new numpy array of @shape, @dtype and @order filled from the start
    of @devptr (a GCuda.Buffer), downloaded straight into the array."""
    np = _numpy()
    src = _device(devptr, 'devptr')
    shape, dtype, _, nbytes = _layout(shape, dtype, order)
    result = np.empty(shape, dtype, order=order)
    src.download_to_address(0, result.__array_interface__['data'][0], nbytes)
    return result


@_raising
def from_device_like(devptr, other_ary):
    """from_device() with @other_ary's shape, dtype and order."""
    other = _numpy().asarray(other_ary)
    return from_device(devptr, other.shape, other.dtype, _order_of(other))


@_raising
def memcpy_htod(dest, src):
    """Copies all of @src (host memory) to the start of @dest (a
    GCuda.Buffer) and returns when done."""
    ary, address, nbytes = _host(src, 'src', False)
    _device(dest, 'dest').upload_from_address(0, address, nbytes)


@_raising
def memcpy_htod_async(dest, src, stream=None):
    """Queues a copy of all of @src to @dest on @stream (None: the legacy
    default stream). From page-locked memory (pagelocked_empty(),
    register_host_memory()) it is truly asynchronous and @src must stay
    alive and unchanged until the stream has done it; from pageable memory
    the call returns once the data has been staged."""
    ary, address, nbytes = _host(src, 'src', False)
    _device(dest, 'dest').upload_from_address_on_stream(0, address, nbytes, stream)


@_raising
def memcpy_dtoh(dest, src):
    """Fills all of @dest (writable, contiguous host memory) from the start
    of @src (a GCuda.Buffer) and returns when done."""
    ary, address, nbytes = _host(dest, 'dest', True)
    _device(src, 'src').download_to_address(0, address, nbytes)


@_raising
def memcpy_dtoh_async(dest, src, stream=None):
    """Queues a copy from @src into all of @dest on @stream. Into page-locked
    memory it is truly asynchronous: @dest holds the data once the stream
    has done it, and must stay alive until then. Into pageable memory the
    call returns when the copy is done."""
    ary, address, nbytes = _host(dest, 'dest', True)
    _device(src, 'src').download_to_address_on_stream(0, address, nbytes, stream)


@_raising
def memcpy_dtod(dest, src, size):
    """Copies @size bytes from the start of @src to the start of @dest."""
    _device(dest, 'dest').copy_from(0, _device(src, 'src'), 0, size)


@_raising
def memcpy_dtod_async(dest, src, size, stream=None):
    """Queues memcpy_dtod() on @stream (a stream of @dest's context)."""
    _device(dest, 'dest').copy_from_on_stream(0, _device(src, 'src'), 0, size, stream)


@_raising
def memcpy_peer(dest, src, size, dest_context=None, src_context=None):
    """Copies @size bytes between buffers of different contexts (or
    devices). The contexts are the buffers' own; contexts given must be
    those (else GCuda.Error.CONTEXT_MISMATCH)."""
    dest, src = _device(dest, 'dest'), _device(src, 'src')
    _check_context(dest, dest_context, 'dest')
    _check_context(src, src_context, 'src')
    dest.copy_from(0, src, 0, size)


@_raising
def memcpy_peer_async(dest, src, size, dest_context=None, src_context=None, stream=None):
    """Queues memcpy_peer() on @stream (a stream of @dest's context)."""
    dest, src = _device(dest, 'dest'), _device(src, 'src')
    _check_context(dest, dest_context, 'dest')
    _check_context(src, src_context, 'src')
    dest.copy_from_on_stream(0, src, 0, size, stream)


__all__ += ['mem_alloc', 'mem_alloc_pitch', 'mem_get_ipc_handle', 'to_device', 'from_device',
            'from_device_like', 'memcpy_htod', 'memcpy_htod_async', 'memcpy_dtoh', 'memcpy_dtoh_async',
            'memcpy_dtod', 'memcpy_dtod_async', 'memcpy_peer', 'memcpy_peer_async']


def _make_memsets(bits):
    method = 'memset_d%d' % bits

    def memset(dest, data, count):
        getattr(_device(dest, 'dest'), method)(0, operator.index(data), count, None)

    def memset_async(dest, data, count, stream=None):
        getattr(_device(dest, 'dest'), method)(0, operator.index(data), count, stream)

    def memset_2d(dest, pitch, data, width, height):
        getattr(_device(dest, 'dest'), method + '_2d')(0, pitch, operator.index(data), width, height, None)

    def memset_2d_async(dest, pitch, data, width, height, stream=None):
        getattr(_device(dest, 'dest'), method + '_2d')(0, pitch, operator.index(data), width, height, stream)

    what = '%d-bit elements' % bits if bits > 8 else 'bytes'
    docs = {
        memset: 'Sets @count %s from the start of @dest to @data.' % what,
        memset_async: 'Queues memset_d%d() on @stream (None: done at once).' % bits,
        memset_2d: 'Sets @height rows of @width %s, @pitch bytes apart, to @data.' % what,
        memset_2d_async: 'Queues memset_d2d%d() on @stream (None: done at once).' % bits,
    }
    names = {memset: 'memset_d%d' % bits, memset_async: 'memset_d%d_async' % bits,
             memset_2d: 'memset_d2d%d' % bits, memset_2d_async: 'memset_d2d%d_async' % bits}
    for fn, name in names.items():
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = docs[fn]
        globals()[name] = _raising(fn)
        __all__.append(name)


for _bits in (8, 16, 32):
    _make_memsets(_bits)
del _bits


# ---------------------------------------------------------------- numpy arrays in GCuda memory

@_raising
def pagelocked_empty(shape, dtype, order='C', mem_flags=0, context=None):
    """A numpy array in page-locked host memory (PyCUDA's
    ``pagelocked_empty()``); @mem_flags are GCuda.HostAllocFlags. Its .base
    is the GCuda.HostBuffer, which keeps the memory alive (free() releases
    it at once; the array must not be used after that)."""
    shape, dtype, _, nbytes = _layout(shape, dtype, order)
    hb = HostBuffer.new_pagelocked(context, max(nbytes, 1), GCuda.HostAllocFlags(int(mem_flags)))
    return _array_over(hb, hb.get_address(), shape, dtype, order)


@_raising
def pagelocked_zeros(shape, dtype, order='C', mem_flags=0, context=None):
    """pagelocked_empty(), filled with zeros."""
    ary = pagelocked_empty(shape, dtype, order, mem_flags, context)
    _zero(ary.__array_interface__['data'][0], ary.nbytes)
    return ary


@_raising
def pagelocked_empty_like(array, mem_flags=0, context=None):
    array = _numpy().asarray(array)
    return pagelocked_empty(array.shape, array.dtype, _order_of(array), mem_flags, context)


@_raising
def pagelocked_zeros_like(array, mem_flags=0, context=None):
    array = _numpy().asarray(array)
    return pagelocked_zeros(array.shape, array.dtype, _order_of(array), mem_flags, context)


@_raising
def aligned_empty(shape, dtype, order='C', alignment=4096):
    """A numpy array in ordinary host memory aligned to @alignment bytes (a
    power of two), PyCUDA's ``aligned_empty()``; needs no driver. Its .base
    is the GCuda.HostBuffer. Page-aligned arrays can be page-locked in
    place with register_host_memory()."""
    shape, dtype, _, nbytes = _layout(shape, dtype, order)
    hb = HostBuffer.new_aligned(max(nbytes, 1), operator.index(alignment))
    return _array_over(hb, hb.get_address(), shape, dtype, order)


@_raising
def aligned_zeros(shape, dtype, order='C', alignment=4096):
    """aligned_empty(), filled with zeros."""
    ary = aligned_empty(shape, dtype, order, alignment)
    _zero(ary.__array_interface__['data'][0], ary.nbytes)
    return ary


@_raising
def aligned_empty_like(array, alignment=4096):
    array = _numpy().asarray(array)
    return aligned_empty(array.shape, array.dtype, _order_of(array), alignment)


@_raising
def aligned_zeros_like(array, alignment=4096):
    array = _numpy().asarray(array)
    return aligned_zeros(array.shape, array.dtype, _order_of(array), alignment)


def _managed_flags(mem_flags):
    # PyCUDA's default is 0, which the driver refuses: it means GLOBAL here
    return GCuda.MemAttachFlags(int(mem_flags) or int(GCuda.MemAttachFlags.GLOBAL))


@_raising
def managed_empty(shape, dtype, order='C', mem_flags=GCuda.MemAttachFlags.GLOBAL, context=None):
    """A numpy array in managed memory (PyCUDA's ``managed_empty()``), the
    same address on the host and the device; @mem_flags is
    GCuda.MemAttachFlags GLOBAL (0 means GLOBAL too) or HOST. Its .base is
    the GCuda.Buffer (get_buffer() finds it), which keeps the memory alive.
    The host must not touch it while GPU work using it runs."""
    shape, dtype, _, nbytes = _layout(shape, dtype, order)
    buf = Buffer.new_managed(context, max(nbytes, 1), _managed_flags(mem_flags))
    return _array_over(buf, buf.get_address(), shape, dtype, order)


@_raising
def managed_zeros(shape, dtype, order='C', mem_flags=GCuda.MemAttachFlags.GLOBAL, context=None):
    """managed_empty(), filled with zeros (by the host)."""
    ary = managed_empty(shape, dtype, order, mem_flags, context)
    _zero(ary.__array_interface__['data'][0], ary.nbytes)
    return ary


@_raising
def managed_empty_like(array, mem_flags=GCuda.MemAttachFlags.GLOBAL, context=None):
    array = _numpy().asarray(array)
    return managed_empty(array.shape, array.dtype, _order_of(array), mem_flags, context)


@_raising
def managed_zeros_like(array, mem_flags=GCuda.MemAttachFlags.GLOBAL, context=None):
    array = _numpy().asarray(array)
    return managed_zeros(array.shape, array.dtype, _order_of(array), mem_flags, context)


@_raising
def register_host_memory(ary, flags=0, context=None):
    """Page-locks the memory of the numpy array @ary in place (PyCUDA's
    ``register_host_memory()``; @flags are GCuda.HostRegisterFlags) and
    returns a new array over the same memory whose .base is the registered
    GCuda.HostBuffer; that one's .base is @ary, kept alive as long as the
    registration. The memory stays page-locked until the HostBuffer is
    unregistered or freed, or goes. @ary must be contiguous and start on a
    page boundary (aligned_empty() makes such arrays): otherwise
    GCuda.Error.INVALID_ARGUMENT."""
    np = _numpy()
    if not isinstance(ary, np.ndarray):
        raise TypeError('register_host_memory() takes a numpy array, not %s' % type(ary).__name__)
    if ary.dtype.hasobject:
        raise TypeError('the array holds Python objects (dtype %s), not data' % ary.dtype)
    if not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'Only a contiguous array can be registered')
    address = ary.__array_interface__['data'][0]
    hb = HostBuffer.register(context, address, ary.nbytes, GCuda.HostRegisterFlags(int(flags)))
    hb.base = ary  # PyCUDA's RegisteredHostMemory.base; released after the memory is unregistered
    return _array_over(hb, address, ary.shape, ary.dtype, _order_of(ary), readonly=not ary.flags.writeable)


def _find_owner(obj, cls):
    for _ in range(256):
        if obj is None or isinstance(obj, cls):
            return obj
        if isinstance(obj, memoryview):
            obj = obj.obj
            continue
        owner = getattr(obj, '_gcuda_object', None) if isinstance(obj, ctypes.Array) else None
        obj = owner if owner is not None else getattr(obj, 'base', None)
    return None


def get_host_buffer(ary):
    """The GCuda.HostBuffer whose memory a numpy array (or a memoryview from
    as_buffer()) made by GCuda lies in, found along its .base chain, or
    None: pagelocked_*, aligned_*, register_host_memory() arrays (the
    registered HostBuffer) and views of them."""
    return _find_owner(ary, GCuda.HostBuffer)


def get_buffer(ary):
    """The GCuda.Buffer whose memory a numpy array (or memoryview) made by
    GCuda lies in, found along its .base chain, or None: managed_* arrays
    and views of them."""
    return _find_owner(ary, GCuda.Buffer)


__all__ += ['pagelocked_empty', 'pagelocked_zeros', 'pagelocked_empty_like', 'pagelocked_zeros_like',
            'aligned_empty', 'aligned_zeros', 'aligned_empty_like', 'aligned_zeros_like',
            'managed_empty', 'managed_zeros', 'managed_empty_like', 'managed_zeros_like',
            'register_host_memory', 'get_host_buffer', 'get_buffer']
