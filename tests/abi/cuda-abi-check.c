/* cuda-abi-check.c: GCuda's declarations of the CUDA driver and NVRTC ABI
 * against the toolkit's headers (built where cuda.h is found: -Dcuda-headers
 * auto or toolkit).
 *
 * cuda-abi-check-generated.h (tools/gen-cuda-abi-check.py) asserts every
 * enum value, #define, struct size, member offset and size, and typedef of
 * libgcuda/gcuda-cuda-abi-private.h and gcuda-nvrtc-abi-private.h. Here, the
 * function-pointer types of their tables, and the loader's per-symbol
 * version table against cuda.h's prototypes. Everything is checked at
 * compile time: the program only reports what was checked (TAP), and the
 * #defines that are pointers, which C cannot compare at compile time.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "cuda-abi-check-generated.h"

/* After the renaming is undone, the tables' parameter types name cuda.h's
 * types, and PFN_<name>_v<version> is cudaTypedefs.h's. */
#include "gcuda-loader-private.h"
#include "gcuda-nvrtc-private.h"

_Static_assert (gcuda_toolkit_CUDA_VERSION / 1000 == GCUDA_CUDA_ABI_VERSION / 1000 &&
                gcuda_toolkit_CUDA_VERSION >= GCUDA_CUDA_ABI_VERSION,
                "the toolkit is not CUDA 13.x (13.0 or newer) as GCuda's declarations are");

static int n_functions;

/* one per row, whatever its columns */
#define COUNT(...) + 1

/* GCUDA_CUDA_ABI_FUNCTIONS: GCuda's PFN_<name>_v<version> is cudaTypedefs.h's */
#define CHECK_PFN(name, version, params) \
  _Static_assert (__builtin_types_compatible_p (CUresult (CUDAAPI *) params, PFN_##name##_v##version), \
                  #name " (ABI " #version "): GCuda's parameter types differ from cudaTypedefs.h's");
GCUDA_CUDA_ABI_FUNCTIONS (CHECK_PFN)
static const int n_pfn = 0 GCUDA_CUDA_ABI_FUNCTIONS (COUNT);

/* GCUDA_DRIVER_FUNCTIONS: the version the loader asks for is the one cuda.h
 * maps the plain name to (its prototype's type) */
#define CHECK_LOADER(name, version) \
  _Static_assert (__builtin_types_compatible_p (__typeof__ (&name), PFN_##name##_v##version), \
                  #name ": cuda.h declares another ABI than " #version " for this name");
GCUDA_DRIVER_FUNCTIONS (CHECK_LOADER)
static const int n_loader = 0 GCUDA_DRIVER_FUNCTIONS (COUNT);

#define CHECK_CALLBACK(ret, name, params) \
  _Static_assert (__builtin_types_compatible_p (name, ret (CUDAAPI *) params), \
                  #name ": GCuda's type differs from cuda.h's");
GCUDA_CUDA_ABI_CALLBACKS (CHECK_CALLBACK)
static const int n_callbacks = 0 GCUDA_CUDA_ABI_CALLBACKS (COUNT);

#define CHECK_NVRTC(ret, name, params) \
  _Static_assert (__builtin_types_compatible_p (__typeof__ (&name), ret (*) params), \
                  #name ": GCuda's prototype differs from nvrtc.h's");
GCUDA_NVRTC_ABI_FUNCTIONS (CHECK_NVRTC)
static const int n_nvrtc = 0 GCUDA_NVRTC_ABI_FUNCTIONS (COUNT);

int
main (void)
{
  int failed = 0, n_pointers = 0;

#define CHECK_POINTER(name) \
  n_pointers++; \
  if ((uintptr_t) name != gcuda_toolkit_##name) \
    { \
      printf ("# %s is %#jx in GCuda's declarations, %#jx in cuda.h\n", #name, \
              (uintmax_t) (uintptr_t) name, (uintmax_t) gcuda_toolkit_##name); \
      failed = 1; \
    }
  GCUDA_ABI_CHECK_POINTER_DEFINES (CHECK_POINTER)

  n_functions = n_pfn + n_callbacks + n_nvrtc;
  printf ("1..2\n");
  printf ("ok 1 - at compile time: %s; %d function types, %d loader versions\n",
          GCUDA_ABI_CHECK_COUNTS, n_functions, n_loader);
  printf ("%s 2 - %d pointer #defines\n", failed ? "not ok" : "ok", n_pointers);
  return failed;
}
