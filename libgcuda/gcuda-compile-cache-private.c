/* gcuda-compile-cache-private.c: the on-disk and in-process cache of compiled programs
 * (the key: gcuda-compile-key-private.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Why the disk cache is guarded
 *   A cached image is code: GCuda loads it and runs its kernels in the
 *   user's process, on the user's data. Whoever can write an entry can make
 *   a later compile return their kernels instead (reading or corrupting any
 *   device memory of the context, or just computing wrong results), and
 *   whoever can read the cache sees what the user compiles. So only the
 *   user may write or read it, and only the user (or root) may be able to
 *   change what the directory's path leads to: the path is walked from "/"
 *   one directory at a time, never through a directory others can write
 *   or a link others own, and the directory must be the user's and mode
 *   0700 (open_cache_dir()); each entry must be the user's and a regular
 *   file, opened without following links (disk_lookup()); and all of it is
 *   reached through one directory descriptor, so a path swapped for a
 *   symlink after the check changes nothing. The SHA-256 inside an entry
 *   detects damage (a torn write, a truncated file, a bad disk), not
 *   tampering: anyone able to write an entry could write its digest too.
 *   Ownership is the guard.
 *
 *   The environment chooses the directory (GCUDA_CACHE_DIR,
 *   XDG_CACHE_HOME): in a set-user-ID process it is another user's
 *   choice, so there is no default directory there
 *   (_gcuda_compile_cache_default_dir()).
 *
 * The disk format (little-endian), file "<key>.bin" in the cache directory:
 *   0   magic "GCUDA-CACHE\0" (12 bytes)
 *   12  u32 format version (2)
 *   16  u32 flags (1: a log is stored, 2: lowered names are stored)
 *   20  the key, 64 lower-case hex digits
 *   84  u64 log length, u64 lowered length, u64 payload length
 *   108 SHA-256 of log + lowered + payload (32 bytes)
 *   140 log, lowered, payload
 *   The file size must be exactly 140 + the three lengths, and at most
 *   MAX_ENTRY_BYTES. The lowered names are netstrings (see
 *   _gcuda_compile_cache_serialize_lowered()); format 1 had
 *   "name\tvalue\n" lines, which a tab in a name broke.
 *
 * Writes go to a temporary file in the cache directory (O_EXCL, 0600),
 * renamed over "<key>.bin", so a reader sees a whole entry or none; they
 * are not fsync()ed: a torn entry after a crash fails verification, is
 * deleted and recompiled. After each store, upkeep() keeps the directory
 * within GCUDA_CACHE_MAX_SIZE, least recently used entries first, and
 * deletes temporary files a killed writer left.
 */

#define _GNU_SOURCE 1  /* dl_iterate_phdr, memmem */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <gio/gio.h>

#include "gcuda-error-private.h"
#include "gcuda-file-private.h"
#include "gcuda-compile-cache-private.h"
#include "gcuda-env-private.h"
#include "gcuda-nvrtc-private.h"
#include "gcuda-std-headers-private.h"

/* changed with KEY_TAG (gcuda-compile-key-private.c): 2 changed the
 * lowered names' encoding */
#define FORMAT_VERSION      2u
#define KEY_LENGTH          GCUDA_COMPILE_KEY_LENGTH
#define MAGIC               "GCUDA-CACHE"   /* with its NUL: 12 bytes */
#define MAGIC_LENGTH        12
#define HEADER_SIZE         140
#define FLAG_LOG            1u
#define FLAG_LOWERED        2u
#define MAX_ENTRY_BYTES     ((guint64) 512 * 1024 * 1024)   /* docs/kernels.md */
#define MAX_MEMORY_BYTES    ((gsize) 512 * 1024 * 1024)
#define DEFAULT_MAX_SIZE    ((guint64) 1024 * 1024 * 1024)  /* GCUDA_CACHE_MAX_SIZE */
#define STALE_TMP_SECONDS   3600
#define LOCK_WAIT_USEC      (2 * G_USEC_PER_SEC)

G_STATIC_ASSERT (sizeof MAGIC == MAGIC_LENGTH);

/* ------------------------------------------------------------ lowered names */

/* The lowered names, as an entry stores them: for each name expression in
 * byte order, a netstring of the expression, then one of its lowered name
 * ("<decimal length>:<bytes>,"). Length-prefixed, so every byte but NUL is
 * kept as it is: format 1 wrote "expression\tlowered\n", and NVRTC accepts
 * a tab in a name expression ("f<\tint>"), which then lost its lowered
 * name on every cache hit. The parser accepts only what the serializer
 * writes (sorted, no duplicate, no leading zero in a length), so each is
 * the other's inverse: any other text is a damaged entry. */

static void
append_netstring (GString    *out,
                  const char *s)
{
  g_string_append_printf (out, "%" G_GSIZE_FORMAT ":%s,", strlen (s), s);
}

char *
_gcuda_compile_cache_serialize_lowered (GHashTable *lowered)
{
  g_autoptr(GPtrArray) names = NULL;
  GString *out;
  GHashTableIter iter;
  gpointer name, value;

  if (lowered == NULL)
    return NULL;
  names = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, lowered);
  while (g_hash_table_iter_next (&iter, &name, &value))
    if (name != NULL && value != NULL)  /* a NULL lowered name is no name */
      g_ptr_array_add (names, name);
  g_ptr_array_sort (names, _gcuda_compile_compare_strings);

  out = g_string_new (NULL);
  for (guint i = 0; i < names->len; i++)
    {
      append_netstring (out, names->pdata[i]);
      append_netstring (out, g_hash_table_lookup (lowered, names->pdata[i]));
    }
  return g_string_free (out, FALSE);
}

/* One netstring at *@p, before @end: its bytes in @s and @len, *@p moved
 * past it. FALSE for anything the serializer would not write. */
static gboolean
read_netstring (const char **p,
                const char  *end,
                const char **s,
                gsize       *len)
{
  const char *q = *p;
  guint64 n = 0;

  if (q >= end || !g_ascii_isdigit (*q))
    return FALSE;
  if (*q == '0' && q + 1 < end && g_ascii_isdigit (q[1]))
    return FALSE;
  for (; q < end && g_ascii_isdigit (*q); q++)
    {
      guint64 digit = (guint64) (*q - '0');

      if (n > (G_MAXUINT64 - digit) / 10)
        return FALSE;
      n = n * 10 + digit;
    }
  if (q >= end || *q != ':')
    return FALSE;
  q++;
  /* n bytes, then the ',': n < what is left, so q[n] is inside */
  if (n >= (guint64) (end - q) || q[n] != ',' || memchr (q, '\0', n) != NULL)
    return FALSE;
  *s = q;
  *len = n;
  *p = q + n + 1;
  return TRUE;
}

GHashTable *
_gcuda_compile_cache_parse_lowered (const char *data,
                                    gsize       len)
{
  g_autoptr(GHashTable) lowered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const char *p = data;
  const char *end = data + len;
  const char *previous = NULL;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  while (p < end)
    {
      const char *name, *value;
      gsize name_len, value_len;
      char *key;

      if (!read_netstring (&p, end, &name, &name_len) ||
          !read_netstring (&p, end, &value, &value_len))
        return NULL;
      key = g_strndup (name, name_len);
      /* strictly ascending: no duplicate, and one text per table */
      if (previous != NULL && strcmp (previous, key) >= 0)
        {
          g_free (key);
          return NULL;
        }
      g_hash_table_insert (lowered, key, g_strndup (value, value_len));
      previous = key;
    }
  return g_steal_pointer (&lowered);
}

/* ---------------------------------------------------------- the directory */

char *
_gcuda_compile_cache_default_dir (void)
{
  const char *disable;
  const char *dir;

  /* A set-user-ID (or set-group-ID, or file-capability) process: its
   * invoker chooses the environment, GCUDA_CACHE_DIR and XDG_CACHE_HOME
   * (which g_get_user_cache_dir() reads) included, so a default directory
   * would be the invoker's choice of where the program reads code and
   * writes files. No default then: the on-disk cache is off, unless the
   * program itself sets GCudaCompiler:cache-dir. */
  if (_gcuda_is_secure_execution ())
    return NULL;
  /* the test _gcuda_secure_getenv() makes is the one just made: read
   * plainly (every compile comes here) */
  disable = g_getenv ("GCUDA_DISABLE_CACHE");
  dir = g_getenv ("GCUDA_CACHE_DIR");
  if (disable != NULL && *disable != '\0' && !g_str_equal (disable, "0"))
    return NULL;
  if (dir != NULL && *dir != '\0')
    return g_strdup (dir);
  return g_build_filename (g_get_user_cache_dir (), "gcuda", NULL);
}

/* A warning, once per process for each distinct message: a refused
 * directory is worth telling the user (their compiles are slower, or
 * someone is trying something), not on every compile. */
static void
warn_once (const char *message)
{
  static GMutex lock;
  static GHashTable *warned;
  gboolean first;

  g_mutex_lock (&lock);
  if (warned == NULL)
    warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  first = !g_hash_table_contains (warned, message) && g_hash_table_size (warned) < 256;
  if (first)
    g_hash_table_add (warned, g_strdup (message));
  g_mutex_unlock (&lock);
  if (first)
    g_warning ("%s", message);
  else
    g_debug ("%s", message);
}

/* The directories walked so far: each opened from the one before without
 * following a link, so the stack is the physical path. */
typedef struct {
  int    fd;
  uid_t  uid;
  mode_t mode;
  gsize  path_len;  /* of the physical path down to it */
} WalkDir;

#define MAX_SYMLINKS 40   /* the kernel's own limit */

static void
walk_push_path (GPtrArray  *todo,
                const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, "/", -1);

  /* @todo is a stack: its last element is the next component */
  for (guint n = g_strv_length (parts); n > 0; n--)
    if (*parts[n - 1] != '\0' && !g_str_equal (parts[n - 1], "."))
      g_ptr_array_add (todo, g_strdup (parts[n - 1]));
}

static void
walk_pop_to (GArray  *stack,
             GString *path,
             guint    len)
{
  while (stack->len > len)
    {
      close (g_array_index (stack, WalkDir, stack->len - 1).fd);
      g_array_set_size (stack, stack->len - 1);
    }
  g_string_truncate (path, g_array_index (stack, WalkDir, stack->len - 1).path_len);
}

static gboolean
walk_push_dir (GArray      *stack,
               GString     *path,
               int          fd,
               const char  *name)
{
  WalkDir d = { fd, 0, 0, 0 };
  struct stat st;

  if (fstat (fd, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      close (fd);
      return FALSE;
    }
  if (name != NULL)
    {
      if (path->len > 1)
        g_string_append_c (path, '/');
      g_string_append (path, name);
    }
  d.uid = st.st_uid;
  d.mode = st.st_mode;
  d.path_len = path->len;
  g_array_append_val (stack, d);
  return TRUE;
}

static void
refuse (GError     **error,
        int          code,
        const char  *dir,
        const char  *reason)
{
  g_set_error (error, G_IO_ERROR, code,
               _("The compile cache directory %s is not used (compiles go on without it): %s"),
               dir, reason);
}

/* Not safe (someone else could control it): a warning, which names what
 * to fix, besides the error. A directory that merely cannot be made or
 * opened (read-only, not a directory) is only the error, which the
 * compiler logs at debug level: the cache is an optimization. */
static void
refuse_unsafe (GError     **error,
               const char  *dir,
               const char  *reason)
{
  g_autofree char *message =
    g_strdup_printf (_("The compile cache directory %s is not used (compiles go on without it): %s"),
                     dir, reason);

  warn_once (message);
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, message);
}

/* The cache directory, opened, when it is safe to keep code in; else -1
 * with @error set (G_IO_ERROR_NOT_FOUND, and nothing created, when it does
 * not exist and @create is FALSE).
 *
 * What is safe. The entries are code this process will run, so no one but
 * the user (and root, who can do anything anyway) may be able to change
 * what the path leads to, not only the directory at its end. The walk:
 *
 *   - Starts at "/" (a relative path is taken from the current directory,
 *     as getcwd() gives it, which has no symlinks) and opens one component
 *     at a time with openat(O_NOFOLLOW | O_DIRECTORY) from the directory
 *     opened before it, checking what was opened with fstat(): nothing is
 *     looked up by path twice, so nothing can be swapped between a check
 *     and a use.
 *   - Every directory it goes through must be owned by root or the user,
 *     and not writable by group or others unless it is sticky (/tmp): in a
 *     directory others can write, they can rename any entry and put their
 *     own in its place; in a sticky one they cannot touch what is root's
 *     or the user's, which is all the walk accepts there.
 *   - A symbolic link is followed only when it is owned by root or the
 *     user (it lies in a directory the rule above accepted, so no one else
 *     can replace it): /home -> /usr/home, ~/.cache -> /scratch/me/cache,
 *     an XDG_CACHE_HOME with links in it, all work; a link another user
 *     made (in /tmp, or in a group-writable directory, which is refused
 *     anyway) is refused. Its target is walked by the same rules, "/" or
 *     relative to the link's directory; ".." goes back one directory of
 *     the physical path walked; at most 40 links.
 *   - The last directory must be the user's and mode 0700 exactly: no one
 *     else may read what the user compiles, or write there.
 *   - Missing directories (when @create) are made with mkdirat(0700),
 *     then opened with O_NOFOLLOW and checked like any other: one someone
 *     else made first (EEXIST) is then refused by its owner. The mode of a
 *     directory made here is set to 0700 whatever the umask (a umask that
 *     removed the owner's bits would leave it unusable); an existing
 *     directory's mode is never changed: it may be someone's choice.
 *
 * Refusals for safety are G_IO_ERROR_PERMISSION_DENIED, and a warning
 * (once per process and message). */
static int
open_cache_dir (const char  *dir,
                gboolean     create,
                GError     **error)
{
  uid_t me = geteuid ();  /* whom files are created as, and the owner to trust */
  g_autoptr(GPtrArray) todo = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (WalkDir));
  g_autoptr(GString) path = g_string_new ("/");
  g_autofree char *absolute = NULL;
  guint links = 0, retries = 0;
  int root_fd, fd = -1;

  if (dir == NULL || *dir == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("The compile cache directory is empty"));
      return -1;
    }
  if (g_path_is_absolute (dir))
    absolute = g_strdup (dir);
  else
    {
      g_autofree char *cwd = g_get_current_dir ();  /* getcwd(): no links in it */

      absolute = g_build_filename (cwd, dir, NULL);
    }
  walk_push_path (todo, absolute);

  root_fd = open ("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0 || !walk_push_dir (stack, path, root_fd, NULL))
    {
      int saved = errno;
      refuse (error, g_io_error_from_errno (saved), dir, g_strerror (saved));
      return -1;
    }

  while (todo->len > 0)
    {
      g_autofree char *name = g_ptr_array_steal_index (todo, todo->len - 1);
      const WalkDir *parent = &g_array_index (stack, WalkDir, stack->len - 1);
      gboolean created = FALSE;
      struct stat st;
      int saved;

      if (g_str_equal (name, ".."))
        {
          if (stack->len > 1)
            walk_pop_to (stack, path, stack->len - 1);
          continue;
        }

      /* Whoever can write the parent decides what the name is */
      if (parent->uid != me && parent->uid != 0)
        {
          g_autofree char *reason = g_strdup_printf (_("%s belongs to another user (uid %u)"),
                                                     path->str, (guint) parent->uid);
          refuse_unsafe (error, dir, reason);
          goto fail;
        }
      if ((parent->mode & (S_IWGRP | S_IWOTH)) != 0 && (parent->mode & S_ISVTX) == 0)
        {
          g_autofree char *reason =
            g_strdup_printf (_("%s can be written by other users (mode %04o); remove their write "
                               "permission, or choose another directory with GCUDA_CACHE_DIR"),
                             path->str, (guint) (parent->mode & 07777));
          refuse_unsafe (error, dir, reason);
          goto fail;
        }

      fd = openat (parent->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
      if (fd < 0 && errno == ENOENT && create && retries < 8)
        {
          if (mkdirat (parent->fd, name, 0700) == 0)
            created = TRUE;
          else if (errno != EEXIST)
            {
              saved = errno;
              g_autofree char *reason = g_strdup_printf (_("could not create %s/%s: %s"),
                                                         path->len > 1 ? path->str : "", name,
                                                         g_strerror (saved));
              refuse (error, g_io_error_from_errno (saved), dir, reason);
              goto fail;
            }
          /* made, or made by someone else meanwhile: open it either way,
           * without following a link put there in between */
          retries++;
          fd = openat (parent->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        }
      if (fd < 0 && (errno == ELOOP || errno == ENOTDIR || errno == EMLINK))
        {
          /* A symbolic link, or not a directory. O_PATH opens the link
           * itself: its owner and its text come from that one object. */
          int link_fd = openat (parent->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
          char target[4096];
          ssize_t n;

          if (link_fd < 0 || fstat (link_fd, &st) != 0)
            {
              saved = errno;
              if (link_fd >= 0)
                close (link_fd);
              refuse (error, g_io_error_from_errno (saved), dir, g_strerror (saved));
              goto fail;
            }
          if (!S_ISLNK (st.st_mode))
            {
              g_autofree char *reason = g_strdup_printf (_("%s/%s is not a directory"),
                                                         path->len > 1 ? path->str : "", name);
              close (link_fd);
              refuse (error, G_IO_ERROR_NOT_DIRECTORY, dir, reason);
              goto fail;
            }
          if (st.st_uid != me && st.st_uid != 0)
            {
              g_autofree char *reason =
                g_strdup_printf (_("%s/%s is a symbolic link owned by another user (uid %u)"),
                                 path->len > 1 ? path->str : "", name, (guint) st.st_uid);
              close (link_fd);
              refuse_unsafe (error, dir, reason);
              goto fail;
            }
          n = readlinkat (link_fd, "", target, sizeof target);
          saved = errno;
          close (link_fd);
          if (n <= 0 || (gsize) n >= sizeof target || ++links > MAX_SYMLINKS)
            {
              g_autofree char *reason = g_strdup_printf (_("%s/%s: %s"), path->len > 1 ? path->str : "", name,
                                                         n < 0 ? g_strerror (saved) : g_strerror (ELOOP));
              refuse (error, n < 0 ? g_io_error_from_errno (saved) : G_IO_ERROR_TOO_MANY_LINKS, dir, reason);
              goto fail;
            }
          target[n] = '\0';
          if (target[0] == '/')
            walk_pop_to (stack, path, 1);
          walk_push_path (todo, target);
          continue;
        }
      if (fd < 0)
        {
          saved = errno;
          if (saved == ENOENT && !create)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                         _("The compile cache directory %s does not exist"), dir);
          else
            {
              g_autofree char *reason = g_strdup_printf (_("%s/%s: %s"), path->len > 1 ? path->str : "",
                                                         name, g_strerror (saved));
              refuse (error, g_io_error_from_errno (saved), dir, reason);
            }
          goto fail;
        }
      if (!walk_push_dir (stack, path, fd, name))
        {
          fd = -1;
          refuse (error, G_IO_ERROR_NOT_DIRECTORY, dir, g_strerror (ENOTDIR));
          goto fail;
        }
      fd = -1;
      if (created)
        {
          WalkDir *made = &g_array_index (stack, WalkDir, stack->len - 1);

          if (made->uid == me && fchmod (made->fd, 0700) == 0)
            made->mode = S_IFDIR | 0700;
        }
      retries = 0;
    }

  /* The directory itself: the user's, and theirs alone (the permission
   * bits; a set-group-ID bit, which mkdir() inherits from a set-group-ID
   * parent, gives no one access) */
  {
    WalkDir *last = &g_array_index (stack, WalkDir, stack->len - 1);

    if (last->uid != me || (last->mode & 0777) != 0700)
      {
        g_autofree char *reason =
          g_strdup_printf (_("%s must be owned by the user (uid %u, not %u) and have mode 0700 (not %04o)"),
                           path->str, (guint) me, (guint) last->uid, (guint) (last->mode & 07777));
        refuse_unsafe (error, dir, reason);
        goto fail;
      }
    fd = last->fd;
    g_array_set_size (stack, stack->len - 1);  /* not closed below: returned */
  }
  for (guint i = 0; i < stack->len; i++)
    close (g_array_index (stack, WalkDir, i).fd);
  return fd;

fail:
  for (guint i = 0; i < stack->len; i++)
    close (g_array_index (stack, WalkDir, i).fd);
  return -1;
}

/* ------------------------------------------------------- in-process cache */

typedef struct {
  GBytes *image;
  char   *log;
  char   *lowered;   /* serialized, as on disk */
} CacheEntry;

static GMutex memory_lock;
static GHashTable *memory_cache;   /* key -> CacheEntry */
static gsize memory_bytes;

static void
cache_entry_free (CacheEntry *entry)
{
  g_bytes_unref (entry->image);
  g_free (entry->log);
  g_free (entry->lowered);
  g_free (entry);
}

static gsize
cache_entry_size (GBytes     *image,
                  const char *log,
                  const char *lowered)
{
  return g_bytes_get_size (image) + (log ? strlen (log) : 0) + (lowered ? strlen (lowered) : 0);
}

static void
memory_insert (const char *key,
               GBytes     *image,
               const char *log,
               const char *lowered)
{
  CacheEntry *entry;
  gsize size = cache_entry_size (image, log, lowered);

  if (size > MAX_MEMORY_BYTES)
    return;
  entry = g_new0 (CacheEntry, 1);
  entry->image = g_bytes_ref (image);
  entry->log = g_strdup (log);
  entry->lowered = g_strdup (lowered);

  g_mutex_lock (&memory_lock);
  if (memory_cache == NULL)
    memory_cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) cache_entry_free);
  /* Bounded, simply: when full, start over */
  if (memory_bytes + size > MAX_MEMORY_BYTES)
    {
      g_hash_table_remove_all (memory_cache);
      memory_bytes = 0;
    }
  {
    CacheEntry *old = g_hash_table_lookup (memory_cache, key);

    if (old != NULL)
      memory_bytes -= cache_entry_size (old->image, old->log, old->lowered);
  }
  g_hash_table_insert (memory_cache, g_strdup (key), entry);
  memory_bytes += size;
  g_mutex_unlock (&memory_lock);
}

static GBytes *
memory_lookup (const char  *key,
               char       **log_out,
               char       **lowered_out)
{
  GBytes *image = NULL;
  CacheEntry *entry;

  g_mutex_lock (&memory_lock);
  if (memory_cache != NULL && (entry = g_hash_table_lookup (memory_cache, key)) != NULL)
    {
      image = g_bytes_ref (entry->image);
      *log_out = g_strdup (entry->log);
      *lowered_out = g_strdup (entry->lowered);
    }
  g_mutex_unlock (&memory_lock);
  return image;
}

void
_gcuda_compile_cache_clear_memory (void)
{
  g_mutex_lock (&memory_lock);
  if (memory_cache != NULL)
    g_hash_table_remove_all (memory_cache);
  memory_bytes = 0;
  g_mutex_unlock (&memory_lock);
  /* the memoized keys too: a fresh process has none */
  _gcuda_compile_cache_clear_key_memo ();
}

/* ------------------------------------------------------------- disk entries */

static void
put_u32 (guint8  *p,
         guint32  v)
{
  v = GUINT32_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

static void
put_u64 (guint8  *p,
         guint64  v)
{
  v = GUINT64_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

static guint32
get_u32 (const guint8 *p)
{
  guint32 v;

  memcpy (&v, p, sizeof v);
  return GUINT32_FROM_LE (v);
}

static guint64
get_u64 (const guint8 *p)
{
  guint64 v;

  memcpy (&v, p, sizeof v);
  return GUINT64_FROM_LE (v);
}

static void
payload_digest (const guint8 *log,
                gsize         log_len,
                const guint8 *lowered,
                gsize         lowered_len,
                const guint8 *payload,
                gsize         payload_len,
                guint8        digest[32])
{
  g_autoptr(GChecksum) cs = g_checksum_new (G_CHECKSUM_SHA256);
  gsize digest_len = 32;

  if (log_len > 0)
    g_checksum_update (cs, log, log_len);
  if (lowered_len > 0)
    g_checksum_update (cs, lowered, lowered_len);
  if (payload_len > 0)
    g_checksum_update (cs, payload, payload_len);
  g_checksum_get_digest (cs, digest, &digest_len);
}

/* The header of an entry holding @log, @lowered (serialized) and @payload */
static void
entry_header (guint8        header[HEADER_SIZE],
              const char   *key,
              const char   *log,
              const char   *lowered,
              const guint8 *payload,
              gsize         payload_len)
{
  gsize log_len = log != NULL ? strlen (log) : 0;
  gsize lowered_len = lowered != NULL ? strlen (lowered) : 0;
  guint32 flags = (log != NULL ? FLAG_LOG : 0) | (lowered != NULL ? FLAG_LOWERED : 0);

  memset (header, 0, HEADER_SIZE);
  memcpy (header, MAGIC, MAGIC_LENGTH);
  put_u32 (header + 12, FORMAT_VERSION);
  put_u32 (header + 16, flags);
  memcpy (header + 20, key, KEY_LENGTH);
  put_u64 (header + 84, log_len);
  put_u64 (header + 92, lowered_len);
  put_u64 (header + 100, payload_len);
  payload_digest ((const guint8 *) log, log_len, (const guint8 *) lowered, lowered_len,
                  payload, payload_len, header + 108);
}

/* Parses and verifies an entry; on success returns the image (a view into
 * @file) and sets the strings (@lowered_out: serialized, and checked to
 * parse). Any doubt is a miss: the caller deletes the entry and NVRTC
 * compiles again, which costs time, never correctness. */
static GBytes *
parse_entry (GBytes      *file,
             const char  *key,
             char       **log_out,
             char       **lowered_out)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (file, &size);
  guint32 flags;
  guint64 log_len, lowered_len, payload_len;
  const guint8 *log, *lowered, *payload;
  guint8 digest[32];

  /* Magic and version: another format is not misread. The key inside: an
   * entry copied or renamed under another key's name is not served as that
   * compile's code. */
  if (size < HEADER_SIZE ||
      memcmp (data, MAGIC, MAGIC_LENGTH) != 0 ||
      get_u32 (data + 12) != FORMAT_VERSION ||
      memcmp (data + 20, key, KEY_LENGTH) != 0)
    return NULL;
  flags = get_u32 (data + 16);
  log_len = get_u64 (data + 84);
  lowered_len = get_u64 (data + 92);
  payload_len = get_u64 (data + 100);
  /* The lengths come from the file: each is bounded by the size first, so
   * their sum cannot wrap around, and the sum must be the size exactly, so
   * nothing is read past the end and nothing trails the payload. */
  if ((flags & ~(FLAG_LOG | FLAG_LOWERED)) != 0 ||
      (!(flags & FLAG_LOG) && log_len != 0) ||
      (!(flags & FLAG_LOWERED) && lowered_len != 0) ||
      log_len > size || lowered_len > size || payload_len > size ||
      HEADER_SIZE + log_len + lowered_len + payload_len != size)
    return NULL;
  log = data + HEADER_SIZE;
  lowered = log + log_len;
  payload = lowered + lowered_len;
  /* Damage, not tampering (see the top of the file): a torn or bit-rotten
   * entry is never loaded as code. */
  payload_digest (log, log_len, lowered, lowered_len, payload, payload_len, digest);
  if (memcmp (digest, data + 108, 32) != 0)
    return NULL;
  /* Both become C strings: an embedded NUL would cut them short silently.
   * The lowered names must be what the serializer writes. */
  if (memchr (log, '\0', log_len) != NULL || memchr (lowered, '\0', lowered_len) != NULL)
    return NULL;
  if (flags & FLAG_LOWERED)
    {
      g_autoptr(GHashTable) table = _gcuda_compile_cache_parse_lowered ((const char *) lowered, lowered_len);

      if (table == NULL)
        return NULL;
    }

  *log_out = (flags & FLAG_LOG) ? g_strndup ((const char *) log, log_len) : NULL;
  *lowered_out = (flags & FLAG_LOWERED) ? g_strndup ((const char *) lowered, lowered_len) : NULL;
  return g_bytes_new_from_bytes (file, payload - data, payload_len);
}

GBytes *
_gcuda_compile_cache_parse_entry (GBytes      *entry,
                                  const char  *key,
                                  char       **log_out,
                                  GHashTable **lowered_out)
{
  g_autofree char *log = NULL;
  g_autofree char *lowered = NULL;
  GBytes *image;

  g_return_val_if_fail (entry != NULL, NULL);
  g_return_val_if_fail (log_out != NULL && lowered_out != NULL, NULL);

  *log_out = NULL;
  *lowered_out = NULL;
  if (!_gcuda_compile_cache_is_valid_key (key))
    return NULL;
  image = parse_entry (entry, key, &log, &lowered);
  if (image != NULL)
    {
      *log_out = g_steal_pointer (&log);
      if (lowered != NULL)
        *lowered_out = _gcuda_compile_cache_parse_lowered (lowered, strlen (lowered));
    }
  return image;
}

GBytes *
_gcuda_compile_cache_build_entry (const char *key,
                                  GBytes     *image,
                                  const char *log,
                                  GHashTable *lowered)
{
  g_autofree char *lowered_text = _gcuda_compile_cache_serialize_lowered (lowered);
  gsize log_len = log != NULL ? strlen (log) : 0;
  gsize lowered_len = lowered_text != NULL ? strlen (lowered_text) : 0;
  gsize payload_len;
  const guint8 *payload = g_bytes_get_data (image, &payload_len);
  GByteArray *out;
  guint8 header[HEADER_SIZE];

  g_return_val_if_fail (_gcuda_compile_cache_is_valid_key (key), NULL);
  g_return_val_if_fail (image != NULL, NULL);

  entry_header (header, key, log, lowered_text, payload, payload_len);
  out = g_byte_array_sized_new (HEADER_SIZE + log_len + lowered_len + payload_len);
  g_byte_array_append (out, header, HEADER_SIZE);
  g_byte_array_append (out, (const guint8 *) log, log_len);
  g_byte_array_append (out, (const guint8 *) lowered_text, lowered_len);
  g_byte_array_append (out, payload, payload_len);
  return g_byte_array_free_to_bytes (out);
}

static gboolean
read_all (int      fd,
          guint8  *buf,
          gsize    len)
{
  gsize done = 0;

  while (done < len)
    {
      ssize_t n = read (fd, buf + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += n;
    }
  return TRUE;
}

static GBytes *
disk_lookup (const char  *dir,
             const char  *key,
             char       **log_out,
             char       **lowered_out)
{
  g_autofree char *name = g_strconcat (key, ".bin", NULL);
  g_autoptr(GBytes) file = NULL;
  g_autoptr(GError) error = NULL;
  GBytes *image = NULL;
  struct stat st;
  guint8 *buf;
  int dir_fd, fd;
  gboolean corrupt = TRUE;

  dir_fd = open_cache_dir (dir, FALSE, &error);
  if (dir_fd < 0)
    {
      /* no directory yet is the first compile's normal case; an unsafe
       * one was warned about */
      g_debug ("compile cache lookup: %s", error->message);
      return NULL;
    }

  /* Nofollow: a symlink in the entry's place is not followed to a file
   * elsewhere (and, not being a regular file, is never deleted either). A
   * FIFO there is opened without waiting and refused, from fstat() of what
   * was opened, not of the name: no race between check and read. */
  fd = _gcuda_file_open_regular (dir_fd, name, TRUE, &st, &error);
  if (fd < 0)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_debug ("compile cache entry %s/%s ignored: %s", dir, name, error->message);
      close (dir_fd);
      return NULL;
    }
  /* Another user's file (root's: no one else can create files in a
   * directory that is the user's and 0700) could be anyone's code. */
  if (st.st_uid != geteuid ())
    {
      g_debug ("compile cache entry %s/%s ignored: not the user's", dir, name);
      close (fd);
      close (dir_fd);
      return NULL;
    }

  /* The whole entry is read into memory: bounded (no entry this writes is
   * larger, so a larger file is damage), and allocated with
   * g_try_malloc(), so that a machine short of memory gets a miss (and a
   * compile) rather than an abort. A failed allocation says nothing about
   * the entry: it is kept. */
  if (st.st_size >= HEADER_SIZE && (guint64) st.st_size <= MAX_ENTRY_BYTES)
    {
      buf = g_try_malloc (st.st_size);
      if (buf == NULL)
        {
          g_debug ("compile cache entry %s/%s not read: out of memory", dir, name);
          corrupt = FALSE;
        }
      else if (!read_all (fd, buf, st.st_size))
        g_free (buf);
      else
        {
          file = g_bytes_new_take (buf, st.st_size);
          image = parse_entry (file, key, log_out, lowered_out);
          corrupt = image == NULL;
        }
    }

  if (image != NULL)
    {
      /* The LRU clock (see upkeep()): a hit makes the entry the newest. A
       * failure (a read-only file system) only makes eviction less exact. */
      const struct timespec times[2] = { { 0, UTIME_OMIT }, { 0, UTIME_NOW } };

      futimens (fd, times);
    }
  else if (corrupt)
    {
      struct stat now;

      /* Corrupt: delete it (else it fails on every run), unless another
       * writer has just renamed a good entry over it: same inode or hands
       * off. unlinkat() removes the name only; our descriptor stays valid. */
      g_debug ("compile cache entry %s/%s is damaged: deleted", dir, name);
      if (fstatat (dir_fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
          now.st_dev == st.st_dev && now.st_ino == st.st_ino)
        unlinkat (dir_fd, name, 0);
    }
  close (fd);
  close (dir_fd);
  return image;
}

/* ------------------------------------------------------------------ upkeep */

gboolean
_gcuda_compile_cache_parse_size (const char *text,
                                 guint64    *size_out)
{
  const char *p = text;
  guint64 n = 0, unit = 1;

  if (text == NULL || !g_ascii_isdigit (*p))
    return FALSE;
  for (; g_ascii_isdigit (*p); p++)
    {
      guint64 digit = (guint64) (*p - '0');

      if (n > (G_MAXUINT64 - digit) / 10)
        return FALSE;
      n = n * 10 + digit;
    }
  switch (g_ascii_toupper (*p))
    {
    case '\0':
      break;
    case 'K': unit = G_GUINT64_CONSTANT (1) << 10; p++; break;
    case 'M': unit = G_GUINT64_CONSTANT (1) << 20; p++; break;
    case 'G': unit = G_GUINT64_CONSTANT (1) << 30; p++; break;
    case 'T': unit = G_GUINT64_CONSTANT (1) << 40; p++; break;
    default:
      return FALSE;
    }
  if (*p != '\0' && (unit == 1 || !g_str_equal (p, "iB")))
    return FALSE;
  if (n > G_MAXUINT64 / unit)
    return FALSE;
  *size_out = n * unit;
  return TRUE;
}

/* GCUDA_CACHE_MAX_SIZE, else the default. Read at each store: cheap, and a
 * test (or a long-lived process) may change it. */
static guint64
cache_max_size (void)
{
  const char *value = _gcuda_secure_getenv ("GCUDA_CACHE_MAX_SIZE");
  guint64 size;

  if (value == NULL || *value == '\0')
    return DEFAULT_MAX_SIZE;
  if (!_gcuda_compile_cache_parse_size (value, &size))
    {
      g_autofree char *message =
        g_strdup_printf (_("GCUDA_CACHE_MAX_SIZE=“%s” is not a size (bytes, or a number with K, M, G "
                           "or T for KiB, MiB, GiB or TiB): the default, 1 GiB, is used"), value);
      warn_once (message);
      return DEFAULT_MAX_SIZE;
    }
  return size;
}

/* "<key>.bin": what lookups open and eviction may delete */
static gboolean
is_entry_name (const char *name)
{
  return strlen (name) == KEY_LENGTH + 4 && g_str_has_suffix (name, ".bin") &&
         strspn (name, "0123456789abcdef") == KEY_LENGTH;
}

/* ".<key>.<pid>.<8 hex>.tmp": disk_store()'s temporary files, and nothing
 * else, are what stale-file removal may delete */
static gboolean
is_tmp_name (const char *name)
{
  const char *p = name;
  gsize n;

  if (*p++ != '.' || strspn (p, "0123456789abcdef") != KEY_LENGTH)
    return FALSE;
  p += KEY_LENGTH;
  if (*p++ != '.' || (n = strspn (p, "0123456789")) == 0 || n > 10)
    return FALSE;
  p += n;
  if (*p++ != '.' || strspn (p, "0123456789abcdef") != 8)
    return FALSE;
  return g_str_equal (p + 8, ".tmp");
}

typedef struct {
  char    *name;
  guint64  size;
  gint64   mtime_sec;
  long     mtime_nsec;
  ino_t    ino;
} Candidate;

static void
candidate_clear (Candidate *c)
{
  g_free (c->name);
}

static int
compare_candidates (gconstpointer a,
                    gconstpointer b)
{
  const Candidate *x = a, *y = b;

  if (x->mtime_sec != y->mtime_sec)
    return x->mtime_sec < y->mtime_sec ? -1 : 1;
  if (x->mtime_nsec != y->mtime_nsec)
    return x->mtime_nsec < y->mtime_nsec ? -1 : 1;
  return strcmp (x->name, y->name);
}

/* Keeps the directory within @max_size and free of dead temporary files;
 * run after each store, with @keep_name (the entry just written) kept.
 *
 * The size is the sum of the entries' sizes ("<key>.bin", regular files of
 * the user's; anything else in the directory is neither counted nor
 * touched). The LRU clock is each entry's mtime: set when it is written,
 * set again (futimens()) at each disk hit; so when over the cap, the
 * entries least recently stored or loaded are deleted first, until the
 * total fits.
 *
 * With other processes at work:
 *   - One upkeep at a time: under flock() of the directory, tried
 *     without blocking for up to LOCK_WAIT_USEC; a process that cannot
 *     get it skips upkeep (the holder is doing it; the next store does it
 *     again), so no one ever waits for long on another.
 *   - Every store runs upkeep after its rename, and upkeep lists the
 *     directory after taking the lock, so the last upkeep to run sees
 *     every entry renamed before it: once stores stop, the total is within
 *     the cap (unless an upkeep gave up on the lock).
 *   - A writer's file is a temporary until its rename, never an eviction
 *     candidate; a reader holding an entry open keeps reading it after it
 *     is deleted (only the name goes).
 *   - Each entry is looked at again just before it is deleted: one
 *     replaced (another inode) or used (another mtime) since the listing
 *     is kept. What is left, a rename or a hit in the instant between that
 *     look and unlinkat(), costs one compile, never a wrong result: every
 *     entry read is verified.
 *   - Temporary files are deleted when older than STALE_TMP_SECONDS
 *     (their mtime is their writer's last write): a killed writer's, not a
 *     live one's; and only regular files of the user's with disk_store()'s
 *     naming pattern. */
static void
upkeep (int         dir_fd,
        const char *keep_name,
        guint64     max_size)
{
  g_autoptr(GArray) candidates = g_array_new (FALSE, FALSE, sizeof (Candidate));
  uid_t me = geteuid ();
  gint64 deadline;
  guint64 total = 0;
  struct stat st;
  struct dirent *ent;
  DIR *listing;
  int list_fd;

  g_array_set_clear_func (candidates, (GDestroyNotify) candidate_clear);

  /* The directory itself is the lock: no file of its own to manage. Busy:
   * tried again until LOCK_WAIT_USEC, then skipped. Not supported (NFS
   * without write access to the descriptor, say): upkeep runs unlocked,
   * which is safe, only perhaps redundant (deleting an entry never costs
   * more than a compile). */
  deadline = g_get_monotonic_time () + LOCK_WAIT_USEC;
  while (flock (dir_fd, LOCK_EX | LOCK_NB) != 0)
    {
      if (errno == EINTR)
        continue;
      if (errno != EWOULDBLOCK)
        {
          g_debug ("compile cache upkeep without a lock: %s", g_strerror (errno));
          break;
        }
      if (g_get_monotonic_time () >= deadline)
        {
          g_debug ("compile cache upkeep skipped: another process holds the lock");
          return;
        }
      g_usleep (5000);
    }

  list_fd = openat (dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  listing = list_fd >= 0 ? fdopendir (list_fd) : NULL;
  if (listing == NULL)
    {
      if (list_fd >= 0)
        close (list_fd);
      flock (dir_fd, LOCK_UN);
      return;
    }
  while ((ent = readdir (listing)) != NULL)
    {
      gboolean entry = is_entry_name (ent->d_name);

      if (!entry && !is_tmp_name (ent->d_name))
        continue;
      if (fstatat (dir_fd, ent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
          !S_ISREG (st.st_mode) || st.st_uid != me)
        continue;
      if (entry)
        {
          Candidate c = { g_strdup (ent->d_name), (guint64) st.st_size,
                          (gint64) st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ino };

          g_array_append_val (candidates, c);
          total += (guint64) st.st_size;
        }
      else if ((gint64) st.st_mtim.tv_sec < g_get_real_time () / G_USEC_PER_SEC - STALE_TMP_SECONDS)
        {
          g_debug ("compile cache: deleting the stale temporary file %s", ent->d_name);
          unlinkat (dir_fd, ent->d_name, 0);
        }
    }
  closedir (listing);

  if (total > max_size)
    {
      g_array_sort (candidates, compare_candidates);
      for (guint i = 0; i < candidates->len && total > max_size; i++)
        {
          const Candidate *c = &g_array_index (candidates, Candidate, i);

          if (g_str_equal (c->name, keep_name))
            continue;
          if (fstatat (dir_fd, c->name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
              !S_ISREG (st.st_mode) || st.st_uid != me)
            total -= c->size;  /* gone since the listing (another upkeep) */
          else if (st.st_ino != c->ino ||
                   (gint64) st.st_mtim.tv_sec != c->mtime_sec || st.st_mtim.tv_nsec != c->mtime_nsec)
            total = total - c->size + (guint64) st.st_size;  /* rewritten or used since: kept */
          else if (unlinkat (dir_fd, c->name, 0) == 0)
            {
              g_debug ("compile cache: evicted %s", c->name);
              total -= c->size;
            }
        }
    }
  flock (dir_fd, LOCK_UN);
}

static gboolean
write_all (int           fd,
           const guint8 *buf,
           gsize         len)
{
  gsize done = 0;

  while (done < len)
    {
      ssize_t n = write (fd, buf + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += n;
    }
  return TRUE;
}

static gboolean
disk_store (const char  *dir,
            const char  *key,
            GBytes      *image,
            const char  *log,
            const char  *lowered,
            GError     **error)
{
  g_autofree char *name = g_strconcat (key, ".bin", NULL);
  g_autofree char *tmp_name = NULL;
  guint8 header[HEADER_SIZE];
  gsize payload_len;
  const guint8 *payload = g_bytes_get_data (image, &payload_len);
  gsize log_len = log != NULL ? strlen (log) : 0;
  gsize lowered_len = lowered != NULL ? strlen (lowered) : 0;
  guint64 entry_size = (guint64) HEADER_SIZE + log_len + lowered_len + payload_len;
  guint64 max_size = cache_max_size ();
  int dir_fd, fd = -1, saved;
  gboolean ok;

  /* What upkeep would delete at once, or lookups refuse to read, is not
   * written at all. */
  if (entry_size > MAX_ENTRY_BYTES || entry_size > max_size)
    {
      char size_text[32], limit_text[32];

      g_snprintf (size_text, sizeof size_text, "%" G_GUINT64_FORMAT, entry_size);
      g_snprintf (limit_text, sizeof limit_text, "%" G_GUINT64_FORMAT, MIN (MAX_ENTRY_BYTES, max_size));
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   _("The compile result (%s bytes) is larger than the compile cache takes (%s bytes; "
                     "see GCUDA_CACHE_MAX_SIZE)"), size_text, limit_text);
      return FALSE;
    }

  /* The same checks as for reading: code written where others can write
   * could be swapped before it is read back. */
  dir_fd = open_cache_dir (dir, TRUE, error);
  if (dir_fd < 0)
    return FALSE;

  entry_header (header, key, log, lowered, payload, payload_len);

  /* The temporary file: in the cache directory itself, since rename() is
   * atomic only within one file system; hidden (lookups open "<key>.bin"
   * only); named unpredictably (pid, random) and recognizably (upkeep()
   * deletes stale ones by this pattern); O_EXCL | O_NOFOLLOW, so the
   * write never goes into an existing file or through a planted link;
   * 0600, readable by the user alone. A name taken (EEXIST) is tried
   * again. */
  for (guint attempt = 0; attempt < 100 && fd < 0; attempt++)
    {
      g_free (tmp_name);
      tmp_name = g_strdup_printf (".%s.%u.%08x.tmp", key, (guint) getpid (), g_random_int ());
      fd = openat (dir_fd, tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (fd < 0 && errno != EEXIST)
        break;
    }
  if (fd < 0)
    {
      saved = errno;
      close (dir_fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not write to the compile cache directory %s: %s"), dir, g_strerror (saved));
      return FALSE;
    }

  ok = write_all (fd, header, HEADER_SIZE) &&
       write_all (fd, (const guint8 *) log, log_len) &&
       write_all (fd, (const guint8 *) lowered, lowered_len) &&
       write_all (fd, payload, payload_len);
  saved = errno;
  if (close (fd) != 0 && ok)
    {
      ok = FALSE;
      saved = errno;
    }
  /* Atomic: a reader opens the old entry or the whole new one, never a
   * part; concurrent writers of one key each rename a complete file, and
   * the last one stays. rename() replaces a link in the entry's place
   * without following it. */
  if (ok && renameat (dir_fd, tmp_name, dir_fd, name) != 0)
    {
      ok = FALSE;
      saved = errno;
    }
  if (!ok)
    {
      unlinkat (dir_fd, tmp_name, 0);  /* no litter in the directory */
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not write the compile cache entry %s/%s: %s"), dir, name,
                   saved != 0 ? g_strerror (saved) : _("short write"));
    }
  else
    upkeep (dir_fd, name, max_size);
  close (dir_fd);
  return ok;
}

/* ------------------------------------------------------------ the interface */

GBytes *
_gcuda_compile_cache_lookup (const char   *dir,
                             const char   *key,
                             char        **log_out,
                             GHashTable  **lowered_out)
{
  g_autofree char *log = NULL;
  g_autofree char *lowered = NULL;
  GBytes *image;

  if (log_out != NULL)
    *log_out = NULL;
  if (lowered_out != NULL)
    *lowered_out = NULL;
  if (!_gcuda_compile_cache_is_valid_key (key))
    return NULL;

  image = memory_lookup (key, &log, &lowered);
  if (image == NULL && dir != NULL && *dir != '\0')
    {
      image = disk_lookup (dir, key, &log, &lowered);
      if (image != NULL)
        memory_insert (key, image, log, lowered);
    }
  if (image != NULL)
    {
      if (log_out != NULL)
        *log_out = g_steal_pointer (&log);
      /* it parsed when it was stored or read: it parses again */
      if (lowered_out != NULL && lowered != NULL)
        *lowered_out = _gcuda_compile_cache_parse_lowered (lowered, strlen (lowered));
    }
  return image;
}

gboolean
_gcuda_compile_cache_store (const char  *dir,
                            const char  *key,
                            GBytes      *image,
                            const char  *log,
                            GHashTable  *lowered,
                            GError     **error)
{
  g_autofree char *lowered_text = NULL;

  g_return_val_if_fail (image != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!_gcuda_compile_cache_is_valid_key (key))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("“%s” is not a compile cache key"), key != NULL ? key : "(null)");
      return FALSE;
    }

  lowered_text = _gcuda_compile_cache_serialize_lowered (lowered);
  memory_insert (key, image, log, lowered_text);
  if (dir == NULL || *dir == '\0')
    return TRUE;
  return disk_store (dir, key, image, log, lowered_text, error);
}
