"""The window rules without message types: units, the newest units within a budget, the head.

``messages.context`` windows this package's messages with them, and ``messages.integrations.autogen``
windows AutoGen's ``LLMMessage`` objects with the same code, so both keep and drop whole exchanges by the
same rules (``messages.context``'s module docstring states them). A history is seen here only through
what each item is: a leading system message, a tool result (which joins the unit before it), or anything
else (which starts a unit); and, for the bounds, through a weight per item.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = [
    "Suffix",
    "TokenWindow",
    "Units",
    "checked_count",
    "head_and_tail_window",
    "head_units",
    "positive_int",
    "suffix_window",
]

T = TypeVar("T")


class Units:
    """Where a history's leading system messages end and where each unit after them starts.

    A unit is an item that is not a tool result, with the tool results that directly follow it. Tool
    results right after the leading system messages (orphans, in a broken or trimmed history) start a unit
    of their own; with ``skip_orphans`` they are in no unit at all (``skipped`` counts them), so no window
    holds them and no bound counts them.
    """

    __slots__ = ("lead", "size", "skip_orphans", "skipped", "starts")

    def __init__(self, *, skip_orphans: bool = False) -> None:
        self.skip_orphans = skip_orphans
        """Whether the tool results right after the leading system messages are left out of every unit."""
        self.lead = 0
        """How many leading system messages the history has."""
        self.skipped = 0
        """How many tool results right after them are left out (``skip_orphans`` only)."""
        self.starts: list[int] = []
        """Where each unit after them starts, in the history."""
        self.size = 0
        """How many items the history has."""

    def add(self, system: bool, result: bool, /) -> None:
        """Account for one more item at the end of the history: a system message or not, a tool result or
        not."""
        index = self.size
        self.size += 1
        if self.starts:
            if not result:
                self.starts.append(index)
        elif system and self.lead == index:
            self.lead += 1
        elif result and self.skip_orphans:
            self.skipped += 1
        else:
            self.starts.append(index)

    def clear(self) -> None:
        self.lead = 0
        self.skipped = 0
        self.starts = []
        self.size = 0

    @property
    def windowed(self) -> int:
        """How many items the units hold: the history but its leading system messages (and skipped ones)."""
        return self.size - self.lead - self.skipped

    def end(self, unit: int) -> int:
        """Where unit ``unit`` ends (exclusive), in the history."""
        return self.starts[unit + 1] if unit + 1 < len(self.starts) else self.size


class Suffix:
    """The newest whole units whose weights sum to at most a budget, kept up to date as items arrive.

    The window's first unit only moves forward while the history grows (each new item adds weight at the
    end, never takes any away), so each item is weighed once and passed over once: amortized O(1) per
    item. After the history is replaced (``reset``), the first read walks back from the end instead,
    weighing only the units it keeps and the one that does not fit, so loading a long history does not
    weigh all of it.
    """

    __slots__ = ("_synced", "_weigh", "first", "total")

    def __init__(self, weigh: Callable[[int], int] | None = None) -> None:
        # The weight of the history's item at an index (cached by the caller); None: 1 for every item.
        self._weigh = weigh
        self.first = 0
        """The window's first unit."""
        self.total = 0
        """The weight of the units from ``first`` to the end, as of the last ``sync``."""
        self._synced: int | None = None  # how much of the history `total` covers; None: not yet walked

    def reset(self) -> None:
        self.first = 0
        self.total = 0
        self._synced = None

    def _weight(self, start: int, end: int) -> int:
        weigh = self._weigh
        if weigh is None:
            return end - start
        return sum(weigh(i) for i in range(start, end))

    def sync(self, units: Units, budget: float) -> None:
        """Move the window over ``units`` to the newest units that fit ``budget`` (the newest always)."""
        starts = units.starts
        size = units.size
        if self._synced == size:
            return  # nothing arrived since the last read, and the budget is the window's own
        count = len(starts)
        if count == 0:
            self.first, self.total, self._synced = 0, 0, size
            return
        if self._synced is None:
            # Walk back from the end: the newest unit, then older ones while they fit.
            first = count - 1
            total = self._weight(starts[first], size)
            while first > 0:
                weight = self._weight(starts[first - 1], starts[first])
                if total + weight > budget:
                    break
                first -= 1
                total += weight
            self.first, self.total, self._synced = first, total, size
            return
        # Weigh what arrived since the last read (the window always reaches the end), then drop units from
        # the front while the window is over budget.
        total = self.total + self._weight(max(self._synced, starts[self.first]), size)
        first = self.first
        while total > budget and first < count - 1:
            total -= self._weight(starts[first], starts[first + 1])
            first += 1
        self.first, self.total, self._synced = first, total, size


def head_units(units: Units, head_size: int) -> int:
    """How many units the head holds: the oldest whole units of at most ``head_size`` items."""
    count = 0
    total = len(units.starts)
    while count < total and units.end(count) - units.starts[0] <= head_size:
        count += 1
    return count


def suffix_window(items: Sequence[T], units: Units, first: int) -> list[T]:
    """The leading system messages and the units from ``first`` on (only the former when there is no unit)."""
    lead = units.lead
    if not units.starts:
        return list(items[:lead])
    start = units.starts[first]
    if lead == 0:
        return list(items[start:])
    return [*items[:lead], *items[start:]]


def head_and_tail_window(
    items: Sequence[T],
    units: Units,
    tail: Suffix,
    head_size: int,
    tail_size: int,
    placeholder: Callable[[int], T],
) -> list[T]:
    """The leading system messages, the oldest whole units within ``head_size``, ``placeholder(count)`` for
    the ``count`` items left out, and the newest whole units within ``tail_size`` (``tail``, a ``Suffix``
    weighing 1 per item); the units whole when they hold at most ``head_size + tail_size`` items, or when
    head and tail leave nothing out (``messages.context.HeadAndTailContext`` states the rules)."""
    tail.sync(units, tail_size)
    if not units.starts or units.windowed <= head_size + tail_size:
        return suffix_window(items, units, 0)
    head = head_units(units, head_size)
    first = max(tail.first, head)
    if first == head:  # nothing left out
        return suffix_window(items, units, 0)
    head_end = units.starts[head]
    tail_start = units.starts[first]
    note = placeholder(tail_start - head_end)
    return [*items[: units.lead], *items[units.starts[0] : head_end], note, *items[tail_start:]]


def positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """``value`` if it is an int of at least ``minimum``; else ``TypeError`` or ``ValueError`` naming it."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int; got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {value}")
    return value


def checked_count(count: Any, what: str) -> int:
    """A token count, checked: an int of at least 0, else ``TypeError`` or ``ValueError`` naming ``what``."""
    if not isinstance(count, int) or isinstance(count, bool):
        raise TypeError(f"{what} is a {type(count).__name__} ({count!r}), not an int")
    if count < 0:
        raise ValueError(f"{what} is {count}, below 0; a token counter must not count negative tokens")
    return count


class TokenWindow:
    """A token-limited window's bookkeeping without message types: each item's count, made once when first
    needed, and the newest units that fit in what the limit leaves after the list's overhead and the
    leading system messages."""

    __slots__ = ("_count", "_overhead", "counts", "suffix")

    def __init__(self, count: Callable[[int], int], overhead: Callable[[], int]) -> None:
        self._count = count  # counts the history's item at an index (checked by the caller), uncached
        self._overhead = overhead  # the list's fixed overhead (made on first use by the caller)
        self.counts: list[int | None] = []
        """Each item's count, ``None`` until it is needed."""
        self.suffix = Suffix(self.count)
        """The window's units after the leading system messages."""

    def append(self) -> None:
        """Account for one more item, not counted yet."""
        self.counts.append(None)

    def reset(self, size: int) -> None:
        """Forget every count and the window (the history was replaced by ``size`` items)."""
        self.suffix.reset()
        self.counts = [None] * size

    def count(self, index: int) -> int:
        """The count of the item at ``index``, made once."""
        count = self.counts[index]
        if count is None:
            count = self._count(index)
            self.counts[index] = count
        return count

    def sync(self, units: Units, limit: int) -> int:
        """Bring the window up to date; the tokens of the overhead and the leading system messages (0 for a
        history with nothing to send)."""
        if not units.starts and not units.lead:
            return 0
        fixed = self._overhead() + sum(self.count(i) for i in range(units.lead))
        self.suffix.sync(units, limit - fixed)
        return fixed

    def size(self, units: Units, limit: int) -> int:
        """The window's size in tokens (0 for a history with nothing to send)."""
        fixed = self.sync(units, limit)
        return fixed + self.suffix.total if fixed or units.starts else 0
