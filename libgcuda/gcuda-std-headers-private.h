/* gcuda-std-headers-private.h: small standard C/C++ headers for NVRTC
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *name;   /* as #include names it: "stdio.h", "cstdint"... */
  const char *text;
} GCudaStdHeader;

/* The built-in headers, NULL-terminated (a NULL name ends the table). */
const GCudaStdHeader *_gcuda_std_headers        (void);

/* The text of the built-in header @name, or NULL when there is none. */
const char           *_gcuda_std_header_lookup  (const char *name);

/* A lower-case hex SHA-256 of every built-in header's name and text,
 * computed once: compile cache keys cover it. */
const char           *_gcuda_std_headers_digest (void);

/* For tests: replaces the table (NULL: back to the built-in one) */
void                  _gcuda_std_headers_set_table (const GCudaStdHeader *replacement);

G_END_DECLS
