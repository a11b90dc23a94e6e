/* fuzz-bundle-manifest.c: libFuzzer harness for the kernel bundle manifest
 * parser (_gcuda_bundle_parse(), libgcuda/gcuda-kernel-bundle-private.c)
 *
 * The manifest comes with what an application ships (a GResource, a
 * directory), so the parser reads bytes GCuda did not make. Properties:
 *
 * - the verdict is the format's: an oracle written from the format's
 *   description (docs/shipping-kernels.md, "The manifest"), sharing no code
 *   with the parser, accepts exactly what the parser accepts; a difference
 *   aborts, naming the rule;
 * - an accepted manifest serializes back byte for byte
 *   (_gcuda_bundle_to_string(), which gcuda-compile writes with) and what
 *   the parser made of it is what the oracle read (kinds, architectures,
 *   names, sizes, digests, in order);
 * - a refused one is GCUDA_ERROR_INVALID_ARGUMENT with a non-empty UTF-8
 *   message, and the verdict does not depend on asking for a GError.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcuda.h>

#include "gcuda-kernel-bundle-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void G_GNUC_NORETURN G_GNUC_PRINTF (1, 2)
fail (const char *format,
      ...)
{
  va_list args;

  va_start (args, format);
  fprintf (stderr, "fuzz-bundle-manifest: ");
  vfprintf (stderr, format, args);
  fprintf (stderr, "\n");
  va_end (args);
  abort ();
}

/* ------------------------------------------------------------ the oracle */

#define MAX_MANIFEST 65536
#define MAX_LINE 512
#define MAX_NAME 128
#define MAX_IMAGES 64
#define MAX_IMAGE_SIZE 268435456ULL  /* 256 MiB */

typedef struct {
  int cubin;                 /* else PTX */
  unsigned long arch;
  char file[MAX_NAME + 1];
  unsigned long long size;
  char sha256[65];
} OracleImage;

typedef struct {
  char source[MAX_NAME + 1];
  unsigned long nvrtc_major, nvrtc_minor;
  unsigned n_images;
  OracleImage images[MAX_IMAGES];
  const char *why;           /* the rule broken, when refused */
} Oracle;

/* @n bytes of @s are a decimal number of 1 to @max_digits digits, without a
 * leading zero: its value in @value. */
static int
decimal (const char         *s,
         size_t              n,
         size_t              max_digits,
         unsigned long long *value)
{
  unsigned long long v = 0;

  if (n < 1 || n > max_digits || (n > 1 && s[0] == '0'))
    return 0;
  for (size_t i = 0; i < n; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return 0;
      v = v * 10 + (unsigned long long) (s[i] - '0');
    }
  *value = v;
  return 1;
}

/* A file name: letters, digits and "._+-", not starting with '.', at most
 * 128 bytes, and not the manifest's own name. */
static int
file_name (const char *s,
           size_t      n)
{
  if (n < 1 || n > MAX_NAME || s[0] == '.')
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
          s[i] == '.' || s[i] == '_' || s[i] == '+' || s[i] == '-'))
      return 0;
  return !(n == 8 && memcmp (s, "manifest", 8) == 0);
}

typedef struct {
  const char *at;
  size_t len;
} Field;

/* Splits @line (@n bytes) at single spaces into at most @max fields;
 * returns their number, or 0 when the line has more fields, or an empty one. */
static unsigned
split (const char *line,
       size_t      n,
       Field      *fields,
       unsigned    max)
{
  unsigned count = 0;
  size_t start = 0;

  for (size_t i = 0; i <= n; i++)
    if (i == n || line[i] == ' ')
      {
        if (i == start || count == max)
          return 0;
        fields[count].at = line + start;
        fields[count].len = i - start;
        count++;
        start = i + 1;
      }
  return count;
}

static int
is (const Field *f,
    const char  *text)
{
  return f->len == strlen (text) && memcmp (f->at, text, f->len) == 0;
}

static int
refuse (Oracle     *o,
        const char *why)
{
  o->why = why;
  return 0;
}

/* The format of docs/shipping-kernels.md: TRUE when @data is a manifest,
 * with what it says in @o. */
static int
oracle_accepts (const char *data,
                size_t      size,
                Oracle     *o)
{
  size_t pos = 0;
  unsigned line = 0;
  int ended = 0;

  memset (o, 0, sizeof *o);
  if (size == 0 || size > MAX_MANIFEST)
    return refuse (o, "empty or larger than 64 KiB");
  if (data[size - 1] != '\n')
    return refuse (o, "the last line has no newline");
  while (pos < size)
    {
      const char *text = data + pos;
      const char *nl = memchr (text, '\n', size - pos);
      size_t n = (size_t) (nl - text);
      Field f[8];
      unsigned count;

      line++;
      if (ended)
        return refuse (o, "a line after end");
      if (n == 0 || n > MAX_LINE)
        return refuse (o, "an empty line, or longer than 512 bytes");
      for (size_t i = 0; i < n; i++)
        if ((unsigned char) text[i] < 0x20 || (unsigned char) text[i] > 0x7e)
          return refuse (o, "not printable ASCII");
      count = split (text, n, f, 8);
      if (count == 0)
        return refuse (o, "fields not separated by exactly one space");
      pos += n + 1;

      if (line == 1)
        {
          if (count != 2 || !is (&f[0], "gcuda-kernel-bundle") || !is (&f[1], "1"))
            return refuse (o, "the first line is not the format and version 1");
        }
      else if (line == 2)
        {
          if (count != 2 || !is (&f[0], "source") || !file_name (f[1].at, f[1].len))
            return refuse (o, "the second line is not source NAME");
          memcpy (o->source, f[1].at, f[1].len);
        }
      else if (line == 3)
        {
          const char *dot;
          unsigned long long major, minor;

          if (count != 2 || !is (&f[0], "nvrtc") || (dot = memchr (f[1].at, '.', f[1].len)) == NULL ||
              !decimal (f[1].at, (size_t) (dot - f[1].at), 3, &major) || major == 0 ||
              !decimal (dot + 1, f[1].len - (size_t) (dot - f[1].at) - 1, 3, &minor))
            return refuse (o, "the third line is not nvrtc MAJOR.MINOR");
          o->nvrtc_major = (unsigned long) major;
          o->nvrtc_minor = (unsigned long) minor;
        }
      else if (count == 1 && is (&f[0], "end"))
        {
          if (o->n_images == 0)
            return refuse (o, "end before any image");
          ended = 1;
        }
      else
        {
          OracleImage *image;
          const char *prefix;
          unsigned long long arch, bytes;

          if (count != 6 || !is (&f[0], "image"))
            return refuse (o, "neither an image line nor end");
          if (o->n_images == MAX_IMAGES)
            return refuse (o, "more than 64 images");
          image = &o->images[o->n_images];
          if (is (&f[1], "cubin"))
            image->cubin = 1, prefix = "sm_";
          else if (is (&f[1], "ptx"))
            image->cubin = 0, prefix = "compute_";
          else
            return refuse (o, "an image kind other than cubin and ptx");
          if (f[2].len <= strlen (prefix) || memcmp (f[2].at, prefix, strlen (prefix)) != 0 ||
              !decimal (f[2].at + strlen (prefix), f[2].len - strlen (prefix), 4, &arch) || arch < 10)
            return refuse (o, "an architecture that is not sm_XY (cubin) or compute_XY (ptx)");
          image->arch = (unsigned long) arch;
          if (!file_name (f[3].at, f[3].len))
            return refuse (o, "an invalid image file name");
          memcpy (image->file, f[3].at, f[3].len);
          if (!decimal (f[4].at, f[4].len, 10, &bytes) || bytes == 0 || bytes > MAX_IMAGE_SIZE)
            return refuse (o, "a size outside 1 byte to 256 MiB");
          image->size = bytes;
          if (f[5].len != 64)
            return refuse (o, "a SHA-256 that is not 64 digits");
          for (size_t i = 0; i < 64; i++)
            if (!((f[5].at[i] >= '0' && f[5].at[i] <= '9') || (f[5].at[i] >= 'a' && f[5].at[i] <= 'f')))
              return refuse (o, "a SHA-256 that is not lowercase hexadecimal");
          memcpy (image->sha256, f[5].at, 64);
          for (unsigned i = 0; i < o->n_images; i++)
            {
              if (o->images[i].cubin == image->cubin && o->images[i].arch == image->arch)
                return refuse (o, "two images of one kind and architecture");
              if (strcmp (o->images[i].file, image->file) == 0)
                return refuse (o, "one file named twice");
            }
          o->n_images++;
        }
    }
  if (!ended)
    return refuse (o, "no end line");
  return 1;
}

/* ------------------------------------------------------------ the harness */

static void
check_refusal (const GError *error,
               const char   *data,
               size_t        size)
{
  if (error == NULL)
    fail ("refused without an error");
  if (error->domain != GCUDA_ERROR || error->code != GCUDA_ERROR_INVALID_ARGUMENT)
    fail ("refused with %s %d, not GCUDA_ERROR_INVALID_ARGUMENT: %s", g_quark_to_string (error->domain),
          error->code, error->message);
  if (error->message == NULL || error->message[0] == '\0' || !g_utf8_validate (error->message, -1, NULL))
    fail ("refused with an empty or invalid message");
  (void) data, (void) size;
}

static void
check_bundle (const GCudaBundle *bundle,
              const Oracle      *o,
              const char        *data,
              size_t             size)
{
  g_autofree char *text = _gcuda_bundle_to_string (bundle);

  if (strlen (text) != size || memcmp (text, data, size) != 0)
    fail ("an accepted manifest of %zu bytes serializes to %zu other bytes:\n%s", size, strlen (text), text);
  if (strcmp (bundle->source, o->source) != 0 || bundle->nvrtc_major != o->nvrtc_major ||
      bundle->nvrtc_minor != o->nvrtc_minor || bundle->images->len != o->n_images)
    fail ("the parser read another source, NVRTC version or number of images");
  for (unsigned i = 0; i < o->n_images; i++)
    {
      const GCudaBundleImage *image = g_ptr_array_index (bundle->images, i);
      const OracleImage *expected = &o->images[i];

      if ((image->kind == GCUDA_BUNDLE_IMAGE_CUBIN) != expected->cubin || image->arch != expected->arch ||
          strcmp (image->file, expected->file) != 0 || image->size != expected->size ||
          strcmp (image->sha256, expected->sha256) != 0)
        fail ("image %u: the parser read something else than the line says", i + 1);
      if (image->size == 0 || image->size > GCUDA_BUNDLE_MAX_IMAGE_SIZE || image->arch < 10 ||
          image->arch > GCUDA_BUNDLE_MAX_ARCH || !_gcuda_bundle_file_name_is_valid (image->file))
        fail ("image %u breaks a rule of the format", i + 1);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *text = (const char *) data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaBundle) bundle = NULL;
  g_autoptr(GCudaBundle) quiet = NULL;
  Oracle *oracle = g_new0 (Oracle, 1);
  int valid = oracle_accepts (text, size, oracle);

  bundle = _gcuda_bundle_parse (text, size, &error);
  quiet = _gcuda_bundle_parse (text, size, NULL);
  if ((bundle == NULL) != (quiet == NULL))
    fail ("the verdict depends on asking for a GError");
  if (bundle != NULL)
    {
      if (error != NULL)
        fail ("accepted with an error set: %s", error->message);
      if (!valid)
        fail ("accepted a manifest the format refuses: %s", oracle->why);
      check_bundle (bundle, oracle, text, size);
    }
  else
    {
      check_refusal (error, text, size);
      if (valid)
        fail ("refused a manifest the format accepts: %s", error->message);
    }
  g_free (oracle);
  return 0;
}
