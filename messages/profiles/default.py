"""The OpenAI-compatible default: vLLM, llama.cpp, LM Studio, and every provider with no profile of its own.

Such servers render the messages through the model's chat template, which is where most of their errors
come from (row 53); what they accept varies, so this profile sends the most widely accepted form.

Implements (provider-quirks.md rows):

* 9: ``developer`` sent as ``system``;
* 33 and 53: only the OpenAI core keys, no ``name`` (vLLM with Mistral's tokenizer: "Extra inputs are not
  permitted");
* 53: user and assistant turns alternate (templates raise "Conversation roles must alternate"); a
  tool-call turn sends ``""``, as does an assistant turn with neither text nor calls (llama.cpp and LM
  Studio reject ``null``, and a missing content breaks templates that concatenate it); arguments ``""``
  sent as ``"{}"`` (vLLM ``json.loads`` them);
* 54: tool results as one string (``--chat-template-content-format`` may garble parts);
* 7: images in tool results moved to a user message (then merged with the user turn that follows);
* 30, family ``mistral`` and its relatives: tool-call ids of exactly 9 letters or digits (Mistral's
  tokenizer and templates);
* 27, family ``gemma`` (not ``gemma-4``): system messages sent as user turns.

Left to litellm: 25 (signatures cut off ids).
"""

from __future__ import annotations

from messages.profiles._profile import Profile
from messages.profiles.mistral import MISTRAL_IDS

__all__ = ["FAMILIES", "PROFILE", "template_families", "template_profile"]


def template_profile(provider: str, **changes: object) -> Profile:
    """The profile of an OpenAI-compatible server that renders chat templates, named ``provider``."""
    fields: dict[str, object] = {
        "provider": provider,
        "accepts_names_on": frozenset(),
        "system_role": "system",
        "call_turn_content": "empty_string",
        "needs_turn_content": True,
        "needs_alternation": True,
        "moves_tool_media": True,
        "needs_text_tool_content": True,
        "rows": {
            "unknown-key": 33,
            "name": 33,
            "system-role": 9,
            "consecutive-roles": 53,
            "call-turn-text": 53,
            "null-content": 53,
            "tool-content": 54,
            "tool-media": 7,
        },
    }
    fields.update(changes)
    return Profile(**fields)  # type: ignore[arg-type]


def template_families(profile: Profile) -> dict[str, Profile]:
    """Model families whose templates have rules of their own: Mistral's ids, Gemma's missing system role."""
    mistral_rows = {**profile.rows, "tool-call-id": 30}
    families = {
        family: profile.with_family(family, tool_call_ids=MISTRAL_IDS, rows=mistral_rows)
        for family in ("mistral", "mixtral", "codestral", "devstral", "ministral", "magistral", "pixtral")
    }
    families["gemma"] = profile.with_family(
        "gemma", system_role="user", rows={**profile.rows, "system-role": 27}
    )
    families["gemma-4"] = profile.with_family("gemma-4")
    return families


PROFILE = template_profile("openai_compatible", is_default=True)

ALIASES = ("hosted_vllm", "lm_studio", "llamafile", "openai_like", "custom_openai")

FAMILIES = template_families(PROFILE)
