/* gcuda-test-util.c: helpers shared by GCuda's C tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdlib.h>

#include "gcuda-test-util.h"

static char *no_gpu_reason;  /* NULL when a device is usable */

#if defined(__SANITIZE_ADDRESS__)
# define GCUDA_TEST_ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define GCUDA_TEST_ASAN 1
# endif
#endif

#ifdef GCUDA_TEST_ASAN
/* The thread count of this process, from /proc/self/task (0 if unknown). */
static guint
count_threads (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/task", 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* Async calls run on pool threads, which end when the pool keeps no more
 * idle ones. The leak checker of -Db_sanitize=address runs at exit, and its
 * tracer crashes on a thread caught in the middle of ending
 * ("LeakSanitizer: Tracer caught signal 11", about 1 run in 8 of
 * test-cancellation): before it, let them all end, until the thread count
 * has not changed for 100 ms (at most 5 s). Registered after the leak
 * checker's own exit handler, this one runs first. */
static void
let_pool_threads_end (void)
{
  guint last = 0, stable = 0;

  g_thread_pool_set_max_unused_threads (0);
  g_thread_pool_stop_unused_threads ();
  for (guint i = 0; i < 500 && stable < 10; i++)
    {
      guint n = count_threads ();

      stable = n == last ? stable + 1 : 0;
      last = n;
      g_usleep (10 * 1000);
    }
}

__attribute__((constructor)) static void
register_let_pool_threads_end (void)
{
  atexit (let_pool_threads_end);
}
#endif

gboolean
gcuda_test_gpu_required (void)
{
  return g_strcmp0 (g_getenv ("GCUDA_TEST_REQUIRE_GPU"), "1") == 0;
}

static void
probe_gpu (void)
{
  static gsize once;

  if (g_once_init_enter (&once))
    {
      GError *error = NULL;
      int count = gcuda_device_get_count (&error);

      if (count < 0)
        {
          g_assert_nonnull (error);
          no_gpu_reason = g_strdup_printf ("%s (%s %d)", error->message,
                                           g_quark_to_string (error->domain), error->code);
          g_clear_error (&error);
        }
      else if (count == 0)
        {
          g_assert_no_error (error);
          no_gpu_reason = g_strdup ("the driver reports no CUDA device");
        }
      g_once_init_leave (&once, 1);
    }
}

gboolean
gcuda_test_require_gpu (void)
{
  probe_gpu ();
  if (no_gpu_reason == NULL)
    return TRUE;

  if (gcuda_test_gpu_required ())
    g_test_fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but no GPU is usable: %s", no_gpu_reason);
  else
    g_test_skip_printf ("no GPU: %s", no_gpu_reason);
  return FALSE;
}

/* GCUDA_TEST_REQUIRE_GPUS as a number (0 when unset or not a number) */
static int
gpus_required (void)
{
  const char *value = g_getenv ("GCUDA_TEST_REQUIRE_GPUS");
  guint64 n = 0;

  if (value == NULL || !g_ascii_string_to_unsigned (value, 10, 0, 64, &n, NULL))
    return 0;
  return (int) n;
}

gboolean
gcuda_test_require_gpus (int n)
{
  int count;

  if (!gcuda_test_require_gpu ())
    return FALSE;
  count = gcuda_device_get_count (NULL);
  if (count >= n)
    return TRUE;
  if (gpus_required () >= n)
    g_test_fail_printf ("GCUDA_TEST_REQUIRE_GPUS=%d but this test needs %d GPUs and this host has %d",
                        gpus_required (), n, count);
  else
    g_test_skip_printf ("needs %d GPUs, this host has %d", n, count);
  return FALSE;
}

static char *no_nvrtc_reason;  /* NULL when NVRTC can be loaded */

static void
probe_nvrtc (void)
{
  static gsize once;

  if (g_once_init_enter (&once))
    {
      /* a compile for an explicit architecture, uncached: no driver needed */
      g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
      g_autoptr(GCudaProgram) program = NULL;
      GError *error = NULL;

      gcuda_compiler_set_arch (compiler, "sm_90");
      gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
      gcuda_compiler_set_cache_dir (compiler, "");
      program = gcuda_compiler_compile (compiler, "__global__ void probe () {}\n", &error);
      if (program == NULL)
        {
          if (!g_error_matches (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND))
            g_error ("probing NVRTC: %s", error->message);
          no_nvrtc_reason = g_strdup (error->message);
          g_clear_error (&error);
        }
      g_once_init_leave (&once, 1);
    }
}

gboolean
gcuda_test_require_nvrtc (void)
{
  probe_nvrtc ();
  if (no_nvrtc_reason == NULL)
    return TRUE;

  if (gcuda_test_gpu_required ())
    g_test_fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but NVRTC is missing: %s", no_nvrtc_reason);
  else
    g_test_skip_printf ("no NVRTC: %s", no_nvrtc_reason);
  return FALSE;
}

typedef struct {
  GTestFunc func;
} NvrtcTest;

static void
run_nvrtc_test (gconstpointer data)
{
  const NvrtcTest *test = data;

  /* a child re-running the test: its parent found NVRTC */
  if (!g_test_subprocess () && !gcuda_test_require_nvrtc ())
    return;
  test->func ();
}

void
gcuda_test_add_nvrtc_func (const char *testpath,
                           GTestFunc   test_func)
{
  NvrtcTest *test = g_new (NvrtcTest, 1);

  test->func = test_func;
  g_test_add_data_func_full (testpath, test, run_nvrtc_test, g_free);
}

GCudaDevice *
gcuda_test_get_device (void)
{
  GError *error = NULL;
  GCudaDevice *device = gcuda_device_get (0, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_DEVICE (device));
  return device;
}

void
gcuda_test_assert_no_current_context (void)
{
  GError *error = NULL;
  GCudaContext *current = gcuda_context_get_current (&error);

  g_assert_no_error (error);
  if (current != NULL)
    g_error ("a context (handle 0x%" G_GINT64_MODIFIER "x) was left current on this thread",
             gcuda_context_get_handle (current));
}
