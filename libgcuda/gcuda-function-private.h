/* gcuda-function-private.h: functions made by modules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

GCudaFunction *_gcuda_function_new (GCudaModule *module,
                                    CUfunction   handle,
                                    const char  *name,
                                    GError     **error);

G_END_DECLS
