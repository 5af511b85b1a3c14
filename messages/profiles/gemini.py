"""Google Gemini API (``gemini/...``); the Gemini rules are shared with Vertex AI.

litellm builds the ``generateContent`` request from the OpenAI-shape list (system hoisted into
``system_instruction``, results matched to calls by name), so unknown keys and ``name`` never reach Gemini.

Implements (provider-quirks.md rows):

* 23: no empty text part: an empty user or assistant text is sent as ``" "`` (litellm sends
  ``{"text": ""}``, rejected), a tool-call turn sends no text (and none of its empty text parts, when its
  parts say something), an empty system message is dropped;
* 24: the first turn after the system messages is a user turn ("function call turn comes immediately
  after a user turn or after a function response turn"); a turn that calls one tool twice with equal
  arguments is split into one turn per repeat, each followed by its results (litellm sends the repeats
  as one ``functionCall`` part but every ``functionResponse``, so the counts would not match);
* 25: Gemini thought signatures (in ``provider_specific_fields`` and in litellm's ``__thought__`` ids) go
  back to Gemini only; ids keep them;
* 27, family ``gemma`` (not ``gemma-4``): no system instruction, so system messages are sent as user turns;
* 58: arguments ``""`` sent as ``"{}"``; arguments that are not JSON are reported.

Left to litellm: 19 and 26 (system-only requests), 24 (grouping the results of parallel calls), 25 (a
dummy signature for calls made by another provider), 28 (``functionResponse`` shape, names), 20 (merging
consecutive turns), 7 (images in tool results are nested in ``functionResponse.parts``).
"""

from __future__ import annotations

from collections.abc import Mapping

from messages.profiles._ids import IdRule
from messages.profiles._profile import Profile

__all__ = ["FAMILIES", "GEMINI_RULES", "PROFILE", "gemini_profile", "gemma_families"]

_ALL_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})

GEMINI_RULES: Mapping[str, object] = {
    "rejects_unknown_keys": False,
    "accepts_names_on": _ALL_ROLES,  # litellm's converter drops them
    "tool_call_ids": IdRule(keeps_signatures=True),
    "accepts_provider_fields": True,
    "decodes_arguments": True,
    "empty_text": "space",
    "call_turn_content": "null",
    "needs_user_first": True,
    "splits_identical_calls": True,
    "rows": {
        "empty-text": 23,
        "call-turn-text": 23,
        "first-turn": 24,
        "identical-calls": 24,
        "foreign-reasoning": 25,
    },
}
"""The fields every Gemini profile shares."""


def gemini_profile(provider: str, **changes: object) -> Profile:
    """A profile for Gemini models served by ``provider``."""
    fields = dict(GEMINI_RULES)
    fields.update(changes)
    return Profile(provider=provider, **fields)  # type: ignore[arg-type]


def gemma_families(profile: Profile) -> dict[str, Profile]:
    """Gemma on the Gemini API: no system instruction before Gemma 4 (row 27)."""
    no_system = {"system_role": "user", "rows": {**profile.rows, "system-role": 27}}
    return {
        "gemma": profile.with_family("gemma", **no_system),
        "gemini-gemma": profile.with_family("gemini-gemma", **no_system),
        "gemma-4": profile.with_family("gemma-4"),
    }


PROFILE = gemini_profile("gemini")

FAMILIES = gemma_families(PROFILE)
