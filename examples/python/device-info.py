#!/usr/bin/env python3
# device-info.py: list the CUDA devices with GCuda
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import sys

import gi
gi.require_version('GCuda', '1.0')
from gi.repository import GLib, GCuda  # noqa: E402

GIB = 1024 ** 3


def main():
    major, minor, revision = GCuda.get_cuda_version()
    driver = GCuda.get_driver_version()

    print('GCuda %d.%d.%d' % (GCuda.get_major_version(), GCuda.get_minor_version(),
                              GCuda.get_micro_version()))
    print('CUDA version (headers): %d.%d.%d' % (major, minor, revision))
    print('Driver version: %d.%d (%d)' % (driver // 1000, driver % 1000 // 10, driver))

    for ordinal in range(GCuda.Device.count()):
        dev = GCuda.Device(ordinal)  # the same object as GCuda.Device.get(ordinal)
        print()
        print('Device %d: %s' % (ordinal, dev.name()))
        print('  Compute capability: %d.%d' % dev.compute_capability())
        print('  Total memory:       %.2f GiB' % (dev.total_memory() / GIB))
        print('  Multiprocessors:    %d' % dev.multiprocessor_count)
        print('  PCI bus id:         %s' % dev.pci_bus_id())
        print('  UUID:               %s' % dev.get_uuid())

    # The primary context of the device chosen by CUDA_DEVICE,
    # ~/.cuda_device or the first device that works.
    ctx = GCuda.Context.get_default()
    free, total = ctx.get_memory_info()
    print()
    print('Default context: device %d, %.2f GiB free of %.2f GiB'
          % (ctx.get_device().get_ordinal(), free / GIB, total / GIB))


if __name__ == '__main__':
    try:
        main()
    except GLib.Error as e:  # GCuda.CudaError and its subclasses are GLib.Errors
        print('device-info: %s' % e.message, file=sys.stderr)
        sys.exit(1)
