/* fuzz-module-image.c: libFuzzer harness for the module image checker
 * (libgcuda/gcuda-module-image-private.c), with an oracle
 *
 * Crashing on a bad image proves little: the checker reads only its own
 * data. What matters is what the checker lets through: the driver walks
 * an accepted image without knowing its size. So every image the checker
 * accepts is walked here as a loader would walk it, by code that shares
 * nothing with the checker: every section header (at e_shentsize strides,
 * extended numbering followed as the ELF specification says), every name
 * up to its NUL, every section's bytes, every symbol and its name, every
 * relocation's symbol and target byte, every .nv.info record, every
 * segment; every fatbin entry, its name and JIT options, its payload, its
 * PTX up to the NUL, its cubin (the same walk), and its compressed stream
 * decoded into a buffer of the decompressed size it announces (LZ4 in
 * full, Zstandard raw and RLE blocks, compressed blocks by their size), as
 * the least careful decoder would (trusting the sizes, stopping only when
 * the output is full).
 *
 * Every read of the walk goes through span_sub()/span_get()/span_cstr(),
 * which abort on anything outside the span: when the checker accepts an
 * image the walk cannot traverse, the fuzzer crashes, naming what the
 * walk could not read. The walk also touches every byte it would use, so
 * AddressSanitizer sees it.
 *
 * Also checked for every input: the checker gives the same verdict with
 * and without a GError, and a refusal is GCUDA_ERROR_INVALID_ARGUMENT with
 * a non-empty UTF-8 message.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "gcuda-error-private.h"
#include "gcuda-module-image-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* ------------------------------------------------------------ bounded reads */

typedef struct {
  const uint8_t *p;
  uint64_t n;
} Span;

static void G_GNUC_NORETURN
unsafe (const char *what,
        uint64_t    a,
        uint64_t    b)
{
  fprintf (stderr, "fuzz-module-image: the checker accepted an image that a loader cannot walk: %s "
           "(%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")\n", what, a, b);
  abort ();
}

static uint64_t
add (uint64_t    a,
     uint64_t    b,
     const char *what)
{
  if (a > UINT64_MAX - b)
    unsafe (what, a, b);
  return a + b;
}

static uint64_t
mul (uint64_t    a,
     uint64_t    b,
     const char *what)
{
  if (b != 0 && a > UINT64_MAX / b)
    unsafe (what, a, b);
  return a * b;
}

static Span
span_sub (Span        s,
          uint64_t    offset,
          uint64_t    length,
          const char *what)
{
  Span sub;

  if (add (offset, length, what) > s.n)
    unsafe (what, offset, length);
  sub.p = s.p + offset;
  sub.n = length;
  return sub;
}

static uint64_t
span_get (Span        s,
          uint64_t    offset,
          unsigned    bytes,
          const char *what)
{
  Span f = span_sub (s, offset, bytes, what);
  uint64_t v = 0;

  for (unsigned i = 0; i < bytes; i++)
    v |= (uint64_t) f.p[i] << (8 * i);
  return v;
}

/* The length of the string at @offset, read byte by byte as strlen()
 * would, never past the span. */
static uint64_t
span_cstr (Span        s,
           uint64_t    offset,
           const char *what)
{
  for (uint64_t i = offset; i < s.n; i++)
    if (s.p[i] == '\0')
      return i - offset;
  unsafe (what, offset, s.n);
}

static volatile uint8_t sink;

/* Reads every byte, as a loader copying them would. */
static void
touch (Span s)
{
  uint8_t x = 0;

  for (uint64_t i = 0; i < s.n; i++)
    x ^= s.p[i];
  sink ^= x;
}

/* ------------------------------------------------------------ ELF walk */

typedef struct {
  Span image;
  uint64_t shoff, shentsize, shnum, shstrndx;
} Walk;

/* Section @index's 64-byte header. */
static Span
section (const Walk *w,
         uint64_t    index,
         const char *what)
{
  if (index >= w->shnum)
    unsafe (what, index, w->shnum);
  return span_sub (w->image, add (w->shoff, mul (index, w->shentsize, what), what), 64, what);
}

/* Section @index's bytes (a loader trusts sh_offset and sh_size). */
static Span
contents (const Walk *w,
          uint64_t    index,
          const char *what)
{
  Span h = section (w, index, what);

  return span_sub (w->image, span_get (h, 24, 8, what), span_get (h, 32, 8, what), what);
}

static void
walk_symbols (const Walk *w,
              uint64_t    index,
              Span        h)
{
  Span symbols = contents (w, index, "symbol table");
  uint64_t entsize = span_get (h, 56, 8, "symbol table entry size");
  Span strings = contents (w, span_get (h, 40, 4, "symbol table link"), "symbol names");

  if (entsize == 0)
    unsafe ("a symbol table with 0-byte entries: a loader divides by it", index, 0);
  for (uint64_t i = 0; i < symbols.n / entsize; i++)
    {
      Span sym = span_sub (symbols, i * entsize, 24, "symbol");
      uint64_t shndx = span_get (sym, 6, 2, "symbol section");

      span_cstr (strings, span_get (sym, 0, 4, "symbol name"), "symbol name without a NUL in its table");
      if (shndx == 0xffff)
        {
          /* extended: the index is in the SHT_SYMTAB_SHNDX section linked to this table */
          uint64_t found = 0;

          for (uint64_t s = 1; s < w->shnum && found == 0; s++)
            {
              Span sh = section (w, s, "section header");

              if (span_get (sh, 4, 4, "section type") == 18 && span_get (sh, 40, 4, "section link") == index)
                found = s;
            }
          if (found == 0)
            unsafe ("a symbol in SHN_XINDEX without an SHT_SYMTAB_SHNDX table", index, i);
          shndx = span_get (contents (w, found, "SHT_SYMTAB_SHNDX"), i * 4, 4, "extended symbol section");
          section (w, shndx, "symbol's extended section");
        }
      else if (shndx != 0 && shndx < 0xff00)
        section (w, shndx, "symbol's section");
    }
}

static void
walk_relocations (const Walk *w,
                  uint64_t    index,
                  Span        h,
                  unsigned    min_size)
{
  Span relocations = contents (w, index, "relocations");
  uint64_t entsize = span_get (h, 56, 8, "relocation entry size");
  uint64_t symtab = span_get (h, 40, 4, "relocation symbols");
  uint64_t target = span_get (h, 44, 4, "relocation target");
  Span symbols = contents (w, symtab, "relocation symbol table");
  uint64_t symsize = span_get (section (w, symtab, "relocation symbol table"), 56, 8, "symbol size");

  if (entsize == 0)
    unsafe ("a relocation section with 0-byte entries: a loader divides by it", index, 0);
  for (uint64_t i = 0; i < relocations.n / entsize; i++)
    {
      Span r = span_sub (relocations, i * entsize, min_size, "relocation");
      uint64_t symbol = span_get (r, 8, 8, "r_info") >> 32;

      span_sub (symbols, mul (symbol, symsize, "relocation symbol"), 24, "relocation symbol");
      if (target != 0)
        {
          /* the byte patched, in the target's copy of sh_size bytes */
          uint64_t size = span_get (section (w, target, "relocation target"), 32, 8, "target size");

          if (span_get (r, 0, 8, "r_offset") >= size)
            unsafe ("a relocation patching outside its section", span_get (r, 0, 8, "r_offset"), size);
        }
    }
}

static void
walk_attributes (const Walk *w,
                 uint64_t    index)
{
  Span info = contents (w, index, ".nv.info");

  for (uint64_t at = 0; at < info.n;)
    {
      uint64_t format = span_get (info, at, 1, ".nv.info record");
      uint64_t value = span_get (info, at + 2, 2, ".nv.info record");

      if (format == 4)
        {
          touch (span_sub (info, at + 4, value, ".nv.info value"));
          at += 4 + value;
        }
      else if (format >= 1 && format <= 3)
        at += 4;
      else
        unsafe ("an .nv.info record of unknown format: a loader cannot step over it", index, format);
    }
}

static void
walk_elf (Span image)
{
  Walk w = { image };
  Span ehdr = span_sub (image, 0, 64, "ELF header");
  uint64_t phoff = span_get (ehdr, 32, 8, "e_phoff");
  uint64_t phentsize = span_get (ehdr, 54, 2, "e_phentsize");
  uint64_t phnum = span_get (ehdr, 56, 2, "e_phnum");
  Span names;

  w.shoff = span_get (ehdr, 40, 8, "e_shoff");
  w.shentsize = span_get (ehdr, 58, 2, "e_shentsize");
  w.shnum = span_get (ehdr, 60, 2, "e_shnum");
  w.shstrndx = span_get (ehdr, 62, 2, "e_shstrndx");

  /* Extended numbering, as the ELF specification has loaders read it:
   * the counts and the names' index in section 0. */
  if (w.shnum == 0 && w.shoff != 0)
    {
      Span zero = span_sub (image, w.shoff, 64, "section 0 (e_shnum is 0)");

      w.shnum = span_get (zero, 32, 8, "section count in section 0");
    }
  if (w.shstrndx == 0xffff)
    w.shstrndx = span_get (section (&w, 0, "section 0 (e_shstrndx is SHN_XINDEX)"), 40, 4, "sh_link of section 0");
  if (phnum == 0xffff)
    phnum = span_get (section (&w, 0, "section 0 (e_phnum is PN_XNUM)"), 44, 4, "sh_info of section 0");

  for (uint64_t i = 0; i < phnum; i++)
    {
      Span ph = span_sub (image, add (phoff, mul (i, phentsize, "program headers"), "program headers"), 56,
                          "program header");

      touch (span_sub (image, span_get (ph, 8, 8, "p_offset"), span_get (ph, 32, 8, "p_filesz"), "segment"));
    }

  if (w.shnum == 0)
    return;  /* no sections, nothing named */
  names = contents (&w, w.shstrndx, "section names table");
  for (uint64_t i = 0; i < w.shnum; i++)
    {
      Span h = section (&w, i, "section header");
      uint64_t type = span_get (h, 4, 4, "sh_type");
      uint64_t flags = span_get (h, 8, 8, "sh_flags");

      span_cstr (names, span_get (h, 0, 4, "sh_name"), "section name without a NUL in the names table");
      if (type != 8 /* SHT_NOBITS */)
        touch (contents (&w, i, "section bytes"));
      if (span_get (h, 40, 4, "sh_link") != 0)
        section (&w, span_get (h, 40, 4, "sh_link"), "sh_link");
      if (flags & 0x40 /* SHF_INFO_LINK */)
        section (&w, span_get (h, 44, 4, "sh_info"), "sh_info");

      if (type == 2 || type == 11)
        walk_symbols (&w, i, h);
      else if (type == 9)
        walk_relocations (&w, i, h, 16);
      else if (type == 4)
        walk_relocations (&w, i, h, 24);
      else if (type == 0x70000000)
        walk_attributes (&w, i);
    }
}

/* ------------------------------------------------------------ compressed streams */

/* The least careful LZ4 decoder (LZ4_decompress_fast()): it knows only
 * the output size and trusts the stream to fit in its input. */
static void
walk_lz4 (Span     in,
          uint64_t out_size)
{
  uint8_t *out;
  uint64_t at = 0, o = 0;

  if (out_size > (UINT64_C (1) << 31))
    unsafe ("an LZ4 entry announcing more than 2 GiB", out_size, in.n);
  out = g_malloc (out_size + 1);
  while (o < out_size)
    {
      uint64_t token = span_get (in, at++, 1, "LZ4 token");
      uint64_t literals = token >> 4, match, offset, b;

      if (literals == 15)
        do
          literals += (b = span_get (in, at++, 1, "LZ4 literal length"));
        while (b == 255);
      if (add (o, literals, "LZ4 literals") > out_size)
        unsafe ("LZ4 literals past the decompressed size", o + literals, out_size);
      memcpy (out + o, span_sub (in, at, literals, "LZ4 literals").p, literals);
      at += literals;
      o += literals;
      if (o == out_size)
        break;
      offset = span_get (in, at, 2, "LZ4 match offset");
      at += 2;
      if (offset == 0 || offset > o)
        unsafe ("an LZ4 match before the start of the output", offset, o);
      match = token & 15;
      if (match == 15)
        do
          match += (b = span_get (in, at++, 1, "LZ4 match length"));
        while (b == 255);
      match += 4;
      if (add (o, match, "LZ4 match") > out_size)
        unsafe ("an LZ4 match past the decompressed size", o + match, out_size);
      for (uint64_t i = 0; i < match; i++, o++)
        out[o] = out[o - offset];
    }
  g_free (out);
}

/* A Zstandard decoder's walk of a frame: its header, every block inside
 * the input, raw and RLE blocks placed in the announced output (the
 * contents of compressed blocks are beyond this walk; only positions are
 * kept, as the output can be large), and an output size the frame can
 * produce (a loader reading more would read what was never written). */
static void
walk_zstd (Span     in,
           uint64_t out_size)
{
  uint64_t descriptor, at = 5, window = 0, content = 0, fcs, block_max, produced = 0, most = 0;

  if (span_get (in, 0, 4, "Zstandard magic") != 0xfd2fb528)
    unsafe ("a Zstandard entry without the Zstandard magic", span_get (in, 0, 4, "Zstandard magic"), 0);
  descriptor = span_get (in, 4, 1, "Zstandard frame header");
  if (descriptor & 3)
    unsafe ("a Zstandard frame needing a dictionary", descriptor, 0);
  fcs = (uint64_t[]) { 0, 2, 4, 8 }[descriptor >> 6];
  if (!(descriptor & 0x20))
    {
      uint64_t wd = span_get (in, at++, 1, "Zstandard window");

      window = (UINT64_C (1) << (10 + (wd >> 3)));
      window += window / 8 * (wd & 7);
    }
  else if (fcs == 0)
    fcs = 1;
  if (fcs != 0)
    {
      content = span_get (in, at, fcs, "Zstandard content size") + (fcs == 2 ? 256 : 0);
      at += fcs;
      if (content != out_size)
        unsafe ("a Zstandard frame whose content size is not the entry's decompressed size", content, out_size);
    }
  if (descriptor & 0x20)
    window = content;
  block_max = MIN (window, 128 * 1024);
  for (;;)
    {
      uint64_t header = span_get (in, at, 3, "Zstandard block header");
      uint64_t type = (header >> 1) & 3, block = header >> 3;

      at += 3;
      if (block > block_max)
        unsafe ("a Zstandard block larger than the frame allows", block, block_max);
      if (type == 0 || type == 1)
        {
          if (add (produced, block, "Zstandard output") > out_size)
            unsafe ("a Zstandard block past the decompressed size", produced + block, out_size);
          if (type == 0)
            touch (span_sub (in, at, block, "Zstandard raw block"));
          else
            span_get (in, at, 1, "Zstandard RLE block");
          at += type == 0 ? block : 1;
          produced += block;
          most += block;
        }
      else if (type == 2)
        {
          touch (span_sub (in, at, block, "Zstandard compressed block"));
          at += block;
          most += block_max;
        }
      else
        unsafe ("a reserved Zstandard block type", type, at);
      if (header & 1)
        break;
    }
  if (out_size > most)
    unsafe ("a decompressed size the Zstandard frame cannot produce", out_size, most);
}

/* ------------------------------------------------------------ fatbin walk */

static void
walk_fatbin (Span image)
{
  Span header = span_sub (image, 0, 16, "fatbin header");
  Span entries = span_sub (image, span_get (header, 6, 2, "fatbin header size"),
                           span_get (header, 8, 8, "fatbin size"), "fatbin entries");

  for (uint64_t at = 0; at < entries.n;)
    {
      Span fixed = span_sub (entries, at, 64, "entry header");
      uint64_t header_size = span_get (fixed, 4, 4, "entry header size");
      uint64_t payload_size = span_get (fixed, 8, 8, "entry payload size");
      Span h = span_sub (entries, at, header_size, "entry header");
      Span payload = span_sub (entries, add (at, header_size, "entry"), payload_size, "entry payload");
      uint64_t kind = span_get (h, 0, 2, "entry kind");
      uint64_t compressed = span_get (h, 16, 4, "entry compressed size");
      uint64_t options = span_get (h, 20, 4, "entry options");
      uint64_t name = span_get (h, 32, 4, "entry name"), name_length = span_get (h, 36, 4, "entry name");
      uint64_t flags = span_get (h, 40, 8, "entry flags");
      uint64_t decompressed = span_get (h, 56, 8, "entry decompressed size");

      if (add (header_size, payload_size, "entry size") == 0)
        unsafe ("an empty entry: a loader loops on it forever", at, 0);
      if (name != 0 || name_length != 0)
        {
          touch (span_sub (h, name, name_length, "entry name"));
          span_cstr (h, name, "entry name without a NUL in its header");
        }
      if (options != 0)
        {
          uint64_t o = span_get (h, options, 4, "entry options"), l = span_get (h, options + 4, 4, "entry options");

          touch (span_sub (h, o, l, "entry options"));
          span_cstr (h, o, "entry options without a NUL in its header");
        }
      /* a loader copies the compressed bytes, whatever the flags */
      touch (span_sub (payload, 0, compressed, "entry compressed bytes"));

      if (kind == 1 || kind == 2)
        {
          /* Both decoders, as a loader may test either flag first. */
          if (flags & 0x2000)
            walk_lz4 (span_sub (payload, 0, compressed, "LZ4 data"), decompressed);
          if (flags & 0x8000)
            walk_zstd (span_sub (payload, 0, compressed, "Zstandard data"), decompressed);
          if (!(flags & 0xa000))
            {
              /* a loader copying the decompressed size of an uncompressed entry */
              touch (span_sub (payload, 0, decompressed, "uncompressed entry's decompressed size"));
              if (kind == 1)
                span_cstr (payload, 0, "PTX entry without a NUL in its payload");
              else
                walk_elf (payload);
            }
        }
      else if (!(flags & 0xa000) && payload.n >= 4 && memcmp (payload.p, "\177ELF", 4) == 0)
        walk_elf (payload);
      at += header_size + payload_size;
    }
}

/* ------------------------------------------------------------ the harness */

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  Span image = { data, size };
  GError *error = NULL;
  gboolean quiet = _gcuda_module_image_check (data, size, NULL);
  gboolean loud = _gcuda_module_image_check (data, size, &error);

  if (quiet != loud)
    {
      fprintf (stderr, "fuzz-module-image: the verdict depends on whether a GError is asked for (%d, %d)\n",
               quiet, loud);
      abort ();
    }
  if (!loud)
    {
      if (error == NULL || error->domain != GCUDA_ERROR || error->code != GCUDA_ERROR_INVALID_ARGUMENT ||
          error->message == NULL || *error->message == '\0' || !g_utf8_validate (error->message, -1, NULL))
        {
          fprintf (stderr, "fuzz-module-image: a refusal without its GCUDA_ERROR_INVALID_ARGUMENT: %s\n",
                   error ? error->message : "(no error)");
          abort ();
        }
      g_error_free (error);
      return 0;
    }
  if (error != NULL)
    {
      fprintf (stderr, "fuzz-module-image: accepted, with an error set: %s\n", error->message);
      abort ();
    }

  if (size >= 4 && memcmp (data, "\177ELF", 4) == 0)
    walk_elf (image);
  else if (size >= 4 && memcmp (data, "\x50\xed\x55\xba", 4) == 0)
    walk_fatbin (image);
  else
    span_cstr (image, 0, "PTX without a NUL");  /* the driver reads PTX up to its NUL */
  return 0;
}
