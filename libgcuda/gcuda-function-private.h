/* gcuda-function-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda-private.h"

G_BEGIN_DECLS

CUmodule       _gcuda_module_get_handle (GCudaModule *self);
GCudaModule   *_gcuda_module_new_for_handle (GCudaContext *context,
                                             CUmodule      handle,
                                             char         *info_log,
                                             char         *error_log);
GCudaFunction *_gcuda_function_new      (GCudaModule *module,
                                         CUfunction   handle,
                                         const char  *name,
                                         GError     **error);

/* The kernel arguments as the driver wants them, checked against the
 * kernel's parameters (count and sizes from cuFuncGetParamInfo). */
void         **_gcuda_kernel_args_prepare (GCudaKernelArgs *args,
                                           const gsize     *param_sizes,
                                           guint            n_params,
                                           const char      *kernel_name,
                                           GError         **error);

G_END_DECLS
