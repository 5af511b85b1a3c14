"""``InMemoryThreadStore``: the contract in a dict, for tests and single-process bots that keep nothing.

It keeps each message as its JSON dump, as the database backends do, so what it gives back is a fresh value
equal to what was appended (never the caller's object), and it behaves like them in every other respect.
One lock makes it safe to share between threads; it is not shared between processes. ``close()`` drops
everything.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from messages.errors import StoreError, ThreadExistsError, ThreadNotFoundError
from messages.models import Message
from messages.stores.base import (
    ThreadInfo,
    ThreadStore,
    bounds,
    check_thread_id,
    decode_messages,
    decode_thread,
    encode_messages,
    encode_thread,
    utc_now,
)
from messages.threads import LocalThread, RemoteThread, new_thread_id

__all__ = ["InMemoryThreadStore"]


@dataclass
class _Record:
    state: str
    created_at: datetime
    updated_at: datetime
    rows: list[str] = field(default_factory=list)


class InMemoryThreadStore(ThreadStore):
    """Threads in this process's memory; thread-safe; gone when the process ends."""

    def __init__(self) -> None:
        self._threads: dict[str, _Record] = {}  # insertion order: oldest first
        self._lock = threading.Lock()
        self._closed = False

    def close(self) -> None:
        """Drop every thread; the store cannot be used afterwards."""
        with self._lock:
            self._closed = True
            self._threads.clear()

    def _get(self, thread_id: str) -> _Record:
        self._check_open()
        record = self._threads.get(check_thread_id(thread_id))
        if record is None:
            raise ThreadNotFoundError(thread_id)
        return record

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("this InMemoryThreadStore is closed")

    def create_thread(self, thread_id: str | None = None) -> str:
        thread_id = new_thread_id() if thread_id is None else check_thread_id(thread_id)
        state = encode_thread(LocalThread(id=thread_id))
        now = utc_now()
        with self._lock:
            self._check_open()
            if thread_id in self._threads:
                raise ThreadExistsError(thread_id)
            self._threads[thread_id] = _Record(state, now, now)
        return thread_id

    def append(self, thread_id: str, messages: Message | Iterable[Message]) -> range:
        encoded = encode_messages(messages)
        with self._lock:
            record = self._get(thread_id)
            first = len(record.rows)
            if encoded:
                record.rows.extend(encoded)
                record.updated_at = utc_now()
        return range(first, first + len(encoded))

    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        with self._lock:
            rows = self._get(thread_id).rows
            lo, hi = bounds(start, stop, len(rows))
            selected = rows[lo:hi]
        return decode_messages(thread_id, lo, selected)

    def threads(self) -> list[str]:
        with self._lock:
            self._check_open()
            return list(self._threads)

    def delete_thread(self, thread_id: str) -> None:
        with self._lock:
            self._get(thread_id)
            del self._threads[thread_id]

    def save_thread(self, thread: LocalThread | RemoteThread) -> None:
        state = encode_thread(thread)
        now = utc_now()
        with self._lock:
            self._check_open()
            record = self._threads.get(thread.id)
            if record is None:
                self._threads[thread.id] = _Record(state, now, now)
            else:
                record.state = state
                record.updated_at = now

    def load_thread(self, thread_id: str) -> LocalThread | RemoteThread:
        with self._lock:
            state = self._get(thread_id).state
        return decode_thread(thread_id, state)

    def thread_info(self, thread_id: str) -> ThreadInfo:
        with self._lock:
            record = self._get(thread_id)
            state, length, created, updated = (
                record.state,
                len(record.rows),
                record.created_at,
                record.updated_at,
            )
        return ThreadInfo(thread_id, decode_thread(thread_id, state).kind, length, created, updated)
