/* test-graphics-resource.c: GCudaGraphicsResource's state machine and every
 * error path, on the mock driver's fake OpenGL objects (see "OpenGL
 * interop" in tests/mock/mock-libcuda.c for its conventions). The real
 * thing, with headless EGL on the NVIDIA GPU, is test-gl-interop.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "gcuda-test-util.h"

#define GL_TEXTURE_2D 0x0DE1
#define GL_TEXTURE_3D 0x806F
#define GL_TEXTURE_2D_ARRAY 0x8C1A

static struct {
  int (*make_current) (int device);
  unsigned int (*new_buffer) (size_t size);
  void *(*buffer_data) (unsigned int name, size_t *size);
  unsigned int (*new_texture) (unsigned int target, size_t width, size_t height, size_t layers, int format,
                               unsigned int channels);
  size_t (*get_registered) (void);
} gl;

/* The mock's GL, once GCuda loaded the mock; FALSE (test skipped) on
 * another driver. */
static gboolean
require_mock_gl (void)
{
  const char *path = g_getenv ("GCUDA_DRIVER_LIBRARY");
  void *lib;

  if (!gcuda_test_require_gpu ())
    return FALSE;
  lib = path != NULL ? dlopen (path, RTLD_NOW | RTLD_NOLOAD) : NULL;
  if (lib != NULL)
    {
      gl.make_current = (int (*) (int)) dlsym (lib, "gcuda_mock_gl_make_current");
      gl.new_buffer = (unsigned int (*) (size_t)) dlsym (lib, "gcuda_mock_gl_new_buffer");
      gl.buffer_data = (void *(*) (unsigned int, size_t *)) dlsym (lib, "gcuda_mock_gl_buffer_data");
      gl.new_texture = (unsigned int (*) (unsigned int, size_t, size_t, size_t, int, unsigned int))
        dlsym (lib, "gcuda_mock_gl_new_texture");
      gl.get_registered = (size_t (*) (void)) dlsym (lib, "gcuda_mock_gl_get_registered");
      dlclose (lib);
    }
  if (gl.make_current == NULL || gl.new_buffer == NULL || gl.buffer_data == NULL || gl.new_texture == NULL ||
      gl.get_registered == NULL)
    {
      g_test_skip ("needs the mock driver's fake OpenGL (GCUDA_DRIVER_LIBRARY=the mock)");
      return FALSE;
    }
  gl.make_current (0);
  return TRUE;
}

static void
assert_message_has (const GError *error,
                    const char   *part)
{
  if (strstr (error->message, part) == NULL)
    g_error ("message \"%s\" does not say \"%s\"", error->message, part);
}

/* ------------------------------------------------------------ buffers */

static void
test_buffer_round_trip (void)
{
  g_autoptr(GCudaGraphicsResource) res = NULL;
  g_autoptr(GCudaBuffer) mapped = NULL;
  g_autoptr(GCudaBuffer) again = NULL;
  g_autoptr(GCudaBuffer) view = NULL;
  g_autoptr(GBytes) back = NULL;
  GError *error = NULL;
  guint8 data[4096];
  unsigned int name;
  size_t gl_size = 0;
  guint8 *storage;
  size_t registered;

  if (!require_mock_gl ())
    return;
  registered = gl.get_registered ();
  name = gl.new_buffer (sizeof data);
  g_assert_cmpuint (name, !=, 0);
  for (gsize i = 0; i < sizeof data; i++)
    data[i] = (guint8) g_test_rand_int ();

  res = gcuda_graphics_resource_new_for_gl_buffer (NULL, name, GCUDA_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gl.get_registered (), ==, registered + 1);
  g_assert_cmpuint (gcuda_graphics_resource_get_gl_name (res), ==, name);
  g_assert_cmpuint (gcuda_graphics_resource_get_gl_target (res), ==, 0);
  g_assert_cmpint (gcuda_graphics_resource_get_kind (res), ==, GCUDA_GRAPHICS_RESOURCE_KIND_BUFFER);
  g_assert_cmpint (gcuda_graphics_resource_get_flags (res), ==, GCUDA_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD);
  g_assert_nonnull (gcuda_graphics_resource_get_context (res));
  g_assert_true (gcuda_graphics_resource_is_registered (res));
  g_assert_false (gcuda_graphics_resource_is_mapped (res));
  gcuda_test_assert_no_current_context ();

  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_graphics_resource_is_mapped (res));
  mapped = gcuda_graphics_resource_get_mapped_buffer (res, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcuda_buffer_get_kind (mapped), ==, GCUDA_BUFFER_KIND_GRAPHICS);
  g_assert_cmpuint (gcuda_buffer_get_size (mapped), ==, sizeof data);
  storage = gl.buffer_data (name, &gl_size);
  g_assert_cmpuint (gl_size, ==, sizeof data);
  g_assert_cmpuint (gcuda_buffer_get_address (mapped), ==, (guint64) (uintptr_t) storage);
  again = gcuda_graphics_resource_get_mapped_buffer (res, &error);
  g_assert_no_error (error);
  g_assert_true (again == mapped);  /* one buffer per mapping */
  view = gcuda_buffer_new_view (mapped, 16, 32, &error);
  g_assert_no_error (error);

  /* what CUDA writes is what GL has */
  g_assert_true (gcuda_buffer_upload (mapped, 0, data, sizeof data, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (storage, gl_size, data, sizeof data);
  back = gcuda_buffer_download (view, 0, 32, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (back, NULL), g_bytes_get_size (back), data + 16, 32);

  g_assert_true (gcuda_graphics_resource_unmap (res, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_graphics_resource_is_mapped (res));
  gcuda_test_assert_no_current_context ();

  /* the mapping's buffer, and views of it, are unusable now */
  g_assert_true (gcuda_buffer_is_freed (mapped));
  g_assert_false (gcuda_buffer_upload (mapped, 0, data, 4, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  assert_message_has (error, "unmapped");
  g_clear_error (&error);
  g_assert_null (gcuda_buffer_download (view, 0, 4, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  assert_message_has (error, "unmapped");
  g_clear_error (&error);
  g_assert_null (gcuda_buffer_new_view (mapped, 0, 4, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);

  /* a new mapping gives a new buffer */
  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  g_clear_object (&again);
  again = gcuda_graphics_resource_get_mapped_buffer (res, &error);
  g_assert_no_error (error);
  g_assert_true (again != mapped);
  g_assert_false (gcuda_buffer_is_freed (again));

  /* unregistering unmaps first */
  g_assert_true (gcuda_graphics_resource_unregister (res, &error));
  g_assert_no_error (error);
  g_assert_false (gcuda_graphics_resource_is_registered (res));
  g_assert_false (gcuda_graphics_resource_is_mapped (res));
  g_assert_true (gcuda_buffer_is_freed (again));
  g_assert_cmpuint (gl.get_registered (), ==, registered);
  g_assert_false (gcuda_graphics_resource_unregister (res, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  g_assert_false (gcuda_graphics_resource_map (res, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ images */

static void
test_image (void)
{
  g_autoptr(GCudaGraphicsResource) res = NULL;
  g_autoptr(GCudaArray) array = NULL;
  g_autoptr(GCudaArray) again = NULL;
  g_autoptr(GCudaArrayDescriptor) desc = NULL;
  GError *error = NULL;
  unsigned int name;

  if (!require_mock_gl ())
    return;
  name = gl.new_texture (GL_TEXTURE_2D, 64, 32, 0, GCUDA_ARRAY_FORMAT_UNSIGNED_INT8, 4);
  res = gcuda_graphics_resource_new_for_gl_image (NULL, name, GL_TEXTURE_2D,
                                                  GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcuda_graphics_resource_get_kind (res), ==, GCUDA_GRAPHICS_RESOURCE_KIND_IMAGE);
  g_assert_cmpuint (gcuda_graphics_resource_get_gl_target (res), ==, GL_TEXTURE_2D);

  g_assert_null (gcuda_graphics_resource_get_mapped_array (res, 0, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_MAPPED);

  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  g_assert_no_error (error);
  array = gcuda_graphics_resource_get_mapped_array (res, 0, 0, &error);
  g_assert_no_error (error);
  desc = gcuda_array_get_descriptor (array);
  g_assert_cmpuint (desc->width, ==, 64);
  g_assert_cmpuint (desc->height, ==, 32);
  g_assert_cmpuint (desc->depth, ==, 0);
  g_assert_cmpint (desc->format, ==, GCUDA_ARRAY_FORMAT_UNSIGNED_INT8);
  g_assert_cmpuint (desc->num_channels, ==, 4);
  g_assert_true (desc->flags & GCUDA_ARRAY_FLAGS_SURFACE_LDST);
  g_assert_cmpuint (gcuda_array_get_size (array), ==, 64 * 32 * 4);
  again = gcuda_graphics_resource_get_mapped_array (res, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_true (again == array);

  /* no layer 1, no mip level 1 */
  g_assert_null (gcuda_graphics_resource_get_mapped_array (res, 1, 0, &error));
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);
  assert_message_has (error, "no layer 1");
  g_clear_error (&error);
  g_assert_null (gcuda_graphics_resource_get_mapped_array (res, 0, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);
  /* an image is no buffer */
  g_assert_null (gcuda_graphics_resource_get_mapped_buffer (res, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_MAPPED_AS_POINTER);

  g_assert_true (gcuda_graphics_resource_unmap (res, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_array_is_freed (array));
  g_assert_null (gcuda_surface_new (array, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_FREED);
  assert_message_has (error, "unmapped");
  g_clear_error (&error);
  gcuda_test_assert_no_current_context ();
}

static void
test_image_layers (void)
{
  g_autoptr(GCudaGraphicsResource) res = NULL;
  g_autoptr(GCudaArray) layer = NULL;
  GError *error = NULL;
  unsigned int name;

  if (!require_mock_gl ())
    return;
  name = gl.new_texture (GL_TEXTURE_2D_ARRAY, 8, 8, 3, GCUDA_ARRAY_FORMAT_FLOAT, 1);
  res = gcuda_graphics_resource_new_for_gl_image (NULL, name, GL_TEXTURE_2D_ARRAY,
                                                  GCUDA_GRAPHICS_REGISTER_FLAGS_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  layer = gcuda_graphics_resource_get_mapped_array (res, 2, 0, &error);
  g_assert_no_error (error);
  g_assert_null (gcuda_graphics_resource_get_mapped_array (res, 3, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);
  /* dropped while mapped: unmapped and unregistered by the finalizer */
  g_clear_object (&res);
  g_assert_true (gcuda_array_is_freed (layer));
}

/* ------------------------------------------------------------ bad input */

static void
test_register_errors (void)
{
  GCudaGraphicsResource *res;
  GError *error = NULL;
  unsigned int buffer, texture;
  size_t registered;

  if (!require_mock_gl ())
    return;
  registered = gl.get_registered ();
  buffer = gl.new_buffer (256);
  texture = gl.new_texture (GL_TEXTURE_2D, 16, 16, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1);

  /* no current GL context, and one on a GPU without CUDA */
  for (int device = -1; device >= -2; device--)
    {
      gl.make_current (device);
      res = gcuda_graphics_resource_new_for_gl_buffer (NULL, buffer, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
      g_assert_null (res);
      gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_GRAPHICS_CONTEXT);
      assert_message_has (error, "make the GL context");
      g_clear_error (&error);
      res = gcuda_graphics_resource_new_for_gl_image (NULL, texture, GL_TEXTURE_2D,
                                                      GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
      g_assert_null (res);
      gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_GRAPHICS_CONTEXT);
    }
  gl.make_current (0);

  /* GCuda's own checks, before the driver */
  res = gcuda_graphics_resource_new_for_gl_buffer (NULL, 0, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_null (res);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  res = gcuda_graphics_resource_new_for_gl_image (NULL, 0, GL_TEXTURE_2D, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE,
                                                  &error);
  g_assert_null (res);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  res = gcuda_graphics_resource_new_for_gl_image (NULL, texture, 0x1234, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE,
                                                  &error);
  g_assert_null (res);
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  assert_message_has (error, "0x1234");
  g_clear_error (&error);
  res = gcuda_graphics_resource_new_for_gl_buffer (NULL, buffer,
                                                   GCUDA_GRAPHICS_REGISTER_FLAGS_READ_ONLY |
                                                   GCUDA_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD, &error);
  g_assert_null (res);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  res = gcuda_graphics_resource_new_for_gl_buffer (NULL, buffer, GCUDA_GRAPHICS_REGISTER_FLAGS_SURFACE_LOAD_STORE,
                                                   &error);
  g_assert_null (res);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  res = gcuda_graphics_resource_new_for_gl_image (NULL, texture, GL_TEXTURE_2D, 0x100, &error);
  g_assert_null (res);
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  /* the driver's: not an object of that kind, or of that target */
  res = gcuda_graphics_resource_new_for_gl_buffer (NULL, texture, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_null (res);
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);
  assert_message_has (error, "not a buffer object");
  g_clear_error (&error);
  res = gcuda_graphics_resource_new_for_gl_image (NULL, buffer, GL_TEXTURE_2D, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE,
                                                  &error);
  g_assert_null (res);
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);
  assert_message_has (error, "not a texture or renderbuffer");
  g_clear_error (&error);
  res = gcuda_graphics_resource_new_for_gl_image (NULL, texture, GL_TEXTURE_3D, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE,
                                                  &error);
  g_assert_null (res);
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);
  res = gcuda_graphics_resource_new_for_gl_buffer (NULL, 4000, GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_null (res);
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_VALUE);

  g_assert_cmpuint (gl.get_registered (), ==, registered);
  gcuda_test_assert_no_current_context ();
}

static void
test_map_errors (void)
{
  g_autoptr(GCudaGraphicsResource) res = NULL;
  g_autoptr(GCudaGraphicsResource) by_hand = NULL;
  g_autoptr(GObject) not_a_stream = NULL;
  GError *error = NULL;

  if (!require_mock_gl ())
    return;
  res = gcuda_graphics_resource_new_for_gl_buffer (NULL, gl.new_buffer (64), GCUDA_GRAPHICS_REGISTER_FLAGS_NONE,
                                                   &error);
  g_assert_no_error (error);

  g_assert_false (gcuda_graphics_resource_unmap (res, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_MAPPED);
  g_assert_null (gcuda_graphics_resource_get_mapped_buffer (res, &error));
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_MAPPED);
  assert_message_has (error, "GraphicsResource.map()");
  g_clear_error (&error);

  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  g_assert_false (gcuda_graphics_resource_map (res, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_ALREADY_MAPPED);
  g_assert_null (gcuda_graphics_resource_get_mapped_array (res, 0, 0, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_MAPPED_AS_ARRAY);
  g_assert_true (gcuda_graphics_resource_is_mapped (res));

  /* not a stream */
  not_a_stream = g_object_new (G_TYPE_OBJECT, NULL);
  g_assert_false (gcuda_graphics_resource_unmap (res, (GCudaStream *) not_a_stream, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_true (gcuda_graphics_resource_unmap (res, NULL, &error));
  g_assert_no_error (error);

  /* made with g_object_new(): nothing behind it */
  by_hand = g_object_new (GCUDA_TYPE_GRAPHICS_RESOURCE, NULL);
  g_assert_false (gcuda_graphics_resource_is_registered (by_hand));
  g_assert_false (gcuda_graphics_resource_map (by_hand, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_null (gcuda_graphics_resource_get_mapped_buffer (by_hand, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_graphics_resource_unregister (by_hand, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  gcuda_test_assert_no_current_context ();
}

static void
test_map_all (void)
{
  GCudaGraphicsResource *res[3] = { NULL };
  GCudaGraphicsResource *twice[2];
  g_autoptr(GCudaBuffer) b2 = NULL;
  GError *error = NULL;

  if (!require_mock_gl ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (res); i++)
    {
      res[i] = gcuda_graphics_resource_new_for_gl_buffer (NULL, gl.new_buffer (128 * (i + 1)),
                                                          GCUDA_GRAPHICS_REGISTER_FLAGS_NONE, &error);
      g_assert_no_error (error);
    }

  g_assert_false (gcuda_graphics_resource_map_all (res, 0, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  twice[0] = twice[1] = res[0];
  g_assert_false (gcuda_graphics_resource_map_all (twice, 2, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_false (gcuda_graphics_resource_is_mapped (res[0]));

  /* one mapped already: none is mapped */
  g_assert_true (gcuda_graphics_resource_map (res[1], NULL, &error));
  g_assert_false (gcuda_graphics_resource_map_all (res, 3, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_ALREADY_MAPPED);
  g_assert_false (gcuda_graphics_resource_is_mapped (res[0]));
  g_assert_false (gcuda_graphics_resource_is_mapped (res[2]));
  g_assert_true (gcuda_graphics_resource_unmap (res[1], NULL, &error));

  g_assert_true (gcuda_graphics_resource_map_all (res, 3, NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (res); i++)
    g_assert_true (gcuda_graphics_resource_is_mapped (res[i]));
  b2 = gcuda_graphics_resource_get_mapped_buffer (res[2], &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcuda_buffer_get_size (b2), ==, 384);

  /* one unmapped already: none is unmapped */
  g_assert_true (gcuda_graphics_resource_unmap (res[0], NULL, &error));
  g_assert_false (gcuda_graphics_resource_unmap_all (res, 3, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NOT_MAPPED);
  g_assert_true (gcuda_graphics_resource_is_mapped (res[2]));
  g_assert_false (gcuda_buffer_is_freed (b2));
  g_assert_true (gcuda_graphics_resource_unmap_all (res + 1, 2, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_is_freed (b2));

  for (guint i = 0; i < G_N_ELEMENTS (res); i++)
    g_object_unref (res[i]);
  gcuda_test_assert_no_current_context ();
}

/* Resources and streams of two contexts are not mixed. */
static void
test_context_mismatch (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaContext) other = NULL;
  g_autoptr(GCudaStream) other_stream = NULL;
  GCudaGraphicsResource *res[2] = { NULL };
  GError *error = NULL;

  if (!require_mock_gl ())
    return;
  device = gcuda_test_get_device ();
  other = gcuda_device_create_context (device, GCUDA_CONTEXT_FLAGS_SCHED_AUTO, &error);
  g_assert_no_error (error);
  res[0] = gcuda_graphics_resource_new_for_gl_buffer (NULL, gl.new_buffer (64), GCUDA_GRAPHICS_REGISTER_FLAGS_NONE,
                                                      &error);
  g_assert_no_error (error);
  res[1] = gcuda_graphics_resource_new_for_gl_buffer (other, gl.new_buffer (64), GCUDA_GRAPHICS_REGISTER_FLAGS_NONE,
                                                      &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_graphics_resource_get_context (res[1]) == other);

  g_assert_false (gcuda_graphics_resource_map_all (res, 2, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);

  other_stream = gcuda_stream_new (other, GCUDA_STREAM_FLAGS_DEFAULT, 0, &error);
  if (other_stream != NULL)
    {
      g_assert_false (gcuda_graphics_resource_map (res[0], other_stream, &error));
      gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_MISMATCH);
      g_assert_true (gcuda_graphics_resource_map (res[1], other_stream, &error));
      g_assert_no_error (error);
      g_assert_true (gcuda_graphics_resource_unmap (res[1], other_stream, &error));
      g_assert_no_error (error);
    }
  else
    g_clear_error (&error);  /* a mock without streams (GCUDA_MOCK_KERNELS unset) */

  g_object_unref (res[0]);
  g_object_unref (res[1]);
  gcuda_test_assert_no_current_context ();
}

static void
test_destroyed_context (void)
{
  g_autoptr(GCudaDevice) device = NULL;
  g_autoptr(GCudaContext) ctx = NULL;
  g_autoptr(GCudaGraphicsResource) res = NULL;
  g_autoptr(GCudaBuffer) mapped = NULL;
  GError *error = NULL;
  guint8 byte = 1;
  size_t registered;

  if (!require_mock_gl ())
    return;
  registered = gl.get_registered ();
  device = gcuda_test_get_device ();
  ctx = gcuda_device_create_context (device, GCUDA_CONTEXT_FLAGS_SCHED_AUTO, &error);
  g_assert_no_error (error);
  res = gcuda_graphics_resource_new_for_gl_buffer (ctx, gl.new_buffer (64), GCUDA_GRAPHICS_REGISTER_FLAGS_NONE,
                                                   &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  mapped = gcuda_graphics_resource_get_mapped_buffer (res, &error);
  g_assert_no_error (error);

  g_assert_true (gcuda_context_destroy (ctx, &error));
  g_assert_false (gcuda_graphics_resource_unmap (res, NULL, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_null (gcuda_graphics_resource_get_mapped_buffer (res, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_graphics_resource_unregister (res, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  g_assert_false (gcuda_buffer_upload (mapped, 0, &byte, 1, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);

  /* the last reference still unmaps and unregisters, in the driver's
   * context, which goes after it */
  g_clear_object (&res);
  g_assert_true (gcuda_buffer_is_freed (mapped));
  g_assert_cmpuint (gl.get_registered (), ==, registered);
  gcuda_test_assert_no_current_context ();
}

/* The finalizer runs in another thread than the registration. */
static gpointer
drop_in_thread (gpointer data)
{
  g_object_unref (data);
  return NULL;
}

static void
test_finalize_in_thread (void)
{
  GCudaGraphicsResource *res;
  GError *error = NULL;
  size_t registered;

  if (!require_mock_gl ())
    return;
  registered = gl.get_registered ();
  res = gcuda_graphics_resource_new_for_gl_buffer (NULL, gl.new_buffer (64), GCUDA_GRAPHICS_REGISTER_FLAGS_NONE,
                                                   &error);
  g_assert_no_error (error);
  g_assert_true (gcuda_graphics_resource_map (res, NULL, &error));
  g_thread_join (g_thread_new ("drop", drop_in_thread, res));
  g_assert_cmpuint (gl.get_registered (), ==, registered);
  gcuda_test_assert_no_current_context ();
}

/* ------------------------------------------------------------ cuGLGetDevices */

static void
test_gl_devices (void)
{
  g_autoptr(GPtrArray) devices = NULL;
  GError *error = NULL;
  int count;

  if (!require_mock_gl ())
    return;
  count = gcuda_device_get_count (&error);
  g_assert_no_error (error);

  for (int ordinal = 0; ordinal < count; ordinal++)
    {
      gl.make_current (ordinal);
      devices = gcuda_graphics_get_gl_devices (GCUDA_GL_DEVICE_LIST_ALL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (devices->len, ==, 1);
      g_assert_cmpint (gcuda_device_get_ordinal (devices->pdata[0]), ==, ordinal);
      g_clear_pointer (&devices, g_ptr_array_unref);
    }

  gl.make_current (-2);  /* GL on a GPU without CUDA */
  devices = gcuda_graphics_get_gl_devices (GCUDA_GL_DEVICE_LIST_CURRENT_FRAME, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (devices->len, ==, 0);
  g_clear_pointer (&devices, g_ptr_array_unref);

  gl.make_current (-1);
  g_assert_null (gcuda_graphics_get_gl_devices (GCUDA_GL_DEVICE_LIST_ALL, &error));
  gcuda_assert_error (error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_INVALID_GRAPHICS_CONTEXT);
  assert_message_has (error, "current");
  g_clear_error (&error);

  g_assert_null (gcuda_graphics_get_gl_devices ((GCudaGLDeviceList) 7, &error));
  gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  gl.make_current (0);
  gcuda_test_assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/graphics/mock/buffer-round-trip", test_buffer_round_trip);
  g_test_add_func ("/graphics/mock/image", test_image);
  g_test_add_func ("/graphics/mock/image-layers", test_image_layers);
  g_test_add_func ("/graphics/mock/register-errors", test_register_errors);
  g_test_add_func ("/graphics/mock/map-errors", test_map_errors);
  g_test_add_func ("/graphics/mock/map-all", test_map_all);
  g_test_add_func ("/graphics/mock/context-mismatch", test_context_mismatch);
  g_test_add_func ("/graphics/mock/destroyed-context", test_destroyed_context);
  g_test_add_func ("/graphics/mock/finalize-in-thread", test_finalize_in_thread);
  g_test_add_func ("/graphics/mock/gl-devices", test_gl_devices);

  return g_test_run ();
}
