/* gcuda-compile: compiles CUDA sources with NVRTC, through GCuda's own
 * compiler, into a kernel bundle (per-architecture cubins, PTX and a
 * manifest) that an application ships in a GResource or a directory and
 * loads with gcuda_module_new_from_resource() / _new_from_directory().
 *
 * No GPU and no driver are needed: every architecture is named.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gcuda.h"
#include "gcuda-error-private.h"
#include "gcuda-file-private.h"
#include "gcuda-kernel-bundle-private.h"
#include "gcuda-nvrtc-private.h"

typedef struct {
  GCudaBundleImageKind kind;
  guint arch;
  GCudaProgram *program;
  GError *error;
} Target;

typedef struct {
  GPtrArray *targets;   /* of Target */
  guint pending;
  GMainLoop *loop;
} Build;

static void
target_free (gpointer data)
{
  Target *target = data;

  g_clear_object (&target->program);
  g_clear_error (&target->error);
  g_free (target);
}

static G_GNUC_PRINTF (1, 2) void
fail (const char *format,
      ...)
{
  char *message;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("gcuda-compile: %s\n", message);
  /* by hand: exit() runs no g_autofree cleanup, and LeakSanitizer would count it */
  g_free (message);
  exit (1);
}

/* sm_XY or compute_XY from the command line. */
static void
add_target (GPtrArray            *targets,
            const char           *text,
            GCudaBundleImageKind  kind)
{
  Target *target;
  guint arch;

  if (g_str_has_prefix (text, "compute_"))
    kind = GCUDA_BUNDLE_IMAGE_PTX;
  else if (kind == GCUDA_BUNDLE_IMAGE_PTX && g_str_has_prefix (text, "sm_"))
    fail (_("--ptx takes a virtual architecture such as compute_75, not “%s”"), text);
  if (!_gcuda_bundle_parse_arch (text, kind, &arch))
    fail (kind == GCUDA_BUNDLE_IMAGE_CUBIN
            ? _("“%s” is not an architecture: expected sm_XY (cubin) or compute_XY (PTX), such as sm_90")
            : _("“%s” is not a virtual architecture: expected compute_XY, such as compute_75"),
          text);
  for (guint i = 0; i < targets->len; i++)
    {
      Target *other = g_ptr_array_index (targets, i);

      if (other->kind == kind && other->arch == arch)
        return;
    }
  target = g_new0 (Target, 1);
  target->kind = kind;
  target->arch = arch;
  g_ptr_array_add (targets, target);
}

/* Each value of a repeated option, which may itself be a comma-separated
 * list as nvcc takes them (--arch sm_80,sm_90). */
static void
add_targets (GPtrArray            *targets,
             char                **values,
             GCudaBundleImageKind  kind,
             const char           *option)
{
  for (guint i = 0; values != NULL && values[i] != NULL; i++)
    {
      g_auto(GStrv) items = g_strsplit (values[i], ",", -1);

      for (guint j = 0; items[j] != NULL; j++)
        {
          if (items[j][0] == '\0')
            fail (_("%s “%s” has an empty item: separate architectures with single commas, such as sm_80,sm_90"),
                  option, values[i]);
          add_target (targets, items[j], kind);
        }
    }
}

static int
compare_targets (gconstpointer a,
                 gconstpointer b)
{
  const Target *x = *(const Target * const *) a, *y = *(const Target * const *) b;

  if (x->kind != y->kind)
    return x->kind == GCUDA_BUNDLE_IMAGE_CUBIN ? -1 : 1;
  return x->arch < y->arch ? -1 : x->arch > y->arch;
}

/* The part of the source's file name the images are named after. */
static char *
source_stem (const char *path)
{
  g_autofree char *base = g_path_get_basename (path);
  char *dot = strrchr (base, '.');

  if (dot != NULL && dot != base)
    *dot = '\0';
  for (char *p = base; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("_+-", *p) == NULL)
      *p = '_';
  if (*base == '\0' || strlen (base) > 64)
    return g_strdup ("kernel");
  return g_steal_pointer (&base);
}

static char *
image_name (const char   *stem,
            const Target *target)
{
  return target->kind == GCUDA_BUNDLE_IMAGE_CUBIN ? g_strdup_printf ("%s.sm_%u.cubin", stem, target->arch)
                                                : g_strdup_printf ("%s.compute_%u.ptx", stem, target->arch);
}

static void
compiled (GObject      *source_object,
          GAsyncResult *result,
          gpointer      user_data)
{
  Target *target = user_data;
  Build *build = g_object_get_data (source_object, "gcuda-compile-build");

  target->program = gcuda_compiler_compile_finish (GCUDA_COMPILER (source_object), result, &target->error);
  g_object_unref (source_object);
  if (--build->pending == 0)
    g_main_loop_quit (build->loop);
}

/* An output path must be absent or a regular file: what else is there (a
 * FIFO, a device, a directory, a symbolic link, which could lead out of the
 * output directory) is refused, never replaced or followed. lstat(): a
 * link is what is refused, not what it points to. */
static void
check_output (const char *path)
{
  struct stat st;

  if (lstat (path, &st) != 0)
    {
      if (errno != ENOENT)
        fail (_("cannot write %s: %s"), path, g_strerror (errno));
      return;
    }
  if (!S_ISREG (st.st_mode))
    fail (_("%s exists and is %s, not a regular file: refusing to replace it"), path,
          _gcuda_file_type_describe (st.st_mode));
}

/* Writes @path atomically: a new temporary file beside it (O_EXCL: never
 * an existing file or link), then rename() over @path, which replaces the
 * name itself and follows no link. @path is checked just before: a
 * special file swapped in after that check is replaced, never written
 * through. */
static void
write_output (const char *path,
              const void *data,
              gsize       size)
{
  g_autofree char *tmp = g_strconcat (path, ".XXXXXX", NULL);
  const guint8 *p = data;
  gsize done = 0;
  int fd;

  check_output (path);
  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    fail (_("cannot write %s: %s"), path, g_strerror (errno));
  while (done < size)
    {
      gssize n = write (fd, p + done, size - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = n < 0 ? errno : ENOSPC;

          close (fd);
          g_unlink (tmp);
          fail (_("cannot write %s: %s"), path, g_strerror (saved));
        }
      done += (gsize) n;
    }
  if (fsync (fd) != 0 || close (fd) != 0)
    {
      int saved = errno;

      g_unlink (tmp);
      fail (_("cannot write %s: %s"), path, g_strerror (saved));
    }
  check_output (path);
  if (g_rename (tmp, path) != 0)
    {
      int saved = errno;

      g_unlink (tmp);
      fail (_("cannot write %s: %s"), path, g_strerror (saved));
    }
}

static void
write_file (const char *directory,
            const char *name,
            const void *data,
            gsize       size)
{
  g_autofree char *path = g_build_filename (directory, name, NULL);

  write_output (path, data, size);
}

static char *
gresource_xml (const char  *prefix,
               GCudaBundle *bundle,
               gboolean     compress)
{
  GString *xml = g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                               "<!-- written by gcuda-compile -->\n<gresources>\n");
  g_autofree char *escaped = g_markup_escape_text (prefix, -1);
  const char *attr = compress ? " compressed=\"true\"" : "";

  g_string_append_printf (xml, "  <gresource prefix=\"%s\">\n", escaped);
  g_string_append_printf (xml, "    <file>%s</file>\n", GCUDA_BUNDLE_MANIFEST_NAME);
  for (guint i = 0; i < bundle->images->len; i++)
    {
      const GCudaBundleImage *image = g_ptr_array_index (bundle->images, i);

      /* file names are [A-Za-z0-9._+-]: nothing to escape */
      g_string_append_printf (xml, "    <file%s>%s</file>\n", attr, image->file);
    }
  g_string_append (xml, "  </gresource>\n</gresources>\n");
  return g_string_free (xml, FALSE);
}

static GArray *
supported_archs (const GCudaNvrtc *nvrtc)
{
  GArray *archs = g_array_new (FALSE, TRUE, sizeof (int));
  int n = 0;

  if (nvrtc->fn_nvrtcGetNumSupportedArchs (&n) != NVRTC_SUCCESS || n <= 0 || n > 1024)
    fail (_("NVRTC %d.%d (%s) does not list the architectures it supports"), nvrtc->major, nvrtc->minor,
          nvrtc->path);
  g_array_set_size (archs, (guint) n);
  if (nvrtc->fn_nvrtcGetSupportedArchs ((int *) (void *) archs->data) != NVRTC_SUCCESS)
    fail (_("NVRTC %d.%d (%s) does not list the architectures it supports"), nvrtc->major, nvrtc->minor,
          nvrtc->path);
  return archs;
}

int
main (int   argc,
      char *argv[])
{
  g_auto(GStrv) archs = NULL;
  g_auto(GStrv) ptx = NULL;
  g_auto(GStrv) include_dirs = NULL;
  g_auto(GStrv) defines = NULL;
  g_auto(GStrv) nvrtc_options = NULL;
  g_autofree char *output_dir = NULL;
  g_autofree char *resource_prefix = NULL;
  g_autofree char *xml_path = NULL;
  gboolean no_extern_c = FALSE, compress = FALSE, list_archs = FALSE, show_version = FALSE;
  GOptionEntry entries[] = {
    { "arch", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &archs,
      N_("Make a cubin for ARCH (sm_XY), or PTX for a compute_XY; repeat, or give a comma list "
         "(sm_80,sm_90), for more. "
         "Default: every sm_XY NVRTC supports, and PTX of the lowest"), "ARCH" },
    { "ptx", 0, 0, G_OPTION_ARG_STRING_ARRAY, &ptx, N_("Also make PTX for ARCH (compute_XY); repeat, or give a comma list, for more"),
      "ARCH" },
    { "include-dir", 'I', 0, G_OPTION_ARG_FILENAME_ARRAY, &include_dirs,
      N_("Search DIR for #include files (the source's directory is searched first)"), "DIR" },
    { "define", 'D', 0, G_OPTION_ARG_STRING_ARRAY, &defines, N_("Define the macro NAME (as V)"), "NAME[=V]" },
    { "option", 'X', 0, G_OPTION_ARG_STRING_ARRAY, &nvrtc_options,
      N_("Pass OPTION to NVRTC (such as --use_fast_math); repeat for more"), "OPTION" },
    { "no-extern-c", 0, 0, G_OPTION_ARG_NONE, &no_extern_c,
      N_("Do not wrap the source in extern \"C\" (kernels then have C++ names)"), NULL },
    { "output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &output_dir,
      N_("Write the manifest and the images into DIR (created if needed)"), "DIR" },
    { "resource-prefix", 0, 0, G_OPTION_ARG_STRING, &resource_prefix,
      N_("The resource path the bundle will have, such as /org/example/App/kernels/NAME"), "PATH" },
    { "gresource-xml", 0, 0, G_OPTION_ARG_FILENAME, &xml_path,
      N_("Also write a .gresource.xml for glib-compile-resources (its source directory: the output directory)"),
      "FILE" },
    { "compress", 0, 0, G_OPTION_ARG_NONE, &compress, N_("Mark the images compressed in the .gresource.xml"), NULL },
    { "list-archs", 0, 0, G_OPTION_ARG_NONE, &list_archs,
      N_("Print the NVRTC version and the architectures it supports, and exit"), NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &show_version, N_("Print the version and exit"), NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) targets = g_ptr_array_new_with_free_func (target_free);
  g_autoptr(GPtrArray) nvrtc_args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GCudaBundle) bundle = NULL;
  g_autoptr(GArray) supported = NULL;
  g_autofree char *source = NULL;
  g_autofree char *stem = NULL;
  g_autofree char *manifest = NULL;
  g_autoptr(GCudaBundle) check = NULL;
  const GCudaNvrtc *nvrtc;
  Build build = { 0 };
  gsize source_length = 0;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  options = g_option_context_new (_("SOURCE.cu — compile CUDA kernels into a bundle for GResources"));
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);
  g_option_context_set_summary (options,
    _("Compiles a CUDA C++ source with NVRTC for several GPU architectures and writes the images with a "
      "manifest into a directory, for gcuda_module_new_from_resource() (through a .gresource.xml and "
      "glib-compile-resources) or gcuda_module_new_from_directory(). No GPU is needed."));
  g_option_context_set_description (options,
    _("Example:\n  gcuda-compile --output-dir kernels --resource-prefix /org/example/App/kernels/fractal \\\n"
      "                --gresource-xml kernels.gresource.xml fractal.cu\n"
      "  glib-compile-resources --sourcedir kernels kernels.gresource.xml\n\n"
      "The images are named SOURCE.sm_XY.cubin and SOURCE.compute_XY.ptx. Kernels load with the names "
      "they have in the source (extern \"C\", as GCuda.SourceModule wraps them)."));
  g_option_context_add_main_entries (options, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    fail (_("%s (try --help)"), error->message);

  if (show_version)
    {
      g_print ("gcuda-compile %s\n", PACKAGE_VERSION);
      return 0;
    }
  if ((nvrtc = _gcuda_nvrtc_get (&error)) == NULL)
    fail ("%s", error->message);
  supported = supported_archs (nvrtc);
  if (list_archs)
    {
      g_print ("nvrtc %d.%d\n", nvrtc->major, nvrtc->minor);
      for (guint i = 0; i < supported->len; i++)
        g_print ("sm_%d\n", g_array_index (supported, int, i));
      return 0;
    }

  if (argc != 2)
    fail (argc < 2 ? _("no source file given (try --help)") : _("one source file at a time (try --help)"));
  if (output_dir == NULL)
    fail (_("--output-dir is required (try --help)"));
  if ((xml_path != NULL) != (resource_prefix != NULL))
    fail (_("--gresource-xml and --resource-prefix go together"));
  if (resource_prefix != NULL && (resource_prefix[0] != '/' || !g_utf8_validate (resource_prefix, -1, NULL)))
    fail (_("--resource-prefix must be an absolute resource path such as /org/example/App/kernels/NAME"));
  if (resource_prefix != NULL)
    {
      gsize n = strlen (resource_prefix);

      while (n > 1 && resource_prefix[n - 1] == '/')
        resource_prefix[--n] = '\0';
    }

  /* What to make */
  add_targets (targets, archs, GCUDA_BUNDLE_IMAGE_CUBIN, "--arch");
  add_targets (targets, ptx, GCUDA_BUNDLE_IMAGE_PTX, "--ptx");
  if (targets->len == 0)
    {
      int lowest = G_MAXINT;

      for (guint i = 0; i < supported->len; i++)
        {
          g_autofree char *name = g_strdup_printf ("sm_%d", g_array_index (supported, int, i));

          add_target (targets, name, GCUDA_BUNDLE_IMAGE_CUBIN);
          lowest = MIN (lowest, g_array_index (supported, int, i));
        }
      if (lowest != G_MAXINT)
        {
          g_autofree char *name = g_strdup_printf ("compute_%d", lowest);

          add_target (targets, name, GCUDA_BUNDLE_IMAGE_PTX);
        }
    }
  if (targets->len > GCUDA_BUNDLE_MAX_IMAGES)
    fail (_("at most %d images per bundle"), GCUDA_BUNDLE_MAX_IMAGES);
  g_ptr_array_sort (targets, compare_targets);

  if (!g_file_get_contents (argv[1], &source, &source_length, &error))
    fail ("%s", error->message);
  if (strlen (source) != source_length)
    fail (_("%s: the source contains a NUL byte"), argv[1]);
  stem = source_stem (argv[1]);

  /* Every output path before the compile, and again as it is written */
  if (g_file_test (output_dir, G_FILE_TEST_EXISTS) && !g_file_test (output_dir, G_FILE_TEST_IS_DIR))
    fail (_("%s exists and is not a directory"), output_dir);
  for (guint i = 0; i < targets->len; i++)
    {
      g_autofree char *name = image_name (stem, g_ptr_array_index (targets, i));
      g_autofree char *path = g_build_filename (output_dir, name, NULL);

      check_output (path);
    }
  {
    g_autofree char *path = g_build_filename (output_dir, GCUDA_BUNDLE_MANIFEST_NAME, NULL);

    check_output (path);
  }
  if (xml_path != NULL)
    check_output (xml_path);

  /* NVRTC's options: the macros, then the caller's */
  for (guint i = 0; defines != NULL && defines[i] != NULL; i++)
    g_ptr_array_add (nvrtc_args, g_strconcat ("-D", defines[i], NULL));
  for (guint i = 0; nvrtc_options != NULL && nvrtc_options[i] != NULL; i++)
    g_ptr_array_add (nvrtc_args, g_strdup (nvrtc_options[i]));
  g_ptr_array_add (nvrtc_args, NULL);
  /* the source's directory first, as for #include "…" with nvcc */
  g_ptr_array_add (dirs, g_path_get_dirname (argv[1]));
  for (guint i = 0; include_dirs != NULL && include_dirs[i] != NULL; i++)
    g_ptr_array_add (dirs, g_strdup (include_dirs[i]));
  g_ptr_array_add (dirs, NULL);

  /* Every architecture at once: NVRTC runs on GCuda's worker threads. */
  build.targets = targets;
  build.loop = g_main_loop_new (NULL, FALSE);
  build.pending = targets->len;
  for (guint i = 0; i < targets->len; i++)
    {
      Target *target = g_ptr_array_index (targets, i);
      GCudaCompiler *compiler = gcuda_compiler_new (NULL);
      g_autofree char *arch = g_strdup_printf ("%s%u", target->kind == GCUDA_BUNDLE_IMAGE_CUBIN ? "sm_" : "compute_",
                                               target->arch);

      gcuda_compiler_set_arch (compiler, arch);
      gcuda_compiler_set_target (compiler, target->kind == GCUDA_BUNDLE_IMAGE_CUBIN ? GCUDA_PROGRAM_KIND_CUBIN
                                                                                 : GCUDA_PROGRAM_KIND_PTX);
      gcuda_compiler_set_options (compiler, (const char * const *) nvrtc_args->pdata);
      gcuda_compiler_set_include_dirs (compiler, (const char * const *) dirs->pdata);
      gcuda_compiler_set_no_extern_c (compiler, no_extern_c);
      /* a build writes nothing to the user's compile cache */
      gcuda_compiler_set_cache_dir (compiler, "");
      g_object_set_data (G_OBJECT (compiler), "gcuda-compile-build", &build);
      gcuda_compiler_compile_async (compiler, source, NULL, compiled, target);
    }
  g_main_loop_run (build.loop);
  g_main_loop_unref (build.loop);

  for (guint i = 0; i < targets->len; i++)
    {
      Target *target = g_ptr_array_index (targets, i);

      if (target->error != NULL)
        fail (_("%s: compiling for %s%u failed: %s"), argv[1],
              target->kind == GCUDA_BUNDLE_IMAGE_CUBIN ? "sm_" : "compute_", target->arch, target->error->message);
    }

  /* The images, then the manifest (last: a bundle interrupted half-way has
   * the old manifest or a checksum mismatch, never a mix that loads). */
  if (g_mkdir_with_parents (output_dir, 0755) != 0)
    fail (_("cannot create %s: %s"), output_dir, g_strerror (errno));
  bundle = _gcuda_bundle_new ();
  bundle->source = g_strdup_printf ("%s.cu", stem);
  if (!_gcuda_bundle_file_name_is_valid (bundle->source))
    {
      g_free (bundle->source);
      bundle->source = g_strdup ("kernel.cu");
    }
  bundle->nvrtc_major = (guint) nvrtc->major;
  bundle->nvrtc_minor = (guint) nvrtc->minor;
  for (guint i = 0; i < targets->len; i++)
    {
      Target *target = g_ptr_array_index (targets, i);
      GBytes *image = gcuda_program_get_image (target->program);
      g_autoptr(GBytes) contents = NULL;
      gsize size = 0;
      const char *data = g_bytes_get_data (image, &size);
      g_autofree char *name = NULL;

      /* PTX without NVRTC's trailing NUL: a text file (the loader adds it) */
      if (target->kind == GCUDA_BUNDLE_IMAGE_PTX)
        while (size > 0 && data[size - 1] == '\0')
          size--;
      if (size == 0)
        fail (_("NVRTC produced an empty image for %s%u"),
              target->kind == GCUDA_BUNDLE_IMAGE_CUBIN ? "sm_" : "compute_", target->arch);
      contents = g_bytes_new_from_bytes (image, 0, size);
      name = image_name (stem, target);
      write_file (output_dir, name, data, size);
      _gcuda_bundle_add_image (bundle, target->kind, target->arch, name, contents);
    }
  manifest = _gcuda_bundle_to_string (bundle);
  /* what is written is what the loader accepts */
  if ((check = _gcuda_bundle_parse (manifest, strlen (manifest), &error)) == NULL)
    fail ("%s", error->message);
  write_file (output_dir, GCUDA_BUNDLE_MANIFEST_NAME, manifest, strlen (manifest));

  if (xml_path != NULL)
    {
      g_autofree char *xml = gresource_xml (resource_prefix, bundle, compress);

      write_output (xml_path, xml, strlen (xml));
    }
  return 0;
}
