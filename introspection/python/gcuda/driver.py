# PyCUDA's `pycuda.driver` names, backed by GCuda.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

Device = GCuda.Device
Context = GCuda.Context

Error = GCuda.CudaError
LogicError = GCuda.LogicError
LaunchError = GCuda.LaunchError
MemoryError = GCuda.MemoryError  # noqa: A001
RuntimeError = GCuda.RuntimeError  # noqa: A001
CompileError = GCuda.CompileError

device_attribute = GCuda.DeviceAttribute
ctx_flags = GCuda.ContextFlags
limit = GCuda.Limit
compute_mode = GCuda.ComputeMode


class func_cache:  # noqa: N801 - PyCUDA's name
    PREFER_NONE = GCuda.CacheConfig.NONE
    PREFER_SHARED = GCuda.CacheConfig.SHARED
    PREFER_L1 = GCuda.CacheConfig.L1
    PREFER_EQUAL = GCuda.CacheConfig.EQUAL


def init(flags=0):
    """Loads and initializes the driver (optional: GCuda does it on demand)."""
    if flags != 0:
        raise LogicError('cuInit flags must be 0', 'gcuda-error-quark', int(GCuda.Error.INVALID_ARGUMENT))
    GCuda.init()


get_version = GCuda.get_version
get_driver_version = GCuda.get_driver_version
mem_get_info = GCuda.mem_get_info
