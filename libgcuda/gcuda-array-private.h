/* gcuda-array-private.h: what textures, surfaces and copies need of arrays
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

/* The size of one channel of @format, or 0 when @format is not one. */
guint    _gcuda_array_format_size  (GCudaArrayFormat   format);

/* A known format and 1, 2 or 4 channels, else GCUDA_ERROR_INVALID_ARGUMENT. */
gboolean _gcuda_array_format_check (GCudaArrayFormat   format,
                                    guint              num_channels,
                                    GError           **error);

/* Usable: made by gcuda_array_new(), not freed, context not destroyed. */
gboolean _gcuda_array_check        (GCudaArray        *self,
                                    GError           **error);

CUarray  _gcuda_array_get_handle   (GCudaArray        *self);

/* The array of a mapped graphics resource (gcuda-graphics-resource.c):
 * never destroyed by GCuda; gcuda_array_free() retires it at the unmap,
 * after which it is GCUDA_ERROR_FREED with a message that says so. */
GCudaArray *_gcuda_array_new_graphics (GCudaContext               *context,
                                       CUarray                     handle,
                                       const GCudaArrayDescriptor *descriptor);

/* The extent the driver copies: bytes per row, rows (at least 1), slices
 * (at least 1). */
void     _gcuda_array_get_extent   (GCudaArray        *self,
                                    guint64           *row_bytes,
                                    guint64           *rows,
                                    guint64           *slices);

G_END_DECLS
