/* gcuda-compile-cache-private.c: the on-disk and in-process cache of compiled programs
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
 * The key
 *   A SHA-256 over length-prefixed, tagged fields: a format tag, the program
 *   name, source, options, include dirs, in-memory headers (sorted by name),
 *   name expressions, target, the NVRTC library's file identity, and the
 *   result of following every #include (and __has_include) from the source:
 *   for each directive, the canonical path of every file it could resolve
 *   to, or a "missing" record; and the content of every such file, itself
 *   scanned in turn. Resolution is a superset of NVRTC's: a directive
 *   records every match in every directory it could be searched in, not
 *   only the first, so no search-order subtlety can make a key stale.
 *
 *   Headers under the toolkit's include directory are recorded by file
 *   identity (path, size, mtime: see hash_stat()) and not read or
 *   followed: NVRTC ships those headers built in (its own identity is in
 *   the key), and reading cuda_runtime.h's closure would cost more than a
 *   cache hit may.
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
#include "gcuda-compile-cache-private.h"
#include "gcuda-env-private.h"
#include "gcuda-nvrtc-private.h"
#include "gcuda-std-headers-private.h"

/* Both changed with format 2 (the lowered names' encoding): entries of
 * another format have other file names, so two GCuda versions sharing a
 * directory do not delete each other's entries as corrupt. */
#define KEY_TAG             "gcuda-compile-cache-key-2"
#define FORMAT_VERSION      2u
#define KEY_LENGTH          64
#define MAGIC               "GCUDA-CACHE"   /* with its NUL: 12 bytes */
#define MAGIC_LENGTH        12
#define HEADER_SIZE         140
#define FLAG_LOG            1u
#define FLAG_LOWERED        2u
#define MAX_INCLUDE_BYTES   ((gsize) 64 * 1024 * 1024)
#define MAX_ENTRY_BYTES     ((guint64) 512 * 1024 * 1024)   /* docs/kernels.md */
#define MAX_MEMORY_BYTES    ((gsize) 512 * 1024 * 1024)
#define DEFAULT_MAX_SIZE    ((guint64) 1024 * 1024 * 1024)  /* GCUDA_CACHE_MAX_SIZE */
#define STALE_TMP_SECONDS   3600
#define LOCK_WAIT_USEC      (2 * G_USEC_PER_SEC)

G_STATIC_ASSERT (sizeof MAGIC == MAGIC_LENGTH);

/* ------------------------------------------------------------------ hashing */

static void
hash_field (GChecksum  *cs,
            const char *tag,
            const void *data,
            gsize       len)
{
  guint64 n = GUINT64_TO_LE ((guint64) len);

  g_checksum_update (cs, (const guchar *) tag, strlen (tag) + 1);
  g_checksum_update (cs, (const guchar *) &n, sizeof n);
  if (len > 0)
    g_checksum_update (cs, data, len);
}

/* NULL and "" hash differently */
static void
hash_string (GChecksum  *cs,
             const char *tag,
             const char *s)
{
  if (s == NULL)
    {
      g_autofree char *null_tag = g_strconcat (tag, "(null)", NULL);
      hash_field (cs, null_tag, NULL, 0);
    }
  else
    hash_field (cs, tag, s, strlen (s));
}

static void
hash_strv (GChecksum          *cs,
           const char         *tag,
           const char * const *strv)
{
  guint n = strv != NULL ? g_strv_length ((char **) strv) : 0;
  guint64 n_le = GUINT64_TO_LE ((guint64) n);

  hash_field (cs, tag, &n_le, sizeof n_le);
  for (guint i = 0; i < n; i++)
    hash_string (cs, tag, strv[i]);
}

static void
hash_stat (GChecksum         *cs,
           const char        *tag,
           const char        *canonical,
           const struct stat *st)
{
  /* Not the inode or device: those change when a container's overlay is
   * mounted again, and a file rewritten with the same size and the same
   * nanosecond mtime is not a case worth a miss on every start. */
  g_autofree char *identity =
    g_strdup_printf ("%s size=%" G_GUINT64_FORMAT " mtime=%" G_GINT64_FORMAT ".%09ld",
                     canonical, (guint64) st->st_size, (gint64) st->st_mtim.tv_sec,
                     (long) st->st_mtim.tv_nsec);

  hash_string (cs, tag, identity);
}

/* The key becomes a file name: exactly 64 lower-case hex digits, so that
 * no key (they come from callers too) can name "../elsewhere", a hidden
 * temporary file or anything but "<key>.bin" in the cache directory. */
static gboolean
is_valid_key (const char *key)
{
  if (key == NULL)
    return FALSE;
  for (guint i = 0; i < KEY_LENGTH; i++)
    if (!((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f')))
      return FALSE;
  return key[KEY_LENGTH] == '\0';
}

/* ------------------------------------------------------- what a key read
 *
 * The in-process memo of keys (see _gcuda_compile_cache_key()) needs, for
 * each key, what computing it looked at on disk: every path it stat()ed,
 * with what stat() said. A path that exists is recorded with its identity
 * (device, inode, mode, size, mtime and ctime in nanoseconds): a file
 * rewritten, replaced, renamed over or touched has another one (ctime
 * cannot be set back). A path that does not exist (ENOENT, ENOTDIR) is
 * recorded as its nearest existing ancestor directory's identity: creating
 * it there changes that directory's mtime and ctime. */

typedef struct {
  char   *path;
  int     err;        /* stat()'s errno, 0 when it succeeded */
  dev_t   dev;
  ino_t   ino;
  mode_t  mode;
  off_t   size;
  gint64  mtime_ns;
  gint64  ctime_ns;
} Dep;

typedef struct {
  GArray     *deps;       /* Dep */
  GHashTable *seen;       /* paths recorded */
  gint64      start_ns;   /* CLOCK_REALTIME when the key computation began */
  gboolean    racy;       /* a recorded time too recent to trust */
} DepRecorder;

/* Timestamps within this much of the computation's start are not trusted:
 * a file's times have the granularity of its file system (a clock tick on
 * most, a second or two on some), so an edit right after it was read can
 * leave every field of its identity as it was. Such a key is not memoized
 * (until its files are older): racy-git's rule. */
static gint64 racy_margin_ns = 2 * G_GINT64_CONSTANT (1000000000);

static gint64
timespec_ns (const struct timespec *ts)
{
  return (gint64) ts->tv_sec * G_GINT64_CONSTANT (1000000000) + ts->tv_nsec;
}

static void
dep_clear (Dep *dep)
{
  g_free (dep->path);
}

static void
dep_fill (Dep               *dep,
          int                err,
          const struct stat *st)
{
  dep->err = err;
  if (err == 0)
    {
      dep->dev = st->st_dev;
      dep->ino = st->st_ino;
      dep->mode = st->st_mode;
      /* a directory's size says nothing its times do not */
      dep->size = S_ISDIR (st->st_mode) ? 0 : st->st_size;
      dep->mtime_ns = timespec_ns (&st->st_mtim);
      dep->ctime_ns = timespec_ns (&st->st_ctim);
    }
}

static gboolean
dep_equal (const Dep *a,
           const Dep *b)
{
  if (a->err != b->err)
    return FALSE;
  return a->err != 0 ||
         (a->dev == b->dev && a->ino == b->ino && a->mode == b->mode && a->size == b->size &&
          a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns);
}

static void
dep_recorder_init (DepRecorder *rec)
{
  struct timespec now;

  rec->deps = g_array_new (FALSE, TRUE, sizeof (Dep));
  g_array_set_clear_func (rec->deps, (GDestroyNotify) dep_clear);
  rec->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  clock_gettime (CLOCK_REALTIME, &now);
  rec->start_ns = timespec_ns (&now);
  rec->racy = FALSE;
}

static void
dep_recorder_clear (DepRecorder *rec)
{
  g_clear_pointer (&rec->deps, g_array_unref);
  g_clear_pointer (&rec->seen, g_hash_table_unref);
}

static void
dep_add (DepRecorder       *rec,
         const char        *path,
         int                err,
         const struct stat *st)
{
  Dep dep = { 0 };

  if (g_hash_table_contains (rec->seen, path))
    return;
  g_hash_table_add (rec->seen, g_strdup (path));
  dep.path = g_strdup (path);
  dep_fill (&dep, err, st);
  if (err == 0 && MAX (dep.mtime_ns, dep.ctime_ns) > rec->start_ns - racy_margin_ns)
    rec->racy = TRUE;
  g_array_append_val (rec->deps, dep);
}

/* stat() of @path, recorded in @rec (nullable); errno is kept */
static int
dep_stat (DepRecorder *rec,
          const char  *path,
          struct stat *st)
{
  int rc = stat (path, st);
  int saved = errno;

  if (rec == NULL)
    ;
  else if (rc == 0 || (saved != ENOENT && saved != ENOTDIR))
    dep_add (rec, path, rc == 0 ? 0 : saved, st);
  else
    {
      /* missing: the nearest ancestor that is not */
      g_autofree char *dir = g_strdup (path);

      for (;;)
        {
          char *parent = g_path_get_dirname (dir);
          struct stat dst;
          int drc;

          if (g_str_equal (parent, dir))
            {
              g_free (parent);
              dep_add (rec, dir, saved, st);  /* "/" or "." missing: recorded as is */
              break;
            }
          g_free (dir);
          dir = parent;
          drc = stat (dir, &dst);
          if (drc == 0 || (errno != ENOENT && errno != ENOTDIR))
            {
              dep_add (rec, dir, drc == 0 ? 0 : errno, &dst);
              break;
            }
        }
    }
  errno = saved;
  return rc;
}

/* ------------------------------------------------------------ NVRTC identity */

static void
add_dir (GPtrArray  *dirs,
         const char *dir)
{
  if (dir == NULL || *dir == '\0')
    dir = ".";  /* as the dynamic loader reads an empty LD_LIBRARY_PATH entry */
  for (guint i = 0; i < dirs->len; i++)
    if (g_str_equal (dirs->pdata[i], dir))
      return;
  g_ptr_array_add (dirs, g_strdup (dir));
}

static void parse_ld_so_conf (GPtrArray *dirs, const char *path, guint depth);

static void
parse_ld_so_conf_glob (GPtrArray  *dirs,
                       const char *conf_dir,
                       const char *pattern,
                       guint       depth)
{
  g_autofree char *full = g_path_is_absolute (pattern)
    ? g_strdup (pattern) : g_build_filename (conf_dir, pattern, NULL);
  glob_t g;

  if (glob (full, 0, NULL, &g) == 0)
    {
      for (gsize i = 0; i < g.gl_pathc; i++)
        parse_ld_so_conf (dirs, g.gl_pathv[i], depth + 1);
    }
  globfree (&g);
}

/* The directories of /etc/ld.so.conf (and what it includes): the
 * directories ldconfig puts in the loader's cache. */
static void
parse_ld_so_conf (GPtrArray  *dirs,
                  const char *path,
                  guint       depth)
{
  g_autofree char *text = NULL;
  g_autofree char *conf_dir = NULL;
  g_auto(GStrv) lines = NULL;

  if (depth > 8 || !g_file_get_contents (path, &text, NULL, NULL))
    return;
  conf_dir = g_path_get_dirname (path);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = lines[i];
      char *hash = strchr (line, '#');

      if (hash != NULL)
        *hash = '\0';
      g_strstrip (line);
      if (g_str_has_prefix (line, "include") && g_ascii_isspace (line[7]))
        {
          g_auto(GStrv) patterns = g_strsplit_set (line + 7, " \t", -1);

          for (guint j = 0; patterns[j] != NULL; j++)
            if (*patterns[j] != '\0')
              parse_ld_so_conf_glob (dirs, conf_dir, patterns[j], depth);
        }
      else if (line[0] == '/')
        {
          /* "dir=TYPE" and "dir:TYPE" are old hwcap forms */
          line[strcspn (line, " \t=:")] = '\0';
          add_dir (dirs, line);
        }
    }
}

/* Where a bare library name may be found: the dynamic loader's order
 * (LD_LIBRARY_PATH, ld.so.conf, the default directories), then the toolkit
 * GCuda was built with. Every match in every one is recorded. */
static GPtrArray *
library_search_dirs (void)
{
  static GPtrArray *conf_dirs;
  static gsize once;
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  /* The loader ignores it in a secure-execution process: so does the key */
  const char *ld_library_path = _gcuda_secure_getenv ("LD_LIBRARY_PATH");
  static const char * const defaults[] = {
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
    "/lib", "/usr/lib", GCUDA_TOOLKIT_LIB_DIR, "/usr/local/cuda/lib64",
  };

  if (g_once_init_enter (&once))
    {
      GPtrArray *found = g_ptr_array_new_with_free_func (g_free);

      parse_ld_so_conf (found, "/etc/ld.so.conf", 0);
      conf_dirs = found;
      g_once_init_leave (&once, 1);
    }

  if (ld_library_path != NULL && *ld_library_path != '\0')
    {
      g_auto(GStrv) parts = g_strsplit_set (ld_library_path, ":;", -1);

      for (guint i = 0; parts[i] != NULL; i++)
        add_dir (dirs, parts[i]);
    }
  for (guint i = 0; i < conf_dirs->len; i++)
    add_dir (dirs, conf_dirs->pdata[i]);
  for (guint i = 0; i < G_N_ELEMENTS (defaults); i++)
    add_dir (dirs, defaults[i]);
  return dirs;
}

typedef struct {
  GChecksum   *cs;
  GHashTable  *seen;    /* canonical paths already hashed */
  gboolean     found;
  DepRecorder *rec;     /* nullable */
} NvrtcIdentity;

static void
add_library_file (NvrtcIdentity *id,
                  const char    *path)
{
  g_autofree char *canonical = NULL;
  g_autofree char *base = NULL;
  struct stat st;

  /* stat() first: most candidates do not exist, and it is one system call */
  if (dep_stat (id->rec, path, &st) != 0 || !S_ISREG (st.st_mode))
    return;
  canonical = realpath (path, NULL);
  if (canonical == NULL || dep_stat (id->rec, canonical, &st) != 0 || !S_ISREG (st.st_mode))
    return;
  if (g_hash_table_contains (id->seen, canonical))
    return;
  hash_stat (id->cs, "nvrtc", canonical, &st);
  id->found = TRUE;

  /* libnvrtc.so.X.Y.Z opens libnvrtc-builtins.so.X.Y, beside it, at run time */
  base = g_path_get_basename (canonical);
  if (g_str_has_prefix (base, "libnvrtc.so."))
    {
      g_auto(GStrv) parts = g_strsplit (base + strlen ("libnvrtc.so."), ".", 3);

      if (parts[0] != NULL && parts[1] != NULL)
        {
          g_autofree char *dir = g_path_get_dirname (canonical);
          g_autofree char *name = g_strdup_printf ("libnvrtc-builtins.so.%s.%s", parts[0], parts[1]);
          g_autofree char *builtins = g_build_filename (dir, name, NULL);
          g_autofree char *builtins_canonical = realpath (builtins, NULL);
          struct stat bst;

          /* recorded by the name it is looked for as: it may appear */
          if (dep_stat (id->rec, builtins, &bst) == 0 &&
              builtins_canonical != NULL && dep_stat (id->rec, builtins_canonical, &bst) == 0 &&
              !g_hash_table_contains (id->seen, builtins_canonical))
            {
              hash_stat (id->cs, "nvrtc-builtins", builtins_canonical, &bst);
              g_hash_table_add (id->seen, g_steal_pointer (&builtins_canonical));
            }
        }
    }
  g_hash_table_add (id->seen, g_steal_pointer (&canonical));
}

static int
find_loaded_nvrtc (struct dl_phdr_info *info,
                   size_t               size,
                   void                *data)
{
  GPtrArray *loaded = data;
  const char *name = info->dlpi_name;
  const char *base;

  if (name == NULL || *name == '\0')
    return 0;
  base = strrchr (name, '/');
  base = base != NULL ? base + 1 : name;
  if (g_str_has_prefix (base, "libnvrtc.so") || g_str_has_prefix (base, "libnvrtc.alt.so"))
    g_ptr_array_add (loaded, g_strdup (name));
  return 0;
}

/* Hashes what identifies the NVRTC library a compile would use, without
 * loading it: every file the loader could open for each candidate name,
 * and any NVRTC already loaded in the process from elsewhere. Falls back
 * to loading NVRTC (and hashing its version and path) when no file is
 * found. FALSE when there is no NVRTC at all. */
static gboolean
hash_nvrtc_identity (GChecksum   *cs,
                     DepRecorder *rec)
{
  const char * const *candidates = _gcuda_nvrtc_candidates ();
  g_autoptr(GPtrArray) dirs = NULL;
  g_autoptr(GPtrArray) loaded = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  NvrtcIdentity id = { cs, seen, FALSE, rec };
  const GCudaNvrtc *nvrtc;

  for (guint i = 0; candidates[i] != NULL; i++)
    {
      const char *name = candidates[i];

      hash_string (cs, "nvrtc-candidate", name);
      if (strchr (name, '/') != NULL)
        add_library_file (&id, name);
      else
        {
          if (dirs == NULL)
            dirs = library_search_dirs ();
          for (guint j = 0; j < dirs->len; j++)
            {
              g_autofree char *path = g_build_filename (dirs->pdata[j], name, NULL);

              add_library_file (&id, path);
            }
        }
    }

  if (id.found)
    {
      /* An NVRTC some other code loaded from elsewhere (a Python wheel, say)
       * is the one dlopen() returns for its soname. Files already seen add
       * nothing, so a key does not change once GCuda has loaded NVRTC. */
      dl_iterate_phdr (find_loaded_nvrtc, loaded);
      for (guint i = 0; i < loaded->len; i++)
        add_library_file (&id, loaded->pdata[i]);
      return TRUE;
    }

  /* Not found where the loader looks: load it, and hash what it says it is
   * and the file it came from (the same before and after loading). */
  nvrtc = _gcuda_nvrtc_get (NULL);
  if (nvrtc == NULL)
    return FALSE;
  {
    g_autofree char *version = g_strdup_printf ("nvrtc %d.%d", nvrtc->major, nvrtc->minor);
    g_autofree char *canonical = nvrtc->path != NULL ? realpath (nvrtc->path, NULL) : NULL;
    struct stat st;

    hash_string (cs, "nvrtc-loaded", version);
    if (canonical != NULL && dep_stat (rec, canonical, &st) == 0)
      hash_stat (cs, "nvrtc-loaded-file", canonical, &st);
    else
      hash_string (cs, "nvrtc-loaded-path", nvrtc->path);
  }
  return TRUE;
}

/* ---------------------------------------------------------- include scanning */

typedef struct {
  GBytes    *text;     /* what to scan */
  GPtrArray *dirs;     /* where its "..." includes are looked for first */
} ScanUnit;

static void
scan_unit_free (ScanUnit *unit)
{
  g_bytes_unref (unit->text);
  g_ptr_array_unref (unit->dirs);
  g_free (unit);
}

typedef struct {
  GChecksum  *cs;
  GHashTable *headers;         /* in-memory headers, nullable */
  GPtrArray  *source_dirs;     /* "..." dirs of the source and in-memory headers */
  GPtrArray  *search_dirs;     /* -I dirs, include dirs */
  GPtrArray  *toolkit_dirs;    /* canonical, with a trailing '/' */
  GHashTable *contents;        /* canonical path -> GBytes */
  GHashTable *scanned;         /* canonical path + '\n' + its "..." dirs */
  GQueue      queue;           /* ScanUnit */
  gsize       total_read;
  gboolean    indeterminate;
  gboolean    no_files;        /* fuzzing: in-memory headers only */
  GPtrArray  *names;           /* nullable: every name resolved, for tests */
  DepRecorder *rec;            /* nullable: what was stat()ed, for the memo */
} ScanState;

static void
queue_unit (ScanState  *state,
            const char *scan_key,
            GBytes     *text,
            GPtrArray  *dirs)
{
  ScanUnit *unit;

  if (g_hash_table_contains (state->scanned, scan_key))
    return;
  g_hash_table_add (state->scanned, g_strdup (scan_key));
  unit = g_new0 (ScanUnit, 1);
  unit->text = g_bytes_ref (text);
  unit->dirs = g_ptr_array_ref (dirs);
  g_queue_push_tail (&state->queue, unit);
}

static gboolean
in_toolkit_dir (ScanState  *state,
                const char *canonical)
{
  for (guint i = 0; i < state->toolkit_dirs->len; i++)
    if (g_str_has_prefix (canonical, state->toolkit_dirs->pdata[i]))
      return TRUE;
  return FALSE;
}

/* @path names a file the directive could resolve to: when it is one, hashes
 * it, queues it for scanning and returns TRUE. */
static gboolean
try_file (ScanState  *state,
          const char *path)
{
  g_autofree char *canonical = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *canonical_dir = NULL;
  g_autoptr(GPtrArray) dirs = NULL;
  g_autofree char *scan_key = NULL;
  GBytes *text;
  struct stat st;

  if (dep_stat (state->rec, path, &st) != 0)
    {
      if (errno != ENOENT && errno != ENOTDIR)
        {
          /* Present, perhaps, but not to us now: record it, so that the key
           * changes when it becomes readable. */
          g_autofree char *what = g_strdup_printf ("%s errno=%d", path, errno);
          hash_string (state->cs, "include-error", what);
        }
      return FALSE;
    }
  if (S_ISDIR (st.st_mode))
    return FALSE;
  canonical = realpath (path, NULL);
  if (canonical == NULL)
    {
      g_autofree char *what = g_strdup_printf ("%s errno=%d", path, errno);
      hash_string (state->cs, "include-error", what);
      return FALSE;
    }

  hash_string (state->cs, "include-match", canonical);
  if (in_toolkit_dir (state, canonical))
    {
      hash_stat (state->cs, "include-toolkit", canonical, &st);
      return TRUE;
    }

  text = g_hash_table_lookup (state->contents, canonical);
  if (text == NULL)
    {
      char *data = NULL;
      gsize len = 0;
      GError *error = NULL;

      if (!S_ISREG (st.st_mode) ||
          (guint64) st.st_size > MAX_INCLUDE_BYTES - state->total_read)
        {
          /* a device, a FIFO, or more than is reasonable to hash */
          state->indeterminate = TRUE;
          return TRUE;
        }
      if (!g_file_get_contents (canonical, &data, &len, &error))
        {
          g_autofree char *what = g_strdup_printf ("%s %s %d", canonical,
                                                   g_quark_to_string (error->domain), error->code);
          hash_string (state->cs, "include-error", what);
          g_error_free (error);
          return TRUE;
        }
      state->total_read += len;
      if (state->total_read > MAX_INCLUDE_BYTES)
        {
          g_free (data);
          state->indeterminate = TRUE;
          return TRUE;
        }
      text = g_bytes_new_take (data, len);
      hash_string (state->cs, "include-file", canonical);
      hash_field (state->cs, "include-content", data, len);
      g_hash_table_insert (state->contents, g_strdup (canonical), text);
    }

  /* Its own "..." includes: its directory as named and as resolved */
  dirs = g_ptr_array_new_with_free_func (g_free);
  dir = g_path_get_dirname (path);
  canonical_dir = g_path_get_dirname (canonical);
  g_ptr_array_add (dirs, g_strdup (dir));
  if (!g_str_equal (dir, canonical_dir))
    g_ptr_array_add (dirs, g_strdup (canonical_dir));
  {
    g_autofree char *real_dir = realpath (dir, NULL);
    scan_key = g_strconcat (canonical, "\n", real_dir != NULL ? real_dir : dir, NULL);
  }
  queue_unit (state, scan_key, text, dirs);
  return TRUE;
}

static void
resolve_include (ScanState  *state,
                 const char *name,
                 gsize       name_len,
                 gboolean    angle,
                 GPtrArray  *including_dirs)
{
  g_autofree char *inc = g_strndup (name, name_len);
  gboolean matched = FALSE;
  const char *header;

  if (*inc == '\0' || strlen (inc) != name_len)
    return;  /* NVRTC rejects it: nothing compiles, nothing is cached */

  hash_string (state->cs, angle ? "include<>" : "include\"\"", inc);
  if (state->names != NULL)
    g_ptr_array_add (state->names, g_strdup (inc));

  if (state->headers != NULL &&
      (header = g_hash_table_lookup (state->headers, inc)) != NULL)
    {
      g_autofree char *scan_key = g_strconcat ("\n", inc, NULL);  /* no path starts with '\n' */
      g_autoptr(GBytes) text = g_bytes_new_static (header, strlen (header));

      hash_string (state->cs, "include-memory", inc);
      queue_unit (state, scan_key, text, state->source_dirs);
      matched = TRUE;
    }

  if (state->no_files)
    ;
  else if (g_path_is_absolute (inc))
    matched |= try_file (state, inc);
  else
    {
      if (!angle)
        for (guint i = 0; i < including_dirs->len; i++)
          {
            g_autofree char *path = g_build_filename (including_dirs->pdata[i], inc, NULL);
            matched |= try_file (state, path);
          }
      for (guint i = 0; i < state->search_dirs->len; i++)
        {
          g_autofree char *path = g_build_filename (state->search_dirs->pdata[i], inc, NULL);
          matched |= try_file (state, path);
        }
    }

  /* Found nowhere. Where it was looked for is not recorded: creating it in
   * any of those places adds a match, which changes the key anyway, and
   * leaving the directories out keeps the key independent of the current
   * directory for the (common) headers NVRTC has built in. */
  if (!matched)
    hash_string (state->cs, "include-missing", inc);
}

static const char *
skip_space (const char *p,
            const char *end)
{
  while (p < end)
    {
      if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v')
        p++;
      else if (p + 1 < end && p[0] == '/' && p[1] == '*')
        {
          const char *close = memmem (p + 2, end - (p + 2), "*/", 2);

          if (close == NULL)
            return end;
          p = close + 2;
        }
      else
        break;
    }
  return p;
}

static gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '$';
}

/* After the directive's keyword (or "__has_include("): a "name" or <name>
 * is resolved; anything else but the end of the line is a macro. */
static void
scan_header_name (ScanState   *state,
                  const char  *p,
                  const char  *end,
                  GPtrArray   *dirs,
                  gboolean     in_has_include)
{
  p = skip_space (p, end);
  if (p >= end || (p + 1 < end && p[0] == '/' && p[1] == '/'))
    return;  /* malformed: NVRTC reports it */
  if (*p == '"' || *p == '<')
    {
      char close = *p == '"' ? '"' : '>';
      const char *name = p + 1;
      const char *stop = memchr (name, close, end - name);

      if (stop != NULL)
        resolve_include (state, name, stop - name, close == '>', dirs);
      return;
    }
  if (in_has_include && *p == ')')
    return;
  state->indeterminate = TRUE;
}

/* Whether a '#' at @hash begins a directive: only blanks and comments
 * before it on the line, or the end of a comment that began earlier. */
static gboolean
at_line_start (const char *line,
               const char *hash)
{
  const char *p = hash;

  if (skip_space (line, hash) == hash)
    return TRUE;
  while (p > line && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\r' || p[-1] == '\f' || p[-1] == '\v'))
    p--;
  return p - line >= 2 && p[-2] == '*' && p[-1] == '/';
}

static void
scan_line (ScanState  *state,
           const char *line,
           const char *end,
           GPtrArray  *dirs)
{
  const char *p;

  /* Every '#': "#include" in a comment or a string is followed too (more
   * than NVRTC reads, never less); only a real directive naming a macro
   * makes the compile uncacheable. */
  for (p = memchr (line, '#', end - line); p != NULL && !state->indeterminate;
       p = memchr (p + 1, '#', end - (p + 1)))
    {
      static const char * const keywords[] = { "include_next", "include", "import", "embed" };
      const char *word = skip_space (p + 1, end);
      const char *word_end = word;
      const char *name;

      while (word_end < end && is_ident_char (*word_end))
        word_end++;
      for (guint i = 0; i < G_N_ELEMENTS (keywords); i++)
        if ((gsize) (word_end - word) == strlen (keywords[i]) &&
            memcmp (word, keywords[i], word_end - word) == 0)
          {
            name = skip_space (word_end, end);
            if (name < end && (*name == '"' || *name == '<'))
              scan_header_name (state, name, end, dirs, FALSE);
            else if (at_line_start (line, p))
              scan_header_name (state, name, end, dirs, FALSE);
            break;
          }
      if (word_end >= end)
        break;
    }

  /* __has_include ("x.h"), __has_include_next (<x.h>): anywhere */
  for (p = line; p < end && !state->indeterminate; )
    {
      const char *hit = memmem (p, end - p, "__has_include", 13);
      const char *after;

      if (hit == NULL)
        break;
      after = hit + strlen ("__has_include");
      if (after + 5 <= end && memcmp (after, "_next", 5) == 0)
        after += 5;
      p = after;
      if ((hit > line && is_ident_char (hit[-1])) || (after < end && is_ident_char (*after)))
        continue;
      after = skip_space (after, end);
      if (after < end && *after == '(')
        scan_header_name (state, after + 1, end, dirs, TRUE);
    }
}

static void
scan_text (ScanState  *state,
           GBytes     *bytes,
           GPtrArray  *dirs)
{
  gsize len;
  const char *text = g_bytes_get_data (bytes, &len);
  const char *end = text + len;
  const char *p = text;

  while (p < end && !state->indeterminate)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *line_end = nl != NULL ? nl : end;
      gboolean continued = FALSE;

      /* Backslash-newline continues a line */
      while (line_end < end)
        {
          const char *q = line_end;

          if (q > p && q[-1] == '\r')
            q--;
          if (q > p && q[-1] == '\\')
            {
              continued = TRUE;
              nl = memchr (line_end + 1, '\n', end - (line_end + 1));
              line_end = nl != NULL ? nl : end;
            }
          else
            break;
        }

      if (memchr (p, '#', line_end - p) != NULL || memmem (p, line_end - p, "__has_include", 13) != NULL)
        {
          if (continued)
            {
              g_autoptr(GString) joined = g_string_sized_new (line_end - p);

              for (const char *c = p; c < line_end; c++)
                {
                  if (*c == '\\' && c + 1 < line_end && (c[1] == '\n' || (c[1] == '\r' && c + 2 < line_end && c[2] == '\n')))
                    c += c[1] == '\n' ? 1 : 2;
                  else
                    g_string_append_c (joined, *c);
                }
              scan_line (state, joined->str, joined->str + joined->len, dirs);
            }
          else
            scan_line (state, p, line_end, dirs);
        }
      p = line_end < end ? line_end + 1 : end;
    }
}

static void
add_search_dir (GPtrArray  *dirs,
                const char *cwd,
                const char *dir)
{
  char *path;

  if (dir == NULL || *dir == '\0')
    return;
  path = g_path_is_absolute (dir) ? g_strdup (dir) : g_build_filename (cwd, dir, NULL);
  for (guint i = 0; i < dirs->len; i++)
    if (g_str_equal (dirs->pdata[i], path))
      {
        g_free (path);
        return;
      }
  g_ptr_array_add (dirs, path);
}

static void
add_toolkit_dir (GPtrArray   *dirs,
                 const char  *dir)
{
  g_autofree char *canonical = realpath (dir, NULL);

  /* Not recorded for the memo: a header under it is recorded itself, and a
   * link to another toolkit leads to other files. */

  if (canonical != NULL)
    g_ptr_array_add (dirs, g_strconcat (canonical, G_DIR_SEPARATOR_S, NULL));
}

/* An option's value for -I/--include-path or -include/--pre-include: in the
 * option itself ("-Idir", "--include-path=dir") or the next one. */
static const char *
option_value (const char * const *options,
              guint              *i,
              const char         *short_form,
              const char         *long_form)
{
  const char *opt = options[*i];
  gsize short_len = strlen (short_form);
  gsize long_len = strlen (long_form);

  if (g_str_equal (opt, short_form) || g_str_equal (opt, long_form))
    {
      if (options[*i + 1] == NULL)
        return NULL;
      return options[++*i];
    }
  if (strncmp (opt, long_form, long_len) == 0 && opt[long_len] == '=')
    return opt + long_len + 1;
  if (strncmp (opt, short_form, short_len) == 0)
    return opt[short_len] == '=' ? opt + short_len + 1 : opt + short_len;
  return NULL;
}

/* The scan of @source (@source_len bytes: NULs are scanned past, as in a
 * header file) and of everything it includes. */
static gboolean
hash_includes (GChecksum                *cs,
               const GCudaCompileInputs *inputs,
               const char               *source_text,
               gsize                     source_len,
               gboolean                  no_files,
               GPtrArray                *names,
               DepRecorder              *rec)
{
  g_autofree char *cwd = g_get_current_dir ();
  g_autoptr(GPtrArray) source_dirs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) search_dirs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) toolkit_dirs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) pre_includes = g_ptr_array_new ();
  g_autoptr(GBytes) source = NULL;
  ScanState state = { 0 };
  ScanUnit *unit;

  /* "..." in the source: the current directory (NVRTC's), and the program
   * name's directory where it has one */
  g_ptr_array_add (source_dirs, g_strdup (cwd));
  if (inputs->source_name != NULL && strchr (inputs->source_name, '/') != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (inputs->source_name);
      add_search_dir (source_dirs, cwd, dir);
    }

  if (inputs->options != NULL)
    for (guint i = 0; inputs->options[i] != NULL; i++)
      {
        const char *value;

        if (g_str_has_prefix (inputs->options[i], "-include") ||
            g_str_has_prefix (inputs->options[i], "--pre-include"))
          {
            value = option_value (inputs->options, &i, "-include", "--pre-include");
            if (value != NULL)
              g_ptr_array_add (pre_includes, (gpointer) value);
          }
        else if (g_str_has_prefix (inputs->options[i], "-use-pch") ||
                 g_str_has_prefix (inputs->options[i], "--use-pch"))
          {
            /* a precompiled header file: its identity, as it is not scanned */
            struct stat st;
            g_autofree char *canonical = NULL;

            value = option_value (inputs->options, &i, "-use-pch", "--use-pch");
            if (value != NULL && dep_stat (rec, value, &st) == 0 &&
                (canonical = realpath (value, NULL)) != NULL && dep_stat (rec, canonical, &st) == 0)
              hash_stat (cs, "use-pch", canonical, &st);
            else
              hash_string (cs, "use-pch-missing", value);
          }
        else if (g_str_has_prefix (inputs->options[i], "-I") ||
                 g_str_has_prefix (inputs->options[i], "--include-path"))
          {
            value = option_value (inputs->options, &i, "-I", "--include-path");
            add_search_dir (search_dirs, cwd, value);
          }
      }
  if (inputs->include_dirs != NULL)
    for (guint i = 0; inputs->include_dirs[i] != NULL; i++)
      add_search_dir (search_dirs, cwd, inputs->include_dirs[i]);

  add_toolkit_dir (toolkit_dirs, GCUDA_TOOLKIT_LIB_DIR "/../include");
  add_toolkit_dir (toolkit_dirs, "/usr/local/cuda/include");

  state.cs = cs;
  state.headers = inputs->headers;
  state.source_dirs = source_dirs;
  state.search_dirs = search_dirs;
  state.toolkit_dirs = toolkit_dirs;
  state.contents = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_bytes_unref);
  state.scanned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  state.no_files = no_files;
  state.names = names;
  state.rec = rec;
  g_queue_init (&state.queue);

  for (guint i = 0; i < pre_includes->len; i++)
    {
      const char *name = pre_includes->pdata[i];
      resolve_include (&state, name, strlen (name), FALSE, source_dirs);
    }
  source = g_bytes_new_static (source_text, source_len);
  queue_unit (&state, "\nsource", source, source_dirs);

  while (!state.indeterminate && (unit = g_queue_pop_head (&state.queue)) != NULL)
    {
      scan_text (&state, unit->text, unit->dirs);
      scan_unit_free (unit);
    }

  g_queue_clear_full (&state.queue, (GDestroyNotify) scan_unit_free);
  g_hash_table_unref (state.contents);
  g_hash_table_unref (state.scanned);
  return !state.indeterminate;
}

/* ------------------------------------------------------------------ the key */

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
hash_headers (GChecksum  *cs,
              GHashTable *headers)
{
  if (headers != NULL)
    {
      g_autoptr(GPtrArray) names = g_ptr_array_new ();
      GHashTableIter iter;
      gpointer name;
      guint64 n;

      g_hash_table_iter_init (&iter, headers);
      while (g_hash_table_iter_next (&iter, &name, NULL))
        g_ptr_array_add (names, name);
      g_ptr_array_sort (names, compare_strings);
      n = GUINT64_TO_LE ((guint64) names->len);
      hash_field (cs, "headers", &n, sizeof n);
      for (guint i = 0; i < names->len; i++)
        {
          hash_string (cs, "header-name", names->pdata[i]);
          hash_string (cs, "header-text", g_hash_table_lookup (headers, names->pdata[i]));
        }
    }
  else
    hash_string (cs, "headers", NULL);
}

/* The key itself, with what it read recorded in @rec (nullable) */
static char *
compute_key (const GCudaCompileInputs *inputs,
             DepRecorder              *rec)
{
  g_autoptr(GChecksum) cs = g_checksum_new (G_CHECKSUM_SHA256);

  hash_string (cs, "format", KEY_TAG);
  hash_string (cs, "name", inputs->source_name);
  hash_string (cs, "source", inputs->source);
  hash_strv (cs, "options", inputs->options);
  hash_strv (cs, "include-dirs", inputs->include_dirs);
  hash_strv (cs, "name-expressions", inputs->name_expressions);
  hash_string (cs, "target", inputs->target);
  hash_headers (cs, inputs->headers);
  /* GCuda's built-in standard headers, which NVRTC gets where the caller
   * has no header of the name (the include scan records which) */
  hash_string (cs, "std-headers", _gcuda_std_headers_digest ());

  if (!hash_nvrtc_identity (cs, rec))
    return NULL;
  if (!hash_includes (cs, inputs, inputs->source, strlen (inputs->source), FALSE, NULL, rec))
    return NULL;

  return g_strdup (g_checksum_get_string (cs));
}

/* ------------------------------------------------------------- the key memo
 *
 * Computing a key costs about a hundred system calls (every place NVRTC
 * could be loaded from, every place each header could be, realpath()s)
 * and the SHA-256 of every header file: more than the in-process hit it
 * is for. So keys are memoized: by everything the key covers that is
 * not on disk (the inputs, the current directory, LD_LIBRARY_PATH,
 * the NVRTC libraries loaded), each key is kept with what computing it
 * stat()ed (see DepRecorder). A memoized key is used only when a stat() of
 * each of those paths finds them exactly as they were; else the key is
 * computed again (and memoized again). A file whose identity is unchanged
 * has the content that was hashed: a rewrite, a replacement (another
 * inode), even one that restores the size and mtime, changes the ctime,
 * which no one can set; and an identity recorded so recently that an edit
 * could share its timestamps is not memoized at all (racy_margin_ns).
 * What this does not see: a path whose directory is replaced by a symlink
 * to another directory holding a hard link of the very same file (same
 * inode, same times), whose own "..." includes would then be looked for
 * in the new directory; and the system clock set back by more than the
 * margin between the computation and an edit. */

typedef struct {
  char  *key;
  Dep   *deps;
  guint  n_deps;
} MemoEntry;

#define MEMO_MAX_ENTRIES 4096

static GMutex memo_lock;
static GHashTable *memo;     /* memo_index() -> MemoEntry (rc box) */
static guint64 memo_hits;

static void
memo_entry_clear (MemoEntry *entry)
{
  for (guint i = 0; i < entry->n_deps; i++)
    dep_clear (&entry->deps[i]);
  g_free (entry->deps);
  g_free (entry->key);
}

static void
memo_entry_unref (MemoEntry *entry)
{
  g_rc_box_release_full (entry, (GDestroyNotify) memo_entry_clear);
}

/* The memo's index: every input the key covers that is not on disk,
 * serialized (tagged, length-prefixed fields), compared whole. Cheaper
 * than a SHA-256 of it, which would cost as much as the rest of a hit. */
static void
blob_field (GByteArray *blob,
            const char *tag,
            const void *data,
            gsize       len)
{
  guint64 n = (guint64) len;

  g_byte_array_append (blob, (const guint8 *) tag, strlen (tag) + 1);
  g_byte_array_append (blob, (const guint8 *) &n, sizeof n);
  if (len > 0)
    g_byte_array_append (blob, data, len);
}

static void
blob_string (GByteArray *blob,
             const char *tag,
             const char *s)
{
  if (s == NULL)
    blob_field (blob, "(null)", NULL, 0);
  else
    blob_field (blob, tag, s, strlen (s));
}

static void
blob_strv (GByteArray         *blob,
           const char         *tag,
           const char * const *strv)
{
  guint64 n = strv != NULL ? g_strv_length ((char **) strv) : 0;

  blob_field (blob, tag, &n, sizeof n);
  for (guint i = 0; i < n; i++)
    blob_string (blob, tag, strv[i]);
}

static int
find_loaded_nvrtc_blob (struct dl_phdr_info *info,
                        size_t               size,
                        void                *data)
{
  const char *name = info->dlpi_name;
  const char *base;

  if (name == NULL || *name == '\0')
    return 0;
  base = strrchr (name, '/');
  base = base != NULL ? base + 1 : name;
  if (g_str_has_prefix (base, "libnvrtc.so") || g_str_has_prefix (base, "libnvrtc.alt.so"))
    blob_string (data, "loaded-nvrtc", name);
  return 0;
}

static GBytes *
memo_index (const GCudaCompileInputs *inputs)
{
  GByteArray *blob = g_byte_array_sized_new (strlen (inputs->source) + 1024);
  g_autofree char *cwd = g_get_current_dir ();

  blob_string (blob, "key-format", KEY_TAG);
  blob_string (blob, "name", inputs->source_name);
  blob_string (blob, "source", inputs->source);
  blob_strv (blob, "options", inputs->options);
  blob_strv (blob, "include-dirs", inputs->include_dirs);
  blob_strv (blob, "name-expressions", inputs->name_expressions);
  blob_string (blob, "target", inputs->target);
  if (inputs->headers != NULL)
    {
      g_autoptr(GPtrArray) names = g_ptr_array_new ();
      GHashTableIter iter;
      gpointer name;
      guint64 n = g_hash_table_size (inputs->headers);

      g_hash_table_iter_init (&iter, inputs->headers);
      while (g_hash_table_iter_next (&iter, &name, NULL))
        g_ptr_array_add (names, name);
      g_ptr_array_sort (names, compare_strings);
      blob_field (blob, "headers", &n, sizeof n);
      for (guint i = 0; i < names->len; i++)
        {
          blob_string (blob, "header-name", names->pdata[i]);
          blob_string (blob, "header-text", g_hash_table_lookup (inputs->headers, names->pdata[i]));
        }
    }
  else
    blob_string (blob, "headers", NULL);
  blob_string (blob, "std-headers", _gcuda_std_headers_digest ());
  blob_string (blob, "cwd", cwd);
  blob_string (blob, "ld-library-path", _gcuda_secure_getenv ("LD_LIBRARY_PATH"));
  dl_iterate_phdr (find_loaded_nvrtc_blob, blob);
  return g_byte_array_free_to_bytes (blob);
}

static gboolean
memo_entry_valid (const MemoEntry *entry)
{
  for (guint i = 0; i < entry->n_deps; i++)
    {
      const Dep *dep = &entry->deps[i];
      Dep now = { 0 };
      struct stat st;

      dep_fill (&now, stat (dep->path, &st) == 0 ? 0 : errno, &st);
      if (!dep_equal (dep, &now))
        return FALSE;
    }
  return TRUE;
}

static void
memo_insert (GBytes      *index,
             const char  *key,
             DepRecorder *rec)
{
  MemoEntry *entry = g_rc_box_new0 (MemoEntry);

  entry->key = g_strdup (key);
  entry->n_deps = rec->deps->len;
  /* the array's elements, paths included, move to the entry */
  entry->deps = (Dep *) (gpointer) g_array_free (g_steal_pointer (&rec->deps), FALSE);

  g_mutex_lock (&memo_lock);
  if (memo == NULL)
    memo = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref,
                                  (GDestroyNotify) memo_entry_unref);
  if (g_hash_table_size (memo) >= MEMO_MAX_ENTRIES)
    g_hash_table_remove_all (memo);  /* bounded, simply */
  g_hash_table_insert (memo, g_bytes_ref (index), entry);
  g_mutex_unlock (&memo_lock);
}

char *
_gcuda_compile_cache_key (const GCudaCompileInputs *inputs)
{
  g_autoptr(GBytes) index = NULL;
  MemoEntry *entry = NULL;
  DepRecorder rec;
  char *key;

  g_return_val_if_fail (inputs != NULL, NULL);
  g_return_val_if_fail (inputs->source != NULL, NULL);

  index = memo_index (inputs);
  g_mutex_lock (&memo_lock);
  if (memo != NULL && (entry = g_hash_table_lookup (memo, index)) != NULL)
    g_rc_box_acquire (entry);
  g_mutex_unlock (&memo_lock);
  if (entry != NULL)
    {
      /* checked outside the lock: other threads' keys do not wait for it */
      key = memo_entry_valid (entry) ? g_strdup (entry->key) : NULL;
      memo_entry_unref (entry);
      if (key != NULL)
        {
          g_mutex_lock (&memo_lock);
          memo_hits++;
          g_mutex_unlock (&memo_lock);
          return key;
        }
    }

  dep_recorder_init (&rec);
  key = compute_key (inputs, &rec);
  if (key != NULL && !rec.racy)
    memo_insert (index, key, &rec);
  else
    {
      g_mutex_lock (&memo_lock);
      if (memo != NULL)
        g_hash_table_remove (memo, index);  /* stale, or not to be trusted yet */
      g_mutex_unlock (&memo_lock);
    }
  dep_recorder_clear (&rec);
  return key;
}

guint64
_gcuda_compile_cache_key_memo_hits (void)
{
  guint64 hits;

  g_mutex_lock (&memo_lock);
  hits = memo_hits;
  g_mutex_unlock (&memo_lock);
  return hits;
}

gint64
_gcuda_compile_cache_set_racy_margin (gint64 margin_ns)
{
  gint64 old;

  g_mutex_lock (&memo_lock);
  old = racy_margin_ns;
  racy_margin_ns = margin_ns;
  g_mutex_unlock (&memo_lock);
  return old;
}

char *
_gcuda_compile_cache_scan_includes (const GCudaCompileInputs *inputs,
                                    const char               *source,
                                    gsize                     source_len,
                                    gboolean                  files,
                                    GPtrArray                *names_out)
{
  g_autoptr(GChecksum) cs = g_checksum_new (G_CHECKSUM_SHA256);

  g_return_val_if_fail (inputs != NULL, NULL);
  g_return_val_if_fail (source != NULL || source_len == 0, NULL);

  if (!hash_includes (cs, inputs, source != NULL ? source : "", source_len, !files, names_out, NULL))
    return NULL;
  return g_strdup (g_checksum_get_string (cs));
}

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
  g_ptr_array_sort (names, compare_strings);

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
  disable = _gcuda_secure_getenv ("GCUDA_DISABLE_CACHE");
  dir = _gcuda_secure_getenv ("GCUDA_CACHE_DIR");
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
  g_mutex_lock (&memo_lock);
  if (memo != NULL)
    g_hash_table_remove_all (memo);
  g_mutex_unlock (&memo_lock);
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
  if (!is_valid_key (key))
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

  g_return_val_if_fail (is_valid_key (key), NULL);
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

  /* O_NOFOLLOW: a symlink in the entry's place is not followed to a file
   * elsewhere (and, not being a regular file, is never deleted either).
   * O_NONBLOCK: a FIFO there would block open() until someone writes to
   * it; opened at once, it fails the regular-file check below. O_NOCTTY:
   * a terminal there never becomes the process's. */
  fd = openat (dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    {
      close (dir_fd);
      return NULL;
    }
  /* fstat() of what was opened, not of the name: no race between check and
   * read. Another user's file (root's: no one else can create files in a
   * directory that is the user's and 0700) could be anyone's code. */
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != geteuid ())
    {
      g_debug ("compile cache entry %s/%s ignored: not a regular file of the user's", dir, name);
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
  if (!is_valid_key (key))
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

  if (!is_valid_key (key))
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
