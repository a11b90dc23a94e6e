# Memory pools: PyCUDA's DeviceMemoryPool and PageLockedMemoryPool, the
# GObject pools (GCuda.MemoryPool, GCuda.HostMemoryPool) and their blocks by
# address, bins, pools of destroyed contexts, freed allocations, and the
# driver's stream-ordered pool (GCuda.StreamPool).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import GPU, MEMORY, NODRIVER, accepted, case, drv, err, raises

# ---------------------------------------------------------------- checked before the driver

case('pool/device-allocate-zero', 'tools.DeviceMemoryPool().allocate(0)', err('INVALID_ARGUMENT'), NODRIVER)
case('pool/device-allocate-negative', 'tools.DeviceMemoryPool().allocate(-1)', raises('OverflowError'), NODRIVER)
case('pool/device-allocate-string', "tools.DeviceMemoryPool().allocate('64')", raises('TypeError'), NODRIVER)
case('pool/device-allocate-none', 'tools.DeviceMemoryPool().allocate(None)', raises('TypeError'), NODRIVER)
case('pool/gobject-allocate-zero', 'GCuda.MemoryPool.new(None).allocate(0)', err('INVALID_ARGUMENT'), NODRIVER)
case('pool/gobject-allocate-address-zero', 'GCuda.MemoryPool.new(None).allocate_address(0)', err('INVALID_ARGUMENT'),
     NODRIVER)
case('pool/free-address-unknown', 'GCuda.MemoryPool.new(None).free_address(0x1000)', err('INVALID_ARGUMENT'),
     NODRIVER)
case('pool/adopt-address-unknown', 'GCuda.MemoryPool.new(None).adopt_address(0x1000)', err('INVALID_ARGUMENT'),
     NODRIVER)
case('pool/host-free-address-unknown', 'GCuda.HostMemoryPool.new(None, 0).free_address(0x1000)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('pool/pinned-allocate-negative-shape', 'tools.PageLockedMemoryPool().allocate((4, -1), np.float32)',
     raises('ValueError'), NODRIVER)
case('pool/pinned-allocate-object-dtype', 'tools.PageLockedMemoryPool().allocate(4, object)', raises('TypeError'),
     NODRIVER)
case('pool/pinned-allocate-bad-order', "tools.PageLockedMemoryPool().allocate((2, 2), np.float32, order='X')",
     raises('ValueError'), NODRIVER)
case('pool/bin-number-negative', 'tools.DeviceMemoryPool.bin_number(-1)', raises('OverflowError'), NODRIVER)
case('pool/alloc-size-past-last-bin', 'assert tools.DeviceMemoryPool.alloc_size(1024) == 0',
     accepted('gcuda_memory_pool_alloc_size() documents 0 for a bin number over 1023'), NODRIVER)
case('pool/alloc-size-negative', 'tools.DeviceMemoryPool.alloc_size(-1)', raises('OverflowError'), NODRIVER)
case('pool/bitlog2-negative', 'tools.bitlog2(-1)', raises('OverflowError'), NODRIVER)
case('pool/bitlog2-float', 'tools.bitlog2(2.5)', raises('TypeError'), NODRIVER)
case('pool/max-held-bytes-negative', 'tools.DeviceMemoryPool().max_held_bytes = -1', raises('OverflowError'),
     NODRIVER)
case('pool/stream-pool-by-hand', 'GObject.new(GCuda.StreamPool).allocate(64, None)', err('INVALID_ARGUMENT'),
     NODRIVER)

# ---------------------------------------------------------------- blocks and contexts

case('pool/device-free-twice', 'a = tools.DeviceMemoryPool().allocate(64); a.free(); a.free()', err('FREED'), MEMORY)
case('pool/device-freed-as-copy-target', 'a = tools.DeviceMemoryPool().allocate(64); a.free()\n'
     'GCuda.memcpy_htod(a, np.zeros(8, np.uint8))', err('FREED'), MEMORY)
case('pool/device-freed-buffer-attribute', 'a = tools.DeviceMemoryPool().allocate(64); a.free(); a.buffer',
     err('FREED'), MEMORY)
case('pool/device-block-too-small', 'a = tools.DeviceMemoryPool().allocate(8)\n'
     'GCuda.memcpy_htod(a, np.zeros(64, np.uint8))', err('OUT_OF_BOUNDS'), MEMORY)
case('pool/gobject-buffer-free-twice', 'b = GCuda.MemoryPool.new(None).allocate(64); b.free(); b.free()',
     err('FREED'), MEMORY)
case('pool/free-address-twice', 'p = GCuda.MemoryPool.new(None); a = p.allocate_address(64); p.free_address(a)\n'
     'p.free_address(a)', err('INVALID_ARGUMENT'), MEMORY)
case('pool/free-address-of-other-pool', 'a = GCuda.MemoryPool.new(None).allocate_address(64)\n'
     'GCuda.MemoryPool.new(None).free_address(a)', err('INVALID_ARGUMENT'), MEMORY)
case('pool/allocate-more-than-the-device', 'GCuda.MemoryPool.new(None).allocate(2**50)', drv('OUT_OF_MEMORY'), MEMORY)
case('pool/allocate-2-64-minus-1', 'GCuda.MemoryPool.new(None).allocate(2**64 - 1)', drv('OUT_OF_MEMORY'), ('mock',))
case('pool/destroyed-context-allocate', 'GCuda.MemoryPool.new(c).allocate(64)', err('CONTEXT_DESTROYED'), MEMORY,
     setup='c = destroyed_ctx()')
case('pool/destroyed-context-pycuda', 'tools.DeviceMemoryPool(context=c).allocate(64)', err('CONTEXT_DESTROYED'),
     MEMORY, setup='c = destroyed_ctx()')
case('pool/destroyed-after-allocation', 'c.destroy(); p.allocate(64)', err('CONTEXT_DESTROYED'), MEMORY,
     setup='c = new_ctx(); p = GCuda.MemoryPool.new(c); p.allocate(64).free()')
case('pool/pinned-destroyed-context', 'tools.PageLockedMemoryPool(context=c).allocate(4, np.float32)',
     err('CONTEXT_DESTROYED'), MEMORY, setup='c = destroyed_ctx()')
case('pool/pinned-unknown-flags', 'tools.PageLockedMemoryPool(flags=0x10).allocate(4, np.float32)',
     err('INVALID_ARGUMENT'), MEMORY)
case('pool/pinned-free-twice', 'a = tools.PageLockedMemoryPool().allocate(4, np.float32); a.base.free()\n'
     'a.base.free()', err('FREED'), MEMORY)
# free() retires a block with arrays over it; it goes back to the pool (here:
# to the driver, as the pool holds none) after the last of them.
case('pool/pinned-free-under-live-array', 'a.base.free(); a[:] = 1; assert int(a[0]) + int(a[-1]) == 2',
     accepted('retired at once, given back after the last array over it (it is still theirs)'), MEMORY,
     setup='p = tools.PageLockedMemoryPool(); p.stop_holding(); a = p.allocate(64 << 20, np.uint8)')
case('pool/pinned-free-under-live-array-then-buffer', 'a.base.free(); a.base.buffer', err('FREED'), MEMORY,
     setup='p = tools.PageLockedMemoryPool(); a = p.allocate(64, np.uint8)')
case('pool/pinned-free-under-live-array-then-memoryview', 'a.base.free(); memoryview(a.base)', raises('BufferError'),
     MEMORY, setup='p = tools.PageLockedMemoryPool(); a = p.allocate(64, np.uint8)')
case('pool/pinned-host-buffer-free-under-live-array', 'GCuda.get_host_buffer(a).free(); a[:] = 1; '
     'assert int(a[0]) + int(a[-1]) == 2',
     accepted('retired at once, given back after the last array over it (it is still theirs)'), MEMORY,
     setup='p = tools.PageLockedMemoryPool(); p.stop_holding(); a = p.allocate(64 << 20, np.uint8)')
case('pool/pinned-context-destroyed-under-live-array', 'c.destroy(); a[:] = 1; assert int(a[0]) + int(a[-1]) == 2',
     accepted('the context is retired at once, released after the objects made in it (the arrays keep theirs)'), MEMORY,
     setup='c = new_ctx(); p = tools.PageLockedMemoryPool(context=c); a = p.allocate(64 << 20, np.uint8)')
case('pool/stream-pool-allocate-zero', 'GCuda.StreamPool.new(None).allocate(0, None)', err('INVALID_ARGUMENT'), GPU)
case('pool/stream-pool-other-context-stream',
     'GCuda.StreamPool.new(None).allocate(64, GCuda.Stream(context=new_ctx()))', err('CONTEXT_MISMATCH'), GPU)
case('pool/stream-pool-allocate-address-zero', 'GCuda.StreamPool.new(None).allocate_address(0, None)',
     err('INVALID_ARGUMENT'), GPU)
case('pool/stream-pool-free-address-unknown', 'GCuda.StreamPool.new(None).free_address(0x1000, None)',
     err('INVALID_ARGUMENT'), GPU)
case('pool/stream-pool-free-address-twice',
     'p = GCuda.StreamPool.new(None); a = p.allocate_address(64, None); p.free_address(a, None)\n'
     'p.free_address(a, None)', err('INVALID_ARGUMENT'), GPU)
case('pool/stream-pool-free-address-other-context-stream',
     'p = GCuda.StreamPool.new(None); a = p.allocate_address(64, None)\n'
     'try:\n    p.free_address(a, GCuda.Stream(context=new_ctx()))\nfinally:\n    p.free_address(a, None)',
     err('CONTEXT_MISMATCH'), GPU)
case('pool/stream-pool-by-hand-address', 'GObject.new(GCuda.StreamPool).allocate_address(64, None)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('pool/stream-pool-release-threshold-negative', 'GCuda.StreamPool.new(None).set_release_threshold(-1)',
     raises('OverflowError'), GPU)
