"""Mistral La Plateforme (``mistral/...``, and bare ``mistral-...``, ``codestral-...`` names).

Mistral's API validates messages strictly, and litellm's Mistral route changes its behaviour when an image
is present (it then skips dropping ``name``, empty messages and ``None`` values, litellm-notes.md TL;DR 6),
so the profile does not rely on it.

Implements (provider-quirks.md rows):

* 30: tool-call ids of exactly 9 letters or digits, the same new id on the call and its result;
* 31: an assistant turn between tool results and a following user or system message ("Unexpected role
  'user' after role 'tool'"); a final assistant text is marked ``prefix: true``; an empty tool result says
  so (litellm drops a tool message whose content is ``""``, leaving "Not the same number of function calls
  and responses"); a conversation ending on a system message gets a user turn after it ("Expected last
  role User or Tool"); images in tool results are moved to a user message here, before the bridge is placed
  (row 7: litellm would put that user message right after the results);
* 32: no empty assistant turn, and no text beside tool calls that is empty;
* 33: only known keys, and ``name`` only on tool results ("Extra inputs are not permitted").

Audio parts are reported (not fixable): litellm's route flattens the content of a conversation without
images or files to text, and drops them.

Left to litellm: stripping ``reasoning_content`` and ``thinking_blocks`` (the key list drops them too),
flattening text-only content lists, rebuilding tool calls without their provider fields.
"""

from __future__ import annotations

from messages.profiles._ids import IdRule
from messages.profiles._profile import Profile

__all__ = ["MISTRAL_IDS", "PROFILE"]

MISTRAL_IDS = IdRule(alphabet="a-zA-Z0-9", min_length=9, max_length=9)
"""Mistral's tool-call ids: exactly 9 letters or digits (row 30)."""

PROFILE = Profile(
    provider="mistral",
    tool_call_ids=MISTRAL_IDS,
    accepts_names_on=frozenset({"tool"}),
    empty_text="drop",
    call_turn_content="null",
    fills_empty_tool_results=True,
    moves_tool_media=True,
    needs_assistant_after_tool_results=True,
    prefill_needs_prefix=True,
    accepts_system_last=False,
    # litellm's route flattens a conversation without images or files to text, dropping audio parts
    accepts_parts=frozenset({"text", "image_url", "file"}),
    rows={
        "tool-call-id": 30,
        "tool-then-user": 31,
        "prefix": 31,
        "system-last": 31,
        "empty-tool-result": 31,
        "tool-media": 7,
        "empty-text": 32,
        "call-turn-text": 32,
        "unknown-key": 33,
        "name": 33,
    },
)
