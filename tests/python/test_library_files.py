# The driver and NVRTC libraries GCuda opens by path (GCUDA_DRIVER_LIBRARY,
# GCUDA_NVRTC_LIBRARY, a wheel in a Python environment): something that is
# not a regular file there is refused at once, never handed to dlopen(),
# which blocked for ever on a FIFO. Each case in a fresh process (the
# libraries are loaded once per process), under a timeout.
#
# Environment (tests/python/meson.build): GCUDA_TEST_COMPILE (gcuda-compile).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import subprocess
import sys

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

import pytest  # noqa: E402

COMPILE = os.environ.get('GCUDA_TEST_COMPILE', '')

CHILD = r'''
import sys
import gi
gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib
try:
    if sys.argv[1] == 'driver':
        GCuda.Device.get_count()
    else:
        compiler = GCuda.Compiler.new(None)
        compiler.set_arch('sm_90')
        compiler.set_cache_dir('')
        compiler.compile('__global__ void f() {}\n')
except GLib.Error as e:
    print('%s %d %s' % (e.domain, e.code, e.message))
else:
    print('no error')
'''


def special_files(tmp_path):
    fifo = tmp_path / 'libcuda.so.1'
    os.mkfifo(fifo)
    link = tmp_path / 'link-to-fifo.so'
    link.symlink_to(fifo)
    return [(str(fifo), 'a FIFO'), (str(link), 'a FIFO'), ('/dev/null', 'a character device'),
            (str(tmp_path), 'a directory')]


@pytest.mark.parametrize('which', ['driver', 'nvrtc'])
def test_library_variable_not_a_regular_file(tmp_path, which):
    variable = 'GCUDA_DRIVER_LIBRARY' if which == 'driver' else 'GCUDA_NVRTC_LIBRARY'
    code = GCuda.Error.DRIVER_NOT_FOUND if which == 'driver' else GCuda.Error.NVRTC_NOT_FOUND
    for path, kind in special_files(tmp_path):
        env = dict(os.environ, **{variable: path})
        # old versions blocked in dlopen() for ever
        run = subprocess.run([sys.executable, '-c', CHILD, which], env=env, capture_output=True, text=True,
                             timeout=60)
        assert run.returncode == 0, run.stderr
        domain, number, message = run.stdout.strip().split(' ', 2)
        assert (domain, int(number)) == ('gcuda-error-quark', int(code)), run.stdout
        assert path in message and 'not a regular file' in message and kind in message, message
        print(message)


def test_compile_list_archs_with_a_fifo(tmp_path):
    assert COMPILE, 'GCUDA_TEST_COMPILE is not set'
    fifo = tmp_path / 'libnvrtc.so.13'
    os.mkfifo(fifo)
    env = dict(os.environ, GCUDA_NVRTC_LIBRARY=str(fifo))
    # old versions blocked in dlopen() for ever
    run = subprocess.run([COMPILE, '--list-archs'], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, run.stdout
    assert run.stdout == ''
    assert str(fifo) in run.stderr and 'a FIFO' in run.stderr and 'not a regular file' in run.stderr, run.stderr
    print(run.stderr.strip())
