"""``PostgresThreadStore``: threads in a PostgreSQL database, shared by many processes on many machines.

Needs psycopg 3 (``pip install 'llm-messages[postgres]'``), imported when a store is made, never by
``import messages``.

* An append is one statement: it bumps the thread's length (``UPDATE ... RETURNING``, which locks the
  thread's row until commit, so concurrent appends to one thread queue up and get contiguous positions) and
  inserts the messages from one array parameter, in the same implicit transaction. One round trip, whatever
  the batch size; all or nothing.
* A read takes one ``REPEATABLE READ`` snapshot for the length and the rows, and fetches the range in
  spans, each one string (``string_agg(message, ',' ORDER BY position)``, whose order PostgreSQL
  guarantees, with the count of its rows), the next span fetched while the last one is parsed.
* Timestamps are ``timestamptz``, read back in UTC whatever the session's ``timezone``.
* One connection per thread and per process (a connection never crosses a fork); a connection the server
  dropped is replaced at next use, so the store works again once the server is back, without being
  reopened.
* Failures raise ``NotWrittenError`` or ``MaybeWrittenError`` naming the operation and the thread, with
  psycopg's error chained. What psycopg tells apart: a connection that could not be opened sent nothing
  (not written); an error the server reported, on a connection that is still good, rolled its statement
  back (not written: every write here is one statement in its own transaction); a connection lost while
  a write was out (psycopg marks it ``broken``) may have been lost after the server committed, before the
  reply came back: ``MaybeWrittenError``.
* The schema is built by a list of small migration steps, applied under an advisory lock (so that processes
  starting together do not race) and recorded by name in ``thread_store_migrations``; a database with a step
  this version does not know was written by a newer version, and is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from messages.errors import StoreError, ThreadExistsError, ThreadNotFoundError
from messages.stores._connections import PerThread
from messages.stores._failures import BackendFailedError
from messages.stores.base import SQLThreadStore

__all__ = ["MIGRATIONS", "PostgresThreadStore"]

Migration = Callable[[Any], None]

MIGRATIONS: list[Migration] = []
"""The schema steps, in order; each is applied once and recorded by its function name."""

# pg_advisory_xact_lock key for migrations: any constant; this one spells "msgs".
_MIGRATION_LOCK = 0x6D736773


def migration(step: Migration) -> Migration:
    """Register ``step`` as the next schema migration."""
    MIGRATIONS.append(step)
    return step


@migration
def m001_create_threads(conn: Any) -> None:
    conn.execute(
        """
        CREATE TABLE thread_store_threads (
            ordinal bigint GENERATED ALWAYS AS IDENTITY,  -- creation order, for threads()
            id text PRIMARY KEY,
            state text NOT NULL,                           -- the thread value's JSON
            length bigint NOT NULL DEFAULT 0,
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now()
        )
        """
    )


@migration
def m002_create_messages(conn: Any) -> None:
    # text, not jsonb: the dump is kept byte for byte, and neither parsed on write nor rebuilt on read.
    conn.execute(
        """
        CREATE TABLE thread_store_messages (
            thread_id text NOT NULL REFERENCES thread_store_threads (id) ON DELETE CASCADE,
            position bigint NOT NULL,
            message text NOT NULL,
            created_at timestamptz NOT NULL,
            PRIMARY KEY (thread_id, position)
        )
        """
    )


@migration
def m003_add_thread_kind(conn: Any) -> None:
    # The kind of the saved thread value, where every append and read can check it without parsing the
    # value: only a local thread has messages here. A saved value's JSON starts with its kind.
    conn.execute("ALTER TABLE thread_store_threads ADD COLUMN kind text NOT NULL DEFAULT 'local'")
    conn.execute(
        "UPDATE thread_store_threads SET kind = 'remote' WHERE starts_with(state, '{\"kind\":\"remote\"')"
    )


_APPEND = """
WITH bumped AS (
    UPDATE thread_store_threads SET length = length + %(count)s, updated_at = now()
    WHERE id = %(id)s AND kind = 'local'
    RETURNING length - %(count)s AS first, updated_at
), added AS (
    INSERT INTO thread_store_messages (thread_id, position, message, created_at)
    SELECT %(id)s, bumped.first + item.ordinality - 1, item.message, bumped.updated_at
    FROM bumped, unnest(%(messages)s::text[]) WITH ORDINALITY AS item (message, ordinality)
)
SELECT first FROM bumped
"""

# A span of a read: one string, in position order (an ORDER BY inside the aggregate is guaranteed), and the
# count of its rows, which says whether every position is there. The brackets are added here, not by the
# server: a concatenation there copies the span once more, and costs the server as much again as the
# aggregate.
_READ_SPAN = (
    "SELECT string_agg(message, ',' ORDER BY position), count(*) "
    "FROM thread_store_messages WHERE thread_id = %s AND position >= %s AND position < %s"
)


class PostgresThreadStore(SQLThreadStore):
    """Threads in the PostgreSQL database at ``dsn`` (``postgresql://user@host:port/db`` or key=value)."""

    _placeholder = "%s"

    def __init__(self, dsn: str, *, connect_timeout: float = 10.0) -> None:
        try:
            import psycopg
        except ImportError as exc:
            raise StoreError(
                "PostgresThreadStore needs psycopg 3: pip install 'llm-messages[postgres]'"
            ) from exc
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
            try:
                info = psycopg.conninfo.conninfo_to_dict(dsn)
            except psycopg.Error as exc:
                raise BackendFailedError(
                    f"the DSN does not read as a PostgreSQL connection string ({_first_line(exc)})",
                    cause=exc,
                    maybe_written=False,
                ) from exc
            self._where = f"{info.get('host', 'localhost')}:{info.get('port', 5432)}/{info.get('dbname', '')}"
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
            self._migrate(conn)
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

    def _migrate(self, conn: Any) -> None:
        known = [step.__name__ for step in MIGRATIONS]
        if self._applied(conn) == set(known):
            return
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS thread_store_migrations "
                "(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            applied = self._applied(conn)
            unknown = sorted(applied - set(known))
            if unknown:
                raise StoreError(
                    "this PostgreSQL database was written by a newer version of llm-messages: it has the "
                    f"schema migrations {', '.join(unknown)}, which this version does not know; upgrade "
                    "llm-messages to use it"
                )
            for step in MIGRATIONS:
                if step.__name__ not in applied:
                    step(conn)
                    conn.execute("INSERT INTO thread_store_migrations (name) VALUES (%s)", (step.__name__,))

    @staticmethod
    def _applied(conn: Any) -> set[str]:
        exists = conn.execute("SELECT to_regclass('thread_store_migrations')").fetchone()[0]
        if exists is None:
            return set()
        return {name for (name,) in conn.execute("SELECT name FROM thread_store_migrations")}

    def _close(self) -> None:
        # Every connection this store opened, in any thread of this process.
        self._connections.close_all()

    def _describe(self, exc: Exception, *, writes: bool) -> tuple[str, bool]:
        conn = self._connections.peek()
        if conn is None or conn.closed:  # psycopg counts a broken connection as closed
            if writes:
                return (
                    f"the connection to PostgreSQL at {self._where} was lost while the statement was out "
                    f"({_first_line(exc)}), so the server may have committed it before the reply was "
                    "lost",
                    True,
                )
            return f"the connection to PostgreSQL at {self._where} was lost ({_first_line(exc)})", False
        sqlstate = getattr(exc, "sqlstate", None)
        code = f"SQLSTATE {sqlstate}: " if sqlstate else ""
        return f"PostgreSQL at {self._where} refused the statement ({code}{_first_line(exc)})", False

    # -- the contract ------------------------------------------------------------------------------------

    @contextmanager
    def _snapshot(self, conn: Any) -> Iterator[None]:
        with conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield

    def _fetch_joined(self, conn: Any, thread_id: str, lo: int, hi: int) -> str | None:
        joined, count = conn.execute(_READ_SPAN, (thread_id, lo, hi)).fetchone()
        return "".join(("[", joined, "]")) if count == hi - lo else None

    def _insert_thread(self, thread_id: str, state: str) -> None:
        try:
            self._connection().execute(
                "INSERT INTO thread_store_threads (id, state) VALUES (%s, %s)", (thread_id, state)
            )
        except self._psycopg.errors.UniqueViolation:
            raise ThreadExistsError(thread_id) from None

    def _append_rows(self, thread_id: str, rows: list[str]) -> int:
        conn = self._connection()
        if not rows:
            return self._local_length(conn, thread_id, "append")
        row = conn.execute(_APPEND, {"id": thread_id, "count": len(rows), "messages": rows}).fetchone()
        if row is None:
            # No local thread of that id: say whether there is none or a remote one.
            self._local_length(conn, thread_id, "append")
            raise ThreadNotFoundError(thread_id)  # it was deleted, and made again, meanwhile
        return int(row[0])

    def _thread_ids(self) -> list[str]:
        rows = self._connection().execute("SELECT id FROM thread_store_threads ORDER BY ordinal")
        return [thread_id for (thread_id,) in rows]

    def _delete_thread(self, thread_id: str) -> None:
        cursor = self._connection().execute("DELETE FROM thread_store_threads WHERE id = %s", (thread_id,))
        if cursor.rowcount == 0:
            raise ThreadNotFoundError(thread_id)

    def _write_state(self, thread_id: str, state: str, kind: str) -> None:
        conn = self._connection()
        # One statement: the thread is created, or updated if it is of the same kind, or left alone.
        written = conn.execute(
            "INSERT INTO thread_store_threads (id, state, kind) VALUES (%s, %s, %s) "
            "ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, updated_at = now() "
            "WHERE thread_store_threads.kind = EXCLUDED.kind",
            (thread_id, state, kind),
        ).rowcount
        if written == 0:
            raise self._kind_conflict(conn, thread_id, kind)


def _first_line(exc: BaseException) -> str:
    """The first line of a psycopg error (libpq adds hints and context on further lines)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
