/* gcuda-nvrtc-private.h: NVRTC, opened at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

#include "gcuda-nvrtc-abi-private.h"

G_BEGIN_DECLS

#define GCUDA_NVRTC_FUNCTIONS(X) \
  X (nvrtcVersion) \
  X (nvrtcGetErrorString) \
  X (nvrtcCreateProgram) \
  X (nvrtcDestroyProgram) \
  X (nvrtcCompileProgram) \
  X (nvrtcGetPTXSize) \
  X (nvrtcGetPTX) \
  X (nvrtcGetCUBINSize) \
  X (nvrtcGetCUBIN) \
  X (nvrtcGetProgramLogSize) \
  X (nvrtcGetProgramLog) \
  X (nvrtcAddNameExpression) \
  X (nvrtcGetLoweredName) \
  X (nvrtcGetNumSupportedArchs) \
  X (nvrtcGetSupportedArchs)

typedef struct {
#define GCUDA_NVRTC_DECLARE(name) __typeof__ (name) *fn_##name;
  GCUDA_NVRTC_FUNCTIONS (GCUDA_NVRTC_DECLARE)
#undef GCUDA_NVRTC_DECLARE
  int major;
  int minor;
  char *path;  /* the file that was loaded, as far as it can be told */
} GCudaNvrtc;

/* NVRTC, loaded once (thread-safe), or NULL with GCUDA_ERROR_NVRTC_NOT_FOUND. */
const GCudaNvrtc *_gcuda_nvrtc_get (GError **error);

/* TRUE once NVRTC has been loaded in this process (for tests: a cache hit
 * must not load it). */
gboolean _gcuda_nvrtc_is_loaded (void);

/* The candidate library names, in the order they are tried. */
const char * const *_gcuda_nvrtc_candidates (void);

/* The existing site-packages directories searched for NVIDIA's NVRTC wheels. */
const char * const *_gcuda_nvrtc_wheel_site_dirs (void);

G_END_DECLS
