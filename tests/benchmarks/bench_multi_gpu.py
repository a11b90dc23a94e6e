#!/usr/bin/env python3
# bench_multi_gpu.py: several GPUs from Python: copies between devices 0
# and 1, and all-reduce bus bandwidth over every GPU of the host, GCuda
# beside the raw driver and beside CuPy and PyTorch
#
#   --gcuda  (a Python with PyGObject and numpy): GCuda's copy between
#            buffers of devices 0 and 1 (Buffer.copy_from, PyCUDA's
#            memcpy_peer) beside raw cuMemcpyPeer through ctypes on the same
#            memory and contexts, with peer access enabled ("direct") and
#            disabled (the driver stages through the host, "staged"); and
#            GCuda.Communicator's all-reduce, one process driving every GPU
#            (one rank per GPU made in one group, each collective queued on
#            every rank between group_start and group_end), measured first,
#            on a stream of each rank's own and again on the legacy default
#            streams (PyTorch's current streams). With --also-nccl
#            PATH the all-reduce is measured again in a child process that
#            loads that NCCL (GCUDA_NCCL_LIBRARY), e.g. the build PyTorch
#            uses, so that GCuda and PyTorch can be compared on one build.
#   --raw    (the GPU host's Python 3.12 with CuPy and PyTorch): CuPy's
#            cudaMemcpyPeer (direct and staged) and PyTorch's copy_ between
#            tensors of the two devices; PyTorch's all-reduce from one
#            process over every GPU (torch.cuda.nccl.all_reduce, NCCL's
#            grouped calls, the same shape as GCuda's).
#
# Copies: GB/s = 1e9 bytes/s, each timed from the call until it is done
# (the raw and CuPy paths synchronize as GCuda's synchronous copy does).
# All-reduce: float32 sum in place, 1 MiB to 1 GiB (--max-mib), timed from
# the first call until every GPU is done, reported as bus bandwidth
# busbw = algbw * 2(n-1)/n with algbw = bytes / time, as nccl-tests does;
# fewer repetitions at large sizes. It asserts nothing; one GPU is exit
# status 77 ("needs 2 GPUs"), as is a mode without its modules. `--json
# FILE` writes the figures (the schema of tools/run-benchmarks).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

from benchutil import RawDriver, Report, Skip, stats  # next to this script

SKIP = 77
WARMUP = 2
CU_STREAM_LEGACY = 1
MiB = 1 << 20
DIRECT = 'peer copy 0 to 1, direct'
STAGED = 'peer copy 0 to 1, staged'
# the rows' names in the --json report
RAW_PEER = 'raw cuMemcpyPeer (ctypes)'
GCUDA_PEER = 'GCuda Buffer.copy_from'
CUPY_PEER = 'CuPy cudaMemcpyPeer'
TORCH_COPY = 'PyTorch copy_'
GCUDA_ALL_REDUCE = 'GCuda Communicator.all_reduce, one process'
GCUDA_ALL_REDUCE_LEGACY = 'GCuda Communicator.all_reduce, one process, legacy default streams'
GCUDA_ALL_REDUCE_ALSO = 'GCuda Communicator.all_reduce, one process, PyTorch\'s NCCL build'
TORCH_ALL_REDUCE = 'PyTorch torch.cuda.nccl.all_reduce, one process'


def all_reduce_group(mib):
    return 'all-reduce %d MiB, busbw' % mib


def all_reduce_sizes(max_mib):
    sizes, mib = [], 1
    while mib <= max_mib:
        sizes.append(mib)
        mib *= 4
    return sizes


def reps_for(mib, reps):
    """Fewer repetitions at large sizes: the run stays short."""
    return max(3, reps // 2) if mib >= 256 else reps * 2 if mib <= 4 else reps


def measure(fn, reps):
    for _ in range(WARMUP):
        fn()
    return [fn() for _ in range(reps)]


def timed(call, wait):
    t0 = time.perf_counter()
    call()
    wait()
    return time.perf_counter() - t0


# ------------------------------------------------------------------ GCuda (PyGObject) and raw ctypes

def raw_peer_copy():
    """cuMemcpyPeer through ctypes, the destination's context pushed and
    its legacy stream synchronized, as GCuda's synchronous copy does."""
    drv = RawDriver()
    if not drv.has('cuMemcpyPeer'):
        raise Skip('the driver has no cuMemcpyPeer')
    P = ctypes.c_void_p

    def copy(dst, dst_ctx, src, src_ctx, n):
        drv.cuCtxPushCurrent(P(dst_ctx))
        try:
            drv.cuMemcpyPeer(dst, P(dst_ctx), src, P(src_ctx), n)
            drv.cuStreamSynchronize(P(CU_STREAM_LEGACY))
        finally:
            drv.cuCtxPopCurrent(ctypes.byref(P()))
    return copy


def loaded_nccl():
    """The NCCL library this process mapped, or None."""
    try:
        with open('/proc/self/maps') as f:
            for line in f:
                path = line.split(None, 5)[-1].strip()
                if os.path.basename(path).startswith('libnccl'):
                    return path
    except OSError:
        pass
    return None


def gcuda_run(out, size, reps, max_mib, all_reduce_only=False, row_name=GCUDA_ALL_REDUCE):
    try:
        import numpy as np
        import gi
        gi.require_version('GCuda', '1.0')
        from gi.repository import GCuda, GLib
    except (ImportError, ValueError) as e:
        raise Skip('--gcuda needs PyGObject, GCuda\'s typelib and numpy: %s' % e)
    try:
        n = GCuda.Device.get_count()
    except GLib.Error as e:
        raise Skip('no GPU: %s' % e.message)
    if n < 2:
        raise Skip('needs 2 GPUs, this host has %d' % n)
    devices = [GCuda.Device.get(i) for i in range(n)]
    contexts = [d.get_primary_context() for d in devices]
    out.env(device=devices[0].get_name(), gpus=n)

    # the all-reduce first, as in the --also-nccl child: both rows start
    # from a process that has done nothing else on the GPUs
    all_reduce_rows(out, GCuda, GLib, np, contexts, n, reps, max_mib, row_name,
                    legacy_too=not all_reduce_only)
    if not all_reduce_only:
        copies(out, GCuda, devices, contexts, size, reps)


def copies(out, GCuda, devices, contexts, size, reps):
    """Copies between devices 0 and 1."""
    p0, p1 = contexts[0], contexts[1]
    src = GCuda.Buffer.new(p0, size)
    dst = GCuda.Buffer.new(p1, size)
    src.memset_d8(0, 0x5a, size, None)
    dst.memset_d8(0, 0xa5, size, None)
    paths = [(GCUDA_PEER, lambda: timed(lambda: dst.copy_from(0, src, 0, size), lambda: None))]
    try:
        raw = raw_peer_copy()
    except Skip as e:
        for group in (DIRECT, STAGED):
            out.not_run(group, RAW_PEER, 'reference', str(e))
    else:
        paths.insert(0, (RAW_PEER, lambda: timed(lambda: raw(dst.get_address(), p1.get_handle(), src.get_address(),
                                                             p0.get_handle(), size), lambda: None)))
    direct = devices[1].can_access_peer(devices[0])
    if direct:
        p1.enable_peer_access(p0)
        p0.enable_peer_access(p1)
        copy_rows(out, DIRECT, paths, size, reps)
        p1.disable_peer_access(p0)
        p0.disable_peer_access(p1)
    else:
        for name, _ in paths:
            out.not_run(DIRECT, name, role_of(name), 'devices 0 and 1 have no peer access')
    copy_rows(out, STAGED, paths, size, max(3, reps // 2))
    src.free()
    dst.free()


def all_reduce_rows(out, GCuda, GLib, np, contexts, n, reps, max_mib, row_name, legacy_too=False):
    """All-reduce, one process driving every GPU; with @legacy_too again
    on each device's legacy default stream (PyTorch's current stream)."""
    try:
        version = GCuda.Communicator.get_nccl_version()
        uid = GCuda.Communicator.get_unique_id()
        GCuda.Communicator.group_start()
        comms = [GCuda.Communicator.new(c, n, uid, i) for i, c in enumerate(contexts)]
        GCuda.Communicator.group_end()
    except GLib.Error as e:
        for name in [row_name] + ([GCUDA_ALL_REDUCE_LEGACY] if legacy_too else []):
            for mib in all_reduce_sizes(max_mib):
                out.not_run(all_reduce_group(mib), name, 'gcuda', e.message)
        return
    out.note('%s: NCCL %d (%s), %d ranks in one process' % (row_name, version, loaded_nccl(), n))
    streams = [GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING, context=c) for c in contexts]
    bufs = [GCuda.Buffer.new(c, max_mib * MiB) for c in contexts]
    for buf in bufs:
        buf.memset_d32(0, int(np.float32(1.0).view(np.uint32)), max_mib * MiB // 4, None)

    # what a loop over the ranks would look up once (PyTorch's side is one C++ call)
    start, end = GCuda.Communicator.group_start, GCuda.Communicator.group_end
    float32, total = GCuda.NcclDataType.FLOAT32, GCuda.ReduceOp.SUM
    variants = [(row_name, streams, [stream.synchronize for stream in streams])]
    if legacy_too:
        # stream None: the legacy default stream, synchronized as PyTorch's
        # torch.cuda.synchronize does (the whole context)
        variants.append((GCUDA_ALL_REDUCE_LEGACY, [None] * n, [c.synchronize for c in contexts]))
    for name, on, syncs in variants:
        ranks = [(comm.all_reduce, buf, stream) for comm, buf, stream in zip(comms, bufs, on)]

        def all_reduce(count, ranks=ranks):
            start()
            try:
                for reduce, buf, stream in ranks:
                    reduce(buf, buf, count, float32, total, stream)
            finally:
                end()

        def wait(syncs=syncs):
            for sync in syncs:
                sync()

        for mib in all_reduce_sizes(max_mib):
            count = mib * MiB // 4
            seconds = measure(lambda: timed(lambda: all_reduce(count), wait), reps_for(mib, reps))
            busbw_row(out, mib, name, seconds, n)
    for buf in bufs:
        buf.free()


# ------------------------------------------------------------------ CuPy and PyTorch

def raw_run(out, size, reps, max_mib):
    reasons = []
    for library, run in (('CuPy', cupy_run), ('PyTorch', torch_run)):
        try:
            run(out, size, reps, max_mib)
        except Skip:
            raise
        except Exception as e:  # noqa: BLE001 - each library raises its own errors
            reasons.append('%s: %s: %s' % (library, type(e).__name__, e))
            if library == 'CuPy':
                rows = [(DIRECT, CUPY_PEER), (STAGED, CUPY_PEER)]
            else:
                rows = [(DIRECT, TORCH_COPY)] + [(all_reduce_group(mib), TORCH_ALL_REDUCE)
                                                 for mib in all_reduce_sizes(max_mib)]
            for group, name in rows:
                if not has_row(out, group, name):
                    out.not_run(group, name, 'peer', reasons[-1])
    if len(reasons) == 2:
        raise Skip('nothing to measure: ' + '; '.join(reasons))
    for r in reasons:
        print('# not measured: %s' % r)


def has_row(out, group, name):
    return any(r['group'] == group and r['name'] == name for r in out.doc['rows'])


def cupy_run(out, size, reps, max_mib):
    import cupy
    n = cupy.cuda.runtime.getDeviceCount()
    if n < 2:
        raise Skip('needs 2 GPUs, this host has %d' % n)
    out.env(gpus=n, cupy=cupy.__version__)
    cupy_copies(out, cupy, size, reps)


def torch_run(out, size, reps, max_mib):
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError('PyTorch sees no CUDA device')
    n = torch.cuda.device_count()
    if n < 2:
        raise Skip('needs 2 GPUs, this host has %d' % n)
    out.env(gpus=n, torch=torch.__version__)
    torch_copies(out, torch, size, reps)
    torch_all_reduce(out, torch, reps, max_mib)


def cupy_copies(out, cupy, size, reps):
    rt = cupy.cuda.runtime
    with cupy.cuda.Device(0):
        src = cupy.full(size, 0x5a, dtype=cupy.uint8)
    with cupy.cuda.Device(1):
        dst = cupy.zeros(size, dtype=cupy.uint8)

    def copy():
        rt.memcpyPeer(dst.data.ptr, 1, src.data.ptr, 0, size)
        with cupy.cuda.Device(1):
            cupy.cuda.Stream.null.synchronize()

    def set_peer(enable):
        for dev, peer in ((1, 0), (0, 1)):
            with cupy.cuda.Device(dev):
                try:
                    (rt.deviceEnablePeerAccess if enable else rt.deviceDisablePeerAccess)(peer)
                except rt.CUDARuntimeError:
                    pass  # already in that state

    if rt.deviceCanAccessPeer(1, 0):
        set_peer(True)
        copy_rows(out, DIRECT, [(CUPY_PEER, lambda: timed(copy, lambda: None))], size, reps)
    else:
        out.not_run(DIRECT, CUPY_PEER, 'peer', 'devices 0 and 1 have no peer access')
    if rt.deviceCanAccessPeer(1, 0) and not hasattr(rt, 'deviceDisablePeerAccess'):
        out.not_run(STAGED, CUPY_PEER, 'peer', 'this CuPy cannot disable peer access')
    else:
        set_peer(False)
        copy_rows(out, STAGED, [(CUPY_PEER, lambda: timed(copy, lambda: None))], size, max(3, reps // 2))


def torch_copies(out, torch, size, reps):
    # PyTorch enables peer access itself where the devices have it
    src = torch.full((size,), 0x5a, dtype=torch.uint8, device='cuda:0')
    dst = torch.zeros(size, dtype=torch.uint8, device='cuda:1')
    torch.cuda.synchronize(0)

    def copy():
        dst.copy_(src)
        torch.cuda.synchronize(1)
        torch.cuda.synchronize(0)

    copy_rows(out, DIRECT, [(TORCH_COPY, lambda: timed(copy, lambda: None))], size, reps)


def torch_all_reduce(out, torch, reps, max_mib):
    import torch.cuda.nccl as nccl
    n = torch.cuda.device_count()
    version = nccl.version()
    out.note('PyTorch %s: NCCL %s, torch.cuda.nccl.all_reduce over %d GPUs in one process'
             % (torch.__version__, '.'.join(str(v) for v in version) if isinstance(version, tuple) else version, n))
    full = [torch.ones(max_mib * MiB // 4, dtype=torch.float32, device='cuda:%d' % i) for i in range(n)]

    def wait():
        for i in range(n):
            torch.cuda.synchronize(i)

    for mib in all_reduce_sizes(max_mib):
        tensors = [t[:mib * MiB // 4] for t in full]
        seconds = measure(lambda: timed(lambda: nccl.all_reduce(tensors), wait), reps_for(mib, reps))
        busbw_row(out, mib, TORCH_ALL_REDUCE, seconds, n)


# ------------------------------------------------------------------ rows

def role_of(name):
    if name.startswith('GCuda'):
        return 'gcuda'
    return 'reference' if name.startswith('raw') else 'peer'


def copy_rows(out, group, paths, size, reps):
    """Each path's GB/s in @group; the paths take turns going first."""
    times = {name: [] for name, _ in paths}
    failed = {}
    for i in range(WARMUP + reps):
        k = i % len(paths)
        for name, fn in paths[k:] + paths[:k]:
            if name in failed:
                continue
            try:
                t = fn()
            except Exception as e:  # noqa: BLE001 - each library raises its own errors
                failed[name] = '%s: %s' % (type(e).__name__, e)
                continue
            if i >= WARMUP:
                times[name].append(t)
    for name, _ in paths:
        role = role_of(name)
        if name in failed:
            print('%-28s %-44s not run: %s' % (group, name, failed[name]))
            out.not_run(group, name, role, failed[name])
            continue
        gbps = [size / t / 1e9 for t in times[name]]
        _, median, best = stats(gbps)
        print('%-28s %-44s %10.2f %10.2f GB/s' % (group, name, best, median))
        out.row(group, name, role, 'GB/s', gbps, better='higher',
                reference=RAW_PEER if role == 'gcuda' else None, limit='nvlink' if group == DIRECT else None)
    sys.stdout.flush()


def busbw_row(out, mib, name, seconds, n):
    nbytes = mib * MiB
    busbw = [nbytes / t * 2 * (n - 1) / n / 1e9 for t in seconds]
    _, median, best = stats(busbw)
    print('%-28s %-44s %10.2f %10.2f GB/s' % (all_reduce_group(mib), name, best, median))
    role = role_of(name)
    out.row(all_reduce_group(mib), name, role, 'GB/s', busbw, better='higher',
            reference=TORCH_ALL_REDUCE if role == 'gcuda' else None, limit='nvlink')
    sys.stdout.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--gcuda', action='store_true', help='GCuda through PyGObject, beside raw ctypes')
    mode.add_argument('--raw', action='store_true', help='CuPy and PyTorch')
    parser.add_argument('--size', type=int, default=1024, help='MiB per copy (default 1024)')
    parser.add_argument('--reps', type=int, default=10, help='repetitions (default 10; fewer at large sizes)')
    parser.add_argument('--max-mib', type=int, default=1024, help='largest all-reduce, MiB (default 1024)')
    parser.add_argument('--json', metavar='FILE', help='also write the figures as JSON (tools/run-benchmarks)')
    parser.add_argument('--also-nccl', metavar='PATH',
                        help='--gcuda: the all-reduce again with this libnccl.so.2 (e.g. PyTorch\'s)')
    parser.add_argument('--all-reduce-only', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--row-name', default=GCUDA_ALL_REDUCE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.size < 1 or args.reps < 1 or args.max_mib < 1:
        parser.error('--size, --reps and --max-mib must be positive')
    if not args.gcuda and not args.raw:
        try:
            import gi  # noqa: F401 - the mode this Python can do
            args.gcuda = True
        except ImportError:
            args.raw = True

    mode = 'gcuda' if args.gcuda else 'raw'
    out = Report('multi-gpu-python-' + mode, 'multi-gpu-python',
                 'Several GPUs, Python: copies between devices and all-reduce bus bandwidth',
                 copy_mib=args.size, reps=args.reps, warmup=WARMUP, max_all_reduce_mib=args.max_mib)
    print('Several GPUs from Python (%s): copies of %d MiB from device 0 to 1, all-reduce 1 MiB to %d MiB '
          '(busbw = algbw * 2(n-1)/n); best and median' % (mode, args.size, args.max_mib))
    try:
        if args.gcuda:
            gcuda_run(out, args.size * MiB, args.reps, args.max_mib, args.all_reduce_only, args.row_name)
        else:
            raw_run(out, args.size * MiB, args.reps, args.max_mib)
    except Skip as e:
        print('bench_multi_gpu: %s' % e, file=sys.stderr)
        return SKIP
    if args.gcuda and args.also_nccl:
        also_nccl(out, args)
    # the copies' groups first in the report, as the peers' process has them
    # (GCuda's process measures the all-reduce first)
    out.doc['rows'].sort(key=lambda row: row['group'] not in (DIRECT, STAGED))
    out.write(args.json)
    return 0


def also_nccl(out, args):
    """The all-reduce rows again from a child that loads @args.also_nccl."""
    with tempfile.TemporaryDirectory(prefix='bench-multi-gpu-') as tmp:
        report = os.path.join(tmp, 'also.json')
        env = dict(os.environ, GCUDA_NCCL_LIBRARY=args.also_nccl)
        child = subprocess.run([sys.executable, os.path.abspath(__file__), '--gcuda', '--all-reduce-only',
                                '--reps', str(args.reps), '--max-mib', str(args.max_mib), '--json', report,
                                '--row-name', GCUDA_ALL_REDUCE_ALSO], env=env)
        try:
            with open(report) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            reason = 'the child with %s ended with status %d (%s)' % (args.also_nccl, child.returncode, e)
            for mib in all_reduce_sizes(args.max_mib):
                out.not_run(all_reduce_group(mib), GCUDA_ALL_REDUCE_ALSO, 'gcuda', reason)
            return
    out.doc['rows'].extend(data.get('rows', []))
    out.doc['notes'].extend(data.get('notes', []))


if __name__ == '__main__':
    sys.exit(main())
