# GCuda.Device on a real GPU, with PyCUDA's conveniences.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import re

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

import pytest  # noqa: E402

from gcudatest import raises_gerror  # noqa: E402

pytestmark = pytest.mark.gpu

UUID_RE = re.compile(r'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
PCI_RE = re.compile(r'^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]$')


def test_count():
    count = GCuda.Device.get_count()
    assert count >= 1
    assert GCuda.Device.count() == count
    assert GCuda.init() is True
    assert GCuda.get_driver_version() >= 12000


def test_get_same_object():
    a = GCuda.Device.get(0)
    b = GCuda.Device.get(0)
    assert a is b
    assert a.get_ordinal() == 0


def test_constructor_is_get():
    # PyCUDA: cuda.Device(0)
    assert GCuda.Device(0) is GCuda.Device.get(0)
    assert isinstance(GCuda.Device(0), GCuda.Device)


def test_list():
    devices = GCuda.Device.list()
    assert len(devices) == GCuda.Device.get_count()
    for i, dev in enumerate(devices):
        assert dev is GCuda.Device.get(i)
        assert dev.get_ordinal() == i


def test_by_pci_bus_id():
    for dev in GCuda.Device.list():
        assert GCuda.Device.get_by_pci_bus_id(dev.props.pci_bus_id) is dev
        assert GCuda.Device.get_by_pci_bus_id(dev.pci_bus_id()) is dev


def test_properties(dev):
    p = dev.props
    assert p.ordinal == 0
    assert p.name and p.name == dev.get_name() == dev.name()
    assert PCI_RE.match(p.pci_bus_id), p.pci_bus_id
    assert UUID_RE.match(p.uuid), p.uuid
    assert p.uuid != '00000000-0000-0000-0000-000000000000'
    assert p.uuid == dev.get_uuid()
    assert p.total_memory == dev.get_total_memory() == dev.total_memory() > 0
    assert p.multiprocessor_count == dev.get_multiprocessor_count() > 0
    assert p.max_threads_per_block == dev.get_max_threads_per_block() >= 512
    assert p.warp_size == dev.get_warp_size() == 32
    assert isinstance(p.compute_mode, GCuda.ComputeMode)
    assert isinstance(dev.get_compute_mode(), GCuda.ComputeMode)
    assert p.compute_mode == dev.get_compute_mode()


def test_properties_match_attributes(dev):
    A = GCuda.DeviceAttribute
    assert dev.props.compute_capability_major == dev.get_attribute(A.COMPUTE_CAPABILITY_MAJOR)
    assert dev.props.compute_capability_minor == dev.get_attribute(A.COMPUTE_CAPABILITY_MINOR)
    assert dev.props.multiprocessor_count == dev.get_attribute(A.MULTIPROCESSOR_COUNT)
    assert dev.props.max_threads_per_block == dev.get_attribute(A.MAX_THREADS_PER_BLOCK)
    assert dev.props.warp_size == dev.get_attribute(A.WARP_SIZE)
    assert int(dev.props.compute_mode) == dev.get_attribute(A.COMPUTE_MODE)


def test_pycuda_conveniences(dev):
    A = GCuda.DeviceAttribute
    assert dev.max_threads_per_block == dev.get_attribute(A.MAX_THREADS_PER_BLOCK)
    assert dev.warp_size == 32
    assert dev.multiprocessor_count == dev.props.multiprocessor_count
    cc = dev.compute_capability()
    assert isinstance(cc, tuple) and len(cc) == 2
    assert cc == (dev.props.compute_capability_major, dev.props.compute_capability_minor)
    assert cc[0] >= 3
    assert dev.total_memory() == dev.props.total_memory
    assert repr(dev).startswith('<GCuda.Device 0: ')


# (compute capability, at least this many bytes) of the GPUs the suite runs on
KNOWN_GPUS = {'H100': ((9, 0), 70e9), 'H200': ((9, 0), 130e9)}


def test_known_gpu(dev):
    """The figures of a known model; on any other, what every CUDA 13 GPU has."""
    known = [figures for model, figures in KNOWN_GPUS.items() if model in dev.name()]
    if known:
        capability, memory = known[0]
        assert dev.compute_capability() == capability
        assert dev.total_memory() > memory
    else:
        assert dev.compute_capability() >= (7, 5)  # CUDA 13's oldest architecture
        assert dev.total_memory() > 0
    assert dev.max_threads_per_block == 1024


def test_attributes(dev):
    attrs = dev.get_attributes()
    assert isinstance(attrs, dict)
    assert len(attrs) > 100
    assert attrs['max_threads_per_block'] == dev.get_attribute(GCuda.DeviceAttribute.MAX_THREADS_PER_BLOCK)
    assert attrs['warp_size'] == 32
    for key, value in attrs.items():
        name = str(key).lower()  # keys are gcuda.driver.device_attribute members, as in PyCUDA
        attr = getattr(GCuda.DeviceAttribute, name.upper(), None)
        assert isinstance(attr, GCuda.DeviceAttribute), name
        assert dev.get_attribute(attr) == value, name
        if not hasattr(type(dev), name):  # dev.pci_bus_id() is PyCUDA's method
            assert getattr(dev, name) == value, name


def test_attributes_current_names(dev):
    """Each value is listed under its current name, not a deprecated alias."""
    attrs = dev.get_attributes()
    wrong = []
    for current, deprecated in [
            ('max_shared_memory_per_block', 'shared_memory_per_block'),
            ('max_registers_per_block', 'registers_per_block'),
            ('maximum_texture2d_layered_width', 'maximum_texture2d_array_width'),
            ('maximum_texture2d_layered_height', 'maximum_texture2d_array_height'),
            ('maximum_texture2d_layered_layers', 'maximum_texture2d_array_numslices'),
            ('virtual_memory_management_supported', 'virtual_address_management_supported')]:
        if deprecated in attrs or current not in attrs:
            wrong.append('%s (listed as %s)' % (current, deprecated if deprecated in attrs else 'nothing'))
    assert wrong == []


def test_every_attribute_value_accepted(dev):
    supported = 0
    for value in sorted(GCuda.DeviceAttribute.__enum_values__):
        try:
            dev.get_attribute(GCuda.DeviceAttribute(value))
            supported += 1
        except GCuda.CudaError as e:
            # an attribute this driver lacks is the driver's error, never GCuda's
            assert e.domain == 'gcuda-driver-error-quark', e.message
    assert supported > 100


def test_equal_hash(dev):
    assert dev == GCuda.Device.get(0)
    assert hash(dev) == hash(GCuda.Device.get(0))
    assert dev.equal(GCuda.Device.get(0))
    assert {dev: 1}[GCuda.Device(0)] == 1
    if GCuda.Device.get_count() >= 2:
        assert dev != GCuda.Device.get(1)


def test_can_access_peer(dev):
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.can_access_peer(dev)
    if GCuda.Device.get_count() >= 2:
        assert dev.can_access_peer(GCuda.Device.get(1)) in (True, False)


def test_primary_context_state(dev, ctx):
    # the default context holds device 0's primary context while alive
    if ctx.get_device() is not dev:
        pytest.skip('the default context is not on device 0')
    flags, active = dev.get_primary_context_state()
    assert active is True
    assert isinstance(flags, GCuda.ContextFlags)
