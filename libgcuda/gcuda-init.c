/* gcuda-init.c: library initialization and versions
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-nvrtc-private.h"

/**
 * gcuda_init:
 * @error: return location for a [struct@GLib.Error]
 *
 * Loads the CUDA driver and initializes it (PyCUDA's `driver.init()`).
 * Calling it is optional: every function that needs the driver loads it on
 * first use. It is safe to call from any thread, any number of times; a
 * failure is remembered and reported again by every later call.
 *
 * The driver library is `libcuda.so.1`, or the file named by the
 * `GCUDA_DRIVER_LIBRARY` environment variable.
 *
 * Returns: %TRUE if the driver is usable
 *
 * Since: 1.0
 */
gboolean
gcuda_init (GError **error)
{
  return _gcuda_driver_get (error) != NULL;
}

/**
 * gcuda_get_major_version:
 *
 * The major version of the GCuda library in use, which can differ from
 * [const@GCuda.MAJOR_VERSION] (the version of the headers compiled against).
 *
 * Returns: the major version
 *
 * Since: 1.0
 */
guint
gcuda_get_major_version (void)
{
  return GCUDA_MAJOR_VERSION;
}

/**
 * gcuda_get_minor_version:
 *
 * The minor version of the GCuda library in use.
 *
 * Returns: the minor version
 *
 * Since: 1.0
 */
guint
gcuda_get_minor_version (void)
{
  return GCUDA_MINOR_VERSION;
}

/**
 * gcuda_get_micro_version:
 *
 * The micro version of the GCuda library in use.
 *
 * Returns: the micro version
 *
 * Since: 1.0
 */
guint
gcuda_get_micro_version (void)
{
  return GCUDA_MICRO_VERSION;
}

/**
 * gcuda_check_version:
 * @major: required major version
 * @minor: required minor version
 * @micro: required micro version
 *
 * Run-time check that the GCuda library in use is at least the given version.
 *
 * Returns: %TRUE if the library is the same version or newer
 *
 * Since: 1.0
 */
gboolean
gcuda_check_version (guint major,
                     guint minor,
                     guint micro)
{
  /* Not GCUDA_CHECK_VERSION: comparing unsigned arguments with 0 warns. */
  guint64 have = ((guint64) GCUDA_MAJOR_VERSION << 40) | ((guint64) GCUDA_MINOR_VERSION << 20) | GCUDA_MICRO_VERSION;
  guint64 want = ((guint64) major << 40) | ((guint64) minor << 20) | micro;

  return have >= want;
}

/**
 * gcuda_get_cuda_version:
 * @major: (out) (optional): return location for the CUDA major version
 * @minor: (out) (optional): return location for the CUDA minor version
 * @revision: (out) (optional): return location for the revision (always 0:
 *   `CUDA_VERSION` does not carry one)
 *
 * The CUDA version of the headers GCuda was built with (PyCUDA's
 * `driver.get_version()`), such as 13.0.0. Needs no driver.
 *
 * Since: 1.0
 */
void
gcuda_get_cuda_version (guint *major,
                        guint *minor,
                        guint *revision)
{
  if (major)
    *major = CUDA_VERSION / 1000;
  if (minor)
    *minor = (CUDA_VERSION % 1000) / 10;
  if (revision)
    *revision = 0;
}

/**
 * gcuda_get_driver_version:
 * @error: return location for a [struct@GLib.Error]
 *
 * The CUDA version the installed driver supports, encoded like
 * `CUDA_VERSION` (13000 for 13.0), as PyCUDA's `driver.get_driver_version()`.
 *
 * Returns: the version, or 0 with @error set when the driver cannot be loaded
 *
 * Since: 1.0
 */
int
gcuda_get_driver_version (GError **error)
{
  const GCudaDriver *drv = _gcuda_driver_get (error);

  return drv ? drv->driver_version : 0;
}

/**
 * gcuda_get_nvrtc_version:
 * @error: return location for a [struct@GLib.Error]
 *
 * The version of the NVRTC library GCuda compiles kernels with, encoded
 * like `CUDA_VERSION` (13000 for 13.0). Loads NVRTC (see
 * [class@GCuda.Compiler] for where it is looked for); needs no driver and
 * no GPU.
 *
 * Returns: the version, or 0 with @error set (%GCUDA_ERROR_NVRTC_NOT_FOUND)
 *   when NVRTC cannot be loaded
 *
 * Since: 1.0
 */
int
gcuda_get_nvrtc_version (GError **error)
{
  const GCudaNvrtc *nvrtc = _gcuda_nvrtc_get (error);

  return nvrtc ? nvrtc->major * 1000 + nvrtc->minor * 10 : 0;
}

/**
 * gcuda_get_nvrtc_supported_archs:
 * @n_archs: (out): return location for the number of architectures
 * @error: return location for a [struct@GLib.Error]
 *
 * The GPU architectures the NVRTC library in use can compile for, as
 * compute capabilities times ten in ascending order (75 for `sm_75`,
 * 90 for `sm_90`). Needs no driver and no GPU.
 *
 * Returns: (array length=n_archs) (transfer full) (nullable): the
 *   architectures, or %NULL with @error set when NVRTC cannot be loaded or
 *   does not list them
 *
 * Since: 1.0
 */
int *
gcuda_get_nvrtc_supported_archs (gsize   *n_archs,
                                 GError **error)
{
  const GCudaNvrtc *nvrtc;
  int *archs;
  int n = 0;

  g_return_val_if_fail (n_archs != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  *n_archs = 0;
  if ((nvrtc = _gcuda_nvrtc_get (error)) == NULL)
    return NULL;
  if (nvrtc->fn_nvrtcGetNumSupportedArchs (&n) != NVRTC_SUCCESS || n <= 0 || n > 1024)
    goto unlisted;
  archs = g_new0 (int, n);
  if (nvrtc->fn_nvrtcGetSupportedArchs (archs) != NVRTC_SUCCESS)
    {
      g_free (archs);
      goto unlisted;
    }
  *n_archs = (gsize) n;
  return archs;

unlisted:
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND,
               _("NVRTC %d.%d (%s) does not list the architectures it supports"),
               nvrtc->major, nvrtc->minor, nvrtc->path);
  return NULL;
}
