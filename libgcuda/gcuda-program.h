/* gcuda-program.h: the result of a compile
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
#include "gcuda-enums.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_PROGRAM (gcuda_program_get_type ())

/**
 * GCudaProgramClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Program]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaProgram, gcuda_program, GCUDA, PROGRAM, GObject)

GCUDA_AVAILABLE_IN_1_0
GBytes           *gcuda_program_get_image        (GCudaProgram *self);
GCUDA_AVAILABLE_IN_1_0
GCudaProgramKind  gcuda_program_get_kind         (GCudaProgram *self);
GCUDA_AVAILABLE_IN_1_0
const char       *gcuda_program_get_log          (GCudaProgram *self);
GCUDA_AVAILABLE_IN_1_0
const char       *gcuda_program_get_arch         (GCudaProgram *self);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_program_is_from_cache    (GCudaProgram *self);
GCUDA_AVAILABLE_IN_1_0
const char       *gcuda_program_get_cache_key    (GCudaProgram *self);
GCUDA_AVAILABLE_IN_1_0
const char       *gcuda_program_get_lowered_name (GCudaProgram *self,
                                                  const char   *name_expression);

G_END_DECLS
