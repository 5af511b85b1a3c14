"""Every store call is bounded (issue 42): a network that goes silent between a store and its PostgreSQL
server, and a SQLite lock held elsewhere, end each call within the store's ``timeout``, with the error
that says whether its write may have landed, and the store works again once the network heals or the lock
is released.

The partitions are real: a loopback TCP proxy (tests/stores/_proxy.py) between the store and the real
server stops forwarding without closing a socket, as a lost route or a frozen middlebox does (what was
sent meanwhile arrives once it heals). Each test checks how long the call took against its bound, with a
wide margin for a loaded machine (the bound is what is tested: a call that hangs takes minutes), the
typed error, what the database holds afterwards (read around the proxy), and the next call after healing.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from messages import (
    AsyncPostgresThreadStore,
    AsyncSQLiteThreadStore,
    LocalThread,
    MaybeWrittenError,
    NotWrittenError,
    PostgresThreadStore,
    SQLiteThreadStore,
    StoreClosedError,
    UserMessage,
)
from messages.context import BufferedContext
from messages.stores.postgres import KEEPALIVES
from tests.stores._backends import Blocking, Spec, open_store, write_lock_held
from tests.stores._proxy import Proxy

BOUND = 2.0
"""The stores' ``timeout`` in these tests (seconds)."""
MARGIN = 8.0
"""How much longer than its bound a call may take here: the time to tear its connection down and to
schedule the threads of a loaded machine. A call that is not bounded waits for minutes."""


def batch(tag: str, size: int = 3) -> list[UserMessage]:
    return [UserMessage(content=f"{tag}:{k}") for k in range(size)]


def ids(tag: str, size: int = 3) -> list[str]:
    return [f"{tag}-{k}" for k in range(size)]


def bounded_store(dsn: str, api: str, **options: Any) -> Any:
    """A PostgreSQL store of ``api``'s flavour with the tests' bound (the async one behind ``Blocking``,
    opened)."""
    options = {"timeout": BOUND, "connect_timeout": BOUND, **options}
    if api == "sync":
        return PostgresThreadStore(dsn, **options)

    async def make() -> AsyncPostgresThreadStore:
        store = AsyncPostgresThreadStore(dsn, **options)
        await store.open()
        return store

    return Blocking(make)


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    """How long ``call()`` took, and what it returned or raised."""
    start = time.monotonic()
    try:
        outcome = call()
    except Exception as exc:  # returned, and checked by the caller
        outcome = exc
    return time.monotonic() - start, outcome


def assert_bounded(elapsed: float, what: str) -> None:
    assert elapsed < BOUND + MARGIN, f"{what} took {elapsed:.1f} s, past its bound of {BOUND:g} s"


@pytest.fixture
def proxy(make_spec: Callable[[str], Spec]) -> Iterator[tuple[Proxy, Spec]]:
    """A proxy in front of the test server, and the spec of a fresh schema on the server itself (to read
    around the proxy)."""
    from psycopg.conninfo import conninfo_to_dict

    spec = make_spec("postgres")
    info = conninfo_to_dict(spec["dsn"])
    with Proxy((str(info.get("hostaddr") or info.get("host")), int(info["port"]))) as running:
        yield running, spec


def stored(spec: Spec, thread_id: str) -> list[str]:
    """The thread's messages' contents, read around the proxy by a store of its own."""
    with open_store(spec) as reader:
        return [str(message.content) for message in reader.messages(thread_id)]


def contents(messages: list[UserMessage]) -> list[str]:
    return [str(message.content) for message in messages]


@pytest.mark.postgres
@pytest.mark.parametrize("direction", [("up", "down"), ("up",), ("down",)], ids=["both", "up", "down"])
def test_an_idle_store_cut_off_from_its_server_fails_each_call_within_its_bound_and_works_once_it_heals(
    proxy, api, direction
):
    network, spec = proxy
    store = bounded_store(network.dsn(spec["dsn"]), api)
    thread_id = store.create_thread()
    store.append(thread_id, batch("before"), ids=ids("before"))
    network.partition(*direction)

    # An append sent into the silence: it may land (its statement is out), and the error says so.
    elapsed, error = timed(lambda: store.append(thread_id, batch("cut"), ids=ids("cut")))
    assert isinstance(error, MaybeWrittenError), repr(error)
    assert_bounded(elapsed, "the append")
    assert elapsed >= BOUND, f"the append failed after {elapsed:.2f} s, before its bound: not the bound"
    assert (error.operation, error.thread_id) == ("append", thread_id)
    assert f"no answer from PostgreSQL at 127.0.0.1:{network.port}/" in str(error)
    assert f"within the call's bound ({BOUND:g} s, the store's timeout)" in str(error)
    assert "append the same messages again with the same ids and skip_existing=True" in str(error)
    assert type(error.__cause__).__module__.startswith("psycopg")
    if len(direction) == 2:  # once: a connection cannot be had whichever way the network is cut
        # A read needs a new connection now (the old one was closed): it cannot be had, nothing is sent.
        elapsed, error = timed(lambda: store.messages(thread_id))
        assert isinstance(error, NotWrittenError), repr(error)
        assert_bounded(elapsed, "the read")

    network.heal()
    # The retry the error prescribes stores the batch once, whether the first statement landed or lands
    # later (it waited in the network: "up") or not.
    added = store.append(thread_id, batch("cut"), ids=ids("cut"), skip_existing=True)
    assert len(added) in (0, 3)
    # Once every connection cut off has delivered what it held and ended, nothing more lands.
    network.wait_until(lambda: network.open_flows() <= 1, "the cut connections ending after the heal")
    assert stored(spec, thread_id) == contents(batch("before") + batch("cut"))
    assert store.messages(thread_id) == batch("before") + batch("cut")  # the same store, reconnected
    store.close()


@pytest.mark.postgres
def test_an_append_whose_answer_the_network_loses_ends_within_its_bound_and_is_found_whole_after_healing(
    proxy, api
):
    # The network fails while the append's statement is out: the server commits it, and its answer is
    # lost. The store cannot know which: MaybeWrittenError; the append is in the thread, whole.
    network, spec = proxy
    store = bounded_store(network.dsn(spec["dsn"]), api)
    thread_id = store.create_thread()
    network.partition_after_the_next_request()
    elapsed, error = timed(lambda: store.append(thread_id, batch("out"), ids=ids("out")))
    assert isinstance(error, MaybeWrittenError), repr(error)
    assert_bounded(elapsed, "the append")
    assert stored(spec, thread_id) == contents(batch("out"))  # committed by the server, answer lost
    network.heal()
    assert store.append(thread_id, batch("out"), ids=ids("out"), skip_existing=True) == range(3, 3)
    assert store.append(thread_id, batch("next")) == range(3, 6)
    assert stored(spec, thread_id) == contents(batch("out") + batch("next"))
    store.close()


@pytest.mark.postgres
def test_closing_a_store_with_a_call_cut_off_in_flight_returns_within_its_bound(proxy, api):
    network, spec = proxy
    store = bounded_store(network.dsn(spec["dsn"]), api)
    thread_id = store.create_thread()
    connected, cut = threading.Event(), threading.Event()
    outcome: list[tuple[float, Any]] = []

    def append_once_cut() -> None:
        # The sync store keeps a connection per thread: this one's is made before the cut, so the append
        # goes out on it (one that had to connect during the cut would send nothing: NotWrittenError).
        store.threads()
        connected.set()
        cut.wait()
        outcome.append(timed(lambda: store.append(thread_id, batch("in flight"))))

    appending = threading.Thread(target=append_once_cut)
    appending.start()
    assert connected.wait(BOUND + MARGIN)
    network.partition()
    cut.set()
    calls = store.inner._calls if isinstance(store, Blocking) else store._calls
    # In flight (the async store counts a call twice: its caller's wait, and its work).
    network.wait_until(lambda: calls._running >= 1, "the append under way")
    # close() / aclose() waits for the call under way, which ends at its bound.
    elapsed, closed = timed(store.close)
    assert closed is None, repr(closed)
    assert_bounded(elapsed, "close()" if api == "sync" else "aclose()")
    appending.join(BOUND + MARGIN)
    [(took, error)] = outcome
    assert isinstance(error, MaybeWrittenError), repr(error)
    assert_bounded(took, "the append")
    with pytest.raises(StoreClosedError):
        store.append(thread_id, batch("after"))

    network.heal()
    network.wait_until(lambda: network.open_flows() == 0, "the cut connection ending after the heal")
    # Its statement waited in the network and got through once it healed: whole or not at all.
    assert stored(spec, thread_id) in ([], contents(batch("in flight")))
    reopened = bounded_store(network.dsn(spec["dsn"]), api)
    reopened.append(thread_id, batch("next"))
    assert stored(spec, thread_id)[-3:] == contents(batch("next"))
    reopened.close()


@pytest.mark.postgres
def test_a_pop_and_a_window_read_cut_off_from_the_server_each_end_within_their_bound(proxy, api):
    # The newer call paths (a window's one-statement read, the atomic pop) are bounded as append is.
    network, spec = proxy
    store = bounded_store(network.dsn(spec["dsn"]), api)
    thread = LocalThread()
    store.save_thread(thread)
    store.append(thread.id, batch("m", 4))

    network.partition()
    elapsed, error = timed(lambda: store.pop(thread.id))
    assert isinstance(error, MaybeWrittenError), repr(error)  # its transaction had begun: it may land
    assert (error.operation, error.thread_id) == ("pop", thread.id)
    assert str(error).endswith(
        ". Its statement may still reach the server and commit: once the server answers again, read back "
        "what it wrote before retrying"
    )
    assert_bounded(elapsed, "the pop")
    network.heal()
    kept = len(store.records(thread.id))  # the next call after the heal works (a new connection)
    assert kept in (3, 4)
    assert stored(spec, thread.id) == contents(batch("m", kept))  # popped whole from the end, or not at all

    network.partition()
    window = BufferedContext(buffer_size=2)

    def read() -> Any:
        if isinstance(store, Blocking):
            return store._run(thread.aread(store.inner, window))
        return thread.read(store, window)

    elapsed, error = timed(read)
    assert isinstance(error, NotWrittenError), repr(error)
    assert error.operation == "read"
    assert_bounded(elapsed, "the window's read")
    network.heal()
    assert contents(read()) == contents(batch("m", kept)[-2:])
    store.close()


@pytest.mark.postgres
def test_a_store_opened_while_the_network_is_down_fails_within_its_bound(proxy, api):
    # A bound of 1 s, under libpq's least connect_timeout (2 s): the store's own bound ends the attempt,
    # and says so (libpq's would say "connection timeout expired").
    network, spec = proxy
    network.partition()
    elapsed, error = timed(
        lambda: bounded_store(network.dsn(spec["dsn"]), api, timeout=1.0, connect_timeout=None)
    )
    assert isinstance(error, NotWrittenError), repr(error)
    assert error.operation == "open"
    assert "within the call's bound (1 s, the store's timeout)" in str(error)
    assert_bounded(elapsed, "opening the store")
    network.heal()
    store = bounded_store(network.dsn(spec["dsn"]), api)
    assert store.threads() == []
    store.close()


@pytest.mark.postgres
def test_a_write_the_server_keeps_waiting_ends_at_its_statement_timeout_not_written_on_the_same_connection(
    make_spec, api
):
    # A lock held elsewhere past the bound: the server ends the statement (statement_timeout, set a little
    # under the bound) and says so, the connection is kept, and nothing was written. A bound of 4 s: the
    # server's answer has 1 s to arrive before the store's own bound would cut the connection (0.5 s with
    # the tests' 2 s, short for a loaded machine).
    import psycopg

    spec = make_spec("postgres")
    store = bounded_store(spec["dsn"], api, timeout=4.0)
    store.create_thread("t")
    pid = raw_backend_pids(store)
    with write_lock_held(spec, "t"):
        elapsed, error = timed(lambda: store.append("t", batch("held")))
    assert isinstance(error, NotWrittenError), repr(error)
    assert_bounded(elapsed, "the append")
    assert "SQLSTATE 57014: canceling statement due to statement timeout" in str(error)
    assert isinstance(error.__cause__, psycopg.errors.QueryCanceled)
    assert store.messages("t") == []
    assert store.append("t", batch("next")) == range(3)
    assert raw_backend_pids(store) == pid  # the same connection throughout: it was never lost
    store.close()


def raw_backend_pids(store: Any) -> set[int]:
    """The server processes of the store's connections (its thread's, or its pool's on its loop)."""
    if isinstance(store, Blocking):
        pool = store.inner._pool
        return {conn.info.backend_pid for here in pool._loops.values() for conn in here.connections}
    return {store._connection().info.backend_pid}


@pytest.mark.postgres
def test_the_store_adds_its_tcp_settings_where_the_dsn_sets_none_and_bounds_the_server_session(make_spec):
    from psycopg.conninfo import make_conninfo

    spec = make_spec("postgres")
    store = PostgresThreadStore(spec["dsn"], timeout=BOUND)
    conn = store._connection()
    settings = conn.info.get_parameters()
    assert {key: settings.get(key) for key in KEEPALIVES} == KEEPALIVES
    assert settings.get("tcp_user_timeout") == "2000"  # the bound, in milliseconds
    # The server ends a statement before the bound, and a session idle inside a transaction at it.
    assert conn.execute("SHOW statement_timeout").fetchone() == ("1500ms",)
    assert conn.execute("SHOW idle_in_transaction_session_timeout").fetchone() == ("2s",)
    store.close()

    # What the DSN sets wins.
    own = make_conninfo(spec["dsn"], keepalives_idle="77", tcp_user_timeout="9000", connect_timeout="3")
    store = PostgresThreadStore(own, timeout=BOUND)
    settings = store._connection().info.get_parameters()
    assert (settings["keepalives_idle"], settings["tcp_user_timeout"]) == ("77", "9000")
    assert settings["keepalives_count"] == KEEPALIVES["keepalives_count"]  # added: the DSN sets none
    assert store._connect_timeout == 3
    store.close()
    assert PostgresThreadStore(own, connect_timeout=5)._connect_timeout == 5  # the argument wins


# -- SQLite's lock waits -------------------------------------------------------------------------------


QUEUED = 6


@pytest.mark.parametrize("workers", [1, 2])
def test_async_sqlite_calls_queued_behind_a_held_lock_each_end_within_their_bound_not_written(
    tmp_path, workers
):
    # Before issue 42 each call waited the whole timeout once a worker took it up: the last of six calls
    # queued behind one worker ended after six timeouts (12 s, past the margin).
    import asyncio
    import sqlite3

    path = tmp_path / "threads.db"
    with SQLiteThreadStore(path) as setup:
        setup.create_thread("t")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's write lock, held

    async def run() -> list[tuple[float, Any]]:
        store = AsyncSQLiteThreadStore(path, timeout=BOUND, workers=workers)

        async def one(tag: str) -> tuple[float, Any]:
            start = time.monotonic()
            try:
                outcome: Any = await store.append("t", batch(tag))
            except Exception as exc:  # checked below
                outcome = exc
            return time.monotonic() - start, outcome

        outcomes = await asyncio.gather(*(one(f"queued {n}") for n in range(QUEUED)))
        other.execute("ROLLBACK")
        assert await store.append("t", batch("after")) == range(3)  # the same store goes on
        await store.aclose()
        return outcomes

    try:
        outcomes = asyncio.run(run())
    finally:
        other.close()
    for elapsed, error in outcomes:
        assert isinstance(error, NotWrittenError), repr(error)
        assert_bounded(elapsed, "a queued append")
        assert error.operation == "append"
    with SQLiteThreadStore(path) as reader:
        assert reader.messages("t") == batch("after")  # nothing of the refused ones was written


def test_a_sqlite_call_that_waited_waits_less_for_a_lock_and_the_calls_after_it_run_no_extra_pragma(
    tmp_path,
):
    # A call of the async store counts its bound from its caller's call (started_at): one that waited for
    # its worker gets what is left for a lock wait (the busy timeout lowered), and the calls after it get
    # the whole timeout back only when they would otherwise lose more than a twentieth of it: a call
    # after one that waited a little (a loaded machine, a slow open) runs no extra statement.
    from messages.stores._bounds import started_at

    store = SQLiteThreadStore(tmp_path / "threads.db", timeout=30)
    seen: list[str] = []
    store._connection().set_trace_callback(seen.append)

    def pragmas(waited: float) -> list[str]:
        seen.clear()
        started_at(store.threads, 30.0, time.monotonic() - waited)()
        return [statement for statement in seen if statement.startswith("PRAGMA")]

    def lowered_to(waited: float) -> int:
        """The busy timeout (ms) set by the one PRAGMA of a call that waited ``waited`` seconds before."""
        [statement] = pragmas(waited)
        prefix, _, value = statement.rpartition(" ")
        assert prefix == "PRAGMA busy_timeout ="
        return int(value)

    # What is left of the 30 s once the call reaches the lock: the time waited less, and less the moments
    # the call took to get there (a few milliseconds, more on a loaded machine), never more.
    assert pragmas(0) == []
    assert 28_000 < lowered_to(1.0) <= 29_000  # the bound holds: a second less for a lock
    assert pragmas(0) == []  # a second short of the whole timeout: not worth a statement
    assert 19_000 < lowered_to(10.0) <= 20_000
    assert 28_500 < lowered_to(0) <= 30_000  # the whole timeout again (what is left of it)
    assert pragmas(0) == []
    store.close()


def test_a_context_copied_during_a_call_does_not_lend_that_calls_bound_to_later_calls(tmp_path):
    # asyncio copies the running context into every task and callback it schedules, so one scheduled
    # while a store call runs holds that call's bound after the call has ended. A later call made in it
    # must start a bound of its own: sharing the ended one made it fail at once, "waited past its bound"
    # (seen once in CI: opening an AsyncSQLiteThreadStore failed that way, in a context so copied).
    path = tmp_path / "threads.db"
    store = SQLiteThreadStore(path, timeout=1)
    copied: list[contextvars.Context] = []
    store._connection().set_trace_callback(lambda _: copied.append(contextvars.copy_context()))
    store.create_thread("t")
    store._connection().set_trace_callback(None)
    time.sleep(1.2)  # the call's bound has passed: a later call sharing it would have nothing left

    later = copied[-1]
    assert later.run(store.threads) == ["t"]

    async def from_a_task_scheduled_then() -> list[str]:
        async with AsyncSQLiteThreadStore(path, timeout=1) as reopened:  # opens its file in this task
            await reopened.append("t", [UserMessage(content="hi")])  # run by a worker: started_at
            return [m.content for m in await reopened.messages("t")]

    assert later.run(asyncio.run, from_a_task_scheduled_then()) == ["hi"]
    store.close()


def test_a_call_in_a_context_copied_from_a_running_call_starts_a_bound_of_its_own(tmp_path):
    # A context copied while a call runs holds that call's bound for as long as the call goes on: a task or
    # callback the call's task scheduled, work handed to another thread with the caller's context
    # (asyncio.to_thread, run_coroutine_threadsafe). A call made there, by another thread or task, is not
    # inside the running one and gets a bound of its own; sharing the running call's, once that call was
    # past its deadline, it failed at once ("waited past its bound": how CI saw an AsyncSQLiteThreadStore
    # fail to open, now and then).
    path = tmp_path / "threads.db"
    store = SQLiteThreadStore(path, timeout=1)
    store.create_thread("t")
    outcomes: dict[str, object] = {}

    def from_another_thread(context: contextvars.Context) -> None:
        with SQLiteThreadStore(path, timeout=1) as other:
            try:
                outcomes["thread"] = context.run(other.threads)
            except Exception as exc:  # handed to the test, which says what it was
                outcomes["thread"] = exc

    async def from_a_task() -> list[str]:
        async with AsyncSQLiteThreadStore(path, timeout=1) as reopened:  # opened in the task
            await reopened.append("t", [UserMessage(content="hi")])
            return [m.content for m in await reopened.messages("t")]

    def during_the_call(_: str) -> None:
        store._connection().set_trace_callback(None)
        time.sleep(1.2)  # the running call is past its deadline
        context = contextvars.copy_context()
        worker = threading.Thread(target=from_another_thread, args=(context,))
        worker.start()
        worker.join()
        try:
            outcomes["task"] = context.run(asyncio.run, from_a_task())
        except Exception as exc:  # handed to the test, which says what it was
            outcomes["task"] = exc

    store._connection().set_trace_callback(during_the_call)
    assert store.threads() == ["t"]  # the running call, which outlived its bound without waiting on anything
    assert outcomes == {"thread": ["t"], "task": ["hi"]}
    store.close()


class _SlowSetUp(SQLiteThreadStore):
    """A store whose first connection takes 0.3 s to set up without waiting for anything: what a machine
    whose cores are busy does to an open."""

    slow = True

    def _migrate(self, conn: Any) -> None:
        if self.slow:
            time.sleep(0.3)
        super()._migrate(conn)


def test_an_open_that_outlasts_its_bound_without_waiting_for_a_lock_opens(tmp_path):
    # Seen in a loaded run of the README's test command: SQLiteThreadStore(path, timeout=0.2) took longer
    # than 0.2 s to make its connection, and then failed, "the call waited past its bound", though the
    # file was open and the open had nothing left to do. A bound ends a call's waits (for a lock, a socket,
    # a worker), and a call with none of it left fails before it sends its statements; an open has none to
    # send once it is connected.
    path = tmp_path / "threads.db"
    store = _SlowSetUp(path, timeout=0.1)
    assert store.create_thread("t") == "t"  # the next call has a bound of its own

    # The rule for a call with statements to come holds: one whose new connection (another thread's)
    # took its whole bound fails before it writes anything.
    outcome: list[object] = []

    def append() -> None:
        try:
            outcome.append(store.append("t", batch("late")))
        except Exception as exc:  # handed to the test
            outcome.append(exc)

    worker = threading.Thread(target=append)
    worker.start()
    worker.join()
    [error] = outcome
    assert isinstance(error, NotWrittenError), repr(error)
    assert "the call waited past its bound (0.1 s, the store's timeout)" in str(error)
    store.slow = False
    assert store.messages("t") == []
    store.close()


@pytest.mark.postgres
def test_a_postgres_open_whose_set_up_outlasts_its_bound_opens(make_spec, api):
    # The same for PostgreSQL: a connection made and set up, then kept past the bound (a busy machine), is
    # an open that succeeded. The watchdog shuts its socket down at the deadline all the same (the
    # connection was the call's), and the next call connects again.
    spec = make_spec("postgres")

    class Slow(PostgresThreadStore):
        slow = True

        def _open(self) -> Any:
            conn = super()._open()
            if self.slow:
                self.slow = False
                time.sleep(0.8)
            return conn

    class SlowAsync(AsyncPostgresThreadStore):
        slow = True

        async def _connect(self) -> Any:
            conn = await super()._connect()
            if self.slow:
                self.slow = False
                await asyncio.sleep(0.8)
            return conn

    if api == "sync":
        store: Any = Slow(spec["dsn"], timeout=0.5)
    else:

        async def make() -> AsyncPostgresThreadStore:
            opened = SlowAsync(spec["dsn"], timeout=0.5)
            await opened.open()
            return opened

        store = Blocking(make)
    thread_id = store.create_thread()
    store.append(thread_id, batch("m"))
    assert contents(store.messages(thread_id)) == contents(batch("m"))
    store.close()
