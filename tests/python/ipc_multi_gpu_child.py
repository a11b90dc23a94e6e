# Child process of test_multi_gpu.py's IPC test.
#
#   ipc_multi_gpu_child.py ORDINAL SIZE   (stdin: the memory handle's hex,
#                                          then the event handle's hex)
#
# Opens the event (gcuda.driver.IPCEventHandle) and the memory
# (gcuda.driver.IPCMemoryHandle) in the primary context of device ORDINAL,
# which may be another device than the one the memory is on; waits for the
# event (the parent's upload), prints "device N" and "checksum S" of the
# SIZE bytes, writes them back inverted, closes the mapping (twice: the
# second does nothing), checks that using it is then GCuda.Error.FREED, and
# prints "closed".
#
# Exits 0 on success, 1 with the error on stderr otherwise.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import sys

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

import numpy as np  # noqa: E402

import gcuda.driver as cuda  # noqa: E402


def main(argv):
    if len(argv) != 3:
        print('usage: ipc_multi_gpu_child.py ORDINAL SIZE', file=sys.stderr)
        return 2
    ordinal, size = int(argv[1]), int(argv[2])
    memory_handle = bytes.fromhex(sys.stdin.readline().strip())
    event_handle = bytes.fromhex(sys.stdin.readline().strip())
    ctx = GCuda.Device.get(ordinal).get_primary_context()

    event = cuda.IPCEventHandle(event_handle, context=ctx)
    event.synchronize()
    buf = cuda.IPCMemoryHandle(memory_handle, context=ctx)
    assert buf.get_kind() == GCuda.BufferKind.IPC, buf.get_kind()
    assert buf.get_context() is ctx
    data = GCuda.from_device(buf, size, np.uint8)
    print('device %d' % ctx.get_device().get_ordinal(), flush=True)
    print('checksum %d' % int(data.astype(np.uint64).sum()), flush=True)

    GCuda.memcpy_htod(buf, np.ascontiguousarray(255 - data))
    ctx.synchronize()
    buf.close()
    buf.close()  # closing again does nothing
    try:
        buf.download(0, 1)
    except GCuda.LogicError as e:
        assert e.code == int(GCuda.Error.FREED), e
    else:
        raise AssertionError('a closed IPC buffer could still be read')
    print('closed', flush=True)
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except Exception as e:  # the parent shows stderr
        print('%s: %s' % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
