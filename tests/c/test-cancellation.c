/* test-cancellation.c: cancelling a long _async call completes it at once
 *
 * NVRTC and the driver's JIT cannot be interrupted: a cancelled
 * compile_async / module_new_from_source_async / module_new_from_data_async must
 * complete with G_IO_ERROR_CANCELLED within milliseconds while the work goes
 * on in the background, and what that work makes later must be freed.
 *
 * Each case measures the work first (a generated source, doubled until a
 * synchronous compile or load takes MIN_WORK_MS), then cancels the same work
 * 10 ms into an _async call, and asserts that the callback came before half
 * of the measured time; the latency (cancel to callback) is printed as a
 * TAP diagnostic. The programs, modules and compilers alive are counted
 * (the classes' constructed/finalize wrapped by the test: GLib's
 * GOBJECT_DEBUG=instance-count needs a debug GLib): none of what the
 * background work made may be left once it is done. Under
 * -Db_sanitize=address the leak checker checks the rest at exit.
 *
 * Paths:
 *   /cancellation/nogpu/...   NVRTC alone (the driver made unloadable)
 *   /cancellation/device/...  a context: the mock driver (modules fail to
 *                             load there, after the compile) or a GPU
 *   /cancellation/gpu/...     the driver's JIT of a large PTX: GPU only
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include <gcuda.h>

#include "gcuda-test-async.h"
#include "gcuda-test-util.h"

#define MIN_WORK_MS 150.0
#define CANCEL_AFTER_MS 10
#define MAX_KERNELS 8192

/* ------------------------------------------------------------ helpers */

static double
ms_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / 1000.0;
}

/* Live instances of the classes the background work makes, counted by
 * wrapping their classes' constructed and finalize (a test-only hook). */
enum { COUNT_PROGRAM, COUNT_MODULE, COUNT_COMPILER, N_COUNTED };
static struct {
  GType type;
  void (*constructed) (GObject *object);
  void (*finalize) (GObject *object);
  int live;
} counted[N_COUNTED];

static guint
counted_index (GObject *object)
{
  for (guint i = 0; i < N_COUNTED; i++)
    if (G_OBJECT_TYPE (object) == counted[i].type)
      return i;
  g_assert_not_reached ();
}

static void
counting_constructed (GObject *object)
{
  guint i = counted_index (object);

  g_atomic_int_inc (&counted[i].live);
  if (counted[i].constructed != NULL)
    counted[i].constructed (object);
}

static void
counting_finalize (GObject *object)
{
  guint i = counted_index (object);

  g_atomic_int_add (&counted[i].live, -1);
  counted[i].finalize (object);
}

static void
count_instances (void)
{
  GType types[N_COUNTED] = { GCUDA_TYPE_PROGRAM, GCUDA_TYPE_MODULE, GCUDA_TYPE_COMPILER };

  for (guint i = 0; i < N_COUNTED; i++)
    {
      GObjectClass *klass = g_type_class_ref (types[i]);

      counted[i].type = types[i];
      counted[i].constructed = klass->constructed;
      counted[i].finalize = klass->finalize;
      klass->constructed = counting_constructed;
      klass->finalize = counting_finalize;
    }
}

static int
live (guint what)
{
  return g_atomic_int_get (&counted[what].live);
}

/* @n kernels, unique (the compile cache must not answer). */
static char *
big_source (guint n)
{
  static int serial;
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "// %d %" G_GINT64_FORMAT " %u\n", g_atomic_int_add (&serial, 1),
                          g_get_real_time (), g_random_int ());
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s,
                            "__global__ void k%u (float *p, float a)\n"
                            "{\n"
                            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                            "  p[i] = p[i] * a + %u.0f;\n"
                            "}\n",
                            i, i);
  return g_string_free (s, FALSE);
}

static GCudaCompiler *
new_compiler (GCudaContext *context,
              const char   *arch)
{
  GCudaCompiler *compiler = gcuda_compiler_new (context);

  if (arch != NULL)
    g_object_set (compiler, "arch", arch, NULL);
  return compiler;
}

/* The number of kernels whose compile takes MIN_WORK_MS or more, and that
 * time in *@ms. */
static guint
measure_compile (GCudaCompiler *compiler,
                 double        *ms)
{
  guint n = 16;

  for (;;)
    {
      g_autofree char *source = big_source (n);
      g_autoptr(GCudaProgram) program = NULL;
      g_autoptr(GError) error = NULL;
      gint64 start = g_get_monotonic_time ();

      program = gcuda_compiler_compile (compiler, source, &error);
      g_assert_no_error (error);
      g_assert_true (GCUDA_IS_PROGRAM (program));
      g_assert_cmpint (live (COUNT_PROGRAM), ==, 1);  /* the counting works */
      *ms = ms_since (start);
      g_test_message ("compiling %u kernels takes %.1f ms", n, *ms);
      if (*ms >= MIN_WORK_MS || n >= MAX_KERNELS)
        break;
      n *= 2;
    }
  g_assert_cmpfloat (*ms, >=, MIN_WORK_MS);
  return n;
}

/* What an _async callback saw. */
typedef struct {
  int calls;
  GError *error;
  GObject *result;
  gint64 at;
  GThread *thread;
} Outcome;

static void
outcome_clear (Outcome *o)
{
  g_clear_error (&o->error);
  g_clear_object (&o->result);
  memset (o, 0, sizeof *o);
}

static void
outcome_set (Outcome  *o,
             gpointer  result,
             GError   *error)
{
  o->at = g_get_monotonic_time ();
  o->thread = g_thread_self ();
  o->result = result;
  o->error = error;
  g_assert_cmpint (g_atomic_int_add (&o->calls, 1), ==, 0);
}

static void
compile_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      data)
{
  GError *error = NULL;
  GCudaProgram *program = gcuda_compiler_compile_finish (GCUDA_COMPILER (source), result, &error);

  outcome_set (data, program, error);
}

static void
source_module_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      data)
{
  GError *error = NULL;
  GCudaModule *module = gcuda_module_new_from_source_finish (result, &error);

  outcome_set (data, module, error);
}

static void
load_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  GError *error = NULL;
  GCudaModule *module = gcuda_module_new_from_data_finish (result, &error);

  outcome_set (data, module, error);
}

/* Cancels after CANCEL_AFTER_MS: from the main context, or from a thread. */
typedef struct {
  GCancellable *cancellable;
  gint64 at;
} Canceller;

static gboolean
cancel_now (gpointer data)
{
  Canceller *c = data;

  c->at = g_get_monotonic_time ();
  g_cancellable_cancel (c->cancellable);
  return G_SOURCE_REMOVE;
}

static gpointer
cancel_thread (gpointer data)
{
  g_usleep (CANCEL_AFTER_MS * 1000);
  cancel_now (data);
  return NULL;
}

static void
iterate_until_called (Outcome *o,
                      guint    timeout_ms)
{
  iterate_until (&o->calls, timeout_ms);
}

/* Waits (iterating) until no instance of @what is left, at most @timeout_ms. */
static void
wait_for_no_instances (guint what,
                       guint timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * MS;

  while (live (what) > 0 && g_get_monotonic_time () < deadline)
    iterate_for (5);
  g_assert_cmpint (live (what), ==, 0);
}

/* Checks what a cancelled call's callback saw, and prints the latency. */
static void
check_cancelled (Outcome    *o,
                 Canceller  *c,
                 gint64      start,
                 double      work_ms,
                 const char *what)
{
  double callback_ms = (o->at - start) / 1000.0;
  double latency_ms = (o->at - c->at) / 1000.0;

  g_assert_error (o->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (o->result);
  g_assert_true (o->thread == g_thread_self ());
  g_assert_cmpint (c->at, >, 0);
  g_test_message ("%s: cancelled %.1f ms in, callback %.3f ms after the cancel (%.1f ms after the start; "
                  "the work takes %.1f ms)", what, (c->at - start) / 1000.0, latency_ms, callback_ms, work_ms);
  g_assert_cmpfloat (latency_ms, >=, 0);
  /* prompt, and long before the work could have finished (the timer that
   * cancels may fire late on a loaded machine: 3/4, not 1/2) */
  g_assert_cmpfloat (latency_ms, <, work_ms / 4);
  g_assert_cmpfloat (callback_ms, <, work_ms * 3 / 4);
}

/* ------------------------------------------------------------ NVRTC */

/* Cancels a compile CANCEL_AFTER_MS in, from the main context or from
 * another thread. */
static void
compile_cancelled (gboolean from_thread)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GThread) thread = NULL;
  g_autofree char *source = NULL;
  Canceller c = { cancellable, 0 };
  GCudaCompiler *compiler;
  Outcome o = { 0 };
  double compile_ms;
  gint64 start;
  guint n;

  compiler = new_compiler (NULL, "sm_90");
  n = measure_compile (compiler, &compile_ms);
  g_assert_cmpint (live (COUNT_PROGRAM), ==, 0);

  source = big_source (n);
  start = g_get_monotonic_time ();
  gcuda_compiler_compile_async (compiler, source, cancellable, compile_cb, &o);
  if (from_thread)
    thread = g_thread_new ("canceller", cancel_thread, &c);
  else
    g_timeout_add (CANCEL_AFTER_MS, cancel_now, &c);
  iterate_until_called (&o, 60000);
  check_cancelled (&o, &c, start, compile_ms, "compile_async");

  /* The compile goes on, holding the compiler; its program is freed when
   * it ends, and the compiler then. */
  g_object_add_weak_pointer (G_OBJECT (compiler), (gpointer *) &compiler);
  g_object_unref (compiler);
  wait_for_no_instances (COUNT_COMPILER, 60000);
  g_test_message ("the background compile ended %.1f ms after the cancel", ms_since (c.at));
  /* the callback did not wait for NVRTC */
  g_assert_cmpint (o.at, <, g_get_monotonic_time () - 5 * MS);
  g_assert_null (compiler);
  g_assert_cmpint (live (COUNT_PROGRAM), ==, 0);
  /* exactly once */
  iterate_for (20);
  g_assert_cmpint (o.calls, ==, 1);
  outcome_clear (&o);
}

static void
test_compile_cancelled (void)
{
  compile_cancelled (FALSE);
}

static void
test_compile_cancelled_from_thread (void)
{
  compile_cancelled (TRUE);
}

/* A cancellable cancelled before the call: CANCELLED, not from inside the
 * call, and NVRTC never runs (nothing is compiled). */
static void
test_compile_already_cancelled (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCudaCompiler) compiler = new_compiler (NULL, "sm_90");
  g_autofree char *source = big_source (1);
  Outcome o = { 0 };

  g_cancellable_cancel (cancellable);
  gcuda_compiler_compile_async (compiler, source, cancellable, compile_cb, &o);
  g_assert_cmpint (o.calls, ==, 0);
  iterate_until_called (&o, 5000);
  g_assert_error (o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (o.result);
  outcome_clear (&o);
}

/* Not cancelled: the program arrives; a cancel after that changes nothing. */
static void
test_compile_not_cancelled (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCudaCompiler) compiler = new_compiler (NULL, "sm_90");
  g_autofree char *source = big_source (2);
  Outcome o = { 0 };

  gcuda_compiler_compile_async (compiler, source, cancellable, compile_cb, &o);
  iterate_until_called (&o, 60000);
  g_assert_no_error (o.error);
  g_assert_true (GCUDA_IS_PROGRAM (o.result));
  g_assert_cmpint (gcuda_program_get_kind (GCUDA_PROGRAM (o.result)), ==, GCUDA_PROGRAM_KIND_CUBIN);
  g_assert_cmpuint (g_bytes_get_size (gcuda_program_get_image (GCUDA_PROGRAM (o.result))), >, 0);
  g_cancellable_cancel (cancellable);
  iterate_for (20);
  g_assert_cmpint (o.calls, ==, 1);
  outcome_clear (&o);
}

/* A compile error still arrives as one (the worker's error path). */
static void
test_compile_error (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCudaCompiler) compiler = new_compiler (NULL, "sm_90");
  Outcome o = { 0 };

  gcuda_compiler_compile_async (compiler, "__global__ void broken (", cancellable, compile_cb, &o);
  iterate_until_called (&o, 60000);
  g_assert_error (o.error, GCUDA_COMPILE_ERROR, GCUDA_COMPILE_ERROR_COMPILATION);
  g_assert_null (o.result);
  outcome_clear (&o);
}

/* Many compiles cancelled at once, each completed once, none left behind. */
static void
test_compile_many_cancelled (void)
{
  enum { N = 12 };
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  GCudaCompiler *compiler;
  Outcome o[N] = { { 0 } };
  gint64 start;

  compiler = new_compiler (NULL, "sm_90");
  for (guint i = 0; i < N; i++)
    {
      g_autofree char *source = big_source (4);

      gcuda_compiler_compile_async (compiler, source, cancellable, compile_cb, &o[i]);
    }
  start = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  for (guint i = 0; i < N; i++)
    {
      iterate_until_called (&o[i], 5000);
      g_assert_error (o[i].error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      outcome_clear (&o[i]);
    }
  g_test_message ("%d cancelled compiles called back within %.1f ms", N, ms_since (start));
  g_object_unref (compiler);
  wait_for_no_instances (COUNT_COMPILER, 120000);
  g_assert_cmpint (live (COUNT_PROGRAM), ==, 0);
}

/* ------------------------------------------------------------ with a context */

/* module_new_from_source_async cancelled during its compile: mock driver or GPU. */
static void
test_source_module_cancelled (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaCompiler) compiler = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *source = NULL;
  Canceller c = { cancellable, 0 };
  Outcome o = { 0 };
  double compile_ms;
  gint64 start;
  guint n;

  if (!gcuda_test_require_gpu ())
    return;
  context = gcuda_context_get_default (&error);
  g_assert_no_error (error);
  /* what module_new_from_source compiles: the context device's architecture */
  compiler = new_compiler (context, NULL);
  n = measure_compile (compiler, &compile_ms);
  g_clear_object (&compiler);

  source = big_source (n);
  start = g_get_monotonic_time ();
  gcuda_module_new_from_source_async (context, source, NULL, cancellable, source_module_cb, &o);
  g_timeout_add (CANCEL_AFTER_MS, cancel_now, &c);
  iterate_until_called (&o, 60000);
  check_cancelled (&o, &c, start, compile_ms, "module_new_from_source_async");

  /* the worker's compiler goes when the compile has ended; the module is
   * never loaded (cancelled), so none is left */
  wait_for_no_instances (COUNT_COMPILER, 60000);
  g_test_message ("the background compile ended %.1f ms after the cancel", ms_since (c.at));
  g_assert_cmpint (o.at, <, g_get_monotonic_time () - 5 * MS);
  g_assert_cmpint (live (COUNT_PROGRAM), ==, 0);
  g_assert_cmpint (live (COUNT_MODULE), ==, 0);
  outcome_clear (&o);
  gcuda_test_assert_no_current_context ();
}

/* Bad input to module_new_from_data_async fails before a thread, as an
 * error through the callback. */
static void
test_load_bad_input (void)
{
  g_autoptr(GBytes) junk = g_bytes_new_static ("not device code", 15);
  Outcome o = { 0 };

  gcuda_module_new_from_data_async (NULL, junk, NULL, NULL, load_cb, &o);
  iterate_until_called (&o, 5000);
  g_assert_error (o.error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (o.result);
  outcome_clear (&o);

  gcuda_module_new_from_data_async (NULL, NULL, NULL, NULL, load_cb, &o);
  iterate_until_called (&o, 5000);
  g_assert_error (o.error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  outcome_clear (&o);
}

/* ------------------------------------------------------------ the JIT (GPU) */

static void
image_gone (gpointer data)
{
  g_atomic_int_set ((int *) data, 1);
}

/* PTX of @n kernels for the device's virtual architecture. */
static GBytes *
big_ptx (GCudaContext *context,
         guint         n)
{
  g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (context);
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *source = big_source (n);

  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
  program = gcuda_compiler_compile (compiler, source, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcuda_program_get_kind (program), ==, GCUDA_PROGRAM_KIND_PTX);
  return g_bytes_ref (gcuda_program_get_image (program));
}

/* module_new_from_data_async of a large PTX cancelled while the driver's
 * JIT compiles it. */
static void
test_load_ptx_cancelled (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) ptx = NULL;
  GBytes *image;
  Canceller c = { cancellable, 0 };
  Outcome o = { 0 };
  double load_ms = 0;
  int image_freed = 0;
  gint64 start;
  guint n = 64;

  if (!gcuda_test_require_gpu ())
    return;
  context = gcuda_context_get_default (&error);
  g_assert_no_error (error);

  /* CUDA_CACHE_DISABLE=1 (meson): the JIT runs every time */
  for (;;)
    {
      g_autoptr(GCudaModule) module = NULL;
      gint64 t;

      g_clear_pointer (&ptx, g_bytes_unref);
      ptx = big_ptx (context, n);
      t = g_get_monotonic_time ();
      module = gcuda_module_new_from_data (context, ptx, NULL, &error);
      g_assert_no_error (error);
      load_ms = ms_since (t);
      g_test_message ("loading PTX of %u kernels (%" G_GSIZE_FORMAT " bytes) takes %.1f ms", n,
                      g_bytes_get_size (ptx), load_ms);
      if (load_ms >= MIN_WORK_MS || n >= MAX_KERNELS)
        break;
      n *= 2;
    }
  g_assert_cmpfloat (load_ms, >=, MIN_WORK_MS);
  g_assert_cmpint (live (COUNT_MODULE), ==, 0);

  /* the same PTX again (a copy that says when the worker lets it go) */
  image = g_bytes_new_with_free_func (g_bytes_get_data (ptx, NULL), g_bytes_get_size (ptx),
                                      image_gone, &image_freed);
  start = g_get_monotonic_time ();
  gcuda_module_new_from_data_async (context, image, NULL, cancellable, load_cb, &o);
  g_bytes_unref (image);
  g_timeout_add (CANCEL_AFTER_MS, cancel_now, &c);
  iterate_until_called (&o, 60000);
  check_cancelled (&o, &c, start, load_ms, "module_new_from_data_async (PTX)");

  /* the load ends in the background; its module is unloaded then */
  iterate_until (&image_freed, 60000);
  g_test_message ("the background load ended %.1f ms after the cancel", ms_since (c.at));
  g_assert_cmpint (o.at, <, g_get_monotonic_time () - 5 * MS);
  g_assert_cmpint (live (COUNT_MODULE), ==, 0);
  outcome_clear (&o);
  gcuda_test_assert_no_current_context ();
}

/* Not cancelled: the module arrives and works. */
static void
test_load_ptx (void)
{
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaFunction) function = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) ptx = NULL;
  Outcome o = { 0 };

  if (!gcuda_test_require_gpu ())
    return;
  context = gcuda_context_get_default (&error);
  g_assert_no_error (error);
  ptx = big_ptx (context, 3);
  gcuda_module_new_from_data_async (context, ptx, NULL, NULL, load_cb, &o);
  iterate_until_called (&o, 60000);
  g_assert_no_error (o.error);
  g_assert_true (GCUDA_IS_MODULE (o.result));
  g_assert_true (gcuda_module_get_context (GCUDA_MODULE (o.result)) == context);
  function = gcuda_module_get_function (GCUDA_MODULE (o.result), "k2", &error);
  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_FUNCTION (function));
  g_clear_object (&function);
  outcome_clear (&o);
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  count_instances ();

  gcuda_test_add_nvrtc_func ("/cancellation/nogpu/compile", test_compile_cancelled);
  gcuda_test_add_nvrtc_func ("/cancellation/nogpu/compile-from-thread", test_compile_cancelled_from_thread);
  gcuda_test_add_nvrtc_func ("/cancellation/nogpu/compile-already-cancelled", test_compile_already_cancelled);
  gcuda_test_add_nvrtc_func ("/cancellation/nogpu/compile-not-cancelled", test_compile_not_cancelled);
  gcuda_test_add_nvrtc_func ("/cancellation/nogpu/compile-error", test_compile_error);
  gcuda_test_add_nvrtc_func ("/cancellation/nogpu/compile-many", test_compile_many_cancelled);
  g_test_add_func ("/cancellation/nogpu/load-bad-input", test_load_bad_input);
  gcuda_test_add_nvrtc_func ("/cancellation/device/source-module", test_source_module_cancelled);
  gcuda_test_add_nvrtc_func ("/cancellation/gpu/load-ptx", test_load_ptx);
  gcuda_test_add_nvrtc_func ("/cancellation/gpu/load-ptx-cancelled", test_load_ptx_cancelled);

  return g_test_run ();
}
