/* test-array.c: GCudaArray, GCudaTexture, GCudaSurface and arrays as copy
 * endpoints (whole arrays, boxes, byte ranges of 1D arrays) on a real GPU,
 * checked against host computations on fresh random data; what they refuse
 * before the driver is called
 *
 * /array/nogpu/... also run without a GPU (suite nogpu): descriptor checks
 * and the kernel sources of this file compiled for sm_90.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-cuda-abi-private.h"

#include "gcuda-test-kernels.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ kernels */

static const char texture_source[] =
  "__global__ void tex2d_read (float *out, cudaTextureObject_t t, int w, int h)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x < w && y < h)\n"
  "    out[y * w + x] = tex2D<float> (t, x + 0.5f, y + 0.5f);\n"
  "}\n"
  "\n"
  "__global__ void tex3d_read_short (short *out, cudaTextureObject_t t, int w, int h, int d)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  int z = blockIdx.z;\n"
  "  if (x < w && y < h && z < d)\n"
  "    out[(z * h + y) * w + x] = tex3D<short> (t, x + 0.5f, y + 0.5f, z + 0.5f);\n"
  "}\n"
  "\n"
  "__global__ void tex2d_layered_read (float *out, cudaTextureObject_t t, int w, int h, int layers)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  int l = blockIdx.z;\n"
  "  if (x < w && y < h && l < layers)\n"
  "    out[(l * h + y) * w + x] = tex2DLayered<float> (t, x + 0.5f, y + 0.5f, l);\n"
  "}\n"
  "\n"
  "__global__ void tex1d_fetch_float4 (float *out, cudaTextureObject_t t, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    {\n"
  "      float4 v = tex1Dfetch<float4> (t, i);\n"
  "      out[4 * i + 0] = v.x;\n"
  "      out[4 * i + 1] = v.y;\n"
  "      out[4 * i + 2] = v.z;\n"
  "      out[4 * i + 3] = v.w;\n"
  "    }\n"
  "}\n"
  "\n"
  "__global__ void surf3d_fill (cudaSurfaceObject_t s, int w, int h, int d, float salt)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  int z = blockIdx.z;\n"
  "  if (x < w && y < h && z < d)\n"
  "    {\n"
  "      float old;\n"
  "      surf3Dread (&old, s, x * (int) sizeof (float), y, z);\n"
  "      surf3Dwrite (old * 2.0f + salt + x - 3 * y + 7 * z, s, x * (int) sizeof (float), y, z);\n"
  "    }\n"
  "}\n";

static const TestKernelSource sources[] = {
  { "textures and surfaces", texture_source, FALSE, FALSE, { NULL } },
  { NULL },
};

/* ------------------------------------------------------------ helpers */

static GCudaArray *
make_array (guint64 w, guint64 h, guint64 d, GCudaArrayFormat format, guint channels, GCudaArrayFlags flags)
{
  g_autoptr(GCudaArrayDescriptor) desc = gcuda_array_descriptor_new (w, h, d, format, channels, flags);
  GError *error = NULL;
  GCudaArray *array = gcuda_array_new (NULL, desc, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_ARRAY (array));
  return array;
}

static GCudaFunction *
texture_kernel (GCudaModule **module, const char *name)
{
  if (*module == NULL)
    *module = load_module (NULL, texture_source, NULL);
  return get_kernel (*module, name);
}

/* ------------------------------------------------------------ no GPU */

static void
test_sources (void)
{
  test_kernel_sources_compile (sources);
}

static void
expect_invalid (guint64 w, guint64 h, guint64 d, int format, guint channels, guint flags)
{
  g_autoptr(GCudaArrayDescriptor) desc =
    gcuda_array_descriptor_new (w, h, d, (GCudaArrayFormat) format, channels, (GCudaArrayFlags) flags);
  g_autoptr(GCudaArray) array = NULL;
  GError *error = NULL;

  g_assert_false (gcuda_array_descriptor_validate (desc, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcuda_array_descriptor_get_size (desc), ==, 0);
  /* Refused before the driver is called: no device is needed for this. */
  array = gcuda_array_new (NULL, desc, &error);
  g_assert_null (array);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
}

static void
test_descriptor (void)
{
  g_autoptr(GCudaArrayDescriptor) desc =
    gcuda_array_descriptor_new (7, 5, 3, GCUDA_ARRAY_FORMAT_SIGNED_INT16, 2, GCUDA_ARRAY_FLAGS_SURFACE_LDST);
  g_autoptr(GCudaArrayDescriptor) copy = gcuda_array_descriptor_copy (desc);
  g_autoptr(GCudaArrayDescriptor) plain =
    gcuda_array_descriptor_new (9, 0, 0, GCUDA_ARRAY_FORMAT_FLOAT, 4, GCUDA_ARRAY_FLAGS_NONE);
  g_autoptr(GCudaTextureDescriptor) tex = gcuda_texture_descriptor_new ();
  g_autoptr(GCudaArray) array = NULL;
  GError *error = NULL;

  g_assert_true (gcuda_array_descriptor_validate (desc, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_array_descriptor_get_element_size (desc), ==, 4);
  g_assert_cmpuint (gcuda_array_descriptor_get_size (desc), ==, 4 * 7 * 5 * 3);
  g_assert_cmpmem (copy, sizeof *copy, desc, sizeof *desc);
  g_assert_cmpuint (gcuda_array_descriptor_get_size (plain), ==, 16 * 9);

  /* The enums are cuda.h's values. */
  g_assert_cmpint (GCUDA_ARRAY_FORMAT_UNSIGNED_INT8, ==, CU_AD_FORMAT_UNSIGNED_INT8);
  g_assert_cmpint (GCUDA_ARRAY_FORMAT_SIGNED_INT32, ==, CU_AD_FORMAT_SIGNED_INT32);
  g_assert_cmpint (GCUDA_ARRAY_FORMAT_HALF, ==, CU_AD_FORMAT_HALF);
  g_assert_cmpint (GCUDA_ARRAY_FORMAT_FLOAT, ==, CU_AD_FORMAT_FLOAT);
  g_assert_cmpint (GCUDA_ARRAY_FLAGS_LAYERED, ==, CUDA_ARRAY3D_LAYERED);
  g_assert_cmpint (GCUDA_ARRAY_FLAGS_SURFACE_LDST, ==, CUDA_ARRAY3D_SURFACE_LDST);
  g_assert_cmpint (GCUDA_ARRAY_FLAGS_CUBEMAP, ==, CUDA_ARRAY3D_CUBEMAP);
  g_assert_cmpint (GCUDA_ARRAY_FLAGS_TEXTURE_GATHER, ==, CUDA_ARRAY3D_TEXTURE_GATHER);
  g_assert_cmpint (GCUDA_ADDRESS_MODE_BORDER, ==, CU_TR_ADDRESS_MODE_BORDER);
  g_assert_cmpint (GCUDA_FILTER_MODE_LINEAR, ==, CU_TR_FILTER_MODE_LINEAR);
  g_assert_cmpint (GCUDA_TEXTURE_FLAGS_READ_AS_INTEGER, ==, CU_TRSF_READ_AS_INTEGER);
  g_assert_cmpint (GCUDA_TEXTURE_FLAGS_NORMALIZED_COORDINATES, ==, CU_TRSF_NORMALIZED_COORDINATES);
  g_assert_cmpint (GCUDA_TEXTURE_FLAGS_SRGB, ==, CU_TRSF_SRGB);

  g_assert_cmpint (tex->address_mode_x, ==, GCUDA_ADDRESS_MODE_CLAMP);
  g_assert_cmpint (tex->address_mode_z, ==, GCUDA_ADDRESS_MODE_CLAMP);
  g_assert_cmpint (tex->filter_mode, ==, GCUDA_FILTER_MODE_POINT);
  g_assert_cmpint (tex->flags, ==, GCUDA_TEXTURE_FLAGS_NONE);
  gcuda_texture_descriptor_set_address_mode (tex, GCUDA_ADDRESS_MODE_BORDER);
  g_assert_cmpint (tex->address_mode_y, ==, GCUDA_ADDRESS_MODE_BORDER);

  expect_invalid (4, 4, 0, 0x07, 1, 0);                                   /* no such format */
  expect_invalid (4, 4, 0, 0x30, 1, 0);
  expect_invalid (4, 4, 0, GCUDA_ARRAY_FORMAT_FLOAT, 3, 0);               /* 3 channels */
  expect_invalid (4, 4, 0, GCUDA_ARRAY_FORMAT_FLOAT, 0, 0);
  expect_invalid (4, 4, 0, GCUDA_ARRAY_FORMAT_FLOAT, 8, 0);
  expect_invalid (0, 4, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, 0);               /* no width */
  expect_invalid (4, 0, 3, GCUDA_ARRAY_FORMAT_FLOAT, 1, 0);               /* depth, no height */
  expect_invalid (4, 4, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_LAYERED); /* no layers */
  expect_invalid (4, 5, 6, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_CUBEMAP); /* not square */
  expect_invalid (4, 4, 5, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_CUBEMAP); /* not 6 faces */
  expect_invalid (4, 4, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, 0x100);           /* unknown flag */
  expect_invalid (G_MAXUINT64 / 2, 4, 4, GCUDA_ARRAY_FORMAT_FLOAT, 4, 0); /* beyond 2^64 bytes */

  array = gcuda_array_new (NULL, NULL, &error);
  g_assert_null (array);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------ GPU: arrays */

static void
test_copies (void)
{
  const guint w = 37, h = 19, d = 5;
  const gsize n = (gsize) w * h * d;
  g_autofree float *data = NULL;
  g_autofree float *back = g_new0 (float, n);
  g_autoptr(GCudaArray) a = NULL;
  g_autoptr(GCudaArray) b = NULL;
  g_autoptr(GCudaArrayDescriptor) desc = NULL;
  g_autoptr(GCudaBuffer) buf = NULL;
  g_autoptr(GBytes) bytes = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  data = random_floats (n);
  a = make_array (w, h, d, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_NONE);
  desc = gcuda_array_get_descriptor (a);
  g_assert_cmpuint (desc->width, ==, w);
  g_assert_cmpuint (desc->depth, ==, d);
  g_assert_cmpuint (gcuda_array_get_size (a), ==, n * 4);

  /* host -> array -> host */
  g_assert_true (gcuda_array_upload (a, 0, (const guint8 *) data, n * 4, &error));
  g_assert_no_error (error);
  bytes = gcuda_array_download (a, 0, gcuda_array_get_size (a), &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), data, n * 4);

  /* array -> array -> buffer (at an offset) -> array -> host */
  b = make_array (w, h, d, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_NONE);
  g_assert_true (gcuda_array_copy_from_array (b, 0, a, 0, gcuda_array_get_size (a), &error));
  g_assert_no_error (error);
  buf = gcuda_buffer_new (NULL, n * 4 + 256, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_array_copy_to_buffer (b, 0, buf, 256, gcuda_array_get_size (b), &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_download_to_address (buf, 256, (guint64) GPOINTER_TO_SIZE (back), n * 4, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (back, n * 4, data, n * 4);

  g_assert_true (gcuda_array_upload (a, 0, (const guint8 *) back, n * 4, &error));  /* same data again */
  g_assert_no_error (error);
  memset (back, 0, n * 4);
  {
    g_autoptr(GCudaArray) c = make_array (w, h, d, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_NONE);

    g_assert_true (gcuda_array_copy_from_buffer (c, 0, buf, 256, gcuda_array_get_size (c), &error));
    g_assert_no_error (error);
    g_assert_true (gcuda_array_download_to_address (c, 0, (guint64) GPOINTER_TO_SIZE (back), n * 4, &error));
    g_assert_no_error (error);
    g_assert_cmpmem (back, n * 4, data, n * 4);
  }

  /* wrong sizes and ranges */
  g_assert_false (gcuda_array_upload (a, 0, (const guint8 *) data, n * 4 - 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_array_copy_to_buffer (a, 0, buf, 257, gcuda_array_get_size (a), &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  {
    g_autoptr(GCudaArray) small = make_array (w, h, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_NONE);

    g_assert_false (gcuda_array_copy_from_array (small, 0, a, 0, gcuda_array_get_size (a), &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  }

  /* freed */
  g_assert_true (gcuda_array_free (b, &error));
  g_assert_no_error (error);
  /* a second free is an error, as for buffers */
  g_assert_false (gcuda_array_free (b, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_true (gcuda_array_is_freed (b));
  g_assert_null (gcuda_array_download (b, 0, gcuda_array_get_size (b), &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_array_copy_from_array (a, 0, b, 0, gcuda_array_get_size (b), &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  gcuda_test_assert_no_current_context ();
}

static void
test_copy_endpoints (void)
{
  const guint w = 24, h = 16, d = 4;
  const gsize n = (gsize) w * h * d;
  g_autofree gint32 *data = g_new (gint32, n);
  g_autofree gint32 *back = g_new0 (gint32, n);
  g_autoptr(GCudaArray) a = NULL;
  g_autoptr(GCudaCopy2D) c2 = NULL;
  g_autoptr(GCudaCopy3D) c3 = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const gint32 *got;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  for (gsize i = 0; i < n; i++)
    data[i] = (gint32) g_random_int ();
  a = make_array (w, h, d, GCUDA_ARRAY_FORMAT_SIGNED_INT32, 1, GCUDA_ARRAY_FLAGS_NONE);
  g_assert_true (gcuda_array_upload (a, 0, (const guint8 *) data, n * 4, &error));
  g_assert_no_error (error);

  /* Copy3D: a 5 × 3 × 2 box at (x 4, y 2, z 1) of the array into host
   * memory with a pitch of 8 ints and 4 rows per slice. */
  c3 = gcuda_copy_3d_new ();
  gcuda_copy_3d_set_src_array (c3, a);
  gcuda_copy_3d_set_dst_host (c3, (guint64) GPOINTER_TO_SIZE (back), n * 4);
  g_object_set (c3, "src-x-in-bytes", (guint64) 16, "src-y", (guint64) 2, "src-z", (guint64) 1,
                "dst-pitch", (guint64) 32, "dst-height", (guint64) 4,
                "width-in-bytes", (guint64) 20, "height", (guint64) 3, "depth", (guint64) 2, NULL);
  g_assert_true (gcuda_copy_3d_execute (c3, NULL, &error));
  g_assert_no_error (error);
  for (guint z = 0; z < 2; z++)
    for (guint y = 0; y < 3; y++)
      for (guint x = 0; x < 5; x++)
        g_assert_cmpint (back[(z * 4 + y) * 8 + x], ==, data[((z + 1) * h + y + 2) * w + x + 4]);

  /* The box reaching past the array's depth */
  g_object_set (c3, "src-z", (guint64) 3, NULL);
  g_assert_false (gcuda_copy_3d_execute (c3, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);

  /* Copy2D: host rows into slice 0 of the array at (x 2, y 5), then the
   * whole array back. */
  c2 = gcuda_copy_2d_new ();
  {
    gint32 rows[6 * 10];

    for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
      rows[i] = (gint32) g_random_int ();
    gcuda_copy_2d_set_src_host (c2, (guint64) GPOINTER_TO_SIZE (rows), sizeof rows);
    gcuda_copy_2d_set_dst_array (c2, a);
    g_object_set (c2, "src-pitch", (guint64) 40, "dst-x-in-bytes", (guint64) 8, "dst-y", (guint64) 5,
                  "width-in-bytes", (guint64) 40, "height", (guint64) 6, NULL);
    g_assert_true (gcuda_copy_2d_execute (c2, NULL, &error));
    g_assert_no_error (error);
    for (guint y = 0; y < 6; y++)
      for (guint x = 0; x < 10; x++)
        data[(y + 5) * w + x + 2] = rows[y * 10 + x];

    bytes = gcuda_array_download (a, 0, gcuda_array_get_size (a), &error);
    g_assert_no_error (error);
    got = g_bytes_get_data (bytes, NULL);
    for (gsize i = 0; i < n; i++)
      g_assert_cmpint (got[i], ==, data[i]);

    /* a row reaching past the array's width */
    g_object_set (c2, "dst-x-in-bytes", (guint64) (w * 4 - 36), NULL);
    g_assert_false (gcuda_copy_2d_execute (c2, NULL, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  }

  /* a freed array endpoint */
  g_assert_true (gcuda_array_free (a, &error));
  g_assert_false (gcuda_copy_3d_execute (c3, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ GPU: byte ranges of 1D arrays */
/* The byte-range copies refuse a missing array with a GError (a binding's
 * None), no driver needed. */
static void
test_range_not_array (void)
{
  guint8 host[16] = { 0 };
  GError *error = NULL;

  g_assert_false (gcuda_array_upload (NULL, 0, host, sizeof host, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_array_download (NULL, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_array_download_to_address (NULL, 0, (guint64) GPOINTER_TO_SIZE (host), 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_array_copy_from_buffer (NULL, 0, NULL, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_array_copy_to_buffer (NULL, 0, NULL, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_array_copy_from_array (NULL, 0, NULL, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
}


static guint8 *
random_bytes (gsize n)
{
  guint8 *bytes = g_malloc (MAX (n, 1));

  for (gsize i = 0; i < n; i++)
    bytes[i] = (guint8) g_random_int ();
  return bytes;
}

/* The whole of 1D @array equals @expected. */
static void
assert_array_bytes (GCudaArray *array, const guint8 *expected, gsize size)
{
  g_autoptr(GBytes) bytes = NULL;
  GError *error = NULL;

  bytes = gcuda_array_download (array, 0, gcuda_array_get_size (array), &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), expected, size);
}

static void
assert_buffer_bytes (GCudaBuffer *buffer, const guint8 *expected, gsize size)
{
  g_autofree guint8 *back = g_malloc0 (size);
  GError *error = NULL;

  g_assert_true (gcuda_buffer_download_to_address (buffer, 0, (guint64) GPOINTER_TO_SIZE (back), size, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (back, size, expected, size);
}

/* Every direction of the byte-range copies with non-zero offsets, each
 * checked against a host model of the array or buffer. */
static void
test_range_copies (void)
{
  const gsize w = 1000, bw = 2000;             /* float elements */
  const gsize nbytes = w * 4, bbytes = bw * 4;
  g_autofree guint8 *model = NULL;
  g_autofree guint8 *bmodel = NULL;
  g_autofree guint8 *part = NULL;
  g_autofree guint8 *back = NULL;
  g_autoptr(GCudaArray) a = NULL;
  g_autoptr(GCudaArray) b = NULL;
  g_autoptr(GCudaBuffer) buf = NULL;
  g_autoptr(GBytes) bytes = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  model = (guint8 *) random_floats (w);
  a = make_array (w, 0, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_NONE);

  /* htoa: the whole array, then 300 elements at element 17 */
  g_assert_true (gcuda_array_upload (a, 0, model, nbytes, &error));
  g_assert_no_error (error);
  assert_array_bytes (a, model, nbytes);
  part = (guint8 *) random_floats (300);
  g_assert_true (gcuda_array_upload_from_address (a, 17 * 4, (guint64) GPOINTER_TO_SIZE (part),
                                                        300 * 4, &error));
  g_assert_no_error (error);
  memcpy (model + 17 * 4, part, 300 * 4);
  assert_array_bytes (a, model, nbytes);

  /* the last element alone */
  g_clear_pointer (&part, g_free);
  part = (guint8 *) random_floats (1);
  g_assert_true (gcuda_array_upload (a, nbytes - 4, part, 4, &error));
  g_assert_no_error (error);
  memcpy (model + nbytes - 4, part, 4);
  assert_array_bytes (a, model, nbytes);

  /* atoh: a slice into caller memory and into GBytes */
  back = g_malloc0 (200 * 4);
  g_assert_true (gcuda_array_download_to_address (a, 123 * 4, (guint64) GPOINTER_TO_SIZE (back),
                                                        200 * 4, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (back, 200 * 4, model + 123 * 4, 200 * 4);
  bytes = gcuda_array_download (a, 601 * 4, 399 * 4, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), model + 601 * 4, 399 * 4);
  g_clear_pointer (&bytes, g_bytes_unref);

  /* size 0: nothing copied, no error */
  g_assert_true (gcuda_array_upload (a, 8, NULL, 0, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_array_upload (a, nbytes, NULL, 0, &error));
  g_assert_no_error (error);
  bytes = gcuda_array_download (a, 40, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 0);
  g_clear_pointer (&bytes, g_bytes_unref);
  assert_array_bytes (a, model, nbytes);

  /* dtoa: 250 elements of the buffer at element 64 into the array at 500 */
  bmodel = (guint8 *) random_floats (bw);
  buf = gcuda_buffer_new (NULL, bbytes, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_upload (buf, 0, bmodel, bbytes, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_array_copy_from_buffer (a, 500 * 4, buf, 64 * 4, 250 * 4, &error));
  g_assert_no_error (error);
  memcpy (model + 500 * 4, bmodel + 64 * 4, 250 * 4);
  assert_array_bytes (a, model, nbytes);

  /* atod: 400 elements of the array at 10 into the buffer at 1000 */
  g_assert_true (gcuda_array_copy_to_buffer (a, 10 * 4, buf, 1000 * 4, 400 * 4, &error));
  g_assert_no_error (error);
  memcpy (bmodel + 1000 * 4, model + 10 * 4, 400 * 4);
  assert_buffer_bytes (buf, bmodel, bbytes);

  /* atoa: into an int32 array (same element size, other format: the bits
   * are copied as they are), then within one array */
  {
    g_autofree guint8 *b_model = random_bytes (600 * 4);

    b = make_array (600, 0, 0, GCUDA_ARRAY_FORMAT_SIGNED_INT32, 1, GCUDA_ARRAY_FLAGS_NONE);
    g_assert_true (gcuda_array_upload (b, 0, b_model, 600 * 4, &error));
    g_assert_no_error (error);
    g_assert_true (gcuda_array_copy_from_array (b, 7 * 4, a, 300 * 4, 350 * 4, &error));
    g_assert_no_error (error);
    memcpy (b_model + 7 * 4, model + 300 * 4, 350 * 4);
    assert_array_bytes (b, b_model, 600 * 4);
    assert_array_bytes (a, model, nbytes);            /* the source is unchanged */

    g_assert_true (gcuda_array_copy_from_array (a, 0, a, 800 * 4, 100 * 4, &error));
    g_assert_no_error (error);
    memmove (model, model + 800 * 4, 100 * 4);
    assert_array_bytes (a, model, nbytes);
  }

  /* 2-channel float elements (8 bytes): offsets count bytes */
  {
    const gsize e = 333;
    g_autofree guint8 *m2 = (guint8 *) random_floats (2 * e);
    g_autofree guint8 *p2 = (guint8 *) random_floats (2 * 50);
    g_autoptr(GCudaArray) c = make_array (e, 0, 0, GCUDA_ARRAY_FORMAT_FLOAT, 2, GCUDA_ARRAY_FLAGS_NONE);

    g_assert_true (gcuda_array_upload (c, 0, m2, e * 8, &error));
    g_assert_no_error (error);
    g_assert_true (gcuda_array_upload (c, 281 * 8, p2, 50 * 8, &error));
    g_assert_no_error (error);
    memcpy (m2 + 281 * 8, p2, 50 * 8);
    assert_array_bytes (c, m2, e * 8);
    g_assert_true (gcuda_array_copy_to_buffer (c, 3 * 8, buf, 24, 100 * 8, &error));
    g_assert_no_error (error);
    memcpy (bmodel + 24, m2 + 3 * 8, 100 * 8);
    assert_buffer_bytes (buf, bmodel, bbytes);
  }

  gcuda_test_assert_no_current_context ();
}

/* What the byte-range copies refuse before the driver, and that a refused
 * copy leaves the array as it was. */
static void
test_range_bad_input (void)
{
  const gsize w = 64, nbytes = w * 4;
  g_autofree guint8 *model = NULL;
  g_autofree guint8 *host = g_malloc0 (4096);
  g_autoptr(GCudaArray) a = NULL;
  g_autoptr(GCudaArray) wide = NULL;
  g_autoptr(GCudaArray) freed = NULL;
  g_autoptr(GCudaBuffer) buf = NULL;
  g_autoptr(GCudaBuffer) dead = NULL;
  g_autoptr(GBytes) bytes = NULL;
  guint64 hp = (guint64) GPOINTER_TO_SIZE (host);
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  model = (guint8 *) random_floats (w);
  a = make_array (w, 0, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_NONE);
  g_assert_true (gcuda_array_upload (a, 0, model, nbytes, &error));
  g_assert_no_error (error);
  buf = gcuda_buffer_new (NULL, 1024, &error);
  g_assert_no_error (error);

  /* not 1D: a 2D array and 1D layers */
  {
    g_autoptr(GCudaArray) two_d = make_array (16, 4, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_NONE);
    g_autoptr(GCudaArray) layers = make_array (16, 0, 3, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_LAYERED);
    GCudaArray *not_1d[] = { two_d, layers };

    for (guint i = 0; i < G_N_ELEMENTS (not_1d); i++)
      {
        g_assert_false (gcuda_array_upload (not_1d[i], 0, host, 16, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
        g_assert_false (gcuda_array_download_to_address (not_1d[i], 0, hp, 16, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
        g_assert_null (gcuda_array_download (not_1d[i], 0, 16, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
        g_assert_false (gcuda_array_copy_from_buffer (not_1d[i], 0, buf, 0, 16, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
        g_assert_false (gcuda_array_copy_to_buffer (not_1d[i], 0, buf, 0, 16, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
        g_assert_false (gcuda_array_copy_from_array (a, 0, not_1d[i], 0, 16, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
        g_assert_false (gcuda_array_copy_from_array (not_1d[i], 0, a, 0, 16, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      }
  }

  /* out of the array: offset past the end, size past the end, overflow */
  {
    const guint64 bad[][2] = {
      { nbytes + 4, 4 }, { 4, nbytes }, { 0, nbytes + 4 },
      { G_MAXUINT64 - 3, 8 }, { 4, G_MAXUINT64 - 3 }, { G_MAXUINT64, G_MAXUINT64 },
    };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        guint64 off = bad[i][0], size = bad[i][1];

        g_assert_false (gcuda_array_upload_from_address (a, off, hp, size, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
        g_assert_false (gcuda_array_download_to_address (a, off, hp, size, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
        g_assert_null (gcuda_array_download (a, off, size, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
        g_assert_false (gcuda_array_copy_from_buffer (a, off, buf, 0, size, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
        g_assert_false (gcuda_array_copy_to_buffer (a, off, buf, 0, size, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
        g_assert_false (gcuda_array_copy_from_array (a, off, a, 0, size, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
        g_assert_false (gcuda_array_copy_from_array (a, 0, a, off, size, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
      }
    g_assert_false (gcuda_array_upload (a, nbytes - 4, host, 8, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  }

  /* out of the buffer (1024 bytes): past the end and overflow */
  g_assert_false (gcuda_array_copy_from_buffer (a, 0, buf, 1024 - 8, 16, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_array_copy_to_buffer (a, 0, buf, 2048, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);
  g_assert_false (gcuda_array_copy_to_buffer (a, 0, buf, G_MAXUINT64 - 3, 8, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);

  /* not whole elements, a misaligned buffer offset, a NULL host address */
  g_assert_false (gcuda_array_upload (a, 2, host, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_array_download_to_address (a, 4, hp, 6, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_array_copy_to_buffer (a, 0, buf, 2, 8, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_array_copy_from_buffer (a, 0, buf, 6, 8, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_array_upload_from_address (a, 0, 0, 8, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_array_download_to_address (a, 0, 0, 8, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* atoa between different element sizes (4 and 8 bytes) */
  wide = make_array (32, 0, 0, GCUDA_ARRAY_FORMAT_FLOAT, 2, GCUDA_ARRAY_FLAGS_NONE);
  g_assert_false (gcuda_array_copy_from_array (wide, 0, a, 0, 16, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_array_copy_from_array (a, 0, wide, 0, 16, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* freed array (either end) and freed buffer */
  freed = make_array (w, 0, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_NONE);
  g_assert_true (gcuda_array_free (freed, NULL));
  g_assert_false (gcuda_array_upload (freed, 0, host, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_null (gcuda_array_download (freed, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_array_copy_to_buffer (freed, 0, buf, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_array_copy_from_array (a, 0, freed, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_array_copy_from_array (freed, 0, a, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  dead = gcuda_buffer_new (NULL, 1024, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_free (dead, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_array_copy_from_buffer (a, 0, dead, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_array_copy_to_buffer (a, 0, dead, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  /* a buffer and an array of another context */
  {
    g_autoptr(GCudaDevice) device = gcuda_test_get_device ();
    g_autoptr(GCudaContext) other = gcuda_device_create_context (device, 0, &error);
    g_autoptr(GCudaBuffer) foreign_buf = NULL;
    g_autoptr(GCudaArray) foreign = NULL;
    g_autoptr(GCudaArrayDescriptor) desc =
      gcuda_array_descriptor_new (w, 0, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_NONE);

    g_assert_no_error (error);
    foreign_buf = gcuda_buffer_new (other, 1024, &error);
    g_assert_no_error (error);
    foreign = gcuda_array_new (other, desc, &error);
    g_assert_no_error (error);
    g_assert_false (gcuda_array_copy_from_buffer (a, 0, foreign_buf, 0, 4, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
    g_assert_false (gcuda_array_copy_to_buffer (a, 0, foreign_buf, 0, 4, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
    g_assert_false (gcuda_array_copy_from_array (a, 0, foreign, 0, 4, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
    g_assert_false (gcuda_array_copy_from_array (foreign, 0, a, 0, 4, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);

    g_clear_object (&foreign);
    g_clear_object (&foreign_buf);
    g_assert_true (gcuda_context_destroy (other, &error));
    g_assert_no_error (error);
  }

  /* none of that touched the array */
  assert_array_bytes (a, model, nbytes);
  bytes = gcuda_array_download (a, 0, nbytes, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), model, nbytes);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ GPU: textures */

static void
test_texture_2d (void)
{
  const guint w = 45, h = 29;
  const gsize n = (gsize) w * h;
  g_autofree float *data = NULL;
  g_autofree float *out = g_new0 (float, n);
  g_autoptr(GCudaArray) a = NULL;
  g_autoptr(GCudaTexture) tex = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaBuffer) dest = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  GCudaFunction *f;
  GError *error = NULL;
  guint64 handle = 0;

  if (!gcuda_test_require_gpu ())
    return;

  data = random_floats (n);
  a = make_array (w, h, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_NONE);
  g_assert_true (gcuda_array_upload (a, 0, (const guint8 *) data, n * 4, &error));
  g_assert_no_error (error);
  tex = gcuda_texture_new_from_array (a, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_texture_get_array (tex) == a);
  g_assert_null (gcuda_texture_get_buffer (tex));
  g_object_get (tex, "handle", &handle, NULL);
  g_assert_cmpuint (handle, ==, gcuda_texture_get_handle (tex));
  g_assert_cmpuint (handle, !=, 0);

  f = texture_kernel (&module, "tex2d_read");
  dest = gcuda_buffer_new (NULL, n * 4, &error);
  g_assert_no_error (error);
  gcuda_kernel_args_add_buffer (args, dest);
  gcuda_kernel_args_add_uint64 (args, handle);
  gcuda_kernel_args_add_int32 (args, w);
  gcuda_kernel_args_add_int32 (args, h);
  launch_ok (f, (w + 15) / 16, (h + 15) / 16, 1, 16, 16, 1, 0, NULL, args);
  download_into (dest, out, n * 4);
  g_assert_cmpmem (out, n * 4, data, n * 4);

  /* The texture keeps the array alive. */
  g_clear_object (&a);
  launch_ok (f, (w + 15) / 16, (h + 15) / 16, 1, 16, 16, 1, 0, NULL, args);
  memset (out, 0, n * 4);
  download_into (dest, out, n * 4);
  g_assert_cmpmem (out, n * 4, data, n * 4);

  gcuda_test_assert_no_current_context ();
}

static void
test_texture_3d_int16 (void)
{
  const guint w = 17, h = 9, d = 6;
  const gsize n = (gsize) w * h * d;
  g_autofree gint16 *data = g_new (gint16, n);
  g_autofree gint16 *out = g_new0 (gint16, n);
  g_autoptr(GCudaArray) a = NULL;
  g_autoptr(GCudaTexture) tex = NULL;
  g_autoptr(GCudaTextureDescriptor) td = gcuda_texture_descriptor_new ();
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaBuffer) dest = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  for (gsize i = 0; i < n; i++)
    data[i] = (gint16) g_random_int_range (-32768, 32768);
  a = make_array (w, h, d, GCUDA_ARRAY_FORMAT_SIGNED_INT16, 1, GCUDA_ARRAY_FLAGS_NONE);
  g_assert_true (gcuda_array_upload (a, 0, (const guint8 *) data, n * 2, &error));
  g_assert_no_error (error);
  td->flags = GCUDA_TEXTURE_FLAGS_READ_AS_INTEGER;
  tex = gcuda_texture_new_from_array (a, td, &error);
  g_assert_no_error (error);

  dest = gcuda_buffer_new (NULL, n * 2, &error);
  g_assert_no_error (error);
  gcuda_kernel_args_add_buffer (args, dest);
  gcuda_kernel_args_add_uint64 (args, gcuda_texture_get_handle (tex));
  gcuda_kernel_args_add_int32 (args, w);
  gcuda_kernel_args_add_int32 (args, h);
  gcuda_kernel_args_add_int32 (args, d);
  launch_ok (texture_kernel (&module, "tex3d_read_short"), (w + 7) / 8, (h + 7) / 8, d, 8, 8, 1, 0, NULL, args);
  download_into (dest, out, n * 2);
  g_assert_cmpmem (out, n * 2, data, n * 2);

  gcuda_test_assert_no_current_context ();
}

static void
test_texture_layered (void)
{
  const guint w = 21, h = 13, layers = 3;
  const gsize n = (gsize) w * h * layers;
  g_autofree float *data = NULL;
  g_autofree float *out = g_new0 (float, n);
  g_autoptr(GCudaArray) a = NULL;
  g_autoptr(GCudaTexture) tex = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaBuffer) dest = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  data = random_floats (n);
  a = make_array (w, h, layers, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_LAYERED);
  g_assert_true (gcuda_array_upload (a, 0, (const guint8 *) data, n * 4, &error));
  g_assert_no_error (error);
  tex = gcuda_texture_new_from_array (a, NULL, &error);
  g_assert_no_error (error);

  dest = gcuda_buffer_new (NULL, n * 4, &error);
  g_assert_no_error (error);
  gcuda_kernel_args_add_buffer (args, dest);
  gcuda_kernel_args_add_uint64 (args, gcuda_texture_get_handle (tex));
  gcuda_kernel_args_add_int32 (args, w);
  gcuda_kernel_args_add_int32 (args, h);
  gcuda_kernel_args_add_int32 (args, layers);
  launch_ok (texture_kernel (&module, "tex2d_layered_read"), (w + 7) / 8, (h + 7) / 8, layers, 8, 8, 1, 0,
             NULL, args);
  download_into (dest, out, n * 4);
  g_assert_cmpmem (out, n * 4, data, n * 4);

  gcuda_test_assert_no_current_context ();
}

static void
test_texture_linear_and_pitched (void)
{
  const guint n = 333;                /* float4 elements */
  const guint w = 50, h = 23;         /* pitched floats */
  g_autofree float *data = NULL;
  g_autofree float *out = g_new0 (float, 4 * n);
  g_autofree float *img = NULL;
  g_autofree float *img_out = g_new0 (float, (gsize) w * h);
  g_autoptr(GCudaBuffer) src = NULL;
  g_autoptr(GCudaBuffer) pitched = NULL;
  g_autoptr(GCudaBuffer) dest = NULL;
  g_autoptr(GCudaBuffer) img_dest = NULL;
  g_autoptr(GCudaTexture) tex = NULL;
  g_autoptr(GCudaTexture) tex2 = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  g_autoptr(GCudaKernelArgs) args2 = gcuda_kernel_args_new ();
  g_autoptr(GCudaCopy2D) up = gcuda_copy_2d_new ();
  GError *error = NULL;
  guint64 pitch;

  if (!gcuda_test_require_gpu ())
    return;

  /* A float4 linear texture, read with tex1Dfetch<float4>. */
  data = random_floats (4 * n);
  src = buffer_with (data, 16 * n);
  tex = gcuda_texture_new_from_buffer (src, GCUDA_ARRAY_FORMAT_FLOAT, 4, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_texture_get_buffer (tex) == src);
  dest = gcuda_buffer_new (NULL, 16 * n, &error);
  g_assert_no_error (error);
  gcuda_kernel_args_add_buffer (args, dest);
  gcuda_kernel_args_add_uint64 (args, gcuda_texture_get_handle (tex));
  gcuda_kernel_args_add_int32 (args, n);
  launch_ok (texture_kernel (&module, "tex1d_fetch_float4"), (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args);
  download_into (dest, out, 16 * n);
  g_assert_cmpmem (out, 16 * n, data, 16 * n);

  /* Not a whole number of float4 elements */
  {
    g_autoptr(GCudaBuffer) view = gcuda_buffer_new_view (src, 0, 16 * n - 4, &error);
    g_autoptr(GCudaTexture) bad = NULL;

    g_assert_no_error (error);
    bad = gcuda_texture_new_from_buffer (view, GCUDA_ARRAY_FORMAT_FLOAT, 4, NULL, &error);
    g_assert_null (bad);
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  }

  /* A pitched 2D texture, read with tex2D<float>. */
  img = random_floats ((gsize) w * h);
  pitched = gcuda_buffer_new_pitched (NULL, w * 4, h, 4, &error);
  g_assert_no_error (error);
  pitch = gcuda_buffer_get_pitch (pitched);
  gcuda_copy_2d_set_src_host (up, (guint64) GPOINTER_TO_SIZE (img), (guint64) w * h * 4);
  gcuda_copy_2d_set_dst_buffer (up, pitched);
  g_object_set (up, "src-pitch", (guint64) w * 4, "dst-pitch", pitch, "width-in-bytes", (guint64) w * 4,
                "height", (guint64) h, NULL);
  g_assert_true (gcuda_copy_2d_execute (up, NULL, &error));
  g_assert_no_error (error);
  tex2 = gcuda_texture_new_from_pitched (pitched, GCUDA_ARRAY_FORMAT_FLOAT, 1, w, h, 0, NULL, &error);
  g_assert_no_error (error);
  img_dest = gcuda_buffer_new (NULL, (guint64) w * h * 4, &error);
  g_assert_no_error (error);
  gcuda_kernel_args_add_buffer (args2, img_dest);
  gcuda_kernel_args_add_uint64 (args2, gcuda_texture_get_handle (tex2));
  gcuda_kernel_args_add_int32 (args2, w);
  gcuda_kernel_args_add_int32 (args2, h);
  launch_ok (texture_kernel (&module, "tex2d_read"), (w + 15) / 16, (h + 15) / 16, 1, 16, 16, 1, 0, NULL, args2);
  download_into (img_dest, img_out, (gsize) w * h * 4);
  g_assert_cmpmem (img_out, (gsize) w * h * 4, img, (gsize) w * h * 4);

  /* Rows that do not fit the pitch, or the buffer */
  g_assert_null (gcuda_texture_new_from_pitched (pitched, GCUDA_ARRAY_FORMAT_FLOAT, 1, pitch / 4 + 1, h, 0,
                                                 NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_texture_new_from_pitched (pitched, GCUDA_ARRAY_FORMAT_FLOAT, 1, w, h + 1, 0,
                                                 NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ GPU: surfaces */

static void
test_surface_3d (void)
{
  const guint w = 19, h = 11, d = 4;
  const gsize n = (gsize) w * h * d;
  const float salt = 0.25f;
  g_autofree float *data = NULL;
  g_autofree float *want = g_new (float, n);
  g_autoptr(GCudaArray) a = NULL;
  g_autoptr(GCudaSurface) surf = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  g_autoptr(GBytes) bytes = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  data = random_floats (n);
  a = make_array (w, h, d, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_SURFACE_LDST);
  g_assert_true (gcuda_array_upload (a, 0, (const guint8 *) data, n * 4, &error));
  g_assert_no_error (error);
  surf = gcuda_surface_new (a, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_surface_get_array (surf) == a);
  g_assert_cmpuint (gcuda_surface_get_handle (surf), !=, 0);

  gcuda_kernel_args_add_uint64 (args, gcuda_surface_get_handle (surf));
  gcuda_kernel_args_add_int32 (args, w);
  gcuda_kernel_args_add_int32 (args, h);
  gcuda_kernel_args_add_int32 (args, d);
  gcuda_kernel_args_add_float (args, salt);
  launch_ok (texture_kernel (&module, "surf3d_fill"), (w + 7) / 8, (h + 7) / 8, d, 8, 8, 1, 0, NULL, args);
  context_sync (NULL);

  for (guint z = 0; z < d; z++)
    for (guint y = 0; y < h; y++)
      for (guint x = 0; x < w; x++)
        {
          gsize i = ((gsize) z * h + y) * w + x;
          want[i] = data[i] * 2.0f + salt + x - 3.0f * y + 7.0f * z;
        }
  bytes = gcuda_array_download (a, 0, gcuda_array_get_size (a), &error);
  g_assert_no_error (error);
  assert_floats_close (g_bytes_get_data (bytes, NULL), want, n, 1e-6);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ GPU: bad input */

static void
test_bad_input (void)
{
  g_autoptr(GCudaArray) plain = NULL;
  g_autoptr(GCudaArray) freed = NULL;
  g_autoptr(GCudaBuffer) buf = NULL;
  g_autoptr(GCudaTextureDescriptor) td = gcuda_texture_descriptor_new ();
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  /* a surface over an array without SURFACE_LDST */
  plain = make_array (8, 8, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_NONE);
  g_assert_null (gcuda_surface_new (plain, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* textures and surfaces over freed memory */
  buf = gcuda_buffer_new (NULL, 1024, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_free (buf, NULL));
  g_assert_null (gcuda_texture_new_from_buffer (buf, GCUDA_ARRAY_FORMAT_FLOAT, 1, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_null (gcuda_texture_new_from_pitched (buf, GCUDA_ARRAY_FORMAT_FLOAT, 1, 16, 16, 64, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  freed = make_array (8, 8, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1, GCUDA_ARRAY_FLAGS_SURFACE_LDST);
  g_assert_true (gcuda_array_free (freed, NULL));
  g_assert_null (gcuda_texture_new_from_array (freed, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_null (gcuda_surface_new (freed, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  /* invalid modes, flags, formats */
  td->address_mode_y = (GCudaAddressMode) 9;
  g_assert_null (gcuda_texture_new_from_array (plain, td, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  td->address_mode_y = GCUDA_ADDRESS_MODE_WRAP;
  td->filter_mode = (GCudaFilterMode) 2;
  g_assert_null (gcuda_texture_new_from_array (plain, td, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  td->filter_mode = GCUDA_FILTER_MODE_POINT;
  td->flags = (GCudaTextureFlags) 0x8000;
  g_assert_null (gcuda_texture_new_from_array (plain, td, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  {
    g_autoptr(GCudaBuffer) live = gcuda_buffer_new (NULL, 1024, &error);

    g_assert_no_error (error);
    g_assert_null (gcuda_texture_new_from_buffer (live, GCUDA_ARRAY_FORMAT_FLOAT, 3, NULL, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    g_assert_null (gcuda_texture_new_from_buffer (live, (GCudaArrayFormat) 0x55, 1, NULL, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  }

  /* extents beyond the device's limits: the driver's INVALID_VALUE */
  {
    g_autoptr(GCudaArrayDescriptor) huge =
      gcuda_array_descriptor_new (1u << 30, 1u << 20, 0, GCUDA_ARRAY_FORMAT_UNSIGNED_INT8, 1, 0);
    g_autoptr(GCudaArray) none = gcuda_array_new (NULL, huge, &error);

    g_assert_null (none);
    g_assert_true (error != NULL && error->domain == GCUDA_DRIVER_ERROR);
    g_clear_error (&error);
  }

  gcuda_test_assert_no_current_context ();
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/array/nogpu/sources", test_sources);
  g_test_add_func ("/array/nogpu/descriptor", test_descriptor);
  g_test_add_func ("/array/nogpu/range-not-array", test_range_not_array);
  g_test_add_func ("/array/copies", test_copies);
  g_test_add_func ("/array/copy-endpoints", test_copy_endpoints);
  g_test_add_func ("/array/range-copies", test_range_copies);
  g_test_add_func ("/array/range-bad-input", test_range_bad_input);
  g_test_add_func ("/array/texture-2d", test_texture_2d);
  g_test_add_func ("/array/texture-3d-int16", test_texture_3d_int16);
  g_test_add_func ("/array/texture-layered", test_texture_layered);
  g_test_add_func ("/array/texture-linear-and-pitched", test_texture_linear_and_pitched);
  g_test_add_func ("/array/surface-3d", test_surface_3d);
  g_test_add_func ("/array/bad-input", test_bad_input);

  return g_test_run ();
}
