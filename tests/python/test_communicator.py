# GCuda.Communicator (NCCL): one process driving every GPU of the host
# (ranks made in one group), each collective checked against numpy; the
# arguments refused before NCCL runs. Without NCCL (CI) only the tests not
# marked gpu run, with GCUDA_NCCL_LIBRARY pointing at no file: the errors
# name what was tried. On a GPU host NCCL must be found (the system's
# libnccl.so.2 or NVIDIA's wheel): without it the GPU tests are skipped, and
# fail instead under GCUDA_TEST_REQUIRE_GPU=1.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from gcudatest import raises_gerror, require_nccl  # noqa: E402

gpu = pytest.mark.gpu
F32, I32, I64 = GCuda.NcclDataType.FLOAT32, GCuda.NcclDataType.INT32, GCuda.NcclDataType.INT64


def rng():
    return np.random.default_rng()  # fresh, unseeded: new data every run


def test_no_nccl_errors_name_what_was_tried():
    library = os.environ.get('GCUDA_NCCL_LIBRARY')
    if not library or os.path.exists(library):
        pytest.skip('GCUDA_NCCL_LIBRARY does not name a missing file')
    for call in (GCuda.Communicator.get_nccl_version, GCuda.Communicator.get_unique_id,
                 GCuda.Communicator.group_start, GCuda.Communicator.group_end,
                 lambda: GCuda.Communicator.new(None, 1, GLib.Bytes.new(bytes(128)), 0)):
        with raises_gerror(GCuda.Error.NCCL_NOT_FOUND, GCuda.RuntimeError) as e:
            call()
        assert library in e.value.message and 'GCUDA_NCCL_LIBRARY' in e.value.message, e.value.message


def test_arguments_refused_before_nccl():
    uid = GLib.Bytes.new(bytes(128))
    for n_ranks, rank in ((0, 0), (2, 2), (2, -1)):
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            GCuda.Communicator.new(None, n_ranks, uid, rank)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError) as e:
        GCuda.Communicator.new(None, 1, GLib.Bytes.new(bytes(127)), 0)
    assert '128' in e.value.message
    comm = GCuda.Communicator()  # made by hand: nothing behind it
    assert comm.get_rank() == -1 and comm.get_n_ranks() == 0
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        comm.all_reduce(GCuda.Buffer(), GCuda.Buffer(), 1, F32, GCuda.ReduceOp.SUM, None)


# ---------------------------------------------------------------- on every GPU

@pytest.fixture(scope='module')
def ranks():
    """One rank per GPU, made in one group by this thread: [(comm, stream)]."""
    require_nccl()
    n = GCuda.Device.get_count()
    uid = GCuda.Communicator.get_unique_id()
    assert uid.get_size() == 128
    contexts = [GCuda.Device.get(i).get_primary_context() for i in range(n)]
    GCuda.Communicator.group_start()
    comms = [GCuda.Communicator.new(c, n, uid, i) for i, c in enumerate(contexts)]
    GCuda.Communicator.group_end()
    for i, comm in enumerate(comms):
        assert comm.get_rank() == i and comm.get_n_ranks() == n and comm.get_context() is contexts[i]
    return [(comm, GCuda.Stream(context=comm.get_context())) for comm in comms]


def upload(ranks, arrays):
    return [GCuda.to_device(a, context=comm.get_context()) for (comm, _), a in zip(ranks, arrays)]


def empty(ranks, count, dtype):
    return [GCuda.mem_alloc(count * np.dtype(dtype).itemsize, context=comm.get_context()) for comm, _ in ranks]


def grouped(ranks, call):
    """call(i, comm, stream) for every rank in one group, then waits."""
    GCuda.Communicator.group_start()
    try:
        for i, (comm, stream) in enumerate(ranks):
            call(i, comm, stream)
    finally:
        GCuda.Communicator.group_end()
    for _, stream in ranks:
        stream.synchronize()


def download(bufs, count, dtype):
    return [GCuda.from_device(b, count, dtype) for b in bufs]


@gpu
def test_version(ranks):
    assert GCuda.Communicator.get_nccl_version() >= 21800  # 2.18 or newer


@gpu
@pytest.mark.parametrize('op', ['SUM', 'MAX', 'MIN', 'PROD'])
def test_all_reduce(ranks, op):
    n, count = len(ranks), 1 << 20
    # small integers as float32: every sum and product is exact
    arrays = [rng().integers(-3, 4, count).astype(np.float32) for _ in ranks]
    send = upload(ranks, arrays)
    recv = empty(ranks, count, np.float32)
    grouped(ranks, lambda i, c, s: c.all_reduce(send[i], recv[i], count, F32, getattr(GCuda.ReduceOp, op), s))
    expected = {'SUM': np.sum, 'MAX': np.max, 'MIN': np.min, 'PROD': np.prod}[op](np.stack(arrays), axis=0)
    for out in download(recv, count, np.float32):
        np.testing.assert_array_equal(out, expected)
    # in place
    grouped(ranks, lambda i, c, s: c.all_reduce(send[i], send[i], count, F32, GCuda.ReduceOp.SUM, s))
    for out in download(send, count, np.float32):
        np.testing.assert_array_equal(out, np.sum(np.stack(arrays), axis=0))
    assert n >= 1


@gpu
def test_broadcast_and_reduce(ranks):
    n, count = len(ranks), 100_003
    arrays = [rng().integers(-1000, 1000, count, dtype=np.int32) for _ in ranks]
    send = upload(ranks, arrays)
    recv = empty(ranks, count, np.int32)
    root = n - 1
    grouped(ranks, lambda i, c, s: c.broadcast(send[i] if i == root else None, recv[i], count, I32, root, s))
    for out in download(recv, count, np.int32):
        np.testing.assert_array_equal(out, arrays[root])
    grouped(ranks, lambda i, c, s: c.reduce(send[i], recv[i] if i == 0 else None, count, I32,
                                            GCuda.ReduceOp.MAX, 0, s))
    np.testing.assert_array_equal(download(recv[:1], count, np.int32)[0], np.max(np.stack(arrays), axis=0))


@gpu
def test_all_gather_and_reduce_scatter(ranks):
    n, count = len(ranks), 65_537
    arrays = [rng().integers(-2**40, 2**40, count, dtype=np.int64) for _ in ranks]
    send = upload(ranks, arrays)
    gathered = empty(ranks, count * n, np.int64)
    grouped(ranks, lambda i, c, s: c.all_gather(send[i], gathered[i], count, I64, s))
    for out in download(gathered, count * n, np.int64):
        np.testing.assert_array_equal(out, np.concatenate(arrays))
    # reduce-scatter of the gathered vectors (the same on every rank): rank i
    # gets block i of their sum, n times its own array
    parts = empty(ranks, count, np.int64)
    grouped(ranks, lambda i, c, s: c.reduce_scatter(gathered[i], parts[i], count, I64, GCuda.ReduceOp.SUM, s))
    for i, out in enumerate(download(parts, count, np.int64)):
        np.testing.assert_array_equal(out, n * arrays[i])


@gpu
def test_send_recv_ring(ranks):
    n, count = len(ranks), 12_345
    arrays = [rng().standard_normal(count).astype(np.float32) for _ in ranks]
    send = upload(ranks, arrays)
    recv = empty(ranks, count, np.float32)

    def exchange(i, comm, stream):
        comm.send(send[i], count, F32, (i + 1) % n, stream)
        comm.recv(recv[i], count, F32, (i - 1) % n, stream)

    grouped(ranks, exchange)
    for i, out in enumerate(download(recv, count, np.float32)):
        np.testing.assert_array_equal(out, arrays[(i - 1) % n])


@gpu
def test_sizes_contexts_and_ranks_checked(ranks):
    comm, stream = ranks[0]
    small = GCuda.mem_alloc(64, context=comm.get_context())
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError) as e:
        comm.all_reduce(small, small, 17, F32, GCuda.ReduceOp.SUM, stream)
    assert '64 bytes' in e.value.message
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        comm.all_gather(small, small, 16 // len(ranks) + 1, F32, stream)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        comm.broadcast(small, small, 1, F32, len(ranks), stream)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        comm.send(small, 1, F32, -1, stream)
    if len(ranks) >= 2:
        other = ranks[1][0].get_context()
        with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
            comm.all_reduce(GCuda.mem_alloc(64, context=other), small, 1, F32, GCuda.ReduceOp.SUM, stream)
        with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
            comm.all_reduce(small, small, 1, F32, GCuda.ReduceOp.SUM, GCuda.Stream(context=other))
    small.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        comm.all_reduce(small, small, 1, F32, GCuda.ReduceOp.SUM, stream)
