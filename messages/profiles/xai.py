"""xAI Grok (``xai/...``).

Implements (provider-quirks.md rows):

* 40: every message has a non-empty content element: a user or assistant turn with no text is dropped,
  an empty tool result says so, and a tool-call turn sends ``""`` (a missing content is rejected; litellm
  strips ``null``, so ``null`` would arrive as a missing key);
* only known keys are sent (xAI's API is OpenAI's schema); ``name`` is left as it is (litellm drops it from
  tool results, and nothing says xAI rejects it elsewhere).

Left to litellm: dropping ``name`` from tool results, 7 (images in tool results moved by its
OpenAI-shaped route), 25 (signatures cut off ids).
"""

from __future__ import annotations

from messages.profiles._profile import Profile

__all__ = ["PROFILE"]

PROFILE = Profile(
    provider="xai",
    accepts_names_on=frozenset(
        {"system", "developer", "user", "assistant", "tool"}
    ),  # litellm drops the tool's
    empty_text="drop",
    call_turn_content="empty_string",
    fills_empty_tool_results=True,
    rows={"empty-text": 40, "call-turn-text": 40, "empty-tool-result": 40},
)
