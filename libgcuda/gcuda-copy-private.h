/* gcuda-copy-private.h: what GCudaCopy2D, GCudaCopy3D and GCudaCopy3DPeer share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"

G_BEGIN_DECLS

typedef enum {
  GCUDA_COPY_ENDPOINT_NONE,
  GCUDA_COPY_ENDPOINT_HOST,         /* an address and a size */
  GCUDA_COPY_ENDPOINT_HOST_BUFFER,  /* a GCudaHostBuffer */
  GCUDA_COPY_ENDPOINT_BUFFER,       /* a GCudaBuffer */
  GCUDA_COPY_ENDPOINT_UNIFIED,      /* an address in the unified address space and a size */
  GCUDA_COPY_ENDPOINT_ARRAY,        /* a GCudaArray: the region is checked against its extent, no pitch */
} GCudaCopyEndpointKind;

/* One side of a copy, as the user described it. */
typedef struct {
  GCudaCopyEndpointKind kind;
  guint64 address;               /* HOST, UNIFIED */
  guint64 size;                  /* HOST, UNIFIED */
  GCudaHostBuffer *host_buffer;  /* HOST_BUFFER: a reference */
  GCudaBuffer *buffer;           /* BUFFER: a reference */
  GCudaArray *array;             /* ARRAY: a reference */
  GCudaContext *context;         /* GCudaCopy3DPeer's explicit context, or NULL */

  guint64 x_in_bytes;
  guint64 y;
  guint64 z;                     /* 3D forms */
  guint64 pitch;
  guint64 height;                /* 3D forms: rows per slice */
} GCudaCopyEndpoint;

typedef struct {
  GCudaCopyEndpoint src;
  GCudaCopyEndpoint dst;
  guint64 width_in_bytes;
  guint64 height;
  guint64 depth;                 /* always 1 for GCudaCopy2D */
  gboolean unaligned;            /* GCudaCopy2D: !aligned */
} GCudaCopySpec;

typedef enum {
  GCUDA_COPY_FORM_2D,
  GCUDA_COPY_FORM_3D,
  GCUDA_COPY_FORM_3D_PEER,
} GCudaCopyForm;

/* The instance of each copy class is this and nothing more (its struct's
 * one member, named `copy`), so the shared code reaches the description
 * from the GObject. */
typedef struct {
  GObject parent_instance;
  GCudaCopySpec spec;
} GCudaCopyObject;

/* The 2D properties come first; the 3D forms add the rest. */
enum {
  GCUDA_COPY_PROP_0,
  GCUDA_COPY_PROP_SRC_X_IN_BYTES,
  GCUDA_COPY_PROP_SRC_Y,
  GCUDA_COPY_PROP_SRC_PITCH,
  GCUDA_COPY_PROP_DST_X_IN_BYTES,
  GCUDA_COPY_PROP_DST_Y,
  GCUDA_COPY_PROP_DST_PITCH,
  GCUDA_COPY_PROP_WIDTH_IN_BYTES,
  GCUDA_COPY_PROP_HEIGHT,
  GCUDA_COPY_N_PROPS_2D,
  GCUDA_COPY_PROP_SRC_Z = GCUDA_COPY_N_PROPS_2D,
  GCUDA_COPY_PROP_SRC_HEIGHT,
  GCUDA_COPY_PROP_DST_Z,
  GCUDA_COPY_PROP_DST_HEIGHT,
  GCUDA_COPY_PROP_DEPTH,
  GCUDA_COPY_N_PROPS_3D,
  GCUDA_COPY_PROP_ALIGNED = GCUDA_COPY_N_PROPS_3D,  /* GCudaCopy2D only */
};

/* Installs the first @n_props guint64 properties (2D or 3D) on a copy class,
 * with the shared finalize, get_property and set_property. */
void     _gcuda_copy_class_setup          (GObjectClass       *object_class,
                                           GParamSpec        **props,
                                           guint               n_props);
void     _gcuda_copy_get_property         (GObject            *object,
                                           guint               prop_id,
                                           GValue             *value,
                                           GParamSpec         *pspec);
void     _gcuda_copy_set_property         (GObject            *object,
                                           guint               prop_id,
                                           const GValue       *value,
                                           GParamSpec         *pspec);

/* The guint64 property @prop_id of @copy; setting it notifies @pspec when
 * the value changes, as g_object_set() does. */
guint64  _gcuda_copy_get_field            (GCudaCopyObject    *copy,
                                           guint               prop_id);
void     _gcuda_copy_set_field            (GCudaCopyObject    *copy,
                                           GParamSpec         *pspec,
                                           guint               prop_id,
                                           guint64             value);

/* The endpoint setters: each replaces the memory the endpoint had; its
 * geometry and context stay. */
void     _gcuda_copy_endpoint_set_host    (GCudaCopyEndpoint  *ep,
                                           guint64             address,
                                           guint64             size);
void     _gcuda_copy_endpoint_set_unified (GCudaCopyEndpoint  *ep,
                                           guint64             address,
                                           guint64             size);
void     _gcuda_copy_endpoint_set_host_buffer (GCudaCopyEndpoint *ep,
                                               GCudaHostBuffer   *buffer);
void     _gcuda_copy_endpoint_set_buffer  (GCudaCopyEndpoint  *ep,
                                           GCudaBuffer        *buffer);
void     _gcuda_copy_endpoint_set_array   (GCudaCopyEndpoint  *ep,
                                           GCudaArray         *array);
void     _gcuda_copy_endpoint_set_context (GCudaCopyEndpoint  *ep,
                                           GCudaContext       *context);

/* Checks the whole copy before the driver is called, then makes it in the
 * chosen context: on @stream, or synchronously when it is NULL. */
gboolean _gcuda_copy_execute              (const GCudaCopySpec *spec,
                                           GCudaCopyForm        form,
                                           GCudaStream         *stream,
                                           GError             **error);

/* The public methods every copy class has in the same shape, written by
 * the macros below. A class file names itself first, `#define COPY_CLASS
 * GCudaCopy2D, gcuda_copy_2d, GCUDA_IS_COPY_2D`, and puts the doc comments
 * of the methods a macro writes just before it: the comments document the
 * methods, the macros only write their bodies. Each method checks its
 * instance as a hand-written one would (g_return_if_fail() names the
 * method); its parameters' names are those of the header. */

/* type_name_get_FIELD() and type_name_set_FIELD(): the guint64 property
 * @PROP, notified through @props[PROP]. */
#define GCUDA_COPY_FIELD_ACCESSORS(...) GCUDA_COPY_FIELD_ACCESSORS_ (__VA_ARGS__)
#define GCUDA_COPY_FIELD_ACCESSORS_(TypeName, type_name, TYPE_CHECK, props, FIELD, PROP) \
  guint64                                                                 \
  type_name##_get_##FIELD (TypeName *self)                                \
  {                                                                       \
    g_return_val_if_fail (TYPE_CHECK (self), 0);                          \
    return _gcuda_copy_get_field (&self->copy, PROP);                     \
  }                                                                       \
                                                                          \
  void                                                                    \
  type_name##_set_##FIELD (TypeName *self,                                \
                           guint64   value)                               \
  {                                                                       \
    g_return_if_fail (TYPE_CHECK (self));                                 \
    _gcuda_copy_set_field (&self->copy, props[PROP], PROP, value);        \
  }

/* F (ARGS, field, PROP) for each guint64 property of GCudaCopy2D, and of
 * the 3D forms (five more). */
#define GCUDA_COPY_2D_FIELDS(F, ...)                                      \
  F (__VA_ARGS__, src_x_in_bytes, GCUDA_COPY_PROP_SRC_X_IN_BYTES)         \
  F (__VA_ARGS__, src_y, GCUDA_COPY_PROP_SRC_Y)                           \
  F (__VA_ARGS__, src_pitch, GCUDA_COPY_PROP_SRC_PITCH)                   \
  F (__VA_ARGS__, dst_x_in_bytes, GCUDA_COPY_PROP_DST_X_IN_BYTES)         \
  F (__VA_ARGS__, dst_y, GCUDA_COPY_PROP_DST_Y)                           \
  F (__VA_ARGS__, dst_pitch, GCUDA_COPY_PROP_DST_PITCH)                   \
  F (__VA_ARGS__, width_in_bytes, GCUDA_COPY_PROP_WIDTH_IN_BYTES)         \
  F (__VA_ARGS__, height, GCUDA_COPY_PROP_HEIGHT)
#define GCUDA_COPY_3D_FIELDS(F, ...)                                      \
  GCUDA_COPY_2D_FIELDS (F, __VA_ARGS__)                                   \
  F (__VA_ARGS__, src_z, GCUDA_COPY_PROP_SRC_Z)                           \
  F (__VA_ARGS__, src_height, GCUDA_COPY_PROP_SRC_HEIGHT)                 \
  F (__VA_ARGS__, dst_z, GCUDA_COPY_PROP_DST_Z)                           \
  F (__VA_ARGS__, dst_height, GCUDA_COPY_PROP_DST_HEIGHT)                 \
  F (__VA_ARGS__, depth, GCUDA_COPY_PROP_DEPTH)

/* type_name_set_END_WHAT (self, address, size): @END (src or dst) becomes
 * host (WHAT host) or unified (WHAT unified) memory. */
#define GCUDA_COPY_ADDRESS_SETTER(...) GCUDA_COPY_ADDRESS_SETTER_ (__VA_ARGS__)
#define GCUDA_COPY_ADDRESS_SETTER_(TypeName, type_name, TYPE_CHECK, END, WHAT) \
  void                                                                    \
  type_name##_set_##END##_##WHAT (TypeName *self,                         \
                                  guint64   address,                      \
                                  guint64   size)                         \
  {                                                                       \
    g_return_if_fail (TYPE_CHECK (self));                                 \
    _gcuda_copy_endpoint_set_##WHAT (&self->copy.spec.END, address, size); \
  }

/* type_name_set_END_WHAT (self, value): @END (src or dst) gets @value, an
 * ArgType (WHAT host_buffer, buffer, array or context). */
#define GCUDA_COPY_OBJECT_SETTER(...) GCUDA_COPY_OBJECT_SETTER_ (__VA_ARGS__)
#define GCUDA_COPY_OBJECT_SETTER_(TypeName, type_name, TYPE_CHECK, END, WHAT, ArgType) \
  void                                                                    \
  type_name##_set_##END##_##WHAT (TypeName *self,                         \
                                  ArgType  *value)                        \
  {                                                                       \
    g_return_if_fail (TYPE_CHECK (self));                                 \
    _gcuda_copy_endpoint_set_##WHAT (&self->copy.spec.END, value);        \
  }

/* The endpoint setters of every copy class: host, host buffer, device
 * buffer and unified memory, for the source and the destination. */
#define GCUDA_COPY_ENDPOINT_SETTERS(...)                                  \
  GCUDA_COPY_ADDRESS_SETTER (__VA_ARGS__, src, host)                      \
  GCUDA_COPY_ADDRESS_SETTER (__VA_ARGS__, dst, host)                      \
  GCUDA_COPY_OBJECT_SETTER (__VA_ARGS__, src, host_buffer, GCudaHostBuffer) \
  GCUDA_COPY_OBJECT_SETTER (__VA_ARGS__, dst, host_buffer, GCudaHostBuffer) \
  GCUDA_COPY_OBJECT_SETTER (__VA_ARGS__, src, buffer, GCudaBuffer)        \
  GCUDA_COPY_OBJECT_SETTER (__VA_ARGS__, dst, buffer, GCudaBuffer)        \
  GCUDA_COPY_ADDRESS_SETTER (__VA_ARGS__, src, unified)                   \
  GCUDA_COPY_ADDRESS_SETTER (__VA_ARGS__, dst, unified)

/* The array endpoints of GCudaCopy2D and GCudaCopy3D. */
#define GCUDA_COPY_ARRAY_SETTERS(...)                                     \
  GCUDA_COPY_OBJECT_SETTER (__VA_ARGS__, src, array, GCudaArray)          \
  GCUDA_COPY_OBJECT_SETTER (__VA_ARGS__, dst, array, GCudaArray)

G_END_DECLS
