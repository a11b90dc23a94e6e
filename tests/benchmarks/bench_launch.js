// bench_launch.js: host cost of a kernel launch from GJS
//
// The GJS counterpart of bench-launch.c and bench_launch.py: µs per launch
// of the same empty kernel with three arguments (float *a, float *b, int n),
// grid 1, block 1, queued on one GCuda.Stream, from GJS (GObject
// introspection, one call into libgcuda per GI call). A round is
// --launches launches of one path, the stream synchronized every
// --sync-every launches (not timed); the clock is read around each batch of
// launch calls only. The paths take turns (the order rotates every round)
// after a warm-up round each. Paths:
//
//   new KernelArgs per launch: KernelArgs.new(), add_buffer x2, add_int32(i),
//     launch(1, 1, 1, 1, 1, 1, 0, stream, args): 5 GI calls and a new object
//   reused KernelArgs, launch: launch(...) with one prebuilt KernelArgs
//   reused KernelArgs, launch_with_config(config, args): 1 GI call, 2 arguments
//   set_int32 + launch_with_config: one changed scalar, 2 GI calls
//   launch_with_number(config, args, 2, i): one changed scalar, 1 GI call
//
// With --json FILE every round's µs per launch goes to FILE (the schema of
// tools/run-benchmarks, table launch-gjs), each row compared with the C
// launch of the same run (gcuda_function_launch with a prebuilt
// KernelArgs, bench-launch.c's row of table launch-c). It asserts nothing.
// Exit status 77 when nothing could be measured (no GPU or driver, no
// NVRTC). With GCUDA_MOCK_KERNELS=1 (the mock driver, tests/mock) the kernel
// is PTX text the mock reads and launches run nothing: the figures are then
// GJS's and GCuda's own cost, without the driver's.
//
//   gjs bench_launch.js [--json FILE] [--launches N] [--rounds N] [--sync-every N]
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GLib = imports.gi.GLib;
const System = imports.system;

const SKIP = 77;
const N = 1000;
const GROUP = 'empty kernel, 3 arguments';
const C_REFERENCE = 'gcuda_function_launch (KernelArgs)';
const SOURCE = '__global__ void empty(float *a, float *b, int n) {}\n';
const MOCK_PTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry empty(.param .u64 a, .param .u64 b, .param .u32 n)
{
  ret;
}
`;

function parseArgs(argv) {
    const opts = {json: null, launches: 20000, rounds: 10, syncEvery: 1000};
    for (let i = 0; i < argv.length; i++) {
        const [key, inline] = argv[i].split('=', 2);
        const value = () => inline !== undefined ? inline : argv[++i];
        switch (key) {
        case '--json': opts.json = value(); break;
        case '--launches': opts.launches = parseInt(value()); break;
        case '--rounds': opts.rounds = parseInt(value()); break;
        case '--sync-every': opts.syncEvery = parseInt(value()); break;
        default:
            printerr(`usage: bench_launch.js [--json FILE] [--launches N] [--rounds N] [--sync-every N]; not ${argv[i]}`);
            System.exit(2);
        }
    }
    if (!(opts.launches >= 1 && opts.rounds >= 1 && opts.syncEvery >= 1)) {
        printerr('bench_launch.js: --launches, --rounds and --sync-every must be positive');
        System.exit(2);
    }
    return opts;
}

function skip(why) {
    printerr(`bench_launch.js: ${why}`);
    System.exit(SKIP);
}

function setUp() {
    let GCuda;
    try {
        GCuda = imports.gi.GCuda;
    } catch (e) {
        skip(`no GCuda typelib: ${e.message}`);
    }
    let context;
    try {
        context = GCuda.Context.get_default();
    } catch (e) {
        skip(`no GPU: ${e.message}`);
    }
    const mock = GLib.getenv('GCUDA_MOCK_KERNELS') === '1';
    let module, arch;
    try {
        if (mock) {
            module = GCuda.Module.new_from_data(context, new GLib.Bytes(new TextEncoder().encode(`${MOCK_PTX}\0`)),
                null);
            arch = 'PTX (mock driver)';
        } else {
            const compiler = GCuda.Compiler.new(context);
            compiler.set_cache_dir('');
            const program = compiler.compile(SOURCE);
            module = GCuda.Module.new_from_program(context, program);
            arch = program.get_arch();
        }
    } catch (e) {
        skip(`cannot compile or load the kernel: ${e.message}`);
    }
    const f = module.get_function('empty');
    const stream = GCuda.Stream.new(context, GCuda.StreamFlags.DEFAULT, 0);
    const a = GCuda.Buffer.new(context, 4096);
    const b = GCuda.Buffer.new(context, 4096);
    const args = GCuda.KernelArgs.new();
    args.add_buffer(a);
    args.add_buffer(b);
    args.add_int32(N);
    const config = GCuda.LaunchConfig.new();
    config.set_grid(1, 1, 1);
    config.set_block(1, 1, 1);
    config.set_stream(stream);
    const device = context.get_device().get_name();
    return {GCuda, context, module, f, stream, a, b, args, config, device, arch, mock};
}

function makePaths(s) {
    const {GCuda, f, stream, a, b, args, config} = s;
    return [
        ['GJS launch, new KernelArgs + 3 add_* per launch', count => {
            for (let i = 0; i < count; i++) {
                const fresh = GCuda.KernelArgs.new();
                fresh.add_buffer(a);
                fresh.add_buffer(b);
                fresh.add_int32(i);
                f.launch(1, 1, 1, 1, 1, 1, 0, stream, fresh);
            }
        }],
        ['GJS launch, reused KernelArgs', count => {
            for (let i = 0; i < count; i++)
                f.launch(1, 1, 1, 1, 1, 1, 0, stream, args);
        }],
        ['GJS launch_with_config, reused KernelArgs', count => {
            for (let i = 0; i < count; i++)
                f.launch_with_config(config, args);
        }],
        ['GJS set_int32 + launch_with_config (one changed scalar)', count => {
            for (let i = 0; i < count; i++) {
                args.set_int32(2, i);
                f.launch_with_config(config, args);
            }
        }],
        ['GJS launch_with_number (one changed scalar)', count => {
            for (let i = 0; i < count; i++)
                f.launch_with_number(config, args, 2, i);
        }],
    ];
}

// µs per launch of one round: the launch calls alone
function roundUs(batch, stream, launches, syncEvery) {
    let us = 0;
    for (let done = 0; done < launches; done += syncEvery) {
        const count = Math.min(syncEvery, launches - done);
        const t0 = GLib.get_monotonic_time();
        batch(count);
        us += GLib.get_monotonic_time() - t0;
        stream.synchronize();
    }
    return us / launches;
}

function stats(values) {
    const s = [...values].sort((x, y) => x - y);
    const n = s.length;
    const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    return {min: s[0], median, max: s[n - 1]};
}

function main(argv) {
    const opts = parseArgs(argv);
    const s = setUp();
    const paths = makePaths(s);
    const times = new Map(paths.map(([name]) => [name, []]));
    const failed = new Map();
    const run = (name, batch, launches) => {
        if (failed.has(name))
            return;
        try {
            const us = roundUs(batch, s.stream, launches, opts.syncEvery);
            if (launches === opts.launches)
                times.get(name).push(us);
        } catch (e) {
            failed.set(name, `${e.message}`);
        }
    };
    for (const [name, batch] of paths)
        run(name, batch, Math.min(opts.launches, 10000));  // warm-up (not kept unless a full round)
    for (const t of times.values())
        t.length = 0;
    for (let r = 0; r < opts.rounds; r++) {
        const k = r % paths.length;
        for (const [name, batch] of [...paths.slice(k), ...paths.slice(0, k)])
            run(name, batch, opts.launches);
    }

    print(`Launch overhead from GJS ${System.version / 10000 | 0}.${(System.version / 100 | 0) % 100}.` +
        `${System.version % 100}: empty(float *a, float *b, int n), grid 1, block 1, on one stream;\n` +
        `µs per launch (the launch calls alone; the stream synchronized every ${opts.syncEvery} launches, ` +
        `not counted),\nbest and median of ${opts.rounds} rounds of ${opts.launches} launches, the paths taking ` +
        `turns; ${s.device} (${s.arch})\n`);
    print(`${'path'.padEnd(58)} ${'best'.padStart(8)} ${'median'.padStart(8)}`);
    const rows = [];
    for (const [name] of paths) {
        if (failed.has(name)) {
            print(`${name.padEnd(58)} not run: ${failed.get(name)}`);
            rows.push({group: GROUP, name, role: 'gcuda', not_run: failed.get(name)});
            continue;
        }
        const samples = times.get(name);
        const st = stats(samples);
        print(`${name.padEnd(58)} ${st.min.toFixed(3).padStart(8)} ${st.median.toFixed(3).padStart(8)}`);
        rows.push({group: GROUP, name, role: 'gcuda', unit: 'µs', better: 'lower', min: st.min, median: st.median,
            max: st.max, reps: samples.length, reference: C_REFERENCE, per_sample: `${opts.launches} launches`,
            samples});
    }
    if (opts.json) {
        const doc = {
            schema: 1, benchmark: 'launch-gjs', table: 'launch-gjs',
            title: 'Launch overhead, GJS: GCuda through GObject introspection beside the C launch',
            params: {launches: opts.launches, rounds: opts.rounds, sync_every: opts.syncEvery, block: 1},
            env: {device: s.device, arch: s.arch, gjs: `${System.version}`},
            notes: s.mock ? ['mock driver (GCUDA_MOCK_KERNELS=1): launches run nothing'] : [],
            rows,
        };
        GLib.file_set_contents(opts.json, `${JSON.stringify(doc, null, 1)}\n`);
    }
    return rows.some(r => !r.not_run) ? 0 : 1;
}

System.exit(main(ARGV));
