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

Tap.test('add_*/set_* of an integer take a JS number only when the type holds it exactly', () => {
    // GJS would truncate 3.7 to 3, NaN to 0 and wrap 2 ** 31 before a C
    // setter ran: these setters are GCuda's double-taking twins
    // (gcuda_kernel_args_add_int32_number ...), which refuse instead.
    const refused = [
        ['int8', 3.7], ['int8', 128], ['int8', -129], ['uint8', -1], ['uint8', 256],
        ['int16', 0.5], ['int16', 32768], ['uint16', -1], ['uint16', 65536],
        ['int32', 3.7], ['int32', -3.7], ['int32', NaN], ['int32', Infinity], ['int32', 2 ** 31],
        ['int32', -(2 ** 31) - 1], ['uint32', -1], ['uint32', 2 ** 32], ['uint32', 1e-9],
        ['int64', 2 ** 53 + 2], ['int64', -(2 ** 53) - 2], ['int64', 0.5], ['int64', -Infinity],
        ['uint64', -1], ['uint64', 2 ** 53 + 2], ['uint64', NaN], ['uint64', 2 ** 64],
    ];
    const args = oneOfEach();
    const index = {int8: I8, uint8: U8, int16: I16, uint16: U16, int32: I32, uint32: U32, int64: I64, uint64: U64};
    const before = Object.values(index).map(i => args.get_value(i).toArray().join());
    for (const [type, value] of refused) {
        const e1 = Tap.assertThrowsGError(() => args[`add_${type}`](value), domain, KERNEL_ARGUMENTS,
            `add_${type}(${value})`);
        Tap.assert(e1.message.includes(`type ${type}:`), `the message names ${type}: ${e1.message}`);
        Tap.assertThrowsGError(() => args[`set_${type}`](index[type], value), domain, KERNEL_ARGUMENTS,
            `set_${type}(${index[type]}, ${value})`);
    }
    Tap.assertEqual(args.get_count(), 11, 'nothing was added');
    // the message has the value, all its digits
    for (const [type, value, shown] of [['int32', 3.7, '3.7'], ['int32', 2 ** 31, '2147483648'],
        ['int64', 2 ** 53 + 2, '9007199254740994'], ['uint32', NaN, 'nan'], ['uint8', -1, '-1']]) {
        const e = Tap.assertThrowsGError(() => args[`add_${type}`](value), domain, KERNEL_ARGUMENTS);
        Tap.assert(e.message.includes(`: ${shown} is not a whole number`), e.message);
    }
    Tap.assertEqual(Object.values(index).map(i => args.get_value(i).toArray().join()).join('|'), before.join('|'),
        'nothing was changed');
    // a BigInt is no number: GJS itself refuses it for a double
    let threw = false;
    try {
        args.add_int64(5n);
    } catch (e) {
        threw = e instanceof TypeError;
    }
    Tap.assert(threw, 'add_int64(5n) is a TypeError');

    // every exact value still goes through, its bytes as a C setter stores them
    const exact = GCuda.KernelArgs.new();
    Tap.assertEqual(exact.add_int8(-128), 0);
    Tap.assertEqual(exact.add_uint8(255), 1);
    Tap.assertEqual(exact.add_int16(-32768), 2);
    Tap.assertEqual(exact.add_uint16(65535), 3);
    Tap.assertEqual(exact.add_int32(-(2 ** 31)), 4);
    Tap.assertEqual(exact.add_uint32(2 ** 32 - 1), 5);
    Tap.assertEqual(exact.add_int64(-(2 ** 53)), 6);
    Tap.assertEqual(exact.add_uint64(2 ** 53), 7);
    Tap.assertEqual(valueOf(exact, 0).getInt8(0), -128);
    Tap.assertEqual(valueOf(exact, 1).getUint8(0), 255);
    Tap.assertEqual(valueOf(exact, 2).getInt16(0, true), -32768);
    Tap.assertEqual(valueOf(exact, 3).getUint16(0, true), 65535);
    Tap.assertEqual(valueOf(exact, 4).getInt32(0, true), -(2 ** 31));
    Tap.assertEqual(valueOf(exact, 5).getUint32(0, true), 2 ** 32 - 1);
    Tap.assertEqual(valueOf(exact, 6).getBigInt64(0, true), -(2n ** 53n));
    Tap.assertEqual(valueOf(exact, 7).getBigUint64(0, true), 2n ** 53n);
    Tap.assert(exact.set_int32(4, 2 ** 31 - 1));
    Tap.assert(exact.set_uint16(3, 0));
    Tap.assert(exact.set_int64(6, 2 ** 53));
    Tap.assertEqual(valueOf(exact, 4).getInt32(0, true), 2 ** 31 - 1);
    Tap.assertEqual(valueOf(exact, 3).getUint16(0, true), 0);
    Tap.assertEqual(valueOf(exact, 6).getBigInt64(0, true), 2n ** 53n);
    // beyond 2^53, exactly: a BigInt through set_pointer (any 64-bit integer argument)
    Tap.assert(exact.set_pointer(6, 2n ** 64n - 2n ** 60n - 1n));
    Tap.assertEqual(valueOf(exact, 6).getBigInt64(0, true), -(2n ** 60n) - 1n);
    Tap.assert(exact.set_pointer(7, 2n ** 64n - 1n));
    Tap.assertEqual(valueOf(exact, 7).getBigUint64(0, true), 2n ** 64n - 1n);
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
