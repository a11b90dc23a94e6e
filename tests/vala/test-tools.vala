/* test-tools.vala: the tool classes from Vala: memory pools, device data
 * and occupancy, arrays, textures and surfaces.
 *
 * meson runs it with GCUDA_TEST_DRIVER=missing (nogpu: pool bin arithmetic,
 * a device described by hand and its occupancy, the texture kernel as PTX
 * for sm_90) and without (gpu: the same, then pool round trips, a 2D texture
 * read by a kernel, device 0's data and error paths; skipped without a GPU,
 * failed when GCUDA_TEST_REQUIRE_GPU=1).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* out[y][x] = the texel (x, y): point filtering, unnormalized coordinates */
const string READ_2D = """
__global__ void read2d(float *out, cudaTextureObject_t t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h)
        out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
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

static GCuda.Program sm90_ptx (string source) throws GLib.Error {
    var compiler = new GCuda.Compiler (null);
    compiler.set_arch ("sm_90");
    compiler.set_target (GCuda.ProgramKind.PTX);
    compiler.set_cache_dir ("");
    return compiler.compile (source);
}

static string? no_nvrtc_reason = null;
static bool nvrtc_probed = false;

/* For tests that compile: false (the test skipped, or failed under
 * GCUDA_TEST_REQUIRE_GPU=1) when no NVRTC library is found. */
static bool require_nvrtc () {
    if (!nvrtc_probed) {
        nvrtc_probed = true;
        try {
            sm90_ptx ("__global__ void probe() {}\n");
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

/* Runs @fn, which must throw an error in @domain with @code */
static void assert_throws (Quark domain, int code, string what, Thrower fn) {
    try {
        fn ();
    } catch (GLib.Error e) {
        if (e.domain != domain || e.code != code)
            error ("%s: expected %s %d, got %s %d: %s", what, domain.to_string (), code,
                   e.domain.to_string (), e.code, e.message);
        assert_true (e.message.length > 0);
        return;
    }
    error ("%s: expected %s %d, nothing was thrown", what, domain.to_string (), code);
}

static unowned uint8[] bytes_of_floats (float[] values) {
    unowned uint8[] bytes = (uint8[]) values;
    bytes.length = values.length * (int) sizeof (float);
    return bytes;
}

static float[] floats_of (Bytes bytes, int n) {
    assert_true (bytes.get_size () == n * sizeof (float));
    var values = new float[n];
    Memory.copy (values, bytes.get_data (), n * sizeof (float));
    return values;
}

static float[] random_floats (int n) {
    var values = new float[n];
    for (int i = 0; i < n; i++)
        values[i] = (float) Random.double_range (-100.0, 100.0);
    return values;
}

static void assert_floats_equal (float[] actual, float[] expected, string what) {
    assert_true (actual.length == expected.length);
    for (int i = 0; i < expected.length; i++) {
        if (actual[i] != expected[i])
            error ("%s: element %d is %g, expected %g", what, i, actual[i], expected[i]);
    }
}

/* An H100 described by hand (the figures of tests/c/test-device-tools.c) */
static GCuda.DeviceData h100_data () {
    return (GCuda.DeviceData) Object.new (typeof (GCuda.DeviceData),
        "compute-capability-major", 9, "compute-capability-minor", 0,
        "max-threads", 1024, "warp-size", 32, "warps-per-mp", 64,
        "thread-blocks-per-mp", 32, "registers", 65536, "registers-per-block", 65536,
        "max-registers-per-thread", 255, "register-alloc-granularity", 256,
        "shared-memory", 233472, "shared-memory-per-block", 49152,
        "shared-memory-per-block-optin", 232448,
        "reserved-shared-memory-per-block", 1024,
        "smem-granularity", 32, "smem-alloc-granularity", 128);
}

static uint64 block_of (uint64 size) {
    return GCuda.MemoryPool.alloc_size (GCuda.MemoryPool.bin_number (size));
}

/* ------------------------------------------------------ no driver needed */

static void test_bitlog2 () {
    /* PyCUDA's test_bitlog values */
    assert_true (GCuda.bitlog2 (17) == 4);
    assert_true (GCuda.bitlog2 (0xAFFE) == 15);
    assert_true (GCuda.bitlog2 (0x3AFFE) == 17);
    assert_true (GCuda.bitlog2 (0xCC3AFFE) == 27);
    assert_true (GCuda.bitlog2 (1) == 0);
    assert_true (GCuda.bitlog2 (uint64.MAX) == 63);
}

static void test_bins () {
    for (int i = 0; i < 2000; i++) {
        /* sizes up to 2^48, spread over the exponents */
        uint64 r = ((uint64) Random.next_int () << 32) | Random.next_int ();
        uint64 s = r >> Random.int_range (16, 64);
        if (s == 0)
            s = 1;
        uint bin = GCuda.MemoryPool.bin_number (s);
        uint64 alloc = GCuda.MemoryPool.alloc_size (bin);
        if (alloc < s)
            error ("alloc_size (bin_number (%" + uint64.FORMAT + ")) = %" + uint64.FORMAT + " is too small",
                   s, alloc);
        if (alloc - s >= alloc / 16 + (alloc % 16 != 0 ? 1 : 0))
            error ("%" + uint64.FORMAT + " bytes get a block of %" + uint64.FORMAT + ": 1/16 or more wasted",
                   s, alloc);
        assert_true (GCuda.MemoryPool.bin_number (alloc) == bin);
    }
}

static void test_device_data_by_hand () {
    var d = h100_data ();
    assert_true (d.get_max_threads () == 1024);
    assert_true (d.get_warp_size () == 32);
    assert_true (d.get_warps_per_mp () == 64);
    assert_true (d.get_thread_blocks_per_mp () == 32);
    assert_true (d.get_registers () == 65536);
    assert_true (d.get_shared_memory () == 233472);
    assert_true (d.get_smem_granularity () == 32);
    assert_true (d.get_smem_alloc_granularity () == 128);
    int optin;
    d.get ("shared-memory-per-block-optin", out optin);
    assert_true (optin == 232448);
    try {
        assert_true (d.align_bytes (4) == 64);
        assert_true (d.align_bytes (8) == 128);
        assert_true (d.align (65, 4) == 128);
        assert_true (d.align_words (16) == 8);
        assert_true (d.align_dtype (17, 4) == 32);
        assert_true (GCuda.DeviceData.make_valid_tex_channel_count (3) == 4);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
    assert_throws (GCuda.Error.quark (), GCuda.Error.INVALID_ARGUMENT, "word size 3",
                   () => { d.align_bytes (3); });
    assert_throws (GCuda.Error.quark (), GCuda.Error.INVALID_ARGUMENT, "5 channels",
                   () => { GCuda.DeviceData.make_valid_tex_channel_count (5); });
}

struct OccupancyCase {
    uint threads;
    uint64 shared;
    uint registers;
    int tb_per_mp;
    GCuda.OccupancyLimit limited_by;
    int limit_device;
    int limit_warps;
    int limit_registers;
    int limit_shared;
}

static void test_occupancy_by_hand () {
    var d = h100_data ();
    const OccupancyCase[] cases = {
        /* 8 warps a block: 64 / 8 = 8 */
        { 256, 0, 32, 8, GCuda.OccupancyLimit.WARPS, 32, 8, 8, 228 },
        /* 64 regs: 8 warps a partition, one block of 32 warps */
        { 1024, 0, 64, 1, GCuda.OccupancyLimit.REGISTERS, 32, 2, 1, 228 },
        /* 48 KiB + 1 KiB reserved: 233472 / 50176 = 4 */
        { 256, 49152, 0, 4, GCuda.OccupancyLimit.SHARED_MEMORY, 32, 8, int.MAX, 4 },
        /* one warp a block: the device's 32 blocks */
        { 32, 0, 0, 32, GCuda.OccupancyLimit.DEVICE, 32, 64, int.MAX, 228 },
    };
    foreach (var c in cases) {
        GCuda.Occupancy o;
        try {
            o = new GCuda.Occupancy (d, c.threads, c.shared, c.registers);
        } catch (GLib.Error e) {
            error ("%u threads: %s", c.threads, e.message);
        }
        assert_true (o.get_tb_per_mp () == c.tb_per_mp);
        assert_true (o.get_limited_by () == c.limited_by);
        assert_true (o.get_limit (GCuda.OccupancyLimit.DEVICE) == c.limit_device);
        assert_true (o.get_limit (GCuda.OccupancyLimit.WARPS) == c.limit_warps);
        assert_true (o.get_limit (GCuda.OccupancyLimit.REGISTERS) == c.limit_registers);
        assert_true (o.get_limit (GCuda.OccupancyLimit.SHARED_MEMORY) == c.limit_shared);
        int warps = c.tb_per_mp * (int) ((c.threads + 31) / 32);
        assert_true (o.get_warps_per_mp () == warps);
        double diff = o.get_occupancy () - warps / 64.0;
        assert_true (diff < 1e-12 && diff > -1e-12);
    }
}

static void test_texture_ptx () {
    if (!require_nvrtc ())
        return;
    try {
        var image = sm90_ptx (READ_2D).get_image ();
        var ptx = new StringBuilder ();
        foreach (var c in image.get_data ()) {
            if (c == 0)
                break;
            ptx.append_c ((char) c);
        }
        assert_true (/\.entry\s+read2d\s*\(/.match (ptx.str));
        assert_true (/\btex\.2d\b/.match (ptx.str));
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

/* ------------------------------------------------------------------ GPU */

static void test_pool_round_trip () {
    if (!require_gpu ())
        return;
    try {
        var pool = new GCuda.MemoryPool (null);
        const int N = 1000;
        var data = random_floats (N);
        var buf = pool.allocate (N * sizeof (float));
        assert_true (buf.get_size () == N * sizeof (float));
        assert_true (buf.get_address () != 0);
        buf.upload (0, bytes_of_floats (data));
        assert_floats_equal (floats_of (buf.download (0, N * sizeof (float)), N), data, "downloaded");
        assert_true (pool.get_held_blocks () == 0);
        assert_true (pool.get_active_blocks () == 1);
        assert_true (pool.get_active_bytes () == N * sizeof (float));
        assert_true (pool.get_managed_bytes () == block_of (N * sizeof (float)));

        var address = buf.get_address ();
        buf = null;  /* the last reference: the block goes back to the pool */
        assert_true (pool.get_held_blocks () == 1);
        assert_true (pool.get_active_blocks () == 0);
        assert_true (pool.get_active_bytes () == 0);

        var again = pool.allocate (N * sizeof (float) - 10);  /* the same bin */
        assert_true (again.get_address () == address);
        assert_true (pool.get_held_blocks () == 0);
        assert_true (pool.get_active_blocks () == 1);
        again.free ();
        assert_true (pool.get_held_blocks () == 1);
        assert_throws (GCuda.Error.quark (), GCuda.Error.FREED, "freeing twice", () => { again.free (); });
        assert_true (pool.get_held_blocks () == 1);
        assert_throws (GCuda.Error.quark (), GCuda.Error.FREED, "upload to a freed block",
                       () => { again.upload (0, { 1 }); });
        pool.free_held ();
        assert_true (pool.get_held_blocks () == 0);
        assert_true (pool.get_managed_bytes () == 0);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_pool_zero_bytes () {
    if (!require_gpu ())
        return;
    var pool = new GCuda.MemoryPool (null);
    assert_throws (GCuda.Error.quark (), GCuda.Error.INVALID_ARGUMENT, "allocate (0)",
                   () => { pool.allocate (0); });
    assert_true (pool.get_active_blocks () == 0);
}

static void test_pool_by_address () {
    if (!require_gpu ())
        return;
    try {
        var pool = new GCuda.MemoryPool (null);
        uint64 address, again;
        assert_true (pool.allocate_address (4000, out address));
        assert_true (address != 0);
        assert_true (pool.get_active_blocks () == 1 && pool.get_active_bytes () == 4000);
        assert_true (pool.free_address (address));
        assert_true (pool.get_held_blocks () == 1);
        assert_throws (GCuda.Error.quark (), GCuda.Error.INVALID_ARGUMENT, "free_address twice",
                       () => { pool.free_address (address); });
        assert_true (pool.allocate_address (3990, out again));
        assert_true (again == address);
        var buf = pool.adopt_address (again);
        assert_true (buf.get_address () == address && buf.get_size () == 3990);
        buf.free ();
        assert_true (pool.get_held_blocks () == 1 && pool.get_active_blocks () == 0);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_device_data_device0 () {
    if (!require_gpu ())
        return;
    try {
        var d = new GCuda.DeviceData (GCuda.Device.get (0));
        assert_true (d.get_warp_size () == 32);
        assert_true (d.get_max_threads () >= 1024);
        assert_true (d.get_shared_memory () > 0);
        var o = new GCuda.Occupancy (d, 256, 0, 32);
        assert_true (o.get_tb_per_mp () >= 1);
        assert_true (o.get_occupancy () > 0.0 && o.get_occupancy () <= 1.0);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_texture_2d () {
    if (!require_gpu ())
        return;
    try {
        var ctx = GCuda.Context.get_default ();
        const int W = 37, H = 23;  /* not multiples of the block */
        var data = random_floats (W * H);

        var desc = new GCuda.ArrayDescriptor (W, H, 0, GCuda.ArrayFormat.FLOAT, 1, GCuda.ArrayFlags.NONE);
        var array = new GCuda.Array (ctx, desc);
        assert_true (array.get_size () == W * H * sizeof (float));
        array.upload (0, bytes_of_floats (data));
        assert_floats_equal (floats_of (array.download (0, array.get_size ()), W * H), data, "array round trip");

        var tex = new GCuda.Texture.from_array (array, new GCuda.TextureDescriptor ());
        assert_true (tex.get_handle () != 0);

        var program = new GCuda.Compiler (ctx).compile (READ_2D);
        var read2d = new GCuda.Module.from_program (ctx, program).get_function ("read2d");
        var out_gpu = new GCuda.Buffer (ctx, W * H * sizeof (float));
        out_gpu.memset_d32 (0, 0x7fc00000, W * H, null);  /* NaN: unwritten texels show */
        var args = new GCuda.KernelArgs ();
        args.add_buffer (out_gpu);
        args.add_uint64 (tex.get_handle ());
        args.add_int32 (W);
        args.add_int32 (H);
        read2d.launch ((W + 15) / 16, (H + 15) / 16, 1, 16, 16, 1, 0, null, args);
        assert_floats_equal (floats_of (out_gpu.download (0, W * H * sizeof (float)), W * H), data,
                             "read through the texture");
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_surface_without_ldst () {
    if (!require_gpu ())
        return;
    try {
        var desc = new GCuda.ArrayDescriptor (4, 4, 0, GCuda.ArrayFormat.FLOAT, 1, GCuda.ArrayFlags.NONE);
        var array = new GCuda.Array (null, desc);
        assert_throws (GCuda.Error.quark (), GCuda.Error.INVALID_ARGUMENT, "a surface over a plain array",
                       () => { new GCuda.Surface (array); });
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

int main (string[] args) {
    Test.init (ref args);

    Test.add_func ("/vala/tools/pool/bitlog2", test_bitlog2);
    Test.add_func ("/vala/tools/pool/bins", test_bins);
    Test.add_func ("/vala/tools/device-data/by-hand", test_device_data_by_hand);
    Test.add_func ("/vala/tools/occupancy/by-hand", test_occupancy_by_hand);
    Test.add_func ("/vala/tools/texture/ptx-sm90", test_texture_ptx);
    /* with the driver made unloadable (nogpu), the GPU tests are not registered */
    if (Environment.get_variable ("GCUDA_TEST_DRIVER") != "missing") {
        Test.add_func ("/vala/tools/pool/round-trip", test_pool_round_trip);
        Test.add_func ("/vala/tools/pool/zero-bytes", test_pool_zero_bytes);
        Test.add_func ("/vala/tools/pool/by-address", test_pool_by_address);
        Test.add_func ("/vala/tools/device-data/device0", test_device_data_device0);
        Test.add_func ("/vala/tools/texture/2d", test_texture_2d);
        Test.add_func ("/vala/tools/surface/without-ldst", test_surface_without_ldst);
    }
    return Test.run ();
}
