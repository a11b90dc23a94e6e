// JavaScript numbers into values the GPU reads: the memsets. GJS converts a
// number to a C integer before a C function runs (1.5 would set 1, NaN 0),
// so the memset_d8() ... memset_d32_2d() GJS calls are GCuda's twins taking
// a double (gcuda_buffer_memset_d8_number ...), which refuse a value that
// is no bit pattern of the width. (KernelArgs: testKernelArgs.js.)
// meson runs it on the mock driver (mock: its memsets on host memory) and
// on a GPU (gpu; skipped without one, failed under GCUDA_TEST_REQUIRE_GPU=1).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

const domain = GCuda.error_quark();
const INVALID_ARGUMENT = GCuda.Error.INVALID_ARGUMENT;
const SIZE = 256;

function bytesOf(buffer) {
    return Array.from(buffer.download(0, SIZE).toArray());
}

Tap.test('memset_* from a JS number: exact patterns set, anything else a GError that sets nothing', () => {
    Tap.requireGpu();
    const buffer = GCuda.Buffer.new(GCuda.Context.get_default(), SIZE);
    const want = Array.from({length: SIZE}, () => Math.floor(Math.random() * 256));
    buffer.upload(0, new Uint8Array(want));

    const refused = [
        ['memset_d8', 3.7], ['memset_d8', -1], ['memset_d8', 256], ['memset_d8', NaN], ['memset_d8', Infinity],
        ['memset_d16', 1.5], ['memset_d16', 65536], ['memset_d16', -0.5],
        ['memset_d32', 1.5], ['memset_d32', -1], ['memset_d32', 2 ** 32], ['memset_d32', -Infinity],
        ['memset_d32', 2 ** 53 + 2],
    ];
    for (const [name, value] of refused) {
        const e = Tap.assertThrowsGError(() => buffer[name](0, value, 4, null), domain, INVALID_ARGUMENT,
            `${name}(0, ${value}, 4)`);
        Tap.assert(e.message.startsWith('The memset value '), e.message);
        Tap.assertThrowsGError(() => buffer[`${name}_2d`](0, 16, value, 2, 2, null), domain, INVALID_ARGUMENT,
            `${name}_2d(0, 16, ${value}, 2, 2)`);
    }
    const e = Tap.assertThrowsGError(() => buffer.memset_d32(0, 2 ** 53 + 2, 4, null), domain, INVALID_ARGUMENT);
    Tap.assert(e.message.includes('9007199254740994'), e.message);
    Tap.assertEqual(bytesOf(buffer).join(), want.join(), 'the refused memsets set nothing');

    Tap.assert(buffer.memset_d8(1, 255, 3, null));
    want.fill(255, 1, 4);
    Tap.assert(buffer.memset_d16(8, 0xbeef, 2, null));
    want.splice(8, 4, 0xef, 0xbe, 0xef, 0xbe);
    Tap.assert(buffer.memset_d32(16, 2 ** 32 - 1, 2, null));
    want.fill(255, 16, 24);
    Tap.assert(buffer.memset_d32(24, 0xc0000000, 1, null));  // -2.0f
    want.splice(24, 4, 0, 0, 0, 0xc0);
    Tap.assert(buffer.memset_d8_2d(64, 16, 7, 2, 2, null));
    want.splice(64, 2, 7, 7);
    want.splice(80, 2, 7, 7);
    Tap.assert(buffer.memset_d16_2d(96, 16, 0x0102, 2, 2, null));
    want.splice(96, 4, 2, 1, 2, 1);
    want.splice(112, 4, 2, 1, 2, 1);
    Tap.assert(buffer.memset_d32_2d(128, 16, 0x01020304, 2, 2, null));
    want.splice(128, 8, 4, 3, 2, 1, 4, 3, 2, 1);
    want.splice(144, 8, 4, 3, 2, 1, 4, 3, 2, 1);
    Tap.assertEqual(bytesOf(buffer).join(), want.join(), 'the exact memsets set their patterns');
    // the memset's own errors come after the value's
    Tap.assertThrowsGError(() => buffer.memset_d32(2, 1, 1, null), domain, INVALID_ARGUMENT, 'misaligned');
    Tap.assertThrowsGError(() => buffer.memset_d8(0, 1, SIZE + 1, null), domain, GCuda.Error.OUT_OF_BOUNDS,
        'past the end');
});

Tap.run();
