# Objects made by hand (GCuda.X() or GObject.new(): PyGObject lets Python make
# any GCuda class without its constructor, so with no CUDA object behind
# it): every call that can fail must say GCuda.Error.INVALID_ARGUMENT, as
# GCuda's "Expected a GCudaX made by gcuda_x_new()" checks do, and never
# crash. Also graphs, linkers and the profiler with bad input.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import GPU, MEMORY, NODRIVER, accepted, case, drv, err, gerror, nvrtc, raises

_BY_HAND_CRASH = ('defect: a {cls} made by hand (no CUDA object behind it) is not checked: {call} '
                  'dereferences its missing handle or context ({what}) instead of INVALID_ARGUMENT')

_BY_HAND = [
    # (class, call, seen when a defect, else None)
    ('Graph', 'get_node_count()', 'crash (SIGSEGV)'),
    ('Graph', 'instantiate()', 'crash (SIGSEGV)'),
    ('Graph', "write_dot('/nonexistent/graph.dot')", 'crash (SIGSEGV)'),
    ('GraphExec', 'launch(None)', 'crash (SIGSEGV)'),
    ('GraphExec', 'update(GObject.new(GCuda.Graph))', 'crash (SIGSEGV)'),
    ('Linker', "add_data(GCuda.LinkInputType.PTX, GLib.Bytes.new(b'.version 8.0\\0'), None)", 'crash (SIGSEGV)'),
    ('Linker', "add_file(GCuda.LinkInputType.PTX, '/etc/passwd')", 'crash (SIGSEGV)'),
    ('Linker', 'add_program(GObject.new(GCuda.Program))', None),
    ('Linker', 'complete()', None),
    ('Function', 'get_attribute(GCuda.FunctionAttribute.NUM_REGS)', 'crash (SIGSEGV)'),
    ('Function', 'set_cache_config(GCuda.CacheConfig.L1)', 'crash (SIGSEGV)'),
    ('Function', 'set_max_dynamic_shared_size(1024)', 'crash (SIGSEGV)'),
    ('Function', 'get_max_active_blocks_per_multiprocessor(32, 0)', 'crash (SIGSEGV)'),
    ('Function', 'get_potential_block_size(0, 0)', 'crash (SIGSEGV)'),
    ('Function', 'launch(1, 1, 1, 1, 1, 1, 0, None, None)', None),
    ('Function', "launch_packed(1, 1, 1, 1, 1, 1, 0, None, b'')", None),
    ('Module', "get_function('k')", None),
    ('Array', 'download()', None),
    ('Array', 'copy_from_buffer(buf(64), 0)', None),
    ('StreamPool', 'trim(0)', None),
    ('StreamPool', 'get_used_bytes_current()', None),
    ('Stream', 'begin_capture(GCuda.CaptureMode.GLOBAL)', None),
    ('Stream', 'get_capture_status()', None),
    ('Stream', 'is_done()', None),
    ('Event', 'record(None)', None),
    ('Event', 'ipc_handle()', None),
    ('Context', 'get_limit(GCuda.Limit.STACK_SIZE)', None),
    ('Context', 'get_address_range(0x1000)', None),
    ('Device', 'get_attributes()', None),
]
_SEEN_WHAT = {'crash (SIGSEGV)': 'a segmentation fault', 'critical': 'a g_return_val_if_fail critical'}
for cls, call, seen in _BY_HAND:
    name = 'by-hand/%s-%s' % (cls.lower(), call.split('(')[0].replace('_', '-'))
    code = 'GObject.new(GCuda.%s).%s' % (cls, call)
    envs = MEMORY if 'buf(' in call else NODRIVER
    if seen is None:
        case(name, code, err('INVALID_ARGUMENT'), envs)
    else:
        case(name, code, err('INVALID_ARGUMENT'), envs, seen=seen,
             defect=_BY_HAND_CRASH.format(cls='GCuda.' + cls, call=call.split('(')[0] + '()',
                                          what=_SEEN_WHAT[seen]))
case('by-hand/program-get-lowered-name', "assert GObject.new(GCuda.Program).get_lowered_name('k<int>') is None",
     accepted('gcuda_program_get_lowered_name() documents NULL for an expression the compile was not given'),
     NODRIVER, seen='critical',
     defect='defect: a GCuda.Program made by hand has no table of lowered names: get_lowered_name() is a '
            'g_hash_table_lookup(NULL) critical (an abort under fatal-criticals) instead of None')
case('by-hand/texture-get-array', 'assert GObject.new(GCuda.Texture).get_array() is None',
     accepted('a getter without an error: a texture made by hand has no array'), NODRIVER)
case('by-hand/array-free', 'GObject.new(GCuda.Array).free(); assert GObject.new(GCuda.Array).is_freed() is False',
     accepted('gcuda_array_free() has no error to report; freeing nothing is a no-op'), NODRIVER)
case('by-hand/pycuda-style-construction', 'GCuda.Graph().get_node_count()', err('INVALID_ARGUMENT'), NODRIVER,
     seen='crash (SIGSEGV)',
     defect=_BY_HAND_CRASH.format(cls='GCuda.Graph', call='get_node_count()', what='a segmentation fault'))

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
case('async/source-module-compile-error', "GCuda.source_module_new_async(None, '__global__ void k( {', None, None, "
     'done)' + _RAISE, nvrtc('COMPILATION'), MEMORY, setup=_GIO.format(finish='GCuda.source_module_new_finish(res)'))
case('async/stream-synchronize-by-hand', 'GObject.new(GCuda.Stream).synchronize_async(None, done)' + _RAISE,
     err('INVALID_ARGUMENT'), NODRIVER, setup=_GIO.format(finish='obj.synchronize_finish(res)'))
case('async/event-wait-by-hand', 'import asyncio\nasyncio.run(GObject.new(GCuda.Event).wait_async())',
     err('INVALID_ARGUMENT'), NODRIVER)
case('async/context-synchronize-by-hand', 'GObject.new(GCuda.Context).synchronize_async(None, done)' + _RAISE,
     err('INVALID_ARGUMENT'), NODRIVER, setup=_GIO.format(finish='obj.synchronize_finish(res)'))
