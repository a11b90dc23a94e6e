#!/usr/bin/env python3
# allreduce.py: one process per GPU, as distributed jobs run. Each process
# squares its vector with a GCuda kernel, then NCCL sums the vectors of all
# processes (an all-reduce on the same stream, no wait between the two);
# every process checks the sum against numpy.
#
#   allreduce.py                      starts one worker per GPU and waits
#   allreduce.py RANK N_RANKS SEED    one worker (rank 0 prints "uid " and the
#                                     NCCL id in hex, the others read it on stdin)
#
# Rank 0 makes the communicator's unique id; the launcher hands it to the
# other ranks over pipes. Under MPI, mpi4py's comm.bcast() would do that
# part (see docs/multi-gpu.md). Exits 77 with the reason when NCCL cannot
# be found.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import signal
import subprocess
import sys
import time

import numpy

import gi
gi.require_version('GCuda', '1.0')
from gi.repository import GLib, GCuda  # noqa: E402

N = 1 << 22
BLOCK = 256
TIMEOUT = 120  # seconds for the whole job: NCCL waits forever for a missing rank

KERNEL = '''
__global__ void square(float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] * v[i];
}
'''


def rank_data(seed, rank):
    # small integers: their squares and sums are exact in float32
    return numpy.random.default_rng([seed, rank]).integers(-100, 101, N).astype(numpy.float32)


def worker(rank, n_ranks, seed):
    ctx = GCuda.Device.get(rank % GCuda.Device.get_count()).get_primary_context()
    if rank == 0:
        uid = GCuda.Communicator.get_unique_id()
        print('uid ' + uid.get_data().hex(), flush=True)
    else:
        uid = GLib.Bytes.new(bytes.fromhex(sys.stdin.readline().strip()))
    comm = GCuda.Communicator.new(ctx, n_ranks, uid, rank)

    square = GCuda.SourceModule(KERNEL, context=ctx).get_function('square')
    stream = GCuda.Stream(context=ctx)
    buf = GCuda.to_device(rank_data(seed, rank), context=ctx)
    square(buf, numpy.int32(N), block=(BLOCK, 1, 1), grid=((N + BLOCK - 1) // BLOCK, 1), stream=stream)
    comm.all_reduce(buf, buf, N, GCuda.NcclDataType.FLOAT32, GCuda.ReduceOp.SUM, stream)
    stream.synchronize()

    result = GCuda.from_device(buf, N, numpy.float32)
    expected = sum(rank_data(seed, r) ** 2 for r in range(n_ranks))
    buf.free()
    if not (result == expected).all():
        wrong = int(numpy.count_nonzero(result != expected))
        print('allreduce: rank %d: %d of %d elements wrong' % (rank, wrong, N), file=sys.stderr)
        return 1
    print('rank %d on device %d: OK' % (rank, ctx.get_device().get_ordinal()), flush=True)
    return 0


def launcher():
    n_ranks = GCuda.Device.get_count()
    if n_ranks == 0:
        print('allreduce: No CUDA device found: check the NVIDIA driver installation', file=sys.stderr)
        return 1
    try:
        version = GCuda.Communicator.get_nccl_version()
    except GLib.Error as e:
        if not e.matches(GCuda.error_quark(), GCuda.Error.NCCL_NOT_FOUND):
            raise
        print('allreduce: needs NCCL: %s' % e.message, file=sys.stderr)
        return 77

    seed = int.from_bytes(os.urandom(8), 'little')
    me = os.path.abspath(__file__)
    # stopped (a time limit, kill): stop the workers too, in the finally below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))

    def start(rank):
        return subprocess.Popen([sys.executable, me, str(rank), str(n_ranks), str(seed)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    workers = [start(0)]
    try:
        uid = ''
        for line in workers[0].stdout:  # rank 0 made the id (after any warnings of NCCL's)
            if line.startswith('uid '):
                uid = line[4:]
                break
        if not uid:
            print('allreduce: rank 0 stopped before making the id', file=sys.stderr)
            return 1
        for rank in range(1, n_ranks):
            workers.append(start(rank))
            workers[-1].stdin.write(uid)
            workers[-1].stdin.close()
        # one failed rank leaves the others waiting in NCCL: stop them all
        deadline = time.monotonic() + TIMEOUT
        while any(w.poll() is None for w in workers):
            if any(w.returncode for w in workers) or time.monotonic() > deadline:
                print('allreduce: a worker failed or the job ran past %d s' % TIMEOUT, file=sys.stderr)
                return 1
            time.sleep(0.05)
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
            w.wait()
    for w in workers:
        sys.stdout.write(w.stdout.read())
    if any(w.returncode for w in workers):
        return 1
    print('allreduce: %d elements on %d rank%s (NCCL %d) OK'
          % (N, n_ranks, '' if n_ranks == 1 else 's', version))
    return 0


if __name__ == '__main__':
    try:
        if len(sys.argv) == 4:
            sys.exit(worker(*(int(a) for a in sys.argv[1:])))
        sys.exit(launcher())
    except GLib.Error as e:  # GCuda.CudaError and its subclasses are GLib.Errors
        print('allreduce: %s' % e.message, file=sys.stderr)
        sys.exit(1)
