"""Cohere (``cohere/...``: litellm's default route, the v2 chat API, which takes OpenAI-shaped messages).

Implements (quirks, ``messages quirks N``):

* 55: no ``name`` on any message, only known keys (the compatibility API answers 422 to what it does not
  know); no empty turn ("message must be at least 1 token long or tool results must be specified"): a user
  or assistant turn with no text (whitespace only counts as none: litellm sends it as it is) is dropped, a
  tool-call turn sends no blank text, and an empty tool result says so.

Left to litellm: 7 (images in tool results moved by its OpenAI-shaped route), 25 (signatures cut off
ids). Not covered: the v1 route (``cohere_chat/...``), which sends only the last user message: it gets
the OpenAI-compatible default, and should be avoided.
"""

from __future__ import annotations

from messages.profiles._profile import Profile
from messages.profiles.rules import (
    BlankToolResults,
    CallTurnContent,
    DropBlank,
    EmptyArguments,
    ForeignPayloads,
    KnownKeys,
    Names,
    Refusal,
    ToolCallIds,
)

__all__ = ["PROFILE"]

PROFILE = Profile(
    "cohere",
    (
        ForeignPayloads(),
        Refusal(),
        Names(kept_on=frozenset(), row=55),
        KnownKeys(row=55),
        EmptyArguments(),
        ToolCallIds(),
        # Whitespace says nothing either: litellm sends it as it is (issue 13).
        DropBlank(whitespace=True, row=55),
        CallTurnContent(value="null", whitespace=True, row=55),
        BlankToolResults(row=55),
    ),
)
