/* gcuda-event-private.h: what streams need of GCudaEvent
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

CUevent   _gcuda_event_get_handle  (GCudaEvent  *event);

G_END_DECLS
