/* test-threads.c: any thread may use any context, with no push/pop
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "gcuda-test-util.h"

#define N_THREADS 8
#define N_ITERATIONS 2000

typedef struct {
  GCudaContext *shared;   /* the context every thread hammers */
  GCudaContext *own;      /* made current by the thread itself first, or NULL */
  guint index;
  guint errors;
  char *first_error;
  gboolean current_changed;
} Worker;

static GMutex start_lock;
static GCond start_cond;
static gboolean started;

static void
wait_for_start (void)
{
  g_mutex_lock (&start_lock);
  while (!started)
    g_cond_wait (&start_cond, &start_lock);
  g_mutex_unlock (&start_lock);
}

static void
start_all (void)
{
  g_mutex_lock (&start_lock);
  started = TRUE;
  g_cond_broadcast (&start_cond);
  g_mutex_unlock (&start_lock);
}

static void
note_error (Worker  *w,
            GError **error)
{
  if (*error == NULL)
    return;
  if (w->first_error == NULL)
    w->first_error = g_strdup_printf ("thread %u: %s (%s %d)", w->index, (*error)->message,
                                      g_quark_to_string ((*error)->domain), (*error)->code);
  w->errors++;
  g_clear_error (error);
}

static gboolean
current_is (GCudaContext *expected)
{
  GCudaContext *current = gcuda_context_get_current (NULL);
  gboolean same = current == expected;

  g_clear_object (&current);
  return same;
}

static gpointer
hammer (gpointer data)
{
  Worker *w = data;
  GError *error = NULL;

  if (w->own != NULL)
    {
      gcuda_context_push (w->own, &error);
      note_error (w, &error);
    }
  if (!current_is (w->own))
    w->current_changed = TRUE;

  wait_for_start ();

  for (guint i = 0; i < N_ITERATIONS; i++)
    {
      guint64 free_mem = 0, total = 0, stack;
      GCudaCacheConfig config;
      int least = 0, greatest = 0;

      gcuda_context_synchronize (w->shared, &error);
      note_error (w, &error);

      gcuda_context_get_memory_info (w->shared, &free_mem, &total, &error);
      note_error (w, &error);
      if (free_mem > total)
        w->errors++;

      stack = gcuda_context_get_limit (w->shared, GCUDA_LIMIT_STACK_SIZE, &error);
      note_error (w, &error);
      if (stack == 0)
        w->errors++;

      gcuda_context_set_cache_config (w->shared,
                                      (i + w->index) % 2 ? GCUDA_CACHE_CONFIG_PREFER_L1 : GCUDA_CACHE_CONFIG_PREFER_SHARED,
                                      &error);
      note_error (w, &error);
      config = gcuda_context_get_cache_config (w->shared, &error);
      note_error (w, &error);
      if ((guint) config > GCUDA_CACHE_CONFIG_PREFER_EQUAL)
        w->errors++;

      gcuda_context_get_stream_priority_range (w->shared, &least, &greatest, &error);
      note_error (w, &error);
      if (greatest > least)
        w->errors++;

      if (i % 250 == 0 && !current_is (w->own))
        w->current_changed = TRUE;
    }

  /* the thread's own current context is what it was */
  if (!current_is (w->own))
    w->current_changed = TRUE;
  if (w->own != NULL)
    {
      gcuda_context_pop (&error);
      note_error (w, &error);
    }
  if (!current_is (NULL))
    w->current_changed = TRUE;
  return NULL;
}

static void
run_workers (GCudaContext *shared,
             GCudaContext *own_for_odd_threads)
{
  GThread *threads[N_THREADS];
  Worker workers[N_THREADS] = { { 0 } };
  gint64 start_time;
  guint errors = 0;

  started = FALSE;
  for (guint i = 0; i < N_THREADS; i++)
    {
      workers[i].shared = shared;
      /* half the threads have no current context at all, the others have
       * another context current, which must be left alone */
      workers[i].own = (i % 2) ? own_for_odd_threads : NULL;
      workers[i].index = i;
      threads[i] = g_thread_new ("hammer", hammer, &workers[i]);
    }

  start_time = g_get_monotonic_time ();
  start_all ();
  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);
  g_test_message ("%d threads x %d iterations in %.2f s", N_THREADS, N_ITERATIONS,
                  (g_get_monotonic_time () - start_time) / 1e6);

  for (guint i = 0; i < N_THREADS; i++)
    {
      if (workers[i].first_error != NULL)
        g_test_message ("%s", workers[i].first_error);
      errors += workers[i].errors;
      g_assert_false (workers[i].current_changed);
      g_free (workers[i].first_error);
    }
  g_assert_cmpuint (errors, ==, 0);
  gcuda_test_assert_no_current_context ();
}

static void
test_hammer_dedicated (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) primary = NULL;
  g_autoptr(GCudaContext) shared = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  primary = gcuda_context_get_default (&error);
  g_assert_no_error (error);
  shared = gcuda_device_create_context (gcuda_context_get_device (primary), 0, &error);
  g_assert_no_error (error);

  run_workers (shared, primary);

  g_assert_true (gcuda_context_destroy (shared, &error));
  g_assert_no_error (error);
}

static void
test_hammer_primary (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) primary = NULL;
  g_autoptr(GCudaContext) other = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  primary = gcuda_context_get_default (&error);
  g_assert_no_error (error);
  other = gcuda_device_create_context (gcuda_context_get_device (primary), 0, &error);
  g_assert_no_error (error);

  run_workers (primary, other);

  g_assert_true (gcuda_context_destroy (other, &error));
  g_assert_no_error (error);
}

/* Many threads asking for the same singletons at once get the same objects. */
static gpointer
lookup_thread (gpointer data)
{
  GCudaContext *expected = data;
  int ordinal = gcuda_device_get_ordinal (gcuda_context_get_device (expected));
  gboolean ok = TRUE;

  wait_for_start ();

  for (guint i = 0; i < 500; i++)
    {
      GCudaDevice *device = gcuda_device_get (ordinal, NULL);
      GCudaContext *def = gcuda_context_get_default (NULL);
      GCudaContext *primary = device ? gcuda_device_get_primary_context (device, NULL) : NULL;

      if (device == NULL || def != expected || primary != expected)
        ok = FALSE;
      g_clear_object (&primary);
      g_clear_object (&def);
      g_clear_object (&device);
    }
  if (!current_is (NULL))
    ok = FALSE;
  return GINT_TO_POINTER (ok);
}

static void
test_singletons (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) primary = NULL;
  GThread *threads[N_THREADS];

  if (!gcuda_test_require_gpu ())
    return;

  primary = gcuda_context_get_default (&error);
  g_assert_no_error (error);

  started = FALSE;
  for (guint i = 0; i < N_THREADS; i++)
    threads[i] = g_thread_new ("lookup", lookup_thread, primary);
  start_all ();
  for (guint i = 0; i < N_THREADS; i++)
    g_assert_true (GPOINTER_TO_INT (g_thread_join (threads[i])));
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/threads/hammer-dedicated", test_hammer_dedicated);
  g_test_add_func ("/threads/hammer-primary", test_hammer_primary);
  g_test_add_func ("/threads/singletons", test_singletons);

  return g_test_run ();
}
