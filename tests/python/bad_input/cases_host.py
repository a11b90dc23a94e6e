# Host memory: aligned and page-locked arrays with bad shapes, dtypes,
# orders, alignments and flags; registering arrays that cannot be; ranges of
# HostBuffer reads, writes and mappings; freed memory, and memory freed
# under live numpy arrays.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import GPU, MEMORY, NODRIVER, accepted, case, drv, err, raises

# ---------------------------------------------------------------- aligned memory (no driver)

for alignment in (1, 3, 4, 12, 4095, 3 << 12):
    case('host/aligned-alignment-%d' % alignment, 'GCuda.aligned_empty(10, np.uint8, alignment=%d)' % alignment,
         err('INVALID_ARGUMENT'), NODRIVER)
case('host/aligned-alignment-negative', 'GCuda.aligned_empty(10, np.uint8, alignment=-4096)',
     raises('OverflowError'), NODRIVER)
case('host/aligned-alignment-float', 'GCuda.aligned_empty(10, np.uint8, alignment=4096.0)', raises('TypeError'),
     NODRIVER)
case('host/aligned-negative-shape', 'GCuda.aligned_empty((3, -1), np.float32)', raises('ValueError'), NODRIVER)
case('host/aligned-float-shape', 'GCuda.aligned_empty(3.0, np.float32)', raises('TypeError'), NODRIVER)
case('host/aligned-object-dtype', 'GCuda.aligned_empty(3, object)', raises('TypeError'), NODRIVER)
case('host/aligned-object-field', "GCuda.aligned_empty(3, np.dtype([('a', object)]))", raises('TypeError'),
     NODRIVER)
case('host/aligned-unknown-dtype', "GCuda.aligned_empty(3, 'no-such-dtype')", raises('TypeError'), NODRIVER)
case('host/aligned-order-k', "GCuda.aligned_empty((2, 2), np.float32, order='K')", raises('ValueError'), NODRIVER)
case('host/aligned-shape-overflows', 'GCuda.aligned_empty((2**40, 2**40), np.float64)', raises('OverflowError'),
     NODRIVER)
case('host/aligned-empty-shape', 'a = GCuda.aligned_empty(0, np.float32); assert a.shape == (0,)',
     accepted('a zero-size array is a valid numpy array (one byte is allocated under it)'), NODRIVER)
case('host/aligned-like-objects', 'GCuda.aligned_zeros_like(np.array([None, 1]))', raises('TypeError'), NODRIVER)
case('host/aligned-buffer-zero', 'GCuda.HostBuffer.new_aligned(0, 4096)', err('INVALID_ARGUMENT'), NODRIVER)
# host memory that cannot be allocated: OUT_OF_MEMORY (a GCuda.MemoryError), as pagelocked_empty() says
case('host/aligned-more-than-memory', 'GCuda.aligned_empty(2**62, np.uint8)', drv('OUT_OF_MEMORY'), NODRIVER)
case('host/aligned-alignment-2-63', 'GCuda.HostBuffer.new_aligned(64, 2**63)', drv('OUT_OF_MEMORY'), NODRIVER)
case('host/aligned-more-than-memory-class', 'try:\n    GCuda.aligned_empty(2**62, np.uint8)\n'
     'except GCuda.MemoryError:\n    raise', drv('OUT_OF_MEMORY'), NODRIVER)

# ---------------------------------------------------------------- HostBuffer ranges (no driver)

_ALIGNED = 'hb = GCuda.HostBuffer.new_aligned(4096, 0)'
case('host/read-past-end', 'hb.read(0, 4097)', err('OUT_OF_BOUNDS'), NODRIVER, setup=_ALIGNED)
case('host/read-offset-past-end', 'hb.read(4097, 0)', err('OUT_OF_BOUNDS'), NODRIVER, setup=_ALIGNED)
case('host/read-wrapping-range', 'hb.read(16, 2**64 - 8)', err('OUT_OF_BOUNDS'), NODRIVER, setup=_ALIGNED)
case('host/write-past-end', "hb.write(4090, GLib.Bytes.new(b'0123456789'))", err('OUT_OF_BOUNDS'), NODRIVER,
     setup=_ALIGNED)
case('host/write-none', 'hb.write(0, None)', raises('TypeError'), NODRIVER, setup=_ALIGNED)
case('host/as-array-past-end', 'hb.as_array((1025,), np.float32)', err('OUT_OF_BOUNDS'), NODRIVER, setup=_ALIGNED)
case('host/as-array-offset-past-end', 'hb.as_array(offset=4097)', err('OUT_OF_BOUNDS'), NODRIVER, setup=_ALIGNED)
case('host/as-array-negative-offset', 'hb.as_array(offset=-1)', raises('OverflowError'), NODRIVER, setup=_ALIGNED)
case('host/as-buffer-past-end', 'hb.as_buffer(16, 4090)', err('OUT_OF_BOUNDS'), NODRIVER, setup=_ALIGNED)
case('host/as-array-negative-shape', 'hb.as_array((-4,), np.float32)', raises('ValueError'), NODRIVER,
     setup=_ALIGNED)
case('host/freed-read', 'hb.read(0, 8)', err('FREED'), NODRIVER, setup=_ALIGNED + '; hb.free()')
case('host/freed-as-array', 'hb.as_array((4,), np.float32)', err('FREED'), NODRIVER, setup=_ALIGNED + '; hb.free()')
case('host/free-twice', 'hb.free()', err('FREED'), NODRIVER, setup=_ALIGNED + '; hb.free()')
case('host/unregister-aligned', 'hb.unregister()', err('INVALID_ARGUMENT'), NODRIVER, setup=_ALIGNED)
case('host/device-address-of-aligned', 'hb.get_device_address()', err('INVALID_ARGUMENT'), NODRIVER,
     setup=_ALIGNED)
case('host/unbound-read', 'GObject.new(GCuda.HostBuffer).read(0, 1)', err('INVALID_ARGUMENT'), NODRIVER)
case('host/unbound-free', 'GObject.new(GCuda.HostBuffer).free()', err('INVALID_ARGUMENT'), NODRIVER)
case('host/unbound-as-array', 'GObject.new(GCuda.HostBuffer).as_array((4,), np.float32)', err('INVALID_ARGUMENT'),
     NODRIVER)
case('host/unbound-as-buffer', 'GObject.new(GCuda.HostBuffer).as_buffer()', err('INVALID_ARGUMENT'), NODRIVER)

# ---------------------------------------------------------------- numpy arrays and memoryviews over freed memory

# free() and Context.destroy() retire the memory at once but release it only
# after the last array or memoryview over it (the Python object holds an
# export: docs/overview.md). 64 MiB: more than glibc's largest mmap threshold,
# so a release unmaps the memory (and the mock unmaps what the driver frees):
# a write into released memory would fault at once. Each case writes the
# whole array after the free and reads it back.

_WRITE_ALL = 'a[:] = 1; assert int(a[0]) + int(a[-1]) == 2'
_RETIRED = 'retired at once, released after the last array or memoryview over it (it is still theirs)'

case('host/aligned-free-under-live-array', 'hb.free(); ' + _WRITE_ALL, accepted(_RETIRED), NODRIVER,
     setup='a = GCuda.aligned_empty(64 << 20, np.uint8); hb = GCuda.get_host_buffer(a)')
case('host/aligned-free-under-live-array-then-read', 'hb.free(); hb.read(0, 1)', err('FREED'), NODRIVER,
     setup='a = GCuda.aligned_empty(64 << 20, np.uint8); hb = GCuda.get_host_buffer(a)')
case('host/aligned-free-under-live-array-then-as-array', 'hb.free(); hb.as_array()', err('FREED'), NODRIVER,
     setup='a = GCuda.aligned_empty(64 << 20, np.uint8); hb = GCuda.get_host_buffer(a)')
case('host/aligned-free-under-live-memoryview', 'hb.free(); m[0] = 1; m[-1] = 1; assert m[0] + m[-1] == 2',
     accepted(_RETIRED), NODRIVER, setup='hb = GCuda.aligned_empty(64 << 20, np.uint8).base; m = hb.as_buffer()')
case('host/aligned-free-under-view-of-array', 'hb.free(); del a; v[:] = 1; assert int(v[0]) + int(v[-1]) == 2',
     accepted(_RETIRED), NODRIVER,
     setup='a = GCuda.aligned_empty(64 << 20, np.uint8); hb = a.base; v = a[1:]')
case('host/pagelocked-free-under-live-array', 'hb.free(); ' + _WRITE_ALL, accepted(_RETIRED), MEMORY,
     setup='a = GCuda.pagelocked_empty(64 << 20, np.uint8); hb = GCuda.get_host_buffer(a)')
case('host/pagelocked-free-under-live-memoryview', 'hb.free(); m[0] = 1; m[-1] = 1; assert m[0] + m[-1] == 2',
     accepted(_RETIRED), MEMORY,
     setup='hb = GCuda.HostBuffer.new_pagelocked(None, 64 << 20, 0); m = hb.as_buffer()')
case('host/context-destroyed-under-live-array', 'c.destroy(); ' + _WRITE_ALL,
     accepted('the context is retired at once, released after the objects made in it (the arrays keep theirs)'), MEMORY,
     setup='c = new_ctx(); a = GCuda.pagelocked_empty(64 << 20, np.uint8, context=c)')
case('host/context-destroyed-under-live-memoryview', 'c.destroy(); m[0] = 1; m[-1] = 1; assert m[0] + m[-1] == 2',
     accepted('the context is retired at once, released after the objects made in it (the views keep theirs)'), MEMORY,
     setup='c = new_ctx(); m = GCuda.HostBuffer.new_pagelocked(c, 64 << 20, 0).as_buffer()')
case('host/context-destroyed-under-live-array-then-read', 'c.destroy(); a.base.read(0, 1)',
     err('CONTEXT_DESTROYED'), MEMORY,
     setup='c = new_ctx(); a = GCuda.pagelocked_empty(64 << 20, np.uint8, context=c)')
case('host/context-destroyed-then-as-array', 'c.destroy(); hb.as_array()', err('CONTEXT_DESTROYED'), MEMORY,
     setup='c = new_ctx(); hb = GCuda.HostBuffer.new_pagelocked(c, 4096, 0)')

# ---------------------------------------------------------------- register_host_memory (checked before the driver)

case('host/register-unaligned', 'GCuda.register_host_memory(GCuda.aligned_zeros(8192, np.uint8)[1:])',
     err('INVALID_ARGUMENT'), NODRIVER)
case('host/register-strided', 'GCuda.register_host_memory(GCuda.aligned_zeros(8192, np.uint8)[::2])',
     err('INVALID_ARGUMENT'), NODRIVER)
case('host/register-empty', 'GCuda.register_host_memory(GCuda.aligned_zeros(0, np.uint8))',
     err('INVALID_ARGUMENT'), NODRIVER)
case('host/register-unknown-flags', 'GCuda.register_host_memory(GCuda.aligned_zeros(4096, np.uint8), 0x100)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('host/register-list', 'GCuda.register_host_memory([0] * 4096)', raises('TypeError'), NODRIVER)
case('host/register-objects', 'GCuda.register_host_memory(np.array([None] * 4096))', raises('TypeError'),
     NODRIVER)
case('host/register-address-zero', 'GCuda.HostBuffer.register(None, 0, 4096, 0)', err('INVALID_ARGUMENT'),
     NODRIVER)
case('host/register-size-2-64', 'GCuda.HostBuffer.register(None, 4096, 2**64, 0)', raises('OverflowError'),
     NODRIVER)
case('host/register-read-only-array',
     'a = GCuda.aligned_zeros(4096, np.uint8); a.flags.writeable = False\n'
     'r = GCuda.register_host_memory(a); assert not r.flags.writeable',
     accepted('the memory is registered and the array over it stays read-only, as the array given'), GPU)
case('host/register-twice', 'GCuda.register_host_memory(a)', drv('HOST_MEMORY_ALREADY_REGISTERED'), GPU,
     setup='a = GCuda.aligned_zeros(4096, np.uint8); r = GCuda.register_host_memory(a)')
case('host/unregister-twice', 'hb.unregister()', err('FREED'), GPU,
     setup='r = GCuda.register_host_memory(GCuda.aligned_zeros(4096, np.uint8)); hb = GCuda.get_host_buffer(r)\n'
           'hb.unregister()')

# ---------------------------------------------------------------- page-locked memory

case('host/pagelocked-unknown-flags', 'GCuda.pagelocked_empty(16, np.float32, mem_flags=0x10)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('host/pagelocked-negative-shape', 'GCuda.pagelocked_empty(-1, np.float32)', raises('ValueError'), NODRIVER)
case('host/pagelocked-object-dtype', 'GCuda.pagelocked_zeros(4, object)', raises('TypeError'), NODRIVER)
case('host/pagelocked-buffer-zero', 'GCuda.HostBuffer.new_pagelocked(None, 0, 0)', err('INVALID_ARGUMENT'),
     NODRIVER)
case('host/pagelocked-more-than-memory', 'GCuda.pagelocked_empty(2**62, np.uint8)', drv('OUT_OF_MEMORY'), MEMORY)
case('host/pagelocked-device-address-without-devicemap',
     'GCuda.get_host_buffer(GCuda.pagelocked_empty(16, np.float32)).get_device_address()', err('INVALID_ARGUMENT'),
     MEMORY)
case('host/pagelocked-unregister', 'GCuda.get_host_buffer(GCuda.pagelocked_empty(16, np.float32)).unregister()',
     err('INVALID_ARGUMENT'), MEMORY)
case('host/pagelocked-freed-write', "hb.write(0, GLib.Bytes.new(b'x'))", err('FREED'), MEMORY,
     setup='hb = GCuda.HostBuffer.new_pagelocked(None, 64, 0); hb.free()')
case('host/pagelocked-other-context-copy', 'GCuda.memcpy_htod(buf(64), a)',
     accepted('page-locked memory is usable from every context (portable in unified addressing)'), MEMORY,
     setup='a = GCuda.pagelocked_zeros(64, np.uint8, context=new_ctx())')
