#!/usr/bin/env python3
# vector-add.py: compile a kernel with NVRTC, launch it PyCUDA-style and
# check the result against numpy
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import sys

import numpy

import gi
gi.require_version('GCuda', '1.0')
from gi.repository import GLib, GCuda  # noqa: E402

N = 1000000
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
    # Compiled for the default context's device; cached on disk, so the
    # next run does not even load NVRTC.
    mod = GCuda.SourceModule(KERNEL)
    add = mod.get_function('add')

    rng = numpy.random.default_rng()
    a = rng.random(N, dtype=numpy.float32)
    b = rng.random(N, dtype=numpy.float32)
    c = numpy.zeros_like(a)

    # In/Out copy the arrays to the device and back around the launch; the
    # scalar must be a numpy scalar of the kernel parameter's type.
    grid = ((N + BLOCK - 1) // BLOCK, 1)
    add(GCuda.Out(c), GCuda.In(a), GCuda.In(b), numpy.int32(N),
        block=(BLOCK, 1, 1), grid=grid)

    # IEEE single-precision addition is exact to the last bit on both sides.
    max_error = float(numpy.max(numpy.abs(c - (a + b))))
    if not max_error == 0.0:  # also catches NaN
        print('vector-add: wrong result: max error %g (c[0] = %g, expected %g)'
              % (max_error, c[0], a[0] + b[0]), file=sys.stderr)
        return 1
    print('vector-add: %d elements OK (max error %g)' % (N, max_error))
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except GLib.Error as e:  # GCuda.CudaError and its subclasses are GLib.Errors
        print('vector-add: %s' % e.message, file=sys.stderr)
        sys.exit(1)
