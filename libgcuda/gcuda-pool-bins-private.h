/* gcuda-pool-bins-private.h: the bins and counters shared by the memory pools
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* bin_number() of the largest 64-bit size, plus one. */
#define GCUDA_POOL_N_BINS 1024

/* The allocator a pool core draws on: @alloc sets *@address (never 0) or
 * @error; @release returns a block to the driver. */
typedef gboolean (*GCudaPoolAllocFunc) (gpointer   owner,
                                        guint64    size,
                                        guint64   *address,
                                        GError   **error);
typedef void     (*GCudaPoolFreeFunc)  (gpointer   owner,
                                        guint64    address);

typedef struct {
  GMutex lock;
  GArray *bins[GCUDA_POOL_N_BINS];  /* guint64 addresses; the last one is reused first */
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
} GCudaPoolCore;

typedef enum {
  GCUDA_POOL_HELD_BLOCKS,
  GCUDA_POOL_ACTIVE_BLOCKS,
  GCUDA_POOL_MANAGED_BYTES,
  GCUDA_POOL_ACTIVE_BYTES,
  GCUDA_POOL_MAX_HELD_BYTES,
} GCudaPoolCounter;

guint    _gcuda_pool_bitlog2          (guint64 value);
guint    _gcuda_pool_bin_number       (guint64 size);
guint64  _gcuda_pool_alloc_size       (guint   bin);

void     _gcuda_pool_core_init        (GCudaPoolCore       *core,
                                       GCudaPoolAllocFunc   alloc,
                                       GCudaPoolFreeFunc    free_func,
                                       gpointer             owner);
/* Frees the held blocks; no block may be active any more. */
void     _gcuda_pool_core_clear       (GCudaPoolCore       *core);
/* A block of at least @size bytes (@size ≥ 1); on out-of-memory the held
 * blocks are freed, largest first, with a retry after each. */
gboolean _gcuda_pool_core_allocate    (GCudaPoolCore       *core,
                                       guint64              size,
                                       guint64             *address,
                                       GError             **error);
/* Gives back a block allocate() returned for @size. @keep FALSE: the memory
 * is gone already (its context was destroyed), only the books change. */
void     _gcuda_pool_core_release     (GCudaPoolCore       *core,
                                       guint64              address,
                                       guint64              size,
                                       gboolean             keep);
void     _gcuda_pool_core_free_held   (GCudaPoolCore       *core);
void     _gcuda_pool_core_stop_holding (GCudaPoolCore      *core);
void     _gcuda_pool_core_set_max_held_bytes (GCudaPoolCore *core,
                                       guint64              max_held_bytes);
guint64  _gcuda_pool_core_get         (GCudaPoolCore       *core,
                                       GCudaPoolCounter     counter);

G_END_DECLS
