"""The Cohere v2 chat rules over the body litellm sends to ``/v2/chat`` (OpenAI-like messages).

Quirks checked: 1 and 2 (tool calls answered, results answering a call), 55 (every
message carries at least one token or tool calls; no ``name``; only the keys the v2 API defines: Cohere's
API answers 422 on unsupported fields).
"""

from __future__ import annotations

from typing import Any

from tests.conformance.rules import Violation, openai_pairing

__all__ = ["check"]

_KEYS = {
    "system": {"role", "content"},
    "user": {"role", "content"},
    "assistant": {"role", "content", "tool_calls", "tool_plan", "citations"},
    "tool": {"role", "tool_call_id", "content"},
}
_CALL_KEYS = {"id", "type", "function"}


def _has_text(content: Any) -> bool:
    # Whitespace is at least one token; only nothing at all is not.
    if isinstance(content, str):
        return content != ""
    if isinstance(content, list):
        return any(
            item.get("text", "") != "" if item.get("type") == "text" else True
            for item in content
            if isinstance(item, dict)
        )
    return False


def check(body: dict[str, Any], model: str) -> list[Violation]:
    """The rules ``body`` breaks."""
    messages = body.get("messages") or []
    found = openai_pairing(messages)
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        role = message.get("role")
        allowed = _KEYS.get(role)
        if allowed is None:
            found.append(Violation("r55", where, f"role {role!r} is not a v2 chat role"))
            continue
        extra = sorted(set(message) - allowed)
        if extra:
            found.append(Violation("r55", where, f"unsupported fields {extra}"))
        for j, call in enumerate(message.get("tool_calls") or []):
            if set(call) - _CALL_KEYS:
                found.append(
                    Violation(
                        "r55",
                        f"{where}.tool_calls[{j}]",
                        f"unsupported fields {sorted(set(call) - _CALL_KEYS)}",
                    )
                )
        if not _has_text(message.get("content")) and not (role == "assistant" and message.get("tool_calls")):
            found.append(Violation("r55", where, "message must be at least 1 token long or have tool calls"))
    return found
