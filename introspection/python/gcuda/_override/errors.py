# SPDX-License-Identifier: LGPL-2.1-or-later
"""GCuda's exception classes (PyCUDA's names) and the conversion of
GCuda's GErrors into them."""

import functools

from gi.module import get_introspection_module
from gi.repository import GLib

from . import OVERRIDE_MODULE

GCuda = get_introspection_module('GCuda')

__all__ = ['CudaError', 'LogicError', 'LaunchError', 'MemoryError', 'RuntimeError', 'CompileError',
           'error_category']


class CudaError(GLib.Error):
    """Base of every error GCuda raises (a GLib.Error, so ``except
    GLib.Error`` and ``e.matches(domain, code)`` keep working)."""

    __module__ = OVERRIDE_MODULE


class LogicError(CudaError):
    """The call was wrong: bad argument, bad state, use after free."""

    __module__ = OVERRIDE_MODULE


class LaunchError(CudaError):
    """A kernel launch failed or a kernel faulted."""

    __module__ = OVERRIDE_MODULE


class MemoryError(CudaError):  # noqa: A001 - PyCUDA's name
    """The device ran out of memory."""

    __module__ = OVERRIDE_MODULE


class RuntimeError(CudaError):  # noqa: A001 - PyCUDA's name
    """The environment is at fault: no driver, no device, hardware error."""

    __module__ = OVERRIDE_MODULE


class CompileError(CudaError):
    """NVRTC rejected the source; the message carries the compiler log."""

    __module__ = OVERRIDE_MODULE


# The introspected enumeration of NVRTC's codes is also called
# GCuda.CompileError: its members become the exception's class attributes,
# so GCuda.CompileError.COMPILATION still names the code.
for _name in dir(GCuda.CompileError):
    if _name.isupper() and isinstance(getattr(GCuda.CompileError, _name), GCuda.CompileError):
        setattr(CompileError, _name, getattr(GCuda.CompileError, _name))
del _name


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



def _library_error(code, message):
    """A GCuda.Error raised from Python, as the class _convert() gives it."""
    cls = RuntimeError if code in _RUNTIME_LIBRARY_CODES else LogicError
    return cls(message, _LIBRARY_DOMAIN, int(code))
