/* gcuda-copy.c: structured (2D, 3D and cross-context 3D) copies
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-array-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-context-private.h"
#include "gcuda-host-buffer-private.h"
#include "gcuda-stream-private.h"

/**
 * GCudaCopy2D:
 *
 * A copy of a rectangle of bytes between two pitched memory regions
 * (PyCUDA's `Memcpy2D`, the driver's `cuMemcpy2D`).
 *
 * ```c
 * static gboolean
 * download_rows (GCudaBuffer *pitched, guint64 width_in_bytes, guint64 rows,
 *                guint8 *host, GError **error)
 * {
 *   g_autoptr(GCudaCopy2D) copy = gcuda_copy_2d_new ();
 *
 *   gcuda_copy_2d_set_src_buffer (copy, pitched);
 *   gcuda_copy_2d_set_dst_host (copy, (guint64) (guintptr) host, width_in_bytes * rows);
 *   g_object_set (copy,
 *                 "src-pitch", gcuda_buffer_get_pitch (pitched),
 *                 "dst-pitch", width_in_bytes,
 *                 "width-in-bytes", width_in_bytes,
 *                 "height", rows,
 *                 NULL);
 *   return gcuda_copy_2d_execute (copy, NULL, error);
 * }
 * ```
 *
 * In Python:
 *
 * ```python
 * a = numpy.random.rand(100, 50).astype(numpy.float32)
 * buf, pitch = GCuda.mem_alloc_pitch(50 * 4, 100, 4)
 * copy = GCuda.Copy2D.new()
 * copy.set_src_host(a.__array_interface__['data'][0], a.nbytes)
 * copy.set_dst_buffer(buf)
 * copy.props.src_pitch = copy.props.width_in_bytes = 50 * 4
 * copy.props.dst_pitch = pitch
 * copy.props.height = 100
 * copy.execute(None)
 * ```
 *
 * Describe the copy with properties and endpoints, then call
 * [method@GCuda.Copy2D.execute], as often as needed. Each endpoint is host
 * memory ([method@GCuda.Copy2D.set_src_host],
 * [method@GCuda.Copy2D.set_src_host_buffer]), device memory
 * ([method@GCuda.Copy2D.set_src_buffer]), memory of either kind in the unified
 * address space ([method@GCuda.Copy2D.set_src_unified]) or a
 * [class@GCuda.Array] ([method@GCuda.Copy2D.set_src_array], where the region
 * must lie within the array's extent and pitches do not apply), and the same
 * for the destination. Row `r` of the region starts at byte `x-in-bytes + (y +
 * r) × pitch` of its endpoint; [property@GCuda.Copy2D:width-in-bytes] bytes of
 * [property@GCuda.Copy2D:height] rows are copied.
 *
 * Like PyCUDA's, every property starts at 0: set at least
 * [property@GCuda.Copy2D:width-in-bytes], [property@GCuda.Copy2D:height] and
 * the pitches. The region is checked against both endpoints before the driver
 * is called: a region reaching outside the memory is
 * [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error], a missing endpoint, an empty
 * region or a pitch smaller than `x-in-bytes + width-in-bytes` is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], a freed buffer is
 * [GCUDA_ERROR_FREED][error@GCuda.Error], and device buffers of two different
 * contexts are [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error] (use
 * [class@GCuda.Copy3DPeer] for those). A pitch that cannot matter (one row at
 * `y` 0) is not checked.
 *
 * The properties are `guint64`: in C, pass `(guint64)` values to
 * [method@GObject.Object.set]. The object keeps references to the buffers it
 * was given; it is not thread-safe, but may be used from one thread at a time.
 *
 * Since: 1.0
 */

/**
 * GCudaCopy3D:
 *
 * A copy of a box of bytes between two memory regions laid out as slices
 * of pitched rows (PyCUDA's `Memcpy3D`, the driver's `cuMemcpy3D`).
 *
 * ```c
 * static gboolean
 * upload_volume (GCudaArray *array, const float *volume,
 *                guint64 width, guint64 height, guint64 depth, GError **error)
 * {
 *   g_autoptr(GCudaCopy3D) copy = gcuda_copy_3d_new ();
 *   guint64 row = width * sizeof (float);
 *
 *   gcuda_copy_3d_set_src_host (copy, (guint64) (guintptr) volume, row * height * depth);
 *   gcuda_copy_3d_set_dst_array (copy, array);
 *   g_object_set (copy,
 *                 "src-pitch", row,
 *                 "src-height", height,
 *                 "width-in-bytes", row,
 *                 "height", height,
 *                 "depth", depth,
 *                 NULL);
 *   return gcuda_copy_3d_execute (copy, NULL, error);
 * }
 * ```
 *
 * In Python, the box `[1:3, 2:6, 3:11]` of a 3D array into host memory:
 *
 * ```python
 * a = numpy.random.rand(8, 16, 32).astype(numpy.float32)  # depth, height, width
 * array = GCuda.np_to_array(a)
 * part = numpy.zeros((2, 4, 8), numpy.float32)
 * copy = GCuda.Copy3D.new()
 * copy.set_src_array(array)
 * copy.set_dst_host(part.__array_interface__['data'][0], part.nbytes)
 * copy.props.src_x_in_bytes, copy.props.src_y, copy.props.src_z = 3 * 4, 2, 1
 * copy.props.dst_pitch, copy.props.dst_height = 8 * 4, 4
 * copy.props.width_in_bytes, copy.props.height, copy.props.depth = 8 * 4, 4, 2
 * copy.execute(None)
 * assert (part == a[1:3, 2:6, 3:11]).all()
 * ```
 *
 * It works like [class@GCuda.Copy2D], with a third dimension: row `r` of slice
 * `s` of the region starts at byte `x-in-bytes + (y + r + (z + s) ×
 * rows-per-slice) × pitch` of its endpoint, where the rows per slice are
 * [property@GCuda.Copy3D:src-height] and [property@GCuda.Copy3D:dst-height];
 * [property@GCuda.Copy3D:depth] slices of [property@GCuda.Copy3D:height] rows
 * of [property@GCuda.Copy3D:width-in-bytes] bytes are copied. Every property
 * starts at 0, [property@GCuda.Copy3D:depth] included: set it.
 *
 * The rows per slice must be at least `y + height` when they matter (more than
 * one slice, or `z` above 0); otherwise
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]. Both endpoints must be in
 * one context; [class@GCuda.Copy3DPeer] copies between contexts.
 *
 * Since: 1.0
 */

/**
 * GCudaCopy3DPeer:
 *
 * A [class@GCuda.Copy3D] between memory of two contexts, possibly on two
 * devices (PyCUDA's `Memcpy3DPeer`, the driver's `cuMemcpy3DPeer`).
 *
 * ```c
 * static gboolean
 * copy_between_devices (GCudaBuffer *dest, GCudaBuffer *source, guint64 size,
 *                       GError **error)
 * {
 *   g_autoptr(GCudaCopy3DPeer) copy = gcuda_copy_3d_peer_new ();
 *
 *   // dest and source may be in contexts of two different devices
 *   gcuda_copy_3d_peer_set_src_buffer (copy, source);
 *   gcuda_copy_3d_peer_set_dst_buffer (copy, dest);
 *   g_object_set (copy,
 *                 "width-in-bytes", size,
 *                 "height", (guint64) 1,
 *                 "depth", (guint64) 1,
 *                 NULL);
 *   return gcuda_copy_3d_peer_execute (copy, NULL, error);
 * }
 * ```
 *
 * In Python, PyCUDA's `memcpy_peer()` copies a whole range between contexts:
 *
 * ```python
 * other = GCuda.Device(1).retain_primary_context()
 * src = GCuda.to_device(numpy.ones(1024, numpy.float32))
 * dest = GCuda.mem_alloc(src.get_size(), context=other)
 * GCuda.memcpy_peer(dest, src, src.get_size())
 * ```
 *
 * The context of a device buffer endpoint is the buffer's; for host and
 * unified endpoints it can be named with
 * [method@GCuda.Copy3DPeer.set_src_context] and
 * [method@GCuda.Copy3DPeer.set_dst_context]. The driver stages the copy through
 * the host when the devices have no peer access.
 *
 * Since: 1.0
 */

typedef enum {
  ENDPOINT_NONE,
  ENDPOINT_HOST,         /* an address and a size */
  ENDPOINT_HOST_BUFFER,  /* a GCudaHostBuffer */
  ENDPOINT_BUFFER,       /* a GCudaBuffer */
  ENDPOINT_UNIFIED,      /* an address in the unified address space and a size */
  ENDPOINT_ARRAY,        /* a GCudaArray: the region is checked against its extent, no pitch */
} EndpointKind;

/* One side of a copy, as the user described it. */
typedef struct {
  EndpointKind kind;
  guint64 address;               /* HOST, UNIFIED */
  guint64 size;                  /* HOST, UNIFIED */
  GCudaHostBuffer *host_buffer;  /* HOST_BUFFER: a reference */
  GCudaBuffer *buffer;           /* BUFFER: a reference */
  GCudaArray *array;             /* ARRAY: a reference */
  GCudaContext *context;         /* GCudaCopy3DPeer's explicit context, or NULL */

  guint64 x_in_bytes;
  guint64 y;
  guint64 z;                     /* 3D forms */
  guint64 pitch;
  guint64 height;                /* 3D forms: rows per slice */
} Endpoint;

typedef struct {
  Endpoint src;
  Endpoint dst;
  guint64 width_in_bytes;
  guint64 height;
  guint64 depth;                 /* always 1 for GCudaCopy2D */
  gboolean unaligned;            /* GCudaCopy2D: !aligned */
} CopySpec;

typedef enum {
  COPY_FORM_2D,
  COPY_FORM_3D,
  COPY_FORM_3D_PEER,
} CopyForm;

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

struct _GCudaCopy2D
{
  GObject parent_instance;
  CopySpec spec;
};

struct _GCudaCopy3D
{
  GObject parent_instance;
  CopySpec spec;
};

struct _GCudaCopy3DPeer
{
  GObject parent_instance;
  CopySpec spec;
};

G_DEFINE_FINAL_TYPE (GCudaCopy2D, gcuda_copy_2d, G_TYPE_OBJECT)
G_DEFINE_FINAL_TYPE (GCudaCopy3D, gcuda_copy_3d, G_TYPE_OBJECT)
G_DEFINE_FINAL_TYPE (GCudaCopy3DPeer, gcuda_copy_3d_peer, G_TYPE_OBJECT)

/* The 2D properties come first; the 3D forms add the rest. */
enum {
  PROP_0,
  PROP_SRC_X_IN_BYTES,
  PROP_SRC_Y,
  PROP_SRC_PITCH,
  PROP_DST_X_IN_BYTES,
  PROP_DST_Y,
  PROP_DST_PITCH,
  PROP_WIDTH_IN_BYTES,
  PROP_HEIGHT,
  N_PROPS_2D,
  PROP_SRC_Z = N_PROPS_2D,
  PROP_SRC_HEIGHT,
  PROP_DST_Z,
  PROP_DST_HEIGHT,
  PROP_DEPTH,
  N_PROPS_3D,
  PROP_ALIGNED = N_PROPS_3D,     /* GCudaCopy2D only */
};

static const char * const property_names[N_PROPS_3D] = {
  [PROP_SRC_X_IN_BYTES] = "src-x-in-bytes",
  [PROP_SRC_Y] = "src-y",
  [PROP_SRC_PITCH] = "src-pitch",
  [PROP_DST_X_IN_BYTES] = "dst-x-in-bytes",
  [PROP_DST_Y] = "dst-y",
  [PROP_DST_PITCH] = "dst-pitch",
  [PROP_WIDTH_IN_BYTES] = "width-in-bytes",
  [PROP_HEIGHT] = "height",
  [PROP_SRC_Z] = "src-z",
  [PROP_SRC_HEIGHT] = "src-height",
  [PROP_DST_Z] = "dst-z",
  [PROP_DST_HEIGHT] = "dst-height",
  [PROP_DEPTH] = "depth",
};

static GParamSpec *properties_2d[N_PROPS_2D];
static GParamSpec *aligned_pspec;
static GParamSpec *properties_3d[N_PROPS_3D];
static GParamSpec *properties_3d_peer[N_PROPS_3D];

/* ------------------------------------------------------------ shared object code */

static CopySpec *
spec_of (GObject *object)
{
  if (GCUDA_IS_COPY_2D (object))
    return &GCUDA_COPY_2D (object)->spec;
  if (GCUDA_IS_COPY_3D (object))
    return &GCUDA_COPY_3D (object)->spec;
  return &GCUDA_COPY_3D_PEER (object)->spec;
}

static guint64 *
spec_field (CopySpec *spec,
            guint     prop_id)
{
  switch (prop_id)
    {
    case PROP_SRC_X_IN_BYTES: return &spec->src.x_in_bytes;
    case PROP_SRC_Y:          return &spec->src.y;
    case PROP_SRC_PITCH:      return &spec->src.pitch;
    case PROP_DST_X_IN_BYTES: return &spec->dst.x_in_bytes;
    case PROP_DST_Y:          return &spec->dst.y;
    case PROP_DST_PITCH:      return &spec->dst.pitch;
    case PROP_WIDTH_IN_BYTES: return &spec->width_in_bytes;
    case PROP_HEIGHT:         return &spec->height;
    case PROP_SRC_Z:          return &spec->src.z;
    case PROP_SRC_HEIGHT:     return &spec->src.height;
    case PROP_DST_Z:          return &spec->dst.z;
    case PROP_DST_HEIGHT:     return &spec->dst.height;
    case PROP_DEPTH:          return &spec->depth;
    default:                  return NULL;
    }
}

/* Forgets the endpoint's memory; its geometry and context stay. */
static void
endpoint_forget_memory (Endpoint *ep)
{
  ep->kind = ENDPOINT_NONE;
  ep->address = 0;
  ep->size = 0;
  g_clear_object (&ep->host_buffer);
  g_clear_object (&ep->buffer);
  g_clear_object (&ep->array);
}

static void
copy_finalize (GObject *object)
{
  CopySpec *spec = spec_of (object);

  endpoint_forget_memory (&spec->src);
  endpoint_forget_memory (&spec->dst);
  g_clear_object (&spec->src.context);
  g_clear_object (&spec->dst.context);

  G_OBJECT_CLASS (g_type_class_peek_parent (G_OBJECT_GET_CLASS (object)))->finalize (object);
}

static void
copy_get_property (GObject    *object,
                   guint       prop_id,
                   GValue     *value,
                   GParamSpec *pspec)
{
  guint64 *field = spec_field (spec_of (object), prop_id);

  if (prop_id == PROP_ALIGNED && GCUDA_IS_COPY_2D (object))
    g_value_set_boolean (value, gcuda_copy_2d_get_aligned (GCUDA_COPY_2D (object)));
  else if (field == NULL)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  else
    g_value_set_uint64 (value, *field);
}

static void
copy_set_property (GObject      *object,
                   guint         prop_id,
                   const GValue *value,
                   GParamSpec   *pspec)
{
  guint64 *field = spec_field (spec_of (object), prop_id);
  guint64 v;

  if (prop_id == PROP_ALIGNED && GCUDA_IS_COPY_2D (object))
    {
      gcuda_copy_2d_set_aligned (GCUDA_COPY_2D (object), g_value_get_boolean (value));
      return;
    }
  if (field == NULL)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  v = g_value_get_uint64 (value);
  if (*field != v)
    {
      *field = v;
      g_object_notify_by_pspec (object, pspec);
    }
}

/* Installs the first @n_props properties (2D or 3D) on a copy class. */
static void
copy_class_setup (GObjectClass  *object_class,
                  GParamSpec   **props,
                  guint          n_props)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = copy_finalize;
  object_class->get_property = copy_get_property;
  object_class->set_property = copy_set_property;

  for (guint i = 1; i < n_props; i++)
    props[i] = g_param_spec_uint64 (property_names[i], NULL, NULL, 0, G_MAXUINT64, 0, rw);
  g_object_class_install_properties (object_class, n_props, props);
}

/* ------------------------------------------------------------ endpoints */

static void
endpoint_set_address (Endpoint     *ep,
                      EndpointKind  kind,
                      guint64       address,
                      guint64       size)
{
  endpoint_forget_memory (ep);
  ep->kind = kind;
  ep->address = address;
  ep->size = size;
}

/* Makes @object (NULL: none) the memory @ep copies from or to, kept in
 * @slot, @ep's member for @kind. The reference is taken before the old
 * one goes: @object may be what @ep holds already. */
static void
endpoint_set_object (Endpoint      *ep,
                     EndpointKind   kind,
                     gpointer      *slot,
                     gpointer       object)
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

static void
endpoint_set_host_buffer (Endpoint        *ep,
                          GCudaHostBuffer *buffer)
{
  g_return_if_fail (buffer == NULL || GCUDA_IS_HOST_BUFFER (buffer));
  endpoint_set_object (ep, ENDPOINT_HOST_BUFFER, (gpointer *) &ep->host_buffer, buffer);
}

static void
endpoint_set_buffer (Endpoint    *ep,
                     GCudaBuffer *buffer)
{
  g_return_if_fail (buffer == NULL || GCUDA_IS_BUFFER (buffer));
  endpoint_set_object (ep, ENDPOINT_BUFFER, (gpointer *) &ep->buffer, buffer);
}

static void
endpoint_set_array (Endpoint   *ep,
                    GCudaArray *array)
{
  g_return_if_fail (array == NULL || GCUDA_IS_ARRAY (array));
  endpoint_set_object (ep, ENDPOINT_ARRAY, (gpointer *) &ep->array, array);
}

static void
endpoint_set_context (Endpoint     *ep,
                      GCudaContext *context)
{
  g_return_if_fail (context == NULL || GCUDA_IS_CONTEXT (context));

  g_set_object (&ep->context, context);
}

/* The memory of @ep: kind, base and size, or an error when it is missing,
 * freed or malformed. */
static gboolean
endpoint_plan_memory (const Endpoint   *ep,
                      gboolean          is_src,
                      PlannedEndpoint  *out,
                      GError          **error)
{
  guint64 last;

  switch (ep->kind)
    {
    case ENDPOINT_NONE:
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           is_src ? _("The copy has no source: set one with set_src_host(), "
                                      "set_src_host_buffer(), set_src_buffer(), set_src_unified() or set_src_array()")
                                  : _("The copy has no destination: set one with set_dst_host(), "
                                      "set_dst_host_buffer(), set_dst_buffer(), set_dst_unified() or set_dst_array()"));
      return FALSE;

    case ENDPOINT_HOST:
    case ENDPOINT_UNIFIED:
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
      if (ep->kind == ENDPOINT_HOST)
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

    case ENDPOINT_HOST_BUFFER:
      if (!_gcuda_host_buffer_check (ep->host_buffer, error))
        {
          g_prefix_error (error, is_src ? _("Source: ") : _("Destination: "));
          return FALSE;
        }
      out->memory_type = CU_MEMORYTYPE_HOST;
      out->host = GSIZE_TO_POINTER (gcuda_host_buffer_get_address (ep->host_buffer));
      out->size = gcuda_host_buffer_get_size (ep->host_buffer);
      return TRUE;

    case ENDPOINT_BUFFER:
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

    case ENDPOINT_ARRAY:
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
endpoint_plan_array_region (const Endpoint   *ep,
                            gboolean          is_src,
                            const CopySpec   *spec,
                            PlannedEndpoint  *out,
                            GError          **error)
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
endpoint_plan_region (const Endpoint   *ep,
                      gboolean          is_src,
                      const CopySpec   *spec,
                      PlannedEndpoint  *out,
                      GError          **error)
{
  guint64 pitch = ep->pitch, rows_per_slice = ep->height;
  guint64 row_end, slice_end, last_slice, last_row, start, end;
  gboolean pitch_matters = spec->height > 1 || spec->depth > 1 || ep->y > 0 || ep->z > 0;
  gboolean slices_matter = spec->depth > 1 || ep->z > 0;

  if (ep->kind == ENDPOINT_ARRAY)
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
endpoint_get_context (const Endpoint  *ep,
                      gboolean         is_src,
                      GCudaContext   **out,
                      GError         **error)
{
  GCudaContext *owner = ep->kind == ENDPOINT_BUFFER ? gcuda_buffer_get_context (ep->buffer)
                        : ep->kind == ENDPOINT_ARRAY ? gcuda_array_get_context (ep->array) : NULL;

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
copy_plan (const CopySpec  *spec,
           CopyForm         form,
           GCudaStream     *stream,
           CopyPlan        *plan,
           GError         **error)
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
  if (form != COPY_FORM_3D_PEER && src_ctx != NULL && dst_ctx != NULL && src_ctx != dst_ctx)
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

static gboolean
copy_execute (const CopySpec  *spec,
              CopyForm         form,
              GCudaStream     *stream,
              GError         **error)
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
    case COPY_FORM_2D:
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

    case COPY_FORM_3D:
      {
        CUDA_MEMCPY3D d = { 0 };

        FILL_3D_FIELDS (d, plan, spec);
        ok = stream != NULL ? GCUDA_CHECK (drv->fn_cuMemcpy3DAsync (&d, h), "cuMemcpy3DAsync", error)
                            : GCUDA_CHECK (drv->fn_cuMemcpy3D (&d), "cuMemcpy3D", error);
      }
      break;

    case COPY_FORM_3D_PEER:
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

/* ------------------------------------------------------------ GCudaCopy2D */

/**
 * GCudaCopy2D:src-x-in-bytes:
 *
 * The byte offset of the region within each source row (PyCUDA's
 * `src_x_in_bytes`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:src-y:
 *
 * The first source row of the region (PyCUDA's `src_y`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:src-pitch:
 *
 * The distance in bytes between the starts of two source rows (PyCUDA's
 * `src_pitch`); the [property@GCuda.Buffer:pitch] of a pitched buffer.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:dst-x-in-bytes:
 *
 * The byte offset of the region within each destination row (PyCUDA's
 * `dst_x_in_bytes`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:dst-y:
 *
 * The first destination row of the region (PyCUDA's `dst_y`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:dst-pitch:
 *
 * The distance in bytes between the starts of two destination rows
 * (PyCUDA's `dst_pitch`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:width-in-bytes:
 *
 * The number of bytes copied from each row (PyCUDA's `width_in_bytes`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy2D:height:
 *
 * The number of rows copied (PyCUDA's `height`).
 *
 * Since: 1.0
 */

/**
 * GCudaCopy2D:aligned: (getter get_aligned) (setter set_aligned)
 *
 * Whether a synchronous device-to-device copy may assume the driver's
 * alignment (`cuMemcpy2D`, the default, as PyCUDA's `aligned=True`); %FALSE
 * tolerates misaligned regions at some cost in bandwidth
 * (`cuMemcpy2DUnaligned`). Copies on a stream ignore it.
 *
 * Since: 1.0
 */

static void
gcuda_copy_2d_class_init (GCudaCopy2DClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  copy_class_setup (object_class, properties_2d, N_PROPS_2D);
  aligned_pspec = g_param_spec_boolean ("aligned", NULL, NULL, TRUE,
                                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_property (object_class, PROP_ALIGNED, aligned_pspec);
}

static void
gcuda_copy_2d_init (GCudaCopy2D *self)
{
  self->spec.depth = 1;
}

/**
 * gcuda_copy_2d_new:
 *
 * Creates a 2D copy with every property 0 and no endpoints (PyCUDA's
 * `Memcpy2D()`).
 *
 * Returns: (transfer full): the new copy
 *
 * Since: 1.0
 */
GCudaCopy2D *
gcuda_copy_2d_new (void)
{
  return g_object_new (GCUDA_TYPE_COPY_2D, NULL);
}

/**
 * gcuda_copy_2d_set_src_host:
 * @self: a [class@GCuda.Copy2D]
 * @address: the host address of the source memory
 * @size: the size of the source memory in bytes
 *
 * Copies from host memory (PyCUDA's `set_src_host()`). The region is
 * checked against @size; the memory must stay readable while copies run.
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_src_host (GCudaCopy2D *self,
                            guint64      address,
                            guint64      size)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  endpoint_set_address (&self->spec.src, ENDPOINT_HOST, address, size);
}

/**
 * gcuda_copy_2d_set_dst_host:
 * @self: a [class@GCuda.Copy2D]
 * @address: the host address of the destination memory
 * @size: the size of the destination memory in bytes
 *
 * Copies into host memory (PyCUDA's `set_dst_host()`). The region is
 * checked against @size; the memory must stay writable while copies run.
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_dst_host (GCudaCopy2D *self,
                            guint64      address,
                            guint64      size)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  endpoint_set_address (&self->spec.dst, ENDPOINT_HOST, address, size);
}

/**
 * gcuda_copy_2d_set_src_host_buffer:
 * @self: a [class@GCuda.Copy2D]
 * @buffer: (nullable): the host buffer, or %NULL to unset the source
 *
 * Copies from a [class@GCuda.HostBuffer], which the copy keeps alive.
 * Page-locked memory makes stream-ordered copies truly asynchronous.
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_src_host_buffer (GCudaCopy2D     *self,
                                   GCudaHostBuffer *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  endpoint_set_host_buffer (&self->spec.src, buffer);
}

/**
 * gcuda_copy_2d_set_dst_host_buffer:
 * @self: a [class@GCuda.Copy2D]
 * @buffer: (nullable): the host buffer, or %NULL to unset the destination
 *
 * Copies into a [class@GCuda.HostBuffer], which the copy keeps alive.
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_dst_host_buffer (GCudaCopy2D     *self,
                                   GCudaHostBuffer *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  endpoint_set_host_buffer (&self->spec.dst, buffer);
}

/**
 * gcuda_copy_2d_set_src_buffer:
 * @self: a [class@GCuda.Copy2D]
 * @buffer: (nullable): the device buffer, or %NULL to unset the source
 *
 * Copies from device memory (PyCUDA's `set_src_device()`); the copy keeps
 * @buffer alive. For a pitched buffer, set [property@GCuda.Copy2D:src-pitch] to
 * its [property@GCuda.Buffer:pitch].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_src_buffer (GCudaCopy2D *self,
                              GCudaBuffer *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  endpoint_set_buffer (&self->spec.src, buffer);
}

/**
 * gcuda_copy_2d_set_dst_buffer:
 * @self: a [class@GCuda.Copy2D]
 * @buffer: (nullable): the device buffer, or %NULL to unset the destination
 *
 * Copies into device memory (PyCUDA's `set_dst_device()`); the copy keeps
 * @buffer alive.
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_dst_buffer (GCudaCopy2D *self,
                              GCudaBuffer *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  endpoint_set_buffer (&self->spec.dst, buffer);
}

/**
 * gcuda_copy_2d_set_src_unified:
 * @self: a [class@GCuda.Copy2D]
 * @address: an address in the unified address space
 * @size: the size of the source memory in bytes
 *
 * Copies from memory the driver locates itself, host or device (PyCUDA's
 * `set_src_unified()`, `CU_MEMORYTYPE_UNIFIED`): managed memory, or any
 * address from another CUDA library.
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_src_unified (GCudaCopy2D *self,
                               guint64      address,
                               guint64      size)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  endpoint_set_address (&self->spec.src, ENDPOINT_UNIFIED, address, size);
}

/**
 * gcuda_copy_2d_set_dst_unified:
 * @self: a [class@GCuda.Copy2D]
 * @address: an address in the unified address space
 * @size: the size of the destination memory in bytes
 *
 * Copies into memory the driver locates itself, host or device (PyCUDA's
 * `set_dst_unified()`).
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_dst_unified (GCudaCopy2D *self,
                               guint64      address,
                               guint64      size)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  endpoint_set_address (&self->spec.dst, ENDPOINT_UNIFIED, address, size);
}

/**
 * gcuda_copy_2d_set_src_array:
 * @self: a [class@GCuda.Copy2D]
 * @array: (nullable): the array, or %NULL to unset the source
 *
 * Copies from a [class@GCuda.Array] (PyCUDA's `set_src_array()`), which the
 * copy keeps alive. The src-x-in-bytes, src-y place the region in the array;
 * the pitch do not apply. A region outside the array's extent is
 * [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_src_array (GCudaCopy2D *self,
                             GCudaArray  *array)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  endpoint_set_array (&self->spec.src, array);
}

/**
 * gcuda_copy_2d_set_dst_array:
 * @self: a [class@GCuda.Copy2D]
 * @array: (nullable): the array, or %NULL to unset the destination
 *
 * Copies into a [class@GCuda.Array] (PyCUDA's `set_dst_array()`), which the
 * copy keeps alive. The dst-x-in-bytes, dst-y place the region in the array;
 * the pitch do not apply. A region outside the array's extent is
 * [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_dst_array (GCudaCopy2D *self,
                             GCudaArray  *array)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  endpoint_set_array (&self->spec.dst, array);
}

/**
 * gcuda_copy_2d_execute:
 * @self: a [class@GCuda.Copy2D]
 * @stream: (nullable): the stream to order the copy on, or %NULL to copy
 *   synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Performs the copy (PyCUDA's `Memcpy2D.__call__()`). Without a stream it
 * returns once the copy is done (with `cuMemcpy2D`, or `cuMemcpy2DUnaligned`
 * when [property@GCuda.Copy2D:aligned] is %FALSE); with one it queues the copy
 * there (`cuMemcpy2DAsync`) and the memory of both endpoints must stay valid
 * until the stream has done it (host memory should be page-locked).
 *
 * The copy runs in the context of the device buffer (the destination's when
 * both are), else the stream's, else the default context; a stream of another
 * context than the device buffer's is
 * [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error]. Every check is made before
 * the driver is called (see [class@GCuda.Copy2D]).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_copy_2d_execute (GCudaCopy2D  *self,
                       GCudaStream  *stream,
                       GError      **error)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), FALSE);
  return copy_execute (&self->spec, COPY_FORM_2D, stream, error);
}

/**
 * gcuda_copy_2d_get_aligned: (get-property aligned)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:aligned].
 *
 * Returns: whether a synchronous device-to-device copy assumes alignment
 *
 * Since: 1.0
 */
gboolean
gcuda_copy_2d_get_aligned (GCudaCopy2D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), TRUE);
  return !self->spec.unaligned;
}

/**
 * gcuda_copy_2d_set_aligned: (set-property aligned)
 * @self: a [class@GCuda.Copy2D]
 * @aligned: %FALSE to tolerate misaligned device-to-device copies
 *
 * Sets [property@GCuda.Copy2D:aligned].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_aligned (GCudaCopy2D *self,
                           gboolean     aligned)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  if (self->spec.unaligned == !aligned)
    return;
  self->spec.unaligned = !aligned;
  g_object_notify_by_pspec (G_OBJECT (self), aligned_pspec);
}

/* ------------------------------------------------------------ GCudaCopy3D */

/**
 * GCudaCopy3D:src-x-in-bytes:
 *
 * The byte offset of the region within each source row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:src-y:
 *
 * The first source row of the region within each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:src-z:
 *
 * The first source slice of the region (PyCUDA's `src_z`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:src-pitch:
 *
 * The distance in bytes between the starts of two source rows.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:src-height:
 *
 * The number of rows in each source slice (PyCUDA's `src_height`): slices are
 * [property@GCuda.Copy3D:src-pitch] × src-height bytes apart. It may stay 0 for
 * a single slice at [property@GCuda.Copy3D:src-z] 0.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:dst-x-in-bytes:
 *
 * The byte offset of the region within each destination row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:dst-y:
 *
 * The first destination row of the region within each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:dst-z:
 *
 * The first destination slice of the region (PyCUDA's `dst_z`).
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:dst-pitch:
 *
 * The distance in bytes between the starts of two destination rows.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:dst-height:
 *
 * The number of rows in each destination slice (PyCUDA's `dst_height`).
 * It may stay 0 for a single slice at [property@GCuda.Copy3D:dst-z] 0.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:width-in-bytes:
 *
 * The number of bytes copied from each row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:height:
 *
 * The number of rows copied from each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3D:depth:
 *
 * The number of slices copied (PyCUDA's `depth`).
 *
 * Since: 1.0
 */

static void
gcuda_copy_3d_class_init (GCudaCopy3DClass *klass)
{
  copy_class_setup (G_OBJECT_CLASS (klass), properties_3d, N_PROPS_3D);
}

static void
gcuda_copy_3d_init (GCudaCopy3D *self)
{
}

/**
 * gcuda_copy_3d_new:
 *
 * Creates a 3D copy with every property 0 and no endpoints (PyCUDA's
 * `Memcpy3D()`).
 *
 * Returns: (transfer full): the new copy
 *
 * Since: 1.0
 */
GCudaCopy3D *
gcuda_copy_3d_new (void)
{
  return g_object_new (GCUDA_TYPE_COPY_3D, NULL);
}

/**
 * gcuda_copy_3d_set_src_host:
 * @self: a [class@GCuda.Copy3D]
 * @address: the host address of the source memory
 * @size: the size of the source memory in bytes
 *
 * Copies from host memory; see [method@GCuda.Copy2D.set_src_host].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_src_host (GCudaCopy3D *self,
                            guint64      address,
                            guint64      size)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  endpoint_set_address (&self->spec.src, ENDPOINT_HOST, address, size);
}

/**
 * gcuda_copy_3d_set_dst_host:
 * @self: a [class@GCuda.Copy3D]
 * @address: the host address of the destination memory
 * @size: the size of the destination memory in bytes
 *
 * Copies into host memory; see [method@GCuda.Copy2D.set_dst_host].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_dst_host (GCudaCopy3D *self,
                            guint64      address,
                            guint64      size)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  endpoint_set_address (&self->spec.dst, ENDPOINT_HOST, address, size);
}

/**
 * gcuda_copy_3d_set_src_host_buffer:
 * @self: a [class@GCuda.Copy3D]
 * @buffer: (nullable): the host buffer, or %NULL to unset the source
 *
 * Copies from a [class@GCuda.HostBuffer], which the copy keeps alive.
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_src_host_buffer (GCudaCopy3D     *self,
                                   GCudaHostBuffer *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  endpoint_set_host_buffer (&self->spec.src, buffer);
}

/**
 * gcuda_copy_3d_set_dst_host_buffer:
 * @self: a [class@GCuda.Copy3D]
 * @buffer: (nullable): the host buffer, or %NULL to unset the destination
 *
 * Copies into a [class@GCuda.HostBuffer], which the copy keeps alive.
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_dst_host_buffer (GCudaCopy3D     *self,
                                   GCudaHostBuffer *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  endpoint_set_host_buffer (&self->spec.dst, buffer);
}

/**
 * gcuda_copy_3d_set_src_buffer:
 * @self: a [class@GCuda.Copy3D]
 * @buffer: (nullable): the device buffer, or %NULL to unset the source
 *
 * Copies from device memory (PyCUDA's `set_src_device()`); the copy keeps
 * @buffer alive.
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_src_buffer (GCudaCopy3D *self,
                              GCudaBuffer *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  endpoint_set_buffer (&self->spec.src, buffer);
}

/**
 * gcuda_copy_3d_set_dst_buffer:
 * @self: a [class@GCuda.Copy3D]
 * @buffer: (nullable): the device buffer, or %NULL to unset the destination
 *
 * Copies into device memory (PyCUDA's `set_dst_device()`); the copy keeps
 * @buffer alive.
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_dst_buffer (GCudaCopy3D *self,
                              GCudaBuffer *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  endpoint_set_buffer (&self->spec.dst, buffer);
}

/**
 * gcuda_copy_3d_set_src_unified:
 * @self: a [class@GCuda.Copy3D]
 * @address: an address in the unified address space
 * @size: the size of the source memory in bytes
 *
 * Copies from memory the driver locates itself; see
 * [method@GCuda.Copy2D.set_src_unified].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_src_unified (GCudaCopy3D *self,
                               guint64      address,
                               guint64      size)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  endpoint_set_address (&self->spec.src, ENDPOINT_UNIFIED, address, size);
}

/**
 * gcuda_copy_3d_set_dst_unified:
 * @self: a [class@GCuda.Copy3D]
 * @address: an address in the unified address space
 * @size: the size of the destination memory in bytes
 *
 * Copies into memory the driver locates itself; see
 * [method@GCuda.Copy2D.set_dst_unified].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_dst_unified (GCudaCopy3D *self,
                               guint64      address,
                               guint64      size)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  endpoint_set_address (&self->spec.dst, ENDPOINT_UNIFIED, address, size);
}

/**
 * gcuda_copy_3d_set_src_array:
 * @self: a [class@GCuda.Copy3D]
 * @array: (nullable): the array, or %NULL to unset the source
 *
 * Copies from a [class@GCuda.Array] (PyCUDA's `set_src_array()`), which the
 * copy keeps alive. The src-x-in-bytes, src-y, src-z place the region in the
 * array; the pitch and rows per slice do not apply. A region outside the
 * array's extent is [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_src_array (GCudaCopy3D *self,
                             GCudaArray  *array)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  endpoint_set_array (&self->spec.src, array);
}

/**
 * gcuda_copy_3d_set_dst_array:
 * @self: a [class@GCuda.Copy3D]
 * @array: (nullable): the array, or %NULL to unset the destination
 *
 * Copies into a [class@GCuda.Array] (PyCUDA's `set_dst_array()`), which the
 * copy keeps alive. The dst-x-in-bytes, dst-y, dst-z place the region in the
 * array; the pitch and rows per slice do not apply. A region outside the
 * array's extent is [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_dst_array (GCudaCopy3D *self,
                             GCudaArray  *array)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  endpoint_set_array (&self->spec.dst, array);
}

/**
 * gcuda_copy_3d_execute:
 * @self: a [class@GCuda.Copy3D]
 * @stream: (nullable): the stream to order the copy on, or %NULL to copy
 *   synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Performs the copy (PyCUDA's `Memcpy3D.__call__()`, `cuMemcpy3D` or, with
 * a stream, `cuMemcpy3DAsync`). Contexts, streams and checks are as for
 * [method@GCuda.Copy2D.execute].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_copy_3d_execute (GCudaCopy3D  *self,
                       GCudaStream  *stream,
                       GError      **error)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), FALSE);
  return copy_execute (&self->spec, COPY_FORM_3D, stream, error);
}

/* ------------------------------------------------------------ GCudaCopy3DPeer */

/**
 * GCudaCopy3DPeer:src-x-in-bytes:
 *
 * The byte offset of the region within each source row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:src-y:
 *
 * The first source row of the region within each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:src-z:
 *
 * The first source slice of the region.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:src-pitch:
 *
 * The distance in bytes between the starts of two source rows.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:src-height:
 *
 * The number of rows in each source slice; it may stay 0 for a single
 * slice at [property@GCuda.Copy3DPeer:src-z] 0.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:dst-x-in-bytes:
 *
 * The byte offset of the region within each destination row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:dst-y:
 *
 * The first destination row of the region within each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:dst-z:
 *
 * The first destination slice of the region.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:dst-pitch:
 *
 * The distance in bytes between the starts of two destination rows.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:dst-height:
 *
 * The number of rows in each destination slice; it may stay 0 for a
 * single slice at [property@GCuda.Copy3DPeer:dst-z] 0.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:width-in-bytes:
 *
 * The number of bytes copied from each row.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:height:
 *
 * The number of rows copied from each slice.
 *
 * Since: 1.0
 */
/**
 * GCudaCopy3DPeer:depth:
 *
 * The number of slices copied.
 *
 * Since: 1.0
 */

static void
gcuda_copy_3d_peer_class_init (GCudaCopy3DPeerClass *klass)
{
  copy_class_setup (G_OBJECT_CLASS (klass), properties_3d_peer, N_PROPS_3D);
}

static void
gcuda_copy_3d_peer_init (GCudaCopy3DPeer *self)
{
}

/**
 * gcuda_copy_3d_peer_new:
 *
 * Creates a cross-context 3D copy with every property 0, no endpoints and
 * no explicit contexts (PyCUDA's `Memcpy3DPeer()`).
 *
 * Returns: (transfer full): the new copy
 *
 * Since: 1.0
 */
GCudaCopy3DPeer *
gcuda_copy_3d_peer_new (void)
{
  return g_object_new (GCUDA_TYPE_COPY_3D_PEER, NULL);
}

/**
 * gcuda_copy_3d_peer_set_src_host:
 * @self: a [class@GCuda.Copy3DPeer]
 * @address: the host address of the source memory
 * @size: the size of the source memory in bytes
 *
 * Copies from host memory; see [method@GCuda.Copy2D.set_src_host].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_src_host (GCudaCopy3DPeer *self,
                                 guint64          address,
                                 guint64          size)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  endpoint_set_address (&self->spec.src, ENDPOINT_HOST, address, size);
}

/**
 * gcuda_copy_3d_peer_set_dst_host:
 * @self: a [class@GCuda.Copy3DPeer]
 * @address: the host address of the destination memory
 * @size: the size of the destination memory in bytes
 *
 * Copies into host memory; see [method@GCuda.Copy2D.set_dst_host].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_dst_host (GCudaCopy3DPeer *self,
                                 guint64          address,
                                 guint64          size)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  endpoint_set_address (&self->spec.dst, ENDPOINT_HOST, address, size);
}

/**
 * gcuda_copy_3d_peer_set_src_host_buffer:
 * @self: a [class@GCuda.Copy3DPeer]
 * @buffer: (nullable): the host buffer, or %NULL to unset the source
 *
 * Copies from a [class@GCuda.HostBuffer], which the copy keeps alive.
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_src_host_buffer (GCudaCopy3DPeer *self,
                                        GCudaHostBuffer *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  endpoint_set_host_buffer (&self->spec.src, buffer);
}

/**
 * gcuda_copy_3d_peer_set_dst_host_buffer:
 * @self: a [class@GCuda.Copy3DPeer]
 * @buffer: (nullable): the host buffer, or %NULL to unset the destination
 *
 * Copies into a [class@GCuda.HostBuffer], which the copy keeps alive.
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_dst_host_buffer (GCudaCopy3DPeer *self,
                                        GCudaHostBuffer *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  endpoint_set_host_buffer (&self->spec.dst, buffer);
}

/**
 * gcuda_copy_3d_peer_set_src_buffer:
 * @self: a [class@GCuda.Copy3DPeer]
 * @buffer: (nullable): the device buffer, or %NULL to unset the source
 *
 * Copies from device memory of any context; the copy keeps @buffer alive.
 * Its context is the source context.
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_src_buffer (GCudaCopy3DPeer *self,
                                   GCudaBuffer     *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  endpoint_set_buffer (&self->spec.src, buffer);
}

/**
 * gcuda_copy_3d_peer_set_dst_buffer:
 * @self: a [class@GCuda.Copy3DPeer]
 * @buffer: (nullable): the device buffer, or %NULL to unset the destination
 *
 * Copies into device memory of any context; the copy keeps @buffer alive.
 * Its context is the destination context.
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_dst_buffer (GCudaCopy3DPeer *self,
                                   GCudaBuffer     *buffer)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  endpoint_set_buffer (&self->spec.dst, buffer);
}

/**
 * gcuda_copy_3d_peer_set_src_unified:
 * @self: a [class@GCuda.Copy3DPeer]
 * @address: an address in the unified address space
 * @size: the size of the source memory in bytes
 *
 * Copies from memory the driver locates itself; name its context with
 * [method@GCuda.Copy3DPeer.set_src_context] when it is not the one the copy
 * runs in.
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_src_unified (GCudaCopy3DPeer *self,
                                    guint64          address,
                                    guint64          size)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  endpoint_set_address (&self->spec.src, ENDPOINT_UNIFIED, address, size);
}

/**
 * gcuda_copy_3d_peer_set_dst_unified:
 * @self: a [class@GCuda.Copy3DPeer]
 * @address: an address in the unified address space
 * @size: the size of the destination memory in bytes
 *
 * Copies into memory the driver locates itself; name its context with
 * [method@GCuda.Copy3DPeer.set_dst_context] when it is not the one the copy
 * runs in.
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_dst_unified (GCudaCopy3DPeer *self,
                                    guint64          address,
                                    guint64          size)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  endpoint_set_address (&self->spec.dst, ENDPOINT_UNIFIED, address, size);
}

/**
 * gcuda_copy_3d_peer_set_src_context:
 * @self: a [class@GCuda.Copy3DPeer]
 * @context: (nullable): the context of the source memory, or %NULL for
 *   the source buffer's
 *
 * Names the context the source memory belongs to (PyCUDA's
 * `set_src_context()`). With a device buffer as the source it must be the
 * buffer's context (else [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error] on
 * execution); without either, the context the copy runs in is used.
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_src_context (GCudaCopy3DPeer *self,
                                    GCudaContext    *context)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  endpoint_set_context (&self->spec.src, context);
}

/**
 * gcuda_copy_3d_peer_set_dst_context:
 * @self: a [class@GCuda.Copy3DPeer]
 * @context: (nullable): the context of the destination memory, or %NULL
 *   for the destination buffer's
 *
 * Names the context the destination memory belongs to (PyCUDA's
 * `set_dst_context()`); see [method@GCuda.Copy3DPeer.set_src_context].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_dst_context (GCudaCopy3DPeer *self,
                                    GCudaContext    *context)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  endpoint_set_context (&self->spec.dst, context);
}

/**
 * gcuda_copy_3d_peer_execute:
 * @self: a [class@GCuda.Copy3DPeer]
 * @stream: (nullable): the stream to order the copy on, or %NULL to copy
 *   synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Performs the copy (PyCUDA's `Memcpy3DPeer.__call__()`, `cuMemcpy3DPeer` or,
 * with a stream, `cuMemcpy3DPeerAsync`). It runs in the destination context,
 * else the source context, else the stream's, else the default context; a
 * stream must belong to the destination context when there is one, else to the
 * source context ([GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error]). A
 * destroyed context is [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error].
 * Every check is made before the driver is called.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_copy_3d_peer_execute (GCudaCopy3DPeer  *self,
                            GCudaStream      *stream,
                            GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), FALSE);
  return copy_execute (&self->spec, COPY_FORM_3D_PEER, stream, error);
}

/* ------------------------------------------------------------ the fields' getters and setters */

/* Sets a field of @spec to @value and notifies @pspec if it changed, as
 * g_object_set() does. */
static void
copy_set_field (GObject     *object,
                GParamSpec  *pspec,
                guint        prop_id,
                guint64      value)
{
  guint64 *field = spec_field (spec_of (object), prop_id);

  if (*field != value)
    {
      *field = value;
      g_object_notify_by_pspec (object, pspec);
    }
}

/**
 * gcuda_copy_2d_get_src_x_in_bytes: (get-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:src-x-in-bytes].
 *
 * Returns: the first source byte of each row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_2d_get_src_x_in_bytes (GCudaCopy2D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), 0);
  return *spec_field (&self->spec, PROP_SRC_X_IN_BYTES);
}

/**
 * gcuda_copy_2d_set_src_x_in_bytes: (set-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 * @src_x_in_bytes: the first source byte of each row
 *
 * Sets [property@GCuda.Copy2D:src-x-in-bytes].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_src_x_in_bytes (GCudaCopy2D *self,
                                  guint64      src_x_in_bytes)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  copy_set_field (G_OBJECT (self), properties_2d[PROP_SRC_X_IN_BYTES], PROP_SRC_X_IN_BYTES, src_x_in_bytes);
}

/**
 * gcuda_copy_2d_get_src_y: (get-property src-y)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:src-y].
 *
 * Returns: the first source row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_2d_get_src_y (GCudaCopy2D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), 0);
  return *spec_field (&self->spec, PROP_SRC_Y);
}

/**
 * gcuda_copy_2d_set_src_y: (set-property src-y)
 * @self: a [class@GCuda.Copy2D]
 * @src_y: the first source row
 *
 * Sets [property@GCuda.Copy2D:src-y].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_src_y (GCudaCopy2D *self,
                         guint64      src_y)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  copy_set_field (G_OBJECT (self), properties_2d[PROP_SRC_Y], PROP_SRC_Y, src_y);
}

/**
 * gcuda_copy_2d_get_src_pitch: (get-property src-pitch)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:src-pitch].
 *
 * Returns: the distance in bytes between the starts of two source rows
 *
 * Since: 1.0
 */
guint64
gcuda_copy_2d_get_src_pitch (GCudaCopy2D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), 0);
  return *spec_field (&self->spec, PROP_SRC_PITCH);
}

/**
 * gcuda_copy_2d_set_src_pitch: (set-property src-pitch)
 * @self: a [class@GCuda.Copy2D]
 * @src_pitch: the distance in bytes between the starts of two source rows
 *
 * Sets [property@GCuda.Copy2D:src-pitch].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_src_pitch (GCudaCopy2D *self,
                             guint64      src_pitch)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  copy_set_field (G_OBJECT (self), properties_2d[PROP_SRC_PITCH], PROP_SRC_PITCH, src_pitch);
}

/**
 * gcuda_copy_2d_get_dst_x_in_bytes: (get-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:dst-x-in-bytes].
 *
 * Returns: the first destination byte of each row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_2d_get_dst_x_in_bytes (GCudaCopy2D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), 0);
  return *spec_field (&self->spec, PROP_DST_X_IN_BYTES);
}

/**
 * gcuda_copy_2d_set_dst_x_in_bytes: (set-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 * @dst_x_in_bytes: the first destination byte of each row
 *
 * Sets [property@GCuda.Copy2D:dst-x-in-bytes].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_dst_x_in_bytes (GCudaCopy2D *self,
                                  guint64      dst_x_in_bytes)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  copy_set_field (G_OBJECT (self), properties_2d[PROP_DST_X_IN_BYTES], PROP_DST_X_IN_BYTES, dst_x_in_bytes);
}

/**
 * gcuda_copy_2d_get_dst_y: (get-property dst-y)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:dst-y].
 *
 * Returns: the first destination row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_2d_get_dst_y (GCudaCopy2D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), 0);
  return *spec_field (&self->spec, PROP_DST_Y);
}

/**
 * gcuda_copy_2d_set_dst_y: (set-property dst-y)
 * @self: a [class@GCuda.Copy2D]
 * @dst_y: the first destination row
 *
 * Sets [property@GCuda.Copy2D:dst-y].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_dst_y (GCudaCopy2D *self,
                         guint64      dst_y)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  copy_set_field (G_OBJECT (self), properties_2d[PROP_DST_Y], PROP_DST_Y, dst_y);
}

/**
 * gcuda_copy_2d_get_dst_pitch: (get-property dst-pitch)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:dst-pitch].
 *
 * Returns: the distance in bytes between the starts of two destination rows
 *
 * Since: 1.0
 */
guint64
gcuda_copy_2d_get_dst_pitch (GCudaCopy2D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), 0);
  return *spec_field (&self->spec, PROP_DST_PITCH);
}

/**
 * gcuda_copy_2d_set_dst_pitch: (set-property dst-pitch)
 * @self: a [class@GCuda.Copy2D]
 * @dst_pitch: the distance in bytes between the starts of two destination rows
 *
 * Sets [property@GCuda.Copy2D:dst-pitch].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_dst_pitch (GCudaCopy2D *self,
                             guint64      dst_pitch)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  copy_set_field (G_OBJECT (self), properties_2d[PROP_DST_PITCH], PROP_DST_PITCH, dst_pitch);
}

/**
 * gcuda_copy_2d_get_width_in_bytes: (get-property width-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:width-in-bytes].
 *
 * Returns: the number of bytes copied from each row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_2d_get_width_in_bytes (GCudaCopy2D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), 0);
  return *spec_field (&self->spec, PROP_WIDTH_IN_BYTES);
}

/**
 * gcuda_copy_2d_set_width_in_bytes: (set-property width-in-bytes)
 * @self: a [class@GCuda.Copy2D]
 * @width_in_bytes: the number of bytes copied from each row
 *
 * Sets [property@GCuda.Copy2D:width-in-bytes].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_width_in_bytes (GCudaCopy2D *self,
                                  guint64      width_in_bytes)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  copy_set_field (G_OBJECT (self), properties_2d[PROP_WIDTH_IN_BYTES], PROP_WIDTH_IN_BYTES, width_in_bytes);
}

/**
 * gcuda_copy_2d_get_height: (get-property height)
 * @self: a [class@GCuda.Copy2D]
 *
 * Gets [property@GCuda.Copy2D:height].
 *
 * Returns: the number of rows copied
 *
 * Since: 1.0
 */
guint64
gcuda_copy_2d_get_height (GCudaCopy2D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_2D (self), 0);
  return *spec_field (&self->spec, PROP_HEIGHT);
}

/**
 * gcuda_copy_2d_set_height: (set-property height)
 * @self: a [class@GCuda.Copy2D]
 * @height: the number of rows copied
 *
 * Sets [property@GCuda.Copy2D:height].
 *
 * Since: 1.0
 */
void
gcuda_copy_2d_set_height (GCudaCopy2D *self,
                          guint64      height)
{
  g_return_if_fail (GCUDA_IS_COPY_2D (self));
  copy_set_field (G_OBJECT (self), properties_2d[PROP_HEIGHT], PROP_HEIGHT, height);
}

/**
 * gcuda_copy_3d_get_src_x_in_bytes: (get-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:src-x-in-bytes].
 *
 * Returns: the first source byte of each row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_src_x_in_bytes (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_SRC_X_IN_BYTES);
}

/**
 * gcuda_copy_3d_set_src_x_in_bytes: (set-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 * @src_x_in_bytes: the first source byte of each row
 *
 * Sets [property@GCuda.Copy3D:src-x-in-bytes].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_src_x_in_bytes (GCudaCopy3D *self,
                                  guint64      src_x_in_bytes)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_SRC_X_IN_BYTES], PROP_SRC_X_IN_BYTES, src_x_in_bytes);
}

/**
 * gcuda_copy_3d_get_src_y: (get-property src-y)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:src-y].
 *
 * Returns: the first source row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_src_y (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_SRC_Y);
}

/**
 * gcuda_copy_3d_set_src_y: (set-property src-y)
 * @self: a [class@GCuda.Copy3D]
 * @src_y: the first source row
 *
 * Sets [property@GCuda.Copy3D:src-y].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_src_y (GCudaCopy3D *self,
                         guint64      src_y)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_SRC_Y], PROP_SRC_Y, src_y);
}

/**
 * gcuda_copy_3d_get_src_pitch: (get-property src-pitch)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:src-pitch].
 *
 * Returns: the distance in bytes between the starts of two source rows
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_src_pitch (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_SRC_PITCH);
}

/**
 * gcuda_copy_3d_set_src_pitch: (set-property src-pitch)
 * @self: a [class@GCuda.Copy3D]
 * @src_pitch: the distance in bytes between the starts of two source rows
 *
 * Sets [property@GCuda.Copy3D:src-pitch].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_src_pitch (GCudaCopy3D *self,
                             guint64      src_pitch)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_SRC_PITCH], PROP_SRC_PITCH, src_pitch);
}

/**
 * gcuda_copy_3d_get_dst_x_in_bytes: (get-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:dst-x-in-bytes].
 *
 * Returns: the first destination byte of each row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_dst_x_in_bytes (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_DST_X_IN_BYTES);
}

/**
 * gcuda_copy_3d_set_dst_x_in_bytes: (set-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 * @dst_x_in_bytes: the first destination byte of each row
 *
 * Sets [property@GCuda.Copy3D:dst-x-in-bytes].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_dst_x_in_bytes (GCudaCopy3D *self,
                                  guint64      dst_x_in_bytes)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_DST_X_IN_BYTES], PROP_DST_X_IN_BYTES, dst_x_in_bytes);
}

/**
 * gcuda_copy_3d_get_dst_y: (get-property dst-y)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:dst-y].
 *
 * Returns: the first destination row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_dst_y (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_DST_Y);
}

/**
 * gcuda_copy_3d_set_dst_y: (set-property dst-y)
 * @self: a [class@GCuda.Copy3D]
 * @dst_y: the first destination row
 *
 * Sets [property@GCuda.Copy3D:dst-y].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_dst_y (GCudaCopy3D *self,
                         guint64      dst_y)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_DST_Y], PROP_DST_Y, dst_y);
}

/**
 * gcuda_copy_3d_get_dst_pitch: (get-property dst-pitch)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:dst-pitch].
 *
 * Returns: the distance in bytes between the starts of two destination rows
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_dst_pitch (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_DST_PITCH);
}

/**
 * gcuda_copy_3d_set_dst_pitch: (set-property dst-pitch)
 * @self: a [class@GCuda.Copy3D]
 * @dst_pitch: the distance in bytes between the starts of two destination rows
 *
 * Sets [property@GCuda.Copy3D:dst-pitch].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_dst_pitch (GCudaCopy3D *self,
                             guint64      dst_pitch)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_DST_PITCH], PROP_DST_PITCH, dst_pitch);
}

/**
 * gcuda_copy_3d_get_width_in_bytes: (get-property width-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:width-in-bytes].
 *
 * Returns: the number of bytes copied from each row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_width_in_bytes (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_WIDTH_IN_BYTES);
}

/**
 * gcuda_copy_3d_set_width_in_bytes: (set-property width-in-bytes)
 * @self: a [class@GCuda.Copy3D]
 * @width_in_bytes: the number of bytes copied from each row
 *
 * Sets [property@GCuda.Copy3D:width-in-bytes].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_width_in_bytes (GCudaCopy3D *self,
                                  guint64      width_in_bytes)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_WIDTH_IN_BYTES], PROP_WIDTH_IN_BYTES, width_in_bytes);
}

/**
 * gcuda_copy_3d_get_height: (get-property height)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:height].
 *
 * Returns: the number of rows copied
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_height (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_HEIGHT);
}

/**
 * gcuda_copy_3d_set_height: (set-property height)
 * @self: a [class@GCuda.Copy3D]
 * @height: the number of rows copied
 *
 * Sets [property@GCuda.Copy3D:height].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_height (GCudaCopy3D *self,
                          guint64      height)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_HEIGHT], PROP_HEIGHT, height);
}

/**
 * gcuda_copy_3d_get_src_z: (get-property src-z)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:src-z].
 *
 * Returns: the first source slice
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_src_z (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_SRC_Z);
}

/**
 * gcuda_copy_3d_set_src_z: (set-property src-z)
 * @self: a [class@GCuda.Copy3D]
 * @src_z: the first source slice
 *
 * Sets [property@GCuda.Copy3D:src-z].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_src_z (GCudaCopy3D *self,
                         guint64      src_z)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_SRC_Z], PROP_SRC_Z, src_z);
}

/**
 * gcuda_copy_3d_get_src_height: (get-property src-height)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:src-height].
 *
 * Returns: the number of rows in a source slice
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_src_height (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_SRC_HEIGHT);
}

/**
 * gcuda_copy_3d_set_src_height: (set-property src-height)
 * @self: a [class@GCuda.Copy3D]
 * @src_height: the number of rows in a source slice
 *
 * Sets [property@GCuda.Copy3D:src-height].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_src_height (GCudaCopy3D *self,
                              guint64      src_height)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_SRC_HEIGHT], PROP_SRC_HEIGHT, src_height);
}

/**
 * gcuda_copy_3d_get_dst_z: (get-property dst-z)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:dst-z].
 *
 * Returns: the first destination slice
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_dst_z (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_DST_Z);
}

/**
 * gcuda_copy_3d_set_dst_z: (set-property dst-z)
 * @self: a [class@GCuda.Copy3D]
 * @dst_z: the first destination slice
 *
 * Sets [property@GCuda.Copy3D:dst-z].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_dst_z (GCudaCopy3D *self,
                         guint64      dst_z)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_DST_Z], PROP_DST_Z, dst_z);
}

/**
 * gcuda_copy_3d_get_dst_height: (get-property dst-height)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:dst-height].
 *
 * Returns: the number of rows in a destination slice
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_dst_height (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_DST_HEIGHT);
}

/**
 * gcuda_copy_3d_set_dst_height: (set-property dst-height)
 * @self: a [class@GCuda.Copy3D]
 * @dst_height: the number of rows in a destination slice
 *
 * Sets [property@GCuda.Copy3D:dst-height].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_dst_height (GCudaCopy3D *self,
                              guint64      dst_height)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_DST_HEIGHT], PROP_DST_HEIGHT, dst_height);
}

/**
 * gcuda_copy_3d_get_depth: (get-property depth)
 * @self: a [class@GCuda.Copy3D]
 *
 * Gets [property@GCuda.Copy3D:depth].
 *
 * Returns: the number of slices copied
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_get_depth (GCudaCopy3D *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D (self), 0);
  return *spec_field (&self->spec, PROP_DEPTH);
}

/**
 * gcuda_copy_3d_set_depth: (set-property depth)
 * @self: a [class@GCuda.Copy3D]
 * @depth: the number of slices copied
 *
 * Sets [property@GCuda.Copy3D:depth].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_set_depth (GCudaCopy3D *self,
                         guint64      depth)
{
  g_return_if_fail (GCUDA_IS_COPY_3D (self));
  copy_set_field (G_OBJECT (self), properties_3d[PROP_DEPTH], PROP_DEPTH, depth);
}

/**
 * gcuda_copy_3d_peer_get_src_x_in_bytes: (get-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:src-x-in-bytes].
 *
 * Returns: the first source byte of each row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_src_x_in_bytes (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_SRC_X_IN_BYTES);
}

/**
 * gcuda_copy_3d_peer_set_src_x_in_bytes: (set-property src-x-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 * @src_x_in_bytes: the first source byte of each row
 *
 * Sets [property@GCuda.Copy3DPeer:src-x-in-bytes].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_src_x_in_bytes (GCudaCopy3DPeer *self,
                                       guint64          src_x_in_bytes)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_SRC_X_IN_BYTES], PROP_SRC_X_IN_BYTES, src_x_in_bytes);
}

/**
 * gcuda_copy_3d_peer_get_src_y: (get-property src-y)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:src-y].
 *
 * Returns: the first source row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_src_y (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_SRC_Y);
}

/**
 * gcuda_copy_3d_peer_set_src_y: (set-property src-y)
 * @self: a [class@GCuda.Copy3DPeer]
 * @src_y: the first source row
 *
 * Sets [property@GCuda.Copy3DPeer:src-y].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_src_y (GCudaCopy3DPeer *self,
                              guint64          src_y)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_SRC_Y], PROP_SRC_Y, src_y);
}

/**
 * gcuda_copy_3d_peer_get_src_pitch: (get-property src-pitch)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:src-pitch].
 *
 * Returns: the distance in bytes between the starts of two source rows
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_src_pitch (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_SRC_PITCH);
}

/**
 * gcuda_copy_3d_peer_set_src_pitch: (set-property src-pitch)
 * @self: a [class@GCuda.Copy3DPeer]
 * @src_pitch: the distance in bytes between the starts of two source rows
 *
 * Sets [property@GCuda.Copy3DPeer:src-pitch].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_src_pitch (GCudaCopy3DPeer *self,
                                  guint64          src_pitch)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_SRC_PITCH], PROP_SRC_PITCH, src_pitch);
}

/**
 * gcuda_copy_3d_peer_get_dst_x_in_bytes: (get-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:dst-x-in-bytes].
 *
 * Returns: the first destination byte of each row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_dst_x_in_bytes (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_DST_X_IN_BYTES);
}

/**
 * gcuda_copy_3d_peer_set_dst_x_in_bytes: (set-property dst-x-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 * @dst_x_in_bytes: the first destination byte of each row
 *
 * Sets [property@GCuda.Copy3DPeer:dst-x-in-bytes].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_dst_x_in_bytes (GCudaCopy3DPeer *self,
                                       guint64          dst_x_in_bytes)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_DST_X_IN_BYTES], PROP_DST_X_IN_BYTES, dst_x_in_bytes);
}

/**
 * gcuda_copy_3d_peer_get_dst_y: (get-property dst-y)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:dst-y].
 *
 * Returns: the first destination row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_dst_y (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_DST_Y);
}

/**
 * gcuda_copy_3d_peer_set_dst_y: (set-property dst-y)
 * @self: a [class@GCuda.Copy3DPeer]
 * @dst_y: the first destination row
 *
 * Sets [property@GCuda.Copy3DPeer:dst-y].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_dst_y (GCudaCopy3DPeer *self,
                              guint64          dst_y)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_DST_Y], PROP_DST_Y, dst_y);
}

/**
 * gcuda_copy_3d_peer_get_dst_pitch: (get-property dst-pitch)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:dst-pitch].
 *
 * Returns: the distance in bytes between the starts of two destination rows
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_dst_pitch (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_DST_PITCH);
}

/**
 * gcuda_copy_3d_peer_set_dst_pitch: (set-property dst-pitch)
 * @self: a [class@GCuda.Copy3DPeer]
 * @dst_pitch: the distance in bytes between the starts of two destination rows
 *
 * Sets [property@GCuda.Copy3DPeer:dst-pitch].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_dst_pitch (GCudaCopy3DPeer *self,
                                  guint64          dst_pitch)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_DST_PITCH], PROP_DST_PITCH, dst_pitch);
}

/**
 * gcuda_copy_3d_peer_get_width_in_bytes: (get-property width-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:width-in-bytes].
 *
 * Returns: the number of bytes copied from each row
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_width_in_bytes (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_WIDTH_IN_BYTES);
}

/**
 * gcuda_copy_3d_peer_set_width_in_bytes: (set-property width-in-bytes)
 * @self: a [class@GCuda.Copy3DPeer]
 * @width_in_bytes: the number of bytes copied from each row
 *
 * Sets [property@GCuda.Copy3DPeer:width-in-bytes].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_width_in_bytes (GCudaCopy3DPeer *self,
                                       guint64          width_in_bytes)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_WIDTH_IN_BYTES], PROP_WIDTH_IN_BYTES, width_in_bytes);
}

/**
 * gcuda_copy_3d_peer_get_height: (get-property height)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:height].
 *
 * Returns: the number of rows copied
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_height (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_HEIGHT);
}

/**
 * gcuda_copy_3d_peer_set_height: (set-property height)
 * @self: a [class@GCuda.Copy3DPeer]
 * @height: the number of rows copied
 *
 * Sets [property@GCuda.Copy3DPeer:height].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_height (GCudaCopy3DPeer *self,
                               guint64          height)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_HEIGHT], PROP_HEIGHT, height);
}

/**
 * gcuda_copy_3d_peer_get_src_z: (get-property src-z)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:src-z].
 *
 * Returns: the first source slice
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_src_z (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_SRC_Z);
}

/**
 * gcuda_copy_3d_peer_set_src_z: (set-property src-z)
 * @self: a [class@GCuda.Copy3DPeer]
 * @src_z: the first source slice
 *
 * Sets [property@GCuda.Copy3DPeer:src-z].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_src_z (GCudaCopy3DPeer *self,
                              guint64          src_z)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_SRC_Z], PROP_SRC_Z, src_z);
}

/**
 * gcuda_copy_3d_peer_get_src_height: (get-property src-height)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:src-height].
 *
 * Returns: the number of rows in a source slice
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_src_height (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_SRC_HEIGHT);
}

/**
 * gcuda_copy_3d_peer_set_src_height: (set-property src-height)
 * @self: a [class@GCuda.Copy3DPeer]
 * @src_height: the number of rows in a source slice
 *
 * Sets [property@GCuda.Copy3DPeer:src-height].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_src_height (GCudaCopy3DPeer *self,
                                   guint64          src_height)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_SRC_HEIGHT], PROP_SRC_HEIGHT, src_height);
}

/**
 * gcuda_copy_3d_peer_get_dst_z: (get-property dst-z)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:dst-z].
 *
 * Returns: the first destination slice
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_dst_z (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_DST_Z);
}

/**
 * gcuda_copy_3d_peer_set_dst_z: (set-property dst-z)
 * @self: a [class@GCuda.Copy3DPeer]
 * @dst_z: the first destination slice
 *
 * Sets [property@GCuda.Copy3DPeer:dst-z].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_dst_z (GCudaCopy3DPeer *self,
                              guint64          dst_z)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_DST_Z], PROP_DST_Z, dst_z);
}

/**
 * gcuda_copy_3d_peer_get_dst_height: (get-property dst-height)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:dst-height].
 *
 * Returns: the number of rows in a destination slice
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_dst_height (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_DST_HEIGHT);
}

/**
 * gcuda_copy_3d_peer_set_dst_height: (set-property dst-height)
 * @self: a [class@GCuda.Copy3DPeer]
 * @dst_height: the number of rows in a destination slice
 *
 * Sets [property@GCuda.Copy3DPeer:dst-height].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_dst_height (GCudaCopy3DPeer *self,
                                   guint64          dst_height)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_DST_HEIGHT], PROP_DST_HEIGHT, dst_height);
}

/**
 * gcuda_copy_3d_peer_get_depth: (get-property depth)
 * @self: a [class@GCuda.Copy3DPeer]
 *
 * Gets [property@GCuda.Copy3DPeer:depth].
 *
 * Returns: the number of slices copied
 *
 * Since: 1.0
 */
guint64
gcuda_copy_3d_peer_get_depth (GCudaCopy3DPeer *self)
{
  g_return_val_if_fail (GCUDA_IS_COPY_3D_PEER (self), 0);
  return *spec_field (&self->spec, PROP_DEPTH);
}

/**
 * gcuda_copy_3d_peer_set_depth: (set-property depth)
 * @self: a [class@GCuda.Copy3DPeer]
 * @depth: the number of slices copied
 *
 * Sets [property@GCuda.Copy3DPeer:depth].
 *
 * Since: 1.0
 */
void
gcuda_copy_3d_peer_set_depth (GCudaCopy3DPeer *self,
                              guint64          depth)
{
  g_return_if_fail (GCUDA_IS_COPY_3D_PEER (self));
  copy_set_field (G_OBJECT (self), properties_3d_peer[PROP_DEPTH], PROP_DEPTH, depth);
}
