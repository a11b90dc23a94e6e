# Kernel arguments and launches: wrong counts, types and sizes, dimensions,
# shared memory, streams, prepare() formats, prepared calls, KernelArgs and
# LaunchConfig from the C API, occupancy and attributes of a function, the
# In/Out/InOut handlers. Launches need a device (gpu); what is checked
# before a module is needed runs everywhere.
#
# The kernels are prelude.KERNELS: fill(float *out, float value, int n),
# noargs(), take_struct(pair p, double *out) with pair {int a; double b;}
# (16 bytes), shared_user(float *out) with extern shared memory.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import GPU, NODRIVER, accepted, case, drv, err, raises

_F = "f = function('fill'); out = buf(4096)"
_B = 'block=(32, 1, 1)'
_ARGS = 'out, np.float32(1), np.int32(32)'

# ---------------------------------------------------------------- plain calls: arguments

_CALLS = {
    'too-few': ('f(out, np.float32(1), %s)' % _B, err('KERNEL_ARGUMENTS')),
    'too-many': ('f(%s, np.int32(0), %s)' % (_ARGS, _B), err('KERNEL_ARGUMENTS')),
    'none': ('f(%s)' % _B, err('KERNEL_ARGUMENTS')),
    'wrong-size': ('f(out, np.float64(1), np.int32(32), %s)' % _B, err('KERNEL_ARGUMENTS')),
    'python-int': ('f(out, np.float32(1), 32, %s)' % _B, raises('TypeError')),
    'python-float': ('f(out, 1.0, np.int32(32), %s)' % _B, raises('TypeError')),
    'none-argument': ('f(out, None, np.int32(32), %s)' % _B, raises('TypeError')),
    'str-argument': ("f(out, 'x', np.int32(32), %s)" % _B, raises('TypeError')),
    'bare-address': ('f(1234, np.float32(1), np.int32(32), %s)' % _B, raises('TypeError')),
    'freed-buffer': ('out.free(); f(%s, %s)' % (_ARGS, _B), err('FREED')),
    'freed-view': ('v = out.new_view(0, 64); out.free(); f(v, np.float32(1), np.int32(16), %s)' % _B, err('FREED')),
    'array-for-pointer': ('f(np.zeros(3, np.float32), np.float32(1), np.int32(32), %s)' % _B,
                          err('KERNEL_ARGUMENTS')),
}
for what, (code, expect) in _CALLS.items():
    case('kernel/call-' + what, code, expect, GPU, setup=_F)

# a GCuda.Buffer made by hand has no memory: its address 0 would fault in the kernel
case('kernel/unbound-buffer-argument', 'f(GCuda.Buffer(), np.float32(1), np.int32(1), block=(1, 1, 1))\n'
     'ctx().synchronize()', err('INVALID_ARGUMENT'), GPU, setup=_F)
case('kernel/unbound-buffer-prepared', "f.prepare('Pfi').prepared_call((1, 1), (1, 1, 1), GCuda.Buffer(), 1.0, 1)",
     err('INVALID_ARGUMENT'), GPU, setup=_F)
case('kernel/unbound-buffer-kernel-args', 'a = GCuda.KernelArgs.new(); a.add_buffer(GCuda.Buffer()); a.add_float(1.0)\n'
     'a.add_int32(1); f.launch(1, 1, 1, 1, 1, 1, 0, None, a)', err('INVALID_ARGUMENT'), GPU, setup=_F)

# ---------------------------------------------------------------- plain calls: dimensions, shared memory, streams

_DIMS = {
    'no-block': ('f(%s)' % _ARGS, raises('ValueError')),
    'block-zero': ('f(%s, block=(0, 1, 1))' % _ARGS, err('INVALID_ARGUMENT')),
    'block-2048': ('f(%s, block=(2048, 1, 1))' % _ARGS, err('INVALID_ARGUMENT')),
    'block-negative': ('f(%s, block=(-1, 1, 1))' % _ARGS, raises('OverflowError')),
    'block-four-dims': ('f(%s, block=(1, 1, 1, 1))' % _ARGS, raises('ValueError')),
    'block-empty': ('f(%s, block=())' % _ARGS, raises('ValueError')),
    'block-floats': ('f(%s, block=(32.0, 1, 1))' % _ARGS, raises('TypeError')),
    'block-string': ("f(%s, block='abc')" % _ARGS, raises('TypeError')),
    'block-int': ('f(%s, block=32)' % _ARGS, raises('TypeError')),
    'grid-zero': ('f(%s, %s, grid=(0, 1))' % (_ARGS, _B), err('INVALID_ARGUMENT')),
    'grid-2-32': ('f(%s, %s, grid=(2**32, 1))' % (_ARGS, _B), raises('OverflowError')),
    'shared-1-mib': ('f(%s, %s, shared=1 << 20)' % (_ARGS, _B), drv('INVALID_VALUE')),
    'shared-negative': ('f(%s, %s, shared=-1)' % (_ARGS, _B), raises('OverflowError')),
    'stream-not-a-stream': ("f(%s, %s, stream='s')" % (_ARGS, _B), raises('TypeError')),
    'stream-other-context': ('f(%s, %s, stream=GCuda.Stream(context=new_ctx()))' % (_ARGS, _B),
                             err('CONTEXT_MISMATCH')),
    'texrefs': ('f(%s, %s, texrefs=[object()])' % (_ARGS, _B), err('NOT_SUPPORTED')),
}
for what, (code, expect) in _DIMS.items():
    case('kernel/launch-' + what, code, expect, GPU, setup=_F)

# gcuda_function_launch() checks each dimension against the device's limits
# (read with the device) before the driver: too large is INVALID_ARGUMENT
case('kernel/launch-block-z-65', 'f(%s, block=(1, 1, 65))' % _ARGS, err('INVALID_ARGUMENT'), GPU, setup=_F)
case('kernel/launch-grid-y-65536', 'f(%s, %s, grid=(1, 65536))' % (_ARGS, _B), err('INVALID_ARGUMENT'), GPU,
     setup=_F)
case('kernel/launch-grid-x-2-31', 'f(%s, %s, grid=(2**31, 1))' % (_ARGS, _B), err('INVALID_ARGUMENT'), GPU,
     setup=_F)
case('kernel/prepared-grid-z-65536', "f.prepare('Pfi').prepared_call((1, 1, 65536), (32, 1, 1), out, 1.0, 32)",
     err('INVALID_ARGUMENT'), GPU, setup=_F)
case('kernel/config-grid-y-65536', "cfg = GCuda.LaunchConfig.new(); cfg.set_grid(1, 65536, 1); cfg.set_block(32, 1, 1)\n"
     "function('noargs').launch_with_config(cfg, None)", err('INVALID_ARGUMENT'), GPU)
case('kernel/config-stream-by-hand', "cfg = GCuda.LaunchConfig.new(); cfg.set_block(32, 1, 1)\n"
     "cfg.set_stream(GObject.new(GCuda.Stream)); function('noargs').launch_with_config(cfg, None)",
     err('INVALID_ARGUMENT'), GPU)
case('kernel/args-add-int-float', 'GCuda.KernelArgs.new().add_int32(1.5)', raises('TypeError'), NODRIVER)
case('kernel/launch-destroyed-context', 'f(out, np.float32(1), np.int32(32), %s)' % _B, err('CONTEXT_DESTROYED'),
     GPU, setup="c = new_ctx(); f = compiler.SourceModule(KERNELS, context=c, cache_dir=False).get_function('fill')\n"
                "out = buf(4096, c); c.destroy()")

# ---------------------------------------------------------------- prepare() and prepared calls

_PREPARE = {
    'unknown-char': ("f.prepare('Pfz')", raises('ValueError')),
    'too-few': ("f.prepare('Pf')", err('KERNEL_ARGUMENTS')),
    'too-many': ("f.prepare('Pfii')", err('KERNEL_ARGUMENTS')),
    'wrong-size': ("f.prepare('Pdi')", err('KERNEL_ARGUMENTS')),
    'empty': ("f.prepare('')", err('KERNEL_ARGUMENTS')),
    'list-bad-char': ("f.prepare(['P', 'f', 'x'])", raises('ValueError')),
    'object-dtype': ('f.prepare([np.intp, np.float32, object])', raises('TypeError')),
    'old-shared': ("f.prepare('Pfi', shared=128)", raises('TypeError')),
    'texrefs': ("f.prepare('Pfi', texrefs=[1])", err('NOT_SUPPORTED')),
    'struct-size': ("function('take_struct').prepare('12sP')", err('KERNEL_ARGUMENTS')),
}
for what, (code, expect) in _PREPARE.items():
    case('kernel/prepare-' + what, code, expect, GPU, setup=_F)

_PREPARED = "f = function('fill').prepare('Pfi'); out = buf(4096)"
_PREPARED_CALLS = {
    'without-prepare': ("function('fill').prepared_call((1, 1), (32, 1, 1), out, 1.0, 32)", err('INVALID_ARGUMENT')),
    'timed-without-prepare': ("function('fill').prepared_timed_call((1, 1), (32, 1, 1), out, 1.0, 32)",
                              err('INVALID_ARGUMENT')),
    'too-few': ('f.prepared_call((1, 1), (32, 1, 1), out, 1.0)', err('KERNEL_ARGUMENTS')),
    'too-many': ('f.prepared_call((1, 1), (32, 1, 1), out, 1.0, 32, 4)', err('KERNEL_ARGUMENTS')),
    'value-not-a-number': ("f.prepared_call((1, 1), (32, 1, 1), out, 'one', 32)", raises('TypeError')),
    'int-too-big': ('f.prepared_call((1, 1), (32, 1, 1), out, 1.0, 2**40)', raises('TypeError')),
    'pointer-float': ('f.prepared_call((1, 1), (32, 1, 1), 1.5, 1.0, 32)', raises('TypeError')),
    'pointer-freed': ('out.free(); f.prepared_call((1, 1), (32, 1, 1), out, 1.0, 32)', err('FREED')),
    'block-zero': ('f.prepared_call((1, 1), (0, 1, 1), out, 1.0, 32)', err('INVALID_ARGUMENT')),
    'grid-zero': ('f.prepared_call((0, 1), (32, 1, 1), out, 1.0, 32)', err('INVALID_ARGUMENT')),
    'shared-size-too-big': ('f.prepared_call((1, 1), (32, 1, 1), out, 1.0, 32, shared_size=1 << 30)',
                            drv('INVALID_VALUE')),
    'async-not-a-stream': ("f.prepared_async_call((1, 1), (32, 1, 1), 'stream', out, 1.0, 32)",
                           raises('TypeError')),
    'async-other-context-stream': ('f.prepared_async_call((1, 1), (32, 1, 1), GCuda.Stream(context=new_ctx()), '
                                   'out, 1.0, 32)', err('CONTEXT_MISMATCH')),
    'grid-none': ('f.prepared_call(None, (32, 1, 1), out, 1.0, 32)', raises('TypeError')),
}
for what, (code, expect) in _PREPARED_CALLS.items():
    case('kernel/prepared-' + what, code, expect, GPU, setup=_PREPARED)

# ---------------------------------------------------------------- KernelArgs, LaunchConfig, launch_packed (C API)

case('kernel/args-set-missing-index', 'GCuda.KernelArgs.new().set_int32(3, 1)', err('KERNEL_ARGUMENTS'), NODRIVER)
case('kernel/args-set-wrong-size', 'a = GCuda.KernelArgs.new(); a.add_int32(1); a.set_double(0, 1.0)',
     err('KERNEL_ARGUMENTS'), NODRIVER)
case('kernel/args-set-buffer-none', 'a = GCuda.KernelArgs.new(); a.add_uint64(0); a.set_buffer(0, None)',
     raises('TypeError'), NODRIVER)
case('kernel/args-add-int8-overflow', 'GCuda.KernelArgs.new().add_int8(200)', raises('OverflowError'), NODRIVER)
case('kernel/args-add-buffer-none', 'GCuda.KernelArgs.new().add_buffer(None)', raises('TypeError'), NODRIVER)
case('kernel/launch-args-count', 'a = GCuda.KernelArgs.new(); a.add_buffer(out)\n'
     'f.launch(1, 1, 1, 32, 1, 1, 0, None, a)', err('KERNEL_ARGUMENTS'), GPU, setup=_F)
case('kernel/launch-args-none', 'f.launch(1, 1, 1, 32, 1, 1, 0, None, None)', err('KERNEL_ARGUMENTS'), GPU, setup=_F)
case('kernel/launch-args-freed-buffer', 'a = GCuda.KernelArgs.new(); a.add_buffer(out); a.add_float(1.0)\n'
     'a.add_int32(32); out.free(); f.launch(1, 1, 1, 32, 1, 1, 0, None, a)', err('FREED'), GPU, setup=_F)
case('kernel/launch-packed-wrong-size', 'f.launch_packed(1, 1, 1, 32, 1, 1, 0, None, bytes(8))',
     err('KERNEL_ARGUMENTS'), GPU, setup=_F)
case('kernel/config-cluster-zero', "cfg = GCuda.LaunchConfig.new(); cfg.set_grid(2, 1, 1); cfg.set_block(32, 1, 1)\n"
     "cfg.set_cluster(0, 1, 1); function('noargs').launch_with_config(cfg, None)", err('INVALID_ARGUMENT'), GPU)
case('kernel/config-block-zero', "cfg = GCuda.LaunchConfig.new(); cfg.set_block(0, 1, 1)\n"
     "function('noargs').launch_with_config(cfg, None)", err('INVALID_ARGUMENT'), GPU)
case('kernel/config-stream-other-context', "cfg = GCuda.LaunchConfig.new(); cfg.set_block(32, 1, 1)\n"
     "cfg.set_stream(GCuda.Stream(context=new_ctx())); function('noargs').launch_with_config(cfg, None)",
     err('CONTEXT_MISMATCH'), GPU)
case('kernel/config-stream-not-a-stream', 'GCuda.LaunchConfig.new().set_stream(42)', raises('TypeError'), NODRIVER)
case('kernel/config-negative-grid', 'GCuda.LaunchConfig.new().set_grid(-1, 1, 1)', raises('OverflowError'),
     NODRIVER)

# ---------------------------------------------------------------- function queries

case('kernel/occupancy-block-zero', 'f.get_max_active_blocks_per_multiprocessor(0, 0)', err('INVALID_ARGUMENT'), GPU,
     setup=_F)
case('kernel/occupancy-block-2-31', 'f.get_max_active_blocks_per_multiprocessor(2**31, 0)', err('INVALID_ARGUMENT'),
     GPU, setup=_F)
case('kernel/max-dynamic-shared-2-31', 'f.set_max_dynamic_shared_size(2**31)', err('INVALID_ARGUMENT'), GPU,
     setup=_F)
case('kernel/attribute-not-an-attribute', 'f.get_attribute(999)', raises('TypeError'), GPU, setup=_F)
case('kernel/attribute-python-name', 'f.no_such_attribute', raises('AttributeError'), GPU, setup=_F)
case('kernel/cache-config-not-a-config', 'f.set_cache_config(9)', raises('TypeError'), GPU, setup=_F)
case('kernel/param-size-out-of-range', 'assert f.get_param_size(3) == 0',
     accepted('gcuda_function_get_param_size() documents 0 past the last parameter'), GPU, setup=_F)

# ---------------------------------------------------------------- argument handlers (checked when made)

case('kernel/out-read-only-array', 'a = np.zeros(8, np.float32); a.flags.writeable = False; cuda.Out(a)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('kernel/out-strided-array', 'cuda.Out(np.zeros(16, np.float32)[::2])', err('INVALID_ARGUMENT'), NODRIVER)
case('kernel/inout-bytes', "cuda.InOut(b'12345678')", err('INVALID_ARGUMENT'), NODRIVER)
case('kernel/in-list', 'cuda.In([1.0, 2.0])', raises('TypeError'), NODRIVER)
case('kernel/in-objects', 'cuda.In(np.array([None, None]))', raises('TypeError'), NODRIVER)
