# Objects made by hand (GCuda.X() or GObject.new(): PyGObject lets Python make
# any GCuda class without its constructor, so with no CUDA object behind
# it): every call that can fail must say GCuda.Error.INVALID_ARGUMENT, as
# GCuda's "Expected a GCuda.X made by its constructor" checks do, and never
# crash. Also graphs, linkers and the profiler with bad input.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import GPU, MEMORY, NODRIVER, accepted, case, drv, err, gerror, nvrtc, raises

# Every method of a class made by hand that needs its CUDA object (see
# tests/c/test-by-hand.c for all of them from C); objects given by hand as
# arguments are in the areas' own files (streams, buffers, textures).
_BY_HAND = [
    ('Graph', 'get_node_count()'),
    ('Graph', 'instantiate()'),
    ('Graph', "write_dot('/nonexistent/graph.dot')"),
    ('GraphExec', 'launch(None)'),
    ('GraphExec', 'update(GObject.new(GCuda.Graph))'),
    ('Linker', "add_data(GCuda.LinkInputType.PTX, GLib.Bytes.new(b'.version 8.0\\0'), None)"),
    ('Linker', "add_file(GCuda.LinkInputType.PTX, '/etc/passwd')"),
    ('Linker', "add_source(None, '__global__ void k() {}')"),
    ('Linker', "add_library('cudadevrt')"),
    ('Linker', 'add_program(GObject.new(GCuda.Program))'),
    ('Linker', 'complete()'),
    ('Function', 'get_attribute(GCuda.FunctionAttribute.NUM_REGS)'),
    ('Function', 'set_attribute(GCuda.FunctionAttribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024)'),
    ('Function', 'set_cache_config(GCuda.CacheConfig.L1)'),
    ('Function', 'set_max_dynamic_shared_size(1024)'),
    ('Function', 'get_max_active_blocks_per_multiprocessor(32, 0)'),
    ('Function', 'get_potential_block_size(0, 0)'),
    ('Function', 'launch(1, 1, 1, 1, 1, 1, 0, None, None)'),
    ('Function', "launch_packed(1, 1, 1, 1, 1, 1, 0, None, b'')"),
    ('Function', 'launch_timed(1, 1, 1, 1, 1, 1, 0, None, None)'),
    ('Function', 'launch_with_config(GCuda.LaunchConfig.new(), None)'),
    ('Module', "get_function('k')"),
    ('Module', "get_global('g')"),
    ('Array', 'download(0, 1)'),
    ('Array', 'copy_from_buffer(0, buf(64), 0, 1)'),
    ('StreamPool', 'trim(0)'),
    ('StreamPool', 'get_used_bytes_current()'),
    ('Stream', 'begin_capture(GCuda.CaptureMode.GLOBAL)'),
    ('Stream', 'end_capture()'),
    ('Stream', 'get_capture_status()'),
    ('Stream', 'is_done()'),
    ('Event', 'record(None)'),
    ('Event', 'ipc_handle()'),
    ('Context', 'get_limit(GCuda.Limit.STACK_SIZE)'),
    ('Context', 'get_address_range(0x1000)'),
    ('Device', 'get_attributes()'),
]
for cls, call in _BY_HAND:
    name = 'by-hand/%s-%s' % (cls.lower(), call.split('(')[0].replace('_', '-'))
    envs = MEMORY if 'buf(' in call else NODRIVER
    case(name, 'GObject.new(GCuda.%s).%s' % (cls, call), err('INVALID_ARGUMENT'), envs)
case('by-hand/program-get-lowered-name', "assert GObject.new(GCuda.Program).get_lowered_name('k<int>') is None",
     accepted('gcuda_program_get_lowered_name() documents NULL for an expression the compile was not given'),
     NODRIVER)
case('by-hand/program-is-empty', "p = GObject.new(GCuda.Program)\n"
     "assert p.get_image().get_size() == 0 and p.get_log() == '' and p.get_arch() == ''",
     accepted('a program made by hand holds no code: an empty image, log and architecture (documented)'),
     NODRIVER)
case('by-hand/program-load', 'GCuda.Module.new_from_program(None, GObject.new(GCuda.Program))',
     err('INVALID_ARGUMENT'), NODRIVER)
case('by-hand/linker-logs-empty', "l = GObject.new(GCuda.Linker); assert l.get_info_log() == l.get_error_log() == ''",
     accepted('a linker made by hand has empty logs, not None'), NODRIVER)
case('by-hand/module-logs-empty', "m = GObject.new(GCuda.Module); assert m.get_info_log() == m.get_error_log() == ''",
     accepted('a module made by hand has empty logs, not None'), NODRIVER)
case('by-hand/texture-get-array', 'assert GObject.new(GCuda.Texture).get_array() is None',
     accepted('a getter without an error: a texture made by hand has no array'), NODRIVER)
case('by-hand/array-free', 'GObject.new(GCuda.Array).free()', err('INVALID_ARGUMENT'), NODRIVER)
case('by-hand/function-call', 'GObject.new(GCuda.Function)(np.int32(1), block=(1, 1, 1))', err('INVALID_ARGUMENT'),
     NODRIVER)
case('by-hand/function-prepare', "GObject.new(GCuda.Function).prepare('i')", err('INVALID_ARGUMENT'), NODRIVER)
case('by-hand/function-attribute', 'GObject.new(GCuda.Function).num_regs', err('INVALID_ARGUMENT'), NODRIVER)
case('by-hand/context-repr', "assert 'without' in repr(GObject.new(GCuda.Context))",
     accepted('repr() of a context made by hand says it has no CUDA context, without raising'), NODRIVER)
case('by-hand/pycuda-style-construction', 'GCuda.Graph().get_node_count()', err('INVALID_ARGUMENT'), NODRIVER)
case('by-hand/compiler-context', "c = GCuda.Compiler.new(GObject.new(GCuda.Context)); c.set_cache_dir('')\n"
     "c.compile('__global__ void k() {}')", err('INVALID_ARGUMENT'), NODRIVER)
case('by-hand/graph-exec-update-with-graph-by-hand', 'e.update(GObject.new(GCuda.Graph))', err('INVALID_ARGUMENT'),
     GPU, setup='b = buf(64); s = stream(); s.begin_capture(GCuda.CaptureMode.GLOBAL); GCuda.memset_d8_async(b, 0, 8, s)\n'
                'e = s.end_capture().instantiate()')
case('by-hand/graph-launch-on-stream-by-hand', 'e.launch(GObject.new(GCuda.Stream))', err('INVALID_ARGUMENT'), GPU,
     setup='b = buf(64); s = stream(); s.begin_capture(GCuda.CaptureMode.GLOBAL); GCuda.memset_d8_async(b, 0, 8, s)\n'
           'e = s.end_capture().instantiate()')

# ---------------------------------------------------------------- linkers (a context is needed)

case('linker/garbage-data', "GCuda.Linker.new(None, None).add_data(GCuda.LinkInputType.AUTO, GLib.Bytes.new(b'junk'), "
     "'junk.bin')", err('INVALID_ARGUMENT'), GPU)
case('linker/empty-data', "GCuda.Linker.new(None, None).add_data(GCuda.LinkInputType.PTX, GLib.Bytes.new(b''), None)",
     err('INVALID_ARGUMENT'), GPU)
case('linker/missing-file', "GCuda.Linker.new(None, None).add_file(GCuda.LinkInputType.AUTO, '/nonexistent/x.ptx')",
     gerror('g-file-error-quark', 4), GPU)
case('linker/library-path', "GCuda.Linker.new(None, None).add_library('../lib/cudadevrt')", err('INVALID_ARGUMENT'),
     GPU)
case('linker/library-missing', "GCuda.Linker.new(None, None).add_library('no_such_gcuda_library')",
     gerror('g-file-error-quark', 4), GPU)
case('linker/complete-nothing', 'GCuda.Linker.new(None, None).complete()', err('INVALID_ARGUMENT'), GPU)
case('linker/complete-twice', 'l.complete()', err('INVALID_ARGUMENT'), GPU,
     setup='l = GCuda.Linker.new(None, None); l.add_data(GCuda.LinkInputType.PTX, GLib.Bytes.new(ptx()), None)\n'
           'l.complete()')
case('linker/dynamic-module-not-linked', "compiler.DynamicModule().get_function('k')", err('INVALID_ARGUMENT'), GPU)
case('linker/dynamic-module-compile-error', "compiler.DynamicModule().add_source('__global__ void k( {')",
     nvrtc('COMPILATION'), GPU)
case('linker/destroyed-context', 'GCuda.Linker.new(destroyed_ctx(), None)', err('CONTEXT_DESTROYED'), MEMORY)

# ---------------------------------------------------------------- graphs and captures

case('graph/update-with-other-context-graph', 'e.update(g2)', err('CONTEXT_MISMATCH'), GPU,
     # allocations first: cuMemAlloc is refused while a global capture runs
     setup='b = buf(64); s = stream(); s.begin_capture(GCuda.CaptureMode.GLOBAL); GCuda.memset_d8_async(b, 0, 8, s)\n'
           'e = s.end_capture().instantiate()\n'
           's2 = GCuda.Stream(context=new_ctx()); b2 = buf(64, s2.get_context())\n'
           's2.begin_capture(GCuda.CaptureMode.GLOBAL); GCuda.memset_d8_async(b2, 0, 8, s2); g2 = s2.end_capture()')
case('graph/launch-on-other-context-stream', 'e.launch(GCuda.Stream(context=new_ctx()))', err('CONTEXT_MISMATCH'), GPU,
     setup='b = buf(64); s = stream(); s.begin_capture(GCuda.CaptureMode.GLOBAL); GCuda.memset_d8_async(b, 0, 8, s)\n'
           'e = s.end_capture().instantiate()')
case('graph/write-dot-no-file-name', "g.write_dot('')", err('INVALID_ARGUMENT'), GPU,
     setup='b = buf(64); s = stream(); s.begin_capture(GCuda.CaptureMode.GLOBAL); GCuda.memset_d8_async(b, 0, 8, s)\n'
           'g = s.end_capture()')
case('graph/sync-copy-during-global-capture', 'GCuda.memcpy_htod(buf(64), np.zeros(8, np.uint8))',
     drv('STREAM_CAPTURE_UNSUPPORTED'), GPU, setup='s = stream(); s.begin_capture(GCuda.CaptureMode.GLOBAL)')
case('graph/capture-mode-not-a-mode', 'stream().begin_capture(7)', raises('TypeError'), GPU)

# ---------------------------------------------------------------- profiler, versions, init

case('misc/profiler-destroyed-context', 'GCuda.start_profiler(destroyed_ctx())', err('CONTEXT_DESTROYED'), MEMORY)
case('misc/init-flags', 'cuda.init(1)', err('INVALID_ARGUMENT'), NODRIVER)
case('misc/driver-error-name-unknown', "assert GCuda.DriverError.get_name(123456) in (None, '')",
     accepted('an unknown CUresult has no name: None, not an exception'), NODRIVER)
case('misc/error-category-foreign', "assert GCuda.error_category(GLib.Error('x', 'other-domain', 1)) == "
     'GCuda.ErrorCategory.NONE', accepted('a foreign GError has no GCuda category: NONE'), NODRIVER)

# ---------------------------------------------------------------- asynchronous forms: errors arrive at finish

_GIO = ('loop = GLib.MainLoop(); errors = []\n'
        'def done(obj, res, *unused):\n'
        '    try:\n'
        '        {finish}\n'
        '    except Exception as e:\n'
        '        errors.append(e)\n'
        '    loop.quit()\n')
_RAISE = '\nloop.run()\nraise errors[0] if errors else AssertionError("no error")'
case('async/download-past-end', 'buf(64).download_async(60, 8, None, None, done)' + _RAISE, err('OUT_OF_BOUNDS'),
     MEMORY, setup=_GIO.format(finish='obj.download_finish(res)'))
case('async/upload-freed', "freed_buf().upload_async(0, b'12345678', None, None, done)" + _RAISE, err('FREED'),
     MEMORY, setup=_GIO.format(finish='obj.upload_finish(res)'))
case('async/await-download-past-end', 'import asyncio\nasyncio.run(buf(64).download_async(60, 8))',
     err('OUT_OF_BOUNDS'), MEMORY)
case('async/await-context-synchronize-destroyed', 'import asyncio\nasyncio.run(destroyed_ctx().synchronize_async())',
     err('CONTEXT_DESTROYED'), MEMORY)
case('async/compile-error', "c = GCuda.Compiler.new(None); c.set_arch(ARCH); c.set_cache_dir('')\n"
     "c.compile_async('__global__ void k( {', None, done)" + _RAISE, nvrtc('COMPILATION'), NODRIVER,
     setup=_GIO.format(finish='obj.compile_finish(res)'))
case('async/source-module-compile-error', "GCuda.Module.new_from_source_async(None, '__global__ void k( {', None, None, "
     'done)' + _RAISE, nvrtc('COMPILATION'), MEMORY, setup=_GIO.format(finish='GCuda.Module.new_from_source_finish(res)'))
case('async/stream-synchronize-by-hand', 'GObject.new(GCuda.Stream).synchronize_async(None, done)' + _RAISE,
     err('INVALID_ARGUMENT'), NODRIVER, setup=_GIO.format(finish='obj.synchronize_finish(res)'))
case('async/event-synchronize-by-hand', 'import asyncio\nasyncio.run(GObject.new(GCuda.Event).synchronize_async())',
     err('INVALID_ARGUMENT'), NODRIVER)
case('async/context-synchronize-by-hand', 'GObject.new(GCuda.Context).synchronize_async(None, done)' + _RAISE,
     err('INVALID_ARGUMENT'), NODRIVER, setup=_GIO.format(finish='obj.synchronize_finish(res)'))
