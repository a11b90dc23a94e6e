/* gcuda-gtk.h: the only header users of libgcuda-gtk include
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gtk/gtk.h>
#include <gcuda.h>

#define GCUDA_GTK_INSIDE
# include "gcuda-gtk-frame-sink.h"
# include "gcuda-gtk-enum-types.h"
#undef GCUDA_GTK_INSIDE
