# NCCL with one process per GPU, as distributed jobs run: rank 0 makes the
# communicator's id and the parent hands it to the other ranks over pipes;
# each rank runs a GCuda kernel and GCuda's all-reduce on one stream and
# checks the sum against numpy (nccl_rank_child.py). The same under mpirun
# and with torch.distributed is test_distributed.py (the GPU host's Python).
#
# Needs two GPUs (skipped with fewer, failed instead under
# GCUDA_TEST_REQUIRE_GPUS=2 or more) and uses all of them; without NCCL
# skipped, failed instead under GCUDA_TEST_REQUIRE_GPU=1.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import subprocess
import sys

import pytest

from gcudatest import GCuda, die_with_parent, require_nccl, wait_for_ranks

pytestmark = [pytest.mark.gpu, pytest.mark.gpus(2), pytest.mark.nvrtc]

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'nccl_rank_child.py')
# a failing rank's report then has NCCL's own reason
ENV = dict(os.environ, NCCL_DEBUG=os.environ.get('NCCL_DEBUG', 'WARN'))


def start(*args, uid=None):
    """A rank; @uid (the id's hex line) goes to its stdin through a pipe."""
    if uid is None:
        return subprocess.Popen([sys.executable, CHILD] + [str(a) for a in args], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                                start_new_session=True, preexec_fn=die_with_parent)
    read_end, write_end = os.pipe()
    try:
        return start_with_stdin(read_end, args)
    finally:
        os.close(read_end)
        with os.fdopen(write_end, 'w') as pipe:
            pipe.write(uid)


def start_with_stdin(stdin, args):
    return subprocess.Popen([sys.executable, CHILD] + [str(a) for a in args], stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                            start_new_session=True, preexec_fn=die_with_parent)


def test_one_process_per_gpu_ids_over_pipes():
    require_nccl()
    n = GCuda.Device.get_count()
    seed = int.from_bytes(os.urandom(8), 'little')  # fresh data every run
    ranks = [start('pipe', 0, n, seed)]
    uid = ''
    for line in ranks[0].stdout:  # rank 0 made the id (NCCL may print warnings first)
        if line.startswith('uid '):
            uid = line[4:]
            break
    if len(uid.strip()) == 256:  # 128 bytes in hex
        for rank in range(1, n):
            ranks.append(start('pipe', rank, n, seed, uid=uid))
    else:  # rank 0 failed (its error is in the report), or waits for nobody
        ranks[0].kill()
    results = wait_for_ranks(ranks, 120)
    for rank, (_, out, _) in enumerate(results):
        assert 'rank %d device %d ok' % (rank, rank) in out.splitlines(), out
