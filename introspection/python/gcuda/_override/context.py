# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyCUDA's Device and Context over GCuda's, and the module functions
about them."""

import enum
import functools
import types

from gi.module import get_introspection_module

from . import OVERRIDE_MODULE
from .aio import _async_method
from .errors import _checking, _raising

GCuda = get_introspection_module('GCuda')

__all__ = ['get_version', 'mem_get_info', 'device_attribute']


def _attribute_enum():
    """PyCUDA's ``device_attribute``: GCuda.DeviceAttribute's members under
    their upper-case names (the first name of each value: aliases map to
    it), whose str() is the bare name as in PyCUDA, so PyCUDA's
    dump_properties.py prints MAX_THREADS_PER_BLOCK, not a GEnum repr."""
    members = {}
    for name in dir(GCuda.DeviceAttribute):
        value = getattr(GCuda.DeviceAttribute, name)
        if name.isupper() and isinstance(value, GCuda.DeviceAttribute):
            members[name] = int(value)
    # the GEnum's first nick for each value is its current name
    order = sorted(members.items(), key=lambda item: (item[1], item[0] != _current_name(item[1])))
    cls = enum.IntEnum('device_attribute', order, module=OVERRIDE_MODULE)
    cls.__str__ = lambda self: self.name
    return cls


def _current_name(value):
    return GCuda.DeviceAttribute(value).value_name[len('GCUDA_DEVICE_ATTRIBUTE_'):]


device_attribute = _attribute_enum()


class _AttributeDict(dict):
    """Device.get_attributes()'s result: keyed by device_attribute members
    (PyCUDA); a GCuda.DeviceAttribute or a lower-case name
    ('max_threads_per_block', GCuda's earlier keys) finds the same entry."""

    @staticmethod
    def _member(name):
        # a deprecated alias's name finds nothing, as GCuda's string keys did
        member = device_attribute.__members__.get(name.upper())
        return member if member is not None and member.name == name.upper() else None

    def __missing__(self, key):
        if isinstance(key, str):
            member = self._member(key)
            if member is not None and dict.__contains__(self, member):
                return self[member]
        raise KeyError(key)

    def __contains__(self, key):
        if isinstance(key, str):
            key = self._member(key)
        return dict.__contains__(self, key)


class Device(GCuda.Device):
    """A CUDA device. ``GCuda.Device(0)`` is the same object as
    ``GCuda.Device.get(0)``, as in PyCUDA; attributes read as
    ``dev.max_threads_per_block``."""

    __module__ = OVERRIDE_MODULE

    def __new__(cls, ordinal):
        # PyCUDA: Device(0), or Device("0000:01:00.0") by PCI bus id
        if isinstance(ordinal, str):
            return cls.get_by_pci_bus_id(ordinal)
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

    def get_attributes(self):
        """{device_attribute member: value} for every attribute the driver
        reports (PyCUDA's keys; lower-case names also find their entry)."""
        return _AttributeDict((device_attribute[name.upper()], value)
                              for name, value in _get_attributes(self).items())

    def make_context(self, flags=0):
        """A new dedicated context, made current on the calling thread as
        PyCUDA's make_context() does (pushed: the thread's calls with no
        context use it until ctx.pop() or ctx.detach())."""
        ctx = self.create_context(GCuda.ContextFlags(flags))
        ctx.push()
        return ctx

    def retain_primary_context(self):
        return self.get_primary_context()


_get_attributes = _raising(GCuda.Device.get_attributes)


class _CurrentOrSelf:
    """PyCUDA's static Context methods, which act on the thread's current
    context: ``Context.synchronize()`` on the class calls the method on
    GCuda.Context.get_thread_default() (the context this thread pushed, else
    the default context), ``ctx.synchronize()`` on an instance on @ctx."""

    def __init__(self, name):
        # checked and raising as the override's other methods (errors._checking())
        info = getattr(GCuda.Context, name)
        self.method = _checking(info, info, info.can_throw_gerror())
        functools.update_wrapper(self, info)

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        if obj is not None:
            return types.MethodType(self.method, obj)
        method = self.method

        @functools.wraps(method)
        def on_current(*args, **kwargs):
            return method(_thread_default(), *args, **kwargs)
        return on_current


_thread_default = _raising(GCuda.Context.get_thread_default)


class Context(GCuda.Context):
    """A CUDA context. GCuda makes contexts current by itself; ``with ctx:``
    pushes it for code that needs a current context, and pops it after.
    PyCUDA's static methods (``Context.synchronize()``,
    ``Context.get_device()``, ``Context.get_limit()``, ...) act on the
    calling thread's default context (GCuda.Context.get_thread_default():
    the context the thread pushed last, else the default context)."""

    __module__ = OVERRIDE_MODULE

    synchronize = _CurrentOrSelf('synchronize')
    get_device = _CurrentOrSelf('get_device')
    get_limit = _CurrentOrSelf('get_limit')
    set_limit = _CurrentOrSelf('set_limit')
    get_cache_config = _CurrentOrSelf('get_cache_config')
    set_cache_config = _CurrentOrSelf('set_cache_config')
    get_memory_info = _CurrentOrSelf('get_memory_info')
    get_api_version = _CurrentOrSelf('get_api_version')
    get_stream_priority_range = _CurrentOrSelf('get_stream_priority_range')
    get_flags = _CurrentOrSelf('get_flags')

    def __enter__(self):
        self.push()
        return self

    def __exit__(self, *exc):
        Context.pop()
        return False

    def __repr__(self):
        device = self.get_device()
        if device is None:  # made by hand (GObject.new())
            return '<GCuda.Context without a CUDA context>'
        return '<GCuda.Context on device %d%s>' % (
            device.get_ordinal(), ', primary' if self.is_primary() else '')

    def detach(self):
        """PyCUDA's detach(): this context is popped if the calling thread
        pushed it last. A dedicated context is then destroyed (every later
        use is CONTEXT_DESTROYED); a primary context is shared (the default
        context, the CUDA runtime's), so it is left usable, as PyCUDA's
        detach() only drops its own retain of it."""
        if self.is_primary():
            if GCuda.Context.get_current() is self and _thread_default() is self:
                Context.pop()
            return
        self.destroy()

    synchronize_async = _async_method(GCuda.Context, 'synchronize')


def get_version():
    """The CUDA version GCuda was built against, as (major, minor, revision)."""
    return tuple(GCuda.get_cuda_version())


def mem_get_info():
    """(free, total) bytes of the default context's device."""
    return tuple(Context.get_default().get_memory_info())
