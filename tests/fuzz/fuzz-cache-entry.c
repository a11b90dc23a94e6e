/* fuzz-cache-entry.c: libFuzzer harness for the compile cache's entry
 * parser, its lowered-name parser and its disk lookup
 * (libgcuda/gcuda-compile-cache-private.c), with round-trip oracles
 *
 * An entry is code that GCuda loads, so what matters besides not crashing
 * is that the parser accepts exactly what the writer writes. Each input:
 *
 *   1. is parsed as an entry, under the key found in it (when it holds a
 *      valid one); an entry that parses must be rebuilt, byte for byte,
 *      from what the parser returned (image, log, lowered names): nothing
 *      in the file is ignored, nothing parsed loosely;
 *   2. is parsed again with its SHA-256 made right (and a valid key put
 *      in), so that the fuzzer gets past the digest into the lengths, the
 *      flags and the lowered names; same oracle;
 *   3. with its digest made right, is written as "<key>.bin" in a private
 *      cache directory and looked up from disk (the in-process cache
 *      cleared): the lookup must agree with the parser (a hit with the
 *      same image and names, or a miss that deleted the file);
 *   4. is parsed whole as the lowered names' text: when it parses, it must
 *      be what the serializer writes for the table it gave.
 *
 * Build: a clang build (see tests/fuzz/meson.build). Run long:
 *   build/tests/fuzz/fuzz-cache-entry -max_total_time=3600 -create_missing_dirs=1 \
 *     build/tests/fuzz/fuzz-cache-entry-corpus build/tests/fuzz/cache-entry-seeds
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "gcuda-compile-cache-private.h"

#define HEADER_SIZE 140
#define KEY_OFFSET  20
#define KEY_LENGTH  64
#define DIGEST_OFFSET 108

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void G_GNUC_NORETURN
oracle_failed (const char *what)
{
  fprintf (stderr, "fuzz-cache-entry: %s\n", what);
  abort ();
}

static gboolean
is_key (const uint8_t *p)
{
  for (guint i = 0; i < KEY_LENGTH; i++)
    if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
      return FALSE;
  return TRUE;
}

/* Parses @entry under @key; when it parses, checks that the writer makes
 * the same bytes from the result. Returns the image (NULL: not an entry),
 * with the log and names. */
static GBytes *
parse_and_rebuild (GBytes      *entry,
                   const char  *key,
                   char       **log_out,
                   GHashTable **lowered_out)
{
  GBytes *image = _gcuda_compile_cache_parse_entry (entry, key, log_out, lowered_out);
  g_autoptr(GBytes) rebuilt = NULL;

  if (image == NULL)
    {
      if (*log_out != NULL || *lowered_out != NULL)
        oracle_failed ("a refused entry set outputs");
      return NULL;
    }
  rebuilt = _gcuda_compile_cache_build_entry (key, image, *log_out, *lowered_out);
  if (!g_bytes_equal (rebuilt, entry))
    oracle_failed ("an entry that parses is not what the writer makes of what it holds");
  return image;
}

static void
lowered_round_trip (const uint8_t *data,
                    size_t         size)
{
  g_autoptr(GHashTable) table = _gcuda_compile_cache_parse_lowered ((const char *) data, size);
  g_autofree char *text = NULL;

  if (table == NULL)
    return;
  text = _gcuda_compile_cache_serialize_lowered (table);
  if (strlen (text) != size || memcmp (text, data, size) != 0)
    oracle_failed ("lowered names that parse are not what the serializer writes");
}

static gboolean
tables_equal (GHashTable *a,
              GHashTable *b)
{
  GHashTableIter iter;
  gpointer k, v;

  if (a == NULL || b == NULL)
    return a == b;
  if (g_hash_table_size (a) != g_hash_table_size (b))
    return FALSE;
  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &k, &v))
    if (g_strcmp0 (g_hash_table_lookup (b, k), v) != 0)
      return FALSE;
  return TRUE;
}

static const char *
cache_dir (void)
{
  static char *dir;

  if (dir == NULL)
    {
      GError *error = NULL;

      dir = g_dir_make_tmp ("gcuda-fuzz-cache-XXXXXX", &error);
      if (dir == NULL || g_chmod (dir, 0700) != 0)
        oracle_failed ("no temporary directory");
    }
  return dir;
}

/* The disk lookup agrees with the parser */
static void
disk_round_trip (GBytes     *entry,
                 const char *key,
                 GBytes     *image,
                 const char *log,
                 GHashTable *lowered)
{
  g_autofree char *name = g_strconcat (key, ".bin", NULL);
  g_autofree char *path = g_build_filename (cache_dir (), name, NULL);
  g_autoptr(GBytes) got = NULL;
  g_autoptr(GHashTable) got_lowered = NULL;
  g_autofree char *got_log = NULL;

  if (!g_file_set_contents_full (path, g_bytes_get_data (entry, NULL), g_bytes_get_size (entry),
                                 G_FILE_SET_CONTENTS_NONE, 0600, NULL))
    oracle_failed ("could not write the entry");
  _gcuda_compile_cache_clear_memory ();
  got = _gcuda_compile_cache_lookup (cache_dir (), key, &got_log, &got_lowered);
  if (image == NULL)
    {
      if (got != NULL)
        oracle_failed ("the disk lookup took an entry the parser refuses");
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        oracle_failed ("the disk lookup kept a damaged entry");
      return;
    }
  if (got == NULL || !g_bytes_equal (got, image) || g_strcmp0 (got_log, log) != 0 ||
      !tables_equal (got_lowered, lowered))
    oracle_failed ("the disk lookup does not give what the parser does");
  g_unlink (path);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  char key[KEY_LENGTH + 1];
  g_autofree guint8 *fixed = NULL;

  /* 1: as it is */
  memset (key, '0', KEY_LENGTH);
  key[KEY_LENGTH] = '\0';
  if (size >= KEY_OFFSET + KEY_LENGTH && is_key (data + KEY_OFFSET))
    memcpy (key, data + KEY_OFFSET, KEY_LENGTH);
  {
    g_autoptr(GBytes) entry = g_bytes_new (data, size);
    g_autofree char *log = NULL;
    g_autoptr(GHashTable) lowered = NULL;
    g_autoptr(GBytes) image = NULL;

    image = parse_and_rebuild (entry, key, &log, &lowered);
  }

  /* 2 and 3: with a valid key and the digest the content has */
  if (size >= HEADER_SIZE)
    {
      g_autoptr(GChecksum) cs = g_checksum_new (G_CHECKSUM_SHA256);
      g_autoptr(GBytes) entry = NULL;
      g_autoptr(GBytes) image = NULL;
      g_autoptr(GHashTable) lowered = NULL;
      g_autofree char *log = NULL;
      gsize digest_len = 32;

      fixed = g_memdup2 (data, size);
      memcpy (fixed + KEY_OFFSET, key, KEY_LENGTH);
      g_checksum_update (cs, fixed + HEADER_SIZE, size - HEADER_SIZE);
      g_checksum_get_digest (cs, fixed + DIGEST_OFFSET, &digest_len);
      entry = g_bytes_new (fixed, size);
      image = parse_and_rebuild (entry, key, &log, &lowered);
      disk_round_trip (entry, key, image, log, lowered);
    }

  /* 4: the lowered names alone */
  lowered_round_trip (data, size);
  return 0;
}
