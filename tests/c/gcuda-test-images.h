/* gcuda-test-images.h: module images made by hand for the tests of the
 * image checker: fatbins (uncompressed, LZ4, Zstandard) wrapped around
 * NVRTC's output, and one damaged image per check, shared by the nogpu
 * unit tests (test-module), the real-driver test (test-module-crafted)
 * and the fuzzer's seeds (tests/fuzz)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gcuda.h>

G_BEGIN_DECLS

/* What the crafted images are made from. */
typedef struct {
  GBytes *cubin;   /* for SM @arch, with a symbol table, relocations and .nv.info */
  GBytes *ptx;     /* NUL-terminated */
  guint   arch;    /* 90 for sm_90: written in fatbin entries */
} TestImages;

/* Compiles @source (extern "C") with NVRTC for sm_@arch, as a cubin and
 * as PTX, without the cache: needs no driver. */
void     test_images_init  (TestImages *images,
                            const char *source,
                            guint       arch);
void     test_images_clear (TestImages *images);

/* ------------------------------------------------------------ fatbins */

typedef enum {
  TEST_COMPRESS_NONE,
  TEST_COMPRESS_LZ4,   /* an LZ4 block of literals only */
  TEST_COMPRESS_ZSTD,  /* a Zstandard frame of raw blocks */
} TestCompression;

typedef struct {
  guint            kind;         /* 1 PTX, 2 cubin */
  GBytes          *content;      /* PTX (NUL-terminated) or a cubin */
  TestCompression  compression;
  guint            arch;
  const char      *name;         /* nullable: kept in the entry's header */
  const char      *options;      /* nullable: PTX JIT options in the header */
} TestFatbinEntry;

/* A fatbin of @n entries laid out as fatbinary lays them out. */
GBytes  *test_fatbin_new (const TestFatbinEntry *entries,
                          guint                  n);

/* Byte offsets in a fatbin and in its entries' headers. */
enum {
  TEST_FATBIN_FIRST_ENTRY = 16,
  TEST_ENTRY_HEADER_SIZE = 4,      /* 4 bytes */
  TEST_ENTRY_PAYLOAD_SIZE = 8,     /* 8 bytes */
  TEST_ENTRY_COMPRESSED_SIZE = 16, /* 4 bytes */
  TEST_ENTRY_OPTIONS = 20,         /* 4 bytes */
  TEST_ENTRY_NAME_OFFSET = 32,     /* 4 bytes */
  TEST_ENTRY_NAME_LENGTH = 36,     /* 4 bytes */
  TEST_ENTRY_FLAGS = 40,           /* 8 bytes */
  TEST_ENTRY_DECOMPRESSED_SIZE = 56, /* 8 bytes */
};

/* ------------------------------------------------------------ bytes */

guint64  test_image_get (const guint8 *data,
                         gsize         offset,
                         guint         bytes);
void     test_image_set (guint8       *data,
                         gsize         offset,
                         guint         bytes,
                         guint64       value);

/* ------------------------------------------------------------ the images */

typedef struct {
  const char *name;
  /* nullable for valid images; else a g_pattern_match_simple() pattern
   * the checker's message matches */
  const char *refusal;
  GBytes     *(*make) (const TestImages *images);
} TestCraftedImage;

/* Images that load and run, by name; a NULL name ends the table. */
extern const TestCraftedImage test_valid_images[];

/* One damaged image per check of the module image checker (each audit
 * finding among them), with the refusal expected; a NULL name ends it. */
extern const TestCraftedImage test_damaged_images[];

G_END_DECLS
