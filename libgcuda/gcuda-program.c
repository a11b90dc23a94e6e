/* gcuda-program.c: the result of a compile
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-program-private.h"

/**
 * GCudaProgram:
 *
 * Compiled code from a [class@GCuda.Compiler]: a cubin or PTX image (a
 * [struct@GLib.Bytes], ready for a module), the compiler's log, and the lowered
 * (mangled) names of the name expressions the compile was given, for templates.
 *
 * ```c
 * static void
 * describe_program (GCudaProgram *program)
 * {
 *   GBytes *image = gcuda_program_get_image (program);
 *
 *   g_print ("%s for %s, %" G_GSIZE_FORMAT " bytes%s\n",
 *            gcuda_program_get_kind (program) == GCUDA_PROGRAM_KIND_PTX ? "PTX" : "cubin",
 *            gcuda_program_get_arch (program), g_bytes_get_size (image),
 *            gcuda_program_is_from_cache (program) ? " (from the cache)" : "");
 *   if (*gcuda_program_get_log (program) != '\0')
 *     g_print ("%s\n", gcuda_program_get_log (program));
 * }
 * ```
 *
 * In Python, a template instantiated by a name expression:
 *
 * ```python
 * program = GCuda.compile_program('''
 * template <typename T>
 * __global__ void fill(T *out, T value) { out[threadIdx.x] = value; }
 * ''', no_extern_c=True, name_expressions=['fill<float>'])
 * print(program.get_lowered_name('fill<float>'), program.is_from_cache())
 * mod = GCuda.Module.new_from_program(None, program)
 * fill = mod.get_function(program.get_lowered_name('fill<float>'))
 * ```
 *
 * A program is immutable and can be used from any thread. One made without a
 * compiler ([ctor@GObject.Object.new]) holds no code: an empty image, log and
 * architecture, no lowered names; loading or linking it is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Since: 1.0
 */

struct _GCudaProgram
{
  GObject parent_instance;

  GBytes *image;
  GCudaProgramKind kind;
  char *log;
  char *arch;
  GHashTable *lowered;  /* name expression -> lowered name */
  gboolean from_cache;
  char *cache_key;      /* NULL: not cached */
};

G_DEFINE_FINAL_TYPE (GCudaProgram, gcuda_program, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_IMAGE,
  PROP_KIND,
  PROP_LOG,
  PROP_ARCH,
  PROP_FROM_CACHE,
  PROP_CACHE_KEY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
gcuda_program_finalize (GObject *object)
{
  GCudaProgram *self = GCUDA_PROGRAM (object);

  g_clear_pointer (&self->image, g_bytes_unref);
  g_clear_pointer (&self->log, g_free);
  g_clear_pointer (&self->arch, g_free);
  g_clear_pointer (&self->lowered, g_hash_table_unref);
  g_clear_pointer (&self->cache_key, g_free);

  G_OBJECT_CLASS (gcuda_program_parent_class)->finalize (object);
}

static void
gcuda_program_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  GCudaProgram *self = GCUDA_PROGRAM (object);

  switch (prop_id)
    {
    case PROP_IMAGE:
      g_value_set_boxed (value, self->image);
      break;
    case PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case PROP_LOG:
      g_value_set_string (value, self->log);
      break;
    case PROP_ARCH:
      g_value_set_string (value, self->arch);
      break;
    case PROP_FROM_CACHE:
      g_value_set_boolean (value, self->from_cache);
      break;
    case PROP_CACHE_KEY:
      g_value_set_string (value, self->cache_key);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_program_class_init (GCudaProgramClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_program_finalize;
  object_class->get_property = gcuda_program_get_property;

  /**
   * GCudaProgram:image: (getter get_image)
   *
   * The compiled image: cubin or PTX (NUL-terminated text), see
   * [property@GCuda.Program:kind].
   *
   * Since: 1.0
   */
  properties[PROP_IMAGE] = g_param_spec_boxed ("image", NULL, NULL, G_TYPE_BYTES, ro);

  /**
   * GCudaProgram:kind: (getter get_kind)
   *
   * Whether the image is a cubin or PTX.
   *
   * Since: 1.0
   */
  properties[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, GCUDA_TYPE_PROGRAM_KIND,
                                             GCUDA_PROGRAM_KIND_CUBIN, ro);

  /**
   * GCudaProgram:log: (getter get_log)
   *
   * NVRTC's log (warnings), possibly empty.
   *
   * Since: 1.0
   */
  properties[PROP_LOG] = g_param_spec_string ("log", NULL, NULL, NULL, ro);

  /**
   * GCudaProgram:arch: (getter get_arch)
   *
   * The architecture the program was compiled for, such as `sm_90`.
   *
   * Since: 1.0
   */
  properties[PROP_ARCH] = g_param_spec_string ("arch", NULL, NULL, NULL, ro);

  /**
   * GCudaProgram:from-cache: (getter is_from_cache)
   *
   * Whether the program came from the compile cache instead of NVRTC.
   *
   * Since: 1.0
   */
  properties[PROP_FROM_CACHE] = g_param_spec_boolean ("from-cache", NULL, NULL, FALSE, ro);

  /**
   * GCudaProgram:cache-key: (getter get_cache_key)
   *
   * The compile cache's key for the program (64 hexadecimal digits), which
   * identifies its image: programs with the same key have the same code,
   * and an edited header gives another key. %NULL when the compile was not
   * cached (the cache off, or what the compile reads could not be known).
   *
   * Since: 1.0
   */
  properties[PROP_CACHE_KEY] = g_param_spec_string ("cache-key", NULL, NULL, NULL, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_program_init (GCudaProgram *self)
{
  /* What a program made by hand (g_object_new()) shows: no code. */
  self->image = g_bytes_new_static ("", 0);
  self->log = g_strdup ("");
}

GCudaProgram *
_gcuda_program_new (GBytes           *image,
                    GCudaProgramKind  kind,
                    const char       *log,
                    const char       *arch,
                    GHashTable       *lowered,
                    gboolean          from_cache)
{
  GCudaProgram *self = g_object_new (GCUDA_TYPE_PROGRAM, NULL);

  g_bytes_unref (self->image);
  self->image = g_bytes_ref (image);
  self->kind = kind;
  g_free (self->log);
  self->log = g_strdup (log ? log : "");
  self->arch = g_strdup (arch);
  self->lowered = lowered ? g_hash_table_ref (lowered)
                          : g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->from_cache = from_cache;
  return self;
}

/**
 * gcuda_program_get_image: (get-property image)
 * @self: a [class@GCuda.Program]
 *
 * Gets the compiled image, ready for [ctor@GCuda.Module.new_from_data].
 *
 * Returns: (transfer none): the compiled image, see
 *   [property@GCuda.Program:image]
 *
 * Since: 1.0
 */
gboolean
_gcuda_program_check (GCudaProgram  *self,
                      GError       **error)
{
  /* only _gcuda_program_new() sets the table */
  return GCUDA_CHECK_MADE (self->lowered != NULL, error,
                           _("This GCuda.Program was made without compiled code: programs come from "
                             "Compiler.compile()"));
}

GBytes *
gcuda_program_get_image (GCudaProgram *self)
{
  g_return_val_if_fail (GCUDA_IS_PROGRAM (self), NULL);
  return self->image;
}

/**
 * gcuda_program_get_kind: (get-property kind)
 * @self: a [class@GCuda.Program]
 *
 * Gets whether the image is a cubin or PTX.
 *
 * Returns: whether the image is a cubin or PTX
 *
 * Since: 1.0
 */
GCudaProgramKind
gcuda_program_get_kind (GCudaProgram *self)
{
  g_return_val_if_fail (GCUDA_IS_PROGRAM (self), GCUDA_PROGRAM_KIND_CUBIN);
  return self->kind;
}

/**
 * gcuda_program_get_log: (get-property log)
 * @self: a [class@GCuda.Program]
 *
 * Gets NVRTC's log of the compile, with its warnings.
 *
 * Returns: NVRTC's log, possibly empty
 *
 * Since: 1.0
 */
const char *
gcuda_program_get_log (GCudaProgram *self)
{
  g_return_val_if_fail (GCUDA_IS_PROGRAM (self), NULL);
  return self->log;
}

/**
 * gcuda_program_get_arch: (get-property arch)
 * @self: a [class@GCuda.Program]
 *
 * Gets the architecture the program was compiled for.
 *
 * Returns: the architecture compiled for, such as `sm_90`
 *
 * Since: 1.0
 */
const char *
gcuda_program_get_arch (GCudaProgram *self)
{
  g_return_val_if_fail (GCUDA_IS_PROGRAM (self), NULL);
  return self->arch != NULL ? self->arch : "";
}

/**
 * gcuda_program_is_from_cache: (get-property from-cache)
 * @self: a [class@GCuda.Program]
 *
 * Checks whether the program came from the compile cache instead of NVRTC.
 *
 * Returns: %TRUE if the program came from the compile cache
 *
 * Since: 1.0
 */
gboolean
gcuda_program_is_from_cache (GCudaProgram *self)
{
  g_return_val_if_fail (GCUDA_IS_PROGRAM (self), FALSE);
  return self->from_cache;
}

/**
 * gcuda_program_get_cache_key: (get-property cache-key)
 * @self: a [class@GCuda.Program]
 *
 * Gets the compile cache's key for the program: what identifies its image
 * (a loaded module can be shared by programs with the same key).
 *
 * Returns: (nullable): the key (64 hexadecimal digits), or %NULL when the
 *   compile was not cached
 *
 * Since: 1.0
 */
const char *
gcuda_program_get_cache_key (GCudaProgram *self)
{
  g_return_val_if_fail (GCUDA_IS_PROGRAM (self), NULL);
  return self->cache_key;
}

void
_gcuda_program_set_cache_key (GCudaProgram *self,
                              const char   *key)
{
  g_free (self->cache_key);
  self->cache_key = g_strdup (key);
}

/**
 * gcuda_program_get_lowered_name:
 * @self: a [class@GCuda.Program]
 * @name_expression: a name expression given to
 *   [method@GCuda.Compiler.add_name_expression]
 *
 * The lowered (mangled) name of a `__global__` function or `__device__`
 * variable named by a name expression, such as `my_kernel<float>`: the name
 * to look the function up by in a module.
 *
 * Returns: (nullable): the lowered name, or %NULL if @name_expression was
 *   not given to the compile
 *
 * Since: 1.0
 */
const char *
gcuda_program_get_lowered_name (GCudaProgram *self,
                                const char   *name_expression)
{
  g_return_val_if_fail (GCUDA_IS_PROGRAM (self), NULL);

  if (name_expression == NULL || self->lowered == NULL)
    return NULL;
  return g_hash_table_lookup (self->lowered, name_expression);
}
