"""``InMemoryThreadStore``: the contract in a dict, for tests and single-process bots that keep nothing.

It keeps each message as its JSON dump, as the database backends do, so what it gives back is a fresh value
equal to what was appended (never the caller's object), and it behaves like them in every other respect.
One lock makes it safe to share between threads; it is not shared between processes. ``close()`` drops
everything.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from messages.errors import ThreadExistsError, ThreadNotFoundError
from messages.stores._failures import ClosedError
from messages.stores.base import StoredThread, ThreadStore, bounds, kind_change, not_local, utc_now

__all__ = ["InMemoryThreadStore"]


@dataclass
class _Record:
    state: str
    kind: str
    created_at: datetime
    updated_at: datetime
    rows: list[str] = field(default_factory=list)


class InMemoryThreadStore(ThreadStore):
    """Threads in this process's memory; thread-safe; gone when the process ends."""

    def __init__(self) -> None:
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

    def _append_rows(self, thread_id: str, rows: list[str]) -> int:
        with self._lock:
            record = self._get_local(thread_id, "append")
            first = len(record.rows)
            if rows:
                record.rows.extend(rows)
                record.updated_at = utc_now()
        return first

    def _read_rows(self, thread_id: str, start: int, stop: int | None) -> tuple[int, list[str]]:
        with self._lock:
            rows = self._get_local(thread_id, "read").rows
            lo, hi = bounds(start, stop, len(rows))
            return lo, rows[lo:hi]

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

    def _read_thread(self, thread_id: str) -> StoredThread:
        with self._lock:
            record = self._get(thread_id)
            return StoredThread(record.state, len(record.rows), record.created_at, record.updated_at)
