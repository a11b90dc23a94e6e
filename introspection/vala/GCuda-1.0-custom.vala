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
	[CCode (cheader_filename = "gcuda.h")]
	[Version (since = "1.0")]
	public static GCuda.Module source_module_new (GCuda.Context? context, string source, [CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[]? options) throws GLib.Error;
	[CCode (cheader_filename = "gcuda.h", finish_name = "gcuda_source_module_new_finish")]
	[Version (since = "1.0")]
	public static async GCuda.Module source_module_new_async (GCuda.Context? context, string source, [CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[]? options, GLib.Cancellable? cancellable) throws GLib.Error;
}
