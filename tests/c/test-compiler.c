/* test-compiler.c: GCudaCompiler and GCudaProgram through the public API,
 * with NVRTC but without a GPU (the driver is made unloadable, so every
 * compile names its architecture)
 *
 * The compile cache's key and disk format are tested at the private level in
 * test-compile-cache.c; here the cache is seen as a user sees it: results,
 * GCudaProgram:is-from-cache, the files in the cache directory, and fresh
 * processes. The in-process cache answers any key already compiled in this
 * process (whatever the cache directory), so every test compiles sources of
 * its own (unique_source()), and what the disk cache does is observed from
 * child processes: this program run as `--child-compile`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE 1  /* dl_iterate_phdr, memmem */

#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gcuda-test-util.h"

#define ARCH "sm_90"

static char *self_exe;

/* ------------------------------------------------------------ sources */

static const char vadd_source[] =
  "__global__ void vadd (const float *a, const float *b, float *c, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    c[i] = a[i] + b[i];\n"
  "}\n";

/* The kernel's name comes from KNAME, so the PTX's .entry shows which
 * definition a compile saw. */
static const char kname_source[] =
  "#include \"kname.h\"\n"
  "__global__ void KNAME (int *p) { p[threadIdx.x] = threadIdx.x; }\n";

/* @body after a comment no other test (and no earlier run) compiles, so the
 * in-process and on-disk caches never answer for another test. */
static char *
unique_source (const char *body)
{
  return g_strdup_printf ("// %s %08x%08x\n%s", g_test_get_path (), g_random_int (), g_random_int (), body);
}

/* ------------------------------------------------------------ files */

static char *
make_tmp_dir (void)
{
  GError *error = NULL;
  char *dir = g_dir_make_tmp ("gcuda-test-compiler-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

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

static void
write_file (const char *path,
            const char *text)
{
  GError *error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static GBytes *
read_file (const char *path)
{
  GError *error = NULL;
  char *data = NULL;
  gsize size = 0;

  g_file_get_contents (path, &data, &size, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (data, size);
}

/* The names of the files in @dir, joined with ' '. */
static char *
list_dir (const char *dir)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return g_strdup ("");
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

/* The path of the only file in @dir, which must be one cache entry
 * ("<64 hex digits>.bin"), no temporary left over. */
static char *
only_entry (const char *dir)
{
  g_autofree char *names = list_dir (dir);
  gsize len = strlen (names);

  if (len != 64 + 4 || !g_str_has_suffix (names, ".bin"))
    g_error ("expected one cache entry in %s, found: “%s”", dir, names);
  for (gsize i = 0; i < 64; i++)
    if (!g_ascii_isxdigit (names[i]))
      g_error ("not a cache entry in %s: “%s”", dir, names);
  return g_build_filename (dir, names, NULL);
}

static guint
count_files (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  if (d == NULL)
    return 0;
  while (g_dir_read_name (d) != NULL)
    n++;
  g_dir_close (d);
  return n;
}

/* ------------------------------------------------------------ images */

static gboolean
bytes_contain (GBytes     *bytes,
               const char *needle)
{
  gsize size = 0;
  gconstpointer data = g_bytes_get_data (bytes, &size);

  return data != NULL && memmem (data, size, needle, strlen (needle)) != NULL;
}

/* The names of a PTX image's kernels (".entry NAME("), joined with ','. */
static char *
ptx_entries (GBytes *ptx)
{
  gsize size = 0;
  const char *data = g_bytes_get_data (ptx, &size);
  g_autofree char *text = g_strndup (data, size);
  g_autoptr(GString) out = g_string_new (NULL);
  const char *p = text;

  while ((p = strstr (p, ".entry ")) != NULL)
    {
      const char *end;

      p += strlen (".entry ");
      end = p;
      while (g_ascii_isalnum (*end) || *end == '_' || *end == '$')
        end++;
      g_string_append_printf (out, "%s%.*s", out->len ? "," : "", (int) (end - p), p);
      p = end;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
assert_ptx (GBytes     *image,
            const char *target)
{
  gsize size = 0;
  const char *data = g_bytes_get_data (image, &size);
  g_autofree char *line = g_strdup_printf (".target %s", target);

  g_assert_nonnull (data);
  g_assert_cmpuint (size, >, 16);
  /* the driver loads PTX as a C string */
  g_assert_cmpint (data[size - 1], ==, '\0');
  g_assert_true (bytes_contain (image, ".version "));
  if (!bytes_contain (image, line))
    g_error ("the PTX has no “%s”", line);
}

/* The SM an ELF cubin is for: CUDA's e_flags hold it in bits 8–15 (ABI
 * version 8 and later) or 0–7 (before). */
static void
assert_cubin (GBytes *image,
              guint   sm)
{
  gsize size = 0;
  const guint8 *data = g_bytes_get_data (image, &size);
  guint32 flags;

  g_assert_nonnull (data);
  g_assert_cmpuint (size, >, 64);
  g_assert_cmpmem (data, 4, "\177ELF", 4);
  g_assert_cmpint (data[4], ==, 2);  /* ELFCLASS64 */
  memcpy (&flags, data + 48, 4);
  flags = GUINT32_FROM_LE (flags);
  if (data[8] >= 8)
    g_assert_cmpuint ((flags >> 8) & 0xff, ==, sm);
  else
    g_assert_cmpuint (flags & 0xff, ==, sm);
}

static char *
sha256_of (GBytes *bytes)
{
  return g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, bytes);
}

/* ------------------------------------------------------------ compiling */

/* A compiler for ARCH with @cache_dir ("" for none). */
static GCudaCompiler *
new_compiler (const char *cache_dir)
{
  GCudaCompiler *compiler = gcuda_compiler_new (NULL);

  gcuda_compiler_set_arch (compiler, ARCH);
  gcuda_compiler_set_cache_dir (compiler, cache_dir);
  return compiler;
}

static GCudaProgram *
compile_ok (GCudaCompiler *compiler,
            const char    *source)
{
  GError *error = NULL;
  GCudaProgram *program = gcuda_compiler_compile (compiler, source, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_PROGRAM (program));
  g_assert_nonnull (gcuda_program_get_image (program));
  g_assert_nonnull (gcuda_program_get_log (program));
  return program;
}

/* Compiles @source to PTX and returns its kernels' names (ptx_entries()). */
static char *
compile_entries (GCudaCompiler *compiler,
                 const char    *source)
{
  g_autoptr(GCudaProgram) program = NULL;

  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
  program = compile_ok (compiler, source);
  g_assert_cmpint (gcuda_program_get_kind (program), ==, GCUDA_PROGRAM_KIND_PTX);
  return ptx_entries (gcuda_program_get_image (program));
}

/* ------------------------------------------------------------ child processes
 *
 * `test-compiler --child-compile CACHE_DIR SOURCE_FILE TARGET REPEAT`
 * compiles the file's text REPEAT times for ARCH (TARGET "ptx" or "cubin";
 * CACHE_DIR "-" for the default, "" for none) and prints, per compile,
 *   ok from-cache=0|1 nvrtc-loaded=0|1 sha256=HEX entries=NAMES
 * or
 *   error DOMAIN CODE
 * followed by the error message on stderr. */

static int
find_nvrtc (struct dl_phdr_info *info,
            size_t               size,
            void                *data)
{
  if (info->dlpi_name != NULL && strstr (info->dlpi_name, "libnvrtc") != NULL)
    *(gboolean *) data = TRUE;
  return 0;
}

/* Whether any NVRTC library is mapped into this process. */
static gboolean
nvrtc_loaded (void)
{
  gboolean found = FALSE;

  dl_iterate_phdr (find_nvrtc, &found);
  return found;
}

static int
child_compile (int    argc,
               char **argv)
{
  g_autoptr(GCudaCompiler) compiler = NULL;
  g_autofree char *source = NULL;
  GError *error = NULL;
  int repeat;

  if (argc != 6)
    return 2;
  if (!g_file_get_contents (argv[3], &source, NULL, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  compiler = gcuda_compiler_new (NULL);
  gcuda_compiler_set_arch (compiler, ARCH);
  if (!g_str_equal (argv[2], "-"))
    gcuda_compiler_set_cache_dir (compiler, argv[2]);
  gcuda_compiler_set_target (compiler, g_str_equal (argv[4], "ptx") ? GCUDA_PROGRAM_KIND_PTX
                                                                    : GCUDA_PROGRAM_KIND_CUBIN);
  repeat = atoi (argv[5]);
  for (int i = 0; i < repeat; i++)
    {
      g_autoptr(GCudaProgram) program = gcuda_compiler_compile (compiler, source, &error);

      if (program == NULL)
        {
          printf ("error %s %d\n", g_quark_to_string (error->domain), error->code);
          fprintf (stderr, "%s\n", error->message);
          g_clear_error (&error);
        }
      else
        {
          GBytes *image = gcuda_program_get_image (program);
          g_autofree char *sha = sha256_of (image);
          g_autofree char *entries = gcuda_program_get_kind (program) == GCUDA_PROGRAM_KIND_PTX
                                       ? ptx_entries (image) : g_strdup ("-");

          printf ("ok from-cache=%d nvrtc-loaded=%d sha256=%s entries=%s\n",
                  gcuda_program_is_from_cache (program), nvrtc_loaded (), sha, entries);
        }
      fflush (stdout);
    }
  return 0;
}

/* A launcher for children with the test's environment plus @env (pairs of
 * name and value, NULL value to unset, NULL-terminated). */
static GSubprocessLauncher *
child_launcher (const char * const *env)
{
  GSubprocessLauncher *launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);

  for (guint i = 0; env != NULL && env[i] != NULL; i += 2)
    {
      if (env[i + 1] != NULL)
        g_subprocess_launcher_setenv (launcher, env[i], env[i + 1], TRUE);
      else
        g_subprocess_launcher_unsetenv (launcher, env[i]);
    }
  return launcher;
}

static GSubprocess *
spawn_child (GSubprocessLauncher *launcher,
             const char          *cache_dir,
             const char          *source_path,
             const char          *target,
             int                  repeat)
{
  GError *error = NULL;
  g_autofree char *count = g_strdup_printf ("%d", repeat);
  GSubprocess *child = g_subprocess_launcher_spawn (launcher, &error, self_exe, "--child-compile",
                                                    cache_dir, source_path, target, count, NULL);

  g_assert_no_error (error);
  return child;
}

/* Waits for @child; returns its stdout (it must have exited with 0). */
static char *
child_output (GSubprocess *child)
{
  GError *error = NULL;
  char *out = NULL, *err = NULL;

  g_subprocess_communicate_utf8 (child, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  if (err != NULL && *err != '\0')
    g_test_message ("child stderr: %s", err);
  if (!g_subprocess_get_if_exited (child) || g_subprocess_get_exit_status (child) != 0)
    g_error ("the child failed (stdout: %s, stderr: %s)", out, err);
  g_free (err);
  return out;
}

/* Runs one child and returns its stdout. */
static char *
run_child (const char * const *env,
           const char         *cache_dir,
           const char         *source_path,
           const char         *target,
           int                 repeat)
{
  g_autoptr(GSubprocessLauncher) launcher = child_launcher (env);
  g_autoptr(GSubprocess) child = spawn_child (launcher, cache_dir, source_path, target, repeat);

  return child_output (child);
}

static void
assert_output (const char *out,
               const char *want)
{
  if (g_strcmp0 (out, want) != 0)
    g_error ("the child printed:\n%s\nexpected:\n%s", out, want);
}

/* A child's line for a compile that succeeded. */
static char *
ok_line (gboolean    from_cache,
         gboolean    nvrtc,
         const char *sha,
         const char *entries)
{
  return g_strdup_printf ("ok from-cache=%d nvrtc-loaded=%d sha256=%s entries=%s\n",
                          from_cache, nvrtc, sha, entries ? entries : "-");
}

/* A child's line for a compile that failed. */
static char *
error_line (GQuark domain,
            int    code)
{
  return g_strdup_printf ("error %s %d\n", g_quark_to_string (domain), code);
}

static void
assert_child_error (const char *out,
                    GQuark      domain,
                    int         code)
{
  g_autofree char *want = error_line (domain, code);

  assert_output (out, want);
}

/* Writes @source to a file in @dir and returns its path. */
static char *
source_file (const char *dir,
             const char *source)
{
  char *path = g_build_filename (dir, "source.cu", NULL);

  write_file (path, source);
  return path;
}

/* ------------------------------------------------------------ the tests */

static void
test_properties (void)
{
  g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
  g_auto(GStrv) options = NULL, include_dirs = NULL;
  g_autofree char *arch = NULL, *code = NULL, *keep = NULL, *cache_dir = NULL;
  g_autoptr(GCudaContext) context = NULL;
  const char *opts[] = { "-DX=1", "-use_fast_math", NULL };
  const char *dirs[] = { "/some/where", NULL };
  GCudaProgramKind target = -1;
  gboolean no_extern_c = TRUE;

  /* PyCUDA's defaults: the device's arch, wrapped in extern "C", cubin,
   * the default cache, nothing kept */
  g_assert_null (gcuda_compiler_get_arch (compiler));
  g_assert_null (gcuda_compiler_get_code (compiler));
  g_assert_null (gcuda_compiler_get_keep (compiler));
  g_assert_null (gcuda_compiler_get_cache_dir (compiler));
  g_assert_false (gcuda_compiler_get_no_extern_c (compiler));
  g_assert_cmpint (gcuda_compiler_get_target (compiler), ==, GCUDA_PROGRAM_KIND_CUBIN);
  g_assert_nonnull (gcuda_compiler_get_options (compiler));
  g_assert_null (gcuda_compiler_get_options (compiler)[0]);
  g_assert_nonnull (gcuda_compiler_get_include_dirs (compiler));
  g_assert_null (gcuda_compiler_get_include_dirs (compiler)[0]);
  g_assert_null (gcuda_compiler_get_last_log (compiler));

  gcuda_compiler_set_options (compiler, opts);
  gcuda_compiler_set_include_dirs (compiler, dirs);
  gcuda_compiler_set_arch (compiler, "compute_80");
  gcuda_compiler_set_code (compiler, "sm_86");
  gcuda_compiler_set_keep (compiler, "/tmp/keep");
  gcuda_compiler_set_cache_dir (compiler, "");
  gcuda_compiler_set_no_extern_c (compiler, TRUE);
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);

  g_object_get (compiler, "options", &options, "include-dirs", &include_dirs, "arch", &arch,
                "code", &code, "keep", &keep, "cache-dir", &cache_dir, "no-extern-c", &no_extern_c,
                "target", &target, "context", &context, NULL);
  g_assert_cmpstrv (options, opts);
  g_assert_cmpstrv (include_dirs, dirs);
  g_assert_cmpstr (arch, ==, "compute_80");
  g_assert_cmpstr (code, ==, "sm_86");
  g_assert_cmpstr (keep, ==, "/tmp/keep");
  g_assert_cmpstr (cache_dir, ==, "");
  g_assert_true (no_extern_c);
  g_assert_cmpint (target, ==, GCUDA_PROGRAM_KIND_PTX);
  g_assert_null (context);

  /* NULL lists are empty lists */
  gcuda_compiler_set_options (compiler, NULL);
  g_assert_null (gcuda_compiler_get_options (compiler)[0]);
  g_object_set (compiler, "include-dirs", NULL, "arch", NULL, "cache-dir", NULL, NULL);
  g_assert_null (gcuda_compiler_get_include_dirs (compiler)[0]);
  g_assert_null (gcuda_compiler_get_arch (compiler));
  g_assert_null (gcuda_compiler_get_cache_dir (compiler));
}

static void
test_cubin (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autofree char *source = unique_source (vadd_source);
  g_autoptr(GCudaProgram) program = compile_ok (compiler, source);
  g_autofree char *log = gcuda_compiler_get_last_log (compiler);
  GBytes *image = gcuda_program_get_image (program);

  g_assert_cmpint (gcuda_program_get_kind (program), ==, GCUDA_PROGRAM_KIND_CUBIN);
  g_assert_cmpstr (gcuda_program_get_arch (program), ==, ARCH);
  g_assert_false (gcuda_program_is_from_cache (program));
  assert_cubin (image, 90);
  /* extern "C": the symbol keeps its name */
  g_assert_true (bytes_contain (image, "vadd"));
  g_assert_false (bytes_contain (image, "_Z4vadd"));
  g_assert_nonnull (log);
  g_assert_cmpstr (log, ==, gcuda_program_get_log (program));
  g_assert_null (gcuda_program_get_lowered_name (program, "vadd"));

  rm_rf (cache);
}

static void
test_ptx (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autofree char *source = unique_source (vadd_source);
  g_autoptr(GCudaProgram) program = NULL;
  g_autofree char *entries = NULL;

  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
  program = compile_ok (compiler, source);
  g_assert_cmpint (gcuda_program_get_kind (program), ==, GCUDA_PROGRAM_KIND_PTX);
  g_assert_cmpstr (gcuda_program_get_arch (program), ==, ARCH);
  assert_ptx (gcuda_program_get_image (program), ARCH);
  entries = ptx_entries (gcuda_program_get_image (program));
  g_assert_cmpstr (entries, ==, "vadd");

  rm_rf (cache);
}

/* arch compute_XY is virtual: PTX whatever the target; code wins over arch. */
static void
test_virtual_arch_and_code (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autofree char *source = unique_source (vadd_source);
  g_autoptr(GCudaProgram) program = NULL;
  GError *error = NULL;

  gcuda_compiler_set_arch (compiler, "compute_80");
  program = compile_ok (compiler, source);
  g_assert_cmpint (gcuda_program_get_kind (program), ==, GCUDA_PROGRAM_KIND_PTX);
  g_assert_cmpstr (gcuda_program_get_arch (program), ==, "compute_80");
  assert_ptx (gcuda_program_get_image (program), "sm_80");
  g_clear_object (&program);

  /* a real code: a cubin for it */
  gcuda_compiler_set_code (compiler, "sm_86");
  program = compile_ok (compiler, source);
  g_assert_cmpint (gcuda_program_get_kind (program), ==, GCUDA_PROGRAM_KIND_CUBIN);
  g_assert_cmpstr (gcuda_program_get_arch (program), ==, "sm_86");
  assert_cubin (gcuda_program_get_image (program), 86);
  g_clear_object (&program);

  /* a virtual code: PTX for it */
  gcuda_compiler_set_code (compiler, "compute_86");
  program = compile_ok (compiler, source);
  g_assert_cmpint (gcuda_program_get_kind (program), ==, GCUDA_PROGRAM_KIND_PTX);
  assert_ptx (gcuda_program_get_image (program), "sm_86");
  g_clear_object (&program);

  /* another real arch, no code */
  gcuda_compiler_set_code (compiler, NULL);
  gcuda_compiler_set_arch (compiler, "sm_80");
  program = compile_ok (compiler, source);
  assert_cubin (gcuda_program_get_image (program), 80);
  g_clear_object (&program);

  /* an architecture NVRTC does not know: its log in the error */
  gcuda_compiler_set_arch (compiler, "sm_1");
  program = gcuda_compiler_compile (compiler, source, &error);
  g_assert_null (program);
  gcuda_assert_error (error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_INVALID_OPTION);
  g_assert_nonnull (strstr (error->message, "gpu-architecture"));
  g_clear_error (&error);

  rm_rf (cache);
}

static void
test_syntax_error (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  /* line 3 of the source as given */
  const char *body =
    "__global__ void broken (int *p)\n"
    "{\n"
    "  p[0] = undefined_identifier_h2;\n"
    "}\n";
  g_autoptr(GCudaProgram) program = NULL;
  g_autofree char *log = NULL;
  GError *error = NULL;

  program = gcuda_compiler_compile (compiler, body, &error);
  g_assert_null (program);
  gcuda_assert_error (error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);
  /* NVRTC's log, with the file name, the line and what is wrong */
  g_assert_nonnull (strstr (error->message, "kernel.cu("));
  g_assert_nonnull (strstr (error->message, "undefined_identifier_h2"));
  g_assert_nonnull (strstr (error->message, "is undefined"));
  log = gcuda_compiler_get_last_log (compiler);
  g_assert_nonnull (log);
  g_assert_nonnull (strstr (log, "kernel.cu("));
  g_assert_nonnull (strstr (log, "undefined_identifier_h2"));
  g_assert_nonnull (strstr (error->message, log));
  g_clear_error (&error);

  /* nothing was cached: the same error again, no entry */
  program = gcuda_compiler_compile (compiler, body, &error);
  g_assert_null (program);
  gcuda_assert_error_clear (&error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);
  g_assert_cmpuint (count_files (cache), ==, 0);

  /* unwrapped, the lines are the source's own */
  gcuda_compiler_set_no_extern_c (compiler, TRUE);
  program = gcuda_compiler_compile (compiler, body, &error);
  g_assert_null (program);
  gcuda_assert_error (error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);
  g_assert_nonnull (strstr (error->message, "kernel.cu(3)"));
  g_clear_error (&error);

  /* a successful compile replaces the last log */
  g_clear_pointer (&log, g_free);
  program = compile_ok (compiler, "__global__ void fine (int *p) { p[0] = 1; }\n");
  log = gcuda_compiler_get_last_log (compiler);
  g_assert_nonnull (log);
  g_assert_null (strstr (log, "undefined_identifier_h2"));

  /* no source */
  g_clear_object (&program);
  program = gcuda_compiler_compile (compiler, NULL, &error);
  g_assert_null (program);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  rm_rf (cache);
}

static const char template_source[] =
  "template <typename T, int N>\n"
  "__global__ void scale (T *p)\n"
  "{\n"
  "  p[threadIdx.x] *= (T) N;\n"
  "}\n"
  "__device__ int counter_h2;\n";

static void
test_name_expressions (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autofree char *source = unique_source (template_source);
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GCudaProgram) again = NULL;
  g_autofree char *entries = NULL;
  g_autofree char *want = NULL;
  const char *f4, *i2, *var;

  gcuda_compiler_set_no_extern_c (compiler, TRUE);
  gcuda_compiler_add_name_expression (compiler, "scale<float, 4>");
  gcuda_compiler_add_name_expression (compiler, "scale<int, 2>");
  gcuda_compiler_add_name_expression (compiler, "&counter_h2");
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);

  program = compile_ok (compiler, source);
  f4 = gcuda_program_get_lowered_name (program, "scale<float, 4>");
  i2 = gcuda_program_get_lowered_name (program, "scale<int, 2>");
  var = gcuda_program_get_lowered_name (program, "&counter_h2");
  g_assert_nonnull (f4);
  g_assert_nonnull (i2);
  g_assert_nonnull (var);
  g_assert_true (g_str_has_prefix (f4, "_Z"));
  g_assert_true (g_str_has_prefix (i2, "_Z"));
  g_assert_cmpstr (f4, !=, i2);
  g_assert_nonnull (strstr (f4, "scale"));
  g_assert_cmpstr (var, ==, "counter_h2");
  g_assert_null (gcuda_program_get_lowered_name (program, "scale<double, 1>"));

  /* both instantiations are in the PTX under those names */
  entries = ptx_entries (gcuda_program_get_image (program));
  g_assert_nonnull (strstr (entries, f4));
  g_assert_nonnull (strstr (entries, i2));
  g_assert_cmpuint (strlen (entries), ==, strlen (f4) + 1 + strlen (i2));

  /* a cache hit keeps the lowered names */
  again = compile_ok (compiler, source);
  g_assert_true (gcuda_program_is_from_cache (again));
  g_assert_cmpstr (gcuda_program_get_lowered_name (again, "scale<float, 4>"), ==, f4);
  g_assert_cmpstr (gcuda_program_get_lowered_name (again, "scale<int, 2>"), ==, i2);
  g_clear_object (&again);

  /* a cubin has the instantiations' symbols */
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_CUBIN);
  again = compile_ok (compiler, source);
  g_assert_cmpstr (gcuda_program_get_lowered_name (again, "scale<float, 4>"), ==, f4);
  g_assert_true (bytes_contain (gcuda_program_get_image (again), f4));
  g_assert_true (bytes_contain (gcuda_program_get_image (again), i2));

  /* an expression that names nothing fails the compile */
  {
    g_autoptr(GCudaCompiler) bad = new_compiler (cache);
    GError *error = NULL;
    GCudaProgram *none;

    gcuda_compiler_set_no_extern_c (bad, TRUE);
    gcuda_compiler_add_name_expression (bad, "no_such_kernel_h2<int>");
    none = gcuda_compiler_compile (bad, source, &error);
    g_assert_null (none);
    g_assert_nonnull (error);
    g_assert_true (error->domain == GCUDA_COMPILE_ERROR);
    g_clear_error (&error);
  }

  rm_rf (cache);
}

static void
test_include_dirs (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autofree char *inc = make_tmp_dir ();
  g_autofree char *inc2 = make_tmp_dir ();
  g_autofree char *header = g_build_filename (inc, "kname.h", NULL);
  g_autofree char *header2 = g_build_filename (inc2, "other.h", NULL);
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autofree char *source = unique_source (kname_source);
  g_autofree char *entries = NULL;
  const char *dirs[] = { inc2, inc, NULL };
  GError *error = NULL;
  GCudaProgram *program;

  /* not found without the directory */
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
  program = gcuda_compiler_compile (compiler, source, &error);
  g_assert_null (program);
  gcuda_assert_error (error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);
  g_assert_nonnull (strstr (error->message, "kname.h"));
  g_clear_error (&error);

  /* found in the second directory, including a header of the first */
  write_file (header, "#include <other.h>\n#define KNAME OTHER_NAME\n");
  write_file (header2, "#define OTHER_NAME from_include_dir_h2\n");
  gcuda_compiler_set_include_dirs (compiler, dirs);
  entries = compile_entries (compiler, source);
  g_assert_cmpstr (entries, ==, "from_include_dir_h2");

  rm_rf (cache);
  rm_rf (inc);
  rm_rf (inc2);
}

static void
test_memory_headers (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autofree char *inc = make_tmp_dir ();
  g_autofree char *header = g_build_filename (inc, "kname.h", NULL);
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autofree char *source = unique_source (kname_source);
  g_autofree char *entries = NULL;
  const char *dirs[] = { inc, NULL };

  gcuda_compiler_add_header (compiler, "kname.h", "#include \"sub.h\"\n#define KNAME SUB_NAME\n");
  gcuda_compiler_add_header (compiler, "sub.h", "#define SUB_NAME from_memory_h2\n");
  entries = compile_entries (compiler, source);
  g_assert_cmpstr (entries, ==, "from_memory_h2");
  g_clear_pointer (&entries, g_free);

  /* an in-memory header wins over a file of the same name */
  write_file (header, "#define KNAME from_file_h2\n");
  gcuda_compiler_set_include_dirs (compiler, dirs);
  entries = compile_entries (compiler, source);
  g_assert_cmpstr (entries, ==, "from_memory_h2");
  g_clear_pointer (&entries, g_free);

  /* adding a name again replaces its text (and the cache sees it) */
  gcuda_compiler_add_header (compiler, "sub.h", "#define SUB_NAME replaced_h2\n");
  entries = compile_entries (compiler, source);
  g_assert_cmpstr (entries, ==, "replaced_h2");

  rm_rf (cache);
  rm_rf (inc);
}

static void
test_no_extern_c (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autofree char *source = unique_source ("__global__ void plain_or_mangled (int *p) { p[0] = 42; }\n");
  g_autoptr(GCudaProgram) cubin = NULL;
  g_autofree char *entries = NULL;

  /* wrapped in extern "C" (PyCUDA's default): the plain name */
  entries = compile_entries (compiler, source);
  g_assert_cmpstr (entries, ==, "plain_or_mangled");
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_CUBIN);
  cubin = compile_ok (compiler, source);
  g_assert_true (bytes_contain (gcuda_program_get_image (cubin), "plain_or_mangled"));
  g_assert_false (bytes_contain (gcuda_program_get_image (cubin), "_Z16plain_or_mangledPi"));
  g_clear_object (&cubin);
  g_clear_pointer (&entries, g_free);

  /* as it is: C++ mangling */
  gcuda_compiler_set_no_extern_c (compiler, TRUE);
  entries = compile_entries (compiler, source);
  g_assert_cmpstr (entries, ==, "_Z16plain_or_mangledPi");
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_CUBIN);
  cubin = compile_ok (compiler, source);
  g_assert_true (bytes_contain (gcuda_program_get_image (cubin), "_Z16plain_or_mangledPi"));

  rm_rf (cache);
}

static void
assert_kept (const char *dir,
             const char *source,
             GBytes     *image,
             const char *output_name,
             const char *log)
{
  g_autofree char *src_path = g_build_filename (dir, "kernel.cu", NULL);
  g_autofree char *log_path = g_build_filename (dir, "kernel.log", NULL);
  g_autofree char *out_path = g_build_filename (dir, output_name, NULL);
  g_autoptr(GBytes) src = read_file (src_path);
  g_autoptr(GBytes) kept_log = read_file (log_path);
  g_autofree char *src_text = g_strndup (g_bytes_get_data (src, NULL), g_bytes_get_size (src));

  /* the source as compiled: the user's text inside the extern "C" wrapper */
  g_assert_nonnull (strstr (src_text, source));
  g_assert_cmpmem (g_bytes_get_data (kept_log, NULL), g_bytes_get_size (kept_log), log, strlen (log));
  if (image != NULL)
    {
      g_autoptr(GBytes) out = read_file (out_path);

      g_assert_true (g_bytes_equal (out, image));
    }
  else
    g_assert_false (g_file_test (out_path, G_FILE_TEST_EXISTS));
}

static void
test_keep (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autofree char *top = make_tmp_dir ();
  g_autofree char *keep = g_build_filename (top, "not", "yet", NULL);
  g_autofree char *keep2 = g_build_filename (top, "hit", NULL);
  g_autofree char *keep3 = g_build_filename (top, "failed", NULL);
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autofree char *source = unique_source (vadd_source);
  g_autoptr(GCudaProgram) program = NULL;
  GError *error = NULL;

  /* the directory is made; source, log and cubin are kept */
  gcuda_compiler_set_keep (compiler, keep);
  program = compile_ok (compiler, source);
  g_assert_false (gcuda_program_is_from_cache (program));
  assert_kept (keep, source, gcuda_program_get_image (program), "kernel.cubin", gcuda_program_get_log (program));
  g_clear_object (&program);

  /* PTX, from the cache: still kept */
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
  program = compile_ok (compiler, source);
  g_clear_object (&program);
  gcuda_compiler_set_keep (compiler, keep2);
  program = compile_ok (compiler, source);
  g_assert_true (gcuda_program_is_from_cache (program));
  assert_kept (keep2, source, gcuda_program_get_image (program), "kernel.ptx", gcuda_program_get_log (program));
  g_clear_object (&program);

  /* a failed compile keeps its source and log, no output */
  gcuda_compiler_set_keep (compiler, keep3);
  program = gcuda_compiler_compile (compiler, "__global__ void k (int *p) { p[0] = nothing_h2; }", &error);
  g_assert_null (program);
  gcuda_assert_error_clear (&error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);
  {
    g_autofree char *log = gcuda_compiler_get_last_log (compiler);

    g_assert_nonnull (strstr (log, "nothing_h2"));
    assert_kept (keep3, "nothing_h2", NULL, "kernel.ptx", log);
  }

  rm_rf (cache);
  rm_rf (top);
}

/* GCUDA_DEFAULT_NVRTC_FLAGS: read at each compile, before the compiler's own
 * options, part of the cache key. Children, so the environment is theirs. */
static const char env_source[] =
  "#ifndef VALUE\n"
  "#error VALUE is not defined\n"
  "#endif\n"
  "#define CAT2(a, b) a##b\n"
  "#define CAT(a, b) CAT2(a, b)\n"
  "__global__ void CAT (from_env_, VALUE) (int *p) { p[0] = VALUE; }\n";

static void
test_default_flags (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autofree char *top = make_tmp_dir ();
  g_autofree char *source = unique_source (env_source);
  g_autofree char *path = source_file (top, source);
  g_autofree char *out = NULL;
  const char *env7[] = { "GCUDA_DEFAULT_NVRTC_FLAGS", "-DVALUE=7", NULL };
  const char *env8[] = { "GCUDA_DEFAULT_NVRTC_FLAGS", "-DNOTHING=1 '-DVALUE=8'", NULL };
  const char *env_none[] = { "GCUDA_DEFAULT_NVRTC_FLAGS", NULL, NULL };
  const char *env_bad[] = { "GCUDA_DEFAULT_NVRTC_FLAGS", "-DVALUE='7", NULL };
  g_auto(GStrv) lines = NULL;

  /* without: the #error */
  out = run_child (env_none, cache, path, "ptx", 1);
  assert_child_error (out, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);
  g_clear_pointer (&out, g_free);

  /* with: the kernel's name has the value, twice (the second from the cache) */
  out = run_child (env7, cache, path, "ptx", 2);
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_true (g_str_has_prefix (lines[0], "ok from-cache=0 "));
  g_assert_true (g_str_has_suffix (lines[0], " entries=from_env_7"));
  g_assert_true (g_str_has_prefix (lines[1], "ok from-cache=1 "));
  g_assert_true (g_str_has_suffix (lines[1], " entries=from_env_7"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&lines, g_strfreev);

  /* other flags, shell-quoted: another key, never the cached 7 */
  out = run_child (env8, cache, path, "ptx", 1);
  g_assert_true (g_str_has_prefix (out, "ok from-cache=0 "));
  g_assert_true (g_str_has_suffix (out, " entries=from_env_8\n"));
  g_clear_pointer (&out, g_free);

  /* flags that do not parse */
  out = run_child (env_bad, cache, path, "ptx", 1);
  assert_child_error (out, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_clear_pointer (&out, g_free);

  rm_rf (cache);
  rm_rf (top);
}

/* The environment's flags come first: the compiler's options win. */
static void
test_default_flags_order (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GCudaCompiler) compiler = new_compiler ("");
      g_autofree char *source = unique_source (env_source);
      g_autofree char *entries = NULL;
      const char *opts[] = { "-DVALUE=9", NULL };

      g_setenv ("GCUDA_DEFAULT_NVRTC_FLAGS", "-DVALUE=7", TRUE);
      entries = compile_entries (compiler, source);
      g_assert_cmpstr (entries, ==, "from_env_7");
      g_clear_pointer (&entries, g_free);

      gcuda_compiler_set_options (compiler, opts);
      entries = compile_entries (compiler, source);
      g_assert_cmpstr (entries, ==, "from_env_9");
      printf ("order checked\n");
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*order checked*");
}

/* A second compile is a hit: same bytes, the entry left as it was; a fresh
 * process hits the disk without loading NVRTC. */
static void
test_cache_hit (void)
{
  g_autofree char *top = make_tmp_dir ();
  g_autofree char *cache = g_build_filename (top, "made", "by", "gcuda", NULL);
  g_autofree char *source = unique_source (vadd_source);
  g_autofree char *path = source_file (top, source);
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autoptr(GCudaCompiler) other = new_compiler (cache);
  g_autoptr(GCudaProgram) first = NULL, second = NULL;
  g_autofree char *entry = NULL;
  g_autofree char *sha = NULL;
  g_autofree char *out = NULL, *want = NULL;
  g_autofree char *source2 = unique_source (vadd_source);
  g_autofree char *path2 = g_build_filename (top, "source2.cu", NULL);
  struct stat st1, st2;

  first = compile_ok (compiler, source);
  g_assert_false (gcuda_program_is_from_cache (first));

  /* the directory is made private; one entry */
  g_assert_cmpint (stat (cache, &st1), ==, 0);
  g_assert_cmpint (st1.st_mode & 0777, ==, 0700);
  entry = only_entry (cache);
  g_assert_cmpint (stat (entry, &st1), ==, 0);
  g_assert_cmpuint (st1.st_uid, ==, getuid ());
  g_assert_cmpint (st1.st_mode & 0077, ==, 0);

  /* another compiler, same settings: a hit, nothing written */
  second = compile_ok (other, source);
  g_assert_true (gcuda_program_is_from_cache (second));
  g_assert_true (g_bytes_equal (gcuda_program_get_image (first), gcuda_program_get_image (second)));
  g_assert_cmpstr (gcuda_program_get_log (first), ==, gcuda_program_get_log (second));
  g_assert_cmpint (gcuda_program_get_kind (second), ==, GCUDA_PROGRAM_KIND_CUBIN);
  g_assert_cmpstr (gcuda_program_get_arch (second), ==, ARCH);
  g_assert_cmpint (stat (entry, &st2), ==, 0);
  g_assert_cmpint (st2.st_ino, ==, st1.st_ino);
  g_assert_cmpint (st2.st_mtim.tv_sec, ==, st1.st_mtim.tv_sec);
  g_assert_cmpint (st2.st_mtim.tv_nsec, ==, st1.st_mtim.tv_nsec);
  g_free (only_entry (cache));

  /* a fresh process: from the disk, same bytes, NVRTC never loaded; then a
   * source it has not seen loads NVRTC (so the check can see it) */
  sha = sha256_of (gcuda_program_get_image (first));
  write_file (path2, source2);
  out = run_child (NULL, cache, path, "cubin", 1);
  want = ok_line (TRUE, FALSE, sha, NULL);
  assert_output (out, want);
  g_clear_pointer (&out, g_free);
  out = run_child (NULL, cache, path2, "cubin", 1);
  g_assert_true (g_str_has_prefix (out, "ok from-cache=0 nvrtc-loaded=1 "));

  /* the same source as PTX is another entry */
  g_clear_object (&second);
  gcuda_compiler_set_target (other, GCUDA_PROGRAM_KIND_PTX);
  second = compile_ok (other, source);
  g_assert_false (gcuda_program_is_from_cache (second));
  g_assert_cmpuint (count_files (cache), ==, 3);

  rm_rf (top);
}

/* Without NVRTC: NVRTC_NOT_FOUND on a cold cache. A warm one does not help
 * either: the key covers NVRTC's identity, so with no NVRTC there is no key. */
static void
test_no_nvrtc (void)
{
  g_autofree char *top = make_tmp_dir ();
  g_autofree char *cache = g_build_filename (top, "cache", NULL);
  g_autofree char *source = unique_source (vadd_source);
  g_autofree char *path = source_file (top, source);
  g_autofree char *out = NULL;
  const char *env[] = { "GCUDA_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13", NULL };
  const char *env_disabled[] = { "GCUDA_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13",
                                 "GCUDA_DISABLE_CACHE", "1", NULL };
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autoptr(GCudaProgram) program = NULL;

  out = run_child (env, cache, path, "cubin", 1);
  assert_child_error (out, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND);
  g_clear_pointer (&out, g_free);

  out = run_child (env_disabled, "-", path, "ptx", 1);
  assert_child_error (out, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND);
  g_clear_pointer (&out, g_free);

  /* a cache entry made with NVRTC does not help a process without it */
  if (gcuda_test_require_nvrtc ())
    {
      program = compile_ok (compiler, source);
      out = run_child (env, cache, path, "cubin", 1);
      assert_child_error (out, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND);
    }

  rm_rf (top);
}

static void
test_no_nvrtc_message (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GCudaCompiler) compiler = new_compiler ("");
      GError *error = NULL;
      GCudaProgram *program;

      g_setenv ("GCUDA_NVRTC_LIBRARY", "/nonexistent/libnvrtc-h2.so", TRUE);
      program = gcuda_compiler_compile (compiler, vadd_source, &error);
      g_assert_null (program);
      gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND);
      /* the message says what was tried */
      g_assert_nonnull (strstr (error->message, "/nonexistent/libnvrtc-h2.so"));
      g_clear_error (&error);
      /* and stays so */
      program = gcuda_compiler_compile (compiler, vadd_source, &error);
      g_assert_null (program);
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND);
      g_assert_false (nvrtc_loaded ());
      printf ("nvrtc not found\n");
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*nvrtc not found*");
}

/* Editing an included header changes the key: the next compile sees the
 * edit; putting the old text back hits the old entry again. */
static void
test_cache_header_edit (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autofree char *inc = make_tmp_dir ();
  g_autofree char *header = g_build_filename (inc, "kname.h", NULL);
  g_autofree char *source = unique_source (kname_source);
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  const char *dirs[] = { inc, NULL };
  g_autoptr(GCudaProgram) program = NULL;
  g_autofree char *entries = NULL;

  gcuda_compiler_set_include_dirs (compiler, dirs);
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
  write_file (header, "#define KNAME first_name_h2\n");
  program = compile_ok (compiler, source);
  g_assert_false (gcuda_program_is_from_cache (program));
  entries = ptx_entries (gcuda_program_get_image (program));
  g_assert_cmpstr (entries, ==, "first_name_h2");
  g_clear_object (&program);
  g_clear_pointer (&entries, g_free);

  program = compile_ok (compiler, source);
  g_assert_true (gcuda_program_is_from_cache (program));
  g_clear_object (&program);

  /* same size, same second: only the content differs */
  write_file (header, "#define KNAME other_name_h2\n");
  program = compile_ok (compiler, source);
  g_assert_false (gcuda_program_is_from_cache (program));
  entries = ptx_entries (gcuda_program_get_image (program));
  g_assert_cmpstr (entries, ==, "other_name_h2");
  g_clear_object (&program);
  g_clear_pointer (&entries, g_free);
  g_assert_cmpuint (count_files (cache), ==, 2);

  write_file (header, "#define KNAME first_name_h2\n");
  program = compile_ok (compiler, source);
  g_assert_true (gcuda_program_is_from_cache (program));
  entries = ptx_entries (gcuda_program_get_image (program));
  g_assert_cmpstr (entries, ==, "first_name_h2");
  g_clear_object (&program);
  g_clear_pointer (&entries, g_free);

  /* a header that appears where an #include would find it first */
  {
    g_autofree char *inc0 = make_tmp_dir ();
    g_autofree char *shadow = g_build_filename (inc0, "kname.h", NULL);
    const char *dirs2[] = { inc0, inc, NULL };

    gcuda_compiler_set_include_dirs (compiler, dirs2);
    program = compile_ok (compiler, source);
    entries = ptx_entries (gcuda_program_get_image (program));
    g_assert_cmpstr (entries, ==, "first_name_h2");
    g_clear_object (&program);
    g_clear_pointer (&entries, g_free);

    write_file (shadow, "#define KNAME shadow_name_h2\n");
    program = compile_ok (compiler, source);
    g_assert_false (gcuda_program_is_from_cache (program));
    entries = ptx_entries (gcuda_program_get_image (program));
    g_assert_cmpstr (entries, ==, "shadow_name_h2");
    rm_rf (inc0);
  }

  rm_rf (cache);
  rm_rf (inc);
}

typedef enum {
  CORRUPT_FLIP_PAYLOAD,
  CORRUPT_FLIP_HEADER,
  CORRUPT_TRUNCATE,
  CORRUPT_EXTEND,
  CORRUPT_EMPTY,
} Corruption;

static void
corrupt_file (const char *path,
              Corruption  how)
{
  g_autoptr(GBytes) bytes = read_file (path);
  gsize size = g_bytes_get_size (bytes);
  g_autofree guint8 *data = g_memdup2 (g_bytes_get_data (bytes, NULL), size + 1);
  struct stat st;
  FILE *f;

  g_assert_cmpuint (size, >, 200);
  switch (how)
    {
    case CORRUPT_FLIP_PAYLOAD:
      data[size - 1] ^= 0x40;
      break;
    case CORRUPT_FLIP_HEADER:
      data[3] ^= 0x01;
      break;
    case CORRUPT_TRUNCATE:
      size -= 17;
      break;
    case CORRUPT_EXTEND:
      data[size++] = 0;
      break;
    case CORRUPT_EMPTY:
      size = 0;
      break;
    }
  /* in place, as a torn or damaged write would leave it */
  f = fopen (path, "wb");
  g_assert_nonnull (f);
  g_assert_cmpuint (fwrite (data, 1, size, f), ==, size);
  g_assert_cmpint (fclose (f), ==, 0);
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, size);
}

/* A corrupt entry is missed, recompiled into the right result and replaced
 * by a good one (fresh processes, as the in-process cache would answer). */
static void
test_cache_corrupt (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autofree char *top = make_tmp_dir ();
  g_autofree char *source = unique_source (vadd_source);
  g_autofree char *path = source_file (top, source);
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autoptr(GCudaProgram) program = compile_ok (compiler, source);
  g_autofree char *sha = sha256_of (gcuda_program_get_image (program));
  g_autofree char *entry = only_entry (cache);
  g_autofree char *hit = ok_line (TRUE, FALSE, sha, NULL);
  g_autofree char *recompiled = ok_line (FALSE, TRUE, sha, NULL);
  const Corruption all[] = { CORRUPT_FLIP_PAYLOAD, CORRUPT_FLIP_HEADER, CORRUPT_TRUNCATE,
                             CORRUPT_EXTEND, CORRUPT_EMPTY };

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    {
      g_autofree char *out = NULL;
      g_autofree char *entry_now = NULL;

      corrupt_file (entry, all[i]);
      out = run_child (NULL, cache, path, "cubin", 1);
      assert_output (out, recompiled);
      g_clear_pointer (&out, g_free);

      /* repaired: the next process hits */
      entry_now = only_entry (cache);
      g_assert_cmpstr (entry_now, ==, entry);
      out = run_child (NULL, cache, path, "cubin", 1);
      assert_output (out, hit);
    }

  rm_rf (cache);
  rm_rf (top);
}

/* An entry owned by someone else is never used (needs root to arrange). */
static void
test_cache_foreign_owner (void)
{
  g_autofree char *cache = NULL, *top = NULL, *source = NULL, *path = NULL;
  g_autofree char *sha = NULL, *entry = NULL, *out = NULL, *want = NULL;
  g_autoptr(GCudaCompiler) compiler = NULL;
  g_autoptr(GCudaProgram) program = NULL;
  struct stat st;

  if (getuid () != 0)
    {
      g_test_skip ("needs root to give a cache entry to another user");
      return;
    }

  cache = make_tmp_dir ();
  top = make_tmp_dir ();
  source = unique_source (vadd_source);
  path = source_file (top, source);
  compiler = new_compiler (cache);
  program = compile_ok (compiler, source);
  sha = sha256_of (gcuda_program_get_image (program));
  entry = only_entry (cache);
  g_assert_cmpint (chown (entry, 65534, 65534), ==, 0);

  /* ignored: compiled again, right result */
  out = run_child (NULL, cache, path, "cubin", 1);
  want = ok_line (FALSE, TRUE, sha, NULL);
  assert_output (out, want);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&want, g_free);

  /* the entry now there is the user's own, and used */
  g_assert_cmpint (stat (entry, &st), ==, 0);
  if (st.st_uid == 65534)
    {
      /* left alone: still never used */
      out = run_child (NULL, cache, path, "cubin", 1);
      want = ok_line (FALSE, TRUE, sha, NULL);
    }
  else
    {
      g_assert_cmpuint (st.st_uid, ==, getuid ());
      out = run_child (NULL, cache, path, "cubin", 1);
      want = ok_line (TRUE, FALSE, sha, NULL);
    }
  assert_output (out, want);

  rm_rf (cache);
  rm_rf (top);
}

/* Processes compiling the same source into the same cold cache at once all
 * succeed with the same result and leave one valid entry. */
static void
test_cache_concurrent (void)
{
  g_autofree char *top = make_tmp_dir ();
  g_autofree char *cache = g_build_filename (top, "cache", NULL);
  g_autofree char *source = unique_source (vadd_source);
  g_autofree char *path = source_file (top, source);
  g_autoptr(GSubprocessLauncher) launcher = child_launcher (NULL);
  g_autofree char *first = NULL;
  g_autofree char *sha = NULL;
  g_autofree char *out = NULL, *want = NULL;
  GSubprocess *children[4];

  for (guint i = 0; i < G_N_ELEMENTS (children); i++)
    children[i] = spawn_child (launcher, cache, path, "cubin", 1);
  for (guint i = 0; i < G_N_ELEMENTS (children); i++)
    {
      g_autofree char *line = child_output (children[i]);
      const char *s = strstr (line, "sha256=");

      g_assert_true (g_str_has_prefix (line, "ok from-cache="));
      g_assert_nonnull (s);
      if (first == NULL)
        first = g_strndup (s, 7 + 64);
      else
        g_assert_cmpmem (s, 7 + 64, first, 7 + 64);
      g_object_unref (children[i]);
    }

  g_free (only_entry (cache));
  sha = g_strdup (first + 7);
  out = run_child (NULL, cache, path, "cubin", 1);
  want = ok_line (TRUE, FALSE, sha, NULL);
  assert_output (out, want);

  rm_rf (top);
}

/* cache-dir "" caches nothing, not even in the process. */
static void
test_cache_dir_empty (void)
{
  g_autofree char *top = make_tmp_dir ();
  g_autofree char *cache = g_build_filename (top, "env-cache", NULL);
  g_autofree char *source = unique_source (vadd_source);
  g_autofree char *path = source_file (top, source);
  g_autoptr(GCudaCompiler) compiler = new_compiler ("");
  g_autoptr(GCudaProgram) first = NULL, second = NULL;
  g_autofree char *out = NULL;
  const char *env[] = { "GCUDA_CACHE_DIR", cache, "GCUDA_DISABLE_CACHE", NULL, NULL };
  g_auto(GStrv) lines = NULL;

  first = compile_ok (compiler, source);
  second = compile_ok (compiler, source);
  g_assert_false (gcuda_program_is_from_cache (first));
  g_assert_false (gcuda_program_is_from_cache (second));

  /* nor in the default directory */
  out = run_child (env, "", path, "cubin", 2);
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_true (g_str_has_prefix (lines[0], "ok from-cache=0 nvrtc-loaded=1 "));
  g_assert_true (g_str_has_prefix (lines[1], "ok from-cache=0 nvrtc-loaded=1 "));
  g_assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));

  rm_rf (top);
}

/* The default directory is GCUDA_CACHE_DIR; GCUDA_DISABLE_CACHE turns the
 * default cache off (disk and process). */
static void
test_cache_env (void)
{
  g_autofree char *top = make_tmp_dir ();
  g_autofree char *cache = g_build_filename (top, "env-cache", NULL);
  g_autofree char *source = unique_source (vadd_source);
  g_autofree char *path = source_file (top, source);
  g_autofree char *out = NULL;
  const char *env_dir[] = { "GCUDA_CACHE_DIR", cache, "GCUDA_DISABLE_CACHE", NULL, NULL };
  const char *env_off[] = { "GCUDA_CACHE_DIR", cache, "GCUDA_DISABLE_CACHE", "1", NULL };
  const char *env_zero[] = { "GCUDA_CACHE_DIR", cache, "GCUDA_DISABLE_CACHE", "0", NULL };
  g_auto(GStrv) lines = NULL;

  /* disabled: nothing cached, nothing written */
  out = run_child (env_off, "-", path, "cubin", 2);
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_true (g_str_has_prefix (lines[0], "ok from-cache=0 "));
  g_assert_true (g_str_has_prefix (lines[1], "ok from-cache=0 "));
  g_assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&lines, g_strfreev);

  /* GCUDA_CACHE_DIR: the entry is there, the next process hits it */
  out = run_child (env_dir, "-", path, "cubin", 2);
  lines = g_strsplit (out, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], "ok from-cache=0 "));
  g_assert_true (g_str_has_prefix (lines[1], "ok from-cache=1 "));
  g_free (only_entry (cache));
  g_clear_pointer (&out, g_free);
  out = run_child (env_zero, "-", path, "cubin", 1);
  g_assert_true (g_str_has_prefix (out, "ok from-cache=1 nvrtc-loaded=0 "));
  g_clear_pointer (&out, g_free);

  /* and disabling it again ignores the entry */
  out = run_child (env_off, "-", path, "cubin", 1);
  g_assert_true (g_str_has_prefix (out, "ok from-cache=0 nvrtc-loaded=1 "));

  rm_rf (top);
}

typedef struct {
  GCudaProgram *program;
  GError *error;
  GThread *thread;
  int done;
} CompileResult;

static void
compile_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      data)
{
  CompileResult *r = data;

  g_assert_cmpint (r->done, ==, 0);
  r->program = gcuda_compiler_compile_finish (GCUDA_COMPILER (source), result, &r->error);
  r->thread = g_thread_self ();
  r->done = 1;
}

static void
wait_result (CompileResult *r)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (!r->done)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
}

static void
test_async (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  g_autofree char *source = unique_source (kname_source);
  g_autofree char *entries = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  CompileResult r = { 0 }, r2 = { 0 }, r3 = { 0 };

  /* the settings as they were at the call */
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
  gcuda_compiler_add_header (compiler, "kname.h", "#define KNAME async_first_h2\n");
  gcuda_compiler_compile_async (compiler, source, NULL, compile_cb, &r);
  gcuda_compiler_add_header (compiler, "kname.h", "#define KNAME async_second_h2\n");
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_CUBIN);
  g_assert_cmpint (r.done, ==, 0);  /* never before the main loop runs */
  wait_result (&r);
  g_assert_no_error (r.error);
  g_assert_true (r.thread == g_thread_self ());
  g_assert_true (GCUDA_IS_PROGRAM (r.program));
  g_assert_cmpint (gcuda_program_get_kind (r.program), ==, GCUDA_PROGRAM_KIND_PTX);
  entries = ptx_entries (gcuda_program_get_image (r.program));
  g_assert_cmpstr (entries, ==, "async_first_h2");
  g_clear_object (&r.program);

  /* a failure */
  gcuda_compiler_compile_async (compiler, "__global__ void k (int *p) { p[0] = async_undefined_h2; }",
                                NULL, compile_cb, &r2);
  wait_result (&r2);
  g_assert_null (r2.program);
  gcuda_assert_error (r2.error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);
  g_assert_nonnull (strstr (r2.error->message, "async_undefined_h2"));
  g_clear_error (&r2.error);

  /* cancelled before it ran */
  g_cancellable_cancel (cancellable);
  gcuda_compiler_compile_async (compiler, source, cancellable, compile_cb, &r3);
  wait_result (&r3);
  g_assert_null (r3.program);
  g_assert_error (r3.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&r3.error);

  rm_rf (cache);
}

/* A result of another compiler is refused by _finish. */
static void
test_async_foreign_result (void)
{
  g_autoptr(GCudaCompiler) a = new_compiler ("");
  g_autoptr(GCudaCompiler) b = new_compiler ("");
  g_autoptr(GTask) task = g_task_new (a, NULL, NULL, NULL);
  GError *error = NULL;
  GCudaProgram *program;

  program = gcuda_compiler_compile_finish (b, G_ASYNC_RESULT (task), &error);
  g_assert_null (program);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  program = gcuda_compiler_compile_finish (a, G_ASYNC_RESULT (task), &error);
  g_assert_null (program);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_task_return_boolean (task, TRUE);
}

/* With no arch and no driver, the device's architecture cannot be found. */
static void
test_no_arch_without_driver (void)
{
  const char *driver = g_getenv ("GCUDA_DRIVER_LIBRARY");
  g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
  GError *error = NULL;
  GCudaProgram *program;

  if (driver == NULL || g_file_test (driver, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("only with GCUDA_DRIVER_LIBRARY naming a missing file");
      return;
    }
  gcuda_compiler_set_cache_dir (compiler, "");
  program = gcuda_compiler_compile (compiler, vadd_source, &error);
  g_assert_null (program);
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "architecture"));
  g_clear_error (&error);
}

/* Several threads compiling with one compiler (each compile takes a
 * snapshot of its settings). */
typedef struct {
  GCudaCompiler *compiler;
  char *source;
  char *expected;
} ThreadJob;

static gpointer
compile_thread (gpointer data)
{
  ThreadJob *job = data;
  GError *error = NULL;
  g_autoptr(GCudaProgram) program = gcuda_compiler_compile (job->compiler, job->source, &error);
  g_autofree char *entries = NULL;

  g_assert_no_error (error);
  entries = ptx_entries (gcuda_program_get_image (program));
  g_assert_cmpstr (entries, ==, job->expected);
  return NULL;
}

static void
test_threads (void)
{
  g_autofree char *cache = make_tmp_dir ();
  g_autoptr(GCudaCompiler) compiler = new_compiler (cache);
  ThreadJob jobs[4];
  GThread *threads[4];

  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
  for (guint i = 0; i < G_N_ELEMENTS (jobs); i++)
    {
      g_autofree char *body = g_strdup_printf ("__global__ void thread_kernel_%u (int *p) { p[0] = %u; }\n", i, i);

      jobs[i].compiler = compiler;
      jobs[i].source = unique_source (body);
      jobs[i].expected = g_strdup_printf ("thread_kernel_%u", i);
      threads[i] = g_thread_new ("compile", compile_thread, &jobs[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (jobs); i++)
    {
      g_thread_join (threads[i]);
      g_free (jobs[i].source);
      g_free (jobs[i].expected);
    }
  g_assert_cmpuint (count_files (cache), ==, G_N_ELEMENTS (jobs));

  rm_rf (cache);
}

/* ------------------------------------------------------------ signals */

/* NVRTC's front end sets SIGINT and SIGTERM to a handler of its own (one
 * that calls exit (4)) and SIGXFSZ to SIG_IGN while it parses, and then puts
 * back what it found, with other flags. Those dispositions belong to the
 * whole process: a Ctrl-C or a logout's SIGTERM in that window ended the
 * application from inside a signal handler, and PyGObject's
 * GLib.MainLoop.run() raised AssertionError when it started in that window
 * (it checks that SIGINT is still Python's). GCuda keeps NVRTC from changing
 * them: a thread watches them through whole compiles, and signals sent
 * meanwhile reach the handlers the program set. */

static const int watched_signals[] = { SIGINT, SIGTERM, SIGXFSZ, SIGHUP, SIGQUIT, SIGPIPE };

typedef struct {
  struct sigaction before[G_N_ELEMENTS (watched_signals)];
  gint stop;
  gint samples;
  gint changes;
  int changed_signal;
} SignalWatch;

static gint signals_caught;

static void
count_signal (int sig, siginfo_t *info, void *context)
{
  g_atomic_int_inc (&signals_caught);
}

static gboolean
same_disposition (const struct sigaction *a,
                  const struct sigaction *b)
{
  return a->sa_sigaction == b->sa_sigaction && a->sa_flags == b->sa_flags;
}

static gpointer
watch_signals (gpointer data)
{
  SignalWatch *watch = data;

  while (!g_atomic_int_get (&watch->stop))
    {
      for (guint i = 0; i < G_N_ELEMENTS (watched_signals); i++)
        {
          struct sigaction now;

          g_assert_cmpint (sigaction (watched_signals[i], NULL, &now), ==, 0);
          if (!same_disposition (&now, &watch->before[i]))
            {
              if (g_atomic_int_add (&watch->changes, 1) == 0)
                watch->changed_signal = watched_signals[i];
            }
        }
      g_atomic_int_inc (&watch->samples);
    }
  return NULL;
}

/* Sends SIGTERM and SIGINT to the process now and then until told to stop. */
static gpointer
send_signals (gpointer data)
{
  SignalWatch *watch = data;

  while (!g_atomic_int_get (&watch->stop))
    {
      kill (getpid (), SIGTERM);
      kill (getpid (), SIGINT);
      g_usleep (2000);
    }
  return NULL;
}

/* In a process of its own: NVRTC does this in the first compile of a
 * process only, and the NVRTC probe of the parent has compiled already. */
static void
signals_untouched_child (void)
{
  g_autoptr(GCudaCompiler) compiler = new_compiler ("");
  struct sigaction mine = { 0 }, saved[G_N_ELEMENTS (watched_signals)];
  SignalWatch watch = { 0 };
  GThread *watcher, *sender;

  /* the program's own handlers, with flags NVRTC's signal () would not set */
  mine.sa_sigaction = count_signal;
  mine.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset (&mine.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (watched_signals); i++)
    g_assert_cmpint (sigaction (watched_signals[i], NULL, &saved[i]), ==, 0);
  g_assert_cmpint (sigaction (SIGINT, &mine, NULL), ==, 0);
  g_assert_cmpint (sigaction (SIGTERM, &mine, NULL), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (watched_signals); i++)
    g_assert_cmpint (sigaction (watched_signals[i], NULL, &watch.before[i]), ==, 0);

  /* signals sent during the compiles reach the program's handler, and the
   * compiles go on */
  watcher = g_thread_new ("watch-signals", watch_signals, &watch);
  sender = g_thread_new ("send-signals", send_signals, &watch);
  for (guint round = 0; round < 3; round++)
    {
      g_autofree char *good = unique_source (vadd_source);
      g_autofree char *bad = unique_source ("__global__ void k( {\n");
      g_autoptr(GCudaProgram) program = compile_ok (compiler, good);
      g_autoptr(GError) error = NULL;
      g_autoptr(GCudaProgram) none = gcuda_compiler_compile (compiler, bad, &error);

      g_assert_error (error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);
      g_assert_null (none);
    }
  g_atomic_int_set (&watch.stop, 1);
  g_thread_join (sender);
  g_thread_join (watcher);

  g_test_message ("%d samples of the dispositions during 6 compiles; %d signals caught",
                  g_atomic_int_get (&watch.samples), g_atomic_int_get (&signals_caught));
  g_assert_cmpint (watch.samples, >, 100);
  if (watch.changes != 0)
    g_error ("the disposition of signal %d (%s) changed during a compile (%d samples saw a change)",
             watch.changed_signal, g_strsignal (watch.changed_signal), watch.changes);
  g_assert_cmpint (g_atomic_int_get (&signals_caught), >, 0);
  for (guint i = 0; i < G_N_ELEMENTS (watched_signals); i++)
    {
      struct sigaction after;

      g_assert_cmpint (sigaction (watched_signals[i], NULL, &after), ==, 0);
      g_assert_true (same_disposition (&after, &watch.before[i]));
      g_assert_cmpint (sigaction (watched_signals[i], &saved[i], NULL), ==, 0);
    }
}

static void
test_signals_untouched (void)
{
  if (g_test_subprocess ())
    {
      signals_untouched_child ();
      return;
    }
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int    argc,
      char **argv)
{
  if (argc >= 2 && g_str_equal (argv[1], "--child-compile"))
    return child_compile (argc, argv);

  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_assert_nonnull (self_exe);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/compiler/properties", test_properties);
  gcuda_test_add_nvrtc_func ("/compiler/cubin", test_cubin);
  gcuda_test_add_nvrtc_func ("/compiler/ptx", test_ptx);
  gcuda_test_add_nvrtc_func ("/compiler/virtual-arch-and-code", test_virtual_arch_and_code);
  gcuda_test_add_nvrtc_func ("/compiler/syntax-error", test_syntax_error);
  gcuda_test_add_nvrtc_func ("/compiler/name-expressions", test_name_expressions);
  gcuda_test_add_nvrtc_func ("/compiler/include-dirs", test_include_dirs);
  gcuda_test_add_nvrtc_func ("/compiler/memory-headers", test_memory_headers);
  gcuda_test_add_nvrtc_func ("/compiler/no-extern-c", test_no_extern_c);
  gcuda_test_add_nvrtc_func ("/compiler/keep", test_keep);
  gcuda_test_add_nvrtc_func ("/compiler/default-flags", test_default_flags);
  gcuda_test_add_nvrtc_func ("/compiler/default-flags-order", test_default_flags_order);
  g_test_add_func ("/compiler/no-arch-without-driver", test_no_arch_without_driver);
  g_test_add_func ("/compiler/no-nvrtc", test_no_nvrtc);
  g_test_add_func ("/compiler/no-nvrtc-message", test_no_nvrtc_message);
  gcuda_test_add_nvrtc_func ("/compiler/async", test_async);
  g_test_add_func ("/compiler/async-foreign-result", test_async_foreign_result);
  gcuda_test_add_nvrtc_func ("/compiler/threads", test_threads);
  gcuda_test_add_nvrtc_func ("/compiler/signals-untouched", test_signals_untouched);
  gcuda_test_add_nvrtc_func ("/compiler/cache/hit", test_cache_hit);
  gcuda_test_add_nvrtc_func ("/compiler/cache/header-edit", test_cache_header_edit);
  gcuda_test_add_nvrtc_func ("/compiler/cache/corrupt", test_cache_corrupt);
  gcuda_test_add_nvrtc_func ("/compiler/cache/foreign-owner", test_cache_foreign_owner);
  gcuda_test_add_nvrtc_func ("/compiler/cache/concurrent", test_cache_concurrent);
  gcuda_test_add_nvrtc_func ("/compiler/cache/dir-empty", test_cache_dir_empty);
  gcuda_test_add_nvrtc_func ("/compiler/cache/env", test_cache_env);

  return g_test_run ();
}
