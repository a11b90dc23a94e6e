# An entry point the installed driver lacks (an older driver than the CUDA
# version its ABI needs): the error names the call and the driver version
# it needs, as GCuda.Error.NOT_SUPPORTED (a RuntimeError: the environment
# is at fault), not the driver's bare CUDA_ERROR_NOT_FOUND. On the mock
# driver, which leaves out what GCUDA_MOCK_OMIT names and reports
# GCUDA_MOCK_DRIVER_VERSION; each case in a child process (the driver is
# loaded once per process).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import subprocess
import sys

import pytest

CHILD = '''
import gi
gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib
dev = GCuda.Device(0)
try:
    dev.create_context(GCuda.ContextFlags.SCHED_AUTO).destroy()
except GCuda.RuntimeError as e:
    assert e.matches(GCuda.error_quark(), GCuda.Error.NOT_SUPPORTED), (e.domain, e.code)
    print(e.message)
else:
    print('created')
print(dev.name())  # what the driver has still works
'''

pytestmark = pytest.mark.skipif('libgcuda-mock-cuda' not in os.environ.get('GCUDA_DRIVER_LIBRARY', ''),
                                reason='needs the mock driver (run through meson test, suite mock)')


def run(**env):
    done = subprocess.run([sys.executable, '-c', CHILD], env=dict(os.environ, **env), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done
    return done.stdout.splitlines()


def test_older_driver_names_the_call_and_the_version_it_needs():
    # cuCtxCreate's ABI (CUDA 12.5) on a driver for CUDA 12.2
    lines = run(GCUDA_MOCK_OMIT='cuCtxCreate', GCUDA_MOCK_DRIVER_VERSION='12020')
    assert lines[0] == ('cuCtxCreate needs an NVIDIA driver for CUDA 12.5 or newer; the installed driver is '
                        'for CUDA 12.2: update the NVIDIA driver'), lines
    assert len(lines) == 2 and lines[1]


def test_newer_driver_without_the_call_says_so():
    lines = run(GCUDA_MOCK_OMIT='cuCtxCreate')
    assert lines[0] == ('The installed NVIDIA driver (for CUDA 13.0) does not provide cuCtxCreate, which drivers '
                        'for CUDA 12.5 and newer have'), lines


def test_a_driver_with_the_call_is_unaffected():
    assert run(GCUDA_MOCK_OMIT='cuNoSuchCall', GCUDA_MOCK_DRIVER_VERSION='12020')[0] == 'created'
