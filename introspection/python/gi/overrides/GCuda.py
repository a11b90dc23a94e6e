# GCuda's PyGObject override: PyCUDA's names and habits on top of the
# introspected API, and GErrors raised as PyCUDA-style exception classes.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools

from gi import _gi
from gi.repository import GLib

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
        return GCuda.DriverError.get_category(error.code)
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


_OVERRIDES = {'Device': Device, 'Context': Context}


def _wrap_class(info, cls):
    """Replaces each throwing method of @cls's introspected base with a
    wrapper that converts GErrors; static functions stay static."""
    base = getattr(GCuda, info.get_name())
    for method in info.get_methods():
        if not method.can_throw_gerror():
            continue
        name = method.get_name()
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
