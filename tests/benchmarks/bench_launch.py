#!/usr/bin/env python3
# bench_launch.py: host cost of a kernel launch from Python, GCuda beside
# the raw driver, cuda.core and CuPy
#
# The Python counterpart of bench-launch.c: µs per launch of an empty kernel
# with three arguments (float *a, float *b, int n), grid 1, block 1 (or
# --block), queued on one stream; a round is --launches launches of one path,
# the stream synchronized every --sync-every launches (so the launch queue
# never fills), and only the launch calls are timed (the clock is read
# around each batch, not around the synchronize): the host's cost per launch
# at steady state. The paths take turns (the order rotates every round)
# after a warm-up round each; best and median of --rounds rounds.
#
# Two modes, because the GPU host's Python with cuda.core and CuPy has no
# PyGObject, and the one with PyGObject has neither:
#
#   --gcuda  (a Python with PyGObject and numpy), GCuda's default context,
#            nothing made current by the caller (GCuda pushes its context):
#              f.prepared_call((1, 1), (1, 1, 1), a, b, n) after f.prepare("PPi")
#              f.prepared_async_call((1, 1), (1, 1, 1), stream, a, b, n)
#              f(a, b, numpy.int32(n), block=(1, 1, 1), grid=(1, 1))
#              f(..., stream=stream)
#              f.launch_packed(1, 1, 1, 1, 1, 1, 0, stream, packed) (introspected)
#            (a, b GCuda.Buffer), beside raw cuLaunchKernel through ctypes on
#            the same context (pushed once per round).
#   --raw    (the GPU host's python3.12): raw cuLaunchKernel through ctypes
#            and through cuda.bindings, cuda.core's launch(stream,
#            LaunchConfig(grid=1, block=1), kernel, a, b, numpy.int32(n)),
#            CuPy's RawKernel((1,), (1,), (a, b, numpy.int32(n))), whichever
#            are importable, on device 0's primary context.
#
# The raw ctypes path is the same in both modes (the kernel from the same
# PTX text, JIT-compiled by the driver): compare the modes through it.
# `--json FILE` writes every round's µs per launch (the schema of
# tools/run-benchmarks, which puts the two modes' rows in one table):
# prepared_call and prepared_async_call beside cuda.core's launch, __call__
# beside CuPy's RawKernel (each beside raw ctypes where the peer is not
# there), launch_packed beside raw ctypes; a path that cannot be made or
# fails is a row marked not run. __call__ is also printed beside
# prepared_call (stream= beside prepared_async_call, legacy beside legacy)
# with the ratio of their medians, a note of the report. It asserts
# nothing. Exit status 77:
# nothing could be measured (no GPU, no driver, or the mode's modules
# missing).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import ctypes
import struct
import sys
import time

from benchutil import RawDriver, Report, Skip, stats  # next to this script

SKIP = 77
N = 1000
GROUP = 'empty kernel, 3 arguments'

# the rows' names in the --json report, and what each GCuda row is compared
# with (the first one measured)
RAW_CTYPES = 'raw cuLaunchKernel (ctypes)'
RAW_CTYPES_LEGACY = 'raw cuLaunchKernel (ctypes, legacy stream)'
RAW_MODE = ', --raw Python'
RAW_BINDINGS = 'raw cuLaunchKernel (cuda.bindings)'
CUDA_CORE = 'cuda.core launch'
CUPY = 'CuPy RawKernel'
REFERENCES = {
    'GCuda prepared_call (legacy stream)': [CUDA_CORE, RAW_CTYPES_LEGACY],
    'GCuda prepared_async_call': [CUDA_CORE, RAW_CTYPES],
    'GCuda __call__ (legacy stream)': [CUPY, RAW_CTYPES_LEGACY],
    'GCuda __call__, stream=': [CUPY, RAW_CTYPES],
    'GCuda launch_packed (introspected)': [RAW_CTYPES],
}

SOURCE = '__global__ void empty(float *a, float *b, int n) {}\n'
SOURCE_EXTERN_C = 'extern "C" ' + SOURCE

# The same kernel as PTX, for the raw paths that load a module themselves
# (the driver JIT-compiles it for the device; no NVRTC needed).
PTX = b'''.version 6.3
.target sm_75
.address_size 64
.visible .entry empty(.param .u64 a, .param .u64 b, .param .u32 n)
{
\tret;
}
'''


class Path:
    """One way of launching: batch(count) queues @count launches; sync()
    waits for them; enter()/leave() run around a round (outside the timing)."""

    def __init__(self, name, batch, sync, enter=None, leave=None):
        self.name = name
        self.batch = batch
        self.sync = sync
        self.enter = enter or (lambda: None)
        self.leave = leave or (lambda: None)


# ------------------------------------------------------------------ raw driver through ctypes

def ctypes_path(drv, context, block, legacy=False, suffix=''):
    """Raw cuLaunchKernel through ctypes on @context (a CUcontext, int):
    its own module from PTX, stream (or the legacy NULL stream) and
    arguments. The context is pushed around each round, as an application
    using the driver keeps its own context current."""
    name = (RAW_CTYPES_LEGACY if legacy else RAW_CTYPES) + suffix
    ctx = ctypes.c_void_p(context)

    def enter():
        drv.cuCtxPushCurrent(ctx)

    def leave():
        popped = ctypes.c_void_p()
        drv.cuCtxPopCurrent(ctypes.byref(popped))

    module, function, stream = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    a, b = ctypes.c_uint64(), ctypes.c_uint64()
    enter()
    try:
        drv.cuModuleLoadData(ctypes.byref(module), PTX)
        drv.cuModuleGetFunction(ctypes.byref(function), module, b'empty')
        if not legacy:
            drv.cuStreamCreate(ctypes.byref(stream), 0)
        drv.cuMemAlloc(ctypes.byref(a), 4096)
        drv.cuMemAlloc(ctypes.byref(b), 4096)
    finally:
        leave()
    n = ctypes.c_int(N)
    params = (ctypes.c_void_p * 3)(ctypes.addressof(a), ctypes.addressof(b), ctypes.addressof(n))
    keep = (a, b, n)

    def batch(count, launch=drv.raw['cuLaunchKernel'], f=function, s=stream, p=params, bx=block):
        for _ in range(count):
            if launch(f, 1, 1, 1, bx, 1, 1, 0, s, p, None):
                raise RuntimeError('cuLaunchKernel failed')

    def sync():
        drv.cuStreamSynchronize(stream)

    path = Path(name, batch, sync, enter, leave)
    path.keep = keep
    return path


# ------------------------------------------------------------------ GCuda (PyGObject)

def gcuda_paths(block):
    try:
        import numpy as np
        import gi
        gi.require_version('GCuda', '1.0')
        from gi.repository import GCuda, GLib
    except (ImportError, ValueError) as e:
        raise Skip('--gcuda needs PyGObject, GCuda\'s typelib and numpy: %s' % e)

    try:
        context = GCuda.Context.get_default()
    except GLib.Error as e:
        raise Skip('no GPU: %s' % e.message)

    compiler = GCuda.Compiler.new(context)
    compiler.set_cache_dir('')
    try:
        program = compiler.compile(SOURCE)
    except GLib.Error as e:
        raise Skip('cannot compile the kernel: %s' % e.message)
    try:
        module = GCuda.Module.new_from_program(context, program)
        f = module.get_function('empty')
        stream = GCuda.Stream.new(context, GCuda.StreamFlags.DEFAULT, 0)
    except GLib.Error as e:
        raise Skip('cannot load the kernel or make a stream: %s' % e.message)
    a = GCuda.Buffer.new(context, 4096)
    b = GCuda.Buffer.new(context, 4096)
    n32 = np.int32(N)
    grid, blk = (1, 1), (block, 1, 1)
    notes = []  # (row name, why it is not measured)

    def sync():
        stream.synchronize()

    def legacy_sync():
        context.synchronize()

    drv = RawDriver()
    paths = []
    for legacy in (False, True):
        try:
            paths.append(ctypes_path(drv, context.get_handle(), block, legacy))
        except (Skip, RuntimeError) as e:
            notes.append((RAW_CTYPES_LEGACY if legacy else RAW_CTYPES, str(e)))

    try:
        if hasattr(f, 'prepare') and hasattr(f, 'prepared_call'):
            f.prepare('PPi')
            prepare_error = None
        else:
            prepare_error = 'the override has no Function.prepare'
    except Exception as e:  # noqa: BLE001 - whatever this override raises
        prepare_error = 'prepare: %s: %s' % (type(e).__name__, e)
    if prepare_error is None:
        def prepared(count, call=f.prepared_call, g=grid, bl=blk, n=N):
            for _ in range(count):
                call(g, bl, a, b, n)

        paths.append(Path('GCuda prepared_call (legacy stream)', prepared, legacy_sync))
        if hasattr(f, 'prepared_async_call'):
            def prepared_async(count, call=f.prepared_async_call, g=grid, bl=blk, s=stream, n=N):
                for _ in range(count):
                    call(g, bl, s, a, b, n)

            paths.append(Path('GCuda prepared_async_call', prepared_async, sync))
    else:
        notes.append(('GCuda prepared_call (legacy stream)', prepare_error))
        notes.append(('GCuda prepared_async_call', prepare_error))

    if callable(f):
        def called(count, fn=f, g=grid, bl=blk, n=n32):
            for _ in range(count):
                fn(a, b, n, block=bl, grid=g)

        def called_stream(count, fn=f, g=grid, bl=blk, n=n32, s=stream):
            for _ in range(count):
                fn(a, b, n, block=bl, grid=g, stream=s)

        paths.append(Path('GCuda __call__ (legacy stream)', called, legacy_sync))
        paths.append(Path('GCuda __call__, stream=', called_stream, sync))
    else:
        notes.append(('GCuda __call__ (legacy stream)', 'the override has no Function.__call__'))
        notes.append(('GCuda __call__, stream=', 'the override has no Function.__call__'))

    packed = struct.pack('=QQi', a.get_address(), b.get_address(), N)

    def introspected(count, launch=f.launch_packed, s=stream, p=packed, bx=block):
        for _ in range(count):
            launch(1, 1, 1, bx, 1, 1, 0, s, p)

    paths.append(Path('GCuda launch_packed (introspected)', introspected, sync))

    title = '%s (%s), GCuda context 0x%x, nothing current' % (
        context.get_device().get_name(), program.get_arch(), context.get_handle())
    keep = (context, module, f, stream, a, b, compiler, program)
    env = {'device': context.get_device().get_name(), 'arch': program.get_arch()}
    return title, paths, notes, keep, env


# ------------------------------------------------------------------ raw: ctypes, cuda.bindings, cuda.core, CuPy

def raw_paths(block):
    paths, notes, keep = [], [], []
    title = None

    try:
        import numpy  # noqa: F401
    except ImportError as e:
        raise Skip('--raw needs numpy: %s' % e)

    try:
        drv = RawDriver()
        drv.cuInit(0)
        dev = ctypes.c_int()
        drv.cuDeviceGet(ctypes.byref(dev), 0)
        ctx = ctypes.c_void_p()
        drv.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev.value)
        paths.append(ctypes_path(drv, ctx.value, block, suffix=RAW_MODE))
        paths.append(ctypes_path(drv, ctx.value, block, legacy=True, suffix=RAW_MODE))
        title = 'device 0, its primary context 0x%x' % ctx.value
    except (Skip, RuntimeError) as e:
        notes.append((RAW_CTYPES + RAW_MODE, str(e)))
        notes.append((RAW_CTYPES_LEGACY + RAW_MODE, str(e)))

    for label, make in ((RAW_BINDINGS, bindings_path), (CUDA_CORE, cuda_core_path), (CUPY, cupy_path)):
        try:
            path, extra = make(block)
            paths.append(path)
            keep.append(extra)
        except ImportError as e:
            notes.append((label, str(e)))
        except Exception as e:  # noqa: BLE001 - each library raises its own error classes
            notes.append((label, '%s: %s' % (type(e).__name__, e)))

    if not paths:
        raise Skip('nothing to measure: ' + '; '.join('%s: %s' % n for n in notes))
    return title or 'device 0', paths, notes, keep, {}


def bindings_path(block):
    try:
        from cuda.bindings import driver as cu
    except ImportError:
        from cuda import cuda as cu

    def check(result):
        if not isinstance(result, tuple):
            result = (result,)
        if int(result[0]) != 0:
            raise RuntimeError('CUresult %s' % (result[0],))
        return result[1] if len(result) == 2 else result[1:]

    check(cu.cuInit(0))
    dev = check(cu.cuDeviceGet(0))
    ctx = check(cu.cuDevicePrimaryCtxRetain(dev))
    check(cu.cuCtxPushCurrent(ctx))
    try:
        ptx = ctypes.create_string_buffer(PTX)
        module = check(cu.cuModuleLoadData(ctypes.addressof(ptx)))
        function = check(cu.cuModuleGetFunction(module, b'empty'))
        stream = check(cu.cuStreamCreate(0))
        a = ctypes.c_uint64(int(check(cu.cuMemAlloc(4096))))
        b = ctypes.c_uint64(int(check(cu.cuMemAlloc(4096))))
    finally:
        check(cu.cuCtxPopCurrent())
    n = ctypes.c_int(N)
    # kernelParams as the address of a void *[3], built once (the fastest
    # form cuda.bindings takes)
    params = (ctypes.c_void_p * 3)(ctypes.addressof(a), ctypes.addressof(b), ctypes.addressof(n))
    params_address = ctypes.addressof(params)

    def enter():
        check(cu.cuCtxPushCurrent(ctx))

    def leave():
        check(cu.cuCtxPopCurrent())

    def batch(count, launch=cu.cuLaunchKernel, f=function, s=stream, p=params_address, bx=block,
              ok=cu.CUresult.CUDA_SUCCESS):
        for _ in range(count):
            err, = launch(f, 1, 1, 1, bx, 1, 1, 0, s, p, 0)
            if err is not ok and err != ok:
                raise RuntimeError('cuLaunchKernel failed: %s' % err)

    def sync():
        check(cu.cuStreamSynchronize(stream))

    return Path(RAW_BINDINGS, batch, sync, enter, leave), (a, b, n, params, module)


def cuda_core_path(block):
    import numpy as np
    try:
        from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
    except ImportError:
        from cuda.core.experimental import Device, LaunchConfig, Program, ProgramOptions, launch

    dev = Device(0)
    dev.set_current()
    stream = dev.create_stream()
    cc = dev.compute_capability
    program = Program(SOURCE_EXTERN_C, code_type='c++',
                      options=ProgramOptions(arch='sm_%d%d' % (cc[0], cc[1])))
    kernel = program.compile('cubin').get_kernel('empty')
    a = dev.allocate(4096, stream=stream)
    b = dev.allocate(4096, stream=stream)
    n = np.int32(N)
    config = LaunchConfig(grid=1, block=block)
    stream.sync()

    def batch(count, s=stream, c=config, k=kernel):
        for _ in range(count):
            launch(s, c, k, a, b, n)

    def sync():
        stream.sync()

    return Path(CUDA_CORE, batch, sync), (dev, stream, kernel, a, b)


def cupy_path(block):
    import numpy as np
    import cupy

    kernel = cupy.RawKernel(SOURCE_EXTERN_C, 'empty')
    a = cupy.empty(1024, dtype=cupy.float32)
    b = cupy.empty(1024, dtype=cupy.float32)
    args = (a, b, np.int32(N))
    stream = cupy.cuda.Stream(non_blocking=False)
    grid, blk = (1,), (block,)
    with stream:
        kernel(grid, blk, args)  # compiles and loads
    stream.synchronize()

    def batch(count, k=kernel, g=grid, bl=blk, ar=args):
        with stream:
            for _ in range(count):
                k(g, bl, ar)

    def sync():
        stream.synchronize()

    return Path(CUPY, batch, sync), (kernel, a, b, stream)


# ------------------------------------------------------------------ measuring and printing

def round_us(path, launches, sync_every):
    """µs per launch of one round: the launch calls alone."""
    seconds = 0.0
    path.enter()
    try:
        done = 0
        while done < launches:
            count = min(sync_every, launches - done)
            t0 = time.perf_counter()
            path.batch(count)
            seconds += time.perf_counter() - t0
            path.sync()
            done += count
    finally:
        path.leave()
    return seconds / launches * 1e6


def measure(paths, launches, rounds, sync_every):
    """{name: [µs per launch of each round] or the reason it failed}: per
    round the paths take turns going first; a path that fails is dropped."""
    times = {p.name: [] for p in paths}

    def run(p, count):
        if isinstance(times[p.name], str):
            return None
        try:
            return round_us(p, count, sync_every)
        except Exception as e:  # noqa: BLE001 - each library raises its own error classes
            times[p.name] = '%s: %s' % (type(e).__name__, e)
            return None

    for p in paths:
        run(p, min(launches, 10000))  # warm-up
    for r in range(rounds):
        k = r % len(paths)
        for p in paths[k:] + paths[:k]:
            us = run(p, launches)
            if us is not None:
                times[p.name].append(us)
    return times


def role_of(name):
    if name.startswith('GCuda'):
        return 'gcuda'
    return 'reference' if name.startswith('raw cuLaunchKernel (ctypes') else 'peer'


# A plain call beside the prepared call it should cost about as much as
# (the aim: __call__ at most 1.25 times prepared_call, in the same run).
CALL_VS_PREPARED = [
    ('GCuda __call__, stream=', 'GCuda prepared_async_call'),
    ('GCuda __call__ (legacy stream)', 'GCuda prepared_call (legacy stream)'),
]


def call_vs_prepared(times):
    """Lines of __call__ beside prepared_call, median against median."""
    lines = []
    for call, prepared in CALL_VS_PREPARED:
        a, b = times.get(call), times.get(prepared)
        if not a or not b or isinstance(a, str) or isinstance(b, str):
            continue
        call_us, prepared_us = stats(a)[1], stats(b)[1]
        lines.append('%s %.3f µs vs %s %.3f µs: ratio %.3f' % (call, call_us, prepared, prepared_us,
                                                               call_us / prepared_us))
    return lines


def report(title, mode, times, args, notes, env):
    print('Launch overhead from Python (%s): empty(float *a, float *b, int n), grid 1, block %d, on one stream;\n'
          'µs per launch (the launch calls alone; the stream synchronized every %d launches, not counted),\n'
          'best and median of %d rounds of %d launches, the paths taking turns; %s'
          % (mode, args.block, args.sync_every, args.rounds, args.launches, title))
    print()
    print('%-48s %8s %8s %10s %8s' % ('path', 'best', 'median', '-1st med', 'med/1st'))
    out = Report('launch-python-' + ('gcuda' if mode.startswith('GCuda') else 'raw'), 'launch-python',
                 'Launch overhead, Python: GCuda through PyGObject beside raw ctypes, cuda.bindings, '
                 'cuda.core and CuPy', launches=args.launches, rounds=args.rounds, sync_every=args.sync_every,
                 block=args.block)
    out.env(**env)
    first = None
    per_round = '%d launches' % args.launches
    for name, values in times.items():
        role = role_of(name)
        if isinstance(values, str):
            print('%-48s not run: %s' % (name, values))
            out.not_run(GROUP, name, role, values)
            continue
        best, median, _ = stats(values)
        if first is None:
            first = median
            extra = ('', '')
        else:
            extra = ('%+10.3f' % (median - first), '%8.3f' % (median / first))
        print('%-48s %8.3f %8.3f %10s %8s' % ((name, best, median) + extra))
        out.row(GROUP, name, role, 'µs', values, reference=REFERENCES.get(name), per_sample=per_round)
    for name, reason in notes:
        print('%-48s not run: %s' % (name, reason))
        out.not_run(GROUP, name, role_of(name), reason)
    pairs = call_vs_prepared(times)
    if pairs:
        print()
    for line in pairs:
        print(line)
        out.note(line)
    sys.stdout.flush()
    out.write(args.json)


def main(argv=None):
    parser = argparse.ArgumentParser(description='µs per launch of an empty kernel from Python')
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--gcuda', action='store_true', help='GCuda through PyGObject, beside raw ctypes')
    mode.add_argument('--raw', action='store_true', help='raw ctypes, cuda.bindings, cuda.core and CuPy')
    parser.add_argument('--launches', type=int, default=100000, help='launches per round (default 100000)')
    parser.add_argument('--rounds', type=int, default=20, help='rounds (default 20)')
    parser.add_argument('--sync-every', type=int, default=1000, help='launches between synchronizes (default 1000)')
    parser.add_argument('--block', type=int, default=1, help='threads per block (default 1)')
    parser.add_argument('--json', metavar='FILE', help='also write the figures as JSON (tools/run-benchmarks)')
    args = parser.parse_args(argv)
    if min(args.launches, args.rounds, args.sync_every, args.block) < 1:
        parser.error('--launches, --rounds, --sync-every and --block must be positive')

    if not args.gcuda and not args.raw:
        try:
            import gi  # noqa: F401
            args.gcuda = True
        except ImportError:
            args.raw = True

    try:
        if args.gcuda:
            title, paths, notes, keep, env = gcuda_paths(args.block)
            mode_name = 'GCuda through PyGObject'
        else:
            title, paths, notes, keep, env = raw_paths(args.block)
            mode_name = 'raw'
    except Skip as e:
        print('bench_launch: %s' % e, file=sys.stderr)
        return SKIP

    times = measure(paths, args.launches, args.rounds, args.sync_every)
    report(title, mode_name, times, args, notes, env)
    del keep
    return 0


if __name__ == '__main__':
    sys.exit(main())
