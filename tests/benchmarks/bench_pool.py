#!/usr/bin/env python3
# bench_pool.py: allocate+free pairs from Python, GCuda's pool beside CuPy's
#
# The Python counterpart of bench-pool.c: µs per pair, best and median of 7
# rounds of 20 000 pairs (after a warm-up round), for 4 KiB, 1 MiB and 64 MiB.
# Each path runs its pairs in a loop of its own (no call per pair around it).
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
# `--json FILE` writes the figures; `--merge FILE...` prints the figures of
# several runs as one table, with the targets. It asserts nothing.
# Exit status 77: nothing could be measured (no GPU, or the mode's modules
# missing).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import json
import statistics
import sys
import time

SKIP = 77
SIZES = [4096, 1 << 20, 64 << 20]
SYNC_EVERY = 1000  # pairs between synchronizes of the stream-ordered pools

DEVICE_FAST = 'GCuda DeviceMemoryPool allocate + drop'
BUFFER_FAST = 'GCuda MemoryPool allocate (Buffer) + drop'
BUFFER_PYGOBJECT = 'GCuda MemoryPool allocate (Buffer) + drop (PyGObject)'
PAGELOCKED = 'GCuda PageLockedMemoryPool allocate + drop'
CUPY_DEVICE = 'CuPy MemoryPool malloc + drop'
CUPY_PINNED_NUMPY = 'CuPy PinnedMemoryPool malloc + frombuffer'


def measure(run, rounds, pairs):
    """@run(n) makes n pairs; best and median µs per pair."""
    run(max(pairs // 10, 1))
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run(pairs)
        times.append((time.perf_counter() - start) / pairs * 1e6)
    return min(times), statistics.median(times)


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
    import gi
    gi.require_version('GCuda', '1.0')
    from gi.repository import GCuda
    from gcuda._override import pools as impl
    import numpy as np

    pool = GCuda.DeviceMemoryPool()
    buffer_pool = GCuda.MemoryPool()
    host_pool = GCuda.PageLockedMemoryPool()
    allocate = pool.allocate
    allocate(size)  # raises without a driver or device (the pools are lazy)
    allocate_buffer = buffer_pool.allocate
    fast = impl._pool_address_calls() is not None
    fast_buffer = impl._pool_binding() is not None
    # the introspected call with the override's error wrapper: the path
    # before the extension's pool calls
    pygobject = GCuda.MemoryPool.allocate.__wrapped__
    host_allocate = host_pool.allocate
    u8 = np.uint8

    def unref(n):
        for _ in range(n):
            allocate(size)

    def unref_buffer(n):
        for _ in range(n):
            allocate_buffer(size)

    def unref_pygobject(n):
        for _ in range(n):
            pygobject(buffer_pool, size)

    def free(n):
        for _ in range(n):
            allocate(size).free()

    def pinned(n):
        for _ in range(n):
            host_allocate(size, u8)

    paths = [(DEVICE_FAST + ('' if fast else ' (no fast path)'), unref),
             ('GCuda DeviceMemoryPool allocate + free()', free),
             (BUFFER_FAST + ('' if fast_buffer else ' (no fast path)'), unref_buffer),
             (BUFFER_PYGOBJECT, unref_pygobject),
             (PAGELOCKED, pinned)]
    try:
        stream_pool = GCuda.StreamPool.new(None)
        stream = GCuda.Stream()
        stream_allocate = stream_pool.allocate
        stream_allocate(size, stream)
        stream.synchronize()
        paths.append(('GCuda StreamPool allocate on a stream + drop',
                      stream_ordered(lambda: stream_allocate(size, stream), stream.synchronize)))
    except Exception as e:  # no stream-ordered allocator on this device
        print('# not measured: GCuda StreamPool: %s' % e)
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

    paths = [(CUPY_DEVICE, device),
             ('CuPy PinnedMemoryPool malloc + drop', pinned),
             (CUPY_PINNED_NUMPY, pinned_numpy)]
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
        paths.append(('CuPy MemoryAsyncPool malloc on a stream + drop', run_on_stream))
    except Exception as e:  # no stream-ordered allocator on this device
        print('# not measured: CuPy MemoryAsyncPool: %s' % e)
    return paths


def merge(files):
    """The figures of several --json runs, size by size, then the targets."""
    runs = []
    for fn in files:
        with open(fn) as f:
            runs.append(json.load(f))
    medians = {}
    for size in SIZES:
        print('\n## %d bytes' % size)
        for data in runs:
            for row in data['rows']:
                if row['size'] == size:
                    print('%-8s %-52s %10.3f %10.3f' % (data['mode'], row['path'], row['best_us'], row['median_us']))
                    medians[(size, row['path'].split(' (no fast path)')[0])] = row['median_us']
    print()
    for size in SIZES:
        # the target is the device pool's; the page-locked pool
        # (a numpy array over a GCuda.HostBuffer) is compared like with like
        for kind, ours, theirs in (('target', DEVICE_FAST, CUPY_DEVICE),
                                   ('compare', PAGELOCKED, CUPY_PINNED_NUMPY)):
            a, b = medians.get((size, ours)), medians.get((size, theirs))
            if a is not None and b is not None:
                print('%s %s <= %s, %d bytes (medians): %.3f vs %.3f µs: %s'
                      % (kind, ours, theirs, size, a, b,
                         ('met' if kind == 'target' else 'yes') if a <= b else
                         ('MISSED' if kind == 'target' else 'no, %.1fx' % (a / b))))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description='allocate+free pairs through memory pools')
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument('--gcuda', dest='mode', action='store_const', const='--gcuda')
    mode.add_argument('--raw', dest='mode', action='store_const', const='--raw')
    mode.add_argument('--merge', nargs='+', metavar='JSON', help='print the figures of --json runs as one table')
    parser.add_argument('--pairs', type=int, default=20000)
    parser.add_argument('--rounds', type=int, default=7)
    parser.add_argument('--json', metavar='FILE', help='also write the figures as JSON')
    args = parser.parse_args(argv)
    if args.merge:
        return merge(args.merge)
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
    rows = []
    for size in SIZES:
        print('\n## %d bytes' % size)
        for name, run in paths[size]:
            try:
                best, median = measure(run, args.rounds, args.pairs)
            except Exception as e:
                print('%-52s failed: %s' % (name, e))
                continue
            print('%-52s %10.3f %10.3f' % (name, best, median))
            sys.stdout.flush()
            rows.append({'size': size, 'path': name, 'best_us': best, 'median_us': median})
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'mode': args.mode.lstrip('-'), 'pairs': args.pairs, 'rounds': args.rounds,
                       'rows': rows}, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
