"""Compaction without I/O: when a thread's compaction is due, where to cut, the spans to summarize (chained
within the summarizer's input budget), and the checks on each summary, as one generator of requests
(``plan_compaction``) that ``messages.compaction`` drives against a sync or an async store, as
``messages._window.plan_read`` is driven for a window's read.

The rules (``messages.compaction``'s module docstring states them for users):

* The tail is what follows the newest checkpoint (or the leading system messages): compaction is due when
  the window it makes (the lead, the summary, the whole tail) is over the trigger.
* A cut falls on a unit start (``messages._window.Units``: a message that is not a tool result), never past
  a unit whose calls are not all answered within it (a pending call or approval is never summarized), and
  never past the newest unit (the window's newest exchange stays as it is). Among those, the cut keeps as
  many of the newest units as ``keep`` holds, then moves forward to a user turn where there is one, so the
  window after the summary starts on a question, not on an answer without its question.
* The span to summarize is the base's summary and the messages from the base's position to the cut. When
  it is over the summarizer's input budget it is cut at unit starts into pieces, each summarized with the
  summary of the piece before it, and stored as a chain of checkpoints; nothing is ever truncated, and one
  unit larger than the budget alone raises ``SummaryInputTooLargeError``.
* Every summary is checked before anything is written (not empty, not larger than what it replaces); then
  the checkpoints are written in order, each on the one before (compare and set). A conflict ends the
  compaction: another compactor's checkpoint stands, and is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from messages._window import Counts, Latest, Length, Messages, Roles, SaveCounts, lead_length
from messages.errors import CheckpointConflictError, SummarizerError, SummaryInputTooLargeError
from messages.models import AIMessage, Message, ToolMessage
from messages.stores._checkpoints import Checkpoint, Provenance

__all__ = [
    "AddCheckpoint",
    "Outcome",
    "Settings",
    "Summarize",
    "SummaryRequest",
    "SummaryResult",
    "choose_cut",
    "plan_compaction",
]


@dataclass(frozen=True)
class SummaryRequest:
    """What a summarizer is asked to summarize: the previous summary and the messages after it."""

    thread_id: str
    """The thread being compacted."""
    previous: str | None
    """The text of the summary the new one builds on (its base's, or the previous piece's in a chain),
    without its marker; ``None`` for the thread's first summary."""
    messages: list[Message]
    """The span: every message from ``start`` to ``upto``, whole exchanges, in order."""
    start: int
    """The thread position of the span's first message."""
    upto: int
    """The position the new summary covers up to (exclusive)."""


@dataclass(frozen=True)
class SummaryResult:
    """What a summarizer returns (or a plain ``str``, the text alone)."""

    text: str
    """The summary's text."""
    model: str | None = None
    """The model that wrote it."""
    prompt_hash: str | None = None
    """A hash of the instructions it was given."""
    input_tokens: int | None = None
    """The tokens its call took in, as the provider reported them."""
    output_tokens: int | None = None
    """The tokens its call gave out."""


@dataclass(frozen=True)
class Summarize:
    """A request: summarize (the driver calls the summarizer, with its timeout)."""

    request: SummaryRequest


@dataclass(frozen=True)
class AddCheckpoint:
    """A request: store a checkpoint on ``base`` (answered with the ``Checkpoint``, or the
    ``CheckpointConflictError`` the store raised)."""

    base: str | None
    upto: int
    summary: Message
    provenance: Provenance


@dataclass(frozen=True)
class Settings:
    """What the generator needs of a compacting window's settings."""

    count: Callable[[Message], int]
    """A message's tokens (the window's counter, or an estimate)."""
    count_fixed: Callable[[Message], int]
    """``count`` for the messages every turn reads again (the lead, the summary), cached."""
    counter: str | None
    """The counter's name, under which counts are saved (``None``: none saved)."""
    counter_label: str
    """What counted, for the provenance: the counter's name, or what it is when it has none."""
    tokens: bool
    """Whether ``limit``, ``trigger`` and ``keep`` count tokens (else messages after the lead)."""
    overhead: int
    """The list's fixed overhead in tokens (``tokens`` only)."""
    trigger: int
    keep: int
    max_input: int | None
    """The summarizer's input budget in tokens (``None``: no budget), its instructions included."""
    prompt_tokens: int
    """The tokens of the summarizer's own instructions, counted against ``max_input``."""
    make_summary: Callable[[str], Message]
    """The summary message for a text."""
    summary_text: Callable[[Message], str]
    """A summary message's text, without its marker."""


@dataclass(frozen=True)
class Outcome:
    """What one compaction did."""

    due: bool
    """Whether compaction was due (or forced)."""
    written: tuple[Checkpoint, ...]
    """The checkpoints this compaction stored, oldest first (several: a chain)."""
    conflict: Checkpoint | None
    """The checkpoint another compactor stored first, when one did (this one stored nothing on it)."""


def _open(messages: Sequence[Message]) -> bool:
    """Whether a unit (its messages) leaves a call of its first message unanswered."""
    first = messages[0]
    if not isinstance(first, AIMessage) or not first.tool_calls:
        return False
    answered = {m.tool_call_id for m in messages[1:] if isinstance(m, ToolMessage)}
    return any(call.id not in answered for call in first.tool_calls)


def choose_cut(
    starts: Sequence[int], roles: Sequence[str], weights: Sequence[float], floor: int, keep: float, limit: int
) -> int | None:
    """Where to cut a tail of units (``starts``: positions from ``floor``; ``roles`` and ``weights`` by
    position from ``floor``): the oldest unit start after ``floor`` and at most ``limit`` whose units to
    the end weigh at most ``keep`` (else ``limit`` itself), moved forward to a user turn up to ``limit``
    where there is one; ``None`` when no unit start lies in ``(floor, limit]``."""
    candidates = [s for s in starts if floor < s <= limit]
    if not candidates:
        return None
    suffix = [0.0] * (len(weights) + 1)
    for i in range(len(weights) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + weights[i]
    cut = next((s for s in candidates if suffix[s - floor] <= keep), candidates[-1])
    if roles[cut - floor] != "user":
        cut = next((s for s in candidates if s >= cut and roles[s - floor] == "user"), cut)
    return cut


def plan_compaction(settings: Settings, thread_id: str, *, force: bool) -> Generator[Any, Any, Outcome]:
    """The requests that compact ``thread_id`` (see the module docstring), and what was done."""
    latest: Checkpoint | None = yield Latest()
    length: int = yield Length()
    lead = yield from lead_length(length)
    floor = latest.upto if latest is not None and latest.upto > lead else lead
    summary = latest.summary if latest is not None and latest.upto > lead else None
    if floor >= length:
        return Outcome(force, (), None)  # nothing after the lead: due only when forced
    roles: list[str] = yield Roles(floor, length)
    tail: list[Message] = yield Messages(floor, length)
    saved: list[int | None] = (
        (yield Counts(floor, length, settings.counter)) if settings.counter else [None] * len(tail)
    )
    fresh: dict[int, int] = {}
    tokens: list[int] = []
    for offset, message in enumerate(tail):
        count = saved[offset]
        if count is None:
            count = fresh[floor + offset] = settings.count(message)
        tokens.append(count)
    weights = tokens if settings.tokens else [1] * len(tail)
    if settings.tokens:
        lead_messages: list[Message] = yield Messages(0, lead)
        size = settings.overhead + sum(settings.count_fixed(m) for m in lead_messages) + sum(tokens)
        size += settings.count_fixed(summary) if summary is not None else 0
    else:
        size = len(tail) + (summary is not None)
    due = force or size > settings.trigger
    starts = [p for p in range(floor, length) if p == floor or roles[p - floor] != "tool"]
    ends = [*starts[1:], length]
    first_open = next(
        (s for s, e in zip(starts, ends, strict=True) if _open(tail[s - floor : e - floor])), length
    )
    cut = choose_cut(starts, roles, weights, floor, settings.keep, min(first_open, starts[-1]))
    if not due or cut is None:
        if settings.counter and fresh:
            yield SaveCounts(settings.counter, fresh)
        return Outcome(due, (), None)

    # The span [floor, cut), in pieces within the summarizer's budget, each summarized with the one before.
    previous = settings.summary_text(summary) if summary is not None else None
    previous_tokens = settings.count_fixed(summary) if summary is not None else 0
    made: list[tuple[int, Message, Provenance]] = []
    unit_starts = [s for s in starts if s < cut]
    piece_start = floor
    index = 0
    while piece_start < cut:
        budget = None if settings.max_input is None else settings.max_input - settings.prompt_tokens
        end = piece_start
        span = 0
        while index < len(unit_starts):
            unit_end = unit_starts[index + 1] if index + 1 < len(unit_starts) else cut
            unit = sum(tokens[unit_starts[index] - floor : unit_end - floor])
            if budget is not None and previous_tokens + span + unit > budget:
                break
            span += unit
            end = unit_end
            index += 1
        if end == piece_start:
            unit_end = unit_starts[index + 1] if index + 1 < len(unit_starts) else cut
            unit = sum(tokens[piece_start - floor : unit_end - floor])
            raise SummaryInputTooLargeError(
                f"thread {thread_id!r}: the exchange at positions {piece_start} to {unit_end - 1} counts "
                f"{unit} tokens, and with the previous summary ({previous_tokens}) and the instructions "
                f"({settings.prompt_tokens}) it is over the summarizer's input budget "
                f"({settings.max_input}); an exchange is never cut nor truncated: raise "
                "max_summary_input_tokens (nothing was written)",
                thread_id=thread_id,
                position=piece_start,
                tokens=previous_tokens + unit + settings.prompt_tokens,
            )
        request = SummaryRequest(
            thread_id, previous, tail[piece_start - floor : end - floor], piece_start, end
        )
        result: SummaryResult = yield Summarize(request)
        text = result.text.strip()
        if not text:
            raise SummarizerError(
                f"thread {thread_id!r}: the summarizer returned no text for positions {piece_start} to "
                f"{end - 1}; nothing was written (the thread reads as before)",
                thread_id=thread_id,
                reason="empty",
            )
        message = settings.make_summary(text)
        summary_tokens = settings.count(message)
        replaced = previous_tokens + span
        returned = settings.count(message.model_copy(update={"content": text}))
        if returned > replaced:  # what the summarizer returned, without the marker this package adds
            raise SummarizerError(
                f"thread {thread_id!r}: the summary of positions {piece_start} to {end - 1} counts "
                f"{returned} tokens, more than the {replaced} it would replace; nothing was written "
                "(the thread reads as before)",
                thread_id=thread_id,
                reason="too_long",
            )
        provenance = Provenance(
            model=result.model,
            prompt_hash=result.prompt_hash,
            input_tokens=result.input_tokens,
            output_tokens=result.output_tokens,
            token_counter=settings.counter_label,
            span_tokens=replaced,
            summary_tokens=summary_tokens,
        )
        made.append((end, message, provenance))
        previous, previous_tokens, piece_start = text, summary_tokens, end

    written: list[Checkpoint] = []
    base = latest.id if latest is not None else None
    for upto, message, provenance in made:
        stored = yield AddCheckpoint(base, upto, message, provenance)
        if isinstance(stored, CheckpointConflictError):
            return Outcome(True, tuple(written), stored.winner)
        written.append(stored)
        base = stored.id
    if settings.counter and fresh:
        yield SaveCounts(settings.counter, fresh)
    return Outcome(True, tuple(written), None)
