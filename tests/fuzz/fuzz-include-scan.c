/* fuzz-include-scan.c: libFuzzer harness for the compile cache's include
 * scanner (libgcuda/gcuda-compile-cache-private.c), which reads every
 * #include, #import, #embed and __has_include of a source and of the
 * headers it names, to put their contents in the cache key.
 *
 * The input is a source and in-memory headers, separated by lines of
 * "//@@" (the second part is "h1.h", the third "h2.h"...), so that the
 * fuzzer can make them include each other; the source is scanned as bytes
 * (NULs included, as in a header file). Files are never looked up: a
 * fuzzer must not read the machine's files.
 *
 * Oracles, cheap ones:
 *   - the scan is deterministic: twice, the same digest (or the same
 *     "cannot be determined") and the same header names in the same order;
 *   - every name the scanner resolved is in the text: it appears in the
 *     source or a header once backslash-newlines are joined (names come
 *     from the text only, never from past a buffer's end).
 *
 * Build: a clang build (see tests/fuzz/meson.build). Run long:
 *   build/tests/fuzz/fuzz-include-scan -max_total_time=3600 -create_missing_dirs=1 \
 *     build/tests/fuzz/fuzz-include-scan-corpus build/tests/fuzz/include-scan-seeds
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE 1  /* memmem */

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "gcuda-compile-cache-private.h"

#define SEPARATOR "\n//@@\n"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void G_GNUC_NORETURN
oracle_failed (const char *what,
               const char *detail)
{
  fprintf (stderr, "fuzz-include-scan: %s: %s\n", what, detail != NULL ? detail : "");
  abort ();
}

/* @text with backslash-newlines (and backslash-CR-LF) taken out, appended
 * to @joined */
static void
append_joined (GString    *joined,
               const char *text,
               gsize       len)
{
  for (gsize i = 0; i < len; i++)
    {
      if (text[i] == '\\' && i + 1 < len && text[i + 1] == '\n')
        i += 1;
      else if (text[i] == '\\' && i + 2 < len && text[i + 1] == '\r' && text[i + 2] == '\n')
        i += 2;
      else
        g_string_append_c (joined, text[i]);
    }
  g_string_append_c (joined, '\n');
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static const char * const options[] = { "--gpu-architecture=sm_90", "-I/nonexistent-gcuda-fuzz", NULL };
  g_autoptr(GHashTable) headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) names1 = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) names2 = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) joined = g_string_new (NULL);
  g_autofree char *digest1 = NULL;
  g_autofree char *digest2 = NULL;
  const char *text = (const char *) data;
  const char *end = text + size;
  const char *sep = memmem (text, size, SEPARATOR, strlen (SEPARATOR));
  gsize source_len = sep != NULL ? (gsize) (sep - text) : size;
  GCudaCompileInputs inputs = {
    .source = "",
    .source_name = "kernel.cu",
    .options = options,
    .include_dirs = NULL,
    .headers = headers,
    .name_expressions = NULL,
    .target = "ptx",
  };

  append_joined (joined, text, source_len);
  for (guint n = 1; sep != NULL; n++)
    {
      const char *part = sep + strlen (SEPARATOR);
      const char *next = memmem (part, end - part, SEPARATOR, strlen (SEPARATOR));
      gsize len = (next != NULL ? next : end) - part;

      /* a C string, as the API takes them: cut at a NUL */
      g_hash_table_insert (headers, g_strdup_printf ("h%u.h", n), g_strndup (part, len));
      append_joined (joined, part, strnlen (part, len));
      sep = next;
    }

  digest1 = _gcuda_compile_cache_scan_includes (&inputs, text, source_len, FALSE, names1);
  digest2 = _gcuda_compile_cache_scan_includes (&inputs, text, source_len, FALSE, names2);
  if (g_strcmp0 (digest1, digest2) != 0)
    oracle_failed ("two scans of the same text differ", NULL);
  if (names1->len != names2->len)
    oracle_failed ("two scans resolved different numbers of names", NULL);
  for (guint i = 0; i < names1->len; i++)
    {
      const char *name = names1->pdata[i];

      if (!g_str_equal (name, names2->pdata[i]))
        oracle_failed ("two scans resolved different names", name);
      if (*name == '\0')
        oracle_failed ("an empty name was resolved", NULL);
      if (memmem (joined->str, joined->len, name, strlen (name)) == NULL)
        oracle_failed ("a name that is not in the text was resolved", name);
    }
  return 0;
}
