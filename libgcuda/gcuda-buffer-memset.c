/* gcuda-buffer-memset.c: GCudaBuffer's memsets (1D and 2D, 8/16/32-bit),
 * and their twins that take the value as a double for the bindings.
 * The rest of the class is in gcuda-buffer.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-buffer-private.h"
#include "gcuda-context-private.h"
#include "gcuda-stream-private.h"

/* memset of @count elements of @elem_size bytes, or of @height rows of
 * @width elements @pitch bytes apart (@pitch 0: 1D). */
static gboolean
memset_elements (GCudaBuffer  *self,
                 guint64       offset,
                 guint64       pitch,
                 guint         elem_size,
                 guint32       value,
                 guint64       width,
                 guint64       height,
                 GCudaStream  *stream,
                 GError      **error)
{
  g_auto(GCudaContextScope) scope = GCUDA_CONTEXT_SCOPE_INIT;
  const GCudaDriver *drv;
  CUdeviceptr p;
  CUstream h;
  guint64 extent;
  CUresult res;

  if (!_gcuda_buffer_check (self, error))
    return FALSE;
  /* The address the driver gets, not just @offset: a view may start
   * anywhere in its parent. */
  if ((gcuda_buffer_get_address (self) + offset) % elem_size != 0 || (pitch != 0 && pitch % elem_size != 0))
    {
      g_autofree char *address = g_strdup_printf ("0x%" PRIx64 "", (guint64) (gcuda_buffer_get_address (self) + offset));

      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("The address (%s) and pitch of a %u-byte memset must be multiples of %u"),
                   address, elem_size, elem_size);
      return FALSE;
    }
  if (width > G_MAXUINT64 / elem_size)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_OUT_OF_BOUNDS,
                   _("%" PRIu64 " elements are more than any buffer holds"), width);
      return FALSE;
    }
  if (pitch == 0)
    extent = width * elem_size;
  else
    {
      if (width * elem_size > pitch)
        {
          g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                       _("A row of %" PRIu64 " bytes does not fit the pitch of %" PRIu64),
                       width * elem_size, pitch);
          return FALSE;
        }
      if (height == 0 || width == 0)
        extent = 0;
      else if (height - 1 > (G_MAXUINT64 - width * elem_size) / pitch)
        extent = G_MAXUINT64;
      else
        extent = (height - 1) * pitch + width * elem_size;
    }
  if (!_gcuda_buffer_check_range (self, offset, extent, error))
    return FALSE;
  if (extent == 0)
    return TRUE;
  if (!_gcuda_buffer_check_stream (self, stream, error) ||
      !_gcuda_context_enter (gcuda_buffer_get_context (self), &scope, error))
    return FALSE;

  drv = GCUDA_DRV;
  p = gcuda_buffer_get_address (self) + offset;
  h = _gcuda_stream_get_handle (stream);
  if (pitch == 0)
    switch (elem_size)
      {
      case 1:
        res = stream ? drv->fn_cuMemsetD8Async (p, (guint8) value, width, h) : drv->fn_cuMemsetD8 (p, (guint8) value, width);
        break;
      case 2:
        res = stream ? drv->fn_cuMemsetD16Async (p, (guint16) value, width, h) : drv->fn_cuMemsetD16 (p, (guint16) value, width);
        break;
      default:
        res = stream ? drv->fn_cuMemsetD32Async (p, value, width, h) : drv->fn_cuMemsetD32 (p, value, width);
        break;
      }
  else
    switch (elem_size)
      {
      case 1:
        res = stream ? drv->fn_cuMemsetD2D8Async (p, pitch, (guint8) value, width, height, h)
                     : drv->fn_cuMemsetD2D8 (p, pitch, (guint8) value, width, height);
        break;
      case 2:
        res = stream ? drv->fn_cuMemsetD2D16Async (p, pitch, (guint16) value, width, height, h)
                     : drv->fn_cuMemsetD2D16 (p, pitch, (guint16) value, width, height);
        break;
      default:
        res = stream ? drv->fn_cuMemsetD2D32Async (p, pitch, value, width, height, h)
                     : drv->fn_cuMemsetD2D32 (p, pitch, value, width, height);
        break;
      }
  if (!_gcuda_check (res, pitch ? "cuMemsetD2D" : "cuMemsetD", error))
    return FALSE;
  return stream != NULL || _gcuda_legacy_stream_synchronize (error);
}

/**
 * gcuda_buffer_memset_d8:
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte to set
 * @value: the value
 * @count: the number of bytes
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets @count bytes to @value (PyCUDA's `memset_d8()`, or
 * `memset_d8_async()` with a stream).
 * Bindings call [method@GCuda.Buffer.memset_d8_number] in its place, which
 * takes the value as a `double` and refuses one that is no 8-bit pattern.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d8 (GCudaBuffer  *self,
                        guint64       offset,
                        guint8        value,
                        guint64       count,
                        GCudaStream  *stream,
                        GError      **error)
{
  return memset_elements (self, offset, 0, 1, value, count, 1, stream, error);
}

/**
 * gcuda_buffer_memset_d16:
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte to set: the address it makes (the
 *   buffer's or view's start plus @offset) must be a multiple of 2
 * @value: the value
 * @count: the number of 16-bit elements
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets @count 16-bit elements to @value (PyCUDA's `memset_d16()`).
 * Bindings call [method@GCuda.Buffer.memset_d16_number] in its place, which
 * takes the value as a `double` and refuses one that is no 16-bit pattern.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d16 (GCudaBuffer  *self,
                         guint64       offset,
                         guint16       value,
                         guint64       count,
                         GCudaStream  *stream,
                         GError      **error)
{
  return memset_elements (self, offset, 0, 2, value, count, 1, stream, error);
}

/**
 * gcuda_buffer_memset_d32:
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte to set: the address it makes (the
 *   buffer's or view's start plus @offset) must be a multiple of 4
 * @value: the value
 * @count: the number of 32-bit elements
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets @count 32-bit elements to @value (PyCUDA's `memset_d32()`).
 * Bindings call [method@GCuda.Buffer.memset_d32_number] in its place, which
 * takes the value as a `double` and refuses one that is no 32-bit pattern.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d32 (GCudaBuffer  *self,
                         guint64       offset,
                         guint32       value,
                         guint64       count,
                         GCudaStream  *stream,
                         GError      **error)
{
  return memset_elements (self, offset, 0, 4, value, count, 1, stream, error);
}

/**
 * gcuda_buffer_memset_d8_2d:
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte of the first row
 * @pitch: the distance between rows in bytes, at least @width
 * @value: the value
 * @width: the number of bytes per row
 * @height: the number of rows
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets a rectangle of bytes (PyCUDA's `memset_d2d8()`).
 * Bindings call [method@GCuda.Buffer.memset_d8_2d_number] in its place, which
 * takes the value as a `double` and refuses one that is no 8-bit pattern.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d8_2d (GCudaBuffer  *self,
                           guint64       offset,
                           guint64       pitch,
                           guint8        value,
                           guint64       width,
                           guint64       height,
                           GCudaStream  *stream,
                           GError      **error)
{
  if (pitch == 0)
    pitch = 1;  /* 0 would mean 1D below; it is invalid for any width > 1 anyway */
  return memset_elements (self, offset, pitch, 1, value, width, height, stream, error);
}

/**
 * gcuda_buffer_memset_d16_2d:
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte of the first row: the address it makes (the
 *   buffer's or view's start plus @offset) must be a multiple of 2
 * @pitch: the distance between rows in bytes, a multiple of 2, at least 2 × @width
 * @value: the value
 * @width: the number of 16-bit elements per row
 * @height: the number of rows
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets a rectangle of 16-bit elements (PyCUDA's `memset_d2d16()`).
 * Bindings call [method@GCuda.Buffer.memset_d16_2d_number] in its place, which
 * takes the value as a `double` and refuses one that is no 16-bit pattern.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d16_2d (GCudaBuffer  *self,
                            guint64       offset,
                            guint64       pitch,
                            guint16       value,
                            guint64       width,
                            guint64       height,
                            GCudaStream  *stream,
                            GError      **error)
{
  if (pitch == 0)
    pitch = 2;
  return memset_elements (self, offset, pitch, 2, value, width, height, stream, error);
}

/**
 * gcuda_buffer_memset_d32_2d:
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte of the first row: the address it makes (the
 *   buffer's or view's start plus @offset) must be a multiple of 4
 * @pitch: the distance between rows in bytes, a multiple of 4, at least 4 × @width
 * @value: the value
 * @width: the number of 32-bit elements per row
 * @height: the number of rows
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets a rectangle of 32-bit elements (PyCUDA's `memset_d2d32()`).
 * Bindings call [method@GCuda.Buffer.memset_d32_2d_number] in its place, which
 * takes the value as a `double` and refuses one that is no 32-bit pattern.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d32_2d (GCudaBuffer  *self,
                            guint64       offset,
                            guint64       pitch,
                            guint32       value,
                            guint64       width,
                            guint64       height,
                            GCudaStream  *stream,
                            GError      **error)
{
  if (pitch == 0)
    pitch = 4;
  return memset_elements (self, offset, pitch, 4, value, width, height, stream, error);
}

/* The memsets' twins taking the value as a double, which bindings call
 * instead (each is rename-to its memset): GJS, for one, converts a number
 * to a C integer by truncating a fraction before the memset runs, where
 * these refuse a value that is no bit pattern of the width. */
/**
 * gcuda_buffer_memset_d8_number: (rename-to gcuda_buffer_memset_d8)
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte to set, as for the memset
 * @value: the value, a whole number from 0 to 2^8 − 1
 * @count: the number of bytes
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets bytes as `gcuda_buffer_memset_d8()` does, the value given as a
 * `double`, for languages whose numbers are doubles: bindings call it as
 * `memset_d8()`. A @value that is not a whole number from 0 to 2^8 − 1 (a
 * fraction, a negative or larger value, NaN, an infinity) is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and nothing is set; the
 * memset's own errors follow.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d8_number (GCudaBuffer  *self,
                               guint64       offset,
                               double        value,
                               guint64       count,
                               GCudaStream  *stream,
                               GError      **error)
{
  return _gcuda_check_memset_number (value, 8, error) &&
         gcuda_buffer_memset_d8 (self, offset, (guint8) value, count, stream, error);
}

/**
 * gcuda_buffer_memset_d8_2d_number: (rename-to gcuda_buffer_memset_d8_2d)
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte to set, as for the memset
 * @pitch: the distance between rows in bytes, as for the memset
 * @value: the value, a whole number from 0 to 2^8 − 1
 * @width: the number of bytes per row
 * @height: the number of rows
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets bytes as `gcuda_buffer_memset_d8_2d()` does, the value given as a
 * `double`, for languages whose numbers are doubles: bindings call it as
 * `memset_d8_2d()`. A @value that is not a whole number from 0 to 2^8 − 1 (a
 * fraction, a negative or larger value, NaN, an infinity) is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and nothing is set; the
 * memset's own errors follow.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d8_2d_number (GCudaBuffer  *self,
                                  guint64       offset,
                                  guint64       pitch,
                                  double        value,
                                  guint64       width,
                                  guint64       height,
                                  GCudaStream  *stream,
                                  GError      **error)
{
  return _gcuda_check_memset_number (value, 8, error) &&
         gcuda_buffer_memset_d8_2d (self, offset, pitch, (guint8) value, width, height, stream, error);
}

/**
 * gcuda_buffer_memset_d16_number: (rename-to gcuda_buffer_memset_d16)
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte to set, as for the memset
 * @value: the value, a whole number from 0 to 2^16 − 1
 * @count: the number of 16-bit elements
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets 16-bit elements as `gcuda_buffer_memset_d16()` does, the value given
 * as a `double`, for languages whose numbers are doubles: bindings call it
 * as `memset_d16()`. A @value that is not a whole number from 0 to 2^16 − 1
 * (a fraction, a negative or larger value, NaN, an infinity) is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and nothing is set; the
 * memset's own errors follow.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d16_number (GCudaBuffer  *self,
                                guint64       offset,
                                double        value,
                                guint64       count,
                                GCudaStream  *stream,
                                GError      **error)
{
  return _gcuda_check_memset_number (value, 16, error) &&
         gcuda_buffer_memset_d16 (self, offset, (guint16) value, count, stream, error);
}

/**
 * gcuda_buffer_memset_d16_2d_number: (rename-to gcuda_buffer_memset_d16_2d)
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte to set, as for the memset
 * @pitch: the distance between rows in bytes, as for the memset
 * @value: the value, a whole number from 0 to 2^16 − 1
 * @width: the number of 16-bit elements per row
 * @height: the number of rows
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets 16-bit elements as `gcuda_buffer_memset_d16_2d()` does, the value
 * given as a `double`, for languages whose numbers are doubles: bindings
 * call it as `memset_d16_2d()`. A @value that is not a whole number from 0
 * to 2^16 − 1 (a fraction, a negative or larger value, NaN, an infinity) is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and nothing is set; the
 * memset's own errors follow.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d16_2d_number (GCudaBuffer  *self,
                                   guint64       offset,
                                   guint64       pitch,
                                   double        value,
                                   guint64       width,
                                   guint64       height,
                                   GCudaStream  *stream,
                                   GError      **error)
{
  return _gcuda_check_memset_number (value, 16, error) &&
         gcuda_buffer_memset_d16_2d (self, offset, pitch, (guint16) value, width, height, stream, error);
}

/**
 * gcuda_buffer_memset_d32_number: (rename-to gcuda_buffer_memset_d32)
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte to set, as for the memset
 * @value: the value, a whole number from 0 to 2^32 − 1
 * @count: the number of 32-bit elements
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets 32-bit elements as `gcuda_buffer_memset_d32()` does, the value given
 * as a `double`, for languages whose numbers are doubles: bindings call it
 * as `memset_d32()`. A @value that is not a whole number from 0 to 2^32 − 1
 * (a fraction, a negative or larger value, NaN, an infinity) is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and nothing is set; the
 * memset's own errors follow.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d32_number (GCudaBuffer  *self,
                                guint64       offset,
                                double        value,
                                guint64       count,
                                GCudaStream  *stream,
                                GError      **error)
{
  return _gcuda_check_memset_number (value, 32, error) &&
         gcuda_buffer_memset_d32 (self, offset, (guint32) value, count, stream, error);
}

/**
 * gcuda_buffer_memset_d32_2d_number: (rename-to gcuda_buffer_memset_d32_2d)
 * @self: a [class@GCuda.Buffer]
 * @offset: the first byte to set, as for the memset
 * @pitch: the distance between rows in bytes, as for the memset
 * @value: the value, a whole number from 0 to 2^32 − 1
 * @width: the number of 32-bit elements per row
 * @height: the number of rows
 * @stream: (nullable): queue it on this stream, or %NULL to set synchronously
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets 32-bit elements as `gcuda_buffer_memset_d32_2d()` does, the value
 * given as a `double`, for languages whose numbers are doubles: bindings
 * call it as `memset_d32_2d()`. A @value that is not a whole number from 0
 * to 2^32 − 1 (a fraction, a negative or larger value, NaN, an infinity) is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error], and nothing is set; the
 * memset's own errors follow.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_buffer_memset_d32_2d_number (GCudaBuffer  *self,
                                   guint64       offset,
                                   guint64       pitch,
                                   double        value,
                                   guint64       width,
                                   guint64       height,
                                   GCudaStream  *stream,
                                   GError      **error)
{
  return _gcuda_check_memset_number (value, 32, error) &&
         gcuda_buffer_memset_d32_2d (self, offset, pitch, (guint32) value, width, height, stream, error);
}
