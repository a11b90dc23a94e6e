/* gcuda-kernel-bundle-private.c: kernels shipped prebuilt
 *
 * The manifest gcuda-compile writes, its strict parser (it reads what an
 * application ships, so anything it does not expect is an error naming the
 * line, never a crash), the choice of image for a device, and the reading
 * of a bundle's files from a GResource or a directory with size bounds and
 * checksums.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcuda-error-private.h"
#include "gcuda-file-private.h"
#include "gcuda-kernel-bundle-private.h"

static void
image_free (gpointer data)
{
  GCudaBundleImage *image = data;

  g_free (image->file);
  g_free (image);
}

GCudaBundle *
_gcuda_bundle_new (void)
{
  GCudaBundle *bundle = g_new0 (GCudaBundle, 1);

  bundle->images = g_ptr_array_new_with_free_func (image_free);
  return bundle;
}

void
_gcuda_bundle_free (GCudaBundle *bundle)
{
  if (bundle == NULL)
    return;
  g_free (bundle->source);
  g_ptr_array_unref (bundle->images);
  g_free (bundle);
}

void
_gcuda_bundle_add_image (GCudaBundle          *bundle,
                         GCudaBundleImageKind  kind,
                         guint                 arch,
                         const char           *file,
                         GBytes               *contents)
{
  GCudaBundleImage *image = g_new0 (GCudaBundleImage, 1);
  g_autofree char *sum = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, contents);

  image->kind = kind;
  image->arch = arch;
  image->file = g_strdup (file);
  image->size = g_bytes_get_size (contents);
  g_strlcpy (image->sha256, sum, sizeof image->sha256);
  g_ptr_array_add (bundle->images, image);
}

static const char *
kind_name (GCudaBundleImageKind kind)
{
  return kind == GCUDA_BUNDLE_IMAGE_CUBIN ? "cubin" : "ptx";
}

static const char *
arch_prefix (GCudaBundleImageKind kind)
{
  return kind == GCUDA_BUNDLE_IMAGE_CUBIN ? "sm_" : "compute_";
}

char *
_gcuda_bundle_to_string (const GCudaBundle *bundle)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "%s %d\n", GCUDA_BUNDLE_FORMAT, GCUDA_BUNDLE_VERSION);
  g_string_append_printf (text, "source %s\n", bundle->source);
  g_string_append_printf (text, "nvrtc %u.%u\n", bundle->nvrtc_major, bundle->nvrtc_minor);
  for (guint i = 0; i < bundle->images->len; i++)
    {
      const GCudaBundleImage *image = g_ptr_array_index (bundle->images, i);

      g_string_append_printf (text, "image %s %s%u %s %" G_GUINT64_FORMAT " %s\n", kind_name (image->kind),
                              arch_prefix (image->kind), image->arch, image->file, image->size, image->sha256);
    }
  g_string_append (text, "end\n");
  return g_string_free (text, FALSE);
}

/* Digits only, no sign, no leading zero, at most @max_digits. */
static gboolean
parse_number (const char *text,
              guint       max_digits,
              guint64    *value)
{
  guint64 v = 0;
  gsize n = strlen (text);

  if (n == 0 || n > max_digits || (n > 1 && text[0] == '0'))
    return FALSE;
  for (gsize i = 0; i < n; i++)
    {
      if (!g_ascii_isdigit (text[i]))
        return FALSE;
      v = v * 10 + (guint64) (text[i] - '0');
    }
  *value = v;
  return TRUE;
}

gboolean
_gcuda_bundle_parse_arch (const char           *text,
                          GCudaBundleImageKind  kind,
                          guint                *arch)
{
  const char *prefix = arch_prefix (kind);
  guint64 v;

  if (text == NULL || !g_str_has_prefix (text, prefix) ||
      !parse_number (text + strlen (prefix), 4, &v) || v < 10 || v > GCUDA_BUNDLE_MAX_ARCH)
    return FALSE;
  *arch = (guint) v;
  return TRUE;
}

gboolean
_gcuda_bundle_file_name_is_valid (const char *name)
{
  gsize n;

  if (name == NULL || (n = strlen (name)) == 0 || n > GCUDA_BUNDLE_MAX_NAME || name[0] == '.')
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isalnum (name[i]) && strchr ("._+-", name[i]) == NULL)
      return FALSE;
  /* the manifest is no image */
  return strcmp (name, GCUDA_BUNDLE_MANIFEST_NAME) != 0;
}

static gboolean G_GNUC_PRINTF (3, 4)
bad_line (GError     **error,
          guint        line,
          const char  *format,
          ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
               _("Bad kernel bundle manifest, line %u: %s"), line, what);
  return FALSE;
}

/* One line, already split into fields. */
static gboolean
parse_line (GCudaBundle  *bundle,
            guint         line,
            char        **fields,
            guint         n_fields,
            GHashTable   *files,
            GError      **error)
{
  const char *key = fields[0];

  if (line == 1)
    {
      guint64 version;

      if (n_fields != 2 || strcmp (key, GCUDA_BUNDLE_FORMAT) != 0)
        return bad_line (error, line, _("not a kernel bundle manifest (it must start with “%s %d”)"),
                         GCUDA_BUNDLE_FORMAT, GCUDA_BUNDLE_VERSION);
      if (!parse_number (fields[1], 6, &version) || version != GCUDA_BUNDLE_VERSION)
        return bad_line (error, line, _("format version “%s” is not supported (this GCuda reads version %d)"),
                         fields[1], GCUDA_BUNDLE_VERSION);
      return TRUE;
    }

  if (strcmp (key, "source") == 0)
    {
      if (n_fields != 2)
        return bad_line (error, line, _("“source” takes one field"));
      if (bundle->source != NULL)
        return bad_line (error, line, _("“source” given twice"));
      if (!_gcuda_bundle_file_name_is_valid (fields[1]))
        return bad_line (error, line, _("invalid source name"));
      bundle->source = g_strdup (fields[1]);
      return TRUE;
    }

  if (strcmp (key, "nvrtc") == 0)
    {
      g_auto(GStrv) parts = NULL;
      guint64 major, minor;

      if (n_fields != 2)
        return bad_line (error, line, _("“nvrtc” takes one field"));
      if (bundle->nvrtc_major != 0)
        return bad_line (error, line, _("“nvrtc” given twice"));
      parts = g_strsplit (fields[1], ".", 3);
      if (g_strv_length (parts) != 2 || !parse_number (parts[0], 3, &major) || major == 0 ||
          !parse_number (parts[1], 3, &minor))
        return bad_line (error, line, _("invalid NVRTC version “%s” (expected MAJOR.MINOR)"), fields[1]);
      bundle->nvrtc_major = (guint) major;
      bundle->nvrtc_minor = (guint) minor;
      return TRUE;
    }

  if (strcmp (key, "image") == 0)
    {
      GCudaBundleImage *image;
      GCudaBundleImageKind kind;
      guint arch;
      guint64 size;

      if (bundle->source == NULL || bundle->nvrtc_major == 0)
        return bad_line (error, line, _("“image” before “source” and “nvrtc”"));
      if (n_fields != 6)
        return bad_line (error, line, _("“image” takes five fields: KIND ARCH FILE SIZE SHA256"));
      if (strcmp (fields[1], "cubin") == 0)
        kind = GCUDA_BUNDLE_IMAGE_CUBIN;
      else if (strcmp (fields[1], "ptx") == 0)
        kind = GCUDA_BUNDLE_IMAGE_PTX;
      else
        return bad_line (error, line, _("unknown image kind “%s” (expected cubin or ptx)"), fields[1]);
      if (!_gcuda_bundle_parse_arch (fields[2], kind, &arch))
        return bad_line (error, line, kind == GCUDA_BUNDLE_IMAGE_CUBIN
                                        ? _("invalid architecture “%s” for a cubin (expected sm_XY)")
                                        : _("invalid architecture “%s” for PTX (expected compute_XY)"),
                         fields[2]);
      if (!_gcuda_bundle_file_name_is_valid (fields[3]))
        return bad_line (error, line,
                         _("invalid file name (letters, digits and “._+-” only, not starting with “.”, "
                           "at most %d bytes, not “manifest”)"),
                         GCUDA_BUNDLE_MAX_NAME);
      if (!parse_number (fields[4], 10, &size) || size == 0 || size > GCUDA_BUNDLE_MAX_IMAGE_SIZE)
        return bad_line (error, line, _("invalid size “%s” (1 to %" PRIu64 " bytes)"), fields[4],
                         (guint64) GCUDA_BUNDLE_MAX_IMAGE_SIZE);
      if (strlen (fields[5]) != 64 || strspn (fields[5], "0123456789abcdef") != 64)
        return bad_line (error, line, _("invalid SHA-256 (expected 64 lowercase hexadecimal digits)"));
      for (guint i = 0; i < bundle->images->len; i++)
        {
          const GCudaBundleImage *other = g_ptr_array_index (bundle->images, i);

          if (other->kind == kind && other->arch == arch)
            return bad_line (error, line, _("a second image for %s"), fields[2]);
        }
      if (g_hash_table_contains (files, fields[3]))
        return bad_line (error, line, _("file “%s” listed twice"), fields[3]);
      if (bundle->images->len >= GCUDA_BUNDLE_MAX_IMAGES)
        return bad_line (error, line, _("more than %d images"), GCUDA_BUNDLE_MAX_IMAGES);

      image = g_new0 (GCudaBundleImage, 1);
      image->kind = kind;
      image->arch = arch;
      image->file = g_strdup (fields[3]);
      image->size = size;
      memcpy (image->sha256, fields[5], 64);
      g_ptr_array_add (bundle->images, image);
      g_hash_table_add (files, image->file);
      return TRUE;
    }

  return bad_line (error, line, _("unknown key “%s”"), key);
}

GCudaBundle *
_gcuda_bundle_parse (const char  *data,
                     gsize        size,
                     GError     **error)
{
  g_autoptr(GCudaBundle) bundle = _gcuda_bundle_new ();
  g_autoptr(GHashTable) files = g_hash_table_new (g_str_hash, g_str_equal);
  gboolean ended = FALSE;
  gsize pos = 0;
  guint line = 0;

  if (data == NULL && size > 0)
    size = 0;
  if (size > GCUDA_BUNDLE_MAX_MANIFEST)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Bad kernel bundle manifest: %" PRIu64 " bytes, more than the %d a manifest may have"),
                   (guint64) size, GCUDA_BUNDLE_MAX_MANIFEST);
      return NULL;
    }
  if (size == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Bad kernel bundle manifest: it is empty"));
      return NULL;
    }

  while (pos < size)
    {
      const char *start = data + pos;
      const char *end = memchr (start, '\n', size - pos);
      gsize length;
      char text[GCUDA_BUNDLE_MAX_LINE + 1];
      char *fields[7];
      guint n_fields = 0;
      char *p;

      line++;
      if (end == NULL)
        {
          bad_line (error, line, _("the line does not end with a newline (truncated manifest?)"));
          return NULL;
        }
      length = (gsize) (end - start);
      if (length == 0)
        {
          bad_line (error, line, _("empty line"));
          return NULL;
        }
      if (length > GCUDA_BUNDLE_MAX_LINE)
        {
          bad_line (error, line, _("longer than %d bytes"), GCUDA_BUNDLE_MAX_LINE);
          return NULL;
        }
      for (gsize i = 0; i < length; i++)
        if (start[i] < 0x20 || start[i] > 0x7e)
          {
            bad_line (error, line, _("byte 0x%02x at column %u: only printable ASCII is allowed"),
                      (guint) (guchar) start[i], (guint) i + 1);
            return NULL;
          }
      if (start[0] == ' ' || start[length - 1] == ' ')
        {
          bad_line (error, line, _("leading or trailing space"));
          return NULL;
        }
      memcpy (text, start, length);
      text[length] = '\0';

      /* split at single spaces */
      p = text;
      while (p != NULL)
        {
          char *space = strchr (p, ' ');

          if (n_fields == G_N_ELEMENTS (fields))
            {
              bad_line (error, line, _("too many fields"));
              return NULL;
            }
          if (space != NULL)
            *space = '\0';
          if (*p == '\0')
            {
              bad_line (error, line, _("fields must be separated by exactly one space"));
              return NULL;
            }
          fields[n_fields++] = p;
          p = space != NULL ? space + 1 : NULL;
        }

      if (ended)
        {
          bad_line (error, line, _("text after “end”"));
          return NULL;
        }
      if (line > 1 && strcmp (fields[0], "end") == 0)
        {
          if (n_fields != 1)
            {
              bad_line (error, line, _("“end” takes no field"));
              return NULL;
            }
          ended = TRUE;
        }
      else if (!parse_line (bundle, line, fields, n_fields, files, error))
        return NULL;
      pos += length + 1;
    }

  if (bundle->source == NULL || bundle->nvrtc_major == 0 || bundle->images->len == 0 || !ended)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Bad kernel bundle manifest: it ends at line %u without %s"), line,
                   bundle->source == NULL ? "“source”" : bundle->nvrtc_major == 0 ? "“nvrtc”" :
                   bundle->images->len == 0 ? "“image”" : "“end” (truncated manifest?)");
      return NULL;
    }
  return g_steal_pointer (&bundle);
}

static int
compare_uint (gconstpointer a,
              gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

static char *
join_archs (const GCudaBundle    *bundle,
            GCudaBundleImageKind  kind)
{
  g_autoptr(GArray) archs = g_array_new (FALSE, FALSE, sizeof (guint));
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < bundle->images->len; i++)
    {
      const GCudaBundleImage *image = g_ptr_array_index (bundle->images, i);

      if (image->kind == kind)
        g_array_append_val (archs, image->arch);
    }
  g_array_sort (archs, compare_uint);
  for (guint i = 0; i < archs->len; i++)
    g_string_append_printf (text, "%s%s%u", i > 0 ? ", " : "", arch_prefix (kind), g_array_index (archs, guint, i));
  return g_string_free (text, FALSE);
}

char *
_gcuda_bundle_describe (const GCudaBundle *bundle)
{
  g_autofree char *cubins = join_archs (bundle, GCUDA_BUNDLE_IMAGE_CUBIN);
  g_autofree char *ptx = join_archs (bundle, GCUDA_BUNDLE_IMAGE_PTX);

  if (*cubins != '\0' && *ptx != '\0')
    return g_strdup_printf (_("cubins for %s and PTX for %s"), cubins, ptx);
  if (*cubins != '\0')
    return g_strdup_printf (_("cubins for %s and no PTX"), cubins);
  if (*ptx != '\0')
    return g_strdup_printf (_("no cubin and PTX for %s"), ptx);
  return g_strdup (_("no images"));
}

const GCudaBundleImage *
_gcuda_bundle_select (const GCudaBundle  *bundle,
                      guint               device_arch,
                      const char         *where,
                      GError            **error)
{
  const GCudaBundleImage *compatible = NULL;
  const GCudaBundleImage *ptx = NULL;
  g_autofree char *holds = NULL;

  for (guint i = 0; i < bundle->images->len; i++)
    {
      const GCudaBundleImage *image = g_ptr_array_index (bundle->images, i);

      if (image->kind == GCUDA_BUNDLE_IMAGE_CUBIN)
        {
          if (image->arch == device_arch)
            return image;
          /* a cubin runs on later minor versions of its major one */
          if (image->arch / 10 == device_arch / 10 && image->arch < device_arch &&
              (compatible == NULL || image->arch > compatible->arch))
            compatible = image;
        }
      else if (image->arch <= device_arch && (ptx == NULL || image->arch > ptx->arch))
        ptx = image;
    }
  if (compatible != NULL)
    return compatible;
  if (ptx != NULL)
    return ptx;

  holds = _gcuda_bundle_describe (bundle);
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED,
               _("The kernel bundle %s has no image this device can run: the device is sm_%u "
                 "(compute capability %u.%u); the bundle holds %s. Build it for this device "
                 "(gcuda-compile --arch sm_%u) or with PTX of an architecture up to compute_%u"),
               where, device_arch, device_arch / 10, device_arch % 10, holds, device_arch, device_arch);
  return NULL;
}

char *
_gcuda_bundle_location_describe (const GCudaBundleLocation *location)
{
  if (location->resource_path != NULL)
    return g_strdup_printf (_("resource %s"), location->resource_path);
  {
    g_autofree char *name = g_file_get_parse_name (location->directory);

    return g_strdup_printf (_("directory %s"), name);
  }
}

/* A copy in memory of malloc's alignment (cubins are ELF: the driver
 * reads their headers in place), NUL-terminated when @nul. */
static GBytes *
bytes_copy (const guint8 *data,
            gsize         size,
            gboolean      nul)
{
  guint8 *copy = g_malloc (size + 1);

  memcpy (copy, data, size);
  copy[size] = '\0';
  return g_bytes_new_take (copy, size + (nul ? 1 : 0));
}

/* @name in @directory, a GFile with no local path (GVfs): opened first and
 * checked through the stream, at most @limit + 1 bytes read. */
static GBytes *
read_gfile (GFile       *directory,
            const char  *name,
            guint64      limit,
            GError     **error)
{
  g_autoptr(GFile) file = g_file_get_child (directory, name);
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autofree guint8 *buffer = NULL;
  gsize got = 0;

  if ((stream = g_file_read (file, NULL, error)) == NULL)
    return NULL;
  info = g_file_input_stream_query_info (stream, G_FILE_ATTRIBUTE_STANDARD_TYPE, NULL, error);
  if (info == NULL)
    return NULL;
  if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("“%s” is not a regular file"), name);
      return NULL;
    }
  buffer = g_malloc ((gsize) limit + 1);
  if (!g_input_stream_read_all (G_INPUT_STREAM (stream), buffer, (gsize) limit + 1, &got, NULL, error))
    {
      g_prefix_error (error, _("“%s”: "), name);
      return NULL;
    }
  return g_bytes_new_take (g_steal_pointer (&buffer), got);
}

/* @name at @location: at most @max bytes (when @exact is 0) or exactly
 * @exact bytes. */
static GBytes *
read_member (const GCudaBundleLocation  *location,
             const char                 *name,
             guint64                     max,
             guint64                     exact,
             GError                    **error)
{
  g_autofree char *where = _gcuda_bundle_location_describe (location);
  guint64 limit = exact != 0 ? exact : max;
  guint64 size;

  if (location->resource_path != NULL)
    {
      /* joined as glib-compile-resources joins a <gresource prefix> and a
       * file name, so that every prefix gcuda-compile accepts (/ included,
       * not //manifest) names what the .gresource.xml put there */
      g_autofree char *path = g_build_path ("/", "/", location->resource_path, name, NULL);
      gsize rsize = 0;
      guint32 flags = 0;

      if (!g_resources_get_info (path, G_RESOURCE_LOOKUP_FLAGS_NONE, &rsize, &flags, error))
        {
          g_prefix_error (error, _("Kernel bundle %s: "), where);
          return NULL;
        }
      size = rsize;
      if ((exact != 0 && size != exact) || size > limit)
        goto bad_size;
      return g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
    }
  else
    {
      g_autofree char *dir_path = g_file_get_path (location->directory);
      g_autoptr(GBytes) contents = NULL;

      if (dir_path != NULL)
        {
          g_autofree char *path = g_build_filename (dir_path, name, NULL);
          struct stat st;
          int fd;

          /* Opened first, without waiting, and checked through the
           * descriptor: a FIFO swapped in after a check of the name would
           * block the open forever. A symlink is followed, as GIO does. */
          if ((fd = _gcuda_file_open_regular (AT_FDCWD, path, FALSE, &st, error)) < 0)
            {
              g_prefix_error (error, _("Kernel bundle %s: "), where);
              return NULL;
            }
          size = (guint64) st.st_size;
          if ((exact != 0 && size != exact) || size > limit)
            {
              close (fd);
              goto bad_size;
            }
          /* one byte more than allowed: a file that grew is caught too */
          contents = _gcuda_file_read_fd (fd, path, (gsize) limit, error);
          close (fd);
        }
      else
        contents = read_gfile (location->directory, name, limit, error);
      if (contents == NULL)
        {
          g_prefix_error (error, _("Kernel bundle %s: "), where);
          return NULL;
        }
      size = g_bytes_get_size (contents);
      if ((exact != 0 && size != exact) || size > limit)
        goto bad_size;
      return g_steal_pointer (&contents);
    }

bad_size:
  if (exact != 0)
    g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                 _("Kernel bundle %s: “%s” has %" PRIu64 " bytes, the manifest says %" PRIu64
                   " (a damaged or partly copied bundle)"),
                 where, name, size, exact);
  else
    g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                 _("Kernel bundle %s: “%s” is larger than %" PRIu64 " bytes"), where, name, max);
  return NULL;
}

GCudaBundle *
_gcuda_bundle_open (const GCudaBundleLocation  *location,
                    GError                    **error)
{
  g_autoptr(GBytes) text = read_member (location, GCUDA_BUNDLE_MANIFEST_NAME, GCUDA_BUNDLE_MAX_MANIFEST, 0, error);
  GCudaBundle *bundle;
  gsize size = 0;
  const char *data;

  if (text == NULL)
    return NULL;
  data = g_bytes_get_data (text, &size);
  bundle = _gcuda_bundle_parse (data, size, error);
  if (bundle == NULL)
    {
      g_autofree char *where = _gcuda_bundle_location_describe (location);

      g_prefix_error (error, _("Kernel bundle %s: "), where);
    }
  return bundle;
}

GBytes *
_gcuda_bundle_read_image (const GCudaBundleLocation  *location,
                          const GCudaBundleImage     *image,
                          GError                    **error)
{
  g_autoptr(GBytes) contents = read_member (location, image->file, image->size, image->size, error);
  g_autofree char *sum = NULL;
  const guint8 *data;
  gsize size = 0;

  if (contents == NULL)
    return NULL;
  data = g_bytes_get_data (contents, &size);
  sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, size);
  if (strcmp (sum, image->sha256) != 0)
    {
      g_autofree char *where = _gcuda_bundle_location_describe (location);

      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Kernel bundle %s: the SHA-256 of “%s” is %s, the manifest says %s (a damaged bundle)"), where,
                   image->file, sum, image->sha256);
      return NULL;
    }
  if (image->kind == GCUDA_BUNDLE_IMAGE_PTX || ((guintptr) data % 8) != 0)
    return bytes_copy (data, size, image->kind == GCUDA_BUNDLE_IMAGE_PTX);
  return g_steal_pointer (&contents);
}
