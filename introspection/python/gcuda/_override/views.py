# SPDX-License-Identifier: LGPL-2.1-or-later
"""numpy arrays and memoryviews over GCuda memory, without copies, and
host memory seen through its address."""

import ctypes
import math
import operator
import os
import sys
import threading

from gi.module import get_introspection_module
from gi.repository import GLib

from .errors import _convert, _library_error

GCuda = get_introspection_module('GCuda')

# Device memory (GCuda.Buffer) and host memory (GCuda.HostBuffer) meet
# numpy through addresses only: arrays are made over the memory itself
# (numpy's __array_interface__ pointing at the address), never copied
# element by element, and their .base is the GCuda object, which keeps the
# memory alive as long as any array or view of it: the object holds an
# export of the memory (_export()), so neither free() nor the context's
# destroy() releases it under them.

__all__ = []


_UINT64_MAX = (1 << 64) - 1


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


_numpy_module = []


def _numpy():
    if not _numpy_module:
        import numpy  # imported on first use: only arrays need it
        _numpy_module.append(numpy)
    return _numpy_module[0]


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

# (shape, dtype, order) -> [shape, dtype, strides, nbytes, interface without
# 'data', whether numpy's array needs .view(dtype): None until checked once],
# for shapes of plain ints: numpy maps a layout the same way at any address,
# so _layout() and the in-place check run once per layout (pool arrays).
_array_layouts = {}
_ARRAY_LAYOUTS_MAX = 512


def _array_layout(shape, dtype, order='C'):
    try:
        key = (shape, dtype, order)
        entry = _array_layouts.get(key)
    except TypeError:  # unhashable: a list shape, a dict dtype
        key = entry = None
    # (2.0, 3) == (2, 3), but only ints are dimensions: the checked way for
    # anything else raises as before
    if entry is not None and (type(shape) is int or (type(shape) is tuple and all(type(n) is int for n in shape))):
        return entry
    shape_, dtype_, strides, nbytes = _layout(shape, dtype, order)
    interface = {'version': 3, 'shape': shape_, 'typestr': dtype_.str, 'strides': strides}
    if dtype_.fields is not None:
        interface['descr'] = dtype_.descr
    entry = [shape_, dtype_, strides, nbytes, interface, None]
    if key is not None and len(_array_layouts) < _ARRAY_LAYOUTS_MAX and (
            type(shape) is int or (type(shape) is tuple and all(type(n) is int for n in shape))):
        _array_layouts[key] = entry
    return entry


# the introspected calls themselves: _export() converts their errors
_EXPORT_BEGIN = {GCuda.HostBuffer: GCuda.HostBuffer.export_begin, GCuda.Buffer: GCuda.Buffer.export_begin}
_UNKNOWN = object()
_export_fast_state = []  # [the _gcuda_launch extension's export_memory, or None]


def _export_fast():
    """The extension's export_memory (one C call, the export's mark kept on
    the GObject), or None: not built with PyGObject's C API, another Python,
    or GCUDA_PYTHON_FAST_LAUNCH=0."""
    if not _export_fast_state:
        call = None
        if os.environ.get('GCUDA_PYTHON_FAST_LAUNCH', '') != '0' and sys.implementation.name == 'cpython':
            try:
                import _gcuda_launch
                call = _gcuda_launch.export_memory
            except (ImportError, AttributeError):
                pass
        _export_fast_state.append(call)
    return _export_fast_state[0]


def _export(owner):
    """Makes @owner's export (GCuda.HostBuffer.export_begin(),
    GCuda.Buffer.export_begin()) before Python hands out its memory: one
    per Python object, never ended, since every numpy array, memoryview
    and __array_interface__ user keeps the object alive. The object then
    goes after all of them, and its last reference going ends the export:
    free() and the context's destroy() leave the memory to that moment.
    Memory of a destroyed context (page-locked or device memory) raises
    CONTEXT_DESTROYED, for the first view as for later ones; the callers
    check FREED. The extension's export_memory() does it all in C when it
    can (and answers None to let the code below raise)."""
    fast = _export_fast_state[0] if _export_fast_state else _export_fast()
    if fast is not None and fast(owner):
        return
    state = owner.__dict__
    context = state.get('_gcuda_export_context', _UNKNOWN)
    if context is _UNKNOWN:
        if '_gcuda_exported' not in state:
            try:
                _EXPORT_BEGIN[GCuda.HostBuffer if isinstance(owner, GCuda.HostBuffer) else GCuda.Buffer](owner)
            except GLib.Error as e:
                raise _convert(e).with_traceback(None) from None
            state['_gcuda_exported'] = True
            return
        # a later view: the context its memory goes with, found once
        is_host = isinstance(owner, GCuda.HostBuffer)
        context = owner.get_context() if not is_host or owner.get_kind() == GCuda.HostBufferKind.PAGELOCKED else None
        state['_gcuda_export_context'] = context
    if context is not None and context.is_destroyed():
        raise _library_error(GCuda.Error.CONTEXT_DESTROYED,
                             'The context of the memory at 0x%x was destroyed (Context.destroy())' % owner.get_address())


def _array_over(owner, address, shape, dtype, order='C', readonly=False):
    """A numpy array over the memory at @address (no copy) whose .base is
    @owner, a GCuda.Buffer or GCuda.HostBuffer: numpy reads @owner's
    __array_interface__, which answers this request. @owner's export is
    made first (_export(), its fast path inline: pagelocked_empty() comes here)."""
    fast = _export_fast_state[0] if _export_fast_state else _export_fast()
    if fast is None or not fast(owner):
        _export(owner)
    return _array_at(owner, address, _array_layout(shape, dtype, order), readonly)


def _array_at(owner, address, layout, readonly=False):
    """_array_over() with the layout from _array_layout()."""
    interface = layout[4].copy()
    interface['data'] = (address, bool(readonly))
    _array_request.pending = (owner, interface)
    try:
        ary = _numpy().asarray(owner)
    finally:
        _array_request.pending = None
    view = layout[5]
    if view is None:
        dtype, nbytes = layout[1], layout[3]
        view = ary.dtype != dtype  # a structured dtype numpy's descr does not carry whole
        if view:
            ary = ary.view(dtype)
        if ary.__array_interface__['data'][0] != address or ary.nbytes != nbytes:
            raise AssertionError('numpy did not map GCuda memory in place')
        layout[5] = view
    elif view:
        ary = ary.view(layout[1])
    return ary


def _requested_interface(owner):
    pending = getattr(_array_request, 'pending', None)
    if pending is not None and pending[0] is owner:
        return pending[1]
    return None


def _memoryview_over(owner, address, size):
    """A writable memoryview of @size bytes at @address (no copy) that
    keeps @owner alive, once @owner's export is made (_export())."""
    fast = _export_fast_state[0] if _export_fast_state else _export_fast()
    if fast is None or not fast(owner):
        _export(owner)
    holder = (ctypes.c_ubyte * size).from_address(address)
    holder._gcuda_object = owner
    return memoryview(holder).cast('B')


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


def _zero(address, nbytes):
    if nbytes:
        ctypes.memset(address, 0, nbytes)
