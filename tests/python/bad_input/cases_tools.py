# Device tools: DeviceData (a device described by hand needs no driver),
# occupancy, alignment helpers, context_dependent_memoize.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import MEMORY, NODRIVER, accepted, case, err, raises

_OCCUPANCY = {
    'zero-threads': ('device_data(), 0', err('INVALID_ARGUMENT')),
    'too-many-threads': ('device_data(), 2048', err('INVALID_ARGUMENT')),
    'negative-threads': ('device_data(), -1', raises('OverflowError')),
    'too-many-registers-per-thread': ('device_data(), 128, 0, 256', err('INVALID_ARGUMENT')),
    'too-many-registers-per-block': ('device_data(), 1024, 0, 255', err('INVALID_ARGUMENT')),
    'too-much-shared-memory': ('device_data(), 128, 1 << 20', err('INVALID_ARGUMENT')),
    'shared-memory-2-63': ('device_data(), 128, 2**63', err('INVALID_ARGUMENT')),
    'shared-memory-negative': ('device_data(), 128, -1', raises('OverflowError')),
    'missing-figures': ('GCuda.DeviceData(max_threads=1024), 128', err('INVALID_ARGUMENT')),
    'zero-warp-size': ('device_data(warp_size=0), 128', err('INVALID_ARGUMENT')),
    'not-device-data': ('dict(max_threads=1024), 128', raises('TypeError')),
}
for what, (args, expect) in _OCCUPANCY.items():
    case('tools/occupancy-' + what, 'GCuda.OccupancyRecord(%s)' % args, expect, NODRIVER)
case('tools/occupancy-limit-not-a-limit', 'GCuda.OccupancyRecord(device_data(), 128).get_limit(7)',
     raises('TypeError'), NODRIVER)

_DEVDATA = {
    'align-bytes-3': ('device_data().align_bytes(3)', err('INVALID_ARGUMENT')),
    'align-bytes-0': ('device_data().align_bytes(0)', err('INVALID_ARGUMENT')),
    'align-overflows': ('device_data().align(2**64 - 1, 4)', err('INVALID_ARGUMENT')),
    'align-words-32': ('device_data().align_words(32)', err('INVALID_ARGUMENT')),
    'align-dtype-3': ('device_data().align_dtype(10, 3)', err('INVALID_ARGUMENT')),
    'align-dtype-overflows': ('device_data().align_dtype(2**64 - 1, 4)', err('INVALID_ARGUMENT')),
    'tex-channels-5': ('GCuda.DeviceData.make_valid_tex_channel_count(5)', err('INVALID_ARGUMENT')),
    'unknown-property': ('GCuda.DeviceData(no_such_figure=1)', raises('TypeError')),
    'unbound-device': ('GCuda.DeviceData(GObject.new(GCuda.Device))', err('INVALID_ARGUMENT')),
    'not-a-device': ("GCuda.DeviceData.new('device 0')", raises('TypeError')),
}
for what, (code, expect) in _DEVDATA.items():
    case('tools/device-data-' + what, code, expect, NODRIVER)
# figures given by hand are checked where they are used (documented)
case('tools/device-data-negative-figure-kept', 'assert GCuda.DeviceData(max_threads=-1).max_threads == -1',
     accepted('DeviceData keeps the figures it is given: occupancy checks them where it uses them'), NODRIVER)
case('tools/device-data-negative-figure', 'GCuda.OccupancyRecord(device_data(max_threads=-1), 128)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('tools/device-data-negative-shared-memory', 'GCuda.OccupancyRecord(device_data(shared_memory=-4096), 128)',
     err('INVALID_ARGUMENT'), NODRIVER)

case('tools/memoize-unhashable', 'GCuda.context_dependent_memoize(lambda x: x)([1])', raises('TypeError'), MEMORY)
case('tools/device-data-of-destroyed-context-device', 'GCuda.DeviceData(destroyed_ctx().get_device())',
     accepted('a device outlives its contexts: its figures are still the device\'s'), MEMORY)
