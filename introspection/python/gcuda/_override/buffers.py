# SPDX-License-Identifier: LGPL-2.1-or-later
"""GCuda.Buffer and GCuda.HostBuffer as PyCUDA's allocations: addresses,
sizes, numpy arrays and memoryviews over managed and host memory, IPC
handles and awaitable copies; device memory shared with other libraries
(__cuda_array_interface__, DLPack, GCuda.DeviceView, Buffer.from_foreign())."""

import operator

from gi.module import get_introspection_module
from gi.repository import GLib

from . import OVERRIDE_MODULE
from .aio import _awaitable, _ipc_handle_bytes
from .errors import _exact_integer, _library_error, _raising
from .interop import (_c_strides, _dlpack_method, _export_for_consumer, _extent, _device_ordinal, buffer_from_foreign,
                      cuda_array_interface, dlpack_device, stream_from_foreign)
from .views import (_array_over, _as_gbytes, _check_range, _export, _layout, _memoryview_over, _numpy,
                    _requested_interface, _uint64)

GCuda = get_introspection_module('GCuda')

__all__ = ['DeviceView']


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


# Launchers remember a buffer's address under ADDRESS (checked for no
# context) or ADDRESS plus a context's key (checked for its kernels:
# params._pointer_for); free() forgets them all.
ADDRESS = '_gcuda_address'


def _forget_addresses(obj):
    for key in [k for k in obj.__dict__ if k.startswith(ADDRESS)]:
        del obj.__dict__[key]


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

    # ---- sharing with other libraries (interop.py)

    @staticmethod
    def from_foreign(obj, context=None, stream=None, size=None):
        """A buffer borrowing the device memory of @obj without a copy,
        keeping @obj alive as long as the buffer lives (C's
        ``new_for_address()``; GCuda never frees it): anything with
        ``__cuda_array_interface__`` (CuPy, Numba, PyTorch) or
        ``__dlpack__`` on a CUDA device (PyTorch, CuPy, JAX), PyCUDA's
        ``PointerHolderBase`` (``get_pointer()``) or an object with
        ``gpudata``; a device address (int) with @size bytes (default: to
        the end of its allocation). The buffer covers every byte the array
        reaches. The producer's pending work is waited for as its protocol
        says: @stream (any stream: a GCuda.Stream, CuPy's or PyTorch's) is
        made to wait for it, or with None the legacy default stream (CAI:
        the host waits). A range past the allocation is
        GCuda.Error.INVALID_ARGUMENT."""
        return buffer_from_foreign(obj, context, stream, size)

    @property
    def export_stream(self):
        """The stream consumers of this memory must wait for
        (``__cuda_array_interface__['stream']``, and what ``__dlpack__``
        makes the consumer's stream wait for), or None when no GPU work on
        it is pending: GCuda's ``memcpy_*_async()``/``memset_*_async()``
        set it; set it yourself (any stream) after queuing a kernel that
        writes the buffer on a stream."""
        return self.__dict__.get('_gcuda_export_stream')

    @export_stream.setter
    def export_stream(self, stream):
        self.__dict__['_gcuda_export_stream'] = stream_from_foreign(stream)

    @property
    def __cuda_array_interface__(self):
        """The buffer's bytes as a flat uint8 device array (version 3):
        ``cupy.asarray(buf)`` and ``torch.as_tensor(buf, device='cuda')``
        share the memory, which stays allocated (free() only retires the
        buffer) as long as they hold this object. Typed arrays:
        device_view()."""
        _export_for_consumer(self)
        return cuda_array_interface(self.get_address(), (self.get_size(),), 'uint8',
                                    stream=self.export_stream)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack: the bytes as a flat uint8 tensor (``torch.from_dlpack(buf)``,
        ``cupy.from_dlpack(buf)``); the memory stays until the consumer
        releases it. @stream is the consumer's (see the DLPack protocol):
        it is made to wait for export_stream."""
        return _dlpack_method(self, self, self.get_address(), (self.get_size(),), 'uint8', None,
                              self.export_stream, False, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return dlpack_device(_device_ordinal(self))

    def device_view(self, shape=None, dtype='uint8', order='C', offset=0, strides=None, stream=None,
                    readonly=False):
        """A GCuda.DeviceView: the memory at @offset as a device array of
        @shape and @dtype (default: all of it to the end), C or Fortran
        @order or explicit byte @strides, for other libraries
        (``__cuda_array_interface__``, DLPack). No copy."""
        return DeviceView(self, shape, dtype, order, offset, strides, stream, readonly)

    @_raising
    def free(self):
        """Releases the memory now; later uses, a second free() included,
        raise GCuda.Error.FREED (as PyCUDA's free() does). Once numpy arrays
        or memoryviews were made over managed memory, the memory itself is
        released when this object goes, after the last of them."""
        _forget_addresses(self)  # the launchers' remembered addresses
        GCuda.Buffer.free(self)

    @_raising
    def close(self):
        """PyCUDA's ``IPCMemoryHandle.close()``: unmaps memory opened from
        another process's IPC handle (``IPCMemoryHandle``,
        ``from_ipc_handle()``). Closing again does nothing; any other use
        afterwards raises GCuda.Error.FREED. Only for IPC memory: other
        buffers are released with free() (GCuda.Error.INVALID_ARGUMENT)."""
        if self.get_kind() != GCuda.BufferKind.IPC:
            raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                                 'close() is for memory opened from an IPC handle; release a %s '
                                 'buffer with free()' % self.get_kind().value_nick)
        if not self.is_freed():
            self.free()

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


# The introspected memset_d8() ... memset_d32_2d() take the value as a
# double: the C twins gcuda_buffer_memset_d8_number ... take their place
# there, so that a JavaScript number that is no bit pattern of the width
# (1.5, NaN, -1, 256 for 8 bits) is an error rather than truncated by the
# binding. Here they take Python integers, checked as every integer
# parameter of GCuda's is (a float is a TypeError; out of range an
# OverflowError).

def _memset_method(bits, two_d):
    name = 'memset_d%d%s' % (bits, '_2d' if two_d else '')
    memset_number = getattr(GCuda.Buffer, name)
    high = 2 ** bits - 1
    index = operator.index

    if two_d:
        def memset(self, offset, pitch, value, width, height, stream=None):
            return memset_number(self, index(offset), index(pitch), _exact_integer(value, 0, high), index(width),
                                 index(height), stream)
        memset.__doc__ = 'Sets @height rows of @width %d-bit elements, @pitch bytes apart, to @value.' % bits
    else:
        def memset(self, offset, value, count, stream=None):
            return memset_number(self, index(offset), _exact_integer(value, 0, high), index(count), stream)
        memset.__doc__ = 'Sets @count %d-bit elements from @offset to @value.' % bits
    memset.__name__ = memset.__qualname__ = name
    return _raising(memset)


for _bits in (8, 16, 32):
    for _two_d in (False, True):
        _memset = _memset_method(_bits, _two_d)
        setattr(Buffer, _memset.__name__, _memset)
del _bits, _two_d, _memset


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

    def get_flags(self):
        """PyCUDA's get_flags(): the flags the memory was allocated
        (get_alloc_flags()) or registered (get_register_flags()) with, as
        an int."""
        return int(self.get_alloc_flags()) | int(self.get_register_flags())

    @_raising
    def free(self):
        """Releases the memory now; later uses, a second free() included,
        raise GCuda.Error.FREED (as PyCUDA's free() does). Once numpy arrays
        or memoryviews were made over the memory, the memory itself is
        released (a pooled block given back) when this object goes, after
        the last of them."""
        _forget_addresses(self)  # the launchers' remembered addresses
        GCuda.HostBuffer.free(self)

    @_raising
    def unregister(self):
        """Unregisters memory registered with register_host_memory()."""
        _forget_addresses(self)
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


class DeviceView:
    """Device memory of a GCuda.Buffer seen as a typed array by other
    libraries, without a copy: ``__cuda_array_interface__`` (version 3)
    and DLPack (``__dlpack__``, ``__dlpack_device__``). ``cupy.asarray(v)``,
    ``torch.as_tensor(v, device='cuda')``, ``torch.from_dlpack(v)`` and
    ``cupy.from_dlpack(v)`` share the memory and keep it allocated (the
    buffer's free() only retires it) until they release it.

    ``GCuda.DeviceView(buffer, shape, dtype, order='C', offset=0,
    strides=None, stream=None, readonly=False)`` or
    ``buffer.device_view(...)``: the bytes at @offset as an array of
    @shape and @dtype in C or Fortran @order, or with explicit @strides in
    bytes (negative ones too); every byte it reaches must lie in the
    buffer (else GCuda.Error.OUT_OF_BOUNDS). @stream: the stream consumers
    must wait for (default: the buffer's export_stream). get() copies the
    array to the host."""

    __slots__ = ('buffer', 'offset', 'shape', 'dtype', 'strides', 'readonly', '_stream', '__weakref__')
    __module__ = OVERRIDE_MODULE

    def __init__(self, buffer, shape=None, dtype='uint8', order='C', offset=0, strides=None, stream=None,
                 readonly=False):
        np = _numpy()
        if not isinstance(buffer, GCuda.Buffer):
            buffer = buffer_from_foreign(buffer)
        total = buffer.get_size()
        offset = _uint64(offset, 'offset')
        dtype = np.dtype(dtype)
        if shape is None:
            if offset > total:
                _check_range(total, offset, 0)
            shape = (total - offset) // dtype.itemsize
        if strides is None:
            shape, dtype, strides, _ = _layout(shape, dtype, order)
            strides = strides if strides is not None else _c_strides(shape, dtype.itemsize)
        else:
            shape = (operator.index(shape),) if not hasattr(shape, '__len__') else tuple(
                operator.index(n) for n in shape)
            if any(n < 0 for n in shape):
                raise ValueError('negative dimensions are not allowed')
            strides = tuple(operator.index(s) for s in strides)
            if len(strides) != len(shape):
                raise ValueError('%d strides for %d dimensions' % (len(strides), len(shape)))
            if dtype.hasobject:
                raise TypeError('GCuda memory cannot hold Python objects (dtype %s)' % dtype)
        low, size = _extent(shape, strides, dtype.itemsize)
        if size and (offset + low < 0 or offset + low + size > total):
            raise _library_error(GCuda.Error.OUT_OF_BOUNDS,
                                 'An array of shape %s and strides %s at offset %d reaches outside the buffer '
                                 'of %d bytes' % (shape, strides, offset, total))
        self.buffer = buffer
        self.offset = offset
        self.shape = tuple(shape)
        self.dtype = dtype
        self.strides = tuple(strides)
        self.readonly = bool(readonly)
        self._stream = stream_from_foreign(stream)

    def __repr__(self):
        return '<GCuda.DeviceView %s %s at 0x%x>' % (self.shape, self.dtype, self.ptr)

    @property
    def ptr(self):
        """The device address of the first element."""
        return self.buffer.get_address() + self.offset

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def stream(self):
        """The stream consumers wait for: the view's own, else the buffer's export_stream."""
        return self._stream if self._stream is not None else self.buffer.export_stream

    @property
    def __cuda_array_interface__(self):
        _export_for_consumer(self.buffer)
        return cuda_array_interface(self.ptr, self.shape, self.dtype, self.strides, self.stream, self.readonly)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return _dlpack_method(self, self.buffer, self.ptr, self.shape, self.dtype, self.strides, self.stream,
                              self.readonly, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return dlpack_device(_device_ordinal(self.buffer))

    def get(self):
        """A new numpy array with the view's data (waits for the view's
        stream first)."""
        np = _numpy()
        stream = self.stream
        if stream is not None:
            stream.synchronize()
        low, size = _extent(self.shape, self.strides, self.dtype.itemsize)
        result = np.empty(self.shape, self.dtype)
        if size == 0:
            return result
        raw = np.empty(size, np.uint8)
        self.buffer.download_to_address(self.offset + low, raw.__array_interface__['data'][0], size)
        base = np.ndarray(self.shape, self.dtype, buffer=raw, offset=-low, strides=self.strides)
        result[...] = base
        return result
