/* bench-util.h: what the C benchmarks share: the raw driver beside GCuda
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <cuda.h>
#include <gcuda.h>

/* Exits with the program's name, @what and the CUresult unless it is success. */
void   bench_raw_check   (CUresult    res,
                          const char *what);
/* Exits with @error's message unless @ok. */
void   bench_gcuda_check (gboolean    ok,
                          GError     *error,
                          const char *what);
/* dlopen()s the driver GCuda would use (GCUDA_DRIVER_LIBRARY or
 * libcuda.so.1); NULL with the reason printed. */
void  *bench_open_driver (void);
/* A driver function: dlsym() of the exported (versioned) name, else through
 * cuGetProcAddress_v2 (for drivers that only offer that); exits if neither. */
void  *bench_resolve     (void       *lib,
                          const char *exported,
                          const char *base);
