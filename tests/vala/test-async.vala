/* test-async.vala: every async pair from Vala, with yield, and with a
 * cancellable cancelled before the call (GLib.IOError.CANCELLED); the
 * kernel bundles' loads also with one cancelled while the load runs.
 *
 * meson runs it with the driver missing (nogpu: compile_async, which needs
 * NVRTC alone), on the mock driver with GCUDA_MOCK_KERNELS=1 (mock: the
 * kernel bundles' loads, Module.from_resource_async and
 * Module.from_directory_async) and on the real driver (gpu: everything;
 * skipped without a GPU, failed when GCUDA_TEST_REQUIRE_GPU=1).
 *
 * Environment (tests/vala/meson.build): GCUDA_TEST_BUNDLE_GRESOURCES, the
 * .gresource files of tests/c's bundles, and GCUDA_TEST_BUNDLE_DIR, the
 * directory of its PTX-only bundle (PTX for compute_80).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

const string ADD_ONE = """
extern "C" __global__ void add_one(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1;
}
""";

static bool gpu_required () {
    return Environment.get_variable ("GCUDA_TEST_REQUIRE_GPU") == "1";
}

static string? no_gpu_reason = null;
static bool gpu_probed = false;

static bool require_gpu () {
    if (!gpu_probed) {
        gpu_probed = true;
        try {
            if (GCuda.Device.get_count () < 1)
                no_gpu_reason = "the driver reports no CUDA device";
        } catch (GLib.Error e) {
            no_gpu_reason = "%s (%s %d)".printf (e.message, e.domain.to_string (), e.code);
        }
    }
    if (no_gpu_reason == null)
        return true;
    if (gpu_required ())
        Test.fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but no GPU is usable: %s", no_gpu_reason);
    else
        Test.skip_printf ("no GPU: %s", no_gpu_reason);
    return false;
}

static GCuda.Compiler sm90_compiler () {
    var compiler = new GCuda.Compiler (null);
    compiler.set_arch ("sm_90");
    compiler.set_target (GCuda.ProgramKind.PTX);
    compiler.set_cache_dir ("");
    return compiler;
}

static string? no_nvrtc_reason = null;
static bool nvrtc_probed = false;

static bool require_nvrtc () {
    if (!nvrtc_probed) {
        nvrtc_probed = true;
        try {
            sm90_compiler ().compile ("__global__ void probe() {}\n");
        } catch (GCuda.Error.NVRTC_NOT_FOUND e) {
            no_nvrtc_reason = e.message;
        } catch (GLib.Error e) {
            error ("probing NVRTC: %s", e.message);
        }
    }
    if (no_nvrtc_reason == null)
        return true;
    if (gpu_required ())
        Test.fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but NVRTC is missing: %s", no_nvrtc_reason);
    else
        Test.skip_printf ("no NVRTC: %s", no_nvrtc_reason);
    return false;
}

delegate void Start (owned AsyncReadyCallback done);
delegate void Finish (AsyncResult result) throws GLib.Error;

/* Runs one async test body to its end in a main loop; its error fails the test. */
static void drive (Start start, Finish finish) {
    var loop = new MainLoop ();
    GLib.Error? failure = null;
    start ((obj, res) => {
        try {
            finish (res);
        } catch (GLib.Error e) {
            failure = e;
        }
        loop.quit ();
    });
    loop.run ();
    if (failure != null)
        error ("%s (%s %d)", failure.message, failure.domain.to_string (), failure.code);
}

static GLib.Cancellable cancelled () {
    var c = new GLib.Cancellable ();
    c.cancel ();
    return c;
}

static void expect_cancelled (GLib.Error? e, string what) {
    if (e == null || !(e is GLib.IOError.CANCELLED))
        error ("%s with a cancelled cancellable: expected G_IO_ERROR_CANCELLED, got %s", what,
               e == null ? "success" : e.message);
}

static uint8[] random_ints (int n) {
    var data = new uint8[n * 4];
    for (int i = 0; i < data.length; i++)
        data[i] = (uint8) Random.int_range (0, 128);
    return data;
}

static int32 int_at (uint8[] data, int i) {
    return (int32) ((uint32) data[4 * i] | (uint32) data[4 * i + 1] << 8 |
                    (uint32) data[4 * i + 2] << 16 | (uint32) data[4 * i + 3] << 24);
}

/* ------------------------------------------------------------ Compiler.compile_async */

static async void compile_body () throws GLib.Error {
    var program = yield sm90_compiler ().compile_async (ADD_ONE, null);
    assert_true (program.get_kind () == GCuda.ProgramKind.PTX);
    unowned uint8[] image = program.get_image ().get_data ();
    var text = new uint8[image.length + 1];  /* NUL-terminated, whatever the image ends with */
    Memory.copy (text, image, image.length);
    assert_true (((string) text).contains (".entry add_one"));
    GLib.Error? got = null;
    try {
        yield sm90_compiler ().compile_async (ADD_ONE, cancelled ());
    } catch (GLib.Error e) {
        got = e;
    }
    expect_cancelled (got, "compile_async");
}

static void test_compile_async () {
    if (!require_nvrtc ())
        return;
    drive ((done) => compile_body.begin ((owned) done), (r) => compile_body.end (r));
}

/* ------------------------------------------------------------ Buffer.upload_async, download_async */

static async void buffer_body () throws GLib.Error {
    const int N = 4096;
    var data = random_ints (N);
    var buffer = new GCuda.Buffer (null, N * 4);
    assert_true (yield buffer.upload_async (0, new GLib.Bytes (data), null, null));
    var back = yield buffer.download_async (0, N * 4, null, null);
    assert_true (back.compare (new GLib.Bytes (data)) == 0);
    GLib.Error? got = null;
    try {
        yield buffer.upload_async (0, new GLib.Bytes (data), null, cancelled ());
    } catch (GLib.Error e) {
        got = e;
    }
    expect_cancelled (got, "upload_async");
    got = null;
    try {
        yield buffer.download_async (0, N * 4, null, cancelled ());
    } catch (GLib.Error e) {
        got = e;
    }
    expect_cancelled (got, "download_async");
}

static void test_buffer_async () {
    if (!require_gpu ())
        return;
    drive ((done) => buffer_body.begin ((owned) done), (r) => buffer_body.end (r));
}

/* ------------------------------------------------------------ Module.from_source_async, Module.from_data_async,
 * Stream.synchronize_async, Event.synchronize_async, Context.synchronize_async */

static async void module_body () throws GLib.Error {
    const int N = 1000;
    var ctx = GCuda.Context.get_default ();
    var module = yield new GCuda.Module.from_source_async (ctx, ADD_ONE, null, null);
    var program = yield new GCuda.Compiler (ctx).compile_async (ADD_ONE, null);
    var loaded = yield new GCuda.Module.from_data_async (ctx, program.get_image (), null, null);

    var data = random_ints (N);
    var buffer = new GCuda.Buffer (ctx, N * 4);
    buffer.upload (0, data);
    var stream = new GCuda.Stream (ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    foreach (var m in new GCuda.Module[] { module, loaded }) {
        var args = new GCuda.KernelArgs ();
        args.add_buffer (buffer);
        args.add_int32 (N);
        m.get_function ("add_one").launch ((N + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args);
    }
    var event = new GCuda.Event (ctx, GCuda.EventFlags.DEFAULT);
    event.record (stream);
    assert_true (yield event.synchronize_async (null));
    assert_true (yield stream.synchronize_async (null));
    assert_true (yield ctx.synchronize_async (null));
    var back = buffer.download (0, N * 4).get_data ();
    for (int i = 0; i < N; i++)
        if (int_at (back, i) != int_at (data, i) + 2)
            error ("element %d: %d, expected %d", i, int_at (back, i), int_at (data, i) + 2);

    GLib.Error? got = null;
    try { yield new GCuda.Module.from_source_async (ctx, ADD_ONE, null, cancelled ()); } catch (GLib.Error e) { got = e; }
    expect_cancelled (got, "Module.from_source_async");
    got = null;
    try { yield new GCuda.Module.from_data_async (ctx, program.get_image (), null, cancelled ()); } catch (GLib.Error e) { got = e; }
    expect_cancelled (got, "Module.from_data_async");
    got = null;
    try { yield event.synchronize_async (cancelled ()); } catch (GLib.Error e) { got = e; }
    expect_cancelled (got, "Event.synchronize_async");
    got = null;
    try { yield stream.synchronize_async (cancelled ()); } catch (GLib.Error e) { got = e; }
    expect_cancelled (got, "Stream.synchronize_async");
    got = null;
    try { yield ctx.synchronize_async (cancelled ()); } catch (GLib.Error e) { got = e; }
    expect_cancelled (got, "Context.synchronize_async");
}

static void test_module_stream_event_async () {
    if (!require_gpu () || !require_nvrtc ())
        return;
    drive ((done) => module_body.begin ((owned) done), (r) => module_body.end (r));
}

/* ------------------------------------------------------------ Module.from_resource_async, Module.from_directory_async */

const string PTX_RESOURCE = "/org/gnome/GCuda/tests/ptx";
const string OTHERS_RESOURCE = "/org/gnome/GCuda/tests/others";  /* sm_75 and sm_80 cubins only */

static async GCuda.Module load_resource (string path, GLib.Cancellable? cancellable) throws GLib.Error {
    return yield new GCuda.Module.from_resource_async (null, path, null, cancellable);
}

static async GCuda.Module load_directory (GLib.File dir, GLib.Cancellable? cancellable) throws GLib.Error {
    return yield new GCuda.Module.from_directory_async (null, dir, null, cancellable);
}

/* __CUDA_ARCH__ as report_arch (tests/c/bundles/report-arch.cu) writes it
 * from @module, or -2 where the launch ran nothing (the mock driver). */
static int run_report_arch (GCuda.Module module) throws GLib.Error {
    var result = new GCuda.Buffer (null, 4);
    result.upload (0, new uint8[] { 0xfe, 0xff, 0xff, 0xff });  /* -2 */
    var args = new GCuda.KernelArgs ();
    args.add_buffer (result);
    module.get_function ("report_arch").launch (1, 1, 1, 1, 1, 1, 0, null, args);
    GCuda.Context.get_default ().synchronize ();
    return int_at (result.download (0, 4).get_data (), 0);
}

static async void bundle_body () throws GLib.Error {
    bool mock = Environment.get_variable ("GCUDA_MOCK_KERNELS") == "1";
    var dir = GLib.File.new_for_path (Environment.get_variable ("GCUDA_TEST_BUNDLE_DIR"));
    int major, minor;
    GCuda.Device.get (0).get_compute_capability (out major, out minor);
    bool runs_ptx = major * 10 + minor >= 80;

    /* yield: the module of the bundle's PTX (compute_80), from the resource and from the directory */
    GCuda.Module[] modules = {};
    GLib.Error? got = null;
    try {
        modules += yield load_resource (PTX_RESOURCE, null);
        modules += yield load_directory (dir, null);
    } catch (GCuda.Error.NOT_SUPPORTED e) {
        got = e;
    }
    if (!runs_ptx) {
        /* a device below sm_80 runs nothing of it */
        if (got == null)
            error ("compute_80 PTX loaded on sm_%d%d", major, minor);
    } else {
        if (got != null)
            error ("loading the PTX bundle: %s", got.message);
        assert_true (modules.length == 2);
        foreach (var m in modules) {
            assert_true (m.get_context () == GCuda.Context.get_default ());
            m.get_function ("axpb");
            /* the PTX compiled for this device reports compute_80 */
            int arch = run_report_arch (m);
            if (arch != (mock ? -2 : 800))
                error ("report_arch gave %d", arch);
        }
    }
    /* an error comes through the finish: no image for the device (from
     * sm_90 on, neither cubin runs: a cubin needs the device's major version) */
    if (major > 8) {
        got = null;
        try { yield load_resource (OTHERS_RESOURCE, null); } catch (GLib.Error e) { got = e; }
        if (got == null || !(got is GCuda.Error.NOT_SUPPORTED))
            error ("%s: expected GCUDA_ERROR_NOT_SUPPORTED, got %s", OTHERS_RESOURCE,
                   got == null ? "a module" : got.message);
    }

    /* cancelled before the call */
    got = null;
    try { yield load_resource (PTX_RESOURCE, cancelled ()); } catch (GLib.Error e) { got = e; }
    expect_cancelled (got, "Module.from_resource_async");
    got = null;
    try { yield load_directory (dir, cancelled ()); } catch (GLib.Error e) { got = e; }
    expect_cancelled (got, "Module.from_directory_async");

    /* cancelled while the load runs on its worker thread: the task completes
     * with CANCELLED (whether or not the load had finished) */
    for (int i = 0; i < 2; i++) {
        var cancellable = new GLib.Cancellable ();
        SourceFunc resume = bundle_body.callback;
        got = null;
        AsyncReadyCallback done = (obj, res) => {
            try {
                if (i == 0)
                    load_resource.end (res);
                else
                    load_directory.end (res);
            } catch (GLib.Error e) {
                got = e;
            }
            resume ();
        };
        if (i == 0)
            load_resource.begin (PTX_RESOURCE, cancellable, done);
        else
            load_directory.begin (dir, cancellable, done);
        cancellable.cancel ();
        yield;
        expect_cancelled (got, i == 0 ? "Module.from_resource_async, cancelled during the load"
                                      : "Module.from_directory_async, cancelled during the load");
    }
}

static void test_bundle_async () {
    if (!require_gpu ())
        return;
    /* compile-bundle leaves the bundles empty where the build machine had no NVRTC */
    var dir = Environment.get_variable ("GCUDA_TEST_BUNDLE_DIR");
    if (dir == null || !FileUtils.test (Path.build_filename (dir, "manifest"), FileTest.IS_REGULAR)) {
        /* no NVRTC here either: the usual skip, which says how to provide it */
        if (!require_nvrtc ())
            return;
        if (gpu_required ())
            Test.fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but the kernel bundle %s is empty (no NVRTC at build time)",
                              dir ?? "(GCUDA_TEST_BUNDLE_DIR unset)");
        else
            Test.skip_printf ("the kernel bundle %s is empty: it was built without NVRTC (rebuild where NVRTC loads)",
                              dir ?? "(GCUDA_TEST_BUNDLE_DIR unset)");
        return;
    }
    foreach (var path in Environment.get_variable ("GCUDA_TEST_BUNDLE_GRESOURCES").split (":")) {
        try {
            GLib.resources_register (GLib.Resource.load (path));
        } catch (GLib.Error e) {
            error ("%s: %s", path, e.message);
        }
    }
    drive ((done) => bundle_body.begin ((owned) done), (r) => bundle_body.end (r));
}

int main (string[] args) {
    Test.init (ref args);
    Test.add_func ("/vala/async/compile", test_compile_async);
    /* with the driver made unloadable (vala-async-nvrtc) only the compile
     * runs: the others would fail under GCUDA_TEST_REQUIRE_GPU=1 there */
    if (GLib.Environment.get_variable ("GCUDA_TEST_DRIVER") != "missing") {
        Test.add_func ("/vala/async/buffer", test_buffer_async);
        Test.add_func ("/vala/async/module-stream-event-context", test_module_stream_event_async);
        Test.add_func ("/vala/async/module-bundle", test_bundle_async);
    }
    return Test.run ();
}
