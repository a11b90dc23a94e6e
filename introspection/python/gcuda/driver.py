# PyCUDA's `pycuda.driver` names, backed by GCuda.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

Device = GCuda.Device
Context = GCuda.Context

Error = GCuda.CudaError
LogicError = GCuda.LogicError
LaunchError = GCuda.LaunchError
MemoryError = GCuda.MemoryError  # noqa: A001
RuntimeError = GCuda.RuntimeError  # noqa: A001
CompileError = GCuda.CompileError

# PyCUDA's enum: members are also GCuda.DeviceAttribute values (as ints);
# str(member) is the bare name, as PyCUDA prints it.
device_attribute = GCuda.device_attribute
ctx_flags = GCuda.ContextFlags
limit = GCuda.Limit
compute_mode = GCuda.ComputeMode


class func_cache:  # noqa: N801 - PyCUDA's name
    PREFER_NONE = GCuda.CacheConfig.NONE
    PREFER_SHARED = GCuda.CacheConfig.SHARED
    PREFER_L1 = GCuda.CacheConfig.L1
    PREFER_EQUAL = GCuda.CacheConfig.EQUAL


def init(flags=0):
    """Loads and initializes the driver (optional: GCuda does it on demand)."""
    if flags != 0:
        raise LogicError('cuInit flags must be 0', 'gcuda-error-quark', int(GCuda.Error.INVALID_ARGUMENT))
    GCuda.init()


get_version = GCuda.get_version
get_driver_version = GCuda.get_driver_version
mem_get_info = GCuda.mem_get_info

# ---------------------------------------------------------------- streams and events

Stream = GCuda.Stream
Event = GCuda.Event
stream_flags = GCuda.StreamFlags
event_flags = GCuda.EventFlags

# ---------------------------------------------------------------- memory
#
# Device pointers are GCuda.Buffer objects (or PyCUDA-style holders: see
# PointerHolderBase). Arrays made by the functions below have the GCuda
# object as `.base` (GCuda.get_host_buffer(ary) and GCuda.get_buffer(ary)
# find it from any view).


class PointerHolderBase:
    """PyCUDA's base class for objects that hold device memory made
    elsewhere: a subclass implements ``get_pointer()`` (the device address,
    an int), and GCuda takes its instances where it takes device memory
    (kernel arguments, copies, ``GPUArray(gpudata=...)``). ``int(x)`` is
    the address."""

    def get_pointer(self):
        raise NotImplementedError('a PointerHolderBase subclass implements get_pointer()')

    def __int__(self):
        return int(self.get_pointer())

    def __index__(self):
        return int(self.get_pointer())

    def as_buffer(self, size, offset=0):
        """The host-visible bytes of (managed) memory at the pointer: only
        for memory the host can address; PyCUDA's as_buffer()."""
        import ctypes
        return (ctypes.c_char * size).from_address(int(self) + offset)


def mem_alloc_like(ary, context=None):
    """PyCUDA's ``mem_alloc_like()``: device memory of @ary's size in bytes
    (uninitialised)."""
    return GCuda.mem_alloc(ary.nbytes, context)


def mem_get_address_range(ptr, context=None):
    """(base, size) of the allocation device address @ptr lies in
    (PyCUDA's ``mem_get_address_range()``)."""
    if context is None:
        context = GCuda.Context.get_thread_default()
    return tuple(context.get_address_range(int(ptr)))

DeviceAllocation = GCuda.Buffer
ManagedAllocation = GCuda.Buffer
PagelockedHostAllocation = GCuda.HostBuffer
HostAllocation = GCuda.HostBuffer  # PyCUDA's deprecated name
AlignedHostAllocation = GCuda.HostBuffer
RegisteredHostMemory = GCuda.HostBuffer

host_alloc_flags = GCuda.HostAllocFlags
mem_host_register_flags = GCuda.HostRegisterFlags
mem_attach_flags = GCuda.MemAttachFlags
memory_type = GCuda.MemoryType


def IPCMemoryHandle(ipc_handle, flags=None, context=None):  # noqa: N802 - PyCUDA's class name
    """Opens device memory another process shared with mem_get_ipc_handle(),
    in @context (default: the current one), on the device the memory is on
    or on another one with a peer link (peer access is enabled lazily, as
    PyCUDA's default flags ask; @flags is accepted for compatibility and
    ignored). A GCuda.Buffer of kind IPC; close() (or free()) unmaps it,
    closing again does nothing, other uses then raise GCuda.Error.FREED."""
    return GCuda.Buffer.from_ipc_handle(ipc_handle, context)


def IPCEventHandle(ipc_handle, context=None):  # noqa: N802 - the shape of IPCMemoryHandle
    """Opens an event another process shared with Event.ipc_handle() (an
    event made with EventFlags.INTERPROCESS | DISABLE_TIMING): the same as
    Event.from_ipc_handle(), shaped like IPCMemoryHandle."""
    return GCuda.Event.from_ipc_handle(ipc_handle, context)


mem_alloc = GCuda.mem_alloc
mem_alloc_pitch = GCuda.mem_alloc_pitch
mem_get_ipc_handle = GCuda.mem_get_ipc_handle
to_device = GCuda.to_device
from_device = GCuda.from_device
from_device_like = GCuda.from_device_like

memcpy_htod = GCuda.memcpy_htod
memcpy_htod_async = GCuda.memcpy_htod_async
memcpy_dtoh = GCuda.memcpy_dtoh
memcpy_dtoh_async = GCuda.memcpy_dtoh_async
memcpy_dtod = GCuda.memcpy_dtod
memcpy_dtod_async = GCuda.memcpy_dtod_async
memcpy_peer = GCuda.memcpy_peer
memcpy_peer_async = GCuda.memcpy_peer_async

memset_d8 = GCuda.memset_d8
memset_d16 = GCuda.memset_d16
memset_d32 = GCuda.memset_d32
memset_d8_async = GCuda.memset_d8_async
memset_d16_async = GCuda.memset_d16_async
memset_d32_async = GCuda.memset_d32_async
memset_d2d8 = GCuda.memset_d2d8
memset_d2d16 = GCuda.memset_d2d16
memset_d2d32 = GCuda.memset_d2d32
memset_d2d8_async = GCuda.memset_d2d8_async
memset_d2d16_async = GCuda.memset_d2d16_async
memset_d2d32_async = GCuda.memset_d2d32_async

pagelocked_empty = GCuda.pagelocked_empty
pagelocked_zeros = GCuda.pagelocked_zeros
pagelocked_empty_like = GCuda.pagelocked_empty_like
pagelocked_zeros_like = GCuda.pagelocked_zeros_like
aligned_empty = GCuda.aligned_empty
aligned_zeros = GCuda.aligned_zeros
aligned_empty_like = GCuda.aligned_empty_like
aligned_zeros_like = GCuda.aligned_zeros_like
managed_empty = GCuda.managed_empty
managed_zeros = GCuda.managed_zeros
managed_empty_like = GCuda.managed_empty_like
managed_zeros_like = GCuda.managed_zeros_like
register_host_memory = GCuda.register_host_memory

# ---------------------------------------------------------------- code on the device
#
# Function(*args, block=..., grid=..., stream=..., shared=..., time_kernel=...)
# and prepare()/prepared_call() follow PyCUDA; a kernel's parameters are
# checked against the kernel (count and sizes) before every launch.

Module = GCuda.Module
Function = GCuda.Function
ArgumentHandler = GCuda.ArgumentHandler
In = GCuda.In
Out = GCuda.Out
InOut = GCuda.InOut
module_from_buffer = GCuda.module_from_buffer
module_from_file = GCuda.module_from_file

function_attribute = GCuda.FunctionAttribute
jit_input_type = GCuda.LinkInputType
JitOptions = GCuda.JitOptions
LaunchConfig = GCuda.LaunchConfig
Linker = GCuda.Linker
Graph = GCuda.Graph
GraphExec = GCuda.GraphExec
capture_mode = GCuda.CaptureMode


class jit_option:  # noqa: N801 - PyCUDA's name
    """Names for module_from_buffer(options=[(jit_option.X, value), …]):
    the GCuda.JitOptions properties. The log buffers, the wall time and the
    target are handled by GCuda (logs: module.get_info_log() and
    get_error_log(); target: the context's device) and accepted as no-ops."""
    MAX_REGISTERS = 'max_registers'
    THREADS_PER_BLOCK = 'threads_per_block'
    OPTIMIZATION_LEVEL = 'optimization_level'
    GENERATE_DEBUG_INFO = 'generate_debug_info'
    GENERATE_LINE_INFO = 'generate_line_info'
    LOG_VERBOSE = 'log_verbose'
    WALL_TIME = 'wall_time'
    INFO_LOG_BUFFER = 'info_log_buffer'
    INFO_LOG_BUFFER_SIZE_BYTES = 'info_log_buffer_size_bytes'
    ERROR_LOG_BUFFER = 'error_log_buffer'
    ERROR_LOG_BUFFER_SIZE_BYTES = 'error_log_buffer_size_bytes'
    TARGET_FROM_CUCONTEXT = 'target_from_cucontext'


# ---------------------------------------------------------------- copies and arrays
#
# Memcpy2D/Memcpy3D/Memcpy3DPeer: PyCUDA's fields as attributes
# (copy.src_pitch = 256; a misspelt field is an AttributeError), and
# set_src_host(numpy array) / set_src_device(buffer or int) /
# set_src_array(ary) / set_dst_*; copy() waits, copy(stream) queues.

Memcpy2D = GCuda.Copy2D
Memcpy3D = GCuda.Copy3D
Memcpy3DPeer = GCuda.Copy3DPeer

Array = GCuda.Array  # Array(descriptor) as in PyCUDA
ArrayDescriptor = GCuda.ArrayDescriptor  # width, height, format, num_channels
ArrayDescriptor3D = GCuda.ArrayDescriptor  # also depth and flags
array_format = GCuda.ArrayFormat
array3d_flags = GCuda.ArrayFlags
address_mode = GCuda.AddressMode
filter_mode = GCuda.FilterMode

memcpy_htoa = GCuda.memcpy_htoa
memcpy_atoh = GCuda.memcpy_atoh
memcpy_dtoa = GCuda.memcpy_dtoa
memcpy_atod = GCuda.memcpy_atod
memcpy_atoa = GCuda.memcpy_atoa
matrix_to_array = GCuda.matrix_to_array
make_multichannel_2d_array = GCuda.make_multichannel_2d_array
gpuarray_to_array = GCuda.gpuarray_to_array


def dtype_to_array_format(dtype):
    """PyCUDA's ``dtype_to_array_format()``: the array_format of one channel
    holding @dtype (8-, 16- and 32-bit integers, float16, float32); other
    dtypes are a TypeError, as in PyCUDA (GCuda.dtype_to_array_format()
    also carries 64-bit types as several channels)."""
    fmt, channels = GCuda.dtype_to_array_format(dtype)
    if channels != 1:
        raise TypeError('no array format holds %s in one channel' % (dtype,))
    return fmt


def np_to_array(nparray, order, allowSurfaceBind=False, layered=False, context=None,  # noqa: N803 - PyCUDA's
                allow_surface_bind=None):
    """PyCUDA's ``np_to_array(nparray, order, allowSurfaceBind=False)``
    (GCuda's allow_surface_bind= also works); see GCuda.np_to_array()."""
    if allow_surface_bind is not None:
        allowSurfaceBind = allow_surface_bind  # noqa: N806
    return GCuda.np_to_array(nparray, order, bool(allowSurfaceBind), layered, context)


# Texture and surface references were removed in CUDA 12: the names exist so
# that PyCUDA code imports, and using them is GCuda.Error.NOT_SUPPORTED.
# Use GCuda.Texture / GCuda.make_texture() (texture objects) instead.

TR_DEFAULT = 0
TRSA_OVERRIDE_FORMAT = 1
TRSF_READ_AS_INTEGER = 1
TRSF_NORMALIZED_COORDINATES = 2
TRSF_SRGB = 0x10


def _no_references(what):
    raise LogicError('%s: texture and surface references were removed in CUDA 12; use texture objects '
                     '(GCuda.Texture, GCuda.make_texture(), GCuda.Surface) instead' % what,
                     'gcuda-error-quark', int(GCuda.Error.NOT_SUPPORTED))


class TextureReference:
    """Not provided: texture references were removed in CUDA 12 (making
    one is GCuda.Error.NOT_SUPPORTED). Use GCuda.make_texture()."""

    def __init__(self, *args, **kwargs):
        _no_references('TextureReference')


class SurfaceReference:
    """Not provided: surface references were removed in CUDA 12 (making
    one is GCuda.Error.NOT_SUPPORTED). Use GCuda.Surface."""

    def __init__(self, *args, **kwargs):
        _no_references('SurfaceReference')


def matrix_to_texref(matrix, texref, order):
    """Not provided (texture references were removed in CUDA 12)."""
    _no_references('matrix_to_texref()')


def bind_array_to_texref(ary, texref):
    """Not provided (texture references were removed in CUDA 12)."""
    _no_references('bind_array_to_texref()')


# ---------------------------------------------------------------- profiler

start_profiler = GCuda.start_profiler
stop_profiler = GCuda.stop_profiler


def initialize_profiler(config_file, output_file, output_mode):
    """Not provided: cuProfilerInitialize was removed in CUDA 12 (the call
    is GCuda.Error.NOT_SUPPORTED). Configure Nsight Systems / Nsight
    Compute instead; start_profiler()/stop_profiler() work."""
    raise LogicError('initialize_profiler(): cuProfilerInitialize was removed in CUDA 12; configure the '
                     'profiler (Nsight Systems, Nsight Compute) itself', 'gcuda-error-quark',
                     int(GCuda.Error.NOT_SUPPORTED))
