"""Vertex AI (``vertex_ai/...``): Gemini, Gemma, Claude and Mistral models, each with its own rules.

Implements (quirks, ``messages quirks N``): the Gemini rules (7, 23, 24, 25, 27 for Gemma, 58) for the
provider and its ``gemini`` family, with one difference for models that are not Gemini: ids carry no
thought signature (litellm cuts it off for them); the Claude rules (13, 15, 17, 18, 19, 58, 66) for the
``claude`` families; Mistral's (30, 31, 32, 33, 7, 67) for ``mistral``, ``codestral`` and ``ministral``;
the OpenAI-compatible default's (9, 33, 53, 54, 7) for the partner models litellm sends through its
OpenAI-shaped handler (Llama as ``meta/...``, ``deepseek-ai/...``, ``qwen/...``, ``openai/gpt-oss-...``,
``minimaxai/...``, ``moonshotai/...``, ``zai-org/...``, ``google/gemma-...`` from litellm 1.89; model
garden ``xai/...`` from litellm 1.84; AI21's ``jamba``).
Each has the table of parts of its rules (85, 77, 72, 66, 67: ``GEMINI_PARTS``, ``CLAUDE_PARTS``,
``MISTRAL_PARTS``, the default's).

Left to litellm: as for each model's own provider.
"""

from __future__ import annotations

from messages._litellm import VERTEX_GEMMA_MAAS_OPENAI_LIKE, VERTEX_XAI_OPENAI_LIKE
from messages.profiles._ids import IdRule
from messages.profiles._profile import Profile
from messages.profiles.anthropic import (
    CLAUDE_PARTS,
    CLAUDE_RULES,
    HOISTS_SYSTEM,
    litellm_converter,
    no_prefill_families,
)
from messages.profiles.default import DEFAULT_PARTS, template_rules
from messages.profiles.gemini import GEMINI_PARTS, GEMINI_RULES, gemma_families
from messages.profiles.mistral import MISTRAL_PARTS, MISTRAL_RULES
from messages.profiles.rules import ToolCallIds

__all__ = ["ALIASES", "FAMILIES", "OPENAI_LIKE_PARTNERS", "PROFILE"]

ALIASES = ("vertex_ai_beta",)
"""Other litellm provider names this profile serves."""

OPENAI_LIKE_PARTNERS = (
    "meta",
    "deepseek-ai",
    "qwen",
    "openai",
    "minimaxai",
    "moonshotai",
    "zai-org",
    *(("google/gemma",) if VERTEX_GEMMA_MAAS_OPENAI_LIKE.holds() else ()),
    *(("xai",) if VERTEX_XAI_OPENAI_LIKE.holds() else ()),
    "jamba",
)
"""The partner models the installed litellm sends through an OpenAI-shaped handler on Vertex AI (its
``VertexAIPartnerModels.should_use_openai_handler``, the model garden, AI21's Jamba), as family keys.
``google/gemma-...`` (the MaaS models) from litellm 1.89 and ``xai/...`` from 1.84: earlier releases send
them through their Gemini transformation, and they get the Gemini rules (Gemma's for ``google/gemma``)
(litellm compatibility flag ``VERTEX_GEMMA_MAAS_OPENAI_LIKE``, ``VERTEX_XAI_OPENAI_LIKE``)."""

PROFILE = Profile("vertex_ai", GEMINI_RULES, parts=GEMINI_PARTS).with_rules(ToolCallIds(ids=IdRule()))
"""The ``vertex_ai`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

_CLAUDE = litellm_converter(Profile("vertex_ai", CLAUDE_RULES, family="claude", parts=CLAUDE_PARTS))

FAMILIES = {
    "gemini": Profile("vertex_ai", GEMINI_RULES, family="gemini", parts=GEMINI_PARTS),
    **gemma_families(PROFILE),
    "claude": _CLAUDE,
    **no_prefill_families(_CLAUDE, hoisted=HOISTS_SYSTEM),
    **{
        family: Profile("vertex_ai", MISTRAL_RULES, family=family, parts=MISTRAL_PARTS)
        for family in ("mistral", "codestral", "ministral")
    },
    **{
        family: Profile("vertex_ai", template_rules(33), family=family, parts=DEFAULT_PARTS)
        for family in OPENAI_LIKE_PARTNERS
    },
}
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
