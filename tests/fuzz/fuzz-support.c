/* fuzz-support.c: what the library's hidden parsers need from the rest of
 * libgcuda when a harness compiles them in alone.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"

/* The messages stay untranslated: the harnesses check bytes, not words. */
const char *
_gcuda_gettext (const char *msgid)
{
  return msgid;
}
