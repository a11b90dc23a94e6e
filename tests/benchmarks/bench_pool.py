#!/usr/bin/env python3
# bench_pool.py: allocate+free pairs from Python, GCuda's pool beside CuPy's
#
# The Python counterpart of bench-pool.c: µs per pair, best and median of 7
# rounds of 20 000 pairs (after a warm-up round), for 4 KiB, 1 MiB and 64 MiB.
# Each path runs its pairs in a loop of its own (no call per pair around it);
# the paths of a size take turns, one round each.
#
#   --gcuda  (a Python with PyGObject): GCuda.DeviceMemoryPool().allocate(n)
#            (PyCUDA's PooledDeviceAllocation: a block by address) then
#            dropping it, and with .free(); GCuda.MemoryPool().allocate(n)
#            (a GCuda.Buffer) then dropping it, through the override's fast
#            path (the _gcuda_launch extension, built with PyGObject's C API)
#            and forced through PyGObject;
#            GCuda.PageLockedMemoryPool().allocate(n, uint8) then dropping it;
#            GCuda.StreamPool's allocate(n, stream) then dropping the buffer
#            (freed on the stream; the stream synchronized every 1000 pairs,
#            as bench-pool.c does).
#   --raw    (e.g. python3.12 with CuPy): cupy.cuda.MemoryPool().malloc(n)
#            then dropping it; cupy.cuda.MemoryAsyncPool (stream-ordered, on
#            a stream of its own, synchronized every 1000 pairs);
#            cupy.cuda.PinnedMemoryPool().malloc(n) alone, and with
#            numpy.frombuffer() over it (a numpy array, as
#            PageLockedMemoryPool gives).
#
# `--json FILE` writes every round's µs per pair (the schema of
# tools/run-benchmarks, which puts the two modes' rows in one table): the
# device pools beside CuPy's MemoryPool, the page-locked pool beside CuPy's
# PinnedMemoryPool with a numpy array over each block (what
# PageLockedMemoryPool gives), the stream pool beside CuPy's
# MemoryAsyncPool. A path the override lacks, or one that fails, is a row
# marked not run. It asserts nothing. Exit status 77: nothing could be
# measured (no GPU, or the mode's modules missing).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import sys
import time

from benchutil import Report, stats  # next to this script

SKIP = 77
SIZES = [4096, 1 << 20, 64 << 20]
SYNC_EVERY = 1000  # pairs between synchronizes of the stream-ordered pools

# the rows' names in the --json report
DEVICE_FAST = 'GCuda DeviceMemoryPool allocate + drop'
DEVICE_FREE = 'GCuda DeviceMemoryPool allocate + free()'
BUFFER_FAST = 'GCuda MemoryPool allocate (Buffer) + drop'
BUFFER_PYGOBJECT = 'GCuda MemoryPool allocate (Buffer) + drop (PyGObject)'
PAGELOCKED = 'GCuda PageLockedMemoryPool allocate + drop'
STREAM_POOL = 'GCuda StreamPool allocate on a stream + drop'
CUPY_DEVICE = 'CuPy MemoryPool malloc + drop'
CUPY_PINNED = 'CuPy PinnedMemoryPool malloc + drop'
CUPY_PINNED_NUMPY = 'CuPy PinnedMemoryPool malloc + frombuffer'
CUPY_ASYNC = 'CuPy MemoryAsyncPool malloc on a stream + drop'
REFERENCES = {DEVICE_FAST: CUPY_DEVICE, DEVICE_FREE: CUPY_DEVICE, BUFFER_FAST: CUPY_DEVICE,
              BUFFER_PYGOBJECT: CUPY_DEVICE, PAGELOCKED: CUPY_PINNED_NUMPY, STREAM_POOL: CUPY_ASYNC}


def size_label(size):
    return '%d MiB' % (size >> 20) if size >= 1 << 20 else '%d KiB' % (size >> 10)


def measure(runs, rounds, pairs):
    """@runs: {name: run(n) making n pairs}; {name: µs per pair of each
    round, or the exception it raised}. The paths take turns round by round
    (after a warm-up round of each), so a slow spell of the host (another
    process on the core, a frequency change) falls on all of them rather
    than on every round of one."""
    times = {}
    for name, run in runs.items():
        try:
            run(max(pairs // 10, 1))
            times[name] = []
        except Exception as e:  # noqa: BLE001 - each library raises its own errors
            times[name] = e
    for _ in range(rounds):
        for name, run in runs.items():
            if isinstance(times[name], Exception):
                continue
            try:
                start = time.perf_counter()
                run(pairs)
                times[name].append((time.perf_counter() - start) / pairs * 1e6)
            except Exception as e:  # noqa: BLE001
                times[name] = e
    return times


def stream_ordered(pair, synchronize):
    """@pair() @n times, @synchronize() every SYNC_EVERY pairs and at the end."""
    def run(n):
        done = 0
        while done < n:
            batch = min(SYNC_EVERY, n - done)
            for _ in range(batch):
                pair()
            synchronize()
            done += batch
    return run


def gcuda_paths(size):
    """[(name, run(n) or the reason it cannot be measured, note)]; raises
    where nothing can be (no PyGObject, no GCuda, no GPU)."""
    import gi
    gi.require_version('GCuda', '1.0')
    from gi.repository import GCuda
    import numpy as np
    GCuda.Context.get_default()  # raises without a driver or device
    # the pools' fast-path probes: in the gcuda._override package, or in the
    # single-file override of earlier versions (a --python-path-variant)
    try:
        from gi.overrides import GCuda as impl
        if not hasattr(impl, '_pool_binding'):
            from gcuda._override import pools as impl
    except ImportError:
        impl = None
    u8 = np.uint8
    paths = []

    def add(name, make, note=None):
        """@make() returns run(n); what it raises is the reason."""
        try:
            paths.append((name, make(), note))
        except Exception as e:  # noqa: BLE001 - an override without the path, or a driver without it
            paths.append((name, '%s: %s' % (type(e).__name__, e), None))

    def flag(name):
        """Whether the override says its fast path for @name is there (None:
        the override does not say)."""
        fn = getattr(impl, name, None)
        return None if fn is None else fn() is not None

    def no_fast_path(have):
        return 'no fast path' if have is False else None

    def device_pool(free):
        pool = GCuda.DeviceMemoryPool()
        allocate = pool.allocate
        allocate(size)

        def unref(n):
            for _ in range(n):
                allocate(size)

        def freed(n):
            for _ in range(n):
                allocate(size).free()
        return freed if free else unref

    def buffer_pool(pygobject):
        pool = GCuda.MemoryPool()
        allocate = pool.allocate
        if pygobject:
            # the introspected call with the override's error wrapper: the
            # path before the extension's pool calls
            call = getattr(GCuda.MemoryPool.allocate, '__wrapped__', None)
            if call is None:
                raise RuntimeError('the override does not wrap MemoryPool.allocate')

            def allocate(size, call=call, pool=pool):
                return call(pool, size)
        allocate(size)

        def unref(n):
            for _ in range(n):
                allocate(size)
        return unref

    def pagelocked():
        host_allocate = GCuda.PageLockedMemoryPool().allocate
        host_allocate(size, u8)

        def pinned(n):
            for _ in range(n):
                host_allocate(size, u8)
        return pinned

    def stream_pool():
        pool = GCuda.StreamPool.new(None)
        stream = GCuda.Stream()
        stream_allocate = pool.allocate
        stream_allocate(size, stream)
        stream.synchronize()
        return stream_ordered(lambda: stream_allocate(size, stream), stream.synchronize)

    add(DEVICE_FAST, lambda: device_pool(False), no_fast_path(flag('_pool_address_calls')))
    add(DEVICE_FREE, lambda: device_pool(True))
    add(BUFFER_FAST, lambda: buffer_pool(False), no_fast_path(flag('_pool_binding')))
    add(BUFFER_PYGOBJECT, lambda: buffer_pool(True))
    add(PAGELOCKED, pagelocked)
    add(STREAM_POOL, stream_pool)
    return paths


def raw_paths(size):
    import cupy
    import numpy as np
    pool = cupy.cuda.MemoryPool()
    pinned_pool = cupy.cuda.PinnedMemoryPool()
    malloc = pool.malloc
    pinned_malloc = pinned_pool.malloc
    frombuffer, u8 = np.frombuffer, np.uint8
    malloc(size)

    def device(n):
        for _ in range(n):
            malloc(size)

    def pinned(n):
        for _ in range(n):
            pinned_malloc(size)

    def pinned_numpy(n):
        for _ in range(n):
            frombuffer(pinned_malloc(size), u8, size)

    paths = [(CUPY_DEVICE, device, None),
             (CUPY_PINNED, pinned, None),
             (CUPY_PINNED_NUMPY, pinned_numpy, None)]
    try:
        async_pool = cupy.cuda.MemoryAsyncPool()
        stream = cupy.cuda.Stream(non_blocking=False)
        async_malloc = async_pool.malloc

        def async_pair():
            async_malloc(size)

        def run_on_stream(n):
            with stream:  # MemoryAsyncPool allocates on the current stream
                stream_ordered(async_pair, stream.synchronize)(n)

        run_on_stream(1)
        paths.append((CUPY_ASYNC, run_on_stream, None))
    except Exception as e:  # no stream-ordered allocator on this device
        paths.append((CUPY_ASYNC, '%s: %s' % (type(e).__name__, e), None))
    return paths


def main(argv=None):
    parser = argparse.ArgumentParser(description='allocate+free pairs through memory pools')
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument('--gcuda', dest='mode', action='store_const', const='--gcuda')
    mode.add_argument('--raw', dest='mode', action='store_const', const='--raw')
    parser.add_argument('--pairs', type=int, default=20000)
    parser.add_argument('--rounds', type=int, default=7)
    parser.add_argument('--json', metavar='FILE', help='also write the figures as JSON (tools/run-benchmarks)')
    args = parser.parse_args(argv)
    if min(args.pairs, args.rounds) < 1:
        parser.error('--pairs and --rounds must be positive')
    make = gcuda_paths if args.mode == '--gcuda' else raw_paths
    try:
        paths = {size: make(size) for size in SIZES}
    except Exception as e:  # no module, no driver, no device
        print('bench_pool.py %s: %s' % (args.mode, e), file=sys.stderr)
        return SKIP
    print('# allocate+free pairs from Python (%s), µs per pair (best / median of %d rounds of %d)'
          % (args.mode, args.rounds, args.pairs))
    out = Report('pool-python-' + args.mode.lstrip('-'), 'pool-python',
                 'Allocate+free pairs, Python: GCuda\'s pools beside CuPy\'s', pairs=args.pairs, rounds=args.rounds)
    per_round = '%d pairs' % args.pairs
    for size in SIZES:
        print('\n## %d bytes' % size)
        measured = measure({name: run for name, run, _ in paths[size] if not isinstance(run, str)},
                           args.rounds, args.pairs)
        for name, run, note in paths[size]:
            role = 'gcuda' if name.startswith('GCuda') else 'peer'
            if isinstance(run, str):
                print('%-54s not run: %s' % (name, run))
                out.not_run(size_label(size), name, role, run)
                continue
            times = measured[name]
            if isinstance(times, Exception):
                print('%-54s failed: %s' % (name, times))
                out.not_run(size_label(size), name, role, 'failed: %s: %s' % (type(times).__name__, times))
                continue
            best, median, _ = stats(times)
            print('%-54s %10.3f %10.3f%s' % (name, best, median, ' (%s)' % note if note else ''))
            sys.stdout.flush()
            out.row(size_label(size), name, role, 'µs', times, reference=REFERENCES.get(name),
                    per_sample=per_round, note=note)
    out.write(args.json)
    return 0


if __name__ == '__main__':
    sys.exit(main())
