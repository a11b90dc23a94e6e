// The GJS share of the bad-input catalogue (the Python one is
// tests/python/bad_input/): each case runs in a child gjs of its own
// (Gio.Subprocess) with G_DEBUG=fatal-criticals, and must end with exactly
// its expected outcome: a GError of a precise domain and code, an Error
// GJS raises before GCuda is reached (an argument out of range, a null
// where none is allowed), or a documented acceptance. A signal, a GLib
// critical or warning on stderr, a hang, or another outcome fails the case.
//
//   gjs testBadInput.js                 runs the cases of $GCUDA_BAD_INPUT_ENV
//   gjs testBadInput.js --case NAME     (a child) runs one case, prints RESULT {json}
//
// GCUDA_BAD_INPUT_ENV: nogpu (driver unloadable: what GCuda answers before
// the driver), mock (tests/mock: also devices, contexts, memory), gpu (all,
// skipped without a GPU, failed instead with GCUDA_TEST_REQUIRE_GPU=1).
//
// Known library defects keep the correct expectation; while one shows
// exactly as recorded the case is an expected failure ("not ok ... # TODO
// known defect: ...", as pytest's strict xfail), once it shows the correct
// outcome the case fails until its mark is removed, and any other outcome
// fails it.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const GLib = imports.gi.GLib;
const Gio = imports.gi.Gio;
const GObject = imports.gi.GObject;
const System = imports.system;
const Tap = imports.tap;

const NODRIVER = ['nogpu', 'mock', 'gpu'];
const MEMORY = ['mock', 'gpu'];
const GPU = ['gpu'];

const err = name => ({kind: 'gerror', domain: 'gcuda-error-quark', code: GCuda.Error[name], name});
const drv = name => ({kind: 'gerror', domain: 'gcuda-driver-error-quark', code: GCuda.DriverError[name], name});
const nvrtc = name => ({kind: 'gerror', domain: 'gcuda-compile-error-quark', code: GCuda.CompileError[name], name});
const fileError = (name, code) => ({kind: 'gerror', domain: 'g-file-error-quark', code, name});
// an Error GJS throws itself; @pattern must be in its message
const jsError = (name, pattern) => ({kind: 'js', name, pattern});
const accepted = reason => ({kind: 'accepted', reason});

const CASES = new Map();

// @seen, for a known defect: what the library does instead of @expect
function badCase(name, envs, expect, fn, {defect = null, seen = null} = {}) {
    if (CASES.has(name))
        throw new Error(`duplicate case ${name}`);
    if (expect.kind !== 'accepted' && expect.kind !== 'js' && expect.code === undefined)
        throw new Error(`${name}: unknown code ${expect.name}`);
    if ((defect === null) !== (seen === null))
        throw new Error(`${name}: a defect needs what is seen`);
    CASES.set(name, {name, envs, expect, fn, defect, seen});
}

// ------------------------------------------------------------ helpers the cases use

const ARCH = 'sm_90';
const KERNEL = '__global__ void fill(float *out, float value, int n)\n' +
    '{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = value; }';

const bytes = array => new GLib.Bytes(Uint8Array.from(array));
const dev = () => GCuda.Device.get(0);
const ctx = () => GCuda.Context.get_default();
const buf = (size = 64, context = null) => GCuda.Buffer.new(context, size);

function newContext() {
    const c = dev().create_context(GCuda.ContextFlags.SCHED_AUTO);
    if (GCuda.Context.get_current() === c)
        GCuda.Context.pop();
    return c;
}

function destroyedContext() {
    const c = newContext();
    c.destroy();
    return c;
}

function compilerFor(arch = ARCH) {
    const c = GCuda.Compiler.new(null);
    c.set_arch(arch);
    c.set_cache_dir('');  // no cache: every case compiles
    return c;
}

function deviceData(props = {}) {
    return new GCuda.DeviceData(Object.assign({
        compute_capability_major: 9, compute_capability_minor: 0, max_threads: 1024, warp_size: 32,
        warps_per_mp: 64, thread_blocks_per_mp: 32, registers: 65536, registers_per_block: 65536,
        max_registers_per_thread: 255, register_alloc_granularity: 256, shared_memory: 228 * 1024,
        shared_memory_per_block: 48 * 1024, shared_memory_per_block_optin: 227 * 1024,
        reserved_shared_memory_per_block: 1024, smem_granularity: 128, smem_alloc_granularity: 128,
    }, props));
}

const arrayDesc = (width, height = 0, depth = 0, channels = 1) =>
    GCuda.ArrayDescriptor.new(width, height, depth, GCuda.ArrayFormat.FLOAT, channels, GCuda.ArrayFlags.NONE);

function fill() {
    const program = compilerFor().compile(KERNEL);
    return GCuda.Module.new_from_program(null, program).get_function('fill');
}

// ------------------------------------------------------------ the cases

// devices and contexts
badCase('device/pci-bus-id-garbage', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Device.get_by_pci_bus_id('zz'));
badCase('device/pci-bus-id-empty', NODRIVER, err('INVALID_ARGUMENT'), () => GCuda.Device.get_by_pci_bus_id(''));
badCase('device/pci-bus-id-null', NODRIVER, jsError('Error', 'may not be null'),
    () => GCuda.Device.get_by_pci_bus_id(null));
badCase('device/unbound-attribute', NODRIVER, err('INVALID_ARGUMENT'),
    () => new GCuda.Device().get_attribute(GCuda.DeviceAttribute.WARP_SIZE));
badCase('device/ordinal-minus-one', MEMORY, drv('INVALID_DEVICE'), () => GCuda.Device.get(-1));
badCase('device/ordinal-count', MEMORY, drv('INVALID_DEVICE'), () => GCuda.Device.get(GCuda.Device.get_count()));
badCase('context/unbound-synchronize', NODRIVER, err('INVALID_ARGUMENT'), () => new GCuda.Context().synchronize());
badCase('context/create-flags-spin-and-yield', MEMORY, err('INVALID_ARGUMENT'),
    () => dev().create_context(GCuda.ContextFlags.SCHED_SPIN | GCuda.ContextFlags.SCHED_YIELD));
badCase('context/destroyed-synchronize', MEMORY, err('CONTEXT_DESTROYED'), () => destroyedContext().synchronize());
badCase('context/destroyed-buffer', MEMORY, err('CONTEXT_DESTROYED'), () => buf(64, destroyedContext()));
badCase('context/pop-empty-stack', MEMORY, drv('INVALID_CONTEXT'), () => GCuda.Context.pop());
// a pool binds its context at its first allocation (its constructor cannot fail)
badCase('context/destroyed-memory-pool', MEMORY, err('CONTEXT_DESTROYED'),
    () => GCuda.MemoryPool.new(destroyedContext()).allocate(64));
badCase('context/unbound-memory-pool', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.MemoryPool.new(new GCuda.Context()).allocate(64));

// device memory
badCase('memory/buffer-zero', NODRIVER, err('INVALID_ARGUMENT'), () => GCuda.Buffer.new(null, 0));
badCase('memory/buffer-negative', NODRIVER, jsError('Error', 'out of range'), () => GCuda.Buffer.new(null, -1));
badCase('memory/buffer-2-64', NODRIVER, jsError('Error', 'out of range'), () => GCuda.Buffer.new(null, 2 ** 64));
badCase('memory/pitched-access-3', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Buffer.new_pitched(null, 16, 16, 3));
badCase('memory/managed-flags-zero', NODRIVER, err('INVALID_ARGUMENT'), () => GCuda.Buffer.new_managed(null, 64, 0));
badCase('memory/ipc-handle-wrong-size', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Buffer.open_ipc_handle(null, bytes([1, 2, 3])));
badCase('memory/unbound-download', NODRIVER, err('INVALID_ARGUMENT'), () => new GCuda.Buffer().download(0, 1));
badCase('memory/unbound-free', NODRIVER, err('INVALID_ARGUMENT'), () => new GCuda.Buffer().free());
badCase('memory/unbound-stream', MEMORY, err('INVALID_ARGUMENT'),
    () => buf(64).memset_d8(0, 0, 8, new GCuda.Stream()));
badCase('memory/more-than-the-device', MEMORY, drv('OUT_OF_MEMORY'), () => GCuda.Buffer.new(null, 2 ** 50));
badCase('memory/view-past-end', MEMORY, err('OUT_OF_BOUNDS'), () => buf(64).new_view(60, 8));
badCase('memory/free-twice', MEMORY, err('FREED'), () => {
    const b = buf();
    b.free();
    b.free();
});
// exports (what GJS reaches of them: the memory itself only through copies)
badCase('memory/export-end-without-begin', MEMORY, err('INVALID_ARGUMENT'), () => buf(64).export_end());
badCase('memory/export-unbound', NODRIVER, err('INVALID_ARGUMENT'), () => new GCuda.Buffer().export_begin());
badCase('memory/export-freed', MEMORY, err('FREED'), () => {
    const b = buf();
    b.free();
    b.export_begin();
});
badCase('memory/export-free-then-download', MEMORY, err('FREED'), () => {
    const b = buf();
    b.new_view(0, 16).export_begin();
    b.free();
    b.download(0, 1);
});
badCase('memory/export-destroyed-context', MEMORY, err('CONTEXT_DESTROYED'), () => {
    const c = newContext();
    const b = buf(64, c);
    c.destroy();
    b.export_begin();
});
badCase('memory/download-past-end', MEMORY, err('OUT_OF_BOUNDS'), () => buf(64).download(0, 65));
badCase('memory/upload-past-end', MEMORY, err('OUT_OF_BOUNDS'), () => buf(64).upload(60, new Uint8Array(8)));
badCase('memory/memset-d16-odd-view', MEMORY, err('INVALID_ARGUMENT'),
    () => buf(64).new_view(1, 8).memset_d16(0, 0, 2, null));
badCase('memory/memset-d32-fraction', MEMORY, err('INVALID_ARGUMENT'), () => buf(64).memset_d32(0, 1.5, 4, null));
badCase('memory/memset-d8-nan', MEMORY, err('INVALID_ARGUMENT'), () => buf(64).memset_d8(0, NaN, 4, null));

// host memory
badCase('host/aligned-zero', NODRIVER, err('INVALID_ARGUMENT'), () => GCuda.HostBuffer.new_aligned(0, 4096));
badCase('host/aligned-alignment-3', NODRIVER, err('INVALID_ARGUMENT'), () => GCuda.HostBuffer.new_aligned(64, 3));
badCase('host/aligned-more-than-memory', NODRIVER, drv('OUT_OF_MEMORY'),
    () => GCuda.HostBuffer.new_aligned(2 ** 62, 0));
badCase('host/unbound-free', NODRIVER, err('INVALID_ARGUMENT'), () => new GCuda.HostBuffer().free());
badCase('host/read-past-end', NODRIVER, err('OUT_OF_BOUNDS'),
    () => GCuda.HostBuffer.new_aligned(4096, 0).read(0, 4097));
badCase('host/write-past-end', NODRIVER, err('OUT_OF_BOUNDS'),
    () => GCuda.HostBuffer.new_aligned(4096, 0).write(4090, bytes([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])));
badCase('host/freed-read', NODRIVER, err('FREED'), () => {
    const hb = GCuda.HostBuffer.new_aligned(4096, 0);
    hb.free();
    hb.read(0, 8);
});
badCase('host/export-end-without-begin', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.HostBuffer.new_aligned(4096, 0).export_end());
badCase('host/export-unbound', NODRIVER, err('INVALID_ARGUMENT'), () => new GCuda.HostBuffer().export_begin());
badCase('host/export-free-then-read', NODRIVER, err('FREED'), () => {
    const hb = GCuda.HostBuffer.new_aligned(4096, 0);
    hb.export_begin();
    hb.free();
    hb.read(0, 8);
});
badCase('host/export-freed', NODRIVER, err('FREED'), () => {
    const hb = GCuda.HostBuffer.new_aligned(4096, 0);
    hb.free();
    hb.export_begin();
});
badCase('host/export-destroyed-context', MEMORY, err('CONTEXT_DESTROYED'), () => {
    const c = newContext();
    const hb = GCuda.HostBuffer.new_pagelocked(c, 4096, 0);
    c.destroy();
    hb.export_begin();
});
badCase('host/export-destroyed-context-read', MEMORY, err('CONTEXT_DESTROYED'), () => {
    const c = newContext();
    const hb = GCuda.HostBuffer.new_pagelocked(c, 4096, 0);
    hb.export_begin();
    c.destroy();
    hb.read(0, 8);
});
badCase('host/unregister-aligned', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.HostBuffer.new_aligned(4096, 0).unregister());
badCase('host/register-unaligned', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.HostBuffer.register(null, 4097, 4096, 0));
badCase('host/pagelocked-unknown-flags', NODRIVER, jsError('Error', 'not a valid value'),
    () => GCuda.HostBuffer.new_pagelocked(null, 64, 0x10));

// streams and events
badCase('stream/priority-out-of-range', MEMORY, err('INVALID_ARGUMENT'), () => GCuda.Stream.new(null, 0, 1));
badCase('event/interprocess-with-timing', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Event.new(null, GCuda.EventFlags.INTERPROCESS));
badCase('event/unknown-flags', NODRIVER, jsError('Error', 'not a valid value'), () => GCuda.Event.new(null, 0x100));
badCase('event/ipc-handle-wrong-size', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Event.new_from_ipc_handle(null, bytes([1, 2, 3])));
badCase('event/time-never-recorded', GPU, err('INVALID_ARGUMENT'),
    () => GCuda.Event.new(null, 0).elapsed(GCuda.Event.new(null, 0)));

// compiler and modules
badCase('compiler/syntax-error', NODRIVER, nvrtc('COMPILATION'),
    () => compilerFor().compile('__global__ void k( {'));
badCase('compiler/unknown-option', NODRIVER, nvrtc('INVALID_OPTION'), () => {
    const c = compilerFor();
    c.set_options(['--no-such-nvrtc-option']);
    c.compile(KERNEL);
});
badCase('compiler/arch-garbage', NODRIVER, nvrtc('INVALID_OPTION'), () => compilerFor('bogus').compile(KERNEL));
badCase('compiler/missing-include', NODRIVER, nvrtc('COMPILATION'),
    () => compilerFor().compile(`#include "no-such-header.h"\n${KERNEL}`));
// a last option waiting for its value would take the architecture GCuda adds
badCase('compiler/trailing-option', NODRIVER, err('INVALID_ARGUMENT'), () => {
    const c = compilerFor();
    c.set_options(['-I']);
    c.compile(KERNEL);
});
badCase('compiler/separate-option-value', NODRIVER, accepted('the value may be the next option'), () => {
    const c = compilerFor();
    c.set_options(['-I', '/nonexistent']);
    c.set_target(GCuda.ProgramKind.PTX);
    const program = c.compile(KERNEL);
    if (!new TextDecoder().decode(program.get_image().get_data()).includes('.target sm_90'))
        throw new Error('not compiled for sm_90');
});
badCase('compiler/keep-under-a-file', NODRIVER, fileError('NOTDIR', 5), () => {
    const c = compilerFor();
    c.set_keep('/etc/passwd/kept');
    c.compile(KERNEL);
});
badCase('module/image-garbage', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Module.new_from_data(null, bytes([1, 2, 3, 4, 5]), null));
badCase('module/image-empty', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Module.new_from_data(null, bytes([]), null));
badCase('module/cubin-truncated', NODRIVER, err('INVALID_ARGUMENT'), () => {
    const cubin = compilerFor().compile(KERNEL).get_image().get_data();
    GCuda.Module.new_from_data(null, new GLib.Bytes(cubin.slice(0, cubin.length >> 1)), null);
});
badCase('module/file-missing', NODRIVER, fileError('NOENT', 4),
    () => GCuda.Module.new_from_file(null, '/nonexistent/kernel.cubin', null));
// JIT options keep any value; where they are used, one out of range is refused
const PTX = bytes(Array.from('.version 8.0\n.target sm_90\n.address_size 64\n\0', ch => ch.charCodeAt(0)));
badCase('module/jit-setter-keeps-value', NODRIVER, accepted('checked where used'), () => {
    const options = new GCuda.JitOptions();
    options.set_max_registers(1000);
    if (options.get_max_registers() !== 1000)
        throw new Error('the value was not kept');
});
badCase('module/jit-setter-out-of-range', NODRIVER, err('INVALID_ARGUMENT'), () => {
    const options = new GCuda.JitOptions();
    options.set_max_registers(1000);
    GCuda.Module.new_from_data(null, PTX, options);
});
badCase('module/jit-property-out-of-range', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Module.new_from_data(null, PTX, new GCuda.JitOptions({threads_per_block: 5000})));
badCase('tools/device-data-negative-figure', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Occupancy.new(deviceData({max_threads: -1}), 128, 0, 0));
badCase('module/function-unknown', GPU, drv('NOT_FOUND'),
    () => GCuda.Module.new_from_program(null, compilerFor().compile(KERNEL)).get_function('no_such_kernel'));

// kernel arguments and launches
badCase('kernel/args-set-missing-index', NODRIVER, err('KERNEL_ARGUMENTS'),
    () => new GCuda.KernelArgs().set_int32(3, 1));
badCase('kernel/args-set-wrong-size', NODRIVER, err('KERNEL_ARGUMENTS'), () => {
    const a = new GCuda.KernelArgs();
    a.add_int32(1);
    a.set_double(0, 1.0);
});
// GCuda's own check (the setters GJS calls take a double), not GJS's
badCase('kernel/args-int8-out-of-range', NODRIVER, err('KERNEL_ARGUMENTS'),
    () => new GCuda.KernelArgs().add_int8(200));
badCase('kernel/args-int32-fraction', NODRIVER, err('KERNEL_ARGUMENTS'),
    () => new GCuda.KernelArgs().add_int32(3.7));
badCase('kernel/args-uint64-beyond-2-53', NODRIVER, err('KERNEL_ARGUMENTS'),
    () => new GCuda.KernelArgs().add_uint64(2 ** 53 + 2));
badCase('kernel/launch-argument-count', GPU, err('KERNEL_ARGUMENTS'), () => {
    const a = new GCuda.KernelArgs();
    a.add_buffer(buf(4096));
    fill().launch(1, 1, 1, 32, 1, 1, 0, null, a);
});
badCase('kernel/launch-block-zero', GPU, err('INVALID_ARGUMENT'), () => {
    const a = new GCuda.KernelArgs();
    a.add_buffer(buf(4096));
    a.add_float(1.0);
    a.add_int32(32);
    fill().launch(1, 1, 1, 0, 1, 1, 0, null, a);
});

// pools, arrays, device tools, copies
badCase('pool/allocate-zero', NODRIVER, err('INVALID_ARGUMENT'), () => GCuda.MemoryPool.new(null).allocate(0));
badCase('pool/free-address-unknown', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.MemoryPool.new(null).free_address(0x1000));
badCase('array/descriptor-width-zero', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Array.new(null, arrayDesc(0)));
badCase('array/descriptor-channels-3', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Array.new(null, arrayDesc(16, 0, 0, 3)));
badCase('array/texture-unbound-buffer', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Texture.new_from_buffer(new GCuda.Buffer(), GCuda.ArrayFormat.FLOAT, 1, null));
badCase('tools/occupancy-zero-threads', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Occupancy.new(deviceData(), 0, 0, 0));
badCase('tools/occupancy-missing-figures', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Occupancy.new(new GCuda.DeviceData({max_threads: 1024}), 128, 0, 0));
badCase('tools/align-bytes-3', NODRIVER, err('INVALID_ARGUMENT'), () => deviceData().align_bytes(3));
badCase('copy/no-source', NODRIVER, err('INVALID_ARGUMENT'), () => {
    const c = new GCuda.Copy2D();
    c.set_dst_host(1 << 20, 64);
    c.width_in_bytes = 8;
    c.aligned = false;
    c.execute(null);
});
badCase('copy/pitch-too-small', NODRIVER, err('INVALID_ARGUMENT'), () => {
    const c = new GCuda.Copy2D();
    c.set_src_host(1 << 20, 4096);
    c.set_dst_host(2 << 20, 4096);
    c.width_in_bytes = 16;
    c.height = 4;
    c.src_pitch = 8;
    c.dst_pitch = 16;
    c.execute(null);
});

// objects made by hand (new GCuda.X() without the constructor): INVALID_ARGUMENT, never a crash
badCase('by-hand/graph-get-node-count', NODRIVER, err('INVALID_ARGUMENT'), () => new GCuda.Graph().get_node_count());
badCase('by-hand/graph-instantiate', NODRIVER, err('INVALID_ARGUMENT'), () => new GCuda.Graph().instantiate());
badCase('by-hand/graph-exec-launch', NODRIVER, err('INVALID_ARGUMENT'), () => new GCuda.GraphExec().launch(null));
badCase('by-hand/graph-exec-update', NODRIVER, err('INVALID_ARGUMENT'),
    () => new GCuda.GraphExec().update(new GCuda.Graph()));
badCase('by-hand/linker-add-data', NODRIVER, err('INVALID_ARGUMENT'),
    () => new GCuda.Linker().add_data(GCuda.LinkInputType.PTX, new GLib.Bytes(new TextEncoder().encode('.version\0')),
        null));
badCase('by-hand/linker-complete', NODRIVER, err('INVALID_ARGUMENT'), () => new GCuda.Linker().complete());
badCase('by-hand/function-get-attribute', NODRIVER, err('INVALID_ARGUMENT'),
    () => new GCuda.Function().get_attribute(GCuda.FunctionAttribute.NUM_REGS));
badCase('by-hand/function-launch', NODRIVER, err('INVALID_ARGUMENT'),
    () => new GCuda.Function().launch(1, 1, 1, 1, 1, 1, 0, null, null));
badCase('by-hand/function-potential-block-size', NODRIVER, err('INVALID_ARGUMENT'),
    () => new GCuda.Function().get_potential_block_size(0, 0));
badCase('by-hand/program-get-lowered-name', NODRIVER,
    accepted('documented: null for a name the compile was not given'), () => {
        if (new GCuda.Program().get_lowered_name('k<int>') !== null)
            throw new Error('a lowered name from nothing');
    });
badCase('by-hand/program-load', NODRIVER, err('INVALID_ARGUMENT'),
    () => GCuda.Module.new_from_program(null, new GCuda.Program()));
badCase('by-hand/module-get-function', NODRIVER, err('INVALID_ARGUMENT'),
    () => new GCuda.Module().get_function('k'));
badCase('by-hand/stream-synchronize', NODRIVER, err('INVALID_ARGUMENT'), () => new GCuda.Stream().synchronize());

// ------------------------------------------------------------ running a case (the child)

function describeError(e) {
    if (e instanceof GLib.Error) {
        return {outcome: 'raised', domain: GLib.quark_to_string(e.domain), code: e.code,
            message: String(e.message).slice(0, 600)};
    }
    return {outcome: 'raised', type: e && e.name ? e.name : typeof e, message: String(e && e.message).slice(0, 600)};
}

function runChild(name) {
    const c = CASES.get(name);
    let result;
    try {
        c.fn();
        result = {outcome: 'returned'};
    } catch (e) {
        result = describeError(e);
    }
    print(`RESULT ${JSON.stringify(result)}`);
    System.gc();  // finalizers run while the parent watches
    System.exit(0);
}

// ------------------------------------------------------------ the parent: children, then TAP

function environment() {
    const env = GLib.getenv('GCUDA_BAD_INPUT_ENV');
    if (env)
        return env;
    const library = GLib.getenv('GCUDA_DRIVER_LIBRARY') || '';
    if (library.includes('mock'))
        return 'mock';
    return library.startsWith('/nonexistent') ? 'nogpu' : 'gpu';
}

const SIGNALS = {4: 'SIGILL', 5: 'SIGTRAP', 6: 'SIGABRT', 7: 'SIGBUS', 8: 'SIGFPE', 9: 'SIGKILL', 11: 'SIGSEGV'};
const GLIB_MESSAGE = /^.*-(CRITICAL|WARNING) \*\*.*$/m;
const TIMEOUT_SECONDS = 60;

function jobs() {
    const n = parseInt(GLib.getenv('GCUDA_BAD_INPUT_JOBS') || '', 10);
    return n > 0 ? n : Math.max(1, Math.min(4, GLib.get_num_processors()));
}

// Runs every case of @names in a child, @jobs at a time; returns name -> run.
function runAll(names) {
    const gjs = GLib.file_read_link('/proc/self/exe');
    const launcher = new Gio.SubprocessLauncher({
        flags: Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_PIPE,
    });
    const debug = (GLib.getenv('G_DEBUG') || '').split(',').filter(f => f);
    if (!debug.includes('fatal-criticals'))
        debug.push('fatal-criticals');
    launcher.setenv('G_DEBUG', debug.join(','), true);
    launcher.setenv('MALLOC_PERTURB_', '165', true);
    const runs = new Map();
    const queue = names.slice();
    const loop = new GLib.MainLoop(null, false);
    let running = 0;

    const next = () => {
        while (running < jobs() && queue.length > 0) {
            const name = queue.shift();
            const start = GLib.get_monotonic_time();
            // no core dumps: the crash is the result, and cores are slow
            const proc = launcher.spawnv(['/bin/sh', '-c', 'ulimit -c 0 2>/dev/null; exec "$0" "$@"',
                gjs, '-I', GLib.path_get_dirname(System.programPath), System.programPath, '--case', name]);
            let hang = false;
            const timer = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, TIMEOUT_SECONDS, () => {
                hang = true;
                proc.force_exit();
                return GLib.SOURCE_REMOVE;
            });
            running++;
            proc.communicate_utf8_async(null, null, (p, res) => {
                let stdout = '', stderr = '';
                try {
                    [, stdout, stderr] = p.communicate_utf8_finish(res);
                } catch (e) {
                    stderr = `${stderr || ''}\n(reading the child failed: ${e})`;
                }
                if (!hang)
                    GLib.source_remove(timer);
                const line = (stdout || '').split('\n').find(l => l.startsWith('RESULT '));
                runs.set(name, {
                    result: line ? JSON.parse(line.slice('RESULT '.length)) : null,
                    hang,
                    signal: !hang && p.get_if_signaled() ? p.get_term_sig() : null,
                    exit: p.get_if_exited() ? p.get_exit_status() : null,
                    stderr: (stderr || '').slice(-3000),
                    seconds: (GLib.get_monotonic_time() - start) / 1e6,
                });
                running--;
                if (queue.length === 0 && running === 0)
                    loop.quit();
                else
                    next();
            });
        }
    };
    if (queue.length > 0) {
        next();
        loop.run();
    }
    return runs;
}

// In a sanitizer build a crash is ASan's report and exit, not the signal:
// SEGV reads as the signal would, any other memory error under its own name.
const ASAN_SUMMARY = /SUMMARY: AddressSanitizer: ([\w-]+)/;

function describeOutcome(run) {
    const res = run.result || {};
    if (run.hang)
        return 'hang';
    const asan = ASAN_SUMMARY.exec(run.stderr);
    if (asan)
        return ['SEGV', 'BUS', 'FPE'].includes(asan[1]) ? `crash (SIG${asan[1]})` : `crash (ASan ${asan[1]})`;
    if (run.signal !== null) {
        const m = GLIB_MESSAGE.exec(run.stderr);
        return m && m[1] === 'CRITICAL' ? 'critical' : `crash (${SIGNALS[run.signal] || run.signal})`;
    }
    if (GLIB_MESSAGE.test(run.stderr))
        return 'warning';
    if (run.exit !== 0)
        return `exit status ${run.exit}`;
    if (res.outcome === 'returned')
        return 'accepted';
    if (res.outcome === 'raised')
        return res.domain !== undefined ? `${res.domain} ${res.code}` : res.type;
    return 'no result';
}

function describeExpect(x) {
    if (x.kind === 'gerror')
        return `${x.domain} ${x.name} (${x.code})`;
    if (x.kind === 'js')
        return `${x.name} (${x.pattern})`;
    return `accepted (${x.reason})`;
}

function matches(x, run) {
    const res = run.result || {};
    if (run.hang || run.signal !== null || run.exit !== 0 || GLIB_MESSAGE.test(run.stderr))
        return false;
    if (x.kind === 'accepted')
        return res.outcome === 'returned';
    if (res.outcome !== 'raised')
        return false;
    if (x.kind === 'js')
        return res.domain === undefined && res.type === x.name && res.message.includes(x.pattern);
    return res.domain === x.domain && res.code === x.code && Boolean(res.message);
}

// Whether @run (its case expecting @x) only got as far as GCuda not finding
// NVRTC, on a machine where NVRTC indeed cannot be loaded: the case
// compiles, so it cannot run here.
function stoppedForLackOfNvrtc(x, run) {
    const res = run.result || {};
    const code = GCuda.Error.NVRTC_NOT_FOUND;
    if (run.signal !== null || res.outcome !== 'raised' || res.domain !== 'gcuda-error-quark' || res.code !== code)
        return false;
    if (x.kind === 'gerror' && x.domain === 'gcuda-error-quark' && x.code === code)
        return false;
    return Tap.noNvrtcReason() !== null;
}

function check(c, run, env) {
    if (env === 'gpu')
        Tap.requireGpu();
    if (run === undefined)
        Tap.fail('the case was not run');
    if (stoppedForLackOfNvrtc(c.expect, run))
        Tap.requireNvrtc();  // skips, or fails under GCUDA_TEST_REQUIRE_GPU=1
    if (matches(c.expect, run)) {
        if (c.defect !== null)
            Tap.fail(`known defect fixed? it shows the correct outcome now: remove its mark (${c.defect})`);
        return;
    }
    const outcome = describeOutcome(run);
    const res = run.result || {};
    const detail = `expected ${describeExpect(c.expect)}, got ${outcome}` +
        `${res.message ? `: ${res.message}` : ''}\nstderr: ${run.stderr.slice(-1500)}`;
    if (c.defect !== null) {
        if (outcome === c.seen)
            Tap.todo(`known defect: ${c.defect} (shows ${outcome})`);
        Tap.fail(`known defect, but it no longer shows as recorded (${c.seen}): ${detail}`);
    }
    Tap.fail(detail);
}

function main() {
    const caseArg = ARGV.indexOf('--case');
    if (caseArg >= 0) {
        runChild(ARGV[caseArg + 1]);
        return;
    }
    const env = environment();
    const cases = [...CASES.values()].filter(c => c.envs.includes(env));
    let usable = true;
    if (env === 'gpu') {
        try {
            Tap.requireGpu();
        } catch (e) {
            usable = false;  // each case skips (or fails) again below
        }
    }
    const runs = usable ? runAll(cases.map(c => c.name)) : new Map();
    for (const c of cases)
        Tap.test(`${env}: ${c.name}`, () => check(c, runs.get(c.name), env));
    Tap.test('the GJS share has 30 cases or more', () => Tap.assert(CASES.size >= 30, `${CASES.size} cases`));
    Tap.run();
}

main();
