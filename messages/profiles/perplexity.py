"""Perplexity (``perplexity/sonar...``): chat without tools, in strictly alternating turns.

Implements (quirks, ``messages quirks N``):

* 61: no tool calls or results in the history: each call becomes a line of its assistant turn and each
  result a user turn saying which call it answers, with the result unchanged (nothing is dropped);
* 20: after the system messages, user and assistant turns alternate, starting with a user turn:
  consecutive turns are merged, and a user turn is added first if needed;
* 57: system messages only before the first turn (later ones are sent as user turns, then merged);
  no ``name``;
* 61 (every message needs content): a turn with no text is dropped; a conversation ending on an assistant
  text gets a user turn.

Left to litellm: nothing else; its Perplexity route passes the messages through.
"""

from __future__ import annotations

from messages.profiles._profile import Profile
from messages.profiles.rules import (
    Alternation,
    DropBlank,
    ForeignPayloads,
    KnownKeys,
    LateSystem,
    Names,
    NoPrefill,
    Refusal,
    ToolsAsText,
    UserFirst,
)

__all__ = ["PROFILE"]

PROFILE = Profile(
    "perplexity",
    (
        ToolsAsText(row=61),
        ForeignPayloads(),
        Refusal(),
        Names(kept_on=frozenset(), row=57),
        KnownKeys(),
        DropBlank(row=61),
        LateSystem(row=57),
        Alternation(row=20),
        UserFirst(row=20),
        NoPrefill(row=61),
    ),
)
