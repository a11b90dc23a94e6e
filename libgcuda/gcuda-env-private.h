/* gcuda-env-private.h: environment variables, read as secure_getenv() does
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether the process runs with privileges its invoker does not have: a
 * set-user-ID or set-group-ID program, or one given file capabilities
 * (the kernel's AT_SECURE). Its environment then comes from a less
 * privileged user and must not choose files it opens or writes. */
gboolean    _gcuda_is_secure_execution (void);

/* The variable's value, or NULL in a secure-execution process whatever the
 * environment says (glibc's secure_getenv()). Every variable that names a
 * file GCuda loads, reads or writes is read with this, not g_getenv(). */
const char *_gcuda_secure_getenv       (const char *name);

G_END_DECLS
