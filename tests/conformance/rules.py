"""What the family checkers share: a violation, the pairing rule of OpenAI-shape bodies, string walks.

A rule id is the quirk it enforces (``r13`` is quirk 13, ``messages quirks 13``). Ids that are not quirks:

* ``ph``: litellm's placeholder "[System: Empty message content sanitised to satisfy protocol]" reached the
  model (docs/litellm.md, 'Anthropic gets a placeholder text for empty content'): the model reads a text
  nobody wrote;
* ``lost``: a non-empty text or a tool result of the input is missing from the body (issue 4, judging);
* ``foreign``: a reasoning payload bound to one provider was sent to another, which refuses it or misreads
  it (quirk 63; quirks 18, 25, 34, 48 name the errors);
* ``sdk``: the provider SDK's own request type rejects the body (extra keys forbidden);
* ``raised``: litellm raised before or while sending, so no request reached the provider.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

PLACEHOLDER = "[System: Empty message content sanitised to satisfy protocol]"
"""The text litellm writes in place of an empty Anthropic (and Bedrock invoke) turn (docs/litellm.md,
'Anthropic gets a placeholder text for empty content')."""


@dataclass(frozen=True)
class Violation:
    """One broken rule: its id (a quirk, ``r13``), where in the body, and what is wrong."""

    rule: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.rule} at {self.where}: {self.message}"


def strings(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """Every string inside ``value`` (keys excluded), with its path."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, f"{where}[{index}]")


def placeholder_violations(body: Any) -> list[Violation]:
    """litellm's empty-content placeholder anywhere in the body (docs/litellm.md, 'Anthropic gets a
    placeholder text for empty content')."""
    return [
        Violation("ph", where, "litellm's empty-content placeholder reached the model")
        for where, text in strings(body)
        if PLACEHOLDER in text
    ]


def is_blank(text: Any) -> bool:
    """Whether ``text`` is a string with nothing but whitespace (or nothing at all)."""
    return isinstance(text, str) and not text.strip()


def fullmatch(pattern: str, value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(pattern, value) is not None


def openai_pairing(messages: list[dict[str, Any]]) -> list[Violation]:
    """Quirks 1 and 2 on an OpenAI-shape list: every call answered by a tool message before the next
    non-tool message, every tool message answering a call of the assistant turn right before it."""
    found: list[Violation] = []
    open_calls: dict[str, int] = {}
    answerable: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in answerable:
                found.append(
                    Violation(
                        "r2", f"messages[{index}]", f"tool result {call_id!r} answers no call before it"
                    )
                )
            open_calls.pop(call_id, None)
            answerable.discard(call_id)
            continue
        for call_id, at in open_calls.items():
            found.append(
                Violation(
                    "r1", f"messages[{at}]", f"tool call {call_id!r} has no result before message {index}"
                )
            )
        open_calls = {}
        answerable = set()
        for call in message.get("tool_calls") or []:
            call_id = call.get("id") if isinstance(call, dict) else None
            if isinstance(call_id, str):
                open_calls[call_id] = index
                answerable.add(call_id)
    for call_id, at in open_calls.items():
        found.append(Violation("r1", f"messages[{at}]", f"tool call {call_id!r} has no result"))
    return found
