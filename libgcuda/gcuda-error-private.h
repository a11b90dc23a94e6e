/* gcuda-error-private.h: driver results and bad arguments as GErrors, the
 * one private header every source file uses
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

/* Every message is translated; every file reports driver results. */
#include <inttypes.h>  /* PRIu64 & co.: xgettext understands them inside _(), not G_GUINT64_FORMAT */
#include <glib/gi18n-lib.h>

#include "gcuda.h"
#include "gcuda-loader-private.h"

G_BEGIN_DECLS

/* gi18n-lib.h's _() with the text domain bound first (once, to the install
 * prefix's locale directory): without that, installed catalogues would be
 * found only when the prefix is /usr. The format attribute keeps -Wformat
 * checking the messages that go through it. */
const char *_gcuda_gettext (const char *msgid) G_GNUC_FORMAT (1);

#undef _
#define _(String) _gcuda_gettext (String)

/* Sets a GCUDA_DRIVER_ERROR "CALL failed: NAME (description)" and returns
 * FALSE when @res is not CUDA_SUCCESS; returns TRUE otherwise. */
gboolean _gcuda_check (CUresult     res,
                       const char  *call,
                       GError     **error);

/* Success is tested inline: _gcuda_check() has a stack-protected frame
 * that hot paths (launches, pooled allocations) should not pay for. */
#define GCUDA_CHECK(call_expr, name, error) \
  (__extension__ ({ \
    CUresult gcuda_check_res_ = (call_expr); \
    G_LIKELY (gcuda_check_res_ == CUDA_SUCCESS) || _gcuda_check (gcuda_check_res_, (name), (error)); \
  }))

/* _gcuda_check() for the queries (cuStreamQuery, cuEventQuery): "not
 * ready" is FALSE, not an error. */
gboolean _gcuda_check_ready (CUresult     res,
                             const char  *call,
                             GError     **error);

/* Objects made with g_object_new() instead of a constructor (GObject.new()
 * or GCuda.X() in Python, new GCuda.X() in JavaScript) have no CUDA object
 * behind them. Every public method that needs one starts with
 *
 *   if (!GCUDA_CHECK_MADE (self->handle != NULL, error,
 *                          _("This GCudaX was made without …: use gcuda_x_new()")))
 *     return …;
 *
 * (usually through a per-class x_check()): GCUDA_ERROR_INVALID_ARGUMENT with
 * @message, which is only evaluated when @made is false, instead of a crash
 * or a critical. */
#define GCUDA_CHECK_MADE(made, error, message) \
  (G_LIKELY (made) || _gcuda_set_not_made_error ((error), (message)))

/* Sets GCUDA_ERROR_INVALID_ARGUMENT with @message; always FALSE. */
gboolean _gcuda_set_not_made_error (GError      **error,
                                    const char   *message);

/* The size of a device allocation: at least one byte, at most what a
 * size_t holds; else GCUDA_ERROR_INVALID_ARGUMENT. */
gboolean _gcuda_check_alloc_size (guint64   size,
                                  GError  **error);

/* @offset + @size within the @total bytes of @what ("the buffer"), without
 * overflow; else GCUDA_ERROR_OUT_OF_BOUNDS. */
gboolean _gcuda_check_range (guint64      offset,
                             guint64      size,
                             guint64      total,
                             const char  *what,
                             GError     **error);

/* @value for a message: as %g writes it, with all the digits it takes to
 * read back the same double (2^53 + 2 is not 9.0072e+15); @buffer holds
 * G_ASCII_DTOSTR_BUF_SIZE bytes. */
const char *_gcuda_format_number (char   *buffer,
                                  double  value);

/* @value as a memset's @bits-bit pattern: a whole number from 0 to
 * 2^@bits - 1, else GCUDA_ERROR_INVALID_ARGUMENT naming the value. */
gboolean _gcuda_check_memset_number (double    value,
                                     guint     bits,
                                     GError  **error);

/* Copies an IPC handle of @size bytes out of @bytes, or says which kind of
 * handle (@what) has which size. */
gboolean _gcuda_ipc_handle_from_bytes (GBytes      *bytes,
                                       void        *handle,
                                       gsize        size,
                                       const char  *what,
                                       GError     **error);

G_END_DECLS
