# SPDX-License-Identifier: LGPL-2.1-or-later
"""GCuda's exception classes (PyCUDA's names) and the conversion of
GCuda's GErrors into them."""

import functools
import operator

from gi.module import get_introspection_module
from gi.repository import GLib

from . import OVERRIDE_MODULE

GCuda = get_introspection_module('GCuda')

__all__ = ['CudaError', 'LogicError', 'LaunchError', 'MemoryError', 'RuntimeError', 'CompileError',
           'error_category']


class CudaError(GLib.Error):
    """Base of every error GCuda raises (a GLib.Error, so ``except
    GLib.Error`` and ``e.matches(domain, code)`` keep working).

    ``str(e)`` is the message, which for a driver error names the call and
    the CUresult ("cuModuleLoad failed: CUDA_ERROR_NOT_FOUND (named symbol
    not found)"), rather than GLib's "gcuda-driver-error-quark: ... (500)";
    ``e.domain`` and ``e.code`` are still there."""

    __module__ = OVERRIDE_MODULE

    def __str__(self):
        message = self.message
        if self.domain == _DRIVER_DOMAIN:
            name = GCuda.driver_error_get_name(self.code)
            if name and name not in message:
                message = '%s: %s' % (name, message)
        return message


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
    """NVRTC rejected the source; the message carries the compiler log.

    PyCUDA's attributes: ``msg`` (the message's first line), ``stderr``
    (NVRTC's log: the rest of the message), ``stdout`` ('': NVRTC writes
    none) and ``command_line`` (the NVRTC options as a command line when the
    compile call knows them, else None); each may also be assigned."""

    __module__ = OVERRIDE_MODULE

    def _part(self, name, compute):
        value = self.__dict__.get(name)
        return compute() if value is None else value

    msg = property(lambda self: self._part('msg', lambda: self.message.split('\n', 1)[0]),
                   lambda self, value: self.__dict__.__setitem__('msg', value))
    stderr = property(lambda self: self._part('stderr', lambda: (self.message.split('\n', 1) + [''])[1]),
                      lambda self, value: self.__dict__.__setitem__('stderr', value))
    stdout = property(lambda self: self._part('stdout', lambda: ''),
                      lambda self, value: self.__dict__.__setitem__('stdout', value))
    command_line = property(lambda self: self.__dict__.get('command_line'),
                            lambda self, value: self.__dict__.__setitem__('command_line', value))


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
                          GCuda.Error.NOT_SUPPORTED, GCuda.Error.NCCL_NOT_FOUND, GCuda.Error.NCCL)


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
        __tracebackhide__ = True  # noqa: F841 (pytest leaves the frame out)
        try:
            return fn(*args, **kwargs)
        except GLib.Error as e:
            converted = _convert(e)
            if converted is e:
                raise
            # without the GError's traceback (this frame again): the caller
            # sees one frame of GCuda's, the raise
            raise converted.with_traceback(None) from None
    return wrapper



# PyGObject converts a float given for an integer parameter by truncating it
# (Device.get(0.5) is device 0) and cuts a str at an embedded NUL (the id
# before it is looked up). GCuda's introspected methods and functions are
# wrapped (see gi/overrides/GCuda.py) so that their integer parameters take
# what operator.index() takes (int, bool, numpy integers: a float is a
# TypeError) and their str parameters refuse NUL (ValueError), as Python's
# own calls do. GObject properties (GObject.new(..., prop=1.5), obj.props.x
# = 1.5) stay PyGObject's conversions.

_INT_TAGS = frozenset(('gint8', 'guint8', 'gint16', 'guint16', 'gint32', 'guint32', 'gint64', 'guint64'))
_STR_TAGS = frozenset(('utf8', 'filename'))


def _check_int(value):
    if value.__class__ is not int and value is not None:
        operator.index(value)  # TypeError: 'float' object cannot be interpreted as an integer


def _exact_integer(value, low, high):
    """@value as an int from @low to @high: what operator.index() takes (a
    float is a TypeError), out of range an OverflowError in PyGObject's
    words. For the setters introspected with a double (for GJS's numbers)
    whose Python form takes integers exactly."""
    value = operator.index(value)
    if not low <= value <= high:
        raise OverflowError('%d not in range %d to %d' % (value, low, high))
    return value


def _check_str(value):
    if isinstance(value, (str, bytes)) and ('\0' if isinstance(value, str) else b'\0') in value:
        raise ValueError('embedded null character')


def _check_strv(value):
    if isinstance(value, (list, tuple)):
        for item in value:
            _check_str(item)


def _argument_checks(info):
    """(position, name, check) for each parameter of the callable @info that
    PyGObject would convert loosely; positions as Python sees them (self
    first for a method; out, length and destroy arguments hidden)."""
    from gi import _gi

    args = info.get_arguments()
    hidden = set()
    for arg in args:
        hidden.add(arg.get_destroy())
        hidden.add(arg.get_type().get_array_length())
    checks = []
    position = 1 if info.is_method() else 0
    for i, arg in enumerate(args):
        if arg.get_direction() == _gi.Direction.OUT or i in hidden:
            continue
        gi_type = arg.get_type()
        tag = gi_type.get_tag_as_string()
        check = None
        if tag in _INT_TAGS:
            check = _check_int
        elif tag in _STR_TAGS:
            check = _check_str
        elif tag == 'array' and gi_type.get_param_type(0).get_tag_as_string() in _STR_TAGS:
            check = _check_strv
        if check is not None:
            checks.append((position, arg.get_name(), check))
        position += 1
    return tuple(checks)


def _checking(info, fn, throws):
    """@fn (the introspected callable of @info) with its integer and string
    arguments checked (see above) and, when @throws, GCuda's GErrors raised
    as CudaError subclasses; @fn itself when there is nothing to do."""
    checks = _argument_checks(info)
    if not checks:
        return _raising(fn) if throws else fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        n = len(args)
        for position, name, check in checks:
            value = args[position] if position < n else kwargs.get(name)
            if value.__class__ is not int:  # the common case costs no call
                check(value)
        __tracebackhide__ = True  # noqa: F841
        if not throws:
            return fn(*args, **kwargs)
        try:
            return fn(*args, **kwargs)
        except GLib.Error as e:
            converted = _convert(e)
            if converted is e:
                raise
            raise converted.with_traceback(None) from None
    return wrapper


def _library_error(code, message):
    """A GCuda.Error raised from Python, as the class _convert() gives it."""
    cls = RuntimeError if code in _RUNTIME_LIBRARY_CODES else LogicError
    return cls(message, _LIBRARY_DOMAIN, int(code))
