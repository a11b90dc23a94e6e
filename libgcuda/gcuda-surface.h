/* gcuda-surface.h: surface objects
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

G_BEGIN_DECLS

#define GCUDA_TYPE_SURFACE (gcuda_surface_get_type ())

/**
 * GCudaSurfaceClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Surface]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaSurface, gcuda_surface, GCUDA, SURFACE, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaSurface *gcuda_surface_new         (GCudaArray    *array,
                                         GError       **error);
GCUDA_AVAILABLE_IN_1_0
guint64       gcuda_surface_get_handle  (GCudaSurface  *self);
GCUDA_AVAILABLE_IN_1_0
GCudaArray   *gcuda_surface_get_array   (GCudaSurface  *self);

G_END_DECLS
