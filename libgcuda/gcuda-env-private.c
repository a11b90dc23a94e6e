/* gcuda-env-private.c: environment variables, read as secure_getenv() does
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A set-user-ID (or set-group-ID, or file-capability) program that uses
 * GCuda runs with its invoker's environment. A variable naming a library
 * to load (GCUDA_DRIVER_LIBRARY, GCUDA_NVRTC_LIBRARY) or a directory to
 * read code from and write to (GCUDA_CACHE_DIR, XDG_CACHE_HOME) would let
 * the invoker run their code with the program's privileges, or make the
 * program write where the invoker cannot. The dynamic loader ignores
 * LD_LIBRARY_PATH in such a process for that reason; GCuda does the same
 * with its own variables.
 */

#define _GNU_SOURCE 1  /* secure_getenv */

#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#if defined(__linux__) && defined(__has_include)
# if __has_include(<sys/auxv.h>)
#  include <sys/auxv.h>
#  define GCUDA_HAVE_GETAUXVAL 1
# endif
#endif

#include "gcuda-env-private.h"

/* secure_getenv() is glibc's (2.17 and later); elsewhere the same test is
 * made here. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 17))
# define GCUDA_HAVE_SECURE_GETENV 1
#endif

gboolean
_gcuda_is_secure_execution (void)
{
#ifdef GCUDA_HAVE_GETAUXVAL
  /* The kernel's own verdict: it also covers file capabilities, which the
   * user and group IDs below do not show. */
  if (getauxval (AT_SECURE) != 0)
    return TRUE;
#endif
  /* Without AT_SECURE (or where getauxval() cannot tell): the IDs differ
   * in a set-user-ID or set-group-ID process (until it drops them). */
  return getuid () != geteuid () || getgid () != getegid ();
}

const char *
_gcuda_secure_getenv (const char *name)
{
#ifdef GCUDA_HAVE_SECURE_GETENV
  /* glibc's flag is AT_SECURE itself; the ID test adds the case of a libc
   * that did not set it (a static binary loaded oddly, say). */
  if (getuid () != geteuid () || getgid () != getegid ())
    return NULL;
  return secure_getenv (name);
#else
  return _gcuda_is_secure_execution () ? NULL : getenv (name);
#endif
}
