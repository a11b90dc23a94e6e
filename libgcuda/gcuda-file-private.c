/* gcuda-file-private.c: reading files that may have been swapped
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A file GCuda reads (a kernel bundle's manifest and images, a header the
 * compile cache hashes, a cache entry, ~/.cuda_device) may be replaced
 * between a check of its name and an open of that name: by a FIFO, whose
 * open() blocks until a writer comes, or by a device that never ends. So
 * the file is opened first, without waiting, and what was opened is
 * checked through the descriptor.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>

#include "gcuda-error-private.h"
#include "gcuda-file-private.h"

const char *
_gcuda_file_type_describe (mode_t mode)
{
  if (S_ISDIR (mode))
    return _("a directory");
  if (S_ISFIFO (mode))
    return _("a FIFO");
  if (S_ISCHR (mode))
    return _("a character device");
  if (S_ISBLK (mode))
    return _("a block device");
  if (S_ISSOCK (mode))
    return _("a socket");
  if (S_ISLNK (mode))
    return _("a symbolic link");
  return _("not a regular file");
}

int
_gcuda_file_open_regular (int           dir_fd,
                          const char   *path,
                          gboolean      nofollow,
                          struct stat  *st,
                          GError      **error)
{
  struct stat local;
  int fd;

  if (st == NULL)
    st = &local;
  do
    fd = openat (dir_fd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    {
      int saved = errno;

      if (nofollow && saved == ELOOP)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                     _("“%s” is a symbolic link, which is not followed here"), path);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                     _("Could not open “%s”: %s"), path, g_strerror (saved));
      return -1;
    }
  if (fstat (fd, st) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not read “%s”: %s"), path, g_strerror (saved));
      close (fd);
      return -1;
    }
  if (!S_ISREG (st->st_mode))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("“%s” is not a regular file: it is %s"), path, _gcuda_file_type_describe (st->st_mode));
      close (fd);
      return -1;
    }
  /* A regular file never blocks: reads wait for the disk as usual. */
  return fd;
}

GBytes *
_gcuda_file_read_fd (int          fd,
                     const char  *path,
                     gsize        max,
                     GError     **error)
{
  gsize size = max < G_MAXSIZE ? max + 1 : max;
  gsize got = 0;
  guint8 *buf;

  /* what the file holds: its size plus one, else @max + 1 */
  {
    struct stat st;

    if (fstat (fd, &st) == 0 && st.st_size >= 0 && (guint64) st.st_size < size)
      size = (gsize) st.st_size + 1;
  }
  buf = g_try_malloc (size);
  if (buf == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   _("Could not read “%s”: out of memory for %" PRIu64 " bytes"), path, (guint64) size);
      return NULL;
    }
  for (;;)
    {
      ssize_t n;

      if (got == size)
        {
          guint8 *more;

          /* it grew since: read on, up to @max + 1 bytes */
          if (size > max)
            break;
          size = MIN (max + 1, size * 2);
          more = g_try_realloc (buf, size);
          if (more == NULL)
            {
              g_free (buf);
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                           _("Could not read “%s”: out of memory for %" PRIu64 " bytes"), path, (guint64) size);
              return NULL;
            }
          buf = more;
        }
      n = read (fd, buf + got, size - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          g_free (buf);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("Could not read “%s”: %s"), path, g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;
      got += (gsize) n;
    }
  return g_bytes_new_take (buf, got);
}

GBytes *
_gcuda_file_read_regular (int           dir_fd,
                          const char   *path,
                          gboolean      nofollow,
                          gsize         max,
                          struct stat  *st,
                          GError      **error)
{
  int fd = _gcuda_file_open_regular (dir_fd, path, nofollow, st, error);
  GBytes *bytes;

  if (fd < 0)
    return NULL;
  bytes = _gcuda_file_read_fd (fd, path, max, error);
  close (fd);
  return bytes;
}

gboolean
_gcuda_file_check_library (const char  *name,
                           GError     **error)
{
  g_autoptr(GError) local = NULL;
  int fd;

  if (strchr (name, '/') == NULL)
    return TRUE;
  /* Checked through an open descriptor, then dlopen() opens the name
   * again: a file swapped in between is not caught. That is no hole: the
   * paths come from the user's own environment (GCUDA_*_LIBRARY, the
   * Python environments; a set-user-ID process ignores them), and whoever
   * can swap a file there can as well put a library there that dlopen()
   * runs. dlopen() of /proc/self/fd/N would close the gap but names the
   * library after the descriptor, which breaks $ORIGIN (NVRTC finds its
   * builtins beside itself) and the paths GCuda reports. */
  fd = _gcuda_file_open_regular (AT_FDCWD, name, FALSE, NULL, &local);
  if (fd >= 0)
    {
      close (fd);
      return TRUE;
    }
  if (local->domain == G_IO_ERROR)
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}
