# Devices: ordinals, PCI bus ids, attributes, peers, objects without a device.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import MEMORY, NODRIVER, case, drv, err, raises

# ---------------------------------------------------------------- ordinals

for n, ordinal in enumerate(['-1', '1000', '2**31 - 1', '-2**31', 'GCuda.Device.get_count()']):
    case('device/ordinal-%s' % ['minus-one', '1000', 'int-max', 'int-min', 'count'][n],
         'GCuda.Device.get(%s)' % ordinal, drv('INVALID_DEVICE'), MEMORY)
case('device/ordinal-pycuda-constructor', 'cuda.Device(-1)', drv('INVALID_DEVICE'), MEMORY)
case('device/ordinal-too-big-for-int', 'GCuda.Device.get(2**31)', raises('OverflowError'), NODRIVER)
case('device/ordinal-too-small-for-int', 'GCuda.Device.get(-2**31 - 1)', raises('OverflowError'), NODRIVER)
case('device/ordinal-string', "GCuda.Device.get('0')", raises('TypeError'), NODRIVER)
# PyGObject truncates a float given for an integer parameter; the override
# checks GCuda's integer parameters with operator.index() first
case('device/ordinal-float', 'GCuda.Device.get(0.5)', raises('TypeError'), NODRIVER)
case('device/ordinal-numpy-float', 'GCuda.Device.get(np.float32(0))', raises('TypeError'), NODRIVER)
case('device/ordinal-keyword-float', 'GCuda.Device.get(ordinal=0.0)', raises('TypeError'), NODRIVER)
case('device/ordinal-none', 'GCuda.Device.get(None)', raises('TypeError'), NODRIVER)

# ---------------------------------------------------------------- PCI bus ids

_BAD_BUS_IDS = {
    'empty': "''", 'garbage': "'zz'", 'no-function': "'0000:41:00'", 'four-parts': "'1:2:3:4.0'",
    'not-hex': "'0000:gg:00.0'", 'colon': "':'", 'trailing-dot': "'0000:41:00.'",
    'two-dots': "'0000:41:00.0.1'", 'leading-space': "' 0000:41:00.0'", 'newline': "'0000:41:00.0\\n'",
    'long-domain': "'123456789:41:00.0'", 'long': "'f' * 4096", 'non-ascii': "'\\uff10000:41:00.0'",
    'negative': "'-1:41:00.0'",
}
for what, value in _BAD_BUS_IDS.items():
    # malformed ids are refused before the driver is loaded
    case('device/pci-bus-id-' + what, 'GCuda.Device.get_by_pci_bus_id(%s)' % value, err('INVALID_ARGUMENT'),
         NODRIVER)
# PyGObject cuts a str at a NUL; the override refuses it, as Python's own calls do
case('device/pci-bus-id-embedded-nul', "GCuda.Device.get_by_pci_bus_id('0000:41:00.0\\0junk')",
     raises('ValueError'), NODRIVER)
case('device/pci-bus-id-bytes', "GCuda.Device.get_by_pci_bus_id(b'0000:41:00.0')", raises('TypeError'), NODRIVER)
case('device/pci-bus-id-none', 'GCuda.Device.get_by_pci_bus_id(None)', raises('TypeError'), NODRIVER)
# well-formed, but no device there: the driver's answer
case('device/pci-bus-id-absent', "GCuda.Device.get_by_pci_bus_id('0000:ff:1f.7')", drv('INVALID_DEVICE'), MEMORY)

# ---------------------------------------------------------------- attributes

case('device/attribute-zero', 'dev().get_attribute(0)', raises('TypeError'), MEMORY)
case('device/attribute-unknown', 'dev().get_attribute(9999)', raises('TypeError'), MEMORY)
case('device/attribute-enum-of-unknown', 'dev().get_attribute(GCuda.DeviceAttribute(9999))', raises('ValueError'),
     MEMORY)
case('device/attribute-string', "dev().get_attribute('warp_size')", raises('TypeError'), MEMORY)
case('device/attribute-python-name', 'dev().no_such_attribute', raises('AttributeError'), MEMORY)
case('device/attribute-private-name', 'dev()._warp_size', raises('AttributeError'), MEMORY)

# ---------------------------------------------------------------- peers and flags

case('device/peer-itself', 'dev().can_access_peer(dev())', err('INVALID_ARGUMENT'), MEMORY)
case('device/peer-none', 'dev().can_access_peer(None)', raises('TypeError'), MEMORY)
case('device/peer-not-a-device', 'dev().can_access_peer(ctx())', raises('TypeError'), MEMORY)
case('device/primary-flags-two-schedules',
     'dev().set_primary_context_flags(GCuda.ContextFlags.SCHED_SPIN | GCuda.ContextFlags.SCHED_YIELD)',
     err('INVALID_ARGUMENT'), MEMORY)
case('device/primary-flags-unknown-bit', 'dev().set_primary_context_flags(GCuda.ContextFlags(0x1000))',
     err('INVALID_ARGUMENT'), MEMORY)

# ---------------------------------------------------------------- a GCuda.Device made by hand

case('device/unbound-attribute', 'GObject.new(GCuda.Device).get_attribute(GCuda.DeviceAttribute.WARP_SIZE)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('device/unbound-create-context', 'GObject.new(GCuda.Device).create_context(0)', err('INVALID_ARGUMENT'),
     NODRIVER)
case('device/unbound-primary-context', 'GObject.new(GCuda.Device).get_primary_context()', err('INVALID_ARGUMENT'),
     NODRIVER)
case('device/unbound-as-peer', 'dev().can_access_peer(GObject.new(GCuda.Device))', err('INVALID_ARGUMENT'), MEMORY)
case('device/unbound-device-data', 'GCuda.DeviceData.new(GObject.new(GCuda.Device))', err('INVALID_ARGUMENT'),
     NODRIVER)
