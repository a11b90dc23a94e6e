/* test-version.c: versions, enums, error names and categories, and objects
 * not made by GCuda. Runs with an unloadable driver: nothing here may need it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-cuda-abi-private.h"
#include <gio/gio.h>

#include "gcuda-test-util.h"

/* GCuda's enums carry the driver's values (compile-time check against cuda.h) */
G_STATIC_ASSERT ((int) GCUDA_DRIVER_ERROR_SUCCESS == (int) CUDA_SUCCESS);
G_STATIC_ASSERT ((int) GCUDA_DRIVER_ERROR_INVALID_VALUE == (int) CUDA_ERROR_INVALID_VALUE);
G_STATIC_ASSERT ((int) GCUDA_DRIVER_ERROR_OUT_OF_MEMORY == (int) CUDA_ERROR_OUT_OF_MEMORY);
G_STATIC_ASSERT ((int) GCUDA_DRIVER_ERROR_STUB_LIBRARY == (int) CUDA_ERROR_STUB_LIBRARY);
G_STATIC_ASSERT ((int) GCUDA_DRIVER_ERROR_NO_DEVICE == (int) CUDA_ERROR_NO_DEVICE);
G_STATIC_ASSERT ((int) GCUDA_DRIVER_ERROR_INVALID_DEVICE == (int) CUDA_ERROR_INVALID_DEVICE);
G_STATIC_ASSERT ((int) GCUDA_DRIVER_ERROR_INVALID_CONTEXT == (int) CUDA_ERROR_INVALID_CONTEXT);
G_STATIC_ASSERT ((int) GCUDA_DRIVER_ERROR_LAUNCH_FAILED == (int) CUDA_ERROR_LAUNCH_FAILED);
G_STATIC_ASSERT ((int) GCUDA_DRIVER_ERROR_ILLEGAL_ADDRESS == (int) CUDA_ERROR_ILLEGAL_ADDRESS);
G_STATIC_ASSERT ((int) GCUDA_DRIVER_ERROR_PEER_ACCESS_ALREADY_ENABLED == (int) CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
G_STATIC_ASSERT ((int) GCUDA_DRIVER_ERROR_UNKNOWN == (int) CUDA_ERROR_UNKNOWN);
G_STATIC_ASSERT (GCUDA_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK == (int) CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
G_STATIC_ASSERT (GCUDA_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR == (int) CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
G_STATIC_ASSERT (GCUDA_DEVICE_ATTRIBUTE_COMPUTE_MODE == (int) CU_DEVICE_ATTRIBUTE_COMPUTE_MODE);
G_STATIC_ASSERT (GCUDA_LIMIT_STACK_SIZE == (int) CU_LIMIT_STACK_SIZE);
G_STATIC_ASSERT (GCUDA_LIMIT_PRINTF_FIFO_SIZE == (int) CU_LIMIT_PRINTF_FIFO_SIZE);
G_STATIC_ASSERT (GCUDA_LIMIT_MALLOC_HEAP_SIZE == (int) CU_LIMIT_MALLOC_HEAP_SIZE);
G_STATIC_ASSERT (GCUDA_LIMIT_PERSISTING_L2_CACHE_SIZE == (int) CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
G_STATIC_ASSERT (GCUDA_LIMIT_CIG_SHMEM_FALLBACK_ENABLED + 1 == (int) CU_LIMIT_MAX);
G_STATIC_ASSERT (GCUDA_CACHE_CONFIG_PREFER_NONE == (int) CU_FUNC_CACHE_PREFER_NONE);
G_STATIC_ASSERT (GCUDA_CACHE_CONFIG_PREFER_SHARED == (int) CU_FUNC_CACHE_PREFER_SHARED);
G_STATIC_ASSERT (GCUDA_CACHE_CONFIG_PREFER_L1 == (int) CU_FUNC_CACHE_PREFER_L1);
G_STATIC_ASSERT (GCUDA_CACHE_CONFIG_PREFER_EQUAL == (int) CU_FUNC_CACHE_PREFER_EQUAL);
G_STATIC_ASSERT (GCUDA_COMPUTE_MODE_DEFAULT == (int) CU_COMPUTEMODE_DEFAULT);
G_STATIC_ASSERT (GCUDA_COMPUTE_MODE_PROHIBITED == (int) CU_COMPUTEMODE_PROHIBITED);
G_STATIC_ASSERT (GCUDA_COMPUTE_MODE_EXCLUSIVE_PROCESS == (int) CU_COMPUTEMODE_EXCLUSIVE_PROCESS);
G_STATIC_ASSERT (GCUDA_CONTEXT_FLAGS_SCHED_AUTO == (int) CU_CTX_SCHED_AUTO);
G_STATIC_ASSERT (GCUDA_CONTEXT_FLAGS_SCHED_SPIN == (int) CU_CTX_SCHED_SPIN);
G_STATIC_ASSERT (GCUDA_CONTEXT_FLAGS_SCHED_YIELD == (int) CU_CTX_SCHED_YIELD);
G_STATIC_ASSERT (GCUDA_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC == (int) CU_CTX_SCHED_BLOCKING_SYNC);
G_STATIC_ASSERT (GCUDA_CONTEXT_FLAGS_MAP_HOST == (int) CU_CTX_MAP_HOST);
G_STATIC_ASSERT (GCUDA_CONTEXT_FLAGS_LMEM_RESIZE_TO_MAX == (int) CU_CTX_LMEM_RESIZE_TO_MAX);
G_STATIC_ASSERT (GCUDA_CONTEXT_FLAGS_COREDUMP_ENABLE == (int) CU_CTX_COREDUMP_ENABLE);
G_STATIC_ASSERT (GCUDA_CONTEXT_FLAGS_USER_COREDUMP_ENABLE == (int) CU_CTX_USER_COREDUMP_ENABLE);
G_STATIC_ASSERT (GCUDA_CONTEXT_FLAGS_SYNC_MEMOPS == (int) CU_CTX_SYNC_MEMOPS);

static void
test_version_macros (void)
{
  g_autofree char *expected = NULL;

  g_assert_cmpuint (gcuda_get_major_version (), ==, GCUDA_MAJOR_VERSION);
  g_assert_cmpuint (gcuda_get_minor_version (), ==, GCUDA_MINOR_VERSION);
  g_assert_cmpuint (gcuda_get_micro_version (), ==, GCUDA_MICRO_VERSION);
  g_assert_cmpint (GCUDA_MAJOR_VERSION, >=, 1);

  expected = g_strdup_printf ("%d.%d.%d", GCUDA_MAJOR_VERSION, GCUDA_MINOR_VERSION, GCUDA_MICRO_VERSION);
  g_assert_cmpstr (GCUDA_VERSION_S, ==, expected);

  g_assert_true (GCUDA_CHECK_VERSION (1, 0, 0));
  g_assert_true (GCUDA_CHECK_VERSION (GCUDA_MAJOR_VERSION, GCUDA_MINOR_VERSION, GCUDA_MICRO_VERSION));
  g_assert_false (GCUDA_CHECK_VERSION (GCUDA_MAJOR_VERSION, GCUDA_MINOR_VERSION, GCUDA_MICRO_VERSION + 1));
  g_assert_false (GCUDA_CHECK_VERSION (GCUDA_MAJOR_VERSION + 1, 0, 0));

  g_assert_true (gcuda_check_version (1, 0, 0));
  g_assert_true (gcuda_check_version (0, 99, 99));
  g_assert_true (gcuda_check_version (GCUDA_MAJOR_VERSION, GCUDA_MINOR_VERSION, GCUDA_MICRO_VERSION));
  g_assert_false (gcuda_check_version (GCUDA_MAJOR_VERSION, GCUDA_MINOR_VERSION, GCUDA_MICRO_VERSION + 1));
  g_assert_false (gcuda_check_version (GCUDA_MAJOR_VERSION, GCUDA_MINOR_VERSION + 1, 0));
  g_assert_false (gcuda_check_version (GCUDA_MAJOR_VERSION + 1, 0, 0));
}

static void
test_version_cuda (void)
{
  guint major = 99, minor = 99, revision = 99;

  gcuda_get_cuda_version (&major, &minor, &revision);
  g_assert_cmpuint (major, ==, CUDA_VERSION / 1000);
  g_assert_cmpuint (minor, ==, (CUDA_VERSION % 1000) / 10);
  g_assert_cmpuint (revision, ==, 0);
  g_assert_cmpuint (major, >=, 13);

  /* every out argument is optional */
  gcuda_get_cuda_version (NULL, NULL, NULL);
  major = 0;
  gcuda_get_cuda_version (&major, NULL, NULL);
  g_assert_cmpuint (major, ==, CUDA_VERSION / 1000);
}

static void
test_error_quarks (void)
{
  g_assert_cmpstr (g_quark_to_string (GCUDA_ERROR), ==, "gcuda-error-quark");
  g_assert_cmpstr (g_quark_to_string (GCUDA_DRIVER_ERROR), ==, "gcuda-driver-error-quark");
  g_assert_cmpuint (gcuda_error_quark (), ==, GCUDA_ERROR);
  g_assert_cmpuint (gcuda_driver_error_quark (), ==, GCUDA_DRIVER_ERROR);
  g_assert_cmpuint (GCUDA_ERROR, !=, GCUDA_DRIVER_ERROR);
}

static void
test_driver_error_names (void)
{
  static const struct { GCudaDriverError code; const char *name; } cases[] = {
    { GCUDA_DRIVER_ERROR_SUCCESS, "CUDA_SUCCESS" },
    { GCUDA_DRIVER_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE" },
    { GCUDA_DRIVER_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY" },
    { GCUDA_DRIVER_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY" },
    { GCUDA_DRIVER_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE" },
    { GCUDA_DRIVER_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE" },
    { GCUDA_DRIVER_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT" },
    { GCUDA_DRIVER_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED" },
    { GCUDA_DRIVER_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND" },
    { GCUDA_DRIVER_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN" },
    { (GCudaDriverError) CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS" },
    { (GCudaDriverError) CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED" },
  };
  g_autoptr(GEnumClass) klass = g_type_class_ref (GCUDA_TYPE_DRIVER_ERROR);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpstr (gcuda_driver_error_get_name (cases[i].code), ==, cases[i].name);

  /* not CUresult values */
  g_assert_null (gcuda_driver_error_get_name ((GCudaDriverError) 12345));
  g_assert_null (gcuda_driver_error_get_name ((GCudaDriverError) -1));
  g_assert_null (gcuda_driver_error_get_name ((GCudaDriverError) 9));

  /* every value: the name is the enum's with CUDA_ERROR_ for GCUDA_DRIVER_ERROR_ */
  g_assert_cmpuint (klass->n_values, ==, 101);
  for (guint i = 0; i < klass->n_values; i++)
    {
      const GEnumValue *v = &klass->values[i];
      const char *name = gcuda_driver_error_get_name ((GCudaDriverError) v->value);
      const char *suffix = v->value_name + strlen ("GCUDA_DRIVER_ERROR_");
      g_autofree char *expected = NULL;

      g_assert_true (g_str_has_prefix (v->value_name, "GCUDA_DRIVER_ERROR_"));
      expected = v->value == 0 ? g_strdup ("CUDA_SUCCESS") : g_strconcat ("CUDA_ERROR_", suffix, NULL);
      g_assert_cmpstr (name, ==, expected);
    }
}

static void
test_driver_error_categories (void)
{
  static const struct { int code; GCudaErrorCategory category; } cases[] = {
    { CUDA_SUCCESS, GCUDA_ERROR_CATEGORY_NONE },
    { CUDA_ERROR_LAUNCH_FAILED, GCUDA_ERROR_CATEGORY_LAUNCH },
    { CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, GCUDA_ERROR_CATEGORY_LAUNCH },
    { CUDA_ERROR_LAUNCH_TIMEOUT, GCUDA_ERROR_CATEGORY_LAUNCH },
    { CUDA_ERROR_ILLEGAL_ADDRESS, GCUDA_ERROR_CATEGORY_LAUNCH },
    { CUDA_ERROR_OUT_OF_MEMORY, GCUDA_ERROR_CATEGORY_MEMORY },
    { CUDA_ERROR_NO_DEVICE, GCUDA_ERROR_CATEGORY_RUNTIME },
    { CUDA_ERROR_STUB_LIBRARY, GCUDA_ERROR_CATEGORY_RUNTIME },
    { CUDA_ERROR_NO_BINARY_FOR_GPU, GCUDA_ERROR_CATEGORY_RUNTIME },
    { CUDA_ERROR_UNKNOWN, GCUDA_ERROR_CATEGORY_UNKNOWN },
    { CUDA_ERROR_INVALID_VALUE, GCUDA_ERROR_CATEGORY_LOGIC },
    { CUDA_ERROR_INVALID_DEVICE, GCUDA_ERROR_CATEGORY_LOGIC },
    { CUDA_ERROR_INVALID_CONTEXT, GCUDA_ERROR_CATEGORY_LOGIC },
    { CUDA_ERROR_INVALID_HANDLE, GCUDA_ERROR_CATEGORY_LOGIC },
  };
  g_autoptr(GEnumClass) klass = g_type_class_ref (GCUDA_TYPE_DRIVER_ERROR);
  g_autoptr(GEnumClass) categories = g_type_class_ref (GCUDA_TYPE_ERROR_CATEGORY);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s", gcuda_driver_error_get_name ((GCudaDriverError) cases[i].code));
      g_assert_cmpint (gcuda_driver_error_get_category ((GCudaDriverError) cases[i].code), ==,
                       cases[i].category);
    }

  /* every error is in some category, and only SUCCESS is in none */
  for (guint i = 0; i < klass->n_values; i++)
    {
      GCudaErrorCategory c = gcuda_driver_error_get_category ((GCudaDriverError) klass->values[i].value);

      g_assert_nonnull (g_enum_get_value (categories, c));
      if (klass->values[i].value != 0)
        {
          g_assert_cmpint (c, !=, GCUDA_ERROR_CATEGORY_NONE);
          g_assert_cmpint (c, !=, GCUDA_ERROR_CATEGORY_COMPILE);
        }
    }
}

static void
test_error_categories (void)
{
  static const struct { int code; GCudaErrorCategory category; } library[] = {
    { GCUDA_ERROR_FAILED, GCUDA_ERROR_CATEGORY_LOGIC },
    { GCUDA_ERROR_DRIVER_NOT_FOUND, GCUDA_ERROR_CATEGORY_RUNTIME },
    { GCUDA_ERROR_NVRTC_NOT_FOUND, GCUDA_ERROR_CATEGORY_RUNTIME },
    { GCUDA_ERROR_NOT_SUPPORTED, GCUDA_ERROR_CATEGORY_RUNTIME },
    { GCUDA_ERROR_INVALID_ARGUMENT, GCUDA_ERROR_CATEGORY_LOGIC },
    { GCUDA_ERROR_OUT_OF_BOUNDS, GCUDA_ERROR_CATEGORY_LOGIC },
    { GCUDA_ERROR_FREED, GCUDA_ERROR_CATEGORY_LOGIC },
    { GCUDA_ERROR_CONTEXT_DESTROYED, GCUDA_ERROR_CATEGORY_LOGIC },
    { GCUDA_ERROR_CONTEXT_MISMATCH, GCUDA_ERROR_CATEGORY_LOGIC },
    { GCUDA_ERROR_KERNEL_ARGUMENTS, GCUDA_ERROR_CATEGORY_LOGIC },
    { GCUDA_ERROR_NCCL_NOT_FOUND, GCUDA_ERROR_CATEGORY_RUNTIME },
    { GCUDA_ERROR_NCCL, GCUDA_ERROR_CATEGORY_RUNTIME },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GEnumClass) klass = g_type_class_ref (GCUDA_TYPE_ERROR);

  for (guint i = 0; i < G_N_ELEMENTS (library); i++)
    {
      g_autoptr(GError) e = g_error_new_literal (GCUDA_ERROR, library[i].code, "x");
      g_assert_cmpint (gcuda_error_get_category (e), ==, library[i].category);
    }
  /* codes added later are logic or runtime errors too */
  for (guint i = 0; i < klass->n_values; i++)
    {
      g_autoptr(GError) e = g_error_new_literal (GCUDA_ERROR, klass->values[i].value, "x");
      GCudaErrorCategory c = gcuda_error_get_category (e);

      g_assert_true (c == GCUDA_ERROR_CATEGORY_LOGIC || c == GCUDA_ERROR_CATEGORY_RUNTIME);
    }

  error = g_error_new_literal (GCUDA_DRIVER_ERROR, CUDA_ERROR_OUT_OF_MEMORY, "x");
  g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_MEMORY);
  g_clear_error (&error);

  error = g_error_new_literal (GCUDA_DRIVER_ERROR, CUDA_ERROR_LAUNCH_FAILED, "x");
  g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_LAUNCH);
  g_clear_error (&error);

  error = g_error_new_literal (g_quark_from_static_string ("gcuda-compile-error-quark"), 6, "x");
  g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_COMPILE);
  g_clear_error (&error);

  error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "x");
  g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_NONE);
  g_clear_error (&error);
}

static void
test_enum_types (void)
{
  g_autoptr(GEnumClass) attrs = g_type_class_ref (GCUDA_TYPE_DEVICE_ATTRIBUTE);
  g_autoptr(GEnumClass) limits = g_type_class_ref (GCUDA_TYPE_LIMIT);
  g_autoptr(GEnumClass) cache = g_type_class_ref (GCUDA_TYPE_CACHE_CONFIG);
  g_autoptr(GEnumClass) modes = g_type_class_ref (GCUDA_TYPE_COMPUTE_MODE);
  g_autoptr(GEnumClass) categories = g_type_class_ref (GCUDA_TYPE_ERROR_CATEGORY);
  g_autoptr(GFlagsClass) flags = g_type_class_ref (GCUDA_TYPE_CONTEXT_FLAGS);

  g_assert_true (G_TYPE_IS_ENUM (GCUDA_TYPE_DRIVER_ERROR));
  g_assert_true (G_TYPE_IS_ENUM (GCUDA_TYPE_ERROR));
  g_assert_true (G_TYPE_IS_FLAGS (GCUDA_TYPE_CONTEXT_FLAGS));
  g_assert_cmpstr (g_type_name (GCUDA_TYPE_DEVICE_ATTRIBUTE), ==, "GCudaDeviceAttribute");

  /* every CUdevice_attribute of CUDA 13 (aliases included), not _MAX */
  g_assert_cmpuint (attrs->n_values, ==, 153);
  g_assert_null (g_enum_get_value (attrs, 0));
  g_assert_null (g_enum_get_value (attrs, CU_DEVICE_ATTRIBUTE_MAX));
  g_assert_nonnull (g_enum_get_value (attrs, CU_DEVICE_ATTRIBUTE_MAX - 1));
  g_assert_cmpstr (g_enum_get_value (attrs, GCUDA_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)->value_nick,
                   ==, "max-threads-per-block");

  g_assert_cmpuint (limits->n_values, ==, CU_LIMIT_MAX);
  g_assert_cmpuint (cache->n_values, ==, 4);
  g_assert_cmpuint (modes->n_values, ==, 3);
  g_assert_null (g_enum_get_value (modes, 1));  /* CU_COMPUTEMODE 1 was removed */
  g_assert_cmpuint (categories->n_values, ==, 7);
  g_assert_cmpuint (flags->n_values, ==, 9);
  g_assert_cmpuint (flags->mask, ==, CU_CTX_FLAGS_MASK);
}

static void
test_unbound_device (void)
{
  g_autoptr(GCudaDevice) device = g_object_new (GCUDA_TYPE_DEVICE, NULL);
  g_autoptr(GCudaDevice) other = g_object_new (GCUDA_TYPE_DEVICE, NULL);
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GHashTable) attrs = NULL;
  g_autoptr(GError) error = NULL;
  GCudaContextFlags flags = 0;
  gboolean active = TRUE;
  int ordinal = 5;

  /* a GCudaDevice made with g_object_new() has no device behind it */
  g_assert_cmpint (gcuda_device_get_ordinal (device), ==, -1);
  g_object_get (device, "ordinal", &ordinal, NULL);
  g_assert_cmpint (ordinal, ==, -1);
  g_assert_null (gcuda_device_get_name (device));
  g_assert_null (gcuda_device_get_pci_bus_id (device));
  g_assert_null (gcuda_device_get_uuid (device));
  g_assert_cmpuint (gcuda_device_get_total_memory (device), ==, 0);

  g_assert_cmpint (gcuda_device_get_attribute (device, GCUDA_DEVICE_ATTRIBUTE_WARP_SIZE, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  attrs = gcuda_device_get_attributes (device, &error);
  g_assert_null (attrs);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  context = gcuda_device_get_primary_context (device, &error);
  g_assert_null (context);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  context = gcuda_device_create_context (device, 0, &error);
  g_assert_null (context);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_false (gcuda_device_set_primary_context_flags (device, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_false (gcuda_device_get_primary_context_state (device, &flags, &active, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_false (gcuda_device_can_access_peer (device, other, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_device_can_access_peer (device, device, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_device_can_access_peer (device, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_true (gcuda_device_equal (device, device));
  g_assert_false (gcuda_device_equal (device, other));
  g_assert_cmpuint (gcuda_device_hash (device), ==, gcuda_device_hash (device));
}

static void
test_unbound_context (void)
{
  g_autoptr(GCudaContext) context = g_object_new (GCUDA_TYPE_CONTEXT, NULL);
  g_autoptr(GCudaContext) other = g_object_new (GCUDA_TYPE_CONTEXT, NULL);
  g_autoptr(GError) error = NULL;
  guint64 free_mem = 0, total = 0;
  int least = 0, greatest = 0;

  g_assert_null (gcuda_context_get_device (context));
  g_assert_cmpuint (gcuda_context_get_handle (context), ==, 0);
  g_assert_false (gcuda_context_is_primary (context));

  g_assert_false (gcuda_context_synchronize (context, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_cmpuint (gcuda_context_get_limit (context, GCUDA_LIMIT_STACK_SIZE, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_false (gcuda_context_set_limit (context, GCUDA_LIMIT_STACK_SIZE, 4096, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_context_get_cache_config (context, &error);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_false (gcuda_context_set_cache_config (context, GCUDA_CACHE_CONFIG_PREFER_L1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_false (gcuda_context_get_memory_info (context, &free_mem, &total, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_false (gcuda_context_get_stream_priority_range (context, &least, &greatest, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_cmpuint (gcuda_context_get_api_version (context, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_false (gcuda_context_enable_peer_access (context, other, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_context_disable_peer_access (context, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_false (gcuda_context_push (context, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_assert_false (gcuda_context_destroy (context, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
}

/* Runs last: proves this program really ran without a driver. */
static void
test_driver_really_absent (void)
{
  g_autoptr(GError) error = NULL;

  if (g_strcmp0 (g_getenv ("GCUDA_DRIVER_LIBRARY"), "/nonexistent/libcuda.so.1") != 0)
    {
      g_test_skip ("run without GCUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1");
      return;
    }
  g_assert_false (gcuda_init (&error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_DRIVER_NOT_FOUND);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/version/macros", test_version_macros);
  g_test_add_func ("/version/cuda", test_version_cuda);
  g_test_add_func ("/errors/quarks", test_error_quarks);
  g_test_add_func ("/errors/driver-error-names", test_driver_error_names);
  g_test_add_func ("/errors/driver-error-categories", test_driver_error_categories);
  g_test_add_func ("/errors/error-categories", test_error_categories);
  g_test_add_func ("/enums/types", test_enum_types);
  g_test_add_func ("/objects/unbound-device", test_unbound_device);
  g_test_add_func ("/objects/unbound-context", test_unbound_context);
  g_test_add_func ("/objects/driver-really-absent", test_driver_really_absent);

  return g_test_run ();
}
