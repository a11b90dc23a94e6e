# Streams and events: flags, priorities, destroyed contexts, streams and
# events of another context, timing without timing, IPC handles, captures.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import GPU, MEMORY, NODRIVER, case, drv, err, raises

# ---------------------------------------------------------------- streams: checked before any stream is made

case('stream/unknown-flags', 'GCuda.Stream(flags=0x10)', err('INVALID_ARGUMENT'), MEMORY)
case('stream/flags-high-bit', 'GCuda.Stream(flags=0x80000000)', err('INVALID_ARGUMENT'), MEMORY)
case('stream/flags-negative', 'GCuda.Stream(flags=-1)', err('INVALID_ARGUMENT'), MEMORY)
case('stream/priority-too-low', 'GCuda.Stream(priority=1)', err('INVALID_ARGUMENT'), MEMORY)
case('stream/priority-too-high', 'GCuda.Stream(priority=-1000)', err('INVALID_ARGUMENT'), MEMORY)
case('stream/priority-int-max', 'GCuda.Stream(priority=2**31 - 1)', err('INVALID_ARGUMENT'), MEMORY)
case('stream/priority-too-big-for-int', 'GCuda.Stream(priority=2**31)', raises('OverflowError'), MEMORY)
case('stream/priority-string', "GCuda.Stream(priority='high')", raises('TypeError'), MEMORY)
case('stream/context-not-a-context', 'GCuda.Stream(context=dev())', raises('TypeError'), MEMORY)

# ---------------------------------------------------------------- events: checked before the driver

case('event/unknown-flags', 'GCuda.Event(0x100)', err('INVALID_ARGUMENT'), NODRIVER)
case('event/interprocess-with-timing', 'GCuda.Event(GCuda.EventFlags.INTERPROCESS)', err('INVALID_ARGUMENT'),
     NODRIVER)
case('event/ipc-handle-wrong-size', "GCuda.Event.from_ipc_handle(b'short')", err('INVALID_ARGUMENT'), NODRIVER)
case('event/ipc-handle-none', 'GCuda.Event.from_ipc_handle(None)', raises('TypeError'), NODRIVER)

# ---------------------------------------------------------------- streams and events by hand

case('stream/unbound-synchronize', 'GObject.new(GCuda.Stream).synchronize()', err('INVALID_ARGUMENT'), NODRIVER)
case('stream/unbound-wait-event', 'GObject.new(GCuda.Stream).wait_event(GObject.new(GCuda.Event))',
     err('INVALID_ARGUMENT'), NODRIVER)
case('event/unbound-synchronize', 'GObject.new(GCuda.Event).synchronize()', err('INVALID_ARGUMENT'), NODRIVER)
case('event/unbound-query', 'GObject.new(GCuda.Event).query()', err('INVALID_ARGUMENT'), NODRIVER)
case('event/unbound-elapsed', 'GObject.new(GCuda.Event).time_since(GObject.new(GCuda.Event))',
     err('INVALID_ARGUMENT'), NODRIVER)
# a stream made by hand given to another object's call: INVALID_ARGUMENT, never CONTEXT_MISMATCH
case('stream/unbound-for-upload', 'b = buf(64); a = np.zeros(8, np.uint8)\n'
     'b.upload_from_address_on_stream(0, a.ctypes.data, 8, GObject.new(GCuda.Stream))',
     err('INVALID_ARGUMENT'), MEMORY)
case('stream/unbound-for-memset', 'GCuda.memset_d8_async(buf(64), 0, 8, GObject.new(GCuda.Stream))',
     err('INVALID_ARGUMENT'), MEMORY)
case('stream/unbound-for-htod-async', 'GCuda.memcpy_htod_async(buf(64), host(64), GObject.new(GCuda.Stream))',
     err('INVALID_ARGUMENT'), MEMORY)
case('stream/unbound-for-event-record', 'GCuda.Event(0).record(GObject.new(GCuda.Stream))', err('INVALID_ARGUMENT'),
     GPU)
case('stream/unbound-for-launch', 'f(out, np.float32(1), np.int32(32), block=(32, 1, 1), stream=GObject.new(GCuda.Stream))',
     err('INVALID_ARGUMENT'), GPU, setup="f = function('fill'); out = buf(4096)")
case('stream/unbound-for-stream-pool', 'GCuda.StreamPool.new(None).allocate(64, GObject.new(GCuda.Stream))',
     err('INVALID_ARGUMENT'), GPU)
case('stream/unbound-synchronize-awaitable', 'import asyncio\nasyncio.run(GObject.new(GCuda.Stream).synchronize_async())',
     err('INVALID_ARGUMENT'), NODRIVER)

# ---------------------------------------------------------------- real streams and events (GPU)

case('stream/wait-event-destroyed-context', 's.wait_event(e)', err('CONTEXT_DESTROYED'), GPU,
     setup='c = new_ctx(); e = GCuda.Event(0, c).record(None); s = stream(); c.destroy()')
case('stream/of-destroyed-context-synchronize', 's.synchronize()', err('CONTEXT_DESTROYED'), GPU,
     setup='c = new_ctx(); s = GCuda.Stream(context=c); c.destroy()')
case('stream/wait-event-not-an-event', 's.wait_event(s)', raises('TypeError'), GPU, setup='s = stream()')
case('stream/end-capture-not-capturing', 'stream().end_capture()', drv('ILLEGAL_STATE'), GPU)
case('stream/callback-not-callable', 'stream().add_callback(42)', raises('TypeError'), GPU)
case('stream/memset-on-other-context-stream', 'GCuda.memset_d8_async(buf(64), 0, 8, s)', err('CONTEXT_MISMATCH'),
     GPU, setup='s = GCuda.Stream(context=new_ctx())')
case('stream/htod-async-other-context-stream', 'GCuda.memcpy_htod_async(buf(64), np.zeros(8, np.uint8), s)',
     err('CONTEXT_MISMATCH'), GPU, setup='s = GCuda.Stream(context=new_ctx())')
case('stream/dtod-async-other-context-stream', 'GCuda.memcpy_dtod_async(buf(64), buf(64), 8, s)',
     err('CONTEXT_MISMATCH'), GPU, setup='s = GCuda.Stream(context=new_ctx())')
case('event/record-other-context-stream', 'GCuda.Event(0).record(s)', err('CONTEXT_MISMATCH'), GPU,
     setup='s = GCuda.Stream(context=new_ctx())')
case('event/record-not-a-stream', 'GCuda.Event(0).record(42)', raises('TypeError'), GPU)
case('event/time-since-never-recorded', 'GCuda.Event(0).time_since(GCuda.Event(0))', err('INVALID_ARGUMENT'), GPU)
case('event/time-without-timing', 'a.time_till(b)', err('INVALID_ARGUMENT'), GPU,
     setup='a = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING).record(None)\n'
           'b = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING).record(None)')
case('event/time-across-contexts', 'a.time_till(b)', err('CONTEXT_MISMATCH'), GPU,
     setup='a = GCuda.Event(0).record(None); a.synchronize()\n'
           'b = GCuda.Event(0, new_ctx()).record(None); b.synchronize()')
case('event/ipc-handle-without-interprocess', 'GCuda.Event(0).ipc_handle()', err('INVALID_ARGUMENT'), GPU)
case('event/of-destroyed-context-record', 'e.record(None)', err('CONTEXT_DESTROYED'), GPU,
     setup='c = new_ctx(); e = GCuda.Event(0, c); c.destroy()')
case('event/ipc-handle-int', 'GCuda.Event.from_ipc_handle(64)', raises('TypeError'), NODRIVER)
