"""AWS Bedrock, Converse API (``bedrock/...``, ``bedrock/converse/...``).

litellm builds the Converse request from the OpenAI-shape list, so unknown keys and ``name`` never reach
Bedrock.

Implements (provider-quirks.md rows):

* 41: the first turn after the system messages is a user turn (one is added if not);
* 43: no blank text: a user or assistant turn with no text (whitespace counts) is dropped, a blank text
  part is removed (from system messages and tool results too), a tool-call turn sends no text, an empty
  tool result says so;
* 44: an assistant turn between tool results and a following user message ("Conversation blocks and tool
  result blocks cannot be provided in the same turn");
* 45: tool-call ids of ``[a-zA-Z0-9_-]``, at most 64 characters (whether ``.`` and ``:`` are allowed is
  disputed); family ``mistral``: exactly 9 letters or digits;
* 47: a conversation ending on an assistant text gets a user turn (most Bedrock models require a user
  turn last); family ``claude`` allows prefill, except 4.6 and later (row 15);
* 48: signed thinking blocks go back to Bedrock only (litellm turns them into ``reasoningContent``);
* 18 (Claude's thinking rules, shared with Anthropic): a turn with thinking after another assistant turn
  is merged into it with the thinking first, and a final assistant text sends no thinking;
* 58: arguments ``""`` sent as ``"{}"``; arguments that are not JSON are reported.

Left to litellm: 42 (it merges consecutive turns), 46 (document names), 48 (the block translation),
7 (images in tool results become image blocks of the ``toolResult``), ids (it also sanitizes them, with a
hash, which the rewrite leaves nothing to do).
"""

from __future__ import annotations

from messages.profiles._ids import IdRule
from messages.profiles.anthropic import claude_profile, no_prefill_families

__all__ = ["ALIASES", "FAMILIES", "PROFILE"]

ALIASES = ("bedrock_converse",)

_ROWS = {
    "tool-call-id": 45,
    "foreign-reasoning": 48,
    "thinking-order": 18,
    "final-thinking": 18,
    "empty-text": 43,
    "call-turn-text": 43,
    "empty-tool-result": 43,
    "tool-then-user": 44,
    "first-turn": 41,
    "prefill": 47,
}

PROFILE = claude_profile(
    "bedrock",
    tool_call_ids=IdRule(alphabet="a-zA-Z0-9_-", max_length=64),
    needs_assistant_after_tool_results=True,
    supports_assistant_prefill=False,
    rows=_ROWS,
)

_CLAUDE = PROFILE.with_family("claude", supports_assistant_prefill=True)

FAMILIES = {
    "claude": _CLAUDE,
    **no_prefill_families(_CLAUDE),
    **{
        family: PROFILE.with_family(
            family, tool_call_ids=IdRule(alphabet="a-zA-Z0-9", min_length=9, max_length=9)
        )
        for family in ("mistral", "mixtral", "pixtral")
    },
}
