"""Cohere (``cohere/...``: litellm's default route, the v2 chat API, which takes OpenAI-shaped messages).

Implements (provider-quirks.md rows):

* 55: no ``name`` on any message, only known keys (the compatibility API answers 422 to what it does not
  know); no empty turn ("message must be at least 1 token long or tool results must be specified"): a user
  or assistant turn with no text is dropped, a tool-call turn sends no text, and an empty tool result
  says so.

Left to litellm: 7 (images in tool results moved by its OpenAI-shaped route), 25 (signatures cut off
ids). Not covered: the v1 route (``cohere_chat/...``), which sends only the last user message
(litellm-notes.md section 2): it gets the OpenAI-compatible default, and should be avoided.
"""

from __future__ import annotations

from messages.profiles._profile import Profile

__all__ = ["PROFILE"]

PROFILE = Profile(
    provider="cohere",
    accepts_names_on=frozenset(),
    empty_text="drop",
    call_turn_content="null",
    fills_empty_tool_results=True,
    rows={"name": 55, "unknown-key": 55, "empty-text": 55, "call-turn-text": 55, "empty-tool-result": 55},
)
