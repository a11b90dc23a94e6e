/* test-device-tools.c: GCudaDeviceData, GCudaOccupancy and the profiler
 *
 * /device-tools/nogpu/ runs without a GPU (suite nogpu): the alignment
 * helpers, and occupancy for devices described by hand (an H100, an A100, a
 * Turing card) against figures worked out from CUDA's occupancy calculator
 * rules; the GPU tests compare GCudaDeviceData with the device's attributes
 * and GCudaOccupancy with the driver's occupancy figures for compiled
 * kernels of different register counts, shared memory and block sizes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-test-kernels.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ devices by hand */

static GCudaDeviceData *
h100_data (void)
{
  return g_object_new (GCUDA_TYPE_DEVICE_DATA,
                       "compute-capability-major", 9, "compute-capability-minor", 0,
                       "max-threads", 1024, "warp-size", 32, "warps-per-mp", 64,
                       "thread-blocks-per-mp", 32, "registers", 65536, "registers-per-block", 65536,
                       "max-registers-per-thread", 255, "register-alloc-granularity", 256,
                       "shared-memory", 233472, "shared-memory-per-block", 49152,
                       "shared-memory-per-block-optin", 232448,
                       "reserved-shared-memory-per-block", 1024,
                       "smem-granularity", 32, "smem-alloc-granularity", 128, NULL);
}

static GCudaDeviceData *
a100_data (void)
{
  return g_object_new (GCUDA_TYPE_DEVICE_DATA,
                       "compute-capability-major", 8, "compute-capability-minor", 0,
                       "max-threads", 1024, "warp-size", 32, "warps-per-mp", 64,
                       "thread-blocks-per-mp", 32, "registers", 65536, "registers-per-block", 65536,
                       "max-registers-per-thread", 255, "register-alloc-granularity", 256,
                       "shared-memory", 167936, "shared-memory-per-block", 49152,
                       "shared-memory-per-block-optin", 166912,
                       "reserved-shared-memory-per-block", 1024,
                       "smem-granularity", 32, "smem-alloc-granularity", 128, NULL);
}

static GCudaDeviceData *
turing_data (void)
{
  return g_object_new (GCUDA_TYPE_DEVICE_DATA,
                       "compute-capability-major", 7, "compute-capability-minor", 5,
                       "max-threads", 1024, "warp-size", 32, "warps-per-mp", 32,
                       "thread-blocks-per-mp", 16, "registers", 65536, "registers-per-block", 65536,
                       "max-registers-per-thread", 255, "register-alloc-granularity", 256,
                       "shared-memory", 65536, "shared-memory-per-block", 49152,
                       "shared-memory-per-block-optin", 65536,
                       "reserved-shared-memory-per-block", 0,
                       "smem-granularity", 32, "smem-alloc-granularity", 256, NULL);
}

/* ------------------------------------------------------------ nogpu */

static void
test_properties_by_hand (void)
{
  g_autoptr(GCudaDeviceData) d = h100_data ();
  int optin = 0, reserved = 0;

  g_assert_cmpint (gcuda_device_data_get_max_threads (d), ==, 1024);
  g_assert_cmpint (gcuda_device_data_get_warp_size (d), ==, 32);
  g_assert_cmpint (gcuda_device_data_get_warps_per_mp (d), ==, 64);
  g_assert_cmpint (gcuda_device_data_get_thread_blocks_per_mp (d), ==, 32);
  g_assert_cmpint (gcuda_device_data_get_registers (d), ==, 65536);
  g_assert_cmpint (gcuda_device_data_get_shared_memory (d), ==, 233472);
  g_assert_cmpint (gcuda_device_data_get_smem_granularity (d), ==, 32);
  g_assert_cmpint (gcuda_device_data_get_smem_alloc_granularity (d), ==, 128);
  g_object_get (d, "shared-memory-per-block-optin", &optin,
                "reserved-shared-memory-per-block", &reserved, NULL);
  g_assert_cmpint (optin, ==, 232448);
  g_assert_cmpint (reserved, ==, 1024);
}

static void
test_align (void)
{
  g_autoptr(GCudaDeviceData) d = h100_data ();
  GError *error = NULL;

  /* PyCUDA's values */
  g_assert_cmpuint (gcuda_device_data_align_bytes (d, 4, &error), ==, 64);
  g_assert_cmpuint (gcuda_device_data_align_bytes (d, 8, &error), ==, 128);
  g_assert_cmpuint (gcuda_device_data_align_bytes (d, 16, &error), ==, 128);
  g_assert_no_error (error);

  g_assert_cmpuint (gcuda_device_data_align (d, 0, 4, &error), ==, 0);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_device_data_align (d, 1, 4, &error), ==, 64);
  g_assert_cmpuint (gcuda_device_data_align (d, 64, 4, &error), ==, 64);
  g_assert_cmpuint (gcuda_device_data_align (d, 65, 4, &error), ==, 128);
  g_assert_cmpuint (gcuda_device_data_align (d, 65, 8, &error), ==, 128);
  g_assert_cmpuint (gcuda_device_data_align (d, 129, 16, &error), ==, 256);
  g_assert_cmpuint (gcuda_device_data_align (d, G_GUINT64_CONSTANT (1) << 40, 8, &error), ==,
                    G_GUINT64_CONSTANT (1) << 40);
  g_assert_no_error (error);

  g_assert_cmpuint (gcuda_device_data_align_words (d, 4, &error), ==, 16);
  g_assert_cmpuint (gcuda_device_data_align_words (d, 8, &error), ==, 16);
  g_assert_cmpuint (gcuda_device_data_align_words (d, 16, &error), ==, 8);
  g_assert_cmpuint (gcuda_device_data_align_dtype (d, 1, 4, &error), ==, 16);
  g_assert_cmpuint (gcuda_device_data_align_dtype (d, 16, 4, &error), ==, 16);
  g_assert_cmpuint (gcuda_device_data_align_dtype (d, 17, 4, &error), ==, 32);
  g_assert_cmpuint (gcuda_device_data_align_dtype (d, 17, 16, &error), ==, 24);
  g_assert_cmpuint (gcuda_device_data_align_dtype (d, 0, 8, &error), ==, 0);
  g_assert_no_error (error);

  /* random sizes: the smallest multiple of the alignment not below the size */
  for (int i = 0; i < 2000; i++)
    {
      static const guint sizes[] = { 4, 8, 16 };
      guint ws = sizes[g_test_rand_int_range (0, 3)];
      guint64 n = (guint64) g_test_rand_int_range (0, G_MAXINT32) * (guint64) g_test_rand_int_range (1, 1000);
      guint a = gcuda_device_data_align_bytes (d, ws, &error);
      guint64 r = gcuda_device_data_align (d, n, ws, &error);
      guint64 e = gcuda_device_data_align_dtype (d, n, ws, &error);
      guint w = gcuda_device_data_align_words (d, ws, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (r % a, ==, 0);
      g_assert_cmpuint (r, >=, n);
      g_assert_cmpuint (r - n, <, a);
      g_assert_cmpuint (e % w, ==, 0);
      g_assert_cmpuint (e, >=, n);
      g_assert_cmpuint (e - n, <, w);
    }

  /* bad word sizes and overflow */
  g_assert_cmpuint (gcuda_device_data_align_bytes (d, 3, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcuda_device_data_align_bytes (d, 0, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcuda_device_data_align (d, 100, 2, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcuda_device_data_align_words (d, 32, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcuda_device_data_align_dtype (d, 100, 1, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcuda_device_data_align (d, G_MAXUINT64, 4, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcuda_device_data_align_dtype (d, G_MAXUINT64 - 3, 4, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
}

static void
test_tex_channel_count (void)
{
  GError *error = NULL;

  g_assert_cmpuint (gcuda_device_data_make_valid_tex_channel_count (0, &error), ==, 1);
  g_assert_cmpuint (gcuda_device_data_make_valid_tex_channel_count (1, &error), ==, 1);
  g_assert_cmpuint (gcuda_device_data_make_valid_tex_channel_count (2, &error), ==, 2);
  g_assert_cmpuint (gcuda_device_data_make_valid_tex_channel_count (3, &error), ==, 4);
  g_assert_cmpuint (gcuda_device_data_make_valid_tex_channel_count (4, &error), ==, 4);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_device_data_make_valid_tex_channel_count (5, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcuda_device_data_make_valid_tex_channel_count (G_MAXUINT, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
}

typedef struct {
  const char *device;
  guint threads;
  guint64 shared;
  guint registers;
  int tb_per_mp;
  GCudaOccupancyLimit limited_by;
  int limits[4];  /* device, warps, registers, shared memory */
} OccupancyCase;

/* Worked out by hand from the occupancy calculator's rules (see each). */
static const OccupancyCase occupancy_cases[] = {
  /* 8 warps a block: 64 / 8 = 8; 32 regs: 1024 a warp, 16 warps a partition */
  { "h100", 256, 0, 32, 8, GCUDA_OCCUPANCY_LIMIT_WARPS, { 32, 8, 8, 228 } },
  /* 64 regs: 2048 a warp, 8 warps a partition, 32 an SM: one block of 32 warps */
  { "h100", 1024, 0, 64, 1, GCUDA_OCCUPANCY_LIMIT_REGISTERS, { 32, 2, 1, 228 } },
  /* 40 regs: 1280 a warp, 12 a partition, 48 an SM / 4 = 12; smem 16000 + 1024
   * = 17024 (a multiple of 128): 233472 / 17024 = 13 */
  { "h100", 128, 16000, 40, 12, GCUDA_OCCUPANCY_LIMIT_REGISTERS, { 32, 16, 12, 13 } },
  /* 48 KiB + 1 KiB reserved: 233472 / 50176 = 4; no registers given */
  { "h100", 256, 49152, 0, 4, GCUDA_OCCUPANCY_LIMIT_SHARED_MEMORY, { 32, 8, G_MAXINT, 4 } },
  /* 255 regs: 8160 rounded to 8192 a warp, 2 a partition, 8 an SM / 2 = 4 */
  { "h100", 64, 0, 255, 4, GCUDA_OCCUPANCY_LIMIT_REGISTERS, { 32, 32, 4, 228 } },
  /* one warp a block: the device's 32 blocks; the reserve alone: 228 */
  { "h100", 32, 0, 0, 32, GCUDA_OCCUPANCY_LIMIT_DEVICE, { 32, 64, G_MAXINT, 228 } },
  /* the whole opt-in shared memory: 232448 + 1024 = 233472, one block */
  { "h100", 32, 232448, 0, 1, GCUDA_OCCUPANCY_LIMIT_SHARED_MEMORY, { 32, 64, G_MAXINT, 1 } },
  /* 1 byte rounds up with the reserve to 1152: 233472 / 1152 = 202 */
  { "h100", 32, 1, 0, 32, GCUDA_OCCUPANCY_LIMIT_DEVICE, { 32, 64, G_MAXINT, 202 } },
  /* A100: 32 KiB + 1 KiB = 33792: 167936 / 33792 = 4 */
  { "a100", 256, 32768, 0, 4, GCUDA_OCCUPANCY_LIMIT_SHARED_MEMORY, { 32, 8, G_MAXINT, 4 } },
  /* A100, 31 warps: 2 by warps and by registers (64 warps / 31), the first
   * named; the reserve alone: 167936 / 1024 = 164 */
  { "a100", 992, 0, 32, 2, GCUDA_OCCUPANCY_LIMIT_WARPS, { 32, 2, 2, 164 } },
  /* Turing: 10000 rounds to 10240 (granularity 256, no reserve): 65536 / 10240 = 6 */
  { "turing", 128, 10000, 0, 6, GCUDA_OCCUPANCY_LIMIT_SHARED_MEMORY, { 16, 8, G_MAXINT, 6 } },
  /* Turing: 3 warps a block, 32 warp slots: 10 */
  { "turing", 96, 0, 0, 10, GCUDA_OCCUPANCY_LIMIT_WARPS, { 16, 10, G_MAXINT, G_MAXINT } },
};

static GCudaDeviceData *
data_named (const char *name)
{
  if (g_str_equal (name, "h100"))
    return h100_data ();
  if (g_str_equal (name, "a100"))
    return a100_data ();
  return turing_data ();
}

static void
test_occupancy_by_hand (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (occupancy_cases); i++)
    {
      const OccupancyCase *c = &occupancy_cases[i];
      g_autoptr(GCudaDeviceData) d = data_named (c->device);
      g_autoptr(GCudaOccupancy) o = NULL;
      GError *error = NULL;
      int warps = (int) (c->threads + 31) / 32;
      GCudaOccupancyLimit limited_by;
      double occupancy;
      int tb;

      g_test_message ("%s: %u threads, %" G_GUINT64_FORMAT " bytes, %u registers",
                      c->device, c->threads, c->shared, c->registers);
      o = gcuda_occupancy_new (d, c->threads, c->shared, c->registers, &error);
      g_assert_no_error (error);
      g_assert_cmpint (gcuda_occupancy_get_tb_per_mp (o), ==, c->tb_per_mp);
      g_assert_cmpint (gcuda_occupancy_get_limited_by (o), ==, c->limited_by);
      for (int l = 0; l < 4; l++)
        g_assert_cmpint (gcuda_occupancy_get_limit (o, (GCudaOccupancyLimit) l), ==, c->limits[l]);
      g_assert_cmpint (gcuda_occupancy_get_warps_per_mp (o), ==, c->tb_per_mp * warps);
      g_assert_cmpfloat_with_epsilon (gcuda_occupancy_get_occupancy (o),
                                      (double) (c->tb_per_mp * warps) /
                                      gcuda_device_data_get_warps_per_mp (d), 1e-12);

      /* the properties agree with the getters */
      g_object_get (o, "tb-per-mp", &tb, "limited-by", &limited_by, "occupancy", &occupancy, NULL);
      g_assert_cmpint (tb, ==, c->tb_per_mp);
      g_assert_cmpint (limited_by, ==, c->limited_by);
      g_assert_cmpfloat (occupancy, ==, gcuda_occupancy_get_occupancy (o));
    }
}

/* Random workloads: the result is the smallest limit, and using more of a
 * resource never gives more blocks. */
static void
test_occupancy_random (void)
{
  g_autoptr(GCudaDeviceData) d = h100_data ();
  guint checked = 0;

  for (int i = 0; i < 3000; i++)
    {
      guint threads = (guint) g_test_rand_int_range (1, 1025);
      guint64 shared = (guint64) g_test_rand_int_range (0, 60000);
      guint regs = (guint) g_test_rand_int_range (0, 129);
      g_autoptr(GCudaOccupancy) o = NULL;
      g_autoptr(GCudaOccupancy) more_regs = NULL;
      g_autoptr(GCudaOccupancy) more_smem = NULL;
      GError *error = NULL;
      int min = G_MAXINT;

      o = gcuda_occupancy_new (d, threads, shared, regs, &error);
      if (o == NULL)
        {
          /* only too many registers for the block can fail here */
          gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
          g_assert_cmpuint ((guint64) ((regs * 32 + 255) / 256 * 256) * (((threads + 31) / 32 + 3) / 4 * 4),
                            >, 65536);
          continue;
        }
      for (int l = 0; l < 4; l++)
        min = MIN (min, gcuda_occupancy_get_limit (o, (GCudaOccupancyLimit) l));
      g_assert_cmpint (gcuda_occupancy_get_tb_per_mp (o), ==, min);
      g_assert_cmpint (gcuda_occupancy_get_limit (o, gcuda_occupancy_get_limited_by (o)), ==, min);
      g_assert_cmpint (min, >=, 1);
      g_assert_cmpfloat (gcuda_occupancy_get_occupancy (o), >, 0.0);
      g_assert_cmpfloat (gcuda_occupancy_get_occupancy (o), <=, 1.0);

      more_regs = gcuda_occupancy_new (d, threads, shared, regs + 8, &error);
      if (more_regs != NULL)
        g_assert_cmpint (gcuda_occupancy_get_tb_per_mp (more_regs), <=, min);
      g_clear_error (&error);
      more_smem = gcuda_occupancy_new (d, threads, shared + 4096, regs, &error);
      g_assert_no_error (error);
      g_assert_cmpint (gcuda_occupancy_get_tb_per_mp (more_smem), <=, min);
      checked++;
    }
  g_assert_cmpuint (checked, >, 1000);
}

static void
test_occupancy_impossible (void)
{
  g_autoptr(GCudaDeviceData) d = h100_data ();
  g_autoptr(GCudaDeviceData) empty = g_object_new (GCUDA_TYPE_DEVICE_DATA, NULL);
  g_autoptr(GCudaDeviceData) tiny = g_object_new (GCUDA_TYPE_DEVICE_DATA,
                                                  "max-threads", 1024, "warp-size", 32, "warps-per-mp", 16,
                                                  "thread-blocks-per-mp", 16, "registers", 65536,
                                                  "registers-per-block", 65536,
                                                  "max-registers-per-thread", 255,
                                                  "register-alloc-granularity", 256,
                                                  "shared-memory", 65536, "shared-memory-per-block", 49152,
                                                  "smem-alloc-granularity", 128, NULL);
  struct { GCudaDeviceData *d; guint threads; guint64 shared; guint regs; const char *word; } cases[] = {
    { d, 0, 0, 0, "threads" },
    { d, 1025, 0, 0, "threads" },
    { d, G_MAXUINT, 0, 0, "threads" },
    { d, 32, 0, 256, "registers" },
    { d, 1024, 0, 65, "registers" },
    { d, 288, 0, 255, "registers" },        /* 9 warps count as 12: 12 * 8192 > 65536 */
    { d, 32, 232449, 0, "shared memory" },
    { d, 32, G_MAXUINT64, 0, "shared memory" },
    { empty, 32, 0, 0, "max-threads" },
    { tiny, 1024, 0, 0, "warps" },          /* 32 warps a block, 16 slots */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError *error = NULL;
      GCudaOccupancy *o = gcuda_occupancy_new (cases[i].d, cases[i].threads, cases[i].shared,
                                               cases[i].regs, &error);

      g_assert_null (o);
      gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, cases[i].word));
      g_clear_error (&error);
    }
}

static void
test_no_device (void)
{
  g_autoptr(GCudaDevice) fake = g_object_new (GCUDA_TYPE_DEVICE, NULL);
  GError *error = NULL;

  g_assert_null (gcuda_device_data_new (fake, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* the nogpu suite makes the driver unloadable */
  if (g_getenv ("GCUDA_DRIVER_LIBRARY") != NULL &&
      !g_file_test (g_getenv ("GCUDA_DRIVER_LIBRARY"), G_FILE_TEST_EXISTS))
    {
      g_assert_null (gcuda_device_data_new (NULL, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND);
      g_assert_false (gcuda_profiler_start (NULL, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND);
      g_assert_false (gcuda_profiler_stop (NULL, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND);
    }
}

/* ------------------------------------------------------------ kernels */

static const char kernels_source[] =
  "#ifndef NACC\n"
  "#define NACC 64\n"
  "#endif\n"
  "/* NACC values live at once: many registers, or spills under --maxrregcount */\n"
  "extern \"C\" __global__ void heavy (const float *in, float *out, int n)\n"
  "{\n"
  "  float acc[NACC];\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "#pragma unroll\n"
  "  for (int k = 0; k < NACC; k++)\n"
  "    acc[k] = in[(i + k * 977) % n];\n"
  "#pragma unroll\n"
  "  for (int r = 0; r < 4; r++)\n"
  "    {\n"
  "#pragma unroll\n"
  "      for (int k = 0; k < NACC; k++)\n"
  "        acc[k] = acc[k] * acc[(k * 7 + r + 1) % NACC] + acc[(k * 13 + r + 3) % NACC];\n"
  "    }\n"
  "  float s = 0.0f;\n"
  "#pragma unroll\n"
  "  for (int k = 0; k < NACC; k++)\n"
  "    s += acc[k] * (float) (k + 1);\n"
  "  if (i < n)\n"
  "    out[i] = s;\n"
  "}\n"
  "\n"
  "extern \"C\" __global__ void light (const float *in, float *out, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    out[i] = in[i] * 2.0f;\n"
  "}\n"
  "\n"
  "/* TILE floats of static shared memory */\n"
  "extern \"C\" __global__ void tile_static (const float *in, float *out, int n)\n"
  "{\n"
  "  __shared__ float tile[TILE];\n"
  "  for (int k = threadIdx.x; k < TILE; k += blockDim.x)\n"
  "    tile[k] = in[(blockIdx.x * TILE + k) % n];\n"
  "  __syncthreads ();\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    out[i] = tile[(TILE - 1 - threadIdx.x) % TILE];\n"
  "}\n"
  "\n"
  "extern \"C\" __global__ void tile_dynamic (const float *in, float *out, int n)\n"
  "{\n"
  "  extern __shared__ float dyn[];\n"
  "  dyn[threadIdx.x] = in[(blockIdx.x * blockDim.x + threadIdx.x) % n];\n"
  "  __syncthreads ();\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    out[i] = dyn[blockDim.x - 1 - threadIdx.x];\n"
  "}\n";

/* Register counts from about 10 to 255 (sm_90: heavy has 80, 32, 64, 255, 32
 * registers in these builds), static shared memory of 12000 and 40000 bytes. */
static const TestKernelSource sources[] = {
  { "default", kernels_source, FALSE, FALSE, { "-DTILE=3000", NULL } },
  { "maxrregcount-32", kernels_source, FALSE, FALSE, { "-DTILE=3000", "--maxrregcount=32", NULL } },
  { "maxrregcount-64", kernels_source, FALSE, FALSE, { "-DTILE=3000", "--maxrregcount=64", NULL } },
  { "many-registers", kernels_source, FALSE, FALSE, { "-DTILE=10000", "-DNACC=160", NULL } },
  { "few-registers", kernels_source, FALSE, FALSE, { "-DTILE=10000", "-DNACC=16", NULL } },
  { NULL }
};

static void
test_sources (void)
{
  test_kernel_sources_compile (sources);
}

/* ------------------------------------------------------------ gpu */

static int
attribute (GCudaDevice          *device,
           GCudaDeviceAttribute  attr)
{
  GError *error = NULL;
  int value = gcuda_device_get_attribute (device, attr, &error);

  g_assert_no_error (error);
  return value;
}

static void
test_device_data (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaDeviceData) d = NULL;
  g_autoptr(GCudaDeviceData) by_default = NULL;
  GError *error = NULL;
  int major = 0, minor = 0, v = 0;

  if (!gcuda_test_require_gpu ())
    return;
  device = gcuda_test_get_device ();
  d = gcuda_device_data_new (device, &error);
  g_assert_no_error (error);
  gcuda_device_get_compute_capability (device, &major, &minor);

  g_assert_cmpint (gcuda_device_data_get_max_threads (d), ==,
                   attribute (device, GCUDA_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  g_assert_cmpint (gcuda_device_data_get_warp_size (d), ==, attribute (device, GCUDA_DEVICE_ATTRIBUTE_WARP_SIZE));
  g_assert_cmpint (gcuda_device_data_get_warps_per_mp (d), ==,
                   attribute (device, GCUDA_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) /
                   gcuda_device_data_get_warp_size (d));
  g_assert_cmpint (gcuda_device_data_get_warps_per_mp (d), >=, 1);
  g_assert_cmpint (gcuda_device_data_get_thread_blocks_per_mp (d), ==,
                   attribute (device, GCUDA_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR));
  g_assert_cmpint (gcuda_device_data_get_registers (d), ==,
                   attribute (device, GCUDA_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR));
  g_assert_cmpint (gcuda_device_data_get_shared_memory (d), ==,
                   attribute (device, GCUDA_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  g_object_get (d, "registers-per-block", &v, NULL);
  g_assert_cmpint (v, ==, attribute (device, GCUDA_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK));
  g_object_get (d, "shared-memory-per-block", &v, NULL);
  g_assert_cmpint (v, ==, attribute (device, GCUDA_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  g_object_get (d, "shared-memory-per-block-optin", &v, NULL);
  g_assert_cmpint (v, ==, attribute (device, GCUDA_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  g_object_get (d, "reserved-shared-memory-per-block", &v, NULL);
  g_assert_cmpint (v, ==, attribute (device, GCUDA_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
  g_object_get (d, "compute-capability-major", &v, NULL);
  g_assert_cmpint (v, ==, major);
  g_assert_cmpint (gcuda_device_data_get_smem_granularity (d), ==, 32);
  g_assert_cmpint (gcuda_device_data_get_smem_alloc_granularity (d), ==, major >= 8 ? 128 : 256);

  /* NULL: the default context's device, which is device 0 here */
  by_default = gcuda_device_data_new (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcuda_device_data_get_registers (by_default), ==, gcuda_device_data_get_registers (d));
  g_assert_cmpint (gcuda_device_data_get_shared_memory (by_default), ==,
                   gcuda_device_data_get_shared_memory (d));
  gcuda_test_assert_no_current_context ();
}

/* For each build, kernel, block size and dynamic shared memory: the blocks
 * per multiprocessor GCudaOccupancy computes are the driver's. */
static void
test_occupancy_vs_driver (void)
{
  static const char *kernels[] = { "heavy", "light", "tile_static", "tile_dynamic" };
  static const guint blocks[] = { 32, 64, 96, 128, 160, 192, 256, 288, 384, 512, 640, 768, 1024 };
  static const guint64 dynamic[] = { 0, 1, 1000, 4096, 20000, 46000 };
  g_autoptr(GCudaDeviceData) d = NULL;
  g_autoptr(GHashTable) reg_counts = g_hash_table_new (NULL, NULL);
  GError *error = NULL;
  guint compared = 0, impossible = 0;

  if (!gcuda_test_require_gpu ())
    return;
  d = gcuda_device_data_new (NULL, &error);
  g_assert_no_error (error);

  for (const TestKernelSource *s = sources; s->name != NULL; s++)
    {
      g_autoptr(GCudaModule) module = load_module (NULL, s->source, s->options);

      for (gsize k = 0; k < G_N_ELEMENTS (kernels); k++)
        {
          g_autoptr(GCudaFunction) f = get_kernel (module, kernels[k]);
          int regs = 0, static_shared = 0, max_dynamic = 0;

          g_object_get (f, "num-regs", &regs, "shared-size-bytes", &static_shared,
                        "max-dynamic-shared-size-bytes", &max_dynamic, NULL);
          g_hash_table_add (reg_counts, GINT_TO_POINTER (regs));

          for (gsize b = 0; b < G_N_ELEMENTS (blocks); b++)
            for (gsize y = 0; y < G_N_ELEMENTS (dynamic); y++)
              {
                g_autoptr(GCudaOccupancy) o = NULL;
                int driver;

                if (dynamic[y] > (guint64) max_dynamic)
                  continue;  /* the kernel did not opt in to that much */
                driver = gcuda_function_get_max_active_blocks_per_multiprocessor (f, blocks[b], dynamic[y],
                                                                                  &error);
                if (error != NULL)
                  {
                    g_test_message ("driver: %s", error->message);
                    g_clear_error (&error);
                    driver = 0;
                  }
                o = gcuda_occupancy_new (d, blocks[b], (guint64) static_shared + dynamic[y], (guint) regs, &error);
                g_test_message ("%s/%s: %d regs, %d+%" G_GUINT64_FORMAT " bytes, %u threads: driver %d, GCuda %d",
                                s->name, kernels[k], regs, static_shared, dynamic[y], blocks[b], driver,
                                o ? gcuda_occupancy_get_tb_per_mp (o) : 0);
                if (o == NULL)
                  {
                    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
                    g_assert_cmpint (driver, ==, 0);
                    impossible++;
                    continue;
                  }
                if (gcuda_occupancy_get_tb_per_mp (o) != driver)
                  g_error ("%s/%s: %d registers, %d + %" G_GUINT64_FORMAT " bytes of shared memory, "
                           "%u threads: the driver says %d blocks per SM, GCudaOccupancy %d (limited by %d)",
                           s->name, kernels[k], regs, static_shared, dynamic[y], blocks[b], driver,
                           gcuda_occupancy_get_tb_per_mp (o), gcuda_occupancy_get_limited_by (o));
                compared++;
              }
        }
    }

  /* the builds really differ in registers, and the heavy ones hit the limit */
  g_assert_cmpuint (g_hash_table_size (reg_counts), >=, 4);
  g_assert_cmpuint (compared, >=, 500);
  g_assert_cmpuint (impossible, >=, 1);
  context_sync (NULL);
  gcuda_test_assert_no_current_context ();
}

/* Kernels opted in to more than 48 KiB of dynamic shared memory. */
static void
test_occupancy_large_shared (void)
{
  g_autoptr(GCudaDeviceData) d = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaFunction) f = NULL;
  GError *error = NULL;
  int optin = 0, reserved = 0, regs = 0;
  guint64 gran;

  if (!gcuda_test_require_gpu ())
    return;
  d = gcuda_device_data_new (NULL, &error);
  g_assert_no_error (error);
  g_object_get (d, "shared-memory-per-block-optin", &optin,
                "reserved-shared-memory-per-block", &reserved, NULL);
  module = load_module (NULL, kernels_source, sources[0].options);
  f = get_kernel (module, "tile_dynamic");
  g_assert_true (gcuda_function_set_max_dynamic_shared_size (f, (guint) optin, &error));
  g_assert_no_error (error);

  g_object_get (f, "num-regs", &regs, NULL);
  gran = (guint64) gcuda_device_data_get_smem_alloc_granularity (d);

  /* from 48 KiB to the whole opt-in amount, which leaves room for one block */
  for (guint64 dyn = 49152; ; dyn = MIN (dyn + 12345, (guint64) optin))
    {
      for (guint threads = 64; threads <= 1024; threads *= 2)
        {
          g_autoptr(GCudaOccupancy) o = gcuda_occupancy_new (d, threads, dyn, (guint) regs, &error);
          int driver;

          g_assert_no_error (error);
          driver = gcuda_function_get_max_active_blocks_per_multiprocessor (f, threads, dyn, &error);
          g_assert_no_error (error);
          g_test_message ("%" G_GUINT64_FORMAT " bytes, %u threads: driver %d, GCuda %d",
                          dyn, threads, driver, gcuda_occupancy_get_tb_per_mp (o));
          g_assert_cmpint (driver, >=, 1);
          g_assert_cmpint (gcuda_occupancy_get_tb_per_mp (o), ==, driver);
          g_assert_cmpint (gcuda_occupancy_get_limit (o, GCUDA_OCCUPANCY_LIMIT_SHARED_MEMORY), ==,
                           (int) ((guint64) gcuda_device_data_get_shared_memory (d) /
                                  ((dyn + (guint64) reserved + gran - 1) / gran * gran)));
        }
      if (dyn == (guint64) optin)
        break;
    }
  gcuda_test_assert_no_current_context ();
}

static void
test_profiler (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaContext) dead = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  /* without a profiler attached, both succeed and do nothing */
  g_assert_true (gcuda_profiler_start (NULL, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_profiler_stop (NULL, &error));
  g_assert_no_error (error);

  context = gcuda_context_get_default (&error);
  g_assert_no_error (error);
  g_assert_true (gcuda_profiler_start (context, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_profiler_stop (context, &error));
  g_assert_no_error (error);

  /* a destroyed context is refused */
  device = gcuda_test_get_device ();
  dead = gcuda_device_create_context (device, 0, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_context_destroy (dead, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_profiler_start (dead, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_profiler_stop (dead, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  gcuda_test_assert_no_current_context ();
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/device-tools/nogpu/properties-by-hand", test_properties_by_hand);
  g_test_add_func ("/device-tools/nogpu/align", test_align);
  g_test_add_func ("/device-tools/nogpu/tex-channel-count", test_tex_channel_count);
  g_test_add_func ("/device-tools/nogpu/occupancy-by-hand", test_occupancy_by_hand);
  g_test_add_func ("/device-tools/nogpu/occupancy-random", test_occupancy_random);
  g_test_add_func ("/device-tools/nogpu/occupancy-impossible", test_occupancy_impossible);
  g_test_add_func ("/device-tools/nogpu/no-device", test_no_device);
  g_test_add_func ("/device-tools/nogpu/sources", test_sources);
  g_test_add_func ("/device-tools/device-data", test_device_data);
  g_test_add_func ("/device-tools/occupancy-vs-driver", test_occupancy_vs_driver);
  g_test_add_func ("/device-tools/occupancy-large-shared", test_occupancy_large_shared);
  g_test_add_func ("/device-tools/profiler", test_profiler);

  return g_test_run ();
}
