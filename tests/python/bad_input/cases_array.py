# Arrays, textures and surfaces: descriptors (checked before the driver),
# numpy arrays that fit no array, textures over buffers that cannot hold
# them, 1D byte-range copies, freed arrays. Arrays themselves need a device
# (the mock has none).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import GPU, MEMORY, NODRIVER, case, err, raises

# ---------------------------------------------------------------- descriptors (no driver)

_DESCRIPTORS = {
    'width-zero': 'array_desc(width=0)',
    'channels-3': 'array_desc(channels=3)',
    'channels-0': 'array_desc(channels=0)',
    'depth-without-height': 'array_desc(height=0, depth=4)',
    'layered-without-depth': 'array_desc(height=4, flags=GCuda.ArrayFlags.LAYERED)',
    'cubemap-not-square': 'array_desc(width=16, height=8, depth=6, flags=GCuda.ArrayFlags.CUBEMAP)',
    'cubemap-depth-5': 'array_desc(width=16, height=16, depth=5, flags=GCuda.ArrayFlags.CUBEMAP)',
    'cubemap-layered-depth-7': 'array_desc(width=16, height=16, depth=7, '
                               'flags=GCuda.ArrayFlags.CUBEMAP | GCuda.ArrayFlags.LAYERED)',
    'unknown-flags': 'array_desc(flags=GCuda.ArrayFlags(0x100))',
    'too-large': 'array_desc(width=2**40, height=2**40, depth=2**40)',
}
for what, desc in _DESCRIPTORS.items():
    case('array/descriptor-' + what, 'GCuda.Array.new(None, %s)' % desc, err('INVALID_ARGUMENT'), NODRIVER)
case('array/descriptor-validate-format-99', 'd = array_desc(); d.format = 99; d.validate()', err('INVALID_ARGUMENT'),
     NODRIVER)
case('array/descriptor-format-int', 'GCuda.ArrayDescriptor.new(16, 0, 0, 99, 1, 0)', raises('TypeError'), NODRIVER)
case('array/descriptor-negative-width', 'GCuda.ArrayDescriptor.new(-1, 0, 0, GCuda.ArrayFormat.FLOAT, 1, 0)',
     raises('OverflowError'), NODRIVER)
case('array/new-without-descriptor', 'GCuda.Array.new(None, None)', raises('TypeError'), NODRIVER)

# ---------------------------------------------------------------- numpy to arrays (no driver)

case('array/np-to-array-1d', 'GCuda.np_to_array(np.zeros(16, np.float32))', raises('ValueError'), NODRIVER)
case('array/np-to-array-4d', 'GCuda.np_to_array(np.zeros((2, 2, 2, 2), np.float32))', raises('ValueError'),
     NODRIVER)
case('array/np-to-array-order', "GCuda.np_to_array(np.zeros((4, 4), np.float32), order='X')", raises('ValueError'),
     NODRIVER)
case('array/np-to-array-bool', 'GCuda.np_to_array(np.zeros((4, 4), bool))', raises('TypeError'), NODRIVER)
case('array/np-to-array-objects', 'GCuda.np_to_array(np.array([[None, None]]))', raises('TypeError'), NODRIVER)
case('array/np-to-array-empty', 'GCuda.np_to_array(np.zeros((4, 0), np.float32))', err('INVALID_ARGUMENT'),
     NODRIVER)
case('array/matrix-to-array-3d', 'GCuda.matrix_to_array(np.zeros((2, 2, 2), np.float32))', raises('ValueError'),
     NODRIVER)
case('array/multichannel-3-channels', 'GCuda.make_multichannel_2d_array(np.zeros((4, 4, 3), np.float32))',
     err('INVALID_ARGUMENT'), NODRIVER)
case('array/multichannel-2d', 'GCuda.make_multichannel_2d_array(np.zeros((4, 4), np.float32))',
     raises('ValueError'), NODRIVER)
case('array/multichannel-float64', 'GCuda.make_multichannel_2d_array(np.zeros((4, 4, 2), np.float64))',
     raises('TypeError'), NODRIVER)
case('array/dtype-to-format-complex256', 'GCuda.dtype_to_array_format(np.clongdouble)', raises('TypeError'),
     NODRIVER)
case('array/memcpy-htoa-not-an-array', "GCuda.memcpy_htoa('array', 0, np.zeros(4))", raises('TypeError'), NODRIVER)
case('array/buffer-to-array-1d', 'GCuda.buffer_to_array(buf(64), (16,), np.float32)', raises('ValueError'), MEMORY)

# ---------------------------------------------------------------- textures (checked before the driver)

_TEXTURE_DESCRIPTOR = {
    'filter-mode-5': 'd.filter_mode = 5',
    'address-mode-9': 'd.address_mode_y = 9',
    'unknown-flags': 'd.flags = GCuda.TextureFlags(0x100)',
}
for what, change in _TEXTURE_DESCRIPTOR.items():
    case('array/texture-descriptor-' + what,
         'd = GCuda.TextureDescriptor.new(); %s\n'
         'GCuda.Texture.new_from_buffer(buf(64), GCuda.ArrayFormat.FLOAT, 1, d)' % change,
         err('INVALID_ARGUMENT'), MEMORY)
case('array/texture-buffer-not-whole-elements',
     'GCuda.Texture.new_from_buffer(buf(10), GCuda.ArrayFormat.FLOAT, 1, None)', err('INVALID_ARGUMENT'), MEMORY)
case('array/texture-buffer-3-channels', 'GCuda.Texture.new_from_buffer(buf(48), GCuda.ArrayFormat.FLOAT, 3, None)',
     err('INVALID_ARGUMENT'), MEMORY)
case('array/texture-freed-buffer', 'GCuda.Texture.new_from_buffer(freed_buf(), GCuda.ArrayFormat.FLOAT, 1, None)',
     err('FREED'), MEMORY)
case('array/texture-destroyed-context', 'GCuda.Texture.new_from_buffer(b, GCuda.ArrayFormat.FLOAT, 1, None)',
     err('CONTEXT_DESTROYED'), MEMORY, setup='c = new_ctx(); b = buf(64, c); c.destroy()')
case('array/texture-pitched-zero-height',
     'GCuda.Texture.new_from_pitched(buf(256), GCuda.ArrayFormat.FLOAT, 1, 16, 0, 64, None)', err('INVALID_ARGUMENT'),
     MEMORY)
case('array/texture-pitched-row-wider-than-pitch',
     'GCuda.Texture.new_from_pitched(buf(256), GCuda.ArrayFormat.FLOAT, 1, 32, 2, 64, None)', err('INVALID_ARGUMENT'),
     MEMORY)
case('array/texture-pitched-past-end',
     'GCuda.Texture.new_from_pitched(buf(256), GCuda.ArrayFormat.FLOAT, 1, 16, 8, 64, None)', err('OUT_OF_BOUNDS'),
     MEMORY)
case('array/texture-pitched-rows-overflow',
     'GCuda.Texture.new_from_pitched(buf(256), GCuda.ArrayFormat.FLOAT, 1, 16, 2**62, 64, None)',
     err('OUT_OF_BOUNDS'), MEMORY)
case('array/texture-unbound-buffer', 'GCuda.Texture.new_from_buffer(GCuda.Buffer(), GCuda.ArrayFormat.FLOAT, 1, None)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('array/texture-pitched-unbound-buffer',
     'GCuda.Texture.new_from_pitched(GCuda.Buffer(), GCuda.ArrayFormat.FLOAT, 1, 16, 2, 64, None)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('array/texture-unbound-array', 'GCuda.Texture.new_from_array(GObject.new(GCuda.Array), None)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('array/surface-unbound-array', 'GCuda.Surface.new(GObject.new(GCuda.Array))', err('INVALID_ARGUMENT'), NODRIVER)
case('array/make-texture-bool', 'GCuda.make_texture(np.zeros((4, 4), bool))', raises('TypeError'), NODRIVER)

# ---------------------------------------------------------------- real arrays (GPU)

_A1 = 'a = GCuda.Array.new(None, array_desc(width=16))'
_A2 = 'a = GCuda.Array.new(None, array_desc(width=16, height=4))'
_ARRAYS = {
    'upload-part-of-2d-array': (_A2, 'a.upload(0, bytes(60))', err('INVALID_ARGUMENT')),
    'upload-past-end': (_A1, 'a.upload(0, bytes(68))', err('OUT_OF_BOUNDS')),
    'upload-from-null': (_A1, 'a.upload_from_address(0, 0, 64)', err('INVALID_ARGUMENT')),
    'download-range-past-end': (_A1, 'a.download(32, 64)', err('OUT_OF_BOUNDS')),
    'range-not-whole-elements': (_A1, 'a.download(2, 4)', err('INVALID_ARGUMENT')),
    'range-of-2d-array': (_A2, 'a.download(0, 4)', err('INVALID_ARGUMENT')),
    'memcpy-htoa-past-end': (_A1, 'GCuda.memcpy_htoa(a, 32, np.zeros(16, np.float32))', err('OUT_OF_BOUNDS')),
    'memcpy-atoh-read-only': (_A1, 'd = np.zeros(16, np.float32); d.flags.writeable = False\n'
                                   'GCuda.memcpy_atoh(d, a, 0)', err('INVALID_ARGUMENT')),
    'memcpy-dtoa-buffer-too-small': (_A1, 'GCuda.memcpy_dtoa(a, 0, buf(16), 64)', err('OUT_OF_BOUNDS')),
    'copy-from-buffer-too-small': (_A2, 'a.copy_from_buffer(0, buf(64), 0, a.get_size())', err('OUT_OF_BOUNDS')),
    'copy-from-freed-buffer': (_A1, 'a.copy_from_buffer(0, freed_buf(64), 0, 64)', err('FREED')),
    'copy-between-element-sizes': (_A1, 'b = GCuda.Array.new(None, array_desc(width=16, '
                                        'fmt=GCuda.ArrayFormat.UNSIGNED_INT8))\na.copy_from_array(0, b, 0, 4)',
                                   err('INVALID_ARGUMENT')),
    # as many bytes (64), another extent: all of one array into all of another needs the same extent
    'copy-from-other-shape': (_A1, 'a.copy_from_array(0, GCuda.Array.new(None, array_desc(width=8, height=2)), 0, 64)',
                              err('INVALID_ARGUMENT')),
    'freed-download': (_A1, 'a.free(); a.download(0, 64)', err('FREED')),
    'free-twice': (_A1, 'a.free(); a.free()', err('FREED')),
    'surface-without-flag': (_A2, 'GCuda.Surface.new(a)', err('INVALID_ARGUMENT')),
    'buffer-to-array-too-small': ('', 'GCuda.buffer_to_array(buf(64), (100, 100), np.float32)',
                                  err('OUT_OF_BOUNDS')),
    'to-numpy-dtype-not-tiling': (_A1, 'a.to_numpy(dtype=np.dtype((np.void, 48)))', raises('ValueError')),
    'texture-freed-array': (_A2, 'a.free(); GCuda.Texture.new_from_array(a, None)', err('FREED')),
}
for what, (setup, code, expect) in _ARRAYS.items():
    case('array/' + what, code, expect, GPU, setup=setup)
case('array/destroyed-context-download', 'a.download(0, a.get_size())', err('CONTEXT_DESTROYED'), GPU,
     setup='c = new_ctx(); a = GCuda.Array.new(c, array_desc()); c.destroy()')
