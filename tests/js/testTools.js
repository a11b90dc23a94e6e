// The tool classes from GJS: memory pools, device data and occupancy,
// arrays, textures and surfaces. meson runs this script in two situations:
//   GCUDA_TEST_DRIVER=missing  (unloadable driver, suite nogpu) what needs no
//                              driver: pool bin arithmetic, a device described
//                              by hand and its occupancy, the texture kernel
//                              compiled to PTX for sm_90
//   unset                      (suite gpu) the same, then pool round trips,
//                              a 2D texture read by a kernel, device 0's data
//                              and error paths (skipped without a GPU, failed
//                              instead when GCUDA_TEST_REQUIRE_GPU=1)
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

// out[y][x] = the texel (x, y): point filtering, unnormalized coordinates
const READ_2D = `
__global__ void read2d(float *out, cudaTextureObject_t t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h)
        out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}
`;

// ------------------------------------------------------------------ helpers

// With the driver made unloadable (nogpu), the GPU tests are not registered.
const gpuTest = GLib.getenv('GCUDA_TEST_DRIVER') === 'missing' ? () => {} : Tap.test;

function bytesOf(typed) {
    return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
}

function floatsOf(bytes, count) {
    const u8 = bytes.toArray().slice();  // own ArrayBuffer, aligned
    Tap.assertEqual(u8.byteLength, count * 4, 'downloaded size');
    return new Float32Array(u8.buffer, 0, count);
}

function assertArraysEqual(actual, expected, what) {
    Tap.assertEqual(actual.length, expected.length, `${what}: length`);
    for (let i = 0; i < expected.length; i++) {
        if (actual[i] !== expected[i])
            Tap.fail(`${what}: element ${i} is ${actual[i]}, expected ${expected[i]}`);
    }
}

function sm90Ptx(source) {
    const compiler = GCuda.Compiler.new(null);
    compiler.set_arch('sm_90');
    compiler.set_target(GCuda.ProgramKind.PTX);
    compiler.set_cache_dir('');
    return compiler.compile(source);
}

// An H100 described by hand (the figures of tests/c/test-device-tools.c)
function h100Data() {
    return new GCuda.DeviceData({
        compute_capability_major: 9, compute_capability_minor: 0,
        max_threads: 1024, warp_size: 32, warps_per_mp: 64,
        thread_blocks_per_mp: 32, registers: 65536, registers_per_block: 65536,
        max_registers_per_thread: 255, register_alloc_granularity: 256,
        shared_memory: 233472, shared_memory_per_block: 49152,
        shared_memory_per_block_optin: 232448,
        reserved_shared_memory_per_block: 1024,
        smem_granularity: 32, smem_alloc_granularity: 128,
    });
}

function block(size) {
    return GCuda.MemoryPool.alloc_size(GCuda.MemoryPool.bin_number(size));
}

// ------------------------------------------------------------ no driver needed

Tap.test('pool: bitlog2 of PyCUDA\'s values', () => {
    Tap.assertEqual(GCuda.bitlog2(17), 4);
    Tap.assertEqual(GCuda.bitlog2(0xAFFE), 15);
    Tap.assertEqual(GCuda.bitlog2(0x3AFFE), 17);
    Tap.assertEqual(GCuda.bitlog2(0xCC3AFFE), 27);
    Tap.assertEqual(GCuda.bitlog2(1), 0);
    Tap.assertEqual(GCuda.bitlog2(2 ** 40), 40);
});

Tap.test('pool: alloc_size(bin_number(s)) holds s, with little waste', () => {
    for (let i = 0; i < 2000; i++) {
        // sizes up to 2^40, spread over the exponents
        const s = Math.max(1, Math.floor(2 ** (Math.random() * 40)));
        const bin = GCuda.MemoryPool.bin_number(s);
        const alloc = GCuda.MemoryPool.alloc_size(bin);
        if (alloc < s)
            Tap.fail(`alloc_size(bin_number(${s})) = ${alloc} is too small`);
        if (alloc - s >= alloc / 16 + 1)
            Tap.fail(`${s} bytes get a block of ${alloc}: 1/16 or more wasted`);
        Tap.assertEqual(GCuda.MemoryPool.bin_number(alloc), bin, `bin of ${alloc}`);
    }
});

Tap.test('device data: described by hand', () => {
    const d = h100Data();
    Tap.assertEqual(d.get_max_threads(), 1024);
    Tap.assertEqual(d.get_warp_size(), 32);
    Tap.assertEqual(d.get_warps_per_mp(), 64);
    Tap.assertEqual(d.get_thread_blocks_per_mp(), 32);
    Tap.assertEqual(d.get_registers(), 65536);
    Tap.assertEqual(d.get_shared_memory(), 233472);
    Tap.assertEqual(d.get_smem_granularity(), 32);
    Tap.assertEqual(d.get_smem_alloc_granularity(), 128);
    Tap.assertEqual(d.shared_memory_per_block_optin, 232448);
    Tap.assertEqual(d.align_bytes(4), 64);
    Tap.assertEqual(d.align_bytes(8), 128);
    Tap.assertEqual(d.align(65, 4), 128);
    Tap.assertEqual(d.align_words(16), 8);
    Tap.assertEqual(d.align_dtype(17, 4), 32);
    Tap.assertThrowsGError(() => d.align_bytes(3), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT,
        'word size 3');
    Tap.assertEqual(GCuda.DeviceData.make_valid_tex_channel_count(3), 4);
    Tap.assertThrowsGError(() => GCuda.DeviceData.make_valid_tex_channel_count(5),
        GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT, '5 channels');
});

Tap.test('occupancy: on a device described by hand', () => {
    const d = h100Data();
    // [threads, shared, registers, tb per mp, limited by, limits]
    const cases = [
        // 8 warps a block: 64 / 8 = 8
        [256, 0, 32, 8, GCuda.OccupancyLimit.WARPS, [32, 8, 8, 228]],
        // 64 regs: 8 warps a partition, one block of 32 warps
        [1024, 0, 64, 1, GCuda.OccupancyLimit.REGISTERS, [32, 2, 1, 228]],
        // 48 KiB + 1 KiB reserved: 233472 / 50176 = 4
        [256, 49152, 0, 4, GCuda.OccupancyLimit.SHARED_MEMORY, [32, 8, 2 ** 31 - 1, 4]],
        // one warp a block: the device's 32 blocks
        [32, 0, 0, 32, GCuda.OccupancyLimit.DEVICE, [32, 64, 2 ** 31 - 1, 228]],
    ];
    for (const [threads, shared, regs, tb, limitedBy, limits] of cases) {
        const what = `${threads} threads, ${shared} bytes, ${regs} registers`;
        const o = GCuda.Occupancy.new(d, threads, shared, regs);
        Tap.assertEqual(o.get_tb_per_mp(), tb, `${what}: blocks`);
        Tap.assertEqual(o.get_limited_by(), limitedBy, `${what}: limited by`);
        for (let l = 0; l < 4; l++)
            Tap.assertEqual(o.get_limit(l), limits[l], `${what}: limit ${l}`);
        const warps = tb * Math.ceil(threads / 32);
        Tap.assertEqual(o.get_warps_per_mp(), warps, `${what}: warps`);
        Tap.assert(Math.abs(o.get_occupancy() - warps / 64) < 1e-12, `${what}: occupancy`);
        Tap.assertEqual(o.tb_per_mp, tb, `${what}: the property`);
    }
});

Tap.test('texture kernel: PTX for sm_90', () => {
    Tap.requireNvrtc();
    const program = sm90Ptx(READ_2D);
    let u8 = program.get_image().toArray();
    const nul = u8.indexOf(0);
    if (nul >= 0)
        u8 = u8.subarray(0, nul);
    const ptx = new TextDecoder().decode(u8);
    Tap.assert(/\.entry\s+read2d\s*\(/.test(ptx), 'PTX has .entry read2d(');
    Tap.assert(/\btex\.2d\b/.test(ptx), 'PTX has a tex.2d instruction');
});

// ------------------------------------------------------------------ GPU

gpuTest('pool: round trip and counters', () => {
    Tap.requireGpu();
    const pool = GCuda.MemoryPool.new(null);
    const n = 1000;
    const data = Tap.randomFloats(n);
    const buf = pool.allocate(n * 4);
    Tap.assertEqual(buf.get_size(), n * 4);
    Tap.assert(buf.get_address() !== 0, 'a device address');
    buf.upload(0, bytesOf(data));
    assertArraysEqual(floatsOf(buf.download(0, n * 4), n), data, 'downloaded');
    Tap.assertEqual(pool.get_held_blocks(), 0);
    Tap.assertEqual(pool.get_active_blocks(), 1);
    Tap.assertEqual(pool.get_active_bytes(), n * 4);
    Tap.assertEqual(pool.get_managed_bytes(), block(n * 4));

    const address = buf.get_address();
    buf.free();
    Tap.assertEqual(pool.get_held_blocks(), 1, 'held after free');
    Tap.assertEqual(pool.get_active_blocks(), 0, 'active after free');
    Tap.assertEqual(pool.get_active_bytes(), 0);
    Tap.assertThrowsGError(() => buf.upload(0, new Uint8Array([1])), GCuda.error_quark(), GCuda.Error.FREED,
        'upload to a freed block');

    const again = pool.allocate(n * 4 - 10);  // the same bin
    Tap.assertEqual(again.get_address(), address, 'the held block is reused');
    Tap.assertEqual(pool.get_held_blocks(), 0);
    Tap.assertEqual(pool.get_active_blocks(), 1);
    again.free();
    Tap.assertThrowsGError(() => again.free(), GCuda.error_quark(), GCuda.Error.FREED, 'freeing twice');
    Tap.assertEqual(pool.get_held_blocks(), 1, 'given back once');
    pool.free_held();
    Tap.assertEqual(pool.get_held_blocks(), 0, 'held after free_held');
    Tap.assertEqual(pool.get_managed_bytes(), 0, 'managed after free_held');
});

gpuTest('pool: zero bytes is INVALID_ARGUMENT', () => {
    Tap.requireGpu();
    const pool = GCuda.MemoryPool.new(null);
    Tap.assertThrowsGError(() => pool.allocate(0), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT,
        'allocate(0)');
    Tap.assertEqual(pool.get_active_blocks(), 0);
});

gpuTest('pool: blocks by address, freed once', () => {
    Tap.requireGpu();
    const pool = GCuda.MemoryPool.new(null);
    const address = pool.allocate_address(4000);
    Tap.assertEqual(typeof address, 'number', 'the address itself, not an array');
    Tap.assert(address > 0, `address ${address}`);
    Tap.assertEqual(pool.get_active_blocks(), 1);
    Tap.assertEqual(pool.get_active_bytes(), 4000);
    pool.free_address(address);
    Tap.assertEqual(pool.get_held_blocks(), 1, 'held after free_address');
    Tap.assertThrowsGError(() => pool.free_address(address), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT,
        'free_address twice');
    const again = pool.allocate_address(3990);
    Tap.assertEqual(again, address, 'the held block again');
    const buf = pool.adopt_address(again);
    Tap.assertEqual(buf.get_address(), address, 'the held block, now a buffer');
    Tap.assertEqual(buf.get_size(), 3990);
    buf.free();
    Tap.assertEqual(pool.get_held_blocks(), 1);
    Tap.assertEqual(pool.get_active_blocks(), 0);
});

gpuTest('device data: device 0 has warps of 32', () => {
    Tap.requireGpu();
    const d = GCuda.DeviceData.new(GCuda.Device.get(0));
    Tap.assertEqual(d.get_warp_size(), 32);
    Tap.assert(d.get_max_threads() >= 1024, `max threads ${d.get_max_threads()}`);
    Tap.assert(d.get_shared_memory() > 0, 'shared memory');
    const o = GCuda.Occupancy.new(d, 256, 0, 32);
    Tap.assert(o.get_tb_per_mp() >= 1, `blocks per mp ${o.get_tb_per_mp()}`);
    Tap.assert(o.get_occupancy() > 0 && o.get_occupancy() <= 1, `occupancy ${o.get_occupancy()}`);
});

gpuTest('texture: a 2D float array read by a kernel', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const w = 37, h = 23;  // not multiples of the block
    const data = Tap.randomFloats(w * h);

    const desc = GCuda.ArrayDescriptor.new(w, h, 0, GCuda.ArrayFormat.FLOAT, 1, GCuda.ArrayFlags.NONE);
    const array = GCuda.Array.new(ctx, desc);
    Tap.assertEqual(array.get_size(), w * h * 4);
    array.upload(0, bytesOf(data));
    assertArraysEqual(floatsOf(array.download(0, array.get_size()), w * h), data, 'array round trip');

    const tex = GCuda.Texture.new_from_array(array, GCuda.TextureDescriptor.new());
    const handle = tex.get_handle();
    Tap.assert(handle !== 0, 'a texture handle');

    const program = GCuda.Compiler.new(ctx).compile(READ_2D);
    const read2d = GCuda.Module.new_from_program(ctx, program).get_function('read2d');
    const out = GCuda.Buffer.new(ctx, w * h * 4);
    out.memset_d32(0, 0x7fc00000, w * h, null);  // NaN: unwritten texels show
    const args = GCuda.KernelArgs.new();
    args.add_buffer(out);
    args.add_uint64(handle);
    args.add_int32(w);
    args.add_int32(h);
    read2d.launch(Math.ceil(w / 16), Math.ceil(h / 16), 1, 16, 16, 1, 0, null, args);
    assertArraysEqual(floatsOf(out.download(0, w * h * 4), w * h), data, 'read through the texture');
});

gpuTest('surface: an array without SURFACE_LDST is INVALID_ARGUMENT', () => {
    Tap.requireGpu();
    const desc = GCuda.ArrayDescriptor.new(4, 4, 0, GCuda.ArrayFormat.FLOAT, 1, GCuda.ArrayFlags.NONE);
    const array = GCuda.Array.new(null, desc);
    Tap.assertThrowsGError(() => GCuda.Surface.new(array), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT,
        'a surface over a plain array');
});

Tap.run();
