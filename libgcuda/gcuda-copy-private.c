/* gcuda-copy-private.c: the code GCudaCopy2D, GCudaCopy3D and GCudaCopy3DPeer
 * share: endpoints, properties, the checks and the driver call
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "gcuda-copy-private.h"
#include "gcuda-error-private.h"
#include "gcuda-array-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-context-private.h"
#include "gcuda-host-buffer-private.h"
#include "gcuda-stream-private.h"

/* One side of a copy as the driver gets it, once checked. */
typedef struct {
  CUmemorytype memory_type;
  gpointer host;
  CUdeviceptr device;
  CUarray array;
  guint64 size;                  /* bytes reachable from the base */
  size_t x_in_bytes, y, z, pitch, height;
  GCudaContext *context;         /* the peer form's context (transfer none) */
} PlannedEndpoint;

typedef struct {
  PlannedEndpoint src;
  PlannedEndpoint dst;
  GCudaContext *context;         /* made current for the call (transfer full) */
} CopyPlan;

static const char * const property_names[GCUDA_COPY_N_PROPS_3D] = {
  [GCUDA_COPY_PROP_SRC_X_IN_BYTES] = "src-x-in-bytes",
  [GCUDA_COPY_PROP_SRC_Y] = "src-y",
  [GCUDA_COPY_PROP_SRC_PITCH] = "src-pitch",
  [GCUDA_COPY_PROP_DST_X_IN_BYTES] = "dst-x-in-bytes",
  [GCUDA_COPY_PROP_DST_Y] = "dst-y",
  [GCUDA_COPY_PROP_DST_PITCH] = "dst-pitch",
  [GCUDA_COPY_PROP_WIDTH_IN_BYTES] = "width-in-bytes",
  [GCUDA_COPY_PROP_HEIGHT] = "height",
  [GCUDA_COPY_PROP_SRC_Z] = "src-z",
  [GCUDA_COPY_PROP_SRC_HEIGHT] = "src-height",
  [GCUDA_COPY_PROP_DST_Z] = "dst-z",
  [GCUDA_COPY_PROP_DST_HEIGHT] = "dst-height",
  [GCUDA_COPY_PROP_DEPTH] = "depth",
};

/* ------------------------------------------------------------ shared object code */

static GCudaCopySpec *
spec_of (GObject *object)
{
  return &((GCudaCopyObject *) object)->spec;
}

static guint64 *
spec_field (GCudaCopySpec *spec,
            guint          prop_id)
{
  switch (prop_id)
    {
    case GCUDA_COPY_PROP_SRC_X_IN_BYTES: return &spec->src.x_in_bytes;
    case GCUDA_COPY_PROP_SRC_Y:          return &spec->src.y;
    case GCUDA_COPY_PROP_SRC_PITCH:      return &spec->src.pitch;
    case GCUDA_COPY_PROP_DST_X_IN_BYTES: return &spec->dst.x_in_bytes;
    case GCUDA_COPY_PROP_DST_Y:          return &spec->dst.y;
    case GCUDA_COPY_PROP_DST_PITCH:      return &spec->dst.pitch;
    case GCUDA_COPY_PROP_WIDTH_IN_BYTES: return &spec->width_in_bytes;
    case GCUDA_COPY_PROP_HEIGHT:         return &spec->height;
    case GCUDA_COPY_PROP_SRC_Z:          return &spec->src.z;
    case GCUDA_COPY_PROP_SRC_HEIGHT:     return &spec->src.height;
    case GCUDA_COPY_PROP_DST_Z:          return &spec->dst.z;
    case GCUDA_COPY_PROP_DST_HEIGHT:     return &spec->dst.height;
    case GCUDA_COPY_PROP_DEPTH:          return &spec->depth;
    default:                             return NULL;
    }
}

/* Forgets the endpoint's memory; its geometry and context stay. */
static void
endpoint_forget_memory (GCudaCopyEndpoint *ep)
{
  ep->kind = GCUDA_COPY_ENDPOINT_NONE;
  ep->address = 0;
  ep->size = 0;
  g_clear_object (&ep->host_buffer);
  g_clear_object (&ep->buffer);
  g_clear_object (&ep->array);
}

static void
copy_finalize (GObject *object)
{
  GCudaCopySpec *spec = spec_of (object);

  endpoint_forget_memory (&spec->src);
  endpoint_forget_memory (&spec->dst);
  g_clear_object (&spec->src.context);
  g_clear_object (&spec->dst.context);

  G_OBJECT_CLASS (g_type_class_peek_parent (G_OBJECT_GET_CLASS (object)))->finalize (object);
}

void
_gcuda_copy_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  guint64 *field = spec_field (spec_of (object), prop_id);

  if (field == NULL)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  else
    g_value_set_uint64 (value, *field);
}

void
_gcuda_copy_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  guint64 *field = spec_field (spec_of (object), prop_id);

  if (field == NULL)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  _gcuda_copy_set_field ((GCudaCopyObject *) object, pspec, prop_id, g_value_get_uint64 (value));
}

void
_gcuda_copy_class_setup (GObjectClass  *object_class,
                         GParamSpec   **props,
                         guint          n_props)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = copy_finalize;
  object_class->get_property = _gcuda_copy_get_property;
  object_class->set_property = _gcuda_copy_set_property;

  for (guint i = 1; i < n_props; i++)
    props[i] = g_param_spec_uint64 (property_names[i], NULL, NULL, 0, G_MAXUINT64, 0, rw);
  g_object_class_install_properties (object_class, n_props, props);
}

guint64
_gcuda_copy_get_field (GCudaCopyObject *copy,
                       guint            prop_id)
{
  return *spec_field (&copy->spec, prop_id);
}

void
_gcuda_copy_set_field (GCudaCopyObject *copy,
                       GParamSpec      *pspec,
                       guint            prop_id,
                       guint64          value)
{
  guint64 *field = spec_field (&copy->spec, prop_id);

  if (*field != value)
    {
      *field = value;
      g_object_notify_by_pspec (G_OBJECT (copy), pspec);
    }
}

/* ------------------------------------------------------------ endpoints */

static void
endpoint_set_address (GCudaCopyEndpoint     *ep,
                      GCudaCopyEndpointKind  kind,
                      guint64                address,
                      guint64                size)
{
  endpoint_forget_memory (ep);
  ep->kind = kind;
  ep->address = address;
  ep->size = size;
}

void
_gcuda_copy_endpoint_set_host (GCudaCopyEndpoint *ep,
                               guint64            address,
                               guint64            size)
{
  endpoint_set_address (ep, GCUDA_COPY_ENDPOINT_HOST, address, size);
}

void
_gcuda_copy_endpoint_set_unified (GCudaCopyEndpoint *ep,
                                  guint64            address,
                                  guint64            size)
{
  endpoint_set_address (ep, GCUDA_COPY_ENDPOINT_UNIFIED, address, size);
}

/* Makes @object (NULL: none) the memory @ep copies from or to, kept in
 * @slot, @ep's member for @kind. The reference is taken before the old
 * one goes: @object may be what @ep holds already. */
static void
endpoint_set_object (GCudaCopyEndpoint     *ep,
                     GCudaCopyEndpointKind  kind,
                     gpointer              *slot,
                     gpointer               object)
{
  if (object != NULL)
    g_object_ref (object);
  endpoint_forget_memory (ep);
  if (object != NULL)
    {
      ep->kind = kind;
      *slot = object;
    }
}

void
_gcuda_copy_endpoint_set_host_buffer (GCudaCopyEndpoint *ep,
                                      GCudaHostBuffer   *buffer)
{
  g_return_if_fail (buffer == NULL || GCUDA_IS_HOST_BUFFER (buffer));
  endpoint_set_object (ep, GCUDA_COPY_ENDPOINT_HOST_BUFFER, (gpointer *) &ep->host_buffer, buffer);
}

void
_gcuda_copy_endpoint_set_buffer (GCudaCopyEndpoint *ep,
                                 GCudaBuffer       *buffer)
{
  g_return_if_fail (buffer == NULL || GCUDA_IS_BUFFER (buffer));
  endpoint_set_object (ep, GCUDA_COPY_ENDPOINT_BUFFER, (gpointer *) &ep->buffer, buffer);
}

void
_gcuda_copy_endpoint_set_array (GCudaCopyEndpoint *ep,
                                GCudaArray        *array)
{
  g_return_if_fail (array == NULL || GCUDA_IS_ARRAY (array));
  endpoint_set_object (ep, GCUDA_COPY_ENDPOINT_ARRAY, (gpointer *) &ep->array, array);
}

void
_gcuda_copy_endpoint_set_context (GCudaCopyEndpoint *ep,
                                  GCudaContext      *context)
{
  g_return_if_fail (context == NULL || GCUDA_IS_CONTEXT (context));

  g_set_object (&ep->context, context);
}

/* The memory of @ep: kind, base and size, or an error when it is missing,
 * freed or malformed. */
static gboolean
endpoint_plan_memory (const GCudaCopyEndpoint  *ep,
                      gboolean                  is_src,
                      PlannedEndpoint          *out,
                      GError                  **error)
{
  guint64 last;

  switch (ep->kind)
    {
    case GCUDA_COPY_ENDPOINT_NONE:
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           is_src ? _("The copy has no source: set one with set_src_host(), "
                                      "set_src_host_buffer(), set_src_buffer(), set_src_unified() or set_src_array()")
                                  : _("The copy has no destination: set one with set_dst_host(), "
                                      "set_dst_host_buffer(), set_dst_buffer(), set_dst_unified() or set_dst_array()"));
      return FALSE;

    case GCUDA_COPY_ENDPOINT_HOST:
    case GCUDA_COPY_ENDPOINT_UNIFIED:
      if (ep->address == 0)
        {
          g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                               is_src ? _("The source address is 0")
                                      : _("The destination address is 0"));
          return FALSE;
        }
      if (ep->size > 0 && !g_uint64_checked_add (&last, ep->address, ep->size - 1))
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                       is_src ? _("The source memory (%" PRIu64 " bytes at 0x%"
                                  PRIx64 ") wraps around the address space")
                              : _("The destination memory (%" PRIu64 " bytes at 0x%"
                                  PRIx64 ") wraps around the address space"),
                       ep->size, ep->address);
          return FALSE;
        }
      out->size = ep->size;
      if (ep->kind == GCUDA_COPY_ENDPOINT_HOST)
        {
          out->memory_type = CU_MEMORYTYPE_HOST;
          out->host = GSIZE_TO_POINTER (ep->address);
        }
      else
        {
          out->memory_type = CU_MEMORYTYPE_UNIFIED;
          out->device = (CUdeviceptr) ep->address;
        }
      return TRUE;

    case GCUDA_COPY_ENDPOINT_HOST_BUFFER:
      if (!_gcuda_host_buffer_check (ep->host_buffer, error))
        {
          g_prefix_error (error, is_src ? _("Source: ") : _("Destination: "));
          return FALSE;
        }
      out->memory_type = CU_MEMORYTYPE_HOST;
      out->host = GSIZE_TO_POINTER (gcuda_host_buffer_get_address (ep->host_buffer));
      out->size = gcuda_host_buffer_get_size (ep->host_buffer);
      return TRUE;

    case GCUDA_COPY_ENDPOINT_BUFFER:
      if (gcuda_buffer_is_freed (ep->buffer))
        {
          g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_FREED,
                               is_src ? _("The source buffer was freed")
                                      : _("The destination buffer was freed"));
          return FALSE;
        }
      /* made by hand: no memory behind it */
      if (!_gcuda_buffer_check (ep->buffer, error))
        {
          g_prefix_error (error, is_src ? _("Source: ") : _("Destination: "));
          return FALSE;
        }
      out->memory_type = CU_MEMORYTYPE_DEVICE;
      out->device = (CUdeviceptr) gcuda_buffer_get_address (ep->buffer);
      out->size = gcuda_buffer_get_size (ep->buffer);
      return TRUE;

    case GCUDA_COPY_ENDPOINT_ARRAY:
      if (!_gcuda_array_check (ep->array, error))
        {
          g_prefix_error (error, is_src ? _("Source: ") : _("Destination: "));
          return FALSE;
        }
      out->memory_type = CU_MEMORYTYPE_ARRAY;
      out->array = _gcuda_array_get_handle (ep->array);
      out->size = gcuda_array_get_size (ep->array);
      return TRUE;
    }

  /* Unreachable: every endpoint kind is handled above. */
  g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_FAILED, _("Unknown copy endpoint"));
  return FALSE;
}

/* An array endpoint: the region must lie within the array's extent (bytes
 * per row, rows, slices); the array has no pitch. */
static gboolean
endpoint_plan_array_region (const GCudaCopyEndpoint  *ep,
                            gboolean                  is_src,
                            const GCudaCopySpec      *spec,
                            PlannedEndpoint          *out,
                            GError                  **error)
{
  guint64 row_bytes, rows, slices, row_end, rows_end, slices_end;

  _gcuda_array_get_extent (ep->array, &row_bytes, &rows, &slices);
  if (!g_uint64_checked_add (&row_end, ep->x_in_bytes, spec->width_in_bytes) ||
      !g_uint64_checked_add (&rows_end, ep->y, spec->height) ||
      !g_uint64_checked_add (&slices_end, ep->z, spec->depth) ||
      row_end > row_bytes || rows_end > rows || slices_end > slices)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS,
                   is_src ? _("The source region reaches outside the source array (%" PRIu64
                              " bytes per row, %" PRIu64 " rows, %" PRIu64 " slices)")
                          : _("The destination region reaches outside the destination array (%"
                              PRIu64 " bytes per row, %" PRIu64 " rows, %"
                              PRIu64 " slices)"),
                   row_bytes, rows, slices);
      return FALSE;
    }
  out->x_in_bytes = ep->x_in_bytes;
  out->y = ep->y;
  out->z = ep->z;
  out->pitch = 0;
  out->height = 0;
  return TRUE;
}

/* Checks the region of @spec on @ep against the memory planned in @out and
 * fills in the geometry the driver gets. A pitch (or a slice height) that
 * cannot change any address is raised to the smallest value the driver
 * accepts; one that can must be at least that value. Computed without
 * overflow: the last byte touched is
 * x + (y + (z + depth - 1) × rows_per_slice + height - 1) × pitch + width - 1. */
static gboolean
endpoint_plan_region (const GCudaCopyEndpoint  *ep,
                      gboolean                  is_src,
                      const GCudaCopySpec      *spec,
                      PlannedEndpoint          *out,
                      GError                  **error)
{
  guint64 pitch = ep->pitch, rows_per_slice = ep->height;
  guint64 row_end, slice_end, last_slice, last_row, start, end;
  gboolean pitch_matters = spec->height > 1 || spec->depth > 1 || ep->y > 0 || ep->z > 0;
  gboolean slices_matter = spec->depth > 1 || ep->z > 0;

  if (ep->kind == GCUDA_COPY_ENDPOINT_ARRAY)
    return endpoint_plan_array_region (ep, is_src, spec, out, error);

  if (!g_uint64_checked_add (&row_end, ep->x_in_bytes, spec->width_in_bytes) ||
      !g_uint64_checked_add (&slice_end, ep->y, spec->height))
    goto overflow;

  if (!pitch_matters)
    pitch = MAX (pitch, row_end);
  else if (pitch < row_end)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   is_src ? _("src-pitch (%" PRIu64 ") is smaller than src-x-in-bytes + "
                              "width-in-bytes (%" PRIu64 ")")
                          : _("dst-pitch (%" PRIu64 ") is smaller than dst-x-in-bytes + "
                              "width-in-bytes (%" PRIu64 ")"),
                   pitch, row_end);
      return FALSE;
    }

  if (!slices_matter)
    rows_per_slice = MAX (rows_per_slice, slice_end);
  else if (rows_per_slice < slice_end)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   is_src ? _("src-height (%" PRIu64 " rows per slice) is smaller than "
                              "src-y + height (%" PRIu64 ")")
                          : _("dst-height (%" PRIu64 " rows per slice) is smaller than "
                              "dst-y + height (%" PRIu64 ")"),
                   rows_per_slice, slice_end);
      return FALSE;
    }

  if (!g_uint64_checked_add (&last_slice, ep->z, spec->depth - 1) ||
      !g_uint64_checked_mul (&last_row, last_slice, rows_per_slice) ||
      !g_uint64_checked_add (&last_row, last_row, slice_end - 1) ||
      !g_uint64_checked_mul (&end, last_row, pitch) ||
      !g_uint64_checked_add (&end, end, row_end))
    goto overflow;

  if (end > out->size)
    {
      /* No overflow: the first byte comes before the last. */
      start = (ep->z * rows_per_slice + ep->y) * pitch + ep->x_in_bytes;
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS,
                   is_src ? _("The source region, bytes %" PRIu64 " to %" PRIu64
                              ", reaches outside the %" PRIu64 " bytes of the source memory")
                          : _("The destination region, bytes %" PRIu64 " to %" PRIu64
                              ", reaches outside the %" PRIu64 " bytes of the destination memory"),
                   start, end, out->size);
      return FALSE;
    }

  out->x_in_bytes = ep->x_in_bytes;
  out->y = ep->y;
  out->z = ep->z;
  out->pitch = pitch;
  out->height = rows_per_slice;
  return TRUE;

overflow:
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS,
               is_src ? _("The source region reaches beyond 2^64 bytes, outside the %" PRIu64
                          " bytes of the source memory")
                      : _("The destination region reaches beyond 2^64 bytes, outside the %" PRIu64
                          " bytes of the destination memory"),
               out->size);
  return FALSE;
}

/* The context the memory of @ep belongs to, as far as GCuda knows: the
 * buffer's, or the one given to the peer form; NULL for plain host and
 * unified memory. */
static gboolean
endpoint_get_context (const GCudaCopyEndpoint  *ep,
                      gboolean                  is_src,
                      GCudaContext            **out,
                      GError                  **error)
{
  GCudaContext *owner = ep->kind == GCUDA_COPY_ENDPOINT_BUFFER ? gcuda_buffer_get_context (ep->buffer)
                        : ep->kind == GCUDA_COPY_ENDPOINT_ARRAY ? gcuda_array_get_context (ep->array) : NULL;

  if (ep->context != NULL && owner != NULL && ep->context != owner)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                           is_src ? _("The source context is not the context of the source buffer")
                                  : _("The destination context is not the context of the destination buffer"));
      return FALSE;
    }
  *out = ep->context != NULL ? ep->context : owner;
  if (*out != NULL && gcuda_context_is_destroyed (*out))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED,
                           is_src ? _("The context of the source memory was destroyed")
                                  : _("The context of the destination memory was destroyed"));
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ planning and running */

/* Checks everything about the copy, without the driver (except to find the
 * default context when nothing names one), and chooses the context to make
 * current. On success @plan->context is a reference the caller drops. */
static gboolean
copy_plan (const GCudaCopySpec  *spec,
           GCudaCopyForm         form,
           GCudaStream          *stream,
           CopyPlan             *plan,
           GError              **error)
{
  GCudaContext *src_ctx = NULL, *dst_ctx = NULL, *owner, *stream_ctx = NULL;

  memset (plan, 0, sizeof *plan);

  if (!_gcuda_stream_check_arg (stream, error))
    return FALSE;
  if (stream != NULL)
    stream_ctx = gcuda_stream_get_context (stream);

  if (!endpoint_plan_memory (&spec->src, TRUE, &plan->src, error) ||
      !endpoint_plan_memory (&spec->dst, FALSE, &plan->dst, error))
    return FALSE;

  if (spec->width_in_bytes == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("width-in-bytes is 0: set the number of bytes to copy from each row"));
      return FALSE;
    }
  if (spec->height == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("height is 0: set the number of rows to copy"));
      return FALSE;
    }
  if (spec->depth == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("depth is 0: set the number of slices to copy"));
      return FALSE;
    }

  if (!endpoint_plan_region (&spec->src, TRUE, spec, &plan->src, error) ||
      !endpoint_plan_region (&spec->dst, FALSE, spec, &plan->dst, error))
    return FALSE;

  if (!endpoint_get_context (&spec->src, TRUE, &src_ctx, error) ||
      !endpoint_get_context (&spec->dst, FALSE, &dst_ctx, error))
    return FALSE;
  if (form != GCUDA_COPY_FORM_3D_PEER && src_ctx != NULL && dst_ctx != NULL && src_ctx != dst_ctx)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                           _("The source and destination buffers belong to different contexts: "
                             "use GCuda.Copy3DPeer to copy between contexts"));
      return FALSE;
    }
  owner = dst_ctx != NULL ? dst_ctx : src_ctx;
  if (stream_ctx != NULL && owner != NULL && stream_ctx != owner)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                           owner == dst_ctx ? _("The stream belongs to another context than the destination memory")
                                            : _("The stream belongs to another context than the source memory"));
      return FALSE;
    }

  /* The destination's context, else the source's, else the stream's, else
   * the default context. */
  plan->context = _gcuda_context_resolve (owner != NULL ? owner : stream_ctx, error);
  if (plan->context == NULL)
    return FALSE;
  plan->src.context = src_ctx != NULL ? src_ctx : plan->context;
  plan->dst.context = dst_ctx != NULL ? dst_ctx : plan->context;
  return TRUE;
}

/* The fields every driver descriptor has, from a checked plan. */
#define FILL_2D_FIELDS(d, plan, spec) \
  G_STMT_START { \
    (d).srcXInBytes = (plan).src.x_in_bytes; \
    (d).srcY = (plan).src.y; \
    (d).srcMemoryType = (plan).src.memory_type; \
    (d).srcHost = (plan).src.host; \
    (d).srcDevice = (plan).src.device; \
    (d).srcArray = (plan).src.array; \
    (d).srcPitch = (plan).src.pitch; \
    (d).dstXInBytes = (plan).dst.x_in_bytes; \
    (d).dstY = (plan).dst.y; \
    (d).dstMemoryType = (plan).dst.memory_type; \
    (d).dstHost = (plan).dst.host; \
    (d).dstDevice = (plan).dst.device; \
    (d).dstArray = (plan).dst.array; \
    (d).dstPitch = (plan).dst.pitch; \
    (d).WidthInBytes = (spec)->width_in_bytes; \
    (d).Height = (spec)->height; \
  } G_STMT_END

/* The fields the 3D descriptors add (LODs stay 0). */
#define FILL_3D_FIELDS(d, plan, spec) \
  G_STMT_START { \
    FILL_2D_FIELDS (d, plan, spec); \
    (d).srcZ = (plan).src.z; \
    (d).srcHeight = (plan).src.height; \
    (d).dstZ = (plan).dst.z; \
    (d).dstHeight = (plan).dst.height; \
    (d).Depth = (spec)->depth; \
  } G_STMT_END

gboolean
_gcuda_copy_execute (const GCudaCopySpec  *spec,
                     GCudaCopyForm         form,
                     GCudaStream          *stream,
                     GError              **error)
{
  g_autoptr(GCudaContext) context = NULL;  /* declared first: dropped after the scope is left */
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  const GCudaDriver *drv;
  CopyPlan plan;
  CUstream h;
  gboolean ok = FALSE;

  if (!copy_plan (spec, form, stream, &plan, error))
    return FALSE;
  context = plan.context;
  h = _gcuda_stream_get_handle (stream);  /* @stream is known to be a stream now */
  if (!_gcuda_context_enter (context, &scope, error))
    return FALSE;

  drv = GCUDA_DRV;
  switch (form)
    {
    case GCUDA_COPY_FORM_2D:
      {
        CUDA_MEMCPY2D d = { 0 };

        FILL_2D_FIELDS (d, plan, spec);
        if (stream != NULL)
          ok = GCUDA_CHECK (drv->fn_cuMemcpy2DAsync (&d, h), "cuMemcpy2DAsync", error);
        else if (!spec->unaligned)
          ok = GCUDA_CHECK (drv->fn_cuMemcpy2D (&d), "cuMemcpy2D", error);
        else
          ok = GCUDA_CHECK (drv->fn_cuMemcpy2DUnaligned (&d), "cuMemcpy2DUnaligned", error);
      }
      break;

    case GCUDA_COPY_FORM_3D:
      {
        CUDA_MEMCPY3D d = { 0 };

        FILL_3D_FIELDS (d, plan, spec);
        ok = stream != NULL ? GCUDA_CHECK (drv->fn_cuMemcpy3DAsync (&d, h), "cuMemcpy3DAsync", error)
                            : GCUDA_CHECK (drv->fn_cuMemcpy3D (&d), "cuMemcpy3D", error);
      }
      break;

    case GCUDA_COPY_FORM_3D_PEER:
      {
        CUDA_MEMCPY3D_PEER d = { 0 };

        FILL_3D_FIELDS (d, plan, spec);
        d.srcContext = _gcuda_context_get_handle_internal (plan.src.context);
        d.dstContext = _gcuda_context_get_handle_internal (plan.dst.context);
        ok = stream != NULL ? GCUDA_CHECK (drv->fn_cuMemcpy3DPeerAsync (&d, h), "cuMemcpy3DPeerAsync", error)
                            : GCUDA_CHECK (drv->fn_cuMemcpy3DPeer (&d), "cuMemcpy3DPeer", error);
      }
      break;

    }

  if (ok && stream == NULL)
    ok = _gcuda_legacy_stream_synchronize (error);
  return ok;
}

