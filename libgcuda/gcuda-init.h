/* gcuda-init.h: library initialization and versions
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <glib.h>

#include "gcuda-version-macros.h"

G_BEGIN_DECLS

GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_init                (GError **error);

GCUDA_AVAILABLE_IN_1_0
guint    gcuda_get_major_version   (void);
GCUDA_AVAILABLE_IN_1_0
guint    gcuda_get_minor_version   (void);
GCUDA_AVAILABLE_IN_1_0
guint    gcuda_get_micro_version   (void);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_check_version       (guint major,
                                    guint minor,
                                    guint micro);

GCUDA_AVAILABLE_IN_1_0
void     gcuda_get_cuda_version    (guint   *major,
                                    guint   *minor,
                                    guint   *revision);
GCUDA_AVAILABLE_IN_1_0
int      gcuda_get_driver_version  (GError **error);
GCUDA_AVAILABLE_IN_1_0
int      gcuda_get_nvrtc_version   (GError **error);
GCUDA_AVAILABLE_IN_1_0
int     *gcuda_get_nvrtc_supported_archs (gsize   *n_archs,
                                          GError **error);

G_END_DECLS
