/* gcuda-loader-private.c: opens libcuda at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dlfcn.h>

#include "gcuda-error-private.h"
#include "gcuda-env-private.h"
#include "gcuda-file-private.h"
#include "gcuda-async-private.h"

static GCudaDriver driver;
static GCudaLibrary driver_library;
/* name -> the CUDA version its ABI needs, for the entry points the driver
 * lacks: filled while loading, read-only once the driver is published */
static GHashTable *missing_entry_points;

typedef CUresult (*GetErrorStringFunc) (CUresult, const char **);
static GetErrorStringFunc early_get_error_string;

/* Entry points the driver does not provide (too old for CUDA_VERSION) are
 * pointed here, so a call reports CUDA_ERROR_NOT_FOUND ("named symbol not
 * found") for that function instead of jumping through NULL. Every driver
 * function returns CUresult and the arguments are ignored. */
static CUresult
missing_entry_point (void)
{
  return CUDA_ERROR_NOT_FOUND;
}

const char *
_gcuda_driver_describe (CUresult res)
{
  const GCudaDriver *loaded = _gcuda_driver_peek ();
  const char *desc = NULL;
  GetErrorStringFunc get = loaded ? loaded->fn_cuGetErrorString : early_get_error_string;

  if (get != NULL && get (res, &desc) == CUDA_SUCCESS && desc != NULL)
    return desc;

  /* The driver cannot describe its own absence: a stub library answers every
   * call, cuGetErrorString included, with CUDA_ERROR_STUB_LIBRARY. */
  switch ((int) res)
    {
    case CUDA_ERROR_STUB_LIBRARY:
      return N_("the CUDA driver library is the toolkit's stub, not a real driver; install the NVIDIA driver");
    case CUDA_ERROR_NO_DEVICE:
      return N_("no CUDA-capable device is detected");
    case CUDA_ERROR_NOT_FOUND:
      return N_("named symbol not found");
    default:
      return N_("no description available");
    }
}

static gboolean
load_driver (GError **error)
{
  const char *override = _gcuda_secure_getenv ("GCUDA_DRIVER_LIBRARY");
  const char *name = (override != NULL && *override != '\0') ? override : "libcuda.so.1";
  PFN_cuInit_v2000 init;
  PFN_cuGetProcAddress_v12000 get_proc;
  void *lib;

  {
    g_autoptr(GError) not_regular = NULL;
    const char *why = NULL;

    /* a FIFO there would block dlopen() for ever */
    if (!_gcuda_file_check_library (name, &not_regular))
      {
        why = not_regular->message;
        lib = NULL;
      }
    else if ((lib = dlopen (name, RTLD_NOW | RTLD_LOCAL)) == NULL)
      why = dlerror ();
    if (lib == NULL)
      {
        g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND,
                     _("The CUDA driver library could not be loaded (tried %s: %s). "
                       "Install the NVIDIA driver, or set GCUDA_DRIVER_LIBRARY to the path of libcuda.so.1."),
                     name, why ? why : _("unknown reason"));
        return FALSE;
      }
  }

  early_get_error_string = (GetErrorStringFunc) dlsym (lib, "cuGetErrorString");
  init = (PFN_cuInit_v2000) dlsym (lib, "cuInit");
  get_proc = (PFN_cuGetProcAddress_v12000) dlsym (lib, "cuGetProcAddress_v2");

  if (init == NULL)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND,
                   _("%s is not a CUDA driver library: it has no cuInit"), name);
      return FALSE;
    }

  if (!_gcuda_check (init (0), "cuInit", error))
    {
      /* the driver's reason says what, not where to look next */
      if (error != NULL && g_error_matches (*error, GCUDA_DRIVER_ERROR, CUDA_ERROR_NO_DEVICE))
        {
          char *message = (*error)->message;

          (*error)->message = g_strconcat (message, "; ",
                                           _("check that nvidia-smi lists a GPU, that CUDA_VISIBLE_DEVICES "
                                             "(if it is set) names one, and in a container that the GPUs are "
                                             "passed in (docker run --gpus all, with the NVIDIA Container "
                                             "Toolkit)."), NULL);
          g_free (message);
        }
      return FALSE;
    }

  if (get_proc == NULL)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED,
                   _("The NVIDIA driver in %s is too old: GCuda needs a driver for CUDA 12.0 or newer "
                     "(cuGetProcAddress_v2 is missing)"), name);
      return FALSE;
    }

#define GCUDA_DRIVER_RESOLVE(fname, version) \
  { \
    void *pfn = NULL; \
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS; \
    if (get_proc (#fname, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS || \
        status != CU_GET_PROC_ADDRESS_SUCCESS || pfn == NULL) \
      { \
        g_debug ("driver lacks %s for CUDA %d (status %d)", #fname, version, (int) status); \
        g_hash_table_insert (missing_entry_points, (gpointer) #fname, GINT_TO_POINTER (version)); \
        pfn = (void *) missing_entry_point; \
      } \
    driver.fn_##fname = (__typeof__ (driver.fn_##fname)) pfn; \
  }
  missing_entry_points = g_hash_table_new (g_str_hash, g_str_equal);
  GCUDA_DRIVER_FUNCTIONS (GCUDA_DRIVER_RESOLVE)
#undef GCUDA_DRIVER_RESOLVE

  if (!_gcuda_check (driver.fn_cuDriverGetVersion (&driver.driver_version), "cuDriverGetVersion", error))
    return FALSE;

  /* The library stays open for the life of the process: driver objects can
   * outlive every GCuda object, and unloading libcuda is never safe. */
  return TRUE;
}

gpointer
_gcuda_library_get (GCudaLibrary  *library,
                    gboolean     (*load) (GError **error),
                    gpointer       table,
                    GError       **error)
{
  if (g_once_init_enter (&library->once))
    {
      GError *local = NULL;

      if (load (&local))
        g_atomic_pointer_set (&library->table, table);
      else
        library->error = local;
      /* After the library's destructors (registered while it loaded, even
       * when it then failed): exit() waits for the jobs before it runs
       * them, a job in that library included. */
      _gcuda_exit_wait_register ();
      g_once_init_leave (&library->once, 1);
    }

  if (library->table == NULL)
    {
      g_propagate_error (error, g_error_copy (library->error));
      return NULL;
    }
  return library->table;
}

const GCudaDriver *
_gcuda_driver_get (GError **error)
{
  return _gcuda_library_get (&driver_library, load_driver, &driver, error);
}

const GCudaDriver *
_gcuda_driver_peek (void)
{
  return g_atomic_pointer_get (&driver_library.table);
}

gboolean
_gcuda_driver_lacks (const char *call,
                     int        *version)
{
  gpointer value;

  /* only once the driver loaded: the table is complete then */
  if (_gcuda_driver_peek () == NULL || call == NULL ||
      !g_hash_table_lookup_extended (missing_entry_points, call, NULL, &value))
    return FALSE;
  if (version != NULL)
    *version = GPOINTER_TO_INT (value);
  return TRUE;
}
