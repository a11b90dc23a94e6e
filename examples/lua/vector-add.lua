#!/usr/bin/env lua
-- vector-add.lua: compile a kernel with NVRTC, launch it and check the
-- result, from Lua through LGI (Debian: lua-lgi with lua5.1 to lua5.3).
--
-- Lua 5.1 has no string.pack, so the vectors are 32-bit integers, written
-- and read byte by byte; integer addition leaves nothing to round.
--
-- SPDX-License-Identifier: LGPL-2.1-or-later

local lgi = require 'lgi'
local GLib = lgi.GLib
local GCuda = lgi.require('GCuda', '1.0')

local N = 1000000
local BLOCK = 256

local KERNEL = [[
__global__ void add(int *c, const int *a, const int *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
]]

-- LGI reports a GError as two results: the failed call's return value and
-- the error.
local function check(value, err, ...)
  if GLib.Error:is_type_of(err) then
    error(err, 0)
  end
  return value, err, ...
end

-- Non-negative integers below 2^31 as little-endian int32 bytes
local function pack(values)
  local parts = {}
  for i = 1, #values do
    local v = values[i]
    parts[i] = string.char(v % 256, math.floor(v / 256) % 256,
                           math.floor(v / 65536) % 256, math.floor(v / 16777216) % 256)
  end
  return table.concat(parts)
end

local function unpack_at(bytes, i)
  local b1, b2, b3, b4 = bytes:byte(4 * i - 3, 4 * i)
  local v = b1 + b2 * 256 + b3 * 65536 + b4 * 16777216
  return v >= 2147483648 and v - 4294967296 or v
end

local function main()
  -- The primary context of the device chosen by CUDA_DEVICE,
  -- ~/.cuda_device or the first device that works.
  local ctx = check(GCuda.Context.get_default())

  -- cubin for this context's device; the result is cached on disk, so the
  -- next run does not even load NVRTC.
  local compiler = GCuda.Compiler.new(ctx)
  local program = check(compiler:compile(KERNEL))
  local module = check(GCuda.Module.new_from_program(ctx, program))
  local add = check(module:get_function('add'))

  math.randomseed(os.time())
  local a, b = {}, {}
  for i = 1, N do
    a[i] = math.random(0, 1000000000)
    b[i] = math.random(0, 1000000000)
  end

  local size = N * 4
  local a_gpu = check(GCuda.Buffer.new(ctx, size))
  local b_gpu = check(GCuda.Buffer.new(ctx, size))
  local c_gpu = check(GCuda.Buffer.new(ctx, size))
  check(a_gpu:upload(0, pack(a)))
  check(b_gpu:upload(0, pack(b)))

  -- In the order of the kernel's parameters; the launch checks them
  -- against the kernel's parameter list.
  local args = GCuda.KernelArgs.new()
  args:add_buffer(c_gpu)
  args:add_buffer(a_gpu)
  args:add_buffer(b_gpu)
  args:add_int32(N)
  check(add:launch(math.ceil(N / BLOCK), 1, 1, BLOCK, 1, 1, 0, nil, args))

  -- A synchronous download waits for the kernel (same, legacy stream).
  local c = check(c_gpu:download(0, size)).data
  if #c ~= size then
    error(string.format('downloaded %d bytes, expected %d', #c, size), 0)
  end
  local wrong = 0
  for i = 1, N do
    if unpack_at(c, i) ~= a[i] + b[i] then
      wrong = wrong + 1
    end
  end
  if wrong ~= 0 then
    error(string.format('wrong result: %d of %d elements (c[0] = %d, expected %d)',
                        wrong, N, unpack_at(c, 1), a[1] + b[1]), 0)
  end
  print(string.format('vector-add: %d elements OK (max error 0)', N))
end

local ok, err = pcall(main)
if not ok then
  io.stderr:write('vector-add: ', tostring(err and err.message or err), '\n')
  os.exit(1)
end
