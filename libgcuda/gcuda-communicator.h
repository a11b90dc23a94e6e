/* gcuda-communicator.h: an NCCL communicator
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

#define GCUDA_TYPE_COMMUNICATOR (gcuda_communicator_get_type ())

/**
 * GCudaCommunicatorClass:
 * @parent_class: the parent class
 *
 * The class structure of [class@GCuda.Communicator]. The type is final: it
 * cannot be subclassed, and the class has no virtual functions.
 *
 * Since: 1.0
 */
GCUDA_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (GCudaCommunicator, gcuda_communicator, GCUDA, COMMUNICATOR, GObject)

GCUDA_AVAILABLE_IN_1_0
int                 gcuda_communicator_get_nccl_version (GError             **error);
GCUDA_AVAILABLE_IN_1_0
GBytes             *gcuda_communicator_get_unique_id    (GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean            gcuda_communicator_group_start      (GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean            gcuda_communicator_group_end        (GError             **error);

GCUDA_AVAILABLE_IN_1_0
GCudaCommunicator  *gcuda_communicator_new              (GCudaContext        *context,
                                                         int                  n_ranks,
                                                         GBytes              *unique_id,
                                                         int                  rank,
                                                         GError             **error);

GCUDA_AVAILABLE_IN_1_0
GCudaContext       *gcuda_communicator_get_context      (GCudaCommunicator   *self);
GCUDA_AVAILABLE_IN_1_0
int                 gcuda_communicator_get_rank         (GCudaCommunicator   *self);
GCUDA_AVAILABLE_IN_1_0
int                 gcuda_communicator_get_n_ranks      (GCudaCommunicator   *self);

GCUDA_AVAILABLE_IN_1_0
gboolean            gcuda_communicator_all_reduce       (GCudaCommunicator   *self,
                                                         GCudaBuffer         *send,
                                                         GCudaBuffer         *recv,
                                                         guint64              count,
                                                         GCudaNcclDataType    data_type,
                                                         GCudaReduceOp        op,
                                                         GCudaStream         *stream,
                                                         GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean            gcuda_communicator_broadcast        (GCudaCommunicator   *self,
                                                         GCudaBuffer         *send,
                                                         GCudaBuffer         *recv,
                                                         guint64              count,
                                                         GCudaNcclDataType    data_type,
                                                         int                  root,
                                                         GCudaStream         *stream,
                                                         GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean            gcuda_communicator_reduce           (GCudaCommunicator   *self,
                                                         GCudaBuffer         *send,
                                                         GCudaBuffer         *recv,
                                                         guint64              count,
                                                         GCudaNcclDataType    data_type,
                                                         GCudaReduceOp        op,
                                                         int                  root,
                                                         GCudaStream         *stream,
                                                         GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean            gcuda_communicator_all_gather       (GCudaCommunicator   *self,
                                                         GCudaBuffer         *send,
                                                         GCudaBuffer         *recv,
                                                         guint64              send_count,
                                                         GCudaNcclDataType    data_type,
                                                         GCudaStream         *stream,
                                                         GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean            gcuda_communicator_reduce_scatter   (GCudaCommunicator   *self,
                                                         GCudaBuffer         *send,
                                                         GCudaBuffer         *recv,
                                                         guint64              recv_count,
                                                         GCudaNcclDataType    data_type,
                                                         GCudaReduceOp        op,
                                                         GCudaStream         *stream,
                                                         GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean            gcuda_communicator_send             (GCudaCommunicator   *self,
                                                         GCudaBuffer         *buffer,
                                                         guint64              count,
                                                         GCudaNcclDataType    data_type,
                                                         int                  peer,
                                                         GCudaStream         *stream,
                                                         GError             **error);
GCUDA_AVAILABLE_IN_1_0
gboolean            gcuda_communicator_recv             (GCudaCommunicator   *self,
                                                         GCudaBuffer         *buffer,
                                                         guint64              count,
                                                         GCudaNcclDataType    data_type,
                                                         int                  peer,
                                                         GCudaStream         *stream,
                                                         GError             **error);

G_END_DECLS
