# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyCUDA's ``pycuda.gpuarray`` as a device container: GPUArray holds a
shape, a dtype, strides and device memory (``gpudata``: a GCuda.Buffer
from the allocator, or whatever device memory the caller passed), moves
data to and from numpy (get/set, their async forms, to_gpu), fills
(kernel-free: memsets), copies, reshapes, views and slices without
copying, and hands the memory to CuPy, PyTorch and friends through
``__cuda_array_interface__`` and DLPack.

Arithmetic, comparisons and reductions are not provided: they raise
NotImplementedError saying how to compute on the same memory with CuPy
without a copy (``cupy.asarray(a)``) and come back
(``gcuda.gpuarray.as_gpuarray(c)``). docs/gpuarray.md lists what else of
pycuda.gpuarray is missing."""

import builtins  # the module defines any(), all(), sum(), min(), max() (PyCUDA's)
import numbers
import operator
import warnings

import numpy as np

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

from gcuda._dtypes import vec  # noqa: E402
from gcuda._override import interop  # noqa: E402

__all__ = ['GPUArray', 'ArrayFlags', 'vec', 'to_gpu', 'to_gpu_async', 'empty', 'zeros', 'ones', 'empty_like',
           'zeros_like', 'ones_like', 'arange', 'as_gpuarray', 'transpose', 'reshape']


# ---------------------------------------------------------------- what is not here

_CUPY_HINT = (
    'gcuda.gpuarray.GPUArray is a device container only: arithmetic, comparisons and reductions are not '
    'provided. Compute on the same memory with CuPy, without a copy: `c = cupy.asarray(a)` (through '
    '__cuda_array_interface__), and come back with `gcuda.gpuarray.as_gpuarray(c)` (no copy either). '
    'PyTorch: `torch.as_tensor(a, device="cuda")`. See docs/gpuarray.md.')


def _not_provided(what):
    return NotImplementedError('%s: %s' % (what, _CUPY_HINT))


def _library_error(code, message):
    # the GCuda exception class the override raises for this code
    # (RuntimeError for NOT_SUPPORTED, LogicError otherwise)
    from gcuda._override.errors import _library_error as make
    return make(code, message)


# ---------------------------------------------------------------- layout helpers

def _c_strides(itemsize, shape):
    strides = []
    stride = itemsize
    for dim in reversed(shape):
        strides.append(stride)
        stride *= builtins.max(dim, 1)
    return tuple(reversed(strides))


def _f_strides(itemsize, shape):
    strides = []
    stride = itemsize
    for dim in shape:
        strides.append(stride)
        stride *= builtins.max(dim, 1)
    return tuple(strides)


def _compact_strides(shape, strides, itemsize):
    """Packed strides in the order of @strides' magnitudes (PyCUDA's
    _compact_strides(), which get() and to_gpu() use)."""
    order = sorted((abs(strides[axis]), shape[axis], axis) for axis in range(len(shape)))
    result = [0] * len(shape)
    stride = itemsize
    for _, dim, axis in order:
        result[axis] = stride
        stride *= builtins.max(dim, 1)
    return tuple(result)


def _extent(shape, strides, itemsize):
    """(lo, hi): the bytes an array touches, relative to its first
    element, as [lo, hi); (0, 0) when it is empty."""
    if builtins.any(dim == 0 for dim in shape):
        return 0, 0
    lo = hi = 0
    for dim, stride in zip(shape, strides):
        reach = (dim - 1) * stride
        if reach < 0:
            lo += reach
        else:
            hi += reach
    return lo, hi + itemsize


def _normalize_shape(shape):
    if isinstance(shape, np.ndarray) and shape.ndim == 0:
        shape = shape.item()
    if isinstance(shape, (numbers.Integral, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(operator.index(dim) for dim in shape)
    except TypeError:
        raise TypeError('shape must be an integer or a sequence of integers, not %r' % (shape,)) from None
    if builtins.any(dim < 0 for dim in shape):
        raise ValueError('negative dimensions are not allowed: %r' % (shape,))
    return shape


def _is_c_contiguous(shape, strides, itemsize):
    if builtins.any(dim == 0 for dim in shape):
        return True
    expected = itemsize
    for dim, stride in zip(reversed(shape), reversed(strides)):
        if dim != 1 and stride != expected:
            return False
        expected *= dim
    return True


class ArrayFlags:
    """PyCUDA's (compyte's) flags: c_contiguous, f_contiguous, forc."""

    def __init__(self, ary):
        self.c_contiguous = _is_c_contiguous(ary.shape, ary.strides, ary.dtype.itemsize)
        self.f_contiguous = _is_c_contiguous(ary.shape[::-1], ary.strides[::-1], ary.dtype.itemsize)
        self.forc = self.c_contiguous or self.f_contiguous

    def __repr__(self):
        return '  C_CONTIGUOUS : %s\n  F_CONTIGUOUS : %s' % (self.c_contiguous, self.f_contiguous)


def _async_argument(async_, kwargs):
    """PyCUDA's deprecated `async=` keyword, and no others."""
    if 'async' in kwargs:
        value = kwargs.pop('async')
        if async_:
            raise TypeError("may not specify both 'async' and 'async_'")
        async_ = value
    if kwargs:
        raise TypeError('extra keyword arguments specified: %s' % ', '.join(sorted(kwargs)))
    return bool(async_)


# ---------------------------------------------------------------- device memory

def _pooled_type():
    return getattr(GCuda, 'PooledDeviceAllocation', None)


def _foreign_address(obj):
    """(address, bounds) of an object that is not GCuda memory: PyCUDA's
    get_pointer(), else interop's foreign_memory() (CUDA Array Interface,
    whose stream it honours, DLPack, gpudata: its lowest byte, and the
    bytes it covers as the bounds), else int(obj); bounds None where the
    size is unknown."""
    if hasattr(obj, 'get_pointer'):
        # PyCUDA's PointerHolderBase: an address and nothing more (its size is
        # not asked of the driver, so a holder works as in PyCUDA)
        return int(obj.get_pointer()), None
    found = interop.foreign_memory(obj)
    if found is not None:
        address, nbytes = int(found[0]), int(found[1])
        return address, ((address, address + nbytes) if nbytes else None)
    if isinstance(obj, (numbers.Integral, np.integer)) and not isinstance(obj, bool):
        return int(obj), None
    if hasattr(obj, '__int__') and not isinstance(obj, (bool, float, complex, np.inexact, np.ndarray)):
        return int(obj), None  # PyCUDA's DeviceAllocation and other int()-able pointers
    raise TypeError('gpudata must be device memory: a GCuda.Buffer, a pooled allocation, a GPUArray, an '
                    'object with get_pointer() (PointerHolderBase), __cuda_array_interface__ or a device '
                    'address, not %s' % type(obj).__name__)


def _locate(gpudata):
    """(buffer, offset, address, bounds) of @gpudata: GCuda memory as a
    GCuda.Buffer and the offset into it (address 0; the buffer is the
    bounds), foreign memory as an address (buffer None) and the addresses
    [low, high) known to be its memory (None: unknown)."""
    if gpudata is None:
        return None, 0, 0, None
    if isinstance(gpudata, GCuda.Buffer):
        return gpudata, 0, 0, None
    pooled = _pooled_type()
    if pooled is not None and isinstance(gpudata, pooled):
        return gpudata.buffer, 0, 0, None
    if isinstance(gpudata, GPUArray):
        return gpudata._mem, gpudata._offset, gpudata._address, gpudata._bounds
    inner = getattr(gpudata, 'gpudata', None)
    if inner is not None and not hasattr(gpudata, 'get_pointer'):
        return _locate(inner)
    return (None, 0) + _foreign_address(gpudata)


_ADDRESS_LIMIT = 1 << 64


def _check_inside(ary):
    """Raises GCuda.Error.OUT_OF_BOUNDS unless every byte @ary's layout
    reaches lies in its memory: the GCuda.Buffer, or for foreign memory
    the bytes known to be there (the foreign array's, or those of the
    first array made over the address), and in the 64-bit address space.
    Every layout GPUArray makes or exports passes here first."""
    if not ary.size:
        return
    lo, hi = _extent(ary.shape, ary.strides, ary.itemsize)
    if ary._mem is not None:
        first, limit = ary._offset, ary._mem.get_size()
        outside = first + lo < 0 or first + hi > limit
    else:
        # (address 0 is never device memory)
        base, end = ary._bounds if ary._bounds is not None else (1, _ADDRESS_LIMIT)
        first, limit = ary._address - base, end - base
        outside = (first + lo < 0 or first + hi > limit
                   or not 0 < ary._address + lo < ary._address + hi <= _ADDRESS_LIMIT)
    if outside:
        raise _library_error(GCuda.Error.OUT_OF_BOUNDS,
                             'A GPUArray of shape %r, dtype %s and strides %r reaches bytes %d to %d of its gpudata, '
                             'which has %d bytes' % (ary.shape, ary.dtype, ary.strides, first + lo, first + hi, limit))


class _Side:
    """One end of a copy: host memory (a numpy array) or a GPUArray's
    device memory, and where its first element is."""

    __slots__ = ('host', 'mem', 'address')

    def __init__(self, ary):
        if isinstance(ary, np.ndarray):
            self.host = True
            self.mem = None
            self.address = ary.__array_interface__['data'][0]
        else:
            self.host = False
            self.mem = ary._mem
            self.address = ary._offset if ary._mem is not None else ary._address

    def set_endpoint(self, copy, which, offset, extent):
        """Makes bytes [offset, offset + extent) of this side the @which
        ('src' or 'dst') endpoint of the GCuda.Copy2D @copy."""
        if self.host:
            getattr(copy, 'set_%s_host' % which)(self.address + offset, extent)
        elif self.mem is not None:
            # a view: the region starts at its first byte (x-in-bytes
            # would count against the pitch)
            getattr(copy, 'set_%s_buffer' % which)(self.mem.new_view(self.address + offset, extent))
        else:
            getattr(copy, 'set_%s_unified' % which)(self.address + offset, extent)


def _plan(shape, src_strides, dst_strides, itemsize):
    """PyCUDA's _memcpy_discontig() layout work: (src_offset, dst_offset,
    shape, src_strides, dst_strides) with the axes sorted by source stride,
    axes both arrays reverse made forward (the offsets move to their
    lowest element), unit axes dropped, adjacent packed axes merged and a
    first axis of whole elements. shape[0] × itemsize bytes are contiguous
    on both sides; None when the two layouts cannot be copied with 2D
    copies (directions or orders differ, repeated elements)."""
    src_off = dst_off = 0
    axes = []
    for axis, dim in enumerate(shape):
        if dim == 1:
            continue
        s, d = src_strides[axis], dst_strides[axis]
        if s < 0 and d < 0:
            src_off += (dim - 1) * s
            dst_off += (dim - 1) * d
            s, d = -s, -d
        if s <= 0 or d <= 0:
            return None
        axes.append((s, d, dim))
    axes.sort()
    for i in range(1, len(axes)):
        if axes[i][1] < axes[i - 1][1]:
            return None
    dims = [dim for _, _, dim in axes]
    ss = [s for s, _, _ in axes]
    ds = [d for _, d, _ in axes]
    if not dims or ss[0] != itemsize or ds[0] != itemsize:
        dims.insert(0, 1)
        ss.insert(0, 0)
        ds.insert(0, 0)
    i = 1
    while i < len(dims):
        # (the first axis of one element, stride 0, never merges)
        if ss[i - 1] * dims[i - 1] == ss[i] and ds[i - 1] * dims[i - 1] == ds[i]:
            dims[i - 1] *= dims[i]
            del dims[i], ss[i], ds[i]
        else:
            i += 1
    # rows must not overlap: a row is dims[0] elements
    width = itemsize * dims[0]
    if len(dims) > 1 and (ss[1] < width or ds[1] < width):
        return None
    return src_off, dst_off, dims, ss, ds


def _copy(dst, src, async_=False, stream=None):
    """Copies @src into @dst (GPUArrays or numpy arrays, at least one a
    GPUArray, same shape and dtype) along the plan; False when the plan
    is None (nothing copied)."""
    itemsize = src.dtype.itemsize
    plan = _plan(src.shape, src.strides, dst.strides, itemsize)
    if plan is None:
        return False
    src_off, dst_off, dims, ss, ds = plan
    src_side, dst_side = _Side(src), _Side(dst)
    run_stream = stream if async_ else None
    width = itemsize * dims[0]
    if len(dims) == 1:
        _copy_bytes(dst_side, dst_off, src_side, src_off, width, async_, stream)
        return True
    height = dims[1]
    for index in np.ndindex(*dims[2:]):
        s = src_off + builtins.sum(i * st for i, st in zip(index, ss[2:]))
        d = dst_off + builtins.sum(i * st for i, st in zip(index, ds[2:]))
        copy = GCuda.Copy2D.new()
        src_side.set_endpoint(copy, 'src', s, (height - 1) * ss[1] + width)
        dst_side.set_endpoint(copy, 'dst', d, (height - 1) * ds[1] + width)
        copy.props.src_pitch = ss[1]
        copy.props.dst_pitch = ds[1]
        copy.props.width_in_bytes = width
        copy.props.height = height
        copy.props.aligned = False
        copy.execute(run_stream)
    return True


def _copy_bytes(dst, dst_off, src, src_off, nbytes, async_, stream):
    """@nbytes contiguous bytes: the Buffer methods where the device side is
    GCuda memory, else a one-row Copy2D on unified addresses."""
    if src.host and dst.mem is not None:
        if async_:
            dst.mem.upload_from_address_on_stream(dst.address + dst_off, src.address + src_off, nbytes, stream)
        else:
            dst.mem.upload_from_address(dst.address + dst_off, src.address + src_off, nbytes)
        return
    if dst.host and src.mem is not None:
        if async_:
            src.mem.download_to_address_on_stream(src.address + src_off, dst.address + dst_off, nbytes, stream)
        else:
            src.mem.download_to_address(src.address + src_off, dst.address + dst_off, nbytes)
        return
    if src.mem is not None and dst.mem is not None:
        if async_:
            dst.mem.copy_from_on_stream(dst.address + dst_off, src.mem, src.address + src_off, nbytes, stream)
        else:
            dst.mem.copy_from(dst.address + dst_off, src.mem, src.address + src_off, nbytes)
        return
    copy = GCuda.Copy2D.new()
    src.set_endpoint(copy, 'src', src_off, nbytes)
    dst.set_endpoint(copy, 'dst', dst_off, nbytes)
    copy.props.src_pitch = nbytes
    copy.props.dst_pitch = nbytes
    copy.props.width_in_bytes = nbytes
    copy.props.height = 1
    copy.props.aligned = False
    copy.execute(stream if async_ else None)


def _host_like(ary, pagelocked=False):
    """A new host array of @ary's shape and dtype, packed in @ary's axis
    order and with its axes' directions, so that a copy between the two
    is one plan (PyCUDA's get(): _compact_strides())."""
    dtype = ary.dtype
    if ary.size == 0:
        return np.empty(ary.shape, dtype)
    if pagelocked:
        flat = GCuda.pagelocked_empty((ary.size,), dtype)
    else:
        flat = np.empty(ary.size, dtype)
    strides = _compact_strides(ary.shape, ary.strides, dtype.itemsize)
    host = np.lib.stride_tricks.as_strided(flat, shape=ary.shape, strides=strides, writeable=True)
    flips = tuple(slice(None, None, -1) if s < 0 and dim > 1 else slice(None)
                  for s, dim in zip(ary.strides, ary.shape))
    return host[flips] if builtins.any(s < 0 for s in ary.strides) else host


# ---------------------------------------------------------------- GPUArray

def _arithmetic(name):
    def method(self, *args, **kwargs):
        raise _not_provided('GPUArray.%s' % name)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = 'Not provided (needs a kernel): use CuPy on the same memory, see the error message.'
    return method


class GPUArray:
    """An array in device memory (PyCUDA's ``GPUArray``): @shape, @dtype,
    @strides (bytes; default packed in @order 'C' or 'F') over
    ``gpudata``. Without @gpudata, ``allocator(nbytes)`` provides the
    memory (default GCuda.mem_alloc; a pool's allocate works too); with
    it, the array lies at the start of @gpudata: a GCuda.Buffer (its
    bounds are checked), a pooled allocation, another GPUArray, an object
    with PyCUDA's get_pointer() (PointerHolderBase), one with
    ``__cuda_array_interface__`` or a device address; it is kept alive as
    ``gpudata``. @base is the array this one is a view of."""

    __array_priority__ = 100

    def __init__(self, shape, dtype, allocator=None, base=None, gpudata=None, strides=None, order='C'):
        dtype = np.dtype(dtype)
        if dtype.hasobject:
            raise TypeError('a GPUArray cannot hold Python objects (dtype %s)' % dtype)
        shape = _normalize_shape(shape)
        if strides is None:
            if order == 'C':
                strides = _c_strides(dtype.itemsize, shape)
            elif order == 'F':
                strides = _f_strides(dtype.itemsize, shape)
            else:
                raise ValueError('invalid order: %r' % (order,))
        else:
            strides = tuple(operator.index(s) for s in strides)
            if len(strides) != len(shape):
                raise ValueError('strides %r do not match shape %r' % (strides, shape))
        self._set_layout(shape, dtype, strides)
        self.allocator = allocator if allocator is not None else GCuda.mem_alloc
        lo, hi = _extent(shape, strides, dtype.itemsize)

        if gpudata is None:
            if base is not None:
                raise ValueError('base is only meaningful with gpudata')
            if lo < 0:
                raise ValueError('negative strides need gpudata (the memory and where the array starts in it)')
            gpudata = self.allocator(hi) if self.size else None
        self.gpudata = gpudata
        self.base = base
        self._mem, self._offset, self._address, bounds = _locate(gpudata)
        if self._mem is None and bounds is None and self.size:
            # memory of unknown size: the caller says the array fits, and
            # its views must stay inside what it said
            bounds = (self._address + lo, self._address + hi)
        self._bounds = bounds
        _check_inside(self)

    def _set_layout(self, shape, dtype, strides):
        self.shape = shape
        self.dtype = dtype
        self.strides = strides
        size = 1
        for dim in shape:
            size *= dim
        self.size = self.mem_size = size
        self.itemsize = dtype.itemsize
        self.nbytes = size * dtype.itemsize

    def _view(self, shape, strides, byte_offset=0, dtype=None):
        """A GPUArray over this one's memory (base: self), @byte_offset
        bytes from its first element: its gpudata is this one's for the
        same start, else a GCuda.Buffer view (an address for foreign
        memory, as PyCUDA's int(gpudata) + offset), None when empty."""
        dtype = self.dtype if dtype is None else np.dtype(dtype)
        new = GPUArray.__new__(GPUArray)
        new._set_layout(tuple(shape), dtype, tuple(strides))
        new.allocator = self.allocator
        new.base = self
        new._mem = self._mem
        new._bounds = self._bounds
        new._offset = self._offset + byte_offset if self._mem is not None else 0
        new._address = self._address + byte_offset if self._mem is None and self._address else 0
        _check_inside(new)
        if new.size == 0:
            new.gpudata = None
        elif byte_offset == 0:
            new.gpudata = self.gpudata
        elif self._mem is not None:
            _, hi = _extent(new.shape, new.strides, dtype.itemsize)
            new.gpudata = self._mem.new_view(new._offset, hi)
        else:
            new.gpudata = new._address
        return new

    # -------------------------------------------------------- properties

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def flags(self):
        return ArrayFlags(self)

    @property
    def ptr(self):
        """The device address of the first element (0 for an empty array
        without memory)."""
        if self._mem is not None:
            return self._mem.get_address() + self._offset
        return self._address

    def __len__(self):
        if not self.shape:
            raise TypeError('len() of unsized object')
        return self.shape[0]

    def __hash__(self):
        raise TypeError('GPUArrays are not hashable.')

    def __bool__(self):
        if self.size == 1:
            return bool(self.get())
        raise ValueError('The truth value of an array with more than one element is ambiguous.')

    def __str__(self):
        return str(self.get())

    def __repr__(self):
        return repr(self.get())

    def __reduce__(self):
        # PyCUDA pickles a GPUArray as its contents
        return to_gpu, (self.get(),)

    # -------------------------------------------------------- transfers

    def set(self, ary, async_=False, stream=None, **kwargs):
        """Copies the numpy array @ary (same size and dtype; another shape
        is reshaped with a warning, as in PyCUDA) into this array. With
        @async_ the copy is queued on @stream (page-locked @ary: truly
        asynchronous, and @ary must stay alive and unchanged until the
        stream has done it)."""
        async_ = _async_argument(async_, kwargs)
        if not isinstance(ary, np.ndarray):
            ary = np.asarray(ary)
        if ary.size != self.size:
            raise ValueError('ary and self must be the same size')
        if ary.shape != self.shape:
            warnings.warn('Setting array from one with different shape.', stacklevel=2)
            ary = ary.reshape(self.shape)
        if ary.dtype != self.dtype:
            raise ValueError('ary and self must have the same dtype')
        if not self.size:
            return
        if not _copy(self, ary, async_, stream):
            # a layout one plan cannot copy (another axis order or
            # direction): through a packed host copy, synchronously (the
            # temporary would go before the stream)
            staged = _host_like(self)
            staged[...] = ary
            if not _copy(self, staged):
                raise ValueError('set() into an array whose elements overlap (strides %r for shape %r) is not '
                                 'supported: which write lands last is undefined' % (self.strides, self.shape))

    def set_async(self, ary, stream=None):
        return self.set(ary, async_=True, stream=stream)

    def get(self, ary=None, pagelocked=False, async_=False, stream=None, **kwargs):
        """The contents as a numpy array: @ary (same size and dtype) filled
        in, or a new one packed in this array's axis order (in page-locked
        memory with @pagelocked). With @async_ the copy is queued on
        @stream and the array holds the data once the stream has done it
        (truly asynchronous into page-locked memory only)."""
        async_ = _async_argument(async_, kwargs)
        if ary is None:
            ary = _host_like(self, pagelocked)
        else:
            if not isinstance(ary, np.ndarray):
                raise TypeError('ary must be a numpy array, not %s' % type(ary).__name__)
            if self.size != ary.size:
                raise ValueError('self and ary must be the same size')
            if self.shape != ary.shape:
                warnings.warn('get() between arrays of different shape is deprecated', DeprecationWarning,
                              stacklevel=2)
                ary = ary.reshape(self.shape)
            if self.dtype != ary.dtype:
                raise TypeError('self and ary must have the same dtype')
            if not ary.flags.writeable:
                raise ValueError('ary is read-only')
        if self.size and not _copy(ary, self, async_, stream):
            staged = _host_like(self)
            if not _copy(staged, self):
                # elements that overlap (a stride of 0, broadcast): the bytes
                # the array covers, read once, seen with its layout
                staged = self._get_covered()
            ary[...] = staged
        return ary

    def _get_covered(self):
        """A read-only host array with this array's layout over a copy of
        every byte it covers (one download)."""
        lo, hi = _extent(self.shape, self.strides, self.itemsize)
        covered = np.empty(hi - lo, np.uint8)
        _copy_bytes(_Side(covered), 0, _Side(self), lo, hi - lo, False, None)
        return np.ndarray(self.shape, self.dtype, buffer=covered, offset=-lo, strides=self.strides)

    def get_async(self, stream=None, ary=None):
        return self.get(ary=ary, async_=True, stream=stream)

    def copy(self):
        """A new array with the same contents, packed in this one's axis
        order (a device-to-device copy)."""
        new = GPUArray(self.shape, self.dtype, self.allocator,
                       strides=_compact_strides(self.shape, self.strides, self.itemsize))
        if self.size and not _copy(new, self):
            new.set(self.get())  # reversed axes: through the host
        return new

    def _new_like_me(self, dtype=None, order='C'):
        strides = None
        if dtype is None:
            dtype = self.dtype
        if np.dtype(dtype) == self.dtype and self.flags.forc:
            strides = self.strides
        return GPUArray(self.shape, dtype, allocator=self.allocator, strides=strides, order=order)

    # -------------------------------------------------------- fill

    def fill(self, value, stream=None):
        """Sets every element to @value (converted to the dtype; a tuple
        for the vector types) and returns self. Kernel-free: device memory
        is set with memsets (a 1-, 2- or 4-byte pattern in one, other
        element sizes a word at a time with 2D memsets whose pitch is the
        element), queued on @stream when one is given. Foreign memory
        (not a GCuda buffer) is set by uploading the value from the host."""
        value = np.array(value, dtype=self.dtype)
        if value.shape != ():
            raise ValueError('fill() takes one value, not an array of shape %r' % (value.shape,))
        if not self.size:
            return self
        if self._mem is None:
            host = np.empty(self.shape, self.dtype)
            host[...] = value
            self.set(host, async_=False)
            return self
        plan = _plan(self.shape, self.strides, self.strides, self.itemsize)
        if plan is None:
            raise ValueError('fill() of an array whose elements overlap (a stride of 0) is not supported')
        start, _, dims, _, ds = plan
        pattern = value.tobytes()
        # the array as grids of elements: (offset, columns, rows, row pitch)
        if len(dims) == 1:
            grids = [(start, dims[0], 1, 0)]
        else:
            grids = [(start + builtins.sum(i * st for i, st in zip(index, ds[2:])), dims[0], dims[1], ds[1])
                     for index in np.ndindex(*dims[2:])]
        for grid in grids:
            self._memset(pattern, *grid, stream=stream)
        return self

    def _memset(self, pattern, offset, columns, rows, pitch, stream=None):
        """Sets @rows rows (@pitch bytes apart) of @columns packed elements
        from byte @offset past the first element to the bytes @pattern."""
        mem = self._mem
        offset += self._offset
        itemsize = len(pattern)
        if builtins.all(b == pattern[0] for b in pattern):  # zeros, for one
            word, words = 1, [pattern[0]]
        else:
            address = mem.get_address() + offset
            word = next(w for w in (4, 2, 1)
                        if itemsize % w == 0 and address % w == 0 and (rows == 1 or pitch % w == 0))
            order = 'little' if np.little_endian else 'big'
            words = [int.from_bytes(pattern[i:i + word], order) for i in range(0, itemsize, word)]
            if builtins.all(w == words[0] for w in words):
                words = words[:1]
        bits = 8 * word
        if len(words) == 1:
            # one value: one memset of the run, or a 2D one over the rows
            if rows == 1:
                getattr(mem, 'memset_d%d' % bits)(offset, words[0], columns * itemsize // word, stream)
            else:
                getattr(mem, 'memset_d%d_2d' % bits)(offset, pitch, words[0], columns * itemsize // word,
                                                      rows, stream)
            return
        # word i of every element: 2D memsets one word wide, whose pitch
        # steps from element to element, along a row or down a column
        # (whichever makes fewer calls)
        memset_2d = getattr(mem, 'memset_d%d_2d' % bits)
        for i, value in enumerate(words):
            if rows <= columns:
                for r in range(rows):
                    memset_2d(offset + r * pitch + i * word, itemsize, value, 1, columns, stream)
            else:
                for c in range(columns):
                    memset_2d(offset + c * itemsize + i * word, pitch, value, 1, rows, stream)

    def __setitem__(self, index, value):
        """a[index] = value: a GPUArray of the same shape and dtype is copied
        on the device, a scalar (a tuple for a struct dtype) fills, host
        data is uploaded (broadcast to the shape)."""
        target = self[index]
        if isinstance(value, GPUArray):
            if value.shape != target.shape or value.dtype != target.dtype:
                raise ValueError('src and dst must have the same shape and dtype')
            if target.size and not _copy(target, value):
                target.set(value.get())
            return
        value = np.asarray(value, dtype=target.dtype)
        if value.shape == ():
            target.fill(value)
        else:
            target.set(np.broadcast_to(value, target.shape))

    # -------------------------------------------------------- views

    def reshape(self, *shape, **kwargs):
        """The same memory seen with another shape (-1: the remaining
        size); only contiguous arrays (RuntimeError otherwise, as in
        PyCUDA). @order ('C' default, or 'F') is the order the elements
        are read in: an array contiguous in the other order is a
        ValueError (numpy would copy)."""
        order = kwargs.pop('order', 'C')
        if kwargs:
            raise TypeError('unexpected keyword arguments: %s' % ', '.join(sorted(kwargs)))
        if order not in ('C', 'F'):
            raise ValueError('invalid order: %r' % (order,))
        if not self.flags.forc:
            raise RuntimeError('only contiguous arrays may be used as arguments to this operation')
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = list(shape)
        if shape.count(-1) > 1:
            raise ValueError('can only specify one unknown dimension')
        if -1 in shape:
            known = 1
            for dim in shape:
                if dim != -1:
                    known *= dim
            i = shape.index(-1)
            if known == 0 or self.size % known:
                raise ValueError('cannot reshape array of size %d into shape %r' % (self.size, tuple(shape)))
            shape[i] = self.size // known
        shape = _normalize_shape(shape)
        size = 1
        for dim in shape:
            size *= dim
        if size != self.size:
            raise ValueError('total size of new array must be unchanged')
        flags = self.flags
        if shape == self.shape and (flags.c_contiguous if order == 'C' else flags.f_contiguous):
            return self
        if self.ndim > 1 and not (flags.c_contiguous if order == 'C' else flags.f_contiguous):
            raise ValueError('reshape(order=%r) of an array that is only %s-contiguous would need a copy'
                             % (order, 'F' if order == 'C' else 'C'))
        strides = (_c_strides if order == 'C' else _f_strides)(self.itemsize, shape)
        return self._view(shape, strides)

    def ravel(self):
        """A 1-D view of a contiguous array, in memory order (PyCUDA's)."""
        if not self.flags.forc:
            raise RuntimeError('only contiguous arrays may be used as arguments to this operation')
        return self._view((self.size,), (self.itemsize,))

    def view(self, dtype=None):
        """The same memory as @dtype, by numpy's rules (ndarray.view(),
        numpy 1.23 and later): to another item size, the last axis
        (contiguous, or of length 1) grows or shrinks by the ratio and its
        stride becomes the new item size; ValueError where numpy refuses
        (a 0-d array, a last axis that is not contiguous, sizes that do
        not divide); a subarray dtype adds its axes."""
        if dtype is None:
            return self._view(self.shape, self.strides)
        dtype = np.dtype(dtype)
        old = self.dtype
        if dtype.hasobject or old.hasobject:
            raise TypeError('Cannot change data-type for object array.')
        if dtype.kind == 'V' and dtype.names is None and dtype.itemsize == 0:
            dtype = np.dtype((np.void, old.itemsize))  # unsized void: the old item size, as numpy
        shape, strides = list(self.shape), list(self.strides)
        if dtype.itemsize != old.itemsize:
            if not shape:
                raise ValueError('Changing the dtype of a 0d array is only supported if the itemsize is unchanged')
            if dtype.subdtype is not None:
                raise ValueError('Changing the dtype to a subarray type is only supported if the total itemsize '
                                 'is unchanged')
            if shape[-1] != 1 and self.size != 0 and strides[-1] != old.itemsize:
                raise ValueError('To change to a dtype of a different size, the last axis must be contiguous')
            if dtype.itemsize < old.itemsize:
                if dtype.itemsize == 0 or old.itemsize % dtype.itemsize:
                    raise ValueError('When changing to a smaller dtype, its size must be a divisor of the size of '
                                     'original dtype')
                shape[-1] *= old.itemsize // dtype.itemsize
            else:
                nbytes = shape[-1] * old.itemsize
                if nbytes % dtype.itemsize:
                    raise ValueError('When changing to a larger dtype, its size must be a divisor of the total size '
                                     'in bytes of the last axis of the array.')
                shape[-1] = nbytes // dtype.itemsize
            strides[-1] = dtype.itemsize
        if dtype.subdtype is not None:
            # numpy's view of a subarray type: its axes come last, packed
            dtype, sub = dtype.subdtype
            shape += sub
            strides += _c_strides(dtype.itemsize, sub)
        return self._view(shape, strides, dtype=dtype)

    def squeeze(self):
        """A view without the axes of length 1."""
        keep = [i for i, dim in enumerate(self.shape) if dim != 1]
        return self._view([self.shape[i] for i in keep], [self.strides[i] for i in keep])

    def transpose(self, axes=None):
        """A view with the axes permuted (reversed by default): only the
        strides change, no kernel."""
        if axes is None:
            axes = range(self.ndim - 1, -1, -1)
        axes = [operator.index(a) for a in axes]
        if sorted(a % self.ndim if self.ndim else a for a in axes) != list(range(self.ndim)):
            raise ValueError("axes don't match array")
        return self._view([self.shape[a] for a in axes], [self.strides[a] for a in axes])

    @property
    def T(self):  # noqa: N802 - numpy's name
        return self.transpose()

    def __getitem__(self, index):
        """Basic indexing as numpy's: integers, slices (any step),
        Ellipsis and newaxis; a view of the same memory."""
        if not isinstance(index, tuple):
            index = (index,)
        shape, strides = [], []
        offset = 0
        axis = 0
        seen_ellipsis = False
        consumed = builtins.sum(1 for entry in index if entry is not None and entry is not Ellipsis)
        if consumed > self.ndim:
            raise IndexError('too many indices for array: array is %d-dimensional, but %d were indexed'
                             % (self.ndim, consumed))
        for entry in index:
            if isinstance(entry, slice):
                start, stop, step = entry.indices(self.shape[axis])
                shape.append(len(range(start, stop, step)))
                # (an empty slice has step 1, as in numpy)
                strides.append((step if shape[-1] else 1) * self.strides[axis])
                offset += start * self.strides[axis] if shape[-1] else 0
                axis += 1
            elif entry is Ellipsis:
                if seen_ellipsis:
                    raise IndexError("an index can only have a single ellipsis ('...')")
                seen_ellipsis = True
                for _ in range(self.ndim - consumed):
                    shape.append(self.shape[axis])
                    strides.append(self.strides[axis])
                    axis += 1
            elif entry is None:
                shape.append(1)
                strides.append(0)
            elif isinstance(entry, (numbers.Integral, np.integer)) and not isinstance(entry, bool):
                dim = self.shape[axis]
                i = operator.index(entry)
                if i < 0:
                    i += dim
                if not 0 <= i < dim:
                    raise IndexError('index %d is out of bounds for axis %d with size %d' % (entry, axis, dim))
                offset += i * self.strides[axis]
                axis += 1
            else:
                raise IndexError('only integers, slices, Ellipsis and None are valid indices (GPUArray has no '
                                 'fancy indexing), not %r' % (entry,))
        while axis < self.ndim:
            shape.append(self.shape[axis])
            strides.append(self.strides[axis])
            axis += 1
        return self._view(shape, strides, offset)

    # -------------------------------------------------------- interop

    @property
    def __cuda_array_interface__(self):
        """CUDA Array Interface v3 (PyCUDA's form: the strides are always
        given, the stream is None: GCuda's synchronous calls are done when
        they return; after async ones, synchronize the stream first)."""
        _check_inside(self)
        address = self.ptr if self.size else 0
        cai = dict(interop.cuda_array_interface(address, self.shape, self.dtype, strides=self.strides,
                                                stream=None, readonly=False))
        cai['strides'] = self.strides  # as PyCUDA (its test_gpuarray_cai)
        return cai

    def _device_ordinal(self):
        if self._mem is not None:
            return self._mem.get_context().get_device().get_ordinal()
        return GCuda.Context.get_default().get_device().get_ordinal()

    def __dlpack_device__(self):
        return interop.dlpack_device(self._device_ordinal())

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule sharing this memory (kept alive by the capsule)."""
        if copy:
            raise BufferError('GPUArray.__dlpack__ shares memory: copy=True is not supported')
        _check_inside(self)
        return interop.dlpack_capsule(self, self.ptr if self.size else 0, self.shape, self.dtype, self.strides,
                                      self._device_ordinal(), stream=stream)

    # -------------------------------------------------------- texture references

    def bind_to_texref(self, texref, allow_offset=False):
        raise _library_error(GCuda.Error.NOT_SUPPORTED,
                             'bind_to_texref(): texture references were removed in CUDA 12; read the array '
                             'through a texture object: GCuda.Texture.new_from_buffer(a.gpudata, ...) '
                             '(see GCuda.Texture)')

    def bind_to_texref_ext(self, texref, channels=1, allow_double_hack=False, allow_complex_hack=False,
                           allow_offset=False):
        raise _library_error(GCuda.Error.NOT_SUPPORTED,
                             'bind_to_texref_ext(): texture references were removed in CUDA 12; read the array '
                             'through a texture object: GCuda.Texture.new_from_buffer(a.gpudata, ...) '
                             '(see GCuda.Texture)')

    # -------------------------------------------------------- no arithmetic

    def astype(self, dtype, stream=None):
        if np.dtype(dtype) == self.dtype:
            return self.copy()
        raise _not_provided('GPUArray.astype(%s) from %s' % (np.dtype(dtype), self.dtype))

    def __pos__(self):
        return self

    @property
    def real(self):
        if self.dtype.kind == 'c':
            raise _not_provided('GPUArray.real of a complex array')
        return self

    @property
    def imag(self):
        if self.dtype.kind == 'c':
            raise _not_provided('GPUArray.imag of a complex array')
        return zeros_like(self)

    def conj(self, out=None):
        if self.dtype.kind == 'c':
            raise _not_provided('GPUArray.conj() of a complex array')
        return self

    conjugate = conj


_ARITHMETIC = (
    '__add__', '__radd__', '__iadd__', '__sub__', '__rsub__', '__isub__', '__mul__', '__rmul__', '__imul__',
    '__truediv__', '__rtruediv__', '__itruediv__', '__div__', '__rdiv__', '__idiv__', '__floordiv__',
    '__rfloordiv__', '__ifloordiv__', '__mod__', '__rmod__', '__imod__', '__divmod__', '__pow__', '__rpow__',
    '__ipow__', '__matmul__', '__rmatmul__', '__imatmul__', '__neg__', '__abs__', '__invert__', '__and__',
    '__rand__', '__iand__', '__or__', '__ror__', '__ior__', '__xor__', '__rxor__', '__ixor__', '__lshift__',
    '__rlshift__', '__ilshift__', '__rshift__', '__rrshift__', '__irshift__',
    '__eq__', '__ne__', '__lt__', '__le__', '__gt__', '__ge__',
    'mul_add', 'reverse', 'any', 'all', 'sum', 'dot', 'max', 'min', 'mean', 'prod', 'cumsum',
)
for _name in _ARITHMETIC:
    setattr(GPUArray, _name, _arithmetic(_name))
del _name


# ---------------------------------------------------------------- creation

def to_gpu(ary, allocator=None):
    """A new GPUArray holding a copy of the numpy array @ary (packed in its
    axis order)."""
    ary = np.asarray(ary)
    result = GPUArray(ary.shape, ary.dtype, allocator,
                      strides=_compact_strides(ary.shape, ary.strides, ary.dtype.itemsize))
    result.set(ary)
    return result


def to_gpu_async(ary, allocator=None, stream=None):
    """to_gpu() queued on @stream (asynchronous from page-locked memory)."""
    ary = np.asarray(ary)
    result = GPUArray(ary.shape, ary.dtype, allocator,
                      strides=_compact_strides(ary.shape, ary.strides, ary.dtype.itemsize))
    result.set_async(ary, stream)
    return result


empty = GPUArray


def zeros(shape, dtype=np.float64, allocator=None, order='C'):
    """A new array of zeros (one memset)."""
    result = GPUArray(shape, dtype, allocator, order=order)
    return result.fill(np.zeros((), result.dtype))


def ones(shape, dtype=np.float64, allocator=None, order='C'):
    result = GPUArray(shape, dtype, allocator, order=order)
    return result.fill(np.ones((), result.dtype))


def _like(other, dtype, order):
    """numpy's *_like rules for order and strides (PyCUDA's
    _array_like_helper)."""
    strides = None
    if order == 'A':
        order = 'F' if other.flags.f_contiguous and not other.flags.c_contiguous else 'C'
    elif order == 'K':
        if other.flags.c_contiguous or other.ndim <= 1:
            order = 'C'
        elif other.flags.f_contiguous:
            order = 'F'
        else:
            itemsize = np.dtype(dtype if dtype is not None else other.dtype).itemsize
            order = 'C'
            strides = _compact_strides(other.shape, other.strides, itemsize)
    elif order not in ('C', 'F'):
        raise ValueError('Unsupported order: %r' % (order,))
    if dtype is None:
        dtype = other.dtype
    return GPUArray(other.shape, dtype, getattr(other, 'allocator', None), order=order, strides=strides)


def empty_like(other_ary, dtype=None, order='K'):
    return _like(other_ary, dtype, order)


def zeros_like(other_ary, dtype=None, order='K'):
    result = _like(other_ary, dtype, order)
    return result.fill(np.zeros((), result.dtype))


def ones_like(other_ary, dtype=None, order='K'):
    result = _like(other_ary, dtype, order)
    return result.fill(np.ones((), result.dtype))


def arange(*args, **kwargs):
    """numpy.arange() computed on the host and uploaded (no kernel);
    takes @dtype and @allocator keywords."""
    dtype = kwargs.pop('dtype', None)
    allocator = kwargs.pop('allocator', None)
    if kwargs:
        raise TypeError('unexpected keyword arguments: %s' % ', '.join(sorted(kwargs)))
    return to_gpu(np.arange(*args, dtype=dtype), allocator)


def as_gpuarray(obj):
    """A GPUArray over the device memory of @obj, without a copy: a
    GPUArray (returned as is), or anything with
    ``__cuda_array_interface__`` (CuPy, PyTorch, Numba arrays), which is
    kept alive as ``gpudata``; its first element is the interface's data
    pointer, and its views stay inside the memory the interface
    describes. A malformed interface is a TypeError or ValueError naming
    what is wrong; the producer's stream (version 3) is waited for."""
    if isinstance(obj, GPUArray):
        return obj
    cai = getattr(obj, '__cuda_array_interface__', None)
    if cai is None:
        raise TypeError('%s has no __cuda_array_interface__' % type(obj).__name__)
    layout = interop._interface_layout(obj, cai, None)
    if not builtins.any(dim == 0 for dim in layout.shape):
        low, nbytes = layout.extent()
        result = GPUArray.__new__(GPUArray)
        result._set_layout(layout.shape, layout.dtype, layout.strides)
        result.allocator = GCuda.mem_alloc
        result.gpudata = obj
        result.base = None
        result._mem, result._offset, result._address = None, 0, layout.address
        result._bounds = (low, low + nbytes)
        _check_inside(result)
        return result
    return GPUArray(layout.shape, layout.dtype, strides=layout.strides)


def transpose(a, axes=None):
    return a.transpose(axes)


def reshape(a, *shape, **kwargs):
    return a.reshape(*shape, **kwargs)


# PyCUDA's functions that need kernels
_MODULE_ARITHMETIC = (
    'sum', 'dot', 'vdot', 'subset_dot', 'subset_sum', 'max', 'min', 'subset_max', 'subset_min', 'minimum',
    'maximum', 'if_positive', 'where', 'take', 'multi_take', 'multi_put', 'multi_take_put', 'concatenate',
    'stack', 'logical_and', 'logical_or', 'logical_not', 'any', 'all', 'splay',
)


def _module_arithmetic(name):
    def function(*args, **kwargs):
        raise _not_provided('gcuda.gpuarray.%s()' % name)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = 'Not provided (needs a kernel): use CuPy on the same memory, see the error message.'
    return function


for _name in _MODULE_ARITHMETIC:
    globals()[_name] = _module_arithmetic(_name)
del _name
