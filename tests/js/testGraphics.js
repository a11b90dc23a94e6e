// OpenGL interop from GJS: the shapes GJS sees (the devices of the current
// GL context as an array of GCuda.Device, several resources as a JS array,
// flags and enums) and the errors of bad input. meson runs it on the mock
// driver with GCUDA_MOCK_GL_DEVICE=0 (every thread has a fake GL context
// on device 0; tests/mock/mock-libcuda.c, "OpenGL interop"), where no GL
// object exists; the state machine with GL objects is tested in C and
// Python on the mock, and with real OpenGL in C on the GPU.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const GObject = imports.gi.GObject;
const Tap = imports.tap;

const GL_TEXTURE_2D = 0x0DE1;

Tap.test('the devices of the current GL context', () => {
    Tap.requireGpu();
    const devices = GCuda.graphics_get_gl_devices(GCuda.GLDeviceList.ALL);
    Tap.assertEqual(devices.length, 1, 'one device');
    Tap.assert(devices[0] instanceof GCuda.Device, 'a GCuda.Device');
    Tap.assertEqual(devices[0].get_ordinal(), 0, 'device 0');
});

Tap.test('bad registrations', () => {
    Tap.requireGpu();
    Tap.assertThrowsGError(() => GCuda.GraphicsResource.new_for_gl_buffer(null, 0, GCuda.GraphicsRegisterFlags.NONE),
        GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT, 'name 0');
    Tap.assertThrowsGError(() => GCuda.GraphicsResource.new_for_gl_image(null, 5, 0x1234,
        GCuda.GraphicsRegisterFlags.NONE), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT, 'not a target');
    Tap.assertThrowsGError(() => GCuda.GraphicsResource.new_for_gl_buffer(null, 5,
        GCuda.GraphicsRegisterFlags.READ_ONLY | GCuda.GraphicsRegisterFlags.WRITE_DISCARD),
    GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT, 'read-only and write-discard');
    // no GL object has that name
    const e = Tap.assertThrowsGError(() => GCuda.GraphicsResource.new_for_gl_image(null, 4000, GL_TEXTURE_2D,
        GCuda.GraphicsRegisterFlags.SURFACE_LOAD_STORE), GCuda.driver_error_quark(),
    GCuda.DriverError.INVALID_VALUE, 'no such texture');
    Tap.assert(e.message.includes('not a texture or renderbuffer'), `the message says what to check: ${e.message}`);
});

Tap.test('a resource made by hand', () => {
    const res = new GCuda.GraphicsResource();
    Tap.assert(!res.is_registered(), 'not registered');
    Tap.assert(!res.mapped, 'not mapped');
    Tap.assertEqual(res.gl_name, 0, 'no GL name');
    Tap.assertThrowsGError(() => res.map(null), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT, 'map');
    Tap.assertThrowsGError(() => GCuda.GraphicsResource.map_all([res], null), GCuda.error_quark(),
        GCuda.Error.INVALID_ARGUMENT, 'map_all');
    Tap.assertThrowsGError(() => GCuda.GraphicsResource.unmap_all([], null), GCuda.error_quark(),
        GCuda.Error.INVALID_ARGUMENT, 'nothing to unmap');
    Tap.assert(GObject.type_is_a(GCuda.GraphicsResource.$gtype, GObject.Object.$gtype), 'a GObject');
});

Tap.run();
