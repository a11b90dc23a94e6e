// Several GPUs from GJS: peer attributes and access (errors naming both
// devices), copies between devices with peer access on and off, and work on
// every device's primary context. Every test needs two devices
// (Tap.requireGpus(2): skipped with fewer, failed instead under
// GCUDA_TEST_REQUIRE_GPUS=2 or more). meson runs it on a GPU host (gpu) and
// on the mock driver's two devices (mock).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

function primaries() {
    return GCuda.Device.list().map(d => d.get_primary_context());
}

Tap.test('peer attributes', () => {
    Tap.requireGpus(2);
    const [d0, d1] = [GCuda.Device.get(0), GCuda.Device.get(1)];
    const supported = d0.get_peer_attribute(d1, GCuda.PeerAttribute.ACCESS_SUPPORTED);
    Tap.assertEqual(supported, d0.can_access_peer(d1) ? 1 : 0);
    for (const attr of [GCuda.PeerAttribute.NATIVE_ATOMIC_SUPPORTED, GCuda.PeerAttribute.CUDA_ARRAY_ACCESS_SUPPORTED]) {
        const v = d1.get_peer_attribute(d0, attr);
        Tap.assert(v === 0 || v === 1, `attribute ${attr}: ${v}`);
    }
    Tap.assert(d0.get_peer_attribute(d1, GCuda.PeerAttribute.PERFORMANCE_RANK) >= 0);
    Tap.assertThrowsGError(() => d0.get_peer_attribute(d0, GCuda.PeerAttribute.ACCESS_SUPPORTED),
        GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
});

Tap.test('peer access errors name both devices', () => {
    Tap.requireGpus(2);
    const [p0, p1] = primaries();
    if (!p0.device.can_access_peer(p1.device)) {
        const e = Tap.assertThrowsGError(() => p0.enable_peer_access(p1),
            GCuda.driver_error_quark(), GCuda.DriverError.PEER_ACCESS_UNSUPPORTED);
        Tap.assert(e.message.includes('device 0 to device 1'), e.message);
        return;
    }
    p0.enable_peer_access(p1);
    try {
        const e = Tap.assertThrowsGError(() => p0.enable_peer_access(p1),
            GCuda.driver_error_quark(), GCuda.DriverError.PEER_ACCESS_ALREADY_ENABLED);
        Tap.assert(e.message.includes('from device 0 to device 1'), e.message);
    } finally {
        p0.disable_peer_access(p1);
    }
    const e = Tap.assertThrowsGError(() => p0.disable_peer_access(p1),
        GCuda.driver_error_quark(), GCuda.DriverError.PEER_ACCESS_NOT_ENABLED);
    Tap.assert(e.message.includes('from device 0 to device 1'), e.message);
});

function copyBothWays(a, b, n) {
    const data = Tap.randomBytes(n);
    const src = GCuda.Buffer.new(a, n);
    const dst = GCuda.Buffer.new(b, n);
    const back = GCuda.Buffer.new(a, n);
    src.upload(0, data);
    dst.copy_from(0, src, 0, n);
    back.copy_from(0, dst, 0, n);
    Tap.assert(Tap.sameBytes(dst.download(0, n), data), 'copied to the other device');
    Tap.assert(Tap.sameBytes(back.download(0, n), data), 'copied back');
    for (const buf of [src, dst, back])
        buf.free();
}

Tap.test('copies between devices with peer access off and on', () => {
    Tap.requireGpus(2);
    const [p0, p1] = primaries();
    const n = (1 << 20) + 13;
    copyBothWays(p0, p1, n);
    if (!p0.device.can_access_peer(p1.device) || !p1.device.can_access_peer(p0.device))
        return;
    p0.enable_peer_access(p1);
    p1.enable_peer_access(p0);
    try {
        copyBothWays(p0, p1, n);
        copyBothWays(p1, p0, n);
    } finally {
        p0.disable_peer_access(p1);
        p1.disable_peer_access(p0);
    }
});

Tap.test('every device\'s primary context from one thread', () => {
    Tap.requireGpus(2);
    const before = GCuda.Context.get_default();
    primaries().forEach((ctx, i) => {
        Tap.assert(ctx.is_primary());
        Tap.assertEqual(ctx.device.get_ordinal(), i);
        const data = Tap.randomBytes(4099);
        const buf = GCuda.Buffer.new(ctx, data.length);
        Tap.assert(buf.get_context() === ctx);
        buf.upload(0, data);
        Tap.assert(Tap.sameBytes(buf.download(0, data.length), data), `device ${i}`);
        buf.free();
    });
    Tap.assert(GCuda.Context.get_default() === before, 'the default context is unchanged');
    Tap.assertEqual(GCuda.Context.get_current(), null);
});

Tap.run();
