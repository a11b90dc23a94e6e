#!/usr/bin/env gjs
// device-info.js: list the CUDA devices with GCuda
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const {GLib, GCuda} = imports.gi;
const System = imports.system;

const GIB = 1024 ** 3;

function main() {
    const [major, minor, revision] = GCuda.get_cuda_version();
    const driver = GCuda.get_driver_version();

    print(`GCuda ${GCuda.get_major_version()}.${GCuda.get_minor_version()}.${GCuda.get_micro_version()}`);
    print(`CUDA version (headers): ${major}.${minor}.${revision}`);
    print(`Driver version: ${Math.floor(driver / 1000)}.${Math.floor(driver % 1000 / 10)} (${driver})`);

    const count = GCuda.Device.get_count();
    for (let ordinal = 0; ordinal < count; ordinal++) {
        const dev = GCuda.Device.get(ordinal);
        const [ccMajor, ccMinor] = dev.get_compute_capability();
        print('');
        print(`Device ${ordinal}: ${dev.name}`);
        print(`  Compute capability: ${ccMajor}.${ccMinor}`);
        print(`  Total memory:       ${(dev.total_memory / GIB).toFixed(2)} GiB`);
        print(`  Multiprocessors:    ${dev.multiprocessor_count}`);
        print(`  PCI bus id:         ${dev.pci_bus_id}`);
        print(`  UUID:               ${dev.uuid}`);
    }

    // The primary context of the device chosen by CUDA_DEVICE,
    // ~/.cuda_device or the first device that works.
    const ctx = GCuda.Context.get_default();
    const [free, total] = ctx.get_memory_info();
    print('');
    print(`Default context: device ${ctx.device.ordinal}, ` +
          `${(free / GIB).toFixed(2)} GiB free of ${(total / GIB).toFixed(2)} GiB`);
}

try {
    main();
} catch (e) {
    if (!(e instanceof GLib.Error))
        throw e;
    printerr(`device-info: ${e.message}`);
    System.exit(1);
}
