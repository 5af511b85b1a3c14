"""The OpenAI-compatible default: vLLM, llama.cpp, LM Studio, and every provider with no profile of its own.

Such servers render the messages through the model's chat template, which is where most of their errors
come from (quirk 53); what they accept varies, so this profile sends the most widely accepted form.

Implements (quirks, ``messages quirks N``):

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

Parts (``DEFAULT_PARTS``): OpenAI's (quirk 85, 77, 72), the images, audio and files of tool results moved
to a user message by the tool-media rule.

Left to litellm: 25 (signatures cut off ids).
"""

from __future__ import annotations

from dataclasses import replace

from messages.profiles._parts import Accepts, system_as_user
from messages.profiles._profile import Profile
from messages.profiles._rule import Rule
from messages.profiles.mistral import MISTRAL_IDS
from messages.profiles.openai import OPENAI_MEDIA, OPENAI_PARTS
from messages.profiles.rules import (
    Alternation,
    CallTurnContent,
    EmptyArguments,
    ForeignPayloads,
    KnownKeys,
    Names,
    NullTurn,
    Refusal,
    SystemRole,
    ToolCallIds,
    ToolMedia,
    ToolText,
)

__all__ = ["ALIASES", "DEFAULT_PARTS", "FAMILIES", "PROFILE", "template_families", "template_rules"]

DEFAULT_PARTS = replace(
    OPENAI_PARTS,
    tool=Accepts(
        OPENAI_MEDIA,
        row=72,
        source="the images, audio and files of a tool result are moved to a user message (quirk 7)",
        via=dict.fromkeys(("image_url", "input_audio", "file", "file_id"), "tool-media"),
    ),
)
"""The parts of an OpenAI-compatible server that renders chat templates: OpenAI's, those of tool results
moved to a user message (``ToolMedia``)."""


def template_rules(keys_row: int) -> tuple[Rule, ...]:
    """The rules of an OpenAI-compatible server that renders chat templates (``keys_row``: the quirk of
    its strict keys: 33 for vLLM with Mistral's tokenizer, 60 for Together and Fireworks).

    Args:
        keys_row: the quirk row of the server's strict keys.

    Returns:
        The rules, in a tuple for ``Profile(rules=...)``.

    Raises nothing.
    """
    return (
        ForeignPayloads(),
        Refusal(),
        Names(kept_on=frozenset(), row=keys_row),
        KnownKeys(row=keys_row),
        EmptyArguments(),
        ToolCallIds(),
        SystemRole(to="system", row=9),
        CallTurnContent(value="empty_string", row=53),
        NullTurn(row=53),
        ToolText(row=54),
        ToolMedia(row=7),
        Alternation(row=53),
    )


def template_families(profile: Profile) -> dict[str, Profile]:
    """Model families whose templates have rules of their own: Mistral's ids, Gemma's missing system role.

    Args:
        profile: the provider's profile, which the families build on.

    Returns:
        The family profiles, by family name.

    Raises nothing.
    """
    families = {
        family: profile.with_family(family, ToolCallIds(ids=MISTRAL_IDS, row=30))
        for family in ("mistral", "mixtral", "codestral", "devstral", "ministral", "magistral", "pixtral")
    }
    families["gemma"] = profile.with_family(
        "gemma", SystemRole(to="user", row=27), parts=system_as_user(profile.parts)
    )
    families["gemma-4"] = profile.with_family("gemma-4")
    return families


PROFILE = Profile("openai_compatible", template_rules(33), is_default=True, parts=DEFAULT_PARTS)
"""The ``openai_compatible`` profile (vLLM, llama.cpp, LM Studio, unknown providers): its rules and parts."""

ALIASES = ("hosted_vllm", "lm_studio", "llamafile", "openai_like", "custom_openai")
"""Other litellm provider names this profile serves."""

FAMILIES = template_families(PROFILE)
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
