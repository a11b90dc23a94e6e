# PyCUDA's `pycuda.gl` names, backed by GCuda.GraphicsResource.
#
# GCuda links no OpenGL: objects are given by their GL names (ints, e.g.
# from PyOpenGL's glGenBuffers), and the GL context that owns them must be
# current on the calling thread when they are registered, mapped, unmapped
# and unregistered.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

__all__ = ['init', 'make_context', 'graphics_map_flags', 'RegisteredObject', 'RegisteredBuffer',
           'RegisteredImage', 'RegisteredMapping', 'get_gl_devices']


class graphics_map_flags:  # noqa: N801 - PyCUDA's name
    """PyCUDA's flags of a registration (GCuda.GraphicsRegisterFlags has
    also SURFACE_LOAD_STORE and TEXTURE_GATHER, for images)."""

    NONE = GCuda.GraphicsRegisterFlags.NONE
    READ_ONLY = GCuda.GraphicsRegisterFlags.READ_ONLY
    WRITE_DISCARD = GCuda.GraphicsRegisterFlags.WRITE_DISCARD


def init():
    """Nothing to do: PyCUDA's gl.init() (cuGLInit) has been a no-op since
    CUDA 3.0, and any context can use OpenGL interop."""


def make_context(dev, flags=0):
    """PyCUDA's gl.make_context(): since CUDA 5, a context for OpenGL
    interop is an ordinary one, made current on this thread."""
    return dev.make_context(flags)


def get_gl_devices(which=GCuda.GLDeviceList.ALL):
    """The CUDA devices the current OpenGL context renders on (a list of
    GCuda.Device; empty on a GPU without CUDA). Zero-copy display is
    possible when the device computing is among them."""
    return list(GCuda.graphics_get_gl_devices(which))


class RegisteredMapping:
    """A mapping of a registered object (PyCUDA's RegisteredMapping): its
    memory is CUDA's until unmap(). Also a context manager that unmaps."""

    def __init__(self, robj, stream=None):
        self._robj = robj
        self._stream = stream

    @property
    def resource(self):
        """The GCuda.GraphicsResource."""
        return self._robj.resource

    def unmap(self, stream=None):
        """Gives the object back to OpenGL; `stream` defaults to the one it
        was mapped on. The buffer and arrays of this mapping are unusable
        afterwards (GCuda.Error.FREED)."""
        self._robj.resource.unmap(stream if stream is not None else self._stream)

    def device_ptr_and_size(self):
        """(device address, size in bytes) of a mapped buffer object."""
        buf = self._robj.resource.get_mapped_buffer()
        return buf.get_address(), buf.get_size()

    def buffer(self):
        """The mapped buffer object as a GCuda.Buffer (kernel argument,
        copies, GPUArray gpudata)."""
        return self._robj.resource.get_mapped_buffer()

    def array(self, index=0, level=0):
        """Layer `index` (a cube map's face) and mip level `level` of a
        mapped texture or renderbuffer, as a GCuda.Array."""
        return self._robj.resource.get_mapped_array(index, level)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._robj.resource.is_mapped():
            self.unmap()
        return False


class RegisteredObject:
    """What RegisteredBuffer and RegisteredImage share (PyCUDA's
    RegisteredObject)."""

    def __init__(self, resource):
        self._resource = resource

    @property
    def resource(self):
        """The GCuda.GraphicsResource."""
        return self._resource

    def gl_handle(self):
        """The OpenGL name that was registered."""
        return self._resource.get_gl_name()

    handle = gl_handle  # PyCUDA's older name

    def unregister(self):
        """Unregisters now (unmapping first when mapped); later use raises."""
        self._resource.unregister()

    def map(self, stream=None):
        """Maps the object for CUDA on `stream` (None: the default stream)."""
        self._resource.map(stream)
        return RegisteredMapping(self, stream)


class RegisteredBuffer(RegisteredObject):
    """An OpenGL buffer object registered with CUDA (PyCUDA's
    RegisteredBuffer(bufobj, flags))."""

    def __init__(self, bufobj, flags=graphics_map_flags.NONE, context=None):
        super().__init__(GCuda.GraphicsResource.new_for_gl_buffer(
            context, int(bufobj), GCuda.GraphicsRegisterFlags(int(flags))))


class RegisteredImage(RegisteredObject):
    """An OpenGL texture or renderbuffer registered with CUDA (PyCUDA's
    RegisteredImage(texture, target, flags))."""

    def __init__(self, texture, target, flags=graphics_map_flags.NONE, context=None):
        super().__init__(GCuda.GraphicsResource.new_for_gl_image(
            context, int(texture), int(target), GCuda.GraphicsRegisterFlags(int(flags))))
