# GCuda's PyGObject override: PyCUDA's names and habits on top of the
# introspected API, and GErrors raised as PyCUDA-style exception classes.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools
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
        self.context.invoke_full(GLib.PRIORITY_DEFAULT, lambda *a: fn() or False)


def _awaitable(obj, start, finish, cancellable):
    """An asyncio future completed by start(obj, cancellable, callback)."""
    import asyncio

    loop = asyncio.get_running_loop()
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

    def method(self, cancellable=None, callback=None, user_data=None):
        if callback is not None:
            return start(self, cancellable, callback, user_data)
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

    synchronize_async = _async_method(GCuda.Stream, 'synchronize')

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


Context.synchronize_async = _async_method(GCuda.Context, 'synchronize')

_OVERRIDES = {'Device': Device, 'Context': Context, 'Stream': Stream, 'Event': Event}


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
