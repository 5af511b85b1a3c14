"""Fireworks AI (``fireworks_ai/...``): open-weight models behind chat templates.

Implements (quirks, ``messages quirks N``):

* 69, 85, 77 and 72 (the table of parts): the default's, without file parts (litellm refuses them);
* 9, 53, 54 and 7: the OpenAI-compatible default's rules (``messages.profiles.default``), with the Mistral
  (quirk 30) and Gemma (quirk 27) families;
* 60: only known keys, and no ``name``;
* 69: ``file`` parts are reported (not fixable): litellm refuses them for Fireworks before sending ("convert
  pages to images").

Left to litellm: 25 (signatures cut off ids).
"""

from __future__ import annotations

from dataclasses import replace

from messages.profiles._parts import Accepts
from messages.profiles._profile import Profile
from messages.profiles.default import DEFAULT_PARTS, template_families, template_rules

__all__ = ["FAMILIES", "PROFILE"]

_NO_FILES = frozenset({"text", "image_url", "input_audio"})

PARTS = replace(
    DEFAULT_PARTS,
    user=Accepts(_NO_FILES, row=69, source="litellm's Fireworks route refuses a file part (quirk 69)"),
    tool=Accepts(
        _NO_FILES, row=69, source="moved to a user message (the tool-media rule), as a user's parts"
    ),
)
"""The parts of an OpenAI-compatible server, without files (quirk 69)."""

PROFILE = Profile("fireworks_ai", template_rules(60), parts=PARTS)
"""The ``fireworks_ai`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

FAMILIES = template_families(PROFILE)
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
