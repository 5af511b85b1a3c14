"""The ``ThreadStore`` contract that every backend keeps, and the pieces the backends share.

The contract (tests/stores/ runs one suite, unchanged, against every backend):

* A store holds threads by id. ``create_thread()`` makes an empty ``LocalThread`` (a random id unless one
  is given; a taken id raises ``ThreadExistsError``); ``save_thread(thread)`` stores a ``LocalThread`` or
  ``RemoteThread`` value (its ``context_state`` included), creating the thread if needed, and
  ``load_thread(thread_id)`` gives it back as the same type.
* ``append(thread_id, messages)`` adds one message or an iterable of them at the end, all or nothing, and
  returns the positions they got. Positions are assigned atomically: appends from many threads, processes
  or machines never interleave inside one call, and none is lost or doubled. Once ``append`` returns, the
  messages are committed: a process killed afterwards (or during a later append) loses none of them, and a
  process killed during an append leaves all of that call's messages or none, never a torn one.
* ``messages(thread_id, start=0, stop=None)`` reads in order; ``start`` and ``stop`` slice by position as
  a list slice does (negative values count from the end).
* ``threads()`` lists every thread id, oldest first; ``delete_thread`` removes a thread and its messages;
  ``thread_info`` reads the envelope (kind, length, timestamps).
* Every method that takes a ``thread_id`` raises ``ThreadNotFoundError`` when no such thread exists.
* Stored data that no longer reads (invalid JSON, a dump that no longer validates as a ``Message``, a
  missing position) raises ``CorruptDataError`` naming the thread and the position; the thread's other
  positions and every other thread still read.

Messages are stored as their lossless dump (``model_dump_json()``, the OpenAI Chat Completions shape) and
read back as equal, fresh values. Ids, positions and timestamps are the store's envelope, not message
fields (DESIGN.md section 7).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, ClassVar, Literal, Self

from pydantic import ConfigDict, TypeAdapter, ValidationError

from messages._io import MESSAGE_LIST
from messages.errors import CorruptDataError, InvalidThreadIdError, ThreadNotFoundError
from messages.models import Message
from messages.threads import LocalThread, RemoteThread, as_message_list, new_thread_id, parse_thread

__all__ = [
    "MAX_THREAD_ID_LENGTH",
    "SQLThreadStore",
    "StoredThread",
    "ThreadInfo",
    "ThreadStore",
    "bounds",
    "check_thread_id",
    "decode_messages",
    "decode_thread",
    "encode_messages",
    "encode_thread",
    "utc_now",
]

MAX_THREAD_ID_LENGTH = 255
"""The longest thread id a store accepts (every backend indexes it)."""


@dataclass(frozen=True)
class ThreadInfo:
    """A thread's envelope in its store."""

    id: str
    """The thread's id."""
    kind: Literal["local", "remote"]
    """Which kind of thread value is saved under the id."""
    length: int
    """How many messages the thread holds."""
    created_at: datetime
    """When the thread was created (UTC)."""
    updated_at: datetime
    """When a message was last appended or the thread last saved (UTC)."""


@dataclass(frozen=True)
class StoredThread:
    """A thread's row as a backend reads it, before it is decoded: what ``load_thread`` and ``thread_info``
    are made from."""

    state: object
    """The saved thread value's JSON text (anything else is damage, reported by ``decode_thread``)."""
    length: int
    created_at: datetime
    updated_at: datetime


class ThreadStore(ABC):
    """Where threads and their messages live: the contract of every backend (see the module docstring).

    The public methods check ids, encode what is written and decode what is read, here, once for every
    backend; a backend implements ``threads`` and the underscored methods, which take a checked id and the
    stored text.
    """

    def create_thread(self, thread_id: str | None = None) -> str:
        """Create an empty ``LocalThread`` and return its id (a random one unless ``thread_id`` is given)."""
        thread_id = new_thread_id() if thread_id is None else check_thread_id(thread_id)
        self._insert_thread(thread_id, encode_thread(LocalThread(id=thread_id)))
        return thread_id

    def append(self, thread_id: str, messages: Message | Iterable[Message]) -> range:
        """Add one message or several, atomically, at the end; returns the positions they got."""
        thread_id = check_thread_id(thread_id)
        encoded = encode_messages(messages)
        first = self._append_rows(thread_id, encoded)
        return range(first, first + len(encoded))

    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """The thread's messages in order; ``start``/``stop`` slice by position as a list slice does."""
        thread_id = check_thread_id(thread_id)
        first, rows = self._read_rows(thread_id, start, stop)
        return decode_messages(thread_id, first, rows)

    @abstractmethod
    def threads(self) -> list[str]:
        """Every thread id, oldest first."""

    def delete_thread(self, thread_id: str) -> None:
        """Remove the thread and its messages."""
        self._delete_thread(check_thread_id(thread_id))

    def save_thread(self, thread: LocalThread | RemoteThread) -> None:
        """Store the thread value under ``thread.id`` (creating the thread if needed); messages stay."""
        state = encode_thread(thread)
        self._write_state(thread.id, state)

    def load_thread(self, thread_id: str) -> LocalThread | RemoteThread:
        """The thread value saved under ``thread_id``: a ``LocalThread`` or a ``RemoteThread``."""
        thread_id = check_thread_id(thread_id)
        return decode_thread(thread_id, self._read_thread(thread_id).state)

    def thread_info(self, thread_id: str) -> ThreadInfo:
        """The thread's envelope: kind, length and timestamps."""
        thread_id = check_thread_id(thread_id)
        stored = self._read_thread(thread_id)
        kind = decode_thread(thread_id, stored.state).kind
        return ThreadInfo(thread_id, kind, stored.length, stored.created_at, stored.updated_at)

    # -- what a backend implements (ids already checked; ThreadNotFoundError when there is no such thread) --

    @abstractmethod
    def _insert_thread(self, thread_id: str, state: str) -> None:
        """Store a new thread whose saved value is ``state``; ``ThreadExistsError`` if the id is taken."""

    @abstractmethod
    def _append_rows(self, thread_id: str, rows: list[str]) -> int:
        """Append ``rows`` (message dumps, maybe none) atomically; the position of the first."""

    @abstractmethod
    def _read_rows(self, thread_id: str, start: int, stop: int | None) -> tuple[int, Sequence[object]]:
        """The position ``bounds`` gives ``start`` and the stored rows of ``[start:stop]``, from one
        snapshot (``missing_position`` when the store lacks a row its length counts)."""

    @abstractmethod
    def _delete_thread(self, thread_id: str) -> None:
        """Remove the thread and its messages."""

    @abstractmethod
    def _write_state(self, thread_id: str, state: str) -> None:
        """Save ``state`` as the thread's value, creating the thread (empty) if needed."""

    @abstractmethod
    def _read_thread(self, thread_id: str) -> StoredThread:
        """The thread's row."""

    def close(self) -> None:  # noqa: B027 - a no-op by default; backends with connections override it
        """Release connections; the store cannot be used afterwards."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class SQLThreadStore(ThreadStore):
    """What the SQL backends share: the reads of the tables ``thread_store_threads`` (id, state, length,
    created_at, updated_at) and ``thread_store_messages`` (thread_id, position, message), written once with
    ``?`` placeholders, which ``_query`` turns into the driver's."""

    _placeholder: ClassVar[str] = "?"
    _join: ClassVar[str] = "group_concat({}, ',')"
    """The driver's string aggregate (SQLite's ``group_concat``, PostgreSQL's ``string_agg``)."""

    @abstractmethod
    def _connection(self) -> Any:
        """The calling thread's DB-API connection."""

    @abstractmethod
    def _snapshot(self, conn: Any) -> AbstractContextManager[object]:
        """A read transaction on ``conn``: one snapshot for every statement inside it."""

    def _timestamp(self, value: Any) -> datetime:
        """A timestamp column as the driver returns it, as a ``datetime``."""
        return value  # type: ignore[no-any-return]  # a driver that returns datetimes; others override

    def _query(self, conn: Any, sql: str, params: tuple[object, ...]) -> Any:
        return conn.execute(sql.replace("?", self._placeholder), params)

    def _length(self, conn: Any, thread_id: str) -> int:
        row = self._query(
            conn, "SELECT length FROM thread_store_threads WHERE id = ?", (thread_id,)
        ).fetchone()
        if row is None:
            raise ThreadNotFoundError(thread_id)
        return int(row[0])

    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """The thread's messages in order; ``start``/``stop`` slice by position as a list slice does."""
        thread_id = check_thread_id(thread_id)
        conn = self._connection()
        with self._snapshot(conn):
            lo, hi = bounds(start, stop, self._length(conn, thread_id))
            if lo >= hi:
                return []
            # The range as one string, joined by the database: no Python object per row (on 100,000
            # messages that is most of the store's own cost). An aggregate over an ordered subquery keeps
            # its order in practice, but neither SQLite 3.40 nor PostgreSQL promises it: the positions
            # come along, joined in the same pass, and are checked. Any surprise (an order, a missing or
            # a damaged row) takes the row-by-row path, which names the damaged position.
            joined, positions = self._query(
                conn,
                f"SELECT {self._join.format('message')}, {self._join.format('position')} FROM ("
                "SELECT message, position FROM thread_store_messages "
                "WHERE thread_id = ? AND position >= ? AND position < ? ORDER BY position) AS r",
                (thread_id, lo, hi),
            ).fetchone()
        if isinstance(joined, str) and positions == ",".join(map(str, range(lo, hi))):
            decoded = decode_joined("[" + joined + "]", hi - lo)
            if decoded is not None:
                return decoded
        return super().messages(thread_id, start, stop)

    def _read_rows(self, thread_id: str, start: int, stop: int | None) -> tuple[int, list[object]]:
        conn = self._connection()
        with self._snapshot(conn):
            lo, hi = bounds(start, stop, self._length(conn, thread_id))
            if lo >= hi:
                return lo, []
            # Rows in index order, joined by decode_messages: an ordered aggregate would sort the range on
            # the server.
            rows = [
                text
                for (text,) in self._query(
                    conn,
                    "SELECT message FROM thread_store_messages "
                    "WHERE thread_id = ? AND position >= ? AND position < ? ORDER BY position",
                    (thread_id, lo, hi),
                )
            ]
            if len(rows) != hi - lo:
                present = self._query(
                    conn,
                    "SELECT position FROM thread_store_messages "
                    "WHERE thread_id = ? AND position >= ? AND position < ?",
                    (thread_id, lo, hi),
                )
                raise missing_position(thread_id, lo, hi, (int(p) for (p,) in present))
        return lo, rows

    def _read_thread(self, thread_id: str) -> StoredThread:
        row = self._query(
            self._connection(),
            "SELECT state, length, created_at, updated_at FROM thread_store_threads WHERE id = ?",
            (thread_id,),
        ).fetchone()
        if row is None:
            raise ThreadNotFoundError(thread_id)
        state, length, created, updated = row
        return StoredThread(state, int(length), self._timestamp(created), self._timestamp(updated))


def utc_now() -> datetime:
    """The current time, UTC-aware."""
    return datetime.now(UTC)


def check_thread_id(thread_id: object) -> str:
    """``thread_id`` when it is a usable id, else ``InvalidThreadIdError`` saying why."""
    if not isinstance(thread_id, str):
        raise InvalidThreadIdError(f"a thread id is a string, not a {type(thread_id).__name__}")
    if not thread_id:
        raise InvalidThreadIdError("a thread id cannot be empty")
    if len(thread_id) > MAX_THREAD_ID_LENGTH:
        raise InvalidThreadIdError(
            f"a thread id has at most {MAX_THREAD_ID_LENGTH} characters; this one has {len(thread_id)}"
        )
    if "\x00" in thread_id:
        raise InvalidThreadIdError("a thread id cannot contain a NUL character")
    return thread_id


def bounds(start: int, stop: int | None, length: int) -> tuple[int, int]:
    """The positions ``[lo, hi)`` that ``[start:stop]`` selects in a thread of ``length`` messages."""
    lo, hi, _ = slice(start, stop).indices(length)
    return lo, max(lo, hi)


def encode_messages(messages: Message | Iterable[Message]) -> list[str]:
    """The stored form of each message: its lossless JSON dump. ``MessageTypeError`` for a non-message."""
    return [message.model_dump_json() for message in as_message_list(messages)]


def encode_thread(thread: LocalThread | RemoteThread) -> str:
    """The stored form of a thread value (its JSON, with the ``kind`` discriminator)."""
    if not isinstance(thread, (LocalThread, RemoteThread)):
        raise TypeError(f"save_thread takes a LocalThread or a RemoteThread, not a {type(thread).__name__}")
    check_thread_id(thread.id)
    return thread.model_dump_json()


def decode_thread(thread_id: str, text: object) -> LocalThread | RemoteThread:
    """A stored thread value, or ``CorruptDataError`` naming the thread."""
    try:
        if not isinstance(text, (str, bytes)):
            raise TypeError(f"the stored value is a {type(text).__name__}, not JSON text")
        thread = parse_thread(text)
    except (ValidationError, TypeError) as exc:
        raise CorruptDataError(
            f"thread {thread_id!r}: its saved thread record does not read ({_summary(exc)}); the row is "
            "damaged: save_thread() a new value over it, or delete_thread() it",
            thread_id=thread_id,
            position=None,
        ) from exc
    if thread.id != thread_id:
        raise CorruptDataError(
            f"thread {thread_id!r}: its saved thread record carries the id {thread.id!r}; the row is damaged",
            thread_id=thread_id,
            position=None,
        )
    return thread


def decode_messages(thread_id: str, first: int, rows: Sequence[object]) -> list[Message]:
    """The messages stored in ``rows`` (positions ``first``, ``first + 1``, ...).

    One parse of the whole range when every row is sound (the fast path); otherwise the rows are read one
    by one and the first damaged one raises ``CorruptDataError`` naming the thread and its position.
    """
    if not rows:
        return []
    try:
        joined = "[" + ",".join(rows) + "]"  # type: ignore[arg-type]  # a non-str row fails here: TypeError
    except TypeError:
        pass
    else:
        decoded = decode_joined(joined, len(rows))
        if decoded is not None:
            return decoded
    return diagnose(thread_id, first, lambda: rows)


def decode_joined(joined: str, expected: int) -> list[Message] | None:
    """The messages of ``joined`` (a JSON array of stored rows), or ``None`` when it does not read as
    exactly ``expected`` messages: then ``diagnose`` finds the damaged row.

    A row that is not one JSON object (truncated, or two run together) makes the parse fail or the count
    differ; so does every damage short of two rows that complement each other exactly.
    """
    try:
        decoded = MESSAGE_LIST.validate_json(joined)
    except ValidationError:
        return None
    return decoded if len(decoded) == expected else None


_MESSAGE: TypeAdapter[Message] = TypeAdapter(Message, config=ConfigDict(defer_build=True))


def diagnose(thread_id: str, first: int, rows: Callable[[], Sequence[object]]) -> list[Message]:
    """Read ``rows()`` one by one; the first damaged row raises ``CorruptDataError`` with its position."""
    decoded: list[Message] = []
    for offset, row in enumerate(rows()):
        position = first + offset
        if not isinstance(row, (str, bytes)):
            raise CorruptDataError(
                f"thread {thread_id!r}, position {position}: the stored message is a "
                f"{type(row).__name__}, not JSON text; the row is damaged: restore it or delete the thread "
                f"(messages(thread_id, 0, {position}) still reads what comes before)",
                thread_id=thread_id,
                position=position,
            )
        try:
            decoded.append(_MESSAGE.validate_json(row))
        except ValidationError as exc:
            what = (
                "is not valid JSON"
                if exc.errors()[0]["type"] == "json_invalid"
                else "no longer validates as a Message"
            )
            raise CorruptDataError(
                f"thread {thread_id!r}, position {position}: the stored message {what} ({_summary(exc)}); "
                "the row is damaged: restore it or delete the thread (messages(thread_id, 0, "
                f"{position}) still reads what comes before)",
                thread_id=thread_id,
                position=position,
            ) from exc
    return decoded


def missing_position(thread_id: str, lo: int, hi: int, present: Iterable[int]) -> CorruptDataError:
    """The error for a range ``[lo, hi)`` whose stored positions are only ``present``."""
    have = set(present)
    position = next((p for p in range(lo, hi) if p not in have), hi)
    return CorruptDataError(
        f"thread {thread_id!r}, position {position}: the message is missing from the store although the "
        f"thread's length counts it; the store is damaged (messages(thread_id, 0, {position}) still reads "
        "what comes before)",
        thread_id=thread_id,
        position=position,
    )


def _summary(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        more = f"; {exc.error_count() - 1} more" if exc.error_count() > 1 else ""
        return f"{first['msg']}{f' at {where}' if where else ''}{more}"
    return str(exc)
