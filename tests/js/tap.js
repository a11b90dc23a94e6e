// tap.js: a tiny TAP harness for GCuda's GJS tests.
//
//   const Tap = imports.tap;           // GJS_PATH has tests/js
//   Tap.test('name', () => { Tap.assertEqual(1, 1); });
//   Tap.test('needs a GPU', () => { Tap.requireGpu(); ... });
//   Tap.test('two GPUs', () => { Tap.requireGpus(2); ... });
//   Tap.test('compiles', () => { Tap.requireNvrtc(); ... });
//   Tap.run();                         // prints the TAP and exits
//
// and the helpers several tests share: random data (randomBytes,
// randomFloats), comparing bytes (assertBytes, sameBytes), promises
// (runAsync, assertRejects).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

const GLib = imports.gi.GLib;
const System = imports.system;

var _tests = [];

var Skip = class Skip extends Error {};
// A known defect: reported as "not ok ... # TODO reason", which meson counts
// as an expected failure (pytest's strict xfail prints the same), not a skip.
var Todo = class Todo extends Error {};

function test(name, fn) {
    _tests.push({name, fn});
}

function skip(reason) {
    throw new Skip(reason);
}

function todo(reason) {
    throw new Todo(reason);
}

function fail(message) {
    throw new Error(message);
}

function assert(condition, message) {
    if (!condition)
        throw new Error(`assertion failed${message ? `: ${message}` : ''}`);
}

function assertEqual(actual, expected, message) {
    if (actual !== expected) {
        throw new Error(`${message ? `${message}: ` : ''}expected ${JSON.stringify(expected)}, ` +
            `got ${JSON.stringify(actual)}`);
    }
}

// Runs @fn, which must throw a GLib.Error in @domain (a quark) with @code.
function assertThrowsGError(fn, domain, code, message) {
    let error = null;
    try {
        fn();
    } catch (e) {
        error = e;
    }
    const what = message ? `${message}: ` : '';
    if (error === null)
        throw new Error(`${what}expected a GLib.Error, nothing was thrown`);
    if (!(error instanceof GLib.Error))
        throw new Error(`${what}expected a GLib.Error, got ${error}`);
    if (!error.matches(domain, code)) {
        throw new Error(`${what}expected ${GLib.quark_to_string(domain)} ${code}, got ` +
            `${GLib.quark_to_string(error.domain)} ${error.code}: ${error.message}`);
    }
    if (!error.message)
        throw new Error(`${what}the error has no message`);
    return error;
}

function gpuRequired() {
    return GLib.getenv('GCUDA_TEST_REQUIRE_GPU') === '1';
}

// Fresh random data: @n bytes.
function randomBytes(n) {
    const a = new Uint8Array(n);
    for (let i = 0; i < n; i++)
        a[i] = Math.floor(Math.random() * 256);
    return a;
}

// @n random floats in [-100, 100).
function randomFloats(n) {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++)
        a[i] = Math.random() * 200 - 100;
    return a;
}

// Whether @bytes (a GLib.Bytes or an array) holds exactly @expected.
function sameBytes(bytes, expected) {
    const got = bytes instanceof GLib.Bytes ? bytes.toArray() : bytes;
    if (got.length !== expected.length)
        return false;
    for (let i = 0; i < got.length; i++) {
        if (got[i] !== expected[i])
            return false;
    }
    return true;
}

// Fails unless @actual (a GLib.Bytes or an array) holds exactly @expected,
// naming @what and the first byte that differs.
function assertBytes(actual, expected, what) {
    const got = actual instanceof GLib.Bytes ? actual.toArray() : actual;
    assertEqual(got.length, expected.length, `${what}: length`);
    for (let i = 0; i < expected.length; i++) {
        if (got[i] !== expected[i])
            fail(`${what}: byte ${i} is ${got[i]}, expected ${expected[i]}`);
    }
}

// Runs the async function @fn to completion in a GLib.MainLoop (on the
// global default main context, where the callbacks added by @fn run);
// rethrows what it threw. Fails after @timeoutMs.
function runAsync(fn, timeoutMs = 10000) {
    const loop = new GLib.MainLoop(null, false);
    let finished = false, error = null, timedOut = false;
    fn().then(() => {}, e => {
        error = e;
    }).finally(() => {
        finished = true;
        loop.quit();
    });
    const timeoutId = GLib.timeout_add(GLib.PRIORITY_DEFAULT, timeoutMs, () => {
        timedOut = true;
        loop.quit();
        return GLib.SOURCE_REMOVE;
    });
    if (!finished)
        loop.run();
    if (!timedOut)
        GLib.source_remove(timeoutId);
    if (timedOut && !finished)
        throw new Error(`timed out after ${timeoutMs} ms`);
    if (error !== null)
        throw error;
}

// Awaits @promise, which must reject with a GLib.Error in @domain (a quark)
// with @code; @what, optional, names the case in the failure.
async function assertRejects(promise, domain, code, what) {
    let error = null;
    try {
        await promise;
    } catch (e) {
        error = e;
    }
    const prefix = what ? `${what}: ` : '';
    assert(error !== null, `${prefix}the promise did not reject`);
    assert(error instanceof GLib.Error, `${prefix}expected a GLib.Error, got ${error}`);
    assert(error.matches(domain, code), `${prefix}expected ${GLib.quark_to_string(domain)} ` +
        `${code}, got ${GLib.quark_to_string(error.domain)} ${error.code}: ${error.message}`);
    return error;
}

let _noGpuReason;

// For tests that need a CUDA device: returns when one is usable, otherwise
// skips the test (with the driver's message), or fails it when
// GCUDA_TEST_REQUIRE_GPU=1.
function requireGpu() {
    if (_noGpuReason === undefined) {
        const GCuda = imports.gi.GCuda;
        try {
            const count = GCuda.Device.get_count();
            _noGpuReason = count > 0 ? null : 'the driver reports no CUDA device';
        } catch (e) {
            _noGpuReason = `${e.message} (${GLib.quark_to_string(e.domain)} ${e.code})`;
        }
    }
    if (_noGpuReason === null)
        return;
    if (gpuRequired())
        fail(`GCUDA_TEST_REQUIRE_GPU=1 but no GPU is usable: ${_noGpuReason}`);
    skip(`no GPU: ${_noGpuReason}`);
}

// For tests that need @n CUDA devices: requireGpu(), then skips the test
// ("needs N GPUs, this host has M"), or fails it when
// GCUDA_TEST_REQUIRE_GPUS is @n or more.
function requireGpus(n) {
    requireGpu();
    const count = imports.gi.GCuda.Device.get_count();
    if (count >= n)
        return;
    const required = Number.parseInt(GLib.getenv('GCUDA_TEST_REQUIRE_GPUS') || '0', 10) || 0;
    if (required >= n)
        fail(`GCUDA_TEST_REQUIRE_GPUS=${required} but this test needs ${n} GPUs and this host has ${count}`);
    skip(`needs ${n} GPUs, this host has ${count}`);
}

let _noNvrtcReason;

// null when NVRTC can be loaded, else GCuda's message saying why not and how
// to provide it (a compile for an explicit architecture, uncached: no driver
// needed).
function noNvrtcReason() {
    if (_noNvrtcReason === undefined) {
        const GCuda = imports.gi.GCuda;
        const compiler = GCuda.Compiler.new(null);
        compiler.set_arch('sm_90');
        compiler.set_target(GCuda.ProgramKind.PTX);
        compiler.set_cache_dir('');
        try {
            compiler.compile('__global__ void probe() {}\n');
            _noNvrtcReason = null;
        } catch (e) {
            if (!(e instanceof GLib.Error) || !e.matches(GCuda.error_quark(), GCuda.Error.NVRTC_NOT_FOUND))
                throw e;
            _noNvrtcReason = e.message;
        }
    }
    return _noNvrtcReason;
}

// For tests that compile: returns when NVRTC can be loaded, otherwise skips
// the test (with GCuda's message), or fails it when GCUDA_TEST_REQUIRE_GPU=1.
function requireNvrtc() {
    const reason = noNvrtcReason();
    if (reason === null)
        return;
    if (gpuRequired())
        fail(`GCUDA_TEST_REQUIRE_GPU=1 but NVRTC is missing: ${reason}`);
    skip(`no NVRTC: ${reason}`);
}

function _oneLine(text) {
    return String(text).replace(/\s+/g, ' ').replace(/#/g, '\\#');
}

function run() {
    let n = 0, failed = 0;
    print('TAP version 13');
    for (const t of _tests) {
        n++;
        try {
            t.fn();
            print(`ok ${n} ${_oneLine(t.name)}`);
        } catch (e) {
            if (e instanceof Skip) {
                print(`ok ${n} ${_oneLine(t.name)} # SKIP ${_oneLine(e.message)}`);
            } else if (e instanceof Todo) {
                print(`not ok ${n} ${_oneLine(t.name)} # TODO ${_oneLine(e.message)}`);
            } else {
                failed++;
                print(`not ok ${n} ${_oneLine(t.name)}`);
                // diagnostics: in the TAP stream, and on stderr for meson's error log
                printerr(`not ok ${n} ${t.name}: ${e}\n${e.stack || ''}`);
                for (const line of `${e}\n${e.stack || ''}`.split('\n'))
                    print(`# ${line}`);
            }
        }
    }
    print(`1..${n}`);
    System.exit(failed > 0 ? 1 : 0);
}
