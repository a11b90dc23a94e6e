// Memory from GJS: buffers by host address (numbers), on streams, 2D
// memsets, kinds and pitch, the _async transfers as promises; page-locked
// memory's device address; the pools' counters and by-address blocks; the
// device's and context's remaining settings. Every result is compared with
// fresh random data or a JS oracle. meson runs it on the mock driver (with
// its streams and pitched memory: GCUDA_MOCK_KERNELS=1 GCUDA_MOCK_EVENTS=1)
// and on a GPU; without a driver only the no-driver errors.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const Gio = imports.gi.Gio;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

Gio._promisify(GCuda.Buffer.prototype, 'download_async', 'download_finish');
Gio._promisify(GCuda.Buffer.prototype, 'upload_async', 'upload_finish');

const noDriver = GLib.getenv('GCUDA_TEST_DRIVER') === 'missing';
const gpuTest = noDriver ? () => {} : (...args) => Tap.test(...args);
// what the mock driver lacks (prefetch, advice, IPC): on a GPU only
const onMock = GLib.getenv('GCUDA_MOCK_DEVICES') !== null;
const realGpuTest = noDriver || onMock ? () => {} : gpuTest;
const domain = GCuda.error_quark();

// @value's little-endian bytes (@size of them) in @height rows of @width
// elements, @pitch bytes apart, from @offset of a copy of @data.
function memset2d(data, offset, pitch, value, size, width, height) {
    const out = data.slice();
    for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
            for (let b = 0; b < size; b++)
                out[offset + y * pitch + x * size + b] = (value >>> (8 * b)) & 0xff;
        }
    }
    return out;
}

if (noDriver) {
    Tap.test('no driver: the memory calls say so', () => {
        Tap.assertThrowsGError(() => GCuda.Buffer.new(null, 16), domain, GCuda.Error.DRIVER_NOT_FOUND);
        Tap.assertThrowsGError(() => GCuda.StreamPool.new(null), domain, GCuda.Error.DRIVER_NOT_FOUND);
        Tap.assertThrowsGError(() => GCuda.Stream.get_per_thread_default(null), domain,
            GCuda.Error.DRIVER_NOT_FOUND);
    });
}

gpuTest('buffers: host addresses as numbers, in and out, on a stream', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const data = Tap.randomBytes(4096);
    const host = GCuda.HostBuffer.new_aligned(4096, 64);
    host.write(0, new GLib.Bytes(data));
    const buf = GCuda.Buffer.new(ctx, 4096);
    Tap.assertEqual(buf.get_kind(), GCuda.BufferKind.DEVICE);
    Tap.assertEqual(buf.get_pitch(), 0, 'not pitched');
    Tap.assert(buf.upload_from_address(0, host.get_address(), 4096));
    Tap.assertBytes(buf.download(0, 4096), data, 'upload_from_address');
    const out = GCuda.HostBuffer.new_aligned(4096, 64);
    Tap.assert(buf.download_to_address(0, out.get_address(), 4096));
    Tap.assertBytes(out.read(0, 4096), data, 'download_to_address');

    // on a stream: a second random half into the buffer's middle, read back
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    const more = Tap.randomBytes(1024);
    host.write(0, new GLib.Bytes(more));
    Tap.assert(buf.upload_from_address_on_stream(1024, host.get_address(), 1024, stream));
    const expected = data.slice();
    expected.set(more, 1024);
    Tap.assert(buf.download_to_address_on_stream(0, out.get_address(), 4096, stream));
    stream.synchronize();
    Tap.assertBytes(out.read(0, 4096), expected, 'the _on_stream pair');

    // copy_from_on_stream: 200 bytes from another buffer's offset 100
    const other = GCuda.Buffer.new_from_bytes(ctx, new GLib.Bytes(data));
    Tap.assert(buf.copy_from_on_stream(3000, other, 100, 200, stream));
    stream.synchronize();
    expected.set(data.slice(100, 300), 3000);
    Tap.assertBytes(buf.download(0, 4096), expected, 'copy_from_on_stream');

    Tap.assertThrowsGError(() => buf.upload_from_address(4000, host.get_address(), 200), domain,
        GCuda.Error.OUT_OF_BOUNDS, 'past the end');
    Tap.assertThrowsGError(() => buf.copy_from_on_stream(0, other, 4000, 200, stream), domain,
        GCuda.Error.OUT_OF_BOUNDS, 'a source range past its end');
    buf.free();
    other.free();
    Tap.assertThrowsGError(() => buf.download_to_address(0, out.get_address(), 1), domain, GCuda.Error.FREED);
});

gpuTest('buffers: 2D memsets of 8, 16 and 32 bits', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const data = Tap.randomBytes(4096);
    const buf = GCuda.Buffer.new_from_bytes(ctx, new GLib.Bytes(data));
    const v8 = 1 + Math.floor(Math.random() * 255);
    const v16 = 1 + Math.floor(Math.random() * 65535);
    const v32 = (1 + Math.floor(Math.random() * 0xfffffffe)) >>> 0;
    Tap.assert(buf.memset_d8_2d(3, 64, v8, 17, 5, null));
    let want = memset2d(data, 3, 64, v8, 1, 17, 5);
    Tap.assert(buf.memset_d16_2d(1024, 96, v16, 20, 4, null));
    want = memset2d(want, 1024, 96, v16, 2, 20, 4);
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.DEFAULT, 0);
    Tap.assert(buf.memset_d32_2d(2048, 128, v32, 9, 6, stream));
    stream.synchronize();
    want = memset2d(want, 2048, 128, v32, 4, 9, 6);
    Tap.assertBytes(buf.download(0, 4096), want, 'three 2D memsets');

    Tap.assertThrowsGError(() => buf.memset_d16_2d(1, 64, 1, 4, 2, null), domain, GCuda.Error.INVALID_ARGUMENT,
        'an odd address for 16 bits');
    Tap.assertThrowsGError(() => buf.memset_d32_2d(0, 8, 1, 4, 2, null), domain, GCuda.Error.INVALID_ARGUMENT,
        'a row wider than the pitch');
    Tap.assertThrowsGError(() => buf.memset_d8_2d(0, 64, 1, 16, 100, null), domain, GCuda.Error.OUT_OF_BOUNDS,
        'rows past the end');
    Tap.assertBytes(buf.download(0, 4096), want, 'the errors wrote nothing');
    buf.free();
});

gpuTest('buffers: kinds, pitch, managed and views', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const pitched = GCuda.Buffer.new_pitched(ctx, 100, 7, 4);
    Tap.assertEqual(pitched.get_kind(), GCuda.BufferKind.PITCHED);
    const pitch = pitched.get_pitch();
    Tap.assert(pitch >= 100 && pitch % 4 === 0, `pitch ${pitch}`);
    Tap.assertEqual(pitched.pitch, pitch, 'the pitch property');
    Tap.assert(pitched.get_size() >= pitch * 6 + 100, `size ${pitched.get_size()}`);
    const rows = Tap.randomBytes(pitch * 7);
    pitched.upload(0, rows);
    Tap.assertBytes(pitched.download(0, pitch * 7), rows, 'pitched round trip');
    const view = pitched.new_view(pitch, pitch);
    Tap.assertEqual(view.get_kind(), GCuda.BufferKind.VIEW);
    Tap.assertEqual(view.get_pitch(), pitch, 'a view of a pitched buffer has its pitch');
    Tap.assertBytes(view.download(0, pitch), rows.slice(pitch, 2 * pitch), 'the view is row 1');
    const managed = GCuda.Buffer.new_managed(ctx, 64, GCuda.MemAttachFlags.GLOBAL);
    Tap.assertEqual(managed.get_kind(), GCuda.BufferKind.MANAGED);
    Tap.assertThrowsGError(() => GCuda.Buffer.new_pitched(ctx, 100, 7, 3), domain, GCuda.Error.INVALID_ARGUMENT,
        'an access size of 3');
    managed.free();
    pitched.free();
});

gpuTest('buffers: download_async and upload_async as promises', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const data = Tap.randomBytes(2048);
    const buf = GCuda.Buffer.new(ctx, 2048);
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    Tap.runAsync(async () => {
        Tap.assertEqual(await buf.upload_async(0, new GLib.Bytes(data), stream, null), true);
        const bytes = await buf.download_async(0, 2048, stream, null);
        Tap.assert(bytes instanceof GLib.Bytes, 'download_finish gives a GLib.Bytes');
        Tap.assertBytes(bytes, data, 'the round trip');
        const part = await buf.download_async(512, 256, null, null);
        Tap.assertBytes(part, data.slice(512, 768), 'a range, on the default stream');
        let error = null;
        try {
            await buf.download_async(2000, 100, stream, null);
        } catch (e) {
            error = e;
        }
        Tap.assert(error instanceof GLib.Error && error.matches(domain, GCuda.Error.OUT_OF_BOUNDS),
            `a range past the end rejects with OUT_OF_BOUNDS: ${error}`);
    });
    buf.free();
});

gpuTest('page-locked memory: flags and the device address', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const mapped = GCuda.HostBuffer.new_pagelocked(ctx, 1024, GCuda.HostAllocFlags.DEVICEMAP);
    Tap.assertEqual(mapped.get_alloc_flags(), GCuda.HostAllocFlags.DEVICEMAP);
    Tap.assertEqual(mapped.get_register_flags(), 0, 'not registered memory');
    const address = mapped.get_device_address();
    Tap.assert(typeof address === 'number' && address > 0, `device address ${address}`);
    // what the host writes, the device reads at that address
    const data = Tap.randomBytes(1024);
    mapped.write(0, new GLib.Bytes(data));
    const dev = GCuda.Buffer.new(ctx, 1024);
    const c = GCuda.Copy2D.new();
    c.set_src_unified(address, 1024);
    c.set_dst_buffer(dev);
    c.set_width_in_bytes(1024);
    c.set_height(1);
    c.execute(null);
    Tap.assertBytes(dev.download(0, 1024), data, 'read through the device address');
    const plain = GCuda.HostBuffer.new_pagelocked(ctx, 64, 0);
    Tap.assertEqual(plain.get_alloc_flags(), 0);
    Tap.assertThrowsGError(() => plain.get_device_address(), domain, GCuda.Error.INVALID_ARGUMENT, 'no DEVICEMAP');
    const aligned = GCuda.HostBuffer.new_aligned(64, 64);
    Tap.assertEqual(aligned.get_alloc_flags(), 0);
    Tap.assertThrowsGError(() => aligned.get_device_address(), domain, GCuda.Error.INVALID_ARGUMENT, 'aligned');
    mapped.free();
    Tap.assertThrowsGError(() => mapped.get_device_address(), domain, GCuda.Error.FREED);
    plain.free();
    dev.free();
});

gpuTest('pools: counters, held bytes, stop_holding, adopted host blocks', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const pool = GCuda.MemoryPool.new(ctx);
    Tap.assert(pool.get_context() === ctx);
    const sizes = [1000 + Math.floor(Math.random() * 1000), 5000 + Math.floor(Math.random() * 5000)];
    const blocks = sizes.map(s => pool.allocate(s));
    Tap.assertEqual(pool.get_active_bytes(), sizes[0] + sizes[1], 'active bytes: what was asked');
    const binned = sizes.map(s => GCuda.MemoryPool.alloc_size(GCuda.MemoryPool.bin_number(s)));
    Tap.assertEqual(pool.get_managed_bytes(), binned[0] + binned[1], 'managed bytes: whole bins');
    blocks[0].free();
    Tap.assertEqual(pool.get_active_bytes(), sizes[1]);
    Tap.assertEqual(pool.get_managed_bytes(), binned[0] + binned[1], 'the freed block is held');
    pool.set_max_held_bytes(0);
    Tap.assertEqual(pool.get_max_held_bytes(), 0);
    Tap.assertEqual(pool.get_managed_bytes(), binned[1], 'a cap of 0 frees what was held');
    pool.set_max_held_bytes(1 << 30);
    pool.stop_holding();
    blocks[1].free();
    Tap.assertEqual(pool.get_held_blocks(), 0, 'not held after stop_holding');
    Tap.assertEqual(pool.get_managed_bytes(), 0);

    const hostPool = GCuda.HostMemoryPool.new(ctx, GCuda.HostAllocFlags.PORTABLE);
    Tap.assert(hostPool.get_context() === ctx);
    Tap.assertEqual(hostPool.get_flags(), GCuda.HostAllocFlags.PORTABLE);
    hostPool.set_max_held_bytes(12345);
    Tap.assertEqual(hostPool.get_max_held_bytes(), 12345);
    const address = hostPool.allocate_address(300);
    const adopted = hostPool.adopt_address(address);
    Tap.assert(adopted instanceof GCuda.HostBuffer);
    Tap.assertEqual(adopted.get_address(), address);
    Tap.assertEqual(adopted.get_size(), 300);
    const data = Tap.randomBytes(300);
    adopted.write(0, new GLib.Bytes(data));
    Tap.assertBytes(adopted.read(0, 300), data, 'the adopted block');
    Tap.assertThrowsGError(() => hostPool.adopt_address(address), domain, GCuda.Error.INVALID_ARGUMENT,
        'adopted twice');
    adopted.free();
    Tap.assertEqual(hostPool.get_active_blocks(), 0);
    Tap.assertThrowsGError(() => hostPool.adopt_address(12345678), domain, GCuda.Error.INVALID_ARGUMENT,
        'an address of no block');
});

gpuTest('stream-ordered pool: blocks on a stream, threshold, trim, counters', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const pool = GCuda.StreamPool.new(ctx);
    Tap.assert(pool.get_context() === ctx);
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    const data = Tap.randomBytes(4096);
    const buf = pool.allocate(4096, stream);
    stream.synchronize();  // usable beyond its stream once the allocation ran
    buf.upload(0, data);
    Tap.assertBytes(buf.download(0, 4096), data, 'a pooled buffer holds data');
    // the address is the return value: GJS gets it alone, as PyGObject does
    const address = pool.allocate_address(8192, stream);
    Tap.assertEqual(typeof address, 'number', 'allocate_address: the address as a number');
    Tap.assert(address > 0);
    stream.synchronize();
    Tap.assert(pool.get_used_bytes_current() >= 4096 + 8192, `used ${pool.get_used_bytes_current()}`);
    Tap.assert(pool.get_reserved_bytes_current() >= pool.get_used_bytes_current());
    Tap.assert(pool.free_address(address, stream));
    buf.free();
    stream.synchronize();
    Tap.assertEqual(pool.get_used_bytes_current(), 0);
    Tap.assert(pool.set_release_threshold(1 << 20));
    Tap.assertEqual(pool.get_release_threshold(), 1 << 20);
    Tap.assertEqual(pool.release_threshold, 1 << 20, 'the property');
    const reserved = pool.get_reserved_bytes_current();
    Tap.assert(pool.trim(0));
    Tap.assert(pool.get_reserved_bytes_current() <= reserved, 'trimming keeps no more');
    if (onMock)
        Tap.assertEqual(pool.get_reserved_bytes_current(), 0, 'trimmed to nothing');
    Tap.assertThrowsGError(() => pool.free_address(address, stream), domain, GCuda.Error.INVALID_ARGUMENT,
        'freed twice');
});

gpuTest('device and context: capability, primary flags, cache config', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const dev = ctx.get_device();
    const [major, minor] = dev.get_compute_capability();
    Tap.assertEqual(dev.get_compute_capability_major(), major);
    Tap.assertEqual(dev.get_compute_capability_minor(), minor);
    const [before] = dev.get_primary_context_state();
    Tap.assert(dev.set_primary_context_flags(GCuda.ContextFlags.SCHED_BLOCKING_SYNC));
    Tap.assertEqual(dev.get_primary_context_state()[0] & 7, GCuda.ContextFlags.SCHED_BLOCKING_SYNC);
    dev.set_primary_context_flags(before & 7);
    Tap.assertEqual(dev.get_primary_context_state()[0] & 7, before & 7, 'the scheduling flags restored');
    Tap.assertThrowsGError(() => dev.set_primary_context_flags(GCuda.ContextFlags.SCHED_SPIN |
        GCuda.ContextFlags.SCHED_YIELD), domain, GCuda.Error.INVALID_ARGUMENT, 'two scheduling flags');

    // a device with a fixed L1/shared split reads back NONE
    const config = ctx.get_cache_config();
    Tap.assert(ctx.set_cache_config(GCuda.CacheConfig.L1));
    const got = ctx.get_cache_config();
    Tap.assert(got === GCuda.CacheConfig.L1 || got === GCuda.CacheConfig.NONE, `read back ${got}`);
    if (onMock)
        Tap.assertEqual(got, GCuda.CacheConfig.L1, 'the mock keeps it');
    ctx.set_cache_config(config);
    Tap.assert([config, GCuda.CacheConfig.NONE].includes(ctx.get_cache_config()), 'restored');
});

gpuTest('streams: handles, flags, priority, borrowed and per-thread streams, callbacks', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const [least, greatest] = ctx.get_stream_priority_range();
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, greatest);
    Tap.assert(stream.get_context() === ctx);
    Tap.assertEqual(stream.get_flags(), GCuda.StreamFlags.NON_BLOCKING);
    Tap.assertEqual(stream.get_priority(), greatest);
    Tap.assert(!stream.is_borrowed());
    const handle = stream.get_handle();
    Tap.assert(typeof handle === 'number' && handle !== 0, `handle ${handle}`);
    const borrowed = GCuda.Stream.new_for_handle(ctx, handle);
    Tap.assert(borrowed.is_borrowed());
    Tap.assertEqual(borrowed.get_handle(), handle);
    Tap.assertEqual(borrowed.get_flags(), GCuda.StreamFlags.NON_BLOCKING, 'asked from the driver');
    Tap.assertEqual(borrowed.get_priority(), greatest);
    const perThread = GCuda.Stream.get_per_thread_default(ctx);
    Tap.assert(perThread instanceof GCuda.Stream);
    Tap.assert(perThread.get_context() === ctx);
    Tap.assert(least >= greatest);

    // callbacks: both run in this thread's main context, in the stream's
    // order; the blocking one stalls the stream until it has run, so wait
    // by iterating the main context, never by blocking in synchronize()
    const order = [];
    Tap.assert(borrowed.add_blocking_callback(s => {
        Tap.assert(s === borrowed, 'the stream is passed');
        order.push('blocking');
    }));
    Tap.assert(stream.add_callback(s => {
        Tap.assert(s === stream, 'the stream is passed');
        order.push('callback');
    }));
    const deadline = GLib.get_monotonic_time() + 5000000;
    while (order.length < 2 && GLib.get_monotonic_time() < deadline)
        GLib.MainContext.default().iteration(false);
    Tap.assertEqual(order.join(','), 'blocking,callback');
    stream.synchronize();
    Tap.assert(stream.is_done());
});

realGpuTest('managed memory: prefetch, advice, attach; IPC handles', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const dev = ctx.get_device();
    const managed = GCuda.Buffer.new_managed(ctx, 1 << 20, GCuda.MemAttachFlags.GLOBAL);
    const data = Tap.randomBytes(4096);
    managed.upload(0, data);
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    if (dev.get_attribute(GCuda.DeviceAttribute.CONCURRENT_MANAGED_ACCESS)) {
        Tap.assert(managed.advise(GCuda.MemoryAdvice.SET_PREFERRED_LOCATION, dev));
        Tap.assert(managed.prefetch(dev, stream));
        Tap.assert(managed.prefetch(null, stream), 'null: to the host');
    }
    Tap.assert(managed.attach(GCuda.MemAttachFlags.SINGLE, stream));
    stream.synchronize();
    Tap.assert(managed.attach(GCuda.MemAttachFlags.GLOBAL, stream));
    stream.synchronize();
    Tap.assertBytes(managed.download(0, 4096), data, 'the data stayed');
    const plain = GCuda.Buffer.new(ctx, 4096);
    Tap.assertThrowsGError(() => plain.prefetch(dev, stream), domain, GCuda.Error.INVALID_ARGUMENT,
        'prefetch of memory that is not managed');
    const handle = plain.get_ipc_handle();
    Tap.assert(handle instanceof GLib.Bytes);
    Tap.assertEqual(handle.get_size(), 64, 'a CUipcMemHandle');
    Tap.assertThrowsGError(() => managed.get_ipc_handle(), domain, GCuda.Error.INVALID_ARGUMENT,
        'managed memory has no IPC handle');
    managed.free();
    plain.free();
});

Tap.run();
