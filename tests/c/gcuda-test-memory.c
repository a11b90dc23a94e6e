/* gcuda-test-memory.c: helpers shared by GCuda's memory tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <dlfcn.h>
#include <string.h>

#include "gcuda-test-memory.h"

/* ------------------------------------------------------------ data */

/* One step of SplitMix64: the next 64 random bits of @state. */
static guint64
splitmix64 (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

void
fill_random (gpointer data,
             gsize    size)
{
  guint64 state = ((guint64) g_random_int () << 32) | g_random_int ();
  guint8 *p = data;
  gsize i;

  for (i = 0; i + 8 <= size; i += 8)
    {
      guint64 v = splitmix64 (&state);
      memcpy (p + i, &v, 8);
    }
  if (i < size)
    {
      guint64 v = splitmix64 (&state);
      memcpy (p + i, &v, size - i);
    }
}

guint8 *
random_data (gsize size)
{
  guint8 *data = g_malloc (MAX (size, 1));

  fill_random (data, size);
  return data;
}

guint8 *
host_ptr (GCudaHostBuffer *host)
{
  return GSIZE_TO_POINTER (gcuda_host_buffer_get_address (host));
}

/* ------------------------------------------------------------ comparisons */

void
assert_same_at (const char    *file,
                int            line,
                const char    *what,
                gconstpointer  got,
                gconstpointer  want,
                gsize          size)
{
  const guint8 *g = got, *w = want;

  if (size == 0 || memcmp (g, w, size) == 0)
    return;
  for (gsize i = 0; i < size; i++)
    if (g[i] != w[i])
      g_error ("%s:%d: %s differs at byte %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
               ": 0x%02x, expected 0x%02x", file, line, what, i, size, g[i], w[i]);
}

void
assert_bytes_at (const char   *file,
                 int           line,
                 GBytes       *bytes,
                 const guint8 *want,
                 gsize         size)
{
  gsize got_size = 0;
  gconstpointer got;

  if (bytes == NULL)
    g_error ("%s:%d: no bytes", file, line);
  got = g_bytes_get_data (bytes, &got_size);
  if (got_size != size)
    g_error ("%s:%d: %" G_GSIZE_FORMAT " bytes, expected %" G_GSIZE_FORMAT, file, line, got_size, size);
  assert_same_at (file, line, "bytes", got, want, size);
}

/* ------------------------------------------------------------ memory, with assertions */

GCudaBuffer *
new_buffer (GCudaContext *context,
            guint64       size)
{
  GError *error = NULL;
  GCudaBuffer *buffer = gcuda_buffer_new (context, size, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_BUFFER (buffer));
  return buffer;
}

GCudaHostBuffer *
new_pagelocked (GCudaContext *context,
                guint64       size)
{
  GError *error = NULL;
  GCudaHostBuffer *host = gcuda_host_buffer_new_pagelocked (context, size, GCUDA_HOST_ALLOC_FLAGS_DEFAULT, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_HOST_BUFFER (host));
  return host;
}

void
upload_ok (GCudaBuffer  *buffer,
           guint64       offset,
           const guint8 *data,
           gsize         size)
{
  GError *error = NULL;

  g_assert_true (gcuda_buffer_upload (buffer, offset, data, size, &error));
  g_assert_no_error (error);
}

void
poison (GCudaBuffer *buffer,
        guint8       value)
{
  GError *error = NULL;

  g_assert_true (gcuda_buffer_memset_d8 (buffer, 0, value, gcuda_buffer_get_size (buffer), NULL, &error));
  g_assert_no_error (error);
}

void
sync_stream (GCudaStream *stream)
{
  GError *error = NULL;

  g_assert_true (gcuda_stream_synchronize (stream, &error));
  g_assert_no_error (error);
}

/* ------------------------------------------------------------ the mock driver's accounting */

gboolean
mock_memory_counts (gsize *live,
                    gsize *leaked)
{
  const char *path = g_getenv ("GCUDA_DRIVER_LIBRARY");
  void (*get_allocations) (size_t *, size_t *) = NULL;
  void (*get_leaks) (size_t *, size_t *) = NULL;
  size_t n_live = 0, n_leaked = 0;
  void *lib;

  *live = *leaked = 0;
  /* GCuda loaded it already: only look it up */
  lib = path != NULL ? dlopen (path, RTLD_NOW | RTLD_NOLOAD) : NULL;
  if (lib == NULL)
    return FALSE;
  get_allocations = (void (*) (size_t *, size_t *)) dlsym (lib, "gcuda_mock_get_allocations");
  get_leaks = (void (*) (size_t *, size_t *)) dlsym (lib, "gcuda_mock_get_leaks");
  if (get_allocations != NULL && get_leaks != NULL)
    {
      get_allocations (&n_live, NULL);
      get_leaks (&n_leaked, NULL);
    }
  dlclose (lib);
  *live = n_live;
  *leaked = n_leaked;
  return get_allocations != NULL && get_leaks != NULL;
}
