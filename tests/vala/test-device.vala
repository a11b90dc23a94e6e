/* test-device.vala: GCuda from Vala, through the generated gcuda-1.vapi.
 *
 * meson runs it with GCUDA_TEST_DRIVER=missing (an unloadable driver: the
 * version, enum and no-driver tests) and without (the version tests and the
 * GPU tests: skipped without a GPU, failed when GCUDA_TEST_REQUIRE_GPU=1).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

static string? no_gpu_reason = null;
static bool probed = false;

/* For tests that need a CUDA device: true when one is usable, otherwise the
 * test is skipped (or failed under GCUDA_TEST_REQUIRE_GPU=1) and must return. */
static bool require_gpu () {
    if (!probed) {
        probed = true;
        try {
            if (GCuda.Device.get_count () < 1)
                no_gpu_reason = "the driver reports no CUDA device";
        } catch (GLib.Error e) {
            no_gpu_reason = "%s (%s %d)".printf (e.message, e.domain.to_string (), e.code);
        }
    }
    if (no_gpu_reason == null)
        return true;
    if (Environment.get_variable ("GCUDA_TEST_REQUIRE_GPU") == "1")
        Test.fail_printf ("GCUDA_TEST_REQUIRE_GPU=1 but no GPU is usable: %s", no_gpu_reason);
    else
        Test.skip_printf ("no GPU: %s", no_gpu_reason);
    return false;
}

static void test_version () {
    assert_true (GCuda.get_major_version () == GCuda.MAJOR_VERSION);
    assert_true (GCuda.get_minor_version () == GCuda.MINOR_VERSION);
    assert_true (GCuda.get_micro_version () == GCuda.MICRO_VERSION);
    assert_true (GCuda.check_version (1, 0, 0));
    assert_cmpstr (GCuda.VERSION_S, CompareOperator.EQ,
                   "%d.%d.%d".printf (GCuda.MAJOR_VERSION, GCuda.MINOR_VERSION, GCuda.MICRO_VERSION));
    uint major, minor, revision;
    GCuda.get_cuda_version (out major, out minor, out revision);
    assert_true (major >= 13);
    assert_true (revision == 0);
}

static void test_enums () {
    assert_true ((int) GCuda.DeviceAttribute.MAX_THREADS_PER_BLOCK == 1);
    assert_true ((int) GCuda.Limit.MALLOC_HEAP_SIZE == 2);
    assert_true ((int) GCuda.ContextFlags.SCHED_BLOCKING_SYNC == 4);
    assert_cmpstr (GCuda.DriverError.get_name (1 /* INVALID_VALUE */), CompareOperator.EQ,
                   "CUDA_ERROR_INVALID_VALUE");
    assert_true (GCuda.DriverError.get_category (2 /* OUT_OF_MEMORY */) == GCuda.ErrorCategory.MEMORY);
    assert_cmpstr (GCuda.Error.quark ().to_string (), CompareOperator.EQ, "gcuda-error-quark");
    assert_cmpstr (GCuda.DriverError.quark ().to_string (), CompareOperator.EQ, "gcuda-driver-error-quark");
}

static void test_no_driver () {
    try {
        GCuda.init ();
        assert_not_reached ();
    } catch (GCuda.Error.DRIVER_NOT_FOUND e) {
        assert_true (e.message.contains (Environment.get_variable ("GCUDA_DRIVER_LIBRARY")));
        assert_true (GCuda.Error.get_category (e) == GCuda.ErrorCategory.RUNTIME);
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }

    try {
        GCuda.Context.get_default ();
        assert_not_reached ();
    } catch (GCuda.Error.DRIVER_NOT_FOUND e) {
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

static void test_device () {
    if (!require_gpu ())
        return;
    try {
        assert_true (GCuda.Device.get_count () >= 1);
        var dev = GCuda.Device.get (0);
        assert_true (dev == GCuda.Device.get (0));
        assert_true (dev.ordinal == 0);
        assert_true (dev.name.length > 0);
        int major, minor;
        dev.get_compute_capability (out major, out minor);
        assert_true (major >= 3);
        assert_true (major == dev.get_attribute (GCuda.DeviceAttribute.COMPUTE_CAPABILITY_MAJOR));
        assert_true (minor == dev.compute_capability_minor);
        assert_true (dev.max_threads_per_block == dev.get_attribute (GCuda.DeviceAttribute.MAX_THREADS_PER_BLOCK));
        if ("H100" in dev.name) {
            assert_true (major == 9 && minor == 0);
            assert_true (dev.total_memory > 70000000000);
        }
        var attrs = dev.get_attributes ();
        assert_true (attrs.size () > 100);
        assert_true (attrs.lookup ("max_threads_per_block") == dev.max_threads_per_block);
        assert_true (GCuda.Device.get_by_pci_bus_id (dev.pci_bus_id) == dev);
        assert_true (GCuda.Device.list ().length == GCuda.Device.get_count ());
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_bad_input () {
    if (!require_gpu ())
        return;
    try {
        GCuda.Device.get (-1);
        assert_not_reached ();
    } catch (GCuda.DriverError.INVALID_DEVICE e) {
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
    try {
        GCuda.Device.get_by_pci_bus_id ("zz");
        assert_not_reached ();
    } catch (GCuda.Error.INVALID_ARGUMENT e) {
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
    try {
        var dev = GCuda.Device.get (0);
        dev.get_attribute ((GCuda.DeviceAttribute) 9999);
        assert_not_reached ();
    } catch (GCuda.Error.INVALID_ARGUMENT e) {
    } catch (GLib.Error e) {
        error ("unexpected error: %s", e.message);
    }
}

static void test_default_context () {
    if (!require_gpu ())
        return;
    try {
        var ctx = GCuda.Context.get_default ();
        assert_true (ctx == GCuda.Context.get_default ());
        assert_true (ctx.is_primary ());
        ctx.synchronize ();
        uint64 free, total;
        ctx.get_memory_info (out free, out total);
        assert_true (free > 0 && free <= total);
        var device_total = ctx.device.total_memory;
        assert_true (total <= device_total + device_total / 50 && total >= device_total - device_total / 50);
        assert_true (GCuda.Context.get_current () == null);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_dedicated_context () {
    if (!require_gpu ())
        return;
    try {
        var dev = GCuda.Device.get (0);
        var ctx = dev.create_context (GCuda.ContextFlags.SCHED_AUTO);
        assert_true (!ctx.is_primary ());
        ctx.set_limit (GCuda.Limit.STACK_SIZE, 4096);
        assert_true (ctx.get_limit (GCuda.Limit.STACK_SIZE) >= 4096);
        ctx.destroy ();
        try {
            ctx.synchronize ();
            assert_not_reached ();
        } catch (GCuda.Error.CONTEXT_DESTROYED e) {
        }
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

int main (string[] args) {
    Test.init (ref args);

    Test.add_func ("/vala/version", test_version);
    Test.add_func ("/vala/enums", test_enums);
    if (Environment.get_variable ("GCUDA_TEST_DRIVER") == "missing") {
        Test.add_func ("/vala/no-driver", test_no_driver);
    } else {
        Test.add_func ("/vala/device", test_device);
        Test.add_func ("/vala/bad-input", test_bad_input);
        Test.add_func ("/vala/default-context", test_default_context);
        Test.add_func ("/vala/dedicated-context", test_dedicated_context);
    }
    return Test.run ();
}
