/* gcuda-buffer.c: device memory
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-async-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-context-private.h"
#include "gcuda-stream-private.h"

/**
 * GCudaBuffer:
 *
 * A block of device memory (PyCUDA's `DeviceAllocation`): plain, pitched,
 * managed, opened from another process, a view of part of another buffer,
 * or memory another library allocated, borrowed with
 * [ctor@GCuda.Buffer.new_for_address].
 *
 * ```c
 * static gboolean
 * round_trip (GError **error)
 * {
 *   const float data[4] = { 1, 2, 3, 4 };
 *   g_autoptr(GCudaBuffer) buffer = gcuda_buffer_new (NULL, sizeof data, error);
 *   g_autoptr(GBytes) back = NULL;
 *
 *   if (buffer == NULL ||
 *       !gcuda_buffer_upload (buffer, 0, (const guint8 *) data, sizeof data, error))
 *     return FALSE;
 *   back = gcuda_buffer_download (buffer, 0, sizeof data, error);
 *   return back != NULL;
 * }
 * ```
 *
 * In Python, numpy arrays go in and out in place, with PyCUDA's functions;
 * `int(buf)` is the device address and `len(buf)` the size:
 *
 * ```python
 * a = numpy.arange(1024, dtype=numpy.float32)
 * buf = GCuda.to_device(a)
 * b = GCuda.from_device(buf, a.shape, a.dtype)
 * assert (a == b).all()
 * buf.free()
 * ```
 *
 * In JavaScript, data goes in as bytes and comes back as a
 * [struct@GLib.Bytes]:
 *
 * ```js
 * const buffer = GCuda.Buffer.new(null, 16);
 * buffer.upload(0, new Uint8Array(new Float32Array([1, 2, 3, 4]).buffer));
 * const back = new Float32Array(buffer.download(0, 16).toArray().slice().buffer);
 * ```
 *
 * The memory is released when the last reference goes, or with
 * [method@GCuda.Buffer.free]; after that every use of the buffer, and of views
 * of it, is [GCUDA_ERROR_FREED][error@GCuda.Error]. Every transfer checks its
 * range before the driver is called: a range outside the buffer is
 * [GCUDA_ERROR_OUT_OF_BOUNDS][error@GCuda.Error].
 *
 * Memory used through its address beyond GCuda's calls (managed memory seen
 * by the host as a numpy array or memoryview, a pointer handed to another
 * library) is declared with [method@GCuda.Buffer.export_begin]: while an
 * export lives, [method@GCuda.Buffer.free] retires the buffer at once but
 * leaves the release to the last export's end
 * ([method@GCuda.Context.destroy] never releases memory under a live buffer
 * either). In Python,
 * every numpy array, memoryview and `__array_interface__` of managed memory
 * counts: the Python object holds one export from the first of them until
 * it goes itself, which is after all of them.
 *
 * Transfers come in a synchronous form and, where it matters, a
 * stream-ordered `_on_stream` form (a %NULL stream is the legacy default
 * stream). Address-based forms take a host address as an integer, for
 * zero-copy transfers from bindings (numpy arrays in Python).
 *
 * A buffer holds a reference to its context and may be used from any thread.
 *
 * Since: 1.0
 */

struct _GCudaBuffer
{
  GObject parent_instance;

  GCudaContext *context;
  GCudaBuffer *parent;   /* views: the buffer viewed (kept alive) */
  CUdeviceptr ptr;
  guint64 size;
  guint64 pitch;
  GCudaBufferKind kind;
  GObject *owner;        /* borrowed memory: what owns it (kept alive) */
  GCudaPoolReleaseFunc release;  /* pooled memory: gives it back to @owner */
  gpointer release_data;         /* @release's */
  GCudaBufferNotify notify;  /* foreign memory: tells its owner GCuda is done */
  gpointer notify_data;
  int freed;             /* atomic: free() was called */
  int released;          /* atomic: the memory was released, which free()
                          * leaves to the last export */
  int exports;           /* atomic: live exports (of a view: counted on the
                          * buffer it views), see export_begin() */
};

G_DEFINE_FINAL_TYPE (GCudaBuffer, gcuda_buffer, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_ADDRESS,
  PROP_SIZE,
  PROP_PITCH,
  PROP_KIND,
  PROP_PARENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Releases the memory; the caller has won the freed flag. */
static void
release_memory (GCudaBuffer *self)
{
  if (self->kind == GCUDA_BUFFER_KIND_FOREIGN)
    {
      /* never freed by GCuda: its owner learns that GCuda is done with it */
      GCudaBufferNotify notify = g_steal_pointer (&self->notify);

      if (notify != NULL)
        notify (g_steal_pointer (&self->notify_data));
      return;
    }
  if (self->release != NULL)
    {
      self->release (self->owner, self->ptr, self->size, g_steal_pointer (&self->release_data));
      return;
    }
  if (self->kind == GCUDA_BUFFER_KIND_VIEW || self->kind == GCUDA_BUFFER_KIND_GRAPHICS ||
      self->owner != NULL || self->ptr == 0)
    return;
  if (self->kind == GCUDA_BUFFER_KIND_IPC)
    GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuIpcCloseMemHandle (self->ptr));
  else
    GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuMemFree (self->ptr));
}

/* Releases the memory once, whoever comes last: free(), the last export's
 * end, or finalize. */
static void
buffer_release (GCudaBuffer *self)
{
  if (self->context != NULL && g_atomic_int_compare_and_exchange (&self->released, FALSE, TRUE))
    release_memory (self);
}

static void
gcuda_buffer_finalize (GObject *object)
{
  GCudaBuffer *self = GCUDA_BUFFER (object);

  /* Exports still counted were left unended by code that dropped its
   * reference too: nothing can reach the memory through GCuda any more. */
  buffer_release (self);
  g_clear_object (&self->parent);
  g_clear_object (&self->owner);
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_buffer_parent_class)->finalize (object);
}

static void
gcuda_buffer_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  GCudaBuffer *self = GCUDA_BUFFER (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_ADDRESS:
      g_value_set_uint64 (value, self->ptr);
      break;
    case PROP_SIZE:
      g_value_set_uint64 (value, self->size);
      break;
    case PROP_PITCH:
      g_value_set_uint64 (value, self->pitch);
      break;
    case PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case PROP_PARENT:
      g_value_set_object (value, self->parent);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_buffer_class_init (GCudaBufferClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_buffer_finalize;
  object_class->get_property = gcuda_buffer_get_property;

  /**
   * GCudaBuffer:context: (getter get_context)
   *
   * The context the memory belongs to.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT, ro);

  /**
   * GCudaBuffer:address: (getter get_address)
   *
   * The device address (`CUdeviceptr`) of the first byte; a kernel argument
   * for pointers. It stays readable after [method@GCuda.Buffer.free].
   *
   * Since: 1.0
   */
  properties[PROP_ADDRESS] = g_param_spec_uint64 ("address", NULL, NULL, 0, G_MAXUINT64, 0, ro);

  /**
   * GCudaBuffer:size: (getter get_size)
   *
   * The size in bytes (for a pitched buffer: pitch × height).
   *
   * Since: 1.0
   */
  properties[PROP_SIZE] = g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0, ro);

  /**
   * GCudaBuffer:pitch: (getter get_pitch)
   *
   * The distance in bytes between rows of a pitched buffer; 0 otherwise.
   *
   * Since: 1.0
   */
  properties[PROP_PITCH] = g_param_spec_uint64 ("pitch", NULL, NULL, 0, G_MAXUINT64, 0, ro);

  /**
   * GCudaBuffer:kind: (getter get_kind)
   *
   * Where the memory comes from.
   *
   * Since: 1.0
   */
  properties[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, GCUDA_TYPE_BUFFER_KIND,
                                             GCUDA_BUFFER_KIND_DEVICE, ro);

  /**
   * GCudaBuffer:parent: (getter get_parent)
   *
   * The buffer a view looks into; %NULL for other kinds.
   *
   * Since: 1.0
   */
  properties[PROP_PARENT] = g_param_spec_object ("parent", NULL, NULL, GCUDA_TYPE_BUFFER, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_buffer_init (GCudaBuffer *self)
{
}

static GCudaBuffer *
buffer_wrap (GCudaContext    *context,
             CUdeviceptr      ptr,
             guint64          size,
             GCudaBufferKind  kind)
{
  GCudaBuffer *self = g_object_new (GCUDA_TYPE_BUFFER, NULL);

  self->context = g_object_ref (context);
  self->ptr = ptr;
  self->size = size;
  self->kind = kind;
  return self;
}

GCudaBuffer *
_gcuda_buffer_new_borrowed (GCudaContext    *context,
                            CUdeviceptr      ptr,
                            guint64          size,
                            GCudaBufferKind  kind,
                            GObject         *owner)
{
  GCudaBuffer *self = buffer_wrap (context, ptr, size, kind);

  self->owner = g_object_ref (owner);
  return self;
}

GCudaBuffer *
_gcuda_buffer_new_graphics (GCudaContext *context,
                            CUdeviceptr   ptr,
                            guint64       size)
{
  return buffer_wrap (context, ptr, size, GCUDA_BUFFER_KIND_GRAPHICS);
}

GCudaBuffer *
_gcuda_buffer_new_pooled (GCudaContext          *context,
                          CUdeviceptr            ptr,
                          guint64                size,
                          GObject               *pool,
                          GCudaPoolReleaseFunc   release,
                          gpointer               data)
{
  GCudaBuffer *self = _gcuda_buffer_new_borrowed (context, ptr, size, GCUDA_BUFFER_KIND_DEVICE, pool);

  self->release = release;
  self->release_data = data;
  return self;
}

/**
 * gcuda_buffer_new:
 * @context: (nullable): the context, or %NULL for the default context
 * @size: the size in bytes, at least 1
 * @error: return location for a [struct@GLib.Error]
 *
 * Allocates device memory (PyCUDA's `mem_alloc()`). Running out of device
 * memory is [GCUDA_DRIVER_ERROR_OUT_OF_MEMORY][error@GCuda.DriverError]
 * (category [GCUDA_ERROR_CATEGORY_MEMORY][enum@GCuda.ErrorCategory]).
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_buffer_new (GCudaContext  *context,
                  guint64        size,
                  GError       **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  CUdeviceptr ptr = 0;

  if (!_gcuda_check_alloc_size (size, error) || (ctx = _gcuda_context_resolve (context, error)) == NULL ||
      !GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuMemAlloc (&ptr, size), "cuMemAlloc", error))
    return NULL;
  return buffer_wrap (ctx, ptr, size, GCUDA_BUFFER_KIND_DEVICE);
}

/**
 * gcuda_buffer_new_pitched:
 * @context: (nullable): the context, or %NULL for the default context
 * @width: the width of a row in bytes, at least 1
 * @height: the number of rows, at least 1
 * @access_size: the size in bytes of the elements kernels will access: 4, 8 or 16
 * @error: return location for a [struct@GLib.Error]
 *
 * Allocates rows of device memory padded for coalesced access (PyCUDA's
 * `mem_alloc_pitch()`); [property@GCuda.Buffer:pitch] is the padded row size.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_buffer_new_pitched (GCudaContext  *context,
                          guint64        width,
                          guint64        height,
                          guint          access_size,
                          GError       **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  CUdeviceptr ptr = 0;
  size_t pitch = 0;
  GCudaBuffer *self;

  if (width == 0 || height == 0 || width > G_MAXSIZE || height > G_MAXSIZE)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("A pitched allocation of %" PRIu64 " × %" PRIu64 " bytes is not possible"),
                   width, height);
      return NULL;
    }
  if (access_size != 4 && access_size != 8 && access_size != 16)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The access size of a pitched allocation is 4, 8 or 16 bytes, not %u"), access_size);
      return NULL;
    }
  if ((ctx = _gcuda_context_resolve (context, error)) == NULL ||
      !GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuMemAllocPitch (&ptr, &pitch, width, height, access_size),
                           "cuMemAllocPitch", error))
    return NULL;
  self = buffer_wrap (ctx, ptr, (guint64) pitch * height, GCUDA_BUFFER_KIND_PITCHED);
  self->pitch = pitch;
  return self;
}

/**
 * gcuda_buffer_new_from_bytes:
 * @context: (nullable): the context, or %NULL for the default context
 * @bytes: the data, at least one byte
 * @error: return location for a [struct@GLib.Error]
 *
 * Allocates device memory holding a copy of @bytes (PyCUDA's `to_device()`).
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_buffer_new_from_bytes (GCudaContext  *context,
                             GBytes        *bytes,
                             GError       **error)
{
  g_autoptr(GCudaBuffer) self = NULL;

  if (bytes == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("No data given"));
      return NULL;
    }
  self = gcuda_buffer_new (context, g_bytes_get_size (bytes), error);
  if (self == NULL || !gcuda_buffer_upload_bytes (self, 0, bytes, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * gcuda_buffer_new_managed:
 * @context: (nullable): the context, or %NULL for the default context
 * @size: the size in bytes, at least 1
 * @flags: [GCUDA_MEM_ATTACH_FLAGS_GLOBAL][flags@GCuda.MemAttachFlags] or
 *   [GCUDA_MEM_ATTACH_FLAGS_HOST][flags@GCuda.MemAttachFlags]
 * @error: return location for a [struct@GLib.Error]
 *
 * Allocates managed memory, addressable from the host and every device
 * (PyCUDA's `managed_empty()`); the same address works on both sides.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_buffer_new_managed (GCudaContext         *context,
                          guint64               size,
                          GCudaMemAttachFlags   flags,
                          GError              **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  CUdeviceptr ptr = 0;

  if (flags != GCUDA_MEM_ATTACH_FLAGS_GLOBAL && flags != GCUDA_MEM_ATTACH_FLAGS_HOST)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Managed memory is allocated with GLOBAL or HOST, not flags 0x%x"), flags);
      return NULL;
    }
  if (!_gcuda_check_alloc_size (size, error) || (ctx = _gcuda_context_resolve (context, error)) == NULL ||
      !GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuMemAllocManaged (&ptr, size, flags), "cuMemAllocManaged", error))
    return NULL;
  return buffer_wrap (ctx, ptr, size, GCUDA_BUFFER_KIND_MANAGED);
}

/* What the driver knows of [@address, @address + @size): its context (a
 * new reference to @context, the pointer's own context if GCuda knows it,
 * or the default context). Memory unknown to the driver is an error; a
 * range beyond the allocation @address lies in too. Without pointer
 * attributes (an old or mock driver) nothing is checked. */
static GCudaContext *
foreign_context (GCudaContext  *context,
                 guint64        address,
                 guint64        size,
                 GError       **error)
{
  CUpointer_attribute attrs[] = {
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
    CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
  };
  unsigned int type = 0;
  CUcontext owner = NULL;
  CUdeviceptr start = 0;
  size_t range = 0;
  void *data[] = { &type, &owner, &start, &range };
  GCudaContext *found = NULL;
  CUresult res;

  if (context != NULL && !GCUDA_IS_CONTEXT (context))
    return _gcuda_context_resolve (context, error);  /* sets the error */
  if (_gcuda_driver_get (error) == NULL)
    return NULL;
  res = GCUDA_DRV->fn_cuPointerGetAttributes (G_N_ELEMENTS (attrs), attrs, data, address);
  if (res == CUDA_ERROR_NOT_FOUND || res == CUDA_ERROR_NOT_SUPPORTED)
    return _gcuda_context_resolve (context, error);  /* nothing to ask */
  if (!GCUDA_CHECK (res, "cuPointerGetAttributes", error))
    return NULL;
  if (type == 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("0x%" PRIx64 " is not memory the CUDA driver knows: only device, managed or "
                     "page-locked memory can be borrowed"), address);
      return NULL;
    }
  if (range != 0 &&
      (address < start || address - start > range || size > range - (address - start)))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Bytes 0x%" PRIx64 " to 0x%" PRIx64 " reach outside the allocation they start in, "
                     "0x%" PRIx64 " to 0x%" PRIx64),
                   address, address + size, (guint64) start, (guint64) start + (guint64) range);
      return NULL;
    }
  if (context == NULL && (found = _gcuda_context_lookup (owner)) != NULL)
    return found;
  return _gcuda_context_resolve (context, error);
}

/**
 * gcuda_buffer_new_for_address:
 * @context: (nullable): the context to use the memory in, or %NULL for the
 *   context it was allocated in when GCuda has a [class@GCuda.Context] for it
 *   (else the default context)
 * @address: the device address of the first byte
 * @size: the size in bytes, at least 1
 * @notify: (nullable) (scope async) (closure user_data): called once with
 *   @user_data when GCuda no longer uses the memory
 * @user_data: (nullable): data for @notify: typically a reference to what
 *   owns the memory
 * @error: return location for a [struct@GLib.Error]
 *
 * Borrows device memory another library allocated (a CuPy or PyTorch
 * array, a `cudaMalloc()` of C code, GStreamer's CUDA memory) as a buffer,
 * without a copy. GCuda never frees it: [method@GCuda.Buffer.free] only
 * retires the buffer. @notify runs exactly once: when the last reference
 * to the buffer goes, or at [method@GCuda.Buffer.free] (after the last
 * export: see [method@GCuda.Buffer.export_begin]); also when this call
 * fails, before it returns, so @user_data is never leaked. Until then the
 * memory must stay allocated; keep the owner alive with @user_data. It may
 * run in any thread.
 *
 * The range is checked where the driver can tell (`cuPointerGetAttributes`):
 * memory the driver does not know (ordinary host memory) is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and so is a range that
 * starts inside an allocation but does not end inside it (the message names
 * both ranges). Address 0, size 0 or a range past the end of the address
 * space are [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error] before the
 * driver is asked.
 *
 * The buffer's [property@GCuda.Buffer:kind] is
 * [GCUDA_BUFFER_KIND_FOREIGN][enum@GCuda.BufferKind]; it works wherever a
 * buffer does (copies, memsets, views, kernel arguments). In Python,
 * `GCuda.Buffer.from_foreign(obj)` wraps any object with
 * `__cuda_array_interface__` or `__dlpack__` this way and keeps it alive.
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_buffer_new_for_address (GCudaContext    *context,
                              guint64          address,
                              guint64          size,
                              GCudaBufferNotify  notify,
                              gpointer         user_data,
                              GError         **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  GCudaBuffer *self;

  if (address == 0 || size == 0 || size > G_MAXUINT64 - address + 1)
    {
      if (address == 0)
        g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                             _("A borrowed buffer needs a device address, not 0"));
      else if (size == 0)
        g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                             _("A borrowed buffer needs at least one byte"));
      else
        g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                     _("%" PRIu64 " bytes at 0x%" PRIx64 " reach past the end of the address space"),
                     size, address);
    }
  else if ((guint64) (CUdeviceptr) address != address)
    g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                 _("0x%" PRIx64 " is not a device address on this platform"), address);
  else
    ctx = foreign_context (context, address, size, error);

  if (ctx == NULL)
    {
      if (notify != NULL)
        notify (user_data);
      return NULL;
    }
  self = buffer_wrap (ctx, (CUdeviceptr) address, size, GCUDA_BUFFER_KIND_FOREIGN);
  self->notify = notify;
  self->notify_data = user_data;
  return self;
}

static GCudaBuffer *buffer_root (GCudaBuffer *self);

/* The buffer, or one it views, was freed? */
static gboolean
buffer_is_freed (GCudaBuffer *self)
{
  for (GCudaBuffer *b = self; b != NULL; b = b->parent)
    if (g_atomic_int_get (&b->freed))
      return TRUE;
  return FALSE;
}

static gboolean
buffer_check (GCudaBuffer  *self,
              GError      **error)
{
  if (!GCUDA_IS_BUFFER (self) || self->context == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.Buffer made by one of its constructors"));
      return FALSE;
    }
  if (buffer_is_freed (self))
    {
      if (buffer_root (self)->kind == GCUDA_BUFFER_KIND_GRAPHICS)
        g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_FREED,
                     _("The buffer at 0x%" PRIx64 " was an OpenGL buffer mapped for CUDA, and it was "
                       "unmapped: map the graphics resource again and get its buffer anew"),
                     (guint64) self->ptr);
      else
        g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_FREED,
                     self->freed ? _("The buffer at 0x%" PRIx64 " was freed")
                                 : _("The buffer viewed at 0x%" PRIx64 " was freed"),
                     (guint64) self->ptr);
      return FALSE;
    }
  return TRUE;
}

gboolean
_gcuda_buffer_check (GCudaBuffer  *self,
                     GError      **error)
{
  return buffer_check (self, error);
}

/* @offset + @size within the buffer, without overflow. */
static gboolean
buffer_check_range (GCudaBuffer  *self,
                    guint64       offset,
                    guint64       size,
                    GError      **error)
{
  return buffer_check (self, error) && _gcuda_check_range (offset, size, self->size, _("the buffer"), error);
}

/**
 * gcuda_buffer_new_view:
 * @parent: the buffer to look into
 * @offset: where the view starts, in bytes from the start of @parent
 * @size: the size of the view in bytes, at least 1
 * @error: return location for a [struct@GLib.Error]
 *
 * A buffer for part of @parent (PyCUDA's pointer arithmetic, `int(buf) +
 * offset`), keeping @parent alive. Freeing the view does not free @parent;
 * freeing @parent makes the view unusable
 * ([GCUDA_ERROR_FREED][error@GCuda.Error]).
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_buffer_new_view (GCudaBuffer  *parent,
                       guint64       offset,
                       guint64       size,
                       GError      **error)
{
  GCudaBuffer *self;

  if (size == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("A view needs at least one byte"));
      return NULL;
    }
  if (!buffer_check_range (parent, offset, size, error))
    return NULL;

  self = buffer_wrap (parent->context, parent->ptr + offset, size, GCUDA_BUFFER_KIND_VIEW);
  self->parent = g_object_ref (parent);
  self->pitch = parent->pitch;
  return self;
}

/**
 * gcuda_buffer_open_ipc_handle:
 * @context: (nullable): the context, or %NULL for the default context
 * @handle: a handle from [method@GCuda.Buffer.get_ipc_handle] in another
 *   process
 * @error: return location for a [struct@GLib.Error]
 *
 * Maps memory another process shared (PyCUDA's `IPCMemoryHandle`). The mapping
 * is closed when the buffer is freed; the memory stays the other process's. A
 * handle of the wrong size is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_buffer_open_ipc_handle (GCudaContext  *context,
                              GBytes        *handle,
                              GError       **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  CUipcMemHandle ipc;
  CUdeviceptr ptr = 0, base = 0;
  size_t size = 0;

  if (!_gcuda_ipc_handle_from_bytes (handle, &ipc, sizeof ipc, _("A memory"), error))
    return NULL;

  if ((ctx = _gcuda_context_resolve (context, error)) == NULL || !_gcuda_context_enter (ctx, &scope, error) ||
      !GCUDA_CHECK (GCUDA_DRV->fn_cuIpcOpenMemHandle (&ptr, ipc, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                    "cuIpcOpenMemHandle", error))
    return NULL;
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuMemGetAddressRange (&base, &size, ptr), "cuMemGetAddressRange", error))
    {
      GCUDA_DRV->fn_cuIpcCloseMemHandle (ptr);
      return NULL;
    }
  return buffer_wrap (ctx, ptr, size - (ptr - base), GCUDA_BUFFER_KIND_IPC);
}

/**
 * gcuda_buffer_get_context: (get-property context)
 * @self: a [class@GCuda.Buffer]
 *
 * Gets the context the memory belongs to.
 *
 * Returns: (transfer none): the buffer's context
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_buffer_get_context (GCudaBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_BUFFER (self), NULL);
  return self->context;
}

/**
 * gcuda_buffer_get_address: (get-property address)
 * @self: a [class@GCuda.Buffer]
 *
 * Gets the device address of the buffer's first byte, the value to pass for a
 * pointer parameter of a kernel.
 *
 * Returns: the device address, see [property@GCuda.Buffer:address]
 *
 * Since: 1.0
 */
guint64
gcuda_buffer_get_address (GCudaBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_BUFFER (self), 0);
  return self->ptr;
}

/**
 * gcuda_buffer_get_size: (get-property size)
 * @self: a [class@GCuda.Buffer]
 *
 * Gets the size of the buffer in bytes.
 *
 * Returns: the size in bytes
 *
 * Since: 1.0
 */
guint64
gcuda_buffer_get_size (GCudaBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_BUFFER (self), 0);
  return self->size;
}

/**
 * gcuda_buffer_get_pitch: (get-property pitch)
 * @self: a [class@GCuda.Buffer]
 *
 * Gets the distance in bytes between the rows of a pitched buffer.
 *
 * Returns: the row pitch of a pitched buffer (or a view of one), else 0
 *
 * Since: 1.0
 */
guint64
gcuda_buffer_get_pitch (GCudaBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_BUFFER (self), 0);
  return self->pitch;
}

/**
 * gcuda_buffer_get_kind: (get-property kind)
 * @self: a [class@GCuda.Buffer]
 *
 * Gets where the buffer's memory comes from: plain, pitched, managed, another
 * process's, a view or a module's global.
 *
 * Returns: where the memory comes from
 *
 * Since: 1.0
 */
GCudaBufferKind
gcuda_buffer_get_kind (GCudaBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_BUFFER (self), GCUDA_BUFFER_KIND_DEVICE);
  return self->kind;
}

/**
 * gcuda_buffer_get_parent: (get-property parent)
 * @self: a [class@GCuda.Buffer]
 *
 * Gets the buffer a view looks into, which the view keeps alive.
 *
 * Returns: (transfer none) (nullable): the buffer a view looks into
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_buffer_get_parent (GCudaBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_BUFFER (self), NULL);
  return self->parent;
}

/**
 * gcuda_buffer_is_freed:
 * @self: a [class@GCuda.Buffer]
 *
 * Checks whether the memory was released with [method@GCuda.Buffer.free],
 * directly or through the buffer a view looks into. Every transfer of a freed
 * buffer fails with [GCUDA_ERROR_FREED][error@GCuda.Error].
 *
 * Returns: %TRUE once the buffer, or the buffer it views, was freed
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_is_freed (GCudaBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_BUFFER (self), TRUE);
  return buffer_is_freed (self);
}

/**
 * gcuda_buffer_check_reachable:
 * @self: a [class@GCuda.Buffer]
 * @context: the context of a kernel
 * @error: return location for a [struct@GLib.Error]
 *
 * Checks that a kernel of @context may be given @self's memory, as launches
 * with a [class@GCuda.KernelArgs] check each buffer: for bindings that pass
 * buffers to kernels as addresses (the Python override's launches). Memory
 * only the buffer's context maps ([ctor@GCuda.Buffer.new]'s, pitched,
 * IPC, a module's variables, views of those) is
 * [GCUDA_ERROR_CONTEXT_MISMATCH][error@GCuda.Error] for another context of
 * the same device, where a kernel would fault on it. Managed memory and a
 * [class@GCuda.StreamPool]'s, which the whole device maps, are reachable from
 * every context of the device; memory of another device is reachable once
 * peer access is enabled ([method@GCuda.Context.enable_peer_access]), which
 * the driver alone knows, so it is not refused here. A freed buffer is
 * [GCUDA_ERROR_FREED][error@GCuda.Error], a buffer made without memory
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: %TRUE if a kernel of @context may use the memory
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_check_reachable (GCudaBuffer   *self,
                              GCudaContext  *context,
                              GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_BUFFER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!GCUDA_IS_CONTEXT (context))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.Context"));
      return FALSE;
    }
  if (!buffer_check (self, error))
    return FALSE;
  if (self->context == context || !_gcuda_buffer_is_context_bound (self) ||
      gcuda_context_get_device (self->context) != gcuda_context_get_device (context))
    return TRUE;
  g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                       _("The buffer is memory of another context on the same device, which a kernel of this "
                         "context cannot reach: allocate it in the kernel's context (or use managed memory or a "
                         "stream pool's, which every context of the device reaches)"));
  return FALSE;
}

gboolean
_gcuda_buffer_is_usable (GCudaBuffer *self)
{
  return self->context != NULL && !buffer_is_freed (self);
}

gboolean
_gcuda_buffer_is_usable_in (GCudaBuffer  *self,
                            GCudaContext *context)
{
  return self->context == context && !buffer_is_freed (self);
}

gboolean
_gcuda_buffer_is_context_bound (GCudaBuffer *self)
{
  GCudaBuffer *root = self;

  while (root->parent != NULL)
    root = root->parent;
  switch (root->kind)
    {
    case GCUDA_BUFFER_KIND_DEVICE:
      /* a stream pool's memory is its device's, as any memory pool's */
      return !(root->owner != NULL && GCUDA_IS_STREAM_POOL (root->owner));
    case GCUDA_BUFFER_KIND_PITCHED:
    case GCUDA_BUFFER_KIND_IPC:
    case GCUDA_BUFFER_KIND_GLOBAL:
      return TRUE;
    default:
      /* managed memory is everywhere's; foreign and graphics memory is what
       * its owner says it is */
      return FALSE;
    }
}

/**
 * gcuda_buffer_free:
 * @self: a [class@GCuda.Buffer]
 * @error: return location for a [struct@GLib.Error]
 *
 * Releases the memory now instead of when the last reference goes (PyCUDA's
 * `DeviceAllocation.free()`); any later use is
 * [GCUDA_ERROR_FREED][error@GCuda.Error]. Freeing a view only retires the view;
 * a pooled buffer goes back to its pool.
 *
 * Freeing a buffer that is freed already (see [method@GCuda.Buffer.is_freed]: a
 * view of freed memory is) is [GCUDA_ERROR_FREED][error@GCuda.Error], as in
 * PyCUDA: it points at a mistake in the caller's bookkeeping (two owners of one
 * block), which the second call must not hide. Nothing is released twice.
 *
 * While exports of the memory live ([method@GCuda.Buffer.export_begin]: in
 * Python, numpy arrays and memoryviews over managed memory) the buffer is
 * retired at once but the memory is released when the last export ends.
 *
 * Do not free memory that queued GPU work still uses.
 *
 * Returns: %TRUE if the memory was released, %FALSE with @error set if
 *   it had been freed already
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_free (GCudaBuffer  *self,
                   GError      **error)
{
  if (!GCUDA_IS_BUFFER (self))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.Buffer"));
      return FALSE;
    }
  /* made by hand: nothing to free, as every other call says */
  if (self->context == NULL)
    return buffer_check (self, error);
  /* A view of freed memory counts as freed, as gcuda_buffer_is_freed() says. */
  if (buffer_is_freed (self) || !g_atomic_int_compare_and_exchange (&self->freed, FALSE, TRUE))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_FREED,
                           self->kind == GCUDA_BUFFER_KIND_VIEW && !g_atomic_int_get (&self->freed)
                           ? _("The memory this view looks into was freed already")
                           : _("The buffer was freed already"));
      return FALSE;
    }
  /* freed is set before exports is read: see export_end() */
  if (g_atomic_int_get (&self->exports) == 0)
    buffer_release (self);
  return TRUE;
}

/* The buffer that owns the memory: a view's exports are counted there. */
static GCudaBuffer *
buffer_root (GCudaBuffer *self)
{
  while (self->parent != NULL)
    self = self->parent;
  return self;
}

/* Usable for an export: not freed, its context not destroyed. */
static gboolean
buffer_check_export (GCudaBuffer  *self,
                     GError      **error)
{
  if (!buffer_check (self, error))
    return FALSE;
  if (gcuda_context_is_destroyed (self->context))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED,
                           _("The buffer's context was destroyed"));
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_buffer_export_begin:
 * @self: a [class@GCuda.Buffer]
 * @error: return location for a [struct@GLib.Error]
 *
 * Declares a use of the memory through its address that outlives GCuda's
 * calls: managed memory mapped as an array in a binding, a device pointer
 * handed to another library. Until the matching
 * [method@GCuda.Buffer.export_end] the memory stays allocated:
 * [method@GCuda.Buffer.free] retires the buffer (every GCuda call on it is
 * [GCUDA_ERROR_FREED][error@GCuda.Error]) and leaves the release to the last
 * export's end ([method@GCuda.Context.destroy] never releases memory under a
 * live buffer). An export of a view keeps the memory of the buffer it views.
 * Keep a reference to @self for as long as the export lives; the last
 * reference going ends every export left.
 *
 * The Python override makes one export for a managed buffer's numpy arrays,
 * memoryviews and `__array_interface__` (see the class documentation).
 *
 * Freed memory is [GCUDA_ERROR_FREED][error@GCuda.Error], memory of a destroyed
 * context [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error].
 *
 * Returns: %TRUE with the export made, %FALSE with @error set
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_export_begin (GCudaBuffer  *self,
                           GError      **error)
{
  GCudaBuffer *root;

  if (!buffer_check_export (self, error))
    return FALSE;
  root = buffer_root (self);
  g_atomic_int_inc (&root->exports);
  /* exports is raised before freed is read: a free() on another thread
   * meanwhile either saw the export or is seen here */
  if (!buffer_check_export (self, error))
    {
      gcuda_buffer_export_end (self, NULL);
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_buffer_export_end:
 * @self: a [class@GCuda.Buffer]
 * @error: return location for a [struct@GLib.Error]
 *
 * Ends an export made with [method@GCuda.Buffer.export_begin]: after the
 * last one, memory that was freed meanwhile is released. Ending more exports
 * than were made is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and
 * changes nothing.
 *
 * Returns: %TRUE with the export ended, %FALSE with @error set
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_export_end (GCudaBuffer  *self,
                         GError      **error)
{
  GCudaBuffer *root;
  int exports;

  if (!GCUDA_IS_BUFFER (self) || self->context == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.Buffer made by one of its constructors"));
      return FALSE;
    }
  root = buffer_root (self);
  do
    {
      exports = g_atomic_int_get (&root->exports);
      if (exports == 0)
        {
          g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                               _("The buffer has no export to end: every export_end() needs an export_begin()"));
          return FALSE;
        }
    }
  while (!g_atomic_int_compare_and_exchange (&root->exports, exports, exports - 1));

  /* the last one: exports dropped before freed is read, see free() */
  if (exports == 1 && g_atomic_int_get (&root->freed))
    buffer_release (root);
  return TRUE;
}

/* A transfer on @stream: it must be in the buffer's context. */
static gboolean
check_stream (GCudaBuffer  *self,
              GCudaStream  *stream,
              GError      **error)
{
  /* not a stream, or one made by hand: INVALID_ARGUMENT, not a mismatch */
  if (!_gcuda_stream_check_arg (stream, error))
    return FALSE;
  if (stream != NULL)
    {
      if (gcuda_stream_get_context (stream) != self->context)
        {
          g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH,
                               _("The stream and the buffer belong to different contexts"));
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
_gcuda_buffer_check_range (GCudaBuffer  *self,
                           guint64       offset,
                           guint64       size,
                           GError      **error)
{
  return buffer_check_range (self, offset, size, error);
}

gboolean
_gcuda_buffer_check_stream (GCudaBuffer  *self,
                            GCudaStream  *stream,
                            GError      **error)
{
  return check_stream (self, stream, error);
}

static gboolean
upload (GCudaBuffer  *self,
        guint64       offset,
        const void   *data,
        guint64       size,
        gboolean      on_stream,
        GCudaStream  *stream,
        GError      **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

  if (!buffer_check_range (self, offset, size, error))
    return FALSE;
  if (size == 0)
    return TRUE;
  if (data == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("The host address is NULL"));
      return FALSE;
    }
  if (!check_stream (self, stream, error) || !_gcuda_context_enter (self->context, &scope, error))
    return FALSE;
  if (on_stream)
    return GCUDA_CHECK (GCUDA_DRV->fn_cuMemcpyHtoDAsync (self->ptr + offset, data, size,
                                                          _gcuda_stream_get_handle (stream)),
                        "cuMemcpyHtoDAsync", error);
  return GCUDA_CHECK (GCUDA_DRV->fn_cuMemcpyHtoD (self->ptr + offset, data, size), "cuMemcpyHtoD", error) &&
         _gcuda_legacy_stream_synchronize (error);
}

static gboolean
download (GCudaBuffer  *self,
          guint64       offset,
          void         *data,
          guint64       size,
          gboolean      on_stream,
          GCudaStream  *stream,
          GError      **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

  if (!buffer_check_range (self, offset, size, error))
    return FALSE;
  if (size == 0)
    return TRUE;
  if (data == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("The host address is NULL"));
      return FALSE;
    }
  if (!check_stream (self, stream, error) || !_gcuda_context_enter (self->context, &scope, error))
    return FALSE;
  if (on_stream)
    return GCUDA_CHECK (GCUDA_DRV->fn_cuMemcpyDtoHAsync (data, self->ptr + offset, size,
                                                          _gcuda_stream_get_handle (stream)),
                        "cuMemcpyDtoHAsync", error);
  return GCUDA_CHECK (GCUDA_DRV->fn_cuMemcpyDtoH (data, self->ptr + offset, size), "cuMemcpyDtoH", error);
}

/**
 * gcuda_buffer_upload:
 * @self: a [class@GCuda.Buffer]
 * @offset: where to write, in bytes from the start of the buffer
 * @data: (array length=size): the bytes to write
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies host data into the buffer (PyCUDA's `memcpy_htod()`) and returns
 * when the copy is done: unlike the driver's `cuMemcpyHtoD()` from pageable
 * memory, the data is in place for work on any stream, non-blocking ones
 * included.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_upload (GCudaBuffer   *self,
                     guint64        offset,
                     const guint8  *data,
                     gsize          size,
                     GError       **error)
{
  return upload (self, offset, data, size, FALSE, NULL, error);
}

/**
 * gcuda_buffer_upload_bytes:
 * @self: a [class@GCuda.Buffer]
 * @offset: where to write, in bytes from the start of the buffer
 * @bytes: the bytes to write
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies @bytes into the buffer and returns when the copy is done.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_upload_bytes (GCudaBuffer  *self,
                           guint64       offset,
                           GBytes       *bytes,
                           GError      **error)
{
  gsize size = 0;
  gconstpointer data;

  if (bytes == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("No data given"));
      return FALSE;
    }
  data = g_bytes_get_data (bytes, &size);
  return upload (self, offset, data, size, FALSE, NULL, error);
}

/**
 * gcuda_buffer_upload_from_address:
 * @self: a [class@GCuda.Buffer]
 * @offset: where to write, in bytes from the start of the buffer
 * @address: the host address of the data
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies @size bytes at host address @address into the buffer and returns
 * when the copy is done: the zero-copy path for bindings (a numpy array's
 * data pointer, say). The memory at @address must be readable.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_upload_from_address (GCudaBuffer  *self,
                                  guint64       offset,
                                  guint64       address,
                                  guint64       size,
                                  GError      **error)
{
  return upload (self, offset, GSIZE_TO_POINTER (address), size, FALSE, NULL, error);
}

/**
 * gcuda_buffer_upload_from_address_on_stream:
 * @self: a [class@GCuda.Buffer]
 * @offset: where to write, in bytes from the start of the buffer
 * @address: the host address of the data
 * @size: the number of bytes
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Queues a copy of host memory into the buffer on @stream (PyCUDA's
 * `memcpy_htod_async()`). From page-locked memory ([class@GCuda.HostBuffer])
 * the copy is truly asynchronous, and the memory must stay valid and unchanged
 * until the stream has done it; from pageable memory the call returns once the
 * data has been staged.
 *
 * Returns: %TRUE if the copy was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_upload_from_address_on_stream (GCudaBuffer  *self,
                                            guint64       offset,
                                            guint64       address,
                                            guint64       size,
                                            GCudaStream  *stream,
                                            GError      **error)
{
  return upload (self, offset, GSIZE_TO_POINTER (address), size, TRUE, stream, error);
}

/**
 * gcuda_buffer_download:
 * @self: a [class@GCuda.Buffer]
 * @offset: where to read, in bytes from the start of the buffer
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies bytes out of the buffer (PyCUDA's `memcpy_dtoh()`).
 *
 * Returns: (transfer full): the bytes, or %NULL with @error set
 *
 * Since: 1.0
 */
GBytes *
gcuda_buffer_download (GCudaBuffer  *self,
                       guint64       offset,
                       guint64       size,
                       GError      **error)
{
  g_autofree guint8 *data = NULL;

  if (!buffer_check_range (self, offset, size, error))
    return NULL;
  data = g_try_malloc (MAX (size, 1));
  if (data == NULL)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_FAILED,
                   _("Could not allocate %" PRIu64 " bytes of host memory"), size);
      return NULL;
    }
  if (!download (self, offset, data, size, FALSE, NULL, error))
    return NULL;
  return g_bytes_new_take (g_steal_pointer (&data), size);
}

/**
 * gcuda_buffer_download_to_address:
 * @self: a [class@GCuda.Buffer]
 * @offset: where to read, in bytes from the start of the buffer
 * @address: the host address to write to
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies bytes out of the buffer into host memory at @address and returns
 * when the copy is done. The memory at @address must be writable.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_download_to_address (GCudaBuffer  *self,
                                  guint64       offset,
                                  guint64       address,
                                  guint64       size,
                                  GError      **error)
{
  return download (self, offset, GSIZE_TO_POINTER (address), size, FALSE, NULL, error);
}

/**
 * gcuda_buffer_download_to_address_on_stream:
 * @self: a [class@GCuda.Buffer]
 * @offset: where to read, in bytes from the start of the buffer
 * @address: the host address to write to
 * @size: the number of bytes
 * @stream: (nullable): the stream, or %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Queues a copy out of the buffer on @stream (PyCUDA's
 * `memcpy_dtoh_async()`). Into page-locked memory the copy is truly
 * asynchronous: the data is there once the stream has done it. Into
 * pageable memory the call returns when the copy is done.
 *
 * Returns: %TRUE if the copy was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_download_to_address_on_stream (GCudaBuffer  *self,
                                            guint64       offset,
                                            guint64       address,
                                            guint64       size,
                                            GCudaStream  *stream,
                                            GError      **error)
{
  return download (self, offset, GSIZE_TO_POINTER (address), size, TRUE, stream, error);
}

static gboolean
copy_from (GCudaBuffer  *self,
           guint64       offset,
           GCudaBuffer  *source,
           guint64       source_offset,
           guint64       size,
           gboolean      on_stream,
           GCudaStream  *stream,
           GError      **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  const GCudaDriver *drv;
  CUstream h;
  gboolean ok;

  if (!buffer_check_range (self, offset, size, error) ||
      !buffer_check_range (source, source_offset, size, error))
    return FALSE;
  if (size == 0)
    return TRUE;
  if (!check_stream (self, stream, error) || !_gcuda_context_enter (self->context, &scope, error))
    return FALSE;

  drv = GCUDA_DRV;
  h = _gcuda_stream_get_handle (stream);
  if (source->context == self->context)
    ok = on_stream
      ? GCUDA_CHECK (drv->fn_cuMemcpyDtoDAsync (self->ptr + offset, source->ptr + source_offset, size, h),
                     "cuMemcpyDtoDAsync", error)
      : GCUDA_CHECK (drv->fn_cuMemcpyDtoD (self->ptr + offset, source->ptr + source_offset, size),
                     "cuMemcpyDtoD", error);
  else if (gcuda_context_is_destroyed (source->context))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED,
                           _("The source buffer's context was destroyed"));
      ok = FALSE;
    }
  else
    {
      /* Different contexts, maybe different devices: name both contexts
       * (PyCUDA's memcpy_peer); the driver stages through the host when the
       * devices have no peer access. */
      CUcontext dst_ctx = _gcuda_context_get_handle_internal (self->context);
      CUcontext src_ctx = _gcuda_context_get_handle_internal (source->context);

      ok = on_stream
        ? GCUDA_CHECK (drv->fn_cuMemcpyPeerAsync (self->ptr + offset, dst_ctx, source->ptr + source_offset,
                                                  src_ctx, size, h), "cuMemcpyPeerAsync", error)
        : GCUDA_CHECK (drv->fn_cuMemcpyPeer (self->ptr + offset, dst_ctx, source->ptr + source_offset,
                                             src_ctx, size), "cuMemcpyPeer", error);
    }
  if (ok && !on_stream)
    ok = _gcuda_legacy_stream_synchronize (error);
  return ok;
}

/**
 * gcuda_buffer_copy_from:
 * @self: the destination buffer
 * @offset: where to write, in bytes from the start of @self
 * @source: the source buffer
 * @source_offset: where to read, in bytes from the start of @source
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies between two buffers (PyCUDA's `memcpy_dtod()`) and returns when
 * the copy is done. Buffers of different contexts, even on different
 * devices, are copied with both contexts named (PyCUDA's `memcpy_peer()`).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_copy_from (GCudaBuffer  *self,
                        guint64       offset,
                        GCudaBuffer  *source,
                        guint64       source_offset,
                        guint64       size,
                        GError      **error)
{
  return copy_from (self, offset, source, source_offset, size, FALSE, NULL, error);
}

/**
 * gcuda_buffer_copy_from_on_stream:
 * @self: the destination buffer
 * @offset: where to write, in bytes from the start of @self
 * @source: the source buffer
 * @source_offset: where to read, in bytes from the start of @source
 * @size: the number of bytes
 * @stream: (nullable): a stream of @self's context, or %NULL for the legacy default stream
 * @error: return location for a [struct@GLib.Error]
 *
 * Queues a copy between two buffers on @stream (PyCUDA's
 * `memcpy_dtod_async()`, `memcpy_peer()` with a stream).
 *
 * Returns: %TRUE if the copy was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_copy_from_on_stream (GCudaBuffer  *self,
                                  guint64       offset,
                                  GCudaBuffer  *source,
                                  guint64       source_offset,
                                  guint64       size,
                                  GCudaStream  *stream,
                                  GError      **error)
{
  return copy_from (self, offset, source, source_offset, size, TRUE, stream, error);
}

typedef struct {
  GCudaContext *context;
  void *host;
} PinnedMemory;

static void
pinned_memory_free (gpointer data)
{
  PinnedMemory *pinned = data;

  /* Never on the driver's thread: the last reference goes in a main
   * context or wherever the caller drops the bytes. */
  GCUDA_CONTEXT_RELEASE (pinned->context, GCUDA_DRV->fn_cuMemFreeHost (pinned->host));
  g_object_unref (pinned->context);
  g_free (pinned);
}

/**
 * gcuda_buffer_download_async:
 * @self: a [class@GCuda.Buffer]
 * @offset: where to read, in bytes from the start of the buffer
 * @size: the number of bytes
 * @stream: (nullable): the stream to order the copy on, or %NULL for the legacy default stream
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: (scope async): called when the bytes are there
 * @user_data: data for @callback
 *
 * Copies bytes out of the buffer without blocking: the copy is queued on
 * @stream into page-locked memory, and @callback runs in the thread-default
 * main context of the calling thread once it has finished. Cancelling
 * completes the task at once; the copy still runs, into memory kept alive
 * until it is done.
 *
 * Since: 1.0
 */
void
gcuda_buffer_download_async (GCudaBuffer         *self,
                             guint64              offset,
                             guint64              size,
                             GCudaStream         *stream,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  PinnedMemory *pinned;
  void *host = NULL;

  g_return_if_fail (GCUDA_IS_BUFFER (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gcuda_buffer_download_async);

  if (!buffer_check_range (self, offset, size, &error) || !check_stream (self, stream, &error) ||
      !_gcuda_context_enter (self->context, &scope, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (size == 0)
    {
      g_task_set_task_data (task, g_bytes_new (NULL, 0), (GDestroyNotify) g_bytes_unref);
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuMemAllocHost (&host, size), "cuMemAllocHost", &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  pinned = g_new (PinnedMemory, 1);
  pinned->context = g_object_ref (self->context);
  pinned->host = host;
  /* The task owns the page-locked memory until the host function has run. */
  g_task_set_task_data (task, g_bytes_new_with_free_func (host, size, pinned_memory_free, pinned),
                        (GDestroyNotify) g_bytes_unref);

  if (GCUDA_CHECK (GCUDA_DRV->fn_cuMemcpyDtoHAsync (host, self->ptr + offset, size,
                                                     _gcuda_stream_get_handle (stream)),
                   "cuMemcpyDtoHAsync", &error))
    _gcuda_task_complete_on_stream (task, _gcuda_stream_get_handle (stream));
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

/**
 * gcuda_buffer_download_finish:
 * @self: a [class@GCuda.Buffer]
 * @result: the [iface@Gio.AsyncResult]
 * @error: return location for a [struct@GLib.Error]
 *
 * Finishes [method@GCuda.Buffer.download_async].
 *
 * Returns: (transfer full): the bytes, or %NULL with @error set
 *
 * Since: 1.0
 */
GBytes *
gcuda_buffer_download_finish (GCudaBuffer   *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_BUFFER (self), NULL);

  GBytes *pinned;

  if (!_gcuda_wait_task_finish (self, result, gcuda_buffer_download_async, error))
    return NULL;
  /* A copy: the page-locked staging memory belongs to the context and
   * would go with gcuda_context_destroy() under the caller's feet. */
  pinned = g_task_get_task_data (G_TASK (result));
  return g_bytes_new (g_bytes_get_data (pinned, NULL), g_bytes_get_size (pinned));
}

/**
 * gcuda_buffer_upload_async:
 * @self: a [class@GCuda.Buffer]
 * @offset: where to write, in bytes from the start of the buffer
 * @bytes: the bytes to write
 * @stream: (nullable): the stream to order the copy on, or %NULL for the legacy default stream
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: (scope async): called when the copy has finished
 * @user_data: data for @callback
 *
 * Queues a copy of @bytes into the buffer on @stream; @callback runs in the
 * thread-default main context of the calling thread once it has finished.
 * @bytes is kept alive until then, even if the task is cancelled.
 *
 * Since: 1.0
 */
void
gcuda_buffer_upload_async (GCudaBuffer         *self,
                           guint64              offset,
                           GBytes              *bytes,
                           GCudaStream         *stream,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  gconstpointer data;
  gsize size = 0;

  g_return_if_fail (GCUDA_IS_BUFFER (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gcuda_buffer_upload_async);

  if (bytes == NULL)
    {
      g_task_return_new_error (task, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, "%s", _("No data given"));
      return;
    }
  data = g_bytes_get_data (bytes, &size);
  if (!buffer_check_range (self, offset, size, &error) || !check_stream (self, stream, &error) ||
      !_gcuda_context_enter (self->context, &scope, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_set_task_data (task, g_bytes_ref (bytes), (GDestroyNotify) g_bytes_unref);
  if (size == 0)
    g_task_return_boolean (task, TRUE);
  else if (GCUDA_CHECK (GCUDA_DRV->fn_cuMemcpyHtoDAsync (self->ptr + offset, data, size,
                                                          _gcuda_stream_get_handle (stream)),
                        "cuMemcpyHtoDAsync", &error))
    _gcuda_task_complete_on_stream (task, _gcuda_stream_get_handle (stream));
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

/**
 * gcuda_buffer_upload_finish:
 * @self: a [class@GCuda.Buffer]
 * @result: the [iface@Gio.AsyncResult]
 * @error: return location for a [struct@GLib.Error]
 *
 * Finishes [method@GCuda.Buffer.upload_async].
 *
 * Returns: %TRUE once the copy has finished
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_upload_finish (GCudaBuffer   *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_BUFFER (self), FALSE);

  return _gcuda_wait_task_finish (self, result, gcuda_buffer_upload_async, error);
}

/**
 * gcuda_buffer_get_ipc_handle:
 * @self: a buffer from [ctor@GCuda.Buffer.new], [ctor@GCuda.Buffer.new_pitched]
 *   or [ctor@GCuda.Buffer.new_from_bytes]
 * @error: return location for a [struct@GLib.Error]
 *
 * A handle another process can open with [func@GCuda.Buffer.open_ipc_handle]
 * (PyCUDA's `mem_get_ipc_handle()`). Views, managed and IPC-opened memory
 * have none: [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: (transfer full): the handle, or %NULL with @error set
 *
 * Since: 1.0
 */
GBytes *
gcuda_buffer_get_ipc_handle (GCudaBuffer  *self,
                             GError      **error)
{
  CUipcMemHandle ipc;

  if (!buffer_check (self, error))
    return NULL;
  if (self->kind != GCUDA_BUFFER_KIND_DEVICE && self->kind != GCUDA_BUFFER_KIND_PITCHED)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Only whole device allocations have an IPC handle (not views, managed or IPC memory)"));
      return NULL;
    }
  if (!GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuIpcGetMemHandle (&ipc, self->ptr),
                           "cuIpcGetMemHandle", error))
    return NULL;
  return g_bytes_new (&ipc, sizeof ipc);
}

/* The allocation a managed buffer (or a view of one) belongs to. */
static gboolean
check_managed (GCudaBuffer  *self,
               GError      **error)
{
  GCudaBuffer *root = self;

  if (!buffer_check (self, error))
    return FALSE;
  while (root->parent != NULL)
    root = root->parent;
  if (root->kind != GCUDA_BUFFER_KIND_MANAGED)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Only managed memory (a buffer made by Buffer.new_managed()) can be attached, prefetched or advised"));
      return FALSE;
    }
  return TRUE;
}

static CUmemLocation
location_of (GCudaDevice *device)
{
  CUmemLocation location = { 0 };

  if (device == NULL)
    {
      location.type = CU_MEM_LOCATION_TYPE_HOST;
      location.id = 0;
    }
  else
    {
      location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      location.id = gcuda_device_get_ordinal (device);
    }
  return location;
}

/**
 * gcuda_buffer_attach:
 * @self: a managed buffer
 * @flags: exactly one of GLOBAL, HOST and SINGLE
 * @stream: (nullable): the stream to attach to (needed for SINGLE)
 * @error: return location for a [struct@GLib.Error]
 *
 * Changes which streams may access managed memory (PyCUDA's
 * `ManagedAllocation.attach()`). The change is ordered on @stream.
 *
 * Returns: %TRUE if it was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_attach (GCudaBuffer          *self,
                     GCudaMemAttachFlags   flags,
                     GCudaStream          *stream,
                     GError              **error)
{
  GCudaBuffer *root = self;

  if (!check_managed (self, error))
    return FALSE;
  if (flags != GCUDA_MEM_ATTACH_FLAGS_GLOBAL && flags != GCUDA_MEM_ATTACH_FLAGS_HOST &&
      flags != GCUDA_MEM_ATTACH_FLAGS_SINGLE)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Give exactly one of GLOBAL, HOST and SINGLE, not flags 0x%x"), flags);
      return FALSE;
    }
  if (flags == GCUDA_MEM_ATTACH_FLAGS_SINGLE && stream == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Attaching with SINGLE needs a stream"));
      return FALSE;
    }
  while (root->parent != NULL)
    root = root->parent;
  /* Attachment applies to whole allocations: length 0 means all of it. */
  return check_stream (self, stream, error) &&
         GCUDA_CONTEXT_CALL (self->context,
                             GCUDA_DRV->fn_cuStreamAttachMemAsync (_gcuda_stream_get_handle (stream), root->ptr,
                                                                   0, flags),
                             "cuStreamAttachMemAsync", error);
}

/**
 * gcuda_buffer_prefetch:
 * @self: a managed buffer
 * @device: (nullable): the device to move the data to, or %NULL for the host
 * @stream: (nullable): the stream to order the move on
 * @error: return location for a [struct@GLib.Error]
 *
 * Moves managed memory to a device or to the host ahead of use (PyCUDA's
 * `mem_prefetch_async()`, CUDA 13's `cuMemPrefetchAsync` with a location).
 *
 * Returns: %TRUE if it was queued
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_prefetch (GCudaBuffer  *self,
                       GCudaDevice  *device,
                       GCudaStream  *stream,
                       GError      **error)
{
  if (!check_managed (self, error))
    return FALSE;
  if (device != NULL && !GCUDA_IS_DEVICE (device))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.Device, or NULL for the host"));
      return FALSE;
    }
  return check_stream (self, stream, error) &&
         GCUDA_CONTEXT_CALL (self->context,
                             GCUDA_DRV->fn_cuMemPrefetchAsync (self->ptr, self->size, location_of (device), 0,
                                                               _gcuda_stream_get_handle (stream)),
                             "cuMemPrefetchAsync", error);
}

/**
 * gcuda_buffer_advise:
 * @self: a managed buffer
 * @advice: the advice
 * @device: (nullable): the device the advice is about, or %NULL for the host
 * @error: return location for a [struct@GLib.Error]
 *
 * Tells the driver how managed memory will be used (`cuMemAdvise`).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_advise (GCudaBuffer        *self,
                     GCudaMemoryAdvice   advice,
                     GCudaDevice        *device,
                     GError            **error)
{
  if (!check_managed (self, error))
    return FALSE;
  if (advice < GCUDA_MEMORY_ADVICE_SET_READ_MOSTLY || advice > GCUDA_MEMORY_ADVICE_UNSET_ACCESSED_BY)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%d is not a memory advice (see GCuda.MemoryAdvice)"), (int) advice);
      return FALSE;
    }
  if (device != NULL && !GCUDA_IS_DEVICE (device))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.Device, or NULL for the host"));
      return FALSE;
    }
  return GCUDA_CONTEXT_CALL (self->context,
                             GCUDA_DRV->fn_cuMemAdvise (self->ptr, self->size, (CUmem_advise) advice,
                                                        location_of (device)),
                             "cuMemAdvise", error);
}
