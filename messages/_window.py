"""The window rules without message types: units, the newest units within a budget, the head.

``messages.context`` windows this package's messages with them, and ``messages.integrations.autogen``
windows AutoGen's ``LLMMessage`` objects with the same code, so both keep and drop whole exchanges by the
same rules (``messages.context``'s module docstring states them). A history is seen here only through
what each item is: a leading system message, a tool result (which joins the unit before it), or anything
else (which starts a unit); and, for the bounds, through a weight per item.

The same rules place the window read from a store (``LocalThread.read(store, window)``): ``plan_read``
asks a store only for what a window can return (a generator without I/O, driven by ``read_sync`` and
``read_async``), with ``TailWalk`` (the newest whole units within a budget, which ``Suffix`` walks back
with too) and ``head_end`` (where a head ends, which ``head_units`` counts with). It asks for one
``Window``: the thread's length, the rows of its lead and head and of a page from the end, from one snapshot
(one statement in the package's stores; the public methods of any other store, ``_Public``); again with a
larger page when the window reaches past it. Buffered and head-and-tail windows weigh each message 1, so
the roles alone place the cut; a token-limited window weighs each row by the count saved under its counter,
else this process's count of the same text (``messages._counts``), else by counting it. Only the kept
messages are parsed (``Keep``). Every cut falls between units, so no call is cut from its result. The
window is then given that part of the thread (``Units.mark_gap``: how many items it leaves out, and where),
with the cut already placed (``Suffix.place``). A summary checkpoint (a stored summary standing for every
message before a position) fits the same read later: the walk stops at the newest checkpoint, whose summary
then stands in for what precedes it, as the head and the placeholder do here (docs/stores.md). A plan with
``checkpoint`` gets the newest checkpoint with the rows, and the tail never reaches below its position; with
``counter``, the counts it had to find are handed back (``SaveCounts``), for the store to save with the
thread's next append, so that each message is counted once per counter. ``messages.compaction`` drives the
single-step requests (``Length``, ``Roles``, ``Messages``, ``Latest``, ``Counts``) to compact a thread.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from messages.errors import InvalidArgumentError

if TYPE_CHECKING:
    from messages._counts import SharedCounts
    from messages.models import Message

__all__ = [
    "SYSTEM_ROLES",
    "Keep",
    "Part",
    "ReadPlan",
    "SaveCounts",
    "Snapshot",
    "Suffix",
    "TailWalk",
    "TokenWindow",
    "Units",
    "Window",
    "WindowRow",
    "adrive",
    "answer_async",
    "answer_sync",
    "checked_count",
    "counter_argument",
    "drive",
    "drive_sync",
    "head_and_tail_window",
    "head_end",
    "head_units",
    "lead_length",
    "lead_of",
    "plan_read",
    "positive_int",
    "read_async",
    "read_sync",
    "suffix_window",
    "window_row",
]

T = TypeVar("T")

SYSTEM_ROLES = frozenset({"system", "developer"})
"""The roles of a ``SystemMessage``, which make up the lead."""


class Units:
    """Where a history's leading system messages end and where each unit after them starts.

    A unit is an item that is not a tool result, with the tool results that directly follow it. Tool
    results right after the leading system messages (orphans, in a broken or trimmed history) start a unit
    of their own; with ``skip_orphans`` they are in no unit at all (``skipped`` counts them), so no window
    holds them and no bound counts them.
    """

    __slots__ = ("gap", "lead", "omitted", "size", "skip_orphans", "skipped", "starts")

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
        self.gap: int | None = None
        """Where a store read left items out (``mark_gap``): before the history's item at this index."""
        self.omitted = 0
        """How many items it left out there."""

    def mark_gap(self, omitted: int) -> None:
        """``omitted`` items of the thread are left out here, at the end of the history so far (the lead,
        or the head, on a unit boundary): what a store read gives a window (``plan_read``)."""
        if omitted:
            self.gap, self.omitted = self.size, omitted

    def position(self, index: int) -> int:
        """The position in the thread of the history's item at ``index``."""
        return index if self.gap is None or index < self.gap else index + self.omitted

    def end_position(self, index: int) -> int:
        """The position in the thread where the history's units before ``index`` end."""
        return index if self.gap is None or index <= self.gap else index + self.omitted

    def floor(self) -> int:
        """The first unit a tail may hold: none before the items left out."""
        return 0 if self.gap is None else sum(1 for start in self.starts if start < self.gap)

    def add(self, system: bool, result: bool, /) -> None:
        """Account for one more item at the end of the history: a system message or not, a tool result or
        not."""
        index = self.size
        self.size += 1
        if self.starts:
            if not result:
                self.starts.append(index)
        elif system and self.lead == index and self.gap is None:
            self.lead += 1
        elif result and self.skip_orphans:
            self.skipped += 1
        else:
            self.starts.append(index)

    def add_roles(self, roles: Iterable[str]) -> None:
        """``add`` for items of these roles, one after the other (a system message's role is ``system`` or
        ``developer``, a tool result's ``tool``): a store read's part, loaded at once."""
        index, starts = self.size, self.starts
        for role in roles:
            if starts:
                if role != "tool":
                    starts.append(index)
            elif role in SYSTEM_ROLES and self.lead == index and self.gap is None:
                self.lead += 1
            elif role == "tool" and self.skip_orphans:
                self.skipped += 1
            else:
                starts.append(index)
            index += 1
        self.size = index

    def clear(self) -> None:
        self.lead = 0
        self.skipped = 0
        self.starts = []
        self.size = 0
        self.gap = None
        self.omitted = 0

    @property
    def windowed(self) -> int:
        """How many items the units hold: the history but its leading system messages (and skipped ones),
        with those a store read left out."""
        return self.size - self.lead - self.skipped + self.omitted

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

    def place(self, units: Units, total: int) -> None:
        """Set the window to the units after the items a store read left out, weighing ``total``: where the
        read placed it (``Part.placed``), so that it is not walked again."""
        self.first, self.total, self._synced = units.floor(), total, units.size

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
            # Walk back from the end: the newest unit, then older ones while they fit (never into the
            # items a store read left out).
            walk = TailWalk(budget)
            for unit in range(count - 1, units.floor() - 1, -1):
                end = starts[unit + 1] if unit + 1 < count else size
                if not walk.offer(unit, self._weight(starts[unit], end)):
                    break
            assert walk.start is not None  # the newest unit is always kept
            self.first, self.total, self._synced = walk.start, walk.total, size
            return
        # Weigh what arrived since the last read (the window always reaches the end), then drop units from
        # the front while the window is over budget.
        total = self.total + self._weight(max(self._synced, starts[self.first]), size)
        first = self.first
        while total > budget and first < count - 1:
            total -= self._weight(starts[first], starts[first + 1])
            first += 1
        self.first, self.total, self._synced = first, total, size


def head_end(starts: Iterable[int], lead: int, head_size: int) -> int:
    """Where the head ends: the start of the first unit that does not fit in ``head_size`` items after
    ``lead`` (where the first unit starts). ``starts`` are the unit starts after the first (ascending
    positions, in a history longer than the lead and the head), each the end of the unit before it."""
    end = lead
    for start in starts:
        if start - lead > head_size:
            break
        end = start
    return end


def head_units(units: Units, head_size: int) -> int:
    """How many units the head holds: the oldest whole units of at most ``head_size`` items."""
    if not units.starts:
        return 0
    ends = (units.end_position(start) for start in units.starts[1:])
    end = head_end(ends, units.starts[0], head_size)
    if units.end_position(units.size) - units.starts[0] <= head_size:
        return len(units.starts)  # the whole history fits in the head
    return sum(1 for start in units.starts if units.end_position(start) < end)


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
    head_end_index = units.starts[head] if head < len(units.starts) else units.size
    tail_start = units.starts[first]
    left_out = units.position(tail_start) - units.end_position(head_end_index)
    if left_out == 0:  # nothing left out
        return suffix_window(items, units, 0)
    note = placeholder(left_out)
    return [*items[: units.lead], *items[units.starts[0] : head_end_index], note, *items[tail_start:]]


def positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """``value`` if it is an int of at least ``minimum``; else ``InvalidArgumentError`` (a ``TypeError`` and a
    ``ValueError``) naming it."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidArgumentError(
            f"{name} must be an int; got {type(value).__name__} {value!r}", argument=name
        )
    if value < minimum:
        raise InvalidArgumentError(f"{name} must be at least {minimum}; got {value}", argument=name)
    return value


def check_flag(value: object, name: str, method: str) -> bool:
    """``value`` when it is a bool; ``InvalidArgumentError`` naming ``name`` otherwise (a string such as
    ``"no"`` is true to Python, and would do the opposite of what it says)."""
    if not isinstance(value, bool):
        raise InvalidArgumentError(
            f"{method}(): {name} is True or False, not a {type(value).__name__} ({value!r:.60})",
            argument=name,
        )
    return value


def counter_argument(token_counter: object, message_token_counter: object) -> str:
    """The name of the window's argument that counts: ``message_token_counter`` when given, else
    ``token_counter`` (what ``checked_count`` names as the ``argument`` of a count it refuses)."""
    return "message_token_counter" if message_token_counter is not None else "token_counter"


def checked_count(count: Any, what: str, argument: str = "token_counter") -> int:
    """A token count, checked: an int of at least 0, else ``InvalidArgumentError`` (a ``TypeError`` and a
    ``ValueError``) naming ``what`` and, as its ``argument``, the counter that gave it."""
    if not isinstance(count, int) or isinstance(count, bool):
        raise InvalidArgumentError(
            f"{what} is a {type(count).__name__} ({count!r:.60}), not an int", argument=argument
        )
    if count < 0:
        raise InvalidArgumentError(
            f"{what} is {count}, below 0; a token counter must not count negative tokens", argument=argument
        )
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


class TailWalk:
    """The newest whole units whose weights sum to at most ``budget``, the newest always: offer the units
    from the newest back (``offer(start, weight)``) until one is refused; ``start`` is then where the
    tail begins and ``total`` its weight."""

    __slots__ = ("budget", "done", "start", "total")

    def __init__(self, budget: float) -> None:
        self.budget = budget
        self.start: int | None = None
        """The start of the oldest unit kept (a position, or a unit's index: whatever was offered)."""
        self.total = 0
        self.done = False

    def offer(self, start: int, weight: int) -> bool:
        """Keep the next older unit (its start and weight) if it is the newest or fits; ``False`` once one
        does not (the walk is then done, and refuses every later offer)."""
        if self.done:
            return False
        if self.start is None or self.total + weight <= self.budget:
            self.start, self.total = start, self.total + weight
            return True
        self.done = True
        return False


def lead_of(roles: Sequence[str]) -> int:
    """How many of ``roles`` (from the start of a history) are leading system messages."""
    count = 0
    for role in roles:
        if role not in SYSTEM_ROLES:
            break
        count += 1
    return count


def starts_unit(role: str, position: int, lead: int) -> bool:
    """Whether the message at ``position`` (after the lead) starts a unit."""
    return role != "tool" or position == lead


@dataclass(frozen=True)
class ReadPlan:
    """What a window needs of a thread, from ``window._read_plan()``."""

    tail: Callable[[Sequence[Message]], float]
    """The tail's budget, given the lead's messages and the summary (``checkpoint``); a plan that weighs
    every message 1 (no ``weigh``) is given the summary alone: its budget counts messages after the lead."""
    weigh: Callable[[Message], int] | None = None
    """A message's weight (tokens); ``None``: every message weighs 1, and roles suffice to place the cut."""
    head: int | None = None
    """The head's bound in messages (``HeadAndTailContext``), or ``None`` for no head."""
    tail_fixed: float | None = None
    """For a head-and-tail window: the tail's bound, where a history of at most head + tail messages after
    the lead is kept whole."""
    checkpoint: bool = False
    """Read from the thread's newest summary checkpoint: its summary stands for the messages before its
    position (but the lead), which the tail never reaches below; ``tail`` is given the lead and the
    summary."""
    counter: str | None = None
    """The name of ``weigh``'s counter: counts saved in the store under it are used, and those made are
    saved (``None``: nothing saved in the store)."""
    user_start: bool = False
    """When the tail cannot reach its floor (the budget cut it), start it on the first user turn among the
    units it keeps, if there is one, rather than on an answer without its question."""
    counts: SharedCounts | None = None
    """The counts ``weigh``'s counter made in this process, by message text (``messages._counts``): a
    message no store saved a count of is counted only when it is not there."""


@dataclass
class Part:
    """What a window read gives the window: the messages before the cut (the lead, and the head),
    how many it leaves out, and the messages after it; with the weights it counted, by message."""

    head: list[Message]
    omitted: int
    tail: list[Message]
    weights: dict[int, int] = field(default_factory=dict)
    """Weights counted on the way, by index in ``head + tail``."""
    checkpoint: Any = None
    """The checkpoint read (``ReadPlan.checkpoint``): its summary stands for what precedes the tail, but the
    lead; ``None`` when there is none."""
    length: int = 0
    """The thread's length when it was read."""
    thread_id: str | None = None
    """The thread read."""
    source: Any = None
    """The store's turn memo (``messages.stores._turns.TurnMemo``) when it keeps what is appended to the
    thread after this read (a compacting read of one of the package's stores): what lets a compactor tell
    whether compaction is due without reading again."""
    placed: bool = False
    """Whether the read placed the window's cut (``plan_read``): every unit of ``tail`` fits the window's
    budget, which the window need not walk again (``Suffix.place``)."""


class Length:
    """A request: the thread's length."""


@dataclass(frozen=True)
class Roles:
    """A request: the roles of ``[lo, hi)``."""

    lo: int
    hi: int


@dataclass(frozen=True)
class Messages:
    """A request: the messages of ``[lo, hi)``."""

    lo: int
    hi: int


@dataclass(frozen=True)
class Latest:
    """A request: the thread's newest checkpoint (``None`` if it has none)."""


@dataclass(frozen=True)
class Counts:
    """A request: the token counts of ``[lo, hi)`` saved under ``counter`` (``None`` where none is)."""

    lo: int
    hi: int
    counter: str


@dataclass(frozen=True)
class SaveCounts:
    """A request: save these token counts (``{position: tokens}``) under ``counter``; ``ids`` (by position)
    are the ids of the messages counted, where the read knows them: a store that saves the counts later
    saves only those whose message is still there."""

    counter: str
    counts: dict[int, int]
    ids: dict[int, str] | None = None


@dataclass(frozen=True)
class Window:
    """A request: what a window read needs of the thread, from one snapshot of it (a ``Snapshot``): its
    length, its newest checkpoint (``checkpoint``), and a row for each of its first ``lead`` and last
    ``tail`` positions (a store may give more). A row is the message's role, the count saved under
    ``counter``, and, from the package's stores, the stored text and the message's id; a store that can
    give no text gives the message itself where the read weighs messages (``weighted``)."""

    lead: int
    tail: int
    counter: str | None = None
    checkpoint: bool = False
    weighted: bool = False

    @property
    def fetched(self) -> int:
        """How many rows from the end the package's stores give: ``tail``, or four times that for a read
        that weighs messages (a token budget reaches past the first page; a row's text is not decoded
        unless it is kept or counted, so a few more rows cost little, and another statement more)."""
        return self.tail * 4 if self.weighted else self.tail


WindowRow = tuple[Any, ...]
"""One position of a ``Snapshot``: a tuple (a stored row as the database gives it, not copied into an object
of its own), read by these indexes: ``ROLE``, the message's role; ``TOKENS``, the count saved under the
request's counter (or ``None``); ``TEXT``, the stored message (its JSON) when the store gives it;
``MESSAGE_ID``, for a ``weighted`` request; ``MESSAGE``, the message itself when the store gives it instead
of its text (``None``, or no such index)."""
ROLE, TOKENS, TEXT, MESSAGE_ID, MESSAGE = 1, 2, 3, 4, 5


def window_row(
    position: int,
    role: str,
    tokens: int | None,
    text: str | bytes | None,
    message_id: str | None,
    message: Message | None = None,
) -> WindowRow:
    """A ``WindowRow``."""
    return (position, role, tokens, text, message_id, message)


@dataclass
class Snapshot:
    """The answer to a ``Window`` request: what one snapshot of the thread holds."""

    length: int
    checkpoint: Any
    rows: dict[int, WindowRow]
    """By position: every position of the ranges asked for (and maybe more)."""
    source: Any = None
    """The store's turn memo, when it keeps what is appended after this read (``Part.source``)."""


@dataclass(frozen=True)
class Keep:
    """A request: the messages of each of ``ranges`` (``[lo, hi)`` positions of the last ``Window``'s
    snapshot), one list per range."""

    ranges: tuple[tuple[int, int], ...]
    reached: int | None = None
    """The lowest position of the tail the read looked at (the walk's last row), where it knows it: a store
    that gives the same read of the thread fewer rows next time (``TurnMemo.tail_rows``) must give this
    many rows from the end, and the messages appended since."""


Request = Length | Roles | Messages | Latest | Counts | SaveCounts | Window | Keep
_LEAD_PAGE = 8
_PAGE = 64


def plan_read(plan: ReadPlan) -> Generator[Request, Any, Part]:
    """The reads that give a window what it keeps of a thread, and that part (see the module docstring).

    One ``Window`` request asks for the thread's length, its newest checkpoint, the first positions (the
    lead, and the head) and a page from the end, all from one snapshot; when those rows do not reach as far
    as the window does (a lead longer than the page, a tail that the budget takes past the page), the
    request is made again with a larger page, and the new snapshot is used whole (a store answering from
    a cache of what it read gives the rows it has again: see ``_Public``). The messages are decoded last,
    only those kept (``Keep``); a weighted read weighs a row by the count saved in the store, else by the
    count this process made of the same text (``ReadPlan.counts``), else by counting the message; the
    counts it had to find are saved (``SaveCounts``)."""
    lead_page = _LEAD_PAGE + (plan.head + 1 if plan.head is not None else 0)
    tail_page = _PAGE
    weighted = plan.weigh is not None
    # Counts not saved in the store (made here, or this process's), by position, with the id of the message
    # counted: a later snapshot's row is weighed by them only if it holds the same message.
    found: dict[int, tuple[int, object]] = {}
    while True:
        snapshot: Snapshot = yield Window(lead_page, tail_page, plan.counter, plan.checkpoint, weighted)
        rows, length = snapshot.rows, snapshot.length
        lead = 0
        while lead < length and lead in rows and rows[lead][ROLE] in SYSTEM_ROLES:
            lead += 1
        if lead < length and lead not in rows:  # every row of the page is a system message: read on
            lead_page *= 4
            continue
        checkpoint = snapshot.checkpoint
        if checkpoint is not None and checkpoint.upto <= lead:
            checkpoint = None  # it stands for nothing a read would leave out
        whole = lead == length or (
            plan.head is not None
            and plan.tail_fixed is not None
            and length - lead <= plan.head + plan.tail_fixed
        )
        if whole:  # no unit, or a head-and-tail history that fits: the whole history is the window
            if len(rows) < length:
                tail_page = max(tail_page * 2, length)
                continue
            [messages] = yield Keep(((0, length),))
            return _part(snapshot, messages, 0, [])
        floor = lead if checkpoint is None else checkpoint.upto
        if plan.head is not None:
            top = min(length, lead + plan.head + 1)
            if any(p not in rows for p in range(lead, top)):
                lead_page = max(lead_page * 4, top)
                continue
            starts = (p for p in range(lead + 1, top) if starts_unit(rows[p][ROLE], p, lead))
            floor = head_end(starts, lead, plan.head)
        summary = [checkpoint.summary] if checkpoint else []
        head_messages: list[Message] = []
        if weighted:  # the lead's tokens count: read it first (else with the tail, in one parse)
            [head_messages] = yield Keep(((0, lead),))
        walk = TailWalk(plan.tail([*head_messages, *summary]))
        weights: dict[int, int] = {}
        unit, position, short = 0, length - 1, False
        while not walk.done and position >= floor:
            row = rows.get(position)
            if row is None:
                short = True  # the walk needs rows the snapshot does not hold
                break
            weight = 1
            if weighted:
                saved = row[TOKENS]
                if saved is None:
                    known = found.get(position)
                    if known is not None and known[1] == row[MESSAGE_ID]:
                        saved = known[0]
                    else:
                        saved = yield from _count_row(plan, row, position)
                        found[position] = (saved, row[MESSAGE_ID])
                weight = weights[position] = saved
            unit += weight
            if starts_unit(row[ROLE], position, lead):
                if not walk.offer(position, unit):
                    break
                unit = 0
            position -= 1
        if short:
            tail_page *= 2
            continue
        start = walk.start if walk.start is not None else length
        if plan.user_start and start > floor:
            # The budget cut the tail: start it on its first user turn, where it has one.
            start = next((p for p in range(start, length) if rows[p][ROLE] == "user"), start)
        if plan.counter and found:
            counts = {p: count for p, (count, _) in found.items()}
            ids = {p: i for p, (_, i) in found.items() if isinstance(i, str)}
            yield SaveCounts(plan.counter, counts, ids or None)
        ranges = [] if weighted else [(0, lead)]
        if plan.head is not None:
            ranges.append((lead, floor))
        ranges.append((start, length))
        kept: list[list[Message]] = yield Keep(tuple(ranges), max(position, floor))
        for part in kept[:-1]:
            head_messages += part
        tail = kept[-1]
        if start == floor and plan.head is not None:  # the tail reaches the head: nothing is left out
            return _part(snapshot, head_messages + tail, 0, [])
        offset = len(head_messages) - start
        weights = {p + offset: weight for p, weight in weights.items() if p >= start}
        omitted = start - (floor if checkpoint is None else lead)
        return _part(snapshot, head_messages, omitted, tail, weights, checkpoint)


def _part(
    snapshot: Snapshot,
    head: list[Message],
    omitted: int,
    tail: list[Message],
    weights: dict[int, int] | None = None,
    checkpoint: Any = None,
) -> Part:
    return Part(
        head, omitted, tail, weights or {}, checkpoint, snapshot.length, source=snapshot.source, placed=True
    )


def _count_row(plan: ReadPlan, row: WindowRow, position: int) -> Generator[Request, Any, int]:
    """The weight of a row no store saved a count of: this process's count of the same text, else the
    message counted (and kept for the next read)."""
    assert plan.weigh is not None
    cache = plan.counts
    text = row[TEXT]
    message = row[MESSAGE] if len(row) > MESSAGE else None
    if cache is not None:
        if text is None and message is not None:
            text = message.model_dump_json()  # the text the store keeps
        if text is not None:
            count = cache.get(text)
            if count is not None:
                return count
    if message is None:
        [[message]] = yield Keep(((position, position + 1),))
    count = plan.weigh(message)
    if cache is not None and text is not None:
        cache.put(text, count)
    return count


def lead_length(length: int) -> Generator[Request, Any, int]:
    """How many leading system messages a thread of ``length`` messages has: roles read from the start
    until one is not a system message (8, then 32, ...)."""
    lead = 0
    page = _LEAD_PAGE
    while lead < length:
        roles: list[str] = yield Roles(lead, min(length, lead + page))
        counted = lead_of(roles)
        lead += counted
        if counted < len(roles):
            break
        page *= 4
    return lead


class SyncReader(Protocol):
    """What a window read needs of a sync store (every ``ThreadStore``)."""

    def thread_info(self, thread_id: str) -> Any: ...
    def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[str]: ...
    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]: ...


class AsyncReader(Protocol):
    """What a window read needs of an async store (every ``AsyncThreadStore``)."""

    def thread_info(self, thread_id: str) -> Awaitable[Any]: ...
    def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> Awaitable[list[str]]: ...
    def messages(
        self, thread_id: str, start: int = 0, stop: int | None = None
    ) -> Awaitable[list[Message]]: ...


@dataclass(frozen=True)
class Call:
    """A call of a store's public method (``_Public`` asks for them): ``None`` for an ``optional`` method
    the store does not have."""

    method: str
    args: tuple[Any, ...]
    optional: bool = False


class _Public:
    """The answers to a read's requests made of a store's public methods (``thread_info``, ``roles``,
    ``messages``, and ``latest_checkpoint``, ``token_counts`` and ``save_token_counts`` where it has them):
    what a store that is not one of the package's, or wraps one (Agent Framework's history provider), is
    read through. Not one snapshot: each call reads on its own, as positions below the length read first
    never change (a thread only grows). What one read learns is kept for its later requests: a page
    asked for again is not read again."""

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        self.length: int | None = None
        self.checkpoint: Any = None
        self.roles: dict[int, str] = {}
        self.messages: dict[int, Message] = {}
        self.tokens: dict[int, int] = {}

    def answer(self, request: Any) -> Generator[Call, Any, Any]:
        """The calls that answer ``request`` (each sent its result), and the answer."""
        if isinstance(request, Window):
            return (yield from self._window(request))
        if isinstance(request, Keep):
            kept = []
            for lo, hi in request.ranges:
                if any(p not in self.messages for p in range(lo, hi)):
                    got = (yield Call("messages", (self.thread_id, lo, hi))) if hi > lo else []
                    self.messages.update(zip(range(lo, hi), got, strict=True))
                kept.append([self.messages[p] for p in range(lo, hi)])
            return kept
        if isinstance(request, SaveCounts):
            return (yield Call("save_token_counts", (self.thread_id, request.counter, request.counts), True))
        return (yield from _old_answer(self.thread_id, request))

    def _window(self, request: Window) -> Generator[Call, Any, Snapshot]:
        if self.length is None:
            if request.checkpoint:  # before the length: a checkpoint never covers more than the thread held
                self.checkpoint = yield Call("latest_checkpoint", (self.thread_id,), True)
            info = yield Call("thread_info", (self.thread_id,))
            if info.kind != "local":
                yield Call("messages", (self.thread_id,))  # raises the store's ThreadKindError
            self.length = int(info.length)
        length = self.length
        wanted = [(0, min(request.lead, length)), (max(request.lead, length - request.tail), length)]
        for lo, hi in wanted:
            have = self.messages if request.weighted else self.roles
            for first, end in _missing(have, lo, hi):
                if request.weighted:
                    got = yield Call("messages", (self.thread_id, first, end))
                    self.messages.update(zip(range(first, end), got, strict=True))
                    self.roles.update((p, m.role) for p, m in zip(range(first, end), got, strict=True))
                    if request.counter:
                        saved = yield Call(
                            "token_counts", (self.thread_id, request.counter, first, end), True
                        )
                        for p, count in zip(range(first, end), saved or (), strict=False):
                            if count is not None:
                                self.tokens[p] = count
                else:
                    got = yield Call("roles", (self.thread_id, first, end))
                    self.roles.update(zip(range(first, end), got, strict=True))
        rows = {
            p: window_row(p, role, self.tokens.get(p), None, None, self.messages.get(p))
            for p, role in self.roles.items()
        }
        return Snapshot(length, self.checkpoint, rows)


def _missing(have: Mapping[int, object], lo: int, hi: int) -> list[tuple[int, int]]:
    """The runs of positions of ``[lo, hi)`` that ``have`` lacks."""
    runs: list[tuple[int, int]] = []
    for p in range(lo, hi):
        if p not in have:
            if runs and runs[-1][1] == p:
                runs[-1] = (runs[-1][0], p + 1)
            else:
                runs.append((p, p + 1))
    return runs


def _old_answer(thread_id: str, request: Any) -> Generator[Call, Any, Any]:
    """The calls that answer one of the single-step requests (``Length``, ``Roles``, ``Messages``,
    ``Latest``, ``Counts``), which ``messages._compaction`` makes."""
    if isinstance(request, Length):
        info = yield Call("thread_info", (thread_id,))
        if info.kind != "local":
            yield Call("messages", (thread_id,))  # raises the store's ThreadKindError
        return info.length
    if isinstance(request, Roles):
        return (yield Call("roles", (thread_id, request.lo, request.hi))) if request.hi > request.lo else []
    if isinstance(request, Messages):
        return (
            (yield Call("messages", (thread_id, request.lo, request.hi))) if request.hi > request.lo else []
        )
    if isinstance(request, Latest):
        return (yield Call("latest_checkpoint", (thread_id,), True))
    if isinstance(request, Counts):
        if request.hi <= request.lo:
            return []
        counts = yield Call("token_counts", (thread_id, request.counter, request.lo, request.hi), True)
        return counts if counts is not None else [None] * (request.hi - request.lo)
    if isinstance(request, SaveCounts):
        return (yield Call("save_token_counts", (thread_id, request.counter, request.counts), True))
    raise TypeError(f"no store answers {request!r}")


def _call_sync(store: Any, call: Call) -> Any:
    method = getattr(store, call.method, None)
    if method is None and call.optional:
        return None
    return method(*call.args)  # type: ignore[misc]


async def _call_async(store: Any, call: Call) -> Any:
    method = getattr(store, call.method, None)
    if method is None and call.optional:
        return None
    return await method(*call.args)  # type: ignore[misc]


def _calls_sync(store: Any, calls: Generator[Call, Any, Any]) -> Any:
    answer: Any = None
    try:
        while True:
            answer = _call_sync(store, calls.send(answer))
    except StopIteration as done:
        return done.value


async def _calls_async(store: Any, calls: Generator[Call, Any, Any]) -> Any:
    answer: Any = None
    try:
        while True:
            answer = await _call_async(store, calls.send(answer))
    except StopIteration as done:
        return done.value


def answer_sync(store: Any, thread_id: str, request: Any) -> Any:
    """What a sync store answers to one of the single-step requests (``messages._compaction``'s): its
    public methods; a ``SaveCounts`` is kept for the thread's next append where the store can
    (``_defer_counts``)."""
    defer = getattr(store, "_defer_counts", None)
    if isinstance(request, SaveCounts) and defer is not None:
        return defer(thread_id, request)
    return _calls_sync(store, _old_answer(thread_id, request))


async def answer_async(store: Any, thread_id: str, request: Any) -> Any:
    """``answer_sync`` for an async store."""
    defer = getattr(store, "_defer_counts", None)
    if isinstance(request, SaveCounts) and defer is not None:
        return defer(thread_id, request)
    return await _calls_async(store, _old_answer(thread_id, request))


def drive(requests: Generator[Any, Any, T], answer: Callable[[Any], Any]) -> T:
    """Run a generator of requests, each answered by ``answer(request)``; its result."""
    reply: Any = None
    try:
        while True:
            reply = answer(requests.send(reply))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def adrive(requests: Generator[Any, Any, T], answer: Callable[[Any], Awaitable[Any]]) -> T:
    """``drive`` with an awaited ``answer``."""
    reply: Any = None
    try:
        while True:
            reply = await answer(requests.send(reply))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def drive_sync(store: Any, thread_id: str, requests: Generator[Any, Any, T]) -> T:
    """Run a generator of single-step requests against a sync store (``answer_sync``); its result."""
    return drive(requests, lambda request: answer_sync(store, thread_id, request))


def read_sync(store: SyncReader, thread_id: str, plan: ReadPlan) -> Part:
    """Run ``plan_read`` against a sync store: the store's own read (``_read_window``: the package's
    stores, one snapshot per request) where it has one, else its public methods (``_Public``)."""
    native = getattr(store, "_read_window", None)
    if native is not None:
        return native(thread_id, plan)  # type: ignore[no-any-return]
    public = _Public(thread_id)
    part = drive(plan_read(plan), lambda request: _calls_sync(store, public.answer(request)))
    part.thread_id = thread_id
    return part


async def read_async(store: AsyncReader, thread_id: str, plan: ReadPlan) -> Part:
    """Run ``plan_read`` against an async store. A store whose calls run in a worker thread of its own
    (``OffloadedStore``: the async SQLite store) runs the whole read there, in one call (``_read_part``):
    the loop is woken once per read instead of once per step, and the window's walk runs off the loop. A
    natively async store of the package's (PostgreSQL) reads with its own ``_aread_window``."""
    whole = getattr(store, "_read_part", None)
    if whole is not None:
        return await whole(thread_id, plan)  # type: ignore[no-any-return]
    native = getattr(store, "_aread_window", None)
    if native is not None:
        return await native(thread_id, plan)  # type: ignore[no-any-return]
    public = _Public(thread_id)

    async def answer(request: Any) -> Any:
        return await _calls_async(store, public.answer(request))

    part = await adrive(plan_read(plan), answer)
    part.thread_id = thread_id
    return part
