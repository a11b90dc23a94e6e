/* gcuda-linker.c: links device code, PyCUDA's DynamicModule
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-env-private.h"
#include "gcuda-compiler-private.h"
#include "gcuda-context-private.h"
#include "gcuda-jit-options-private.h"
#include "gcuda-module-private.h"
#include "gcuda-program-private.h"

/**
 * GCudaLinker:
 *
 * Links several pieces of device code into one module with the driver's
 * JIT linker (`cuLinkCreate`; PyCUDA's `DynamicModule`): relocatable PTX or
 * cubins, fatbins, objects and static libraries such as the device runtime
 * (`cudadevrt`), which kernels launching kernels (dynamic parallelism)
 * need.
 *
 * ```c
 * static GCudaModule *
 * link_with_device_runtime (const char *source, GError **error)
 * {
 *   g_autoptr(GCudaLinker) linker = gcuda_linker_new (NULL, NULL, error);
 *
 *   if (linker == NULL ||
 *       !gcuda_linker_add_source (linker, NULL, source, error) ||
 *       !gcuda_linker_add_library (linker, "cudadevrt", error))
 *     return NULL;
 *   return gcuda_linker_complete (linker, error);
 * }
 * ```
 *
 * In Python, PyCUDA's `DynamicModule`:
 *
 * ```python
 * source = '''
 * __global__ void child(int *out) { out[threadIdx.x] = threadIdx.x; }
 * __global__ void parent(int *out) { child<<<1, 32>>>(out); }
 * '''
 * mod = GCuda.DynamicModule().add_source(source).add_stdlib('cudadevrt').link()
 * out = GCuda.mem_alloc(32 * 4)
 * mod.get_function('parent')(out, block=(1, 1, 1))
 * ```
 *
 * A linker is used from one thread at a time and completes once; its logs
 * stay readable afterwards.
 *
 * Since: 1.0
 */

struct _GCudaLinker
{
  GObject parent_instance;

  GCudaContext *context;
  CUlinkState state;
  GCudaJitLogs logs;       /* written by the driver until cuLinkDestroy */
  /* The driver writes output options (log sizes) back into the values at
   * cuLinkComplete(): they must live as long as the link state. */
  CUjit_option keys[GCUDA_JIT_MAX_OPTIONS];
  void *values[GCUDA_JIT_MAX_OPTIONS];
  guint n_inputs;
  gboolean completed;
};

G_DEFINE_FINAL_TYPE (GCudaLinker, gcuda_linker, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_INFO_LOG,
  PROP_ERROR_LOG,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
destroy_state (GCudaLinker *self)
{
  if (self->state != NULL)
    GCUDA_CONTEXT_RELEASE (self->context, GCUDA_DRV->fn_cuLinkDestroy (self->state));
  self->state = NULL;
}

static void
gcuda_linker_finalize (GObject *object)
{
  GCudaLinker *self = GCUDA_LINKER (object);

  destroy_state (self);
  _gcuda_jit_logs_clear (&self->logs);
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcuda_linker_parent_class)->finalize (object);
}

static void
gcuda_linker_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  GCudaLinker *self = GCUDA_LINKER (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_INFO_LOG:
      g_value_set_string (value, gcuda_linker_get_info_log (self));
      break;
    case PROP_ERROR_LOG:
      g_value_set_string (value, gcuda_linker_get_error_log (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_linker_class_init (GCudaLinkerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_linker_finalize;
  object_class->get_property = gcuda_linker_get_property;

  /**
   * GCudaLinker:context: (getter get_context)
   *
   * The context the linked module is loaded in.
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT, ro);

  /**
   * GCudaLinker:info-log: (getter get_info_log)
   *
   * The JIT linker's information log so far, possibly empty.
   *
   * Since: 1.0
   */
  properties[PROP_INFO_LOG] = g_param_spec_string ("info-log", NULL, NULL, NULL, ro);

  /**
   * GCudaLinker:error-log: (getter get_error_log)
   *
   * The JIT linker's error log so far, possibly empty. Failing calls put it
   * in their [struct@GLib.Error] too.
   *
   * Since: 1.0
   */
  properties[PROP_ERROR_LOG] = g_param_spec_string ("error-log", NULL, NULL, NULL, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_linker_init (GCudaLinker *self)
{
  _gcuda_jit_logs_init (&self->logs);
}

/**
 * gcuda_linker_new:
 * @context: (nullable): the context, or %NULL for the default context
 * @options: (nullable): options for the JIT compiler and linker, or %NULL
 * @error: return location for a [struct@GLib.Error]
 *
 * Creates a linker (PyCUDA's `DynamicModule`): add inputs with
 * [method@GCuda.Linker.add_source], [method@GCuda.Linker.add_data],
 * [method@GCuda.Linker.add_file] or [method@GCuda.Linker.add_library], then
 * link and load them with [method@GCuda.Linker.complete]. @options out of
 * range are [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: (transfer full): a linker without inputs, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaLinker *
gcuda_linker_new (GCudaContext     *context,
                  GCudaJitOptions  *options,
                  GError          **error)
{
  g_autoptr(GCudaLinker) self = NULL;
  g_autoptr(GCudaContext) ctx = NULL;
  guint n;

  if (!_gcuda_jit_options_check (options, error) || (ctx = _gcuda_context_resolve (context, error)) == NULL)
    return NULL;
  self = g_object_new (GCUDA_TYPE_LINKER, NULL);
  self->context = g_steal_pointer (&ctx);
  n = _gcuda_jit_options_build (options, &self->logs, self->keys, self->values);
  if (!GCUDA_CONTEXT_CALL (self->context, GCUDA_DRV->fn_cuLinkCreate (n, self->keys, self->values, &self->state),
                           "cuLinkCreate", error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * gcuda_linker_get_context: (get-property context)
 * @self: a [class@GCuda.Linker]
 *
 * Gets the context the linked module is loaded in.
 *
 * Returns: (transfer none): the linker's context
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_linker_get_context (GCudaLinker *self)
{
  g_return_val_if_fail (GCUDA_IS_LINKER (self), NULL);
  return self->context;
}

static gboolean
linker_check (GCudaLinker  *self,
              GError      **error)
{
  if (!GCUDA_CHECK_MADE (self->context != NULL, error,
                         _("This GCuda.Linker was made without a link state: create linkers with "
                           "its constructor")))
    return FALSE;
  if (G_UNLIKELY (self->completed))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("This linker has completed its module already; make a new one"));
      return FALSE;
    }
  return TRUE;
}

/* Adds the error log to a failed call's message. */
static gboolean
linker_result (GCudaLinker  *self,
               CUresult      res,
               const char   *call,
               const char   *what,
               GError      **error)
{
  if (_gcuda_check (res, call, error))
    return TRUE;
  if (self->logs.error[0] != '\0')
    g_prefix_error (error, "%s: %s\n", what, self->logs.error);
  else
    g_prefix_error (error, "%s: ", what);
  return FALSE;
}

static GCudaLinkInputType
detect_data_type (const guint8 *data,
                  gsize         size)
{
  if (size >= 4 && memcmp (data, "\177ELF", 4) == 0)
    return GCUDA_LINK_INPUT_TYPE_CUBIN;
  if (size >= 4 && data[0] == 0x50 && data[1] == 0xed && data[2] == 0x55 && data[3] == 0xba)
    return GCUDA_LINK_INPUT_TYPE_FATBINARY;
  if (size >= 8 && memcmp (data, "!<arch>\n", 8) == 0)
    return GCUDA_LINK_INPUT_TYPE_LIBRARY;
  if (g_strstr_len ((const char *) data, MIN (size, 65536), ".version") != NULL)
    return GCUDA_LINK_INPUT_TYPE_PTX;
  return GCUDA_LINK_INPUT_TYPE_AUTO;
}

static gboolean
valid_type (GCudaLinkInputType  type,
            GError            **error)
{
  if (type >= GCUDA_LINK_INPUT_TYPE_CUBIN && type <= GCUDA_LINK_INPUT_TYPE_LIBRARY)
    return TRUE;
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
               _("%d is not a link input type (see GCuda.LinkInputType)"), (int) type);
  return FALSE;
}

/**
 * gcuda_linker_add_data:
 * @self: a [class@GCuda.Linker]
 * @type: what @data is, or
 *   [GCUDA_LINK_INPUT_TYPE_AUTO][enum@GCuda.LinkInputType] to recognize it
 * @data: the device code
 * @name: (nullable): a name for the logs, or %NULL
 * @error: return location for a [struct@GLib.Error]
 *
 * Adds device code from memory (PyCUDA's `DynamicModule.add_data()`). PTX need
 * not be NUL-terminated. Data that is not device code is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error] or the driver's error with
 * the linker's log.
 *
 * Returns: %TRUE if the input was added
 *
 * Since: 1.0
 */
gboolean
gcuda_linker_add_data (GCudaLinker         *self,
                       GCudaLinkInputType   type,
                       GBytes              *data,
                       const char          *name,
                       GError             **error)
{
  g_autofree guint8 *copy = NULL;
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  const guint8 *bytes;
  gsize size = 0;

  g_return_val_if_fail (GCUDA_IS_LINKER (self), FALSE);

  if (!linker_check (self, error))
    return FALSE;
  if (data == NULL || (bytes = g_bytes_get_data (data, &size)) == NULL || size == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("No device code given to link"));
      return FALSE;
    }
  if (type == GCUDA_LINK_INPUT_TYPE_AUTO && (type = detect_data_type (bytes, size)) == GCUDA_LINK_INPUT_TYPE_AUTO)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%s is neither PTX, a cubin, a fatbin nor a library: name its type"),
                   name ? name : _("The data"));
      return FALSE;
    }
  if (!valid_type (type, error))
    return FALSE;
  /* The driver reads PTX up to its NUL. */
  if (type == GCUDA_LINK_INPUT_TYPE_PTX && bytes[size - 1] != '\0')
    {
      copy = g_malloc (size + 1);
      memcpy (copy, bytes, size);
      copy[size] = '\0';
      bytes = copy;
      size++;
    }
  if (!_gcuda_context_enter (self->context, &scope, error) ||
      !linker_result (self, GCUDA_DRV->fn_cuLinkAddData (self->state, (CUjitInputType) type, (void *) bytes, size,
                                                         name ? name : "gcuda-input", 0, NULL, NULL),
                      "cuLinkAddData", name ? name : _("Linking data"), error))
    return FALSE;
  self->n_inputs++;
  return TRUE;
}

static GCudaLinkInputType
type_from_file_name (const char *path)
{
  static const struct { const char *suffix; GCudaLinkInputType type; } suffixes[] = {
    { ".ptx", GCUDA_LINK_INPUT_TYPE_PTX },
    { ".cubin", GCUDA_LINK_INPUT_TYPE_CUBIN },
    { ".fatbin", GCUDA_LINK_INPUT_TYPE_FATBINARY },
    { ".o", GCUDA_LINK_INPUT_TYPE_OBJECT },
    { ".obj", GCUDA_LINK_INPUT_TYPE_OBJECT },
    { ".a", GCUDA_LINK_INPUT_TYPE_LIBRARY },
    { ".lib", GCUDA_LINK_INPUT_TYPE_LIBRARY },
  };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (path, suffixes[i].suffix))
      return suffixes[i].type;
  return GCUDA_LINK_INPUT_TYPE_AUTO;
}

/**
 * gcuda_linker_add_file:
 * @self: a [class@GCuda.Linker]
 * @type: what the file holds, or
 *   [GCUDA_LINK_INPUT_TYPE_AUTO][enum@GCuda.LinkInputType] to go by its
 *   extension (`.ptx`, `.cubin`, `.fatbin`, `.o`, `.a`)
 * @path: (type filename): the file
 * @error: return location for a [struct@GLib.Error]
 *
 * Adds device code from a file (PyCUDA's `DynamicModule.add_file()`). A
 * missing file is [G_FILE_ERROR_NOENT][error@GLib.FileError].
 *
 * Returns: %TRUE if the input was added
 *
 * Since: 1.0
 */
gboolean
gcuda_linker_add_file (GCudaLinker         *self,
                       GCudaLinkInputType   type,
                       const char          *path,
                       GError             **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

  g_return_val_if_fail (GCUDA_IS_LINKER (self), FALSE);

  if (!linker_check (self, error))
    return FALSE;
  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, _("No file %s to link"), path ? path : "(null)");
      return FALSE;
    }
  if (type == GCUDA_LINK_INPUT_TYPE_AUTO && (type = type_from_file_name (path)) == GCUDA_LINK_INPUT_TYPE_AUTO)
    {
      g_autoptr(GMappedFile) mapped = g_mapped_file_new (path, FALSE, error);
      g_autoptr(GBytes) bytes = NULL;

      if (mapped == NULL)
        return FALSE;
      bytes = g_mapped_file_get_bytes (mapped);
      return gcuda_linker_add_data (self, GCUDA_LINK_INPUT_TYPE_AUTO, bytes, path, error);
    }
  if (!valid_type (type, error))
    return FALSE;
  if (!_gcuda_context_enter (self->context, &scope, error) ||
      !linker_result (self, GCUDA_DRV->fn_cuLinkAddFile (self->state, (CUjitInputType) type, path, 0, NULL, NULL),
                      "cuLinkAddFile", path, error))
    return FALSE;
  self->n_inputs++;
  return TRUE;
}

/**
 * gcuda_linker_add_program:
 * @self: a [class@GCuda.Linker]
 * @program: a program compiled with relocatable device code
 *   (`-rdc=true`) when other inputs call into it or it into them
 * @error: return location for a [struct@GLib.Error]
 *
 * Adds a compiled program's PTX or cubin.
 *
 * Returns: %TRUE if the input was added
 *
 * Since: 1.0
 */
gboolean
gcuda_linker_add_program (GCudaLinker   *self,
                          GCudaProgram  *program,
                          GError       **error)
{
  g_return_val_if_fail (GCUDA_IS_LINKER (self), FALSE);

  if (!linker_check (self, error))
    return FALSE;
  if (!GCUDA_IS_PROGRAM (program))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.Program"));
      return FALSE;
    }
  if (!_gcuda_program_check (program, error))
    return FALSE;
  return gcuda_linker_add_data (self,
                                gcuda_program_get_kind (program) == GCUDA_PROGRAM_KIND_PTX
                                  ? GCUDA_LINK_INPUT_TYPE_PTX : GCUDA_LINK_INPUT_TYPE_CUBIN,
                                gcuda_program_get_image (program), NULL, error);
}

/**
 * gcuda_linker_add_source:
 * @self: a [class@GCuda.Linker]
 * @compiler: (nullable): the compiler whose settings to use, or %NULL for
 *   a default compiler of the linker's context
 * @source: CUDA C++ source
 * @error: return location for a [struct@GLib.Error]
 *
 * Compiles @source as relocatable device code (`-rdc=true`, to PTX; the
 * compiler's other settings and cache apply, @compiler itself is not
 * changed) and adds it (PyCUDA's `DynamicModule.add_source()`).
 *
 * Returns: %TRUE if the source compiled and was added
 *
 * Since: 1.0
 */
gboolean
gcuda_linker_add_source (GCudaLinker    *self,
                         GCudaCompiler  *compiler,
                         const char     *source,
                         GError        **error)
{
  g_autoptr(GCudaCompiler) own = NULL;
  g_autoptr(GCudaProgram) program = NULL;

  g_return_val_if_fail (GCUDA_IS_LINKER (self), FALSE);

  if (!linker_check (self, error))
    return FALSE;
  if (compiler != NULL && !GCUDA_IS_COMPILER (compiler))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.Compiler"));
      return FALSE;
    }
  if (compiler == NULL)
    compiler = own = gcuda_compiler_new (self->context);
  if ((program = _gcuda_compiler_compile_relocatable (compiler, source, error)) == NULL)
    return FALSE;
  return gcuda_linker_add_program (self, program, error);
}

/* Where the toolkit's device libraries may be: the environment's toolkit,
 * the one GCuda was built against, the usual places. */
static char *
find_library (const char *file)
{
  const char *env_dirs[] = { "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT" };
  const char *include_dir = _gcuda_secure_getenv ("GCUDA_TOOLKIT_INCLUDE_DIR");
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < G_N_ELEMENTS (env_dirs); i++)
    {
      const char *root = _gcuda_secure_getenv (env_dirs[i]);

      if (root != NULL && *root != '\0')
        {
          g_ptr_array_add (dirs, g_build_filename (root, "lib64", NULL));
          g_ptr_array_add (dirs, g_build_filename (root, "lib", NULL));
        }
    }
  if (include_dir != NULL && *include_dir != '\0')
    {
      g_ptr_array_add (dirs, g_build_filename (include_dir, "..", "lib64", NULL));
      g_ptr_array_add (dirs, g_build_filename (include_dir, "..", "lib", NULL));
    }
  g_ptr_array_add (dirs, g_strdup (GCUDA_TOOLKIT_LIB_DIR));
  g_ptr_array_add (dirs, g_strdup ("/usr/local/cuda/lib64"));
  g_ptr_array_add (dirs, g_strdup ("/usr/lib/x86_64-linux-gnu"));
  g_ptr_array_add (dirs, g_strdup ("/usr/lib/cuda/lib64"));

  for (guint i = 0; i < dirs->len; i++)
    {
      char *path = g_build_filename (g_ptr_array_index (dirs, i), file, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return path;
      g_free (path);
    }
  return NULL;
}

/**
 * gcuda_linker_add_library:
 * @self: a [class@GCuda.Linker]
 * @name: a device library of the CUDA toolkit, such as `"cudadevrt"`
 *   (the device runtime, for dynamic parallelism)
 * @error: return location for a [struct@GLib.Error]
 *
 * Adds `lib<name>.a` from the CUDA toolkit (PyCUDA's
 * `DynamicModule.add_stdlib()`). It is looked for under `$CUDA_HOME`,
 * `$CUDA_PATH`, next to `$GCUDA_TOOLKIT_INCLUDE_DIR`, in the toolkit GCuda
 * was built with and in `/usr/local/cuda`. A library that is not found is
 * [G_FILE_ERROR_NOENT][error@GLib.FileError] naming the places searched.
 *
 * Returns: %TRUE if the library was added
 *
 * Since: 1.0
 */
gboolean
gcuda_linker_add_library (GCudaLinker  *self,
                          const char   *name,
                          GError      **error)
{
  g_autofree char *file = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (GCUDA_IS_LINKER (self), FALSE);

  if (!linker_check (self, error))
    return FALSE;
  if (name == NULL || *name == '\0' || strchr (name, '/') != NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("Name a toolkit library such as \"cudadevrt\"; add other files with Linker.add_file()"));
      return FALSE;
    }
  file = g_strdup_printf ("lib%s.a", name);
  if ((path = find_library (file)) == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   _("The CUDA library %s was not found (looked under $CUDA_HOME, $CUDA_PATH, "
                     "$GCUDA_TOOLKIT_INCLUDE_DIR/../lib64, %s and /usr/local/cuda/lib64)"),
                   file, GCUDA_TOOLKIT_LIB_DIR);
      return FALSE;
    }
  return gcuda_linker_add_file (self, GCUDA_LINK_INPUT_TYPE_LIBRARY, path, error);
}

/**
 * gcuda_linker_complete:
 * @self: a [class@GCuda.Linker]
 * @error: return location for a [struct@GLib.Error]
 *
 * Links the inputs and loads the result (PyCUDA's `DynamicModule.link()`).
 * Unresolved symbols are the driver's error with the linker's log in the
 * message. A linker completes once.
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaModule *
gcuda_linker_complete (GCudaLinker  *self,
                       GError      **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  void *image = NULL;
  size_t size = 0;
  CUmodule handle = NULL;
  const char *call = "cuLinkComplete";
  CUresult res;
  gboolean ok;

  g_return_val_if_fail (GCUDA_IS_LINKER (self), NULL);

  if (!linker_check (self, error))
    return NULL;
  if (self->n_inputs == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Nothing was added to link"));
      return NULL;
    }
  if (!_gcuda_context_enter (self->context, &scope, error))
    return NULL;
  res = GCUDA_DRV->fn_cuLinkComplete (self->state, &image, &size);
  if (res == CUDA_SUCCESS)
    {
      /* The image belongs to the link state: load it before destroying that. */
      call = "cuModuleLoadDataEx";
      res = GCUDA_DRV->fn_cuModuleLoadDataEx (&handle, image, 0, NULL, NULL);
    }
  self->completed = TRUE;
  ok = linker_result (self, res, call, _("Linking"), error);
  destroy_state (self);
  if (!ok)
    return NULL;
  return _gcuda_module_new_for_handle (self->context, handle,
                                       g_strdup (self->logs.info), g_strdup (self->logs.error));
}

/**
 * gcuda_linker_get_info_log: (get-property info-log)
 * @self: a [class@GCuda.Linker]
 *
 * Gets the JIT linker's information log so far.
 *
 * Returns: the linker's information log, possibly empty
 *
 * Since: 1.0
 */
const char *
gcuda_linker_get_info_log (GCudaLinker *self)
{
  g_return_val_if_fail (GCUDA_IS_LINKER (self), NULL);
  /* a linker made by hand has no log buffers */
  return self->logs.info != NULL ? self->logs.info : "";
}

/**
 * gcuda_linker_get_error_log: (get-property error-log)
 * @self: a [class@GCuda.Linker]
 *
 * Gets the JIT linker's error log so far.
 *
 * Returns: the linker's error log, possibly empty
 *
 * Since: 1.0
 */
const char *
gcuda_linker_get_error_log (GCudaLinker *self)
{
  g_return_val_if_fail (GCUDA_IS_LINKER (self), NULL);
  return self->logs.error != NULL ? self->logs.error : "";
}
