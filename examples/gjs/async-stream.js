#!/usr/bin/env gjs
// async-stream: wait for a CUDA stream with promises, in a GTK-free main loop.
//
// Gio._promisify() turns GCuda's _async/_finish pairs into promises. The
// stream gets a 200 ms step of "work" (a host step queued with
// add_blocking_callback() stands in for a kernel); the awaits resolve in the
// main loop once the stream has got there.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GCuda = '1.0';
const {GCuda, GLib, Gio} = imports.gi;
const System = imports.system;

Gio._promisify(GCuda.Stream.prototype, 'synchronize_async', 'synchronize_finish');
Gio._promisify(GCuda.Event.prototype, 'synchronize_async', 'synchronize_finish');
Gio._promisify(GCuda.Context.prototype, 'synchronize_async', 'synchronize_finish');

const loop = new GLib.MainLoop(null, false);
let status = 0;

async function main() {
    const context = GCuda.Context.get_default();
    const stream = GCuda.Stream.new(context, GCuda.StreamFlags.DEFAULT, 0);
    const start = GCuda.Event.new(context, GCuda.EventFlags.DEFAULT).record(stream);
    let workDone = false;
    stream.add_blocking_callback(() => {
        GLib.usleep(200 * 1000);
        workDone = true;
    });
    const end = GCuda.Event.new(context, GCuda.EventFlags.DEFAULT).record(stream);

    print('waiting for the stream...');
    await stream.synchronize_async(null);
    print(`stream drained; the work ran first: ${workDone}`);
    await end.synchronize_async(null);
    print(`event reached: ${end.time_since(start).toFixed(1)} ms between the two events`);
    await context.synchronize_async(null);
    print('context drained');
    print('done');
}

main().catch(e => {
    printerr(`async-stream: ${e.message}`);
    status = 1;
}).finally(() => loop.quit());
loop.run();
System.exit(status);
