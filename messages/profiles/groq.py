"""Groq (``groq/...``).

Implements (quirks, ``messages quirks N``):

* 85, 77 and 72 (the table of parts, OpenAI's): text in system messages, text and refusals in assistant
  turns, no video;
* 37: only known message keys ("property 'reasoning_content' is unsupported", also ``id``, ``status``,
  ``metadata``...); ``name`` is kept on system and user messages, where Groq's schema has it;
* 38: system content as a string, not parts;
* 39, families ``llama-3.2-11b-vision`` and ``llama-3.2-90b-vision``: system messages are sent as user
  turns ("prompting with images is incompatible with system messages").

Left to litellm: 7 from litellm 1.98 on (images in tool results moved to a user message by its
OpenAI-shaped route; before 1.98, ``openai.TOOL_MEDIA`` moves them), 25 (signatures cut off ids).
"""

from __future__ import annotations

from messages.profiles._parts import system_as_user
from messages.profiles._profile import Profile
from messages.profiles.openai import OPENAI_PARTS, TOOL_MEDIA
from messages.profiles.rules import (
    EmptyArguments,
    ForeignPayloads,
    KnownKeys,
    Names,
    Refusal,
    SystemRole,
    SystemText,
    ToolCallIds,
)

__all__ = ["FAMILIES", "PROFILE"]

PROFILE = Profile(
    "groq",
    (
        ForeignPayloads(),
        Refusal(),
        Names(row=37),
        KnownKeys(row=37),
        EmptyArguments(),
        ToolCallIds(),
        SystemText(row=38),
        *TOOL_MEDIA,
    ),
    parts=OPENAI_PARTS,
)
"""The ``groq`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

FAMILIES = {
    family: PROFILE.with_family(family, SystemRole(to="user", row=39), parts=system_as_user(OPENAI_PARTS))
    for family in ("llama-3-2-11b-vision", "llama-3-2-90b-vision")
}
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
