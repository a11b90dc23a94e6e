/* gcuda-communicator.c: an NCCL communicator, NCCL opened at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-env-private.h"
#include "gcuda-context-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-stream-private.h"
#include "gcuda-nvrtc-private.h"
#include "gcuda-nccl-abi-private.h"

/**
 * GCudaCommunicator:
 *
 * One rank of an NCCL communicator: collectives (all-reduce, broadcast,
 * reduce, all-gather, reduce-scatter) and point-to-point transfers
 * (send/recv) between the GPUs of one or several processes, over
 * [class@GCuda.Buffer]s of the communicator's context, queued on a
 * [class@GCuda.Stream].
 *
 * NCCL is opened when first needed, as NVRTC is: `GCUDA_NCCL_LIBRARY` if
 * set (and nothing else then), else NVIDIA's wheel (`pip install
 * nvidia-nccl-cu13`, `nvidia/nccl/lib/libnccl.so.2` in the Python
 * environment), else `libnccl.so.2` on the loader's path. Without it every
 * call is [GCUDA_ERROR_NCCL_NOT_FOUND][error@GCuda.Error], whose message
 * names the places tried. A failed NCCL call is
 * [GCUDA_ERROR_NCCL][error@GCuda.Error] with NCCL's reason.
 *
 * One rank per GPU: rank 0 makes a unique id
 * ([func@GCuda.Communicator.get_unique_id], 128 bytes to pass to the other
 * processes), and every rank joins with [ctor@GCuda.Communicator.new]. One
 * process driving several GPUs creates its ranks between
 * [func@GCuda.Communicator.group_start] and
 * [func@GCuda.Communicator.group_end], and queues each collective on every
 * rank the same way:
 *
 * ```python
 * uid = GCuda.Communicator.get_unique_id()
 * contexts = [GCuda.Device.get(i).get_primary_context() for i in range(n)]
 * GCuda.Communicator.group_start()
 * comms = [GCuda.Communicator.new(c, n, uid, i) for i, c in enumerate(contexts)]
 * GCuda.Communicator.group_end()
 * GCuda.Communicator.group_start()
 * for comm, buf in zip(comms, buffers):
 *     comm.all_reduce(buf, buf, count, GCuda.NcclDataType.FLOAT32, GCuda.ReduceOp.SUM, None)
 * GCuda.Communicator.group_end()
 * ```
 *
 * Counts are elements of the data type; a buffer too small for them is
 * [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error], a buffer or stream of
 * another context [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error].
 * The calls only queue the work: wait for the stream (or the context) before
 * reading the results. The communicator is destroyed (`ncclCommDestroy`)
 * when the last reference goes.
 *
 * Since: 1.0
 */

struct _GCudaCommunicator
{
  GObject parent_instance;

  GCudaContext *context;
  ncclComm_t comm;
  int rank;
  int n_ranks;
};

G_DEFINE_FINAL_TYPE (GCudaCommunicator, gcuda_communicator, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_RANK,
  PROP_N_RANKS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ------------------------------------------------------------ loading NCCL */

typedef struct {
#define GCUDA_NCCL_DECLARE(ret, name, params) __typeof__ (name) *fn_##name;
  GCUDA_NCCL_ABI_FUNCTIONS (GCUDA_NCCL_DECLARE)
#undef GCUDA_NCCL_DECLARE
} GCudaNccl;

static GCudaNccl nccl;
static GCudaLibrary nccl_library;

static gboolean
load_nccl (GError **error)
{
  const char *override = _gcuda_secure_getenv ("GCUDA_NCCL_LIBRARY");
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) tried = g_string_new (NULL);
  const char *name = NULL;
  void *lib = NULL;

  if (override != NULL && *override != '\0')
    g_ptr_array_add (candidates, g_strdup (override));
  else
    {
      const char * const *site_dirs = _gcuda_nvrtc_wheel_site_dirs ();

      /* NVIDIA's wheel in the Python environment first (where PyTorch's
       * NCCL is), then the soname */
      for (guint i = 0; site_dirs[i] != NULL; i++)
        {
          char *path = g_build_filename (site_dirs[i], "nvidia", "nccl", "lib", "libnccl.so.2", NULL);

          if (g_file_test (path, G_FILE_TEST_EXISTS))
            g_ptr_array_add (candidates, path);
          else
            g_free (path);
        }
      g_ptr_array_add (candidates, g_strdup ("libnccl.so.2"));
    }

  for (guint i = 0; i < candidates->len && lib == NULL; i++)
    {
      name = g_ptr_array_index (candidates, i);
      lib = dlopen (name, RTLD_NOW | RTLD_LOCAL);
      if (lib == NULL)
        g_string_append_printf (tried, "%s%s", tried->len ? ", " : "", name);
    }
  if (lib == NULL)
    {
      const char * const *site_dirs = _gcuda_nvrtc_wheel_site_dirs ();
      g_autofree char *sites = g_strjoinv (", ", (char **) site_dirs);

      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NCCL_NOT_FOUND,
                   _("The NCCL library could not be loaded (tried %s; no NVIDIA NCCL wheel in %s). "
                     "Install NCCL: `pip install nvidia-nccl-cu13` in the Python environment, or the "
                     "system's libnccl2 package; or set GCUDA_NCCL_LIBRARY to the path of libnccl.so.2."),
                   tried->str, *sites != '\0' ? sites : _("no site-packages directory"));
      return FALSE;
    }

#define GCUDA_NCCL_RESOLVE(ret, fname, params) \
  nccl.fn_##fname = (__typeof__ (nccl.fn_##fname)) dlsym (lib, #fname); \
  if (nccl.fn_##fname == NULL) \
    { \
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NCCL_NOT_FOUND, \
                   _("%s is not a usable NCCL library: it has no %s"), name, #fname); \
      return FALSE; \
    }
  GCUDA_NCCL_ABI_FUNCTIONS (GCUDA_NCCL_RESOLVE)
#undef GCUDA_NCCL_RESOLVE
  return TRUE;
}

static const GCudaNccl *
nccl_get (GError **error)
{
  return _gcuda_library_get (&nccl_library, load_nccl, &nccl, error);
}

/* An NCCL result as a GError: GCUDA_ERROR_NCCL naming the call and NCCL's
 * reason (with the communicator's last error where there is one). */
static gboolean
nccl_check (ncclResult_t  res,
            const char   *call,
            ncclComm_t    comm,
            GError      **error)
{
  const char *last;

  if (G_LIKELY (res == ncclSuccess))
    return TRUE;
  last = nccl.fn_ncclGetLastError (comm);
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NCCL, _("%s failed: %s (%d)%s%s"), call,
               nccl.fn_ncclGetErrorString (res), (int) res,
               last != NULL && *last != '\0' ? ": " : "", last != NULL ? last : "");
  return FALSE;
}

/* NCCL selects devices with the CUDA runtime (cudaSetDevice, which makes
 * a primary context current) and may leave another context current than
 * it found: every NCCL call is bracketed by these two, so that GCuda's
 * rule holds (a call leaves the thread's context stack as it was). */
static CUcontext
current_save (void)
{
  const GCudaDriver *drv = _gcuda_driver_peek ();
  CUcontext current = NULL;

  if (drv != NULL)
    drv->fn_cuCtxGetCurrent (&current);
  return current;
}

static void
current_restore (CUcontext saved)
{
  const GCudaDriver *drv = _gcuda_driver_peek ();
  CUcontext current = NULL;

  if (drv != NULL && drv->fn_cuCtxGetCurrent (&current) == CUDA_SUCCESS && current != saved)
    drv->fn_cuCtxSetCurrent (saved);
}

/* ------------------------------------------------------------ the object */

static void
gcuda_communicator_finalize (GObject *object)
{
  GCudaCommunicator *self = GCUDA_COMMUNICATOR (object);

  if (self->comm != NULL)
    {
      g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

      /* errors ignored: at exit the driver may be gone already */
      if (_gcuda_context_enter_release (self->context, &scope))
        nccl.fn_ncclCommDestroy (self->comm);
    }
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_communicator_parent_class)->finalize (object);
}

static void
gcuda_communicator_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  GCudaCommunicator *self = GCUDA_COMMUNICATOR (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_RANK:
      g_value_set_int (value, self->rank);
      break;
    case PROP_N_RANKS:
      g_value_set_int (value, self->n_ranks);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_communicator_class_init (GCudaCommunicatorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_communicator_finalize;
  object_class->get_property = gcuda_communicator_get_property;

  /**
   * GCudaCommunicator:context: (getter get_context)
   *
   * The context (and so the GPU) of this rank.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT, ro);

  /**
   * GCudaCommunicator:rank: (getter get_rank)
   *
   * This rank, from 0 to [property@GCuda.Communicator:n-ranks] - 1 (-1 for an
   * object not made by [ctor@GCuda.Communicator.new]).
   *
   * Since: 1.0
   */
  properties[PROP_RANK] = g_param_spec_int ("rank", NULL, NULL, -1, G_MAXINT, -1, ro);

  /**
   * GCudaCommunicator:n-ranks: (getter get_n_ranks)
   *
   * The number of ranks in the communicator (0 for an object not made by
   * [ctor@GCuda.Communicator.new]).
   *
   * Since: 1.0
   */
  properties[PROP_N_RANKS] = g_param_spec_int ("n-ranks", NULL, NULL, 0, G_MAXINT, 0, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_communicator_init (GCudaCommunicator *self)
{
  self->rank = -1;
}

/**
 * gcuda_communicator_get_nccl_version:
 * @error: return location for a [struct@GLib.Error]
 *
 * The version of the NCCL library GCuda opened, as NCCL encodes it
 * (`major * 10000 + minor * 100 + patch` since NCCL 2.9: 22807 for 2.28.7).
 * Loads NCCL.
 *
 * Returns: the version, or -1 with @error set
 *
 * Since: 1.0
 */
int
gcuda_communicator_get_nccl_version (GError **error)
{
  int version = 0;

  if (nccl_get (error) == NULL)
    return -1;
  if (!nccl_check (nccl.fn_ncclGetVersion (&version), "ncclGetVersion", NULL, error))
    return -1;
  return version;
}

/**
 * gcuda_communicator_get_unique_id:
 * @error: return location for a [struct@GLib.Error]
 *
 * A new unique id (`ncclGetUniqueId`, 128 bytes): made by one rank and
 * given to every rank's [ctor@GCuda.Communicator.new], in this process or
 * others (over a pipe, a socket, MPI's broadcast). Loads NCCL.
 *
 * Returns: (transfer full): the id, or %NULL with @error set
 *
 * Since: 1.0
 */
GBytes *
gcuda_communicator_get_unique_id (GError **error)
{
  ncclUniqueId id;

  if (nccl_get (error) == NULL)
    return NULL;
  memset (&id, 0, sizeof id);
  if (!nccl_check (nccl.fn_ncclGetUniqueId (&id), "ncclGetUniqueId", NULL, error))
    return NULL;
  return g_bytes_new (&id, sizeof id);
}

/**
 * gcuda_communicator_group_start:
 * @error: return location for a [struct@GLib.Error]
 *
 * Starts a group (`ncclGroupStart`) on the calling thread: the
 * communicators made and the operations queued until
 * [func@GCuda.Communicator.group_end] are issued together, as one thread
 * driving several GPUs needs (each rank's call would otherwise wait for the
 * others). Groups nest.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_communicator_group_start (GError **error)
{
  CUcontext saved;
  gboolean ok;

  if (nccl_get (error) == NULL)
    return FALSE;
  saved = current_save ();
  ok = nccl_check (nccl.fn_ncclGroupStart (), "ncclGroupStart", NULL, error);
  current_restore (saved);
  return ok;
}

/**
 * gcuda_communicator_group_end:
 * @error: return location for a [struct@GLib.Error]
 *
 * Ends the group [func@GCuda.Communicator.group_start] began
 * (`ncclGroupEnd`), issuing what was queued in it.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_communicator_group_end (GError **error)
{
  CUcontext saved;
  gboolean ok;

  if (nccl_get (error) == NULL)
    return FALSE;
  saved = current_save ();
  ok = nccl_check (nccl.fn_ncclGroupEnd (), "ncclGroupEnd", NULL, error);
  current_restore (saved);
  return ok;
}

/**
 * gcuda_communicator_new:
 * @context: (nullable): the context (and so the GPU) of this rank, or %NULL
 *   for the calling thread's default context
 * @n_ranks: the number of ranks, at least 1
 * @unique_id: the id from [func@GCuda.Communicator.get_unique_id], the same
 *   for every rank
 * @rank: this rank, from 0 to @n_ranks - 1
 * @error: return location for a [struct@GLib.Error]
 *
 * Joins the communicator @unique_id names as @rank (`ncclCommInitRank`).
 * Outside a group, this waits until all @n_ranks ranks have joined: a
 * thread making several ranks does so between
 * [func@GCuda.Communicator.group_start] and
 * [func@GCuda.Communicator.group_end].
 *
 * Returns: (transfer full): the communicator, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaCommunicator *
gcuda_communicator_new (GCudaContext  *context,
                        int            n_ranks,
                        GBytes        *unique_id,
                        int            rank,
                        GError       **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  g_autoptr(GCudaContext) ctx = NULL;
  GCudaCommunicator *self;
  ncclUniqueId id;
  ncclComm_t comm = NULL;
  CUcontext saved;
  gboolean ok;
  gsize size = 0;
  const void *data;

  if (n_ranks < 1)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("A communicator has at least one rank, not %d"), n_ranks);
      return NULL;
    }
  if (rank < 0 || rank >= n_ranks)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Rank %d is out of range: the ranks of %d are 0 to %d"), rank, n_ranks, n_ranks - 1);
      return NULL;
    }
  data = unique_id != NULL ? g_bytes_get_data (unique_id, &size) : NULL;
  if (data == NULL || size != sizeof id)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("An NCCL unique id is %u bytes, not %" PRIu64), (guint) sizeof id, (guint64) size);
      return NULL;
    }
  memcpy (&id, data, sizeof id);
  if (nccl_get (error) == NULL)
    return NULL;
  ctx = _gcuda_context_resolve (context, error);
  if (ctx == NULL)
    return NULL;
  saved = current_save ();
  if (!_gcuda_context_enter (ctx, &scope, error))
    return NULL;
  ok = nccl_check (nccl.fn_ncclCommInitRank (&comm, n_ranks, id, rank), "ncclCommInitRank", NULL, error);
  _gcuda_context_leave (&scope);
  current_restore (saved);
  if (!ok)
    return NULL;

  self = g_object_new (GCUDA_TYPE_COMMUNICATOR, NULL);
  self->context = g_steal_pointer (&ctx);
  self->comm = comm;
  self->rank = rank;
  self->n_ranks = n_ranks;
  return self;
}

/**
 * gcuda_communicator_get_context: (get-property context)
 * @self: a [class@GCuda.Communicator]
 *
 * Gets the context of this rank.
 *
 * Returns: (transfer none) (nullable): the context, %NULL for an object not
 *   made by [ctor@GCuda.Communicator.new]
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_communicator_get_context (GCudaCommunicator *self)
{
  g_return_val_if_fail (GCUDA_IS_COMMUNICATOR (self), NULL);
  return self->context;
}

/**
 * gcuda_communicator_get_rank: (get-property rank)
 * @self: a [class@GCuda.Communicator]
 *
 * Gets this rank.
 *
 * Returns: the rank (-1 for an object not made by [ctor@GCuda.Communicator.new])
 *
 * Since: 1.0
 */
int
gcuda_communicator_get_rank (GCudaCommunicator *self)
{
  g_return_val_if_fail (GCUDA_IS_COMMUNICATOR (self), -1);
  return self->rank;
}

/**
 * gcuda_communicator_get_n_ranks: (get-property n-ranks)
 * @self: a [class@GCuda.Communicator]
 *
 * Gets the number of ranks.
 *
 * Returns: the number of ranks (0 for an object not made by
 *   [ctor@GCuda.Communicator.new])
 *
 * Since: 1.0
 */
int
gcuda_communicator_get_n_ranks (GCudaCommunicator *self)
{
  g_return_val_if_fail (GCUDA_IS_COMMUNICATOR (self), 0);
  return self->n_ranks;
}

/* ------------------------------------------------------------ operations */

static gsize
data_type_size (GCudaNcclDataType data_type)
{
  switch (data_type)
    {
    case GCUDA_NCCL_DATA_TYPE_INT8:
    case GCUDA_NCCL_DATA_TYPE_UINT8:
      return 1;
    case GCUDA_NCCL_DATA_TYPE_FLOAT16:
    case GCUDA_NCCL_DATA_TYPE_BFLOAT16:
      return 2;
    case GCUDA_NCCL_DATA_TYPE_INT32:
    case GCUDA_NCCL_DATA_TYPE_UINT32:
    case GCUDA_NCCL_DATA_TYPE_FLOAT32:
      return 4;
    case GCUDA_NCCL_DATA_TYPE_INT64:
    case GCUDA_NCCL_DATA_TYPE_UINT64:
    case GCUDA_NCCL_DATA_TYPE_FLOAT64:
      return 8;
    default:
      return 0;
    }
}

/* What every operation checks first: a communicator made by
 * gcuda_communicator_new(), its context alive, a known type and operation,
 * a stream of its context (or NULL); returns the element size. */
static gsize
check_call (GCudaCommunicator  *self,
            GCudaNcclDataType   data_type,
            GCudaReduceOp       op,
            GCudaStream        *stream,
            GError            **error)
{
  gsize elem = data_type_size (data_type);

  if (self->comm == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("This communicator has no NCCL communicator behind it: make it with "
                             "GCuda.Communicator.new()"));
      return 0;
    }
  if (gcuda_context_is_destroyed (self->context))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED,
                           _("The communicator's context was destroyed"));
      return 0;
    }
  if (elem == 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown NCCL data type %d"), (int) data_type);
      return 0;
    }
  if ((int) op < GCUDA_REDUCE_OP_SUM || op > GCUDA_REDUCE_OP_AVG)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown reduction %d"), (int) op);
      return 0;
    }
  if (!_gcuda_stream_check_arg (stream, error))
    return 0;
  if (stream != NULL && gcuda_stream_get_context (stream) != self->context)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                           _("The stream belongs to another context than the communicator"));
      return 0;
    }
  return elem;
}

/* @buffer (named @what in messages) holds @count elements of @elem bytes
 * and is memory of the communicator's context. */
static gboolean
check_buffer (GCudaCommunicator  *self,
              GCudaBuffer        *buffer,
              const char         *what,
              guint64             count,
              gsize               elem,
              GError            **error)
{
  if (!GCUDA_IS_BUFFER (buffer))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The %s buffer must be a GCuda.Buffer"), what);
      return FALSE;
    }
  if (!_gcuda_buffer_check (buffer, error))
    return FALSE;
  if (gcuda_buffer_get_context (buffer) != self->context)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                   _("The %s buffer belongs to another context than the communicator (device %d)"),
                   what, gcuda_device_get_ordinal (gcuda_context_get_device (self->context)));
      return FALSE;
    }
  if (count > G_MAXUINT64 / elem || count * elem > gcuda_buffer_get_size (buffer))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS,
                   _("The %s buffer has %" PRIu64 " bytes, too few for %" PRIu64 " elements of %u bytes"),
                   what, gcuda_buffer_get_size (buffer), count, (guint) elem);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_rank (GCudaCommunicator  *self,
            int                 rank,
            const char         *what,
            GError            **error)
{
  if (rank >= 0 && rank < self->n_ranks)
    return TRUE;
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
               _("The %s %d is out of range: the ranks are 0 to %d"), what, rank, self->n_ranks - 1);
  return FALSE;
}

static void *
address_of (GCudaBuffer *buffer)
{
  return buffer != NULL ? GSIZE_TO_POINTER ((gsize) gcuda_buffer_get_address (buffer)) : NULL;
}

/* The NCCL call @call_expr with the communicator's context current; the
 * thread's current context as it was afterwards. */
#define NCCL_CALL(self, call_expr, name, error) \
  (__extension__ ({ \
    GCudaContextScope nccl_scope_ = GCUDA_CONTEXT_SCOPE_INIT; \
    CUcontext nccl_saved_ = current_save (); \
    gboolean nccl_ok_ = _gcuda_context_enter ((self)->context, &nccl_scope_, (error)) && \
      nccl_check ((call_expr), (name), (self)->comm, (error)); \
    _gcuda_context_leave (&nccl_scope_); \
    current_restore (nccl_saved_); \
    nccl_ok_; \
  }))

/* The collectives, for run_collective(). */
typedef enum {
  COLLECTIVE_ALL_REDUCE,
  COLLECTIVE_BROADCAST,
  COLLECTIVE_REDUCE,
  COLLECTIVE_ALL_GATHER,
  COLLECTIVE_REDUCE_SCATTER,
  COLLECTIVE_SEND,
  COLLECTIVE_RECV,
} Collective;

/* How a collective uses its send or receive buffer. */
typedef enum {
  BUFFER_UNUSED,
  BUFFER_COUNT,         /* @count elements, on every rank */
  BUFFER_COUNT_ON_ROOT, /* @count elements on the root; elsewhere checked only when given */
  BUFFER_ALL_RANKS,     /* @count × n_ranks elements, on every rank */
} BufferUse;

/* What run_collective() checks, in this order: the rank named @rank_what
 * (none when NULL), then the send buffer and the receive buffer (the other
 * way round with @recv_first). */
static const struct {
  const char *rank_what;
  gboolean recv_first;
  BufferUse send;
  BufferUse recv;
} collectives[] = {
  [COLLECTIVE_ALL_REDUCE]     = { NULL,   FALSE, BUFFER_COUNT,         BUFFER_COUNT },
  [COLLECTIVE_BROADCAST]      = { "root", FALSE, BUFFER_COUNT_ON_ROOT, BUFFER_COUNT },
  [COLLECTIVE_REDUCE]         = { "root", FALSE, BUFFER_COUNT,         BUFFER_COUNT_ON_ROOT },
  [COLLECTIVE_ALL_GATHER]     = { NULL,   FALSE, BUFFER_COUNT,         BUFFER_ALL_RANKS },
  [COLLECTIVE_REDUCE_SCATTER] = { NULL,   TRUE,  BUFFER_ALL_RANKS,     BUFFER_COUNT },
  [COLLECTIVE_SEND]           = { "peer", FALSE, BUFFER_COUNT,         BUFFER_UNUSED },
  [COLLECTIVE_RECV]           = { "peer", FALSE, BUFFER_UNUSED,        BUFFER_COUNT },
};

/* check_buffer() for @buffer as @use says it is used. */
static gboolean
check_collective_buffer (GCudaCommunicator  *self,
                         GCudaBuffer        *buffer,
                         const char         *what,
                         BufferUse           use,
                         guint64             count,
                         gsize               elem,
                         int                 root,
                         GError            **error)
{
  switch (use)
    {
    case BUFFER_UNUSED:
      return TRUE;
    case BUFFER_COUNT_ON_ROOT:
      if (self->rank != root && buffer == NULL)
        return TRUE;
      break;
    case BUFFER_ALL_RANKS:
      /* more than 2^64 elements: too many for any buffer */
      if (count > G_MAXUINT64 / (guint64) self->n_ranks)
        return check_buffer (self, buffer, what, G_MAXUINT64 / elem + 1, elem, error);
      count *= (guint64) self->n_ranks;
      break;
    case BUFFER_COUNT:
      break;
    }
  return check_buffer (self, buffer, what, count, elem, error);
}

/* Checks the arguments of the collective @kind, then queues it on @stream
 * with the communicator's context current. @root is the root or the peer
 * (ignored by the collectives that have neither), @op is ignored by those
 * that do not reduce (GCUDA_REDUCE_OP_SUM passes the check). */
static gboolean
run_collective (GCudaCommunicator  *self,
                Collective          kind,
                GCudaBuffer        *send,
                GCudaBuffer        *recv,
                guint64             count,
                GCudaNcclDataType   data_type,
                GCudaReduceOp       op,
                int                 root,
                GCudaStream        *stream,
                GError            **error)
{
  gsize elem = check_call (self, data_type, op, stream, error);
  const char *rank_what = collectives[kind].rank_what;
  gboolean recv_first = collectives[kind].recv_first;
  ncclDataType_t type = (ncclDataType_t) data_type;
  ncclRedOp_t nccl_op = (ncclRedOp_t) op;
  void *sendbuff, *recvbuff;
  cudaStream_t h;

  if (elem == 0 || (rank_what != NULL && !check_rank (self, root, rank_what, error)))
    return FALSE;
  if (recv_first && !check_collective_buffer (self, recv, "receive", collectives[kind].recv, count, elem, root, error))
    return FALSE;
  if (!check_collective_buffer (self, send, "send", collectives[kind].send, count, elem, root, error))
    return FALSE;
  if (!recv_first && !check_collective_buffer (self, recv, "receive", collectives[kind].recv, count, elem, root, error))
    return FALSE;

  sendbuff = address_of (send);
  recvbuff = address_of (recv);
  h = _gcuda_stream_get_handle (stream);
  switch (kind)
    {
    case COLLECTIVE_ALL_REDUCE:
      return NCCL_CALL (self, nccl.fn_ncclAllReduce (sendbuff, recvbuff, count, type, nccl_op, self->comm, h),
                        "ncclAllReduce", error);
    case COLLECTIVE_BROADCAST:
      return NCCL_CALL (self, nccl.fn_ncclBroadcast (sendbuff, recvbuff, count, type, root, self->comm, h),
                        "ncclBroadcast", error);
    case COLLECTIVE_REDUCE:
      return NCCL_CALL (self, nccl.fn_ncclReduce (sendbuff, recvbuff, count, type, nccl_op, root, self->comm, h),
                        "ncclReduce", error);
    case COLLECTIVE_ALL_GATHER:
      return NCCL_CALL (self, nccl.fn_ncclAllGather (sendbuff, recvbuff, count, type, self->comm, h),
                        "ncclAllGather", error);
    case COLLECTIVE_REDUCE_SCATTER:
      return NCCL_CALL (self, nccl.fn_ncclReduceScatter (sendbuff, recvbuff, count, type, nccl_op, self->comm, h),
                        "ncclReduceScatter", error);
    case COLLECTIVE_SEND:
      return NCCL_CALL (self, nccl.fn_ncclSend (sendbuff, count, type, root, self->comm, h), "ncclSend", error);
    case COLLECTIVE_RECV:
      return NCCL_CALL (self, nccl.fn_ncclRecv (recvbuff, count, type, root, self->comm, h), "ncclRecv", error);
    }
  g_return_val_if_reached (FALSE);
}

/**
 * gcuda_communicator_all_reduce:
 * @self: a [class@GCuda.Communicator]
 * @send: the @count elements this rank contributes
 * @recv: where the result goes, @count elements on every rank (may be @send)
 * @count: the number of elements
 * @data_type: their type
 * @op: how the ranks' elements are combined
 * @stream: (nullable): the stream to queue on, %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Combines the ranks' @send elementwise with @op into every rank's @recv
 * (`ncclAllReduce`).
 *
 * Returns: %TRUE when queued
 *
 * Since: 1.0
 */
gboolean
gcuda_communicator_all_reduce (GCudaCommunicator  *self,
                               GCudaBuffer        *send,
                               GCudaBuffer        *recv,
                               guint64             count,
                               GCudaNcclDataType   data_type,
                               GCudaReduceOp       op,
                               GCudaStream        *stream,
                               GError            **error)
{
  g_return_val_if_fail (GCUDA_IS_COMMUNICATOR (self), FALSE);
  return run_collective (self, COLLECTIVE_ALL_REDUCE, send, recv, count, data_type, op, 0, stream, error);
}

/**
 * gcuda_communicator_broadcast:
 * @self: a [class@GCuda.Communicator]
 * @send: (nullable): the @count elements to send, on the root (ignored, and
 *   may be %NULL, on the other ranks)
 * @recv: where the root's elements go, on every rank (may be @send)
 * @count: the number of elements
 * @data_type: their type
 * @root: the rank whose @send is sent
 * @stream: (nullable): the stream to queue on, %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies the root's @send into every rank's @recv (`ncclBroadcast`).
 *
 * Returns: %TRUE when queued
 *
 * Since: 1.0
 */
gboolean
gcuda_communicator_broadcast (GCudaCommunicator  *self,
                              GCudaBuffer        *send,
                              GCudaBuffer        *recv,
                              guint64             count,
                              GCudaNcclDataType   data_type,
                              int                 root,
                              GCudaStream        *stream,
                              GError            **error)
{
  g_return_val_if_fail (GCUDA_IS_COMMUNICATOR (self), FALSE);
  return run_collective (self, COLLECTIVE_BROADCAST, send, recv, count, data_type, GCUDA_REDUCE_OP_SUM, root,
                         stream, error);
}

/**
 * gcuda_communicator_reduce:
 * @self: a [class@GCuda.Communicator]
 * @send: the @count elements this rank contributes
 * @recv: (nullable): where the result goes, on the root (ignored, and may be
 *   %NULL, on the other ranks)
 * @count: the number of elements
 * @data_type: their type
 * @op: how the ranks' elements are combined
 * @root: the rank that receives the result
 * @stream: (nullable): the stream to queue on, %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Combines the ranks' @send elementwise with @op into the root's @recv
 * (`ncclReduce`).
 *
 * Returns: %TRUE when queued
 *
 * Since: 1.0
 */
gboolean
gcuda_communicator_reduce (GCudaCommunicator  *self,
                           GCudaBuffer        *send,
                           GCudaBuffer        *recv,
                           guint64             count,
                           GCudaNcclDataType   data_type,
                           GCudaReduceOp       op,
                           int                 root,
                           GCudaStream        *stream,
                           GError            **error)
{
  g_return_val_if_fail (GCUDA_IS_COMMUNICATOR (self), FALSE);
  return run_collective (self, COLLECTIVE_REDUCE, send, recv, count, data_type, op, root, stream, error);
}

/**
 * gcuda_communicator_all_gather:
 * @self: a [class@GCuda.Communicator]
 * @send: the @send_count elements this rank contributes
 * @recv: where every rank's elements go, rank after rank:
 *   @send_count × [property@GCuda.Communicator:n-ranks] elements
 * @send_count: the number of elements each rank sends
 * @data_type: their type
 * @stream: (nullable): the stream to queue on, %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Gathers every rank's @send into every rank's @recv, in rank order
 * (`ncclAllGather`).
 *
 * Returns: %TRUE when queued
 *
 * Since: 1.0
 */
gboolean
gcuda_communicator_all_gather (GCudaCommunicator  *self,
                               GCudaBuffer        *send,
                               GCudaBuffer        *recv,
                               guint64             send_count,
                               GCudaNcclDataType   data_type,
                               GCudaStream        *stream,
                               GError            **error)
{
  g_return_val_if_fail (GCUDA_IS_COMMUNICATOR (self), FALSE);
  return run_collective (self, COLLECTIVE_ALL_GATHER, send, recv, send_count, data_type, GCUDA_REDUCE_OP_SUM, 0,
                         stream, error);
}

/**
 * gcuda_communicator_reduce_scatter:
 * @self: a [class@GCuda.Communicator]
 * @send: @recv_count × [property@GCuda.Communicator:n-ranks] elements this
 *   rank contributes
 * @recv: where this rank's share of the result goes: @recv_count elements
 * @recv_count: the number of elements each rank receives
 * @data_type: their type
 * @op: how the ranks' elements are combined
 * @stream: (nullable): the stream to queue on, %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Combines the ranks' @send elementwise with @op and gives rank *i* the
 * *i*-th block of @recv_count elements of the result (`ncclReduceScatter`).
 *
 * Returns: %TRUE when queued
 *
 * Since: 1.0
 */
gboolean
gcuda_communicator_reduce_scatter (GCudaCommunicator  *self,
                                   GCudaBuffer        *send,
                                   GCudaBuffer        *recv,
                                   guint64             recv_count,
                                   GCudaNcclDataType   data_type,
                                   GCudaReduceOp       op,
                                   GCudaStream        *stream,
                                   GError            **error)
{
  g_return_val_if_fail (GCUDA_IS_COMMUNICATOR (self), FALSE);
  return run_collective (self, COLLECTIVE_REDUCE_SCATTER, send, recv, recv_count, data_type, op, 0, stream, error);
}

/**
 * gcuda_communicator_send:
 * @self: a [class@GCuda.Communicator]
 * @buffer: the @count elements to send
 * @count: the number of elements
 * @data_type: their type
 * @peer: the rank that receives them (with [method@GCuda.Communicator.recv])
 * @stream: (nullable): the stream to queue on, %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Sends @buffer to @peer (`ncclSend`). Put the sends and receives of an
 * exchange in one group ([func@GCuda.Communicator.group_start]).
 *
 * Returns: %TRUE when queued
 *
 * Since: 1.0
 */
gboolean
gcuda_communicator_send (GCudaCommunicator  *self,
                         GCudaBuffer        *buffer,
                         guint64             count,
                         GCudaNcclDataType   data_type,
                         int                 peer,
                         GCudaStream        *stream,
                         GError            **error)
{
  g_return_val_if_fail (GCUDA_IS_COMMUNICATOR (self), FALSE);
  return run_collective (self, COLLECTIVE_SEND, buffer, NULL, count, data_type, GCUDA_REDUCE_OP_SUM, peer,
                         stream, error);
}

/**
 * gcuda_communicator_recv:
 * @self: a [class@GCuda.Communicator]
 * @buffer: where the @count elements go
 * @count: the number of elements
 * @data_type: their type
 * @peer: the rank that sends them (with [method@GCuda.Communicator.send])
 * @stream: (nullable): the stream to queue on, %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Receives from @peer into @buffer (`ncclRecv`).
 *
 * Returns: %TRUE when queued
 *
 * Since: 1.0
 */
gboolean
gcuda_communicator_recv (GCudaCommunicator  *self,
                         GCudaBuffer        *buffer,
                         guint64             count,
                         GCudaNcclDataType   data_type,
                         int                 peer,
                         GCudaStream        *stream,
                         GError            **error)
{
  g_return_val_if_fail (GCUDA_IS_COMMUNICATOR (self), FALSE);
  return run_collective (self, COLLECTIVE_RECV, NULL, buffer, count, data_type, GCUDA_REDUCE_OP_SUM, peer,
                         stream, error);
}
