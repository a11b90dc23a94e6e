// Reusing KernelArgs from GJS: typed setters, set_number (a JS number into
// the type the argument was added as), get_value, and
// Function.launch_with_number (set one scalar and launch in one call).
// meson runs it in three situations:
//   GCUDA_TEST_DRIVER=missing  (nogpu) the setters and their errors
//   GCUDA_MOCK_KERNELS=1       (mock) also launches on the mock driver's
//                              PTX module: errors launch nothing, the
//                              arguments stay as the last launch had them
//   unset                      (gpu) also a kernel launched in a loop with
//                              a changing scalar, every result checked
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

const situation = GLib.getenv('GCUDA_TEST_DRIVER');
const mockKernels = GLib.getenv('GCUDA_MOCK_KERNELS') === '1';
const domain = GCuda.error_quark();
const KERNEL_ARGUMENTS = GCuda.Error.KERNEL_ARGUMENTS;

// The bytes of argument @index as a DataView.
function valueOf(args, index) {
    const bytes = args.get_value(index);
    Tap.assert(bytes !== null, `argument ${index} exists`);
    const data = bytes.toArray();
    return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

const I8 = 0, U8 = 1, I16 = 2, U16 = 3, I32 = 4, U32 = 5, I64 = 6, U64 = 7, F32 = 8, F64 = 9, PTR = 10;

function oneOfEach() {
    const args = GCuda.KernelArgs.new();
    args.add_int8(-1);
    args.add_uint8(200);
    args.add_int16(-300);
    args.add_uint16(60000);
    args.add_int32(-5);
    args.add_uint32(4000000000);
    args.add_int64(-(2 ** 40));
    args.add_uint64(2 ** 40);
    args.add_float(1.5);
    args.add_double(-2.25);
    args.add_pointer(0x1000);
    return args;
}

Tap.test('typed setters store their value, read back with get_value', () => {
    const args = oneOfEach();
    Tap.assertEqual(args.get_count(), 11);
    Tap.assert(args.set_int8(I8, -128));
    Tap.assert(args.set_uint8(U8, 255));
    Tap.assert(args.set_int16(I16, -32768));
    Tap.assert(args.set_uint16(U16, 65535));
    Tap.assert(args.set_int32(I32, -2147483648));
    Tap.assert(args.set_uint32(U32, 4294967295));
    Tap.assert(args.set_int64(I64, -(2 ** 50)));
    Tap.assert(args.set_uint64(U64, 2 ** 52 + 1));
    Tap.assert(args.set_float(F32, 0.1));
    Tap.assert(args.set_double(F64, 0.1));
    Tap.assert(args.set_pointer(PTR, 0x2000));
    Tap.assertEqual(valueOf(args, I8).getInt8(0), -128);
    Tap.assertEqual(valueOf(args, U8).getUint8(0), 255);
    Tap.assertEqual(valueOf(args, I16).getInt16(0, true), -32768);
    Tap.assertEqual(valueOf(args, U16).getUint16(0, true), 65535);
    Tap.assertEqual(valueOf(args, I32).getInt32(0, true), -2147483648);
    Tap.assertEqual(valueOf(args, U32).getUint32(0, true), 4294967295);
    Tap.assertEqual(Number(valueOf(args, I64).getBigInt64(0, true)), -(2 ** 50));
    Tap.assertEqual(Number(valueOf(args, U64).getBigUint64(0, true)), 2 ** 52 + 1);
    Tap.assertEqual(valueOf(args, F32).getFloat32(0, true), Math.fround(0.1));
    Tap.assertEqual(valueOf(args, F64).getFloat64(0, true), 0.1);
    Tap.assertEqual(Number(valueOf(args, PTR).getBigUint64(0, true)), 0x2000);
    Tap.assertEqual(args.get_value(11), null);
});

Tap.test('a setter of another type, size or index is KERNEL_ARGUMENTS and changes nothing', () => {
    const args = oneOfEach();
    Tap.assertThrowsGError(() => args.set_int32(F32, 1), domain, KERNEL_ARGUMENTS, 'int32 over float');
    Tap.assertThrowsGError(() => args.set_float(I32, 1), domain, KERNEL_ARGUMENTS, 'float over int32');
    Tap.assertThrowsGError(() => args.set_uint64(F64, 1), domain, KERNEL_ARGUMENTS, 'uint64 over double');
    Tap.assertThrowsGError(() => args.set_int32(I8, 1), domain, KERNEL_ARGUMENTS, 'int32 over int8');
    Tap.assertThrowsGError(() => args.set_double(F32, 1), domain, KERNEL_ARGUMENTS, 'double over float');
    Tap.assertThrowsGError(() => args.set_int32(11, 1), domain, KERNEL_ARGUMENTS, 'index out of range');
    Tap.assertEqual(valueOf(args, F32).getFloat32(0, true), 1.5);
    Tap.assertEqual(valueOf(args, I32).getInt32(0, true), -5);
    Tap.assertEqual(valueOf(args, I8).getInt8(0), -1);
    // integers of one size and pointers stand for each other
    Tap.assert(args.set_uint32(I32, 7));
    Tap.assert(args.set_uint64(PTR, 0x3000));
    Tap.assertEqual(valueOf(args, I32).getInt32(0, true), 7);
});

Tap.test('set_number converts a JS number to the type added, refuses what does not fit', () => {
    const args = oneOfEach();
    Tap.assert(args.set_number(I8, -128));
    Tap.assert(args.set_number(U16, 65535));
    Tap.assert(args.set_number(I32, 123456));
    Tap.assert(args.set_number(U32, 4294967295));
    Tap.assert(args.set_number(I64, -(2 ** 53)));
    Tap.assert(args.set_number(F32, 1 / 3));
    Tap.assert(args.set_number(F64, 1 / 3));
    Tap.assertEqual(valueOf(args, I8).getInt8(0), -128);
    Tap.assertEqual(valueOf(args, U16).getUint16(0, true), 65535);
    Tap.assertEqual(valueOf(args, I32).getInt32(0, true), 123456);
    Tap.assertEqual(valueOf(args, U32).getUint32(0, true), 4294967295);
    Tap.assertEqual(Number(valueOf(args, I64).getBigInt64(0, true)), -(2 ** 53));
    Tap.assertEqual(valueOf(args, F32).getFloat32(0, true), Math.fround(1 / 3));
    Tap.assertEqual(valueOf(args, F64).getFloat64(0, true), 1 / 3);
    const refused = [[I8, 128], [U8, -1], [I16, 40000], [U32, 2 ** 32], [I32, 0.5], [I32, NaN],
        [U64, 2 ** 54], [PTR, 1], [11, 1]];
    for (const [index, value] of refused) {
        const before = index < 11 ? args.get_value(index).toArray().join() : null;
        Tap.assertThrowsGError(() => args.set_number(index, value), domain, KERNEL_ARGUMENTS,
            `set_number(${index}, ${value})`);
        if (before !== null)
            Tap.assertEqual(args.get_value(index).toArray().join(), before, `argument ${index} unchanged`);
    }
});

// ------------------------------------------------------------------ launches on the mock driver

const MOCK_PTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry step(.param .u64 out, .param .f32 t, .param .u32 n)
{
  ret;
}
`;

// registered in the mock situation only (where the GPU test is not: the
// mock runs no kernels)
const mockTest = mockKernels ? Tap.test : () => {};
// the GPU case is registered where a device is expected: not on the mock,
// not with the driver made unloadable (the nogpu registration)
const gpuTest = mockKernels || situation === 'missing' ? () => {} : Tap.test;

mockTest('launch_with_number on the mock driver: errors launch nothing and keep the arguments', () => {
    const context = GCuda.Context.get_default();
    const image = new GLib.Bytes(new TextEncoder().encode(`${MOCK_PTX}\0`));
    const module = GCuda.Module.new_from_data(context, image, null);
    const f = module.get_function('step');
    Tap.assertEqual(f.get_param_count(), 3);
    const out = GCuda.Buffer.new(context, 1024);
    const stream = GCuda.Stream.new(context, GCuda.StreamFlags.DEFAULT, 0);
    const args = GCuda.KernelArgs.new();
    args.add_buffer(out);
    args.add_float(0);
    args.add_int32(0);
    const config = GCuda.LaunchConfig.new();
    config.set_grid(1, 1, 1);
    config.set_block(4, 1, 1);
    config.set_stream(stream);
    for (let i = 0; i < 100; i++) {
        Tap.assert(f.launch_with_number(config, args, 1, i / 4));
        Tap.assert(f.launch_with_number(config, args, 2, -i));
        Tap.assertEqual(valueOf(args, 1).getFloat32(0, true), i / 4);
        Tap.assertEqual(valueOf(args, 2).getInt32(0, true), -i);
    }
    Tap.assertThrowsGError(() => f.launch_with_number(config, args, 2, 0.5), domain, KERNEL_ARGUMENTS);
    Tap.assertThrowsGError(() => f.launch_with_number(config, args, 0, 1), domain, KERNEL_ARGUMENTS,
        'a number over a buffer');
    Tap.assertEqual(valueOf(args, 2).getInt32(0, true), -99);
    Tap.assert(f.launch_with_config(config, args));
    Tap.assert(f.launch(1, 1, 1, 4, 1, 1, 0, stream, args));
    stream.synchronize();
});

// ------------------------------------------------------------------ a GPU

const STEP = `
__global__ void step(float *out, int i, float x, double y)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        out[i] = x * 2.0f + (float) y;
}
`;

gpuTest('GPU: a launch loop changing one scalar per launch, every result checked', () => {
    Tap.requireGpu();
    const n = 256;
    const context = GCuda.Context.get_default();
    const compiler = GCuda.Compiler.new(context);
    compiler.set_cache_dir('');
    const module = GCuda.Module.new_from_program(context, compiler.compile(STEP));
    const f = module.get_function('step');
    const out = GCuda.Buffer.new(context, n * 4);
    out.memset_d32(0, 0xc0000000, n, null);  // -2.0f everywhere
    const xs = new Float32Array(n);
    for (let i = 0; i < n; i++)
        xs[i] = Math.fround(Math.random() * 200 - 100);
    const y = 0.25;
    const args = GCuda.KernelArgs.new();
    args.add_buffer(out);
    args.add_int32(0);
    args.add_float(0);
    args.add_double(y);
    const config = GCuda.LaunchConfig.new();
    config.set_grid(1, 1, 1);
    config.set_block(32, 1, 1);
    // even elements: x by set_float, the index by launch_with_number; odd
    // ones: the index by set_int32, x by launch_with_number
    for (let i = 0; i < n; i++) {
        if (i % 2 === 0) {
            args.set_float(2, xs[i]);
            f.launch_with_number(config, args, 1, i);
        } else {
            args.set_int32(1, i);
            f.launch_with_number(config, args, 2, xs[i]);
        }
    }
    context.synchronize();
    const u8 = out.download(0, n * 4).toArray();
    const got = new Float32Array(u8.buffer.slice(u8.byteOffset, u8.byteOffset + n * 4));
    for (let i = 0; i < n; i++) {
        const want = Math.fround(Math.fround(xs[i] * 2) + Math.fround(y));
        Tap.assert(Math.abs(got[i] - want) <= 1e-6 * Math.max(1, Math.abs(want)),
            `out[${i}] = ${got[i]}, want ${want}`);
    }
});

if (situation === 'missing') {
    Tap.test('launching needs the driver', () => {
        Tap.assertThrowsGError(() => GCuda.Context.get_default(), domain, GCuda.Error.DRIVER_NOT_FOUND);
    });
}

Tap.run();
