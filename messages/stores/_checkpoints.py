"""Summary checkpoints and token counts in the stores, without I/O: the records, their checks, their stored
form and the store's error texts about them, written once for every backend.

A checkpoint is a record beside a thread's messages: a summary message standing for every message before
a position (``upto``) except the leading system messages, the checkpoint it builds on (``base``: its summary
was part of this one's input), and how it was made (``Provenance``). Checkpoints of a thread form one chain:
each builds on the newest one before it, ``upto`` grows along it, and ``add_checkpoint`` accepts a new one
only on the newest (compare and set under the thread's write lock). Writing one inserts a row and touches
no message; deleting one (with those built on it) undoes it.

Token counts are a cache beside the messages too: a message's count under a named counter, written once
(the first count stays: a counter counts a message the same way every time), read by position.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from messages.errors import (
    CheckpointConflictError,
    CorruptDataError,
    InvalidArgumentError,
    InvalidCheckpointError,
    PositionError,
)
from messages.models import AIMessage, Message, ToolMessage
from messages.protocol import check_types
from messages.stores._codec import MAX_ID_LENGTH, check_thread_id, diagnose, new_message_id

__all__ = [
    "Checkpoint",
    "Provenance",
    "StoredCheckpoint",
    "admit",
    "check_checkpoint_id",
    "check_counter",
    "check_counts",
    "check_summary",
    "check_upto",
    "conflict",
    "counts_past_end",
    "decode_checkpoint",
    "encode_checkpoint",
]


@dataclass(frozen=True)
class Provenance:
    """How a checkpoint's summary was made: stored with it, read back with it."""

    model: str | None = None
    """The summarizer's model (a litellm model string), when it says."""
    prompt_hash: str | None = None
    """The SHA-256 (hex) of the summarizer's instructions, when it says: which prompt made the summary."""
    input_tokens: int | None = None
    """The tokens the summarizer's call took in, as its provider reported them (``None``: not reported)."""
    output_tokens: int | None = None
    """The tokens it gave out, as its provider reported them."""
    token_counter: str | None = None
    """The name of the counter that counted ``span_tokens`` and ``summary_tokens``."""
    span_tokens: int | None = None
    """What the summary replaces, counted by ``token_counter``: the base's summary and the new messages."""
    summary_tokens: int | None = None
    """The summary message, counted by ``token_counter``."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Anything else the summarizer reported (JSON)."""


@dataclass(frozen=True)
class Checkpoint:
    """A summary checkpoint of a thread: ``summary`` stands for the thread's messages before ``upto``, but
    its leading system messages, which every read keeps."""

    id: str
    """The checkpoint's id, unique in its thread."""
    thread_id: str
    """The thread it summarizes."""
    upto: int
    """The position it covers up to (exclusive): a read gives the summary, then the messages from here."""
    base: str | None
    """The id of the checkpoint it builds on (whose summary was summarized again with the messages from its
    ``upto`` to this one's), ``None`` for the first of the thread."""
    summary: Message
    """The summary message, as reads give it (``messages.compaction.summary_message`` makes one)."""
    provenance: Provenance
    """How the summary was made."""
    created_at: datetime
    """When it was stored (UTC)."""


@dataclass(frozen=True)
class StoredCheckpoint:
    """A checkpoint's row as a backend reads it, before it is decoded."""

    id: str
    base: str | None
    upto: int
    summary: object
    provenance: object
    created_at: datetime


def check_checkpoint_id(checkpoint_id: object) -> str:
    """A usable checkpoint id (the rules of thread ids), else ``InvalidThreadIdError`` saying why."""
    from messages.stores._codec import _check_id

    return _check_id(checkpoint_id, "checkpoint id")


def check_counter(counter: object) -> str:
    """A usable counter name: a non-empty string of at most ``MAX_ID_LENGTH`` characters."""
    if not isinstance(counter, str) or not counter or len(counter) > MAX_ID_LENGTH:
        raise InvalidArgumentError(
            f"counter: a token counter's name is a non-empty string of at most {MAX_ID_LENGTH} characters, "
            f"not {counter!r}",
            argument="counter",
        )
    return counter


def counts_past_end(thread_id: str, counts: Mapping[int, int], length: int) -> PositionError | None:
    """The error for token counts of positions the thread (of ``length`` messages) does not hold."""
    past = [position for position in counts if position >= length]
    if not past:
        return None
    return PositionError(
        f"thread {thread_id!r}: a token count for position {min(past)}, past the thread's end (it holds "
        f"{length} messages); nothing was saved",
        thread_id=thread_id,
        position=min(past),
    )


def check_counts(counts: object) -> dict[int, int]:
    """``{position: tokens}`` checked: positions and counts are ints of at least 0."""
    if not isinstance(counts, Mapping):
        raise InvalidArgumentError(
            f"counts is a mapping of positions to token counts, not a {type(counts).__name__}",
            argument="counts",
        )
    checked: dict[int, int] = {}
    for position, tokens in counts.items():
        for what, value in (("position", position), ("token count", tokens)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise InvalidArgumentError(
                    f"counts: a {what} is an int of at least 0, not {value!r}", argument="counts"
                )
        checked[position] = tokens
    return checked


def check_upto(
    thread_id: str, upto: object, length: int, base: StoredCheckpoint | None, role: str | None
) -> int:
    """``upto`` when a checkpoint on ``base`` may cover the thread up to it: after the base's position, at
    most the thread's ``length``, and not on a tool result (``role`` is the role of the message at ``upto``,
    ``None`` at the end), which would cut the result from its call."""
    if not isinstance(upto, int) or isinstance(upto, bool):
        raise InvalidArgumentError(
            f"upto is a position, an int, not a {type(upto).__name__} ({upto!r})", argument="upto"
        )
    floor = base.upto if base is not None else 0
    if upto > length:
        raise PositionError(
            f"thread {thread_id!r}: a checkpoint up to position {upto} is past the thread's end (it holds "
            f"{length} messages)",
            thread_id=thread_id,
            position=upto,
        )
    if upto <= floor:
        after = f"after its base's position ({floor})" if base is not None else "at least 1"
        raise InvalidCheckpointError(
            f"thread {thread_id!r}: a checkpoint up to position {upto} cannot stand: it must be {after}",
            thread_id=thread_id,
        )
    if role == "tool":
        raise InvalidCheckpointError(
            f"thread {thread_id!r}: a checkpoint up to position {upto} would cut the tool result there from "
            "the call before it; cut where an exchange starts (messages.compaction places cuts so)",
            thread_id=thread_id,
        )
    return upto


def check_summary(thread_id: str, summary: object) -> Message:
    """``summary`` when it can stand in a read: a message that is not a tool result and makes no calls."""
    check_types([summary])
    message: Message = summary  # type: ignore[assignment]  # checked above
    if isinstance(message, ToolMessage) or (isinstance(message, AIMessage) and message.tool_calls):
        raise InvalidCheckpointError(
            f"thread {thread_id!r}: a checkpoint's summary is one message that is not a tool result and "
            f"makes no tool calls (it would break the tool-call protocol of every read); got {summary!r}",
            thread_id=thread_id,
        )
    return message


def conflict(thread_id: str, base: str | None, winner: Checkpoint | None) -> CheckpointConflictError:
    """The error for an ``add_checkpoint`` on ``base`` when the newest checkpoint is ``winner``."""
    on = f"on checkpoint {base!r}" if base is not None else "as the thread's first"
    now = f"checkpoint {winner.id!r} (up to position {winner.upto})" if winner is not None else "none"
    return CheckpointConflictError(
        f"thread {thread_id!r}: the checkpoint {on} was not stored: the thread's newest checkpoint is now "
        f"{now}, stored by another compactor first; read again to use it (nothing was written)",
        thread_id=thread_id,
        base=base,
        winner=winner,
    )


def encode_checkpoint(
    thread_id: str, summary: object, provenance: Provenance | None, checkpoint_id: str | None
) -> tuple[str, str, str]:
    """A checkpoint's id, summary dump and provenance JSON, checked."""
    thread_id = check_thread_id(thread_id)
    message = check_summary(thread_id, summary)
    if provenance is None:
        provenance = Provenance()
    if not isinstance(provenance, Provenance):
        raise InvalidArgumentError(
            f"provenance is a messages.compaction.Provenance, not a {type(provenance).__name__}",
            argument="provenance",
        )
    checked = new_message_id() if checkpoint_id is None else check_checkpoint_id(checkpoint_id)
    try:
        text = json.dumps(asdict(provenance), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"the provenance does not encode as JSON: {exc}", argument="provenance"
        ) from None
    return checked, message.model_dump_json(), text


def decode_checkpoint(thread_id: str, row: StoredCheckpoint) -> Checkpoint:
    """A stored checkpoint; ``CorruptDataError`` naming the thread and the checkpoint when it does not
    read. A checkpoint is never changed once stored, and ``Checkpoint`` is a frozen value: the newest one,
    which every compacting read fetches, is decoded once in this process (``_decoded``)."""
    try:
        return _decoded(thread_id, row)
    except TypeError:  # a column that does not hash (damage): decoded, and named, without the cache
        return _decode(thread_id, row)


def _decode(thread_id: str, row: StoredCheckpoint) -> Checkpoint:
    try:
        [summary] = diagnose(thread_id, row.upto, lambda: [row.summary])
    except CorruptDataError as exc:
        raise CorruptDataError(
            f"thread {thread_id!r}, checkpoint {row.id!r}: its summary does not read ({exc})",
            thread_id=thread_id,
            position=row.upto,
        ) from None
    try:
        if not isinstance(row.provenance, (str, bytes)):
            raise TypeError(f"a {type(row.provenance).__name__}, not JSON text")
        fields = json.loads(row.provenance)
        if not isinstance(fields, dict):
            raise TypeError("not a JSON object")
        provenance = Provenance(**fields)
    except (ValueError, TypeError, ValidationError) as exc:
        raise CorruptDataError(
            f"thread {thread_id!r}, checkpoint {row.id!r}: its provenance does not read ({exc})",
            thread_id=thread_id,
            position=row.upto,
        ) from None
    return Checkpoint(row.id, thread_id, int(row.upto), row.base, summary, provenance, row.created_at)


_decoded = functools.lru_cache(maxsize=1_024)(_decode)


def admit(
    thread_id: str,
    checkpoint_id: str,
    base: str | None,
    upto: object,
    length: int,
    newest: StoredCheckpoint | None,
    role: str | None,
    taken: bool,
) -> int:
    """Check, under the thread's write lock, that a checkpoint may be added: ``base`` is the newest
    checkpoint (``newest``; else ``CheckpointConflictError`` carrying it), ``upto`` stands (``check_upto``;
    ``role`` is the role at ``upto``), and the id is free (``taken``). Returns ``upto``."""
    if (newest.id if newest is not None else None) != base:
        raise conflict(thread_id, base, decode_checkpoint(thread_id, newest) if newest is not None else None)
    checked = check_upto(thread_id, upto, length, newest, role)
    if taken:
        raise InvalidCheckpointError(
            f"thread {thread_id!r} already has a checkpoint with id {checkpoint_id!r}; give another id, or "
            "none for a minted one",
            thread_id=thread_id,
        )
    return checked
