/* gcuda-nvrtc-abi-private.h: GCuda's own declarations of the NVRTC ABI
 *
 * The part of NVRTC's C API that GCuda uses, declared from its documented
 * values, so that GCuda builds without the CUDA toolkit; NVRTC itself is
 * opened at run time (gcuda-nvrtc-private.c). Checked against the toolkit's
 * nvrtc.h wherever one is found at build time, like
 * gcuda-cuda-abi-private.h (same layout rules).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <stddef.h>

typedef enum {
  NVRTC_SUCCESS = 0,
} nvrtcResult;

typedef struct _nvrtcProgram *nvrtcProgram;

/* X (return type, name, parameter types): declared as prototypes (never
 * linked: GCuda takes their types for the pointers it resolves with dlsym) */
#define GCUDA_NVRTC_ABI_FUNCTIONS(X) \
  X (nvrtcResult, nvrtcVersion, (int *, int *)) \
  X (const char *, nvrtcGetErrorString, (nvrtcResult)) \
  X (nvrtcResult, nvrtcCreateProgram, (nvrtcProgram *, const char *, const char *, int, \
                                       const char * const *, const char * const *)) \
  X (nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram *)) \
  X (nvrtcResult, nvrtcCompileProgram, (nvrtcProgram, int, const char * const *)) \
  X (nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram, size_t *)) \
  X (nvrtcResult, nvrtcGetPTX, (nvrtcProgram, char *)) \
  X (nvrtcResult, nvrtcGetCUBINSize, (nvrtcProgram, size_t *)) \
  X (nvrtcResult, nvrtcGetCUBIN, (nvrtcProgram, char *)) \
  X (nvrtcResult, nvrtcGetProgramLogSize, (nvrtcProgram, size_t *)) \
  X (nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram, char *)) \
  X (nvrtcResult, nvrtcAddNameExpression, (nvrtcProgram, const char *)) \
  X (nvrtcResult, nvrtcGetLoweredName, (nvrtcProgram, const char *, const char **)) \
  X (nvrtcResult, nvrtcGetNumSupportedArchs, (int *)) \
  X (nvrtcResult, nvrtcGetSupportedArchs, (int *))

#ifndef GCUDA_CUDA_ABI_NO_FUNCTION_TYPES
#define GCUDA_NVRTC_ABI_DECLARE(ret, name, params) ret name params;
GCUDA_NVRTC_ABI_FUNCTIONS (GCUDA_NVRTC_ABI_DECLARE)
#undef GCUDA_NVRTC_ABI_DECLARE
#endif
