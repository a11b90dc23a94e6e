/* gcuda-linker.h: links device code, PyCUDA's DynamicModule
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

#define GCUDA_TYPE_LINKER (gcuda_linker_get_type ())

/**
 * GCudaLinkerClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Linker]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaLinker, gcuda_linker, GCUDA, LINKER, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaLinker  *gcuda_linker_new           (GCudaContext       *context,
                                          GCudaJitOptions    *options,
                                          GError            **error);
GCUDA_AVAILABLE_IN_1_0
GCudaContext *gcuda_linker_get_context   (GCudaLinker        *self);
GCUDA_AVAILABLE_IN_1_0
gboolean      gcuda_linker_add_data      (GCudaLinker        *self,
                                          GCudaLinkInputType  type,
                                          GBytes             *data,
                                          const char         *name,
                                          GError            **error);
GCUDA_AVAILABLE_IN_1_0
gboolean      gcuda_linker_add_file      (GCudaLinker        *self,
                                          GCudaLinkInputType  type,
                                          const char         *path,
                                          GError            **error);
GCUDA_AVAILABLE_IN_1_0
gboolean      gcuda_linker_add_program   (GCudaLinker        *self,
                                          GCudaProgram       *program,
                                          GError            **error);
GCUDA_AVAILABLE_IN_1_0
gboolean      gcuda_linker_add_source    (GCudaLinker        *self,
                                          GCudaCompiler      *compiler,
                                          const char         *source,
                                          GError            **error);
GCUDA_AVAILABLE_IN_1_0
gboolean      gcuda_linker_add_library   (GCudaLinker        *self,
                                          const char         *name,
                                          GError            **error);
GCUDA_AVAILABLE_IN_1_0
GCudaModule  *gcuda_linker_complete      (GCudaLinker        *self,
                                          GError            **error);
GCUDA_AVAILABLE_IN_1_0
const char   *gcuda_linker_get_info_log  (GCudaLinker        *self);
GCUDA_AVAILABLE_IN_1_0
const char   *gcuda_linker_get_error_log (GCudaLinker        *self);

G_END_DECLS
