"""The SQL of the SQLite and PostgreSQL stores, written once: the statements, and the reads both sync
backends share (``SQLThreadStore``). The writes, whose transactions differ (SQLite's ``BEGIN IMMEDIATE``,
PostgreSQL's one statement per write), are in the backend modules, with their statements here.

The tables: ``thread_store_threads`` (id, state, kind, length, created_at, updated_at, ordinal) and
``thread_store_messages`` (thread_id, position, message, created_at, and the envelope: message_id,
metadata, role), built by the steps of ``_migrations``. Statements are written with ``?`` placeholders,
which ``query`` turns into the driver's.
"""

from __future__ import annotations

import functools
import queue
import threading
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, suppress
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal, TypeVar

from messages._io import collector_paused
from messages._window import ROLE, Snapshot, Window, WindowRow
from messages.errors import CheckpointNotFoundError, CorruptDataError, ThreadKindError, ThreadNotFoundError
from messages.models import Message
from messages.stores._checkpoints import StoredCheckpoint, admit, counts_past_end, decode_checkpoint
from messages.stores._codec import (
    MessageRecord,
    StoredThread,
    bounds,
    check_positions,
    check_thread_id,
    decode_joined,
    decode_messages,
    kind_change,
    missing_position,
    not_local,
    utc_now,
)
from messages.stores.base import ThreadStore, records_of

__all__ = [
    "CHECKPOINT_TAKEN",
    "CHECKPOINT_UPTO",
    "DELETE_CHECKPOINTS",
    "DELETE_COUNTS_AT",
    "DELETE_COVERING",
    "DELETE_MESSAGE",
    "INSERT_CHECKPOINT",
    "INSERT_COUNT",
    "LOCAL_LENGTH",
    "NEWEST_CHECKPOINT",
    "READ_AT",
    "READ_CHECKPOINTS",
    "READ_COUNTS",
    "READ_METADATA",
    "READ_RECORDS",
    "READ_ROLES",
    "READ_ROWS",
    "READ_THREAD",
    "ROLE_AT",
    "SHORTEN",
    "THREAD_IDS",
    "SQLThreadStore",
    "check_roles",
    "postgres",
    "window_parameters",
    "window_snapshot",
    "window_statement",
]

LOCAL_LENGTH = "SELECT length, kind FROM thread_store_threads WHERE id = ?"
READ_THREAD = "SELECT state, length, created_at, updated_at FROM thread_store_threads WHERE id = ?"
THREAD_IDS = "SELECT id FROM thread_store_threads ORDER BY ordinal"
KIND = "SELECT kind FROM thread_store_threads WHERE id = ?"
_RANGE = "FROM thread_store_messages WHERE thread_id = ? AND position >= ? AND position < ?"
READ_ROWS = f"SELECT {{message}} {_RANGE} ORDER BY position"
READ_RECORDS = f"SELECT {{message}}, message_id, metadata, created_at {_RANGE} ORDER BY position"
READ_ROLES = f"SELECT role {_RANGE} ORDER BY position"
READ_METADATA = f"SELECT metadata {_RANGE} ORDER BY position"
PRESENT = f"SELECT position {_RANGE}"

# Checkpoints and token counts (tables of m006 / m005): rows beside the messages, never a message row.
_CHECKPOINT = (
    "SELECT checkpoint_id, base, upto, summary, provenance, created_at FROM thread_store_checkpoints"
)
READ_CHECKPOINTS = f"{_CHECKPOINT} WHERE thread_id = ? ORDER BY upto"
NEWEST_CHECKPOINT = f"{_CHECKPOINT} WHERE thread_id = ? ORDER BY upto DESC LIMIT 1"
CHECKPOINT_TAKEN = "SELECT 1 FROM thread_store_checkpoints WHERE thread_id = ? AND checkpoint_id = ?"
CHECKPOINT_UPTO = "SELECT upto FROM thread_store_checkpoints WHERE thread_id = ? AND checkpoint_id = ?"
INSERT_CHECKPOINT = (
    "INSERT INTO thread_store_checkpoints (thread_id, checkpoint_id, base, upto, summary, provenance, "
    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
DELETE_CHECKPOINTS = (
    "DELETE FROM thread_store_checkpoints WHERE thread_id = ? AND upto >= ? RETURNING checkpoint_id, upto"
)
ROLE_AT = "SELECT role FROM thread_store_messages WHERE thread_id = ? AND position = ?"
READ_COUNTS = (
    "SELECT position, tokens FROM thread_store_token_counts "
    "WHERE thread_id = ? AND counter = ? AND position >= ? AND position < ?"
)
INSERT_COUNT = (
    "INSERT INTO thread_store_token_counts (thread_id, counter, position, tokens) VALUES (?, ?, ?, ?) "
    "ON CONFLICT DO NOTHING"
)

# pop (under the thread's write lock): the newest row read as records() reads it, then removed with its
# token counts and the checkpoints that covered it (those whose upto is past the new length), and the
# thread shortened; written once for the three SQL stores.
READ_AT = (
    "SELECT {message}, message_id, metadata, created_at FROM thread_store_messages "
    "WHERE thread_id = ? AND position = ?"
)
DELETE_MESSAGE = "DELETE FROM thread_store_messages WHERE thread_id = ? AND position = ?"
DELETE_COUNTS_AT = "DELETE FROM thread_store_token_counts WHERE thread_id = ? AND position = ?"
DELETE_COVERING = "DELETE FROM thread_store_checkpoints WHERE thread_id = ? AND upto > ?"
SHORTEN = "UPDATE thread_store_threads SET length = length - 1, updated_at = ? WHERE id = ?"


# A window read (``messages._window.Window``) in one statement, so one snapshot: a row for the thread
# (position -2: its kind and length), one for its newest checkpoint when asked (-1), and one per message of
# the first `lead` and the last `tail` positions. The two ranges are two index range scans (an OR of the
# two scans the thread). A row is as wide as the request needs (each column of each row costs the driver an
# object): position, role (or kind, or the checkpoint's id), the count saved under the counter (or the
# length, or the checkpoint's upto), the stored text (or the checkpoint's summary); then, for a read that
# weighs messages, the message's id (or the checkpoint's base); then, for a read of the checkpoint, its
# provenance and time.
_WINDOW_ROWS = (
    "SELECT m.position, m.role, {tokens}, {message}{extra} "
    "FROM thread_store_messages m{join} WHERE m.thread_id = {id} AND m.position {range}"
)
_WINDOW_COUNT_JOIN = (
    " LEFT JOIN thread_store_token_counts c ON c.thread_id = {id} AND c.counter = {counter} "
    "AND c.position = m.position"
)
_WINDOW_CHECKPOINT = (
    "SELECT -1, checkpoint_id, upto, summary, base, provenance, created_at FROM thread_store_checkpoints "
    "WHERE thread_id = {id} ORDER BY upto DESC LIMIT 1"
)


@functools.cache
def window_statement(
    dialect: Literal["sqlite", "postgres"], *, checkpoint: bool, counted: bool, weighted: bool
) -> str:
    """The statement of a window read in ``dialect``; its parameters are ``window_parameters``'s."""
    width = 7 if checkpoint else 5 if weighted else 4
    if dialect == "sqlite":
        names = {"id": "?1", "counter": "?2", "lead": "?3", "tail": "?4"}
        message, greatest = "CAST(m.message AS BLOB)", "max"  # bytes: see sqlite._READ_SPAN
        nulls = ", NULL" * (width - 3)
        head = f"SELECT -2, kind, length{nulls} FROM thread_store_threads WHERE id = ?1"
        length = "(SELECT length FROM thread_store_threads WHERE id = ?1)"

        def member(sql: str) -> str:
            return f"SELECT * FROM ({sql})"

    else:
        names = {"id": "%(id)s", "counter": "%(counter)s", "lead": "%(lead)s", "tail": "%(tail)s"}
        message, greatest = "m.message", "greatest"
        nulls = "".join((", NULL::text", ", NULL::text", ", NULL::text", ", NULL::timestamptz")[: width - 3])
        head = (
            "WITH t AS (SELECT length, kind FROM thread_store_threads WHERE id = %(id)s) "
            f"SELECT -2::bigint, kind, length{nulls} FROM t"
        )
        length = "(SELECT length FROM t)"

        def member(sql: str) -> str:
            return f"({sql})"

    rows = functools.partial(
        _WINDOW_ROWS.format,
        tokens="c.tokens" if counted else "NULL",
        message=message,
        extra=(", m.message_id" if width >= 5 else "") + (", NULL, NULL" if width == 7 else ""),
        join=_WINDOW_COUNT_JOIN.format(**names) if counted else "",
        id=names["id"],
    )
    parts = [head]
    floor = f"{length} - {names['tail']}"
    if checkpoint:
        parts.append(member(_WINDOW_CHECKPOINT.format(**names)))
        # The tail never reaches below the newest checkpoint: the rows before it are not fetched.
        newest = "SELECT max(upto) FROM thread_store_checkpoints WHERE thread_id = {id}".format(**names)
        floor = f"{greatest}({floor}, coalesce(({newest}), 0))"
    parts.append(member(rows(range=f"< {names['lead']}")))
    parts.append(member(rows(range=f">= {greatest}({names['lead']}, {floor})")))
    return " UNION ALL ".join(parts)


def window_parameters(
    dialect: Literal["sqlite", "postgres"], thread_id: str, request: Window, tail: int
) -> tuple[object, ...] | dict[str, object]:
    """The parameters of ``window_statement`` for ``request``, ``tail`` rows from the end."""
    if dialect == "sqlite":
        return (thread_id, request.counter, request.lead, tail)
    return {"id": thread_id, "counter": request.counter, "lead": request.lead, "tail": tail}


def window_snapshot(
    thread_id: str,
    request: Window,
    tail: int,
    fetched: Iterable[tuple[Any, ...]],
    timestamp: Callable[[Any], datetime],
) -> Snapshot:
    """The ``Snapshot`` of the rows ``window_statement`` fetched (``tail`` from the end): the thread's length
    and newest checkpoint, and its rows, checked (every position of both ranges there, each with a role)."""
    length: int | None = None
    kind = None
    checkpoint = None
    rows: dict[int, WindowRow] = {}
    for row in fetched:
        position = row[0]
        if position >= 0:
            rows[position] = row  # the row as it is: (position, role, tokens, text[, message id, ...])
        elif position == -2:
            kind, length = row[1], int(row[2])
        else:
            _, checkpoint_id, upto, summary, base, provenance, at = row
            stored = StoredCheckpoint(checkpoint_id, base, int(upto), summary, provenance, timestamp(at))
            checkpoint = decode_checkpoint(thread_id, stored)
    if length is None:
        raise ThreadNotFoundError(thread_id)
    if kind != "local":
        raise not_local(thread_id, "read")
    first = max(request.lead, length - tail, checkpoint.upto if checkpoint is not None else 0)
    ranges = ((0, min(request.lead, length)), (first, length))
    if len(rows) != sum(max(0, hi - lo) for lo, hi in ranges):
        for lo, hi in ranges:
            if any(p not in rows for p in range(lo, hi)):
                raise missing_position(thread_id, lo, hi, rows)
    damaged = sorted(p for p, row in rows.items() if not isinstance(row[ROLE], str))
    if damaged:  # a row whose dump did not read when the store was upgraded has no role: named
        check_roles(thread_id, damaged[0], [rows[damaged[0]][ROLE]])
    return Snapshot(length, checkpoint, rows)


def postgres(sql: str) -> str:
    """``sql`` with psycopg's placeholders."""
    return sql.replace("?", "%s")


def check_roles(thread_id: str, lo: int, roles: Sequence[object]) -> list[str]:
    """``roles`` (of positions ``lo``, ...) as strings; ``CorruptDataError`` naming the first row that has
    none (its dump did not read when the store was upgraded)."""
    for offset, role in enumerate(roles):
        if not isinstance(role, str):
            position = lo + offset
            raise CorruptDataError(
                f"thread {thread_id!r}, position {position}: the stored message has no role in its envelope "
                "(its dump did not read when the store was upgraded to keep roles); the row is damaged: "
                f"restore it or delete the thread (messages(thread_id, 0, {position}) still reads what "
                "comes before)",
                thread_id=thread_id,
                position=position,
            )
    return list(roles)  # type: ignore[arg-type]  # checked above


class SQLThreadStore(ThreadStore):
    """What the sync SQL backends share: the reads, written once.

    A read is fetched in spans of ``_span`` rows, each one string joined by the database (no Python object
    per row) and checked (every position present, in order) before it is parsed; while pydantic parses a
    span, a helper thread fetches the next ones (``_fetch_ahead``). The garbage collector is paused for the
    whole read (``collector_paused``), not span by span: its collections are set off by the count of new
    objects, and each would walk the messages of every span read so far.
    """

    _placeholder: ClassVar[str] = "?"
    _message_column: ClassVar[str] = "message"
    """The message column as the row-by-row reads select it."""
    _span: ClassVar[int] = 2_000
    """How many rows one statement of a read fetches. Parsing 100,000 messages in spans of 1,000 to 2,000
    takes a sixth less time than in one array (the parse stays in the CPU's caches); much smaller spans
    cost a statement each."""
    _fetch_ahead: ClassVar[bool] = True
    """Whether a helper thread fetches the next spans while this one parses the last. The database's work
    then runs beside pydantic's: PostgreSQL's in the server, SQLite's in sqlite3, which releases the GIL
    while it steps. On 100,000 messages that takes a sixth off the read when a core is free, and costs
    little when none is."""

    @abstractmethod
    def _connection(self) -> Any:
        """The calling thread's DB-API connection."""

    @abstractmethod
    def _snapshot(self, conn: Any) -> AbstractContextManager[object]:
        """A read transaction on ``conn``: one snapshot for every statement inside it."""

    @abstractmethod
    def _fetch_joined(self, conn: Any, thread_id: str, lo: int, hi: int) -> str | bytes | None:
        """The stored rows of positions ``[lo, hi)``, in order, as one JSON array (text or UTF-8 bytes);
        ``None`` when the rows do not check out (a position missing or out of order, a row that is not
        text): then the row-by-row read finds and names the damage."""

    def _timestamp(self, value: Any) -> datetime:
        """A timestamp column as the driver returns it, as a ``datetime`` in UTC."""
        return value.astimezone(UTC)  # type: ignore[no-any-return]  # a driver that returns datetimes

    def _query(self, conn: Any, sql: str, params: tuple[object, ...]) -> Any:
        return conn.execute(sql.replace("?", self._placeholder), params)

    def _local_length(self, conn: Any, thread_id: str, action: Literal["append", "read", "pop"]) -> int:
        """The length of the thread, which must be a local one."""
        row = self._query(conn, LOCAL_LENGTH, (thread_id,)).fetchone()
        if row is None:
            raise ThreadNotFoundError(thread_id)
        if row[1] != "local":
            raise not_local(thread_id, action)
        return int(row[0])

    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop)
        with self._operation("messages", thread_id, writes=False):
            conn = self._connection()
            with self._snapshot(conn):
                lo, hi = bounds(start, stop, self._local_length(conn, thread_id, "read"))
                decoded = self._read_joined(conn, thread_id, lo, hi)
        if decoded is not None:
            return decoded
        # A span did not check out: read row by row (a new snapshot), which names the damaged position.
        first, rows = self._read_rows(thread_id, start, stop)
        return decode_messages(thread_id, first, rows)

    def _read_joined(self, conn: Any, thread_id: str, lo: int, hi: int) -> list[Message] | None:
        """The messages of ``[lo, hi)`` read span by span, or ``None`` when a span does not read."""
        spans = [(first, min(first + self._span, hi)) for first in range(lo, hi, self._span)]

        def fetch(span: tuple[int, int]) -> str | bytes | None:
            return self._fetch_joined(conn, thread_id, *span)

        decoded: list[Message] = []
        with collector_paused(), _prefetched(fetch, spans, ahead=self._fetch_ahead) as fetched:
            for (first, end), joined in zip(spans, fetched, strict=True):
                part = None if joined is None else decode_joined(joined, end - first)
                if part is None:
                    return None
                decoded += part
        return decoded

    _dialect: ClassVar[Literal["sqlite", "postgres"]] = "sqlite"

    def _window_snapshot(self, thread_id: str, request: Window, tail: int) -> Snapshot:
        statement = window_statement(
            self._dialect,
            checkpoint=request.checkpoint,
            counted=bool(request.counter),
            weighted=request.weighted,
        )
        parameters = window_parameters(self._dialect, thread_id, request, tail)
        fetched = self._connection().execute(statement, parameters).fetchall()
        snapshot = window_snapshot(thread_id, request, tail, fetched, self._timestamp)
        if request.checkpoint:  # a compacting read: what this process appends next is logged
            self._memo.watch(thread_id, snapshot.length)
            snapshot.source = self._memo
        return snapshot

    def _read_range(self, sql: str, thread_id: str, start: int, stop: int | None) -> tuple[int, list[Any]]:
        """The rows ``sql`` selects from ``[start:stop]`` of the thread, from one snapshot; a missing
        position raises ``CorruptDataError``."""
        conn = self._connection()
        with self._snapshot(conn):
            lo, hi = bounds(start, stop, self._local_length(conn, thread_id, "read"))
            if lo >= hi:
                return lo, []
            rows = list(self._query(conn, sql.format(message=self._message_column), (thread_id, lo, hi)))
            if len(rows) != hi - lo:
                present = self._query(conn, PRESENT, (thread_id, lo, hi))
                raise missing_position(thread_id, lo, hi, (int(p) for (p,) in present))
        return lo, rows

    def _read_rows(self, thread_id: str, start: int, stop: int | None) -> tuple[int, list[object]]:
        lo, rows = self._read_range(READ_ROWS, thread_id, start, stop)
        return lo, [text for (text,) in rows]

    def _read_records(
        self, thread_id: str, start: int, stop: int | None
    ) -> tuple[int, list[tuple[Any, ...]]]:
        lo, rows = self._read_range(READ_RECORDS, thread_id, start, stop)
        return lo, [(text, mid, meta, self._timestamp(at)) for text, mid, meta, at in rows]

    def _read_roles(self, thread_id: str, start: int, stop: int | None) -> list[str]:
        lo, rows = self._read_range(READ_ROLES, thread_id, start, stop)
        return check_roles(thread_id, lo, [role for (role,) in rows])

    def _read_metadata(self, thread_id: str, start: int, stop: int | None) -> tuple[int, list[object]]:
        lo, rows = self._read_range(READ_METADATA, thread_id, start, stop)
        return lo, [meta for (meta,) in rows]

    def _read_thread(self, thread_id: str) -> StoredThread:
        row = self._query(self._connection(), READ_THREAD, (thread_id,)).fetchone()
        if row is None:
            raise ThreadNotFoundError(thread_id)
        state, length, created, updated = row
        return StoredThread(state, int(length), self._timestamp(created), self._timestamp(updated))

    def _thread_ids(self) -> list[str]:
        return [thread_id for (thread_id,) in self._query(self._connection(), THREAD_IDS, ())]

    # -- checkpoints and token counts: written once for both sync SQL backends ----------------------------

    @abstractmethod
    def _locked(self, conn: Any, thread_id: str) -> AbstractContextManager[object]:
        """A write transaction on ``conn`` holding the thread's write lock (the lock its appends take)."""

    def _stamp(self, value: datetime) -> object:
        """A timestamp as the driver stores it."""
        return value

    def _stored_checkpoint(self, row: Sequence[Any]) -> StoredCheckpoint:
        checkpoint_id, base, upto, summary, provenance, created = row
        return StoredCheckpoint(checkpoint_id, base, int(upto), summary, provenance, self._timestamp(created))

    def _insert_checkpoint(
        self, thread_id: str, checkpoint_id: str, base: str | None, upto: int, summary: str, provenance: str
    ) -> StoredCheckpoint:
        conn = self._connection()
        now = utc_now()
        with self._locked(conn, thread_id):
            length = self._local_length(conn, thread_id, "append")
            newest = self._query(conn, NEWEST_CHECKPOINT, (thread_id,)).fetchone()
            role = None
            if isinstance(upto, int) and 0 <= upto < length:
                found = self._query(conn, ROLE_AT, (thread_id, upto)).fetchone()
                role = found[0] if found is not None else None
            taken = self._query(conn, CHECKPOINT_TAKEN, (thread_id, checkpoint_id)).fetchone() is not None
            newest_row = self._stored_checkpoint(newest) if newest is not None else None
            upto = admit(thread_id, checkpoint_id, base, upto, length, newest_row, role, taken)
            self._query(
                conn,
                INSERT_CHECKPOINT,
                (thread_id, checkpoint_id, base, upto, summary, provenance, self._stamp(now)),
            )
        return StoredCheckpoint(checkpoint_id, base, upto, summary, provenance, now)

    def _read_checkpoints(self, thread_id: str, *, newest: bool) -> list[StoredCheckpoint]:
        conn = self._connection()
        with self._snapshot(conn):
            self._local_length(conn, thread_id, "read")
            rows = self._query(conn, NEWEST_CHECKPOINT if newest else READ_CHECKPOINTS, (thread_id,))
            return [self._stored_checkpoint(row) for row in rows]

    def _delete_checkpoint(self, thread_id: str, checkpoint_id: str) -> list[str]:
        conn = self._connection()
        with self._locked(conn, thread_id):
            self._local_length(conn, thread_id, "append")
            found = self._query(conn, CHECKPOINT_UPTO, (thread_id, checkpoint_id)).fetchone()
            if found is None:
                raise CheckpointNotFoundError(thread_id, checkpoint_id)
            removed = list(self._query(conn, DELETE_CHECKPOINTS, (thread_id, found[0])))
        return [cid for cid, _ in sorted(removed, key=lambda row: -int(row[1]))]

    def _read_token_counts(
        self, thread_id: str, counter: str, start: int, stop: int | None
    ) -> tuple[int, int, dict[int, int]]:
        conn = self._connection()
        with self._snapshot(conn):
            lo, hi = bounds(start, stop, self._local_length(conn, thread_id, "read"))
            if lo >= hi:
                return lo, hi, {}
            rows = self._query(conn, READ_COUNTS, (thread_id, counter, lo, hi))
            return lo, hi, {int(position): int(tokens) for position, tokens in rows}

    def _write_token_counts(self, thread_id: str, counter: str, counts: dict[int, int]) -> None:
        conn = self._connection()
        with self._locked(conn, thread_id):
            past = counts_past_end(thread_id, counts, self._local_length(conn, thread_id, "append"))
            if past is not None:
                raise past
            conn.cursor().executemany(  # sqlite3's and psycopg's cursors both have executemany
                INSERT_COUNT.replace("?", self._placeholder),
                [(thread_id, counter, position, tokens) for position, tokens in counts.items()],
            )

    def _pop_record(
        self, thread_id: str, check: Callable[[MessageRecord], object] | None
    ) -> MessageRecord | None:
        conn = self._connection()
        with self._locked(conn, thread_id):
            length = self._local_length(conn, thread_id, "pop")
            if length == 0:
                return None
            position = length - 1
            row = self._query(conn, READ_AT.format(message=self._message_column), (thread_id, position))
            found = row.fetchone()
            if found is None:
                raise missing_position(thread_id, position, length, ())
            text, message_id, metadata, created = found
            # Decoded before anything is removed: a row that no longer reads raises, and the transaction
            # rolls back with it in place.
            [popped] = records_of(
                thread_id, position, [(text, message_id, metadata, self._timestamp(created))]
            )
            if check is not None:
                check(popped)  # what it raises rolls the transaction back too
            self._query(conn, DELETE_MESSAGE, (thread_id, position))
            self._query(conn, DELETE_COUNTS_AT, (thread_id, position))
            self._query(conn, DELETE_COVERING, (thread_id, position))
            self._query(conn, SHORTEN, (self._stamp(utc_now()), thread_id))
        return popped

    def _kind_conflict(self, conn: Any, thread_id: str, kind: str) -> ThreadKindError:
        """The error for a ``save_thread`` of a ``kind`` thread that the upsert refused."""
        row = self._query(conn, KIND, (thread_id,)).fetchone()
        return kind_change(thread_id, str(row[0]) if row is not None else "?", kind)


_T = TypeVar("_T")
_S = TypeVar("_S")


class _prefetched(AbstractContextManager[Iterator[_T]]):  # noqa: N801 - used as a function
    """``fetch(span)`` for each span, in order; with ``ahead``, the next one fetched by a helper thread
    while the caller works on the last (a single span is fetched inline, with no thread). Leaving the block
    (early, or on an error) waits for the helper, so the connection is the caller's again afterwards."""

    _DEPTH = 4
    """How many fetched spans may wait for the caller: enough that the two threads rarely wait for each
    other, few enough to bound the memory (a span of 2,000 messages is a few hundred kB)."""

    def __init__(self, fetch: Callable[[_S], _T], spans: Sequence[_S], *, ahead: bool) -> None:
        self._fetch = fetch
        self._spans = spans
        self._ahead = ahead
        self._results: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=self._DEPTH)
        self._stop = threading.Event()
        self._worker: threading.Thread | None = None

    def __enter__(self) -> Iterator[_T]:
        if not self._ahead or len(self._spans) <= 1:
            return (self._fetch(span) for span in self._spans)
        self._worker = threading.Thread(target=self._run, name="messages-store-read", daemon=True)
        self._worker.start()
        return self._take()

    def _run(self) -> None:
        try:
            for span in self._spans:
                if self._stop.is_set():
                    return
                self._results.put((True, self._fetch(span)))
        except BaseException as exc:  # handed to the caller, which raises it
            self._results.put((False, exc))

    def _take(self) -> Iterator[_T]:
        for _ in self._spans:
            ok, value = self._results.get()
            if not ok:
                raise value
            yield value

    def __exit__(self, *exc_info: object) -> None:
        worker = self._worker
        if worker is None:
            return
        self._stop.set()
        while worker.is_alive():  # unblock a put() on the full queue until the helper sees the stop
            with suppress(queue.Empty):
                self._results.get(timeout=0.05)
        worker.join()
