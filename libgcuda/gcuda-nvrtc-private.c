/* gcuda-nvrtc-private.c: opens NVRTC at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE 1  /* dladdr */

#include "config.h"

#include <dlfcn.h>

#include "gcuda-error-private.h"
#include "gcuda-env-private.h"
#include "gcuda-nvrtc-private.h"

static GCudaNvrtc nvrtc;
static GCudaLibrary nvrtc_library;

const char * const *
_gcuda_nvrtc_candidates (void)
{
  static const char *candidates[8];
  static gsize once;

  if (g_once_init_enter (&once))
    {
      const char *override = _gcuda_secure_getenv ("GCUDA_NVRTC_LIBRARY");
      guint n = 0;

      if (override != NULL && *override != '\0')
        candidates[n++] = g_intern_string (override);
      else
        {
          /* Versioned sonames first: the unversioned one is a development
           * symlink that may point anywhere. Then the toolkit GCuda was
           * built with, which is often not on the loader's path. */
          candidates[n++] = "libnvrtc.so.13";
          candidates[n++] = "libnvrtc.so.12";
          candidates[n++] = "libnvrtc.so";
          candidates[n++] = g_intern_static_string (GCUDA_TOOLKIT_LIB_DIR "/libnvrtc.so.13");
          candidates[n++] = g_intern_static_string (GCUDA_TOOLKIT_LIB_DIR "/libnvrtc.so.12");
        }
      candidates[n] = NULL;
      g_once_init_leave (&once, 1);
    }
  return candidates;
}

static gboolean
load_nvrtc (GError **error)
{
  const char * const *candidates = _gcuda_nvrtc_candidates ();
  g_autoptr(GString) tried = g_string_new (NULL);
  void *lib = NULL;
  const char *name = NULL;

  for (guint i = 0; candidates[i] != NULL && lib == NULL; i++)
    {
      name = candidates[i];
      lib = dlopen (name, RTLD_NOW | RTLD_LOCAL);
      if (lib == NULL)
        g_string_append_printf (tried, "%s%s", tried->len ? ", " : "", name);
    }
  if (lib == NULL)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND,
                   _("The NVRTC library could not be loaded (tried %s). Install the CUDA toolkit's NVRTC "
                     "(e.g. the cuda-nvrtc package), or set GCUDA_NVRTC_LIBRARY to the path of libnvrtc.so."),
                   tried->str);
      return FALSE;
    }

#define GCUDA_NVRTC_RESOLVE(fname) \
  nvrtc.fn_##fname = (__typeof__ (nvrtc.fn_##fname)) dlsym (lib, #fname); \
  if (nvrtc.fn_##fname == NULL) \
    { \
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND, \
                   _("%s is not a usable NVRTC library: it has no %s"), name, #fname); \
      return FALSE; \
    }
  GCUDA_NVRTC_FUNCTIONS (GCUDA_NVRTC_RESOLVE)
#undef GCUDA_NVRTC_RESOLVE

  if (nvrtc.fn_nvrtcVersion (&nvrtc.major, &nvrtc.minor) != NVRTC_SUCCESS)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND,
                   _("%s does not report its version"), name);
      return FALSE;
    }
  {
    Dl_info info;

    /* Where the loader found it, for cache keys and messages. */
    if (dladdr ((void *) nvrtc.fn_nvrtcVersion, &info) && info.dli_fname != NULL)
      nvrtc.path = g_strdup (info.dli_fname);
    else
      nvrtc.path = g_strdup (name);
  }
  return TRUE;
}

const GCudaNvrtc *
_gcuda_nvrtc_get (GError **error)
{
  return _gcuda_library_get (&nvrtc_library, load_nvrtc, &nvrtc, error);
}

gboolean
_gcuda_nvrtc_is_loaded (void)
{
  return g_atomic_pointer_get (&nvrtc_library.table) != NULL;
}
