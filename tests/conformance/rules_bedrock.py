"""The Bedrock Converse rules over the body litellm sends to ``/model/<id>/converse``.

Quirks checked: 13 (Claude on Bedrock: no empty text, as quirk 43 says it), 15 (Claude
4.6+ and 47 (Llama): the conversation ends on a user turn), 41 (it starts with a user turn), 42 (roles
alternate), 43 (no blank text block, in turns, tool results and ``system``; no empty ``content``), 44
(tool results alone in their user turn, each answering a ``toolUse`` of the turn before, every ``toolUse``
answered in the next turn), 45 (``toolUseId`` and tool names: pattern and 64 characters; Claude models
also quirk 17's ``^[a-zA-Z0-9_-]+$``), and litellm's placeholder text (``ph``).
"""

from __future__ import annotations

from typing import Any

from tests.conformance.rules import Violation, fullmatch, is_blank, placeholder_violations

__all__ = ["check"]

_USER_LAST = ("meta.llama", "anthropic.claude-opus-4-6", "anthropic.claude-sonnet-4-6")


def _blank_texts(blocks: list[dict[str, Any]], where: str) -> list[Violation]:
    found = []
    for j, block in enumerate(blocks):
        if "text" in block and is_blank(block["text"]):
            found.append(Violation("r43", f"{where}[{j}]", "the text field in the ContentBlock is blank"))
        result = block.get("toolResult")
        if isinstance(result, dict):
            found += _blank_texts(result.get("content") or [], f"{where}[{j}].toolResult.content")
    return found


def check(body: dict[str, Any], model: str) -> list[Violation]:
    """The rules ``body`` breaks (``model``, the Bedrock model id, selects the user-last rule)."""
    claude = model.split("/")[-1].startswith("anthropic.")
    found = placeholder_violations(body)
    found += _blank_texts(body.get("system") or [], "system")
    messages = body.get("messages") or []
    seen_ids: set[Any] = set()
    if not messages or messages[0].get("role") != "user":
        found.append(Violation("r41", "messages[0]", "a conversation must start with a user message"))
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        role = message.get("role")
        blocks = message.get("content") or []
        if i and role == messages[i - 1].get("role"):
            found.append(
                Violation("r42", where, "a conversation must alternate between user and assistant roles")
            )
        if not blocks:
            found.append(Violation("r43", where, "the content field in the Message object is empty"))
        found += _blank_texts(blocks, f"{where}.content")
        uses = [b["toolUse"] for b in blocks if "toolUse" in b]
        results = [b["toolResult"] for b in blocks if "toolResult" in b]
        for use in uses:
            if not fullmatch(r"[a-zA-Z0-9_.:-]{1,64}", use.get("toolUseId")):
                found.append(
                    Violation(
                        "r45", where, f"toolUseId {use.get('toolUseId')!r} fails [a-zA-Z0-9_.:-]{{1,64}}"
                    )
                )
            if claude and not fullmatch(r"[a-zA-Z0-9_-]+", use.get("toolUseId")):
                found.append(
                    Violation(
                        "r17", where, f"Claude tool_use id {use.get('toolUseId')!r} fails ^[a-zA-Z0-9_-]+$"
                    )
                )
            if claude and use.get("toolUseId") in seen_ids:
                found.append(
                    Violation("r17", where, f"tool_use ids must be unique: {use.get('toolUseId')!r}")
                )
            seen_ids.add(use.get("toolUseId"))
            if not fullmatch(r"[a-zA-Z0-9_-]{1,64}", use.get("name")):
                found.append(
                    Violation("r45", where, f"tool name {use.get('name')!r} fails [a-zA-Z0-9_-]{{1,64}}")
                )
        if results:
            if len(results) != len(blocks):
                found.append(
                    Violation(
                        "r44", where, "conversation blocks and tool result blocks cannot be in the same turn"
                    )
                )
            previous = messages[i - 1].get("content") or [] if i else []
            called = [b["toolUse"].get("toolUseId") for b in previous if "toolUse" in b]
            if len(results) > len(called):
                found.append(
                    Violation("r44", where, "more toolResult blocks than toolUse blocks of the previous turn")
                )
            for result in results:
                if result.get("toolUseId") not in called:
                    found.append(
                        Violation("r44", where, f"toolResult {result.get('toolUseId')!r} answers no toolUse")
                    )
        if uses:
            following = messages[i + 1].get("content") or [] if i + 1 < len(messages) else None
            if following is not None:
                answered = {b["toolResult"].get("toolUseId") for b in following if "toolResult" in b}
                missing = [u.get("toolUseId") for u in uses if u.get("toolUseId") not in answered]
                if missing:
                    found.append(
                        Violation("r44", f"messages[{i + 1}]", f"toolUse ids {missing} have no toolResult")
                    )
    model_id = model.split("/")[-1]
    if model_id.startswith(_USER_LAST) and messages and messages[-1].get("role") != "user":
        row = "r47" if model_id.startswith("meta.") else "r15"
        found.append(Violation(row, f"messages[{len(messages) - 1}]", "the last turn must be a user message"))
    return found
