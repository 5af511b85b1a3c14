"""The stores' contract at the edges (issue 29), on every backend, in both flavours where the edge has two:

* closing with calls in flight, from another thread or task: calls under way finish, calls not yet
  started raise ``StoreClosedError``, and ``close()`` / ``aclose()`` return only when no call of the store
  can still write (it crashed sqlite3 when connections were closed under running calls);
* cancellation: an awaited append that raises ``CancelledError`` (or a timeout) has settled its write by
  then: a call that had not started writes nothing, one that had runs to its end first;
* an async store used from several event loops, one after the other and at once;
* a store of the other flavour refused before anything is written, naming the method to use;
* bad arguments refused with ``InvalidArgumentError``, a ``MessagesError``, before anything is written;
* the in-memory async store lets the loop's other tasks run between calls.

(A PostgreSQL server restarted under an idle and a busy store: test_outages.py. Bad envelopes, by name:
test_envelope.py.) Real files, a real server, real threads and loops; no mocks. A test waits for a call
to be blocked on a database lock by watching for it (``Held.waited_for``), never by sleeping for a guess,
which a busy machine outlasts; the short sleeps left come after that, and give a broken store the time to
show itself (a write that lands late, a close that returns early): load only makes them longer. No figure
of speed is asserted.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import math
import os
import signal
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from messages import (
    AsyncInMemoryThreadStore,
    AsyncPostgresThreadStore,
    AsyncSQLiteThreadStore,
    InvalidArgumentError,
    LocalThread,
    MessagesError,
    PostgresThreadStore,
    SQLiteThreadStore,
    StoreClosedError,
    UserMessage,
)
from messages.context import BufferedContext
from tests.stores._backends import (
    Blocking,
    Spec,
    open_async_store,
    open_store,
    until,
    until_async,
    write_lock_held,
)

ASYNC = [
    pytest.param("memory-async", id="memory-async"),
    pytest.param("sqlite-async", id="sqlite-async"),
    pytest.param("postgres-async", id="postgres-async", marks=pytest.mark.postgres),
]
NAMES = [
    pytest.param("memory", id="memory"),
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


def batch(tag: str, size: int = 3) -> list[UserMessage]:
    return [UserMessage(content=f"{tag}:{k}") for k in range(size)]


def sync_spec(spec: Spec) -> Spec:
    """The spec of the sync store over the same database (to read what an async store wrote)."""
    return {key: value for key, value in spec.items() if key != "api"}


def async_store(spec: Spec, **options: Any) -> Any:
    """The async store of ``spec``'s database, made here (not behind ``Blocking``), with ``options``."""
    if spec["backend"] == "memory":
        return AsyncInMemoryThreadStore()
    if spec["backend"] == "sqlite":
        return AsyncSQLiteThreadStore(spec["path"], **options)
    return AsyncPostgresThreadStore(spec["dsn"], **options)


# -- closing with calls in flight ---------------------------------------------------------------------


class Stored:
    """How many messages a thread holds, read around the store under test (which is closed): a new store
    on the same database, or, for the in-memory store, the thread's own record."""

    def __init__(self, store: Any, spec: Spec, thread_id: str) -> None:
        self._thread_id = thread_id
        if spec["backend"] == "memory":
            memory = store.inner._sync if isinstance(store, Blocking) else store
            self._record = memory._threads[thread_id]
            self._reader = None
        else:
            self._reader = open_store(sync_spec(spec))

    def count(self) -> int:
        if self._reader is None:
            return len(self._record.rows)
        return len(self._reader.messages(self._thread_id))

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()


def test_close_with_appends_in_flight_in_other_threads_ends_them_whole_and_returns_when_none_can_write(
    backend, make_spec
):
    # Before issue 29: a segmentation fault on SQLite (connections closed under running statements), and
    # MaybeWrittenErrors on PostgreSQL (connections closed under them); async stores: aclose() from the
    # harness's loop while four threads' calls run on it as coroutines.
    spec = make_spec(backend)
    store = open_store(spec)
    thread_id = store.create_thread()
    acked: list[tuple[int, int]] = []
    endings: list[BaseException] = []
    lock = threading.Lock()

    def appender(number: int) -> None:
        count = 0
        while True:
            try:
                store.append(thread_id, batch(f"w{number}:{count}"))
            except BaseException as exc:  # recorded, and checked below
                with lock:
                    endings.append(exc)
                return
            with lock:
                acked.append((number, count))
            count += 1

    stored = Stored(store, spec, thread_id)
    workers = [threading.Thread(target=appender, args=(number,)) for number in range(4)]
    for worker in workers:
        worker.start()
    while len(acked) < 8 and not endings:
        time.sleep(0.001)
    store.close()
    at_close = stored.count()
    for worker in workers:
        worker.join(60)
    time.sleep(0.2)  # a write still under way would land now
    later = stored.count()
    stored.close()
    assert len(endings) == 4
    for error in endings:
        # Only the calls that came after close began fail, and they say why; the others finished.
        assert isinstance(error, StoreClosedError), repr(error)
        assert (error.operation, error.thread_id) == ("append", thread_id)
    assert at_close == later == 3 * len(acked)
    with pytest.raises(StoreClosedError):
        store.append(thread_id, batch("after"))
    store.close()  # again: harmless


@pytest.mark.parametrize("backend", ASYNC)
def test_aclose_with_calls_queued_refuses_those_not_started_and_returns_when_none_can_write(
    backend, make_spec
):
    # Before issue 29: the PostgreSQL store's aclose() returned while calls waited for a connection, which
    # then connected and wrote (1,451 of 1,500 acknowledged afterwards); the SQLite store with two workers
    # crashed. Here 30 tasks append in a loop, through two connections or two worker threads (or the
    # loop itself, in memory), when aclose() comes.
    spec = make_spec(backend)
    options = {"sqlite": {"workers": 2}, "postgres": {"max_connections": 2}}.get(spec["backend"], {})
    acked: list[str] = []
    refused: list[BaseException] = []

    async def run() -> tuple[int, int]:
        store = async_store(spec, **options)
        thread_id = await store.create_thread()

        async def appender(number: int) -> None:
            for count in range(1_000):
                try:
                    await store.append(thread_id, batch(f"{number}-{count}", 1))
                except BaseException as exc:  # recorded, and checked below
                    refused.append(exc)
                    return
                acked.append(f"{number}-{count}:0")

        tasks = [asyncio.create_task(appender(number)) for number in range(30)]
        while len(acked) < 20:
            await asyncio.sleep(0.001)
        await store.aclose()
        at_close = len(acked)
        await asyncio.gather(*tasks)
        with pytest.raises(StoreClosedError, match=r"^messages\(\) on thread .* is closed"):
            await store.messages(thread_id)
        return at_close, len(acked)

    at_close, finally_acked = asyncio.run(run())
    # Every call that succeeded had its answer before aclose() returned; the others were refused.
    assert at_close == finally_acked
    assert len(refused) == 30
    assert all(isinstance(error, StoreClosedError) for error in refused), refused[:3]
    if spec["backend"] != "memory":
        with open_store(sync_spec(spec)) as reader:
            (thread_id,) = reader.threads()
            time.sleep(0.1)  # a write still under way would land now
            stored = [message.content for message in reader.messages(thread_id)]
        assert sorted(stored) == sorted(acked)


def test_close_waits_for_a_call_blocked_on_the_database_and_lets_it_finish(durable_backend, make_spec):
    spec = make_spec(durable_backend)
    store = open_store(spec)
    thread_id = store.create_thread()
    outcome: list[object] = []
    with write_lock_held(spec, thread_id) as release:
        appending = threading.Thread(target=lambda: outcome.append(store.append(thread_id, batch("held"))))
        appending.start()
        release.wait_for_a_waiter()
        closing = threading.Thread(target=store.close)
        closing.start()
        closing.join(0.3)
        assert closing.is_alive(), "close() returned while a call of the store was still running"
        release()
        appending.join(60)
        closing.join(60)
    assert outcome == [range(3)]  # the call under way finished, and wrote
    with open_store(sync_spec(spec)) as reader:
        assert reader.messages(thread_id) == batch("held")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork: POSIX only")
def test_a_process_forked_while_a_call_is_in_flight_closes_its_copy_of_the_store_at_once(make_spec):
    # The parent's call in flight is a thread the child does not have: the child's close() must not wait
    # for it. (The child touches no SQLite connection: one may not cross a fork.)
    spec = make_spec("sqlite")
    store = open_store(spec)
    store.create_thread("t")
    with write_lock_held(spec, "t") as release:
        appending = threading.Thread(target=lambda: store.append("t", batch("parent")))
        appending.start()
        release.wait_for_a_waiter()  # in flight
        pid = os.fork()
        if pid == 0:  # the child: it exits, whatever happens, within 20 s
            code = 1
            try:
                signal.alarm(20)
                store.close()
                try:
                    store.append("t", batch("child"))
                except StoreClosedError:
                    code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        release()
        appending.join(30)
    assert os.waitstatus_to_exitcode(status) == 0
    assert store.messages("t") == batch("parent")  # the parent's call went on
    store.close()


@pytest.mark.parametrize("backend", [p for p in ASYNC if p.values[0] != "memory-async"])
def test_a_call_made_in_a_context_copied_out_of_another_call_is_settled_as_a_call_of_its_own(
    backend, make_spec
):
    # A context copied while a call of an async store runs (a task or callback scheduled then) holds what the
    # call's task keeps in context variables, after the call too. A call made there later is no part of the
    # first: cancelled once its write has started, it runs to its end before the cancellation goes on, as
    # any call does. The PostgreSQL store took it for a call made inside the first (which the first
    # settles), so the cancellation stopped its statement at once, a write cut off while under way.
    spec = make_spec(backend.removesuffix("-async"))

    async def main() -> None:
        store = async_store(spec)
        if isinstance(store, AsyncPostgresThreadStore):
            await store.open()
        thread_id = await store.create_thread()
        await store.append(thread_id, batch("m"))
        copied: list[contextvars.Context] = []
        await store.pop(thread_id, check=lambda _: copied.append(contextvars.copy_context()))
        with write_lock_held(spec, thread_id) as release:
            popping = asyncio.get_running_loop().create_task(store.pop(thread_id), context=copied[0])
            await release.wait_for_a_waiter_async("pop")  # its write has started: it waits for the lock
            popping.cancel()
            await asyncio.sleep(0.3)
            assert not popping.done(), "the cancellation went on while the call's write was under way"
            release()
            with pytest.raises(asyncio.CancelledError):
                await popping
        assert await store.messages(thread_id) == batch("m")[:1]  # the pop ran to its end
        await store.aclose()

    asyncio.run(main())


# -- cancellation ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ASYNC)
def test_a_cancelled_append_is_settled_when_the_error_arrives_and_the_retry_with_its_ids_stores_it_once(
    backend, make_spec
):
    # Before issue 29, with two SQLite workers, the write of a cancelled append landed after the error in
    # 7 to 27 of 40 trials: a read right after said "absent", and a retry stored the batch twice.
    spec = make_spec(backend)
    options = {"sqlite": {"workers": 2}}.get(spec["backend"], {})
    figures = {"cancelled": 0, "stored": 0}

    async def run() -> None:
        store = async_store(spec, **options)
        thread = LocalThread(id=await store.create_thread())
        for trial in range(24):
            ids = [f"t{trial}:{k}" for k in range(3)]
            # Other calls in the store's workers, so that this one may queue, as in a busy bot.
            others = [asyncio.create_task(store.messages(thread.id, -3)) for _ in range(2)]
            call = asyncio.create_task(thread.aappend(store, batch(f"t{trial}"), ids=ids))
            for _ in range(trial % 6):  # cancelled before it starts, while it waits, while it runs
                await asyncio.sleep(0)
            call.cancel()
            if trial % 3 == 0:
                await asyncio.sleep(0)
                call.cancel()  # and again, while it unwinds (a TaskGroup, a shutdown)
            try:
                await call
            except asyncio.CancelledError:
                figures["cancelled"] += 1
            right_after = [record.id for record in await store.records(thread.id) if record.id in ids]
            await asyncio.sleep(0.05)  # a write still under way would land now
            later = [record.id for record in await store.records(thread.id) if record.id in ids]
            assert right_after == later, f"trial {trial}: the write landed after the error"
            assert later in ([], ids), f"trial {trial}: torn"
            figures["stored"] += bool(later)
            # The retry the docs prescribe: the same ids, skip_existing=True.
            await thread.aappend(store, batch(f"t{trial}"), ids=ids, skip_existing=True)
            assert [record.id for record in await store.records(thread.id) if record.id in ids] == ids
            await asyncio.gather(*others)
        await store.aclose()

    asyncio.run(run())
    assert figures["cancelled"] > 0
    print(f"\n{backend}: {figures}")


@pytest.mark.parametrize("backend", ASYNC)
def test_a_cancelled_append_that_has_not_started_writes_nothing(backend, make_spec):
    spec = make_spec(backend)
    # One worker, or one connection: the first append holds it while a lock keeps it waiting.
    options = {"sqlite": {"workers": 1}, "postgres": {"max_connections": 1}}.get(spec["backend"], {})

    async def run() -> None:
        store = async_store(spec, **options)
        thread_id = await store.create_thread()
        if spec["backend"] == "memory":
            # Its calls run whole in one step of the caller: cancelled before that step, it never runs.
            queued = asyncio.create_task(store.append(thread_id, batch("queued")))
            queued.cancel()
            with pytest.raises(asyncio.CancelledError):
                await queued
            assert await store.messages(thread_id) == []
            await store.aclose()
            return
        with write_lock_held(spec, thread_id) as release:
            first = asyncio.create_task(store.append(thread_id, batch("first")))
            # It holds the worker (the connection), waiting for the lock.
            await release.wait_for_a_waiter_async()
            queued = asyncio.create_task(store.append(thread_id, batch("queued")))
            await asyncio.sleep(0.05)
            queued.cancel()
            with pytest.raises(asyncio.CancelledError):
                await queued  # at once: the first is still waiting for the lock
            assert not first.done()
            release()
            assert await first == range(3)
        await asyncio.sleep(0.1)
        assert await store.messages(thread_id) == batch("first")
        await store.aclose()

    asyncio.run(run())


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param("sqlite-async", id="sqlite-async"),
        pytest.param("postgres-async", id="postgres-async", marks=pytest.mark.postgres),
    ],
)
@pytest.mark.parametrize("how", ["cancel", "wait_for"])
def test_a_cancelled_append_that_has_started_runs_to_its_end_before_the_error_arrives(
    backend, how, make_spec
):
    # The design choice (docs/stores.md, "The edges"): run to completion rather than roll back.
    spec = make_spec(backend)

    async def run() -> None:
        store = async_store(spec)
        thread_id = await store.create_thread()
        with write_lock_held(spec, thread_id) as release:
            append = asyncio.create_task(store.append(thread_id, batch("started")))
            await release.wait_for_a_waiter_async()  # under way, waiting for the lock
            if how == "cancel":
                call = append
                call.cancel()
            else:
                call = asyncio.create_task(asyncio.wait_for(append, 0.2))
                await until_async(append.cancelling, "wait_for's timeout cancels the append")
            await asyncio.sleep(0.4)
            assert not call.done(), "the cancellation went on while the append was still under way"
            asyncio.get_running_loop().call_later(0.05, release)
            with pytest.raises(asyncio.CancelledError if how == "cancel" else TimeoutError):
                await call
        # It ran to its end: written, whole, before the error arrived.
        assert await store.messages(thread_id) == batch("started")
        await store.aclose()

    asyncio.run(run())


# -- event loops --------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ASYNC)
def test_an_async_store_works_from_successive_event_loops_and_from_loops_in_several_threads(
    backend, make_spec
):
    # Before issue 29 the PostgreSQL store raised a plain RuntimeError from its second loop (its semaphore
    # was bound to the first): 287 of 400 calls failed.
    spec = make_spec(backend)
    store = asyncio.run(open_async_store(spec))
    thread = LocalThread(id=asyncio.run(store.create_thread()))

    async def turns(tag: str) -> None:
        await asyncio.gather(*(thread.aappend(store, batch(f"{tag}{n}", 1)) for n in range(12)))
        assert len(await thread.aread(store, BufferedContext(buffer_size=5))) == 5

    asyncio.run(turns("a"))
    asyncio.run(turns("b"))  # a second loop, the first one closed
    failures: list[BaseException] = []

    def in_a_thread(tag: str) -> None:
        try:
            asyncio.run(turns(tag))
        except BaseException as exc:  # reported below
            failures.append(exc)

    runners = [threading.Thread(target=in_a_thread, args=(tag,)) for tag in ("c", "d")]
    for runner in runners:
        runner.start()
    for runner in runners:
        runner.join(60)
    assert failures == []
    assert len(asyncio.run(thread.amessages(store))) == 48
    asyncio.run(store.aclose())  # from yet another loop


@pytest.mark.postgres
def test_the_postgres_store_drops_the_connections_of_a_loop_that_has_closed(make_spec):
    import uuid

    from psycopg.conninfo import make_conninfo

    from tests.stores._backends import raw_rows

    spec = make_spec("postgres")
    name = f"loops-{uuid.uuid4().hex[:8]}"
    store = AsyncPostgresThreadStore(make_conninfo(spec["dsn"], application_name=name), max_connections=3)
    count = "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?"

    async def burst() -> None:
        await asyncio.gather(*(store.threads() for _ in range(6)))

    asyncio.run(burst())
    assert raw_rows(spec, count, (name,)) == [(3,)]  # the closed loop's, idle
    asyncio.run(burst())  # the next loop's first call drops them, and it opens its own
    # The server ends a closed connection's backend a moment later (seconds, on a busy machine).
    until(lambda: raw_rows(spec, count, (name,)) == [(3,)], "the closed loop's connections are gone")
    asyncio.run(store.aclose())


# -- the wrong flavour --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_a_store_of_the_other_flavour_is_refused_before_anything_is_written_naming_the_method_to_use(
    name, make_spec
):
    # Before issue 29, `await thread.aappend(sync_store, ...)` wrote, then raised TypeError, and
    # `thread.append(async_store, ...)` returned a coroutine that never ran.
    spec = make_spec(name)
    sync = open_store(spec)
    asynchronous = async_store(spec)
    thread = LocalThread(id=sync.create_thread())
    if name != "memory":  # the in-memory stores are two stores: each has the thread
        assert asyncio.run(asynchronous.threads()) == [thread.id]
    else:
        asyncio.run(asynchronous.save_thread(thread))
    calls: dict[str, tuple[Callable[[], object], str]] = {
        "append": (lambda: thread.append(asynchronous, batch("x")), "aappend"),
        "messages": (lambda: thread.messages(asynchronous), "amessages"),
        "read": (lambda: thread.read(asynchronous, BufferedContext(buffer_size=5)), "aread"),
        "aappend": (lambda: asyncio.run(thread.aappend(sync, batch("x"))), "append"),
        "amessages": (lambda: asyncio.run(thread.amessages(sync)), "messages"),
        "aread": (lambda: asyncio.run(thread.aread(sync, BufferedContext(buffer_size=5))), "read"),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a coroutine left un-awaited says so with a RuntimeWarning
        for method, (call, instead) in calls.items():
            with pytest.raises(InvalidArgumentError, match=rf"thread\.{instead}\(store, \.\.\.\)") as caught:
                call()
            assert caught.value.argument == "store"
            assert f"LocalThread.{method}(): store is a" in str(caught.value)
            assert "nothing was written" in str(caught.value)
    assert sync.messages(thread.id) == []
    assert asyncio.run(asynchronous.messages(thread.id)) == []
    sync.close()
    asyncio.run(asynchronous.aclose())


@pytest.mark.parametrize("not_a_store", [None, "chats.sqlite", {"append": "x"}, SQLiteThreadStore])
def test_an_object_that_is_no_store_is_refused_by_name(not_a_store):
    with pytest.raises(InvalidArgumentError, match=r"store is a .*store.* not a") as caught:
        LocalThread().append(not_a_store, batch("x"))  # type: ignore[arg-type]
    assert caught.value.argument == "store"
    with pytest.raises(InvalidArgumentError, match=r"store is a .*store"):
        asyncio.run(LocalThread().aread(not_a_store))  # type: ignore[arg-type]


# -- bad arguments ------------------------------------------------------------------------------------


@pytest.mark.parametrize("window", [object(), "last 50", 50, BufferedContext])
def test_a_window_that_is_not_a_window_is_refused_by_name_before_the_store_is_read(store, window):
    thread = LocalThread(id=store.create_thread())
    thread.append(store, batch("x"))
    with pytest.raises(InvalidArgumentError, match=r"window is a context window.* not a") as caught:
        thread.read(store, window)
    assert caught.value.argument == "window"


@pytest.mark.parametrize(
    ("make", "argument"),
    [
        (lambda tmp: SQLiteThreadStore(tmp / "a.db", timeout="30"), "timeout"),
        (lambda tmp: SQLiteThreadStore(tmp / "a.db", timeout=math.nan), "timeout"),
        (lambda tmp: SQLiteThreadStore(tmp / "a.db", synchronous="OFF"), "synchronous"),
        (lambda tmp: SQLiteThreadStore(123), "path"),
        (lambda tmp: SQLiteThreadStore(":memory:"), "path"),
        (lambda tmp: AsyncSQLiteThreadStore(tmp / "a.db", workers=0), "workers"),
        (lambda tmp: AsyncSQLiteThreadStore(tmp / "a.db", workers=True), "workers"),
        (
            lambda tmp: AsyncPostgresThreadStore("postgresql://x@127.0.0.1/db", max_connections=1.5),
            "max_connections",
        ),
        (lambda tmp: AsyncPostgresThreadStore(None), "dsn"),
        (lambda tmp: PostgresThreadStore(b"postgresql://x@127.0.0.1/db"), "dsn"),
        (
            lambda tmp: PostgresThreadStore("postgresql://x@127.0.0.1/db", connect_timeout=-1),
            "connect_timeout",
        ),
    ],
)
def test_a_store_s_bad_settings_are_refused_by_name(make, argument, tmp_path):
    with pytest.raises(InvalidArgumentError) as caught:
        make(tmp_path)
    assert caught.value.argument == argument
    assert f"{argument} is" in str(caught.value)


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.builds(object),
    st.lists(st.one_of(st.none(), st.text(max_size=3), st.integers(), st.builds(object)), max_size=3),
    st.dictionaries(
        st.one_of(st.text(max_size=2), st.integers()),
        st.one_of(st.none(), st.floats(allow_nan=True), st.text(max_size=2), st.builds(object)),
        max_size=2,
    ),
    st.lists(
        st.one_of(st.none(), st.dictionaries(st.text(max_size=2), st.floats(allow_nan=True))), max_size=3
    ),
)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ids=JUNK, metadata=JUNK, skip_existing=JUNK, start=JUNK)
def test_whatever_an_append_or_a_read_is_given_it_raises_a_messages_error_or_works_and_writes_all_or_nothing(
    store, ids, metadata, skip_existing, start
):
    thread = LocalThread(id="junk")
    with contextlib.suppress(MessagesError):
        store.create_thread(thread.id)
    before = len(store.messages(thread.id))
    try:
        added = thread.append(
            store, batch("junk", 2), ids=ids, metadata=metadata, skip_existing=skip_existing
        )
    except MessagesError:
        assert len(store.messages(thread.id)) == before
    else:
        assert len(store.messages(thread.id)) == before + len(added)
    with contextlib.suppress(MessagesError):
        store.messages(thread.id, start)


# -- the loop's other tasks ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ASYNC)
def test_a_tight_loop_of_appends_lets_the_loop_run_its_other_tasks(backend, make_spec):
    # Before issue 29 the in-memory async store never gave the loop back: a ticker beside 20,000 appends
    # did not tick once in 1.5 s. Now it does at least every millisecond (a database store, at every call).
    spec = make_spec(backend)

    async def run() -> tuple[int, int]:
        store = async_store(spec)
        thread_id = await store.create_thread()
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        ticking = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        start, appended = ticks, 0
        # 20,000 in-memory appends take well over 20 ms on any machine (each builds its message's dump).
        while ticks - start < 10 and appended < 20_000:
            await store.append(thread_id, batch(str(appended), 1))
            appended += 1
        ticking.cancel()
        await store.aclose()
        return ticks - start, appended

    ticked, appended = asyncio.run(run())
    assert ticked >= 10, f"the ticker ran {ticked} times beside {appended:,} appends"
