/* test-copy.c: GCudaCopy2D, GCudaCopy3D and GCudaCopy3DPeer
 *
 * Every copy moves a sub-box with offsets and pitches of fresh random data;
 * the result is compared, whole (so bytes outside the region must be left
 * alone), with the same copy done on the host. The checks that need no
 * device (/copy/properties, /copy/validation-host) also run without a
 * driver: validation must come before any driver call.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-test-async.h"
#include "gcuda-test-memory.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ helpers */

/* Where a region lies in one endpoint. rows: rows per slice (3D only). */
typedef struct {
  guint64 x, y, z, pitch, rows;
} Geometry;

/* The last byte a region of @g touches, plus one. */
static guint64
geometry_end (const Geometry *g,
              guint64         width,
              guint64         height,
              guint64         depth)
{
  return g->x + (g->y + (g->z + depth - 1) * g->rows + height - 1) * g->pitch + width;
}

/* The copy done on the host: what the device must reproduce. */
static void
copy_on_host (guint8         *dst,
              const Geometry *dg,
              const guint8   *src,
              const Geometry *sg,
              guint64         width,
              guint64         height,
              guint64         depth)
{
  for (guint64 s = 0; s < depth; s++)
    for (guint64 r = 0; r < height; r++)
      memcpy (dst + dg->x + (dg->y + r + (dg->z + s) * dg->rows) * dg->pitch,
              src + sg->x + (sg->y + r + (sg->z + s) * sg->rows) * sg->pitch, width);
}

/* Sets the geometry of any of the three copy classes (all properties are
 * guint64, so the varargs are right). */
static void
set_geometry (gpointer        copy,
              const Geometry *src,
              const Geometry *dst,
              guint64         width,
              guint64         height,
              guint64         depth)
{
  g_object_set (copy,
                "src-x-in-bytes", src->x, "src-y", src->y, "src-pitch", src->pitch,
                "dst-x-in-bytes", dst->x, "dst-y", dst->y, "dst-pitch", dst->pitch,
                "width-in-bytes", width, "height", height,
                NULL);
  if (!GCUDA_IS_COPY_2D (copy))
    g_object_set (copy,
                  "src-z", src->z, "src-height", src->rows,
                  "dst-z", dst->z, "dst-height", dst->rows,
                  "depth", depth,
                  NULL);
}

static gboolean
execute (gpointer      copy,
         GCudaStream  *stream,
         GError      **error)
{
  if (GCUDA_IS_COPY_2D (copy))
    return gcuda_copy_2d_execute (copy, stream, error);
  if (GCUDA_IS_COPY_3D (copy))
    return gcuda_copy_3d_execute (copy, stream, error);
  return gcuda_copy_3d_peer_execute (copy, stream, error);
}

static void
execute_ok (gpointer     copy,
            GCudaStream *stream)
{
  GError *error = NULL;

  g_assert_true (execute (copy, stream, &error));
  g_assert_no_error (error);
}

/* The endpoint setters of the three classes, by kind. */
typedef enum { HOST, UNIFIED } AddressKind;

static void
set_src_address (gpointer copy, AddressKind kind, gconstpointer data, guint64 size)
{
  guint64 a = (guint64) GPOINTER_TO_SIZE (data);

  if (GCUDA_IS_COPY_2D (copy))
    (kind == HOST ? gcuda_copy_2d_set_src_host : gcuda_copy_2d_set_src_unified) (copy, a, size);
  else if (GCUDA_IS_COPY_3D (copy))
    (kind == HOST ? gcuda_copy_3d_set_src_host : gcuda_copy_3d_set_src_unified) (copy, a, size);
  else
    (kind == HOST ? gcuda_copy_3d_peer_set_src_host : gcuda_copy_3d_peer_set_src_unified) (copy, a, size);
}

static void
set_dst_address (gpointer copy, AddressKind kind, gconstpointer data, guint64 size)
{
  guint64 a = (guint64) GPOINTER_TO_SIZE (data);

  if (GCUDA_IS_COPY_2D (copy))
    (kind == HOST ? gcuda_copy_2d_set_dst_host : gcuda_copy_2d_set_dst_unified) (copy, a, size);
  else if (GCUDA_IS_COPY_3D (copy))
    (kind == HOST ? gcuda_copy_3d_set_dst_host : gcuda_copy_3d_set_dst_unified) (copy, a, size);
  else
    (kind == HOST ? gcuda_copy_3d_peer_set_dst_host : gcuda_copy_3d_peer_set_dst_unified) (copy, a, size);
}

static void
set_src_buffer (gpointer copy, GCudaBuffer *buffer)
{
  if (GCUDA_IS_COPY_2D (copy))
    gcuda_copy_2d_set_src_buffer (copy, buffer);
  else if (GCUDA_IS_COPY_3D (copy))
    gcuda_copy_3d_set_src_buffer (copy, buffer);
  else
    gcuda_copy_3d_peer_set_src_buffer (copy, buffer);
}

static void
set_dst_buffer (gpointer copy, GCudaBuffer *buffer)
{
  if (GCUDA_IS_COPY_2D (copy))
    gcuda_copy_2d_set_dst_buffer (copy, buffer);
  else if (GCUDA_IS_COPY_3D (copy))
    gcuda_copy_3d_set_dst_buffer (copy, buffer);
  else
    gcuda_copy_3d_peer_set_dst_buffer (copy, buffer);
}

static void
set_src_host_buffer (gpointer copy, GCudaHostBuffer *buffer)
{
  if (GCUDA_IS_COPY_2D (copy))
    gcuda_copy_2d_set_src_host_buffer (copy, buffer);
  else if (GCUDA_IS_COPY_3D (copy))
    gcuda_copy_3d_set_src_host_buffer (copy, buffer);
  else
    gcuda_copy_3d_peer_set_src_host_buffer (copy, buffer);
}

static void
set_dst_host_buffer (gpointer copy, GCudaHostBuffer *buffer)
{
  if (GCUDA_IS_COPY_2D (copy))
    gcuda_copy_2d_set_dst_host_buffer (copy, buffer);
  else if (GCUDA_IS_COPY_3D (copy))
    gcuda_copy_3d_set_dst_host_buffer (copy, buffer);
  else
    gcuda_copy_3d_peer_set_dst_host_buffer (copy, buffer);
}

static gpointer
new_copy (GType type)
{
  gpointer copy;

  if (type == GCUDA_TYPE_COPY_2D)
    copy = gcuda_copy_2d_new ();
  else if (type == GCUDA_TYPE_COPY_3D)
    copy = gcuda_copy_3d_new ();
  else
    copy = gcuda_copy_3d_peer_new ();
  g_assert_true (G_TYPE_CHECK_INSTANCE_TYPE (copy, type));
  return copy;
}

/* A buffer filled with random bytes, whose copy is returned in *@data. */
static GCudaBuffer *
new_random_buffer (GCudaContext  *context,
                   guint64        size,
                   guint8       **data)
{
  GCudaBuffer *buffer = new_buffer (context, size);

  *data = random_data (size);
  upload_ok (buffer, 0, *data, size);
  return buffer;
}

static void
assert_buffer_equals (GCudaBuffer  *buffer,
                      const guint8 *expected,
                      gsize         size)
{
  g_autoptr(GBytes) bytes = NULL;
  GError *error = NULL;

  bytes = gcuda_buffer_download (buffer, 0, size, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < size; i++)
    if (((const guint8 *) g_bytes_get_data (bytes, NULL))[i] != expected[i])
      {
        g_test_message ("first difference at byte %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT ": %u, expected %u",
                        i, size, ((const guint8 *) g_bytes_get_data (bytes, NULL))[i], expected[i]);
        break;
      }
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), expected, size);
}

static GCudaHostBuffer *
new_pinned (guint64 size)
{
  GCudaHostBuffer *buffer = new_pagelocked (NULL, size);

  g_assert_cmpuint (gcuda_host_buffer_get_size (buffer), >=, size);
  return buffer;
}

/* ------------------------------------------------------------ properties (no GPU) */

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  (*(int *) user_data)++;
}

static void
test_properties (void)
{
  static const char * const names_2d[] = {
    "src-x-in-bytes", "src-y", "src-pitch", "dst-x-in-bytes", "dst-y", "dst-pitch",
    "width-in-bytes", "height", NULL,
  };
  static const char * const names_3d[] = {
    "src-z", "src-height", "dst-z", "dst-height", "depth", NULL,
  };
  GType types[] = { GCUDA_TYPE_COPY_2D, GCUDA_TYPE_COPY_3D, GCUDA_TYPE_COPY_3D_PEER };

  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    {
      g_autoptr(GObject) copy = new_copy (types[t]);
      gboolean three_d = types[t] != GCUDA_TYPE_COPY_2D;
      guint64 v = 0, big = G_MAXUINT64 - 3;
      int notified = 0;

      g_signal_connect (copy, "notify", G_CALLBACK (count_notify), &notified);
      for (guint pass = 0; pass < 2; pass++)
        {
          const char * const *names = pass == 0 ? names_2d : names_3d;

          if (pass == 1 && !three_d)
            {
              for (guint i = 0; names[i] != NULL; i++)
                g_assert_null (g_object_class_find_property (G_OBJECT_GET_CLASS (copy), names[i]));
              continue;
            }
          for (guint i = 0; names[i] != NULL; i++)
            {
              GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (copy), names[i]);

              g_assert_nonnull (pspec);
              g_assert_true (G_IS_PARAM_SPEC_UINT64 (pspec));
              g_assert_true (pspec->flags & G_PARAM_EXPLICIT_NOTIFY);

              /* PyCUDA's zero-initialized fields */
              g_object_get (copy, names[i], &v, NULL);
              g_assert_cmpuint (v, ==, 0);

              notified = 0;
              g_object_set (copy, names[i], big - i, NULL);
              g_object_get (copy, names[i], &v, NULL);
              g_assert_cmpuint (v, ==, big - i);
              g_assert_cmpint (notified, ==, 1);
              /* the same value again: no notification */
              g_object_set (copy, names[i], big - i, NULL);
              g_assert_cmpint (notified, ==, 1);
            }
        }
      /* only the 2D form chooses between cuMemcpy2D and cuMemcpy2DUnaligned */
      g_assert_true ((g_object_class_find_property (G_OBJECT_GET_CLASS (copy), "aligned") != NULL) == !three_d);
    }

  {
    g_autoptr(GCudaCopy2D) c2 = gcuda_copy_2d_new ();
    gboolean aligned = FALSE;
    int notified = 0;

    g_signal_connect (c2, "notify::aligned", G_CALLBACK (count_notify), &notified);
    /* PyCUDA's Memcpy2D.__call__(aligned=True) */
    g_assert_true (gcuda_copy_2d_get_aligned (c2));
    g_object_get (c2, "aligned", &aligned, NULL);
    g_assert_true (aligned);
    gcuda_copy_2d_set_aligned (c2, FALSE);
    g_assert_false (gcuda_copy_2d_get_aligned (c2));
    g_object_get (c2, "aligned", &aligned, NULL);
    g_assert_false (aligned);
    g_assert_cmpint (notified, ==, 1);
    gcuda_copy_2d_set_aligned (c2, FALSE);
    g_assert_cmpint (notified, ==, 1);
    g_object_set (c2, "aligned", TRUE, NULL);
    g_assert_true (gcuda_copy_2d_get_aligned (c2));
    g_assert_cmpint (notified, ==, 2);
  }
}

/* ------------------------------------------------------------ validation (no GPU) */

/* A copy between two host arrays that would be valid. */
static gpointer
new_valid_host_copy (GType    type,
                     guint8  *src,
                     guint64  src_size,
                     guint8  *dst,
                     guint64  dst_size)
{
  gpointer copy = new_copy (type);
  Geometry g = { .x = 2, .y = 1, .z = 0, .pitch = 16, .rows = 4 };

  set_src_address (copy, HOST, src, src_size);
  set_dst_address (copy, HOST, dst, dst_size);
  set_geometry (copy, &g, &g, 8, 3, 1);
  return copy;
}

static void
assert_execute_fails (gpointer copy,
                      GCudaStream *stream,
                      int code)
{
  GError *error = NULL;

  g_assert_false (execute (copy, stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, code);
}

static void
test_validation_host (void)
{
  GType types[] = { GCUDA_TYPE_COPY_2D, GCUDA_TYPE_COPY_3D, GCUDA_TYPE_COPY_3D_PEER };
  guint8 src[256], dst[256];

  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    {
      gboolean three_d = types[t] != GCUDA_TYPE_COPY_2D;
      Geometry g = { .x = 2, .y = 1, .z = 0, .pitch = 16, .rows = 4 };
      /* the valid region ends at byte 2 + (1 + 2) × 16 + 8 = 58 */
      guint64 end = geometry_end (&g, 8, 3, 1);
      gpointer copy;

      g_assert_cmpuint (end, ==, 58);

      /* missing endpoints */
      copy = new_copy (types[t]);
      set_geometry (copy, &g, &g, 8, 3, 1);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
      set_src_address (copy, HOST, src, sizeof src);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
      set_src_buffer (copy, NULL);  /* unsets the source */
      set_dst_address (copy, HOST, dst, sizeof dst);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
      set_src_host_buffer (copy, NULL);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
      g_object_unref (copy);

      /* an empty region */
      copy = new_valid_host_copy (types[t], src, sizeof src, dst, sizeof dst);
      g_object_set (copy, "width-in-bytes", (guint64) 0, NULL);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
      g_object_set (copy, "width-in-bytes", (guint64) 8, "height", (guint64) 0, NULL);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
      g_object_set (copy, "height", (guint64) 3, NULL);
      if (three_d)
        {
          g_object_set (copy, "depth", (guint64) 0, NULL);
          assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
          g_object_set (copy, "depth", (guint64) 1, NULL);
        }

      /* pitches smaller than the rows */
      g_object_set (copy, "src-pitch", (guint64) 7, NULL);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
      g_object_set (copy, "src-pitch", (guint64) 16, "dst-pitch", (guint64) 7, NULL);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
      /* ... counting the x offset, as the driver does */
      g_object_set (copy, "dst-pitch", (guint64) 9, NULL);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
      g_object_set (copy, "dst-pitch", (guint64) 16, NULL);
      if (three_d)
        {
          /* one row per slice, several slices: the pitch still matters */
          g_object_set (copy, "height", (guint64) 1, "src-y", (guint64) 0, "dst-y", (guint64) 0,
                        "depth", (guint64) 2, "src-pitch", (guint64) 4, NULL);
          assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
          /* rows per slice smaller than y + height */
          g_object_set (copy, "height", (guint64) 3, "src-y", (guint64) 1, "dst-y", (guint64) 1,
                        "src-pitch", (guint64) 16, "src-height", (guint64) 3, NULL);
          assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
          g_object_set (copy, "src-height", (guint64) 4, "dst-height", (guint64) 2, NULL);
          assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
          g_object_set (copy, "dst-height", (guint64) 4, "depth", (guint64) 1, NULL);
        }
      g_object_unref (copy);

      /* the region outside the memory, by one byte, on either side */
      copy = new_valid_host_copy (types[t], src, end - 1, dst, sizeof dst);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
      set_src_address (copy, HOST, src, end);
      set_dst_address (copy, HOST, dst, end - 1);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
      /* unified memory is checked alike */
      set_dst_address (copy, UNIFIED, dst, end - 1);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
      set_dst_address (copy, HOST, dst, sizeof dst);
      if (three_d)
        {
          /* a later slice reaches out: 2 + (1 + 1 × 4 + 2) × 16 + 8 = 122 */
          Geometry g3 = g;

          g3.z = 1;
          g_assert_cmpuint (geometry_end (&g3, 8, 3, 1), ==, 122);
          set_geometry (copy, &g3, &g, 8, 3, 1);
          set_src_address (copy, HOST, src, 121);
          assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
          set_geometry (copy, &g, &g, 8, 3, 2);  /* two slices: 2 + 7 × 16 + 8 = 122 */
          assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
          set_geometry (copy, &g, &g, 8, 3, 1);
        }

      /* exactly fitting regions pass validation: the copy runs (on a GPU)
       * or fails for want of a driver, never for its geometry */
      {
        g_autofree guint8 *expected = NULL;
        g_autofree guint8 *data = random_data (sizeof src);
        GError *error = NULL;

        memcpy (src, data, sizeof src);
        memset (dst, 0xa5, sizeof dst);
        expected = g_memdup2 (dst, sizeof dst);
        copy_on_host (expected, &g, src, &g, 8, 3, 1);
        set_src_address (copy, HOST, src, end);
        set_dst_address (copy, HOST, dst, end);
        if (execute (copy, NULL, &error))
          {
            g_assert_no_error (error);
            g_assert_cmpmem (dst, sizeof dst, expected, sizeof dst);
          }
        else
          {
            g_assert_nonnull (error);
            g_assert_false (error->domain == GCUDA_ERROR &&
                            (error->code == GCUDA_ERROR_OUT_OF_BOUNDS ||
                             error->code == GCUDA_ERROR_INVALID_ARGUMENT));
            g_clear_error (&error);
          }
      }
      g_object_unref (copy);

      /* offsets and sizes that overflow 64 bits */
      copy = new_valid_host_copy (types[t], src, sizeof src, dst, sizeof dst);
      g_object_set (copy, "src-x-in-bytes", G_MAXUINT64 - 2, "src-pitch", G_MAXUINT64, NULL);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
      g_object_set (copy, "src-x-in-bytes", (guint64) 0, "src-pitch", (guint64) 16,
                    "src-y", G_MAXUINT64 / 8, NULL);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
      g_object_set (copy, "src-y", (guint64) 1, "height", G_MAXUINT64, NULL);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
      g_object_set (copy, "height", (guint64) 3, "dst-pitch", G_MAXUINT64 / 2, NULL);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
      g_object_set (copy, "dst-pitch", (guint64) 16, NULL);
      if (three_d)
        {
          g_object_set (copy, "src-z", G_MAXUINT64 / 4, "src-height", (guint64) 8, NULL);
          assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
          g_object_set (copy, "src-z", (guint64) 0, "depth", G_MAXUINT64, NULL);
          assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
          g_object_set (copy, "depth", (guint64) 1, NULL);
        }

      /* malformed host memory */
      set_src_address (copy, HOST, NULL, sizeof src);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
      set_src_address (copy, UNIFIED, GSIZE_TO_POINTER (G_MAXSIZE - 15), 64);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_INVALID_ARGUMENT);
      set_src_address (copy, HOST, src, sizeof src);

      /* a stream object with no CUDA stream behind it */
      {
        g_autoptr(GCudaStream) fake = g_object_new (GCUDA_TYPE_STREAM, NULL);

        assert_execute_fails (copy, fake, GCUDA_ERROR_INVALID_ARGUMENT);
      }
      g_object_unref (copy);
    }
}

/* ------------------------------------------------------------ 2D */

static void
test_2d_round_trip (void)
{
  const guint64 width = 41, height = 13;
  g_autoptr(GCudaBuffer) pitched = NULL;
  g_autoptr(GCudaBuffer) plain = NULL;
  g_autoptr(GCudaCopy2D) up = NULL;
  g_autoptr(GCudaCopy2D) down = NULL;
  g_autoptr(GCudaCopy2D) across = NULL;
  g_autofree guint8 *src = NULL;
  g_autofree guint8 *dev = NULL;
  g_autofree guint8 *dst = NULL;
  g_autofree guint8 *plain_data = NULL;
  g_autofree guint8 *expected_dst = NULL;
  Geometry hs = { .x = 5, .y = 3, .pitch = 97 };
  Geometry dg = { .x = 7, .y = 2 };
  Geometry hd = { .x = 11, .y = 4, .pitch = 83 };
  Geometry pg = { .x = 3, .y = 6, .pitch = 50 };
  guint64 hs_size = 97 * 20, hd_size = 83 * 19, dev_size, plain_size = 50 * 22;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  /* a pitched device buffer, filled with random bytes first */
  pitched = gcuda_buffer_new_pitched (NULL, 64, 24, 4, &error);
  g_assert_no_error (error);
  dg.pitch = gcuda_buffer_get_pitch (pitched);
  dev_size = gcuda_buffer_get_size (pitched);
  g_assert_cmpuint (dg.pitch, >=, 64);
  dev = random_data (dev_size);
  upload_ok (pitched, 0, dev, dev_size);

  g_assert_cmpuint (geometry_end (&hs, width, height, 1), <=, hs_size);
  g_assert_cmpuint (geometry_end (&hd, width, height, 1), <=, hd_size);
  g_assert_cmpuint (geometry_end (&pg, width, height, 1), <=, plain_size);
  src = random_data (hs_size);
  dst = random_data (hd_size);

  /* host -> device */
  up = gcuda_copy_2d_new ();
  gcuda_copy_2d_set_src_host (up, (guint64) GPOINTER_TO_SIZE (src), hs_size);
  gcuda_copy_2d_set_dst_buffer (up, pitched);
  set_geometry (up, &hs, &dg, width, height, 1);
  g_assert_true (gcuda_copy_2d_execute (up, NULL, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
  copy_on_host (dev, &dg, src, &hs, width, height, 1);
  assert_buffer_equals (pitched, dev, dev_size);

  /* device -> host, unaligned form; the region lands among random bytes */
  down = gcuda_copy_2d_new ();
  gcuda_copy_2d_set_src_buffer (down, pitched);
  gcuda_copy_2d_set_dst_host (down, (guint64) GPOINTER_TO_SIZE (dst), hd_size);
  set_geometry (down, &dg, &hd, width, height, 1);
  expected_dst = g_memdup2 (dst, hd_size);
  copy_on_host (expected_dst, &hd, dev, &dg, width, height, 1);
  g_assert_true (gcuda_copy_2d_get_aligned (down));
  gcuda_copy_2d_set_aligned (down, FALSE);
  g_assert_false (gcuda_copy_2d_get_aligned (down));
  g_assert_true (gcuda_copy_2d_execute (down, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (dst, hd_size, expected_dst, hd_size);
  gcuda_test_assert_no_current_context ();

  /* the same object again, with a fresh source: copies are reusable */
  g_free (src);
  src = random_data (hs_size);
  gcuda_copy_2d_set_src_host (up, (guint64) GPOINTER_TO_SIZE (src), hs_size);
  g_assert_true (gcuda_copy_2d_execute (up, NULL, &error));
  g_assert_no_error (error);
  copy_on_host (dev, &dg, src, &hs, width, height, 1);
  assert_buffer_equals (pitched, dev, dev_size);

  /* device -> device (pitched to plain), the source as a unified address */
  plain = new_random_buffer (NULL, plain_size, &plain_data);
  across = gcuda_copy_2d_new ();
  gcuda_copy_2d_set_src_unified (across, gcuda_buffer_get_address (pitched), dev_size);
  gcuda_copy_2d_set_dst_buffer (across, plain);
  set_geometry (across, &dg, &pg, width, height, 1);
  g_assert_true (gcuda_copy_2d_execute (across, NULL, &error));
  g_assert_no_error (error);
  copy_on_host (plain_data, &pg, dev, &dg, width, height, 1);
  assert_buffer_equals (plain, plain_data, plain_size);

  /* a single row with pitches left at 0 is a plain copy */
  {
    Geometry one = { .x = 9 };
    Geometry other = { .x = 1 };

    set_geometry (across, &one, &other, 30, 1, 1);
    g_object_set (across, "aligned", FALSE, NULL);
    g_assert_true (gcuda_copy_2d_execute (across, NULL, &error));
    g_assert_no_error (error);
    copy_on_host (plain_data, &other, dev, &one, 30, 1, 1);
    assert_buffer_equals (plain, plain_data, plain_size);
  }
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ 3D */

static void
test_3d_round_trip (void)
{
  const guint64 width = 29, height = 11, depth = 5;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaCopy3D) up = NULL;
  g_autoptr(GCudaCopy3D) down = NULL;
  g_autofree guint8 *src = NULL;
  g_autofree guint8 *dev = NULL;
  g_autofree guint8 *dst = NULL;
  g_autofree guint8 *expected_dst = NULL;
  Geometry hs = { .x = 3, .y = 2, .z = 1, .pitch = 61, .rows = 17 };
  Geometry dg = { .x = 9, .y = 4, .z = 2, .pitch = 64, .rows = 20 };
  Geometry hd = { .x = 7, .y = 5, .z = 3, .pitch = 53, .rows = 19 };
  guint64 hs_size = 61 * 17 * 9, dev_size = 64 * 20 * 7, hd_size = 53 * 19 * 8;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  g_assert_cmpuint (geometry_end (&hs, width, height, depth), <=, hs_size);
  g_assert_cmpuint (geometry_end (&dg, width, height, depth), <=, dev_size);
  g_assert_cmpuint (geometry_end (&hd, width, height, depth), <=, hd_size);

  buffer = new_random_buffer (NULL, dev_size, &dev);
  src = random_data (hs_size);
  dst = random_data (hd_size);

  up = gcuda_copy_3d_new ();
  gcuda_copy_3d_set_src_host (up, (guint64) GPOINTER_TO_SIZE (src), hs_size);
  gcuda_copy_3d_set_dst_buffer (up, buffer);
  set_geometry (up, &hs, &dg, width, height, depth);
  g_assert_true (gcuda_copy_3d_execute (up, NULL, &error));
  g_assert_no_error (error);
  copy_on_host (dev, &dg, src, &hs, width, height, depth);
  assert_buffer_equals (buffer, dev, dev_size);
  gcuda_test_assert_no_current_context ();

  /* back, from the device as a unified address */
  down = gcuda_copy_3d_new ();
  gcuda_copy_3d_set_src_unified (down, gcuda_buffer_get_address (buffer), dev_size);
  gcuda_copy_3d_set_dst_host (down, (guint64) GPOINTER_TO_SIZE (dst), hd_size);
  set_geometry (down, &dg, &hd, width, height, depth);
  expected_dst = g_memdup2 (dst, hd_size);
  copy_on_host (expected_dst, &hd, dev, &dg, width, height, depth);
  g_assert_true (gcuda_copy_3d_execute (down, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (dst, hd_size, expected_dst, hd_size);

  /* device to device within one buffer: slices 0.. onto other slices */
  {
    g_autoptr(GCudaCopy3D) inside = gcuda_copy_3d_new ();
    Geometry a = { .x = 0, .y = 0, .z = 0, .pitch = 64, .rows = 20 };
    Geometry b = { .x = 32, .y = 5, .z = 4, .pitch = 64, .rows = 20 };
    g_autofree guint8 *before = g_memdup2 (dev, dev_size);

    gcuda_copy_3d_set_src_buffer (inside, buffer);
    gcuda_copy_3d_set_dst_buffer (inside, buffer);
    set_geometry (inside, &a, &b, 16, 10, 3);
    g_assert_true (gcuda_copy_3d_execute (inside, NULL, &error));
    g_assert_no_error (error);
    copy_on_host (dev, &b, before, &a, 16, 10, 3);
    assert_buffer_equals (buffer, dev, dev_size);
  }
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ 3D between contexts */

static void
test_3d_peer (void)
{
  const guint64 width = 30, height = 9, depth = 4;
  g_autoptr(GCudaContext) dflt = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaBuffer) a = NULL;
  g_autoptr(GCudaBuffer) b = NULL;
  g_autoptr(GCudaCopy3DPeer) copy = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autofree guint8 *a_data = NULL;
  g_autofree guint8 *b_data = NULL;
  Geometry ag = { .x = 5, .y = 3, .z = 2, .pitch = 64, .rows = 20 };
  Geometry bg = { .x = 10, .y = 6, .z = 1, .pitch = 48, .rows = 16 };
  guint64 a_size = 64 * 20 * 7, b_size = 48 * 16 * 6;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  dflt = get_default ();
  dedicated = create_dedicated (NULL, 0);
  g_assert_true (dflt != dedicated);
  g_assert_cmpuint (geometry_end (&ag, width, height, depth), <=, a_size);
  g_assert_cmpuint (geometry_end (&bg, width, height, depth), <=, b_size);

  a = new_random_buffer (dedicated, a_size, &a_data);
  b = new_random_buffer (dflt, b_size, &b_data);

  /* dedicated -> default, synchronously */
  copy = gcuda_copy_3d_peer_new ();
  gcuda_copy_3d_peer_set_src_buffer (copy, a);
  gcuda_copy_3d_peer_set_dst_buffer (copy, b);
  set_geometry (copy, &ag, &bg, width, height, depth);
  g_assert_true (gcuda_copy_3d_peer_execute (copy, NULL, &error));
  g_assert_no_error (error);
  copy_on_host (b_data, &bg, a_data, &ag, width, height, depth);
  assert_buffer_equals (b, b_data, b_size);
  gcuda_test_assert_no_current_context ();

  /* default -> dedicated on a stream of the destination's context, with
   * the contexts also named explicitly (they agree with the buffers) */
  g_free (b_data);
  g_clear_object (&b);
  b = new_random_buffer (dflt, b_size, &b_data);
  stream = new_stream (dedicated, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  gcuda_copy_3d_peer_set_src_buffer (copy, b);
  gcuda_copy_3d_peer_set_dst_buffer (copy, a);
  gcuda_copy_3d_peer_set_src_context (copy, dflt);
  gcuda_copy_3d_peer_set_dst_context (copy, dedicated);
  set_geometry (copy, &bg, &ag, width, height, depth);
  g_assert_true (gcuda_copy_3d_peer_execute (copy, stream, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  copy_on_host (a_data, &ag, b_data, &bg, width, height, depth);
  assert_buffer_equals (a, a_data, a_size);

  /* host memory into the dedicated context, named by set_dst_context() for
   * a unified destination address */
  {
    g_autoptr(GCudaCopy3DPeer) from_host = gcuda_copy_3d_peer_new ();
    Geometry hg = { .x = 1, .y = 2, .z = 0, .pitch = 40, .rows = 12 };
    guint64 h_size = 40 * 12 * 4;
    g_autofree guint8 *host = random_data (h_size);

    g_assert_cmpuint (geometry_end (&hg, width, height, depth), <=, h_size);
    gcuda_copy_3d_peer_set_src_host (from_host, (guint64) GPOINTER_TO_SIZE (host), h_size);
    gcuda_copy_3d_peer_set_dst_unified (from_host, gcuda_buffer_get_address (a), a_size);
    gcuda_copy_3d_peer_set_dst_context (from_host, dedicated);
    set_geometry (from_host, &hg, &ag, width, height, depth);
    g_assert_true (gcuda_copy_3d_peer_execute (from_host, NULL, &error));
    g_assert_no_error (error);
    copy_on_host (a_data, &ag, host, &hg, width, height, depth);
    assert_buffer_equals (a, a_data, a_size);
  }
  gcuda_test_assert_no_current_context ();

  g_clear_object (&copy);
  g_clear_object (&stream);
  g_clear_object (&a);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
}

/* ------------------------------------------------------------ stream-ordered */

static void
test_async (void)
{
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaBuffer) pitched = NULL;
  g_autoptr(GCudaBuffer) box = NULL;
  g_autoptr(GCudaHostBuffer) pin_src = NULL;
  g_autoptr(GCudaHostBuffer) pin_dst = NULL;
  g_autofree guint8 *dev = NULL;
  g_autofree guint8 *box_data = NULL;
  g_autofree guint8 *expected = NULL;
  const guint64 size = 64 * 1024;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  pin_src = new_pinned (size);
  pin_dst = new_pinned (size);
  {
    g_autofree guint8 *r = random_data (size);

    memcpy (host_ptr (pin_src), r, size);
    g_free (r);
    r = random_data (size);
    memcpy (host_ptr (pin_dst), r, size);
  }

  /* 2D: pinned -> pitched -> pinned, both on the stream */
  {
    g_autoptr(GCudaCopy2D) up = gcuda_copy_2d_new ();
    g_autoptr(GCudaCopy2D) down = gcuda_copy_2d_new ();
    Geometry hs = { .x = 17, .y = 9, .pitch = 300 };
    Geometry dg = { .x = 33, .y = 7 };
    Geometry hd = { .x = 2, .y = 31, .pitch = 257 };
    const guint64 width = 200, height = 70;
    guint64 dev_size;

    pitched = gcuda_buffer_new_pitched (NULL, 256, 96, 16, &error);
    g_assert_no_error (error);
    dg.pitch = gcuda_buffer_get_pitch (pitched);
    dev_size = gcuda_buffer_get_size (pitched);
    dev = random_data (dev_size);
    upload_ok (pitched, 0, dev, dev_size);
    g_assert_cmpuint (geometry_end (&hs, width, height, 1), <=, size);
    g_assert_cmpuint (geometry_end (&dg, width, height, 1), <=, dev_size);
    g_assert_cmpuint (geometry_end (&hd, width, height, 1), <=, size);

    gcuda_copy_2d_set_src_host_buffer (up, pin_src);
    gcuda_copy_2d_set_dst_buffer (up, pitched);
    set_geometry (up, &hs, &dg, width, height, 1);
    gcuda_copy_2d_set_src_buffer (down, pitched);
    gcuda_copy_2d_set_dst_host_buffer (down, pin_dst);
    set_geometry (down, &dg, &hd, width, height, 1);

    copy_on_host (dev, &dg, host_ptr (pin_src), &hs, width, height, 1);
    expected = g_memdup2 (host_ptr (pin_dst), size);
    copy_on_host (expected, &hd, dev, &dg, width, height, 1);

    g_assert_true (gcuda_copy_2d_execute (up, stream, &error));
    g_assert_no_error (error);
    g_assert_true (gcuda_copy_2d_execute (down, stream, &error));
    g_assert_no_error (error);
    gcuda_test_assert_no_current_context ();
    sync_stream (stream);
    g_assert_cmpmem (host_ptr (pin_dst), size, expected, size);
    assert_buffer_equals (pitched, dev, dev_size);
    g_clear_pointer (&expected, g_free);
  }

  /* 3D: pinned -> device -> pinned (as a unified address), on the stream */
  {
    g_autoptr(GCudaCopy3D) up = gcuda_copy_3d_new ();
    g_autoptr(GCudaCopy3D) down = gcuda_copy_3d_new ();
    Geometry hs = { .x = 4, .y = 3, .z = 2, .pitch = 80, .rows = 40 };
    Geometry dg = { .x = 8, .y = 1, .z = 1, .pitch = 128, .rows = 32 };
    Geometry hd = { .x = 0, .y = 6, .z = 3, .pitch = 72, .rows = 36 };
    const guint64 width = 60, height = 25, depth = 6;
    const guint64 box_size = 128 * 32 * 8;

    g_assert_cmpuint (geometry_end (&hs, width, height, depth), <=, size);
    g_assert_cmpuint (geometry_end (&dg, width, height, depth), <=, box_size);
    g_assert_cmpuint (geometry_end (&hd, width, height, depth), <=, size);
    box = new_random_buffer (NULL, box_size, &box_data);

    gcuda_copy_3d_set_src_host_buffer (up, pin_src);
    gcuda_copy_3d_set_dst_buffer (up, box);
    set_geometry (up, &hs, &dg, width, height, depth);
    gcuda_copy_3d_set_src_buffer (down, box);
    gcuda_copy_3d_set_dst_unified (down, gcuda_host_buffer_get_address (pin_dst), size);
    set_geometry (down, &dg, &hd, width, height, depth);

    copy_on_host (box_data, &dg, host_ptr (pin_src), &hs, width, height, depth);
    expected = g_memdup2 (host_ptr (pin_dst), size);
    copy_on_host (expected, &hd, box_data, &dg, width, height, depth);

    g_assert_true (gcuda_copy_3d_execute (up, stream, &error));
    g_assert_no_error (error);
    g_assert_true (gcuda_copy_3d_execute (down, stream, &error));
    g_assert_no_error (error);
    sync_stream (stream);
    g_assert_cmpmem (host_ptr (pin_dst), size, expected, size);
    assert_buffer_equals (box, box_data, box_size);
  }
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ errors with device memory */

static void
test_validation_device (void)
{
  GType types[] = { GCUDA_TYPE_COPY_2D, GCUDA_TYPE_COPY_3D, GCUDA_TYPE_COPY_3D_PEER };
  g_autoptr(GCudaContext) dflt = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaStream) dedicated_stream = NULL;
  g_autoptr(GCudaStream) default_stream = NULL;
  guint8 host[4096];
  Geometry g = { .x = 0, .y = 1, .z = 0, .pitch = 64, .rows = 8 };
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  dflt = get_default ();
  dedicated = create_dedicated (NULL, 0);
  dedicated_stream = new_stream (dedicated, GCUDA_STREAM_FLAGS_DEFAULT);
  default_stream = new_stream (dflt, GCUDA_STREAM_FLAGS_DEFAULT);
  memset (host, 0, sizeof host);

  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    {
      gboolean peer = types[t] == GCUDA_TYPE_COPY_3D_PEER;
      g_autoptr(GCudaBuffer) in_default = new_buffer (dflt, 1024);
      g_autoptr(GCudaBuffer) in_dedicated = new_buffer (dedicated, 1024);
      g_autoptr(GCudaBuffer) small = new_buffer (dflt, geometry_end (&g, 32, 4, 1) - 1);
      g_autoptr(GCudaBuffer) parent = new_buffer (dflt, 2048);
      g_autoptr(GCudaBuffer) view = NULL;
      g_autoptr(GCudaHostBuffer) pinned = new_pinned (1024);
      g_autoptr(GObject) copy = new_copy (types[t]);

      set_geometry (copy, &g, &g, 32, 4, 1);

      /* a device region one byte too large for the buffer */
      set_src_address (copy, HOST, host, sizeof host);
      set_dst_buffer (copy, small);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_OUT_OF_BOUNDS);
      set_dst_buffer (copy, in_default);
      execute_ok (copy, NULL);

      /* freed memory, device or host, and a view of a freed buffer */
      set_dst_buffer (copy, in_default);
      g_assert_true (gcuda_buffer_free (small, NULL));
      set_src_buffer (copy, small);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_FREED);
      set_src_address (copy, HOST, host, sizeof host);
      set_dst_buffer (copy, small);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_FREED);
      view = gcuda_buffer_new_view (parent, 512, 1024, &error);
      g_assert_no_error (error);
      set_dst_buffer (copy, view);
      execute_ok (copy, NULL);
      g_assert_true (gcuda_buffer_free (parent, NULL));
      assert_execute_fails (copy, NULL, GCUDA_ERROR_FREED);
      set_dst_host_buffer (copy, pinned);
      execute_ok (copy, NULL);
      g_assert_true (gcuda_host_buffer_free (pinned, NULL));
      assert_execute_fails (copy, NULL, GCUDA_ERROR_FREED);
      set_dst_address (copy, HOST, host, sizeof host);
      set_src_host_buffer (copy, pinned);
      assert_execute_fails (copy, NULL, GCUDA_ERROR_FREED);

      /* a stream of another context than the device memory's */
      set_src_address (copy, HOST, host, sizeof host);
      set_dst_buffer (copy, in_default);
      assert_execute_fails (copy, dedicated_stream, GCUDA_ERROR_CONTEXT_MISMATCH);
      execute_ok (copy, default_stream);
      set_src_buffer (copy, in_dedicated);
      set_dst_address (copy, HOST, host, sizeof host);
      assert_execute_fails (copy, default_stream, GCUDA_ERROR_CONTEXT_MISMATCH);
      execute_ok (copy, dedicated_stream);
      /* with device memory on both sides, the destination's context rules */
      set_dst_buffer (copy, in_default);
      if (peer)
        {
          assert_execute_fails (copy, dedicated_stream, GCUDA_ERROR_CONTEXT_MISMATCH);
          execute_ok (copy, default_stream);
          execute_ok (copy, NULL);
        }
      else
        {
          /* two contexts need GCudaCopy3DPeer */
          assert_execute_fails (copy, NULL, GCUDA_ERROR_CONTEXT_MISMATCH);
          assert_execute_fails (copy, default_stream, GCUDA_ERROR_CONTEXT_MISMATCH);
        }

      if (peer)
        {
          /* a named context that is not the buffer's */
          gcuda_copy_3d_peer_set_src_context (GCUDA_COPY_3D_PEER (copy), dflt);
          assert_execute_fails (copy, NULL, GCUDA_ERROR_CONTEXT_MISMATCH);
          gcuda_copy_3d_peer_set_src_context (GCUDA_COPY_3D_PEER (copy), NULL);
          gcuda_copy_3d_peer_set_dst_context (GCUDA_COPY_3D_PEER (copy), dedicated);
          assert_execute_fails (copy, NULL, GCUDA_ERROR_CONTEXT_MISMATCH);
          gcuda_copy_3d_peer_set_dst_context (GCUDA_COPY_3D_PEER (copy), NULL);
          execute_ok (copy, NULL);
        }
      sync_stream (default_stream);
      sync_stream (dedicated_stream);
      gcuda_test_assert_no_current_context ();
    }

  /* memory of a destroyed context */
  {
    g_autoptr(GCudaContext) doomed = create_dedicated (NULL, 0);
    g_autoptr(GCudaBuffer) lost = new_buffer (doomed, 1024);
    g_autoptr(GCudaBuffer) kept = new_buffer (dflt, 1024);

    g_assert_true (gcuda_context_destroy (doomed, &error));
    g_assert_no_error (error);
    for (guint t = 0; t < G_N_ELEMENTS (types); t++)
      {
        g_autoptr(GObject) copy = new_copy (types[t]);

        set_geometry (copy, &g, &g, 32, 4, 1);
        set_src_buffer (copy, lost);
        set_dst_address (copy, HOST, host, sizeof host);
        assert_execute_fails (copy, NULL, GCUDA_ERROR_CONTEXT_DESTROYED);
        if (types[t] == GCUDA_TYPE_COPY_3D_PEER)
          {
            set_dst_buffer (copy, kept);
            assert_execute_fails (copy, NULL, GCUDA_ERROR_CONTEXT_DESTROYED);
            set_src_address (copy, HOST, host, sizeof host);
            gcuda_copy_3d_peer_set_src_context (GCUDA_COPY_3D_PEER (copy), doomed);
            assert_execute_fails (copy, NULL, GCUDA_ERROR_CONTEXT_DESTROYED);
          }
      }
  }

  g_clear_object (&dedicated_stream);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/copy/properties", test_properties);
  g_test_add_func ("/copy/validation-host", test_validation_host);
  g_test_add_func ("/copy/2d-round-trip", test_2d_round_trip);
  g_test_add_func ("/copy/3d-round-trip", test_3d_round_trip);
  g_test_add_func ("/copy/3d-peer", test_3d_peer);
  g_test_add_func ("/copy/async", test_async);
  g_test_add_func ("/copy/validation-device", test_validation_device);

  return g_test_run ();
}
