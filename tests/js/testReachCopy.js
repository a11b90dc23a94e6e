// Structured copies from GJS (Copy2D, Copy3D, Copy3DPeer): every field's
// getter and setter (plain numbers, a boolean), the endpoints (buffers,
// page-locked and plain host buffers, host and unified addresses as
// numbers, contexts), execute() with and without a stream, checked against
// a copy made in JS, and the errors of bad regions. meson runs it without a
// driver (the fields only), on the mock driver's 2D/3D copies
// (GCUDA_MOCK_EVENTS=1) and on a GPU.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

const noDriver = GLib.getenv('GCUDA_TEST_DRIVER') === 'missing';
const gpuTest = noDriver ? () => {} : (...args) => Tap.test(...args);
const domain = GCuda.error_quark();

function randomInt(limit) {
    return Math.floor(Math.random() * limit);
}

// The box (width bytes x height rows x depth slices) at (x, y, z) of memory
// of @pitch bytes per row and @rows rows per slice, copied in JS from @src
// into a copy of @dst: the oracle of every execute().
function copyBox(src, srcAt, dst, dstAt, width, height, depth) {
    const out = dst.slice();
    for (let z = 0; z < depth; z++) {
        for (let y = 0; y < height; y++) {
            const s = ((srcAt.z + z) * srcAt.rows + srcAt.y + y) * srcAt.pitch + srcAt.x;
            const d = ((dstAt.z + z) * dstAt.rows + dstAt.y + y) * dstAt.pitch + dstAt.x;
            out.set(src.subarray(s, s + width), d);
        }
    }
    return out;
}

const FIELDS_2D = ['src_x_in_bytes', 'src_y', 'src_pitch', 'dst_x_in_bytes', 'dst_y', 'dst_pitch',
    'width_in_bytes', 'height'];
const FIELDS_3D = FIELDS_2D.concat(['src_z', 'src_height', 'dst_z', 'dst_height', 'depth']);

// Each field through its setter, read back by its getter and its property,
// then through the property, read back by the getter: fresh values up to
// 2^40 (numbers, exact in a double).
function checkFields(copy, fields) {
    for (const field of fields) {
        const prop = field.replace(/_/g, '-');
        Tap.assertEqual(copy[`get_${field}`](), 0, `${field} starts at 0`);
        const a = randomInt(2 ** 40) + 1;
        copy[`set_${field}`](a);
        Tap.assertEqual(copy[`get_${field}`](), a, `get_${field}`);
        Tap.assertEqual(copy[field], a, `the ${prop} property`);
        const b = randomInt(2 ** 40) + 1;
        copy[field] = b;
        Tap.assertEqual(copy[`get_${field}`](), b, `get_${field} after the property`);
    }
}

Tap.test('Copy2D: every field, aligned', () => {
    const copy = GCuda.Copy2D.new();
    Tap.assert(copy instanceof GCuda.Copy2D);
    checkFields(copy, FIELDS_2D);
    Tap.assertEqual(copy.get_aligned(), true, 'aligned by default, as PyCUDA\'s');
    copy.set_aligned(false);
    Tap.assertEqual(copy.get_aligned(), false);
    Tap.assertEqual(copy.aligned, false);
});

Tap.test('Copy3D: every field', () => {
    const copy = GCuda.Copy3D.new();
    checkFields(copy, FIELDS_3D);
});

Tap.test('Copy3DPeer: every field', () => {
    const copy = GCuda.Copy3DPeer.new();
    checkFields(copy, FIELDS_3D);
});

gpuTest('Copy2D: host address to device, device to host buffer, unified, on a stream', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const [width, height] = [24 + randomInt(8), 5 + randomInt(4)];
    const src = Tap.randomBytes(64 * 16);
    const host = GCuda.HostBuffer.new_aligned(src.length, 64);
    host.write(0, new GLib.Bytes(src));
    const devData = Tap.randomBytes(48 * 16);
    const dev = GCuda.Buffer.new(ctx, devData.length);
    dev.upload(0, devData);

    // host (by address) -> device: from (3, 2) of 64-byte rows to (5, 1) of 48-byte rows
    const c = GCuda.Copy2D.new();
    c.set_src_host(host.get_address(), host.get_size());
    c.set_dst_buffer(dev);
    c.set_src_x_in_bytes(3);
    c.set_src_y(2);
    c.set_src_pitch(64);
    c.set_dst_x_in_bytes(5);
    c.set_dst_y(1);
    c.set_dst_pitch(48);
    c.set_width_in_bytes(width);
    c.set_height(height);
    c.set_aligned(false);
    Tap.assert(c.execute(null));
    let want = copyBox(src, {x: 3, y: 2, z: 0, pitch: 64, rows: 0}, devData, {x: 5, y: 1, z: 0, pitch: 48, rows: 0},
        width, height, 1);
    Tap.assertBytes(dev.download(0, devData.length), want, 'host address to device');

    // device -> page-locked host buffer, aligned, on a stream
    const pinned = GCuda.HostBuffer.new_pagelocked(ctx, 48 * 16, 0);
    pinned.write(0, new GLib.Bytes(new Uint8Array(48 * 16)));
    const back = GCuda.Copy2D.new();
    back.set_src_buffer(dev);
    back.set_dst_host_buffer(pinned);
    back.set_src_pitch(48);
    back.set_dst_pitch(48);
    back.set_width_in_bytes(48);
    back.set_height(16);
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    Tap.assert(back.execute(stream));
    stream.synchronize();
    Tap.assertBytes(pinned.read(0, 48 * 16), want, 'device to host buffer on a stream');

    // unified addresses (managed memory) on both sides, and a host address as destination
    const managed = GCuda.Buffer.new_managed(ctx, 1024, GCuda.MemAttachFlags.GLOBAL);
    const mdata = Tap.randomBytes(1024);
    managed.upload(0, mdata);
    const out = GCuda.HostBuffer.new_aligned(1024, 64);
    out.write(0, new GLib.Bytes(new Uint8Array(1024)));
    const u = GCuda.Copy2D.new();
    u.set_src_unified(managed.get_address(), 1024);
    u.set_dst_host(out.get_address(), 1024);
    u.set_src_pitch(32);
    u.set_dst_pitch(32);
    u.set_src_x_in_bytes(8);
    u.set_width_in_bytes(16);
    u.set_height(32);
    Tap.assert(u.execute(null));
    want = copyBox(mdata, {x: 8, y: 0, z: 0, pitch: 32, rows: 0}, new Uint8Array(1024),
        {x: 0, y: 0, z: 0, pitch: 32, rows: 0}, 16, 32, 1);
    Tap.assertBytes(out.read(0, 1024), want, 'unified to host address');
    const toUnified = GCuda.Copy2D.new();
    toUnified.set_src_host_buffer(host);
    toUnified.set_dst_unified(managed.get_address(), 1024);
    toUnified.set_width_in_bytes(1024);
    toUnified.set_height(1);
    Tap.assert(toUnified.execute(null));
    Tap.assertBytes(managed.download(0, 1024), src.slice(0, 1024), 'host buffer to unified');
    managed.free();
    dev.free();
    pinned.free();
});

gpuTest('Copy2D: bad regions are errors, nothing copied', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const data = Tap.randomBytes(256);
    const dev = GCuda.Buffer.new(ctx, 256);
    dev.upload(0, data);
    const host = GCuda.HostBuffer.new_aligned(256, 64);
    const c = GCuda.Copy2D.new();
    c.set_src_host_buffer(host);
    c.set_dst_buffer(dev);
    Tap.assertThrowsGError(() => c.execute(null), domain, GCuda.Error.INVALID_ARGUMENT, 'width 0');
    c.set_width_in_bytes(16);
    c.set_height(4);
    c.set_src_pitch(8);
    c.set_dst_pitch(16);
    Tap.assertThrowsGError(() => c.execute(null), domain, GCuda.Error.INVALID_ARGUMENT, 'pitch below the row');
    c.set_src_pitch(16);
    c.set_dst_y(14);
    Tap.assertThrowsGError(() => c.execute(null), domain, GCuda.Error.OUT_OF_BOUNDS, 'rows past the buffer');
    Tap.assertBytes(dev.download(0, 256), data, 'the buffer is untouched');
    dev.free();
    Tap.assertThrowsGError(() => c.execute(null), domain, GCuda.Error.FREED, 'a freed destination');
});

gpuTest('Copy3D: a box from a host buffer to a buffer and back to a host address', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    // source: 4 slices of 6 rows of 32 bytes; destination: 3 slices of 5 rows of 40 bytes
    const src = Tap.randomBytes(4 * 6 * 32);
    const host = GCuda.HostBuffer.new_aligned(src.length, 64);
    host.write(0, new GLib.Bytes(src));
    const devData = Tap.randomBytes(3 * 5 * 40);
    const dev = GCuda.Buffer.new(ctx, devData.length);
    dev.upload(0, devData);
    const [w, h, d] = [10 + randomInt(10), 3, 2];
    const c = GCuda.Copy3D.new();
    c.set_src_host_buffer(host);
    c.set_dst_buffer(dev);
    c.set_src_x_in_bytes(2);
    c.set_src_y(1);
    c.set_src_z(1);
    c.set_src_pitch(32);
    c.set_src_height(6);
    c.set_dst_x_in_bytes(7);
    c.set_dst_y(2);
    c.set_dst_z(1);
    c.set_dst_pitch(40);
    c.set_dst_height(5);
    c.set_width_in_bytes(w);
    c.set_height(h);
    c.set_depth(d);
    Tap.assert(c.execute(null));
    const want = copyBox(src, {x: 2, y: 1, z: 1, pitch: 32, rows: 6}, devData,
        {x: 7, y: 2, z: 1, pitch: 40, rows: 5}, w, h, d);
    Tap.assertBytes(dev.download(0, devData.length), want, 'host buffer to buffer');

    // the whole buffer back, packed, to a host address, on a stream
    const out = GCuda.HostBuffer.new_aligned(devData.length, 64);
    const b = GCuda.Copy3D.new();
    b.set_src_buffer(dev);
    b.set_dst_host(out.get_address(), out.get_size());
    b.set_src_pitch(40);
    b.set_src_height(5);
    b.set_dst_pitch(40);
    b.set_dst_height(5);
    b.set_width_in_bytes(40);
    b.set_height(5);
    b.set_depth(3);
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.DEFAULT, 0);
    Tap.assert(b.execute(stream));
    stream.synchronize();
    Tap.assertBytes(out.read(0, devData.length), want, 'buffer to host address');

    // unified endpoints: page-locked memory in, managed memory out
    const pinned = GCuda.HostBuffer.new_pagelocked(ctx, src.length, 0);
    pinned.write(0, new GLib.Bytes(src));
    const managed = GCuda.Buffer.new_managed(ctx, 512, GCuda.MemAttachFlags.GLOBAL);
    const u = GCuda.Copy3D.new();
    u.set_src_unified(pinned.get_address(), pinned.get_size());
    u.set_dst_unified(managed.get_address(), 512);
    u.set_width_in_bytes(32);
    u.set_height(4);
    u.set_depth(4);
    u.set_src_pitch(32);
    u.set_src_height(6);
    u.set_dst_pitch(32);
    u.set_dst_height(4);
    Tap.assert(u.execute(null));
    const uwant = copyBox(src, {x: 0, y: 0, z: 0, pitch: 32, rows: 6}, new Uint8Array(512),
        {x: 0, y: 0, z: 0, pitch: 32, rows: 4}, 32, 4, 4);
    Tap.assertBytes(managed.download(0, 512), uwant, 'unified to unified');
    u.set_dst_height(3);
    Tap.assertThrowsGError(() => u.execute(null), domain, GCuda.Error.INVALID_ARGUMENT,
        'fewer rows per slice than the box has');

    // host to host: a host address into a host buffer, slice 1 of the source
    const hostOut = GCuda.HostBuffer.new_aligned(6 * 32, 64);
    const hh = GCuda.Copy3D.new();
    hh.set_src_host(host.get_address(), host.get_size());
    hh.set_dst_host_buffer(hostOut);
    hh.set_src_z(1);
    hh.set_src_pitch(32);
    hh.set_src_height(6);
    hh.set_dst_pitch(32);
    hh.set_dst_height(6);
    hh.set_width_in_bytes(32);
    hh.set_height(6);
    hh.set_depth(1);
    Tap.assert(hh.execute(null));
    Tap.assertBytes(hostOut.read(0, 6 * 32), src.slice(6 * 32, 12 * 32), 'host address to host buffer');
    managed.free();
    pinned.free();
    dev.free();
});

gpuTest('Copy3DPeer: between buffers of named contexts, from host memory', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default();
    const data = Tap.randomBytes(2 * 4 * 64);
    const a = GCuda.Buffer.new(ctx, data.length);
    a.upload(0, data);
    const bData = Tap.randomBytes(2 * 4 * 64);
    const b = GCuda.Buffer.new(ctx, bData.length);
    b.upload(0, bData);
    const c = GCuda.Copy3DPeer.new();
    c.set_src_buffer(a);
    c.set_dst_buffer(b);
    c.set_src_context(ctx);
    c.set_dst_context(ctx);
    c.set_src_pitch(64);
    c.set_src_height(4);
    c.set_dst_pitch(64);
    c.set_dst_height(4);
    c.set_src_x_in_bytes(4);
    c.set_src_y(1);
    c.set_dst_z(1);
    c.set_width_in_bytes(20);
    c.set_height(3);
    c.set_depth(1);
    Tap.assert(c.execute(null));
    let want = copyBox(data, {x: 4, y: 1, z: 0, pitch: 64, rows: 4}, bData, {x: 0, y: 0, z: 1, pitch: 64, rows: 4},
        20, 3, 1);
    Tap.assertBytes(b.download(0, bData.length), want, 'buffer to buffer');

    const host = GCuda.HostBuffer.new_aligned(512, 64);
    const hdata = Tap.randomBytes(512);
    host.write(0, new GLib.Bytes(hdata));
    const h = GCuda.Copy3DPeer.new();
    h.set_src_host_buffer(host);
    h.set_dst_buffer(b);
    h.set_dst_context(ctx);
    h.set_width_in_bytes(512);
    h.set_height(1);
    h.set_depth(1);
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    Tap.assert(h.execute(stream));
    stream.synchronize();
    Tap.assertBytes(b.download(0, 512), hdata, 'host buffer to buffer on a stream');

    // a host address into the second half of a, on a stream
    const half = Tap.randomBytes(256);
    host.write(0, new GLib.Bytes(half));
    const fromAddress = GCuda.Copy3DPeer.new();
    fromAddress.set_src_host(host.get_address(), 256);
    fromAddress.set_dst_buffer(a);
    fromAddress.set_dst_x_in_bytes(256);
    fromAddress.set_width_in_bytes(256);
    fromAddress.set_height(1);
    fromAddress.set_depth(1);
    Tap.assert(fromAddress.execute(stream));
    stream.synchronize();
    data.set(half, 256);
    Tap.assertBytes(a.download(0, data.length), data, 'host address to buffer on a stream');
    host.write(0, new GLib.Bytes(hdata));

    const out = GCuda.HostBuffer.new_aligned(512, 64);
    const o = GCuda.Copy3DPeer.new();
    o.set_src_unified(b.get_address(), 512);
    o.set_dst_host(out.get_address(), 512);
    o.set_width_in_bytes(512);
    o.set_height(1);
    o.set_depth(1);
    Tap.assert(o.execute(null));
    Tap.assertBytes(out.read(0, 512), hdata, 'unified to host address');
    const toHostBuffer = GCuda.Copy3DPeer.new();
    toHostBuffer.set_src_buffer(a);
    toHostBuffer.set_dst_host_buffer(out);
    toHostBuffer.set_dst_unified(out.get_address(), 512);
    toHostBuffer.set_width_in_bytes(512);
    toHostBuffer.set_height(1);
    toHostBuffer.set_depth(1);
    Tap.assert(toHostBuffer.execute(null));
    Tap.assertBytes(out.read(0, 512), data.slice(0, 512), 'the last endpoint set wins');

    // a context that is not the buffer's
    const other = ctx.get_device().create_context(GCuda.ContextFlags.SCHED_AUTO);
    c.set_src_context(other);
    Tap.assertThrowsGError(() => c.execute(null), domain, GCuda.Error.CONTEXT_MISMATCH, 'the buffer\'s context');
    other.destroy();
    a.free();
    b.free();
});

Tap.run();
