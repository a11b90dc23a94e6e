/* test-compile-cache.c: the compile cache's key, its disk format and its
 * safety rules (gcuda-compile-cache-private.c). Needs no GPU and never loads
 * NVRTC: the key identifies NVRTC's file without loading it.
 *
 * Linked with the library's objects, as the private functions are hidden in
 * libgcuda-1.so. The program also runs itself as a child (--child-*) to see
 * the disk cache from a fresh process, with an empty in-process cache.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE 1  /* setresuid */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gio/gio.h>
#include <gcuda.h>

#include "gcuda-compile-cache-private.h"
#include "gcuda-env-private.h"
#include "gcuda-nvrtc-private.h"
#include "gcuda-std-headers-private.h"

#define KEY_A "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define KEY_B "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define KEY_C "00000000000000000000000000000000000000000000000000000000000000cc"
#define HEADER_SIZE 140
#define MAX_ENTRY_BYTES ((goffset) 512 * 1024 * 1024)   /* docs/kernels.md */

static char *self_exe;

/* ------------------------------------------------------------ warnings
 *
 * A refused cache directory is a warning (once per process and message),
 * which g_test_init() makes fatal: this writer takes GCuda's warnings
 * instead, so that tests can assert them; everything else goes on to
 * GLib's writer, fatal as before. */

static GMutex warnings_lock;
static GPtrArray *warnings;

static GLogWriterOutput
capture_writer (GLogLevelFlags   log_level,
                const GLogField *fields,
                gsize            n_fields,
                gpointer         user_data)
{
  if (log_level & G_LOG_LEVEL_WARNING)
    {
      const char *domain = NULL, *message = NULL;

      for (gsize i = 0; i < n_fields; i++)
        if (g_str_equal (fields[i].key, "GLIB_DOMAIN"))
          domain = fields[i].value;
        else if (g_str_equal (fields[i].key, "MESSAGE"))
          message = fields[i].value;
      if (g_strcmp0 (domain, "GCuda") == 0 && message != NULL)
        {
          g_mutex_lock (&warnings_lock);
          g_ptr_array_add (warnings, g_strdup (message));
          g_mutex_unlock (&warnings_lock);
          return G_LOG_WRITER_HANDLED;
        }
    }
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

/* The warnings since the last call, one per line ("" for none) */
static char *
take_warnings (void)
{
  g_autoptr(GString) out = g_string_new (NULL);

  g_mutex_lock (&warnings_lock);
  for (guint i = 0; i < warnings->len; i++)
    g_string_append_printf (out, "%s\n", (char *) warnings->pdata[i]);
  g_ptr_array_set_size (warnings, 0);
  g_mutex_unlock (&warnings_lock);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* --------------------------------------------------------- lowered names */

/* A table of lowered names from NULL-terminated name, value pairs */
static GHashTable *
lowered_new (const char *first_name,
             ...)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  va_list ap;

  va_start (ap, first_name);
  for (const char *name = first_name; name != NULL; name = va_arg (ap, const char *))
    g_hash_table_insert (table, g_strdup (name), g_strdup (va_arg (ap, const char *)));
  va_end (ap);
  return table;
}

/* The lowered names in one printable line (escaped serialization) */
static char *
lowered_line (GHashTable *lowered)
{
  g_autofree char *text = _gcuda_compile_cache_serialize_lowered (lowered);

  return text != NULL ? g_strescape (text, NULL) : g_strdup ("(null)");
}

/* The lowered names the tests store: a tab, a newline, and the format's
 * own punctuation in the expressions */
static GHashTable *
test_lowered (void)
{
  return lowered_new ("f<\tint>", "_Z1fIiEvPT_",
                      "g<\nfloat>", "_Z1gIfEvPT_",
                      "3:x,", "_Z1x",
                      "h\tint\n=\\", "", NULL);
}

/* ------------------------------------------------------------------ helpers */

static void
rm_rf (const char *path)
{
  struct stat st;

  if (lstat (path, &st) != 0)
    return;
  if (S_ISDIR (st.st_mode))
    {
      GDir *dir;
      const char *name;

      chmod (path, 0700);
      dir = g_dir_open (path, 0, NULL);
      if (dir != NULL)
        {
          while ((name = g_dir_read_name (dir)) != NULL)
            {
              g_autofree char *child = g_build_filename (path, name, NULL);
              rm_rf (child);
            }
          g_dir_close (dir);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static char *
make_tmp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("gcuda-cache-test-XXXXXX", &error);

  g_assert_no_error (error);
  g_assert_cmpint (chmod (dir, 0700), ==, 0);
  return dir;
}

static void
write_file (const char *path,
            const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static GCudaCompileInputs
inputs_for (const char *source)
{
  static const char * const options[] = { "--gpu-architecture=sm_90", "-default-device", NULL };
  GCudaCompileInputs inputs = {
    .source = source,
    .source_name = "kernel.cu",
    .options = options,
    .include_dirs = NULL,
    .headers = NULL,
    .name_expressions = NULL,
    .target = "cubin",
  };

  return inputs;
}

/* The key, asserting it is a SHA-256 in lower-case hex and that computing
 * it did not load NVRTC (when NVRTC's file could be found, that is always;
 * without any NVRTC installed there is no key at all). */
static char *
key_of (const GCudaCompileInputs *inputs)
{
  char *key = _gcuda_compile_cache_key (inputs);

  if (key != NULL)
    {
      g_assert_cmpuint (strlen (key), ==, 64);
      for (guint i = 0; i < 64; i++)
        g_assert_true (g_ascii_isxdigit (key[i]) && !g_ascii_isupper (key[i]));
    }
  g_assert_false (_gcuda_nvrtc_is_loaded ());
  return key;
}

/* Skips the test (with GCuda's message, which says how to provide NVRTC)
 * when no NVRTC can be identified on this machine, or fails it when
 * GCUDA_TEST_REQUIRE_GPU=1. */
static gboolean
require_nvrtc (void)
{
  GCudaCompileInputs inputs = inputs_for ("__global__ void f() {}\n");
  g_autofree char *key = key_of (&inputs);
  g_autoptr(GError) error = NULL;

  if (key != NULL)
    return TRUE;
  /* no key: NVRTC is missing (loading it now cannot load it) */
  g_assert_null (_gcuda_nvrtc_get (&error));
  g_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND);
  if (g_strcmp0 (g_getenv ("GCUDA_TEST_REQUIRE_GPU"), "1") == 0)
    g_test_fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but NVRTC is missing: %s", error->message);
  else
    g_test_skip_printf ("no NVRTC: %s", error->message);
  return FALSE;
}

static GBytes *
test_image (guint seed,
            gsize size)
{
  guint8 *data = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) (i * 31 + seed * 7 + (i >> 8));
  return g_bytes_new_take (data, size);
}

static char *
entry_path (const char *dir,
            const char *key)
{
  g_autofree char *name = g_strconcat (key, ".bin", NULL);
  return g_build_filename (dir, name, NULL);
}

/* Runs this program as a child: "hit CHECKSUM LOG LOWERED" or "miss". */
static char *
child_run_full (const char          *exe,
                const char * const  *args,
                const char * const  *envp,
                char               **err_out)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  g_ptr_array_add (argv, (gpointer) (exe != NULL ? exe : self_exe));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, (char **) envp, G_SPAWN_DEFAULT, NULL, NULL,
                &out, &err, &status, &error);
  g_assert_no_error (error);
  if (err != NULL && *err != '\0')
    g_test_message ("child stderr: %s", err);
  g_spawn_check_wait_status (status, &error);
  g_assert_no_error (error);
  g_strchomp (out);
  if (err_out != NULL)
    *err_out = g_steal_pointer (&err);
  return out;
}

static char *
child_run (const char * const *args,
           const char * const *envp)
{
  return child_run_full (NULL, args, envp, NULL);
}

/* child_lookup() that also returns the child's stderr */
static char *
child_lookup_err (const char  *dir,
                  const char  *key,
                  char       **err_out)
{
  const char *args[] = { "--child-lookup", dir, key, NULL };
  return child_run_full (NULL, args, NULL, err_out);
}

static char *
child_lookup (const char *dir,
              const char *key)
{
  const char *args[] = { "--child-lookup", dir, key, NULL };
  return child_run (args, NULL);
}

static char *
expected_hit (GBytes     *image,
              const char *log,
              GHashTable *lowered)
{
  g_autofree char *sum = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, image);
  g_autofree char *names = lowered_line (lowered);

  return g_strdup_printf ("hit %s %s %s", sum, log ? log : "(null)", names);
}

/* -------------------------------------------------------------- child modes */

static int
child_main (int    argc,
            char **argv)
{
  if (g_str_equal (argv[1], "--child-lookup") && argc == 4)
    {
      g_autofree char *log = NULL;
      g_autoptr(GHashTable) lowered = NULL;
      gint64 start = g_get_monotonic_time ();
      g_autoptr(GBytes) image = _gcuda_compile_cache_lookup (argv[2], argv[3], &log, &lowered);
      gint64 elapsed = g_get_monotonic_time () - start;

      if (image == NULL)
        g_print ("miss\n");
      else
        {
          g_autofree char *line = expected_hit (image, log, lowered);
          g_print ("%s\n", line);
        }
      if (g_getenv ("GCUDA_TEST_TIMING") != NULL)
        g_printerr ("a lookup in a fresh process took %" G_GINT64_FORMAT " us\n", elapsed);
      return _gcuda_nvrtc_is_loaded () ? 3 : 0;
    }
  if (g_str_equal (argv[1], "--child-store") && argc == 5)
    {
      guint n = atoi (argv[4]);

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(GBytes) image = test_image (1, 100000);
          g_autoptr(GHashTable) lowered = test_lowered ();
          g_autoptr(GError) error = NULL;

          if (!_gcuda_compile_cache_store (argv[2], argv[3], image, "the log", lowered, &error))
            {
              g_printerr ("store failed: %s\n", error->message);
              return 1;
            }
        }
      return 0;
    }
  if (g_str_equal (argv[1], "--child-key") && argc == 2)
    {
      GCudaCompileInputs inputs = inputs_for ("__global__ void f() {}\n");
      gint64 start = g_get_monotonic_time ();
      g_autofree char *key = _gcuda_compile_cache_key (&inputs);
      gint64 elapsed = g_get_monotonic_time () - start;

      g_print ("%s\n", key != NULL ? key : "NULL");
      if (g_getenv ("GCUDA_TEST_TIMING") != NULL)
        g_printerr ("a key in a fresh process took %" G_GINT64_FORMAT " us (NVRTC %s)\n", elapsed,
                    _gcuda_nvrtc_is_loaded () ? "loaded" : "not loaded");
      return 0;
    }
  if (g_str_equal (argv[1], "--child-key-nvrtc-edit") && argc == 3)
    {
      /* argv[2] is the GCUDA_NVRTC_LIBRARY of the environment: rewritten
       * between two keys of a source that includes no file */
      GCudaCompileInputs inputs = inputs_for ("__global__ void f() {}\n// no include\n");
      g_autofree char *k0 = NULL, *k1 = NULL, *k2 = NULL;
      guint64 hits;

      _gcuda_compile_cache_set_racy_margin (0);
      k0 = _gcuda_compile_cache_key (&inputs);
      hits = _gcuda_compile_cache_key_memo_hits ();
      if (!g_file_set_contents (argv[2], "another fake library, longer than the first", -1, NULL))
        return 1;
      k1 = _gcuda_compile_cache_key (&inputs);
      _gcuda_compile_cache_clear_key_memo ();
      k2 = _gcuda_compile_cache_key (&inputs);
      g_print ("%s %s %s\n", k0 != NULL && g_strcmp0 (k0, k1) == 0 ? "memo-same" : "memo-different",
               _gcuda_compile_cache_key_memo_hits () == hits + 1 ? "hit" : "no-hit",
               k2 != NULL && g_strcmp0 (k0, k2) != 0 ? "fresh-different" : "fresh-same");
      return 0;
    }
  if (g_str_equal (argv[1], "--child-key-load") && argc == 2)
    {
      /* The key is the same before and after NVRTC is loaded */
      GCudaCompileInputs inputs = inputs_for ("__global__ void f() {}\n");
      g_autofree char *before = _gcuda_compile_cache_key (&inputs);
      g_autofree char *after = NULL;

      if (_gcuda_nvrtc_is_loaded ())
        {
          g_print ("loaded by the key\n");
          return 0;
        }
      if (_gcuda_nvrtc_get (NULL) == NULL)
        {
          g_print ("no nvrtc\n");
          return 0;
        }
      after = _gcuda_compile_cache_key (&inputs);
      g_print ("%s\n", g_strcmp0 (before, after) == 0 ? "same" : "different");
      return 0;
    }
  if (g_str_equal (argv[1], "--child-compile") && argc == 3)
    {
      /* A real compile (PTX, no driver needed) with the cache in argv[2]:
       * "ok from-cache=0|1", or "no-nvrtc" */
      g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
      g_autoptr(GCudaProgram) program = NULL;
      g_autoptr(GError) error = NULL;

      gcuda_compiler_set_arch (compiler, "compute_90");
      gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
      gcuda_compiler_set_cache_dir (compiler, argv[2]);
      program = gcuda_compiler_compile (compiler, "__global__ void symlinked_cache (int *p) { *p = 7; }\n", &error);
      if (g_error_matches (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND))
        g_print ("no-nvrtc\n");
      else if (program == NULL)
        g_print ("error %s\n", error->message);
      else
        g_print ("ok from-cache=%d\n", gcuda_program_is_from_cache (program));
      return 0;
    }
  if ((g_str_equal (argv[1], "--child-secure") || g_str_equal (argv[1], "--child-secure-ids")) && argc == 2)
    {
      /* What a set-user-ID process makes of the environment; with
       * --child-secure-ids, a root process that took another effective
       * user ID itself (no AT_SECURE: the ID check must see it) */
      g_autofree char *dir = NULL;
      g_autoptr(GError) driver_error = NULL;
      gboolean driver_from_env;

      if (g_str_equal (argv[1], "--child-secure-ids") && setresuid (0, 65534, 0) != 0)
        {
          g_print ("setresuid failed: %s\n", g_strerror (errno));
          fflush (stdout);
          _exit (1);
        }
      dir = _gcuda_compile_cache_default_dir ();
      /* GCUDA_DRIVER_LIBRARY names a file the invoker chose: dlopen()ed
       * only when the process is not privileged */
      driver_from_env = !gcuda_init (&driver_error) &&
                        strstr (driver_error->message, "chosen-by-the-invoker") != NULL;
      g_print ("at-secure=%lu secure=%d dir=%s lib=%s driver=%s\n", getauxval (AT_SECURE),
               _gcuda_is_secure_execution (), dir != NULL ? dir : "(null)",
               _gcuda_secure_getenv ("LD_LIBRARY_PATH") != NULL ? "set" : "unset",
               driver_from_env ? "env" : "default");
      /* Without exit()'s handlers: in a sanitizer build, LeakSanitizer
       * cannot stop the threads of a set-user-ID process (not dumpable)
       * and fails it, whatever ASAN_OPTIONS says (ignored there too) */
      fflush (stdout);
      _exit (0);
    }
  if (g_str_equal (argv[1], "--child-lookup-limited") && argc == 5)
    {
      /* A lookup with the address space limited to what the process uses
       * now plus argv[4] MiB: reading a larger entry cannot be allocated */
      struct rlimit limit;
      g_autofree char *statm = NULL;
      g_autoptr(GBytes) image = NULL;
      g_autofree char *log = NULL;
      g_autoptr(GHashTable) lowered = NULL;
      guint64 pages;

      g_assert_true (g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL));
      pages = g_ascii_strtoull (statm, NULL, 10);
      limit.rlim_cur = limit.rlim_max = pages * sysconf (_SC_PAGESIZE) +
                                        g_ascii_strtoull (argv[4], NULL, 10) * 1024 * 1024;
      if (setrlimit (RLIMIT_AS, &limit) != 0)
        {
          g_print ("no-limit\n");
          return 0;
        }
      image = _gcuda_compile_cache_lookup (argv[2], argv[3], &log, &lowered);
      g_print ("%s\n", image != NULL ? "hit" : "miss");
      return 0;
    }
  if (g_str_equal (argv[1], "--child-store-many") && argc == 6)
    {
      /* Stores argv[4] entries of argv[5] bytes under keys made from
       * argv[3] (a two-digit tag) and the index */
      guint n = atoi (argv[4]);
      gsize size = atoi (argv[5]);

      for (guint i = 0; i < n; i++)
        {
          g_autofree char *key = g_strdup_printf ("%s%062x", argv[3], i);
          g_autoptr(GBytes) image = test_image (i, size);
          g_autoptr(GError) error = NULL;

          if (!_gcuda_compile_cache_store (argv[2], key, image, NULL, NULL, &error))
            {
              g_printerr ("store failed: %s\n", error->message);
              return 1;
            }
        }
      return 0;
    }
  g_printerr ("unknown child mode %s\n", argv[1]);
  return 2;
}

/* -------------------------------------------------------------------- keys */

static void
test_key_stable (void)
{
  GCudaCompileInputs inputs = inputs_for ("__global__ void f(int *p) { *p = 1; }\n");
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  gint64 start;

  if (!require_nvrtc ())
    return;
  start = g_get_monotonic_time ();
  a = key_of (&inputs);
  g_test_message ("a key took %" G_GINT64_FORMAT " us", g_get_monotonic_time () - start);
  b = key_of (&inputs);
  g_assert_nonnull (a);
  g_assert_cmpstr (a, ==, b);
}

static void
test_key_changes (void)
{
  static const char * const options_o3[] = { "--gpu-architecture=sm_90", "-default-device", "-O3", NULL };
  static const char * const options_arch[] = { "--gpu-architecture=sm_80", "-default-device", NULL };
  static const char * const options_split[] = { "--gpu-architecture=sm_90-", "default-device", NULL };
  static const char * const names_a[] = { "f<int>", NULL };
  static const char * const names_b[] = { "f<float>", NULL };
  static const char * const names_empty[] = { NULL };
  static const char * const dirs[] = { "/nonexistent-gcuda-dir", NULL };
  const char *source = "template <typename T> __global__ void f(T *p) { *p = 1; }\n";
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) headers1 = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) headers2 = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) headers3 = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) headers4 = g_hash_table_new (g_str_hash, g_str_equal);
  GCudaCompileInputs base = inputs_for (source);
  GCudaCompileInputs in;
  char *key;

  if (!require_nvrtc ())
    return;

  g_hash_table_insert (headers1, "a.h", "#define A 1\n");
  g_hash_table_insert (headers2, "a.h", "#define A 2\n");
  g_hash_table_insert (headers3, "b.h", "#define A 1\n");
  g_hash_table_insert (headers4, "a.h", "#define A 1\n");
  g_hash_table_insert (headers4, "b.h", "");

#define ADD_KEY(inputs) \
  G_STMT_START { \
    key = key_of (&(inputs)); \
    g_assert_nonnull (key); \
    g_ptr_array_add (keys, key); \
  } G_STMT_END

  ADD_KEY (base);
  in = base; in.source = "template <typename T> __global__ void f(T *p) { *p = 2; }\n"; ADD_KEY (in);
  in = base; in.source_name = "other.cu"; ADD_KEY (in);
  in = base; in.options = options_o3; ADD_KEY (in);
  in = base; in.options = options_arch; ADD_KEY (in);
  in = base; in.options = options_split; ADD_KEY (in);
  in = base; in.options = NULL; ADD_KEY (in);
  in = base; in.target = "ptx"; ADD_KEY (in);
  in = base; in.name_expressions = names_a; ADD_KEY (in);
  in = base; in.name_expressions = names_b; ADD_KEY (in);
  in = base; in.include_dirs = dirs; ADD_KEY (in);
  in = base; in.headers = headers1; ADD_KEY (in);
  in = base; in.headers = headers2; ADD_KEY (in);
  in = base; in.headers = headers3; ADD_KEY (in);
  in = base; in.headers = headers4; ADD_KEY (in);
#undef ADD_KEY

  for (guint i = 0; i < keys->len; i++)
    for (guint j = i + 1; j < keys->len; j++)
      if (g_str_equal (keys->pdata[i], keys->pdata[j]))
        g_error ("variants %u and %u have the same key %s", i, j, (char *) keys->pdata[i]);

  /* An empty list of name expressions is the same compile as none */
  in = base;
  in.name_expressions = names_empty;
  key = key_of (&in);
  g_assert_cmpstr (key, ==, keys->pdata[0]);
  g_free (key);
}

/* <a.h> in an include dir; a.h includes "sub/b.h"; b.h includes "c.h",
 * found beside it. Editing any of them changes the key; restoring the text
 * restores it. Also: "#  include" with blanks, in -I options. */
static void
test_key_include_files (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *inc = g_build_filename (tmp, "inc", NULL);
  g_autofree char *a = g_build_filename (inc, "a.h", NULL);
  g_autofree char *b = g_build_filename (inc, "sub", "b.h", NULL);
  g_autofree char *c = g_build_filename (inc, "sub", "c.h", NULL);
  g_autofree char *k0 = NULL, *k1 = NULL, *k2 = NULL, *k3 = NULL, *k4 = NULL, *k5 = NULL;
  g_autofree char *opt_inc = g_strconcat ("-I", inc, NULL);
  const char *dirs[] = { inc, NULL };
  const char *options[] = { "--gpu-architecture=sm_90", opt_inc, NULL };
  GCudaCompileInputs in = inputs_for ("#include <a.h>\n__global__ void f() {}\n");

  if (!require_nvrtc ())
    return;

  write_file (a, "#pragma once\n  #  include \"sub/b.h\"\n");
  write_file (b, "#pragma once\n#include \"c.h\" // beside b.h\n");
  write_file (c, "#define C 1\n");
  in.include_dirs = dirs;
  in.options = options;

  k0 = key_of (&in);
  g_assert_nonnull (k0);

  write_file (c, "#define C 2\n");          /* nested, two levels down */
  k1 = key_of (&in);
  g_assert_cmpstr (k1, !=, k0);

  write_file (c, "#define C 1\n");          /* the content counts, not the time */
  k2 = key_of (&in);
  g_assert_cmpstr (k2, ==, k0);

  write_file (b, "#pragma once\n#include \"c.h\" // edited\n");
  k3 = key_of (&in);
  g_assert_cmpstr (k3, !=, k0);

  write_file (a, "#pragma once\n  #  include \"sub/b.h\"\n#define A\n");
  k4 = key_of (&in);
  g_assert_cmpstr (k4, !=, k3);

  /* Only through the -I option (the include dir list empty): still found */
  in.include_dirs = NULL;
  k5 = key_of (&in);
  write_file (c, "#define C 3\n");
  g_free (k0);
  k0 = key_of (&in);
  g_assert_cmpstr (k0, !=, k5);

  rm_rf (tmp);
}

/* A header swapped, again and again, between a regular file and a FIFO
 * (each renamed into place) while keys are computed: the scanner must
 * never block in open() (it did, after its stat() said "regular"), and a
 * FIFO met makes the key indeterminate (no key: not cached). In a child,
 * killed at a timeout: a blocked scanner fails the test instead of hanging
 * it. */
typedef struct {
  const char *dir;
  int stop;  /* atomic */
  guint swaps;
} HeaderSwapper;

static gpointer
header_swap_thread (gpointer data)
{
  HeaderSwapper *s = data;
  g_autofree char *target = g_build_filename (s->dir, "h.h", NULL);
  g_autofree char *fifo = g_build_filename (s->dir, ".h.h.fifo", NULL);
  g_autofree char *regular = g_build_filename (s->dir, ".h.h.regular", NULL);

  while (!g_atomic_int_get (&s->stop))
    {
      int fd;

      g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
      g_assert_cmpint (rename (fifo, target), ==, 0);
      fd = open (regular, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      g_assert_cmpint (fd, >=, 0);
      g_assert_cmpint (write (fd, "#define H 1\n", 12), ==, 12);
      close (fd);
      g_assert_cmpint (rename (regular, target), ==, 0);
      s->swaps++;
    }
  return NULL;
}

static void
test_key_include_fifo_race (void)
{
  g_autofree char *tmp = NULL;
  const char *dirs[2] = { NULL, NULL };
  GCudaCompileInputs in = inputs_for ("#include \"h.h\"\n__global__ void f() {}\n");
  HeaderSwapper swapper = { 0 };
  GThread *thread;
  guint keys = 0, indeterminate = 0;
  gint64 end;

  if (!require_nvrtc ())
    return;
  if (!g_test_subprocess ())
    {
      /* the old scanner blocked for ever: 30 s is a hang */
      g_test_trap_subprocess (NULL, 30 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }

  tmp = make_tmp_dir ();
  dirs[0] = tmp;
  in.include_dirs = dirs;
  swapper.dir = tmp;
  thread = g_thread_new ("swapper", header_swap_thread, &swapper);
  end = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  /* at least 2 s and 500 keys, until a FIFO was met (at most 22 s) */
  for (guint i = 0; g_get_monotonic_time () < end || i < 500 || indeterminate == 0; i++)
    {
      g_autofree char *key = key_of (&in);

      if (key != NULL)
        keys++;
      else
        indeterminate++;
      if (g_get_monotonic_time () > end + 20 * G_USEC_PER_SEC)
        break;
    }
  g_atomic_int_set (&swapper.stop, 1);
  g_thread_join (thread);
  /* stderr: the parent shows it (a child's TAP comments are lost) */
  g_printerr ("# h.h swapped %u times: %u keys, %u indeterminate (a FIFO met)\n", swapper.swaps, keys,
              indeterminate);
  g_assert_cmpuint (keys, >, 0);
  g_assert_cmpuint (indeterminate, >, 0);
  rm_rf (tmp);
}

/* Directives spelled unusually are still followed: after the end of a
 * comment, continued over lines, after a NUL byte, #include_next, and a
 * mere mention in a comment (more than NVRTC reads, which is harmless) */
static void
test_key_unusual_directives (void)
{
  static const char * const sources[] = {
    "/* a comment\n   ending here */ #include \"x.h\"\n",
    "#include \\\n  \"x.h\"\n",
    "# \\\ninclude <x.h>\n",
    "#include_next <x.h>\n",
    "#import \"x.h\"\n",
    "// #include <x.h>\n",
    "#include <y.h>\n",       /* y.h has a NUL byte, then #include "x.h" */
  };
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *x = g_build_filename (tmp, "x.h", NULL);
  g_autofree char *y = g_build_filename (tmp, "y.h", NULL);
  const char *dirs[] = { tmp, NULL };

  if (!require_nvrtc ())
    return;

  static const char y_text[] = "#define Y\n\0\n#include \"x.h\"\n";

  g_assert_true (g_file_set_contents (y, y_text, sizeof y_text - 1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    {
      GCudaCompileInputs in = inputs_for (sources[i]);
      g_autofree char *k0 = NULL;
      g_autofree char *k1 = NULL;

      in.include_dirs = dirs;
      write_file (x, "#define X 1\n");
      k0 = key_of (&in);
      write_file (x, "#define X 2\n");
      k1 = key_of (&in);
      g_assert_nonnull (k0);
      if (g_str_equal (k0, k1))
        g_error ("source %u: x.h was not followed", i);
    }
  rm_rf (tmp);
}

/* A "..." include that is not found is recorded: creating the file (in the
 * including file's directory, or in an include dir) changes the key. */
static void
test_key_missing_include (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *inc = g_build_filename (tmp, "inc", NULL);
  g_autofree char *a = g_build_filename (inc, "a.h", NULL);
  g_autofree char *gen = g_build_filename (inc, "generated.h", NULL);
  g_autofree char *other = g_build_filename (tmp, "other", NULL);
  g_autofree char *gen2 = g_build_filename (other, "generated.h", NULL);
  g_autofree char *k0 = NULL, *k1 = NULL, *k2 = NULL, *k3 = NULL;
  const char *dirs[] = { inc, other, NULL };
  GCudaCompileInputs in = inputs_for ("#include \"a.h\"\n__global__ void f() {}\n");

  if (!require_nvrtc ())
    return;

  write_file (a, "#include \"generated.h\"\n");
  g_assert_cmpint (g_mkdir_with_parents (other, 0700), ==, 0);
  in.include_dirs = dirs;

  k0 = key_of (&in);
  g_assert_nonnull (k0);
  k1 = key_of (&in);
  g_assert_cmpstr (k1, ==, k0);

  write_file (gen2, "#define G 1\n");   /* in a later include dir */
  k2 = key_of (&in);
  g_assert_cmpstr (k2, !=, k0);

  write_file (gen, "#define G 1\n");    /* beside a.h: shadows the other */
  k3 = key_of (&in);
  g_assert_cmpstr (k3, !=, k2);

  rm_rf (tmp);
}

/* "..." in the source is looked for in the current directory, as NVRTC does */
static void
test_key_current_dir (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *old_cwd = g_get_current_dir ();
  g_autofree char *h = g_build_filename (tmp, "here.h", NULL);
  g_autofree char *k0 = NULL, *k1 = NULL, *k2 = NULL;
  GCudaCompileInputs in = inputs_for ("#include \"here.h\"\n");

  if (!require_nvrtc ())
    return;

  g_assert_cmpint (g_chdir (tmp), ==, 0);
  k0 = key_of (&in);
  write_file (h, "#define H 1\n");
  k1 = key_of (&in);
  write_file (h, "#define H 2\n");
  k2 = key_of (&in);
  g_assert_cmpint (g_chdir (old_cwd), ==, 0);

  g_assert_nonnull (k0);
  g_assert_cmpstr (k0, !=, k1);
  g_assert_cmpstr (k1, !=, k2);

  /* Where nothing is found relative to it, the current directory does not
   * matter (a builtin header, say): the same key from anywhere */
  {
    GCudaCompileInputs builtin = inputs_for ("#include <cuda_fp16.h>\n#include \"no-such.h\"\n");
    g_autofree char *here = NULL;
    g_autofree char *there = NULL;

    here = key_of (&builtin);
    g_assert_cmpint (g_chdir (tmp), ==, 0);
    there = key_of (&builtin);
    g_assert_cmpint (g_chdir (old_cwd), ==, 0);
    g_assert_nonnull (here);
    g_assert_cmpstr (here, ==, there);
  }
  rm_rf (tmp);
}

/* An in-memory header's own #include of a file on disk is followed */
static void
test_key_memory_header_includes_file (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *disk = g_build_filename (tmp, "disk.h", NULL);
  g_autofree char *k0 = NULL, *k1 = NULL;
  g_autoptr(GHashTable) headers = g_hash_table_new (g_str_hash, g_str_equal);
  const char *dirs[] = { tmp, NULL };
  GCudaCompileInputs in = inputs_for ("#include \"mem.h\"\n");

  if (!require_nvrtc ())
    return;

  g_hash_table_insert (headers, "mem.h", "#include <disk.h>\n");
  in.headers = headers;
  in.include_dirs = dirs;
  write_file (disk, "#define D 1\n");
  k0 = key_of (&in);
  write_file (disk, "#define D 2\n");
  k1 = key_of (&in);
  g_assert_nonnull (k0);
  g_assert_cmpstr (k0, !=, k1);
  rm_rf (tmp);
}

/* What a compile reads cannot be known: no key, no caching */
static void
test_key_macro_include (void)
{
  static const char * const sources[] = {
    "#define H \"x.h\"\n#include H\n",
    "#  include   HEADER_NAME\n",
    "#include_next MACRO\n",
    "#if __has_include(HEADER)\n#endif\n",
    "/* a comment\n   ending here */ #include CONFIG\n",
    "#define X 1 \\\n  + 2\n#include \\\n  NAME\n",
  };
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *a = g_build_filename (tmp, "a.h", NULL);
  const char *dirs[] = { tmp, NULL };

  if (!require_nvrtc ())
    return;

  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    {
      GCudaCompileInputs in = inputs_for (sources[i]);
      g_autofree char *key = key_of (&in);

      g_assert_null (key);
    }

  /* ... also from a header, found in an include dir */
  {
    GCudaCompileInputs in = inputs_for ("#include <a.h>\n");
    g_autofree char *k0 = NULL;

    in.include_dirs = dirs;
    write_file (a, "#include <b.h>\n");
    k0 = key_of (&in);
    g_assert_nonnull (k0);
    write_file (a, "#include CONFIG_HEADER\n");
    g_assert_null (key_of (&in));
  }

  /* ... but not a mere mention, nor "defined(__has_include)" */
  {
    GCudaCompileInputs in = inputs_for ("// see #include below\n"
                                        "#if defined(__has_include)\n#endif\n"
                                        "#ifdef __has_include\n#endif\n");
    g_autofree char *key = key_of (&in);

    g_assert_nonnull (key);
  }
  rm_rf (tmp);
}

/* More than 64 MiB of headers is not hashed: no key */
static void
test_key_too_much (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *big = g_build_filename (tmp, "big.h", NULL);
  const char *dirs[] = { tmp, NULL };
  GCudaCompileInputs in = inputs_for ("#include <big.h>\n");
  int fd;

  if (!require_nvrtc ())
    return;

  fd = g_open (big, O_WRONLY | O_CREAT, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, 65 * 1024 * 1024), ==, 0);   /* sparse */
  close (fd);
  in.include_dirs = dirs;
  g_assert_null (key_of (&in));
  rm_rf (tmp);
}

/* __has_include ("x.h") depends on x.h existing */
static void
test_key_has_include (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *x = g_build_filename (tmp, "x.h", NULL);
  g_autofree char *k0 = NULL, *k1 = NULL;
  const char *dirs[] = { tmp, NULL };
  GCudaCompileInputs in = inputs_for ("#if __has_include(<x.h>)\n#define HAVE_X\n#endif\n");

  if (!require_nvrtc ())
    return;

  in.include_dirs = dirs;
  k0 = key_of (&in);
  write_file (x, "");
  k1 = key_of (&in);
  g_assert_nonnull (k0);
  g_assert_cmpstr (k0, !=, k1);
  rm_rf (tmp);
}

/* Headers that include each other; a symlink loop in a directory */
static void
test_key_cycle (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *a = g_build_filename (tmp, "a.h", NULL);
  g_autofree char *b = g_build_filename (tmp, "b.h", NULL);
  g_autofree char *loop = g_build_filename (tmp, "loop", NULL);
  g_autofree char *k0 = NULL, *k1 = NULL;
  const char *dirs[] = { tmp, NULL };
  GCudaCompileInputs in = inputs_for ("#include <a.h>\n");

  if (!require_nvrtc ())
    return;

  write_file (a, "#include \"b.h\"\n#include \"loop/a.h\"\n");
  write_file (b, "#include \"a.h\"\n#include <b.h>\n");
  g_assert_cmpint (symlink (".", loop), ==, 0);
  in.include_dirs = dirs;
  k0 = key_of (&in);
  g_assert_nonnull (k0);
  write_file (b, "#include \"a.h\"\n#include <b.h>\n// edited\n");
  k1 = key_of (&in);
  g_assert_cmpstr (k0, !=, k1);
  rm_rf (tmp);
}

/* Toolkit headers are taken by identity, not read. GCUDA_TOOLKIT_INCLUDE_DIR
 * is the toolkit the build found (meson registers no such case without
 * one); run by hand without it, /usr/local/cuda's, skipped when absent. */
static void
test_key_toolkit_headers (void)
{
  const char *configured = g_getenv ("GCUDA_TOOLKIT_INCLUDE_DIR");
  const char *include = configured;
  g_autofree char *fp16 = NULL;
  g_autofree char *opt = NULL;
  const char *options[] = { "--gpu-architecture=sm_90", NULL, NULL };
  GCudaCompileInputs in = inputs_for ("#include <cuda_fp16.h>\n#include <cuda_runtime.h>\n");
  g_autofree char *key = NULL;
  gint64 start;

  if (!require_nvrtc ())
    return;
  if (include == NULL)
    include = "/usr/local/cuda/include";
  fp16 = g_build_filename (include, "cuda_fp16.h", NULL);
  if (!g_file_test (fp16, G_FILE_TEST_EXISTS))
    {
      if (configured != NULL)
        g_test_fail_printf ("GCUDA_TOOLKIT_INCLUDE_DIR: %s has no cuda_fp16.h", include);
      else
        g_test_skip_printf ("no %s (GCUDA_TOOLKIT_INCLUDE_DIR)", fp16);
      return;
    }
  opt = g_strconcat ("-I", include, NULL);
  options[1] = opt;
  in.options = options;
  start = g_get_monotonic_time ();
  key = key_of (&in);
  g_test_message ("a key with toolkit headers took %" G_GINT64_FORMAT " us",
                  g_get_monotonic_time () - start);
  g_assert_nonnull (key);
}

/* NVRTC's file identity is in the key; no NVRTC at all: no key */
static void
test_key_nvrtc_identity (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *fake = g_build_filename (tmp, "libnvrtc.so.13.0.0", NULL);
  g_autofree char *missing = g_build_filename (tmp, "nonexistent", "libnvrtc.so.13", NULL);
  g_autofree char *k0 = NULL, *k1 = NULL, *k2 = NULL, *k3 = NULL;
  g_auto(GStrv) env = g_get_environ ();
  g_auto(GStrv) env_missing = NULL;
  const char *args[] = { "--child-key", NULL };

  write_file (fake, "not really a library");
  env = g_environ_setenv (env, "GCUDA_NVRTC_LIBRARY", fake, TRUE);
  k0 = child_run (args, (const char * const *) env);
  k1 = child_run (args, (const char * const *) env);
  g_assert_cmpuint (strlen (k0), ==, 64);
  g_assert_cmpstr (k0, ==, k1);

  write_file (fake, "not really a library, version 2");
  k2 = child_run (args, (const char * const *) env);
  g_assert_cmpuint (strlen (k2), ==, 64);
  g_assert_cmpstr (k2, !=, k0);

  /* the real NVRTC, where there is one: loading it does not change keys */
  {
    const char *load_args[] = { "--child-key-load", NULL };
    g_autofree char *out = child_run (load_args, NULL);

    if (g_str_equal (out, "no nvrtc") || g_str_equal (out, "loaded by the key"))
      g_test_message ("NVRTC %s: keys before and after loading it not compared",
                      g_str_equal (out, "no nvrtc") ? "cannot be loaded here" : "was not found without loading it");
    else
      g_assert_cmpstr (out, ==, "same");
  }

  env_missing = g_environ_setenv (g_strdupv (env), "GCUDA_NVRTC_LIBRARY", missing, TRUE);
  k3 = child_run (args, (const char * const *) env_missing);
  g_assert_cmpstr (k3, ==, "NULL");
  rm_rf (tmp);
}

/* ------------------------------------------------------------ the key memo */

/* A key computed again for the same inputs, nothing on disk changed: it
 * comes from the memo (no file read, no realpath()), and is the same. The
 * racy margin is 0: a directory the key looks at (the build's, on
 * LD_LIBRARY_PATH) may have changed just before the test. */
static void
test_key_memo_hit (void)
{
  GCudaCompileInputs in = inputs_for ("__global__ void f(int *p) { *p = 7; }\n// memo hit\n");
  g_autofree char *k0 = NULL, *k1 = NULL, *k2 = NULL;
  guint64 hits;
  gint64 start, first, again, old_margin;

  if (!require_nvrtc ())
    return;
  old_margin = _gcuda_compile_cache_set_racy_margin (0);
  _gcuda_compile_cache_clear_memory ();
  start = g_get_monotonic_time ();
  k0 = key_of (&in);
  first = g_get_monotonic_time () - start;
  hits = _gcuda_compile_cache_key_memo_hits ();
  start = g_get_monotonic_time ();
  k1 = key_of (&in);
  again = g_get_monotonic_time () - start;
  g_test_message ("a key: %" G_GINT64_FORMAT " us computed, %" G_GINT64_FORMAT " us from the memo", first, again);
  g_assert_cmpstr (k0, ==, k1);
  g_assert_cmpuint (_gcuda_compile_cache_key_memo_hits (), ==, hits + 1);

  /* forgotten with the in-process cache, as in a fresh process */
  _gcuda_compile_cache_clear_memory ();
  k2 = key_of (&in);
  g_assert_cmpstr (k2, ==, k0);
  g_assert_cmpuint (_gcuda_compile_cache_key_memo_hits (), ==, hits + 1);
  _gcuda_compile_cache_set_racy_margin (old_margin);
}

/* A source that includes no file reads nothing on disk but NVRTC, which
 * the process does not see change: its memoized key is served without a
 * stat() (here: after the NVRTC file changed, the memo still gives the
 * key; computed afresh, the key differs, as a new process's would). */
static void
test_key_memo_no_files (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *fake = g_build_filename (tmp, "libnvrtc.so.13.0.0", NULL);
  g_auto(GStrv) env = g_get_environ ();
  const char *args[] = { "--child-key-nvrtc-edit", fake, NULL };
  g_autofree char *out = NULL;

  write_file (fake, "not really a library");
  env = g_environ_setenv (env, "GCUDA_NVRTC_LIBRARY", fake, TRUE);
  out = child_run (args, (const char * const *) env);
  g_assert_cmpstr (out, ==, "memo-same hit fresh-different");
  rm_rf (tmp);
}

/* In place, same size, the mtime set back to what it was (touch -d): only
 * the ctime tells, and the memo is never served stale. The racy margin is
 * set to 0 so that the fresh file is memoized at all; the test then waits
 * longer than a file-system clock tick before editing. */
static void
test_key_memo_same_size_same_mtime (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *h = g_build_filename (tmp, "value.h", NULL);
  g_autofree char *k0 = NULL, *k1 = NULL, *k2 = NULL, *fresh = NULL;
  const char *dirs[] = { tmp, NULL };
  GCudaCompileInputs in = inputs_for ("#include <value.h>\n__global__ void f(int *p) { *p = VALUE; }\n");
  struct stat before, after;
  gint64 old_margin;
  guint64 hits;
  int fd;

  if (!require_nvrtc ())
    return;
  in.include_dirs = dirs;
  write_file (h, "#define VALUE 1111\n");
  g_usleep (50 * 1000);
  old_margin = _gcuda_compile_cache_set_racy_margin (0);
  _gcuda_compile_cache_clear_memory ();

  k0 = key_of (&in);
  hits = _gcuda_compile_cache_key_memo_hits ();
  k1 = key_of (&in);
  g_assert_cmpstr (k1, ==, k0);
  g_assert_cmpuint (_gcuda_compile_cache_key_memo_hits (), ==, hits + 1);   /* memoized */

  g_usleep (50 * 1000);
  g_assert_cmpint (g_stat (h, &before), ==, 0);
  fd = g_open (h, O_WRONLY, 0);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, "#define VALUE 2222\n", 19), ==, 19);
  {
    const struct timespec times[2] = { before.st_atim, before.st_mtim };

    g_assert_cmpint (futimens (fd, times), ==, 0);
  }
  close (fd);
  g_assert_cmpint (g_stat (h, &after), ==, 0);
  g_assert_cmpint (after.st_size, ==, before.st_size);
  g_assert_cmpint (after.st_mtim.tv_sec, ==, before.st_mtim.tv_sec);
  g_assert_cmpint (after.st_mtim.tv_nsec, ==, before.st_mtim.tv_nsec);
  g_assert_cmpint (after.st_ino, ==, before.st_ino);

  hits = _gcuda_compile_cache_key_memo_hits ();
  k2 = key_of (&in);
  g_assert_cmpstr (k2, !=, k0);
  g_assert_cmpuint (_gcuda_compile_cache_key_memo_hits (), ==, hits);   /* refused */
  _gcuda_compile_cache_clear_memory ();
  fresh = key_of (&in);
  g_assert_cmpstr (k2, ==, fresh);

  _gcuda_compile_cache_set_racy_margin (old_margin);
  rm_rf (tmp);
}

/* A header written just now is not memoized (its times could survive an
 * edit within the same clock tick): an edit right away, same size, mtime
 * set back, is seen whatever the ctime says. */
static void
test_key_memo_racy (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *h = g_build_filename (tmp, "value.h", NULL);
  g_autofree char *k0 = NULL, *k1 = NULL, *k2 = NULL;
  const char *dirs[] = { tmp, NULL };
  GCudaCompileInputs in = inputs_for ("#include <value.h>\n__global__ void f(int *p) { *p = VALUE; }\n");
  struct stat before;
  guint64 hits;
  int fd;

  if (!require_nvrtc ())
    return;
  in.include_dirs = dirs;
  write_file (h, "#define VALUE 3333\n");
  _gcuda_compile_cache_clear_memory ();
  k0 = key_of (&in);
  hits = _gcuda_compile_cache_key_memo_hits ();
  k1 = key_of (&in);
  g_assert_cmpstr (k1, ==, k0);
  g_assert_cmpuint (_gcuda_compile_cache_key_memo_hits (), ==, hits);   /* not memoized */

  g_assert_cmpint (g_stat (h, &before), ==, 0);
  fd = g_open (h, O_WRONLY, 0);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, "#define VALUE 4444\n", 19), ==, 19);
  {
    const struct timespec times[2] = { before.st_atim, before.st_mtim };

    g_assert_cmpint (futimens (fd, times), ==, 0);
  }
  close (fd);
  k2 = key_of (&in);
  g_assert_cmpstr (k2, !=, k0);
  rm_rf (tmp);
}

/* A memoized key whose "..." include was missing: creating the header (in
 * an include dir, or beside the including header) is seen. */
static void
test_key_memo_created_header (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *inc = g_build_filename (tmp, "inc", NULL);
  g_autofree char *sub = g_build_filename (tmp, "inc", "deeper", "sub", NULL);
  g_autofree char *a = g_build_filename (inc, "a.h", NULL);
  g_autofree char *gen = g_build_filename (inc, "generated.h", NULL);
  g_autofree char *deep = g_build_filename (sub, "deep.h", NULL);
  g_autofree char *k0 = NULL, *k1 = NULL, *k2 = NULL;
  const char *dirs[] = { inc, NULL };
  GCudaCompileInputs in = inputs_for ("#include \"a.h\"\n#include <deeper/sub/deep.h>\n");
  gint64 old_margin;
  guint64 hits;

  if (!require_nvrtc ())
    return;
  in.include_dirs = dirs;
  write_file (a, "#include \"generated.h\"\n");
  g_usleep (50 * 1000);
  old_margin = _gcuda_compile_cache_set_racy_margin (0);
  _gcuda_compile_cache_clear_memory ();
  k0 = key_of (&in);
  g_free (key_of (&in));
  hits = _gcuda_compile_cache_key_memo_hits ();

  g_usleep (50 * 1000);
  write_file (gen, "#define G 1\n");
  k1 = key_of (&in);
  g_assert_cmpstr (k1, !=, k0);

  /* missing directories too: the nearest existing one is watched */
  g_usleep (50 * 1000);
  g_free (key_of (&in));   /* memoized again */
  g_usleep (50 * 1000);
  write_file (deep, "#define D 1\n");   /* makes deeper/sub */
  k2 = key_of (&in);
  g_assert_cmpstr (k2, !=, k1);
  g_assert_cmpuint (_gcuda_compile_cache_key_memo_hits (), ==, hits + 1);

  _gcuda_compile_cache_set_racy_margin (old_margin);
  rm_rf (tmp);
}

/* GCuda's built-in standard headers are in every key: another text, another
 * key (and the memo does not answer with the old one) */
static void
test_key_std_headers (void)
{
  GCudaCompileInputs in = inputs_for ("#include <stdio.h>\n__global__ void f() { printf(\"x\\n\"); }\n");
  const GCudaStdHeader *builtin = _gcuda_std_headers ();
  g_autoptr(GArray) edited = g_array_new (TRUE, TRUE, sizeof (GCudaStdHeader));
  g_autofree char *k0 = NULL, *k1 = NULL, *k2 = NULL;
  gboolean found = FALSE;

  if (!require_nvrtc ())
    return;
  g_assert_nonnull (_gcuda_std_header_lookup ("stdio.h"));
  g_assert_nonnull (_gcuda_std_header_lookup ("cstdint"));
  g_assert_null (_gcuda_std_header_lookup ("iostream"));
  for (guint i = 0; builtin[i].name != NULL; i++)
    {
      GCudaStdHeader h = builtin[i];

      if (g_str_equal (h.name, "stdio.h"))
        {
          h.text = "/* edited */\n";
          found = TRUE;
        }
      g_array_append_val (edited, h);
    }
  g_assert_true (found);

  k0 = key_of (&in);
  k1 = key_of (&in);
  g_assert_cmpstr (k0, ==, k1);
  _gcuda_std_headers_set_table ((const GCudaStdHeader *) (gpointer) edited->data);
  k1 = (g_free (k1), key_of (&in));
  _gcuda_std_headers_set_table (NULL);
  k2 = key_of (&in);
  g_assert_cmpstr (k1, !=, k0);
  g_assert_cmpstr (k2, ==, k0);
}

/* ----------------------------------------------------------------- entries */

static void
test_store_memory (void)
{
  g_autoptr(GBytes) image = test_image (1, 1000);
  g_autoptr(GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr(GBytes) got = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;
  g_autoptr(GHashTable) lowered = NULL;
  g_autoptr(GHashTable) none = lowered_new (NULL);
  const char *key = "1111111111111111111111111111111111111111111111111111111111111111";

  got = _gcuda_compile_cache_lookup (NULL, key, &log, &lowered);
  g_assert_null (got);

  g_assert_true (_gcuda_compile_cache_store (NULL, key, image, "a log", NULL, &error));
  g_assert_no_error (error);
  got = _gcuda_compile_cache_lookup (NULL, key, &log, &lowered);
  g_assert_nonnull (got);
  g_assert_true (g_bytes_equal (got, image));
  g_assert_cmpstr (log, ==, "a log");
  g_assert_null (lowered);
  g_clear_pointer (&got, g_bytes_unref);
  g_clear_pointer (&log, g_free);

  /* the outputs are optional; an empty image is an image */
  key = "2222222222222222222222222222222222222222222222222222222222222222";
  g_assert_true (_gcuda_compile_cache_store (NULL, key, empty, NULL, none, &error));
  got = _gcuda_compile_cache_lookup (NULL, key, NULL, NULL);
  g_assert_nonnull (got);
  g_assert_cmpuint (g_bytes_get_size (got), ==, 0);
  g_clear_pointer (&got, g_bytes_unref);
  got = _gcuda_compile_cache_lookup (NULL, key, &log, &lowered);
  g_assert_null (log);
  g_assert_nonnull (lowered);   /* stored, with no names: not the same as none stored */
  g_assert_cmpuint (g_hash_table_size (lowered), ==, 0);
}

static void
test_store_disk (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *dir = g_build_filename (tmp, "new", "cache", NULL);
  g_autofree char *path = entry_path (dir, KEY_A);
  g_autoptr(GBytes) image = test_image (2, 200000);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) lowered = test_lowered ();
  g_autofree char *lowered_text = _gcuda_compile_cache_serialize_lowered (lowered);
  g_autofree char *expected = expected_hit (image, "line 1\nline 2", lowered);
  g_autofree char *out = NULL;
  g_autofree char *out_b = NULL;
  struct stat st;
  GDir *d;
  const char *name;
  guint n = 0;

  /* made 0700, parents too */
  g_assert_true (_gcuda_compile_cache_store (dir, KEY_A, image, "line 1\nline 2", lowered, &error));
  g_assert_no_error (error);
  g_assert_cmpint (stat (dir, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_true (S_ISREG (st.st_mode));
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  g_assert_cmpint (st.st_size, ==, HEADER_SIZE + 13 + strlen (lowered_text) + 200000);

  /* nothing else left in the directory */
  d = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (d)) != NULL)
    n++;
  g_dir_close (d);
  g_assert_cmpuint (n, ==, 1);

  /* a fresh process reads it from disk, without loading NVRTC */
  {
    g_auto(GStrv) env = g_environ_setenv (g_get_environ (), "GCUDA_TEST_TIMING", "1", TRUE);
    const char *args[] = { "--child-lookup", dir, KEY_A, NULL };
    const char *key_args[] = { "--child-key", NULL };
    g_autofree char *key = NULL;

    out = child_run (args, (const char * const *) env);
    g_assert_cmpstr (out, ==, expected);
    key = child_run (key_args, (const char * const *) env);
  }
  out_b = child_lookup (dir, KEY_B);
  g_assert_cmpstr (out_b, ==, "miss");

  /* an entry renamed to another key's name is that key's corrupt entry */
  {
    g_autofree char *path_b = entry_path (dir, KEY_B);
    g_autofree char *data = NULL;
    gsize len;

    g_assert_true (g_file_get_contents (path, &data, &len, NULL));
    write_file (path_b, "");
    g_assert_true (g_file_set_contents_full (path_b, data, len, G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL));
    g_free (out_b);
    out_b = child_lookup (dir, KEY_B);
    g_assert_cmpstr (out_b, ==, "miss");
    g_assert_false (g_file_test (path_b, G_FILE_TEST_EXISTS));
  }

  /* Written by another process, read here first without the outputs: they
   * are still there for the next lookup (from the in-process cache) */
  {
    const char *args[] = { "--child-store", dir, KEY_B, "1", NULL };
    g_autoptr(GBytes) stored = test_image (1, 100000);
    g_autoptr(GBytes) got = NULL;
    g_autofree char *log = NULL;
    g_autoptr(GHashTable) got_lowered = NULL;
    g_autofree char *none = child_run (args, NULL);
    g_autofree char *path_b = entry_path (dir, KEY_B);

    g_assert_cmpstr (none, ==, "");

    got = _gcuda_compile_cache_lookup (dir, KEY_B, NULL, NULL);
    g_assert_nonnull (got);
    g_assert_true (g_bytes_equal (got, stored));
    g_clear_pointer (&got, g_bytes_unref);
    g_assert_cmpint (g_unlink (path_b), ==, 0);
    got = _gcuda_compile_cache_lookup (dir, KEY_B, &log, &got_lowered);
    g_assert_nonnull (got);
    g_assert_true (g_bytes_equal (got, stored));
    g_assert_cmpstr (log, ==, "the log");
    g_assert_cmpstr (g_hash_table_lookup (got_lowered, "f<\tint>"), ==, "_Z1fIiEvPT_");
  }

  rm_rf (tmp);
}

/* Any damage is a miss, and the entry is deleted */
static void
test_store_corrupt (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = entry_path (dir, KEY_A);
  g_autoptr(GBytes) image = test_image (3, 5000);
  const char *log = "warning: something";
  g_autoptr(GHashTable) lowered = lowered_new ("x", "y", NULL);   /* "1:x,1:y," */
  /* magic, version, flags, key, each length, the digest, log, lowered, payload (first, middle, last) */
  const gsize offsets[] = { 0, 11, 12, 16, 20, 83, 84, 92, 100, 108, 139,
                            HEADER_SIZE, HEADER_SIZE + 18, HEADER_SIZE + 18 + 8,
                            HEADER_SIZE + 18 + 8 + 2500, HEADER_SIZE + 18 + 8 + 4999 };

  for (guint i = 0; i < G_N_ELEMENTS (offsets) + 3; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *data = NULL;
      g_autofree char *out = NULL;
      gsize len;

      g_assert_true (_gcuda_compile_cache_store (dir, KEY_A, image, log, lowered, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &data, &len, NULL));
      g_assert_cmpuint (len, ==, HEADER_SIZE + 18 + 8 + 5000);
      if (i < G_N_ELEMENTS (offsets))
        data[offsets[i]] ^= 0x20;
      else if (i == G_N_ELEMENTS (offsets))
        len -= 1;                /* truncated */
      else if (i == G_N_ELEMENTS (offsets) + 1)
        len = 10;                /* shorter than a header */
      else
        len = 0;                 /* empty */
      g_assert_true (g_file_set_contents_full (path, data, len, G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL));

      out = child_lookup (dir, KEY_A);
      if (!g_str_equal (out, "miss"))
        g_error ("damage %u was not detected: %s", i, out);
      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    }

  /* and intact, it is a hit */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *out = NULL;
    g_autofree char *expected = expected_hit (image, log, lowered);

    g_assert_true (_gcuda_compile_cache_store (dir, KEY_A, image, log, lowered, &error));
    out = child_lookup (dir, KEY_A);
    g_assert_cmpstr (out, ==, expected);
  }
  rm_rf (dir);
}

/* A directory others can read, or enter, is not used: lookups miss (the
 * entry is left alone) and stores fail with G_IO_ERROR_PERMISSION_DENIED
 * (the compiler reports it as a warning). */
static void
test_store_not_private (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = entry_path (dir, KEY_A);
  g_autoptr(GBytes) image = test_image (4, 300);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *out2 = NULL;
  g_autofree char *expected = expected_hit (image, "log", NULL);
  const guint modes[] = { 0755, 0750, 0701, 0770, 0777, 0500 };

  g_assert_true (_gcuda_compile_cache_store (dir, KEY_A, image, "log", NULL, &error));
  g_assert_no_error (error);
  out = child_lookup (dir, KEY_A);
  g_assert_cmpstr (out, ==, expected);

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autofree char *miss = NULL;

      g_assert_cmpint (chmod (dir, modes[i]), ==, 0);
      miss = child_lookup (dir, KEY_A);
      g_assert_cmpstr (miss, ==, "miss");
      g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
      g_assert_false (_gcuda_compile_cache_store (dir, KEY_B, image, "log", NULL, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
      g_test_message ("%s", error->message);
      g_clear_error (&error);
    }
  g_assert_cmpint (chmod (dir, 0700), ==, 0);
  out2 = child_lookup (dir, KEY_A);
  g_assert_cmpstr (out2, ==, expected);
  rm_rf (dir);
}

/* Entries owned by someone else, symbolic links, and other non-files are
 * ignored: not read, not deleted. */
static void
test_store_foreign_entries (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *elsewhere = make_tmp_dir ();
  g_autofree char *path = entry_path (dir, KEY_A);
  g_autofree char *target = g_build_filename (elsewhere, "entry.bin", NULL);
  g_autoptr(GBytes) image = test_image (5, 300);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;

  /* a symlink to a valid entry */
  g_assert_true (_gcuda_compile_cache_store (dir, KEY_A, image, "log", NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (rename (path, target), ==, 0);
  g_assert_cmpint (symlink (target, path), ==, 0);
  out = child_lookup (dir, KEY_A);
  g_assert_cmpstr (out, ==, "miss");
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_SYMLINK));
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_clear_pointer (&out, g_free);

  /* a FIFO does not block the lookup */
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  out = child_lookup (dir, KEY_A);
  g_assert_cmpstr (out, ==, "miss");
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_clear_pointer (&out, g_free);

  /* owned by another user (needs root to arrange) */
  if (getuid () == 0)
    {
      g_assert_true (_gcuda_compile_cache_store (dir, KEY_A, image, "log", NULL, &error));
      g_assert_cmpint (chown (path, 65534, 65534), ==, 0);
      out = child_lookup (dir, KEY_A);
      g_assert_cmpstr (out, ==, "miss");
      g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
      g_clear_pointer (&out, g_free);

      /* and a directory owned by another user */
      g_assert_cmpint (g_unlink (path), ==, 0);
      g_assert_true (_gcuda_compile_cache_store (dir, KEY_A, image, "log", NULL, &error));
      g_assert_cmpint (chown (dir, 65534, 65534), ==, 0);
      out = child_lookup (dir, KEY_A);
      g_assert_cmpstr (out, ==, "miss");
      g_assert_false (_gcuda_compile_cache_store (dir, KEY_B, image, "log", NULL, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
      g_clear_error (&error);
      g_assert_cmpint (chown (dir, 0, 0), ==, 0);
    }
  else
    g_test_message ("not root: the foreign-owner cases were not run");

  rm_rf (dir);
  rm_rf (elsewhere);
}

typedef struct {
  const char *dir;
  guint       seed;
} StoreThread;

static gpointer
store_thread (gpointer data)
{
  StoreThread *t = data;

  for (guint i = 0; i < 50; i++)
    {
      g_autoptr(GBytes) image = test_image (7, 100000);
      g_autoptr(GHashTable) lowered = test_lowered ();
      g_autoptr(GBytes) got = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *log = NULL;

      g_assert_true (_gcuda_compile_cache_store (t->dir, KEY_A, image, "the log", lowered, &error));
      g_assert_no_error (error);
      got = _gcuda_compile_cache_lookup (t->dir, KEY_A, &log, NULL);
      g_assert_nonnull (got);
      g_assert_true (g_bytes_equal (got, image));
      g_assert_cmpstr (log, ==, "the log");
    }
  return NULL;
}

static void
assert_only_entry (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_assert_cmpstr (name, ==, KEY_A ".bin");
  g_dir_close (d);
}

static void
test_store_threads (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(GBytes) image = test_image (7, 100000);
  g_autoptr(GHashTable) lowered = test_lowered ();
  g_autofree char *expected = expected_hit (image, "the log", lowered);
  g_autofree char *out = NULL;
  GThread *threads[8];
  StoreThread t = { dir, 0 };

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("store", store_thread, &t);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);

  out = child_lookup (dir, KEY_A);
  g_assert_cmpstr (out, ==, expected);
  assert_only_entry (dir);
  rm_rf (dir);
}

static void
test_store_processes (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(GBytes) image = test_image (1, 100000);
  g_autoptr(GHashTable) lowered = test_lowered ();
  g_autofree char *expected = expected_hit (image, "the log", lowered);
  g_autofree char *out = NULL;
  GPid pids[6];

  for (guint i = 0; i < G_N_ELEMENTS (pids); i++)
    {
      g_autoptr(GError) error = NULL;
      const char *argv[] = { self_exe, "--child-store", dir, KEY_A, "40", NULL };

      g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pids[i], &error);
      g_assert_no_error (error);
    }
  for (guint i = 0; i < G_N_ELEMENTS (pids); i++)
    {
      int status;

      g_assert_cmpint (waitpid (pids[i], &status, 0), ==, pids[i]);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);
      g_spawn_close_pid (pids[i]);
    }
  out = child_lookup (dir, KEY_A);
  g_assert_cmpstr (out, ==, expected);
  assert_only_entry (dir);
  rm_rf (dir);
}

/* ------------------------------------------------------------ lowered names */

static void
assert_tables_equal (GHashTable *a,
                     GHashTable *b)
{
  GHashTableIter iter;
  gpointer k, v;

  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_cmpuint (g_hash_table_size (a), ==, g_hash_table_size (b));
  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &k, &v))
    g_assert_cmpstr (g_hash_table_lookup (b, k), ==, v);
}

/* Format 2's lowered names: netstrings, sorted; any byte but NUL kept;
 * nothing but the serializer's own output parses */
static void
test_lowered_format (void)
{
  g_autoptr(GHashTable) awkward = test_lowered ();
  g_autoptr(GHashTable) two = lowered_new ("b", "2", "a", "1", NULL);
  g_autoptr(GHashTable) empty = lowered_new (NULL);
  g_autofree char *text = NULL;
  g_autofree char *again = NULL;
  g_autofree char *two_text = NULL;
  g_autofree char *empty_text = NULL;
  g_autoptr(GHashTable) parsed = NULL;
  g_autoptr(GHashTable) parsed_empty = NULL;
  static const char * const bad[] = {
    "1:a,",                          /* a name without its value */
    "1:a,1:1",                       /* no closing comma */
    "1:a,1:1,,",                     /* trailing byte */
    "1:a,1:1,x",
    "01:a,1:1,",                     /* a leading zero */
    "1:a;1:1,",                      /* not a comma */
    "2:a,1:1,",                      /* a length past the text */
    "1:b,1:1,1:a,1:1,",              /* not sorted */
    "1:a,1:1,1:a,1:2,",              /* a duplicate */
    "18446744073709551616:a,1:1,",   /* 2^64 */
    "99999999999999999999999999:a,",
    ":a,1:1,",
    "-1:a,1:1,",
    " 1:a,1:1,",
    "f<int>\t_Z1fIiEvPT_\n",         /* format 1 */
  };

  text = _gcuda_compile_cache_serialize_lowered (awkward);
  parsed = _gcuda_compile_cache_parse_lowered (text, strlen (text));
  assert_tables_equal (parsed, awkward);
  again = _gcuda_compile_cache_serialize_lowered (parsed);
  g_assert_cmpstr (again, ==, text);

  two_text = _gcuda_compile_cache_serialize_lowered (two);
  g_assert_cmpstr (two_text, ==, "1:a,1:1,1:b,1:2,");
  empty_text = _gcuda_compile_cache_serialize_lowered (empty);
  g_assert_cmpstr (empty_text, ==, "");
  parsed_empty = _gcuda_compile_cache_parse_lowered ("", 0);
  g_assert_nonnull (parsed_empty);
  g_assert_cmpuint (g_hash_table_size (parsed_empty), ==, 0);
  g_assert_null (_gcuda_compile_cache_serialize_lowered (NULL));

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GHashTable *t = _gcuda_compile_cache_parse_lowered (bad[i], strlen (bad[i]));

      if (t != NULL)
        g_error ("“%s” parsed", bad[i]);
    }
  /* a NUL inside a name */
  g_assert_null (_gcuda_compile_cache_parse_lowered ("3:a\0b,1:1,", 10));
}

/* A name expression with a tab, or a newline, keeps its lowered name on an
 * in-process hit, a disk hit (in-process cache cleared) and in a fresh
 * process. Format 1 lost it: "f<\tint>" was cut at the tab. */
static void
test_lowered_hit (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(GBytes) image = test_image (11, 3000);
  g_autoptr(GHashTable) lowered = test_lowered ();
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = expected_hit (image, NULL, lowered);
  g_autofree char *out = NULL;

  g_assert_true (_gcuda_compile_cache_store (dir, KEY_C, image, NULL, lowered, &error));
  g_assert_no_error (error);
  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr(GHashTable) got = NULL;
      g_autoptr(GBytes) hit = NULL;
      g_autofree char *log = NULL;

      if (pass == 1)
        _gcuda_compile_cache_clear_memory ();   /* now from the disk */
      hit = _gcuda_compile_cache_lookup (dir, KEY_C, &log, &got);
      g_assert_nonnull (hit);
      g_assert_null (log);
      assert_tables_equal (got, lowered);
      g_assert_cmpstr (g_hash_table_lookup (got, "f<\tint>"), ==, "_Z1fIiEvPT_");
      g_assert_cmpstr (g_hash_table_lookup (got, "g<\nfloat>"), ==, "_Z1gIfEvPT_");
    }
  out = child_lookup (dir, KEY_C);
  g_assert_cmpstr (out, ==, expected);
  rm_rf (dir);
}

/* An entry whose digest is right but whose lowered names are not the
 * serializer's (format 1's text, say) is damaged: missed and deleted */
static void
test_lowered_invalid_entry (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = entry_path (dir, KEY_A);
  g_autoptr(GBytes) image = test_image (12, 100);
  g_autoptr(GHashTable) lowered = lowered_new ("k", "v", NULL);
  g_autoptr(GBytes) entry = _gcuda_compile_cache_build_entry (KEY_A, image, NULL, lowered);
  g_autoptr(GChecksum) cs = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree guint8 *data = g_memdup2 (g_bytes_get_data (entry, NULL), g_bytes_get_size (entry));
  gsize len = g_bytes_get_size (entry);
  guint8 digest[32];
  gsize digest_len = sizeof digest;
  g_autofree char *out = NULL;

  /* "1:k,1:v," becomes "1:k;1:v," and the digest is made to match */
  g_assert_cmpmem (data + HEADER_SIZE, 8, "1:k,1:v,", 8);
  data[HEADER_SIZE + 3] = ';';
  g_checksum_update (cs, data + HEADER_SIZE, len - HEADER_SIZE);
  g_checksum_get_digest (cs, digest, &digest_len);
  memcpy (data + 108, digest, 32);
  g_assert_true (g_file_set_contents_full (path, (const char *) data, len, G_FILE_SET_CONTENTS_CONSISTENT,
                                           0600, NULL));
  {
    g_autoptr(GBytes) bytes = g_bytes_new (data, len);
    g_autofree char *log = NULL;
    g_autoptr(GHashTable) got = NULL;
    g_autoptr(GBytes) parsed = _gcuda_compile_cache_parse_entry (bytes, KEY_A, &log, &got);

    g_assert_null (parsed);
  }
  out = child_lookup (dir, KEY_A);
  g_assert_cmpstr (out, ==, "miss");
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* and the builder's bytes are what the parser takes back */
  {
    g_autofree char *log = NULL;
    g_autoptr(GHashTable) got = NULL;
    g_autoptr(GBytes) parsed = _gcuda_compile_cache_parse_entry (entry, KEY_A, &log, &got);

    g_assert_nonnull (parsed);
    g_assert_true (g_bytes_equal (parsed, image));
    assert_tables_equal (got, lowered);
  }
  /* not under another key */
  {
    g_autofree char *log = NULL;
    g_autoptr(GHashTable) got = NULL;

    g_assert_null (_gcuda_compile_cache_parse_entry (entry, KEY_B, &log, &got));
    g_assert_null (got);
  }
  rm_rf (dir);
}

/* -------------------------------------------------------- the directory */

/* A store in @dir is refused with @code, and writes nothing; unsafe
 * (PERMISSION_DENIED), it is warned about, else only debug-logged */
static void
assert_store_refused (const char *dir,
                      int         code,
                      const char *why)
{
  g_autoptr(GBytes) image = test_image (13, 100);
  g_autoptr(GError) error = NULL;
  g_autofree char *warned = NULL;

  g_free (take_warnings ());   /* earlier ones are not this case's */
  g_assert_false (_gcuda_compile_cache_store (dir, KEY_A, image, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, code);
  g_test_message ("refused: %s", error->message);
  if (why != NULL && strstr (error->message, why) == NULL)
    g_error ("“%s” does not say “%s”", error->message, why);
  warned = take_warnings ();
  if (code == G_IO_ERROR_PERMISSION_DENIED)
    g_assert_nonnull (strstr (warned, error->message));
  else
    g_assert_cmpstr (warned, ==, "");
}

static void
assert_store_accepted (const char *dir)
{
  g_autoptr(GBytes) image = test_image (14, 100);
  g_autoptr(GError) error = NULL;
  g_autofree char *warned = NULL;

  g_assert_true (_gcuda_compile_cache_store (dir, KEY_A, image, NULL, NULL, &error));
  g_assert_no_error (error);
  warned = take_warnings ();
  g_assert_cmpstr (warned, ==, "");
}

/* A fresh process's lookup misses, with a warning, and deletes nothing */
static void
assert_lookup_refused (const char *dir)
{
  g_autofree char *err = NULL;
  g_autofree char *out = child_lookup_err (dir, KEY_B, &err);

  g_assert_cmpstr (out, ==, "miss");
  g_assert_nonnull (strstr (err, "WARNING"));
  g_assert_nonnull (strstr (err, "is not used"));
}

static guint
count_entries (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  if (d == NULL)
    return 0;
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".bin"))
      n++;
  g_dir_close (d);
  return n;
}

/* The audit's case: another user's symlink in the cache directory's place,
 * pointing at the victim's private directory (~/.ssh). Refused with a
 * warning, nothing written or deleted there, and compiles still work. */
static void
test_dir_symlink_foreign (void)
{
  g_autofree char *tmp = NULL;
  g_autofree char *victim = NULL;
  g_autofree char *link = NULL;
  g_autofree char *planted = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = { "--child-compile", NULL, NULL };

  if (getuid () != 0)
    {
      g_test_skip ("needs root to make a symlink another user owns (the untrusted-parent case runs everywhere)");
      return;
    }
  tmp = make_tmp_dir ();
  victim = g_build_filename (tmp, "victim-ssh", NULL);
  link = g_build_filename (tmp, "cache", NULL);
  planted = entry_path (victim, KEY_B);
  g_assert_cmpint (g_mkdir (victim, 0700), ==, 0);
  g_assert_cmpint (symlink (victim, link), ==, 0);
  g_assert_cmpint (lchown (link, 65534, 65534), ==, 0);

  assert_store_refused (link, G_IO_ERROR_PERMISSION_DENIED, "symbolic link owned by another user");
  g_assert_cmpuint (count_entries (victim), ==, 0);

  /* a "corrupt entry" there is not deleted by a lookup */
  write_file (planted, "not an entry");
  assert_lookup_refused (link);
  g_assert_true (g_file_test (planted, G_FILE_TEST_IS_REGULAR));

  /* a real compile warns and goes on without the cache */
  args[1] = link;
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
      out = child_run_full (NULL, args, NULL, &err);
      if (g_str_equal (out, "no-nvrtc"))
        {
          g_test_message ("no NVRTC here: the compile part was not run");
          break;
        }
      g_assert_cmpstr (out, ==, "ok from-cache=0");
      g_assert_nonnull (strstr (err, "is not used"));
    }
  g_assert_cmpuint (count_entries (victim), ==, 1);   /* the planted one only */
  rm_rf (tmp);
}

/* In a directory others can write (not sticky), anything could be anyone's:
 * a symlink of the user's own, a directory of the user's own, all refused.
 * Sticky (/tmp), what is the user's stays the user's: accepted. */
static void
test_dir_untrusted_parent (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *shared = g_build_filename (tmp, "shared", NULL);
  g_autofree char *mine = g_build_filename (tmp, "mine", NULL);
  g_autofree char *link = g_build_filename (shared, "cache-link", NULL);
  g_autofree char *real = g_build_filename (shared, "cache", NULL);
  g_autofree char *below = g_build_filename (shared, "cache", "below", NULL);
  const guint modes[] = { 0777, 0775, 0757, 0722 };

  g_assert_cmpint (g_mkdir (shared, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (mine, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (real, 0700), ==, 0);
  g_assert_cmpint (symlink (mine, link), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_assert_cmpint (chmod (shared, modes[i]), ==, 0);
      assert_store_refused (link, G_IO_ERROR_PERMISSION_DENIED, "can be written by other users");
      assert_store_refused (real, G_IO_ERROR_PERMISSION_DENIED, "can be written by other users");
      assert_store_refused (below, G_IO_ERROR_PERMISSION_DENIED, "can be written by other users");
    }
  g_assert_cmpuint (count_entries (mine), ==, 0);
  g_assert_false (g_file_test (below, G_FILE_TEST_EXISTS));
  assert_lookup_refused (real);

  /* sticky: the user's link and directory are safe there */
  g_assert_cmpint (chmod (shared, 01777), ==, 0);
  assert_store_accepted (link);
  assert_store_accepted (real);
  g_assert_cmpuint (count_entries (mine), ==, 1);

  /* ... another user's are not (root can make one) */
  if (getuid () == 0)
    {
      g_autofree char *foreign_link = g_build_filename (shared, "foreign-link", NULL);
      g_autofree char *foreign_dir = g_build_filename (shared, "foreign", NULL);

      g_assert_cmpint (symlink (mine, foreign_link), ==, 0);
      g_assert_cmpint (lchown (foreign_link, 65534, 65534), ==, 0);
      assert_store_refused (foreign_link, G_IO_ERROR_PERMISSION_DENIED, "owned by another user");
      /* a directory of someone else's on the way, however private */
      g_assert_cmpint (g_mkdir (foreign_dir, 0700), ==, 0);
      g_assert_cmpint (chown (foreign_dir, 65534, 65534), ==, 0);
      g_assert_cmpint (chmod (foreign_dir, 0777), ==, 0);
      {
        g_autofree char *inside = g_build_filename (foreign_dir, "cache", NULL);
        assert_store_refused (inside, G_IO_ERROR_PERMISSION_DENIED, "belongs to another user");
      }
    }
  rm_rf (tmp);
}

/* The user's own links, in directories only the user (or root) can write,
 * are followed, relative or absolute, anywhere on the path; loops and
 * files in a directory's place are refused */
static void
test_dir_symlink_own (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *usr_home = g_build_filename (tmp, "usr", "home", "me", NULL);
  g_autofree char *home = g_build_filename (tmp, "home", NULL);
  g_autofree char *via_home = g_build_filename (tmp, "home", "me", ".cache", "gcuda", NULL);
  g_autofree char *scratch = g_build_filename (tmp, "scratch", "cache", NULL);
  g_autofree char *dot_cache = g_build_filename (usr_home, ".cache", NULL);
  g_autofree char *in_scratch = g_build_filename (scratch, "gcuda", NULL);
  g_autofree char *loop_a = g_build_filename (tmp, "loop-a", NULL);
  g_autofree char *loop_b = g_build_filename (tmp, "loop-b", NULL);
  g_autofree char *file = g_build_filename (tmp, "file", NULL);
  g_autofree char *under_file = g_build_filename (tmp, "file", "cache", NULL);
  g_autofree char *dotdot = g_build_filename (tmp, "home", "me", "..", "me", ".cache", "gcuda", NULL);

  /* /home -> usr/home (relative, as some systems have it);
   * ~/.cache -> ../../../scratch/cache (relative, with ..) */
  g_assert_cmpint (g_mkdir_with_parents (usr_home, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (scratch, 0700), ==, 0);
  g_assert_cmpint (symlink ("usr/home", home), ==, 0);
  g_assert_cmpint (symlink ("../../../scratch/cache", dot_cache), ==, 0);

  assert_store_accepted (via_home);
  g_assert_cmpuint (count_entries (in_scratch), ==, 1);
  assert_store_accepted (dotdot);   /* ".." after a link: the link's target's parent */

  g_assert_cmpint (symlink ("loop-b", loop_a), ==, 0);
  g_assert_cmpint (symlink ("loop-a", loop_b), ==, 0);
  assert_store_refused (loop_a, G_IO_ERROR_TOO_MANY_LINKS, NULL);
  write_file (file, "");
  assert_store_refused (file, G_IO_ERROR_NOT_DIRECTORY, "is not a directory");
  assert_store_refused (under_file, G_IO_ERROR_NOT_DIRECTORY, "is not a directory");
  rm_rf (tmp);
}

/* Missing directories are made 0700 whatever the umask; a relative path is
 * taken from the current directory */
static void
test_dir_create (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *deep = g_build_filename (tmp, "a", "b", "c", NULL);
  g_autofree char *a = g_build_filename (tmp, "a", NULL);
  g_autofree char *old_cwd = g_get_current_dir ();
  g_autofree char *rel = g_build_filename (tmp, "rel", "cache", NULL);
  mode_t old_umask = umask (0777);
  struct stat st;

  assert_store_accepted (deep);
  umask (old_umask);
  g_assert_cmpint (stat (deep, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0700);
  g_assert_cmpint (stat (a, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0700);
  g_assert_cmpuint (count_entries (deep), ==, 1);

  /* a set-group-ID bit (inherited from a set-group-ID parent, say) is no
   * one's access: still private */
  g_assert_cmpint (chmod (deep, 02700), ==, 0);
  assert_store_accepted (deep);

  /* a lookup never creates anything */
  {
    g_autofree char *none = g_build_filename (tmp, "lookup-only", NULL);
    g_autofree char *out = child_lookup (none, KEY_A);

    g_assert_cmpstr (out, ==, "miss");
    g_assert_false (g_file_test (none, G_FILE_TEST_EXISTS));
  }

  g_assert_cmpint (g_chdir (tmp), ==, 0);
  assert_store_accepted ("rel/cache");
  g_assert_cmpint (g_chdir (old_cwd), ==, 0);
  g_assert_cmpuint (count_entries (rel), ==, 1);
  rm_rf (tmp);
}

/* A symlink in an entry's place: never followed, written through, deleted
 * (corrupt or evicted) or counted */
static void
test_entry_symlink (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *elsewhere = make_tmp_dir ();
  g_autofree char *precious = g_build_filename (elsewhere, "authorized_keys", NULL);
  g_autofree char *big = g_build_filename (elsewhere, "big", NULL);
  g_autofree char *path_a = entry_path (dir, KEY_A);
  g_autofree char *path_b = entry_path (dir, KEY_B);
  g_autofree char *text = NULL;
  g_autoptr(GBytes) image = test_image (15, 1000);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  int fd;

  write_file (precious, "ssh-ed25519 AAAA precious");
  g_assert_cmpint (symlink (precious, path_a), ==, 0);
  g_assert_true (_gcuda_compile_cache_store (dir, KEY_A, image, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (precious, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "ssh-ed25519 AAAA precious");
  g_assert_false (g_file_test (path_a, G_FILE_TEST_IS_SYMLINK));   /* replaced, not followed */

  /* a link to a huge file is not counted, nor evicted, nor its target */
  fd = g_open (big, O_WRONLY | O_CREAT, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, 10 * 1024 * 1024), ==, 0);
  close (fd);
  g_assert_cmpint (symlink (big, path_b), ==, 0);
  g_setenv ("GCUDA_CACHE_MAX_SIZE", "8K", TRUE);
  g_assert_true (_gcuda_compile_cache_store (dir, KEY_C, image, NULL, NULL, &error));
  g_unsetenv ("GCUDA_CACHE_MAX_SIZE");
  g_assert_no_error (error);
  g_assert_true (g_file_test (path_b, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_test (big, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (path_a, G_FILE_TEST_EXISTS));   /* 8K holds both entries */

  /* ... nor deleted as a corrupt entry */
  out = child_lookup (dir, KEY_B);
  g_assert_cmpstr (out, ==, "miss");
  g_assert_true (g_file_test (path_b, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_test (big, G_FILE_TEST_IS_REGULAR));
  rm_rf (dir);
  rm_rf (elsewhere);
}

/* A set-user-ID process ignores GCUDA_CACHE_DIR, XDG_CACHE_HOME and
 * LD_LIBRARY_PATH (no default cache directory at all) and
 * GCUDA_DRIVER_LIBRARY (the driver is libcuda.so.1) */
static void
test_secure_execution (void)
{
  g_autofree char *tmp = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *data = NULL;
  g_autofree char *plain = NULL;
  g_autofree char *setuid_out = NULL;
  g_auto(GStrv) env = g_get_environ ();
  const char *args[] = { "--child-secure", NULL };
  gsize len;

  env = g_environ_setenv (env, "GCUDA_CACHE_DIR", "/tmp/chosen-by-the-invoker", TRUE);
  {
    /* prepended: where GLib is found only through it (a GPU host's carried
     * runtime), the plain child needs the rest */
    const char *old_path = g_environ_getenv (env, "LD_LIBRARY_PATH");
    g_autofree char *path = g_strconcat ("/tmp/chosen-by-the-invoker", old_path ? ":" : "", old_path, NULL);

    env = g_environ_setenv (env, "LD_LIBRARY_PATH", path, TRUE);
  }
  env = g_environ_unsetenv (env, "GCUDA_DISABLE_CACHE");
  env = g_environ_setenv (env, "GCUDA_DRIVER_LIBRARY", "/tmp/chosen-by-the-invoker/libcuda.so.1", TRUE);
  plain = child_run_full (NULL, args, (const char * const *) env, NULL);
  g_assert_cmpstr (plain, ==, "at-secure=0 secure=0 dir=/tmp/chosen-by-the-invoker lib=set driver=env");

  if (getuid () != 0)
    {
      g_test_skip ("needs root to make a set-user-ID copy of the test");
      return;
    }
  tmp = make_tmp_dir ();
  g_assert_cmpint (chmod (tmp, 0755), ==, 0);
  copy = g_build_filename (tmp, "test-compile-cache-setuid", NULL);
  g_assert_true (g_file_get_contents (self_exe, &data, &len, NULL));
  g_assert_true (g_file_set_contents_full (copy, data, len, G_FILE_SET_CONTENTS_NONE, 0755, NULL));
  g_assert_cmpint (chown (copy, 65534, 65534), ==, 0);
  g_assert_cmpint (chmod (copy, 04755), ==, 0);
  {
    const char *argv_setuid[] = { copy, "--child-secure", NULL };
    g_autoptr(GError) error = NULL;
    int status = 0;

    g_spawn_sync (NULL, (char **) argv_setuid, env, G_SPAWN_DEFAULT, NULL, NULL,
                  &setuid_out, NULL, &status, &error);
    g_assert_no_error (error);
    g_strchomp (setuid_out);
    if (WIFEXITED (status) && WEXITSTATUS (status) == 127)
      {
        /* The dynamic loader ignores LD_LIBRARY_PATH for it too: where GLib
         * is found only through it (a GPU host's carried runtime), the copy
         * cannot start. The same rules, seen through the ID check instead
         * of AT_SECURE: */
        const char *ids_args[] = { "--child-secure-ids", NULL };
        g_autofree char *ids_out = child_run_full (NULL, ids_args, (const char * const *) env, NULL);

        g_test_message ("the set-user-ID copy cannot load its libraries here; checked with setresuid()");
        g_assert_cmpstr (ids_out, ==, "at-secure=0 secure=1 dir=(null) lib=unset driver=default");
      }
    else if (g_str_has_prefix (setuid_out, "at-secure=0"))
      g_test_skip ("set-user-ID has no effect here (a nosuid mount?)");
    else
      g_assert_cmpstr (setuid_out, ==, "at-secure=1 secure=1 dir=(null) lib=unset driver=default");
  }
  rm_rf (tmp);
}

/* ------------------------------------------------------------------ upkeep */

static void
test_parse_size (void)
{
  static const struct { const char *text; guint64 size; } good[] = {
    { "0", 0 }, { "1", 1 }, { "1024", 1024 }, { "1K", 1024 }, { "1k", 1024 }, { "1KiB", 1024 },
    { "64M", 64 << 20 }, { "64MiB", 64 << 20 }, { "1G", G_GUINT64_CONSTANT (1) << 30 },
    { "3g", G_GUINT64_CONSTANT (3) << 30 }, { "2T", G_GUINT64_CONSTANT (2) << 40 },
    { "18446744073709551615", G_MAXUINT64 },
  };
  static const char * const bad[] = {
    "", "K", "1KB", "1 K", " 1", "1 ", "-1", "+1", "1.5G", "1Gi", "1GiBs", "1B", "0x10",
    "18446744073709551616", "17179869184G", "99999999999999999999999",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      guint64 size = 42;

      if (!_gcuda_compile_cache_parse_size (good[i].text, &size))
        g_error ("“%s” did not parse", good[i].text);
      g_assert_cmpuint (size, ==, good[i].size);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      guint64 size = 42;

      if (_gcuda_compile_cache_parse_size (bad[i], &size))
        g_error ("“%s” parsed", bad[i]);
      g_assert_cmpuint (size, ==, 42);
    }
}

/* The total size of the entries, and the names of the entries and of any
 * temporary files */
static guint64
entries_total (const char *dir,
               GString    *names)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint64 total = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      struct stat st;

      g_assert_cmpint (lstat (path, &st), ==, 0);
      if (g_str_has_suffix (name, ".bin"))
        total += st.st_size;
      if (names != NULL)
        g_string_append_printf (names, "%s ", name);
    }
  g_dir_close (d);
  return total;
}

static char *
key_n (guint n)
{
  return g_strdup_printf ("ee%062x", n);
}

static void
store_n (const char *dir,
         guint       n,
         gsize       size)
{
  g_autofree char *key = key_n (n);
  g_autoptr(GBytes) image = test_image (n, size);
  g_autoptr(GError) error = NULL;

  g_assert_true (_gcuda_compile_cache_store (dir, key, image, NULL, NULL, &error));
  g_assert_no_error (error);
}

static gboolean
has_entry (const char *dir,
           guint       n)
{
  g_autofree char *key = key_n (n);
  g_autofree char *path = entry_path (dir, key);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static void
set_age (const char *dir,
         const char *name,
         gint64      seconds_ago)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  struct timespec times[2];

  times[0].tv_sec = times[1].tv_sec = g_get_real_time () / G_USEC_PER_SEC - seconds_ago;
  times[0].tv_nsec = times[1].tv_nsec = 0;
  g_assert_cmpint (utimensat (AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW), ==, 0);
}

/* GCUDA_CACHE_MAX_SIZE holds after every store; the newest entries stay */
static void
test_upkeep_cap (void)
{
  g_autofree char *dir = make_tmp_dir ();
  const gsize size = 10000 - HEADER_SIZE;   /* entries of 10000 bytes */

  g_setenv ("GCUDA_CACHE_MAX_SIZE", "64K", TRUE);   /* 6 entries */
  for (guint i = 0; i < 20; i++)
    {
      store_n (dir, i, size);
      g_assert_cmpuint (entries_total (dir, NULL), <=, 64 * 1024);
      g_assert_true (has_entry (dir, i));
    }
  /* stored in order: their mtimes never decrease, and equal ones (a coarse
   * clock) are ordered by name, which is the order here too */
  for (guint i = 0; i < 20; i++)
    g_assert_cmpint (has_entry (dir, i), ==, i >= 14);

  /* an entry larger than the cap is not written at all */
  {
    g_autoptr(GBytes) image = test_image (1, 70000);
    g_autoptr(GError) error = NULL;

    g_assert_false (_gcuda_compile_cache_store (dir, KEY_A, image, NULL, NULL, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
    g_test_message ("%s", error->message);
    g_assert_cmpuint (count_entries (dir), ==, 6);
  }

  /* 0: nothing on disk */
  g_setenv ("GCUDA_CACHE_MAX_SIZE", "0", TRUE);
  {
    g_autoptr(GBytes) image = test_image (1, 10);
    g_autoptr(GError) error = NULL;

    g_assert_false (_gcuda_compile_cache_store (dir, KEY_A, image, NULL, NULL, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  }

  /* not a size: a warning, and the default */
  g_setenv ("GCUDA_CACHE_MAX_SIZE", "lots", TRUE);
  g_free (take_warnings ());   /* earlier ones are not this case's */
  store_n (dir, 100, size);
  {
    g_autofree char *warned = take_warnings ();
    g_assert_nonnull (strstr (warned, "GCUDA_CACHE_MAX_SIZE"));
  }
  g_assert_cmpuint (count_entries (dir), ==, 7);
  g_unsetenv ("GCUDA_CACHE_MAX_SIZE");
  rm_rf (dir);
}

/* Least recently used first: an old entry read from disk since is kept,
 * the one that was only stored goes */
static void
test_upkeep_lru (void)
{
  g_autofree char *dir = make_tmp_dir ();
  const gsize size = 10000 - HEADER_SIZE;

  g_setenv ("GCUDA_CACHE_MAX_SIZE", "64K", TRUE);
  for (guint i = 0; i < 6; i++)
    {
      g_autofree char *key = key_n (i);
      g_autofree char *name = g_strconcat (key, ".bin", NULL);

      store_n (dir, i, size);
      set_age (dir, name, 1000 - i * 10);   /* 0 the oldest */
    }

  /* entry 0 is used (from disk: a fresh process, as another program would) */
  {
    g_autofree char *key = key_n (0);
    g_autofree char *out = child_lookup (dir, key);

    g_assert_true (g_str_has_prefix (out, "hit "));
  }
  store_n (dir, 6, size);
  g_assert_true (has_entry (dir, 0));
  g_assert_false (has_entry (dir, 1));
  for (guint i = 2; i <= 6; i++)
    g_assert_true (has_entry (dir, i));
  store_n (dir, 7, size);
  g_assert_true (has_entry (dir, 0));
  g_assert_false (has_entry (dir, 2));
  g_unsetenv ("GCUDA_CACHE_MAX_SIZE");
  rm_rf (dir);
}

/* A killed writer's temporary file goes after an hour; a live writer's,
 * and anything that is not exactly ours, stays */
static void
test_upkeep_stale_tmp (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *stale = g_strdup_printf (".%s.4242.0badcafe.tmp", KEY_B);
  g_autofree char *fresh = g_strdup_printf (".%s.4243.0badcafe.tmp", KEY_B);
  g_autofree char *other = g_strdup (".something-else.tmp");
  g_autofree char *not_ours = g_strdup_printf (".%s.4244.0badcafe.tmp.keep", KEY_B);
  g_autofree char *link = g_strdup_printf (".%s.4245.0badcafe.tmp", KEY_B);
  g_autofree char *subdir = g_strdup_printf (".%s.4246.0badcafe.tmp", KEY_B);
  g_autofree char *foreign = g_strdup_printf (".%s.4247.0badcafe.tmp", KEY_B);
  const char *kept[] = { fresh, other, not_ours, link, subdir, NULL, NULL };
  g_autofree char *path = NULL;

  for (guint i = 0; kept[i] != NULL; i++)
    if (kept[i] != link && kept[i] != subdir)
      {
        g_autofree char *p = g_build_filename (dir, kept[i], NULL);
        write_file (p, "partial");
      }
  path = g_build_filename (dir, stale, NULL);
  write_file (path, "partial");
  {
    g_autofree char *p = g_build_filename (dir, link, NULL);
    g_autofree char *s = g_build_filename (dir, subdir, NULL);

    g_assert_cmpint (symlink (stale, p), ==, 0);
    g_assert_cmpint (g_mkdir (s, 0700), ==, 0);
  }
  if (getuid () == 0)
    {
      g_autofree char *p = g_build_filename (dir, foreign, NULL);

      write_file (p, "partial");
      g_assert_cmpint (chown (p, 65534, 65534), ==, 0);
      kept[5] = foreign;
    }
  for (guint i = 0; kept[i] != NULL; i++)
    if (kept[i] != fresh)
      set_age (dir, kept[i], 2 * 3600);
  set_age (dir, stale, 2 * 3600);
  set_age (dir, fresh, 60);

  store_n (dir, 1, 100);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  for (guint i = 0; kept[i] != NULL; i++)
    {
      g_autofree char *p = g_build_filename (dir, kept[i], NULL);

      if (!g_file_test (p, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK))
        g_error ("%s was deleted", kept[i]);
    }
  rm_rf (dir);
}

/* Entries are read with a bound: larger than any entry written, a file is
 * damage (deleted unread); one that memory cannot hold now is a miss, kept */
static void
test_upkeep_oversized (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = entry_path (dir, KEY_A);
  g_autofree char *out = NULL;
  int fd;

  fd = g_open (path, O_WRONLY | O_CREAT, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, MAX_ENTRY_BYTES + 1), ==, 0);   /* sparse */
  close (fd);
  out = child_lookup (dir, KEY_A);
  g_assert_cmpstr (out, ==, "miss");
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  rm_rf (dir);
}

static void
test_upkeep_no_memory (void)
{
#if defined(__SANITIZE_ADDRESS__)
  g_test_skip ("an address-space limit and AddressSanitizer do not mix");
#else
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = entry_path (dir, KEY_A);
  g_autoptr(GBytes) image = test_image (16, 96 * 1024 * 1024);
  g_autoptr(GError) error = NULL;
  const char *args[] = { "--child-lookup-limited", dir, KEY_A, "48", NULL };
  g_autofree char *out = NULL;
  g_autofree char *again = NULL;

  g_assert_true (_gcuda_compile_cache_store (dir, KEY_A, image, NULL, NULL, &error));
  g_assert_no_error (error);
  out = child_run (args, NULL);
  if (g_str_equal (out, "no-limit"))
    {
      g_test_skip ("setrlimit(RLIMIT_AS) failed");
      rm_rf (dir);
      return;
    }
  g_assert_cmpstr (out, ==, "miss");
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  again = child_lookup (dir, KEY_A);
  g_assert_true (g_str_has_prefix (again, "hit "));
  rm_rf (dir);
#endif
}

/* Processes storing at once, with a cap that makes them evict all along:
 * afterwards the cache is within the cap, every entry valid, no temporary
 * file left */
static void
test_upkeep_concurrent (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_auto(GStrv) env = g_environ_setenv (g_get_environ (), "GCUDA_CACHE_MAX_SIZE", "100K", TRUE);
  g_autoptr(GString) names = g_string_new (NULL);
  GPid pids[4];
  GDir *d;
  const char *name;
  guint n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (pids); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *tag = g_strdup_printf ("%02x", 0xa0 + i);
      const char *argv[] = { self_exe, "--child-store-many", dir, tag, "40", "9000", NULL };

      g_spawn_async (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pids[i], &error);
      g_assert_no_error (error);
    }
  for (guint i = 0; i < G_N_ELEMENTS (pids); i++)
    {
      int status;

      g_assert_cmpint (waitpid (pids[i], &status, 0), ==, pids[i]);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);
      g_spawn_close_pid (pids[i]);
    }

  g_assert_cmpuint (entries_total (dir, names), <=, 100 * 1024);
  g_test_message ("left: %s", names->str);
  g_assert_null (strstr (names->str, ".tmp"));
  d = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".bin"))
      {
        g_autofree char *key = g_strndup (name, 64);
        g_autofree char *out = NULL;

        _gcuda_compile_cache_clear_memory ();
        {
          g_autoptr(GBytes) got = _gcuda_compile_cache_lookup (dir, key, NULL, NULL);
          g_assert_nonnull (got);
          g_assert_cmpuint (g_bytes_get_size (got), ==, 9000);
        }
        n++;
      }
  g_dir_close (d);
  g_assert_cmpuint (n, >=, 1);
  rm_rf (dir);
}

static void
test_invalid_keys (void)
{
  static const char * const bad[] = {
    "../../etc/passwd",
    "",
    "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde/",
  };
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(GBytes) image = test_image (1, 10);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *log = g_strdup ("untouched");

      g_assert_false (_gcuda_compile_cache_store (dir, bad[i], image, NULL, NULL, &error));
      g_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_clear_pointer (&log, g_free);
      g_assert_null (_gcuda_compile_cache_lookup (dir, bad[i], &log, NULL));
      g_assert_null (log);
    }
  assert_only_entry (dir);   /* i.e. empty */
  rm_rf (dir);
}

static void
test_default_dir (void)
{
  g_autofree char *saved_dir = g_strdup (g_getenv ("GCUDA_CACHE_DIR"));
  g_autofree char *saved_disable = g_strdup (g_getenv ("GCUDA_DISABLE_CACHE"));
  g_autofree char *xdg = g_build_filename (g_get_user_cache_dir (), "gcuda", NULL);
  char *dir;

  g_unsetenv ("GCUDA_CACHE_DIR");
  g_unsetenv ("GCUDA_DISABLE_CACHE");
  dir = _gcuda_compile_cache_default_dir ();
  g_assert_cmpstr (dir, ==, xdg);
  g_free (dir);

  g_setenv ("GCUDA_CACHE_DIR", "", TRUE);
  dir = _gcuda_compile_cache_default_dir ();
  g_assert_cmpstr (dir, ==, xdg);
  g_free (dir);

  g_setenv ("GCUDA_CACHE_DIR", "/some/where", TRUE);
  dir = _gcuda_compile_cache_default_dir ();
  g_assert_cmpstr (dir, ==, "/some/where");
  g_free (dir);

  g_setenv ("GCUDA_DISABLE_CACHE", "0", TRUE);
  dir = _gcuda_compile_cache_default_dir ();
  g_assert_cmpstr (dir, ==, "/some/where");
  g_free (dir);

  g_setenv ("GCUDA_DISABLE_CACHE", "", TRUE);
  dir = _gcuda_compile_cache_default_dir ();
  g_assert_cmpstr (dir, ==, "/some/where");
  g_free (dir);

  g_setenv ("GCUDA_DISABLE_CACHE", "1", TRUE);
  g_assert_null (_gcuda_compile_cache_default_dir ());
  g_setenv ("GCUDA_DISABLE_CACHE", "yes", TRUE);
  g_assert_null (_gcuda_compile_cache_default_dir ());

  if (saved_dir != NULL)
    g_setenv ("GCUDA_CACHE_DIR", saved_dir, TRUE);
  else
    g_unsetenv ("GCUDA_CACHE_DIR");
  if (saved_disable != NULL)
    g_setenv ("GCUDA_DISABLE_CACHE", saved_disable, TRUE);
  else
    g_unsetenv ("GCUDA_DISABLE_CACHE");
}

int
main (int    argc,
      char **argv)
{
  if (argc >= 2 && g_str_has_prefix (argv[1], "--child-"))
    return child_main (argc, argv);

  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_assert_nonnull (self_exe);
  g_test_init (&argc, &argv, NULL);
  warnings = g_ptr_array_new_with_free_func (g_free);
  g_log_set_writer_func (capture_writer, NULL, NULL);

  g_test_add_func ("/compile-cache/key/stable", test_key_stable);
  g_test_add_func ("/compile-cache/key/changes", test_key_changes);
  g_test_add_func ("/compile-cache/key/include-files", test_key_include_files);
  g_test_add_func ("/compile-cache/key/include-fifo-race", test_key_include_fifo_race);
  g_test_add_func ("/compile-cache/key/unusual-directives", test_key_unusual_directives);
  g_test_add_func ("/compile-cache/key/missing-include", test_key_missing_include);
  g_test_add_func ("/compile-cache/key/current-dir", test_key_current_dir);
  g_test_add_func ("/compile-cache/key/memory-header-includes-file", test_key_memory_header_includes_file);
  g_test_add_func ("/compile-cache/key/macro-include", test_key_macro_include);
  g_test_add_func ("/compile-cache/key/has-include", test_key_has_include);
  g_test_add_func ("/compile-cache/key/cycle", test_key_cycle);
  g_test_add_func ("/compile-cache/key/too-much", test_key_too_much);
  /* meson sets it empty in a build that found no toolkit: no such case there */
  if (g_getenv ("GCUDA_TOOLKIT_INCLUDE_DIR") == NULL || *g_getenv ("GCUDA_TOOLKIT_INCLUDE_DIR") != '\0')
    g_test_add_func ("/compile-cache/key/toolkit-headers", test_key_toolkit_headers);
  g_test_add_func ("/compile-cache/key/nvrtc-identity", test_key_nvrtc_identity);
  g_test_add_func ("/compile-cache/key/memo-hit", test_key_memo_hit);
  g_test_add_func ("/compile-cache/key/memo-no-files", test_key_memo_no_files);
  g_test_add_func ("/compile-cache/key/memo-same-size-same-mtime", test_key_memo_same_size_same_mtime);
  g_test_add_func ("/compile-cache/key/memo-racy", test_key_memo_racy);
  g_test_add_func ("/compile-cache/key/memo-created-header", test_key_memo_created_header);
  g_test_add_func ("/compile-cache/key/std-headers", test_key_std_headers);
  g_test_add_func ("/compile-cache/store/memory", test_store_memory);
  g_test_add_func ("/compile-cache/store/disk", test_store_disk);
  g_test_add_func ("/compile-cache/store/corrupt", test_store_corrupt);
  g_test_add_func ("/compile-cache/store/not-private", test_store_not_private);
  g_test_add_func ("/compile-cache/store/foreign-entries", test_store_foreign_entries);
  g_test_add_func ("/compile-cache/store/threads", test_store_threads);
  g_test_add_func ("/compile-cache/store/processes", test_store_processes);
  g_test_add_func ("/compile-cache/invalid-keys", test_invalid_keys);
  g_test_add_func ("/compile-cache/lowered/format", test_lowered_format);
  g_test_add_func ("/compile-cache/lowered/hit", test_lowered_hit);
  g_test_add_func ("/compile-cache/lowered/invalid-entry", test_lowered_invalid_entry);
  g_test_add_func ("/compile-cache/dir/symlink-foreign", test_dir_symlink_foreign);
  g_test_add_func ("/compile-cache/dir/untrusted-parent", test_dir_untrusted_parent);
  g_test_add_func ("/compile-cache/dir/symlink-own", test_dir_symlink_own);
  g_test_add_func ("/compile-cache/dir/create", test_dir_create);
  g_test_add_func ("/compile-cache/dir/entry-symlink", test_entry_symlink);
  g_test_add_func ("/compile-cache/dir/secure-execution", test_secure_execution);
  g_test_add_func ("/compile-cache/upkeep/parse-size", test_parse_size);
  g_test_add_func ("/compile-cache/upkeep/cap", test_upkeep_cap);
  g_test_add_func ("/compile-cache/upkeep/lru", test_upkeep_lru);
  g_test_add_func ("/compile-cache/upkeep/stale-tmp", test_upkeep_stale_tmp);
  g_test_add_func ("/compile-cache/upkeep/oversized", test_upkeep_oversized);
  g_test_add_func ("/compile-cache/upkeep/no-memory", test_upkeep_no_memory);
  g_test_add_func ("/compile-cache/upkeep/concurrent", test_upkeep_concurrent);
  g_test_add_func ("/compile-cache/default-dir", test_default_dir);

  return g_test_run ();
}
