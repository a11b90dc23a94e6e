// GCuda from GJS. meson runs this script in three situations:
//   GCUDA_TEST_DRIVER=missing  (unloadable driver) import, enums, versions,
//                              DRIVER_NOT_FOUND from every entry point
//   GCUDA_TEST_DRIVER=stub     (the toolkit's stub) the same, STUB_LIBRARY
//   GCUDA_TEST_DRIVER=no-device  (the mock driver with no device) NO_DEVICE
//   unset                      import, enums, versions, and the GPU tests
//                              (skipped without a GPU, failed instead
//                              when GCUDA_TEST_REQUIRE_GPU=1)
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const GLib = imports.gi.GLib;
const GObject = imports.gi.GObject;
const Tap = imports.tap;

const situation = GLib.getenv('GCUDA_TEST_DRIVER');

// ------------------------------------------------------------ no driver needed

Tap.test('version', () => {
    Tap.assertEqual(GCuda.get_major_version(), GCuda.MAJOR_VERSION);
    Tap.assertEqual(GCuda.get_minor_version(), GCuda.MINOR_VERSION);
    Tap.assertEqual(GCuda.get_micro_version(), GCuda.MICRO_VERSION);
    Tap.assert(GCuda.check_version(1, 0, 0));
    Tap.assert(!GCuda.check_version(GCuda.MAJOR_VERSION + 1, 0, 0));
    const [major, minor, revision] = GCuda.get_cuda_version();
    Tap.assert(major >= 13, `CUDA major ${major}`);
    Tap.assert(minor >= 0);
    Tap.assertEqual(revision, 0);
});

Tap.test('enums', () => {
    Tap.assertEqual(GCuda.DeviceAttribute.MAX_THREADS_PER_BLOCK, 1);
    Tap.assertEqual(GCuda.DeviceAttribute.WARP_SIZE, 10);
    Tap.assertEqual(GCuda.ContextFlags.SCHED_BLOCKING_SYNC, 4);
    Tap.assertEqual(GCuda.Limit.MALLOC_HEAP_SIZE, 2);
    Tap.assertEqual(GCuda.CacheConfig.L1, 2);
    Tap.assertEqual(GCuda.ComputeMode.EXCLUSIVE_PROCESS, 3);
    Tap.assertEqual(GCuda.Error.DRIVER_NOT_FOUND, 1);
    Tap.assertEqual(GCuda.Error.INVALID_ARGUMENT, 4);
    Tap.assertEqual(GCuda.DriverError.STUB_LIBRARY, 34);
    Tap.assertEqual(GCuda.DriverError.INVALID_DEVICE, 101);
    Tap.assertEqual(GCuda.ErrorCategory.RUNTIME, 4);
});

Tap.test('error names and categories', () => {
    Tap.assertEqual(GCuda.DriverError.get_name(GCuda.DriverError.INVALID_VALUE), 'CUDA_ERROR_INVALID_VALUE');
    Tap.assertEqual(GCuda.driver_error_get_name(GCuda.DriverError.SUCCESS), 'CUDA_SUCCESS');
    Tap.assertEqual(GCuda.DriverError.get_name(12345), null);
    Tap.assertEqual(GCuda.DriverError.get_category(GCuda.DriverError.LAUNCH_FAILED), GCuda.ErrorCategory.LAUNCH);
    Tap.assertEqual(GCuda.DriverError.get_category(GCuda.DriverError.OUT_OF_MEMORY), GCuda.ErrorCategory.MEMORY);
    Tap.assertEqual(GCuda.DriverError.get_category(GCuda.DriverError.NO_DEVICE), GCuda.ErrorCategory.RUNTIME);
    Tap.assertEqual(GCuda.DriverError.get_category(GCuda.DriverError.UNKNOWN), GCuda.ErrorCategory.UNKNOWN);
    Tap.assertEqual(GCuda.DriverError.get_category(GCuda.DriverError.INVALID_VALUE), GCuda.ErrorCategory.LOGIC);
    Tap.assertEqual(GLib.quark_to_string(GCuda.error_quark()), 'gcuda-error-quark');
    Tap.assertEqual(GLib.quark_to_string(GCuda.driver_error_quark()), 'gcuda-driver-error-quark');
});

Tap.test('unbound device', () => {
    const dev = new GCuda.Device();
    Tap.assertEqual(dev.get_ordinal(), -1);
    Tap.assertThrowsGError(() => dev.get_attribute(GCuda.DeviceAttribute.WARP_SIZE),
        GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
    Tap.assertThrowsGError(() => dev.get_attributes(), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
    Tap.assertThrowsGError(() => dev.get_primary_context(), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
    Tap.assertThrowsGError(() => dev.create_context(0), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
    const ctx = new GCuda.Context();
    Tap.assertThrowsGError(() => ctx.synchronize(), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
});

// ------------------------------------------------------------ no driver

if (situation === 'missing' || situation === 'stub' || situation === 'no-device') {
    const [domain, code, prefix] = {
        'missing': [GCuda.error_quark(), GCuda.Error.DRIVER_NOT_FOUND, null],
        'stub': [GCuda.driver_error_quark(), GCuda.DriverError.STUB_LIBRARY,
            'cuInit failed: CUDA_ERROR_STUB_LIBRARY ('],
        'no-device': [GCuda.driver_error_quark(), GCuda.DriverError.NO_DEVICE,
            'cuInit failed: CUDA_ERROR_NO_DEVICE ('],
    }[situation];
    const library = GLib.getenv('GCUDA_DRIVER_LIBRARY');

    const checkMessage = e => {
        if (situation === 'missing')
            Tap.assert(e.message.includes(library), `message does not name ${library}: ${e.message}`);
        else
            Tap.assert(e.message.startsWith(prefix), e.message);
    };

    Tap.test(`no driver (${situation}): init`, () => {
        const e = Tap.assertThrowsGError(() => GCuda.init(), domain, code);
        checkMessage(e);
        Tap.assertEqual(GCuda.Error.get_category(e), GCuda.ErrorCategory.RUNTIME);
        Tap.assert(e.matches(situation === 'missing' ? GCuda.Error : GCuda.DriverError, code),
            'matches() with the enum as domain');
    });

    const entryPoints = {
        'Device.get_count': () => GCuda.Device.get_count(),
        'Device.get': () => GCuda.Device.get(0),
        'Device.list': () => GCuda.Device.list(),
        'Device.get_by_pci_bus_id': () => GCuda.Device.get_by_pci_bus_id('0000:41:00.0'),
        'Context.get_default': () => GCuda.Context.get_default(),
        'Context.get_current': () => GCuda.Context.get_current(),
        'Context.pop': () => GCuda.Context.pop(),
        'get_driver_version': () => GCuda.get_driver_version(),
    };
    for (const [name, fn] of Object.entries(entryPoints)) {
        Tap.test(`no driver (${situation}): ${name}`, () => {
            checkMessage(Tap.assertThrowsGError(fn, domain, code));
        });
    }

    Tap.test(`no driver (${situation}): malformed PCI bus id`, () => {
        Tap.assertThrowsGError(() => GCuda.Device.get_by_pci_bus_id('zz'),
            GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
    });
} else {
    // -------------------------------------------------------- GPU

    Tap.test('gpu: devices', () => {
        Tap.requireGpu();
        const count = GCuda.Device.get_count();
        Tap.assert(count >= 1);
        const dev = GCuda.Device.get(0);
        Tap.assert(dev === GCuda.Device.get(0), 'the same object twice');
        Tap.assertEqual(dev.get_ordinal(), 0);
        Tap.assertEqual(dev.ordinal, 0);
        Tap.assert(dev.name.length > 0);
        Tap.assert(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(dev.uuid), dev.uuid);
        const list = GCuda.Device.list();
        Tap.assertEqual(list.length, count);
        Tap.assert(list[0] === dev);
        Tap.assert(GCuda.Device.get_by_pci_bus_id(dev.pci_bus_id) === dev);
        const [major, minor] = dev.get_compute_capability();
        Tap.assertEqual(major, dev.compute_capability_major);
        Tap.assertEqual(minor, dev.compute_capability_minor);
        Tap.assert(major >= 3);
        if (dev.name.includes('H100')) {
            Tap.assertEqual(major, 9);
            Tap.assertEqual(minor, 0);
            Tap.assert(dev.total_memory > 70e9);
        }
        Tap.assert(dev.equal(GCuda.Device.get(0)));
        Tap.assertEqual(dev.hash(), GCuda.Device.get(0).hash());
    });

    Tap.test('gpu: attributes', () => {
        Tap.requireGpu();
        const dev = GCuda.Device.get(0);
        const attrs = dev.get_attributes();
        Tap.assert(Object.keys(attrs).length > 100, `${Object.keys(attrs).length} attributes`);
        Tap.assertEqual(attrs['max_threads_per_block'], dev.get_attribute(GCuda.DeviceAttribute.MAX_THREADS_PER_BLOCK));
        Tap.assertEqual(attrs['max_threads_per_block'], dev.max_threads_per_block);
        Tap.assertEqual(attrs['warp_size'], 32);
    });

    Tap.test('gpu: bad input', () => {
        Tap.requireGpu();
        Tap.assertThrowsGError(() => GCuda.Device.get(-1), GCuda.driver_error_quark(), GCuda.DriverError.INVALID_DEVICE);
        Tap.assertThrowsGError(() => GCuda.Device.get(1000), GCuda.driver_error_quark(), GCuda.DriverError.INVALID_DEVICE);
        Tap.assertThrowsGError(() => GCuda.Device.get_by_pci_bus_id('0000:gg:00.0'),
            GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
        const dev = GCuda.Device.get(0);
        Tap.assertThrowsGError(() => dev.can_access_peer(dev), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
        Tap.assertThrowsGError(() => dev.create_context(GCuda.ContextFlags.SCHED_SPIN | GCuda.ContextFlags.SCHED_YIELD),
            GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
    });

    Tap.test('gpu: default context', () => {
        Tap.requireGpu();
        const ctx = GCuda.Context.get_default();
        Tap.assert(ctx === GCuda.Context.get_default(), 'the same object twice');
        Tap.assert(ctx.is_primary() && ctx.primary, 'is_primary() and the primary property');
        Tap.assert(ctx.device instanceof GCuda.Device);
        Tap.assert(ctx.device.get_primary_context() === ctx);
        ctx.synchronize();
        const info = ctx.get_memory_info();
        Tap.assertEqual(info.length, 2, 'get_memory_info() is [free, total]');
        const [free, total] = info;
        Tap.assert(free > 0 && free <= total, `free ${free}, total ${total}`);
        Tap.assert(Math.abs(total - ctx.device.total_memory) <= ctx.device.total_memory * 0.02,
            `total ${total}, device ${ctx.device.total_memory}`);
        const [least, greatest] = ctx.get_stream_priority_range();
        Tap.assert(greatest <= least);
        Tap.assert(ctx.get_api_version() > 0);
        Tap.assertEqual(GCuda.Context.get_current(), null);
    });

    Tap.test('gpu: dedicated context', () => {
        Tap.requireGpu();
        const primary = GCuda.Context.get_default();
        const ctx = primary.device.create_context(GCuda.ContextFlags.SCHED_AUTO);
        Tap.assert(!ctx.is_primary());
        Tap.assert(ctx.handle !== primary.handle);
        ctx.set_limit(GCuda.Limit.STACK_SIZE, 4096);
        Tap.assert(ctx.get_limit(GCuda.Limit.STACK_SIZE) >= 4096);
        ctx.destroy();
        Tap.assert(ctx.is_destroyed());
        Tap.assertThrowsGError(() => ctx.synchronize(), GCuda.error_quark(), GCuda.Error.CONTEXT_DESTROYED);
        ctx.destroy();
        primary.synchronize();
        Tap.assertEqual(GCuda.Context.get_current(), null);
    });

    // GJS reaches memory through copies only (read/write, upload/download);
    // exports are for code that keeps its address (another library): while
    // one lives free() retires the memory and releases it at the export's end
    Tap.test('gpu: exports keep freed memory', () => {
        Tap.requireGpu();
        const pool = GCuda.HostMemoryPool.new(null, 0);
        const hb = pool.allocate(1000);
        hb.write(0, new GLib.Bytes(Uint8Array.from([1, 2, 3])));
        hb.export_begin();
        hb.free();
        Tap.assert(hb.is_freed());
        Tap.assertThrowsGError(() => hb.read(0, 1), GCuda.error_quark(), GCuda.Error.FREED);
        Tap.assertThrowsGError(() => hb.export_begin(), GCuda.error_quark(), GCuda.Error.FREED);
        Tap.assertEqual(pool.get_active_blocks(), 1, 'still out: the export has it');
        hb.export_end();
        Tap.assertEqual(pool.get_active_blocks(), 0, 'back with the export\'s end');
        Tap.assertEqual(pool.get_held_blocks(), 1);
        Tap.assertThrowsGError(() => hb.export_end(), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);

        const managed = GCuda.Buffer.new_managed(null, 4096, GCuda.MemAttachFlags.GLOBAL);
        const view = managed.new_view(16, 16);
        view.export_begin();
        managed.free();
        Tap.assertThrowsGError(() => view.download(0, 1), GCuda.error_quark(), GCuda.Error.FREED);
        view.export_end();
    });

    Tap.test('gpu: exports keep a destroyed context\'s memory', () => {
        Tap.requireGpu();
        const ctx = GCuda.Context.get_default().device.create_context(GCuda.ContextFlags.SCHED_AUTO);
        const pool = GCuda.HostMemoryPool.new(ctx, 0);
        const hb = pool.allocate(1000);
        hb.export_begin();
        ctx.destroy();
        Tap.assert(ctx.is_destroyed());
        Tap.assertThrowsGError(() => hb.read(0, 1), GCuda.error_quark(), GCuda.Error.CONTEXT_DESTROYED);
        Tap.assertThrowsGError(() => pool.allocate(10), GCuda.error_quark(), GCuda.Error.CONTEXT_DESTROYED);
        hb.free();
        Tap.assertEqual(pool.get_active_blocks(), 1);
        hb.export_end();
        // given back to the driver: a destroyed context's blocks are not
        // held (the context itself goes after the pool and the buffer)
        Tap.assertEqual(pool.get_active_blocks(), 0);
        Tap.assertEqual(pool.get_managed_bytes(), 0);
        Tap.assertEqual(GCuda.Context.get_current(), null);
    });
}

Tap.run();
