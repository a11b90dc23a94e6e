/* gcuda-compiler-private.h: what linkers need of GCudaCompiler
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda.h"

G_BEGIN_DECLS

/* The compiler's settings plus relocatable device code, as PTX. */
GCudaProgram *_gcuda_compiler_compile_relocatable (GCudaCompiler  *self,
                                                  const char     *source,
                                                  GError        **error);

G_END_DECLS
