"""Token counts shared by every window of one counter in this process: a message is counted once.

A window read from a store asks the store for the counts saved under its counter's name first; what no
store saved is looked up here, by the message's stored JSON (its lossless dump, the text a store keeps and
``model_dump_json()`` gives), and only what is in neither is counted. So a bot that builds a fresh window
each turn counts only the messages new since the last turn, whether its counter has a name (saved in the
store too) or is a function (counted once per process while the cache holds it).

The cache is bounded: ``COUNTS_PER_COUNTER`` entries for each counter (the oldest tenth dropped when full),
``COUNTERS`` counters (the least recently made dropped). A text longer than ``_LONG`` characters is kept
by a digest of it, not whole. Counts are the counter's own: the cache is keyed by the counter (its name,
or the function itself), never shared between two.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

__all__ = ["COUNTERS", "COUNTS_PER_COUNTER", "ByShortText", "ByText", "SharedCounts", "shared_counts"]

COUNTS_PER_COUNTER = 20_000
"""How many counts the cache keeps for one counter: the windows of a few hundred active threads."""
COUNTERS = 32
"""How many counters the cache keeps counts for."""
_LONG = 4_096
V = TypeVar("V")


class ByText(Generic[V]):
    """Values kept by a message's stored JSON (bounded: the oldest tenth dropped when ``size`` is passed; a
    text longer than ``_LONG`` characters kept by a digest of it). Thread-safe: lookups take no lock."""

    __slots__ = ("_kept", "_lock", "_size")

    def __init__(self, size: int) -> None:
        self._kept: dict[str | bytes, V] = {}
        self._lock = threading.Lock()
        self._size = size

    @staticmethod
    def key(text: str | bytes) -> str | bytes:
        """How ``text`` (a message's JSON, as a str or as the UTF-8 bytes SQLite gives) is kept: as a str,
        or a digest of it when it is long."""
        if len(text) > _LONG:
            return hashlib.blake2b(text.encode() if isinstance(text, str) else text, digest_size=20).digest()
        return text.decode("utf-8", "replace") if isinstance(text, bytes) else text

    def get(self, text: str | bytes) -> V | None:
        """The value kept for the message whose JSON is ``text``, if any."""
        return self._kept.get(self.key(text))

    def put(self, text: str | bytes, value: V) -> None:
        """Keep ``value`` for the message whose JSON is ``text``."""
        kept = self._kept
        kept[self.key(text)] = value
        if len(kept) > self._size:
            with self._lock:
                extra = len(kept) - self._size * 9 // 10
                for old in list(kept)[: max(extra, 0)]:  # the oldest first: dicts keep insertion order
                    kept.pop(old, None)

    def __len__(self) -> int:
        return len(self._kept)


class ByShortText(ByText[V]):
    """Values kept by a short message text as it is given (str or bytes, not converted: a str and its
    bytes are two keys), for lookups many at a time; a longer text than ``_LONG`` is never kept."""

    __slots__ = ()

    @staticmethod
    def key(text: str | bytes) -> str | bytes:
        return text

    def put(self, text: str | bytes, value: V) -> None:
        if len(text) <= _LONG:
            super().put(text, value)

    def get_many(self, texts: Sequence[object]) -> list[V | None]:
        """The value kept for each of ``texts`` (``None`` where none is, or the text is not a str or
        bytes)."""
        get: Callable[[object], V | None] = self._kept.get  # type: ignore[assignment]  # any key: a miss
        try:
            return [get(text) if len(text) <= _LONG else None for text in texts]  # type: ignore[arg-type]
        except TypeError:  # a text that is not str or bytes (damage): looked up one by one
            return [get(t) if isinstance(t, (str, bytes)) and len(t) <= _LONG else None for t in texts]


class SharedCounts(ByText[int]):
    """The counts of one counter, by message text (bounded: see the module docstring). Thread-safe."""

    __slots__ = ()

    def __init__(self, size: int = COUNTS_PER_COUNTER) -> None:
        super().__init__(size)


_BY_COUNTER: OrderedDict[Hashable, SharedCounts] = OrderedDict()
_LOCK = threading.Lock()


def shared_counts(counter: Hashable) -> SharedCounts:
    """The shared counts of ``counter``: a counter's name (``"litellm:<model>"``), or the counting function
    itself for a counter without a name."""
    with _LOCK:
        found = _BY_COUNTER.get(counter)
        if found is None:
            found = _BY_COUNTER[counter] = SharedCounts()
            while len(_BY_COUNTER) > COUNTERS:
                _BY_COUNTER.popitem(last=False)
        else:
            _BY_COUNTER.move_to_end(counter)
        return found
