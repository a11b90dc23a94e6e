/* gcuda-nccl-abi-private.h: GCuda's own declarations of the NCCL ABI
 *
 * The part of NCCL's C API (nccl.h, NCCL 2.x) that GCuda uses, declared from
 * its documented values and layouts, so that GCuda builds without NCCL's
 * headers; NCCL itself is opened at run time (gcuda-communicator.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <stddef.h>

#include "gcuda-cuda-abi-private.h"

#define NCCL_UNIQUE_ID_BYTES 128

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
} ncclResult_t;

typedef struct {
  char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef struct ncclComm *ncclComm_t;

typedef enum {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8,
  ncclBfloat16 = 9,
} ncclDataType_t;

typedef enum {
  ncclSum = 0,
  ncclProd = 1,
  ncclMax = 2,
  ncclMin = 3,
  ncclAvg = 4,
} ncclRedOp_t;

/* NCCL takes the runtime's stream type; a CUstream is the same handle. */
typedef CUstream cudaStream_t;

/* X (return type, name, parameter types): declared as prototypes (never
 * linked: GCuda takes their types for the pointers it resolves with dlsym) */
#define GCUDA_NCCL_ABI_FUNCTIONS(X) \
  X (ncclResult_t, ncclGetVersion, (int *)) \
  X (ncclResult_t, ncclGetUniqueId, (ncclUniqueId *)) \
  X (ncclResult_t, ncclCommInitRank, (ncclComm_t *, int, ncclUniqueId, int)) \
  X (ncclResult_t, ncclCommDestroy, (ncclComm_t)) \
  X (const char *, ncclGetErrorString, (ncclResult_t)) \
  X (const char *, ncclGetLastError, (ncclComm_t)) \
  X (ncclResult_t, ncclAllReduce, (const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, \
                                   cudaStream_t)) \
  X (ncclResult_t, ncclBroadcast, (const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)) \
  X (ncclResult_t, ncclReduce, (const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t, \
                                cudaStream_t)) \
  X (ncclResult_t, ncclAllGather, (const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t)) \
  X (ncclResult_t, ncclReduceScatter, (const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, \
                                       cudaStream_t)) \
  X (ncclResult_t, ncclSend, (const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)) \
  X (ncclResult_t, ncclRecv, (void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)) \
  X (ncclResult_t, ncclGroupStart, (void)) \
  X (ncclResult_t, ncclGroupEnd, (void))

#define GCUDA_NCCL_ABI_DECLARE(ret, name, params) ret name params;
GCUDA_NCCL_ABI_FUNCTIONS (GCUDA_NCCL_ABI_DECLARE)
#undef GCUDA_NCCL_ABI_DECLARE
