# PyCUDA's `pycuda.tools` names, backed by GCuda: memory pools and bitlog2
# here; DeviceData, OccupancyRecord, context_dependent_memoize and
# clear_context_caches come from the GCuda override when it has them.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

DeviceMemoryPool = GCuda.DeviceMemoryPool
PageLockedMemoryPool = GCuda.PageLockedMemoryPool
bitlog2 = GCuda.bitlog2

# Looked up on use, so this module works with an override that lacks them.
_FROM_OVERRIDE = ('DeviceData', 'OccupancyRecord', 'context_dependent_memoize', 'clear_context_caches',
                  'mark_cuda_test')


def __getattr__(name):
    if name in _FROM_OVERRIDE:
        try:
            return getattr(GCuda, name)
        except AttributeError:
            pass
    raise AttributeError('module %r has no attribute %r' % (__name__, name))


def __dir__():
    return sorted(set(globals()) | {n for n in _FROM_OVERRIDE if hasattr(GCuda, n)})
