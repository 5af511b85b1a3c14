"""Groq (``groq/...``).

Implements (provider-quirks.md rows):

* 37: only known message keys ("property 'reasoning_content' is unsupported", also ``id``, ``status``,
  ``metadata``...); ``name`` is kept on system and user messages, where Groq's schema has it;
* 38: system content as a string, not parts;
* 39, families ``llama-3.2-11b-vision`` and ``llama-3.2-90b-vision``: system messages are sent as user
  turns ("prompting with images is incompatible with system messages").

Left to litellm: 7 (images in tool results are moved to a user message by its OpenAI-shaped route), 25
(signatures cut off ids).
"""

from __future__ import annotations

from messages.profiles._profile import Profile

__all__ = ["FAMILIES", "PROFILE"]

PROFILE = Profile(
    provider="groq",
    needs_text_system_content=True,
    rows={"unknown-key": 37, "name": 37, "system-content": 38},
)

FAMILIES = {
    family: PROFILE.with_family(family, system_role="user", rows={**PROFILE.rows, "system-role": 39})
    for family in ("llama-3-2-11b-vision", "llama-3-2-90b-vision")
}
