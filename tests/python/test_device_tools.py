# pycuda.tools' DeviceData, OccupancyRecord, context_dependent_memoize,
# clear_context_caches, mark_cuda_test and the profiler.
#
# Tests without the gpu marker need no driver (devices described by hand;
# the nogpu registration runs only those, with the driver made unloadable).
# Occupancy is checked against an independent transcription of CUDA's
# occupancy calculator rules here, and against the driver's own figures for
# compiled kernels on a GPU.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import subprocess
import sys
import textwrap

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402

import pytest  # noqa: E402

from gcudatest import raises_gerror  # noqa: E402

np = pytest.importorskip('numpy')

H100 = dict(compute_capability_major=9, compute_capability_minor=0, max_threads=1024, warp_size=32,
            warps_per_mp=64, thread_blocks_per_mp=32, registers=65536, registers_per_block=65536,
            max_registers_per_thread=255, register_alloc_granularity=256, shared_memory=233472,
            shared_memory_per_block=49152, shared_memory_per_block_optin=232448,
            reserved_shared_memory_per_block=1024, smem_granularity=32, smem_alloc_granularity=128)
A100 = dict(H100, compute_capability_major=8, shared_memory=167936, shared_memory_per_block_optin=166912)
TURING = dict(H100, compute_capability_major=7, compute_capability_minor=5, warps_per_mp=32,
              thread_blocks_per_mp=16, shared_memory=65536, shared_memory_per_block_optin=65536,
              reserved_shared_memory_per_block=0, smem_alloc_granularity=256)
DEVICES = {'h100': H100, 'a100': A100, 'turing': TURING}


def ceil_to(value, multiple):
    return -(-value // multiple) * multiple


def reference_occupancy(dev, threads, shared, regs):
    """cuda_occupancy.h's cudaOccMaxActiveBlocksPerMultiprocessor, for the
    default carveout: (blocks, limit name), or None when nothing can run."""
    warps = ceil_to(threads, dev['warp_size']) // dev['warp_size']
    if threads < 1 or threads > dev['max_threads'] or regs > dev['max_registers_per_thread']:
        return None
    regs_per_warp = ceil_to(regs * dev['warp_size'], dev['register_alloc_granularity'])
    if regs_per_warp * ceil_to(warps, 4) > dev['registers_per_block']:
        return None
    smem = ceil_to(shared + dev['reserved_shared_memory_per_block'], dev['smem_alloc_granularity'])
    if smem > max(dev['shared_memory_per_block'], dev['shared_memory_per_block_optin']) + \
            dev['reserved_shared_memory_per_block']:
        return None
    limits = [(dev['thread_blocks_per_mp'], 'device'), (dev['warps_per_mp'] // warps, 'warps')]
    if regs_per_warp:
        limits.append(((dev['registers'] // 4 // regs_per_warp) * 4 // warps, 'regs'))
    if smem:
        limits.append((dev['shared_memory'] // smem, 'smem'))
    best = min(n for n, _ in limits)
    if best == 0:
        return None
    return best, next(name for n, name in limits if n == best)


# ---------------------------------------------------------------- without a GPU

def test_device_data_by_hand():
    d = GCuda.DeviceData(**H100)
    assert isinstance(d, GCuda.DeviceData)
    # PyCUDA's attribute names, and the GObject properties
    assert (d.max_threads, d.warp_size, d.warps_per_mp, d.thread_blocks_per_mp) == (1024, 32, 64, 32)
    assert (d.registers, d.shared_memory, d.smem_granularity, d.smem_alloc_granularity) == \
        (65536, 233472, 32, 128)
    assert d.props.shared_memory_per_block_optin == 232448
    assert d.props.reserved_shared_memory_per_block == 1024
    assert d.get_registers() == 65536


def test_align():
    d = GCuda.DeviceData(**H100)
    assert [d.align_bytes(ws) for ws in (4, 8, 16)] == [64, 128, 128]
    assert d.align_bytes() == 64
    assert [d.align_words(ws) for ws in (4, 8, 16)] == [16, 16, 8]
    rng = np.random.default_rng()
    for n in rng.integers(0, 1 << 40, 500):
        n = int(n)
        for ws in (4, 8, 16):
            a = d.align_bytes(ws)
            assert d.align(n, ws) == ceil_to(n, a)
            assert d.align_dtype(n, ws) == ceil_to(n, a // ws)
        assert d.align(n) == ceil_to(n, 64)
    for bad in (0, 1, 2, 3, 32):
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            d.align_bytes(bad)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        d.align_dtype(10, 2)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        d.align(2 ** 64 - 1, 4)


def test_tex_channel_count():
    assert [GCuda.DeviceData.make_valid_tex_channel_count(n) for n in range(5)] == [1, 1, 2, 4, 4]
    for bad in (5, 8, 1000):
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            GCuda.DeviceData.make_valid_tex_channel_count(bad)


@pytest.mark.parametrize('name', sorted(DEVICES))
def test_occupancy_matches_reference(name):
    dev = DEVICES[name]
    d = GCuda.DeviceData(**dev)
    rng = np.random.default_rng()
    ran = failed = 0
    for threads, shared, regs in zip(rng.integers(1, 1100, 2000), rng.integers(0, 240000, 2000),
                                     rng.integers(0, 260, 2000)):
        threads, shared, regs = int(threads), int(shared), int(regs)
        if rng.random() < 0.5:
            shared //= 8  # more workloads that fit
        want = reference_occupancy(dev, threads, shared, regs)
        if want is None:
            with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
                GCuda.OccupancyRecord(d, threads, shared_mem=shared, registers=regs)
            failed += 1
            continue
        o = GCuda.OccupancyRecord(d, threads, shared_mem=shared, registers=regs)
        warps = ceil_to(threads, 32) // 32
        assert (o.tb_per_mp, o.limited_by) == want, (threads, shared, regs)
        assert o.warps_per_mp == want[0] * warps
        assert o.occupancy == pytest.approx(want[0] * warps / dev['warps_per_mp'])
        assert min(o.tb_per_mp_limits)[0] == o.tb_per_mp
        ran += 1
    assert ran > 300 and failed > 100


def test_occupancy_by_hand():
    d = GCuda.DeviceData(**H100)
    o = GCuda.OccupancyRecord(d, 128, shared_mem=16000, registers=40)
    # 40 regs: 1280 a warp, 12 warps a partition, 48 an SM, 12 blocks of 4 warps;
    # shared: (16000 + 1024) = 17024 a block, 13 in 233472
    assert (o.tb_per_mp, o.limited_by, o.warps_per_mp, o.occupancy) == (12, 'regs', 48, 0.75)
    assert o.tb_per_mp_limits == [(32, 'device'), (16, 'warps'), (12, 'regs'), (13, 'smem')]
    assert o.props.limited_by == GCuda.OccupancyLimit.REGISTERS
    o = GCuda.Occupancy(d, 256)
    assert (o.tb_per_mp, o.limited_by, o.occupancy) == (8, 'warps', 1.0)
    o = GCuda.OccupancyRecord(d, 256, 49152)
    assert (o.tb_per_mp, o.limited_by) == (4, 'smem')
    # ties go to the first of device, warps, regs, smem (as PyCUDA's min over
    # (count, name) pairs would for device/warps)
    o = GCuda.OccupancyRecord(GCuda.DeviceData(**A100), 992, registers=32)
    assert (o.tb_per_mp, o.limited_by) == (2, 'warps')


def test_occupancy_impossible():
    d = GCuda.DeviceData(**H100)
    for threads, shared, regs, word in [(0, 0, 0, 'threads'), (1025, 0, 0, 'threads'),
                                        (32, 0, 256, 'registers'), (1024, 0, 65, 'registers'),
                                        (32, 232449, 0, 'shared memory')]:
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError) as info:
            GCuda.OccupancyRecord(d, threads, shared_mem=shared, registers=regs)
        assert word in info.value.message
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError) as info:
        GCuda.OccupancyRecord(GCuda.DeviceData(warp_size=32), 32)
    assert 'max-threads' in info.value.message
    with pytest.raises(OverflowError):
        GCuda.OccupancyRecord(d, -1)


class FakeContext:
    def __init__(self, handle):
        self.handle = handle
        self.destroyed = False

    def get_handle(self):
        return self.handle

    def is_destroyed(self):
        return self.destroyed


def test_memoize_logic(monkeypatch):
    from gcuda._override import memoize as impl
    current = [FakeContext(1)]
    monkeypatch.setattr(impl, '_memoize_context', lambda: current[0])
    calls = []

    @GCuda.context_dependent_memoize
    def build(x, scale=1):
        calls.append((current[0].handle, x, scale))
        return object()

    first = build(3)
    assert build(3) is first
    assert build(4) is not first
    assert build(3, scale=2) is not first
    assert build(3, scale=2) is build(3, scale=2)
    assert len(calls) == 3

    other = FakeContext(2)
    current[0] = other
    in_other = build(3)
    assert in_other is not first and build(3) is in_other
    assert len(calls) == 4

    # a destroyed context's results are not used, even if its handle comes back
    other.destroyed = True
    current[0] = FakeContext(2)
    assert build(3) is not in_other
    assert len(calls) == 5

    GCuda.clear_context_caches()
    build(3)
    assert len(calls) == 6
    assert build.__name__ == 'build'


def test_without_driver():
    # in a child whose driver cannot be loaded, whatever this host has
    code = textwrap.dedent('''
        import gi
        gi.require_version('GCuda', '1.0')
        from gi.repository import GCuda, GLib
        for call in (GCuda.start_profiler, lambda: GCuda.profiler_stop(None), GCuda.DeviceData):
            try:
                call()
            except GCuda.RuntimeError as e:
                assert e.matches(GCuda.error_quark(), int(GCuda.Error.DRIVER_NOT_FOUND)), e.message
            else:
                raise AssertionError('no error')
        print('all failed')
    ''')
    env = dict(os.environ, GCUDA_DRIVER_LIBRARY='/nonexistent/libcuda.so.1')
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == 'all failed'


# ---------------------------------------------------------------- on a GPU

KERNELS = r'''
#ifndef NACC
#define NACC 64
#endif
extern "C" __global__ void heavy(const float *in, float *out, int n)
{
  float acc[NACC];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < NACC; k++)
    acc[k] = in[(i + k * 977) % n];
#pragma unroll
  for (int r = 0; r < 4; r++) {
#pragma unroll
    for (int k = 0; k < NACC; k++)
      acc[k] = acc[k] * acc[(k * 7 + r + 1) % NACC] + acc[(k * 13 + r + 3) % NACC];
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < NACC; k++)
    s += acc[k] * (float) (k + 1);
  if (i < n)
    out[i] = s;
}

extern "C" __global__ void tile_static(const float *in, float *out, int n)
{
  __shared__ float tile[TILE];
  for (int k = threadIdx.x; k < TILE; k += blockDim.x)
    tile[k] = in[(blockIdx.x * TILE + k) % n];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tile[(TILE - 1 - threadIdx.x) % TILE];
}

extern "C" __global__ void tile_dynamic(const float *in, float *out, int n)
{
  extern __shared__ float dyn[];
  dyn[threadIdx.x] = in[(blockIdx.x * blockDim.x + threadIdx.x) % n];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = dyn[blockDim.x - 1 - threadIdx.x];
}
'''

BUILDS = [['-DTILE=3000'], ['-DTILE=3000', '--maxrregcount=32'], ['-DTILE=3000', '--maxrregcount=64'],
          ['-DTILE=10000', '-DNACC=160'], ['-DTILE=10000', '-DNACC=16']]


@pytest.mark.gpu
def test_device_data_from_device(dev):
    A = GCuda.DeviceAttribute
    d = GCuda.DeviceData(dev)
    assert d.max_threads == dev.get_attribute(A.MAX_THREADS_PER_BLOCK)
    assert d.warp_size == dev.get_attribute(A.WARP_SIZE)
    assert d.warps_per_mp == dev.get_attribute(A.MAX_THREADS_PER_MULTIPROCESSOR) // d.warp_size >= 1
    assert d.thread_blocks_per_mp == dev.get_attribute(A.MAX_BLOCKS_PER_MULTIPROCESSOR)
    assert d.registers == dev.get_attribute(A.MAX_REGISTERS_PER_MULTIPROCESSOR)
    assert d.shared_memory == dev.get_attribute(A.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
    assert d.props.reserved_shared_memory_per_block == dev.get_attribute(A.RESERVED_SHARED_MEMORY_PER_BLOCK)
    assert d.props.shared_memory_per_block_optin == dev.get_attribute(A.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
    assert (d.props.compute_capability_major, d.props.compute_capability_minor) == dev.compute_capability()
    assert GCuda.DeviceData().registers == d.registers  # the default context's device


@pytest.mark.gpu
def test_occupancy_matches_driver(ctx):
    d = GCuda.DeviceData()
    figures = {name: getattr(d.props, name) for name in H100}
    reg_counts = set()
    compared = impossible = 0
    for options in BUILDS:
        mod = GCuda.SourceModule(KERNELS, options=options)
        for name in ('heavy', 'tile_static', 'tile_dynamic'):
            f = mod.get_function(name)
            regs, static = f.props.num_regs, f.props.shared_size_bytes
            reg_counts.add(regs)
            for threads in (32, 96, 128, 256, 288, 512, 640, 800, 1024):
                for dyn in (0, 2000, 30000):
                    if dyn > f.props.max_dynamic_shared_size_bytes:
                        continue
                    try:
                        driver = f.get_max_active_blocks_per_multiprocessor(threads, dyn)
                    except GLib.Error:
                        driver = 0
                    want = reference_occupancy(figures, threads, static + dyn, regs)
                    assert (want[0] if want else 0) == driver, (options, name, threads, dyn, regs)
                    if want is None:
                        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
                            GCuda.OccupancyRecord(d, threads, static + dyn, regs)
                        impossible += 1
                        continue
                    o = GCuda.OccupancyRecord(d, threads, shared_mem=static + dyn, registers=regs)
                    assert o.tb_per_mp == driver, (options, name, threads, dyn, regs, o.limited_by)
                    compared += 1
    assert len(reg_counts) >= 4 and compared >= 200 and impossible >= 1


def _memoize_context():
    return GCuda.Context.get_current() or GCuda.Context.get_default()


@pytest.mark.gpu
def test_memoize_per_context(dev, ctx):
    calls = []

    @GCuda.context_dependent_memoize
    def kernel(scale):
        calls.append(scale)
        source = '__global__ void k(float *a) { a[threadIdx.x] *= %d.0f; }' % scale
        return GCuda.SourceModule(source, cache_dir=False, context=_memoize_context()).get_function('k')

    def check(k, scale, context):
        # the function is the one compiled for its argument, in @context
        a = np.random.default_rng().standard_normal(64).astype(np.float32)
        buf = GCuda.to_device(a, context=context)
        k(buf, block=(64, 1, 1))
        np.testing.assert_array_equal(GCuda.from_device(buf, a.shape, a.dtype), a * scale)

    k2 = kernel(2)
    assert kernel(2) is k2 and len(calls) == 1
    check(k2, 2, ctx)
    k3 = kernel(3)
    assert k3 is not k2 and len(calls) == 2
    check(k3, 3, ctx)

    other = dev.create_context(GCuda.ContextFlags.SCHED_AUTO)  # not made current: `with other:` is
    try:
        with other:
            k_other = kernel(2)
            assert k_other is not k2 and kernel(2) is k_other
        assert len(calls) == 3
        check(k_other, 2, other)
        assert kernel(2) is k2  # back in the default context
        with ctx:
            assert kernel(2) is k2
    finally:
        other.detach()
    GCuda.clear_context_caches()
    assert kernel(2) is not k2 and len(calls) == 4
    GCuda.clear_context_caches()


@pytest.mark.gpu
def test_mark_cuda_test():
    ran = []

    @GCuda.mark_cuda_test
    def body(x):
        ran.append(x)
        return x * 2

    assert body(21) == 42 and ran == [21]
    assert any(m.name == 'cuda' for m in getattr(body, 'pytestmark', []))


@pytest.mark.gpu
def test_profiler(ctx):
    GCuda.start_profiler()
    GCuda.stop_profiler()
    GCuda.profiler_start(ctx)
    GCuda.profiler_stop(ctx)
