# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyCUDA's memory functions: allocation, copies between host and device
memory, memsets, and numpy arrays in page-locked, aligned and managed
memory."""

import ctypes
import numbers
import operator

from gi.module import get_introspection_module

from .buffers import Buffer, HostBuffer
from .errors import _library_error, _raising
from .interop import _borrow, _c_strides, _dtype_of_interface, _foreign_layout, stream_from_foreign, stream_handle
from .pools import PooledDeviceAllocation, _PooledCommon
from .views import _array_over, _host, _layout, _numpy, _order_of, _zero

GCuda = get_introspection_module('GCuda')

__all__ = ['mem_alloc', 'mem_alloc_pitch', 'mem_get_ipc_handle', 'to_device', 'from_device',
           'from_device_like', 'memcpy_htod', 'memcpy_htod_async', 'memcpy_dtoh', 'memcpy_dtoh_async',
           'memcpy_dtod', 'memcpy_dtod_async', 'memcpy_peer', 'memcpy_peer_async',
           'memset_d8', 'memset_d8_async', 'memset_d2d8', 'memset_d2d8_async',
           'memset_d16', 'memset_d16_async', 'memset_d2d16', 'memset_d2d16_async',
           'memset_d32', 'memset_d32_async', 'memset_d2d32', 'memset_d2d32_async',
           'pagelocked_empty', 'pagelocked_zeros', 'pagelocked_empty_like', 'pagelocked_zeros_like',
           'aligned_empty', 'aligned_zeros', 'aligned_empty_like', 'aligned_zeros_like',
           'managed_empty', 'managed_zeros', 'managed_empty_like', 'managed_zeros_like',
           'register_host_memory', 'get_host_buffer', 'get_buffer']


# Device pointers are GCuda.Buffer objects, pooled allocations, plain
# integer device addresses (PyCUDA's int(buf) + offset; np.intp too) or
# other libraries' device arrays (CuPy, PyTorch, Numba: anything
# interop.py's foreign_memory() knows). Addresses and foreign arrays are
# borrowed for the call with GCuda.Buffer.new_for_address(), which checks
# the range against the driver's allocation, so an address inside a live
# allocation cannot reach past its end; memory the driver does not know is
# GCuda.Error.INVALID_ARGUMENT where PyCUDA's driver call would fail. Host
# memory is a numpy array or any object with the buffer protocol, copied
# from and into in place through its address.

def _device(obj, what, nbytes, stream=None):
    """The GCuda.Buffer @obj stands for; an address is borrowed for @nbytes
    bytes, a foreign array for all of it (it must be contiguous). None when
    there is nothing to borrow (0 bytes: the call has nothing to do, as
    PyCUDA's driver call would do nothing). @stream: the stream the call
    will use, which a foreign producer's pending work is ordered before."""
    if isinstance(obj, GCuda.Buffer):
        return obj
    if isinstance(obj, PooledDeviceAllocation):
        return obj.buffer
    if isinstance(obj, numbers.Integral) and not isinstance(obj, bool):
        if nbytes == 0:
            return None
        return _borrow_address(operator.index(obj), nbytes)
    layout = _foreign_layout(obj, stream_handle(stream))
    if layout is None:
        raise TypeError('%s must be a GCuda.Buffer, a device address (int) or a device array '
                        '(__cuda_array_interface__, __dlpack__, get_pointer(), gpudata), not %s'
                        % (what, type(obj).__name__))
    if not layout.contiguous:
        raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                             '%s is not contiguous: copies and memsets take one block of memory' % what)
    address, size = layout.extent()
    if size == 0:
        return None
    return _borrow(None, address, size, layout.keepalive)


def _borrow_address(address, nbytes):
    return Buffer.new_for_address(None, address, nbytes, None, None)


def _stream(stream):
    """@stream as a GCuda.Stream: None, a GCuda.Stream, or another library's
    stream (CuPy, PyTorch, __cuda_stream__, a handle), borrowed."""
    return stream_from_foreign(stream)


def _note_stream(obj, buf, stream):
    """Remembers @stream as the export stream of a GCuda.Buffer the caller
    passed (what __cuda_array_interface__ and __dlpack__ name)."""
    if stream is not None and isinstance(obj, GCuda.Buffer):
        obj.__dict__['_gcuda_export_stream'] = stream


def _check_context(buf, context, what):
    if context is not None and buf.get_context() != context:
        raise _library_error(GCuda.Error.CONTEXT_MISMATCH, '%s does not belong to the context given' % what)


def _allocate(nbytes, context, allocator):
    """Buffer.new(), or @allocator(nbytes) checked: a GCuda.Buffer of at
    least @nbytes bytes (of @context when one is given)."""
    if allocator is None:
        return Buffer.new(context, nbytes)
    buf = allocator(nbytes)
    if isinstance(buf, PooledDeviceAllocation):
        buf = buf.buffer  # which owns the block from now on
    if not isinstance(buf, GCuda.Buffer):
        raise TypeError('allocator returned %s, not a GCuda.Buffer' % type(buf).__name__)
    if buf.get_size() < nbytes:
        raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'allocator returned %d bytes for a request of %d'
                             % (buf.get_size(), nbytes))
    _check_context(buf, context, 'the allocator\'s buffer')
    return buf


@_raising
def mem_alloc(nbytes, context=None, allocator=None):
    """Device memory of @nbytes bytes (PyCUDA's ``mem_alloc()``): a
    GCuda.Buffer. 0 bytes is GCuda.Error.INVALID_ARGUMENT; more than the
    device has, GCuda.MemoryError (DriverError.OUT_OF_MEMORY).
    @allocator, as in PyCUDA's gpuarray, is a callable taking a byte count
    and returning a GCuda.Buffer or a PooledDeviceAllocation (e.g.
    GCuda.DeviceMemoryPool().allocate, GCuda.MemoryPool().allocate)."""
    return _allocate(operator.index(nbytes), context, allocator)


@_raising
def mem_alloc_pitch(width, height, access_size, context=None):
    """(buffer, pitch): @height rows of at least @width bytes, padded for
    coalesced access by elements of @access_size (4, 8 or 16) bytes."""
    buf = Buffer.new_pitched(context, operator.index(width), operator.index(height), operator.index(access_size))
    return buf, buf.get_pitch()


@_raising
def mem_get_ipc_handle(devptr):
    """The IPC handle of a device allocation, as bytes."""
    return _device(devptr, 'devptr', 1).ipc_handle()


def _device_source(ary):
    """(buffer, nbytes) when @ary is device memory (a GCuda.Buffer or a
    foreign device array), else None."""
    if isinstance(ary, (GCuda.Buffer, PooledDeviceAllocation)):
        buf = _device(ary, 'ary', 0)
        return buf, buf.get_size()
    if isinstance(ary, numbers.Integral):
        return None
    layout = _foreign_layout(ary)
    if layout is None:
        return None
    if not layout.contiguous:
        raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'ary is not contiguous: to_device() copies one block')
    address, size = layout.extent()
    return (_borrow(None, address, size, layout.keepalive) if size else None), size


@_raising
def to_device(ary, context=None, allocator=None):
    """A new GCuda.Buffer holding a copy of @ary (a numpy array or any
    buffer), uploaded from its memory in place. A non-contiguous array is
    first made contiguous (C order), which copies it once on the host.
    Device memory (a GCuda.Buffer, a CuPy or PyTorch array: see
    GCuda.Buffer.from_foreign()) is copied on the device; it must be
    contiguous. @allocator: as for mem_alloc(); the copy is synchronous on
    the legacy default stream, so a GCuda.StreamPool's buffer must be
    allocated on a blocking stream (flags 0) or the legacy stream."""
    source = _device_source(ary)
    if source is not None:
        src, nbytes = source
        buf = _allocate(nbytes, context, allocator)
        if src is not None:
            buf.copy_from(0, src, 0, nbytes)
        return buf
    ary, address, nbytes = _host(ary, 'ary', False)
    buf = _allocate(nbytes, context, allocator)
    buf.upload_from_address(0, address, nbytes)
    return buf


@_raising
def from_device(devptr, shape, dtype, order='C'):
    """A new numpy array of @shape, @dtype and @order filled from the start
    of @devptr (a GCuda.Buffer, a device address or a device array of
    another library), downloaded straight into the array."""
    np = _numpy()
    shape, dtype, _, nbytes = _layout(shape, dtype, order)
    src = _device(devptr, 'devptr', nbytes)
    result = np.empty(shape, dtype, order=order)
    if src is not None:
        src.download_to_address(0, result.__array_interface__['data'][0], nbytes)
    return result


def _host_like(other):
    """(shape, dtype, order) of @other: a numpy array or anything numpy
    reads, or a device array of another library (its
    __cuda_array_interface__, or shape and dtype attributes)."""
    np = _numpy()
    interface = None
    if not isinstance(other, np.ndarray):
        try:
            interface = getattr(other, '__cuda_array_interface__', None)
        except Exception:  # noqa: BLE001 - e.g. PyTorch's for a tensor that requires grad
            interface = None
    if interface is not None:
        shape = tuple(interface['shape'])
        dtype = _dtype_of_interface(interface)
        strides = interface.get('strides')
        order = 'C'
        if strides is not None and tuple(strides) != _c_strides(shape, dtype.itemsize) and len(shape) > 1:
            order = 'F'
        return shape, dtype, order
    other = np.asarray(other)
    return other.shape, other.dtype, _order_of(other)


@_raising
def from_device_like(devptr, other_ary):
    """from_device() with @other_ary's shape, dtype and order (@other_ary
    may be a device array of another library too)."""
    shape, dtype, order = _host_like(other_ary)
    return from_device(devptr, shape, dtype, order)


@_raising
def memcpy_htod(dest, src):
    """Copies all of @src (host memory) to the start of @dest (a
    GCuda.Buffer, a device address or a device array of another library)
    and returns when done."""
    ary, address, nbytes = _host(src, 'src', False)
    buf = _device(dest, 'dest', nbytes)
    if buf is not None:
        buf.upload_from_address(0, address, nbytes)


@_raising
def memcpy_htod_async(dest, src, stream=None):
    """Queues a copy of all of @src to @dest on @stream (None: the legacy
    default stream; a GCuda.Stream or another library's stream). From
    page-locked memory (pagelocked_empty(), register_host_memory()) it is
    truly asynchronous and @src must stay alive and unchanged until the
    stream has done it; from pageable memory the call returns once the
    data has been staged."""
    ary, address, nbytes = _host(src, 'src', False)
    stream = _stream(stream)
    buf = _device(dest, 'dest', nbytes, stream)
    if buf is not None:
        buf.upload_from_address_on_stream(0, address, nbytes, stream)
        _note_stream(dest, buf, stream)


@_raising
def memcpy_dtoh(dest, src):
    """Fills all of @dest (writable, contiguous host memory) from the start
    of @src (a GCuda.Buffer, a device address or a device array of another
    library) and returns when done."""
    ary, address, nbytes = _host(dest, 'dest', True)
    buf = _device(src, 'src', nbytes)
    if buf is not None:
        buf.download_to_address(0, address, nbytes)


@_raising
def memcpy_dtoh_async(dest, src, stream=None):
    """Queues a copy from @src into all of @dest on @stream. Into page-locked
    memory it is truly asynchronous: @dest holds the data once the stream
    has done it, and must stay alive until then. Into pageable memory the
    call returns when the copy is done."""
    ary, address, nbytes = _host(dest, 'dest', True)
    stream = _stream(stream)
    buf = _device(src, 'src', nbytes, stream)
    if buf is not None:
        buf.download_to_address_on_stream(0, address, nbytes, stream)


def _dtod(dest, src, size, stream=None):
    size = operator.index(size)
    dbuf = _device(dest, 'dest', size, stream)
    sbuf = _device(src, 'src', size, stream)
    if dbuf is None or sbuf is None:
        if size:
            raise _library_error(GCuda.Error.OUT_OF_BOUNDS, 'An empty device array cannot take %d bytes' % size)
        return None, None
    return dbuf, sbuf


@_raising
def memcpy_dtod(dest, src, size):
    """Copies @size bytes from the start of @src to the start of @dest
    (GCuda.Buffers, device addresses or device arrays of other libraries)."""
    dbuf, sbuf = _dtod(dest, src, size)
    if dbuf is not None:
        dbuf.copy_from(0, sbuf, 0, size)


@_raising
def memcpy_dtod_async(dest, src, size, stream=None):
    """Queues memcpy_dtod() on @stream (a stream of @dest's context)."""
    stream = _stream(stream)
    dbuf, sbuf = _dtod(dest, src, size, stream)
    if dbuf is not None:
        dbuf.copy_from_on_stream(0, sbuf, 0, size, stream)
        _note_stream(dest, dbuf, stream)


@_raising
def memcpy_peer(dest, src, size, dest_context=None, src_context=None):
    """Copies @size bytes between buffers of different contexts (or
    devices). The contexts are the buffers' own; contexts given must be
    those (else GCuda.Error.CONTEXT_MISMATCH)."""
    dbuf, sbuf = _dtod(dest, src, size)
    if dbuf is None:
        return
    _check_context(dbuf, dest_context, 'dest')
    _check_context(sbuf, src_context, 'src')
    dbuf.copy_from(0, sbuf, 0, size)


@_raising
def memcpy_peer_async(dest, src, size, dest_context=None, src_context=None, stream=None):
    """Queues memcpy_peer() on @stream (a stream of @dest's context)."""
    stream = _stream(stream)
    dbuf, sbuf = _dtod(dest, src, size, stream)
    if dbuf is None:
        return
    _check_context(dbuf, dest_context, 'dest')
    _check_context(sbuf, src_context, 'src')
    dbuf.copy_from_on_stream(0, sbuf, 0, size, stream)
    _note_stream(dest, dbuf, stream)


def _memset_extent(bits, count):
    return operator.index(count) * (bits // 8)


def _memset_2d_extent(bits, pitch, width, height):
    pitch, width, height = operator.index(pitch), operator.index(width), operator.index(height)
    if width == 0 or height == 0:
        return 0
    return (height - 1) * pitch + width * (bits // 8)


def _make_memsets(bits):
    method = 'memset_d%d' % bits

    def target(dest, nbytes, stream=None):
        # an address is borrowed for the bytes the memset reaches (at least
        # one, so that a bad address is reported even for a count of 0)
        return _device(dest, 'dest', max(nbytes, 1) if isinstance(dest, numbers.Integral) else nbytes, stream)

    def memset(dest, data, count):
        buf = target(dest, _memset_extent(bits, count))
        if buf is not None:
            getattr(buf, method)(0, operator.index(data), count, None)

    def memset_async(dest, data, count, stream=None):
        stream = _stream(stream)
        buf = target(dest, _memset_extent(bits, count), stream)
        if buf is not None:
            getattr(buf, method)(0, operator.index(data), count, stream)
            _note_stream(dest, buf, stream)

    def memset_2d(dest, pitch, data, width, height):
        buf = target(dest, _memset_2d_extent(bits, pitch, width, height))
        if buf is not None:
            getattr(buf, method + '_2d')(0, pitch, operator.index(data), width, height, None)

    def memset_2d_async(dest, pitch, data, width, height, stream=None):
        stream = _stream(stream)
        buf = target(dest, _memset_2d_extent(bits, pitch, width, height), stream)
        if buf is not None:
            getattr(buf, method + '_2d')(0, pitch, operator.index(data), width, height, stream)
            _note_stream(dest, buf, stream)

    what = '%d-bit elements' % bits if bits > 8 else 'bytes'
    docs = {
        memset: 'Sets @count %s from the start of @dest (a GCuda.Buffer, a device address or a device array '
                'of another library) to @data.' % what,
        memset_async: 'Queues memset_d%d() on @stream (None: done at once).' % bits,
        memset_2d: 'Sets @height rows of @width %s, @pitch bytes apart, to @data.' % what,
        memset_2d_async: 'Queues memset_d2d%d() on @stream (None: done at once).' % bits,
    }
    names = {memset: 'memset_d%d' % bits, memset_async: 'memset_d%d_async' % bits,
             memset_2d: 'memset_d2d%d' % bits, memset_2d_async: 'memset_d2d%d_async' % bits}
    for fn, name in names.items():
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = docs[fn]
    return tuple(_raising(fn) for fn in names)


memset_d8, memset_d8_async, memset_d2d8, memset_d2d8_async = _make_memsets(8)
memset_d16, memset_d16_async, memset_d2d16, memset_d2d16_async = _make_memsets(16)
memset_d32, memset_d32_async, memset_d2d32, memset_d2d32_async = _make_memsets(32)


# ---------------------------------------------------------------- numpy arrays in GCuda memory

@_raising
def pagelocked_empty(shape, dtype, order='C', mem_flags=0, context=None):
    """A numpy array in page-locked host memory (PyCUDA's
    ``pagelocked_empty()``); @mem_flags are GCuda.HostAllocFlags. Its .base
    is the GCuda.HostBuffer, which keeps the memory alive: ``.base.free()``
    (or the context's destroy()) retires it at once, every GCuda call on
    it is then GCuda.Error.FREED, but the memory is released only when the
    last array over it is gone."""
    shape, dtype, _, nbytes = _layout(shape, dtype, order)
    hb = HostBuffer.new_pagelocked(context, max(nbytes, 1), GCuda.HostAllocFlags(int(mem_flags)))
    return _array_over(hb, hb.get_address(), shape, dtype, order)


@_raising
def pagelocked_zeros(shape, dtype, order='C', mem_flags=0, context=None):
    """pagelocked_empty(), filled with zeros."""
    ary = pagelocked_empty(shape, dtype, order, mem_flags, context)
    _zero(ary.__array_interface__['data'][0], ary.nbytes)
    return ary


@_raising
def pagelocked_empty_like(array, mem_flags=0, context=None):
    array = _numpy().asarray(array)
    return pagelocked_empty(array.shape, array.dtype, _order_of(array), mem_flags, context)


@_raising
def pagelocked_zeros_like(array, mem_flags=0, context=None):
    array = _numpy().asarray(array)
    return pagelocked_zeros(array.shape, array.dtype, _order_of(array), mem_flags, context)


@_raising
def aligned_empty(shape, dtype, order='C', alignment=4096):
    """A numpy array in ordinary host memory aligned to @alignment bytes (a
    power of two), PyCUDA's ``aligned_empty()``; needs no driver. Its .base
    is the GCuda.HostBuffer. Page-aligned arrays can be page-locked in
    place with register_host_memory(). As for pagelocked_empty(), free()
    releases the memory only after the last array over it."""
    shape, dtype, _, nbytes = _layout(shape, dtype, order)
    hb = HostBuffer.new_aligned(max(nbytes, 1), operator.index(alignment))
    return _array_over(hb, hb.get_address(), shape, dtype, order)


@_raising
def aligned_zeros(shape, dtype, order='C', alignment=4096):
    """aligned_empty(), filled with zeros."""
    ary = aligned_empty(shape, dtype, order, alignment)
    _zero(ary.__array_interface__['data'][0], ary.nbytes)
    return ary


@_raising
def aligned_empty_like(array, alignment=4096):
    array = _numpy().asarray(array)
    return aligned_empty(array.shape, array.dtype, _order_of(array), alignment)


@_raising
def aligned_zeros_like(array, alignment=4096):
    array = _numpy().asarray(array)
    return aligned_zeros(array.shape, array.dtype, _order_of(array), alignment)


def _managed_flags(mem_flags):
    # PyCUDA's default is 0, which the driver refuses: it means GLOBAL here
    return GCuda.MemAttachFlags(int(mem_flags) or int(GCuda.MemAttachFlags.GLOBAL))


@_raising
def managed_empty(shape, dtype, order='C', mem_flags=GCuda.MemAttachFlags.GLOBAL, context=None):
    """A numpy array in managed memory (PyCUDA's ``managed_empty()``), the
    same address on the host and the device; @mem_flags is
    GCuda.MemAttachFlags GLOBAL (0 means GLOBAL too) or HOST. Its .base is
    the GCuda.Buffer (get_buffer() finds it), which keeps the memory alive
    (free() and the context's destroy() release it only after the last
    array over it). The host must not touch it while GPU work using it
    runs."""
    shape, dtype, _, nbytes = _layout(shape, dtype, order)
    buf = Buffer.new_managed(context, max(nbytes, 1), _managed_flags(mem_flags))
    return _array_over(buf, buf.get_address(), shape, dtype, order)


@_raising
def managed_zeros(shape, dtype, order='C', mem_flags=GCuda.MemAttachFlags.GLOBAL, context=None):
    """managed_empty(), filled with zeros (by the host)."""
    ary = managed_empty(shape, dtype, order, mem_flags, context)
    _zero(ary.__array_interface__['data'][0], ary.nbytes)
    return ary


@_raising
def managed_empty_like(array, mem_flags=GCuda.MemAttachFlags.GLOBAL, context=None):
    array = _numpy().asarray(array)
    return managed_empty(array.shape, array.dtype, _order_of(array), mem_flags, context)


@_raising
def managed_zeros_like(array, mem_flags=GCuda.MemAttachFlags.GLOBAL, context=None):
    array = _numpy().asarray(array)
    return managed_zeros(array.shape, array.dtype, _order_of(array), mem_flags, context)


@_raising
def register_host_memory(ary, flags=0, context=None):
    """Page-locks the memory of the numpy array @ary in place (PyCUDA's
    ``register_host_memory()``; @flags are GCuda.HostRegisterFlags) and
    returns a new array over the same memory whose .base is the registered
    GCuda.HostBuffer; that one's .base is @ary, kept alive as long as the
    registration. The memory stays page-locked until the HostBuffer is
    unregistered or freed, or goes. @ary must be contiguous and start on a
    page boundary (aligned_empty() makes such arrays): otherwise
    GCuda.Error.INVALID_ARGUMENT."""
    np = _numpy()
    if not isinstance(ary, np.ndarray):
        raise TypeError('register_host_memory() takes a numpy array, not %s' % type(ary).__name__)
    if ary.dtype.hasobject:
        raise TypeError('the array holds Python objects (dtype %s), not data' % ary.dtype)
    if not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'Only a contiguous array can be registered')
    address = ary.__array_interface__['data'][0]
    hb = HostBuffer.register(context, address, ary.nbytes, GCuda.HostRegisterFlags(int(flags)))
    hb.base = ary  # PyCUDA's RegisteredHostMemory.base; released after the memory is unregistered
    return _array_over(hb, address, ary.shape, ary.dtype, _order_of(ary), readonly=not ary.flags.writeable)


def _find_owner(obj, cls):
    for _ in range(256):
        if obj is None or isinstance(obj, cls):
            return obj
        if isinstance(obj, _PooledCommon):
            return obj.buffer if obj._buffer_type is cls else None
        if isinstance(obj, memoryview):
            obj = obj.obj
            continue
        owner = getattr(obj, '_gcuda_object', None) if isinstance(obj, ctypes.Array) else None
        obj = owner if owner is not None else getattr(obj, 'base', None)
    return None


def get_host_buffer(ary):
    """The GCuda.HostBuffer whose memory a numpy array (or a memoryview from
    as_buffer()) made by GCuda lies in, found along its .base chain, or
    None: pagelocked_*, aligned_*, register_host_memory() arrays (the
    registered HostBuffer), PageLockedMemoryPool arrays (the
    PooledHostAllocation's buffer) and views of them."""
    return _find_owner(ary, GCuda.HostBuffer)


def get_buffer(ary):
    """The GCuda.Buffer whose memory a numpy array (or memoryview) made by
    GCuda lies in, found along its .base chain, or None: managed_* arrays
    and views of them."""
    return _find_owner(ary, GCuda.Buffer)
