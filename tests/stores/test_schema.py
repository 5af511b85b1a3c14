"""The database backends' schema and set-up: migrations recorded by name and applied once, a newer schema
refused, SQLite in WAL mode, clear errors for what cannot be opened, and psycopg imported only when used."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import threading
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from messages import (
    AsyncPostgresThreadStore,
    AsyncSQLiteThreadStore,
    LocalThread,
    MaybeWrittenError,
    NotWrittenError,
    RemoteThread,
    StoreError,
    ThreadKindError,
    UserMessage,
)
from messages.stores import postgres as postgres_module
from messages.stores import sqlite as sqlite_module
from tests.stores._backends import open_store, raw_rows, until, until_async, write_lock_held

MODULES = {"sqlite": sqlite_module, "postgres": postgres_module}


def applied(spec) -> list[str]:
    rows = raw_rows(spec, "SELECT name FROM thread_store_migrations ORDER BY applied_at, name")
    return [name for (name,) in rows]


def test_a_new_store_records_each_migration_once(durable_backend, make_spec):
    spec = make_spec(durable_backend)
    open_store(spec).close()
    open_store(spec).close()  # opening again applies nothing
    assert applied(spec)[:2] == ["m001_create_threads", "m002_create_messages"]
    assert [step.name for step in MODULES[durable_backend.split("-")[0]].MIGRATIONS] == applied(spec)


def test_an_older_schema_is_brought_up_to_date_and_keeps_its_data(durable_backend, make_spec, monkeypatch):
    spec = make_spec(durable_backend)
    module = MODULES[durable_backend.split("-")[0]]
    with monkeypatch.context() as patch:  # the store as the first version, with the first two steps only
        patch.setattr(module, "MIGRATIONS", module.MIGRATIONS[:2])
        open_store(spec).close()
        assert applied(spec) == ["m001_create_threads", "m002_create_messages"]
    # Rows as the first version wrote them: a local thread with a message, then a saved remote thread.
    now = "2025-01-01T00:00:00+00:00"
    for thread in (LocalThread(id="z-local"), RemoteThread(id="a-remote", response_id="resp_1")):
        raw_rows(
            spec,
            "INSERT INTO thread_store_threads (id, state, length, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (thread.id, thread.model_dump_json(), int(thread.kind == "local"), now, now),
        )
    raw_rows(
        spec,
        "INSERT INTO thread_store_messages (thread_id, position, message, created_at) VALUES (?, 0, ?, ?)",
        ("z-local", UserMessage(content="hi").model_dump_json(), now),
    )
    store = open_store(spec)
    assert applied(spec) == [step.name for step in module.MIGRATIONS]
    assert store.threads() == ["z-local", "a-remote"]  # creation order, not the ids' order
    assert store.messages("z-local") == [UserMessage(content="hi")]
    store.append("z-local", UserMessage(content="more"))
    assert store.messages("z-local", 1) == [UserMessage(content="more")]
    # The saved remote thread is known as one: no messages beside it, no local thread over it.
    assert store.thread_info("a-remote").kind == "remote"
    with pytest.raises(ThreadKindError):
        store.append("a-remote", UserMessage(content="hi"))
    with pytest.raises(ThreadKindError):
        store.save_thread(LocalThread(id="a-remote"))
    store.create_thread("new")
    assert store.threads() == ["z-local", "a-remote", "new"]
    store.close()


def test_sqlite_keeps_the_threads_in_creation_order_when_their_rowids_change(make_spec):
    # VACUUM may renumber the rowids of a table without an INTEGER PRIMARY KEY
    # (https://sqlite.org/lang_vacuum.html): threads() must not depend on them. Renumbered by hand here,
    # in reverse, as VACUUM is allowed to do; then a real VACUUM.
    spec = make_spec("sqlite")
    store = open_store(spec)
    ids = [store.create_thread(f"t{n}") for n in range(5)]
    store.delete_thread("t1")
    del ids[1]
    raw_rows(spec, "UPDATE thread_store_threads SET rowid = 1000 - rowid")
    assert store.threads() == ids
    raw_rows(spec, "VACUUM")
    assert store.threads() == ids
    store.create_thread("last")
    assert store.threads() == [*ids, "last"]
    store.close()


def test_postgres_timestamps_are_utc_whatever_the_session_time_zone(make_spec):
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    spec = make_spec("postgres")
    options = conninfo_to_dict(spec["dsn"])["options"]
    spec["dsn"] = make_conninfo(spec["dsn"], options=f"{options} -c timezone=America/New_York")
    store = open_store(spec)
    assert store._connection().execute("SHOW timezone").fetchone() == ("America/New_York",)
    store.create_thread("t")
    info = store.thread_info("t")
    assert info.created_at.tzinfo is UTC
    assert info.updated_at.tzinfo is UTC
    assert abs(info.created_at - datetime.now(UTC)) < timedelta(hours=1)
    store.close()


def test_a_schema_from_a_newer_version_is_refused(durable_backend, make_spec):
    spec = make_spec(durable_backend)
    open_store(spec).close()
    raw_rows(
        spec,
        "INSERT INTO thread_store_migrations (name, applied_at) VALUES (?, ?)",
        ("m099_from_the_future", "2030-01-01T00:00:00+00:00"),
    )
    with pytest.raises(StoreError, match=r"written by a newer version of llm-messages.*m099_from_the_future"):
        open_store(spec)


def test_sqlite_uses_the_wal_journal(make_spec):
    spec = make_spec("sqlite")
    open_store(spec).close()
    assert raw_rows(spec, "PRAGMA journal_mode") == [("wal",)]


@pytest.mark.parametrize("path", [":memory:", "file::memory:?cache=shared"])
def test_sqlite_refuses_an_in_memory_database(path):
    with pytest.raises(ValueError, match="use InMemoryThreadStore"):
        sqlite_module.SQLiteThreadStore(path)


def test_sqlite_says_when_the_file_cannot_be_opened(tmp_path):
    with pytest.raises(
        NotWrittenError, match="opening the store failed: cannot open the SQLite database"
    ) as info:
        sqlite_module.SQLiteThreadStore(tmp_path / "no-such-directory" / "threads.db")
    assert (info.value.operation, info.value.thread_id) == ("open", None)
    assert isinstance(info.value.__cause__, sqlite3.OperationalError)


def test_postgres_says_when_the_server_cannot_be_reached():
    import psycopg

    # Port 1 on loopback: nothing listens there, so the connection is refused at once.
    with pytest.raises(NotWrittenError, match=r"cannot connect to PostgreSQL at 127\.0\.0\.1:1/none") as info:
        postgres_module.PostgresThreadStore("postgresql://nobody@127.0.0.1:1/none", connect_timeout=2)
    assert (info.value.operation, info.value.thread_id) == ("open", None)
    assert isinstance(info.value.__cause__, psycopg.OperationalError)


def test_postgres_says_when_the_dsn_does_not_read():
    import psycopg

    with pytest.raises(NotWrittenError, match="the DSN does not read as a PostgreSQL connection") as info:
        postgres_module.PostgresThreadStore("host=localhost port")
    assert isinstance(info.value.__cause__, psycopg.ProgrammingError)


def test_import_messages_imports_neither_psycopg_nor_litellm_nor_asyncio():
    code = "import sys, json, messages; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(json.loads(out))
    assert "psycopg" not in loaded
    assert "litellm" not in loaded
    assert "asyncio" not in loaded  # loaded by the first async store (a sync bot never needs it)


SYNC_DURABLE = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


@pytest.mark.parametrize("name", SYNC_DURABLE)
def test_each_thread_gets_its_own_connection_and_ended_threads_give_theirs_back(name, make_spec):
    # The sync stores: one connection per thread (the async ones: the two tests below).
    store = open_store(make_spec(name))
    store.create_thread("t")
    together = threading.Barrier(4)
    opened = []

    def use() -> None:
        store.append("t", UserMessage(content="hi"))
        opened.append(store._connection())
        together.wait(timeout=30)  # all four alive at once: four threads, four connections

    workers = [threading.Thread(target=use) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len({id(conn) for conn in opened}) == 4
    assert store._connections.count() == 5  # the main thread's and the four workers'
    late = threading.Thread(target=use_once, args=(store,))
    late.start()
    late.join()
    # Opening the late thread's connection closed those of the four ended threads.
    assert store._connections.count() == 2
    assert all(is_closed(conn) for conn in opened)
    assert len(store.messages("t")) == 5
    store.close()


@pytest.mark.postgres
def test_the_async_postgres_store_gives_each_call_in_flight_a_connection_of_its_own_up_to_its_pool(make_spec):
    from psycopg.conninfo import make_conninfo

    spec = make_spec("postgres")
    name = f"pool-{uuid.uuid4().hex[:8]}"
    dsn = make_conninfo(spec["dsn"], application_name=name)
    count = "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?"

    async def run() -> None:
        store = AsyncPostgresThreadStore(dsn, max_connections=3)
        await store.create_thread("t")
        await asyncio.gather(*(store.append("t", UserMessage(content=str(n))) for n in range(30)))
        opened = raw_rows(spec, count, (name,))[0][0]
        assert 1 < opened <= 3  # calls ran at once, on at most max_connections connections, kept for reuse
        assert len(await store.messages("t")) == 30
        await store.aclose()
        # The server ends a closed connection's backend a moment later (seconds, on a busy machine).
        await until_async(lambda: raw_rows(spec, count, (name,)) == [(0,)], "the pool's connections are gone")

    asyncio.run(run())


def test_the_async_sqlite_store_runs_its_calls_in_its_worker_threads(tmp_path):
    async def run() -> None:
        store = AsyncSQLiteThreadStore(tmp_path / "threads.db", workers=2)
        await store.create_thread("t")
        await asyncio.gather(*(store.append("t", UserMessage(content=str(n))) for n in range(30)))
        # The connection opened when the store was made, and one per worker thread at most.
        assert store._sync._connections.count() <= 3
        names = await asyncio.gather(
            *(store._call(lambda: threading.current_thread().name) for _ in range(10))
        )
        assert all(name.startswith("messages-store") for name in names)
        await store.aclose()
        assert store._sync._connections.count() == 0

    asyncio.run(run())


def use_once(store) -> None:
    store.append("t", UserMessage(content="late"))


def is_closed(conn) -> bool:
    if hasattr(conn, "broken"):  # psycopg
        return bool(conn.closed)
    try:
        conn.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return True
    return False


def store_backends(spec, name: str, *, waiting: bool = False) -> list[int]:
    """The server processes of the connections whose application_name is ``name`` (``waiting``: those
    waiting for a lock)."""
    where = " AND wait_event_type = 'Lock'" if waiting else ""
    rows = raw_rows(spec, f"SELECT pid FROM pg_stat_activity WHERE application_name = ?{where}", (name,))
    return [pid for (pid,) in rows]


def named_store(make_spec, api: str, prefix: str):
    """A PostgreSQL store of the flavour ``api`` whose connections carry a name of their own, its spec,
    and that name (pg_stat_activity's application_name), with a thread ``t``."""
    from psycopg.conninfo import make_conninfo

    spec = make_spec("postgres")
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    store = open_store({**spec, "dsn": make_conninfo(spec["dsn"], application_name=name), "api": api})
    store.create_thread("t")
    return store, spec, name


@pytest.mark.postgres
def test_a_postgres_connection_the_server_closed_while_idle_is_replaced_before_a_statement_is_sent(
    make_spec, api
):
    # Before issue 29 the next call on each such connection failed (an append with MaybeWrittenError,
    # although its statement never left): one failed call per connection.
    store, spec, name = named_store(make_spec, api, "idle")
    before = store_backends(spec, name)
    assert before
    for pid in before:
        raw_rows(spec, "SELECT pg_terminate_backend(?)", (pid,))
    until(lambda: not set(before) & set(store_backends(spec, name)), "the backends ended")
    # The server said goodbye on each connection; the next calls see it, and open new ones: no error.
    assert store.messages("t") == []
    assert store.append("t", UserMessage(content="hi")) == range(1)
    assert store.messages("t") == [UserMessage(content="hi")]
    assert not set(before) & set(store_backends(spec, name))
    store.close()


@pytest.mark.postgres
def test_a_postgres_connection_lost_while_an_append_is_out_raises_maybe_written_and_the_store_goes_on(
    make_spec, api
):
    import psycopg

    store, spec, name = named_store(make_spec, api, "lost")
    raised: list[BaseException] = []

    def append() -> None:
        try:
            store.append("t", UserMessage(content="hi"))
        except BaseException as exc:  # checked below
            raised.append(exc)

    with write_lock_held(spec, "t"):
        appending = threading.Thread(target=append)
        appending.start()
        until(lambda: store_backends(spec, name, waiting=True), "the append waits for the row lock")
        # The statement is out, waiting: the connection is lost under it.
        (pid,) = store_backends(spec, name, waiting=True)
        raw_rows(spec, "SELECT pg_terminate_backend(?)", (pid,))
        appending.join(30)
    # Nothing tells the store whether the server ran it before the connection went (here it did not, but
    # psycopg cannot tell that from a crash after the commit): it says so.
    (error,) = raised
    assert isinstance(error, MaybeWrittenError), repr(error)
    assert (error.operation, error.thread_id) == ("append", "t")
    assert "append() on thread 't' may or may not have been written" in str(error)
    assert isinstance(error.__cause__, psycopg.OperationalError)
    assert store.append("t", UserMessage(content="again")) == range(
        1
    )  # it was not written; the store goes on
    store.close()
