# PyCUDA's make_default_context() rules for GCuda.Context.get_default():
# CUDA_DEVICE, else ~/.cuda_device or ~/.cuda-device, else the first device
# that works. The default is chosen once per process, so each case runs in a
# new Python.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gpu

PROBE = r'''
import json
import gi
gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib
try:
    ctx = GCuda.Context.get_default()
    out = {'ordinal': ctx.get_device().get_ordinal(), 'primary': ctx.is_primary()}
    ctx.synchronize()
except GLib.Error as e:
    out = {'domain': e.domain, 'code': e.code, 'class': type(e).__name__, 'message': e.message}
print(json.dumps(out))
'''


def probe(tmp_path, cuda_device=None, files=None):
    env = dict(os.environ)
    env.pop('CUDA_DEVICE', None)
    env['HOME'] = str(tmp_path)
    if cuda_device is not None:
        env['CUDA_DEVICE'] = cuda_device
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(text)
    proc = subprocess.run([sys.executable, '-c', PROBE], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_first_device_by_default(tmp_path):
    assert probe(tmp_path) == {'ordinal': 0, 'primary': True}


def test_cuda_device_0(tmp_path):
    assert probe(tmp_path, '0') == {'ordinal': 0, 'primary': True}


@pytest.mark.parametrize('value', ['abc', '-1', '', '1.5'])
def test_cuda_device_not_a_number(tmp_path, value):
    out = probe(tmp_path, value)
    assert (out.get('domain'), out.get('code'), out.get('class')) == ('gcuda-error-quark', 4, 'LogicError'), out
    assert 'CUDA_DEVICE' in out['message']


def test_cuda_device_out_of_range(tmp_path):
    out = probe(tmp_path, '99')
    assert (out.get('domain'), out.get('code'), out.get('class')) == \
        ('gcuda-driver-error-quark', 101, 'LogicError'), out


def test_home_file(tmp_path):
    out = probe(tmp_path, files={'.cuda_device': '0\n'})
    assert out == {'ordinal': 0, 'primary': True}


def test_home_file_dash(tmp_path):
    out = probe(tmp_path, files={'.cuda-device': ' 0 \n'})
    assert out == {'ordinal': 0, 'primary': True}


def test_home_file_bad(tmp_path):
    out = probe(tmp_path, files={'.cuda_device': 'abc\n'})
    assert (out.get('domain'), out.get('code')) == ('gcuda-error-quark', 4), out
    assert '.cuda_device' in out['message']


def test_home_file_out_of_range(tmp_path):
    out = probe(tmp_path, files={'.cuda_device': '99\n'})
    assert (out.get('domain'), out.get('code')) == ('gcuda-driver-error-quark', 101), out


def test_cuda_device_wins_over_home_file(tmp_path):
    out = probe(tmp_path, '0', files={'.cuda_device': 'abc\n'})
    assert out == {'ordinal': 0, 'primary': True}


# ~/.cuda_device is read by whichever thread first asks for the default
# context: it must never block or grow without bound.
def test_home_file_fifo_does_not_block(tmp_path):
    os.mkfifo(tmp_path / '.cuda_device')  # nobody writes: a blocking open would hang
    out = probe(tmp_path)
    assert (out.get('domain'), out.get('code')) == ('gcuda-error-quark', 4), out
    assert 'not a regular file' in out['message'] and '.cuda_device' in out['message']


def test_home_file_dev_zero(tmp_path):
    (tmp_path / '.cuda_device').symlink_to('/dev/zero')  # endless: read whole, it grows until abort
    out = probe(tmp_path)
    assert (out.get('domain'), out.get('code')) == ('gcuda-error-quark', 4), out
    assert 'not a regular file' in out['message']


def test_home_file_directory(tmp_path):
    (tmp_path / '.cuda-device').mkdir()
    out = probe(tmp_path)
    assert (out.get('domain'), out.get('code')) == ('gcuda-error-quark', 4), out
    assert '.cuda-device' in out['message']


def test_home_file_too_long(tmp_path):
    out = probe(tmp_path, files={'.cuda_device': '0' + ' ' * 200 + '\n'})
    assert (out.get('domain'), out.get('code')) == ('gcuda-error-quark', 4), out
    assert 'too long' in out['message']


def test_home_file_symlink_to_regular_file(tmp_path):
    (tmp_path / 'device-number').write_text('0\n')
    (tmp_path / '.cuda_device').symlink_to(tmp_path / 'device-number')
    assert probe(tmp_path) == {'ordinal': 0, 'primary': True}
