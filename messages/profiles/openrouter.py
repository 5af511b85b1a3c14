"""OpenRouter (``openrouter/<vendor>/<model>``): OpenAI's shape, passed on to the model's own provider.

Every rule of the provider behind OpenRouter still applies, and its errors come back as "Provider returned
error" (quirk 56).

Implements (quirks, ``messages quirks N``):

* 85, 77 and 72 (the table of parts, OpenAI's): text in system messages, text and refusals in assistant
  turns, no video;
* 56 with 3 and 17: tool-call ids of ``[a-zA-Z0-9_-]``, at most 40 characters, which both OpenAI and
  Anthropic behind OpenRouter accept; family ``mistral`` (``mistralai/...``): exactly 9 letters or digits
  (quirk 30);
* 25, family ``gemini``: ids keep litellm's thought signatures, which litellm does not cut for Gemini
  models;
* 17, family ``claude``: ids unique in the request ("tool_use ids must be unique"); ``cache_control``
  kept (litellm sends it on, as text parts, and OpenRouter passes it to Anthropic), at most 4 (quirk 22);
* 15, families ``claude-{opus,sonnet,haiku}-4-6`` and later: a user turn after a final assistant text;
* 4, family ``openai`` (``openai/gpt-4o``...): a ``name`` outside OpenAI's pattern (spaces, ``<|\\/>``) gets
  ``_`` for each such character, as on OpenAI itself;
* 8, families ``o1-mini`` and ``o1-preview`` (``openai/o1-mini``): system and developer messages are sent
  as user messages;
* 56: a reply's ``reasoning_details`` (kept by litellm in ``provider_specific_fields``, and by the
  Agent Framework converters there too) go back as the assistant turn's own ``reasoning_details``, which
  OpenRouter reads (Gemini and Claude tool loops want them), when the turn came from OpenRouter or from
  no known provider;
* only known keys are sent.

Left to litellm: 7 from litellm 1.98 on (images in tool results moved by its OpenAI-shaped route; before
1.98, ``openai.TOOL_MEDIA`` moves them), and the key ``reasoning_details`` itself, which its OpenRouter
route passes on as it is.
"""

from __future__ import annotations

from messages.profiles._ids import IdRule
from messages.profiles._profile import Profile
from messages.profiles.anthropic import no_prefill_families
from messages.profiles.mistral import MISTRAL_IDS
from messages.profiles.openai import OPENAI_NAME_CHARACTER, OPENAI_PARTS, TOOL_MEDIA, o1_families
from messages.profiles.rules import (
    CLAUDE_CACHE_LIMIT,
    CacheBreakpoints,
    CacheMarks,
    EmptyArguments,
    ForeignPayloads,
    KnownKeys,
    Names,
    ReasoningDetails,
    Refusal,
    ToolCallIds,
)

__all__ = ["FAMILIES", "PROFILE"]

_IDS = IdRule(alphabet="a-zA-Z0-9_-", max_length=40)

PROFILE = Profile(
    "openrouter",
    (
        ReasoningDetails(),
        ForeignPayloads(),
        Refusal(),
        Names(),
        KnownKeys(),
        EmptyArguments(),
        ToolCallIds(ids=_IDS, row=56),
        *TOOL_MEDIA,
    ),
    parts=OPENAI_PARTS,
)
"""The ``openrouter`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

_CLAUDE = PROFILE.with_family(
    "claude",
    ToolCallIds(ids=_IDS, unique=True, row=17),
    CacheMarks(keep=True, needs_text=True),
    CacheBreakpoints(limit=CLAUDE_CACHE_LIMIT, row=22),
)

# OpenRouter passes `name` on to OpenAI, which rejects one outside its pattern (quirk 4): "openai/..." models.
_OPENAI = PROFILE.with_family("openai", Names(pattern=OPENAI_NAME_CHARACTER, row=4))

FAMILIES = {
    "claude": _CLAUDE,
    **no_prefill_families(_CLAUDE),
    "mistral": PROFILE.with_family("mistral", ToolCallIds(ids=MISTRAL_IDS, row=30)),
    "gemini": PROFILE.with_family("gemini", ToolCallIds(ids=IdRule(keeps_signatures=True), row=25)),
    "openai": _OPENAI,
    **o1_families(_OPENAI),
}
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
