/* test-nvrtc-discovery.c: where GCuda looks for NVRTC without a toolkit
 *
 * Python's NVIDIA wheels (pip install 'nvidia-cuda-nvrtc~=13.0') put NVRTC
 * in site-packages/nvidia/cu13/lib, the older ones in
 * site-packages/nvidia/cuda_nvrtc/lib. A fake virtual environment holding a
 * symbolic link to the NVRTC this machine has must be found through
 * VIRTUAL_ENV, before any other; the error without NVRTC names the places
 * tried. Each case runs in a child process: NVRTC is looked for once per
 * process. Linked with the library's objects (the functions are private).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcuda.h"
#include "gcuda-nvrtc-private.h"

static char *tmp_dir;

/* child: load NVRTC as GCuda does; write the file it came from to
 * $GCUDA_TEST_OUT, or the error's message prefixed with "error: " */
static void
load_and_report (void)
{
  GError *error = NULL;
  const GCudaNvrtc *nvrtc = _gcuda_nvrtc_get (&error);
  const char *out = g_getenv ("GCUDA_TEST_OUT");
  g_autofree char *text = NULL;

  if (nvrtc != NULL)
    text = g_strdup (nvrtc->path);
  else
    text = g_strdup_printf ("error: %s", error->message);
  g_assert_true (g_file_set_contents (out, text, -1, NULL));
  g_clear_error (&error);
}

static char *
run_child (const char *test_path)
{
  g_autofree char *out = g_build_filename (tmp_dir, "out", NULL);
  char *text = NULL;

  g_unlink (out);
  g_setenv ("GCUDA_TEST_OUT", out, TRUE);
  g_test_trap_subprocess (test_path, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_assert_true (g_file_get_contents (out, &text, NULL, NULL));
  return text;
}

static void
test_child_load (void)
{
  if (g_test_subprocess ())
    load_and_report ();
}

/* NVRTC from a fake wheel, before the system's */
static void
test_wheel (void)
{
  const char *layouts[] = { "nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib" };
  g_autofree char *real = NULL, *real_dir = NULL;
  GDir *dir;
  const char *name;

  /* where this machine's NVRTC is, found the usual way */
  g_unsetenv ("VIRTUAL_ENV");
  real = run_child ("/nvrtc-discovery/child-load");
  if (g_str_has_prefix (real, "error: "))
    {
      if (g_strcmp0 (g_getenv ("GCUDA_TEST_REQUIRE_GPU"), "1") == 0)
        g_test_fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but NVRTC is missing (%s)", real);
      else
        g_test_skip_printf ("no NVRTC on this machine to put in a fake wheel (%s)", real);
      return;
    }
  real_dir = g_path_get_dirname (real);

  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++)
    {
      g_autofree char *venv = g_strdup_printf ("%s/venv%u", tmp_dir, l);
      g_autofree char *lib = g_build_filename (venv, "lib", "python3.11", "site-packages", layouts[l], NULL);
      g_autofree char *fake = g_build_filename (lib, "libnvrtc.so.13", NULL);
      g_autofree char *found = NULL;

      g_assert_cmpint (g_mkdir_with_parents (lib, 0700), ==, 0);
      /* the library and its builtins, which it opens from its own directory */
      g_assert_cmpint (symlink (real, fake), ==, 0);
      dir = g_dir_open (real_dir, 0, NULL);
      g_assert_nonnull (dir);
      while ((name = g_dir_read_name (dir)) != NULL)
        if (g_str_has_prefix (name, "libnvrtc-builtins.so"))
          {
            g_autofree char *from = g_build_filename (real_dir, name, NULL);
            g_autofree char *to = g_build_filename (lib, name, NULL);

            g_assert_cmpint (symlink (from, to), ==, 0);
          }
      g_dir_close (dir);

      g_setenv ("VIRTUAL_ENV", venv, TRUE);
      found = run_child ("/nvrtc-discovery/child-load");
      g_unsetenv ("VIRTUAL_ENV");
      g_test_message ("%s: loaded %s", layouts[l], found);
      g_assert_cmpstr (found, ==, fake);
    }
}

/* NVRTC nowhere: the message names what was tried and how to get it */
static void
test_not_found (void)
{
  g_autofree char *venv = g_build_filename (tmp_dir, "empty-venv", NULL);
  g_autofree char *site = g_build_filename (venv, "lib", "python3.12", "site-packages", NULL);
  g_autofree char *text = NULL;

  g_assert_cmpint (g_mkdir_with_parents (site, 0700), ==, 0);
  g_setenv ("VIRTUAL_ENV", venv, TRUE);
  g_setenv ("GCUDA_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13", TRUE);
  text = run_child ("/nvrtc-discovery/child-load");
  g_unsetenv ("GCUDA_NVRTC_LIBRARY");
  g_unsetenv ("VIRTUAL_ENV");

  g_test_message ("%s", text);
  g_assert_true (g_str_has_prefix (text, "error: "));
  g_assert_nonnull (strstr (text, "/nonexistent/libnvrtc.so.13"));
  g_assert_nonnull (strstr (text, site));
  g_assert_nonnull (strstr (text, "pip install 'nvidia-cuda-nvrtc~=13.0'"));
  g_assert_nonnull (strstr (text, "GCUDA_NVRTC_LIBRARY"));
}

/* GCUDA_NVRTC_LIBRARY naming no regular file: a FIFO blocked dlopen() for
 * ever (run_child() kills a child at 60 s). The error names it and what it
 * is. */
static void
test_not_regular (void)
{
  g_autofree char *dir = g_build_filename (tmp_dir, "not-regular", NULL);
  g_autofree char *fifo = g_build_filename (dir, "libnvrtc.so.13", NULL);
  g_autofree char *link = g_build_filename (dir, "link-to-fifo.so", NULL);
  const struct {
    const char *path;
    const char *kind;
  } cases[] = {
    { fifo, "a FIFO" },
    { link, "a FIFO" },
    { dir, "a directory" },
    { "/dev/null", "a character device" },
  };

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (symlink (fifo, link), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = NULL;
      g_autofree char *what = g_strdup_printf ("%s (", cases[i].path);

      g_setenv ("GCUDA_NVRTC_LIBRARY", cases[i].path, TRUE);
      text = run_child ("/nvrtc-discovery/child-load");
      g_unsetenv ("GCUDA_NVRTC_LIBRARY");
      g_test_message ("%s", text);
      g_assert_true (g_str_has_prefix (text, "error: "));
      g_assert_nonnull (strstr (text, what));
      g_assert_nonnull (strstr (text, "not a regular file"));
      g_assert_nonnull (strstr (text, cases[i].kind));
    }
}

/* A FIFO at a wheel's path, in a virtual environment and in the user's
 * site (~/.local): passed over without blocking, for the NVRTC the machine
 * has, or named in the error without one. */
static void
test_wheel_fifo (void)
{
  g_autofree char *venv = g_build_filename (tmp_dir, "fifo-venv", NULL);
  g_autofree char *home = g_build_filename (tmp_dir, "fifo-home", NULL);
  g_autofree char *local = g_build_filename (home, ".local", NULL);
  const char *prefixes[] = { venv, local };
  g_autofree char *old_home = g_strdup (g_getenv ("HOME"));

  for (guint i = 0; i < G_N_ELEMENTS (prefixes); i++)
    {
      g_autofree char *lib = g_build_filename (prefixes[i], "lib", "python3.11", "site-packages", "nvidia", "cu13",
                                               "lib", NULL);
      g_autofree char *fifo = g_build_filename (lib, "libnvrtc.so.13", NULL);
      g_autofree char *text = NULL;

      g_assert_cmpint (g_mkdir_with_parents (lib, 0700), ==, 0);
      g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
      if (i == 0)
        g_setenv ("VIRTUAL_ENV", venv, TRUE);
      else
        {
          g_unsetenv ("PYTHONUSERBASE");
          g_setenv ("HOME", home, TRUE);
        }
      text = run_child ("/nvrtc-discovery/child-load");
      g_unsetenv ("VIRTUAL_ENV");
      g_test_message ("%s: %s", fifo, text);
      if (g_str_has_prefix (text, "error: "))
        {
          g_assert_nonnull (strstr (text, fifo));
          g_assert_nonnull (strstr (text, "a FIFO"));
        }
      else
        g_assert_cmpstr (text, !=, fifo);
    }
  if (old_home != NULL)
    g_setenv ("HOME", old_home, TRUE);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("gcuda-nvrtc-discovery-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/nvrtc-discovery/child-load", test_child_load);
  g_test_add_func ("/nvrtc-discovery/wheel", test_wheel);
  g_test_add_func ("/nvrtc-discovery/not-found", test_not_found);
  g_test_add_func ("/nvrtc-discovery/not-regular", test_not_regular);
  g_test_add_func ("/nvrtc-discovery/wheel-fifo", test_wheel_fifo);
  ret = g_test_run ();

  if (!g_test_subprocess ())
    {
      const char *rm[] = { "rm", "-rf", tmp_dir, NULL };

      g_spawn_sync (NULL, (char **) rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
    }
  g_free (tmp_dir);
  return ret;
}
