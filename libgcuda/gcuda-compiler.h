/* gcuda-compiler.h: NVRTC, PyCUDA's pycuda.compiler
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <gio/gio.h>

#include "gcuda-types.h"
#include "gcuda-version-macros.h"
#include "gcuda-enums.h"

G_BEGIN_DECLS

#define GCUDA_TYPE_COMPILER (gcuda_compiler_get_type ())

/**
 * GCudaCompilerClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Compiler]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaCompiler, gcuda_compiler, GCUDA, COMPILER, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaCompiler    *gcuda_compiler_new                 (GCudaContext         *context);

GCUDA_AVAILABLE_IN_1_0
void              gcuda_compiler_set_options         (GCudaCompiler        *self,
                                                      const char * const   *options);
GCUDA_AVAILABLE_IN_1_0
const char * const *gcuda_compiler_get_options       (GCudaCompiler        *self);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_compiler_set_include_dirs    (GCudaCompiler        *self,
                                                      const char * const   *include_dirs);
GCUDA_AVAILABLE_IN_1_0
const char * const *gcuda_compiler_get_include_dirs  (GCudaCompiler        *self);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_compiler_set_arch            (GCudaCompiler        *self,
                                                      const char           *arch);
GCUDA_AVAILABLE_IN_1_0
const char       *gcuda_compiler_get_arch            (GCudaCompiler        *self);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_compiler_set_code            (GCudaCompiler        *self,
                                                      const char           *code);
GCUDA_AVAILABLE_IN_1_0
const char       *gcuda_compiler_get_code            (GCudaCompiler        *self);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_compiler_set_no_extern_c     (GCudaCompiler        *self,
                                                      gboolean              no_extern_c);
GCUDA_AVAILABLE_IN_1_0
gboolean          gcuda_compiler_get_no_extern_c     (GCudaCompiler        *self);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_compiler_set_keep            (GCudaCompiler        *self,
                                                      const char           *directory);
GCUDA_AVAILABLE_IN_1_0
const char       *gcuda_compiler_get_keep            (GCudaCompiler        *self);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_compiler_set_cache_dir       (GCudaCompiler        *self,
                                                      const char           *directory);
GCUDA_AVAILABLE_IN_1_0
const char       *gcuda_compiler_get_cache_dir       (GCudaCompiler        *self);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_compiler_set_target          (GCudaCompiler        *self,
                                                      GCudaProgramKind      target);
GCUDA_AVAILABLE_IN_1_0
GCudaProgramKind  gcuda_compiler_get_target          (GCudaCompiler        *self);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_compiler_add_header          (GCudaCompiler        *self,
                                                      const char           *name,
                                                      const char           *text);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_compiler_add_name_expression (GCudaCompiler        *self,
                                                      const char           *name_expression);
GCUDA_AVAILABLE_IN_1_0
char             *gcuda_compiler_get_last_log        (GCudaCompiler        *self);

GCUDA_AVAILABLE_IN_1_0
GCudaProgram     *gcuda_compiler_compile             (GCudaCompiler        *self,
                                                      const char           *source,
                                                      GError              **error);
GCUDA_AVAILABLE_IN_1_0
void              gcuda_compiler_compile_async       (GCudaCompiler        *self,
                                                      const char           *source,
                                                      GCancellable         *cancellable,
                                                      GAsyncReadyCallback   callback,
                                                      gpointer              user_data);
GCUDA_AVAILABLE_IN_1_0
GCudaProgram     *gcuda_compiler_compile_finish      (GCudaCompiler        *self,
                                                      GAsyncResult         *result,
                                                      GError              **error);

GCUDA_AVAILABLE_IN_1_0
GCudaContext     *gcuda_compiler_get_context          (GCudaCompiler        *self);

G_END_DECLS
