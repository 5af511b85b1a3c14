"""What a store keeps in memory about the turns of its threads, in this process (``TurnMemo``), without I/O.

* **Token counts to save.** A window read that had to count messages (no count saved under its counter)
  hands the counts to the store, which saves them in the thread's next append, inside that append's own
  transaction: a turn writes once per append, never a transaction of its own for counts. A count is saved
  only if the message it counted still holds its position (its id is checked), so a count can never be
  saved for another message. Counts are a cache: when no append follows in this process they are lost, and
  the next read counts those messages again (or finds them in ``messages._counts``).
* **What was appended since a read.** After a compacting window's read (``watch``), the store logs what this
  process appends to that thread, as long as the appends follow one another (each starts where the one
  before ended: no other writer came between). ``messages.compaction.Compactor`` then tells from the
  window and what was appended whether compaction is due, without reading the thread again; when the log
  cannot say (an append of another process came between, too much was appended, the thread was not
  watched), it reads as before.

* **How far back a window reads.** A window read asks for a page of rows from the thread's end (four
  pages for a read that weighs messages), and asks again for more when the page does not reach; the store
  remembers how many rows the last such read of the thread looked at (``Keep.reached``) and gives the next
  one's first request that many and ``TAIL_MARGIN`` more, if that is fewer (``tail_rows``): a turn's read
  fetches and checks the rows it needs, not a fixed page. When more was appended since than the margin
  takes, the read asks again, as it does without the memo.

All are bounded (``THREADS`` threads, ``LOG`` messages a thread) and thread-safe.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from messages._window import Window
    from messages.models import Message

__all__ = ["TurnMemo"]

Pending = list[tuple[str, int, int, str | None]]
"""Counts to save: (counter, position, tokens, message id or ``None``: not checked)."""


class TurnMemo:
    """A store's memory of its threads' turns in this process (see the module docstring)."""

    THREADS = 1_024
    """How many threads it remembers (the least recently touched forgotten first)."""
    LOG = 64
    """How many appended messages it logs for one thread after a read; past that, it cannot say."""

    TAIL_MARGIN = 16
    """How many rows more than the last read looked at a read's first request is given (``tail_rows``): the
    messages appended since, and a longer unit at the tail's edge."""

    __slots__ = ("_counts", "_lock", "_log", "_tails")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: OrderedDict[str, dict[tuple[str, int], tuple[int, str | None]]] = OrderedDict()
        self._log: OrderedDict[str, tuple[int, list[tuple[Message, str]]]] = OrderedDict()
        self._tails: OrderedDict[tuple[str, Hashable], int] = OrderedDict()

    # -- how far back a window reads --------------------------------------------------------------------

    def tail_rows(self, thread_id: str, request: Window) -> int:
        """How many rows from the end to give ``request``, the first of a window read of ``thread_id``:
        ``request.fetched``, or fewer where the last read of the same kind looked at fewer."""
        looked = self._tails.get((thread_id, _kind(request)))
        if looked is None:
            return request.fetched
        return min(request.fetched, looked + self.TAIL_MARGIN)

    def looked_at(self, thread_id: str, request: Window, length: int, reached: int | None) -> None:
        """A read of ``thread_id`` (its first request ``request``) looked at its rows from ``reached`` to
        ``length``; ``None``: it read them all, or cannot say (nothing is kept)."""
        key = (thread_id, _kind(request))
        with self._lock:
            if reached is None:
                self._tails.pop(key, None)
                return
            self._tails[key] = length - reached
            self._tails.move_to_end(key)
            _bound(self._tails, self.THREADS)

    # -- token counts -------------------------------------------------------------------------------------

    def defer_counts(
        self, thread_id: str, counter: str, counts: Mapping[int, int], ids: Mapping[int, str] | None
    ) -> None:
        """Keep ``counts`` (``{position: tokens}`` under ``counter``, of the messages whose ids ``ids``
        gives, where it does) for the thread's next append."""
        with self._lock:
            pending = self._counts.get(thread_id)
            if pending is None:
                pending = self._counts[thread_id] = {}
                _bound(self._counts, self.THREADS)
            for position, tokens in counts.items():
                pending[(counter, position)] = (tokens, ids.get(position) if ids else None)

    def take_counts(self, thread_id: str) -> Pending:
        """The counts kept for ``thread_id``, forgotten here: its append saves them now."""
        if thread_id not in self._counts:  # the common case, without the lock
            return []
        with self._lock:
            pending = self._counts.pop(thread_id, None)
        if not pending:
            return []
        return [(counter, position, tokens, mid) for (counter, position), (tokens, mid) in pending.items()]

    def give_back(self, thread_id: str, pending: Pending) -> None:
        """Keep counts again that an append took but did not save (it failed)."""
        for counter, position, tokens, mid in pending:
            self.defer_counts(thread_id, counter, {position: tokens}, {position: mid} if mid else None)

    # -- what was appended since a read ---------------------------------------------------------------------

    def watch(self, thread_id: str, length: int) -> None:
        """Log what is appended to ``thread_id`` from now on: it was read at ``length``."""
        with self._lock:
            self._log[thread_id] = (length, [])
            self._log.move_to_end(thread_id)
            _bound(self._log, self.THREADS)

    def appended(self, thread_id: str, first: int, messages: Sequence[Message], texts: Sequence[str]) -> None:
        """``messages`` (their stored ``texts``) were appended at ``first``: log them, if the thread is
        watched and they follow what was logged; else the log can no longer say."""
        if thread_id not in self._log:  # the common case, without the lock
            return
        with self._lock:
            entry = self._log.get(thread_id)
            if entry is None:
                return
            length, log = entry
            if first != length + len(log) or len(log) + len(messages) > self.LOG:
                del self._log[thread_id]
                return
            log.extend(zip(messages, texts, strict=True))

    def forget(self, thread_id: str) -> None:
        """The thread changed in a way the log cannot follow (a message removed): stop logging it."""
        with self._lock:
            self._log.pop(thread_id, None)

    def since(self, thread_id: str, length: int) -> list[tuple[Message, str]] | None:
        """The messages (and their texts) this process appended to ``thread_id`` since it was read at
        ``length``, when the log can say; ``None`` when it cannot."""
        with self._lock:
            entry = self._log.get(thread_id)
            if entry is None or entry[0] != length:
                return None
            return list(entry[1])


def _kind(request: Window) -> Hashable:
    """What tells one kind of window read from another (its first request's rows)."""
    return (request.lead, request.tail, request.counter, request.checkpoint, request.weighted)


def _bound(entries: OrderedDict[Any, Any], size: int) -> None:
    while len(entries) > size:
        entries.popitem(last=False)
