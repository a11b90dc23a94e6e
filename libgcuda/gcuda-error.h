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
 * are from the [error@GCuda.Error] enumeration.
 *
 * Since: 1.0
 */
#define GCUDA_ERROR (gcuda_error_quark ())

/**
 * GCUDA_DRIVER_ERROR:
 *
 * Error domain for failures reported by the CUDA driver. The error code is
 * the driver's `CUresult`, from the [error@GCuda.DriverError] enumeration.
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
 * @GCUDA_ERROR_NCCL_NOT_FOUND: the NCCL library (`libnccl.so.2`) could not be loaded
 * @GCUDA_ERROR_NCCL: an NCCL call failed (the message has NCCL's reason)
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
  GCUDA_ERROR_NCCL_NOT_FOUND,
  GCUDA_ERROR_NCCL,
} GCudaError;

/**
 * GCUDA_COMPILE_ERROR:
 *
 * Error domain for failures reported by NVRTC when compiling. The error code is
 * NVRTC's `nvrtcResult`, from the [error@GCuda.CompileError] enumeration; for
 * [GCUDA_COMPILE_ERROR_COMPILATION][error@GCuda.CompileError] the message
 * carries the compiler log.
 *
 * Since: 1.0
 */
#define GCUDA_COMPILE_ERROR (gcuda_compile_error_quark ())

/**
 * GCudaCompileError:
 * @GCUDA_COMPILE_ERROR_OUT_OF_MEMORY: NVRTC ran out of memory
 * @GCUDA_COMPILE_ERROR_PROGRAM_CREATION_FAILURE: the program could not be created
 * @GCUDA_COMPILE_ERROR_INVALID_INPUT: an input was invalid
 * @GCUDA_COMPILE_ERROR_INVALID_PROGRAM: the program handle was invalid
 * @GCUDA_COMPILE_ERROR_INVALID_OPTION: an option was not recognized (see the log)
 * @GCUDA_COMPILE_ERROR_COMPILATION: the source did not compile (the message has the log)
 * @GCUDA_COMPILE_ERROR_BUILTIN_OPERATION_FAILURE: an NVRTC builtin operation failed
 * @GCUDA_COMPILE_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION: a name expression was added after compiling
 * @GCUDA_COMPILE_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION: a lowered name was asked for before compiling
 * @GCUDA_COMPILE_ERROR_NAME_EXPRESSION_NOT_VALID: a name expression is not valid
 * @GCUDA_COMPILE_ERROR_INTERNAL_ERROR: NVRTC failed internally
 * @GCUDA_COMPILE_ERROR_TIME_FILE_WRITE_FAILED: the timing file could not be written
 * @GCUDA_COMPILE_ERROR_NO_PCH_CREATE_ATTEMPTED: no precompiled header was attempted
 * @GCUDA_COMPILE_ERROR_PCH_CREATE_HEAP_EXHAUSTED: the precompiled header heap is exhausted
 * @GCUDA_COMPILE_ERROR_PCH_CREATE: the precompiled header could not be created
 * @GCUDA_COMPILE_ERROR_CANCELLED: the compile was cancelled
 * @GCUDA_COMPILE_ERROR_TIME_TRACE_FILE_WRITE_FAILED: the time trace file could not be written
 *
 * Error codes of the %GCUDA_COMPILE_ERROR domain: NVRTC's `nvrtcResult`
 * values, with the same numbers.
 *
 * Since: 1.0
 */
typedef enum {
  GCUDA_COMPILE_ERROR_OUT_OF_MEMORY = 1,
  GCUDA_COMPILE_ERROR_PROGRAM_CREATION_FAILURE = 2,
  GCUDA_COMPILE_ERROR_INVALID_INPUT = 3,
  GCUDA_COMPILE_ERROR_INVALID_PROGRAM = 4,
  GCUDA_COMPILE_ERROR_INVALID_OPTION = 5,
  GCUDA_COMPILE_ERROR_COMPILATION = 6,
  GCUDA_COMPILE_ERROR_BUILTIN_OPERATION_FAILURE = 7,
  GCUDA_COMPILE_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8,
  GCUDA_COMPILE_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION = 9,
  GCUDA_COMPILE_ERROR_NAME_EXPRESSION_NOT_VALID = 10,
  GCUDA_COMPILE_ERROR_INTERNAL_ERROR = 11,
  GCUDA_COMPILE_ERROR_TIME_FILE_WRITE_FAILED = 12,
  GCUDA_COMPILE_ERROR_NO_PCH_CREATE_ATTEMPTED = 13,
  GCUDA_COMPILE_ERROR_PCH_CREATE_HEAP_EXHAUSTED = 14,
  GCUDA_COMPILE_ERROR_PCH_CREATE = 15,
  GCUDA_COMPILE_ERROR_CANCELLED = 16,
  GCUDA_COMPILE_ERROR_TIME_TRACE_FILE_WRITE_FAILED = 17,
} GCudaCompileError;

GCUDA_AVAILABLE_IN_1_0
GQuark             gcuda_error_quark                  (void);
GCUDA_AVAILABLE_IN_1_0
GQuark             gcuda_compile_error_quark          (void);
GCUDA_AVAILABLE_IN_1_0
GQuark             gcuda_driver_error_quark           (void);

GCUDA_AVAILABLE_IN_1_0
GCudaErrorCategory gcuda_driver_error_get_category    (int              code);
GCUDA_AVAILABLE_IN_1_0
GCudaErrorCategory gcuda_error_get_category           (const GError    *error);
GCUDA_AVAILABLE_IN_1_0
const char        *gcuda_driver_error_get_name        (int              code);

G_END_DECLS
