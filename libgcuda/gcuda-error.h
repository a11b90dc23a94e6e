/* gcuda-error.h: error domains
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <glib.h>

#include "gcuda-version-macros.h"
#include "gcuda-cuda-enums.h"
#include "gcuda-enums.h"

G_BEGIN_DECLS

/**
 * GCUDA_ERROR:
 *
 * Error domain for failures detected by GCuda itself. Errors in this domain
 * are from the #GCudaError enumeration.
 *
 * Since: 1.0
 */
#define GCUDA_ERROR (gcuda_error_quark ())

/**
 * GCUDA_DRIVER_ERROR:
 *
 * Error domain for failures reported by the CUDA driver. The error code is
 * the driver's `CUresult`, from the #GCudaDriverError enumeration.
 *
 * Since: 1.0
 */
#define GCUDA_DRIVER_ERROR (gcuda_driver_error_quark ())

/**
 * GCudaError:
 * @GCUDA_ERROR_FAILED: an unspecified failure
 * @GCUDA_ERROR_DRIVER_NOT_FOUND: the CUDA driver library (`libcuda.so.1`) could not be loaded
 * @GCUDA_ERROR_NVRTC_NOT_FOUND: the NVRTC library could not be loaded
 * @GCUDA_ERROR_NOT_SUPPORTED: the driver or device does not support the operation
 * @GCUDA_ERROR_INVALID_ARGUMENT: an argument is out of range or malformed
 * @GCUDA_ERROR_OUT_OF_BOUNDS: an offset or size reaches outside an allocation
 * @GCUDA_ERROR_FREED: the object's resource was already released
 * @GCUDA_ERROR_CONTEXT_DESTROYED: the context the object belongs to was destroyed
 * @GCUDA_ERROR_CONTEXT_MISMATCH: objects from different contexts were combined
 * @GCUDA_ERROR_KERNEL_ARGUMENTS: kernel arguments do not match the kernel's parameters
 *
 * Error codes of the %GCUDA_ERROR domain.
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_ERROR_FAILED,
  GCUDA_ERROR_DRIVER_NOT_FOUND,
  GCUDA_ERROR_NVRTC_NOT_FOUND,
  GCUDA_ERROR_NOT_SUPPORTED,
  GCUDA_ERROR_INVALID_ARGUMENT,
  GCUDA_ERROR_OUT_OF_BOUNDS,
  GCUDA_ERROR_FREED,
  GCUDA_ERROR_CONTEXT_DESTROYED,
  GCUDA_ERROR_CONTEXT_MISMATCH,
  GCUDA_ERROR_KERNEL_ARGUMENTS,
} GCudaError;

GCUDA_AVAILABLE_IN_1_0
GQuark             gcuda_error_quark                  (void);
GCUDA_AVAILABLE_IN_1_0
GQuark             gcuda_driver_error_quark           (void);

GCUDA_AVAILABLE_IN_1_0
GCudaErrorCategory gcuda_driver_error_get_category    (int              code);
GCUDA_AVAILABLE_IN_1_0
GCudaErrorCategory gcuda_error_get_category           (const GError    *error);
GCUDA_AVAILABLE_IN_1_0
const char        *gcuda_driver_error_get_name        (int              code);

G_END_DECLS
