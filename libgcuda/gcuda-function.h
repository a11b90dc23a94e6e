/* gcuda-function.h: a kernel
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <glib-object.h>

#include "gcuda-types.h"
#include "gcuda-version-macros.h"
#include "gcuda-enums.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_FUNCTION (gcuda_function_get_type ())

/**
 * GCudaFunctionClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Function]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaFunction, gcuda_function, GCUDA, FUNCTION, GObject)

GCUDA_AVAILABLE_IN_1_0
const char  *gcuda_function_get_name                 (GCudaFunction    *self);
GCUDA_AVAILABLE_IN_1_0
GCudaModule *gcuda_function_get_module               (GCudaFunction    *self);
GCUDA_AVAILABLE_IN_1_0
guint        gcuda_function_get_param_count          (GCudaFunction    *self);
GCUDA_AVAILABLE_IN_1_0
guint64      gcuda_function_get_param_size           (GCudaFunction    *self,
                                                      guint             index);
GCUDA_AVAILABLE_IN_1_0
guint64      gcuda_function_get_param_offset         (GCudaFunction    *self,
                                                      guint             index);
GCUDA_AVAILABLE_IN_1_0
int          gcuda_function_get_max_threads_per_block (GCudaFunction   *self);
GCUDA_AVAILABLE_IN_1_0
int          gcuda_function_get_max_active_blocks_per_multiprocessor (GCudaFunction *self,
                                                      guint             block_size,
                                                      guint64           dynamic_shared_bytes,
                                                      GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean     gcuda_function_set_cache_config         (GCudaFunction    *self,
                                                      GCudaCacheConfig  config,
                                                      GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean     gcuda_function_set_max_dynamic_shared_size (GCudaFunction *self,
                                                      guint             bytes,
                                                      GError          **error);

GCUDA_AVAILABLE_IN_1_0
gboolean     gcuda_function_launch                   (GCudaFunction    *self,
                                                      guint             grid_x,
                                                      guint             grid_y,
                                                      guint             grid_z,
                                                      guint             block_x,
                                                      guint             block_y,
                                                      guint             block_z,
                                                      guint             shared_bytes,
                                                      GCudaStream      *stream,
                                                      GCudaKernelArgs  *args,
                                                      GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean     gcuda_function_launch_packed            (GCudaFunction    *self,
                                                      guint             grid_x,
                                                      guint             grid_y,
                                                      guint             grid_z,
                                                      guint             block_x,
                                                      guint             block_y,
                                                      guint             block_z,
                                                      guint             shared_bytes,
                                                      GCudaStream      *stream,
                                                      const guint8     *params,
                                                      gsize             params_size,
                                                      GError          **error);

GCUDA_AVAILABLE_IN_1_0
gboolean     gcuda_function_launch_with_config       (GCudaFunction     *self,
                                                      GCudaLaunchConfig *config,
                                                      GCudaKernelArgs   *args,
                                                      GError           **error);
GCUDA_AVAILABLE_IN_1_0
gboolean     gcuda_function_launch_with_number       (GCudaFunction     *self,
                                                      GCudaLaunchConfig *config,
                                                      GCudaKernelArgs   *args,
                                                      guint              index,
                                                      double             value,
                                                      GError           **error);
GCUDA_AVAILABLE_IN_1_0
double       gcuda_function_launch_timed             (GCudaFunction    *self,
                                                      guint             grid_x,
                                                      guint             grid_y,
                                                      guint             grid_z,
                                                      guint             block_x,
                                                      guint             block_y,
                                                      guint             block_z,
                                                      guint             shared_bytes,
                                                      GCudaStream      *stream,
                                                      GCudaKernelArgs  *args,
                                                      GError          **error);
GCUDA_AVAILABLE_IN_1_0
int          gcuda_function_get_attribute            (GCudaFunction    *self,
                                                      GCudaFunctionAttribute attribute,
                                                      GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean     gcuda_function_set_attribute            (GCudaFunction    *self,
                                                      GCudaFunctionAttribute attribute,
                                                      int               value,
                                                      GError          **error);
GCUDA_AVAILABLE_IN_1_0
gboolean     gcuda_function_get_potential_block_size (GCudaFunction    *self,
                                                      guint64           dynamic_shared_bytes,
                                                      guint             block_size_limit,
                                                      int              *min_grid_size,
                                                      int              *block_size,
                                                      GError          **error);

GCUDA_AVAILABLE_IN_1_0
int              gcuda_function_get_num_regs (GCudaFunction *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_function_get_shared_size_bytes (GCudaFunction *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_function_get_const_size_bytes (GCudaFunction *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_function_get_local_size_bytes (GCudaFunction *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_function_get_ptx_version (GCudaFunction *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_function_get_binary_version (GCudaFunction *self);
GCUDA_AVAILABLE_IN_1_0
int              gcuda_function_get_max_dynamic_shared_size_bytes (GCudaFunction *self);

G_END_DECLS
