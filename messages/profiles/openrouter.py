"""OpenRouter (``openrouter/<vendor>/<model>``): OpenAI's shape, passed on to the model's own provider.

Every rule of the provider behind OpenRouter still applies, and its errors come back as "Provider returned
error" (row 56).

Implements (provider-quirks.md rows):

* 56 with 3 and 17: tool-call ids of ``[a-zA-Z0-9_-]``, at most 40 characters, which both OpenAI and
  Anthropic behind OpenRouter accept; family ``mistral`` (``mistralai/...``): exactly 9 letters or digits
  (row 30); family ``gemini``: ids keep litellm's thought signatures, which litellm does not cut for
  Gemini models;
* 15, families ``claude-{opus,sonnet,haiku}-4-6`` and later: a user turn after a final assistant text;
* 8, families ``o1-mini`` and ``o1-preview`` (``openai/o1-mini``): system and developer messages are sent
  as user messages;
* only known keys are sent.

Left to litellm: 7 (images in tool results moved by its OpenAI-shaped route). Not handled: echoing
``reasoning_details`` for Gemini and Anthropic tool loops (row 56): messages keep no such field yet.
"""

from __future__ import annotations

from messages.profiles._ids import IdRule
from messages.profiles._profile import Profile
from messages.profiles.anthropic import no_prefill_families
from messages.profiles.mistral import MISTRAL_IDS

__all__ = ["FAMILIES", "PROFILE"]

PROFILE = Profile(
    provider="openrouter",
    tool_call_ids=IdRule(alphabet="a-zA-Z0-9_-", max_length=40),
    rows={"tool-call-id": 56},
)

FAMILIES = {
    **no_prefill_families(PROFILE),
    "mistral": PROFILE.with_family("mistral", tool_call_ids=MISTRAL_IDS, rows={"tool-call-id": 30}),
    "gemini": PROFILE.with_family("gemini", tool_call_ids=IdRule(keeps_signatures=True)),
    **{
        family: PROFILE.with_family(family, system_role="user", rows={**PROFILE.rows, "system-role": 8})
        for family in ("o1-mini", "o1-preview")
    },
}
