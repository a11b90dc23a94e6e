/* test-module-resource.c: kernel bundles (gcuda-compile, the manifest,
 * gcuda_module_new_from_resource / _new_from_directory)
 *
 * Linked with the library's objects: the manifest parser and the choice of
 * image are private functions, tested here with made-up devices.
 *
 *   /module-resource/nogpu/  no driver: the manifest, the choice, the files,
 *                            gcuda-compile run here, the errors that come
 *                            before the driver
 *   /module-resource/mock/   the mock driver's device (compute capability 9.0)
 *   /module-resource/gpu/    a real device: which image runs (__CUDA_ARCH__)
 *
 * Environment (tests/c/meson.build): GCUDA_TEST_COMPILE (the gcuda-compile
 * built), GCUDA_TEST_BUNDLE_SOURCE (bundles/report-arch.cu). The bundles in
 * GResources are compiled at build time and linked in:
 *   /org/gnome/GCuda/tests/all     gcuda-compile's defaults
 *   /org/gnome/GCuda/tests/multi   sm_75, sm_80, sm_90 and PTX compute_75
 *   /org/gnome/GCuda/tests/ptx     PTX compute_80 only
 *   /org/gnome/GCuda/tests/others  sm_75 and sm_80 only
 *   /org/gnome/GCuda/tests/damaged/{bad-sum,bad-size,bad-manifest,no-image}
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gcuda.h"
#include "gcuda-kernel-bundle-private.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------------ helpers */

static const char *
compile_tool (void)
{
  const char *tool = g_getenv ("GCUDA_TEST_COMPILE");

  g_assert_nonnull (tool);
  return tool;
}

static const char *
bundle_source (void)
{
  const char *source = g_getenv ("GCUDA_TEST_BUNDLE_SOURCE");

  g_assert_nonnull (source);
  return source;
}

/* The environment gcuda-compile runs in. In a sanitizer build, without
 * LeakSanitizer: GCC 12's crashes at the tool's exit now and then, reading
 * the dynamic TLS of the worker threads that ran NVRTC ("Tracer caught
 * signal 11" after "DTLS 8 at 0x0003000009b2-...", in a quarter to half of
 * the runs on CI's machine, with NVRTC's signal() redirected or not). The
 * build's own gcuda-compile steps and the Python tests (tests/run-pytest)
 * run it so too; AddressSanitizer's checks stay on. The test programs' cure
 * for a like crash (gcuda-test-util.c: pool threads end before the leak
 * checker runs) did not cure this one when built into the tool: 3 of 14. */
static char **
tool_environ (void)
{
  char **env = g_get_environ ();
  const char *asan = g_environ_getenv (env, "ASAN_OPTIONS");

  if (asan != NULL)
    {
      g_autofree char *options = g_strconcat (asan, ":detect_leaks=0", NULL);

      env = g_environ_setenv (env, "ASAN_OPTIONS", options, TRUE);
    }
  return env;
}

/* Runs gcuda-compile; its exit status, stderr in @err_out. */
static int
run_compile (const char * const *args,
             char              **err_out)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_auto(GStrv) env = tool_environ ();
  int status = -1;

  g_ptr_array_add (argv, (gpointer) compile_tool ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, &out, err_out, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    return WIFEXITED (status) ? WEXITSTATUS (status) : 255;
  return 0;
}

/* A bundle compiled here for sm_80, sm_90 and PTX compute_80, in a new
 * temporary directory. */
static char *
compile_bundle (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("gcuda-bundle-XXXXXX", &error);
  g_autofree char *err = NULL;
  const char *args[] = { "--arch", "sm_80", "--arch", "sm_90", "--ptx", "compute_80", "--output-dir", dir,
                         bundle_source (), NULL };

  g_assert_no_error (error);
  if (run_compile (args, &err) != 0)
    g_error ("gcuda-compile failed: %s", err);
  return dir;
}

static void
remove_tree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        remove_tree (path);
      else
        g_unlink (path);
    }
  g_rmdir (dir);
}

static GCudaBundle *
open_directory (const char  *dir,
                GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  GCudaBundleLocation location = { NULL, file };

  return _gcuda_bundle_open (&location, error);
}

static GBytes *
read_directory_image (const char             *dir,
                      const GCudaBundleImage *image,
                      GError                **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  GCudaBundleLocation location = { NULL, file };

  return _gcuda_bundle_read_image (&location, image, error);
}

static const char valid_manifest[] =
  "gcuda-kernel-bundle 1\n"
  "source fractal.cu\n"
  "nvrtc 13.0\n"
  "image cubin sm_75 fractal.sm_75.cubin 2984 f4cee0e3f3c8ecb1454ba507e72eefb977670516a263bcf7433fb0620f356f68\n"
  "image cubin sm_90 fractal.sm_90.cubin 3568 f5d0b815eacedd3b6e8fe6cc19a62a740c73c123a21cbcf57b46ed6113418b9c\n"
  "image ptx compute_75 fractal.compute_75.ptx 466 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n"
  "end\n";

/* ------------------------------------------------------------- the manifest */

static void
test_manifest_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaBundle) bundle = _gcuda_bundle_parse (valid_manifest, strlen (valid_manifest), &error);
  g_autofree char *text = NULL;
  const GCudaBundleImage *image;

  g_assert_no_error (error);
  g_assert_cmpstr (bundle->source, ==, "fractal.cu");
  g_assert_cmpuint (bundle->nvrtc_major, ==, 13);
  g_assert_cmpuint (bundle->nvrtc_minor, ==, 0);
  g_assert_cmpuint (bundle->images->len, ==, 3);
  image = g_ptr_array_index (bundle->images, 1);
  g_assert_cmpint (image->kind, ==, GCUDA_BUNDLE_IMAGE_CUBIN);
  g_assert_cmpuint (image->arch, ==, 90);
  g_assert_cmpstr (image->file, ==, "fractal.sm_90.cubin");
  g_assert_cmpuint (image->size, ==, 3568);
  image = g_ptr_array_index (bundle->images, 2);
  g_assert_cmpint (image->kind, ==, GCUDA_BUNDLE_IMAGE_PTX);
  g_assert_cmpuint (image->arch, ==, 75);
  text = _gcuda_bundle_to_string (bundle);
  g_assert_cmpstr (text, ==, valid_manifest);
}

/* Every case: the valid manifest with one line replaced (or the whole
 * text), the line the message must name (0: the message names none). */
static const struct {
  const char *text;
  guint line;
  const char *words;  /* in the message */
} corrupt_manifests[] = {
  { "", 0, "empty" },
  { "gcuda-kernel-bundle 1", 1, "newline" },
  { "gcuda-kernel-bundle 2\n", 1, "version" },
  { "gcuda-kernel-bundle 01\n", 1, "version" },
  { "gcuda-kernel-bundle\n", 1, "gcuda-kernel-bundle 1" },
  { "GCUDA-KERNEL-BUNDLE 1\n", 1, "gcuda-kernel-bundle 1" },
  { "\n", 1, "empty line" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\nend\n", 0, "“image”" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image ptx compute_75 a.ptx 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 0, "“end”" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nsource b.cu\n", 3, "twice" },
  /* one order: what gcuda-compile writes, so that a manifest has one text */
  { "gcuda-kernel-bundle 1\nnvrtc 13.0\nsource a.cu\n", 2, "before" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\nnvrtc 12.0\n", 4, "twice" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13\n", 3, "MAJOR.MINOR" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 0.1\n", 3, "MAJOR.MINOR" },
  { "gcuda-kernel-bundle 1\nsource ../a.cu\n", 2, "source" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\nflavour mint\n", 4, "unknown key" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\nimage cubin sm_90 a 1\n", 4, "five fields" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nimage cubin sm_90 a 1 x\n", 3, "before" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image fatbin sm_90 a.fatbin 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "kind" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin compute_90 a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "sm_XY" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image ptx sm_90 a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "compute_XY" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90a a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "sm_XY" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_9 a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "sm_XY" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 ../a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "file name" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 dir/a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "file name" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 .. 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "file name" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 manifest 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "file name" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 a 0 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "size" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 a -1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "size" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 a 99999999999 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "size" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 a 01 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "size" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 a 1 A0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 4, "SHA-256" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b\n", 4, "SHA-256" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n"
    "image cubin sm_90 b 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 5, "second image" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n"
    "image cubin sm_80 a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\n", 5, "twice" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\nend\nend\n", 6, "after" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n"
    "image cubin sm_90 a 1 a0590ddd3d7f8a347488fe6918a1ee8b1d6041b9a4f82e215443a6be799002b0\nend 1\n", 5, "no field" },
  { "gcuda-kernel-bundle 1\nsource  a.cu\n", 2, "one space" },
  { "gcuda-kernel-bundle 1\nsource a.cu \n", 2, "trailing space" },
  { "gcuda-kernel-bundle 1\r\n", 1, "0x0d" },
  { "gcuda-kernel-bundle 1\nsource\ta.cu\n", 2, "0x09" },
  { "gcuda-kernel-bundle 1\nsource a\xc3\xa9.cu\n", 2, "0xc3" },
  { "gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\nimage a b c d e f g h\n", 4, "too many" },
};

static void
test_manifest_corrupt (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (corrupt_manifests); i++)
    {
      g_autoptr(GError) error = NULL;
      const char *text = corrupt_manifests[i].text;
      GCudaBundle *bundle = _gcuda_bundle_parse (text, strlen (text), &error);

      g_test_message ("case %u: %s", i, text);
      g_assert_null (bundle);
      gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      if (strstr (error->message, corrupt_manifests[i].words) == NULL)
        g_error ("case %u: “%s” not in “%s”", i, corrupt_manifests[i].words, error->message);
      if (corrupt_manifests[i].line != 0)
        {
          g_autofree char *where = g_strdup_printf ("line %u:", corrupt_manifests[i].line);

          if (strstr (error->message, where) == NULL)
            g_error ("case %u: “%s” not in “%s”", i, where, error->message);
        }
    }

  /* a line too long, many images, a manifest too large, a NUL */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GString) text = g_string_new ("gcuda-kernel-bundle 1\nsource ");

    g_string_append_printf (text, "%0600d.cu\n", 1);
    g_assert_null (_gcuda_bundle_parse (text->str, text->len, &error));
    g_assert_nonnull (strstr (error->message, "line 2:"));
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GString) text = g_string_new ("gcuda-kernel-bundle 1\nsource a.cu\nnvrtc 13.0\n");

    for (guint i = 0; i <= GCUDA_BUNDLE_MAX_IMAGES; i++)
      g_string_append_printf (text, "image cubin sm_%u f%u 1 %064d\n", 10 + i, i, 0);
    g_string_append (text, "end\n");
    g_assert_null (_gcuda_bundle_parse (text->str, text->len, &error));
    g_assert_nonnull (strstr (error->message, "more than"));
  }
  {
    g_autoptr(GError) error = NULL;
    gsize size = GCUDA_BUNDLE_MAX_MANIFEST + 1;
    g_autofree char *big = g_malloc (size);

    memset (big, 'a', size);
    g_assert_null (_gcuda_bundle_parse (big, size, &error));
    gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  }
  {
    g_autoptr(GError) error = NULL;
    static const char with_nul[] = "gcuda-kernel-bundle 1\nsou\0rce a.cu\n";

    g_assert_null (_gcuda_bundle_parse (with_nul, sizeof with_nul - 1, &error));
    g_assert_nonnull (strstr (error->message, "line 2:"));
  }
}

/* Every truncation and every single-byte change of a valid manifest: never
 * a crash; a text that parses is the canonical text of what it parses to. */
static void
test_manifest_mutations (void)
{
  gsize n = strlen (valid_manifest);
  static const guint8 replacements[] = { 0, '\n', ' ', '0', 'a', '/', '.', 0x7f, 0xff, 'z' };
  guint accepted = 0, refused = 0;

  for (gsize cut = 0; cut < n; cut++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_null (_gcuda_bundle_parse (valid_manifest, cut, &error));
      g_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    }
  for (gsize i = 0; i < n; i++)
    for (guint r = 0; r < G_N_ELEMENTS (replacements); r++)
      {
        g_autofree char *copy = g_memdup2 (valid_manifest, n);
        g_autoptr(GError) error = NULL;
        g_autoptr(GCudaBundle) bundle = NULL;

        if ((guint8) copy[i] == replacements[r])
          continue;
        copy[i] = (char) replacements[r];
        bundle = _gcuda_bundle_parse (copy, n, &error);
        if (bundle != NULL)
          {
            g_autofree char *text = _gcuda_bundle_to_string (bundle);

            g_assert_no_error (error);
            g_assert_cmpmem (text, strlen (text), copy, n);
            accepted++;
          }
        else
          {
            g_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
            g_assert_true (g_utf8_validate (error->message, -1, NULL));
            refused++;
          }
      }
  g_test_message ("%u mutations accepted (hex digits, sizes), %u refused", accepted, refused);
  g_assert_cmpuint (refused, >, accepted);
}

/* ------------------------------------------------------------ the choice */

static GCudaBundle *
fake_bundle (const char * const *archs)
{
  GCudaBundle *bundle = _gcuda_bundle_new ();
  g_autoptr(GBytes) contents = g_bytes_new_static ("x", 1);

  bundle->source = g_strdup ("k.cu");
  bundle->nvrtc_major = 13;
  for (guint i = 0; archs[i] != NULL; i++)
    {
      GCudaBundleImageKind kind = g_str_has_prefix (archs[i], "sm_") ? GCUDA_BUNDLE_IMAGE_CUBIN
                                                                     : GCUDA_BUNDLE_IMAGE_PTX;
      guint arch = 0;

      g_assert_true (_gcuda_bundle_parse_arch (archs[i], kind, &arch));
      _gcuda_bundle_add_image (bundle, kind, arch, archs[i], contents);
    }
  return bundle;
}

/* The name of the image chosen for @device, or the error's message. */
static char *
choose (const char * const *archs,
        guint               device)
{
  g_autoptr(GCudaBundle) bundle = fake_bundle (archs);
  g_autoptr(GError) error = NULL;
  const GCudaBundleImage *image = _gcuda_bundle_select (bundle, device, "resource /test", &error);

  if (image == NULL)
    {
      gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED);
      return g_strdup_printf ("error: %s", error->message);
    }
  g_assert_no_error (error);
  return g_strdup (image->file);
}

#define assert_choice(archs, device, expected) \
  G_STMT_START { \
    g_autofree char *got_ = choose (archs, device); \
    g_assert_cmpstr (got_, ==, expected); \
  } G_STMT_END

static void
test_select (void)
{
  const char *multi[] = { "sm_75", "sm_80", "sm_90", "compute_75", NULL };
  const char *reversed[] = { "compute_75", "sm_90", "sm_80", "sm_75", NULL };
  const char *ptx[] = { "compute_90", "compute_75", "compute_80", NULL };
  const char *others[] = { "sm_75", "sm_80", NULL };
  const char *same_major[] = { "sm_80", "sm_86", "compute_89", NULL };
  g_autofree char *message = NULL;

  /* the exact cubin wins over everything */
  assert_choice (multi, 90, "sm_90");
  assert_choice (reversed, 90, "sm_90");
  assert_choice (multi, 80, "sm_80");
  assert_choice (multi, 75, "sm_75");
  /* a cubin of the same major version and a lower minor one */
  assert_choice (multi, 86, "sm_80");
  assert_choice (same_major, 89, "sm_86");
  assert_choice (same_major, 87, "sm_86");
  assert_choice (same_major, 86, "sm_86");
  /* no cubin of the device's major version: the PTX */
  assert_choice (multi, 100, "compute_75");
  assert_choice (multi, 120, "compute_75");
  assert_choice (same_major, 90, "compute_89");
  /* the highest PTX not above the device */
  assert_choice (ptx, 90, "compute_90");
  assert_choice (ptx, 89, "compute_80");
  assert_choice (ptx, 80, "compute_80");
  assert_choice (ptx, 120, "compute_90");
  assert_choice (ptx, 75, "compute_75");
  /* a cubin never runs on an earlier minor or another major version */
  message = choose (ptx, 70);
  g_assert_true (g_str_has_prefix (message, "error: "));
  g_clear_pointer (&message, g_free);
  message = choose (same_major, 75);
  g_assert_true (g_str_has_prefix (message, "error: "));
  g_clear_pointer (&message, g_free);

  /* the message names the device's architecture, the bundle and what it holds */
  message = choose (others, 90);
  g_test_message ("%s", message);
  g_assert_nonnull (strstr (message, "sm_90"));
  g_assert_nonnull (strstr (message, "9.0"));
  g_assert_nonnull (strstr (message, "resource /test"));
  g_assert_nonnull (strstr (message, "cubins for sm_75, sm_80 and no PTX"));
  g_clear_pointer (&message, g_free);
  message = choose (ptx, 61);
  g_assert_nonnull (strstr (message, "sm_61"));
  g_assert_nonnull (strstr (message, "no cubin and PTX for compute_75, compute_80, compute_90"));
}

/* ---------------------------------------------------------- gcuda-compile */

static void
test_compile_tool (void)
{
  g_autofree char *dir = compile_bundle ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaBundle) bundle = open_directory (dir, &error);
  g_autofree char *nvrtc_out = NULL;
  const char *list_args[] = { "--list-archs", NULL };
  const GCudaBundleImage *image;
  const char *expected[] = { "report-arch.sm_80.cubin", "report-arch.sm_90.cubin", "report-arch.compute_80.ptx" };
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL;
  int status;

  g_assert_no_error (error);
  g_assert_cmpstr (bundle->source, ==, "report-arch.cu");
  g_assert_cmpuint (bundle->images->len, ==, 3);

  /* the NVRTC version is the one gcuda-compile --list-archs reports */
  g_ptr_array_add (argv, (gpointer) compile_tool ());
  g_ptr_array_add (argv, (gpointer) list_args[0]);
  g_ptr_array_add (argv, NULL);
  {
    g_auto(GStrv) env = tool_environ ();

    g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error);
  }
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  nvrtc_out = g_strdup_printf ("nvrtc %u.%u\n", bundle->nvrtc_major, bundle->nvrtc_minor);
  g_assert_true (g_str_has_prefix (out, nvrtc_out));
  g_assert_nonnull (strstr (out, "\nsm_90\n"));

  for (guint i = 0; i < bundle->images->len; i++)
    {
      g_autoptr(GBytes) contents = NULL;
      g_autofree char *path = NULL;
      g_autofree char *data = NULL;
      g_autofree char *sum = NULL;
      gsize size = 0;

      image = g_ptr_array_index (bundle->images, i);
      g_assert_cmpstr (image->file, ==, expected[i]);
      /* the manifest's size and checksum are the file's */
      path = g_build_filename (dir, image->file, NULL);
      g_assert_true (g_file_get_contents (path, &data, &size, NULL));
      g_assert_cmpuint (size, ==, image->size);
      sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guint8 *) data, size);
      g_assert_cmpstr (sum, ==, image->sha256);
      contents = read_directory_image (dir, image, &error);
      g_assert_no_error (error);
      if (image->kind == GCUDA_BUNDLE_IMAGE_PTX)
        {
          /* text on disk, NUL-terminated for the driver */
          g_assert_cmpuint (g_bytes_get_size (contents), ==, size + 1);
          g_assert_cmpint (((const char *) g_bytes_get_data (contents, NULL))[size], ==, '\0');
          g_assert_nonnull (strstr (data, ".target sm_80"));
          g_assert_nonnull (strstr (data, ".entry report_arch"));
          g_assert_nonnull (strstr (data, ".entry axpb"));
          g_assert_null (memchr (data, '\0', size));
        }
      else
        {
          g_assert_cmpmem (g_bytes_get_data (contents, NULL), g_bytes_get_size (contents), data, size);
          g_assert_cmpmem (data, 4, "\177ELF", 4);
          g_assert_cmpuint ((guintptr) g_bytes_get_data (contents, NULL) % 8, ==, 0);
        }
    }
  remove_tree (dir);
}

static void
test_compile_tool_errors (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gcuda-bundle-XXXXXX", NULL);
  g_autofree char *bad_source = g_build_filename (dir, "bad.cu", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  struct {
    const char *args[12];
    int status;
    const char *words;
  } cases[] = {
    { { "--arch", "sm_9x", "--output-dir", out_dir, bundle_source (), NULL }, 1, "sm_9x" },
    { { "--arch", "sm_90a", "--output-dir", out_dir, bundle_source (), NULL }, 1, "sm_90a" },
    { { "--ptx", "sm_90", "--output-dir", out_dir, bundle_source (), NULL }, 1, "--ptx" },
    { { "--arch", "sm_90", bundle_source (), NULL }, 1, "--output-dir" },
    { { "--arch", "sm_90", "--output-dir", out_dir, NULL }, 1, "no source" },
    { { "--arch", "sm_90", "--output-dir", out_dir, bundle_source (), bundle_source (), NULL }, 1, "one source" },
    { { "--arch", "sm_90", "--output-dir", out_dir, "/nonexistent/k.cu", NULL }, 1, "/nonexistent/k.cu" },
    { { "--arch", "sm_90", "--output-dir", out_dir, "--gresource-xml", "x.xml", bundle_source (), NULL }, 1,
      "--resource-prefix" },
    { { "--arch", "sm_90", "--output-dir", out_dir, "--gresource-xml", "x.xml", "--resource-prefix", "rel/path",
        bundle_source (), NULL }, 1, "absolute" },
    { { "--arch", "sm_90", "--output-dir", out_dir, bad_source, NULL }, 1, "error" },
    { { "--no-such-option", NULL }, 1, "--help" },
    { { "--help", NULL }, 0, NULL },
  };

  g_assert_true (g_file_set_contents (bad_source, "__global__ void f( {\n", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *err = NULL;
      int status = run_compile (cases[i].args, &err);

      g_test_message ("case %u: %d, %s", i, status, err);
      g_assert_cmpint (status, ==, cases[i].status);
      if (cases[i].words != NULL)
        {
          g_assert_true (g_str_has_prefix (err, "gcuda-compile: "));
          g_assert_nonnull (strstr (err, cases[i].words));
        }
    }
  /* nothing was written for a failed compile */
  g_assert_false (g_file_test (out_dir, G_FILE_TEST_EXISTS));
  remove_tree (dir);
}

/* What sits at an output path (the manifest, an image, the .gresource.xml)
 * and is not a regular file is refused before anything is compiled, and
 * left as it was: a FIFO, a directory, a symbolic link (to a file outside
 * the output directory, or to a device) is never replaced or written
 * through. A regular file there is replaced. */
static void
test_compile_tool_outputs (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gcuda-bundle-XXXXXX", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *outside = g_build_filename (dir, "outside.txt", NULL);
  g_autofree char *xml = g_build_filename (dir, "k.gresource.xml", NULL);
  const char *names[] = { "manifest", "report-arch.sm_90.cubin", NULL /* the xml */ };
  enum { FIFO, DIRECTORY, LINK_OUT, LINK_DEVICE, N_KINDS };
  const char *kinds[] = { "a FIFO", "a directory", "a symbolic link", "a symbolic link" };

  g_assert_cmpint (g_mkdir (out_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (outside, "keep me\n", -1, NULL));
  for (guint n = 0; n < G_N_ELEMENTS (names); n++)
    for (guint kind = 0; kind < N_KINDS; kind++)
      {
        g_autofree char *path = names[n] != NULL ? g_build_filename (out_dir, names[n], NULL) : g_strdup (xml);
        const char *args[] = { "--arch", "sm_90", "--output-dir", out_dir, "--resource-prefix", "/org/example/k",
                               "--gresource-xml", xml, bundle_source (), NULL };
        g_autofree char *err = NULL;
        g_autofree char *kept = NULL;
        struct stat st;
        int status;

        switch (kind)
          {
          case FIFO:
            g_assert_cmpint (mkfifo (path, 0600), ==, 0);
            break;
          case DIRECTORY:
            g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
            break;
          case LINK_OUT:
            g_assert_cmpint (symlink (outside, path), ==, 0);
            break;
          case LINK_DEVICE:
            g_assert_cmpint (symlink ("/dev/null", path), ==, 0);
            break;
          default:
            g_assert_not_reached ();
          }
        status = run_compile (args, &err);
        g_test_message ("%s as %s: %d, %s", names[n] != NULL ? names[n] : "the xml", kinds[kind], status, err);
        g_assert_cmpint (status, ==, 1);
        g_assert_true (g_str_has_prefix (err, "gcuda-compile: "));
        g_assert_nonnull (strstr (err, path));
        g_assert_nonnull (strstr (err, kinds[kind]));
        g_assert_nonnull (strstr (err, "not a regular file"));
        /* left as it was, and nothing written through it */
        g_assert_cmpint (lstat (path, &st), ==, 0);
        g_assert_true (kind == FIFO ? S_ISFIFO (st.st_mode) : kind == DIRECTORY ? S_ISDIR (st.st_mode)
                                                                                 : S_ISLNK (st.st_mode));
        g_assert_true (g_file_get_contents (outside, &kept, NULL, NULL));
        g_assert_cmpstr (kept, ==, "keep me\n");
        if (kind == DIRECTORY)
          g_rmdir (path);
        else
          g_unlink (path);
      }

  /* regular files there are replaced */
  {
    const char *args[] = { "--arch", "sm_90", "--output-dir", out_dir, "--resource-prefix", "/org/example/k",
                           "--gresource-xml", xml, bundle_source (), NULL };
    g_autofree char *manifest = g_build_filename (out_dir, "manifest", NULL);
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;

    g_assert_true (g_file_set_contents (manifest, "old\n", -1, NULL));
    g_assert_true (g_file_set_contents (xml, "old\n", -1, NULL));
    g_assert_cmpint (run_compile (args, &err), ==, 0);
    g_assert_true (g_file_get_contents (manifest, &text, NULL, NULL));
    g_assert_true (g_str_has_prefix (text, "gcuda-kernel-bundle 1\n"));
    g_clear_pointer (&text, g_free);
    g_assert_true (g_file_get_contents (xml, &text, NULL, NULL));
    g_assert_nonnull (strstr (text, "<gresource prefix=\"/org/example/k\">"));
  }
  remove_tree (dir);
}

/* Every --resource-prefix gcuda-compile accepts names, for the loader, the
 * resources glib-compile-resources made from its .gresource.xml: "/" (the
 * loader looked up "//manifest"), doubled and trailing slashes. */
static void
test_compile_tool_prefixes (void)
{
  const struct {
    const char *prefix;   /* given to gcuda-compile */
    const char *lookup;   /* given to the loader */
  } cases[] = {
    { "/", "/" },
    { "/", "//" },
    { "/org/example/k/", "/org/example/k" },
    { "//org/example/k", "/org/example/k/" },
    { "/org//example/k", "/org//example/k" },
  };
  g_autofree char *gcr = g_find_program_in_path ("glib-compile-resources");

  /* the build machine has it (gnome.compile_resources); a GPU host may not */
  if (gcr == NULL)
    {
      g_test_skip ("glib-compile-resources is not on PATH (Debian: libglib2.0-bin)");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = g_dir_make_tmp ("gcuda-bundle-XXXXXX", NULL);
      g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
      g_autofree char *xml = g_build_filename (dir, "k.gresource.xml", NULL);
      g_autofree char *target = g_build_filename (dir, "k.gresource", NULL);
      g_autofree char *source_dir = g_strconcat ("--sourcedir=", out_dir, NULL);
      g_autofree char *target_arg = g_strconcat ("--target=", target, NULL);
      const char *args[] = { "--arch", "sm_90", "--output-dir", out_dir, "--resource-prefix", cases[i].prefix,
                             "--gresource-xml", xml, bundle_source (), NULL };
      const char *gcr_argv[] = { gcr, source_dir, target_arg, xml, NULL };
      g_autofree char *err = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GResource) resource = NULL;
      g_autoptr(GCudaBundle) bundle = NULL;
      g_autoptr(GBytes) image = NULL;
      g_autoptr(GCudaModule) module = NULL;
      GCudaBundleLocation location = { (char *) cases[i].lookup, NULL };
      int status = -1;

      g_assert_cmpint (run_compile (args, &err), ==, 0);
      g_clear_pointer (&err, g_free);
      g_spawn_sync (NULL, (char **) gcr_argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err, &status, &error);
      g_assert_no_error (error);
      if (!g_spawn_check_wait_status (status, NULL))
        g_error ("glib-compile-resources failed: %s", err);
      resource = g_resource_load (target, &error);
      g_assert_no_error (error);
      g_resources_register (resource);

      /* the bundle and its image, as the loader reads them */
      bundle = _gcuda_bundle_open (&location, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (bundle->images->len, ==, 1);
      image = _gcuda_bundle_read_image (&location, g_ptr_array_index (bundle->images, 0), &error);
      g_assert_no_error (error);
      g_assert_nonnull (image);
      /* the public function: the manifest is read before the driver */
      module = gcuda_module_new_from_resource (NULL, cases[i].lookup, NULL, &error);
      g_test_message ("--resource-prefix %s, loaded as %s: %s", cases[i].prefix, cases[i].lookup,
                      error != NULL ? error->message : "a module");
      if (error != NULL)
        g_assert_false (error->domain == G_RESOURCE_ERROR || error->domain == G_IO_ERROR ||
                        g_error_matches (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT));
      g_clear_error (&error);

      g_resources_unregister (resource);
      remove_tree (dir);
    }
}

/* ------------------------------------------------- damaged bundles on disk */

static void
replace_file (const char *dir,
              const char *name,
              const char *data,
              gssize      size)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_unlink (path);
  if (data != NULL)
    g_assert_true (g_file_set_contents (path, data, size, NULL));
}

static void
test_directory_damage (void)
{
  g_autofree char *dir = compile_bundle ();
  g_autofree char *manifest_path = g_build_filename (dir, "manifest", NULL);
  g_autofree char *manifest = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaBundle) bundle = open_directory (dir, &error);
  const GCudaBundleImage *cubin = g_ptr_array_index (bundle->images, 1);
  const GCudaBundleImage *ptx = g_ptr_array_index (bundle->images, 2);
  g_autofree char *cubin_path = g_build_filename (dir, cubin->file, NULL);
  g_autofree char *ptx_path = g_build_filename (dir, ptx->file, NULL);
  g_autofree char *original = NULL;
  g_autofree char *changed = NULL;
  g_autoptr(GBytes) bytes = NULL;
  gsize size = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (cubin->arch, ==, 90);
  g_assert_true (g_file_get_contents (manifest_path, &manifest, NULL, NULL));
  g_assert_true (g_file_get_contents (cubin_path, &original, &size, NULL));

  /* one byte changed: the checksum */
  changed = g_memdup2 (original, size);
  changed[size / 2] ^= 0x10;
  replace_file (dir, cubin->file, changed, (gssize) size);
  g_assert_null (read_directory_image (dir, cubin, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "SHA-256"));
  g_assert_nonnull (strstr (error->message, cubin->file));
  g_clear_error (&error);

  /* cut short, and longer */
  replace_file (dir, cubin->file, original, (gssize) size - 1);
  g_assert_null (read_directory_image (dir, cubin, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "bytes"));
  g_clear_error (&error);
  replace_file (dir, cubin->file, NULL, 0);
  {
    g_autofree char *longer = g_malloc0 (size + 1);

    memcpy (longer, original, size);
    replace_file (dir, cubin->file, longer, (gssize) size + 1);
  }
  g_assert_null (read_directory_image (dir, cubin, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* missing */
  replace_file (dir, cubin->file, NULL, 0);
  g_assert_null (read_directory_image (dir, cubin, &error));
  gcuda_assert_error_clear (&error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);

  /* special files are not opened: a FIFO would block */
  g_assert_cmpint (mkfifo (cubin_path, 0600), ==, 0);
  g_assert_null (read_directory_image (dir, cubin, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "regular file"));
  g_assert_nonnull (strstr (error->message, "a FIFO"));
  g_clear_error (&error);
  g_unlink (cubin_path);
  g_assert_cmpint (g_mkdir (cubin_path, 0700), ==, 0);
  g_assert_null (read_directory_image (dir, cubin, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_rmdir (cubin_path);

  /* a symbolic link to the real image is followed as GIO follows it */
  {
    g_autofree char *elsewhere = g_build_filename (dir, "elsewhere", NULL);

    g_assert_true (g_file_set_contents (elsewhere, original, (gssize) size, NULL));
    g_assert_cmpint (symlink ("elsewhere", cubin_path), ==, 0);
    bytes = read_directory_image (dir, cubin, &error);
    g_assert_no_error (error);
    g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), original, size);
    g_clear_pointer (&bytes, g_bytes_unref);
  }

  /* the PTX: a changed byte too */
  {
    g_autofree char *text = NULL;
    gsize n = 0;

    g_assert_true (g_file_get_contents (ptx_path, &text, &n, NULL));
    text[n - 2] = text[n - 2] == ' ' ? '\t' : ' ';
    replace_file (dir, ptx->file, text, (gssize) n);
    g_assert_null (read_directory_image (dir, ptx, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  }

  /* the manifest: missing, damaged (its line), a directory, too large */
  g_unlink (manifest_path);
  g_assert_null (open_directory (dir, &error));
  gcuda_assert_error_clear (&error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  {
    g_autofree char *damaged = g_strdup (manifest);
    char *line3 = strstr (damaged, "nvrtc ");

    line3[0] = 'N';
    replace_file (dir, "manifest", damaged, -1);
    g_assert_null (open_directory (dir, &error));
    gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "line 3:"));
    g_assert_nonnull (strstr (error->message, dir));
    g_clear_error (&error);
  }
  g_unlink (manifest_path);
  g_assert_cmpint (g_mkdir (manifest_path, 0700), ==, 0);
  g_assert_null (open_directory (dir, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_rmdir (manifest_path);
  {
    g_autofree char *big = g_strnfill (GCUDA_BUNDLE_MAX_MANIFEST + 10, 'x');

    replace_file (dir, "manifest", big, -1);
    g_assert_null (open_directory (dir, &error));
    gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "larger"));
    g_clear_error (&error);
  }
  remove_tree (dir);
}

/* ------------------------------------------------ bundles in the GResources */

static GCudaBundle *
open_resource (const char  *path,
               GError     **error)
{
  GCudaBundleLocation location = { path, NULL };

  return _gcuda_bundle_open (&location, error);
}

static void
test_resources (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaBundle) all = open_resource ("/org/gnome/GCuda/tests/all", &error);
  g_autoptr(GCudaBundle) multi = NULL;
  g_autoptr(GCudaBundle) damaged = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  guint n_cubins = 0, lowest = G_MAXUINT;
  const GCudaBundleImage *ptx = NULL;
  int status;

  /* the defaults: every sm_XY gcuda-compile --list-archs names, and PTX of the lowest */
  g_assert_no_error (error);
  g_ptr_array_add (argv, (gpointer) compile_tool ());
  g_ptr_array_add (argv, "--list-archs");
  g_ptr_array_add (argv, NULL);
  {
    g_auto(GStrv) env = tool_environ ();

    g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error);
  }
  g_assert_no_error (error);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      gboolean found = FALSE;
      guint arch;

      g_assert_true (_gcuda_bundle_parse_arch (lines[i], GCUDA_BUNDLE_IMAGE_CUBIN, &arch));
      lowest = MIN (lowest, arch);
      n_cubins++;
      for (guint j = 0; j < all->images->len; j++)
        {
          const GCudaBundleImage *image = g_ptr_array_index (all->images, j);

          found |= image->kind == GCUDA_BUNDLE_IMAGE_CUBIN && image->arch == arch;
        }
      g_assert_true (found);
    }
  g_assert_cmpuint (n_cubins, >=, 2);
  g_assert_cmpuint (all->images->len, ==, n_cubins + 1);
  for (guint j = 0; j < all->images->len; j++)
    {
      const GCudaBundleImage *image = g_ptr_array_index (all->images, j);
      GCudaBundleLocation location = { "/org/gnome/GCuda/tests/all", NULL };
      g_autoptr(GBytes) bytes = _gcuda_bundle_read_image (&location, image, &error);

      g_assert_no_error (error);
      g_assert_nonnull (bytes);
      if (image->kind == GCUDA_BUNDLE_IMAGE_PTX)
        ptx = image;
    }
  g_assert_nonnull (ptx);
  g_assert_cmpuint (ptx->arch, ==, lowest);

  /* a trailing slash is the same path; the choice for sm_90 and sm_86 */
  multi = open_resource ("/org/gnome/GCuda/tests/multi", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (multi->images->len, ==, 4);
  g_assert_cmpuint (((GCudaBundleImage *) _gcuda_bundle_select (multi, 90, "x", &error))->arch, ==, 90);
  g_assert_cmpuint (((GCudaBundleImage *) _gcuda_bundle_select (multi, 86, "x", &error))->arch, ==, 80);
  g_assert_cmpint (((GCudaBundleImage *) _gcuda_bundle_select (multi, 100, "x", &error))->kind, ==,
                   GCUDA_BUNDLE_IMAGE_PTX);
  g_assert_no_error (error);

  /* damaged bundles */
  damaged = open_resource ("/org/gnome/GCuda/tests/damaged/bad-sum", &error);
  g_assert_no_error (error);
  {
    GCudaBundleLocation location = { "/org/gnome/GCuda/tests/damaged/bad-sum", NULL };

    g_assert_null (_gcuda_bundle_read_image (&location, g_ptr_array_index (damaged->images, 0), &error));
    gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "SHA-256"));
    g_clear_error (&error);
  }
  g_clear_pointer (&damaged, _gcuda_bundle_free);
  damaged = open_resource ("/org/gnome/GCuda/tests/damaged/bad-size", &error);
  g_assert_no_error (error);
  {
    GCudaBundleLocation location = { "/org/gnome/GCuda/tests/damaged/bad-size", NULL };

    g_assert_null (_gcuda_bundle_read_image (&location, g_ptr_array_index (damaged->images, 0), &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  }
  g_clear_pointer (&damaged, _gcuda_bundle_free);
  damaged = open_resource ("/org/gnome/GCuda/tests/damaged/no-image", &error);
  g_assert_no_error (error);
  {
    GCudaBundleLocation location = { "/org/gnome/GCuda/tests/damaged/no-image", NULL };

    g_assert_null (_gcuda_bundle_read_image (&location, g_ptr_array_index (damaged->images, 0), &error));
    gcuda_assert_error_clear (&error, G_RESOURCE_ERROR, G_RESOURCE_ERROR_NOT_FOUND);
  }
  g_assert_null (open_resource ("/org/gnome/GCuda/tests/damaged/bad-manifest", &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "line 4:"));
  g_assert_nonnull (strstr (error->message, "/org/gnome/GCuda/tests/damaged/bad-manifest"));
  g_clear_error (&error);
  g_assert_null (open_resource ("/org/gnome/GCuda/tests/nothing-here", &error));
  gcuda_assert_error_clear (&error, G_RESOURCE_ERROR, G_RESOURCE_ERROR_NOT_FOUND);
}

/* ----------------------------------------- the public API before the driver */

typedef struct {
  GMainLoop *loop;
  GCudaModule *module;
  GError *error;
  gboolean from_directory;
} AsyncResult;

static void
loaded (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  AsyncResult *r = user_data;

  g_assert_null (source);
  r->module = r->from_directory ? gcuda_module_new_from_directory_finish (result, &r->error)
                                : gcuda_module_new_from_resource_finish (result, &r->error);
  g_main_loop_quit (r->loop);
}

static GCudaModule *
load_resource_async (const char    *path,
                     GCancellable  *cancellable,
                     GError       **error)
{
  AsyncResult r = { g_main_loop_new (NULL, FALSE), NULL, NULL, FALSE };

  gcuda_module_new_from_resource_async (NULL, path, NULL, cancellable, loaded, &r);
  g_main_loop_run (r.loop);
  g_main_loop_unref (r.loop);
  if (r.error != NULL)
    g_propagate_error (error, r.error);
  return r.module;
}

static GCudaModule *
load_directory_async (const char    *dir,
                      GCancellable  *cancellable,
                      GError       **error)
{
  AsyncResult r = { g_main_loop_new (NULL, FALSE), NULL, NULL, TRUE };
  g_autoptr(GFile) file = g_file_new_for_path (dir);

  gcuda_module_new_from_directory_async (NULL, file, NULL, cancellable, loaded, &r);
  g_main_loop_run (r.loop);
  g_main_loop_unref (r.loop);
  if (r.error != NULL)
    g_propagate_error (error, r.error);
  return r.module;
}

/* ------------------------------------------- a file swapped for a FIFO */

/* Puts, again and again until told to stop, a FIFO and then a regular file
 * (@contents) at @dir/@name, each renamed into place. */
typedef struct {
  char *dir;
  const char *name;
  GBytes *contents;
  int stop;      /* atomic */
  guint swaps;
} Swapper;

static void
write_whole (const char *path,
             GBytes     *contents)
{
  gsize size = 0;
  const char *data = g_bytes_get_data (contents, &size);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, data, size), ==, (gssize) size);
  close (fd);
}

static gpointer
swap_thread (gpointer data)
{
  Swapper *s = data;
  g_autofree char *target = g_build_filename (s->dir, s->name, NULL);
  g_autofree char *fifo = g_strdup_printf ("%s/.%s.fifo", s->dir, s->name);
  g_autofree char *regular = g_strdup_printf ("%s/.%s.regular", s->dir, s->name);

  while (!g_atomic_int_get (&s->stop))
    {
      g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
      g_assert_cmpint (rename (fifo, target), ==, 0);
      write_whole (regular, s->contents);
      g_assert_cmpint (rename (regular, target), ==, 0);
      s->swaps++;
    }
  return NULL;
}

/* In a child (a loader stuck in open() on a FIFO is killed at the
 * timeout): loads while the manifest, then an image, are swapped between a
 * regular file and a FIFO. Each load must return the bundle or refuse the
 * FIFO as no regular file, and the FIFO must have been met. */
static void
test_directory_fifo_race (void)
{
  static const char image_data[] = "not a real cubin, only its checksum is checked";
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *sum = NULL;
  g_autofree char *manifest = NULL;
  g_autofree char *image_path = NULL;
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GBytes) manifest_bytes = NULL;
  g_autoptr(GCudaBundle) bundle = NULL;
  g_autoptr(GFile) file = NULL;
  const char *names[] = { "manifest", "race.sm_90.cubin" };

  if (!g_test_subprocess ())
    {
      /* old loaders blocked for ever: 30 s is a hang */
      g_test_trap_subprocess (NULL, 30 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }

  dir = g_dir_make_tmp ("gcuda-bundle-race-XXXXXX", &error);
  g_assert_no_error (error);
  file = g_file_new_for_path (dir);
  image = g_bytes_new_static (image_data, sizeof image_data - 1);
  sum = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, image);
  manifest = g_strdup_printf ("gcuda-kernel-bundle 1\nsource race.cu\nnvrtc 13.0\n"
                              "image cubin sm_90 race.sm_90.cubin %" G_GSIZE_FORMAT " %s\nend\n",
                              g_bytes_get_size (image), sum);
  manifest_bytes = g_bytes_new (manifest, strlen (manifest));
  image_path = g_build_filename (dir, names[1], NULL);
  write_whole (image_path, image);
  {
    g_autofree char *manifest_path = g_build_filename (dir, names[0], NULL);

    write_whole (manifest_path, manifest_bytes);
  }
  bundle = open_directory (dir, &error);
  g_assert_no_error (error);

  for (guint which = 0; which < G_N_ELEMENTS (names); which++)
    {
      Swapper swapper = { dir, names[which], which == 0 ? manifest_bytes : image, 0, 0 };
      GThread *thread = g_thread_new ("swapper", swap_thread, &swapper);
      guint loaded = 0, refused = 0;
      gint64 end = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;

      /* at least 2 s and 500 loads, until a FIFO was met (at most 22 s) */
      for (guint i = 0; (g_get_monotonic_time () < end || i < 500 || refused == 0) && i < 1000000; i++)
        {
          g_autoptr(GCudaBundle) opened = NULL;
          g_autoptr(GBytes) read = NULL;
          g_autoptr(GCudaModule) module = NULL;
          gboolean ok;

          if (which == 0 && i % 4 == 3)
            {
              /* the public function: the manifest comes before the driver */
              module = gcuda_module_new_from_directory (NULL, file, NULL, &error);
              g_assert_null (module);
              if (g_error_matches (error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND))
                {
                  g_clear_error (&error);
                  loaded++;
                  continue;
                }
              ok = FALSE;
            }
          else if (which == 0)
            ok = (opened = open_directory (dir, &error)) != NULL;
          else
            ok = (read = read_directory_image (dir, g_ptr_array_index (bundle->images, 0), &error)) != NULL;
          if (ok)
            {
              loaded++;
              continue;
            }
          gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
          g_assert_nonnull (strstr (error->message, "not a regular file"));
          g_clear_error (&error);
          refused++;
          if (g_get_monotonic_time () > end + 20 * G_USEC_PER_SEC)
            break;
        }
      g_atomic_int_set (&swapper.stop, 1);
      g_thread_join (thread);
      /* stderr: the parent shows it (a child's TAP comments are lost) */
      g_printerr ("# %s swapped %u times: %u loads read it, %u refused the FIFO\n", names[which], swapper.swaps,
                  loaded, refused);
      g_assert_cmpuint (loaded, >, 0);
      g_assert_cmpuint (refused, >, 0);
    }
  remove_tree (dir);
}

static void
test_no_driver (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) nowhere = g_file_new_for_path ("/nonexistent/gcuda-bundle");

  /* what is wrong with the bundle shows before the driver is needed */
  g_assert_null (gcuda_module_new_from_resource (NULL, "/org/gnome/GCuda/tests/damaged/bad-manifest", NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_module_new_from_resource (NULL, "/org/gnome/GCuda/tests/nothing-here", NULL, &error));
  gcuda_assert_error_clear (&error, G_RESOURCE_ERROR, G_RESOURCE_ERROR_NOT_FOUND);
  g_assert_null (gcuda_module_new_from_resource (NULL, "org/gnome/GCuda/tests/all", NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_module_new_from_resource (NULL, NULL, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_module_new_from_directory (NULL, NULL, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_module_new_from_directory (NULL, nowhere, NULL, &error));
  gcuda_assert_error_clear (&error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);

  /* a good bundle needs the driver */
  g_assert_null (gcuda_module_new_from_resource (NULL, "/org/gnome/GCuda/tests/all/", NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND);

  /* the same through the async forms */
  g_assert_null (load_resource_async ("/org/gnome/GCuda/tests/damaged/bad-manifest", NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (load_resource_async ("relative", NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (load_resource_async ("/org/gnome/GCuda/tests/all", NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND);
  g_assert_null (load_directory_async ("/nonexistent/gcuda-bundle", NULL, &error));
  gcuda_assert_error_clear (&error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  {
    g_autoptr(GTask) task = g_task_new (NULL, NULL, NULL, NULL);

    g_assert_null (gcuda_module_new_from_resource_finish (G_ASYNC_RESULT (task), &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    g_task_return_boolean (task, TRUE);
  }
}

/* ------------------------------------------------ the mock driver (sm_90) */

static void
test_mock (void)
{
  g_autoptr(GError) error = NULL;

  if (!gcuda_test_require_gpu ())
    return;
  /* no image for sm_90: the message says so and lists what there is */
  g_assert_null (gcuda_module_new_from_resource (NULL, "/org/gnome/GCuda/tests/others", NULL, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "sm_90"));
  g_assert_nonnull (strstr (error->message, "sm_75, sm_80"));
  g_assert_nonnull (strstr (error->message, "/org/gnome/GCuda/tests/others"));
  g_clear_error (&error);
  /* damaged: refused before the driver sees it */
  g_assert_null (gcuda_module_new_from_resource (NULL, "/org/gnome/GCuda/tests/damaged/bad-sum", NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_module_new_from_resource (NULL, "/org/gnome/GCuda/tests/damaged/bad-size", NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (load_resource_async ("/org/gnome/GCuda/tests/others", NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED);
}

/* ------------------------------------------------------- a real device */

static int
device_arch (void)
{
  g_autoptr(GCudaDevice) device = gcuda_test_get_device ();
  int major = 0, minor = 0;

  gcuda_device_get_compute_capability (device, &major, &minor);
  return major * 10 + minor;
}

/* Runs report_arch (returns __CUDA_ARCH__) and checks axpb against the host. */
static int
run_kernels (GCudaModule *module)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaFunction) report = gcuda_module_get_function (module, "report_arch", &error);
  g_autoptr(GCudaFunction) axpb = NULL;
  g_autoptr(GCudaBuffer) out = NULL;
  g_autoptr(GCudaBuffer) x = NULL;
  g_autoptr(GCudaBuffer) y = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  g_autoptr(GBytes) result = NULL;
  g_autoptr(GRand) rand = g_rand_new ();
  const int n = 1000;
  float host_x[1000];
  const float *host_y;
  const float a = 1.5f, b = -0.25f;
  int arch;

  g_assert_no_error (error);
  out = gcuda_buffer_new (NULL, sizeof (int), &error);
  g_assert_no_error (error);
  gcuda_kernel_args_add_buffer (args, out);
  g_assert_true (gcuda_function_launch (report, 1, 1, 1, 1, 1, 1, 0, NULL, args, &error));
  g_assert_no_error (error);
  result = gcuda_buffer_download (out, 0, sizeof (int), &error);
  g_assert_no_error (error);
  memcpy (&arch, g_bytes_get_data (result, NULL), sizeof arch);
  g_clear_pointer (&result, g_bytes_unref);

  for (int i = 0; i < n; i++)
    host_x[i] = (float) g_rand_double_range (rand, -100.0, 100.0);
  axpb = gcuda_module_get_function (module, "axpb", &error);
  g_assert_no_error (error);
  x = gcuda_buffer_new (NULL, sizeof host_x, &error);
  g_assert_no_error (error);
  y = gcuda_buffer_new (NULL, sizeof host_x, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_upload (x, 0, (const guint8 *) host_x, sizeof host_x, &error));
  g_clear_object (&args);
  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, y);
  gcuda_kernel_args_add_buffer (args, x);
  gcuda_kernel_args_add_float (args, a);
  gcuda_kernel_args_add_float (args, b);
  gcuda_kernel_args_add_int32 (args, n);
  g_assert_true (gcuda_function_launch (axpb, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, &error));
  g_assert_no_error (error);
  result = gcuda_buffer_download (y, 0, sizeof host_x, &error);
  g_assert_no_error (error);
  host_y = g_bytes_get_data (result, NULL);
  for (int i = 0; i < n; i++)
    {
      double expected = (double) a * host_x[i] + b;

      /* fused multiply-add or not: within a few float ulps */
      if (fabs (host_y[i] - expected) > 1e-5 * fabs (expected) + 1e-5)
        g_error ("axpb[%d] = %.9g, expected %.9g", i, host_y[i], expected);
    }
  return arch;
}

/* What a bundle of @archs must run on this device, as __CUDA_ARCH__ (0:
 * nothing, NOT_SUPPORTED): written apart from the library's choice. */
static int
expected_arch (const int *cubins,
               const int *ptx,
               int        device)
{
  int best = 0;

  for (int i = 0; cubins[i] != 0; i++)
    if (cubins[i] == device)
      return device * 10;
  for (int i = 0; cubins[i] != 0; i++)
    if (cubins[i] / 10 == device / 10 && cubins[i] < device && cubins[i] > best)
      best = cubins[i];
  if (best != 0)
    return best * 10;
  for (int i = 0; ptx[i] != 0; i++)
    if (ptx[i] <= device && ptx[i] > best)
      best = ptx[i];
  return best * 10;
}

static void
check_bundle (const char *path,
              const int  *cubins,
              const int  *ptx)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaModule) module = gcuda_module_new_from_resource (NULL, path, NULL, &error);
  int device = device_arch ();
  int expected = expected_arch (cubins, ptx, device);

  g_test_message ("%s on sm_%d: expecting __CUDA_ARCH__ %d", path, device, expected);
  if (expected == 0)
    {
      g_autofree char *sm = g_strdup_printf ("sm_%d", device);

      g_assert_null (module);
      gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED);
      g_assert_nonnull (strstr (error->message, sm));
      g_assert_nonnull (strstr (error->message, path));
      return;
    }
  g_assert_no_error (error);
  g_assert_cmpint (run_kernels (module), ==, expected);
}

static void
test_gpu_multi (void)
{
  const int cubins[] = { 75, 80, 90, 0 }, ptx[] = { 75, 0 };

  if (!gcuda_test_require_gpu ())
    return;
  check_bundle ("/org/gnome/GCuda/tests/multi", cubins, ptx);
  /* the H200 runs its own cubin */
  if (device_arch () == 90)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GCudaModule) module = gcuda_module_new_from_resource (NULL, "/org/gnome/GCuda/tests/multi", NULL,
                                                                      &error);

      g_assert_no_error (error);
      g_assert_cmpint (run_kernels (module), ==, 900);
    }
}

static void
test_gpu_all (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaBundle) all = NULL;
  GCudaBundleLocation location = { "/org/gnome/GCuda/tests/all", NULL };
  int cubins[GCUDA_BUNDLE_MAX_IMAGES + 1] = { 0 }, ptx[GCUDA_BUNDLE_MAX_IMAGES + 1] = { 0 };
  guint nc = 0, np = 0;

  if (!gcuda_test_require_gpu ())
    return;
  all = _gcuda_bundle_open (&location, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < all->images->len; i++)
    {
      const GCudaBundleImage *image = g_ptr_array_index (all->images, i);

      if (image->kind == GCUDA_BUNDLE_IMAGE_CUBIN)
        cubins[nc++] = (int) image->arch;
      else
        ptx[np++] = (int) image->arch;
    }
  check_bundle ("/org/gnome/GCuda/tests/all", cubins, ptx);
}

static void
test_gpu_ptx_only (void)
{
  const int cubins[] = { 0 }, ptx[] = { 80, 0 };

  if (!gcuda_test_require_gpu ())
    return;
  /* __CUDA_ARCH__ in JIT-compiled PTX is the virtual architecture it was
   * compiled for: 800 on every device from sm_80 on */
  check_bundle ("/org/gnome/GCuda/tests/ptx", cubins, ptx);
  if (device_arch () >= 80)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GCudaJitOptions) options = gcuda_jit_options_new ();
      g_autoptr(GCudaModule) module = gcuda_module_new_from_resource (NULL, "/org/gnome/GCuda/tests/ptx", options,
                                                                      &error);

      g_assert_no_error (error);
      g_assert_cmpint (run_kernels (module), ==, 800);
    }
}

static void
test_gpu_other_archs (void)
{
  const int cubins[] = { 75, 80, 0 }, ptx[] = { 0 };

  if (!gcuda_test_require_gpu ())
    return;
  check_bundle ("/org/gnome/GCuda/tests/others", cubins, ptx);
  if (device_arch () / 10 > 8)
    {
      g_autoptr(GError) error = NULL;

      g_assert_null (gcuda_module_new_from_resource (NULL, "/org/gnome/GCuda/tests/others", NULL, &error));
      gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, "cubins for sm_75, sm_80 and no PTX"));
    }
}

static void
test_gpu_corrupt (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaBundle) bundle = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GCudaModule) module = NULL;
  const GCudaBundleImage *chosen;
  g_autofree char *path = NULL;
  g_autofree char *data = NULL;
  gsize size = 0;
  const int cubins[] = { 80, 90, 0 }, ptx[] = { 80, 0 };

  if (!gcuda_test_require_gpu ())
    return;
  dir = compile_bundle ();
  file = g_file_new_for_path (dir);

  /* the bundle as compiled loads (or says why not) */
  module = gcuda_module_new_from_directory (NULL, file, NULL, &error);
  if (expected_arch (cubins, ptx, device_arch ()) == 0)
    {
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED);
      remove_tree (dir);
      return;
    }
  g_assert_no_error (error);
  g_assert_cmpint (run_kernels (module), ==, expected_arch (cubins, ptx, device_arch ()));
  g_clear_object (&module);

  /* one byte of the image this device would load changed */
  bundle = open_directory (dir, &error);
  g_assert_no_error (error);
  chosen = _gcuda_bundle_select (bundle, (guint) device_arch (), "x", &error);
  g_assert_no_error (error);
  path = g_build_filename (dir, chosen->file, NULL);
  g_assert_true (g_file_get_contents (path, &data, &size, NULL));
  data[size / 3] ^= 0x01;
  g_assert_true (g_file_set_contents (path, data, (gssize) size, NULL));
  g_assert_null (gcuda_module_new_from_directory (NULL, file, NULL, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, chosen->file));
  g_clear_error (&error);
  /* truncated */
  g_assert_true (g_file_set_contents (path, data, (gssize) size / 2, NULL));
  g_assert_null (gcuda_module_new_from_directory (NULL, file, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  /* and the damaged bundles in the resources */
  g_assert_null (gcuda_module_new_from_resource (NULL, "/org/gnome/GCuda/tests/damaged/bad-sum", NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_module_new_from_resource (NULL, "/org/gnome/GCuda/tests/damaged/no-image", NULL, &error));
  gcuda_assert_error_clear (&error, G_RESOURCE_ERROR, G_RESOURCE_ERROR_NOT_FOUND);
  remove_tree (dir);
}

static void
test_gpu_async (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *dir = NULL;
  const int cubins[] = { 75, 80, 90, 0 }, ptx[] = { 75, 0 };
  const int dir_cubins[] = { 80, 90, 0 }, dir_ptx[] = { 80, 0 };
  int expected;

  if (!gcuda_test_require_gpu ())
    return;
  expected = expected_arch (cubins, ptx, device_arch ());
  module = load_resource_async ("/org/gnome/GCuda/tests/multi", NULL, &error);
  if (expected == 0)
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED);
  else
    {
      g_assert_no_error (error);
      g_assert_cmpint (run_kernels (module), ==, expected);
    }
  g_clear_object (&module);

  dir = compile_bundle ();
  expected = expected_arch (dir_cubins, dir_ptx, device_arch ());
  module = load_directory_async (dir, NULL, &error);
  if (expected == 0)
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED);
  else
    {
      g_assert_no_error (error);
      g_assert_cmpint (run_kernels (module), ==, expected);
    }
  g_clear_object (&module);
  remove_tree (dir);

  /* cancelled: the task says so */
  g_cancellable_cancel (cancellable);
  g_assert_null (load_resource_async ("/org/gnome/GCuda/tests/ptx", cancellable, &error));
  gcuda_assert_error_clear (&error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/module-resource/nogpu/manifest-round-trip", test_manifest_round_trip);
  g_test_add_func ("/module-resource/nogpu/manifest-corrupt", test_manifest_corrupt);
  g_test_add_func ("/module-resource/nogpu/manifest-mutations", test_manifest_mutations);
  g_test_add_func ("/module-resource/nogpu/select", test_select);
  g_test_add_func ("/module-resource/nogpu/directory-fifo-race", test_directory_fifo_race);
  /* gcuda-compile needs NVRTC, and so did the build-time bundles (empty
   * when the build machine had none: tests/c/bundles/compile-bundle); the
   * gpu cases only load those bundles (a GPU run's build had NVRTC) */
  gcuda_test_add_nvrtc_func ("/module-resource/nogpu/compile-tool", test_compile_tool);
  gcuda_test_add_nvrtc_func ("/module-resource/nogpu/compile-tool-errors", test_compile_tool_errors);
  gcuda_test_add_nvrtc_func ("/module-resource/nogpu/compile-tool-outputs", test_compile_tool_outputs);
  gcuda_test_add_nvrtc_func ("/module-resource/nogpu/compile-tool-prefixes", test_compile_tool_prefixes);
  gcuda_test_add_nvrtc_func ("/module-resource/nogpu/directory-damage", test_directory_damage);
  gcuda_test_add_nvrtc_func ("/module-resource/nogpu/resources", test_resources);
  gcuda_test_add_nvrtc_func ("/module-resource/nogpu/no-driver", test_no_driver);
  gcuda_test_add_nvrtc_func ("/module-resource/mock/choice", test_mock);
  g_test_add_func ("/module-resource/gpu/multi", test_gpu_multi);
  g_test_add_func ("/module-resource/gpu/all", test_gpu_all);
  g_test_add_func ("/module-resource/gpu/ptx-only", test_gpu_ptx_only);
  g_test_add_func ("/module-resource/gpu/other-archs", test_gpu_other_archs);
  g_test_add_func ("/module-resource/gpu/corrupt", test_gpu_corrupt);
  g_test_add_func ("/module-resource/gpu/async", test_gpu_async);
  return g_test_run ();
}
