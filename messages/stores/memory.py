"""``InMemoryThreadStore`` and ``AsyncInMemoryThreadStore``: the contract in a dict, for tests and
single-process bots that keep nothing.

It keeps each message as its JSON dump, as the database backends do, so what it gives back is a fresh value
equal to what was appended (never the caller's object), and it behaves like them in every other respect.
One lock makes it safe to share between threads; it is not shared between processes. ``close()`` drops
everything. The async twin is the same store behind awaited methods: its calls never wait on I/O, so they
run inline on the loop.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from messages._window import SaveCounts, Snapshot, Window, WindowRow, window_row
from messages.errors import CheckpointNotFoundError, ThreadExistsError, ThreadNotFoundError
from messages.stores._checkpoints import StoredCheckpoint, admit, counts_past_end, decode_checkpoint
from messages.stores._codec import Row, StoredThread, bounds, kind_change, message_exists, not_local, utc_now
from messages.stores._failures import ClosedError
from messages.stores.base import MessageRecord, OffloadedStore, ThreadStore, records_of

__all__ = ["AsyncInMemoryThreadStore", "InMemoryThreadStore"]


@dataclass
class _Record:
    state: str
    kind: str
    created_at: datetime
    updated_at: datetime
    rows: list[tuple[Row, datetime]] = field(default_factory=list)
    positions: dict[str, int] = field(default_factory=dict)  # message id -> position
    checkpoints: list[StoredCheckpoint] = field(default_factory=list)  # the chain, oldest first
    counts: dict[str, dict[int, int]] = field(default_factory=dict)  # counter -> position -> tokens


class InMemoryThreadStore(ThreadStore):
    """Threads in this process's memory; thread-safe; gone when the process ends.

    Raises nothing.

    Examples:
        ```python
        from messages import InMemoryThreadStore, LocalThread, UserMessage

        store = InMemoryThreadStore()
        thread = LocalThread()
        store.save_thread(thread)
        thread.append(store, UserMessage(content="hi"))
        assert store.messages(thread.id) == [UserMessage(content="hi")]
        store.close()  # drops every thread
        ```
    """

    def __init__(self) -> None:
        super().__init__()
        self._threads: dict[str, _Record] = {}  # insertion order: oldest first
        self._lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return "InMemoryThreadStore()"

    def _close(self) -> None:
        # Every thread is dropped; the store cannot be used afterwards.
        with self._lock:
            self._closed = True
            self._threads.clear()

    def _get(self, thread_id: str) -> _Record:
        self._check_open()
        record = self._threads.get(thread_id)
        if record is None:
            raise ThreadNotFoundError(thread_id)
        return record

    def _get_local(self, thread_id: str, action: Literal["append", "read"]) -> _Record:
        record = self._get(thread_id)
        if record.kind != "local":
            raise not_local(thread_id, action)
        return record

    def _check_open(self) -> None:
        if self._closed:
            raise ClosedError

    def _insert_thread(self, thread_id: str, state: str) -> None:
        now = utc_now()
        with self._lock:
            self._check_open()
            if thread_id in self._threads:
                raise ThreadExistsError(thread_id)
            self._threads[thread_id] = _Record(state, "local", now, now)

    def _append_rows(self, thread_id: str, rows: list[Row], skip_existing: bool) -> tuple[int, int]:
        with self._lock:
            record = self._get_local(thread_id, "append")
            first = len(record.rows)
            held = [row for row in rows if row.id in record.positions]
            if held and not skip_existing:
                raise message_exists(thread_id, held[0].id, record.positions[held[0].id])
            if held:
                rows = [row for row in rows if row.id not in record.positions]
            if rows:
                now = utc_now()
                record.rows.extend((row, now) for row in rows)
                record.positions.update((row.id, first + offset) for offset, row in enumerate(rows))
                record.updated_at = now
        return first, len(rows)

    def _range(self, thread_id: str, start: int, stop: int | None) -> tuple[int, list[tuple[Row, datetime]]]:
        with self._lock:
            rows = self._get_local(thread_id, "read").rows
            lo, hi = bounds(start, stop, len(rows))
            return lo, rows[lo:hi]

    def _read_rows(self, thread_id: str, start: int, stop: int | None) -> tuple[int, list[str]]:
        lo, rows = self._range(thread_id, start, stop)
        return lo, [row.text for row, _ in rows]

    def _read_records(
        self, thread_id: str, start: int, stop: int | None
    ) -> tuple[int, list[tuple[Any, ...]]]:
        lo, rows = self._range(thread_id, start, stop)
        return lo, [(row.text, row.id, row.metadata, at) for row, at in rows]

    def _read_roles(self, thread_id: str, start: int, stop: int | None) -> list[str]:
        return [row.role for row, _ in self._range(thread_id, start, stop)[1]]

    def _thread_ids(self) -> list[str]:
        with self._lock:
            self._check_open()
            return list(self._threads)

    def _delete_thread(self, thread_id: str) -> None:
        with self._lock:
            self._get(thread_id)
            del self._threads[thread_id]

    def _write_state(self, thread_id: str, state: str, kind: str) -> None:
        now = utc_now()
        with self._lock:
            self._check_open()
            record = self._threads.get(thread_id)
            if record is None:
                self._threads[thread_id] = _Record(state, kind, now, now)
            elif record.kind != kind:
                raise kind_change(thread_id, record.kind, kind)
            else:
                record.state = state
                record.updated_at = now

    def _window_snapshot(self, thread_id: str, request: Window, tail: int) -> Snapshot:
        with self._lock:
            record = self._get_local(thread_id, "read")
            length = len(record.rows)
            saved = record.counts.get(request.counter, {}) if request.counter else {}
            newest = record.checkpoints[-1] if request.checkpoint and record.checkpoints else None
            # As the SQL stores read: the page from the end (never below the newest checkpoint) and the lead.
            first = max(request.lead, length - tail, newest.upto if newest is not None else 0)
            positions = [*range(min(request.lead, length)), *range(first, length)]
            rows: dict[int, WindowRow] = {}
            for position in positions:
                row = record.rows[position][0]
                rows[position] = window_row(position, row.role, saved.get(position), row.text, row.id)
            if request.checkpoint:
                self._memo.watch(thread_id, length)
        checkpoint = decode_checkpoint(thread_id, newest) if newest is not None else None
        return Snapshot(length, checkpoint, rows, self._memo if request.checkpoint else None)

    def _defer_counts(self, thread_id: str, request: SaveCounts) -> None:
        # Nothing to gain by waiting for the next append: saved now (of the messages still there).
        with self._lock:
            record = self._threads.get(thread_id)
            if record is None:
                return
            saved = record.counts.setdefault(request.counter, {})
            for position, tokens in request.counts.items():
                held = record.rows[position][0].id if position < len(record.rows) else None
                expected = request.ids.get(position) if request.ids else None
                if held is not None and (expected is None or held == expected):
                    saved.setdefault(position, tokens)

    def _read_thread(self, thread_id: str) -> StoredThread:
        with self._lock:
            record = self._get(thread_id)
            return StoredThread(record.state, len(record.rows), record.created_at, record.updated_at)

    def _insert_checkpoint(
        self, thread_id: str, checkpoint_id: str, base: str | None, upto: int, summary: str, provenance: str
    ) -> StoredCheckpoint:
        with self._lock:
            record = self._get_local(thread_id, "append")
            chain = record.checkpoints
            length = len(record.rows)
            role = record.rows[upto][0].role if isinstance(upto, int) and 0 <= upto < length else None
            taken = any(c.id == checkpoint_id for c in chain)
            upto = admit(
                thread_id, checkpoint_id, base, upto, length, chain[-1] if chain else None, role, taken
            )
            stored = StoredCheckpoint(checkpoint_id, base, upto, summary, provenance, utc_now())
            chain.append(stored)
            return stored

    def _read_checkpoints(self, thread_id: str, *, newest: bool) -> list[StoredCheckpoint]:
        with self._lock:
            chain = self._get_local(thread_id, "read").checkpoints
            return chain[-1:] if newest else list(chain)

    def _delete_checkpoint(self, thread_id: str, checkpoint_id: str) -> list[str]:
        with self._lock:
            chain = self._get_local(thread_id, "append").checkpoints
            at = next((i for i, c in enumerate(chain) if c.id == checkpoint_id), None)
            if at is None:
                raise CheckpointNotFoundError(thread_id, checkpoint_id)
            removed = [c.id for c in reversed(chain[at:])]
            del chain[at:]
            return removed

    def _read_token_counts(
        self, thread_id: str, counter: str, start: int, stop: int | None
    ) -> tuple[int, int, dict[int, int]]:
        with self._lock:
            record = self._get_local(thread_id, "read")
            lo, hi = bounds(start, stop, len(record.rows))
            saved = record.counts.get(counter, {})
            return lo, hi, {p: saved[p] for p in range(lo, hi) if p in saved}

    def _write_token_counts(self, thread_id: str, counter: str, counts: dict[int, int]) -> None:
        with self._lock:
            record = self._get_local(thread_id, "append")
            past = counts_past_end(thread_id, counts, len(record.rows))
            if past is not None:
                raise past
            saved = record.counts.setdefault(counter, {})
            for position, tokens in counts.items():
                saved.setdefault(position, tokens)

    def _read_metadata(self, thread_id: str, start: int, stop: int | None) -> tuple[int, list[str | None]]:
        lo, rows = self._range(thread_id, start, stop)
        return lo, [row.metadata for row, _ in rows]

    def _pop_record(
        self, thread_id: str, check: Callable[[MessageRecord], object] | None
    ) -> MessageRecord | None:
        with self._lock:
            record = self._get(thread_id)
            if record.kind != "local":
                raise not_local(thread_id, "pop")
            if not record.rows:
                return None
            position = len(record.rows) - 1
            row, at = record.rows[position]
            # Decoded before anything is removed: a row that no longer reads stays where it is.
            [popped] = records_of(thread_id, position, [(row.text, row.id, row.metadata, at)])
            if check is not None:
                check(popped)
            del record.rows[position]
            del record.positions[row.id]
            for saved in record.counts.values():
                saved.pop(position, None)
            record.checkpoints[:] = [c for c in record.checkpoints if c.upto <= position]
            record.updated_at = utc_now()
            return popped


class AsyncInMemoryThreadStore(OffloadedStore):
    """``InMemoryThreadStore`` behind awaited methods (its calls hold a lock for microseconds and never wait
    on I/O, so they run on the loop).

    Raises nothing.

    Examples:
        ```python
        import asyncio

        from messages import AsyncInMemoryThreadStore, LocalThread, UserMessage


        async def main():
            async with AsyncInMemoryThreadStore() as store:
                thread = LocalThread()
                await store.save_thread(thread)
                await thread.aappend(store, UserMessage(content="hi"))
                assert await store.messages(thread.id) == [UserMessage(content="hi")]


        asyncio.run(main())
        ```
    """

    def __init__(self) -> None:
        super().__init__(InMemoryThreadStore(), workers=0)

    def __repr__(self) -> str:
        return "AsyncInMemoryThreadStore()"
