# Child process of test_stream_event.py's two-process tests.
#
#   ipc_event_child.py HANDLE-HEX
#       opens the INTERPROCESS event whose handle is HANDLE-HEX, prints
#       "ready", waits on it with synchronize() and prints
#       "waited SECONDS".
#   ipc_event_child.py export
#       creates an INTERPROCESS event and records it behind a blocking
#       callback, prints "handle HANDLE-HEX", and does not let the event be
#       reached (does not iterate its main context) until it reads a line
#       from stdin; then prints "done" once the event has completed.
#
# Exits 0 on success, 1 with the error on stderr otherwise.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import sys
import time

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402


def wait_on(handle_hex):
    event = GCuda.Event.from_ipc_handle(bytes.fromhex(handle_hex))
    assert event.get_flags() & GCuda.EventFlags.INTERPROCESS
    print('ready', flush=True)
    start = time.monotonic()
    assert event.synchronize() is event
    waited = time.monotonic() - start
    assert event.query()
    print('waited %.6f' % waited, flush=True)


def export():
    stream = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    event = GCuda.Event(GCuda.EventFlags.INTERPROCESS | GCuda.EventFlags.DISABLE_TIMING)
    ran = []
    # runs in this thread's main context, iterated only after "go"
    stream.add_blocking_callback(lambda s, *a: ran.append(True))
    event.record(stream)
    assert not event.query()
    print('handle %s' % event.ipc_handle().hex(), flush=True)
    sys.stdin.readline()
    context = GLib.MainContext.default()
    deadline = time.monotonic() + 30
    while not ran:
        assert time.monotonic() < deadline, 'the blocking callback did not run'
        if not context.iteration(False):
            time.sleep(0.001)
    event.synchronize()
    stream.synchronize()
    print('done', flush=True)


def main(argv):
    if len(argv) != 2:
        print('usage: ipc_event_child.py HANDLE-HEX | export', file=sys.stderr)
        return 2
    if argv[1] == 'export':
        export()
    else:
        wait_on(argv[1])
    assert GCuda.Context.get_current() is None
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except Exception as e:  # noqa: BLE001 - reported to the parent
        print('%s: %s' % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
