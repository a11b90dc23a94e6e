/* gcuda-launch-config-private.h: what launches read of a GCudaLaunchConfig
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"

G_BEGIN_DECLS

void _gcuda_launch_config_get (GCudaLaunchConfig  *self,
                               const guint       **grid,
                               const guint       **block,
                               const guint       **cluster,
                               guint              *shared_bytes,
                               GCudaStream       **stream,
                               gboolean           *cooperative);

G_END_DECLS
