/* gcuda-jit-options.h: options for the driver's JIT compiler and linker
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <gio/gio.h>

#include "gcuda-types.h"
#include "gcuda-version-macros.h"
#include "gcuda-enums.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_JIT_OPTIONS (gcuda_jit_options_get_type ())

/**
 * GCudaJitOptionsClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.JitOptions]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaJitOptions, gcuda_jit_options, GCUDA, JIT_OPTIONS, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaJitOptions *gcuda_jit_options_new                     (void);
GCUDA_AVAILABLE_IN_1_0
guint            gcuda_jit_options_get_max_registers       (GCudaJitOptions *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_jit_options_set_max_registers       (GCudaJitOptions *self,
                                                            guint            max_registers);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_jit_options_get_optimization_level  (GCudaJitOptions *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_jit_options_set_optimization_level  (GCudaJitOptions *self,
                                                            int              level);
GCUDA_AVAILABLE_IN_1_0
guint            gcuda_jit_options_get_threads_per_block   (GCudaJitOptions *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_jit_options_set_threads_per_block   (GCudaJitOptions *self,
                                                            guint            threads);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_jit_options_get_generate_debug_info (GCudaJitOptions *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_jit_options_set_generate_debug_info (GCudaJitOptions *self,
                                                            gboolean         enable);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_jit_options_get_generate_line_info  (GCudaJitOptions *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_jit_options_set_generate_line_info  (GCudaJitOptions *self,
                                                            gboolean         enable);
GCUDA_AVAILABLE_IN_1_0
gboolean         gcuda_jit_options_get_log_verbose         (GCudaJitOptions *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_jit_options_set_log_verbose         (GCudaJitOptions *self,
                                                            gboolean         enable);

G_END_DECLS
