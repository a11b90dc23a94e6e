/* test-launch.c: GCudaFunction launches, GCudaKernelArgs, launch
 * configurations, timed launches, kernel attributes and occupancy on a real
 * GPU; every launch's result is compared with the same computation on the
 * host, on fresh random data
 *
 * /launch/sources also runs without a GPU (suite nogpu): it compiles every
 * kernel of this file for sm_90.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gcuda-test-async.h"
#include "gcuda-test-kernels.h"
#include "gcuda-test-memory.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ kernels */

static const char launch_source[] =
  "struct vec3 { float x, y, z; };\n"
  "\n"
  "__global__ void vadd (const float *a, const float *b, float *c, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    c[i] = a[i] + b[i];\n"
  "}\n"
  "\n"
  "/* every argument, bit for bit, into out[0..14] */\n"
  "__global__ void echo_args (signed char i8, unsigned char u8, short i16, unsigned short u16,\n"
  "                           int i32, unsigned int u32, long long i64, unsigned long long u64,\n"
  "                           float f, double d, const unsigned int *ptr, vec3 v,\n"
  "                           unsigned long long *out)\n"
  "{\n"
  "  out[0] = (unsigned long long) (long long) i8;\n"
  "  out[1] = u8;\n"
  "  out[2] = (unsigned long long) (long long) i16;\n"
  "  out[3] = u16;\n"
  "  out[4] = (unsigned long long) (long long) i32;\n"
  "  out[5] = u32;\n"
  "  out[6] = (unsigned long long) i64;\n"
  "  out[7] = u64;\n"
  "  out[8] = __float_as_uint (f);\n"
  "  out[9] = (unsigned long long) __double_as_longlong (d);\n"
  "  out[10] = (unsigned long long) ptr;\n"
  "  out[11] = ptr[0];\n"
  "  out[12] = __float_as_uint (v.x);\n"
  "  out[13] = __float_as_uint (v.y);\n"
  "  out[14] = __float_as_uint (v.z);\n"
  "}\n"
  "\n"
  "/* a 3D grid of 3D blocks exchanging values through dynamic shared memory */\n"
  "__global__ void grid3d (unsigned int *out, unsigned int *dims, unsigned int salt)\n"
  "{\n"
  "  extern __shared__ unsigned int sh[];\n"
  "  unsigned int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
  "  unsigned int nt = blockDim.x * blockDim.y * blockDim.z;\n"
  "  unsigned int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);\n"
  "  sh[t] = t * 7u + salt;\n"
  "  __syncthreads ();\n"
  "  out[b * nt + t] = sh[nt - 1 - t] + b * 1000u;\n"
  "  if (b == 0 && t == 0) {\n"
  "    dims[0] = gridDim.x; dims[1] = gridDim.y; dims[2] = gridDim.z;\n"
  "    dims[3] = blockDim.x; dims[4] = blockDim.y; dims[5] = blockDim.z;\n"
  "  }\n"
  "}\n"
  "\n"
  "/* 16000 bytes of static shared memory (PyCUDA's test_large_smem) */\n"
  "__global__ void static_shared (const float *in, float *out)\n"
  "{\n"
  "  __shared__ float tile[4000];\n"
  "  for (int i = threadIdx.x; i < 4000; i += blockDim.x)\n"
  "    tile[i] = in[blockIdx.x * 4000 + i];\n"
  "  __syncthreads ();\n"
  "  for (int i = threadIdx.x; i < 4000; i += blockDim.x)\n"
  "    out[blockIdx.x * 4000 + i] = tile[3999 - i] * 2.0f;\n"
  "}\n"
  "\n"
  "__global__ void dynamic_shared (const float *in, float *out, int n)\n"
  "{\n"
  "  extern __shared__ float buf[];\n"
  "  for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
  "    buf[i] = in[i];\n"
  "  __syncthreads ();\n"
  "  for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
  "    out[i] = buf[n - 1 - i] + 1.0f;\n"
  "}\n"
  "\n"
  "__global__ void no_params ()\n"
  "{\n"
  "}\n"
  "\n"
  "__global__ void busy (float *out, int iterations)\n"
  "{\n"
  "  float x = (float) threadIdx.x;\n"
  "  for (int i = 0; i < iterations; i++)\n"
  "    x = fmaf (x, 0.999f, 1.0f);\n"
  "  out[blockIdx.x * blockDim.x + threadIdx.x] = x;\n"
  "}\n"
  "\n"
  "__global__ void store (unsigned int *p, unsigned int value)\n"
  "{\n"
  "  p[threadIdx.x] = value + threadIdx.x;\n"
  "}\n"
  "\n"
  "/* store() under the name tools/run-compute-sanitizer expects to fault */\n"
  "__global__ void fault_on_purpose (unsigned int *p, unsigned int value)\n"
  "{\n"
  "  p[threadIdx.x] = value + threadIdx.x;\n"
  "}\n"
  "\n"
  "/* a hand-made grid barrier: only ends when every block is resident at once,\n"
  " * which a cooperative launch guarantees; then each thread writes the count */\n"
  "__global__ void coop_barrier (unsigned int *counter, unsigned int *out, long long spin_limit)\n"
  "{\n"
  "  __shared__ unsigned int seen;\n"
  "  if (threadIdx.x == 0) {\n"
  "    unsigned int c;\n"
  "    long long i = 0;\n"
  "    atomicAdd (counter, 1u);\n"
  "    while ((c = atomicAdd (counter, 0u)) < gridDim.x && i < spin_limit)\n"
  "      i++;\n"
  "    seen = c;\n"
  "  }\n"
  "  __syncthreads ();\n"
  "  out[blockIdx.x * blockDim.x + threadIdx.x] = seen;\n"
  "}\n";

/* sm_90 only: the block's rank in its cluster and the cluster's size */
static const char cluster_source[] =
  "__global__ void cluster_rank (unsigned int *out)\n"
  "{\n"
  "  unsigned int rank, n;\n"
  "  asm volatile (\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\" (rank));\n"
  "  asm volatile (\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\" (n));\n"
  "  if (threadIdx.x == 0) {\n"
  "    out[2 * blockIdx.x] = rank;\n"
  "    out[2 * blockIdx.x + 1] = n;\n"
  "  }\n"
  "}\n";

static const TestKernelSource sources[] = {
  { "launch_source", launch_source, FALSE, FALSE, { NULL } },
  { "cluster_source", cluster_source, FALSE, FALSE, { NULL } },
  { NULL }
};

/* ------------------------------------------------------------ helpers */

static GCudaModule *shared_module;

/* The module of launch_source (loaded once per process, in the default context). */
static GCudaModule *
launch_module (void)
{
  if (shared_module == NULL)
    shared_module = load_module (NULL, launch_source, NULL);
  return g_object_ref (shared_module);
}

static GCudaFunction *
kernel (const char *name)
{
  g_autoptr(GCudaModule) module = launch_module ();

  return get_kernel (module, name);
}

static guint
n_sms (void)
{
  g_autoptr(GCudaDevice) device = gcuda_test_get_device ();

  return (guint) gcuda_device_get_multiprocessor_count (device);
}

/* ------------------------------------------------------------ tests */

static void
test_sources (void)
{
  test_kernel_sources_compile (sources);
}

static void
test_vector_add (void)
{
  const gsize n = 100003;  /* not a multiple of the block */
  g_autofree float *a = random_floats (n);
  g_autofree float *b = random_floats (n);
  g_autofree float *want = g_new (float, n);
  g_autofree float *got = g_new (float, n);
  g_autoptr(GCudaFunction) vadd = NULL;
  g_autoptr(GCudaBuffer) da = NULL, db = NULL, dc = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autoptr(GCudaStream) stream = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  for (gsize i = 0; i < n; i++)
    want[i] = a[i] + b[i];
  vadd = kernel ("vadd");
  da = buffer_with (a, n * 4);
  db = buffer_with (b, n * 4);
  dc = new_buffer (NULL, n * 4);
  poison (dc, 0xff);

  args = gcuda_kernel_args_new ();
  g_assert_cmpuint (gcuda_kernel_args_add_buffer (args, da), ==, 0);
  g_assert_cmpuint (gcuda_kernel_args_add_buffer (args, db), ==, 1);
  g_assert_cmpuint (gcuda_kernel_args_add_buffer (args, dc), ==, 2);
  g_assert_cmpuint (gcuda_kernel_args_add_int32 (args, (gint32) n), ==, 3);
  g_assert_cmpuint (gcuda_kernel_args_get_count (args), ==, 4);

  /* the legacy stream */
  launch_ok (vadd, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args);
  context_sync (NULL);
  download_into (dc, got, n * 4);
  assert_floats_close (got, want, n, 0);

  /* a stream, other data */
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  g_free (a);
  a = random_floats (n);
  upload_ok (da, 0, (const guint8 *) a, n * 4);
  for (gsize i = 0; i < n; i++)
    want[i] = a[i] + b[i];
  poison (dc, 0xfe);
  launch_ok (vadd, (n + 127) / 128, 1, 1, 128, 1, 1, 0, stream, args);
  sync_stream (stream);
  download_into (dc, got, n * 4);
  assert_floats_close (got, want, n, 0);

  gcuda_test_assert_no_current_context ();
}

/* The values echo_args gets, and what it must write. */
typedef struct {
  gint8 i8;
  guint8 u8;
  gint16 i16;
  guint16 u16;
  gint32 i32;
  guint32 u32;
  gint64 i64;
  guint64 u64;
  float f;
  double d;
  guint64 ptr;
  guint32 pointee;
  float v[3];
} EchoValues;

static void
random_echo_values (EchoValues *v)
{
  fill_random (v, sizeof *v);
  /* values whose bits survive the trip as they are (no NaN payloads) */
  v->f = (float) g_random_double_range (-1e6, 1e6);
  v->d = g_random_double_range (-1e12, 1e12);
  for (guint i = 0; i < 3; i++)
    v->v[i] = (float) g_random_double_range (-1e3, 1e3);
  /* negative small integers check sign extension */
  v->i8 = (gint8) -(gint8) g_random_int_range (1, 128);
  v->i16 = (gint16) -(gint16) g_random_int_range (1, 32768);
}

static void
expected_echo (const EchoValues *v,
               guint64           want[15])
{
  guint32 fbits;
  guint64 dbits;

  want[0] = (guint64) (gint64) v->i8;
  want[1] = v->u8;
  want[2] = (guint64) (gint64) v->i16;
  want[3] = v->u16;
  want[4] = (guint64) (gint64) v->i32;
  want[5] = v->u32;
  want[6] = (guint64) v->i64;
  want[7] = v->u64;
  memcpy (&fbits, &v->f, 4);
  want[8] = fbits;
  memcpy (&dbits, &v->d, 8);
  want[9] = dbits;
  want[10] = v->ptr;
  want[11] = v->pointee;
  for (guint i = 0; i < 3; i++)
    {
      memcpy (&fbits, &v->v[i], 4);
      want[12 + i] = fbits;
    }
}

static void
assert_echo (GCudaBuffer      *out,
             const EchoValues *v)
{
  guint64 got[15], want[15];

  download_into (out, got, sizeof got);
  expected_echo (v, want);
  for (guint i = 0; i < 15; i++)
    if (got[i] != want[i])
      g_error ("echo_args: out[%u] is 0x%016" G_GINT64_MODIFIER "x, expected 0x%016" G_GINT64_MODIFIER "x",
               i, got[i], want[i]);
}

static GBytes *
vec3_bytes (const float v[3])
{
  return g_bytes_new (v, 12);
}

static void
test_all_argument_types (void)
{
  g_autoptr(GCudaFunction) echo = NULL;
  g_autoptr(GCudaBuffer) pointee = NULL, out = NULL, out2 = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autoptr(GBytes) v3 = NULL;
  static const guint64 sizes[] = { 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 12, 8 };
  EchoValues v;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  echo = kernel ("echo_args");
  g_assert_cmpuint (gcuda_function_get_param_count (echo), ==, G_N_ELEMENTS (sizes));
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    g_assert_cmpuint (gcuda_function_get_param_size (echo, i), ==, sizes[i]);
  g_assert_cmpuint (gcuda_function_get_param_size (echo, 13), ==, 0);
  /* Offsets: in order, not overlapping, each at its natural alignment. */
  g_assert_cmpuint (gcuda_function_get_param_offset (echo, 0), ==, 0);
  for (guint i = 1; i < G_N_ELEMENTS (sizes); i++)
    {
      guint64 offset = gcuda_function_get_param_offset (echo, i);

      g_assert_cmpuint (offset, >=, gcuda_function_get_param_offset (echo, i - 1) + sizes[i - 1]);
      g_assert_cmpuint (offset % (sizes[i] == 12 ? 4 : sizes[i]), ==, 0);
    }
  g_assert_cmpuint (gcuda_function_get_param_offset (echo, 13), ==, 0);

  random_echo_values (&v);
  pointee = buffer_with (&v.pointee, 4);
  v.ptr = gcuda_buffer_get_address (pointee);
  out = new_buffer (NULL, 15 * 8);
  out2 = new_buffer (NULL, 15 * 8);
  poison (out, 0xa5);
  poison (out2, 0x5a);
  v3 = vec3_bytes (v.v);

  args = gcuda_kernel_args_new ();
  g_assert_cmpuint (gcuda_kernel_args_add_int8 (args, v.i8), ==, 0);
  gcuda_kernel_args_add_uint8 (args, v.u8);
  gcuda_kernel_args_add_int16 (args, v.i16);
  gcuda_kernel_args_add_uint16 (args, v.u16);
  gcuda_kernel_args_add_int32 (args, v.i32);
  gcuda_kernel_args_add_uint32 (args, v.u32);
  gcuda_kernel_args_add_int64 (args, v.i64);
  gcuda_kernel_args_add_uint64 (args, v.u64);
  gcuda_kernel_args_add_float (args, v.f);
  gcuda_kernel_args_add_double (args, v.d);
  gcuda_kernel_args_add_pointer (args, v.ptr);
  gcuda_kernel_args_add_struct (args, v3, 4);
  g_assert_cmpuint (gcuda_kernel_args_add_buffer (args, out), ==, 12);
  g_assert_cmpuint (gcuda_kernel_args_get_count (args), ==, 13);

  launch_ok (echo, 1, 1, 1, 1, 1, 1, 0, NULL, args);
  context_sync (NULL);
  assert_echo (out, &v);

  /* reused: new values through set_*, a second launch sees them */
  {
    EchoValues w = v;
    EchoValues r;

    random_echo_values (&r);
    w.i32 = r.i32;
    w.u32 = r.u32;
    w.i64 = r.i64;
    w.u64 = r.u64;
    w.f = r.f;
    w.d = r.d;
    g_assert_true (gcuda_kernel_args_set_int32 (args, 4, w.i32, &error));
    g_assert_true (gcuda_kernel_args_set_uint32 (args, 5, w.u32, &error));
    g_assert_true (gcuda_kernel_args_set_int64 (args, 6, w.i64, &error));
    g_assert_true (gcuda_kernel_args_set_uint64 (args, 7, w.u64, &error));
    g_assert_true (gcuda_kernel_args_set_float (args, 8, w.f, &error));
    g_assert_true (gcuda_kernel_args_set_double (args, 9, w.d, &error));
    g_assert_true (gcuda_kernel_args_set_buffer (args, 12, out2, &error));
    g_assert_no_error (error);
    launch_ok (echo, 1, 1, 1, 1, 1, 1, 0, NULL, args);
    context_sync (NULL);
    assert_echo (out2, &w);
    assert_echo (out, &v);  /* the first output untouched */

    /* a value of the wrong size cannot replace an argument */
    g_assert_false (gcuda_kernel_args_set_int32 (args, 6, 1, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
    g_assert_false (gcuda_kernel_args_set_double (args, 8, 1.0, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
    g_assert_false (gcuda_kernel_args_set_uint64 (args, 13, 1, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);

    /* and the arguments are still those of the last launch */
    poison (out2, 0x11);
    launch_ok (echo, 1, 1, 1, 1, 1, 1, 0, NULL, args);
    context_sync (NULL);
    assert_echo (out2, &w);
  }

  /* cleared, they are rebuilt from scratch */
  gcuda_kernel_args_clear (args);
  g_assert_cmpuint (gcuda_kernel_args_get_count (args), ==, 0);
  g_assert_false (gcuda_function_launch (echo, 1, 1, 1, 1, 1, 1, 0, NULL, args, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);

  gcuda_test_assert_no_current_context ();
}

/* Packs echo_args's parameters at natural alignment, as the kernel lays
 * them out (80 bytes). */
static gsize
pack_echo (const EchoValues *v,
           guint64           out_address,
           guint8            packed[80])
{
  memset (packed, 0, 80);
  memcpy (packed + 0, &v->i8, 1);
  memcpy (packed + 1, &v->u8, 1);
  memcpy (packed + 2, &v->i16, 2);
  memcpy (packed + 4, &v->u16, 2);
  memcpy (packed + 8, &v->i32, 4);
  memcpy (packed + 12, &v->u32, 4);
  memcpy (packed + 16, &v->i64, 8);
  memcpy (packed + 24, &v->u64, 8);
  memcpy (packed + 32, &v->f, 4);
  memcpy (packed + 40, &v->d, 8);
  memcpy (packed + 48, &v->ptr, 8);
  memcpy (packed + 56, v->v, 12);
  memcpy (packed + 72, &out_address, 8);
  return 80;
}

static void
test_packed (void)
{
  g_autoptr(GCudaFunction) echo = NULL, none = NULL;
  g_autoptr(GCudaBuffer) pointee = NULL, out = NULL;
  guint8 packed[80];
  gsize size;
  EchoValues v;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  echo = kernel ("echo_args");
  none = kernel ("no_params");
  for (guint round = 0; round < 3; round++)
    {
      random_echo_values (&v);
      g_clear_object (&pointee);
      g_clear_object (&out);
      pointee = buffer_with (&v.pointee, 4);
      v.ptr = gcuda_buffer_get_address (pointee);
      out = new_buffer (NULL, 15 * 8);
      poison (out, (guint8) (0x30 + round));
      size = pack_echo (&v, gcuda_buffer_get_address (out), packed);
      g_assert_true (gcuda_function_launch_packed (echo, 1, 1, 1, 1, 1, 1, 0, NULL, packed, size, &error));
      g_assert_no_error (error);
      context_sync (NULL);
      assert_echo (out, &v);
    }

  /* a size that is not the kernel's */
  g_assert_false (gcuda_function_launch_packed (echo, 1, 1, 1, 1, 1, 1, 0, NULL, packed, 79, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_nonnull (strstr (error->message, "echo_args"));
  g_assert_nonnull (strstr (error->message, "80"));
  g_clear_error (&error);
  g_assert_false (gcuda_function_launch_packed (echo, 1, 1, 1, 1, 1, 1, 0, NULL, packed, 88, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_function_launch_packed (echo, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, 80, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);

  /* no parameters: nothing to pack */
  g_assert_true (gcuda_function_launch_packed (none, 2, 1, 1, 32, 1, 1, 0, NULL, NULL, 0, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_function_launch_packed (none, 1, 1, 1, 1, 1, 1, 0, NULL, packed, 8, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  context_sync (NULL);

  gcuda_test_assert_no_current_context ();
}

static void
test_grid_3d_dynamic_shared (void)
{
  const guint gx = 3, gy = 4, gz = 5, bx = 4, by = 4, bz = 2;
  const guint nt = bx * by * bz, nb = gx * gy * gz;
  g_autoptr(GCudaFunction) f = NULL;
  g_autoptr(GCudaBuffer) out = NULL, dims = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autofree guint32 *got = g_new (guint32, nt * nb);
  g_autofree guint32 *want = g_new (guint32, nt * nb);
  const guint32 want_dims[6] = { gx, gy, gz, bx, by, bz };
  guint32 got_dims[6];
  guint32 salt = g_random_int ();

  if (!gcuda_test_require_gpu ())
    return;

  f = kernel ("grid3d");
  out = new_buffer (NULL, nt * nb * 4);
  dims = new_buffer (NULL, sizeof got_dims);
  poison (out, 0xee);
  poison (dims, 0xee);
  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, out);
  gcuda_kernel_args_add_buffer (args, dims);
  gcuda_kernel_args_add_uint32 (args, salt);
  launch_ok (f, gx, gy, gz, bx, by, bz, nt * 4, NULL, args);
  context_sync (NULL);

  for (guint b = 0; b < nb; b++)
    for (guint t = 0; t < nt; t++)
      want[b * nt + t] = (nt - 1 - t) * 7u + salt + b * 1000u;
  download_into (out, got, nt * nb * 4);
  assert_u32_equal (got, want, nt * nb);
  download_into (dims, got_dims, sizeof got_dims);
  assert_u32_equal (got_dims, want_dims, 6);

  gcuda_test_assert_no_current_context ();
}

static void
test_static_shared (void)
{
  const guint blocks = 7;
  const gsize n = blocks * 4000;
  g_autoptr(GCudaFunction) f = NULL;
  g_autoptr(GCudaBuffer) din = NULL, dout = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autofree float *in = random_floats (n);
  g_autofree float *got = g_new (float, n);
  g_autofree float *want = g_new (float, n);
  GError *error = NULL;
  int shared = -1;

  if (!gcuda_test_require_gpu ())
    return;

  f = kernel ("static_shared");
  g_object_get (f, "shared-size-bytes", &shared, NULL);
  g_assert_cmpint (shared, ==, 16000);
  g_assert_cmpint (gcuda_function_get_attribute (f, GCUDA_FUNCTION_ATTRIBUTE_SHARED_SIZE_BYTES, &error), ==, 16000);
  g_assert_no_error (error);

  din = buffer_with (in, n * 4);
  dout = new_buffer (NULL, n * 4);
  poison (dout, 0x7f);
  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, din);
  gcuda_kernel_args_add_buffer (args, dout);
  launch_ok (f, blocks, 1, 1, 256, 1, 1, 0, NULL, args);
  context_sync (NULL);
  for (guint b = 0; b < blocks; b++)
    for (guint i = 0; i < 4000; i++)
      want[b * 4000 + i] = in[b * 4000 + 3999 - i] * 2.0f;
  download_into (dout, got, n * 4);
  assert_floats_close (got, want, n, 0);

  gcuda_test_assert_no_current_context ();
}

/* More than 48 KiB of dynamic shared memory needs the kernel's opt-in. */
static void
test_large_dynamic_shared (void)
{
  const guint bytes = 64 * 1024;
  const int n = bytes / 4;
  g_autoptr(GCudaFunction) f = NULL;
  g_autoptr(GCudaBuffer) din = NULL, dout = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autofree float *in = random_floats (n);
  g_autofree float *got = g_new (float, n);
  g_autofree float *want = g_new (float, n);
  GError *error = NULL;
  int max_dynamic = -1;

  if (!gcuda_test_require_gpu ())
    return;

  f = kernel ("dynamic_shared");
  din = buffer_with (in, bytes);
  dout = new_buffer (NULL, bytes);
  poison (dout, 0x3c);
  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, din);
  gcuda_kernel_args_add_buffer (args, dout);
  gcuda_kernel_args_add_int32 (args, n);

  /* 48 KiB works without it (the kernel then handles 12288 floats) */
  g_assert_true (gcuda_kernel_args_set_int32 (args, 2, 12288, &error));
  g_assert_no_error (error);
  launch_ok (f, 1, 1, 1, 256, 1, 1, 48 * 1024, NULL, args);
  context_sync (NULL);
  for (int i = 0; i < 12288; i++)
    want[i] = in[12287 - i] + 1.0f;
  download_into (dout, got, 12288 * 4);
  assert_floats_close (got, want, 12288, 0);
  g_assert_true (gcuda_kernel_args_set_int32 (args, 2, n, &error));
  g_assert_no_error (error);

  /* without the opt-in: refused at launch */
  g_assert_false (gcuda_function_launch (f, 1, 1, 1, 256, 1, 1, bytes, NULL, args, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);

  g_assert_true (gcuda_function_set_max_dynamic_shared_size (f, bytes, &error));
  g_assert_no_error (error);
  g_object_get (f, "max-dynamic-shared-size-bytes", &max_dynamic, NULL);
  g_assert_cmpint (max_dynamic, ==, bytes);
  g_assert_cmpint (gcuda_function_get_attribute (f, GCUDA_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, &error),
                   ==, bytes);
  g_assert_no_error (error);

  poison (dout, 0x3d);
  launch_ok (f, 1, 1, 1, 256, 1, 1, bytes, NULL, args);
  context_sync (NULL);
  for (int i = 0; i < n; i++)
    want[i] = in[n - 1 - i] + 1.0f;
  download_into (dout, got, bytes);
  assert_floats_close (got, want, n, 0);

  /* still not more than the opt-in */
  g_assert_false (gcuda_function_launch (f, 1, 1, 1, 256, 1, 1, bytes + 1024, NULL, args, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);

  /* more than the device has cannot be opted into */
  g_assert_false (gcuda_function_set_max_dynamic_shared_size (f, 16 * 1024 * 1024, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  gcuda_test_assert_no_current_context ();
}

static void
test_launch_with_config (void)
{
  const gsize n = 4099;
  g_autofree float *a = random_floats (n);
  g_autofree float *b = random_floats (n);
  g_autofree float *want = g_new (float, n);
  g_autofree float *got = g_new (float, n);
  g_autoptr(GCudaFunction) vadd = NULL;
  g_autoptr(GCudaBuffer) da = NULL, db = NULL, dc = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaLaunchConfig) config = gcuda_launch_config_new ();
  g_autoptr(GCudaStream) got_stream = NULL;
  guint x = 0, y = 0, z = 0;
  GError *error = NULL;

  /* the configuration object itself */
  gcuda_launch_config_get_grid (config, &x, &y, &z);
  g_assert_cmpuint (x * y * z, ==, 1);
  gcuda_launch_config_get_block (config, &x, &y, &z);
  g_assert_cmpuint (x * y * z, ==, 1);
  gcuda_launch_config_get_cluster (config, &x, &y, &z);
  g_assert_cmpuint (x | y | z, ==, 0);
  g_assert_false (gcuda_launch_config_get_cooperative (config));
  g_assert_cmpuint (gcuda_launch_config_get_shared_bytes (config), ==, 0);
  g_assert_null (gcuda_launch_config_get_stream (config));

  if (!gcuda_test_require_gpu ())
    return;

  for (gsize i = 0; i < n; i++)
    want[i] = a[i] + b[i];
  vadd = kernel ("vadd");
  da = buffer_with (a, n * 4);
  db = buffer_with (b, n * 4);
  dc = new_buffer (NULL, n * 4);
  poison (dc, 0x99);
  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, da);
  gcuda_kernel_args_add_buffer (args, db);
  gcuda_kernel_args_add_buffer (args, dc);
  gcuda_kernel_args_add_int32 (args, (gint32) n);

  gcuda_launch_config_set_grid (config, (n + 63) / 64, 1, 1);
  gcuda_launch_config_set_block (config, 64, 1, 1);
  gcuda_launch_config_set_stream (config, stream);
  gcuda_launch_config_get_grid (config, &x, &y, &z);
  g_assert_cmpuint (x, ==, (n + 63) / 64);
  g_object_get (config, "stream", &got_stream, NULL);
  g_assert_true (got_stream == stream);

  g_assert_true (gcuda_function_launch_with_config (vadd, config, args, &error));
  g_assert_no_error (error);
  sync_stream (stream);
  download_into (dc, got, n * 4);
  assert_floats_close (got, want, n, 0);

  /* the same checks as a plain launch */
  gcuda_launch_config_set_block (config, 0, 1, 1);
  g_assert_false (gcuda_function_launch_with_config (vadd, config, args, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  gcuda_launch_config_set_block (config, 64, 1, 1);
  g_assert_false (gcuda_function_launch_with_config (vadd, config, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  gcuda_launch_config_set_cluster (config, 0, 1, 1);
  g_assert_false (gcuda_function_launch_with_config (vadd, config, args, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_test_assert_no_current_context ();
}

static void
test_cooperative (void)
{
  g_autoptr(GCudaFunction) f = NULL;
  g_autoptr(GCudaBuffer) counter = NULL, out = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autoptr(GCudaLaunchConfig) config = gcuda_launch_config_new ();
  g_autofree guint32 *got = NULL;
  g_autofree guint32 *want = NULL;
  guint grid, block = 64;
  int per_sm;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  grid = n_sms ();
  f = kernel ("coop_barrier");
  counter = new_buffer (NULL, 4);
  out = new_buffer (NULL, (gsize) grid * block * 4);
  poison (counter, 0);
  poison (out, 0xcc);
  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, counter);
  gcuda_kernel_args_add_buffer (args, out);
  gcuda_kernel_args_add_int64 (args, G_GINT64_CONSTANT (1) << 24);

  gcuda_launch_config_set_grid (config, grid, 1, 1);
  gcuda_launch_config_set_block (config, block, 1, 1);
  gcuda_launch_config_set_cooperative (config, TRUE);
  g_assert_true (gcuda_launch_config_get_cooperative (config));
  g_assert_true (gcuda_function_launch_with_config (f, config, args, &error));
  g_assert_no_error (error);
  context_sync (NULL);

  got = g_new (guint32, grid * block);
  want = g_new (guint32, grid * block);
  for (guint i = 0; i < grid * block; i++)
    want[i] = grid;
  download_into (out, got, (gsize) grid * block * 4);
  assert_u32_equal (got, want, grid * block);

  /* more blocks than can be resident at once: refused */
  per_sm = gcuda_function_get_max_active_blocks_per_multiprocessor (f, block, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (per_sm, >=, 1);
  gcuda_launch_config_set_grid (config, grid * (per_sm + 1), 1, 1);
  g_assert_false (gcuda_function_launch_with_config (f, config, args, &error));
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_LAUNCH);
  g_clear_error (&error);

  gcuda_test_assert_no_current_context ();
}

static void
test_cluster (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaFunction) f = NULL;
  g_autoptr(GCudaBuffer) out = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autoptr(GCudaLaunchConfig) config = gcuda_launch_config_new ();
  const guint grid = 8;
  guint32 got[2 * 8], want[2 * 8];
  guint x = 0, y = 0, z = 0;
  int major = 0, minor = 0;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;
  device = gcuda_test_get_device ();
  gcuda_device_get_compute_capability (device, &major, &minor);
  if (major < 9)
    {
      g_test_skip ("thread block clusters need compute capability 9.0");
      return;
    }

  module = load_module (NULL, cluster_source, NULL);
  f = get_kernel (module, "cluster_rank");
  out = new_buffer (NULL, sizeof got);
  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, out);
  gcuda_launch_config_set_grid (config, grid, 1, 1);
  gcuda_launch_config_set_block (config, 32, 1, 1);

  /* no cluster: every block alone */
  poison (out, 0xab);
  g_assert_true (gcuda_function_launch_with_config (f, config, args, &error));
  g_assert_no_error (error);
  context_sync (NULL);
  for (guint b = 0; b < grid; b++)
    {
      want[2 * b] = 0;
      want[2 * b + 1] = 1;
    }
  download_into (out, got, sizeof got);
  assert_u32_equal (got, want, 2 * grid);

  /* clusters of two */
  gcuda_launch_config_set_cluster (config, 2, 1, 1);
  gcuda_launch_config_get_cluster (config, &x, &y, &z);
  g_assert_cmpuint (x, ==, 2);
  g_assert_cmpuint (y, ==, 1);
  g_assert_cmpuint (z, ==, 1);
  poison (out, 0xac);
  g_assert_true (gcuda_function_launch_with_config (f, config, args, &error));
  g_assert_no_error (error);
  context_sync (NULL);
  for (guint b = 0; b < grid; b++)
    {
      want[2 * b] = b % 2;
      want[2 * b + 1] = 2;
    }
  download_into (out, got, sizeof got);
  assert_u32_equal (got, want, 2 * grid);

  /* a grid the cluster does not divide */
  gcuda_launch_config_set_cluster (config, 3, 1, 1);
  g_assert_false (gcuda_function_launch_with_config (f, config, args, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == GCUDA_DRIVER_ERROR);
  g_clear_error (&error);
  context_sync (NULL);

  gcuda_test_assert_no_current_context ();
}

static void
test_timed (void)
{
  const guint blocks = 64, threads = 128, iterations = 200000;
  g_autoptr(GCudaFunction) f = NULL;
  g_autoptr(GCudaBuffer) out = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autofree float *got = g_new (float, blocks * threads);
  g_autofree float *want = g_new (float, blocks * threads);
  GError *error = NULL;
  double ms, ms_stream;

  if (!gcuda_test_require_gpu ())
    return;

  f = kernel ("busy");
  out = new_buffer (NULL, blocks * threads * 4);
  poison (out, 0x00);
  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, out);
  gcuda_kernel_args_add_int32 (args, iterations);

  /* timed: the kernel has finished when it returns */
  ms = gcuda_function_launch_timed (f, blocks, 1, 1, threads, 1, 1, 0, NULL, args, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ms, >, 0.0);
  g_assert_cmpfloat (ms, <, 10000.0);
  for (guint t = 0; t < threads; t++)
    {
      float x = (float) t;

      for (guint i = 0; i < iterations; i++)
        x = fmaf (x, 0.999f, 1.0f);
      for (guint b = 0; b < blocks; b++)
        want[b * threads + t] = x;
    }
  download_into (out, got, blocks * threads * 4);
  assert_floats_close (got, want, blocks * threads, 1e-5);

  stream = new_stream (NULL, GCUDA_STREAM_FLAGS_NON_BLOCKING);
  poison (out, 0x00);
  ms_stream = gcuda_function_launch_timed (f, blocks, 1, 1, threads, 1, 1, 0, stream, args, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ms_stream, >, 0.0);
  g_assert_true (gcuda_stream_is_done (stream, &error));
  g_assert_no_error (error);
  download_into (out, got, blocks * threads * 4);
  assert_floats_close (got, want, blocks * threads, 1e-5);
  g_test_message ("busy kernel: %.3f ms (legacy stream), %.3f ms (stream)", ms, ms_stream);

  /* failures: negative, with an error */
  ms = gcuda_function_launch_timed (f, 0, 1, 1, threads, 1, 1, 0, NULL, args, &error);
  g_assert_cmpfloat (ms, <, 0.0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  ms = gcuda_function_launch_timed (f, 1, 1, 1, threads, 1, 1, 0, NULL, NULL, &error);
  g_assert_cmpfloat (ms, <, 0.0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);

  gcuda_test_assert_no_current_context ();
}

static void
test_attributes (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaFunction) f = NULL, echo = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autofree char *name = NULL;
  int num_regs = -1, max_threads = -1, ptx = -1, binary = -1, local = -1, constant = -1, shared = -1;
  guint param_count = 0;
  int major = 0, minor = 0;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  gcuda_device_get_compute_capability (device, &major, &minor);
  f = kernel ("static_shared");
  echo = kernel ("echo_args");
  g_object_get (f, "name", &name, "module", &module, "num-regs", &num_regs,
                "max-threads-per-block", &max_threads, "ptx-version", &ptx, "binary-version", &binary,
                "local-size-bytes", &local, "const-size-bytes", &constant, "shared-size-bytes", &shared,
                "param-count", &param_count, NULL);
  g_assert_cmpstr (name, ==, "static_shared");
  g_assert_true (module == shared_module);
  g_assert_true (gcuda_function_get_module (f) == shared_module);
  g_assert_cmpint (num_regs, >, 0);
  g_assert_cmpint (num_regs, <=, 255);
  g_assert_cmpint (max_threads, >, 0);
  g_assert_cmpint (max_threads, <=, gcuda_device_get_max_threads_per_block (device));
  g_assert_cmpint (max_threads, ==, gcuda_function_get_max_threads_per_block (f));
  g_assert_cmpint (binary, ==, major * 10 + minor);
  g_assert_cmpint (ptx, >=, 10);
  g_assert_cmpint (local, >=, 0);
  g_assert_cmpint (constant, >=, 0);
  g_assert_cmpint (shared, ==, 16000);
  g_assert_cmpuint (param_count, ==, 2);
  g_assert_cmpuint (gcuda_function_get_param_size (f, 0), ==, 8);
  g_assert_cmpuint (gcuda_function_get_param_size (f, 1), ==, 8);
  g_assert_cmpuint (gcuda_function_get_param_size (f, 2), ==, 0);

  /* the attributes agree with the properties */
  g_assert_cmpint (gcuda_function_get_attribute (f, GCUDA_FUNCTION_ATTRIBUTE_NUM_REGS, &error), ==, num_regs);
  g_assert_cmpint (gcuda_function_get_attribute (f, GCUDA_FUNCTION_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &error), ==,
                   max_threads);
  g_assert_cmpint (gcuda_function_get_attribute (f, GCUDA_FUNCTION_ATTRIBUTE_BINARY_VERSION, &error), ==, binary);
  g_assert_cmpint (gcuda_function_get_attribute (f, GCUDA_FUNCTION_ATTRIBUTE_PTX_VERSION, &error), ==, ptx);
  g_assert_no_error (error);

  /* settable ones */
  g_assert_true (gcuda_function_set_attribute (f, GCUDA_FUNCTION_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50,
                                               &error));
  g_assert_no_error (error);
  g_assert_cmpint (gcuda_function_get_attribute (f, GCUDA_FUNCTION_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                                 &error), ==, 50);
  g_assert_no_error (error);
  g_assert_true (gcuda_function_set_cache_config (f, GCUDA_CACHE_CONFIG_PREFER_SHARED, &error));
  g_assert_no_error (error);

  /* read-only ones, unknown ones */
  g_assert_false (gcuda_function_set_attribute (f, GCUDA_FUNCTION_ATTRIBUTE_NUM_REGS, 8, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  gcuda_function_get_attribute (f, 99, &error);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_function_set_attribute (f, -1, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_function_set_cache_config (f, 17, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_cmpuint (gcuda_function_get_param_count (echo), ==, 13);

  gcuda_test_assert_no_current_context ();
}

static void
test_occupancy (void)
{
  g_autoptr(GCudaFunction) f = NULL, big = NULL;
  int blocks, min_grid = -1, block = -1;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  f = kernel ("vadd");
  big = kernel ("static_shared");

  blocks = gcuda_function_get_max_active_blocks_per_multiprocessor (f, 128, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (blocks, >=, 1);
  g_assert_cmpint (blocks, <=, 64);
  /* 16000 bytes of shared memory each: fewer of them fit */
  g_assert_cmpint (gcuda_function_get_max_active_blocks_per_multiprocessor (big, 128, 0, &error), <=, blocks);
  g_assert_cmpint (gcuda_function_get_max_active_blocks_per_multiprocessor (big, 128, 0, &error), <=,
                   256 * 1024 / 16000);
  g_assert_no_error (error);
  gcuda_function_get_max_active_blocks_per_multiprocessor (f, 0, 0, &error);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_function_get_potential_block_size (f, 0, 0, &min_grid, &block, &error);
  g_assert_no_error (error);
  g_assert_cmpint (min_grid, >=, 1);
  g_assert_cmpint (block, >=, 32);
  g_assert_cmpint (block, <=, gcuda_function_get_max_threads_per_block (f));
  g_assert_cmpint (block % 32, ==, 0);

  gcuda_function_get_potential_block_size (f, 0, 64, &min_grid, &block, &error);
  g_assert_no_error (error);
  g_assert_cmpint (block, >=, 32);
  g_assert_cmpint (block, <=, 64);

  gcuda_test_assert_no_current_context ();
}

static void
test_bad_arguments (void)
{
  g_autoptr(GCudaFunction) vadd = NULL, none = NULL, store = NULL;
  g_autoptr(GCudaBuffer) buf = NULL, freed = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  vadd = kernel ("vadd");
  none = kernel ("no_params");
  store = kernel ("store");
  buf = new_buffer (NULL, 4096);

  /* none given */
  g_assert_false (gcuda_function_launch (vadd, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_nonnull (strstr (error->message, "vadd"));
  g_clear_error (&error);

  /* too few, too many */
  gcuda_kernel_args_add_buffer (args, buf);
  gcuda_kernel_args_add_buffer (args, buf);
  gcuda_kernel_args_add_buffer (args, buf);
  g_assert_false (gcuda_function_launch (vadd, 1, 1, 1, 32, 1, 1, 0, NULL, args, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_nonnull (strstr (error->message, "4"));
  g_assert_nonnull (strstr (error->message, "3"));
  g_clear_error (&error);
  gcuda_kernel_args_add_int32 (args, 32);
  gcuda_kernel_args_add_int32 (args, 32);
  g_assert_false (gcuda_function_launch (vadd, 1, 1, 1, 32, 1, 1, 0, NULL, args, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  /* too many: perhaps a struct given field by field */
  g_assert_nonnull (strstr (error->message, "takes 4 arguments, not 5 (a struct parameter is one argument"));
  g_clear_error (&error);

  /* arguments for a kernel that takes none */
  g_assert_false (gcuda_function_launch (none, 1, 1, 1, 32, 1, 1, 0, NULL, args, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  /* no arguments, or an empty list, are right for it */
  {
    g_autoptr(GCudaKernelArgs) empty = gcuda_kernel_args_new ();

    launch_ok (none, 1, 1, 1, 32, 1, 1, 0, NULL, NULL);
    launch_ok (none, 1, 1, 1, 32, 1, 1, 0, NULL, empty);
  }

  /* an int32 where a pointer goes: the parameter is named */
  gcuda_kernel_args_clear (args);
  gcuda_kernel_args_add_int32 (args, 7);
  gcuda_kernel_args_add_buffer (args, buf);
  gcuda_kernel_args_add_buffer (args, buf);
  gcuda_kernel_args_add_int32 (args, 32);
  g_assert_false (gcuda_function_launch (vadd, 1, 1, 1, 32, 1, 1, 0, NULL, args, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_nonnull (strstr (error->message, "Parameter #0 (0-based)"));
  g_assert_nonnull (strstr (error->message, "vadd"));
  g_clear_error (&error);

  /* a pointer where an int goes */
  gcuda_kernel_args_clear (args);
  gcuda_kernel_args_add_buffer (args, buf);
  gcuda_kernel_args_add_buffer (args, buf);
  gcuda_kernel_args_add_buffer (args, buf);
  gcuda_kernel_args_add_buffer (args, buf);
  g_assert_false (gcuda_function_launch (vadd, 1, 1, 1, 32, 1, 1, 0, NULL, args, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_nonnull (strstr (error->message, "Parameter #3 (0-based)"));
  g_clear_error (&error);

  /* a freed buffer */
  freed = new_buffer (NULL, 256);
  gcuda_kernel_args_clear (args);
  gcuda_kernel_args_add_buffer (args, freed);
  gcuda_kernel_args_add_uint32 (args, 1);
  g_assert_true (gcuda_buffer_free (freed, NULL));
  g_assert_false (gcuda_function_launch (store, 1, 1, 1, 32, 1, 1, 0, NULL, args, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  /* the arguments keep their buffers alive: the launch still works after
   * the test drops its reference */
  {
    g_autoptr(GCudaKernelArgs) keep = gcuda_kernel_args_new ();
    GCudaBuffer *target = new_buffer (NULL, 32 * 4);
    GCudaBuffer *check;
    guint32 got[32], want[32];
    guint32 value = g_random_int_range (0, 1 << 30);

    gcuda_kernel_args_add_buffer (keep, target);
    gcuda_kernel_args_add_uint32 (keep, value);
    check = g_object_ref (target);
    g_object_unref (target);
    launch_ok (store, 1, 1, 1, 32, 1, 1, 0, NULL, keep);
    context_sync (NULL);
    for (guint i = 0; i < 32; i++)
      want[i] = value + i;
    download_into (check, got, sizeof got);
    assert_u32_equal (got, want, 32);
    g_object_unref (check);
  }

  context_sync (NULL);
  gcuda_test_assert_no_current_context ();
}

static void
test_bad_dimensions (void)
{
  g_autoptr(GCudaFunction) none = NULL, dyn = NULL;
  g_autoptr(GCudaBuffer) buf = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  GError *error = NULL;
  const guint zeros[6][6] = {
    { 0, 1, 1, 1, 1, 1 }, { 1, 0, 1, 1, 1, 1 }, { 1, 1, 0, 1, 1, 1 },
    { 1, 1, 1, 0, 1, 1 }, { 1, 1, 1, 1, 0, 1 }, { 1, 1, 1, 1, 1, 0 },
  };

  if (!gcuda_test_require_gpu ())
    return;

  none = kernel ("no_params");
  dyn = kernel ("dynamic_shared");
  buf = new_buffer (NULL, 4096);

  for (guint i = 0; i < G_N_ELEMENTS (zeros); i++)
    {
      const guint *d = zeros[i];

      g_assert_false (gcuda_function_launch (none, d[0], d[1], d[2], d[3], d[4], d[5], 0, NULL, NULL, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    }

  /* more threads than a block may have, in one dimension or in all */
  g_assert_false (gcuda_function_launch (none, 1, 1, 1, 2048, 1, 1, 0, NULL, NULL, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "no_params"));
  g_clear_error (&error);
  g_assert_false (gcuda_function_launch (none, 1, 1, 1, 16, 16, 8, 0, NULL, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* a grid or block the device does not have: checked against its limits
   * (read with the device) before the driver */
  g_assert_false (gcuda_function_launch (none, 1, 70000, 1, 1, 1, 1, 0, NULL, NULL, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_LOGIC);
  g_assert_nonnull (strstr (error->message, "70000"));
  g_clear_error (&error);
  g_assert_false (gcuda_function_launch (none, 1, 1, 70000, 1, 1, 1, 0, NULL, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_function_launch (none, 1u << 31, 1, 1, 1, 1, 1, 0, NULL, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_function_launch (none, 1, 1, 1, 1, 1, 65, 0, NULL, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_function_launch_packed (none, 1, 65536, 1, 32, 1, 1, 0, NULL, NULL, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  /* x goes much further than 65535; the limits themselves are allowed */
  launch_ok (none, 1u << 20, 1, 1, 32, 1, 1, 0, NULL, NULL);
  launch_ok (none, 1, 65535, 1, 1, 1, 64, 0, NULL, NULL);
  launch_ok (none, 1, 1, 65535, 1, 1, 64, 0, NULL, NULL);

  /* too much shared memory */
  gcuda_kernel_args_add_buffer (args, buf);
  gcuda_kernel_args_add_buffer (args, buf);
  gcuda_kernel_args_add_int32 (args, 0);
  g_assert_false (gcuda_function_launch (dyn, 1, 1, 1, 32, 1, 1, 1024 * 1024, NULL, args, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);
  g_assert_false (gcuda_function_launch_packed (none, 1, 1, 1, 32, 1, 1, 1024 * 1024, NULL, NULL, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);

  /* nothing of this broke the context */
  launch_ok (none, 1, 1, 1, 32, 1, 1, 0, NULL, NULL);
  context_sync (NULL);
  gcuda_test_assert_no_current_context ();
}

static void
test_stream_of_other_context (void)
{
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaStream) foreign = NULL;
  g_autoptr(GCudaFunction) none = NULL;
  g_autoptr(GCudaLaunchConfig) config = gcuda_launch_config_new ();
  GError *error = NULL;
  guint8 nothing = 0;

  if (!gcuda_test_require_gpu ())
    return;

  none = kernel ("no_params");
  dedicated = create_dedicated (NULL, 0);
  foreign = new_stream (dedicated, GCUDA_STREAM_FLAGS_DEFAULT);

  g_assert_false (gcuda_function_launch (none, 1, 1, 1, 1, 1, 1, 0, foreign, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_false (gcuda_function_launch_packed (none, 1, 1, 1, 1, 1, 1, 0, foreign, &nothing, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  g_assert_cmpfloat (gcuda_function_launch_timed (none, 1, 1, 1, 1, 1, 1, 0, foreign, NULL, &error), <, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
  gcuda_launch_config_set_stream (config, foreign);
  g_assert_false (gcuda_function_launch_with_config (none, config, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);

  g_clear_object (&config);
  g_clear_object (&foreign);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* Launches the kernel @f (store) writing @buffer, then checks what it wrote. */
static void
store_and_check (GCudaFunction *f,
                 GCudaStream   *stream,
                 GCudaBuffer   *buffer)
{
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  guint32 got[32], want[32];
  guint32 value = g_random_int_range (0, 1 << 30);

  gcuda_kernel_args_add_buffer (args, buffer);
  gcuda_kernel_args_add_uint32 (args, value);
  launch_ok (f, 1, 1, 1, 32, 1, 1, 0, stream, args);
  sync_stream (stream);
  for (guint i = 0; i < 32; i++)
    want[i] = value + i;
  download_into (buffer, got, sizeof got);
  assert_u32_equal (got, want, 32);
}

/* A buffer of another context on the same device as a kernel argument:
 * memory only its own context maps (cuMemAlloc's, a view of it) is
 * CONTEXT_MISMATCH before anything is launched, never a fault; managed
 * memory and a stream pool's, which the whole device maps, work. In a
 * child: were the driver to fault after all, the context would stay
 * unusable. */
static void
test_buffer_of_other_context (void)
{
  if (!gcuda_test_require_gpu ())
    return;

  if (g_test_subprocess ())
    {
      g_autoptr(GCudaContext) dedicated = create_dedicated (NULL, 0);
      g_autoptr(GCudaStream) stream = new_stream (dedicated, GCUDA_STREAM_FLAGS_DEFAULT);
      g_autoptr(GCudaModule) module = load_module (dedicated, launch_source, NULL);
      g_autoptr(GCudaFunction) f = get_kernel (module, "store");
      g_autoptr(GCudaBuffer) plain = new_buffer (NULL, 256);
      g_autoptr(GCudaBuffer) view = NULL;
      g_autoptr(GCudaBuffer) managed = NULL;
      g_autoptr(GCudaStreamPool) pool = NULL;
      g_autoptr(GCudaStream) pool_stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
      g_autoptr(GCudaBuffer) pooled = NULL;
      g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
      g_autoptr(GCudaLaunchConfig) config = gcuda_launch_config_new ();
      GError *error = NULL;

      view = gcuda_buffer_new_view (plain, 128, 128, &error);
      g_assert_no_error (error);
      gcuda_kernel_args_add_buffer (args, plain);
      gcuda_kernel_args_add_uint32 (args, 7);
      g_assert_false (gcuda_function_launch (f, 1, 1, 1, 32, 1, 1, 0, stream, args, &error));
      gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
      g_assert_nonnull (strstr (error->message, "Parameter #0 (0-based) of kernel store: "));
      g_clear_error (&error);
      gcuda_launch_config_set_grid (config, 1, 1, 1);
      gcuda_launch_config_set_block (config, 32, 1, 1);
      gcuda_launch_config_set_stream (config, stream);
      g_assert_false (gcuda_function_launch_with_config (f, config, args, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
      g_assert_true (gcuda_kernel_args_set_buffer (args, 0, view, &error));
      g_assert_no_error (error);
      g_assert_false (gcuda_function_launch (f, 1, 1, 1, 32, 1, 1, 0, stream, args, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);

      /* memory every context of the device maps */
      managed = gcuda_buffer_new_managed (NULL, 256, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
      g_assert_no_error (error);
      store_and_check (f, stream, managed);
      pool = gcuda_stream_pool_new (NULL, &error);
      g_assert_no_error (error);
      pooled = gcuda_stream_pool_allocate (pool, 256, pool_stream, &error);
      g_assert_no_error (error);
      sync_stream (pool_stream);
      store_and_check (f, stream, pooled);

      /* and the kernel's own context's memory, as ever */
      {
        g_autoptr(GCudaBuffer) own = new_buffer (dedicated, 256);

        store_and_check (f, stream, own);
      }
      printf ("all checked\n");
      return;
    }

  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*all checked*");
}

/* A kernel of a destroyed context, on a stream of it: CONTEXT_DESTROYED,
 * never a crash. */
static void
test_destroyed_context (void)
{
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaFunction) f = NULL;
  g_autoptr(GCudaBuffer) out = NULL;
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  guint32 got[32], want[32];
  guint32 value = g_random_int_range (0, 1 << 30);
  guint8 packed[16] = { 0 };
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  dedicated = create_dedicated (NULL, 0);
  stream = new_stream (dedicated, GCUDA_STREAM_FLAGS_DEFAULT);
  module = load_module (dedicated, launch_source, NULL);
  g_assert_true (gcuda_module_get_context (module) == dedicated);
  f = get_kernel (module, "store");
  out = new_buffer (dedicated, sizeof got);
  gcuda_kernel_args_add_buffer (args, out);
  gcuda_kernel_args_add_uint32 (args, value);

  /* it works while the context lives */
  launch_ok (f, 1, 1, 1, 32, 1, 1, 0, stream, args);
  sync_stream (stream);
  for (guint i = 0; i < 32; i++)
    want[i] = value + i;
  download_into (out, got, sizeof got);
  assert_u32_equal (got, want, 32);

  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);

  g_assert_false (gcuda_function_launch (f, 1, 1, 1, 32, 1, 1, 0, stream, args, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_function_launch (f, 1, 1, 1, 32, 1, 1, 0, NULL, args, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_function_launch_packed (f, 1, 1, 1, 32, 1, 1, 0, stream, packed, 12, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_cmpfloat (gcuda_function_launch_timed (f, 1, 1, 1, 32, 1, 1, 0, stream, args, &error), <, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_module_get_function (module, "no_params", &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  gcuda_function_get_attribute (f, GCUDA_FUNCTION_ATTRIBUTE_NUM_REGS, &error);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  /* the objects of the destroyed context go away quietly */
  g_clear_object (&f);
  g_clear_object (&module);
  g_clear_object (&out);
  g_clear_object (&stream);
  gcuda_test_assert_no_current_context ();
}

/* A kernel storing to an address nothing is mapped at: the launch is
 * accepted, the fault comes at the next synchronization, as
 * ILLEGAL_ADDRESS (category LAUNCH), and stays: the context is unusable
 * for the rest of the process, so this runs in a child. */
static void
test_illegal_address (void)
{
  if (!gcuda_test_require_gpu ())
    return;

  if (g_test_subprocess ())
    {
      g_autoptr(GCudaFunction) f = kernel ("fault_on_purpose");
      g_autoptr(GCudaStream) stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
      g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
      GCudaDriverError sticky = GCUDA_DRIVER_ERROR_ILLEGAL_ADDRESS;
      GCudaBuffer *after;
      GError *error = NULL;

      gcuda_kernel_args_add_pointer (args, G_GUINT64_CONSTANT (0xdeadbeef000));
      gcuda_kernel_args_add_uint32 (args, 1);
      launch_ok (f, 1, 1, 1, 32, 1, 1, 0, stream, args);

      g_assert_false (gcuda_stream_synchronize (stream, &error));
      /* compute-sanitizer stops the faulting kernel itself: the driver
       * then says LAUNCH_FAILED, as sticky (tools/run-compute-sanitizer) */
      if (g_strcmp0 (g_getenv ("GCUDA_TEST_COMPUTE_SANITIZER"), "1") == 0 &&
          g_error_matches (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_LAUNCH_FAILED))
        sticky = GCUDA_DRIVER_ERROR_LAUNCH_FAILED;
      gcuda_assert_error (error, GCUDA_DRIVER_ERROR, sticky);
      g_assert_cmpint (gcuda_driver_error_get_category (error->code), ==, GCUDA_ERROR_CATEGORY_LAUNCH);
      g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_LAUNCH);
      printf ("reported: %s\n", error->message);
      g_clear_error (&error);

      /* sticky: later calls fail the same way */
      g_assert_false (gcuda_stream_synchronize (stream, &error));
      gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, sticky);
      after = gcuda_buffer_new (NULL, 1024, &error);
      g_assert_null (after);
      g_assert_nonnull (error);
      g_assert_true (error->domain == GCUDA_DRIVER_ERROR);
      printf ("allocation after it: %s\n", error->message);
      g_clear_error (&error);
      printf ("sticky\n");
      return;
    }

  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  if (g_strcmp0 (g_getenv ("GCUDA_TEST_COMPUTE_SANITIZER"), "1") == 0)
    g_test_trap_assert_stdout ("*reported: *sticky*");
  else
    g_test_trap_assert_stdout ("*reported: *llegal*sticky*");
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/launch/sources", test_sources);
  g_test_add_func ("/launch/vector-add", test_vector_add);
  g_test_add_func ("/launch/all-argument-types", test_all_argument_types);
  g_test_add_func ("/launch/packed", test_packed);
  g_test_add_func ("/launch/grid-3d-dynamic-shared", test_grid_3d_dynamic_shared);
  g_test_add_func ("/launch/static-shared", test_static_shared);
  g_test_add_func ("/launch/large-dynamic-shared", test_large_dynamic_shared);
  g_test_add_func ("/launch/with-config", test_launch_with_config);
  g_test_add_func ("/launch/cooperative", test_cooperative);
  g_test_add_func ("/launch/cluster", test_cluster);
  g_test_add_func ("/launch/timed", test_timed);
  g_test_add_func ("/launch/attributes", test_attributes);
  g_test_add_func ("/launch/occupancy", test_occupancy);
  g_test_add_func ("/launch/bad-arguments", test_bad_arguments);
  g_test_add_func ("/launch/bad-dimensions", test_bad_dimensions);
  g_test_add_func ("/launch/stream-of-other-context", test_stream_of_other_context);
  g_test_add_func ("/launch/buffer-of-other-context", test_buffer_of_other_context);
  g_test_add_func ("/launch/destroyed-context", test_destroyed_context);
  g_test_add_func ("/launch/illegal-address", test_illegal_address);

  ret = g_test_run ();
  g_clear_object (&shared_module);
  return ret;
}
