/* test-gtk-frame-sink.vala: GCudaGtk.FrameSink from Vala, through the
 * generated gcuda-gtk-1.vapi, on the mock driver under a headless display
 * (examples/gtk/test-app with-display). With GCUDA_MOCK_GL_REAL=1 and
 * GCUDA_MOCK_GL_DEVICE=0 the mock registers GDK's real GL textures, so the
 * zero-copy path runs too. Each frame is fresh random pixels, checked as
 * the texture shows them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

static bool have_display = false;

static bool require_mock () {
    var driver = Environment.get_variable ("GCUDA_DRIVER_LIBRARY");
    if (driver == null || !driver.contains ("mock")) {
        Test.skip ("needs the mock driver (GCUDA_DRIVER_LIBRARY=the mock)");
        return false;
    }
    return true;
}

/* Ends the frame on @stream, the main loop running until it is done. */
static bool end_frame (GCudaGtk.FrameSink sink, GCuda.Stream? stream) throws GLib.Error {
    var loop = new MainLoop ();
    bool ok = false;
    GLib.Error? failure = null;
    sink.end_frame_async.begin (stream, null, (obj, res) => {
        try {
            ok = sink.end_frame_async.end (res);
        } catch (GLib.Error e) {
            failure = e;
        }
        loop.quit ();
    });
    loop.run ();
    if (failure != null)
        throw failure;
    return ok;
}

/* Random opaque RGBA pixels through the sink; the texture must show them. */
static Gdk.Texture check_frame (GCudaGtk.FrameSink sink, uint width, uint height) throws GLib.Error {
    var pixels = new uint8[width * height * 4];
    for (int i = 0; i < pixels.length; i++)
        pixels[i] = (i % 4) == 3 ? 255 : (uint8) Test.rand_int_range (0, 256);
    unowned GCuda.Buffer buffer = sink.begin_frame (width, height);
    assert_true (buffer.get_size () == width * height * 4);
    buffer.upload (0, pixels);
    var stream = new GCuda.Stream (sink.context, GCuda.StreamFlags.NON_BLOCKING, 0);
    assert_true (end_frame (sink, stream));

    Gdk.Texture texture = sink.texture;
    assert_true (texture.get_width () == (int) width);
    assert_true (texture.get_height () == (int) height);
    assert_true (sink.get_intrinsic_width () == (int) width);
    /* GDK_MEMORY_DEFAULT: B8G8R8A8 premultiplied, the same for opaque pixels */
    var shown = new uint8[width * height * 4];
    texture.download (shown, width * 4);
    for (int i = 0; i < width * height; i++) {
        if (shown[4 * i] != pixels[4 * i + 2] || shown[4 * i + 1] != pixels[4 * i + 1] ||
            shown[4 * i + 2] != pixels[4 * i] || shown[4 * i + 3] != 255)
            error ("pixel %d: wrote RGBA %u %u %u, shown BGRA %u %u %u %u", i,
                   pixels[4 * i], pixels[4 * i + 1], pixels[4 * i + 2],
                   shown[4 * i], shown[4 * i + 1], shown[4 * i + 2], shown[4 * i + 3]);
    }
    return texture;
}

static void test_copy () {
    if (!require_mock ())
        return;
    try {
        var sink = new GCudaGtk.FrameSink (null, null);
        assert_true (sink.path == GCudaGtk.FramePath.COPY);
        assert_true (sink.reason.contains ("No OpenGL context"));
        assert_true (sink.texture == null);
        assert_true (check_frame (sink, 24, 10) is Gdk.MemoryTexture);
        assert_true (check_frame (sink, 7, 3) is Gdk.MemoryTexture);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_zero_copy () {
    if (!require_mock ())
        return;
    if (Environment.get_variable ("GCUDA_MOCK_GL_REAL") != "1") {
        Test.skip ("needs the mock to register real GL textures (GCUDA_MOCK_GL_REAL=1)");
        return;
    }
    if (!have_display) {
        Test.skip ("no display (run through examples/gtk/test-app with-display)");
        return;
    }
    Gdk.GLContext gl;
    try {
        gl = Gdk.Display.get_default ().create_gl_context ();
        gl.realize ();
    } catch (GLib.Error e) {
        Test.skip_printf ("GDK has no OpenGL here: %s", e.message);
        return;
    }
    try {
        var sink = new GCudaGtk.FrameSink (null, gl);
        assert_true (sink.path == GCudaGtk.FramePath.ZERO_COPY);
        assert_true (sink.reason.contains ("frames stay on the GPU"));
        assert_true (check_frame (sink, 24, 10) is Gdk.GLTexture);
        assert_true (check_frame (sink, 33, 5) is Gdk.GLTexture);
        assert_true (sink.path == GCudaGtk.FramePath.ZERO_COPY);
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

static void test_errors () {
    if (!require_mock ())
        return;
    try {
        var sink = new GCudaGtk.FrameSink (null, null);
        try {
            sink.begin_frame (0, 1);
            assert_not_reached ();
        } catch (GCuda.Error e) {
            assert_true (e is GCuda.Error.INVALID_ARGUMENT);
        }
        try {
            end_frame (sink, null);
            assert_not_reached ();
        } catch (GCuda.Error e) {
            assert_true (e is GCuda.Error.INVALID_ARGUMENT);
            assert_true (e.message.contains ("begin_frame()"));
        }
    } catch (GLib.Error e) {
        error ("%s", e.message);
    }
}

int main (string[] args) {
    Test.init (ref args);
    have_display = Gtk.init_check ();
    Test.add_func ("/vala/gtk-frame-sink/copy", test_copy);
    Test.add_func ("/vala/gtk-frame-sink/zero-copy", test_zero_copy);
    Test.add_func ("/vala/gtk-frame-sink/errors", test_errors);
    return Test.run ();
}
