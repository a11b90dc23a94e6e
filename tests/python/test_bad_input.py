# Bad input: each a GError with a precise domain and code, none crashes.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GObject  # noqa: E402

import pytest  # noqa: E402

from gcudatest import DRIVER_DOMAIN, raises_gerror  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize('ordinal', [-1, 1000, 2**31 - 1, -2**31, 'count'])
def test_bad_ordinal(ordinal):
    if ordinal == 'count':
        ordinal = GCuda.Device.get_count()
    with raises_gerror(GCuda.DriverError.INVALID_DEVICE, GCuda.LogicError):
        GCuda.Device.get(ordinal)
    with raises_gerror(GCuda.DriverError.INVALID_DEVICE, GCuda.LogicError):
        GCuda.Device(ordinal)


@pytest.mark.parametrize('bus_id', [
    '', 'zz', '0000:41:00', '1:2:3:4.0', '0000:gg:00.0', ':', '0000:41:00.', '0000:41:00.0.1',
])
def test_malformed_pci_bus_id(bus_id):
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Device.get_by_pci_bus_id(bus_id)


def test_absent_pci_bus_id():
    # well-formed, but no GPU there: the driver's error
    with pytest.raises(GCuda.CudaError) as info:
        GCuda.Device.get_by_pci_bus_id('0000:ff:1f.7')
    assert info.value.domain == DRIVER_DOMAIN
    assert info.value.code != 0


def test_bad_attribute(dev):
    # PyGObject refuses ints that are not GCuda.DeviceAttribute values before
    # GCuda sees them (the C tests pass such values through)
    for value in (0, 9999, -1):
        with pytest.raises((TypeError, ValueError)):
            dev.get_attribute(value)
        with pytest.raises((TypeError, ValueError)):
            dev.get_attribute(GCuda.DeviceAttribute(value))


def test_unknown_python_attribute(dev):
    with pytest.raises(AttributeError):
        dev.no_such_attribute


@pytest.mark.parametrize('flags', [
    GCuda.ContextFlags.SCHED_SPIN | GCuda.ContextFlags.SCHED_YIELD,
    GCuda.ContextFlags.SCHED_SPIN | GCuda.ContextFlags.SCHED_BLOCKING_SYNC,
    GCuda.ContextFlags(0x1000),
    GCuda.ContextFlags(0x100),
], ids=['spin+yield', 'spin+blocking', '0x1000', '0x100'])
def test_bad_context_flags(dev, flags):
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.create_context(flags)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.make_context(int(flags))
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.set_primary_context_flags(flags)


def test_peer_access_to_itself(dev, ctx):
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        ctx.enable_peer_access(ctx)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        dev.can_access_peer(dev)


def test_unbound_device_on_gpu_host():
    # also with a driver loaded: no device behind it, no crash
    d = GObject.new(GCuda.Device)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        d.get_attribute(GCuda.DeviceAttribute.WARP_SIZE)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        d.create_context(GCuda.ContextFlags.SCHED_AUTO)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Device.get(0).can_access_peer(d)
    assert d != GCuda.Device.get(0)
    assert GCuda.Device.get(0) != d
