# Import, enums, versions, exception classes and the cuda.h tables: none of
# this may need the driver (meson runs this file with an unloadable one).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import builtins
import os

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib, GObject  # noqa: E402

import pytest  # noqa: E402

from gcudatest import (DRIVER_DOMAIN, LIBRARY_DOMAIN, cuda_h_enum, cuda_version,  # noqa: E402
                       raises_gerror, toolkit)


def test_override_loaded():
    # the override module, not the bare introspected classes
    assert GCuda.Device.__module__ == 'gi.overrides.GCuda'
    assert GCuda.Context.__module__ == 'gi.overrides.GCuda'
    assert issubclass(GCuda.Device, GObject.Object)
    assert GCuda.Device.__gtype__.name == 'GCudaDevice'
    assert GCuda.Context.__gtype__.name == 'GCudaContext'


def test_versions():
    assert GCuda.get_major_version() == GCuda.MAJOR_VERSION >= 1
    assert GCuda.get_minor_version() == GCuda.MINOR_VERSION
    assert GCuda.get_micro_version() == GCuda.MICRO_VERSION
    assert GCuda.VERSION_S == '%d.%d.%d' % (GCuda.MAJOR_VERSION, GCuda.MINOR_VERSION, GCuda.MICRO_VERSION)
    assert GCuda.check_version(1, 0, 0)
    assert GCuda.check_version(GCuda.MAJOR_VERSION, GCuda.MINOR_VERSION, GCuda.MICRO_VERSION)
    assert not GCuda.check_version(GCuda.MAJOR_VERSION + 1, 0, 0)
    assert not GCuda.check_version(GCuda.MAJOR_VERSION, GCuda.MINOR_VERSION, GCuda.MICRO_VERSION + 1)


@toolkit
def test_cuda_version():
    cv = cuda_version()
    expected = (cv // 1000, cv % 1000 // 10, 0)
    assert tuple(GCuda.get_cuda_version()) == expected
    assert GCuda.get_version() == expected  # PyCUDA's driver.get_version()
    assert expected[0] >= 13
    if cv == 13000:
        assert expected == (13, 0, 0)


def test_enums():
    assert int(GCuda.ContextFlags.SCHED_AUTO) == 0
    assert int(GCuda.ContextFlags.SCHED_SPIN) == 1
    assert int(GCuda.ContextFlags.SCHED_YIELD) == 2
    assert int(GCuda.ContextFlags.SCHED_BLOCKING_SYNC) == 4
    assert int(GCuda.ContextFlags.MAP_HOST) == 8
    assert int(GCuda.ContextFlags.LMEM_RESIZE_TO_MAX) == 16
    assert issubclass(GCuda.ContextFlags, GObject.GFlags)
    assert int(GCuda.Limit.STACK_SIZE) == 0
    assert int(GCuda.Limit.PRINTF_FIFO_SIZE) == 1
    assert int(GCuda.Limit.MALLOC_HEAP_SIZE) == 2
    assert int(GCuda.CacheConfig.NONE) == 0
    assert int(GCuda.CacheConfig.L1) == 2
    assert int(GCuda.ComputeMode.DEFAULT) == 0
    assert int(GCuda.ComputeMode.PROHIBITED) == 2
    assert int(GCuda.ComputeMode.EXCLUSIVE_PROCESS) == 3
    assert int(GCuda.ErrorCategory.LOGIC) == 1
    assert int(GCuda.DeviceAttribute.MAX_THREADS_PER_BLOCK) == 1
    assert int(GCuda.DriverError.STUB_LIBRARY) == 34
    assert int(GCuda.DriverError.INVALID_DEVICE) == 101


@toolkit
def test_limit_enum_matches_cuda_h():
    limits = cuda_h_enum('CUlimit')
    expected = {k[len('CU_LIMIT_'):]: v for k, v in limits.items() if k != 'CU_LIMIT_MAX'}
    for name, value in expected.items():
        assert int(getattr(GCuda.Limit, name)) == value, name
    assert len(GCuda.Limit.__enum_values__) == len(expected)


def test_error_enum_is_not_an_exception():
    # GCuda.Error stays the introspected error-code enum
    assert issubclass(GCuda.Error, GObject.GEnum)
    assert not issubclass(GCuda.Error, BaseException)
    assert int(GCuda.Error.DRIVER_NOT_FOUND) == 1
    assert int(GCuda.Error.INVALID_ARGUMENT) == 4
    assert int(GCuda.Error.CONTEXT_DESTROYED) == 7
    assert issubclass(GCuda.DriverError, GObject.GEnum)


def test_exception_classes():
    assert issubclass(GCuda.CudaError, GLib.Error)
    for cls in (GCuda.LogicError, GCuda.LaunchError, GCuda.MemoryError, GCuda.RuntimeError,
                GCuda.CompileError):
        assert issubclass(cls, GCuda.CudaError), cls
        assert issubclass(cls, GLib.Error), cls
    # PyCUDA's names, but GCuda's own classes
    assert GCuda.RuntimeError is not builtins.RuntimeError
    assert GCuda.MemoryError is not builtins.MemoryError
    assert not issubclass(GCuda.LogicError, GCuda.RuntimeError)

    e = GCuda.LogicError('boom', LIBRARY_DOMAIN, int(GCuda.Error.INVALID_ARGUMENT))
    assert e.matches(GCuda.error_quark(), int(GCuda.Error.INVALID_ARGUMENT))
    assert (e.message, e.domain, e.code) == ('boom', LIBRARY_DOMAIN, 4)


def test_error_quarks():
    assert GLib.quark_to_string(GCuda.error_quark()) == LIBRARY_DOMAIN
    assert GLib.quark_to_string(GCuda.driver_error_quark()) == DRIVER_DOMAIN


@toolkit
def test_cuda_result_table():
    """GCuda.DriverError has every CUresult of cuda.h, with the same value."""
    results = cuda_h_enum('CUresult', 'cudaError_enum')
    assert len(results) == 101
    names = {}
    for cname, value in results.items():
        if cname == 'CUDA_SUCCESS':
            name = 'SUCCESS'
        else:
            assert cname.startswith('CUDA_ERROR_'), cname
            name = cname[len('CUDA_ERROR_'):]
        member = getattr(GCuda.DriverError, name, None)
        assert member is not None, 'GCuda.DriverError.%s is missing' % name
        assert int(member) == value, name
        names[value] = cname
    # and nothing else
    assert len(GCuda.DriverError.__enum_values__) == len(results)
    assert sorted(GCuda.DriverError.__enum_values__) == sorted(results.values())
    # names, as the driver spells them, with no driver
    for value, cname in names.items():
        assert GCuda.DriverError.get_name(value) == cname
        assert GCuda.driver_error_get_name(value) == cname


@toolkit
def test_device_attribute_table():
    """GCuda.DeviceAttribute has every CUdevice_attribute of cuda.h (aliases too)."""
    attrs = cuda_h_enum('CUdevice_attribute', 'CUdevice_attribute_enum')
    attrs.pop('CU_DEVICE_ATTRIBUTE_MAX')
    assert len(attrs) == 153
    for cname, value in attrs.items():
        name = cname[len('CU_DEVICE_ATTRIBUTE_'):]
        member = getattr(GCuda.DeviceAttribute, name, None)
        assert member is not None, 'GCuda.DeviceAttribute.%s is missing' % name
        assert int(member) == value, name
    assert sorted(GCuda.DeviceAttribute.__enum_values__) == sorted(set(attrs.values()))


def test_driver_error_names():
    assert GCuda.DriverError.get_name(GCuda.DriverError.INVALID_VALUE) == 'CUDA_ERROR_INVALID_VALUE'
    assert GCuda.DriverError.get_name(GCuda.DriverError.SUCCESS) == 'CUDA_SUCCESS'
    assert GCuda.DriverError.get_name(GCuda.DriverError.STUB_LIBRARY) == 'CUDA_ERROR_STUB_LIBRARY'
    assert GCuda.driver_error_get_name(GCuda.DriverError.UNKNOWN) == 'CUDA_ERROR_UNKNOWN'
    assert GCuda.DriverError.get_name(12345) is None


@pytest.mark.parametrize('code, category', [
    ('LAUNCH_FAILED', 'LAUNCH'),
    ('ILLEGAL_ADDRESS', 'LAUNCH'),
    ('OUT_OF_MEMORY', 'MEMORY'),
    ('NO_DEVICE', 'RUNTIME'),
    ('STUB_LIBRARY', 'RUNTIME'),
    ('UNKNOWN', 'UNKNOWN'),
    ('INVALID_VALUE', 'LOGIC'),
    ('INVALID_DEVICE', 'LOGIC'),
    ('INVALID_CONTEXT', 'LOGIC'),
    ('SUCCESS', 'NONE'),
])
def test_driver_error_category(code, category):
    value = getattr(GCuda.DriverError, code)
    assert GCuda.DriverError.get_category(value) == getattr(GCuda.ErrorCategory, category)
    assert GCuda.driver_error_get_category(value) == getattr(GCuda.ErrorCategory, category)


@pytest.mark.parametrize('domain, code, category', [
    (DRIVER_DOMAIN, 2, 'MEMORY'),
    (DRIVER_DOMAIN, 719, 'LAUNCH'),
    (DRIVER_DOMAIN, 101, 'LOGIC'),
    (DRIVER_DOMAIN, 34, 'RUNTIME'),
    (DRIVER_DOMAIN, 999, 'UNKNOWN'),
    (LIBRARY_DOMAIN, 1, 'RUNTIME'),
    (LIBRARY_DOMAIN, 4, 'LOGIC'),
    (LIBRARY_DOMAIN, 7, 'LOGIC'),
    ('gcuda-compile-error-quark', 6, 'COMPILE'),
    ('g-io-error-quark', 1, 'NONE'),
])
def test_error_category(domain, code, category):
    error = GLib.Error('x', domain, code)
    assert GCuda.error_category(error) == getattr(GCuda.ErrorCategory, category)
    assert GCuda.Error.get_category(error) == getattr(GCuda.ErrorCategory, category)


def test_unbound_device():
    """A GCuda.Device made with GObject.new() has no device behind it: every
    method refuses politely, nothing crashes, no driver is needed."""
    dev = GObject.new(GCuda.Device)
    other = GObject.new(GCuda.Device)
    assert dev.get_ordinal() == -1
    assert dev.props.ordinal == -1
    assert dev.get_name() is None
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.get_attribute(GCuda.DeviceAttribute.MAX_THREADS_PER_BLOCK)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.max_threads_per_block
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.get_attributes()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.get_primary_context()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.retain_primary_context()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.create_context(GCuda.ContextFlags.SCHED_AUTO)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.make_context()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.get_primary_context_state()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.set_primary_context_flags(GCuda.ContextFlags.SCHED_AUTO)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.can_access_peer(dev)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.can_access_peer(other)
    assert dev == dev
    assert dev != other


def test_unbound_device_python_side_checks():
    dev = GObject.new(GCuda.Device)
    # PyGObject itself refuses a plain int, or an int that is no attribute
    with pytest.raises((TypeError, ValueError)):
        dev.get_attribute(9999)
    with pytest.raises((TypeError, ValueError)):
        GCuda.DeviceAttribute(9999)
    with pytest.raises(AttributeError):
        dev.no_such_attribute
    with pytest.raises(AttributeError):
        dev._private_looking


def test_unbound_context():
    ctx = GObject.new(GCuda.Context)
    other = GObject.new(GCuda.Context)
    assert ctx.get_device() is None
    assert ctx.get_handle() == 0
    assert not ctx.is_primary()
    for call in (ctx.synchronize,
                 lambda: ctx.get_limit(GCuda.Limit.STACK_SIZE),
                 lambda: ctx.set_limit(GCuda.Limit.STACK_SIZE, 4096),
                 ctx.get_cache_config,
                 lambda: ctx.set_cache_config(GCuda.CacheConfig.L1),
                 ctx.get_memory_info,
                 ctx.get_stream_priority_range,
                 ctx.get_api_version,
                 lambda: ctx.enable_peer_access(other),
                 lambda: ctx.disable_peer_access(other),
                 ctx.push,
                 ctx.destroy,
                 ctx.detach):
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            call()


def test_driver_really_absent():
    """Runs last: proves this file ran without a driver."""
    if os.environ.get('GCUDA_DRIVER_LIBRARY') != '/nonexistent/libcuda.so.1':
        pytest.skip('run without GCUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1')
    with raises_gerror(GCuda.Error.DRIVER_NOT_FOUND, GCuda.RuntimeError):
        GCuda.init()


def test_pycuda_compatible_driver_module():
    """`import gcuda.driver as cuda` (PyCUDA's pycuda.driver names) needs no driver."""
    import gcuda.driver as cuda
    assert cuda.Device is GCuda.Device
    assert cuda.Context is GCuda.Context
    assert cuda.Error is GCuda.CudaError
    assert cuda.LogicError is GCuda.LogicError
    assert cuda.RuntimeError is GCuda.RuntimeError
    assert cuda.device_attribute.MAX_THREADS_PER_BLOCK == GCuda.DeviceAttribute.MAX_THREADS_PER_BLOCK
    assert cuda.ctx_flags.SCHED_BLOCKING_SYNC == GCuda.ContextFlags.SCHED_BLOCKING_SYNC
    assert cuda.limit.STACK_SIZE == GCuda.Limit.STACK_SIZE
    assert cuda.func_cache.PREFER_L1 == GCuda.CacheConfig.L1
    assert cuda.get_version() == GCuda.get_version()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        cuda.init(1)


# ---------------------------------------------------------------- properties and their C getters (no driver)

def test_property_getters_agree_with_properties():
    """The C getters (and the copies' setters) added so that every readable
    property has one (tools/check-gir-properties.py) read the property."""
    rng = __import__('random').Random(21)
    for cls in (GCuda.Copy2D, GCuda.Copy3D, GCuda.Copy3DPeer):
        copy = cls.new()
        for pspec in copy.list_properties():
            name = pspec.name.replace('-', '_')
            if name == 'aligned':
                assert copy.get_aligned() is copy.props.aligned is True
                continue
            value = rng.randrange(1, 1 << 62)
            copy.set_property(name, value)
            assert getattr(copy, 'get_' + name)() == value, (cls, name)
            getattr(copy, 'set_' + name)(value + 1)
            assert copy.get_property(name) == value + 1, (cls, name)
    names = ['compute_capability_major', 'compute_capability_minor', 'registers_per_block',
             'max_registers_per_thread', 'register_alloc_granularity', 'shared_memory_per_block',
             'shared_memory_per_block_optin', 'reserved_shared_memory_per_block']
    values = {n: rng.randrange(1, 1 << 30) for n in names}
    data = GObject.new(GCuda.DeviceData, **values)
    for n in names:
        assert getattr(data, 'get_' + n)() == data.get_property(n) == values[n], n
    # objects made by hand: the getters give the properties' neutral values
    function = GObject.new(GCuda.Function)
    for n in ('num_regs', 'shared_size_bytes', 'const_size_bytes', 'local_size_bytes', 'ptx_version',
              'binary_version', 'max_dynamic_shared_size_bytes'):
        assert getattr(function, 'get_' + n)() == function.get_property(n) == 0, n
    device = GObject.new(GCuda.Device)
    assert device.get_compute_capability_major() == device.props.compute_capability_major == 0
    assert device.get_compute_capability_minor() == device.props.compute_capability_minor == 0
    assert GCuda.Compiler.new(None).get_context() is None
    stream = GObject.new(GCuda.Stream)
    assert stream.get_handle() == stream.props.handle and stream.is_borrowed() is stream.props.borrowed is False
    event = GObject.new(GCuda.Event)
    assert event.get_handle() == event.props.handle == 0
    array = GObject.new(GCuda.Array)
    assert array.get_size() == array.props.size == 0
