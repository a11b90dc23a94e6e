#!/usr/bin/env lua
-- device-info.lua: list the CUDA devices with GCuda, from Lua through LGI
-- (Debian: lua-lgi with lua5.1 to lua5.3).
--
-- LGI reports a GError as two results: the failed call's return value
-- (nil, false or 0) and the error. `check` below turns that into a Lua
-- error.
--
-- SPDX-License-Identifier: LGPL-2.1-or-later

local lgi = require 'lgi'
local GLib = lgi.GLib
local GCuda = lgi.require('GCuda', '1.0')

local GIB = 1024 ^ 3

local function check(value, err, ...)
  if GLib.Error:is_type_of(err) then
    error(err, 0)
  end
  return value, err, ...
end

local function main()
  local major, minor, revision = GCuda.get_cuda_version()
  local driver = check(GCuda.get_driver_version())

  print(string.format('GCuda %d.%d.%d', GCuda.get_major_version(), GCuda.get_minor_version(),
                      GCuda.get_micro_version()))
  print(string.format('CUDA version (headers): %d.%d.%d', major, minor, revision))
  print(string.format('Driver version: %d.%d (%d)', math.floor(driver / 1000),
                      math.floor(driver % 1000 / 10), driver))

  local count = check(GCuda.Device.get_count())
  for ordinal = 0, count - 1 do
    local dev = check(GCuda.Device.get(ordinal))
    local cc_major, cc_minor = dev:get_compute_capability()
    print('')
    print(string.format('Device %d: %s', ordinal, dev.name))
    print(string.format('  Compute capability: %d.%d', cc_major, cc_minor))
    print(string.format('  Total memory:       %.2f GiB', dev.total_memory / GIB))
    print(string.format('  Multiprocessors:    %d', dev.multiprocessor_count))
    print(string.format('  PCI bus id:         %s', dev.pci_bus_id))
    print(string.format('  UUID:               %s', dev.uuid))
  end

  -- The primary context of the device chosen by CUDA_DEVICE,
  -- ~/.cuda_device or the first device that works.
  local ctx = check(GCuda.Context.get_default())
  local free, total = check(ctx:get_memory_info())
  print('')
  print(string.format('Default context: device %d, %.2f GiB free of %.2f GiB',
                      ctx.device.ordinal, free / GIB, total / GIB))
end

local ok, err = pcall(main)
if not ok then
  io.stderr:write('device-info: ', tostring(err and err.message or err), '\n')
  os.exit(1)
end
