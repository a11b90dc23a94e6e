# GCuda.DeviceModel: the devices as a Gio.ListModel (for Gtk.DropDown).
#
# Run once per driver situation (tests/python/meson.build): with
# GCUDA_TEST_DRIVER=missing|stub|no-device the list must be empty and say
# why; with the mock driver (GCUDA_MOCK_DEVICES=N) it holds N devices; on a
# GPU as many as GCuda.Device.get_count(). Items are the very objects
# GCuda.Device.get() returns. Meson deselects test_devices in the driver
# situations and test_empty_without_driver elsewhere (no skips).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import threading

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, Gio, GLib  # noqa: E402

import pytest  # noqa: E402

from gcudatest import LIBRARY_DOMAIN, DRIVER_DOMAIN, gpu  # noqa: E402

EXPECTED_ERRORS = {
    'missing': (LIBRARY_DOMAIN, GCuda.Error.DRIVER_NOT_FOUND),
    'stub': (DRIVER_DOMAIN, GCuda.DriverError.STUB_LIBRARY),
    'no-device': (DRIVER_DOMAIN, GCuda.DriverError.NO_DEVICE),
}
SITUATION = os.environ.get('GCUDA_TEST_DRIVER')
MOCK_DEVICES = os.environ.get('GCUDA_MOCK_DEVICES')
# a GPU run (neither a driver situation nor the mock) needs a device
needs_devices = gpu if SITUATION is None and MOCK_DEVICES is None else (lambda f: f)


def test_first_use_from_threads():
    # runs first in the file: the first get_default() of the process,
    # from several threads at once, yields one object
    lists = []
    threads = [threading.Thread(target=lambda: lists.append(GCuda.DeviceModel.get_default()))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(lists) == 8
    assert all(lst is lists[0] for lst in lists)
    assert GCuda.DeviceModel.get_default() is lists[0]


def test_model_protocol():
    devices = GCuda.DeviceModel.get_default()
    assert isinstance(devices, Gio.ListModel)
    assert devices.get_item_type() == GCuda.Device.__gtype__
    assert devices.props.item_type == GCuda.Device.__gtype__
    n = devices.get_n_items()
    assert len(devices) == n == devices.props.n_items
    assert devices.get_item(n) is None
    assert list(devices) == [devices.get_item(i) for i in range(n)]


def test_empty_without_driver():
    assert SITUATION in EXPECTED_ERRORS, 'run with GCUDA_TEST_DRIVER (meson deselects this test otherwise)'
    domain, code = EXPECTED_ERRORS[SITUATION]
    devices = GCuda.DeviceModel.get_default()
    assert len(devices) == 0
    assert list(devices) == []
    assert devices.get_item(0) is None
    error = devices.get_error()
    assert isinstance(error, GLib.Error)
    assert (error.domain, error.code) == (domain, int(code)), error.message
    assert error.message
    assert devices.props.error.message == error.message
    assert devices.get_status_message() == error.message
    assert devices.props.status_message == error.message
    # what the list says is what the driver says
    with pytest.raises(GLib.Error) as info:
        GCuda.Device.get_count()
    assert (info.value.domain, info.value.code) == (domain, int(code))


@needs_devices
def test_devices():
    assert SITUATION is None, 'run with a driver (meson deselects this test otherwise)'
    devices = GCuda.DeviceModel.get_default()
    count = GCuda.Device.get_count()
    if MOCK_DEVICES is not None:
        assert count == int(MOCK_DEVICES)
    assert count >= 1
    assert len(devices) == count
    assert devices.get_error() is None
    assert devices.props.error is None
    assert devices.props.status_message is None
    for i, device in enumerate(devices):
        assert device is GCuda.Device.get(i)
        assert device is devices[i]
        assert device.props.ordinal == i
        assert device.props.name
    assert devices[-1] is GCuda.Device.get(count - 1)
    with pytest.raises(IndexError):
        devices[count]


def test_new_is_another_list_with_the_same_devices():
    default = GCuda.DeviceModel.get_default()
    other = GCuda.DeviceModel()
    assert other is not default
    assert list(other) == list(default)
    assert len(other) == len(default)
    assert (other.props.status_message is None) == (default.props.status_message is None)
