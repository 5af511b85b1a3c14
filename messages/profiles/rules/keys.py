"""Rules about the keys a message carries: signed payloads, refusals, names, keys a provider does not know."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from messages.models import REASONING_DETAILS, lift_reasoning_details
from messages.profiles._rule import (
    Context,
    Message,
    Note,
    Rule,
    Shape,
    an,
    blank,
)

__all__ = [
    "CORE_KEYS",
    "EXTENSION_PAYLOADS",
    "ExtensionKeys",
    "ForeignPayloads",
    "KnownKeys",
    "Names",
    "ReasoningDetails",
    "RedactedThinking",
    "Refusal",
]

CORE_KEYS: Mapping[str, frozenset[str]] = {
    "system": frozenset({"role", "content"}),
    "developer": frozenset({"role", "content"}),
    "user": frozenset({"role", "content"}),
    "assistant": frozenset({"role", "content", "tool_calls"}),
    "tool": frozenset({"role", "content", "tool_call_id"}),
}
"""The keys of each role that every OpenAI-shaped provider accepts."""

EXTENSION_PAYLOADS = frozenset({"reasoning_content", "thinking_blocks", "provider_specific_fields"})
"""The provider-bound payloads of an assistant turn (``messages.models.AIMessage``)."""

_CALL_KEYS = frozenset({"id", "type", "function"})
_FUNCTION_KEYS = frozenset({"name", "arguments"})
_PAYLOAD_KINDS = ("thinking_blocks", "provider_specific_fields")


def _calls(m: Message) -> list[Any]:
    calls = m.get("tool_calls")
    return calls if isinstance(calls, list) else []


def _is_redacted(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "redacted_thinking"


def _redacted(m: Message) -> bool:
    blocks = m.get("thinking_blocks")
    return isinstance(blocks, list) and any(_is_redacted(b) for b in blocks)


@dataclass(frozen=True, kw_only=True)
class RedactedThinking(Rule):
    """A redacted thinking block left out of an assistant turn (Bedrock with litellm before 1.85, quirk 48):
    those releases send it to Converse as an empty text block, which Bedrock refuses ("The text field in
    the ContentBlock object is blank"); 1.85 to 1.106 leave it out themselves, later releases send it as
    ``reasoningContent.redactedContent``. The other thinking blocks are kept."""

    id = "redacted-thinking"
    stage = 31

    row: int | None = 48

    def screens(self, shape: Shape) -> bool:
        return shape.role == "assistant" and shape.odd

    def detect(self, m: Message, run: Any) -> bool:
        return _redacted(m)

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        kept = [
            b
            for b in m["thinking_blocks"]
            if not (isinstance(b, dict) and b.get("type") == "redacted_thinking")
        ]
        return {k: v for k, v in m.items() if k != "thinking_blocks"} | (
            {"thinking_blocks": kept} if kept else {}
        )

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        yield Note(
            f"litellm before 1.85 sends a redacted thinking block to {cx.provider} as an empty text block, "
            "which it refuses (the text field in the ContentBlock is blank)"
        )


@dataclass(frozen=True, kw_only=True)
class ForeignPayloads(Rule):
    """Signed reasoning payloads go back to the provider that signed them, and nowhere else (quirk 63; the
    provider-specific forms: 18, 25, 34, 48, 56).

    ``thinking_blocks`` (Anthropic, Bedrock) and ``provider_specific_fields`` (Gemini thought signatures,
    on the turn and on each tool call) are kept when the profile sends that kind back and the turn's
    ``provider`` is the profile's (or unknown: a payload nobody recorded the origin of is taken to be the
    target's own, which also keeps the fix idempotent once ``provider`` is gone). With
    ``own_reasoning_content``, ``reasoning_content`` follows the same rule (DeepSeek, quirk 34). The
    ``provider`` key itself goes later, whatever the profile (``OwnKeys``).
    """

    id = "foreign-reasoning"
    stage = 30

    row: int | None = 63

    thinking_blocks: bool = False
    """Whether the provider takes its own signed ``thinking_blocks`` back."""
    provider_fields: bool = False
    """Whether the provider takes its own ``provider_specific_fields`` back (on turns and calls)."""
    own_reasoning_content: bool = False
    """Whether ``reasoning_content`` goes back only to the provider that wrote it."""
    provider: str = field(default="", repr=False)
    """The profile's provider (set when compiled)."""

    def bind(self, cx: Context) -> Rule:
        return replace(self, provider=cx.provider)

    def sends_keys(self, role: str) -> frozenset[str]:
        if role != "assistant":
            return frozenset()
        kept = {"thinking_blocks"} if self.thinking_blocks else set()
        if self.provider_fields:
            kept.add("provider_specific_fields")
        if self.own_reasoning_content:
            kept.add("reasoning_content")
        return frozenset(kept)

    def sends_call_keys(self) -> frozenset[str]:
        return frozenset({"provider_specific_fields"}) if self.provider_fields else frozenset()

    def screens(self, shape: Shape) -> bool:
        return shape.role == "assistant" and (shape.odd or (shape.odd_calls and not self.provider_fields))

    def detect(self, m: Message, run: Any) -> Any:
        if m.get("role") != "assistant":
            return None
        origin = m.get("provider")
        own = origin is None or origin == self.provider
        keep_blocks = self.thinking_blocks and own
        keep_fields = self.provider_fields and own
        drop_reasoning = self.own_reasoning_content and not own and "reasoning_content" in m
        call_fields = not keep_fields and any(
            isinstance(c, dict) and "provider_specific_fields" in c for c in _calls(m)
        )
        if (
            drop_reasoning
            or ("thinking_blocks" in m and not keep_blocks)
            or ("provider_specific_fields" in m and not keep_fields)
            or call_fields
        ):
            return (keep_blocks, keep_fields, drop_reasoning, call_fields)
        return None

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        keep_blocks, keep_fields, drop_reasoning, call_fields = finding
        new = {
            k: v
            for k, v in m.items()
            if not (
                (k == "reasoning_content" and drop_reasoning)
                or (k == "thinking_blocks" and not keep_blocks)
                or (k == "provider_specific_fields" and not keep_fields)
            )
        }
        if call_fields:
            new["tool_calls"] = [
                {k: v for k, v in c.items() if k != "provider_specific_fields"} if isinstance(c, dict) else c
                for c in _calls(m)
            ]
        return new

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        origin = m.get("provider")
        if origin is None or origin == self.provider:
            return
        if self.own_reasoning_content and m.get("reasoning_content") is not None:
            yield Note(
                f"reasoning_content written by {origin}: {self.provider} takes back only its own reasoning"
            )
        kinds = [k for k in _PAYLOAD_KINDS if m.get(k) is not None]
        if any(isinstance(c, dict) and c.get("provider_specific_fields") is not None for c in _calls(m)):
            kinds.append("tool_calls[].provider_specific_fields")
        for kind in kinds:
            accepted = self.thinking_blocks if kind == "thinking_blocks" else self.provider_fields
            if accepted:
                yield Note(
                    f"{kind} were signed by {origin}; {self.provider} rejects another provider's signatures"
                )
            # Not accepted: a strict route rejects the key (the unknown-key rule says so), and a converting
            # route builds its request without it.


@dataclass(frozen=True, kw_only=True)
class Refusal(Rule):
    """A refusal reaches the model as text (quirk 5).

    An assistant turn with a ``refusal`` but no text and no tool calls gets the refusal as its content
    (OpenAI allows ``content: null`` only beside tool calls, and any other provider would see an empty
    turn). Without ``keep_key`` (providers that do not know ``refusal``) the key goes, and a refusal beside
    other text or tool calls is appended to the text, so that no refusal is lost.
    """

    id = "refusal"
    stage = 31

    row: int | None = 5
    keep_key: bool = False
    """Whether the provider knows the ``refusal`` key (OpenAI)."""

    def sends_keys(self, role: str) -> frozenset[str]:
        return frozenset({"refusal"}) if self.keep_key and role == "assistant" else frozenset()

    def screens(self, shape: Shape) -> bool:
        return shape.role == "assistant" and shape.odd

    def detect(self, m: Message, run: Any) -> bool:
        if "refusal" not in m:
            return False
        if not self.keep_key:
            return True
        refusal = m["refusal"]
        return bool(
            isinstance(refusal, str)
            and refusal
            and blank(m.get("content"), whitespace=False)
            and not m.get("tool_calls")
        )

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        refusal = m["refusal"]
        content = m.get("content")
        said = isinstance(refusal, str) and refusal != ""
        if self.keep_key:
            return {**m, "content": refusal}
        new = {k: v for k, v in m.items() if k != "refusal"}
        if said:
            new["content"] = _append_text(None if blank(content, whitespace=False) else content, refusal)
        return new

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        if m.get("refusal") is None:
            return
        silent = blank(m.get("content"), whitespace=False) and not m.get("tool_calls")
        if self.keep_key:
            yield Note(
                "a refusal with no content: OpenAI allows content null only beside tool calls (send the "
                "refusal as the content too)"
            )
        elif cx.strict:
            yield Note(f"{cx.provider} rejects the `refusal` key (send it as text)")
        elif silent:
            yield Note(
                f"litellm's {cx.provider} route ignores `refusal`: this turn reaches the model with no text "
                "(send the refusal as the content)"
            )


def _append_text(content: Any, text: str) -> Any:
    if content is None or content == "":
        return text
    if isinstance(content, list):
        return [*content, {"type": "text", "text": text}]
    return f"{content}\n\n{text}"


_ALL_ROLES = frozenset(CORE_KEYS)


@dataclass(frozen=True, kw_only=True)
class Names(Rule):
    """``name`` only where the provider takes it, and in its pattern (quirks 4, 33, 55, 57, 59).

    A ``name`` on a role outside ``kept_on`` is dropped; with ``pattern`` (a regex for one character), a
    name with other characters gets ``_`` for each and is cut to 64 characters.
    """

    id = "name"
    stage = 32

    row: int | None = 4
    kept_on: frozenset[str] = frozenset({"system", "developer", "user"})
    """The roles whose ``name`` is sent: the provider takes it there, or litellm drops it itself."""
    pattern: str | None = None
    """A regex for one character of a valid name; ``None``: any name."""
    max_length: int = 64
    """The longest name the provider takes."""

    def sends_keys(self, role: str) -> frozenset[str]:
        return frozenset({"name"}) if role in self.kept_on else frozenset()

    def screens(self, shape: Shape) -> bool:
        return shape.odd and (shape.role not in self.kept_on or self.pattern is not None)

    def _valid(self, name: str) -> bool:
        char = _compiled(self.pattern or ".")
        return 0 < len(name) <= self.max_length and all(char.fullmatch(c) for c in name)

    def detect(self, m: Message, run: Any) -> str | None:
        if "name" not in m:
            return None
        if m.get("role") not in self.kept_on:
            return "drop"
        name = m["name"]
        if self.pattern is not None and isinstance(name, str) and not self._valid(name):
            return "sanitize"
        return None

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        new = {k: v for k, v in m.items() if k != "name"}
        if finding == "sanitize":
            char = _compiled(self.pattern or ".")
            cleaned = "".join(c if char.fullmatch(c) else "_" for c in m["name"])[: self.max_length]
            if cleaned:
                new["name"] = cleaned
        return new

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        if finding == "drop":
            if m.get("name") is not None:
                yield Note(f"{cx.provider} rejects `name` on {an(m.get('role'))} message")
        else:
            yield Note(f"name {m['name']!r} breaks {cx.provider}'s name pattern")


def _compiled(pattern: str) -> re.Pattern[str]:
    found = _PATTERNS.get(pattern)
    if found is None:
        found = _PATTERNS[pattern] = re.compile(pattern)
    return found


_PATTERNS: dict[str, re.Pattern[str]] = {}
_HANDLED = frozenset({"name", "refusal", "cache_control", "is_error"})  # reported by their own rules


@dataclass(frozen=True, kw_only=True)
class ReasoningDetails(Rule):
    """A reply's reasoning details sent back where OpenRouter reads them (quirk 56): litellm keeps the
    ``reasoning_details`` OpenRouter returns (an Anthropic model's signed thinking, a Gemini model's
    thought signatures, encrypted reasoning) in ``provider_specific_fields``, and OpenRouter takes them
    back only as the assistant message's own ``reasoning_details`` (Gemini and Claude tool loops fail
    without them). Moved there when the turn's ``provider`` is this profile's or unknown (Agent Framework's
    OpenAI chat client records them without one); litellm's OpenRouter route passes the key on."""

    id = "reasoning-details"
    stage = 28  # before the foreign-reasoning rule drops provider_specific_fields

    row: int | None = 56
    provider: str = field(default="", repr=False)
    """The profile's provider (set when compiled)."""

    def bind(self, cx: Context) -> Rule:
        return replace(self, provider=cx.provider)

    def sends_keys(self, role: str) -> frozenset[str]:
        return frozenset({REASONING_DETAILS}) if role == "assistant" else frozenset()

    def screens(self, shape: Shape) -> bool:
        return shape.role == "assistant" and shape.odd

    def detect(self, m: Message, run: Any) -> bool:
        fields = m.get("provider_specific_fields")
        return (
            isinstance(fields, dict)
            and isinstance(fields.get(REASONING_DETAILS), list)
            and REASONING_DETAILS not in m
            and m.get("provider") in (None, self.provider)
        )

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return lift_reasoning_details(m)

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        yield Note(
            f"{cx.provider} reads a reply's reasoning details back from the turn's own reasoning_details, "
            "not from provider_specific_fields, and Gemini and Claude tool loops fail without them: moved"
        )


@dataclass(frozen=True, kw_only=True)
class KnownKeys(Rule):
    """Only the keys the provider knows, where litellm sends the dicts as they are to a provider that
    rejects the rest (quirk 62: OpenAI and the APIs modelled on it; 33, 37, 55, 60 for the strictest).

    A role keeps its OpenAI core keys, the keys the profile's other rules send (``Rule.sends_keys``: a
    name where it is taken, a refusal, reasoning...), and ``extra``; a tool call keeps ``id``, ``type``,
    ``function`` (with ``name`` and ``arguments``) and what the other rules send on calls.
    """

    id = "unknown-key"
    stage = 33

    row: int | None = 62

    extra: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False)
    """Keys beyond the core that the provider takes, by role (OpenAI's assistant ``audio``)."""
    allowed: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False, repr=False)
    """The keys each role keeps (computed when compiled)."""
    call_keys: frozenset[str] = field(default=_CALL_KEYS, repr=False)
    """The keys a tool call keeps (computed when compiled)."""

    def __post_init__(self) -> None:
        unknown = set(self.extra) - _ALL_ROLES
        if unknown:
            raise ValueError(f"extra names unknown roles {sorted(unknown)}; roles are {sorted(_ALL_ROLES)}")

    def sends_keys(self, role: str) -> frozenset[str]:
        return self.extra.get(role, frozenset())

    def bind(self, cx: Context) -> Rule:
        allowed = {role: core | cx.kept_keys(role) for role, core in CORE_KEYS.items()}
        return replace(self, allowed=allowed, call_keys=_CALL_KEYS | cx.kept_call_keys())

    def screens(self, shape: Shape) -> bool:
        return shape.role is not None and (shape.odd or shape.odd_calls)

    def detect(self, m: Message, run: Any) -> Any:
        role = m.get("role")
        allowed = self.allowed.get(role) if isinstance(role, str) else None
        if allowed is None:
            return None
        call_keys = self.call_keys
        bad_calls = any(
            isinstance(c, dict)
            and (
                not c.keys() <= call_keys
                or (isinstance(c.get("function"), dict) and not c["function"].keys() <= _FUNCTION_KEYS)
            )
            for c in _calls(m)
        )
        if bad_calls or not m.keys() <= allowed:
            return allowed, bad_calls
        return None

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        allowed, bad_calls = finding
        new = {k: v for k, v in m.items() if k in allowed}
        if bad_calls and "tool_calls" in new:
            new["tool_calls"] = [self._known_call(c) for c in _calls(m)]
        return new

    def _known_call(self, call: Any) -> Any:
        if not isinstance(call, dict):
            return call
        new = {k: v for k, v in call.items() if k in self.call_keys}
        function = new.get("function")
        if isinstance(function, dict):
            new["function"] = {k: v for k, v in function.items() if k in _FUNCTION_KEYS}
        return new

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        allowed, _ = finding
        unknown = [k for k, v in m.items() if v is not None and k not in allowed and k not in _HANDLED]
        for c in _calls(m):
            if not isinstance(c, dict):
                continue
            unknown.extend(
                f"tool_calls[].{k}" for k, v in c.items() if v is not None and k not in self.call_keys
            )
            function = c.get("function")
            if isinstance(function, dict):
                unknown.extend(f"tool_calls[].function.{k}" for k in function if k not in _FUNCTION_KEYS)
        if unknown:
            keys = ", ".join(dict.fromkeys(sorted(unknown)))
            yield Note(f"{cx.provider} rejects unknown keys on {an(m.get('role'))} message: {keys}")


@dataclass(frozen=True, kw_only=True)
class ExtensionKeys(Rule):
    """Reasoning payloads the profile does not send are left out, on a route that builds the provider's
    request from known keys (Anthropic, Bedrock, Gemini, Ollama), where litellm might read them as its own
    (quirk 64).

    Silent: the provider would not reject them, so ``check`` reports nothing.
    """

    id = "extension-keys"
    stage = 33

    row: int | None = 64

    dropped: frozenset[str] = field(default=EXTENSION_PAYLOADS, repr=False)
    """The keys dropped from the messages."""

    def bind(self, cx: Context) -> Rule:
        return replace(self, dropped=EXTENSION_PAYLOADS - cx.kept_keys("assistant"))

    def screens(self, shape: Shape) -> bool:
        return shape.odd

    def detect(self, m: Message, run: Any) -> bool:
        return not self.dropped.isdisjoint(m.keys())

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return {k: v for k, v in m.items() if k not in self.dropped}
