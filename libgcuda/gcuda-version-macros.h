/* gcuda-version-macros.h: symbol visibility and availability annotations
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(GCUDA_INSIDE) && !defined(GCUDA_COMPILATION)
# error "Only <gcuda.h> can be included directly."
#endif

#include <glib.h>

#include "gcuda-version.h"

#ifndef _GCUDA_EXTERN
# define _GCUDA_EXTERN __attribute__((visibility("default"))) extern
#endif

#define GCUDA_VERSION_1_0 (G_ENCODE_VERSION (1, 0))

#define GCUDA_VERSION_CUR_STABLE (G_ENCODE_VERSION (GCUDA_MAJOR_VERSION, GCUDA_MINOR_VERSION))

#ifndef GCUDA_VERSION_MIN_REQUIRED
# define GCUDA_VERSION_MIN_REQUIRED (GCUDA_VERSION_CUR_STABLE)
#endif

#ifndef GCUDA_VERSION_MAX_ALLOWED
# define GCUDA_VERSION_MAX_ALLOWED (GCUDA_VERSION_CUR_STABLE)
#endif

#define GCUDA_AVAILABLE_IN_ALL _GCUDA_EXTERN

#if GCUDA_VERSION_MAX_ALLOWED < GCUDA_VERSION_1_0
# define GCUDA_AVAILABLE_IN_1_0 G_UNAVAILABLE (1, 0) _GCUDA_EXTERN
#else
# define GCUDA_AVAILABLE_IN_1_0 _GCUDA_EXTERN
#endif
