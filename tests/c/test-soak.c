/* test-soak.c: many threads doing random operations on shared objects
 *
 * N threads (GCUDA_SOAK_THREADS, default 16) each run a bounded number of
 * iterations (GCUDA_SOAK_ITERATIONS per thread, default 2000) of random
 * operations, for at most GCUDA_SOAK_SECONDS (default 3), on objects the
 * threads share and replace under each other: buffers allocated and freed
 * while others use them, views, streams and events, memory pools and stream
 * pools, page-locked host memory and its pool, kernel launches, contexts
 * destroyed while others use them, and compile_async + cancel where NVRTC
 * can be loaded. The seed is printed first; GCUDA_SOAK_SEED gives it back
 * (each thread draws from its own generator, so a thread's operations are
 * reproducible, their interleaving is not).
 *
 * Every operation checks its result: success, or a GError with a code that
 * the race explains (FREED after a free by another thread, CONTEXT_DESTROYED
 * after a destroy, CONTEXT_MISMATCH for objects of two contexts, CANCELLED
 * for a cancelled compile), never another code, an empty or invalid
 * message, or data other than what was written. A thread that makes no
 * progress for 120 s (GCUDA_SOAK_WATCHDOG) is a hang: the watchdog names its
 * operation and aborts.
 *
 * Memory that another thread may free is only written and checked under an
 * export (gcuda_buffer_export_begin(), GCuda's documented way to keep memory
 * through a use): a free meanwhile retires the buffer but leaves the memory
 * to the export's end, so data checks stay meaningful. Each thread writes
 * only its own slice of a shared buffer.
 *
 * Runs against the mock driver (suite `mock`, GCUDA_MOCK_KERNELS=1: streams,
 * PTX modules and launches that run nothing) and a real GPU (suite `gpu`);
 * what the driver lacks (the mock has no events or stream-ordered pools) is
 * skipped, and fails the test under GCUDA_TEST_REQUIRE_GPU=1 on a real
 * driver. With the mock, some reads also race a free without an export (the
 * mock checks every address under its lock: a read of freed memory is
 * CUDA_ERROR_INVALID_VALUE there; on a GPU that would be the program's bug).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <gio/gio.h>

#include "gcuda-test-util.h"

#define N_CONTEXTS 3   /* 0: the primary context, never destroyed; others dedicated */
#define N_BUFFERS 24
#define N_STREAMS 8
#define N_EVENTS 8
#define MAX_THREADS 256
#define MAX_BUFFER (64 * 1024)

/* A fill kernel, PTX for any GPU since sm_75 (and what the mock reads) */
static const char soak_ptx[] =
  ".version 7.0\n"
  ".target sm_75\n"
  ".address_size 64\n"
  "\n"
  ".visible .entry soak_fill(\n"
  "\t.param .u64 soak_fill_p,\n"
  "\t.param .u32 soak_fill_v,\n"
  "\t.param .u32 soak_fill_n\n"
  ")\n"
  "{\n"
  "\t.reg .pred %p<2>;\n"
  "\t.reg .b32 %r<6>;\n"
  "\t.reg .b64 %rd<5>;\n"
  "\n"
  "\tld.param.u64 %rd1, [soak_fill_p];\n"
  "\tld.param.u32 %r2, [soak_fill_v];\n"
  "\tld.param.u32 %r3, [soak_fill_n];\n"
  "\tmov.u32 %r4, %ctaid.x;\n"
  "\tmov.u32 %r5, %ntid.x;\n"
  "\tmov.u32 %r1, %tid.x;\n"
  "\tmad.lo.s32 %r1, %r4, %r5, %r1;\n"
  "\tsetp.ge.u32 %p1, %r1, %r3;\n"
  "\t@%p1 bra DONE;\n"
  "\tcvta.to.global.u64 %rd2, %rd1;\n"
  "\tmul.wide.u32 %rd3, %r1, 4;\n"
  "\tadd.s64 %rd4, %rd2, %rd3;\n"
  "\tst.global.u32 [%rd4], %r2;\n"
  "DONE:\n"
  "\tret;\n"
  "}\n";

/* Long enough that a cancel usually lands while NVRTC works. */
static const char soak_source[] =
  "template <int N> __device__ float step (float x) { return step<N - 1> (x * 1.0001f + (float) N); }\n"
  "template <> __device__ float step<0> (float x) { return x; }\n"
  "extern \"C\" __global__ void soak_compiled (float *out, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) out[i] = step<64> ((float) i);\n"
  "}\n";

typedef enum {
  OP_BUFFER_REPLACE,
  OP_BUFFER_FREE,
  OP_BUFFER_ROUND_TRIP,
  OP_VIEW,
  OP_COPY,
  OP_MEMSET,
  OP_RACY_READ,
  OP_STREAM_REPLACE,
  OP_STREAM_TRANSFER,
  OP_EVENT,
  OP_MEMORY_POOL,
  OP_STREAM_POOL,
  OP_PAGELOCKED,
  OP_HOST_POOL,
  OP_LAUNCH,
  OP_CONTEXT,
  OP_CONTEXT_DESTROY,
  OP_COMPILE,
  N_OPS
} Op;

static struct {
  guint n_threads;
  guint64 iterations;
  double seconds;
  guint32 seed;
  gboolean mock;            /* the driver is tests/mock/mock-libcuda.c */
  gboolean racy_reads;      /* reads without an export may race a free */
  gboolean have_events;
  gboolean have_stream_pools;
  gboolean have_modules;
  gboolean have_nvrtc;
  gboolean check_kernels;   /* kernels really run: check what they wrote */
  guint block;              /* threads per block */
  guint max_grid;           /* blocks in x */
  gint64 deadline;
  guint64 watchdog;         /* seconds */
} config;

/* Each operation: its name, how often it is drawn, and the capability it
 * needs (NULL: none); without it the draw counts as skipped. */
static const struct {
  const char *name;
  guint weight;
  const gboolean *needs;
} ops[N_OPS] = {
  [OP_BUFFER_REPLACE] = { "buffer-replace", 8, NULL },
  [OP_BUFFER_FREE] = { "buffer-free", 2, NULL },
  [OP_BUFFER_ROUND_TRIP] = { "buffer-round-trip", 12, NULL },
  [OP_VIEW] = { "view", 10, NULL },
  [OP_COPY] = { "copy", 8, NULL },
  [OP_MEMSET] = { "memset", 8, NULL },
  [OP_RACY_READ] = { "racy-read", 6, &config.racy_reads },
  [OP_STREAM_REPLACE] = { "stream-replace", 3, NULL },
  [OP_STREAM_TRANSFER] = { "stream-transfer", 8, NULL },
  [OP_EVENT] = { "event", 5, &config.have_events },
  [OP_MEMORY_POOL] = { "memory-pool", 8, NULL },
  [OP_STREAM_POOL] = { "stream-pool", 4, &config.have_stream_pools },
  [OP_PAGELOCKED] = { "pagelocked", 5, NULL },
  [OP_HOST_POOL] = { "host-pool", 5, NULL },
  [OP_LAUNCH] = { "launch", 8, &config.have_modules },
  [OP_CONTEXT] = { "context", 4, NULL },
  [OP_CONTEXT_DESTROY] = { "context-destroy", 1, NULL },
  [OP_COMPILE] = { "compile-cancel", 1, &config.have_nvrtc },
};

/* What a race explains: the error codes an operation may meet. */
enum {
  ALLOW_FREED = 1 << 0,
  ALLOW_DESTROYED = 1 << 1,
  ALLOW_MISMATCH = 1 << 2,
  ALLOW_CANCELLED = 1 << 3,
  ALLOW_DRIVER_INVALID_VALUE = 1 << 4,  /* the mock: a read racing a free */
};
#define ALLOW_RACES (ALLOW_FREED | ALLOW_DESTROYED)

typedef struct {
  GCudaContext *context;
  GCudaMemoryPool *pool;
  GCudaHostMemoryPool *host_pool;
  GCudaStreamPool *stream_pool;   /* NULL where the driver has none */
  GCudaModule *module;            /* NULL where the driver has no modules */
} ContextSlot;

static struct {
  GMutex lock;
  ContextSlot contexts[N_CONTEXTS];
  GCudaBuffer *buffers[N_BUFFERS];
  GCudaStream *streams[N_STREAMS];
  GCudaEvent *events[N_EVENTS];
} shared;

static GMutex failure_lock;
static GString *failures;
static guint n_failures_recorded;
static gint n_failures;
static gint stop;
/* expected errors by kind: FREED, CONTEXT_DESTROYED, CONTEXT_MISMATCH,
 * CANCELLED, the driver's INVALID_VALUE */
static gint n_kinds[5];

typedef struct {
  guint index;
  GRand *rand;
  guint64 iterations;
  guint64 ops[N_OPS];
  guint64 expected_errors[N_OPS];
  guint64 skipped[N_OPS];
  gpointer last_progress;   /* atomic: a monotonic time in µs */
  gint current_op;          /* atomic */
  GMainContext *main_context;
} Worker;

static Worker *workers;

static void
fail (Worker     *w,
      Op          op,
      const char *format,
      ...) G_GNUC_PRINTF (3, 4);

static void
fail (Worker     *w,
      Op          op,
      const char *format,
      ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_atomic_int_inc (&n_failures);
  g_mutex_lock (&failure_lock);
  if (n_failures_recorded++ < 20)
    g_string_append_printf (failures, "thread %u, iteration %" G_GUINT64_FORMAT ", %s: %s\n",
                            w->index, w->iterations, ops[op].name, message);
  g_mutex_unlock (&failure_lock);
}

/* TRUE when the call succeeded; FALSE for an error, which is counted as
 * expected when @allowed explains it and as a failure otherwise. */
static gboolean
check (Worker      *w,
       Op           op,
       gboolean     ok,
       GError     **error,
       guint        allowed,
       const char  *what)
{
  GError *e = *error;
  gboolean expected = FALSE;

  if (ok && e == NULL)
    return TRUE;
  if (ok || e == NULL)
    {
      fail (w, op, "%s: %s", what, ok ? "succeeded with an error set" : "failed without an error");
      g_clear_error (error);
      return FALSE;
    }
  if (e->message == NULL || e->message[0] == '\0' || !g_utf8_validate (e->message, -1, NULL))
    fail (w, op, "%s: an empty or invalid message (%s %d)", what, g_quark_to_string (e->domain), e->code);
  int kind = -1;

  if (e->domain == GCUDA_ERROR && (allowed & ALLOW_FREED) && e->code == GCUDA_ERROR_FREED)
    kind = 0;
  else if (e->domain == GCUDA_ERROR && (allowed & ALLOW_DESTROYED) && e->code == GCUDA_ERROR_CONTEXT_DESTROYED)
    kind = 1;
  else if (e->domain == GCUDA_ERROR && (allowed & ALLOW_MISMATCH) && e->code == GCUDA_ERROR_CONTEXT_MISMATCH)
    kind = 2;
  else if (e->domain == G_IO_ERROR && (allowed & ALLOW_CANCELLED) && e->code == G_IO_ERROR_CANCELLED)
    kind = 3;
  else if (e->domain == GCUDA_DRIVER_ERROR && (allowed & ALLOW_DRIVER_INVALID_VALUE) &&
           e->code == 1 /* CUDA_ERROR_INVALID_VALUE */)
    kind = 4;
  expected = kind >= 0;
  if (expected)
    {
      w->expected_errors[op]++;
      g_atomic_int_inc (&n_kinds[kind]);
    }
  else
    fail (w, op, "%s: unexpected error %s %d: %s", what, g_quark_to_string (e->domain), e->code, e->message);
  g_clear_error (error);
  return FALSE;
}

static guint
rand_below (Worker *w,
            guint   n)
{
  return (guint) g_rand_int_range (w->rand, 0, (gint32) n);
}

/* ------------------------------------------------------------ shared objects */

/* A reference to what @slot, a member of `shared`, holds (NULL for none). */
static gpointer
take_slot (gpointer *slot)
{
  gpointer object;

  g_mutex_lock (&shared.lock);
  object = *slot != NULL ? g_object_ref (*slot) : NULL;
  g_mutex_unlock (&shared.lock);
  return object;
}

#define take(member) take_slot ((gpointer *) &shared.member)

/* A shared stream, mostly one of @context (a few tries): a stream of
 * another context is CONTEXT_MISMATCH, which must be tested but not only. */
static GCudaStream *
take_stream_for (Worker       *w,
                 GCudaContext *context)
{
  GCudaStream *stream = NULL;

  for (guint tries = 0; tries < 6; tries++)
    {
      g_clear_object (&stream);
      stream = take (streams[rand_below (w, N_STREAMS)]);
      if (stream != NULL && gcuda_stream_get_context (stream) == context)
        break;
    }
  return stream;
}

/* This thread's slice of @buffer: [offset, offset + size), size a multiple
 * of 4 (possibly 0). */
static void
slice_of (Worker      *w,
          GCudaBuffer *buffer,
          guint64     *offset,
          guint64     *size)
{
  guint64 slice = gcuda_buffer_get_size (buffer) / config.n_threads / 4 * 4;

  *offset = slice * w->index;
  *size = slice;
}

static GBytes *
pattern (Worker *w,
         gsize   size)
{
  guint8 *data = g_malloc (size ? size : 1);

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) g_rand_int (w->rand);
  return g_bytes_new_take (data, size);
}

static void
check_bytes (Worker     *w,
             Op          op,
             GBytes     *got,
             GBytes     *expected,
             const char *what)
{
  if (!g_bytes_equal (got, expected))
    fail (w, op, "%s: wrong data (%" G_GSIZE_FORMAT " bytes read, %" G_GSIZE_FORMAT " written)", what,
          g_bytes_get_size (got), g_bytes_get_size (expected));
}

static void
check_fill (Worker        *w,
            Op             op,
            GBytes        *got,
            guint32        value,
            const char    *what)
{
  gsize size;
  const guint32 *words = g_bytes_get_data (got, &size);

  for (gsize i = 0; i < size / 4; i++)
    if (words[i] != value)
      {
        fail (w, op, "%s: word %" G_GSIZE_FORMAT " is 0x%08x, not 0x%08x", what, i, words[i], value);
        return;
      }
}

/* ------------------------------------------------------------ operations */

static void
op_buffer_replace (Worker *w)
{
  guint slot = rand_below (w, N_BUFFERS);
  g_autoptr(GCudaContext) context = take (contexts[rand_below (w, N_CONTEXTS)].context);
  g_autoptr(GError) error = NULL;
  GCudaBuffer *buffer, *old;

  buffer = gcuda_buffer_new (context, 1 + rand_below (w, MAX_BUFFER), &error);
  if (!check (w, OP_BUFFER_REPLACE, buffer != NULL, &error, ALLOW_DESTROYED, "gcuda_buffer_new"))
    return;
  g_mutex_lock (&shared.lock);
  old = shared.buffers[slot];
  shared.buffers[slot] = buffer;
  g_mutex_unlock (&shared.lock);
  if (old != NULL)
    {
      /* another thread may have freed it: that is the only error */
      gboolean ok = gcuda_buffer_free (old, &error);

      check (w, OP_BUFFER_REPLACE, ok, &error, ALLOW_FREED, "gcuda_buffer_free (replaced)");
      g_object_unref (old);
    }
}

static void
op_buffer_free (Worker *w)
{
  g_autoptr(GCudaBuffer) buffer = take (buffers[rand_below (w, N_BUFFERS)]);
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (buffer == NULL)
    return;
  ok = gcuda_buffer_free (buffer, &error);
  check (w, OP_BUFFER_FREE, ok, &error, ALLOW_FREED, "gcuda_buffer_free");
  if (!gcuda_buffer_is_freed (buffer))
    fail (w, OP_BUFFER_FREE, "a freed buffer says it is not freed");
}

/* Exports @buffer for a use (see the top of the file); FALSE when a race
 * retired it first. */
static gboolean
lease (Worker      *w,
       Op           op,
       GCudaBuffer *buffer)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = gcuda_buffer_export_begin (buffer, &error);

  return check (w, op, ok, &error, ALLOW_RACES, "gcuda_buffer_export_begin");
}

static void
unlease (Worker      *w,
         Op           op,
         GCudaBuffer *buffer)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = gcuda_buffer_export_end (buffer, &error);

  check (w, op, ok, &error, 0, "gcuda_buffer_export_end");
}

/* Writes a fresh pattern of @size bytes into @to at @to_offset, reads
 * @from (@to, or the buffer @to is a view of) at @from_offset back and
 * checks that the bytes are the pattern. */
static void
write_read_back (Worker      *w,
                 Op           op,
                 GCudaBuffer *to,
                 guint64      to_offset,
                 GCudaBuffer *from,
                 guint64      from_offset,
                 guint64      size,
                 guint        allowed,
                 const char  *what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) data = pattern (w, size);
  g_autoptr(GBytes) back = NULL;

  if (!check (w, op, gcuda_buffer_upload_bytes (to, to_offset, data, &error), &error, allowed,
              "gcuda_buffer_upload_bytes"))
    return;
  back = gcuda_buffer_download (from, from_offset, size, &error);
  if (check (w, op, back != NULL, &error, allowed, "gcuda_buffer_download"))
    check_bytes (w, op, back, data, what);
}

static void
op_buffer_round_trip (Worker *w)
{
  g_autoptr(GCudaBuffer) buffer = take (buffers[rand_below (w, N_BUFFERS)]);
  guint64 offset, size;

  if (buffer == NULL || !lease (w, OP_BUFFER_ROUND_TRIP, buffer))
    return;
  slice_of (w, buffer, &offset, &size);
  if (size > 0)
    write_read_back (w, OP_BUFFER_ROUND_TRIP, buffer, offset, buffer, offset, size, ALLOW_RACES, "upload, download");
  unlease (w, OP_BUFFER_ROUND_TRIP, buffer);
}

static void
op_view (Worker *w)
{
  g_autoptr(GCudaBuffer) buffer = take (buffers[rand_below (w, N_BUFFERS)]);
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GCudaBuffer) inner = NULL;
  g_autoptr(GError) error = NULL;
  guint64 offset, size, inner_offset, inner_size;

  if (buffer == NULL)
    return;
  slice_of (w, buffer, &offset, &size);
  if (size == 0)
    return;
  view = gcuda_buffer_new_view (buffer, offset, size, &error);
  if (!check (w, OP_VIEW, view != NULL, &error, ALLOW_FREED, "gcuda_buffer_new_view"))
    return;
  if (gcuda_buffer_get_parent (view) != buffer || gcuda_buffer_get_size (view) != size)
    fail (w, OP_VIEW, "the view has another parent or size");
  /* a view of the view, and the view exported: it keeps its root's memory */
  inner_offset = rand_below (w, (guint) size);
  inner_size = 1 + rand_below (w, (guint) (size - inner_offset));
  inner = gcuda_buffer_new_view (view, inner_offset, inner_size, &error);
  if (!check (w, OP_VIEW, inner != NULL, &error, ALLOW_FREED, "gcuda_buffer_new_view (of a view)"))
    return;
  if (!lease (w, OP_VIEW, inner))
    return;
  write_read_back (w, OP_VIEW, inner, 0, buffer, offset + inner_offset, inner_size, ALLOW_RACES,
                   "through a view, back through its parent");
  unlease (w, OP_VIEW, inner);
  /* freeing a view never frees its parent */
  if (rand_below (w, 2) == 0 &&
      check (w, OP_VIEW, gcuda_buffer_free (view, &error), &error, ALLOW_FREED, "gcuda_buffer_free (view)") &&
      gcuda_buffer_is_freed (buffer) && !gcuda_buffer_is_freed (view))
    fail (w, OP_VIEW, "a freed view's parent is freed, the view is not");
}

static void
op_copy (Worker *w)
{
  g_autoptr(GCudaBuffer) a = take (buffers[rand_below (w, N_BUFFERS)]);
  g_autoptr(GCudaBuffer) b = take (buffers[rand_below (w, N_BUFFERS)]);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) data = NULL;
  g_autoptr(GBytes) back = NULL;
  guint64 a_offset, a_size, b_offset, b_size, size;

  if (a == NULL || b == NULL || a == b)
    return;
  /* between two contexts the driver copies peer to peer, which the mock lacks */
  if (config.mock && gcuda_buffer_get_context (a) != gcuda_buffer_get_context (b))
    {
      w->skipped[OP_COPY]++;
      return;
    }
  if (!lease (w, OP_COPY, a))
    return;
  if (!lease (w, OP_COPY, b))
    {
      unlease (w, OP_COPY, a);
      return;
    }
  slice_of (w, a, &a_offset, &a_size);
  slice_of (w, b, &b_offset, &b_size);
  size = MIN (a_size, b_size);
  if (size == 0)
    goto out;
  data = pattern (w, size);
  if (!check (w, OP_COPY, gcuda_buffer_upload_bytes (a, a_offset, data, &error), &error, ALLOW_RACES,
              "gcuda_buffer_upload_bytes"))
    goto out;
  /* buffers of two contexts of one device: the driver copies between them */
  if (!check (w, OP_COPY, gcuda_buffer_copy_from (b, b_offset, a, a_offset, size, &error), &error,
              ALLOW_RACES, "gcuda_buffer_copy_from"))
    goto out;
  back = gcuda_buffer_download (b, b_offset, size, &error);
  if (check (w, OP_COPY, back != NULL, &error, ALLOW_RACES, "gcuda_buffer_download"))
    check_bytes (w, OP_COPY, back, data, "upload, copy, download");
out:
  unlease (w, OP_COPY, b);
  unlease (w, OP_COPY, a);
}

static void
op_memset (Worker *w)
{
  g_autoptr(GCudaBuffer) buffer = take (buffers[rand_below (w, N_BUFFERS)]);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) back = NULL;
  guint64 offset, size;
  guint32 value = g_rand_int (w->rand);
  gboolean ok;

  if (buffer == NULL || !lease (w, OP_MEMSET, buffer))
    return;
  slice_of (w, buffer, &offset, &size);
  if (size == 0)
    goto out;
  switch (rand_below (w, 3))
    {
    case 0:
      value = (value & 0xff) * 0x01010101u;
      ok = gcuda_buffer_memset_d8 (buffer, offset, (guint8) value, size, NULL, &error);
      break;
    case 1:
      value = (value & 0xffff) * 0x00010001u;
      ok = gcuda_buffer_memset_d16 (buffer, offset, (guint16) value, size / 2, NULL, &error);
      break;
    default:
      ok = gcuda_buffer_memset_d32 (buffer, offset, value, size / 4, NULL, &error);
      break;
    }
  if (!check (w, OP_MEMSET, ok, &error, ALLOW_RACES, "gcuda_buffer_memset"))
    goto out;
  back = gcuda_buffer_download (buffer, offset, size, &error);
  if (check (w, OP_MEMSET, back != NULL, &error, ALLOW_RACES, "gcuda_buffer_download"))
    check_fill (w, OP_MEMSET, back, value, "memset, download");
out:
  unlease (w, OP_MEMSET, buffer);
}

/* A read of memory another thread may free meanwhile, without an export
 * (mock only, see the top of the file): what it reads is not checked. */
static void
op_racy_read (Worker *w)
{
  g_autoptr(GCudaBuffer) buffer = take (buffers[rand_below (w, N_BUFFERS)]);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) back = NULL;
  guint64 size;

  if (buffer == NULL)
    return;
  size = gcuda_buffer_get_size (buffer);
  back = gcuda_buffer_download (buffer, 0, size, &error);
  if (check (w, OP_RACY_READ, back != NULL, &error, ALLOW_RACES | ALLOW_DRIVER_INVALID_VALUE,
             "gcuda_buffer_download") && g_bytes_get_size (back) != size)
    fail (w, OP_RACY_READ, "read %" G_GSIZE_FORMAT " bytes, not %" G_GUINT64_FORMAT, g_bytes_get_size (back), size);
}

static void
op_stream_replace (Worker *w)
{
  guint slot = rand_below (w, N_STREAMS);
  g_autoptr(GCudaContext) context = take (contexts[rand_below (w, N_CONTEXTS)].context);
  g_autoptr(GError) error = NULL;
  GCudaStream *stream, *old;

  stream = gcuda_stream_new (context, rand_below (w, 2) ? GCUDA_STREAM_FLAGS_NON_BLOCKING : GCUDA_STREAM_FLAGS_DEFAULT,
                             0, &error);
  if (!check (w, OP_STREAM_REPLACE, stream != NULL, &error, ALLOW_DESTROYED, "gcuda_stream_new"))
    return;
  g_mutex_lock (&shared.lock);
  old = shared.streams[slot];
  shared.streams[slot] = stream;
  g_mutex_unlock (&shared.lock);
  /* the last reference destroys the stream, maybe while another thread uses it */
  g_clear_object (&old);
}

static void
op_stream_transfer (Worker *w)
{
  g_autoptr(GCudaBuffer) buffer = take (buffers[rand_below (w, N_BUFFERS)]);
  g_autoptr(GCudaStream) stream = buffer ? take_stream_for (w, gcuda_buffer_get_context (buffer)) : NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) data = NULL;
  g_autofree guint8 *back = NULL;
  guint64 offset, size;
  gboolean ok;

  if (stream == NULL || buffer == NULL || !lease (w, OP_STREAM_TRANSFER, buffer))
    return;
  slice_of (w, buffer, &offset, &size);
  if (size == 0)
    goto out;
  data = pattern (w, size);
  back = g_malloc0 (size);
  ok = gcuda_buffer_upload_from_address_on_stream (buffer, offset, (guint64) (guintptr) g_bytes_get_data (data, NULL),
                                                   size, stream, &error);
  if (!check (w, OP_STREAM_TRANSFER, ok, &error, ALLOW_RACES | ALLOW_MISMATCH, "upload_from_address_on_stream"))
    goto out;
  ok = gcuda_buffer_download_to_address_on_stream (buffer, offset, (guint64) (guintptr) back, size, stream, &error);
  if (!check (w, OP_STREAM_TRANSFER, ok, &error, ALLOW_RACES | ALLOW_MISMATCH, "download_to_address_on_stream"))
    {
      /* the upload is queued: wait for it before its source goes */
      gcuda_stream_synchronize (stream, NULL);
      goto out;
    }
  ok = gcuda_stream_synchronize (stream, &error);
  if (check (w, OP_STREAM_TRANSFER, ok, &error, ALLOW_DESTROYED, "gcuda_stream_synchronize") &&
      memcmp (back, g_bytes_get_data (data, NULL), size) != 0)
    fail (w, OP_STREAM_TRANSFER, "upload and download on a stream: wrong data");
out:
  unlease (w, OP_STREAM_TRANSFER, buffer);
}

static void
op_event (Worker *w)
{
  g_autoptr(GCudaStream) stream = take (streams[rand_below (w, N_STREAMS)]);
  g_autoptr(GCudaEvent) start = NULL;
  g_autoptr(GCudaEvent) end = NULL;
  g_autoptr(GError) error = NULL;
  GCudaContext *context;
  GCudaEvent *old;
  float ms;
  guint slot = rand_below (w, N_EVENTS);

  if (stream == NULL)
    return;
  context = gcuda_stream_get_context (stream);
  start = gcuda_event_new (context, GCUDA_EVENT_FLAGS_DEFAULT, &error);
  if (!check (w, OP_EVENT, start != NULL, &error, ALLOW_DESTROYED, "gcuda_event_new"))
    return;
  end = gcuda_event_new (context, rand_below (w, 2) ? GCUDA_EVENT_FLAGS_BLOCKING_SYNC : GCUDA_EVENT_FLAGS_DEFAULT,
                         &error);
  if (!check (w, OP_EVENT, end != NULL, &error, ALLOW_DESTROYED, "gcuda_event_new"))
    return;
  if (!check (w, OP_EVENT, gcuda_event_record (start, stream, &error) != NULL, &error, ALLOW_DESTROYED,
              "gcuda_event_record") ||
      !check (w, OP_EVENT, gcuda_event_record (end, stream, &error) != NULL, &error, ALLOW_DESTROYED,
              "gcuda_event_record") ||
      !check (w, OP_EVENT, gcuda_event_synchronize (end, &error) != NULL, &error, ALLOW_DESTROYED,
              "gcuda_event_synchronize"))
    return;
  if (!gcuda_event_query (end, &error))
    {
      if (error == NULL)
        fail (w, OP_EVENT, "a synchronized event is not done");
      else
        check (w, OP_EVENT, FALSE, &error, ALLOW_DESTROYED, "gcuda_event_query");
      return;
    }
  ms = gcuda_event_elapsed (start, end, &error);
  if (check (w, OP_EVENT, error == NULL, &error, ALLOW_DESTROYED, "gcuda_event_elapsed") && !(ms >= 0.0f))
    fail (w, OP_EVENT, "elapsed time %g ms", ms);

  /* a shared event, recorded on another stream and waited for by this one */
  g_mutex_lock (&shared.lock);
  old = shared.events[slot];
  shared.events[slot] = g_object_ref (end);
  g_mutex_unlock (&shared.lock);
  if (old != NULL)
    {
      gboolean ok = gcuda_stream_wait_event (stream, old, &error);

      check (w, OP_EVENT, ok, &error, ALLOW_RACES | ALLOW_MISMATCH, "gcuda_stream_wait_event");
      g_object_unref (old);
    }
}

static void
op_memory_pool (Worker *w)
{
  guint i = rand_below (w, N_CONTEXTS);
  g_autoptr(GCudaMemoryPool) pool = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GError) error = NULL;
  guint64 size = 1 + rand_below (w, MAX_BUFFER);

  pool = take (contexts[i].pool);

  switch (rand_below (w, 8))
    {
    case 0:
      gcuda_memory_pool_free_held (pool);
      return;
    case 1:
      gcuda_memory_pool_set_max_held_bytes (pool, rand_below (w, 2) ? G_MAXUINT64 : 4 * MAX_BUFFER);
      return;
    default:
      break;
    }
  buffer = gcuda_memory_pool_allocate (pool, size, &error);
  if (!check (w, OP_MEMORY_POOL, buffer != NULL, &error, ALLOW_DESTROYED, "gcuda_memory_pool_allocate"))
    return;
  if (gcuda_buffer_get_size (buffer) != size)
    fail (w, OP_MEMORY_POOL, "a pooled buffer of %" G_GUINT64_FORMAT " bytes for %" G_GUINT64_FORMAT,
          gcuda_buffer_get_size (buffer), size);
  /* the pooled block is this thread's alone */
  write_read_back (w, OP_MEMORY_POOL, buffer, 0, buffer, 0, size, ALLOW_DESTROYED, "a pooled buffer");
  /* back to the pool by free(), or by the last reference */
  if (rand_below (w, 2))
    check (w, OP_MEMORY_POOL, gcuda_buffer_free (buffer, &error), &error, 0, "gcuda_buffer_free (pooled)");
}

static void
op_stream_pool (Worker *w)
{
  guint i = rand_below (w, N_CONTEXTS);
  g_autoptr(GCudaStreamPool) pool = NULL;
  g_autoptr(GCudaStream) stream = take (streams[rand_below (w, N_STREAMS)]);
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) data = NULL;
  g_autoptr(GBytes) back = NULL;
  guint64 size = 1 + rand_below (w, MAX_BUFFER);
  gboolean ok;

  pool = take (contexts[i].stream_pool);
  if (pool == NULL || stream == NULL)
    return;
  if (rand_below (w, 8) == 0)
    {
      ok = gcuda_stream_pool_trim (pool, rand_below (w, 2) ? 0 : MAX_BUFFER, &error);

      check (w, OP_STREAM_POOL, ok, &error, ALLOW_DESTROYED, "gcuda_stream_pool_trim");
      return;
    }
  buffer = gcuda_stream_pool_allocate (pool, size, stream, &error);
  if (!check (w, OP_STREAM_POOL, buffer != NULL, &error, ALLOW_DESTROYED | ALLOW_MISMATCH,
              "gcuda_stream_pool_allocate"))
    return;
  /* the memory is the stream's from its allocation on: transfers on it */
  data = pattern (w, size);
  back = g_bytes_new_take (g_malloc0 (size), size);
  ok = gcuda_buffer_upload_from_address_on_stream (buffer, 0, (guint64) (guintptr) g_bytes_get_data (data, NULL),
                                                   size, stream, &error);
  if (check (w, OP_STREAM_POOL, ok, &error, ALLOW_DESTROYED, "upload_from_address_on_stream"))
    {
      ok = gcuda_buffer_download_to_address_on_stream (buffer, 0, (guint64) (guintptr) g_bytes_get_data (back, NULL),
                                                       size, stream, &error);
      check (w, OP_STREAM_POOL, ok, &error, ALLOW_DESTROYED, "download_to_address_on_stream");
      /* whatever is queued reads or writes data and back: wait for it */
      if (check (w, OP_STREAM_POOL, gcuda_stream_synchronize (stream, &error), &error, ALLOW_DESTROYED,
                 "gcuda_stream_synchronize") && ok)
        check_bytes (w, OP_STREAM_POOL, back, data, "a stream-ordered buffer");
    }
  if (rand_below (w, 2))
    check (w, OP_STREAM_POOL, gcuda_buffer_free (buffer, &error), &error, 0, "gcuda_buffer_free (stream-ordered)");
}

/* Page-locked memory, written from the host, through a device buffer and
 * back into another page-locked buffer. */
static void
pagelocked_round_trip (Worker          *w,
                       Op               op,
                       GCudaHostBuffer *a,
                       GCudaHostBuffer *b)
{
  g_autoptr(GCudaBuffer) device = take (buffers[rand_below (w, N_BUFFERS)]);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) data = NULL;
  g_autoptr(GBytes) back = NULL;
  guint64 offset, size;
  gboolean ok;

  if (device == NULL || !lease (w, op, device))
    return;
  slice_of (w, device, &offset, &size);
  size = MIN (size, gcuda_host_buffer_get_size (a));
  size = MIN (size, gcuda_host_buffer_get_size (b));
  if (size == 0)
    goto out;
  data = pattern (w, size);
  if (!check (w, op, gcuda_host_buffer_write (a, 0, data, &error), &error, ALLOW_DESTROYED, "gcuda_host_buffer_write"))
    goto out;
  ok = gcuda_buffer_upload_from_address (device, offset, gcuda_host_buffer_get_address (a), size, &error);
  if (!check (w, op, ok, &error, ALLOW_RACES, "gcuda_buffer_upload_from_address"))
    goto out;
  ok = gcuda_buffer_download_to_address (device, offset, gcuda_host_buffer_get_address (b), size, &error);
  if (!check (w, op, ok, &error, ALLOW_RACES, "gcuda_buffer_download_to_address"))
    goto out;
  back = gcuda_host_buffer_read (b, 0, size, &error);
  if (check (w, op, back != NULL, &error, ALLOW_DESTROYED, "gcuda_host_buffer_read"))
    check_bytes (w, op, back, data, "page-locked, device, page-locked");
out:
  unlease (w, op, device);
}

static void
op_pagelocked (Worker *w)
{
  g_autoptr(GCudaContext) context = take (contexts[rand_below (w, N_CONTEXTS)].context);
  g_autoptr(GCudaHostBuffer) a = NULL;
  g_autoptr(GCudaHostBuffer) b = NULL;
  g_autoptr(GError) error = NULL;
  guint64 size = 1 + rand_below (w, MAX_BUFFER);

  a = gcuda_host_buffer_new_pagelocked (context, size, GCUDA_HOST_ALLOC_FLAGS_DEFAULT, &error);
  if (!check (w, OP_PAGELOCKED, a != NULL, &error, ALLOW_DESTROYED, "gcuda_host_buffer_new_pagelocked"))
    return;
  b = gcuda_host_buffer_new_pagelocked (context, size, GCUDA_HOST_ALLOC_FLAGS_PORTABLE, &error);
  if (!check (w, OP_PAGELOCKED, b != NULL, &error, ALLOW_DESTROYED, "gcuda_host_buffer_new_pagelocked"))
    return;
  pagelocked_round_trip (w, OP_PAGELOCKED, a, b);
  check (w, OP_PAGELOCKED, gcuda_host_buffer_free (a, &error), &error, 0, "gcuda_host_buffer_free");
  if (gcuda_host_buffer_free (a, &error))
    fail (w, OP_PAGELOCKED, "freeing page-locked memory twice succeeded");
  else if (!g_error_matches (error, GCUDA_ERROR, GCUDA_ERROR_FREED))
    check (w, OP_PAGELOCKED, FALSE, &error, 0, "gcuda_host_buffer_free (twice)");
}

static void
op_host_pool (Worker *w)
{
  guint i = rand_below (w, N_CONTEXTS);
  g_autoptr(GCudaHostMemoryPool) pool = NULL;
  g_autoptr(GCudaHostBuffer) a = NULL;
  g_autoptr(GCudaHostBuffer) b = NULL;
  g_autoptr(GError) error = NULL;
  guint64 size = 1 + rand_below (w, MAX_BUFFER);

  pool = take (contexts[i].host_pool);
  if (rand_below (w, 8) == 0)
    {
      gcuda_host_memory_pool_free_held (pool);
      return;
    }
  a = gcuda_host_memory_pool_allocate (pool, size, &error);
  if (!check (w, OP_HOST_POOL, a != NULL, &error, ALLOW_DESTROYED, "gcuda_host_memory_pool_allocate"))
    return;
  b = gcuda_host_memory_pool_allocate (pool, size, &error);
  if (!check (w, OP_HOST_POOL, b != NULL, &error, ALLOW_DESTROYED, "gcuda_host_memory_pool_allocate"))
    return;
  if (gcuda_host_buffer_get_address (a) == gcuda_host_buffer_get_address (b))
    fail (w, OP_HOST_POOL, "two live pooled host buffers at one address");
  pagelocked_round_trip (w, OP_HOST_POOL, a, b);
  if (rand_below (w, 2))
    check (w, OP_HOST_POOL, gcuda_host_buffer_free (a, &error), &error, 0, "gcuda_host_buffer_free (pooled)");
}

static void
op_launch (Worker *w)
{
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaFunction) function = NULL;
  g_autoptr(GCudaBuffer) buffer = take (buffers[rand_below (w, N_BUFFERS)]);
  g_autoptr(GCudaStream) stream = NULL;
  g_autoptr(GCudaKernelArgs) args = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) back = NULL;
  guint64 offset, size;
  guint32 value = g_rand_int (w->rand);
  guint n;
  gboolean ok;

  if (buffer == NULL)
    return;
  /* the module of the buffer's context: a kernel cannot reach memory of
   * another context (GCuda does not check buffers, the GPU would fault) */
  g_mutex_lock (&shared.lock);
  for (guint i = 0; i < N_CONTEXTS; i++)
    if (shared.contexts[i].context == gcuda_buffer_get_context (buffer) && shared.contexts[i].module != NULL)
      module = g_object_ref (shared.contexts[i].module);
  g_mutex_unlock (&shared.lock);
  /* the buffer's context was destroyed and replaced, with its module */
  if (module == NULL)
    return;
  /* a stream of another context is CONTEXT_MISMATCH, checked by GCuda */
  if (rand_below (w, 2))
    stream = take_stream_for (w, gcuda_buffer_get_context (buffer));
  function = gcuda_module_get_function (module, "soak_fill", &error);
  if (!check (w, OP_LAUNCH, function != NULL, &error, ALLOW_DESTROYED, "gcuda_module_get_function"))
    return;
  if (!lease (w, OP_LAUNCH, buffer))
    return;
  slice_of (w, buffer, &offset, &size);
  /* as many words as one row of blocks covers */
  n = (guint) MIN (size / 4, (guint64) config.block * config.max_grid);
  size = (guint64) n * 4;
  if (n == 0)
    goto out;
  view = gcuda_buffer_new_view (buffer, offset, size, &error);
  if (!check (w, OP_LAUNCH, view != NULL, &error, ALLOW_FREED, "gcuda_buffer_new_view"))
    goto out;
  args = gcuda_kernel_args_new ();
  gcuda_kernel_args_add_buffer (args, view);
  gcuda_kernel_args_add_uint32 (args, value);
  gcuda_kernel_args_add_uint32 (args, n);
  ok = gcuda_function_launch (function, (n + config.block - 1) / config.block, 1, 1, config.block, 1, 1, 0,
                              stream, args, &error);
  if (!check (w, OP_LAUNCH, ok, &error, ALLOW_RACES | ALLOW_MISMATCH, "gcuda_function_launch"))
    goto out;
  if (stream != NULL)
    {
      ok = gcuda_stream_synchronize (stream, &error);
      if (!check (w, OP_LAUNCH, ok, &error, ALLOW_DESTROYED, "gcuda_stream_synchronize"))
        goto out;
    }
  back = gcuda_buffer_download (buffer, offset, size, &error);
  if (check (w, OP_LAUNCH, back != NULL, &error, ALLOW_RACES, "gcuda_buffer_download") && config.check_kernels)
    check_fill (w, OP_LAUNCH, back, value, "a fill kernel");
out:
  unlease (w, OP_LAUNCH, buffer);
}

static void
op_context (Worker *w)
{
  g_autoptr(GCudaContext) context = take (contexts[rand_below (w, N_CONTEXTS)].context);
  g_autoptr(GCudaContext) current = NULL;
  g_autoptr(GError) error = NULL;
  guint64 free_mem = 0, total = 0;
  gboolean ok;

  switch (rand_below (w, 3))
    {
    case 0:
      ok = gcuda_context_synchronize (context, &error);
      check (w, OP_CONTEXT, ok, &error, ALLOW_DESTROYED, "gcuda_context_synchronize");
      break;
    case 1:
      gcuda_context_get_memory_info (context, &free_mem, &total, &error);
      ok = error == NULL;
      if (check (w, OP_CONTEXT, ok, &error, ALLOW_DESTROYED, "gcuda_context_get_memory_info") && free_mem > total)
        fail (w, OP_CONTEXT, "free memory %" G_GUINT64_FORMAT " > total %" G_GUINT64_FORMAT, free_mem, total);
      break;
    default:
      /* push, a call with the thread's default, pop */
      ok = gcuda_context_push (context, &error);
      if (!check (w, OP_CONTEXT, ok, &error, ALLOW_DESTROYED, "gcuda_context_push"))
        break;
      current = gcuda_context_get_thread_default (&error);
      if (check (w, OP_CONTEXT, current != NULL, &error, ALLOW_DESTROYED, "gcuda_context_get_thread_default") &&
          current != context)
        fail (w, OP_CONTEXT, "the thread's default is not the context it pushed");
      ok = gcuda_context_pop (&error);
      check (w, OP_CONTEXT, ok, &error, 0, "gcuda_context_pop");
      break;
    }
}

static GCudaModule *
load_module (GCudaContext  *context,
             GError       **error)
{
  g_autoptr(GBytes) image = NULL;

  if (!config.have_modules)
    return NULL;
  image = g_bytes_new_static (soak_ptx, sizeof soak_ptx);
  return gcuda_module_new_from_data (context, image, NULL, error);
}

/* Fills @slot for @context; FALSE with @error set. */
static gboolean
context_slot_init (ContextSlot   *slot,
                   GCudaContext  *context,
                   GError       **error)
{
  slot->context = g_object_ref (context);
  slot->pool = gcuda_memory_pool_new (context);
  slot->host_pool = gcuda_host_memory_pool_new (context, GCUDA_HOST_ALLOC_FLAGS_DEFAULT);
  if (config.have_stream_pools)
    {
      slot->stream_pool = gcuda_stream_pool_new (context, error);
      if (slot->stream_pool == NULL)
        return FALSE;
    }
  if (config.have_modules)
    {
      slot->module = load_module (context, error);
      if (slot->module == NULL)
        return FALSE;
    }
  return TRUE;
}

static void
context_slot_clear (ContextSlot *slot)
{
  g_clear_object (&slot->module);
  g_clear_object (&slot->stream_pool);
  g_clear_object (&slot->host_pool);
  g_clear_object (&slot->pool);
  g_clear_object (&slot->context);
}

/* Destroys a dedicated context while the other threads use it and puts a
 * new one in its place. */
static void
op_context_destroy (Worker *w)
{
  guint i = 1 + rand_below (w, N_CONTEXTS - 1);
  g_autoptr(GCudaContext) context = take (contexts[i].context);
  g_autoptr(GCudaContext) fresh = NULL;
  g_autoptr(GError) error = NULL;
  ContextSlot slot = { NULL }, old;
  gboolean ok;

  ok = gcuda_context_destroy (context, &error);
  if (!check (w, OP_CONTEXT_DESTROY, ok, &error, 0, "gcuda_context_destroy"))
    return;
  if (!gcuda_context_is_destroyed (context))
    fail (w, OP_CONTEXT_DESTROY, "a destroyed context says it is not");
  fresh = gcuda_device_create_context (gcuda_context_get_device (context), GCUDA_CONTEXT_FLAGS_SCHED_AUTO, &error);
  if (!check (w, OP_CONTEXT_DESTROY, fresh != NULL, &error, 0, "gcuda_device_create_context"))
    return;
  if (!context_slot_init (&slot, fresh, &error))
    {
      check (w, OP_CONTEXT_DESTROY, FALSE, &error, 0, "a new context's pools and module");
      context_slot_clear (&slot);
      return;
    }
  g_mutex_lock (&shared.lock);
  if (shared.contexts[i].context != context)
    {
      /* another thread replaced it first: its destroy came second, harmless */
      g_mutex_unlock (&shared.lock);
      gcuda_context_destroy (fresh, NULL);
      context_slot_clear (&slot);
      return;
    }
  old = shared.contexts[i];
  shared.contexts[i] = slot;
  g_mutex_unlock (&shared.lock);
  context_slot_clear (&old);
}

typedef struct {
  gboolean done;
  GCudaProgram *program;
  GError *error;
} CompileResult;

static void
compiled (GObject      *source,
          GAsyncResult *result,
          gpointer      data)
{
  CompileResult *r = data;

  r->program = gcuda_compiler_compile_finish (GCUDA_COMPILER (source), result, &r->error);
  r->done = TRUE;
}

static gboolean
cancel_now (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

/* compile_async, cancelled at once, after a while, or not at all. */
static void
op_compile (Worker *w)
{
  g_autoptr(GCudaCompiler) compiler = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GError) error = NULL;
  CompileResult r = { FALSE, NULL, NULL };
  guint how = rand_below (w, 4);
  g_autofree char *source = NULL;

  compiler = gcuda_compiler_new (NULL);
  gcuda_compiler_set_arch (compiler, "compute_90");
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
  gcuda_compiler_set_cache_dir (compiler, "");
  gcuda_compiler_set_no_extern_c (compiler, TRUE);
  /* a source of its own, so no in-process memo answers it */
  source = g_strdup_printf ("%s// %u %u\n", soak_source, w->index, g_rand_int (w->rand));
  g_main_context_push_thread_default (w->main_context);
  gcuda_compiler_compile_async (compiler, source, cancellable, compiled, &r);
  if (how == 0)
    g_cancellable_cancel (cancellable);
  else if (how == 1)
    {
      GSource *timeout = g_timeout_source_new (rand_below (w, 30));

      g_source_set_callback (timeout, cancel_now, cancellable, NULL);
      g_source_attach (timeout, w->main_context);
      g_source_unref (timeout);
    }
  while (!r.done)
    g_main_context_iteration (w->main_context, TRUE);
  /* the timeout, if it did not fire */
  while (g_main_context_iteration (w->main_context, FALSE))
    ;
  g_main_context_pop_thread_default (w->main_context);
  program = r.program;
  error = r.error;
  if (check (w, OP_COMPILE, program != NULL, &error, how <= 1 ? ALLOW_CANCELLED : 0, "gcuda_compiler_compile_async") &&
      (gcuda_program_get_image (program) == NULL || g_bytes_get_size (gcuda_program_get_image (program)) == 0))
    fail (w, OP_COMPILE, "a compile gave an empty image");
}

typedef void (*OpFunc) (Worker *w);

static const OpFunc op_funcs[N_OPS] = {
  [OP_BUFFER_REPLACE] = op_buffer_replace,
  [OP_BUFFER_FREE] = op_buffer_free,
  [OP_BUFFER_ROUND_TRIP] = op_buffer_round_trip,
  [OP_VIEW] = op_view,
  [OP_COPY] = op_copy,
  [OP_MEMSET] = op_memset,
  [OP_RACY_READ] = op_racy_read,
  [OP_STREAM_REPLACE] = op_stream_replace,
  [OP_STREAM_TRANSFER] = op_stream_transfer,
  [OP_EVENT] = op_event,
  [OP_MEMORY_POOL] = op_memory_pool,
  [OP_STREAM_POOL] = op_stream_pool,
  [OP_PAGELOCKED] = op_pagelocked,
  [OP_HOST_POOL] = op_host_pool,
  [OP_LAUNCH] = op_launch,
  [OP_CONTEXT] = op_context,
  [OP_CONTEXT_DESTROY] = op_context_destroy,
  [OP_COMPILE] = op_compile,
};

static Op
pick_op (Worker *w)
{
  guint total = 0, r;

  for (guint i = 0; i < N_OPS; i++)
    total += ops[i].weight;
  r = rand_below (w, total);
  for (guint i = 0; i < N_OPS; i++)
    {
      if (r < ops[i].weight)
        return i;
      r -= ops[i].weight;
    }
  return OP_CONTEXT;
}

static gpointer
work (gpointer data)
{
  Worker *w = data;
  g_autoptr(GCudaContext) current = NULL;

  while (w->iterations < config.iterations && !g_atomic_int_get (&stop))
    {
      Op op = pick_op (w);

      if (g_get_monotonic_time () >= config.deadline)
        break;
      g_atomic_int_set (&w->current_op, op);
      if (ops[op].needs != NULL && !*ops[op].needs)
        w->skipped[op]++;
      else
        op_funcs[op] (w);
      w->ops[op]++;
      w->iterations++;
      g_atomic_int_set (&w->current_op, -1);
      g_atomic_pointer_set (&w->last_progress, GSIZE_TO_POINTER ((gsize) g_get_monotonic_time ()));
    }
  /* every push was popped */
  current = gcuda_context_get_current (NULL);
  if (current != NULL)
    fail (w, OP_CONTEXT, "a context was left current on the thread");
  return NULL;
}

static gpointer
watchdog (gpointer data)
{
  while (!g_atomic_int_get (&stop))
    {
      gint64 now = g_get_monotonic_time ();

      g_usleep (G_USEC_PER_SEC);
      for (guint i = 0; i < config.n_threads; i++)
        {
          gint64 last = (gint64) GPOINTER_TO_SIZE (g_atomic_pointer_get (&workers[i].last_progress));
          gint op = g_atomic_int_get (&workers[i].current_op);

          if (op >= 0 && now - last > (gint64) config.watchdog * G_USEC_PER_SEC)
            {
              fprintf (stderr, "soak: thread %u has been in %s for %" G_GUINT64_FORMAT " s: a hang (seed %u)\n",
                       i, ops[op].name, config.watchdog, config.seed);
              abort ();
            }
        }
    }
  return NULL;
}

/* ------------------------------------------------------------ setup */

/* Whether the loaded driver is tests/mock/mock-libcuda.c. */
static gboolean
driver_is_mock (void)
{
  const char *path = g_getenv ("GCUDA_DRIVER_LIBRARY");
  void *lib;
  gboolean mock;

  if (path == NULL)
    return FALSE;
  lib = dlopen (path, RTLD_LAZY | RTLD_NOLOAD);
  if (lib == NULL)
    return FALSE;
  mock = dlsym (lib, "gcuda_mock_get_allocations") != NULL;
  dlclose (lib);
  return mock;
}

/* What the driver lacks: a driver error NOT_FOUND (an entry point it does
 * not have) or GCuda's NOT_SUPPORTED. */
static gboolean
lacks (GError *error)
{
  return g_error_matches (error, GCUDA_DRIVER_ERROR, 500) || g_error_matches (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED);
}

static gboolean
probe (const char *what,
       gboolean    ok,
       GError    **error)
{
  if (ok)
    return TRUE;
  if (!lacks (*error))
    g_error ("probing %s: %s (%s %d)", what, (*error)->message, g_quark_to_string ((*error)->domain), (*error)->code);
  g_test_message ("%s: skipped, the driver lacks it: %s", what, (*error)->message);
  if (!config.mock && gcuda_test_gpu_required ())
    g_test_fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but the driver lacks %s: %s", what, (*error)->message);
  g_clear_error (error);
  return FALSE;
}

static guint64
env_number (const char *name,
            guint64     fallback)
{
  const char *value = g_getenv (name);
  guint64 n;
  g_autoptr(GError) error = NULL;

  if (value == NULL || value[0] == '\0')
    return fallback;
  if (!g_ascii_string_to_unsigned (value, 10, 0, G_MAXUINT64, &n, &error))
    g_error ("%s=%s: %s", name, value, error->message);
  return n;
}

static void
probe_capabilities (GCudaContext *context)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaEvent) event = NULL;
  g_autoptr(GCudaStreamPool) stream_pool = NULL;
  g_autoptr(GCudaModule) module = NULL;
  g_autoptr(GCudaCompiler) compiler = NULL;
  g_autoptr(GCudaProgram) program = NULL;

  event = gcuda_event_new (context, GCUDA_EVENT_FLAGS_DEFAULT, &error);
  config.have_events = probe ("events", event != NULL, &error);
  stream_pool = gcuda_stream_pool_new (context, &error);
  config.have_stream_pools = probe ("stream-ordered pools", stream_pool != NULL, &error);
  config.have_modules = TRUE;
  module = load_module (context, &error);
  config.have_modules = probe ("modules and launches", module != NULL, &error);
  config.check_kernels = config.have_modules && !config.mock;
  config.block = (guint) CLAMP (gcuda_device_get_attribute (gcuda_context_get_device (context),
                                                            GCUDA_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &error), 1, 128);
  g_assert_no_error (error);
  config.max_grid = (guint) MAX (1, gcuda_device_get_attribute (gcuda_context_get_device (context),
                                                                GCUDA_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &error));
  g_assert_no_error (error);

  /* NVRTC loaded here, before any compile job starts */
  compiler = gcuda_compiler_new (NULL);
  gcuda_compiler_set_arch (compiler, "compute_90");
  gcuda_compiler_set_target (compiler, GCUDA_PROGRAM_KIND_PTX);
  gcuda_compiler_set_cache_dir (compiler, "");
  program = gcuda_compiler_compile (compiler, "__global__ void probe () {}\n", &error);
  config.have_nvrtc = program != NULL;
  if (program == NULL)
    {
      if (!g_error_matches (error, GCUDA_ERROR, GCUDA_ERROR_NVRTC_NOT_FOUND))
        g_error ("probing NVRTC: %s", error->message);
      g_test_message ("compile-cancel: skipped, no NVRTC: %s", error->message);
      if (!config.mock && gcuda_test_gpu_required ())
        g_test_fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but NVRTC is missing: %s", error->message);
    }
}

static void
test_soak (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaContext) primary = NULL;
  GThread *threads[MAX_THREADS];
  GThread *dog;
  guint64 total_ops = 0, total_expected = 0, total_iterations = 0;
  guint64 per_op[N_OPS] = { 0 }, per_op_expected[N_OPS] = { 0 }, per_op_skipped[N_OPS] = { 0 };
  gint64 start;
  double elapsed;
  g_autoptr(GString) line = g_string_new (NULL);

  if (!gcuda_test_require_gpu ())
    return;

  config.mock = driver_is_mock ();
  config.racy_reads = config.mock;
  primary = gcuda_context_get_default (&error);
  g_assert_no_error (error);
  probe_capabilities (primary);

  for (guint i = 0; i < N_CONTEXTS; i++)
    {
      g_autoptr(GCudaContext) context = NULL;

      context = i == 0 ? g_object_ref (primary)
                       : gcuda_device_create_context (gcuda_context_get_device (primary), 0, &error);
      g_assert_no_error (error);
      context_slot_init (&shared.contexts[i], context, &error);
      g_assert_no_error (error);
    }

  failures = g_string_new (NULL);
  workers = g_new0 (Worker, config.n_threads);
  start = g_get_monotonic_time ();
  config.deadline = start + (gint64) (config.seconds * G_USEC_PER_SEC);
  for (guint i = 0; i < config.n_threads; i++)
    {
      Worker *w = &workers[i];

      w->index = i;
      w->rand = g_rand_new_with_seed (config.seed + i);
      w->current_op = -1;
      w->last_progress = GSIZE_TO_POINTER ((gsize) start);
      w->main_context = g_main_context_new ();
    }
  dog = g_thread_new ("soak-watchdog", watchdog, NULL);
  for (guint i = 0; i < config.n_threads; i++)
    threads[i] = g_thread_new ("soak", work, &workers[i]);
  for (guint i = 0; i < config.n_threads; i++)
    g_thread_join (threads[i]);
  elapsed = (g_get_monotonic_time () - start) / 1e6;
  g_atomic_int_set (&stop, 1);
  g_thread_join (dog);

  for (guint i = 0; i < config.n_threads; i++)
    {
      Worker *w = &workers[i];

      total_iterations += w->iterations;
      for (guint op = 0; op < N_OPS; op++)
        {
          per_op[op] += w->ops[op];
          per_op_expected[op] += w->expected_errors[op];
          per_op_skipped[op] += w->skipped[op];
          total_ops += w->ops[op] - w->skipped[op];
          total_expected += w->expected_errors[op];
        }
      g_rand_free (w->rand);
      g_main_context_unref (w->main_context);
    }
  for (guint op = 0; op < N_OPS; op++)
    {
      if (per_op_skipped[op] == per_op[op] && per_op[op] > 0)
        g_string_append_printf (line, " %s=skipped", ops[op].name);
      else
        g_string_append_printf (line, " %s=%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "%s", ops[op].name,
                                per_op[op] - per_op_skipped[op], per_op_expected[op],
                                per_op_skipped[op] > 0 ? "(some skipped)" : "");
    }
  g_test_message ("soak: per operation (done/expected errors):%s", line->str);
  g_test_message ("soak: seed %u, %u threads, %.1f s, %" G_GUINT64_FORMAT " iterations, %" G_GUINT64_FORMAT
                  " operations, %" G_GUINT64_FORMAT " expected errors, %d failures",
                  config.seed, config.n_threads, elapsed, total_iterations, total_ops, total_expected,
                  g_atomic_int_get (&n_failures));
  g_test_message ("soak: expected errors by kind: FREED %d, CONTEXT_DESTROYED %d, CONTEXT_MISMATCH %d, "
                  "CANCELLED %d, the driver's INVALID_VALUE %d", n_kinds[0], n_kinds[1], n_kinds[2], n_kinds[3],
                  n_kinds[4]);
  if (g_atomic_int_get (&n_failures) > 0)
    g_test_message ("soak: first failures:\n%s", failures->str);

  /* everything goes; with the mock, no memory may be left */
  g_mutex_lock (&shared.lock);
  for (guint i = 0; i < N_BUFFERS; i++)
    {
      if (shared.buffers[i] != NULL && !gcuda_buffer_is_freed (shared.buffers[i]))
        g_assert_true (gcuda_buffer_free (shared.buffers[i], NULL));
      g_clear_object (&shared.buffers[i]);
    }
  for (guint i = 0; i < N_STREAMS; i++)
    g_clear_object (&shared.streams[i]);
  for (guint i = 0; i < N_EVENTS; i++)
    g_clear_object (&shared.events[i]);
  for (guint i = 0; i < N_CONTEXTS; i++)
    {
      if (i > 0)
        g_assert_true (gcuda_context_destroy (shared.contexts[i].context, NULL));
      context_slot_clear (&shared.contexts[i]);
    }
  g_mutex_unlock (&shared.lock);
  g_clear_object (&primary);
  if (config.mock)
    {
      const char *path = g_getenv ("GCUDA_DRIVER_LIBRARY");
      void *lib = dlopen (path, RTLD_LAZY | RTLD_NOLOAD);
      void (*allocations) (size_t *, size_t *) = lib ? (void (*) (size_t *, size_t *)) dlsym (lib, "gcuda_mock_get_allocations") : NULL;
      size_t count = 0, bytes = 0;

      g_assert_nonnull (allocations);
      allocations (&count, &bytes);
      g_test_message ("soak: %" G_GSIZE_FORMAT " allocations (%" G_GSIZE_FORMAT " bytes) left in the mock driver",
                      count, bytes);
      g_assert_cmpuint (count, ==, 0);
      dlclose (lib);
    }
  gcuda_test_assert_no_current_context ();

  g_assert_cmpint (g_atomic_int_get (&n_failures), ==, 0);
  g_assert_cmpuint (total_iterations, >, 0);
  g_string_free (failures, TRUE);
  g_free (workers);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  config.n_threads = (guint) CLAMP (env_number ("GCUDA_SOAK_THREADS", 16), 1, MAX_THREADS);
  config.iterations = env_number ("GCUDA_SOAK_ITERATIONS", 2000);
  config.seconds = (double) env_number ("GCUDA_SOAK_SECONDS", 3);
  config.seed = (guint32) env_number ("GCUDA_SOAK_SEED", g_random_int ());
  config.watchdog = MAX (1, env_number ("GCUDA_SOAK_WATCHDOG", 120));
  /* first, so that a crash still tells how to reproduce it */
  printf ("# soak: seed %u (GCUDA_SOAK_SEED), %u threads (GCUDA_SOAK_THREADS), at most %" G_GUINT64_FORMAT
          " iterations per thread (GCUDA_SOAK_ITERATIONS) and %.0f s (GCUDA_SOAK_SECONDS)\n",
          config.seed, config.n_threads, config.iterations, config.seconds);
  fflush (stdout);

  g_test_add_func ("/soak/mixed", test_soak);

  return g_test_run ();
}
