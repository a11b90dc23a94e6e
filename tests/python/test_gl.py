# OpenGL interop from Python: gcuda.gl (PyCUDA's pycuda.gl names) over
# GCuda.GraphicsResource, on the mock driver's fake OpenGL objects (see
# "OpenGL interop" in tests/mock/mock-libcuda.c): what CUDA writes through
# a mapping is what "GL" holds, the state machine and its errors, the
# devices of the current GL context. Real OpenGL is tested in C
# (tests/c/test-gl-interop.c, headless EGL on the GPU).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import ctypes
import os

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

import pytest  # noqa: E402

from gcudatest import gpu, raises_gerror  # noqa: E402

import gcuda.gl  # noqa: E402

np = pytest.importorskip('numpy')

GL_TEXTURE_2D = 0x0DE1

pytestmark = gpu


@pytest.fixture
def gl():
    """The mock driver's fake GL, with a GL context current on device 0."""
    path = os.environ.get('GCUDA_DRIVER_LIBRARY')
    try:
        lib = ctypes.CDLL(path) if path else None
        lib.gcuda_mock_gl_new_buffer  # noqa: B018 - probes the symbol
    except (OSError, AttributeError):
        pytest.skip('needs the mock driver\'s fake OpenGL (GCUDA_DRIVER_LIBRARY=the mock)')
    lib.gcuda_mock_gl_new_buffer.restype = ctypes.c_uint
    lib.gcuda_mock_gl_new_buffer.argtypes = [ctypes.c_size_t]
    lib.gcuda_mock_gl_buffer_data.restype = ctypes.c_void_p
    lib.gcuda_mock_gl_buffer_data.argtypes = [ctypes.c_uint, ctypes.POINTER(ctypes.c_size_t)]
    lib.gcuda_mock_gl_new_texture.restype = ctypes.c_uint
    lib.gcuda_mock_gl_new_texture.argtypes = [ctypes.c_uint, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t,
                                              ctypes.c_int, ctypes.c_uint]
    lib.gcuda_mock_gl_make_current.argtypes = [ctypes.c_int]
    lib.gcuda_mock_gl_make_current(0)
    yield lib
    lib.gcuda_mock_gl_make_current(0)


def gl_buffer_contents(gl, name, dtype):
    size = ctypes.c_size_t()
    address = gl.gcuda_mock_gl_buffer_data(name, ctypes.byref(size))
    return np.frombuffer((ctypes.c_char * size.value).from_address(address), dtype=dtype).copy()


def test_registered_buffer_round_trip(gl):
    data = np.random.default_rng().random(1024, dtype=np.float32)
    name = gl.gcuda_mock_gl_new_buffer(data.nbytes)
    rb = gcuda.gl.RegisteredBuffer(name, gcuda.gl.graphics_map_flags.WRITE_DISCARD)
    assert rb.gl_handle() == name == rb.handle()
    assert rb.resource.get_kind() == GCuda.GraphicsResourceKind.BUFFER
    assert rb.resource.props.flags == GCuda.GraphicsRegisterFlags.WRITE_DISCARD

    mapping = rb.map()
    assert rb.resource.props.mapped
    ptr, size = mapping.device_ptr_and_size()
    assert size == data.nbytes
    buf = mapping.buffer()
    assert buf.get_kind() == GCuda.BufferKind.GRAPHICS and int(buf) == ptr
    GCuda.memcpy_htod(buf, data)
    assert (gl_buffer_contents(gl, name, np.float32) == data).all()
    back = np.empty_like(data)
    GCuda.memcpy_dtoh(back, buf)
    assert (back == data).all()

    mapping.unmap()
    assert not rb.resource.is_mapped()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError) as info:
        GCuda.memcpy_htod(buf, data)
    assert 'unmapped' in info.value.message
    with raises_gerror(GCuda.DriverError.NOT_MAPPED):
        mapping.device_ptr_and_size()

    rb.unregister()
    with raises_gerror(GCuda.Error.FREED):
        rb.map()


def test_mapping_context_manager(gl):
    rb = gcuda.gl.RegisteredBuffer(gl.gcuda_mock_gl_new_buffer(64))
    with rb.map() as mapping:
        buf = mapping.buffer()
        assert not buf.is_freed()
    assert buf.is_freed() and not rb.resource.is_mapped()


def test_registered_image(gl):
    name = gl.gcuda_mock_gl_new_texture(GL_TEXTURE_2D, 40, 24, 0, int(GCuda.ArrayFormat.FLOAT), 1)
    ri = gcuda.gl.RegisteredImage(name, GL_TEXTURE_2D,
                                  GCuda.GraphicsRegisterFlags.SURFACE_LOAD_STORE)
    assert ri.resource.props.gl_target == GL_TEXTURE_2D
    mapping = ri.map()
    array = mapping.array(0, 0)
    d = array.get_descriptor()
    assert (d.width, d.height, d.format, d.num_channels) == (40, 24, GCuda.ArrayFormat.FLOAT, 1)
    assert d.flags & GCuda.ArrayFlags.SURFACE_LDST
    with raises_gerror(GCuda.DriverError.NOT_MAPPED_AS_POINTER):
        mapping.device_ptr_and_size()
    with raises_gerror(GCuda.DriverError.INVALID_VALUE):
        mapping.array(1, 0)
    mapping.unmap()
    with raises_gerror(GCuda.Error.FREED):
        GCuda.Surface.new(array)


def test_errors(gl):
    buffer = gl.gcuda_mock_gl_new_buffer(256)
    texture = gl.gcuda_mock_gl_new_texture(GL_TEXTURE_2D, 8, 8, 0, int(GCuda.ArrayFormat.FLOAT), 1)

    gl.gcuda_mock_gl_make_current(-1)
    with raises_gerror(GCuda.DriverError.INVALID_GRAPHICS_CONTEXT) as info:
        gcuda.gl.RegisteredBuffer(buffer)
    assert 'current' in info.value.message
    gl.gcuda_mock_gl_make_current(0)

    with raises_gerror(GCuda.DriverError.INVALID_VALUE):
        gcuda.gl.RegisteredBuffer(texture)
    with raises_gerror(GCuda.DriverError.INVALID_VALUE):
        gcuda.gl.RegisteredImage(buffer, GL_TEXTURE_2D)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        gcuda.gl.RegisteredImage(texture, 0x1234)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        gcuda.gl.RegisteredBuffer(0)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        gcuda.gl.RegisteredBuffer(buffer, gcuda.gl.graphics_map_flags.READ_ONLY
                                  | gcuda.gl.graphics_map_flags.WRITE_DISCARD)

    rb = gcuda.gl.RegisteredBuffer(buffer)
    with raises_gerror(GCuda.DriverError.NOT_MAPPED):
        rb.resource.unmap(None)
    mapping = rb.map()
    with raises_gerror(GCuda.DriverError.ALREADY_MAPPED):
        rb.map()
    with raises_gerror(GCuda.DriverError.NOT_MAPPED_AS_ARRAY):
        mapping.array(0, 0)
    mapping.unmap()
    with raises_gerror(GCuda.DriverError.NOT_MAPPED):
        mapping.unmap()


def test_map_all(gl):
    resources = [GCuda.GraphicsResource.new_for_gl_buffer(None, gl.gcuda_mock_gl_new_buffer(16 * (i + 1)),
                                                          GCuda.GraphicsRegisterFlags.NONE)
                 for i in range(3)]
    GCuda.GraphicsResource.map_all(resources, None)
    assert all(r.is_mapped() for r in resources)
    assert [r.get_mapped_buffer().get_size() for r in resources] == [16, 32, 48]
    with raises_gerror(GCuda.DriverError.ALREADY_MAPPED):
        GCuda.GraphicsResource.map_all(resources[:1], None)
    GCuda.GraphicsResource.unmap_all(resources, None)
    assert not any(r.is_mapped() for r in resources)


def test_gl_devices(gl):
    devices = gcuda.gl.get_gl_devices()
    assert [d.get_ordinal() for d in devices] == [0]
    gl.gcuda_mock_gl_make_current(-2)  # a GL context on a GPU without CUDA
    assert gcuda.gl.get_gl_devices() == []
    gl.gcuda_mock_gl_make_current(-1)
    with raises_gerror(GCuda.DriverError.INVALID_GRAPHICS_CONTEXT):
        GCuda.graphics_get_gl_devices(GCuda.GLDeviceList.ALL)


def test_init_and_make_context():
    assert gcuda.gl.init() is None
