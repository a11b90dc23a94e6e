/* bench-launch.c: host cost of a kernel launch through GCuda's C API
 * beside the raw driver, measured the same way in the same run
 *
 * The kernel is empty and takes three arguments,
 *   __global__ void empty (float *a, float *b, int n) {}
 * compiled by NVRTC through GCudaCompiler (for the device's own arch) and
 * loaded twice into the same (default, primary) context: by GCudaModule,
 * and by raw cuModuleLoadData() of the same cubin, so the raw side
 * launches its own CUfunction of identical code. Every path launches with
 * grid 1 and the same block on one GCudaStream (the raw side uses its
 * handle).
 *
 * Paths:
 *   raw cuLaunchKernel, kernelParams: the reference; libcuda from
 *     dlopen("libcuda.so.1"), GCuda's context pushed by raw
 *     cuCtxPushCurrent_v2 once per round (as an application using the
 *     driver keeps its context current)
 *   raw cuLaunchKernel, extra: a packed parameter buffer
 *     (CU_LAUNCH_PARAM_BUFFER_POINTER), what launch_packed passes
 *   raw cuLaunchKernelEx: what launch_with_config calls
 *   gcuda_function_launch with one prebuilt GCudaKernelArgs,
 *   gcuda_function_launch_packed with a buffer packed once, and
 *   gcuda_function_launch_with_config with one prebuilt GCudaLaunchConfig:
 *     each with no context current (as an application calls GCuda, which
 *     then pushes and pops its context around every launch), and launch
 *     and launch_packed also with the context made current beforehand by
 *     gcuda_context_push() (GCuda then pushes nothing)
 *
 * A round is LAUNCHES launches of one path, queued asynchronously; the
 * stream is synchronized every SYNC_EVERY launches so that the launch queue
 * never fills (a full queue would make launches wait for the GPU). Only the
 * launch calls are timed (the clock is read before the first and after the
 * last launch of each batch, the synchronize is not counted), so the figure
 * is the host's cost per launch at steady state. The paths take turns
 * (the order rotates every round) after a warm-up round each; the best and
 * the median round are printed in µs per launch, with the difference to
 * the raw kernelParams path. With --json FILE every round's µs per launch
 * goes to FILE (the schema of tools/run-benchmarks), each GCuda path
 * beside the raw call it makes: launch and the ctx-current launch beside
 * kernelParams, launch_packed beside extra, launch_with_config beside
 * cuLaunchKernelEx. It asserts nothing; exit status 77 without a GPU, a
 * driver or NVRTC.
 *
 * Usage: bench-launch [--json FILE] [launches per round, default 100000] [rounds, default 20]
 *                     [sync every, default 1000] [threads per block, default 1]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "gcuda-cuda-abi-private.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcuda.h>

#include "bench-util.h"

static const char source[] = "__global__ void empty (float *a, float *b, int n) {}";

typedef struct {
  CUresult (*ctx_push) (CUcontext);
  CUresult (*ctx_pop) (CUcontext *);
  CUresult (*module_load_data) (CUmodule *, const void *);
  CUresult (*module_get_function) (CUfunction *, CUmodule, const char *);
  CUresult (*module_unload) (CUmodule);
  CUresult (*launch_kernel) (CUfunction, unsigned int, unsigned int, unsigned int,
                             unsigned int, unsigned int, unsigned int,
                             unsigned int, CUstream, void **, void **);
  CUresult (*launch_kernel_ex) (const CUlaunchConfig *, CUfunction, void **, void **);
  CUresult (*stream_synchronize) (CUstream);
  CUcontext context;
} Raw;

typedef enum {
  RAW_PARAMS,
  RAW_EXTRA,
  RAW_EX,
  GCUDA_ARGS,
  GCUDA_PACKED,
  GCUDA_CONFIG,
  GCUDA_ARGS_CURRENT,
  GCUDA_PACKED_CURRENT,
  N_PATHS
} Path;

/* the raw path each one is compared with in the --json report */
static const Path path_references[N_PATHS] = {
  N_PATHS, N_PATHS, N_PATHS,
  RAW_PARAMS, RAW_EXTRA, RAW_EX, RAW_PARAMS, RAW_EXTRA,
};

static const char *const path_names[N_PATHS] = {
  "raw cuLaunchKernel, kernelParams",
  "raw cuLaunchKernel, extra (packed)",
  "raw cuLaunchKernelEx",
  "gcuda_function_launch (KernelArgs)",
  "gcuda_function_launch_packed",
  "gcuda_function_launch_with_config",
  "gcuda_function_launch, ctx current",
  "gcuda_function_launch_packed, ctx current",
};

typedef struct {
  Raw *raw;
  GCudaContext *context;
  GCudaStream *stream;
  GCudaFunction *function;
  GCudaKernelArgs *args;
  GCudaLaunchConfig *config;
  CUfunction raw_function;
  CUstream raw_stream;
  guint block;
  /* the raw side's arguments, as kernelParams and as a packed buffer */
  CUdeviceptr a, b;
  int n;
  void *params[3];
  guint8 packed[20];
  size_t packed_size;
  void *extra[5];
  CUlaunchConfig raw_config;
} Bench;

static gboolean
raw_load (Raw *raw)
{
  void *lib = bench_open_driver ();

  if (lib == NULL)
    return FALSE;
#define RESOLVE(field, exported, base) \
  raw->field = (__typeof__ (raw->field)) bench_resolve (lib, exported, base)
  RESOLVE (ctx_push, "cuCtxPushCurrent_v2", "cuCtxPushCurrent");
  RESOLVE (ctx_pop, "cuCtxPopCurrent_v2", "cuCtxPopCurrent");
  RESOLVE (module_load_data, "cuModuleLoadData", "cuModuleLoadData");
  RESOLVE (module_get_function, "cuModuleGetFunction", "cuModuleGetFunction");
  RESOLVE (module_unload, "cuModuleUnload", "cuModuleUnload");
  RESOLVE (launch_kernel, "cuLaunchKernel", "cuLaunchKernel");
  RESOLVE (launch_kernel_ex, "cuLaunchKernelEx", "cuLaunchKernelEx");
  RESOLVE (stream_synchronize, "cuStreamSynchronize", "cuStreamSynchronize");
#undef RESOLVE
  return TRUE;
}

static void
push (Raw *raw)
{
  bench_raw_check (raw->ctx_push (raw->context), "cuCtxPushCurrent");
}

static void
pop (Raw *raw)
{
  CUcontext popped = NULL;

  bench_raw_check (raw->ctx_pop (&popped), "cuCtxPopCurrent");
}

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* @count launches of @path, back to back; the launch loops are spelled out
 * per path so that no path pays for a dispatch the others do not. */
static void
launches (Bench *b,
          Path   path,
          int    count)
{
  Raw *raw = b->raw;
  GError *error = NULL;
  const guint bx = b->block;
  CUresult res;

  switch (path)
    {
    case RAW_PARAMS:
      for (int i = 0; i < count; i++)
        if (G_UNLIKELY ((res = raw->launch_kernel (b->raw_function, 1, 1, 1, bx, 1, 1, 0, b->raw_stream,
                                                   b->params, NULL)) != CUDA_SUCCESS))
          bench_raw_check (res, "cuLaunchKernel");
      break;
    case RAW_EXTRA:
      for (int i = 0; i < count; i++)
        if (G_UNLIKELY ((res = raw->launch_kernel (b->raw_function, 1, 1, 1, bx, 1, 1, 0, b->raw_stream,
                                                   NULL, b->extra)) != CUDA_SUCCESS))
          bench_raw_check (res, "cuLaunchKernel (extra)");
      break;
    case RAW_EX:
      for (int i = 0; i < count; i++)
        if (G_UNLIKELY ((res = raw->launch_kernel_ex (&b->raw_config, b->raw_function, b->params, NULL)) != CUDA_SUCCESS))
          bench_raw_check (res, "cuLaunchKernelEx");
      break;
    case GCUDA_ARGS:
    case GCUDA_ARGS_CURRENT:
      for (int i = 0; i < count; i++)
        if (G_UNLIKELY (!gcuda_function_launch (b->function, 1, 1, 1, bx, 1, 1, 0, b->stream, b->args, &error)))
          bench_gcuda_check (FALSE, error, "gcuda_function_launch");
      break;
    case GCUDA_PACKED:
    case GCUDA_PACKED_CURRENT:
      for (int i = 0; i < count; i++)
        if (G_UNLIKELY (!gcuda_function_launch_packed (b->function, 1, 1, 1, bx, 1, 1, 0, b->stream,
                                                       b->packed, b->packed_size, &error)))
          bench_gcuda_check (FALSE, error, "gcuda_function_launch_packed");
      break;
    case GCUDA_CONFIG:
      for (int i = 0; i < count; i++)
        if (G_UNLIKELY (!gcuda_function_launch_with_config (b->function, b->config, b->args, &error)))
          bench_gcuda_check (FALSE, error, "gcuda_function_launch_with_config");
      break;
    default:
      g_assert_not_reached ();
    }
}

static gboolean
is_raw (Path path)
{
  return path == RAW_PARAMS || path == RAW_EXTRA || path == RAW_EX;
}

/* One round: @total launches, synchronized every @sync_every; µs per
 * launch of the launch calls alone. */
static double
round_us (Bench *b,
          Path   path,
          int    total,
          int    sync_every)
{
  g_autoptr(GError) error = NULL;
  gboolean current = path == GCUDA_ARGS_CURRENT || path == GCUDA_PACKED_CURRENT;
  double seconds = 0;

  if (is_raw (path))
    push (b->raw);
  if (current)
    bench_gcuda_check (gcuda_context_push (b->context, &error), error, "gcuda_context_push");

  for (int done = 0; done < total; done += sync_every)
    {
      int count = MIN (sync_every, total - done);
      double t0, t1;

      t0 = now ();
      launches (b, path, count);
      t1 = now ();
      seconds += t1 - t0;
      if (is_raw (path))
        bench_raw_check (b->raw->stream_synchronize (b->raw_stream), "cuStreamSynchronize");
      else
        bench_gcuda_check (gcuda_stream_synchronize (b->stream, &error), error, "gcuda_stream_synchronize");
    }

  if (current)
    bench_gcuda_check (gcuda_context_pop (&error), error, "gcuda_context_pop");
  if (is_raw (path))
    pop (b->raw);
  return seconds / total * 1e6;
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
summarize (double *us,
           int     n,
           double *best,
           double *median)
{
  qsort (us, n, sizeof *us, cmp_double);
  *best = us[0];
  *median = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) context = NULL;
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaCompiler) compiler = NULL;
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaBuffer) a = NULL;
  g_autoptr(GCudaBuffer) b_buf = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autoptr(GCudaLaunchConfig) config = NULL;
  GCudaFunction *function;
  GBytes *image;
  CUmodule raw_module = NULL;
  const char *json = bench_take_json_arg (&argc, argv);
  int total = argc > 1 ? atoi (argv[1]) : 100000;
  int rounds = argc > 2 ? atoi (argv[2]) : 20;
  int sync_every = argc > 3 ? atoi (argv[3]) : 1000;
  int block = argc > 4 ? atoi (argv[4]) : 1;
  double *us[N_PATHS];
  double best[N_PATHS], median[N_PATHS];
  Raw raw = { 0 };
  Bench b = { 0 };
  CUdeviceptr pa, pb;
  int n = 1000;
  BenchReport *report;
  g_autofree char *per_round = NULL;

  g_set_prgname ("bench-launch");
  if (total < 1 || rounds < 1 || sync_every < 1 || block < 1 || block > 1024)
    {
      fprintf (stderr, "usage: bench-launch [--json FILE] [launches per round] [rounds] [sync every] [threads per block]\n");
      return 2;
    }

  context = gcuda_context_get_default (&error);
  if (context == NULL)
    {
      fprintf (stderr, "bench-launch: no GPU: %s\n", error->message);
      return 77;
    }
  if (!raw_load (&raw))
    return 77;
  raw.context = (CUcontext) (guintptr) gcuda_context_get_handle (context);

  compiler = gcuda_compiler_new (context);
  gcuda_compiler_set_cache_dir (compiler, "");
  /* PTX for the mock driver (GCUDA_MOCK_KERNELS=1 reads PTX only), so that
   * the C rows and bench_launch.js's GJS rows can be compared without a GPU */
  if (g_strcmp0 (g_getenv ("GCUDA_MOCK_KERNELS"), "1") == 0)
    gcuda_compiler_set_arch (compiler, "compute_90");
  program = gcuda_compiler_compile (compiler, source, &error);
  if (program == NULL)
    {
      fprintf (stderr, "bench-launch: cannot compile the kernel: %s\n", error->message);
      return g_error_matches (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND) ? 77 : 1;
    }
  module = gcuda_module_new_from_program (context, program, &error);
  bench_gcuda_check (module != NULL, error, "gcuda_module_new_from_program");
  function = gcuda_module_get_function (module, "empty", &error);
  bench_gcuda_check (function != NULL, error, "gcuda_module_get_function");
  stream = gcuda_stream_new (context, GCUDA_STREAM_FLAGS_DEFAULT, 0, &error);
  bench_gcuda_check (stream != NULL, error, "gcuda_stream_new");
  a = gcuda_buffer_new (context, 4096, &error);
  bench_gcuda_check (a != NULL, error, "gcuda_buffer_new");
  b_buf = gcuda_buffer_new (context, 4096, &error);
  bench_gcuda_check (b_buf != NULL, error, "gcuda_buffer_new");

  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, a);
  gcuda_kernel_args_add_buffer (args, b_buf);
  gcuda_kernel_args_add_int32 (args, n);
  config = gcuda_launch_config_new ();
  gcuda_launch_config_set_grid (config, 1, 1, 1);
  gcuda_launch_config_set_block (config, block, 1, 1);
  gcuda_launch_config_set_stream (config, stream);

  /* the raw side: the same cubin, loaded again into the same context */
  image = gcuda_program_get_image (program);
  push (&raw);
  bench_raw_check (raw.module_load_data (&raw_module, g_bytes_get_data (image, NULL)), "cuModuleLoadData");
  bench_raw_check (raw.module_get_function (&b.raw_function, raw_module, "empty"), "cuModuleGetFunction");
  pop (&raw);

  b.raw = &raw;
  b.context = context;
  b.stream = stream;
  b.function = function;
  b.args = args;
  b.config = config;
  b.raw_stream = (CUstream) (guintptr) gcuda_stream_get_handle (stream);
  b.block = block;
  b.a = pa = (CUdeviceptr) gcuda_buffer_get_address (a);
  b.b = pb = (CUdeviceptr) gcuda_buffer_get_address (b_buf);
  b.n = n;
  b.params[0] = &b.a;
  b.params[1] = &b.b;
  b.params[2] = &b.n;
  /* float *, float *, int at their natural alignment: 0, 8, 16; 20 bytes */
  memcpy (b.packed + 0, &pa, sizeof pa);
  memcpy (b.packed + 8, &pb, sizeof pb);
  memcpy (b.packed + 16, &n, sizeof n);
  b.packed_size = 20;
  b.extra[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
  b.extra[1] = b.packed;
  b.extra[2] = CU_LAUNCH_PARAM_BUFFER_SIZE;
  b.extra[3] = &b.packed_size;
  b.extra[4] = CU_LAUNCH_PARAM_END;
  b.raw_config.gridDimX = b.raw_config.gridDimY = b.raw_config.gridDimZ = 1;
  b.raw_config.blockDimX = block;
  b.raw_config.blockDimY = b.raw_config.blockDimZ = 1;
  b.raw_config.hStream = b.raw_stream;

  printf ("Launch overhead of %s,\n"
          "grid 1, block %d, on one stream; µs per launch (host time of the launch calls; the stream\n"
          "synchronized every %d launches, not counted), best and median of %d rounds of %d launches,\n"
          "the paths taking turns; device: %s (%s); raw = libcuda called directly in the same process\n\n",
          source, block, sync_every, rounds, total,
          gcuda_device_get_name (gcuda_context_get_device (context)), gcuda_program_get_arch (program));

  for (Path p = 0; p < N_PATHS; p++)
    {
      us[p] = g_new (double, rounds);
      round_us (&b, p, MIN (total, 10000), sync_every);  /* warm-up */
    }
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < N_PATHS; k++)
      {
        Path p = (k + r) % N_PATHS;

        us[p][r] = round_us (&b, p, total, sync_every);
      }

  report = bench_report_new ("launch", "launch-c", "Launch overhead, C: GCuda's launches beside the raw driver");
  bench_report_param_int (report, "launches", total);
  bench_report_param_int (report, "rounds", rounds);
  bench_report_param_int (report, "sync_every", sync_every);
  bench_report_param_int (report, "block", block);
  bench_report_env (report, "device", gcuda_device_get_name (gcuda_context_get_device (context)));
  bench_report_env (report, "arch", gcuda_program_get_arch (program));
  per_round = g_strdup_printf ("%d launches", total);
  for (Path p = 0; p < N_PATHS; p++)
    bench_report_row (report, "empty kernel, 3 arguments", path_names[p],
                      is_raw (p) ? BENCH_ROLE_REFERENCE : BENCH_ROLE_GCUDA, "µs", FALSE, us[p], rounds,
                      is_raw (p) ? NULL : path_names[path_references[p]], NULL, per_round);
  bench_report_finish (report, json);

  printf ("%-44s %8s %8s %10s %10s %8s\n", "path", "best", "median", "-raw best", "-raw med", "med/raw");
  for (Path p = 0; p < N_PATHS; p++)
    summarize (us[p], rounds, &best[p], &median[p]);
  for (Path p = 0; p < N_PATHS; p++)
    {
      if (p == RAW_PARAMS)
        printf ("%-44s %8.3f %8.3f %10s %10s %8s\n", path_names[p], best[p], median[p], "", "", "");
      else
        printf ("%-44s %8.3f %8.3f %+10.3f %+10.3f %8.3f\n", path_names[p], best[p], median[p],
                best[p] - best[RAW_PARAMS], median[p] - median[RAW_PARAMS], median[p] / median[RAW_PARAMS]);
      g_free (us[p]);
    }
  printf ("\nGCuda C - raw (medians): launch %+.3f µs (beside kernelParams), launch_packed %+.3f µs (beside extra),\n"
          "launch_with_config %+.3f µs (beside cuLaunchKernelEx); all with no context current\n",
          median[GCUDA_ARGS] - median[RAW_PARAMS], median[GCUDA_PACKED] - median[RAW_EXTRA],
          median[GCUDA_CONFIG] - median[RAW_EX]);

  push (&raw);
  raw.module_unload (raw_module);
  pop (&raw);
  return 0;
}
