# Device memory: mem_alloc sizes, views, transfers and their ranges, freed
# buffers, memsets, copies between buffers, numpy arrays in and out, IPC
# handles, managed-only calls on device memory, buffers made by hand.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import GPU, MEMORY, NODRIVER, accepted, case, drv, err, raises

# ---------------------------------------------------------------- sizes (checked before the driver)

case('memory/mem-alloc-zero', 'GCuda.mem_alloc(0)', err('INVALID_ARGUMENT'), NODRIVER)
case('memory/mem-alloc-negative', 'GCuda.mem_alloc(-1)', raises('OverflowError'), NODRIVER)
case('memory/mem-alloc-2-64', 'GCuda.mem_alloc(2**64)', raises('OverflowError'), NODRIVER)
case('memory/mem-alloc-float', 'GCuda.mem_alloc(64.0)', raises('TypeError'), NODRIVER)
case('memory/mem-alloc-string', "GCuda.mem_alloc('64')", raises('TypeError'), NODRIVER)
case('memory/mem-alloc-none', 'GCuda.mem_alloc(None)', raises('TypeError'), NODRIVER)
case('memory/buffer-new-zero', 'GCuda.Buffer.new(None, 0)', err('INVALID_ARGUMENT'), NODRIVER)
case('memory/allocator-returns-int', 'GCuda.mem_alloc(64, allocator=lambda n: 42)', raises('TypeError'), NODRIVER)
case('memory/mem-alloc-pitch-zero-width', 'GCuda.mem_alloc_pitch(0, 4, 4)', err('INVALID_ARGUMENT'), NODRIVER)
case('memory/mem-alloc-pitch-zero-height', 'GCuda.mem_alloc_pitch(16, 0, 4)', err('INVALID_ARGUMENT'), NODRIVER)
case('memory/mem-alloc-pitch-access-3', 'GCuda.mem_alloc_pitch(16, 16, 3)', err('INVALID_ARGUMENT'), NODRIVER)
case('memory/mem-alloc-pitch-access-32', 'GCuda.mem_alloc_pitch(16, 16, 32)', err('INVALID_ARGUMENT'), NODRIVER)
case('memory/managed-flags-zero', 'GCuda.Buffer.new_managed(None, 64, GCuda.MemAttachFlags(0))',
     err('INVALID_ARGUMENT'), NODRIVER)
case('memory/managed-flags-single', 'GCuda.managed_empty(16, np.float32, mem_flags=GCuda.MemAttachFlags.SINGLE)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('memory/managed-negative-shape', 'GCuda.managed_empty((4, -1), np.float32)', raises('ValueError'), NODRIVER)
case('memory/to-device-empty', 'GCuda.to_device(np.empty(0, np.float32))', err('INVALID_ARGUMENT'), NODRIVER)
case('memory/to-device-empty-bytes', "GCuda.to_device(b'')", err('INVALID_ARGUMENT'), NODRIVER)
case('memory/to-device-objects', 'GCuda.to_device(np.array([object(), 1]))', raises('TypeError'), NODRIVER)
case('memory/to-device-int', 'GCuda.to_device(3)', raises('TypeError'), NODRIVER)
case('memory/to-device-str', "GCuda.to_device('abc')", raises('TypeError'), NODRIVER)
case('memory/ipc-handle-wrong-size', "cuda.IPCMemoryHandle(b'garbage')", err('INVALID_ARGUMENT'), NODRIVER)
case('memory/ipc-handle-empty', "cuda.IPCMemoryHandle(b'')", err('INVALID_ARGUMENT'), NODRIVER)
case('memory/ipc-handle-not-bytes', 'cuda.IPCMemoryHandle(object())', raises('TypeError'), NODRIVER)
# not bytes(64), which is 64 zero bytes: an int is no handle
case('memory/ipc-handle-int', 'cuda.IPCMemoryHandle(64)', raises('TypeError'), NODRIVER)
case('memory/ipc-handle-str', "cuda.IPCMemoryHandle('x' * 64)", raises('TypeError'), NODRIVER)

# ---------------------------------------------------------------- sizes the device refuses

case('memory/mem-alloc-more-than-the-device', 'GCuda.mem_alloc(2**50)', drv('OUT_OF_MEMORY'), MEMORY)
# the mock's answer to sizes no device has; a real driver's code for them is not pinned down here
case('memory/mem-alloc-2-63', 'GCuda.mem_alloc(2**63)', drv('OUT_OF_MEMORY'), ('mock',))
case('memory/allocator-too-small', 'GCuda.mem_alloc(64, allocator=lambda n: buf(8))', err('INVALID_ARGUMENT'),
     MEMORY)
case('memory/allocator-other-context', 'GCuda.mem_alloc(64, context=ctx(), allocator=lambda n: buf(n, new_ctx()))',
     err('CONTEXT_MISMATCH'), MEMORY)

# ---------------------------------------------------------------- views

case('memory/view-zero-size', 'buf(64).new_view(0, 0)', err('INVALID_ARGUMENT'), MEMORY)
case('memory/view-past-end', 'buf(64).new_view(60, 8)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/view-offset-past-end', 'buf(64).new_view(65, 1)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/view-wrapping-range', 'buf(64).new_view(2**64 - 1, 2)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/view-negative-offset', 'buf(64).new_view(-1, 8)', raises('OverflowError'), MEMORY)
case('memory/view-of-view-past-end', 'buf(64).new_view(16, 16).new_view(8, 16)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/view-of-freed', 'freed_buf().new_view(0, 8)', err('FREED'), MEMORY)
case('memory/view-after-parent-freed', 'v.download(0, 4)', err('FREED'), MEMORY,
     setup='b = buf(64); v = b.new_view(8, 8); b.free()')
case('memory/view-free-after-parent-freed', 'v.free()', err('FREED'), MEMORY,
     setup='b = buf(64); v = b.new_view(8, 8); b.free()')

# ---------------------------------------------------------------- freed buffers

case('memory/free-twice', 'b.free()', err('FREED'), MEMORY, setup='b = freed_buf()')
case('memory/freed-download', 'freed_buf().download(0, 8)', err('FREED'), MEMORY)
case('memory/freed-upload', "freed_buf().upload(0, b'12345678')", err('FREED'), MEMORY)
case('memory/freed-memcpy-htod', 'GCuda.memcpy_htod(freed_buf(), np.zeros(8, np.uint8))', err('FREED'), MEMORY)
case('memory/freed-memcpy-dtoh', 'GCuda.memcpy_dtoh(np.zeros(8, np.uint8), freed_buf())', err('FREED'), MEMORY)
case('memory/freed-dtod-source', 'GCuda.memcpy_dtod(buf(64), freed_buf(), 8)', err('FREED'), MEMORY)
case('memory/freed-memset', 'GCuda.memset_d32(freed_buf(), 7, 4)', err('FREED'), MEMORY)
case('memory/freed-from-device', 'GCuda.from_device(freed_buf(), 4, np.float32)', err('FREED'), MEMORY)
case('memory/freed-ipc-handle', 'GCuda.mem_get_ipc_handle(freed_buf())', err('FREED'), MEMORY)

# ---------------------------------------------------------------- transfer ranges

case('memory/download-past-end', 'buf(64).download(0, 65)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/download-offset-past-end', 'buf(64).download(65, 0)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/download-wrapping-range', 'buf(64).download(8, 2**64 - 4)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/download-negative-size', 'buf(64).download(0, -1)', raises('OverflowError'), MEMORY)
case('memory/download-empty-at-end', 'assert buf(64).download(64, 0).get_size() == 0',
     accepted('an empty range at the end is inside the buffer: zero bytes, as a slice [64:64]'), MEMORY)
case('memory/upload-past-end', "buf(64).upload(60, b'12345678')", err('OUT_OF_BOUNDS'), MEMORY)
case('memory/upload-from-null-address', 'buf(64).upload_from_address(0, 0, 8)', err('INVALID_ARGUMENT'), MEMORY)
case('memory/download-to-null-address', 'buf(64).download_to_address(0, 0, 8)', err('INVALID_ARGUMENT'), MEMORY)
case('memory/upload-bytes-past-end', 'buf(8).upload_bytes(4, GLib.Bytes.new(b"12345678"))', err('OUT_OF_BOUNDS'),
     MEMORY)

# ---------------------------------------------------------------- memcpy from and to numpy

case('memory/htod-source-bigger', 'GCuda.memcpy_htod(buf(64), np.zeros(65, np.uint8))', err('OUT_OF_BOUNDS'),
     MEMORY)
case('memory/dtoh-dest-bigger', 'GCuda.memcpy_dtoh(np.zeros(17, np.float32), buf(64))', err('OUT_OF_BOUNDS'),
     MEMORY)
case('memory/dtoh-read-only-dest', 'a = np.zeros(8, np.uint8); a.flags.writeable = False\n'
     'GCuda.memcpy_dtoh(a, buf(64))', err('INVALID_ARGUMENT'), MEMORY)
case('memory/dtoh-bytes-dest', "GCuda.memcpy_dtoh(b'12345678', buf(64))", err('INVALID_ARGUMENT'), MEMORY)
case('memory/dtoh-strided-dest', 'GCuda.memcpy_dtoh(np.zeros(16, np.uint8)[::2], buf(64))',
     err('INVALID_ARGUMENT'), MEMORY)
case('memory/htod-strided-source',
     'a = np.arange(16, dtype=np.uint8)[::2]; b = buf(8); GCuda.memcpy_htod(b, a)\n'
     'assert b.download(0, 8).get_data() == a.tobytes()',
     accepted('a strided source is documented to be copied once into a contiguous array'), MEMORY)
case('memory/to-device-strided',
     'a = np.arange(32, dtype=np.float32).reshape(4, 8)[:, ::2]; b = GCuda.to_device(a)\n'
     'assert (GCuda.from_device(b, a.shape, a.dtype) == a).all()',
     accepted('to_device() documents that a non-contiguous array is made contiguous (C order) first'), MEMORY)
case('memory/to-device-fortran', 'a = np.asfortranarray(np.arange(12.0).reshape(3, 4)); b = GCuda.to_device(a)\n'
     "assert (GCuda.from_device(b, a.shape, a.dtype, order='F') == a).all()",
     accepted('a Fortran-ordered array is contiguous: uploaded as its memory is, read back with order F'), MEMORY)
case('memory/htod-object-source', 'GCuda.memcpy_htod(buf(64), np.array([None] * 4))', raises('TypeError'),
     MEMORY)
case('memory/htod-str-source', "GCuda.memcpy_htod(buf(64), 'text')", raises('TypeError'), MEMORY)
case('memory/htod-bare-address', 'b = buf(64); GCuda.memcpy_htod(int(b), np.zeros(4))',
     accepted('an integer device address is a device pointer, as in PyCUDA'), MEMORY)
case('memory/dtoh-bare-address', 'b = buf(64); GCuda.memcpy_dtoh(np.zeros(4), int(b))',
     accepted('an integer device address is a device pointer, as in PyCUDA'), MEMORY)
case('memory/htod-address-past-allocation', 'b = buf(64); GCuda.memcpy_htod(int(b) + 40, np.zeros(4))',
     err('INVALID_ARGUMENT'), MEMORY)
case('memory/htod-address-unknown', 'GCuda.memcpy_htod(np.zeros(64).ctypes.data, np.zeros(4))',
     err('INVALID_ARGUMENT'), MEMORY)
case('memory/htod-none-dest', 'GCuda.memcpy_htod(None, np.zeros(4))', raises('TypeError'), MEMORY)
case('memory/htod-empty-source', 'GCuda.memcpy_htod(buf(64), np.zeros(0))',
     accepted('copying zero bytes is a no-op, as cuMemcpyHtoD with size 0'), MEMORY)
case('memory/dtod-too-long', 'GCuda.memcpy_dtod(buf(64), buf(32), 64)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/dtod-negative', 'GCuda.memcpy_dtod(buf(64), buf(64), -1)', raises('OverflowError'), MEMORY)
case('memory/dtod-float-size', 'GCuda.memcpy_dtod(buf(64), buf(64), 8.5)', raises('TypeError'), MEMORY)
case('memory/download-float-range', 'buf(64).download(0.9, 3.9)', raises('TypeError'), MEMORY)
case('memory/download-numpy-float-size', 'buf(64).download(0, np.float64(8))', raises('TypeError'), MEMORY)
case('memory/download-numpy-int-size', 'assert buf(64).download(np.uint8(0), np.int64(8)).get_size() == 8',
     accepted('numpy integers are integers (operator.index): only floats are refused'), MEMORY)
case('memory/copy-from-offset-past-end', 'buf(64).copy_from(0, buf(64), 60, 8)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/peer-wrong-context', 'GCuda.memcpy_peer(buf(64), buf(64), 8, dest_context=new_ctx())',
     err('CONTEXT_MISMATCH'), MEMORY)
case('memory/dtod-source-context-destroyed', 'GCuda.memcpy_dtod(buf(64), b, 8)', err('CONTEXT_DESTROYED'), MEMORY,
     setup='c = new_ctx(); b = buf(64, context=c); c.destroy()')

# ---------------------------------------------------------------- from_device

case('memory/from-device-too-big', 'GCuda.from_device(buf(64), (100,), np.float32)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/from-device-negative-shape', 'GCuda.from_device(buf(64), (-1,), np.float32)', raises('ValueError'),
     MEMORY)
case('memory/from-device-object-dtype', 'GCuda.from_device(buf(64), 4, object)', raises('TypeError'), MEMORY)
case('memory/from-device-bad-dtype', "GCuda.from_device(buf(64), 4, 'no-such-dtype')", raises('TypeError'), MEMORY)
case('memory/from-device-bad-order', "GCuda.from_device(buf(64), (2, 2), np.float32, order='K')",
     raises('ValueError'), MEMORY)
case('memory/from-device-like-too-big', 'GCuda.from_device_like(buf(64), np.zeros((5, 5)))', err('OUT_OF_BOUNDS'),
     MEMORY)

# ---------------------------------------------------------------- memsets

case('memory/memset-past-end', 'GCuda.memset_d8(buf(64), 1, 65)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/memset-d32-past-end', 'GCuda.memset_d32(buf(64), 1, 17)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/memset-count-overflows', 'GCuda.memset_d32(buf(64), 0, 2**62)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/memset-value-too-big', 'GCuda.memset_d8(buf(64), 256, 1)', raises('OverflowError'), MEMORY)
case('memory/memset-value-negative', 'GCuda.memset_d16(buf(64), -1, 1)', raises('OverflowError'), MEMORY)
case('memory/memset-value-float', 'GCuda.memset_d32(buf(64), 1.5, 1)', raises('TypeError'), MEMORY)
case('memory/memset-d16-odd-offset', 'buf(64).memset_d16(1, 0, 2, None)', err('INVALID_ARGUMENT'), MEMORY)
# the address the driver gets counts (a view's start plus the offset), not the offset alone
case('memory/memset-d16-odd-view', 'GCuda.memset_d16(buf(64).new_view(1, 8), 0, 2)', err('INVALID_ARGUMENT'),
     MEMORY)
case('memory/memset-d32-misaligned-view', 'GCuda.memset_d32(buf(64).new_view(2, 8), 0, 2)', err('INVALID_ARGUMENT'),
     MEMORY)
case('memory/memset-d32-view-offset-realigns', 'buf(64).new_view(2, 16).memset_d32(2, 0, 2, None)',
     accepted('view start 2 plus offset 2 is a 4-byte aligned address: the memset is valid'), MEMORY)
case('memory/memset-d2d16-odd-view', 'GCuda.memset_d2d16(buf(64).new_view(1, 32), 8, 1, 2, 2)',
     err('INVALID_ARGUMENT'), MEMORY)
case('memory/memset-2d-row-wider-than-pitch', 'GCuda.memset_d2d8(buf(64), 4, 1, 8, 2)', err('INVALID_ARGUMENT'),
     MEMORY)
case('memory/memset-2d-pitch-zero', 'GCuda.memset_d2d8(buf(64), 0, 1, 4, 3)', err('INVALID_ARGUMENT'), MEMORY)
case('memory/memset-2d-past-end', 'GCuda.memset_d2d8(buf(64), 16, 1, 8, 10)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/memset-2d16-odd-pitch', 'GCuda.memset_d2d16(buf(64), 5, 1, 2, 2)', err('INVALID_ARGUMENT'), MEMORY)
case('memory/memset-2d-huge-height', 'GCuda.memset_d2d32(buf(64), 16, 1, 4, 2**62)', err('OUT_OF_BOUNDS'), MEMORY)
case('memory/memset-2d-zero-height', 'GCuda.memset_d2d8(buf(64), 16, 1, 8, 0)',
     accepted('an empty rectangle sets nothing, as cuMemsetD2D8 with height 0 does'), MEMORY)

# ---------------------------------------------------------------- what only some memory has

case('memory/ipc-handle-of-view', 'GCuda.mem_get_ipc_handle(buf(64).new_view(0, 8))', err('INVALID_ARGUMENT'),
     MEMORY)
case('memory/as-array-device-memory', 'buf(64).as_array((4,), np.float32)', err('INVALID_ARGUMENT'), MEMORY)
case('memory/as-buffer-device-memory', 'buf(64).as_buffer()', err('INVALID_ARGUMENT'), MEMORY)
case('memory/asarray-device-memory', 'np.asarray(buf(64))',
     accepted('device memory has no __array_interface__: numpy wraps the object (a 0-d object array), no crash'),
     MEMORY)
case('memory/prefetch-device-memory', 'buf(64).prefetch(None, None)', err('INVALID_ARGUMENT'), MEMORY)
case('memory/advise-device-memory', 'buf(64).advise(GCuda.MemoryAdvice.SET_READ_MOSTLY, None)',
     err('INVALID_ARGUMENT'), MEMORY)
case('memory/attach-device-memory', 'buf(64).attach(GCuda.MemAttachFlags.GLOBAL, None)', err('INVALID_ARGUMENT'),
     MEMORY)
case('memory/managed-attach-single-no-stream',
     'GCuda.Buffer.new_managed(None, 64, GCuda.MemAttachFlags.GLOBAL).attach(GCuda.MemAttachFlags.SINGLE, None)',
     err('INVALID_ARGUMENT'), GPU)
case('memory/managed-as-array-past-end',
     'GCuda.get_buffer(GCuda.managed_empty(4, np.float32)).as_array((8,), np.float32)', err('OUT_OF_BOUNDS'), MEMORY)

# ---------------------------------------------------------------- managed memory freed under live arrays

# free() and Context.destroy() retire managed memory at once but release it
# only after the last array or memoryview over it (the buffer object holds
# an export: docs/overview.md). 64 MiB, written whole after the free: a
# write into released memory would fault at once on the mock.
_RETIRED = 'retired at once, released after the last array or memoryview over it (it is still theirs)'
_MANAGED = 'a = GCuda.managed_empty(64 << 20, np.uint8); b = GCuda.get_buffer(a)'
case('memory/managed-free-under-live-array', 'b.free(); a[:] = 1; assert int(a[0]) + int(a[-1]) == 2',
     accepted(_RETIRED), MEMORY, setup=_MANAGED)
case('memory/managed-free-under-live-array-then-download', 'b.free(); b.download(0, 1)', err('FREED'), MEMORY,
     setup=_MANAGED)
case('memory/managed-free-under-live-memoryview', 'b.free(); m[0] = 1; m[-1] = 1; assert m[0] + m[-1] == 2',
     accepted(_RETIRED), MEMORY, setup='b = GCuda.Buffer.new_managed(None, 64 << 20, GCuda.MemAttachFlags.GLOBAL); '
     'm = b.as_buffer()')
case('memory/managed-free-under-array-of-view', 'b.free(); v[:] = 1; assert int(v[0]) + int(v[-1]) == 2',
     accepted(_RETIRED), MEMORY,
     setup='b = GCuda.Buffer.new_managed(None, 64 << 20, GCuda.MemAttachFlags.GLOBAL); '
           'v = b.new_view(4096, (64 << 20) - 4096).as_array()')
case('memory/managed-context-destroyed-under-live-array', 'c.destroy(); a[:] = 1; assert int(a[0]) + int(a[-1]) == 2',
     accepted('the context is retired at once, released after the objects made in it (the arrays keep theirs)'), MEMORY,
     setup='c = new_ctx(); a = GCuda.managed_empty(64 << 20, np.uint8, context=c)')
case('memory/managed-context-destroyed-then-as-array', 'c.destroy(); b.as_array()', err('CONTEXT_DESTROYED'), MEMORY,
     setup='c = new_ctx(); b = GCuda.Buffer.new_managed(c, 4096, GCuda.MemAttachFlags.GLOBAL)')

# ---------------------------------------------------------------- a GCuda.Buffer made by hand

case('memory/unbound-download', 'GCuda.Buffer().download(0, 1)', err('INVALID_ARGUMENT'), NODRIVER)
case('memory/unbound-view', 'GCuda.Buffer().new_view(0, 1)', err('INVALID_ARGUMENT'), NODRIVER)
case('memory/unbound-memset', 'GCuda.memset_d8(GCuda.Buffer(), 0, 1)', err('INVALID_ARGUMENT'), NODRIVER)
case('memory/unbound-free', 'GCuda.Buffer().free()', err('INVALID_ARGUMENT'), NODRIVER)
case('memory/unbound-as-copy-source', 'GCuda.memcpy_dtod(buf(64), GCuda.Buffer(), 8)', err('INVALID_ARGUMENT'),
     MEMORY)
case('memory/unbound-as-array-source', 'a = GCuda.Array.new(None, array_desc(16))\n'
     'a.copy_from_buffer(0, GCuda.Buffer(), 0, 64)',
     err('INVALID_ARGUMENT'), GPU)
