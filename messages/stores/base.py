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
* Only a local thread has messages in the store: ``append`` and ``messages`` on a thread saved as a
  ``RemoteThread`` raise ``ThreadKindError`` (the service keeps its history), and so does ``save_thread``
  with a thread of the other kind than the one saved under its id (it would lose a remote thread's
  ``response_id`` and pending messages, or strand a local thread's messages).
* ``threads()`` lists every thread id, oldest first (in creation order, whatever the database does to its
  rows); ``delete_thread`` removes a thread and its messages; ``thread_info`` reads the envelope (kind,
  length, timestamps, in UTC).
* Every method that takes a ``thread_id`` raises ``ThreadNotFoundError`` when no such thread exists.
* Stored data that no longer reads (invalid JSON, a dump that no longer validates as a ``Message``, a
  missing position) raises ``CorruptDataError`` naming the thread and the position; the thread's other
  positions and every other thread still read.
* A failure of the database, its file or the connection to it raises a ``BackendError`` naming the
  operation and the thread, with the driver's error chained: a ``NotWrittenError`` when nothing of the
  operation can be in the store, a ``MaybeWrittenError`` when its write may have been committed (the
  connection was lost while the statement was out). No driver exception leaves a store. The store works
  again without being reopened: the next call replaces a lost connection. After ``close()``, every method
  raises ``StoreClosedError``.

Messages are stored as their lossless dump (``model_dump_json()``, the OpenAI Chat Completions shape) and
read back as equal, fresh values. Ids, positions and timestamps are the store's envelope, not message
fields.
"""

from __future__ import annotations

import operator
import queue
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, ClassVar, Literal, Self, TypeVar

from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError

from messages._io import MESSAGE_LIST, collector_paused
from messages._wire import json_strings
from messages.errors import (
    CorruptDataError,
    InvalidThreadIdError,
    MessagesError,
    StoreClosedError,
    ThreadKindError,
    ThreadNotFoundError,
    UnstorableMessageError,
)
from messages.models import Message
from messages.stores._failures import BackendFailedError, ClosedError, backend_error
from messages.threads import LocalThread, RemoteThread, as_message_list, new_thread_id, parse_thread

__all__ = [
    "MAX_THREAD_ID_LENGTH",
    "SQLThreadStore",
    "StoredThread",
    "ThreadInfo",
    "ThreadStore",
    "bounds",
    "check_positions",
    "check_thread_id",
    "decode_messages",
    "decode_thread",
    "encode_messages",
    "encode_thread",
    "kind_change",
    "not_local",
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
    backend, and run the backend's work inside ``_operation``, which turns its failures into the store's
    errors; a backend implements the underscored methods, which take a checked id and the stored text.
    """

    _driver_errors: tuple[type[Exception], ...] = ()
    """The exceptions of the backend's driver, which ``_operation`` turns into ``BackendError``s."""

    def create_thread(self, thread_id: str | None = None) -> str:
        """Create an empty ``LocalThread`` and return its id (a random one unless ``thread_id`` is given)."""
        thread_id = new_thread_id() if thread_id is None else check_thread_id(thread_id)
        state = encode_thread(LocalThread(id=thread_id))
        with self._operation("create_thread", thread_id, writes=True):
            self._insert_thread(thread_id, state)
        return thread_id

    def append(self, thread_id: str, messages: Message | Iterable[Message]) -> range:
        """Add one message or several, atomically, at the end; returns the positions they got.

        ``ThreadKindError`` if the thread is a remote one (the service keeps its messages)."""
        thread_id = check_thread_id(thread_id)
        encoded = encode_messages(messages)
        with self._operation("append", thread_id, writes=bool(encoded)):  # appending none writes nothing
            first = self._append_rows(thread_id, encoded)
        return range(first, first + len(encoded))

    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """The thread's messages in order; ``start``/``stop`` slice by position as a list slice does.

        ``ThreadKindError`` if the thread is a remote one (the service keeps its messages)."""
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop)
        with self._operation("messages", thread_id, writes=False):
            first, rows = self._read_rows(thread_id, start, stop)
        return decode_messages(thread_id, first, rows)

    def threads(self) -> list[str]:
        """Every thread id, oldest first."""
        with self._operation("threads", None, writes=False):
            return self._thread_ids()

    def delete_thread(self, thread_id: str) -> None:
        """Remove the thread and its messages."""
        thread_id = check_thread_id(thread_id)
        with self._operation("delete_thread", thread_id, writes=True):
            self._delete_thread(thread_id)

    def save_thread(self, thread: LocalThread | RemoteThread) -> None:
        """Store the thread value under ``thread.id`` (creating the thread if needed); messages stay.

        ``ThreadKindError`` if the id holds a thread of the other kind: delete it first to replace it."""
        state = encode_thread(thread)
        with self._operation("save_thread", thread.id, writes=True):
            self._write_state(thread.id, state, thread.kind)

    def load_thread(self, thread_id: str) -> LocalThread | RemoteThread:
        """The thread value saved under ``thread_id``: a ``LocalThread`` or a ``RemoteThread``."""
        thread_id = check_thread_id(thread_id)
        with self._operation("load_thread", thread_id, writes=False):
            stored = self._read_thread(thread_id)
        return decode_thread(thread_id, stored.state)

    def thread_info(self, thread_id: str) -> ThreadInfo:
        """The thread's envelope: kind, length and timestamps."""
        thread_id = check_thread_id(thread_id)
        with self._operation("thread_info", thread_id, writes=False):
            stored = self._read_thread(thread_id)
        kind = decode_thread(thread_id, stored.state).kind
        return ThreadInfo(thread_id, kind, stored.length, stored.created_at, stored.updated_at)

    def close(self) -> None:
        """Release connections; the store cannot be used afterwards (``StoreClosedError``)."""
        with self._operation("close", None, writes=False):
            self._close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # -- failures -----------------------------------------------------------------------------------------

    def _operation(self, operation: str, thread_id: str | None, *, writes: bool) -> _Operation:
        """A block running the backend's part of ``operation`` on ``thread_id``; its failures become
        ``BackendError``s (a ``MaybeWrittenError`` only for an operation that ``writes``) or
        ``StoreClosedError``."""
        return _Operation(self, operation, thread_id, writes)

    def _failure(
        self, error: BaseException, operation: str, thread_id: str | None, *, writes: bool
    ) -> BaseException | None:
        """The store's error for ``error``, raised in ``operation``'s block, chained to the driver's error;
        ``None`` for an error to let through as it is (the store's own, or one not from the backend)."""
        if isinstance(error, MessagesError):
            return None
        if isinstance(error, ClosedError):
            target = f" on thread {thread_id!r}" if thread_id is not None else ""
            closed = StoreClosedError(
                f"{operation}(){target}: {self!r} is closed; open a new store to go on",
                operation=operation,
                thread_id=thread_id,
            )
            closed.__suppress_context__ = True
            return closed
        if isinstance(error, BackendFailedError):
            what, maybe_written, cause = error.what, error.maybe_written, error.cause
        elif isinstance(error, self._driver_errors):
            (what, maybe_written), cause = self._describe(error, writes=writes), error
        else:
            return None
        failed = backend_error(operation, thread_id, what, writes=writes, maybe_written=maybe_written)
        failed.__cause__ = cause  # as `raise failed from cause` would
        failed.__suppress_context__ = True
        return failed

    def _describe(self, exc: Exception, *, writes: bool) -> tuple[str, bool]:
        """What the driver's error ``exc``, raised by a statement of an operation that ``writes`` or not,
        means: a description for the error message, and whether the write may have been committed."""
        return str(exc), writes

    # -- what a backend implements (ids already checked; ThreadNotFoundError when there is no such thread) --

    @abstractmethod
    def _insert_thread(self, thread_id: str, state: str) -> None:
        """Store a new thread whose saved value is ``state``; ``ThreadExistsError`` if the id is taken."""

    @abstractmethod
    def _append_rows(self, thread_id: str, rows: list[str]) -> int:
        """Append ``rows`` (message dumps, maybe none) atomically; the position of the first
        (``not_local(thread_id, "append")`` for a remote thread)."""

    @abstractmethod
    def _read_rows(self, thread_id: str, start: int, stop: int | None) -> tuple[int, Sequence[object]]:
        """The position ``bounds`` gives ``start`` and the stored rows of ``[start:stop]``, from one
        snapshot (``missing_position`` when the store lacks a row its length counts;
        ``not_local(thread_id, "read")`` for a remote thread)."""

    @abstractmethod
    def _delete_thread(self, thread_id: str) -> None:
        """Remove the thread and its messages."""

    @abstractmethod
    def _write_state(self, thread_id: str, state: str, kind: str) -> None:
        """Save ``state`` (a thread of ``kind``) as the thread's value, creating the thread (empty) if
        needed; ``kind_change`` if the thread is saved as the other kind."""

    @abstractmethod
    def _read_thread(self, thread_id: str) -> StoredThread:
        """The thread's row."""

    @abstractmethod
    def _thread_ids(self) -> list[str]:
        """Every thread id, oldest first."""

    @abstractmethod
    def _close(self) -> None:
        """Release what the store holds; later calls raise ``ClosedError``."""


class _Operation:
    """The block of ``ThreadStore._operation``: a class rather than a ``contextlib.contextmanager``
    generator, since it wraps every call: 0.34 us against 1.34 us a block, measured side by side, where an
    in-memory append of one message takes about 4 us."""

    __slots__ = ("_operation", "_store", "_thread_id", "_writes")

    def __init__(self, store: ThreadStore, operation: str, thread_id: str | None, writes: bool) -> None:
        self._store = store
        self._operation = operation
        self._thread_id = thread_id
        self._writes = writes

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if error is not None:
            failure = self._store._failure(error, self._operation, self._thread_id, writes=self._writes)
            if failure is not None:
                raise failure


class SQLThreadStore(ThreadStore):
    """What the SQL backends share: the reads of the tables ``thread_store_threads`` (id, state, kind,
    length, created_at, updated_at) and ``thread_store_messages`` (thread_id, position, message), written
    once with ``?`` placeholders, which ``_query`` turns into the driver's.

    A read is fetched in spans of ``_span`` rows, each one string joined by the database (no Python object
    per row) and checked (every position present, in order) before it is parsed; while pydantic parses a
    span, a helper thread fetches the next ones (``_fetch_ahead``). The garbage collector is paused for the
    whole read (``collector_paused``), not span by span: its collections are set off by the count of new
    objects, and each would walk the messages of every span read so far.
    """

    _placeholder: ClassVar[str] = "?"
    _message_column: ClassVar[str] = "message"
    """The message column as the row-by-row read selects it."""
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

    def _local_length(self, conn: Any, thread_id: str, action: Literal["append", "read"]) -> int:
        """The length of the thread, which must be a local one."""
        row = self._query(
            conn, "SELECT length, kind FROM thread_store_threads WHERE id = ?", (thread_id,)
        ).fetchone()
        if row is None:
            raise ThreadNotFoundError(thread_id)
        if row[1] != "local":
            raise not_local(thread_id, action)
        return int(row[0])

    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """The thread's messages in order; ``start``/``stop`` slice by position as a list slice does.

        ``ThreadKindError`` if the thread is a remote one (the service keeps its messages)."""
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
        return super().messages(thread_id, start, stop)

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

    def _read_rows(self, thread_id: str, start: int, stop: int | None) -> tuple[int, list[object]]:
        conn = self._connection()
        with self._snapshot(conn):
            lo, hi = bounds(start, stop, self._local_length(conn, thread_id, "read"))
            if lo >= hi:
                return lo, []
            rows = [
                text
                for (text,) in self._query(
                    conn,
                    f"SELECT {self._message_column} FROM thread_store_messages "
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

    def _kind_conflict(self, conn: Any, thread_id: str, kind: str) -> ThreadKindError:
        """The error for a ``save_thread`` of a ``kind`` thread that the upsert refused."""
        row = self._query(conn, "SELECT kind FROM thread_store_threads WHERE id = ?", (thread_id,)).fetchone()
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
    try:
        thread_id.encode()
    except UnicodeEncodeError as exc:
        raise InvalidThreadIdError(
            f"a thread id must be valid Unicode text; this one holds a lone surrogate "
            f"({thread_id[exc.start]!r}) at index {exc.start}, which no database can store"
        ) from None
    return thread_id


def check_positions(start: object, stop: object) -> tuple[int, int | None]:
    """``start`` and ``stop`` as the ints (or ``None``) a slice takes; ``TypeError`` naming the one that
    is not."""
    checked: list[int | None] = []
    for name, value in (("start", start), ("stop", stop)):
        if value is None:
            checked.append(None if name == "stop" else 0)
            continue
        try:
            checked.append(operator.index(value))  # type: ignore[arg-type]  # an int, or one (numpy)
        except TypeError:
            raise TypeError(
                f"messages(): {name} is a position, an int (negative counts from the end) or None, not "
                f"a {type(value).__name__} ({value!r})"
            ) from None
    return checked[0] or 0, checked[1]


def bounds(start: int, stop: int | None, length: int) -> tuple[int, int]:
    """The positions ``[lo, hi)`` that ``[start:stop]`` selects in a thread of ``length`` messages."""
    lo, hi, _ = slice(start, stop).indices(length)
    return lo, max(lo, hi)


def encode_messages(messages: Message | Iterable[Message]) -> list[str]:
    """The stored form of each message: its lossless JSON dump. ``MessageTypeError`` for a non-message,
    ``UnstorableMessageError`` for one whose text is not valid Unicode."""
    listed = as_message_list(messages)
    try:
        return [message.model_dump_json() for message in listed]
    except PydanticSerializationError as exc:
        raise _unstorable(listed, exc) from exc


def _unstorable(messages: list[Message], exc: PydanticSerializationError) -> UnstorableMessageError:
    """The error naming the first message of ``messages`` whose dump cannot be encoded, and where."""
    for index, message in enumerate(messages):
        try:
            message.model_dump_json()
        except PydanticSerializationError:
            bad = (path for path, text in json_strings(message.model_dump()) if not _encodes(text))
            field = next(bad, "?")
            return UnstorableMessageError(
                f"message {index} cannot be stored: its {field} is not valid Unicode text (a lone "
                "surrogate, which UTF-8, JSON and databases refuse); decode the text that produced it "
                "with errors='replace', or drop the surrogate",
                index=index,
                field=field,
            )
    return UnstorableMessageError(f"a message cannot be stored: {exc}", index=-1, field="?")


def _encodes(text: str) -> bool:
    """Whether ``text`` is valid Unicode (no lone surrogate), as UTF-8 needs."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def not_local(thread_id: str, action: Literal["append", "read"]) -> ThreadKindError:
    """The error for messages appended to or read from the remote thread ``thread_id``."""
    what = (
        "appended to it here; add them to the RemoteThread (thread.add(...)), send them with "
        "thread.request(), and save_thread() it"
        if action == "append"
        else "read from it here; its history is the service's, and a LocalThread keeps messages in the store"
    )
    return ThreadKindError(
        f"thread {thread_id!r} is a remote thread, whose messages the service keeps (this store keeps only "
        f"its state: save_thread / load_thread), so no message can be {what}",
        thread_id=thread_id,
        kind="remote",
    )


def kind_change(thread_id: str, stored: str, new: str) -> ThreadKindError:
    """The error for a ``save_thread`` of a ``new``-kind thread over a ``stored``-kind one."""
    lost = (
        "its response_id, open calls and pending messages"
        if stored == "remote"
        else "its stored messages, which a remote thread cannot read"
    )
    return ThreadKindError(
        f"thread {thread_id!r} is saved as a {stored} thread; save_thread() will not replace it with a "
        f"{new} thread, which would lose {lost}: delete_thread() it first, or save the {new} thread "
        "under a new id",
        thread_id=thread_id,
        kind=stored,
    )


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
        # Rows of one type, str or UTF-8 bytes; anything else fails to join: TypeError.
        if isinstance(rows[0], bytes):
            joined: str | bytes = b"[" + b",".join(rows) + b"]"  # type: ignore[arg-type]
        else:
            joined = "[" + ",".join(rows) + "]"  # type: ignore[arg-type]
    except TypeError:
        pass
    else:
        with collector_paused():
            decoded = decode_joined(joined, len(rows))
        if decoded is not None:
            return decoded
    return diagnose(thread_id, first, lambda: rows)


def decode_joined(joined: str | bytes, expected: int) -> list[Message] | None:
    """The messages of ``joined`` (a JSON array of stored rows), or ``None`` when it does not read as
    exactly ``expected`` messages: then ``diagnose`` finds the damaged row.

    A row that is not one JSON object (truncated, or two run together) makes the parse fail or the count
    differ; so does every damage short of two rows that complement each other exactly. Rows are read as
    ``load_messages`` reads a conversation (the same adapter): stored rows get no laxer validation.

    The caller pauses the garbage collector around a read of many spans (``collector_paused``).
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
