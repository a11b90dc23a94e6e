# GCuda.Stream and GCuda.Event on a real GPU: host callbacks, events,
# synchronize/wait in the GLib main loop and from asyncio, IPC across two
# processes.
#
# Without GPU kernels, host callbacks are the "work": a blocking callback
# (stream.add_blocking_callback) that sleeps stalls the stream for that long,
# since later work waits until it has run in the main context of the thread
# that added it. When the test's own thread must stay free while a stream is
# stalled (to block in synchronize(), to see a cancellation delivered at once,
# or under asyncio, which does not iterate GLib), the stalling callback is
# added from a Staller thread that iterates its own GLib.MainContext.
#
# The driver may run the host functions of independent streams one at a time
# on a single thread: ordering checks therefore look at events (which need no
# host function) rather than at callbacks of unrelated streams.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import asyncio
import gc
import os
import select
import subprocess
import sys
import threading
import time

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib, Gio  # noqa: E402

import pytest  # noqa: E402

from gcudatest import raises_gerror  # noqa: E402

pytestmark = pytest.mark.gpu

HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------- helpers

def iterate_until(predicate, timeout=10.0, context=None):
    """Iterates @context (the thread-default main context) until
    @predicate() is true."""
    context = context or GLib.MainContext.ref_thread_default()
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError('timed out after %.1f s' % timeout)
        if not context.iteration(False):
            time.sleep(0.0005)


def iterate_for(seconds, context=None):
    context = context or GLib.MainContext.ref_thread_default()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not context.iteration(False):
            time.sleep(0.0005)


def drain(stream):
    """Waits for @stream's work, iterating this thread's main context (which
    runs the blocking callbacks it added). The last synchronize() returns at
    once: it only settles the driver's view of the completion marker."""
    results = []
    stream.synchronize_async(None, lambda s, res, *a: results.append(s.synchronize_finish(res)))
    iterate_until(lambda: results)
    assert results == [True]
    stream.synchronize()


def is_cancelled(error):
    return error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)


class Staller:
    """A thread iterating its own GLib.MainContext: blocking callbacks added
    through it run (and sleep) in that thread."""

    def __init__(self):
        self.context = GLib.MainContext.new()
        self.loop = GLib.MainLoop.new(self.context, False)
        started = threading.Event()

        def run():
            self.context.push_thread_default()
            started.set()
            self.loop.run()
            self.context.pop_thread_default()

        self.thread = threading.Thread(target=run, name='staller', daemon=True)
        self.thread.start()
        assert started.wait(10)

    def block(self, stream, seconds, then=None):
        """Queues on @stream a blocking callback that sleeps @seconds in the
        staller's thread, then calls @then(); returns once it is queued."""
        queued = threading.Event()
        errors = []

        def step(s, *unused):
            time.sleep(seconds)
            if then is not None:
                then()

        def add(*unused):
            try:
                stream.add_blocking_callback(step)
            except Exception as e:  # noqa: BLE001 - re-raised below
                errors.append(e)
            queued.set()
            return False

        self.context.invoke_full(GLib.PRIORITY_DEFAULT, add)
        assert queued.wait(10)
        if errors:
            raise errors[0]

    def close(self):
        self.context.invoke_full(GLib.PRIORITY_DEFAULT, lambda *a: self.loop.quit() or False)
        self.thread.join(10)
        assert not self.thread.is_alive()


@pytest.fixture(autouse=True)
def _settle_default_context():
    """After each test, runs what is pending in the global default main
    context, so that a blocking callback left by a failed test cannot stall
    its stream (and, with a driver that runs host functions one at a time,
    every later completion)."""
    yield
    context = GLib.MainContext.default()
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        if not context.iteration(False):
            time.sleep(0.001)
            if not context.pending():
                break


@pytest.fixture
def staller():
    s = Staller()
    yield s
    s.close()


@pytest.fixture
def dedicated(ctx):
    c = ctx.get_device().create_context(GCuda.ContextFlags.SCHED_AUTO)
    yield c
    if not c.is_destroyed():
        c.destroy()


class Flag:
    """Set from any thread; remembers when."""

    def __init__(self):
        self._event = threading.Event()
        self.at = None

    def set(self, *unused):
        self.at = time.monotonic()
        self._event.set()

    def __bool__(self):
        return self._event.is_set()


class Finalized:
    """Tells when a GObject has been finalized (not just its Python wrapper
    dropped: the library may hold it)."""

    def __init__(self, obj):
        self.done = []
        self._ref = obj.weak_ref(lambda *a: self.done.append(True))

    def __bool__(self):
        return bool(self.done)

    def wait(self, timeout=5.0):
        iterate_until(lambda: (gc.collect() or True) and self.done, timeout=timeout)


# ---------------------------------------------------------------- streams

def test_stream_new(ctx):
    s = GCuda.Stream()
    assert isinstance(s, GCuda.Stream)
    assert s.get_context() is ctx
    assert s.props.context is ctx
    assert s.get_flags() == GCuda.StreamFlags.DEFAULT
    assert s.props.flags == GCuda.StreamFlags.DEFAULT
    assert s.get_priority() == 0
    assert s.props.priority == 0
    assert s.get_handle() != 0
    assert int(s) == s.get_handle()
    assert s.is_done()
    s.synchronize()

    nb = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    assert nb.get_flags() == GCuda.StreamFlags.NON_BLOCKING
    assert nb.props.flags == GCuda.StreamFlags.NON_BLOCKING
    assert int(nb) != int(s)

    kw = GCuda.Stream(flags=GCuda.StreamFlags.NON_BLOCKING, priority=0, context=ctx)
    assert kw.get_context() is ctx


def test_stream_dedicated_context(dedicated):
    s = GCuda.Stream(context=dedicated)
    assert s.get_context() is dedicated
    assert s.props.context is dedicated
    drain(s)
    del s
    gc.collect()


def test_stream_priorities(ctx):
    least, greatest = ctx.get_stream_priority_range()
    assert greatest <= least
    for p in range(greatest, least + 1):
        s = GCuda.Stream(priority=p)
        assert s.get_priority() == p
        assert s.props.priority == p
        s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING, p)
        assert s.get_priority() == p
    for p in (greatest - 1, least + 1, -2**31, 2**31 - 1):
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            GCuda.Stream(priority=p)
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            GCuda.Stream.new(ctx, GCuda.StreamFlags.NON_BLOCKING, p)


def test_stream_bad_flags(ctx):
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Stream.new(None, GCuda.StreamFlags(1 << 5), 0)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Stream(1 << 5)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Stream.new(ctx, GCuda.StreamFlags(GCuda.StreamFlags.NON_BLOCKING | (1 << 9)), 0)


def test_per_thread_default(ctx):
    s = GCuda.Stream.get_per_thread_default(None)
    assert isinstance(s, GCuda.Stream)
    assert s.get_context() is ctx
    assert s.is_done()
    s.synchronize()
    ran = Flag()
    s.add_blocking_callback(lambda st, *a: ran.set())
    drain(s)
    assert ran
    assert s.is_done()
    assert GCuda.Stream.get_per_thread_default(ctx).get_handle() == s.get_handle()


# ---------------------------------------------------------------- host callbacks as work

def test_blocking_callback_stalls():
    s = GCuda.Stream()
    e0, e1 = GCuda.Event(), GCuda.Event()
    ran = Flag()

    def step(stream, *unused):
        assert stream is s
        time.sleep(0.05)
        ran.set()

    e0.record(s)
    s.add_blocking_callback(step)
    e1.record(s)
    # this thread has not iterated its main context: the callback cannot have run
    assert not s.is_done()
    assert not e1.query()
    assert not ran

    drain(s)
    assert ran
    assert s.is_done()
    ms = e1.time_since(e0)
    assert 49 <= ms < 5000
    assert e0.time_till(e1) == ms
    assert GCuda.Event.elapsed(e0, e1) == ms


def test_callback_does_not_stall():
    s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    ran = Flag()
    s.add_callback(lambda st, *a: ran.set())
    after = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING).record(s)
    # later work completes though the callback has not run (nothing iterated)
    assert after.synchronize() is after
    s.synchronize()
    assert s.is_done()
    time.sleep(0.02)
    assert not ran
    iterate_until(lambda: ran)


def test_callback_keeps_stream_alive():
    s = GCuda.Stream()
    handle = s.get_handle()
    finalized = Finalized(s)
    seen = []
    s.add_callback(lambda st, *a: seen.append(st))
    del s
    gc.collect()
    assert not finalized
    iterate_until(lambda: seen)
    assert isinstance(seen[0], GCuda.Stream)
    assert seen[0].get_handle() == handle
    del seen[:]
    finalized.wait()


def _check_wait_event(staller, a, b, c, event):
    """@b waits for @event, recorded on @a behind a 100 ms stall (in the
    staller's thread): an event on @b stays pending while one on @c (not
    waiting) completes, and @b's callback runs after @a's work."""
    order = []
    lock = threading.Lock()

    def log(tag):
        with lock:
            order.append(tag)

    start = time.monotonic()
    a_done = Flag()
    staller.block(a, 0.1, lambda: (log('a'), a_done.set()))
    event.record(a)
    b.wait_event(event)
    on_b = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING, b.get_context()).record(b)
    b_done = Flag()
    b.add_callback(lambda st, *x: (log('b'), b_done.set()))
    on_c = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING, c.get_context()).record(c)

    on_c.synchronize()
    assert not on_b.query()
    assert not b.is_done()
    assert not a_done
    assert time.monotonic() - start < 0.09

    iterate_until(lambda: b_done)
    assert time.monotonic() - start >= 0.095
    assert order == ['a', 'b']
    on_b.synchronize()
    a.synchronize()
    b.synchronize()


def test_wait_event_orders(staller):
    a = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    b = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    c = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    _check_wait_event(staller, a, b, c, GCuda.Event(GCuda.EventFlags.DISABLE_TIMING))
    # a timing event; b a default-flag stream; wait_for_event is PyCUDA's name
    a2 = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    b2 = GCuda.Stream()
    ev = GCuda.Event()
    ev.record(a2)
    b2.wait_for_event(ev)
    _check_wait_event(staller, a2, b2, c, GCuda.Event())


def test_wait_event_cross_context(staller, dedicated):
    other = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING, context=dedicated)
    mine = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    free = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    event = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING, dedicated)
    assert event.get_context() is dedicated
    assert mine.get_context() is not dedicated
    _check_wait_event(staller, other, mine, free, event)


def _in_worker(fn):
    """Runs fn(context) in a new thread that pushes its own GMainContext as
    thread default; returns (result, thread ident, context)."""
    out = {}

    def run():
        context = GLib.MainContext.new()
        context.push_thread_default()
        try:
            out['result'] = fn(context)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller
            out['error'] = e
        finally:
            context.pop_thread_default()
            out['current'] = GCuda.Context.get_current()
        out['context'] = context

    t = threading.Thread(target=run, name='worker')
    t.start()
    t.join(30)
    assert not t.is_alive()
    if 'error' in out:
        raise out['error']
    assert out['current'] is None, 'a CUDA context was left current on the worker'
    return out['result'], t.ident, out['context']


@pytest.mark.parametrize('blocking', [False, True], ids=['add_callback', 'add_blocking_callback'])
def test_callback_thread_default_context(blocking):
    while GLib.MainContext.default().iteration(False):
        pass

    def work(context):
        seen = {}
        s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)

        def cb(stream, *unused):
            seen['thread'] = threading.get_ident()
            seen['context'] = GLib.MainContext.get_thread_default()
            seen['owner'] = context.is_owner()

        (s.add_blocking_callback if blocking else s.add_callback)(cb)
        if not blocking:
            s.synchronize()  # not stalled by the callback
        time.sleep(0.02)
        seen['before'] = 'thread' in seen
        iterate_until(lambda: 'thread' in seen, context=context)
        s.synchronize()
        return seen

    seen, ident, context = _in_worker(work)
    assert not seen['before'], 'ran without its main context being iterated'
    assert seen['thread'] == ident
    assert seen['thread'] != threading.get_ident()
    assert seen['context'] == context
    assert seen['owner']
    assert not GLib.MainContext.default().pending()


@pytest.mark.parametrize('blocking', [False, True], ids=['add_callback', 'add_blocking_callback'])
def test_callback_raising(blocking):
    # PyGObject reports an exception raised in a callback (through
    # sys.excepthook or sys.unraisablehook, by version) and goes on
    reported = []
    hooks = sys.excepthook, sys.unraisablehook
    sys.excepthook = lambda *exc: reported.append(exc)
    sys.unraisablehook = reported.append
    try:
        _check_callback_raising(blocking)
    finally:
        sys.excepthook, sys.unraisablehook = hooks


def _check_callback_raising(blocking):
    s = GCuda.Stream()
    add = s.add_blocking_callback if blocking else s.add_callback
    ran = []

    def bad(stream, *unused):
        ran.append('bad')
        raise ZeroDivisionError('raised on purpose')

    add(bad)
    add(lambda st, *a: ran.append('good'))
    add(bad)
    drain(s)
    iterate_for(0.02)
    assert ran == ['bad', 'good', 'bad']
    s.add_blocking_callback(lambda st, *a: ran.append('after'))
    drain(s)
    assert ran[-1] == 'after'
    assert s.is_done()


def test_synchronize_async_thread():
    while GLib.MainContext.default().iteration(False):
        pass

    def work(context):
        s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
        ran = Flag()
        s.add_blocking_callback(lambda st, *a: (time.sleep(0.02), ran.set()))
        seen = {}

        def done(source, res, *unused):
            seen['ok'] = source.synchronize_finish(res)
            seen['source'] = source
            seen['ran'] = bool(ran)
            seen['thread'] = threading.get_ident()
            seen['context'] = GLib.MainContext.get_thread_default()

        s.synchronize_async(None, done)
        del s
        iterate_until(lambda: seen, context=context)
        return seen

    seen, ident, context = _in_worker(work)
    assert seen['ok'] is True
    assert isinstance(seen['source'], GCuda.Stream)
    assert seen['ran']
    assert seen['thread'] == ident
    assert seen['context'] == context
    assert not GLib.MainContext.default().pending()


def test_synchronize_async_order():
    s = GCuda.Stream()
    order = []
    blocking_ran = [0]

    def step(stream, *unused):
        time.sleep(0.015)
        blocking_ran[0] += 1

    def make_done(i):
        def done(source, res, *unused):
            assert source.synchronize_finish(res)
            order.append((i, blocking_ran[0]))
        return done

    for i in range(3):
        s.add_blocking_callback(step)
        s.synchronize_async(None, make_done(i))
    iterate_until(lambda: len(order) == 3)
    iterate_for(0.02)
    assert [i for i, _ in order] == [0, 1, 2]
    for i, seen in order:
        assert seen >= i + 1


def test_synchronize_async_cancel(staller):
    s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    results = []

    def done(source, res, *unused):
        try:
            results.append(source.synchronize_finish(res))
        except GLib.Error as e:
            results.append(e)

    # cancelled before the call
    c = Gio.Cancellable()
    c.cancel()
    s.synchronize_async(c, done)
    iterate_until(lambda: results)
    assert isinstance(results[0], GLib.Error) and is_cancelled(results[0]), results
    del results[:]

    # cancelled right after the call, the stream stalled 200 ms elsewhere
    ran = Flag()
    start = time.monotonic()
    staller.block(s, 0.2, ran.set)
    c = Gio.Cancellable()
    s.synchronize_async(c, done)
    c.cancel()
    iterate_until(lambda: results)
    assert time.monotonic() - start < 0.15
    assert isinstance(results[0], GLib.Error) and is_cancelled(results[0]), results
    assert not ran

    # the work goes on; the stream completes normally afterwards
    s.synchronize_async(None, done)
    iterate_until(lambda: len(results) == 2)
    assert results[1] is True
    assert ran
    assert time.monotonic() - start >= 0.19
    iterate_for(0.03)
    assert len(results) == 2


def test_synchronize_async_drop_refs():
    s = GCuda.Stream()
    c = Gio.Cancellable()
    ran = Flag()
    s.add_blocking_callback(lambda st, *a: (time.sleep(0.05), ran.set()))
    results = []
    s.synchronize_async(c, lambda source, res, *a: results.append((source, source.synchronize_finish(res), bool(ran))))
    handle = s.get_handle()
    stream_gone, cancellable_gone = Finalized(s), Finalized(c)
    del s, c
    gc.collect()
    assert not stream_gone
    iterate_until(lambda: results)
    source, ok, ran_before = results[0]
    assert isinstance(source, GCuda.Stream)
    assert source.get_handle() == handle
    assert ok is True
    assert ran_before
    del source, results[:]
    stream_gone.wait()
    cancellable_gone.wait()


def test_synchronize_async_cancel_drop_refs(staller):
    s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    c = Gio.Cancellable()
    ran = Flag()
    staller.block(s, 0.1, ran.set)
    results = []

    def done(source, res, *unused):
        try:
            results.append(source.synchronize_finish(res))
        except GLib.Error as e:
            results.append(e)

    s.synchronize_async(c, done)
    c.cancel()
    stream_gone, cancellable_gone = Finalized(s), Finalized(c)
    del s, c
    gc.collect()
    iterate_until(lambda: results)
    assert is_cancelled(results[0])
    assert not ran
    del results[:]
    iterate_until(lambda: ran)
    stream_gone.wait()
    cancellable_gone.wait()


def test_synchronize_async_many():
    streams = [GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING if i % 2 else GCuda.StreamFlags.DEFAULT)
               for i in range(8)]
    for s in streams:  # each starts stalled: the waits are all pending at once
        s.add_blocking_callback(lambda st, *a: time.sleep(0.002))
    n = 1000
    counts = [0] * n
    failures = []

    def make_done(i):
        def done(source, res, *unused):
            try:
                assert source.synchronize_finish(res) is True
            except Exception as e:  # noqa: BLE001 - checked below
                failures.append((i, e))
            counts[i] += 1
        return done

    for i in range(n):
        streams[i % 8].synchronize_async(None, make_done(i))
    assert sum(counts) == 0
    del streams
    iterate_until(lambda: sum(counts) >= n, timeout=20)
    iterate_for(0.05)
    assert not failures
    assert sum(counts) == n
    assert all(c == 1 for c in counts), [i for i, c in enumerate(counts) if c != 1]


def test_context_synchronize_async(ctx):
    nb = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    df = GCuda.Stream()
    nb_ran, df_ran = Flag(), Flag()
    start = time.monotonic()
    nb.add_blocking_callback(lambda st, *a: (time.sleep(0.1), nb_ran.set()))
    df.add_blocking_callback(lambda st, *a: (time.sleep(0.1), df_ran.set()))
    results = []
    ctx.synchronize_async(None, lambda source, res, *a: results.append(
        (source, source.synchronize_finish(res), bool(nb_ran), bool(df_ran), time.monotonic())))
    iterate_until(lambda: results)
    source, ok, nb_before, df_before, at = results[0]
    assert source is ctx
    assert ok is True
    assert nb_before and df_before
    assert at - start >= 0.095


@pytest.mark.parametrize('flags', [GCuda.StreamFlags.NON_BLOCKING, GCuda.StreamFlags.DEFAULT],
                         ids=['non-blocking', 'default'])
def test_context_synchronize_async_each_stream(staller, dedicated, flags):
    # one stream stalled alone, in the staller's thread: this thread's own
    # dispatch order proves nothing then
    s = GCuda.Stream(flags, context=dedicated)
    ran = Flag()
    start = time.monotonic()
    staller.block(s, 0.1, ran.set)
    results = []
    dedicated.synchronize_async(None, lambda source, res, *a: results.append(
        (source.synchronize_finish(res), bool(ran), time.monotonic())))
    iterate_until(lambda: results)
    ok, ran_before, at = results[0]
    assert ok is True
    assert ran_before
    assert at - start >= 0.095
    s.synchronize()


# ---------------------------------------------------------------- events

def test_event_new(ctx):
    for flags in (0, GCuda.EventFlags.BLOCKING_SYNC, GCuda.EventFlags.DISABLE_TIMING,
                  GCuda.EventFlags.INTERPROCESS | GCuda.EventFlags.DISABLE_TIMING):
        e = GCuda.Event(flags)
        assert isinstance(e, GCuda.Event)
        assert e.get_context() is ctx
        assert e.props.context is ctx
        assert e.get_flags() == flags
        assert e.props.flags == flags
        assert e.get_handle() != 0
        assert e.query()  # never recorded: complete
        assert e.synchronize() is e
    assert GCuda.Event(flags=GCuda.EventFlags.DISABLE_TIMING, context=ctx).get_context() is ctx


def test_event_bad_flags():
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Event(GCuda.EventFlags.INTERPROCESS)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Event(GCuda.EventFlags.INTERPROCESS | GCuda.EventFlags.BLOCKING_SYNC)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Event.new(None, GCuda.EventFlags(1 << 3))
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Event(1 << 3)


def test_event_chain():
    s = GCuda.Stream()
    e = GCuda.Event()
    assert e.record(s) is e
    assert e.record(s).synchronize() is e
    assert GCuda.Event().record(s).synchronize().query()
    assert GCuda.Event().record(None).synchronize().query()  # the legacy stream
    assert e.record().synchronize() is e  # stream defaults to None


def test_event_query_pending():
    s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    ran = Flag()
    s.add_blocking_callback(lambda st, *a: (time.sleep(0.2), ran.set()))
    e = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING).record(s)
    assert not e.query()
    time.sleep(0.02)
    assert not e.query()
    # this thread must run the callback before it may block on the event
    iterate_until(lambda: ran)
    assert e.synchronize() is e
    assert e.query()


def test_event_synchronize_blocks(staller):
    s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    ran = Flag()
    start = time.monotonic()
    staller.block(s, 0.1, ran.set)
    e = GCuda.Event().record(s)
    assert not e.query()
    assert e.synchronize() is e
    assert ran
    assert time.monotonic() - start >= 0.095
    assert e.query()


def test_event_synchronize_async():
    s = GCuda.Stream()
    ran = Flag()
    start = time.monotonic()
    s.add_blocking_callback(lambda st, *a: (time.sleep(0.1), ran.set()))
    e = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING).record(s)
    results = []
    e.synchronize_async(None, lambda source, res, *a: results.append(
        (source, source.synchronize_finish(res), bool(ran), threading.get_ident())))
    iterate_until(lambda: results)
    source, ok, ran_before, ident = results[0]
    assert source is e
    assert ok is True
    assert ran_before
    assert ident == threading.get_ident()
    assert time.monotonic() - start >= 0.095

    # a never-recorded event is complete
    del results[:]
    GCuda.Event().synchronize_async(None, lambda source, res, *a: results.append(source.synchronize_finish(res)))
    iterate_until(lambda: results)
    assert results == [True]
    drain(s)


def test_event_synchronize_async_cancel(staller):
    s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    e = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING)
    results = []

    def done(source, res, *unused):
        try:
            results.append(source.synchronize_finish(res))
        except GLib.Error as err:
            results.append(err)

    ran = Flag()
    start = time.monotonic()
    staller.block(s, 0.2, ran.set)
    e.record(s)
    c = Gio.Cancellable()
    e.synchronize_async(c, done)
    c.cancel()
    iterate_until(lambda: results)
    assert time.monotonic() - start < 0.15
    assert is_cancelled(results[0])
    assert not ran
    e.synchronize_async(None, done)
    iterate_until(lambda: len(results) == 2)
    assert results[1] is True
    assert ran


def test_event_timing_errors():
    s = GCuda.Stream()
    timed = GCuda.Event().record(s).synchronize()
    untimed = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING).record(s).synchronize()
    never = GCuda.Event()

    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        untimed.time_since(timed)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        timed.time_since(untimed)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Event.elapsed(untimed, timed)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        never.time_since(timed)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        never.time_till(timed)

    # not reached yet: the driver's NOT_READY
    ran = Flag()
    s.add_blocking_callback(lambda st, *a: (time.sleep(0.2), ran.set()))
    later = GCuda.Event().record(s)
    with raises_gerror(GCuda.DriverError.NOT_READY):
        later.time_since(timed)
    with raises_gerror(GCuda.DriverError.NOT_READY):
        GCuda.Event.elapsed(timed, later)
    iterate_until(lambda: ran)
    later.synchronize()
    assert later.time_since(timed) >= 199
    assert GCuda.Event.elapsed(timed, later) == later.time_since(timed)


def test_event_contexts(ctx, dedicated):
    s = GCuda.Stream()
    other_s = GCuda.Stream(context=dedicated)
    e = GCuda.Event()
    other_e = GCuda.Event(context=dedicated)
    fresh = GCuda.Event()

    # recording into a stream of another context
    with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
        fresh.record(other_s)
    with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
        other_e.record(s)

    e.record(s).synchronize()
    other_e.record(other_s).synchronize()
    other_e.record(None).synchronize()  # the dedicated context's legacy stream

    # timing across contexts
    with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
        other_e.time_since(e)
    with raises_gerror(GCuda.Error.CONTEXT_MISMATCH, GCuda.LogicError):
        GCuda.Event.elapsed(e, other_e)

    # waiting across contexts is allowed
    s.wait_event(other_e)
    other_s.wait_event(e)
    s.synchronize()
    other_s.synchronize()


def test_destroyed_context(dedicated):
    s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING, context=dedicated)
    e = GCuda.Event(context=dedicated)
    t0 = GCuda.Event(context=dedicated).record()
    t1 = GCuda.Event(context=dedicated).record().synchronize()
    ipc = GCuda.Event(GCuda.EventFlags.INTERPROCESS | GCuda.EventFlags.DISABLE_TIMING, dedicated)
    dedicated.destroy()

    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        e.record()
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        e.record(s)
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        e.synchronize()
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        e.query()
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        t1.time_since(t0)
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        ipc.ipc_handle()
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        GCuda.Event(context=dedicated)
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        GCuda.Stream(context=dedicated)
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        s.synchronize()
    with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
        s.add_callback(lambda *a: None)

    results = []

    def done(source, res, *unused):
        try:
            results.append(source.synchronize_finish(res))
        except GLib.Error as err:
            results.append(err)

    def done_wait(source, res, *unused):
        try:
            results.append(source.synchronize_finish(res))
        except GLib.Error as err:
            results.append(err)

    s.synchronize_async(None, done)
    dedicated.synchronize_async(None, done)
    e.synchronize_async(None, done_wait)
    iterate_until(lambda: len(results) == 3)
    for r in results:
        assert isinstance(r, GCuda.LogicError), r
        assert r.code == GCuda.Error.CONTEXT_DESTROYED
    del s, e, t0, t1, ipc
    gc.collect()


def test_bad_input():
    s = GCuda.Stream()
    with pytest.raises(TypeError):
        s.wait_event(None)
    with pytest.raises(TypeError):
        s.add_callback(None)


# ---------------------------------------------------------------- IPC

def test_ipc_handle():
    e = GCuda.Event(GCuda.EventFlags.INTERPROCESS | GCuda.EventFlags.DISABLE_TIMING)
    h = e.get_ipc_handle()
    assert isinstance(h, GLib.Bytes)
    assert h.get_size() == 64
    assert isinstance(e.ipc_handle(), bytes)
    assert len(e.ipc_handle()) == 64

    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Event(GCuda.EventFlags.DISABLE_TIMING).get_ipc_handle()
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        GCuda.Event().ipc_handle()
    for size in (0, 3, 63, 65):
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            GCuda.Event.from_ipc_handle(bytes(size))
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            GCuda.Event.new_from_ipc_handle(None, GLib.Bytes.new(bytes(size)))


def test_ipc_two_processes():
    """The parent records an INTERPROCESS event behind a 300 ms blocking
    callback; a child process opens the handle and waits on it."""
    s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    e = GCuda.Event(GCuda.EventFlags.INTERPROCESS | GCuda.EventFlags.DISABLE_TIMING)
    handle = e.ipc_handle()
    ran = Flag()
    # runs in this thread's (the global default) main context, which this
    # test iterates only once the child is ready to wait
    s.add_blocking_callback(lambda st, *a: (time.sleep(0.3), ran.set()))
    e.record(s)
    assert not e.query()

    child = subprocess.Popen([sys.executable, os.path.join(HERE, 'ipc_event_child.py'), handle.hex()],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        # the child prints "ready" once it has opened the event, right
        # before it waits; until then this thread does not iterate, so the
        # event cannot be reached
        ready = _readline(child)
        assert ready == 'ready', ready
        deadline = time.monotonic() + 30
        while child.poll() is None:
            assert time.monotonic() < deadline, 'the child did not finish'
            if not GLib.MainContext.default().iteration(False):
                time.sleep(0.001)
        out, err = child.communicate(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        iterate_until(lambda: ran, timeout=10)  # never leave the stream stalled
    assert child.returncode == 0, 'child exited %d: %s' % (child.returncode, err)
    assert ran
    waited = float(out.split()[-1])
    assert waited >= 0.15, 'the child waited only %.3f s: %s' % (waited, out)
    e.synchronize()
    s.synchronize()


def _readline(child, timeout=60):
    readable, _, _ = select.select([child.stdout], [], [], timeout)
    assert readable, 'no output from the child in %d s' % timeout
    line = child.stdout.readline()
    if not line and child.poll() is not None:
        raise AssertionError('the child exited %d: %s' % (child.returncode, child.stderr.read()))
    return line.strip()


def test_ipc_wait_for_other_process(ctx):
    """An event of another process, held pending there: synchronize_async on it
    completes when the other process lets it be reached, and a stream here
    can wait for it. Meanwhile, a synchronize_async on an event that has completed,
    and a context synchronize_async with nothing pending in the context's
    streams, complete at once: waits must not queue up behind a pending one
    (the stall is in the other process, so this holds whether or not the
    driver runs host functions concurrently)."""
    child = subprocess.Popen([sys.executable, os.path.join(HERE, 'ipc_event_child.py'), 'export'],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=os.environ.copy())
    try:
        line = _readline(child)
        assert line.startswith('handle '), line
        pending = GCuda.Event.from_ipc_handle(bytes.fromhex(line.split()[1]))
        assert not pending.query()

        results = {}

        def record_as(name):
            def done(source, res, *unused):
                finish = source.synchronize_finish if isinstance(source, GCuda.Event) else source.synchronize_finish
                results[name] = (finish(res), time.monotonic())
            return done

        pending.synchronize_async(None, record_as('pending'))

        idle = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
        reached = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING).record(idle).synchronize()
        t0 = time.monotonic()
        reached.synchronize_async(None, record_as('reached'))
        iterate_until(lambda: 'reached' in results, timeout=5)
        assert results['reached'][1] - t0 < 0.1, 'waited behind the pending wait'

        # the context has nothing pending but the wait on the other process
        t0 = time.monotonic()
        ctx.synchronize_async(None, record_as('context'))
        iterate_until(lambda: 'context' in results, timeout=5)
        assert results['context'][1] - t0 < 0.1, 'waited behind the pending wait'

        # a stream of this process waits for the other process
        s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
        s.wait_event(pending)
        after = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING).record(s)

        time.sleep(0.05)
        iterate_for(0.01)
        assert 'pending' not in results
        assert not pending.query()
        assert not after.query()

        # let the other process reach its event
        child.stdin.write('go\n')
        child.stdin.flush()
        iterate_until(lambda: 'pending' in results, timeout=30)
        assert results['pending'][0] is True
        assert after.synchronize().query()
        assert _readline(child) == 'done'
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            # let the event be reached even after a failure: a wait left
            # pending on it could hold up the waits of later tests
            try:
                child.stdin.write('go\n')
                child.stdin.flush()
            except OSError:
                pass
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    assert child.returncode == 0, child.stderr.read()


# ---------------------------------------------------------------- asyncio

def bounded(awaitable, timeout=10):
    """A hang becomes a failure."""
    return asyncio.wait_for(awaitable, timeout)


def test_asyncio_synchronize(staller):
    s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)

    async def main():
        # work that does not need this thread's main context
        ran = Flag()
        start = time.monotonic()
        staller.block(s, 0.1, ran.set)
        assert await bounded(s.synchronize_async()) is True
        assert ran
        assert time.monotonic() - start >= 0.095

        # a non-blocking callback to this (never iterated) thread's
        # context does not hold the stream up
        s.add_callback(lambda st, *a: None)
        assert await bounded(s.synchronize_async()) is True

        e = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING)
        ran2 = Flag()
        staller.block(s, 0.05, ran2.set)
        e.record(s)
        assert await bounded(e.synchronize_async()) is True
        assert ran2

        ctx = GCuda.Context.get_default()
        ran3 = Flag()
        staller.block(GCuda.Stream(), 0.05, ran3.set)
        assert await bounded(ctx.synchronize_async()) is True
        assert ran3

        # several at once
        waits = [s.synchronize_async() for _ in range(10)]
        assert await bounded(asyncio.gather(*waits)) == [True] * 10

    asyncio.run(main())
    iterate_for(0.01)  # runs the non-blocking callback queued above


def test_asyncio_cancel(staller):
    s = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    e = GCuda.Event(GCuda.EventFlags.DISABLE_TIMING)
    ran = Flag()

    async def main():
        start = time.monotonic()
        staller.block(s, 0.5, ran.set)
        e.record(s)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(s.synchronize_async(), 0.05)
        assert time.monotonic() - start < 0.3
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(e.synchronize_async(), 0.05)
        assert time.monotonic() - start < 0.4
        assert not ran

        task = asyncio.ensure_future(s.synchronize_async())
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not ran

        # the GPU work was not cancelled: a new wait completes
        assert await bounded(s.synchronize_async()) is True
        assert ran
        await asyncio.sleep(0.02)  # let the cancelled waits land before the loop closes

    asyncio.run(main())


def test_asyncio_error():
    async def main(dead):
        with raises_gerror(GCuda.Error.CONTEXT_DESTROYED, GCuda.LogicError):
            await bounded(dead.synchronize_async())

    ctx = GCuda.Context.get_default()
    c = ctx.get_device().create_context(GCuda.ContextFlags.SCHED_AUTO)
    s = GCuda.Stream(context=c)
    c.destroy()
    asyncio.run(main(s))
