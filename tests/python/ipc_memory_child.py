# Child process of test_memory.py's IPC test.
#
#   ipc_memory_child.py HANDLE-HEX SIZE
#       opens the device memory whose IPC handle is HANDLE-HEX with
#       GCuda.Buffer.open_ipc_handle(), downloads its first SIZE bytes and
#       prints "sha256 HEX" of them; then writes those bytes back reversed,
#       closes the mapping (free()), opens the handle again through
#       gcuda.driver.IPCMemoryHandle, checks that the reversed bytes are
#       there and prints "reversed".
#
# Exits 0 on success, 1 with the error on stderr otherwise.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import hashlib
import sys

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402

import numpy as np  # noqa: E402

import gcuda.driver as cuda  # noqa: E402


def main(argv):
    if len(argv) != 3:
        print('usage: ipc_memory_child.py HANDLE-HEX SIZE', file=sys.stderr)
        return 2
    handle = bytes.fromhex(argv[1])
    size = int(argv[2])

    buf = GCuda.Buffer.open_ipc_handle(None, GLib.Bytes.new(handle))
    assert buf.get_kind() == GCuda.BufferKind.IPC, buf.get_kind()
    assert buf.get_size() >= size, (buf.get_size(), size)
    assert int(buf) != 0
    data = GCuda.from_device(buf, size, np.uint8)
    print('sha256 %s' % hashlib.sha256(data).hexdigest(), flush=True)

    reversed_data = np.ascontiguousarray(data[::-1])
    GCuda.memcpy_htod(buf, reversed_data)
    buf.free()
    try:
        buf.free()  # twice: an error, as in PyCUDA
    except GCuda.LogicError as e:
        assert e.code == int(GCuda.Error.FREED), e
    else:
        raise AssertionError('a second free() of an IPC buffer passed silently')
    try:
        buf.download(0, 1)
    except GCuda.LogicError as e:
        assert e.code == int(GCuda.Error.FREED), e
    else:
        raise AssertionError('a closed IPC buffer could still be read')

    again = cuda.IPCMemoryHandle(handle)
    check = np.empty(size, np.uint8)
    cuda.memcpy_dtoh(check, again)
    assert np.array_equal(check, reversed_data)
    again.free()
    print('reversed', flush=True)
    assert GCuda.Context.get_current() is None
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except Exception as e:  # noqa: BLE001 - reported to the parent
        import traceback
        traceback.print_exc()
        print('%s: %s' % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
