/* stub-libcuda.c: a driver library that is present but unusable, as the
 * CUDA toolkit's stubs/libcuda.so (for linking, never for running) is: every
 * entry point answers CUDA_ERROR_STUB_LIBRARY, cuGetErrorString included.
 * The `stub` driver situation of the tests loads it through
 * GCUDA_DRIVER_LIBRARY, so that situation is tested without a toolkit.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "gcuda-cuda-abi-private.h"

#define EXPORT __attribute__ ((visibility ("default")))

EXPORT CUresult cuInit (unsigned int flags);
EXPORT CUresult cuDriverGetVersion (int *version);
EXPORT CUresult cuGetErrorName (CUresult error, const char **str);
EXPORT CUresult cuGetErrorString (CUresult error, const char **str);
EXPORT CUresult cuGetProcAddress_v2 (const char *symbol, void **pfn, int version, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult *status);

/* the types GCuda's loader gives them */
_Static_assert (__builtin_types_compatible_p (__typeof__ (&cuInit), PFN_cuInit_v2000), "cuInit");
_Static_assert (__builtin_types_compatible_p (__typeof__ (&cuGetProcAddress_v2), PFN_cuGetProcAddress_v12000),
                "cuGetProcAddress_v2");

CUresult
cuInit (unsigned int flags)
{
  return CUDA_ERROR_STUB_LIBRARY;
}

CUresult
cuDriverGetVersion (int *version)
{
  return CUDA_ERROR_STUB_LIBRARY;
}

CUresult
cuGetErrorName (CUresult error, const char **str)
{
  return CUDA_ERROR_STUB_LIBRARY;
}

CUresult
cuGetErrorString (CUresult error, const char **str)
{
  return CUDA_ERROR_STUB_LIBRARY;
}

CUresult
cuGetProcAddress_v2 (const char *symbol, void **pfn, int version, cuuint64_t flags,
                     CUdriverProcAddressQueryResult *status)
{
  return CUDA_ERROR_STUB_LIBRARY;
}
