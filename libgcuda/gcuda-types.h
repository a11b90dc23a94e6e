/* gcuda-types.h: forward declarations of GCuda's types
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _GCudaDevice  GCudaDevice;
typedef struct _GCudaContext GCudaContext;
typedef struct _GCudaStream  GCudaStream;
typedef struct _GCudaEvent   GCudaEvent;
typedef struct _GCudaBuffer  GCudaBuffer;
typedef struct _GCudaHostBuffer GCudaHostBuffer;
typedef struct _GCudaProgram  GCudaProgram;
typedef struct _GCudaCompiler GCudaCompiler;
typedef struct _GCudaModule   GCudaModule;
typedef struct _GCudaFunction GCudaFunction;
typedef struct _GCudaKernelArgs GCudaKernelArgs;
typedef struct _GCudaJitOptions GCudaJitOptions;
typedef struct _GCudaLaunchConfig GCudaLaunchConfig;
typedef struct _GCudaLinker GCudaLinker;
typedef struct _GCudaGraph GCudaGraph;
typedef struct _GCudaGraphExec GCudaGraphExec;
/* pools */
typedef struct _GCudaStreamPool GCudaStreamPool;
typedef struct _GCudaMemoryPool GCudaMemoryPool;
typedef struct _GCudaHostMemoryPool GCudaHostMemoryPool;
/* device tools */
typedef struct _GCudaDeviceData GCudaDeviceData;
typedef struct _GCudaOccupancy GCudaOccupancy;
/* arrays and textures */
typedef struct _GCudaArrayDescriptor GCudaArrayDescriptor;
typedef struct _GCudaArray GCudaArray;
typedef struct _GCudaTextureDescriptor GCudaTextureDescriptor;
typedef struct _GCudaTexture GCudaTexture;
typedef struct _GCudaSurface GCudaSurface;
typedef struct _GCudaCopy2D GCudaCopy2D;
typedef struct _GCudaCopy3D GCudaCopy3D;
typedef struct _GCudaCopy3DPeer GCudaCopy3DPeer;

G_END_DECLS
