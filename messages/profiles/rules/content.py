"""Rules about what a message says: empty texts, content given as parts, the role system messages take."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from messages.profiles._parts import ALL_KINDS, ANY_PARTS, PART_KEYS, PartTable, odd_keys, part_kind
from messages.profiles._rule import (
    DROP,
    EMPTY,
    LONG_TEXT,
    NONE,
    PARTS,
    SPACE,
    SYSTEM_ROLES,
    Context,
    Message,
    Note,
    Rule,
    Shape,
    an,
    blank,
    blank_text,
    is_system,
    is_text_part,
    parts_of,
)

__all__ = [
    "BlankToolResults",
    "CallTurnContent",
    "DropBlank",
    "InlineImages",
    "NullTurn",
    "ReasoningContent",
    "SpaceEmptyText",
    "SystemRole",
    "SystemText",
    "TextLength",
    "TextOnly",
    "ToolText",
    "UnsupportedParts",
]

CONTINUE_TEXT = "Continue."
"""The user turn added where a provider needs one and the conversation has none."""

EMPTY_RESULT_TEXT = "(no output)"
"""What an empty tool result says where a provider rejects or drops an empty one."""

_TURNS = frozenset({"user", "assistant"})
_PART_ROLES = frozenset({"user", "assistant", "system", "developer"})


def _blank_kinds(whitespace: bool) -> frozenset[int]:
    """The kinds of content that may be blank: an empty string, whitespace (when it counts), none, parts."""
    return frozenset({EMPTY, NONE, PARTS} | ({SPACE} if whitespace else set()))


def _blank_parts(content: Any, whitespace: bool) -> bool:
    """Whether ``content`` is a list holding a text part that says nothing."""
    return any(is_text_part(p) and blank_text(p.get("text"), whitespace) for p in parts_of(content))


def _without_blank_parts(content: list[Any], whitespace: bool) -> list[Any]:
    return [p for p in content if not (is_text_part(p) and blank_text(p.get("text"), whitespace))]


def _joined(content: list[Any]) -> str | None:
    """A content of text parts only, as one string (newlines between them); ``None`` if it holds more."""
    if not all(is_text_part(p) for p in content):
        return None
    return "\n".join(str(p.get("text") or "") for p in content)


# --- system messages ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SystemRole(Rule):
    """System and developer messages sent as ``to``: ``"system"`` where ``developer`` is rejected (quirk
    9), ``"user"`` for models without a system role (o1-mini, Gemma, Groq's vision models: quirks 8, 27,
    39)."""

    id = "system-role"
    stage = 20

    to: Literal["system", "user"] = "system"
    """The role the system and developer messages are sent as."""

    def screens(self, shape: Shape) -> bool:
        return shape.role in SYSTEM_ROLES and (self.to == "user" or shape.role == "developer")

    def detect(self, m: Message, run: Any) -> bool:
        return is_system(m) and m.get("role") != self.to

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return {**m, "role": self.to}

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        if self.to == "user":
            yield Note(f"this model has no {m.get('role')} role (send the instructions as a user message)")
        else:
            yield Note(f"{cx.provider} rejects the developer role (send it as system)")


@dataclass(frozen=True, kw_only=True)
class SystemText(Rule):
    """System content as one string, not parts (Groq, quirk 38). Text parts are joined with newlines;
    images or other parts in a system message cannot be sent at all (the part screen reports them)."""

    id = "system-content"
    stage = 50

    def screens(self, shape: Shape) -> bool:
        return shape.role in SYSTEM_ROLES and shape.kind == PARTS

    def detect(self, m: Message, run: Any) -> bool:
        return is_system(m) and isinstance(m.get("content"), list)

    def fix(self, m: Message, finding: Any, run: Any) -> Message | None:
        joined = _joined(m["content"])
        return None if joined is None else {**m, "content": joined}

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        if all(is_text_part(p) for p in m["content"]):
            yield Note(f"{cx.provider} takes system content as a string, not parts")
        # Other parts: the part screen reports them (a system message takes text only, quirk 85).


# --- content as text ---------------------------------------------------------------------------------

_UNSEEN_NOTE = re.compile(r"\[\d+ attachments? not shown: this model takes no [\w, ]+ parts\]")


def _count(media: Sequence[Any]) -> str:
    return "1 attachment" if len(media) == 1 else f"{len(media)} attachments"


@dataclass(frozen=True, kw_only=True)
class TextOnly(Rule):
    """Every content as one string (DeepSeek, quirk 36): text parts are joined with newlines, and a content
    holding parts the model does not take (``accepts``) gets a text note saying how many it is not shown.

    litellm's DeepSeek route joins text parts with nothing between them, drops images, audio and files
    silently, and leaves a content with no text a list, which DeepSeek rejects ("invalid type: sequence,
    expected a string"). The parts stay (the unsupported-part rule reports them); where tool results have
    their media moved out (the tool-media rule), the note is left to that move.
    """

    id = "text-content"
    stage = 51

    accepts: frozenset[str] = frozenset({"text"})
    """The part types the model takes (the profile's table's, for a user turn, where it has one)."""
    notes_tool_results: bool = field(default=True, repr=False)
    """Whether tool results get the note (not where their media are moved out; set when compiled)."""

    def bind(self, cx: Context) -> Rule:
        # The kinds the profile's table takes in a user turn, where it has a table.
        accepts = cx.parts.user.kinds if cx.parts.screens else self.accepts
        return replace(self, notes_tool_results="tool-media" not in cx.rules, accepts=accepts)

    def screens(self, shape: Shape) -> bool:
        return shape.kind == PARTS

    def detect(self, m: Message, run: Any) -> bool:
        return isinstance(m.get("content"), list)

    def fix(self, m: Message, finding: Any, run: Any) -> Message | None:
        content: list[Any] = m["content"]
        if self.notes_tool_results or m.get("role") != "tool":
            unseen = [p for p in content if isinstance(p, dict) and p.get("type") not in self.accepts]
            # Noted already (the fix is idempotent), also where turns were merged after the note was added.
            if unseen and not any(
                is_text_part(p) and _UNSEEN_NOTE.fullmatch(str(p.get("text"))) for p in content
            ):
                kinds = ", ".join(sorted({str(p.get("type")) for p in unseen}))
                note = f"[{_count(unseen)} not shown: this model takes no {kinds} parts]"
                content = [*content, {"type": "text", "text": note}]
        joined = _joined(content)
        if joined is not None:
            return {**m, "content": joined}
        return None if content is m["content"] else {**m, "content": content}

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        parts = parts_of(m["content"])
        said = sum(
            1 for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str) and p["text"]
        )
        only_text = all(p.get("type") == "text" for p in parts)
        if only_text and said > 1:
            problem = "text parts: litellm joins their text with nothing between them"
        elif said:
            return
        elif only_text:
            problem = "no text: litellm leaves it a list"
        elif any(p.get("type") not in self.accepts for p in parts):
            problem = "no text beside parts the model does not take: litellm leaves it a list"
        else:
            return
        yield Note(f"content given as {problem}, and {cx.provider} takes a string only")


@dataclass(frozen=True, kw_only=True)
class ToolText(Rule):
    """Tool results made of text parts as one string (quirk 54): a server rendering chat templates with
    ``--chat-template-content-format`` may garble a result given as parts."""

    id = "tool-content"
    stage = 52

    row: int | None = 54

    def screens(self, shape: Shape) -> bool:
        return shape.role == "tool" and shape.kind == PARTS

    def detect(self, m: Message, run: Any) -> bool:
        return m.get("role") == "tool" and isinstance(m.get("content"), list)

    def fix(self, m: Message, finding: Any, run: Any) -> Message | None:
        joined = _joined(m["content"])
        return None if joined is None else {**m, "content": joined}

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        yield Note(f"{cx.provider} may garble a tool result given as parts (send a string)")


# --- empty texts -------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SpaceEmptyText(Rule):
    """An empty user or assistant text is sent as ``" "``, and an empty system message is left out (Gemini,
    quirk 23): Gemini rejects an empty text part, and dropping a turn instead can leave a function call
    without the user turn it must follow (quirk 24). No parts at all (``[]``) count as empty text (litellm
    drops such a turn). Whitespace is accepted and left alone; tool-call turns are left to the call-turn
    rule."""

    id = "empty-text"
    stage = 55

    row: int | None = 23

    def screens(self, shape: Shape) -> bool:
        if shape.role in SYSTEM_ROLES:
            return shape.kind in (EMPTY, NONE, PARTS)
        return shape.role in _TURNS and not shape.calls and shape.kind in (EMPTY, PARTS)

    def detect(self, m: Message, run: Any) -> str | None:
        content = m.get("content")
        if is_system(m):
            return "drop" if blank(content, whitespace=False) else None
        if m.get("role") not in _TURNS or m.get("tool_calls"):
            return None
        if content == "" or content == []:
            return "space"
        if any(is_text_part(p) and p.get("text") == "" for p in parts_of(content)):
            return "space parts"
        return None

    def fix(self, m: Message, finding: Any, run: Any) -> Any:
        if finding == "drop":
            return DROP
        if finding == "space":
            return {**m, "content": " "}
        spaced = [{**p, "text": " "} if is_text_part(p) and p.get("text") == "" else p for p in m["content"]]
        return {**m, "content": spaced}

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        if finding == "drop":
            yield Note(f"a system message with no text: {cx.provider} rejects empty text")
        else:
            yield Note(f"empty text: {cx.provider} rejects an empty text part")


@dataclass(frozen=True, kw_only=True)
class DropBlank(Rule):
    """Turns with nothing to say are left out, and blank text parts beside others removed (quirks 13, 32,
    40, 43, 55, 61).

    A user turn, or an assistant turn without tool calls, with no text (with ``whitespace``, whitespace is
    no text): Anthropic gets litellm's "[System: Empty message content sanitised ...]" in its place,
    Bedrock and xAI answer 400, litellm drops it for Mistral anyway. A blank system message too, and blank
    text parts in system messages (Anthropic rejects a blank text block in ``system``, and a system
    message half-way reaches it as a user turn with litellm's placeholder for each). Tool results and
    tool-call turns are never dropped (their own rules give them content). When nothing but system
    messages is left, a user turn saying ``text`` is added.
    """

    id = "empty-text"
    stage = 55
    always = True

    whitespace: bool = False
    """Whether whitespace-only text counts as no text (Anthropic, Bedrock)."""
    text: str = CONTINUE_TEXT
    """The user turn added when no turn is left."""
    after_system: bool = True
    """Whether that turn is added after system messages that say something too. False where the route sends
    a lone system message as the message itself and a turn after it would push it out (Cohere's v1 route,
    quirk 87); an empty list gets the turn either way."""

    def screens(self, shape: Shape) -> bool:
        if shape.role not in _PART_ROLES or (shape.role == "assistant" and shape.calls):
            return False
        return shape.kind in _blank_kinds(self.whitespace)

    def detect(self, m: Message, run: Any) -> str | None:
        role = m.get("role")
        if role not in _PART_ROLES or (
            role == "assistant" and (m.get("tool_calls") or m.get("refusal") is not None)
        ):
            return None  # a refusal becomes the text (the refusal rule); calls keep the turn
        content = m.get("content")
        if blank(content, whitespace=self.whitespace):
            return "drop"
        if _blank_parts(content, self.whitespace):
            return "parts"
        return None

    def fix(self, m: Message, finding: Any, run: Any) -> Any:
        if finding == "drop":
            return DROP
        return {**m, "content": _without_blank_parts(m["content"], self.whitespace)}

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        role = m.get("role")
        if is_system(m):
            if finding == "drop":
                yield Note(f"a system message with no text: {cx.provider} rejects empty text")
            else:
                yield Note(
                    f"a blank text part in a system message: {cx.provider} rejects a blank text block, and "
                    "litellm sends its own placeholder text for one in a system message half-way"
                )
            return
        effect = (
            f"{cx.provider} rejects it, or litellm drops it"
            if cx.strict
            else f"{cx.provider} rejects it, or litellm replaces it with its own placeholder text"
        )
        if finding == "drop":
            yield Note(f"{an(role)} turn with no text: {effect}")
        else:
            yield Note(f"an empty text part: {effect}")

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        if any(not is_system(m) for m in messages) or (messages and not self.after_system):
            return messages
        turn = {"role": "user", "content": self.text}
        made.append(turn)
        return [*messages, turn]


@dataclass(frozen=True, kw_only=True)
class CallTurnContent(Rule):
    """The content of an assistant turn that calls tools and says nothing (quirks 5, 13, 23, 29, 32, 40,
    50, 53).

    ``"null"``: no text at all (litellm then sends no ``content``): Anthropic would get litellm's
    placeholder for ``""``, Gemini an empty text part. ``"empty_string"``: ``""``, for servers that reject
    a missing or null content (xAI, llama.cpp, LM Studio, templates that concatenate it). Content given as
    parts that says something keeps its parts, less the blank ones (Gemini answers 400 for the
    ``{"text": ""}`` litellm sends for an empty part beside the calls).
    """

    id = "call-turn-text"
    stage = 56

    value: Literal["null", "empty_string"] = "null"
    """What a call turn that says nothing carries: no content (``"null"``) or ``""``
    (``"empty_string"``)."""
    whitespace: bool = False
    """Whether whitespace-only text counts as no text."""

    def screens(self, shape: Shape) -> bool:
        if shape.role != "assistant" or not shape.calls:
            return False
        # "null" has nothing to do on a null content, "empty_string" nothing on "".
        return shape.kind in _blank_kinds(self.whitespace) - {NONE if self.value == "null" else EMPTY}

    def detect(self, m: Message, run: Any) -> Any:
        if m.get("role") != "assistant" or not m.get("tool_calls"):
            return None
        content = m.get("content")
        if not blank(content, whitespace=self.whitespace):
            return "parts" if _blank_parts(content, self.whitespace) else None
        if self.value == "null":
            return None if content is None else "null"
        return None if content == "" else "empty"

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return self.fix_in_place(dict(m), finding, run)

    def reshape(self, shape: Shape) -> Shape | None:
        if shape.kind == PARTS:  # blank parts left out, or the content set: the parts decide
            return None
        return replace(shape, kind=NONE if self.value == "null" else EMPTY, long=False)

    def fix_in_place(self, m: Message, finding: Any, run: Any) -> Message:
        if finding == "parts":
            m["content"] = _without_blank_parts(m["content"], self.whitespace)
        else:
            m["content"] = None if finding == "null" else ""
        return m

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        content = m.get("content")
        if finding == "parts":
            yield Note(
                f"an empty text part beside tool calls: {cx.provider} rejects an empty text part, or litellm "
                "turns it into text of its own (leave it out)"
            )
        elif finding == "null":
            yield Note(
                f"a tool-call turn with empty text {content!r}: {cx.provider} rejects empty text beside tool "
                "calls, or litellm turns it into text of its own (send null)"
            )
        elif content is None:
            yield Note(f'a tool-call turn with no content: {cx.provider} needs a content (send "")')


@dataclass(frozen=True, kw_only=True)
class NullTurn(Rule):
    """An assistant turn with neither text nor tool calls (an ``AIMessage`` after a reasoning-only reply)
    is sent with content ``""`` where ``null`` is rejected (OpenAI, quirk 5: ``content: null`` only beside
    tool calls; chat templates, quirk 53). The turn is kept: it may carry reasoning, and dropping it could
    make two user turns meet."""

    id = "null-content"
    stage = 57

    def screens(self, shape: Shape) -> bool:
        return shape.role == "assistant" and not shape.calls and shape.kind == NONE

    def detect(self, m: Message, run: Any) -> bool:
        return m.get("role") == "assistant" and m.get("content") is None and not m.get("tool_calls")

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return {**m, "content": ""}

    def fix_in_place(self, m: Message, finding: Any, run: Any) -> Message:
        m["content"] = ""
        return m

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        yield Note(
            f"an assistant turn with no text and no tool calls: {cx.provider} rejects content null there "
            "(send '')"
        )


@dataclass(frozen=True, kw_only=True)
class BlankToolResults(Rule):
    """A tool result with no text says ``text`` instead, and loses blank text parts beside other parts
    (quirks 13, 31, 40, 43, 55): Bedrock and Anthropic reject a blank text block, xAI an empty message, and
    litellm's Mistral route drops a message whose content is ``""`` (tool results included), which leaves
    the call unanswered."""

    id = "empty-tool-result"
    stage = 58

    whitespace: bool = False
    """Whether whitespace-only text counts as no text."""
    text: str = EMPTY_RESULT_TEXT
    """What a tool result with no text says instead."""

    def screens(self, shape: Shape) -> bool:
        return shape.role == "tool" and shape.kind in _blank_kinds(self.whitespace)

    def detect(self, m: Message, run: Any) -> str | None:
        if m.get("role") != "tool":
            return None
        content = m.get("content")
        if blank(content, whitespace=self.whitespace):
            return "fill"
        return "parts" if _blank_parts(content, self.whitespace) else None

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return self.fix_in_place(dict(m), finding, run)

    def fix_in_place(self, m: Message, finding: Any, run: Any) -> Message:
        m["content"] = self.text if finding == "fill" else _without_blank_parts(m["content"], self.whitespace)
        return m

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        yield Note(
            f"an empty tool result: {cx.provider} rejects it, or litellm drops or rewrites it (send some "
            "text, such as '(no output)')"
        )


@dataclass(frozen=True, kw_only=True)
class ReasoningContent(Rule):
    """Every assistant turn carries ``reasoning_content`` (DeepSeek's thinking models, quirk 34: "Missing
    `reasoning_content` field in the assistant message"). A turn made elsewhere gets ``text`` (``" "``, the
    least the API takes, and what litellm itself sends when ``thinking`` is enabled)."""

    id = "reasoning-missing"
    stage = 60

    row: int | None = 34
    text: str = " "
    """The ``reasoning_content`` a turn made elsewhere is given."""

    def sends_keys(self, role: str) -> frozenset[str]:
        return frozenset({"reasoning_content"}) if role == "assistant" else frozenset()

    def screens(self, shape: Shape) -> bool:
        return shape.role == "assistant"

    def detect(self, m: Message, run: Any) -> bool:
        return m.get("role") == "assistant" and not m.get("reasoning_content")

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return {**m, "reasoning_content": self.text}

    def reshape(self, shape: Shape) -> Shape:
        return replace(shape, odd=True)  # a key beyond the plain ones

    def fix_in_place(self, m: Message, finding: Any, run: Any) -> Message:
        m["reasoning_content"] = self.text
        return m

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        yield Note(
            f"an assistant turn without reasoning_content: {cx.provider}'s thinking models answer 400 (send "
            "it back, or ' ')"
        )


# --- parts the model does not take -------------------------------------------------------------------


_KIND_NAMES = {
    "image_url": "image",
    "input_audio": "audio clip",
    "file": "file",
    "file_id": "file by id",
    "video_url": "video",
    "refusal": "refusal",
}

_WAY_OUT = {
    "image_url": "describe it in text, or use a model that takes images there",
    "input_audio": "transcribe it, or use a model that takes audio there",
    "file": "send its text (or its pages as images), or use a model that takes files there",
    "file_id": "send the file inline (FilePart.from_bytes), or use a model that reads files by id there",
    "video_url": "describe the video in text, or use Gemini",
    "refusal": "send the refusal as text",
}


@dataclass(frozen=True, kw_only=True)
class UnsupportedParts(Rule):
    """Every content part the profile's table (``Profile.parts``, a ``PartTable``) does not take is
    reported, not fixable: a kind of part the role does not take (litellm drops it without a word, or the
    provider rejects the request), a part that is not one at all, a key no provider reads. Each finding
    cites the table's row for that role and kind. Only the caller can describe the part in text, move it,
    or choose a model that takes it; nothing is dropped here.

    Every profile has this rule, compiled from its table: with the default table (every part taken) it
    screens nothing. It looks only at content given as parts, so a text message costs it nothing.
    """

    id = "unsupported-part"
    stage = 70

    table: PartTable = ANY_PARTS
    """The profile's table (set when compiled)."""
    accepted: Mapping[str, Mapping[str, tuple[frozenset[str], str, frozenset[str]]]] = field(
        default_factory=dict, hash=False, compare=False, repr=False
    )
    """By role, by kind taken: the keys a part may have, the key of its payload, and the keys the payload
    may have (derived from ``table`` when compiled): what ``detect`` tests each part against, as two set
    inclusions."""

    def bind(self, cx: Context) -> Rule:
        accepted = {
            role: {kind: _keys_of(kind, cx.parts.keys) for kind in cell.kinds}
            for role in ("system", "developer", "user", "assistant", "tool")
            if (cell := cx.parts.role(role)) is not None
        }
        return replace(self, table=cx.parts, accepted=accepted)

    def screens(self, shape: Shape) -> bool:
        return shape.kind == PARTS and shape.role is not None and self.table.screens

    def detect(self, m: Message, run: Any) -> list[tuple[int, str, list[str] | None]] | None:
        accepted = self.accepted.get(m.get("role"))  # type: ignore[arg-type]
        content = m.get("content")
        if accepted is None or type(content) is not list:
            return None
        found: list[tuple[int, str, list[str] | None]] | None = None
        for n, p in enumerate(content):
            kind = p.get("type") if type(p) is dict else None
            if type(kind) is str:
                if kind == "file":
                    kind = part_kind(p)
                spec = accepted.get(kind)
                if spec is not None:
                    top, payload_key, allowed = spec
                    if p.keys() <= top:
                        payload = p.get(payload_key)
                        if type(payload) is not dict or payload.keys() <= allowed:
                            continue  # taken, with keys a route reads
                    found = found or []
                    found.append((n, kind, odd_keys(p, kind, self.table.keys)))
                    continue
            found = found or []
            found.append((n, part_kind(p), None))
        return found

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        role = m.get("role")
        cell = self.table.role(role)
        assert cell is not None
        for n, kind, odd in finding:
            if odd is not None:
                yield Note(
                    f"part {n} ({kind}) has keys no route reads ({', '.join(odd)}): leave them out",
                    fixable=False,
                    row=62,
                )
                continue
            if kind not in ALL_KINDS:
                what = "not a content part" if kind == "?" else f"a part of type {kind!r}"
                yield Note(
                    f"part {n} is {what}: no provider takes it; send text, image_url, input_audio or file "
                    "parts",
                    fixable=False,
                    row=62,  # what the request types do not know
                )
                continue
            yield Note(
                f"part {n} is {_article(_KIND_NAMES[kind])}: {cx.provider} takes none in {an(role)} message "
                f"(litellm drops it or the provider rejects it): {_WAY_OUT[kind]}",
                fixable=False,
                row=cell.row_for(kind),
            )

    def cited_rows(self) -> frozenset[int]:
        # The table's, and 62 for unknown part types and keys.
        return self.table.rows() | {62} if self.table.screens else frozenset()


def _keys_of(kind: str, narrowed: Mapping[str, frozenset[str]]) -> tuple[frozenset[str], str, frozenset[str]]:
    """For a kind: the keys a part of it may have, the key of its payload, the keys the payload may have."""
    payload_key, payload_keys = PART_KEYS[kind]
    return frozenset({"type", "cache_control", payload_key}), payload_key, narrowed.get(kind, payload_keys)


def _article(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


@dataclass(frozen=True, kw_only=True)
class InlineImages(Rule):
    """Images by URL are reported where only inline images work (Ollama, quirk 51): not fixable here, as
    the image would have to be downloaded (``ImagePart.from_bytes``)."""

    id = "image-url"
    stage = 71

    row: int | None = 51

    def screens(self, shape: Shape) -> bool:
        return shape.kind == PARTS

    def detect(self, m: Message, run: Any) -> list[str] | None:
        urls = []
        for p in parts_of(m.get("content")):
            image = p.get("image_url") if p.get("type") == "image_url" else None
            url = image.get("url") if isinstance(image, dict) else image
            if isinstance(url, str) and not url.startswith("data:"):
                urls.append(url)
        return urls or None

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        for url in finding:
            yield Note(
                f"{cx.provider} takes images inline only (base64), not by URL ({url[:40]}): download it and "
                "send an ImagePart.from_bytes",
                fixable=False,
            )


@dataclass(frozen=True, kw_only=True)
class TextLength(Rule):
    """A text longer than the provider takes is reported (OpenAI, quirk 83: "Invalid
    'messages[5].content': string too long. Expected a string with maximum length 10485760"): a string
    content, or a text part. Not fixable: what to cut is the caller's call (a context window with a token
    limit, ``messages.context``, or a tool that returns less); cutting here would lose content."""

    id = "text-length"
    stage = 80

    row: int | None = 83
    limit: int = 10_485_760
    """The most characters one text may have; at least ``LONG_TEXT``, so that only long shapes (and
    parts) need a look."""

    def __post_init__(self) -> None:
        if self.limit < LONG_TEXT:
            raise ValueError(f"a text limit must be at least {LONG_TEXT:,} characters, not {self.limit:,}")

    def screens(self, shape: Shape) -> bool:
        return shape.long or shape.kind == PARTS

    def detect(self, m: Message, run: Any) -> list[tuple[int | None, int]] | None:
        content, limit = m.get("content"), self.limit
        if type(content) is str:
            return [(None, len(content))] if len(content) > limit else None
        found: list[tuple[int | None, int]] = [
            (n, len(text))
            for n, p in enumerate(content if isinstance(content, list) else ())
            if isinstance(p, dict) and type(text := p.get("text")) is str and len(text) > limit
        ]  # indexes in the content as given, whatever else it holds
        return found or None

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        for part, size in finding:
            where = "the content" if part is None else f"text part {part}"
            yield Note(
                f"{where} has {size:,} characters; {cx.provider} rejects a text longer than {self.limit:,} "
                "(string too long): shorten it, or keep it out of the window (messages.context)",
                fixable=False,
            )
