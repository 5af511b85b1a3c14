"""Together AI (``together_ai/...``): open-weight models behind chat templates.

Implements (quirks, ``messages quirks N``):

* 85, 77 and 72 (the table of parts, the default's): text in system messages, text and refusals in
  assistant turns, no video;
* 9, 53, 54 and 7: the OpenAI-compatible default's rules (``messages.profiles.default``), with the Mistral
  (quirk 30) and Gemma (quirk 27) families;
* 60: only known keys, and no ``name`` (no message-list error of its own was found; it serves chat
  templates and rejects unknown request fields).

Left to litellm: 25 (signatures cut off ids).
"""

from __future__ import annotations

from messages.profiles._profile import Profile
from messages.profiles.default import DEFAULT_PARTS, template_families, template_rules

__all__ = ["FAMILIES", "PROFILE"]

PROFILE = Profile("together_ai", template_rules(60), parts=DEFAULT_PARTS)
"""The ``together_ai`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

FAMILIES = template_families(PROFILE)
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
