/* gcuda-module.h: loaded device code
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

#define GCUDA_TYPE_MODULE (gcuda_module_get_type ())

/**
 * GCudaModuleClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Module]. The type is final: it cannot be
 * subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaModule, gcuda_module, GCUDA, MODULE, GObject)

GCUDA_AVAILABLE_IN_1_0
GCudaModule   *gcuda_module_new_from_data    (GCudaContext     *context,
                                              GBytes           *image,
                                              GCudaJitOptions  *options,
                                              GError          **error);
GCUDA_AVAILABLE_IN_1_0
GCudaModule   *gcuda_module_new_from_file    (GCudaContext     *context,
                                              const char       *path,
                                              GCudaJitOptions  *options,
                                              GError          **error);
GCUDA_AVAILABLE_IN_1_0
void           gcuda_module_new_from_data_async  (GCudaContext        *context,
                                                  GBytes              *image,
                                                  GCudaJitOptions     *options,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
GCUDA_AVAILABLE_IN_1_0
GCudaModule   *gcuda_module_new_from_data_finish (GAsyncResult        *result,
                                                  GError             **error);
GCUDA_AVAILABLE_IN_1_0
GCudaModule   *gcuda_module_new_from_program (GCudaContext  *context,
                                              GCudaProgram  *program,
                                              GError       **error);

GCUDA_AVAILABLE_IN_1_0
GCudaModule   *gcuda_module_new_from_resource        (GCudaContext        *context,
                                                      const char          *path,
                                                      GCudaJitOptions     *jit_options,
                                                      GError             **error);
GCUDA_AVAILABLE_IN_1_0
void           gcuda_module_new_from_resource_async  (GCudaContext        *context,
                                                      const char          *path,
                                                      GCudaJitOptions     *jit_options,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
GCUDA_AVAILABLE_IN_1_0
GCudaModule   *gcuda_module_new_from_resource_finish (GAsyncResult        *result,
                                                      GError             **error);
GCUDA_AVAILABLE_IN_1_0
GCudaModule   *gcuda_module_new_from_directory       (GCudaContext        *context,
                                                      GFile               *directory,
                                                      GCudaJitOptions     *jit_options,
                                                      GError             **error);
GCUDA_AVAILABLE_IN_1_0
void           gcuda_module_new_from_directory_async (GCudaContext        *context,
                                                      GFile               *directory,
                                                      GCudaJitOptions     *jit_options,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
GCUDA_AVAILABLE_IN_1_0
GCudaModule   *gcuda_module_new_from_directory_finish (GAsyncResult       *result,
                                                       GError            **error);

GCUDA_AVAILABLE_IN_1_0
GCudaContext  *gcuda_module_get_context      (GCudaModule   *self);
GCUDA_AVAILABLE_IN_1_0
const char    *gcuda_module_get_info_log     (GCudaModule   *self);
GCUDA_AVAILABLE_IN_1_0
const char    *gcuda_module_get_error_log    (GCudaModule   *self);
GCUDA_AVAILABLE_IN_1_0
GCudaFunction *gcuda_module_get_function     (GCudaModule   *self,
                                              const char    *name,
                                              GError       **error);
GCUDA_AVAILABLE_IN_1_0
GCudaBuffer   *gcuda_module_get_global       (GCudaModule   *self,
                                              const char    *name,
                                              GError       **error);

GCUDA_AVAILABLE_IN_1_0
GCudaModule   *gcuda_module_new_from_source        (GCudaContext        *context,
                                               const char          *source,
                                               const char * const  *options,
                                               GError             **error);
GCUDA_AVAILABLE_IN_1_0
void           gcuda_module_new_from_source_async  (GCudaContext        *context,
                                               const char          *source,
                                               const char * const  *options,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
GCUDA_AVAILABLE_IN_1_0
GCudaModule   *gcuda_module_new_from_source_finish (GAsyncResult        *result,
                                               GError             **error);

G_END_DECLS
