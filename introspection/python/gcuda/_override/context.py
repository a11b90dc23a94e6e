# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyCUDA's Device and Context over GCuda's, and the module functions
about them."""

from gi.module import get_introspection_module

from . import OVERRIDE_MODULE
from .aio import _async_method

GCuda = get_introspection_module('GCuda')

__all__ = ['get_version', 'mem_get_info']


class Device(GCuda.Device):
    """A CUDA device. ``GCuda.Device(0)`` is the same object as
    ``GCuda.Device.get(0)``, as in PyCUDA; attributes read as
    ``dev.max_threads_per_block``."""

    __module__ = OVERRIDE_MODULE

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

    __module__ = OVERRIDE_MODULE

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
        self.destroy()

    synchronize_async = _async_method(GCuda.Context, 'synchronize')


def get_version():
    """The CUDA version GCuda was built against, as (major, minor, revision)."""
    return tuple(GCuda.get_cuda_version())


def mem_get_info():
    """(free, total) bytes of the default context's device."""
    return tuple(Context.get_default().get_memory_info())
