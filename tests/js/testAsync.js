// Streams, events and their _async methods from GJS, as promises through
// Gio._promisify, awaited in an async function driven by a GLib.MainLoop.
//
// Host callbacks are the "work": a blocking callback (add_blocking_callback)
// that sleeps stalls the stream, and runs in this thread's main context, so
// its side effect must be visible when the promise resolves.
//
// meson runs it on a GPU (js-async) and on the mock driver's streams, host
// functions and events (js-async-mock: GCUDA_MOCK_KERNELS=1
// GCUDA_MOCK_EVENTS=1); without a device every test is skipped (failed
// instead when GCUDA_TEST_REQUIRE_GPU=1).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const GCuda = imports.gi.GCuda;
const Gio = imports.gi.Gio;
const GLib = imports.gi.GLib;
const Tap = imports.tap;

Gio._promisify(GCuda.Stream.prototype, 'synchronize_async', 'synchronize_finish');
Gio._promisify(GCuda.Event.prototype, 'synchronize_async', 'synchronize_finish');
Gio._promisify(GCuda.Context.prototype, 'synchronize_async', 'synchronize_finish');

function nowMs() {
    return GLib.get_monotonic_time() / 1000;
}

// A blocking callback that sleeps @ms, then sets state.ran.
function addSleep(stream, ms, state) {
    stream.add_blocking_callback(s => {
        Tap.assert(s instanceof GCuda.Stream);
        GLib.usleep(ms * 1000);
        state.ran = true;
        state.at = nowMs();
    });
}

Tap.test('stream: await synchronize_async after a blocking callback', () => {
    Tap.requireGpu();
    Tap.runAsync(async () => {
        const stream = GCuda.Stream.new(null, GCuda.StreamFlags.DEFAULT, 0);
        const state = {ran: false};
        const start = nowMs();
        addSleep(stream, 50, state);
        Tap.assert(!stream.is_done(), 'is_done() right after the blocking callback was queued');
        const ok = await stream.synchronize_async(null);
        Tap.assertEqual(ok, true);
        Tap.assert(state.ran, 'the blocking callback ran before the promise resolved');
        Tap.assert(nowMs() - start >= 49, `resolved after ${nowMs() - start} ms`);
        stream.synchronize();
        Tap.assert(stream.is_done());
    });
    Tap.assertEqual(GCuda.Context.get_current(), null);
});

Tap.test('stream: add_callback runs in the main loop, in order', () => {
    Tap.requireGpu();
    Tap.runAsync(async () => {
        const stream = GCuda.Stream.new(null, GCuda.StreamFlags.NON_BLOCKING, 0);
        const order = [];
        stream.add_callback(() => order.push(1));
        stream.add_blocking_callback(() => {
            GLib.usleep(10000);
            order.push(2);
        });
        stream.add_callback(() => order.push(3));
        await stream.synchronize_async(null);
        // the last non-blocking callback may still be pending in the main context
        while (order.length < 3)
            await new Promise(resolve => GLib.idle_add(GLib.PRIORITY_DEFAULT, () => resolve() || GLib.SOURCE_REMOVE));
        Tap.assertEqual(order.join(','), '1,2,3');
    });
});

Tap.test('stream: several waits complete in order', () => {
    Tap.requireGpu();
    Tap.runAsync(async () => {
        const stream = GCuda.Stream.new(null, GCuda.StreamFlags.DEFAULT, 0);
        const done = [];
        const waits = [];
        for (let i = 0; i < 3; i++) {
            addSleep(stream, 10, {});
            waits.push(stream.synchronize_async(null).then(() => done.push(i)));
        }
        await Promise.all(waits);
        Tap.assertEqual(done.join(','), '0,1,2');
    });
});

Tap.test('stream: cancelled synchronize_async rejects with CANCELLED', () => {
    Tap.requireGpu();
    Tap.runAsync(async () => {
        const stream = GCuda.Stream.new(null, GCuda.StreamFlags.NON_BLOCKING, 0);
        const state = {ran: false};
        addSleep(stream, 50, state);
        const cancellable = new Gio.Cancellable();
        const promise = stream.synchronize_async(cancellable);
        cancellable.cancel();
        await Tap.assertRejects(promise, Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED);
        // the work goes on: a new wait completes
        Tap.assertEqual(await stream.synchronize_async(null), true);
        Tap.assert(state.ran);
    });
});

Tap.test('event: await synchronize_async, then time the blocking callback', () => {
    Tap.requireGpu();
    Tap.runAsync(async () => {
        const stream = GCuda.Stream.new(null, GCuda.StreamFlags.NON_BLOCKING, 0);
        const e0 = GCuda.Event.new(null, GCuda.EventFlags.DEFAULT);
        const e1 = GCuda.Event.new(null, GCuda.EventFlags.DEFAULT);
        const state = {ran: false};
        Tap.assert(e0.record(stream) === e0, 'record() returns the event');
        addSleep(stream, 50, state);
        e1.record(stream);
        Tap.assert(!e1.query(), 'query() before the blocking callback ran');
        Tap.assertEqual(await e1.synchronize_async(null), true);
        Tap.assert(state.ran, 'the blocking callback ran before the promise resolved');
        Tap.assert(e1.query());
        const ms = e1.time_since(e0);
        Tap.assert(ms >= 49, `time_since: ${ms} ms`);
        Tap.assertEqual(e0.time_till(e1), ms);
        Tap.assertEqual(e0.elapsed(e1), ms);  // gcuda_event_elapsed (start, end): a method in GJS
        Tap.assert(e1.synchronize() === e1, 'synchronize() returns the event');
    });
});

Tap.test('event: timing errors', () => {
    Tap.requireGpu();
    const untimed = GCuda.Event.new(null, GCuda.EventFlags.DISABLE_TIMING).record(null).synchronize();
    const timed = GCuda.Event.new(null, GCuda.EventFlags.DEFAULT).record(null).synchronize();
    const never = GCuda.Event.new(null, GCuda.EventFlags.DEFAULT);
    Tap.assertThrowsGError(() => untimed.time_since(timed), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
    Tap.assertThrowsGError(() => never.time_since(timed), GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
    Tap.assertThrowsGError(() => GCuda.Event.new(null, GCuda.EventFlags.INTERPROCESS),
        GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT);
});

Tap.test('context: await synchronize_async covers every stream', () => {
    Tap.requireGpu();
    Tap.runAsync(async () => {
        const ctx = GCuda.Context.get_default();
        const nonBlocking = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
        const blocking = GCuda.Stream.new(ctx, GCuda.StreamFlags.DEFAULT, 0);
        const a = {ran: false}, b = {ran: false};
        const start = nowMs();
        addSleep(nonBlocking, 50, a);
        addSleep(blocking, 50, b);
        Tap.assertEqual(await ctx.synchronize_async(null), true);
        Tap.assert(a.ran && b.ran, 'both blocking callbacks ran before the promise resolved');
        Tap.assert(nowMs() - start >= 49);
    });
});

Tap.test('destroyed context: the promise rejects with CONTEXT_DESTROYED', () => {
    Tap.requireGpu();
    const ctx = GCuda.Context.get_default().device.create_context(GCuda.ContextFlags.SCHED_AUTO);
    const stream = GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, 0);
    const event = GCuda.Event.new(ctx, GCuda.EventFlags.DEFAULT);
    ctx.destroy();
    Tap.runAsync(async () => {
        await Tap.assertRejects(stream.synchronize_async(null), GCuda.error_quark(), GCuda.Error.CONTEXT_DESTROYED);
        await Tap.assertRejects(event.synchronize_async(null), GCuda.error_quark(), GCuda.Error.CONTEXT_DESTROYED);
        await Tap.assertRejects(ctx.synchronize_async(null), GCuda.error_quark(), GCuda.Error.CONTEXT_DESTROYED);
    });
    Tap.assertThrowsGError(() => event.record(null), GCuda.error_quark(), GCuda.Error.CONTEXT_DESTROYED);
});

Tap.run();
