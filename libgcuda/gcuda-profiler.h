/* gcuda-profiler.h: switching an attached profiler's collection on and off
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

G_BEGIN_DECLS

GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_profiler_start (GCudaContext  *context,
                               GError       **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_profiler_stop  (GCudaContext  *context,
                               GError       **error);

G_END_DECLS
