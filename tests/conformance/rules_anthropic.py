"""The Anthropic Messages API's rules over the body litellm sends to ``/v1/messages``.

Quirks checked: 13 (no empty text block; every message but a final assistant has
content), 14 (a final assistant text does not end in whitespace), 15 (Claude 4.6+: the conversation ends on
a user turn), 16 (each ``tool_use`` answered by ``tool_result`` blocks at the start of the next user turn,
and each ``tool_result`` answering the turn before), 17 (``tool_use`` ids match ``^[a-zA-Z0-9_-]+$`` and are
unique), 18 (thinking blocks signed, first in their turn, never last, none in a final assistant turn while
thinking is off), 19 (``system`` is top-level: roles in ``messages`` are user and assistant; ``messages``
is not empty), 20 (roles alternate: contested today, litellm merges anyway), 21 (base64 image media
types), and litellm's placeholder text (``ph``, docs/litellm.md, 'Anthropic gets a placeholder text for
empty content').
"""

from __future__ import annotations

from typing import Any

from tests.conformance.rules import Violation, fullmatch, is_blank, placeholder_violations

__all__ = ["check"]

_IMAGE_TYPES = {"image/jpeg", "image/png", "image/gif", "image/webp"}
_NO_PREFILL = ("claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-7", "claude-sonnet-4-7")


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _text_blocks(blocks: list[dict[str, Any]], where: str) -> list[Violation]:
    found = []
    for j, block in enumerate(blocks):
        if block.get("type") == "text" and is_blank(block.get("text")):
            found.append(Violation("r13", f"{where}.content[{j}]", "text content blocks must be non-empty"))
        if block.get("type") == "image":
            source = block.get("source") or {}
            if source.get("type") == "base64" and source.get("media_type") not in _IMAGE_TYPES:
                found.append(
                    Violation(
                        "r21", f"{where}.content[{j}]", f"image media_type {source.get('media_type')!r}"
                    )
                )
        if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            found += _text_blocks(block["content"], f"{where}.content[{j}]")
    return found


def check(body: dict[str, Any], model: str) -> list[Violation]:
    """The rules ``body`` breaks (``model`` selects the Claude 4.6+ rule, quirk 15)."""
    found = placeholder_violations(body)
    messages = body.get("messages") or []
    if not messages:
        return [*found, Violation("r19", "messages", "messages must have at least one element")]
    system = body.get("system")
    if isinstance(system, list):
        found += _text_blocks(system, "system")
    thinking_on = bool(body.get("thinking"))
    seen_ids: set[str] = set()
    last = len(messages) - 1
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        role = message.get("role")
        if role not in ("user", "assistant"):
            found.append(Violation("r19", where, f"role {role!r} in messages (system is top-level)"))
        if i and role == messages[i - 1].get("role"):
            found.append(Violation("r20", where, f"two {role} turns in a row"))
        blocks = _blocks(message)
        final_assistant = i == last and role == "assistant"
        if not blocks and not final_assistant:
            found.append(Violation("r13", where, "all messages must have non-empty content"))
        found += _text_blocks(blocks, where)
        kinds = [b.get("type") for b in blocks]
        if final_assistant:
            texts = [b for b in blocks if b.get("type") == "text"]
            if (
                texts
                and isinstance(texts[-1].get("text"), str)
                and texts[-1]["text"] != texts[-1]["text"].rstrip()
            ):
                found.append(
                    Violation("r14", where, "final assistant content cannot end with trailing whitespace")
                )
        if role == "assistant":
            thinking = [k in ("thinking", "redacted_thinking") for k in kinds]
            if any(thinking):
                first_other = thinking.index(False) if False in thinking else len(thinking)
                if any(thinking[first_other:]):
                    found.append(Violation("r18", where, "thinking blocks must come before the other blocks"))
                if thinking[-1]:
                    found.append(
                        Violation("r18", where, "the final block in an assistant message cannot be thinking")
                    )
                for j, block in enumerate(blocks):
                    if block.get("type") == "thinking" and not block.get("signature"):
                        found.append(
                            Violation("r18", f"{where}.content[{j}]", "a thinking block without signature")
                        )
                if final_assistant and not thinking_on:
                    found.append(
                        Violation("r18", where, "thinking blocks in a final assistant turn, thinking off")
                    )
        uses = [b for b in blocks if b.get("type") == "tool_use"]
        for block in uses:
            use_id = block.get("id")
            if not fullmatch(r"[a-zA-Z0-9_-]+", use_id):
                found.append(
                    Violation("r17", where, f"tool_use id {use_id!r} does not match ^[a-zA-Z0-9_-]+$")
                )
            if use_id in seen_ids:
                found.append(Violation("r17", where, f"tool_use ids must be unique: {use_id!r}"))
            seen_ids.add(use_id)
        found += _pairing(messages, i, uses)
    if model.split("/")[-1].startswith(_NO_PREFILL) and messages[last].get("role") != "user":
        found.append(Violation("r15", f"messages[{last}]", "this model does not support assistant prefill"))
    return found


def _pairing(messages: list[dict[str, Any]], i: int, uses: list[dict[str, Any]]) -> list[Violation]:
    """Quirk 16 for turn ``i``: its calls answered at the start of the next turn; its results answer the
    turn before."""
    found = []
    message = messages[i]
    if message.get("role") == "user":
        previous = _blocks(messages[i - 1]) if i else []
        called = {b.get("id") for b in previous if b.get("type") == "tool_use"}
        for j, block in enumerate(_blocks(message)):
            if block.get("type") == "tool_result" and block.get("tool_use_id") not in called:
                found.append(
                    Violation(
                        "r16",
                        f"messages[{i}].content[{j}]",
                        f"unexpected tool_use_id {block.get('tool_use_id')!r}: no tool_use just before",
                    )
                )
    if uses and i + 1 < len(messages):
        following = messages[i + 1]
        head = []
        for block in _blocks(following) if following.get("role") == "user" else []:
            if block.get("type") != "tool_result":
                break
            head.append(block.get("tool_use_id"))
        missing = [b.get("id") for b in uses if b.get("id") not in head]
        if missing or len(head) < len(uses):
            found.append(
                Violation(
                    "r16",
                    f"messages[{i + 1}]",
                    f"tool_use ids {missing} have no tool_result blocks at the start of the next message",
                )
            )
    return found
