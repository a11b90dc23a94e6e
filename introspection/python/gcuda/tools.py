# PyCUDA's `pycuda.tools` names, backed by GCuda: device choice, memory
# pools, device metadata and occupancy, context-dependent caching, the test
# marker, and the dtype machinery of gcuda._dtypes (dtype_to_ctype,
# parse_c_arg, VectorArg, ScalarArg, get_arg_type, ...).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

DeviceMemoryPool = GCuda.DeviceMemoryPool
PooledDeviceAllocation = GCuda.PooledDeviceAllocation
PooledHostAllocation = GCuda.PooledHostAllocation
bitlog2 = GCuda.bitlog2
DeviceData = GCuda.DeviceData
OccupancyRecord = GCuda.OccupancyRecord
context_dependent_memoize = GCuda.context_dependent_memoize
clear_context_caches = GCuda.clear_context_caches
mark_cuda_test = GCuda.mark_cuda_test


class PageLockedAllocator:
    """PyCUDA's ``PageLockedAllocator(flags=0)``: the
    GCuda.HostAllocFlags a PageLockedMemoryPool allocates with
    (``PageLockedMemoryPool(PageLockedAllocator(flags))``: ``int()`` of it is
    the flags, which is what the pool reads). Called with a size, it returns
    that many bytes of new page-locked memory (a numpy uint8 array whose
    .base is a GCuda.HostBuffer)."""

    def __init__(self, flags=0):
        self.flags = int(flags)

    def __int__(self):
        return self.flags

    def __call__(self, size):
        return GCuda.pagelocked_empty((size,), 'uint8', mem_flags=self.flags)


# PageLockedMemoryPool(allocator=PageLockedAllocator()) as in PyCUDA: the
# pool's flags argument takes the allocator (int(allocator) is its flags).
PageLockedMemoryPool = GCuda.PageLockedMemoryPool


def get_default_device(default=0):
    """PyCUDA's ``get_default_device()`` (deprecated there too): the device
    numbered by CUDA_DEVICE, else by ~/.cuda_device (or ~/.cuda-device), else
    device @default. Use make_default_context() or
    GCuda.Context.get_default()."""
    ordinal = os.environ.get('CUDA_DEVICE')
    if ordinal is None:
        for name in ('.cuda_device', '.cuda-device'):
            try:
                with open(os.path.join(os.path.expanduser('~'), name)) as f:
                    ordinal = f.read().strip()
                break
            except OSError:
                pass
    if ordinal is None:
        ordinal = default
    try:
        ordinal = int(ordinal)
    except ValueError:
        raise ValueError('CUDA_DEVICE or ~/.cuda_device must hold a device number, not %r' % ordinal) from None
    return GCuda.Device.get(ordinal)


def make_default_context(ctx_maker=None):
    """PyCUDA's ``make_default_context()``: the default context (the primary
    context of the device PyCUDA's rules choose: CUDA_DEVICE,
    ~/.cuda_device, else the first that works), made current on the calling
    thread (pushed: pop it with ``ctx.pop()`` as in PyCUDA). With
    @ctx_maker (a callable taking a GCuda.Device and returning a context it
    made current, such as ``lambda dev: dev.make_context()``), that is used
    on the chosen device, or on each device in turn until one works."""
    if ctx_maker is None:
        ctx = GCuda.Context.get_default()
        ctx.push()
        return ctx
    if 'CUDA_DEVICE' in os.environ or any(
            os.path.exists(os.path.join(os.path.expanduser('~'), n)) for n in ('.cuda_device', '.cuda-device')):
        return ctx_maker(get_default_device())
    last = None
    for ordinal in range(GCuda.Device.get_count()):
        try:
            return ctx_maker(GCuda.Device.get(ordinal))
        except GCuda.CudaError as e:
            last = e
    if last is not None:
        raise last
    return ctx_maker(GCuda.Device.get(0))  # no device: GCuda's error says so


# gcuda._dtypes (PyCUDA's dtype machinery) is imported on first use: it
# needs numpy, which the other names here do not.
_FROM_DTYPES = ('dtype_to_ctype', 'parse_c_arg', 'VectorArg', 'ScalarArg', 'get_arg_type',
                'register_dtype', 'get_or_register_dtype')


def __getattr__(name):
    if name in _FROM_DTYPES:
        from . import _dtypes
        value = getattr(_dtypes, name)
        globals()[name] = value
        return value
    raise AttributeError('module %r has no attribute %r' % (__name__, name))


def __dir__():
    return sorted(set(globals()) | set(_FROM_DTYPES))
