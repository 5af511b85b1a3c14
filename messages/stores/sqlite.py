"""``SQLiteThreadStore`` and ``AsyncSQLiteThreadStore``: threads in one SQLite file (the standard library's
sqlite3), the embedded default.

* WAL journal: readers never block the writer nor the writer readers; many processes share the file.
* Appends run in ``BEGIN IMMEDIATE`` transactions: the write lock is taken first, the thread's length is
  bumped (``UPDATE ... RETURNING``) and the rows inserted in the same transaction, so positions come out
  contiguous and in order whatever the number of writers; a writer that finds the lock taken waits (the
  busy timeout, ``timeout`` seconds) instead of failing.
* Durability: ``synchronous="NORMAL"`` by default. Once ``append`` returns, its messages survive the
  process being killed (a crash, ``SIGKILL``, an out-of-memory kill): the commit is in the WAL file, in the
  operating system's hands. An operating system crash or a power cut may lose the newest commits, those
  not yet synced to the disk (SQLite syncs the WAL before each checkpoint, about every 1,000 pages of
  writes; Linux writes dirty pages back within about 30 s): what survives is every commit up to some
  point, in order, never a torn message nor part of an append, and the file is never corrupted.
  ``synchronous="FULL"`` syncs the WAL at every commit (an fsync: 1 to 4 ms each on the disks measured,
  two per bot turn), so a returned append also survives a power cut on a disk that honours the sync. The
  default was ``FULL`` until the measure of a bot's whole turn (issue 38, ``python3 scripts/dev.py bench
  turn``): at ``FULL`` the syncs alone cost more than the rest of the turn together, and even the turn
  written by hand is a third to a half of ``litellm.completion``'s own time. PostgreSQL's
  ``synchronous_commit`` is the same choice there (``on``, its default, is ``FULL``; ``off`` is ``NORMAL``,
  losing at most the last few hundred milliseconds of commits on a server crash): see docs/stores.md,
  "Durability".
* One connection per thread and per process, as sqlite3 requires (a connection never crosses a fork).
* Failures (a full disk, a file size limit, a lock held past the timeout) raise ``NotWrittenError`` or
  ``MaybeWrittenError`` naming the operation and the thread. Each write is one ``BEGIN IMMEDIATE`` ...
  ``COMMIT`` transaction, so a failure before ``COMMIT`` wrote nothing. In WAL mode a commit is the commit
  frame appended to the WAL, the last frame written (no padding after it: the unix VFS assumes powersafe
  overwrite), so a ``COMMIT`` that failed to write (``SQLITE_IOERR_WRITE``, ``SQLITE_FULL``) or to lock
  (``SQLITE_BUSY``) did not commit either; any other failure of ``COMMIT`` (an fsync error, say) may have
  left a whole commit frame in the WAL, which the next recovery replays: ``MaybeWrittenError``. The same
  connection goes on after a failure (a connection still inside a transaction is replaced).
* The schema is built by the migration steps (``MIGRATIONS``), each applied once, in a
  transaction, and recorded by name in ``thread_store_migrations``. A file whose table names a step this
  version does not know was written by a newer version, and is refused rather than misread.
* ``AsyncSQLiteThreadStore`` runs each call whole (checks, encoding, the transaction, decoding) in a
  worker thread of its own, one hop per call, so that the event loop only awaits. ``python -m benchmarks
  stores`` measures it beside aiosqlite, which also runs its connection in a thread of its own but hops
  to it once per statement, and beside a variant that decoded on the loop (whose CPU work, from 100
  conversations, held the loop for 70 to 160 ms at a time): see docs/benchmarks.md, "Thread stores".
"""

from __future__ import annotations

import functools
import json
import math
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, ParamSpec, TypeVar

from messages.errors import InvalidArgumentError, StoreError, ThreadExistsError, ThreadNotFoundError
from messages.stores._bounds import Bound, Bounded, current_bound, started_at
from messages.stores._codec import Row, check_number, message_exists, not_local, utc_now
from messages.stores._connections import PerThread
from messages.stores._failures import BackendFailedError
from messages.stores._migrations import SQLITE, SQLITE_MIGRATIONS, Migration, migrate, run_sync
from messages.stores._sql import SQLThreadStore
from messages.stores.base import OffloadedStore

__all__ = ["MIGRATIONS", "AsyncSQLiteThreadStore", "SQLiteThreadStore"]

MIGRATIONS: list[Migration] = SQLITE_MIGRATIONS
"""The schema steps, in order; each is applied once and recorded by its name."""

_P = ParamSpec("_P")
_R = TypeVar("_R")

# A new thread's place in threads(): after every other. The statement that inserts it holds the write lock
# from its start, so two processes never take the same one (and the unique index would refuse it).
_NEXT_ORDINAL = "(SELECT coalesce(max(ordinal), 0) + 1 FROM thread_store_threads)"

# A span of a read: the rows joined by group_concat, in the order of the subquery, which SQLite keeps in
# practice but (before 3.44's ORDER BY inside an aggregate) does not promise; so the positions come along,
# joined in the same pass, counted from the span's first ("0,1,2,..."), and are compared with _counting.
# Cast to BLOB: the UTF-8 bytes go to pydantic as they are stored (no decoding into a str first, and a row
# that is not valid UTF-8 fails the parse, where the row-by-row read names it, instead of failing in
# sqlite3's decoder).
_READ_SPAN = (
    "SELECT CAST('[' || group_concat(message, ',') || ']' AS BLOB), group_concat(position - ?, ',') FROM ("
    "SELECT message, position FROM thread_store_messages "
    "WHERE thread_id = ? AND position >= ? AND position < ? ORDER BY position)"
)
_INSERT_THREAD = (
    "INSERT INTO thread_store_threads (id, state, kind, length, created_at, updated_at, ordinal) "
    f"VALUES (?, ?, 'local', 0, ?, ?, {_NEXT_ORDINAL})"
)
_BUMP = (
    "UPDATE thread_store_threads SET length = length + ?, updated_at = ? WHERE id = ? RETURNING length, kind"
)
_INSERT_MESSAGE = (
    "INSERT INTO thread_store_messages "
    "(thread_id, position, message, created_at, message_id, metadata, role) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_HELD = (
    "SELECT message_id, position FROM thread_store_messages "
    "WHERE thread_id = ? AND message_id IN (SELECT value FROM json_each(?))"
)
# The token counts a window read made (``_memo``), saved by the thread's next append in its transaction: only
# where the message counted still holds its position (its id, where the read knew it).
_SAVE_COUNT = (
    "INSERT INTO thread_store_token_counts (thread_id, counter, position, tokens) SELECT ?1, ?2, ?3, ?4 "
    "WHERE EXISTS (SELECT 1 FROM thread_store_messages WHERE thread_id = ?1 AND position = ?3 "
    "AND (?5 IS NULL OR message_id = ?5)) ON CONFLICT DO NOTHING"
)
_SAVE = (
    "INSERT INTO thread_store_threads (id, state, kind, length, created_at, updated_at, ordinal) "
    f"VALUES (?, ?, ?, 0, ?, ?, {_NEXT_ORDINAL}) "
    "ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at "
    "WHERE thread_store_threads.kind = excluded.kind"
)


@functools.lru_cache(maxsize=4)
def _counting(count: int) -> str:
    """``"0,1,...,count-1"``: the positions of a whole span, counted from its first."""
    return ",".join(map(str, range(count)))


_MIN_SQLITE = (3, 35, 0)  # UPDATE ... RETURNING

_SLACK = 0.05
"""How much of its bound a call may spend before its first lock wait and still wait the whole ``timeout``
for the lock, and how far a connection's busy timeout may exceed what a call has left (seconds): a call
that waited longer for its worker, or for the file's lock while opening it, gets what is left of its
bound, by a ``PRAGMA busy_timeout`` (``_bound_waits``)."""


class _Connection(sqlite3.Connection):
    """A sqlite3 connection that knows its busy timeout."""

    busy: float
    """The busy timeout (seconds) set on it."""


def _bound_waits(conn: sqlite3.Connection, wait: float, timeout: float) -> None:
    """Let ``conn`` wait ``wait`` seconds for a lock (the store's ``timeout`` at most): its busy timeout is
    lowered when it is more than ``_SLACK`` over, and raised when it is more than a twentieth of
    ``timeout`` under (a call that gives up that much early tells the truth all the same). So a call after
    one that was kept waiting (its worker, a slow open on a loaded machine) costs no ``PRAGMA``."""
    if isinstance(conn, _Connection) and not (wait - max(_SLACK, timeout / 20) <= conn.busy <= wait + _SLACK):
        conn.execute(f"PRAGMA busy_timeout = {math.ceil(wait * 1000)}")
        conn.busy = wait


class SQLiteThreadStore(SQLThreadStore):
    """Threads in the SQLite file at ``path`` (created if missing), shared by every process that opens it.

    The file is opened, and its schema built or migrated, when the store is made. Close it with
    ``store.close()`` or a ``with`` block; the file and what it holds stay.

    Args:
        path: The database file (a ``str`` or a ``pathlib.Path``); its folder must exist. A file made by
            another ``SQLiteThreadStore`` (this process's or another's) is shared with it.
        timeout: The bound of each call's waits for another connection's lock, in seconds (default 30):
            SQLite's busy timeout, less what the call spent before its first wait; past it the call fails
            with ``NotWrittenError``. ``0``: never wait.
        synchronous: What a returned ``append`` survives: ``"NORMAL"`` (the default), a killed process;
            ``"FULL"``, an operating system crash and a power cut as well, at the price of a sync of the
            disk per write (see the module docstring).

    Raises:
        StoreError: this Python's SQLite is older than the store needs.
        InvalidArgumentError: ``synchronous`` is neither ``"FULL"`` nor ``"NORMAL"``, ``timeout`` is not a
            number of seconds of at least 0, or the path is ``:memory:`` (use ``InMemoryThreadStore``).
        NotWrittenError: the database file cannot be opened, or its schema made or migrated.

    Examples:
        ```python
        from messages import AIMessage, LocalThread, SQLiteThreadStore, UserMessage

        with SQLiteThreadStore("chats.sqlite") as store:
            thread = LocalThread(id="user-42")
            store.save_thread(thread)
            thread.append(store, [UserMessage(content="hi"), AIMessage(content="Hello!")])

        with SQLiteThreadStore("chats.sqlite") as store:  # later, or in another process
            assert store.roles("user-42") == ["user", "assistant"]
        ```
    """

    _message_column = "CAST(message AS BLOB)"  # bytes: see _READ_SPAN

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        timeout: float = 30.0,
        synchronous: Literal["FULL", "NORMAL"] = "NORMAL",
    ) -> None:
        super().__init__()
        if sqlite3.sqlite_version_info < _MIN_SQLITE:
            raise StoreError(
                f"SQLiteThreadStore needs SQLite {'.'.join(map(str, _MIN_SQLITE))} or newer (for "
                f"UPDATE ... RETURNING); this Python links SQLite {sqlite3.sqlite_version}"
            )
        if synchronous not in ("FULL", "NORMAL"):
            raise InvalidArgumentError(
                f"SQLiteThreadStore(): synchronous is 'FULL' or 'NORMAL', not {synchronous!r}",
                argument="synchronous",
            )
        check_number(timeout, "timeout", "SQLiteThreadStore", minimum=0)
        try:
            text: object = os.fspath(path)
        except TypeError:
            text = path
        if not isinstance(text, str):
            raise InvalidArgumentError(
                "SQLiteThreadStore(): path is a file path, a str or a pathlib.Path, not a "
                f"{type(path).__name__}",
                argument="path",
            )
        path = text
        if path == ":memory:" or path.startswith("file:"):
            raise InvalidArgumentError(
                "SQLiteThreadStore(): path is a file path; an in-memory SQLite database would be a different "
                "database on every connection: use InMemoryThreadStore instead",
                argument="path",
            )
        self.path = Path(path)
        """The database file."""
        self._timeout = timeout
        self._synchronous = synchronous
        self._driver_errors = (sqlite3.Error,)
        # A connection left inside a transaction (its ROLLBACK failed too) is replaced at next use.
        self._connections = PerThread(
            self._open, sqlite3.Connection.close, usable=lambda conn: not conn.in_transaction
        )
        with self._operation("open", None, writes=False):
            # Open now: a bad path or a newer schema fails here, not at first use. (Not `_connection()`,
            # which fails a call with nothing left of its bound before its statements: the open has none
            # to come, and one that took its whole bound without waiting for a lock has succeeded.)
            self._connections.get()

    def __repr__(self) -> str:
        return f"SQLiteThreadStore({str(self.path)!r})"

    # -- connections -----------------------------------------------------------------------------------

    def _operation(self, operation: str, thread_id: str | None, *, writes: bool) -> Bounded:
        # The bound of a call is its lock waits' (timeout=0: it never waits, so none).
        return Bounded(self, operation, thread_id, writes, seconds=self._timeout or None, crossed=str)

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, its busy timeout what is left of the call's bound."""
        conn = self._connections.get()
        bound = current_bound()
        if bound is not None:
            _bound_waits(conn, self._lock_wait(bound), self._timeout)
        return conn

    def _lock_wait(self, bound: Bound | None) -> float:
        """How long the call may still wait for a lock: the store's ``timeout``, less what the call spent
        before (waiting for its worker, opening the file); ``BackendFailedError`` when nothing is left."""
        if bound is None:
            return self._timeout
        left = bound.remaining()
        if left <= 0:
            raise BackendFailedError(
                f"the call waited past its bound ({bound.seconds:g} s, the store's timeout) before it could "
                f"reach {str(self.path)!r}: for its worker, behind other calls, or for the file's lock while "
                "opening it",
                cause=None,
                maybe_written=False,
            )
        # A call that waited less than this before keeps the whole timeout: no PRAGMA on the usual path.
        return self._timeout if left > self._timeout - _SLACK else left

    def _open(self) -> sqlite3.Connection:
        wait = self._lock_wait(current_bound())
        try:
            # isolation_level=None: no implicit transactions; each method says BEGIN itself.
            conn = sqlite3.connect(
                self.path, timeout=wait, isolation_level=None, check_same_thread=False, factory=_Connection
            )
            conn.busy = wait
        except sqlite3.Error as exc:
            raise BackendFailedError(
                f"cannot open the SQLite database {str(self.path)!r} ({self._explain(exc)})",
                cause=exc,
                maybe_written=False,
            ) from exc
        try:
            self._set_wal(conn, wait)
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
            conn.execute("PRAGMA foreign_keys = ON")
            self._migrate(conn)
        except (sqlite3.Error, BackendFailedError) as exc:
            conn.close()
            # Nothing of the operation that needed this connection was written yet (whatever became of a
            # schema migration: the next connection applies what is missing).
            cause = exc.cause or exc if isinstance(exc, BackendFailedError) else exc
            raise BackendFailedError(
                f"cannot set up the SQLite database {str(self.path)!r} ({self._explain(cause)})",
                cause=cause,
                maybe_written=False,
            ) from cause
        except BaseException:
            conn.close()
            raise
        return conn

    def _set_wal(self, conn: sqlite3.Connection, wait: float) -> None:
        # Switching to WAL needs a moment of exclusive access: another process opening the same new file at
        # the same instant may hold it, and that error does not go through the busy timeout. Retry.
        deadline = time.monotonic() + wait
        while True:
            try:
                mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
                if mode.lower() != "wal":
                    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if mode.lower() != "wal":
                    raise StoreError(
                        f"{str(self.path)!r} cannot use the WAL journal (SQLite answered {mode!r}); "
                        "is it on a network file system?"
                    )
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _migrate(self, conn: sqlite3.Connection) -> None:
        def execute(sql: str, params: tuple[object, ...] | None) -> list[tuple[object, ...]]:
            return conn.execute(sql, params or ()).fetchall()

        run_sync(
            execute, lambda: _roll_back(conn), migrate(SQLITE, MIGRATIONS, f"the database {str(self.path)!r}")
        )

    def _close(self) -> None:
        # Every connection this store opened, in any thread of this process.
        self._connections.close_all()

    def _explain(self, exc: BaseException) -> str:
        return _explain(exc, self._timeout)

    def _describe(self, exc: Exception, *, writes: bool) -> tuple[str, bool]:
        # A statement before COMMIT: its transaction rolls back (_transaction classifies COMMIT itself).
        return f"SQLite failed on {str(self.path)!r} ({self._explain(exc)})", False

    # -- the contract ------------------------------------------------------------------------------------

    def _snapshot(self, conn: sqlite3.Connection) -> AbstractContextManager[None]:
        return _transaction(conn, "DEFERRED")

    def _timestamp(self, value: str) -> datetime:
        return datetime.fromisoformat(value).astimezone(UTC)  # stored as ISO 8601 text, in UTC

    def _fetch_joined(self, conn: sqlite3.Connection, thread_id: str, lo: int, hi: int) -> bytes | None:
        joined, positions = conn.execute(_READ_SPAN, (lo, thread_id, lo, hi)).fetchone()
        if positions != _counting(hi - lo):
            return None
        return joined  # type: ignore[no-any-return]

    def _insert_thread(self, thread_id: str, state: str) -> None:
        now = utc_now().isoformat()
        conn = self._connection()
        try:
            with _transaction(conn, "IMMEDIATE"):
                conn.execute(_INSERT_THREAD, (thread_id, state, now, now))
        except sqlite3.IntegrityError:
            raise ThreadExistsError(thread_id) from None

    def _append_rows(self, thread_id: str, rows: list[Row], skip_existing: bool) -> tuple[int, int]:
        # The rows are encoded before the lock is taken: the lock is held for the writes only.
        conn = self._connection()
        if not rows:
            return self._local_length(conn, thread_id, "append"), 0
        now = utc_now().isoformat()
        counts = self._memo.take_counts(thread_id)
        try:
            with _transaction(conn, "IMMEDIATE"):
                if skip_existing:  # under the write lock: no other process adds one of these meanwhile
                    held = {
                        mid for mid, _ in conn.execute(_HELD, (thread_id, json.dumps([r.id for r in rows])))
                    }
                    rows = [row for row in rows if row.id not in held]
                    if not rows:
                        self._memo.give_back(thread_id, counts)  # nothing is written: kept for the next
                        return self._local_length(conn, thread_id, "append"), 0
                row = conn.execute(_BUMP, (len(rows), now, thread_id)).fetchone()
                if row is None:
                    raise ThreadNotFoundError(thread_id)
                if row[1] != "local":
                    raise not_local(thread_id, "append")  # the transaction rolls back
                first: int = row[0] - len(rows)
                conn.executemany(
                    _INSERT_MESSAGE,
                    [
                        (thread_id, first + offset, r.text, now, r.id, r.metadata, r.role)
                        for offset, r in enumerate(rows)
                    ],
                )
                if counts:
                    conn.executemany(_SAVE_COUNT, [(thread_id, *count) for count in counts])
        except BaseException as exc:
            self._memo.give_back(thread_id, counts)
            if not isinstance(exc, sqlite3.IntegrityError):
                raise
            # An id the thread holds (the unique index refused it; nothing was written): say which.
            ids = json.dumps([r.id for r in rows])
            held_at = conn.execute(_HELD + " ORDER BY position LIMIT 1", (thread_id, ids)).fetchone()
            if held_at is None:
                raise
            raise message_exists(thread_id, held_at[0], held_at[1]) from None
        return first, len(rows)

    def _locked(self, conn: sqlite3.Connection, thread_id: str) -> AbstractContextManager[None]:
        return _transaction(conn, "IMMEDIATE")

    def _stamp(self, value: datetime) -> str:
        return value.isoformat()

    def _delete_thread(self, thread_id: str) -> None:
        conn = self._connection()
        with _transaction(conn, "IMMEDIATE"):
            for table in ("thread_store_checkpoints", "thread_store_token_counts"):
                conn.execute(f"DELETE FROM {table} WHERE thread_id = ?", (thread_id,))
            conn.execute("DELETE FROM thread_store_messages WHERE thread_id = ?", (thread_id,))
            if conn.execute("DELETE FROM thread_store_threads WHERE id = ?", (thread_id,)).rowcount == 0:
                raise ThreadNotFoundError(thread_id)

    def _write_state(self, thread_id: str, state: str, kind: str) -> None:
        now = utc_now().isoformat()
        conn = self._connection()
        with _transaction(conn, "IMMEDIATE"):
            # One statement: the thread is created, or updated if it is of the same kind, or left alone.
            written = conn.execute(_SAVE, (thread_id, state, kind, now, now)).rowcount
            if written == 0:
                raise self._kind_conflict(conn, thread_id, kind)


class AsyncSQLiteThreadStore(OffloadedStore):
    """``SQLiteThreadStore`` for asyncio: the same file, contract and errors. Each call runs whole (its
    checks, encoding, transaction and decoding) in a worker thread of the store's own (``workers`` of
    them, one connection each), so the event loop only awaits it: the loop never waits on SQLite, and the
    CPU work of many conversations does not pile up between two turns of the loop (the GIL is handed back
    to it every few milliseconds). The file is opened (and its schema built) when the store is made: make
    it at start-up, not inside a busy loop. Close it with ``await store.aclose()`` (or ``async with``).

    Args:
        path: The database file (a ``str`` or a ``pathlib.Path``), shared with every other store, sync or
            async, that opens it.
        timeout: The bound of each call's waits, in seconds (default 30), counted from the moment its
            caller called: a call that waited for a worker behind others waits that much less for another
            connection's lock, and one with nothing left fails (``NotWrittenError``); ``0``: never wait.
        synchronous: ``"NORMAL"`` (the default) or ``"FULL"``: what a returned ``append`` survives, as
            ``SQLiteThreadStore`` takes it.
        workers: How many worker threads run the calls, each with a connection of its own: how many calls
            can read at once (writes to the file still take turns).

    Raises:
        StoreError: this Python's SQLite is older than the store needs.
        InvalidArgumentError: ``workers`` is not an int of at least 1, ``synchronous`` is neither ``"FULL"``
            nor ``"NORMAL"``, ``timeout`` is not a number of seconds, or the path is ``:memory:``.
        NotWrittenError: the database file cannot be opened, or its schema made or migrated.

    Examples:
        ```python
        import asyncio

        from messages import AsyncSQLiteThreadStore, LocalThread, UserMessage


        async def main():
            async with AsyncSQLiteThreadStore("chats.sqlite") as store:
                thread = LocalThread(id="user-42")
                await store.save_thread(thread)
                await thread.aappend(store, UserMessage(content="hi"))
                assert await thread.aread(store) == [UserMessage(content="hi")]


        asyncio.run(main())
        ```
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        timeout: float = 30.0,
        synchronous: Literal["FULL", "NORMAL"] = "NORMAL",
        workers: int = 1,
    ) -> None:
        check_number(workers, "workers", "AsyncSQLiteThreadStore", minimum=1, whole=True)
        sync = SQLiteThreadStore(path, timeout=timeout, synchronous=synchronous)
        super().__init__(sync, workers=workers)
        self.path = sync.path
        """The database file."""
        self._bound = timeout or None  # the bound of a call, counted from its caller's call

    def __repr__(self) -> str:
        return f"AsyncSQLiteThreadStore({str(self.path)!r})"

    async def _call(self, method: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R:
        # The call's bound starts now, as its caller calls: a call that waits for the worker behind
        # others waits that much less for a lock.
        bounded = started_at(method, self._bound, time.monotonic())
        return await super()._call(bounded, *args, **kwargs)


_COMMIT_NOT_WRITTEN = frozenset({"SQLITE_IOERR_WRITE", "SQLITE_FULL", "SQLITE_BUSY"})
"""The errors of a ``COMMIT`` that leave it uncommitted: the commit frame was not written whole (a write
error, a full disk or a file size limit: it is the last frame written), or the lock was not had. Any other
error of ``COMMIT`` may come after the commit frame was written (see the module docstring)."""


@contextmanager
def _transaction(conn: sqlite3.Connection, mode: Literal["DEFERRED", "IMMEDIATE"]) -> Iterator[None]:
    """``BEGIN <mode>`` ... ``COMMIT``, rolled back if the block raises (or the process is interrupted).

    A ``COMMIT`` that fails in a way that may have committed raises ``BackendFailedError`` saying so."""
    conn.execute(f"BEGIN {mode}")
    try:
        yield
    except BaseException:
        _roll_back(conn)
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        _roll_back(conn)
        if getattr(exc, "sqlite_errorname", None) in _COMMIT_NOT_WRITTEN:
            raise
        raise BackendFailedError(
            f"SQLite's COMMIT failed ({_explain(exc)}) after it may have written the commit record",
            cause=exc,
            maybe_written=True,
        ) from exc


def _roll_back(conn: sqlite3.Connection) -> None:
    """End the transaction, if SQLite has not already rolled it back; a failure here leaves the connection
    inside it, and ``PerThread`` replaces such a connection at next use."""
    if conn.in_transaction:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def _explain(exc: BaseException, timeout: float | None = None) -> str:
    """The driver's error, with SQLite's extended error name and what it likely means."""
    name = getattr(exc, "sqlite_errorname", None)
    text = f"{exc}, {name}" if name else str(exc)
    if name in ("SQLITE_IOERR_WRITE", "SQLITE_FULL"):
        text += ": the disk is full, or the process reached its file size limit"
    elif name and name.startswith("SQLITE_BUSY"):
        text += ": another connection held the lock past the timeout"
        if timeout is not None:
            text += f" ({timeout:g} s)"
    return text
