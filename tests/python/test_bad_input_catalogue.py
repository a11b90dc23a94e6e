# The bad-input catalogue (tests/python/bad_input/): every case runs in a
# child process of its own with G_DEBUG=fatal-criticals and must end with
# exactly its expected outcome: a GError of a precise domain and code raised
# as a GCuda.CudaError, a Python exception raised before GCuda is reached,
# or a documented acceptance. A crash (signal), a GLib critical or warning,
# a hang, a wrong exception or code fails the case; each case is one TAP
# line.
#
# meson runs this file once per environment (GCUDA_BAD_INPUT_ENV):
#   nogpu  the driver made unloadable: the cases GCuda must answer before
#          reaching the driver (arguments, compiler, host memory, images)
#   mock   tests/mock/mock-libcuda.c: those again, and devices, contexts,
#          memory
#   gpu    a real device: all of it, and streams, events, modules, launches,
#          arrays, graphs (skipped without a GPU, failed instead with
#          GCUDA_TEST_REQUIRE_GPU=1)
#
# Known library defects are marked in the table: the expectation is the
# correct outcome, the case an xfail(strict=True) that only holds while the
# defect shows exactly as recorded (KnownDefect); fixed, it must be unmarked.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import ast
import builtins
import json
import os
import re
import signal
import subprocess
import sys
import threading

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

import pytest  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_input  # noqa: E402
from bad_input import expectation  # noqa: E402
from gcudatest import no_nvrtc_reason, require_nvrtc  # noqa: E402

try:
    import numpy  # noqa: F401 - the cases need it
except ImportError:  # pragma: no cover - numpy is a test dependency
    if os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1':
        raise
    pytest.skip('numpy is not installed', allow_module_level=True)

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'bad_input', 'runner.py')


def environment():
    env = os.environ.get('GCUDA_BAD_INPUT_ENV')
    if env:
        return env
    library = os.environ.get('GCUDA_DRIVER_LIBRARY', '')
    if 'mock' in os.path.basename(library):
        return 'mock'
    if library.startswith('/nonexistent'):
        return 'nogpu'
    return 'gpu'


ENV = environment()
assert ENV in bad_input.ENVIRONMENTS, ENV
CASES = bad_input.for_env(ENV)


class KnownDefect(AssertionError):
    """The case shows its recorded defect (an expected failure)."""


def _params():
    params = []
    for c in CASES:
        marks = [pytest.mark.gpu] if ENV == 'gpu' else []
        if c.defect is not None and ENV in c.defect_envs:
            marks.append(pytest.mark.xfail(strict=True, raises=KnownDefect, reason=c.defect))
        params.append(pytest.param(c.name, marks=marks, id=c.name))
    return params


# ---------------------------------------------------------------- running

_results = {}
_lock = threading.Lock()


def jobs():
    n = os.environ.get('GCUDA_BAD_INPUT_JOBS')
    if n:
        return max(1, int(n))
    return max(1, min(8, len(os.sched_getaffinity(0))))


def run_all():
    """Runs every case of ENV once (in parallel runners) and keeps the results."""
    with _lock:
        if _results:
            return _results
        env = dict(os.environ)
        flags = [f for f in env.get('G_DEBUG', '').split(',') if f]
        if 'fatal-criticals' not in flags:
            flags.append('fatal-criticals')
        env['G_DEBUG'] = ','.join(flags)
        env.setdefault('OPENBLAS_NUM_THREADS', '1')  # no threads in the process that forks
        env.setdefault('MALLOC_PERTURB_', '165')      # freed memory reads as garbage, not as before
        env.pop('GCUDA_TAP_FD', None)
        names = [c.name for c in CASES]
        n = min(jobs(), max(1, len(names)))
        shares = [names[i::n] for i in range(n)]
        procs = [subprocess.Popen([sys.executable, RUNNER, ENV], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  env=env, text=True) for _ in shares]
        outputs = [None] * n

        def talk(i):
            outputs[i] = procs[i].communicate('\n'.join(shares[i]) + '\n')[0]

        threads = [threading.Thread(target=talk, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for i, p in enumerate(procs):
            for line in outputs[i].splitlines():
                r = json.loads(line)
                _results[r['name']] = r
            if p.returncode != 0:
                _results.setdefault('<runner>', []).append('runner %d exited with %d' % (i, p.returncode))
        return _results


# ---------------------------------------------------------------- checking

# GLib's criticals and warnings: "(process:123): GCuda-CRITICAL **: ...", and
# GLib warnings PyGObject turns into Python warnings of its category
# "Warning" ("<string>:4: Warning: value ... is invalid or out of range ...")
_GLIB_MESSAGE = re.compile(r'^(.*-(CRITICAL|WARNING) \*\*.*|.*:\d+: Warning: .*)$', re.M)


def _code_value(x):
    if x.kind == 'gcuda':
        return int(getattr(GCuda.Error, x.name))
    if x.kind == 'driver':
        return int(getattr(GCuda.DriverError, x.name))
    if x.kind == 'compile':
        return int(getattr(GCuda.CompileError, x.name))
    return x.name


def describe_expect(x):
    if x.kind in ('gcuda', 'driver', 'compile'):
        return '%s %s (%d)' % (x.domain, x.name, _code_value(x))
    if x.kind == 'gerror':
        return '%s %d' % (x.domain, x.name)
    if x.kind == 'python':
        return x.name
    return 'accepted (%s)' % x.reason


# In a sanitizer build a crash is ASan's report and exit, not the signal:
# SEGV reads as the signal would, any other memory error under its own name.
_ASAN_SUMMARY = re.compile(r'SUMMARY: AddressSanitizer: ([\w-]+)')


def describe_outcome(r):
    res = r['result'] or {}
    if r['hang']:
        return 'hang'
    asan = _ASAN_SUMMARY.search(r['stderr'])
    if asan:
        kind = asan.group(1)
        return 'crash (SIG%s)' % kind if kind in ('SEGV', 'BUS', 'FPE') else 'crash (ASan %s)' % kind
    if r['signal'] is not None:
        try:
            name = signal.Signals(r['signal']).name
        except ValueError:
            name = str(r['signal'])
        critical = _GLIB_MESSAGE.search(r['stderr'])
        return 'critical' if critical and 'CRITICAL' in critical.group(0) else 'crash (%s)' % name
    if _GLIB_MESSAGE.search(r['stderr']):
        return 'warning'
    if r['exit'] != 0:
        return 'exit status %s' % r['exit']
    if res.get('outcome') == 'returned':
        return 'accepted'
    if res.get('outcome') == 'raised':
        if 'domain' in res:
            return '%s %d' % (res['domain'], res['code'])
        return res['type']
    return res.get('outcome') or 'no result'


def matches(x, r):
    """Whether run @r ended cleanly with exactly the outcome @x."""
    res = r['result'] or {}
    if r['hang'] or r['signal'] is not None or r['exit'] != 0 or _GLIB_MESSAGE.search(r['stderr']):
        return False
    if x.kind == 'accepted':
        return res.get('outcome') == 'returned'
    if res.get('outcome') != 'raised':
        return False
    if x.kind == 'python':
        return 'domain' not in res and x.name in res['mro']
    if 'domain' not in res:
        return False
    if (res['domain'], res['code']) != (x.domain, _code_value(x)):
        return False
    # GCuda's own domains come with a message, as the CudaError subclass of
    # their category (PyCUDA's classes: LogicError, MemoryError, ...)
    return bool(res['gmessage']) and (x.kind == 'gerror' or (res['cuda_error'] and res['type'] == error_class(x)))


_CATEGORY_CLASSES = {
    GCuda.ErrorCategory.LOGIC: 'LogicError', GCuda.ErrorCategory.LAUNCH: 'LaunchError',
    GCuda.ErrorCategory.MEMORY: 'MemoryError', GCuda.ErrorCategory.RUNTIME: 'RuntimeError',
    GCuda.ErrorCategory.COMPILE: 'CompileError', GCuda.ErrorCategory.UNKNOWN: 'CudaError',
}


def error_class(x):
    """The name of the GCuda.CudaError subclass a GError of @x is raised as."""
    if x.kind == 'compile':
        return 'CompileError'
    if x.kind == 'driver':
        return _CATEGORY_CLASSES[GCuda.driver_error_get_category(_code_value(x))]
    runtime = (GCuda.Error.DRIVER_NOT_FOUND, GCuda.Error.NVRTC_NOT_FOUND, GCuda.Error.NOT_SUPPORTED)
    return 'RuntimeError' if _code_value(x) in runtime else 'LogicError'


def details(r):
    res = r['result'] or {}
    lines = ['outcome: %s, exit %s, signal %s, %.2fs (%s)' % (
        describe_outcome(r), r['exit'], r['signal'], r['seconds'], r['mode'])]
    if res.get('outcome') in ('raised', 'setup-failed'):
        lines.append('%s: %s' % (res['type'], res['message']))
        lines.append(res.get('where', ''))
    if res.get('outcome') == 'raised' and 'domain' in res and not res.get('cuda_error'):
        lines.append('(a GLib.Error, not a GCuda.CudaError)')
    elif res.get('outcome') == 'raised' and 'domain' in res:
        lines.append('(raised as GCuda.%s)' % res['type'])
    if r['stderr'].strip():
        lines.append('stderr:\n' + r['stderr'][-2000:])
    return '\n'.join(lines)


def stopped_for_lack_of_nvrtc(x, r):
    """Whether run @r (its case expecting @x) only got as far as GCuda not
    finding NVRTC, on a machine where NVRTC indeed cannot be loaded: the case
    compiles, so it cannot run here."""
    res = r['result'] or {}
    if res.get('outcome') not in ('raised', 'setup-failed') or r['signal'] is not None:
        return False
    nvrtc_not_found = ('gcuda-error-quark', int(GCuda.Error.NVRTC_NOT_FOUND))
    if (res.get('domain'), res.get('code')) != nvrtc_not_found:
        return False
    if x.kind == 'gcuda' and (x.domain, _code_value(x)) == nvrtc_not_found:
        return False
    return no_nvrtc_reason() is not None


def check(c, r):
    if stopped_for_lack_of_nvrtc(expectation(c, ENV), r):
        require_nvrtc()  # skips, or fails under GCUDA_TEST_REQUIRE_GPU=1
    if r['result'] and r['result'].get('outcome') == 'setup-failed':
        pytest.fail('broken case: its setup failed\n' + details(r), pytrace=False)
    x = expectation(c, ENV)
    if matches(x, r):
        return
    message = 'expected %s, got %s\n%s\ncode: %s' % (describe_expect(x), describe_outcome(r), details(r), c.code)
    if c.defect is not None and ENV in c.defect_envs:
        seen = c.seen.get(ENV, ()) if isinstance(c.seen, dict) else c.seen
        seen = (seen,) if isinstance(seen, str) else tuple(seen)
        if describe_outcome(r) in seen:
            raise KnownDefect(message)
        message = 'known defect, but it no longer shows as recorded (%s): %s' % (' or '.join(seen), message)
    pytest.fail(message, pytrace=False)


@pytest.mark.parametrize('name', _params())
def test_case(name):
    results = run_all()
    c = bad_input.CASES[name]
    r = results.get(name)
    if r is None:
        pytest.fail('no result for %s: %s' % (name, results.get('<runner>')), pytrace=False)
    check(c, r)


def _names(tree):
    """(names read, names bound) in the Python code @tree."""
    read, bound = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split('.')[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
    return read, bound


def test_catalogue_is_well_formed():
    """At least 200 Python cases (the issue); every case, those of the other
    environments too, parses and reads only names its code binds, the
    prelude's and builtins (a typo in a gpu case shows here, without a GPU);
    every expectation names a real code."""
    from bad_input import prelude
    known = set(prelude.namespace()) | set(dir(builtins))
    cases = bad_input.load()
    assert len(cases) >= 200, len(cases)
    for c in cases.values():
        assert c.envs, c.name
        read, bound = set(), set()
        for code in (c.setup, c.code):
            r, b = _names(ast.parse(code, '<%s>' % c.name))
            read |= r
            bound |= b
        unknown = read - bound - known
        assert not unknown, '%s reads unknown names %s' % (c.name, sorted(unknown))
        for env in c.envs:
            x = expectation(c, env)
            if x.kind in ('gcuda', 'driver', 'compile'):
                _code_value(x)  # an AttributeError for a code GCuda does not have
