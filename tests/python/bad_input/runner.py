# Runs catalogue cases, each in a child process of its own, and writes one
# JSON line per case to stdout:
#
#   python3 runner.py ENV < names      (one case name per line)
#
# Each child runs one case and reports what it raised (type, GError domain
# and code, message) through a pipe, then drops its objects (so finalizers
# run) and exits. This process reports how the child ended: its exit status
# or signal, a hang (killed after the case's timeout) and its stderr, where
# GLib's criticals and warnings show.
#
# To be quick, this process imports PyGObject, GCuda and numpy once and
# forks a child per case, which then starts in a few milliseconds. It must
# not have touched the driver then (forking a process that has initialized
# CUDA is not supported): that is checked, and children are spawned as fresh
# Pythons instead (also with GCUDA_BAD_INPUT_SPAWN=exec).
#
# G_DEBUG=fatal-criticals is set for this process by the caller, so a
# g_return_if_fail() critical aborts the child.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gc
import json
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from bad_input import load  # noqa: E402
from bad_input import prelude  # noqa: E402

DEFAULT_TIMEOUT = 30
RESULT_LIMIT = 60000  # bytes of JSON a child writes: less than a pipe holds


def describe(e):
    from gi.repository import GCuda, GLib
    d = {'type': type(e).__name__, 'mro': [k.__name__ for k in type(e).__mro__],
         'message': str(e)[:600],
         'where': ''.join(traceback.format_exception(type(e), e, e.__traceback__)[-3:])[-1500:]}
    if isinstance(e, GLib.Error):
        d.update(domain=e.domain, code=e.code, gmessage=(e.message or '')[:600],
                 cuda_error=isinstance(e, GCuda.CudaError))
    return d


def execute(c):
    """(namespace, result) of running case @c here."""
    ns = prelude.namespace()
    if c.setup:
        try:
            exec(compile(c.setup, '<setup of %s>' % c.name, 'exec'), ns)
        except BaseException as e:  # noqa: B036 - reported, whatever it is
            return ns, dict(outcome='setup-failed', **describe(e))
    try:
        exec(compile(c.code, '<%s>' % c.name, 'exec'), ns)
    except BaseException as e:  # noqa: B036
        return ns, dict(outcome='raised', **describe(e))
    return ns, {'outcome': 'returned'}


def child_main(c, fd):
    """The child's work: run @c, write the result to @fd, tear down."""
    ns, result = execute(c)
    data = json.dumps(result).encode()
    if len(data) > RESULT_LIMIT:
        data = json.dumps({'outcome': 'broken', 'message': 'result too long'}).encode()
    os.write(fd, data)
    os.close(fd)
    # what the case made goes now, with the child still under watch
    ns.clear()
    result = None
    gc.collect()
    sys.stdout.flush()
    sys.stderr.flush()


def driver_loaded():
    with open('/proc/self/maps', encoding='utf-8', errors='replace') as maps:
        return any('libcuda' in line for line in maps)


def read_until_eof(fd, deadline):
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return b''.join(chunks), False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        data = os.read(fd, 65536)
        if not data:
            return b''.join(chunks), True
        chunks.append(data)


def wait_until(pid, deadline):
    """The wait status of @pid, or None when it outlives @deadline."""
    delay = 0.001
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() >= deadline:
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def run_child(c, mode):
    timeout = c.timeout or DEFAULT_TIMEOUT
    r, w = os.pipe()
    err = tempfile.TemporaryFile()
    start = time.monotonic()
    if mode == 'fork':
        pid = os.fork()
        if pid == 0:  # the child
            code = 0
            try:
                os.close(r)
                os.dup2(err.fileno(), 1)
                os.dup2(err.fileno(), 2)
                child_main(c, w)
            except BaseException:  # noqa: B036
                traceback.print_exc()
                code = 3
            finally:
                os._exit(code)
        proc = None
    else:
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), '--child', c.name, str(w)],
                                pass_fds=(w,), stdout=err, stderr=err, stdin=subprocess.DEVNULL)
        pid = proc.pid
    os.close(w)
    deadline = start + timeout
    data, eof = read_until_eof(r, deadline)
    os.close(r)
    status = wait_until(pid, deadline)
    hang = status is None
    if hang:
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if proc is not None:
        proc.returncode = 0  # reaped above
    err.seek(0)
    stderr = err.read().decode('utf-8', 'replace')
    err.close()
    try:
        result = json.loads(data) if data else None
    except ValueError:
        result = {'outcome': 'broken', 'message': 'unreadable result %r' % data[:200]}
    return {
        'name': c.name,
        'result': result,
        'hang': hang,
        'signal': os.WTERMSIG(status) if os.WIFSIGNALED(status) and not hang else None,
        'exit': os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        'stderr': stderr[-4000:],
        'seconds': round(time.monotonic() - start, 3),
        'mode': mode,
    }


def main():
    if sys.argv[1] == '--child':  # spawned mode: one case, result on the given fd
        c = load()[sys.argv[2]]
        child_main(c, int(sys.argv[3]))
        os._exit(0)
    cases = load()
    names = [line.strip() for line in sys.stdin if line.strip()]
    # a crashing child dumps no core: the crash is the result, and cores are slow
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    mode = 'exec' if os.environ.get('GCUDA_BAD_INPUT_SPAWN') == 'exec' or driver_loaded() else 'fork'
    for name in names:
        print(json.dumps(run_child(cases[name], mode)), flush=True)


if __name__ == '__main__':
    main()
