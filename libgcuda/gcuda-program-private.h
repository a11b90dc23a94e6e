/* gcuda-program-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"

G_BEGIN_DECLS

/* @lowered: (nullable) name expression -> lowered name; a new reference is taken */
GCudaProgram *_gcuda_program_new (GBytes           *image,
                                  GCudaProgramKind  kind,
                                  const char       *log,
                                  const char       *arch,
                                  GHashTable       *lowered,
                                  gboolean          from_cache);

/* The compile cache's key of the image (nullable: not cached) */
void          _gcuda_program_set_cache_key (GCudaProgram *self,
                                            const char   *key);

/* GCUDA_ERROR_INVALID_ARGUMENT for a program made by hand (no code). */
gboolean      _gcuda_program_check (GCudaProgram  *self,
                                    GError       **error);

G_END_DECLS
