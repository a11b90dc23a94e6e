# Contexts: flags, limits, cache configurations, peers, the context stack,
# and every use of a destroyed context (GCuda.Error.CONTEXT_DESTROYED, as
# gcuda_context_destroy() documents).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import MEMORY, NODRIVER, accepted, case, drv, err, raises

# ---------------------------------------------------------------- flags

_FLAGS = {
    'spin-and-yield': 'GCuda.ContextFlags.SCHED_SPIN | GCuda.ContextFlags.SCHED_YIELD',
    'spin-and-blocking': 'GCuda.ContextFlags.SCHED_SPIN | GCuda.ContextFlags.SCHED_BLOCKING_SYNC',
    'all-schedules': 'GCuda.ContextFlags(7)',
    'unknown-bit': 'GCuda.ContextFlags(0x1000)',
    'high-bit': 'GCuda.ContextFlags(0x80000000)',
}
for what, flags in _FLAGS.items():
    case('context/create-flags-' + what, 'dev().create_context(%s)' % flags, err('INVALID_ARGUMENT'), MEMORY)
case('context/make-context-unknown-int', 'dev().make_context(0x4000)', err('INVALID_ARGUMENT'), MEMORY)
case('context/make-context-negative', 'dev().make_context(-1)', err('INVALID_ARGUMENT'), MEMORY)
case('context/make-context-string', "dev().make_context('SCHED_AUTO')", raises('TypeError'), MEMORY)

# ---------------------------------------------------------------- limits and cache configuration

case('context/limit-not-a-limit', 'ctx().get_limit(99)', raises('TypeError'), MEMORY)
case('context/set-limit-negative', 'ctx().set_limit(GCuda.Limit.STACK_SIZE, -1)', raises('OverflowError'), MEMORY)
case('context/set-limit-too-big', 'ctx().set_limit(GCuda.Limit.STACK_SIZE, 2**64)', raises('OverflowError'),
     MEMORY)
case('context/set-limit-float', 'ctx().set_limit(GCuda.Limit.STACK_SIZE, 1024.5)', raises('TypeError'), MEMORY)
case('context/cache-config-not-a-config', 'ctx().set_cache_config(7)', raises('TypeError'), MEMORY)

# ---------------------------------------------------------------- peers

case('context/peer-itself', 'ctx().enable_peer_access(ctx())', err('INVALID_ARGUMENT'), MEMORY)
case('context/peer-same-device', 'ctx().enable_peer_access(new_ctx())', err('INVALID_ARGUMENT'), MEMORY)
case('context/peer-disable-itself', 'ctx().disable_peer_access(ctx())', err('INVALID_ARGUMENT'), MEMORY)
case('context/peer-none', 'ctx().enable_peer_access(None)', raises('TypeError'), MEMORY)
case('context/peer-destroyed', 'ctx().enable_peer_access(destroyed_ctx())', err('CONTEXT_DESTROYED'), MEMORY)

# ---------------------------------------------------------------- the stack

case('context/pop-empty-stack', 'GCuda.Context.pop()', drv('INVALID_CONTEXT'), MEMORY)
case('context/pop-twice', 'c = ctx(); c.push(); GCuda.Context.pop(); GCuda.Context.pop()', drv('INVALID_CONTEXT'),
     MEMORY)
case('context/push-destroyed', 'destroyed_ctx().push()', err('CONTEXT_DESTROYED'), MEMORY)
case('context/with-destroyed', 'with destroyed_ctx():\n    pass', err('CONTEXT_DESTROYED'), MEMORY)

# ---------------------------------------------------------------- a destroyed context

_DESTROYED_USES = {
    'synchronize': 'c.synchronize()',
    'get-limit': 'c.get_limit(GCuda.Limit.STACK_SIZE)',
    'set-limit': 'c.set_limit(GCuda.Limit.STACK_SIZE, 4096)',
    'cache-config': 'c.set_cache_config(GCuda.CacheConfig.L1)',
    'memory-info': 'c.get_memory_info()',
    'api-version': 'c.get_api_version()',
    'priority-range': 'c.get_stream_priority_range()',
    'address-range': 'c.get_address_range(0x1000)',
    'mem-alloc': 'GCuda.mem_alloc(64, context=c)',
    'buffer-new': 'GCuda.Buffer.new(c, 64)',
    'pagelocked': 'GCuda.pagelocked_empty(16, np.float32, context=c)',
    'to-device': 'GCuda.to_device(np.arange(4), context=c)',
    'stream': 'GCuda.Stream(context=c)',
    'event': 'GCuda.Event(0, c)',
    'module': 'GCuda.module_from_buffer(ptx(), context=c)',
    'stream-pool': 'GCuda.StreamPool.new(c)',
}
for what, code in _DESTROYED_USES.items():
    case('context/destroyed-' + what, code, err('CONTEXT_DESTROYED'), MEMORY, setup='c = destroyed_ctx()')

case('context/destroyed-buffer-download', 'b.download(0, 8)', err('CONTEXT_DESTROYED'), MEMORY,
     setup='c = new_ctx(); b = buf(64, context=c); c.destroy()')
case('context/destroyed-buffer-memset', 'GCuda.memset_d8(b, 1, 8)', err('CONTEXT_DESTROYED'), MEMORY,
     setup='c = new_ctx(); b = buf(64, context=c); c.destroy()')
case('context/destroyed-pagelocked-read', 'hb.read(0, 8)', err('CONTEXT_DESTROYED'), MEMORY,
     setup='c = new_ctx(); hb = GCuda.HostBuffer.new_pagelocked(c, 64, 0); c.destroy()')
case('context/destroyed-twice', 'c.destroy()',
     accepted('gcuda_context_destroy() documents destroying twice as harmless'), MEMORY, setup='c = destroyed_ctx()')
case('context/destroyed-buffer-free', 'b.free()',
     accepted('the memory went with its context: free() only retires the buffer, as its finalizer does'),
     MEMORY, setup='c = new_ctx(); b = buf(64, context=c); c.destroy()')
case('context/destroyed-default-comes-back', 'ctx().destroy(); assert not ctx().is_destroyed()',
     accepted('gcuda_context_get_default() documents that a new default context is made after destroy()'), MEMORY)
# A pool's constructor cannot fail (and a pool of the default context finds
# it only at its first allocation): a destroyed context is refused there, as
# gcuda_memory_pool_new() and gcuda_host_memory_pool_new() document.
case('context/destroyed-memory-pool-made', 'GCuda.MemoryPool.new(c)',
     accepted('a pool binds its context at its first allocation: that one is CONTEXT_DESTROYED (documented)'),
     MEMORY, setup='c = destroyed_ctx()')
case('context/destroyed-memory-pool', 'GCuda.MemoryPool.new(c).allocate_address(64)', err('CONTEXT_DESTROYED'),
     MEMORY, setup='c = destroyed_ctx()')
case('context/destroyed-host-memory-pool', 'GCuda.HostMemoryPool(context=c).allocate(64)', err('CONTEXT_DESTROYED'),
     MEMORY, setup='c = destroyed_ctx()')
case('context/destroyed-host-memory-pool-address', 'GCuda.HostMemoryPool.new(c, 0).allocate_address(64)',
     err('CONTEXT_DESTROYED'), MEMORY, setup='c = destroyed_ctx()')
case('context/unbound-memory-pool', 'GCuda.MemoryPool.new(GObject.new(GCuda.Context)).allocate(64)',
     err('INVALID_ARGUMENT'), NODRIVER)
case('context/unbound-host-memory-pool', 'GCuda.HostMemoryPool.new(GObject.new(GCuda.Context), 0).allocate(64)',
     err('INVALID_ARGUMENT'), NODRIVER)

# ---------------------------------------------------------------- a GCuda.Context made by hand

case('context/unbound-synchronize', 'GObject.new(GCuda.Context).synchronize()', err('INVALID_ARGUMENT'), NODRIVER)
case('context/unbound-destroy', 'GObject.new(GCuda.Context).destroy()', err('INVALID_ARGUMENT'), NODRIVER)
case('context/unbound-mem-alloc', 'GCuda.mem_alloc(64, context=GObject.new(GCuda.Context))',
     err('INVALID_ARGUMENT'), NODRIVER)
case('context/not-a-context', 'GCuda.mem_alloc(64, context=dev())', raises('TypeError'), MEMORY)
