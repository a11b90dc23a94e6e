/* gcuda-module-private.h: modules loaded by linkers, and what functions need of them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

CUmodule       _gcuda_module_get_handle     (GCudaModule  *self);
GCudaModule   *_gcuda_module_new_for_handle (GCudaContext *context,
                                             CUmodule      handle,
                                             char         *info_log,
                                             char         *error_log);

G_END_DECLS
