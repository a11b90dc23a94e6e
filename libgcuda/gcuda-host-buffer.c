/* gcuda-host-buffer.c: page-locked, aligned and registered host memory
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcuda-error-private.h"
#include "gcuda-context-private.h"
#include "gcuda-host-buffer-private.h"

/**
 * GCudaHostBuffer:
 *
 * Host memory for fast and asynchronous transfers: page-locked memory
 * allocated by the driver (PyCUDA's `pagelocked_empty()`), ordinary memory
 * with a chosen alignment (`aligned_empty()`), or existing memory
 * page-locked in place (`register_host_memory()`).
 *
 * ```c
 * static gboolean
 * download_pagelocked (GCudaBuffer *buffer, GError **error)
 * {
 *   guint64 size = gcuda_buffer_get_size (buffer);
 *   g_autoptr(GCudaHostBuffer) host =
 *     gcuda_host_buffer_new_pagelocked (NULL, size, GCUDA_HOST_ALLOC_FLAGS_DEFAULT, error);
 *   g_autoptr(GCudaStream) stream =
 *     host ? gcuda_stream_new (NULL, GCUDA_STREAM_FLAGS_DEFAULT, 0, error) : NULL;
 *   const float *values;
 *
 *   if (stream == NULL ||
 *       !gcuda_buffer_download_to_address_on_stream (buffer, 0,
 *                                                    gcuda_host_buffer_get_address (host),
 *                                                    size, stream, error) ||
 *       !gcuda_stream_synchronize (stream, error))
 *     return FALSE;
 *   values = (const float *) (guintptr) gcuda_host_buffer_get_address (host);
 *   g_print ("first value: %g\n", values[0]);
 *   return TRUE;
 * }
 * ```
 *
 * In Python, page-locked memory is a numpy array whose `.base` is the
 * host buffer:
 *
 * ```python
 * host = GCuda.pagelocked_empty((1024, 1024), numpy.float32)
 * host[:] = 1
 * buf = GCuda.mem_alloc(host.nbytes)
 * stream = GCuda.Stream()
 * GCuda.memcpy_htod_async(buf, host, stream)
 * stream.synchronize()
 * ```
 *
 * Copies between page-locked memory and a [class@GCuda.Buffer] on a stream are
 * truly asynchronous. The memory is released (or unregistered) when the last
 * reference goes, or with [method@GCuda.HostBuffer.free]; after that every
 * use is [GCUDA_ERROR_FREED][error@GCuda.Error]. Languages without pointers
 * read and write it with [method@GCuda.HostBuffer.read] and
 * [method@GCuda.HostBuffer.write]; the Python override maps it as a numpy
 * array.
 *
 * Code that reaches the memory through its address beyond a GCuda call (a
 * numpy array, a memoryview, another library) makes an export of it with
 * [method@GCuda.HostBuffer.export_begin]. While an export lives the memory is
 * never released under it: [method@GCuda.HostBuffer.free] retires the buffer
 * at once (every GCuda call on it is
 * [GCUDA_ERROR_FREED][error@GCuda.Error]) but the memory goes when the last
 * export ends (destroying the context, [method@GCuda.Context.destroy], never
 * releases its memory under a live object either). In Python every numpy
 * array, memoryview and `__array_interface__` of the memory counts: the
 * Python object holds one export from the first of them until it goes
 * itself, which is after all of them, since each keeps it alive.
 *
 * Since: 1.0
 */

struct _GCudaHostBuffer
{
  GObject parent_instance;

  GCudaContext *context;  /* NULL for aligned memory */
  void *ptr;
  guint64 size;
  GCudaHostBufferKind kind;
  guint flags;
  GObject *pool;          /* pooled memory: the pool it goes back to */
  GCudaPoolReleaseFunc release;
  gpointer release_data;  /* @release's */
  int freed;              /* atomic: free() or unregister() was called */
  int released;           /* atomic: the memory was released, which free()
                           * leaves to the last export */
  int exports;            /* atomic: live exports, see export_begin() */
};

G_DEFINE_FINAL_TYPE (GCudaHostBuffer, gcuda_host_buffer, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_ADDRESS,
  PROP_SIZE,
  PROP_KIND,
  PROP_ALLOC_FLAGS,
  PROP_REGISTER_FLAGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
release_memory (GCudaHostBuffer *self)
{
  if (self->release != NULL)
    self->release (self->pool, (guint64) (guintptr) self->ptr, self->size, g_steal_pointer (&self->release_data));
  else if (self->kind == GCUDA_HOST_BUFFER_KIND_ALIGNED)
    free (self->ptr);
  else if (self->kind == GCUDA_HOST_BUFFER_KIND_PAGELOCKED)
    GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuMemFreeHost (self->ptr));
  else
    GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuMemHostUnregister (self->ptr));
}

/* Releases the memory once, whoever comes last: free(), the last export's
 * end, or finalize. */
static void
host_buffer_release (GCudaHostBuffer *self)
{
  if (self->ptr != NULL && g_atomic_int_compare_and_exchange (&self->released, FALSE, TRUE))
    release_memory (self);
}

static void
gcuda_host_buffer_finalize (GObject *object)
{
  GCudaHostBuffer *self = GCUDA_HOST_BUFFER (object);

  /* Exports still counted were left unended by code that dropped its
   * reference too: nothing can reach the memory through GCuda any more. */
  host_buffer_release (self);
  g_clear_object (&self->pool);
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_host_buffer_parent_class)->finalize (object);
}

static void
gcuda_host_buffer_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  GCudaHostBuffer *self = GCUDA_HOST_BUFFER (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_ADDRESS:
      g_value_set_uint64 (value, (guint64) (guintptr) self->ptr);
      break;
    case PROP_SIZE:
      g_value_set_uint64 (value, self->size);
      break;
    case PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case PROP_ALLOC_FLAGS:
      g_value_set_flags (value, gcuda_host_buffer_get_alloc_flags (self));
      break;
    case PROP_REGISTER_FLAGS:
      g_value_set_flags (value, gcuda_host_buffer_get_register_flags (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_host_buffer_class_init (GCudaHostBufferClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_host_buffer_finalize;
  object_class->get_property = gcuda_host_buffer_get_property;

  /**
   * GCudaHostBuffer:context: (getter get_context)
   *
   * The context page-locked or registered memory belongs to; %NULL for
   * aligned memory.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT, ro);

  /**
   * GCudaHostBuffer:address: (getter get_address)
   *
   * The host address of the first byte.
   *
   * Since: 1.0
   */
  properties[PROP_ADDRESS] = g_param_spec_uint64 ("address", NULL, NULL, 0, G_MAXUINT64, 0, ro);

  /**
   * GCudaHostBuffer:size: (getter get_size)
   *
   * The size in bytes.
   *
   * Since: 1.0
   */
  properties[PROP_SIZE] = g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0, ro);

  /**
   * GCudaHostBuffer:kind: (getter get_kind)
   *
   * Where the memory comes from.
   *
   * Since: 1.0
   */
  properties[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, GCUDA_TYPE_HOST_BUFFER_KIND,
                                             GCUDA_HOST_BUFFER_KIND_PAGELOCKED, ro);

  /**
   * GCudaHostBuffer:alloc-flags: (getter get_alloc_flags)
   *
   * The flags page-locked memory was allocated with; none for registered
   * and aligned memory.
   *
   * Since: 1.0
   */
  properties[PROP_ALLOC_FLAGS] = g_param_spec_flags ("alloc-flags", NULL, NULL, GCUDA_TYPE_HOST_ALLOC_FLAGS,
                                                     GCUDA_HOST_ALLOC_FLAGS_DEFAULT, ro);

  /**
   * GCudaHostBuffer:register-flags: (getter get_register_flags)
   *
   * The flags registered memory was registered with; none for page-locked
   * and aligned memory.
   *
   * Since: 1.0
   */
  properties[PROP_REGISTER_FLAGS] = g_param_spec_flags ("register-flags", NULL, NULL, GCUDA_TYPE_HOST_REGISTER_FLAGS,
                                                        GCUDA_HOST_REGISTER_FLAGS_DEFAULT, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_host_buffer_init (GCudaHostBuffer *self)
{
}

static GCudaHostBuffer *
host_buffer_wrap (GCudaContext        *context,
                  void                *ptr,
                  guint64              size,
                  GCudaHostBufferKind  kind,
                  guint                flags)
{
  GCudaHostBuffer *self = g_object_new (GCUDA_TYPE_HOST_BUFFER, NULL);

  self->context = context ? g_object_ref (context) : NULL;
  self->ptr = ptr;
  self->size = size;
  self->kind = kind;
  self->flags = flags;
  return self;
}

GCudaHostBuffer *
_gcuda_host_buffer_new_pooled (GCudaContext          *context,
                               void                  *ptr,
                               guint64                size,
                               guint                  flags,
                               GObject               *pool,
                               GCudaPoolReleaseFunc   release,
                               gpointer               data)
{
  GCudaHostBuffer *self = host_buffer_wrap (context, ptr, size, GCUDA_HOST_BUFFER_KIND_PAGELOCKED, flags);

  self->pool = g_object_ref (pool);
  self->release = release;
  self->release_data = data;
  return self;
}

static gboolean
check_size (guint64   size,
            GError  **error)
{
  if (size == 0 || size > G_MAXSIZE)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Cannot allocate %" PRIu64 " bytes of host memory"), size);
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_host_buffer_new_pagelocked:
 * @context: (nullable): the context, or %NULL for the default context
 * @size: the size in bytes, at least 1
 * @flags: allocation flags
 * @error: return location for a [struct@GLib.Error]
 *
 * Allocates page-locked host memory (PyCUDA's `pagelocked_empty()`).
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaHostBuffer *
gcuda_host_buffer_new_pagelocked (GCudaContext         *context,
                                  guint64               size,
                                  GCudaHostAllocFlags   flags,
                                  GError              **error)
{
  const guint known = GCUDA_HOST_ALLOC_FLAGS_PORTABLE | GCUDA_HOST_ALLOC_FLAGS_DEVICEMAP |
                      GCUDA_HOST_ALLOC_FLAGS_WRITECOMBINED;
  g_autoptr(GCudaContext) ctx = NULL;
  void *ptr = NULL;

  if ((flags & ~known) != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown host allocation flags 0x%x"), flags & ~known);
      return NULL;
    }
  if (!check_size (size, error) || (ctx = _gcuda_context_resolve (context, error)) == NULL ||
      !GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuMemHostAlloc (&ptr, size, flags), "cuMemHostAlloc", error))
    return NULL;
  return host_buffer_wrap (ctx, ptr, size, GCUDA_HOST_BUFFER_KIND_PAGELOCKED, flags);
}

/**
 * gcuda_host_buffer_new_aligned:
 * @size: the size in bytes, at least 1
 * @alignment: the alignment in bytes, a power of two (0 for the page size)
 * @error: return location for a [struct@GLib.Error]
 *
 * Allocates ordinary host memory at an address that is a multiple of @alignment
 * (PyCUDA's `aligned_empty()`). Needs no driver; page-aligned memory can later
 * be page-locked in place with [func@GCuda.HostBuffer.register]. Memory that
 * cannot be allocated is
 * [GCUDA_DRIVER_ERROR_OUT_OF_MEMORY][error@GCuda.DriverError], as for
 * [ctor@GCuda.HostBuffer.new_pagelocked].
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaHostBuffer *
gcuda_host_buffer_new_aligned (guint64   size,
                               guint64   alignment,
                               GError  **error)
{
  void *ptr = NULL;

  if (alignment == 0)
    alignment = (guint64) sysconf (_SC_PAGESIZE);
  if ((alignment & (alignment - 1)) != 0 || alignment < sizeof (void *) || alignment > G_MAXSIZE)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The alignment must be a power of two of at least %u bytes, not %" PRIu64),
                   (guint) sizeof (void *), alignment);
      return NULL;
    }
  if (!check_size (size, error))
    return NULL;
  /* Half the address space or more: no address but 0 has that alignment,
   * so nothing to ask the allocator (ASan's aborts on it instead of failing) */
  if (alignment > G_MAXSIZE / 2 || posix_memalign (&ptr, alignment, size) != 0)
    {
      g_autofree char *bytes = g_strdup_printf ("%" PRIu64, size);
      g_autofree char *align = g_strdup_printf ("%" PRIu64, alignment);

      /* the code page-locked memory has for the same failure: one check
       * (and a GCuda.MemoryError in Python) for running out of host memory */
      g_set_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_OUT_OF_MEMORY,
                   _("Could not allocate %s bytes of host memory aligned to %s bytes"), bytes, align);
      return NULL;
    }
  return host_buffer_wrap (NULL, ptr, size, GCUDA_HOST_BUFFER_KIND_ALIGNED, 0);
}

/**
 * gcuda_host_buffer_register:
 * @context: (nullable): the context, or %NULL for the default context
 * @address: the page-aligned start of existing host memory
 * @size: the size in bytes, at least 1
 * @flags: registration flags
 * @error: return location for a [struct@GLib.Error]
 *
 * Page-locks existing host memory in place (PyCUDA's
 * `register_host_memory()`), until [method@GCuda.HostBuffer.unregister] or the
 * last reference goes. The memory stays the caller's: it must outlive the
 * returned buffer. An address that is not page-aligned is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: (transfer full): the buffer, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaHostBuffer *
gcuda_host_buffer_register (GCudaContext            *context,
                            guint64                  address,
                            guint64                  size,
                            GCudaHostRegisterFlags   flags,
                            GError                 **error)
{
  const guint known = GCUDA_HOST_REGISTER_FLAGS_PORTABLE | GCUDA_HOST_REGISTER_FLAGS_DEVICEMAP |
                      GCUDA_HOST_REGISTER_FLAGS_IOMEMORY | GCUDA_HOST_REGISTER_FLAGS_READ_ONLY;
  const guint64 page = (guint64) sysconf (_SC_PAGESIZE);
  g_autoptr(GCudaContext) ctx = NULL;

  if ((flags & ~known) != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown host registration flags 0x%x"), flags & ~known);
      return NULL;
    }
  if (address == 0 || address % page != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Host memory to register must start on a page boundary (%" PRIu64
                     " bytes); 0x%" PRIx64 " does not: allocate it with HostBuffer.new_aligned()"),
                   page, address);
      return NULL;
    }
  if (size == 0 || size > G_MAXSIZE)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Cannot register %" PRIu64 " bytes"), size);
      return NULL;
    }
  if ((ctx = _gcuda_context_resolve (context, error)) == NULL ||
      !GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuMemHostRegister (GSIZE_TO_POINTER (address), size, flags),
                           "cuMemHostRegister", error))
    return NULL;
  return host_buffer_wrap (ctx, GSIZE_TO_POINTER (address), size, GCUDA_HOST_BUFFER_KIND_REGISTERED, flags);
}

gboolean
_gcuda_host_buffer_check (GCudaHostBuffer  *self,
                          GError          **error)
{
  if (!GCUDA_IS_HOST_BUFFER (self) || self->ptr == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.HostBuffer made by one of its constructors"));
      return FALSE;
    }
  if (g_atomic_int_get (&self->freed))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_FREED,
                   _("The host buffer at 0x%" PRIx64 " was freed or unregistered"),
                   (guint64) (guintptr) self->ptr);
      return FALSE;
    }
  /* Page-locked memory is retired with its context. */
  if (self->kind == GCUDA_HOST_BUFFER_KIND_PAGELOCKED && gcuda_context_is_destroyed (self->context))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED,
                           _("The page-locked memory's context was destroyed"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
host_buffer_check_range (GCudaHostBuffer  *self,
                         guint64           offset,
                         guint64           size,
                         GError          **error)
{
  return _gcuda_host_buffer_check (self, error) &&
         _gcuda_check_range (offset, size, self->size, _("the host buffer"), error);
}

/**
 * gcuda_host_buffer_get_context: (get-property context)
 * @self: a [class@GCuda.HostBuffer]
 *
 * Gets the context page-locked or registered memory belongs to.
 *
 * Returns: (transfer none) (nullable): the context, %NULL for aligned memory
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_host_buffer_get_context (GCudaHostBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_HOST_BUFFER (self), NULL);
  return self->context;
}

/**
 * gcuda_host_buffer_get_address: (get-property address)
 * @self: a [class@GCuda.HostBuffer]
 *
 * Gets the host address of the buffer's first byte.
 *
 * Returns: the host address of the first byte
 *
 * Since: 1.0
 */
guint64
gcuda_host_buffer_get_address (GCudaHostBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_HOST_BUFFER (self), 0);
  return (guint64) (guintptr) self->ptr;
}

/**
 * gcuda_host_buffer_get_size: (get-property size)
 * @self: a [class@GCuda.HostBuffer]
 *
 * Gets the size of the buffer in bytes.
 *
 * Returns: the size in bytes
 *
 * Since: 1.0
 */
guint64
gcuda_host_buffer_get_size (GCudaHostBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_HOST_BUFFER (self), 0);
  return self->size;
}

/**
 * gcuda_host_buffer_get_kind: (get-property kind)
 * @self: a [class@GCuda.HostBuffer]
 *
 * Gets where the memory comes from: page-locked, aligned or registered.
 *
 * Returns: where the memory comes from
 *
 * Since: 1.0
 */
GCudaHostBufferKind
gcuda_host_buffer_get_kind (GCudaHostBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_HOST_BUFFER (self), GCUDA_HOST_BUFFER_KIND_PAGELOCKED);
  return self->kind;
}

/**
 * gcuda_host_buffer_get_alloc_flags: (get-property alloc-flags)
 * @self: a [class@GCuda.HostBuffer]
 *
 * Gets the flags page-locked memory was allocated with (PyCUDA's
 * `PagelockedHostAllocation.get_flags()`).
 *
 * Returns: the allocation flags; none for registered and aligned memory
 *
 * Since: 1.0
 */
GCudaHostAllocFlags
gcuda_host_buffer_get_alloc_flags (GCudaHostBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_HOST_BUFFER (self), 0);
  return self->kind == GCUDA_HOST_BUFFER_KIND_PAGELOCKED ? (GCudaHostAllocFlags) self->flags : 0;
}

/**
 * gcuda_host_buffer_get_register_flags: (get-property register-flags)
 * @self: a [class@GCuda.HostBuffer]
 *
 * Gets the flags registered memory was registered with.
 *
 * Returns: the registration flags; none for page-locked and aligned memory
 *
 * Since: 1.0
 */
GCudaHostRegisterFlags
gcuda_host_buffer_get_register_flags (GCudaHostBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_HOST_BUFFER (self), 0);
  return self->kind == GCUDA_HOST_BUFFER_KIND_REGISTERED ? (GCudaHostRegisterFlags) self->flags : 0;
}

/**
 * gcuda_host_buffer_get_device_address:
 * @self: page-locked memory allocated or registered with DEVICEMAP
 * @error: return location for a [struct@GLib.Error]
 *
 * The address kernels use to reach this host memory (PyCUDA's
 * `get_device_pointer()`). Memory not mapped into the device address space
 * is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: the device address, or 0 with @error set
 *
 * Since: 1.0
 */
guint64
gcuda_host_buffer_get_device_address (GCudaHostBuffer  *self,
                                      GError          **error)
{
  CUdeviceptr dptr = 0;

  if (!_gcuda_host_buffer_check (self, error))
    return 0;
  if (self->kind == GCUDA_HOST_BUFFER_KIND_ALIGNED || !(self->flags & GCUDA_HOST_ALLOC_FLAGS_DEVICEMAP))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Only page-locked memory made with DEVICEMAP has a device address"));
      return 0;
    }
  if (!GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuMemHostGetDevicePointer (&dptr, self->ptr, 0),
                           "cuMemHostGetDevicePointer", error))
    return 0;
  return dptr;
}

/**
 * gcuda_host_buffer_is_freed:
 * @self: a [class@GCuda.HostBuffer]
 *
 * Checks whether the memory was released with [method@GCuda.HostBuffer.free] or
 * unregistered with [method@GCuda.HostBuffer.unregister].
 *
 * Returns: %TRUE once the memory was freed or unregistered
 *
 * Since: 1.0
 */
gboolean
gcuda_host_buffer_is_freed (GCudaHostBuffer *self)
{
  g_return_val_if_fail (GCUDA_IS_HOST_BUFFER (self), TRUE);
  return g_atomic_int_get (&self->freed);
}

/**
 * gcuda_host_buffer_free:
 * @self: a [class@GCuda.HostBuffer]
 * @error: return location for a [struct@GLib.Error]
 *
 * Releases the memory now (or unregisters registered memory, which stays
 * the caller's); a pooled buffer goes back to its pool. Any later use is
 * [GCUDA_ERROR_FREED][error@GCuda.Error].
 *
 * While exports of the memory live ([method@GCuda.HostBuffer.export_begin]:
 * in Python, numpy arrays and memoryviews over it) the buffer is retired at
 * once but the memory is released when the last export ends, so that they
 * never reach released memory.
 *
 * Freeing the same buffer twice is [GCUDA_ERROR_FREED][error@GCuda.Error], as
 * in PyCUDA: it points at a mistake in the caller's bookkeeping, which the
 * second call must not hide. Nothing is released twice.
 *
 * Returns: %TRUE if the memory was released, %FALSE with @error set if
 *   it had been freed already
 *
 * Since: 1.0
 */
gboolean
gcuda_host_buffer_free (GCudaHostBuffer  *self,
                        GError          **error)
{
  if (!GCUDA_IS_HOST_BUFFER (self))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.HostBuffer"));
      return FALSE;
    }
  /* made by hand: nothing to free, as every other call says */
  if (self->ptr == NULL)
    return _gcuda_host_buffer_check (self, error);
  if (!g_atomic_int_compare_and_exchange (&self->freed, FALSE, TRUE))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_FREED, _("The host buffer was freed already"));
      return FALSE;
    }
  /* freed is set before exports is read: see export_end() */
  if (g_atomic_int_get (&self->exports) == 0)
    host_buffer_release (self);
  return TRUE;
}

/**
 * gcuda_host_buffer_export_begin:
 * @self: a [class@GCuda.HostBuffer]
 * @error: return location for a [struct@GLib.Error]
 *
 * Declares a use of the memory through its address that outlives GCuda's
 * calls: an array or view over it in a binding, a pointer handed to another
 * library. Until the matching [method@GCuda.HostBuffer.export_end] the
 * memory stays allocated: [method@GCuda.HostBuffer.free] retires the buffer
 * (every GCuda call on it is [GCUDA_ERROR_FREED][error@GCuda.Error]) and
 * leaves the release to the last export's end ([method@GCuda.Context.destroy]
 * never releases memory under a live buffer). Keep a reference to @self for
 * as long as the export lives; the last reference going ends every export
 * left.
 *
 * The Python override makes one export for a host buffer's numpy arrays,
 * memoryviews and `__array_interface__` (see the class documentation).
 *
 * Freed memory is [GCUDA_ERROR_FREED][error@GCuda.Error], page-locked memory of
 * a destroyed context [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error].
 *
 * Returns: %TRUE with the export made, %FALSE with @error set
 *
 * Since: 1.0
 */
gboolean
gcuda_host_buffer_export_begin (GCudaHostBuffer  *self,
                                GError          **error)
{
  if (!_gcuda_host_buffer_check (self, error))
    return FALSE;
  g_atomic_int_inc (&self->exports);
  /* exports is raised before freed is read: a free() on another thread
   * meanwhile either saw the export or is seen here */
  if (!_gcuda_host_buffer_check (self, error))
    {
      gcuda_host_buffer_export_end (self, NULL);
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_host_buffer_export_end:
 * @self: a [class@GCuda.HostBuffer]
 * @error: return location for a [struct@GLib.Error]
 *
 * Ends an export made with [method@GCuda.HostBuffer.export_begin]: after the
 * last one, memory that was freed meanwhile is released. Ending more exports
 * than were made is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and
 * changes nothing.
 *
 * Returns: %TRUE with the export ended, %FALSE with @error set
 *
 * Since: 1.0
 */
gboolean
gcuda_host_buffer_export_end (GCudaHostBuffer  *self,
                              GError          **error)
{
  int exports;

  if (!GCUDA_IS_HOST_BUFFER (self) || self->ptr == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.HostBuffer made by one of its constructors"));
      return FALSE;
    }
  do
    {
      exports = g_atomic_int_get (&self->exports);
      if (exports == 0)
        {
          g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                               _("The host buffer has no export to end: every export_end() needs an export_begin()"));
          return FALSE;
        }
    }
  while (!g_atomic_int_compare_and_exchange (&self->exports, exports, exports - 1));

  /* the last one: exports dropped before freed is read, see free() */
  if (exports == 1 && g_atomic_int_get (&self->freed))
    host_buffer_release (self);
  return TRUE;
}

/**
 * gcuda_host_buffer_unregister:
 * @self: memory page-locked with [func@GCuda.HostBuffer.register]
 * @error: return location for a [struct@GLib.Error]
 *
 * Undoes [func@GCuda.HostBuffer.register] (PyCUDA's `unregister()`); the
 * memory stays the caller's, the buffer is retired. Other kinds of host
 * buffer are [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_host_buffer_unregister (GCudaHostBuffer  *self,
                              GError          **error)
{
  if (!_gcuda_host_buffer_check (self, error))
    return FALSE;
  if (self->kind != GCUDA_HOST_BUFFER_KIND_REGISTERED)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Only memory registered with HostBuffer.register() can be unregistered"));
      return FALSE;
    }
  return gcuda_host_buffer_free (self, error);
}

/**
 * gcuda_host_buffer_read:
 * @self: a [class@GCuda.HostBuffer]
 * @offset: where to read, in bytes from the start
 * @size: the number of bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * A copy of part of the memory, for languages without pointers.
 *
 * Returns: (transfer full): the bytes, or %NULL with @error set
 *
 * Since: 1.0
 */
GBytes *
gcuda_host_buffer_read (GCudaHostBuffer  *self,
                        guint64           offset,
                        guint64           size,
                        GError          **error)
{
  if (!host_buffer_check_range (self, offset, size, error))
    return NULL;
  return g_bytes_new ((const guint8 *) self->ptr + offset, size);
}

/**
 * gcuda_host_buffer_write:
 * @self: a [class@GCuda.HostBuffer]
 * @offset: where to write, in bytes from the start
 * @bytes: the bytes to write
 * @error: return location for a [struct@GLib.Error]
 *
 * Copies @bytes into the memory, for languages without pointers.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_host_buffer_write (GCudaHostBuffer  *self,
                         guint64           offset,
                         GBytes           *bytes,
                         GError          **error)
{
  gconstpointer data;
  gsize size = 0;

  if (bytes == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("No data given"));
      return FALSE;
    }
  data = g_bytes_get_data (bytes, &size);
  if (!host_buffer_check_range (self, offset, size, error))
    return FALSE;
  if (size > 0)
    memcpy ((guint8 *) self->ptr + offset, data, size);
  return TRUE;
}
