/* gcuda-launch-config.h: how a kernel is launched (cuLaunchKernelEx)
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

#define GCUDA_TYPE_LAUNCH_CONFIG (gcuda_launch_config_get_type ())

/**
 * GCudaLaunchConfigClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.LaunchConfig]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaLaunchConfig, gcuda_launch_config, GCUDA, LAUNCH_CONFIG, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaLaunchConfig *gcuda_launch_config_new             (void);
GCUDA_AVAILABLE_IN_1_0
void         gcuda_launch_config_set_grid              (GCudaLaunchConfig *self,
                                                        guint              x,
                                                        guint              y,
                                                        guint              z);
GCUDA_AVAILABLE_IN_1_0
void         gcuda_launch_config_get_grid              (GCudaLaunchConfig *self,
                                                        guint             *x,
                                                        guint             *y,
                                                        guint             *z);
GCUDA_AVAILABLE_IN_1_0
void         gcuda_launch_config_set_block             (GCudaLaunchConfig *self,
                                                        guint              x,
                                                        guint              y,
                                                        guint              z);
GCUDA_AVAILABLE_IN_1_0
void         gcuda_launch_config_get_block             (GCudaLaunchConfig *self,
                                                        guint             *x,
                                                        guint             *y,
                                                        guint             *z);
GCUDA_AVAILABLE_IN_1_0
void         gcuda_launch_config_set_cluster           (GCudaLaunchConfig *self,
                                                        guint              x,
                                                        guint              y,
                                                        guint              z);
GCUDA_AVAILABLE_IN_1_0
void         gcuda_launch_config_get_cluster           (GCudaLaunchConfig *self,
                                                        guint             *x,
                                                        guint             *y,
                                                        guint             *z);
GCUDA_AVAILABLE_IN_1_0
void         gcuda_launch_config_set_shared_bytes      (GCudaLaunchConfig *self,
                                                        guint              bytes);
GCUDA_AVAILABLE_IN_1_0
guint        gcuda_launch_config_get_shared_bytes      (GCudaLaunchConfig *self);
GCUDA_AVAILABLE_IN_1_0
void         gcuda_launch_config_set_stream            (GCudaLaunchConfig *self,
                                                        GCudaStream       *stream);
GCUDA_AVAILABLE_IN_1_0
GCudaStream *gcuda_launch_config_get_stream            (GCudaLaunchConfig *self);
GCUDA_AVAILABLE_IN_1_0
void         gcuda_launch_config_set_cooperative       (GCudaLaunchConfig *self,
                                                        gboolean           cooperative);
GCUDA_AVAILABLE_IN_1_0
gboolean     gcuda_launch_config_get_cooperative       (GCudaLaunchConfig *self);

G_END_DECLS
