// The natural shape of GCuda's results in GJS: out parameters as arrays of
// the values alone, arrays, nullable returns, flags, callbacks. meson runs
// it on the mock driver (mock) and on a GPU (gpu); without a device every
// test skips (fails under GCUDA_TEST_REQUIRE_GPU=1). The Compiler's
// accessors need no driver and run everywhere.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

// With the driver made unloadable (js-reach-nodriver, nogpu) only the cases
// that need no driver are registered: the others would fail under
// GCUDA_TEST_REQUIRE_GPU=1 where they cannot run by design.
const noDriver = GLib.getenv('GCUDA_TEST_DRIVER') === 'missing';
const gpuTest = noDriver ? () => {} : (...args) => Tap.test(...args);

Tap.test('compiler: string arrays, nullable strings, properties', () => {
    const compiler = GCuda.Compiler.new(null);
    compiler.set_options(['-DVALUE=3', '-lineinfo']);
    Tap.assertEqual(JSON.stringify(compiler.get_options()), '["-DVALUE=3","-lineinfo"]');
    Tap.assertEqual(JSON.stringify(compiler.options), '["-DVALUE=3","-lineinfo"]');
    compiler.include_dirs = ['/usr/include/nothing'];
    Tap.assertEqual(JSON.stringify(compiler.get_include_dirs()), '["/usr/include/nothing"]');
    compiler.set_options(null);
    Tap.assert(compiler.get_options() === null || compiler.get_options().length === 0, 'options cleared');
    compiler.set_arch('sm_90');
    Tap.assertEqual(compiler.get_arch(), 'sm_90');
    compiler.set_target(GCuda.ProgramKind.PTX);
    Tap.assertEqual(compiler.get_target(), GCuda.ProgramKind.PTX);
    Tap.assertEqual(compiler.get_keep(), null, 'nullable: no directory to keep files in');
    compiler.set_keep('/tmp/gcuda-keep-unused');
    Tap.assertEqual(compiler.get_keep(), '/tmp/gcuda-keep-unused');
    compiler.set_keep(null);
    compiler.set_no_extern_c(true);
    Tap.assertEqual(compiler.get_no_extern_c(), true);
    compiler.set_cache_dir('');
    Tap.assertEqual(compiler.get_cache_dir(), '');
    compiler.set_code('sm_90');
    Tap.assertEqual(compiler.get_code(), 'sm_90');
    compiler.add_header('mine.h', '#define MINE 1\n');
    compiler.add_name_expression('f');
    Tap.assertEqual(compiler.get_last_log(), null, 'no log before a compile');
});

gpuTest('context: out values alone, nullable current, push and pop', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const info = ctx.get_memory_info();
    Tap.assertEqual(info.length, 2, 'get_memory_info: [free, total]');
    const [free, total] = info;
    Tap.assert(typeof free === 'number' && free > 0 && free <= total, `free ${free} total ${total}`);
    const range = ctx.get_stream_priority_range();
    Tap.assertEqual(range.length, 2, 'get_stream_priority_range: [least, greatest]');
    Tap.assert(range[1] <= range[0], `greatest ${range[1]} <= least ${range[0]}`);
    Tap.assert(ctx.get_api_version() > 0);
    Tap.assertEqual(typeof ctx.get_flags(), 'number');
    Tap.assert(ctx.get_handle() > 0);
    Tap.assert(ctx.is_primary());
    Tap.assert(!ctx.is_destroyed());
    Tap.assert(ctx.get_device().equal(GCuda.Device.get(ctx.get_device().get_ordinal())));
    Tap.assert(GCuda.Context.get_thread_default() === ctx, 'the thread default is the default');
    Tap.assertEqual(GCuda.Context.get_current(), null, 'nothing current between calls');
    ctx.push();
    Tap.assert(GCuda.Context.get_current() === ctx, 'pushed');
    GCuda.Context.pop();
    Tap.assertEqual(GCuda.Context.get_current(), null, 'popped');
    ctx.set_limit(GCuda.Limit.STACK_SIZE, 4096);
    Tap.assert(ctx.get_limit(GCuda.Limit.STACK_SIZE) >= 4096);
    ctx.synchronize();
});

gpuTest('device: out values, hash tables, arrays', () => {
    Tap.requireGpu();
    const dev = GCuda.Device.get(0);
    const state = dev.get_primary_context_state();
    Tap.assertEqual(state.length, 2, 'get_primary_context_state: [flags, active]');
    Tap.assertEqual(typeof state[0], 'number');
    Tap.assertEqual(typeof state[1], 'boolean');
    const cc = dev.get_compute_capability();
    Tap.assertEqual(cc.length, 2);
    Tap.assert(cc[0] >= 3);
    const attrs = dev.get_attributes();
    Tap.assertEqual(attrs['warp_size'], 32, 'a hash table is an object: name → value');
    Tap.assertEqual(dev.get_attribute(GCuda.DeviceAttribute.WARP_SIZE), 32);
    Tap.assertEqual(dev.get_warp_size(), 32);
    Tap.assert(dev.get_max_threads_per_block() >= 1024);
    Tap.assert(dev.get_multiprocessor_count() > 0);
    Tap.assert(dev.get_total_memory() > 0);
    Tap.assertEqual(typeof dev.get_compute_mode(), 'number');
    Tap.assert(/^[0-9a-f-]{36}$/.test(dev.get_uuid()), dev.get_uuid());
    const same = GCuda.Device.get_by_pci_bus_id(dev.get_pci_bus_id());
    Tap.assert(same.equal(dev) && same.hash() === dev.hash(), 'the same device by bus id');
    const list = GCuda.Device.list();
    Tap.assert(Array.isArray(list), 'list() is an array');
    Tap.assertEqual(list.length, GCuda.Device.get_count());
    Tap.assert(list[0].equal(dev));
    Tap.assert(dev.get_name().length > 0);
});

gpuTest('buffers: bytes in and out, memset, views, pointer info', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const data = Tap.randomBytes(4096);
    const buf = GCuda.Buffer.new(ctx, data.length);
    Tap.assertEqual(buf.get_size(), 4096);
    Tap.assert(buf.get_context() === ctx);
    buf.upload(0, data);
    Tap.assert(Tap.sameBytes(buf.download(0, data.length), data), 'upload then download');
    const other = GCuda.Buffer.new_from_bytes(ctx, new GLib.Bytes(data));
    Tap.assert(Tap.sameBytes(other.download(0, data.length), data), 'new_from_bytes');
    other.memset_d8(0, 7, 16, null);
    other.memset_d16(16, 0x0102, 8, null);
    other.memset_d32(32, 0x01020304, 4, null);
    const head = other.download(0, 48).toArray();
    Tap.assert(head.slice(0, 16).every(b => b === 7), 'memset_d8');
    Tap.assertEqual(head[16], 2);
    Tap.assertEqual(head[17], 1);
    Tap.assertEqual(head[32], 4);
    Tap.assertEqual(head[35], 1);
    Tap.assert(Tap.sameBytes(other.download(48, 16), data.slice(48, 64)), 'beyond the memsets');
    other.copy_from(0, buf, 0, 4096);
    Tap.assert(Tap.sameBytes(other.download(0, 4096), data), 'copy_from');

    const view = buf.new_view(1024, 512);
    Tap.assert(view.get_parent() === buf, 'a view knows its parent');
    Tap.assertEqual(buf.get_parent(), null, 'nullable: no parent');
    Tap.assertEqual(view.get_address(), buf.get_address() + 1024);
    Tap.assert(Tap.sameBytes(view.download(0, 512), data.slice(1024, 1536)), 'the view reads the parent');
    const range = ctx.get_address_range(view.get_address());
    Tap.assertEqual(range.length, 2, 'get_address_range: [base, size]');
    Tap.assertEqual(range[0], buf.get_address());
    Tap.assert(range[1] >= 4096);
    const pinfo = GCuda.Context.get_pointer_info(buf.get_address());
    Tap.assertEqual(pinfo.length, 4, 'get_pointer_info: [type, ordinal, managed, context]');
    Tap.assertEqual(pinfo[0], GCuda.MemoryType.DEVICE);
    Tap.assertEqual(pinfo[1], ctx.get_device().get_ordinal());
    Tap.assertEqual(pinfo[2], false);
    Tap.assert(pinfo[3] === ctx, 'the context GCuda knows');
    const host = GCuda.HostBuffer.new_aligned(256, 64);
    const hinfo = GCuda.Context.get_pointer_info(host.get_address());
    Tap.assertEqual(hinfo[0], GCuda.MemoryType.UNKNOWN, 'ordinary host memory');
    Tap.assertEqual(hinfo[1], -1);
    Tap.assertEqual(hinfo[3], null, 'nullable: no context');
    buf.free();
    Tap.assert(buf.is_freed());
    Tap.assertThrowsGError(() => buf.download(0, 1), GCuda.error_quark(), GCuda.Error.FREED);
});

gpuTest('host buffers: write and read, kinds', () => {
    Tap.requireGpu();
    const data = Tap.randomBytes(1000);
    const aligned = GCuda.HostBuffer.new_aligned(1000, 256);
    Tap.assertEqual(aligned.get_address() % 256, 0, 'aligned');
    Tap.assertEqual(aligned.get_size(), 1000);
    aligned.write(0, new GLib.Bytes(data));
    Tap.assert(Tap.sameBytes(aligned.read(0, 1000), data), 'write then read');
    Tap.assertEqual(aligned.get_context(), null, 'nullable: plain host memory has no context');
    const pinned = GCuda.HostBuffer.new_pagelocked(null, 1000, 0);
    Tap.assert(pinned.get_kind() !== aligned.get_kind(), 'two kinds');
    pinned.write(0, new GLib.Bytes(data));
    Tap.assert(Tap.sameBytes(pinned.read(0, 1000), data));
    pinned.free();
    Tap.assert(pinned.is_freed());
});

gpuTest('pools: addresses as numbers, counters, a callback on free', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const pool = GCuda.MemoryPool.new(ctx);
    const address = pool.allocate_address(1000);
    Tap.assertEqual(typeof address, 'number', 'allocate_address: the address itself');
    Tap.assertEqual(pool.get_active_blocks(), 1);
    const [base] = ctx.get_address_range(address);
    Tap.assert(base <= address, 'inside an allocation');
    const adopted = pool.adopt_address(address);
    Tap.assertEqual(adopted.get_address(), address);
    adopted.free();
    Tap.assertEqual(pool.get_active_blocks(), 0);
    Tap.assertEqual(pool.get_held_blocks(), 1);
    pool.max_held_bytes = 0;
    Tap.assertEqual(pool.get_max_held_bytes(), 0);
    pool.free_held();
    Tap.assertEqual(pool.get_held_blocks(), 0);

    // a callback: the notify of a buffer over memory it does not own
    const block = pool.allocate_address(256);
    let notified = 0;
    const wrapped = GCuda.Buffer.new_for_address(ctx, block, 256, () => { notified++; });
    Tap.assertEqual(wrapped.get_address(), block);
    wrapped.free();
    Tap.assertEqual(notified, 1, 'the notify ran once, at free()');
    pool.free_address(block);
    Tap.assertThrowsGError(() => pool.free_address(block), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);

    const hostPool = GCuda.HostMemoryPool.new(ctx, 0);
    const hostAddress = hostPool.allocate_address(100);
    Tap.assertEqual(typeof hostAddress, 'number');
    Tap.assert(hostAddress > 0);
    Tap.assertEqual(hostPool.get_active_bytes(), 100);
    hostPool.free_address(hostAddress);
    const hb = hostPool.allocate(64);
    Tap.assertEqual(hb.get_size(), 64);
    hb.free();
    hostPool.stop_holding();
    hostPool.free_held();
    Tap.assertEqual(hostPool.get_held_blocks(), 0);
});

Tap.test('descriptions by hand: out arrays, nullable stream, boxed copies', () => {
    const config = new GCuda.LaunchConfig();
    config.set_grid(4, 2, 3);
    config.set_block(128, 2, 1);
    config.set_cluster(2, 1, 1);
    Tap.assertEqual(JSON.stringify(config.get_grid()), '[4,2,3]', 'get_grid: [x, y, z]');
    Tap.assertEqual(JSON.stringify(config.get_block()), '[128,2,1]');
    Tap.assertEqual(JSON.stringify(config.get_cluster()), '[2,1,1]');
    Tap.assertEqual(config.get_stream(), null, 'nullable: the default stream');
    config.set_cooperative(true);
    Tap.assertEqual(config.get_cooperative(), true);
    config.set_shared_bytes(1024);
    Tap.assertEqual(config.get_shared_bytes(), 1024);

    const jit = new GCuda.JitOptions();
    Tap.assertEqual(jit.get_optimization_level(), -1, 'the driver default');
    jit.set_optimization_level(3);
    jit.set_max_registers(64);
    jit.set_threads_per_block(256);
    jit.set_generate_debug_info(true);
    jit.set_generate_line_info(true);
    jit.set_log_verbose(true);
    Tap.assertEqual(jit.get_optimization_level(), 3);
    Tap.assertEqual(jit.get_max_registers(), 64);
    Tap.assertEqual(jit.get_threads_per_block(), 256);
    Tap.assert(jit.get_generate_debug_info() && jit.get_generate_line_info() && jit.get_log_verbose());

    const desc = GCuda.ArrayDescriptor.new(16, 8, 0, GCuda.ArrayFormat.FLOAT, 2, 0);
    Tap.assertEqual(desc.get_element_size(), 8);
    Tap.assertEqual(desc.get_size(), 16 * 8 * 8);
    Tap.assert(desc.validate());
    Tap.assertEqual(desc.copy().width, 16);
    const bad = GCuda.ArrayDescriptor.new(16, 8, 0, GCuda.ArrayFormat.FLOAT, 3, 0);
    Tap.assertThrowsGError(() => bad.validate(), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);

    const tex = GCuda.TextureDescriptor.new();
    tex.set_address_mode(GCuda.AddressMode.MIRROR);
    Tap.assertEqual(tex.address_mode_x, GCuda.AddressMode.MIRROR);
    Tap.assertEqual(tex.address_mode_z, GCuda.AddressMode.MIRROR);
    Tap.assertEqual(tex.copy().address_mode_y, GCuda.AddressMode.MIRROR);
});

// not on the mock driver, which has no 2D/3D copies
const realDriverTest = GLib.getenv('GCUDA_MOCK_DEVICES') !== null ? () => {} : gpuTest;

realDriverTest('copies: 2D and 3D between host and device', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const data = Tap.randomBytes(64);
    const host = GCuda.HostBuffer.new_aligned(64, 64);
    host.write(0, new GLib.Bytes(data));
    const dev = GCuda.Buffer.new(ctx, 32);
    // 4 rows of 8 bytes from a host pitch of 16 into a packed device buffer
    const c2 = new GCuda.Copy2D();
    c2.set_src_host_buffer(host);
    c2.set_dst_buffer(dev);
    c2.width_in_bytes = 8;
    c2.height = 4;
    c2.src_pitch = 16;
    c2.dst_pitch = 8;
    c2.aligned = false;
    c2.execute(null);
    const got = dev.download(0, 32).toArray();
    for (let row = 0; row < 4; row++) {
        for (let i = 0; i < 8; i++)
            Tap.assertEqual(got[row * 8 + i], data[row * 16 + i], `row ${row} byte ${i}`);
    }
    // back as a 2 x 2 x 8 box into the host buffer's second half
    const out = GCuda.HostBuffer.new_aligned(32, 64);
    const c3 = new GCuda.Copy3D();
    c3.set_src_buffer(dev);
    c3.set_dst_host_buffer(out);
    c3.width_in_bytes = 8;
    c3.height = 2;
    c3.depth = 2;
    c3.src_pitch = 8;
    c3.src_height = 2;
    c3.dst_pitch = 8;
    c3.dst_height = 2;
    c3.execute(null);
    Tap.assert(Tap.sameBytes(out.read(0, 32), got), 'the box back');
});

Tap.run();
