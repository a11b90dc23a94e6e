/* test-by-hand.c: objects made with g_object_new() instead of a constructor
 *
 * GObject lets any language make any GCuda class without its constructor
 * (GObject.new() and GCuda.X() in Python, new GCuda.X() in JavaScript), so
 * with no CUDA object behind it. Every method that needs one must say
 * GCUDA_ERROR_INVALID_ARGUMENT, never crash nor hit a critical (the tests
 * run with G_DEBUG=fatal-criticals); getters give documented neutral
 * values. The same holds for such objects given as arguments.
 *
 * /by-hand/nogpu/ needs no driver (it is made unloadable); /by-hand/mock/
 * needs contexts, buffers and page-locked memory (the mock driver).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-test-util.h"

/* A by-hand object of @type, as a gpointer for the calls below. */
static gpointer
by_hand (GType type)
{
  return g_object_new (type, NULL);
}

/* No context left current, where there is a driver to ask. */
static void
assert_no_current_context (void)
{
  if (gcuda_device_get_count (NULL) > 0)
    gcuda_test_assert_no_current_context ();
}

/* Drops what an unexpectedly successful call returned; FALSE for NULL. */
static gboolean
got (gpointer object)
{
  if (object == NULL)
    return FALSE;
  g_object_unref (object);
  return TRUE;
}

static gboolean
got_bytes (GBytes *bytes)
{
  if (bytes == NULL)
    return FALSE;
  g_bytes_unref (bytes);
  return TRUE;
}

/* ------------------------------------------------------------ every method of every class, by hand */

typedef gboolean (*ByHandCall) (gpointer self, GError **error);

typedef struct {
  const char *name;     /* the test path's tail: GCudaClass.method */
  GType (*get_type) (void);
  ByHandCall call;      /* TRUE if the call succeeded (it must not) */
} ByHandCase;

static const guint8 ptx_text[] = ".version 8.0\n.target sm_90\n.address_size 64\n";

static void
stream_callback (GCudaStream *stream,
                 gpointer     user_data)
{
}

/* One static function per method: CALL (Type, method, expression on self). */
#define CALL(T, method, expr) \
  static gboolean \
  call_##T##_##method (gpointer self_, GError **error) \
  { \
    GCuda##T *self = self_; \
    return (expr); \
  }

CALL (Graph, get_node_count, gcuda_graph_get_node_count (self, error) > 0)
CALL (Graph, instantiate, got (gcuda_graph_instantiate (self, error)))
CALL (Graph, write_dot, gcuda_graph_write_dot (self, "/nonexistent/graph.dot", error))

CALL (GraphExec, launch, gcuda_graph_exec_launch (self, NULL, error))
CALL (GraphExec, update, ({ g_autoptr(GCudaGraph) g = by_hand (GCUDA_TYPE_GRAPH);
                            gcuda_graph_exec_update (self, g, error); }))

CALL (Linker, add_data, ({ g_autoptr(GBytes) b = g_bytes_new_static (ptx_text, sizeof ptx_text);
                           gcuda_linker_add_data (self, GCUDA_LINK_INPUT_TYPE_PTX, b, NULL, error); }))
CALL (Linker, add_file, gcuda_linker_add_file (self, GCUDA_LINK_INPUT_TYPE_PTX, "/etc/passwd", error))
CALL (Linker, add_program, ({ g_autoptr(GCudaProgram) p = by_hand (GCUDA_TYPE_PROGRAM);
                              gcuda_linker_add_program (self, p, error); }))
CALL (Linker, add_source, gcuda_linker_add_source (self, NULL, "__global__ void k() {}", error))
CALL (Linker, add_library, gcuda_linker_add_library (self, "cudadevrt", error))
CALL (Linker, complete, got (gcuda_linker_complete (self, error)))

CALL (Function, get_attribute,
      gcuda_function_get_attribute (self, GCUDA_FUNCTION_ATTRIBUTE_NUM_REGS, error) != 0)
CALL (Function, set_attribute,
      gcuda_function_set_attribute (self, GCUDA_FUNCTION_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024, error))
CALL (Function, get_max_active_blocks_per_multiprocessor,
      gcuda_function_get_max_active_blocks_per_multiprocessor (self, 32, 0, error) != 0)
CALL (Function, set_cache_config, gcuda_function_set_cache_config (self, GCUDA_CACHE_CONFIG_PREFER_L1, error))
CALL (Function, set_max_dynamic_shared_size, gcuda_function_set_max_dynamic_shared_size (self, 1024, error))
CALL (Function, get_potential_block_size,
      (gcuda_function_get_potential_block_size (self, 0, 0, NULL, NULL, error), error && *error == NULL))
CALL (Function, launch, gcuda_function_launch (self, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, error))
CALL (Function, launch_packed, gcuda_function_launch_packed (self, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, 0, error))
CALL (Function, launch_timed, gcuda_function_launch_timed (self, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, error) >= 0)
CALL (Function, launch_with_config, ({ g_autoptr(GCudaLaunchConfig) c = gcuda_launch_config_new ();
                                       gcuda_function_launch_with_config (self, c, NULL, error); }))

CALL (Module, get_function, got (gcuda_module_get_function (self, "k", error)))
CALL (Module, get_global, got (gcuda_module_get_global (self, "g", error)))

CALL (Stream, synchronize, gcuda_stream_synchronize (self, error))
CALL (Stream, is_done, gcuda_stream_is_done (self, error) || (error && *error == NULL))
CALL (Stream, wait_event, ({ g_autoptr(GCudaEvent) e = by_hand (GCUDA_TYPE_EVENT);
                             gcuda_stream_wait_event (self, e, error); }))
CALL (Stream, add_callback, gcuda_stream_add_callback (self, stream_callback, NULL, NULL, error))
CALL (Stream, add_blocking_callback, gcuda_stream_add_blocking_callback (self, stream_callback, NULL, NULL, error))
CALL (Stream, begin_capture, gcuda_stream_begin_capture (self, GCUDA_CAPTURE_MODE_GLOBAL, error))
CALL (Stream, end_capture, got (gcuda_stream_end_capture (self, error)))
CALL (Stream, get_capture_status,
      (gcuda_stream_get_capture_status (self, error), error && *error == NULL))

CALL (Event, record, gcuda_event_record (self, NULL, error) != NULL)
CALL (Event, synchronize, gcuda_event_synchronize (self, error) != NULL)
CALL (Event, query, gcuda_event_query (self, error) || (error && *error == NULL))
CALL (Event, time_since, ({ g_autoptr(GCudaEvent) e = by_hand (GCUDA_TYPE_EVENT);
                            gcuda_event_time_since (self, e, error), error && *error == NULL; }))
CALL (Event, time_till, ({ g_autoptr(GCudaEvent) e = by_hand (GCUDA_TYPE_EVENT);
                           gcuda_event_time_till (self, e, error), error && *error == NULL; }))
CALL (Event, get_ipc_handle, got_bytes (gcuda_event_get_ipc_handle (self, error)))

CALL (Buffer, free, gcuda_buffer_free (self, error))
CALL (Buffer, new_view, got (gcuda_buffer_new_view (self, 0, 1, error)))
CALL (Buffer, upload, gcuda_buffer_upload (self, 0, ptx_text, 4, error))
CALL (Buffer, upload_bytes, ({ g_autoptr(GBytes) b = g_bytes_new_static (ptx_text, 4);
                               gcuda_buffer_upload_bytes (self, 0, b, error); }))
CALL (Buffer, upload_from_address,
      gcuda_buffer_upload_from_address (self, 0, (guint64) (guintptr) ptx_text, 4, error))
CALL (Buffer, upload_from_address_on_stream,
      gcuda_buffer_upload_from_address_on_stream (self, 0, (guint64) (guintptr) ptx_text, 4, NULL, error))
CALL (Buffer, download, got_bytes (gcuda_buffer_download (self, 0, 1, error)))
CALL (Buffer, download_to_address, ({ guint8 out[4];
                                      gcuda_buffer_download_to_address (self, 0, (guint64) (guintptr) out, 4,
                                                                        error); }))
CALL (Buffer, download_to_address_on_stream, ({ guint8 out[4];
                                                gcuda_buffer_download_to_address_on_stream (
                                                  self, 0, (guint64) (guintptr) out, 4, NULL, error); }))
CALL (Buffer, copy_from, ({ g_autoptr(GCudaBuffer) b = by_hand (GCUDA_TYPE_BUFFER);
                            gcuda_buffer_copy_from (self, 0, b, 0, 1, error); }))
CALL (Buffer, copy_from_on_stream, ({ g_autoptr(GCudaBuffer) b = by_hand (GCUDA_TYPE_BUFFER);
                                      gcuda_buffer_copy_from_on_stream (self, 0, b, 0, 1, NULL, error); }))
CALL (Buffer, memset_d8, gcuda_buffer_memset_d8 (self, 0, 0, 1, NULL, error))
CALL (Buffer, memset_d16, gcuda_buffer_memset_d16 (self, 0, 0, 1, NULL, error))
CALL (Buffer, memset_d32, gcuda_buffer_memset_d32 (self, 0, 0, 1, NULL, error))
CALL (Buffer, memset_d8_2d, gcuda_buffer_memset_d8_2d (self, 0, 4, 0, 4, 1, NULL, error))
CALL (Buffer, memset_d16_2d, gcuda_buffer_memset_d16_2d (self, 0, 4, 0, 2, 1, NULL, error))
CALL (Buffer, memset_d32_2d, gcuda_buffer_memset_d32_2d (self, 0, 4, 0, 1, 1, NULL, error))
CALL (Buffer, get_ipc_handle, got_bytes (gcuda_buffer_get_ipc_handle (self, error)))
CALL (Buffer, attach, gcuda_buffer_attach (self, GCUDA_MEM_ATTACH_FLAGS_GLOBAL, NULL, error))
CALL (Buffer, prefetch, gcuda_buffer_prefetch (self, NULL, NULL, error))
CALL (Buffer, advise, gcuda_buffer_advise (self, GCUDA_MEMORY_ADVICE_SET_READ_MOSTLY, NULL, error))

CALL (HostBuffer, free, gcuda_host_buffer_free (self, error))
CALL (HostBuffer, unregister, gcuda_host_buffer_unregister (self, error))
CALL (HostBuffer, get_device_address, gcuda_host_buffer_get_device_address (self, error) != 0)
CALL (HostBuffer, read, got_bytes (gcuda_host_buffer_read (self, 0, 1, error)))
CALL (HostBuffer, write, ({ g_autoptr(GBytes) b = g_bytes_new_static (ptx_text, 4);
                            gcuda_host_buffer_write (self, 0, b, error); }))

CALL (Array, free, gcuda_array_free (self, error))
CALL (Array, upload, gcuda_array_upload (self, 0, ptx_text, 4, error))
CALL (Array, upload_from_address,
      gcuda_array_upload_from_address (self, 0, (guint64) (guintptr) ptx_text, 4, error))
CALL (Array, download, got_bytes (gcuda_array_download (self, 0, 1, error)))
CALL (Array, download_to_address, ({ guint8 out[4];
                                     gcuda_array_download_to_address (self, 0, (guint64) (guintptr) out, 4, error); }))
CALL (Array, copy_from_buffer, ({ g_autoptr(GCudaBuffer) b = by_hand (GCUDA_TYPE_BUFFER);
                                  gcuda_array_copy_from_buffer (self, 0, b, 0, 1, error); }))
CALL (Array, copy_to_buffer, ({ g_autoptr(GCudaBuffer) b = by_hand (GCUDA_TYPE_BUFFER);
                                gcuda_array_copy_to_buffer (self, 0, b, 0, 1, error); }))
CALL (Array, copy_from_array, ({ g_autoptr(GCudaArray) a = by_hand (GCUDA_TYPE_ARRAY);
                                 gcuda_array_copy_from_array (self, 0, a, 0, 1, error); }))

CALL (StreamPool, allocate, got (gcuda_stream_pool_allocate (self, 64, NULL, error)))
CALL (StreamPool, trim, gcuda_stream_pool_trim (self, 0, error))
CALL (StreamPool, set_release_threshold, gcuda_stream_pool_set_release_threshold (self, 0, error))
CALL (StreamPool, get_reserved_bytes_current,
      (gcuda_stream_pool_get_reserved_bytes_current (self, error), error && *error == NULL))
CALL (StreamPool, get_used_bytes_current,
      (gcuda_stream_pool_get_used_bytes_current (self, error), error && *error == NULL))

CALL (GraphicsResource, map, gcuda_graphics_resource_map (self, NULL, error))
CALL (GraphicsResource, unmap, gcuda_graphics_resource_unmap (self, NULL, error))
CALL (GraphicsResource, map_all, gcuda_graphics_resource_map_all (&self, 1, NULL, error))
CALL (GraphicsResource, unmap_all,
      gcuda_graphics_resource_unmap_all (&self, 1, NULL, error))
CALL (GraphicsResource, get_mapped_buffer, got (gcuda_graphics_resource_get_mapped_buffer (self, error)))
CALL (GraphicsResource, get_mapped_array, got (gcuda_graphics_resource_get_mapped_array (self, 0, 0, error)))
CALL (GraphicsResource, unregister, gcuda_graphics_resource_unregister (self, error))

CALL (Context, synchronize, gcuda_context_synchronize (self, error))
CALL (Context, get_limit, (gcuda_context_get_limit (self, GCUDA_LIMIT_STACK_SIZE, error), error && *error == NULL))
CALL (Context, set_limit, gcuda_context_set_limit (self, GCUDA_LIMIT_STACK_SIZE, 4096, error))
CALL (Context, get_cache_config, (gcuda_context_get_cache_config (self, error), error && *error == NULL))
CALL (Context, set_cache_config, gcuda_context_set_cache_config (self, GCUDA_CACHE_CONFIG_PREFER_L1, error))
CALL (Context, get_memory_info, (gcuda_context_get_memory_info (self, NULL, NULL, error), error && *error == NULL))
CALL (Context, get_stream_priority_range, (gcuda_context_get_stream_priority_range (self, NULL, NULL, error), error && *error == NULL))
CALL (Context, get_api_version, gcuda_context_get_api_version (self, error) != 0)
CALL (Context, enable_peer_access, ({ g_autoptr(GCudaContext) c = by_hand (GCUDA_TYPE_CONTEXT);
                                      gcuda_context_enable_peer_access (self, c, error); }))
CALL (Context, disable_peer_access, ({ g_autoptr(GCudaContext) c = by_hand (GCUDA_TYPE_CONTEXT);
                                       gcuda_context_disable_peer_access (self, c, error); }))
CALL (Context, push, gcuda_context_push (self, error))
CALL (Context, get_address_range, (gcuda_context_get_address_range (self, 0x1000, NULL, NULL, error), error && *error == NULL))
CALL (Context, destroy, gcuda_context_destroy (self, error))

CALL (Device, get_attribute, gcuda_device_get_attribute (self, GCUDA_DEVICE_ATTRIBUTE_WARP_SIZE, error) != 0)
CALL (Device, get_attributes, ({ GHashTable *h = gcuda_device_get_attributes (self, error);
                                 if (h) g_hash_table_unref (h);
                                 h != NULL; }))
CALL (Device, can_access_peer, ({ g_autoptr(GCudaDevice) d = by_hand (GCUDA_TYPE_DEVICE);
                                  gcuda_device_can_access_peer (self, d, error) || (error && *error == NULL); }))
CALL (Device, get_primary_context, got (gcuda_device_get_primary_context (self, error)))
CALL (Device, set_primary_context_flags, gcuda_device_set_primary_context_flags (self, 0, error))
CALL (Device, get_primary_context_state, (gcuda_device_get_primary_context_state (self, NULL, NULL, error), error && *error == NULL))
CALL (Device, create_context, got (gcuda_device_create_context (self, 0, error)))

CALL (DeviceData, occupancy, got (gcuda_occupancy_new (self, 128, 0, 0, error)))

#define CASE(T, method, TYPE) { "GCuda" #T "." #method, gcuda_##TYPE##_get_type, call_##T##_##method }

static const ByHandCase by_hand_cases[] = {
  CASE (Graph, get_node_count, graph),
  CASE (Graph, instantiate, graph),
  CASE (Graph, write_dot, graph),
  CASE (GraphExec, launch, graph_exec),
  CASE (GraphExec, update, graph_exec),
  CASE (Linker, add_data, linker),
  CASE (Linker, add_file, linker),
  CASE (Linker, add_program, linker),
  CASE (Linker, add_source, linker),
  CASE (Linker, add_library, linker),
  CASE (Linker, complete, linker),
  CASE (Function, get_attribute, function),
  CASE (Function, set_attribute, function),
  CASE (Function, get_max_active_blocks_per_multiprocessor, function),
  CASE (Function, set_cache_config, function),
  CASE (Function, set_max_dynamic_shared_size, function),
  CASE (Function, get_potential_block_size, function),
  CASE (Function, launch, function),
  CASE (Function, launch_packed, function),
  CASE (Function, launch_timed, function),
  CASE (Function, launch_with_config, function),
  CASE (Module, get_function, module),
  CASE (Module, get_global, module),
  CASE (Stream, synchronize, stream),
  CASE (Stream, is_done, stream),
  CASE (Stream, wait_event, stream),
  CASE (Stream, add_callback, stream),
  CASE (Stream, add_blocking_callback, stream),
  CASE (Stream, begin_capture, stream),
  CASE (Stream, end_capture, stream),
  CASE (Stream, get_capture_status, stream),
  CASE (Event, record, event),
  CASE (Event, synchronize, event),
  CASE (Event, query, event),
  CASE (Event, time_since, event),
  CASE (Event, time_till, event),
  CASE (Event, get_ipc_handle, event),
  CASE (Buffer, free, buffer),
  CASE (Buffer, new_view, buffer),
  CASE (Buffer, upload, buffer),
  CASE (Buffer, upload_bytes, buffer),
  CASE (Buffer, upload_from_address, buffer),
  CASE (Buffer, upload_from_address_on_stream, buffer),
  CASE (Buffer, download, buffer),
  CASE (Buffer, download_to_address, buffer),
  CASE (Buffer, download_to_address_on_stream, buffer),
  CASE (Buffer, copy_from, buffer),
  CASE (Buffer, copy_from_on_stream, buffer),
  CASE (Buffer, memset_d8, buffer),
  CASE (Buffer, memset_d16, buffer),
  CASE (Buffer, memset_d32, buffer),
  CASE (Buffer, memset_d8_2d, buffer),
  CASE (Buffer, memset_d16_2d, buffer),
  CASE (Buffer, memset_d32_2d, buffer),
  CASE (Buffer, get_ipc_handle, buffer),
  CASE (Buffer, attach, buffer),
  CASE (Buffer, prefetch, buffer),
  CASE (Buffer, advise, buffer),
  CASE (HostBuffer, free, host_buffer),
  CASE (HostBuffer, unregister, host_buffer),
  CASE (HostBuffer, get_device_address, host_buffer),
  CASE (HostBuffer, read, host_buffer),
  CASE (HostBuffer, write, host_buffer),
  CASE (Array, free, array),
  CASE (Array, upload, array),
  CASE (Array, upload_from_address, array),
  CASE (Array, download, array),
  CASE (Array, download_to_address, array),
  CASE (Array, copy_from_buffer, array),
  CASE (Array, copy_to_buffer, array),
  CASE (Array, copy_from_array, array),
  CASE (StreamPool, allocate, stream_pool),
  CASE (StreamPool, trim, stream_pool),
  CASE (StreamPool, set_release_threshold, stream_pool),
  CASE (StreamPool, get_reserved_bytes_current, stream_pool),
  CASE (StreamPool, get_used_bytes_current, stream_pool),
  CASE (Context, synchronize, context),
  CASE (Context, get_limit, context),
  CASE (Context, set_limit, context),
  CASE (Context, get_cache_config, context),
  CASE (Context, set_cache_config, context),
  CASE (Context, get_memory_info, context),
  CASE (Context, get_stream_priority_range, context),
  CASE (Context, get_api_version, context),
  CASE (GraphicsResource, map, graphics_resource),
  CASE (GraphicsResource, unmap, graphics_resource),
  CASE (GraphicsResource, map_all, graphics_resource),
  CASE (GraphicsResource, unmap_all, graphics_resource),
  CASE (GraphicsResource, get_mapped_buffer, graphics_resource),
  CASE (GraphicsResource, get_mapped_array, graphics_resource),
  CASE (GraphicsResource, unregister, graphics_resource),
  CASE (Context, enable_peer_access, context),
  CASE (Context, disable_peer_access, context),
  CASE (Context, push, context),
  CASE (Context, get_address_range, context),
  CASE (Context, destroy, context),
  CASE (Device, get_attribute, device),
  CASE (Device, get_attributes, device),
  CASE (Device, can_access_peer, device),
  CASE (Device, get_primary_context, device),
  CASE (Device, set_primary_context_flags, device),
  CASE (Device, get_primary_context_state, device),
  CASE (Device, create_context, device),
  /* a DeviceData made by hand is a device described without figures */
  CASE (DeviceData, occupancy, device_data),
};

static void
test_method (gconstpointer data)
{
  const ByHandCase *c = data;
  g_autoptr(GObject) self = by_hand (c->get_type ());
  g_autoptr(GError) error = NULL;

  g_assert_false (c->call (self, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  assert_no_current_context ();
}

/* ------------------------------------------------------------ every class: properties and getters */

static GType (* const all_types[]) (void) = {
  gcuda_device_get_type, gcuda_context_get_type, gcuda_stream_get_type, gcuda_event_get_type,
  gcuda_buffer_get_type, gcuda_host_buffer_get_type, gcuda_copy_2d_get_type, gcuda_copy_3d_get_type,
  gcuda_copy_3d_peer_get_type, gcuda_program_get_type, gcuda_compiler_get_type, gcuda_module_get_type,
  gcuda_function_get_type, gcuda_kernel_args_get_type, gcuda_jit_options_get_type,
  gcuda_launch_config_get_type, gcuda_linker_get_type, gcuda_graph_get_type, gcuda_graph_exec_get_type,
  gcuda_stream_pool_get_type, gcuda_memory_pool_get_type, gcuda_host_memory_pool_get_type,
  gcuda_device_data_get_type, gcuda_occupancy_get_type, gcuda_array_get_type, gcuda_texture_get_type,
  gcuda_surface_get_type, gcuda_graphics_resource_get_type,
};

/* Every readable property of every class made by hand: no critical, no
 * crash (the getters behind them run). */
static void
test_properties (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (all_types); i++)
    {
      GType type = all_types[i] ();
      g_autoptr(GObject) self = by_hand (type);
      g_autofree GParamSpec **pspecs = NULL;
      guint n = 0;

      pspecs = g_object_class_list_properties (G_OBJECT_GET_CLASS (self), &n);
      for (guint j = 0; j < n; j++)
        {
          g_auto(GValue) value = G_VALUE_INIT;

          if (!(pspecs[j]->flags & G_PARAM_READABLE))
            continue;
          g_value_init (&value, pspecs[j]->value_type);
          g_object_get_property (self, pspecs[j]->name, &value);
        }
    }
}

/* The getters' documented neutral values for objects made by hand. */
static void
test_getters (void)
{
  g_autoptr(GCudaProgram) program = by_hand (GCUDA_TYPE_PROGRAM);
  g_autoptr(GCudaLinker) linker = by_hand (GCUDA_TYPE_LINKER);
  g_autoptr(GCudaModule) module = by_hand (GCUDA_TYPE_MODULE);
  g_autoptr(GCudaFunction) function = by_hand (GCUDA_TYPE_FUNCTION);
  g_autoptr(GCudaGraph) graph = by_hand (GCUDA_TYPE_GRAPH);
  g_autoptr(GCudaGraphExec) exec = by_hand (GCUDA_TYPE_GRAPH_EXEC);
  g_autoptr(GCudaStream) stream = by_hand (GCUDA_TYPE_STREAM);
  g_autoptr(GCudaEvent) event = by_hand (GCUDA_TYPE_EVENT);
  g_autoptr(GCudaBuffer) buffer = by_hand (GCUDA_TYPE_BUFFER);
  g_autoptr(GCudaHostBuffer) host = by_hand (GCUDA_TYPE_HOST_BUFFER);
  g_autoptr(GCudaArray) array = by_hand (GCUDA_TYPE_ARRAY);
  g_autoptr(GCudaTexture) texture = by_hand (GCUDA_TYPE_TEXTURE);
  g_autoptr(GCudaSurface) surface = by_hand (GCUDA_TYPE_SURFACE);

  /* a program without code */
  g_assert_cmpuint (g_bytes_get_size (gcuda_program_get_image (program)), ==, 0);
  g_assert_cmpstr (gcuda_program_get_log (program), ==, "");
  g_assert_cmpstr (gcuda_program_get_arch (program), ==, "");
  g_assert_null (gcuda_program_get_lowered_name (program, "k<int>"));
  g_assert_false (gcuda_program_is_from_cache (program));

  /* logs are empty strings, not NULL */
  g_assert_cmpstr (gcuda_linker_get_info_log (linker), ==, "");
  g_assert_cmpstr (gcuda_linker_get_error_log (linker), ==, "");
  g_assert_cmpstr (gcuda_module_get_info_log (module), ==, "");
  g_assert_cmpstr (gcuda_module_get_error_log (module), ==, "");

  /* no context, no handle, nothing counted */
  g_assert_null (gcuda_linker_get_context (linker));
  g_assert_null (gcuda_module_get_context (module));
  g_assert_null (gcuda_function_get_module (function));
  g_assert_null (gcuda_function_get_name (function));
  g_assert_cmpuint (gcuda_function_get_param_count (function), ==, 0);
  g_assert_cmpuint (gcuda_function_get_param_size (function, 0), ==, 0);
  g_assert_cmpuint (gcuda_function_get_param_offset (function, 0), ==, 0);
  g_assert_cmpint (gcuda_function_get_max_threads_per_block (function), ==, 0);
  g_assert_null (gcuda_graph_get_context (graph));
  g_assert_null (gcuda_graph_exec_get_context (exec));
  g_assert_null (gcuda_stream_get_context (stream));
  g_assert_cmpuint (gcuda_stream_get_handle (stream), ==, 0);
  g_assert_null (gcuda_event_get_context (event));
  g_assert_cmpuint (gcuda_event_get_handle (event), ==, 0);
  g_assert_null (gcuda_buffer_get_context (buffer));
  g_assert_cmpuint (gcuda_buffer_get_address (buffer), ==, 0);
  g_assert_cmpuint (gcuda_buffer_get_size (buffer), ==, 0);
  g_assert_false (gcuda_buffer_is_freed (buffer));
  g_assert_cmpuint (gcuda_host_buffer_get_address (host), ==, 0);
  g_assert_cmpuint (gcuda_host_buffer_get_size (host), ==, 0);
  g_assert_null (gcuda_array_get_context (array));
  g_assert_cmpuint (gcuda_array_get_size (array), ==, 0);
  g_assert_false (gcuda_array_is_freed (array));
  g_assert_null (gcuda_texture_get_array (texture));
  g_assert_null (gcuda_texture_get_buffer (texture));
  g_assert_cmpuint (gcuda_texture_get_handle (texture), ==, 0);
  g_assert_null (gcuda_surface_get_array (surface));
  g_assert_cmpuint (gcuda_surface_get_handle (surface), ==, 0);
}

/* ------------------------------------------------------------ the asynchronous forms: errors at finish */

typedef struct {
  GMainLoop *loop;
  GError *error;
  gboolean ok;
} AsyncResult;

static void
stream_synchronized (GObject *source, GAsyncResult *result, gpointer data)
{
  AsyncResult *r = data;

  r->ok = gcuda_stream_synchronize_finish (GCUDA_STREAM (source), result, &r->error);
  g_main_loop_quit (r->loop);
}

static void
event_waited (GObject *source, GAsyncResult *result, gpointer data)
{
  AsyncResult *r = data;

  r->ok = gcuda_event_synchronize_finish (GCUDA_EVENT (source), result, &r->error);
  g_main_loop_quit (r->loop);
}

static void
context_synchronized (GObject *source, GAsyncResult *result, gpointer data)
{
  AsyncResult *r = data;

  r->ok = gcuda_context_synchronize_finish (GCUDA_CONTEXT (source), result, &r->error);
  g_main_loop_quit (r->loop);
}

static void
downloaded (GObject *source, GAsyncResult *result, gpointer data)
{
  AsyncResult *r = data;

  r->ok = got_bytes (gcuda_buffer_download_finish (GCUDA_BUFFER (source), result, &r->error));
  g_main_loop_quit (r->loop);
}

static void
uploaded (GObject *source, GAsyncResult *result, gpointer data)
{
  AsyncResult *r = data;

  r->ok = gcuda_buffer_upload_finish (GCUDA_BUFFER (source), result, &r->error);
  g_main_loop_quit (r->loop);
}

static void
test_async (void)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GCudaStream) stream = by_hand (GCUDA_TYPE_STREAM);
  g_autoptr(GCudaEvent) event = by_hand (GCUDA_TYPE_EVENT);
  g_autoptr(GCudaContext) context = by_hand (GCUDA_TYPE_CONTEXT);
  g_autoptr(GCudaBuffer) buffer = by_hand (GCUDA_TYPE_BUFFER);
  g_autoptr(GBytes) bytes = g_bytes_new_static (ptx_text, 4);
  AsyncResult r = { loop, NULL, FALSE };

  gcuda_stream_synchronize_async (stream, NULL, stream_synchronized, &r);
  g_main_loop_run (loop);
  g_assert_false (r.ok);
  gcuda_assert_error_clear (&r.error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_event_synchronize_async (event, NULL, event_waited, &r);
  g_main_loop_run (loop);
  g_assert_false (r.ok);
  gcuda_assert_error_clear (&r.error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_context_synchronize_async (context, NULL, context_synchronized, &r);
  g_main_loop_run (loop);
  g_assert_false (r.ok);
  gcuda_assert_error_clear (&r.error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_buffer_download_async (buffer, 0, 1, NULL, NULL, downloaded, &r);
  g_main_loop_run (loop);
  g_assert_false (r.ok);
  gcuda_assert_error_clear (&r.error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);

  gcuda_buffer_upload_async (buffer, 0, bytes, NULL, NULL, uploaded, &r);
  g_main_loop_run (loop);
  g_assert_false (r.ok);
  gcuda_assert_error_clear (&r.error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------ objects made by hand as arguments (no driver) */

/* @call, with ERR as its error argument, fails with INVALID_ARGUMENT. */
#define ERR (&call_error_)
#define assert_invalid_argument(call) \
  G_STMT_START { \
    g_autoptr(GError) call_error_ = NULL; \
    g_assert_false (call); \
    gcuda_assert_error (call_error_, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT); \
  } G_STMT_END

static void
test_arguments (void)
{
  g_autoptr(GCudaBuffer) buffer = by_hand (GCUDA_TYPE_BUFFER);
  g_autoptr(GCudaHostBuffer) host = by_hand (GCUDA_TYPE_HOST_BUFFER);
  g_autoptr(GCudaArray) array = by_hand (GCUDA_TYPE_ARRAY);
  g_autoptr(GCudaStream) stream = by_hand (GCUDA_TYPE_STREAM);
  g_autoptr(GCudaContext) context = by_hand (GCUDA_TYPE_CONTEXT);
  g_autoptr(GCudaDevice) device = by_hand (GCUDA_TYPE_DEVICE);
  g_autoptr(GCudaProgram) program = by_hand (GCUDA_TYPE_PROGRAM);
  g_autoptr(GCudaArrayDescriptor) desc = gcuda_array_descriptor_new (16, 0, 0, GCUDA_ARRAY_FORMAT_FLOAT, 1,
                                                                     GCUDA_ARRAY_FLAGS_NONE);
  g_autoptr(GBytes) ptx = g_bytes_new_static (ptx_text, sizeof ptx_text);
  g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (context);
  g_autoptr(GCudaMemoryPool) pool = gcuda_memory_pool_new (context);
  g_autoptr(GCudaHostMemoryPool) host_pool = gcuda_host_memory_pool_new (context, 0);
  g_autofree guint8 *src = g_malloc0 (4096);
  g_autofree guint8 *dst = g_malloc0 (4096);

  /* copies: a buffer, host buffer or array made by hand as an endpoint, a
   * stream made by hand to copy on */
  {
    g_autoptr(GCudaCopy2D) copy = gcuda_copy_2d_new ();

    g_object_set (copy, "width-in-bytes", (guint64) 16, "height", (guint64) 4, "src-pitch", (guint64) 16,
                  "dst-pitch", (guint64) 16, NULL);
    gcuda_copy_2d_set_src_host (copy, (guint64) (guintptr) src, 4096);
    gcuda_copy_2d_set_dst_host (copy, (guint64) (guintptr) dst, 4096);
    assert_invalid_argument (gcuda_copy_2d_execute (copy, stream, ERR));
    gcuda_copy_2d_set_dst_buffer (copy, buffer);
    assert_invalid_argument (gcuda_copy_2d_execute (copy, NULL, ERR));
    gcuda_copy_2d_set_dst_host_buffer (copy, host);
    assert_invalid_argument (gcuda_copy_2d_execute (copy, NULL, ERR));
    gcuda_copy_2d_set_dst_array (copy, array);
    assert_invalid_argument (gcuda_copy_2d_execute (copy, NULL, ERR));
  }
  {
    g_autoptr(GCudaCopy3D) copy = gcuda_copy_3d_new ();

    g_object_set (copy, "width-in-bytes", (guint64) 16, "height", (guint64) 1, "depth", (guint64) 1, NULL);
    gcuda_copy_3d_set_src_buffer (copy, buffer);
    gcuda_copy_3d_set_dst_host (copy, (guint64) (guintptr) dst, 4096);
    assert_invalid_argument (gcuda_copy_3d_execute (copy, NULL, ERR));
  }

  /* textures and surfaces over memory made by hand */
  assert_invalid_argument (got (gcuda_texture_new_from_buffer (buffer, GCUDA_ARRAY_FORMAT_FLOAT, 1, NULL, ERR)));
  assert_invalid_argument (got (gcuda_texture_new_from_pitched (buffer, GCUDA_ARRAY_FORMAT_FLOAT, 1, 16, 2, 64,
                                                                NULL, ERR)));
  assert_invalid_argument (got (gcuda_texture_new_from_array (array, NULL, ERR)));
  assert_invalid_argument (got (gcuda_surface_new (array, ERR)));

  /* a program, device or device data made by hand */
  assert_invalid_argument (got (gcuda_module_new_from_program (NULL, program, ERR)));
  assert_invalid_argument (got (gcuda_device_data_new (device, ERR)));

  /* a context made by hand: refused where it is first needed */
  gcuda_compiler_set_cache_dir (compiler, "");
  assert_invalid_argument (got (gcuda_compiler_compile (compiler, "__global__ void k() {}", ERR)));
  assert_invalid_argument (got (gcuda_memory_pool_allocate (pool, 64, ERR)));
  assert_invalid_argument (got (gcuda_host_memory_pool_allocate (host_pool, 64, ERR)));
  assert_invalid_argument (got (gcuda_buffer_new (context, 64, ERR)));
  assert_invalid_argument (got (gcuda_host_buffer_new_pagelocked (context, 64, 0, ERR)));
  assert_invalid_argument (got (gcuda_stream_new (context, 0, 0, ERR)));
  assert_invalid_argument (got (gcuda_event_new (context, 0, ERR)));
  assert_invalid_argument (got (gcuda_array_new (context, desc, ERR)));
  assert_invalid_argument (got (gcuda_linker_new (context, NULL, ERR)));
  assert_invalid_argument (got (gcuda_stream_pool_new (context, ERR)));
  assert_invalid_argument (got (gcuda_module_new_from_data (context, ptx, NULL, ERR)));
  assert_invalid_argument (gcuda_profiler_start (context, ERR));
  assert_invalid_argument (gcuda_profiler_stop (context, ERR));
  assert_no_current_context ();
}

/* ------------------------------------------------------------ with memory (mock driver) */

static void
test_mock_arguments (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaBuffer) by_hand_buffer = by_hand (GCUDA_TYPE_BUFFER);
  g_autoptr(GCudaStream) stream = by_hand (GCUDA_TYPE_STREAM);
  guint8 host[64] = { 0 };

  if (!gcuda_test_require_gpu ())
    return;
  buffer = gcuda_buffer_new (NULL, 64, &error);
  g_assert_no_error (error);

  /* a stream made by hand: INVALID_ARGUMENT, not CONTEXT_MISMATCH */
  assert_invalid_argument (gcuda_buffer_memset_d8 (buffer, 0, 0, 8, stream, ERR));
  assert_invalid_argument (gcuda_buffer_upload_from_address_on_stream (buffer, 0, (guint64) (guintptr) host, 8,
                                                                       stream, ERR));
  assert_invalid_argument (gcuda_buffer_download_to_address_on_stream (buffer, 0, (guint64) (guintptr) host, 8,
                                                                       stream, ERR));
  assert_invalid_argument (gcuda_buffer_copy_from_on_stream (buffer, 0, buffer, 8, 8, stream, ERR));

  /* a buffer made by hand as the source of a copy */
  assert_invalid_argument (gcuda_buffer_copy_from (buffer, 0, by_hand_buffer, 0, 8, ERR));

  /* a destroyed context given to a pool: refused at the first allocation */
  {
    g_autoptr(GCudaDevice) device = gcuda_test_get_device ();
    g_autoptr(GCudaContext) context = gcuda_device_create_context (device, 0, &error);
    g_autoptr(GCudaMemoryPool) pool = NULL;
    g_autoptr(GCudaHostMemoryPool) host_pool = NULL;

    g_assert_no_error (error);
    g_assert_true (gcuda_context_destroy (context, &error));
    g_assert_no_error (error);
    pool = gcuda_memory_pool_new (context);
    host_pool = gcuda_host_memory_pool_new (context, 0);
    g_assert_false (got (gcuda_memory_pool_allocate (pool, 64, &error)));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
    g_assert_cmpuint (gcuda_memory_pool_allocate_address (pool, 64, &error), ==, 0);
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
    g_assert_false (got (gcuda_host_memory_pool_allocate (host_pool, 64, &error)));
    gcuda_assert_error_clear (&error, GCUDA_ERROR, GCUDA_ERROR_CONTEXT_DESTROYED);
  }
  assert_no_current_context ();
}

/* Memsets check the address the driver gets: a view's start plus the
 * offset, not the offset alone. */
static void
test_mock_memset_view_alignment (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCudaBuffer) buffer = NULL;
  g_autoptr(GCudaBuffer) odd = NULL;
  g_autoptr(GCudaBuffer) two = NULL;

  if (!gcuda_test_require_gpu ())
    return;
  buffer = gcuda_buffer_new (NULL, 256, &error);
  g_assert_no_error (error);
  odd = gcuda_buffer_new_view (buffer, 1, 64, &error);
  g_assert_no_error (error);
  two = gcuda_buffer_new_view (buffer, 2, 64, &error);
  g_assert_no_error (error);

  assert_invalid_argument (gcuda_buffer_memset_d16 (odd, 0, 0, 2, NULL, ERR));
  assert_invalid_argument (gcuda_buffer_memset_d32 (two, 0, 0, 2, NULL, ERR));
  assert_invalid_argument (gcuda_buffer_memset_d16_2d (odd, 0, 16, 0, 2, 2, NULL, ERR));
  assert_invalid_argument (gcuda_buffer_memset_d32_2d (two, 0, 16, 0, 2, 2, NULL, ERR));
  /* odd view + odd offset, view at 2 + offset 2: aligned addresses */
  g_assert_true (gcuda_buffer_memset_d16 (odd, 1, 0, 2, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (gcuda_buffer_memset_d32 (two, 2, 0, 2, NULL, &error));
  g_assert_no_error (error);
  assert_no_current_context ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (by_hand_cases); i++)
    {
      /* one level under /by-hand/nogpu/: GLib's -p does not reach deeper suites */
      g_autofree char *path = g_strdup_printf ("/by-hand/nogpu/%s", by_hand_cases[i].name);

      g_test_add_data_func (path, &by_hand_cases[i], test_method);
    }
  g_test_add_func ("/by-hand/nogpu/properties", test_properties);
  g_test_add_func ("/by-hand/nogpu/getters", test_getters);
  g_test_add_func ("/by-hand/nogpu/async", test_async);
  g_test_add_func ("/by-hand/nogpu/arguments", test_arguments);
  g_test_add_func ("/by-hand/mock/arguments", test_mock_arguments);
  g_test_add_func ("/by-hand/mock/memset-view-alignment", test_mock_memset_view_alignment);

  return g_test_run ();
}
