# Helpers shared by GCuda's Python tests.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import contextlib
import ctypes
import os
import re

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402

import pytest  # noqa: E402

LIBRARY_DOMAIN = 'gcuda-error-quark'
DRIVER_DOMAIN = 'gcuda-driver-error-quark'

gpu = pytest.mark.gpu
# compiles with NVRTC: skipped without it (conftest.py), failed instead
# when GCUDA_TEST_REQUIRE_GPU=1
nvrtc = pytest.mark.nvrtc
# compares with the CUDA toolkit's cuda.h (cuda_h()): deselected by meson in
# a build without the toolkit
toolkit = pytest.mark.toolkit


_no_nvrtc_reason = []  # [reason or None], computed once


def no_nvrtc_reason():
    """None when NVRTC can be loaded, else GCuda's message saying why not
    and how to provide it."""
    if not _no_nvrtc_reason:
        # a compile for an explicit architecture, uncached: no driver needed
        compiler = GCuda.Compiler.new(None)
        compiler.set_arch('sm_90')
        compiler.set_target(GCuda.ProgramKind.PTX)
        compiler.set_cache_dir('')
        try:
            compiler.compile('__global__ void probe() {}\n')
        except GLib.Error as e:
            if not e.matches(GCuda.error_quark(), GCuda.Error.NVRTC_NOT_FOUND):
                raise
            reason = e.message
        else:
            reason = None
        _no_nvrtc_reason.append(reason)
    return _no_nvrtc_reason[0]


def require_nvrtc():
    """For a test (or the part of one) that compiles: skips it when NVRTC
    cannot be loaded, or fails it when GCUDA_TEST_REQUIRE_GPU=1 (the
    `nvrtc` marker calls it before the test)."""
    reason = no_nvrtc_reason()
    if reason is None:
        return
    if os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1':
        pytest.fail('GCUDA_TEST_REQUIRE_GPU=1 but NVRTC is missing: ' + reason, pytrace=False)
    pytest.skip('no NVRTC: ' + reason)


def domain_of(code):
    if isinstance(code, GCuda.Error):
        return LIBRARY_DOMAIN
    if isinstance(code, GCuda.DriverError):
        return DRIVER_DOMAIN
    raise TypeError('not a GCuda.Error or GCuda.DriverError: %r' % (code,))


def mock_memory_counts():
    """(allocations live now, allocations leaked so far: still live when
    their context went, as compute-sanitizer --leak-check full reports)
    of the mock driver (tests/mock), or None on another driver."""
    path = os.environ.get('GCUDA_DRIVER_LIBRARY')
    try:
        lib = ctypes.CDLL(path) if path else None  # the library GCuda loaded
        calls = (lib.gcuda_mock_get_allocations, lib.gcuda_mock_get_leaks) if lib else None
    except (OSError, AttributeError):
        calls = None
    if calls is None:
        return None
    counts = []
    for call in calls:
        n = ctypes.c_size_t()
        call(ctypes.byref(n), None)
        counts.append(n.value)
    return tuple(counts)


@contextlib.contextmanager
def raises_gerror(code, cls=None):
    """Expects a GCuda error with exactly @code (a GCuda.Error or
    GCuda.DriverError member), raised as a GCuda.CudaError subclass (@cls when
    given). Yields pytest's ExceptionInfo."""
    with pytest.raises(GLib.Error) as info:
        yield info
    e = info.value
    assert (e.domain, e.code) == (domain_of(code), int(code)), \
        'expected %s %s, got %s %d: %s' % (domain_of(code), code, e.domain, e.code, e.message)
    assert isinstance(e, GCuda.CudaError), 'raised as %r, not a GCuda.CudaError' % type(e)
    if cls is not None:
        assert isinstance(e, cls), 'raised as %r, not %r' % (type(e), cls)
    assert e.message


def cuda_h():
    """Text of the toolkit's cuda.h, for the tests marked `toolkit`.
    GCUDA_TOOLKIT_INCLUDE_DIR is the toolkit the build found: empty when it
    found none, and then meson deselects those tests; a cuda.h missing there
    fails them. Run by hand without it: /usr/local/cuda's, skipped when absent."""
    include = os.environ.get('GCUDA_TOOLKIT_INCLUDE_DIR')
    path = os.path.join(include or '/usr/local/cuda/include', 'cuda.h')
    if include == '':
        pytest.fail('the build found no CUDA toolkit (GCUDA_TOOLKIT_INCLUDE_DIR is empty): '
                    'deselect the tests marked toolkit (-m "not toolkit")', pytrace=False)
    if not os.path.exists(path):
        if include is not None:
            pytest.fail('%s not found (GCUDA_TOOLKIT_INCLUDE_DIR)' % path, pytrace=False)
        pytest.skip('%s not found (GCUDA_TOOLKIT_INCLUDE_DIR)' % path)
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()


def cuda_h_enum(typedef_name, enum_tag=None):
    """{NAME: value} of a `typedef enum TAG { ... } typedef_name;` in cuda.h."""
    text = cuda_h()
    pattern = r'typedef\s+enum\s+%s\s*\{([^{}]*)\}\s*%s\s*;' % (
        re.escape(enum_tag) if enum_tag else r'\w*', re.escape(typedef_name))
    m = re.search(pattern, text, re.S)
    assert m, 'typedef enum ... %s not found in cuda.h' % typedef_name
    body = re.sub(r'/\*.*?\*/', '', m.group(1), flags=re.S)
    body = re.sub(r'//[^\n]*', '', body)
    values = {}
    for item in body.split(','):
        item = item.strip()
        if not item:
            continue
        name, _, value = item.partition('=')
        name, value = name.strip(), value.strip()
        if value:
            values[name] = int(value, 0) if re.fullmatch(r'-?(0x[0-9a-fA-F]+|\d+)', value) else values[value]
        else:
            values[name] = max(values.values()) + 1 if values else 0
    return values


def cuda_version():
    m = re.search(r'#define\s+CUDA_VERSION\s+(\d+)', cuda_h())
    assert m
    return int(m.group(1))


def require_nccl():
    """For a test that needs NCCL: skipped when GCuda cannot load it (its
    message names what was tried), failed instead when
    GCUDA_TEST_REQUIRE_GPU=1. Returns NCCL's version."""
    try:
        return GCuda.Communicator.get_nccl_version()
    except GLib.Error as e:
        if not e.matches(GCuda.error_quark(), GCuda.Error.NCCL_NOT_FOUND):
            raise
        if os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1':
            pytest.fail('GCUDA_TEST_REQUIRE_GPU=1 but NCCL is missing: ' + e.message, pytrace=False)
        pytest.skip('no NCCL: ' + e.message)


def die_with_parent():
    """preexec_fn of a child that must not outlive this process (Linux
    PR_SET_PDEATHSIG): a rank left waiting in NCCL would wait for ever once
    a time limit has killed the test."""
    import signal
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


def wait_for_ranks(processes, timeout):
    """Waits for the processes of one job (subprocess.Popen with text
    stdout and stderr pipes, each in its own session, dying with this
    process: die_with_parent()): [(returncode,
    stdout, stderr)]. One that fails, or the job running past @timeout
    seconds, stops them all (the other ranks would wait in NCCL forever)
    and fails the test with what each printed."""
    import signal
    import subprocess
    import time

    deadline = time.monotonic() + timeout
    results = [None] * len(processes)
    failed = False
    try:
        while None in results:
            for i, p in enumerate(processes):
                if results[i] is None:
                    try:
                        out, err = p.communicate(timeout=0.05)
                    except subprocess.TimeoutExpired:
                        continue
                    results[i] = (p.returncode, out, err)
                    failed = failed or p.returncode != 0
            if None in results and (failed or time.monotonic() > deadline):
                break
    finally:
        for i, p in enumerate(processes):
            if results[i] is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                out, err = p.communicate()
                results[i] = (p.returncode, out, err)
    report = '\n'.join('process %d: exit status %s\n--- stdout\n%s--- stderr\n%s' % (i, rc, out, err)
                       for i, (rc, out, err) in enumerate(results))
    if any(rc != 0 for rc, _, _ in results):
        pytest.fail('a rank failed or the job ran past %d s:\n%s' % (timeout, report), pytrace=False)
    return results
