/* gcuda-cuda-abi-private.h: GCuda's own declarations of the CUDA driver ABI
 *
 * The part of libcuda's ABI that GCuda, its mock driver, its tests and its
 * benchmarks use, declared from the driver API's documented values and
 * layouts, so that GCuda builds without the CUDA toolkit (whose headers are
 * not free software). Names are the driver API's, so code reads as usual.
 * Only what is used is declared: add a declaration when new code needs one.
 *
 * Every declaration here is checked against the toolkit's cuda.h wherever
 * one is found at build time (tests/abi: the test `cuda-abi-check`, built
 * with -Dcuda-headers=auto or toolkit). The check is generated from this
 * file by tools/gen-cuda-abi-check.py, so declarations follow a strict
 * layout it understands: one `typedef enum TAG {...} NAME;` with
 * `NAME = VALUE,` lines, `typedef struct TAG {...} NAME;` (nested struct
 * or union members written `struct {` ... `} member;`), `#define NAME VALUE`
 * and `typedef T NAME;` lines. Entry points are the rows of
 * GCUDA_CUDA_ABI_FUNCTIONS below.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <stddef.h>
#include <stdint.h>

/* The driver API version these declarations describe (what cuda.h calls
 * CUDA_VERSION, defined to it below). */
#define GCUDA_CUDA_ABI_VERSION 13000

#define CUDA_VERSION GCUDA_CUDA_ABI_VERSION

#define CUDAAPI
#define CUDA_CB

/* ---------------------------------------------------------------- scalars */

typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;

/* ---------------------------------------------------------------- handles */

typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUarray_st *CUarray;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUlinkState_st *CUlinkState;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef struct CUgraphicsResource_st *CUgraphicsResource;

/* ---------------------------------------------------------------- constants */

#define CU_STREAM_LEGACY ((CUstream) 0x1)
#define CU_STREAM_PER_THREAD ((CUstream) 0x2)
#define CU_LAUNCH_PARAM_END ((void *) 0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *) 0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *) 0x02)
#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define CU_MEMHOSTALLOC_WRITECOMBINED 0x04
#define CU_IPC_HANDLE_SIZE 64
#define CUDA_ARRAY3D_LAYERED 0x01
#define CUDA_ARRAY3D_SURFACE_LDST 0x02
#define CUDA_ARRAY3D_CUBEMAP 0x04
#define CUDA_ARRAY3D_TEXTURE_GATHER 0x08
#define CU_TRSF_READ_AS_INTEGER 0x01
#define CU_TRSF_NORMALIZED_COORDINATES 0x02
#define CU_TRSF_SRGB 0x10

/* ---------------------------------------------------------------- enums */

typedef enum CUdevice_P2PAttribute_enum {
  CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK = 1,
  CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED = 2,
  CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED = 3,
  CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED = 4,
} CUdevice_P2PAttribute;

typedef enum CUipcMem_flags_enum {
  CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1,
} CUipcMem_flags;

typedef enum CUdriverProcAddress_flags_enum {
  CU_GET_PROC_ADDRESS_DEFAULT = 0,
} CUdriverProcAddress_flags;

typedef enum CUmemAttach_flags_enum {
  CU_MEM_ATTACH_GLOBAL = 1,
  CU_MEM_ATTACH_HOST = 2,
} CUmemAttach_flags;

typedef enum CUctx_flags_enum {
  CU_CTX_SCHED_AUTO = 0,
  CU_CTX_SCHED_SPIN = 1,
  CU_CTX_SCHED_YIELD = 2,
  CU_CTX_SCHED_BLOCKING_SYNC = 4,
  CU_CTX_MAP_HOST = 8,
  CU_CTX_LMEM_RESIZE_TO_MAX = 16,
  CU_CTX_COREDUMP_ENABLE = 32,
  CU_CTX_USER_COREDUMP_ENABLE = 64,
  CU_CTX_SYNC_MEMOPS = 128,
  CU_CTX_FLAGS_MASK = 255,
} CUctx_flags;

typedef enum CUstream_flags_enum {
  CU_STREAM_NON_BLOCKING = 1,
} CUstream_flags;

typedef enum CUevent_flags_enum {
  CU_EVENT_DEFAULT = 0,
  CU_EVENT_DISABLE_TIMING = 2,
} CUevent_flags;

typedef enum CUstreamWaitValue_flags_enum {
  CU_STREAM_WAIT_VALUE_GEQ = 0,
  CU_STREAM_WAIT_VALUE_NOR = 3,
  CU_STREAM_WAIT_VALUE_FLUSH = 1073741824,
} CUstreamWaitValue_flags;

typedef enum CUarray_format_enum {
  CU_AD_FORMAT_UNSIGNED_INT8 = 1,
  CU_AD_FORMAT_SIGNED_INT32 = 10,
  CU_AD_FORMAT_HALF = 16,
  CU_AD_FORMAT_FLOAT = 32,
} CUarray_format;

typedef enum CUaddress_mode_enum {
  CU_TR_ADDRESS_MODE_BORDER = 3,
} CUaddress_mode;

typedef enum CUfilter_mode_enum {
  CU_TR_FILTER_MODE_LINEAR = 1,
} CUfilter_mode;

typedef enum CUdevice_attribute_enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 17,
  CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH = 27,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT = 28,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS = 29,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
  CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER = 44,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH = 45,
  CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
  CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
  CU_DEVICE_ATTRIBUTE_MAX = 148,
} CUdevice_attribute;

typedef enum CUpointer_attribute_enum {
  CU_POINTER_ATTRIBUTE_CONTEXT = 1,
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
  CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
} CUpointer_attribute;

typedef enum CUfunction_attribute_enum {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
  CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
} CUfunction_attribute;

typedef enum CUfunc_cache_enum {
  CU_FUNC_CACHE_PREFER_NONE = 0,
  CU_FUNC_CACHE_PREFER_SHARED = 1,
  CU_FUNC_CACHE_PREFER_L1 = 2,
  CU_FUNC_CACHE_PREFER_EQUAL = 3,
} CUfunc_cache;

typedef enum CUmemorytype_enum {
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_MEMORYTYPE_ARRAY = 3,
  CU_MEMORYTYPE_UNIFIED = 4,
} CUmemorytype;

typedef enum CUcomputemode_enum {
  CU_COMPUTEMODE_DEFAULT = 0,
  CU_COMPUTEMODE_PROHIBITED = 2,
  CU_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
} CUcomputemode;

typedef enum CUmem_advise_enum {
  CU_MEM_ADVISE_SET_READ_MOSTLY = 1,
} CUmem_advise;

typedef enum CUjit_option_enum {
  CU_JIT_MAX_REGISTERS = 0,
  CU_JIT_THREADS_PER_BLOCK = 1,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
  CU_JIT_GENERATE_DEBUG_INFO = 11,
  CU_JIT_LOG_VERBOSE = 12,
  CU_JIT_GENERATE_LINE_INFO = 13,
} CUjit_option;

typedef enum CUjitInputType_enum {
  CU_JIT_INPUT_CUBIN = 0,
  CU_JIT_INPUT_PTX = 1,
  CU_JIT_INPUT_FATBINARY = 2,
  CU_JIT_INPUT_OBJECT = 3,
  CU_JIT_INPUT_LIBRARY = 4,
} CUjitInputType;

typedef enum CUlimit_enum {
  CU_LIMIT_STACK_SIZE = 0,
  CU_LIMIT_PRINTF_FIFO_SIZE = 1,
  CU_LIMIT_MALLOC_HEAP_SIZE = 2,
  CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 3,
  CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4,
  CU_LIMIT_MAX_L2_FETCH_GRANULARITY = 5,
  CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 6,
  CU_LIMIT_SHMEM_SIZE = 7,
  CU_LIMIT_CIG_ENABLED = 8,
  CU_LIMIT_MAX = 10,
} CUlimit;

typedef enum CUresourcetype_enum {
  CU_RESOURCE_TYPE_ARRAY = 0,
  CU_RESOURCE_TYPE_LINEAR = 2,
  CU_RESOURCE_TYPE_PITCH2D = 3,
} CUresourcetype;

typedef enum CUlaunchAttributeID_enum {
  CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
} CUlaunchAttributeID;

typedef enum CUstreamCaptureStatus_enum {
  CU_STREAM_CAPTURE_STATUS_NONE = 0,
} CUstreamCaptureStatus;

typedef enum CUstreamCaptureMode_enum {
  CU_STREAM_CAPTURE_MODE_RELAXED = 2,
} CUstreamCaptureMode;

typedef enum CUdriverProcAddressQueryResult_enum {
  CU_GET_PROC_ADDRESS_SUCCESS = 0,
  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
} CUdriverProcAddressQueryResult;

typedef enum cudaError_enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_DEVICE_NOT_LICENSED = 102,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_ARRAY_IS_MAPPED = 207,
  CUDA_ERROR_ALREADY_MAPPED = 208,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_NOT_MAPPED = 211,
  CUDA_ERROR_NOT_MAPPED_AS_ARRAY = 212,
  CUDA_ERROR_NOT_MAPPED_AS_POINTER = 213,
  CUDA_ERROR_ECC_UNCORRECTABLE = 214,
  CUDA_ERROR_UNSUPPORTED_LIMIT = 215,
  CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
  CUDA_ERROR_INVALID_GRAPHICS_CONTEXT = 219,
  CUDA_ERROR_NVLINK_UNCORRECTABLE = 220,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY = 224,
  CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC = 225,
  CUDA_ERROR_FILE_NOT_FOUND = 301,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING = 703,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
  CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
  CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
  CUDA_ERROR_ASSERT = 710,
  CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
  CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
  CUDA_ERROR_MISALIGNED_ADDRESS = 716,
  CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
  CUDA_ERROR_INVALID_PC = 718,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
  CUDA_ERROR_TENSOR_MEMORY_LEAK = 721,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_SYSTEM_NOT_READY = 802,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
  CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
  CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE = 910,
  CUDA_ERROR_UNKNOWN = 999,
} CUresult;

typedef enum CUmemAllocationHandleType_enum {
  CU_MEM_HANDLE_TYPE_NONE = 0,
} CUmemAllocationHandleType;

typedef enum CUmemLocationType_enum {
  CU_MEM_LOCATION_TYPE_DEVICE = 1,
  CU_MEM_LOCATION_TYPE_HOST = 2,
} CUmemLocationType;

typedef enum CUmemAllocationType_enum {
  CU_MEM_ALLOCATION_TYPE_PINNED = 1,
} CUmemAllocationType;

typedef enum CUgraphExecUpdateResult_enum {
  CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED = 2,
  CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED = 3,
  CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED = 4,
  CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED = 5,
  CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED = 6,
  CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE = 7,
  CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED = 8,
} CUgraphExecUpdateResult;

typedef enum CUmemPool_attribute_enum {
  CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
  CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5,
  CU_MEMPOOL_ATTR_USED_MEM_CURRENT = 7,
} CUmemPool_attribute;

typedef enum CUgraphDebugDot_flags_enum {
  CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE = 1,
} CUgraphDebugDot_flags;

typedef enum CUgraphicsRegisterFlags_enum {
  CU_GRAPHICS_REGISTER_FLAGS_NONE = 0,
  CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY = 1,
  CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD = 2,
  CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST = 4,
  CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER = 8,
} CUgraphicsRegisterFlags;

/* cudaGL.h's */
typedef enum CUGLDeviceList_enum {
  CU_GL_DEVICE_LIST_ALL = 1,
  CU_GL_DEVICE_LIST_CURRENT_FRAME = 2,
  CU_GL_DEVICE_LIST_NEXT_FRAME = 3,
} CUGLDeviceList;

/* ---------------------------------------------------------------- structs */

typedef struct CUuuid_st {
  char bytes[16];
} CUuuid;

typedef struct CUipcEventHandle_st {
  char reserved[64];
} CUipcEventHandle;

typedef struct CUipcMemHandle_st {
  char reserved[64];
} CUipcMemHandle;

/* only passed as NULL */
typedef struct CUctxCreateParams_st CUctxCreateParams;
typedef struct CUDA_RESOURCE_VIEW_DESC_st CUDA_RESOURCE_VIEW_DESC;

typedef struct CUDA_MEMCPY2D_st {
  size_t srcXInBytes;
  size_t srcY;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes;
  size_t dstY;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes;
  size_t Height;
} CUDA_MEMCPY2D;

typedef struct CUDA_MEMCPY3D_st {
  size_t srcXInBytes;
  size_t srcY;
  size_t srcZ;
  size_t srcLOD;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  void *reserved0;
  size_t srcPitch;
  size_t srcHeight;
  size_t dstXInBytes;
  size_t dstY;
  size_t dstZ;
  size_t dstLOD;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  void *reserved1;
  size_t dstPitch;
  size_t dstHeight;
  size_t WidthInBytes;
  size_t Height;
  size_t Depth;
} CUDA_MEMCPY3D;

typedef struct CUDA_MEMCPY3D_PEER_st {
  size_t srcXInBytes;
  size_t srcY;
  size_t srcZ;
  size_t srcLOD;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  CUcontext srcContext;
  size_t srcPitch;
  size_t srcHeight;
  size_t dstXInBytes;
  size_t dstY;
  size_t dstZ;
  size_t dstLOD;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  CUcontext dstContext;
  size_t dstPitch;
  size_t dstHeight;
  size_t WidthInBytes;
  size_t Height;
  size_t Depth;
} CUDA_MEMCPY3D_PEER;

typedef struct CUDA_ARRAY3D_DESCRIPTOR_st {
  size_t Width;
  size_t Height;
  size_t Depth;
  CUarray_format Format;
  unsigned int NumChannels;
  unsigned int Flags;
} CUDA_ARRAY3D_DESCRIPTOR;

/* res: the mipmapped-array member is left out (unused; reserved sets the size) */
typedef struct CUDA_RESOURCE_DESC_st {
  CUresourcetype resType;
  union {
    struct {
      CUarray hArray;
    } array;
    struct {
      CUdeviceptr devPtr;
      CUarray_format format;
      unsigned int numChannels;
      size_t sizeInBytes;
    } linear;
    struct {
      CUdeviceptr devPtr;
      CUarray_format format;
      unsigned int numChannels;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned int flags;
} CUDA_RESOURCE_DESC;

typedef struct CUDA_TEXTURE_DESC_st {
  CUaddress_mode addressMode[3];
  CUfilter_mode filterMode;
  unsigned int flags;
  unsigned int maxAnisotropy;
  CUfilter_mode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
} CUDA_TEXTURE_DESC;

/* only the members GCuda sets; pad gives the union its size */
typedef union CUlaunchAttributeValue_union {
  char pad[64];
  int cooperative;
  struct {
    unsigned int x;
    unsigned int y;
    unsigned int z;
  } clusterDim;
} CUlaunchAttributeValue;

typedef struct CUlaunchAttribute_st {
  CUlaunchAttributeID id;
  char pad[4];
  CUlaunchAttributeValue value;
} CUlaunchAttribute;

typedef struct CUlaunchConfig_st {
  unsigned int gridDimX;
  unsigned int gridDimY;
  unsigned int gridDimZ;
  unsigned int blockDimX;
  unsigned int blockDimY;
  unsigned int blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned int numAttrs;
} CUlaunchConfig;

typedef struct CUgraphExecUpdateResultInfo_st {
  CUgraphExecUpdateResult result;
  CUgraphNode errorNode;
  CUgraphNode errorFromNode;
} CUgraphExecUpdateResultInfo;

typedef struct CUmemLocation_st {
  CUmemLocationType type;
  int id;
} CUmemLocation;

typedef struct CUmemPoolProps_st {
  CUmemAllocationType allocType;
  CUmemAllocationHandleType handleTypes;
  CUmemLocation location;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
} CUmemPoolProps;

/* ---------------------------------------------------------------- callbacks */

/* X (return type, name, parameter types) */
#define GCUDA_CUDA_ABI_CALLBACKS(X) \
  X (void, CUhostFn, (void *)) \
  X (size_t, CUoccupancyB2DSize, (int))

/* ---------------------------------------------------------------- entry points */

/* X (name, ABI version, parameter types): each is declared as the function
 * pointer type PFN_<name>_v<version>, as the driver's cuGetProcAddress
 * returns it for that version (every entry point returns CUresult). The
 * loader's table (gcuda-loader-private.h) names the ones the library
 * resolves; the mock driver, the tests and the benchmarks use others. */
#define GCUDA_CUDA_ABI_FUNCTIONS(X) \
  X (cuDriverGetVersion, 2020, (int *)) \
  X (cuGetErrorName, 6000, (CUresult, const char **)) \
  X (cuGetErrorString, 6000, (CUresult, const char **)) \
  X (cuDeviceGetCount, 2000, (int *)) \
  X (cuDeviceGet, 2000, (CUdevice *, int)) \
  X (cuDeviceGetName, 2000, (char *, int, CUdevice)) \
  X (cuDeviceGetAttribute, 2000, (int *, CUdevice_attribute, CUdevice)) \
  X (cuDeviceTotalMem, 3020, (size_t *, CUdevice)) \
  X (cuDeviceGetUuid, 11040, (CUuuid *, CUdevice)) \
  X (cuDeviceGetPCIBusId, 4010, (char *, int, CUdevice)) \
  X (cuDeviceGetByPCIBusId, 4010, (CUdevice *, const char *)) \
  X (cuDeviceCanAccessPeer, 4000, (int *, CUdevice, CUdevice)) \
  X (cuDeviceGetP2PAttribute, 8000, (int *, CUdevice_P2PAttribute, CUdevice, CUdevice)) \
  X (cuDevicePrimaryCtxRetain, 7000, (CUcontext *, CUdevice)) \
  X (cuDevicePrimaryCtxRelease, 11000, (CUdevice)) \
  X (cuDevicePrimaryCtxSetFlags, 11000, (CUdevice, unsigned int)) \
  X (cuDevicePrimaryCtxGetState, 7000, (CUdevice, unsigned int *, int *)) \
  X (cuCtxCreate, 12050, (CUcontext *, CUctxCreateParams *, unsigned int, CUdevice)) \
  X (cuCtxDestroy, 4000, (CUcontext)) \
  X (cuCtxPushCurrent, 4000, (CUcontext)) \
  X (cuCtxPopCurrent, 4000, (CUcontext *)) \
  X (cuCtxGetCurrent, 4000, (CUcontext *)) \
  X (cuCtxSetCurrent, 4000, (CUcontext)) \
  X (cuCtxGetDevice, 2000, (CUdevice *)) \
  X (cuCtxGetFlags, 7000, (unsigned int *)) \
  X (cuCtxSynchronize, 2000, (void)) \
  X (cuCtxGetLimit, 3010, (size_t *, CUlimit)) \
  X (cuCtxSetLimit, 3010, (CUlimit, size_t)) \
  X (cuCtxGetCacheConfig, 3020, (CUfunc_cache *)) \
  X (cuCtxSetCacheConfig, 3020, (CUfunc_cache)) \
  X (cuCtxGetStreamPriorityRange, 5050, (int *, int *)) \
  X (cuCtxGetApiVersion, 3020, (CUcontext, unsigned int *)) \
  X (cuCtxEnablePeerAccess, 4000, (CUcontext, unsigned int)) \
  X (cuCtxDisablePeerAccess, 4000, (CUcontext)) \
  X (cuMemGetInfo, 3020, (size_t *, size_t *)) \
  X (cuStreamCreateWithPriority, 5050, (CUstream *, unsigned int, int)) \
  X (cuStreamDestroy, 4000, (CUstream)) \
  X (cuStreamSynchronize, 2000, (CUstream)) \
  X (cuStreamQuery, 2000, (CUstream)) \
  X (cuStreamGetCtx, 9020, (CUstream, CUcontext *)) \
  X (cuStreamGetFlags, 5050, (CUstream, unsigned int *)) \
  X (cuStreamGetPriority, 5050, (CUstream, int *)) \
  X (cuStreamWaitEvent, 3020, (CUstream, CUevent, unsigned int)) \
  X (cuLaunchHostFunc, 10000, (CUstream, CUhostFn, void *)) \
  X (cuEventCreate, 2000, (CUevent *, unsigned int)) \
  X (cuEventDestroy, 4000, (CUevent)) \
  X (cuEventRecord, 2000, (CUevent, CUstream)) \
  X (cuEventSynchronize, 2000, (CUevent)) \
  X (cuEventQuery, 2000, (CUevent)) \
  X (cuEventElapsedTime, 12080, (float *, CUevent, CUevent)) \
  X (cuIpcGetEventHandle, 4010, (CUipcEventHandle *, CUevent)) \
  X (cuIpcOpenEventHandle, 4010, (CUevent *, CUipcEventHandle)) \
  X (cuMemAlloc, 3020, (CUdeviceptr *, size_t)) \
  X (cuMemAllocPitch, 3020, (CUdeviceptr *, size_t *, size_t, size_t, unsigned int)) \
  X (cuMemFree, 3020, (CUdeviceptr)) \
  X (cuMemAllocManaged, 6000, (CUdeviceptr *, size_t, unsigned int)) \
  X (cuMemcpyHtoD, 3020, (CUdeviceptr, const void *, size_t)) \
  X (cuMemcpyDtoH, 3020, (void *, CUdeviceptr, size_t)) \
  X (cuMemcpyDtoD, 3020, (CUdeviceptr, CUdeviceptr, size_t)) \
  X (cuMemcpyHtoDAsync, 3020, (CUdeviceptr, const void *, size_t, CUstream)) \
  X (cuMemcpyDtoHAsync, 3020, (void *, CUdeviceptr, size_t, CUstream)) \
  X (cuMemcpyDtoDAsync, 3020, (CUdeviceptr, CUdeviceptr, size_t, CUstream)) \
  X (cuMemcpyPeer, 4000, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t)) \
  X (cuMemcpyPeerAsync, 4000, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream)) \
  X (cuMemsetD8, 3020, (CUdeviceptr, unsigned char, size_t)) \
  X (cuMemsetD16, 3020, (CUdeviceptr, unsigned short, size_t)) \
  X (cuMemsetD32, 3020, (CUdeviceptr, unsigned int, size_t)) \
  X (cuMemsetD8Async, 3020, (CUdeviceptr, unsigned char, size_t, CUstream)) \
  X (cuMemsetD16Async, 3020, (CUdeviceptr, unsigned short, size_t, CUstream)) \
  X (cuMemsetD32Async, 3020, (CUdeviceptr, unsigned int, size_t, CUstream)) \
  X (cuMemsetD2D8, 3020, (CUdeviceptr, size_t, unsigned char, size_t, size_t)) \
  X (cuMemsetD2D16, 3020, (CUdeviceptr, size_t, unsigned short, size_t, size_t)) \
  X (cuMemsetD2D32, 3020, (CUdeviceptr, size_t, unsigned int, size_t, size_t)) \
  X (cuMemsetD2D8Async, 3020, (CUdeviceptr, size_t, unsigned char, size_t, size_t, CUstream)) \
  X (cuMemsetD2D16Async, 3020, (CUdeviceptr, size_t, unsigned short, size_t, size_t, CUstream)) \
  X (cuMemsetD2D32Async, 3020, (CUdeviceptr, size_t, unsigned int, size_t, size_t, CUstream)) \
  X (cuIpcGetMemHandle, 4010, (CUipcMemHandle *, CUdeviceptr)) \
  X (cuIpcOpenMemHandle, 11000, (CUdeviceptr *, CUipcMemHandle, unsigned int)) \
  X (cuIpcCloseMemHandle, 4010, (CUdeviceptr)) \
  X (cuStreamAttachMemAsync, 6000, (CUstream, CUdeviceptr, size_t, unsigned int)) \
  X (cuMemPrefetchAsync, 12020, (CUdeviceptr, size_t, CUmemLocation, unsigned int, CUstream)) \
  X (cuMemAdvise, 12020, (CUdeviceptr, size_t, CUmem_advise, CUmemLocation)) \
  X (cuMemAllocHost, 3020, (void **, size_t)) \
  X (cuMemFreeHost, 2000, (void *)) \
  X (cuMemGetAddressRange, 3020, (CUdeviceptr *, size_t *, CUdeviceptr)) \
  X (cuMemHostAlloc, 2020, (void **, size_t, unsigned int)) \
  X (cuMemHostRegister, 6050, (void *, size_t, unsigned int)) \
  X (cuMemHostUnregister, 4000, (void *)) \
  X (cuMemHostGetDevicePointer, 3020, (CUdeviceptr *, void *, unsigned int)) \
  X (cuPointerGetAttributes, 7000, (unsigned int, CUpointer_attribute *, void **, CUdeviceptr)) \
  X (cuModuleLoadDataEx, 2010, (CUmodule *, const void *, unsigned int, CUjit_option *, void **)) \
  X (cuModuleUnload, 2000, (CUmodule)) \
  X (cuModuleGetFunction, 2000, (CUfunction *, CUmodule, const char *)) \
  X (cuModuleGetGlobal, 3020, (CUdeviceptr *, size_t *, CUmodule, const char *)) \
  X (cuFuncGetAttribute, 2020, (int *, CUfunction_attribute, CUfunction)) \
  X (cuFuncSetAttribute, 9000, (CUfunction, CUfunction_attribute, int)) \
  X (cuFuncSetCacheConfig, 3000, (CUfunction, CUfunc_cache)) \
  X (cuFuncGetParamInfo, 12040, (CUfunction, size_t, size_t *, size_t *)) \
  X (cuLaunchKernel, 4000, (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, CUstream, void **, void **)) \
  X (cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050, (int *, CUfunction, int, size_t)) \
  X (cuOccupancyMaxPotentialBlockSize, 6050, (int *, int *, CUfunction, CUoccupancyB2DSize, size_t, int)) \
  X (cuLaunchKernelEx, 11060, (const CUlaunchConfig *, CUfunction, void **, void **)) \
  X (cuLinkCreate, 6050, (unsigned int, CUjit_option *, void **, CUlinkState *)) \
  X (cuLinkAddData, 6050, (CUlinkState, CUjitInputType, void *, size_t, const char *, unsigned int, CUjit_option *, void **)) \
  X (cuLinkAddFile, 6050, (CUlinkState, CUjitInputType, const char *, unsigned int, CUjit_option *, void **)) \
  X (cuLinkComplete, 5050, (CUlinkState, void **, size_t *)) \
  X (cuLinkDestroy, 5050, (CUlinkState)) \
  X (cuStreamBeginCapture, 10010, (CUstream, CUstreamCaptureMode)) \
  X (cuStreamEndCapture, 10000, (CUstream, CUgraph *)) \
  X (cuStreamIsCapturing, 10000, (CUstream, CUstreamCaptureStatus *)) \
  X (cuGraphInstantiateWithFlags, 11040, (CUgraphExec *, CUgraph, unsigned long long)) \
  X (cuGraphLaunch, 10000, (CUgraphExec, CUstream)) \
  X (cuGraphExecUpdate, 12000, (CUgraphExec, CUgraph, CUgraphExecUpdateResultInfo *)) \
  X (cuGraphDestroy, 10000, (CUgraph)) \
  X (cuGraphExecDestroy, 10000, (CUgraphExec)) \
  X (cuGraphGetNodes, 10000, (CUgraph, CUgraphNode *, size_t *)) \
  X (cuGraphDebugDotPrint, 11030, (CUgraph, const char *, unsigned int)) \
  X (cuMemPoolCreate, 11020, (CUmemoryPool *, const CUmemPoolProps *)) \
  X (cuMemPoolDestroy, 11020, (CUmemoryPool)) \
  X (cuMemPoolSetAttribute, 11020, (CUmemoryPool, CUmemPool_attribute, void *)) \
  X (cuMemPoolGetAttribute, 11020, (CUmemoryPool, CUmemPool_attribute, void *)) \
  X (cuMemAllocFromPoolAsync, 11020, (CUdeviceptr *, size_t, CUmemoryPool, CUstream)) \
  X (cuMemFreeAsync, 11020, (CUdeviceptr, CUstream)) \
  X (cuMemPoolTrimTo, 11020, (CUmemoryPool, size_t)) \
  X (cuProfilerStart, 4000, (void)) \
  X (cuProfilerStop, 4000, (void)) \
  X (cuMemcpyHtoA, 3020, (CUarray, size_t, const void *, size_t)) \
  X (cuMemcpyAtoH, 3020, (void *, CUarray, size_t, size_t)) \
  X (cuMemcpyDtoA, 3020, (CUarray, size_t, CUdeviceptr, size_t)) \
  X (cuMemcpyAtoD, 3020, (CUdeviceptr, CUarray, size_t, size_t)) \
  X (cuMemcpyAtoA, 3020, (CUarray, size_t, CUarray, size_t, size_t)) \
  X (cuArray3DCreate, 3020, (CUarray *, const CUDA_ARRAY3D_DESCRIPTOR *)) \
  X (cuArrayDestroy, 2000, (CUarray)) \
  X (cuTexObjectCreate, 5000, (CUtexObject *, const CUDA_RESOURCE_DESC *, const CUDA_TEXTURE_DESC *, const CUDA_RESOURCE_VIEW_DESC *)) \
  X (cuTexObjectDestroy, 5000, (CUtexObject)) \
  X (cuSurfObjectCreate, 5000, (CUsurfObject *, const CUDA_RESOURCE_DESC *)) \
  X (cuSurfObjectDestroy, 5000, (CUsurfObject)) \
  X (cuMemcpy2D, 3020, (const CUDA_MEMCPY2D *)) \
  X (cuMemcpy2DUnaligned, 3020, (const CUDA_MEMCPY2D *)) \
  X (cuMemcpy2DAsync, 3020, (const CUDA_MEMCPY2D *, CUstream)) \
  X (cuMemcpy3D, 3020, (const CUDA_MEMCPY3D *)) \
  X (cuMemcpy3DAsync, 3020, (const CUDA_MEMCPY3D *, CUstream)) \
  X (cuMemcpy3DPeer, 4000, (const CUDA_MEMCPY3D_PEER *)) \
  X (cuMemcpy3DPeerAsync, 4000, (const CUDA_MEMCPY3D_PEER *, CUstream)) \
  X (cuInit, 2000, (unsigned int)) \
  X (cuGetProcAddress, 12000, (const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *)) \
  X (cuModuleLoadData, 2000, (CUmodule *, const void *)) \
  X (cuStreamWaitValue32, 11070, (CUstream, CUdeviceptr, cuuint32_t, unsigned int)) \
  X (cuArray3DGetDescriptor, 3020, (CUDA_ARRAY3D_DESCRIPTOR *, CUarray)) \
  X (cuGraphicsUnregisterResource, 3000, (CUgraphicsResource)) \
  X (cuGraphicsMapResources, 3000, (unsigned int, CUgraphicsResource *, CUstream)) \
  X (cuGraphicsUnmapResources, 3000, (unsigned int, CUgraphicsResource *, CUstream)) \
  X (cuGraphicsResourceGetMappedPointer, 3020, (CUdeviceptr *, size_t *, CUgraphicsResource)) \
  X (cuGraphicsSubResourceGetMappedArray, 3000, (CUarray *, CUgraphicsResource, unsigned int, unsigned int)) \
  /* cudaGL.h's (GLuint and GLenum are unsigned int) */ \
  X (cuGraphicsGLRegisterBuffer, 3000, (CUgraphicsResource *, unsigned int, unsigned int)) \
  X (cuGraphicsGLRegisterImage, 3000, (CUgraphicsResource *, unsigned int, unsigned int, unsigned int)) \
  X (cuGLGetDevices, 6050, (unsigned int *, CUdevice *, unsigned int, CUGLDeviceList))

/* (the ABI check defines GCUDA_CUDA_ABI_NO_FUNCTION_TYPES: it compares the
 * tables with the toolkit's types instead) */
#ifndef GCUDA_CUDA_ABI_NO_FUNCTION_TYPES

#define GCUDA_CUDA_ABI_DECLARE_CALLBACK(ret, name, params) typedef ret (CUDAAPI *name) params;
GCUDA_CUDA_ABI_CALLBACKS (GCUDA_CUDA_ABI_DECLARE_CALLBACK)
#undef GCUDA_CUDA_ABI_DECLARE_CALLBACK

#define GCUDA_CUDA_ABI_DECLARE_PFN(name, version, params) \
  typedef CUresult (CUDAAPI *PFN_##name##_v##version) params;
GCUDA_CUDA_ABI_FUNCTIONS (GCUDA_CUDA_ABI_DECLARE_PFN)
#undef GCUDA_CUDA_ABI_DECLARE_PFN

#endif /* !GCUDA_CUDA_ABI_NO_FUNCTION_TYPES */
