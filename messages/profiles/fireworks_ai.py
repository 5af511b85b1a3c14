"""Fireworks AI (``fireworks_ai/accounts/fireworks/models/...``): open-weight models, OpenAI-compatible API.

No message-list error specific to Fireworks is documented (row 60); its models are rendered through their
chat templates.

Implements (provider-quirks.md rows): the template rules of the OpenAI-compatible default (7, 9, 27, 30,
33, 53, 54; see ``default``), and row 60: its API rejects fields it does not know.

File parts are reported: litellm's Fireworks route refuses them before sending.

Left to litellm: dropping ``thinking_blocks``, 25 (signatures cut off ids).
"""

from __future__ import annotations

from messages.profiles.default import template_families, template_profile

__all__ = ["FAMILIES", "PROFILE"]

PROFILE = template_profile(
    "fireworks_ai",
    # litellm refuses file parts for Fireworks before sending ("convert pages to images")
    accepts_parts=frozenset({"text", "image_url", "input_audio"}),
    rows={
        "unknown-key": 60,
        "name": 60,
        "system-role": 9,
        "consecutive-roles": 53,
        "call-turn-text": 53,
        "null-content": 53,
        "tool-content": 54,
        "tool-media": 7,
    },
)

FAMILIES = template_families(PROFILE)
