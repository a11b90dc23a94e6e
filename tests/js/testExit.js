// A gjs that cancels a compile and exits at once must exit cleanly: what a
// GNOME app does when the user cancels and quits. Each run is a fresh gjs
// (this file with --child) where the compile's worker loads NVRTC; the
// child cancels once NVRTC has started compiling (its builtins library is
// mapped: NVRTC opens it during a compile), so the compile is still
// running when the child exits. NVRTC's static destructors must not run
// under it (that crashed every time).
//
// GCUDA_TEST_EXIT_RUNS sets the number of runs (default 20).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const Gio = imports.gi.Gio;
const GLib = imports.gi.GLib;
const System = imports.system;

// Which of NVRTC and its builtins are mapped now.
function nvrtcMapped() {
    const [, bytes] = GLib.file_get_contents('/proc/self/maps');
    const maps = new TextDecoder().decode(bytes);
    return {
        nvrtc: /\/libnvrtc\.(alt\.)?so/.test(maps),
        builtins: /\/libnvrtc-builtins/.test(maps),
    };
}

function runChild() {
    if (nvrtcMapped().nvrtc) {
        printerr('child: NVRTC is loaded before the compile');
        return 3;
    }
    let source = `// ${GLib.get_real_time()} ${GLib.random_int()}\n`;
    for (let i = 0; i < 32; i++) {
        source += `__global__ void k${i}(float *p, float a) ` +
                  `{ int i = blockIdx.x * blockDim.x + threadIdx.x; p[i] = p[i] * a + ${i}.0f; }\n`;
    }
    const compiler = GCuda.Compiler.new(null);
    compiler.arch = 'sm_90';
    compiler.set_cache_dir('');
    const cancellable = new Gio.Cancellable();
    const loop = new GLib.MainLoop(null, false);
    let done = false, error = null, cancelledInNvrtc = false;
    compiler.compile_async(source, cancellable, (c, result) => {
        try {
            c.compile_finish(result);
        } catch (e) {
            error = e;
        }
        done = true;
        loop.quit();
    });
    GLib.timeout_add(GLib.PRIORITY_DEFAULT, 1, () => {
        if (done)
            return GLib.SOURCE_REMOVE;
        if (!nvrtcMapped().builtins)
            return GLib.SOURCE_CONTINUE;
        cancelledInNvrtc = true;
        cancellable.cancel();
        return GLib.SOURCE_REMOVE;
    });
    loop.run();
    if (!cancelledInNvrtc || !(error instanceof GLib.Error) ||
        !error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)) {
        printerr(`child: not cancelled while NVRTC compiled: ${error}`);
        return 4;
    }
    print('cancelled inside NVRTC; exiting');
    // gjs exits (exit()) with the compile still running
    return 0;
}

if (ARGV[0] === '--child') {
    const status = runChild();
    if (status !== 0)
        System.exit(status);
} else {
    const Tap = imports.tap;

    Tap.test('exit at once after cancelling a compile inside NVRTC, in fresh processes', () => {
        Tap.requireNvrtc();
        const runs = parseInt(GLib.getenv('GCUDA_TEST_EXIT_RUNS') || '20', 10);
        const gjs = GLib.file_read_link('/proc/self/exe');
        const launcher = new Gio.SubprocessLauncher({
            flags: Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_PIPE,
        });
        for (let i = 0; i < runs; i++) {
            // no core dumps: a crash is the result looked for, and cores are slow
            const proc = launcher.spawnv(['/bin/sh', '-c', 'ulimit -c 0 2>/dev/null; exec "$0" "$@"',
                gjs, System.programPath, '--child']);
            const [, stdout, stderr] = proc.communicate_utf8(null, null);
            const how = proc.get_if_signaled() ? `died of signal ${proc.get_term_sig()}`
                : `exited with status ${proc.get_exit_status()}`;
            Tap.assert(proc.get_if_exited() && proc.get_exit_status() === 0,
                `run ${i + 1} of ${runs}: the child ${how}; its stderr:\n${stderr}`);
            Tap.assert(stdout.includes('cancelled inside NVRTC'), `run ${i + 1}: ${stdout}`);
        }
        print(`# ${runs} of ${runs} runs exited cleanly after cancelling a compile inside NVRTC`);
    });

    Tap.run();
}
