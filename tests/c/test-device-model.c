/* test-device-model.c: GCudaDeviceModel, the devices as a GListModel
 *
 * Registered once per driver situation (tests/c/meson.build):
 *   GCUDA_TEST_DRIVER=missing|stub|no-device  no usable driver: the list is
 *       empty and says why (the error test-driver-load expects)
 *   GCUDA_MOCK_DEVICES=N (the mock driver)    N devices
 *   neither (a GPU)                           gcuda_device_get_count() devices
 * Items are the very objects gcuda_device_get() returns.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdlib.h>

#include <gio/gio.h>
#include <gcuda.h>

#include "gcuda-test-util.h"

static const char *situation;  /* GCUDA_TEST_DRIVER, or NULL */
static GQuark expected_domain;
static int expected_code;

/* The number of devices the list must hold, or -1 when it must be empty
 * with expected_domain/expected_code. FALSE when the test must return
 * (no GPU: skipped or failed). */
static gboolean
expected_count (int *count)
{
  const char *mock = g_getenv ("GCUDA_MOCK_DEVICES");
  g_autoptr(GError) error = NULL;

  if (situation != NULL)
    {
      *count = -1;
      return TRUE;
    }
  if (mock == NULL && !gcuda_test_require_gpu ())
    return FALSE;
  *count = gcuda_device_get_count (&error);
  g_assert_no_error (error);
  if (mock != NULL)
    g_assert_cmpint (*count, ==, atoi (mock));
  g_assert_cmpint (*count, >=, 1);
  return TRUE;
}

/* Checks @list against the driver's answers. */
static void
check_list (GCudaDeviceModel *list,
            int              count)
{
  GListModel *model = G_LIST_MODEL (list);
  g_autoptr(GError) prop_error = NULL;
  g_autofree char *prop_message = NULL;
  GType prop_type = G_TYPE_INVALID;
  guint prop_n = G_MAXUINT;

  g_assert_true (GCUDA_IS_DEVICE_MODEL (list));
  g_assert_true (G_IS_LIST_MODEL (list));
  g_assert_true (g_list_model_get_item_type (model) == GCUDA_TYPE_DEVICE);
  g_object_get (list, "item-type", &prop_type, "n-items", &prop_n, "error", &prop_error,
                "status-message", &prop_message, NULL);
  g_assert_true (prop_type == GCUDA_TYPE_DEVICE);

  if (count < 0)
    {
      const GError *error = gcuda_device_model_get_error (list);

      g_assert_cmpuint (g_list_model_get_n_items (model), ==, 0);
      g_assert_cmpuint (prop_n, ==, 0);
      g_assert_null (g_list_model_get_item (model, 0));
      gcuda_assert_error (error, expected_domain, expected_code);
      g_assert_nonnull (prop_error);
      g_assert_true (prop_error->domain == error->domain);
      g_assert_cmpint (prop_error->code, ==, error->code);
      g_assert_cmpstr (prop_error->message, ==, error->message);
      g_assert_cmpstr (gcuda_device_model_get_status_message (list), ==, error->message);
      g_assert_cmpstr (prop_message, ==, error->message);
      g_test_message ("empty: %s", error->message);
      return;
    }

  g_assert_no_error (gcuda_device_model_get_error (list));
  g_assert_null (prop_error);
  g_assert_null (gcuda_device_model_get_status_message (list));
  g_assert_null (prop_message);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, count);
  g_assert_cmpuint (prop_n, ==, count);
  for (int i = 0; i < count; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GCudaDevice) device = gcuda_device_get (i, &error);
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      g_assert_no_error (error);
      g_assert_true (GCUDA_IS_DEVICE (item));
      g_assert_true ((gpointer) item == (gpointer) device);
      g_assert_cmpint (gcuda_device_get_ordinal (GCUDA_DEVICE (item)), ==, i);
      g_test_message ("item %d: %s", i, gcuda_device_get_name (GCUDA_DEVICE (item)));
    }
  g_assert_null (g_list_model_get_item (model, count));
  g_assert_null (g_list_model_get_item (model, G_MAXUINT));
}

static gpointer
get_default_thread (gpointer data)
{
  return gcuda_device_model_get_default ();
}

/* First use from several threads at once: one list for all. Runs first. */
static void
test_first_use_concurrent (void)
{
  enum { N = 8 };
  GThread *threads[N];
  GCudaDeviceModel *lists[N];
  g_autoptr(GCudaDeviceModel) list = NULL;

  for (guint i = 0; i < N; i++)
    threads[i] = g_thread_new ("device-model", get_default_thread, NULL);
  for (guint i = 0; i < N; i++)
    lists[i] = g_thread_join (threads[i]);
  list = gcuda_device_model_get_default ();
  for (guint i = 0; i < N; i++)
    {
      g_assert_true (lists[i] == list);
      g_object_unref (lists[i]);
    }
}

static void
test_default (void)
{
  g_autoptr(GCudaDeviceModel) list = gcuda_device_model_get_default ();
  g_autoptr(GCudaDeviceModel) again = gcuda_device_model_get_default ();
  int count;

  g_assert_nonnull (list);
  g_assert_true (list == again);
  if (!expected_count (&count))
    return;
  check_list (list, count);
  if (count >= 0)
    gcuda_test_assert_no_current_context ();
}

/* A list made with g_object_new(): another object, the same devices. */
static void
test_new (void)
{
  g_autoptr(GCudaDeviceModel) list = g_object_new (GCUDA_TYPE_DEVICE_MODEL, NULL);
  g_autoptr(GCudaDeviceModel) default_list = gcuda_device_model_get_default ();
  int count;

  g_assert_true (list != default_list);
  if (!expected_count (&count))
    return;
  check_list (list, count);
}

/* Items outlive the list's reference, and the default list is kept. */
static void
test_item_references (void)
{
  GCudaDeviceModel *list = gcuda_device_model_get_default ();
  GCudaDeviceModel *weak = list;
  g_autoptr(GObject) item = NULL;
  int count;

  if (!expected_count (&count))
    {
      g_object_unref (list);
      return;
    }
  item = g_list_model_get_item (G_LIST_MODEL (list), 0);
  g_object_add_weak_pointer (G_OBJECT (list), (gpointer *) &weak);
  g_object_unref (list);
  /* the process keeps its default list */
  g_assert_nonnull (weak);
  g_object_remove_weak_pointer (G_OBJECT (weak), (gpointer *) &weak);
  if (count > 0)
    {
      g_assert_true (GCUDA_IS_DEVICE (item));
      g_assert_nonnull (gcuda_device_get_name (GCUDA_DEVICE (item)));
    }
  else
    g_assert_null (item);
}

static void
test_bad_input (void)
{
  if (g_test_subprocess ())
    {
      g_assert_null (gcuda_device_model_get_error (NULL));
      g_assert_null (gcuda_device_model_get_status_message (NULL));
      return;
    }
  /* NULL is a programming error: criticals, no crash */
  g_test_trap_subprocess (NULL, 0, 0);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*CRITICAL*GCUDA_IS_DEVICE_MODEL*");
}

int
main (int argc, char **argv)
{
  situation = g_getenv ("GCUDA_TEST_DRIVER");

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
    }
  else if (g_strcmp0 (situation, "no-device") == 0)
    {
      expected_domain = GCUDA_DRIVER_ERROR;
      expected_code = GCUDA_DRIVER_ERROR_NO_DEVICE;
    }
  else if (situation != NULL)
    g_error ("GCUDA_TEST_DRIVER=%s is not 'missing', 'stub' or 'no-device'", situation);

  g_test_add_func ("/device-model/first-use-concurrent", test_first_use_concurrent);
  g_test_add_func ("/device-model/default", test_default);
  g_test_add_func ("/device-model/new", test_new);
  g_test_add_func ("/device-model/item-references", test_item_references);
  g_test_add_func ("/device-model/bad-input", test_bad_input);

  return g_test_run ();
}
