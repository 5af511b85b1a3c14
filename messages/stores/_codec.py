"""The stores' codec, without I/O: what every backend writes and reads, checked, encoded and decoded here,
once.

* Checks: thread ids, message ids, positions, flags (``check_thread_id``, ``check_message_id``,
  ``check_positions``, ``check_flag``, ``bounds``). A bad argument raises ``InvalidArgumentError`` naming
  it, the message's index in the batch, and what to give instead.
* Writing: a message becomes a ``Row`` (its lossless JSON dump, its envelope id, its metadata's JSON and its
  role, ``encode_rows``); a thread value becomes its JSON (``encode_thread``). What cannot be stored is
  refused by name before anything is written (``UnstorableMessageError``, ``MessageTypeError``,
  ``InvalidArgumentError`` for ids and metadata that do not pair with the messages, and metadata that is
  not JSON or nests deeper than ``MAX_METADATA_DEPTH``).
* Reading: stored rows become messages, the fast way (one parse of a span, ``decode_joined``) or row by
  row naming the first damaged position (``diagnose``); a stored thread value becomes a ``LocalThread`` or
  ``RemoteThread`` (``decode_thread``). Damage raises ``CorruptDataError`` naming the thread and position.
* The store's own errors, worded once: ``not_local``, ``kind_change``, ``missing_position``,
  ``message_exists``.
"""

from __future__ import annotations

import json
import math
import operator
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from pydantic import ConfigDict, JsonValue, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError

from messages._counts import ByShortText
from messages._io import MESSAGE_LIST, collector_paused
from messages._window import TEXT, check_flag
from messages._wire import json_strings
from messages.errors import (
    CorruptDataError,
    InvalidArgumentError,
    InvalidThreadIdError,
    MessageExistsError,
    ThreadKindError,
    UnstorableMessageError,
)
from messages.models import Message
from messages.threads import LocalThread, RemoteThread, as_message_list, parse_thread

__all__ = [
    "MAX_ID_LENGTH",
    "MAX_METADATA_DEPTH",
    "MessageRecord",
    "Row",
    "StoredThread",
    "ThreadInfo",
    "bounds",
    "check_flag",
    "check_message_id",
    "check_number",
    "check_positions",
    "check_thread_id",
    "decode_joined",
    "decode_messages",
    "decode_metadata",
    "decode_thread",
    "diagnose",
    "encode_rows",
    "encode_thread",
    "keep_rows",
    "kind_change",
    "message_exists",
    "missing_position",
    "new_message_id",
    "not_local",
    "utc_now",
]

MAX_ID_LENGTH = 255
"""The longest thread id or message id a store accepts (every backend indexes them)."""

MAX_METADATA_DEPTH = 64
"""How deeply a message's metadata may nest, objects and arrays in one another (the metadata object itself
is the first level). Deeper is refused by name before anything is written: JSON parsers and databases
limit nesting too (PostgreSQL's jsonb, Python's recursion), and the store would otherwise keep what it
cannot read back."""


@dataclass(frozen=True)
class ThreadInfo:
    """A thread's envelope in its store."""

    id: str
    """The thread's id."""
    kind: Literal["local", "remote"]
    """Which kind of thread value is saved under the id."""
    length: int
    """How many messages the thread holds."""
    created_at: datetime
    """When the thread was created (UTC)."""
    updated_at: datetime
    """When a message was last appended or the thread last saved (UTC)."""


@dataclass(frozen=True)
class MessageRecord:
    """A stored message with its envelope: what ``records()`` reads (``messages()`` reads the messages
    alone)."""

    position: int
    """Where the message is in its thread (0 for the first)."""
    id: str
    """The message's id in its thread: the one given to ``append(..., ids=...)``, or one the store
    minted (32 hex digits). Unique in the thread."""
    message: Message
    """The message, a fresh value equal to the one appended."""
    metadata: dict[str, JsonValue]
    """The JSON object given with it (``append(..., metadata=...)``); empty when none was."""
    created_at: datetime
    """When it was appended (UTC)."""


@dataclass(frozen=True)
class StoredThread:
    """A thread's row as a backend reads it, before it is decoded: what ``load_thread`` and ``thread_info``
    are made from."""

    state: object
    """The saved thread value's JSON text (anything else is damage, reported by ``decode_thread``)."""
    length: int
    created_at: datetime
    updated_at: datetime


class Row(NamedTuple):
    """A message as a backend writes it."""

    text: str
    """The message's lossless JSON dump (``model_dump_json()``)."""
    id: str
    """Its envelope id."""
    metadata: str | None
    """Its metadata's JSON object, or ``None`` for none."""
    role: str
    """Its role (``system``, ``developer``, ``user``, ``assistant``, ``tool``): what a window read needs to
    find the exchanges without reading the messages."""


def utc_now() -> datetime:
    """The current time, UTC-aware."""
    return datetime.now(UTC)


def new_message_id() -> str:
    """A fresh message id: 32 hex digits, in the layout of a UUIDv7 (RFC 9562), so ids minted later sort
    later and the unique index of a thread's ids takes each new one at its end (a random uuid4 lands
    anywhere in it: ``python3 scripts/dev.py bench turn`` measures appends either way). The first 48 bits
    are the Unix time in milliseconds, the next 12 the fraction of that millisecond (RFC 9562's third
    method), raised by one where needed so that this process never mints an id twice nor out of order;
    the last 62 bits are random.
    """
    global _LAST_STAMP
    now = time.time_ns()
    stamp = (now // 1_000_000) << 12 | (now % 1_000_000) * 4096 // 1_000_000
    with _STAMP_LOCK:
        if stamp <= _LAST_STAMP:
            stamp = _LAST_STAMP + 1
        _LAST_STAMP = stamp
    random = int.from_bytes(os.urandom(8)) & 0x3FFF_FFFF_FFFF_FFFF
    # 48 bits of milliseconds, the version (7), 12 bits of fraction, the variant (0b10), 62 random bits.
    return f"{(stamp >> 12) << 80 | 0x7 << 76 | (stamp & 0xFFF) << 64 | 0x2 << 62 | random:032x}"


_LAST_STAMP = 0
_STAMP_LOCK = threading.Lock()


def _check_id(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise InvalidThreadIdError(f"a {what} is a string, not a {type(value).__name__} ({value!r:.60})")
    if not value:
        raise InvalidThreadIdError(f"a {what} cannot be empty")
    if len(value) > MAX_ID_LENGTH:
        raise InvalidThreadIdError(
            f"a {what} has at most {MAX_ID_LENGTH} characters; this one has {len(value)}"
        )
    if "\x00" in value:
        raise InvalidThreadIdError(f"a {what} cannot contain a NUL character")
    try:
        value.encode()
    except UnicodeEncodeError as exc:
        raise InvalidThreadIdError(
            f"a {what} must be valid Unicode text; this one holds a lone surrogate "
            f"({value[exc.start]!r}) at index {exc.start}, which no database can store"
        ) from None
    return value


def check_thread_id(thread_id: object) -> str:
    """``thread_id`` when it is a usable id, else ``InvalidThreadIdError`` saying why."""
    return _check_id(thread_id, "thread id")


def check_message_id(message_id: object, index: int) -> str:
    """``message_id`` (of message ``index`` of a batch) when it is a usable id, else
    ``InvalidArgumentError`` saying why and naming the message."""
    try:
        return _check_id(message_id, "message id")
    except InvalidThreadIdError as exc:
        raise InvalidArgumentError(
            f"append(): ids[{index}] is not a usable id: {exc}; give a string (or None for a minted one)",
            argument="ids",
            index=index,
        ) from None


def check_positions(start: object, stop: object, method: str = "messages") -> tuple[int, int | None]:
    """``start`` and ``stop`` as the ints (or ``None``) a slice takes; ``InvalidArgumentError`` (a
    ``TypeError``) naming the one that is not."""
    checked: list[int | None] = []
    for name, value in (("start", start), ("stop", stop)):
        if value is None:
            checked.append(None if name == "stop" else 0)
            continue
        try:
            checked.append(operator.index(value))  # type: ignore[arg-type]  # an int, or one (numpy)
        except TypeError:
            raise InvalidArgumentError(
                f"{method}(): {name} is a position, an int (negative counts from the end) or None, not "
                f"a {type(value).__name__} ({value!r:.60})",
                argument=name,
            ) from None
    return checked[0] or 0, checked[1]


def check_number(value: object, name: str, store: str, *, minimum: float, whole: bool = False) -> float:
    """A store's setting ``name`` (seconds, or a count when ``whole``) when it is a number of at least
    ``minimum``; ``InvalidArgumentError`` naming it otherwise."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
        return value
    if isinstance(value, float) and not whole and math.isfinite(value) and value >= minimum:
        return value
    what = "a whole number" if whole else "a number of seconds"
    raise InvalidArgumentError(
        f"{store}(): {name} is {what}, at least {minimum:g}; got {value!r:.60}", argument=name
    )


def bounds(start: int, stop: int | None, length: int) -> tuple[int, int]:
    """The positions ``[lo, hi)`` that ``[start:stop]`` selects in a thread of ``length`` messages."""
    lo, hi, _ = slice(start, stop).indices(length)
    return lo, max(lo, hi)


def encode_rows(
    messages: Message | Iterable[Message],
    ids: Sequence[str | None] | None = None,
    metadata: Sequence[Mapping[str, Any] | None] | Mapping[str, Any] | None = None,
) -> list[Row]:
    """The stored form of each message with its envelope: its lossless JSON dump, its id (``ids[i]``, or a
    new one when that is ``None`` or ``ids`` is), its metadata (``metadata[i]``, or one mapping for all) as
    JSON, its role.

    ``MessageTypeError`` for a non-message, ``UnstorableMessageError`` for one whose text is not valid
    Unicode, ``InvalidArgumentError`` for a bad id, for ids or metadata that do not pair with the messages
    (not a list, the wrong count), an id given twice, or metadata that is not a JSON object."""
    listed = as_message_list(messages)
    count = len(listed)
    given: Sequence[object] = [None] * count if ids is None else _per_message(ids, "ids", count)
    if metadata is None or isinstance(metadata, Mapping):
        shared = _encode_metadata(metadata, None)
        metas: list[str | None] = [shared] * count
    else:
        items = _per_message(metadata, "metadata", count)
        metas = [_encode_metadata(item, index) for index, item in enumerate(items)]
    checked = [new_message_id() if i is None else check_message_id(i, n) for n, i in enumerate(given)]
    if len(set(checked)) != count:
        seen: dict[str, int] = {}
        for index, message_id in enumerate(checked):
            if message_id in seen:
                raise InvalidArgumentError(
                    f"append(): ids[{index}] is {message_id!r}, as ids[{seen[message_id]}] is: an id names "
                    "one message of a thread; give each message of the batch its own id",
                    argument="ids",
                    index=index,
                )
            seen[message_id] = index
    try:
        texts = [message.model_dump_json() for message in listed]
    except PydanticSerializationError as exc:
        raise _unstorable(listed, exc) from exc
    return [
        Row(text, message_id, meta, message.role)
        for text, message_id, meta, message in zip(texts, checked, metas, listed, strict=True)
    ]


def _per_message(value: object, name: str, count: int) -> Sequence[object]:
    """``value`` (the ``ids`` or the per-message ``metadata`` of an append of ``count`` messages) as a
    sequence of ``count`` items; ``InvalidArgumentError`` when it is not a list of that many."""
    each = "one id (or None)" if name == "ids" else "one JSON object (or None)"
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        whole = ", or one JSON object (a dict) for all" if name == "metadata" else ""
        raise InvalidArgumentError(
            f"append(): {name} is a list with {each} per message{whole}, not a {type(value).__name__} "
            f"({value!r:.60})",
            argument=name,
        )
    items = value if isinstance(value, Sequence) else list(value)
    if len(items) != count:
        raise InvalidArgumentError(
            f"append(): {name} pairs {each} with each message: {count} message(s), {len(items)} given; "
            "give one per message, in order",
            argument=name,
        )
    return items


def _encode_metadata(value: object, index: int | None) -> str | None:
    """A message's metadata as JSON text, or ``None``; ``InvalidArgumentError`` naming the message and the
    key for what JSON cannot hold."""
    if value is None:
        return None
    where = "metadata" if index is None else f"metadata[{index}]"
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(
            f"append(): {where} is a {type(value).__name__}, not a JSON object (a dict) or None",
            argument="metadata",
            index=index,
        )
    try:
        _json_only(value, where, 1)
    except ValueError as exc:
        raise InvalidArgumentError(f"append(): {exc}", argument="metadata", index=index) from None
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"append(): {where} does not encode as JSON: {exc}", argument="metadata", index=index
        ) from None


def _json_only(value: object, path: str, depth: int) -> None:
    """Refuse what JSON cannot carry, naming where (``ValueError``): keys that are not strings,
    infinities, NaN, other objects, lone surrogates, nesting deeper than ``MAX_METADATA_DEPTH``
    (``depth``: the level of ``value``)."""
    if value is None or isinstance(value, (bool, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{path} holds {value!r}, which JSON cannot represent; store it as a string")
        return
    if isinstance(value, str):
        if not _encodes(value):
            raise ValueError(f"{path} holds text that is not valid Unicode (a lone surrogate)")
        return
    if isinstance(value, (Mapping, list, tuple)) and depth > MAX_METADATA_DEPTH:
        shown = path if len(path) < 100 else f"{path[:60]}...{path[-30:]}"
        raise ValueError(
            f"{shown} nests deeper than {MAX_METADATA_DEPTH} levels, the most metadata may nest "
            "(MAX_METADATA_DEPTH); store what lies deeper as a JSON string"
        )
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"{path} has the key {key!r}, a {type(key).__name__}: JSON keys are strings")
            _json_only(key, f"{path} (a key)", depth)
            _json_only(item, f"{path}[{key!r}]", depth + 1)
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _json_only(item, f"{path}[{index}]", depth + 1)
        return
    raise ValueError(f"{path} holds a {type(value).__name__}, which is not JSON")


def decode_metadata(thread_id: str, position: int, text: object) -> dict[str, JsonValue]:
    """Stored metadata (JSON text or ``None``) as a dict; ``CorruptDataError`` naming the thread and
    position when it does not read as a JSON object."""
    if text is None:
        return {}
    try:
        if not isinstance(text, (str, bytes)):
            raise TypeError(f"a {type(text).__name__}, not JSON text")
        value = json.loads(text)
        if not isinstance(value, dict):
            raise TypeError(f"a JSON {type(value).__name__}, not an object")
    except (ValueError, TypeError) as exc:
        raise CorruptDataError(
            f"thread {thread_id!r}, position {position}: the stored metadata does not read ({exc}); the row "
            "is damaged: restore it or delete the thread",
            thread_id=thread_id,
            position=position,
        ) from None
    return value


def _unstorable(messages: list[Message], exc: PydanticSerializationError) -> UnstorableMessageError:
    """The error naming the first message of ``messages`` whose dump cannot be encoded, and where."""
    for index, message in enumerate(messages):
        try:
            message.model_dump_json()
        except PydanticSerializationError:
            bad = (path for path, text in json_strings(message.model_dump()) if not _encodes(text))
            field = next(bad, "?")
            return UnstorableMessageError(
                f"message {index} cannot be stored: its {field} is not valid Unicode text (a lone "
                "surrogate, which UTF-8, JSON and databases refuse); decode the text that produced it "
                "with errors='replace', or drop the surrogate",
                index=index,
                field=field,
            )
    return UnstorableMessageError(f"a message cannot be stored: {exc}", index=-1, field="?")


def _encodes(text: str) -> bool:
    """Whether ``text`` is valid Unicode (no lone surrogate), as UTF-8 needs."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def not_local(thread_id: str, action: Literal["append", "read", "pop"]) -> ThreadKindError:
    """The error for messages appended to, read from or popped from the remote thread ``thread_id``."""
    if action == "append":
        what = (
            "appended to it here; add them to the RemoteThread (thread.add(...)), send them with "
            "thread.request(), and save_thread() it"
        )
    elif action == "pop":
        what = "popped from it here; its history is the service's"
    else:
        what = (
            "read from it here; its history is the service's, and a LocalThread keeps messages in the store"
        )
    return ThreadKindError(
        f"thread {thread_id!r} is a remote thread, whose messages the service keeps (this store keeps only "
        f"its state: save_thread / load_thread), so no message can be {what}",
        thread_id=thread_id,
        kind="remote",
    )


def kind_change(thread_id: str, stored: str, new: str) -> ThreadKindError:
    """The error for a ``save_thread`` of a ``new``-kind thread over a ``stored``-kind one."""
    lost = (
        "its response_id, open calls and pending messages"
        if stored == "remote"
        else "its stored messages, which a remote thread cannot read"
    )
    return ThreadKindError(
        f"thread {thread_id!r} is saved as a {stored} thread; save_thread() will not replace it with a "
        f"{new} thread, which would lose {lost}: delete_thread() it first, or save the {new} thread "
        "under a new id",
        thread_id=thread_id,
        kind=stored,
    )


def message_exists(thread_id: str, message_id: str, position: int | None) -> MessageExistsError:
    """The error for an append of a message whose id the thread already holds."""
    where = f" at position {position}" if position is not None else ""
    return MessageExistsError(
        f"thread {thread_id!r} already holds a message with id {message_id!r}{where}; nothing was appended: "
        "an id names one message of a thread. To store a replayed turn once, append it with "
        "skip_existing=True, which adds only the ids the thread does not hold",
        thread_id=thread_id,
        message_id=message_id,
    )


def encode_thread(thread: LocalThread | RemoteThread) -> str:
    """The stored form of a thread value (its JSON, with the ``kind`` discriminator)."""
    if not isinstance(thread, (LocalThread, RemoteThread)):
        raise InvalidArgumentError(
            f"save_thread() takes a LocalThread or a RemoteThread, not a {type(thread).__name__}",
            argument="thread",
        )
    check_thread_id(thread.id)
    return thread.model_dump_json()


def decode_thread(thread_id: str, text: object) -> LocalThread | RemoteThread:
    """A stored thread value, or ``CorruptDataError`` naming the thread."""
    try:
        if not isinstance(text, (str, bytes)):
            raise TypeError(f"the stored value is a {type(text).__name__}, not JSON text")
        thread = parse_thread(text)
    except (ValidationError, TypeError) as exc:
        raise CorruptDataError(
            f"thread {thread_id!r}: its saved thread record does not read ({_summary(exc)}); the row is "
            "damaged: save_thread() a new value over it, or delete_thread() it",
            thread_id=thread_id,
            position=None,
        ) from exc
    if thread.id != thread_id:
        raise CorruptDataError(
            f"thread {thread_id!r}: its saved thread record carries the id {thread.id!r}; the row is damaged",
            thread_id=thread_id,
            position=None,
        )
    return thread


def _joined(rows: Sequence[object]) -> str | bytes | None:
    """The stored rows (text, or UTF-8 bytes) as one JSON array, or ``None`` when they are not all of one
    of those types (damage: the row-by-row read names it)."""
    if not rows:
        return None
    try:
        if isinstance(rows[0], bytes):
            return b"[" + b",".join(rows) + b"]"  # type: ignore[arg-type]
        return "[" + ",".join(rows) + "]"  # type: ignore[arg-type]
    except TypeError:
        return None


def decode_messages(thread_id: str, first: int, rows: Sequence[object]) -> list[Message]:
    """The messages stored in ``rows`` (positions ``first``, ``first + 1``, ...).

    One parse of the whole range when every row is sound (the fast path); otherwise the rows are read one
    by one and the first damaged one raises ``CorruptDataError`` naming the thread and its position.
    """
    if not rows:
        return []
    joined = _joined(rows)  # rows of one type, str or UTF-8 bytes; anything else does not join
    if joined is not None:
        with collector_paused():
            decoded = decode_joined(joined, len(rows))
        if decoded is not None:
            return decoded
    return diagnose(thread_id, first, lambda: rows)


def keep_rows(
    thread_id: str, rows: Mapping[int, Any], ranges: Sequence[tuple[int, int]]
) -> list[list[Message]]:
    """The messages of each of ``ranges`` (``[lo, hi)``), decoded from the stored texts of a window read's
    rows (``messages._window.WindowRow``, by position): those this process decoded before from the same
    text are taken from ``DECODED`` (a bot's next turn decodes only what is new), the others in one parse,
    and, when that fails, one per range, whose ``CorruptDataError`` names the first damaged position."""
    texts = [rows[p][TEXT] for lo, hi in ranges for p in range(lo, hi)]
    found = DECODED.get_many(texts)
    missing = [i for i, message in enumerate(found) if message is None]
    if missing:
        joined = _joined([texts[i] for i in missing])
        decoded = None
        if joined is not None:
            with collector_paused():
                decoded = decode_joined(joined, len(missing))
        if decoded is None:
            return [
                decode_messages(thread_id, lo, [rows[p][TEXT] for p in range(lo, hi)]) for lo, hi in ranges
            ]
        for i, message in zip(missing, decoded, strict=True):
            found[i] = message
            DECODED.put(texts[i], message)
    kept, start = [], 0
    for lo, hi in ranges:
        kept.append(found[start : start + hi - lo])
        start += hi - lo
    return kept  # type: ignore[return-value]  # every None was filled above


DECODED_MESSAGES = 8_192
"""How many messages ``DECODED`` keeps."""
DECODED: ByShortText[Message] = ByShortText(DECODED_MESSAGES)
"""The messages window reads decoded in this process, by stored text: a message is a frozen value, so one
decoded object serves every read of the same text (the lists and dicts inside it must not be changed in
place, as for any frozen value). A text longer than 4,096 characters (an image, say) is parsed again each
time: its parse is cheap beside its size, and the cache stays small."""


def decode_joined(joined: str | bytes, expected: int) -> list[Message] | None:
    """The messages of ``joined`` (a JSON array of stored rows), or ``None`` when it does not read as
    exactly ``expected`` messages: then ``diagnose`` finds the damaged row.

    A row that is not one JSON object (truncated, or two run together) makes the parse fail or the count
    differ; so does every damage short of two rows that complement each other exactly. Rows are read as
    ``load_messages`` reads a conversation (the same adapter): stored rows get no laxer validation.

    The caller pauses the garbage collector around a read of many spans (``collector_paused``).
    """
    try:
        decoded = MESSAGE_LIST.validate_json(joined)
    except ValidationError:
        return None
    return decoded if len(decoded) == expected else None


_MESSAGE: TypeAdapter[Message] = TypeAdapter(Message, config=ConfigDict(defer_build=True))


def diagnose(thread_id: str, first: int, rows: Callable[[], Sequence[object]]) -> list[Message]:
    """Read ``rows()`` one by one; the first damaged row raises ``CorruptDataError`` with its position."""
    decoded: list[Message] = []
    for offset, row in enumerate(rows()):
        position = first + offset
        if not isinstance(row, (str, bytes)):
            raise CorruptDataError(
                f"thread {thread_id!r}, position {position}: the stored message is a "
                f"{type(row).__name__}, not JSON text; the row is damaged: restore it or delete the thread "
                f"(messages(thread_id, 0, {position}) still reads what comes before)",
                thread_id=thread_id,
                position=position,
            )
        try:
            decoded.append(_MESSAGE.validate_json(row))
        except ValidationError as exc:
            what = (
                "is not valid JSON"
                if exc.errors()[0]["type"] == "json_invalid"
                else "no longer validates as a Message"
            )
            raise CorruptDataError(
                f"thread {thread_id!r}, position {position}: the stored message {what} ({_summary(exc)}); "
                "the row is damaged: restore it or delete the thread (messages(thread_id, 0, "
                f"{position}) still reads what comes before)",
                thread_id=thread_id,
                position=position,
            ) from exc
    return decoded


def missing_position(thread_id: str, lo: int, hi: int, present: Iterable[int]) -> CorruptDataError:
    """The error for a range ``[lo, hi)`` whose stored positions are only ``present``."""
    have = set(present)
    position = next((p for p in range(lo, hi) if p not in have), hi)
    return CorruptDataError(
        f"thread {thread_id!r}, position {position}: the message is missing from the store although the "
        f"thread's length counts it; the store is damaged (messages(thread_id, 0, {position}) still reads "
        "what comes before)",
        thread_id=thread_id,
        position=position,
    )


def _summary(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        more = f"; {exc.error_count() - 1} more" if exc.error_count() > 1 else ""
        return f"{first['msg']}{f' at {where}' if where else ''}{more}"
    return str(exc)
