"""Google Vertex AI (``vertex_ai/...``, and bare ``gemini-...`` names, which litellm sends here).

Vertex AI serves Gemini, Gemma, Claude and Mistral's models, each through litellm's converter for that
family.

Implements (provider-quirks.md rows): the Gemini rules (23, 24, 25, 27, 58; see ``gemini``) for the
provider and its ``gemini`` and ``gemma`` families, and the Claude rules (13, 15, 17, 18, 19, 58; see
``anthropic``) for ``claude``, and the Mistral rules (7, 30, 31, 32, 33; see ``mistral``) for ``mistral``,
``codestral`` and ``ministral`` (tool-call ids of exactly 9 letters or digits: the Gemini rules would keep
any id). Thought signatures stay in ids only for Gemini models: litellm cuts them for every model without
"gemini" in its name (row 25).

Left to litellm: what the Gemini and Anthropic profiles leave to it; for Claude on Vertex also the
base64 conversion of image URLs.
"""

from __future__ import annotations

from dataclasses import replace

from messages.profiles import mistral
from messages.profiles._ids import IdRule
from messages.profiles.anthropic import claude_profile, no_prefill_families
from messages.profiles.gemini import gemini_profile, gemma_families

__all__ = ["ALIASES", "FAMILIES", "PROFILE"]

ALIASES = ("vertex_ai_beta",)

PROFILE = gemini_profile("vertex_ai", tool_call_ids=IdRule())

_GEMINI = PROFILE.with_family("gemini", tool_call_ids=IdRule(keeps_signatures=True))
_CLAUDE = claude_profile("vertex_ai", family="claude")

FAMILIES = {
    "gemini": _GEMINI,
    **gemma_families(PROFILE),
    "claude": _CLAUDE,
    **no_prefill_families(_CLAUDE),
    **{
        family: replace(mistral.PROFILE, provider="vertex_ai", family=family)
        for family in ("mistral", "codestral", "ministral")
    },
}
