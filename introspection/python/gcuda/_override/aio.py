# SPDX-License-Identifier: LGPL-2.1-or-later
"""asyncio for GCuda: the `_async` calls as awaitables for any asyncio loop,
completed through one private GLib thread; PyCUDA's Stream and Event."""

import threading

from gi.module import get_introspection_module
from gi.repository import GLib, Gio

from . import OVERRIDE_MODULE
from .errors import _convert, _library_error, _raising

GCuda = get_introspection_module('GCuda')

__all__ = []


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
    except RuntimeError:
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

    __module__ = OVERRIDE_MODULE

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
        if self.get_context() is None:
            # made by hand: the event below would be of the default context
            raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                                 'This GCuda.Stream has no CUDA stream behind it: create streams with GCuda.Stream()')
        event = Event(GCuda.EventFlags.DISABLE_TIMING, self.get_context()).record(self)
        return event.synchronize_async(cancellable)

    def wait_for_event(self, event):
        self.wait_event(event)

    def __int__(self):
        return self.get_handle()

    def __cuda_stream__(self):
        """The CUDA stream protocol: (0, the CUstream handle), for CuPy,
        PyTorch and cuda.core (interop)."""
        return (0, self.get_handle())

    @staticmethod
    def from_foreign(stream, context=None):
        """Borrows another library's stream (never destroyed by GCuda): an
        object with __cuda_stream__, a torch.cuda.Stream, a
        cupy.cuda.Stream or a handle (int; 0 and 1 are the legacy default
        stream, 2 the per-thread one); see GCuda.Stream.new_for_handle().
        The object is kept alive as long as the GCuda.Stream (interop)."""
        from .interop import stream_from_foreign  # imported on first use, as few programs need it
        return stream_from_foreign(stream, context)


def _ipc_handle_bytes(handle):
    """An IPC handle (GLib.Bytes, bytes or any other buffer) as GLib.Bytes.
    Anything else is a TypeError: bytes(64) would make an int 64 zero bytes,
    a handle the driver then opens."""
    if isinstance(handle, GLib.Bytes):
        return handle
    try:
        data = bytes(memoryview(handle))
    except TypeError:
        raise TypeError('an IPC handle is bytes (or GLib.Bytes), not %s' % type(handle).__name__) from None
    return GLib.Bytes.new(data)


class Event(GCuda.Event):
    """A CUDA event. ``GCuda.Event(flags=0, context=None)`` as in PyCUDA;
    record() and synchronize() chain; ``await event.synchronize_async()``."""

    __module__ = OVERRIDE_MODULE

    def __new__(cls, flags=0, context=None):
        return cls.new(context, GCuda.EventFlags(flags))

    def __init__(self, *args, **kwargs):
        pass

    synchronize_async = _async_method(GCuda.Event, 'synchronize')

    def ipc_handle(self):
        return self.get_ipc_handle().get_data()

    @staticmethod
    def from_ipc_handle(handle, context=None):
        return Event.new_from_ipc_handle(context, _ipc_handle_bytes(handle))
