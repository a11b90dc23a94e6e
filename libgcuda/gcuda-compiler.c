/* gcuda-compiler.c: NVRTC, PyCUDA's pycuda.compiler
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "gcuda-error-private.h"
#include "gcuda-async-private.h"
#include "gcuda-env-private.h"
#include "gcuda-compile-cache-private.h"
#include "gcuda-std-headers-private.h"
#include "gcuda-compiler-private.h"
#include "gcuda-context-private.h"
#include "gcuda-nvrtc-private.h"
#include "gcuda-program-private.h"

/**
 * GCudaCompiler:
 *
 * Compiles CUDA C++ source with NVRTC, in process (PyCUDA's
 * `pycuda.compiler.compile()`), to a [class@GCuda.Program]: a cubin for the
 * exact architecture of the context's device by default, or PTX on request.
 *
 * ```c
 * static GCudaModule *
 * compile_scale (GError **error)
 * {
 *   g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
 *   const char * const options[] = { "-use_fast_math", NULL };
 *   g_autoptr(GCudaProgram) program = NULL;
 *
 *   gcuda_compiler_set_options (compiler, options);
 *   program = gcuda_compiler_compile (compiler,
 *                                     "__global__ void scale (float *x, float a, int n)\n"
 *                                     "{\n"
 *                                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
 *                                     "  if (i < n)\n"
 *                                     "    x[i] *= a;\n"
 *                                     "}\n",
 *                                     error);
 *   if (program == NULL)
 *     return NULL;
 *   return gcuda_module_new_from_program (NULL, program, error);
 * }
 * ```
 *
 * In Python, PyCUDA's `SourceModule` compiles and loads in one call:
 *
 * ```python
 * mod = GCuda.SourceModule('''
 * __global__ void scale(float *x, float a, int n)
 * {
 *     int i = blockIdx.x * blockDim.x + threadIdx.x;
 *     if (i < n)
 *         x[i] *= a;
 * }''', options=['-use_fast_math'])
 * scale = mod.get_function('scale')
 * ```
 *
 * PyCUDA's knobs are properties: [property@GCuda.Compiler:options],
 * [property@GCuda.Compiler:include-dirs], [property@GCuda.Compiler:arch],
 * [property@GCuda.Compiler:code], [property@GCuda.Compiler:no-extern-c] (by
 * default the source is wrapped in `extern "C" { … }` so kernels keep their
 * plain names), [property@GCuda.Compiler:keep] and
 * [property@GCuda.Compiler:cache-dir]. Headers can also be given as text
 * ([method@GCuda.Compiler.add_header]), and templates are reached through name
 * expressions ([method@GCuda.Compiler.add_name_expression],
 * [method@GCuda.Program.get_lowered_name]). Options in the environment variable
 * `GCUDA_DEFAULT_NVRTC_FLAGS` come before the compiler's own.
 *
 * NVRTC has no host headers; kernels written for nvcc often include some
 * anyway (`<stdio.h>` for `printf`, `<cstdint>`, `<cmath>`) and use `uint`,
 * `ushort` and `ulong` without any include, which every compile declares as
 * nvcc's pre-included headers do (a source declaring them too still compiles).
 * GCuda gives NVRTC small device-side versions of `<assert.h>`, `<float.h>`,
 * `<inttypes.h>`, `<limits.h>`, `<math.h>`, `<stddef.h>`, `<stdint.h>`,
 * `<stdio.h>`, `<stdlib.h>`, `<string.h>` and their C++ names (`<cassert>`
 * … `<cstring>`, with the `std::` names): the types and constants of the
 * host's data model (LP64), `uint`, `ushort` and `ulong` as nvcc's host
 * headers give them, while `printf`, `malloc`, `memcpy` and the math
 * functions are NVRTC's own. A header of the same name of the caller's, in
 * memory or in an include directory, is used instead.
 *
 * Results are cached on disk (`$GCUDA_CACHE_DIR`, else the user's cache
 * directory; `GCUDA_DISABLE_CACHE=1` turns it off) and in the process. The
 * cache key covers the source, the options, the target, NVRTC itself and
 * the content of every header the compile could read, so an edited header
 * never yields stale code; a cache hit does not load NVRTC at all (NVRTC's
 * identity comes from its file, so the library must still be installed).
 * The in-process cache is shared by all compilers of the process whatever
 * their cache directory: a result found there is not written to another
 * directory.
 *
 * Compiling takes tens of milliseconds: a GUI should use
 * [method@GCuda.Compiler.compile_async]. A compiler may be used from any
 * thread; each compile works on a snapshot of its settings.
 *
 * Since: 1.0
 */

struct _GCudaCompiler
{
  GObject parent_instance;

  GMutex lock;             /* guards everything below */
  GCudaContext *context;
  char **options;
  char **include_dirs;
  char *arch;
  char *code;
  gboolean no_extern_c;
  char *keep;
  char *cache_dir;
  GCudaProgramKind target;
  GHashTable *headers;     /* name -> text */
  GPtrArray *name_expressions;
  char *last_log;
};

G_DEFINE_FINAL_TYPE (GCudaCompiler, gcuda_compiler, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_OPTIONS,
  PROP_INCLUDE_DIRS,
  PROP_ARCH,
  PROP_CODE,
  PROP_NO_EXTERN_C,
  PROP_KEEP,
  PROP_CACHE_DIR,
  PROP_TARGET,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* A compile's inputs, copied from the compiler when it starts. */
typedef struct {
  GCudaContext *context;
  char **options;
  char **include_dirs;
  char *arch;
  char *code;
  gboolean no_extern_c;
  char *keep;
  char *cache_dir;
  GCudaProgramKind target;
  GHashTable *headers;
  char **name_expressions;
  char *source;
  gboolean relocatable;  /* add -rdc=true after the caller's options */
} Job;

static void
job_free (Job *job)
{
  g_clear_object (&job->context);
  g_strfreev (job->options);
  g_strfreev (job->include_dirs);
  g_free (job->arch);
  g_free (job->code);
  g_free (job->keep);
  g_free (job->cache_dir);
  g_clear_pointer (&job->headers, g_hash_table_unref);
  g_strfreev (job->name_expressions);
  g_free (job->source);
  g_free (job);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Job, job_free)

static void
gcuda_compiler_finalize (GObject *object)
{
  GCudaCompiler *self = GCUDA_COMPILER (object);

  g_clear_object (&self->context);
  g_strfreev (self->options);
  g_strfreev (self->include_dirs);
  g_free (self->arch);
  g_free (self->code);
  g_free (self->keep);
  g_free (self->cache_dir);
  g_hash_table_unref (self->headers);
  g_ptr_array_unref (self->name_expressions);
  g_free (self->last_log);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (gcuda_compiler_parent_class)->finalize (object);
}

static void
gcuda_compiler_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  GCudaCompiler *self = GCUDA_COMPILER (object);

  g_mutex_lock (&self->lock);
  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_OPTIONS:
      g_value_set_boxed (value, self->options);
      break;
    case PROP_INCLUDE_DIRS:
      g_value_set_boxed (value, self->include_dirs);
      break;
    case PROP_ARCH:
      g_value_set_string (value, self->arch);
      break;
    case PROP_CODE:
      g_value_set_string (value, self->code);
      break;
    case PROP_NO_EXTERN_C:
      g_value_set_boolean (value, self->no_extern_c);
      break;
    case PROP_KEEP:
      g_value_set_string (value, self->keep);
      break;
    case PROP_CACHE_DIR:
      g_value_set_string (value, self->cache_dir);
      break;
    case PROP_TARGET:
      g_value_set_enum (value, self->target);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
  g_mutex_unlock (&self->lock);
}

/* Replaces *@field by a copy of @value; TRUE if it changed. */
static gboolean
set_string (GCudaCompiler *self,
            char         **field,
            const char    *value)
{
  gboolean changed;

  g_mutex_lock (&self->lock);
  changed = g_strcmp0 (*field, value) != 0;
  if (changed)
    {
      g_free (*field);
      *field = g_strdup (value);
    }
  g_mutex_unlock (&self->lock);
  return changed;
}

static gboolean
set_strv (GCudaCompiler       *self,
          char              ***field,
          const char * const  *value)
{
  g_mutex_lock (&self->lock);
  g_strfreev (*field);
  *field = g_strdupv ((char **) (value ? value : (const char * const[]) { NULL }));
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static void
gcuda_compiler_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  GCudaCompiler *self = GCUDA_COMPILER (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      self->context = g_value_dup_object (value);  /* construct-only */
      break;
    case PROP_OPTIONS:
      gcuda_compiler_set_options (self, g_value_get_boxed (value));
      break;
    case PROP_INCLUDE_DIRS:
      gcuda_compiler_set_include_dirs (self, g_value_get_boxed (value));
      break;
    case PROP_ARCH:
      gcuda_compiler_set_arch (self, g_value_get_string (value));
      break;
    case PROP_CODE:
      gcuda_compiler_set_code (self, g_value_get_string (value));
      break;
    case PROP_NO_EXTERN_C:
      gcuda_compiler_set_no_extern_c (self, g_value_get_boolean (value));
      break;
    case PROP_KEEP:
      gcuda_compiler_set_keep (self, g_value_get_string (value));
      break;
    case PROP_CACHE_DIR:
      gcuda_compiler_set_cache_dir (self, g_value_get_string (value));
      break;
    case PROP_TARGET:
      gcuda_compiler_set_target (self, g_value_get_enum (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_compiler_class_init (GCudaCompilerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = gcuda_compiler_finalize;
  object_class->get_property = gcuda_compiler_get_property;
  object_class->set_property = gcuda_compiler_set_property;

  /**
   * GCudaCompiler:context:
   *
   * The context whose device gives the default architecture; %NULL for the
   * default context (only needed when [property@GCuda.Compiler:arch] is not
   * set).
   *
   * Since: 1.0
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaCompiler:options: (setter set_options) (getter get_options)
   *
   * Extra NVRTC options, such as `-use_fast_math` or `-DN=4` (PyCUDA's
   * `options`). An option may take its value as the next option (`-I`,
   * `dir`), but the last one must not be waiting for its value (`-I`, `-D`,
   * `-U`, `-include`, `-arch`, `-Xptxas`, their long forms, …): that is
   * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error] when compiling, since
   * it would take the include directories or the architecture GCuda adds
   * after the options. An architecture among the options (`-arch=compute_90`,
   * `--gpu-architecture=sm_90`, `-arch` and its value as the next option)
   * is what the compile makes, as [property@GCuda.Compiler:arch] would be
   * (a cubin for `sm_XY`, PTX for `compute_XY`), and needs no device; one
   * that differs from [property@GCuda.Compiler:arch] or
   * [property@GCuda.Compiler:code] is
   * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
   *
   * Since: 1.0
   */
  properties[PROP_OPTIONS] = g_param_spec_boxed ("options", NULL, NULL, G_TYPE_STRV, rw);

  /**
   * GCudaCompiler:include-dirs: (setter set_include_dirs) (getter get_include_dirs)
   *
   * Directories searched for `#include` (PyCUDA's `include_dirs`).
   *
   * Since: 1.0
   */
  properties[PROP_INCLUDE_DIRS] = g_param_spec_boxed ("include-dirs", NULL, NULL, G_TYPE_STRV, rw);

  /**
   * GCudaCompiler:arch: (setter set_arch) (getter get_arch)
   *
   * The architecture, such as `sm_90` or `compute_90` (PTX); %NULL for the
   * exact `sm_XY` of the context's device (PyCUDA's `arch`).
   *
   * Since: 1.0
   */
  properties[PROP_ARCH] = g_param_spec_string ("arch", NULL, NULL, NULL, rw);

  /**
   * GCudaCompiler:code: (setter set_code) (getter get_code)
   *
   * The real architecture to generate, such as `sm_90a`, when
   * [property@GCuda.Compiler:arch] names a virtual one (PyCUDA's `code`); it
   * wins over [property@GCuda.Compiler:arch].
   *
   * Since: 1.0
   */
  properties[PROP_CODE] = g_param_spec_string ("code", NULL, NULL, NULL, rw);

  /**
   * GCudaCompiler:no-extern-c: (setter set_no_extern_c) (getter get_no_extern_c)
   *
   * Do not wrap the source in `extern "C" { … }` (PyCUDA's `no_extern_c`);
   * needed for templates.
   *
   * Since: 1.0
   */
  properties[PROP_NO_EXTERN_C] = g_param_spec_boolean ("no-extern-c", NULL, NULL, FALSE, rw);

  /**
   * GCudaCompiler:keep: (setter set_keep) (getter get_keep)
   *
   * A directory to keep the source, log and output of each compile in
   * (PyCUDA's `keep`), made if needed; %NULL (or an empty string) keeps
   * nothing. Keeping is part of the compile: a directory that cannot be
   * made, or files that cannot be written there, fail the compile with a
   * [error@GLib.FileError] (such as
   * [G_FILE_ERROR_NOTDIR][error@GLib.FileError] under a file).
   *
   * Since: 1.0
   */
  properties[PROP_KEEP] = g_param_spec_string ("keep", NULL, NULL, NULL, rw);

  /**
   * GCudaCompiler:cache-dir: (setter set_cache_dir) (getter get_cache_dir)
   *
   * The compile cache's directory (PyCUDA's `cache_dir`): %NULL for the
   * default (`$GCUDA_CACHE_DIR`, else `gcuda` in the user's cache
   * directory), "" to not cache at all (neither on disk nor in the
   * process).
   *
   * Since: 1.0
   */
  properties[PROP_CACHE_DIR] = g_param_spec_string ("cache-dir", NULL, NULL, NULL, rw);

  /**
   * GCudaCompiler:target: (setter set_target) (getter get_target)
   *
   * What to produce: a cubin (the default) or PTX.
   *
   * Since: 1.0
   */
  properties[PROP_TARGET] = g_param_spec_enum ("target", NULL, NULL, GCUDA_TYPE_PROGRAM_KIND,
                                               GCUDA_PROGRAM_KIND_CUBIN, rw);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_compiler_init (GCudaCompiler *self)
{
  g_mutex_init (&self->lock);
  self->options = g_new0 (char *, 1);
  self->include_dirs = g_new0 (char *, 1);
  self->headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->name_expressions = g_ptr_array_new_with_free_func (g_free);
}

/**
 * gcuda_compiler_new:
 * @context: (nullable): the context whose device gives the default
 *   architecture, or %NULL for the default context
 *
 * Creates a compiler with PyCUDA's defaults: a cubin for the exact
 * architecture of the device of @context, the source wrapped in
 * `extern "C"`, and the default compile cache.
 *
 * Returns: (transfer full): a new compiler
 *
 * Since: 1.0
 */
GCudaCompiler *
gcuda_compiler_new (GCudaContext *context)
{
  return g_object_new (GCUDA_TYPE_COMPILER, "context", context, NULL);
}

/**
 * gcuda_compiler_set_options: (set-property options)
 * @self: a [class@GCuda.Compiler]
 * @options: (nullable) (array zero-terminated=1): NVRTC options
 *
 * Sets [property@GCuda.Compiler:options].
 *
 * Since: 1.0
 */
void
gcuda_compiler_set_options (GCudaCompiler      *self,
                            const char * const *options)
{
  g_return_if_fail (GCUDA_IS_COMPILER (self));
  set_strv (self, &self->options, options);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OPTIONS]);
}

/**
 * gcuda_compiler_get_options: (get-property options)
 * @self: a [class@GCuda.Compiler]
 *
 * Gets the extra NVRTC options given to every compile (PyCUDA's `options`).
 *
 * Returns: (transfer none) (array zero-terminated=1): the options
 *
 * Since: 1.0
 */
const char * const *
gcuda_compiler_get_options (GCudaCompiler *self)
{
  g_return_val_if_fail (GCUDA_IS_COMPILER (self), NULL);
  return (const char * const *) self->options;
}

/**
 * gcuda_compiler_set_include_dirs: (set-property include-dirs)
 * @self: a [class@GCuda.Compiler]
 * @include_dirs: (nullable) (array zero-terminated=1): directories
 *
 * Sets [property@GCuda.Compiler:include-dirs].
 *
 * Since: 1.0
 */
void
gcuda_compiler_set_include_dirs (GCudaCompiler      *self,
                                 const char * const *include_dirs)
{
  g_return_if_fail (GCUDA_IS_COMPILER (self));
  set_strv (self, &self->include_dirs, include_dirs);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INCLUDE_DIRS]);
}

/**
 * gcuda_compiler_get_include_dirs: (get-property include-dirs)
 * @self: a [class@GCuda.Compiler]
 *
 * Gets the directories searched for `#include` (PyCUDA's `include_dirs`).
 *
 * Returns: (transfer none) (array zero-terminated=1): the include directories
 *
 * Since: 1.0
 */
const char * const *
gcuda_compiler_get_include_dirs (GCudaCompiler *self)
{
  g_return_val_if_fail (GCUDA_IS_COMPILER (self), NULL);
  return (const char * const *) self->include_dirs;
}

#define STRING_ACCESSORS(field, prop) \
  void \
  gcuda_compiler_set_##field (GCudaCompiler *self, \
                              const char    *value) \
  { \
    g_return_if_fail (GCUDA_IS_COMPILER (self)); \
    if (set_string (self, &self->field, value)) \
      g_object_notify_by_pspec (G_OBJECT (self), properties[prop]); \
  } \
  const char * \
  gcuda_compiler_get_##field (GCudaCompiler *self) \
  { \
    g_return_val_if_fail (GCUDA_IS_COMPILER (self), NULL); \
    return self->field; \
  }

/**
 * gcuda_compiler_set_arch: (set-property arch)
 * @self: a [class@GCuda.Compiler]
 * @arch: (nullable): the architecture
 *
 * Sets [property@GCuda.Compiler:arch].
 *
 * Since: 1.0
 */
/**
 * gcuda_compiler_get_arch: (get-property arch)
 * @self: a [class@GCuda.Compiler]
 *
 * Gets the architecture to compile for; %NULL means the exact `sm_XY` of the
 * context's device.
 *
 * Returns: (nullable): [property@GCuda.Compiler:arch]
 *
 * Since: 1.0
 */
STRING_ACCESSORS (arch, PROP_ARCH)

/**
 * gcuda_compiler_set_code: (set-property code)
 * @self: a [class@GCuda.Compiler]
 * @code: (nullable): the real architecture
 *
 * Sets [property@GCuda.Compiler:code].
 *
 * Since: 1.0
 */
/**
 * gcuda_compiler_get_code: (get-property code)
 * @self: a [class@GCuda.Compiler]
 *
 * Gets the real architecture to generate when [property@GCuda.Compiler:arch]
 * names a virtual one.
 *
 * Returns: (nullable): [property@GCuda.Compiler:code]
 *
 * Since: 1.0
 */
STRING_ACCESSORS (code, PROP_CODE)

/**
 * gcuda_compiler_set_keep: (set-property keep)
 * @self: a [class@GCuda.Compiler]
 * @directory: (nullable) (type filename): where to keep the compile's files
 *
 * Sets [property@GCuda.Compiler:keep].
 *
 * Since: 1.0
 */
/**
 * gcuda_compiler_get_keep: (get-property keep)
 * @self: a [class@GCuda.Compiler]
 *
 * Gets the directory that receives the source, log and output of each compile,
 * if any.
 *
 * Returns: (nullable) (type filename): [property@GCuda.Compiler:keep]
 *
 * Since: 1.0
 */
STRING_ACCESSORS (keep, PROP_KEEP)

/**
 * gcuda_compiler_set_cache_dir: (set-property cache-dir)
 * @self: a [class@GCuda.Compiler]
 * @directory: (nullable) (type filename): the cache directory, %NULL for the default, "" for none
 *
 * Sets [property@GCuda.Compiler:cache-dir].
 *
 * Since: 1.0
 */
/**
 * gcuda_compiler_get_cache_dir: (get-property cache-dir)
 * @self: a [class@GCuda.Compiler]
 *
 * Gets the compile cache's directory; %NULL means the default one and an empty
 * string no cache.
 *
 * Returns: (nullable) (type filename): [property@GCuda.Compiler:cache-dir]
 *
 * Since: 1.0
 */
STRING_ACCESSORS (cache_dir, PROP_CACHE_DIR)

/**
 * gcuda_compiler_set_no_extern_c: (set-property no-extern-c)
 * @self: a [class@GCuda.Compiler]
 * @no_extern_c: %TRUE to compile the source as it is
 *
 * Sets [property@GCuda.Compiler:no-extern-c].
 *
 * Since: 1.0
 */
void
gcuda_compiler_set_no_extern_c (GCudaCompiler *self,
                                gboolean       no_extern_c)
{
  g_return_if_fail (GCUDA_IS_COMPILER (self));

  no_extern_c = !!no_extern_c;
  if (self->no_extern_c != no_extern_c)
    {
      self->no_extern_c = no_extern_c;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NO_EXTERN_C]);
    }
}

/**
 * gcuda_compiler_get_no_extern_c: (get-property no-extern-c)
 * @self: a [class@GCuda.Compiler]
 *
 * Gets whether the source is compiled as it is, without an `extern "C"`
 * wrapper.
 *
 * Returns: [property@GCuda.Compiler:no-extern-c]
 *
 * Since: 1.0
 */
gboolean
gcuda_compiler_get_no_extern_c (GCudaCompiler *self)
{
  g_return_val_if_fail (GCUDA_IS_COMPILER (self), FALSE);
  return self->no_extern_c;
}

/**
 * gcuda_compiler_set_target: (set-property target)
 * @self: a [class@GCuda.Compiler]
 * @target: cubin or PTX
 *
 * Sets [property@GCuda.Compiler:target].
 *
 * Since: 1.0
 */
void
gcuda_compiler_set_target (GCudaCompiler    *self,
                           GCudaProgramKind  target)
{
  g_return_if_fail (GCUDA_IS_COMPILER (self));
  g_return_if_fail (target == GCUDA_PROGRAM_KIND_CUBIN || target == GCUDA_PROGRAM_KIND_PTX);

  if (self->target != target)
    {
      self->target = target;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TARGET]);
    }
}

/**
 * gcuda_compiler_get_target: (get-property target)
 * @self: a [class@GCuda.Compiler]
 *
 * Gets what a compile produces: a cubin or PTX.
 *
 * Returns: [property@GCuda.Compiler:target]
 *
 * Since: 1.0
 */
GCudaProgramKind
gcuda_compiler_get_target (GCudaCompiler *self)
{
  g_return_val_if_fail (GCUDA_IS_COMPILER (self), GCUDA_PROGRAM_KIND_CUBIN);
  return self->target;
}

/**
 * gcuda_compiler_add_header:
 * @self: a [class@GCuda.Compiler]
 * @name: the name `#include` uses, such as `params.h`
 * @text: the header's text
 *
 * Makes a header available to `#include` without a file; it takes
 * precedence over files of the same name. Adding a name again replaces it.
 *
 * Since: 1.0
 */
void
gcuda_compiler_add_header (GCudaCompiler *self,
                           const char    *name,
                           const char    *text)
{
  g_return_if_fail (GCUDA_IS_COMPILER (self));
  g_return_if_fail (name != NULL && text != NULL);

  g_mutex_lock (&self->lock);
  g_hash_table_insert (self->headers, g_strdup (name), g_strdup (text));
  g_mutex_unlock (&self->lock);
}

/**
 * gcuda_compiler_add_name_expression:
 * @self: a [class@GCuda.Compiler]
 * @name_expression: a `__global__` function or `__device__` variable, such
 *   as `my_kernel<float, 4>`
 *
 * Asks the compile to instantiate and name @name_expression; its lowered
 * name is then [method@GCuda.Program.get_lowered_name]. Needs
 * [property@GCuda.Compiler:no-extern-c] for templates.
 *
 * Since: 1.0
 */
void
gcuda_compiler_add_name_expression (GCudaCompiler *self,
                                    const char    *name_expression)
{
  g_return_if_fail (GCUDA_IS_COMPILER (self));
  g_return_if_fail (name_expression != NULL);

  g_mutex_lock (&self->lock);
  g_ptr_array_add (self->name_expressions, g_strdup (name_expression));
  g_mutex_unlock (&self->lock);
}

/**
 * gcuda_compiler_get_last_log:
 * @self: a [class@GCuda.Compiler]
 *
 * The log of the compiler's latest compile, successful or not (also in the
 * error message of a failed one).
 *
 * Returns: (transfer full) (nullable): the log, or %NULL before the first compile
 *
 * Since: 1.0
 */
char *
gcuda_compiler_get_last_log (GCudaCompiler *self)
{
  char *log;

  g_return_val_if_fail (GCUDA_IS_COMPILER (self), NULL);

  g_mutex_lock (&self->lock);
  log = g_strdup (self->last_log);
  g_mutex_unlock (&self->lock);
  return log;
}

static Job *
job_new (GCudaCompiler *self,
         const char    *source)
{
  Job *job = g_new0 (Job, 1);
  GHashTableIter iter;
  gpointer k, v;

  g_mutex_lock (&self->lock);
  job->context = self->context ? g_object_ref (self->context) : NULL;
  job->options = g_strdupv (self->options);
  job->include_dirs = g_strdupv (self->include_dirs);
  job->arch = g_strdup (self->arch);
  job->code = g_strdup (self->code);
  job->no_extern_c = self->no_extern_c;
  job->keep = g_strdup (self->keep);
  job->cache_dir = g_strdup (self->cache_dir);
  job->target = self->target;
  job->headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_iter_init (&iter, self->headers);
  while (g_hash_table_iter_next (&iter, &k, &v))
    g_hash_table_insert (job->headers, g_strdup (k), g_strdup (v));
  job->name_expressions = g_new0 (char *, self->name_expressions->len + 1);
  for (guint i = 0; i < self->name_expressions->len; i++)
    job->name_expressions[i] = g_strdup (g_ptr_array_index (self->name_expressions, i));
  g_mutex_unlock (&self->lock);
  job->source = g_strdup (source);
  return job;
}

static void
set_last_log (GCudaCompiler *self,
              const char    *log)
{
  g_mutex_lock (&self->lock);
  g_free (self->last_log);
  self->last_log = g_strdup (log);
  g_mutex_unlock (&self->lock);
}

static char *
default_arch (Job     *job,
              GError **error)
{
  g_autoptr(GCudaContext) context = _gcuda_context_resolve (job->context, error);
  int major = 0, minor = 0;

  /* a context made by hand has no device */
  if (context == NULL ||
      !GCUDA_CHECK_MADE (gcuda_context_get_device (context) != NULL, error,
                         _("The compiler's GCuda.Context has no CUDA context behind it: obtain contexts from "
                           "Context.get_default() or from a device")))
    {
      g_prefix_error (error, _("No architecture was given and the device's cannot be found: "));
      return NULL;
    }
  gcuda_device_get_compute_capability (gcuda_context_get_device (context), &major, &minor);
  return g_strdup_printf ("sm_%d%d", major, minor);
}

static gboolean
set_compile_error (nvrtcResult          res,
                   const GCudaNvrtc    *nv,
                   const char          *what,
                   GError             **error)
{
  if (res == NVRTC_SUCCESS)
    return TRUE;
  g_set_error (error, GCUDA_COMPILE_ERROR, (int) res, _("%s failed: %s"), what, nv->fn_nvrtcGetErrorString (res));
  return FALSE;
}

/* Makes the #GCudaCompiler:keep directory, before compiling: keeping was
 * asked for, so a directory that cannot be made is the compile's error (a
 * G_FILE_ERROR), not a warning after it. */
static gboolean
keep_dir_make (const char  *dir,
               GError     **error)
{
  int saved_errno;

  if (dir == NULL || *dir == '\0' || g_mkdir_with_parents (dir, 0700) == 0)
    return TRUE;
  saved_errno = errno;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               _("Cannot keep the compile's files in %s: %s"), dir, g_strerror (saved_errno));
  return FALSE;
}

/* Writes the compile's files where #GCudaCompiler:keep says (made by
 * keep_dir_make()). */
static gboolean
keep_files (const char  *dir,
            const char  *source,
            const char  *log,
            GBytes      *image,
            gboolean     ptx,
            GError     **error)
{
  g_autofree char *src_path = NULL, *log_path = NULL, *out_path = NULL;

  if (dir == NULL || *dir == '\0')
    return TRUE;
  src_path = g_build_filename (dir, "kernel.cu", NULL);
  log_path = g_build_filename (dir, "kernel.log", NULL);
  out_path = g_build_filename (dir, ptx ? "kernel.ptx" : "kernel.cubin", NULL);
  if (!g_file_set_contents (src_path, source, -1, error) ||
      !g_file_set_contents (log_path, log ? log : "", -1, error) ||
      (image != NULL && !g_file_set_contents (out_path, g_bytes_get_data (image, NULL),
                                              g_bytes_get_size (image), error)))
    {
      g_prefix_error (error, _("Cannot keep the compile's files in %s: "), dir);
      return FALSE;
    }
  return TRUE;
}

/* One compile, step by step. @inputs points into the state and its job. */
typedef struct {
  Job *job;
  char *arch;                /* what it compiles for */
  GCudaProgramKind kind;
  GPtrArray *options;        /* NVRTC's, NULL-terminated */
  char *source;              /* the source as NVRTC sees it */
  char *cache_dir;           /* NULL: no cache */
  char *key;                 /* NULL: not cached */
  GCudaCompileInputs inputs; /* what the key covers */
  char *log;                 /* NVRTC's, once it ran */
} CompileState;

static void
compile_state_clear (CompileState *state)
{
  g_clear_pointer (&state->arch, g_free);
  g_clear_pointer (&state->options, g_ptr_array_unref);
  g_clear_pointer (&state->source, g_free);
  g_clear_pointer (&state->cache_dir, g_free);
  g_clear_pointer (&state->key, g_free);
  g_clear_pointer (&state->log, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CompileState, compile_state_clear)

/* What to compile for: an architecture among the caller's options
 * (@option_arch, as given there), else code, else arch, else the device's
 * own. An option that names another architecture than the compiler's
 * code or arch is refused rather than one of them silently ignored. A
 * virtual architecture has no cubin, so its @kind is PTX. */
static char *
compile_arch (Job               *job,
              const char        *option_arch,
              const char        *option_text,
              GCudaProgramKind  *kind,
              GError           **error)
{
  const char *setting = NULL;
  char *arch;

  if (job->code != NULL && *job->code != '\0')
    setting = job->code;
  else if (job->arch != NULL && *job->arch != '\0')
    setting = job->arch;
  if (option_arch != NULL && setting != NULL && !g_str_equal (option_arch, setting))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The NVRTC option “%s” names another architecture than the compiler’s %s (%s): "
                     "give the architecture once, as the compiler’s arch (arch= in Python) or as the option"),
                   option_text, setting == job->code ? "code" : "arch", setting);
      return NULL;
    }
  if (option_arch != NULL)
    arch = g_strdup (option_arch);
  else if (setting != NULL)
    arch = g_strdup (setting);
  else if ((arch = default_arch (job, error)) == NULL)
    return NULL;
  *kind = g_str_has_prefix (arch, "compute_") ? GCUDA_PROGRAM_KIND_PTX : job->target;
  return arch;
}

/* The value of an architecture option at @options[*i] (-arch=X,
 * --gpu-architecture=X, "-arch X", or -arch and --gpu-architecture with X
 * as the next option, whose index *i then moves to), or NULL when it is
 * not one. */
static const char *
arch_option_value (GPtrArray *options,
                   guint     *i)
{
  static const char * const names[] = { "-arch", "--gpu-architecture" };
  const char *option = g_ptr_array_index (options, *i);

  for (guint j = 0; j < G_N_ELEMENTS (names); j++)
    {
      gsize n = strlen (names[j]);

      if (strncmp (option, names[j], n) != 0)
        continue;
      if (option[n] == '=' || option[n] == ' ')
        return option + n + strspn (option + n + 1, " ") + 1;
      if (option[n] == '\0' && *i + 1 < options->len)
        return g_ptr_array_index (options, ++*i);
    }
  return NULL;
}

/* NVRTC options that take their value as the next option ("-I", "dir")
 * as well as attached ("-Idir", "--include-path=dir"). */
static const char * const separate_value_options[] = {
  "-I", "--include-path", "-D", "--define-macro", "-U", "--undefine-macro", "-include", "--pre-include",
  "-arch", "--gpu-architecture", "-Xptxas", "--ptxas-options", "-dopt", "--dopt", "-Xnvvm",
};

/* The caller's options (@options[0] to @n) must not end with an option
 * waiting for its value: it would take the first option GCuda adds after
 * them, an include directory or the architecture (NVRTC then compiles for
 * its default architecture without a word). */
static gboolean
check_dangling_option (GPtrArray  *options,
                       guint       n,
                       GError    **error)
{
  const char *waiting = NULL;

  for (guint i = 0; i < n; i++)
    {
      const char *option = g_ptr_array_index (options, i);

      if (waiting != NULL)
        {
          waiting = NULL;  /* @option is its value */
          continue;
        }
      for (guint j = 0; j < G_N_ELEMENTS (separate_value_options); j++)
        if (g_str_equal (option, separate_value_options[j]))
          waiting = option;
    }
  if (waiting == NULL)
    return TRUE;
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
               _("The NVRTC option “%s” is the last option but takes a value: give the value as the next "
                 "option or attached to it"), waiting);
  return FALSE;
}

/* NVRTC's options, not yet terminated: GCUDA_DEFAULT_NVRTC_FLAGS first,
 * then the compiler's options and its include directories; the
 * architecture is added by the caller. An architecture among the options
 * is taken out (the last one wins) and returned in @option_arch, as it was
 * written in @option_text, so that it decides what is made (a cubin, or PTX
 * for a compute_XY) and is given to NVRTC once. */
static GPtrArray *
compile_options (Job         *job,
                 char       **option_arch,
                 char       **option_text,
                 GError     **error)
{
  g_autoptr(GPtrArray) options = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) kept = g_ptr_array_new_with_free_func (g_free);
  const char *env_flags = _gcuda_secure_getenv ("GCUDA_DEFAULT_NVRTC_FLAGS");

  if (env_flags != NULL && *env_flags != '\0')
    {
      g_auto(GStrv) default_flags = NULL;
      g_autoptr(GError) parse_error = NULL;

      if (!g_shell_parse_argv (env_flags, NULL, &default_flags, &parse_error))
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                       _("GCUDA_DEFAULT_NVRTC_FLAGS cannot be parsed: %s"), parse_error->message);
          return NULL;
        }
      for (guint i = 0; default_flags[i] != NULL; i++)
        g_ptr_array_add (options, g_strdup (default_flags[i]));
    }
  for (guint i = 0; job->options[i] != NULL; i++)
    g_ptr_array_add (options, g_strdup (job->options[i]));
  if (!check_dangling_option (options, options->len, error))
    return NULL;
  for (guint i = 0; i < options->len; i++)
    {
      guint first = i;
      const char *value = arch_option_value (options, &i);

      if (value == NULL)
        {
          g_ptr_array_add (kept, g_strdup (g_ptr_array_index (options, i)));
          continue;
        }
      if (*value == '\0')
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                       _("The NVRTC option “%s” names no architecture"), (char *) g_ptr_array_index (options, first));
          return NULL;
        }
      g_free (*option_arch);
      g_free (*option_text);
      *option_arch = g_strdup (value);
      *option_text = i == first ? g_strdup (g_ptr_array_index (options, i))
                                : g_strdup_printf ("%s %s", (char *) g_ptr_array_index (options, first), value);
    }
  if (job->relocatable)
    g_ptr_array_add (kept, g_strdup ("--relocatable-device-code=true"));
  for (guint i = 0; job->include_dirs[i] != NULL; i++)
    g_ptr_array_add (kept, g_strconcat ("-I", job->include_dirs[i], NULL));
  return g_steal_pointer (&kept);
}

/* nvcc pre-includes its runtime header, which brings glibc's <sys/types.h>
 * and with it `uint`, `ushort` and `ulong`: sources written for nvcc use
 * them without an include, and NVRTC has no such header. Declaring a typedef
 * again as the same type is valid C++, so a source (or a header) declaring
 * them itself still compiles; a macro of the same name (-Duint=...) wins. */
#define NVCC_TYPEDEFS \
  "#ifndef ushort\ntypedef unsigned short ushort;\n#endif\n" \
  "#ifndef uint\ntypedef unsigned int uint;\n#endif\n" \
  "#ifndef ulong\ntypedef unsigned long ulong;\n#endif\n"

/* What the job's settings come to: the target, NVRTC's options, the source
 * as NVRTC sees it and, when the cache is on, the key. */
static gboolean
compile_state_init (CompileState  *state,
                    GError       **error)
{
  Job *job = state->job;
  g_autofree char *option_arch = NULL;
  g_autofree char *option_text = NULL;

  if (job->source == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("No source given"));
      return FALSE;
    }
  if ((state->options = compile_options (job, &option_arch, &option_text, error)) == NULL ||
      (state->arch = compile_arch (job, option_arch, option_text, &state->kind, error)) == NULL)
    return FALSE;
  /* last, once: what the cache key covers is what NVRTC is given */
  g_ptr_array_add (state->options, g_strconcat ("--gpu-architecture=", state->arch, NULL));
  g_ptr_array_add (state->options, NULL);

  /* PyCUDA wraps the whole source, so kernels keep their plain names; the
   * #line keeps the log's line numbers those of the caller's source. */
  state->source = job->no_extern_c ? g_strconcat (NVCC_TYPEDEFS "#line 1 \"kernel.cu\"\n", job->source, NULL)
                                   : g_strconcat (NVCC_TYPEDEFS "extern \"C\" {\n#line 1 \"kernel.cu\"\n",
                                                  job->source, "\n}\n", NULL);

  /* The cache: "" turns it off; NULL means the default (or none when the
   * environment says so). */
  if (job->cache_dir != NULL)
    state->cache_dir = *job->cache_dir ? g_strdup (job->cache_dir) : NULL;
  else
    state->cache_dir = _gcuda_compile_cache_default_dir ();
  state->inputs.source = state->source;
  state->inputs.source_name = "kernel.cu";
  state->inputs.options = (const char * const *) state->options->pdata;
  state->inputs.include_dirs = (const char * const *) job->include_dirs;
  state->inputs.headers = job->headers;
  state->inputs.name_expressions = (const char * const *) job->name_expressions;
  state->inputs.target = state->kind == GCUDA_PROGRAM_KIND_PTX ? "ptx" : "cubin";
  if (state->cache_dir != NULL)
    state->key = _gcuda_compile_cache_key (&state->inputs);
  return TRUE;
}

/* The program from the cache, or NULL on a miss (or with no key). */
static GCudaProgram *
cache_lookup (GCudaCompiler *self,
              CompileState  *state)
{
  g_autofree char *log = NULL;
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GHashTable) lowered = NULL;
  GCudaProgram *program;

  if (state->key == NULL)
    return NULL;
  /* the lowered names come back as stored, whatever bytes the name
   * expressions hold (NULL, for none: the program makes an empty table) */
  image = _gcuda_compile_cache_lookup (state->cache_dir, state->key, &log, &lowered);
  if (image == NULL)
    return NULL;
  set_last_log (self, log);
  program = _gcuda_program_new (image, state->kind, log, state->arch, lowered, TRUE);
  _gcuda_program_set_cache_key (program, state->key);
  return program;
}

/* Whether the compile has a header @name of the user's: an in-memory one,
 * or a file of that name in an include directory (an -I option, which
 * #GCudaCompiler:include-dirs become). Such a header wins over GCuda's
 * built-in one: NVRTC would take an in-memory header before any file. */
static gboolean
user_has_header (CompileState *state,
                 const char   *name)
{
  const char * const *options = (const char * const *) state->options->pdata;

  if (g_hash_table_contains (state->job->headers, name))
    return TRUE;
  for (guint i = 0; options[i] != NULL; i++)
    {
      const char *dir = NULL;
      g_autofree char *path = NULL;
      struct stat st;

      if (g_str_equal (options[i], "-I") || g_str_equal (options[i], "--include-path"))
        dir = options[i + 1] != NULL ? options[++i] : NULL;
      else if (g_str_has_prefix (options[i], "--include-path="))
        dir = options[i] + strlen ("--include-path=");
      else if (g_str_has_prefix (options[i], "-I"))
        dir = options[i] + 2;
      if (dir == NULL || *dir == '\0')
        continue;
      path = g_build_filename (dir, name, NULL);
      if (stat (path, &st) == 0 && !S_ISDIR (st.st_mode))
        return TRUE;
    }
  return FALSE;
}

/* NVRTC's program: the source, the in-memory headers (the caller's, then
 * GCuda's built-in standard headers the caller has none of), the name
 * expressions. */
static nvrtcProgram
nvrtc_program_new (const GCudaNvrtc  *nv,
                   CompileState      *state,
                   GError           **error)
{
  GHashTable *headers = state->job->headers;
  const GCudaStdHeader *builtin = _gcuda_std_headers ();
  guint n_builtin = 0;
  g_autofree const char **names = NULL;
  g_autofree const char **texts = NULL;
  char **name_expressions = state->job->name_expressions;
  nvrtcProgram prog = NULL;
  guint n = 0;
  GHashTableIter iter;
  gpointer k, v;

  while (builtin[n_builtin].name != NULL)
    n_builtin++;
  names = g_new0 (const char *, g_hash_table_size (headers) + n_builtin + 1);
  texts = g_new0 (const char *, g_hash_table_size (headers) + n_builtin + 1);
  g_hash_table_iter_init (&iter, headers);
  while (g_hash_table_iter_next (&iter, &k, &v))
    {
      names[n] = k;
      texts[n] = v;
      n++;
    }
  for (guint i = 0; i < n_builtin; i++)
    if (!user_has_header (state, builtin[i].name))
      {
        names[n] = builtin[i].name;
        texts[n] = builtin[i].text;
        n++;
      }
  if (!set_compile_error (nv->fn_nvrtcCreateProgram (&prog, state->source, "kernel.cu", (int) n, texts, names),
                          nv, "nvrtcCreateProgram", error))
    return NULL;
  for (guint i = 0; name_expressions[i] != NULL; i++)
    if (!set_compile_error (nv->fn_nvrtcAddNameExpression (prog, name_expressions[i]), nv,
                            "nvrtcAddNameExpression", error))
      {
        nv->fn_nvrtcDestroyProgram (&prog);
        return NULL;
      }
  return prog;
}

/* Runs NVRTC; its log becomes @state's and the compiler's last log. */
static gboolean
nvrtc_compile (GCudaCompiler     *self,
               const GCudaNvrtc  *nv,
               nvrtcProgram       prog,
               CompileState      *state,
               GError           **error)
{
  nvrtcResult res = nv->fn_nvrtcCompileProgram (prog, (int) state->options->len - 1,
                                                (const char * const *) state->options->pdata);
  size_t size = 0;

  if (nv->fn_nvrtcGetProgramLogSize (prog, &size) == NVRTC_SUCCESS && size > 0)
    {
      state->log = g_malloc0 (size + 1);
      if (nv->fn_nvrtcGetProgramLog (prog, state->log) != NVRTC_SUCCESS)
        state->log[0] = '\0';
    }
  else
    state->log = g_strdup ("");
  set_last_log (self, state->log);

  if (res == NVRTC_SUCCESS)
    return TRUE;
  g_set_error (error, GCUDA_COMPILE_ERROR, (int) res, _("NVRTC could not compile the source for %s (%s):\n%s"),
               state->arch, nv->fn_nvrtcGetErrorString (res), state->log);
  /* the compile's error is what the caller needs; the files are a bonus */
  keep_files (state->job->keep, state->source, state->log, NULL, FALSE, NULL);
  return FALSE;
}

/* The compiled image: PTX or a cubin. */
static GBytes *
nvrtc_get_image (const GCudaNvrtc  *nv,
                 nvrtcProgram       prog,
                 GCudaProgramKind   kind,
                 GError           **error)
{
  gboolean ptx = kind == GCUDA_PROGRAM_KIND_PTX;
  g_autofree char *data = NULL;
  size_t size = 0;

  if (!set_compile_error (ptx ? nv->fn_nvrtcGetPTXSize (prog, &size) : nv->fn_nvrtcGetCUBINSize (prog, &size),
                          nv, "nvrtcGetCUBINSize", error))
    return NULL;
  data = g_malloc (MAX (size, 1));
  if (!set_compile_error (ptx ? nv->fn_nvrtcGetPTX (prog, data) : nv->fn_nvrtcGetCUBIN (prog, data),
                          nv, "nvrtcGetCUBIN", error))
    return NULL;
  return g_bytes_new_take (g_steal_pointer (&data), size);
}

/* Name expression -> lowered name, for each of @name_expressions. */
static GHashTable *
nvrtc_get_lowered (const GCudaNvrtc  *nv,
                   nvrtcProgram       prog,
                   char             **name_expressions,
                   GError           **error)
{
  g_autoptr(GHashTable) lowered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; name_expressions[i] != NULL; i++)
    {
      const char *name = NULL;

      if (!set_compile_error (nv->fn_nvrtcGetLoweredName (prog, name_expressions[i], &name), nv,
                              "nvrtcGetLoweredName", error))
        return NULL;
      g_hash_table_insert (lowered, g_strdup (name_expressions[i]), g_strdup (name));
    }
  return g_steal_pointer (&lowered);
}

/* Caches a fresh compile. Failing costs only the entry, so it is not an
 * error. FALSE when the key does not describe the image. */
static gboolean
cache_store (CompileState *state,
             GBytes       *image,
             GHashTable   *lowered)
{
  g_autoptr(GError) store_error = NULL;
  g_autofree char *key_after = NULL;

  if (state->key == NULL)
    return FALSE;
  key_after = _gcuda_compile_cache_key (&state->inputs);
  /* A header edited while NVRTC ran: the output matches neither key. */
  if (g_strcmp0 (state->key, key_after) != 0)
    {
      g_debug ("not cached: a header changed during the compile");
      return FALSE;
    }
  /* in process first, so a disk that refuses it leaves the key valid */
  if (!_gcuda_compile_cache_store (state->cache_dir, state->key, image, state->log, lowered, &store_error))
    g_debug ("not cached: %s", store_error->message);  /* a refused directory was warned about */
  return TRUE;
}

/* A cache miss: NVRTC compiles, the result is cached and kept. */
static GCudaProgram *
nvrtc_run (GCudaCompiler  *self,
           CompileState   *state,
           GError        **error)
{
  const GCudaNvrtc *nv = _gcuda_nvrtc_get (error);
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GHashTable) lowered = NULL;
  GCudaProgram *program;
  nvrtcProgram prog;
  gboolean ok;

  if (nv == NULL || (prog = nvrtc_program_new (nv, state, error)) == NULL)
    return NULL;
  ok = nvrtc_compile (self, nv, prog, state, error) &&
       (image = nvrtc_get_image (nv, prog, state->kind, error)) != NULL &&
       (lowered = nvrtc_get_lowered (nv, prog, state->job->name_expressions, error)) != NULL;
  nv->fn_nvrtcDestroyProgram (&prog);
  if (!ok)
    return NULL;

  program = _gcuda_program_new (image, state->kind, state->log, state->arch, lowered, FALSE);
  if (cache_store (state, image, lowered))
    _gcuda_program_set_cache_key (program, state->key);
  return program;
}

static GCudaProgram *
compile_job (GCudaCompiler  *self,
             Job            *job,
             GError        **error)
{
  g_auto(CompileState) state = { .job = job };
  GCudaProgram *program;

  if (!compile_state_init (&state, error) || !keep_dir_make (job->keep, error))
    return NULL;
  program = cache_lookup (self, &state);
  if (program == NULL)
    program = nvrtc_run (self, &state, error);
  if (program != NULL &&
      !keep_files (job->keep, state.source, gcuda_program_get_log (program), gcuda_program_get_image (program),
                   state.kind == GCUDA_PROGRAM_KIND_PTX, error))
    g_clear_object (&program);
  return program;
}

/**
 * gcuda_compiler_compile:
 * @self: a [class@GCuda.Compiler]
 * @source: CUDA C++ source
 * @error: return location for a [struct@GLib.Error]
 *
 * Compiles @source (PyCUDA's `compile()`), or takes it from the cache. A source
 * that does not compile is
 * [GCUDA_COMPILE_ERROR_COMPILATION][error@GCuda.CompileError], with NVRTC's log
 * in the message (and in [method@GCuda.Compiler.get_last_log]); no NVRTC is
 * [GCUDA_ERROR_NVRTC_NOT_FOUND][error@GCuda.Error].
 *
 * Returns: (transfer full): the program, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaProgram *
gcuda_compiler_compile (GCudaCompiler  *self,
                        const char     *source,
                        GError        **error)
{
  g_autoptr(Job) job = NULL;

  g_return_val_if_fail (GCUDA_IS_COMPILER (self), NULL);

  job = job_new (self, source);
  return compile_job (self, job, error);
}

/* For #GCudaLinker: the compiler's settings plus relocatable device code,
 * as PTX (what NVRTC's documentation links with cudadevrt). */
GCudaProgram *
_gcuda_compiler_compile_relocatable (GCudaCompiler  *self,
                                     const char     *source,
                                     GError        **error)
{
  g_autoptr(Job) job = job_new (self, source);
  gboolean has_rdc = FALSE;

  for (guint i = 0; job->options[i] != NULL; i++)
    if (g_str_equal (job->options[i], "-rdc=true") || g_str_equal (job->options[i], "--relocatable-device-code=true"))
      has_rdc = TRUE;
  /* added by compile_options(), after the check of the caller's last option */
  job->relocatable = !has_rdc;
  job->target = GCUDA_PROGRAM_KIND_PTX;
  return compile_job (self, job, error);
}

static gpointer
compile_work (gpointer       source_object,
              gpointer       work_data,
              GCancellable  *cancellable,
              GError       **error)
{
  return compile_job (source_object, work_data, error);
}

/**
 * gcuda_compiler_compile_async:
 * @self: a [class@GCuda.Compiler]
 * @source: CUDA C++ source
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: (scope async): called with the result
 * @user_data: data for @callback
 *
 * Compiles @source in a worker thread, so a GUI stays responsive; @callback
 * runs in the thread-default main context of the calling thread. The
 * compiler's settings are taken as they are now.
 *
 * Cancelling @cancellable completes the call at once with
 * [error@Gio.IOErrorEnum.CANCELLED] (in a main context iteration, never inside
 * [method@Gio.Cancellable.cancel]): NVRTC cannot be interrupted, so the compile
 * goes on in the background, and its result is dropped (it still fills the
 * compile cache). The compiler stays referenced until then.
 *
 * Since: 1.0
 */
void
gcuda_compiler_compile_async (GCudaCompiler       *self,
                              const char          *source,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (GCUDA_IS_COMPILER (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gcuda_compiler_compile_async);
  _gcuda_task_run_worker (task, compile_work, job_new (self, source), (GDestroyNotify) job_free, g_object_unref);
}

/**
 * gcuda_compiler_compile_finish:
 * @self: a [class@GCuda.Compiler]
 * @result: the [iface@Gio.AsyncResult]
 * @error: return location for a [struct@GLib.Error]
 *
 * Finishes [method@GCuda.Compiler.compile_async].
 *
 * Returns: (transfer full): the program, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaProgram *
gcuda_compiler_compile_finish (GCudaCompiler  *self,
                               GAsyncResult   *result,
                               GError        **error)
{
  g_return_val_if_fail (GCUDA_IS_COMPILER (self), NULL);

  if (!g_task_is_valid (result, self) || g_task_get_source_tag (G_TASK (result)) != gcuda_compiler_compile_async)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("This result does not come from an asynchronous compile on this compiler"));
      return NULL;
    }

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gcuda_compiler_get_context: (get-property context)
 * @self: a [class@GCuda.Compiler]
 *
 * Gets [property@GCuda.Compiler:context].
 *
 * Returns: (transfer none) (nullable): the context, or %NULL for the default context
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_compiler_get_context (GCudaCompiler *self)
{
  g_return_val_if_fail (GCUDA_IS_COMPILER (self), NULL);
  return self->context;
}
