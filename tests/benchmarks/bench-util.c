/* bench-util.c: what the C benchmarks share: the raw driver beside GCuda
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench-util.h"

void
bench_raw_check (CUresult    res,
                 const char *what)
{
  if (res != CUDA_SUCCESS)
    {
      fprintf (stderr, "%s: %s failed: CUresult %d\n", g_get_prgname (), what, (int) res);
      exit (1);
    }
}

void
bench_gcuda_check (gboolean    ok,
                   GError     *error,
                   const char *what)
{
  if (!ok)
    {
      fprintf (stderr, "%s: %s failed: %s\n", g_get_prgname (), what, error ? error->message : "?");
      exit (1);
    }
}

void *
bench_open_driver (void)
{
  const char *path = g_getenv ("GCUDA_DRIVER_LIBRARY");
  void *lib = dlopen (path != NULL && *path != '\0' ? path : "libcuda.so.1", RTLD_NOW);

  if (lib == NULL)
    fprintf (stderr, "%s: %s\n", g_get_prgname (), dlerror ());
  return lib;
}

void *
bench_resolve (void       *lib,
               const char *exported,
               const char *base)
{
  CUresult (*get_proc) (const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
  void *fn = dlsym (lib, exported);

  if (fn != NULL)
    return fn;
  get_proc = (CUresult (*) (const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *))
    dlsym (lib, "cuGetProcAddress_v2");
  if (get_proc == NULL || get_proc (base, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, NULL) != CUDA_SUCCESS)
    fn = NULL;
  if (fn == NULL)
    {
      fprintf (stderr, "%s: the driver has no %s\n", g_get_prgname (), exported);
      exit (1);
    }
  return fn;
}
