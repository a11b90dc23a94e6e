#!/usr/bin/env python3
# async-stream: wait for a CUDA stream without blocking the main loop.
#
# The stream gets a 300 ms step of "work" (until kernels are in play, a host
# step queued with add_blocking_callback() stands in for one; it runs in a
# worker thread's main context, since GCuda runs callbacks where they were
# added). Meanwhile the main loop keeps ticking, and synchronize_async() and
# an event's synchronize_async() complete in it when the stream gets there; the
# same wait is then awaited from asyncio.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import asyncio
import sys
import threading
import time

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402


def queue_host_work(stream, seconds):
    """Queues a host step of `seconds` on `stream`, run by a worker thread."""
    queued = threading.Event()

    def worker():
        context = GLib.MainContext.new()
        context.push_thread_default()
        finished = []
        stream.add_blocking_callback(lambda s: (time.sleep(seconds), finished.append(True)))
        queued.set()
        while not finished:
            context.iteration(True)
        context.pop_thread_default()

    threading.Thread(target=worker, daemon=True).start()
    queued.wait()


def main():
    loop = GLib.MainLoop()
    stream = GCuda.Stream()
    ticks = []

    def tick():
        ticks.append(time.monotonic())
        return GLib.SOURCE_CONTINUE

    start = GCuda.Event().record(stream)
    queue_host_work(stream, 0.3)
    end = GCuda.Event().record(stream)
    t0 = time.monotonic()
    GLib.timeout_add(20, tick)

    def drained(stream, result, *unused):
        stream.synchronize_finish(result)
        print('stream drained after %.0f ms; the main loop ticked %d times meanwhile'
              % ((time.monotonic() - t0) * 1000, len(ticks)))
        end.synchronize_async(None, event_reached)

    def event_reached(event, result, *unused):
        event.synchronize_finish(result)
        print('event reached: %.1f ms of stream work between the two events' % end.time_since(start))
        loop.quit()

    stream.synchronize_async(None, drained)
    print('waiting for the stream, without blocking...')
    loop.run()

    async def with_asyncio():
        queue_host_work(stream, 0.1)
        t = time.monotonic()
        await stream.synchronize_async()
        print('asyncio: awaited the stream for %.0f ms' % ((time.monotonic() - t) * 1000))

    asyncio.run(with_asyncio())
    print('done')
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except GLib.Error as e:
        print('async-stream: %s' % e.message, file=sys.stderr)
        sys.exit(1)
