/* test-kernel-args.c: reusing GCudaKernelArgs (typed setters, set_number)
 * and gcuda_function_launch_with_number
 *
 * /kernel-args/nogpu/...  no driver needed: the bytes each setter stores
 *                         (read back with gcuda_kernel_args_get_value), the
 *                         type, size and index checks, set_number's
 *                         conversions and refusals
 * /kernel-args/mock/...   the mock driver with GCUDA_MOCK_KERNELS=1 (a PTX
 *                         module, launches that run nothing): the
 *                         parameters every launch path hands the driver,
 *                         read back with the mock's gcuda_mock_get_last_launch()
 * /kernel-args/gpu/...    a kernel launched in a loop with a changing
 *                         scalar, every launch's result checked
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <dlfcn.h>
#include <math.h>
#include <string.h>

#include <gcuda.h>

#include "gcuda-test-kernels.h"
#include "gcuda-test-util.h"

/* The bytes of argument @index, asserted to be @size long. */
static void
assert_value (GCudaKernelArgs *args,
              guint            index,
              gconstpointer    want,
              gsize            size)
{
  g_autoptr(GBytes) got = gcuda_kernel_args_get_value (args, index);
  gsize got_size = 0;
  gconstpointer data;

  g_assert_nonnull (got);
  data = g_bytes_get_data (got, &got_size);
  g_assert_cmpmem (data, got_size, want, size);
}

#define ASSERT_VALUE(args, index, ctype, v) \
  G_STMT_START { ctype want_ = (v); assert_value ((args), (index), &want_, sizeof want_); } G_STMT_END

/* One argument of each type, in this order. */
enum { I8, U8, I16, U16, I32, U32, I64, U64, F32, F64, PTR, STRUCT, N_ARGS };

static GCudaKernelArgs *
one_of_each (void)
{
  GCudaKernelArgs *args = gcuda_kernel_args_new ();
  static const guint8 three[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  g_autoptr(GBytes) s = g_bytes_new_static (three, sizeof three);

  g_assert_cmpuint (gcuda_kernel_args_add_int8 (args, -1), ==, I8);
  g_assert_cmpuint (gcuda_kernel_args_add_uint8 (args, 200), ==, U8);
  g_assert_cmpuint (gcuda_kernel_args_add_int16 (args, -300), ==, I16);
  g_assert_cmpuint (gcuda_kernel_args_add_uint16 (args, 60000), ==, U16);
  g_assert_cmpuint (gcuda_kernel_args_add_int32 (args, -5), ==, I32);
  g_assert_cmpuint (gcuda_kernel_args_add_uint32 (args, 4000000000u), ==, U32);
  g_assert_cmpuint (gcuda_kernel_args_add_int64 (args, -(G_GINT64_CONSTANT (1) << 40)), ==, I64);
  g_assert_cmpuint (gcuda_kernel_args_add_uint64 (args, G_GUINT64_CONSTANT (1) << 63), ==, U64);
  g_assert_cmpuint (gcuda_kernel_args_add_float (args, 1.5f), ==, F32);
  g_assert_cmpuint (gcuda_kernel_args_add_double (args, -2.25), ==, F64);
  g_assert_cmpuint (gcuda_kernel_args_add_pointer (args, 0x1000), ==, PTR);
  g_assert_cmpuint (gcuda_kernel_args_add_struct (args, s, 4), ==, STRUCT);
  return args;
}

static void
test_setters (void)
{
  g_autoptr(GCudaKernelArgs) args = one_of_each ();
  g_autoptr(GError) error = NULL;
  guint8 other[12];
  g_autoptr(GBytes) s = NULL;

  /* what add_* stored */
  ASSERT_VALUE (args, I8, gint8, -1);
  ASSERT_VALUE (args, U16, guint16, 60000);
  ASSERT_VALUE (args, U64, guint64, G_GUINT64_CONSTANT (1) << 63);
  ASSERT_VALUE (args, F64, double, -2.25);
  g_assert_null (gcuda_kernel_args_get_value (args, N_ARGS));

  /* each typed setter, the bytes it stores */
  g_assert_true (gcuda_kernel_args_set_int8 (args, I8, -128, &error));
  g_assert_true (gcuda_kernel_args_set_uint8 (args, U8, 255, &error));
  g_assert_true (gcuda_kernel_args_set_int16 (args, I16, G_MININT16, &error));
  g_assert_true (gcuda_kernel_args_set_uint16 (args, U16, 1, &error));
  g_assert_true (gcuda_kernel_args_set_int32 (args, I32, G_MININT32, &error));
  g_assert_true (gcuda_kernel_args_set_uint32 (args, U32, G_MAXUINT32, &error));
  g_assert_true (gcuda_kernel_args_set_int64 (args, I64, G_MININT64, &error));
  g_assert_true (gcuda_kernel_args_set_uint64 (args, U64, G_MAXUINT64, &error));
  g_assert_true (gcuda_kernel_args_set_float (args, F32, -0.125f, &error));
  g_assert_true (gcuda_kernel_args_set_double (args, F64, 1e300, &error));
  g_assert_true (gcuda_kernel_args_set_pointer (args, PTR, G_GUINT64_CONSTANT (0xdeadbeef000), &error));
  for (guint i = 0; i < sizeof other; i++)
    other[i] = 0xa0 + i;
  s = g_bytes_new (other, sizeof other);
  g_assert_true (gcuda_kernel_args_set_struct (args, STRUCT, s, &error));
  g_assert_no_error (error);
  ASSERT_VALUE (args, I8, gint8, -128);
  ASSERT_VALUE (args, U8, guint8, 255);
  ASSERT_VALUE (args, I16, gint16, G_MININT16);
  ASSERT_VALUE (args, U16, guint16, 1);
  ASSERT_VALUE (args, I32, gint32, G_MININT32);
  ASSERT_VALUE (args, U32, guint32, G_MAXUINT32);
  ASSERT_VALUE (args, I64, gint64, G_MININT64);
  ASSERT_VALUE (args, U64, guint64, G_MAXUINT64);
  ASSERT_VALUE (args, F32, float, -0.125f);
  ASSERT_VALUE (args, F64, double, 1e300);
  ASSERT_VALUE (args, PTR, guint64, G_GUINT64_CONSTANT (0xdeadbeef000));
  assert_value (args, STRUCT, other, sizeof other);

  /* integers of the same size and pointers stand for each other */
  g_assert_true (gcuda_kernel_args_set_uint32 (args, I32, 7, &error));
  g_assert_true (gcuda_kernel_args_set_uint64 (args, PTR, 0x2000, &error));
  g_assert_true (gcuda_kernel_args_set_pointer (args, I64, 0x3000, &error));
  g_assert_no_error (error);
  ASSERT_VALUE (args, I32, gint32, 7);
  ASSERT_VALUE (args, PTR, guint64, 0x2000);
  ASSERT_VALUE (args, I64, gint64, 0x3000);
}

static void
test_setter_errors (void)
{
  g_autoptr(GCudaKernelArgs) args = one_of_each ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) short_struct = g_bytes_new ("abc", 3);

  /* another type of the same size: a float is not an int32, a double not an int64 */
  g_assert_false (gcuda_kernel_args_set_int32 (args, F32, 1, &error));
  g_assert_nonnull (strstr (error->message, "float"));
  {
    g_autofree char *numbered = g_strdup_printf ("Argument #%u (0-based) is of type float", (guint) F32);

    g_assert_nonnull (strstr (error->message, numbered));
  }
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_kernel_args_set_float (args, I32, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_kernel_args_set_uint64 (args, F64, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_kernel_args_set_double (args, PTR, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_kernel_args_set_pointer (args, STRUCT, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  /* another size */
  g_assert_false (gcuda_kernel_args_set_int32 (args, I8, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_kernel_args_set_int64 (args, I32, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_kernel_args_set_double (args, F32, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_kernel_args_set_struct (args, STRUCT, short_struct, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_kernel_args_set_struct (args, STRUCT, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  /* no such index */
  g_assert_false (gcuda_kernel_args_set_int32 (args, N_ARGS, 1, &error));
  g_assert_nonnull (strstr (error->message, "There is no argument #12 (0-based)"));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_kernel_args_set_number (args, G_MAXUINT, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_kernel_args_set_buffer (args, PTR, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* the refused calls changed nothing */
  ASSERT_VALUE (args, F32, float, 1.5f);
  ASSERT_VALUE (args, I32, gint32, -5);
  ASSERT_VALUE (args, I8, gint8, -1);
  ASSERT_VALUE (args, PTR, guint64, 0x1000);

  gcuda_kernel_args_clear (args);
  g_assert_false (gcuda_kernel_args_set_int32 (args, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
}

static void
test_set_number (void)
{
  g_autoptr(GCudaKernelArgs) args = one_of_each ();
  g_autoptr(GError) error = NULL;
  const double two53 = 9007199254740992.0;
  struct { guint index; double value; } refused[] = {
    { I8, 128 }, { I8, -129 }, { U8, -1 }, { U8, 256 }, { I16, 32768 }, { U16, 65536 },
    { I32, 2147483648.0 }, { I32, -2147483649.0 }, { U32, -1 }, { U32, 4294967296.0 },
    { I64, two53 * 2 }, { U64, -1 }, { U64, two53 * 2 },
    { I32, 0.5 }, { U8, 1e-9 }, { I64, NAN }, { F32 - 1, INFINITY },  /* F32 - 1 is U64 */
    { PTR, 1 }, { STRUCT, 1 },
  };

  g_assert_true (gcuda_kernel_args_set_number (args, I8, -128, &error));
  g_assert_true (gcuda_kernel_args_set_number (args, U8, 255, &error));
  g_assert_true (gcuda_kernel_args_set_number (args, I16, -32768, &error));
  g_assert_true (gcuda_kernel_args_set_number (args, U16, 65535, &error));
  g_assert_true (gcuda_kernel_args_set_number (args, I32, 2147483647, &error));
  g_assert_true (gcuda_kernel_args_set_number (args, U32, 4294967295.0, &error));
  g_assert_true (gcuda_kernel_args_set_number (args, I64, -two53, &error));
  g_assert_true (gcuda_kernel_args_set_number (args, U64, two53, &error));
  g_assert_true (gcuda_kernel_args_set_number (args, F32, 0.1, &error));
  g_assert_true (gcuda_kernel_args_set_number (args, F64, 0.1, &error));
  g_assert_no_error (error);
  ASSERT_VALUE (args, I8, gint8, -128);
  ASSERT_VALUE (args, U8, guint8, 255);
  ASSERT_VALUE (args, I16, gint16, -32768);
  ASSERT_VALUE (args, U16, guint16, 65535);
  ASSERT_VALUE (args, I32, gint32, 2147483647);
  ASSERT_VALUE (args, U32, guint32, 4294967295u);
  ASSERT_VALUE (args, I64, gint64, -(G_GINT64_CONSTANT (1) << 53));
  ASSERT_VALUE (args, U64, guint64, G_GUINT64_CONSTANT (1) << 53);
  ASSERT_VALUE (args, F32, float, 0.1f);  /* rounded to float */
  ASSERT_VALUE (args, F64, double, 0.1);

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(GBytes) before = gcuda_kernel_args_get_value (args, refused[i].index);
      g_autoptr(GBytes) after = NULL;

      g_test_message ("set_number (%u, %g)", refused[i].index, refused[i].value);
      g_assert_false (gcuda_kernel_args_set_number (args, refused[i].index, refused[i].value, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
      after = gcuda_kernel_args_get_value (args, refused[i].index);
      g_assert_true (g_bytes_equal (before, after));
    }
}

/* The double-taking twins bindings call as add_int32() etc.: exact values
 * stored as the integer setters store them, anything else refused with
 * the value and the type in the message, nothing appended or changed. */
static void
test_number_twins (void)
{
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
  g_autoptr(GError) error = NULL;
  const double two53 = 9007199254740992.0;
  struct { const char *name; double value; const char *shown; } refused[] = {
    { "int8", 3.7, "3.7" }, { "int8", 128, "128" }, { "uint8", -1, "-1" }, { "int16", -32769, "-32769" },
    { "uint16", 65536, "65536" }, { "int32", 2147483648.0, "2147483648" }, { "int32", NAN, "nan" },
    { "uint32", -1, "-1" }, { "uint32", INFINITY, "inf" }, { "int64", two53 + 2, "9007199254740994" },
    { "int64", -INFINITY, "-inf" }, { "int64", 0.5, "0.5" }, { "uint64", -1, "-1" },
    { "uint64", two53 * 4, "36028797018963968" },
  };
  guint count;

  g_assert_cmpuint (gcuda_kernel_args_add_int8_number (args, -128, &error), ==, I8);
  g_assert_cmpuint (gcuda_kernel_args_add_uint8_number (args, 255, &error), ==, U8);
  g_assert_cmpuint (gcuda_kernel_args_add_int16_number (args, -32768, &error), ==, I16);
  g_assert_cmpuint (gcuda_kernel_args_add_uint16_number (args, 65535, &error), ==, U16);
  g_assert_cmpuint (gcuda_kernel_args_add_int32_number (args, -2147483648.0, &error), ==, I32);
  g_assert_cmpuint (gcuda_kernel_args_add_uint32_number (args, 4294967295.0, &error), ==, U32);
  g_assert_cmpuint (gcuda_kernel_args_add_int64_number (args, -two53, &error), ==, I64);
  g_assert_cmpuint (gcuda_kernel_args_add_uint64_number (args, two53, &error), ==, U64);
  g_assert_no_error (error);
  ASSERT_VALUE (args, I8, gint8, -128);
  ASSERT_VALUE (args, U8, guint8, 255);
  ASSERT_VALUE (args, I16, gint16, -32768);
  ASSERT_VALUE (args, U16, guint16, 65535);
  ASSERT_VALUE (args, I32, gint32, G_MININT32);
  ASSERT_VALUE (args, U32, guint32, G_MAXUINT32);
  ASSERT_VALUE (args, I64, gint64, -(G_GINT64_CONSTANT (1) << 53));
  ASSERT_VALUE (args, U64, guint64, G_GUINT64_CONSTANT (1) << 53);

  g_assert_true (gcuda_kernel_args_set_int8_number (args, I8, 127, &error));
  g_assert_true (gcuda_kernel_args_set_uint8_number (args, U8, 0, &error));
  g_assert_true (gcuda_kernel_args_set_int16_number (args, I16, 32767, &error));
  g_assert_true (gcuda_kernel_args_set_uint16_number (args, U16, 1, &error));
  g_assert_true (gcuda_kernel_args_set_int32_number (args, I32, 2147483647, &error));
  g_assert_true (gcuda_kernel_args_set_uint32_number (args, U32, 7, &error));
  g_assert_true (gcuda_kernel_args_set_int64_number (args, I64, two53, &error));
  g_assert_true (gcuda_kernel_args_set_uint64_number (args, U64, 12345678901234.0, &error));
  /* integers of one size stand for each other, as with the integer setters */
  g_assert_true (gcuda_kernel_args_set_int32_number (args, U32, -1, &error));
  g_assert_no_error (error);
  ASSERT_VALUE (args, I8, gint8, 127);
  ASSERT_VALUE (args, U8, guint8, 0);
  ASSERT_VALUE (args, I16, gint16, 32767);
  ASSERT_VALUE (args, U16, guint16, 1);
  ASSERT_VALUE (args, I32, gint32, G_MAXINT32);
  ASSERT_VALUE (args, U32, guint32, G_MAXUINT32);
  ASSERT_VALUE (args, I64, gint64, G_GINT64_CONSTANT (1) << 53);
  ASSERT_VALUE (args, U64, guint64, G_GUINT64_CONSTANT (12345678901234));

  count = gcuda_kernel_args_get_count (args);
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      static const char *const names[] = { "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64" };
      g_autofree char *type = g_strdup_printf ("type %s:", refused[i].name);
      g_autofree char *shown = g_strdup_printf (" %s is not a whole number", refused[i].shown);
      guint index = 0;
      g_autoptr(GBytes) before = NULL;
      g_autoptr(GBytes) after = NULL;
      gboolean set = FALSE;
      guint added = 0;

      while (strcmp (names[index], refused[i].name) != 0)
        index++;
      before = gcuda_kernel_args_get_value (args, index);
      g_test_message ("%s: %s", refused[i].name, refused[i].shown);
      switch (index)
        {
        case I8: added = gcuda_kernel_args_add_int8_number (args, refused[i].value, NULL);
                 set = gcuda_kernel_args_set_int8_number (args, index, refused[i].value, &error); break;
        case U8: added = gcuda_kernel_args_add_uint8_number (args, refused[i].value, NULL);
                 set = gcuda_kernel_args_set_uint8_number (args, index, refused[i].value, &error); break;
        case I16: added = gcuda_kernel_args_add_int16_number (args, refused[i].value, NULL);
                  set = gcuda_kernel_args_set_int16_number (args, index, refused[i].value, &error); break;
        case U16: added = gcuda_kernel_args_add_uint16_number (args, refused[i].value, NULL);
                  set = gcuda_kernel_args_set_uint16_number (args, index, refused[i].value, &error); break;
        case I32: added = gcuda_kernel_args_add_int32_number (args, refused[i].value, NULL);
                  set = gcuda_kernel_args_set_int32_number (args, index, refused[i].value, &error); break;
        case U32: added = gcuda_kernel_args_add_uint32_number (args, refused[i].value, NULL);
                  set = gcuda_kernel_args_set_uint32_number (args, index, refused[i].value, &error); break;
        case I64: added = gcuda_kernel_args_add_int64_number (args, refused[i].value, NULL);
                  set = gcuda_kernel_args_set_int64_number (args, index, refused[i].value, &error); break;
        case U64: added = gcuda_kernel_args_add_uint64_number (args, refused[i].value, NULL);
                  set = gcuda_kernel_args_set_uint64_number (args, index, refused[i].value, &error); break;
        default: g_assert_not_reached ();
        }
      g_assert_cmpuint (added, ==, G_MAXUINT);
      g_assert_false (set);
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, type));
      g_assert_nonnull (strstr (error->message, shown));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
      after = gcuda_kernel_args_get_value (args, index);
      g_assert_true (g_bytes_equal (before, after));
      g_assert_cmpuint (gcuda_kernel_args_get_count (args), ==, count);
    }

  /* the setters' own errors: another size, no such index */
  g_assert_false (gcuda_kernel_args_set_int16_number (args, I32, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_kernel_args_set_int32_number (args, count, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
}

/* ------------------------------------------------------------ the mock driver's launches */

/* The kernel as PTX the mock reads: (float *, float, int, double, char). */
static const char mock_ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .entry step(\n"
  "  .param .u64 out,\n  .param .f32 t,\n  .param .u32 n,\n  .param .f64 scale,\n  .param .u8 flag\n)\n"
  "{\n  ret;\n}\n";

typedef unsigned long long (*GetLastLaunch) (void *params, size_t *size);

static GetLastLaunch
mock_last_launch (void)
{
  const char *path = g_getenv ("GCUDA_DRIVER_LIBRARY");
  void *lib;

  if (g_strcmp0 (g_getenv ("GCUDA_MOCK_KERNELS"), "1") != 0 || path == NULL ||
      (lib = dlopen (path, RTLD_NOW)) == NULL)
    return NULL;
  return (GetLastLaunch) dlsym (lib, "gcuda_mock_get_last_launch");
}

typedef struct {
  guint64 out;
  float t;
  gint32 n;
  double scale;
  guint8 flag;
} StepParams;  /* laid out as the kernel's parameters: 0, 8, 12, 16, 24; 25 bytes */

static void
assert_last_launch (GetLastLaunch last,
                    unsigned long long want_count,
                    const StepParams *want)
{
  guint8 got[4096];
  size_t size = 0;

  g_assert_cmpuint (last (got, &size), ==, want_count);
  g_assert_cmpuint (size, ==, 25);
  g_assert_cmpmem (got, 8, &want->out, 8);
  g_assert_cmpmem (got + 8, 4, &want->t, 4);
  g_assert_cmpmem (got + 12, 4, &want->n, 4);
  g_assert_cmpmem (got + 16, 8, &want->scale, 8);
  g_assert_cmpmem (got + 24, 1, &want->flag, 1);
}

static void
test_mock_launches (void)
{
  GetLastLaunch last = mock_last_launch ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaFunction) f = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaBuffer) out = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autoptr(GCudaLaunchConfig) config = NULL;
  StepParams want = { 0 };
  unsigned long long count;

  if (last == NULL)
    {
      /* only registered in the mock suite, with GCUDA_MOCK_KERNELS=1 */
      g_test_fail_printf ("needs the mock driver with GCUDA_MOCK_KERNELS=1");
      return;
    }
  context = gcuda_context_get_default (&error);
  g_assert_no_error (error);
  image = g_bytes_new (mock_ptx, sizeof mock_ptx);
  module = gcuda_module_new_from_data (context, image, NULL, &error);
  g_assert_no_error (error);
  f = gcuda_module_get_function (module, "step", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_function_get_param_count (f), ==, 5);
  stream = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_DEFAULT, 0, &error);
  g_assert_no_error (error);
  out = gcuda_buffer_new (context, 1024, &error);
  g_assert_no_error (error);

  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, out);
  gcuda_kernel_args_add_float (args, 0);
  gcuda_kernel_args_add_int32 (args, 0);
  gcuda_kernel_args_add_double (args, 1);
  gcuda_kernel_args_add_uint8 (args, 1);
  config = gcuda_launch_config_new ();
  gcuda_launch_config_set_grid (config, 2, 1, 1);
  gcuda_launch_config_set_block (config, 4, 1, 1);  /* the mock's devices allow 7 */
  gcuda_launch_config_set_stream (config, stream);

  want.out = gcuda_buffer_get_address (out);
  want.scale = 1;
  want.flag = 1;
  count = last (NULL, NULL);
  /* one changed scalar per launch, each launch's parameters as set */
  for (int i = 0; i < 50; i++)
    {
      g_assert_true (gcuda_function_launch_with_number (f, config, args, 1, i / 8.0, &error));
      g_assert_no_error (error);
      want.t = (float) (i / 8.0);
      assert_last_launch (last, ++count, &want);
      g_assert_true (gcuda_function_launch_with_number (f, config, args, 2, -i * 1000, &error));
      g_assert_no_error (error);
      want.n = -i * 1000;
      assert_last_launch (last, ++count, &want);
    }
  /* the typed setters between launches, on every launch path */
  g_assert_true (gcuda_kernel_args_set_double (args, 3, -3.5, &error));
  g_assert_true (gcuda_kernel_args_set_uint8 (args, 4, 0xfe, &error));
  g_assert_no_error (error);
  want.scale = -3.5;
  want.flag = 0xfe;
  g_assert_true (gcuda_function_launch (f, 1, 1, 1, 2, 1, 1, 0, stream, args, &error));
  g_assert_no_error (error);
  assert_last_launch (last, ++count, &want);
  g_assert_true (gcuda_function_launch_with_config (f, config, args, &error));
  g_assert_no_error (error);
  assert_last_launch (last, ++count, &want);

  /* a value the argument cannot take: an error, nothing launched, the
   * arguments as they were */
  g_assert_false (gcuda_function_launch_with_number (f, config, args, 2, 0.5, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_function_launch_with_number (f, config, args, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_function_launch_with_number (f, config, args, 5, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_function_launch_with_number (f, NULL, args, 1, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_function_launch_with_number (f, config, NULL, 1, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (last (NULL, NULL), ==, count);

  /* a buffer argument made by hand (no memory), or freed: refused before
   * the driver, by every path that takes KernelArgs */
  {
    g_autoptr(GCudaBuffer) by_hand = g_object_new (GCUDA_TYPE_BUFFER, NULL);
    g_autoptr(GCudaBuffer) freed = gcuda_buffer_new (context, 64, &error);
    g_autoptr(GCudaKernelArgs) bad = gcuda_kernel_args_new ();

    g_assert_no_error (error);
    gcuda_kernel_args_add_buffer (bad, by_hand);
    gcuda_kernel_args_add_float (bad, 0);
    gcuda_kernel_args_add_int32 (bad, 0);
    gcuda_kernel_args_add_double (bad, 1);
    gcuda_kernel_args_add_uint8 (bad, 1);
    g_assert_false (gcuda_function_launch (f, 1, 1, 1, 2, 1, 1, 0, stream, bad, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    g_assert_true (gcuda_kernel_args_set_buffer (bad, 0, freed, &error));
    g_assert_no_error (error);
    g_assert_true (gcuda_buffer_free (freed, &error));
    g_assert_false (gcuda_function_launch_with_config (f, config, bad, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
    g_assert_false (gcuda_function_launch (f, 1, 1, 1, 2, 1, 1, 0, stream, bad, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
    g_assert_cmpuint (last (NULL, NULL), ==, count);
  }
  g_assert_true (gcuda_function_launch_with_config (f, config, args, &error));
  g_assert_no_error (error);
  assert_last_launch (last, ++count, &want);

  /* a buffer of another context of the device (it would fault there):
   * refused before the driver, by every path; one of the kernel's context,
   * or managed memory (the whole device's), launches */
  {
    g_autoptr(GCudaContext) other = gcuda_device_create_context (gcuda_context_get_device (context), 0, &error);
    g_autoptr(GCudaBuffer) foreign = NULL;
    g_autoptr(GCudaBuffer) view = NULL;
    g_autoptr(GCudaBuffer) managed = NULL;

    g_assert_no_error (error);
    foreign = gcuda_buffer_new (other, 64, &error);
    g_assert_no_error (error);
    view = gcuda_buffer_new_view (foreign, 32, 32, &error);
    g_assert_no_error (error);
    g_assert_true (gcuda_kernel_args_set_buffer (args, 0, foreign, &error));
    g_assert_no_error (error);
    g_assert_false (gcuda_function_launch (f, 1, 1, 1, 2, 1, 1, 0, stream, args, &error));
    g_assert_nonnull (strstr (error->message, "Parameter #0 (0-based) of kernel step: The buffer is memory of another context"));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
    g_assert_false (gcuda_function_launch_with_config (f, config, args, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
    g_assert_false (gcuda_function_launch_with_number (f, config, args, 2, want.n, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
    g_assert_true (gcuda_kernel_args_set_buffer (args, 0, view, &error));
    g_assert_false (gcuda_function_launch_with_config (f, config, args, &error));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
    g_assert_cmpuint (last (NULL, NULL), ==, count);

    managed = gcuda_buffer_new_managed (other, 64, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
    g_assert_no_error (error);
    g_assert_true (gcuda_kernel_args_set_buffer (args, 0, managed, &error));
    g_assert_true (gcuda_function_launch_with_config (f, config, args, &error));
    g_assert_no_error (error);
    want.out = gcuda_buffer_get_address (managed);
    assert_last_launch (last, ++count, &want);
    g_assert_true (gcuda_kernel_args_set_buffer (args, 0, out, &error));
    g_assert_no_error (error);
    want.out = gcuda_buffer_get_address (out);
    g_clear_object (&view);
    g_clear_object (&foreign);
    g_clear_object (&managed);
    g_assert_true (gcuda_context_destroy (other, &error));
    g_assert_no_error (error);
  }
  g_assert_true (gcuda_function_launch_with_config (f, config, args, &error));
  g_assert_no_error (error);
  assert_last_launch (last, ++count, &want);

  /* a launch with a missing argument never reaches the driver */
  gcuda_kernel_args_clear (args);
  gcuda_kernel_args_add_buffer (args, out);
  g_assert_false (gcuda_function_launch_with_number (f, config, args, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_false (gcuda_function_launch_with_config (f, config, args, &error));
  g_assert_nonnull (strstr (error->message, "Kernel step takes 5 arguments, not 1"));
  g_assert_null (strstr (error->message, "struct"));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  /* too many: perhaps a struct given field by field, which the message says */
  for (int i = 0; i < 5; i++)
    gcuda_kernel_args_add_int32 (args, i);
  g_assert_false (gcuda_function_launch_with_config (f, config, args, &error));
  g_assert_nonnull (strstr (error->message, "Kernel step takes 5 arguments, not 6 (a struct parameter is one "
                                            "argument, added whole, not field by field)"));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  /* the right count, a wrong size: the parameter is numbered from 0 */
  gcuda_kernel_args_clear (args);
  gcuda_kernel_args_add_buffer (args, out);
  gcuda_kernel_args_add_float (args, 0);
  gcuda_kernel_args_add_int64 (args, 0);
  gcuda_kernel_args_add_double (args, 1);
  gcuda_kernel_args_add_uint8 (args, 1);
  g_assert_false (gcuda_function_launch_with_config (f, config, args, &error));
  g_assert_nonnull (strstr (error->message, "Parameter #2 (0-based) of kernel step is 4 bytes; the argument given is 8"));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_cmpuint (last (NULL, NULL), ==, count);
  g_clear_object (&args);
  g_clear_object (&config);
  g_clear_object (&out);
  g_clear_object (&stream);
}

/* ------------------------------------------------------------ a GPU */

static const char step_source[] =
  "__global__ void step (float *out, int i, float x, double y, unsigned char tag)\n"
  "{\n"
  "  if (threadIdx.x == 0 && blockIdx.x == 0)\n"
  "    out[i] = x * 2.0f + (float) y + tag;\n"
  "}\n";

static void
test_gpu_loop (void)
{
  const int n = 200;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaFunction) f = NULL;
  g_autoptr(GCudaBuffer) out = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autoptr(GCudaLaunchConfig) config = NULL;
  g_autofree float *xs = NULL;
  g_autofree float *got = NULL;
  g_autofree float *want = NULL;
  g_autofree float *poison = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  module = load_module (NULL, step_source, NULL);
  f = get_kernel (module, "step");
  xs = random_floats (n);
  poison = g_new (float, n);
  for (int i = 0; i < n; i++)
    poison[i] = -12345.0f;
  out = buffer_with (poison, n * sizeof (float));
  want = g_new (float, n);
  got = g_new (float, n);

  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, out);
  gcuda_kernel_args_add_int32 (args, 0);
  gcuda_kernel_args_add_float (args, 0);
  gcuda_kernel_args_add_double (args, 0.25);
  gcuda_kernel_args_add_uint8 (args, 3);
  config = gcuda_launch_config_new ();
  gcuda_launch_config_set_grid (config, 1, 1, 1);
  gcuda_launch_config_set_block (config, 32, 1, 1);

  /* the even elements: the index with launch_with_number, x with set_float;
   * the odd ones: x with launch_with_number, the index with set_int32 */
  for (int i = 0; i < n; i++)
    {
      if (i % 2 == 0)
        {
          g_assert_true (gcuda_kernel_args_set_float (args, 2, xs[i], &error));
          g_assert_true (gcuda_function_launch_with_number (f, config, args, 1, i, &error));
        }
      else
        {
          g_assert_true (gcuda_kernel_args_set_int32 (args, 1, i, &error));
          g_assert_true (gcuda_function_launch_with_number (f, config, args, 2, xs[i], &error));
        }
      g_assert_no_error (error);
      want[i] = xs[i] * 2.0f + 0.25f + 3;
    }
  context_sync (NULL);
  download_into (out, got, n * sizeof (float));
  assert_floats_close (got, want, n, 1e-6);

  /* a wrong value launches nothing: the element it would write keeps its value */
  g_assert_false (gcuda_function_launch_with_number (f, config, args, 1, n + 0.5, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS);
  g_assert_true (gcuda_function_launch_with_number (f, config, args, 2, 1000, &error));
  g_assert_no_error (error);
  context_sync (NULL);
  download_into (out, got, n * sizeof (float));
  want[n - 1] = 1000 * 2.0f + 0.25f + 3;  /* the index stayed n - 1 */
  assert_floats_close (got, want, n, 1e-6);
}

int
main (int    argc,
      char **argv)
{
  static const TestKernelSource sources[] = { { "step", step_source }, { NULL, NULL } };

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernel-args/nogpu/setters", test_setters);
  g_test_add_func ("/kernel-args/nogpu/setter-errors", test_setter_errors);
  g_test_add_func ("/kernel-args/nogpu/set-number", test_set_number);
  g_test_add_func ("/kernel-args/nogpu/number-twins", test_number_twins);
  g_test_add_data_func ("/kernel-args/nogpu/sources", sources, (GTestDataFunc) test_kernel_sources_compile);
  g_test_add_func ("/kernel-args/mock/launches", test_mock_launches);
  g_test_add_func ("/kernel-args/gpu/loop", test_gpu_loop);
  return g_test_run ();
}
