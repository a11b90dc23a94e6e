# Cancelling a long _async call from Python: the callback comes at once with
# Gio.IOErrorEnum.CANCELLED while NVRTC goes on in the background (needs no
# GPU: the compile targets sm_90). The C test (tests/c/test-cancellation.c)
# also checks what the background work leaves behind.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import itertools
import os
import random
import resource
import subprocess
import sys
import time

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, Gio, GLib  # noqa: E402

from gcudatest import gpu, nvrtc  # noqa: E402

MIN_COMPILE_S = 0.15
_serial = itertools.count()


def big_source(n):
    """@n kernels, unique (no cache hit)."""
    head = '// %d %d\n' % (next(_serial), random.getrandbits(62))
    return head + ''.join(
        '__global__ void k%d(float *p, float a) { int i = blockIdx.x * blockDim.x + threadIdx.x; '
        'p[i] = p[i] * a + %d.0f; }\n' % (i, i) for i in range(n))


def compiler_for(context=None):
    compiler = GCuda.Compiler.new(context)
    if context is None:
        compiler.props.arch = 'sm_90'
    return compiler


def measure(compiler):
    """(kernels, seconds): a compile that takes MIN_COMPILE_S or more."""
    n = 16
    while True:
        start = time.monotonic()
        compiler.compile(big_source(n))
        took = time.monotonic() - start
        if took >= MIN_COMPILE_S or n >= 8192:
            return n, took
        n *= 2


def run_cancelled(start_call, finish, work_s, what):
    """Starts an _async call through start_call(cancellable, callback),
    cancels it 10 ms in, and checks the callback's error and timing."""
    loop = GLib.MainLoop()
    cancellable = Gio.Cancellable()
    seen = {}

    def callback(source, result):
        seen['at'] = time.monotonic()
        seen['calls'] = seen.get('calls', 0) + 1
        try:
            seen['value'] = finish(source, result)
        except GLib.Error as e:
            seen['error'] = e
        loop.quit()

    def cancel():
        seen['cancelled_at'] = time.monotonic()
        cancellable.cancel()
        return GLib.SOURCE_REMOVE

    start = time.monotonic()
    start_call(cancellable, callback)
    GLib.timeout_add(10, cancel)
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()
    assert seen.get('calls') == 1, 'no callback'
    error = seen.get('error')
    assert error is not None, 'not cancelled: %r' % (seen.get('value'),)
    assert error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED), error.message
    latency = seen['at'] - seen['cancelled_at']
    print('%s: callback %.3f ms after the cancel, %.1f ms after the start (the work takes %.1f ms)'
          % (what, latency * 1e3, (seen['at'] - start) * 1e3, work_s * 1e3))
    assert 0 <= latency < work_s / 4
    assert seen['at'] - start < work_s * 3 / 4
    # exactly once
    ctx = GLib.MainContext.default()
    end = time.monotonic() + 0.05
    while time.monotonic() < end:
        ctx.iteration(False)
    assert seen['calls'] == 1


@nvrtc
def test_compile_async_cancelled():
    compiler = compiler_for()
    n, took = measure(compiler)
    source = big_source(n)
    run_cancelled(lambda c, cb: compiler.compile_async(source, c, cb),
                  lambda src, res: src.compile_finish(res), took, 'compile_async')


@nvrtc
def test_compile_async_not_cancelled():
    compiler = compiler_for()
    loop = GLib.MainLoop()
    seen = []
    cancellable = Gio.Cancellable()

    def callback(source, result):
        seen.append(source.compile_finish(result))
        loop.quit()

    compiler.compile_async(big_source(2), cancellable, callback)
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()
    assert len(seen) == 1
    assert seen[0].get_kind() == GCuda.ProgramKind.CUBIN
    assert seen[0].get_image().get_size() > 0
    cancellable.cancel()  # too late: changes nothing


@gpu
@nvrtc
def test_module_new_from_source_async_cancelled():
    context = GCuda.Context.get_default()
    n, took = measure(compiler_for(context))
    source = big_source(n)
    run_cancelled(lambda c, cb: GCuda.Module.new_from_source_async(context, source, None, c, cb),
                  lambda src, res: GCuda.Module.new_from_source_finish(res), took,
                  'module_new_from_source_async')


# A fresh Python that starts a compile (its worker loads NVRTC), cancels it
# once NVRTC is loaded, so the compile is still running, and exits at once:
# what a GNOME app does when the user cancels and quits. NVRTC's static
# destructors must not run under the compile (that crashed every time).
EXIT_CHILD = r'''
import ctypes, os, sys, time
import gi
gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, Gio, GLib


def nvrtc_path():
    """NVRTC's file once it is loaded and its constructors have run (opening
    it again waits for a dlopen() in progress), else None."""
    with open('/proc/self/maps') as maps:
        for line in maps:
            path = line.split(None, 5)[-1].strip()
            base = os.path.basename(path)
            if base.startswith('libnvrtc.') and 'builtins' not in base:
                try:
                    ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
                except OSError:
                    return None
                return path
    return None


assert nvrtc_path() is None, 'NVRTC is loaded before the compile'
source = '// %d %d\n' % (time.time_ns(), os.getpid()) + ''.join(
    '__global__ void k%d(float *p, float a) { int i = blockIdx.x * blockDim.x + threadIdx.x; '
    'p[i] = p[i] * a + %d.0f; }\n' % (i, i) for i in range(32))
compiler = GCuda.Compiler.new(None)
compiler.props.arch = 'sm_90'
compiler.set_cache_dir('')
loop = GLib.MainLoop()
cancellable = Gio.Cancellable()
seen = {}


def callback(source, result):
    try:
        seen['program'] = source.compile_finish(result)
    except GLib.Error as e:
        seen['error'] = e
    loop.quit()


def cancel_when_loaded():
    if 'error' in seen or 'program' in seen or nvrtc_path() is None:
        return GLib.SOURCE_CONTINUE
    seen['cancelled_in_nvrtc'] = True
    cancellable.cancel()
    return GLib.SOURCE_REMOVE


compiler.compile_async(source, cancellable, callback)
GLib.timeout_add(1, cancel_when_loaded)
loop.run()
if not seen.get('cancelled_in_nvrtc') or 'error' not in seen:
    sys.exit('not cancelled while NVRTC was loaded: %r' % (seen,))
assert seen['error'].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED), seen['error'].message
print('cancelled inside NVRTC; exiting', flush=True)
'''


@nvrtc
def test_exit_after_cancelled_compile():
    runs = int(os.environ.get('GCUDA_TEST_EXIT_RUNS', '20'))

    def no_core():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the crash is the result

    for i in range(runs):
        child = subprocess.run([sys.executable, '-c', EXIT_CHILD], capture_output=True, text=True,
                               timeout=120, preexec_fn=no_core)
        assert child.returncode == 0, 'run %d of %d: %s %d; stderr:\n%s' % (
            i + 1, runs, 'signal' if child.returncode < 0 else 'status', abs(child.returncode), child.stderr)
        assert 'cancelled inside NVRTC' in child.stdout
    print('%d of %d runs exited cleanly after cancelling a compile inside NVRTC' % (runs, runs))
