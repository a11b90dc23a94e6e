# SPDX-License-Identifier: LGPL-2.1-or-later
"""Memory pools: GCuda.MemoryPool and GCuda.HostMemoryPool with PyCUDA's
counters and a fast allocate(), and PyCUDA's DeviceMemoryPool and
PageLockedMemoryPool with their pooled allocations."""

import functools
import operator
import os
import sys

from gi.module import get_introspection_module

from . import OVERRIDE_MODULE
from .errors import LogicError, _library_error, _raising
from .native import _gobject_pointer
from .views import _array_at, _array_layout, _export, _numpy, _requested_interface

GCuda = get_introspection_module('GCuda')

__all__ = ['DeviceMemoryPool', 'PooledDeviceAllocation', 'PageLockedMemoryPool', 'PooledHostAllocation',
           'bitlog2']


# allocate() from a held block costs less than PyGObject's invoke and the
# error wrapper: it goes through the _gcuda_launch extension's pool calls
# when it has them (built with PyGObject's C API), which take the pool's
# GObject pointer (cached on the pool as _gcuda_pointer) and return the
# wrapper, or None for a failed or unusual call, which is then repeated
# through PyGObject to raise as before. GCUDA_PYTHON_FAST_LAUNCH=0 turns
# this off too.

_pool_fast_state = []  # [(pool_allocate, host_pool_allocate) or None], bound on first use


def _bind_fast_pools():
    """The extension's (pool_allocate, host_pool_allocate), or None."""
    if os.environ.get('GCUDA_PYTHON_FAST_LAUNCH', '') == '0' or sys.implementation.name != 'cpython':
        return None
    try:
        import _gcuda_launch
        calls = _gcuda_launch.pool_allocate, _gcuda_launch.host_pool_allocate
        _gobject_pointer(GCuda.JitOptions.new())  # the capsule API works
    except (ImportError, AttributeError, TypeError, ValueError):
        return None
    return calls


def _pool_binding():
    if not _pool_fast_state:
        _pool_fast_state.append(_bind_fast_pools())
    return _pool_fast_state[0]


def _pool_pointer(pool, cls):
    """@pool's GObject pointer, remembered on it; 0 (not remembered) when
    @pool is no @cls: PyGObject then raises the TypeError."""
    _pool_binding()
    if not isinstance(pool, cls):
        return 0
    try:
        ptr = _gobject_pointer(pool)
    except (AttributeError, TypeError, ValueError):
        ptr = 0
    pool._gcuda_pointer = ptr
    return ptr


def _fast_pool_method(slow, index, cls):
    """allocate(size) through the extension's call @index, else @slow."""
    def allocate(self, size):
        try:
            ptr = self._gcuda_pointer
        except AttributeError:
            ptr = _pool_pointer(self, cls)
        if ptr:
            calls = _pool_fast_state[0]
            if calls is not None:
                buf = calls[index](ptr, size)
                if buf is not None:
                    return buf
        return slow(self, size)

    # the introspected signature and docs; __wrapped__ is the PyGObject call
    return functools.wraps(slow)(allocate)


# GCuda.MemoryPool(context=None).allocate(n) returns a GCuda.Buffer whose
# free() (or garbage collection) gives the block back to the pool.
# GCuda.DeviceMemoryPool, PyCUDA's name, hands out PooledDeviceAllocation
# objects instead (below). Both introspected pools get PyCUDA's counter
# attributes (pool.held_blocks, ...) over the getters and the fast
# allocate(); no docstring, so PyGObject's (the constructors) stays.

class _PoolCounters:
    """PyCUDA's counter attributes over the getters both pools have."""

    __slots__ = ()

    held_blocks = property(lambda self: self.get_held_blocks())
    active_blocks = property(lambda self: self.get_active_blocks())
    managed_bytes = property(lambda self: self.get_managed_bytes())
    active_bytes = property(lambda self: self.get_active_bytes())
    max_held_bytes = property(lambda self: self.get_max_held_bytes(),
                              lambda self, value: self.set_max_held_bytes(value))
    bin_number = staticmethod(GCuda.MemoryPool.bin_number)
    alloc_size = staticmethod(GCuda.MemoryPool.alloc_size)


class MemoryPool(_PoolCounters, GCuda.MemoryPool):
    __module__ = OVERRIDE_MODULE

    allocate = _fast_pool_method(_raising(GCuda.MemoryPool.allocate), 0, GCuda.MemoryPool)


class HostMemoryPool(_PoolCounters, GCuda.HostMemoryPool):
    __module__ = OVERRIDE_MODULE

    allocate = _fast_pool_method(_raising(GCuda.HostMemoryPool.allocate), 1, GCuda.HostMemoryPool)


# PyCUDA's DeviceMemoryPool hands out PooledDeviceAllocation objects, not
# DeviceAllocations, and so does GCuda.DeviceMemoryPool: a block taken by
# address (gcuda_memory_pool_allocate_address) and held by a small Python
# object, since making a GObject and its PyGObject wrapper costs several
# times the pool's own work. A GCuda.Buffer is made only when something
# needs one (gcuda_memory_pool_adopt_address): copies, allocator=, the
# Buffer methods. With the _gcuda_launch extension the object is made, and
# its block given back when it goes, in C (a Python __del__ alone costs as
# much as the pool); without it, through PyGObject and a Python class.

def _pool_extension():
    """The _gcuda_launch extension when its pool calls may be used (not
    with GCUDA_PYTHON_FAST_LAUNCH=0), else None."""
    if os.environ.get('GCUDA_PYTHON_FAST_LAUNCH', '') == '0' or sys.implementation.name != 'cpython':
        return None
    try:
        import _gcuda_launch
        _gcuda_launch.PooledBlock, _gcuda_launch.pool_allocate_block
        _gobject_pointer(GCuda.JitOptions.new())  # the capsule API works
    except (ImportError, AttributeError, TypeError, ValueError):
        return None
    return _gcuda_launch


# chosen once: PooledDeviceAllocation derives from its PooledBlock
_pool_ext = _pool_extension()
# [(pool_allocate_block, pool_free_address) or None]: the allocation calls
# (tests set None to take the PyGObject path)
_pool_address_state = []


def _pool_address_calls():
    if not _pool_address_state:
        ext = _pool_ext
        _pool_address_state.append(None if ext is None else (ext.pool_allocate_block, ext.pool_free_address))
    return _pool_address_state[0]


def _freed_allocation(address):
    return _library_error(GCuda.Error.FREED, 'The pooled allocation at 0x%x was freed already' % address)


class _PooledCommon:
    """What PooledDeviceAllocation and PooledHostAllocation do, over the
    fields pool, size, _address, _live (the block is ours) and _buffer (the
    GCuda.Buffer or GCuda.HostBuffer it went to); _PinnedMethods adds the
    host blocks' _exported and _freed."""

    __slots__ = ()
    _buffer_type = GCuda.Buffer

    def __int__(self):
        return self._address

    __index__ = __int__

    def __len__(self):
        return self.size

    def __repr__(self):
        return '<GCuda.%s %d bytes at 0x%x%s>' % (
            type(self).__name__, self.size, self._address, ', freed' if self.is_freed() else '')

    def is_freed(self):
        if self._buffer is not None:
            return self._buffer.is_freed()
        return not self._live

    def free(self):
        """Gives the block back to the pool now."""
        if self._buffer is not None:
            self._buffer.free()  # FREED the second time
        elif not self._live:
            raise _freed_allocation(self._address)
        else:
            self._live = False
            self.pool._free_address(self._address)

    @property
    def buffer(self):
        """The GCuda.Buffer (GCuda.HostBuffer) of the block, made once; it
        owns the block from then on."""
        buf = self._buffer
        if buf is None:
            if not self._live:
                raise _freed_allocation(self._address)
            buf = self.pool.pool.adopt_address(self._address)
            self._live = False
            self._buffer = buf
        return buf

    def __getattr__(self, name):
        # the buffer's methods (get_size, upload, download, new_view...)
        if name.startswith('_') or not hasattr(self._buffer_type, name):
            raise AttributeError('%r object has no attribute %r' % (type(self).__name__, name))
        return getattr(self.buffer, name)


class _PooledMethods(_PooledCommon):
    __slots__ = ()

    @property
    def __cuda_array_interface__(self):
        if self.is_freed():
            raise _freed_allocation(self._address)
        return {'version': 3, 'shape': (self.size,), 'typestr': '|u1', 'data': (self._address, False)}


class _PinnedMethods(_PooledCommon):
    """A host block's fields also say whether numpy mapped it (_exported:
    set by the PinnedBlock's buffer export, or __array_interface__ without
    the extension) and whether free() was called on it then (_freed): the
    arrays may still be over it, so it goes back to the pool only with this
    object, after every one of them."""

    __slots__ = ()
    _buffer_type = GCuda.HostBuffer

    def is_freed(self):
        if self._buffer is not None:
            return self._buffer.is_freed()
        return self._freed or not self._live

    def free(self):
        """Gives the block back to the pool now, or, once numpy arrays were
        made over it, retires it now and gives it back when this object
        goes (after the last of them)."""
        if self._buffer is not None:
            self._buffer.free()  # FREED the second time
        elif self._freed or not self._live:
            raise _freed_allocation(self._address)
        elif self._exported:
            self._freed = True
        else:
            self._live = False
            self.pool._free_address(self._address)

    @property
    def buffer(self):
        """The GCuda.HostBuffer of the block, made once; it owns the block
        from then on (and the export, once arrays were made over it)."""
        buf = self._buffer
        if buf is None:
            if self._freed or not self._live:
                raise _freed_allocation(self._address)
            buf = self.pool.pool.adopt_address(self._address)
            self._live = False
            self._buffer = buf
            if self._exported:
                _export(buf)  # for the arrays over the block, which keep this object, which keeps buf
        return buf


_POOLED_DOC = """A block of a GCuda.DeviceMemoryPool (PyCUDA's
    ``PooledDeviceAllocation``): ``int(a)`` is its device address,
    ``a.size`` (and ``len(a)``) the size asked for, ``a.free()`` gives it
    back to the pool now, and dropping the last reference does later;
    freeing twice is GCuda.Error.FREED. It goes wherever GCuda takes a
    GCuda.Buffer (copies, kernel arguments, ``allocator=``); ``a.buffer`` is
    such a buffer, made on first use, which from then on owns the block, and
    the other GCuda.Buffer methods work on the allocation itself
    (``a.download(0, n)``). ``a.pool`` is the DeviceMemoryPool."""

_POOLED_HOST_DOC = """A block of a GCuda.PageLockedMemoryPool (PyCUDA's
    ``PooledHostAllocation``), the .base of the numpy array allocate()
    returns: ``int(a)`` is its address, ``a.size`` its size, dropping the
    array (and every view of it) gives it back to the pool; ``a.free()``
    retires it at once (GCuda calls on it are GCuda.Error.FREED, freeing
    twice too) but the block goes back only with this object, after the
    last array over it, which stays usable memory till then. ``a.buffer`` is a GCuda.HostBuffer of the block, made
    on first use (GCuda.get_host_buffer(ary) gives it too), which from then
    on owns the block. ``a.pool`` is the PageLockedMemoryPool."""

if _pool_ext is not None:
    class PooledDeviceAllocation(_PooledMethods, _pool_ext.PooledBlock):
        # made, and given back when it goes, by the extension
        __doc__ = _POOLED_DOC
        __module__ = OVERRIDE_MODULE
        __slots__ = ()

    def _new_allocation(pool, address, size):
        return _pool_ext.pool_block(PooledDeviceAllocation, pool, pool._pointer, address, size)

    class PooledHostAllocation(_PinnedMethods, _pool_ext.PinnedBlock):
        # made, given back, and its memory exported by the extension
        __doc__ = _POOLED_HOST_DOC
        __module__ = OVERRIDE_MODULE
        __slots__ = ()

    def _new_host_allocation(pool, address, size):
        return _pool_ext.pool_block(PooledHostAllocation, pool, pool._pointer, address, size)

    def _host_array(block, layout):
        return _numpy().ndarray(layout[0], layout[1], buffer=block, strides=layout[2])
else:
    class PooledDeviceAllocation(_PooledMethods):
        __doc__ = _POOLED_DOC
        __module__ = OVERRIDE_MODULE
        __slots__ = ('pool', 'size', '_address', '_live', '_buffer')

        def __del__(self):
            if self._live:
                self._live = False
                try:
                    self.pool._free_address(self._address)
                except Exception:  # at exit GCuda may be gone already
                    pass

    def _new_allocation(pool, address, size):
        a = object.__new__(PooledDeviceAllocation)
        a.pool, a.size, a._address, a._live, a._buffer = pool, size, address, True, None
        return a

    class PooledHostAllocation(_PinnedMethods):
        __doc__ = _POOLED_HOST_DOC
        __module__ = OVERRIDE_MODULE
        __slots__ = ('pool', 'size', '_address', '_live', '_buffer', '_exported', '_freed')
        __del__ = PooledDeviceAllocation.__del__

        @property
        def __array_interface__(self):
            interface = _requested_interface(self)  # _array_at() asking
            if interface is None:
                raise AttributeError('__array_interface__')
            self._exported = True
            return interface

    def _new_host_allocation(pool, address, size):
        a = object.__new__(PooledHostAllocation)
        a.pool, a.size, a._address, a._live, a._buffer = pool, size, address, True, None
        a._exported = a._freed = False
        return a

    def _host_array(block, layout):
        return _array_at(block, block._address, layout)


class _PoolFront:
    """PyCUDA's pool interface over the GCuda pool ``.pool``: the counters,
    free_held(), stop_holding() and the bin helpers."""

    def free_held(self):
        self.pool.free_held()

    def stop_holding(self):
        self.pool.stop_holding()

    def _free_address(self, address):
        """Through PyGObject: a block given back twice is FREED."""
        try:
            self.pool.free_address(address)
        except LogicError:
            raise _freed_allocation(address) from None

    held_blocks = property(lambda self: self.pool.get_held_blocks())
    active_blocks = property(lambda self: self.pool.get_active_blocks())
    managed_bytes = property(lambda self: self.pool.get_managed_bytes())
    active_bytes = property(lambda self: self.pool.get_active_bytes())
    max_held_bytes = property(lambda self: self.pool.get_max_held_bytes(),
                              lambda self, value: self.pool.set_max_held_bytes(value))
    bin_number = staticmethod(GCuda.MemoryPool.bin_number)
    alloc_size = staticmethod(GCuda.MemoryPool.alloc_size)


class DeviceMemoryPool(_PoolFront):
    """PyCUDA's ``DeviceMemoryPool`` over a GCuda.MemoryPool (``.pool``):
    ``allocate(n)`` returns a PooledDeviceAllocation. The counters
    (``held_blocks``, ``active_blocks``, ``managed_bytes``,
    ``active_bytes``, ``max_held_bytes``), ``free_held()`` and
    ``stop_holding()`` are the GCuda.MemoryPool's."""

    __module__ = OVERRIDE_MODULE

    def __init__(self, context=None):
        self.pool = MemoryPool(context=context)
        self._pointer = _gobject_pointer(self.pool) if _pool_ext is not None else 0
        calls = _pool_address_calls()
        self._allocate, self._free = calls if calls is not None else (None, None)

    def allocate(self, size):
        """A PooledDeviceAllocation of @size bytes (at least 1)."""
        fast = self._allocate
        if fast is not None and type(size) is int:
            a = fast(PooledDeviceAllocation, self, self._pointer, size)
            if a is not None:
                return a
        # the checked way, which raises what PyGObject raises
        address = self.pool.allocate_address(size)
        return _new_allocation(self, address, operator.index(size))

    def _free_address(self, address):
        free = self._free
        if free is None or not free(self._pointer, address):
            _PoolFront._free_address(self, address)

    def get_context(self):
        return self.pool.get_context()


class PageLockedMemoryPool(_PoolFront):
    """A pool of page-locked host memory (PyCUDA's ``PageLockedMemoryPool``):
    ``allocate(shape, dtype, order='C')`` returns a numpy array whose .base
    is a PooledHostAllocation; the block goes back to the pool when the
    array (and every view of it) is gone; ``ary.base.free()`` retires it at
    once, but the block goes back only then too. @flags are
    GCuda.HostAllocFlags. The GCuda.HostMemoryPool is ``.pool``."""

    __module__ = OVERRIDE_MODULE

    def __init__(self, flags=0, context=None):
        self.pool = HostMemoryPool.new(context, GCuda.HostAllocFlags(int(flags)))
        self._pointer = _gobject_pointer(self.pool) if _pool_ext is not None else 0
        calls = _pool_address_calls()
        self._allocate = _pool_ext.host_pool_allocate_block if calls is not None else None
        self._free = None  # the extension's blocks give themselves back

    @_raising
    def allocate(self, shape, dtype, order='C'):
        layout = _array_layout(shape, dtype, order)
        nbytes = layout[3] or 1
        fast = self._allocate
        block = fast(PooledHostAllocation, self, self._pointer, nbytes) if fast is not None else None
        if block is None:
            # the checked way, which raises what PyGObject raises
            block = _new_host_allocation(self, self.pool.allocate_address(nbytes), nbytes)
        return _host_array(block, layout)


def bitlog2(value):
    """PyCUDA's ``bitlog2()``: the position of the highest set bit (0 for 0)."""
    return GCuda.bitlog2(operator.index(value))
