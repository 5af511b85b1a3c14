"""Named failures of the database stores, in this process, with real files and a real server: a write
lock held past the timeout (SQLite), a statement the server refuses (PostgreSQL). Each is a
``NotWrittenError`` naming the operation and the thread, chained to the driver's error; nothing is written,
and the same store goes on. (Lost connections, a crashed server and a full disk: test_schema.py and
test_outages.py.)"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import pytest

from messages import BackendError, LocalThread, NotWrittenError, ThreadStore, UserMessage
from messages.stores.sqlite import SQLiteThreadStore
from tests.stores._backends import open_store

WRITES: dict[str, Callable[[ThreadStore], object]] = {
    "append": lambda store: store.append("t", UserMessage(content="hi")),
    "create_thread": lambda store: store.create_thread("u"),
    "save_thread": lambda store: store.save_thread(LocalThread(id="t").with_context("k", 1)),
    "delete_thread": lambda store: store.delete_thread("t"),
}


def snapshot(store: ThreadStore) -> tuple[object, ...]:
    return (store.threads(), store.messages("t"), store.load_thread("t"))


@pytest.mark.parametrize("operation", WRITES)
def test_sqlite_write_blocked_past_the_timeout_by_another_writer_is_not_written(operation, tmp_path):
    path = tmp_path / "threads.db"
    # Half a second: the call's own steps before the lock (a few microseconds, far more when a busy machine
    # keeps the process waiting for a core) come out of it, and a call with nothing left says so instead.
    store = SQLiteThreadStore(path, timeout=0.5)
    store.create_thread("t")
    store.append("t", UserMessage(content="first"))
    before = snapshot(store)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's write lock, held
    with pytest.raises(NotWrittenError) as info:
        WRITES[operation](store)
    error = info.value
    thread_id = "u" if operation == "create_thread" else "t"
    assert (error.operation, error.thread_id) == (operation, thread_id)
    assert str(error).startswith(f"{operation}() on thread {thread_id!r} failed and wrote nothing: ")
    assert (
        "database is locked, SQLITE_BUSY: another connection held the lock past the timeout (0.5 s)"
        in str(error)
    )
    assert "retrying it as it is is safe" in str(error)
    assert isinstance(error.__cause__, sqlite3.OperationalError)
    other.execute("ROLLBACK")
    other.close()
    assert snapshot(store) == before  # nothing was written
    WRITES[operation](store)  # the same store goes on
    store.close()


@pytest.mark.postgres
def test_postgres_statement_refused_by_the_server_is_not_written_and_keeps_the_connection(make_spec):
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    spec = make_spec("postgres")
    # Every connection of the store gives up waiting for a row lock after 200 ms (SQLSTATE 55P03).
    options = conninfo_to_dict(spec["dsn"]).get("options", "")
    store = open_store({**spec, "dsn": make_conninfo(spec["dsn"], options=f"{options} -c lock_timeout=200")})
    store.create_thread("t")
    pid = store._connection().info.backend_pid  # type: ignore[attr-defined]
    with psycopg.connect(spec["dsn"]) as other:  # another writer holds the thread's row
        other.execute("SELECT 1 FROM thread_store_threads WHERE id = 't' FOR UPDATE")
        with pytest.raises(NotWrittenError) as info:
            store.append("t", UserMessage(content="hi"))
        other.rollback()
    error = info.value
    assert (error.operation, error.thread_id) == ("append", "t")
    assert "refused the statement (SQLSTATE 55P03: canceling statement due to lock timeout)" in str(error)
    assert isinstance(error.__cause__, psycopg.errors.LockNotAvailable)
    assert store.messages("t") == []  # nothing was written
    assert store.append("t", UserMessage(content="hi")) == range(1)  # the same store goes on,
    assert store._connection().info.backend_pid == pid  # on the same connection: it was never lost
    store.close()


class CommitFails:
    """A real SQLite connection whose ``COMMIT`` raises ``error``, after committing when ``commits``.

    A stand-in for what cannot be produced for real here: an fsync that fails after the commit record was
    written (SQLITE_IOERR_FSYNC) needs a failing disk. Every other statement runs on the real connection;
    a real write error at COMMIT (SQLITE_IOERR_WRITE, a file size limit) is in test_outages.py."""

    def __init__(self, conn: sqlite3.Connection, name: str, *, commits: bool) -> None:
        self._conn = conn
        self._error = sqlite3.OperationalError("disk I/O error")
        self._error.sqlite_errorname = name
        self._commits = commits

    @property
    def in_transaction(self) -> bool:
        return self._conn.in_transaction

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if sql == "COMMIT":
            if self._commits:
                self._conn.execute(sql)
            raise self._error
        return self._conn.execute(sql, *args)

    def executemany(self, sql: str, rows: object) -> sqlite3.Cursor:
        return self._conn.executemany(sql, rows)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "commits", "raised"),
    [
        ("SQLITE_IOERR_FSYNC", True, "MaybeWrittenError"),  # the commit record is on disk: written
        ("SQLITE_IOERR_FSYNC", False, "MaybeWrittenError"),  # or not: the caller cannot tell either way
        ("SQLITE_IOERR_WRITE", False, "NotWrittenError"),  # the commit record was not written whole
    ],
)
def test_sqlite_commit_failures_say_whether_the_append_may_be_written(name, commits, raised, tmp_path):
    store = SQLiteThreadStore(tmp_path / "threads.db")
    store.create_thread("t")
    real = store._connection()
    store._connection = lambda: CommitFails(real, name, commits=commits)  # type: ignore[method-assign]
    with pytest.raises(BackendError) as info:
        store.append("t", UserMessage(content="hi"))
    assert type(info.value).__name__ == raised
    assert info.value.__cause__ is not None
    assert name in str(info.value)
    if raised == "MaybeWrittenError":
        assert "SQLite's COMMIT failed (disk I/O error, SQLITE_IOERR_FSYNC) after it may have written" in str(
            info.value
        )
        assert "read the thread's end back (messages(thread_id, -n) for n messages)" in str(info.value)
    del store._connection
    assert len(store.messages("t")) == (1 if commits else 0)
    store.close()
