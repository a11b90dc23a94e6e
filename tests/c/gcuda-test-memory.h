/* gcuda-test-memory.h: helpers shared by GCuda's memory tests (buffers,
 * host buffers, copies): random data, byte comparisons and memory made or
 * moved with assertions
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gcuda.h>

G_BEGIN_DECLS

#define KiB (G_GUINT64_CONSTANT (1024))
#define MiB (1024 * KiB)

/* ------------------------------------------------------------ data */

/* Fills @data with @size fresh random bytes (fast: seeded from g_random_int()). */
void             fill_random      (gpointer         data,
                                   gsize            size);

/* A new block (g_free()) of @size fresh random bytes (never NULL, even for 0). */
guint8          *random_data      (gsize            size);

/* The address of @host's memory, as a pointer. */
guint8          *host_ptr         (GCudaHostBuffer *host);

/* ------------------------------------------------------------ comparisons */

/* Behind assert_same(): fails at @file:@line, naming the first differing byte. */
void             assert_same_at   (const char      *file,
                                   int              line,
                                   const char      *what,
                                   gconstpointer    got,
                                   gconstpointer    want,
                                   gsize            size);

/* Asserts that @size bytes at @got are those at @want. */
#define assert_same(got, want, size) \
  assert_same_at (__FILE__, __LINE__, G_STRINGIFY (got), (got), (want), (size))

/* Behind assert_bytes(): fails at @file:@line unless @bytes is exactly @want. */
void             assert_bytes_at  (const char      *file,
                                   int              line,
                                   GBytes          *bytes,
                                   const guint8    *want,
                                   gsize            size);

/* Asserts that @bytes holds the @size bytes at @want. */
#define assert_bytes(bytes, want, size) assert_bytes_at (__FILE__, __LINE__, (bytes), (want), (size))

/* ------------------------------------------------------------ memory, with assertions */

/* A new device buffer of @size bytes in @context (NULL: the default context). */
GCudaBuffer     *new_buffer       (GCudaContext    *context,
                                   guint64          size);

/* A new page-locked host buffer of @size bytes, default flags. */
GCudaHostBuffer *new_pagelocked   (GCudaContext    *context,
                                   guint64          size);

/* Uploads @size bytes at @data to @buffer at @offset (synchronously). */
void             upload_ok        (GCudaBuffer     *buffer,
                                   guint64          offset,
                                   const guint8    *data,
                                   gsize            size);

/* Sets every byte of @buffer to @value (synchronously, legacy stream). */
void             poison           (GCudaBuffer     *buffer,
                                   guint8           value);

/* Waits for all the work queued on @stream. */
void             sync_stream      (GCudaStream     *stream);

/* ------------------------------------------------------------ the mock driver's accounting */

/* With the mock driver (tests/mock), loaded already: the allocations live
 * now and those leaked so far (still live when their context went, which
 * compute-sanitizer --leak-check full reports), and TRUE. FALSE with both 0
 * on a real driver. */
gboolean         mock_memory_counts (gsize         *live,
                                     gsize         *leaked);

G_END_DECLS
