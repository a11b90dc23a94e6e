# SPDX-License-Identifier: LGPL-2.1-or-later
"""GCuda.Buffer and GCuda.HostBuffer as PyCUDA's allocations: addresses,
sizes, numpy arrays and memoryviews over managed and host memory, IPC
handles and awaitable copies."""

from gi.module import get_introspection_module
from gi.repository import GLib

from . import OVERRIDE_MODULE
from .aio import _awaitable, _ipc_handle_bytes
from .errors import _library_error, _raising
from .views import (_array_over, _as_gbytes, _check_range, _export, _layout, _memoryview_over, _numpy,
                    _requested_interface, _uint64)

GCuda = get_introspection_module('GCuda')

__all__ = []


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
    if hb.get_size() == 0:  # made by hand (GObject.new()): no memory behind it
        raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                             'This GCuda.HostBuffer was made without memory: allocate it with pagelocked_empty()')
    if hb.is_freed():
        raise _library_error(GCuda.Error.FREED,
                             'The host buffer at 0x%x was freed or unregistered' % hb.get_address())


class _Memory:
    """What Buffer and HostBuffer share: int() is the address, len() the
    size, and numpy reads the bytes of host memory (an export: see
    views.py) through __array_interface__."""

    __slots__ = ()

    def __int__(self):
        return self.get_address()

    def __len__(self):
        return self.get_size()

    def __repr__(self):
        return '<%s %s, %d bytes at 0x%x%s>' % (
            self._repr_name, self.get_kind().value_nick, self.get_size(), self.get_address(),
            ', freed' if self.is_freed() else '')

    @property
    def __array_interface__(self):
        interface = _requested_interface(self)
        if interface is not None:
            return interface
        refusal = self._not_host_memory()
        if refusal is not None:
            raise AttributeError('__array_interface__: ' + refusal)
        try:
            _export(self)
        except GLib.Error as e:  # numpy reads an AttributeError as no interface
            raise AttributeError('__array_interface__: %s' % e.message) from None
        return {'version': 3, 'shape': (self.get_size(),), 'typestr': '|u1',
                'data': (self.get_address(), False)}


class Buffer(_Memory, GCuda.Buffer):
    """Device memory (PyCUDA's ``DeviceAllocation``). ``int(buf)`` is the
    device address and ``len(buf)`` the size in bytes; ``free()`` releases
    it now. Managed memory is host memory too: ``buf.as_array(shape,
    dtype)`` and ``buf.as_buffer(size, offset)`` map it as a numpy array
    or memoryview (no copy), and ``numpy.asarray(buf)`` gives its bytes;
    from the first of them on, the memory stays until the buffer object
    goes (after all of them): ``free()`` and the context's ``destroy()``
    retire it at once but never release it under an array.
    ``await buf.download_async(offset, size)`` and ``await
    buf.upload_async(offset, data)`` work from asyncio."""

    __module__ = OVERRIDE_MODULE
    _repr_name = 'GCuda.Buffer'

    def _not_host_memory(self):
        if self.is_freed() or _root_buffer(self).get_kind() != GCuda.BufferKind.MANAGED:
            return 'only managed memory is host memory'
        return None

    def get_device_pointer(self):
        """PyCUDA's ``ManagedAllocation.get_device_pointer()``: the address,
        the same on the host and the device for managed memory."""
        return self.get_address()

    @_raising
    def free(self):
        """Releases the memory now; later uses, a second free() included,
        raise GCuda.Error.FREED (as PyCUDA's free() does). Once numpy arrays
        or memoryviews were made over managed memory, the memory itself is
        released when this object goes, after the last of them."""
        self.__dict__.pop('_gcuda_address', None)  # the launchers' cached address
        GCuda.Buffer.free(self)

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
        return Buffer.open_ipc_handle(context, _ipc_handle_bytes(handle))

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


class HostBuffer(_Memory, GCuda.HostBuffer):
    """Page-locked, aligned or registered host memory (PyCUDA's
    ``PagelockedHostAllocation``, ``AlignedHostAllocation``,
    ``RegisteredHostMemory``). ``int(hb)`` is the host address and
    ``len(hb)`` the size; ``hb.as_array(shape, dtype)`` and
    ``hb.as_buffer(size, offset)`` map it without a copy, and
    ``numpy.asarray(hb)`` gives its bytes; from the first of them on, the
    memory stays until the host buffer object goes (after all of them):
    ``free()`` and the context's ``destroy()`` retire it at once but never
    release it under an array. Registered memory has ``base``: the array
    it was registered from."""

    __module__ = OVERRIDE_MODULE
    _repr_name = 'GCuda.HostBuffer'

    def _not_host_memory(self):
        return 'the host buffer was freed' if self.is_freed() else None

    def get_device_pointer(self):
        """PyCUDA's name for get_device_address() (DEVICEMAP memory)."""
        return self.get_device_address()

    @_raising
    def free(self):
        """Releases the memory now; later uses, a second free() included,
        raise GCuda.Error.FREED (as PyCUDA's free() does). Once numpy arrays
        or memoryviews were made over the memory, the memory itself is
        released (a pooled block given back) when this object goes, after
        the last of them."""
        self.__dict__.pop('_gcuda_address', None)  # the launchers' cached address
        GCuda.HostBuffer.free(self)

    @_raising
    def unregister(self):
        """Unregisters memory registered with register_host_memory()."""
        self.__dict__.pop('_gcuda_address', None)
        return GCuda.HostBuffer.unregister(self)

    def as_buffer(self, size=None, offset=0):
        """A writable memoryview of @size bytes (default: to the end) at
        @offset, without a copy, that keeps the host buffer alive. A range
        outside is GCuda.Error.OUT_OF_BOUNDS, freed memory FREED, page-locked
        memory of a destroyed context CONTEXT_DESTROYED."""
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
