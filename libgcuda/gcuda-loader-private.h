/* gcuda-loader-private.h: the CUDA driver, opened at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <cuda.h>
#include <glib.h>

G_BEGIN_DECLS

/* Every driver entry point GCuda uses. The prototype comes from cuda.h
 * through __typeof__, so the versioned ABI (cuCtxCreate -> cuCtxCreate_v4)
 * matches what cuGetProcAddress returns for CUDA_VERSION; the string passed to
 * cuGetProcAddress is the unversioned name (# does not macro-expand). */
#define GCUDA_DRIVER_FUNCTIONS(X) \
  X (cuDriverGetVersion) \
  X (cuGetErrorName) \
  X (cuGetErrorString) \
  X (cuDeviceGetCount) \
  X (cuDeviceGet) \
  X (cuDeviceGetName) \
  X (cuDeviceGetAttribute) \
  X (cuDeviceTotalMem) \
  X (cuDeviceGetUuid) \
  X (cuDeviceGetPCIBusId) \
  X (cuDeviceGetByPCIBusId) \
  X (cuDeviceCanAccessPeer) \
  X (cuDevicePrimaryCtxRetain) \
  X (cuDevicePrimaryCtxRelease) \
  X (cuDevicePrimaryCtxSetFlags) \
  X (cuDevicePrimaryCtxGetState) \
  X (cuCtxCreate) \
  X (cuCtxDestroy) \
  X (cuCtxPushCurrent) \
  X (cuCtxPopCurrent) \
  X (cuCtxGetCurrent) \
  X (cuCtxSetCurrent) \
  X (cuCtxGetDevice) \
  X (cuCtxGetFlags) \
  X (cuCtxSynchronize) \
  X (cuCtxGetLimit) \
  X (cuCtxSetLimit) \
  X (cuCtxGetCacheConfig) \
  X (cuCtxSetCacheConfig) \
  X (cuCtxGetStreamPriorityRange) \
  X (cuCtxGetApiVersion) \
  X (cuCtxEnablePeerAccess) \
  X (cuCtxDisablePeerAccess) \
  X (cuMemGetInfo) \
  X (cuStreamCreateWithPriority) \
  X (cuStreamDestroy) \
  X (cuStreamSynchronize) \
  X (cuStreamQuery) \
  X (cuStreamWaitEvent) \
  X (cuLaunchHostFunc) \
  X (cuEventCreate) \
  X (cuEventDestroy) \
  X (cuEventRecord) \
  X (cuEventSynchronize) \
  X (cuEventQuery) \
  X (cuEventElapsedTime) \
  X (cuIpcGetEventHandle) \
  X (cuIpcOpenEventHandle)

typedef struct {
#define GCUDA_DRIVER_DECLARE(name) __typeof__ (name) *fn_##name;
  GCUDA_DRIVER_FUNCTIONS (GCUDA_DRIVER_DECLARE)
#undef GCUDA_DRIVER_DECLARE
  int driver_version;
} GCudaDriver;

/* The loaded driver, or NULL with @error set. Thread-safe; loads once. */
const GCudaDriver *_gcuda_driver_get (GError **error);

/* The driver if it was already loaded successfully, else NULL. Never loads. */
const GCudaDriver *_gcuda_driver_peek (void);

/* Shorthand for call sites: GCUDA_DRV->fn_cuCtxSynchronize (). Only valid
 * once _gcuda_driver_get() has succeeded (every object that exists did). */
#define GCUDA_DRV (_gcuda_driver_peek ())

G_END_DECLS

G_BEGIN_DECLS
/* The driver's description of @res, or a fallback when the driver cannot
 * give one (stub library, not loaded). Untranslated. */
const char *_gcuda_driver_describe (CUresult res);
G_END_DECLS
