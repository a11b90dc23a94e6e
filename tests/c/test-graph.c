/* test-graph.c: stream capture into GCudaGraph, GCudaGraphExec launches
 * and updates, capture status and what breaks a capture, on a real GPU
 *
 * The captured work: set tmp to zero, copy the first half of src into it,
 * then acc[i] += tmp[i] * k. Each replay adds k * src[i] to the first half
 * of acc and nothing to the second, so a missing memset, copy or kernel
 * node, or a stale k, shows in the result.
 *
 * /graph/sources also runs without a GPU (suite nogpu).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include <glib/gstdio.h>

#include "gcuda-test-async.h"
#include "gcuda-test-kernels.h"
#include "gcuda-test-memory.h"
#include "gcuda-test-util.h"

#define N 5000
#define HALF (N / 2)

static const char graph_source[] =
  "__global__ void graph_add (unsigned int *acc, const unsigned int *tmp, unsigned int k, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    acc[i] += tmp[i] * k;\n"
  "}\n";

static const TestKernelSource sources[] = {
  { "graph_source", graph_source, FALSE, FALSE, { NULL } },
  { NULL }
};

/* ------------------------------------------------------------ the fixture */

typedef struct {
  GCudaModule *module;
  GCudaFunction *add;
  GCudaStream *stream;
  GCudaBuffer *acc, *tmp, *src;
  guint32 *host_acc;   /* what acc must hold */
  guint32 *host_src;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autofree guint32 *garbage = NULL;

  if (!gcuda_test_require_gpu ())
    return;

  f->module = load_module (NULL, graph_source, NULL);
  f->add = get_kernel (f->module, "graph_add");
  /* blocking, so that the legacy stream synchronizes with it */
  f->stream = new_stream (NULL, GCUDA_STREAM_FLAGS_DEFAULT);
  f->host_acc = random_u32 (N);
  f->host_src = random_u32 (N);
  garbage = random_u32 (N);
  f->acc = buffer_with (f->host_acc, N * 4);
  f->src = buffer_with (f->host_src, N * 4);
  f->tmp = buffer_with (garbage, N * 4);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->add);
  g_clear_object (&f->module);
  g_clear_object (&f->stream);
  g_clear_object (&f->acc);
  g_clear_object (&f->tmp);
  g_clear_object (&f->src);
  g_free (f->host_acc);
  g_free (f->host_src);
}

/* Queues graph_add (acc, tmp, k) on @stream. */
static void
queue_add (Fixture     *f,
           GCudaStream *stream,
           guint32      k)
{
  g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();

  gcuda_kernel_args_add_buffer (args, f->acc);
  gcuda_kernel_args_add_buffer (args, f->tmp);
  gcuda_kernel_args_add_uint32 (args, k);
  gcuda_kernel_args_add_int32 (args, N);
  launch_ok (f->add, (N + 127) / 128, 1, 1, 128, 1, 1, 0, stream, args);
}

/* Queues the whole sequence (memset, copy, kernel) on @stream. */
static void
queue_sequence (Fixture     *f,
                GCudaStream *stream,
                guint32      k)
{
  GError *error = NULL;

  g_assert_true (gcuda_buffer_memset_d32 (f->tmp, 0, 0, N, stream, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_copy_from_on_stream (f->tmp, 0, f->src, 0, HALF * 4, stream, &error));
  g_assert_no_error (error);
  queue_add (f, stream, k);
}

static void
begin_ok (GCudaStream      *stream,
          GCudaCaptureMode  mode)
{
  GError *error = NULL;

  g_assert_true (gcuda_stream_begin_capture (stream, mode, &error));
  g_assert_no_error (error);
}

static GCudaGraph *
end_ok (GCudaStream *stream)
{
  GError *error = NULL;
  GCudaGraph *graph = gcuda_stream_end_capture (stream, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_GRAPH (graph));
  return graph;
}

static GCudaGraph *
capture_sequence (Fixture *f,
                  guint32  k)
{
  begin_ok (f->stream, GCUDA_CAPTURE_MODE_GLOBAL);
  queue_sequence (f, f->stream, k);
  return end_ok (f->stream);
}

static GCudaGraphExec *
instantiate_ok (GCudaGraph *graph)
{
  GError *error = NULL;
  GCudaGraphExec *exec = gcuda_graph_instantiate (graph, &error);

  g_assert_no_error (error);
  g_assert_true (GCUDA_IS_GRAPH_EXEC (exec));
  return exec;
}

static void
exec_launch_ok (GCudaGraphExec *exec,
                GCudaStream    *stream)
{
  GError *error = NULL;

  g_assert_true (gcuda_graph_exec_launch (exec, stream, &error));
  g_assert_no_error (error);
}

/* What one run of the sequence with @k does to the host copy. */
static void
expect_run (Fixture *f,
            guint32  k)
{
  for (guint i = 0; i < HALF; i++)
    f->host_acc[i] += f->host_src[i] * k;
}

static void
assert_acc (Fixture *f)
{
  g_autofree guint32 *got = g_new (guint32, N);

  download_into (f->acc, got, N * 4);
  assert_u32_equal (got, f->host_acc, N);
}

static GCudaCaptureStatus
status_of (GCudaStream *stream)
{
  GError *error = NULL;
  GCudaCaptureStatus status = gcuda_stream_get_capture_status (stream, &error);

  g_assert_no_error (error);
  return status;
}

/* ------------------------------------------------------------ tests */

static void
test_sources (void)
{
  test_kernel_sources_compile (sources);
}

static void
test_capture_launch (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GCudaGraph) graph = NULL;
  g_autoptr(GCudaGraphExec) exec = NULL, exec2 = NULL;
  g_autoptr(GCudaContext) context = NULL;
  GError *error = NULL;
  guint32 k = g_random_int_range (1, 1 << 20);
  gsize nodes;

  if (f->module == NULL)
    return;

  context = get_default ();
  g_assert_cmpint (status_of (f->stream), ==, GCUDA_CAPTURE_STATUS_NONE);
  begin_ok (f->stream, GCUDA_CAPTURE_MODE_GLOBAL);
  g_assert_cmpint (status_of (f->stream), ==, GCUDA_CAPTURE_STATUS_ACTIVE);
  queue_sequence (f, f->stream, k);
  graph = end_ok (f->stream);
  g_assert_cmpint (status_of (f->stream), ==, GCUDA_CAPTURE_STATUS_NONE);
  g_assert_true (gcuda_graph_get_context (graph) == context);

  /* captured, not run */
  sync_stream (f->stream);
  assert_acc (f);

  nodes = gcuda_graph_get_node_count (graph, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (nodes, ==, 3);

  exec = instantiate_ok (graph);
  g_assert_true (gcuda_graph_exec_get_context (exec) == context);
  /* the executable graph does not need the graph any more */
  g_clear_object (&graph);
  for (guint run = 0; run < 3; run++)
    {
      exec_launch_ok (exec, f->stream);
      expect_run (f, k);
    }
  sync_stream (f->stream);
  assert_acc (f);

  /* on the legacy stream, and a second instance of another capture */
  graph = capture_sequence (f, k + 1);
  exec2 = instantiate_ok (graph);
  exec_launch_ok (exec2, NULL);
  expect_run (f, k + 1);
  exec_launch_ok (exec, NULL);
  expect_run (f, k);
  context_sync (NULL);
  assert_acc (f);

  gcuda_test_assert_no_current_context ();
}

static void
test_update (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GCudaGraph) graph = NULL, same = NULL, other = NULL;
  g_autoptr(GCudaGraphExec) exec = NULL;
  guint32 k1 = g_random_int_range (1, 1000), k2 = k1 + g_random_int_range (1, 1000);
  GError *error = NULL;

  if (f->module == NULL)
    return;

  graph = capture_sequence (f, k1);
  exec = instantiate_ok (graph);
  exec_launch_ok (exec, f->stream);
  expect_run (f, k1);
  sync_stream (f->stream);
  assert_acc (f);

  /* same topology, another kernel argument */
  same = capture_sequence (f, k2);
  g_assert_true (gcuda_graph_exec_update (exec, same, &error));
  g_assert_no_error (error);
  exec_launch_ok (exec, f->stream);
  exec_launch_ok (exec, f->stream);
  expect_run (f, k2);
  expect_run (f, k2);
  sync_stream (f->stream);
  assert_acc (f);

  /* another topology: refused, the executable graph unchanged */
  begin_ok (f->stream, GCUDA_CAPTURE_MODE_GLOBAL);
  queue_add (f, f->stream, k1);
  other = end_ok (f->stream);
  g_assert_cmpuint (gcuda_graph_get_node_count (other, &error), ==, 1);
  g_assert_no_error (error);
  g_assert_false (gcuda_graph_exec_update (exec, other, &error));
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
  g_test_message ("update refused: %s", error->message);
  g_clear_error (&error);
  exec_launch_ok (exec, f->stream);
  expect_run (f, k2);
  sync_stream (f->stream);
  assert_acc (f);

  /* not a graph */
  g_assert_false (gcuda_graph_exec_update (exec, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_test_assert_no_current_context ();
}

static void
test_modes (Fixture       *f,
            gconstpointer  data)
{
  const GCudaCaptureMode modes[] = { GCUDA_CAPTURE_MODE_THREAD_LOCAL, GCUDA_CAPTURE_MODE_RELAXED };
  GError *error = NULL;

  if (f->module == NULL)
    return;

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr(GCudaGraph) graph = NULL;
      g_autoptr(GCudaGraphExec) exec = NULL;
      guint32 k = g_random_int_range (1, 1 << 16);

      begin_ok (f->stream, modes[m]);
      g_assert_cmpint (status_of (f->stream), ==, GCUDA_CAPTURE_STATUS_ACTIVE);
      queue_sequence (f, f->stream, k);
      graph = end_ok (f->stream);
      exec = instantiate_ok (graph);
      exec_launch_ok (exec, f->stream);
      expect_run (f, k);
      sync_stream (f->stream);
      assert_acc (f);
    }

  g_assert_false (gcuda_stream_begin_capture (f->stream, 9, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (status_of (f->stream), ==, GCUDA_CAPTURE_STATUS_NONE);

  gcuda_test_assert_no_current_context ();
}

static void
test_end_without_begin (Fixture       *f,
                        gconstpointer  data)
{
  GCudaGraph *graph;
  GError *error = NULL;

  if (f->module == NULL)
    return;

  graph = gcuda_stream_end_capture (f->stream, &error);
  g_assert_null (graph);
  g_assert_nonnull (error);
  g_assert_true (error->domain == GCUDA_DRIVER_ERROR);
  g_test_message ("end without begin: %s", error->message);
  g_clear_error (&error);

  /* the stream works as before */
  queue_sequence (f, f->stream, 5);
  expect_run (f, 5);
  sync_stream (f->stream);
  assert_acc (f);

  gcuda_test_assert_no_current_context ();
}

/* A synchronous call (an upload on the legacy stream, which would wait for
 * the capturing stream) during a GLOBAL capture fails and invalidates the
 * capture; the stream is usable once the capture is ended. */
static void
test_invalidated (Fixture       *f,
                  gconstpointer  data)
{
  GCudaGraph *graph;
  guint32 value = 42;
  GError *error = NULL;

  if (f->module == NULL)
    return;

  begin_ok (f->stream, GCUDA_CAPTURE_MODE_GLOBAL);
  queue_add (f, f->stream, 3);
  g_assert_false (gcuda_buffer_upload (f->tmp, 0, (const guint8 *) &value, 4, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == GCUDA_DRIVER_ERROR);
  g_assert_true (error->code == GCUDA_DRIVER_ERROR_STREAM_CAPTURE_IMPLICIT ||
                 error->code == GCUDA_DRIVER_ERROR_STREAM_CAPTURE_UNSUPPORTED ||
                 error->code == GCUDA_DRIVER_ERROR_STREAM_CAPTURE_INVALIDATED);
  g_test_message ("during capture: %s", error->message);
  g_clear_error (&error);

  g_assert_cmpint (status_of (f->stream), ==, GCUDA_CAPTURE_STATUS_INVALIDATED);
  graph = gcuda_stream_end_capture (f->stream, &error);
  g_assert_null (graph);
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_STREAM_CAPTURE_INVALIDATED);
  g_assert_cmpint (status_of (f->stream), ==, GCUDA_CAPTURE_STATUS_NONE);

  /* nothing captured ran; the stream and the legacy stream work again */
  sync_stream (f->stream);
  assert_acc (f);
  queue_sequence (f, f->stream, 7);
  expect_run (f, 7);
  sync_stream (f->stream);
  assert_acc (f);
  upload_ok (f->tmp, 0, (const guint8 *) &value, 4);

  gcuda_test_assert_no_current_context ();
}

static void
test_write_dot (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GCudaGraph) graph = NULL;
  g_autofree char *dir = NULL, *path = NULL, *text = NULL;
  GError *error = NULL;

  if (f->module == NULL)
    return;

  graph = capture_sequence (f, 1);
  dir = g_dir_make_tmp ("gcuda-test-graph-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (dir, "graph.dot", NULL);
  g_assert_true (gcuda_graph_write_dot (graph, path, &error));
  g_assert_no_error (error);
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "digraph"));
  g_assert_cmpuint (strlen (text), >, 100);

  g_assert_false (gcuda_graph_write_dot (graph, "", &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_graph_write_dot (graph, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  g_unlink (path);
  g_rmdir (dir);
  gcuda_test_assert_no_current_context ();
}

static void
test_other_context (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GCudaContext) dedicated = NULL;
  g_autoptr(GCudaStream) foreign = NULL;
  g_autoptr(GCudaGraph) graph = NULL;
  g_autoptr(GCudaGraphExec) exec = NULL;
  GError *error = NULL;

  if (f->module == NULL)
    return;

  graph = capture_sequence (f, 2);
  exec = instantiate_ok (graph);
  dedicated = create_dedicated (NULL, 0);
  foreign = new_stream (dedicated, GCUDA_STREAM_FLAGS_DEFAULT);
  g_assert_false (gcuda_graph_exec_launch (exec, foreign, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);

  /* nothing ran */
  sync_stream (f->stream);
  assert_acc (f);

  g_clear_object (&foreign);
  g_assert_true (gcuda_context_destroy (dedicated, &error));
  g_assert_no_error (error);
  gcuda_test_assert_no_current_context ();
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/graph/sources", test_sources);
#define ADD(path, fn) g_test_add ((path), Fixture, NULL, fixture_set_up, (fn), fixture_tear_down)
  ADD ("/graph/capture-launch", test_capture_launch);
  ADD ("/graph/update", test_update);
  ADD ("/graph/modes", test_modes);
  ADD ("/graph/end-without-begin", test_end_without_begin);
  ADD ("/graph/invalidated", test_invalidated);
  ADD ("/graph/write-dot", test_write_dot);
  ADD ("/graph/other-context", test_other_context);
#undef ADD

  return g_test_run ();
}
