/* gcuda-pool-bins-private.c: the bins and counters shared by the memory pools
 *
 * PyCUDA's scheme (mempool.hpp): a bin is the size's exponent followed by
 * the 4 bits after its leading 1; a bin's blocks have the largest size the
 * bin holds, so less than 1/16 of a block is wasted.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-context-private.h"
#include "gcuda-pool-bins-private.h"

#define MANTISSA_BITS 4
#define MANTISSA_MASK ((1u << MANTISSA_BITS) - 1)

guint
_gcuda_pool_bitlog2 (guint64 value)
{
  return value == 0 ? 0 : 63 - (guint) __builtin_clzll (value);
}

guint
_gcuda_pool_bin_number (guint64 size)
{
  guint l = _gcuda_pool_bitlog2 (size);
  guint64 shifted = l >= MANTISSA_BITS ? size >> (l - MANTISSA_BITS) : size << (MANTISSA_BITS - l);

  return (l << MANTISSA_BITS) | (guint) (shifted & MANTISSA_MASK);
}

guint64
_gcuda_pool_alloc_size (guint bin)
{
  guint exponent = bin >> MANTISSA_BITS;
  guint64 head = (1u << MANTISSA_BITS) | (bin & MANTISSA_MASK);

  if (bin >= GCUDA_POOL_N_BINS)
    return 0;
  if (exponent < MANTISSA_BITS)
    return head >> (MANTISSA_BITS - exponent);
  /* The bin's largest size: the head followed by ones. */
  return (head << (exponent - MANTISSA_BITS)) | ((G_GUINT64_CONSTANT (1) << (exponent - MANTISSA_BITS)) - 1);
}

/* ------------------------------------------------------------ address table */

/* Fibonacci hashing: the product's high bits spread aligned addresses. */
static inline guint
address_home (const GCudaAddressTable *table,
              guint64                  address)
{
  return (guint) ((address * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32) & table->mask;
}

/* Moves the entries into @capacity slots (a power of two, more than the
 * entries). */
static void
address_table_resize (GCudaAddressTable *table,
                      guint              capacity)
{
  guint64 *old = table->slots;
  guint old_capacity = old != NULL ? table->mask + 1 : 0;

  table->slots = g_new0 (guint64, 2 * (gsize) capacity);
  table->mask = capacity - 1;
  for (guint i = 0; i < old_capacity; i++)
    if (old[2 * i] != 0)
      {
        guint j = address_home (table, old[2 * i]);

        while (table->slots[2 * j] != 0)
          j = (j + 1) & table->mask;
        table->slots[2 * j] = old[2 * i];
        table->slots[2 * j + 1] = old[2 * i + 1];
      }
  g_free (old);
}

void
_gcuda_address_table_insert (GCudaAddressTable *table,
                             guint64            address,
                             guint64            size)
{
  guint i;

  /* at most three quarters full */
  if (table->slots == NULL)
    address_table_resize (table, 16);
  else if ((guint64) (table->len + 1) * 4 > (guint64) (table->mask + 1) * 3)
    address_table_resize (table, (table->mask + 1) * 2);
  i = address_home (table, address);
  while (table->slots[2 * i] != 0)
    i = (i + 1) & table->mask;
  table->slots[2 * i] = address;
  table->slots[2 * i + 1] = size;
  table->len++;
}

gboolean
_gcuda_address_table_steal (GCudaAddressTable *table,
                            guint64            address,
                            guint64           *size)
{
  guint hole, j;

  if (table->slots == NULL || address == 0)
    return FALSE;
  hole = address_home (table, address);
  while (table->slots[2 * hole] != address)
    {
      if (table->slots[2 * hole] == 0)
        return FALSE;
      hole = (hole + 1) & table->mask;
    }
  if (size != NULL)
    *size = table->slots[2 * hole + 1];
  table->len--;
  /* Backward shift: an entry after the hole whose home is not within
   * (hole, j] moves into it, so every probe sequence stays unbroken. */
  for (j = (hole + 1) & table->mask; table->slots[2 * j] != 0; j = (j + 1) & table->mask)
    {
      guint home = address_home (table, table->slots[2 * j]);
      gboolean reachable = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);

      if (!reachable)
        {
          table->slots[2 * hole] = table->slots[2 * j];
          table->slots[2 * hole + 1] = table->slots[2 * j + 1];
          hole = j;
        }
    }
  table->slots[2 * hole] = 0;
  table->slots[2 * hole + 1] = 0;
  /* a table that held many addresses once gives the memory back */
  if (table->mask >= 64 && table->len < (table->mask + 1) / 8)
    address_table_resize (table, (table->mask + 1) / 2);
  return TRUE;
}

void
_gcuda_address_table_clear (GCudaAddressTable  *table,
                            void              (*func) (guint64   address,
                                                       guint64   size,
                                                       gpointer  data),
                            gpointer            data)
{
  guint64 *slots = g_steal_pointer (&table->slots);
  guint capacity = slots != NULL ? table->mask + 1 : 0;

  table->mask = 0;
  table->len = 0;
  for (guint i = 0; func != NULL && i < capacity; i++)
    if (slots[2 * i] != 0)
      func (slots[2 * i], slots[2 * i + 1], data);
  g_free (slots);
}

/* ------------------------------------------------------------ bins */

static inline void
bin_push (GCudaPoolBin *bin,
          guint64       address)
{
  if (bin->len == bin->capacity)
    {
      bin->capacity = MAX (4, bin->capacity * 2);
      bin->blocks = g_renew (guint64, bin->blocks, bin->capacity);
    }
  bin->blocks[bin->len++] = address;
}

/* ------------------------------------------------------------ core */

void
_gcuda_pool_core_init (GCudaPoolCore       *core,
                       GCudaPoolAllocFunc   alloc,
                       GCudaPoolFreeFunc    free_func,
                       gpointer             owner)
{
  memset (core, 0, sizeof *core);
  g_mutex_init (&core->lock);
  core->max_held_bytes = G_MAXUINT64;
  core->alloc = alloc;
  core->free = free_func;
  core->owner = owner;
  g_mutex_init (&core->context_lock);
}

static void
release_by_address (guint64  address,
                    guint64  size,
                    gpointer core)
{
  _gcuda_pool_core_release (core, address, size);
}

void
_gcuda_pool_core_clear (GCudaPoolCore *core)
{
  /* Blocks still out by address: the pool is their only owner. */
  _gcuda_address_table_clear (&core->by_address, release_by_address, core);
  _gcuda_pool_core_free_held (core);
  for (guint i = 0; i < GCUDA_POOL_N_BINS; i++)
    g_clear_pointer (&core->bins[i].blocks, g_free);
  g_mutex_clear (&core->lock);
  g_clear_object (&core->context);
  g_mutex_clear (&core->context_lock);
}

/* A new block from the driver, in the pool's context. */
static gboolean
driver_alloc (GCudaPoolCore  *core,
              guint64         size,
              guint64        *address,
              GError        **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;

  if (size > G_MAXSIZE)
    {
      g_set_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_OUT_OF_MEMORY,
                   _("%" PRIu64 " bytes is more than this system can address"), size);
      return FALSE;
    }
  return _gcuda_context_enter (core->context, &scope, error) &&
         core->alloc (core->owner, size, address, error);
}

/* Returns a block to the driver, in the pool's context. */
static void
driver_free (GCudaPoolCore *core,
             guint64        address)
{
  GCUDA_CONTEXT_RELEASE (core->context, core->free (core->owner, address));
}

/* With the lock held: books a block of @size bytes as active, and as
 * handed out by address if @by_address. */
static void
mark_active (GCudaPoolCore *core,
             guint64        address,
             guint64        size,
             gboolean       by_address)
{
  core->active_blocks++;
  core->active_bytes += size;
  if (by_address)
    _gcuda_address_table_insert (&core->by_address, address, size);
}

/* With the lock held: takes the newest block of @bin for a caller of @size
 * bytes, or returns FALSE. */
static gboolean
pop_for_use (GCudaPoolCore *core,
             guint          bin,
             guint64        size,
             gboolean       by_address,
             guint64       *address)
{
  GCudaPoolBin *blocks = &core->bins[bin];

  if (blocks->len == 0)
    return FALSE;
  *address = blocks->blocks[--blocks->len];
  core->held_blocks--;
  core->held_bytes -= _gcuda_pool_alloc_size (bin);
  mark_active (core, *address, size, by_address);
  return TRUE;
}

/* With the lock held: removes the newest held block of the largest bin
 * from the pool's books, for the caller to free. */
static gboolean
pop_largest (GCudaPoolCore *core,
             guint64       *address)
{
  for (guint i = GCUDA_POOL_N_BINS; i-- > 0;)
    {
      GCudaPoolBin *blocks = &core->bins[i];

      if (blocks->len > 0)
        {
          guint64 bytes = _gcuda_pool_alloc_size (i);

          *address = blocks->blocks[--blocks->len];
          core->held_blocks--;
          core->held_bytes -= bytes;
          core->managed_bytes -= bytes;
          return TRUE;
        }
    }
  return FALSE;
}

static gboolean
allocate_block (GCudaPoolCore  *core,
                guint64         size,
                gboolean        by_address,
                guint64        *address,
                GError        **error)
{
  guint bin = _gcuda_pool_bin_number (size);
  guint64 alloc_size = _gcuda_pool_alloc_size (bin);
  gboolean freed_some = FALSE;

  g_mutex_lock (&core->lock);
  if (pop_for_use (core, bin, size, by_address, address))
    {
      g_mutex_unlock (&core->lock);
      return TRUE;
    }
  g_mutex_unlock (&core->lock);

  /* The driver is called without the lock: other threads keep going. */
  for (;;)
    {
      g_autoptr(GError) local_error = NULL;
      guint64 victim = 0;

      if (driver_alloc (core, alloc_size, address, &local_error))
        {
          g_mutex_lock (&core->lock);
          core->managed_bytes += alloc_size;
          mark_active (core, *address, size, by_address);
          g_mutex_unlock (&core->lock);
          return TRUE;
        }
      if (!g_error_matches (local_error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_OUT_OF_MEMORY))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }

      g_mutex_lock (&core->lock);
      /* Another thread may have given back a block of this bin meanwhile. */
      if (pop_for_use (core, bin, size, by_address, address))
        {
          g_mutex_unlock (&core->lock);
          return TRUE;
        }
      if (!pop_largest (core, &victim))
        {
          g_mutex_unlock (&core->lock);
          g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                      freed_some ? _("Out of memory for a pooled block of %" PRIu64
                                                     " bytes, even after freeing the blocks the pool held: ")
                                                 : _("Out of memory for a pooled block of %" PRIu64
                                                     " bytes (the pool held no blocks to free): "),
                                      alloc_size);
          return FALSE;
        }
      g_mutex_unlock (&core->lock);
      driver_free (core, victim);
      freed_some = TRUE;
    }
}

static GCudaContext *
core_allocate (GCudaPoolCore  *core,
               guint64         size,
               gboolean        by_address,
               const char     *destroyed_message,
               guint64        *address,
               GError        **error)
{
  /* Set once, never changed: only the first allocation needs the lock. */
  GCudaContext *context = g_atomic_pointer_get (&core->context);

  if (size == 0)
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT, _("Cannot allocate 0 bytes"));
      return NULL;
    }
  if (G_UNLIKELY (context == NULL))
    {
      g_mutex_lock (&core->context_lock);
      if (core->context == NULL)
        g_atomic_pointer_set (&core->context, _gcuda_context_resolve (NULL, error));
      context = core->context;
      g_mutex_unlock (&core->context_lock);
      if (context == NULL)
        return NULL;
    }
  if (_gcuda_context_is_destroyed_internal (context))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED, _(destroyed_message));
      return NULL;
    }
  if (!allocate_block (core, size, by_address, address, error))
    return NULL;
  return context;
}

GCudaContext *
_gcuda_pool_core_allocate (GCudaPoolCore  *core,
                           guint64         size,
                           const char     *destroyed_message,
                           guint64        *address,
                           GError        **error)
{
  return core_allocate (core, size, FALSE, destroyed_message, address, error);
}

gboolean
_gcuda_pool_core_allocate_address (GCudaPoolCore  *core,
                                   guint64         size,
                                   const char     *destroyed_message,
                                   guint64        *address,
                                   GError        **error)
{
  return core_allocate (core, size, TRUE, destroyed_message, address, error) != NULL;
}

/* Frees the held blocks (largest first) until at most @limit bytes are held. */
static void
trim (GCudaPoolCore *core,
      guint64        limit)
{
  g_autoptr(GArray) victims = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 victim;

  g_mutex_lock (&core->lock);
  while (core->held_bytes > limit && pop_largest (core, &victim))
    g_array_append_val (victims, victim);
  g_mutex_unlock (&core->lock);
  for (guint i = 0; i < victims->len; i++)
    driver_free (core, g_array_index (victims, guint64, i));
}

/* With the lock held: books the block at @address of @size bytes as given
 * back, held if the pool keeps it (never for a destroyed context: it cannot
 * be handed out again); returns TRUE if the caller must free it. */
static gboolean
release_locked (GCudaPoolCore *core,
                guint64        address,
                guint64        size,
                gboolean       keep)
{
  guint bin = _gcuda_pool_bin_number (size);
  guint64 alloc_size = _gcuda_pool_alloc_size (bin);

  core->active_blocks--;
  core->active_bytes -= size;
  if (keep && !core->stop_holding && core->held_bytes <= core->max_held_bytes &&
      alloc_size <= core->max_held_bytes - core->held_bytes)
    {
      bin_push (&core->bins[bin], address);
      core->held_blocks++;
      core->held_bytes += alloc_size;
      return FALSE;
    }
  core->managed_bytes -= alloc_size;
  /* driver_free() skips it if the driver's context took it already */
  return TRUE;
}

void
_gcuda_pool_core_release (GCudaPoolCore *core,
                          guint64        address,
                          guint64        size)
{
  /* After gcuda_context_destroy() the block is not kept (the pool cannot
   * hand it out again): it goes back to the driver. */
  gboolean keep = !_gcuda_context_is_destroyed_internal (core->context);
  gboolean to_driver;

  g_mutex_lock (&core->lock);
  to_driver = release_locked (core, address, size, keep);
  g_mutex_unlock (&core->lock);
  if (to_driver)
    driver_free (core, address);
}

void
_gcuda_pool_core_release_block (GObject  *pool,
                                guint64   address,
                                guint64   size,
                                gpointer  core)
{
  _gcuda_pool_core_release (core, address, size);
}

static void
set_not_by_address_error (GError     **error,
                          guint64      address,
                          const char  *what)
{
  /* Freeing twice lands here too: the first free forgot the block. */
  g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
               _("0x%" PRIx64 " is not a block this %s handed out by address, or it was given back already"),
               address, _(what));
}

guint64
_gcuda_pool_core_adopt_address (GCudaPoolCore  *core,
                                guint64         address,
                                const char     *what,
                                GError        **error)
{
  guint64 size = 0;
  gboolean found;

  g_mutex_lock (&core->lock);
  found = _gcuda_address_table_steal (&core->by_address, address, &size);
  g_mutex_unlock (&core->lock);
  if (!found)
    {
      set_not_by_address_error (error, address, what);
      return 0;
    }
  return size;
}

gboolean
_gcuda_pool_core_free_address (GCudaPoolCore  *core,
                               guint64         address,
                               const char     *what,
                               GError        **error)
{
  GCudaContext *context = g_atomic_pointer_get (&core->context);
  gboolean keep = context != NULL && !_gcuda_context_is_destroyed_internal (context);
  gboolean found, to_driver = FALSE;
  guint64 size = 0;

  g_mutex_lock (&core->lock);
  found = _gcuda_address_table_steal (&core->by_address, address, &size);
  if (found)
    to_driver = release_locked (core, address, size, keep);
  g_mutex_unlock (&core->lock);
  if (!found)
    {
      set_not_by_address_error (error, address, what);
      return FALSE;
    }
  if (to_driver)
    driver_free (core, address);
  return TRUE;
}

void
_gcuda_pool_core_free_held (GCudaPoolCore *core)
{
  trim (core, 0);
}

void
_gcuda_pool_core_stop_holding (GCudaPoolCore *core)
{
  g_mutex_lock (&core->lock);
  core->stop_holding = TRUE;
  g_mutex_unlock (&core->lock);
  trim (core, 0);
}

gboolean
_gcuda_pool_core_set_max_held_bytes (GCudaPoolCore *core,
                                     guint64        max_held_bytes)
{
  g_mutex_lock (&core->lock);
  if (core->max_held_bytes == max_held_bytes)
    {
      g_mutex_unlock (&core->lock);
      return FALSE;
    }
  core->max_held_bytes = max_held_bytes;
  g_mutex_unlock (&core->lock);
  trim (core, max_held_bytes);
  return TRUE;
}

guint64
_gcuda_pool_core_get (GCudaPoolCore    *core,
                      GCudaPoolCounter  counter)
{
  guint64 value = 0;

  g_mutex_lock (&core->lock);
  switch (counter)
    {
    case GCUDA_POOL_HELD_BLOCKS:
      value = core->held_blocks;
      break;
    case GCUDA_POOL_ACTIVE_BLOCKS:
      value = core->active_blocks;
      break;
    case GCUDA_POOL_MANAGED_BYTES:
      value = core->managed_bytes;
      break;
    case GCUDA_POOL_ACTIVE_BYTES:
      value = core->active_bytes;
      break;
    case GCUDA_POOL_MAX_HELD_BYTES:
      value = core->max_held_bytes;
      break;
    case GCUDA_POOL_N_COUNTERS:
    default:
      break;  /* not a counter: the callers pass property ids mapped to counters */
    }
  g_mutex_unlock (&core->lock);
  return value;
}

GCudaContext *
_gcuda_pool_core_get_context (GCudaPoolCore *core)
{
  GCudaContext *context;

  g_mutex_lock (&core->context_lock);
  context = core->context;
  g_mutex_unlock (&core->context_lock);
  return context;
}

GParamSpec *
_gcuda_pool_context_pspec (void)
{
  return g_param_spec_object ("context", NULL, NULL, GCUDA_TYPE_CONTEXT,
                              G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
}

void
_gcuda_pool_counter_pspecs (GParamSpec **pspecs)
{
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  pspecs[GCUDA_POOL_HELD_BLOCKS] = g_param_spec_uint64 ("held-blocks", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  pspecs[GCUDA_POOL_ACTIVE_BLOCKS] = g_param_spec_uint64 ("active-blocks", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  pspecs[GCUDA_POOL_MANAGED_BYTES] = g_param_spec_uint64 ("managed-bytes", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  pspecs[GCUDA_POOL_ACTIVE_BYTES] = g_param_spec_uint64 ("active-bytes", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  pspecs[GCUDA_POOL_MAX_HELD_BYTES] =
    g_param_spec_uint64 ("max-held-bytes", NULL, NULL, 0, G_MAXUINT64, G_MAXUINT64,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
}

gboolean
_gcuda_pool_core_get_property (GCudaPoolCore *core,
                               guint          prop_id,
                               guint          context_id,
                               guint          counters_id,
                               GValue        *value)
{
  if (prop_id == context_id)
    g_value_set_object (value, _gcuda_pool_core_get_context (core));
  else if (prop_id >= counters_id && prop_id - counters_id < GCUDA_POOL_N_COUNTERS)
    g_value_set_uint64 (value, _gcuda_pool_core_get (core, (GCudaPoolCounter) (prop_id - counters_id)));
  else
    return FALSE;
  return TRUE;
}

gboolean
_gcuda_pool_core_set_property (GCudaPoolCore *core,
                               GObject       *object,
                               guint          prop_id,
                               guint          context_id,
                               guint          counters_id,
                               const GValue  *value,
                               GParamSpec    *max_held_pspec)
{
  if (prop_id == context_id)
    core->context = g_value_dup_object (value);  /* construct-only */
  else if (prop_id == counters_id + GCUDA_POOL_MAX_HELD_BYTES)
    {
      if (_gcuda_pool_core_set_max_held_bytes (core, g_value_get_uint64 (value)))
        g_object_notify_by_pspec (object, max_held_pspec);
    }
  else
    return FALSE;
  return TRUE;
}
