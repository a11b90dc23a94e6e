/* test-exit.c: a process may exit at once after cancelling a compile
 *
 * A cancelled compile_async completes at once while NVRTC goes on in a
 * worker thread. A GNOME app that the user quits right then calls exit():
 * NVRTC's static destructors must not run while the worker is still inside
 * NVRTC (that crashed every time when the worker, not the caller, loaded
 * NVRTC). Each run is a fresh process (this program with --child), where
 * NVRTC is first loaded by the compile's worker: it cancels the compile as
 * soon as NVRTC is loaded (so the compile is still running), returns from
 * main() and must exit with status 0, not a signal.
 *
 * GCUDA_TEST_EXIT_RUNS sets the number of runs (default 20).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE 1  /* dl_iterate_phdr */

#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <gio/gio.h>
#include <gcuda.h>

#include "gcuda-test-util.h"

#define KERNELS 32

/* ------------------------------------------------------------ the child */

typedef struct {
  GMainLoop *loop;
  GCancellable *cancellable;
  GError *error;
  gboolean done;
  gboolean cancelled_in_nvrtc;
} Child;

static int
find_nvrtc (struct dl_phdr_info *info,
            size_t               size,
            void                *data)
{
  const char *base = info->dlpi_name != NULL ? strrchr (info->dlpi_name, '/') : NULL;

  base = base != NULL ? base + 1 : info->dlpi_name;
  /* libnvrtc.so.13, libnvrtc.so.13.0.88, libnvrtc.alt.so.13; not the builtins */
  if (base != NULL && g_str_has_prefix (base, "libnvrtc.") && strstr (base, "builtins") == NULL)
    {
      *(char **) data = g_strdup (info->dlpi_name);
      return 1;
    }
  return 0;
}

/* TRUE once NVRTC is loaded and its constructors have run: listed by the
 * loader, and opened again, which waits for a dlopen() in progress. */
static gboolean
nvrtc_loaded (void)
{
  g_autofree char *path = NULL;
  void *handle;

  dl_iterate_phdr (find_nvrtc, &path);
  if (path == NULL)
    return FALSE;
  handle = dlopen (path, RTLD_NOLOAD | RTLD_LAZY);
  if (handle == NULL)
    return FALSE;
  dlclose (handle);
  return TRUE;
}

static gboolean
cancel_when_loaded (gpointer data)
{
  Child *child = data;

  if (child->done)
    return G_SOURCE_REMOVE;
  if (!nvrtc_loaded ())
    return G_SOURCE_CONTINUE;
  child->cancelled_in_nvrtc = TRUE;
  g_cancellable_cancel (child->cancellable);
  return G_SOURCE_REMOVE;
}

static void
compiled (GObject      *source,
          GAsyncResult *result,
          gpointer      data)
{
  Child *child = data;
  g_autoptr(GCudaProgram) program = gcuda_compiler_compile_finish (GCUDA_COMPILER (source), result, &child->error);

  child->done = TRUE;
  g_main_loop_quit (child->loop);
}

static int
run_child (void)
{
  Child child = { 0 };
  g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
  g_autoptr(GString) source = g_string_new (NULL);

  if (nvrtc_loaded ())
    {
      g_printerr ("child: NVRTC is loaded before the compile\n");
      return 3;
    }
  /* unique: no cache may answer (nor is any used) */
  g_string_append_printf (source, "// %" G_GINT64_FORMAT " %u\n", g_get_real_time (), g_random_int ());
  for (guint i = 0; i < KERNELS; i++)
    g_string_append_printf (source,
                            "__global__ void k%u (float *p, float a)\n"
                            "{ int i = blockIdx.x * blockDim.x + threadIdx.x; p[i] = p[i] * a + %u.0f; }\n",
                            i, i);
  gcuda_compiler_set_arch (compiler, "sm_90");
  gcuda_compiler_set_cache_dir (compiler, "");
  child.loop = g_main_loop_new (NULL, FALSE);
  child.cancellable = g_cancellable_new ();
  gcuda_compiler_compile_async (compiler, source->str, child.cancellable, compiled, &child);
  g_timeout_add (1, cancel_when_loaded, &child);
  g_main_loop_run (child.loop);
  g_main_loop_unref (child.loop);
  g_object_unref (child.cancellable);

  if (!child.cancelled_in_nvrtc || !g_error_matches (child.error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* the compile ended before the cancel: nothing was tested */
      g_printerr ("child: not cancelled while NVRTC was loaded: %s\n",
                  child.error != NULL ? child.error->message : "the compile succeeded");
      g_clear_error (&child.error);
      return 4;
    }
  g_clear_error (&child.error);
  /* returning from main() calls exit() with the compile still running */
  return 0;
}

/* ------------------------------------------------------------ the test */

static void
no_core_dump (gpointer data)
{
  /* a crash is the result looked for, and cores are slow to write */
  struct rlimit none = { 0, 0 };

  setrlimit (RLIMIT_CORE, &none);
}

static void
test_exit_after_cancelled_compile (void)
{
  const char *runs_env = g_getenv ("GCUDA_TEST_EXIT_RUNS");
  guint runs = runs_env != NULL ? (guint) g_ascii_strtoull (runs_env, NULL, 10) : 20;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  guint clean = 0;

  g_assert_nonnull (self);
  for (guint i = 0; i < runs; i++)
    {
      char *argv[] = { self, (char *) "--child", NULL };
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autoptr(GError) error = NULL;
      int status = 0;

      g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, no_core_dump, NULL, &out, &err, &status, &error);
      g_assert_no_error (error);
      if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        g_error ("run %u of %u: the child %s %d; its stderr:\n%s", i + 1, runs,
                 WIFSIGNALED (status) ? "died of signal" : "exited with status",
                 WIFSIGNALED (status) ? WTERMSIG (status) : WEXITSTATUS (status), err);
      clean++;
    }
  g_test_message ("%u of %u runs exited cleanly after cancelling a compile inside NVRTC", clean, runs);
}

int
main (int   argc,
      char *argv[])
{
  if (argc == 2 && strcmp (argv[1], "--child") == 0)
    return run_child ();

  g_test_init (&argc, &argv, NULL);
  gcuda_test_add_nvrtc_func ("/exit/cancelled-compile", test_exit_after_cancelled_compile);
  return g_test_run ();
}
