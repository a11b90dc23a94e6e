/* gcuda.h: the only header users include
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib-object.h>

#define GCUDA_INSIDE
# include "gcuda-version.h"
# include "gcuda-version-macros.h"
# include "gcuda-types.h"
# include "gcuda-cuda-enums.h"
# include "gcuda-enums.h"
# include "gcuda-enum-types.h"
# include "gcuda-error.h"
# include "gcuda-init.h"
# include "gcuda-device.h"
# include "gcuda-context.h"
# include "gcuda-stream.h"
# include "gcuda-event.h"
# include "gcuda-buffer.h"
# include "gcuda-host-buffer.h"
# include "gcuda-copy-2d.h"
# include "gcuda-copy-3d.h"
# include "gcuda-copy-3d-peer.h"
# include "gcuda-program.h"
# include "gcuda-compiler.h"
# include "gcuda-module.h"
# include "gcuda-function.h"
# include "gcuda-kernel-args.h"
# include "gcuda-jit-options.h"
# include "gcuda-launch-config.h"
# include "gcuda-linker.h"
# include "gcuda-graph.h"
# include "gcuda-graph-exec.h"
/* pools */
#include "gcuda-stream-pool.h"
#include "gcuda-memory-pool.h"
#include "gcuda-host-memory-pool.h"
/* device tools */
#include "gcuda-device-data.h"
#include "gcuda-occupancy.h"
#include "gcuda-profiler.h"
/* arrays and textures */
#include "gcuda-array.h"
#include "gcuda-texture.h"
#include "gcuda-surface.h"
#include "gcuda-graphics-resource.h"
/* GNOME apps */
#include "gcuda-device-model.h"

#include "gcuda-communicator.h"
#undef GCUDA_INSIDE
