#!/usr/bin/env python3
# bench_pool.py: allocate+free pairs from Python, GCuda's pool beside CuPy's
#
# The Python counterpart of bench-pool.c: µs per pair, best and median of 7
# rounds of 20 000 pairs (after a warm-up round), for 4 KiB, 1 MiB and 64 MiB.
#
#   --gcuda  (a Python with PyGObject): GCuda.DeviceMemoryPool().allocate(n)
#            then dropping the buffer, and the same with buf.free(); and
#            GCuda.PageLockedMemoryPool().allocate(n, uint8) then dropping it.
#   --raw    (e.g. python3.12 with CuPy): cupy.cuda.MemoryPool().malloc(n)
#            then dropping it, and cupy.cuda.PinnedMemoryPool likewise.
#
# It asserts nothing. Exit status 77: nothing could be measured (no GPU, or
# the mode's modules missing).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import statistics
import sys
import time

SKIP = 77
SIZES = [4096, 1 << 20, 64 << 20]


def measure(pair, rounds, pairs):
    for _ in range(max(pairs // 10, 1)):
        pair()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(pairs):
            pair()
        times.append((time.perf_counter() - start) / pairs * 1e6)
    return min(times), statistics.median(times)


def gcuda_paths(size):
    import gi
    gi.require_version('GCuda', '1.0')
    from gi.repository import GCuda
    import numpy as np

    pool = GCuda.DeviceMemoryPool()
    host_pool = GCuda.PageLockedMemoryPool()
    allocate = pool.allocate
    allocate(size)  # raises without a driver or device (the pools are lazy)

    def unref():
        allocate(size)

    def free():
        allocate(size).free()

    def pinned():
        host_pool.allocate(size, np.uint8)

    return [('GCuda DeviceMemoryPool allocate + drop', unref),
            ('GCuda DeviceMemoryPool allocate + free()', free),
            ('GCuda PageLockedMemoryPool allocate + drop', pinned)]


def raw_paths(size):
    import cupy
    pool = cupy.cuda.MemoryPool()
    pinned_pool = cupy.cuda.PinnedMemoryPool()
    malloc = pool.malloc
    pinned_malloc = pinned_pool.malloc

    def device():
        malloc(size)

    def pinned():
        pinned_malloc(size)

    return [('CuPy MemoryPool malloc + drop', device),
            ('CuPy PinnedMemoryPool malloc + drop', pinned)]


def main(argv=None):
    parser = argparse.ArgumentParser(description='allocate+free pairs through memory pools')
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument('--gcuda', dest='mode', action='store_const', const='--gcuda')
    mode.add_argument('--raw', dest='mode', action='store_const', const='--raw')
    parser.add_argument('--pairs', type=int, default=20000)
    parser.add_argument('--rounds', type=int, default=7)
    args = parser.parse_args(argv)
    make = gcuda_paths if args.mode == '--gcuda' else raw_paths
    try:
        paths = {size: make(size) for size in SIZES}
    except Exception as e:  # no module, no driver, no device
        print('bench_pool.py %s: %s' % (args.mode, e), file=sys.stderr)
        return SKIP
    print('# allocate+free pairs from Python (%s), µs per pair (best / median of %d rounds of %d)'
          % (args.mode, args.rounds, args.pairs))
    for size in SIZES:
        print('\n## %d bytes' % size)
        for name, pair in paths[size]:
            try:
                best, median = measure(pair, args.rounds, args.pairs)
            except Exception as e:
                print('%-46s failed: %s' % (name, e))
                continue
            print('%-46s %10.3f %10.3f' % (name, best, median))
    return 0


if __name__ == '__main__':
    sys.exit(main())
