# Child process of test_stream_event.py's test_ipc_two_processes: opens the
# INTERPROCESS event whose handle (hex) is argv[1], prints "ready", waits on
# the event with synchronize() and prints how long it waited, in seconds.
# Exits 0 on success, 1 with the error on stderr otherwise.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import sys
import time

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402


def main(argv):
    if len(argv) != 2:
        print('usage: ipc_event_child.py HANDLE-HEX', file=sys.stderr)
        return 2
    handle = bytes.fromhex(argv[1])
    event = GCuda.Event.from_ipc_handle(handle)
    assert event.get_flags() & GCuda.EventFlags.INTERPROCESS
    print('ready', flush=True)
    start = time.monotonic()
    assert event.synchronize() is event
    waited = time.monotonic() - start
    assert event.query()
    assert GCuda.Context.get_current() is None
    print('waited %.6f' % waited, flush=True)
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except Exception as e:  # noqa: BLE001 - reported to the parent
        print('%s: %s' % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
