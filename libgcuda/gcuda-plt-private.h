/* gcuda-plt-private.h: points one loaded library's calls of a C library
 * function at another function
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Rewrites the slots through which the library opened as @handle (by
 * dlopen()) calls @symbol, so that it calls @replacement instead; other
 * libraries keep calling the real one. Returns how many slots were
 * rewritten: 0 where the library does not import @symbol, or where this
 * system's format is not known (anything but glibc on x86-64 or AArch64),
 * with the reason in @why (a static string). */
guint _gcuda_plt_redirect (void        *handle,
                           const char  *symbol,
                           gpointer     replacement,
                           const char **why);

G_END_DECLS
