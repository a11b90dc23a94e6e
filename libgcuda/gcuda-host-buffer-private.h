/* gcuda-host-buffer-private.h: pooled host buffers, and the check users of
 * host memory make
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda-buffer-private.h"  /* GCudaPoolReleaseFunc */

G_BEGIN_DECLS

GCudaHostBuffer *_gcuda_host_buffer_new_pooled (GCudaContext          *context,
                                                void                  *ptr,
                                                guint64                size,
                                                guint                  flags,
                                                GObject               *pool,
                                                GCudaPoolReleaseFunc   release,
                                                gpointer               data);

/* Usable host memory: a host buffer from a constructor, not freed, and
 * (page-locked) not gone with a destroyed context. */
gboolean _gcuda_host_buffer_check (GCudaHostBuffer  *self,
                                   GError          **error);

G_END_DECLS
