#!/usr/bin/env python3
# bench_memcpy.py: copy bandwidth from Python, GCuda beside the raw driver
#
# The Python counterpart of bench-memcpy.c: HtoD and DtoH from and into
# page-locked and pageable numpy arrays, and DtoD, 256 MiB per copy, best and
# median of 10 (after 2 warm-up rounds), GB/s = 1e9 bytes/s, DtoD counting
# each byte read and written (2 x size).
#
# Two modes, because the GPU host's Python with CuPy and cuda.bindings has no
# PyGObject, and the one with PyGObject has neither:
#
#   --gcuda  (a Python with PyGObject and numpy): GCuda through the
#            introspected API: numpy arrays passed by address to
#            Buffer.upload_from_address() / download_to_address(), and
#            Buffer.copy_from(); page-locked arrays are numpy views (built
#            here with ctypes) of a GCuda.HostBuffer. Beside it, in the same
#            process and on the same memory, the raw driver through ctypes
#            (libcuda.so.1, GCuda's context pushed with cuCtxPushCurrent_v2).
#            If the override has PyCUDA's memcpy_htod/dtoh/dtod, they are
#            measured too.
#   --raw    (e.g. python3.12 with numpy and cuda.bindings and/or CuPy): the
#            raw driver through ctypes, through cuda.bindings (cuda-python)
#            and CuPy's runtime memcpy, whichever are importable.
#
# Both print the same table: one line per operation and path, with the
# ratio to the first path of that operation (the raw driver through
# ctypes). Compare the two modes' "raw ctypes" lines to relate them.
# `--json FILE` writes every repetition's GB/s (the schema of
# tools/run-benchmarks), GCuda's rows beside the raw driver through ctypes
# in the same process; a path that fails, or a driver without events (the
# GPU-time rows), is a row marked not run.
#
# Every copy is timed from the call until it is complete: GCuda's
# synchronous calls return then; the raw paths add a legacy-stream
# synchronize after HtoD and DtoD, as bench-memcpy.c does. DtoD is also
# timed on the GPU: events on the legacy stream around the stream-ordered
# form (Buffer.copy_from_on_stream(), cuMemcpyDtoDAsync), the context pushed
# for each call on both sides: the copy plus the latency of queuing it. It
# asserts nothing. Exit status 77:
# nothing could be measured (no GPU, no driver, or the mode's modules
# missing).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import ctypes
import sys
import time

from benchutil import RawDriver, Report, Skip, stats  # next to this script

SKIP = 77
CU_STREAM_LEGACY = 1
WARMUP = 2
OPS = ['HtoD pinned', 'DtoH pinned', 'HtoD pageable', 'DtoH pageable', 'DtoD (read+write)',
       'DtoD async, GPU time']
# an op that cannot be measured is its reason, a str, in place of the function
NO_EVENTS = 'the driver has no events'
# the rows' names in the --json report
RAW_CTYPES = 'raw libcuda (ctypes)'
RAW_CTYPES_RAW_MODE = 'raw libcuda (ctypes), --raw Python'
GCUDA_ADDRESS = 'GCuda address API'
GCUDA_PYCUDA = 'GCuda memcpy_* (PyCUDA names)'
RAW_BINDINGS = 'raw cuda.bindings'
CUPY_MEMCPY = 'CuPy runtime memcpy'


# ------------------------------------------------------------------ raw driver through ctypes

class RawPath:
    """Copies through RawDriver on @context (a CUcontext handle, int), which
    is pushed around each call as an application using the raw driver from
    one thread would keep it current."""

    def __init__(self, drv, context, name=RAW_CTYPES):
        self.drv = drv
        self.context = ctypes.c_void_p(context)
        self.name = name
        self.start = ctypes.c_void_p()
        self.stop = ctypes.c_void_p()
        # the GPU-time rows only
        self.events = drv.has('cuEventCreate', 'cuEventRecord', 'cuEventSynchronize', 'cuEventElapsedTime',
                              'cuMemcpyDtoDAsync')
        if self.events:
            with self:
                drv.cuEventCreate(ctypes.byref(self.start), 0)
                drv.cuEventCreate(ctypes.byref(self.stop), 0)

    def __enter__(self):
        self.drv.cuCtxPushCurrent(self.context)

    def __exit__(self, *exc):
        popped = ctypes.c_void_p()
        self.drv.cuCtxPopCurrent(ctypes.byref(popped))

    def legacy_sync(self):
        self.drv.cuStreamSynchronize(ctypes.c_void_p(CU_STREAM_LEGACY))

    def make_ops(self, mem):
        self.mem = mem  # the copies need it alive
        drv, n = self.drv, mem.size
        a, b = mem.dev_a_address, mem.dev_b_address
        pinned, pageable = mem.pinned_address, mem.pageable_address

        def htod(host):
            def op():
                with self:
                    t0 = time.perf_counter()
                    drv.cuMemcpyHtoD(a, host, n)
                    self.legacy_sync()
                    return time.perf_counter() - t0
            return op

        def dtoh(host):
            def op():
                with self:
                    t0 = time.perf_counter()
                    drv.cuMemcpyDtoH(host, a, n)
                    return time.perf_counter() - t0
            return op

        def dtod():
            with self:
                t0 = time.perf_counter()
                drv.cuMemcpyDtoD(b, a, n)
                self.legacy_sync()
                return time.perf_counter() - t0

        def dtod_events():
            # stream-ordered, the context pushed for each call (as GCuda's
            # side does): the copy plus the latency of queuing it
            ms = ctypes.c_float()
            with self:
                drv.cuEventRecord(self.start, None)
            with self:
                drv.cuMemcpyDtoDAsync(b, a, n, None)
            with self:
                drv.cuEventRecord(self.stop, None)
                drv.cuEventSynchronize(self.stop)
                drv.cuEventElapsedTime(ctypes.byref(ms), self.start, self.stop)
            return ms.value / 1e3

        return dict(zip(OPS, [htod(pinned), dtoh(pinned), htod(pageable), dtoh(pageable), dtod,
                              dtod_events if self.events else NO_EVENTS]))


def numpy_over(address, size):
    """A writable uint8 numpy array over @size bytes at @address (no copy);
    whoever owns the memory must outlive it."""
    import numpy as np
    return np.frombuffer((ctypes.c_uint8 * size).from_address(address), dtype=np.uint8)


class Memory:
    """What every path of one process copies between: two device buffers,
    page-locked and pageable host arrays, their addresses, touched once."""

    def __init__(self, size, dev_a_address, dev_b_address, pinned_address, keep):
        import numpy as np
        self.size = size
        self.dev_a_address = dev_a_address
        self.dev_b_address = dev_b_address
        self.pinned = numpy_over(pinned_address, size)
        self.pageable = np.empty(size, dtype=np.uint8)
        self.pinned[:] = 0xa5
        self.pageable[:] = 0x5a
        self.pinned_address = self.pinned.ctypes.data
        self.pageable_address = self.pageable.ctypes.data
        self.keep = keep  # the owners of the memory


# ------------------------------------------------------------------ GCuda (PyGObject)

def gcuda_paths(size):
    try:
        import numpy  # noqa: F401
        import gi
        gi.require_version('GCuda', '1.0')
        from gi.repository import GCuda, GLib
    except (ImportError, ValueError) as e:
        raise Skip('--gcuda needs PyGObject, GCuda\'s typelib and numpy: %s' % e)

    try:
        context = GCuda.Context.get_default()
    except GLib.Error as e:
        raise Skip('no GPU: %s' % e.message)
    dev_a = GCuda.Buffer.new(context, size)
    dev_b = GCuda.Buffer.new(context, size)
    host = GCuda.HostBuffer.new_pagelocked(context, size, GCuda.HostAllocFlags(0))
    mem = Memory(size, dev_a.get_address(), dev_b.get_address(), host.get_address(), (dev_a, dev_b, host))
    dev_a.memset_d8(0, 0x3c, size, None)
    dev_b.memset_d8(0, 0xc3, size, None)

    drv = RawDriver()
    raw = RawPath(drv, context.get_handle())
    device = context.get_device()
    title = '%s, GCuda context 0x%x' % (device.get_name(), context.get_handle())

    def gcuda_ops():
        n = size

        def htod(address):
            def op():
                t0 = time.perf_counter()
                dev_a.upload_from_address(0, address, n)
                return time.perf_counter() - t0
            return op

        def dtoh(address):
            def op():
                t0 = time.perf_counter()
                dev_a.download_to_address(0, address, n)
                return time.perf_counter() - t0
            return op

        def dtod():
            t0 = time.perf_counter()
            dev_b.copy_from(0, dev_a, 0, n)
            return time.perf_counter() - t0

        def dtod_events():
            # the raw path's events, recorded around GCuda's stream-ordered
            # copy on the legacy stream, as around the raw path's
            ms = ctypes.c_float()
            with raw:
                drv.cuEventRecord(raw.start, None)
            dev_b.copy_from_on_stream(0, dev_a, 0, n, None)
            with raw:
                drv.cuEventRecord(raw.stop, None)
                drv.cuEventSynchronize(raw.stop)
                drv.cuEventElapsedTime(ctypes.byref(ms), raw.start, raw.stop)
            return ms.value / 1e3

        return dict(zip(OPS, [htod(mem.pinned_address), dtoh(mem.pinned_address), htod(mem.pageable_address),
                              dtoh(mem.pageable_address), dtod, dtod_events if raw.events else NO_EVENTS]))

    paths = [(raw.name, raw.make_ops(mem)), (GCUDA_ADDRESS, gcuda_ops())]

    # PyCUDA's names in the override, where present: numpy arrays passed
    # whole (the override finds the address)
    if all(hasattr(GCuda, f) for f in ('memcpy_htod', 'memcpy_dtoh', 'memcpy_dtod')):
        def pycuda_ops():
            def htod(ary):
                def op():
                    t0 = time.perf_counter()
                    GCuda.memcpy_htod(dev_a, ary)
                    return time.perf_counter() - t0
                return op

            def dtoh(ary):
                def op():
                    t0 = time.perf_counter()
                    GCuda.memcpy_dtoh(ary, dev_a)
                    return time.perf_counter() - t0
                return op

            def dtod():
                t0 = time.perf_counter()
                GCuda.memcpy_dtod(dev_b, dev_a, size)
                return time.perf_counter() - t0

            return {OPS[0]: htod(mem.pinned), OPS[1]: dtoh(mem.pinned), OPS[2]: htod(mem.pageable),
                    OPS[3]: dtoh(mem.pageable), OPS[4]: dtod}

        paths.append((GCUDA_PYCUDA, pycuda_ops()))

    return title, paths, mem, device.get_name()


# ------------------------------------------------------------------ raw: ctypes, cuda.bindings, CuPy

def raw_paths(size):
    paths = []
    keep = []
    mem = None
    title = None
    reasons = []
    reasons_by_path = []  # (row name, why it was not measured)

    try:
        import numpy  # noqa: F401
    except ImportError as e:
        raise Skip('--raw needs numpy: %s' % e)

    # ctypes: its own retain of device 0's primary context
    try:
        drv = RawDriver()
        drv.cuInit(0)
        dev = ctypes.c_int()
        drv.cuDeviceGet(ctypes.byref(dev), 0)
        ctx = ctypes.c_void_p()
        drv.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev.value)
        raw = RawPath(drv, ctx.value, RAW_CTYPES_RAW_MODE)
        a, b, host = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_void_p()
        with raw:
            drv.cuMemAlloc(ctypes.byref(a), size)
            drv.cuMemAlloc(ctypes.byref(b), size)
            drv.cuMemHostAlloc(ctypes.byref(host), size, 0)
        mem = Memory(size, a.value, b.value, host.value, ())
        keep.append(mem)
        paths.append((raw.name, raw.make_ops(mem)))
        title = 'device 0, its primary context 0x%x' % ctx.value
    except (Skip, RuntimeError) as e:
        reasons.append('ctypes: %s' % e)
        reasons_by_path.append((RAW_CTYPES_RAW_MODE, str(e)))

    # cuda.bindings (cuda-python), on the same memory if ctypes had it
    try:
        try:
            from cuda.bindings import driver as cu
        except ImportError:
            from cuda import cuda as cu
        paths.append(bindings_path(cu, size, mem, keep))
    except (ImportError, RuntimeError) as e:
        reasons.append('cuda.bindings: %s' % e)
        reasons_by_path.append((RAW_BINDINGS, str(e)))

    # CuPy: runtime memcpy on its own allocations (same primary context)
    try:
        import cupy
        paths.append(cupy_path(cupy, size, keep))
    except Exception as e:  # noqa: BLE001 - CuPy raises its own CUDA error classes
        reasons.append('CuPy: %s' % e)
        reasons_by_path.append((CUPY_MEMCPY, '%s: %s' % (type(e).__name__, e)))

    if not paths:
        raise Skip('nothing to measure: ' + '; '.join(reasons))
    for r in reasons:
        print('# not measured: %s' % r)
    for name, reason in reasons_by_path:
        paths.append((name, {op: reason for op in OPS}))
    return title or 'device 0', paths, keep, None


def bindings_path(cu, size, mem, keep):
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
        if mem is None:
            a = int(check(cu.cuMemAlloc(size)))
            b = int(check(cu.cuMemAlloc(size)))
            host = int(check(cu.cuMemHostAlloc(size, 0)))
            mem = Memory(size, a, b, host, ())
            keep.append(mem)
        start = check(cu.cuEventCreate(0))
        stop = check(cu.cuEventCreate(0))
    finally:
        check(cu.cuCtxPopCurrent())
    legacy = cu.CUstream(CU_STREAM_LEGACY)
    n = size
    a, b = cu.CUdeviceptr(mem.dev_a_address), cu.CUdeviceptr(mem.dev_b_address)

    class Current:
        def __enter__(self):
            check(cu.cuCtxPushCurrent(ctx))

        def __exit__(self, *exc):
            check(cu.cuCtxPopCurrent())

    current = Current()

    def htod(host):
        def op():
            with current:
                t0 = time.perf_counter()
                check(cu.cuMemcpyHtoD(a, host, n))
                check(cu.cuStreamSynchronize(legacy))
                return time.perf_counter() - t0
        return op

    def dtoh(host):
        def op():
            with current:
                t0 = time.perf_counter()
                check(cu.cuMemcpyDtoH(host, a, n))
                return time.perf_counter() - t0
        return op

    def dtod():
        with current:
            t0 = time.perf_counter()
            check(cu.cuMemcpyDtoD(b, a, n))
            check(cu.cuStreamSynchronize(legacy))
            return time.perf_counter() - t0

    def dtod_events():
        with current:
            check(cu.cuEventRecord(start, 0))
        with current:
            check(cu.cuMemcpyDtoDAsync(b, a, n, 0))
        with current:
            check(cu.cuEventRecord(stop, 0))
            check(cu.cuEventSynchronize(stop))
            ms = check(cu.cuEventElapsedTime(start, stop))
        return ms / 1e3

    ops = dict(zip(OPS, [htod(mem.pinned_address), dtoh(mem.pinned_address), htod(mem.pageable_address),
                         dtoh(mem.pageable_address), dtod, dtod_events]))
    keep.append(mem)
    return (RAW_BINDINGS, ops)


def cupy_path(cupy, size, keep):
    import numpy as np
    import cupyx

    rt = cupy.cuda.runtime
    dev_a = cupy.empty(size, dtype=cupy.uint8)
    dev_b = cupy.empty(size, dtype=cupy.uint8)
    dev_a.fill(0x3c)
    dev_b.fill(0xc3)
    pinned = cupyx.empty_pinned((size,), dtype=np.uint8)
    pageable = np.empty(size, dtype=np.uint8)
    pinned[:] = 0xa5
    pageable[:] = 0x5a
    keep.append((dev_a, dev_b, pinned, pageable))
    a, b = dev_a.data.ptr, dev_b.data.ptr
    null = cupy.cuda.Stream.null
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    rt.deviceSynchronize()

    def htod(host):
        def op():
            t0 = time.perf_counter()
            rt.memcpy(a, host, size, rt.memcpyHostToDevice)
            null.synchronize()
            return time.perf_counter() - t0
        return op

    def dtoh(host):
        def op():
            t0 = time.perf_counter()
            rt.memcpy(host, a, size, rt.memcpyDeviceToHost)
            return time.perf_counter() - t0
        return op

    def dtod():
        t0 = time.perf_counter()
        rt.memcpy(b, a, size, rt.memcpyDeviceToDevice)
        null.synchronize()
        return time.perf_counter() - t0

    def dtod_events():
        start.record(null)
        rt.memcpyAsync(b, a, size, rt.memcpyDeviceToDevice, null.ptr)
        stop.record(null)
        stop.synchronize()
        return cupy.cuda.get_elapsed_time(start, stop) / 1e3

    ops = dict(zip(OPS, [htod(pinned.ctypes.data), dtoh(pinned.ctypes.data), htod(pageable.ctypes.data),
                         dtoh(pageable.ctypes.data), dtod, dtod_events]))
    return (CUPY_MEMCPY, ops)


# ------------------------------------------------------------------ measuring and printing

def measure(paths, size, reps):
    """{op: [(path name, [seconds...] or the reason it was not measured)]}:
    per repetition the paths take turns going first; a path that fails is
    dropped from that op with the error as its reason."""
    results = {}
    for op in OPS:
        runs = [[name, ops[op], []] for name, ops in paths if op in ops]
        failed = {name: fn for name, fn, _ in runs if isinstance(fn, str)}

        def call(run):
            name, fn, times = run
            if name in failed:
                return
            try:
                t = fn()
            except Exception as e:  # noqa: BLE001 - each library raises its own errors
                failed[name] = '%s: %s' % (type(e).__name__, e)
                return
            if times is not None:
                times.append(t)

        for _ in range(WARMUP):
            for name, fn, _ in runs:
                call((name, fn, None))
        for i in range(reps):
            k = i % len(runs) if runs else 0
            for run in runs[k:] + runs[:k]:
                call(run)
        results[op] = [(name, failed.get(name, times)) for name, _, times in runs]
    return results


def role_of(name):
    if name.startswith('GCuda'):
        return 'gcuda'
    return 'reference' if name.startswith('raw libcuda') else 'peer'


def report(title, mode, results, size, reps, json_path=None, device=None):
    print('Copy bandwidth from Python (%s), %d MiB per copy, best and median of %d (after %d warm-up rounds),'
          % (mode, size >> 20, reps, WARMUP))
    print('GB/s = 1e9 bytes/s; %s; ratios are to the first path of each operation' % title)
    print()
    print('%-24s %-36s %10s %10s %9s %9s' % ('operation', 'path', 'best', 'median', 'best/1st', 'med/1st'))
    out = Report('memcpy-python-' + ('gcuda' if mode.startswith('GCuda') else 'raw'), 'memcpy-python',
                 'Copy bandwidth, Python: GCuda through PyGObject beside the raw driver, cuda.bindings and CuPy',
                 mib=size >> 20, reps=reps, warmup=WARMUP)
    out.env(device=device)
    for op in OPS:
        nbytes = size * (2 if op.startswith('DtoD') else 1)
        limit = 'hbm' if op.startswith('DtoD') else 'pcie'
        first = None
        for name, times in results.get(op, []):
            role = role_of(name)
            if isinstance(times, str):
                print('%-24s %-36s not run: %s' % (op, name, times))
                out.not_run(op, name, role, times)
                continue
            gbps = [nbytes / t / 1e9 for t in times]
            _, median, best = stats(gbps)
            if first is None:
                first = (best, median)
                ratio = ('', '')
            else:
                ratio = ('%9.4f' % (best / first[0]), '%9.4f' % (median / first[1]))
            print('%-24s %-36s %10.2f %10.2f %9s %9s' % ((op, name, best, median) + ratio))
            out.row(op, name, role, 'GB/s', gbps, better='higher',
                    reference=RAW_CTYPES if role == 'gcuda' else None, limit=limit)
        sys.stdout.flush()
    out.write(json_path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--gcuda', action='store_true', help='GCuda through PyGObject, beside raw ctypes')
    mode.add_argument('--raw', action='store_true', help='raw ctypes, cuda.bindings and CuPy')
    parser.add_argument('--size', type=int, default=256, help='MiB per copy (default 256)')
    parser.add_argument('--reps', type=int, default=10, help='repetitions (default 10)')
    parser.add_argument('--json', metavar='FILE', help='also write the figures as JSON (tools/run-benchmarks)')
    args = parser.parse_args(argv)
    if args.size < 1 or args.reps < 1:
        parser.error('--size and --reps must be positive')
    size = args.size << 20

    if not args.gcuda and not args.raw:
        # the mode this Python can do
        try:
            import gi  # noqa: F401
            args.gcuda = True
        except ImportError:
            args.raw = True

    try:
        if args.gcuda:
            title, paths, keep, device = gcuda_paths(size)
            mode_name = 'GCuda through PyGObject'
        else:
            title, paths, keep, device = raw_paths(size)
            mode_name = 'raw'
    except Skip as e:
        print('bench_memcpy: %s' % e, file=sys.stderr)
        return SKIP

    results = measure(paths, size, args.reps)
    report(title, mode_name, results, size, args.reps, args.json, device)
    del keep
    return 0


if __name__ == '__main__':
    sys.exit(main())
