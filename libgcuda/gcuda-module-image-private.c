/* gcuda-module-image-private.c: the module image checker
 *
 * cuModuleLoadDataEx() takes an image without its size and trusts the
 * offsets, sizes and strings inside it, so a truncated or forged image
 * makes it read past the caller's data (or wherever a garbage offset
 * points). Everything the driver follows is checked against the data's
 * size first. This is the whole promise (docs/kernels.md repeats it):
 *
 * A cubin (an ELF file):
 *  - the ELF header: 64 bytes, ELFCLASS64, little-endian, machine EM_CUDA;
 *  - the section header table: present (e_shnum > 0), 64-byte entries,
 *    inside the data; extended numbering (e_shnum 0, e_shstrndx
 *    SHN_XINDEX, e_phnum PN_XNUM, symbols in section SHN_XINDEX) is
 *    refused, as no cubin needs it;
 *  - the program header table: 56-byte entries inside the data, and every
 *    segment's file bytes inside the data;
 *  - every section but SHT_NOBITS ones: its bytes inside the data; its
 *    sh_link a section index, and its sh_info too when SHF_INFO_LINK says
 *    that it is one;
 *  - the section names table: e_shstrndx is a string table section, and
 *    every section's name starts in it and ends with a NUL in it;
 *  - symbol tables (SHT_SYMTAB, SHT_DYNSYM): 24-byte entries, a whole
 *    number of them, sh_link a string table section; every symbol's name
 *    NUL-terminated in that table, its section index a section or a
 *    reserved index;
 *  - relocation sections (SHT_REL, SHT_RELA): 16- or 24-byte entries, a
 *    whole number of them, sh_link a symbol table, every entry's symbol in
 *    it and, when sh_info names the section they apply to, every r_offset
 *    inside that section;
 *  - CUDA attribute sections (SHT_CUDA_INFO, the .nv.info ones): a
 *    sequence of records of the four known formats, each inside the
 *    section.
 *
 * A fatbin:
 *  - the 16-byte header: magic, version 1, header size of 16 or more, and
 *    the entries' total size inside the data; at least one entry;
 *  - every entry: its header (64 bytes or more) and its payload inside the
 *    fatbin's entries; its name and its options string, where it has them,
 *    inside its header and NUL-terminated there; a compressed size not
 *    larger than its payload;
 *  - PTX (kind 1) and cubin (kind 2) entries that are not compressed: their
 *    compressed and decompressed size fields not larger than the payload;
 *    PTX has a NUL in its payload, a cubin passes the checks above;
 *  - PTX and cubin entries compressed with LZ4 or Zstandard: a non-zero
 *    compressed and decompressed size, the compressed stream's framing
 *    inside the compressed size, agreeing with the decompressed size (LZ4:
 *    its sequences produce exactly that many bytes; Zstandard: its blocks
 *    lie inside the compressed size and can produce that many bytes, which
 *    is the frame's content size when it says one);
 *  - entries of other kinds (LTO-IR...): bounds only, and the cubin checks
 *    when an uncompressed one holds an ELF file.
 *
 * PTX: a NUL inside the data, and ".version" before it.
 *
 * Not checked: what compressed entries decompress to (GCuda decompresses
 * nothing; the driver decompresses into its own buffer of the checked
 * size), the meaning of section contents (symbol indices inside .nv.info
 * attributes, sh_info of code sections, code), alignment, and anything the
 * driver decides (architecture, PTX syntax).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-module-image-private.h"

/* ------------------------------------------------------------ helpers */

/* A 64-bit number formatted for a message: formats with
 * G_GUINT64_FORMAT must stay out of translatable strings. The array lives
 * until the end of the full expression that calls num(). */
typedef struct {
  char s[24];
} Num;

static Num
num (guint64 value)
{
  Num n;

  g_snprintf (n.s, sizeof n.s, "%" G_GUINT64_FORMAT, value);
  return n;
}

static gboolean G_GNUC_PRINTF (2, 3)
refuse (GError     **error,
        const char  *format,
        ...)
{
  va_list args;

  /* The fuzzer calls with no GError: build no message it would drop. */
  if (error == NULL)
    return FALSE;
  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, format, args));
  va_end (args);
  return FALSE;
}

/* @offset + @length within @size, without overflow. */
static gboolean
range_ok (guint64 offset,
          guint64 length,
          guint64 size)
{
  return offset <= size && length <= size - offset;
}

/* Little-endian, whatever the host, and at any alignment. */
static guint64
rd (const guint8 *p,
    guint         bytes)
{
  guint64 v = 0;

  for (guint i = 0; i < bytes; i++)
    v |= (guint64) p[i] << (8 * i);
  return v;
}

/* The end of the last string of @length bytes at @p: a string starting
 * at an offset is NUL-terminated inside them when the offset is at most
 * this. G_MAXUINT64 when there is no NUL at all. */
static guint64
last_nul (const guint8 *p,
          guint64       length)
{
  for (guint64 i = length; i > 0; i--)
    if (p[i - 1] == '\0')
      return i - 1;
  return G_MAXUINT64;
}

/* ------------------------------------------------------------ cubin (ELF) */

enum {
  EHDR_SIZE = 64,
  SHDR_SIZE = 64,
  PHDR_SIZE = 56,
  SYM_SIZE = 24,
  REL_SIZE = 16,
  RELA_SIZE = 24,

  ELFCLASS64_ = 2,
  ELFDATA2LSB_ = 1,
  EM_CUDA_ = 190,

  SHT_NULL_ = 0,
  SHT_SYMTAB_ = 2,
  SHT_STRTAB_ = 3,
  SHT_RELA_ = 4,
  SHT_NOBITS_ = 8,
  SHT_REL_ = 9,
  SHT_DYNSYM_ = 11,
  SHF_INFO_LINK_ = 0x40,
  SHN_LORESERVE_ = 0xff00,
  SHN_XINDEX_ = 0xffff,
  PN_XNUM_ = 0xffff,
};

/* NVIDIA's .nv.info sections: records of a format byte, an attribute byte
 * and two bytes that are a value, or for EIFMT_SVAL the size of the value
 * that follows. */
#define SHT_CUDA_INFO 0x70000000u
enum {
  EIFMT_NVAL = 1,
  EIFMT_BVAL = 2,
  EIFMT_HVAL = 3,
  EIFMT_SVAL = 4,
};

typedef struct {
  guint32 name, type, link, info;
  guint64 flags, offset, size, entsize;
} Section;

typedef struct {
  const guint8 *data;
  gsize size;
  guint64 shoff;
  guint shnum;
} Elf;

static void
read_section (const Elf *elf,
              guint      index,
              Section   *s)
{
  const guint8 *h = elf->data + elf->shoff + (guint64) index * SHDR_SIZE;

  s->name = rd (h, 4);
  s->type = rd (h + 4, 4);
  s->flags = rd (h + 8, 8);
  s->offset = rd (h + 24, 8);
  s->size = rd (h + 32, 8);
  s->link = rd (h + 40, 4);
  s->info = rd (h + 44, 4);
  s->entsize = rd (h + 56, 8);
}

static gboolean
check_elf_header (const guint8  *data,
                  gsize          size,
                  Elf           *elf,
                  GError       **error)
{
  guint shentsize, shstrndx;

  if (size < EHDR_SIZE || memcmp (data, "\177ELF", 4) != 0)
    return refuse (error, _("The cubin is not an ELF file of at least 64 bytes"));
  if (data[4] != ELFCLASS64_)
    return refuse (error, _("The cubin is not a 64-bit ELF file (its ELF class is %u): only 64-bit cubins load"),
                   data[4]);
  if (data[5] != ELFDATA2LSB_)
    return refuse (error, _("The cubin is not a little-endian ELF file (its data encoding is %u)"), data[5]);
  if (rd (data + 18, 2) != EM_CUDA_)
    return refuse (error, _("The ELF file is not a CUDA cubin: its machine is %u, not EM_CUDA (190)"),
                   (guint) rd (data + 18, 2));

  elf->data = data;
  elf->size = size;
  elf->shoff = rd (data + 40, 8);
  elf->shnum = rd (data + 60, 2);
  shentsize = rd (data + 58, 2);
  shstrndx = rd (data + 62, 2);

  /* e_shnum 0 means no section headers, or (with e_shoff set) more than
   * 65279 of them, counted in section 0: no cubin has either. */
  if (elf->shnum == 0)
    return refuse (error, _("The cubin has no section headers (e_shnum is 0): a cubin needs them, and extended "
                            "section numbering is not supported"));
  if (shentsize != SHDR_SIZE)
    return refuse (error, _("The cubin's section headers are %u bytes each, not 64"), shentsize);
  if (!range_ok (elf->shoff, (guint64) elf->shnum * SHDR_SIZE, size))
    return refuse (error, _("The cubin's %u section headers at byte %s reach past the end of its %s bytes: it is "
                            "truncated or damaged"),
                   elf->shnum, num (elf->shoff).s, num (size).s);
  if (shstrndx == SHN_XINDEX_)
    return refuse (error, _("The cubin's section names table index is SHN_XINDEX: extended section numbering is "
                            "not supported"));
  if (shstrndx == 0 || shstrndx >= elf->shnum)
    return refuse (error, _("The cubin's section names table index (%u) is not one of its %u sections"),
                   shstrndx, elf->shnum);
  return TRUE;
}

static gboolean
check_segments (const Elf  *elf,
                GError    **error)
{
  guint64 phoff = rd (elf->data + 32, 8);
  guint phentsize = rd (elf->data + 54, 2);
  guint phnum = rd (elf->data + 56, 2);

  if (phnum == 0)
    return TRUE;
  if (phnum == PN_XNUM_)
    return refuse (error, _("The cubin's program header count is PN_XNUM: extended numbering is not supported"));
  if (phentsize != PHDR_SIZE)
    return refuse (error, _("The cubin's program headers are %u bytes each, not 56"), phentsize);
  if (!range_ok (phoff, (guint64) phnum * PHDR_SIZE, elf->size))
    return refuse (error, _("The cubin's %u program headers at byte %s reach past the end of its %s bytes: it is "
                            "truncated or damaged"),
                   phnum, num (phoff).s, num (elf->size).s);
  for (guint i = 0; i < phnum; i++)
    {
      const guint8 *ph = elf->data + phoff + (guint64) i * PHDR_SIZE;
      guint64 offset = rd (ph + 8, 8), filesz = rd (ph + 32, 8);

      if (!range_ok (offset, filesz, elf->size))
        return refuse (error, _("The cubin's segment %u (%s bytes at byte %s) reaches past the end of its %s bytes"),
                       i, num (filesz).s, num (offset).s, num (elf->size).s);
    }
  return TRUE;
}

/* Every section's bytes, links, and name. */
static gboolean
check_sections (const Elf  *elf,
                GError    **error)
{
  guint shstrndx = rd (elf->data + 62, 2);
  Section names, s;
  guint64 names_end;

  for (guint i = 0; i < elf->shnum; i++)
    {
      read_section (elf, i, &s);
      if (s.type != SHT_NOBITS_ && !range_ok (s.offset, s.size, elf->size))
        return refuse (error, _("The cubin's section %u (%s bytes at byte %s) reaches past the end of its %s bytes: "
                                "it is truncated or damaged"),
                       i, num (s.size).s, num (s.offset).s, num (elf->size).s);
      if (s.link >= elf->shnum)
        return refuse (error, _("The cubin's section %u links to section %u, but it has %u sections"),
                       i, s.link, elf->shnum);
      if ((s.flags & SHF_INFO_LINK_) != 0 && s.info >= elf->shnum)
        return refuse (error, _("The cubin's section %u refers to section %u, but it has %u sections"),
                       i, s.info, elf->shnum);
    }

  read_section (elf, shstrndx, &names);
  if (names.type != SHT_STRTAB_)
    return refuse (error, _("The cubin's section names table (section %u) is not a string table (its type is %u)"),
                   shstrndx, names.type);
  names_end = last_nul (elf->data + names.offset, names.size);
  for (guint i = 0; i < elf->shnum; i++)
    {
      read_section (elf, i, &s);
      if (names_end == G_MAXUINT64 || s.name > names_end)
        return refuse (error, _("The name of the cubin's section %u (at byte %u of the section names table, which "
                                "has %s bytes) is not a NUL-terminated string inside that table"),
                       i, s.name, num (names.size).s);
    }
  return TRUE;
}

static gboolean
check_symbols (const Elf      *elf,
               guint           index,
               const Section  *s,
               GError        **error)
{
  Section strings;
  guint64 strings_end;

  if (s->entsize != SYM_SIZE || s->size % SYM_SIZE != 0)
    return refuse (error, _("The cubin's symbol table (section %u) is not a whole number of 24-byte symbols (%s "
                            "bytes, entries of %s)"),
                   index, num (s->size).s, num (s->entsize).s);
  read_section (elf, s->link, &strings);
  if (strings.type != SHT_STRTAB_)
    return refuse (error, _("The cubin's symbol table (section %u) takes its names from section %u, which is not a "
                            "string table"),
                   index, s->link);
  strings_end = last_nul (elf->data + strings.offset, strings.size);
  for (guint64 i = 0; i < s->size / SYM_SIZE; i++)
    {
      const guint8 *sym = elf->data + s->offset + i * SYM_SIZE;
      guint32 name = rd (sym, 4);
      guint shndx = rd (sym + 6, 2);

      if (strings_end == G_MAXUINT64 || name > strings_end)
        return refuse (error, _("The name of symbol %s in the cubin's section %u (at byte %u of section %u, which has "
                                "%s bytes) is not a NUL-terminated string inside that table"),
                       num (i).s, index, name, s->link, num (strings.size).s);
      if (shndx == SHN_XINDEX_)
        return refuse (error, _("Symbol %s in the cubin's section %u uses extended section numbering "
                                "(SHN_XINDEX), which is not supported"),
                       num (i).s, index);
      if (shndx >= elf->shnum && shndx < SHN_LORESERVE_)
        return refuse (error, _("Symbol %s in the cubin's section %u is in section %u, but the cubin has %u sections"),
                       num (i).s, index, shndx, elf->shnum);
    }
  return TRUE;
}

static gboolean
check_relocations (const Elf      *elf,
                   guint           index,
                   const Section  *s,
                   GError        **error)
{
  guint64 entsize = s->type == SHT_RELA_ ? RELA_SIZE : REL_SIZE;
  Section symbols, target = { 0 };

  if (s->entsize != entsize || s->size % entsize != 0)
    return refuse (error, _("The cubin's relocation section %u is not a whole number of %u-byte entries (%s bytes, "
                            "entries of %s)"),
                   index, (guint) entsize, num (s->size).s, num (s->entsize).s);
  read_section (elf, s->link, &symbols);
  if (symbols.type != SHT_SYMTAB_ && symbols.type != SHT_DYNSYM_)
    return refuse (error, _("The cubin's relocation section %u takes its symbols from section %u, which is not a "
                            "symbol table"),
                   index, s->link);
  if (s->info >= elf->shnum)
    return refuse (error, _("The cubin's relocation section %u applies to section %u, but the cubin has %u "
                            "sections"),
                   index, s->info, elf->shnum);
  if (s->info != 0)
    read_section (elf, s->info, &target);
  for (guint64 i = 0; i < s->size / entsize; i++)
    {
      const guint8 *rel = elf->data + s->offset + i * entsize;
      guint64 offset = rd (rel, 8);
      guint64 symbol = rd (rel + 8, 8) >> 32;

      if (symbol >= symbols.size / SYM_SIZE)
        return refuse (error, _("Relocation %s in the cubin's section %u refers to symbol %s, but its symbol table "
                                "(section %u) has %s symbols"),
                       num (i).s, index, num (symbol).s, s->link, num (symbols.size / SYM_SIZE).s);
      if (s->info != 0 && offset >= target.size)
        return refuse (error, _("Relocation %s in the cubin's section %u patches byte %s of section %u, which has %s "
                                "bytes"),
                       num (i).s, index, num (offset).s, s->info, num (target.size).s);
    }
  return TRUE;
}

static gboolean
check_attributes (const Elf      *elf,
                  guint           index,
                  const Section  *s,
                  GError        **error)
{
  const guint8 *p = elf->data + s->offset;

  for (guint64 at = 0; at < s->size;)
    {
      guint format;

      if (s->size - at < 4)
        return refuse (error, _("The attribute record at byte %s of the cubin's section %u (%s bytes) is cut short"),
                       num (at).s, index, num (s->size).s);
      format = p[at];
      if (format < EIFMT_NVAL || format > EIFMT_SVAL)
        return refuse (error, _("The attribute record at byte %s of the cubin's section %u has an unknown format "
                                "(%u)"),
                       num (at).s, index, format);
      if (format == EIFMT_SVAL && rd (p + at + 2, 2) > s->size - at - 4)
        return refuse (error, _("The attribute record at byte %s of the cubin's section %u (%s bytes) says it has "
                                "%u bytes, more than the section holds"),
                       num (at).s, index, num (s->size).s, (guint) rd (p + at + 2, 2));
      at += 4 + (format == EIFMT_SVAL ? rd (p + at + 2, 2) : 0);
    }
  return TRUE;
}

static gboolean
check_elf (const guint8  *data,
           gsize          size,
           GError       **error)
{
  Elf elf = { 0 };

  if (!check_elf_header (data, size, &elf, error) ||
      !check_segments (&elf, error) ||
      !check_sections (&elf, error))
    return FALSE;

  for (guint i = 0; i < elf.shnum; i++)
    {
      Section s;
      gboolean ok = TRUE;

      read_section (&elf, i, &s);
      if (s.type == SHT_SYMTAB_ || s.type == SHT_DYNSYM_)
        ok = check_symbols (&elf, i, &s, error);
      else if (s.type == SHT_REL_ || s.type == SHT_RELA_)
        ok = check_relocations (&elf, i, &s, error);
      else if (s.type == SHT_CUDA_INFO)
        ok = check_attributes (&elf, i, &s, error);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ fatbin */

#define FATBIN_MAGIC 0xba55ed50u

enum {
  FATBIN_HEADER_SIZE = 16,
  ENTRY_HEADER_SIZE = 64,

  ENTRY_KIND_PTX = 1,
  ENTRY_KIND_CUBIN = 2,

  /* fatbinary's --compress-mode speed writes LZ4 blocks; the others
   * Zstandard frames */
  ENTRY_FLAG_LZ4 = 0x2000,
  ENTRY_FLAG_ZSTD = 0x8000,
};

/* The fields of an entry's header that the driver follows. */
typedef struct {
  guint kind;
  guint64 header_size;
  guint64 payload_size;
  guint64 compressed_size;
  guint64 options;          /* offset in the header of (offset, length) of the JIT options; 0: none */
  guint64 name_offset;      /* in the header; with name_length 0 too: no name */
  guint64 name_length;
  guint64 flags;
  guint64 decompressed_size;
} Entry;

static void
read_entry (const guint8 *h,
            Entry        *e)
{
  e->kind = rd (h, 2);
  e->header_size = rd (h + 4, 4);
  e->payload_size = rd (h + 8, 8);
  e->compressed_size = rd (h + 16, 4);
  e->options = rd (h + 20, 4);
  e->name_offset = rd (h + 32, 4);
  e->name_length = rd (h + 36, 4);
  e->flags = rd (h + 40, 8);
  e->decompressed_size = rd (h + 56, 8);
}

/* A string of @length bytes at @offset of an entry's @header_size-byte
 * header: inside the header, with a NUL after it there. */
static gboolean
header_string_ok (const guint8 *header,
                  guint64       header_size,
                  guint64       offset,
                  guint64       length)
{
  return range_ok (offset, length, header_size) &&
         memchr (header + offset, '\0', header_size - offset) != NULL;
}

/* An LZ4 block (no frame) of @size bytes: every sequence inside it, every
 * match inside what came before, exactly @expected bytes in all. */
static gboolean
lz4_block_ok (const guint8 *in,
              guint64       size,
              guint64       expected)
{
  guint64 at = 0, out = 0;

  for (;;)
    {
      guint token;
      guint64 literals, match, offset;
      guint8 b;

      if (at >= size)
        return FALSE;
      token = in[at++];
      literals = token >> 4;
      if (literals == 15)
        do
          {
            if (at >= size)
              return FALSE;
            b = in[at++];
            literals += b;
          }
        while (b == 255);
      if (literals > size - at || literals > expected - out)
        return FALSE;
      at += literals;
      out += literals;
      if (at == size)
        return out == expected;   /* the last sequence has literals only */

      if (size - at < 2)
        return FALSE;
      offset = rd (in + at, 2);
      at += 2;
      if (offset == 0 || offset > out)
        return FALSE;
      match = token & 15;
      if (match == 15)
        do
          {
            if (at >= size)
              return FALSE;
            b = in[at++];
            match += b;
          }
        while (b == 255);
      match += 4;
      if (match > expected - out)
        return FALSE;
      out += match;
    }
}

/* A Zstandard frame of @size bytes (RFC 8878): its header, and blocks
 * that end with the frame, each no larger than the frame allows, able to
 * produce @expected bytes; the frame's content size, when it has one, is
 * @expected. */
static gboolean
zstd_frame_ok (const guint8 *in,
               guint64       size,
               guint64       expected)
{
  static const guint fcs_bytes[4] = { 0, 2, 4, 8 };
  guint64 at, window = 0, content = 0, block_max, least = 0, most = 0;
  guint descriptor, fcs_length;
  gboolean single, has_content;

  if (size < 5 || rd (in, 4) != 0xfd2fb528u)
    return FALSE;
  descriptor = in[4];
  single = (descriptor & 0x20) != 0;
  /* a reserved bit, and a dictionary the driver would need to have */
  if ((descriptor & 0x08) != 0 || (descriptor & 0x03) != 0)
    return FALSE;
  fcs_length = fcs_bytes[descriptor >> 6];
  if (fcs_length == 0 && single)
    fcs_length = 1;
  at = 5;
  if (!single)
    {
      guint w;

      if (at >= size)
        return FALSE;
      w = in[at++];
      window = (guint64) 1 << (10 + (w >> 3));
      window += window / 8 * (w & 7);
    }
  has_content = fcs_length > 0;
  if (has_content)
    {
      if (size - at < fcs_length)
        return FALSE;
      content = rd (in + at, fcs_length) + (fcs_length == 2 ? 256 : 0);
      at += fcs_length;
      if (content != expected)
        return FALSE;
    }
  if (single)
    window = content;
  block_max = MIN (window, 128 * 1024);

  for (;;)
    {
      guint64 header, block_size;
      guint type;

      if (size - at < 3)
        return FALSE;
      header = rd (in + at, 3);
      at += 3;
      type = (header >> 1) & 3;
      block_size = header >> 3;
      if (type == 3 || block_size > block_max)
        return FALSE;
      if (type == 1)  /* RLE: one byte, repeated */
        {
          if (size - at < 1)
            return FALSE;
          at += 1;
          least += block_size;
          most += block_size;
        }
      else
        {
          if (block_size > size - at)
            return FALSE;
          at += block_size;
          least += type == 0 ? block_size : 0;
          most += type == 0 ? block_size : block_max;
        }
      if (header & 1)  /* the last block */
        break;
    }
  if (descriptor & 0x04)  /* a checksum */
    {
      if (size - at < 4)
        return FALSE;
      at += 4;
    }
  return at == size && least <= expected && expected <= most;
}

static gboolean
check_entry (const guint8  *h,
             const Entry   *e,
             GError       **error)
{
  const guint8 *payload = h + e->header_size;
  gboolean lz4 = (e->flags & ENTRY_FLAG_LZ4) != 0, zstd = (e->flags & ENTRY_FLAG_ZSTD) != 0;

  if ((e->name_offset != 0 || e->name_length != 0) &&
      !header_string_ok (h, e->header_size, e->name_offset, e->name_length))
    return refuse (error, _("Its name (%s bytes at byte %s of its %s-byte header) is not a NUL-terminated string "
                            "inside the header"),
                   num (e->name_length).s, num (e->name_offset).s, num (e->header_size).s);
  if (e->options != 0 &&
      (!range_ok (e->options, 8, e->header_size) ||
       !header_string_ok (h, e->header_size, rd (h + e->options, 4), rd (h + e->options + 4, 4))))
    return refuse (error, _("Its JIT options (described at byte %s of its %s-byte header) are not a NUL-terminated "
                            "string inside the header"),
                   num (e->options).s, num (e->header_size).s);
  if (e->compressed_size > e->payload_size)
    return refuse (error, _("Its compressed size (%s bytes) is larger than its payload (%s bytes)"),
                   num (e->compressed_size).s, num (e->payload_size).s);

  if (e->kind != ENTRY_KIND_PTX && e->kind != ENTRY_KIND_CUBIN)
    {
      /* not for cuModuleLoadData, but an ELF file is followed as one */
      if (!lz4 && !zstd && e->payload_size >= 4 && memcmp (payload, "\177ELF", 4) == 0)
        return check_elf (payload, e->payload_size, error);
      return TRUE;
    }

  if (lz4 && zstd)
    return refuse (error, _("It is marked as compressed both with LZ4 and with Zstandard"));
  if (lz4 || zstd)
    {
      if (e->compressed_size == 0 || e->decompressed_size == 0)
        return refuse (error, _("It is compressed, but its compressed size (%s bytes) or its decompressed size (%s "
                                "bytes) is 0"),
                       num (e->compressed_size).s, num (e->decompressed_size).s);
      if (lz4 && !lz4_block_ok (payload, e->compressed_size, e->decompressed_size))
        return refuse (error, _("Its LZ4 data (%s bytes) is damaged or does not decompress to the %s bytes its "
                                "header says"),
                       num (e->compressed_size).s, num (e->decompressed_size).s);
      if (zstd && !zstd_frame_ok (payload, e->compressed_size, e->decompressed_size))
        return refuse (error, _("Its Zstandard data (%s bytes) is damaged or cannot decompress to the %s bytes its "
                                "header says"),
                       num (e->compressed_size).s, num (e->decompressed_size).s);
      /* What it decompresses to is the driver's to check. */
      return TRUE;
    }

  if (e->decompressed_size > e->payload_size)
    return refuse (error, _("It is not compressed, but its decompressed size (%s bytes) is larger than its payload "
                            "(%s bytes)"),
                   num (e->decompressed_size).s, num (e->payload_size).s);
  if (e->kind == ENTRY_KIND_PTX)
    {
      if (memchr (payload, '\0', e->payload_size) == NULL)
        return refuse (error, _("Its PTX is not NUL-terminated inside its payload (%s bytes)"),
                       num (e->payload_size).s);
      return TRUE;
    }
  return check_elf (payload, e->payload_size, error);
}

static gboolean
check_fatbin (const guint8  *data,
              gsize          size,
              GError       **error)
{
  guint version, header_size, index = 0;
  guint64 entries_size, end;

  if (size < FATBIN_HEADER_SIZE)
    return refuse (error, _("The fatbin is shorter than its 16-byte header"));
  version = rd (data + 4, 2);
  header_size = rd (data + 6, 2);
  entries_size = rd (data + 8, 8);
  if (version != 1)
    return refuse (error, _("The fatbin's version is %u: only version 1 is known"), version);
  if (header_size < FATBIN_HEADER_SIZE)
    return refuse (error, _("The fatbin's header size (%u) is smaller than 16 bytes"), header_size);
  if (!range_ok (header_size, entries_size, size))
    return refuse (error, _("The fatbin says it has %s bytes of entries after its %u-byte header, but the data has "
                            "%s bytes: it is truncated or damaged"),
                   num (entries_size).s, header_size, num (size).s);
  if (entries_size == 0)
    return refuse (error, _("The fatbin has no entries"));

  end = header_size + entries_size;
  for (guint64 offset = header_size; offset < end; index++)
    {
      const guint8 *h = data + offset;
      Entry e;

      if (end - offset < ENTRY_HEADER_SIZE)
        return refuse (error, _("The fatbin's entry %u (at byte %s) is cut short: an entry's header has 64 bytes, "
                                "%s are left"),
                       index, num (offset).s, num (end - offset).s);
      read_entry (h, &e);
      if (e.header_size < ENTRY_HEADER_SIZE || e.header_size > end - offset)
        return refuse (error, _("The fatbin's entry %u (at byte %s) has a header of %s bytes: at least 64 are "
                                "needed, at most %s are left"),
                       index, num (offset).s, num (e.header_size).s, num (end - offset).s);
      if (e.payload_size > end - offset - e.header_size)
        return refuse (error, _("The fatbin's entry %u (at byte %s) has a payload of %s bytes, but only %s are "
                                "left: it is truncated or damaged"),
                       index, num (offset).s, num (e.payload_size).s, num (end - offset - e.header_size).s);
      if (!check_entry (h, &e, error))
        {
          g_prefix_error (error, _("The fatbin's entry %u (at byte %s): "), index, num (offset).s);
          return FALSE;
        }
      offset += e.header_size + e.payload_size;
    }
  return TRUE;
}

/* ------------------------------------------------------------ images */

gboolean
_gcuda_module_image_check (const guint8  *data,
                           gsize          size,
                           GError       **error)
{
  if (data == NULL || size < 4)
    return refuse (error, _("A module image needs cubin, fatbin or PTX data"));
  if (memcmp (data, "\177ELF", 4) == 0)
    return check_elf (data, size, error);
  if (rd (data, 4) == FATBIN_MAGIC)
    return check_fatbin (data, size, error);

  /* PTX is text the driver reads up to its NUL. */
  if (memchr (data, '\0', size) == NULL)
    {
      if (g_strstr_len ((const char *) data, size, ".version") != NULL)
        return refuse (error, _("The PTX is not NUL-terminated: the driver reads it up to a NUL, so the data must "
                                "end with one"));
    }
  else if (g_strstr_len ((const char *) data, size, ".version") != NULL)
    return TRUE;
  return refuse (error, _("The module image is neither a cubin, a fatbin nor PTX (text with a .version directive, "
                          "NUL-terminated)"));
}
