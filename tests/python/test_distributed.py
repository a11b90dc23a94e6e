# GCuda in distributed jobs as HPC and PyTorch users launch them, one
# process per GPU (nccl_rank_child.py):
#
# - under `mpirun`, the NCCL id broadcast by mpi4py; every rank runs a GCuda
#   kernel and GCuda's all-reduce on one stream, checks the sum against numpy
#   and MPI checks that all ranks agree;
# - with torch.distributed (NCCL backend): one buffer of GCuda memory that
#   PyTorch sees through DLPack, and GCuda's kernels, GCuda's all-reduces and
#   PyTorch's in-place ops and all_reduce interleaved on one (PyTorch's)
#   stream with no wait in between, checked against numpy.
#
# Runs under the GPU host's Python 3.12 (python3.12-gi, as test_interop.py:
# meson sets GCUDA_PYTHON_ONLY), which has PyTorch, mpi4py and Open MPI's
# mpirun next to it. Needs two GPUs and uses all of them. Without mpirun,
# mpi4py, PyTorch or NCCL the tests are skipped, and failed instead under
# GCUDA_TEST_REQUIRE_GPU=1 or GCUDA_TEST_REQUIRE_GPUS=2 or more.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import importlib.util
import os
import shutil
import socket
import subprocess
import sys

import pytest

from gcudatest import GCuda, die_with_parent, require_nccl, wait_for_ranks

pytestmark = [pytest.mark.gpu, pytest.mark.gpus(2), pytest.mark.nvrtc]

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'nccl_rank_child.py')


def missing(reason):
    try:
        required = int(os.environ.get('GCUDA_TEST_REQUIRE_GPUS', '0'))
    except ValueError:
        required = 0
    if os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1' or required >= 2:
        pytest.fail('a GPU run was required but ' + reason, pytrace=False)
    pytest.skip(reason)


def new_seed():
    return int.from_bytes(os.urandom(8), 'little')  # fresh data every run


def check_ranks(results, n):
    outputs = [out for _, out, _ in results]
    lines = set(''.join(outputs).splitlines())
    for rank in range(n):
        assert 'rank %d device %d ok' % (rank, rank) in lines, outputs


def test_mpirun_ranks_id_by_mpi4py():
    mpirun = shutil.which('mpirun')
    if mpirun is None:
        missing('mpirun is not on PATH (Open MPI)')
    if importlib.util.find_spec('mpi4py') is None:
        missing('mpi4py is not installed in this Python (%s)' % sys.executable)
    require_nccl()
    n = GCuda.Device.get_count()
    env = dict(os.environ, NCCL_DEBUG=os.environ.get('NCCL_DEBUG', 'WARN'),
               OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
               # containers often forbid the cross-process memory attach of the shared-memory transport
               OMPI_MCA_btl_vader_single_copy_mechanism='none',
               # ranks on this host only: no ssh needed (without one on PATH mpirun refuses to start)
               OMPI_MCA_plm_rsh_agent='')
    job = subprocess.Popen([mpirun, '--allow-run-as-root', '--oversubscribe', '--bind-to', 'none',
                            '-np', str(n), sys.executable, CHILD, 'mpi', str(new_seed()), str(n)],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=env, start_new_session=True, preexec_fn=die_with_parent)
    check_ranks(wait_for_ranks([job], 120), n)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def test_torch_distributed_and_gcuda_on_shared_streams():
    if importlib.util.find_spec('torch') is None:
        missing('torch is not installed in this Python (%s)' % sys.executable)
    import torch.distributed
    if not torch.distributed.is_available() or not torch.distributed.is_nccl_available():
        missing('this PyTorch has no NCCL backend for torch.distributed')
    require_nccl()
    n = GCuda.Device.get_count()
    env = dict(os.environ, NCCL_DEBUG=os.environ.get('NCCL_DEBUG', 'WARN'), MASTER_ADDR='127.0.0.1',
               MASTER_PORT=str(free_port()), WORLD_SIZE=str(n))
    seed = new_seed()
    ranks = [subprocess.Popen([sys.executable, CHILD, 'torch', str(rank), str(n), str(seed)],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=dict(env, RANK=str(rank), LOCAL_RANK=str(rank)),
                              start_new_session=True, preexec_fn=die_with_parent)
             for rank in range(n)]
    check_ranks(wait_for_ranks(ranks, 150), n)
