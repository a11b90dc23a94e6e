// The remaining classes from GJS: device data (by hand and from a device),
// JIT options, events (handles, flags, waits, IPC), the profiler, graphics
// resources and communicators made by hand (no object behind them) and
// NCCL's static calls; on a GPU also arrays (every transfer), textures over
// arrays and pitched memory, surfaces, stream capture into graphs, and a
// communicator with one rank per GPU. Results are compared with what was
// written (fresh random data) or with the device's attributes. meson runs
// it without a driver, on the mock driver (GCUDA_MOCK_KERNELS=1
// GCUDA_MOCK_EVENTS=1) and on a GPU.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

const noDriver = GLib.getenv('GCUDA_TEST_DRIVER') === 'missing';
const onMock = GLib.getenv('GCUDA_MOCK_DEVICES') !== null;
const gpuTest = noDriver ? () => {} : (...args) => Tap.test(...args);
// what the mock lacks (arrays, graphs, IPC, the profiler): a GPU only
const realGpuTest = noDriver || onMock ? () => {} : gpuTest;
const domain = GCuda.error_quark();
const INVALID_ARGUMENT = GCuda.Error.INVALID_ARGUMENT;

// ------------------------------------------------------------ no driver needed

const DEVICE_DATA_FIELDS = ['compute_capability_major', 'compute_capability_minor', 'max_threads', 'warp_size',
    'warps_per_mp', 'thread_blocks_per_mp', 'registers', 'registers_per_block', 'max_registers_per_thread',
    'register_alloc_granularity', 'shared_memory', 'shared_memory_per_block', 'shared_memory_per_block_optin',
    'reserved_shared_memory_per_block', 'smem_granularity', 'smem_alloc_granularity'];

Tap.test('device data by hand: every getter gives its property', () => {
    const values = {};
    for (const field of DEVICE_DATA_FIELDS)
        values[field] = 1 + Math.floor(Math.random() * 100000);
    const data = new GCuda.DeviceData(values);
    for (const field of DEVICE_DATA_FIELDS) {
        Tap.assertEqual(data[`get_${field}`](), values[field], `get_${field}`);
        Tap.assertEqual(data[field], values[field], `the ${field} property`);
    }
});

Tap.test('JIT options: new() and the driver defaults', () => {
    const options = GCuda.JitOptions.new();
    Tap.assert(options instanceof GCuda.JitOptions);
    Tap.assertEqual(options.get_optimization_level(), -1, 'the driver default');
    Tap.assertEqual(options.get_max_registers(), 0, 'no cap');
    Tap.assertEqual(options.get_log_verbose(), false);
    const level = Math.floor(Math.random() * 5);
    options.set_optimization_level(level);
    Tap.assertEqual(options.optimization_level, level);
});

Tap.test('a graphics resource made by hand: getters and errors', () => {
    const res = new GCuda.GraphicsResource();
    Tap.assertEqual(res.get_context(), null, 'nullable: no context');
    Tap.assertEqual(res.get_flags(), GCuda.GraphicsRegisterFlags.NONE);
    Tap.assertEqual(res.get_gl_name(), 0);
    Tap.assertEqual(res.get_gl_target(), 0);
    Tap.assertEqual(res.get_kind(), GCuda.GraphicsResourceKind.BUFFER);
    Tap.assertThrowsGError(() => res.get_mapped_buffer(), domain, INVALID_ARGUMENT, 'get_mapped_buffer');
    Tap.assertThrowsGError(() => res.get_mapped_array(0, 0), domain, INVALID_ARGUMENT, 'get_mapped_array');
    Tap.assertThrowsGError(() => res.unmap(null), domain, INVALID_ARGUMENT, 'unmap');
    Tap.assertThrowsGError(() => res.unregister(), domain, INVALID_ARGUMENT, 'unregister');
});

Tap.test('a communicator made by hand: getters and errors', () => {
    const comm = new GCuda.Communicator();
    Tap.assertEqual(comm.get_rank(), -1);
    Tap.assertEqual(comm.get_n_ranks(), 0);
    Tap.assertEqual(comm.get_context(), null, 'nullable: no context');
    const b = new GCuda.Buffer();
    const F32 = GCuda.NcclDataType.FLOAT32, SUM = GCuda.ReduceOp.SUM;
    const calls = {
        all_reduce: () => comm.all_reduce(b, b, 1, F32, SUM, null),
        broadcast: () => comm.broadcast(b, b, 1, F32, 0, null),
        reduce: () => comm.reduce(b, b, 1, F32, SUM, 0, null),
        all_gather: () => comm.all_gather(b, b, 1, F32, null),
        reduce_scatter: () => comm.reduce_scatter(b, b, 1, F32, SUM, null),
        send: () => comm.send(b, 1, F32, 0, null),
        recv: () => comm.recv(b, 1, F32, 0, null),
    };
    for (const [name, call] of Object.entries(calls))
        Tap.assertThrowsGError(call, domain, INVALID_ARGUMENT, name);
    Tap.assertThrowsGError(() => GCuda.Communicator.new(null, 2, new GLib.Bytes(new Uint8Array(128)), 2), domain,
        INVALID_ARGUMENT, 'rank 2 of 2');
    const e = Tap.assertThrowsGError(() => GCuda.Communicator.new(null, 1, new GLib.Bytes(new Uint8Array(127)), 0),
        domain, INVALID_ARGUMENT, 'an id of 127 bytes');
    Tap.assert(e.message.includes('128'), e.message);
});

// null when NCCL can be loaded, else GCuda's message
function noNcclReason() {
    try {
        GCuda.Communicator.get_nccl_version();
        return null;
    } catch (e) {
        if (!(e instanceof GLib.Error) || !e.matches(domain, GCuda.Error.NCCL_NOT_FOUND))
            throw e;
        return e.message;
    }
}

Tap.test('NCCL\'s static calls: a version and an id, or NCCL_NOT_FOUND from each', () => {
    const reason = noNcclReason();
    if (reason === null) {
        Tap.assert(GCuda.Communicator.get_nccl_version() >= 21800, 'NCCL 2.18 or newer');
        const uid = GCuda.Communicator.get_unique_id();
        Tap.assert(uid instanceof GLib.Bytes);
        Tap.assertEqual(uid.get_size(), 128, 'an ncclUniqueId');
        Tap.assert(uid.toArray().join() !== GCuda.Communicator.get_unique_id().toArray().join(), 'a new one each time');
        Tap.assert(GCuda.Communicator.group_start());
        Tap.assert(GCuda.Communicator.group_end(), 'an empty group');
        return;
    }
    Tap.assert(reason.includes('GCUDA_NCCL_LIBRARY'), `the message says how to provide NCCL: ${reason}`);
    for (const [name, call] of [['get_unique_id', () => GCuda.Communicator.get_unique_id()],
        ['group_start', () => GCuda.Communicator.group_start()],
        ['group_end', () => GCuda.Communicator.group_end()]])
        Tap.assertThrowsGError(call, domain, GCuda.Error.NCCL_NOT_FOUND, name);
});

// ------------------------------------------------------------ a device (the mock's too)

gpuTest('device data from a device: its attributes', () => {
    Tap.requireGpu();
    const dev = GCuda.Device.get(0);
    const data = GCuda.DeviceData.new(dev);
    const [major, minor] = dev.get_compute_capability();
    Tap.assertEqual(data.get_compute_capability_major(), major);
    Tap.assertEqual(data.get_compute_capability_minor(), minor);
    const A = GCuda.DeviceAttribute;
    Tap.assertEqual(data.get_registers_per_block(), dev.get_attribute(A.MAX_REGISTERS_PER_BLOCK));
    Tap.assertEqual(data.get_shared_memory_per_block(), dev.get_attribute(A.MAX_SHARED_MEMORY_PER_BLOCK));
    Tap.assertEqual(data.get_shared_memory_per_block_optin(), dev.get_attribute(A.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
    Tap.assertEqual(data.get_reserved_shared_memory_per_block(),
        dev.get_attribute(A.RESERVED_SHARED_MEMORY_PER_BLOCK));
    Tap.assertEqual(data.get_max_registers_per_thread(), 255, 'every architecture since sm_35');
    Tap.assertEqual(data.get_register_alloc_granularity(), 256);
});

gpuTest('events: handle, flags, context, waits', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const flags = GCuda.EventFlags.BLOCKING_SYNC | GCuda.EventFlags.DISABLE_TIMING;
    const event = GCuda.Event.new(ctx, flags);
    Tap.assert(event.get_context() === ctx);
    Tap.assertEqual(event.get_flags(), flags);
    const handle = event.get_handle();
    Tap.assert(typeof handle === 'number' && handle !== 0, `handle ${handle}`);
    const producer = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    const consumer = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    // the consumer's copy waits for the producer's memset through the event
    const data = Tap.randomBytes(1024);
    const buf = GCuda.Buffer.new_from_bytes(ctx, new GLib.Bytes(data));
    const v = 1 + Math.floor(Math.random() * 255);
    buf.memset_d8(0, v, 512, producer);
    event.record(producer);
    Tap.assert(consumer.wait_event(event));
    buf.copy_from_on_stream(512, buf, 0, 256, consumer);
    consumer.synchronize();
    const want = data.slice();
    want.fill(v, 0, 768);
    Tap.assertBytes(buf.download(0, 1024), want, 'the copy saw the memset');
    Tap.assert(event.query(), 'done');
    buf.free();
});

gpuTest('the profiler: start and stop, or NOT_SUPPORTED where the driver lacks it', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    if (onMock) {
        // the mock has no cuProfilerStart: GCuda names what is missing
        const e = Tap.assertThrowsGError(() => GCuda.profiler_start(ctx), domain, GCuda.Error.NOT_SUPPORTED);
        Tap.assert(e.message.includes('cuProfilerStart'), e.message);
        Tap.assertThrowsGError(() => GCuda.profiler_stop(null), domain, GCuda.Error.NOT_SUPPORTED);
        return;
    }
    Tap.assert(GCuda.profiler_start(ctx));
    Tap.assert(GCuda.profiler_stop(null), 'null: the default context');
});

// ------------------------------------------------------------ a GPU only

realGpuTest('events: an IPC handle', () => {
    Tap.requireGpu();
    const ipc = GCuda.Event.new(null, GCuda.EventFlags.INTERPROCESS | GCuda.EventFlags.DISABLE_TIMING);
    const handle = ipc.get_ipc_handle();
    Tap.assert(handle instanceof GLib.Bytes);
    Tap.assertEqual(handle.get_size(), 64, 'a CUipcEventHandle');
    Tap.assertThrowsGError(() => GCuda.Event.new(null, GCuda.EventFlags.DEFAULT).get_ipc_handle(), domain,
        INVALID_ARGUMENT, 'an event made without INTERPROCESS');
});

realGpuTest('arrays: every transfer, the descriptor, free', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const n = 64 + Math.floor(Math.random() * 64);  // a 1D array of n float elements
    const desc = GCuda.ArrayDescriptor.new(n, 0, 0, GCuda.ArrayFormat.FLOAT, 1, GCuda.ArrayFlags.NONE);
    const a = GCuda.Array.new(ctx, desc);
    Tap.assert(a.get_context() === ctx);
    Tap.assertEqual(a.get_size(), n * 4);
    const d = a.get_descriptor();
    Tap.assertEqual(d.width, n);
    Tap.assertEqual(d.format, GCuda.ArrayFormat.FLOAT);
    const data = Tap.randomBytes(n * 4);
    Tap.assert(a.upload(0, data));
    Tap.assertBytes(a.download(0, n * 4), data, 'upload, download');
    // a range of whole elements
    Tap.assertBytes(a.download(8, 16), data.slice(8, 24), 'a range');
    const host = GCuda.HostBuffer.new_aligned(n * 4, 64);
    Tap.assert(a.download_to_address(0, host.get_address(), n * 4));
    Tap.assertBytes(host.read(0, n * 4), data, 'download_to_address');
    const more = Tap.randomBytes(n * 4);
    host.write(0, new GLib.Bytes(more));
    Tap.assert(a.upload_from_address(0, host.get_address(), n * 4));
    Tap.assertBytes(a.download(0, n * 4), more, 'upload_from_address');
    const buf = GCuda.Buffer.new(ctx, n * 4);
    Tap.assert(a.copy_to_buffer(0, buf, 0, n * 4));
    Tap.assertBytes(buf.download(0, n * 4), more, 'copy_to_buffer');
    buf.upload(0, data);
    Tap.assert(a.copy_from_buffer(4, buf, 4, 32));
    const mixed = more.slice();
    mixed.set(data.slice(4, 36), 4);
    Tap.assertBytes(a.download(0, n * 4), mixed, 'copy_from_buffer');
    const b = GCuda.Array.new(ctx, desc);
    Tap.assert(b.copy_from_array(0, a, 0, n * 4));
    Tap.assertBytes(b.download(0, n * 4), mixed, 'copy_from_array');
    Tap.assertThrowsGError(() => a.upload(2, new Uint8Array(4)), domain, INVALID_ARGUMENT, 'not a whole element');
    Tap.assertThrowsGError(() => a.download(0, n * 4 + 4), domain, GCuda.Error.OUT_OF_BOUNDS, 'past the end');
    Tap.assert(!a.is_freed());
    Tap.assert(a.free());
    Tap.assert(a.is_freed());
    Tap.assertThrowsGError(() => a.download(0, 4), domain, GCuda.Error.FREED);
    b.free();
    buf.free();
});

realGpuTest('2D and 3D copies with arrays', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const [w, h] = [16, 8];  // floats
    const data = Tap.randomBytes(w * h * 4);
    const src = GCuda.Buffer.new_from_bytes(ctx, new GLib.Bytes(data));
    const a2 = GCuda.Array.new(ctx, GCuda.ArrayDescriptor.new(w, h, 0, GCuda.ArrayFormat.FLOAT, 1, 0));
    const c = GCuda.Copy2D.new();
    c.set_src_buffer(src);
    c.set_dst_array(a2);
    c.set_src_pitch(w * 4);
    c.set_width_in_bytes(w * 4);
    c.set_height(h);
    Tap.assert(c.execute(null));
    Tap.assertBytes(a2.download(0, w * h * 4), data, 'buffer to 2D array');
    const out = GCuda.HostBuffer.new_aligned(w * h * 4, 64);
    const back = GCuda.Copy2D.new();
    back.set_src_array(a2);
    back.set_dst_host_buffer(out);
    back.set_dst_pitch(w * 4);
    back.set_width_in_bytes(w * 4);
    back.set_height(h);
    Tap.assert(back.execute(null));
    Tap.assertBytes(out.read(0, w * h * 4), data, '2D array to host buffer');

    // 3D: 2 slices of the same rows
    const d = 2;
    const data3 = Tap.randomBytes(w * h * d * 4);
    const host = GCuda.HostBuffer.new_aligned(data3.length, 64);
    host.write(0, new GLib.Bytes(data3));
    const a3 = GCuda.Array.new(ctx, GCuda.ArrayDescriptor.new(w, h, d, GCuda.ArrayFormat.FLOAT, 1, 0));
    const c3 = GCuda.Copy3D.new();
    c3.set_src_host(host.get_address(), host.get_size());
    c3.set_dst_array(a3);
    c3.set_src_pitch(w * 4);
    c3.set_src_height(h);
    c3.set_width_in_bytes(w * 4);
    c3.set_height(h);
    c3.set_depth(d);
    Tap.assert(c3.execute(null));
    const out3 = GCuda.HostBuffer.new_aligned(data3.length, 64);
    const b3 = GCuda.Copy3D.new();
    b3.set_src_array(a3);
    b3.set_dst_host_buffer(out3);
    b3.set_dst_pitch(w * 4);
    b3.set_dst_height(h);
    b3.set_width_in_bytes(w * 4);
    b3.set_height(h);
    b3.set_depth(d);
    Tap.assert(b3.execute(null));
    Tap.assertBytes(out3.read(0, data3.length), data3, 'host to 3D array and back');
    // the 3D peer form from a host address
    const dst = GCuda.Buffer.new(ctx, data3.length);
    const p = GCuda.Copy3DPeer.new();
    p.set_src_host(host.get_address(), host.get_size());
    p.set_dst_buffer(dst);
    p.set_width_in_bytes(data3.length);
    p.set_height(1);
    p.set_depth(1);
    Tap.assert(p.execute(null));
    Tap.assertBytes(dst.download(0, data3.length), data3, 'a host address to a buffer, peer form');
    a2.free();
    a3.free();
    src.free();
    dst.free();
});

realGpuTest('textures over an array and pitched memory, surfaces', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const desc = GCuda.ArrayDescriptor.new(8, 8, 0, GCuda.ArrayFormat.FLOAT, 1, GCuda.ArrayFlags.SURFACE_LDST);
    const array = GCuda.Array.new(ctx, desc);
    const tex = GCuda.Texture.new_from_array(array, GCuda.TextureDescriptor.new());
    Tap.assert(tex.get_array() === array);
    Tap.assertEqual(tex.get_buffer(), null, 'nullable: not over a buffer');
    Tap.assert(tex.get_context() === ctx);
    Tap.assert(tex.get_handle() !== 0);
    const surface = GCuda.Surface.new(array);
    Tap.assert(surface.get_array() === array);
    Tap.assert(surface.get_handle() !== 0);

    const pitched = GCuda.Buffer.new_pitched(ctx, 64 * 4, 16, 4);
    const ptex = GCuda.Texture.new_from_pitched(pitched, GCuda.ArrayFormat.FLOAT, 1, 64, 16, 0, null);
    Tap.assert(ptex.get_buffer() === pitched);
    Tap.assertEqual(ptex.get_array(), null, 'nullable: not over an array');
    Tap.assert(ptex.get_handle() !== 0 && ptex.get_handle() !== tex.get_handle());
    Tap.assertThrowsGError(() => GCuda.Texture.new_from_pitched(pitched, GCuda.ArrayFormat.FLOAT, 3, 64, 16, 0,
        null), domain, INVALID_ARGUMENT, 'three channels');
    Tap.assertThrowsGError(() => GCuda.Texture.new_from_pitched(pitched, GCuda.ArrayFormat.FLOAT, 1, 64, 1000, 0,
        null), domain, GCuda.Error.OUT_OF_BOUNDS, 'rows past the buffer');
});

realGpuTest('stream capture: a graph of a memset and a copy, launched twice', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    const data = Tap.randomBytes(4096);
    const src = GCuda.Buffer.new_from_bytes(ctx, new GLib.Bytes(data));
    const dst = GCuda.Buffer.new(ctx, 4096);
    const v = 1 + Math.floor(Math.random() * 255);
    Tap.assertEqual(stream.get_capture_status(), GCuda.CaptureStatus.NONE);
    Tap.assert(stream.begin_capture(GCuda.CaptureMode.THREAD_LOCAL));
    Tap.assertEqual(stream.get_capture_status(), GCuda.CaptureStatus.ACTIVE);
    dst.memset_d8(0, v, 4096, stream);
    dst.copy_from_on_stream(1024, src, 1024, 2048, stream);
    const graph = stream.end_capture();
    Tap.assertEqual(stream.get_capture_status(), GCuda.CaptureStatus.NONE);
    Tap.assert(graph.get_context() === ctx);
    Tap.assertEqual(graph.get_node_count(), 2);
    const dir = GLib.dir_make_tmp('gcuda-reach-graph-XXXXXX');
    const path = `${dir}/graph.dot`;
    Tap.assert(graph.write_dot(path));
    const [, text] = GLib.file_get_contents(path);
    Tap.assert(new TextDecoder().decode(text).includes('digraph'), 'a DOT file');
    GLib.unlink(path);
    GLib.rmdir(dir);
    Tap.assertThrowsGError(() => graph.write_dot(''), domain, INVALID_ARGUMENT, 'no path');
    const exec = graph.instantiate();
    Tap.assert(exec.get_context() === ctx);
    const want = new Uint8Array(4096).fill(v);
    want.set(data.slice(1024, 3072), 1024);
    for (let i = 0; i < 2; i++) {
        dst.memset_d8(0, 0, 4096, null);
        Tap.assert(exec.launch(stream));
        stream.synchronize();
        Tap.assertBytes(dst.download(0, 4096), want, `launch ${i}`);
    }
    src.free();
    dst.free();
});

realGpuTest('a communicator with one rank per GPU: collectives checked', () => {
    Tap.requireGpu();
    const reason = noNcclReason();
    if (reason !== null) {
        if (Tap.gpuRequired())
            Tap.fail(`GCUDA_TEST_REQUIRE_GPU=1 but NCCL is missing: ${reason}`);
        Tap.skip(`no NCCL: ${reason}`);
    }
    const n = GCuda.Device.get_count();
    const uid = GCuda.Communicator.get_unique_id();
    Tap.assertEqual(uid.get_size(), 128);
    const contexts = GCuda.Device.list().map(d => d.get_primary_context());
    GCuda.Communicator.group_start();
    const comms = contexts.map((c, i) => GCuda.Communicator.new(c, n, uid, i));
    GCuda.Communicator.group_end();
    comms.forEach((comm, i) => {
        Tap.assertEqual(comm.get_rank(), i);
        Tap.assertEqual(comm.get_n_ranks(), n);
        Tap.assert(comm.get_context() === contexts[i]);
    });
    const streams = contexts.map(c => GCuda.Stream.new(c, GCuda.StreamFlags.NON_BLOCKING, 0));
    const grouped = call => {
        GCuda.Communicator.group_start();
        try {
            comms.forEach((comm, i) => call(i, comm, streams[i]));
        } finally {
            GCuda.Communicator.group_end();
        }
        streams.forEach(s => s.synchronize());
    };
    const count = 1000;
    const I32 = GCuda.NcclDataType.INT32;
    const arrays = contexts.map(() => Int32Array.from({length: count}, () => Math.floor(Math.random() * 2000) - 1000));
    const send = contexts.map((c, i) => GCuda.Buffer.new_from_bytes(c, new GLib.Bytes(new Uint8Array(arrays[i].buffer))));
    const recv = contexts.map(c => GCuda.Buffer.new(c, count * 4 * n));
    const ints = (buf, k) => {
        const u8 = buf.download(0, k * 4).toArray().slice();
        return Array.from(new Int32Array(u8.buffer, 0, k));
    };
    const sum = Array.from({length: count}, (_, j) => arrays.reduce((s, a) => s + a[j], 0));
    const max = Array.from({length: count}, (_, j) => Math.max(...arrays.map(a => a[j])));
    grouped((i, c, s) => c.all_reduce(send[i], recv[i], count, I32, GCuda.ReduceOp.SUM, s));
    recv.forEach(r => Tap.assertEqual(ints(r, count).join(), sum.join(), 'all_reduce'));
    const root = n - 1;
    grouped((i, c, s) => c.broadcast(i === root ? send[i] : null, recv[i], count, I32, root, s));
    recv.forEach(r => Tap.assertEqual(ints(r, count).join(), Array.from(arrays[root]).join(), 'broadcast'));
    grouped((i, c, s) => c.reduce(send[i], i === 0 ? recv[i] : null, count, I32, GCuda.ReduceOp.MAX, 0, s));
    Tap.assertEqual(ints(recv[0], count).join(), max.join(), 'reduce');
    grouped((i, c, s) => c.all_gather(send[i], recv[i], count, I32, s));
    const gathered = arrays.map(a => Array.from(a).join()).join();
    recv.forEach(r => Tap.assertEqual(ints(r, count * n).join(), gathered, 'all_gather'));
    const parts = contexts.map(c => GCuda.Buffer.new(c, count * 4));
    grouped((i, c, s) => c.reduce_scatter(recv[i], parts[i], count, I32, GCuda.ReduceOp.SUM, s));
    parts.forEach((p, i) => Tap.assertEqual(ints(p, count).join(), Array.from(arrays[i], x => x * n).join(),
        'reduce_scatter'));
    grouped((i, c, s) => {
        c.send(send[i], count, I32, (i + 1) % n, s);
        c.recv(parts[i], count, I32, (i - 1 + n) % n, s);
    });
    parts.forEach((p, i) => Tap.assertEqual(ints(p, count).join(), Array.from(arrays[(i - 1 + n) % n]).join(),
        'send and recv in a ring'));
});

Tap.run();
