# The README's first command runs examples/python/device-info.py with the
# python3 first on PATH, which may have no PyGObject: the demo must then run
# itself again with one that has it, or say what to install. Without a GPU it
# says why and what GCuda can still do (compile with NVRTC). Run with the
# driver made unloadable.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import subprocess
import sys

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402

from gcudatest import no_nvrtc_reason  # noqa: E402

DEMO = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'examples', 'python',
                    'device-info.py')


def run_demo(extra_env, python_args=('-S',)):
    # `-S`: this Python without its site-packages, so without PyGObject, as a
    # pyenv build; GCuda's override directory stays on PYTHONPATH (as under
    # `meson devenv`), so `import gi` finds only a bare namespace package.
    env = dict(os.environ, **extra_env)
    if 'GCUDA_EXAMPLE_REEXEC' not in extra_env:
        env.pop('GCUDA_EXAMPLE_REEXEC', None)
    return subprocess.run([sys.executable, *python_args, DEMO], env=env, capture_output=True, text=True,
                          timeout=60)


def test_without_pygobject_runs_again_with_a_python_that_has_it():
    done = run_demo({'GCUDA_PYTHON': sys.executable})
    assert done.returncode == 1, done
    assert 'Traceback' not in done.stderr, done.stderr
    assert done.stderr.startswith('device-info: The CUDA driver library could not be loaded'), done.stderr
    assert done.stdout.startswith('GCuda %d.%d.%d\n' % (GCuda.get_major_version(), GCuda.get_minor_version(),
                                                       GCuda.get_micro_version())), done.stdout
    reason = no_nvrtc_reason()
    if reason is None:
        version = GCuda.get_nvrtc_version()
        archs = GCuda.get_nvrtc_supported_archs()
        assert 'GCuda can still compile kernels' in done.stdout, done.stdout
        assert '  NVRTC %d.%d, cubins for %s, and PTX for compute_%d to compute_%d\n' % (
            version // 1000, version % 1000 // 10, ', '.join('sm_%d' % a for a in archs), archs[0], archs[-1]) \
            in done.stdout, done.stdout
    else:
        assert 'no kernel can be compiled either: ' + reason in done.stdout, done.stdout


def test_no_python_with_pygobject_says_what_to_install():
    # GCUDA_EXAMPLE_REEXEC: as if this were already the second interpreter tried
    done = run_demo({'GCUDA_EXAMPLE_REEXEC': '1'})
    assert done.returncode == 1, done
    assert 'Traceback' not in done.stderr and 'AttributeError' not in done.stderr, done.stderr
    assert done.stderr.startswith('device-info: this Python (%s) has no PyGObject' % sys.executable), done.stderr
    assert 'apt-get install python3-gi' in done.stderr and '/usr/bin/python3' in done.stderr, done.stderr
    assert done.stdout == ''


def test_nvrtc_unreachable_is_said_plainly():
    done = run_demo({'GCUDA_NVRTC_LIBRARY': '/nonexistent/libnvrtc.so.13'}, python_args=())
    assert done.returncode == 1, done
    assert 'No GPU can be used here, and no kernel can be compiled either: The NVRTC library could not be ' \
           'loaded (tried /nonexistent/libnvrtc.so.13' in done.stdout, done.stdout
    assert "pip install 'nvidia-cuda-nvrtc~=13.0'" in done.stdout, done.stdout
