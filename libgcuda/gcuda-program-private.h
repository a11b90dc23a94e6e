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

G_END_DECLS
