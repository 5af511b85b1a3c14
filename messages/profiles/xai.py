"""xAI (``xai/grok-...``).

Implements (quirks, ``messages quirks N``):

* 85, 77 and 72 (the table of parts, OpenAI's): text in system messages, text and refusals in assistant
  turns, no video;
* 40: every message says something: a user or assistant turn with no text is dropped, a tool-call turn
  sends ``""`` (not ``null``), and an empty tool result says so.

Left to litellm: 7 from litellm 1.98 on (images in tool results moved by its OpenAI-shaped route; before
1.98, ``openai.TOOL_MEDIA`` moves them), 25 (signatures cut off ids), ``name`` on tool results (it drops
it).
"""

from __future__ import annotations

from messages.profiles._profile import Profile
from messages.profiles.openai import OPENAI_PARTS, TOOL_MEDIA
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
    "xai",
    (
        ForeignPayloads(),
        Refusal(),
        Names(
            kept_on=frozenset({"system", "developer", "user", "assistant", "tool"})
        ),  # litellm drops the tool's
        KnownKeys(),
        EmptyArguments(),
        ToolCallIds(),
        DropBlank(row=40),
        CallTurnContent(value="empty_string", row=40),
        BlankToolResults(row=40),
        *TOOL_MEDIA,
    ),
    parts=OPENAI_PARTS,
)
"""The ``xai`` profile: its rules and its table of parts, registered by ``messages.profiles``."""
