# What Python sees when the driver cannot be used. meson runs this file once
# per situation, each in its own process (the driver is loaded once):
#   GCUDA_TEST_DRIVER=missing  GCUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1
#   GCUDA_TEST_DRIVER=stub     GCUDA_DRIVER_LIBRARY=<the toolkit's stubs/libcuda.so>
#   GCUDA_TEST_DRIVER=no-device  GCUDA_DRIVER_LIBRARY=<tests/mock>, GCUDA_MOCK_DEVICES=0
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402

import pytest  # noqa: E402

from gcudatest import raises_gerror  # noqa: E402

SITUATION = os.environ.get('GCUDA_TEST_DRIVER')
LIBRARY = os.environ.get('GCUDA_DRIVER_LIBRARY', '')

pytestmark = pytest.mark.skipif(SITUATION not in ('missing', 'stub', 'no-device'),
                                reason='GCUDA_TEST_DRIVER is not missing, stub or no-device '
                                       '(run through meson test)')

EXPECTED, PREFIX = {
    'missing': (GCuda.Error.DRIVER_NOT_FOUND, None),
    'stub': (GCuda.DriverError.STUB_LIBRARY, 'cuInit failed: CUDA_ERROR_STUB_LIBRARY ('),
    'no-device': (GCuda.DriverError.NO_DEVICE, 'cuInit failed: CUDA_ERROR_NO_DEVICE ('),
}.get(SITUATION, (GCuda.Error.DRIVER_NOT_FOUND, None))


def check_message(e):
    if SITUATION == 'missing':
        assert LIBRARY in e.message, e.message
    else:
        assert e.message.startswith(PREFIX), e.message
    if SITUATION == 'no-device':  # and where to look next
        assert e.message.endswith('; check that nvidia-smi lists a GPU, that CUDA_VISIBLE_DEVICES (if it is set) '
                                  'names one, and in a container that the GPUs are passed in (docker run '
                                  '--gpus all, with the NVIDIA Container Toolkit).'), e.message


def test_init():
    with raises_gerror(EXPECTED, GCuda.RuntimeError) as info:
        GCuda.init()
    check_message(info.value)
    assert GCuda.error_category(info.value) == GCuda.ErrorCategory.RUNTIME
    # also catchable the generic ways
    with pytest.raises(GLib.Error):
        GCuda.init()
    with pytest.raises(GCuda.CudaError):
        GCuda.init()


@pytest.mark.parametrize('call', [
    'Device.get_count', 'Device.count', 'Device.get(0)', 'Device(0)', 'Device.list',
    'Device.get_by_pci_bus_id', 'Context.get_default', 'Context.get_current',
    'Context.pop', 'get_driver_version', 'mem_get_info',
])
def test_entry_point(call):
    calls = {
        'Device.get_count': GCuda.Device.get_count,
        'Device.count': GCuda.Device.count,
        'Device.get(0)': lambda: GCuda.Device.get(0),
        'Device(0)': lambda: GCuda.Device(0),
        'Device.list': GCuda.Device.list,
        'Device.get_by_pci_bus_id': lambda: GCuda.Device.get_by_pci_bus_id('0000:41:00.0'),
        'Context.get_default': GCuda.Context.get_default,
        'Context.get_current': GCuda.Context.get_current,
        'Context.pop': GCuda.Context.pop,
        'get_driver_version': GCuda.get_driver_version,
        'mem_get_info': GCuda.mem_get_info,
    }
    with raises_gerror(EXPECTED, GCuda.RuntimeError) as info:
        calls[call]()
    check_message(info.value)


def test_malformed_pci_bus_id_needs_no_driver():
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Device.get_by_pci_bus_id('zz')


def test_versions_still_work():
    assert GCuda.get_major_version() == GCuda.MAJOR_VERSION
    assert GCuda.get_version()[0] >= 13
    assert GCuda.DriverError.get_name(GCuda.DriverError.STUB_LIBRARY) == 'CUDA_ERROR_STUB_LIBRARY'


def test_str_is_the_message_and_traceback_is_the_caller_s():
    import traceback
    try:
        GCuda.Device.get_count()
    except GCuda.RuntimeError as caught:
        e = caught
    assert e.matches(GCuda.error_quark() if SITUATION == 'missing' else GCuda.driver_error_quark(), int(EXPECTED))
    # Python's way, not GLib's "gcuda-...-error-quark: ... (100)"
    assert str(e) == e.message and 'quark' not in str(e)
    if SITUATION != 'missing':  # a driver error names its call and CUresult
        assert str(e).startswith(PREFIX), str(e)
    # one frame of GCuda's (the raise), not the wrapper's call of the C function again
    frames = traceback.extract_tb(e.__traceback__)
    internal = [f for f in frames if os.sep + '_override' + os.sep in f.filename]
    assert len(internal) <= 1 and all('return fn(' not in (f.line or '') for f in internal), frames
    assert frames[0].name == 'test_str_is_the_message_and_traceback_is_the_caller_s'
    assert 'Traceback' in ''.join(traceback.format_exception(e)) and str(e) in traceback.format_exception(e)[-1]


def test_str_of_a_driver_error_made_in_python_names_the_code():
    e = GCuda.LaunchError('the kernel faulted', GLib.quark_to_string(GCuda.driver_error_quark()),
                          int(GCuda.DriverError.ILLEGAL_ADDRESS))
    assert str(e) == 'CUDA_ERROR_ILLEGAL_ADDRESS: the kernel faulted'
    e = GCuda.LogicError('no such thing', GLib.quark_to_string(GCuda.error_quark()),
                         int(GCuda.Error.INVALID_ARGUMENT))
    assert str(e) == 'no such thing'
