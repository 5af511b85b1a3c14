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
  process killed during an append leaves all of that call's messages or none, never a torn one. What an
  operating system crash or a power cut may take is the backend's durability setting (SQLite's
  ``synchronous``, PostgreSQL's ``synchronous_commit``: docs/stores.md, "Durability").
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
* ``metadata(thread_id, start=0, stop=None)`` reads the envelopes' metadata alone, sliced as ``messages``
  slices, without reading the messages: what a framework that keeps its own form of each message in the
  envelope reads (the OpenAI Agents SDK's session items).
* History is append-only but for one operation: ``pop(thread_id)`` removes the thread's newest message and
  gives back its record exactly (message, envelope id, metadata, time), under the thread's write lock, so
  that of two pops at once each gets its own message, and a pop and an append never interleave (the
  OpenAI Agents SDK's ``Session.pop_item``, with which a framework undoes a turn). A summary checkpoint
  that covered the popped message (``upto`` past the new length) is removed with it, in the same
  transaction, and so are those built on it; so is the message's token count under every counter. An
  empty thread pops ``None``. A newest row that no longer reads raises ``CorruptDataError`` and stays.
* Every method that takes a ``thread_id`` raises ``ThreadNotFoundError`` when no such thread exists.
* Stored data that no longer reads (invalid JSON, a dump that no longer validates as a ``Message``, a
  missing position) raises ``CorruptDataError`` naming the thread and the position; the thread's other
  positions and every other thread still read.
* A failure of the database, its file or the connection to it raises a ``BackendError`` naming the
  operation and the thread, with the driver's error chained: a ``NotWrittenError`` when nothing of the
  operation can be in the store, a ``MaybeWrittenError`` when its write may have been committed (the
  connection was lost while the statement was out). No driver exception leaves a store. The store works
  again without being reopened: the next call replaces a lost connection, and a connection the server
  closed while it sat idle is replaced before a statement is sent on it (a restart costs no call).
* An argument a store cannot take raises ``InvalidArgumentError`` (a ``ValueError`` and a ``TypeError``)
  naming it, before anything is written: every error a store raises is a ``MessagesError``.
* ``close()`` (``aclose()``) may be called from any thread or task, with calls in flight: it refuses new
  calls, and calls not yet started (queued for a worker thread or a connection), with
  ``StoreClosedError``, waits for the calls under way to end, then releases the connections. When it
  returns, no call of the store can still write; afterwards every method raises ``StoreClosedError``.
* The async stores: an awaited call that raises ``CancelledError`` (``task.cancel()``, a timeout) has
  settled its write by then: a call that had not started never runs, one that had runs to its end first
  (written whole, or failed as it would have). A read right after tells which; nothing lands later.
  They work from any event loop, one after the other or several at once in different threads.

Messages are stored as their lossless dump (``model_dump_json()``, the OpenAI Chat Completions shape) and
read back as equal, fresh values. Ids, positions, metadata and timestamps are the store's envelope, not
message fields (simonw/llm's ``parts``; LangGraph's ``get`` beside ``get_tuple``).

The checks, the encoding and decoding, the SQL and the mapping of driver failures live in private modules
of ``messages.stores``, shared by every backend; a backend module holds its sync class and its async twin,
thin I/O over those.
"""

# Where the pieces live: the codec (checks, encoding, decoding, the store's error texts) in `_codec`, the
# SQL and the migration runner in `_sql` and `_migrations`, the mapping of driver failures in `_failures`.

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import os
import sys
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, ParamSpec, Self, TypeVar

from pydantic import JsonValue

from messages._io import collector_paused
from messages._window import Keep, Part, ReadPlan, SaveCounts, Snapshot, Window, drive, plan_read, read_sync
from messages.errors import MessagesError, StoreClosedError
from messages.models import Message
from messages.stores._checkpoints import (
    Checkpoint,
    Provenance,
    StoredCheckpoint,
    check_checkpoint_id,
    check_counter,
    check_counts,
    decode_checkpoint,
    encode_checkpoint,
)
from messages.stores._codec import (
    MessageRecord,
    Row,
    StoredThread,
    ThreadInfo,
    check_flag,
    check_positions,
    check_thread_id,
    decode_messages,
    decode_metadata,
    decode_thread,
    encode_rows,
    encode_thread,
    keep_rows,
)
from messages.stores._failures import BackendFailedError, ClosedError, backend_error
from messages.stores._turns import TurnMemo
from messages.threads import LocalThread, RemoteThread, as_message_list, new_thread_id

if TYPE_CHECKING:
    import asyncio
    from concurrent.futures import Future, ThreadPoolExecutor

__all__ = ["AsyncThreadStore", "Checkpoint", "MessageRecord", "Provenance", "ThreadInfo", "ThreadStore"]

Ids = Sequence[str | None] | None
Metadata = Sequence[Mapping[str, Any] | None] | Mapping[str, Any] | None

_P = ParamSpec("_P")
_R = TypeVar("_R")


class _Calls:
    """The calls in flight on one store, and its closing: what lets ``close()`` and ``aclose()`` refuse
    new calls, wait for the ones under way to end, and only then release the connections (closing a
    connection that another thread is executing on crashes sqlite3). Thread-safe: a store's calls may run
    in many threads (the sync stores), in worker threads (the async SQLite store), on several event loops.

    The bookkeeping of every call: a lock taken twice and a counter. ``python3 scripts/dev.py bench stores``
    times an append of one message with it and without it: 1.02x for the in-memory store (1.02x to 1.20x
    over 3 runs, on a loaded 2-core machine), 1.03x for SQLite (0.95x to 1.03x)."""

    __slots__ = ("__weakref__", "_closing", "_drained", "_lock", "_running")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._closing = False
        self._drained: list[Callable[[], object]] = []
        _EVERY_CALLS.add(self)

    def _forked(self) -> None:
        """In a forked child: the calls in flight were the parent's threads', which the child does not
        have (and one of them may have held the lock)."""
        self._lock = threading.Lock()
        self._running = 0
        self._drained = []

    @property
    def closing(self) -> bool:
        """Whether the store refuses new calls (it is closed, or closing)."""
        return self._closing

    def enter(self) -> bool:
        """Count a call in; ``False`` (and not counted) once the store is closing."""
        with self._lock:
            if self._closing:
                return False
            self._running += 1
            return True

    def leave(self) -> None:
        """Count a call out; the last one out of a closing store lets its ``close`` go on."""
        with self._lock:
            self._running -= 1
            if self._running or not self._drained:
                return
            drained, self._drained = self._drained, []
        for callback in drained:
            callback()

    def close(self, drained: Callable[[], object]) -> None:
        """Refuse new calls from now on, and call ``drained()`` once no call is running: at once, or in
        the thread that ends the last one."""
        with self._lock:
            self._closing = True
            if self._running:
                self._drained.append(drained)
                return
        drained()

    def close_and_wait(self) -> None:
        """``close``, and block until no call is running."""
        done = threading.Event()
        self.close(done.set)
        done.wait()

    async def aclose_and_wait(self) -> bool:
        """``close``, and wait (without blocking the loop) until no call is running, in this thread, in
        worker threads or on other event loops; through a cancellation of the waiting task, which the
        caller lets through afterwards (``True``: there was one)."""
        import asyncio

        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def drained() -> None:
            with contextlib.suppress(RuntimeError):  # that loop is closed: no one waits any more
                loop.call_soon_threadsafe(_resolve, done)

        self.close(drained)
        return await _outlast(done)


_EVERY_CALLS: weakref.WeakSet[_Calls] = weakref.WeakSet()
"""Every store's ``_Calls``, to start them afresh in a forked child."""


def _after_fork() -> None:
    for calls in list(_EVERY_CALLS):
        calls._forked()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _Failures:
    """How a store of either flavour turns its backend's failures into the store's errors, and keeps
    count of its calls in flight (one place)."""

    _driver_errors: tuple[type[Exception], ...] = ()
    """The exceptions of the backend's driver, which ``_operation`` turns into ``BackendError``s."""

    def __init__(self) -> None:
        self._calls = _Calls()
        self._memo = TurnMemo()
        """What the store keeps of its threads' turns in this process: token counts to save with the next
        append, and what was appended since a compacting read (``messages.stores._turns``)."""

    def _label(self) -> str:
        """How errors name the store."""
        return repr(self)

    def _operation(self, operation: str, thread_id: str | None, *, writes: bool) -> _Operation:
        """A block running the backend's part of ``operation`` on ``thread_id``: a call in flight (refused
        with ``StoreClosedError`` once the store is closing, and waited for by ``close``), whose failures
        become ``BackendError``s (a ``MaybeWrittenError`` only for an operation that ``writes``) or
        ``StoreClosedError``. A plain ``with`` block: it serves awaited work as well. Every public method
        runs its backend work in one, so a method added later is counted and mapped as the others are."""
        return _Operation(self, operation, thread_id, writes)

    def _closed_error(self, operation: str, thread_id: str | None) -> StoreClosedError:
        """The error for ``operation`` on ``thread_id`` called once the store is closed (or closing)."""
        target = f" on thread {thread_id!r}" if thread_id is not None else ""
        closed = StoreClosedError(
            f"{operation}(){target}: {self._label()} is closed; open a new store to go on",
            operation=operation,
            thread_id=thread_id,
        )
        closed.__suppress_context__ = True
        return closed

    def _failure(
        self, error: BaseException, operation: str, thread_id: str | None, *, writes: bool
    ) -> BaseException | None:
        """The store's error for ``error``, raised in ``operation``'s block, chained to the driver's error;
        ``None`` for an error to let through as it is (the store's own, or one not from the backend)."""
        if isinstance(error, MessagesError):
            return None
        if isinstance(error, ClosedError):
            return self._closed_error(operation, thread_id)
        late = False
        if isinstance(error, BackendFailedError):
            what, maybe_written, cause, late = error.what, error.maybe_written, error.cause, error.late
        elif isinstance(error, self._driver_errors):
            (what, maybe_written), cause = self._describe(error, writes=writes), error
        else:
            return None
        failed = backend_error(
            operation, thread_id, what, writes=writes, maybe_written=maybe_written, late=late
        )
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
        if not self._store._calls.enter():
            raise self._store._closed_error(self._operation, self._thread_id)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._store._calls.leave()
        if error is not None:
            failure = self._store._failure(error, self._operation, self._thread_id, writes=self._writes)
            if failure is not None:
                raise failure


class _Release(_Operation):
    """The block of ``close``'s release of the connections: the failure mapping alone, as the store
    refuses calls by then, and no call of its own is running."""

    __slots__ = ()

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


class ReadAnswers:
    """A window read's answers (``messages._window.plan_read``) that are the same for every store: how many
    of the newest rows the first ``Window`` request fetches (what the last read of this kind looked at,
    ``TurnMemo.tail_rows``; a request after it says itself), and the answers to ``Keep`` (the rows kept,
    decoded, and how far back the read looked, for the next read) and ``SaveCounts`` (``defer``: kept for
    the thread's next append). The statement of each ``Window`` request is the store's own:
    ``ThreadStore._read_window`` and ``AsyncPostgresThreadStore._aread_window`` run it between ``tail``
    and ``took``."""

    __slots__ = ("_defer", "_first", "_last", "_memo", "_thread_id")

    def __init__(self, memo: TurnMemo, thread_id: str, defer: Callable[[str, SaveCounts], None]) -> None:
        self._memo = memo
        self._thread_id = thread_id
        self._defer = defer
        self._first: Window | None = None
        self._last: Snapshot | None = None

    def tail(self, request: Window) -> int:
        """How many of the thread's newest rows the statement answering ``request`` fetches."""
        if self._first is None:
            self._first = request
            return self._memo.tail_rows(self._thread_id, request)
        return request.fetched

    def took(self, snapshot: Snapshot) -> Snapshot:
        """``snapshot``, the statement's answer, kept for the requests after it."""
        self._last = snapshot
        return snapshot

    def answer(self, request: object) -> object:
        """The answer to a request after a ``Window`` one: ``Keep`` or ``SaveCounts``."""
        last = self._last
        if isinstance(request, Keep) and last is not None and self._first is not None:
            if request.reached is not None:  # the tail's: how far back the next read looks
                self._memo.looked_at(self._thread_id, self._first, last.length, request.reached)
            return keep_rows(self._thread_id, last.rows, request.ranges)
        if isinstance(request, SaveCounts):
            self._defer(self._thread_id, request)
            return None
        raise TypeError(f"no store answers {request!r} here")


class ThreadStore(_Failures, ABC):
    """Where threads and their messages live: the contract of every backend (see the module docstring).

    The public methods check ids, encode what is written and decode what is read, here, once for every
    backend, and run the backend's work in a block that turns its failures into the store's errors
    (``BackendError``, ``StoreClosedError``); a backend implements the underscored methods, which take a
    checked id and the stored text.
    """

    def create_thread(self, thread_id: str | None = None) -> str:
        """Create an empty ``LocalThread`` and return its id (a random one unless ``thread_id`` is given).

        Args:
            thread_id: The new thread's id (a user's or a conversation's id, say): a non-empty string
                of at most 255 characters, without NUL; ``None``, the default, mints a random one (32
                hex digits).

        Returns:
            The thread's id: ``thread_id`` as given, or the minted one.

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id.
            ThreadExistsError: a thread of the store already has that id.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the operation before anything was written (safe to retry).
            MaybeWrittenError: the connection was lost while a write was out: it may have committed.

        Examples:
            ```python
            from messages import InMemoryThreadStore, ThreadExistsError

            store = InMemoryThreadStore()
            thread_id = store.create_thread()  # a random id
            assert store.messages(thread_id) == []
            assert store.create_thread("support-42") == "support-42"
            try:
                store.create_thread("support-42")
            except ThreadExistsError:
                pass  # the id is taken: load_thread("support-42") reopens that thread
            ```
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

        Args:
            thread_id: The thread to add to (one created empty, or saved as a ``LocalThread``).
            messages: One ``Message``, or an iterable of them (a list, a generator), in their order.
            ids: One id per message, each unique in the thread (a turn's own ids, so that a retried
                append can tell what is stored already); a ``None`` in the list, or ``None`` for the
                whole argument (the default), mints a random id (32 hex digits).
            metadata: A JSON object stored beside the messages: one mapping for every message, or one
                per message (a list as long as the messages, ``None`` for a message without); ``None``,
                the default: none (``records()`` reads ``{}``).
            skip_existing: Leave out the messages whose ids the thread holds already instead of raising
                ``MessageExistsError``, in the same transaction as the check.

        Returns:
            The positions the added messages got, in order, as a ``range`` (empty when none was added).

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            ThreadNotFoundError: no thread has that id.
            MessageTypeError: an item is not a ``Message``.
            MessageExistsError: an id the thread already holds (without ``skip_existing``): nothing is
                appended.
            ThreadKindError: the thread is a remote one.
            UnstorableMessageError: a message whose text is not valid Unicode (its index and field named).
            InvalidArgumentError: ``ids`` or ``metadata`` that do not pair with the messages, an id given
                twice, a bad id, metadata that is not a JSON object or nests deeper than
                ``MAX_METADATA_DEPTH``, or a ``skip_existing`` that is not a bool; nothing is written.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the operation before anything was written (safe to retry).
            MaybeWrittenError: the connection was lost while a write was out: it may have committed.

        Examples:
            ```python
            from messages import AIMessage, InMemoryThreadStore, UserMessage

            store = InMemoryThreadStore()
            thread_id = store.create_thread()
            assert store.append(thread_id, UserMessage(content="Hi")) == range(0, 1)
            turn = [UserMessage(content="Weather?"), AIMessage(content="Sunny.")]
            added = store.append(thread_id, turn, ids=["u2", "a2"], metadata={"turn": 2})
            assert added == range(1, 3)
            # The same turn again (a retried request): nothing is stored twice.
            again = store.append(thread_id, turn, ids=["u2", "a2"], skip_existing=True)
            assert len(again) == 0 and len(store.messages(thread_id)) == 3
            ```
        """
        thread_id = check_thread_id(thread_id)
        skip_existing = check_flag(skip_existing, "skip_existing", "append")
        listed = as_message_list(messages)
        rows = encode_rows(listed, ids, metadata)
        with self._operation("append", thread_id, writes=bool(rows)):  # appending none writes nothing
            first, added = self._append_rows(thread_id, rows, skip_existing)
        if added:
            if added == len(rows):
                self._memo.appended(thread_id, first, listed, [row.text for row in rows])
            else:  # some were left out (skip_existing): the log cannot say which
                self._memo.forget(thread_id)
        return range(first, first + added)

    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """The thread's messages in order; ``start``/``stop`` slice by position as a list slice does.

        ``ThreadKindError`` if the thread is a remote one (the service keeps its messages).

        Args:
            thread_id: The thread to read.
            start: The first position to read (0, the default, for the first message); a negative one
                counts from the end, as in a list slice, and ``None`` means 0.
            stop: The position to stop before (``None``, the default: the thread's end); a negative one
                counts from the end.

        Returns:
            The messages of ``[start:stop]``, oldest first: fresh values, equal to those appended.

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            ThreadNotFoundError: no thread has that id.
            InvalidArgumentError: ``start`` or ``stop`` is not an int or None.
            ThreadKindError: the thread is a remote one (the service keeps its messages).
            CorruptDataError: a stored row no longer reads (its thread and position named).
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the read (safe to retry).

        Examples:
            ```python
            from messages import AIMessage, InMemoryThreadStore, UserMessage

            store = InMemoryThreadStore()
            thread_id = store.create_thread()
            hi, hello = UserMessage(content="Hi"), AIMessage(content="Hello!")
            store.append(thread_id, [hi, hello, UserMessage(content="Bye")])
            assert store.messages(thread_id)[:2] == [hi, hello]
            assert store.messages(thread_id, 0, 1) == [hi]
            assert store.messages(thread_id, -2, -1) == [hello]  # from the end
            ```
        """
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop)
        with self._operation("messages", thread_id, writes=False):
            first, rows = self._read_rows(thread_id, start, stop)
        return decode_messages(thread_id, first, rows)

    def records(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[MessageRecord]:
        """The thread's messages with their envelopes (position, id, metadata, time), sliced as
        ``messages`` slices.

        Args:
            thread_id: The thread to read.
            start: The first position to read (0, the default, for the first message); a negative one
                counts from the end, as in a list slice, and ``None`` means 0.
            stop: The position to stop before (``None``, the default: the thread's end); a negative one
                counts from the end.

        Returns:
            A ``MessageRecord`` for each message of ``[start:stop]``, oldest first.

        Raises what ``messages`` raises.

        Examples:
            ```python
            from messages import InMemoryThreadStore, UserMessage

            store = InMemoryThreadStore()
            thread_id = store.create_thread()
            hi = UserMessage(content="Hi")
            store.append(thread_id, hi, ids=["m1"], metadata={"lang": "en"})
            record = store.records(thread_id)[0]
            assert (record.position, record.id, record.metadata) == (0, "m1", {"lang": "en"})
            assert record.message == hi
            ```
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

        Args:
            thread_id: The thread to read.
            start: The first position to read (0, the default, for the first message); a negative one
                counts from the end, as in a list slice, and ``None`` means 0.
            stop: The position to stop before (``None``, the default: the thread's end); a negative one
                counts from the end.

        Returns:
            The role of each message of ``[start:stop]``, oldest first.

        Raises what ``messages`` raises.
        """
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop, "roles")
        with self._operation("roles", thread_id, writes=False):
            return self._read_roles(thread_id, start, stop)

    def threads(self) -> list[str]:
        """Every thread id, oldest first.

        Returns:
            The ids of the store's threads (local and remote), in the order they were created.

        Raises:
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the read (safe to retry).
        """
        with self._operation("threads", None, writes=False):
            return self._thread_ids()

    def delete_thread(self, thread_id: str) -> None:
        """Remove the thread and its messages.

        Args:
            thread_id: The thread to remove, with its messages, checkpoints and token counts.

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

        Args:
            thread: The thread value to store under its ``id``: a ``LocalThread`` (its ``context_state``
                with it; its messages are the store's, appended apart) or a ``RemoteThread`` (its
                ``response_id``, open calls and pending messages); it replaces the value saved before.

        Raises:
            InvalidArgumentError: ``thread`` is neither a ``LocalThread`` nor a ``RemoteThread``.
            InvalidThreadIdError: the thread's id is not a usable id.
            ThreadKindError: the id holds a saved thread of the other kind (delete it first).
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the operation before anything was written (safe to retry).
            MaybeWrittenError: the connection was lost while a write was out: it may have committed.

        Examples:
            ```python
            from messages import RemoteThread, SQLiteThreadStore

            with SQLiteThreadStore("threads.db") as store:
                store.save_thread(RemoteThread(id="chat-7", response_id="resp_1"))
                store.save_thread(RemoteThread(id="chat-7", response_id="resp_2"))
                assert store.load_thread("chat-7").response_id == "resp_2"  # the newest
            ```
        """
        state = encode_thread(thread)
        with self._operation("save_thread", thread.id, writes=True):
            self._write_state(thread.id, state, thread.kind)

    def load_thread(self, thread_id: str) -> LocalThread | RemoteThread:
        """The thread value saved under ``thread_id``: a ``LocalThread`` or a ``RemoteThread``.

        Args:
            thread_id: The thread to reopen (the id ``create_thread`` returned, or the ``id`` of a thread
                value saved with ``save_thread``).

        Returns:
            The saved value, of the type it was saved as: a ``LocalThread`` (a thread made by
            ``create_thread`` is an empty one) or a ``RemoteThread``. A local thread's messages are read
            apart, with ``messages`` or a window.

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            ThreadNotFoundError: no thread has that id.
            CorruptDataError: the saved value no longer reads.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the read (safe to retry).

        Examples:
            ```python
            from messages import LocalThread, SQLiteThreadStore, ThreadNotFoundError, UserMessage

            with SQLiteThreadStore("bot.db") as store:
                thread_id = store.create_thread()
                store.append(thread_id, UserMessage(content="Hi"))
            with SQLiteThreadStore("bot.db") as store:  # later, in another process
                thread = store.load_thread(thread_id)
                assert isinstance(thread, LocalThread) and thread.id == thread_id
                assert store.messages(thread.id) == [UserMessage(content="Hi")]
                try:
                    store.load_thread("no-such-thread")
                except ThreadNotFoundError:
                    pass  # never created (or deleted): create_thread starts it
            ```
        """
        thread_id = check_thread_id(thread_id)
        with self._operation("load_thread", thread_id, writes=False):
            stored = self._read_thread(thread_id)
        return decode_thread(thread_id, stored.state)

    def thread_info(self, thread_id: str) -> ThreadInfo:
        """The thread's envelope: kind, length and timestamps.

        Args:
            thread_id: The thread to describe.

        Returns:
            A ``ThreadInfo``: the kind of the value saved (``"local"`` or ``"remote"``), how many messages
            the thread holds, when it was created, and when a message was last appended or popped or
            the thread last saved (UTC).

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

    def metadata(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[dict[str, JsonValue]]:
        """The metadata of each message of ``[start:stop]`` (``{}`` where none was given), sliced as
        ``messages`` slices, read without the messages: one short column, no message parsed.

        Args:
            thread_id: The thread to read.
            start: The first position to read (0, the default, for the first message); a negative one
                counts from the end, as in a list slice, and ``None`` means 0.
            stop: The position to stop before (``None``, the default: the thread's end); a negative one
                counts from the end.

        Returns:
            The JSON object appended with each message of ``[start:stop]``, oldest first (``{}`` for a
            message appended without).

        Raises what ``messages`` raises (``CorruptDataError`` for metadata that no longer reads, its
        position named).
        """
        thread_id = check_thread_id(thread_id)
        start, stop = check_positions(start, stop, "metadata")
        with self._operation("metadata", thread_id, writes=False):
            first, rows = self._read_metadata(thread_id, start, stop)
        with collector_paused():  # a dict per row, none in a cycle (see collector_paused)
            return [decode_metadata(thread_id, first + offset, row) for offset, row in enumerate(rows)]

    # -- removing the newest message ------------------------------------------------------------------------

    def pop(
        self, thread_id: str, *, check: Callable[[MessageRecord], object] | None = None
    ) -> MessageRecord | None:
        """Remove the thread's newest message and return its record exactly as ``records()`` read it
        (position, id, message, metadata, time); ``None`` when the thread holds no message.

        Atomic, under the thread's write lock (the one its appends take): two pops at once remove two
        messages, one each, and an append made at the same time lands before or after, never in between.
        The only removal of a single message the contract has: a framework undoing a turn (the OpenAI
        Agents SDK's ``Session.pop_item``) needs it, and history is otherwise append-only. The summary
        checkpoints that covered the popped message (``upto`` past the thread's new length) are removed in
        the same transaction, those built on them too: a summary of a message that was taken back would
        tell the model of a turn that no longer happened, and refusing the pop would leave a framework no
        way to undo a turn. Its token counts go with it (another message may take its position). Its id is
        free again afterwards. A compactor that read the thread before the pop reads it again to decide
        whether compaction is due (what it read may have held a checkpoint the pop removed).

        Args:
            thread_id: The thread.
            check: Called with the newest record under the lock, before anything is removed: whatever it
                raises undoes the pop (the message stays exactly as it was) and goes on to the caller.
                What a caller that must read the message first passes (the OpenAI Agents SDK session,
                whose item rides in the metadata). It runs inside the transaction: keep it short, and
                never call the store from it.

        Returns:
            The removed message's record, or ``None`` when the thread holds none.

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            ThreadNotFoundError: no thread has that id.
            ThreadKindError: the thread is a remote one (the service keeps its messages).
            CorruptDataError: the newest row no longer reads (its thread and position named); nothing is
                removed.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the operation before anything was written (safe to retry).
            MaybeWrittenError: the connection was lost while a write was out: it may have committed.

        Examples:
            ```python
            from messages import InMemoryThreadStore, UserMessage

            store = InMemoryThreadStore()
            thread_id = store.create_thread()
            hi, oops = UserMessage(content="Hi"), UserMessage(content="Oops")
            store.append(thread_id, [hi, oops], ids=["m1", "m2"])
            popped = store.pop(thread_id)
            assert popped is not None and (popped.id, popped.message) == ("m2", oops)
            assert store.messages(thread_id) == [hi]
            assert store.pop(thread_id).id == "m1" and store.pop(thread_id) is None
            ```
        """
        thread_id = check_thread_id(thread_id)
        with self._operation("pop", thread_id, writes=True):
            popped = self._pop_record(thread_id, check)
        if popped is not None:
            # A compactor's last read of the thread (and the checkpoint it saw) no longer says what is due.
            self._memo.forget(thread_id)
        return popped

    def _read_window(self, thread_id: str, plan: ReadPlan) -> Part:
        """A window's read (``messages._window.plan_read``) answered by this store itself: each ``Window``
        request from one snapshot (``_window_snapshot``), the messages kept decoded from it, the counts
        made kept for the thread's next append (``_defer_counts``)."""
        thread_id = check_thread_id(thread_id)
        with self._operation("read", thread_id, writes=False):
            answers = ReadAnswers(self._memo, thread_id, self._defer_counts)

            def answer(request: object) -> object:
                if isinstance(request, Window):
                    return answers.took(self._window_snapshot(thread_id, request, answers.tail(request)))
                return answers.answer(request)

            part = drive(plan_read(plan), answer)
        part.thread_id = thread_id
        return part

    def _defer_counts(self, thread_id: str, request: SaveCounts) -> None:
        """Keep the counts a read made for the thread's next append, which saves them in its own
        transaction (``messages.stores._turns``)."""
        self._memo.defer_counts(thread_id, request.counter, request.counts, request.ids)

    # -- summary checkpoints and token counts (messages.compaction) -----------------------------------------

    def add_checkpoint(
        self,
        thread_id: str,
        summary: Message,
        *,
        upto: int,
        base: str | None,
        provenance: Provenance | None = None,
        checkpoint_id: str | None = None,
    ) -> Checkpoint:
        """Store a summary checkpoint: ``summary`` stands for the thread's messages before ``upto`` (but its
        leading system messages), built on the checkpoint ``base`` (``None``: the thread's first).

        Compare and set, under the thread's write lock: ``base`` must be the thread's newest checkpoint, else
        ``CheckpointConflictError`` (carrying the newest, ``winner``), so that compactors racing on one
        thread store one checkpoint per base. ``upto`` must be after the base's and at most the thread's
        length (``InvalidCheckpointError``, ``PositionError``), and not on a tool result (which it would cut
        from its call). No message is touched: ``records()`` reads the same before and after.

        Args:
            thread_id: The thread the summary is of (a local thread).
            summary: The message that stands for the messages it covers (``messages.compaction``'s
                ``summary_message`` makes one): neither a tool result nor one that makes tool calls.
            upto: The position the summary covers up to, exclusive: reads give the summary, then the
                messages from ``upto`` on.
            base: The id of the thread's newest checkpoint, which this one builds on; ``None`` when the
                thread has none yet.
            provenance: How the summary was made (the summarizer's model, its tokens), stored with it;
                ``None``, the default: an empty ``Provenance``.
            checkpoint_id: The new checkpoint's id, unique in the thread; ``None``, the default, mints one
                (32 hex digits).

        Returns:
            The checkpoint as stored (its id and creation time set).

        Raises:
            InvalidThreadIdError: ``thread_id``, ``base`` or ``checkpoint_id`` is not a usable id.
            ThreadNotFoundError: no thread has that id.
            ThreadKindError: the thread is a remote one.
            MessageTypeError: ``summary`` is not a ``Message``.
            InvalidArgumentError: ``upto`` is not an int, or ``provenance`` is not a ``Provenance`` (or does
                not encode as JSON); nothing is written.
            CheckpointConflictError: ``base`` is not the thread's newest checkpoint (``winner`` is); nothing
                is written.
            PositionError: ``upto`` is past the thread's end.
            InvalidCheckpointError: ``upto`` is not after the base's (below 1 for the thread's first), or
                falls on a tool result; ``summary`` is a tool result or makes tool calls; ``checkpoint_id``
                is taken. Nothing is written.
            CorruptDataError: the newest checkpoint, read to report a conflict, no longer reads.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the operation before anything was written (safe to retry).
            MaybeWrittenError: the connection was lost while a write was out: it may have committed.
        """
        thread_id = check_thread_id(thread_id)
        checkpoint_id, text, meta = encode_checkpoint(thread_id, summary, provenance, checkpoint_id)
        if base is not None:
            base = check_checkpoint_id(base)
        with self._operation("add_checkpoint", thread_id, writes=True):
            stored = self._insert_checkpoint(thread_id, checkpoint_id, base, upto, text, meta)
        return decode_checkpoint(thread_id, stored)

    def checkpoints(self, thread_id: str) -> list[Checkpoint]:
        """The thread's checkpoints, oldest first: a chain, each built on the one before it.

        Args:
            thread_id: The thread to read.

        Returns:
            Every checkpoint of the thread, oldest first; empty when it has none.

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            ThreadNotFoundError: no thread has that id.
            ThreadKindError: the thread is a remote one.
            CorruptDataError: a stored checkpoint no longer reads (the thread and the checkpoint named).
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the read (safe to retry).
        """
        thread_id = check_thread_id(thread_id)
        with self._operation("checkpoints", thread_id, writes=False):
            rows = self._read_checkpoints(thread_id, newest=False)
        return [decode_checkpoint(thread_id, row) for row in rows]

    def latest_checkpoint(self, thread_id: str) -> Checkpoint | None:
        """The thread's newest checkpoint (one indexed read), or ``None`` when it has none.

        Args:
            thread_id: The thread to read.

        Returns:
            The newest checkpoint, the one a new checkpoint builds on (its ``base``); ``None`` when the
            thread has none.

        Raises what ``checkpoints`` raises.
        """
        thread_id = check_thread_id(thread_id)
        with self._operation("latest_checkpoint", thread_id, writes=False):
            rows = self._read_checkpoints(thread_id, newest=True)
        return decode_checkpoint(thread_id, rows[0]) if rows else None

    def delete_checkpoint(self, thread_id: str, checkpoint_id: str) -> list[str]:
        """Undo a checkpoint: remove it and the checkpoints built on it (which summarized its summary); the
        ids removed, newest first. ``CheckpointNotFoundError`` when the thread has no such checkpoint.

        Args:
            thread_id: The thread the checkpoint belongs to.
            checkpoint_id: The checkpoint to remove (a ``Checkpoint``'s ``id``).

        Returns:
            The ids of the checkpoints removed, newest first: ``checkpoint_id`` last.

        Raises:
            InvalidThreadIdError: ``thread_id`` or ``checkpoint_id`` is not a usable id.
            ThreadNotFoundError: no thread has that id.
            ThreadKindError: the thread is a remote one.
            CheckpointNotFoundError: the thread has no checkpoint with that id; nothing is removed.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the operation before anything was written (safe to retry).
            MaybeWrittenError: the connection was lost while a write was out: it may have committed.
        """
        thread_id = check_thread_id(thread_id)
        checkpoint_id = check_checkpoint_id(checkpoint_id)
        with self._operation("delete_checkpoint", thread_id, writes=True):
            return self._delete_checkpoint(thread_id, checkpoint_id)

    def token_counts(
        self, thread_id: str, counter: str, start: int = 0, stop: int | None = None
    ) -> list[int | None]:
        """The token count of each message of ``[start:stop]`` saved under ``counter``'s name, ``None``
        where none was saved; sliced as ``messages`` slices.

        Args:
            thread_id: The thread to read.
            counter: The name the counts are saved under, one per way of counting (a compactor's is its
                ``model=`` or ``counter_name=``): a non-empty string of at most 255 characters.
            start: The first position to read (0, the default, for the first message); a negative one
                counts from the end, as in a list slice, and ``None`` means 0.
            stop: The position to stop before (``None``, the default: the thread's end); a negative one
                counts from the end.

        Returns:
            One entry per message of ``[start:stop]``, oldest first: its token count under ``counter``, or
            ``None`` where none was saved.

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            InvalidArgumentError: ``counter`` is not a non-empty string of at most 255 characters, or
                ``start`` or ``stop`` is not an int or None.
            ThreadNotFoundError: no thread has that id.
            ThreadKindError: the thread is a remote one.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the read (safe to retry).
        """
        thread_id = check_thread_id(thread_id)
        counter = check_counter(counter)
        start, stop = check_positions(start, stop, "token_counts")
        with self._operation("token_counts", thread_id, writes=False):
            lo, hi, found = self._read_token_counts(thread_id, counter, start, stop)
        return [found.get(position) for position in range(lo, hi)]

    def save_token_counts(self, thread_id: str, counter: str, counts: Mapping[int, int]) -> None:
        """Save token counts made by ``counter`` (its name), ``{position: tokens}``, beside the messages: a
        message is counted once per counter. A count already saved stays (a counter counts a message the
        same every time). ``PositionError`` for a position the thread does not hold.

        Args:
            thread_id: The thread the counts are of.
            counter: The name the counts are saved under, one per way of counting (a compactor's is its
                ``model=`` or ``counter_name=``): a non-empty string of at most 255 characters.
            counts: The token count of each message counted, by position: ``{position: tokens}``, both
                ints of at least 0 (an empty mapping saves nothing).

        Raises:
            InvalidThreadIdError: ``thread_id`` is not a usable id (not a non-empty string).
            InvalidArgumentError: ``counter`` is not a non-empty string of at most 255 characters, or
                ``counts`` is not a mapping of ints of at least 0 to ints of at least 0; nothing is saved.
            ThreadNotFoundError: no thread has that id.
            ThreadKindError: the thread is a remote one.
            PositionError: a position the thread does not hold; nothing is saved.
            StoreClosedError: the store was closed.
            NotWrittenError: the database failed the operation before anything was written (safe to retry).
            MaybeWrittenError: the connection was lost while a write was out: it may have committed.
        """
        thread_id = check_thread_id(thread_id)
        counter = check_counter(counter)
        checked = check_counts(counts)
        if not checked:
            return
        with self._operation("save_token_counts", thread_id, writes=True):
            self._write_token_counts(thread_id, counter, checked)

    def close(self) -> None:
        """Refuse new calls (``StoreClosedError``), wait for the calls under way in other threads to end,
        then release the connections. When it returns, no call of this store can still write. Safe from
        any thread, and more than once.

        Raises:
            BackendError: the database failed while its connections were released (the store is closed
                all the same).
        """
        self._calls.close_and_wait()
        with _Release(self, "close", None, False):
            self._close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # -- what a backend implements (ids already checked; ThreadNotFoundError when there is no such thread) --

    @abstractmethod
    def _window_snapshot(self, thread_id: str, request: Window, tail: int) -> Snapshot:
        """The answer to a window read's ``Window`` request, ``tail`` rows from the end (at least: see
        ``TurnMemo.tail_rows``), from one snapshot of the thread
        (``ThreadNotFoundError``, ``not_local(thread_id, "read")``, ``missing_position`` as a read raises
        them); when the request asks for the checkpoint, ``_memo`` watches the thread from the length
        read."""

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

    @abstractmethod
    def _insert_checkpoint(
        self, thread_id: str, checkpoint_id: str, base: str | None, upto: int, summary: str, provenance: str
    ) -> StoredCheckpoint:
        """Under the thread's write lock: ``_checkpoints.admit`` it against the newest checkpoint, the
        thread's length and the role at ``upto``, then insert it; the row stored."""

    @abstractmethod
    def _read_checkpoints(self, thread_id: str, *, newest: bool) -> list[StoredCheckpoint]:
        """The thread's checkpoints, oldest first, or only its newest (``newest``)."""

    @abstractmethod
    def _delete_checkpoint(self, thread_id: str, checkpoint_id: str) -> list[str]:
        """Under the write lock, remove the checkpoint and those after it; their ids, newest first."""

    @abstractmethod
    def _read_token_counts(
        self, thread_id: str, counter: str, start: int, stop: int | None
    ) -> tuple[int, int, dict[int, int]]:
        """The positions ``[lo, hi)`` that ``[start:stop]`` selects, and the counts saved for them."""

    @abstractmethod
    def _write_token_counts(self, thread_id: str, counter: str, counts: dict[int, int]) -> None:
        """Save the counts not saved yet (``counts_past_end`` for a position past the thread's end)."""

    @abstractmethod
    def _read_metadata(self, thread_id: str, start: int, stop: int | None) -> tuple[int, Sequence[object]]:
        """As ``_read_rows``, the stored metadata (JSON text or ``None``) of each message instead."""

    @abstractmethod
    def _pop_record(
        self, thread_id: str, check: Callable[[MessageRecord], object] | None
    ) -> MessageRecord | None:
        """Under the thread's write lock: read the newest row (``(dump, id, metadata, created_at)``, as
        ``_read_records`` reads one), decode it (``records_of``: a ``CorruptDataError`` there rolls
        everything back) and give it to ``check`` (what it raises rolls back too); then delete it, its token
        counts and the checkpoints whose ``upto`` is past the new length, and shorten the thread; the
        decoded record, or ``None`` for an empty thread (``not_local(thread_id, "pop")`` for a remote
        one)."""


class AsyncThreadStore(ABC):
    """The async twin of ``ThreadStore``: the same methods, with the same arguments, results and errors,
    awaited; ``aclose()`` for ``close()``, ``async with`` for ``with``. None of them blocks the event loop.

    A cancelled call (``task.cancel()``, ``asyncio.wait_for``, ``asyncio.timeout``) is settled when its
    ``CancelledError`` reaches the caller: one that had not started never runs, one that had runs to its
    end first. So an append either wrote nothing or everything; a read right after tells which, and an
    append retried with the same ``ids`` and ``skip_existing=True`` adds what is missing, nothing twice.
    Works from any event loop, one after the other or at once in several threads."""

    @abstractmethod
    async def create_thread(self, thread_id: str | None = None) -> str:
        """As ``ThreadStore.create_thread``, awaited.

        Args:
            thread_id: The new thread's id; ``None``, the default, mints a random one.

        Returns:
            The thread's id: ``thread_id`` as given, or the minted one.

        Raises what ``ThreadStore.create_thread`` raises.

        Examples:
            ```python
            import asyncio

            from messages import AsyncInMemoryThreadStore, UserMessage


            async def main() -> None:
                async with AsyncInMemoryThreadStore() as store:
                    thread_id = await store.create_thread()
                    assert await store.messages(thread_id) == []
                    assert await store.create_thread("support-42") == "support-42"

            asyncio.run(main())
            ```
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
        """As ``ThreadStore.append``, awaited.

        Args:
            thread_id: The thread to add to (a local thread).
            messages: One ``Message``, or an iterable of them, in their order.
            ids: One id per message, each unique in the thread (``None``: minted ones).
            metadata: One JSON object for every message, or one per message (``None``: none).
            skip_existing: Leave out the messages whose ids the thread holds instead of raising
                ``MessageExistsError``.

        Returns:
            The positions the added messages got, as a ``range`` (empty when none was added).

        Raises what ``ThreadStore.append`` raises.

        Examples:
            ```python
            import asyncio

            from messages import AsyncInMemoryThreadStore, UserMessage


            async def main() -> None:
                async with AsyncInMemoryThreadStore() as store:
                    thread_id = await store.create_thread()
                    turn = [UserMessage(content="Hi")]
                    assert await store.append(thread_id, turn, ids=["u1"]) == range(0, 1)
                    # A retried turn (after a timeout, say) adds what is missing, nothing twice.
                    again = await store.append(thread_id, turn, ids=["u1"], skip_existing=True)
                    assert len(again) == 0

            asyncio.run(main())
            ```
        """

    @abstractmethod
    async def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """As ``ThreadStore.messages``, awaited.

        Args:
            thread_id: The thread to read.
            start: The first position to read (negative: from the end; ``None``: 0).
            stop: The position to stop before (``None``, the default: the end; negative: from the end).

        Returns:
            The messages of ``[start:stop]``, oldest first.

        Raises what ``ThreadStore.messages`` raises.

        Examples:
            ```python
            import asyncio

            from messages import AsyncInMemoryThreadStore, UserMessage


            async def main() -> None:
                async with AsyncInMemoryThreadStore() as store:
                    thread_id = await store.create_thread()
                    hi, bye = UserMessage(content="Hi"), UserMessage(content="Bye")
                    await store.append(thread_id, [hi, bye])
                    assert await store.messages(thread_id, -1) == [bye]

            asyncio.run(main())
            ```
        """

    @abstractmethod
    async def records(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[MessageRecord]:
        """As ``ThreadStore.records``, awaited.

        Args:
            thread_id: The thread to read.
            start: The first position to read (negative: from the end; ``None``: 0).
            stop: The position to stop before (``None``, the default: the end; negative: from the end).

        Returns:
            A ``MessageRecord`` (position, id, message, metadata, time) for each message of
            ``[start:stop]``, oldest first.

        Raises what ``ThreadStore.records`` raises.

        Examples:
            ```python
            import asyncio

            from messages import AsyncInMemoryThreadStore, UserMessage


            async def main() -> None:
                async with AsyncInMemoryThreadStore() as store:
                    thread_id = await store.create_thread()
                    hi = UserMessage(content="Hi")
                    await store.append(thread_id, hi, metadata={"lang": "en"})
                    [record] = await store.records(thread_id)
                    assert (record.position, record.metadata) == (0, {"lang": "en"})

            asyncio.run(main())
            ```
        """

    @abstractmethod
    async def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[str]:
        """As ``ThreadStore.roles``, awaited.

        Args:
            thread_id: The thread to read.
            start: The first position to read (negative: from the end; ``None``: 0).
            stop: The position to stop before (``None``, the default: the end; negative: from the end).

        Returns:
            The role of each message of ``[start:stop]``, oldest first.

        Raises what ``ThreadStore.roles`` raises.
        """

    @abstractmethod
    async def threads(self) -> list[str]:
        """As ``ThreadStore.threads``, awaited.

        Returns:
            Every thread id of the store, oldest first.

        Raises what ``ThreadStore.threads`` raises.
        """

    @abstractmethod
    async def delete_thread(self, thread_id: str) -> None:
        """As ``ThreadStore.delete_thread``, awaited.

        Args:
            thread_id: The thread to remove, with its messages.

        Raises what ``ThreadStore.delete_thread`` raises.
        """

    @abstractmethod
    async def save_thread(self, thread: LocalThread | RemoteThread) -> None:
        """As ``ThreadStore.save_thread``, awaited.

        Args:
            thread: The ``LocalThread`` or ``RemoteThread`` value to store under its ``id``.

        Raises what ``ThreadStore.save_thread`` raises.

        Examples:
            ```python
            import asyncio

            from messages import AsyncSQLiteThreadStore, RemoteThread


            async def main() -> None:
                async with AsyncSQLiteThreadStore("threads.db") as store:
                    await store.save_thread(RemoteThread(id="chat-7", response_id="resp_1"))
                    thread = await store.load_thread("chat-7")
                    assert isinstance(thread, RemoteThread) and thread.response_id == "resp_1"

            asyncio.run(main())
            ```
        """

    @abstractmethod
    async def load_thread(self, thread_id: str) -> LocalThread | RemoteThread:
        """As ``ThreadStore.load_thread``, awaited.

        Args:
            thread_id: The thread to reopen.

        Returns:
            The saved value, of the type it was saved as: a ``LocalThread`` or a ``RemoteThread``.

        Raises what ``ThreadStore.load_thread`` raises.

        Examples:
            ```python
            import asyncio

            from messages import AsyncSQLiteThreadStore, LocalThread, UserMessage


            async def main() -> None:
                async with AsyncSQLiteThreadStore("bot.db") as store:
                    thread_id = await store.create_thread()
                    await store.append(thread_id, UserMessage(content="Hi"))
                async with AsyncSQLiteThreadStore("bot.db") as store:  # later, in another process
                    thread = await store.load_thread(thread_id)
                    assert isinstance(thread, LocalThread)
                    assert await store.messages(thread.id) == [UserMessage(content="Hi")]

            asyncio.run(main())
            ```
        """

    @abstractmethod
    async def thread_info(self, thread_id: str) -> ThreadInfo:
        """As ``ThreadStore.thread_info``, awaited.

        Args:
            thread_id: The thread to describe.

        Returns:
            A ``ThreadInfo``: the thread's kind, length and timestamps (UTC).

        Raises what ``ThreadStore.thread_info`` raises.
        """

    @abstractmethod
    async def metadata(
        self, thread_id: str, start: int = 0, stop: int | None = None
    ) -> list[dict[str, JsonValue]]:
        """As ``ThreadStore.metadata``, awaited.

        Args:
            thread_id: The thread to read.
            start: The first position to read (negative: from the end; ``None``: 0).
            stop: The position to stop before (``None``, the default: the end; negative: from the end).

        Returns:
            The JSON object appended with each message of ``[start:stop]`` (``{}`` where none was).

        Raises what ``ThreadStore.metadata`` raises.
        """

    @abstractmethod
    async def pop(
        self, thread_id: str, *, check: Callable[[MessageRecord], object] | None = None
    ) -> MessageRecord | None:
        """As ``ThreadStore.pop``, awaited.

        Args:
            thread_id: The thread to remove the newest message of.
            check: Called with the newest record before anything is removed (a sync function): what it
                raises undoes the pop and goes on to the caller; ``None``, the default: no check.

        Returns:
            The removed message's record, or ``None`` when the thread holds none.

        Raises what ``ThreadStore.pop`` raises.

        Examples:
            ```python
            import asyncio

            from messages import AsyncInMemoryThreadStore, UserMessage


            async def main() -> None:
                async with AsyncInMemoryThreadStore() as store:
                    thread_id = await store.create_thread()
                    hi, oops = UserMessage(content="Hi"), UserMessage(content="Oops")
                    await store.append(thread_id, [hi, oops])
                    popped = await store.pop(thread_id)
                    assert popped is not None and popped.message == oops
                    assert await store.messages(thread_id) == [hi]

            asyncio.run(main())
            ```
        """

    @abstractmethod
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
        """As ``ThreadStore.add_checkpoint``, awaited.

        Args:
            thread_id: The thread the summary is of.
            summary: The message that stands for the messages before ``upto``.
            upto: The position the summary covers up to, exclusive.
            base: The id of the thread's newest checkpoint (``None`` when it has none).
            provenance: How the summary was made (``None``: an empty ``Provenance``).
            checkpoint_id: The new checkpoint's id (``None``: a minted one).

        Returns:
            The checkpoint as stored.

        Raises what ``ThreadStore.add_checkpoint`` raises.
        """

    @abstractmethod
    async def checkpoints(self, thread_id: str) -> list[Checkpoint]:
        """As ``ThreadStore.checkpoints``, awaited.

        Args:
            thread_id: The thread to read.

        Returns:
            Every checkpoint of the thread, oldest first.

        Raises what ``ThreadStore.checkpoints`` raises.
        """

    @abstractmethod
    async def latest_checkpoint(self, thread_id: str) -> Checkpoint | None:
        """As ``ThreadStore.latest_checkpoint``, awaited.

        Args:
            thread_id: The thread to read.

        Returns:
            The newest checkpoint, or ``None`` when the thread has none.

        Raises what ``ThreadStore.latest_checkpoint`` raises.
        """

    @abstractmethod
    async def delete_checkpoint(self, thread_id: str, checkpoint_id: str) -> list[str]:
        """As ``ThreadStore.delete_checkpoint``, awaited.

        Args:
            thread_id: The thread the checkpoint belongs to.
            checkpoint_id: The checkpoint to remove, with those built on it.

        Returns:
            The ids of the checkpoints removed, newest first.

        Raises what ``ThreadStore.delete_checkpoint`` raises.
        """

    @abstractmethod
    async def token_counts(
        self, thread_id: str, counter: str, start: int = 0, stop: int | None = None
    ) -> list[int | None]:
        """As ``ThreadStore.token_counts``, awaited.

        Args:
            thread_id: The thread to read.
            counter: The name the counts are saved under (a non-empty string).
            start: The first position to read (negative: from the end; ``None``: 0).
            stop: The position to stop before (``None``, the default: the end; negative: from the end).

        Returns:
            The token count of each message of ``[start:stop]`` under ``counter`` (``None``: not saved).

        Raises what ``ThreadStore.token_counts`` raises.
        """

    @abstractmethod
    async def save_token_counts(self, thread_id: str, counter: str, counts: Mapping[int, int]) -> None:
        """As ``ThreadStore.save_token_counts``, awaited.

        Args:
            thread_id: The thread the counts are of.
            counter: The name the counts are saved under (a non-empty string).
            counts: ``{position: tokens}``, ints of at least 0.

        Raises what ``ThreadStore.save_token_counts`` raises.
        """

    @abstractmethod
    async def aclose(self) -> None:
        """``ThreadStore.close``.

        Raises what ``ThreadStore.close`` raises; a cancellation of the awaiting task is let through once
        the store is closed.
        """

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()


async def _outlast(future: asyncio.Future[Any]) -> bool:
    """Wait until ``future`` is done, through any cancellation of the waiting task, and retrieve its
    outcome (its caller was cancelled: no one else will). ``True`` when the waiting task was cancelled
    meanwhile: the caller lets that through once it is done."""
    import asyncio

    cancelled = False
    while not future.done():
        try:
            await asyncio.wait((future,))
        except asyncio.CancelledError:
            cancelled = True
    if not future.cancelled():
        future.exception()
    return cancelled


async def _settled_job(job: Future[_R]) -> _R:
    """The outcome of ``job``, a store call submitted to a worker thread. When the awaiting task is
    cancelled meanwhile (``task.cancel()``, a timeout), a job that has not started is cancelled and never
    runs, and one that has is awaited to its end: the ``CancelledError`` goes on once its write is settled,
    so a read right after tells the truth and nothing lands later."""
    import asyncio

    try:
        return await asyncio.wrap_future(job)
    except asyncio.CancelledError:
        if not job.cancel():  # running (or done): it runs to its end, and is waited for
            await _outlast(asyncio.wrap_future(job))
        raise


async def in_worker(function: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R:
    """``function(*args, **kwargs)`` (a sync store's call) in a thread of the loop's default executor, as
    ``asyncio.to_thread`` runs it, and settled as an async store's calls are: when the awaiting task is
    cancelled, a call that has not started never runs, and one that has is awaited to its end before the
    ``CancelledError`` goes on (``to_thread`` lets it run on, and write, after the error)."""
    import asyncio
    from concurrent.futures import Future

    job: Future[_R] = Future()

    def run() -> None:
        if job.set_running_or_notify_cancel():  # False: cancelled before a thread took it up
            try:
                job.set_result(function(*args, **kwargs))
            except BaseException as exc:  # handed to the caller with the job
                job.set_exception(exc)

    asyncio.get_running_loop().run_in_executor(None, run)
    return await _settled_job(job)


async def call_store(store: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """``store.<method>(*args, **kwargs)`` from async code: awaited on an ``AsyncThreadStore``, else run
    by ``in_worker`` (settled when the awaiting task is cancelled). What the integrations call a store
    through."""
    bound = getattr(store, method)
    if isinstance(store, AsyncThreadStore):
        return await bound(*args, **kwargs)
    return await in_worker(bound, *args, **kwargs)


class _Progress:
    """How far a call of a ``LoopStore`` has gone: whether its write has started (a statement may be out
    to the database); and the task that runs it."""

    __slots__ = ("task", "writing")

    def __init__(self) -> None:
        self.writing = False
        self.task: object = None


_CALL: contextvars.ContextVar[_Progress | None] = contextvars.ContextVar("messages_store_call", default=None)
"""The progress of the ``LoopStore`` call that the running task serves, if any. A context copied during
the call (a task or callback it scheduled) holds it too, in another task, during the call and after it:
only the task that runs the call counts (``_call_progress``)."""


def _owner() -> object:
    """The running asyncio task, or this thread's id where none runs: who a store call (its progress, its
    bound) belongs to."""
    asyncio = sys.modules.get("asyncio")  # not imported: no task can run (nor is it imported here)
    if asyncio is not None:
        loop = asyncio._get_running_loop()
        if loop is not None:
            task = asyncio.current_task(loop)
            if task is not None:
                return task
    return threading.get_ident()


def _call_progress() -> _Progress | None:
    """The progress of the ``LoopStore`` call that this task runs, if it runs one."""
    progress = _CALL.get()
    if progress is None:
        return None
    return progress if progress.task is _owner() else None


async def _run_call(progress: _Progress, call: Coroutine[Any, Any, _R]) -> _R:
    """``call``, the body of a ``LoopStore`` call, in the task made for it, which ``progress`` names
    before anything of the call runs."""
    progress.task = _owner()
    return await call


def started_writing() -> None:
    """Mark the ``LoopStore`` call under way as one whose write has started (its first statement is about
    to go out): cancelling its caller now waits for its end instead of stopping it."""
    progress = _call_progress()
    if progress is not None:
        progress.writing = True


_M = TypeVar("_M", bound=Callable[..., Coroutine[Any, Any, Any]])


def _settling(method: _M) -> _M:
    """``method`` (a public coroutine method of a ``LoopStore``) counted as a call in flight until its
    caller has its outcome, and run as a task of its own: when the caller is cancelled, the call is
    cancelled too if its write has not started (``started_writing``), and awaited to its end if it has;
    either way the ``CancelledError`` goes on once the call is over."""

    @functools.wraps(method)
    async def settled(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _call_progress() is not None or not self._calls.enter():
            # A call made by a call of the store, in its task (the outer one settles it), or one made once
            # the store is closing (its `_operation` raises StoreClosedError naming it).
            return await method(self, *args, **kwargs)
        try:
            import asyncio

            progress = _Progress()
            token = _CALL.set(progress)
            try:  # the task runs in a copy of this context, so it sees `progress`
                task = asyncio.get_running_loop().create_task(
                    _run_call(progress, method(self, *args, **kwargs))
                )
            finally:
                _CALL.reset(token)
            try:
                return await asyncio.shield(task)
            except asyncio.CancelledError:
                if not progress.writing:
                    task.cancel()  # it was waiting for a connection: nothing of it reached the database
                await _outlast(task)
                raise
        finally:
            # Counted out in the caller's task, as it gets the outcome: aclose() returns after that.
            self._calls.leave()

    return settled  # type: ignore[return-value]


class LoopStore(_Failures, AsyncThreadStore):
    """An ``AsyncThreadStore`` whose calls run on the event loop itself (natively async: the PostgreSQL
    store, on psycopg's ``AsyncConnection``).

    Each public coroutine method that a subclass defines (``aclose`` aside) is wrapped by ``_settling``
    when the class is made, methods added later included: a call is in flight until its caller has its
    outcome (``aclose()`` returns after that), and a cancelled call whose write has started runs to its end
    before the cancellation goes on, while one still waiting for a connection stops. The backend marks
    the start of a write with ``started_writing()`` when it hands a writing call its connection, and runs
    each call's work in ``_operation`` (refused once the store is closing; failures mapped)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, value in list(vars(cls).items()):
            if not name.startswith("_") and name != "aclose" and inspect.iscoroutinefunction(value):
                setattr(cls, name, _settling(value))


class OffloadedStore(AsyncThreadStore):
    """An ``AsyncThreadStore`` made of a sync one, whose calls run in a dedicated worker thread (``workers``
    threads, each with its own connection) or, for a store that never waits (``workers=0``: in memory),
    inline: the sync store's contract and errors, by construction, without blocking the loop.

    Every method goes through ``_call``, methods added later included:

    * a call is in flight until its caller has its outcome; ``aclose()`` refuses new calls, lets the ones
      queued for a worker raise ``StoreClosedError`` when they come up, waits for the ones running, then
      closes the sync store;
    * a cancelled call (``task.cancel()``, a timeout) that has not started in a worker never runs; one that
      has runs to its end, and the ``CancelledError`` goes on once it is over (``_settled_job``);
    * inline calls let the loop run its other tasks at least every millisecond (``_Turns``: a tight loop of
      calls cannot starve them); an inline call runs whole in one step of its caller's task, so a
      cancellation comes before it (nothing written) or after it (written)."""

    def __init__(self, store: ThreadStore, *, workers: int) -> None:
        # asyncio and its executors load with the first async store, not with `import messages`.
        from concurrent.futures import ThreadPoolExecutor

        self._sync = store
        self._sync._label = self._label  # type: ignore[method-assign]  # errors name the async store
        self._pool: ThreadPoolExecutor | None = (
            ThreadPoolExecutor(max_workers=workers, thread_name_prefix="messages-store") if workers else None
        )
        self._calls = _Calls()
        """The calls in flight, counted from the caller's side (the sync store counts its own)."""
        self._turns = _Turns()

    def _label(self) -> str:
        return repr(self)

    async def _call(self, method: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if self._pool is None:
            # Inline: the sync store counts the call, which runs whole in this step of the caller's task,
            # and refuses it once closing.
            if self._turns.due():
                await _next_turn()
            return method(*args, **kwargs)
        if not self._calls.enter():  # closing: the sync store refuses it at once, naming it
            return method(*args, **kwargs)
        try:
            try:
                job = self._pool.submit(method, *args, **kwargs)
            except RuntimeError:  # shut down meanwhile by an aclose() in another thread: the store says so
                return method(*args, **kwargs)
            return await _settled_job(job)
        finally:
            self._calls.leave()

    @property
    def _memo(self) -> TurnMemo:
        """The sync store's memo of its threads' turns (its appends and reads are this store's)."""
        return self._sync._memo

    def _defer_counts(self, thread_id: str, request: SaveCounts) -> None:
        self._sync._defer_counts(thread_id, request)

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

    async def metadata(
        self, thread_id: str, start: int = 0, stop: int | None = None
    ) -> list[dict[str, JsonValue]]:
        return await self._call(self._sync.metadata, thread_id, start, stop)

    async def pop(
        self, thread_id: str, *, check: Callable[[MessageRecord], object] | None = None
    ) -> MessageRecord | None:
        return await self._call(self._sync.pop, thread_id, check=check)

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
        return await self._call(
            self._sync.add_checkpoint,
            thread_id,
            summary,
            upto=upto,
            base=base,
            provenance=provenance,
            checkpoint_id=checkpoint_id,
        )

    async def checkpoints(self, thread_id: str) -> list[Checkpoint]:
        return await self._call(self._sync.checkpoints, thread_id)

    async def latest_checkpoint(self, thread_id: str) -> Checkpoint | None:
        return await self._call(self._sync.latest_checkpoint, thread_id)

    async def delete_checkpoint(self, thread_id: str, checkpoint_id: str) -> list[str]:
        return await self._call(self._sync.delete_checkpoint, thread_id, checkpoint_id)

    async def token_counts(
        self, thread_id: str, counter: str, start: int = 0, stop: int | None = None
    ) -> list[int | None]:
        return await self._call(self._sync.token_counts, thread_id, counter, start, stop)

    async def save_token_counts(self, thread_id: str, counter: str, counts: Mapping[int, int]) -> None:
        await self._call(self._sync.save_token_counts, thread_id, counter, counts)

    async def aclose(self) -> None:
        self._sync._calls.close(_nothing)  # a job that comes up in a worker from now on is refused
        cancelled = await self._calls.aclose_and_wait()  # every caller has its outcome, on any loop
        try:
            self._sync.close()  # no call of its own is running: it releases the connections at once
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=False)  # the jobs still queued come up and raise StoreClosedError
        if cancelled:
            import asyncio

            raise asyncio.CancelledError


def _nothing() -> None:
    return None


class _Turns:
    """When the inline calls of a store (``workers=0``: in memory) hand the loop back to its other tasks:
    before a call, once ``EVERY`` seconds have passed since they last did in this thread. A tight loop of
    calls then holds the loop a millisecond at most (plus one call), and costs a loop turn every
    millisecond, not every call (a turn, an epoll of the loop, costs as much as an in-memory append)."""

    EVERY = 0.001

    def __init__(self) -> None:
        self._local = threading.local()  # per thread: each has its own loop

    def due(self) -> bool:
        """Whether the next call hands the loop back first (and, if so, the one after waits ``EVERY``)."""
        now = time.monotonic()
        if now < getattr(self._local, "due", 0.0):
            return False
        self._local.due = now + self.EVERY
        return True


async def _next_turn() -> None:
    """Let the loop run its other tasks (a cancellation of the caller comes here, before its call)."""
    import asyncio

    await asyncio.sleep(0)
