#!/usr/bin/env python3
# multi-gpu.py: split a vector add over every GPU present, each GPU on its
# own stream, gather the parts and check the result against numpy
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import sys

import numpy

import gi
gi.require_version('GCuda', '1.0')
from gi.repository import GLib, GCuda  # noqa: E402

N = 1 << 24
BLOCK = 256

KERNEL = '''
__global__ void add(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
'''


def main():
    n_devices = GCuda.Device.get_count()
    if n_devices == 0:
        print('multi-gpu: No CUDA device found: check the NVIDIA driver installation', file=sys.stderr)
        return 1

    # Page-locked (PORTABLE: for every device's context), so that the copies
    # below return at once and run on their streams: every GPU copies and
    # computes at the same time.
    portable = GCuda.HostAllocFlags.PORTABLE
    rng = numpy.random.default_rng()
    a = GCuda.pagelocked_empty(N, numpy.float32, mem_flags=portable)
    b = GCuda.pagelocked_empty(N, numpy.float32, mem_flags=portable)
    c = GCuda.pagelocked_empty(N, numpy.float32, mem_flags=portable)
    a[:] = rng.random(N, dtype=numpy.float32)
    b[:] = rng.random(N, dtype=numpy.float32)
    c[:] = numpy.nan

    # Queue every GPU's part (its slice of the vectors) first ...
    parts = []
    for ordinal in range(n_devices):
        ctx = GCuda.Device.get(ordinal).get_primary_context()
        first, last = N * ordinal // n_devices, N * (ordinal + 1) // n_devices
        count = last - first
        # a cubin for this device (the GPUs of a host may differ), cached on disk
        add = GCuda.SourceModule(KERNEL, context=ctx).get_function('add')
        stream = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING, context=ctx)
        a_gpu = GCuda.mem_alloc(count * 4, context=ctx)
        b_gpu = GCuda.mem_alloc(count * 4, context=ctx)
        c_gpu = GCuda.mem_alloc(count * 4, context=ctx)
        GCuda.memcpy_htod_async(a_gpu, a[first:last], stream=stream)
        GCuda.memcpy_htod_async(b_gpu, b[first:last], stream=stream)
        add(c_gpu, a_gpu, b_gpu, numpy.int32(count),
            block=(BLOCK, 1, 1), grid=((count + BLOCK - 1) // BLOCK, 1), stream=stream)
        GCuda.memcpy_dtoh_async(c[first:last], c_gpu, stream=stream)
        parts.append((stream, a_gpu, b_gpu, c_gpu))

    # ... then wait for them all.
    for stream, *buffers in parts:
        stream.synchronize()
        for buf in buffers:
            buf.free()

    # IEEE single-precision addition is exact to the last bit on both sides.
    max_error = float(numpy.max(numpy.abs(c - (a + b))))
    if not max_error == 0.0:  # also catches NaN: a part never written
        print('multi-gpu: wrong result: max error %g' % max_error, file=sys.stderr)
        return 1
    print('multi-gpu: %d elements on %d GPU%s OK (max error %g)'
          % (N, n_devices, '' if n_devices == 1 else 's', max_error))
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except GLib.Error as e:  # GCuda.CudaError and its subclasses are GLib.Errors
        print('multi-gpu: %s' % e.message, file=sys.stderr)
        sys.exit(1)
