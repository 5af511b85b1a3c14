"""What ``messages check`` finds in a conversation file: the input read, its problems, the profile's changes.

Three layers of problems, each with the index of the message it concerns:

* shape: an item that ``load_messages`` rejects (a ``pydantic.ValidationError``, turned into one readable
  line per message and field), and text that cannot be sent at all: a lone surrogate (``"\\ud800"`` in
  JSON) cannot be encoded as UTF-8, so the request fails before it leaves (rule ``lone-surrogate``).
* protocol: ``protocol_errors``, the tool-call rules every provider shares (quirks 1, 2,
  12, 16, 17). ``repair_conversation`` fixes all of them but an empty conversation.
* provider: for each model asked for, ``get_profile(model).check`` on the plain dump, which is what litellm
  alone would send. ``Violation.fixable`` says whether the profile's ``apply`` fixes it.

When some messages cannot be read, the others are still checked, at their own indexes: the protocol
(leaving out a problem whose tool-call id an unreadable message mentions: it may answer or make that
call), and the provider rules that look at one message at a time (``one_message_rules``). The rules that
look at a message's neighbours, and what each profile changes, wait until every message reads.
Problems are listed by message index within each kind.

For each model the check also says what the profile changes (``Changes``, computed by comparing the list
before and after ``apply``, never by asking the profile) and what would still be wrong after it
(``check(apply(dump))``). Both are computed on the repaired conversation, so they describe what ``--fix``
prints. Nothing here prints or exits: ``messages.cli`` does.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import ValidationError

from messages._io import dump_messages, load_messages
from messages._wire import json_strings
from messages.errors import (
    ConversationError,
    DuplicateToolCallIdError,
    EmptyConversationError,
    OrphanToolResultError,
    UnansweredToolCallError,
)
from messages.models import REASONING_DETAILS, Message, ToolMessage
from messages.protocol import protocol_errors, repair_conversation

if TYPE_CHECKING:
    from messages.profiles import Profile, Violation

__all__ = [
    "Changes",
    "Entry",
    "InputError",
    "Problem",
    "ProfileReport",
    "Report",
    "Target",
    "check_entry",
    "compare",
    "fix_entry",
    "one_message_rules",
    "read_entries",
]

Kind = Literal["shape", "protocol", "provider"]


class InputError(Exception):
    """Input that cannot be read as a conversation; the message names the file and the position."""


# --- reading -----------------------------------------------------------------------------------------


@dataclass
class Entry:
    """One conversation of the input: a whole JSON file, or one line of a JSON Lines file."""

    label: str
    """The file as the user named it (``<stdin>`` for ``-``)."""
    line: int | None
    """The line of a JSON Lines file, or ``None`` for a JSON file."""
    messages: list[Any]
    """The messages as read (dicts, unless the input is broken)."""
    model: str | None = None
    """The request log's own ``model``, if any."""
    envelope: dict[str, Any] | None = None
    """The request log object the messages came from, or ``None`` for a plain list."""
    body_key: str | None = None
    """``"body"`` when the log wraps the request in a ``body`` (an OpenAI Batch API line), else ``None``."""

    @property
    def where(self) -> str:
        """The file, and the line for JSON Lines: how reports name this conversation."""
        return self.label if self.line is None else f"{self.label} line {self.line}"

    def with_messages(self, messages: list[dict[str, Any]], model: str | None) -> Any:
        """The input object with ``messages`` (and ``model``, when given) in place of its own."""
        if self.envelope is None:
            return messages
        outer = dict(self.envelope)
        request = dict(outer[self.body_key]) if self.body_key else outer
        request["messages"] = messages
        if model is not None and "model" in request:
            request["model"] = model
        if self.body_key:
            outer[self.body_key] = request
        return outer


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "object"


def _position(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _syntax_error(label: str, text: str, error: json.JSONDecodeError, line_offset: int = 0) -> InputError:
    end = len(text.rstrip())
    if error.pos >= end or error.msg.startswith("Unterminated string"):
        # Cut off (a log still being written, a partial copy): the end of the input is where it broke.
        line, column = _position(text, end)
        started = f"; {error.msg} line {error.lineno + line_offset} column {error.colno}"
        detail = "" if error.pos >= end else started
        return InputError(
            f"{label}:{line + line_offset}:{column}: truncated JSON: the input ends before the JSON value "
            f"is complete{detail}"
        )
    return InputError(f"{label}:{error.lineno + line_offset}:{error.colno}: not valid JSON: {error.msg}")


def _entry(label: str, value: Any, line: int | None) -> Entry:
    where = label if line is None else f"{label}:{line}"
    expected = 'expected a JSON list of messages, or a request log object with "model" and "messages"'
    if isinstance(value, list):
        return Entry(label, line, value)
    if not isinstance(value, dict):
        return _fail(f"{where}: a JSON {_json_type(value)} at the top level; {expected}")
    body_key = None
    request: dict[str, Any] = value
    if "messages" not in value and isinstance(value.get("body"), dict) and "messages" in value["body"]:
        body_key, request = "body", value["body"]  # an OpenAI Batch API line
    if "messages" not in request:
        if "role" in value:
            return _fail(f"{where}: a single message, not a list of them; wrap it in [ ]")
        keys = ", ".join(repr(k) for k in list(value)[:6]) or "none"
        return _fail(f'{where}: a JSON object without a "messages" key (its keys: {keys}); {expected}')
    messages = request["messages"]
    if not isinstance(messages, list):
        return _fail(f'{where}: "messages" is a JSON {_json_type(messages)}, not a list of messages')
    model = request.get("model")
    if model is not None and not (isinstance(model, str) and model.strip()):
        return _fail(f'{where}: "model" is {json.dumps(model)}, not a model name')
    return Entry(label, line, messages, model, value, body_key)


def _fail(message: str) -> Entry:
    raise InputError(message)


def read_entries(label: str, data: bytes) -> list[Entry]:
    """The conversations in ``data``: one for a JSON file, one per non-blank line for JSON Lines.

    Raises ``InputError`` naming ``label`` and the position (line and column) of what cannot be read.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line, column = _position(data.decode("utf-8", errors="replace"), error.start)
        byte = data[error.start]
        raise InputError(f"{label}:{line}:{column}: not UTF-8 text (byte 0x{byte:02x})") from None
    if not text.strip():
        raise InputError(f"{label}: empty input; expected a JSON list of messages or a request log")
    whole: json.JSONDecodeError | RecursionError
    try:
        return [_entry(label, json.loads(text), None)]
    except json.JSONDecodeError as error:
        if error.msg != "Extra data":
            raise _syntax_error(label, text, error) from None
        whole = error
    except RecursionError as error:
        whole = error  # too deep as a whole; perhaps only one line of JSON Lines is
    # More than one JSON value: JSON Lines, if the first line is a value of its own.
    lines = text.splitlines()
    first = next(i for i, text_line in enumerate(lines) if text_line.strip())
    try:
        json.loads(lines[first])
    except (json.JSONDecodeError, RecursionError):
        if isinstance(whole, RecursionError):
            raise _too_deep(label, text) from None
        raise _syntax_error(label, text, whole) from None
    entries: list[Entry] = []
    for number, text_line in enumerate(lines, start=1):
        if not text_line.strip():
            continue
        try:
            value = json.loads(text_line)
        except json.JSONDecodeError as error:
            raise _syntax_error(label, text_line, error, line_offset=number - 1) from None
        except RecursionError:
            raise _too_deep(label, text_line, line_offset=number - 1) from None
        entries.append(_entry(label, value, number))
    return entries


def _deepest(text: str) -> tuple[int, int]:
    """How deep ``[`` and ``{`` nest in JSON text (outside strings), and where that depth is first reached."""
    depth = deepest = at = 0
    in_string = escaped = False
    for pos, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, pos
        elif char in "]}":
            depth -= 1
    return deepest, at


def _too_deep(label: str, text: str, line_offset: int = 0) -> InputError:
    # Python's JSON reader recurses once per level and gives up near sys.getrecursionlimit() (1000).
    depth, pos = _deepest(text)
    line, column = _position(text, pos)
    return InputError(
        f"{label}:{line + line_offset}:{column}: nested too deeply: [ and {{ nest {depth} levels deep here, "
        "more than Python's JSON reader follows (a conversation is a few levels deep)"
    )


# --- problems ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One problem of a conversation, at a message."""

    kind: Kind
    """``"shape"`` (not a valid message), ``"protocol"`` (tool-call rules) or ``"provider"``."""
    index: int | None
    """The position of the message in the list, or ``None`` for the whole list."""
    rule: str
    """A short rule id: a profile rule (``"tool-call-id"``), a protocol rule (``"orphan-tool-result"``)
    or a shape rule (``"missing-field"``)."""
    row: int | None
    """The quirk the rule comes from (``messages.quirks``; ``messages quirks N`` prints it), if any."""
    message: str
    """What is wrong, readable."""
    fixable: bool
    """Whether ``--fix`` fixes it (``repair_conversation`` for the protocol, the profile for a provider)."""
    provider: str | None = None
    """The profile's name (``"mistral"``, ``"anthropic:claude-opus-4-6"``), for provider problems."""
    model: str | None = None
    """The model asked for (``--model`` or the log's own), for provider problems; ``None`` with
    ``--all-providers``."""
    field: str | None = None
    """The field of the message (``"tool_calls[0].id"``), for shape problems."""

    def as_json(self, line: int | None) -> dict[str, Any]:
        """The problem in the documented JSON shape (see ``messages.cli``)."""
        return {
            "line": line,
            "kind": self.kind,
            "provider": self.provider,
            "model": self.model,
            "index": self.index,
            "field": self.field,
            "rule": self.rule,
            "row": self.row,
            "message": self.message,
            "fixable": self.fixable,
        }


# Shape problems ---------------------------------------------------------------------------------------

_PART_TAGS = frozenset({"text", "image_url", "input_audio", "file"})


def _is_branch(step: str) -> bool:
    """Whether a location step names a union branch (``str``, ``list[...]``) rather than a field."""
    return step in ("str", "list", "dict", "none") or "[" in step


def _field_path(steps: Sequence[str | int]) -> str:
    path = ""
    part_tag_next = False
    for step in steps:
        if isinstance(step, int):
            path += f"[{step}]"
            part_tag_next = path.startswith("content")
            continue
        if part_tag_next and step in _PART_TAGS:
            part_tag_next = False  # the content part's type tag, not a field
            continue
        part_tag_next = False
        if not _is_branch(step):
            path += f".{step}" if path else step
    return path


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _shape_problems(error: ValidationError, raw: Sequence[Any]) -> list[Problem]:
    found: dict[tuple[int | None, str], Problem] = {}
    items = error.errors(include_url=False)
    deep_content = {item["loc"][0] for item in items if _field_path(item["loc"][2:]).startswith("content[")}
    for item in items:
        loc = item["loc"]
        index = loc[0] if loc and isinstance(loc[0], int) else None
        role = loc[1] if len(loc) > 1 and isinstance(loc[1], str) else None
        path = _field_path(loc[2:])
        what = f"{role} message" if role else "item"
        kind = item["type"]
        value = item.get("input")
        row: int | None = None
        if kind == "union_tag_invalid":
            ctx = item.get("ctx", {})
            rule = "unknown-role"
            text = f"unknown role {ctx.get('tag')!r} (the roles are {ctx.get('expected_tags')})"
        elif kind == "union_tag_not_found":
            rule, text = "missing-role", 'an object without a "role" key'
            if isinstance(value, dict) and "messages" in value:
                text += " (it looks like a request log: give one log per line, as JSON Lines)"
        elif kind in ("model_attributes_type", "model_type", "dict_type") and not path:
            rule, text = "not-an-object", f"a JSON {_json_type(value)}, not a message object"
        elif path == "content" and index in deep_content:
            continue  # content is a list: its parts' own errors say what is wrong, not the string branch
        elif path == "content" and kind in ("string_type", "list_type"):
            rule = "invalid-field"
            text = f"{what}: content must be a string or a list of content parts, not {_short(value)}"
        elif kind == "missing":
            rule, text = "missing-field", f"{what}: required field {path!r} is missing"
        elif kind == "extra_forbidden":
            parent, _, key = path.rpartition(".")
            inside = f" in {parent}" if parent else ""
            rule = "unknown-field"
            text = f"{what}: unknown key {key!r}{inside} (no message field has that name)"
        elif path.endswith("function.arguments") and isinstance(value, (dict, list)):
            rule, row = "arguments-not-string", 6
            text = f"{what}: {path} must be a JSON string, not a JSON {_json_type(value)} (json.dumps it)"
        else:
            rule, text = "invalid-field", f"{what}: {path or 'value'}: {item['msg']} (got {_short(value)})"
        problem = Problem("shape", index, rule, row, text, False, field=path or None)
        found.setdefault((index, path or rule), problem)
    return list(found.values())


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _surrogate_problems(raw: Sequence[Any]) -> list[Problem]:
    """One problem per field holding a lone surrogate: text that cannot be encoded as UTF-8.

    ``json.loads`` joins an escaped pair (``"\\ud83d\\ude00"``) into one character, so any surrogate left
    in a string is alone: half of a character, usually from text cut in the middle of a UTF-16 pair."""
    found: list[Problem] = []
    for index, message in enumerate(raw):
        role = message.get("role") if isinstance(message, dict) else None
        what = f"{role} message" if isinstance(role, str) and role else "item"
        for path, value in json_strings(message):
            lone = _SURROGATE.search(value)
            if lone is None:
                continue
            code = ord(lone.group())
            text = (
                f"{what}: {path or 'value'} holds a lone surrogate (U+{code:04X}) at character "
                f"{lone.start()}: half of a character, which cannot be encoded as UTF-8, so the request "
                "cannot be sent; fix the text where it was made (often text cut inside an emoji)"
            )
            found.append(Problem("shape", index, "lone-surrogate", None, text, False, field=path or None))
    return found


def _in_order(problems: Sequence[Problem]) -> list[Problem]:
    """Shape, then protocol problems, each by message index (the whole list first)."""
    rank = {"shape": 0, "protocol": 1, "provider": 2}
    return sorted(problems, key=lambda p: (rank[p.kind], -1 if p.index is None else p.index))


# Protocol problems ------------------------------------------------------------------------------------


def _protocol_problem(error: ConversationError, messages: Sequence[Message]) -> Problem:
    """The rule and row of a protocol error: the general row (OpenAI's wording of it)."""
    if isinstance(error, EmptyConversationError):
        rule, row, fixable = "empty-conversation", 12, False
    elif isinstance(error, OrphanToolResultError):
        rule, row, fixable = "orphan-tool-result", 2, True
    elif isinstance(error, UnansweredToolCallError):
        rule, row, fixable = "unanswered-tool-call", 1, True
    elif isinstance(error, DuplicateToolCallIdError):
        answered_twice = error.index is not None and isinstance(messages[error.index], ToolMessage)
        rule, row = ("duplicate-tool-result", 16) if answered_twice else ("duplicate-tool-call-id", 17)
        fixable = True
    else:  # a ConversationError this module does not know yet
        rule, row, fixable = "protocol", None, True
    return Problem("protocol", error.index, rule, row, str(error), fixable)


# --- what a profile changes --------------------------------------------------------------------------

_CORE_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id"})
_CALL_KEYS = frozenset({"id", "type", "function"})


def _calls(messages: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [
        c
        for m in messages
        if isinstance(m.get("tool_calls"), list)
        for c in m["tool_calls"]
        if isinstance(c, Mapping)
    ]


def _key_counts(messages: Sequence[Mapping[str, Any]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for m in messages:
        counts.update(k for k, v in m.items() if v is not None and k not in _CORE_KEYS)
    for c in _calls(messages):
        counts.update(f"tool_calls[].{k}" for k, v in c.items() if v is not None and k not in _CALL_KEYS)
    return counts


def _has_text(message: Mapping[str, Any]) -> bool:
    content = message.get("content")
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):  # any part but a blank text
        return any(
            not (isinstance(p, Mapping) and p.get("type") == "text" and not str(p.get("text", "")).strip())
            for p in content
        )
    return bool(message.get("tool_calls"))


@dataclass(frozen=True)
class Changes:
    """What changed between two message lists, counted per kind (``compare``)."""

    ids_rewritten: int = 0
    """Tool calls given a new id (and with them their results). Ids are scoped to their turn: an id used
    in two turns counts once per turn it is rewritten in."""
    id_examples: tuple[tuple[str, str], ...] = ()
    """Up to three of them, old and new (each pair once)."""
    keys_dropped: Mapping[str, int] = field(default_factory=dict)
    """Keys that fewer messages (or calls: ``tool_calls[].key``) carry afterwards, and how many fewer."""
    keys_added: Mapping[str, int] = field(default_factory=dict)
    """Keys that more messages carry afterwards, and how many more."""
    messages_added: int = 0
    """Messages added (a user turn after a prefill, an assistant turn between tool results and a user)."""
    messages_dropped: int = 0
    """Messages left out that had no text (blank turns)."""
    messages_merged: int = 0
    """Messages left out whose text went into a neighbour (consecutive turns merged)."""
    messages_moved: int = 0
    """Messages sent unchanged at another place (a late tool result moved back to its call)."""
    roles_changed: int = 0
    """Messages sent in another role (system as user)."""
    contents_changed: int = 0
    """Messages kept in place whose content changed (an empty text sent as a space, text folded in)."""
    arguments_changed: int = 0
    """Tool calls whose arguments changed (``""`` sent as ``"{}"``)."""
    tool_calls_removed: int = 0
    """Tool calls that are gone (rendered as text for a provider without tools)."""

    def as_json(self) -> dict[str, Any]:
        """The changes as a JSON object (see ``messages.cli``)."""
        return {
            "ids_rewritten": self.ids_rewritten,
            "id_examples": [list(pair) for pair in self.id_examples],
            "keys_dropped": dict(self.keys_dropped),
            "keys_added": dict(self.keys_added),
            "messages_added": self.messages_added,
            "messages_dropped": self.messages_dropped,
            "messages_merged": self.messages_merged,
            "messages_moved": self.messages_moved,
            "roles_changed": self.roles_changed,
            "contents_changed": self.contents_changed,
            "arguments_changed": self.arguments_changed,
            "tool_calls_removed": self.tool_calls_removed,
        }

    def describe(self) -> str:
        """One readable line: ``rewrites 2 tool-call ids ('a' -> 'b', ...), drops name (1)``."""

        def n(count: int, noun: str) -> str:
            return f"{count} {noun}{'' if count == 1 else 's'}"

        def keys(counts: Mapping[str, int]) -> str:
            return ", ".join(f"{k} ({v})" for k, v in counts.items())

        said: list[str] = []
        if self.ids_rewritten:
            examples = ", ".join(f"{_clip(old)!r} -> {_clip(new)!r}" for old, new in self.id_examples)
            more = ", ..." if self.ids_rewritten > len(self.id_examples) else ""
            said.append(f"rewrites {n(self.ids_rewritten, 'tool-call id')} ({examples}{more})")
        if self.keys_dropped:
            said.append(f"drops {keys(self.keys_dropped)}")
        if self.keys_added:
            said.append(f"adds {keys(self.keys_added)}")
        counted = [
            (self.messages_added, "adds {}", "message"),
            (self.messages_dropped, "drops {}", "blank message"),
            (self.messages_merged, "merges {} into a neighbour", "message"),
            (self.messages_moved, "moves {}", "message"),
            (self.roles_changed, "changes the role of {}", "message"),
            (self.contents_changed, "changes the content of {}", "message"),
            (self.arguments_changed, "rewrites the arguments of {}", "tool call"),
            (self.tool_calls_removed, "turns {} into text", "tool call"),
        ]
        said.extend(template.format(n(count, noun)) for count, template, noun in counted if count)
        return ", ".join(said) if said else "changes nothing"


def _clip(call_id: str) -> str:
    return call_id if len(call_id) <= 32 else call_id[:28] + "..."


def compare(before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]) -> Changes:
    """What changed from ``before`` to ``after``, by comparing them (messages aligned by their roles)."""
    calls_before, calls_after = _calls(before), _calls(after)
    ids_rewritten = tool_calls_removed = arguments_changed = 0
    examples: list[tuple[str, str]] = []
    aligned = before  # ``before`` with the ids ``after`` gives its calls and their results
    if len(calls_before) == len(calls_after):
        # The n-th call before is the n-th call after: its new id is read there, call by call, since ids
        # are scoped to their turn and one id used in two turns may get two new ids (or keep one).
        for old, new in zip(calls_before, calls_after, strict=True):
            if old.get("id") != new.get("id"):
                ids_rewritten += 1
                pair = (str(old.get("id")), str(new.get("id")))
                if len(examples) < 3 and pair not in examples:
                    examples.append(pair)
            if _arguments(old) != _arguments(new):
                arguments_changed += 1
        if ids_rewritten:
            aligned = _with_new_ids(before, [new.get("id") for new in calls_after])
    else:
        tool_calls_removed = max(0, len(calls_before) - len(calls_after))
    counts_before, counts_after = _key_counts(before), _key_counts(after)
    dropped = {k: v - counts_after[k] for k, v in sorted(counts_before.items()) if v > counts_after[k]}
    added = {k: v - counts_before[k] for k, v in sorted(counts_after.items()) if v > counts_before[k]}

    moves = _Moves()
    # Messages the profile left exactly as they were anchor the alignment; between two anchors, the
    # messages are paired by role (a changed message), and the rest were added or removed.
    # Tool-call ids count as equal under the profile's renaming, so that a result moved back to its
    # call (by repair) reads as moved, not as one message dropped and another added.
    keys_before, keys_after = _keys(aligned), _keys(after)
    gaps = _gaps(keys_before, keys_after)
    gone: Counter[str] = Counter()
    came: Counter[str] = Counter()
    for i1, i2, j1, j2 in gaps:
        gone.update(keys_before[i1:i2])
        came.update(keys_after[j1:j2])
    moved = gone & came
    for i1, i2, j1, j2 in gaps:
        moves.gap(
            [m for m, k in zip(before[i1:i2], keys_before[i1:i2], strict=True) if k not in moved],
            [m for m, k in zip(after[j1:j2], keys_after[j1:j2], strict=True) if k not in moved],
        )
    moves.moved = sum(moved.values())
    return Changes(
        ids_rewritten=ids_rewritten,
        id_examples=tuple(examples),
        keys_dropped=dropped,
        keys_added=added,
        messages_added=moves.added,
        messages_dropped=moves.dropped,
        messages_merged=moves.merged,
        messages_moved=moves.moved,
        roles_changed=moves.roles_changed,
        contents_changed=moves.contents_changed,
        arguments_changed=arguments_changed,
        tool_calls_removed=tool_calls_removed,
    )


_REACH: Final = 32
"""How far past a difference ``_gaps`` looks for the next message the two lists share. A profile's
changes are local (a turn merged, dropped, added or rewritten in place), so the lists meet again within a
few messages; a longer run of changed messages is one gap, paired message by message."""

_RUN: Final = 2 * _REACH
"""How far ``_gaps`` counts a run of equal items when it compares two places where the lists could meet
again: a longer run is as good as this long (the earliest wins)."""

_SMALL_GAP: Final = 64
"""The largest gap (on either side) whose roles ``_Moves.gap`` aligns with difflib; larger ones (rare: a
long run of changed messages) are aligned in one pass, to keep the comparison linear."""


def _gaps(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """The stretches ``(i1, i2, j1, j2)`` where ``a[i1:i2]`` and ``b[j1:j2]`` differ, between runs of equal
    items, in order: what ``difflib.SequenceMatcher(None, a, b).get_opcodes()`` calls its non-equal
    opcodes, found in one pass (the matcher's search for the longest block costs up to a pass per block).

    Equal items are matched as they come. At a difference, the lists meet again where the matcher would
    anchor them: at the pair of equal items within ``_REACH`` of each that starts the longest run of equal
    items (counted up to ``_RUN``), the earliest in ``a`` on a tie, then the earliest in ``b``, as the
    matcher keeps its longest block, the earliest one. The stretch before that pair is small (within
    reach): the matcher itself aligns it, as it would. With no pair in reach, one item of each side goes
    into the gap and the search goes on from the next.
    """
    gaps: list[tuple[int, int, int, int]] = []
    n, m = len(a), len(b)
    i = j = 0
    start: tuple[int, int] | None = None
    while i < n and j < m:
        if a[i] == b[j]:
            if start is not None:
                gaps.append((start[0], i, start[1], j))
                start = None
            i += 1
            j += 1
            continue
        if start is None:
            start = (i, j)
        anchor = _anchor(a, b, i, j)
        if anchor is None:
            i += 1
            j += 1
            continue
        di, dj = anchor
        if di and dj:  # equal items may lie before the anchor too: aligned there as the matcher does
            before = difflib.SequenceMatcher(None, a[i : i + di], b[j : j + dj], autojunk=False)
            for tag, i1, _, j1, _ in before.get_opcodes():
                if tag != "equal":
                    if start is None:
                        start = (i + i1, j + j1)
                elif start is not None:
                    gaps.append((start[0], i + i1, start[1], j + j1))
                    start = None
        i += di
        j += dj
    if start is not None or i < n or j < m:
        first = start if start is not None else (i, j)
        gaps.append((first[0], n, first[1], m))
    return gaps


def _anchor(a: Sequence[str], b: Sequence[str], i: int, j: int) -> tuple[int, int] | None:
    """Where ``a[i:]`` and ``b[j:]`` meet again (``_gaps``): the offsets ``(di, dj)``, or ``None``."""
    ahead: dict[str, list[int]] = {}
    for dj in range(min(_REACH, len(b) - j)):
        ahead.setdefault(b[j + dj], []).append(dj)
    best: tuple[int, int] | None = None
    longest = 0
    for di in range(min(_REACH, len(a) - i)):
        for dj in ahead.get(a[i + di], ()):
            run = 1
            while run < _RUN and i + di + run < len(a) and j + dj + run < len(b):
                if a[i + di + run] != b[j + dj + run]:
                    break
                run += 1
            if run > longest:
                best, longest = (di, dj), run
        if longest == _RUN:
            break  # no later pair can start a longer run
    return best


def _keys(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    return [json.dumps(m, sort_keys=True, default=str) for m in messages]


def _with_new_ids(messages: Sequence[Mapping[str, Any]], new_ids: Sequence[Any]) -> list[Mapping[str, Any]]:
    """``messages`` with the calls (as ``_calls`` lists them) given ``new_ids`` in order, and each result
    given the new id of the call it answers (the messages that change are copies).

    A result answers the call ``repair_conversation`` pairs it with: the first unanswered call with its id
    in the turn it follows, else the first in an earlier turn (a late result, which repair moves back). A
    result that answers no unanswered call (answered twice) goes with the nearest call before it with its
    id, as a profile renames it; one with no such call keeps its id.
    """
    out: list[Mapping[str, Any]] = []
    pending = iter(new_ids)
    open_calls: dict[str, list[tuple[int, Any]]] = {}  # an id -> the (turn, new id) of its open calls
    latest: dict[str, Any] = {}  # an id -> the new id of its nearest call so far
    turn: int | None = None  # the assistant turn the messages being read directly follow
    for index, message in enumerate(messages):
        changed = dict(message)
        call_id = message.get("tool_call_id")
        if message.get("role") == "tool":
            if isinstance(call_id, str):
                candidates = open_calls.get(call_id, [])
                own = next((c for c in candidates if c[0] == turn), None)
                target = own or (candidates[0] if candidates else None)
                if target is not None:
                    candidates.remove(target)
                changed["tool_call_id"] = latest.get(call_id, call_id) if target is None else target[1]
        else:
            turn = None
        calls = message.get("tool_calls")
        if isinstance(calls, list) and any(isinstance(c, Mapping) for c in calls):
            turn = index
            renamed: list[Any] = []
            for c in calls:
                if isinstance(c, Mapping):
                    new = next(pending)
                    if isinstance(c.get("id"), str):
                        open_calls.setdefault(c["id"], []).append((index, new))
                        latest[c["id"]] = new
                    c = {**c, "id": new}
                renamed.append(c)
            changed["tool_calls"] = renamed
        out.append(message if changed == message else changed)
    return out


@dataclass
class _Moves:
    """Counts of what happened to the messages between two anchors (``compare``)."""

    added: int = 0
    dropped: int = 0
    merged: int = 0
    moved: int = 0
    roles_changed: int = 0
    contents_changed: int = 0

    def gap(self, before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]) -> None:
        roles_before = [str(m.get("role")) for m in before]
        roles_after = [str(m.get("role")) for m in after]
        opcodes: Sequence[tuple[str, int, int, int, int]]
        if len(before) <= _SMALL_GAP and len(after) <= _SMALL_GAP:
            opcodes = difflib.SequenceMatcher(None, roles_before, roles_after, autojunk=False).get_opcodes()
        else:
            opcodes = _opcodes(roles_before, roles_after)
        for op, i1, i2, j1, j2 in opcodes:
            width = min(i2 - i1, j2 - j1)  # "equal" and "replace": pairs of one message changed in place
            if op == "replace":
                self.roles_changed += width
            self.contents_changed += sum(
                1 for k in range(width) if before[i1 + k].get("content") != after[j1 + k].get("content")
            )
            self.added += (j2 - j1) - width
            for removed in before[i1 + width : i2]:
                if _has_text(removed):
                    self.merged += 1  # a profile keeps every non-blank text: it went into a neighbour
                else:
                    self.dropped += 1


def _opcodes(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """``difflib``-style opcodes from ``_gaps``: each gap is a ``replace`` (or an ``insert`` or a
    ``delete`` when one side is empty), the stretches between them ``equal``."""
    opcodes: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for i1, i2, j1, j2 in [*_gaps(a, b), (len(a), len(a), len(b), len(b))]:
        if i1 > i:
            opcodes.append(("equal", i, i1, j, j1))
        if i2 > i1 or j2 > j1:
            op = "replace" if i2 > i1 and j2 > j1 else "delete" if i2 > i1 else "insert"
            opcodes.append((op, i1, i2, j1, j2))
        i, j = i2, j2
    return opcodes


def _arguments(call: Mapping[str, Any]) -> Any:
    function = call.get("function")
    return function.get("arguments") if isinstance(function, Mapping) else None


# --- checking ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """A profile to check against, and the model it was asked for by (``None`` for ``--all-providers``)."""

    profile: Profile
    model: str | None = None

    @property
    def label(self) -> str:
        """How reports name it: the model, or the profile's name."""
        return self.model if self.model is not None else self.profile.name


@dataclass(frozen=True)
class ProfileReport:
    """What one profile says about a conversation."""

    target: Target
    problems: list[Problem]
    """``check`` of the plain dump: what litellm alone would send that the provider rejects."""
    changes: Changes | None
    """What ``apply`` changes (on the repaired conversation); ``None`` when it cannot be repaired."""
    remaining: list[Violation] | None
    """``check(apply(...))``: what stays wrong after the profile, at indexes of its output."""
    unapplied: str = "the conversation is empty"
    """Why ``changes`` and ``remaining`` are ``None``, when they are."""


@dataclass
class Report:
    """Everything ``messages check`` found in one conversation."""

    entry: Entry
    problems: list[Problem]
    """Shape and protocol problems."""
    profiles: list[ProfileReport]
    skipped: str | None = None
    """What was not checked, and why (messages that cannot be read), if anything was not."""

    def all_problems(self) -> list[Problem]:
        """Shape, protocol, then each profile's problems, in that order."""
        return self.problems + [p for r in self.profiles for p in r.problems]


# The keys a profile writes that the message classes have no field for: Mistral's prefill mark, and the
# reasoning details the OpenRouter profile moves out of ``provider_specific_fields`` (quirk 56). They are
# read apart and put back on the dump, so that a payload this command fixed for Mistral or OpenRouter checks
# clean when read back.
_WIRE_ONLY = ("assistant", ("prefix", REASONING_DETAILS))


def _split_wire_only(raw: list[Any]) -> tuple[list[Any], dict[int, dict[str, Any]]]:
    role, keys = _WIRE_ONLY
    marks: dict[int, dict[str, Any]] = {}
    plain: list[Any] = []
    for index, m in enumerate(raw):
        if isinstance(m, dict) and m.get("role") == role and any(key in m for key in keys):
            marks[index] = {key: m[key] for key in keys if key in m}
            m = {k: v for k, v in m.items() if k not in keys}
        plain.append(m)
    return plain, marks


def _with_marks(dumped: list[dict[str, Any]], marks: Mapping[int, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**m, **marks[i]} if i in marks else m for i, m in enumerate(dumped)]


def _repaired_marks(
    messages: Sequence[Message], repaired: Sequence[Message], marks: Mapping[int, dict[str, Any]]
) -> dict[int, dict[str, Any]]:
    """``marks`` at the positions the same assistant messages have in ``repaired``.

    ``repair_conversation`` keeps every message that is not a tool result, in order, so the n-th of them
    before is the n-th after.
    """
    if not marks:
        return {}
    before = [i for i, m in enumerate(messages) if not isinstance(m, ToolMessage)]
    after = [i for i, m in enumerate(repaired) if not isinstance(m, ToolMessage)]
    position = dict(zip(before, after, strict=True))
    return {position[i]: mark for i, mark in marks.items()}


@dataclass
class _Loaded:
    messages: list[Message]
    marks: dict[int, dict[str, Any]]
    plain: list[dict[str, Any]]
    repaired: list[dict[str, Any]] | None
    """The dump of the repaired conversation, or ``None`` when nothing would remain to send (an empty
    conversation, or only tool results that answer no call)."""


def _load(entry: Entry) -> _Loaded | list[Problem]:
    raw, marks = _split_wire_only(entry.messages)
    try:
        messages = load_messages(raw)
    except ValidationError as error:
        return _shape_problems(error, raw)
    plain = _with_marks(dump_messages(messages, validate=False), marks)
    repaired: list[dict[str, Any]] | None = None
    try:
        fixed = repair_conversation(messages)
    except EmptyConversationError:
        pass  # nothing to send, even repaired: check_entry reports the empty conversation
    else:
        repaired = _with_marks(dump_messages(fixed, validate=False), _repaired_marks(messages, fixed, marks))
    return _Loaded(messages, marks, plain, repaired)


def check_entry(entry: Entry, targets: Sequence[Target]) -> Report:
    """Check one conversation: its shape, the protocol, then each target's profile."""
    unsendable = _surrogate_problems(entry.messages)
    loaded = _load(entry)
    if isinstance(loaded, list):
        return _check_readable(entry, loaded, unsendable, targets)
    protocol = [_protocol_problem(e, loaded.messages) for e in protocol_errors(loaded.messages)]
    if loaded.repaired is None and loaded.messages:
        # Only tool results that answer no call: repair would drop them all, so --fix cannot help.
        protocol = [replace(p, fixable=False) for p in protocol]
        protocol.append(
            Problem(
                "protocol",
                None,
                "empty-conversation",
                12,
                f"all {len(loaded.messages)} message(s) are tool results that answer no call: repair would "
                "drop them and leave nothing to send; start the conversation with the user message (or the "
                "assistant turn with the calls)",
                False,
            )
        )
    # A profile reports repeated ids and an empty list too; the protocol already said so, once.
    said = {(p.index, p.rule) for p in protocol}
    profiles: list[ProfileReport] = []
    for target in targets:
        profile = target.profile
        problems = [
            _provider_problem(v, target) for v in profile.check(loaded.plain) if (v.index, v.rule) not in said
        ]
        changes = remaining = None
        if loaded.repaired is not None:
            # What the profile makes of it, even where dump_messages(model=...) would refuse to send it:
            # what remains is reported, with why.
            applied = profile.apply(loaded.repaired, on_unfixable="send")
            changes, remaining = compare(loaded.repaired, applied), profile.check(applied)
        profiles.append(ProfileReport(target, problems, changes, remaining))
    return Report(entry, _in_order(unsendable + protocol), profiles)


def one_message_rules(profile: Profile) -> frozenset[str]:
    """The rule ids under which ``profile`` reports what a message holds by itself, whatever its neighbours:
    what is checked on the messages that read when some do not.

    Read from the rules: one with a message-level detection that reports something (it ``screens`` shapes
    and ``describe``s its findings), unless it also looks at the whole list and reports that under its own
    id (a rule whose list-level findings go under other ids says so in ``Rule.reports``: the repeated ids
    of ``tool-call-id``). The order of turns, alternation, the first and last turn and repeated ids are
    left out: a message that cannot be read could change them.
    """
    from messages.profiles import Rule

    found = set()
    for rule in profile._plan.rules:  # the profile's own rules and those every profile has (the part screen)
        kind = type(rule)
        judges_a_message = kind.screens is not Rule.screens and kind.describe is not Rule.describe
        judges_the_list = kind.detect_list is not Rule.detect_list and not kind.reports
        if judges_a_message and not judges_the_list:
            found.add(rule.id)
    return frozenset(found)


_MESSAGE_NUMBER = re.compile(r"\bmessage (\d+)\b")


def _check_readable(
    entry: Entry, shape: list[Problem], unsendable: list[Problem], targets: Sequence[Target]
) -> Report:
    """The report when some messages cannot be read: the others checked at their own indexes."""
    raw, marks = _split_wire_only(entry.messages)
    unreadable = sorted({p.index for p in shape if p.index is not None})
    skipped_indexes = set(unreadable)
    kept = [i for i in range(len(raw)) if i not in skipped_indexes]
    loaded: list[Message] | None = None
    if kept and len(unreadable) == len({p.index for p in shape}):
        try:
            loaded = load_messages([raw[i] for i in kept])
        except ValidationError:
            loaded = None  # a problem of the list as a whole: nothing is checked apart
    which = _which(unreadable)
    if loaded is None:
        skipped = "the provider rules were not checked: fix the messages above first" if targets else None
        return Report(entry, _in_order(shape + unsendable), [], skipped)

    def at_own_index(problem: Problem) -> Problem:
        index = None if problem.index is None else kept[problem.index]
        message = _MESSAGE_NUMBER.sub(lambda m: f"message {kept[int(m.group(1))]}", problem.message)
        return replace(problem, index=index, message=message)

    # A call answered, or a result whose call is made, by a message that cannot be read is not a problem
    # this check can see: leave out every protocol problem about an id such a message mentions.
    mentioned = _strings([raw[i] for i in unreadable])
    protocol = [
        _protocol_problem(e, loaded)
        for e in protocol_errors(loaded)
        if not (set(e.tool_call_ids) & mentioned)
    ]
    said = {(p.index, p.rule) for p in protocol}
    position = {index: n for n, index in enumerate(kept)}  # an index of raw -> its index in loaded
    kept_marks = {position[i]: mark for i, mark in marks.items() if i in position}
    plain = _with_marks(dump_messages(loaded, validate=False), kept_marks)
    profiles: list[ProfileReport] = []
    for target in targets:
        alone = one_message_rules(target.profile)
        problems = [
            _provider_problem(v, target)
            for v in target.profile.check(plain)
            if v.rule in alone and (v.index, v.rule) not in said
        ]
        unapplied = f"{which} cannot be read"
        profiles.append(ProfileReport(target, [at_own_index(p) for p in problems], None, None, unapplied))
    checked = "the tool-call protocol"
    if targets:
        checked += " and the provider rules that judge one message at a time"
    skipped = (
        f"{which} cannot be read: {checked} were checked on the other messages; a provider's rules about "
        f"order and neighbours, and what its profile changes, wait until {which} reads"
        if targets
        else f"{which} cannot be read: {checked} was checked on the other messages"
    )
    problems = shape + unsendable + [at_own_index(p) for p in protocol]
    return Report(entry, _in_order(problems), profiles, skipped)


def _which(indexes: Sequence[int]) -> str:
    if len(indexes) == 1:
        return f"message {indexes[0]}"
    shown = ", ".join(str(i) for i in indexes[:5])
    return f"messages {shown}{', ...' if len(indexes) > 5 else ''}"


def _strings(values: Sequence[Any]) -> set[str]:
    """Every string (value or key) inside ``values``."""
    return {text for _, text in json_strings(list(values))}


def _provider_problem(violation: Violation, target: Target) -> Problem:
    return Problem(
        "provider",
        violation.index,
        violation.rule,
        violation.row,
        violation.message,
        violation.fixable,
        provider=target.profile.name,
        model=target.model,
    )


@dataclass(frozen=True)
class Fixed:
    """What ``--fix`` makes of one conversation."""

    payload: Any
    """The input object with the repaired, profile-adjusted messages."""
    changes: Changes
    """Everything that changed, from the input's messages to the output's."""
    remaining: list[Violation]
    """What the target's profile still finds in the output (empty without a target)."""


def fix_entry(entry: Entry, target: Target | None) -> Fixed | None:
    """The repaired (and, with a target, profile-adjusted) conversation; ``None`` when it cannot be read
    as messages, holds text that cannot be sent (a lone surrogate), or is empty (``check_entry`` says
    why)."""
    if _surrogate_problems(entry.messages):
        return None  # no repair can guess the character that was cut in half
    loaded = _load(entry)
    if isinstance(loaded, list) or loaded.repaired is None:
        return None
    messages = (
        loaded.repaired if target is None else target.profile.apply(loaded.repaired, on_unfixable="send")
    )
    remaining = [] if target is None else target.profile.check(messages)
    model = None if target is None else target.model
    changes = compare([m for m in entry.messages if isinstance(m, Mapping)], messages)
    return Fixed(entry.with_messages(messages, model), changes, remaining)
