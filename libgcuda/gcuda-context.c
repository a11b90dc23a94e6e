/* gcuda-context.c: a CUDA context
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>

#include <glib/gstdio.h>

#include "gcuda-error-private.h"
#include "gcuda-async-private.h"
#include "gcuda-context-private.h"
#include "gcuda-device-private.h"

/**
 * GCudaContext:
 *
 * A CUDA context (PyCUDA's `Context`).
 *
 * ```c
 * static gboolean
 * print_free_memory (GError **error)
 * {
 *   g_autoptr(GCudaContext) context = gcuda_context_get_default (error);
 *   GError *local_error = NULL;
 *   guint64 free_bytes, total_bytes;
 *
 *   if (context == NULL)
 *     return FALSE;
 *   gcuda_context_get_memory_info (context, &free_bytes, &total_bytes, &local_error);
 *   if (local_error != NULL)
 *     {
 *       g_propagate_error (error, local_error);
 *       return FALSE;
 *     }
 *   g_print ("%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes free\n",
 *            gcuda_device_get_name (gcuda_context_get_device (context)),
 *            free_bytes, total_bytes);
 *   return TRUE;
 * }
 * ```
 *
 * In Python (`import gcuda.autoinit` also gives the default context, as
 * PyCUDA's `pycuda.autoinit` does):
 *
 * ```python
 * ctx = GCuda.Context.get_default()
 * free, total = ctx.get_memory_info()
 * ctx.set_limit(GCuda.Limit.STACK_SIZE, 4096)
 * ctx.synchronize()
 * ```
 *
 * In GJS the out values come back as an array, and a [struct@GLib.Error] is
 * thrown:
 *
 * ```js
 * try {
 *     const ctx = GCuda.Context.get_default();
 *     const [free, total] = ctx.get_memory_info();
 *     print(`${free} of ${total} bytes free`);
 * } catch (e) {
 *     printerr(e.message);  // e.matches(GCuda.error_quark(), GCuda.Error.DRIVER_NOT_FOUND), ...
 * }
 * ```
 *
 * In Vala they are `out` arguments, and errors are exceptions:
 *
 * ```vala
 * try {
 *     var ctx = GCuda.Context.get_default ();
 *     uint64 free, total;
 *     ctx.get_memory_info (out free, out total);
 *     print ("%" + uint64.FORMAT + " of %" + uint64.FORMAT + " bytes free\n", free, total);
 * } catch (GLib.Error e) {
 *     printerr ("%s\n", e.message);
 * }
 * ```
 *
 * GCuda has no context stack for users to manage: every object that lives in
 * a context holds a reference to its `GCudaContext`, and every method makes
 * that context current on the calling thread for the duration of its driver
 * calls, then restores whatever was current before. Any thread may use any
 * context at any time.
 *
 * Most programs use the default context ([func@GCuda.Context.get_default]), the
 * primary context of the device chosen by PyCUDA's `make_default_context()`
 * rules. Dedicated contexts come from [method@GCuda.Device.create_context].
 *
 * Every GCuda function that needs a context accepts %NULL for the calling
 * thread's default context ([func@GCuda.Context.get_thread_default]): the
 * context the thread last made current with [method@GCuda.Context.push] and
 * has not popped with [func@GCuda.Context.pop] yet (PyCUDA's current
 * context), else the process's default context. A thread that never pushes
 * anything always gets the default context. Pushing also makes the context
 * current in the driver, for code that expects a current context (another
 * CUDA library).
 *
 * Since: 1.0
 */

struct _GCudaContext
{
  GObject parent_instance;

  GCudaDevice *device;
  CUcontext handle;
  guint flags;
  guint is_primary : 1;
  int destroyed;  /* atomic: gcuda_context_destroy() was called */
  int released;   /* atomic: the driver's context was released, at finalize
                   * (see gcuda_context_destroy()) */

  GMutex streams_lock;     /* guards streams */
  GHashTable *streams;     /* CUstream set: every live GCudaStream of this context */
};

G_DEFINE_FINAL_TYPE (GCudaContext, gcuda_context, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_DEVICE,
  PROP_PRIMARY,
  PROP_FLAGS,
  PROP_HANDLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* CUcontext -> GWeakRef to its GCudaContext, for gcuda_context_get_current() */
static GMutex registry_lock;
static GHashTable *registry;

/* gcuda_context_get_default()'s choice, dropped by gcuda_context_destroy() */
static GMutex default_lock;
static GCudaContext *default_context;

/* Per thread: the contexts it pushed with gcuda_context_push() and has not
 * popped, the newest last, each with a reference (so a context on some
 * thread's stack is never released under it). The top is what NULL means
 * to that thread (_gcuda_context_resolve()). Dropped at thread exit. */
static void
thread_stack_free (gpointer data)
{
  g_ptr_array_unref (data);
}

static GPrivate thread_stack = G_PRIVATE_INIT (thread_stack_free);

static GPtrArray *
thread_stack_get (gboolean create)
{
  GPtrArray *stack = g_private_get (&thread_stack);

  if (stack == NULL && create)
    {
      stack = g_ptr_array_new_with_free_func (g_object_unref);
      g_private_set (&thread_stack, stack);
    }
  return stack;
}

/* The top of the calling thread's stack (no reference), or NULL. */
static GCudaContext *
thread_stack_top (void)
{
  GPtrArray *stack = g_private_get (&thread_stack);

  return stack != NULL && stack->len > 0 ? g_ptr_array_index (stack, stack->len - 1) : NULL;
}

/* Drops the top of the calling thread's stack if its driver context is
 * @handle. The reference goes last, once nothing refers to it any more. */
static void
thread_stack_pop_handle (CUcontext handle)
{
  GPtrArray *stack = g_private_get (&thread_stack);
  GCudaContext *top;

  if (stack == NULL || stack->len == 0)
    return;
  top = g_ptr_array_index (stack, stack->len - 1);
  if (top->handle == handle)
    g_ptr_array_remove_index (stack, stack->len - 1);
}

static void
free_weak_ref (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

static void
registry_add (GCudaContext *self)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (ref, self);
  g_mutex_lock (&registry_lock);
  if (registry == NULL)
    registry = g_hash_table_new_full (NULL, NULL, NULL, free_weak_ref);
  g_hash_table_insert (registry, self->handle, ref);
  g_mutex_unlock (&registry_lock);
}

static void
registry_remove (GCudaContext *self)
{
  GCudaContext *owner = NULL;
  GWeakRef *ref;

  g_mutex_lock (&registry_lock);
  ref = registry ? g_hash_table_lookup (registry, self->handle) : NULL;
  if (ref != NULL)
    {
      /* In finalize our weak refs are already cleared (owner NULL); a newer
       * object may own the same handle (a primary context retained again),
       * and its entry stays. */
      owner = g_weak_ref_get (ref);
      if (owner == NULL || owner == self)
        g_hash_table_remove (registry, self->handle);
    }
  g_mutex_unlock (&registry_lock);
  g_clear_object (&owner);  /* outside the lock: it may be the last reference */
}

static GCudaContext *
registry_lookup (CUcontext handle)
{
  GCudaContext *found = NULL;
  GWeakRef *ref;

  g_mutex_lock (&registry_lock);
  ref = registry ? g_hash_table_lookup (registry, handle) : NULL;
  if (ref != NULL)
    found = g_weak_ref_get (ref);
  g_mutex_unlock (&registry_lock);

  if (found != NULL && g_atomic_int_get (&found->destroyed))
    g_clear_object (&found);
  return found;
}

/* Releases the driver context; idempotent. */
static CUresult
release_handle (GCudaContext *self)
{
  const GCudaDriver *drv = GCUDA_DRV;

  if (!g_atomic_int_compare_and_exchange (&self->released, FALSE, TRUE))
    return CUDA_SUCCESS;

  if (self->is_primary)
    return drv->fn_cuDevicePrimaryCtxRelease (_gcuda_device_get_handle (self->device));
  else
    return drv->fn_cuCtxDestroy (self->handle);
}

static void
gcuda_context_finalize (GObject *object)
{
  GCudaContext *self = GCUDA_CONTEXT (object);

  if (self->handle != NULL)
    {
      registry_remove (self);
      /* Every object made in the context held a reference: they are all
       * gone, having given back what they held, so the context goes now,
       * destroyed or not. Errors are ignored on purpose: at process exit the
       * driver may already be shut down (CUDA_ERROR_DEINITIALIZED), and a
       * finalizer must never abort. Neither call needs the context to be
       * current. */
      release_handle (self);
    }
  g_clear_object (&self->device);
  g_clear_pointer (&self->streams, g_hash_table_unref);
  g_mutex_clear (&self->streams_lock);

  G_OBJECT_CLASS (gcuda_context_parent_class)->finalize (object);
}

static void
gcuda_context_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  GCudaContext *self = GCUDA_CONTEXT (object);

  switch (prop_id)
    {
    case PROP_DEVICE:
      g_value_set_object (value, self->device);
      break;
    case PROP_PRIMARY:
      g_value_set_boolean (value, self->is_primary);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_HANDLE:
      g_value_set_uint64 (value, (guint64) (guintptr) self->handle);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_context_class_init (GCudaContextClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_context_finalize;
  object_class->get_property = gcuda_context_get_property;

  /**
   * GCudaContext:device: (getter get_device)
   *
   * The device the context runs on.
   *
   * Since: 1.0
   */
  properties[PROP_DEVICE] = g_param_spec_object ("device", NULL, NULL, GCUDA_TYPE_DEVICE, ro);

  /**
   * GCudaContext:primary: (getter is_primary)
   *
   * Whether this is the device's primary context (see
   * [method@GCuda.Context.is_primary]).
   *
   * Since: 1.0
   */
  properties[PROP_PRIMARY] = g_param_spec_boolean ("primary", NULL, NULL, FALSE, ro);

  /**
   * GCudaContext:flags: (getter get_flags)
   *
   * The flags the context was created with.
   *
   * Since: 1.0
   */
  properties[PROP_FLAGS] = g_param_spec_flags ("flags", NULL, NULL, GCUDA_TYPE_CONTEXT_FLAGS, 0, ro);

  /**
   * GCudaContext:handle: (getter get_handle)
   *
   * The driver's `CUcontext`, as an integer, for interoperation with other
   * CUDA libraries (CuPy, cuda.core, PyTorch).
   *
   * Since: 1.0
   */
  properties[PROP_HANDLE] = g_param_spec_uint64 ("handle", NULL, NULL, 0, G_MAXUINT64, 0, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_context_init (GCudaContext *self)
{
  g_mutex_init (&self->streams_lock);
  self->streams = g_hash_table_new (NULL, NULL);
}

static G_NO_INLINE gboolean
context_check (GCudaContext  *self,
               GError       **error)
{
  if (G_UNLIKELY (self->handle == NULL))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("This GCuda.Context has no CUDA context behind it: obtain contexts from "
                             "Context.get_default() or from a device"));
      return FALSE;
    }
  if (G_UNLIKELY (g_atomic_int_get (&self->destroyed)))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED,
                           _("The CUDA context was destroyed"));
      return FALSE;
    }
  return TRUE;
}

gboolean
_gcuda_context_enter (GCudaContext       *self,
                      GCudaContextScope  *scope,
                      GError            **error)
{
  const GCudaDriver *drv = GCUDA_DRV;
  CUcontext current = NULL;

  scope->pushed = NULL;
  /* Every launch and stream-ordered allocation comes here: the checks
   * inline, the errors out of line. */
  if (G_UNLIKELY (self->handle == NULL || g_atomic_int_get (&self->destroyed)))
    return context_check (self, error);

  if (drv->fn_cuCtxGetCurrent (&current) == CUDA_SUCCESS && current == self->handle)
    return TRUE;

  if (!GCUDA_CHECK (drv->fn_cuCtxPushCurrent (self->handle), "cuCtxPushCurrent", error))
    return FALSE;
  scope->pushed = self->handle;
  return TRUE;
}

gboolean
_gcuda_context_enter_release (GCudaContext       *self,
                              GCudaContextScope  *scope)
{
  const GCudaDriver *drv = GCUDA_DRV;
  CUcontext current = NULL;

  scope->pushed = NULL;
  /* Destroyed or not: what matters is whether the driver still has it. */
  if (self == NULL || self->handle == NULL || g_atomic_int_get (&self->released))
    return FALSE;
  if (drv->fn_cuCtxGetCurrent (&current) == CUDA_SUCCESS && current == self->handle)
    return TRUE;
  if (drv->fn_cuCtxPushCurrent (self->handle) != CUDA_SUCCESS)
    return FALSE;
  scope->pushed = self->handle;
  return TRUE;
}

gboolean
_gcuda_context_enter_for_stream (GCudaContext       *self,
                                 CUstream            stream,
                                 GCudaContextScope  *scope,
                                 GError            **error)
{
  if (_gcuda_stream_handle_is_default (stream))
    return _gcuda_context_enter (self, scope, error);
  scope->pushed = NULL;
  if (G_UNLIKELY (self->handle == NULL || g_atomic_int_get (&self->destroyed)))
    return context_check (self, error);
  return TRUE;
}

gboolean
_gcuda_context_enter_release_for_stream (GCudaContext      *self,
                                         CUstream           stream,
                                         GCudaContextScope *scope)
{
  if (_gcuda_stream_handle_is_default (stream))
    return _gcuda_context_enter_release (self, scope);
  scope->pushed = NULL;
  return self != NULL && self->handle != NULL && !g_atomic_int_get (&self->released);
}

gboolean
_gcuda_context_is_released (GCudaContext *self)
{
  return g_atomic_int_get (&self->released);
}

gboolean
_gcuda_context_is_destroyed_internal (GCudaContext *self)
{
  return g_atomic_int_get (&self->destroyed);
}

void
_gcuda_context_leave (GCudaContextScope *scope)
{
  CUcontext popped = NULL;

  if (scope->pushed != NULL)
    GCUDA_DRV->fn_cuCtxPopCurrent (&popped);
  scope->pushed = NULL;
}

CUcontext
_gcuda_context_get_handle_internal (GCudaContext *self)
{
  return self->handle;
}

GCudaContext *
_gcuda_context_new_primary (GCudaDevice *device,
                            GError     **error)
{
  const GCudaDriver *drv = GCUDA_DRV;
  CUdevice dev = _gcuda_device_get_handle (device);
  GCudaContext *self;
  CUcontext handle = NULL;
  unsigned int flags = 0;
  int active = 0;

  if (!GCUDA_CHECK (drv->fn_cuDevicePrimaryCtxRetain (&handle, dev), "cuDevicePrimaryCtxRetain", error))
    return NULL;
  drv->fn_cuDevicePrimaryCtxGetState (dev, &flags, &active);

  self = g_object_new (GCUDA_TYPE_CONTEXT, NULL);
  self->device = g_object_ref (device);
  self->handle = handle;
  self->flags = flags;
  self->is_primary = TRUE;
  registry_add (self);
  return self;
}

GCudaContext *
_gcuda_context_new_owned (GCudaDevice *device,
                          CUcontext    handle,
                          guint        flags)
{
  GCudaContext *self = g_object_new (GCUDA_TYPE_CONTEXT, NULL);

  self->device = g_object_ref (device);
  self->handle = handle;
  self->flags = flags;
  registry_add (self);
  return self;
}

/* The most a device file may hold: a device number and some blanks. */
#define DEVICE_FILE_MAX 64

/* Reads ~/.cuda_device (or another @path) for make_default_context(). Any
 * thread asking for the default context comes here, so nothing may block or
 * grow without bound: the file is opened without waiting (a FIFO there would
 * hang every caller), only a regular file is read (/dev/zero would never
 * end), and only DEVICE_FILE_MAX bytes of it. Returns the stripped text, or
 * NULL: with @error set when the file is there but unusable, without when
 * it is absent. */
static char *
read_device_file (const char  *path,
                  const char  *name,
                  GError     **error)
{
  char text[DEVICE_FILE_MAX + 1];
  struct stat st;
  gssize got = 0;
  int fd;

  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      int saved = errno;

      if (saved == ENOENT || saved == ENOTDIR)
        return NULL;
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Could not read ~/%s to choose the CUDA device: %s"), name, g_strerror (saved));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("~/%s is not a regular file: it must hold the number of the CUDA device to use"), name);
      close (fd);
      return NULL;
    }
  while (got < (gssize) sizeof text - 1)
    {
      gssize n = read (fd, text + got, sizeof text - 1 - got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += n;
    }
  close (fd);
  if (got == (gssize) sizeof text - 1)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("~/%s is too long: it must hold only the number of the CUDA device to use"), name);
      return NULL;
    }
  text[got] = '\0';
  return g_strstrip (g_strdup (text));
}

/* What make_default_context() is asked for: CUDA_DEVICE, else ~/.cuda_device
 * (or ~/.cuda-device), else nothing (the first device that works). Read
 * before the default context's lock is taken: a slow home directory (NFS,
 * say) then delays only this caller. FALSE with @error set when a device
 * file is there but unusable. */
static gboolean
read_device_choice (char       **choice,
                    const char **source,
                    GError     **error)
{
  const char *names[] = { ".cuda_device", ".cuda-device" };
  const char *env = g_getenv ("CUDA_DEVICE");

  *choice = NULL;
  *source = "CUDA_DEVICE";
  if (env != NULL)
    {
      *choice = g_strdup (env);
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (g_get_home_dir (), names[i], NULL);
      GError *local = NULL;

      *choice = read_device_file (path, names[i], &local);
      if (local != NULL)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      if (*choice != NULL)
        {
          *source = names[i];
          return TRUE;
        }
    }
  return TRUE;
}

/* PyCUDA's make_default_context(): @choice (from read_device_choice()), else
 * the first device whose primary context works. */
static GCudaContext *
make_default_context (const char  *choice,
                      const char  *source,
                      GError     **error)
{
  int count = gcuda_device_get_count (error);

  if (count < 0)
    return NULL;
  if (count == 0)
    {
      g_set_error_literal (error, GCUDA_DRIVER_ERROR, CUDA_ERROR_NO_DEVICE,
                           _("No CUDA device found: check the NVIDIA driver installation"));
      return NULL;
    }

  if (choice != NULL)
    {
      g_autoptr(GCudaDevice) device = NULL;
      gint64 ordinal;

      if (!g_ascii_string_to_signed (choice, 10, 0, G_MAXINT, &ordinal, NULL))
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                       _("The CUDA device number in %s must be a non-negative integer, not “%s”"),
                       source, choice);
          return NULL;
        }
      device = gcuda_device_get ((int) ordinal, error);
      return device ? gcuda_device_get_primary_context (device, error) : NULL;
    }

  for (int i = 0; i < count; i++)
    {
      g_autoptr(GCudaDevice) device = gcuda_device_get (i, NULL);
      GCudaContext *context = device ? gcuda_device_get_primary_context (device, NULL) : NULL;

      if (context != NULL)
        return context;
    }

  g_set_error (error, GCUDA_DRIVER_ERROR, CUDA_ERROR_NO_DEVICE,
               _("No context could be created on any of the %d CUDA devices"), count);
  return NULL;
}

/**
 * gcuda_context_get_default:
 * @error: return location for a [struct@GLib.Error]
 *
 * The process's default context: the primary context of the device chosen
 * by PyCUDA's `make_default_context()` rules — the ordinal in the
 * `CUDA_DEVICE` environment variable, else the one in `~/.cuda_device` (or
 * `~/.cuda-device`), else the first device that works. It is chosen once and
 * kept for the life of the process (until destroyed with
 * [method@GCuda.Context.destroy], after which a new one is made).
 *
 * Every GCuda function that takes a nullable context uses this one for %NULL,
 * unless the calling thread pushed a context of its own (see
 * [func@GCuda.Context.get_thread_default]).
 *
 * Returns: (transfer full): the default context, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_context_get_default (GError **error)
{
  g_autofree char *choice = NULL;
  const char *source;
  GCudaContext *context = NULL;

  g_mutex_lock (&default_lock);
  if (default_context != NULL && !g_atomic_int_get (&default_context->destroyed))
    context = g_object_ref (default_context);
  g_mutex_unlock (&default_lock);
  if (context != NULL)
    return context;

  /* outside the lock: no file read holds up the other threads */
  if (!read_device_choice (&choice, &source, error))
    return NULL;

  g_mutex_lock (&default_lock);
  if (default_context == NULL || g_atomic_int_get (&default_context->destroyed))
    {
      g_clear_object (&default_context);
      default_context = make_default_context (choice, source, error);
    }
  context = default_context ? g_object_ref (default_context) : NULL;
  g_mutex_unlock (&default_lock);

  return context;
}

/* A destroyed default context is not kept: the driver's context goes with
 * the object, and that must not wait for the next
 * gcuda_context_get_default(). */
static void
default_forget (GCudaContext *self)
{
  GCudaContext *dropped = NULL;

  g_mutex_lock (&default_lock);
  if (default_context == self)
    dropped = g_steal_pointer (&default_context);
  g_mutex_unlock (&default_lock);
  g_clear_object (&dropped);  /* not the last reference: the caller has one */
}

/**
 * gcuda_context_get_device: (get-property device)
 * @self: a [class@GCuda.Context]
 *
 * Gets the device the context runs on.
 *
 * Returns: (transfer none): the context's device
 *
 * Since: 1.0
 */
GCudaDevice *
gcuda_context_get_device (GCudaContext *self)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), NULL);
  return self->device;
}

/**
 * gcuda_context_is_primary: (get-property primary)
 * @self: a [class@GCuda.Context]
 *
 * Checks whether this is its device's primary context, the one the CUDA runtime
 * and other libraries share.
 *
 * Returns: %TRUE for a device's primary context
 *
 * Since: 1.0
 */
gboolean
gcuda_context_is_primary (GCudaContext *self)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), FALSE);
  return self->is_primary;
}

/**
 * gcuda_context_get_flags: (get-property flags)
 * @self: a [class@GCuda.Context]
 *
 * Gets the flags the context was created with.
 *
 * Returns: the flags the context was created with
 *
 * Since: 1.0
 */
GCudaContextFlags
gcuda_context_get_flags (GCudaContext *self)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), 0);
  return (GCudaContextFlags) self->flags;
}

/**
 * gcuda_context_get_handle: (get-property handle)
 * @self: a [class@GCuda.Context]
 *
 * Gets the driver's `CUcontext`, for handing the context to another CUDA
 * library.
 *
 * Returns: the `CUcontext` as an integer, see [property@GCuda.Context:handle]
 *
 * Since: 1.0
 */
guint64
gcuda_context_get_handle (GCudaContext *self)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), 0);
  return (guint64) (guintptr) self->handle;
}

/**
 * gcuda_context_is_destroyed:
 * @self: a [class@GCuda.Context]
 *
 * Checks whether the context was destroyed. Every later use of a destroyed
 * context, or of objects in it, fails with
 * [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error].
 *
 * Returns: %TRUE once [method@GCuda.Context.destroy] was called
 *
 * Since: 1.0
 */
gboolean
gcuda_context_is_destroyed (GCudaContext *self)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), TRUE);
  return g_atomic_int_get (&self->destroyed);
}

/**
 * gcuda_context_synchronize:
 * @self: a [class@GCuda.Context]
 * @error: return location for a [struct@GLib.Error]
 *
 * Blocks until all work queued in the context has finished (PyCUDA's
 * `Context.synchronize()`). Errors of earlier asynchronous work, such as a
 * kernel that faulted, are reported here.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_context_synchronize (GCudaContext  *self,
                           GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), FALSE);
  return GCUDA_CONTEXT_CALL (self, GCUDA_DRV->fn_cuCtxSynchronize (), "cuCtxSynchronize", error);
}

static gboolean
check_limit (GCudaLimit   limit,
             GError     **error)
{
  if ((guint) limit >= CU_LIMIT_MAX)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%d is not a context limit (see GCuda.Limit)"), (int) limit);
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_context_get_limit:
 * @self: a [class@GCuda.Context]
 * @limit: the limit to read
 * @error: return location for a [struct@GLib.Error]
 *
 * Reads a context limit (PyCUDA's `Context.get_limit()`).
 *
 * Returns: the limit's value, or 0 with @error set
 *
 * Since: 1.0
 */
guint64
gcuda_context_get_limit (GCudaContext  *self,
                         GCudaLimit     limit,
                         GError       **error)
{
  size_t value = 0;

  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), 0);

  if (!check_limit (limit, error) ||
      !GCUDA_CONTEXT_CALL (self, GCUDA_DRV->fn_cuCtxGetLimit (&value, (CUlimit) limit), "cuCtxGetLimit", error))
    return 0;
  return value;
}

/**
 * gcuda_context_set_limit:
 * @self: a [class@GCuda.Context]
 * @limit: the limit to change
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Changes a context limit (PyCUDA's `Context.set_limit()`). The driver may
 * round the value; read it back with [method@GCuda.Context.get_limit].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_context_set_limit (GCudaContext  *self,
                         GCudaLimit     limit,
                         guint64        value,
                         GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), FALSE);

  return check_limit (limit, error) &&
         GCUDA_CONTEXT_CALL (self, GCUDA_DRV->fn_cuCtxSetLimit ((CUlimit) limit, (size_t) value),
                             "cuCtxSetLimit", error);
}

/**
 * gcuda_context_get_cache_config:
 * @self: a [class@GCuda.Context]
 * @error: return location for a [struct@GLib.Error]
 *
 * The context's preferred split between L1 cache and shared memory.
 *
 * Returns: the preference
 *
 * Since: 1.0
 */
GCudaCacheConfig
gcuda_context_get_cache_config (GCudaContext  *self,
                                GError       **error)
{
  CUfunc_cache config = CU_FUNC_CACHE_PREFER_NONE;

  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), GCUDA_CACHE_CONFIG_PREFER_NONE);
  if (!GCUDA_CONTEXT_CALL (self, GCUDA_DRV->fn_cuCtxGetCacheConfig (&config), "cuCtxGetCacheConfig", error))
    return GCUDA_CACHE_CONFIG_PREFER_NONE;
  return (GCudaCacheConfig) config;
}

/**
 * gcuda_context_set_cache_config:
 * @self: a [class@GCuda.Context]
 * @config: the preference
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets the context's preferred split between L1 cache and shared memory.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_context_set_cache_config (GCudaContext      *self,
                                GCudaCacheConfig   config,
                                GError           **error)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), FALSE);

  if ((guint) config > GCUDA_CACHE_CONFIG_PREFER_EQUAL)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%d is not a cache configuration (see GCuda.CacheConfig)"), (int) config);
      return FALSE;
    }
  return GCUDA_CONTEXT_CALL (self, GCUDA_DRV->fn_cuCtxSetCacheConfig ((CUfunc_cache) config),
                             "cuCtxSetCacheConfig", error);
}

/**
 * gcuda_context_get_memory_info:
 * @self: a [class@GCuda.Context]
 * @free: (out) (optional): return location for the free memory, in bytes
 * @total: (out) (optional): return location for the total memory, in bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Free and total memory of the context's device (PyCUDA's `mem_get_info()`).
 *
 * On failure @error is set and the out values are 0.
 *
 * Since: 1.0
 */
void
gcuda_context_get_memory_info (GCudaContext  *self,
                               guint64       *free,
                               guint64       *total,
                               GError       **error)
{
  size_t f = 0, t = 0;

  if (free != NULL)
    *free = 0;
  if (total != NULL)
    *total = 0;

  g_return_if_fail (GCUDA_IS_CONTEXT (self));
  if (!GCUDA_CONTEXT_CALL (self, GCUDA_DRV->fn_cuMemGetInfo (&f, &t), "cuMemGetInfo", error))
    return;
  if (free)
    *free = f;
  if (total)
    *total = t;
}

/**
 * gcuda_context_get_stream_priority_range:
 * @self: a [class@GCuda.Context]
 * @least: (out) (optional): return location for the least priority (the default)
 * @greatest: (out) (optional): return location for the greatest priority
 * @error: return location for a [struct@GLib.Error]
 *
 * The range of stream priorities. Greater priority is a numerically
 * smaller value, so @greatest ≤ @least.
 *
 * On failure @error is set and the out values are 0.
 *
 * Since: 1.0
 */
void
gcuda_context_get_stream_priority_range (GCudaContext  *self,
                                         int           *least,
                                         int           *greatest,
                                         GError       **error)
{
  int l = 0, g = 0;

  if (least != NULL)
    *least = 0;
  if (greatest != NULL)
    *greatest = 0;

  g_return_if_fail (GCUDA_IS_CONTEXT (self));
  if (!GCUDA_CONTEXT_CALL (self, GCUDA_DRV->fn_cuCtxGetStreamPriorityRange (&l, &g),
                           "cuCtxGetStreamPriorityRange", error))
    return;
  if (least)
    *least = l;
  if (greatest)
    *greatest = g;
}

/**
 * gcuda_context_get_api_version:
 * @self: a [class@GCuda.Context]
 * @error: return location for a [struct@GLib.Error]
 *
 * The driver API version the context was created with (PyCUDA's
 * `Context.get_api_version()`).
 *
 * Returns: the version, such as 3020, or 0 with @error set
 *
 * Since: 1.0
 */
guint
gcuda_context_get_api_version (GCudaContext  *self,
                               GError       **error)
{
  unsigned int version = 0;

  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), 0);
  if (!context_check (self, error))
    return 0;
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuCtxGetApiVersion (self->handle, &version), "cuCtxGetApiVersion", error))
    return 0;
  return version;
}

static gboolean
check_peer (GCudaContext  *self,
            GCudaContext  *peer,
            GError       **error)
{
  if (!context_check (self, error))
    return FALSE;
  if (!GCUDA_IS_CONTEXT (peer))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("The peer must be a GCuda.Context"));
      return FALSE;
    }
  if (!context_check (peer, error))
    return FALSE;
  if (peer == self || peer->handle == self->handle)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("A context cannot enable or disable peer access to itself"));
      return FALSE;
    }
  if (peer->device == self->device)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Peer access is between contexts on different devices; both are on device %d"),
                   gcuda_device_get_ordinal (self->device));
      return FALSE;
    }
  return TRUE;
}

/* cuCtxEnablePeerAccess/cuCtxDisablePeerAccess with @self current; the
 * driver's errors (already enabled, not enabled, unsupported, too many
 * peers) keep their code and name both devices. */
static gboolean
peer_access_call (GCudaContext  *self,
                  GCudaContext  *peer,
                  gboolean       enable,
                  GError       **error)
{
  GError *local = NULL;
  gboolean ok;

  ok = enable
    ? GCUDA_CONTEXT_CALL (self, GCUDA_DRV->fn_cuCtxEnablePeerAccess (peer->handle, 0),
                          "cuCtxEnablePeerAccess", &local)
    : GCUDA_CONTEXT_CALL (self, GCUDA_DRV->fn_cuCtxDisablePeerAccess (peer->handle),
                          "cuCtxDisablePeerAccess", &local);
  if (!ok)
    {
      if (local->domain == GCUDA_DRIVER_ERROR)
        g_prefix_error (&local, enable ? _("Enabling peer access from device %d to device %d: ")
                                       : _("Disabling peer access from device %d to device %d: "),
                        gcuda_device_get_ordinal (self->device), gcuda_device_get_ordinal (peer->device));
      g_propagate_error (error, local);
    }
  return ok;
}

/**
 * gcuda_context_enable_peer_access:
 * @self: a [class@GCuda.Context]
 * @peer: a context on another device
 * @error: return location for a [struct@GLib.Error]
 *
 * Lets @self access memory allocated in @peer (PyCUDA's
 * `Context.enable_peer_access()`): kernels in @self may then read and write
 * @peer's memory, and copies between them go over the direct link. Enabling
 * it twice is the driver's
 * [GCUDA_DRIVER_ERROR_PEER_ACCESS_ALREADY_ENABLED][error@GCuda.DriverError],
 * devices without a link
 * [GCUDA_DRIVER_ERROR_PEER_ACCESS_UNSUPPORTED][error@GCuda.DriverError]
 * (see [method@GCuda.Device.get_peer_attribute]); their messages name both
 * devices. Two contexts on one device are
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_context_enable_peer_access (GCudaContext  *self,
                                  GCudaContext  *peer,
                                  GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), FALSE);

  return check_peer (self, peer, error) && peer_access_call (self, peer, TRUE, error);
}

/**
 * gcuda_context_disable_peer_access:
 * @self: a [class@GCuda.Context]
 * @peer: a context on another device
 * @error: return location for a [struct@GLib.Error]
 *
 * Revokes what [method@GCuda.Context.enable_peer_access] granted. Access
 * not enabled is the driver's
 * [GCUDA_DRIVER_ERROR_PEER_ACCESS_NOT_ENABLED][error@GCuda.DriverError],
 * whose message names both devices.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_context_disable_peer_access (GCudaContext  *self,
                                   GCudaContext  *peer,
                                   GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), FALSE);

  return check_peer (self, peer, error) && peer_access_call (self, peer, FALSE, error);
}

/**
 * gcuda_context_push:
 * @self: a [class@GCuda.Context]
 * @error: return location for a [struct@GLib.Error]
 *
 * Makes the context current on the calling thread (PyCUDA's `Context.push()`):
 * on top of the driver's context stack, for code that expects a current
 * context such as another CUDA library, and as the calling thread's default
 * context ([func@GCuda.Context.get_thread_default]): until it is popped, GCuda
 * functions called on this thread with a %NULL context use it instead of
 * [func@GCuda.Context.get_default]. Other threads are not affected. The thread
 * holds a reference to the context until it pops it (or exits).
 *
 * Undo it with [func@GCuda.Context.pop]; pushes nest.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_context_push (GCudaContext  *self,
                    GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), FALSE);

  if (!context_check (self, error))
    return FALSE;
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuCtxPushCurrent (self->handle), "cuCtxPushCurrent", error))
    return FALSE;
  g_ptr_array_add (thread_stack_get (TRUE), g_object_ref (self));
  return TRUE;
}

/**
 * gcuda_context_pop:
 * @error: return location for a [struct@GLib.Error]
 *
 * Pops the current context off the calling thread's context stack
 * (PyCUDA's `Context.pop()`). When it is the one the thread last pushed with
 * [method@GCuda.Context.push], the thread's default context
 * ([func@GCuda.Context.get_thread_default]) goes back to what it was before
 * that push. Popping an empty stack is the driver's
 * [GCUDA_DRIVER_ERROR_INVALID_CONTEXT][error@GCuda.DriverError].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_context_pop (GError **error)
{
  const GCudaDriver *drv = _gcuda_driver_get (error);
  CUcontext current = NULL;

  if (drv == NULL)
    return FALSE;
  if (drv->fn_cuCtxGetCurrent (&current) == CUDA_SUCCESS && current == NULL)
    {
      g_set_error_literal (error, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_CONTEXT,
                           _("No context is current on this thread: there is nothing to pop"));
      return FALSE;
    }
  if (!GCUDA_CHECK (drv->fn_cuCtxPopCurrent (&current), "cuCtxPopCurrent", error))
    return FALSE;
  thread_stack_pop_handle (current);
  return TRUE;
}

/**
 * gcuda_context_get_thread_default:
 * @error: return location for a [struct@GLib.Error]
 *
 * The context GCuda functions use on the calling thread when they are given
 * a %NULL context: the context this thread last pushed with
 * [method@GCuda.Context.push] and has not popped yet, else the process's
 * default context ([func@GCuda.Context.get_default]). This is what PyCUDA
 * calls the current context (`Context.synchronize()`,
 * `Context.get_device()`, `mem_alloc()` act on it), without a stack to
 * manage for threads that never push.
 *
 * A pushed context that was destroyed since ([method@GCuda.Context.destroy]
 * from another thread, or deeper in this thread's stack) is never used in
 * the default context's place:
 * [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error] until this thread pops
 * it. Destroying the context on top of the calling thread's stack pops it.
 *
 * Returns: (transfer full): the calling thread's default context, or %NULL
 *   with @error set
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_context_get_thread_default (GError **error)
{
  return _gcuda_context_resolve (NULL, error);
}

/**
 * gcuda_context_get_current:
 * @error: return location for a [struct@GLib.Error]
 *
 * The context current on the calling thread (PyCUDA's
 * `Context.get_current()`), if GCuda knows it: one made by GCuda, or the
 * primary context of a device, whoever made it current.
 *
 * Returns: (transfer full) (nullable): the current context, or %NULL when
 *   none is current, when it is not known to GCuda, or on error
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_context_get_current (GError **error)
{
  const GCudaDriver *drv = _gcuda_driver_get (error);
  GCudaContext *context;
  CUcontext current = NULL;
  CUdevice dev;

  if (drv == NULL)
    return NULL;
  if (!GCUDA_CHECK (drv->fn_cuCtxGetCurrent (&current), "cuCtxGetCurrent", error) || current == NULL)
    return NULL;

  context = registry_lookup (current);
  if (context != NULL)
    return context;

  /* Not ours: it may still be a device's primary context (made current by
   * the CUDA runtime, say); wrap it if so. */
  if (drv->fn_cuCtxGetDevice (&dev) == CUDA_SUCCESS)
    {
      int count = gcuda_device_get_count (NULL);

      for (int i = 0; i < count; i++)
        {
          CUdevice h;

          if (drv->fn_cuDeviceGet (&h, i) == CUDA_SUCCESS && h == dev)
            {
              g_autoptr(GCudaDevice) device = gcuda_device_get (i, error);

              context = device ? gcuda_device_get_primary_context (device, error) : NULL;
              if (context != NULL && context->handle != current)
                g_clear_object (&context);
              return context;
            }
        }
    }
  return NULL;
}

/**
 * gcuda_context_destroy:
 * @self: a [class@GCuda.Context]
 * @error: return location for a [struct@GLib.Error]
 *
 * Retires the context now (PyCUDA's `Context.detach()`): every later use of
 * the context, or of objects made in it, is
 * [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error], and
 * [func@GCuda.Context.get_default] or [method@GCuda.Device.get_primary_context]
 * make a new object. Destroying twice is harmless.
 *
 * The driver's context (cuCtxDestroy for a dedicated context, this object's
 * retain for a primary one) is released when this object goes, which is
 * after every object made in it: each of them holds a reference, and still
 * gives back its memory, stream, event or module when it is freed or goes.
 * So nothing is released under an object that can still reach it (numpy
 * arrays and memoryviews over page-locked or managed memory of the context
 * included, see [method@GCuda.HostBuffer.export_begin]), nothing is left
 * for the driver to take with the context (`compute-sanitizer --leak-check
 * full` has no leak to report), and a primary context, which the CUDA
 * runtime or a newer [class@GCuda.Context] may share, keeps none of this
 * object's memory. Drop the references, and free or drop the objects made
 * in the context, for its memory to go.
 *
 * Do not destroy a context while another thread is using it. When the
 * calling thread pushed it last ([method@GCuda.Context.push]), it is popped
 * (PyCUDA's `detach()` does the same); other threads that pushed it get
 * [GCUDA_ERROR_CONTEXT_DESTROYED][error@GCuda.Error] for %NULL contexts until
 * they pop it (see [func@GCuda.Context.get_thread_default]).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_context_destroy (GCudaContext  *self,
                       GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), FALSE);

  if (self->handle == NULL)
    return context_check (self, error);
  if (!g_atomic_int_compare_and_exchange (&self->destroyed, FALSE, TRUE))
    return TRUE;

  registry_remove (self);
  default_forget (self);

  /* PyCUDA's detach() pops the context when it is current: if the calling
   * thread pushed it last, it is popped from the driver's stack (when on
   * top there) and from the thread's. The caller's reference keeps it alive
   * through this. */
  if (thread_stack_top () == self)
    {
      CUcontext current = NULL;

      if (GCUDA_DRV->fn_cuCtxGetCurrent (&current) == CUDA_SUCCESS && current == self->handle)
        GCUDA_DRV->fn_cuCtxPopCurrent (&current);
      thread_stack_pop_handle (self->handle);
    }
  return TRUE;
}

void
_gcuda_context_add_stream (GCudaContext *self,
                           CUstream      stream)
{
  g_mutex_lock (&self->streams_lock);
  g_hash_table_add (self->streams, stream);
  g_mutex_unlock (&self->streams_lock);
}

void
_gcuda_context_remove_stream (GCudaContext *self,
                              CUstream      stream)
{
  g_mutex_lock (&self->streams_lock);
  g_hash_table_remove (self->streams, stream);
  g_mutex_unlock (&self->streams_lock);
}

/* Makes @target wait for @source's work queued so far, through a throwaway
 * event (the driver keeps it alive until the wait is resolved). */
static gboolean
stream_follow (CUstream   target,
               CUstream   source,
               GError   **error)
{
  const GCudaDriver *drv = GCUDA_DRV;
  CUevent event = NULL;
  gboolean ok;

  if (!GCUDA_CHECK (drv->fn_cuEventCreate (&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate", error))
    return FALSE;
  ok = GCUDA_CHECK (drv->fn_cuEventRecord (event, source), "cuEventRecord", error) &&
       GCUDA_CHECK (drv->fn_cuStreamWaitEvent (target, event, 0), "cuStreamWaitEvent", error);
  drv->fn_cuEventDestroy (event);
  return ok;
}

/* With @self current: a new private non-blocking stream made to wait for
 * @event, or (when @event is NULL) for everything queued so far on every
 * stream GCuda knows in this context, the legacy default stream (which
 * covers all blocking streams) and the calling thread's per-thread stream.
 * One stream per wait, so a wait never queues behind another; the caller
 * destroys it once its host function is queued (queued work still runs). */
CUstream
_gcuda_context_prepare_wait (GCudaContext  *self,
                             CUevent        event,
                             GError       **error)
{
  const GCudaDriver *drv = GCUDA_DRV;
  CUstream wait_stream = NULL;
  GHashTableIter iter;
  gpointer key;
  gboolean ok;

  if (!GCUDA_CHECK (drv->fn_cuStreamCreateWithPriority (&wait_stream, CU_STREAM_NON_BLOCKING, 0),
                    "cuStreamCreateWithPriority", error))
    return NULL;

  if (event != NULL)
    ok = GCUDA_CHECK (drv->fn_cuStreamWaitEvent (wait_stream, event, 0), "cuStreamWaitEvent", error);
  else
    {
      ok = stream_follow (wait_stream, CU_STREAM_LEGACY, error) &&
           stream_follow (wait_stream, CU_STREAM_PER_THREAD, error);
      g_mutex_lock (&self->streams_lock);
      g_hash_table_iter_init (&iter, self->streams);
      while (ok && g_hash_table_iter_next (&iter, &key, NULL))
        ok = stream_follow (wait_stream, key, error);
      g_mutex_unlock (&self->streams_lock);
    }

  if (!ok)
    {
      drv->fn_cuStreamDestroy (wait_stream);
      return NULL;
    }
  return wait_stream;
}

/**
 * gcuda_context_synchronize_async:
 * @self: a [class@GCuda.Context]
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: (scope async): called when the work has finished
 * @user_data: data for @callback
 *
 * Waits, without blocking any thread, until the work queued so far in the
 * context has finished: on every [class@GCuda.Stream] of the context, the
 * legacy default stream (and so every blocking stream) and the calling thread's
 * per-thread default stream. @callback runs in the thread-default main context
 * of the calling thread. Streams created outside GCuda with
 * `CU_STREAM_NON_BLOCKING` are not covered.
 *
 * Cancelling stops the waiting at once
 * ([G_IO_ERROR_CANCELLED][error@Gio.IOErrorEnum]); the GPU work goes on.
 *
 * Since: 1.0
 */
void
gcuda_context_synchronize_async (GCudaContext        *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (GCUDA_IS_CONTEXT (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gcuda_context_synchronize_async);
  _gcuda_wait_task_start (task, self, NULL, NULL);
}

/**
 * gcuda_context_synchronize_finish:
 * @self: a [class@GCuda.Context]
 * @result: the [iface@Gio.AsyncResult]
 * @error: return location for a [struct@GLib.Error]
 *
 * Finishes [method@GCuda.Context.synchronize_async].
 *
 * Returns: %TRUE once the work has finished
 *
 * Since: 1.0
 */
gboolean
gcuda_context_synchronize_finish (GCudaContext  *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_CONTEXT (self), FALSE);

  return _gcuda_wait_task_finish (self, result, gcuda_context_synchronize_async, error);
}

/* The "current context" rule: NULL is the context the calling thread last
 * pushed through GCuda (gcuda_context_push(), which PyCUDA's
 * Device.make_context() and `with ctx:` use) and has not popped, else the
 * process default. One TLS read when the thread pushed nothing. A destroyed
 * context on top is an error, never silently replaced by the default (which
 * may be another device). */
GCudaContext *
_gcuda_context_resolve (GCudaContext  *context,
                        GError       **error)
{
  if (context == NULL)
    {
      GCudaContext *top = thread_stack_top ();

      if (top == NULL)
        return gcuda_context_get_default (error);
      if (G_UNLIKELY (g_atomic_int_get (&top->destroyed)))
        {
          g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED,
                               _("The context this thread made current with push() was destroyed: "
                                 "pop it with Context.pop() to use the default "
                                 "context again"));
          return NULL;
        }
      return g_object_ref (top);
    }
  if (!GCUDA_IS_CONTEXT (context))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Expected a GCuda.Context or NULL for the default context"));
      return NULL;
    }
  return g_object_ref (context);
}

/**
 * gcuda_context_get_address_range:
 * @self: (nullable): a [class@GCuda.Context], or %NULL for the default context
 * @address: any device address inside an allocation of the context
 * @base: (out) (optional): return location for the allocation's first address
 * @size: (out) (optional): return location for the allocation's size in bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * The allocation an address belongs to (PyCUDA's `mem_get_address_range()`). An
 * address in no allocation is the driver's
 * [GCUDA_DRIVER_ERROR_NOT_FOUND][error@GCuda.DriverError] (or
 * [GCUDA_DRIVER_ERROR_INVALID_VALUE][error@GCuda.DriverError]).
 *
 * On failure @error is set and the out values are 0.
 *
 * Since: 1.0
 */
void
gcuda_context_get_address_range (GCudaContext  *self,
                                 guint64        address,
                                 guint64       *base,
                                 guint64       *size,
                                 GError       **error)
{
  g_autoptr(GCudaContext) ctx = _gcuda_context_resolve (self, error);
  CUdeviceptr b = 0;
  size_t s = 0;

  if (base != NULL)
    *base = 0;
  if (size != NULL)
    *size = 0;

  if (ctx == NULL ||
      !GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuMemGetAddressRange (&b, &s, address), "cuMemGetAddressRange", error))
    return;
  if (base)
    *base = b;
  if (size)
    *size = s;
}

/**
 * gcuda_context_get_pointer_info:
 * @address: any address, host or device
 * @memory_type: (out) (optional): return location for what it points to
 * @device_ordinal: (out) (optional): return location for the device it belongs to, or -1
 * @is_managed: (out) (optional): return location for whether it is managed memory
 * @context: (out) (optional) (nullable) (transfer full): return location for the context
 *   it was allocated in, if GCuda knows that context
 * @error: return location for a [struct@GLib.Error]
 *
 * What CUDA knows about an address (the driver's pointer attributes). Ordinary
 * host memory is [GCUDA_MEMORY_TYPE_UNKNOWN][enum@GCuda.MemoryType], not an
 * error.
 *
 * On failure @error is set, the type is
 * [GCUDA_MEMORY_TYPE_UNKNOWN][enum@GCuda.MemoryType], the ordinal -1, the
 * context %NULL.
 *
 * Since: 1.0
 */
void
gcuda_context_get_pointer_info (guint64           address,
                                GCudaMemoryType  *memory_type,
                                int              *device_ordinal,
                                gboolean         *is_managed,
                                GCudaContext    **context,
                                GError          **error)
{
  CUpointer_attribute attrs[] = {
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
    CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_CONTEXT,
  };
  unsigned int type = 0;
  int ordinal = -1;
  int managed = 0;
  CUcontext handle = NULL;
  void *data[] = { &type, &ordinal, &managed, &handle };

  if (memory_type != NULL)
    *memory_type = GCUDA_MEMORY_TYPE_UNKNOWN;
  if (device_ordinal != NULL)
    *device_ordinal = -1;
  if (is_managed != NULL)
    *is_managed = FALSE;
  if (context != NULL)
    *context = NULL;

  if (_gcuda_driver_get (error) == NULL)
    return;
  /* cuPointerGetAttributes (unlike the singular form) succeeds for memory
   * CUDA does not know, leaving the type 0. */
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuPointerGetAttributes (G_N_ELEMENTS (attrs), attrs, data, address),
                    "cuPointerGetAttributes", error))
    return;
  if (memory_type)
    *memory_type = (GCudaMemoryType) type;
  if (device_ordinal)
    *device_ordinal = type == 0 ? -1 : ordinal;
  if (is_managed)
    *is_managed = managed != 0;
  if (context)
    *context = handle ? registry_lookup (handle) : NULL;
}

GCudaContext *
_gcuda_context_lookup (CUcontext handle)
{
  return handle != NULL ? registry_lookup (handle) : NULL;
}
