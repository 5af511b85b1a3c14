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
  async store (psycopg's ``AsyncConnection``) a small pool of them per process and per event loop, one per
  call in flight up to ``max_connections``. A connection the server dropped is replaced at next use, so
  the store works again once the server is back, without being reopened; one the server closed while it
  sat idle (a restart, ``pg_terminate_backend``, an idle timeout) is found out before a statement is sent
  on it (its socket has something to read: the server's goodbye) and replaced then, so a
  restart under an idle store costs no call, and raises no ``MaybeWrittenError`` for a statement that
  never left.
* Failures raise ``NotWrittenError`` or ``MaybeWrittenError`` naming the operation and the thread, with
  psycopg's error chained. What psycopg tells apart: a connection that could not be opened sent nothing
  (not written); an error the server reported, on a connection that is still good, rolled its statement
  back (not written: every write here is one transaction); a connection lost while a write was out
  (psycopg marks it ``broken``) may have been lost after the server committed, before the reply came back:
  ``MaybeWrittenError``.
* The schema is built by the migration steps (``MIGRATIONS``), applied under an
  advisory lock (so that processes starting together do not race) and recorded by name in
  ``thread_store_migrations``; a database with a step this version does not know was written by a newer
  version, and is refused. Sync and async stores run the same runner.
"""

from __future__ import annotations

import math
import os
import select
import threading
import traceback
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC
from typing import Any, Literal

from pydantic import JsonValue

from messages._io import collector_paused
from messages._window import Part, ReadPlan, SaveCounts, Window, adrive, plan_read
from messages.errors import (
    CheckpointNotFoundError,
    InvalidArgumentError,
    StoreError,
    ThreadExistsError,
    ThreadNotFoundError,
)
from messages.models import Message
from messages.stores._bounds import Bound, Bounded, check_timeout, current_bound
from messages.stores._checkpoints import (
    Checkpoint,
    Provenance,
    StoredCheckpoint,
    admit,
    check_checkpoint_id,
    check_counter,
    check_counts,
    counts_past_end,
    decode_checkpoint,
    encode_checkpoint,
)
from messages.stores._codec import (
    MessageRecord,
    Row,
    ThreadInfo,
    bounds,
    check_flag,
    check_number,
    check_positions,
    check_thread_id,
    decode_joined,
    decode_messages,
    decode_metadata,
    decode_thread,
    encode_rows,
    encode_thread,
    kind_change,
    message_exists,
    missing_position,
    not_local,
    utc_now,
)
from messages.stores._connections import PerThread
from messages.stores._failures import BackendFailedError, ClosedError
from messages.stores._migrations import POSTGRES, POSTGRES_MIGRATIONS, Migration, migrate, run_async, run_sync
from messages.stores._sql import (
    CHECKPOINT_TAKEN,
    CHECKPOINT_UPTO,
    DELETE_CHECKPOINTS,
    DELETE_COUNTS_AT,
    DELETE_COVERING,
    DELETE_MESSAGE,
    INSERT_CHECKPOINT,
    INSERT_COUNT,
    KIND,
    LOCAL_LENGTH,
    NEWEST_CHECKPOINT,
    PRESENT,
    READ_AT,
    READ_CHECKPOINTS,
    READ_COUNTS,
    READ_METADATA,
    READ_RECORDS,
    READ_ROLES,
    READ_ROWS,
    READ_THREAD,
    ROLE_AT,
    SHORTEN,
    THREAD_IDS,
    SQLThreadStore,
    check_roles,
    postgres,
    window_parameters,
    window_snapshot,
    window_statement,
)
from messages.stores._turns import Pending
from messages.stores.base import Ids, LoopStore, Metadata, ReadAnswers, _Release, records_of, started_writing
from messages.threads import LocalThread, RemoteThread, as_message_list, new_thread_id

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
# The same, saving the token counts a window read made (``_memo``) in the same statement: only where the
# message counted still holds its position (its id, where the read knew it), and only when the append is made.
_APPEND_COUNTED = _APPEND.replace(
    "\nSELECT first FROM bumped",
    """, counted AS (
    INSERT INTO thread_store_token_counts (thread_id, counter, position, tokens)
    SELECT %(id)s, c.counter, c.position, c.tokens
    FROM bumped, unnest(%(counters)s::text[], %(positions)s::bigint[], %(tokens)s::bigint[],
                        %(counted_ids)s::text[]) AS c (counter, position, tokens, message_id)
    WHERE EXISTS (SELECT 1 FROM thread_store_messages m WHERE m.thread_id = %(id)s
                  AND m.position = c.position AND (c.message_id IS NULL OR m.message_id = c.message_id))
    ON CONFLICT DO NOTHING
)
SELECT first FROM bumped""",
)
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
# The server's bounds for the session, set before anything else runs on a new connection (the migrations'
# advisory lock included): SET rather than the startup packet's `options`, which poolers such as PgBouncer
# refuse.
_SESSION = (
    "SELECT set_config('statement_timeout', %s, false), "
    "set_config('idle_in_transaction_session_timeout', %s, false)"
)

TIMEOUT = 30.0
"""The default bound of a call (seconds): the stores' ``timeout``."""
CONNECT_TIMEOUT = 10.0
"""The default wait for a new connection (seconds), when neither ``connect_timeout`` nor the DSN sets one."""
KEEPALIVES = {"keepalives": "1", "keepalives_idle": "10", "keepalives_interval": "5", "keepalives_count": "3"}
"""libpq's TCP keepalive settings the stores add to a DSN that sets none of its own (each is kept where the
DSN sets it): an idle connection whose peer has gone silent is found out after about 25 s (10 s idle, then
3 probes 5 s apart), and replaced before a call is sent on it."""


def _server_bound(seconds: float) -> float:
    """The server's ``statement_timeout`` for a call bound of ``seconds``: a second less (a quarter less
    below 4 s), so that a statement the server keeps waiting (a lock held elsewhere) ends with the server's
    answer, the connection kept and nothing written, before the client's bound drops the connection."""
    return seconds - min(1.0, seconds / 4)


def _session_settings(seconds: float) -> tuple[str, str]:
    """The session's ``statement_timeout`` and ``idle_in_transaction_session_timeout`` (milliseconds) for a
    call bound of ``seconds``. A session left idle inside a transaction longer than a call may last has
    lost its client (a partition mid-call): the server ends it, and so frees the thread's lock it held."""
    return str(math.ceil(_server_bound(seconds) * 1000)), str(math.ceil(seconds * 1000))


def _conninfo(psycopg: Any, dsn: str, timeout: float | None) -> str:
    """``dsn`` with libpq's TCP settings added where it sets none: the keepalives (``KEEPALIVES``) and
    ``tcp_user_timeout`` (the call's bound: data the server's kernel has not acknowledged by then fails the
    connection). What the DSN sets wins."""
    given = psycopg.conninfo.conninfo_to_dict(dsn)
    added = {key: value for key, value in KEEPALIVES.items() if key not in given}
    if timeout is not None and "tcp_user_timeout" not in given:
        added["tcp_user_timeout"] = str(math.ceil(timeout * 1000))
    return psycopg.conninfo.make_conninfo(dsn, **added) if added else dsn


def _connect_timeout(psycopg: Any, dsn: str, given: float | None) -> float:
    """The wait for a new connection: ``connect_timeout`` when given, else the DSN's, else
    ``CONNECT_TIMEOUT``."""
    if given is not None:
        return given
    value = psycopg.conninfo.conninfo_to_dict(dsn).get("connect_timeout")
    try:
        return float(value) if value is not None and float(value) > 0 else CONNECT_TIMEOUT
    except ValueError:
        return CONNECT_TIMEOUT  # psycopg names a bad value when it connects


def _connect_within(connect_timeout: float, bound: Bound | None) -> int:
    """libpq's ``connect_timeout`` for a connection made in a call with ``bound``: whole seconds (libpq
    waits at least 2), no longer than the time the call has left."""
    if bound is not None:
        connect_timeout = min(connect_timeout, bound.remaining())
    return max(1, math.ceil(connect_timeout))


_WATCHED: list[Any] = []
"""``_watched_connection``'s class, made once (psycopg is imported with the first store)."""


def _watched_connection(psycopg: Any) -> Any:
    """psycopg's ``Connection``, its connection attempts watched by the bound of the call that makes them:
    each socket libpq connects through is shut down at the call's deadline, so a connection that cannot be
    had ends within the bound, not at libpq's ``connect_timeout`` (whole seconds, at least 2). psycopg's
    connect hands the sockets out through ``_connect_gen`` (the generator its ``connect`` waits on); a
    psycopg without it connects as it is, bounded by ``connect_timeout`` alone."""
    if not _WATCHED:
        base = psycopg.Connection
        if not hasattr(base, "_connect_gen"):
            _WATCHED.append(base)
            return base

        class Watched(base):  # type: ignore[misc, valid-type]
            @classmethod
            def _connect_gen(cls, *args: Any, **kwargs: Any) -> Any:
                attempt = super()._connect_gen(*args, **kwargs)
                bound = current_bound()
                if bound is None:
                    return (yield from attempt)
                try:
                    wait = next(attempt)
                    while True:  # each wait names the socket (libpq may change it between two waits)
                        bound.watch(wait[0], watchdog=True)
                        wait = attempt.send((yield wait))
                except StopIteration as done:
                    return done.value

        _WATCHED.append(Watched)
    return _WATCHED[0]


def _append_statement(thread_id: str, rows: list[Row], counts: Pending) -> tuple[str, dict[str, object]]:
    """The append of ``rows``, saving ``counts`` with it, and its parameters."""
    params: dict[str, object] = {
        "id": thread_id,
        "count": len(rows),
        "messages": [r.text for r in rows],
        "ids": [r.id for r in rows],
        "metadata": [r.metadata for r in rows],
        "roles": [r.role for r in rows],
    }
    if not counts:
        return _APPEND, params
    counters, positions, tokens, ids = zip(*counts, strict=True)
    params.update(
        counters=list(counters), positions=list(positions), tokens=list(tokens), counted_ids=list(ids)
    )
    return _APPEND_COUNTED, params


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


def _crossed(where: str, bound: Bound) -> str:
    """What a call that crossed its ``bound`` while it waited on its connection's socket met."""
    return (
        f"no answer from PostgreSQL at {where} within the call's bound ({bound.seconds:g} s, the store's "
        "timeout): the network or the server went silent, and the call's connection was closed"
    )


def _bounded(
    store: PostgresThreadStore | AsyncPostgresThreadStore, operation: str, thread_id: str | None, writes: bool
) -> Bounded:
    """The block of a PostgreSQL store's call (``_Failures._operation``): bounded by the store's
    ``timeout``, a crossing said with the server's address."""
    return Bounded(
        store,
        operation,
        thread_id,
        writes,
        seconds=store._timeout,
        crossed=lambda b: _crossed(store._where, b),
    )


def _late(where: str, bound: Bound, waited_for: str) -> BackendFailedError:
    """The error of a call whose bound passed while it waited for ``waited_for``: nothing was sent."""
    return BackendFailedError(
        f"{waited_for} at {where} did not come within the call's bound ({bound.seconds:g} s, the store's "
        "timeout)",
        cause=None,
        maybe_written=False,
    )


def _not_connected(where: str, exc: Exception) -> BackendFailedError:
    """The error of a connection attempt that failed (``exc``): nothing was sent. The attempt's frames in
    ``exc``'s traceback are cleared first: they hold its socket (psycopg's connection generator), which
    would otherwise stay open, half-connected, for as long as anyone keeps the error."""
    traceback.clear_frames(exc.__traceback__)
    return BackendFailedError(
        f"cannot connect to PostgreSQL at {where} ({_first_line(exc)})", cause=exc, maybe_written=False
    )


def _rows(cursor: Any) -> list[tuple[Any, ...]]:
    return list(cursor.fetchall()) if cursor.description else []


def _check_dsn(dsn: object, store: str) -> None:
    if not isinstance(dsn, str):
        raise InvalidArgumentError(
            f"{store}(): dsn is a PostgreSQL connection string (postgresql://user@host:port/db, or "
            f"key=value pairs), not a {type(dsn).__name__}",
            argument="dsn",
        )


def _idle(conn: Any) -> bool:
    """Whether a connection is open and outside any transaction."""
    return not conn.closed and conn.info.transaction_status == conn.info.transaction_status.IDLE


def _in_transaction(conn: Any) -> bool:
    """Whether a connection is open and inside a transaction (one left open, or failed)."""
    return not conn.closed and conn.info.transaction_status != conn.info.transaction_status.IDLE


def _stale(conn: Any) -> bool:
    """Whether a connection kept for the next call can no longer serve it: closed, left inside a
    transaction, or with something to read on its socket. Nothing comes to an idle connection of ours (no
    statement is out, and we LISTEN to nothing), so something to read is the server's goodbye: the FATAL it
    sends when it shuts down or ends the session (a restart, ``pg_terminate_backend``, an idle timeout),
    or the end of the stream. Checked before a call's first statement is sent (a zero-timeout poll, about a
    microsecond), so such a connection is replaced instead of failing the call."""
    if not _idle(conn):
        return True
    try:
        fd = conn.pgconn.socket
    except Exception:  # psycopg.OperationalError: the connection has no socket
        return True
    return _readable(fd)


def _readable(fd: int) -> bool:
    """Whether the socket ``fd`` has something to read (or is at its end), without waiting."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    return bool(select.select([fd], [], [], 0)[0])  # Windows: no poll(), and no descriptor limit


class PostgresThreadStore(SQLThreadStore):
    """Threads in the PostgreSQL database at ``dsn`` (``postgresql://user@host:port/db`` or key=value).

    The store connects, and builds or migrates the schema, when it is made; each thread of the process
    then gets a connection of its own at its first call. Close it with ``store.close()`` or a ``with``
    block. Its methods are those of every ``ThreadStore`` (``SQLiteThreadStore`` shows them in use).

    Every call is bounded ("Bounds" in How the stores are built): one that has not ended ``timeout``
    seconds after it started fails, whatever the network or the server does meanwhile. The server is asked
    to end a statement a little sooner (the session's ``statement_timeout`` and
    ``idle_in_transaction_session_timeout``), so a statement kept waiting there (a lock held elsewhere)
    fails with its connection kept and nothing written; at the bound itself the store closes the call's
    connection, which ends a wait on a silent network or server. TCP keepalives and ``tcp_user_timeout``
    are added to the DSN where it sets none (``KEEPALIVES``): a silent peer under an idle connection is
    found out before a call is sent on it.

    Args:
        dsn: The database, as libpq reads a connection string: a URI
            (``postgresql://user:password@host:5432/db``) or ``key=value`` pairs (``"host=db dbname=bots"``);
            what it leaves out comes from libpq's environment variables (``PGHOST``, ``PGPASSWORD``, ...).
            What it sets of ``connect_timeout``, the keepalives and ``tcp_user_timeout`` is kept (the store
            adds only what it leaves out).
        timeout: The bound of each call, in seconds (default ``TIMEOUT``, 30); ``None``: no bound (the
            server's and the DSN's own timeouts only).
        connect_timeout: The longest wait for a new connection, in seconds (libpq's: whole seconds, at
            least 2), within the call's bound; ``None``: the DSN's ``connect_timeout``, else
            ``CONNECT_TIMEOUT`` (10).

    Raises:
        StoreError: psycopg is not installed (``pip install 'llm-messages[postgres]'``).
        InvalidArgumentError: ``dsn`` is not a string, ``timeout`` is not a number of seconds above 0 (or
            ``None``), or ``connect_timeout`` is not a number of seconds.
        NotWrittenError: the server cannot be reached, or its schema cannot be made or migrated.

    Examples:
        ```python
        from messages import NotWrittenError, PostgresThreadStore

        try:  # nothing listens on port 1: the store connects when made, so this fails here
            PostgresThreadStore("postgresql://bot@127.0.0.1:1/chats", connect_timeout=2)
        except NotWrittenError as exc:  # nothing was written: safe to retry later
            assert "cannot connect to PostgreSQL at 127.0.0.1:1/chats" in str(exc)
        ```
    """

    _placeholder = "%s"
    _dialect = "postgres"

    def __init__(
        self, dsn: str, *, timeout: float | None = TIMEOUT, connect_timeout: float | None = None
    ) -> None:
        super().__init__()
        _check_dsn(dsn, "PostgresThreadStore")
        self._timeout = check_timeout(timeout, "timeout", "PostgresThreadStore")
        if connect_timeout is not None:
            check_number(connect_timeout, "connect_timeout", "PostgresThreadStore", minimum=0)
        psycopg = _import_psycopg("PostgresThreadStore")
        self._psycopg = psycopg
        self._driver_errors = (psycopg.Error,)
        self._dsn = dsn
        self._where = "?"
        self._connections: PerThread[Any] = PerThread(
            self._open,
            lambda conn: conn.close(),
            # Not closed, not broken, not left inside a transaction, not closed by the server meanwhile.
            usable=lambda conn: not _stale(conn),
        )
        with self._operation("open", None, writes=False):
            self._where = _where(psycopg, dsn)
            self._connect_timeout = _connect_timeout(psycopg, dsn, connect_timeout)
            self._conninfo = _conninfo(psycopg, dsn, self._timeout)
            # Connect now: an unreachable server or a newer schema fails here. (Not `_connection()`, which
            # fails a call whose connection took its whole bound before its statements: the open has none.)
            self._connections.get()

    def __repr__(self) -> str:
        return f"PostgresThreadStore({self._where!r})"

    def _operation(self, operation: str, thread_id: str | None, *, writes: bool) -> Bounded:
        return _bounded(self, operation, thread_id, writes)

    # -- connections -----------------------------------------------------------------------------------

    def _connection(self) -> Any:
        """This thread's connection, watched by the call's bound (its socket shut down at the deadline)."""
        bound = current_bound()
        conn = self._connections.get()
        if bound is not None:
            if bound.remaining() <= 0:  # its connection took the call's whole bound: nothing was sent
                raise _late(self._where, bound, "the connection")
            bound.watch(conn.pgconn.socket, watchdog=True)
            bound.handed = True
        return conn

    def _open(self) -> Any:
        psycopg = self._psycopg
        bound = current_bound()
        try:
            conn = _watched_connection(psycopg).connect(
                self._conninfo, autocommit=True, connect_timeout=_connect_within(self._connect_timeout, bound)
            )
        except psycopg.Error as exc:
            raise _not_connected(self._where, exc) from exc
        try:
            if bound is not None:
                bound.watch(conn.pgconn.socket, watchdog=True)  # the set-up is part of the call
            if self._timeout is not None:
                conn.execute(_SESSION, _session_settings(self._timeout))
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
        counts = self._memo.take_counts(thread_id)
        try:
            row = conn.execute(*_append_statement(thread_id, rows, counts)).fetchone()
        except BaseException as exc:
            self._memo.give_back(thread_id, counts)
            if not isinstance(exc, self._psycopg.errors.UniqueViolation):
                raise
            held = conn.execute(_HELD, (thread_id, [r.id for r in rows])).fetchone()
            if held is None:
                raise
            raise message_exists(thread_id, held[0], held[1]) from None
        if row is None:
            # No local thread of that id: say whether there is none or a remote one.
            self._local_length(conn, thread_id, "append")
            raise ThreadNotFoundError(thread_id)  # it was deleted, and made again, meanwhile
        return int(row[0])

    @contextmanager
    def _locked(self, conn: Any, thread_id: str) -> Iterator[None]:
        with conn.transaction():
            conn.execute(_LOCK_THREAD, (thread_id,))
            yield

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
    if _in_transaction(conn):
        conn.execute("ROLLBACK")


class _Idle:
    """The pool's part for one event loop: a connection (psycopg's ``AsyncConnection``) is awaited on the
    loop it was made in, and so is the semaphore that bounds them."""

    __slots__ = ("connections", "slots")

    def __init__(self, slots: Any) -> None:
        self.slots = slots
        """An ``asyncio.Semaphore`` of ``size``: one slot per call in flight on this loop."""
        self.connections: list[Any] = []
        """The connections waiting for the next call on this loop."""


class _Pool:
    """The async store's connections, per event loop: idle ones kept for the next call, at most ``size``
    open at once on each loop, none shared between two calls in flight, none carried across a fork. An
    idle connection is checked (``_stale``) before a call gets it, and replaced when the server has closed
    it. The connections of a loop that has closed are dropped (their sockets closed: they can no longer be
    awaited) when another loop first uses the pool, and at ``close``."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()  # the loops may run in several threads
        self._loops: dict[Any, _Idle] = {}
        self._pid = os.getpid()
        self.closed = False
        """Set when the store starts closing: a call that gets a slot afterwards raises ``ClosedError``."""

    def _here(self) -> _Idle:
        import asyncio  # loaded with the first async call, not with `import messages`

        loop = asyncio.get_running_loop()
        here = self._loops.get(loop)
        if here is not None and self._pid == os.getpid():
            return here
        with self._lock:
            if self._pid != os.getpid():  # a forked child: the parent's connections are not ours to use
                self._loops, self._pid = {}, os.getpid()
            for gone in [other for other in self._loops if other.is_closed()]:
                for conn in self._loops.pop(gone).connections:
                    _drop(conn)
            return self._loops.setdefault(loop, _Idle(asyncio.Semaphore(self.size)))

    async def take(self, connect: Any, within: float | None) -> Any:
        """A connection for one call: an idle one that is still good, or a new one (``connect()``), once
        fewer than ``size`` calls have one on this loop; ``TimeoutError`` when none came free ``within``
        seconds."""
        import asyncio

        here = self._here()
        if self.closed:
            raise ClosedError
        if within is None:
            await here.slots.acquire()
        else:
            async with asyncio.timeout(max(0.0, within)):
                await here.slots.acquire()
        try:
            if self.closed:  # the store started closing while this call waited: it never starts
                raise ClosedError
            while here.connections:
                conn = here.connections.pop()
                if not _stale(conn):
                    return conn
                await conn.close()
            return await connect()
        except BaseException:
            here.slots.release()
            raise

    async def give_back(self, conn: Any) -> None:
        import asyncio

        here = self._loops.get(asyncio.get_running_loop())
        if here is None or self._pid != os.getpid():  # forked meanwhile: not ours
            return
        here.slots.release()
        if _idle(conn) and not self.closed:
            here.connections.append(conn)
        else:
            await conn.close()

    async def close(self) -> None:
        """Close every idle connection: this loop's awaited, other loops' (no call of the store is running
        on them by now) at once."""
        import asyncio

        current = asyncio.get_running_loop()
        with self._lock:
            self.closed = True
            loops, self._loops = (self._loops if self._pid == os.getpid() else {}), {}
        for loop, here in loops.items():
            for conn in here.connections:
                if loop is current:
                    await conn.close()
                else:
                    _drop(conn)


@contextmanager
def _shut_at_deadline(conn: Any, bound: Bound | None) -> Iterator[None]:
    """Inside: ``conn``'s socket is shut down at ``bound``'s deadline by the running event loop (a wait on
    it then ends at once with psycopg's error). The timer and the watch end with the block: the connection
    may then serve another call."""
    if bound is None:
        yield
        return
    import asyncio

    fd = conn.pgconn.socket
    bound.watch(fd, watchdog=False)
    timer = asyncio.get_running_loop().call_later(max(0.0, bound.remaining()), bound.expire)
    try:
        yield
    finally:
        timer.cancel()
        bound.unwatch(fd)


def _drop(conn: Any) -> None:
    """Close an idle ``AsyncConnection`` without awaiting it, from whichever thread (libpq's ``finish``:
    what its ``close()`` does once no statement is out)."""
    conn.pgconn.finish()


class AsyncPostgresThreadStore(LoopStore):
    """``PostgresThreadStore`` for asyncio, on psycopg's ``AsyncConnection``: the same database, contract,
    SQL and errors, natively async (no thread). It connects at the first call, or at ``await
    store.open()``; up to ``max_connections`` calls run at once on each event loop, each on a connection of
    its own. Close it with ``await store.aclose()`` (or ``async with``).

    It works from more than one event loop (successive ``asyncio.run()`` calls, a loop per test, loops in
    several threads at once), as the SQLite and in-memory stores do: each loop gets connections of its own
    (a connection is awaited on the loop it was made in), and those of a loop that has closed are dropped.
    A cancelled call that was waiting for a connection stops; one whose write has started runs to its end
    before the ``CancelledError`` goes on.

    Every call is bounded as ``PostgresThreadStore``'s are, its wait for a free connection (one of
    ``max_connections``) and for a new one included; at the bound the event loop closes the call's
    connection, which ends a wait on a silent network or server (psycopg's own answer to a cancelled wait,
    a cancel request sent through the same silence, could not).

    Args:
        dsn: The database, as libpq reads a connection string: a URI
            (``postgresql://user:password@host:5432/db``) or ``key=value`` pairs (``"host=db dbname=bots"``);
            what it leaves out comes from libpq's environment variables (``PGHOST``, ``PGPASSWORD``, ...).
            What it sets of ``connect_timeout``, the keepalives and ``tcp_user_timeout`` is kept (the store
            adds only what it leaves out).
        timeout: The bound of each call, in seconds (default ``TIMEOUT``, 30); ``None``: no bound.
        connect_timeout: The longest wait for a new connection, in seconds, within the call's bound;
            ``None``: the DSN's ``connect_timeout``, else ``CONNECT_TIMEOUT`` (10).
        max_connections: How many calls run at once on each event loop, each on a connection of its own;
            a further call waits for one of them to end (within its bound).

    Raises:
        StoreError: psycopg is not installed (``pip install 'llm-messages[postgres]'``).
        InvalidArgumentError: ``max_connections`` is not an int of at least 1, ``timeout`` is not a number
            of seconds above 0 (or ``None``), or ``connect_timeout`` is not a number of seconds.
        NotWrittenError: the DSN does not read as a PostgreSQL connection string.

    Examples:
        ```python
        import asyncio

        from messages import AsyncPostgresThreadStore, NotWrittenError


        async def main():
            # Made without connecting: nothing listens on port 1, and nothing fails yet.
            async with AsyncPostgresThreadStore("postgresql://bot@127.0.0.1:1/chats") as store:
                try:
                    await store.open()  # connect now rather than at the first call
                except NotWrittenError as exc:  # nothing was written: safe to retry later
                    assert "cannot connect to PostgreSQL at 127.0.0.1:1/chats" in str(exc)


        asyncio.run(main())
        ```
    """

    def __init__(
        self,
        dsn: str,
        *,
        timeout: float | None = TIMEOUT,
        connect_timeout: float | None = None,
        max_connections: int = 10,
    ) -> None:
        super().__init__()
        _check_dsn(dsn, "AsyncPostgresThreadStore")
        self._timeout = check_timeout(timeout, "timeout", "AsyncPostgresThreadStore")
        if connect_timeout is not None:
            check_number(connect_timeout, "connect_timeout", "AsyncPostgresThreadStore", minimum=0)
        check_number(max_connections, "max_connections", "AsyncPostgresThreadStore", minimum=1, whole=True)
        psycopg = _import_psycopg("AsyncPostgresThreadStore")
        self._psycopg = psycopg
        self._driver_errors = (psycopg.Error,)
        self._dsn = dsn
        self._where = "?"
        self._pool = _Pool(max_connections)
        with self._operation("open", None, writes=False):
            self._where = _where(psycopg, dsn)
            self._connect_timeout = _connect_timeout(psycopg, dsn, connect_timeout)
            self._conninfo = _conninfo(psycopg, dsn, self._timeout)

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
            async with self._connection(writes=False, statements=False):
                pass

    # -- connections -----------------------------------------------------------------------------------

    def _operation(self, operation: str, thread_id: str | None, *, writes: bool) -> Bounded:
        return _bounded(self, operation, thread_id, writes)

    async def _connect(self) -> Any:
        import asyncio

        psycopg = self._psycopg
        bound = current_bound()
        conn = None
        try:
            # Bounded by the loop as well: libpq's connect_timeout is whole seconds, at least 2. (Cancelling
            # a connection attempt sends nothing to the server, unlike cancelling a statement.)
            async with asyncio.timeout(None if bound is None else max(0.0, bound.remaining())):
                conn = await psycopg.AsyncConnection.connect(
                    self._conninfo,
                    autocommit=True,
                    connect_timeout=_connect_within(self._connect_timeout, bound),
                )
        except TimeoutError:
            # Raised below, out of this block: the cancelled attempt's socket, held by psycopg's frames in
            # this error's traceback, is closed once they are let go.
            pass
        except psycopg.Error as exc:
            raise _not_connected(self._where, exc) from exc
        if conn is None:
            assert bound is not None
            raise _late(self._where, bound, "a new connection")
        try:

            async def execute(sql: str, params: tuple[object, ...] | None) -> list[tuple[Any, ...]]:
                cursor = await conn.execute(sql, params)
                return list(await cursor.fetchall()) if cursor.description else []

            async def roll_back() -> None:
                if _in_transaction(conn):
                    await conn.execute("ROLLBACK")

            with _shut_at_deadline(conn, bound):  # the set-up is part of the call
                if self._timeout is not None:
                    await conn.execute(_SESSION, _session_settings(self._timeout))
                await run_async(
                    execute,
                    roll_back,
                    migrate(POSTGRES, MIGRATIONS, f"the PostgreSQL database at {self._where}"),
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
    async def _connection(self, *, writes: bool, statements: bool = True) -> AsyncIterator[Any]:
        """A connection of the pool for one call, watched by the call's bound (its socket shut down at the
        deadline); a psycopg error inside is described here, where the connection's state (lost or not)
        is known. A call whose new connection took its whole bound fails before its statements, unless it
        has none to send (``statements=False``: ``open()``, whose work is done once it is connected)."""
        bound = current_bound()
        try:
            conn = await self._pool.take(self._connect, None if bound is None else bound.remaining())
        except TimeoutError:
            assert bound is not None
            raise _late(
                self._where, bound, f"a free connection (of max_connections={self._pool.size})"
            ) from None
        try:
            if statements and bound is not None and bound.remaining() <= 0:  # a new connection took it all
                raise _late(self._where, bound, "a new connection")
            with _shut_at_deadline(conn, bound):
                if bound is not None:
                    bound.handed = True
                if writes:
                    started_writing()  # a statement goes out now: a cancelled caller waits for its end
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

    async def _local_length(self, conn: Any, thread_id: str, action: Literal["append", "read", "pop"]) -> int:
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
        skip_existing = check_flag(skip_existing, "skip_existing", "append")
        listed = as_message_list(messages)
        rows = encode_rows(listed, ids, metadata)
        with self._operation("append", thread_id, writes=bool(rows)):
            async with self._connection(writes=bool(rows)) as conn:
                first, added = await self._append_rows(conn, thread_id, rows, skip_existing)
        if added:
            if added == len(rows):
                self._memo.appended(thread_id, first, listed, [row.text for row in rows])
            else:  # some were left out (skip_existing): the log cannot say which
                self._memo.forget(thread_id)
        return range(first, first + added)

    async def _aread_window(self, thread_id: str, plan: ReadPlan) -> Part:
        """A window's read (``messages._window.plan_read``) answered by this store, as
        ``ThreadStore._read_window`` answers it: each ``Window`` request one statement."""
        thread_id = check_thread_id(thread_id)
        with self._operation("read", thread_id, writes=False):
            answers = ReadAnswers(self._memo, thread_id, self._defer_counts)

            async def answer(request: object) -> object:
                if not isinstance(request, Window):
                    return answers.answer(request)
                tail = answers.tail(request)
                statement = window_statement(
                    "postgres",
                    checkpoint=request.checkpoint,
                    counted=bool(request.counter),
                    weighted=request.weighted,
                )
                async with self._connection(writes=False) as conn:
                    cursor = await conn.execute(
                        statement, window_parameters("postgres", thread_id, request, tail)
                    )
                    fetched = await cursor.fetchall()
                snapshot = window_snapshot(thread_id, request, tail, fetched, lambda at: at.astimezone(UTC))
                if request.checkpoint:  # a compacting read: what this process appends next is logged
                    self._memo.watch(thread_id, snapshot.length)
                    snapshot.source = self._memo
                return answers.took(snapshot)

            part = await adrive(plan_read(plan), answer)
        part.thread_id = thread_id
        return part

    def _defer_counts(self, thread_id: str, request: SaveCounts) -> None:
        self._memo.defer_counts(thread_id, request.counter, request.counts, request.ids)

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
        counts = self._memo.take_counts(thread_id)
        try:
            row = await (await conn.execute(*_append_statement(thread_id, rows, counts))).fetchone()
        except BaseException as exc:
            self._memo.give_back(thread_id, counts)
            if not isinstance(exc, self._psycopg.errors.UniqueViolation):
                raise
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

    async def metadata(
        self, thread_id: str, start: int = 0, stop: int | None = None
    ) -> list[dict[str, JsonValue]]:
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop, "metadata")
        with self._operation("metadata", thread_id, writes=False):
            first, rows = await self._range(READ_METADATA, thread_id, start, stop)
        with collector_paused():
            return [decode_metadata(thread_id, first + offset, meta) for offset, (meta,) in enumerate(rows)]

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

    async def pop(
        self, thread_id: str, *, check: Callable[[MessageRecord], object] | None = None
    ) -> MessageRecord | None:
        thread_id = check_thread_id(thread_id)
        with self._operation("pop", thread_id, writes=True):
            async with self._locked(thread_id) as conn:
                length = await self._local_length(conn, thread_id, "pop")
                if length == 0:
                    return None
                position = length - 1
                found = await self._fetchone(conn, READ_AT.format(message="message"), (thread_id, position))
                if found is None:
                    raise missing_position(thread_id, position, length, ())
                text, message_id, metadata, created = found
                # Decoded before anything is removed (a row that no longer reads stays), as the sync store.
                [popped] = records_of(
                    thread_id, position, [(text, message_id, metadata, created.astimezone(UTC))]
                )
                if check is not None:
                    check(popped)  # what it raises rolls the transaction back too
                for sql in (DELETE_MESSAGE, DELETE_COUNTS_AT, DELETE_COVERING):
                    await conn.execute(postgres(sql), (thread_id, position))
                await conn.execute(postgres(SHORTEN), (utc_now(), thread_id))
        self._memo.forget(thread_id)  # as the sync store's pop
        return popped

    # -- checkpoints and token counts (the SQL of the sync stores, awaited) ---------------------------------

    @asynccontextmanager
    async def _locked(self, thread_id: str) -> AsyncIterator[Any]:
        """A connection inside a transaction holding the thread's write lock, for one write."""
        async with self._connection(writes=True) as conn, conn.transaction():
            await conn.execute(_LOCK_THREAD, (thread_id,))
            yield conn

    async def _fetchone(self, conn: Any, sql: str, params: tuple[object, ...]) -> Any:
        return await (await conn.execute(postgres(sql), params)).fetchone()

    async def add_checkpoint(
        self,
        thread_id: str,
        summary: Message,
        *,
        upto: int,
        base: str | None,
        provenance: Provenance | None = None,
        checkpoint_id: str | None = None,
    ) -> Checkpoint:
        thread_id = check_thread_id(thread_id)
        checkpoint_id, text, meta = encode_checkpoint(thread_id, summary, provenance, checkpoint_id)
        if base is not None:
            base = check_checkpoint_id(base)
        now = utc_now()
        with self._operation("add_checkpoint", thread_id, writes=True):
            async with self._locked(thread_id) as conn:
                length = await self._local_length(conn, thread_id, "append")
                newest = await self._fetchone(conn, NEWEST_CHECKPOINT, (thread_id,))
                role = None
                if isinstance(upto, int) and 0 <= upto < length:
                    found = await self._fetchone(conn, ROLE_AT, (thread_id, upto))
                    role = found[0] if found is not None else None
                taken = await self._fetchone(conn, CHECKPOINT_TAKEN, (thread_id, checkpoint_id)) is not None
                upto = admit(
                    thread_id,
                    checkpoint_id,
                    base,
                    upto,
                    length,
                    _stored(newest) if newest else None,
                    role,
                    taken,
                )
                await conn.execute(
                    postgres(INSERT_CHECKPOINT), (thread_id, checkpoint_id, base, upto, text, meta, now)
                )
        return decode_checkpoint(thread_id, StoredCheckpoint(checkpoint_id, base, upto, text, meta, now))

    async def _checkpoint_rows(self, operation: str, thread_id: str, sql: str) -> list[StoredCheckpoint]:
        with self._operation(operation, thread_id, writes=False):
            async with self._snapshot() as conn:
                await self._local_length(conn, thread_id, "read")
                rows = await (await conn.execute(postgres(sql), (thread_id,))).fetchall()
        return [_stored(row) for row in rows]

    async def checkpoints(self, thread_id: str) -> list[Checkpoint]:
        thread_id = check_thread_id(thread_id)
        rows = await self._checkpoint_rows("checkpoints", thread_id, READ_CHECKPOINTS)
        return [decode_checkpoint(thread_id, row) for row in rows]

    async def latest_checkpoint(self, thread_id: str) -> Checkpoint | None:
        thread_id = check_thread_id(thread_id)
        rows = await self._checkpoint_rows("latest_checkpoint", thread_id, NEWEST_CHECKPOINT)
        return decode_checkpoint(thread_id, rows[0]) if rows else None

    async def delete_checkpoint(self, thread_id: str, checkpoint_id: str) -> list[str]:
        thread_id = check_thread_id(thread_id)
        checkpoint_id = check_checkpoint_id(checkpoint_id)
        with self._operation("delete_checkpoint", thread_id, writes=True):
            async with self._locked(thread_id) as conn:
                await self._local_length(conn, thread_id, "append")
                found = await self._fetchone(conn, CHECKPOINT_UPTO, (thread_id, checkpoint_id))
                if found is None:
                    raise CheckpointNotFoundError(thread_id, checkpoint_id)
                cursor = await conn.execute(postgres(DELETE_CHECKPOINTS), (thread_id, found[0]))
                removed = await cursor.fetchall()
        return [cid for cid, _ in sorted(removed, key=lambda row: -int(row[1]))]

    async def token_counts(
        self, thread_id: str, counter: str, start: int = 0, stop: int | None = None
    ) -> list[int | None]:
        thread_id = check_thread_id(thread_id)
        counter = check_counter(counter)
        start, stop = check_positions(start, stop, "token_counts")
        with self._operation("token_counts", thread_id, writes=False):
            async with self._snapshot() as conn:
                lo, hi = bounds(start, stop, await self._local_length(conn, thread_id, "read"))
                rows = []
                if lo < hi:
                    cursor = await conn.execute(postgres(READ_COUNTS), (thread_id, counter, lo, hi))
                    rows = await cursor.fetchall()
        found = {int(position): int(tokens) for position, tokens in rows}
        return [found.get(position) for position in range(lo, hi)]

    async def save_token_counts(self, thread_id: str, counter: str, counts: Mapping[int, int]) -> None:
        thread_id = check_thread_id(thread_id)
        counter = check_counter(counter)
        checked = check_counts(counts)
        if not checked:
            return
        with self._operation("save_token_counts", thread_id, writes=True):
            async with self._locked(thread_id) as conn:
                past = counts_past_end(
                    thread_id, checked, await self._local_length(conn, thread_id, "append")
                )
                if past is not None:
                    raise past
                async with conn.cursor() as cursor:
                    await cursor.executemany(
                        postgres(INSERT_COUNT), [(thread_id, counter, p, t) for p, t in checked.items()]
                    )

    async def aclose(self) -> None:
        """Refuse new calls (``StoreClosedError``, and so for the calls still waiting for a connection),
        wait for the calls under way on every loop to end, then close the connections. When it returns,
        no call of this store can still write.

        Raises:
            BackendError: the database failed while the connections were closed (the store is closed all
                the same).

        A cancellation of the awaiting task is let through once the store is closed.
        """
        self._pool.closed = True
        cancelled = await self._calls.aclose_and_wait()
        with _Release(self, "close", None, False):
            await self._pool.close()
        if cancelled:
            import asyncio

            raise asyncio.CancelledError


def _stored(row: Any) -> StoredCheckpoint:
    """A checkpoint row (``_sql._CHECKPOINT``'s columns) as the codec reads it."""
    checkpoint_id, base, upto, summary, provenance, created = row
    return StoredCheckpoint(checkpoint_id, base, int(upto), summary, provenance, created.astimezone(UTC))


def _first_line(exc: BaseException) -> str:
    """The first line of a psycopg error (libpq adds hints and context on further lines)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
