#!/usr/bin/env gjs
// vector-add.js: compile a kernel with NVRTC, launch it and check the result
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const {GLib, GCuda} = imports.gi;
const System = imports.system;

const N = 1000000;
const BLOCK = 256;

const KERNEL = `
__global__ void add(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
`;

// The bytes of a typed array, for upload()
function bytesOf(array) {
    return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

// A GLib.Bytes of floats as a Float32Array (copied: the GLib.Bytes data
// need not be 4-byte aligned inside its ArrayBuffer)
function floatsOf(bytes) {
    const u8 = bytes.toArray().slice();
    return new Float32Array(u8.buffer, 0, u8.byteLength / 4);
}

function main() {
    // The primary context of the device chosen by CUDA_DEVICE,
    // ~/.cuda_device or the first device that works.
    const ctx = GCuda.Context.get_default();

    // cubin for this context's device; the result is cached on disk, so the
    // next run does not even load NVRTC.
    const compiler = GCuda.Compiler.new(ctx);
    const program = compiler.compile(KERNEL);
    const module = GCuda.Module.new_from_program(ctx, program);
    const add = module.get_function('add');

    const a = new Float32Array(N), b = new Float32Array(N);
    for (let i = 0; i < N; i++) {
        a[i] = Math.random();
        b[i] = Math.random();
    }

    const size = N * 4;
    const aGpu = GCuda.Buffer.new(ctx, size);
    const bGpu = GCuda.Buffer.new(ctx, size);
    const cGpu = GCuda.Buffer.new(ctx, size);
    aGpu.upload(0, bytesOf(a));
    bGpu.upload(0, bytesOf(b));

    // In the order of the kernel's parameters; the launch checks them
    // against the kernel's parameter list. Arguments and launch shape are
    // built once and reused by every launch: making objects is what costs
    // most from GJS (docs/kernels.md, "Kernel arguments from GJS").
    const args = GCuda.KernelArgs.new();
    args.add_buffer(cGpu);
    args.add_buffer(aGpu);
    args.add_buffer(bGpu);
    args.add_int32(N);
    const config = GCuda.LaunchConfig.new();
    config.set_grid(Math.ceil(N / BLOCK), 1, 1);
    config.set_block(BLOCK, 1, 1);
    add.launch_with_config(config, args);

    // A synchronous download waits for the kernel (same, legacy stream).
    const c = floatsOf(cGpu.download(0, size));
    if (c.length !== N)
        throw new Error(`downloaded ${c.length} floats, expected ${N}`);

    // IEEE single-precision addition is exact to the last bit on both sides
    // (a double sum of two floats rounds to the float sum).
    const expected = new Float32Array(N);
    for (let i = 0; i < N; i++)
        expected[i] = a[i] + b[i];
    let maxError = 0;
    for (let i = 0; i < N; i++) {
        const err = Math.abs(c[i] - expected[i]);
        if (!(err <= maxError))  // also catches NaN
            maxError = Number.isNaN(err) ? Infinity : err;
    }
    if (maxError !== 0)
        throw new Error(`wrong result: max error ${maxError} (c[0] = ${c[0]}, expected ${expected[0]})`);
    print(`vector-add: ${N} elements OK (max error ${maxError})`);
}

try {
    main();
} catch (e) {
    printerr(`vector-add: ${e.message}`);
    if (!(e instanceof GLib.Error))
        printerr(e.stack);
    System.exit(1);
}
