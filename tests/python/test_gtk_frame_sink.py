# GCudaGtk.FrameSink (libgcuda-gtk) from Python, on the mock driver under a
# headless display (examples/gtk/test-app with-display): the shapes PyGObject
# gives (constructors that raise, the path enum, the async pair returning a
# bool, the texture property), and the pixels of both paths: with
# GCUDA_MOCK_GL_REAL=1 and GCUDA_MOCK_GL_DEVICE=0 the mock registers GDK's
# real (software) GL textures, so zero-copy runs too.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

import gi

gi.require_version('GCuda', '1.0')
gi.require_version('Gdk', '4.0')
gi.require_version('Gtk', '4.0')
gi.require_version('GCudaGtk', '1.0')
from gi.repository import GCuda, GCudaGtk, Gdk, GLib, Gtk  # noqa: E402

import pytest  # noqa: E402

from gcudatest import gpu  # noqa: E402

np = pytest.importorskip('numpy')

pytestmark = gpu


@pytest.fixture(scope='module')
def display():
    if 'mock' not in os.environ.get('GCUDA_DRIVER_LIBRARY', ''):
        pytest.skip('needs the mock driver (GCUDA_DRIVER_LIBRARY=the mock)')
    if not Gtk.init_check():
        pytest.skip('no display (run through examples/gtk/test-app with-display)')
    return Gdk.Display.get_default()


def end_frame(sink, stream):
    """end_frame_async() and the main loop until it is done."""
    loop = GLib.MainLoop()
    out = {}

    def done(s, result):
        try:
            out['ok'] = s.end_frame_finish(result)
        except GLib.Error as e:
            out['error'] = e
        loop.quit()
    sink.end_frame_async(stream, None, done)
    loop.run()
    if 'error' in out:
        raise out['error']
    return out['ok']


def check_frame(sink, width, height, kind):
    """Fresh random opaque pixels through the sink: the texture shows them."""
    rng = np.random.default_rng()
    pixels = rng.integers(0, 256, (height, width, 4), dtype=np.uint8)
    pixels[..., 3] = 255
    buffer = sink.begin_frame(width, height)
    assert buffer.get_size() == width * height * 4
    buffer.upload(0, pixels.tobytes())
    stream = GCuda.Stream.new(sink.props.context, GCuda.StreamFlags.NON_BLOCKING, 0)
    assert end_frame(sink, stream) is True
    texture = sink.props.texture
    assert isinstance(texture, kind)
    assert (texture.get_width(), texture.get_height()) == (width, height)
    # Gdk.pixbuf_get_from_texture: RGBA, not premultiplied (exact when opaque)
    pixbuf = Gdk.pixbuf_get_from_texture(texture)
    stride = pixbuf.get_rowstride()
    raw = np.frombuffer(pixbuf.get_pixels(), dtype=np.uint8)
    shown = np.stack([raw[y * stride:y * stride + width * 4] for y in range(height)]).reshape(height, width, 4)
    np.testing.assert_array_equal(shown, pixels)


def test_copy_path(display):
    sink = GCudaGtk.FrameSink.new(None, None)
    assert sink.props.path == GCudaGtk.FramePath.COPY
    assert sink.props.path.value_nick == 'copy'
    assert 'No OpenGL context' in sink.props.reason
    assert sink.props.texture is None
    check_frame(sink, 19, 7, Gdk.MemoryTexture)
    check_frame(sink, 64, 32, Gdk.MemoryTexture)


def test_zero_copy_path(display):
    if os.environ.get('GCUDA_MOCK_GL_REAL') != '1':
        pytest.skip('needs the mock to register real GL textures (GCUDA_MOCK_GL_REAL=1)')
    try:
        gl = display.create_gl_context()
        gl.realize()
    except GLib.Error as e:
        pytest.skip(f'GDK has no OpenGL here: {e.message}')
    sink = GCudaGtk.FrameSink.new(None, gl)
    assert sink.props.path == GCudaGtk.FramePath.ZERO_COPY, sink.props.reason
    assert sink.props.gl_context == gl
    check_frame(sink, 19, 7, Gdk.GLTexture)
    check_frame(sink, 64, 32, Gdk.GLTexture)
    assert sink.props.path == GCudaGtk.FramePath.ZERO_COPY


def expect_invalid_argument(call, part=''):
    """GCuda's INVALID_ARGUMENT, as PyGObject raises it from GCudaGtk (a
    plain GLib.Error: GCuda's override maps only GCuda's own calls to the
    GCuda.CudaError classes)."""
    with pytest.raises(GLib.Error) as info:
        call()
    e = info.value
    assert (e.domain, e.code) == ('gcuda-error-quark', int(GCuda.Error.INVALID_ARGUMENT)), e
    assert part in e.message


def test_errors(display):
    sink = GCudaGtk.FrameSink.new(None, None)
    expect_invalid_argument(lambda: sink.begin_frame(0, 4), '0×4')
    expect_invalid_argument(lambda: end_frame(sink, None), 'begin_frame()')
    expect_invalid_argument(lambda: GCudaGtk.FrameSink.new_for_widget(None, Gtk.Picture()), 'not realized')
