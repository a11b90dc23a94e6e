/* gcuda-enums.h: public enumerations and flags
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * GCudaErrorCategory:
 * @GCUDA_ERROR_CATEGORY_NONE: not a GCuda error (another domain)
 * @GCUDA_ERROR_CATEGORY_LOGIC: the call was wrong: bad argument, bad state, use after free
 *   (PyCUDA's `LogicError`)
 * @GCUDA_ERROR_CATEGORY_LAUNCH: a kernel launch failed or a kernel faulted (PyCUDA's `LaunchError`)
 * @GCUDA_ERROR_CATEGORY_MEMORY: the device ran out of memory (PyCUDA's `MemoryError`)
 * @GCUDA_ERROR_CATEGORY_RUNTIME: the environment is at fault: no driver, no device,
 *   no binary for this GPU, hardware error (PyCUDA's `RuntimeError`)
 * @GCUDA_ERROR_CATEGORY_COMPILE: NVRTC rejected the source (PyCUDA's `CompileError`)
 * @GCUDA_ERROR_CATEGORY_UNKNOWN: the driver itself does not know (`CUDA_ERROR_UNKNOWN`)
 *
 * The class of a failure, matching the exception classes PyCUDA raises.
 * The Python override raises `GCuda.LogicError`, `GCuda.LaunchError`, … accordingly.
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_ERROR_CATEGORY_NONE,
  GCUDA_ERROR_CATEGORY_LOGIC,
  GCUDA_ERROR_CATEGORY_LAUNCH,
  GCUDA_ERROR_CATEGORY_MEMORY,
  GCUDA_ERROR_CATEGORY_RUNTIME,
  GCUDA_ERROR_CATEGORY_COMPILE,
  GCUDA_ERROR_CATEGORY_UNKNOWN,
} GCudaErrorCategory;

/**
 * GCudaComputeMode:
 * @GCUDA_COMPUTE_MODE_DEFAULT: several contexts may use the device at once
 * @GCUDA_COMPUTE_MODE_PROHIBITED: no context can be created on the device
 * @GCUDA_COMPUTE_MODE_EXCLUSIVE_PROCESS: only one process may use the device
 *
 * The device's compute mode (`CUcomputemode`), see
 * [property@GCuda.Device:compute-mode].
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_COMPUTE_MODE_DEFAULT = 0,
  GCUDA_COMPUTE_MODE_PROHIBITED = 2,
  GCUDA_COMPUTE_MODE_EXCLUSIVE_PROCESS = 3,
} GCudaComputeMode;

/**
 * GCudaPeerAttribute:
 * @GCUDA_PEER_ATTRIBUTE_PERFORMANCE_RANK: the link's relative performance
 *   (0 is the best; a larger value, a slower link)
 * @GCUDA_PEER_ATTRIBUTE_ACCESS_SUPPORTED: 1 when peer access can be enabled
 *   (see [method@GCuda.Context.enable_peer_access]), else 0
 * @GCUDA_PEER_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED: 1 when atomic operations
 *   over the link are native, else 0
 * @GCUDA_PEER_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: 1 when kernels can
 *   access the peer's CUDA arrays, else 0
 *
 * What the link between two devices supports (`CUdevice_P2PAttribute`), see
 * [method@GCuda.Device.get_peer_attribute].
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_PEER_ATTRIBUTE_PERFORMANCE_RANK = 1,
  GCUDA_PEER_ATTRIBUTE_ACCESS_SUPPORTED = 2,
  GCUDA_PEER_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED = 3,
  GCUDA_PEER_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED = 4,
} GCudaPeerAttribute;

/**
 * GCudaNcclDataType:
 * @GCUDA_NCCL_DATA_TYPE_INT8: `int8_t`
 * @GCUDA_NCCL_DATA_TYPE_UINT8: `uint8_t`
 * @GCUDA_NCCL_DATA_TYPE_INT32: `int32_t`
 * @GCUDA_NCCL_DATA_TYPE_UINT32: `uint32_t`
 * @GCUDA_NCCL_DATA_TYPE_INT64: `int64_t`
 * @GCUDA_NCCL_DATA_TYPE_UINT64: `uint64_t`
 * @GCUDA_NCCL_DATA_TYPE_FLOAT16: IEEE half precision
 * @GCUDA_NCCL_DATA_TYPE_FLOAT32: `float`
 * @GCUDA_NCCL_DATA_TYPE_FLOAT64: `double`
 * @GCUDA_NCCL_DATA_TYPE_BFLOAT16: bfloat16
 *
 * The element type of a collective's buffers (NCCL's `ncclDataType_t`), see
 * [class@GCuda.Communicator].
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_NCCL_DATA_TYPE_INT8 = 0,
  GCUDA_NCCL_DATA_TYPE_UINT8 = 1,
  GCUDA_NCCL_DATA_TYPE_INT32 = 2,
  GCUDA_NCCL_DATA_TYPE_UINT32 = 3,
  GCUDA_NCCL_DATA_TYPE_INT64 = 4,
  GCUDA_NCCL_DATA_TYPE_UINT64 = 5,
  GCUDA_NCCL_DATA_TYPE_FLOAT16 = 6,
  GCUDA_NCCL_DATA_TYPE_FLOAT32 = 7,
  GCUDA_NCCL_DATA_TYPE_FLOAT64 = 8,
  GCUDA_NCCL_DATA_TYPE_BFLOAT16 = 9,
} GCudaNcclDataType;

/**
 * GCudaReduceOp:
 * @GCUDA_REDUCE_OP_SUM: the sum
 * @GCUDA_REDUCE_OP_PROD: the product
 * @GCUDA_REDUCE_OP_MAX: the maximum
 * @GCUDA_REDUCE_OP_MIN: the minimum
 * @GCUDA_REDUCE_OP_AVG: the mean over the ranks
 *
 * How a collective combines the ranks' elements (NCCL's `ncclRedOp_t`), see
 * [class@GCuda.Communicator].
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_REDUCE_OP_SUM = 0,
  GCUDA_REDUCE_OP_PROD = 1,
  GCUDA_REDUCE_OP_MAX = 2,
  GCUDA_REDUCE_OP_MIN = 3,
  GCUDA_REDUCE_OP_AVG = 4,
} GCudaReduceOp;

/**
 * GCudaContextFlags:
 * @GCUDA_CONTEXT_FLAGS_SCHED_AUTO: let the driver choose how the host thread waits
 * @GCUDA_CONTEXT_FLAGS_SCHED_SPIN: spin while waiting for the GPU
 * @GCUDA_CONTEXT_FLAGS_SCHED_YIELD: yield the CPU while waiting
 * @GCUDA_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC: block on a synchronization primitive
 * @GCUDA_CONTEXT_FLAGS_MAP_HOST: allow mapped page-locked memory (always on since CUDA 3.2)
 * @GCUDA_CONTEXT_FLAGS_LMEM_RESIZE_TO_MAX: keep local memory allocated after a launch
 * @GCUDA_CONTEXT_FLAGS_COREDUMP_ENABLE: write a core dump on GPU exceptions
 * @GCUDA_CONTEXT_FLAGS_USER_COREDUMP_ENABLE: allow user-triggered core dumps
 * @GCUDA_CONTEXT_FLAGS_SYNC_MEMOPS: make synchronous memory operations synchronize
 *
 * Context creation flags (PyCUDA's `ctx_flags`, the driver's `CU_CTX_*`).
 * At most one `SCHED_*` value may be given.
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  GCUDA_CONTEXT_FLAGS_SCHED_AUTO = 0,
  GCUDA_CONTEXT_FLAGS_SCHED_SPIN = 1 << 0,
  GCUDA_CONTEXT_FLAGS_SCHED_YIELD = 1 << 1,
  GCUDA_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC = 1 << 2,
  GCUDA_CONTEXT_FLAGS_MAP_HOST = 1 << 3,
  GCUDA_CONTEXT_FLAGS_LMEM_RESIZE_TO_MAX = 1 << 4,
  GCUDA_CONTEXT_FLAGS_COREDUMP_ENABLE = 1 << 5,
  GCUDA_CONTEXT_FLAGS_USER_COREDUMP_ENABLE = 1 << 6,
  GCUDA_CONTEXT_FLAGS_SYNC_MEMOPS = 1 << 7,
} GCudaContextFlags;

/**
 * GCudaLimit:
 * @GCUDA_LIMIT_STACK_SIZE: stack size of each GPU thread, in bytes
 * @GCUDA_LIMIT_PRINTF_FIFO_SIZE: size of the FIFO used by device `printf()`, in bytes
 * @GCUDA_LIMIT_MALLOC_HEAP_SIZE: size of the heap used by device `malloc()`, in bytes
 * @GCUDA_LIMIT_DEV_RUNTIME_SYNC_DEPTH: nesting depth of device-side synchronization
 * @GCUDA_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: pending device-side launches
 * @GCUDA_LIMIT_MAX_L2_FETCH_GRANULARITY: L2 fetch granularity hint (0 to 128 bytes)
 * @GCUDA_LIMIT_PERSISTING_L2_CACHE_SIZE: size of the persisting L2 cache, in bytes
 * @GCUDA_LIMIT_SHMEM_SIZE: shared memory available on a CIG context (read only)
 * @GCUDA_LIMIT_CIG_ENABLED: non-zero on a CIG-enabled context (read only)
 * @GCUDA_LIMIT_CIG_SHMEM_FALLBACK_ENABLED: whether a CIG context may fall back
 *   when a kernel needs more shared memory than available
 *
 * Context limits (`CUlimit`), see [method@GCuda.Context.get_limit].
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_LIMIT_STACK_SIZE = 0,
  GCUDA_LIMIT_PRINTF_FIFO_SIZE = 1,
  GCUDA_LIMIT_MALLOC_HEAP_SIZE = 2,
  GCUDA_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 3,
  GCUDA_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4,
  GCUDA_LIMIT_MAX_L2_FETCH_GRANULARITY = 5,
  GCUDA_LIMIT_PERSISTING_L2_CACHE_SIZE = 6,
  GCUDA_LIMIT_SHMEM_SIZE = 7,
  GCUDA_LIMIT_CIG_ENABLED = 8,
  GCUDA_LIMIT_CIG_SHMEM_FALLBACK_ENABLED = 9,
} GCudaLimit;

/**
 * GCudaCacheConfig:
 * @GCUDA_CACHE_CONFIG_PREFER_NONE: no preference between shared memory and L1
 * @GCUDA_CACHE_CONFIG_PREFER_SHARED: prefer a larger shared memory
 * @GCUDA_CACHE_CONFIG_PREFER_L1: prefer a larger L1 cache
 * @GCUDA_CACHE_CONFIG_PREFER_EQUAL: prefer equal sizes
 *
 * Preferred split between L1 cache and shared memory (`CUfunc_cache`,
 * PyCUDA's `func_cache`).
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_CACHE_CONFIG_PREFER_NONE = 0,
  GCUDA_CACHE_CONFIG_PREFER_SHARED = 1,
  GCUDA_CACHE_CONFIG_PREFER_L1 = 2,
  GCUDA_CACHE_CONFIG_PREFER_EQUAL = 3,
} GCudaCacheConfig;

/**
 * GCudaStreamFlags:
 * @GCUDA_STREAM_FLAGS_DEFAULT: the stream synchronizes with the legacy default stream
 * @GCUDA_STREAM_FLAGS_NON_BLOCKING: work in the stream may run concurrently with the
 *   legacy default stream
 *
 * Stream creation flags (`CU_STREAM_*`).
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  GCUDA_STREAM_FLAGS_DEFAULT = 0,
  GCUDA_STREAM_FLAGS_NON_BLOCKING = 1 << 0,
} GCudaStreamFlags;

/**
 * GCudaEventFlags:
 * @GCUDA_EVENT_FLAGS_DEFAULT: a timing event; synchronizing on it spins
 * @GCUDA_EVENT_FLAGS_BLOCKING_SYNC: [method@GCuda.Event.synchronize] blocks the
 *   thread instead of spinning
 * @GCUDA_EVENT_FLAGS_DISABLE_TIMING: the event records no time, which makes it cheaper
 * @GCUDA_EVENT_FLAGS_INTERPROCESS: the event can be shared with another process
 *   ([method@GCuda.Event.get_ipc_handle]); needs
 *   @GCUDA_EVENT_FLAGS_DISABLE_TIMING
 *
 * Event creation flags (PyCUDA's `event_flags`, the driver's `CU_EVENT_*`).
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  GCUDA_EVENT_FLAGS_DEFAULT = 0,
  GCUDA_EVENT_FLAGS_BLOCKING_SYNC = 1 << 0,
  GCUDA_EVENT_FLAGS_DISABLE_TIMING = 1 << 1,
  GCUDA_EVENT_FLAGS_INTERPROCESS = 1 << 2,
} GCudaEventFlags;

/**
 * GCudaBufferKind:
 * @GCUDA_BUFFER_KIND_DEVICE: device memory from [ctor@GCuda.Buffer.new] or
 *   [ctor@GCuda.Buffer.new_from_bytes]
 * @GCUDA_BUFFER_KIND_PITCHED: pitched device memory from
 *   [ctor@GCuda.Buffer.new_pitched]
 * @GCUDA_BUFFER_KIND_MANAGED: managed (unified) memory from
 *   [ctor@GCuda.Buffer.new_managed]
 * @GCUDA_BUFFER_KIND_IPC: memory of another process, from
 *   [func@GCuda.Buffer.open_ipc_handle]
 * @GCUDA_BUFFER_KIND_VIEW: a range of another buffer, from
 *   [method@GCuda.Buffer.new_view]
 * @GCUDA_BUFFER_KIND_GLOBAL: a `__device__` or `__constant__` variable of a
 *   module, from [method@GCuda.Module.get_global]
 * @GCUDA_BUFFER_KIND_FOREIGN: memory another library allocated, borrowed
 *   with [ctor@GCuda.Buffer.new_for_address] (never freed by GCuda)
 * @GCUDA_BUFFER_KIND_GRAPHICS: an OpenGL buffer object while its
 *   [class@GCuda.GraphicsResource] is mapped, from
 *   [method@GCuda.GraphicsResource.get_mapped_buffer] (never freed by GCuda;
 *   unusable after the unmap)
 *
 * Where a [class@GCuda.Buffer]'s memory comes from.
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_BUFFER_KIND_DEVICE,
  GCUDA_BUFFER_KIND_PITCHED,
  GCUDA_BUFFER_KIND_MANAGED,
  GCUDA_BUFFER_KIND_IPC,
  GCUDA_BUFFER_KIND_VIEW,
  GCUDA_BUFFER_KIND_GLOBAL,
  GCUDA_BUFFER_KIND_FOREIGN,
  GCUDA_BUFFER_KIND_GRAPHICS,
} GCudaBufferKind;

/**
 * GCudaMemAttachFlags:
 * @GCUDA_MEM_ATTACH_FLAGS_GLOBAL: accessible from any stream on any device
 * @GCUDA_MEM_ATTACH_FLAGS_HOST: accessible by the host; devices need an attach first
 * @GCUDA_MEM_ATTACH_FLAGS_SINGLE: accessible only from the stream it is attached to
 *
 * How managed memory is attached (PyCUDA's `mem_attach_flags`, `CU_MEM_ATTACH_*`).
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  GCUDA_MEM_ATTACH_FLAGS_GLOBAL = 1 << 0,
  GCUDA_MEM_ATTACH_FLAGS_HOST = 1 << 1,
  GCUDA_MEM_ATTACH_FLAGS_SINGLE = 1 << 2,
} GCudaMemAttachFlags;

/**
 * GCudaMemoryAdvice:
 * @GCUDA_MEMORY_ADVICE_SET_READ_MOSTLY: the data is mostly read
 * @GCUDA_MEMORY_ADVICE_UNSET_READ_MOSTLY: undoes @GCUDA_MEMORY_ADVICE_SET_READ_MOSTLY
 * @GCUDA_MEMORY_ADVICE_SET_PREFERRED_LOCATION: prefer to keep the data on the given device (or the host)
 * @GCUDA_MEMORY_ADVICE_UNSET_PREFERRED_LOCATION: undoes @GCUDA_MEMORY_ADVICE_SET_PREFERRED_LOCATION
 * @GCUDA_MEMORY_ADVICE_SET_ACCESSED_BY: the given device (or the host) will access the data
 * @GCUDA_MEMORY_ADVICE_UNSET_ACCESSED_BY: undoes @GCUDA_MEMORY_ADVICE_SET_ACCESSED_BY
 *
 * Advice about managed memory (`CUmem_advise`), see
 * [method@GCuda.Buffer.advise].
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_MEMORY_ADVICE_SET_READ_MOSTLY = 1,
  GCUDA_MEMORY_ADVICE_UNSET_READ_MOSTLY = 2,
  GCUDA_MEMORY_ADVICE_SET_PREFERRED_LOCATION = 3,
  GCUDA_MEMORY_ADVICE_UNSET_PREFERRED_LOCATION = 4,
  GCUDA_MEMORY_ADVICE_SET_ACCESSED_BY = 5,
  GCUDA_MEMORY_ADVICE_UNSET_ACCESSED_BY = 6,
} GCudaMemoryAdvice;

/**
 * GCudaHostAllocFlags:
 * @GCUDA_HOST_ALLOC_FLAGS_DEFAULT: page-locked memory for this context
 * @GCUDA_HOST_ALLOC_FLAGS_PORTABLE: page-locked for every context
 * @GCUDA_HOST_ALLOC_FLAGS_DEVICEMAP: also mapped into the device address space
 *   ([method@GCuda.HostBuffer.get_device_address])
 * @GCUDA_HOST_ALLOC_FLAGS_WRITECOMBINED: write-combined: fast to write from the host and to
 *   transfer, very slow to read from the host
 *
 * Flags for page-locked allocations (PyCUDA's `host_alloc_flags`, `CU_MEMHOSTALLOC_*`).
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  GCUDA_HOST_ALLOC_FLAGS_DEFAULT = 0,
  GCUDA_HOST_ALLOC_FLAGS_PORTABLE = 1 << 0,
  GCUDA_HOST_ALLOC_FLAGS_DEVICEMAP = 1 << 1,
  GCUDA_HOST_ALLOC_FLAGS_WRITECOMBINED = 1 << 2,
} GCudaHostAllocFlags;

/**
 * GCudaHostRegisterFlags:
 * @GCUDA_HOST_REGISTER_FLAGS_DEFAULT: page-locked for this context
 * @GCUDA_HOST_REGISTER_FLAGS_PORTABLE: page-locked for every context
 * @GCUDA_HOST_REGISTER_FLAGS_DEVICEMAP: also mapped into the device address space
 * @GCUDA_HOST_REGISTER_FLAGS_IOMEMORY: the memory is I/O memory of a third-party device
 * @GCUDA_HOST_REGISTER_FLAGS_READ_ONLY: the device will only read the memory
 *
 * Flags for registering existing host memory (PyCUDA's
 * `register_host_memory()` flags, `CU_MEMHOSTREGISTER_*`).
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  GCUDA_HOST_REGISTER_FLAGS_DEFAULT = 0,
  GCUDA_HOST_REGISTER_FLAGS_PORTABLE = 1 << 0,
  GCUDA_HOST_REGISTER_FLAGS_DEVICEMAP = 1 << 1,
  GCUDA_HOST_REGISTER_FLAGS_IOMEMORY = 1 << 2,
  GCUDA_HOST_REGISTER_FLAGS_READ_ONLY = 1 << 3,
} GCudaHostRegisterFlags;

/**
 * GCudaHostBufferKind:
 * @GCUDA_HOST_BUFFER_KIND_PAGELOCKED: page-locked memory from
 *   [ctor@GCuda.HostBuffer.new_pagelocked]
 * @GCUDA_HOST_BUFFER_KIND_ALIGNED: ordinary aligned memory from
 *   [ctor@GCuda.HostBuffer.new_aligned]
 * @GCUDA_HOST_BUFFER_KIND_REGISTERED: existing memory page-locked by
 *   [func@GCuda.HostBuffer.register]
 *
 * Where a [class@GCuda.HostBuffer]'s memory comes from.
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_HOST_BUFFER_KIND_PAGELOCKED,
  GCUDA_HOST_BUFFER_KIND_ALIGNED,
  GCUDA_HOST_BUFFER_KIND_REGISTERED,
} GCudaHostBufferKind;

/**
 * GCudaMemoryType:
 * @GCUDA_MEMORY_TYPE_UNKNOWN: memory CUDA does not know (ordinary host memory)
 * @GCUDA_MEMORY_TYPE_HOST: page-locked or registered host memory
 * @GCUDA_MEMORY_TYPE_DEVICE: device memory
 * @GCUDA_MEMORY_TYPE_ARRAY: a CUDA array
 * @GCUDA_MEMORY_TYPE_UNIFIED: unified (managed) memory
 *
 * What an address points to (`CUmemorytype`), see
 * [func@GCuda.Context.get_pointer_info].
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_MEMORY_TYPE_UNKNOWN = 0,
  GCUDA_MEMORY_TYPE_HOST = 1,
  GCUDA_MEMORY_TYPE_DEVICE = 2,
  GCUDA_MEMORY_TYPE_ARRAY = 3,
  GCUDA_MEMORY_TYPE_UNIFIED = 4,
} GCudaMemoryType;

/**
 * GCudaProgramKind:
 * @GCUDA_PROGRAM_KIND_CUBIN: machine code for one GPU architecture (`sm_XY`)
 * @GCUDA_PROGRAM_KIND_PTX: PTX, compiled further by the driver when loaded
 *
 * What a compile produces (see [property@GCuda.Compiler:target]).
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_PROGRAM_KIND_CUBIN,
  GCUDA_PROGRAM_KIND_PTX,
} GCudaProgramKind;

/**
 * GCudaFunctionAttribute:
 * @GCUDA_FUNCTION_ATTRIBUTE_MAX_THREADS_PER_BLOCK: the most threads a block may have
 * @GCUDA_FUNCTION_ATTRIBUTE_SHARED_SIZE_BYTES: static shared memory per block
 * @GCUDA_FUNCTION_ATTRIBUTE_CONST_SIZE_BYTES: constant memory the kernel uses
 * @GCUDA_FUNCTION_ATTRIBUTE_LOCAL_SIZE_BYTES: local memory per thread
 * @GCUDA_FUNCTION_ATTRIBUTE_NUM_REGS: registers per thread
 * @GCUDA_FUNCTION_ATTRIBUTE_PTX_VERSION: PTX version × 10 + minor
 * @GCUDA_FUNCTION_ATTRIBUTE_BINARY_VERSION: binary (SM) version × 10 + minor
 * @GCUDA_FUNCTION_ATTRIBUTE_CACHE_MODE_CA: compiled with `-Xptxas --dlcm=ca`
 * @GCUDA_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: the most dynamic
 *   shared memory a launch may ask for (settable)
 * @GCUDA_FUNCTION_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: preferred
 *   shared memory share of L1, in percent (settable)
 * @GCUDA_FUNCTION_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: the kernel needs a
 *   cluster size at launch
 * @GCUDA_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: compiled-in cluster width
 * @GCUDA_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: compiled-in cluster height
 * @GCUDA_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: compiled-in cluster depth
 * @GCUDA_FUNCTION_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: clusters
 *   larger than the portable 8 blocks are allowed (settable)
 * @GCUDA_FUNCTION_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: the
 *   cluster scheduling policy (settable)
 *
 * A kernel attribute (`CUfunction_attribute`), see
 * [method@GCuda.Function.get_attribute].
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_FUNCTION_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  GCUDA_FUNCTION_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  GCUDA_FUNCTION_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  GCUDA_FUNCTION_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  GCUDA_FUNCTION_ATTRIBUTE_NUM_REGS = 4,
  GCUDA_FUNCTION_ATTRIBUTE_PTX_VERSION = 5,
  GCUDA_FUNCTION_ATTRIBUTE_BINARY_VERSION = 6,
  GCUDA_FUNCTION_ATTRIBUTE_CACHE_MODE_CA = 7,
  GCUDA_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  GCUDA_FUNCTION_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
  GCUDA_FUNCTION_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 10,
  GCUDA_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
  GCUDA_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12,
  GCUDA_FUNCTION_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13,
  GCUDA_FUNCTION_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
  GCUDA_FUNCTION_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15,
} GCudaFunctionAttribute;

/**
 * GCudaLinkInputType:
 * @GCUDA_LINK_INPUT_TYPE_AUTO: guess from the data (ELF cubin, fatbin magic,
 *   PTX text, `ar` archive) or the file name's extension
 * @GCUDA_LINK_INPUT_TYPE_CUBIN: a (relocatable) cubin
 * @GCUDA_LINK_INPUT_TYPE_PTX: PTX text
 * @GCUDA_LINK_INPUT_TYPE_FATBINARY: a fatbin
 * @GCUDA_LINK_INPUT_TYPE_OBJECT: a host object file with embedded device code
 * @GCUDA_LINK_INPUT_TYPE_LIBRARY: a static library of device code (`.a`)
 *
 * What a [class@GCuda.Linker] input is (`CUjitInputType`).
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_LINK_INPUT_TYPE_AUTO = -1,
  GCUDA_LINK_INPUT_TYPE_CUBIN = 0,
  GCUDA_LINK_INPUT_TYPE_PTX = 1,
  GCUDA_LINK_INPUT_TYPE_FATBINARY = 2,
  GCUDA_LINK_INPUT_TYPE_OBJECT = 3,
  GCUDA_LINK_INPUT_TYPE_LIBRARY = 4,
} GCudaLinkInputType;

/**
 * GCudaCaptureMode:
 * @GCUDA_CAPTURE_MODE_GLOBAL: potentially unsafe calls (synchronous
 *   transfers, context synchronization, …) are refused in every thread while
 *   any thread captures in this mode
 * @GCUDA_CAPTURE_MODE_THREAD_LOCAL: such calls are refused in the capturing
 *   thread only
 * @GCUDA_CAPTURE_MODE_RELAXED: nothing is refused
 *
 * How strictly a graph capture guards against calls that would break it
 * (`CUstreamCaptureMode`).
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_CAPTURE_MODE_GLOBAL = 0,
  GCUDA_CAPTURE_MODE_THREAD_LOCAL = 1,
  GCUDA_CAPTURE_MODE_RELAXED = 2,
} GCudaCaptureMode;

/**
 * GCudaCaptureStatus:
 * @GCUDA_CAPTURE_STATUS_NONE: the stream is not capturing
 * @GCUDA_CAPTURE_STATUS_ACTIVE: the stream is capturing
 * @GCUDA_CAPTURE_STATUS_INVALIDATED: the capture was broken by an illegal
 *   call; [method@GCuda.Stream.end_capture] will fail
 *
 * A stream's graph-capture state (`CUstreamCaptureStatus`).
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_CAPTURE_STATUS_NONE = 0,
  GCUDA_CAPTURE_STATUS_ACTIVE = 1,
  GCUDA_CAPTURE_STATUS_INVALIDATED = 2,
} GCudaCaptureStatus;

/* device tools */

/**
 * GCudaOccupancyLimit:
 * @GCUDA_OCCUPANCY_LIMIT_DEVICE: the device's maximum number of resident
 *   blocks per multiprocessor
 * @GCUDA_OCCUPANCY_LIMIT_WARPS: the multiprocessor's warp slots
 * @GCUDA_OCCUPANCY_LIMIT_REGISTERS: the multiprocessor's register file
 * @GCUDA_OCCUPANCY_LIMIT_SHARED_MEMORY: the multiprocessor's shared memory
 *
 * What limits the number of blocks of a kernel that are resident on one
 * multiprocessor (PyCUDA's `OccupancyRecord.limited_by`: "device", "warps",
 * "regs", "smem").
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_OCCUPANCY_LIMIT_DEVICE = 0,
  GCUDA_OCCUPANCY_LIMIT_WARPS = 1,
  GCUDA_OCCUPANCY_LIMIT_REGISTERS = 2,
  GCUDA_OCCUPANCY_LIMIT_SHARED_MEMORY = 3,
} GCudaOccupancyLimit;

/* arrays and textures */

/**
 * GCudaArrayFormat:
 * @GCUDA_ARRAY_FORMAT_UNSIGNED_INT8: unsigned 8-bit integers
 * @GCUDA_ARRAY_FORMAT_UNSIGNED_INT16: unsigned 16-bit integers
 * @GCUDA_ARRAY_FORMAT_UNSIGNED_INT32: unsigned 32-bit integers
 * @GCUDA_ARRAY_FORMAT_SIGNED_INT8: signed 8-bit integers
 * @GCUDA_ARRAY_FORMAT_SIGNED_INT16: signed 16-bit integers
 * @GCUDA_ARRAY_FORMAT_SIGNED_INT32: signed 32-bit integers; with 2 or 4
 *   channels also the carrier of 64-bit data (float64, complex64,
 *   complex128) read as `int2`/`int4` and reassembled in the kernel
 * @GCUDA_ARRAY_FORMAT_HALF: 16-bit floating point
 * @GCUDA_ARRAY_FORMAT_FLOAT: 32-bit floating point
 *
 * The type of each channel of an array or texture element (PyCUDA's
 * `array_format`, the driver's `CUarray_format`).
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_ARRAY_FORMAT_UNSIGNED_INT8 = 0x01,
  GCUDA_ARRAY_FORMAT_UNSIGNED_INT16 = 0x02,
  GCUDA_ARRAY_FORMAT_UNSIGNED_INT32 = 0x03,
  GCUDA_ARRAY_FORMAT_SIGNED_INT8 = 0x08,
  GCUDA_ARRAY_FORMAT_SIGNED_INT16 = 0x09,
  GCUDA_ARRAY_FORMAT_SIGNED_INT32 = 0x0a,
  GCUDA_ARRAY_FORMAT_HALF = 0x10,
  GCUDA_ARRAY_FORMAT_FLOAT = 0x20,
} GCudaArrayFormat;

/**
 * GCudaArrayFlags:
 * @GCUDA_ARRAY_FLAGS_NONE: a plain 1D, 2D or 3D array
 * @GCUDA_ARRAY_FLAGS_LAYERED: the depth counts layers of 1D or 2D arrays
 * @GCUDA_ARRAY_FLAGS_SURFACE_LDST: surfaces may be made over the array
 * @GCUDA_ARRAY_FLAGS_CUBEMAP: a cubemap: width equals height, depth is 6
 *   (or a multiple of 6 with %GCUDA_ARRAY_FLAGS_LAYERED)
 * @GCUDA_ARRAY_FLAGS_TEXTURE_GATHER: the array will be read with texture
 *   gather
 *
 * How an array is laid out and what it may be used for (PyCUDA's
 * `array3d_flags`, the driver's `CUDA_ARRAY3D_*` flags).
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  GCUDA_ARRAY_FLAGS_NONE = 0,
  GCUDA_ARRAY_FLAGS_LAYERED = 1 << 0,
  GCUDA_ARRAY_FLAGS_SURFACE_LDST = 1 << 1,
  GCUDA_ARRAY_FLAGS_CUBEMAP = 1 << 2,
  GCUDA_ARRAY_FLAGS_TEXTURE_GATHER = 1 << 3,
} GCudaArrayFlags;

/**
 * GCudaAddressMode:
 * @GCUDA_ADDRESS_MODE_WRAP: coordinates wrap around (normalized
 *   coordinates only)
 * @GCUDA_ADDRESS_MODE_CLAMP: coordinates are clamped to the edge
 * @GCUDA_ADDRESS_MODE_MIRROR: coordinates are mirrored at the edge
 *   (normalized coordinates only)
 * @GCUDA_ADDRESS_MODE_BORDER: reads outside return zero
 *
 * What a texture read outside its extent returns, per dimension (PyCUDA's
 * `address_mode`, the driver's `CUaddress_mode`).
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_ADDRESS_MODE_WRAP = 0,
  GCUDA_ADDRESS_MODE_CLAMP = 1,
  GCUDA_ADDRESS_MODE_MIRROR = 2,
  GCUDA_ADDRESS_MODE_BORDER = 3,
} GCudaAddressMode;

/**
 * GCudaFilterMode:
 * @GCUDA_FILTER_MODE_POINT: the nearest element
 * @GCUDA_FILTER_MODE_LINEAR: linear interpolation between neighbouring
 *   elements (floating-point results only)
 *
 * How a texture read between elements is answered (PyCUDA's
 * `filter_mode`, the driver's `CUfilter_mode`).
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_FILTER_MODE_POINT = 0,
  GCUDA_FILTER_MODE_LINEAR = 1,
} GCudaFilterMode;

/**
 * GCudaTextureFlags:
 * @GCUDA_TEXTURE_FLAGS_NONE: integers are read as normalized floats,
 *   coordinates are element indices
 * @GCUDA_TEXTURE_FLAGS_READ_AS_INTEGER: integer data is read as integers
 *   (needed for `int2`/`int4` reads of 64-bit data)
 * @GCUDA_TEXTURE_FLAGS_NORMALIZED_COORDINATES: coordinates run from 0 to 1
 *   over each dimension
 * @GCUDA_TEXTURE_FLAGS_SRGB: 8-bit data is converted from sRGB to linear
 *
 * Options of a texture read (PyCUDA's `TRSF_*` flags, the driver's
 * `CU_TRSF_*`).
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  GCUDA_TEXTURE_FLAGS_NONE = 0,
  GCUDA_TEXTURE_FLAGS_READ_AS_INTEGER = 0x01,
  GCUDA_TEXTURE_FLAGS_NORMALIZED_COORDINATES = 0x02,
  GCUDA_TEXTURE_FLAGS_SRGB = 0x10,
} GCudaTextureFlags;

/**
 * GCudaGraphicsRegisterFlags:
 * @GCUDA_GRAPHICS_REGISTER_FLAGS_NONE: CUDA reads and writes the resource
 * @GCUDA_GRAPHICS_REGISTER_FLAGS_READ_ONLY: CUDA only reads the resource
 * @GCUDA_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD: CUDA only writes, and writes
 *   all of it: the previous contents need not be kept
 * @GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE: kernels write the image
 *   through a [class@GCuda.Surface] (images only)
 * @GCUDA_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER: kernels use texture gather
 *   on the image (images only)
 *
 * How CUDA will use a registered OpenGL object (the driver's
 * `CUgraphicsRegisterFlags`; PyCUDA's `graphics_map_flags` are the first
 * three). READ_ONLY and WRITE_DISCARD exclude each other.
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  GCUDA_GRAPHICS_REGISTER_FLAGS_NONE = 0,
  GCUDA_GRAPHICS_REGISTER_FLAGS_READ_ONLY = 0x01,
  GCUDA_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD = 0x02,
  GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE = 0x04,
  GCUDA_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER = 0x08,
} GCudaGraphicsRegisterFlags;

/**
 * GCudaGraphicsResourceKind:
 * @GCUDA_GRAPHICS_RESOURCE_KIND_BUFFER: an OpenGL buffer object, mapped as
 *   a [class@GCuda.Buffer]
 * @GCUDA_GRAPHICS_RESOURCE_KIND_IMAGE: an OpenGL texture or renderbuffer,
 *   mapped as [class@GCuda.Array]s
 *
 * What a [class@GCuda.GraphicsResource] was registered from.
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_GRAPHICS_RESOURCE_KIND_BUFFER,
  GCUDA_GRAPHICS_RESOURCE_KIND_IMAGE,
} GCudaGraphicsResourceKind;

/**
 * GCudaGLDeviceList:
 * @GCUDA_GL_DEVICE_LIST_ALL: every device the current OpenGL context uses
 * @GCUDA_GL_DEVICE_LIST_CURRENT_FRAME: the devices rendering the current
 *   frame (SLI)
 * @GCUDA_GL_DEVICE_LIST_NEXT_FRAME: the devices that will render the next
 *   frame (SLI; a prediction)
 *
 * Which devices [func@GCuda.graphics_get_gl_devices] lists (the driver's
 * `CUGLDeviceList`).
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_GL_DEVICE_LIST_ALL = 1,
  GCUDA_GL_DEVICE_LIST_CURRENT_FRAME = 2,
  GCUDA_GL_DEVICE_LIST_NEXT_FRAME = 3,
} GCudaGLDeviceList;

G_END_DECLS
