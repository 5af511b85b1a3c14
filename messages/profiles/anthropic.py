"""Anthropic (``anthropic/claude-...``); the Claude rules are shared with Bedrock, Vertex AI and OpenRouter.

litellm builds Anthropic's request from the OpenAI-shape list (system hoisted, tool results turned into
``tool_result`` blocks, consecutive turns merged), so unknown keys and ``name`` never reach Anthropic.

Implements (provider-quirks.md rows):

* 13: a user or assistant turn with no text (whitespace counts) is dropped, a blank text part removed (in
  system messages and tool results too: Anthropic rejects a blank text block in ``system`` and in a
  ``tool_result``), a tool-call turn sends no text, an empty tool result says so: litellm would otherwise
  send its own "[System: Empty message content sanitised to satisfy protocol]" in their place (also for
  a blank part of a system message half-way, which litellm sends as a user turn);
* 15, families ``claude-{opus,sonnet,haiku}-4-6`` and later: a conversation ending on an assistant text
  gets a user turn ("This model does not support assistant message prefill");
* 17: tool-call ids match ``[a-zA-Z0-9_-]+``, collision-free (litellm replaces invalid characters with
  ``_``, which can make ``a.b`` and ``a_b`` one id; the rewrite leaves it nothing to do);
* 18: signed ``thinking_blocks`` go back to Anthropic only (another provider's, or Anthropic's to another
  provider, are rejected as invalid signatures); an assistant turn with thinking right after another
  assistant turn is merged into it here, so that its thinking comes first (litellm merges the two with the
  thinking after the first turn's text: "thinking blocks must come before the other blocks"); a final
  assistant text (a prefill) sends no thinking blocks: with thinking off Anthropic answers "an assistant
  message in the final position cannot contain thinking", and with thinking on it refuses a prefill
  anyway; the prefill's text is kept, and on Claude 4.6 and later the turn is not final (row 15);
* 19: a conversation with no user turn first gets one (litellm's converter expects it, and a request with
  only system messages is rejected);
* 58: arguments ``""`` sent as ``"{}"``; arguments that are not a JSON object are reported (litellm
  replaces them with ``{}`` silently);
* audio parts are reported: Claude takes none, and litellm's converter skips them silently.

Left to litellm: 14 (trailing whitespace of a final assistant text), 16 (tool results merged into one
user turn, first), 19 (system hoisting), 20 (merging consecutive turns), 21 (image media types from data
URLs), 22 (``cache_control``, kept on messages), 7 (images in tool results become image blocks).
"""

from __future__ import annotations

from collections.abc import Mapping

from messages.profiles._ids import IdRule
from messages.profiles._profile import Profile

__all__ = [
    "CLAUDE_RULES",
    "FAMILIES",
    "NO_PREFILL_FAMILIES",
    "PROFILE",
    "claude_profile",
    "no_prefill_families",
]

ALL_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})

CLAUDE_RULES: Mapping[str, object] = {
    "rejects_unknown_keys": False,
    "accepts_names_on": ALL_ROLES,  # litellm's converter drops them
    "extra_keys": {role: frozenset({"cache_control"}) for role in ALL_ROLES},
    "tool_call_ids": IdRule(alphabet="a-zA-Z0-9_-"),
    "accepts_thinking_blocks": True,
    "orders_thinking": True,
    "decodes_arguments": True,
    "empty_text": "drop",
    "whitespace_is_empty": True,
    "call_turn_content": "null",
    "fills_empty_tool_results": True,
    "needs_user_first": True,
    "accepts_parts": frozenset({"text", "image_url", "file"}),  # litellm's converter skips input_audio
    "rows": {
        "tool-call-id": 17,
        "foreign-reasoning": 18,
        "thinking-order": 18,
        "final-thinking": 18,
        "empty-text": 13,
        "call-turn-text": 13,
        "empty-tool-result": 13,
        "first-turn": 19,
        "prefill": 15,
    },
}
"""The fields every Claude profile shares, whichever platform serves it."""


def claude_profile(provider: str, **changes: object) -> Profile:
    """A profile for Claude models served by ``provider``."""
    fields = dict(CLAUDE_RULES)
    fields.update(changes)
    return Profile(provider=provider, **fields)  # type: ignore[arg-type]


NO_PREFILL_FAMILIES: tuple[str, ...] = tuple(
    f"claude-{tier}-{version}"
    for tier in ("opus", "sonnet", "haiku")
    for version in ("4-6", "4-7", "4-8", "4-9", "5", "6", "7", "8", "9")
)
"""The Claude model families that refuse assistant prefill: 4.6 and later (row 15)."""


def no_prefill_families(profile: Profile) -> dict[str, Profile]:
    """``profile`` for each Claude family that refuses prefill (row 15)."""
    rows = {**profile.rows, "prefill": 15}
    return {
        key: profile.with_family(key, supports_assistant_prefill=False, rows=rows)
        for key in NO_PREFILL_FAMILIES
    }


PROFILE = claude_profile("anthropic")

FAMILIES = no_prefill_families(PROFILE)
