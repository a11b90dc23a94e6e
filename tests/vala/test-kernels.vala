/* test-kernels.vala: compiling and launching kernels from Vala.
 *
 * meson runs it with GCUDA_TEST_DRIVER=missing (nogpu: what NVRTC does
 * alone, for sm_90, and DRIVER_NOT_FOUND from what needs a device) and
 * without (gpu: the same NVRTC tests, then compile + launch + check against
 * host computation on random data; skipped without a GPU, failed when
 * GCUDA_TEST_REQUIRE_GPU=1).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

const string ADD = """
__global__ void add(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
""";

/* y = a * x + b on ints: exact, so any wrong argument shows */
const string AXPB = """
__global__ void axpb(int *y, const int *x, int a, long long b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = (int) (a * x[i] + b);
}
""";

static bool gpu_required () {
    return Environment.get_variable ("GCUDA_TEST_REQUIRE_GPU") == "1";
}

static string? no_gpu_reason = null;
static bool gpu_probed = false;

/* For tests that need a CUDA device: true when one is usable, otherwise the
 * test is skipped (or failed under GCUDA_TEST_REQUIRE_GPU=1) and must return. */
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

/* A compiler for sm_90 (no device needed), with the cache disabled so that
 * NVRTC really runs. */
static GCuda.Compiler sm90_compiler (GCuda.ProgramKind target) {
    var compiler = new GCuda.Compiler (null);
    compiler.set_arch ("sm_90");
    compiler.set_target (target);
    compiler.set_cache_dir ("");
    return compiler;
}

static string? no_nvrtc_reason = null;
static bool nvrtc_probed = false;

/* For tests that compile: false (the test skipped, or failed under
 * GCUDA_TEST_REQUIRE_GPU=1) when no NVRTC library is found. */
static bool require_nvrtc () {
    if (!nvrtc_probed) {
        nvrtc_probed = true;
        try {
            sm90_compiler (GCuda.ProgramKind.PTX).compile ("__global__ void probe() {}\n");
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

delegate void Thrower () throws GLib.Error;

/* Runs @fn, which must throw an error in @domain with @code; returns its message. */
static string assert_throws (Quark domain, int code, string what, Thrower fn) {
    try {
        fn ();
    } catch (GLib.Error e) {
        if (e.domain != domain || e.code != code)
            error ("%s: expected %s %d, got %s %d: %s", what, domain.to_string (), code,
                   e.domain.to_string (), e.code, e.message);
        assert_true (e.message.length > 0);
        return e.message;
    }
    error ("%s: expected %s %d, nothing was thrown", what, domain.to_string (), code);
}

/* The text of a PTX image (up to its NUL) */
static string text_of (Bytes image) {
    unowned uint8[] data = image.get_data ();
    var text = new StringBuilder ();
    foreach (var c in data) {
        if (c == 0)
            break;
        text.append_c ((char) c);
    }
    return text.str;
}

static unowned uint8[] bytes_of_floats (float[] values) {
    unowned uint8[] bytes = (uint8[]) values;
    bytes.length = values.length * (int) sizeof (float);
    return bytes;
}

static unowned uint8[] bytes_of_ints (int32[] values) {
    unowned uint8[] bytes = (uint8[]) values;
    bytes.length = values.length * (int) sizeof (int32);
    return bytes;
}

static float[] download_floats (GCuda.Buffer buf, int n) throws GLib.Error {
    var bytes = buf.download (0, n * sizeof (float));
    assert_true (bytes.get_size () == n * sizeof (float));
    var values = new float[n];
    Memory.copy (values, bytes.get_data (), n * sizeof (float));
    return values;
}

static int32[] download_ints (GCuda.Buffer buf, int n) throws GLib.Error {
    var bytes = buf.download (0, n * sizeof (int32));
    assert_true (bytes.get_size () == n * sizeof (int32));
    var values = new int32[n];
    Memory.copy (values, bytes.get_data (), n * sizeof (int32));
    return values;
}

static float[] random_floats (int n) {
    var values = new float[n];
    for (int i = 0; i < n; i++)
        values[i] = (float) Random.double_range (-100.0, 100.0);
    return values;
}

static int32[] random_ints (int n) {
    var values = new int32[n];
    for (int i = 0; i < n; i++)
        values[i] = Random.int_range (-10000, 10000);
    return values;
}

static GCuda.Module load_module (GCuda.Context context, string source) throws GLib.Error {
    /* cubin for the context's device (the default arch) */
    var program = new GCuda.Compiler (context).compile (source);
    return new GCuda.Module.from_program (context, program);
}

/* Runs @loop until @done is set or 30 s have passed */
static void run_loop (MainLoop loop, ref bool done) {
    bool timed_out = false;
    var timeout = Timeout.add_seconds (30, () => {
        timed_out = true;
        loop.quit ();
        return Source.REMOVE;
    });
    if (!done)
        loop.run ();
    if (!timed_out)
        Source.remove (timeout);
    assert_false (timed_out);
}

/* ------------------------------------------------------------ NVRTC only */

static void test_ptx_sm90 () {
    if (!require_nvrtc ())
        return;
    try {
        var program = sm90_compiler (GCuda.ProgramKind.PTX).compile (ADD);
        assert_true (program.get_kind () == GCuda.ProgramKind.PTX);
        assert_cmpstr (program.get_arch (), CompareOperator.EQ, "sm_90");
        assert_false (program.is_from_cache ());
        var ptx = text_of (program.get_image ());
        assert_true (Regex.match_simple ("^\\s*\\.target\\s+sm_90\\b", ptx, RegexCompileFlags.MULTILINE));
        /* extern "C" by default: the entry keeps its C name */
        assert_true (Regex.match_simple ("\\.entry\\s+add\\s*\\(", ptx));
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_cubin_sm90 () {
    if (!require_nvrtc ())
        return;
    try {
        var program = sm90_compiler (GCuda.ProgramKind.CUBIN).compile (AXPB);
        assert_true (program.get_kind () == GCuda.ProgramKind.CUBIN);
        unowned uint8[] image = program.get_image ().get_data ();
        assert_true (image.length > 100);
        assert_true (image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' && image[3] == 'F');
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_syntax_error () {
    if (!require_nvrtc ())
        return;
    var compiler = sm90_compiler (GCuda.ProgramKind.CUBIN);
    try {
        compiler.compile ("__global__ void broken(int *p) { p[0] = 1 +; }\n");
        assert_not_reached ();
    } catch (GCuda.CompileError.COMPILATION e) {
        assert_true ("expected an expression" in e.message);
        var log = compiler.get_last_log ();
        assert_nonnull (log);
        assert_true ("expected an expression" in log);
    } catch (GLib.Error e) {
        error ("unexpected error: %s (%s %d)", e.message, e.domain.to_string (), e.code);
    }
}

static void test_name_expressions () {
    if (!require_nvrtc ())
        return;
    try {
        var compiler = sm90_compiler (GCuda.ProgramKind.PTX);
        compiler.set_no_extern_c (true);
        compiler.add_name_expression ("scale<int>");
        compiler.add_name_expression ("scale<double>");
        var program = compiler.compile ("""
template <typename T> __global__ void scale(T *p, T factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= factor;
}
""");
        var ptx = text_of (program.get_image ());
        var int_name = program.get_lowered_name ("scale<int>");
        var double_name = program.get_lowered_name ("scale<double>");
        assert_nonnull (int_name);
        assert_nonnull (double_name);
        assert_true (int_name.has_prefix ("_Z"));
        assert_cmpstr (int_name, CompareOperator.NE, double_name);
        assert_true ((".entry %s(".printf (int_name)) in ptx);
        assert_true ((".entry %s(".printf (double_name)) in ptx);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_compile_async () {
    if (!require_nvrtc ())
        return;
    var compiler = sm90_compiler (GCuda.ProgramKind.PTX);
    var loop = new MainLoop ();
    GCuda.Program? program = null;
    GLib.Error? failure = null;
    bool done = false;
    int ticks = 0;
    var tick = Timeout.add (1, () => {
        ticks++;
        return Source.CONTINUE;
    });
    compiler.compile_async.begin (AXPB, null, (obj, res) => {
        try {
            program = compiler.compile_async.end (res);
        } catch (GLib.Error e) {
            failure = e.copy ();
        }
        done = true;
        loop.quit ();
    });
    run_loop (loop, ref done);
    if (failure != null)
        error ("compile_async: %s", failure.message);
    assert_nonnull (program);
    assert_true (Regex.match_simple ("\\.entry\\s+axpb\\s*\\(", text_of (program.get_image ())));

    /* a failed compile arrives as the error of _finish */
    done = false;
    compiler.compile_async.begin ("__global__ void broken( {}\n", null, (obj, res) => {
        try {
            compiler.compile_async.end (res);
        } catch (GLib.Error e) {
            failure = e.copy ();
        }
        done = true;
        loop.quit ();
    });
    run_loop (loop, ref done);
    Source.remove (tick);
    assert_true (failure != null);
    assert_true (failure is GCuda.CompileError.COMPILATION);
    assert_true (ticks > 0);
}

static void test_kernel_args () {
    var args = new GCuda.KernelArgs ();
    assert_true (args.get_count () == 0);
    assert_true (args.add_int8 (-1) == 0);
    assert_true (args.add_int32 (5) == 1);
    assert_true (args.add_uint64 (1UL << 40) == 2);
    assert_true (args.add_float (1.5f) == 3);
    assert_true (args.add_double (2.5) == 4);
    assert_true (args.add_pointer (0x1000) == 5);
    assert_true (args.get_count () == 6);
    try {
        args.set_int32 (1, 7);
        args.set_uint64 (2, 1);
        args.set_float (3, 0.5f);
        args.set_double (4, 0.25);
        args.set_uint64 (5, 0x2000);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
    var domain = GCuda.Error.quark ();
    var code = (int) GCuda.Error.KERNEL_ARGUMENTS;
    assert_throws (domain, code, "int32 over int8", () => { args.set_int32 (0, 1); });
    assert_throws (domain, code, "double over float", () => { args.set_double (3, 1.0); });
    assert_throws (domain, code, "int64 over int32", () => { args.set_int64 (1, 1); });
    assert_throws (domain, code, "index out of range", () => { args.set_int32 (6, 1); });
    args.clear ();
    assert_true (args.get_count () == 0);
}

static void test_garbage_image () {
    /* refused before the driver is involved */
    var garbage = new Bytes ("this is not device code at all".data);
    try {
        new GCuda.Module.from_data (null, garbage, null);
        assert_not_reached ();
    } catch (GCuda.Error.INVALID_ARGUMENT e) {
    } catch (GLib.Error e) {
        error ("unexpected error: %s (%s %d)", e.message, e.domain.to_string (), e.code);
    }
}

/* GCUDA_TEST_DRIVER=missing: compiling for sm_90 works, loading does not */
static void test_no_driver () {
    if (!require_nvrtc ())
        return;
    var domain = GCuda.Error.quark ();
    var code = (int) GCuda.Error.DRIVER_NOT_FOUND;
    /* the default arch is the context's device's */
    assert_throws (domain, code, "default arch", () => { new GCuda.Compiler (null).compile (ADD); });
    assert_throws (domain, code, "source module", () => { new GCuda.Module.from_source (null, ADD, null); });
    try {
        var cubin = sm90_compiler (GCuda.ProgramKind.CUBIN).compile (ADD);
        var ptx = sm90_compiler (GCuda.ProgramKind.PTX).compile (ADD);
        assert_throws (domain, code, "cubin", () => { new GCuda.Module.from_program (null, cubin); });
        assert_throws (domain, code, "PTX", () => { new GCuda.Module.from_data (null, ptx.get_image (), null); });
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* ------------------------------------------------------------ GPU */

static void test_vector_add () {
    if (!require_gpu ())
        return;
    try {
        var ctx = GCuda.Context.get_default ();
        var add = load_module (ctx, ADD).get_function ("add");
        assert_cmpstr (add.get_name (), CompareOperator.EQ, "add");
        assert_true (add.get_param_count () == 4);
        assert_true (add.get_param_size (0) == 8);
        assert_true (add.get_param_size (3) == 4);

        const int N = 100003;  /* not a multiple of the block */
        var a = random_floats (N);
        var b = random_floats (N);
        var a_gpu = new GCuda.Buffer (ctx, N * sizeof (float));
        var b_gpu = new GCuda.Buffer (ctx, N * sizeof (float));
        var c_gpu = new GCuda.Buffer (ctx, N * sizeof (float));
        a_gpu.upload (0, bytes_of_floats (a));
        b_gpu.upload (0, bytes_of_floats (b));
        c_gpu.memset_d32 (0, 0x7fc00000, N, null);  /* NaN: unwritten elements show */

        var args = new GCuda.KernelArgs ();
        args.add_buffer (c_gpu);
        args.add_buffer (a_gpu);
        args.add_buffer (b_gpu);
        args.add_int32 (N);
        add.launch ((N + 255) / 256, 1, 1, 256, 1, 1, 0, null, args);
        var c = download_floats (c_gpu, N);
        for (int i = 0; i < N; i++) {
            float expected = a[i] + b[i];
            if (!(c[i] == expected))
                error ("c[%d] = %g, expected %g", i, c[i], expected);
        }

        /* the same launch, timed: milliseconds, and the same result */
        c_gpu.memset_d32 (0, 0x7fc00000, N, null);
        double ms = add.launch_timed ((N + 255) / 256, 1, 1, 256, 1, 1, 0, null, args);
        assert_true (ms > 0.0 && ms < 10000.0);
        c = download_floats (c_gpu, N);
        for (int i = 0; i < N; i++) {
            if (!(c[i] == a[i] + b[i]))
                error ("timed launch: c[%d] = %g, expected %g", i, c[i], a[i] + b[i]);
        }
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void check_axpb (int32[] y, int32[] x, int a, int64 b, int n, string what) {
    for (int i = 0; i < n; i++) {
        int32 expected = (int32) (a * x[i] + b);
        if (y[i] != expected)
            error ("%s: y[%d] = %d, expected %d", what, i, y[i], expected);
    }
}

static void test_args_reuse () {
    if (!require_gpu ())
        return;
    try {
        var ctx = GCuda.Context.get_default ();
        var axpb = load_module (ctx, AXPB).get_function ("axpb");
        const int N = 5000;
        var x1 = random_ints (N);
        var x2 = random_ints (N);
        var x1_gpu = new GCuda.Buffer (ctx, N * sizeof (int32));
        var x2_gpu = new GCuda.Buffer (ctx, N * sizeof (int32));
        var y1_gpu = new GCuda.Buffer (ctx, N * sizeof (int32));
        var y2_gpu = new GCuda.Buffer (ctx, N * sizeof (int32));
        x1_gpu.upload (0, bytes_of_ints (x1));
        x2_gpu.upload (0, bytes_of_ints (x2));

        var args = new GCuda.KernelArgs ();
        args.add_buffer (y1_gpu);
        args.add_buffer (x1_gpu);
        args.add_int32 (3);
        args.add_int64 (-7);
        args.add_int32 (N);
        axpb.launch ((N + 127) / 128, 1, 1, 128, 1, 1, 0, null, args);
        check_axpb (download_ints (y1_gpu, N), x1, 3, -7, N, "first launch");

        /* every kind of argument changed in place */
        int a = Random.int_range (2, 50);
        int64 b = Random.int_range (-50000, 50000);
        args.set_buffer (0, y2_gpu);
        args.set_buffer (1, x2_gpu);
        args.set_int32 (2, a);
        args.set_int64 (3, b);
        args.set_int32 (4, N - 1);  /* the last element stays untouched */
        y2_gpu.memset_d32 (0, 0x12345678, N, null);
        axpb.launch ((N + 127) / 128, 1, 1, 128, 1, 1, 0, null, args);
        var y2 = download_ints (y2_gpu, N);
        check_axpb (y2, x2, a, b, N - 1, "second launch");
        assert_true (y2[N - 1] == 0x12345678);
        /* the first output was left alone */
        check_axpb (download_ints (y1_gpu, N), x1, 3, -7, N, "first output");
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void put_uint64 (uint8[] params, int offset, uint64 value) {
    value = value.to_little_endian ();
    Memory.copy (&params[offset], &value, sizeof (uint64));
}

static void test_launch_packed () {
    if (!require_gpu ())
        return;
    try {
        var ctx = GCuda.Context.get_default ();
        var add = load_module (ctx, ADD).get_function ("add");
        const int N = 70000;
        var a = random_floats (N);
        var b = random_floats (N);
        var a_gpu = new GCuda.Buffer (ctx, N * sizeof (float));
        var b_gpu = new GCuda.Buffer (ctx, N * sizeof (float));
        var c_gpu = new GCuda.Buffer (ctx, N * sizeof (float));
        a_gpu.upload (0, bytes_of_floats (a));
        b_gpu.upload (0, bytes_of_floats (b));

        /* (float *, const float *, const float *, int) at natural alignment */
        var params = new uint8[28];
        put_uint64 (params, 0, c_gpu.get_address ());
        put_uint64 (params, 8, a_gpu.get_address ());
        put_uint64 (params, 16, b_gpu.get_address ());
        int32 n = ((int32) N).to_little_endian ();
        Memory.copy (&params[24], &n, sizeof (int32));

        var stream = new GCuda.Stream (ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
        add.launch_packed ((N + 511) / 512, 1, 1, 512, 1, 1, 0, stream, params);
        stream.synchronize ();
        var c = download_floats (c_gpu, N);
        for (int i = 0; i < N; i++) {
            if (!(c[i] == a[i] + b[i]))
                error ("c[%d] = %g, expected %g", i, c[i], a[i] + b[i]);
        }

        var msg = assert_throws (GCuda.Error.quark (), (int) GCuda.Error.KERNEL_ARGUMENTS, "24 of 28 bytes", () => {
            add.launch_packed (1, 1, 1, 32, 1, 1, 0, null, params[0:24]);
        });
        assert_true ("add" in msg);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_bad_launches () {
    if (!require_gpu ())
        return;
    try {
        var ctx = GCuda.Context.get_default ();
        var module = load_module (ctx, ADD);
        var add = module.get_function ("add");
        var buf = new GCuda.Buffer (ctx, 1024);

        /* wrong argument count or size */
        var three = new GCuda.KernelArgs ();
        three.add_buffer (buf);
        three.add_buffer (buf);
        three.add_buffer (buf);
        try {
            add.launch (1, 1, 1, 32, 1, 1, 0, null, three);
            assert_not_reached ();
        } catch (GCuda.Error.KERNEL_ARGUMENTS e) {
            assert_true ("add" in e.message);
        }
        three.add_int64 (0);  /* an int64 where the kernel takes an int */
        try {
            add.launch (1, 1, 1, 32, 1, 1, 0, null, three);
            assert_not_reached ();
        } catch (GCuda.Error.KERNEL_ARGUMENTS e) {
            assert_true (Regex.match_simple ("\\b3\\b", e.message));  /* names parameter 3 */
        }

        var args = new GCuda.KernelArgs ();
        args.add_buffer (buf);
        args.add_buffer (buf);
        args.add_buffer (buf);
        args.add_int32 (0);

        /* zero and oversized blocks */
        try {
            add.launch (1, 1, 1, 0, 1, 1, 0, null, args);
            assert_not_reached ();
        } catch (GCuda.Error.INVALID_ARGUMENT e) {
        }
        try {
            add.launch (0, 1, 1, 32, 1, 1, 0, null, args);
            assert_not_reached ();
        } catch (GCuda.Error.INVALID_ARGUMENT e) {
        }
        try {
            add.launch (1, 1, 1, 2048, 1, 1, 0, null, args);
            assert_not_reached ();
        } catch (GCuda.Error.INVALID_ARGUMENT e) {
        }
        /* too much shared memory: the driver's INVALID_VALUE */
        try {
            add.launch (1, 1, 1, 32, 1, 1, 1 << 30, null, args);
            assert_not_reached ();
        } catch (GCuda.DriverError.INVALID_VALUE e) {
            assert_true (GCuda.Error.get_category (e) == GCuda.ErrorCategory.LOGIC);
        }

        /* unknown names */
        try {
            module.get_function ("no_such_kernel");
            assert_not_reached ();
        } catch (GCuda.DriverError.NOT_FOUND e) {
            assert_true ("no_such_kernel" in e.message);
        }
        try {
            module.get_global ("no_such_global");
            assert_not_reached ();
        } catch (GCuda.DriverError.NOT_FOUND e) {
        }

        /* nothing broke: a good launch still works */
        add.launch (1, 1, 1, 32, 1, 1, 0, null, args);
        ctx.synchronize ();
    } catch (GLib.Error e) {
        error ("unexpected error: %s (%s %d)", e.message, e.domain.to_string (), e.code);
    }
}

/* the asynchronous constructor, as Vala writes it: yield new … */
static async GCuda.Module load_source_async (GCuda.Context ctx) throws GLib.Error {
    return yield new GCuda.Module.from_source_async (ctx, AXPB, null, null);
}

static void test_async_source_module () {
    if (!require_gpu ())
        return;
    var loop = new MainLoop ();
    GCuda.Module? module = null;
    GLib.Error? failure = null;
    bool done = false;
    GCuda.Context ctx;
    try {
        ctx = GCuda.Context.get_default ();
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
    load_source_async.begin (ctx, (obj, res) => {
        try {
            module = load_source_async.end (res);
        } catch (GLib.Error e) {
            failure = e.copy ();
        }
        done = true;
        loop.quit ();
    });
    run_loop (loop, ref done);
    if (failure != null)
        error ("module_new_from_source_async: %s", failure.message);
    try {
        const int N = 1000;
        var x = random_ints (N);
        var x_gpu = new GCuda.Buffer (ctx, N * sizeof (int32));
        var y_gpu = new GCuda.Buffer (ctx, N * sizeof (int32));
        x_gpu.upload (0, bytes_of_ints (x));
        var args = new GCuda.KernelArgs ();
        args.add_buffer (y_gpu);
        args.add_buffer (x_gpu);
        args.add_int32 (-4);
        args.add_int64 (99);
        args.add_int32 (N);
        module.get_function ("axpb").launch (4, 1, 1, 256, 1, 1, 0, null, args);
        check_axpb (download_ints (y_gpu, N), x, -4, 99, N, "async source module");
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

int main (string[] args) {
    Test.init (ref args);

    Test.add_func ("/vala/kernels/nvrtc/ptx-sm90", test_ptx_sm90);
    Test.add_func ("/vala/kernels/nvrtc/cubin-sm90", test_cubin_sm90);
    Test.add_func ("/vala/kernels/nvrtc/syntax-error", test_syntax_error);
    Test.add_func ("/vala/kernels/nvrtc/name-expressions", test_name_expressions);
    Test.add_func ("/vala/kernels/nvrtc/compile-async", test_compile_async);
    Test.add_func ("/vala/kernels/kernel-args", test_kernel_args);
    Test.add_func ("/vala/kernels/garbage-image", test_garbage_image);
    if (Environment.get_variable ("GCUDA_TEST_DRIVER") == "missing") {
        Test.add_func ("/vala/kernels/no-driver", test_no_driver);
    } else {
        Test.add_func ("/vala/kernels/vector-add", test_vector_add);
        Test.add_func ("/vala/kernels/args-reuse", test_args_reuse);
        Test.add_func ("/vala/kernels/launch-packed", test_launch_packed);
        Test.add_func ("/vala/kernels/bad-launches", test_bad_launches);
        Test.add_func ("/vala/kernels/async-source-module", test_async_source_module);
    }
    return Test.run ();
}
