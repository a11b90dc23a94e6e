// Compiling and launching kernels from GJS. meson runs this script in two
// situations:
//   GCUDA_TEST_DRIVER=missing  (unloadable driver, suite nogpu) what NVRTC
//                              does alone: PTX and cubin for sm_90, compile
//                              errors with their log, templates, headers,
//                              compile_async; DRIVER_NOT_FOUND from whatever
//                              needs the driver
//   unset                      (suite gpu) the same NVRTC tests, then
//                              compile + launch + check against JS on random
//                              data (skipped without a GPU, failed instead
//                              when GCUDA_TEST_REQUIRE_GPU=1)
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const Gio = imports.gi.Gio;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

Gio._promisify(GCuda.Compiler.prototype, 'compile_async', 'compile_finish');

const situation = GLib.getenv('GCUDA_TEST_DRIVER');

const ADD = `
__global__ void add(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
`;

// y = a * x + b on ints: exact, so any wrong argument shows
const AXPB = `
__global__ void axpb(int *y, const int *x, int a, long long b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = (int) (a * x[i] + b);
}
`;

// ------------------------------------------------------------------ helpers

// A compiler for sm_90 (no device needed), with the cache disabled so that
// NVRTC really runs.
function sm90Compiler(target = GCuda.ProgramKind.CUBIN) {
    const compiler = GCuda.Compiler.new(null);
    compiler.set_arch('sm_90');
    compiler.set_target(target);
    compiler.set_cache_dir('');
    return compiler;
}

function textOf(bytes) {
    let u8 = bytes.toArray();
    const nul = u8.indexOf(0);
    if (nul >= 0)
        u8 = u8.subarray(0, nul);
    return new TextDecoder().decode(u8);
}

function bytesOf(typed) {
    return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
}

// Downloads @count elements of @Type (Float32Array, Int32Array) from @buf
function download(buf, Type, count) {
    const bytes = buf.download(0, count * Type.BYTES_PER_ELEMENT);
    const u8 = bytes.toArray().slice();  // own ArrayBuffer, aligned
    Tap.assertEqual(u8.byteLength, count * Type.BYTES_PER_ELEMENT, 'downloaded size');
    return new Type(u8.buffer, 0, count);
}

function randomInts(n, range = 20000) {
    const a = new Int32Array(n);
    for (let i = 0; i < n; i++)
        a[i] = Math.floor(Math.random() * range) - range / 2;
    return a;
}

function uploadNew(ctx, typed) {
    const buf = GCuda.Buffer.new(ctx, typed.byteLength);
    buf.upload(0, bytesOf(typed));
    return buf;
}

// The first index where @actual differs from @expected, or -1
function firstMismatch(actual, expected) {
    if (actual.length !== expected.length)
        return 0;
    for (let i = 0; i < expected.length; i++) {
        if (actual[i] !== expected[i])
            return i;
    }
    return -1;
}

function assertArraysEqual(actual, expected, what) {
    const i = firstMismatch(actual, expected);
    if (i >= 0) {
        Tap.fail(`${what}: element ${i} is ${actual[i]}, expected ${expected[i]} ` +
            `(lengths ${actual.length}, ${expected.length})`);
    }
}

function loadModule(ctx, source) {
    // cubin for the context's device (the default arch), cached in the build tree
    const program = GCuda.Compiler.new(ctx).compile(source);
    return GCuda.Module.new_from_program(ctx, program);
}

// ------------------------------------------------------------ NVRTC only

Tap.test('nvrtc: PTX for sm_90', () => {
    Tap.requireNvrtc();
    const program = sm90Compiler(GCuda.ProgramKind.PTX).compile(ADD);
    Tap.assertEqual(program.get_kind(), GCuda.ProgramKind.PTX);
    Tap.assertEqual(program.get_arch(), 'sm_90');
    Tap.assert(!program.is_from_cache(), 'the cache is disabled');
    const ptx = textOf(program.get_image());
    Tap.assert(/^\s*\.target\s+sm_90\b/m.test(ptx), 'PTX targets sm_90');
    // extern "C" by default: the entry keeps its C name
    Tap.assert(/\.entry\s+add\s*\(/.test(ptx), 'PTX has .entry add(');
    Tap.assert(/\.version\s+\d+\.\d+/.test(ptx), 'PTX has a .version');
});

Tap.test('nvrtc: cubin for sm_90', () => {
    Tap.requireNvrtc();
    const program = sm90Compiler().compile(ADD);
    Tap.assertEqual(program.get_kind(), GCuda.ProgramKind.CUBIN);
    const image = program.get_image().toArray();
    Tap.assert(image.length > 100, `cubin of ${image.length} bytes`);
    Tap.assertEqual(Array.from(image.subarray(0, 4)).join(','), '127,69,76,70', 'ELF magic');
});

Tap.test('nvrtc: a syntax error is COMPILATION, with the log', () => {
    Tap.requireNvrtc();
    const compiler = sm90Compiler();
    const e = Tap.assertThrowsGError(
        () => compiler.compile('__global__ void broken(int *p) { p[0] = 1 +; }\n'),
        GCuda.compile_error_quark(), GCuda.CompileError.COMPILATION);
    Tap.assert(/error/i.test(e.message), `the message carries the log: ${e.message}`);
    const log = compiler.get_last_log();
    Tap.assert(log !== null && /expected an expression/.test(log), `last log: ${log}`);
    Tap.assert(e.message.includes('expected an expression'), 'the message has the log text');
});

Tap.test('nvrtc: an unknown option is a compile error', () => {
    Tap.requireNvrtc();
    const compiler = sm90Compiler();
    compiler.set_options(['--no-such-option']);
    let error = null;
    try {
        compiler.compile(ADD);
    } catch (e) {
        error = e;
    }
    Tap.assert(error instanceof GLib.Error, `expected a GLib.Error, got ${error}`);
    Tap.assert(error.matches(GCuda.compile_error_quark(), GCuda.CompileError.INVALID_OPTION) ||
        error.matches(GCuda.compile_error_quark(), GCuda.CompileError.COMPILATION),
    `got ${GLib.quark_to_string(error.domain)} ${error.code}: ${error.message}`);
});

Tap.test('nvrtc: templates through name expressions', () => {
    Tap.requireNvrtc();
    const compiler = sm90Compiler(GCuda.ProgramKind.PTX);
    compiler.set_no_extern_c(true);
    compiler.add_name_expression('fill<int>');
    compiler.add_name_expression('fill<float>');
    const program = compiler.compile(`
template <typename T> __global__ void fill(T *p, T v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}
`);
    const ptx = textOf(program.get_image());
    const intName = program.get_lowered_name('fill<int>');
    const floatName = program.get_lowered_name('fill<float>');
    Tap.assert(intName !== null && intName.startsWith('_Z'), `lowered fill<int>: ${intName}`);
    Tap.assert(floatName !== null && floatName !== intName, `lowered fill<float>: ${floatName}`);
    Tap.assert(ptx.includes(`.entry ${intName}(`), 'the PTX has fill<int> under its lowered name');
    Tap.assert(ptx.includes(`.entry ${floatName}(`), 'the PTX has fill<float> under its lowered name');
});

Tap.test('nvrtc: in-memory headers and include dirs', () => {
    Tap.requireNvrtc();
    const dir = GLib.dir_make_tmp('gcuda-js-XXXXXX');
    try {
        GLib.file_set_contents(`${dir}/factor.h`, '#define FACTOR 37\n');
        const compiler = sm90Compiler(GCuda.ProgramKind.PTX);
        compiler.set_include_dirs([dir]);
        compiler.add_header('offset.h', '#define OFFSET 4242\n');
        const ptx = textOf(compiler.compile(`
#include "factor.h"
#include "offset.h"
__global__ void f(int *p) { p[0] = p[0] * FACTOR + OFFSET; }
`).get_image());
        // the constants end up as immediates in the PTX
        Tap.assert(/\b37\b/.test(ptx), 'FACTOR from the include dir');
        Tap.assert(/\b4242\b/.test(ptx), 'OFFSET from the in-memory header');
    } finally {
        GLib.unlink(`${dir}/factor.h`);
        GLib.rmdir(dir);
    }
});

Tap.test('nvrtc: a second compile with the same cache dir is a cache hit', () => {
    Tap.requireNvrtc();
    const dir = GLib.dir_make_tmp('gcuda-js-cache-XXXXXX');
    const compiler = sm90Compiler();
    compiler.set_cache_dir(dir);
    const source = `${ADD}\n// ${Math.random()}\n`;
    const first = compiler.compile(source);
    Tap.assert(!first.is_from_cache(), 'the first compile is not from the cache');
    const again = GCuda.Compiler.new(null);
    again.set_arch('sm_90');
    again.set_cache_dir(dir);
    const second = again.compile(source);
    Tap.assert(second.is_from_cache(), 'the second compile is from the cache');
    Tap.assert(second.get_image().equal(first.get_image()), 'the same image');
    // leave the directory behind in /tmp only if this fails
    const run = GLib.spawn_command_line_sync(`rm -rf ${GLib.shell_quote(dir)}`);
    Tap.assert(run[0], 'rm -rf of the cache dir');
});

Tap.test('nvrtc: compile_async in a main loop', () => {
    Tap.requireNvrtc();
    const compiler = sm90Compiler(GCuda.ProgramKind.PTX);
    let ticks = 0;
    const tick = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 1, () => {
        ticks++;
        return GLib.SOURCE_CONTINUE;
    });
    try {
        Tap.runAsync(async () => {
            const [p1, p2] = await Promise.all([
                compiler.compile_async(ADD, null),
                compiler.compile_async(AXPB, null),
            ]);
            Tap.assert(p1 instanceof GCuda.Program && p2 instanceof GCuda.Program);
            Tap.assert(/\.entry\s+add\s*\(/.test(textOf(p1.get_image())), 'first result is add');
            Tap.assert(/\.entry\s+axpb\s*\(/.test(textOf(p2.get_image())), 'second result is axpb');
            let error = null;
            try {
                await compiler.compile_async('__global__ void broken( {}\n', null);
            } catch (e) {
                error = e;
            }
            Tap.assert(error instanceof GLib.Error, `the broken compile rejects: ${error}`);
            Tap.assert(error.matches(GCuda.compile_error_quark(), GCuda.CompileError.COMPILATION),
                `${GLib.quark_to_string(error.domain)} ${error.code}: ${error.message}`);
        }, 30000);
    } finally {
        GLib.source_remove(tick);
    }
    Tap.assert(ticks > 0, 'the main loop ran while compiling');
});

Tap.test('nvrtc: compile_async honours a cancelled cancellable', () => {
    Tap.requireNvrtc();
    const compiler = sm90Compiler(GCuda.ProgramKind.PTX);
    Tap.runAsync(async () => {
        const cancellable = new Gio.Cancellable();
        cancellable.cancel();
        let error = null;
        try {
            await compiler.compile_async(ADD, cancellable);
        } catch (e) {
            error = e;
        }
        Tap.assert(error instanceof GLib.Error, `rejects: ${error}`);
        Tap.assert(error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED) ||
            error.matches(GCuda.compile_error_quark(), GCuda.CompileError.CANCELLED),
        `${GLib.quark_to_string(error.domain)} ${error.code}: ${error.message}`);
    }, 30000);
});

Tap.test('kernel args: add, set, clear (no device needed)', () => {
    const args = GCuda.KernelArgs.new();
    Tap.assertEqual(args.get_count(), 0);
    Tap.assertEqual(args.add_int8(-1), 0);
    Tap.assertEqual(args.add_uint16(65535), 1);
    Tap.assertEqual(args.add_int32(-5), 2);
    Tap.assertEqual(args.add_uint64(2 ** 40), 3);
    Tap.assertEqual(args.add_float(1.5), 4);
    Tap.assertEqual(args.add_double(-2.25), 5);
    Tap.assertEqual(args.add_pointer(0x1000), 6);
    Tap.assertEqual(args.add_struct(new GLib.Bytes(new Uint8Array(12)), 4), 7);
    Tap.assertEqual(args.get_count(), 8);
    // same-size replacements work, others are KERNEL_ARGUMENTS
    Tap.assert(args.set_int32(2, 7));
    Tap.assert(args.set_float(4, 3.5));
    Tap.assert(args.set_uint64(3, 1));
    Tap.assert(args.set_double(5, 1.0));
    Tap.assert(args.set_uint64(6, 0x2000));
    const domain = GCuda.error_quark(), code = GCuda.Error.KERNEL_ARGUMENTS;
    Tap.assertThrowsGError(() => args.set_int32(0, 1), domain, code, 'int32 over int8');
    Tap.assertThrowsGError(() => args.set_double(4, 1), domain, code, 'double over float');
    Tap.assertThrowsGError(() => args.set_int64(2, 1), domain, code, 'int64 over int32');
    Tap.assertThrowsGError(() => args.set_int32(8, 1), domain, code, 'index out of range');
    args.clear();
    Tap.assertEqual(args.get_count(), 0);
    Tap.assertThrowsGError(() => args.set_int32(0, 1), domain, code, 'after clear');
    Tap.assertEqual(args.add_int32(1), 0);
});

Tap.test('garbage as a module image is INVALID_ARGUMENT', () => {
    // refused before the driver is involved
    const garbage = new GLib.Bytes(new TextEncoder().encode('this is not device code at all'));
    Tap.assertThrowsGError(() => GCuda.Module.new_from_data(null, garbage, null),
        GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
});

// ------------------------------------------------------------ no driver

if (situation === 'missing') {
    Tap.test('no driver: what needs a device is DRIVER_NOT_FOUND', () => {
        Tap.requireNvrtc();
        const domain = GCuda.error_quark(), code = GCuda.Error.DRIVER_NOT_FOUND;
        // the default arch is the context's device's
        Tap.assertThrowsGError(() => GCuda.Compiler.new(null).compile(ADD), domain, code);
        Tap.assertThrowsGError(() => GCuda.Module.new_from_source(null, ADD, null), domain, code);
        // an sm_90 cubin compiles, but does not load
        const program = sm90Compiler().compile(ADD);
        Tap.assertThrowsGError(() => GCuda.Module.new_from_program(null, program), domain, code);
        Tap.assertThrowsGError(() => GCuda.Module.new_from_data(null, program.get_image(), null), domain, code);
        // so does PTX: the image passes the library's checks (NUL-terminated
        // text) and fails only for want of a driver
        const ptx = sm90Compiler(GCuda.ProgramKind.PTX).compile(ADD).get_image();
        Tap.assertThrowsGError(() => GCuda.Module.new_from_data(null, ptx, null), domain, code);
    });
    Tap.run();
}

// ------------------------------------------------------------ GPU

Tap.test('launch: vector add matches JS', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const add = loadModule(ctx, ADD).get_function('add');
    Tap.assertEqual(add.get_name(), 'add');
    Tap.assertEqual(add.get_param_count(), 4);
    Tap.assertEqual(add.get_param_size(0), 8);
    Tap.assertEqual(add.get_param_size(3), 4);

    const n = 100003;  // not a multiple of the block
    const a = Tap.randomFloats(n), b = Tap.randomFloats(n);
    const aGpu = uploadNew(ctx, a), bGpu = uploadNew(ctx, b);
    const cGpu = GCuda.Buffer.new(ctx, n * 4);
    cGpu.memset_d32(0, 0x7fc00000, n, null);  // NaN: unwritten elements show
    const args = GCuda.KernelArgs.new();
    Tap.assertEqual(args.add_buffer(cGpu), 0);
    Tap.assertEqual(args.add_buffer(aGpu), 1);
    Tap.assertEqual(args.add_buffer(bGpu), 2);
    Tap.assertEqual(args.add_int32(n), 3);
    Tap.assertEqual(args.get_count(), 4);
    add.launch(Math.ceil(n / 256), 1, 1, 256, 1, 1, 0, null, args);
    const c = download(cGpu, Float32Array, n);
    const expected = new Float32Array(n);
    for (let i = 0; i < n; i++)
        expected[i] = a[i] + b[i];
    assertArraysEqual(c, expected, 'c = a + b');
});

Tap.test('launch: the same function object per name', () => {
    Tap.requireGpu();
    const module = loadModule(GCuda.Context.get_default(), ADD + AXPB);
    const f = module.get_function('add');
    Tap.assert(module.get_function('add') === f, 'get_function twice gives the same object');
    Tap.assert(module.get_function('axpb') !== f);
    Tap.assert(f.max_threads_per_block >= 256, `max-threads-per-block ${f.max_threads_per_block}`);
    Tap.assert(f.num_regs > 0, `num-regs ${f.num_regs}`);
});

Tap.test('launch: KernelArgs reused with set_*', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const axpb = loadModule(ctx, AXPB).get_function('axpb');
    const n = 5000;
    const x1 = randomInts(n), x2 = randomInts(n);
    const x1Gpu = uploadNew(ctx, x1), x2Gpu = uploadNew(ctx, x2);
    const y1Gpu = GCuda.Buffer.new(ctx, n * 4), y2Gpu = GCuda.Buffer.new(ctx, n * 4);

    const args = GCuda.KernelArgs.new();
    args.add_buffer(y1Gpu);
    args.add_buffer(x1Gpu);
    args.add_int32(3);
    args.add_int64(-7);
    args.add_int32(n);
    axpb.launch(Math.ceil(n / 128), 1, 1, 128, 1, 1, 0, null, args);
    assertArraysEqual(download(y1Gpu, Int32Array, n), Int32Array.from(x1, v => 3 * v - 7), 'first launch');

    // change every kind of argument in place, launch again
    const a = Math.floor(Math.random() * 50) + 2, b = Math.floor(Math.random() * 100000) - 50000;
    args.set_buffer(0, y2Gpu);
    args.set_buffer(1, x2Gpu);
    args.set_int32(2, a);
    args.set_int64(3, b);
    args.set_int32(4, n - 1);  // the last element stays untouched
    y2Gpu.memset_d32(0, 0x12345678, n, null);
    axpb.launch(Math.ceil(n / 128), 1, 1, 128, 1, 1, 0, null, args);
    const y2 = download(y2Gpu, Int32Array, n);
    const expected = Int32Array.from(x2, v => a * v + b);
    expected[n - 1] = 0x12345678;
    assertArraysEqual(y2, expected, 'second launch');
    // the first output was left alone
    assertArraysEqual(download(y1Gpu, Int32Array, n), Int32Array.from(x1, v => 3 * v - 7), 'first output');

    // set_* with an index out of range or a value of another size is an error
    Tap.assertThrowsGError(() => args.set_int32(5, 1), GCuda.error_quark(), GCuda.Error.KERNEL_ARGUMENTS);
    Tap.assertThrowsGError(() => args.set_int32(3, 1), GCuda.error_quark(), GCuda.Error.KERNEL_ARGUMENTS);

    // clear, then the arguments of another launch
    args.clear();
    Tap.assertEqual(args.get_count(), 0);
    args.add_buffer(y1Gpu);
    args.add_buffer(x2Gpu);
    args.add_int32(1);
    args.add_int64(1);
    args.add_int32(n);
    axpb.launch(Math.ceil(n / 128), 1, 1, 128, 1, 1, 0, null, args);
    assertArraysEqual(download(y1Gpu, Int32Array, n), Int32Array.from(x2, v => v + 1), 'after clear');
});

Tap.test('launch: a pointer with an offset', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const add = loadModule(ctx, ADD).get_function('add');
    const n = 1000, skip = 100;
    const a = Tap.randomFloats(n), b = Tap.randomFloats(n);
    const aGpu = uploadNew(ctx, a), bGpu = uploadNew(ctx, b), cGpu = GCuda.Buffer.new(ctx, n * 4);
    cGpu.memset_d32(0, 0, n, null);
    const args = GCuda.KernelArgs.new();
    args.add_pointer(cGpu.get_address() + skip * 4);  // c[skip...]
    args.add_buffer(aGpu);
    args.add_buffer(bGpu);
    args.add_int32(n - skip);
    add.launch(Math.ceil(n / 256), 1, 1, 256, 1, 1, 0, null, args);
    const c = download(cGpu, Float32Array, n);
    const expected = new Float32Array(n);
    for (let i = skip; i < n; i++)
        expected[i] = a[i - skip] + b[i - skip];
    assertArraysEqual(c, expected, 'c[skip + i] = a[i] + b[i]');
});

// Packs (pointer, pointer, pointer, int32) as the kernel lays them out
function packAdd(c, a, b, n) {
    const params = new Uint8Array(28);
    const view = new DataView(params.buffer);
    view.setBigUint64(0, BigInt(c.get_address()), true);
    view.setBigUint64(8, BigInt(a.get_address()), true);
    view.setBigUint64(16, BigInt(b.get_address()), true);
    view.setInt32(24, n, true);
    return params;
}

Tap.test('launch_packed from a Uint8Array', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const add = loadModule(ctx, ADD).get_function('add');
    const n = 70000;
    const a = Tap.randomFloats(n), b = Tap.randomFloats(n);
    const aGpu = uploadNew(ctx, a), bGpu = uploadNew(ctx, b), cGpu = GCuda.Buffer.new(ctx, n * 4);
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    add.launch_packed(Math.ceil(n / 512), 1, 1, 512, 1, 1, 0, stream, packAdd(cGpu, aGpu, bGpu, n));
    stream.synchronize();
    const expected = new Float32Array(n);
    for (let i = 0; i < n; i++)
        expected[i] = a[i] + b[i];
    assertArraysEqual(download(cGpu, Float32Array, n), expected, 'packed launch');

    // a GLib.Bytes' contents work as well; a wrong size is refused
    const bytes = new GLib.Bytes(packAdd(cGpu, bGpu, bGpu, n));
    add.launch_packed(Math.ceil(n / 512), 1, 1, 512, 1, 1, 0, null, bytes.toArray());
    for (let i = 0; i < n; i++)
        expected[i] = b[i] + b[i];
    assertArraysEqual(download(cGpu, Float32Array, n), expected, 'packed launch from GLib.Bytes');
    const e = Tap.assertThrowsGError(
        () => add.launch_packed(1, 1, 1, 32, 1, 1, 0, null, packAdd(cGpu, aGpu, bGpu, n).subarray(0, 24)),
        GCuda.error_quark(), GCuda.Error.KERNEL_ARGUMENTS);
    Tap.assert(e.message.includes('add'), `names the kernel: ${e.message}`);
});

Tap.test('launch: on a stream, a 2D grid', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const fn = loadModule(ctx, `
__global__ void index2d(int *out, int width)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    out[y * width + x] = y * 1000 + x;
}
`).get_function('index2d');
    const width = 64, height = 48;
    const out = GCuda.Buffer.new(ctx, width * height * 4);
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    const args = GCuda.KernelArgs.new();
    args.add_buffer(out);
    args.add_int32(width);
    fn.launch(width / 16, height / 8, 1, 16, 8, 1, 0, stream, args);
    stream.synchronize();
    const expected = new Int32Array(width * height);
    for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++)
            expected[y * width + x] = y * 1000 + x;
    }
    assertArraysEqual(download(out, Int32Array, width * height), expected, '2D index');
});

Tap.test('launch: dynamic shared memory', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    // reverses each block's slice through shared memory
    const fn = loadModule(ctx, `
__global__ void reverse(int *p)
{
    extern __shared__ int s[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    s[t] = p[base + t];
    __syncthreads();
    p[base + t] = s[blockDim.x - 1 - t];
}
`).get_function('reverse');
    const block = 128, blocks = 10, n = block * blocks;
    const data = randomInts(n);
    const buf = uploadNew(ctx, data);
    const args = GCuda.KernelArgs.new();
    args.add_buffer(buf);
    fn.launch(blocks, 1, 1, block, 1, 1, block * 4, null, args);
    const expected = new Int32Array(n);
    for (let i = 0; i < n; i++)
        expected[i] = data[Math.floor(i / block) * block + block - 1 - i % block];
    assertArraysEqual(download(buf, Int32Array, n), expected, 'reversed blocks');
});

Tap.test('module: PTX loaded through the JIT', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const compiler = GCuda.Compiler.new(ctx);
    compiler.set_target(GCuda.ProgramKind.PTX);
    const program = compiler.compile(AXPB);
    Tap.assertEqual(program.get_kind(), GCuda.ProgramKind.PTX);
    const module = GCuda.Module.new_from_data(ctx, program.get_image(), null);
    const axpb = module.get_function('axpb');
    const n = 999;
    const x = randomInts(n);
    const y = GCuda.Buffer.new(ctx, n * 4);
    const args = GCuda.KernelArgs.new();
    args.add_buffer(y);
    args.add_buffer(uploadNew(ctx, x));
    args.add_int32(-2);
    args.add_int64(12345);
    args.add_int32(n);
    axpb.launch(4, 1, 1, 256, 1, 1, 0, null, args);
    assertArraysEqual(download(y, Int32Array, n), Int32Array.from(x, v => -2 * v + 12345), 'PTX axpb');
});

Tap.test('module: a __constant__ through get_global', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const module = loadModule(ctx, `
__constant__ int table[16];
__global__ void lookup(int *out, const int *idx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[idx[i]];
}
`);
    const table = randomInts(16, 1 << 30);
    const global = module.get_global('table');
    Tap.assertEqual(global.get_size(), 64);
    global.upload(0, bytesOf(table));
    const n = 300;
    const idx = Int32Array.from({length: n}, () => Math.floor(Math.random() * 16));
    const out = GCuda.Buffer.new(ctx, n * 4);
    const args = GCuda.KernelArgs.new();
    args.add_buffer(out);
    args.add_buffer(uploadNew(ctx, idx));
    args.add_int32(n);
    module.get_function('lookup').launch(3, 1, 1, 128, 1, 1, 0, null, args);
    assertArraysEqual(download(out, Int32Array, n), Int32Array.from(idx, i => table[i]), 'table lookups');
    Tap.assertThrowsGError(() => module.get_global('no_such_global'),
        GCuda.driver_error_quark(), GCuda.DriverError.NOT_FOUND);
});

Tap.test('module_new_from_source: the one-liner', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const module = GCuda.Module.new_from_source(ctx, AXPB, null);
    const n = 256;
    const x = randomInts(n);
    const y = GCuda.Buffer.new(ctx, n * 4);
    const args = GCuda.KernelArgs.new();
    args.add_buffer(y);
    args.add_buffer(uploadNew(ctx, x));
    args.add_int32(5);
    args.add_int64(0);
    args.add_int32(n);
    module.get_function('axpb').launch(1, 1, 1, 256, 1, 1, 0, null, args);
    assertArraysEqual(download(y, Int32Array, n), Int32Array.from(x, v => 5 * v), 'source module axpb');
});

Tap.test('compile_async on the device, then launch', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    Tap.runAsync(async () => {
        const compiler = GCuda.Compiler.new(ctx);
        compiler.set_cache_dir('');
        const program = await compiler.compile_async(ADD, null);
        const add = GCuda.Module.new_from_program(ctx, program).get_function('add');
        const n = 4096;
        const a = Tap.randomFloats(n), b = Tap.randomFloats(n);
        const c = GCuda.Buffer.new(ctx, n * 4);
        const args = GCuda.KernelArgs.new();
        args.add_buffer(c);
        args.add_buffer(uploadNew(ctx, a));
        args.add_buffer(uploadNew(ctx, b));
        args.add_int32(n);
        add.launch(n / 256, 1, 1, 256, 1, 1, 0, null, args);
        const expected = new Float32Array(n);
        for (let i = 0; i < n; i++)
            expected[i] = a[i] + b[i];
        assertArraysEqual(download(c, Float32Array, n), expected, 'async-compiled add');
    }, 30000);
});

// ------------------------------------------------------------ bad input (GPU)

Tap.test('bad input: wrong argument count or size is KERNEL_ARGUMENTS', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const add = loadModule(ctx, ADD).get_function('add');
    const buf = GCuda.Buffer.new(ctx, 1024);
    const domain = GCuda.error_quark(), code = GCuda.Error.KERNEL_ARGUMENTS;

    const three = GCuda.KernelArgs.new();
    three.add_buffer(buf);
    three.add_buffer(buf);
    three.add_buffer(buf);
    Tap.assertThrowsGError(() => add.launch(1, 1, 1, 32, 1, 1, 0, null, three), domain, code, 'three of four');
    Tap.assertThrowsGError(() => add.launch(1, 1, 1, 32, 1, 1, 0, null, null), domain, code, 'no arguments');

    const five = GCuda.KernelArgs.new();
    [buf, buf, buf].forEach(x => five.add_buffer(x));
    five.add_int32(1);
    five.add_int32(2);
    Tap.assertThrowsGError(() => add.launch(1, 1, 1, 32, 1, 1, 0, null, five), domain, code, 'five of four');

    // an int64 where the kernel takes an int: the message names the parameter
    const wrongSize = GCuda.KernelArgs.new();
    [buf, buf, buf].forEach(x => wrongSize.add_buffer(x));
    wrongSize.add_int64(256);
    const e = Tap.assertThrowsGError(() => add.launch(1, 1, 1, 32, 1, 1, 0, null, wrongSize),
        domain, code, 'int64 for int');
    Tap.assert(/\b3\b/.test(e.message), `names parameter 3: ${e.message}`);
});

Tap.test('bad input: zero or oversized block and grid', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const add = loadModule(ctx, ADD).get_function('add');
    const buf = GCuda.Buffer.new(ctx, 1024);
    const args = GCuda.KernelArgs.new();
    [buf, buf, buf].forEach(x => args.add_buffer(x));
    args.add_int32(0);
    const domain = GCuda.error_quark(), code = GCuda.Error.INVALID_ARGUMENT;
    Tap.assertThrowsGError(() => add.launch(1, 1, 1, 0, 1, 1, 0, null, args), domain, code, 'block x 0');
    Tap.assertThrowsGError(() => add.launch(1, 1, 1, 32, 0, 1, 0, null, args), domain, code, 'block y 0');
    Tap.assertThrowsGError(() => add.launch(0, 1, 1, 32, 1, 1, 0, null, args), domain, code, 'grid x 0');
    Tap.assertThrowsGError(() => add.launch(1, 1, 0, 32, 1, 1, 0, null, args), domain, code, 'grid z 0');
    Tap.assertThrowsGError(() => add.launch(1, 1, 1, 2048, 1, 1, 0, null, args), domain, code, '2048 threads');
    Tap.assertThrowsGError(() => add.launch(1, 1, 1, 64, 64, 1, 0, null, args), domain, code, '64×64 threads');
    // too large a grid (y at most 65535): checked against the device's limits
    Tap.assertThrowsGError(() => add.launch(1, 70000, 1, 32, 1, 1, 0, null, args), domain, code, 'grid y 70000');
    Tap.assertThrowsGError(() => add.launch(1, 1, 1, 1, 1, 65, 0, null, args), domain, code, 'block z 65');
    // too much shared memory: the driver says INVALID_VALUE
    Tap.assertThrowsGError(() => add.launch(1, 1, 1, 32, 1, 1, 1 << 30, null, args),
        GCuda.driver_error_quark(), GCuda.DriverError.INVALID_VALUE, '1 GiB of shared memory');
    // nothing broke: a good launch still works
    add.launch(1, 1, 1, 32, 1, 1, 0, null, args);
    ctx.synchronize();
});

Tap.test('bad input: unknown function is the driver NOT_FOUND, naming it', () => {
    Tap.requireGpu();
    const module = loadModule(GCuda.Context.get_default(), ADD);
    const e = Tap.assertThrowsGError(() => module.get_function('no_such_kernel'),
        GCuda.driver_error_quark(), GCuda.DriverError.NOT_FOUND);
    Tap.assert(e.message.includes('no_such_kernel'), `names the function: ${e.message}`);
});

Tap.test('bad input: a stream of another context is CONTEXT_MISMATCH', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const add = loadModule(ctx, ADD).get_function('add');
    const other = ctx.device.create_context(GCuda.ContextFlags.SCHED_AUTO);
    try {
        const stream = GCuda.Stream.new(other, GCuda.StreamFlags.NON_BLOCKING, 0);
        const buf = GCuda.Buffer.new(ctx, 1024);
        const args = GCuda.KernelArgs.new();
        [buf, buf, buf].forEach(x => args.add_buffer(x));
        args.add_int32(0);
        Tap.assertThrowsGError(() => add.launch(1, 1, 1, 32, 1, 1, 0, stream, args),
            GCuda.error_quark(), GCuda.Error.CONTEXT_MISMATCH);
    } finally {
        other.destroy();
    }
});

Tap.run();
