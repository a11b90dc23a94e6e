/* gcuda-jit-options-private.h: JIT options as the driver takes them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

#define GCUDA_JIT_MAX_OPTIONS 10

/* The buffers the driver writes its logs into (NUL-terminated). */
typedef struct {
  char *info;
  char *error;
} GCudaJitLogs;

void  _gcuda_jit_logs_init  (GCudaJitLogs *logs);
void  _gcuda_jit_logs_clear (GCudaJitLogs *logs);

/* @options (nullable) as the driver may take them: each value in its
 * range, else GCUDA_ERROR_INVALID_ARGUMENT naming the option. */
gboolean _gcuda_jit_options_check (GCudaJitOptions  *options,
                                   GError          **error);

/* Fills @keys/@values for cuModuleLoadDataEx()/cuLinkCreate() from
 * @options (nullable) with @logs as the log buffers; returns the count.
 * @logs must outlive the driver call (for a linker: the linker). */
guint _gcuda_jit_options_build (GCudaJitOptions *options,
                                GCudaJitLogs    *logs,
                                CUjit_option     keys[GCUDA_JIT_MAX_OPTIONS],
                                void            *values[GCUDA_JIT_MAX_OPTIONS]);

G_END_DECLS
