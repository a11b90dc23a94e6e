/* gcuda-jit-options.c: options for the driver's JIT compiler and linker
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-jit-options-private.h"

/**
 * GCudaJitOptions:
 *
 * Options for the driver's JIT compiler, used when PTX is loaded into a module
 * ([ctor@GCuda.Module.new_from_data]) or linked ([class@GCuda.Linker]): the
 * `options` of PyCUDA's `module_from_buffer()`. The logs the JIT writes are
 * properties of the module or linker.
 *
 * ```c
 * static GCudaModule *
 * load_for_profiling (GBytes *ptx, GError **error)
 * {
 *   g_autoptr(GCudaJitOptions) options = gcuda_jit_options_new ();
 *   g_autoptr(GCudaModule) module = NULL;
 *
 *   gcuda_jit_options_set_generate_line_info (options, TRUE);
 *   gcuda_jit_options_set_log_verbose (options, TRUE);
 *   module = gcuda_module_new_from_data (NULL, ptx, options, error);
 *   if (module != NULL)
 *     g_print ("%s\n", gcuda_module_get_info_log (module));
 *   return g_steal_pointer (&module);
 * }
 * ```
 *
 * In Python, the options of PyCUDA's `module_from_buffer()`, by name:
 *
 * ```python
 * import gcuda.compiler
 *
 * ptx = gcuda.compiler.compile('__global__ void zero(float *x) { x[threadIdx.x] = 0; }',
 *                              target='ptx')
 * mod = GCuda.module_from_buffer(ptx, options={'max_registers': 32, 'log_verbose': True},
 *                                message_handler=lambda ok, info, errors: print(info))
 * ```
 *
 * Every option starts at the driver's default. The setters (and the
 * properties) take any value; values out of range (see each property) are
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], naming the option and its
 * range, where the options are used: [ctor@GCuda.Module.new_from_data] (and
 * the other module constructors) and [ctor@GCuda.Linker.new] check them
 * before the driver sees them.
 *
 * Since: 1.0
 */

struct _GCudaJitOptions
{
  GObject parent_instance;

  guint max_registers;
  int optimization_level;
  guint threads_per_block;
  gboolean generate_debug_info;
  gboolean generate_line_info;
  gboolean log_verbose;
};

G_DEFINE_FINAL_TYPE (GCudaJitOptions, gcuda_jit_options, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_MAX_REGISTERS,
  PROP_OPTIMIZATION_LEVEL,
  PROP_THREADS_PER_BLOCK,
  PROP_GENERATE_DEBUG_INFO,
  PROP_GENERATE_LINE_INFO,
  PROP_LOG_VERBOSE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
gcuda_jit_options_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  GCudaJitOptions *self = GCUDA_JIT_OPTIONS (object);

  switch (prop_id)
    {
    case PROP_MAX_REGISTERS:
      g_value_set_uint (value, self->max_registers);
      break;
    case PROP_OPTIMIZATION_LEVEL:
      g_value_set_int (value, self->optimization_level);
      break;
    case PROP_THREADS_PER_BLOCK:
      g_value_set_uint (value, self->threads_per_block);
      break;
    case PROP_GENERATE_DEBUG_INFO:
      g_value_set_boolean (value, self->generate_debug_info);
      break;
    case PROP_GENERATE_LINE_INFO:
      g_value_set_boolean (value, self->generate_line_info);
      break;
    case PROP_LOG_VERBOSE:
      g_value_set_boolean (value, self->log_verbose);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_jit_options_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  GCudaJitOptions *self = GCUDA_JIT_OPTIONS (object);

  switch (prop_id)
    {
    case PROP_MAX_REGISTERS:
      gcuda_jit_options_set_max_registers (self, g_value_get_uint (value));
      break;
    case PROP_OPTIMIZATION_LEVEL:
      gcuda_jit_options_set_optimization_level (self, g_value_get_int (value));
      break;
    case PROP_THREADS_PER_BLOCK:
      gcuda_jit_options_set_threads_per_block (self, g_value_get_uint (value));
      break;
    case PROP_GENERATE_DEBUG_INFO:
      gcuda_jit_options_set_generate_debug_info (self, g_value_get_boolean (value));
      break;
    case PROP_GENERATE_LINE_INFO:
      gcuda_jit_options_set_generate_line_info (self, g_value_get_boolean (value));
      break;
    case PROP_LOG_VERBOSE:
      gcuda_jit_options_set_log_verbose (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_jit_options_class_init (GCudaJitOptionsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->get_property = gcuda_jit_options_get_property;
  object_class->set_property = gcuda_jit_options_set_property;

  /**
   * GCudaJitOptions:max-registers: (setter set_max_registers) (getter get_max_registers)
   *
   * The most registers a thread may use (`CU_JIT_MAX_REGISTERS`), at most
   * 255; 0 leaves it to the JIT.
   *
   * Since: 1.0
   */
  /* The ranges are checked where the options are used (with a GError), so
   * the specs take any value: GObject would only warn and drop it. */
  properties[PROP_MAX_REGISTERS] =
    g_param_spec_uint ("max-registers", NULL, NULL, 0, G_MAXUINT, 0, rw);

  /**
   * GCudaJitOptions:optimization-level: (setter set_optimization_level) (getter get_optimization_level)
   *
   * The JIT's optimization level, 0 to 4 (`CU_JIT_OPTIMIZATION_LEVEL`);
   * -1 leaves the driver's default (4).
   *
   * Since: 1.0
   */
  properties[PROP_OPTIMIZATION_LEVEL] =
    g_param_spec_int ("optimization-level", NULL, NULL, G_MININT, G_MAXINT, -1, rw);

  /**
   * GCudaJitOptions:threads-per-block: (setter set_threads_per_block) (getter get_threads_per_block)
   *
   * Compile so that blocks of this many threads can run
   * (`CU_JIT_THREADS_PER_BLOCK`), at most 1024; 0 for no constraint.
   *
   * Since: 1.0
   */
  properties[PROP_THREADS_PER_BLOCK] =
    g_param_spec_uint ("threads-per-block", NULL, NULL, 0, G_MAXUINT, 0, rw);

  /**
   * GCudaJitOptions:generate-debug-info: (setter set_generate_debug_info) (getter get_generate_debug_info)
   *
   * Whether to generate debug information (`CU_JIT_GENERATE_DEBUG_INFO`).
   *
   * Since: 1.0
   */
  properties[PROP_GENERATE_DEBUG_INFO] =
    g_param_spec_boolean ("generate-debug-info", NULL, NULL, FALSE, rw);

  /**
   * GCudaJitOptions:generate-line-info: (setter set_generate_line_info) (getter get_generate_line_info)
   *
   * Whether to generate line-number information (`CU_JIT_GENERATE_LINE_INFO`).
   *
   * Since: 1.0
   */
  properties[PROP_GENERATE_LINE_INFO] =
    g_param_spec_boolean ("generate-line-info", NULL, NULL, FALSE, rw);

  /**
   * GCudaJitOptions:log-verbose: (setter set_log_verbose) (getter get_log_verbose)
   *
   * Whether the JIT's information log is verbose (`CU_JIT_LOG_VERBOSE`):
   * it then lists registers and memory per kernel.
   *
   * Since: 1.0
   */
  properties[PROP_LOG_VERBOSE] =
    g_param_spec_boolean ("log-verbose", NULL, NULL, FALSE, rw);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_jit_options_init (GCudaJitOptions *self)
{
  self->optimization_level = -1;
}

/**
 * gcuda_jit_options_new:
 *
 * Creates JIT options that leave every setting to the driver.
 *
 * Returns: (transfer full): options with the driver's defaults
 *
 * Since: 1.0
 */
GCudaJitOptions *
gcuda_jit_options_new (void)
{
  return g_object_new (GCUDA_TYPE_JIT_OPTIONS, NULL);
}

/* Any value is kept: _gcuda_jit_options_check() refuses those out of range
 * where the options are used, with an error every language can catch. */
#define GCUDA_JIT_ACCESSORS(prop, field, type, PROP)                               \
type                                                                              \
gcuda_jit_options_get_##prop (GCudaJitOptions *self)                               \
{                                                                                 \
  g_return_val_if_fail (GCUDA_IS_JIT_OPTIONS (self), 0);                          \
  return self->field;                                                             \
}                                                                                 \
void                                                                              \
gcuda_jit_options_set_##prop (GCudaJitOptions *self, type value)                   \
{                                                                                 \
  g_return_if_fail (GCUDA_IS_JIT_OPTIONS (self));                                 \
  if (self->field == value)                                                       \
    return;                                                                       \
  self->field = value;                                                            \
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP]);                   \
}

/**
 * gcuda_jit_options_get_max_registers: (get-property max-registers)
 * @self: a [class@GCuda.JitOptions]
 *
 * Gets the most registers a thread may use.
 *
 * Returns: the [property@GCuda.JitOptions:max-registers] limit, 0 for none
 *
 * Since: 1.0
 */
/**
 * gcuda_jit_options_set_max_registers: (set-property max-registers)
 * @self: a [class@GCuda.JitOptions]
 * @max_registers: the most registers per thread (at most 255), 0 for the JIT's choice
 *
 * Sets [property@GCuda.JitOptions:max-registers]. A value over 255 is kept,
 * and refused where the options are used.
 *
 * Since: 1.0
 */
GCUDA_JIT_ACCESSORS (max_registers, max_registers, guint, PROP_MAX_REGISTERS)

/**
 * gcuda_jit_options_get_optimization_level: (get-property optimization-level)
 * @self: a [class@GCuda.JitOptions]
 *
 * Gets the JIT's optimization level.
 *
 * Returns: the [property@GCuda.JitOptions:optimization-level], -1 for the
 *   default
 *
 * Since: 1.0
 */
/**
 * gcuda_jit_options_set_optimization_level: (set-property optimization-level)
 * @self: a [class@GCuda.JitOptions]
 * @level: 0 to 4, or -1 for the driver's default
 *
 * Sets [property@GCuda.JitOptions:optimization-level]. Another value is
 * kept, and refused where the options are used.
 *
 * Since: 1.0
 */
GCUDA_JIT_ACCESSORS (optimization_level, optimization_level, int, PROP_OPTIMIZATION_LEVEL)

/**
 * gcuda_jit_options_get_threads_per_block: (get-property threads-per-block)
 * @self: a [class@GCuda.JitOptions]
 *
 * Gets the block size the JIT compiles for.
 *
 * Returns: the [property@GCuda.JitOptions:threads-per-block] constraint, 0 for
 *   none
 *
 * Since: 1.0
 */
/**
 * gcuda_jit_options_set_threads_per_block: (set-property threads-per-block)
 * @self: a [class@GCuda.JitOptions]
 * @threads: threads per block to compile for (at most 1024), 0 for none
 *
 * Sets [property@GCuda.JitOptions:threads-per-block]. A value over 1024 is
 * kept, and refused where the options are used.
 *
 * Since: 1.0
 */
GCUDA_JIT_ACCESSORS (threads_per_block, threads_per_block, guint, PROP_THREADS_PER_BLOCK)

/**
 * gcuda_jit_options_get_generate_debug_info: (get-property generate-debug-info)
 * @self: a [class@GCuda.JitOptions]
 *
 * Gets whether the JIT generates debug information.
 *
 * Returns: whether debug information is generated
 *
 * Since: 1.0
 */
/**
 * gcuda_jit_options_set_generate_debug_info: (set-property generate-debug-info)
 * @self: a [class@GCuda.JitOptions]
 * @enable: whether to generate debug information
 *
 * Sets [property@GCuda.JitOptions:generate-debug-info].
 *
 * Since: 1.0
 */
GCUDA_JIT_ACCESSORS (generate_debug_info, generate_debug_info, gboolean, PROP_GENERATE_DEBUG_INFO)

/**
 * gcuda_jit_options_get_generate_line_info: (get-property generate-line-info)
 * @self: a [class@GCuda.JitOptions]
 *
 * Gets whether the JIT generates line-number information.
 *
 * Returns: whether line-number information is generated
 *
 * Since: 1.0
 */
/**
 * gcuda_jit_options_set_generate_line_info: (set-property generate-line-info)
 * @self: a [class@GCuda.JitOptions]
 * @enable: whether to generate line-number information
 *
 * Sets [property@GCuda.JitOptions:generate-line-info].
 *
 * Since: 1.0
 */
GCUDA_JIT_ACCESSORS (generate_line_info, generate_line_info, gboolean, PROP_GENERATE_LINE_INFO)

/**
 * gcuda_jit_options_get_log_verbose: (get-property log-verbose)
 * @self: a [class@GCuda.JitOptions]
 *
 * Gets whether the JIT's information log is verbose.
 *
 * Returns: whether the information log is verbose
 *
 * Since: 1.0
 */
/**
 * gcuda_jit_options_set_log_verbose: (set-property log-verbose)
 * @self: a [class@GCuda.JitOptions]
 * @enable: whether the information log is verbose
 *
 * Sets [property@GCuda.JitOptions:log-verbose].
 *
 * Since: 1.0
 */
GCUDA_JIT_ACCESSORS (log_verbose, log_verbose, gboolean, PROP_LOG_VERBOSE)

#define LOG_SIZE 16384

void
_gcuda_jit_logs_init (GCudaJitLogs *logs)
{
  logs->info = g_malloc0 (LOG_SIZE);
  logs->error = g_malloc0 (LOG_SIZE);
}

void
_gcuda_jit_logs_clear (GCudaJitLogs *logs)
{
  g_clear_pointer (&logs->info, g_free);
  g_clear_pointer (&logs->error, g_free);
}

gboolean
_gcuda_jit_options_check (GCudaJitOptions  *options,
                          GError          **error)
{
  if (options == NULL)
    return TRUE;
  if (!GCUDA_IS_JIT_OPTIONS (options))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected GCuda.JitOptions"));
      return FALSE;
    }
  if (options->max_registers > 255)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The JIT option max-registers is %u: it must be 0 (the JIT's choice) to 255"),
                   options->max_registers);
      return FALSE;
    }
  if (options->optimization_level < -1 || options->optimization_level > 4)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The JIT option optimization-level is %d: it must be 0 to 4, or -1 for the driver's default"),
                   options->optimization_level);
      return FALSE;
    }
  if (options->threads_per_block > 1024)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The JIT option threads-per-block is %u: it must be 0 (no constraint) to 1024"),
                   options->threads_per_block);
      return FALSE;
    }
  return TRUE;
}

guint
_gcuda_jit_options_build (GCudaJitOptions *options,
                          GCudaJitLogs    *logs,
                          CUjit_option     keys[GCUDA_JIT_MAX_OPTIONS],
                          void            *values[GCUDA_JIT_MAX_OPTIONS])
{
  guint n = 0;

  /* four log options and at most six from @options */
  G_STATIC_ASSERT (4 + 6 <= GCUDA_JIT_MAX_OPTIONS);
#define ADD(key, value) G_STMT_START { keys[n] = (key); values[n] = (void *) (guintptr) (value); n++; } G_STMT_END
  ADD (CU_JIT_INFO_LOG_BUFFER, logs->info);
  ADD (CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, LOG_SIZE - 1);
  ADD (CU_JIT_ERROR_LOG_BUFFER, logs->error);
  ADD (CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, LOG_SIZE - 1);
  if (options != NULL)
    {
      if (options->max_registers > 0)
        ADD (CU_JIT_MAX_REGISTERS, options->max_registers);
      if (options->optimization_level >= 0)
        ADD (CU_JIT_OPTIMIZATION_LEVEL, options->optimization_level);
      if (options->threads_per_block > 0)
        ADD (CU_JIT_THREADS_PER_BLOCK, options->threads_per_block);
      if (options->generate_debug_info)
        ADD (CU_JIT_GENERATE_DEBUG_INFO, 1);
      if (options->generate_line_info)
        ADD (CU_JIT_GENERATE_LINE_INFO, 1);
      if (options->log_verbose)
        ADD (CU_JIT_LOG_VERBOSE, 1);
    }
#undef ADD
  return n;
}
