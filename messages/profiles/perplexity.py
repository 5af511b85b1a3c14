"""Perplexity (``perplexity/sonar...``): chat without tools, in strictly alternating turns.

Implements (provider-quirks.md rows):

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

__all__ = ["PROFILE"]

PROFILE = Profile(
    provider="perplexity",
    supports_tools=False,
    accepts_names_on=frozenset(),
    accepts_late_system=False,
    needs_alternation=True,
    needs_user_first=True,
    supports_assistant_prefill=False,
    empty_text="drop",
    rows={
        "tools-unsupported": 61,
        "consecutive-roles": 20,
        "first-turn": 20,
        "late-system": 57,
        "name": 57,
        "empty-text": 61,
        "prefill": 61,
    },
)
