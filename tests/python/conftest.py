# pytest configuration for GCuda's Python tests.
#
# - A TAP reporter: when GCUDA_TAP_FD names a file descriptor (tests/run-pytest
#   opens it), one TAP line per test is written there and the plan at the end,
#   so `meson test` counts individual cases.
# - The `gpu` marker: a test that needs a CUDA device is skipped when
#   GCuda.Device.get_count() fails or finds none, with the driver's message as
#   the reason, or failed instead when GCUDA_TEST_REQUIRE_GPU=1.
# - The `nvrtc` marker: a test that compiles kernels is skipped when no NVRTC
#   library can be loaded, with GCuda's message (which says how to provide
#   it) as the reason, or failed instead when GCUDA_TEST_REQUIRE_GPU=1.
# - After every GPU test, no CUDA context may be left current on the thread.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402

import pytest  # noqa: E402

from gcudatest import require_nvrtc  # noqa: E402


def gpu_required():
    return os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1'


_no_gpu_reason = []  # [reason or None], computed once


def no_gpu_reason():
    """None when a CUDA device is usable, else why not."""
    if not _no_gpu_reason:
        try:
            count = GCuda.Device.get_count()
        except GLib.Error as e:
            reason = '%s (%s %d)' % (e.message, e.domain, e.code)
        else:
            reason = None if count > 0 else 'the driver reports no CUDA device'
        _no_gpu_reason.append(reason)
    return _no_gpu_reason[0]


def pytest_configure(config):
    config.addinivalue_line(
        'markers', 'gpu: needs a CUDA device (skipped without one; failed instead '
                   'when GCUDA_TEST_REQUIRE_GPU=1)')
    config.addinivalue_line(
        'markers', 'gpus(n): needs n CUDA devices (skipped with fewer; failed instead when '
                   'GCUDA_TEST_REQUIRE_GPUS is n or more)')
    config.addinivalue_line(
        'markers', 'nvrtc: compiles kernels with NVRTC (skipped when it cannot be loaded; '
                   'failed instead when GCUDA_TEST_REQUIRE_GPU=1)')
    config.addinivalue_line(
        'markers', 'toolkit: compares with the CUDA toolkit\'s cuda.h (deselected by meson in '
                   'a build without the toolkit: -m "not toolkit")')
    fd = os.environ.get('GCUDA_TAP_FD')
    if fd:
        config.pluginmanager.register(TapReporter(int(fd)), 'gcuda-tap')


def require_gpu():
    """What the gpu marker does, for a fixture or a test part that needs a
    device (the mock driver's count): skipped without one, failed instead
    when GCUDA_TEST_REQUIRE_GPU=1."""
    reason = no_gpu_reason()
    if reason is None:
        return
    if gpu_required():
        pytest.fail('GCUDA_TEST_REQUIRE_GPU=1 but no GPU is usable: ' + reason, pytrace=False)
    pytest.skip('no GPU: ' + reason)


def gpus_required():
    """GCUDA_TEST_REQUIRE_GPUS as a number (0 when unset)."""
    try:
        return int(os.environ.get('GCUDA_TEST_REQUIRE_GPUS', '0'))
    except ValueError:
        return 0


def require_gpus(n):
    """For a test that needs @n devices: require_gpu(), then skipped with
    "needs N GPUs, this host has M", or failed instead when
    GCUDA_TEST_REQUIRE_GPUS is @n or more (the gpus(n) marker calls it)."""
    require_gpu()
    count = GCuda.Device.get_count()
    if count >= n:
        return
    if gpus_required() >= n:
        pytest.fail('GCUDA_TEST_REQUIRE_GPUS=%d but this test needs %d GPUs and this host has %d'
                    % (gpus_required(), n, count), pytrace=False)
    pytest.skip('needs %d GPUs, this host has %d' % (n, count))


def pytest_runtest_setup(item):
    marker = item.get_closest_marker('gpus')
    if marker is not None:
        require_gpus(marker.args[0])
    if item.get_closest_marker('gpu') is not None:
        require_gpu()
    if item.get_closest_marker('nvrtc') is not None:
        require_nvrtc()


@pytest.fixture(autouse=True)
def _no_context_left_current(request):
    yield
    if request.node.get_closest_marker('gpu') is not None and no_gpu_reason() is None:
        current = GCuda.Context.get_current()
        assert current is None, 'a CUDA context was left current on the thread: %r' % (current,)


@pytest.fixture
def dev():
    """Device 0."""
    return GCuda.Device.get(0)


@pytest.fixture
def ctx():
    """The default context."""
    return GCuda.Context.get_default()


# ---------------------------------------------------------------- TAP

def _one_line(text):
    return ' '.join(str(text).split()).replace('#', '\\#')


class TapReporter:
    """Writes TAP version 13 to a file descriptor."""

    def __init__(self, fd):
        self.out = os.fdopen(fd, 'w', buffering=1)
        self.count = 0
        self.failed = 0
        self.pending = {}  # nodeid -> outcome while its phases are reported
        self.out.write('TAP version 13\n')

    def _line(self, ok, name, directive=None, diagnostics=None):
        self.count += 1
        if not ok:
            self.failed += 1
        line = '%s %d %s' % ('ok' if ok else 'not ok', self.count, _one_line(name))
        if directive:
            line += ' # ' + directive
        self.out.write(line + '\n')
        if diagnostics:
            for d in str(diagnostics).splitlines()[-40:]:
                self.out.write('# ' + d + '\n')
        self.out.flush()

    @staticmethod
    def _skip_reason(report):
        if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
            reason = report.longrepr[2]
        else:
            reason = str(report.longrepr)
        if reason.startswith('Skipped: '):
            reason = reason[len('Skipped: '):]
        return _one_line(reason)

    def pytest_collectreport(self, report):
        if report.failed:
            self._line(False, 'collect ' + (report.nodeid or 'session'), diagnostics=report.longreprtext)
        elif report.skipped:
            self._line(True, 'collect ' + report.nodeid, 'SKIP ' + self._skip_reason(report))

    def pytest_runtest_logreport(self, report):
        state = self.pending.setdefault(report.nodeid, {'status': 'pass', 'detail': None})
        if report.failed:
            if state['status'] != 'fail':
                state['status'] = 'fail'
                state['detail'] = '%s failed:\n%s' % (report.when, report.longreprtext)
        elif report.skipped and state['status'] == 'pass':
            if hasattr(report, 'wasxfail'):
                state['status'] = 'xfail'
                state['detail'] = _one_line(report.wasxfail)
            else:
                state['status'] = 'skip'
                state['detail'] = self._skip_reason(report)
        elif report.passed and report.when == 'call' and hasattr(report, 'wasxfail'):
            state['status'] = 'xpass'
            state['detail'] = _one_line(report.wasxfail)

    def pytest_runtest_logfinish(self, nodeid, location):
        state = self.pending.pop(nodeid, {'status': 'pass', 'detail': None})
        status, detail = state['status'], state['detail']
        if status == 'fail':
            self._line(False, nodeid, diagnostics=detail)
        elif status == 'skip':
            self._line(True, nodeid, 'SKIP ' + detail)
        elif status == 'xfail':
            self._line(False, nodeid, 'TODO ' + detail)
        elif status == 'xpass':
            self._line(True, nodeid, 'TODO fixed? ' + detail)
        else:
            self._line(True, nodeid)

    def pytest_internalerror(self, excrepr, excinfo):
        self.out.write('Bail out! pytest internal error: %s\n' % _one_line(excinfo.value))
        self.out.flush()

    def pytest_sessionfinish(self, session, exitstatus):
        if self.count == 0:
            if exitstatus not in (0, 5):  # 5: no tests collected
                self._line(False, 'pytest exited with status %d' % exitstatus)
            else:
                self.out.write('1..0 # SKIP no tests\n')
                self.out.flush()
                return
        elif self.failed == 0 and exitstatus not in (0, 5):
            self._line(False, 'pytest exited with status %d' % exitstatus)
        self.out.write('1..%d\n' % self.count)
        self.out.flush()
