/* gcuda-module.c: loaded device code
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-async-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-context-private.h"
#include "gcuda-function-private.h"
#include "gcuda-jit-options-private.h"
#include "gcuda-kernel-bundle-private.h"
#include "gcuda-module-image-private.h"
#include "gcuda-module-private.h"
#include "gcuda-program-private.h"

/**
 * GCudaModule:
 *
 * Device code loaded into a context (PyCUDA's `Module`): a cubin, PTX
 * (compiled by the driver on load) or a fatbin, from memory
 * ([ctor@GCuda.Module.new_from_data], PyCUDA's `module_from_buffer()`), a file,
 * or a [class@GCuda.Program].
 *
 * ```c
 * static GCudaFunction *
 * load_kernel (const char *ptx, GError **error)
 * {
 *   g_autoptr(GBytes) image = g_bytes_new (ptx, strlen (ptx) + 1);
 *   g_autoptr(GCudaModule) module = gcuda_module_new_from_data (NULL, image, NULL, error);
 *
 *   if (module == NULL)
 *     return NULL;
 *   g_print ("JIT log: %s\n", gcuda_module_get_info_log (module));
 *   return gcuda_module_get_function (module, "scale", error);
 * }
 * ```
 *
 * In Python, a `__constant__` variable filled through
 * [method@GCuda.Module.get_global] (PyCUDA's `get_global()`):
 *
 * ```python
 * mod = GCuda.SourceModule('''
 * __constant__ float coeffs[4];
 * __global__ void apply(float *x) { x[threadIdx.x] *= coeffs[threadIdx.x % 4]; }
 * ''')
 * ptr, size = mod.get_global('coeffs')
 * GCuda.memcpy_htod(ptr, numpy.array([1, 2, 3, 4], numpy.float32))
 * x = GCuda.to_device(numpy.ones(64, numpy.float32))
 * mod.get_function('apply')(x, block=(64, 1, 1))
 * print(GCuda.from_device(x, 64, numpy.float32))
 * ```
 *
 * Kernels are reached with [method@GCuda.Module.get_function] (the same object
 * for the same name) and `__device__`/`__constant__` variables with
 * [method@GCuda.Module.get_global], as a [class@GCuda.Buffer] the ordinary
 * transfer API reads and writes. The module is unloaded when the last reference
 * to it, its functions and its globals goes. Usable from any thread.
 *
 * Since: 1.0
 */

struct _GCudaModule
{
  GObject parent_instance;

  GCudaContext *context;
  CUmodule handle;
  char *info_log;
  char *error_log;
  GMutex lock;            /* guards functions */
  GHashTable *functions;  /* name -> GWeakRef to its GCudaFunction: functions
                           * hold the module, so no strong ref back */
};

G_DEFINE_FINAL_TYPE (GCudaModule, gcuda_module, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_INFO_LOG,
  PROP_ERROR_LOG,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
gcuda_module_finalize (GObject *object)
{
  GCudaModule *self = GCUDA_MODULE (object);

  g_clear_pointer (&self->functions, g_hash_table_unref);
  if (self->handle != NULL)
    GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuModuleUnload (self->handle));
  g_clear_object (&self->context);
  g_free (self->info_log);
  g_free (self->error_log);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (gcuda_module_parent_class)->finalize (object);
}

static void
gcuda_module_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  GCudaModule *self = GCUDA_MODULE (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_INFO_LOG:
      g_value_set_string (value, self->info_log);
      break;
    case PROP_ERROR_LOG:
      g_value_set_string (value, self->error_log);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_module_class_init (GCudaModuleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_module_finalize;
  object_class->get_property = gcuda_module_get_property;

  /**
   * GCudaModule:context: (getter get_context)
   *
   * The context the module is loaded in.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT, ro);

  /**
   * GCudaModule:info-log: (getter get_info_log)
   *
   * The driver's JIT information log (for PTX), possibly empty.
   *
   * Since: 1.0
   */
  properties[PROP_INFO_LOG] = g_param_spec_string ("info-log", NULL, NULL, NULL, ro);

  /**
   * GCudaModule:error-log: (getter get_error_log)
   *
   * The driver's JIT error log, possibly empty. A load that fails puts it
   * in the [struct@GLib.Error]'s message too.
   *
   * Since: 1.0
   */
  properties[PROP_ERROR_LOG] = g_param_spec_string ("error-log", NULL, NULL, NULL, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
free_weak_ref (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

static void
gcuda_module_init (GCudaModule *self)
{
  g_mutex_init (&self->lock);
  self->functions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, free_weak_ref);
}

CUmodule
_gcuda_module_get_handle (GCudaModule *self)
{
  return self->handle;
}

/* The driver takes an image without its size and trusts what is inside
 * it: _gcuda_module_image_check() holds it to its data's length first. */
static gboolean
check_image (GBytes  *image,
             GError **error)
{
  gsize size = 0;
  const guint8 *data = image != NULL ? g_bytes_get_data (image, &size) : NULL;

  return _gcuda_module_image_check (data, size, error);
}

/* Wraps a loaded handle; takes the logs' strings. */
GCudaModule *
_gcuda_module_new_for_handle (GCudaContext *context,
                              CUmodule      handle,
                              char         *info_log,
                              char         *error_log)
{
  GCudaModule *self = g_object_new (GCUDA_TYPE_MODULE, NULL);

  self->context = g_object_ref (context);
  self->handle = handle;
  self->info_log = info_log;
  self->error_log = error_log;
  return self;
}

/**
 * gcuda_module_new_from_data:
 * @context: (nullable): the context, or %NULL for the default context
 * @image: a cubin, fatbin, or NUL-terminated PTX
 * @options: (nullable): options for the JIT compiler (for PTX), or %NULL
 * @error: return location for a [struct@GLib.Error]
 *
 * Loads device code (PyCUDA's `module_from_buffer()`). The driver reads @image
 * without its size and trusts the offsets inside it, so GCuda first checks
 * that everything the driver follows lies inside @image: a cubin's ELF header,
 * section and program header tables, every section's bytes, section and
 * symbol names (each NUL-terminated inside its string table), symbol tables,
 * relocations and `.nv.info` records; a fatbin's header and every entry's
 * header, name, JIT options and payload, PTX entries NUL-terminated, cubin
 * entries checked as cubins, and compressed entries' sizes against their LZ4
 * or Zstandard framing; PTX NUL-terminated. An image that fails, or that is
 * not device code, is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error] saying
 * what is wrong, and the driver never sees it (the whole list, and what is not
 * checked, is in [Compiling and launching kernels](kernels.html)). What the
 * driver decides is its own error: code for another architecture is
 * [GCUDA_DRIVER_ERROR_NO_BINARY_FOR_GPU][error@GCuda.DriverError]. The JIT's
 * logs are the [property@GCuda.Module:info-log] and
 * [property@GCuda.Module:error-log] properties; a failed load has the error log
 * in @error's message. @options out of range (see [class@GCuda.JitOptions]) are
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], before the driver is
 * needed.
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_module_new_from_data (GCudaContext     *context,
                            GBytes           *image,
                            GCudaJitOptions  *options,
                            GError          **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  CUjit_option keys[GCUDA_JIT_MAX_OPTIONS];
  void *values[GCUDA_JIT_MAX_OPTIONS];
  GCudaJitLogs logs;
  CUmodule handle = NULL;
  guint n;

  if (!check_image (image, error))
    return NULL;
  if (!_gcuda_jit_options_check (options, error) || (ctx = _gcuda_context_resolve (context, error)) == NULL)
    return NULL;
  _gcuda_jit_logs_init (&logs);
  n = _gcuda_jit_options_build (options, &logs, keys, values);
  if (!GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuModuleLoadDataEx (&handle, g_bytes_get_data (image, NULL), n, keys,
                                                                  values),
                           "cuModuleLoadDataEx", error))
    {
      if (logs.error[0] != '\0')
        g_prefix_error (error, "%s\n", logs.error);
      _gcuda_jit_logs_clear (&logs);
      return NULL;
    }

  return _gcuda_module_new_for_handle (ctx, handle, g_steal_pointer (&logs.info), g_steal_pointer (&logs.error));
}

/* A snapshot of @options (nullable) for a load that starts later: every
 * property copied. */
static GCudaJitOptions *
jit_options_copy (GCudaJitOptions *options)
{
  g_autofree GParamSpec **pspecs = NULL;
  GCudaJitOptions *copy;
  guint n = 0;

  if (options == NULL)
    return NULL;
  copy = gcuda_jit_options_new ();
  pspecs = g_object_class_list_properties (G_OBJECT_GET_CLASS (options), &n);
  for (guint i = 0; i < n; i++)
    {
      g_auto(GValue) value = G_VALUE_INIT;

      if ((pspecs[i]->flags & G_PARAM_READWRITE) != G_PARAM_READWRITE ||
          (pspecs[i]->flags & G_PARAM_CONSTRUCT_ONLY) != 0)
        continue;
      g_value_init (&value, pspecs[i]->value_type);
      g_object_get_property (G_OBJECT (options), pspecs[i]->name, &value);
      g_object_set_property (G_OBJECT (copy), pspecs[i]->name, &value);
    }
  return copy;
}

/* What a load's worker takes. */
typedef struct {
  GCudaContext *context;
  GBytes *image;
  GCudaJitOptions *options;
} LoadWork;

static void
load_work_free (gpointer data)
{
  LoadWork *work = data;

  g_clear_object (&work->context);
  g_clear_pointer (&work->image, g_bytes_unref);
  g_clear_object (&work->options);
  g_free (work);
}

static gpointer
load_work (gpointer       source_object,
           gpointer       work_data,
           GCancellable  *cancellable,
           GError       **error)
{
  LoadWork *work = work_data;

  return gcuda_module_new_from_data (work->context, work->image, work->options, error);
}

/**
 * gcuda_module_new_from_data_async:
 * @context: (nullable): the context, or %NULL for the default context
 * @image: a cubin, fatbin, or NUL-terminated PTX
 * @options: (nullable): options for the JIT compiler (for PTX), or %NULL
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: (scope async): called when the module is loaded
 * @user_data: data for @callback
 *
 * [ctor@GCuda.Module.new_from_data] on a worker thread: the driver's JIT
 * compiles PTX for the device when it loads it, which takes long for a large
 * module. @image is checked here, as [ctor@GCuda.Module.new_from_data] checks
 * it, and @options are taken as they are now. @callback runs in the
 * thread-default main context of the caller; finish with
 * [ctor@GCuda.Module.new_from_data_finish].
 *
 * Cancelling @cancellable completes the call at once with
 * [error@Gio.IOErrorEnum.CANCELLED]: the driver cannot be interrupted, so the
 * load goes on in the background, and the module it makes is unloaded.
 *
 * Since: 1.0
 */
void
gcuda_module_new_from_data_async (GCudaContext        *context,
                                  GBytes              *image,
                                  GCudaJitOptions     *options,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  LoadWork *work;
  GCudaContext *ctx;
  GError *error = NULL;

  g_task_set_source_tag (task, gcuda_module_new_from_data_async);
  /* What needs no driver fails here, before a thread. */
  if (!check_image (image, &error) || !_gcuda_jit_options_check (options, &error) ||
      (ctx = _gcuda_context_resolve (context, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  work = g_new0 (LoadWork, 1);
  work->context = ctx;
  work->image = g_bytes_ref (image);
  work->options = jit_options_copy (options);
  _gcuda_task_run_worker (task, load_work, work, load_work_free, g_object_unref);
}

/**
 * gcuda_module_new_from_data_finish:
 * @result: the [iface@Gio.AsyncResult] given to the callback
 * @error: return location for a [struct@GLib.Error]
 *
 * Finishes [func@GCuda.Module.new_from_data_async].
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_module_new_from_data_finish (GAsyncResult  *result,
                                   GError       **error)
{
  if (!g_task_is_valid (result, NULL) ||
      g_task_get_source_tag (G_TASK (result)) != gcuda_module_new_from_data_async)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("This result is not from an asynchronous load of module data"));
      return NULL;
    }
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gcuda_module_new_from_file:
 * @context: (nullable): the context, or %NULL for the default context
 * @path: (type filename): a cubin, fatbin or PTX file
 * @options: (nullable): options for the JIT compiler (for PTX), or %NULL
 * @error: return location for a [struct@GLib.Error]
 *
 * Loads device code from a file (PyCUDA's `module_from_file()`), checked as
 * [ctor@GCuda.Module.new_from_data] checks it.
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_module_new_from_file (GCudaContext     *context,
                            const char       *path,
                            GCudaJitOptions  *options,
                            GError          **error)
{
  g_autoptr(GBytes) image = NULL;
  char *contents = NULL;
  gsize length = 0;

  if (path == NULL || !g_file_get_contents (path, &contents, &length, error))
    {
      if (path == NULL)
        g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("No file given"));
      return NULL;
    }
  /* g_file_get_contents() NUL-terminates: keep the NUL for PTX. */
  image = g_bytes_new_take (contents, length + 1);
  return gcuda_module_new_from_data (context, image, options, error);
}

/**
 * gcuda_module_new_from_program:
 * @context: (nullable): the context, or %NULL for the default context
 * @program: a compiled program
 * @error: return location for a [struct@GLib.Error]
 *
 * Loads a [class@GCuda.Program]'s image, checked as
 * [ctor@GCuda.Module.new_from_data] checks it.
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_module_new_from_program (GCudaContext  *context,
                               GCudaProgram  *program,
                               GError       **error)
{
  if (!GCUDA_IS_PROGRAM (program))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.Program"));
      return NULL;
    }
  if (!_gcuda_program_check (program, error))
    return NULL;
  return gcuda_module_new_from_data (context, gcuda_program_get_image (program), NULL, error);
}

/* Kernels shipped prebuilt (gcuda-compile): the manifest is read and
 * checked before the driver is needed, then the image for the context's
 * device is chosen, read, verified and loaded. */
static GCudaModule *
bundle_load (GCudaContext               *context,
             const GCudaBundleLocation  *location,
             GCudaJitOptions            *jit_options,
             GError                    **error)
{
  g_autoptr(GCudaBundle) bundle = NULL;
  g_autoptr(GCudaContext) ctx = NULL;
  g_autoptr(GBytes) image = NULL;
  g_autofree char *where = NULL;
  const GCudaBundleImage *chosen;
  int major = 0, minor = 0;

  if (!_gcuda_jit_options_check (jit_options, error) || (bundle = _gcuda_bundle_open (location, error)) == NULL ||
      (ctx = _gcuda_context_resolve (context, error)) == NULL)
    return NULL;
  gcuda_device_get_compute_capability (gcuda_context_get_device (ctx), &major, &minor);
  if (major <= 0 || major > 999 || minor < 0 || minor > 9)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_NOT_SUPPORTED,
                   _("The device reports compute capability %d.%d, which GCuda cannot match to a kernel bundle's images"),
                   major, minor);
      return NULL;
    }
  where = _gcuda_bundle_location_describe (location);
  if ((chosen = _gcuda_bundle_select (bundle, (guint) (major * 10 + minor), where, error)) == NULL ||
      (image = _gcuda_bundle_read_image (location, chosen, error)) == NULL)
    return NULL;
  return gcuda_module_new_from_data (ctx, image, jit_options, error);
}

/* "/org/example/App/kernels/fractal" without trailing slashes, or NULL
 * with the error. */
static char *
resource_path_normalize (const char  *path,
                         GError     **error)
{
  gsize n;

  if (path == NULL || path[0] != '/' || !g_utf8_validate (path, -1, NULL))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("A kernel bundle's resource path must be an absolute path such as "
                     "/org/example/App/kernels/NAME"));
      return NULL;
    }
  n = strlen (path);
  while (n > 1 && path[n - 1] == '/')
    n--;
  return g_strndup (path, n);
}

/**
 * gcuda_module_new_from_resource:
 * @context: (nullable): the context, or %NULL for the default context
 * @path: the resource path of a kernel bundle, such as
 *   `/org/example/App/kernels/fractal`
 * @jit_options: (nullable): options for the driver's JIT compiler (used
 *   when PTX is chosen), or %NULL
 * @error: return location for a [struct@GLib.Error]
 *
 * Loads kernels an application ships prebuilt in a [struct@Gio.Resource]: @path
 * is a resource directory holding the `manifest` and the images that the
 * `gcuda-compile` tool wrote (see [Shipping kernels](shipping-kernels.html)),
 * so that users need neither NVRTC nor a compile on first start.
 *
 * The image is chosen for the device of @context: the cubin of its exact
 * architecture (`sm_90` for compute capability 9.0); else a cubin of the
 * same major version and a lower minor one (cubins run on later minor
 * versions); else the PTX of the highest `compute_XY` not above the
 * device's, compiled by the driver with @jit_options; else
 * [GCUDA_ERROR_NOT_SUPPORTED][error@GCuda.Error], whose message names the
 * device's `sm_XY` and what the bundle holds.
 *
 * The manifest is checked before the driver is needed: a manifest that is
 * not one, damaged, or lists anything unexpected is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error] naming its line. The
 * chosen image must have the size and SHA-256 the manifest gives
 * ([GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error] otherwise) and is then
 * checked and loaded as [ctor@GCuda.Module.new_from_data] does. A manifest
 * or image missing from the resources is GIO's
 * [G_RESOURCE_ERROR_NOT_FOUND][error@Gio.ResourceError].
 *
 * Loading PTX can take a while: a GUI should use
 * [func@GCuda.Module.new_from_resource_async].
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_module_new_from_resource (GCudaContext     *context,
                                const char       *path,
                                GCudaJitOptions  *jit_options,
                                GError          **error)
{
  g_autofree char *normalized = resource_path_normalize (path, error);
  GCudaBundleLocation location = { normalized, NULL };

  if (normalized == NULL)
    return NULL;
  return bundle_load (context, &location, jit_options, error);
}

/**
 * gcuda_module_new_from_directory:
 * @context: (nullable): the context, or %NULL for the default context
 * @directory: a directory holding a kernel bundle
 * @jit_options: (nullable): options for the driver's JIT compiler (used
 *   when PTX is chosen), or %NULL
 * @error: return location for a [struct@GLib.Error]
 *
 * [ctor@GCuda.Module.new_from_resource] for a kernel bundle installed as
 * files: @directory holds the `manifest` and the images `gcuda-compile`
 * wrote (its `--output-dir`). The files must be regular files: each is
 * opened without waiting and checked through what was opened, so a FIFO or
 * a device is refused (naming what it is) without blocking, even one
 * swapped in at that moment; each is read up to the size the manifest
 * gives (the manifest up to 64 KiB). A missing file is GIO's
 * [G_IO_ERROR_NOT_FOUND][error@Gio.IOErrorEnum].
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_module_new_from_directory (GCudaContext     *context,
                                 GFile            *directory,
                                 GCudaJitOptions  *jit_options,
                                 GError          **error)
{
  GCudaBundleLocation location = { NULL, directory };

  if (!G_IS_FILE (directory))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GFile"));
      return NULL;
    }
  return bundle_load (context, &location, jit_options, error);
}

typedef struct {
  GCudaContext *context;
  char *resource_path;
  GFile *directory;
  GCudaJitOptions *jit_options;
  GError *context_error;  /* reported after the bundle's own errors */
} BundleLoadData;

static void
bundle_load_data_free (gpointer data)
{
  BundleLoadData *d = data;

  g_clear_object (&d->context);
  g_free (d->resource_path);
  g_clear_object (&d->directory);
  g_clear_object (&d->jit_options);
  g_clear_error (&d->context_error);
  g_free (d);
}

static void
bundle_load_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  BundleLoadData *d = task_data;
  GCudaBundleLocation location = { d->resource_path, d->directory };
  GCudaModule *module;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  if (d->context_error != NULL)
    {
      /* as the synchronous form: what is wrong with the bundle first */
      g_autoptr(GCudaBundle) bundle = NULL;

      if (!_gcuda_jit_options_check (d->jit_options, &error) || (bundle = _gcuda_bundle_open (&location, &error)) == NULL)
        g_task_return_error (task, error);
      else
        g_task_return_error (task, g_steal_pointer (&d->context_error));
      return;
    }
  module = bundle_load (d->context, &location, d->jit_options, &error);
  if (module == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, module, g_object_unref);
}

/* The context is resolved in the caller's thread (its thread-default
 * context counts), the rest runs on a worker thread; a cancelled task
 * completes at once and the late module is dropped. */
static void
bundle_load_async (GCudaContext        *context,
                   char                *resource_path,
                   GFile               *directory,
                   GCudaJitOptions     *jit_options,
                   gpointer             source_tag,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  BundleLoadData *d;

  g_task_set_source_tag (task, source_tag);
  d = g_new0 (BundleLoadData, 1);
  d->resource_path = resource_path;
  d->directory = directory != NULL ? g_object_ref (directory) : NULL;
  d->jit_options = jit_options != NULL ? g_object_ref (jit_options) : NULL;
  g_task_set_task_data (task, d, bundle_load_data_free);
  if (resource_path == NULL && directory == NULL)
    {
      g_task_return_new_error (task, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, "%s", _("No kernel bundle given"));
      return;
    }
  d->context = _gcuda_context_resolve (context, &d->context_error);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, bundle_load_thread);
}

static GCudaModule *
bundle_load_finish (GAsyncResult  *result,
                    gpointer       source_tag,
                    const char    *name,
                    GError       **error)
{
  if (!g_task_is_valid (result, NULL) || g_task_get_source_tag (G_TASK (result)) != source_tag)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("This result is not from %s()"), name);
      return NULL;
    }
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gcuda_module_new_from_resource_async:
 * @context: (nullable): the context, or %NULL for the default context
 * @path: the resource path of a kernel bundle
 * @jit_options: (nullable): options for the driver's JIT compiler, or %NULL
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: (scope async): called when the module is ready
 * @user_data: data for @callback
 *
 * [ctor@GCuda.Module.new_from_resource] without blocking: the image is read,
 * verified and loaded (a PTX compiled by the driver) on a worker thread;
 * @callback runs in the thread-default main context of the caller.
 * Cancelling completes the task at once with
 * [G_IO_ERROR_CANCELLED][error@Gio.IOErrorEnum] (a load already under way
 * finishes in the background and its module is dropped). Finish with
 * [ctor@GCuda.Module.new_from_resource_finish].
 *
 * Since: 1.0
 */
void
gcuda_module_new_from_resource_async (GCudaContext        *context,
                                      const char          *path,
                                      GCudaJitOptions     *jit_options,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  GError *error = NULL;
  char *normalized = resource_path_normalize (path, &error);

  if (normalized == NULL)
    {
      g_task_report_error (NULL, callback, user_data, gcuda_module_new_from_resource_async, error);
      return;
    }
  bundle_load_async (context, normalized, NULL, jit_options, gcuda_module_new_from_resource_async, cancellable,
                     callback, user_data);
}

/**
 * gcuda_module_new_from_resource_finish:
 * @result: the [iface@Gio.AsyncResult] given to the callback
 * @error: return location for a [struct@GLib.Error]
 *
 * Finishes [func@GCuda.Module.new_from_resource_async].
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_module_new_from_resource_finish (GAsyncResult  *result,
                                       GError       **error)
{
  return bundle_load_finish (result, gcuda_module_new_from_resource_async, "gcuda_module_new_from_resource_async",
                             error);
}

/**
 * gcuda_module_new_from_directory_async:
 * @context: (nullable): the context, or %NULL for the default context
 * @directory: a directory holding a kernel bundle
 * @jit_options: (nullable): options for the driver's JIT compiler, or %NULL
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: (scope async): called when the module is ready
 * @user_data: data for @callback
 *
 * [ctor@GCuda.Module.new_from_directory] without blocking, as
 * [func@GCuda.Module.new_from_resource_async]. Finish with
 * [ctor@GCuda.Module.new_from_directory_finish].
 *
 * Since: 1.0
 */
void
gcuda_module_new_from_directory_async (GCudaContext        *context,
                                       GFile               *directory,
                                       GCudaJitOptions     *jit_options,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  if (!G_IS_FILE (directory))
    {
      g_task_report_new_error (NULL, callback, user_data, gcuda_module_new_from_directory_async, GCUDA_ERROR,
                               GCUDA_ERROR_INVALID_ARGUMENT, "%s", _("Expected a GFile"));
      return;
    }
  bundle_load_async (context, NULL, directory, jit_options, gcuda_module_new_from_directory_async, cancellable,
                     callback, user_data);
}

/**
 * gcuda_module_new_from_directory_finish:
 * @result: the [iface@Gio.AsyncResult] given to the callback
 * @error: return location for a [struct@GLib.Error]
 *
 * Finishes [func@GCuda.Module.new_from_directory_async].
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_module_new_from_directory_finish (GAsyncResult  *result,
                                        GError       **error)
{
  return bundle_load_finish (result, gcuda_module_new_from_directory_async, "gcuda_module_new_from_directory_async",
                             error);
}

/**
 * gcuda_module_get_context: (get-property context)
 * @self: a [class@GCuda.Module]
 *
 * Gets the context the module is loaded in.
 *
 * Returns: (transfer none): the module's context
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_module_get_context (GCudaModule *self)
{
  g_return_val_if_fail (GCUDA_IS_MODULE (self), NULL);
  return self->context;
}

/**
 * gcuda_module_get_info_log: (get-property info-log)
 * @self: a [class@GCuda.Module]
 *
 * Gets the driver's JIT information log of the load.
 *
 * Returns: the JIT information log, possibly empty
 *
 * Since: 1.0
 */
const char *
gcuda_module_get_info_log (GCudaModule *self)
{
  g_return_val_if_fail (GCUDA_IS_MODULE (self), NULL);
  /* a module made by hand has no logs */
  return self->info_log != NULL ? self->info_log : "";
}

/**
 * gcuda_module_get_error_log: (get-property error-log)
 * @self: a [class@GCuda.Module]
 *
 * Gets the driver's JIT error log of the load.
 *
 * Returns: the JIT error log, possibly empty
 *
 * Since: 1.0
 */
const char *
gcuda_module_get_error_log (GCudaModule *self)
{
  g_return_val_if_fail (GCUDA_IS_MODULE (self), NULL);
  return self->error_log != NULL ? self->error_log : "";
}

static gboolean
module_check (GCudaModule  *self,
              const char   *name,
              GError      **error)
{
  if (!GCUDA_IS_MODULE (self))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.Module"));
      return FALSE;
    }
  if (!GCUDA_CHECK_MADE (self->handle != NULL, error,
                         _("This GCuda.Module was made without loaded code: create modules with "
                           "one of its constructors, such as Module.new_from_data()")))
    return FALSE;
  if (name == NULL || *name == '\0')
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("No name given"));
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_module_get_function:
 * @self: a [class@GCuda.Module]
 * @name: the kernel's name (its lowered name for C++ kernels)
 * @error: return location for a [struct@GLib.Error]
 *
 * A `__global__` function of the module (PyCUDA's `get_function()`); the same
 * object for the same name. An unknown name is the driver's
 * [GCUDA_DRIVER_ERROR_NOT_FOUND][error@GCuda.DriverError], with the name in the
 * message.
 *
 * Returns: (transfer full): the function, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaFunction *
gcuda_module_get_function (GCudaModule  *self,
                           const char   *name,
                           GError      **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  GCudaFunction *function;
  CUfunction handle = NULL;
  GWeakRef *ref;

  if (!module_check (self, name, error))
    return NULL;

  locker = g_mutex_locker_new (&self->lock);
  ref = g_hash_table_lookup (self->functions, name);
  function = ref ? g_weak_ref_get (ref) : NULL;
  if (function != NULL)
    return function;
  if (!_gcuda_context_enter (self->context, &scope, error))
    return NULL;
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuModuleGetFunction (&handle, self->handle, name), "cuModuleGetFunction", error))
    {
      g_prefix_error (error, _("No kernel “%s” in the module: "), name);
      return NULL;
    }
  function = _gcuda_function_new (self, handle, name, error);
  if (function != NULL)
    {
      ref = g_new0 (GWeakRef, 1);
      g_weak_ref_init (ref, function);
      g_hash_table_insert (self->functions, g_strdup (name), ref);
    }
  return function;
}

/**
 * gcuda_module_get_global:
 * @self: a [class@GCuda.Module]
 * @name: the variable's name
 * @error: return location for a [struct@GLib.Error]
 *
 * A `__device__` or `__constant__` variable of the module, as a buffer of kind
 * [GCUDA_BUFFER_KIND_GLOBAL][enum@GCuda.BufferKind] (PyCUDA's `get_global()`):
 * upload to it to set `__constant__` data. The buffer keeps the module loaded;
 * freeing it frees nothing. An unknown name is
 * [GCUDA_DRIVER_ERROR_NOT_FOUND][error@GCuda.DriverError].
 *
 * Returns: (transfer full): the variable's memory, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaBuffer *
gcuda_module_get_global (GCudaModule  *self,
                         const char   *name,
                         GError      **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  CUdeviceptr ptr = 0;
  size_t size = 0;

  if (!module_check (self, name, error) || !_gcuda_context_enter (self->context, &scope, error))
    return NULL;
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuModuleGetGlobal (&ptr, &size, self->handle, name), "cuModuleGetGlobal", error))
    {
      g_prefix_error (error, _("No global “%s” in the module: "), name);
      return NULL;
    }
  return _gcuda_buffer_new_borrowed (self->context, ptr, size, GCUDA_BUFFER_KIND_GLOBAL, G_OBJECT (self));
}

static GCudaCompiler *
source_module_compiler (GCudaContext       *context,
                        const char * const *options)
{
  GCudaCompiler *compiler = gcuda_compiler_new (context);

  if (options != NULL)
    gcuda_compiler_set_options (compiler, options);
  return compiler;
}

/**
 * gcuda_module_new_from_source:
 * @context: (nullable): the context, or %NULL for the default context
 * @source: CUDA C++ source (wrapped in `extern "C"`)
 * @options: (nullable) (array zero-terminated=1): NVRTC options, or %NULL
 * @error: return location for a [struct@GLib.Error]
 *
 * PyCUDA's `SourceModule` in one call: compiles @source with NVRTC for the
 * context device's architecture (through the compile cache, so a source
 * compiled before loads without NVRTC) and loads it. For the other knobs
 * (include directories, headers, PTX, `keep`) use a [class@GCuda.Compiler] and
 * [ctor@GCuda.Module.new_from_program].
 *
 * Returns: (transfer full): the module, or %NULL with @error set (a
 *   [GCUDA_COMPILE_ERROR][error@GCuda.CompileError] carries the compiler's log)
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_module_new_from_source (GCudaContext        *context,
                         const char          *source,
                         const char * const  *options,
                         GError             **error)
{
  g_autoptr(GCudaContext) ctx = NULL;
  g_autoptr(GCudaCompiler) compiler = NULL;
  g_autoptr(GCudaProgram) program = NULL;

  if ((ctx = _gcuda_context_resolve (context, error)) == NULL)
    return NULL;
  compiler = source_module_compiler (ctx, options);
  if ((program = gcuda_compiler_compile (compiler, source, error)) == NULL)
    return NULL;
  return gcuda_module_new_from_program (ctx, program, error);
}

/* What a source module's worker takes: the resolved context, a compiler
 * set up in the caller's thread, the source. */
typedef struct {
  GCudaContext *context;
  GCudaCompiler *compiler;
  char *source;
} SourceModuleWork;

static void
source_module_work_free (gpointer data)
{
  SourceModuleWork *work = data;

  g_clear_object (&work->context);
  g_clear_object (&work->compiler);
  g_free (work->source);
  g_free (work);
}

static gpointer
source_module_work (gpointer       source_object,
                    gpointer       work_data,
                    GCancellable  *cancellable,
                    GError       **error)
{
  SourceModuleWork *work = work_data;
  g_autoptr(GCudaProgram) program = NULL;

  program = gcuda_compiler_compile (work->compiler, work->source, error);
  if (program == NULL)
    return NULL;
  /* Cancelled while NVRTC ran: the task has completed, nobody takes the
   * module (the compile still went to the cache). */
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  /* On this thread too: loading PTX runs the driver's JIT. */
  return gcuda_module_new_from_program (work->context, program, error);
}

/**
 * gcuda_module_new_from_source_async:
 * @context: (nullable): the context, or %NULL for the default context
 * @source: CUDA C++ source (wrapped in `extern "C"`)
 * @options: (nullable) (array zero-terminated=1): NVRTC options, or %NULL
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: (scope async): called when the module is ready
 * @user_data: data for @callback
 *
 * [ctor@GCuda.Module.new_from_source] without blocking: the compile and the load
 * run on a worker thread (a cache hit is quick), @callback runs in the
 * thread-default main context of the caller. Finish with
 * [ctor@GCuda.Module.new_from_source_finish].
 *
 * Cancelling @cancellable completes the call at once with
 * [error@Gio.IOErrorEnum.CANCELLED], whatever NVRTC or the driver is doing:
 * they finish in the background, and what they make is dropped.
 *
 * Since: 1.0
 */
void
gcuda_module_new_from_source_async (GCudaContext        *context,
                               const char          *source,
                               const char * const  *options,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  SourceModuleWork *work;
  GCudaContext *ctx;
  GError *error = NULL;

  g_task_set_source_tag (task, gcuda_module_new_from_source_async);
  if ((ctx = _gcuda_context_resolve (context, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  work = g_new0 (SourceModuleWork, 1);
  work->context = ctx;
  work->compiler = source_module_compiler (ctx, options);
  work->source = g_strdup (source);
  _gcuda_task_run_worker (task, source_module_work, work, source_module_work_free, g_object_unref);
}

/**
 * gcuda_module_new_from_source_finish:
 * @result: the [iface@Gio.AsyncResult] given to the callback
 * @error: return location for a [struct@GLib.Error]
 *
 * Finishes [func@GCuda.Module.new_from_source_async].
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_module_new_from_source_finish (GAsyncResult  *result,
                                GError       **error)
{
  if (!g_task_is_valid (result, NULL) ||
      g_task_get_source_tag (G_TASK (result)) != gcuda_module_new_from_source_async)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("This result is not from an asynchronous compile and load of a source module"));
      return NULL;
    }
  return g_task_propagate_pointer (G_TASK (result), error);
}
