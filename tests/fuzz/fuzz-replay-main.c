/* fuzz-replay-main.c: runs a libFuzzer harness's LLVMFuzzerTestOneInput()
 * once on each file named on the command line (directories: each file in
 * them, sorted), without libFuzzer, so that any compiler builds it: the
 * regression inputs replay in every build. Speaks TAP, one case per file;
 * a harness that finds a problem aborts, which fails the test.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

static void
collect (const char *path,
         GPtrArray  *files)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = NULL;
  const char *name;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_ptr_array_add (files, g_strdup (path));
      return;
    }
  dir = g_dir_open (path, 0, NULL);
  names = g_ptr_array_new_with_free_func (g_free);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *child = g_build_filename (path, names->pdata[i], NULL);

      collect (child, files);
    }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

  for (int i = 1; i < argc; i++)
    collect (argv[i], files);
  printf ("1..%u\n", files->len);
  if (files->len == 0)
    printf ("# no inputs in the paths given\n");
  for (guint i = 0; i < files->len; i++)
    {
      g_autofree char *contents = NULL;
      g_autoptr(GError) error = NULL;
      gsize length = 0;

      if (!g_file_get_contents (files->pdata[i], &contents, &length, &error))
        {
          printf ("not ok %u - %s: %s\n", i + 1, (char *) files->pdata[i], error->message);
          continue;
        }
      fflush (stdout);
      /* an exact-size copy: a read past the end is the sanitizers' to see */
      {
        g_autofree guint8 *copy = g_memdup2 (contents, length);

        LLVMFuzzerTestOneInput (copy, length);
      }
      printf ("ok %u - %s\n", i + 1, (char *) files->pdata[i]);
    }
  return 0;
}
