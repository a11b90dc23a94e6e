/* gcuda-kernel-args-private.h: kernel arguments as launches pass them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"

G_BEGIN_DECLS

/* The kernel arguments as the driver wants them, checked against the
 * kernel's parameters (count and sizes from cuFuncGetParamInfo), and its
 * buffers against @context, the kernel's. */
void **_gcuda_kernel_args_prepare (GCudaKernelArgs *args,
                                   GCudaContext    *context,
                                   const gsize     *param_sizes,
                                   guint            n_params,
                                   const char      *kernel_name,
                                   GError         **error);

/* gcuda_kernel_args_set_number() without the type check of @args */
gboolean _gcuda_kernel_args_set_number (GCudaKernelArgs *args,
                                        guint            index,
                                        double           value,
                                        GError         **error);

G_END_DECLS
