# One rank of a job with one process per GPU, for test_nccl_processes.py and
# test_distributed.py. Each rank computes with a GCuda kernel and GCuda's
# NCCL calls on one stream, checks its result against numpy (every rank
# can rebuild every rank's data from SEED), and prints "rank R device D ok".
#
#   nccl_rank_child.py pipe RANK N_RANKS SEED   rank 0 prints "uid " and the NCCL
#                                               id's hex; the others read the hex
#                                               on stdin
#   nccl_rank_child.py mpi SEED N_RANKS         under mpirun -np N_RANKS: rank and
#                                               size from MPI, the id broadcast by
#                                               mpi4py
#   nccl_rank_child.py torch RANK N_RANKS SEED  torch.distributed (NCCL backend,
#                                               MASTER_ADDR/MASTER_PORT set by the
#                                               parent): GCuda's kernels and NCCL
#                                               calls and PyTorch's all_reduce
#                                               interleaved on one stream, on the
#                                               same memory through DLPack
#
# Exits 0 on success, 1 with the error on stderr otherwise.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import sys
import traceback

import numpy as np

COUNT = 1 << 20
BLOCK = 256
KERNELS = r'''
__global__ void square(float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] * v[i];
}

__global__ void add_scalar(float *v, float x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] += x;
}
'''


def rank_data(seed, rank):
    """Small integers as float32: every square and sum below is exact."""
    return np.random.default_rng([seed, rank]).integers(-100, 101, COUNT).astype(np.float32)


def gcuda():
    import gi
    gi.require_version('GCuda', '1.0')
    from gi.repository import GCuda, GLib
    return GCuda, GLib


def launch(function, buf, *scalars, stream):
    function(buf, *scalars, np.int32(COUNT), block=(BLOCK, 1, 1),
             grid=((COUNT + BLOCK - 1) // BLOCK, 1), stream=stream)


def square_and_sum(GCuda, ctx, comm, seed, rank, n_ranks):
    """GCuda's kernel, then GCuda's all-reduce, on one stream with no wait
    between them; returns (result, expected)."""
    square = GCuda.SourceModule(KERNELS, context=ctx).get_function('square')
    stream = GCuda.Stream(context=ctx)
    buf = GCuda.to_device(rank_data(seed, rank), context=ctx)
    launch(square, buf, stream=stream)
    comm.all_reduce(buf, buf, COUNT, GCuda.NcclDataType.FLOAT32, GCuda.ReduceOp.SUM, stream)
    stream.synchronize()
    result = GCuda.from_device(buf, COUNT, np.float32)
    buf.free()
    return result, sum(rank_data(seed, r) ** 2 for r in range(n_ranks))


def check(result, expected, rank, ctx):
    wrong = int(np.count_nonzero(result != expected))
    if wrong:
        raise AssertionError('rank %d: %d of %d elements differ from numpy (first: %r, expected %r)'
                             % (rank, wrong, COUNT, result[result != expected][0],
                                expected[result != expected][0]))
    print('rank %d device %d ok' % (rank, ctx.get_device().get_ordinal()), flush=True)


def device_context(GCuda, rank):
    return GCuda.Device.get(rank % GCuda.Device.get_count()).get_primary_context()


def by_pipe(rank, n_ranks, seed):
    GCuda, GLib = gcuda()
    ctx = device_context(GCuda, rank)
    if rank == 0:
        uid = GCuda.Communicator.get_unique_id()
        print('uid ' + uid.get_data().hex(), flush=True)
    else:
        uid = GLib.Bytes.new(bytes.fromhex(sys.stdin.readline().strip()))
    comm = GCuda.Communicator.new(ctx, n_ranks, uid, rank)
    assert comm.get_rank() == rank and comm.get_n_ranks() == n_ranks
    check(*square_and_sum(GCuda, ctx, comm, seed, rank, n_ranks), rank, ctx)


def by_mpi(seed, started):
    from mpi4py import MPI
    world = MPI.COMM_WORLD
    rank, n_ranks = world.Get_rank(), world.Get_size()
    if n_ranks != started:
        raise RuntimeError('MPI says %d ranks, mpirun started %d: mpi4py was built for another MPI than '
                           'this mpirun\'s (%s)' % (n_ranks, started, MPI.Get_library_version().strip()))
    GCuda, GLib = gcuda()
    ctx = device_context(GCuda, rank)
    uid = world.bcast(GCuda.Communicator.get_unique_id().get_data() if rank == 0 else None, root=0)
    comm = GCuda.Communicator.new(ctx, n_ranks, GLib.Bytes.new(uid), rank)
    result, expected = square_and_sum(GCuda, ctx, comm, seed, rank, n_ranks)
    # and MPI itself agrees: every rank holds the same sum
    checksums = world.allgather(float(result.astype(np.float64).sum()))
    assert len(set(checksums)) == 1, checksums
    check(result, expected, rank, ctx)


def by_torch(rank, n_ranks, seed):
    import torch
    import torch.distributed as dist
    GCuda, GLib = gcuda()
    torch.cuda.set_device(rank)
    dist.init_process_group('nccl', rank=rank, world_size=n_ranks, device_id=torch.device('cuda', rank))
    try:
        ctx = device_context(GCuda, rank)
        assert ctx.get_device().get_ordinal() == torch.cuda.current_device()
        # GCuda's NCCL id, broadcast by torch.distributed
        uid = [GCuda.Communicator.get_unique_id().get_data() if rank == 0 else None]
        dist.broadcast_object_list(uid, src=0)
        comm = GCuda.Communicator.new(ctx, n_ranks, GLib.Bytes.new(uid[0]), rank)
        module = GCuda.SourceModule(KERNELS, context=ctx)
        square, add_scalar = module.get_function('square'), module.get_function('add_scalar')

        # one buffer: GCuda's memory, PyTorch's tensor over it through DLPack
        buf = GCuda.to_device(rank_data(seed, rank), context=ctx)
        tensor = torch.from_dlpack(buf.device_view((COUNT,), np.float32))
        assert tensor.data_ptr() == buf.get_address() and tensor.device.index == rank

        # one stream: PyTorch's, borrowed by GCuda; nothing waits on the host
        # until the end, so only the stream orders the six steps
        side = torch.cuda.Stream()
        stream = GCuda.Stream.from_foreign(side, context=ctx)
        with torch.cuda.stream(side):
            launch(square, buf, stream=stream)                                   # x_r^2
            comm.all_reduce(buf, buf, COUNT, GCuda.NcclDataType.FLOAT32,
                            GCuda.ReduceOp.SUM, stream)                          # S
            tensor.mul_(rank + 1)                                                # S (r+1)
            dist.all_reduce(tensor, op=dist.ReduceOp.SUM)                        # S n(n+1)/2
            launch(add_scalar, buf, np.float32(-rank), stream=stream)            # ... - r
            comm.all_reduce(buf, buf, COUNT, GCuda.NcclDataType.FLOAT32,
                            GCuda.ReduceOp.SUM, stream)                          # n (...) - n(n-1)/2
        side.synchronize()
        result = GCuda.from_device(buf, COUNT, np.float32)
        s = sum(rank_data(seed, r) ** 2 for r in range(n_ranks))
        expected = n_ranks * (s * (n_ranks * (n_ranks + 1) // 2)) - n_ranks * (n_ranks - 1) // 2
        # the tensor sees the same memory
        assert torch.equal(tensor.cpu(), torch.from_numpy(result))
        del tensor
        buf.free()
        check(result, expected.astype(np.float32), rank, ctx)
    finally:
        dist.destroy_process_group()


def main(argv):
    mode = argv[1] if len(argv) > 1 else ''
    if mode == 'pipe' and len(argv) == 5:
        by_pipe(*(int(a) for a in argv[2:]))
    elif mode == 'mpi' and len(argv) == 4:
        by_mpi(int(argv[2]), int(argv[3]))
    elif mode == 'torch' and len(argv) == 5:
        by_torch(*(int(a) for a in argv[2:]))
    else:
        print('usage: nccl_rank_child.py pipe|torch RANK N_RANKS SEED | mpi SEED N_RANKS', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except Exception:  # the parent shows stderr
        traceback.print_exc()
        sys.exit(1)
