# Modules: images that are not device code (GCuda checks them before the
# driver reads them: GCuda.Error.INVALID_ARGUMENT), files, JIT options, and
# names that are not in a module.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import GPU, MEMORY, NODRIVER, accepted, case, drv, err, gerror, nvrtc, raises

# ---------------------------------------------------------------- images (checked before the driver)

_IMAGES = {
    'empty': "b''",
    'three-bytes': "b'abc'",
    'garbage': "b'garbage that is no device code'",
    'zeros': "bytes(4096)",
    'elf-magic-only': r"b'\x7fELF'",
    'elf-header-garbage': r"b'\x7fELF\x02\x01\x01' + b'\xff' * 57",
    'elf32': r"b'\x7fELF\x01\x01\x01' + bytes(57)",
    'elf-big-endian': r"b'\x7fELF\x02\x02\x01' + bytes(57)",
    'fatbin-magic-only': r"b'\x50\xed\x55\xba'",
    'fatbin-garbage': r"b'\x50\xed\x55\xba' + b'\xff' * 60",
    'ptx-without-version': "b'.target sm_90\\n.entry k() { ret; }\\0'",
    'text-str': "'this is not PTX'",
    'numpy-garbage': 'np.arange(100, dtype=np.uint8)',
}
for what, image in _IMAGES.items():
    case('module/image-' + what, 'GCuda.module_from_buffer(%s)' % image, err('INVALID_ARGUMENT'), NODRIVER)

case('module/cubin-truncated', 'GCuda.module_from_buffer(c[:len(c) // 2])', err('INVALID_ARGUMENT'), NODRIVER,
     setup='c = cubin()')
case('module/cubin-header-only', 'GCuda.module_from_buffer(c[:64])', err('INVALID_ARGUMENT'), NODRIVER,
     setup='c = cubin()')
case('module/cubin-sections-past-end', 'GCuda.module_from_buffer(bytes(c))', err('INVALID_ARGUMENT'), NODRIVER,
     setup="import struct\nc = bytearray(cubin()); struct.pack_into('<Q', c, 40, len(c) + 4096)")
case('module/cubin-bad-string-table-index', 'GCuda.module_from_buffer(bytes(c))', err('INVALID_ARGUMENT'),
     NODRIVER, setup="import struct\nc = bytearray(cubin()); struct.pack_into('<H', c, 62, 0x7fff)")
case('module/fatbin-truncated', 'GCuda.module_from_buffer(f[:40])', err('INVALID_ARGUMENT'), NODRIVER,
     setup=r"import struct; f = b'\x50\xed\x55\xba\x01\x00\x10\x00' + struct.pack('<Q', 4096) + bytes(64)")
case('module/image-none', 'GCuda.module_from_buffer(None)', raises('TypeError'), NODRIVER)
case('module/image-int', 'GCuda.module_from_buffer(42)', raises('TypeError'), NODRIVER)
case('module/program-made-by-hand', 'GCuda.Module.new_from_program(None, GObject.new(GCuda.Program))',
     err('INVALID_ARGUMENT'), NODRIVER)
case('module/program-none', 'GCuda.Module.new_from_program(None, None)', raises('TypeError'), NODRIVER)

# ---------------------------------------------------------------- files

case('module/file-missing', "GCuda.module_from_file('/nonexistent/kernel.cubin')", gerror('g-file-error-quark', 4),
     NODRIVER)
case('module/file-is-a-directory', "GCuda.module_from_file('/')", gerror('g-file-error-quark', 1), NODRIVER)
case('module/file-garbage', 'GCuda.module_from_file(path)', err('INVALID_ARGUMENT'), NODRIVER,
     setup="import tempfile\nf = tempfile.NamedTemporaryFile(suffix='.cubin'); f.write(b'not device code'); f.flush()\n"
           'path = f.name')
case('module/file-empty', "GCuda.module_from_file('/dev/null')", err('INVALID_ARGUMENT'), NODRIVER)
case('module/file-none', 'GCuda.module_from_file(None)', raises('TypeError'), NODRIVER)

# ---------------------------------------------------------------- JIT options (checked before the driver)

_JIT = {
    'max-registers-too-big': ("{'max_registers': 1000}", err('INVALID_ARGUMENT')),
    'max-registers-negative': ("{'max_registers': -1}", err('INVALID_ARGUMENT')),
    'optimization-level-5': ("{'optimization_level': 5}", err('INVALID_ARGUMENT')),
    'threads-per-block-2048': ("[('threads_per_block', 2048)]", err('INVALID_ARGUMENT')),
    'unknown-name': ("{'no_such_option': 1}", err('INVALID_ARGUMENT')),
    'not-pairs': ("[('max_registers',)]", raises('TypeError')),
    'value-not-int': ("{'max_registers': 'many'}", raises('TypeError')),
    'not-a-mapping': ('42', raises('TypeError')),
}
for what, (options, expect) in _JIT.items():
    case('module/jit-' + what, 'GCuda.module_from_buffer(ptx(), options=%s)' % options, expect, NODRIVER)
# GCuda.JitOptions set directly (setters, constructor, props) keep any value;
# the options are checked where they are used, before the driver
case('module/jit-setter-keeps-value', 'j = GCuda.JitOptions.new(); j.set_max_registers(1000)\n'
     'assert j.get_max_registers() == 1000',
     accepted('JitOptions setters take any value: the options are checked where they are used (documented)'),
     NODRIVER)
case('module/jit-setter-out-of-range', 'GCuda.module_from_buffer(ptx(), options=j)', err('INVALID_ARGUMENT'),
     NODRIVER, setup='j = GCuda.JitOptions.new(); j.set_max_registers(1000)')
case('module/jit-setter-optimization-level', 'GCuda.module_from_buffer(ptx(), options=j)', err('INVALID_ARGUMENT'),
     NODRIVER, setup='j = GCuda.JitOptions.new(); j.set_optimization_level(9)')
case('module/jit-constructor-out-of-range', 'GCuda.module_from_buffer(ptx(), options=j)', err('INVALID_ARGUMENT'),
     NODRIVER, setup='j = GCuda.JitOptions(max_registers=1000)')
case('module/jit-props-out-of-range', 'GCuda.Module.new_from_data(None, GLib.Bytes.new(ptx()), j)',
     err('INVALID_ARGUMENT'), NODRIVER, setup='j = GCuda.JitOptions.new(); j.props.threads_per_block = 5000')
case('module/jit-linker-out-of-range', 'GCuda.Linker.new(None, j)', err('INVALID_ARGUMENT'), NODRIVER,
     setup='j = GCuda.JitOptions.new(); j.set_optimization_level(-2)')

# ---------------------------------------------------------------- what the driver decides (GPU)

case('module/ptx-garbage-after-version', "GCuda.module_from_buffer(b'.version 8.0\\nthis is not ptx\\0')",
     drv('INVALID_PTX'), GPU)
case('module/cubin-for-another-arch', "GCuda.module_from_buffer(cubin(arch='sm_80'))", drv('NO_BINARY_FOR_GPU'),
     GPU)
case('module/function-unknown', "module().get_function('no_such_kernel')", drv('NOT_FOUND'), GPU)
case('module/function-empty-name', "module().get_function('')", err('INVALID_ARGUMENT'), GPU)
case('module/function-mangled-name', "module().get_function('_Z4fillPffi')", drv('NOT_FOUND'), GPU)
case('module/global-unknown', "module().get_global('no_such_global')", drv('NOT_FOUND'), GPU)
# the driver's answer (580) for a kernel's name asked for as a global
case('module/global-is-a-kernel', "module().get_global('fill')", drv('INVALID_VALUE'), GPU)
case('module/texref', "module().get_texref('tex')", err('NOT_SUPPORTED'), GPU)
case('module/lowered-name-not-given', "module().get_lowered_name('fill')", err('INVALID_ARGUMENT'), GPU)
case('module/unbound-get-function', "GObject.new(GCuda.Module).get_function('fill')", err('INVALID_ARGUMENT'),
     NODRIVER)
case('module/source-module-compile-error', "compiler.SourceModule('__global__ void k( {', cache_dir=False)",
     nvrtc('COMPILATION'), MEMORY)
