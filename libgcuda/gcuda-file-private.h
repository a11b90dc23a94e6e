/* gcuda-file-private.h: reading files that may have been swapped
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <sys/stat.h>

#include <glib.h>

G_BEGIN_DECLS

/* "a FIFO", "a directory"…: what a file of @mode is, for messages. */
const char *_gcuda_file_type_describe (mode_t mode);

/* Opens @path (relative to @dir_fd, which may be AT_FDCWD) for reading
 * when it is a regular file, and returns the descriptor, with what fstat()
 * says of it in @st (nullable). It is opened first and checked after,
 * through the descriptor: a file swapped in between is never read. The
 * open never waits (O_NONBLOCK: a FIFO would block until a writer comes),
 * never makes a terminal the process's (O_NOCTTY), is closed on exec, and
 * follows no final symlink when @nofollow. On failure returns -1 with
 * @error: in G_IO_ERROR from errno when it cannot be opened (a missing
 * file is G_IO_ERROR_NOT_FOUND), GCUDA_ERROR_INVALID_ARGUMENT naming what
 * it is instead when it is no regular file (a symlink, with @nofollow,
 * is G_IO_ERROR_TOO_MANY_LINKS as open() says); messages name @path. */
int     _gcuda_file_open_regular (int           dir_fd,
                                  const char   *path,
                                  gboolean      nofollow,
                                  struct stat  *st,
                                  GError      **error);

/* Reads @fd from where it is to its end, at most @max + 1 bytes (so that
 * a caller that allows @max sees a file longer than that); %NULL with
 * @error (G_IO_ERROR from errno) when a read fails, and when @max + 1
 * bytes cannot be allocated (G_IO_ERROR_NO_SPACE). Messages name @path. */
GBytes *_gcuda_file_read_fd      (int           fd,
                                  const char   *path,
                                  gsize         max,
                                  GError      **error);

/* Both: the contents of the regular file @path, at most @max + 1 bytes. */
GBytes *_gcuda_file_read_regular (int           dir_fd,
                                  const char   *path,
                                  gboolean      nofollow,
                                  gsize         max,
                                  struct stat  *st,
                                  GError      **error);

/* Before dlopen (@name): FALSE, with @error (GCUDA_ERROR_INVALID_ARGUMENT
 * naming what it is), when @name is a path to something that is not a
 * regular file (dlopen() would block on a FIFO for ever, or read a device).
 * A bare name (no '/') is the dynamic loader's to search, and a path that
 * cannot be opened is left to dlopen() to report: TRUE for both. */
gboolean _gcuda_file_check_library (const char  *name,
                                    GError     **error);

G_END_DECLS
