/* gcuda-compile-key-private.c: the compile cache's key, and its memo in the process
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
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
 */

#define _GNU_SOURCE 1  /* dl_iterate_phdr */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <link.h>
#include <stddef.h>
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
#include "gcuda-file-private.h"
#include "gcuda-nvrtc-private.h"
#include "gcuda-std-headers-private.h"

/* Changed with the entry format (FORMAT_VERSION in
 * gcuda-compile-cache-private.c): entries of another format have other file
 * names, so two GCuda versions sharing a directory do not delete each
 * other's entries as corrupt. */
#define KEY_TAG             "gcuda-compile-cache-key-2"
#define KEY_LENGTH          GCUDA_COMPILE_KEY_LENGTH
#define MAX_INCLUDE_BYTES   ((gsize) 64 * 1024 * 1024)

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
gboolean
_gcuda_compile_cache_is_valid_key (const char *key)
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
  guint       n_nvrtc;    /* how many of deps NVRTC's identity recorded (the first ones) */
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
  rec->n_nvrtc = 0;
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
      gsize budget = MAX_INCLUDE_BYTES - state->total_read;
      g_autoptr(GError) error = NULL;
      struct stat opened;
      const char *data;
      gsize len = 0;

      if (!S_ISREG (st.st_mode) || (guint64) st.st_size > budget)
        {
          /* a device, a FIFO, or more than is reasonable to hash */
          state->indeterminate = TRUE;
          return TRUE;
        }
      /* Opened without waiting and checked through the descriptor: the
       * file may have become a FIFO since the stat() above (canonical
       * names no symlink: one there now is such a change too). */
      text = _gcuda_file_read_regular (AT_FDCWD, canonical, TRUE, budget, &opened, &error);
      if (text == NULL)
        {
          g_autofree char *what = NULL;

          if (g_error_matches (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT) ||
              g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS))
            {
              state->indeterminate = TRUE;
              return TRUE;
            }
          what = g_strdup_printf ("%s %s %d", canonical, g_quark_to_string (error->domain), error->code);
          hash_string (state->cs, "include-error", what);
          return TRUE;
        }
      data = g_bytes_get_data (text, &len);
      state->total_read += len;
      if (len > budget || opened.st_dev != st.st_dev || opened.st_ino != st.st_ino)
        {
          /* too much, or not the file the stat() recorded: replaced since */
          g_bytes_unref (text);
          state->indeterminate = TRUE;
          return TRUE;
        }
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

int
_gcuda_compile_compare_strings (gconstpointer a,
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
      g_ptr_array_sort (names, _gcuda_compile_compare_strings);
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
  if (rec != NULL)
    rec->n_nvrtc = rec->deps->len;
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
 * A key whose include scan stat()ed nothing (a source that includes no
 * file: only NVRTC's built-in headers and GCuda's in-memory ones) reads
 * nothing on disk but the NVRTC libraries, and those a process does not
 * see change under it (CuPy's in-process cache does not look either): its
 * memo entry is used without a stat(), the cost of the lookup alone.
 * What this does not see: a path whose directory is replaced by a symlink
 * to another directory holding a hard link of the very same file (same
 * inode, same times), whose own "..." includes would then be looked for
 * in the new directory; and the system clock set back by more than the
 * margin between the computation and an edit. */

typedef struct {
  char     *key;
  Dep      *deps;
  guint     n_deps;
  gboolean  reads_files;  /* the include scan stat()ed something */
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

/* The loaded NVRTC libraries' names, as blob fields: walked again only
 * when the loader's counts of objects added and removed say the set of
 * loaded objects changed (the walk costs more than the rest of a hit). */
typedef struct {
  GByteArray         *blob;
  unsigned long long  adds;
  unsigned long long  subs;
  gboolean            changed;
} LoadedWalk;

static GMutex loaded_lock;
static GByteArray *loaded_fields;   /* under loaded_lock */
static unsigned long long loaded_adds, loaded_subs;

static int
check_loaded (struct dl_phdr_info *info,
              size_t               size,
              void                *data)
{
  LoadedWalk *walk = data;

  /* the counts are the first object's; older loaders lack them */
  if (size < offsetof (struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
    walk->changed = TRUE;
  else
    {
      walk->adds = info->dlpi_adds;
      walk->subs = info->dlpi_subs;
      walk->changed = loaded_fields == NULL || walk->adds != loaded_adds || walk->subs != loaded_subs;
    }
  return 1;
}

static void
blob_loaded_nvrtc (GByteArray *blob)
{
  LoadedWalk walk = { NULL, 0, 0, TRUE };

  g_mutex_lock (&loaded_lock);
  dl_iterate_phdr (check_loaded, &walk);
  if (walk.changed)
    {
      g_clear_pointer (&loaded_fields, g_byte_array_unref);
      loaded_fields = g_byte_array_new ();
      dl_iterate_phdr (find_loaded_nvrtc_blob, loaded_fields);
      loaded_adds = walk.adds;
      loaded_subs = walk.subs;
    }
  g_byte_array_append (blob, loaded_fields->data, loaded_fields->len);
  g_mutex_unlock (&loaded_lock);
}

/* The index's hash: 64-bit words (g_bytes_hash() goes a byte at a time,
 * and the index holds the whole source) */
static guint
memo_index_hash (gconstpointer index)
{
  gsize len;
  const guint8 *p = g_bytes_get_data ((GBytes *) index, &len);
  guint64 h = 0xcbf29ce484222325ull ^ len;
  gsize i = 0;

  for (; i + 8 <= len; i += 8)
    {
      guint64 w;

      memcpy (&w, p + i, 8);
      h = (h ^ w) * 0x100000001b3ull;
      h ^= h >> 29;
    }
  for (; i < len; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return (guint) (h ^ (h >> 32));
}

static GBytes *
memo_index (const GCudaCompileInputs *inputs)
{
  GByteArray *blob = g_byte_array_sized_new (strlen (inputs->source) + 1024);
  char cwd_buf[4096];
  /* getcwd() and $PWD rather than g_get_current_dir(), which stat()s both
   * to choose: the pair changes whenever its choice can */
  const char *cwd = getcwd (cwd_buf, sizeof cwd_buf);

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
      g_ptr_array_sort (names, _gcuda_compile_compare_strings);
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
  blob_string (blob, "pwd", g_getenv ("PWD"));
  blob_string (blob, "ld-library-path", _gcuda_secure_getenv ("LD_LIBRARY_PATH"));
  blob_loaded_nvrtc (blob);
  return g_byte_array_free_to_bytes (blob);
}

static gboolean
memo_entry_valid (const MemoEntry *entry)
{
  if (!entry->reads_files)
    return TRUE;
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
  entry->reads_files = rec->deps->len > rec->n_nvrtc;
  /* the array's elements, paths included, move to the entry */
  entry->deps = (Dep *) (gpointer) g_array_free (g_steal_pointer (&rec->deps), FALSE);

  g_mutex_lock (&memo_lock);
  if (memo == NULL)
    memo = g_hash_table_new_full (memo_index_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref,
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

void
_gcuda_compile_cache_clear_key_memo (void)
{
  g_mutex_lock (&memo_lock);
  if (memo != NULL)
    g_hash_table_remove_all (memo);
  g_mutex_unlock (&memo_lock);
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

