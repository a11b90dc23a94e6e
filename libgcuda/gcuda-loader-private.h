/* gcuda-loader-private.h: the CUDA driver, opened at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

#include "gcuda-cuda-abi-private.h"

G_BEGIN_DECLS

/* Every driver entry point GCuda uses, with the ABI version whose prototype
 * cuda.h declares for the name GCuda calls (cuCtxCreate -> cuCtxCreate_v4 is
 * 12050). cuGetProcAddress is asked for exactly that version: asking for
 * CUDA_VERSION would return newer ABIs that cuda.h does not map the plain
 * name to (CUDA 13's cuCtxGetDevice_v2 and cuCtxSynchronize_v2 take an extra
 * context argument). Each row needs its PFN_<name>_v<version>, a row of
 * GCUDA_CUDA_ABI_FUNCTIONS in gcuda-cuda-abi-private.h; where the toolkit is
 * found, the test cuda-abi-check asserts that it is the type of cuda.h's
 * prototype of <name> (tests/abi/cuda-abi-check.c). */
#define GCUDA_DRIVER_FUNCTIONS(X) \
  X (cuDriverGetVersion, 2020) \
  X (cuGetErrorName, 6000) \
  X (cuGetErrorString, 6000) \
  X (cuDeviceGetCount, 2000) \
  X (cuDeviceGet, 2000) \
  X (cuDeviceGetName, 2000) \
  X (cuDeviceGetAttribute, 2000) \
  X (cuDeviceTotalMem, 3020) \
  X (cuDeviceGetUuid, 11040) \
  X (cuDeviceGetPCIBusId, 4010) \
  X (cuDeviceGetByPCIBusId, 4010) \
  X (cuDeviceCanAccessPeer, 4000) \
  X (cuDeviceGetP2PAttribute, 8000) \
  X (cuDevicePrimaryCtxRetain, 7000) \
  X (cuDevicePrimaryCtxRelease, 11000) \
  X (cuDevicePrimaryCtxSetFlags, 11000) \
  X (cuDevicePrimaryCtxGetState, 7000) \
  X (cuCtxCreate, 12050) \
  X (cuCtxDestroy, 4000) \
  X (cuCtxPushCurrent, 4000) \
  X (cuCtxPopCurrent, 4000) \
  X (cuCtxGetCurrent, 4000) \
  X (cuCtxSetCurrent, 4000) \
  X (cuCtxGetDevice, 2000) \
  X (cuCtxGetFlags, 7000) \
  X (cuCtxSynchronize, 2000) \
  X (cuCtxGetLimit, 3010) \
  X (cuCtxSetLimit, 3010) \
  X (cuCtxGetCacheConfig, 3020) \
  X (cuCtxSetCacheConfig, 3020) \
  X (cuCtxGetStreamPriorityRange, 5050) \
  X (cuCtxGetApiVersion, 3020) \
  X (cuCtxEnablePeerAccess, 4000) \
  X (cuCtxDisablePeerAccess, 4000) \
  X (cuMemGetInfo, 3020) \
  X (cuStreamCreateWithPriority, 5050) \
  X (cuStreamDestroy, 4000) \
  X (cuStreamSynchronize, 2000) \
  X (cuStreamQuery, 2000) \
  X (cuStreamWaitEvent, 3020) \
  X (cuLaunchHostFunc, 10000) \
  X (cuEventCreate, 2000) \
  X (cuEventDestroy, 4000) \
  X (cuEventRecord, 2000) \
  X (cuEventSynchronize, 2000) \
  X (cuEventQuery, 2000) \
  X (cuEventElapsedTime, 12080) \
  X (cuIpcGetEventHandle, 4010) \
  X (cuIpcOpenEventHandle, 4010) \
  X (cuMemAlloc, 3020) \
  X (cuMemAllocPitch, 3020) \
  X (cuMemFree, 3020) \
  X (cuMemAllocManaged, 6000) \
  X (cuMemcpyHtoD, 3020) \
  X (cuMemcpyDtoH, 3020) \
  X (cuMemcpyDtoD, 3020) \
  X (cuMemcpyHtoDAsync, 3020) \
  X (cuMemcpyDtoHAsync, 3020) \
  X (cuMemcpyDtoDAsync, 3020) \
  X (cuMemcpyPeer, 4000) \
  X (cuMemcpyPeerAsync, 4000) \
  X (cuMemsetD8, 3020) \
  X (cuMemsetD16, 3020) \
  X (cuMemsetD32, 3020) \
  X (cuMemsetD8Async, 3020) \
  X (cuMemsetD16Async, 3020) \
  X (cuMemsetD32Async, 3020) \
  X (cuMemsetD2D8, 3020) \
  X (cuMemsetD2D16, 3020) \
  X (cuMemsetD2D32, 3020) \
  X (cuMemsetD2D8Async, 3020) \
  X (cuMemsetD2D16Async, 3020) \
  X (cuMemsetD2D32Async, 3020) \
  X (cuIpcGetMemHandle, 4010) \
  X (cuIpcOpenMemHandle, 11000) \
  X (cuIpcCloseMemHandle, 4010) \
  X (cuStreamAttachMemAsync, 6000) \
  X (cuMemPrefetchAsync, 12020) \
  X (cuMemAdvise, 12020) \
  X (cuMemAllocHost, 3020) \
  X (cuMemFreeHost, 2000) \
  X (cuMemGetAddressRange, 3020) \
  X (cuMemHostAlloc, 2020) \
  X (cuMemHostRegister, 6050) \
  X (cuMemHostUnregister, 4000) \
  X (cuMemHostGetDevicePointer, 3020) \
  X (cuPointerGetAttributes, 7000) \
  X (cuModuleLoadDataEx, 2010) \
  X (cuModuleUnload, 2000) \
  X (cuModuleGetFunction, 2000) \
  X (cuModuleGetGlobal, 3020) \
  X (cuFuncGetAttribute, 2020) \
  X (cuFuncSetAttribute, 9000) \
  X (cuFuncSetCacheConfig, 3000) \
  X (cuFuncGetParamInfo, 12040) \
  X (cuLaunchKernel, 4000) \
  X (cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050) \
  X (cuOccupancyMaxPotentialBlockSize, 6050) \
  X (cuLaunchKernelEx, 11060) \
  X (cuLinkCreate, 6050) \
  X (cuLinkAddData, 6050) \
  X (cuLinkAddFile, 6050) \
  X (cuLinkComplete, 5050) \
  X (cuLinkDestroy, 5050) \
  X (cuStreamBeginCapture, 10010) \
  X (cuStreamEndCapture, 10000) \
  X (cuStreamIsCapturing, 10000) \
  X (cuGraphInstantiateWithFlags, 11040) \
  X (cuGraphLaunch, 10000) \
  X (cuGraphExecUpdate, 12000) \
  X (cuGraphDestroy, 10000) \
  X (cuGraphExecDestroy, 10000) \
  X (cuGraphGetNodes, 10000) \
  X (cuGraphDebugDotPrint, 11030) \
  /* pools */ \
  X (cuMemPoolCreate, 11020) \
  X (cuMemPoolDestroy, 11020) \
  X (cuMemPoolSetAttribute, 11020) \
  X (cuMemPoolGetAttribute, 11020) \
  X (cuMemAllocFromPoolAsync, 11020) \
  X (cuMemFreeAsync, 11020) \
  X (cuMemPoolTrimTo, 11020) \
  /* device tools */ \
  X (cuProfilerStart, 4000) \
  X (cuProfilerStop, 4000) \
  /* arrays and textures */ \
  X (cuMemcpyHtoA, 3020) \
  X (cuMemcpyAtoH, 3020) \
  X (cuMemcpyDtoA, 3020) \
  X (cuMemcpyAtoD, 3020) \
  X (cuMemcpyAtoA, 3020) \
  X (cuArray3DCreate, 3020) \
  X (cuArrayDestroy, 2000) \
  X (cuTexObjectCreate, 5000) \
  X (cuTexObjectDestroy, 5000) \
  X (cuSurfObjectCreate, 5000) \
  X (cuSurfObjectDestroy, 5000) \
  X (cuMemcpy2D, 3020) \
  X (cuMemcpy2DUnaligned, 3020) \
  X (cuMemcpy2DAsync, 3020) \
  X (cuMemcpy3D, 3020) \
  X (cuMemcpy3DAsync, 3020) \
  X (cuMemcpy3DPeer, 4000) \
  X (cuMemcpy3DPeerAsync, 4000) \
  /* interop: borrowed streams */ \
  X (cuStreamGetCtx, 9020) \
  X (cuStreamGetFlags, 5050) \
  X (cuStreamGetPriority, 5050) \
  /* OpenGL interop */ \
  X (cuArray3DGetDescriptor, 3020) \
  X (cuGraphicsUnregisterResource, 3000) \
  X (cuGraphicsMapResources, 3000) \
  X (cuGraphicsUnmapResources, 3000) \
  X (cuGraphicsResourceGetMappedPointer, 3020) \
  X (cuGraphicsSubResourceGetMappedArray, 3000) \
  X (cuGraphicsGLRegisterBuffer, 3000) \
  X (cuGraphicsGLRegisterImage, 3000) \
  X (cuGLGetDevices, 6050)

typedef struct {
#define GCUDA_DRIVER_DECLARE(name, version) PFN_##name##_v##version fn_##name;
  GCUDA_DRIVER_FUNCTIONS (GCUDA_DRIVER_DECLARE)
#undef GCUDA_DRIVER_DECLARE
  int driver_version;
} GCudaDriver;

/* A library opened once per process and kept open: what the driver's and
 * NVRTC's loaders share. */
typedef struct {
  gsize    once;
  gpointer table;  /* atomic: the entry points, once they loaded */
  GError  *error;  /* why they did not, for every later caller */
} GCudaLibrary;

/* The first call runs @load (thread-safe), which fills @table; returns
 * @table when that succeeded, else NULL with a copy of its error. */
gpointer _gcuda_library_get (GCudaLibrary  *library,
                             gboolean     (*load) (GError **error),
                             gpointer       table,
                             GError       **error);

/* The loaded driver, or NULL with @error set. Thread-safe; loads once. */
const GCudaDriver *_gcuda_driver_get (GError **error);

/* The driver if it was already loaded successfully, else NULL. Never loads. */
const GCudaDriver *_gcuda_driver_peek (void);

/* TRUE when the loaded driver lacks the entry point @call (a name of
 * GCUDA_DRIVER_FUNCTIONS, whose calls then fail with CUDA_ERROR_NOT_FOUND),
 * with the CUDA version its ABI needs in @version. */
gboolean _gcuda_driver_lacks (const char *call,
                              int        *version);

/* Shorthand for call sites: GCUDA_DRV->fn_cuCtxSynchronize (). Only valid
 * once _gcuda_driver_get() has succeeded (every object that exists did). */
#define GCUDA_DRV (_gcuda_driver_peek ())

/* The driver's description of @res, or a fallback when the driver cannot
 * give one (stub library, not loaded). Untranslated. */
const char *_gcuda_driver_describe (CUresult res);
G_END_DECLS
