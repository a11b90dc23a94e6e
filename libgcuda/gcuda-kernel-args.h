/* gcuda-kernel-args.h: arguments for a kernel launch
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <glib-object.h>

#include "gcuda-types.h"
#include "gcuda-version-macros.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_KERNEL_ARGS (gcuda_kernel_args_get_type ())

/**
 * GCudaKernelArgsClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.KernelArgs]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaKernelArgs, gcuda_kernel_args, GCUDA, KERNEL_ARGS, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaKernelArgs *gcuda_kernel_args_new        (void);
GCUDA_AVAILABLE_IN_1_0
guint            gcuda_kernel_args_get_count  (GCudaKernelArgs *self);
GCUDA_AVAILABLE_IN_1_0
void             gcuda_kernel_args_clear      (GCudaKernelArgs *self);

GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_int8    (GCudaKernelArgs *self, gint8 value);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_uint8   (GCudaKernelArgs *self, guint8 value);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_int16   (GCudaKernelArgs *self, gint16 value);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_uint16  (GCudaKernelArgs *self, guint16 value);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_int32   (GCudaKernelArgs *self, gint32 value);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_uint32  (GCudaKernelArgs *self, guint32 value);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_int64   (GCudaKernelArgs *self, gint64 value);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_uint64  (GCudaKernelArgs *self, guint64 value);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_float   (GCudaKernelArgs *self, float value);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_double  (GCudaKernelArgs *self, double value);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_pointer (GCudaKernelArgs *self, guint64 address);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_buffer  (GCudaKernelArgs *self, GCudaBuffer *buffer);
GCUDA_AVAILABLE_IN_1_0
guint gcuda_kernel_args_add_struct  (GCudaKernelArgs *self, GBytes *data, guint alignment);

GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_int8    (GCudaKernelArgs *self, guint index, gint8 value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_uint8   (GCudaKernelArgs *self, guint index, guint8 value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_int16   (GCudaKernelArgs *self, guint index, gint16 value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_uint16  (GCudaKernelArgs *self, guint index, guint16 value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_int32   (GCudaKernelArgs *self, guint index, gint32 value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_uint32  (GCudaKernelArgs *self, guint index, guint32 value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_int64   (GCudaKernelArgs *self, guint index, gint64 value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_uint64  (GCudaKernelArgs *self, guint index, guint64 value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_float   (GCudaKernelArgs *self, guint index, float value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_double  (GCudaKernelArgs *self, guint index, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_buffer  (GCudaKernelArgs *self, guint index, GCudaBuffer *buffer, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_pointer (GCudaKernelArgs *self, guint index, guint64 address, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_struct  (GCudaKernelArgs *self, guint index, GBytes *data, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_number  (GCudaKernelArgs *self, guint index, double value, GError **error);

GCUDA_AVAILABLE_IN_1_0
guint    gcuda_kernel_args_add_int8_number (GCudaKernelArgs *self, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
guint    gcuda_kernel_args_add_uint8_number (GCudaKernelArgs *self, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
guint    gcuda_kernel_args_add_int16_number (GCudaKernelArgs *self, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
guint    gcuda_kernel_args_add_uint16_number (GCudaKernelArgs *self, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
guint    gcuda_kernel_args_add_int32_number (GCudaKernelArgs *self, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
guint    gcuda_kernel_args_add_uint32_number (GCudaKernelArgs *self, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
guint    gcuda_kernel_args_add_int64_number (GCudaKernelArgs *self, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
guint    gcuda_kernel_args_add_uint64_number (GCudaKernelArgs *self, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_int8_number (GCudaKernelArgs *self, guint index, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_uint8_number (GCudaKernelArgs *self, guint index, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_int16_number (GCudaKernelArgs *self, guint index, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_uint16_number (GCudaKernelArgs *self, guint index, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_int32_number (GCudaKernelArgs *self, guint index, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_uint32_number (GCudaKernelArgs *self, guint index, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_int64_number (GCudaKernelArgs *self, guint index, double value, GError **error);
GCUDA_AVAILABLE_IN_1_0
gboolean gcuda_kernel_args_set_uint64_number (GCudaKernelArgs *self, guint index, double value, GError **error);

GCUDA_AVAILABLE_IN_1_0
GBytes  *gcuda_kernel_args_get_value   (GCudaKernelArgs *self, guint index);

G_END_DECLS
