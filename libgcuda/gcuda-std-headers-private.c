/* gcuda-std-headers-private.c: small standard C/C++ headers for NVRTC
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * NVRTC has no host headers: a kernel source that nvcc compiles with
 * `#include <stdio.h>` (for printf) or `<cstdint>` fails under NVRTC with
 * "could not open source file". NVIDIA's jitify answers with small
 * device-safe versions of the standard headers, given to NVRTC in memory;
 * so does GCuda, with its own minimal ones. What device code can use of
 * each header is either built into NVRTC already (printf, malloc/free,
 * memcpy/memset, the math functions and their float overloads, abs,
 * size_t, ptrdiff_t, assert) or is types and macros, defined here with the
 * values of the LP64 data model NVRTC compiles for on 64-bit Linux (the
 * host's: the build checks them against the host's own headers below, and
 * the tests against values NVRTC computes). The C++ names (<cstdint>...)
 * add the std:: names. nvcc also gives `uint`, `ushort` and `ulong`
 * (glibc's <sys/types.h>, which its pre-included runtime header pulls in):
 * every header here defines them.
 *
 * The headers must compile inside PyCUDA's `extern "C" { ... }` wrapping
 * of the source as well as outside it: typedefs, macros, namespaces and
 * using-declarations only, no templates and no functions.
 *
 * A user's header of the same name wins (see the compiler). The texts are
 * in every compile cache key (through _gcuda_std_headers_digest()), so
 * editing one here recompiles what the cache holds.
 */

#include "config.h"

#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "gcuda-std-headers-private.h"

/* The data model the texts describe: LP64 with 32-bit int, 32-bit wchar_t,
 * IEEE-754 binary32/binary64 floating point. */
G_STATIC_ASSERT (CHAR_BIT == 8);
G_STATIC_ASSERT (sizeof (short) == 2 && sizeof (int) == 4 && sizeof (long) == 8 && sizeof (long long) == 8);
G_STATIC_ASSERT (sizeof (void *) == 8 && sizeof (size_t) == 8);
G_STATIC_ASSERT (INT_MAX == 2147483647 && LONG_MAX == 9223372036854775807L && LLONG_MAX == 9223372036854775807LL);
G_STATIC_ASSERT (UINT_MAX == 4294967295U && ULONG_MAX == 18446744073709551615UL);
G_STATIC_ASSERT (SIZE_MAX == 18446744073709551615UL && PTRDIFF_MAX == 9223372036854775807L);
G_STATIC_ASSERT (sizeof (wchar_t) == 4);
G_STATIC_ASSERT (FLT_RADIX == 2 && FLT_MANT_DIG == 24 && DBL_MANT_DIG == 53);
G_STATIC_ASSERT (FLT_MAX_EXP == 128 && FLT_MIN_EXP == -125 && DBL_MAX_EXP == 1024 && DBL_MIN_EXP == -1021);
G_STATIC_ASSERT (FLT_DIG == 6 && DBL_DIG == 15);
G_STATIC_ASSERT (MB_LEN_MAX == 16);

/* Plain char and wchar_t are signed on x86-64, unsigned on AArch64: NVRTC
 * follows its host, as nvcc's host headers do. */
#if CHAR_MIN < 0
# define CHAR_LIMITS "#define CHAR_MIN (-128)\n#define CHAR_MAX 127\n"
#else
# define CHAR_LIMITS "#define CHAR_MIN 0\n#define CHAR_MAX 255\n"
#endif
#if WCHAR_MIN < 0
# define WCHAR_LIMITS "#define WCHAR_MIN (-2147483647 - 1)\n#define WCHAR_MAX 2147483647\n"
#else
# define WCHAR_LIMITS "#define WCHAR_MIN 0u\n#define WCHAR_MAX 4294967295u\n"
#endif

#define COMMON \
  "#ifndef __GCUDA_STD_COMMON\n" \
  "#define __GCUDA_STD_COMMON\n" \
  "/* GCuda's built-in standard header for NVRTC: what device code can use of it */\n" \
  "#if !defined(__LP64__)\n" \
  "#error \"GCuda's built-in standard headers describe LP64 (64-bit) targets\"\n" \
  "#endif\n" \
  "typedef unsigned short ushort;\n" \
  "typedef unsigned int uint;\n" \
  "typedef unsigned long ulong;\n" \
  "#ifndef NULL\n" \
  "#define NULL 0\n" \
  "#endif\n" \
  "#endif\n"

#define STDDEF \
  "#ifndef __GCUDA_STDDEF_H\n" \
  "#define __GCUDA_STDDEF_H\n" \
  "#ifndef offsetof\n" \
  "#define offsetof(type, member) ((size_t) __INTADDR__ (&(((type *) 0)->member)))\n" \
  "#endif\n" \
  "#endif\n"

#define STD_STDDEF \
  "#ifndef __GCUDA_CSTDDEF\n" \
  "#define __GCUDA_CSTDDEF\n" \
  "namespace std {\n" \
  "using ::size_t; using ::ptrdiff_t;\n" \
  "typedef decltype (nullptr) nullptr_t;\n" \
  "}\n" \
  "#endif\n"

#define STDINT \
  "#ifndef __GCUDA_STDINT_H\n" \
  "#define __GCUDA_STDINT_H\n" \
  "typedef signed char int8_t;\n" \
  "typedef short int16_t;\n" \
  "typedef int int32_t;\n" \
  "typedef long int64_t;\n" \
  "typedef unsigned char uint8_t;\n" \
  "typedef unsigned short uint16_t;\n" \
  "typedef unsigned int uint32_t;\n" \
  "typedef unsigned long uint64_t;\n" \
  "typedef signed char int_least8_t;\n" \
  "typedef short int_least16_t;\n" \
  "typedef int int_least32_t;\n" \
  "typedef long int_least64_t;\n" \
  "typedef unsigned char uint_least8_t;\n" \
  "typedef unsigned short uint_least16_t;\n" \
  "typedef unsigned int uint_least32_t;\n" \
  "typedef unsigned long uint_least64_t;\n" \
  "typedef signed char int_fast8_t;\n" \
  "typedef long int_fast16_t;\n" \
  "typedef long int_fast32_t;\n" \
  "typedef long int_fast64_t;\n" \
  "typedef unsigned char uint_fast8_t;\n" \
  "typedef unsigned long uint_fast16_t;\n" \
  "typedef unsigned long uint_fast32_t;\n" \
  "typedef unsigned long uint_fast64_t;\n" \
  "typedef long intptr_t;\n" \
  "typedef unsigned long uintptr_t;\n" \
  "typedef long intmax_t;\n" \
  "typedef unsigned long uintmax_t;\n" \
  "#define INT8_MIN (-128)\n" \
  "#define INT16_MIN (-32767 - 1)\n" \
  "#define INT32_MIN (-2147483647 - 1)\n" \
  "#define INT64_MIN (-9223372036854775807L - 1)\n" \
  "#define INT8_MAX 127\n" \
  "#define INT16_MAX 32767\n" \
  "#define INT32_MAX 2147483647\n" \
  "#define INT64_MAX 9223372036854775807L\n" \
  "#define UINT8_MAX 255\n" \
  "#define UINT16_MAX 65535\n" \
  "#define UINT32_MAX 4294967295U\n" \
  "#define UINT64_MAX 18446744073709551615UL\n" \
  "#define INT_LEAST8_MIN INT8_MIN\n" \
  "#define INT_LEAST16_MIN INT16_MIN\n" \
  "#define INT_LEAST32_MIN INT32_MIN\n" \
  "#define INT_LEAST64_MIN INT64_MIN\n" \
  "#define INT_LEAST8_MAX INT8_MAX\n" \
  "#define INT_LEAST16_MAX INT16_MAX\n" \
  "#define INT_LEAST32_MAX INT32_MAX\n" \
  "#define INT_LEAST64_MAX INT64_MAX\n" \
  "#define UINT_LEAST8_MAX UINT8_MAX\n" \
  "#define UINT_LEAST16_MAX UINT16_MAX\n" \
  "#define UINT_LEAST32_MAX UINT32_MAX\n" \
  "#define UINT_LEAST64_MAX UINT64_MAX\n" \
  "#define INT_FAST8_MIN INT8_MIN\n" \
  "#define INT_FAST16_MIN INT64_MIN\n" \
  "#define INT_FAST32_MIN INT64_MIN\n" \
  "#define INT_FAST64_MIN INT64_MIN\n" \
  "#define INT_FAST8_MAX INT8_MAX\n" \
  "#define INT_FAST16_MAX INT64_MAX\n" \
  "#define INT_FAST32_MAX INT64_MAX\n" \
  "#define INT_FAST64_MAX INT64_MAX\n" \
  "#define UINT_FAST8_MAX UINT8_MAX\n" \
  "#define UINT_FAST16_MAX UINT64_MAX\n" \
  "#define UINT_FAST32_MAX UINT64_MAX\n" \
  "#define UINT_FAST64_MAX UINT64_MAX\n" \
  "#define INTPTR_MIN INT64_MIN\n" \
  "#define INTPTR_MAX INT64_MAX\n" \
  "#define UINTPTR_MAX UINT64_MAX\n" \
  "#define INTMAX_MIN INT64_MIN\n" \
  "#define INTMAX_MAX INT64_MAX\n" \
  "#define UINTMAX_MAX UINT64_MAX\n" \
  "#define PTRDIFF_MIN INT64_MIN\n" \
  "#define PTRDIFF_MAX INT64_MAX\n" \
  "#define SIZE_MAX UINT64_MAX\n" \
  "#define SIG_ATOMIC_MIN INT32_MIN\n" \
  "#define SIG_ATOMIC_MAX INT32_MAX\n" \
  WCHAR_LIMITS \
  "#define WINT_MIN 0u\n" \
  "#define WINT_MAX 4294967295u\n" \
  "#define INT8_C(c) c\n" \
  "#define INT16_C(c) c\n" \
  "#define INT32_C(c) c\n" \
  "#define INT64_C(c) c ## L\n" \
  "#define UINT8_C(c) c\n" \
  "#define UINT16_C(c) c\n" \
  "#define UINT32_C(c) c ## U\n" \
  "#define UINT64_C(c) c ## UL\n" \
  "#define INTMAX_C(c) c ## L\n" \
  "#define UINTMAX_C(c) c ## UL\n" \
  "#endif\n"

#define STD_STDINT \
  "#ifndef __GCUDA_CSTDINT\n" \
  "#define __GCUDA_CSTDINT\n" \
  "namespace std {\n" \
  "using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;\n" \
  "using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;\n" \
  "using ::int_least8_t; using ::int_least16_t; using ::int_least32_t; using ::int_least64_t;\n" \
  "using ::uint_least8_t; using ::uint_least16_t; using ::uint_least32_t; using ::uint_least64_t;\n" \
  "using ::int_fast8_t; using ::int_fast16_t; using ::int_fast32_t; using ::int_fast64_t;\n" \
  "using ::uint_fast8_t; using ::uint_fast16_t; using ::uint_fast32_t; using ::uint_fast64_t;\n" \
  "using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;\n" \
  "}\n" \
  "#endif\n"

/* printf's conversions for <stdint.h>'s types (no scanf on the device) */
#define INTTYPES_ONE(conv) \
  "#define PRI" conv "8 \"" conv "\"\n" \
  "#define PRI" conv "16 \"" conv "\"\n" \
  "#define PRI" conv "32 \"" conv "\"\n" \
  "#define PRI" conv "64 \"l" conv "\"\n" \
  "#define PRI" conv "PTR \"l" conv "\"\n" \
  "#define PRI" conv "MAX \"l" conv "\"\n"

#define INTTYPES \
  "#ifndef __GCUDA_INTTYPES_H\n" \
  "#define __GCUDA_INTTYPES_H\n" \
  INTTYPES_ONE ("d") INTTYPES_ONE ("i") INTTYPES_ONE ("o") \
  INTTYPES_ONE ("u") INTTYPES_ONE ("x") INTTYPES_ONE ("X") \
  "#endif\n"

#define LIMITS \
  "#ifndef __GCUDA_LIMITS_H\n" \
  "#define __GCUDA_LIMITS_H\n" \
  "#define CHAR_BIT 8\n" \
  "#define MB_LEN_MAX 16\n" \
  "#define SCHAR_MIN (-128)\n" \
  "#define SCHAR_MAX 127\n" \
  "#define UCHAR_MAX 255\n" \
  CHAR_LIMITS \
  "#define SHRT_MIN (-32768)\n" \
  "#define SHRT_MAX 32767\n" \
  "#define USHRT_MAX 65535\n" \
  "#define INT_MIN (-2147483647 - 1)\n" \
  "#define INT_MAX 2147483647\n" \
  "#define UINT_MAX 4294967295U\n" \
  "#define LONG_MIN (-9223372036854775807L - 1L)\n" \
  "#define LONG_MAX 9223372036854775807L\n" \
  "#define ULONG_MAX 18446744073709551615UL\n" \
  "#define LLONG_MIN (-9223372036854775807LL - 1LL)\n" \
  "#define LLONG_MAX 9223372036854775807LL\n" \
  "#define ULLONG_MAX 18446744073709551615ULL\n" \
  "#endif\n"

/* binary32 and binary64; the device has no long double of its own, so no
 * LDBL_ values */
#define FLOAT \
  "#ifndef __GCUDA_FLOAT_H\n" \
  "#define __GCUDA_FLOAT_H\n" \
  "#define FLT_RADIX 2\n" \
  "#define FLT_ROUNDS 1\n" \
  "#define FLT_EVAL_METHOD 0\n" \
  "#define FLT_MANT_DIG 24\n" \
  "#define DBL_MANT_DIG 53\n" \
  "#define FLT_DIG 6\n" \
  "#define DBL_DIG 15\n" \
  "#define FLT_DECIMAL_DIG 9\n" \
  "#define DBL_DECIMAL_DIG 17\n" \
  "#define FLT_MIN_EXP (-125)\n" \
  "#define DBL_MIN_EXP (-1021)\n" \
  "#define FLT_MIN_10_EXP (-37)\n" \
  "#define DBL_MIN_10_EXP (-307)\n" \
  "#define FLT_MAX_EXP 128\n" \
  "#define DBL_MAX_EXP 1024\n" \
  "#define FLT_MAX_10_EXP 38\n" \
  "#define DBL_MAX_10_EXP 308\n" \
  "#define FLT_MAX 3.40282346638528859811704183484516925e+38F\n" \
  "#define DBL_MAX 1.79769313486231570814527423731704357e+308\n" \
  "#define FLT_EPSILON 1.19209289550781250000000000000000000e-7F\n" \
  "#define DBL_EPSILON 2.22044604925031308084726333618164062e-16\n" \
  "#define FLT_MIN 1.17549435082228750796873653722224568e-38F\n" \
  "#define DBL_MIN 2.22507385850720138309023271733240406e-308\n" \
  "#define FLT_TRUE_MIN 1.40129846432481707092372958328991613e-45F\n" \
  "#define DBL_TRUE_MIN 4.94065645841246544176568792868221372e-324\n" \
  "#define FLT_HAS_SUBNORM 1\n" \
  "#define DBL_HAS_SUBNORM 1\n" \
  "#endif\n"

/* Constants only: the functions are NVRTC's. NVRTC has no __builtin_inff
 * or __builtin_nanf: the bits, through __builtin_bit_cast, are constant
 * expressions (a __device__ variable's initializer, a constexpr) and give
 * glibc's values (NAN is the positive quiet NaN). An NVRTC without
 * __builtin_bit_cast gets divisions by zero, which are constant expressions
 * too (its NaN's sign then being the host's). */
#define MATH \
  "#ifndef __GCUDA_MATH_H\n" \
  "#define __GCUDA_MATH_H\n" \
  "typedef float float_t;\n" \
  "typedef double double_t;\n" \
  "#if defined(__has_builtin)\n" \
  "#if __has_builtin(__builtin_bit_cast)\n" \
  "#define __GCUDA_BIT_CAST 1\n" \
  "#endif\n" \
  "#endif\n" \
  "#ifdef __GCUDA_BIT_CAST\n" \
  "#define HUGE_VAL (__builtin_bit_cast (double, 0x7ff0000000000000UL))\n" \
  "#define HUGE_VALF (__builtin_bit_cast (float, 0x7f800000U))\n" \
  "#define NAN (__builtin_bit_cast (float, 0x7fc00000U))\n" \
  "#else\n" \
  "#define HUGE_VAL (1.0 / 0.0)\n" \
  "#define HUGE_VALF (1.0f / 0.0f)\n" \
  "#define NAN (0.0f / 0.0f)\n" \
  "#endif\n" \
  "#define INFINITY HUGE_VALF\n" \
  "#define MAXFLOAT 3.40282346638528859812e+38F\n" \
  "#define M_E 2.7182818284590452354\n" \
  "#define M_LOG2E 1.4426950408889634074\n" \
  "#define M_LOG10E 0.43429448190325182765\n" \
  "#define M_LN2 0.69314718055994530942\n" \
  "#define M_LN10 2.30258509299404568402\n" \
  "#define M_PI 3.14159265358979323846\n" \
  "#define M_PI_2 1.57079632679489661923\n" \
  "#define M_PI_4 0.78539816339744830962\n" \
  "#define M_1_PI 0.31830988618379067154\n" \
  "#define M_2_PI 0.63661977236758134308\n" \
  "#define M_2_SQRTPI 1.12837916709551257390\n" \
  "#define M_SQRT2 1.41421356237309504880\n" \
  "#define M_SQRT1_2 0.70710678118654752440\n" \
  "#endif\n"

#define STD_MATH \
  "#ifndef __GCUDA_CMATH\n" \
  "#define __GCUDA_CMATH\n" \
  "namespace std {\n" \
  "using ::float_t; using ::double_t;\n" \
  "using ::acos; using ::acosf; using ::acosh; using ::acoshf; using ::asin; using ::asinf;\n" \
  "using ::asinh; using ::asinhf; using ::atan; using ::atanf; using ::atan2; using ::atan2f;\n" \
  "using ::atanh; using ::atanhf; using ::cbrt; using ::cbrtf; using ::ceil; using ::ceilf;\n" \
  "using ::copysign; using ::copysignf; using ::cos; using ::cosf; using ::cosh; using ::coshf;\n" \
  "using ::erf; using ::erff; using ::erfc; using ::erfcf; using ::exp; using ::expf; using ::exp2;\n" \
  "using ::exp2f; using ::expm1; using ::expm1f; using ::fabs; using ::fabsf; using ::fdim;\n" \
  "using ::fdimf; using ::floor; using ::floorf; using ::fma; using ::fmaf; using ::fmax;\n" \
  "using ::fmaxf; using ::fmin; using ::fminf; using ::fmod; using ::fmodf; using ::frexp;\n" \
  "using ::frexpf; using ::hypot; using ::hypotf; using ::ilogb; using ::ilogbf; using ::ldexp;\n" \
  "using ::ldexpf; using ::lgamma; using ::lgammaf; using ::llrint; using ::llrintf; using ::llround;\n" \
  "using ::llroundf; using ::log; using ::logf; using ::log10; using ::log10f; using ::log1p;\n" \
  "using ::log1pf; using ::log2; using ::log2f; using ::logb; using ::logbf; using ::lrint;\n" \
  "using ::lrintf; using ::lround; using ::lroundf; using ::modf; using ::modff; using ::nan;\n" \
  "using ::nanf; using ::nearbyint; using ::nearbyintf; using ::nextafter; using ::nextafterf;\n" \
  "using ::pow; using ::powf; using ::remainder; using ::remainderf; using ::remquo; using ::remquof;\n" \
  "using ::rint; using ::rintf; using ::round; using ::roundf; using ::scalbln; using ::scalblnf;\n" \
  "using ::scalbn; using ::scalbnf; using ::sin; using ::sinf; using ::sinh; using ::sinhf;\n" \
  "using ::sqrt; using ::sqrtf; using ::tan; using ::tanf; using ::tanh; using ::tanhf; using ::tgamma;\n" \
  "using ::tgammaf; using ::trunc; using ::truncf; using ::abs; using ::isnan; using ::isinf;\n" \
  "using ::isfinite; using ::signbit;\n" \
  "}\n" \
  "#endif\n"

/* printf is NVRTC's own */
#define STDIO \
  "#ifndef __GCUDA_STDIO_H\n" \
  "#define __GCUDA_STDIO_H\n" \
  "#ifndef EOF\n" \
  "#define EOF (-1)\n" \
  "#endif\n" \
  "#endif\n"

#define STD_STDIO \
  "#ifndef __GCUDA_CSTDIO\n" \
  "#define __GCUDA_CSTDIO\n" \
  "namespace std { using ::printf; using ::size_t; }\n" \
  "#endif\n"

/* malloc, free, abs, labs, llabs are NVRTC's own */
#define STDLIB \
  "#ifndef __GCUDA_STDLIB_H\n" \
  "#define __GCUDA_STDLIB_H\n" \
  "#define EXIT_SUCCESS 0\n" \
  "#define EXIT_FAILURE 1\n" \
  "#define RAND_MAX 2147483647\n" \
  "#endif\n"

#define STD_STDLIB \
  "#ifndef __GCUDA_CSTDLIB\n" \
  "#define __GCUDA_CSTDLIB\n" \
  "namespace std { using ::malloc; using ::free; using ::abs; using ::labs; using ::llabs; using ::size_t; }\n" \
  "#endif\n"

/* memcpy and memset are NVRTC's own (nvcc's string.h has nothing else a
 * kernel can call) */
#define STD_STRING \
  "#ifndef __GCUDA_CSTRING\n" \
  "#define __GCUDA_CSTRING\n" \
  "namespace std { using ::memcpy; using ::memset; using ::size_t; }\n" \
  "#endif\n"

/* No guard: NDEBUG is read at each inclusion, as the standard says. The
 * expansion is NVRTC's built-in assert's. */
#define ASSERT \
  "#undef assert\n" \
  "#ifdef NDEBUG\n" \
  "#define assert(e) (static_cast<void> (0))\n" \
  "#else\n" \
  "#define assert(e) ((e) ? static_cast<void> (0) \\\n" \
  "                       : __assertfail (#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof (char)))\n" \
  "#endif\n"

static const GCudaStdHeader headers[] = {
  { "assert.h", COMMON ASSERT },
  { "cassert", COMMON ASSERT },
  { "float.h", COMMON FLOAT },
  { "cfloat", COMMON FLOAT },
  { "inttypes.h", COMMON STDINT INTTYPES },
  { "cinttypes", COMMON STDINT STD_STDINT INTTYPES },
  { "limits.h", COMMON LIMITS },
  { "climits", COMMON LIMITS },
  { "math.h", COMMON MATH },
  { "cmath", COMMON MATH STD_MATH },
  { "stddef.h", COMMON STDDEF },
  { "cstddef", COMMON STDDEF STD_STDDEF },
  { "stdint.h", COMMON STDINT },
  { "cstdint", COMMON STDINT STD_STDINT },
  { "stdio.h", COMMON STDIO },
  { "cstdio", COMMON STDIO STD_STDIO },
  { "stdlib.h", COMMON STDLIB },
  { "cstdlib", COMMON STDLIB STD_STDLIB },
  { "string.h", COMMON },
  { "cstring", COMMON STD_STRING },
  { NULL, NULL },
};

/* The table in use: the one above, or a test's */
static const GCudaStdHeader *table = headers;

const GCudaStdHeader *
_gcuda_std_headers (void)
{
  return g_atomic_pointer_get (&table);
}

void
_gcuda_std_headers_set_table (const GCudaStdHeader *replacement)
{
  g_atomic_pointer_set (&table, replacement != NULL ? replacement : headers);
}

const char *
_gcuda_std_header_lookup (const char *name)
{
  const GCudaStdHeader *t = _gcuda_std_headers ();

  if (name == NULL)
    return NULL;
  for (guint i = 0; t[i].name != NULL; i++)
    if (strcmp (t[i].name, name) == 0)
      return t[i].text;
  return NULL;
}

const char *
_gcuda_std_headers_digest (void)
{
  static GMutex lock;
  static const GCudaStdHeader *digest_of;
  static char *digest;
  static GPtrArray *retired;
  const GCudaStdHeader *t = _gcuda_std_headers ();
  const char *result;

  g_mutex_lock (&lock);
  if (digest_of != t)
    {
      GChecksum *cs = g_checksum_new (G_CHECKSUM_SHA256);

      /* names and texts with their NULs: no two tables hash alike */
      for (guint i = 0; t[i].name != NULL; i++)
        {
          g_checksum_update (cs, (const guchar *) t[i].name, strlen (t[i].name) + 1);
          g_checksum_update (cs, (const guchar *) t[i].text, strlen (t[i].text) + 1);
        }
      /* a previous digest is kept, not freed: a caller may hold it (only
       * tests ever change the table, a few times) */
      if (digest != NULL)
        {
          if (retired == NULL)
            retired = g_ptr_array_new ();
          g_ptr_array_add (retired, digest);
        }
      digest = g_strdup (g_checksum_get_string (cs));
      digest_of = t;
      g_checksum_free (cs);
    }
  result = digest;
  g_mutex_unlock (&lock);
  return result;
}
