// Declarations vapigen cannot derive from the GIR: see GCuda-1.0.metadata.
// SPDX-License-Identifier: LGPL-2.1-or-later
namespace GCuda {
	public sealed class Compiler : GLib.Object {
		[Version (since = "1.0")]
		public void set_options ([CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[]? options);
		[Version (since = "1.0")]
		public void set_include_dirs ([CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[]? include_dirs);
		[NoAccessorMethod]
		[Version (since = "1.0")]
		public string[] options { owned get; set; }
		[NoAccessorMethod]
		[Version (since = "1.0")]
		public string[] include_dirs { owned get; set; }
	}
	public sealed class Module : GLib.Object {
		[CCode (has_construct_function = false)]
		[Version (since = "1.0")]
		public Module.from_source (GCuda.Context? context, string source, [CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[]? options) throws GLib.Error;
		[CCode (cname = "gcuda_module_new_from_source_async", finish_name = "gcuda_module_new_from_source_finish", has_construct_function = false)]
		[Version (since = "1.0")]
		public async Module.from_source_async (GCuda.Context? context, string source, [CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[]? options, GLib.Cancellable? cancellable) throws GLib.Error;
	}
}
