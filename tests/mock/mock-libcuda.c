/* mock-libcuda.c: a stand-in for libcuda.so.1, for running GCuda's GPU tests
 * on a machine without a GPU (the `mock` suite, GCUDA_DRIVER_LIBRARY=<this>).
 *
 * It implements the part of the driver API that GCuda's devices, contexts,
 * buffers, host buffers and memory pools use, with the driver's documented
 * semantics: per-thread context stacks, reference-counted primary contexts,
 * cuCtxCreate pushing the new context, errors for a missing current context,
 * limits, cache configuration and peer access; device and page-locked memory
 * (cuMemAlloc, cuMemHostAlloc, cuMemAllocHost, their frees, cuMemGetInfo,
 * cuMemGetAddressRange, cuPointerGetAttributes), copies between host and device memory and memsets,
 * on the default streams only (NULL, legacy, per-thread; cuStreamSynchronize
 * accepts only those). Device memory is host memory, so copies are memcpy.
 * Memory belongs to the context current at allocation and goes with it
 * (cuCtxDestroy, the primary context's last release); freeing an unknown
 * address is CUDA_ERROR_INVALID_VALUE, and a copy or memset outside a live
 * allocation too. Managed memory (cuMemAllocManaged) is device memory the
 * host can address, as all of the mock's is. OpenGL interop works on fake
 * GL objects (see "OpenGL interop" below). Everything else (streams,
 * events, modules, launches, arrays, prefetch and advice, IPC, peer copies
 * but cuMemcpyPeer) is absent from cuGetProcAddress, as on an old driver (with
 * GCUDA_MOCK_KERNELS=1: PTX modules, launches that run nothing,
 * streams, host functions and the stream-ordered allocator's pools, see
 * "kernels" below; with GCUDA_MOCK_EVENTS=1 too: events, stream queries,
 * pitched memory and 2D/3D copies, see "events and 2D/3D copies"). It is no substitute for the real run on a GPU host;
 * it lets the suite exercise GCuda's logic (and the tests' own code)
 * everywhere.
 *
 * GCUDA_MOCK_COMPUTE_CAPABILITY ("MAJOR.MINOR", default 9.0) sets the
 * devices' compute capability (e.g. one that no prebuilt cubin fits, so that
 * a module's PTX is loaded).
 *
 * GCUDA_MOCK_DRIVER_VERSION sets the CUDA version cuDriverGetVersion reports
 * (default 13000), and GCUDA_MOCK_OMIT (a comma-separated list such as
 * "cuCtxCreate") leaves entry points out of cuGetProcAddress, as an older
 * driver would.
 *
 * GCUDA_MOCK_DEVICES sets the number of devices (default 1); with 0, cuInit
 * fails with CUDA_ERROR_NO_DEVICE, as the real driver does without a GPU.
 * Every two devices have a peer link (cuDeviceCanAccessPeer,
 * cuDeviceGetP2PAttribute: all supported, rank 0), except with
 * GCUDA_MOCK_PEER=0 (no link: peer access is
 * CUDA_ERROR_PEER_ACCESS_UNSUPPORTED). cuMemcpyPeer copies between live
 * contexts.
 * GCUDA_MOCK_DEVICE_MEMORY sets each device's memory in bytes (default an
 * H100's 85520809984, which the device tests expect): cuDeviceTotalMem and
 * cuMemGetInfo report it, and cuMemAlloc fails with CUDA_ERROR_OUT_OF_MEMORY
 * once the device's allocations would exceed it. Page-locked memory is not
 * counted against it.
 *
 * Leak checking, as `compute-sanitizer --leak-check full` does it: an
 * allocation still live when its context goes (cuCtxDestroy, the primary
 * context's last release) was leaked by the program, even though the
 * context takes it. gcuda_mock_get_leaks() (exported, for tests: dlsym it
 * from GCUDA_DRIVER_LIBRARY) counts them, gcuda_mock_get_allocations() the
 * live allocations; with GCUDA_MOCK_LEAK_CHECK=1 each leak is reported on
 * stderr when its context goes, with GCUDA_MOCK_LEAK_CHECK=fatal the
 * process then aborts (the mock suite runs so: a leak fails the test).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE  /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "gcuda-cuda-abi-private.h"

#define EXPORT __attribute__ ((visibility ("default")))

/* What the mock exports by name (the rest through cuGetProcAddress_v2), with
 * the types GCuda's loader gives them. */
EXPORT CUresult CUDAAPI cuInit (unsigned int flags);
EXPORT CUresult CUDAAPI cuGetErrorString (CUresult error, const char **str);
EXPORT CUresult CUDAAPI cuGetProcAddress_v2 (const char *symbol, void **pfn, int version, cuuint64_t flags,
                                             CUdriverProcAddressQueryResult *status);
_Static_assert (__builtin_types_compatible_p (__typeof__ (&cuInit), PFN_cuInit_v2000), "cuInit");
_Static_assert (__builtin_types_compatible_p (__typeof__ (&cuGetErrorString), PFN_cuGetErrorString_v6000),
                "cuGetErrorString");
_Static_assert (__builtin_types_compatible_p (__typeof__ (&cuGetProcAddress_v2), PFN_cuGetProcAddress_v12000),
                "cuGetProcAddress_v2");
#define MAX_DEVICES 8
#define MAX_STACK 64
#define N_LIMITS 10
/* an H100's, what the device tests expect; GCUDA_MOCK_DEVICE_MEMORY sets another */
#define DEFAULT_DEVICE_MEMORY ((size_t) 85520809984ULL)

struct CUctx_st {
  int device;
  unsigned int flags;
  int primary;
  int destroyed;
  size_t limits[N_LIMITS];
  CUfunc_cache cache;
  int peers[MAX_DEVICES];  /* peer access enabled to the device's primary */
  struct CUctx_st *next;   /* every context made, see new_context() */
};

typedef struct {
  CUcontext primary;      /* while retained */
  int refcount;
  unsigned int flags;
} MockDevice;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;
static int n_devices = 1;
static size_t device_memory = DEFAULT_DEVICE_MEMORY;  /* per device, in bytes */
static MockDevice devices[MAX_DEVICES];
static int peer_links = 1;  /* GCUDA_MOCK_PEER=0: devices without a link */

static __thread CUcontext stack[MAX_STACK];
static __thread int depth;

/* ------------------------------------------------------------ helpers */

static void release_context_memory (CUcontext ctx);

static CUresult
check_init (void)
{
  return initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

static CUresult
check_device (CUdevice dev)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  return (dev >= 0 && dev < n_devices) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult
current (CUcontext *out)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (depth == 0 || stack[depth - 1] == NULL)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (stack[depth - 1]->destroyed)
    return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  *out = stack[depth - 1];
  return CUDA_SUCCESS;
}

/* Contexts are never freed, so that a destroyed one is still recognised
 * (CUDA_ERROR_CONTEXT_IS_DESTROYED, not a read of freed memory); the list
 * keeps them reachable for LeakSanitizer. */
static pthread_mutex_t contexts_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext all_contexts;

static CUcontext
new_context (int device,
             unsigned int flags,
             int primary)
{
  CUcontext ctx = calloc (1, sizeof *ctx);

  pthread_mutex_lock (&contexts_lock);
  ctx->next = all_contexts;
  all_contexts = ctx;
  pthread_mutex_unlock (&contexts_lock);

  ctx->device = device;
  ctx->flags = flags;
  ctx->primary = primary;
  ctx->limits[CU_LIMIT_STACK_SIZE] = 1024;
  ctx->limits[CU_LIMIT_PRINTF_FIFO_SIZE] = 1 << 20;
  ctx->limits[CU_LIMIT_MALLOC_HEAP_SIZE] = 8 << 20;
  ctx->limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048;
  ctx->limits[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64;
  ctx->cache = CU_FUNC_CACHE_PREFER_NONE;
  return ctx;
}

/* ------------------------------------------------------------ driver and errors */

static CUresult
mock_cuDriverGetVersion (int *version)
{
  const char *v = getenv ("GCUDA_MOCK_DRIVER_VERSION");

  *version = v ? atoi (v) : 13000;
  return CUDA_SUCCESS;
}

static const struct { CUresult code; const char *name; const char *text; } errors[] = {
  { CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
  { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
  { CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
  { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
  { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
  { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
  { CUDA_ERROR_UNSUPPORTED_LIMIT, "CUDA_ERROR_UNSUPPORTED_LIMIT", "limit is not supported on this architecture" },
  { CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported between these two devices" },
  { CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled" },
  { CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled" },
  { CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed" },
  { CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
  { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
  { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
  { CUDA_ERROR_ALREADY_MAPPED, "CUDA_ERROR_ALREADY_MAPPED", "resource already mapped" },
  { CUDA_ERROR_NOT_MAPPED, "CUDA_ERROR_NOT_MAPPED", "resource not mapped" },
  { CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", "resource not mapped as array" },
  { CUDA_ERROR_NOT_MAPPED_AS_POINTER, "CUDA_ERROR_NOT_MAPPED_AS_POINTER", "resource not mapped as pointer" },
  { CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT", "invalid OpenGL or DirectX context" },
};

static CUresult
mock_cuGetErrorName (CUresult error, const char **str)
{
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].code == error)
      {
        *str = errors[i].name;
        return CUDA_SUCCESS;
      }
  *str = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI
cuGetErrorString (CUresult error, const char **str)
{
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].code == error)
      {
        *str = errors[i].text;
        return CUDA_SUCCESS;
      }
  *str = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

/* ------------------------------------------------------------ devices */

static CUresult
mock_cuDeviceGetCount (int *count)
{
  CUresult res = check_init ();

  if (res == CUDA_SUCCESS)
    *count = n_devices;
  return res;
}

static CUresult
mock_cuDeviceGet (CUdevice *dev, int ordinal)
{
  CUresult res = check_device (ordinal);

  if (res == CUDA_SUCCESS)
    *dev = ordinal;
  return res;
}

static CUresult
mock_cuDeviceGetName (char *name, int len, CUdevice dev)
{
  CUresult res = check_device (dev);

  if (res != CUDA_SUCCESS)
    return res;
  if (name == NULL || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  snprintf (name, (size_t) len, "NVIDIA H100 80GB HBM3 (GCuda mock %d)", dev);
  return CUDA_SUCCESS;
}

/* GCUDA_MOCK_COMPUTE_CAPABILITY, "MAJOR.MINOR" (default 9.0): part 0 is the
 * major number, part 1 the minor */
static int
compute_capability (int part)
{
  const char *env = getenv ("GCUDA_MOCK_COMPUTE_CAPABILITY");
  int major = 9, minor = 0;

  if (env != NULL && sscanf (env, "%d.%d", &major, &minor) != 2)
    major = 9, minor = 0;
  return part == 0 ? major : minor;
}

static CUresult
mock_cuDeviceGetAttribute (int *value, CUdevice_attribute attrib, CUdevice dev)
{
  CUresult res = check_device (dev);

  if (res != CUDA_SUCCESS)
    return res;
  if ((int) attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX)
    return CUDA_ERROR_INVALID_VALUE;

  switch ((int) attrib)
    {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    /* an H100's block and grid limits: launches are checked against them */
    case 2: /* MAX_BLOCK_DIM_X */ *value = 1024; break;
    case 3: /* MAX_BLOCK_DIM_Y */ *value = 1024; break;
    case 4: /* MAX_BLOCK_DIM_Z */ *value = 64; break;
    case 5: /* MAX_GRID_DIM_X */ *value = 2147483647; break;
    case 6: /* MAX_GRID_DIM_Y */ *value = 65535; break;
    case 7: /* MAX_GRID_DIM_Z */ *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = compute_capability (0); break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = compute_capability (1); break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: *value = CU_COMPUTEMODE_DEFAULT; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = 0x41 + dev; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *value = 0; break;
    /* like a real driver, a few attributes are not supported */
    case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH:
      return CUDA_ERROR_INVALID_VALUE;
    default: *value = (int) attrib * 3 + 1; break;
    }
  return CUDA_SUCCESS;
}

static CUresult
mock_cuDeviceTotalMem (size_t *bytes, CUdevice dev)
{
  CUresult res = check_device (dev);

  if (res == CUDA_SUCCESS)
    *bytes = device_memory;
  return res;
}

static CUresult
mock_cuDeviceGetUuid (CUuuid *uuid, CUdevice dev)
{
  CUresult res = check_device (dev);

  if (res != CUDA_SUCCESS)
    return res;
  for (int i = 0; i < 16; i++)
    uuid->bytes[i] = (char) (0xa0 + i * 7 + dev);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuDeviceGetPCIBusId (char *id, int len, CUdevice dev)
{
  CUresult res = check_device (dev);

  if (res != CUDA_SUCCESS)
    return res;
  if (id == NULL || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  /* the real driver writes upper-case hexadecimal */
  snprintf (id, (size_t) len, "0000:%02X:00.0", 0xC1 + dev);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuDeviceGetByPCIBusId (CUdevice *dev, const char *id)
{
  unsigned int domain = 0, bus = 0, device = 0, function = 0;
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (id == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (sscanf (id, "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4 &&
      sscanf (id, "%x:%x.%x", &bus, &device, &function) != 3)
    return CUDA_ERROR_INVALID_VALUE;
  for (int i = 0; i < n_devices; i++)
    if (domain == 0 && bus == (unsigned) (0xC1 + i) && device == 0 && function == 0)
      {
        *dev = i;
        return CUDA_SUCCESS;
      }
  return CUDA_ERROR_INVALID_DEVICE;
}

static CUresult
mock_cuDeviceCanAccessPeer (int *can, CUdevice dev, CUdevice peer)
{
  CUresult res = check_device (dev);

  if (res == CUDA_SUCCESS)
    res = check_device (peer);
  if (res != CUDA_SUCCESS)
    return res;
  if (dev == peer)
    return CUDA_ERROR_INVALID_DEVICE;
  *can = peer_links;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuDeviceGetP2PAttribute (int *value, CUdevice_P2PAttribute attrib, CUdevice dev, CUdevice peer)
{
  CUresult res = check_device (dev);

  if (res == CUDA_SUCCESS)
    res = check_device (peer);
  if (res != CUDA_SUCCESS)
    return res;
  if (value == NULL || dev == peer)
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attrib)
    {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK:
      *value = 0;
      break;
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED:
      *value = peer_links;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
    }
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------------ primary contexts */

static CUresult
mock_cuDevicePrimaryCtxRetain (CUcontext *pctx, CUdevice dev)
{
  CUresult res = check_device (dev);

  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&lock);
  if (devices[dev].refcount++ == 0)
    devices[dev].primary = new_context (dev, devices[dev].flags, 1);
  *pctx = devices[dev].primary;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuDevicePrimaryCtxRelease (CUdevice dev)
{
  CUresult res = check_device (dev);
  CUcontext dead = NULL;

  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&lock);
  if (devices[dev].refcount == 0)
    res = CUDA_ERROR_INVALID_CONTEXT;
  else if (--devices[dev].refcount == 0)
    {
      /* reset: the old handle is dead (never freed, so stale uses are seen) */
      dead = devices[dev].primary;
      dead->destroyed = 1;
      devices[dev].primary = NULL;
    }
  pthread_mutex_unlock (&lock);
  if (dead != NULL)
    release_context_memory (dead);
  return res;
}

static CUresult
mock_cuDevicePrimaryCtxSetFlags (CUdevice dev, unsigned int flags)
{
  CUresult res = check_device (dev);

  if (res != CUDA_SUCCESS)
    return res;
  if ((flags & ~(unsigned) CU_CTX_FLAGS_MASK) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  devices[dev].flags = flags;
  if (devices[dev].primary != NULL)
    devices[dev].primary->flags = flags;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuDevicePrimaryCtxGetState (CUdevice dev, unsigned int *flags, int *active)
{
  CUresult res = check_device (dev);

  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&lock);
  *flags = devices[dev].flags;
  *active = devices[dev].refcount > 0;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------------ context stack */

static CUresult
mock_cuCtxCreate (CUcontext *pctx, CUctxCreateParams *params, unsigned int flags, CUdevice dev)
{
  CUresult res = check_device (dev);

  if (res != CUDA_SUCCESS)
    return res;
  if (pctx == NULL || (flags & ~(unsigned) CU_CTX_FLAGS_MASK) != 0 || depth == MAX_STACK)
    return CUDA_ERROR_INVALID_VALUE;
  *pctx = new_context (dev, flags, 0);
  stack[depth++] = *pctx;  /* cuCtxCreate makes the new context current */
  return CUDA_SUCCESS;
}

static CUresult
mock_cuCtxDestroy (CUcontext ctx)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (ctx == NULL || ctx->destroyed || ctx->primary)
    return CUDA_ERROR_INVALID_CONTEXT;
  ctx->destroyed = 1;
  release_context_memory (ctx);
  if (depth > 0 && stack[depth - 1] == ctx)
    depth--;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuCtxPushCurrent (CUcontext ctx)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (ctx == NULL || ctx->destroyed)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (depth == MAX_STACK)
    return CUDA_ERROR_INVALID_VALUE;
  stack[depth++] = ctx;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuCtxPopCurrent (CUcontext *pctx)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (depth == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  depth--;
  if (pctx)
    *pctx = stack[depth];
  return CUDA_SUCCESS;
}

static CUresult
mock_cuCtxGetCurrent (CUcontext *pctx)
{
  CUresult res = check_init ();

  if (res == CUDA_SUCCESS)
    *pctx = depth > 0 ? stack[depth - 1] : NULL;
  return res;
}

static CUresult
mock_cuCtxSetCurrent (CUcontext ctx)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (ctx == NULL)
    {
      if (depth > 0)
        depth--;
      return CUDA_SUCCESS;
    }
  if (depth == 0)
    depth = 1;
  stack[depth - 1] = ctx;
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------------ calls on the current context */

static CUresult
mock_cuCtxGetDevice (CUdevice *dev)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res == CUDA_SUCCESS)
    *dev = ctx->device;
  return res;
}

static CUresult
mock_cuCtxGetFlags (unsigned int *flags)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res == CUDA_SUCCESS)
    *flags = ctx->flags;
  return res;
}

static void wait_host_fns (void);

static CUresult
mock_cuCtxSynchronize (void)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res == CUDA_SUCCESS)
    wait_host_fns ();
  return res;
}

static CUresult
mock_cuCtxGetLimit (size_t *value, CUlimit limit)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  if ((unsigned) limit >= N_LIMITS)
    return CUDA_ERROR_INVALID_VALUE;
  if (limit == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH)
    return CUDA_ERROR_UNSUPPORTED_LIMIT;  /* as on sm_90 with CUDA 12+ */
  pthread_mutex_lock (&lock);
  *value = ctx->limits[limit];
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuCtxSetLimit (CUlimit limit, size_t value)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  if ((unsigned) limit >= N_LIMITS || limit == CU_LIMIT_SHMEM_SIZE || limit == CU_LIMIT_CIG_ENABLED)
    return CUDA_ERROR_INVALID_VALUE;
  if (limit == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH)
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  if (limit == CU_LIMIT_STACK_SIZE)
    value = (value + 15) & ~(size_t) 15;  /* the driver rounds up */
  pthread_mutex_lock (&lock);
  ctx->limits[limit] = value;
  pthread_mutex_unlock (&lock);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuCtxGetCacheConfig (CUfunc_cache *config)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res == CUDA_SUCCESS)
    *config = __atomic_load_n (&ctx->cache, __ATOMIC_SEQ_CST);
  return res;
}

static CUresult
mock_cuCtxSetCacheConfig (CUfunc_cache config)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  if ((unsigned) config > CU_FUNC_CACHE_PREFER_EQUAL)
    return CUDA_ERROR_INVALID_VALUE;
  __atomic_store_n (&ctx->cache, config, __ATOMIC_SEQ_CST);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuCtxGetStreamPriorityRange (int *least, int *greatest)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  if (least)
    *least = 0;
  if (greatest)
    *greatest = -5;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuCtxGetApiVersion (CUcontext ctx, unsigned int *version)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (ctx == NULL)
    {
      res = current (&ctx);
      if (res != CUDA_SUCCESS)
        return res;
    }
  if (ctx->destroyed)
    return CUDA_ERROR_INVALID_CONTEXT;
  *version = 3020;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuCtxEnablePeerAccess (CUcontext peer, unsigned int flags)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  if (peer == NULL || peer->destroyed)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (peer->device == ctx->device)
    return CUDA_ERROR_INVALID_DEVICE;
  if (!peer_links)
    return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
  pthread_mutex_lock (&lock);
  if (ctx->peers[peer->device])
    res = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  else
    ctx->peers[peer->device] = 1;
  pthread_mutex_unlock (&lock);
  return res;
}

static CUresult
mock_cuCtxDisablePeerAccess (CUcontext peer)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  if (peer == NULL || peer->destroyed)
    return CUDA_ERROR_INVALID_CONTEXT;
  pthread_mutex_lock (&lock);
  if (!ctx->peers[peer->device])
    res = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
  else
    ctx->peers[peer->device] = 0;
  pthread_mutex_unlock (&lock);
  return res;
}

/* ------------------------------------------------------------ memory */

/* "Device" memory is host memory: an address is a fresh anonymous mapping
 * (page-aligned, zeroed, untouched pages cost nothing, even under
 * MALLOC_PERTURB_, and valgrind sees defined bytes). Every allocation,
 * device or page-locked, belongs to the context current when it was made
 * and goes with it, as in the driver. */

typedef struct {
  CUdeviceptr address;
  size_t size;
  CUcontext ctx;
  int host;          /* page-locked (cuMemHostAlloc, cuMemAllocHost) */
  int device;
  struct CUmemPoolHandle_st *pool;  /* cuMemAllocFromPoolAsync's, or NULL */
} Allocation;

static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static Allocation *allocations;
static size_t n_allocations, allocations_size;
static size_t device_used[MAX_DEVICES];  /* device bytes in use */

/* With mem_lock held: the allocation starting at @address, or -1. */
static long
find_allocation (CUdeviceptr address, int host)
{
  for (size_t i = 0; i < n_allocations; i++)
    if (allocations[i].address == address && allocations[i].host == host)
      return (long) i;
  return -1;
}

/* With mem_lock held: whether [@address, @address + @size) lies in one live
 * allocation (device or page-locked: unified addressing maps both). */
static int
valid_range (CUdeviceptr address, size_t size)
{
  for (size_t i = 0; i < n_allocations; i++)
    {
      const Allocation *a = &allocations[i];

      if (address >= a->address && address - a->address <= a->size &&
          size <= a->size - (address - a->address))
        return 1;
    }
  return 0;
}

/* With mem_lock held. */
static void
remove_allocation (size_t i)
{
  if (!allocations[i].host)
    device_used[allocations[i].device] -= allocations[i].size;
  munmap ((void *) (uintptr_t) allocations[i].address, allocations[i].size);
  allocations[i] = allocations[--n_allocations];
}

static size_t leaked_allocations, leaked_bytes;  /* under mem_lock */

EXPORT void gcuda_mock_get_leaks       (size_t *count, size_t *bytes);
EXPORT void gcuda_mock_get_allocations (size_t *count, size_t *bytes);

/* The driver frees a context's memory with the context: what is still
 * there was leaked (see the leak checking above). */
static void
release_context_memory (CUcontext ctx)
{
  const char *report = getenv ("GCUDA_MOCK_LEAK_CHECK");
  int fatal = report != NULL && strcmp (report, "fatal") == 0;
  int leaked = 0;

  pthread_mutex_lock (&mem_lock);
  for (size_t i = n_allocations; i > 0; i--)
    if (allocations[i - 1].ctx == ctx)
      {
        leaked_allocations++;
        leaked_bytes += allocations[i - 1].size;
        leaked = 1;
        if (report != NULL && (strcmp (report, "1") == 0 || fatal))
          fprintf (stderr, "mock leak check: %zu bytes of %s memory at 0x%llx leaked (its context went first)\n",
                   allocations[i - 1].size, allocations[i - 1].host ? "page-locked" : "device",
                   (unsigned long long) allocations[i - 1].address);
        remove_allocation (i - 1);
      }
  pthread_mutex_unlock (&mem_lock);
  if (leaked && fatal)
    abort ();
}

/* For tests: allocations (and their bytes) that were still live when their
 * context went, since the process started. */
EXPORT void
gcuda_mock_get_leaks (size_t *count, size_t *bytes)
{
  pthread_mutex_lock (&mem_lock);
  if (count)
    *count = leaked_allocations;
  if (bytes)
    *bytes = leaked_bytes;
  pthread_mutex_unlock (&mem_lock);
}

/* For tests: the allocations live now, device and page-locked. */
EXPORT void
gcuda_mock_get_allocations (size_t *count, size_t *bytes)
{
  size_t total = 0;

  pthread_mutex_lock (&mem_lock);
  for (size_t i = 0; i < n_allocations; i++)
    total += allocations[i].size;
  if (count)
    *count = n_allocations;
  if (bytes)
    *bytes = total;
  pthread_mutex_unlock (&mem_lock);
}

static CUresult
allocate_in (CUcontext ctx, void **out, size_t size, int host)
{
  CUresult res = CUDA_SUCCESS;
  void *block = MAP_FAILED;

  if (out == NULL || size == 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&mem_lock);
  /* Device memory is limited by device_memory alone; page-locked memory by
   * the system (no MAP_NORESERVE: an absurd size fails). */
  if (!host && size > device_memory - device_used[ctx->device])
    res = CUDA_ERROR_OUT_OF_MEMORY;
  else if ((block = mmap (NULL, size, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | (host ? 0 : MAP_NORESERVE),
                          -1, 0)) == MAP_FAILED)
    res = CUDA_ERROR_OUT_OF_MEMORY;
  else if (n_allocations == allocations_size)
    {
      size_t n = allocations_size ? allocations_size * 2 : 64;
      Allocation *grown = realloc (allocations, n * sizeof *grown);

      if (grown == NULL)
        res = CUDA_ERROR_OUT_OF_MEMORY;
      else
        {
          allocations = grown;
          allocations_size = n;
        }
    }
  if (res == CUDA_SUCCESS)
    {
      Allocation *a = &allocations[n_allocations++];

      a->address = (CUdeviceptr) (uintptr_t) block;
      a->size = size;
      a->ctx = ctx;
      a->host = host;
      a->device = ctx->device;
      a->pool = NULL;
      if (!host)
        device_used[ctx->device] += size;
      *out = (void *) (uintptr_t) a->address;
    }
  else if (block != MAP_FAILED)
    munmap (block, size);
  pthread_mutex_unlock (&mem_lock);
  return res;
}

static CUresult
allocate (void **out, size_t size, int host)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  return res != CUDA_SUCCESS ? res : allocate_in (ctx, out, size, host);
}

static CUresult
release (CUdeviceptr address, int host)
{
  CUcontext ctx;
  CUresult res = current (&ctx);
  long i;

  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&mem_lock);
  i = find_allocation (address, host);
  if (i < 0)
    res = CUDA_ERROR_INVALID_VALUE;
  else
    remove_allocation ((size_t) i);
  pthread_mutex_unlock (&mem_lock);
  return res;
}

static CUresult
mock_cuMemAlloc (CUdeviceptr *ptr, size_t size)
{
  void *p = NULL;
  CUresult res = allocate (ptr ? &p : NULL, size, 0);

  if (res == CUDA_SUCCESS)
    *ptr = (CUdeviceptr) (uintptr_t) p;
  return res;
}

static CUresult
mock_cuMemFree (CUdeviceptr ptr)
{
  return release (ptr, 0);
}

static CUresult
mock_cuMemAllocManaged (CUdeviceptr *ptr, size_t size, unsigned int flags)
{
  void *p = NULL;
  CUresult res;

  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
    return CUDA_ERROR_INVALID_VALUE;
  res = allocate (ptr ? &p : NULL, size, 0);
  if (res == CUDA_SUCCESS)
    *ptr = (CUdeviceptr) (uintptr_t) p;
  return res;
}

static CUresult
mock_cuMemHostAlloc (void **ptr, size_t size, unsigned int flags)
{
  if ((flags & ~(unsigned) (CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                            CU_MEMHOSTALLOC_WRITECOMBINED)) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  return allocate (ptr, size, 1);
}

static CUresult
mock_cuMemAllocHost (void **ptr, size_t size)
{
  return allocate (ptr, size, 1);
}

static CUresult
mock_cuMemFreeHost (void *ptr)
{
  return release ((CUdeviceptr) (uintptr_t) ptr, 1);
}

static CUresult
mock_cuMemGetInfo (size_t *free_bytes, size_t *total)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&mem_lock);
  if (total)
    *total = device_memory;
  if (free_bytes)
    *free_bytes = device_memory - device_used[ctx->device];
  pthread_mutex_unlock (&mem_lock);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuMemGetAddressRange (CUdeviceptr *base, size_t *size, CUdeviceptr ptr)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  res = CUDA_ERROR_NOT_FOUND;
  pthread_mutex_lock (&mem_lock);
  for (size_t i = 0; i < n_allocations; i++)
    if (!allocations[i].host && ptr >= allocations[i].address &&
        ptr - allocations[i].address < allocations[i].size)
      {
        if (base)
          *base = allocations[i].address;
        if (size)
          *size = allocations[i].size;
        res = CUDA_SUCCESS;
        break;
      }
  pthread_mutex_unlock (&mem_lock);
  return res;
}

/* Pointer attributes of device and page-locked memory, as the driver
 * answers them (unknown memory: success, type 0, no context); only the
 * attributes GCuda asks for. */
static CUresult
mock_cuPointerGetAttributes (unsigned int n, CUpointer_attribute *attrs, void **data, CUdeviceptr ptr)
{
  CUresult res = check_init ();
  Allocation found = { 0 };
  int known = 0;

  if (res != CUDA_SUCCESS)
    return res;
  if (n == 0 || attrs == NULL || data == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&mem_lock);
  for (size_t i = 0; i < n_allocations && !known; i++)
    if (ptr >= allocations[i].address && ptr - allocations[i].address < allocations[i].size)
      {
        found = allocations[i];
        known = 1;
      }
  pthread_mutex_unlock (&mem_lock);
  for (unsigned int i = 0; i < n; i++)
    switch (attrs[i])
      {
      case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *) data[i] = !known ? 0 : found.host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        break;
      case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *) data[i] = known ? found.ctx : NULL;
        break;
      case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *) data[i] = known ? found.device : -2;
        break;
      case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(int *) data[i] = 0;
        break;
      case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *) data[i] = known ? found.address : 0;
        break;
      case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *) data[i] = known ? found.size : 0;
        break;
      default:
        return CUDA_ERROR_INVALID_VALUE;
      }
  return CUDA_SUCCESS;
}

/* Streams: the default ones, and with GCUDA_MOCK_KERNELS=1 its own (see
 * below); on every one everything has finished when the call returns. */
static int is_mock_stream (CUstream stream, CUcontext ctx);

/* NULL, CU_STREAM_LEGACY or CU_STREAM_PER_THREAD: not a stream of its own */
static int
is_default_stream (CUstream stream)
{
  return stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD;
}

static CUresult
check_stream (CUstream stream)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  if (!is_default_stream (stream) && !is_mock_stream (stream, ctx))
    return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuStreamSynchronize (CUstream stream)
{
  CUresult res = check_stream (stream);

  if (res == CUDA_SUCCESS)
    wait_host_fns ();
  return res;
}

/* Copies @size bytes; a side that is device memory (@dst_dev, @src_dev)
 * must lie in one live allocation. */
static CUresult
copy (void *dst, int dst_dev, const void *src, int src_dev, size_t size, CUstream stream)
{
  CUresult res = check_stream (stream);

  if (res != CUDA_SUCCESS || size == 0)
    return res;
  if (dst == NULL || src == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&mem_lock);
  if ((dst_dev && !valid_range ((CUdeviceptr) (uintptr_t) dst, size)) ||
      (src_dev && !valid_range ((CUdeviceptr) (uintptr_t) src, size)))
    res = CUDA_ERROR_INVALID_VALUE;
  else
    memmove (dst, src, size);
  pthread_mutex_unlock (&mem_lock);
  return res;
}

#define DEV(p) ((void *) (uintptr_t) (p))

/* Between contexts (of one device or two): both must be alive; staged or
 * direct, it is a memcpy here. */
static CUresult
mock_cuMemcpyPeer (CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t size)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (dst_ctx == NULL || src_ctx == NULL || dst_ctx->destroyed || src_ctx->destroyed)
    return CUDA_ERROR_INVALID_CONTEXT;
  return copy (DEV (dst), 1, DEV (src), 1, size, NULL);
}

static CUresult
mock_cuMemcpyHtoD (CUdeviceptr dst, const void *src, size_t size)
{
  return copy (DEV (dst), 1, src, 0, size, NULL);
}

static CUresult
mock_cuMemcpyDtoH (void *dst, CUdeviceptr src, size_t size)
{
  return copy (dst, 0, DEV (src), 1, size, NULL);
}

static CUresult
mock_cuMemcpyDtoD (CUdeviceptr dst, CUdeviceptr src, size_t size)
{
  return copy (DEV (dst), 1, DEV (src), 1, size, NULL);
}

static CUresult
mock_cuMemcpyHtoDAsync (CUdeviceptr dst, const void *src, size_t size, CUstream stream)
{
  return copy (DEV (dst), 1, src, 0, size, stream);
}

static CUresult
mock_cuMemcpyDtoHAsync (void *dst, CUdeviceptr src, size_t size, CUstream stream)
{
  return copy (dst, 0, DEV (src), 1, size, stream);
}

static CUresult
mock_cuMemcpyDtoDAsync (CUdeviceptr dst, CUdeviceptr src, size_t size, CUstream stream)
{
  return copy (DEV (dst), 1, DEV (src), 1, size, stream);
}

/* @height rows of @width elements of @elem bytes, @pitch bytes apart. */
static CUresult
memset_2d (CUdeviceptr dst, size_t pitch, unsigned int value, size_t elem,
           size_t width, size_t height, CUstream stream)
{
  CUresult res = check_stream (stream);
  size_t row = width * elem;

  if (res != CUDA_SUCCESS || width == 0 || height == 0)
    return res;
  if (dst % elem != 0 || (height > 1 && (pitch < row || pitch % elem != 0)) ||
      (height > 1 && pitch > (SIZE_MAX - row) / (height - 1)))
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&mem_lock);
  if (!valid_range (dst, (height - 1) * pitch + row))
    res = CUDA_ERROR_INVALID_VALUE;
  else
    for (size_t y = 0; y < height; y++)
      {
        unsigned char *p = DEV (dst + y * pitch);

        for (size_t x = 0; x < width; x++)
          if (elem == 1)
            p[x] = (unsigned char) value;
          else if (elem == 2)
            ((unsigned short *) p)[x] = (unsigned short) value;
          else
            ((unsigned int *) p)[x] = value;
      }
  pthread_mutex_unlock (&mem_lock);
  return res;
}

static CUresult
mock_cuMemsetD8 (CUdeviceptr dst, unsigned char value, size_t n)
{
  return memset_2d (dst, 0, value, 1, n, 1, NULL);
}

static CUresult
mock_cuMemsetD16 (CUdeviceptr dst, unsigned short value, size_t n)
{
  return memset_2d (dst, 0, value, 2, n, 1, NULL);
}

static CUresult
mock_cuMemsetD32 (CUdeviceptr dst, unsigned int value, size_t n)
{
  return memset_2d (dst, 0, value, 4, n, 1, NULL);
}

static CUresult
mock_cuMemsetD8Async (CUdeviceptr dst, unsigned char value, size_t n, CUstream stream)
{
  return memset_2d (dst, 0, value, 1, n, 1, stream);
}

static CUresult
mock_cuMemsetD16Async (CUdeviceptr dst, unsigned short value, size_t n, CUstream stream)
{
  return memset_2d (dst, 0, value, 2, n, 1, stream);
}

static CUresult
mock_cuMemsetD32Async (CUdeviceptr dst, unsigned int value, size_t n, CUstream stream)
{
  return memset_2d (dst, 0, value, 4, n, 1, stream);
}

static CUresult
mock_cuMemsetD2D8 (CUdeviceptr dst, size_t pitch, unsigned char value, size_t width, size_t height)
{
  return memset_2d (dst, pitch, value, 1, width, height, NULL);
}

static CUresult
mock_cuMemsetD2D16 (CUdeviceptr dst, size_t pitch, unsigned short value, size_t width, size_t height)
{
  return memset_2d (dst, pitch, value, 2, width, height, NULL);
}

static CUresult
mock_cuMemsetD2D32 (CUdeviceptr dst, size_t pitch, unsigned int value, size_t width, size_t height)
{
  return memset_2d (dst, pitch, value, 4, width, height, NULL);
}

static CUresult
mock_cuMemsetD2D8Async (CUdeviceptr dst, size_t pitch, unsigned char value, size_t width,
                        size_t height, CUstream stream)
{
  return memset_2d (dst, pitch, value, 1, width, height, stream);
}

static CUresult
mock_cuMemsetD2D16Async (CUdeviceptr dst, size_t pitch, unsigned short value, size_t width,
                         size_t height, CUstream stream)
{
  return memset_2d (dst, pitch, value, 2, width, height, stream);
}

static CUresult
mock_cuMemsetD2D32Async (CUdeviceptr dst, size_t pitch, unsigned int value, size_t width,
                         size_t height, CUstream stream)
{
  return memset_2d (dst, pitch, value, 4, width, height, stream);
}

/* ------------------------------------------------------------ kernels (GCUDA_MOCK_KERNELS=1) */

/* Modules, functions, launches and streams of its own, only with
 * GCUDA_MOCK_KERNELS=1 (elsewhere the mock stays a driver without them):
 * a module is PTX text, whose `.entry` lines give each kernel's parameters
 * (sizes and offsets at their alignment, as cuFuncGetParamInfo reports
 * them); a launch runs nothing but checks what the real driver would
 * dereference (the stream, every kernelParams pointer, a packed buffer's
 * size) and keeps a copy of the parameters, which tests read with
 * gcuda_mock_get_last_launch(). It lets the launch paths and their host
 * cost be measured without a GPU (tests/benchmarks/bench_launch.js). */

#define MOCK_INVALID_IMAGE ((CUresult) 200)
#define MOCK_MAX_PARAMS 64
#define MOCK_MAX_FUNCTIONS 32
#define MOCK_PARAM_BYTES 4096

#define MOCK_N_FUNC_ATTRIBUTES 20

struct CUfunc_st {
  char name[128];
  unsigned int n_params;
  size_t offsets[MOCK_MAX_PARAMS];
  size_t sizes[MOCK_MAX_PARAMS];
  size_t params_size;
  int attributes[MOCK_N_FUNC_ATTRIBUTES];  /* cuFuncSetAttribute's (GCUDA_MOCK_EVENTS=1) */
  CUfunc_cache cache;
};

struct CUmod_st {
  unsigned int n_functions;
  struct CUfunc_st functions[MOCK_MAX_FUNCTIONS];
};

#define MOCK_STREAM_MAGIC 0x5354524dU
struct CUstream_st {
  unsigned int magic;
  CUcontext ctx;
  unsigned int flags;
  int priority;
};

static pthread_mutex_t launch_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char last_params[MOCK_PARAM_BYTES];
static size_t last_params_size;
static unsigned long long n_launches;

EXPORT unsigned long long gcuda_mock_get_last_launch (void *params, size_t *size);

/* The parameters of the last launch, laid out at their offsets (as a
 * packed buffer), into @params (4096 bytes) and their size into @size;
 * returns the number of launches so far. */
unsigned long long
gcuda_mock_get_last_launch (void *params, size_t *size)
{
  unsigned long long n;

  pthread_mutex_lock (&launch_lock);
  if (params)
    memcpy (params, last_params, last_params_size);
  if (size)
    *size = last_params_size;
  n = n_launches;
  pthread_mutex_unlock (&launch_lock);
  return n;
}

static const char *
skip_space (const char *p)
{
  for (;;)
    {
      while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
      if (p[0] == '/' && p[1] == '/')
        while (*p && *p != '\n')
          p++;
      else
        return p;
    }
}

static size_t
ptx_type_size (const char *t)
{
  /* .u8 .s8 .b8, .u16 ..., .f32, .u64 ...: the digits give the bits */
  if (t[0] != '.' || (t[1] != 'u' && t[1] != 's' && t[1] != 'b' && t[1] != 'f'))
    return 0;
  switch (atoi (t + 2))
    {
    case 8: return 1;
    case 16: return 2;
    case 32: return 4;
    case 64: return 8;
    default: return 0;
    }
}

/* Parses `.entry NAME ( .param .TYPE NAME[, ...] )` lines of @ptx. */
static CUresult
parse_ptx (CUmodule mod, const char *ptx)
{
  const char *p = ptx;

  if (strstr (ptx, ".version") == NULL)
    return MOCK_INVALID_IMAGE;
  while ((p = strstr (p, ".entry")) != NULL)
    {
      struct CUfunc_st *f;
      size_t len = 0, offset = 0;

      if (mod->n_functions == MOCK_MAX_FUNCTIONS)
        return CUDA_ERROR_NOT_SUPPORTED;
      f = &mod->functions[mod->n_functions++];
      p = skip_space (p + strlen (".entry"));
      while (p[len] && p[len] != '(' && p[len] != ' ' && p[len] != '\n' && p[len] != '{')
        len++;
      if (len == 0 || len >= sizeof f->name)
        return MOCK_INVALID_IMAGE;
      memcpy (f->name, p, len);
      f->name[len] = '\0';
      p = skip_space (p + len);
      if (*p != '(')
        continue;  /* no parameters */
      p++;
      for (;;)
        {
          size_t align = 0, size, count = 1;

          p = skip_space (p);
          if (*p == ')')
            break;
          if (strncmp (p, ".param", 6) != 0 || f->n_params == MOCK_MAX_PARAMS)
            return MOCK_INVALID_IMAGE;
          p = skip_space (p + 6);
          if (strncmp (p, ".align", 6) == 0)
            {
              align = strtoul (p + 6, (char **) &p, 10);
              p = skip_space (p);
            }
          size = ptx_type_size (p);
          if (size == 0)
            return MOCK_INVALID_IMAGE;
          while (*p && *p != ' ' && *p != '\t')
            p++;
          p = skip_space (p);
          while (*p && *p != ',' && *p != ')' && *p != '[')
            p++;
          if (*p == '[')
            {
              count = strtoul (p + 1, (char **) &p, 10);
              if (*p != ']')
                return MOCK_INVALID_IMAGE;
              p++;
            }
          if (align == 0)
            align = size;
          offset = (offset + align - 1) / align * align;
          f->offsets[f->n_params] = offset;
          f->sizes[f->n_params] = size * count;
          offset += size * count;
          f->n_params++;
          p = skip_space (p);
          if (*p == ',')
            p++;
          else if (*p != ')')
            return MOCK_INVALID_IMAGE;
        }
      f->params_size = offset;
      if (offset > MOCK_PARAM_BYTES)
        return CUDA_ERROR_NOT_SUPPORTED;
    }
  return mod->n_functions > 0 ? CUDA_SUCCESS : MOCK_INVALID_IMAGE;
}

static CUresult
mock_cuModuleLoadData (CUmodule *module, const void *image)
{
  CUcontext ctx;
  CUresult res = current (&ctx);
  CUmodule mod;

  if (res != CUDA_SUCCESS)
    return res;
  if (module == NULL || image == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  mod = calloc (1, sizeof *mod);
  res = parse_ptx (mod, image);
  if (res != CUDA_SUCCESS)
    {
      free (mod);
      return res;
    }
  *module = mod;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuModuleLoadDataEx (CUmodule *module, const void *image, unsigned int n, CUjit_option *options,
                         void **values)
{
  (void) n, (void) options, (void) values;
  return mock_cuModuleLoadData (module, image);
}

static CUresult
mock_cuModuleUnload (CUmodule module)
{
  if (module == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  free (module);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuModuleGetFunction (CUfunction *function, CUmodule module, const char *name)
{
  if (module == NULL || function == NULL || name == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  for (unsigned int i = 0; i < module->n_functions; i++)
    if (strcmp (module->functions[i].name, name) == 0)
      {
        *function = &module->functions[i];
        return CUDA_SUCCESS;
      }
  return CUDA_ERROR_NOT_FOUND;
}

static CUresult
mock_cuFuncGetAttribute (int *value, CUfunction_attribute attrib, CUfunction function)
{
  if (value == NULL || function == NULL || (unsigned int) attrib >= MOCK_N_FUNC_ATTRIBUTES)
    return CUDA_ERROR_INVALID_VALUE;
  *value = attrib == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : function->attributes[attrib];
  return CUDA_SUCCESS;
}

static CUresult
mock_cuFuncGetParamInfo (CUfunction function, size_t index, size_t *offset, size_t *size)
{
  if (function == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (index >= function->n_params)
    return CUDA_ERROR_INVALID_VALUE;
  *offset = function->offsets[index];
  *size = function->sizes[index];
  return CUDA_SUCCESS;
}

static int
is_mock_stream (CUstream stream, CUcontext ctx)
{
  return stream->magic == MOCK_STREAM_MAGIC && stream->ctx == ctx;
}

static CUresult
mock_cuStreamCreateWithPriority (CUstream *stream, unsigned int flags, int priority)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  *stream = calloc (1, sizeof **stream);
  (*stream)->magic = MOCK_STREAM_MAGIC;
  (*stream)->ctx = ctx;
  (*stream)->flags = flags;
  (*stream)->priority = priority;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuStreamCreate (CUstream *stream, unsigned int flags)
{
  return mock_cuStreamCreateWithPriority (stream, flags, 0);
}

static CUresult
mock_cuStreamDestroy (CUstream stream)
{
  if (is_default_stream (stream) || stream->magic != MOCK_STREAM_MAGIC)
    return CUDA_ERROR_INVALID_HANDLE;
  stream->magic = 0;
  free (stream);
  return CUDA_SUCCESS;
}

/* The stream-ordered allocator: a pool's allocations are ordinary ones
 * (each stream's work is done when a call returns), counted in the pool;
 * freed bytes count as reserved (kept) until trimmed, though the memory
 * itself goes back at once. */
#define MOCK_POOL_MAGIC 0x504f4f4cU
struct CUmemPoolHandle_st {
  unsigned int magic;
  int device;
  cuuint64_t release_threshold;
  size_t used;   /* under mem_lock */
  size_t kept;   /* under mem_lock */
};

static CUresult
mock_cuMemPoolCreate (CUmemoryPool *pool, const CUmemPoolProps *props)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (pool == NULL || props == NULL || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      props->location.type != CU_MEM_LOCATION_TYPE_DEVICE || props->location.id < 0 ||
      props->location.id >= n_devices)
    return CUDA_ERROR_INVALID_VALUE;
  *pool = calloc (1, sizeof **pool);
  (*pool)->magic = MOCK_POOL_MAGIC;
  (*pool)->device = props->location.id;
  return CUDA_SUCCESS;
}

static int
is_mock_pool (CUmemoryPool pool)
{
  return pool != NULL && pool->magic == MOCK_POOL_MAGIC;
}

static CUresult
mock_cuMemPoolDestroy (CUmemoryPool pool)
{
  if (!is_mock_pool (pool))
    return CUDA_ERROR_INVALID_VALUE;
  /* the driver releases the pool once its allocations are freed: here its
   * allocations forget it (their frees still count nowhere) */
  pthread_mutex_lock (&mem_lock);
  for (size_t i = 0; i < n_allocations; i++)
    if (allocations[i].pool == pool)
      allocations[i].pool = NULL;
  pthread_mutex_unlock (&mem_lock);
  pool->magic = 0;
  free (pool);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuMemPoolSetAttribute (CUmemoryPool pool, CUmemPool_attribute attribute, void *value)
{
  if (!is_mock_pool (pool) || value == NULL || attribute != CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
    return CUDA_ERROR_INVALID_VALUE;
  pool->release_threshold = *(cuuint64_t *) value;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuMemPoolGetAttribute (CUmemoryPool pool, CUmemPool_attribute attribute, void *value)
{
  if (!is_mock_pool (pool) || value == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&mem_lock);
  switch ((int) attribute)
    {
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
      *(cuuint64_t *) value = pool->release_threshold;
      break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
      *(cuuint64_t *) value = pool->used + pool->kept;
      break;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
      *(cuuint64_t *) value = pool->used;
      break;
    default:
      pthread_mutex_unlock (&mem_lock);
      return CUDA_ERROR_INVALID_VALUE;
    }
  pthread_mutex_unlock (&mem_lock);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuMemPoolTrimTo (CUmemoryPool pool, size_t keep)
{
  if (!is_mock_pool (pool))
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&mem_lock);
  if (pool->used + pool->kept > keep)
    pool->kept = keep > pool->used ? keep - pool->used : 0;
  pthread_mutex_unlock (&mem_lock);
  return CUDA_SUCCESS;
}

/* check_stream() for the stream-ordered allocator, which the driver runs in
 * the context of a stream of its own with no context current (cuda.h: its
 * CUDA_ERROR_INVALID_CONTEXT is for the default stream only) */
static CUresult
check_ordered_stream (CUstream stream)
{
  CUresult res;

  if (is_default_stream (stream))
    return check_stream (stream);
  if ((res = check_init ()) != CUDA_SUCCESS)
    return res;
  if (stream->magic != MOCK_STREAM_MAGIC)
    return CUDA_ERROR_INVALID_HANDLE;
  return stream->ctx->destroyed ? CUDA_ERROR_CONTEXT_IS_DESTROYED : CUDA_SUCCESS;
}

static CUresult
mock_cuMemAllocFromPoolAsync (CUdeviceptr *ptr, size_t size, CUmemoryPool pool, CUstream stream)
{
  CUresult res = check_ordered_stream (stream);
  void *p = NULL;

  if (res != CUDA_SUCCESS)
    return res;
  if (ptr == NULL || !is_mock_pool (pool))
    return CUDA_ERROR_INVALID_VALUE;
  if (is_default_stream (stream))
    res = allocate (&p, size, 0);
  else
    res = allocate_in (stream->ctx, &p, size, 0);
  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&mem_lock);
  {
    long i = find_allocation ((CUdeviceptr) (uintptr_t) p, 0);

    allocations[i].pool = pool;
    pool->used += size;
  }
  pthread_mutex_unlock (&mem_lock);
  *ptr = (CUdeviceptr) (uintptr_t) p;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuMemFreeAsync (CUdeviceptr ptr, CUstream stream)
{
  CUresult res = check_ordered_stream (stream);
  long i;

  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&mem_lock);
  i = find_allocation (ptr, 0);
  if (i < 0)
    res = CUDA_ERROR_INVALID_VALUE;
  else
    {
      if (allocations[i].pool != NULL)
        {
          allocations[i].pool->used -= allocations[i].size;
          allocations[i].pool->kept += allocations[i].size;
        }
      remove_allocation ((size_t) i);
    }
  pthread_mutex_unlock (&mem_lock);
  return res;
}

/* Host functions run in order on one thread of the mock's, as the
 * driver's do; a synchronization waits for those queued before it. */
typedef struct HostFn {
  CUhostFn fn;
  void *data;
  struct HostFn *next;
} HostFn;

static pthread_mutex_t host_fn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t host_fn_queued = PTHREAD_COND_INITIALIZER;
static pthread_cond_t host_fn_done = PTHREAD_COND_INITIALIZER;
static HostFn *host_fn_head, *host_fn_tail;
static unsigned long long host_fn_enqueued, host_fn_completed;
static int host_fn_thread_started;

static void *
host_fn_thread (void *unused)
{
  (void) unused;
  pthread_mutex_lock (&host_fn_lock);
  for (;;)
    {
      HostFn *call;

      while (host_fn_head == NULL)
        pthread_cond_wait (&host_fn_queued, &host_fn_lock);
      call = host_fn_head;
      host_fn_head = call->next;
      if (host_fn_head == NULL)
        host_fn_tail = NULL;
      pthread_mutex_unlock (&host_fn_lock);
      call->fn (call->data);
      free (call);
      pthread_mutex_lock (&host_fn_lock);
      host_fn_completed++;
      pthread_cond_broadcast (&host_fn_done);
    }
  return NULL;
}

static CUresult
mock_cuLaunchHostFunc (CUstream stream, CUhostFn fn, void *data)
{
  CUresult res = check_stream (stream);
  HostFn *call;

  if (res != CUDA_SUCCESS)
    return res;
  if (fn == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  call = calloc (1, sizeof *call);
  call->fn = fn;
  call->data = data;
  pthread_mutex_lock (&host_fn_lock);
  if (!host_fn_thread_started)
    {
      pthread_t thread;

      if (pthread_create (&thread, NULL, host_fn_thread, NULL) != 0)
        {
          pthread_mutex_unlock (&host_fn_lock);
          free (call);
          return CUDA_ERROR_OUT_OF_MEMORY;
        }
      pthread_detach (thread);
      host_fn_thread_started = 1;
    }
  if (host_fn_tail != NULL)
    host_fn_tail->next = call;
  else
    host_fn_head = call;
  host_fn_tail = call;
  host_fn_enqueued++;
  pthread_cond_signal (&host_fn_queued);
  pthread_mutex_unlock (&host_fn_lock);
  return CUDA_SUCCESS;
}

/* Waits for the host functions queued so far (not from one of them). */
static void
wait_host_fns (void)
{
  pthread_mutex_lock (&host_fn_lock);
  {
    unsigned long long target = host_fn_enqueued;

    while (host_fn_completed < target)
      pthread_cond_wait (&host_fn_done, &host_fn_lock);
  }
  pthread_mutex_unlock (&host_fn_lock);
}

static CUresult
launch (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
        unsigned int bz, CUstream stream, void **params, void **extra)
{
  CUcontext ctx;
  CUresult res = current (&ctx);
  const unsigned char *packed = NULL;
  size_t packed_size = 0;

  if (res != CUDA_SUCCESS)
    return res;
  if (f == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!is_default_stream (stream) && !is_mock_stream (stream, ctx))
    return CUDA_ERROR_INVALID_HANDLE;
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || (size_t) bx * by * bz > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  if (params != NULL && extra != NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (extra != NULL)
    {
      for (int i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2)
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
          packed = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
          packed_size = *(size_t *) extra[i + 1];
        else
          return CUDA_ERROR_INVALID_VALUE;
      if (packed == NULL || packed_size != f->params_size)
        return CUDA_ERROR_INVALID_VALUE;
    }
  else if (f->n_params > 0 && params == NULL)
    return CUDA_ERROR_INVALID_VALUE;

  pthread_mutex_lock (&launch_lock);
  memset (last_params, 0, f->params_size);
  if (packed)
    memcpy (last_params, packed, packed_size);
  else
    for (unsigned int i = 0; i < f->n_params; i++)
      memcpy (last_params + f->offsets[i], params[i], f->sizes[i]);
  last_params_size = f->params_size;
  n_launches++;
  pthread_mutex_unlock (&launch_lock);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuLaunchKernel (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                     unsigned int by, unsigned int bz, unsigned int shared, CUstream stream, void **params,
                     void **extra)
{
  (void) shared;
  return launch (f, gx, gy, gz, bx, by, bz, stream, params, extra);
}

static CUresult
mock_cuLaunchKernelEx (const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
  if (config == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  return launch (f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX, config->blockDimY,
                 config->blockDimZ, config->hStream, params, extra);
}

/* ------------------------------------------------------------ OpenGL interop */

/* A stand-in for OpenGL, so that GCuda's graphics resources run in CI.
 * Conventions (tests call the exported gcuda_mock_gl_* functions, from C or
 * through ctypes):
 *
 * - A thread has a "current GL context" on a CUDA device after
 *   gcuda_mock_gl_make_current (ordinal); -1 makes none current, -2 one on
 *   a GPU without CUDA (another vendor's). A thread starts with the ordinal
 *   in GCUDA_MOCK_GL_DEVICE when it is set, else with none.
 * - gcuda_mock_gl_new_buffer (size) makes a buffer object with zeroed
 *   storage of @size bytes and returns its name;
 *   gcuda_mock_gl_buffer_data (name, &size) gives its storage, for tests
 *   to read what CUDA wrote ("glGetBufferSubData").
 * - gcuda_mock_gl_new_texture (target, width, height, depth, format,
 *   channels) makes a texture (format a CUarray_format) and returns its
 *   name. Names are shared by every thread, as in one GL share group, and
 *   live until the process ends.
 *
 * Registering needs a current CUDA context and a current GL context
 * (CUDA_ERROR_INVALID_GRAPHICS_CONTEXT without one, or with -2); a name
 * that is not a buffer (cuGraphicsGLRegisterBuffer) or not a texture of
 * that target (cuGraphicsGLRegisterImage), or flags an object cannot have,
 * is CUDA_ERROR_INVALID_VALUE. Mapping and unmapping follow the driver's
 * documented errors (ALREADY_MAPPED, NOT_MAPPED, NOT_MAPPED_AS_ARRAY,
 * NOT_MAPPED_AS_POINTER, INVALID_HANDLE); a mapped buffer's pointer is its
 * storage, which copies and memsets accept; a mapped texture's array
 * answers cuArray3DGetDescriptor and nothing else (the mock has no arrays).
 * cuGLGetDevices lists the current GL context's device (CUDA_ERROR_NO_DEVICE
 * for -2). gcuda_mock_gl_get_registered() counts the registrations not
 * unregistered yet.
 *
 * With GCUDA_MOCK_GL_REAL=1, texture names are instead those of the real
 * OpenGL context current on the thread (libepoxy's, as GTK makes them;
 * libepoxy is looked up in the process, never linked): only GL_TEXTURE_2D
 * of GL_RGBA8 (anything else is CUDA_ERROR_INVALID_VALUE). Its mapped array
 * is host memory that the 2D copies (GCUDA_MOCK_EVENTS=1) write, and
 * unmapping uploads it into the texture with glTexSubImage2D, so that a test
 * on a software GL sees what CUDA "wrote". */

#define MOCK_GL_MAX_OBJECTS 256
#define MOCK_GRAPHICS_MAGIC 0x47524150U
#define MOCK_GL_TEXTURE_2D 0x0DE1
#define MOCK_GL_TEXTURE_CUBE_MAP 0x8513
#define MOCK_GL_TEXTURE_2D_ARRAY 0x8C1A
#define MOCK_GL_TEXTURE_3D 0x806F

struct CUarray_st {
  unsigned int magic;
  CUDA_ARRAY3D_DESCRIPTOR desc;
  unsigned char *storage;    /* a real GL texture's (GCUDA_MOCK_GL_REAL=1), else NULL */
};

typedef struct {
  int texture;               /* else a buffer object */
  unsigned int target;
  void *storage;             /* buffers */
  size_t size;
  CUDA_ARRAY3D_DESCRIPTOR desc;  /* textures */
} MockGLObject;

struct CUgraphicsResource_st {
  unsigned int magic;
  CUcontext ctx;
  unsigned int name;
  unsigned int flags;
  int mapped;
  int real;                  /* a texture of the real GL (GCUDA_MOCK_GL_REAL=1) */
  struct CUarray_st array;
};

static pthread_mutex_t gl_lock = PTHREAD_MUTEX_INITIALIZER;
static MockGLObject gl_objects[MOCK_GL_MAX_OBJECTS + 1];  /* by name; 0 is none */
static unsigned int gl_n_objects;
static size_t gl_registered;  /* live registrations, under gl_lock */

static __thread int gl_current_known;
static __thread int gl_current;

EXPORT int          gcuda_mock_gl_make_current (int device);
EXPORT unsigned int gcuda_mock_gl_new_buffer   (size_t size);
EXPORT void        *gcuda_mock_gl_buffer_data  (unsigned int name, size_t *size);
EXPORT unsigned int gcuda_mock_gl_new_texture  (unsigned int target, size_t width, size_t height, size_t depth,
                                                int format, unsigned int channels);
EXPORT size_t       gcuda_mock_gl_get_registered (void);

static int
gl_device (void)
{
  if (!gl_current_known)
    {
      const char *env = getenv ("GCUDA_MOCK_GL_DEVICE");

      gl_current = env != NULL && *env != '\0' ? atoi (env) : -1;
      gl_current_known = 1;
    }
  return gl_current;
}

/* Makes a GL context on CUDA device @device current on this thread (-1:
 * none, -2: one on a GPU without CUDA); returns the previous one. */
int
gcuda_mock_gl_make_current (int device)
{
  int previous = gl_device ();

  gl_current = device;
  return previous;
}

unsigned int
gcuda_mock_gl_new_buffer (size_t size)
{
  void *block;
  unsigned int name = 0;

  if (size == 0 || (block = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) ==
                   MAP_FAILED)
    return 0;
  pthread_mutex_lock (&gl_lock);
  if (gl_n_objects < MOCK_GL_MAX_OBJECTS)
    {
      name = ++gl_n_objects;
      gl_objects[name].storage = block;
      gl_objects[name].size = size;
    }
  pthread_mutex_unlock (&gl_lock);
  if (name == 0)
    {
      munmap (block, size);
      return 0;
    }
  /* device memory of no context, so that copies and memsets accept it */
  pthread_mutex_lock (&mem_lock);
  if (n_allocations == allocations_size)
    {
      size_t n = allocations_size ? allocations_size * 2 : 64;

      allocations = realloc (allocations, n * sizeof *allocations);
      allocations_size = n;
    }
  allocations[n_allocations++] = (Allocation) { (CUdeviceptr) (uintptr_t) block, size, NULL, 0, 0 };
  device_used[0] += size;
  pthread_mutex_unlock (&mem_lock);
  return name;
}

void *
gcuda_mock_gl_buffer_data (unsigned int name, size_t *size)
{
  void *data = NULL;

  pthread_mutex_lock (&gl_lock);
  if (name >= 1 && name <= gl_n_objects && !gl_objects[name].texture)
    {
      data = gl_objects[name].storage;
      if (size)
        *size = gl_objects[name].size;
    }
  pthread_mutex_unlock (&gl_lock);
  return data;
}

unsigned int
gcuda_mock_gl_new_texture (unsigned int target, size_t width, size_t height, size_t layers, int format,
                           unsigned int channels)
{
  unsigned int name = 0;

  pthread_mutex_lock (&gl_lock);
  if (gl_n_objects < MOCK_GL_MAX_OBJECTS)
    {
      name = ++gl_n_objects;
      gl_objects[name].texture = 1;
      gl_objects[name].target = target;
      gl_objects[name].desc.Width = width;
      gl_objects[name].desc.Height = height;
      gl_objects[name].desc.Depth = layers;
      gl_objects[name].desc.Format = (CUarray_format) format;
      gl_objects[name].desc.NumChannels = channels;
    }
  pthread_mutex_unlock (&gl_lock);
  return name;
}

/* For tests: resources registered and not unregistered. */
size_t
gcuda_mock_gl_get_registered (void)
{
  size_t n;

  pthread_mutex_lock (&gl_lock);
  n = gl_registered;
  pthread_mutex_unlock (&gl_lock);
  return n;
}

/* The real GL of GCUDA_MOCK_GL_REAL=1, through libepoxy's dispatch
 * pointers (variables, read at each call: epoxy replaces its resolver). */
#define REAL_GL_TEXTURE_BINDING_2D 0x8069
#define REAL_GL_TEXTURE_WIDTH 0x1000
#define REAL_GL_TEXTURE_HEIGHT 0x1001
#define REAL_GL_TEXTURE_INTERNAL_FORMAT 0x1003
#define REAL_GL_RGBA8 0x8058
#define REAL_GL_RGBA 0x1908
#define REAL_GL_UNSIGNED_BYTE 0x1401

static struct {
  void **bind_texture;
  void **get_integerv;
  void **get_tex_level_parameteriv;
  void **tex_sub_image_2d;
  void **is_texture;
} rgl;

#define RGL_BIND_TEXTURE(target, name) \
  ((void (*) (unsigned int, unsigned int)) *rgl.bind_texture) ((target), (name))
#define RGL_GET_INTEGERV(pname, value) \
  ((void (*) (unsigned int, int *)) *rgl.get_integerv) ((pname), (value))
#define RGL_GET_TEX_LEVEL_PARAMETERIV(target, level, pname, value) \
  ((void (*) (unsigned int, int, unsigned int, int *)) *rgl.get_tex_level_parameteriv) ((target), (level), \
                                                                                        (pname), (value))
#define RGL_TEX_SUB_IMAGE_2D(target, level, x, y, w, h, format, type, data) \
  ((void (*) (unsigned int, int, int, int, int, int, unsigned int, unsigned int, const void *)) \
   *rgl.tex_sub_image_2d) ((target), (level), (x), (y), (w), (h), (format), (type), (data))
#define RGL_IS_TEXTURE(name) ((unsigned char (*) (unsigned int)) *rgl.is_texture) ((name))

static int
real_gl (void)
{
  const char *v = getenv ("GCUDA_MOCK_GL_REAL");

  return v != NULL && strcmp (v, "1") == 0;
}

static int
real_gl_resolve (void)
{
  static const char *const names[] = {
    "epoxy_glBindTexture", "epoxy_glGetIntegerv", "epoxy_glGetTexLevelParameteriv",
    "epoxy_glTexSubImage2D", "epoxy_glIsTexture",
  };
  void ***slots[] = {
    &rgl.bind_texture, &rgl.get_integerv, &rgl.get_tex_level_parameteriv,
    &rgl.tex_sub_image_2d, &rgl.is_texture,
  };

  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    {
      void **p = dlsym (RTLD_DEFAULT, names[i]);

      if (p == NULL || *p == NULL)
        return 0;
      *slots[i] = p;
    }
  return 1;
}

/* A resource for the real GL texture @name: its size and format from GL,
 * its array's memory on the host. Under gl_lock. */
static CUresult
real_gl_register (CUgraphicsResource *out, CUcontext ctx, unsigned int name, unsigned int target,
                  unsigned int flags)
{
  int bound = 0, width = 0, height = 0, format = 0;
  CUgraphicsResource r;

  if (target != MOCK_GL_TEXTURE_2D || !real_gl_resolve () || name == 0 || !RGL_IS_TEXTURE (name))
    return CUDA_ERROR_INVALID_VALUE;
  RGL_GET_INTEGERV (REAL_GL_TEXTURE_BINDING_2D, &bound);
  RGL_BIND_TEXTURE (MOCK_GL_TEXTURE_2D, name);
  RGL_GET_TEX_LEVEL_PARAMETERIV (MOCK_GL_TEXTURE_2D, 0, REAL_GL_TEXTURE_WIDTH, &width);
  RGL_GET_TEX_LEVEL_PARAMETERIV (MOCK_GL_TEXTURE_2D, 0, REAL_GL_TEXTURE_HEIGHT, &height);
  RGL_GET_TEX_LEVEL_PARAMETERIV (MOCK_GL_TEXTURE_2D, 0, REAL_GL_TEXTURE_INTERNAL_FORMAT, &format);
  RGL_BIND_TEXTURE (MOCK_GL_TEXTURE_2D, (unsigned int) bound);
  if (width <= 0 || height <= 0 || format != REAL_GL_RGBA8)
    return CUDA_ERROR_INVALID_VALUE;
  r = calloc (1, sizeof *r);
  r->magic = MOCK_GRAPHICS_MAGIC;
  r->ctx = ctx;
  r->name = name;
  r->flags = flags;
  r->real = 1;
  r->array.magic = MOCK_GRAPHICS_MAGIC;
  r->array.desc.Width = (size_t) width;
  r->array.desc.Height = (size_t) height;
  r->array.desc.Format = CU_AD_FORMAT_UNSIGNED_INT8;
  r->array.desc.NumChannels = 4;
  if (flags & CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST)
    r->array.desc.Flags |= CUDA_ARRAY3D_SURFACE_LDST;
  r->array.storage = calloc ((size_t) width * (size_t) height, 4);
  gl_registered++;
  *out = r;
  return CUDA_SUCCESS;
}

/* Unmapping: what CUDA wrote goes into the texture (the caller's GL
 * context is current, as the driver requires). */
static void
real_gl_upload (CUgraphicsResource r)
{
  int bound = 0;

  RGL_GET_INTEGERV (REAL_GL_TEXTURE_BINDING_2D, &bound);
  RGL_BIND_TEXTURE (MOCK_GL_TEXTURE_2D, r->name);
  RGL_TEX_SUB_IMAGE_2D (MOCK_GL_TEXTURE_2D, 0, 0, 0, (int) r->array.desc.Width, (int) r->array.desc.Height,
                        REAL_GL_RGBA, REAL_GL_UNSIGNED_BYTE, r->array.storage);
  RGL_BIND_TEXTURE (MOCK_GL_TEXTURE_2D, (unsigned int) bound);
}

static CUresult
gl_register (CUgraphicsResource *out, unsigned int name, int texture, unsigned int target, unsigned int flags)
{
  CUcontext ctx;
  CUresult res = current (&ctx);
  CUgraphicsResource r;

  if (res != CUDA_SUCCESS)
    return res;
  if (out == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (gl_device () < 0)
    return CUDA_ERROR_INVALID_GRAPHICS_CONTEXT;
  if (flags > (texture ? 15u : 3u) || (flags & 3) == 3)
    return CUDA_ERROR_INVALID_VALUE;
  if (texture && real_gl ())
    {
      pthread_mutex_lock (&gl_lock);
      res = real_gl_register (out, ctx, name, target, flags);
      pthread_mutex_unlock (&gl_lock);
      return res;
    }
  pthread_mutex_lock (&gl_lock);
  if (name == 0 || name > gl_n_objects || gl_objects[name].texture != texture ||
      (texture && gl_objects[name].target != target))
    res = CUDA_ERROR_INVALID_VALUE;
  else
    {
      r = calloc (1, sizeof *r);
      r->magic = MOCK_GRAPHICS_MAGIC;
      r->ctx = ctx;
      r->name = name;
      r->flags = flags;
      if (texture)
        {
          r->array.magic = MOCK_GRAPHICS_MAGIC;
          r->array.desc = gl_objects[name].desc;
          if (flags & CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST)
            r->array.desc.Flags |= CUDA_ARRAY3D_SURFACE_LDST;
        }
      gl_registered++;
      *out = r;
    }
  pthread_mutex_unlock (&gl_lock);
  return res;
}

static CUresult
mock_cuGraphicsGLRegisterBuffer (CUgraphicsResource *out, unsigned int buffer, unsigned int flags)
{
  return gl_register (out, buffer, 0, 0, flags);
}

static CUresult
mock_cuGraphicsGLRegisterImage (CUgraphicsResource *out, unsigned int image, unsigned int target,
                                unsigned int flags)
{
  return gl_register (out, image, 1, target, flags);
}

static int
is_resource (CUgraphicsResource r)
{
  return r != NULL && r->magic == MOCK_GRAPHICS_MAGIC;
}

static CUresult
mock_cuGraphicsUnregisterResource (CUgraphicsResource r)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&gl_lock);
  if (!is_resource (r))
    res = CUDA_ERROR_INVALID_HANDLE;
  else
    {
      r->magic = 0;
      r->array.magic = 0;
      free (r->array.storage);
      free (r);
      gl_registered--;
    }
  pthread_mutex_unlock (&gl_lock);
  return res;
}

static CUresult
map_resources (unsigned int count, CUgraphicsResource *rs, CUstream stream, int map)
{
  CUresult res = check_stream (stream);
  CUcontext ctx = NULL;

  if (res != CUDA_SUCCESS)
    return res;
  current (&ctx);
  if (count == 0 || rs == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&gl_lock);
  for (unsigned int i = 0; i < count && res == CUDA_SUCCESS; i++)
    if (!is_resource (rs[i]) || rs[i]->ctx != ctx)
      res = CUDA_ERROR_INVALID_HANDLE;
    else if (rs[i]->mapped == map)
      res = map ? CUDA_ERROR_ALREADY_MAPPED : CUDA_ERROR_NOT_MAPPED;
  if (res == CUDA_SUCCESS)
    for (unsigned int i = 0; i < count; i++)
      {
        rs[i]->mapped = map;
        if (!map && rs[i]->real)
          real_gl_upload (rs[i]);
      }
  pthread_mutex_unlock (&gl_lock);
  return res;
}

static CUresult
mock_cuGraphicsMapResources (unsigned int count, CUgraphicsResource *rs, CUstream stream)
{
  return map_resources (count, rs, stream, 1);
}

static CUresult
mock_cuGraphicsUnmapResources (unsigned int count, CUgraphicsResource *rs, CUstream stream)
{
  return map_resources (count, rs, stream, 0);
}

static CUresult
mock_cuGraphicsResourceGetMappedPointer (CUdeviceptr *ptr, size_t *size, CUgraphicsResource r)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&gl_lock);
  if (!is_resource (r))
    res = CUDA_ERROR_INVALID_HANDLE;
  else if (!r->mapped)
    res = CUDA_ERROR_NOT_MAPPED;
  else if (r->real || gl_objects[r->name].texture)
    res = CUDA_ERROR_NOT_MAPPED_AS_POINTER;
  else
    {
      *ptr = (CUdeviceptr) (uintptr_t) gl_objects[r->name].storage;
      *size = gl_objects[r->name].size;
    }
  pthread_mutex_unlock (&gl_lock);
  return res;
}

static CUresult
mock_cuGraphicsSubResourceGetMappedArray (CUarray *array, CUgraphicsResource r, unsigned int index,
                                          unsigned int level)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&gl_lock);
  if (!is_resource (r))
    res = CUDA_ERROR_INVALID_HANDLE;
  else if (!r->mapped)
    res = CUDA_ERROR_NOT_MAPPED;
  else if (r->real)
    {
      if (level != 0 || index != 0)
        res = CUDA_ERROR_INVALID_VALUE;
      else
        *array = &r->array;
    }
  else if (!gl_objects[r->name].texture)
    res = CUDA_ERROR_NOT_MAPPED_AS_ARRAY;
  else
    {
      unsigned int target = gl_objects[r->name].target;
      size_t layers = target == MOCK_GL_TEXTURE_CUBE_MAP ? 6
                      : target == MOCK_GL_TEXTURE_2D_ARRAY ? gl_objects[r->name].desc.Depth : 1;

      /* one mip level: the textures are made without mipmaps */
      if (level != 0 || index >= layers)
        res = CUDA_ERROR_INVALID_VALUE;
      else
        *array = &r->array;
    }
  pthread_mutex_unlock (&gl_lock);
  return res;
}

static CUresult
mock_cuArray3DGetDescriptor (CUDA_ARRAY3D_DESCRIPTOR *desc, CUarray array)
{
  if (desc == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (array == NULL || array->magic != MOCK_GRAPHICS_MAGIC)
    return CUDA_ERROR_INVALID_HANDLE;
  *desc = array->desc;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuGLGetDevices (unsigned int *count, CUdevice *found, unsigned int size, CUGLDeviceList which)
{
  CUresult res = check_init ();
  int device = gl_device ();

  if (res != CUDA_SUCCESS)
    return res;
  if (count == NULL || which < CU_GL_DEVICE_LIST_ALL || which > CU_GL_DEVICE_LIST_NEXT_FRAME)
    return CUDA_ERROR_INVALID_VALUE;
  if (device == -2)
    return CUDA_ERROR_NO_DEVICE;
  if (device < 0 || device >= n_devices)
    return CUDA_ERROR_INVALID_GRAPHICS_CONTEXT;
  *count = 1;
  if (found != NULL && size >= 1)
    found[0] = device;
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------------ events and 2D/3D copies (GCUDA_MOCK_EVENTS=1) */

/* With GCUDA_MOCK_EVENTS=1 (elsewhere the mock stays a driver without
 * them; the streams need GCUDA_MOCK_KERNELS=1): events, steps of the host
 * functions' queue timed by the host's monotonic clock, waits on them,
 * cuStreamQuery (the queue is empty), cuStreamGetFlags/GetPriority/GetCtx;
 * kernel attributes and cache configuration (cuFuncSetAttribute: the
 * dynamic shared memory and carveout, read back by cuFuncGetAttribute);
 * pitched memory (cuMemAllocPitch, 512-byte rows) and page-locked memory's
 * device address (cuMemHostGetDevicePointer, the host address);
 * 2D and 3D copies (cuMemcpy2D, cuMemcpy2DUnaligned, cuMemcpy3D,
 * cuMemcpy3DPeer and their Async forms) between host, device and unified
 * memory, row by row, where every device row must lie in a live
 * allocation and a pitch must hold its row (CUDA_ERROR_INVALID_VALUE
 * otherwise; the mock has no arrays, so an array endpoint is invalid too). */

#define MOCK_EVENT_MAGIC 0x45564e54U
#define MOCK_EVENT_DISABLE_TIMING 0x2

/* A recorded event is a step of the host functions' queue (where every
 * stream's work is ordered, see "kernels"): it completes, and takes its
 * time, when the queue reaches it. */
struct CUevent_st {
  unsigned int magic;
  CUcontext ctx;
  unsigned int flags;
  int recorded;
  int pending;             /* steps queued, not run yet; under host_fn_lock */
  int destroyed;           /* freed by its last step; under host_fn_lock */
  struct timespec when;    /* under host_fn_lock */
};

static void
event_reached (void *data)
{
  CUevent event = data;
  int gone;

  pthread_mutex_lock (&host_fn_lock);
  clock_gettime (CLOCK_MONOTONIC, &event->when);
  event->pending--;
  gone = event->destroyed && event->pending == 0;
  pthread_mutex_unlock (&host_fn_lock);
  if (gone)
    free (event);
}

static int
event_done (CUevent event)
{
  int done;

  pthread_mutex_lock (&host_fn_lock);
  done = event->pending == 0;
  pthread_mutex_unlock (&host_fn_lock);
  return done;
}

static CUresult
mock_cuEventCreate (CUevent *event, unsigned int flags)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  if (event == NULL || (flags & ~0xfU) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  *event = calloc (1, sizeof **event);
  (*event)->magic = MOCK_EVENT_MAGIC;
  (*event)->ctx = ctx;
  (*event)->flags = flags;
  return CUDA_SUCCESS;
}

static int
is_mock_event (CUevent event)
{
  return event != NULL && event->magic == MOCK_EVENT_MAGIC;
}

/* as the driver, at once: an event with steps still queued (which point
 * to it) goes with the last one */
static CUresult
mock_cuEventDestroy (CUevent event)
{
  int pending;

  if (!is_mock_event (event))
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock (&host_fn_lock);
  event->magic = 0;
  event->destroyed = 1;
  pending = event->pending;
  pthread_mutex_unlock (&host_fn_lock);
  if (pending == 0)
    free (event);
  return CUDA_SUCCESS;
}

static CUresult
mock_cuEventRecord (CUevent event, CUstream stream)
{
  CUresult res = check_stream (stream);

  if (res != CUDA_SUCCESS)
    return res;
  if (!is_mock_event (event))
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock (&host_fn_lock);
  event->pending++;
  event->recorded = 1;
  pthread_mutex_unlock (&host_fn_lock);
  res = mock_cuLaunchHostFunc (stream, event_reached, event);
  if (res != CUDA_SUCCESS)
    {
      pthread_mutex_lock (&host_fn_lock);
      event->pending--;
      pthread_mutex_unlock (&host_fn_lock);
    }
  return res;
}

static CUresult
mock_cuEventSynchronize (CUevent event)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (!is_mock_event (event))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!event_done (event))
    wait_host_fns ();
  return CUDA_SUCCESS;
}

/* as the driver: an event never recorded is done */
static CUresult
mock_cuEventQuery (CUevent event)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (!is_mock_event (event))
    return CUDA_ERROR_INVALID_HANDLE;
  return event_done (event) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

/* as the driver: both timing (else INVALID_HANDLE), both recorded and
 * done (else NOT_READY) */
static CUresult
mock_cuEventElapsedTime (float *ms, CUevent start, CUevent end)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (ms == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (!is_mock_event (start) || !is_mock_event (end) ||
      ((start->flags | end->flags) & MOCK_EVENT_DISABLE_TIMING) != 0)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!start->recorded || !end->recorded || !event_done (start) || !event_done (end))
    return CUDA_ERROR_NOT_READY;
  pthread_mutex_lock (&host_fn_lock);
  *ms = (float) ((double) (end->when.tv_sec - start->when.tv_sec) * 1e3 +
                 (double) (end->when.tv_nsec - start->when.tv_nsec) / 1e6);
  pthread_mutex_unlock (&host_fn_lock);
  return CUDA_SUCCESS;
}

/* the mock's own streams answer what they were made with; the default
 * ones are blocking, of priority 0 */
static CUresult
mock_cuStreamGetFlags (CUstream stream, unsigned int *flags)
{
  CUresult res = check_stream (stream);

  if (res != CUDA_SUCCESS)
    return res;
  if (flags == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *flags = !is_default_stream (stream) ? stream->flags : 0;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuStreamGetPriority (CUstream stream, int *priority)
{
  CUresult res = check_stream (stream);

  if (res != CUDA_SUCCESS)
    return res;
  if (priority == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *priority = !is_default_stream (stream) ? stream->priority : 0;
  return CUDA_SUCCESS;
}

/* rows of @width bytes, 512 bytes apart at least (as the driver's texture
 * pitch alignment); @access is the element size, 4, 8 or 16 */
static CUresult
mock_cuMemAllocPitch (CUdeviceptr *ptr, size_t *pitch, size_t width, size_t height, unsigned int access)
{
  size_t p;

  if (ptr == NULL || pitch == NULL || width == 0 || height == 0 ||
      (access != 4 && access != 8 && access != 16))
    return CUDA_ERROR_INVALID_VALUE;
  p = (width + 511) / 512 * 512;
  if (p < width || height > SIZE_MAX / p)
    return CUDA_ERROR_INVALID_VALUE;
  *pitch = p;
  return mock_cuMemAlloc (ptr, p * height);
}

/* unified addressing: page-locked memory is at the same address for both
 * (the mock does not check the DEVICEMAP flag) */
static CUresult
mock_cuMemHostGetDevicePointer (CUdeviceptr *dptr, void *host, unsigned int flags)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (dptr == NULL || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&mem_lock);
  res = find_allocation ((CUdeviceptr) (uintptr_t) host, 1) >= 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock (&mem_lock);
  if (res == CUDA_SUCCESS)
    *dptr = (CUdeviceptr) (uintptr_t) host;
  return res;
}

/* a stream of the mock's: its context; a default stream: the current one */
static CUresult
mock_cuStreamGetCtx (CUstream stream, CUcontext *pctx)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (pctx == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (is_default_stream (stream))
    return current (pctx);
  if (stream->magic == MOCK_STREAM_MAGIC)
    *pctx = stream->ctx;
  else
    return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

/* What a kernel lets be set: the dynamic shared memory it may ask for (up
 * to an H100's 227 KiB) and its shared memory carveout (-1 to 100 %);
 * the other attributes are read-only (CUDA_ERROR_INVALID_VALUE). */
static CUresult
mock_cuFuncSetAttribute (CUfunction function, CUfunction_attribute attrib, int value)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (function == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES && value >= 0 && value <= 232448)
    function->attributes[attrib] = value;
  else if ((int) attrib == 9 /* PREFERRED_SHARED_MEMORY_CARVEOUT */ && value >= -1 && value <= 100)
    function->attributes[attrib] = value;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

static CUresult
mock_cuFuncSetCacheConfig (CUfunction function, CUfunc_cache config)
{
  CUresult res = check_init ();

  if (res != CUDA_SUCCESS)
    return res;
  if (function == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if ((unsigned int) config > 3)
    return CUDA_ERROR_INVALID_VALUE;
  function->cache = config;
  return CUDA_SUCCESS;
}

/* every stream's work is in one queue: done when the queue is empty */
static CUresult
mock_cuStreamQuery (CUstream stream)
{
  CUresult res = check_stream (stream);
  int done;

  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&host_fn_lock);
  done = host_fn_completed == host_fn_enqueued;
  pthread_mutex_unlock (&host_fn_lock);
  return done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

static CUresult
mock_cuStreamWaitEvent (CUstream stream, CUevent event, unsigned int flags)
{
  CUresult res = check_stream (stream);

  if (res != CUDA_SUCCESS)
    return res;
  if (!is_mock_event (event))
    return CUDA_ERROR_INVALID_HANDLE;
  return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* One side of a 2D/3D copy. */
typedef struct {
  CUmemorytype type;
  unsigned char *base;
  size_t x, y, z, pitch, height;
} CopySide;

/* With mem_lock held: whether every row of @side's box lies where it may
 * (device rows in a live allocation; host and unified memory are the
 * caller's). */
static int
side_valid (const CopySide *side, size_t width, size_t height, size_t n_slices)
{
  if (side->type != CU_MEMORYTYPE_HOST && side->type != CU_MEMORYTYPE_DEVICE &&
      side->type != CU_MEMORYTYPE_UNIFIED)
    return 0;
  if (side->base == NULL || (height > 1 && side->pitch < side->x + width) ||
      (n_slices > 1 && side->height < side->y + height))
    return 0;
  if (side->type != CU_MEMORYTYPE_DEVICE)
    return 1;
  for (size_t z = 0; z < n_slices; z++)
    for (size_t y = 0; y < height; y++)
      {
        size_t offset = ((side->z + z) * side->height + side->y + y) * side->pitch + side->x;

        if (!valid_range ((CUdeviceptr) (uintptr_t) (side->base + offset), width))
          return 0;
      }
  return 1;
}

static CUresult
copy_box (const CopySide *src, const CopySide *dst, size_t width, size_t height, size_t n_slices,
          CUstream stream)
{
  CUresult res = check_stream (stream);

  if (res != CUDA_SUCCESS || width == 0 || height == 0 || n_slices == 0)
    return res;
  pthread_mutex_lock (&mem_lock);
  if (!side_valid (src, width, height, n_slices) || !side_valid (dst, width, height, n_slices))
    res = CUDA_ERROR_INVALID_VALUE;
  else
    for (size_t z = 0; z < n_slices; z++)
      for (size_t y = 0; y < height; y++)
        memmove (dst->base + ((dst->z + z) * dst->height + dst->y + y) * dst->pitch + dst->x,
                 src->base + ((src->z + z) * src->height + src->y + y) * src->pitch + src->x, width);
  pthread_mutex_unlock (&mem_lock);
  return res;
}

/* an array endpoint is refused by side_valid() (the mock has no arrays) */
static unsigned char *
side_base (CUmemorytype type, const void *host, CUdeviceptr device)
{
  return type == CU_MEMORYTYPE_HOST ? (unsigned char *) host : DEV (device);
}

/* The mapped array of a real GL texture (GCUDA_MOCK_GL_REAL=1) is host
 * memory: as a side of a 2D copy, its rows (refused beyond its extent);
 * other arrays stay refused. */
static int
array_side (CUarray array, size_t x, size_t y, size_t width, size_t height, CopySide *side)
{
  size_t row;

  if (array == NULL || array->magic != MOCK_GRAPHICS_MAGIC || array->storage == NULL)
    return 0;
  row = array->desc.Width * array->desc.NumChannels;
  if (x + width > row || y + height > array->desc.Height)
    return 0;
  *side = (CopySide) { CU_MEMORYTYPE_HOST, array->storage, x, y, 0, row, height };
  return 1;
}

static CUresult
copy_2d (const CUDA_MEMCPY2D *c, CUstream stream)
{
  CopySide src, dst;

  if (c == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  src = (CopySide) { c->srcMemoryType, side_base (c->srcMemoryType, c->srcHost, c->srcDevice),
                     c->srcXInBytes, c->srcY, 0, c->srcPitch, c->Height };
  dst = (CopySide) { c->dstMemoryType, side_base (c->dstMemoryType, c->dstHost, c->dstDevice),
                     c->dstXInBytes, c->dstY, 0, c->dstPitch, c->Height };
  if (c->srcMemoryType == CU_MEMORYTYPE_ARRAY &&
      !array_side (c->srcArray, c->srcXInBytes, c->srcY, c->WidthInBytes, c->Height, &src))
    return CUDA_ERROR_INVALID_VALUE;
  if (c->dstMemoryType == CU_MEMORYTYPE_ARRAY &&
      !array_side (c->dstArray, c->dstXInBytes, c->dstY, c->WidthInBytes, c->Height, &dst))
    return CUDA_ERROR_INVALID_VALUE;
  return copy_box (&src, &dst, c->WidthInBytes, c->Height, 1, stream);
}

static CUresult
mock_cuMemcpy2D (const CUDA_MEMCPY2D *copy)
{
  return copy_2d (copy, NULL);
}

static CUresult
mock_cuMemcpy2DUnaligned (const CUDA_MEMCPY2D *copy)
{
  return copy_2d (copy, NULL);
}

static CUresult
mock_cuMemcpy2DAsync (const CUDA_MEMCPY2D *copy, CUstream stream)
{
  return copy_2d (copy, stream);
}

static CUresult
copy_3d (const CUDA_MEMCPY3D *c, CUstream stream)
{
  CopySide src, dst;

  if (c == NULL || c->srcLOD != 0 || c->dstLOD != 0)
    return CUDA_ERROR_INVALID_VALUE;
  src = (CopySide) { c->srcMemoryType, side_base (c->srcMemoryType, c->srcHost, c->srcDevice),
                     c->srcXInBytes, c->srcY, c->srcZ, c->srcPitch, c->srcHeight };
  dst = (CopySide) { c->dstMemoryType, side_base (c->dstMemoryType, c->dstHost, c->dstDevice),
                     c->dstXInBytes, c->dstY, c->dstZ, c->dstPitch, c->dstHeight };
  return copy_box (&src, &dst, c->WidthInBytes, c->Height, c->Depth, stream);
}

static CUresult
mock_cuMemcpy3D (const CUDA_MEMCPY3D *copy)
{
  return copy_3d (copy, NULL);
}

static CUresult
mock_cuMemcpy3DAsync (const CUDA_MEMCPY3D *copy, CUstream stream)
{
  return copy_3d (copy, stream);
}

/* Between contexts: both must be alive (a NULL one stands for host
 * memory's side). */
static CUresult
copy_3d_peer (const CUDA_MEMCPY3D_PEER *c, CUstream stream)
{
  CopySide src, dst;

  if (c == NULL || c->srcLOD != 0 || c->dstLOD != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if ((c->srcContext != NULL && c->srcContext->destroyed) || (c->dstContext != NULL && c->dstContext->destroyed))
    return CUDA_ERROR_INVALID_CONTEXT;
  src = (CopySide) { c->srcMemoryType, side_base (c->srcMemoryType, c->srcHost, c->srcDevice),
                     c->srcXInBytes, c->srcY, c->srcZ, c->srcPitch, c->srcHeight };
  dst = (CopySide) { c->dstMemoryType, side_base (c->dstMemoryType, c->dstHost, c->dstDevice),
                     c->dstXInBytes, c->dstY, c->dstZ, c->dstPitch, c->dstHeight };
  return copy_box (&src, &dst, c->WidthInBytes, c->Height, c->Depth, stream);
}

static CUresult
mock_cuMemcpy3DPeer (const CUDA_MEMCPY3D_PEER *copy)
{
  return copy_3d_peer (copy, NULL);
}

static CUresult
mock_cuMemcpy3DPeerAsync (const CUDA_MEMCPY3D_PEER *copy, CUstream stream)
{
  return copy_3d_peer (copy, stream);
}

/* ------------------------------------------------------------ entry points */

static const struct { const char *name; void *fn; } table[] = {
#define ENTRY(f) { #f, (void *) mock_##f }
  ENTRY (cuDriverGetVersion),
  ENTRY (cuGetErrorName),
  { "cuGetErrorString", (void *) cuGetErrorString },
  ENTRY (cuDeviceGetCount),
  ENTRY (cuDeviceGet),
  ENTRY (cuDeviceGetName),
  ENTRY (cuDeviceGetAttribute),
  ENTRY (cuDeviceTotalMem),
  ENTRY (cuDeviceGetUuid),
  ENTRY (cuDeviceGetPCIBusId),
  ENTRY (cuDeviceGetByPCIBusId),
  ENTRY (cuDeviceCanAccessPeer),
  ENTRY (cuDeviceGetP2PAttribute),
  ENTRY (cuDevicePrimaryCtxRetain),
  ENTRY (cuDevicePrimaryCtxRelease),
  ENTRY (cuDevicePrimaryCtxSetFlags),
  ENTRY (cuDevicePrimaryCtxGetState),
  ENTRY (cuCtxCreate),
  ENTRY (cuCtxDestroy),
  ENTRY (cuCtxPushCurrent),
  ENTRY (cuCtxPopCurrent),
  ENTRY (cuCtxGetCurrent),
  ENTRY (cuCtxSetCurrent),
  ENTRY (cuCtxGetDevice),
  ENTRY (cuCtxGetFlags),
  ENTRY (cuCtxSynchronize),
  ENTRY (cuCtxGetLimit),
  ENTRY (cuCtxSetLimit),
  ENTRY (cuCtxGetCacheConfig),
  ENTRY (cuCtxSetCacheConfig),
  ENTRY (cuCtxGetStreamPriorityRange),
  ENTRY (cuCtxGetApiVersion),
  ENTRY (cuCtxEnablePeerAccess),
  ENTRY (cuCtxDisablePeerAccess),
  ENTRY (cuMemGetInfo),
  ENTRY (cuMemAlloc),
  ENTRY (cuMemFree),
  ENTRY (cuMemAllocManaged),
  ENTRY (cuMemAllocHost),
  ENTRY (cuMemHostAlloc),
  ENTRY (cuMemFreeHost),
  ENTRY (cuMemGetAddressRange),
  ENTRY (cuPointerGetAttributes),
  ENTRY (cuMemcpyHtoD),
  ENTRY (cuMemcpyDtoH),
  ENTRY (cuMemcpyDtoD),
  ENTRY (cuMemcpyPeer),
  ENTRY (cuMemcpyHtoDAsync),
  ENTRY (cuMemcpyDtoHAsync),
  ENTRY (cuMemcpyDtoDAsync),
  ENTRY (cuMemsetD8),
  ENTRY (cuMemsetD16),
  ENTRY (cuMemsetD32),
  ENTRY (cuMemsetD8Async),
  ENTRY (cuMemsetD16Async),
  ENTRY (cuMemsetD32Async),
  ENTRY (cuMemsetD2D8),
  ENTRY (cuMemsetD2D16),
  ENTRY (cuMemsetD2D32),
  ENTRY (cuMemsetD2D8Async),
  ENTRY (cuMemsetD2D16Async),
  ENTRY (cuMemsetD2D32Async),
  ENTRY (cuStreamSynchronize),
  ENTRY (cuGraphicsGLRegisterBuffer),
  ENTRY (cuGraphicsGLRegisterImage),
  ENTRY (cuGraphicsUnregisterResource),
  ENTRY (cuGraphicsMapResources),
  ENTRY (cuGraphicsUnmapResources),
  ENTRY (cuGraphicsResourceGetMappedPointer),
  ENTRY (cuGraphicsSubResourceGetMappedArray),
  ENTRY (cuArray3DGetDescriptor),
  ENTRY (cuGLGetDevices),
};

/* only with GCUDA_MOCK_KERNELS=1 */
static const struct { const char *name; void *fn; } kernel_table[] = {
  ENTRY (cuModuleLoadData),
  ENTRY (cuModuleLoadDataEx),
  ENTRY (cuModuleUnload),
  ENTRY (cuModuleGetFunction),
  ENTRY (cuFuncGetAttribute),
  ENTRY (cuFuncGetParamInfo),
  ENTRY (cuStreamCreate),
  ENTRY (cuStreamCreateWithPriority),
  ENTRY (cuStreamDestroy),
  ENTRY (cuLaunchKernel),
  ENTRY (cuLaunchKernelEx),
  ENTRY (cuLaunchHostFunc),
  ENTRY (cuMemPoolCreate),
  ENTRY (cuMemPoolDestroy),
  ENTRY (cuMemPoolSetAttribute),
  ENTRY (cuMemPoolGetAttribute),
  ENTRY (cuMemPoolTrimTo),
  ENTRY (cuMemAllocFromPoolAsync),
  ENTRY (cuMemFreeAsync),
};

/* only with GCUDA_MOCK_EVENTS=1 */
static const struct { const char *name; void *fn; } events_table[] = {
  ENTRY (cuEventCreate),
  ENTRY (cuEventDestroy),
  ENTRY (cuEventRecord),
  ENTRY (cuEventSynchronize),
  ENTRY (cuEventQuery),
  ENTRY (cuEventElapsedTime),
  ENTRY (cuStreamWaitEvent),
  ENTRY (cuStreamQuery),
  ENTRY (cuStreamGetFlags),
  ENTRY (cuStreamGetPriority),
  ENTRY (cuStreamGetCtx),
  ENTRY (cuFuncSetAttribute),
  ENTRY (cuFuncSetCacheConfig),
  ENTRY (cuMemAllocPitch),
  ENTRY (cuMemHostGetDevicePointer),
  ENTRY (cuMemcpy2D),
  ENTRY (cuMemcpy2DUnaligned),
  ENTRY (cuMemcpy2DAsync),
  ENTRY (cuMemcpy3D),
  ENTRY (cuMemcpy3DAsync),
  ENTRY (cuMemcpy3DPeer),
  ENTRY (cuMemcpy3DPeerAsync),
#undef ENTRY
};

/* GCUDA_MOCK_OMIT: a comma-separated list of entry points to leave out, as
 * a driver older than their CUDA version does */
static int
omitted (const char *symbol)
{
  const char *list = getenv ("GCUDA_MOCK_OMIT");
  size_t n = strlen (symbol);

  for (const char *p = list; p != NULL && *p != '\0'; p = strchr (p, ',') ? strchr (p, ',') + 1 : NULL)
    if (strncmp (p, symbol, n) == 0 && (p[n] == ',' || p[n] == '\0'))
      return 1;
  return 0;
}

EXPORT CUresult CUDAAPI
cuInit (unsigned int flags)
{
  const char *n = getenv ("GCUDA_MOCK_DEVICES");

  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  n_devices = n ? atoi (n) : 1;
  peer_links = !(getenv ("GCUDA_MOCK_PEER") && strcmp (getenv ("GCUDA_MOCK_PEER"), "0") == 0);
  if (n_devices < 0 || n_devices > MAX_DEVICES)
    n_devices = 1;
  {
    const char *m = getenv ("GCUDA_MOCK_DEVICE_MEMORY");
    unsigned long long bytes = m ? strtoull (m, NULL, 10) : 0;

    device_memory = bytes > 0 ? (size_t) bytes : DEFAULT_DEVICE_MEMORY;
  }
  /* like the real driver on a machine without a GPU */
  initialized = n_devices > 0;
  pthread_mutex_unlock (&lock);
  return initialized ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

EXPORT CUresult CUDAAPI
cuGetProcAddress_v2 (const char *symbol, void **pfn, int version, cuuint64_t flags,
                     CUdriverProcAddressQueryResult *status)
{
  if (symbol == NULL || pfn == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (omitted (symbol))
    {
      *pfn = NULL;
      if (status)
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
      return CUDA_ERROR_NOT_FOUND;
    }
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp (table[i].name, symbol) == 0)
      {
        *pfn = table[i].fn;
        if (status)
          *status = CU_GET_PROC_ADDRESS_SUCCESS;
        return CUDA_SUCCESS;
      }
  if (getenv ("GCUDA_MOCK_KERNELS") != NULL && strcmp (getenv ("GCUDA_MOCK_KERNELS"), "1") == 0)
    for (size_t i = 0; i < sizeof kernel_table / sizeof kernel_table[0]; i++)
      if (strcmp (kernel_table[i].name, symbol) == 0)
        {
          *pfn = kernel_table[i].fn;
          if (status)
            *status = CU_GET_PROC_ADDRESS_SUCCESS;
          return CUDA_SUCCESS;
        }
  if (getenv ("GCUDA_MOCK_EVENTS") != NULL && strcmp (getenv ("GCUDA_MOCK_EVENTS"), "1") == 0)
    for (size_t i = 0; i < sizeof events_table / sizeof events_table[0]; i++)
      if (strcmp (events_table[i].name, symbol) == 0)
        {
          *pfn = events_table[i].fn;
          if (status)
            *status = CU_GET_PROC_ADDRESS_SUCCESS;
          return CUDA_SUCCESS;
        }
  *pfn = NULL;
  if (status)
    *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
