# Copy2D, Copy3D and Copy3DPeer: missing endpoints, zero or overflowing
# extents, pitches and heights too small for the region, regions outside
# the memory, freed memory, contexts that do not match. Everything is
# planned before the driver is called, so host-to-host copies with bad
# descriptions are answered without one.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import GPU, MEMORY, NODRIVER, case, err, raises

# two host arrays of 4096 bytes and a copy of 16 × 4 bytes between them
_HOST = ('src = np.zeros(4096, np.uint8); dst = np.zeros(4096, np.uint8)\n'
         'c = GCuda.Copy{kind}.new()\n'
         'c.set_src_host(src.ctypes.data, src.nbytes); c.set_dst_host(dst.ctypes.data, dst.nbytes)\n'
         'c.props.width_in_bytes = 16; c.props.height = 4; c.props.src_pitch = 16; c.props.dst_pitch = 16')
_H2 = _HOST.format(kind='2D')
_H3 = _HOST.format(kind='3D') + '; c.props.depth = 2; c.props.src_height = 4; c.props.dst_height = 4'
_RUN2 = 'c.props.aligned = False; c.execute(None)'
_RUN3 = 'c.execute(None)'

_COPIES = {
    '2d-no-source': ('c = GCuda.Copy2D.new(); c.set_dst_host(1 << 20, 64); c.props.width_in_bytes = 8',
                     _RUN2, err('INVALID_ARGUMENT')),
    '2d-no-destination': ('c = GCuda.Copy2D.new(); c.set_src_host(1 << 20, 64); c.props.width_in_bytes = 8',
                          _RUN2, err('INVALID_ARGUMENT')),
    '2d-source-address-zero': (_H2, 'c.set_src_host(0, 64); ' + _RUN2, err('INVALID_ARGUMENT')),
    '2d-destination-wraps': (_H2, 'c.set_dst_host(2**64 - 16, 64); ' + _RUN2, err('INVALID_ARGUMENT')),
    '2d-width-zero': (_H2, 'c.props.width_in_bytes = 0; ' + _RUN2, err('INVALID_ARGUMENT')),
    '2d-height-zero': (_H2, 'c.props.height = 0; ' + _RUN2, err('INVALID_ARGUMENT')),
    '2d-source-pitch-too-small': (_H2, 'c.props.src_pitch = 8; ' + _RUN2, err('INVALID_ARGUMENT')),
    '2d-destination-pitch-too-small': (_H2, 'c.props.dst_pitch = 15; ' + _RUN2, err('INVALID_ARGUMENT')),
    '2d-offset-past-pitch': (_H2, 'c.props.src_pitch = 64; c.props.src_x_in_bytes = 60; ' + _RUN2,
                             err('INVALID_ARGUMENT')),
    '2d-region-past-end': (_H2, 'c.props.src_pitch = 2048; ' + _RUN2, err('OUT_OF_BOUNDS')),
    '2d-pitch-default-zero': (_H2, 'c.props.src_pitch = 0; ' + _RUN2, err('INVALID_ARGUMENT')),
    '2d-rows-past-end': (_H2, 'c.props.dst_pitch = 64; c.props.dst_y = 100; ' + _RUN2, err('OUT_OF_BOUNDS')),
    '2d-width-wraps': (_H2, 'c.props.width_in_bytes = 2**64 - 1; c.props.src_x_in_bytes = 8; ' + _RUN2,
                       err('OUT_OF_BOUNDS')),
    '2d-height-huge': (_H2, 'c.props.src_pitch = 16; c.props.height = 2**63; ' + _RUN2, err('OUT_OF_BOUNDS')),
    '2d-pitch-negative': (_H2, 'c.props.src_pitch = -1', raises('OverflowError')),
    '2d-stream-by-hand': (_H2, 'c.execute(GObject.new(GCuda.Stream))', err('INVALID_ARGUMENT')),
    '2d-stream-not-a-stream': (_H2, "c.execute('stream')", raises('TypeError')),
    '2d-freed-host-buffer': ('hb = GCuda.HostBuffer.new_aligned(4096, 0); hb.free()\n' + _H2,
                             'c.set_src_host_buffer(hb); ' + _RUN2, err('FREED')),
    '2d-unbound-host-buffer': (_H2, 'c.set_dst_host_buffer(GObject.new(GCuda.HostBuffer)); ' + _RUN2,
                               err('INVALID_ARGUMENT')),
    '3d-depth-zero': (_H3, 'c.props.depth = 0; ' + _RUN3, err('INVALID_ARGUMENT')),
    '3d-source-height-too-small': (_H3, 'c.props.src_pitch = 16; c.props.src_height = 2; ' + _RUN3,
                                   err('INVALID_ARGUMENT')),
    '3d-slices-past-end': (_H3, 'c.props.dst_pitch = 16; c.props.dst_height = 4; c.props.dst_z = 100; ' + _RUN3,
                           err('OUT_OF_BOUNDS')),
    '3d-slices-overflow': (_H3, 'c.props.src_pitch = 16; c.props.src_height = 4; c.props.depth = 2**62; ' + _RUN3,
                           err('OUT_OF_BOUNDS')),
}
for what, (setup, code, expect) in _COPIES.items():
    case('copy/' + what, code, expect, NODRIVER, setup=setup)

# ---------------------------------------------------------------- device memory

_D2 = ('c = GCuda.Copy2D.new(); c.props.width_in_bytes = 16; c.props.height = 4\n'
       'c.props.src_pitch = 16; c.props.dst_pitch = 16\n'
       'h = np.zeros(4096, np.uint8); c.set_src_host(h.ctypes.data, h.nbytes)')
case('copy/2d-buffer-too-small', 'c.set_dst_buffer(buf(32)); ' + _RUN2, err('OUT_OF_BOUNDS'), MEMORY,
     setup=_D2)
case('copy/2d-buffer-by-hand', 'c.set_dst_buffer(GCuda.Buffer()); ' + _RUN2, err('INVALID_ARGUMENT'),
     NODRIVER, setup=_D2)
case('copy/2d-freed-buffer', 'c.set_dst_buffer(freed_buf()); ' + _RUN2, err('FREED'), MEMORY,
     setup=_D2)
case('copy/2d-view-of-freed-buffer', 'b = buf(4096); v = b.new_view(0, 256); b.free()\n'
     'c.set_dst_buffer(v); ' + _RUN2, err('FREED'), MEMORY, setup=_D2)
case('copy/2d-buffers-of-two-contexts', 'c.set_src_buffer(buf(4096)); c.set_dst_buffer(buf(4096, new_ctx()))\n'
     + _RUN2, err('CONTEXT_MISMATCH'), MEMORY, setup=_D2)
case('copy/2d-destroyed-context', 'c.set_dst_buffer(b); ' + _RUN2, err('CONTEXT_DESTROYED'), MEMORY,
     setup=_D2 + '\nx = new_ctx(); b = buf(4096, x); x.destroy()')
case('copy/3d-peer-wrong-source-context', 'c = GCuda.Copy3DPeer.new(); c.props.width_in_bytes = 16\n'
     'c.props.height = 1; c.props.depth = 1; c.set_src_buffer(buf(64)); c.set_src_context(new_ctx())\n'
     'c.set_dst_buffer(buf(64)); c.execute(None)', err('CONTEXT_MISMATCH'), MEMORY)
case('copy/2d-stream-of-other-context', 'c.set_dst_buffer(buf(4096)); c.execute(GCuda.Stream(context=new_ctx()))',
     err('CONTEXT_MISMATCH'), GPU, setup=_D2)
case('copy/2d-array-region-outside', 'c.set_dst_array(GCuda.Array.new(None, array_desc(width=2, height=2)))\n'
     'c.execute(None)', err('OUT_OF_BOUNDS'), GPU, setup=_D2)
case('copy/3d-freed-array', 'a = GCuda.Array.new(None, array_desc(width=16, height=4, depth=2)); a.free()\n'
     'c = GCuda.Copy3D.new(); c.set_src_array(a); h = np.zeros(4096, np.uint8)\n'
     'c.set_dst_host(h.ctypes.data, h.nbytes); c.props.width_in_bytes = 16; c.props.height = 1; c.props.depth = 1\n'
     'c.execute(None)', err('FREED'), GPU)
