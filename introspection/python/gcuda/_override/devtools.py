# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyCUDA's device tools: DeviceData and Occupancy (OccupancyRecord) with
PyCUDA's attributes, mark_cuda_test() and the profiler calls."""

import functools
import gc

from gi.module import get_introspection_module
from gi.repository import GLib

from . import OVERRIDE_MODULE
from .context import Context
from .errors import _raising

GCuda = get_introspection_module('GCuda')

__all__ = ['OccupancyRecord', 'mark_cuda_test', 'start_profiler', 'stop_profiler']


_OCCUPANCY_LIMIT_NAMES = {GCuda.OccupancyLimit.DEVICE: 'device', GCuda.OccupancyLimit.WARPS: 'warps',
                          GCuda.OccupancyLimit.REGISTERS: 'regs', GCuda.OccupancyLimit.SHARED_MEMORY: 'smem'}

_align_bytes = _raising(GCuda.DeviceData.align_bytes)
_align = _raising(GCuda.DeviceData.align)
_align_words = _raising(GCuda.DeviceData.align_words)


# DeviceData and Occupancy keep PyGObject's docstrings (their constructors).

class DeviceData(GCuda.DeviceData):
    __module__ = OVERRIDE_MODULE

    def __new__(cls, dev=None, **props):
        # DeviceData(dev=None) reads a device, as in PyCUDA; DeviceData(max_threads=...,
        # ...) describes a device that is not there (the GObject is made by __init__).
        if dev is None and props:
            return GCuda.DeviceData.__new__(cls)
        return cls.new(dev)

    def __init__(self, dev=None, **props):
        if dev is None and props:
            GCuda.DeviceData.__init__(self, **props)

    max_threads = property(lambda self: self.props.max_threads)
    warp_size = property(lambda self: self.props.warp_size)
    warps_per_mp = property(lambda self: self.props.warps_per_mp)
    thread_blocks_per_mp = property(lambda self: self.props.thread_blocks_per_mp)
    registers = property(lambda self: self.props.registers)
    shared_memory = property(lambda self: self.props.shared_memory)
    smem_granularity = property(lambda self: self.props.smem_granularity)
    smem_alloc_granularity = property(lambda self: self.props.smem_alloc_granularity)

    # PyCUDA's default word size
    def align_bytes(self, word_size=4):
        return _align_bytes(self, word_size)

    def align(self, bytes, word_size=4):  # noqa: A002 - PyCUDA's name
        return _align(self, bytes, word_size)

    def align_words(self, word_size):
        return _align_words(self, word_size)


class Occupancy(GCuda.Occupancy):
    __module__ = OVERRIDE_MODULE

    def __new__(cls, devdata, threads, shared_mem=0, registers=0):
        return cls.new(devdata, threads, shared_mem, registers)

    def __init__(self, *args, **kwargs):
        pass  # the object is fully made by new() in __new__

    tb_per_mp = property(lambda self: self.props.tb_per_mp)
    warps_per_mp = property(lambda self: self.props.warps_per_mp)
    occupancy = property(lambda self: self.props.occupancy)
    # PyCUDA's strings ('device', 'warps', 'regs', 'smem'); the enum is props.limited_by
    limited_by = property(lambda self: _OCCUPANCY_LIMIT_NAMES[self.props.limited_by])
    tb_per_mp_limits = property(lambda self: [
        (self.get_limit(limit), name) for limit, name in _OCCUPANCY_LIMIT_NAMES.items()
        if self.get_limit(limit) != GLib.MAXINT])


OccupancyRecord = Occupancy


def mark_cuda_test(func):
    """PyCUDA's mark_cuda_test for users' pytest tests: marks @func with
    pytest's 'cuda' mark (when pytest is there) and runs it with the
    default context made current on the calling thread (pushed, as PyCUDA's
    make_default_context() does; a GCuda error when there is no device).
    After @func, the context's work is waited for, the context popped
    (when it is still current), the context caches cleared and garbage
    collected, as in PyCUDA."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        ctx = Context.get_default()
        ctx.push()
        try:
            return func(*args, **kwargs)
        finally:
            try:
                if not ctx.is_destroyed():
                    ctx.synchronize()
            finally:
                if GCuda.Context.get_current() is ctx:
                    Context.pop()
                from .memoize import clear_context_caches
                clear_context_caches()
                gc.collect()

    try:
        import pytest
    except ImportError:
        return wrapper
    return pytest.mark.cuda(wrapper)


_profiler_start = _raising(GCuda.profiler_start)
_profiler_stop = _raising(GCuda.profiler_stop)


def start_profiler(context=None):
    """PyCUDA's pycuda.driver.start_profiler (cuProfilerStart)."""
    _profiler_start(context)


def stop_profiler(context=None):
    """PyCUDA's pycuda.driver.stop_profiler (cuProfilerStop)."""
    _profiler_stop(context)
