/* gcuda-test-kernels.h: helpers shared by GCuda's kernel tests (modules,
 * launches, linker, graphs): kernels compiled and loaded with assertions,
 * launches, host data, and the check that a program's kernel sources
 * compile without a GPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gcuda.h>

G_BEGIN_DECLS

/* ------------------------------------------------------------ sources */

/* A kernel source a test program compiles, as it compiles it. */
typedef struct {
  const char *name;         /* for messages; NULL ends a table */
  const char *source;
  gboolean    no_extern_c;
  gboolean    relocatable;  /* as gcuda_linker_add_source() compiles it */
  const char *options[4];   /* extra NVRTC options, NULL-terminated */
} TestKernelSource;

/* Compiles every source of @sources (a table ended by a NULL name) for
 * sm_90 with NVRTC, to PTX and cubin, without cache and without a GPU:
 * a mistake in a GPU test's kernel is caught where there is no GPU.
 * Without NVRTC the test is skipped (failed when GCUDA_TEST_REQUIRE_GPU=1,
 * see gcuda_test_require_nvrtc()): it must call nothing after this. */
void           test_kernel_sources_compile (const TestKernelSource *sources);

/* ------------------------------------------------------------ kernels */

/* Compiles @source for the default context's device (its own arch, the
 * default cache) as @kind, with @options (nullable), asserting success. */
GCudaProgram  *compile_for_device (const char          *source,
                                   GCudaProgramKind     kind,
                                   const char * const  *options);

/* @source compiled (cubin) and loaded into @context (NULL: the default). */
GCudaModule   *load_module        (GCudaContext        *context,
                                   const char          *source,
                                   const char * const  *options);

/* The kernel @name of @module, asserting it exists. */
GCudaFunction *get_kernel         (GCudaModule         *module,
                                   const char          *name);

/* Launches @function, asserting success. */
void           launch_ok          (GCudaFunction       *function,
                                   guint                grid_x,
                                   guint                grid_y,
                                   guint                grid_z,
                                   guint                block_x,
                                   guint                block_y,
                                   guint                block_z,
                                   guint                shared_bytes,
                                   GCudaStream         *stream,
                                   GCudaKernelArgs     *args);

/* Waits for all the work of @context (NULL: the default context). */
void           context_sync       (GCudaContext        *context);

/* ------------------------------------------------------------ data */

/* A new buffer of the default context holding @size bytes of @data. */
GCudaBuffer   *buffer_with        (gconstpointer        data,
                                   gsize                size);

/* Downloads the first @size bytes of @buffer into @dest (synchronously). */
void           download_into      (GCudaBuffer         *buffer,
                                   gpointer             dest,
                                   gsize                size);

/* @n fresh random floats in [-100, 100) (g_free()). */
float         *random_floats      (gsize                n);

/* @n fresh random 32-bit integers (g_free()). */
guint32       *random_u32         (gsize                n);

/* Asserts that @got and @want agree to within @tolerance (relative to
 * max(1, |want|)), naming the first index that does not. */
#define assert_floats_close(got, want, n, tolerance) \
  assert_floats_close_at (__FILE__, __LINE__, (got), (want), (n), (tolerance))
void           assert_floats_close_at (const char  *file,
                                       int          line,
                                       const float *got,
                                       const float *want,
                                       gsize        n,
                                       double       tolerance);

/* Asserts that @n 32-bit words at @got are those at @want. */
#define assert_u32_equal(got, want, n) \
  assert_u32_equal_at (__FILE__, __LINE__, (got), (want), (n))
void           assert_u32_equal_at    (const char    *file,
                                       int            line,
                                       const guint32 *got,
                                       const guint32 *want,
                                       gsize          n);

G_END_DECLS
