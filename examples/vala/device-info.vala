/* device-info.vala: list the CUDA devices with GCuda
 *
 * Build it against an installed GCuda with
 *
 *   valac --pkg gcuda-1 device-info.vala
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

const double GIB = 1024.0 * 1024.0 * 1024.0;

void print_device_info () throws GLib.Error {
    uint major, minor, revision;
    GCuda.get_cuda_version (out major, out minor, out revision);
    int driver = GCuda.get_driver_version ();

    print ("GCuda %u.%u.%u\n", GCuda.get_major_version (),
           GCuda.get_minor_version (), GCuda.get_micro_version ());
    print ("CUDA version (headers): %u.%u.%u\n", major, minor, revision);
    print ("Driver version: %d.%d (%d)\n", driver / 1000, (driver % 1000) / 10, driver);

    foreach (var device in GCuda.Device.list ()) {
        int cc_major, cc_minor;
        device.get_compute_capability (out cc_major, out cc_minor);
        print ("\nDevice %d: %s\n", device.ordinal, device.name);
        print ("  Compute capability: %d.%d\n", cc_major, cc_minor);
        print ("  Total memory:       %.2f GiB\n", device.total_memory / GIB);
        print ("  Multiprocessors:    %d\n", device.multiprocessor_count);
        print ("  PCI bus id:         %s\n", device.pci_bus_id);
        print ("  UUID:               %s\n", device.uuid);
    }

    /* The primary context of the device chosen by CUDA_DEVICE,
     * ~/.cuda_device or the first device that works. */
    var context = GCuda.Context.get_default ();
    uint64 free, total;
    context.get_memory_info (out free, out total);
    print ("\nDefault context: device %d, %.2f GiB free of %.2f GiB\n",
           context.device.ordinal, free / GIB, total / GIB);
}

int main (string[] args) {
    try {
        print_device_info ();
    } catch (GLib.Error e) {
        printerr ("device-info: %s\n", e.message);
        return 1;
    }
    return 0;
}
