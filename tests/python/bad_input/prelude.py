# The names a catalogue case's code sees (a fresh copy of this namespace in
# each child). Everything here is made on use, in the child: nothing touches
# the driver before a case asks for it.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import ctypes  # noqa: F401
import gc  # noqa: F401
import os  # noqa: F401
import sys  # noqa: F401

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib, GObject  # noqa: E402, F401

import numpy as np  # noqa: E402, F401

from gcuda import compiler, driver, tools  # noqa: E402, F401

cuda = driver
ARCH = 'sm_90'

KERNELS = r'''
__global__ void fill(float *out, float value, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = value;
}

__global__ void noargs(void) {}

struct pair { int a; double b; };

__global__ void take_struct(pair p, double *out) { out[0] = p.a + p.b; }

__global__ void shared_user(float *out)
{
  extern __shared__ float s[];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

__device__ int counter;
__constant__ float table[16];
'''


def dev(ordinal=0):
    return GCuda.Device.get(ordinal)


def ctx():
    """The default context."""
    return GCuda.Context.get_default()


def new_ctx():
    """A dedicated context on device 0, not left current."""
    c = dev().create_context(GCuda.ContextFlags.SCHED_AUTO)
    if GCuda.Context.get_current() == c:
        GCuda.Context.pop()
    return c


def destroyed_ctx():
    c = new_ctx()
    c.destroy()
    return c


def buf(size=64, context=None):
    return GCuda.mem_alloc(size, context=context)


def freed_buf(size=64):
    b = buf(size)
    b.free()
    return b


def host(size=64):
    """Page-locked host memory, as a numpy array of bytes."""
    return GCuda.pagelocked_empty(size, np.uint8)


def ptx(source=KERNELS, **kwargs):
    """PTX for ARCH, compiled without a driver."""
    kwargs.setdefault('arch', ARCH)
    kwargs.setdefault('cache_dir', False)
    return compiler.compile(source, target='ptx', **kwargs)


def cubin(source=KERNELS, **kwargs):
    kwargs.setdefault('arch', ARCH)
    kwargs.setdefault('cache_dir', False)
    return compiler.compile(source, **kwargs)


def module(source=KERNELS, **kwargs):
    """The kernels loaded into the default context."""
    kwargs.setdefault('cache_dir', False)
    return compiler.SourceModule(source, **kwargs)


def function(name='fill', source=KERNELS):
    return module(source).get_function(name)


def stream(**kwargs):
    return GCuda.Stream(**kwargs)


def event(flags=0, context=None):
    return GCuda.Event(flags, context)


def device_data(**props):
    """A device described by hand (needs no driver)."""
    values = dict(compute_capability_major=9, compute_capability_minor=0, max_threads=1024, warp_size=32,
                  warps_per_mp=64, thread_blocks_per_mp=32, registers=65536, registers_per_block=65536,
                  max_registers_per_thread=255, register_alloc_granularity=256, shared_memory=228 * 1024,
                  shared_memory_per_block=48 * 1024, shared_memory_per_block_optin=227 * 1024,
                  reserved_shared_memory_per_block=1024, smem_granularity=128, smem_alloc_granularity=128)
    values.update(props)
    return GCuda.DeviceData(**values)


def array_desc(width=16, height=0, depth=0, fmt=None, channels=1, flags=None):
    return GCuda.ArrayDescriptor.new(width, height, depth,
                                     GCuda.ArrayFormat.FLOAT if fmt is None else fmt, channels,
                                     GCuda.ArrayFlags.NONE if flags is None else flags)


def namespace():
    """A fresh namespace for one case."""
    return {k: v for k, v in globals().items() if not k.startswith('__')}
