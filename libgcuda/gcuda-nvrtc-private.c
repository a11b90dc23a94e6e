/* gcuda-nvrtc-private.c: opens NVRTC at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE 1  /* dladdr */

#include "config.h"

#include <dlfcn.h>
#include <signal.h>

#include "gcuda-error-private.h"
#include "gcuda-env-private.h"
#include "gcuda-file-private.h"
#include "gcuda-nvrtc-private.h"
#include "gcuda-plt-private.h"

static GCudaNvrtc nvrtc;
static GCudaLibrary nvrtc_library;
static void *nvrtc_base;  /* where NVRTC is loaded (dladdr()'s dli_fbase) */

/* Where Python's NVIDIA wheels put NVRTC under a site-packages directory:
 * nvidia-cuda-nvrtc for CUDA 13 (nvidia/cu13/lib), and the older per-library
 * layout of nvidia-cuda-nvrtc-cu12 and -cu13 (nvidia/cuda_nvrtc/lib). */
static const char * const wheel_files[] = {
  "nvidia/cu13/lib/libnvrtc.so.13",
  "nvidia/cuda_nvrtc/lib/libnvrtc.so.13",
  "nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
};

/* Adds PREFIX/lib/python3.X/{site,dist}-packages for every python3.X there. */
static void
add_prefix_site_dirs (GPtrArray  *dirs,
                      const char *prefix)
{
  g_autofree char *lib = NULL;
  GDir *dir;
  const char *name;

  if (prefix == NULL || !g_path_is_absolute (prefix))
    return;
  lib = g_build_filename (prefix, "lib", NULL);
  dir = g_dir_open (lib, 0, NULL);
  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      if (!g_str_has_prefix (name, "python3"))
        continue;
      g_ptr_array_add (dirs, g_build_filename (lib, name, "site-packages", NULL));
      g_ptr_array_add (dirs, g_build_filename (lib, name, "dist-packages", NULL));
    }
  g_dir_close (dir);
}

/* The site-packages directories where NVRTC wheels are looked for, most
 * specific first: the active virtual environment or conda environment,
 * PYTHONPATH's entries, the user's site (PYTHONUSERBASE, else ~/.local),
 * then /usr/local and /usr. Variables are read as _gcuda_secure_getenv()
 * does: a set-user-ID program ignores them, as the loader does
 * LD_LIBRARY_PATH. Computed once. */
const char * const *
_gcuda_nvrtc_wheel_site_dirs (void)
{
  static const char * const *site_dirs;
  static gsize once;

  if (g_once_init_enter (&once))
    {
      g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
      const char *pythonpath = _gcuda_secure_getenv ("PYTHONPATH");
      const char *userbase = _gcuda_secure_getenv ("PYTHONUSERBASE");
      const char *home = _gcuda_secure_getenv ("HOME");
      GPtrArray *unique = g_ptr_array_new ();

      add_prefix_site_dirs (dirs, _gcuda_secure_getenv ("VIRTUAL_ENV"));
      add_prefix_site_dirs (dirs, _gcuda_secure_getenv ("CONDA_PREFIX"));
      if (pythonpath != NULL)
        {
          g_auto(GStrv) entries = g_strsplit (pythonpath, G_SEARCHPATH_SEPARATOR_S, -1);

          for (guint i = 0; entries[i] != NULL; i++)
            if (g_path_is_absolute (entries[i]))
              g_ptr_array_add (dirs, g_strdup (entries[i]));
        }
      if (userbase != NULL && *userbase != '\0')
        add_prefix_site_dirs (dirs, userbase);
      else if (home != NULL && *home != '\0')
        {
          g_autofree char *local = g_build_filename (home, ".local", NULL);

          add_prefix_site_dirs (dirs, local);
        }
      add_prefix_site_dirs (dirs, "/usr/local");
      add_prefix_site_dirs (dirs, "/usr");

      /* interned: they live as long as the process, like the candidates */
      for (guint i = 0; i < dirs->len; i++)
        {
          const char *d = g_intern_string (dirs->pdata[i]);

          if (g_file_test (d, G_FILE_TEST_IS_DIR) && !g_hash_table_contains (seen, d))
            {
              g_hash_table_add (seen, (gpointer) d);
              g_ptr_array_add (unique, (gpointer) d);
            }
        }
      g_ptr_array_add (unique, NULL);
      site_dirs = (const char * const *) g_ptr_array_free (unique, FALSE);
      g_once_init_leave (&once, 1);
    }
  return site_dirs;
}

const char * const *
_gcuda_nvrtc_candidates (void)
{
  static const char * const *candidates;
  static gsize once;

  if (g_once_init_enter (&once))
    {
      const char *override = _gcuda_secure_getenv ("GCUDA_NVRTC_LIBRARY");
      GPtrArray *list = g_ptr_array_new ();

      if (override != NULL && *override != '\0')
        g_ptr_array_add (list, (gpointer) g_intern_string (override));
      else
        {
          const char * const *site_dirs = _gcuda_nvrtc_wheel_site_dirs ();

          /* A wheel installed in the Python environment first, as NVIDIA's
           * own Python packages look for it (cuda.pathfinder); then the
           * versioned sonames (the unversioned one is a development
           * symlink that may point anywhere); then the toolkit GCuda was
           * configured with, which is often not on the loader's path. */
          for (guint i = 0; site_dirs[i] != NULL; i++)
            for (guint j = 0; j < G_N_ELEMENTS (wheel_files); j++)
              {
                g_autofree char *path = g_build_filename (site_dirs[i], wheel_files[j], NULL);

                if (g_file_test (path, G_FILE_TEST_EXISTS))
                  g_ptr_array_add (list, (gpointer) g_intern_string (path));
              }
          g_ptr_array_add (list, "libnvrtc.so.13");
          g_ptr_array_add (list, "libnvrtc.so.12");
          g_ptr_array_add (list, "libnvrtc.so");
          g_ptr_array_add (list, (gpointer) g_intern_static_string (GCUDA_TOOLKIT_LIB_DIR "/libnvrtc.so.13"));
          g_ptr_array_add (list, (gpointer) g_intern_static_string (GCUDA_TOOLKIT_LIB_DIR "/libnvrtc.so.12"));
        }
      g_ptr_array_add (list, NULL);
      candidates = (const char * const *) g_ptr_array_free (list, FALSE);
      g_once_init_leave (&once, 1);
    }
  return candidates;
}

/* NVRTC's calls of signal (), redirected here.
 *
 * In the first compile of a process, NVRTC's front end sets SIGINT and
 * SIGTERM to a handler of its own, which calls exit (), and SIGXFSZ to
 * SIG_IGN; after parsing it puts back what it found, with other flags.
 * Dispositions belong to the whole process, and GCuda compiles on the
 * caller's thread or a worker: a Ctrl-C or a session's SIGTERM in that
 * window ended the application from inside a signal handler (measured:
 * exit status 4, or a crash), a handler another thread installed
 * meanwhile was overwritten, and PyGObject's GLib.MainLoop.run(), started
 * meanwhile, raised AssertionError (it checks that SIGINT is Python's). So
 * NVRTC's signal () changes nothing and answers the current handler.
 *
 * The one exception: when NVRTC's own handler is installed (NVRTC was
 * parsing for another library when GCuda opened it), NVRTC may put back
 * what it found. */
static sighandler_t
nvrtc_signal (int          sig,
              sighandler_t handler)
{
  struct sigaction now;
  Dl_info info;

  if (sigaction (sig, NULL, &now) != 0)
    return SIG_ERR;
  if (!(now.sa_flags & SA_SIGINFO) && now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN &&
      dladdr ((void *) now.sa_handler, &info) && info.dli_fbase == nvrtc_base)
    return signal (sig, handler);
  return (now.sa_flags & SA_SIGINFO) ? (sighandler_t) (void *) now.sa_sigaction : now.sa_handler;
}

static gboolean
load_nvrtc (GError **error)
{
  const char * const *candidates = _gcuda_nvrtc_candidates ();
  g_autoptr(GString) tried = g_string_new (NULL);
  void *lib = NULL;
  const char *name = NULL;

  for (guint i = 0; candidates[i] != NULL && lib == NULL; i++)
    {
      g_autoptr(GError) not_regular = NULL;

      name = candidates[i];
      /* a FIFO there (even at a wheel's path) would block dlopen() for ever */
      if (!_gcuda_file_check_library (name, &not_regular))
        g_string_append_printf (tried, _("%s%s (%s)"), tried->len ? ", " : "", name, not_regular->message);
      else if ((lib = dlopen (name, RTLD_NOW | RTLD_LOCAL)) == NULL)
        g_string_append_printf (tried, "%s%s", tried->len ? ", " : "", name);
    }
  if (lib == NULL)
    {
      const char * const *site_dirs = _gcuda_nvrtc_wheel_site_dirs ();
      g_autofree char *sites = g_strjoinv (", ", (char **) site_dirs);

      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND,
                   _("The NVRTC library could not be loaded (tried %s; no NVIDIA NVRTC wheel in %s). "
                     "Install NVRTC: `pip install 'nvidia-cuda-nvrtc~=13.0'` in the Python environment, "
                     "or the CUDA toolkit's NVRTC (e.g. the cuda-nvrtc-13-0 package); "
                     "or set GCUDA_NVRTC_LIBRARY to the path of libnvrtc.so.13."),
                   tried->str, *sites != '\0' ? sites : _("no site-packages directory"));
      return FALSE;
    }

#define GCUDA_NVRTC_RESOLVE(fname) \
  nvrtc.fn_##fname = (__typeof__ (nvrtc.fn_##fname)) dlsym (lib, #fname); \
  if (nvrtc.fn_##fname == NULL) \
    { \
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND, \
                   _("%s is not a usable NVRTC library: it has no %s"), name, #fname); \
      return FALSE; \
    }
  GCUDA_NVRTC_FUNCTIONS (GCUDA_NVRTC_RESOLVE)
#undef GCUDA_NVRTC_RESOLVE

  if (nvrtc.fn_nvrtcVersion (&nvrtc.major, &nvrtc.minor) != NVRTC_SUCCESS)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND,
                   _("%s does not report its version"), name);
      return FALSE;
    }
  {
    Dl_info info;

    /* Where the loader found it, for cache keys and messages; where it
     * lies, for nvrtc_signal () */
    if (dladdr ((void *) nvrtc.fn_nvrtcVersion, &info))
      nvrtc_base = info.dli_fbase;
    else
      info.dli_fname = NULL;
    nvrtc.path = g_strdup (info.dli_fname != NULL ? info.dli_fname : name);
  }
  {
    const char *why = NULL;
    guint n = nvrtc_base != NULL ? _gcuda_plt_redirect (lib, "signal", (gpointer) nvrtc_signal, &why) : 0;

    /* not fatal: NVRTC works, as it does for any other program */
    if (n == 0)
      g_debug ("NVRTC (%s) may change signal dispositions while it compiles: %s", nvrtc.path,
               why != NULL ? why : "its load address is unknown");
  }
  return TRUE;
}

const GCudaNvrtc *
_gcuda_nvrtc_get (GError **error)
{
  return _gcuda_library_get (&nvrtc_library, load_nvrtc, &nvrtc, error);
}

gboolean
_gcuda_nvrtc_is_loaded (void)
{
  return g_atomic_pointer_get (&nvrtc_library.table) != NULL;
}
