/* test-context.c: GCudaContext on a real GPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-test-async.h"
#include "gcuda-test-memory.h"
#include "gcuda-test-util.h"

/* ------------------------------------------------------------ default and primary */

static void
test_default (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) a = NULL;
  g_autoptr(GCudaContext) b = NULL;
  g_autoptr(GCudaContext) primary = NULL;
  g_autoptr(GCudaDevice) device_prop = NULL;
  gboolean is_primary = FALSE;
  guint64 handle = 0;
  GCudaDevice *device;

  if (!gcuda_test_require_gpu ())
    return;

  a = get_default ();
  b = get_default ();
  g_assert_true (a == b);
  g_assert_true (gcuda_context_is_primary (a));
  g_assert_false (gcuda_context_is_destroyed (a));
  g_assert_cmpuint (gcuda_context_get_handle (a), !=, 0);

  device = gcuda_context_get_device (a);
  g_assert_true (GCUDA_IS_DEVICE (device));
  g_assert_cmpint (gcuda_device_get_ordinal (device), >=, 0);

  g_object_get (a, "device", &device_prop, "primary", &is_primary, "handle", &handle, NULL);
  g_assert_true (device_prop == device);
  g_assert_true (is_primary);
  g_assert_cmpuint (handle, ==, gcuda_context_get_handle (a));

  /* the device's primary context is the default's object while it lives */
  primary = gcuda_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  g_assert_true (primary == a);

  /* no context is left current by any of this */
  gcuda_test_assert_no_current_context ();
}

static void
test_primary_shared (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaContext) p1 = NULL;
  g_autoptr(GCudaContext) p2 = NULL;
  GCudaContextFlags flags = 0;
  gboolean active = FALSE;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  p1 = gcuda_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  p2 = gcuda_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  g_assert_true (p1 == p2);
  g_assert_cmpuint (gcuda_context_get_handle (p1), ==, gcuda_context_get_handle (p2));
  g_assert_true (gcuda_context_is_primary (p1));
  g_assert_true (gcuda_context_get_device (p1) == device);

  gcuda_device_get_primary_context_state (device, &flags, &active, &error);
  g_assert_no_error (error);
  g_assert_true (active);
  gcuda_device_get_primary_context_state (device, NULL, NULL, &error);
  g_assert_no_error (error);

  g_assert_true (gcuda_context_synchronize (p1, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

static void
test_primary_flags (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  GCudaContextFlags flags = 0, before = 0;
  gboolean active = FALSE;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  gcuda_device_get_primary_context_state (device, &before, &active, &error);
  g_assert_no_error (error);

  g_test_message ("primary context flags 0x%x, %s", before, active ? "active" : "inactive");

  /* the scheduling flags can be changed while the primary context is active
   * (cuDevicePrimaryCtxSetFlags_v2) */
  g_assert_true (gcuda_device_set_primary_context_flags (device, (before & 0xf8) | GCUDA_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC,
                                                         &error));
  g_assert_no_error (error);
  gcuda_device_get_primary_context_state (device, &flags, &active, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (flags & 0x7, ==, GCUDA_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC);

  g_assert_true (gcuda_device_set_primary_context_flags (device, before & 0xff, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ dedicated contexts */

static void
assert_destroyed_everywhere (GCudaContext *context,
                             GCudaContext *live)
{
  g_autoptr(GError) error = NULL;
  guint64 free_mem = 0, total = 0;
  int least = 0, greatest = 0;

  g_assert_true (gcuda_context_is_destroyed (context));

  g_assert_false (gcuda_context_synchronize (context, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_cmpuint (gcuda_context_get_limit (context, GCUDA_LIMIT_STACK_SIZE, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_context_set_limit (context, GCUDA_LIMIT_STACK_SIZE, 4096, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  gcuda_context_get_cache_config (context, &error);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_context_set_cache_config (context, GCUDA_CACHE_CONFIG_PREFER_L1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  gcuda_context_get_memory_info (context, &free_mem, &total, &error);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  gcuda_context_get_stream_priority_range (context, &least, &greatest, &error);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_cmpuint (gcuda_context_get_api_version (context, &error), ==, 0);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_context_push (context, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_context_enable_peer_access (live, context, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_context_enable_peer_access (context, live, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  /* destroying twice is harmless */
  g_assert_true (gcuda_context_destroy (context, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_context_is_destroyed (context));
}

static void
test_dedicated (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) primary = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  guint64 free_mem = 0, total = 0;

  if (!gcuda_test_require_gpu ())
    return;

  primary = get_default ();
  device = g_object_ref (gcuda_context_get_device (primary));
  dedicated = create_dedicated (device, 0);
  gcuda_test_assert_no_current_context ();  /* cuCtxCreate's push was undone */

  g_assert_cmpuint (gcuda_context_get_handle (dedicated), !=, 0);
  g_assert_cmpuint (gcuda_context_get_handle (dedicated), !=, gcuda_context_get_handle (primary));
  g_assert_false (gcuda_context_is_primary (dedicated));
  g_assert_false (gcuda_context_is_destroyed (dedicated));
  g_assert_true (gcuda_context_get_device (dedicated) == device);
  g_assert_cmpuint (gcuda_context_get_flags (dedicated), ==, 0);

  g_assert_true (gcuda_context_synchronize (dedicated, &error));
  g_assert_no_error (error);
  gcuda_context_get_memory_info (dedicated, &free_mem, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (free_mem, <=, total);
  g_assert_cmpuint (gcuda_context_get_api_version (dedicated, &error), >, 0);
  g_assert_no_error (error);

  /* a second dedicated context is yet another one */
  {
    g_autoptr(GCudaContext) second = create_dedicated (device, GCUDA_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC |
                                                               GCUDA_CONTEXT_FLAGS_LMEM_RESIZE_TO_MAX);
    g_assert_cmpuint (gcuda_context_get_handle (second), !=, gcuda_context_get_handle (dedicated));
    g_assert_cmpuint (gcuda_context_get_handle (second), !=, gcuda_context_get_handle (primary));
    g_assert_cmpuint (gcuda_context_get_flags (second), ==,
                      GCUDA_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC | GCUDA_CONTEXT_FLAGS_LMEM_RESIZE_TO_MAX);
    g_assert_true (gcuda_context_synchronize (second, &error));
    g_assert_no_error (error);
    /* dropped without gcuda_context_destroy(): finalize destroys it */
  }

  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  assert_destroyed_everywhere (dedicated, primary);

  /* the primary context is independent and still works */
  g_assert_false (gcuda_context_is_destroyed (primary));
  g_assert_true (gcuda_context_synchronize (primary, &error));
  g_assert_no_error (error);
  gcuda_context_get_memory_info (primary, &free_mem, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (free_mem, <=, total);
  gcuda_test_assert_no_current_context ();
}

static gpointer
unref_thread (gpointer data)
{
  g_object_unref (data);  /* the last reference: finalize on this thread */
  gcuda_test_assert_no_current_context ();
  return NULL;
}

static void
test_finalize_other_thread (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  GCudaContext *dedicated;
  GError *error = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  dedicated = create_dedicated (device, 0);
  g_assert_true (gcuda_context_synchronize (dedicated, &error));
  g_assert_no_error (error);
  g_thread_join (g_thread_new ("unref", unref_thread, dedicated));
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ limits, cache, info */

static void
test_limits (void)
{
  static const struct { GCudaLimit limit; guint64 value; } round_trip[] = {
    { GCUDA_LIMIT_STACK_SIZE, 4096 },
    { GCUDA_LIMIT_MALLOC_HEAP_SIZE, 64 * MiB },
    { GCUDA_LIMIT_PRINTF_FIFO_SIZE, 4 * MiB },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GEnumClass) limits = g_type_class_ref (GCUDA_TYPE_LIMIT);

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  context = create_dedicated (device, 0);

  for (guint i = 0; i < G_N_ELEMENTS (round_trip); i++)
    {
      guint64 before, after, value;

      before = gcuda_context_get_limit (context, round_trip[i].limit, &error);
      g_assert_no_error (error);
      value = MAX (round_trip[i].value, 2 * before);  /* a visible change */
      g_assert_true (gcuda_context_set_limit (context, round_trip[i].limit, value, &error));
      g_assert_no_error (error);
      after = gcuda_context_get_limit (context, round_trip[i].limit, &error);
      g_assert_no_error (error);
      g_test_message ("limit %d: %" G_GUINT64_FORMAT " -> set %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT,
                      round_trip[i].limit, before, value, after);
      g_assert_cmpuint (after, >=, value);
    }

  /* every CUlimit is accepted by GCuda; the driver may refuse one (CIG
   * limits on a context that is not CIG), with its own error */
  for (guint i = 0; i < limits->n_values; i++)
    {
      g_autoptr(GError) e = NULL;
      guint64 v = gcuda_context_get_limit (context, limits->values[i].value, &e);

      if (e != NULL && e->domain != GCUDA_DRIVER_ERROR)
        g_error ("%s: %s", limits->values[i].value_name, e->message);
      g_test_message ("%s = %" G_GUINT64_FORMAT "%s", limits->values[i].value_nick, v, e ? " (refused)" : "");
    }

  /* values that are not limits */
  {
    const int bad[] = { 10, 99, -1, G_MAXINT };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_assert_cmpuint (gcuda_context_get_limit (context, (GCudaLimit) bad[i], &error), ==, 0);
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
        g_assert_false (gcuda_context_set_limit (context, (GCudaLimit) bad[i], 1024, &error));
        gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
      }
  }

  g_assert_true (gcuda_context_destroy (context, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

static void
test_cache_config (void)
{
  static const GCudaCacheConfig configs[] = {
    GCUDA_CACHE_CONFIG_PREFER_SHARED, GCUDA_CACHE_CONFIG_PREFER_L1,
    GCUDA_CACHE_CONFIG_PREFER_EQUAL, GCUDA_CACHE_CONFIG_PREFER_NONE,
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaContext) context = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  device = gcuda_test_get_device ();
  context = create_dedicated (device, 0);

  for (guint i = 0; i < G_N_ELEMENTS (configs); i++)
    {
      GCudaCacheConfig got;

      g_assert_true (gcuda_context_set_cache_config (context, configs[i], &error));
      g_assert_no_error (error);
      got = gcuda_context_get_cache_config (context, &error);
      g_assert_no_error (error);
      g_test_message ("set %d, read %d", configs[i], got);
      /* The driver keeps the preference; on a device whose L1/shared split
       * is fixed it reads back PREFER_NONE (cuCtxGetCacheConfig docs). */
      if (got != configs[i])
        g_assert_cmpint (got, ==, GCUDA_CACHE_CONFIG_PREFER_NONE);
    }

  g_assert_false (gcuda_context_set_cache_config (context, (GCudaCacheConfig) 99, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_context_set_cache_config (context, (GCudaCacheConfig) -1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  gcuda_test_assert_no_current_context ();
}

static void
test_memory_info (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = NULL;
  guint64 free_mem = 0, total = 0, device_total;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  device_total = gcuda_device_get_total_memory (gcuda_context_get_device (context));

  gcuda_context_get_memory_info (context, &free_mem, &total, &error);
  g_assert_no_error (error);
  g_test_message ("free %" G_GUINT64_FORMAT ", total %" G_GUINT64_FORMAT ", device %" G_GUINT64_FORMAT,
                  free_mem, total, device_total);
  g_assert_cmpuint (free_mem, >, 0);
  g_assert_cmpuint (free_mem, <=, total);
  /* the device's memory (within 2 %, in case a driver counts a reservation) */
  g_assert_cmpuint (total, <=, device_total + device_total / 50);
  g_assert_cmpuint (total, >=, device_total - device_total / 50);

  /* out arguments are optional */
  gcuda_context_get_memory_info (context, NULL, NULL, &error);
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

static void
test_stream_priority_range (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = NULL;
  int least = 1000, greatest = 1000;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  gcuda_context_get_stream_priority_range (context, &least, &greatest, &error);
  g_assert_no_error (error);
  g_test_message ("least %d, greatest %d", least, greatest);
  g_assert_cmpint (greatest, <=, least);
  g_assert_cmpint (least, !=, 1000);
  gcuda_test_assert_no_current_context ();
}

static void
test_api_version (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = NULL;
  guint version;

  if (!gcuda_test_require_gpu ())
    return;

  context = get_default ();
  version = gcuda_context_get_api_version (context, &error);
  g_assert_no_error (error);
  g_test_message ("API version %u", version);
  g_assert_cmpuint (version, >, 0);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ push / pop / current */

static void
assert_current (GCudaContext *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) current = gcuda_context_get_current (&error);

  g_assert_no_error (error);
  g_assert_true (current == expected);
}

static void
test_push_pop (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) primary = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;
  guint64 free_mem = 0;

  if (!gcuda_test_require_gpu ())
    return;

  primary = get_default ();
  dedicated = create_dedicated (gcuda_context_get_device (primary), 0);
  assert_current (NULL);

  g_assert_true (gcuda_context_push (primary, &error));
  g_assert_no_error (error);
  assert_current (primary);

  g_assert_true (gcuda_context_push (dedicated, &error));
  g_assert_no_error (error);
  assert_current (dedicated);

  /* GCuda calls on another context leave the caller's current one alone */
  g_assert_true (gcuda_context_synchronize (primary, &error));
  g_assert_no_error (error);
  gcuda_context_get_memory_info (primary, &free_mem, NULL, &error);
  g_assert_no_error (error);
  gcuda_context_get_limit (primary, GCUDA_LIMIT_STACK_SIZE, &error);
  g_assert_no_error (error);
  assert_current (dedicated);
  /* … and on the current one too */
  g_assert_true (gcuda_context_synchronize (dedicated, &error));
  g_assert_no_error (error);
  assert_current (dedicated);

  g_assert_true (gcuda_context_pop (&error));
  g_assert_no_error (error);
  assert_current (primary);

  g_assert_true (gcuda_context_pop (&error));
  g_assert_no_error (error);
  assert_current (NULL);

  /* nothing left to pop */
  g_assert_false (gcuda_context_pop (&error));
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_CONTEXT);
  g_clear_error (&error);
  assert_current (NULL);

  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ peer access */

static void
test_peer_access (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) primary = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaContext) unbound = g_object_new (GCUDA_TYPE_CONTEXT, NULL);
  int count;

  if (!gcuda_test_require_gpu ())
    return;

  primary = get_default ();

  /* not to itself */
  g_assert_false (gcuda_context_enable_peer_access (primary, primary, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_context_disable_peer_access (primary, primary, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_context_enable_peer_access (primary, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_context_enable_peer_access (primary, unbound, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* nor to another context on the same device */
  dedicated = create_dedicated (gcuda_context_get_device (primary), 0);
  g_assert_false (gcuda_context_enable_peer_access (primary, dedicated, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_context_enable_peer_access (dedicated, primary, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  count = gcuda_device_get_count (&error);
  g_assert_no_error (error);
  if (count >= 2)
    {
      g_autoptr(GCudaDevice) d0 = gcuda_device_get (0, &error);
      g_autoptr(GCudaDevice) d1 = gcuda_device_get (1, &error);
      g_autoptr(GCudaContext) c0 = NULL;
      g_autoptr(GCudaContext) c1 = NULL;

      g_assert_no_error (error);
      c0 = gcuda_device_get_primary_context (d0, &error);
      g_assert_no_error (error);
      c1 = gcuda_device_get_primary_context (d1, &error);
      g_assert_no_error (error);
      if (gcuda_device_can_access_peer (d0, d1, &error))
        {
          g_assert_true (gcuda_context_enable_peer_access (c0, c1, &error));
          g_assert_no_error (error);
          g_assert_false (gcuda_context_enable_peer_access (c0, c1, &error));
          gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_PEER_ACCESS_ALREADY_ENABLED);
          g_assert_true (gcuda_context_disable_peer_access (c0, c1, &error));
          g_assert_no_error (error);
        }
      g_assert_no_error (error);
    }
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ destroying a primary context */

/* The objects of a destroyed primary context keep its retain: they give
 * their memory back with the context still there (nothing leaks in a
 * primary context that lives on, under another object or the CUDA
 * runtime), and the retain goes after the last of them. With the mock
 * driver its accounting shows it; on a GPU, compute-sanitizer
 * --leak-check full reports nothing for this case. */
static void
test_destroy_primary (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaHostMemoryPool) host_pool = NULL;
  g_autoptr(GCudaMemoryPool) pool = NULL;
  GCudaContext *primary, *fresh;
  GCudaBuffer *buffer, *pooled, *managed;
  GCudaHostBuffer *host;
  gsize live0, leaks0, live, leaks;
  GCudaContextFlags flags = 0;
  guint64 block = 0;
  gboolean active = TRUE;

  if (!gcuda_test_require_gpu ())
    return;
  device = gcuda_test_get_device ();
  mock_memory_counts (&live0, &leaks0);

  primary = gcuda_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  buffer = new_buffer (primary, 4096);
  host = new_pagelocked (primary, 4096);
  managed = gcuda_buffer_new_managed (primary, 4096, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, &error);
  g_assert_no_error (error);
  pool = gcuda_memory_pool_new (primary);
  pooled = gcuda_memory_pool_allocate (pool, 1000, &error);
  g_assert_no_error (error);
  host_pool = gcuda_host_memory_pool_new (primary, GCUDA_HOST_ALLOC_FLAGS_DEFAULT);
  block = gcuda_host_memory_pool_allocate_address (host_pool, 1000, &error);
  g_assert_no_error (error);

  g_assert_true (gcuda_context_destroy (primary, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_context_is_destroyed (primary));
  g_assert_null (gcuda_buffer_download (buffer, 0, 1, &error));
  g_clear_error (&error);

  /* a new object for the device's primary context: a retain of its own */
  fresh = gcuda_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  g_assert_true (fresh != primary);
  g_assert_cmpuint (gcuda_context_get_handle (fresh), ==, gcuda_context_get_handle (primary));

  /* freed or dropped, the old objects give their memory back */
  g_assert_true (gcuda_buffer_free (buffer, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_free (pooled, &error));
  g_assert_no_error (error);
  g_object_unref (host);
  g_object_unref (managed);
  g_assert_true (gcuda_host_memory_pool_free_address (host_pool, block, &error));
  g_assert_no_error (error);
  g_clear_object (&host_pool);
  g_clear_object (&pool);
  g_object_unref (pooled);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0);
  g_assert_cmpuint (leaks, ==, leaks0);
  g_object_unref (buffer);
  g_object_unref (primary);  /* its retain goes: the context stays, retained by fresh */
  g_assert_true (gcuda_context_synchronize (fresh, &error));
  g_assert_no_error (error);

  /* the only object of the primary context destroyed under live memory:
   * the memory stays usable to its objects' release, then the context goes */
  buffer = new_buffer (fresh, 4096);
  host = new_pagelocked (fresh, 4096);
  g_assert_true (gcuda_context_destroy (fresh, &error));
  g_assert_no_error (error);
  gcuda_device_get_primary_context_state (device, &flags, &active, &error);
  g_assert_no_error (error);
  g_assert_true (active);  /* still retained, by fresh */
  memset (host_ptr (host), 1, 4096);
  g_object_unref (host);
  g_object_unref (buffer);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (live, ==, live0);
  g_assert_cmpuint (leaks, ==, leaks0);
  g_object_unref (fresh);  /* the last retain */
  gcuda_device_get_primary_context_state (device, &flags, &active, &error);
  g_assert_no_error (error);
  g_assert_false (active);
  mock_memory_counts (&live, &leaks);
  g_assert_cmpuint (leaks, ==, leaks0);

  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ destroying the default */

/* Runs last: it releases the default context. */
static void
test_destroy_default (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) old = NULL;
  g_autoptr(GCudaContext) fresh = NULL;
  g_autoptr(GCudaContext) primary = NULL;
  g_autoptr(GCudaContext) dedicated = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  old = get_default ();
  dedicated = create_dedicated (gcuda_context_get_device (old), 0);
  g_assert_true (gcuda_context_destroy (old, &error));
  g_assert_no_error (error);
  assert_destroyed_everywhere (old, dedicated);

  /* a new default is made on demand, and works */
  fresh = get_default ();
  g_assert_true (fresh != old);
  g_assert_false (gcuda_context_is_destroyed (fresh));
  g_assert_true (gcuda_context_is_primary (fresh));
  g_assert_true (gcuda_context_synchronize (fresh, &error));
  g_assert_no_error (error);
  primary = gcuda_device_get_primary_context (gcuda_context_get_device (fresh), &error);
  g_assert_no_error (error);
  g_assert_true (primary == fresh);

  /* pushing it and asking for the current context finds the new object */
  g_assert_true (gcuda_context_push (fresh, &error));
  g_assert_no_error (error);
  assert_current (fresh);
  g_assert_true (gcuda_context_pop (&error));
  g_assert_no_error (error);

  /* the dedicated context never depended on the primary */
  g_assert_true (gcuda_context_synchronize (dedicated, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/context/default", test_default);
  g_test_add_func ("/context/primary-shared", test_primary_shared);
  g_test_add_func ("/context/primary-flags", test_primary_flags);
  g_test_add_func ("/context/dedicated", test_dedicated);
  g_test_add_func ("/context/finalize-other-thread", test_finalize_other_thread);
  g_test_add_func ("/context/limits", test_limits);
  g_test_add_func ("/context/cache-config", test_cache_config);
  g_test_add_func ("/context/memory-info", test_memory_info);
  g_test_add_func ("/context/stream-priority-range", test_stream_priority_range);
  g_test_add_func ("/context/api-version", test_api_version);
  g_test_add_func ("/context/push-pop", test_push_pop);
  g_test_add_func ("/context/peer-access", test_peer_access);
  g_test_add_func ("/context/destroy-primary", test_destroy_primary);
  g_test_add_func ("/context/destroy-default", test_destroy_default);

  return g_test_run ();
}
