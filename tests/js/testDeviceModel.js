// GCuda.DeviceModel from GJS: the Gio.ListModel protocol, empty with a reason
// without a driver (GCUDA_TEST_DRIVER=missing|stub|no-device), the mock's
// devices (GCUDA_MOCK_DEVICES), a GPU's; and a cancelled compile_async
// rejecting with Gio.IOErrorEnum.CANCELLED (NVRTC alone, sm_90).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const Gio = imports.gi.Gio;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

Gio._promisify(GCuda.Compiler.prototype, 'compile_async', 'compile_finish');

const situation = GLib.getenv('GCUDA_TEST_DRIVER');
const mockDevices = GLib.getenv('GCUDA_MOCK_DEVICES');
const expected = {
    'missing': [GCuda.error_quark(), GCuda.Error.DRIVER_NOT_FOUND],
    'stub': [GCuda.driver_error_quark(), GCuda.DriverError.STUB_LIBRARY],
    'no-device': [GCuda.driver_error_quark(), GCuda.DriverError.NO_DEVICE],
};

Tap.test('device list: the model protocol', () => {
    const devices = GCuda.DeviceModel.get_default();
    Tap.assert(devices instanceof Gio.ListModel, 'not a Gio.ListModel');
    Tap.assert(devices === GCuda.DeviceModel.get_default(), 'not one shared list');
    Tap.assertEqual(devices.get_item_type(), GCuda.Device.$gtype);
    const n = devices.get_n_items();
    Tap.assertEqual(devices.n_items, n);
    Tap.assertEqual(devices.get_item(n), null);
    if (situation !== null) {
        const [domain, code] = expected[situation];
        Tap.assertEqual(n, 0);
        const error = devices.get_error();
        Tap.assert(error instanceof GLib.Error, `not a GLib.Error: ${error}`);
        Tap.assert(error.matches(domain, code), `unexpected error ${error.code}: ${error.message}`);
        Tap.assertEqual(devices.status_message, error.message);
        return;
    }
    if (mockDevices === null)
        Tap.requireGpu();
    const count = GCuda.Device.get_count();
    if (mockDevices !== null)
        Tap.assertEqual(count, Number(mockDevices));
    Tap.assertEqual(n, count);
    Tap.assertEqual(devices.get_error(), null);
    Tap.assertEqual(devices.status_message, null);
    for (let i = 0; i < n; i++) {
        const device = devices.get_item(i);
        Tap.assert(device === GCuda.Device.get(i), `item ${i} is not GCuda.Device.get(${i})`);
        Tap.assertEqual(device.ordinal, i);
    }
});

function bigSource(n) {
    let s = `// ${GLib.get_real_time()} ${GLib.random_int()}\n`;
    for (let i = 0; i < n; i++)
        s += `__global__ void k${i}(float *p, float a) { int i = threadIdx.x; p[i] = p[i] * a + ${i}.0f; }\n`;
    return s;
}

Tap.test('compile_async cancelled 10 ms in rejects with CANCELLED at once', () => {
    Tap.requireNvrtc();
    const compiler = GCuda.Compiler.new(null);
    compiler.arch = 'sm_90';
    let n = 16, took;
    for (;;) {
        const t = GLib.get_monotonic_time();
        compiler.compile(bigSource(n));
        took = (GLib.get_monotonic_time() - t) / 1000;
        if (took >= 150 || n >= 8192)
            break;
        n *= 2;
    }
    const cancellable = new Gio.Cancellable();
    const loop = new GLib.MainLoop(null, false);
    let error = null, cancelledAt = 0, at = 0;
    const start = GLib.get_monotonic_time();
    compiler.compile_async(bigSource(n), cancellable).then(() => {}, e => {
        error = e;
    }).finally(() => {
        at = GLib.get_monotonic_time();
        loop.quit();
    });
    GLib.timeout_add(GLib.PRIORITY_DEFAULT, 10, () => {
        cancelledAt = GLib.get_monotonic_time();
        cancellable.cancel();
        return GLib.SOURCE_REMOVE;
    });
    GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 60, () => {
        loop.quit();
        return GLib.SOURCE_REMOVE;
    });
    loop.run();
    Tap.assert(error instanceof GLib.Error, `did not reject with a GLib.Error: ${error}`);
    Tap.assert(error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED), error.message);
    const latency = (at - cancelledAt) / 1000, callback = (at - start) / 1000;
    print(`# callback ${latency.toFixed(3)} ms after the cancel, ${callback.toFixed(1)} ms after the start ` +
          `(the compile takes ${took.toFixed(1)} ms)`);
    Tap.assert(latency < took / 4, `latency ${latency} ms`);
    Tap.assert(callback < took * 3 / 4, `callback ${callback} ms after the start`);
});

Tap.run();
