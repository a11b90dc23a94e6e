/* gcuda-pool-bins-private.h: the bins and counters shared by the memory pools
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

#include "gcuda.h"

G_BEGIN_DECLS

/* bin_number() of the largest 64-bit size, plus one. */
#define GCUDA_POOL_N_BINS 1024

/* The allocator a pool core draws on, called inside the pool's context:
 * @alloc sets *@address (never 0) or @error; @release returns a block to
 * the driver. */
typedef gboolean (*GCudaPoolAllocFunc) (gpointer   owner,
                                        guint64    size,
                                        guint64   *address,
                                        GError   **error);
typedef void     (*GCudaPoolFreeFunc)  (gpointer   owner,
                                        guint64    address);

/* The blocks handed out by address: address (never 0) -> size, in open
 * addressing (linear probing, backward-shift deletion). On the by-address
 * paths it costs a multiply and usually one probe, no allocation per entry:
 * a fraction of a GHashTable's insert and steal. Not locked: the owner's
 * lock guards it. */
typedef struct {
  guint64 *slots;  /* capacity pairs (address, size); address 0: free */
  guint mask;      /* capacity - 1 (a power of two), 0 with no slots */
  guint len;
} GCudaAddressTable;

/* Records @address (not 0, not in @table) with @size. */
void     _gcuda_address_table_insert  (GCudaAddressTable  *table,
                                       guint64             address,
                                       guint64             size);
/* Removes @address, setting *@size (if not NULL) to its size; FALSE if it
 * was not there. */
gboolean _gcuda_address_table_steal   (GCudaAddressTable  *table,
                                       guint64             address,
                                       guint64            *size);
/* Removes every entry, calling @func (if not NULL) on each first, and frees
 * the slots. */
void     _gcuda_address_table_clear   (GCudaAddressTable  *table,
                                       void              (*func) (guint64   address,
                                                                  guint64   size,
                                                                  gpointer  data),
                                       gpointer            data);

/* A bin's held blocks, a stack: the last one is reused first. */
typedef struct {
  guint64 *blocks;
  guint len;
  guint capacity;
} GCudaPoolBin;

typedef struct {
  GMutex lock;
  GCudaPoolBin bins[GCUDA_POOL_N_BINS];
  guint64 held_blocks;
  guint64 active_blocks;
  guint64 managed_bytes;
  guint64 active_bytes;
  guint64 held_bytes;
  guint64 max_held_bytes;
  gboolean stop_holding;
  GCudaPoolAllocFunc alloc;
  GCudaPoolFreeFunc free;
  gpointer owner;
  GCudaContext *context;  /* NULL until the first allocation for the default context */
  GMutex context_lock;
  GCudaAddressTable by_address;  /* blocks handed out by address; under @lock */
} GCudaPoolCore;

typedef enum {
  GCUDA_POOL_HELD_BLOCKS,
  GCUDA_POOL_ACTIVE_BLOCKS,
  GCUDA_POOL_MANAGED_BYTES,
  GCUDA_POOL_ACTIVE_BYTES,
  GCUDA_POOL_MAX_HELD_BYTES,
  GCUDA_POOL_N_COUNTERS
} GCudaPoolCounter;

guint    _gcuda_pool_bitlog2          (guint64 value);
guint    _gcuda_pool_bin_number       (guint64 size);
guint64  _gcuda_pool_alloc_size       (guint   bin);

void     _gcuda_pool_core_init        (GCudaPoolCore       *core,
                                       GCudaPoolAllocFunc   alloc,
                                       GCudaPoolFreeFunc    free_func,
                                       gpointer             owner);
/* Frees the held blocks and those still handed out by address, and drops
 * the context; no buffer may be active any more (each holds the pool). */
void     _gcuda_pool_core_clear       (GCudaPoolCore       *core);
/* What the pools' allocate() shares: 0 bytes is an error, the default
 * context is resolved the first time, a destroyed context is an error with
 * @destroyed_message (an N_() string); then a block of at least @size
 * bytes: on out-of-memory the held blocks are freed, largest first, with a
 * retry after each. Returns the pool's context (transfer none), or NULL
 * with @error set. */
GCudaContext *_gcuda_pool_core_allocate (GCudaPoolCore     *core,
                                       guint64              size,
                                       const char          *destroyed_message,
                                       guint64             *address,
                                       GError             **error);
/* allocate() for the pools' _allocate_address(): the block is also
 * recorded, so _gcuda_pool_core_free_address() can check what it is given. */
gboolean _gcuda_pool_core_allocate_address (GCudaPoolCore  *core,
                                       guint64              size,
                                       const char          *destroyed_message,
                                       guint64             *address,
                                       GError             **error);
/* Gives back a block from _gcuda_pool_core_allocate_address(); an address
 * that is not one (or no longer) is an error naming @what. */
gboolean _gcuda_pool_core_free_address (GCudaPoolCore      *core,
                                       guint64              address,
                                       const char          *what,
                                       GError             **error);
/* Takes a block from _gcuda_pool_core_allocate_address() off the books of
 * blocks handed out by address, for a buffer to own: its size, or 0 with
 * @error set (naming @what) if @address is not such a block. */
guint64  _gcuda_pool_core_adopt_address (GCudaPoolCore     *core,
                                       guint64              address,
                                       const char          *what,
                                       GError             **error);
/* Gives back a block allocate() returned for @size: held for reuse, or
 * given back to the driver (always, for a destroyed context). */
void     _gcuda_pool_core_release     (GCudaPoolCore       *core,
                                       guint64              address,
                                       guint64              size);
/* _gcuda_pool_core_release() as a pooled buffer's release function
 * (#GCudaPoolReleaseFunc): @core is the buffer's release data. */
void     _gcuda_pool_core_release_block (GObject           *pool,
                                       guint64              address,
                                       guint64              size,
                                       gpointer             core);
void     _gcuda_pool_core_free_held   (GCudaPoolCore       *core);
void     _gcuda_pool_core_stop_holding (GCudaPoolCore      *core);
/* FALSE, doing nothing, when the cap is @max_held_bytes already. */
gboolean _gcuda_pool_core_set_max_held_bytes (GCudaPoolCore *core,
                                       guint64              max_held_bytes);
guint64  _gcuda_pool_core_get         (GCudaPoolCore       *core,
                                       GCudaPoolCounter     counter);
/* The context, see the pools' context property. */
GCudaContext *_gcuda_pool_core_get_context (GCudaPoolCore *core);

/* The pools' properties: "context", and the counters from "held-blocks" to
 * "max-held-bytes", which fill @pspecs[0 .. GCUDA_POOL_N_COUNTERS - 1] in
 * #GCudaPoolCounter order. */
GParamSpec *_gcuda_pool_context_pspec (void);
void     _gcuda_pool_counter_pspecs   (GParamSpec         **pspecs);
/* The pools' get_property() and set_property() for what the core serves:
 * "context" (property id @context_id) and the counters (ids from
 * @counters_id, in #GCudaPoolCounter order); setting "max-held-bytes"
 * notifies @max_held_pspec. FALSE when @prop_id is none of them. */
gboolean _gcuda_pool_core_get_property (GCudaPoolCore      *core,
                                       guint                prop_id,
                                       guint                context_id,
                                       guint                counters_id,
                                       GValue              *value);
gboolean _gcuda_pool_core_set_property (GCudaPoolCore      *core,
                                       GObject             *object,
                                       guint                prop_id,
                                       guint                context_id,
                                       guint                counters_id,
                                       const GValue        *value,
                                       GParamSpec          *max_held_pspec);

/* The public methods every bin pool has that only hand over to its core
 * (the instance's `core` field), defined once here: allocate_address(),
 * free_address(), free_held(), stop_holding(), get_context(), the counter
 * getters and set_max_held_bytes(). Each pool declares them in its public
 * header and documents them in its source file (gi-docgen and the
 * introspection scanner read the comments by name). @check is the pool's
 * check of a method's instance (a GError for a wrong one); @destroyed is
 * allocate()'s message for a destroyed context, @what names the pool in
 * free_address()'s error (both N_() strings); @max_held_pspec is notified
 * by set_max_held_bytes(). */
#define GCUDA_POOL_DEFINE_CORE_METHODS(TypeName, type_name, IS_TYPE, check, destroyed, what, max_held_pspec) \
guint64 \
type_name##_allocate_address (TypeName *self, guint64 size, GError **error) \
{ \
  guint64 address = 0; \
  if (!check (self, error) || !_gcuda_pool_core_allocate_address (&self->core, size, (destroyed), &address, error)) \
    return 0; \
  return address; \
} \
gboolean \
type_name##_free_address (TypeName *self, guint64 address, GError **error) \
{ \
  return check (self, error) && _gcuda_pool_core_free_address (&self->core, address, (what), error); \
} \
void \
type_name##_free_held (TypeName *self) \
{ \
  g_return_if_fail (IS_TYPE (self)); \
  _gcuda_pool_core_free_held (&self->core); \
} \
void \
type_name##_stop_holding (TypeName *self) \
{ \
  g_return_if_fail (IS_TYPE (self)); \
  _gcuda_pool_core_stop_holding (&self->core); \
} \
GCudaContext * \
type_name##_get_context (TypeName *self) \
{ \
  g_return_val_if_fail (IS_TYPE (self), NULL); \
  return _gcuda_pool_core_get_context (&self->core); \
} \
GCUDA_POOL_DEFINE_COUNTER_GETTER (TypeName, type_name, IS_TYPE, held_blocks, GCUDA_POOL_HELD_BLOCKS) \
GCUDA_POOL_DEFINE_COUNTER_GETTER (TypeName, type_name, IS_TYPE, active_blocks, GCUDA_POOL_ACTIVE_BLOCKS) \
GCUDA_POOL_DEFINE_COUNTER_GETTER (TypeName, type_name, IS_TYPE, managed_bytes, GCUDA_POOL_MANAGED_BYTES) \
GCUDA_POOL_DEFINE_COUNTER_GETTER (TypeName, type_name, IS_TYPE, active_bytes, GCUDA_POOL_ACTIVE_BYTES) \
GCUDA_POOL_DEFINE_COUNTER_GETTER (TypeName, type_name, IS_TYPE, max_held_bytes, GCUDA_POOL_MAX_HELD_BYTES) \
void \
type_name##_set_max_held_bytes (TypeName *self, guint64 max_held_bytes) \
{ \
  g_return_if_fail (IS_TYPE (self)); \
  if (_gcuda_pool_core_set_max_held_bytes (&self->core, max_held_bytes)) \
    g_object_notify_by_pspec (G_OBJECT (self), (max_held_pspec)); \
}

#define GCUDA_POOL_DEFINE_COUNTER_GETTER(TypeName, type_name, IS_TYPE, name, counter) \
guint64 \
type_name##_get_##name (TypeName *self) \
{ \
  g_return_val_if_fail (IS_TYPE (self), 0); \
  return _gcuda_pool_core_get (&self->core, (counter)); \
}

G_END_DECLS
