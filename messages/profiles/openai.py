"""OpenAI (``openai/...``, and bare ``gpt-...``, ``o1-...`` names).

Implements (provider-quirks.md rows):

* 3: tool-call ids of at most 40 characters (ids minted by Gemini, by Portkey or for web search are longer);
* 4: each ``name`` rewritten to OpenAI's current pattern (no whitespace and none of ``<|\\/>``);
* 5: a refusal with no text is sent as the content too, and an assistant turn with neither text nor
  tool calls is sent with content ``""`` (OpenAI allows ``content: null`` only beside tool calls);
* 59: no ``name`` on assistant turns, and none on tool results (the SDK's types have none there);
* keys OpenAI does not know (the extension keys of ``messages.models``, litellm's extras) are dropped:
  litellm passes them through and OpenAI rejects additional properties (litellm-notes.md TL;DR 7);
* 8, family ``o1-mini`` and ``o1-preview``: system and developer messages are sent as user messages.

Left to litellm: 7 (its OpenAI route moves images out of tool results into a user message after them),
9 (it sends ``developer`` as ``system`` to models without a developer role), 25 (it cuts Gemini thought
signatures off ids; the id rule removes them first, so two ids never become one), 6 (arguments are
strings in every dump). Not fixable here: 11 (``FilePart`` itself requires a filename), 12.
Empty arguments are kept byte-exact (``empty_arguments_as_object=False``): OpenAI takes ``""``, and the
exact bytes matter for prompt caching.
"""

from __future__ import annotations

from messages.profiles._ids import IdRule
from messages.profiles._profile import Profile

__all__ = ["FAMILIES", "PROFILE", "openai_like"]


def openai_like(provider: str, **changes: object) -> Profile:
    """The OpenAI profile for another provider name that serves OpenAI's models the same way."""
    fields: dict[str, object] = {
        "provider": provider,
        "tool_call_ids": IdRule(max_length=40),
        "name_pattern": r"[^\s<|\\/>]",
        "accepts_refusal": True,
        "extra_keys": {"assistant": frozenset({"audio", "function_call"})},
        "empty_arguments_as_object": False,
        "needs_turn_content": True,
        "rows": {"tool-call-id": 3, "name": 4, "refusal": 5, "null-content": 5},
    }
    fields.update(changes)
    return Profile(**fields)  # type: ignore[arg-type]


PROFILE = openai_like("openai")

FAMILIES = {
    family: PROFILE.with_family(family, system_role="user", rows={**PROFILE.rows, "system-role": 8})
    for family in ("o1-mini", "o1-preview")
}
