"""Vertex AI (``vertex_ai/...``): Gemini, Gemma, Claude and Mistral models, each with its own rules.

Implements (quirks, ``messages quirks N``): the Gemini rules (7, 23, 24, 25, 27 for Gemma, 58) for the
provider and its ``gemini`` family, with one difference for models that are not Gemini: ids carry no
thought signature (litellm cuts it off for them); the Claude rules (13, 15, 17, 18, 19, 58, 66) for the
``claude`` families; Mistral's (30, 31, 32, 33, 7, 67) for ``mistral``, ``codestral`` and ``ministral``.

Left to litellm: as for each model's own provider.
"""

from __future__ import annotations

from messages.profiles._ids import IdRule
from messages.profiles._profile import Profile
from messages.profiles.anthropic import CLAUDE_RULES, no_prefill_families
from messages.profiles.gemini import GEMINI_RULES, gemma_families
from messages.profiles.mistral import MISTRAL_RULES
from messages.profiles.rules import ToolCallIds

__all__ = ["ALIASES", "FAMILIES", "PROFILE"]

ALIASES = ("vertex_ai_beta",)

PROFILE = Profile("vertex_ai", GEMINI_RULES).with_rules(ToolCallIds(ids=IdRule()))

_CLAUDE = Profile("vertex_ai", CLAUDE_RULES, family="claude")

FAMILIES = {
    "gemini": Profile("vertex_ai", GEMINI_RULES, family="gemini"),
    **gemma_families(PROFILE),
    "claude": _CLAUDE,
    **no_prefill_families(_CLAUDE),
    **{
        family: Profile("vertex_ai", MISTRAL_RULES, family=family)
        for family in ("mistral", "codestral", "ministral")
    },
}
