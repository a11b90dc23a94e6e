/* gcuda-module-image-private.h: what a module image must satisfy before
 * the driver reads it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Checks that @size bytes at @data are a cubin, a fatbin or PTX whose
 * headers, tables and strings the driver can follow without reading past
 * @size (cuModuleLoadDataEx takes no size). A pure function of its
 * arguments: no driver, no allocation kept, no global state.
 *
 * FALSE with a GCUDA_ERROR_INVALID_ARGUMENT naming the first problem
 * found; the full list of what is checked (and what is not) is the
 * comment at the top of gcuda-module-image-private.c. */
gboolean _gcuda_module_image_check (const guint8  *data,
                                    gsize          size,
                                    GError       **error);

G_END_DECLS
