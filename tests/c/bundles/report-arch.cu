/* The kernels of tests/c/test-module-resource.c and
 * tests/python/test_module_resource.py, compiled into kernel bundles by
 * gcuda-compile: report_arch() tells which image the driver runs. */

#include "report-arch.h"

__global__ void report_arch(int *out)
{
#ifdef __CUDA_ARCH__
  out[0] = __CUDA_ARCH__;
#else
  out[0] = -1;
#endif
}

__global__ void axpb(float *y, const float *x, float a, float b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    y[i] = REPORT_ARCH_SCALE (a, x[i]) + b;
}
