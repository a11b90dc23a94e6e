/* gcuda-kernel-args.c: arguments for a kernel launch
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-kernel-args-private.h"

/**
 * GCudaKernelArgs:
 *
 * The arguments of a kernel launch, built with typed `add_*()` calls in the
 * order of the kernel's parameters and changed in place with `set_*()`, so
 * one object serves many launches. A [class@GCuda.Buffer] argument passes its
 * device address and keeps the buffer alive as long as the arguments name
 * it. [method@GCuda.Function.launch] checks the count and sizes against the
 * kernel's parameters before anything reaches the driver.
 *
 * ```c
 * static gboolean
 * scale_twice (GCudaFunction *scale, GCudaBuffer *x, int n, GError **error)
 * {
 *   g_autoptr(GCudaKernelArgs) args = gcuda_kernel_args_new ();
 *   guint grid = (n + 255) / 256;
 *
 *   gcuda_kernel_args_add_buffer (args, x);   // float *x
 *   gcuda_kernel_args_add_float (args, 2.0f); // float a
 *   gcuda_kernel_args_add_int32 (args, n);    // int n
 *   if (!gcuda_function_launch (scale, grid, 1, 1, 256, 1, 1, 0, NULL, args, error))
 *     return FALSE;
 *   return gcuda_kernel_args_set_float (args, 1, 0.5f, error) &&
 *          gcuda_function_launch (scale, grid, 1, 1, 256, 1, 1, 0, NULL, args, error);
 * }
 * ```
 *
 * JavaScript builds the arguments the same way; Python calls the
 * [class@GCuda.Function] with numpy scalars instead.
 *
 * ```js
 * const args = GCuda.KernelArgs.new();
 * args.add_buffer(x);
 * args.add_float(2);
 * args.add_int32(n);
 * scale.launch(Math.ceil(n / 256), 1, 1, 256, 1, 1, 0, null, args);
 * ```
 *
 * From JavaScript, and every other binding that goes by the introspection
 * data, the integer `add_*()` and `set_*()` are twins taking a `double`
 * (`gcuda_kernel_args_add_int32_number()` …): a number the type cannot hold
 * exactly (a fraction, NaN, a value out of range, beyond ±2⁵³ for a 64-bit
 * integer) is [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], never
 * truncated or wrapped as the binding's own conversion would.
 *
 * Not thread-safe: do not change arguments another thread is launching with.
 *
 * Since: 1.0
 */

/* What an argument was added as: a setter must name the same kind (any
 * integer or pointer of the same size for an integer or pointer, the same
 * floating-point type for a float or double, a struct for a struct). */
typedef enum {
  TYPE_INT8,
  TYPE_UINT8,
  TYPE_INT16,
  TYPE_UINT16,
  TYPE_INT32,
  TYPE_UINT32,
  TYPE_INT64,
  TYPE_UINT64,
  TYPE_FLOAT,
  TYPE_DOUBLE,
  TYPE_POINTER,
  TYPE_STRUCT,
} ArgType;

static const char *const type_names[] = {
  "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float", "double", "pointer",
  "struct",
};

typedef struct {
  gsize offset;
  gsize size;
  ArgType type;
  GObject *keep;  /* the buffer named, or NULL */
} Arg;

struct _GCudaKernelArgs
{
  GObject parent_instance;

  GByteArray *storage;  /* the values, each aligned */
  GArray *args;         /* Arg */
  GPtrArray *params;    /* void * into storage, rebuilt at each launch */
};

G_DEFINE_FINAL_TYPE (GCudaKernelArgs, gcuda_kernel_args, G_TYPE_OBJECT)

static void
clear_arg (gpointer data)
{
  Arg *arg = data;

  g_clear_object (&arg->keep);
}

static void
gcuda_kernel_args_finalize (GObject *object)
{
  GCudaKernelArgs *self = GCUDA_KERNEL_ARGS (object);

  g_byte_array_unref (self->storage);
  g_array_unref (self->args);
  g_ptr_array_unref (self->params);

  G_OBJECT_CLASS (gcuda_kernel_args_parent_class)->finalize (object);
}

static void
gcuda_kernel_args_class_init (GCudaKernelArgsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gcuda_kernel_args_finalize;
}

static void
gcuda_kernel_args_init (GCudaKernelArgs *self)
{
  self->storage = g_byte_array_new ();
  self->args = g_array_new (FALSE, TRUE, sizeof (Arg));
  g_array_set_clear_func (self->args, clear_arg);
  self->params = g_ptr_array_new ();
}

/**
 * gcuda_kernel_args_new:
 *
 * Creates an empty argument list; append the arguments in the order of the
 * kernel's parameters.
 *
 * Returns: (transfer full): an empty argument list
 *
 * Since: 1.0
 */
GCudaKernelArgs *
gcuda_kernel_args_new (void)
{
  return g_object_new (GCUDA_TYPE_KERNEL_ARGS, NULL);
}

/**
 * gcuda_kernel_args_get_count:
 * @self: a [class@GCuda.KernelArgs]
 *
 * Gets the number of arguments appended so far.
 *
 * Returns: the number of arguments
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_get_count (GCudaKernelArgs *self)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return self->args->len;
}

/**
 * gcuda_kernel_args_clear:
 * @self: a [class@GCuda.KernelArgs]
 *
 * Removes every argument (and releases the buffers they named).
 *
 * Since: 1.0
 */
void
gcuda_kernel_args_clear (GCudaKernelArgs *self)
{
  g_return_if_fail (GCUDA_IS_KERNEL_ARGS (self));
  g_array_set_size (self->args, 0);
  g_byte_array_set_size (self->storage, 0);
}

static guint
add_bytes (GCudaKernelArgs *self,
           ArgType          type,
           gconstpointer    data,
           gsize            size,
           gsize            alignment,
           GObject         *keep)
{
  Arg arg = { 0 };
  gsize offset = self->storage->len;

  if (alignment > 1)
    offset = (offset + alignment - 1) / alignment * alignment;
  g_byte_array_set_size (self->storage, offset + size);
  if (size > 0)
    memcpy (self->storage->data + offset, data, size);
  arg.offset = offset;
  arg.size = size;
  arg.type = type;
  arg.keep = keep ? g_object_ref (keep) : NULL;
  g_array_append_val (self->args, arg);
  return self->args->len - 1;
}

static gboolean
is_integer (ArgType type)
{
  return type <= TYPE_UINT64 || type == TYPE_POINTER;
}

/* The argument @index, if a value of @type (@size bytes) may replace it. */
static Arg *
settable_arg (GCudaKernelArgs *self,
              guint            index,
              ArgType          type,
              gsize            size,
              GError         **error)
{
  Arg *arg;

  if (G_UNLIKELY (index >= self->args->len))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS,
                   _("There is no argument #%u (0-based): %u arguments were added"), index, self->args->len);
      return NULL;
    }
  arg = &g_array_index (self->args, Arg, index);
  if (G_UNLIKELY (arg->type != type && !(is_integer (arg->type) && is_integer (type))))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS,
                   _("Argument #%u (0-based) is of type %s; a value of type %s cannot replace it"),
                   index, type_names[arg->type], type_names[type]);
      return NULL;
    }
  if (G_UNLIKELY (arg->size != size))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS,
                   _("Argument #%u (0-based) is %" "zu" " bytes; a %" "zu" "-byte value cannot replace it"),
                   index, arg->size, size);
      return NULL;
    }
  return arg;
}

static gboolean
set_bytes (GCudaKernelArgs *self,
           guint            index,
           ArgType          type,
           gconstpointer    data,
           gsize            size,
           GObject         *keep,
           GError         **error)
{
  Arg *arg = settable_arg (self, index, type, size, error);

  if (arg == NULL)
    return FALSE;
  memcpy (self->storage->data + arg->offset, data, size);
  if (keep)
    g_object_ref (keep);
  g_clear_object (&arg->keep);
  arg->keep = keep;
  return TRUE;
}

/**
 * gcuda_kernel_args_add_int8:
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value
 *
 * Appends a `gint8` argument. Bindings call
 * [method@GCuda.KernelArgs.add_int8_number] in its place, which takes a
 * `double` and refuses a value `gint8` cannot hold exactly.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_int8 (GCudaKernelArgs *self,
                            gint8 value)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return add_bytes (self, TYPE_INT8, &value, sizeof value, G_ALIGNOF (gint8), NULL);
}

/**
 * gcuda_kernel_args_add_uint8:
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value
 *
 * Appends a `guint8` argument. Bindings call
 * [method@GCuda.KernelArgs.add_uint8_number] in its place, which takes a
 * `double` and refuses a value `guint8` cannot hold exactly.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_uint8 (GCudaKernelArgs *self,
                             guint8 value)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return add_bytes (self, TYPE_UINT8, &value, sizeof value, G_ALIGNOF (guint8), NULL);
}

/**
 * gcuda_kernel_args_add_int16:
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value
 *
 * Appends a `gint16` argument. Bindings call
 * [method@GCuda.KernelArgs.add_int16_number] in its place, which takes a
 * `double` and refuses a value `gint16` cannot hold exactly.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_int16 (GCudaKernelArgs *self,
                             gint16 value)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return add_bytes (self, TYPE_INT16, &value, sizeof value, G_ALIGNOF (gint16), NULL);
}

/**
 * gcuda_kernel_args_add_uint16:
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value
 *
 * Appends a `guint16` argument. Bindings call
 * [method@GCuda.KernelArgs.add_uint16_number] in its place, which takes a
 * `double` and refuses a value `guint16` cannot hold exactly.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_uint16 (GCudaKernelArgs *self,
                              guint16 value)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return add_bytes (self, TYPE_UINT16, &value, sizeof value, G_ALIGNOF (guint16), NULL);
}

/**
 * gcuda_kernel_args_add_int32:
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value
 *
 * Appends a `gint32` argument. Bindings call
 * [method@GCuda.KernelArgs.add_int32_number] in its place, which takes a
 * `double` and refuses a value `gint32` cannot hold exactly.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_int32 (GCudaKernelArgs *self,
                             gint32 value)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return add_bytes (self, TYPE_INT32, &value, sizeof value, G_ALIGNOF (gint32), NULL);
}

/**
 * gcuda_kernel_args_add_uint32:
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value
 *
 * Appends a `guint32` argument. Bindings call
 * [method@GCuda.KernelArgs.add_uint32_number] in its place, which takes a
 * `double` and refuses a value `guint32` cannot hold exactly.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_uint32 (GCudaKernelArgs *self,
                              guint32 value)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return add_bytes (self, TYPE_UINT32, &value, sizeof value, G_ALIGNOF (guint32), NULL);
}

/**
 * gcuda_kernel_args_add_int64:
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value
 *
 * Appends a `gint64` argument. Bindings call
 * [method@GCuda.KernelArgs.add_int64_number] in its place, which takes a
 * `double` and refuses a value `gint64` cannot hold exactly.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_int64 (GCudaKernelArgs *self,
                             gint64 value)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return add_bytes (self, TYPE_INT64, &value, sizeof value, G_ALIGNOF (gint64), NULL);
}

/**
 * gcuda_kernel_args_add_uint64:
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value
 *
 * Appends a `guint64` argument. Bindings call
 * [method@GCuda.KernelArgs.add_uint64_number] in its place, which takes a
 * `double` and refuses a value `guint64` cannot hold exactly.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_uint64 (GCudaKernelArgs *self,
                              guint64 value)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return add_bytes (self, TYPE_UINT64, &value, sizeof value, G_ALIGNOF (guint64), NULL);
}

/**
 * gcuda_kernel_args_add_float:
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value
 *
 * Appends a `float` argument.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_float (GCudaKernelArgs *self,
                             float value)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return add_bytes (self, TYPE_FLOAT, &value, sizeof value, G_ALIGNOF (float), NULL);
}

/**
 * gcuda_kernel_args_add_double:
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value
 *
 * Appends a `double` argument.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_double (GCudaKernelArgs *self,
                              double value)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return add_bytes (self, TYPE_DOUBLE, &value, sizeof value, G_ALIGNOF (double), NULL);
}

/**
 * gcuda_kernel_args_set_int8:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size (`sizeof (gint8)`) with a `gint8`, so one
 * [class@GCuda.KernelArgs] serves many launches. An @index past the last
 * argument, or an argument of another type or size, is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and the arguments are
 * left as they were. Bindings call
 * [method@GCuda.KernelArgs.set_int8_number] in its place, which takes a
 * `double` and refuses a value `gint8` cannot hold exactly.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_int8 (GCudaKernelArgs  *self,
                           guint             index,
                           gint8            value,
                           GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return set_bytes (self, index, TYPE_INT8, &value, sizeof value, NULL, error);
}

/**
 * gcuda_kernel_args_set_uint8:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size (`sizeof (guint8)`) with a `guint8`, so one
 * [class@GCuda.KernelArgs] serves many launches. An @index past the last
 * argument, or an argument of another type or size, is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and the arguments are
 * left as they were. Bindings call
 * [method@GCuda.KernelArgs.set_uint8_number] in its place, which takes a
 * `double` and refuses a value `guint8` cannot hold exactly.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_uint8 (GCudaKernelArgs  *self,
                            guint             index,
                            guint8           value,
                            GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return set_bytes (self, index, TYPE_UINT8, &value, sizeof value, NULL, error);
}

/**
 * gcuda_kernel_args_set_int16:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size (`sizeof (gint16)`) with a `gint16`, so one
 * [class@GCuda.KernelArgs] serves many launches. An @index past the last
 * argument, or an argument of another type or size, is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and the arguments are
 * left as they were. Bindings call
 * [method@GCuda.KernelArgs.set_int16_number] in its place, which takes a
 * `double` and refuses a value `gint16` cannot hold exactly.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_int16 (GCudaKernelArgs  *self,
                            guint             index,
                            gint16           value,
                            GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return set_bytes (self, index, TYPE_INT16, &value, sizeof value, NULL, error);
}

/**
 * gcuda_kernel_args_set_uint16:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size (`sizeof (guint16)`) with a `guint16`, so one
 * [class@GCuda.KernelArgs] serves many launches. An @index past the last
 * argument, or an argument of another type or size, is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and the arguments are
 * left as they were. Bindings call
 * [method@GCuda.KernelArgs.set_uint16_number] in its place, which takes a
 * `double` and refuses a value `guint16` cannot hold exactly.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_uint16 (GCudaKernelArgs  *self,
                             guint             index,
                             guint16          value,
                             GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return set_bytes (self, index, TYPE_UINT16, &value, sizeof value, NULL, error);
}

/**
 * gcuda_kernel_args_set_int32:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size (`sizeof (gint32)`) with a `gint32`, so one
 * [class@GCuda.KernelArgs] serves many launches. An @index past the last
 * argument, or an argument of another type or size, is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and the arguments are
 * left as they were. Bindings call
 * [method@GCuda.KernelArgs.set_int32_number] in its place, which takes a
 * `double` and refuses a value `gint32` cannot hold exactly.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_int32 (GCudaKernelArgs  *self,
                            guint             index,
                            gint32           value,
                            GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return set_bytes (self, index, TYPE_INT32, &value, sizeof value, NULL, error);
}

/**
 * gcuda_kernel_args_set_uint32:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size (`sizeof (guint32)`) with a `guint32`, so one
 * [class@GCuda.KernelArgs] serves many launches. An @index past the last
 * argument, or an argument of another type or size, is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and the arguments are
 * left as they were. Bindings call
 * [method@GCuda.KernelArgs.set_uint32_number] in its place, which takes a
 * `double` and refuses a value `guint32` cannot hold exactly.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_uint32 (GCudaKernelArgs  *self,
                             guint             index,
                             guint32          value,
                             GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return set_bytes (self, index, TYPE_UINT32, &value, sizeof value, NULL, error);
}

/**
 * gcuda_kernel_args_set_int64:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size (`sizeof (gint64)`) with a `gint64`, so one
 * [class@GCuda.KernelArgs] serves many launches. An @index past the last
 * argument, or an argument of another type or size, is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and the arguments are
 * left as they were. Bindings call
 * [method@GCuda.KernelArgs.set_int64_number] in its place, which takes a
 * `double` and refuses a value `gint64` cannot hold exactly.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_int64 (GCudaKernelArgs  *self,
                            guint             index,
                            gint64           value,
                            GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return set_bytes (self, index, TYPE_INT64, &value, sizeof value, NULL, error);
}

/**
 * gcuda_kernel_args_set_uint64:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size (`sizeof (guint64)`) with a `guint64`, so one
 * [class@GCuda.KernelArgs] serves many launches. An @index past the last
 * argument, or an argument of another type or size, is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and the arguments are
 * left as they were. Bindings call
 * [method@GCuda.KernelArgs.set_uint64_number] in its place, which takes a
 * `double` and refuses a value `guint64` cannot hold exactly.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_uint64 (GCudaKernelArgs  *self,
                             guint             index,
                             guint64          value,
                             GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return set_bytes (self, index, TYPE_UINT64, &value, sizeof value, NULL, error);
}

/**
 * gcuda_kernel_args_set_float:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an argument added as a `float` with a `float`, so one
 * [class@GCuda.KernelArgs] serves many launches. An @index past the last
 * argument, or an argument of another type or size, is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and the arguments are
 * left as they were.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_float (GCudaKernelArgs  *self,
                            guint             index,
                            float            value,
                            GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return set_bytes (self, index, TYPE_FLOAT, &value, sizeof value, NULL, error);
}

/**
 * gcuda_kernel_args_set_double:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an argument added as a `double` with a `double`, so one
 * [class@GCuda.KernelArgs] serves many launches. An @index past the last
 * argument, or an argument of another type or size, is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and the arguments are
 * left as they were.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_double (GCudaKernelArgs  *self,
                             guint             index,
                             double           value,
                             GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return set_bytes (self, index, TYPE_DOUBLE, &value, sizeof value, NULL, error);
}

/**
 * gcuda_kernel_args_set_pointer:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @address: a device address
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces a pointer (or 64-bit integer) argument with @address, releasing
 * the buffer it named, if any. Errors as [method@GCuda.KernelArgs.set_int32].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_pointer (GCudaKernelArgs  *self,
                               guint             index,
                               guint64           address,
                               GError          **error)
{
  CUdeviceptr ptr = address;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return set_bytes (self, index, TYPE_POINTER, &ptr, sizeof ptr, NULL, error);
}

/**
 * gcuda_kernel_args_set_struct:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @data: the struct's new bytes
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces a struct argument (added with
 * [method@GCuda.KernelArgs.add_struct]) with @data, of the same size.
 * Errors as [method@GCuda.KernelArgs.set_int32].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_struct (GCudaKernelArgs  *self,
                              guint             index,
                              GBytes           *data,
                              GError          **error)
{
  gconstpointer bytes;
  gsize size = 0;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);

  if (data == NULL)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected the struct's bytes"));
      return FALSE;
    }
  bytes = g_bytes_get_data (data, &size);
  return set_bytes (self, index, TYPE_STRUCT, bytes, size, NULL, error);
}

/**
 * gcuda_kernel_args_set_number:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces a scalar argument with @value converted to the type the argument
 * was added as, for languages whose numbers have no C type (a JavaScript
 * number is a `double`): a `float` argument gets @value rounded to `float`,
 * an integer argument gets @value if it is a whole number in the type's
 * range (and, for 64-bit integers, within ±2⁵³, where a `double` is exact).
 * A fraction, a value out of range, NaN, or a pointer or struct argument is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], as are the errors of
 * [method@GCuda.KernelArgs.set_int32]; the arguments are then left as they
 * were.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_number (GCudaKernelArgs  *self,
                              guint             index,
                              double            value,
                              GError          **error)
{
  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);
  return _gcuda_kernel_args_set_number (self, index, value, error);
}

/* The integer types' ranges as doubles: beyond 2^53 a double is not exact,
 * so 64-bit integers stop there. */
static const double number_limits[][2] = {
  [TYPE_INT8] = { G_MININT8, G_MAXINT8 },
  [TYPE_UINT8] = { 0, G_MAXUINT8 },
  [TYPE_INT16] = { G_MININT16, G_MAXINT16 },
  [TYPE_UINT16] = { 0, G_MAXUINT16 },
  [TYPE_INT32] = { G_MININT32, G_MAXINT32 },
  [TYPE_UINT32] = { 0, G_MAXUINT32 },
  [TYPE_INT64] = { -9007199254740992.0, 9007199254740992.0 },
  [TYPE_UINT64] = { 0, 9007199254740992.0 },
};

/* Whether @value is exactly a value of the integer @type: a whole number in
 * its range (NaN fails both comparisons, an infinity one); else an error
 * naming argument @index, the value and the type. */
static gboolean
number_fits (ArgType   type,
             guint     index,
             double    value,
             GError  **error)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];

  if (G_LIKELY (value >= number_limits[type][0] && value <= number_limits[type][1] &&
                value == (double) (gint64) value))
    return TRUE;
  _gcuda_format_number (text, value);
  if (type == TYPE_INT64 || type == TYPE_UINT64)
    g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS,
                 _("Argument #%u (0-based) is of type %s: %s is not a whole number from %.0f to %.0f "
                   "(beyond 2^53 a double is not exact: KernelArgs.set_pointer() sets any 64-bit value exactly)"),
                 index, type_names[type], text, number_limits[type][0], number_limits[type][1]);
  else
    g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS,
                 _("Argument #%u (0-based) is of type %s: %s is not a whole number from %.0f to %.0f"),
                 index, type_names[type], text, number_limits[type][0], number_limits[type][1]);
  return FALSE;
}

gboolean
_gcuda_kernel_args_set_number (GCudaKernelArgs  *self,
                               guint             index,
                               double            value,
                               GError          **error)
{
  guint8 *data;
  Arg *arg;

  if (G_UNLIKELY (index >= self->args->len))
    return settable_arg (self, index, TYPE_DOUBLE, sizeof value, error) != NULL;
  arg = &g_array_index (self->args, Arg, index);
  data = self->storage->data + arg->offset;
  switch (arg->type)
    {
    case TYPE_FLOAT:
      {
        float f = (float) value;

        memcpy (data, &f, sizeof f);
        return TRUE;
      }
    case TYPE_DOUBLE:
      memcpy (data, &value, sizeof value);
      return TRUE;
    case TYPE_POINTER:
    case TYPE_STRUCT:
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS,
                   _("Argument #%u (0-based) is of type %s; a number cannot replace it"), index, type_names[arg->type]);
      return FALSE;
    default:
      break;
    }
  if (G_UNLIKELY (!number_fits (arg->type, index, value, error)))
    return FALSE;
  switch (arg->type)
    {
    case TYPE_INT8: *(gint8 *) data = (gint8) value; break;
    case TYPE_UINT8: *data = (guint8) value; break;
    case TYPE_INT16: { gint16 v = (gint16) value; memcpy (data, &v, sizeof v); } break;
    case TYPE_UINT16: { guint16 v = (guint16) value; memcpy (data, &v, sizeof v); } break;
    case TYPE_INT32: { gint32 v = (gint32) value; memcpy (data, &v, sizeof v); } break;
    case TYPE_UINT32: { guint32 v = (guint32) value; memcpy (data, &v, sizeof v); } break;
    case TYPE_INT64: { gint64 v = (gint64) value; memcpy (data, &v, sizeof v); } break;
    case TYPE_UINT64: { guint64 v = (guint64) value; memcpy (data, &v, sizeof v); } break;
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
    case TYPE_POINTER:
    case TYPE_STRUCT:
      break;  /* answered by the switch above */
    }
  return TRUE;
}

/**
 * gcuda_kernel_args_get_value:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 *
 * Gets the bytes argument @index passes to the kernel (in the host's byte
 * order, as the kernel reads them), to check what a launch will see.
 *
 * Returns: (transfer full) (nullable): a copy of the argument's bytes, or
 *   %NULL if there is no argument @index
 *
 * Since: 1.0
 */
GBytes *
gcuda_kernel_args_get_value (GCudaKernelArgs *self,
                             guint            index)
{
  const Arg *arg;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), NULL);

  if (index >= self->args->len)
    return NULL;
  arg = &g_array_index (self->args, Arg, index);
  return g_bytes_new (self->storage->data + arg->offset, arg->size);
}
/**
 * gcuda_kernel_args_add_pointer:
 * @self: a [class@GCuda.KernelArgs]
 * @address: a device address (of memory GCuda does not manage, say)
 *
 * Appends a pointer argument. Prefer [method@GCuda.KernelArgs.add_buffer],
 * which keeps the memory alive.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_pointer (GCudaKernelArgs *self,
                               guint64          address)
{
  CUdeviceptr ptr = address;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  return add_bytes (self, TYPE_POINTER, &ptr, sizeof ptr, G_ALIGNOF (CUdeviceptr), NULL);
}

/**
 * gcuda_kernel_args_add_buffer:
 * @self: a [class@GCuda.KernelArgs]
 * @buffer: device memory
 *
 * Appends @buffer's device address as a pointer argument, keeping @buffer
 * alive while the arguments name it. A buffer freed before a launch makes
 * the launch fail with [GCUDA_ERROR_FREED][error@GCuda.Error].
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_buffer (GCudaKernelArgs *self,
                              GCudaBuffer     *buffer)
{
  CUdeviceptr ptr;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  g_return_val_if_fail (GCUDA_IS_BUFFER (buffer), 0);

  ptr = gcuda_buffer_get_address (buffer);
  return add_bytes (self, TYPE_POINTER, &ptr, sizeof ptr, G_ALIGNOF (CUdeviceptr), G_OBJECT (buffer));
}

/**
 * gcuda_kernel_args_set_buffer:
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @buffer: device memory
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces a pointer argument with @buffer's address.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_buffer (GCudaKernelArgs  *self,
                              guint             index,
                              GCudaBuffer      *buffer,
                              GError          **error)
{
  CUdeviceptr ptr;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);

  if (!GCUDA_IS_BUFFER (buffer))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Expected a GCuda.Buffer"));
      return FALSE;
    }
  ptr = gcuda_buffer_get_address (buffer);
  return set_bytes (self, index, TYPE_POINTER, &ptr, sizeof ptr, G_OBJECT (buffer), error);
}

/**
 * gcuda_kernel_args_add_struct:
 * @self: a [class@GCuda.KernelArgs]
 * @data: the struct's bytes, laid out as the kernel's C struct
 * @alignment: the struct's alignment (a power of two; 0 for 8)
 *
 * Appends a struct passed by value, such as a `float3`.
 *
 * Returns: its index
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_struct (GCudaKernelArgs *self,
                              GBytes          *data,
                              guint            alignment)
{
  gsize size = 0;
  gconstpointer bytes;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), 0);
  g_return_val_if_fail (data != NULL, 0);

  bytes = g_bytes_get_data (data, &size);
  return add_bytes (self, TYPE_STRUCT, bytes, size, alignment ? alignment : 8, NULL);
}

/* A buffer a kernel of @context cannot reach (memory of another context of
 * its device): refused before it faults in the kernel. */
static gboolean
check_buffer_context (GCudaBuffer   *buffer,
                      GCudaContext  *context,
                      guint          index,
                      const char    *kernel_name,
                      GError       **error)
{
  GError *local = NULL;

  if (gcuda_buffer_check_reachable (buffer, context, &local))
    return TRUE;
  g_propagate_prefixed_error (error, local, _("Parameter #%u (0-based) of kernel %s: "), index, kernel_name);
  return FALSE;
}

void **
_gcuda_kernel_args_prepare (GCudaKernelArgs *self,
                            GCudaContext    *context,
                            const gsize     *param_sizes,
                            guint            n_params,
                            const char      *kernel_name,
                            GError         **error)
{
  if (self == NULL)
    {
      if (n_params == 0)
        return NULL;
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS,
                   _("Kernel %s takes %u arguments; none were given"), kernel_name, n_params);
      return NULL;
    }
  if (self->args->len != n_params)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS,
                   self->args->len > n_params
                     ? _("Kernel %s takes %u arguments, not %u (a struct parameter is one argument, "
                         "added whole, not field by field)")
                     : _("Kernel %s takes %u arguments, not %u"),
                   kernel_name, n_params, self->args->len);
      return NULL;
    }
  if (self->params->len != n_params)
    g_ptr_array_set_size (self->params, n_params);
  for (guint i = 0; i < n_params; i++)
    {
      const Arg *arg = &g_array_index (self->args, Arg, i);

      if (arg->size != param_sizes[i])
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_KERNEL_ARGUMENTS,
                       _("Parameter #%u (0-based) of kernel %s is %" "zu" " bytes; the argument given is %"
                         "zu"), i, kernel_name, param_sizes[i], arg->size);
          return NULL;
        }
      /* a buffer (add_buffer() keeps nothing else): the common case in one
       * test, without type checks; the errors below tell which it is */
      if (G_LIKELY (arg->keep == NULL || _gcuda_buffer_is_usable_in ((GCudaBuffer *) arg->keep, context)))
        {
          self->params->pdata[i] = self->storage->data + arg->offset;
          continue;
        }
      if (gcuda_buffer_is_freed (GCUDA_BUFFER (arg->keep)))
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_FREED,
                       _("The buffer passed as parameter #%u (0-based) of kernel %s was freed"), i, kernel_name);
          return NULL;
        }
      /* a buffer made by hand has no memory: its address 0 would fault in the kernel */
      if (arg->keep != NULL && gcuda_buffer_get_context (GCUDA_BUFFER (arg->keep)) == NULL)
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                       _("The buffer passed as parameter #%u (0-based) of kernel %s was made without memory: "
                         "allocate buffers with a GCuda.Buffer constructor"), i, kernel_name);
          return NULL;
        }
      if (!check_buffer_context (GCUDA_BUFFER (arg->keep), context, i, kernel_name, error))
        return NULL;
      self->params->pdata[i] = self->storage->data + arg->offset;
    }
  return self->params->pdata;
}

/* The setters' twins taking a double, which bindings call instead (each is
 * rename-to its integer setter): GJS, for one, converts a number to a C
 * integer by truncating a fraction, wrapping or clamping before the setter
 * runs, where these refuse anything the type cannot hold exactly. */
/**
 * gcuda_kernel_args_add_int8_number: (rename-to gcuda_kernel_args_add_int8)
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value, a whole number in the range of `gint8`
 * @error: return location for a [struct@GLib.Error]
 *
 * Appends a `gint8` argument given as a `double`, for languages whose
 * numbers are doubles: bindings call it as `add_int8()`. @value must be a
 * whole number in the range of `gint8`; a fraction, a value out of range,
 * NaN or an infinity is [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error],
 * and nothing is appended. C code calls `gcuda_kernel_args_add_int8()`.
 *
 * Returns: its index, or %G_MAXUINT on error
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_int8_number (GCudaKernelArgs  *self,
                                   double            value,
                                   GError          **error)
{
  gint8 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), G_MAXUINT);

  if (!number_fits (TYPE_INT8, self->args->len, value, error))
    return G_MAXUINT;
  v = (gint8) value;
  return add_bytes (self, TYPE_INT8, &v, sizeof v, G_ALIGNOF (gint8), NULL);
}

/**
 * gcuda_kernel_args_set_int8_number: (rename-to gcuda_kernel_args_set_int8)
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value, a whole number in the range of `gint8`
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size with a `gint8`
 * given as a `double`, for languages whose numbers are doubles: bindings
 * call it as `set_int8()`. @value must be a whole number in the range of
 * `gint8`; a fraction, a value out of range, NaN or an infinity is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], as are an @index past
 * the last argument and an argument of another type or size, and the
 * arguments are then left as they were. C code calls
 * `gcuda_kernel_args_set_int8()`.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_int8_number (GCudaKernelArgs  *self,
                                   guint             index,
                                   double            value,
                                   GError          **error)
{
  gint8 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);

  if (!number_fits (TYPE_INT8, index, value, error))
    return FALSE;
  v = (gint8) value;
  return set_bytes (self, index, TYPE_INT8, &v, sizeof v, NULL, error);
}

/**
 * gcuda_kernel_args_add_uint8_number: (rename-to gcuda_kernel_args_add_uint8)
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value, a whole number in the range of `guint8`
 * @error: return location for a [struct@GLib.Error]
 *
 * Appends a `guint8` argument given as a `double`, for languages whose
 * numbers are doubles: bindings call it as `add_uint8()`. @value must be a
 * whole number in the range of `guint8`; a fraction, a value out of range,
 * NaN or an infinity is [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error],
 * and nothing is appended. C code calls `gcuda_kernel_args_add_uint8()`.
 *
 * Returns: its index, or %G_MAXUINT on error
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_uint8_number (GCudaKernelArgs  *self,
                                    double            value,
                                    GError          **error)
{
  guint8 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), G_MAXUINT);

  if (!number_fits (TYPE_UINT8, self->args->len, value, error))
    return G_MAXUINT;
  v = (guint8) value;
  return add_bytes (self, TYPE_UINT8, &v, sizeof v, G_ALIGNOF (guint8), NULL);
}

/**
 * gcuda_kernel_args_set_uint8_number: (rename-to gcuda_kernel_args_set_uint8)
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value, a whole number in the range of `guint8`
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size with a `guint8`
 * given as a `double`, for languages whose numbers are doubles: bindings
 * call it as `set_uint8()`. @value must be a whole number in the range of
 * `guint8`; a fraction, a value out of range, NaN or an infinity is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], as are an @index past
 * the last argument and an argument of another type or size, and the
 * arguments are then left as they were. C code calls
 * `gcuda_kernel_args_set_uint8()`.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_uint8_number (GCudaKernelArgs  *self,
                                    guint             index,
                                    double            value,
                                    GError          **error)
{
  guint8 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);

  if (!number_fits (TYPE_UINT8, index, value, error))
    return FALSE;
  v = (guint8) value;
  return set_bytes (self, index, TYPE_UINT8, &v, sizeof v, NULL, error);
}

/**
 * gcuda_kernel_args_add_int16_number: (rename-to gcuda_kernel_args_add_int16)
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value, a whole number in the range of `gint16`
 * @error: return location for a [struct@GLib.Error]
 *
 * Appends a `gint16` argument given as a `double`, for languages whose
 * numbers are doubles: bindings call it as `add_int16()`. @value must be a
 * whole number in the range of `gint16`; a fraction, a value out of range,
 * NaN or an infinity is [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error],
 * and nothing is appended. C code calls `gcuda_kernel_args_add_int16()`.
 *
 * Returns: its index, or %G_MAXUINT on error
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_int16_number (GCudaKernelArgs  *self,
                                    double            value,
                                    GError          **error)
{
  gint16 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), G_MAXUINT);

  if (!number_fits (TYPE_INT16, self->args->len, value, error))
    return G_MAXUINT;
  v = (gint16) value;
  return add_bytes (self, TYPE_INT16, &v, sizeof v, G_ALIGNOF (gint16), NULL);
}

/**
 * gcuda_kernel_args_set_int16_number: (rename-to gcuda_kernel_args_set_int16)
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value, a whole number in the range of `gint16`
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size with a `gint16`
 * given as a `double`, for languages whose numbers are doubles: bindings
 * call it as `set_int16()`. @value must be a whole number in the range of
 * `gint16`; a fraction, a value out of range, NaN or an infinity is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], as are an @index past
 * the last argument and an argument of another type or size, and the
 * arguments are then left as they were. C code calls
 * `gcuda_kernel_args_set_int16()`.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_int16_number (GCudaKernelArgs  *self,
                                    guint             index,
                                    double            value,
                                    GError          **error)
{
  gint16 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);

  if (!number_fits (TYPE_INT16, index, value, error))
    return FALSE;
  v = (gint16) value;
  return set_bytes (self, index, TYPE_INT16, &v, sizeof v, NULL, error);
}

/**
 * gcuda_kernel_args_add_uint16_number: (rename-to gcuda_kernel_args_add_uint16)
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value, a whole number in the range of `guint16`
 * @error: return location for a [struct@GLib.Error]
 *
 * Appends a `guint16` argument given as a `double`, for languages whose
 * numbers are doubles: bindings call it as `add_uint16()`. @value must be a
 * whole number in the range of `guint16`; a fraction, a value out of range,
 * NaN or an infinity is [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error],
 * and nothing is appended. C code calls `gcuda_kernel_args_add_uint16()`.
 *
 * Returns: its index, or %G_MAXUINT on error
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_uint16_number (GCudaKernelArgs  *self,
                                     double            value,
                                     GError          **error)
{
  guint16 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), G_MAXUINT);

  if (!number_fits (TYPE_UINT16, self->args->len, value, error))
    return G_MAXUINT;
  v = (guint16) value;
  return add_bytes (self, TYPE_UINT16, &v, sizeof v, G_ALIGNOF (guint16), NULL);
}

/**
 * gcuda_kernel_args_set_uint16_number: (rename-to gcuda_kernel_args_set_uint16)
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value, a whole number in the range of `guint16`
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size with a `guint16`
 * given as a `double`, for languages whose numbers are doubles: bindings
 * call it as `set_uint16()`. @value must be a whole number in the range of
 * `guint16`; a fraction, a value out of range, NaN or an infinity is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], as are an @index past
 * the last argument and an argument of another type or size, and the
 * arguments are then left as they were. C code calls
 * `gcuda_kernel_args_set_uint16()`.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_uint16_number (GCudaKernelArgs  *self,
                                     guint             index,
                                     double            value,
                                     GError          **error)
{
  guint16 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);

  if (!number_fits (TYPE_UINT16, index, value, error))
    return FALSE;
  v = (guint16) value;
  return set_bytes (self, index, TYPE_UINT16, &v, sizeof v, NULL, error);
}

/**
 * gcuda_kernel_args_add_int32_number: (rename-to gcuda_kernel_args_add_int32)
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value, a whole number in the range of `gint32`
 * @error: return location for a [struct@GLib.Error]
 *
 * Appends a `gint32` argument given as a `double`, for languages whose
 * numbers are doubles: bindings call it as `add_int32()`. @value must be a
 * whole number in the range of `gint32`; a fraction, a value out of range,
 * NaN or an infinity is [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error],
 * and nothing is appended. C code calls `gcuda_kernel_args_add_int32()`.
 *
 * Returns: its index, or %G_MAXUINT on error
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_int32_number (GCudaKernelArgs  *self,
                                    double            value,
                                    GError          **error)
{
  gint32 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), G_MAXUINT);

  if (!number_fits (TYPE_INT32, self->args->len, value, error))
    return G_MAXUINT;
  v = (gint32) value;
  return add_bytes (self, TYPE_INT32, &v, sizeof v, G_ALIGNOF (gint32), NULL);
}

/**
 * gcuda_kernel_args_set_int32_number: (rename-to gcuda_kernel_args_set_int32)
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value, a whole number in the range of `gint32`
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size with a `gint32`
 * given as a `double`, for languages whose numbers are doubles: bindings
 * call it as `set_int32()`. @value must be a whole number in the range of
 * `gint32`; a fraction, a value out of range, NaN or an infinity is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], as are an @index past
 * the last argument and an argument of another type or size, and the
 * arguments are then left as they were. C code calls
 * `gcuda_kernel_args_set_int32()`.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_int32_number (GCudaKernelArgs  *self,
                                    guint             index,
                                    double            value,
                                    GError          **error)
{
  gint32 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);

  if (!number_fits (TYPE_INT32, index, value, error))
    return FALSE;
  v = (gint32) value;
  return set_bytes (self, index, TYPE_INT32, &v, sizeof v, NULL, error);
}

/**
 * gcuda_kernel_args_add_uint32_number: (rename-to gcuda_kernel_args_add_uint32)
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value, a whole number in the range of `guint32`
 * @error: return location for a [struct@GLib.Error]
 *
 * Appends a `guint32` argument given as a `double`, for languages whose
 * numbers are doubles: bindings call it as `add_uint32()`. @value must be a
 * whole number in the range of `guint32`; a fraction, a value out of range,
 * NaN or an infinity is [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error],
 * and nothing is appended. C code calls `gcuda_kernel_args_add_uint32()`.
 *
 * Returns: its index, or %G_MAXUINT on error
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_uint32_number (GCudaKernelArgs  *self,
                                     double            value,
                                     GError          **error)
{
  guint32 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), G_MAXUINT);

  if (!number_fits (TYPE_UINT32, self->args->len, value, error))
    return G_MAXUINT;
  v = (guint32) value;
  return add_bytes (self, TYPE_UINT32, &v, sizeof v, G_ALIGNOF (guint32), NULL);
}

/**
 * gcuda_kernel_args_set_uint32_number: (rename-to gcuda_kernel_args_set_uint32)
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value, a whole number in the range of `guint32`
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size with a `guint32`
 * given as a `double`, for languages whose numbers are doubles: bindings
 * call it as `set_uint32()`. @value must be a whole number in the range of
 * `guint32`; a fraction, a value out of range, NaN or an infinity is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], as are an @index past
 * the last argument and an argument of another type or size, and the
 * arguments are then left as they were. C code calls
 * `gcuda_kernel_args_set_uint32()`.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_uint32_number (GCudaKernelArgs  *self,
                                     guint             index,
                                     double            value,
                                     GError          **error)
{
  guint32 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);

  if (!number_fits (TYPE_UINT32, index, value, error))
    return FALSE;
  v = (guint32) value;
  return set_bytes (self, index, TYPE_UINT32, &v, sizeof v, NULL, error);
}

/**
 * gcuda_kernel_args_add_int64_number: (rename-to gcuda_kernel_args_add_int64)
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value, a whole number from -2⁵³ to 2⁵³
 * @error: return location for a [struct@GLib.Error]
 *
 * Appends a `gint64` argument given as a `double`, for languages whose
 * numbers are doubles: bindings call it as `add_int64()`. @value must be a
 * whole number from -2⁵³ to 2⁵³, where a `double` is still exact (beyond,
 * [method@GCuda.KernelArgs.set_pointer] sets the exact value of any 64-bit
 * integer argument); a fraction, a value out of range, NaN or an infinity is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and nothing is
 * appended. C code calls `gcuda_kernel_args_add_int64()`.
 *
 * Returns: its index, or %G_MAXUINT on error
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_int64_number (GCudaKernelArgs  *self,
                                    double            value,
                                    GError          **error)
{
  gint64 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), G_MAXUINT);

  if (!number_fits (TYPE_INT64, self->args->len, value, error))
    return G_MAXUINT;
  v = (gint64) value;
  return add_bytes (self, TYPE_INT64, &v, sizeof v, G_ALIGNOF (gint64), NULL);
}

/**
 * gcuda_kernel_args_set_int64_number: (rename-to gcuda_kernel_args_set_int64)
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value, a whole number from -2⁵³ to 2⁵³
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size with a `gint64`
 * given as a `double`, for languages whose numbers are doubles: bindings
 * call it as `set_int64()`. @value must be a whole number from -2⁵³ to 2⁵³,
 * where a `double` is still exact (beyond,
 * [method@GCuda.KernelArgs.set_pointer] sets the exact value of any 64-bit
 * integer argument); a fraction, a value out of range, NaN or an infinity is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], as are an @index past
 * the last argument and an argument of another type or size, and the
 * arguments are then left as they were. C code calls
 * `gcuda_kernel_args_set_int64()`.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_int64_number (GCudaKernelArgs  *self,
                                    guint             index,
                                    double            value,
                                    GError          **error)
{
  gint64 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);

  if (!number_fits (TYPE_INT64, index, value, error))
    return FALSE;
  v = (gint64) value;
  return set_bytes (self, index, TYPE_INT64, &v, sizeof v, NULL, error);
}

/**
 * gcuda_kernel_args_add_uint64_number: (rename-to gcuda_kernel_args_add_uint64)
 * @self: a [class@GCuda.KernelArgs]
 * @value: the value, a whole number from 0 to 2⁵³
 * @error: return location for a [struct@GLib.Error]
 *
 * Appends a `guint64` argument given as a `double`, for languages whose
 * numbers are doubles: bindings call it as `add_uint64()`. @value must be a
 * whole number from 0 to 2⁵³, where a `double` is still exact (beyond,
 * [method@GCuda.KernelArgs.set_pointer] sets the exact value of any 64-bit
 * integer argument); a fraction, a value out of range, NaN or an infinity is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], and nothing is
 * appended. C code calls `gcuda_kernel_args_add_uint64()`.
 *
 * Returns: its index, or %G_MAXUINT on error
 *
 * Since: 1.0
 */
guint
gcuda_kernel_args_add_uint64_number (GCudaKernelArgs  *self,
                                     double            value,
                                     GError          **error)
{
  guint64 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), G_MAXUINT);

  if (!number_fits (TYPE_UINT64, self->args->len, value, error))
    return G_MAXUINT;
  v = (guint64) value;
  return add_bytes (self, TYPE_UINT64, &v, sizeof v, G_ALIGNOF (guint64), NULL);
}

/**
 * gcuda_kernel_args_set_uint64_number: (rename-to gcuda_kernel_args_set_uint64)
 * @self: a [class@GCuda.KernelArgs]
 * @index: the argument's index
 * @value: the new value, a whole number from 0 to 2⁵³
 * @error: return location for a [struct@GLib.Error]
 *
 * Replaces an integer or pointer argument of the same size with a `guint64`
 * given as a `double`, for languages whose numbers are doubles: bindings
 * call it as `set_uint64()`. @value must be a whole number from 0 to 2⁵³,
 * where a `double` is still exact (beyond,
 * [method@GCuda.KernelArgs.set_pointer] sets the exact value of any 64-bit
 * integer argument); a fraction, a value out of range, NaN or an infinity is
 * [GCUDA_ERROR_KERNEL_ARGUMENTS][error@GCuda.Error], as are an @index past
 * the last argument and an argument of another type or size, and the
 * arguments are then left as they were. C code calls
 * `gcuda_kernel_args_set_uint64()`.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_kernel_args_set_uint64_number (GCudaKernelArgs  *self,
                                     guint             index,
                                     double            value,
                                     GError          **error)
{
  guint64 v;

  g_return_val_if_fail (GCUDA_IS_KERNEL_ARGS (self), FALSE);

  if (!number_fits (TYPE_UINT64, index, value, error))
    return FALSE;
  v = (guint64) value;
  return set_bytes (self, index, TYPE_UINT64, &v, sizeof v, NULL, error);
}
