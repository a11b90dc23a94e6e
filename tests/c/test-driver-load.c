/* test-driver-load.c: what every entry point reports when the driver cannot
 * be used. Registered once per situation, each in its own process (the driver
 * is loaded once per process):
 *
 *   GCUDA_TEST_DRIVER=missing  GCUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1
 *     -> GCUDA_ERROR_DRIVER_NOT_FOUND, the message names the file tried
 *   GCUDA_TEST_DRIVER=stub     GCUDA_DRIVER_LIBRARY=<the toolkit's stubs/libcuda.so>
 *     -> GCUDA_DRIVER_ERROR_STUB_LIBRARY, "cuInit failed: CUDA_ERROR_STUB_LIBRARY (…)"
 *   GCUDA_TEST_DRIVER=no-device  GCUDA_DRIVER_LIBRARY=<tests/mock>, GCUDA_MOCK_DEVICES=0
 *     -> GCUDA_DRIVER_ERROR_NO_DEVICE, "cuInit failed: CUDA_ERROR_NO_DEVICE (…)"
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gcuda-test-util.h"

#define N_THREADS 8

static GQuark expected_domain;
static int expected_code;
static const char *expected_prefix;  /* of the message, for driver errors */

static gboolean
have_situation (void)
{
  if (expected_domain != 0)
    return TRUE;
  g_test_skip ("GCUDA_TEST_DRIVER is not 'missing', 'stub' or 'no-device' (run through meson test)");
  return FALSE;
}

static void
assert_expected_error (const GError *error)
{
  const char *library = g_getenv ("GCUDA_DRIVER_LIBRARY");

  gcuda_assert_error (error, expected_domain, expected_code);
  g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_RUNTIME);

  if (expected_domain == GCUDA_ERROR)
    {
      /* says what was tried */
      if (strstr (error->message, library) == NULL)
        g_error ("the message does not name %s: %s", library, error->message);
    }
  else
    {
      if (!g_str_has_prefix (error->message, expected_prefix))
        g_error ("the message does not start with “%s”: %s", expected_prefix, error->message);
    }
}

/* ------------------------------------------------------------ first use from 8 threads */

static GMutex start_lock;
static GCond start_cond;
static gboolean started;

static gpointer
init_thread (gpointer data)
{
  GError *error = NULL;
  gboolean ok;

  g_mutex_lock (&start_lock);
  while (!started)
    g_cond_wait (&start_cond, &start_lock);
  g_mutex_unlock (&start_lock);

  ok = gcuda_init (&error);
  g_assert_false (ok);
  return error;
}

/* Must run first: the first load happens here, raced by 8 threads. */
static void
test_first_use_concurrent (void)
{
  GThread *threads[N_THREADS];
  GError *errors[N_THREADS];

  if (!have_situation ())
    return;

  for (guint i = 0; i < N_THREADS; i++)
    threads[i] = g_thread_new ("init", init_thread, NULL);

  g_mutex_lock (&start_lock);
  started = TRUE;
  g_cond_broadcast (&start_cond);
  g_mutex_unlock (&start_lock);

  for (guint i = 0; i < N_THREADS; i++)
    errors[i] = g_thread_join (threads[i]);

  for (guint i = 0; i < N_THREADS; i++)
    {
      assert_expected_error (errors[i]);
      g_assert_cmpstr (errors[i]->message, ==, errors[0]->message);
    }
  for (guint i = 0; i < N_THREADS; i++)
    g_error_free (errors[i]);
}

/* ------------------------------------------------------------ every entry point */

static void
test_init (void)
{
  g_autoptr(GError) error = NULL;

  if (!have_situation ())
    return;

  g_assert_false (gcuda_init (&error));
  assert_expected_error (error);
  g_clear_error (&error);

  /* the failure is remembered: the same error again */
  g_assert_false (gcuda_init (&error));
  assert_expected_error (error);
  g_clear_error (&error);

  /* a NULL GError is fine */
  g_assert_false (gcuda_init (NULL));
}

static void
test_driver_version (void)
{
  g_autoptr(GError) error = NULL;

  if (!have_situation ())
    return;

  g_assert_cmpint (gcuda_get_driver_version (&error), ==, 0);
  assert_expected_error (error);
}

static void
test_devices (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GPtrArray) list = NULL;

  if (!have_situation ())
    return;

  g_assert_cmpint (gcuda_device_get_count (&error), ==, -1);
  assert_expected_error (error);
  g_clear_error (&error);

  device = gcuda_device_get (0, &error);
  g_assert_null (device);
  assert_expected_error (error);
  g_clear_error (&error);

  device = gcuda_device_get (-1, &error);
  g_assert_null (device);
  assert_expected_error (error);
  g_clear_error (&error);

  list = gcuda_device_list (&error);
  g_assert_null (list);
  assert_expected_error (error);
  g_clear_error (&error);

  device = gcuda_device_get_by_pci_bus_id ("0000:41:00.0", &error);
  g_assert_null (device);
  assert_expected_error (error);
  g_clear_error (&error);

  /* a malformed id is rejected before the driver is needed */
  device = gcuda_device_get_by_pci_bus_id ("zz", &error);
  g_assert_null (device);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
}

static void
test_contexts (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = NULL;

  if (!have_situation ())
    return;

  context = gcuda_context_get_default (&error);
  g_assert_null (context);
  assert_expected_error (error);
  g_clear_error (&error);

  /* twice: the failure does not leave a half-made default behind */
  context = gcuda_context_get_default (&error);
  g_assert_null (context);
  assert_expected_error (error);
  g_clear_error (&error);

  context = gcuda_context_get_current (&error);
  g_assert_null (context);
  assert_expected_error (error);
  g_clear_error (&error);

  g_assert_false (gcuda_context_pop (&error));
  assert_expected_error (error);
  g_clear_error (&error);
}

static void
test_no_driver_needed (void)
{
  guint major = 0, minor = 0, revision = 1;

  if (!have_situation ())
    return;

  /* still fine after the driver failed to load */
  g_assert_cmpuint (gcuda_get_major_version (), ==, GCUDA_MAJOR_VERSION);
  gcuda_get_cuda_version (&major, &minor, &revision);
  g_assert_cmpuint (major, >=, 13);
  g_assert_cmpuint (revision, ==, 0);
  g_assert_cmpstr (gcuda_driver_error_get_name (GCUDA_DRIVER_ERROR_STUB_LIBRARY), ==,
                   "CUDA_ERROR_STUB_LIBRARY");
}

/* GCUDA_DRIVER_LIBRARY naming no regular file: a FIFO blocked dlopen()
 * for ever. Each case in a child (the driver is loaded once per process),
 * killed at a timeout: the error must come at once. */
static void
test_not_regular_child (void)
{
  const char *library = g_getenv ("GCUDA_DRIVER_LIBRARY");
  const char *kind = g_getenv ("GCUDA_TEST_NOT_REGULAR");
  g_autoptr(GError) error = NULL;

  if (!g_test_subprocess ())
    return;  /* run by /driver-load/not-regular-file */
  g_assert_cmpint (gcuda_device_get_count (&error), ==, -1);
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND);
  if (strstr (error->message, library) == NULL || strstr (error->message, "not a regular file") == NULL ||
      strstr (error->message, kind) == NULL)
    g_error ("the message does not say that %s is %s: %s", library, kind, error->message);
  g_printerr ("# %s\n", error->message);
}

static void
test_not_regular (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gcuda-driver-XXXXXX", &error);
  g_autofree char *fifo = g_build_filename (dir, "libcuda.so.1", NULL);
  g_autofree char *link = g_build_filename (dir, "link-to-fifo.so", NULL);
  g_autofree char *old = g_strdup (g_getenv ("GCUDA_DRIVER_LIBRARY"));
  const struct {
    const char *path;
    const char *kind;
  } cases[] = {
    { fifo, "a FIFO" },
    { link, "a FIFO" },
    { dir, "a directory" },
    { "/dev/null", "a character device" },
  };

  g_assert_no_error (error);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (symlink (fifo, link), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_setenv ("GCUDA_DRIVER_LIBRARY", cases[i].path, TRUE);
      g_setenv ("GCUDA_TEST_NOT_REGULAR", cases[i].kind, TRUE);
      /* old versions blocked in dlopen() for ever: 20 s is a hang */
      g_test_trap_subprocess ("/driver-load/not-regular-file/child", 20 * G_USEC_PER_SEC,
                              G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
    }
  if (old != NULL)
    g_setenv ("GCUDA_DRIVER_LIBRARY", old, TRUE);
  g_unsetenv ("GCUDA_TEST_NOT_REGULAR");
  g_unlink (link);
  g_unlink (fifo);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  const char *situation = g_getenv ("GCUDA_TEST_DRIVER");

  g_test_init (&argc, &argv, NULL);

  if (g_strcmp0 (situation, "missing") == 0)
    {
      expected_domain = GCUDA_ERROR;
      expected_code = GCUDA_ERROR_DRIVER_NOT_FOUND;
    }
  else if (g_strcmp0 (situation, "stub") == 0)
    {
      expected_domain = GCUDA_DRIVER_ERROR;
      expected_code = GCUDA_DRIVER_ERROR_STUB_LIBRARY;
      expected_prefix = "cuInit failed: CUDA_ERROR_STUB_LIBRARY (";
    }
  else if (g_strcmp0 (situation, "no-device") == 0)
    {
      expected_domain = GCUDA_DRIVER_ERROR;
      expected_code = GCUDA_DRIVER_ERROR_NO_DEVICE;
      expected_prefix = "cuInit failed: CUDA_ERROR_NO_DEVICE (";
    }

  /* once, not per situation: the case sets its own library; first, before
   * any thread (it changes the environment for its children) */
  if (g_strcmp0 (situation, "missing") == 0)
    {
      g_test_add_func ("/driver-load/not-regular-file", test_not_regular);
      g_test_add_func ("/driver-load/not-regular-file/child", test_not_regular_child);
    }
  g_test_add_func ("/driver-load/first-use-concurrent", test_first_use_concurrent);
  g_test_add_func ("/driver-load/init", test_init);
  g_test_add_func ("/driver-load/driver-version", test_driver_version);
  g_test_add_func ("/driver-load/devices", test_devices);
  g_test_add_func ("/driver-load/contexts", test_contexts);
  g_test_add_func ("/driver-load/no-driver-needed", test_no_driver_needed);

  return g_test_run ();
}
