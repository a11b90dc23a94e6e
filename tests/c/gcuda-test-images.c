/* gcuda-test-images.c: module images made by hand for the image checker's
 * tests and the fuzzer's seeds
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <string.h>

#include "gcuda-test-images.h"

/* ------------------------------------------------------------ bytes */

guint64
test_image_get (const guint8 *data,
                gsize         offset,
                guint         bytes)
{
  guint64 v = 0;

  for (guint i = 0; i < bytes; i++)
    v |= (guint64) data[offset + i] << (8 * i);
  return v;
}

void
test_image_set (guint8  *data,
                gsize    offset,
                guint    bytes,
                guint64  value)
{
  for (guint i = 0; i < bytes; i++)
    data[offset + i] = (guint8) (value >> (8 * i));
}

static GByteArray *
copy_of (GBytes *bytes)
{
  GByteArray *a = g_byte_array_new ();

  g_byte_array_append (a, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  return a;
}

static GBytes *
done (GByteArray *a)
{
  return g_byte_array_free_to_bytes (a);
}

static void
pad_to (GByteArray *a,
        guint       alignment)
{
  static const guint8 zeros[16] = { 0 };

  while (a->len % alignment != 0)
    g_byte_array_append (a, zeros, 1);
}

/* ------------------------------------------------------------ sources */

static GBytes *
compile (const char       *source,
         guint             arch,
         GCudaProgramKind  kind)
{
  g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
  g_autoptr(GCudaProgram) program = NULL;
  g_autofree char *arch_name = g_strdup_printf ("sm_%u", arch);
  GError *error = NULL;

  gcuda_compiler_set_arch (compiler, arch_name);
  gcuda_compiler_set_cache_dir (compiler, "");
  gcuda_compiler_set_target (compiler, kind);
  program = gcuda_compiler_compile (compiler, source, &error);
  if (program == NULL)
    g_error ("the crafted images' source does not compile for %s: %s", arch_name, error->message);
  return g_bytes_ref (gcuda_program_get_image (program));
}

void
test_images_init (TestImages *images,
                  const char *source,
                  guint       arch)
{
  images->cubin = compile (source, arch, GCUDA_PROGRAM_KIND_CUBIN);
  images->ptx = compile (source, arch, GCUDA_PROGRAM_KIND_PTX);
  images->arch = arch;
}

void
test_images_clear (TestImages *images)
{
  g_clear_pointer (&images->cubin, g_bytes_unref);
  g_clear_pointer (&images->ptx, g_bytes_unref);
}

/* ------------------------------------------------------------ compression */

/* One LZ4 sequence of literals only: a valid block (its last sequence) of
 * any size. */
static void
lz4_store (GByteArray   *out,
           const guint8 *data,
           gsize         size)
{
  guint8 token = (guint8) (MIN (size, 15) << 4);

  g_byte_array_append (out, &token, 1);
  if (size >= 15)
    {
      gsize rest = size - 15;
      guint8 b = 255;

      for (; rest >= 255; rest -= 255)
        g_byte_array_append (out, &b, 1);
      b = (guint8) rest;
      g_byte_array_append (out, &b, 1);
    }
  g_byte_array_append (out, data, size);
}

/* A Zstandard frame (RFC 8878) of raw blocks: single segment, a 4-byte
 * content size, no checksum. */
static void
zstd_store (GByteArray   *out,
            const guint8 *data,
            gsize         size)
{
  guint8 header[9] = { 0x28, 0xb5, 0x2f, 0xfd, 0xa0 };
  gsize at = 0;

  test_image_set (header, 5, 4, size);
  g_byte_array_append (out, header, sizeof header);
  do
    {
      gsize block = MIN (size - at, 128 * 1024);
      guint8 h[3];

      test_image_set (h, 0, 3, (at + block == size ? 1 : 0) | (block << 3));
      g_byte_array_append (out, h, 3);
      g_byte_array_append (out, data + at, block);
      at += block;
    }
  while (at < size);
}

/* ------------------------------------------------------------ fatbins */

/* The PTX ISA version of @ptx's .version directive, as major << 16 | minor
 * (0 without one). @ptx need not be NUL-terminated. */
static guint
ptx_version (GBytes *ptx)
{
  gsize size = 0;
  const char *text = g_bytes_get_data (ptx, &size);
  const char *v = g_strstr_len (text, size, ".version ");
  char line[16] = { 0 };
  guint major = 0, minor = 0;

  if (v != NULL)
    {
      memcpy (line, v + 9, MIN (sizeof line - 1, size - (gsize) (v + 9 - text)));
      sscanf (line, "%u.%u", &major, &minor);
    }
  return major << 16 | minor;
}

GBytes *
test_fatbin_new (const TestFatbinEntry *entries,
                 guint                  n)
{
  GByteArray *out = g_byte_array_new ();
  guint8 header[16] = { 0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00 };

  g_byte_array_append (out, header, sizeof header);
  for (guint i = 0; i < n; i++)
    {
      const TestFatbinEntry *e = &entries[i];
      g_autoptr(GByteArray) h = g_byte_array_new ();
      g_autoptr(GByteArray) payload = g_byte_array_new ();
      const guint8 *content = g_bytes_get_data (e->content, NULL);
      gsize size = g_bytes_get_size (e->content);
      guint64 flags = 0x11;  /* 64-bit, Linux */
      gsize stored;

      /* Compressed PTX leaves its NUL out, as fatbinary does. */
      if (e->kind == 1 && e->compression != TEST_COMPRESS_NONE)
        size = strnlen ((const char *) content, size);
      if (e->compression == TEST_COMPRESS_LZ4)
        {
          lz4_store (payload, content, size);
          flags |= 0x2000;
        }
      else if (e->compression == TEST_COMPRESS_ZSTD)
        {
          zstd_store (payload, content, size);
          flags |= 0x8000;
        }
      else
        g_byte_array_append (payload, content, size);
      stored = payload->len;
      pad_to (payload, 8);

      g_byte_array_set_size (h, 64);
      memset (h->data, 0, 64);
      test_image_set (h->data, 0, 2, e->kind);
      test_image_set (h->data, 2, 2, 0x0101);
      if (e->kind == 1)
        {
          test_image_set (h->data, 24, 2, ptx_version (e->content) & 0xffff);
          test_image_set (h->data, 26, 2, ptx_version (e->content) >> 16);
        }
      else
        {
          test_image_set (h->data, 24, 2, 8);
          test_image_set (h->data, 26, 2, 1);
        }
      test_image_set (h->data, 28, 4, e->arch);
      test_image_set (h->data, TEST_ENTRY_FLAGS, 8, flags);
      if (e->compression != TEST_COMPRESS_NONE)
        {
          test_image_set (h->data, TEST_ENTRY_COMPRESSED_SIZE, 4, stored);
          test_image_set (h->data, TEST_ENTRY_DECOMPRESSED_SIZE, 8, size);
        }
      if (e->name != NULL)
        {
          test_image_set (h->data, TEST_ENTRY_NAME_OFFSET, 4, h->len);
          test_image_set (h->data, TEST_ENTRY_NAME_LENGTH, 4, strlen (e->name));
          g_byte_array_append (h, (const guint8 *) e->name, strlen (e->name) + 1);
          pad_to (h, 8);
        }
      /* PTX entries describe their JIT options (possibly none) as an
       * (offset, length) pair inside the header. */
      if (e->kind == 1)
        {
          const char *options = e->options != NULL ? e->options : "";
          guint8 pair[8];

          test_image_set (h->data, TEST_ENTRY_OPTIONS, 4, h->len);
          test_image_set (pair, 0, 4, h->len + 8);
          test_image_set (pair, 4, 4, strlen (options));
          g_byte_array_append (h, pair, 8);
          g_byte_array_append (h, (const guint8 *) options, strlen (options) + 1);
          pad_to (h, 8);
        }
      test_image_set (h->data, TEST_ENTRY_HEADER_SIZE, 4, h->len);
      test_image_set (h->data, TEST_ENTRY_PAYLOAD_SIZE, 8, payload->len);

      g_byte_array_append (out, h->data, h->len);
      g_byte_array_append (out, payload->data, payload->len);
    }
  test_image_set (out->data, 8, 8, out->len - 16);
  return done (out);
}

/* ------------------------------------------------------------ valid images */

static GBytes *
make_cubin (const TestImages *images)
{
  return g_bytes_ref (images->cubin);
}

static GBytes *
make_ptx (const TestImages *images)
{
  return g_bytes_ref (images->ptx);
}

static GBytes *
fatbin2 (const TestImages *images,
         TestCompression   cubin,
         TestCompression   ptx)
{
  TestFatbinEntry e[2] = {
    { 2, images->cubin, cubin, images->arch, NULL, NULL },
    { 1, images->ptx, ptx, images->arch, NULL, NULL },
  };

  return test_fatbin_new (e, 2);
}

static GBytes *
make_fatbin (const TestImages *images)
{
  return fatbin2 (images, TEST_COMPRESS_NONE, TEST_COMPRESS_NONE);
}

static GBytes *
make_fatbin_lz4 (const TestImages *images)
{
  return fatbin2 (images, TEST_COMPRESS_LZ4, TEST_COMPRESS_LZ4);
}

static GBytes *
make_fatbin_zstd (const TestImages *images)
{
  return fatbin2 (images, TEST_COMPRESS_ZSTD, TEST_COMPRESS_ZSTD);
}

static GBytes *
make_fatbin_named (const TestImages *images)
{
  TestFatbinEntry e[2] = {
    { 2, images->cubin, TEST_COMPRESS_NONE, images->arch, "kernels.cu", NULL },
    { 1, images->ptx, TEST_COMPRESS_NONE, images->arch, "kernels.cu", "-O3" },
  };

  return test_fatbin_new (e, 2);
}

/* PTX only: the driver compiles it. */
static GBytes *
make_fatbin_ptx (const TestImages *images)
{
  TestFatbinEntry e = { 1, images->ptx, TEST_COMPRESS_NONE, images->arch, NULL, NULL };

  return test_fatbin_new (&e, 1);
}

static GBytes *
make_fatbin_ptx_zstd (const TestImages *images)
{
  TestFatbinEntry e = { 1, images->ptx, TEST_COMPRESS_ZSTD, images->arch, NULL, NULL };

  return test_fatbin_new (&e, 1);
}

const TestCraftedImage test_valid_images[] = {
  { "cubin", NULL, make_cubin },
  { "ptx", NULL, make_ptx },
  { "fatbin", NULL, make_fatbin },
  { "fatbin-named", NULL, make_fatbin_named },
  { "fatbin-lz4", NULL, make_fatbin_lz4 },
  { "fatbin-zstd", NULL, make_fatbin_zstd },
  { "fatbin-ptx", NULL, make_fatbin_ptx },
  { "fatbin-ptx-zstd", NULL, make_fatbin_ptx_zstd },
  { NULL }
};

/* ------------------------------------------------------------ ELF surgery */

enum {
  SHT_SYMTAB_ = 2,
  SHT_STRTAB_ = 3,
  SHT_RELA_ = 4,
  SHT_NOBITS_ = 8,
  SHT_REL_ = 9,
  SHT_CUDA_INFO_ = 0x70000000,
};

static gsize
shdr (const guint8 *elf,
      guint         index)
{
  return test_image_get (elf, 40, 8) + (gsize) index * 64;
}

static guint
shnum (const guint8 *elf)
{
  return test_image_get (elf, 60, 2);
}

static guint64
sh_get (const guint8 *elf,
        guint         index,
        gsize         field,
        guint         bytes)
{
  return test_image_get (elf, shdr (elf, index) + field, bytes);
}

static void
sh_set (guint8  *elf,
        guint    index,
        gsize    field,
        guint    bytes,
        guint64  value)
{
  test_image_set (elf, shdr (elf, index) + field, bytes, value);
}

/* The first section of @type; the cubins made here all have one of
 * each type asked for (the tests assert it). */
static guint
section_of_type (const guint8 *elf,
                 guint32       type)
{
  for (guint i = 1; i < shnum (elf); i++)
    if (sh_get (elf, i, 4, 4) == type)
      return i;
  g_error ("the crafted images' cubin has no section of type %#x", type);
  return 0;
}

/* Field offsets in section headers */
enum { SH_NAME = 0, SH_TYPE = 4, SH_OFFSET = 24, SH_SIZE = 32, SH_LINK = 40, SH_INFO = 44, SH_ENTSIZE = 56 };

/* ------------------------------------------------------------ damaged cubins */

/* Audit: a section name at the end of the section names table, whose NUL
 * is gone: the driver reads on past the table. */
static GBytes *
damage_section_name_unterminated (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint names = test_image_get (a->data, 62, 2);
  guint64 offset = sh_get (a->data, names, SH_OFFSET, 8), size = sh_get (a->data, names, SH_SIZE, 8);

  a->data[offset + size - 1] = 'X';
  sh_set (a->data, 1, SH_NAME, 4, size - 1);
  return done (a);
}

static GBytes *
damage_section_name_outside (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint names = test_image_get (a->data, 62, 2);

  /* past the table, still inside the data */
  sh_set (a->data, 2, SH_NAME, 4, sh_get (a->data, names, SH_SIZE, 8) + 8);
  return done (a);
}

/* Audit: a symbol's name at the end of its string table, whose NUL is
 * gone. */
static GBytes *
damage_symbol_name_unterminated (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint symtab = section_of_type (a->data, SHT_SYMTAB_);
  guint strtab = sh_get (a->data, symtab, SH_LINK, 4);
  guint64 offset = sh_get (a->data, strtab, SH_OFFSET, 8), size = sh_get (a->data, strtab, SH_SIZE, 8);
  guint64 symbols = sh_get (a->data, symtab, SH_OFFSET, 8);

  a->data[offset + size - 1] = 'X';
  test_image_set (a->data, symbols + 24 * 1, 4, size - 1);
  return done (a);
}

static GBytes *
damage_symbol_name_outside (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint symtab = section_of_type (a->data, SHT_SYMTAB_);

  test_image_set (a->data, sh_get (a->data, symtab, SH_OFFSET, 8) + 24 * 1, 4, 0xfffffff0);
  return done (a);
}

/* Audit: e_shnum 0 (extended numbering: the count in section 0), e_shoff
 * far past the end and e_shstrndx SHN_XINDEX. */
static GBytes *
damage_shnum_zero (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);

  test_image_set (a->data, 40, 8, G_GUINT64_CONSTANT (0x7fffffff00000000));
  test_image_set (a->data, 60, 2, 0);
  test_image_set (a->data, 62, 2, 0xffff);
  return done (a);
}

static GBytes *
damage_shstrndx_xindex (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);

  test_image_set (a->data, 62, 2, 0xffff);
  return done (a);
}

static GBytes *
damage_shstrndx_outside (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);

  test_image_set (a->data, 62, 2, shnum (a->data) + 3);
  return done (a);
}

/* A section names table whose bytes are not in the file. */
static GBytes *
damage_names_nobits (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint names = test_image_get (a->data, 62, 2);

  sh_set (a->data, names, SH_TYPE, 4, SHT_NOBITS_);
  sh_set (a->data, names, SH_OFFSET, 8, G_GUINT64_CONSTANT (1) << 40);
  return done (a);
}

static GBytes *
damage_truncated (const TestImages *images)
{
  return g_bytes_new_from_bytes (images->cubin, 0, g_bytes_get_size (images->cubin) / 2);
}

static GBytes *
damage_header_only (const TestImages *images)
{
  return g_bytes_new_from_bytes (images->cubin, 0, 64);
}

static GBytes *
damage_section_outside (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint symtab = section_of_type (a->data, SHT_SYMTAB_);

  sh_set (a->data, symtab, SH_OFFSET, 8, a->len - 8);
  return done (a);
}

static GBytes *
damage_section_size_wraps (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint symtab = section_of_type (a->data, SHT_SYMTAB_);

  /* offset + size wraps around to a small number */
  sh_set (a->data, symtab, SH_SIZE, 8, G_MAXUINT64 - sh_get (a->data, symtab, SH_OFFSET, 8) + 16);
  return done (a);
}

static GBytes *
damage_section_link (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);

  sh_set (a->data, section_of_type (a->data, SHT_CUDA_INFO_), SH_LINK, 4, shnum (a->data) + 100);
  return done (a);
}

static GBytes *
damage_symtab_entsize (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);

  sh_set (a->data, section_of_type (a->data, SHT_SYMTAB_), SH_ENTSIZE, 8, 0);
  return done (a);
}

static GBytes *
damage_symtab_strings (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint symtab = section_of_type (a->data, SHT_SYMTAB_);

  /* its names in itself */
  sh_set (a->data, symtab, SH_LINK, 4, symtab);
  return done (a);
}

static GBytes *
damage_symbol_section (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint symtab = section_of_type (a->data, SHT_SYMTAB_);

  test_image_set (a->data, sh_get (a->data, symtab, SH_OFFSET, 8) + 24 * 1 + 6, 2, shnum (a->data) + 1);
  return done (a);
}

static GBytes *
damage_symbol_xindex (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint symtab = section_of_type (a->data, SHT_SYMTAB_);

  test_image_set (a->data, sh_get (a->data, symtab, SH_OFFSET, 8) + 24 * 1 + 6, 2, 0xffff);
  return done (a);
}

static guint
relocations (const guint8 *elf)
{
  for (guint i = 1; i < shnum (elf); i++)
    if (sh_get (elf, i, SH_TYPE, 4) == SHT_RELA_ || sh_get (elf, i, SH_TYPE, 4) == SHT_REL_)
      return i;
  g_error ("the crafted images' cubin has no relocations");
  return 0;
}

static GBytes *
damage_relocation_symbol (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint rel = relocations (a->data);

  /* r_info's high half: the symbol */
  test_image_set (a->data, sh_get (a->data, rel, SH_OFFSET, 8) + 8 + 4, 4, 0xfffff);
  return done (a);
}

static GBytes *
damage_relocation_offset (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint rel = relocations (a->data);
  guint target = sh_get (a->data, rel, SH_INFO, 4);

  test_image_set (a->data, sh_get (a->data, rel, SH_OFFSET, 8), 8, sh_get (a->data, target, SH_SIZE, 8));
  return done (a);
}

static GBytes *
damage_relocation_symbols (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint rel = relocations (a->data);

  /* its symbols in the section names table */
  sh_set (a->data, rel, SH_LINK, 4, test_image_get (a->data, 62, 2));
  return done (a);
}

/* An .nv.info record whose value is longer than the section. */
static GBytes *
damage_attribute (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint info = section_of_type (a->data, SHT_CUDA_INFO_);
  guint64 offset = sh_get (a->data, info, SH_OFFSET, 8);

  a->data[offset] = 4;  /* EIFMT_SVAL */
  test_image_set (a->data, offset + 2, 2, 0xfff0);
  return done (a);
}

static GBytes *
damage_attribute_format (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint info = section_of_type (a->data, SHT_CUDA_INFO_);

  a->data[sh_get (a->data, info, SH_OFFSET, 8)] = 9;
  return done (a);
}

static GBytes *
damage_elf32 (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);

  a->data[4] = 1;
  return done (a);
}

static GBytes *
damage_big_endian (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);

  a->data[5] = 2;
  return done (a);
}

static GBytes *
damage_machine (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);

  test_image_set (a->data, 18, 2, 62);  /* EM_X86_64 */
  return done (a);
}

static GBytes *
damage_shentsize (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);

  test_image_set (a->data, 58, 2, 40);  /* ELF32's */
  return done (a);
}

static GBytes *
damage_phnum_xnum (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);

  test_image_set (a->data, 56, 2, 0xffff);
  return done (a);
}

static GBytes *
damage_segment (const TestImages *images)
{
  GByteArray *a = copy_of (images->cubin);
  guint64 phoff = test_image_get (a->data, 32, 8);

  g_assert_cmpuint (test_image_get (a->data, 56, 2), >, 0);
  test_image_set (a->data, phoff + 32, 8, a->len);  /* p_filesz */
  test_image_set (a->data, phoff + 8, 8, 1);        /* p_offset */
  return done (a);
}

/* ------------------------------------------------------------ damaged fatbins */

/* Patches the first entry's @field of make_fatbin_* (@compression for both
 * entries). */
static GBytes *
fatbin_patched (const TestImages *images,
                TestCompression   compression,
                gsize             field,
                guint             bytes,
                guint64           value)
{
  g_autoptr(GBytes) fatbin = fatbin2 (images, compression, compression);
  GByteArray *a = copy_of (fatbin);

  test_image_set (a->data, TEST_FATBIN_FIRST_ENTRY + field, bytes, value);
  return done (a);
}

/* Audit: a compressed size (entry + 16) past the data. */
static GBytes *
damage_lz4_compressed_size (const TestImages *images)
{
  return fatbin_patched (images, TEST_COMPRESS_LZ4, TEST_ENTRY_COMPRESSED_SIZE, 4, 0xfffffff0);
}

static GBytes *
damage_zstd_compressed_size (const TestImages *images)
{
  return fatbin_patched (images, TEST_COMPRESS_ZSTD, TEST_ENTRY_COMPRESSED_SIZE, 4, 0xfffffff0);
}

/* Audit: a decompressed size (entry + 56) far beyond what the data can
 * decompress to. */
static GBytes *
damage_lz4_decompressed_size (const TestImages *images)
{
  return fatbin_patched (images, TEST_COMPRESS_LZ4, TEST_ENTRY_DECOMPRESSED_SIZE, 8,
                         G_GUINT64_CONSTANT (0x8000000000000000));
}

static GBytes *
damage_zstd_decompressed_size (const TestImages *images)
{
  return fatbin_patched (images, TEST_COMPRESS_ZSTD, TEST_ENTRY_DECOMPRESSED_SIZE, 8,
                         G_GUINT64_CONSTANT (0x8000000000000000));
}

static GBytes *
damage_lz4_decompressed_size_off_by_one (const TestImages *images)
{
  g_autoptr(GBytes) fatbin = fatbin2 (images, TEST_COMPRESS_LZ4, TEST_COMPRESS_LZ4);
  GByteArray *a = copy_of (fatbin);
  gsize field = TEST_FATBIN_FIRST_ENTRY + TEST_ENTRY_DECOMPRESSED_SIZE;

  test_image_set (a->data, field, 8, test_image_get (a->data, field, 8) + 1);
  return done (a);
}

static GBytes *
damage_decompressed_size_zero (const TestImages *images)
{
  return fatbin_patched (images, TEST_COMPRESS_ZSTD, TEST_ENTRY_DECOMPRESSED_SIZE, 8, 0);
}

static GBytes *
damage_both_compressions (const TestImages *images)
{
  return fatbin_patched (images, TEST_COMPRESS_LZ4, TEST_ENTRY_FLAGS, 8, 0xa011);
}

static GBytes *
damage_zstd_magic (const TestImages *images)
{
  g_autoptr(GBytes) fatbin = fatbin2 (images, TEST_COMPRESS_ZSTD, TEST_COMPRESS_ZSTD);
  GByteArray *a = copy_of (fatbin);
  gsize payload = TEST_FATBIN_FIRST_ENTRY + test_image_get (a->data, TEST_FATBIN_FIRST_ENTRY + 4, 4);

  a->data[payload] ^= 0xff;
  return done (a);
}

static GBytes *
damage_uncompressed_sizes (const TestImages *images)
{
  return fatbin_patched (images, TEST_COMPRESS_NONE, TEST_ENTRY_DECOMPRESSED_SIZE, 8, G_MAXUINT64);
}

static GBytes *
damage_uncompressed_compressed_size (const TestImages *images)
{
  return fatbin_patched (images, TEST_COMPRESS_NONE, TEST_ENTRY_COMPRESSED_SIZE, 4, 0xffffffff);
}

/* Audit: an uncompressed PTX entry without a NUL. */
static GBytes *
damage_ptx_entry_unterminated (const TestImages *images)
{
  gsize length = strnlen (g_bytes_get_data (images->ptx, NULL), g_bytes_get_size (images->ptx));
  g_autoptr(GBytes) text = g_bytes_new_from_bytes (images->ptx, 0, length & ~(gsize) 7);
  TestFatbinEntry e = { 1, text, TEST_COMPRESS_NONE, images->arch, NULL, NULL };

  return test_fatbin_new (&e, 1);
}

static GBytes *
damage_cubin_entry (const TestImages *images)
{
  g_autoptr(GBytes) half = damage_truncated (images);
  TestFatbinEntry e = { 2, half, TEST_COMPRESS_NONE, images->arch, NULL, NULL };

  return test_fatbin_new (&e, 1);
}

static GBytes *
damage_cubin_entry_not_elf (const TestImages *images)
{
  TestFatbinEntry e = { 2, images->ptx, TEST_COMPRESS_NONE, images->arch, NULL, NULL };

  return test_fatbin_new (&e, 1);
}

static GBytes *
damage_entry_header_small (const TestImages *images)
{
  return fatbin_patched (images, TEST_COMPRESS_NONE, TEST_ENTRY_HEADER_SIZE, 4, 32);
}

static GBytes *
damage_entry_header_large (const TestImages *images)
{
  return fatbin_patched (images, TEST_COMPRESS_NONE, TEST_ENTRY_HEADER_SIZE, 4, 0xffffff00);
}

static GBytes *
damage_entry_payload (const TestImages *images)
{
  return fatbin_patched (images, TEST_COMPRESS_NONE, TEST_ENTRY_PAYLOAD_SIZE, 8, G_MAXUINT64 - 8);
}

static GBytes *
damage_entry_name (const TestImages *images)
{
  g_autoptr(GBytes) fatbin = make_fatbin_named (images);
  GByteArray *a = copy_of (fatbin);

  test_image_set (a->data, TEST_FATBIN_FIRST_ENTRY + TEST_ENTRY_NAME_LENGTH, 4, 4096);
  return done (a);
}

static GBytes *
damage_entry_name_unterminated (const TestImages *images)
{
  g_autoptr(GBytes) fatbin = make_fatbin_named (images);
  GByteArray *a = copy_of (fatbin);
  gsize entry = TEST_FATBIN_FIRST_ENTRY;
  guint64 header = test_image_get (a->data, entry + TEST_ENTRY_HEADER_SIZE, 4);
  guint64 name = test_image_get (a->data, entry + TEST_ENTRY_NAME_OFFSET, 4);

  memset (a->data + entry + name, 'X', header - name);
  return done (a);
}

static GBytes *
damage_entry_options (const TestImages *images)
{
  g_autoptr(GBytes) fatbin = make_fatbin_named (images);
  GByteArray *a = copy_of (fatbin);
  gsize entry = TEST_FATBIN_FIRST_ENTRY;

  /* the second entry (PTX): its options' offset */
  entry += test_image_get (a->data, entry + TEST_ENTRY_HEADER_SIZE, 4) +
           test_image_get (a->data, entry + TEST_ENTRY_PAYLOAD_SIZE, 8);
  test_image_set (a->data, entry + test_image_get (a->data, entry + TEST_ENTRY_OPTIONS, 4), 4, 0x10000);
  return done (a);
}

static GBytes *
damage_entry_options_pair (const TestImages *images)
{
  g_autoptr(GBytes) fatbin = make_fatbin_ptx (images);
  GByteArray *a = copy_of (fatbin);

  test_image_set (a->data, TEST_FATBIN_FIRST_ENTRY + TEST_ENTRY_OPTIONS, 4, 0xfffffff8);
  return done (a);
}

static GBytes *
damage_fatbin_size (const TestImages *images)
{
  g_autoptr(GBytes) fatbin = make_fatbin (images);
  GByteArray *a = copy_of (fatbin);

  test_image_set (a->data, 8, 8, G_MAXUINT64 - 8);
  return done (a);
}

static GBytes *
damage_fatbin_truncated (const TestImages *images)
{
  g_autoptr(GBytes) fatbin = make_fatbin (images);

  return g_bytes_new_from_bytes (fatbin, 0, g_bytes_get_size (fatbin) - 100);
}

static GBytes *
damage_fatbin_version (const TestImages *images)
{
  g_autoptr(GBytes) fatbin = make_fatbin (images);
  GByteArray *a = copy_of (fatbin);

  test_image_set (a->data, 4, 2, 2);
  return done (a);
}

static GBytes *
damage_fatbin_empty (const TestImages *images)
{
  static const guint8 empty[16] = { 0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00 };

  return g_bytes_new (empty, sizeof empty);
}

static GBytes *
damage_fatbin_entry_cut (const TestImages *images)
{
  g_autoptr(GBytes) fatbin = make_fatbin (images);
  GByteArray *a = copy_of (fatbin);

  /* 32 bytes of a third entry */
  g_byte_array_set_size (a, a->len + 32);
  memset (a->data + a->len - 32, 0, 32);
  test_image_set (a->data, 8, 8, a->len - 16);
  return done (a);
}

/* ------------------------------------------------------------ damaged PTX */

static GBytes *
damage_ptx_unterminated (const TestImages *images)
{
  return g_bytes_new_from_bytes (images->ptx, 0,
                                 strnlen (g_bytes_get_data (images->ptx, NULL), g_bytes_get_size (images->ptx)));
}

static GBytes *
damage_text (const TestImages *images)
{
  static const char text[] = "no device code here";

  return g_bytes_new_static (text, sizeof text);
}

#define CUBIN_NAME "*The name of the cubin's section * is not a NUL-terminated string inside that table*"
#define SYMBOL_NAME "*The name of symbol 1 in the cubin's section * is not a NUL-terminated string inside that table*"

const TestCraftedImage test_damaged_images[] = {
  /* the audit's findings */
  { "section-name-unterminated", CUBIN_NAME, damage_section_name_unterminated },
  { "section-name-outside", CUBIN_NAME, damage_section_name_outside },
  { "symbol-name-unterminated", SYMBOL_NAME, damage_symbol_name_unterminated },
  { "symbol-name-outside", SYMBOL_NAME, damage_symbol_name_outside },
  { "shnum-zero-xindex", "*no section headers (e_shnum is 0)*", damage_shnum_zero },
  { "fatbin-lz4-compressed-size", "*entry 0 (at byte 16): Its compressed size (4294967280 bytes) is larger than its payload*",
    damage_lz4_compressed_size },
  { "fatbin-zstd-compressed-size", "*entry 0 (at byte 16): Its compressed size (4294967280 bytes) is larger than its payload*",
    damage_zstd_compressed_size },
  { "fatbin-lz4-decompressed-size", "*entry 0 (at byte 16): Its LZ4 data * does not decompress to the 9223372036854775808 bytes*",
    damage_lz4_decompressed_size },
  { "fatbin-zstd-decompressed-size", "*entry 0 (at byte 16): Its Zstandard data * cannot decompress to the 9223372036854775808 bytes*",
    damage_zstd_decompressed_size },
  { "fatbin-ptx-unterminated", "*entry 0 (at byte 16): Its PTX is not NUL-terminated inside its payload*",
    damage_ptx_entry_unterminated },
  /* the other checks, one image each */
  { "shstrndx-xindex", "*section names table index is SHN_XINDEX*", damage_shstrndx_xindex },
  { "shstrndx-outside", "*section names table index (*) is not one of its * sections*", damage_shstrndx_outside },
  { "names-nobits", "*section names table (section *) is not a string table (its type is 8)*", damage_names_nobits },
  { "cubin-truncated", "*reach* past the end of its * bytes*", damage_truncated },
  { "cubin-header-only", "*section headers at byte * reach past the end of its 64 bytes*", damage_header_only },
  { "section-outside", "*The cubin's section * reaches past the end of its * bytes*", damage_section_outside },
  { "section-size-wraps", "*The cubin's section * reaches past the end of its * bytes*", damage_section_size_wraps },
  { "section-link", "*The cubin's section * links to section *, but it has * sections*", damage_section_link },
  { "symtab-entsize", "*symbol table (section *) is not a whole number of 24-byte symbols*", damage_symtab_entsize },
  { "symtab-strings", "*symbol table (section *) takes its names from section *, which is not a string table*",
    damage_symtab_strings },
  { "symbol-section", "*Symbol 1 in the cubin's section * is in section *, but the cubin has * sections*",
    damage_symbol_section },
  { "symbol-xindex", "*Symbol 1 in the cubin's section * uses extended section numbering*", damage_symbol_xindex },
  { "relocation-symbol", "*Relocation 0 in the cubin's section * refers to symbol 1048575*", damage_relocation_symbol },
  { "relocation-offset", "*Relocation 0 in the cubin's section * patches byte *", damage_relocation_offset },
  { "relocation-symbols", "*relocation section * takes its symbols from section *, which is not a symbol table*",
    damage_relocation_symbols },
  { "attribute-size", "*attribute record at byte 0 of the cubin's section * says it has 65520 bytes*", damage_attribute },
  { "attribute-format", "*attribute record at byte 0 of the cubin's section * has an unknown format (9)*",
    damage_attribute_format },
  { "elf32", "*not a 64-bit ELF file*", damage_elf32 },
  { "big-endian", "*not a little-endian ELF file*", damage_big_endian },
  { "machine", "*not a CUDA cubin: its machine is 62*", damage_machine },
  { "shentsize", "*section headers are 40 bytes each, not 64*", damage_shentsize },
  { "phnum-xnum", "*program header count is PN_XNUM*", damage_phnum_xnum },
  { "segment", "*segment 0 (* bytes at byte 1) reaches past the end*", damage_segment },
  { "fatbin-lz4-decompressed-size-plus-one", "*Its LZ4 data * does not decompress to the*",
    damage_lz4_decompressed_size_off_by_one },
  { "fatbin-decompressed-size-zero", "*It is compressed, but its compressed size * or its decompressed size (0 bytes) is 0*",
    damage_decompressed_size_zero },
  { "fatbin-both-compressions", "*both with LZ4 and with Zstandard*", damage_both_compressions },
  { "fatbin-zstd-magic", "*Its Zstandard data * is damaged*", damage_zstd_magic },
  { "fatbin-uncompressed-decompressed-size", "*It is not compressed, but its decompressed size *",
    damage_uncompressed_sizes },
  { "fatbin-uncompressed-compressed-size", "*Its compressed size (4294967295 bytes) is larger than its payload*",
    damage_uncompressed_compressed_size },
  { "fatbin-cubin-entry-damaged", "*entry 0 (at byte 16): The cubin's * reach past the end*", damage_cubin_entry },
  { "fatbin-cubin-entry-not-elf", "*entry 0 (at byte 16): The cubin is not an ELF file*", damage_cubin_entry_not_elf },
  { "fatbin-entry-header-small", "*entry 0 (at byte 16) has a header of 32 bytes*", damage_entry_header_small },
  { "fatbin-entry-header-large", "*entry 0 (at byte 16) has a header of 4294967040 bytes*", damage_entry_header_large },
  { "fatbin-entry-payload", "*entry 0 (at byte 16) has a payload of * bytes, but only * are left*", damage_entry_payload },
  { "fatbin-entry-name", "*Its name (4096 bytes at byte 64 of its 80-byte header)*", damage_entry_name },
  { "fatbin-entry-name-unterminated", "*Its name (10 bytes at byte 64 of its 80-byte header)*",
    damage_entry_name_unterminated },
  { "fatbin-entry-options", "*entry 1 (at byte *): Its JIT options*", damage_entry_options },
  { "fatbin-entry-options-pair", "*Its JIT options (described at byte 4294967288 of its 80-byte header)*",
    damage_entry_options_pair },
  { "fatbin-size", "*The fatbin says it has * bytes of entries after its 16-byte header*", damage_fatbin_size },
  { "fatbin-truncated", "*The fatbin says it has * bytes of entries*truncated or damaged*", damage_fatbin_truncated },
  { "fatbin-version", "*The fatbin's version is 2*", damage_fatbin_version },
  { "fatbin-no-entries", "*The fatbin has no entries*", damage_fatbin_empty },
  { "fatbin-entry-cut", "*entry 2 (at byte *) is cut short*", damage_fatbin_entry_cut },
  { "ptx-unterminated", "*The PTX is not NUL-terminated*", damage_ptx_unterminated },
  { "text", "*neither a cubin, a fatbin nor PTX*", damage_text },
  { NULL }
};
