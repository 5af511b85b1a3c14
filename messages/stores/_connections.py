"""One database connection per thread and per process, for the SQLite and PostgreSQL stores.

sqlite3 connections must not be shared between threads that use them at once, and no connection may cross
a fork (the child would write through its parent's file locks or socket). So each thread of each process
gets its own; a forked child abandons its parent's (never closing them: they are the parent's), and the
connections of threads that have ended are closed when the next one is opened, so a pool of short-lived
threads does not pile them up.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from messages.stores._failures import ClosedError

__all__ = ["PerThread"]

C = TypeVar("C")


class PerThread(Generic[C]):
    """The calling thread's connection, opened on first use by ``open``; ``close_all`` ends them all."""

    def __init__(
        self,
        open: Callable[[], C],
        close: Callable[[C], None],
        *,
        usable: Callable[[C], bool] = lambda _: True,
    ) -> None:
        self._open = open
        self._close = close
        self._usable = usable
        self._lock = threading.Lock()
        # By thread id: the thread (weakly: a finished one may be collected) and its connection. The thread
        # itself is kept to notice a new thread that was given a finished one's id.
        self._by_thread: dict[int, tuple[weakref.ref[threading.Thread], C]] = {}
        self._pid = os.getpid()
        self._closed = False

    def get(self) -> C:
        """This thread's connection (opening it if needed, or again if it is no longer ``usable``);
        ``ClosedError`` after ``close_all``."""
        thread = threading.current_thread()  # also registers a thread that threading did not start
        ident = thread.ident
        assert ident is not None
        with self._lock:
            if self._closed:
                raise ClosedError
            if self._pid != os.getpid():
                self._by_thread = {}  # a forked child: the parent's connections are not ours to use
                self._pid = os.getpid()
            entry = self._by_thread.get(ident)
            if entry is not None and entry[0]() is thread and self._usable(entry[1]):
                return entry[1]
            # A first use by this thread (or its connection broke): close what finished threads left.
            stale = self._finished_threads()
            if ident in self._by_thread:  # a finished thread's under a reused id, or this one's, broken
                stale.append(self._by_thread.pop(ident)[1])
        for old in stale:
            self._close(old)
        conn = self._open()
        with self._lock:
            self._by_thread[ident] = (weakref.ref(thread), conn)
        return conn

    def peek(self) -> C | None:
        """This thread's connection as it is (broken or not), or ``None``: never opens one."""
        thread = threading.current_thread()
        with self._lock:
            if self._pid != os.getpid():
                return None
            entry = self._by_thread.get(thread.ident or 0)
            return entry[1] if entry is not None and entry[0]() is thread else None

    def _finished_threads(self) -> list[C]:
        alive = {thread.ident for thread in threading.enumerate()}
        gone = [ident for ident in self._by_thread if ident not in alive]
        return [self._by_thread.pop(ident)[1] for ident in gone]

    def close_all(self) -> None:
        """Close every connection this process opened; later use raises ``ClosedError``."""
        with self._lock:
            self._closed = True
            opened = [conn for _, conn in self._by_thread.values()] if self._pid == os.getpid() else []
            self._by_thread = {}
        for conn in opened:
            self._close(conn)

    def count(self) -> int:
        """How many connections are open (for tests)."""
        with self._lock:
            return len(self._by_thread)
