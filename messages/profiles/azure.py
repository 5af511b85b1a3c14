"""Azure OpenAI (``azure/...``, and ``azure_ai/...``): OpenAI's rules, with Azure's own.

Implements (quirks, ``messages quirks N``):

* 10, 85, 77 and 72 (the table of parts): OpenAI's, without file parts (Azure's Chat Completions take
  none); text in system messages, text and refusals in assistant turns, no video;
* 3, 4, 5 and 59: as for OpenAI (ids, names, refusals and empty turns, no names on assistant turns);
* 8, family ``o1-mini`` and ``o1-preview``: system and developer messages are sent as user messages;
* 9: ``developer`` sent as ``system`` (older api-versions and o1-mini deployments reject it);
* 10: ``file`` parts are reported (Azure's Chat Completions has none; not fixable).

Left to litellm: as for OpenAI.
"""

from __future__ import annotations

from dataclasses import replace

from messages.profiles._parts import Accepts
from messages.profiles._profile import Profile
from messages.profiles.openai import OPENAI_PARTS, OPENAI_RULES, o1_families
from messages.profiles.rules import SystemRole

__all__ = ["ALIASES", "FAMILIES", "PROFILE"]

ALIASES = ("azure_ai",)
"""Other litellm provider names this profile serves."""

_NO_FILES = frozenset({"text", "image_url", "input_audio"})

PARTS = replace(
    OPENAI_PARTS,
    user=Accepts(_NO_FILES, row=10, source="Azure OpenAI's Chat Completions take no file parts (quirk 10)"),
    tool=Accepts(
        _NO_FILES, row=10, source="the results' parts reach a user message (litellm), as for OpenAI"
    ),
)
"""OpenAI's parts, without files (quirk 10)."""

PROFILE = Profile("azure", OPENAI_RULES, parts=PARTS).with_rules(SystemRole(to="system", row=9))
"""The ``azure`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

FAMILIES = o1_families(PROFILE)
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
