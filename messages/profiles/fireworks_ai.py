"""Fireworks AI (``fireworks_ai/...``): open-weight models behind chat templates.

Implements (quirks, ``messages quirks N``):

* 9, 53, 54 and 7: the OpenAI-compatible default's rules (``messages.profiles.default``), with the Mistral
  (quirk 30) and Gemma (quirk 27) families;
* 60: only known keys, and no ``name``;
* 69: ``file`` parts are reported (not fixable): litellm refuses them for Fireworks before sending ("convert
  pages to images").

Left to litellm: 25 (signatures cut off ids).
"""

from __future__ import annotations

from messages.profiles._profile import Profile
from messages.profiles.default import template_families, template_rules
from messages.profiles.rules import UnsupportedParts

__all__ = ["FAMILIES", "PROFILE"]

PROFILE = Profile(
    "fireworks_ai",
    (*template_rules(60), UnsupportedParts(accepts=frozenset({"text", "image_url", "input_audio"}), row=69)),
)

FAMILIES = template_families(PROFILE)
