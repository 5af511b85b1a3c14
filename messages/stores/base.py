"""The ``ThreadStore`` contract that every backend keeps, in both flavours: ``ThreadStore`` (sync) and
``AsyncThreadStore`` (the same methods, awaited; ``aclose`` for ``close``).

The contract (tests/stores/ runs one suite, unchanged, against every backend in both flavours):

* A store holds threads by id. ``create_thread()`` makes an empty ``LocalThread`` (a random id unless one
  is given; a taken id raises ``ThreadExistsError``); ``save_thread(thread)`` stores a ``LocalThread`` or
  ``RemoteThread`` value (its ``context_state`` included), creating the thread if needed, and
  ``load_thread(thread_id)`` gives it back as the same type.
* ``append(thread_id, messages)`` adds one message or an iterable of them at the end, all or nothing, and
  returns the positions they got. Positions are assigned atomically: appends from many threads, processes
  or machines never interleave inside one call, and none is lost or doubled. Once ``append`` returns, the
  messages are committed: a process killed afterwards (or during a later append) loses none of them, and a
  process killed during an append leaves all of that call's messages or none, never a torn one.
* Each message has an envelope: an id unique in its thread (``ids=``, one per message, or minted) and a
  JSON object of metadata (``metadata=``). ``records()`` reads them back beside the messages. An id the
  thread holds already raises ``MessageExistsError`` (nothing is appended); with ``skip_existing=True``
  the append adds only the messages whose ids the thread does not hold, atomically with the check, so a
  turn replayed by two processes at once is stored once.
* ``messages(thread_id, start=0, stop=None)`` reads in order; ``start`` and ``stop`` slice by position as
  a list slice does (negative values count from the end). ``records`` and ``roles`` slice the same way.
* Only a local thread has messages in the store: ``append``, ``messages``, ``records`` and ``roles`` on a
  thread saved as a ``RemoteThread`` raise ``ThreadKindError`` (the service keeps its history), and so
  does ``save_thread`` with a thread of the other kind than the one saved under its id (it would lose a
  remote thread's ``response_id`` and pending messages, or strand a local thread's messages).
* ``threads()`` lists every thread id, oldest first (in creation order, whatever the database does to its
  rows); ``delete_thread`` removes a thread and its messages; ``thread_info`` reads the thread's envelope
  (kind, length, timestamps, in UTC).
* Every method that takes a ``thread_id`` raises ``ThreadNotFoundError`` when no such thread exists.
* Stored data that no longer reads (invalid JSON, a dump that no longer validates as a ``Message``, a
  missing position) raises ``CorruptDataError`` naming the thread and the position; the thread's other
  positions and every other thread still read.
* A failure of the database, its file or the connection to it raises a ``BackendError`` naming the
  operation and the thread, with the driver's error chained: a ``NotWrittenError`` when nothing of the
  operation can be in the store, a ``MaybeWrittenError`` when its write may have been committed (the
  connection was lost while the statement was out). No driver exception leaves a store. The store works
  again without being reopened: the next call replaces a lost connection. After ``close()`` (``aclose()``),
  every method raises ``StoreClosedError``.

Messages are stored as their lossless dump (``model_dump_json()``, the OpenAI Chat Completions shape) and
read back as equal, fresh values. Ids, positions, metadata and timestamps are the store's envelope, not
message fields (simonw/llm's ``parts``; LangGraph's ``get`` beside ``get_tuple``).

Where the pieces live: the codec (checks, encoding, decoding, the store's error texts) in ``_codec``, the
SQL and the migration runner in ``_sql`` and ``_migrations``, the mapping of driver failures in
``_failures``; a backend module holds its sync class and its async twin, thin I/O over those.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, ParamSpec, Self, TypeVar

from messages._window import Part, ReadPlan, read_sync
from messages.errors import MessagesError, StoreClosedError
from messages.models import Message
from messages.stores._codec import (
    MessageRecord,
    Row,
    StoredThread,
    ThreadInfo,
    check_positions,
    check_thread_id,
    decode_messages,
    decode_metadata,
    decode_thread,
    encode_rows,
    encode_thread,
)
from messages.stores._failures import BackendFailedError, ClosedError, backend_error
from messages.threads import LocalThread, RemoteThread, new_thread_id

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["AsyncThreadStore", "MessageRecord", "ThreadInfo", "ThreadStore"]

Ids = Sequence[str | None] | None
Metadata = Sequence[Mapping[str, Any] | None] | Mapping[str, Any] | None

_P = ParamSpec("_P")
_R = TypeVar("_R")


class _Failures:
    """How a store of either flavour turns its backend's failures into the store's errors (one place)."""

    _driver_errors: tuple[type[Exception], ...] = ()
    """The exceptions of the backend's driver, which ``_operation`` turns into ``BackendError``s."""

    def _label(self) -> str:
        """How errors name the store."""
        return repr(self)

    def _operation(self, operation: str, thread_id: str | None, *, writes: bool) -> _Operation:
        """A block running the backend's part of ``operation`` on ``thread_id``; its failures become
        ``BackendError``s (a ``MaybeWrittenError`` only for an operation that ``writes``) or
        ``StoreClosedError``. A plain ``with`` block: it serves awaited work as well."""
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
                f"{operation}(){target}: {self._label()} is closed; open a new store to go on",
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


class _Operation:
    """The block of ``_Failures._operation``: a class rather than a ``contextlib.contextmanager``
    generator, since it wraps every call: 0.34 us against 1.34 us a block, measured side by side, where an
    in-memory append of one message takes about 4 us."""

    __slots__ = ("_operation", "_store", "_thread_id", "_writes")

    def __init__(self, store: _Failures, operation: str, thread_id: str | None, writes: bool) -> None:
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


def records_of(thread_id: str, first: int, rows: Sequence[tuple[Any, ...]]) -> list[MessageRecord]:
    """``MessageRecord``s from stored ``(message, id, metadata, created_at)`` rows of positions ``first``,
    ... (``created_at`` already a UTC ``datetime``)."""
    decoded = decode_messages(thread_id, first, [row[0] for row in rows])
    return [
        MessageRecord(
            first + offset, str(row[1]), message, decode_metadata(thread_id, first + offset, row[2]), row[3]
        )
        for offset, (row, message) in enumerate(zip(rows, decoded, strict=True))
    ]


class ThreadStore(_Failures, ABC):
    """Where threads and their messages live: the contract of every backend (see the module docstring).

    The public methods check ids, encode what is written and decode what is read, here, once for every
    backend, and run the backend's work inside ``_operation``, which turns its failures into the store's
    errors; a backend implements the underscored methods, which take a checked id and the stored text.
    """

    def create_thread(self, thread_id: str | None = None) -> str:
        """Create an empty ``LocalThread`` and return its id (a random one unless ``thread_id`` is given).

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id.
            ThreadExistsError: a thread of the store already has that id.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the operation before anything was written (safe to retry).
            MaybeWrittenError: the connection was lost while a write was out: it may have committed.
        """
        thread_id = new_thread_id() if thread_id is None else check_thread_id(thread_id)
        state = encode_thread(LocalThread(id=thread_id))
        with self._operation("create_thread", thread_id, writes=True):
            self._insert_thread(thread_id, state)
        return thread_id

    def append(
        self,
        thread_id: str,
        messages: Message | Iterable[Message],
        *,
        ids: Ids = None,
        metadata: Metadata = None,
        skip_existing: bool = False,
    ) -> range:
        """Add one message or several, atomically, at the end; returns the positions they got.

        ``ids`` gives each message its id in the thread (``None``: a minted one), ``metadata`` a JSON object
        (one for all, or one per message). An id the thread holds raises ``MessageExistsError`` and appends
        nothing; with ``skip_existing=True`` those messages are left out instead, and the positions returned
        are those of the messages added. ``ThreadKindError`` if the thread is a remote one.

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            ThreadNotFoundError: no thread has that id.
            MessageTypeError: an item is not a ``Message``.
            MessageExistsError: an id the thread already holds (without ``skip_existing``): nothing is
                appended.
            ThreadKindError: the thread is a remote one.
            UnstorableMessageError: a message whose text is not valid Unicode (its index and field named).
            ValueError: ``ids`` or ``metadata`` that do not pair with the messages, an id given twice, a bad
                id, or metadata that is not a JSON object.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the operation before anything was written (safe to retry).
            MaybeWrittenError: the connection was lost while a write was out: it may have committed.
        """
        thread_id = check_thread_id(thread_id)
        rows = encode_rows(messages, ids, metadata)
        with self._operation("append", thread_id, writes=bool(rows)):  # appending none writes nothing
            first, added = self._append_rows(thread_id, rows, skip_existing)
        return range(first, first + added)

    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """The thread's messages in order; ``start``/``stop`` slice by position as a list slice does.

        ``ThreadKindError`` if the thread is a remote one (the service keeps its messages).

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            ThreadNotFoundError: no thread has that id.
            TypeError: ``start`` or ``stop`` is not an int or None.
            ThreadKindError: the thread is a remote one (the service keeps its messages).
            CorruptDataError: a stored row no longer reads (its thread and position named).
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the read (safe to retry).
        """
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop)
        with self._operation("messages", thread_id, writes=False):
            first, rows = self._read_rows(thread_id, start, stop)
        return decode_messages(thread_id, first, rows)

    def records(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[MessageRecord]:
        """The thread's messages with their envelopes (position, id, metadata, time), sliced as
        ``messages`` slices.

        Raises what ``messages`` raises.
        """
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop, "records")
        with self._operation("records", thread_id, writes=False):
            first, rows = self._read_records(thread_id, start, stop)
        return records_of(thread_id, first, rows)

    def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[str]:
        """The role of each message (``"system"``, ``"developer"``, ``"user"``, ``"assistant"``,
        ``"tool"``), sliced as ``messages`` slices, read without reading the messages: what a window read
        needs to find the exchanges.

        Raises what ``messages`` raises.
        """
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop, "roles")
        with self._operation("roles", thread_id, writes=False):
            return self._read_roles(thread_id, start, stop)

    def threads(self) -> list[str]:
        """Every thread id, oldest first.

        Raises:
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the read (safe to retry).
        """
        with self._operation("threads", None, writes=False):
            return self._thread_ids()

    def delete_thread(self, thread_id: str) -> None:
        """Remove the thread and its messages.

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            ThreadNotFoundError: no thread has that id.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the operation before anything was written (safe to retry).
            MaybeWrittenError: the connection was lost while a write was out: it may have committed.
        """
        thread_id = check_thread_id(thread_id)
        with self._operation("delete_thread", thread_id, writes=True):
            self._delete_thread(thread_id)

    def save_thread(self, thread: LocalThread | RemoteThread) -> None:
        """Store the thread value under ``thread.id`` (creating the thread if needed); messages stay.

        ``ThreadKindError`` if the id holds a thread of the other kind: delete it first to replace it.

        Raises:
            TypeError: ``thread`` is neither a ``LocalThread`` nor a ``RemoteThread``.
            InvalidThreadIdError: the thread's id is not a usable id.
            ThreadKindError: the id holds a saved thread of the other kind (delete it first).
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the operation before anything was written (safe to retry).
            MaybeWrittenError: the connection was lost while a write was out: it may have committed.
        """
        state = encode_thread(thread)
        with self._operation("save_thread", thread.id, writes=True):
            self._write_state(thread.id, state, thread.kind)

    def load_thread(self, thread_id: str) -> LocalThread | RemoteThread:
        """The thread value saved under ``thread_id``: a ``LocalThread`` or a ``RemoteThread``.

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            ThreadNotFoundError: no thread has that id.
            CorruptDataError: the saved value no longer reads.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the read (safe to retry).
        """
        thread_id = check_thread_id(thread_id)
        with self._operation("load_thread", thread_id, writes=False):
            stored = self._read_thread(thread_id)
        return decode_thread(thread_id, stored.state)

    def thread_info(self, thread_id: str) -> ThreadInfo:
        """The thread's envelope: kind, length and timestamps.

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            ThreadNotFoundError: no thread has that id.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the read (safe to retry).
        """
        thread_id = check_thread_id(thread_id)
        with self._operation("thread_info", thread_id, writes=False):
            stored = self._read_thread(thread_id)
        kind = decode_thread(thread_id, stored.state).kind
        return ThreadInfo(thread_id, kind, stored.length, stored.created_at, stored.updated_at)

    def close(self) -> None:
        """Release connections; the store cannot be used afterwards (``StoreClosedError``).

        Raises nothing.
        """
        with self._operation("close", None, writes=False):
            self._close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # -- what a backend implements (ids already checked; ThreadNotFoundError when there is no such thread) --

    @abstractmethod
    def _insert_thread(self, thread_id: str, state: str) -> None:
        """Store a new thread whose saved value is ``state``; ``ThreadExistsError`` if the id is taken."""

    @abstractmethod
    def _append_rows(self, thread_id: str, rows: list[Row], skip_existing: bool) -> tuple[int, int]:
        """Append ``rows`` (maybe none) atomically, those whose ids the thread holds left out when
        ``skip_existing`` (else ``message_exists``); the position of the first added and how many were
        (``not_local(thread_id, "append")`` for a remote thread)."""

    @abstractmethod
    def _read_rows(self, thread_id: str, start: int, stop: int | None) -> tuple[int, Sequence[object]]:
        """The position ``bounds`` gives ``start`` and the stored dumps of ``[start:stop]``, from one
        snapshot (``missing_position`` when the store lacks a row its length counts;
        ``not_local(thread_id, "read")`` for a remote thread)."""

    @abstractmethod
    def _read_records(
        self, thread_id: str, start: int, stop: int | None
    ) -> tuple[int, Sequence[tuple[Any, ...]]]:
        """As ``_read_rows``, each row ``(dump, id, metadata, created_at)``."""

    @abstractmethod
    def _read_roles(self, thread_id: str, start: int, stop: int | None) -> list[str]:
        """The roles of ``[start:stop]`` (``CorruptDataError`` for a row without one)."""

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


class AsyncThreadStore(ABC):
    """The async twin of ``ThreadStore``: the same methods, with the same arguments, results and errors,
    awaited; ``aclose()`` for ``close()``, ``async with`` for ``with``. None of them blocks the event loop."""

    @abstractmethod
    async def create_thread(self, thread_id: str | None = None) -> str:
        """``ThreadStore.create_thread``.

        Raises what ``ThreadStore.create_thread`` raises.
        """

    @abstractmethod
    async def append(
        self,
        thread_id: str,
        messages: Message | Iterable[Message],
        *,
        ids: Ids = None,
        metadata: Metadata = None,
        skip_existing: bool = False,
    ) -> range:
        """``ThreadStore.append``.

        Raises what ``ThreadStore.append`` raises.
        """

    @abstractmethod
    async def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """``ThreadStore.messages``.

        Raises what ``ThreadStore.messages`` raises.
        """

    @abstractmethod
    async def records(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[MessageRecord]:
        """``ThreadStore.records``.

        Raises what ``ThreadStore.records`` raises.
        """

    @abstractmethod
    async def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[str]:
        """``ThreadStore.roles``.

        Raises what ``ThreadStore.roles`` raises.
        """

    @abstractmethod
    async def threads(self) -> list[str]:
        """``ThreadStore.threads``.

        Raises what ``ThreadStore.threads`` raises.
        """

    @abstractmethod
    async def delete_thread(self, thread_id: str) -> None:
        """``ThreadStore.delete_thread``.

        Raises what ``ThreadStore.delete_thread`` raises.
        """

    @abstractmethod
    async def save_thread(self, thread: LocalThread | RemoteThread) -> None:
        """``ThreadStore.save_thread``.

        Raises what ``ThreadStore.save_thread`` raises.
        """

    @abstractmethod
    async def load_thread(self, thread_id: str) -> LocalThread | RemoteThread:
        """``ThreadStore.load_thread``.

        Raises what ``ThreadStore.load_thread`` raises.
        """

    @abstractmethod
    async def thread_info(self, thread_id: str) -> ThreadInfo:
        """``ThreadStore.thread_info``.

        Raises what ``ThreadStore.thread_info`` raises.
        """

    @abstractmethod
    async def aclose(self) -> None:
        """``ThreadStore.close``.

        Raises nothing.
        """

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()


class OffloadedStore(AsyncThreadStore):
    """An ``AsyncThreadStore`` made of a sync one, whose calls run in a dedicated worker thread (``workers``
    threads, each with its own connection) or, for a store that never waits (``workers=0``: in memory),
    inline: the sync store's contract and errors, by construction, without blocking the loop.

    A call's work runs to its end in the worker even when the awaiting task is cancelled: an append that
    was under way still commits (or not) as a whole."""

    def __init__(self, store: ThreadStore, *, workers: int) -> None:
        # asyncio and its executors load with the first async store, not with `import messages`.
        from concurrent.futures import ThreadPoolExecutor

        self._sync = store
        self._sync._label = self._label  # type: ignore[method-assign]  # errors name the async store
        self._pool: ThreadPoolExecutor | None = (
            ThreadPoolExecutor(max_workers=workers, thread_name_prefix="messages-store") if workers else None
        )
        self._closed = False

    def _label(self) -> str:
        return repr(self)

    async def _call(self, method: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if self._pool is None or self._closed:  # closed: the sync store says so at once
            return method(*args, **kwargs)
        import asyncio

        call = functools.partial(method, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._pool, call)

    async def _read_part(self, thread_id: str, plan: ReadPlan) -> Part:
        """A window's read (``messages._window.read_async``), every step of it in the worker, as the sync
        store runs it."""
        return await self._call(read_sync, self._sync, thread_id, plan)

    async def create_thread(self, thread_id: str | None = None) -> str:
        return await self._call(self._sync.create_thread, thread_id)

    async def append(
        self,
        thread_id: str,
        messages: Message | Iterable[Message],
        *,
        ids: Ids = None,
        metadata: Metadata = None,
        skip_existing: bool = False,
    ) -> range:
        return await self._call(
            self._sync.append, thread_id, messages, ids=ids, metadata=metadata, skip_existing=skip_existing
        )

    async def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        return await self._call(self._sync.messages, thread_id, start, stop)

    async def records(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[MessageRecord]:
        return await self._call(self._sync.records, thread_id, start, stop)

    async def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[str]:
        return await self._call(self._sync.roles, thread_id, start, stop)

    async def threads(self) -> list[str]:
        return await self._call(self._sync.threads)

    async def delete_thread(self, thread_id: str) -> None:
        await self._call(self._sync.delete_thread, thread_id)

    async def save_thread(self, thread: LocalThread | RemoteThread) -> None:
        await self._call(self._sync.save_thread, thread)

    async def load_thread(self, thread_id: str) -> LocalThread | RemoteThread:
        return await self._call(self._sync.load_thread, thread_id)

    async def thread_info(self, thread_id: str) -> ThreadInfo:
        return await self._call(self._sync.thread_info, thread_id)

    async def aclose(self) -> None:
        try:
            await self._call(self._sync.close)
        finally:
            self._closed = True
            if self._pool is not None:
                self._pool.shutdown(wait=False)
