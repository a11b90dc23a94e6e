// Modules, kernels and the compiler from GJS: NVRTC's version and
// architectures as numbers and an array, a program's cache key (nullable),
// modules from a kernel bundle (a directory as a Gio.File, a registered
// GResource) and from PTX, sync and as promises, a kernel's name, module,
// parameters and attributes, a packed and a timed launch, KernelArgs
// replaced by buffer and struct; on a GPU also globals and the linker.
// meson runs it without a driver (NVRTC alone), on the mock driver (its PTX
// modules, launches that run nothing, events: GCUDA_MOCK_KERNELS=1
// GCUDA_MOCK_EVENTS=1) and on a GPU, with GCUDA_TEST_BUNDLE_DIR and
// GCUDA_TEST_BUNDLE_GRESOURCE naming the PTX-only bundle tests/c builds
// (prefix /org/gnome/GCuda/tests/ptx; empty where the build had no NVRTC).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const Gio = imports.gi.Gio;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

Gio._promisify(GCuda.Module, 'new_from_data_async', 'new_from_data_finish');
Gio._promisify(GCuda.Module, 'new_from_directory_async', 'new_from_directory_finish');
Gio._promisify(GCuda.Module, 'new_from_resource_async', 'new_from_resource_finish');
Gio._promisify(GCuda.Module, 'new_from_source_async', 'new_from_source_finish');

const noDriver = GLib.getenv('GCUDA_TEST_DRIVER') === 'missing';
const onMock = GLib.getenv('GCUDA_MOCK_DEVICES') !== null;
const gpuTest = noDriver ? () => {} : (...args) => Tap.test(...args);
const realGpuTest = noDriver || onMock ? () => {} : gpuTest;
const domain = GCuda.error_quark();
const KERNEL_ARGUMENTS = GCuda.Error.KERNEL_ARGUMENTS;

function floatsOf(bytes) {
    const u8 = bytes.toArray().slice();
    return new Float32Array(u8.buffer, 0, u8.byteLength / 4);
}

// The PTX-only bundle: skipped (failed under GCUDA_TEST_REQUIRE_GPU=1) when
// the build had no NVRTC and wrote it empty.
const bundleDir = GLib.getenv('GCUDA_TEST_BUNDLE_DIR');
const bundleResource = GLib.getenv('GCUDA_TEST_BUNDLE_GRESOURCE');
let _registered = false;

function requireBundle() {
    Tap.requireNvrtc();
    Tap.assert(bundleDir && bundleResource, 'GCUDA_TEST_BUNDLE_DIR and GCUDA_TEST_BUNDLE_GRESOURCE are set');
    if (!GLib.file_test(`${bundleDir}/manifest`, GLib.FileTest.EXISTS))
        Tap.fail(`NVRTC is here but the bundle ${bundleDir} has no manifest`);
    if (!_registered) {
        Gio.Resource.load(bundleResource)._register();
        _registered = true;
    }
    return Gio.File.new_for_path(bundleDir);
}

// the bundle's PTX as a module image: NUL-terminated, as the driver reads it
function bundlePtx() {
    const [ok, contents] = GLib.file_get_contents(`${bundleDir}/report-arch.compute_80.ptx`);
    Tap.assert(ok);
    if (contents.length > 0 && contents[contents.length - 1] === 0)
        return contents;
    const image = new Uint8Array(contents.length + 1);
    image.set(contents);
    return image;
}

// Runs @fn, which must throw a GLib.Error in @errorDomain (any code).
function assertThrowsIn(fn, errorDomain, what) {
    let error = null;
    try {
        fn();
    } catch (e) {
        error = e;
    }
    Tap.assert(error instanceof GLib.Error, `${what}: expected a GLib.Error, got ${error}`);
    Tap.assertEqual(GLib.quark_to_string(error.domain), GLib.quark_to_string(errorDomain), `${what}: the domain`);
    return error;
}

// axpb(float *y, const float *x, float a, float b, int n): y = a * x + b,
// launched by @launch(y, x, a, b, n, grid, block). Checked on a GPU; on the
// mock (which runs nothing, and whose devices take blocks of at most 7
// threads and grids of 16) the launch must only succeed.
const BLOCK = onMock ? 4 : 128;

function checkAxpb(f, launch) {
    const context = f.get_module().get_context();
    const n = onMock ? 16 : 300;
    const x = Tap.randomFloats(n);
    const [a, b] = [Math.fround(Math.random() * 4 - 2), Math.fround(Math.random() * 10)];
    const xb = GCuda.Buffer.new(context, n * 4);
    xb.upload(0, new Uint8Array(x.buffer));
    const yb = GCuda.Buffer.new(context, n * 4);
    yb.memset_d32(0, 0, n, null);
    launch(yb, xb, a, b, n, Math.ceil(n / BLOCK), BLOCK);
    context.synchronize();
    if (!onMock) {
        const y = floatsOf(yb.download(0, n * 4));
        for (let i = 0; i < n; i++) {
            const want = Math.fround(Math.fround(a * x[i]) + b);
            Tap.assert(Math.abs(y[i] - want) <= 1e-5 * Math.max(1, Math.abs(want)), `y[${i}] = ${y[i]}, want ${want}`);
        }
    }
    xb.free();
    yb.free();
}

// ------------------------------------------------------------ NVRTC alone

Tap.test('NVRTC: the version as a number, the architectures as an array', () => {
    Tap.requireNvrtc();
    const version = GCuda.get_nvrtc_version();
    Tap.assertEqual(typeof version, 'number');
    Tap.assert(version >= 12000 && version % 10 === 0, `major * 1000 + minor * 10: ${version}`);
    const archs = GCuda.get_nvrtc_supported_archs();
    Tap.assert(Array.isArray(archs), `an array: ${archs}`);
    Tap.assert(archs.length > 3, `${archs.length} architectures`);
    Tap.assert(archs.includes(90), `sm_90 listed: ${archs}`);
    for (let i = 1; i < archs.length; i++)
        Tap.assert(archs[i] > archs[i - 1], 'ascending');
});

Tap.test('compiler and program: no context, the cache key', () => {
    Tap.requireNvrtc();
    const compiler = GCuda.Compiler.new(null);
    Tap.assertEqual(compiler.get_context(), null, 'nullable: the default context, unresolved');
    compiler.set_arch('sm_90');
    compiler.set_target(GCuda.ProgramKind.PTX);
    const salt = Math.floor(Math.random() * 1e9);
    const source = `__global__ void k(int *p) { *p = ${salt}; }\n`;
    compiler.set_cache_dir('');
    const uncached = compiler.compile(source);
    Tap.assertEqual(uncached.get_cache_key(), null, 'nullable: no key without the cache');
    const dir = GLib.dir_make_tmp('gcuda-reach-XXXXXX');
    compiler.set_cache_dir(dir);
    const first = compiler.compile(source);
    const key = first.get_cache_key();
    Tap.assert(/^[0-9a-f]{64}$/.test(key), `64 hexadecimal digits: ${key}`);
    Tap.assertEqual(first.cache_key, key, 'the cache-key property');
    const again = compiler.compile(source);
    Tap.assertEqual(again.get_cache_key(), key, 'the same source, the same key');
    Tap.assert(again.is_from_cache(), 'the second compile came from the cache');
    const other = compiler.compile(source.replace(`${salt}`, `${salt + 1}`));
    Tap.assert(other.get_cache_key() !== key, 'another source, another key');
});

if (noDriver) {
    Tap.test('no driver: modules and linkers say so', () => {
        Tap.assertThrowsGError(() => GCuda.Linker.new(null, null), domain, GCuda.Error.DRIVER_NOT_FOUND);
        // a bad image is refused first, before the driver is needed
        Tap.assertThrowsGError(() => GCuda.Module.new_from_data(null, new GLib.Bytes(new Uint8Array(0)), null),
            domain, GCuda.Error.INVALID_ARGUMENT);
    });
}

// ------------------------------------------------------------ a device

gpuTest('modules from a bundle directory and a resource, sync and as promises', () => {
    Tap.requireGpu();
    const dir = requireBundle();
    const context = GCuda.Context.get_default();
    const fromDir = GCuda.Module.new_from_directory(context, dir, null);
    Tap.assertEqual(fromDir.get_function('report_arch').get_param_count(), 1);
    const fromResource = GCuda.Module.new_from_resource(null, '/org/gnome/GCuda/tests/ptx', GCuda.JitOptions.new());
    Tap.assert(fromResource.get_context() === context, 'null: the default context');
    Tap.assertEqual(fromResource.get_function('axpb').get_param_count(), 5);
    Tap.assertEqual(typeof fromResource.get_info_log(), 'string');
    Tap.assertEqual(typeof fromResource.get_error_log(), 'string');
    Tap.runAsync(async () => {
        const a = await GCuda.Module.new_from_directory_async(context, dir, null, null);
        Tap.assert(a instanceof GCuda.Module, 'new_from_directory_finish gives the module');
        checkAxpb(a.get_function('axpb'), (y, x, al, be, n, grid, block) => {
            const args = GCuda.KernelArgs.new();
            args.add_buffer(y);
            args.add_buffer(x);
            args.add_float(al);
            args.add_float(be);
            args.add_int32(n);
            Tap.assert(a.get_function('axpb').launch(grid, 1, 1, block, 1, 1, 0, null, args));
        });
        const b = await GCuda.Module.new_from_resource_async(null, '/org/gnome/GCuda/tests/ptx', null, null);
        Tap.assertEqual(b.get_function('report_arch').get_name(), 'report_arch');
        const c = await GCuda.Module.new_from_data_async(context, new GLib.Bytes(bundlePtx()), null, null);
        Tap.assertEqual(c.get_function('axpb').get_param_size(4), 4);
        await Tap.assertRejects(GCuda.Module.new_from_directory_async(context,
            Gio.File.new_for_path(`${bundleDir}/no-such-directory`), null, null),
        Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND, 'a missing directory');
        await Tap.assertRejects(GCuda.Module.new_from_resource_async(null, '/org/gnome/GCuda/tests/nothing-here', null,
            null), Gio.resource_error_quark(), Gio.ResourceError.NOT_FOUND, 'a missing resource');
        await Tap.assertRejects(GCuda.Module.new_from_data_async(context, new GLib.Bytes(new Uint8Array(0)), null,
            null), domain, GCuda.Error.INVALID_ARGUMENT, 'an empty image');
    }, 60000);
    Tap.assertThrowsGError(() => GCuda.Module.new_from_directory(context, Gio.File.new_for_path('/nonexistent-gcuda'),
        null), Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND);
});

gpuTest('a kernel: name, module, parameters, attributes, set attributes', () => {
    Tap.requireGpu();
    requireBundle();
    const module = GCuda.Module.new_from_resource(null, '/org/gnome/GCuda/tests/ptx', null);
    const f = module.get_function('axpb');
    Tap.assertEqual(f.get_name(), 'axpb');
    Tap.assert(f.get_module() === module, 'the module that made it');
    // float *y, const float *x, float a, float b, int n
    const layout = [[0, 8], [8, 8], [16, 4], [20, 4], [24, 4]];
    for (let i = 0; i < layout.length; i++) {
        Tap.assertEqual(f.get_param_offset(i), layout[i][0], `offset of ${i}`);
        Tap.assertEqual(f.get_param_size(i), layout[i][1], `size of ${i}`);
    }
    Tap.assert(f.get_max_threads_per_block() >= 256 && f.get_max_threads_per_block() <= 1024);
    for (const getter of ['get_num_regs', 'get_ptx_version', 'get_binary_version', 'get_shared_size_bytes',
        'get_const_size_bytes', 'get_local_size_bytes', 'get_max_dynamic_shared_size_bytes']) {
        const v = f[getter]();
        Tap.assert(Number.isInteger(v) && v >= 0, `${getter}: ${v}`);
    }
    const bytes = 1024 * (1 + Math.floor(Math.random() * 40));
    Tap.assert(f.set_max_dynamic_shared_size(bytes));
    Tap.assertEqual(f.get_max_dynamic_shared_size_bytes(), bytes, 'read back');
    Tap.assert(f.set_attribute(GCuda.FunctionAttribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, 2048));
    Tap.assertEqual(f.max_dynamic_shared_size_bytes, 2048, 'the property follows');
    Tap.assert(f.set_cache_config(GCuda.CacheConfig.SHARED));
    assertThrowsIn(() => f.set_attribute(GCuda.FunctionAttribute.NUM_REGS, 3), GCuda.driver_error_quark(),
        'a read-only attribute: the driver refuses it');
});

gpuTest('launches: a packed parameter buffer, a timed launch', () => {
    Tap.requireGpu();
    requireBundle();
    const module = GCuda.Module.new_from_resource(null, '/org/gnome/GCuda/tests/ptx', null);
    const f = module.get_function('axpb');
    checkAxpb(f, (y, x, a, b, n, grid, block) => {
        const packed = new DataView(new ArrayBuffer(28));
        packed.setBigUint64(0, BigInt(y.get_address()), true);
        packed.setBigUint64(8, BigInt(x.get_address()), true);
        packed.setFloat32(16, a, true);
        packed.setFloat32(20, b, true);
        packed.setInt32(24, n, true);
        Tap.assert(f.launch_packed(grid, 1, 1, block, 1, 1, 0, null, new Uint8Array(packed.buffer)));
    });
    Tap.assertThrowsGError(() => f.launch_packed(1, 1, 1, BLOCK, 1, 1, 0, null, new Uint8Array(20)), domain,
        KERNEL_ARGUMENTS, 'a packed buffer of the wrong size');
    checkAxpb(f, (y, x, a, b, n, grid, block) => {
        const args = GCuda.KernelArgs.new();
        args.add_buffer(y);
        args.add_buffer(x);
        args.add_float(a);
        args.add_float(b);
        args.add_int32(n);
        const stream = GCuda.Stream.new(null, GCuda.StreamFlags.NON_BLOCKING, 0);
        const ms = f.launch_timed(grid, 1, 1, block, 1, 1, 0, stream, args);
        Tap.assertEqual(typeof ms, 'number');
        Tap.assert(ms >= 0 && ms < 10000, `launch_timed: ${ms} ms`);
    });
});

gpuTest('kernel arguments: a buffer and a struct replaced', () => {
    Tap.requireGpu();
    const context = GCuda.Context.get_default();
    const a = GCuda.Buffer.new(context, 64);
    const b = GCuda.Buffer.new(context, 64);
    const args = GCuda.KernelArgs.new();
    args.add_buffer(a);
    const s1 = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    args.add_struct(new GLib.Bytes(s1), 4);
    const pointerOf = i => {
        const d = args.get_value(i).toArray();
        return Number(new DataView(d.buffer, d.byteOffset, 8).getBigUint64(0, true));
    };
    Tap.assertEqual(pointerOf(0), a.get_address());
    Tap.assert(args.set_buffer(0, b));
    Tap.assertEqual(pointerOf(0), b.get_address(), 'set_buffer');
    const s2 = Uint8Array.from(s1, v => v * 3);
    Tap.assert(args.set_struct(1, new GLib.Bytes(s2)));
    Tap.assertEqual(args.get_value(1).toArray().join(), s2.join(), 'set_struct');
    Tap.assertThrowsGError(() => args.set_struct(1, new GLib.Bytes(new Uint8Array(8))), domain, KERNEL_ARGUMENTS,
        'a struct of another size');
    Tap.assertThrowsGError(() => args.set_buffer(1, a), domain, KERNEL_ARGUMENTS, 'a buffer over a struct');
    Tap.assertEqual(args.get_value(1).toArray().join(), s2.join(), 'unchanged by the errors');
    a.free();
    b.free();
});

gpuTest('a module from source as a promise', () => {
    Tap.requireGpu();
    Tap.requireNvrtc();
    const source = '__global__ void twice(float *y, int n)\n' +
        '{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] *= 2.0f; }\n';
    Tap.runAsync(async () => {
        if (onMock) {
            // the mock loads PTX only: the cubin compiled for its device is
            // refused, and the promise rejects with the driver's error
            await Tap.assertRejects(GCuda.Module.new_from_source_async(null, source, null, null),
                GCuda.driver_error_quark(), GCuda.DriverError.INVALID_IMAGE, 'a cubin on the mock');
            return;
        }
        const module = await GCuda.Module.new_from_source_async(null, source, ['-DUNUSED=1'], null);
        const f = module.get_function('twice');
        const n = 100;
        const x = Tap.randomFloats(n);
        const buf = GCuda.Buffer.new(null, n * 4);
        buf.upload(0, new Uint8Array(x.buffer));
        const args = GCuda.KernelArgs.new();
        args.add_buffer(buf);
        args.add_int32(n);
        f.launch(1, 1, 1, 128, 1, 1, 0, null, args);
        const y = floatsOf(buf.download(0, n * 4));
        for (let i = 0; i < n; i++)
            Tap.assertEqual(y[i], Math.fround(x[i] * 2), `y[${i}]`);
        await Tap.assertRejects(GCuda.Module.new_from_source_async(null, '__global__ void broken(', null, null),
            GCuda.compile_error_quark(), GCuda.CompileError.COMPILATION, 'a compile error');
    }, 60000);
});

// ------------------------------------------------------------ a GPU only (the mock lacks them)

realGpuTest('globals, occupancy', () => {
    Tap.requireGpu();
    Tap.requireNvrtc();
    const source = '__device__ float table[4];\n__constant__ int scale;\n' +
        '__global__ void use(float *out) { out[threadIdx.x] = table[threadIdx.x] * scale; }\n';
    const module = GCuda.Module.new_from_source(null, source, null);
    const table = module.get_global('table');
    Tap.assertEqual(table.get_kind(), GCuda.BufferKind.GLOBAL);
    Tap.assertEqual(table.get_size(), 16);
    const scaleBuf = module.get_global('scale');
    Tap.assertEqual(scaleBuf.get_size(), 4);
    const values = Tap.randomFloats(4);
    table.upload(0, new Uint8Array(values.buffer));
    const factor = 2 + Math.floor(Math.random() * 5);
    scaleBuf.upload(0, new Uint8Array(new Int32Array([factor]).buffer));
    const out = GCuda.Buffer.new(null, 16);
    const args = GCuda.KernelArgs.new();
    args.add_buffer(out);
    module.get_function('use').launch(1, 1, 1, 4, 1, 1, 0, null, args);
    const got = floatsOf(out.download(0, 16));
    for (let i = 0; i < 4; i++)
        Tap.assertEqual(got[i], Math.fround(values[i] * factor), `out[${i}]`);
    Tap.assertThrowsGError(() => module.get_global('no_such_global'), GCuda.driver_error_quark(),
        GCuda.DriverError.NOT_FOUND);
    const blocks = module.get_function('use').get_max_active_blocks_per_multiprocessor(128, 0);
    Tap.assert(Number.isInteger(blocks) && blocks >= 1, `${blocks} blocks of 128 threads per multiprocessor`);
});

const USER = 'extern __device__ int helper_h2(int x);\n' +
    '__global__ void use_helper(int *out) { out[threadIdx.x] = helper_h2((int) threadIdx.x); }\n';
const HELPER = '__device__ int helper_h2(int x) { return x * 7 + 1; }\n';

function checkUseHelper(module) {
    const out = GCuda.Buffer.new(null, 32);
    out.memset_d8(0, 0xd1, 32, null);
    const args = GCuda.KernelArgs.new();
    args.add_buffer(out);
    module.get_function('use_helper').launch(1, 1, 1, 8, 1, 1, 0, null, args);
    const d = out.download(0, 32).toArray().slice();
    const got = new Int32Array(d.buffer, 0, 8);
    for (let i = 0; i < 8; i++)
        Tap.assertEqual(got[i], i * 7 + 1, `out[${i}]`);
}

realGpuTest('the linker: sources, programs, files, a library, logs', () => {
    Tap.requireGpu();
    Tap.requireNvrtc();
    const context = GCuda.Context.get_default();
    const options = GCuda.JitOptions.new();
    options.set_log_verbose(true);
    const linker = GCuda.Linker.new(null, options);
    Tap.assert(linker.get_context() === context);
    Tap.assert(linker.add_source(null, USER));
    // the helper as the caller's relocatable PTX program
    const compiler = GCuda.Compiler.new(context);
    compiler.set_target(GCuda.ProgramKind.PTX);
    compiler.set_options(['-rdc=true']);
    const helper = compiler.compile(HELPER);
    Tap.assert(linker.add_program(helper));
    checkUseHelper(linker.complete());
    Tap.assertEqual(typeof linker.get_info_log(), 'string');
    Tap.assertEqual(typeof linker.get_error_log(), 'string');

    // both as PTX files
    const dir = GLib.dir_make_tmp('gcuda-reach-link-XXXXXX');
    const userPath = `${dir}/user.ptx`, helperPath = `${dir}/helper.ptx`;
    GLib.file_set_contents(userPath, compiler.compile(USER).get_image().toArray());
    GLib.file_set_contents(helperPath, helper.get_image().toArray());
    const files = GCuda.Linker.new(context, null);
    Tap.assert(files.add_file(GCuda.LinkInputType.PTX, userPath));
    Tap.assert(files.add_file(GCuda.LinkInputType.AUTO, helperPath));
    checkUseHelper(files.complete());
    GLib.unlink(userPath);
    GLib.unlink(helperPath);
    GLib.rmdir(dir);

    // a library by name, and the errors of bad input
    const bad = GCuda.Linker.new(null, null);
    Tap.assert(bad.add_library('cudadevrt'), 'the toolkit\'s device runtime');
    const e = assertThrowsIn(() => bad.add_library('nosuchlib_h2'), GLib.file_error_quark(), 'an unknown library');
    Tap.assert(e.message.includes('nosuchlib_h2'), e.message);
    Tap.assertThrowsGError(() => bad.add_library(''), domain, GCuda.Error.INVALID_ARGUMENT);
    Tap.assertThrowsGError(() => bad.add_file(GCuda.LinkInputType.PTX, '/nonexistent/h2.ptx'), GLib.file_error_quark(),
        GLib.FileError.NOENT);
    Tap.assertThrowsGError(() => bad.add_source(null, '__global__ void broken ('), GCuda.compile_error_quark(),
        GCuda.CompileError.COMPILATION);
    // an unresolved symbol: the error log names it
    const unresolved = GCuda.Linker.new(null, null);
    unresolved.add_source(null, USER);
    assertThrowsIn(() => unresolved.complete(), GCuda.driver_error_quark(), 'an unresolved symbol');
    Tap.assert(unresolved.get_error_log().includes('helper_h2'), unresolved.get_error_log());
});

Tap.run();
