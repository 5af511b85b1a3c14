"""``PostgresThreadStore`` and ``AsyncPostgresThreadStore``: threads in a PostgreSQL database, shared by
many processes on many machines.

Needs psycopg 3 (``pip install 'llm-messages[postgres]'``), imported when a store is made, never by
``import messages``.

* An append is one statement: it bumps the thread's length (``UPDATE ... RETURNING``, which locks the
  thread's row until commit, so concurrent appends to one thread queue up and get contiguous positions) and
  inserts the messages from array parameters, in the same implicit transaction. One round trip, whatever
  the batch size; all or nothing. An append with ``skip_existing=True`` locks the thread's row first
  (``SELECT ... FOR UPDATE``), then reads which ids it holds, in a transaction whose later statements see
  what the appends before it committed: a turn replayed by two processes at once is stored once.
* A read takes one ``REPEATABLE READ`` snapshot for the length and the rows, and fetches the range in
  spans, each one string (``string_agg(message, ',' ORDER BY position)``, whose order PostgreSQL
  guarantees, with the count of its rows), the next span fetched while the last one is parsed.
* Timestamps are ``timestamptz``, read back in UTC whatever the session's ``timezone``.
* The sync store keeps one connection per thread and per process (a connection never crosses a fork); the
  async store (psycopg's ``AsyncConnection``) a small pool of them per process, one per call in flight up
  to ``max_connections``. A connection the server dropped is replaced at next use, so the store works
  again once the server is back, without being reopened.
* Failures raise ``NotWrittenError`` or ``MaybeWrittenError`` naming the operation and the thread, with
  psycopg's error chained. What psycopg tells apart: a connection that could not be opened sent nothing
  (not written); an error the server reported, on a connection that is still good, rolled its statement
  back (not written: every write here is one transaction); a connection lost while a write was out
  (psycopg marks it ``broken``) may have been lost after the server committed, before the reply came back:
  ``MaybeWrittenError``.
* The schema is built by the migration steps of ``_migrations`` (``MIGRATIONS``), applied under an
  advisory lock (so that processes starting together do not race) and recorded by name in
  ``thread_store_migrations``; a database with a step this version does not know was written by a newer
  version, and is refused. Sync and async stores run the same runner.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC
from typing import Any, Literal

from messages._io import collector_paused
from messages.errors import StoreError, ThreadExistsError, ThreadNotFoundError
from messages.models import Message
from messages.stores._codec import (
    MessageRecord,
    Row,
    ThreadInfo,
    bounds,
    check_positions,
    check_thread_id,
    decode_joined,
    decode_messages,
    decode_thread,
    encode_rows,
    encode_thread,
    kind_change,
    message_exists,
    missing_position,
    not_local,
)
from messages.stores._connections import PerThread
from messages.stores._failures import BackendFailedError, ClosedError
from messages.stores._migrations import POSTGRES, POSTGRES_MIGRATIONS, Migration, migrate, run_async, run_sync
from messages.stores._sql import (
    KIND,
    LOCAL_LENGTH,
    PRESENT,
    READ_RECORDS,
    READ_ROLES,
    READ_ROWS,
    READ_THREAD,
    THREAD_IDS,
    SQLThreadStore,
    check_roles,
    postgres,
)
from messages.stores.base import AsyncThreadStore, Ids, Metadata, _Failures, records_of
from messages.threads import LocalThread, RemoteThread, new_thread_id

__all__ = ["MIGRATIONS", "AsyncPostgresThreadStore", "PostgresThreadStore"]

MIGRATIONS: list[Migration] = POSTGRES_MIGRATIONS
"""The schema steps, in order; each is applied once and recorded by its name."""

_APPEND = """
WITH bumped AS (
    UPDATE thread_store_threads SET length = length + %(count)s, updated_at = now()
    WHERE id = %(id)s AND kind = 'local'
    RETURNING length - %(count)s AS first, updated_at
), added AS (
    INSERT INTO thread_store_messages (thread_id, position, message, created_at, message_id, metadata, role)
    SELECT %(id)s, bumped.first + item.ordinality - 1, item.message, bumped.updated_at, item.message_id,
           item.metadata, item.role
    FROM bumped, unnest(%(messages)s::text[], %(ids)s::text[], %(metadata)s::text[], %(roles)s::text[])
         WITH ORDINALITY AS item (message, message_id, metadata, role, ordinality)
)
SELECT first FROM bumped
"""
_LOCK_THREAD = "SELECT 1 FROM thread_store_threads WHERE id = %s FOR UPDATE"
_HELD = (
    "SELECT message_id, position FROM thread_store_messages WHERE thread_id = %s AND message_id = ANY(%s) "
    "ORDER BY position"
)
# A span of a read: one string, in position order (an ORDER BY inside the aggregate is guaranteed), and the
# count of its rows, which says whether every position is there. The brackets are added here, not by the
# server: a concatenation there copies the span once more, and costs the server as much again as the
# aggregate.
_READ_SPAN = (
    "SELECT string_agg(message, ',' ORDER BY position), count(*) "
    "FROM thread_store_messages WHERE thread_id = %s AND position >= %s AND position < %s"
)
_INSERT_THREAD = "INSERT INTO thread_store_threads (id, state) VALUES (%s, %s)"
_SAVE = (
    "INSERT INTO thread_store_threads (id, state, kind) VALUES (%s, %s, %s) "
    "ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, updated_at = now() "
    "WHERE thread_store_threads.kind = EXCLUDED.kind"
)
_DELETE = "DELETE FROM thread_store_threads WHERE id = %s"
_SNAPSHOT = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"


def _append_params(thread_id: str, rows: list[Row]) -> dict[str, object]:
    return {
        "id": thread_id,
        "count": len(rows),
        "messages": [r.text for r in rows],
        "ids": [r.id for r in rows],
        "metadata": [r.metadata for r in rows],
        "roles": [r.role for r in rows],
    }


def _import_psycopg(store: str) -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise StoreError(f"{store} needs psycopg 3: pip install 'llm-messages[postgres]'") from exc
    return psycopg


def _where(psycopg: Any, dsn: str) -> str:
    """``host:port/db`` of ``dsn`` for messages; ``BackendFailedError`` when the DSN does not read."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.Error as exc:
        raise BackendFailedError(
            f"the DSN does not read as a PostgreSQL connection string ({_first_line(exc)})",
            cause=exc,
            maybe_written=False,
        ) from exc
    return f"{info.get('host', 'localhost')}:{info.get('port', 5432)}/{info.get('dbname', '')}"


def _describe(where: str, exc: Exception, *, lost: bool, writes: bool) -> tuple[str, bool]:
    """What psycopg's error ``exc`` means, on a connection that was ``lost`` or not, in an operation that
    ``writes`` or not: a description, and whether the write may have been committed."""
    if lost:
        if writes:
            return (
                f"the connection to PostgreSQL at {where} was lost while the statement was out "
                f"({_first_line(exc)}), so the server may have committed it before the reply was lost",
                True,
            )
        return f"the connection to PostgreSQL at {where} was lost ({_first_line(exc)})", False
    sqlstate = getattr(exc, "sqlstate", None)
    code = f"SQLSTATE {sqlstate}: " if sqlstate else ""
    return f"PostgreSQL at {where} refused the statement ({code}{_first_line(exc)})", False


def _rows(cursor: Any) -> list[tuple[Any, ...]]:
    return list(cursor.fetchall()) if cursor.description else []


class PostgresThreadStore(SQLThreadStore):
    """Threads in the PostgreSQL database at ``dsn`` (``postgresql://user@host:port/db`` or key=value).

    Raises:
        ImportError: psycopg is not installed (``pip install 'llm-messages[postgres]'``).
        NotWrittenError: the server cannot be reached, or its schema cannot be made or migrated.
    """

    _placeholder = "%s"

    def __init__(self, dsn: str, *, connect_timeout: float = 10.0) -> None:
        psycopg = _import_psycopg("PostgresThreadStore")
        self._psycopg = psycopg
        self._driver_errors = (psycopg.Error,)
        self._dsn = dsn
        self._where = "?"
        self._connect_timeout = connect_timeout
        self._connections: PerThread[Any] = PerThread(
            self._open,
            lambda conn: conn.close(),
            # Not closed, not broken, and not left inside a transaction.
            usable=lambda conn: conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE,
        )
        with self._operation("open", None, writes=False):
            self._where = _where(psycopg, dsn)
            self._connection()  # connect now: an unreachable server or a newer schema fails here

    def __repr__(self) -> str:
        return f"PostgresThreadStore({self._where!r})"

    # -- connections -----------------------------------------------------------------------------------

    def _connection(self) -> Any:
        return self._connections.get()

    def _open(self) -> Any:
        psycopg = self._psycopg
        try:
            conn = psycopg.connect(
                self._dsn, autocommit=True, connect_timeout=max(1, round(self._connect_timeout))
            )
        except psycopg.Error as exc:
            raise BackendFailedError(
                f"cannot connect to PostgreSQL at {self._where} ({_first_line(exc)})",
                cause=exc,
                maybe_written=False,
            ) from exc
        try:
            run_sync(
                lambda sql, params: _rows(conn.execute(sql, params)),
                lambda: _roll_back(conn),
                migrate(POSTGRES, MIGRATIONS, f"the PostgreSQL database at {self._where}"),
            )
        except psycopg.Error as exc:
            conn.close()
            # Nothing of the operation that needed this connection was sent yet.
            raise BackendFailedError(
                f"cannot set up the PostgreSQL database at {self._where} ({_first_line(exc)})",
                cause=exc,
                maybe_written=False,
            ) from exc
        except BaseException:
            conn.close()
            raise
        return conn

    def _close(self) -> None:
        # Every connection this store opened, in any thread of this process.
        self._connections.close_all()

    def _describe(self, exc: Exception, *, writes: bool) -> tuple[str, bool]:
        conn = self._connections.peek()
        # psycopg counts a broken connection as closed.
        return _describe(self._where, exc, lost=conn is None or conn.closed, writes=writes)

    # -- the contract ------------------------------------------------------------------------------------

    @contextmanager
    def _snapshot(self, conn: Any) -> Iterator[None]:
        with conn.transaction():
            conn.execute(_SNAPSHOT)
            yield

    def _fetch_joined(self, conn: Any, thread_id: str, lo: int, hi: int) -> str | None:
        joined, count = conn.execute(_READ_SPAN, (thread_id, lo, hi)).fetchone()
        return "".join(("[", joined, "]")) if count == hi - lo else None

    def _insert_thread(self, thread_id: str, state: str) -> None:
        try:
            self._connection().execute(_INSERT_THREAD, (thread_id, state))
        except self._psycopg.errors.UniqueViolation:
            raise ThreadExistsError(thread_id) from None

    def _append_rows(self, thread_id: str, rows: list[Row], skip_existing: bool) -> tuple[int, int]:
        conn = self._connection()
        if not rows:
            return self._local_length(conn, thread_id, "append"), 0
        if skip_existing:
            with conn.transaction():
                conn.execute(_LOCK_THREAD, (thread_id,))
                held = {mid for mid, _ in conn.execute(_HELD, (thread_id, [r.id for r in rows]))}
                rows = [row for row in rows if row.id not in held]
                if not rows:
                    return self._local_length(conn, thread_id, "append"), 0
                return self._append(conn, thread_id, rows), len(rows)
        return self._append(conn, thread_id, rows), len(rows)

    def _append(self, conn: Any, thread_id: str, rows: list[Row]) -> int:
        try:
            row = conn.execute(_APPEND, _append_params(thread_id, rows)).fetchone()
        except self._psycopg.errors.UniqueViolation:
            held = conn.execute(_HELD, (thread_id, [r.id for r in rows])).fetchone()
            if held is None:
                raise
            raise message_exists(thread_id, held[0], held[1]) from None
        if row is None:
            # No local thread of that id: say whether there is none or a remote one.
            self._local_length(conn, thread_id, "append")
            raise ThreadNotFoundError(thread_id)  # it was deleted, and made again, meanwhile
        return int(row[0])

    def _delete_thread(self, thread_id: str) -> None:
        if self._connection().execute(_DELETE, (thread_id,)).rowcount == 0:
            raise ThreadNotFoundError(thread_id)

    def _write_state(self, thread_id: str, state: str, kind: str) -> None:
        conn = self._connection()
        # One statement: the thread is created, or updated if it is of the same kind, or left alone.
        if conn.execute(_SAVE, (thread_id, state, kind)).rowcount == 0:
            raise self._kind_conflict(conn, thread_id, kind)


def _roll_back(conn: Any) -> None:
    """End a transaction the migration runner left open (a failed step)."""
    if not conn.closed and conn.info.transaction_status != conn.info.transaction_status.IDLE:
        conn.execute("ROLLBACK")


class _Pool:
    """The async store's connections: idle ones kept for the next call, at most ``size`` open at once,
    none shared between two calls in flight, none carried across a fork."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._idle: list[Any] = []
        self._open = 0
        self._slots: Any = None  # an asyncio.Semaphore, made in the loop at first use
        self._pid = os.getpid()
        self.closed = False

    def _forked(self) -> None:
        if self._pid != os.getpid():  # a forked child: the parent's connections are not ours to use
            self._idle, self._open, self._slots, self._pid = [], 0, None, os.getpid()

    async def take(self, connect: Any) -> Any:
        self._forked()
        if self.closed:
            raise ClosedError
        if self._slots is None:
            import asyncio  # loaded with the first async call, not with `import messages`

            self._slots = asyncio.Semaphore(self.size)
        await self._slots.acquire()
        try:
            while self._idle:
                conn = self._idle.pop()
                if not conn.closed and conn.info.transaction_status == conn.info.transaction_status.IDLE:
                    return conn
                await conn.close()
            return await connect()
        except BaseException:
            self._slots.release()
            raise

    async def give_back(self, conn: Any) -> None:
        if self._pid != os.getpid() or self._slots is None:
            return
        self._slots.release()
        usable = not conn.closed and conn.info.transaction_status == conn.info.transaction_status.IDLE
        if usable and not self.closed:
            self._idle.append(conn)
        else:
            await conn.close()

    async def close(self) -> None:
        self._forked()
        self.closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            await conn.close()


class AsyncPostgresThreadStore(_Failures, AsyncThreadStore):
    """``PostgresThreadStore`` for asyncio, on psycopg's ``AsyncConnection``: the same database, contract,
    SQL and errors, natively async (no thread). It connects at the first call, or at ``await
    store.open()``; up to ``max_connections`` calls run at once, each on a connection of its own. Close it
    with ``await store.aclose()`` (or ``async with``). Use it from one event loop.

    Raises:
        ImportError: psycopg is not installed (``pip install 'llm-messages[postgres]'``).
        ValueError: ``max_connections`` is less than 1.
    """

    def __init__(self, dsn: str, *, connect_timeout: float = 10.0, max_connections: int = 10) -> None:
        psycopg = _import_psycopg("AsyncPostgresThreadStore")
        if not isinstance(max_connections, int) or max_connections < 1:
            raise ValueError(f"max_connections is at least 1; got {max_connections!r}")
        self._psycopg = psycopg
        self._driver_errors = (psycopg.Error,)
        self._dsn = dsn
        self._where = "?"
        self._connect_timeout = connect_timeout
        self._pool = _Pool(max_connections)
        with self._operation("open", None, writes=False):
            self._where = _where(psycopg, dsn)

    def __repr__(self) -> str:
        return f"AsyncPostgresThreadStore({self._where!r})"

    async def open(self) -> None:
        """Connect now (and build the schema if needed): an unreachable server or a newer schema fails
        here rather than at the first call.

        Raises:
            NotWrittenError: the server cannot be reached, or the schema cannot be made or migrated.
            StoreClosedError: the store was closed.
        """
        with self._operation("open", None, writes=False):
            async with self._connection(writes=False):
                pass

    # -- connections -----------------------------------------------------------------------------------

    async def _connect(self) -> Any:
        psycopg = self._psycopg
        try:
            conn = await psycopg.AsyncConnection.connect(
                self._dsn, autocommit=True, connect_timeout=max(1, round(self._connect_timeout))
            )
        except psycopg.Error as exc:
            raise BackendFailedError(
                f"cannot connect to PostgreSQL at {self._where} ({_first_line(exc)})",
                cause=exc,
                maybe_written=False,
            ) from exc
        try:

            async def execute(sql: str, params: tuple[object, ...] | None) -> list[tuple[Any, ...]]:
                cursor = await conn.execute(sql, params)
                return list(await cursor.fetchall()) if cursor.description else []

            async def roll_back() -> None:
                if not conn.closed and conn.info.transaction_status != conn.info.transaction_status.IDLE:
                    await conn.execute("ROLLBACK")

            await run_async(
                execute, roll_back, migrate(POSTGRES, MIGRATIONS, f"the PostgreSQL database at {self._where}")
            )
        except psycopg.Error as exc:
            await conn.close()
            raise BackendFailedError(
                f"cannot set up the PostgreSQL database at {self._where} ({_first_line(exc)})",
                cause=exc,
                maybe_written=False,
            ) from exc
        except BaseException:
            await conn.close()
            raise
        return conn

    @asynccontextmanager
    async def _connection(self, *, writes: bool) -> AsyncIterator[Any]:
        """A connection of the pool for one call; a psycopg error inside is described here, where the
        connection's state (lost or not) is known."""
        conn = await self._pool.take(self._connect)
        try:
            yield conn
        except self._psycopg.Error as exc:
            what, maybe = _describe(self._where, exc, lost=bool(conn.closed), writes=writes)
            raise BackendFailedError(what, cause=exc, maybe_written=maybe) from exc
        finally:
            await self._pool.give_back(conn)

    @asynccontextmanager
    async def _snapshot(self) -> AsyncIterator[Any]:
        async with self._connection(writes=False) as conn, conn.transaction():
            await conn.execute(_SNAPSHOT)
            yield conn

    async def _local_length(self, conn: Any, thread_id: str, action: Literal["append", "read"]) -> int:
        row = await (await conn.execute(postgres(LOCAL_LENGTH), (thread_id,))).fetchone()
        if row is None:
            raise ThreadNotFoundError(thread_id)
        if row[1] != "local":
            raise not_local(thread_id, action)
        return int(row[0])

    async def _range(self, sql: str, thread_id: str, start: int, stop: int | None) -> tuple[int, list[Any]]:
        async with self._snapshot() as conn:
            lo, hi = bounds(start, stop, await self._local_length(conn, thread_id, "read"))
            if lo >= hi:
                return lo, []
            cursor = await conn.execute(postgres(sql.format(message="message")), (thread_id, lo, hi))
            rows = await cursor.fetchall()
            if len(rows) != hi - lo:
                present = await (await conn.execute(postgres(PRESENT), (thread_id, lo, hi))).fetchall()
                raise missing_position(thread_id, lo, hi, (int(p) for (p,) in present))
        return lo, rows

    # -- the contract ------------------------------------------------------------------------------------

    async def create_thread(self, thread_id: str | None = None) -> str:
        thread_id = new_thread_id() if thread_id is None else check_thread_id(thread_id)
        state = encode_thread(LocalThread(id=thread_id))
        with self._operation("create_thread", thread_id, writes=True):
            try:
                async with self._connection(writes=True) as conn:
                    await conn.execute(_INSERT_THREAD, (thread_id, state))
            except BackendFailedError as exc:
                if isinstance(exc.cause, self._psycopg.errors.UniqueViolation):
                    raise ThreadExistsError(thread_id) from None
                raise
        return thread_id

    async def append(
        self,
        thread_id: str,
        messages: Message | Iterable[Message],
        *,
        ids: Ids = None,
        metadata: Metadata = None,
        skip_existing: bool = False,
    ) -> range:
        thread_id = check_thread_id(thread_id)
        rows = encode_rows(messages, ids, metadata)
        with self._operation("append", thread_id, writes=bool(rows)):
            async with self._connection(writes=bool(rows)) as conn:
                first, added = await self._append_rows(conn, thread_id, rows, skip_existing)
        return range(first, first + added)

    async def _append_rows(
        self, conn: Any, thread_id: str, rows: list[Row], skip_existing: bool
    ) -> tuple[int, int]:
        if not rows:
            return await self._local_length(conn, thread_id, "append"), 0
        if skip_existing:
            async with conn.transaction():
                await conn.execute(_LOCK_THREAD, (thread_id,))
                cursor = await conn.execute(_HELD, (thread_id, [r.id for r in rows]))
                held = {mid for mid, _ in await cursor.fetchall()}
                rows = [row for row in rows if row.id not in held]
                if not rows:
                    return await self._local_length(conn, thread_id, "append"), 0
                return await self._append(conn, thread_id, rows), len(rows)
        return await self._append(conn, thread_id, rows), len(rows)

    async def _append(self, conn: Any, thread_id: str, rows: list[Row]) -> int:
        try:
            row = await (await conn.execute(_APPEND, _append_params(thread_id, rows))).fetchone()
        except self._psycopg.errors.UniqueViolation:
            held = await (await conn.execute(_HELD, (thread_id, [r.id for r in rows]))).fetchone()
            if held is None:
                raise
            raise message_exists(thread_id, held[0], held[1]) from None
        if row is None:
            await self._local_length(conn, thread_id, "append")
            raise ThreadNotFoundError(thread_id)
        return int(row[0])

    async def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop)
        with self._operation("messages", thread_id, writes=False):
            async with self._snapshot() as conn:
                lo, hi = bounds(start, stop, await self._local_length(conn, thread_id, "read"))
                with collector_paused():  # for the whole read, as the sync stores pause it
                    decoded = await self._read_joined(conn, thread_id, lo, hi)
            if decoded is None:
                # A span did not check out: read row by row (a new snapshot), which names the damage.
                first, rows = await self._range(READ_ROWS, thread_id, start, stop)
                return decode_messages(thread_id, first, [text for (text,) in rows])
        return decoded

    async def _read_joined(self, conn: Any, thread_id: str, lo: int, hi: int) -> list[Message] | None:
        """The messages of ``[lo, hi)`` read span by span, or ``None`` when a span does not read. Each span
        is parsed on the loop, between awaits: a span of 2,000 messages takes a few milliseconds."""
        decoded: list[Message] = []
        for first in range(lo, hi, SQLThreadStore._span):
            end = min(first + SQLThreadStore._span, hi)
            joined, count = await (await conn.execute(_READ_SPAN, (thread_id, first, end))).fetchone()
            part = decode_joined("".join(("[", joined, "]")), end - first) if count == end - first else None
            if part is None:
                return None
            decoded += part
        return decoded

    async def records(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[MessageRecord]:
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop, "records")
        with self._operation("records", thread_id, writes=False):
            first, rows = await self._range(READ_RECORDS, thread_id, start, stop)
        return records_of(thread_id, first, [(t, mid, meta, at.astimezone(UTC)) for t, mid, meta, at in rows])

    async def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[str]:
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop, "roles")
        with self._operation("roles", thread_id, writes=False):
            first, rows = await self._range(READ_ROLES, thread_id, start, stop)
        return check_roles(thread_id, first, [role for (role,) in rows])

    async def threads(self) -> list[str]:
        with self._operation("threads", None, writes=False):
            async with self._connection(writes=False) as conn:
                rows = await (await conn.execute(postgres(THREAD_IDS))).fetchall()
        return [thread_id for (thread_id,) in rows]

    async def delete_thread(self, thread_id: str) -> None:
        thread_id = check_thread_id(thread_id)
        with self._operation("delete_thread", thread_id, writes=True):
            async with self._connection(writes=True) as conn:
                if (await conn.execute(_DELETE, (thread_id,))).rowcount == 0:
                    raise ThreadNotFoundError(thread_id)

    async def save_thread(self, thread: LocalThread | RemoteThread) -> None:
        state = encode_thread(thread)
        with self._operation("save_thread", thread.id, writes=True):
            async with self._connection(writes=True) as conn:
                if (await conn.execute(_SAVE, (thread.id, state, thread.kind))).rowcount == 0:
                    row = await (await conn.execute(postgres(KIND), (thread.id,))).fetchone()
                    raise kind_change(thread.id, str(row[0]) if row is not None else "?", thread.kind)

    async def _read_thread(self, operation: str, thread_id: str) -> tuple[Any, ...]:
        with self._operation(operation, thread_id, writes=False):
            async with self._connection(writes=False) as conn:
                row = await (await conn.execute(postgres(READ_THREAD), (thread_id,))).fetchone()
        if row is None:
            raise ThreadNotFoundError(thread_id)
        return tuple(row)

    async def load_thread(self, thread_id: str) -> LocalThread | RemoteThread:
        thread_id = check_thread_id(thread_id)
        state, *_ = await self._read_thread("load_thread", thread_id)
        return decode_thread(thread_id, state)

    async def thread_info(self, thread_id: str) -> ThreadInfo:
        thread_id = check_thread_id(thread_id)
        state, length, created, updated = await self._read_thread("thread_info", thread_id)
        kind = decode_thread(thread_id, state).kind
        return ThreadInfo(thread_id, kind, int(length), created.astimezone(UTC), updated.astimezone(UTC))

    async def aclose(self) -> None:
        with self._operation("close", None, writes=False):
            await self._pool.close()


def _first_line(exc: BaseException) -> str:
    """The first line of a psycopg error (libpq adds hints and context on further lines)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
