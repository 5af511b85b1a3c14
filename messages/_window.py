"""Where a window over a conversation starts: the rules of ``messages.context``'s windows as pure
functions, shared by the in-memory windows and by the window-aware store read (``LocalThread.read``).

The vocabulary (the module docstring of ``messages.context`` gives the rules): the *lead* is the leading
system messages; after it the history is cut into *units*, each a message that is not a tool result with
the tool results that follow it (a tool result right after the lead starts a unit of its own). A window
keeps the lead, then whole units: a *head* (``HeadAndTailContext``) and a *tail*.

* ``TailWalk``: the newest whole units whose weights sum to at most a budget (the newest always), found
  by offering the units from the newest back;
* ``head_end``: where a head of at most ``head_size`` messages after the lead ends;
* ``plan_read``: the store read of a window (a generator without I/O: it asks for lengths, roles and
  messages, and returns the parts of the thread the window needs), driven by ``read_sync`` and
  ``read_async``.

The read asks only for what the window can return. Buffered and head-and-tail windows weigh each message 1,
so the roles alone (one short column, no message parsed) place the cut, and only the kept messages are read;
a token-limited window reads messages from the end, a page at a time, until its budget is spent. Every cut
falls between units, so no call is cut from its result. A summary checkpoint (a stored summary standing for
every message before a position) fits the same read later: the walk stops at the newest checkpoint, whose
summary then stands in for what precedes it, as the head and the placeholder do here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from messages.models import Message

__all__ = [
    "SYSTEM_ROLES",
    "Part",
    "ReadPlan",
    "TailWalk",
    "head_end",
    "lead_of",
    "plan_read",
    "read_async",
    "read_sync",
]

SYSTEM_ROLES = frozenset({"system", "developer"})
"""The roles of a ``SystemMessage``, which make up the lead."""


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


def head_end(starts: Iterable[int], lead: int, head_size: int) -> int:
    """Where the head ends: the start of the first unit that does not fit in ``head_size`` messages after
    the lead. ``starts`` are the unit starts after the first (ascending positions, in a history longer
    than the lead and the head), each the end of the unit before it."""
    end = lead
    for start in starts:
        if start - lead > head_size:
            break
        end = start
    return end


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
    """The tail's budget, given the lead's messages."""
    weigh: Callable[[Message], int] | None = None
    """A message's weight (tokens); ``None``: every message weighs 1, and roles suffice to place the cut."""
    head: int | None = None
    """The head's bound in messages (``HeadAndTailContext``), or ``None`` for no head."""
    tail_fixed: float | None = None
    """For a head-and-tail window: the tail's bound, where a history of at most head + tail messages after
    the lead is kept whole."""


@dataclass
class Part:
    """What a window read gives the window: the messages before the cut (the lead, and the head),
    how many it leaves out, and the messages after it; with the weights it counted, by message."""

    head: list[Message]
    omitted: int
    tail: list[Message]
    weights: dict[int, int] = field(default_factory=dict)
    """Weights counted on the way, by index in ``head + tail``."""


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


Request = Length | Roles | Messages
_LEAD_PAGE = 8
_PAGE = 64


def plan_read(plan: ReadPlan) -> Generator[Request, Any, Part]:
    """The reads that give a window what it keeps of a thread, and that part (see the module docstring).

    Positions are fixed by the length read first: messages are only ever appended, so later reads of
    positions below it see the same messages, whatever is appended meanwhile."""
    length: int = yield Length()
    lead = 0
    page = _LEAD_PAGE
    while lead < length:  # the lead: roles from the start until one is not a system message
        roles: list[str] = yield Roles(lead, min(length, lead + page))
        counted = lead_of(roles)
        lead += counted
        if counted < len(roles):
            break
        page *= 4
    if lead == length:  # no unit: the whole history is the window
        return Part((yield Messages(0, length)), 0, [])
    if plan.head is not None and plan.tail_fixed is not None and length - lead <= plan.head + plan.tail_fixed:
        return Part((yield Messages(0, length)), 0, [])  # it fits: the whole history
    head_messages: list[Message] = yield Messages(0, lead)
    weights: dict[int, int] = {}
    floor = lead
    if plan.head is not None:
        roles = yield Roles(lead, min(length, lead + plan.head + 1))
        starts = (p for p, role in enumerate(roles, lead) if p > lead and starts_unit(role, p, lead))
        floor = head_end(starts, lead, plan.head)
        if floor > lead:
            head_messages += yield Messages(lead, floor)
    walk = TailWalk(plan.tail(head_messages[:lead]))
    tail: list[Message] = []  # the messages read from the end, oldest first
    hi, unit, page = length, 0, _PAGE
    start = length
    while not walk.done and hi > floor:
        lo = max(floor, hi - page)
        if plan.weigh is None:
            roles = yield Roles(lo, hi)
            units = [(p, 1, roles[p - lo]) for p in range(hi - 1, lo - 1, -1)]
        else:
            got: list[Message] = yield Messages(lo, hi)
            tail[:0] = got
            units = [
                (p, _weigh(plan.weigh, got[p - lo], p, weights), got[p - lo].role)
                for p in range(hi - 1, lo - 1, -1)
            ]
        for position, weight, role in units:
            unit += weight
            if starts_unit(role, position, lead):
                if not walk.offer(position, unit):
                    break
                unit = 0
        hi, page = lo, page * 2
    start = walk.start if walk.start is not None else length
    if plan.weigh is None:
        tail = yield Messages(start, length)
    else:
        tail = tail[len(tail) - (length - start) :]
        offset = len(head_messages) - start
        weights = {position + offset: weight for position, weight in weights.items() if position >= start}
    if start == floor and plan.head is not None:  # the tail reaches the head: nothing is left out
        return Part(head_messages + tail, 0, [], {})
    return Part(head_messages, start - floor, tail, weights)


def _weigh(weigh: Callable[[Message], int], message: Message, position: int, weights: dict[int, int]) -> int:
    weight = weigh(message)
    weights[position] = weight
    return weight


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


def read_sync(store: SyncReader, thread_id: str, plan: ReadPlan) -> Part:
    """Run ``plan_read`` against a sync store."""
    reads = plan_read(plan)
    answer: Any = None
    try:
        while True:
            request = reads.send(answer)
            if isinstance(request, Length):
                info = store.thread_info(thread_id)
                if info.kind != "local":
                    store.messages(thread_id)  # raises the store's ThreadKindError
                answer = info.length
            elif isinstance(request, Roles):
                answer = store.roles(thread_id, request.lo, request.hi) if request.hi > request.lo else []
            else:
                answer = store.messages(thread_id, request.lo, request.hi) if request.hi > request.lo else []
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def read_async(store: AsyncReader, thread_id: str, plan: ReadPlan) -> Part:
    """Run ``plan_read`` against an async store."""
    reads = plan_read(plan)
    answer: Any = None
    try:
        while True:
            request = reads.send(answer)
            if isinstance(request, Length):
                info = await store.thread_info(thread_id)
                if info.kind != "local":
                    await store.messages(thread_id)  # raises the store's ThreadKindError
                answer = info.length
            elif isinstance(request, Roles):
                answer = (
                    await store.roles(thread_id, request.lo, request.hi) if request.hi > request.lo else []
                )
            else:
                answer = (
                    await store.messages(thread_id, request.lo, request.hi) if request.hi > request.lo else []
                )
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
