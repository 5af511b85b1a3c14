"""Perplexity (``perplexity/sonar...``): chat without tools, in strictly alternating turns.

Implements (quirks, ``messages quirks N``):

* 85, 77 and 72 (the table of parts, OpenAI's; a tool result's parts reach the user turn it becomes):
  text in system messages, text and refusals in assistant turns, no video;
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

from dataclasses import replace

from messages.profiles._parts import Accepts
from messages.profiles._profile import Profile
from messages.profiles.openai import OPENAI_MEDIA, OPENAI_PARTS
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

PARTS = replace(
    OPENAI_PARTS,
    tool=Accepts(
        OPENAI_MEDIA,
        row=72,
        source="a tool result becomes a user turn that carries its parts (quirk 61)",
        via=dict.fromkeys(("image_url", "input_audio", "file", "file_id"), "tools-unsupported"),
    ),
)
"""OpenAI's parts; those of a tool result reach the model in the user turn it becomes."""

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
    parts=PARTS,
)
"""The ``perplexity`` profile: its rules and its table of parts, registered by ``messages.profiles``."""
