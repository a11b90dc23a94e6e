/* test-device.c: GCudaDevice on a real GPU, and every kind of bad input
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <dlfcn.h>
#include <string.h>

#include "gcuda-cuda-abi-private.h"

#include "gcuda-test-util.h"

#define N_THREADS 8

/* ------------------------------------------------------------ first use */

static GMutex start_lock;
static GCond start_cond;
static gboolean started;

static gpointer
get_device_thread (gpointer data)
{
  GError *error = NULL;
  GCudaDevice *device;

  g_mutex_lock (&start_lock);
  while (!started)
    g_cond_wait (&start_cond, &start_lock);
  g_mutex_unlock (&start_lock);

  device = gcuda_device_get (0, &error);
  if (device == NULL)
    {
      g_assert_nonnull (error);
      return error;  /* handed to the main thread as is */
    }
  g_assert_no_error (error);
  return device;
}

/* Runs first, before anything loaded the driver: 8 threads race for the
 * first gcuda_device_get (0). Either all get the same object, or (no GPU)
 * all get an error. */
static void
test_first_use_concurrent (void)
{
  GThread *threads[N_THREADS];
  gpointer results[N_THREADS];
  gboolean have_gpu;

  for (guint i = 0; i < N_THREADS; i++)
    threads[i] = g_thread_new ("get-device", get_device_thread, NULL);

  g_mutex_lock (&start_lock);
  started = TRUE;
  g_cond_broadcast (&start_cond);
  g_mutex_unlock (&start_lock);

  for (guint i = 0; i < N_THREADS; i++)
    results[i] = g_thread_join (threads[i]);

  have_gpu = gcuda_test_require_gpu ();
  for (guint i = 0; i < N_THREADS; i++)
    {
      if (have_gpu)
        {
          g_assert_true (GCUDA_IS_DEVICE (results[i]));
          g_assert_true (results[i] == results[0]);
          g_object_unref (results[i]);
        }
      else
        g_error_free (results[i]);
    }
  if (have_gpu)
    gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ enumeration */

static void
test_count (void)
{
  g_autoptr(GError) error = NULL;
  int count;

  if (!gcuda_test_require_gpu ())
    return;

  count = gcuda_device_get_count (&error);
  g_assert_no_error (error);
  g_assert_cmpint (count, >=, 1);
  g_assert_cmpint (gcuda_device_get_count (NULL), ==, count);

  g_assert_true (gcuda_init (&error));
  g_assert_no_error (error);
  g_assert_cmpint (gcuda_get_driver_version (&error), >=, 12000);
  g_assert_no_error (error);
  g_test_message ("%d device(s), driver for CUDA %d", count, gcuda_get_driver_version (NULL));
  gcuda_test_assert_no_current_context ();
}

static void
test_get_same_object (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) a = NULL;
  g_autoptr(GCudaDevice) b = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  a = gcuda_device_get (0, &error);
  g_assert_no_error (error);
  b = gcuda_device_get (0, &error);
  g_assert_no_error (error);
  g_assert_true (a == b);
  g_assert_cmpint (gcuda_device_get_ordinal (a), ==, 0);
  gcuda_test_assert_no_current_context ();
}

static void
test_list (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) list = NULL;
  int count;

  if (!gcuda_test_require_gpu ())
    return;

  count = gcuda_device_get_count (&error);
  g_assert_no_error (error);
  list = gcuda_device_list (&error);
  g_assert_no_error (error);
  g_assert_nonnull (list);
  g_assert_cmpuint (list->len, ==, (guint) count);

  for (guint i = 0; i < list->len; i++)
    {
      g_autoptr(GCudaDevice) device = gcuda_device_get ((int) i, &error);

      g_assert_no_error (error);
      g_assert_true (g_ptr_array_index (list, i) == device);
      g_assert_cmpint (gcuda_device_get_ordinal (device), ==, (int) i);
    }
  gcuda_test_assert_no_current_context ();
}

static void
test_by_pci_bus_id (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) list = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  list = gcuda_device_list (&error);
  g_assert_no_error (error);

  for (guint i = 0; i < list->len; i++)
    {
      GCudaDevice *device = g_ptr_array_index (list, i);
      const char *id = gcuda_device_get_pci_bus_id (device);
      g_autoptr(GCudaDevice) found = NULL;

      g_assert_nonnull (id);
      g_test_message ("device %u at %s", i, id);
      found = gcuda_device_get_by_pci_bus_id (id, &error);
      g_assert_no_error (error);
      g_assert_true (found == device);
    }
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ properties */

static gboolean
is_hex (const char *s,
        gsize       n)
{
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isxdigit (s[i]) || g_ascii_isupper (s[i]))
      return FALSE;
  return TRUE;
}

static void
test_properties (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autofree char *name = NULL;
  g_autofree char *pci = NULL;
  g_autofree char *uuid = NULL;
  int ordinal = -1, major = -1, minor = -1, sms = -1, threads = -1, warp = -1;
  guint64 total = 0;
  GCudaComputeMode mode = 99;
  const char *u;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  g_object_get (device,
                "ordinal", &ordinal,
                "name", &name,
                "pci-bus-id", &pci,
                "uuid", &uuid,
                "compute-capability-major", &major,
                "compute-capability-minor", &minor,
                "total-memory", &total,
                "multiprocessor-count", &sms,
                "max-threads-per-block", &threads,
                "warp-size", &warp,
                "compute-mode", &mode,
                NULL);
  g_test_message ("%s, %s, uuid %s, sm_%d%d, %" G_GUINT64_FORMAT " bytes, %d SMs",
                  name, pci, uuid, major, minor, total, sms);

  /* properties == getters == the driver's attributes */
  g_assert_cmpint (ordinal, ==, 0);
  g_assert_cmpstr (name, ==, gcuda_device_get_name (device));
  g_assert_cmpstr (name, !=, "");
  g_assert_cmpstr (pci, ==, gcuda_device_get_pci_bus_id (device));
  g_assert_cmpstr (uuid, ==, gcuda_device_get_uuid (device));
  g_assert_cmpuint (total, ==, gcuda_device_get_total_memory (device));
  g_assert_cmpuint (total, >, 0);

  g_assert_cmpint (major, >=, 3);
  g_assert_cmpint (major, ==, gcuda_device_get_attribute (device, GCUDA_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &error));
  g_assert_no_error (error);
  g_assert_cmpint (minor, ==, gcuda_device_get_attribute (device, GCUDA_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &error));
  g_assert_no_error (error);
  {
    int gmajor = -1, gminor = -1;
    gcuda_device_get_compute_capability (device, &gmajor, &gminor);
    g_assert_cmpint (gmajor, ==, major);
    g_assert_cmpint (gminor, ==, minor);
    gcuda_device_get_compute_capability (device, NULL, NULL);
  }

  g_assert_cmpint (sms, >, 0);
  g_assert_cmpint (sms, ==, gcuda_device_get_multiprocessor_count (device));
  g_assert_cmpint (sms, ==, gcuda_device_get_attribute (device, GCUDA_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &error));
  g_assert_no_error (error);
  g_assert_cmpint (threads, ==, gcuda_device_get_max_threads_per_block (device));
  g_assert_cmpint (threads, ==, gcuda_device_get_attribute (device, GCUDA_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &error));
  g_assert_no_error (error);
  g_assert_cmpint (threads, >=, 512);
  g_assert_cmpint (warp, ==, gcuda_device_get_warp_size (device));
  g_assert_cmpint (warp, ==, gcuda_device_get_attribute (device, GCUDA_DEVICE_ATTRIBUTE_WARP_SIZE, &error));
  g_assert_no_error (error);
  g_assert_cmpint (warp, ==, 32);

  g_assert_cmpint (mode, ==, gcuda_device_get_compute_mode (device));
  g_assert_cmpint (mode, ==, gcuda_device_get_attribute (device, GCUDA_DEVICE_ATTRIBUTE_COMPUTE_MODE, &error));
  g_assert_no_error (error);
  {
    g_autoptr(GEnumClass) modes = g_type_class_ref (GCUDA_TYPE_COMPUTE_MODE);
    g_assert_nonnull (g_enum_get_value (modes, mode));
  }

  /* PCI bus id: dddd:bb:dd.f in lower-case hexadecimal (the domain may
   * have 4 or 8 digits) */
  {
    const char *p = strchr (pci, ':');
    gsize domain = p ? (gsize) (p - pci) : 0;

    g_assert_true (domain == 4 || domain == 8);
    g_assert_cmpuint (strlen (pci), ==, domain + 8);
    g_assert_true (is_hex (pci, domain) && p[0] == ':' && is_hex (p + 1, 2) && p[3] == ':' &&
                   is_hex (p + 4, 2) && p[6] == '.' && is_hex (p + 7, 1));
  }

  /* UUID: 8-4-4-4-12 lower-case hexadecimal, not all zero */
  g_assert_cmpuint (strlen (uuid), ==, 36);
  u = uuid;
  g_assert_true (is_hex (u, 8) && u[8] == '-' && is_hex (u + 9, 4) && u[13] == '-' &&
                 is_hex (u + 14, 4) && u[18] == '-' && is_hex (u + 19, 4) && u[23] == '-' &&
                 is_hex (u + 24, 12));
  g_assert_cmpstr (uuid, !=, "00000000-0000-0000-0000-000000000000");

  if (strstr (name, "H100") != NULL)
    {
      g_assert_cmpint (major, ==, 9);
      g_assert_cmpint (minor, ==, 0);
      g_assert_cmpuint (total, >, G_GUINT64_CONSTANT (70000000000));
      g_assert_cmpint (threads, ==, 1024);
    }
  gcuda_test_assert_no_current_context ();
}

static void
test_attributes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GHashTable) attrs = NULL;
  g_autoptr(GEnumClass) klass = g_type_class_ref (GCUDA_TYPE_DEVICE_ATTRIBUTE);
  GHashTableIter iter;
  gpointer key, value;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  attrs = gcuda_device_get_attributes (device, &error);
  g_assert_no_error (error);
  g_assert_nonnull (attrs);
  g_test_message ("%u attributes", g_hash_table_size (attrs));
  g_assert_cmpuint (g_hash_table_size (attrs), >, 100);

  g_assert_true (g_hash_table_lookup_extended (attrs, "max_threads_per_block", NULL, &value));
  g_assert_cmpint (GPOINTER_TO_INT (value), ==, gcuda_device_get_max_threads_per_block (device));
  g_assert_true (g_hash_table_lookup_extended (attrs, "warp_size", NULL, &value));
  g_assert_cmpint (GPOINTER_TO_INT (value), ==, 32);
  g_assert_true (g_hash_table_lookup_extended (attrs, "compute_capability_major", NULL, &value));
  g_assert_cmpint (GPOINTER_TO_INT (value), ==,
                   gcuda_device_get_attribute (device, GCUDA_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, NULL));

  /* every entry is an attribute's name, with the value get_attribute() reads */
  g_hash_table_iter_init (&iter, attrs);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autofree char *nick = g_strdelimit (g_strdup (key), "_", '-');
      const GEnumValue *v = g_enum_get_value_by_nick (klass, nick);
      int direct;

      if (v == NULL)
        g_error ("“%s” is not the name of a GCudaDeviceAttribute", (const char *) key);
      direct = gcuda_device_get_attribute (device, v->value, &error);
      g_assert_no_error (error);
      if (direct != GPOINTER_TO_INT (value))
        g_error ("%s: get_attributes() says %d, get_attribute() says %d",
                 (const char *) key, GPOINTER_TO_INT (value), direct);
    }
  gcuda_test_assert_no_current_context ();
}

/* get_attributes() lists each value under its current name, not under a
 * deprecated alias (cuda.h marks the aliases "Deprecated"). */
static void
test_attributes_current_names (void)
{
  static const struct { const char *current; const char *deprecated; } aliases[] = {
    { "max_shared_memory_per_block", "shared_memory_per_block" },
    { "max_registers_per_block", "registers_per_block" },
    { "maximum_texture2d_layered_width", "maximum_texture2d_array_width" },
    { "maximum_texture2d_layered_height", "maximum_texture2d_array_height" },
    { "maximum_texture2d_layered_layers", "maximum_texture2d_array_numslices" },
    { "virtual_memory_management_supported", "virtual_address_management_supported" },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GHashTable) attrs = NULL;
  g_autoptr(GString) wrong = g_string_new (NULL);

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  attrs = gcuda_device_get_attributes (device, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    {
      if (g_hash_table_contains (attrs, aliases[i].deprecated) ||
          !g_hash_table_contains (attrs, aliases[i].current))
        g_string_append_printf (wrong, " %s (listed as %s)", aliases[i].current,
                                g_hash_table_contains (attrs, aliases[i].deprecated) ? aliases[i].deprecated : "nothing");
    }
  if (wrong->len > 0)
    g_test_fail_printf ("deprecated names listed:%s", wrong->str);
  gcuda_test_assert_no_current_context ();
}

static void
test_every_attribute (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GEnumClass) klass = g_type_class_ref (GCUDA_TYPE_DEVICE_ATTRIBUTE);
  guint supported = 0;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  /* every value of the enum is accepted; the driver may not support one,
   * which is then its own error, never GCuda's INVALID_ARGUMENT */
  for (guint i = 0; i < klass->n_values; i++)
    {
      g_autoptr(GError) error = NULL;

      gcuda_device_get_attribute (device, klass->values[i].value, &error);
      if (error == NULL)
        supported++;
      else if (error->domain != GCUDA_DRIVER_ERROR)
        g_error ("%s: %s", klass->values[i].value_name, error->message);
    }
  g_assert_cmpuint (supported, >, 100);
  gcuda_test_assert_no_current_context ();
}

static void
test_equal_hash (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) a = NULL;
  g_autoptr(GCudaDevice) b = NULL;
  g_autoptr(GCudaDevice) unbound = g_object_new (GCUDA_TYPE_DEVICE, NULL);
  g_autoptr(GHashTable) set = NULL;
  int count;

  if (!gcuda_test_require_gpu ())
    return;

  a = gcuda_test_get_device ();
  b = gcuda_test_get_device ();
  g_assert_true (gcuda_device_equal (a, b));
  g_assert_cmpuint (gcuda_device_hash (a), ==, gcuda_device_hash (b));
  g_assert_false (gcuda_device_equal (a, unbound));
  g_assert_false (gcuda_device_equal (unbound, a));

  set = g_hash_table_new ((GHashFunc) gcuda_device_hash, (GEqualFunc) gcuda_device_equal);
  g_hash_table_add (set, a);
  g_assert_true (g_hash_table_contains (set, b));

  count = gcuda_device_get_count (&error);
  g_assert_no_error (error);
  if (count >= 2)
    {
      g_autoptr(GCudaDevice) other = gcuda_device_get (1, &error);

      g_assert_no_error (error);
      g_assert_false (gcuda_device_equal (a, other));
      g_assert_false (g_hash_table_contains (set, other));
    }
  gcuda_test_assert_no_current_context ();
}

static void
test_can_access_peer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaDevice) unbound = g_object_new (GCUDA_TYPE_DEVICE, NULL);
  int count;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();

  /* a device is never its own peer */
  g_assert_false (gcuda_device_can_access_peer (device, device, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_device_can_access_peer (device, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_device_can_access_peer (device, unbound, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  count = gcuda_device_get_count (&error);
  g_assert_no_error (error);
  if (count >= 2)
    {
      g_autoptr(GCudaDevice) other = gcuda_device_get (1, &error);
      gboolean can;

      g_assert_no_error (error);
      can = gcuda_device_can_access_peer (device, other, &error);
      g_assert_no_error (error);
      g_test_message ("device 0 %s access device 1", can ? "can" : "cannot");
    }
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ bad input */

static void
test_bad_ordinal (void)
{
  const int ordinals[] = { -1, 1000, G_MAXINT, G_MININT };
  g_autoptr(GError) error = NULL;
  int count;

  if (!gcuda_test_require_gpu ())
    return;

  count = gcuda_device_get_count (&error);
  g_assert_no_error (error);

  for (guint i = 0; i <= G_N_ELEMENTS (ordinals); i++)
    {
      int ordinal = i < G_N_ELEMENTS (ordinals) ? ordinals[i] : count;
      g_autoptr(GCudaDevice) device = gcuda_device_get (ordinal, &error);

      g_assert_null (device);
      gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_DEVICE);
      g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_LOGIC);
      g_clear_error (&error);
    }
  gcuda_test_assert_no_current_context ();
}

static void
test_bad_pci_bus_id (void)
{
  const char *malformed[] = {
    "", "zz", "0000:41:00", "1:2:3:4.0", "0000:gg:00.0", ":", "0000::00.0", "0000:41:00.",
    "0000:41:.0", "0000:41:00.0.1", "0000:41:00.x", "0000 :41:00.0", "000000000:41:00.0",
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  for (guint i = 0; i < G_N_ELEMENTS (malformed); i++)
    {
      g_test_message ("“%s”", malformed[i]);
      device = gcuda_device_get_by_pci_bus_id (malformed[i], &error);
      g_assert_null (device);
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    }

  device = gcuda_device_get_by_pci_bus_id (NULL, &error);
  g_assert_null (device);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* well-formed, but no GPU there: the driver's error */
  device = gcuda_device_get_by_pci_bus_id ("0000:ff:1f.7", &error);
  g_assert_null (device);
  g_assert_nonnull (error);
  g_test_message ("absent device: %s", error->message);
  g_assert_cmpstr (g_quark_to_string (error->domain), ==, "gcuda-driver-error-quark");
  g_assert_cmpint (error->code, !=, 0);
  g_clear_error (&error);
  gcuda_test_assert_no_current_context ();
}

static void
test_bad_attribute (void)
{
  const int values[] = { 0, 9999, -1, G_MAXINT, G_MININT };
  g_autoptr(GCudaDevice) device = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_cmpint (gcuda_device_get_attribute (device, (GCudaDeviceAttribute) values[i], &error), ==, 0);
      gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    }
  gcuda_test_assert_no_current_context ();
}

static void
test_bad_context_flags (void)
{
  const guint flags[] = {
    GCUDA_CONTEXT_FLAGS_SCHED_SPIN | GCUDA_CONTEXT_FLAGS_SCHED_YIELD,
    GCUDA_CONTEXT_FLAGS_SCHED_SPIN | GCUDA_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC,
    GCUDA_CONTEXT_FLAGS_SCHED_YIELD | GCUDA_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC,
    0x7,
    0x1000,
    0x100,
    0x80000000u,
  };
  g_autoptr(GCudaDevice) device = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  for (guint i = 0; i < G_N_ELEMENTS (flags); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GCudaContext) context = NULL;

      g_test_message ("flags 0x%x", flags[i]);
      context = gcuda_device_create_context (device, (GCudaContextFlags) flags[i], &error);
      g_assert_null (context);
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

      g_assert_false (gcuda_device_set_primary_context_flags (device, (GCudaContextFlags) flags[i], &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
    }
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ contexts made by others */

/* The driver, opened the way GCuda opens it, for calls GCuda does not make:
 * this plays "another CUDA library" (the runtime, CuPy) in the process. */
typedef struct {
  PFN_cuDeviceGet_v2000 DeviceGet;
  PFN_cuDevicePrimaryCtxRetain_v7000 PrimaryCtxRetain;
  PFN_cuDevicePrimaryCtxRelease_v11000 PrimaryCtxRelease;
  PFN_cuCtxCreate_v12050 CtxCreate;
  PFN_cuCtxDestroy_v4000 CtxDestroy;
  PFN_cuCtxPushCurrent_v4000 CtxPushCurrent;
  PFN_cuCtxPopCurrent_v4000 CtxPopCurrent;
} RawDriver;

static void
raw_driver_open (RawDriver *raw)
{
  const char *name = g_getenv ("GCUDA_DRIVER_LIBRARY");
  void *lib = dlopen (name && *name ? name : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  PFN_cuGetProcAddress_v12000 get_proc;

  g_assert_nonnull (lib);
  get_proc = (PFN_cuGetProcAddress_v12000) dlsym (lib, "cuGetProcAddress_v2");
  g_assert_nonnull (get_proc);
  /* each at the ABI version of its PFN type, as GCuda's loader asks */
#define RESOLVE(field, fname, version) \
  G_STMT_START { \
    void *pfn = NULL; \
    CUdriverProcAddressQueryResult status; \
    g_assert_cmpint (get_proc (#fname, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status), ==, CUDA_SUCCESS); \
    g_assert_nonnull (pfn); \
    raw->field = (__typeof__ (raw->field)) pfn; \
  } G_STMT_END
  RESOLVE (DeviceGet, cuDeviceGet, 2000);
  RESOLVE (PrimaryCtxRetain, cuDevicePrimaryCtxRetain, 7000);
  RESOLVE (PrimaryCtxRelease, cuDevicePrimaryCtxRelease, 11000);
  RESOLVE (CtxCreate, cuCtxCreate, 12050);
  RESOLVE (CtxDestroy, cuCtxDestroy, 4000);
  RESOLVE (CtxPushCurrent, cuCtxPushCurrent, 4000);
  RESOLVE (CtxPopCurrent, cuCtxPopCurrent, 4000);
#undef RESOLVE
  /* the library stays open, as GCuda keeps it */
}

/* Another library retained device 0's primary context and made it current:
 * gcuda_context_get_current() knows it as device 0's primary context. A
 * dedicated context GCuda did not make is not known: NULL. This program makes
 * no GCudaContext before, so nothing is in GCuda's registry yet. */
static void
test_foreign_current (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  RawDriver raw;
  CUdevice dev;
  CUcontext primary = NULL, dedicated = NULL, popped = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  raw_driver_open (&raw);
  g_assert_cmpint (raw.DeviceGet (&dev, 0), ==, CUDA_SUCCESS);

  g_assert_cmpint (raw.PrimaryCtxRetain (&primary, dev), ==, CUDA_SUCCESS);
  g_assert_cmpint (raw.CtxPushCurrent (primary), ==, CUDA_SUCCESS);
  {
    g_autoptr(GCudaContext) current = gcuda_context_get_current (&error);
    g_autoptr(GCudaContext) again = NULL;
    g_autoptr(GCudaContext) via_device = NULL;

    g_assert_no_error (error);
    g_assert_nonnull (current);
    g_assert_cmpuint (gcuda_context_get_handle (current), ==, (guint64) (guintptr) primary);
    g_assert_true (gcuda_context_is_primary (current));
    g_assert_true (gcuda_context_get_device (current) == device);
    g_assert_true (gcuda_context_synchronize (current, &error));
    g_assert_no_error (error);

    /* the same object every time, and the device's primary context object */
    again = gcuda_context_get_current (&error);
    g_assert_no_error (error);
    g_assert_true (again == current);
    via_device = gcuda_device_get_primary_context (device, &error);
    g_assert_no_error (error);
    g_assert_true (via_device == current);
  }
  g_assert_cmpint (raw.CtxPopCurrent (&popped), ==, CUDA_SUCCESS);
  g_assert_true (popped == primary);
  gcuda_test_assert_no_current_context ();

  g_assert_cmpint (raw.CtxCreate (&dedicated, NULL, 0, dev), ==, CUDA_SUCCESS);  /* pushes it */
  {
    g_autoptr(GCudaContext) current = gcuda_context_get_current (&error);

    g_assert_no_error (error);
    g_assert_null (current);
  }
  g_assert_cmpint (raw.CtxPopCurrent (&popped), ==, CUDA_SUCCESS);
  g_assert_true (popped == dedicated);
  g_assert_cmpint (raw.CtxDestroy (dedicated), ==, CUDA_SUCCESS);

  /* GCuda's own retain is separate from the other library's */
  g_assert_cmpint (raw.PrimaryCtxRelease (dev), ==, CUDA_SUCCESS);
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/device/first-use-concurrent", test_first_use_concurrent);
  g_test_add_func ("/device/count", test_count);
  g_test_add_func ("/device/get-same-object", test_get_same_object);
  g_test_add_func ("/device/list", test_list);
  g_test_add_func ("/device/by-pci-bus-id", test_by_pci_bus_id);
  g_test_add_func ("/device/properties", test_properties);
  g_test_add_func ("/device/attributes", test_attributes);
  g_test_add_func ("/device/every-attribute", test_every_attribute);
  g_test_add_func ("/device/equal-hash", test_equal_hash);
  g_test_add_func ("/device/can-access-peer", test_can_access_peer);
  g_test_add_func ("/device/bad-input/ordinal", test_bad_ordinal);
  g_test_add_func ("/device/bad-input/pci-bus-id", test_bad_pci_bus_id);
  g_test_add_func ("/device/bad-input/attribute", test_bad_attribute);
  g_test_add_func ("/device/bad-input/context-flags", test_bad_context_flags);
  g_test_add_func ("/device/foreign-current-context", test_foreign_current);
  g_test_add_func ("/device/attributes-current-names", test_attributes_current_names);

  return g_test_run ();
}
