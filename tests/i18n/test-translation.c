/* test-translation.c: GCuda's messages reach a translated catalogue
 *
 * The library binds its text domain to the install prefix's locale
 * directory the first time it translates a message; a catalogue there is
 * then used whatever the prefix. This test checks that binding, then
 * points the domain at a catalogue made by make-catalog.sh (every
 * translation prefixed with "[en@pseudo] ") and checks that a GError GCuda
 * sets is translated.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <errno.h>
#include <libintl.h>
#include <locale.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <gcuda.h>

#define DOMAIN "gcuda"
#define PREFIX "[en@pseudo] "

static char *home;

/* A GCuda message that needs no driver: ~/.cuda_device is a FIFO. */
static char *
default_context_message (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = gcuda_context_get_default (&error);

  g_assert_null (context);
  g_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  return g_strdup (error->message);
}

/* One with a 64-bit number (PRIu64 in the message id). */
static char *
alignment_message (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaHostBuffer) hb = gcuda_host_buffer_new_aligned (64, 3, &error);

  g_assert_null (hb);
  g_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  return g_strdup (error->message);
}

static void
test_translated (void)
{
  const char *catalogue = g_getenv ("GCUDA_TEST_CATALOGUE");
  g_autofree char *english = NULL;
  g_autofree char *translated = NULL;
  g_autofree char *english64 = NULL;
  g_autofree char *translated64 = NULL;
  g_autofree char *localedir = g_build_filename (home, "locale", NULL);
  g_autofree char *lc_messages = g_build_filename (localedir, "en@pseudo", "LC_MESSAGES", NULL);
  g_autofree char *mo = g_build_filename (lc_messages, DOMAIN ".mo", NULL);

  g_assert_nonnull (catalogue);

  /* before any catalogue: English, and the domain bound to the prefix's
   * locale directory by the library itself */
  english = default_context_message ();
  english64 = alignment_message ();
  g_assert_true (g_str_has_prefix (english, "~/.cuda_device is not a regular file"));
  g_assert_cmpstr (bindtextdomain (DOMAIN, NULL), ==, GCUDA_TEST_LOCALEDIR);

  /* the same message through the test catalogue */
  g_assert_cmpint (g_mkdir_with_parents (lc_messages, 0700), ==, 0);
  g_assert_cmpint (symlink (catalogue, mo), ==, 0);
  bindtextdomain (DOMAIN, localedir);
  translated = default_context_message ();
  g_assert_cmpstr (translated, ==, PREFIX "~/.cuda_device is not a regular file: "
                   "it must hold the number of the CUDA device to use");
  g_assert_true (g_str_has_suffix (english, translated + strlen (PREFIX)));
  translated64 = alignment_message ();
  g_assert_true (g_str_has_prefix (english64, "The alignment must be a power of two"));
  g_assert_true (g_str_has_suffix (english64, ", not 3"));
  g_assert_true (g_str_has_prefix (translated64, PREFIX));
  g_assert_cmpstr (translated64 + strlen (PREFIX), ==, english64);
}

int
main (int argc, char **argv)
{
  g_autofree char *fifo = NULL;
  int status;

  /* A UTF-8 locale other than "C", where gettext ignores LANGUAGE (newer
   * glibc ignores it under C.UTF-8 too): en_US.UTF-8 where it is
   * installed, else C.UTF-8 (Debian 12's glibc reads LANGUAGE there). */
  {
    const char *locales[] = { "en_US.UTF-8", "en_US.utf8", "C.UTF-8", "C.utf8" };
    const char *chosen = NULL;

    g_setenv ("LANGUAGE", "en@pseudo", TRUE);
    for (guint i = 0; i < G_N_ELEMENTS (locales) && chosen == NULL; i++)
      chosen = setlocale (LC_ALL, locales[i]);
    g_assert_nonnull (chosen);
  }

  home = g_dir_make_tmp ("gcuda-i18n-XXXXXX", NULL);
  g_assert_nonnull (home);
  g_setenv ("HOME", home, TRUE);
  g_unsetenv ("CUDA_DEVICE");
  fifo = g_build_filename (home, ".cuda_device", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/i18n/translated-gerror", test_translated);
  status = g_test_run ();

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", home);
    (void) !system (cmd);
  }
  g_free (home);
  return status;
}
