/* gcuda-error.c: error domains and CUresult mapping
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include <string.h>

#include "gcuda-error-private.h"

#include <libintl.h>

const char *
_gcuda_gettext (const char *msgid)
{
  static gsize bound;

  if (g_once_init_enter (&bound))
    {
      bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      g_once_init_leave (&bound, 1);
    }
  return g_dgettext (GETTEXT_PACKAGE, msgid);
}

/**
 * gcuda_error_quark:
 *
 * The quark of the [GCUDA_ERROR][error@GCuda.Error] domain.
 *
 * Returns: the error domain
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (gcuda-error-quark, gcuda_error)

/**
 * gcuda_compile_error_quark:
 *
 * The quark of the [GCUDA_COMPILE_ERROR][error@GCuda.CompileError] domain.
 *
 * Returns: the error domain
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (gcuda-compile-error-quark, gcuda_compile_error)

/**
 * gcuda_driver_error_quark:
 *
 * The quark of the [GCUDA_DRIVER_ERROR][error@GCuda.DriverError] domain.
 *
 * Returns: the error domain
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (gcuda-driver-error-quark, gcuda_driver_error)

/**
 * gcuda_driver_error_get_name:
 * @code: a `CUresult` value, such as the code of a
 *   [GCUDA_DRIVER_ERROR][error@GCuda.DriverError]
 *
 * The driver's name for @code, such as `CUDA_ERROR_INVALID_VALUE`. Works
 * without the driver.
 *
 * Returns: (nullable): the name, or %NULL if @code is not a CUDA 13 `CUresult`
 *
 * Since: 1.0
 */
const char *
gcuda_driver_error_get_name (int code)
{
  static GHashTable *names;  /* code -> interned name; built once, never freed */
  static gsize once;

  if (g_once_init_enter (&once))
    {
      GEnumClass *klass = g_type_class_ref (GCUDA_TYPE_DRIVER_ERROR);
      const gsize prefix = strlen ("GCUDA_DRIVER_ERROR_");

      names = g_hash_table_new (NULL, NULL);
      for (guint i = 0; i < klass->n_values; i++)
        {
          const GEnumValue *v = &klass->values[i];
          g_autofree char *name = NULL;

          if (v->value == CUDA_SUCCESS)
            name = g_strdup ("CUDA_SUCCESS");
          else
            name = g_strconcat ("CUDA_ERROR_", v->value_name + prefix, NULL);
          g_hash_table_insert (names, GINT_TO_POINTER (v->value), (gpointer) g_intern_string (name));
        }
      g_once_init_leave (&once, 1);
    }

  return g_hash_table_lookup (names, GINT_TO_POINTER (code));
}

gboolean
_gcuda_ipc_handle_from_bytes (GBytes      *bytes,
                              void        *handle,
                              gsize        size,
                              const char  *what,
                              GError     **error)
{
  if (bytes == NULL || g_bytes_get_size (bytes) != size)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%s IPC handle is %u bytes long, not %u"), what,
                   (guint) size, bytes ? (guint) g_bytes_get_size (bytes) : 0);
      return FALSE;
    }
  memcpy (handle, g_bytes_get_data (bytes, NULL), size);
  return TRUE;
}

gboolean
_gcuda_check (CUresult     res,
              const char  *call,
              GError     **error)
{
  const char *name;
  int needed = 0;

  if (G_LIKELY (res == CUDA_SUCCESS))
    return TRUE;

  if (res == CUDA_ERROR_NOT_FOUND && _gcuda_driver_lacks (call, &needed))
    {
      int have = _gcuda_driver_peek ()->driver_version;

      if (have < needed)
        g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED,
                     _("%s needs an NVIDIA driver for CUDA %d.%d or newer; the installed driver is for CUDA "
                       "%d.%d: update the NVIDIA driver"),
                     call, needed / 1000, needed % 1000 / 10, have / 1000, have % 1000 / 10);
      else
        g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED,
                     _("The installed NVIDIA driver (for CUDA %d.%d) does not provide %s, which drivers for "
                       "CUDA %d.%d and newer have"),
                     have / 1000, have % 1000 / 10, call, needed / 1000, needed % 1000 / 10);
      return FALSE;
    }

  name = gcuda_driver_error_get_name ((int) res);
  /* Translators: "cuCtxCreate failed: CUDA_ERROR_INVALID_DEVICE (invalid device ordinal)" */
  g_set_error (error, GCUDA_DRIVER_ERROR, (int) res, _("%s failed: %s (%s)"),
               call, name ? name : "CUDA_ERROR_?", _(_gcuda_driver_describe (res)));
  return FALSE;
}

gboolean
_gcuda_set_not_made_error (GError      **error,
                           const char   *message)
{
  g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, message);
  return FALSE;
}

gboolean
_gcuda_check_alloc_size (guint64   size,
                         GError  **error)
{
  if (size == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Cannot allocate 0 bytes"));
      return FALSE;
    }
  if (size > G_MAXSIZE)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%" PRIu64 " bytes is more than this system can address"), size);
      return FALSE;
    }
  return TRUE;
}

gboolean
_gcuda_check_range (guint64      offset,
                    guint64      size,
                    guint64      total,
                    const char  *what,
                    GError     **error)
{
  if (offset <= total && size <= total - offset)
    return TRUE;
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS,
               /* Translators: "Bytes 0 to 10 are outside the buffer of 8 bytes" */
               _("Bytes %" PRIu64 " to %" PRIu64 " are outside %s of %" PRIu64 " bytes"),
               offset, offset + size, what, total);
  return FALSE;
}

const char *
_gcuda_format_number (char   *buffer,
                      double  value)
{
  g_snprintf (buffer, G_ASCII_DTOSTR_BUF_SIZE, "%.15g", value);
  if (isfinite (value) && g_ascii_strtod (buffer, NULL) != value)
    g_snprintf (buffer, G_ASCII_DTOSTR_BUF_SIZE, "%.17g", value);
  return buffer;
}

gboolean
_gcuda_check_memset_number (double    value,
                            guint     bits,
                            GError  **error)
{
  const double max = (double) (G_MAXUINT32 >> (32 - bits));
  char text[G_ASCII_DTOSTR_BUF_SIZE];

  /* NaN fails both comparisons */
  if (G_LIKELY (value >= 0 && value <= max && value == (double) (guint32) value))
    return TRUE;
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
               _("The memset value %s is not a whole number from 0 to %.0f (a %u-bit pattern)"),
               _gcuda_format_number (text, value), max, bits);
  return FALSE;
}

gboolean
_gcuda_check_ready (CUresult     res,
                    const char  *call,
                    GError     **error)
{
  return res != CUDA_ERROR_NOT_READY && _gcuda_check (res, call, error);
}

/**
 * gcuda_driver_error_get_category:
 * @code: a `CUresult` value
 *
 * Classifies a driver error the way PyCUDA does: launch failures and kernel
 * faults are [GCUDA_ERROR_CATEGORY_LAUNCH][enum@GCuda.ErrorCategory],
 * out-of-memory is [GCUDA_ERROR_CATEGORY_MEMORY][enum@GCuda.ErrorCategory],
 * problems of the environment (no device, no binary for this GPU, a stub or
 * mismatched driver, hardware errors) are
 * [GCUDA_ERROR_CATEGORY_RUNTIME][enum@GCuda.ErrorCategory],
 * [GCUDA_DRIVER_ERROR_UNKNOWN][error@GCuda.DriverError] is
 * [GCUDA_ERROR_CATEGORY_UNKNOWN][enum@GCuda.ErrorCategory], and everything else
 * is a logic error.
 *
 * Returns: the category
 *
 * Since: 1.0
 */
GCudaErrorCategory
gcuda_driver_error_get_category (int code)
{
  switch (code)
    {
    case CUDA_SUCCESS:
      return GCUDA_ERROR_CATEGORY_NONE;

    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING:
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
      return GCUDA_ERROR_CATEGORY_LAUNCH;

    case CUDA_ERROR_OUT_OF_MEMORY:
      return GCUDA_ERROR_CATEGORY_MEMORY;

    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_FILE_NOT_FOUND:
    case CUDA_ERROR_NOT_READY:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_DEVICE_NOT_LICENSED:
    case CUDA_ERROR_SYSTEM_NOT_READY:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC:
    case CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY:
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
      return GCUDA_ERROR_CATEGORY_RUNTIME;

    case CUDA_ERROR_UNKNOWN:
      return GCUDA_ERROR_CATEGORY_UNKNOWN;

    default:
      return GCUDA_ERROR_CATEGORY_LOGIC;
    }
}

/**
 * gcuda_error_get_category:
 * @error: any error
 *
 * Classifies an error from any of GCuda's domains (see
 * [func@GCuda.DriverError.get_category] for the driver's). Errors GCuda detects
 * itself are logic errors, except a missing driver or NVRTC library and an
 * unsupported operation, which are runtime errors; compile errors are
 * [GCUDA_ERROR_CATEGORY_COMPILE][enum@GCuda.ErrorCategory].
 *
 * Returns: the category, or
 *   [GCUDA_ERROR_CATEGORY_NONE][enum@GCuda.ErrorCategory] for other domains
 *
 * Since: 1.0
 */
GCudaErrorCategory
gcuda_error_get_category (const GError *error)
{
  g_return_val_if_fail (error != NULL, GCUDA_ERROR_CATEGORY_NONE);

  if (error->domain == GCUDA_DRIVER_ERROR)
    return gcuda_driver_error_get_category (error->code);

  if (error->domain == GCUDA_ERROR)
    {
      switch ((GCudaError) error->code)
        {
        case GCUDA_ERROR_DRIVER_NOT_FOUND:
        case GCUDA_ERROR_NVRTC_NOT_FOUND:
        case GCUDA_ERROR_NOT_SUPPORTED:
        case GCUDA_ERROR_NCCL_NOT_FOUND:
        case GCUDA_ERROR_NCCL:
          return GCUDA_ERROR_CATEGORY_RUNTIME;
        case GCUDA_ERROR_FAILED:
        case GCUDA_ERROR_INVALID_ARGUMENT:
        case GCUDA_ERROR_OUT_OF_BOUNDS:
        case GCUDA_ERROR_FREED:
        case GCUDA_ERROR_CONTEXT_DESTROYED:
        case GCUDA_ERROR_CONTEXT_MISMATCH:
        case GCUDA_ERROR_KERNEL_ARGUMENTS:
        default:
          return GCUDA_ERROR_CATEGORY_LOGIC;
        }
    }

  if (error->domain == GCUDA_COMPILE_ERROR)
    return GCUDA_ERROR_CATEGORY_COMPILE;

  return GCUDA_ERROR_CATEGORY_NONE;
}
