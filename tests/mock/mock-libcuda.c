/* mock-libcuda.c: a stand-in for libcuda.so.1, for running GCuda's GPU tests
 * on a machine without a GPU (the `mock` suite, GCUDA_DRIVER_LIBRARY=<this>).
 *
 * It implements the part of the driver API that GCuda's devices and contexts
 * use, with the driver's documented semantics: per-thread context stacks,
 * reference-counted primary contexts, cuCtxCreate pushing the new context,
 * errors for a missing current context, limits, cache configuration and peer
 * access. Everything else is absent from cuGetProcAddress, as on an old
 * driver. It is no substitute for the real run on a GPU host; it lets the
 * suite exercise GCuda's logic (and the tests' own code) everywhere.
 *
 * GCUDA_MOCK_DEVICES sets the number of devices (default 1); with 0, cuInit
 * fails with CUDA_ERROR_NO_DEVICE, as the real driver does without a GPU.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#define EXPORT __attribute__ ((visibility ("default")))
#define MAX_DEVICES 8
#define MAX_STACK 64
#define N_LIMITS 10

struct CUctx_st {
  int device;
  unsigned int flags;
  int primary;
  int destroyed;
  size_t limits[N_LIMITS];
  CUfunc_cache cache;
  int peers[MAX_DEVICES];  /* peer access enabled to the device's primary */
};

typedef struct {
  CUcontext primary;      /* while retained */
  int refcount;
  unsigned int flags;
} MockDevice;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;
static int n_devices = 1;
static MockDevice devices[MAX_DEVICES];

static __thread CUcontext stack[MAX_STACK];
static __thread int depth;

/* ------------------------------------------------------------ helpers */

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

static CUcontext
new_context (int device,
             unsigned int flags,
             int primary)
{
  CUcontext ctx = calloc (1, sizeof *ctx);

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
  *version = 13000;
  return CUDA_SUCCESS;
}

static const struct { CUresult code; const char *name; const char *text; } errors[] = {
  { CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
  { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
  { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
  { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
  { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
  { CUDA_ERROR_UNSUPPORTED_LIMIT, "CUDA_ERROR_UNSUPPORTED_LIMIT", "limit is not supported on this architecture" },
  { CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported between these two devices" },
  { CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled" },
  { CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled" },
  { CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed" },
  { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
  { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
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
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
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
    *bytes = (size_t) 85520809984ULL;
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
  *can = 1;
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

  if (res != CUDA_SUCCESS)
    return res;
  pthread_mutex_lock (&lock);
  if (devices[dev].refcount == 0)
    res = CUDA_ERROR_INVALID_CONTEXT;
  else if (--devices[dev].refcount == 0)
    {
      /* reset: the old handle is dead (never freed, so stale uses are seen) */
      devices[dev].primary->destroyed = 1;
      devices[dev].primary = NULL;
    }
  pthread_mutex_unlock (&lock);
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

static CUresult
mock_cuCtxSynchronize (void)
{
  CUcontext ctx;

  return current (&ctx);
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

static CUresult
mock_cuMemGetInfo (size_t *free_bytes, size_t *total)
{
  CUcontext ctx;
  CUresult res = current (&ctx);

  if (res != CUDA_SUCCESS)
    return res;
  if (total)
    *total = (size_t) 85520809984ULL;
  if (free_bytes)
    *free_bytes = (size_t) 85520809984ULL - ((size_t) 1 << 30);
  return CUDA_SUCCESS;
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
#undef ENTRY
};

EXPORT CUresult CUDAAPI
cuInit (unsigned int flags)
{
  const char *n = getenv ("GCUDA_MOCK_DEVICES");

  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  n_devices = n ? atoi (n) : 1;
  if (n_devices < 0 || n_devices > MAX_DEVICES)
    n_devices = 1;
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
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp (table[i].name, symbol) == 0)
      {
        *pfn = table[i].fn;
        if (status)
          *status = CU_GET_PROC_ADDRESS_SUCCESS;
        return CUDA_SUCCESS;
      }
  *pfn = NULL;
  if (status)
    *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
