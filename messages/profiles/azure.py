"""Azure OpenAI (``azure/<deployment>``), and Azure AI Foundry's OpenAI-compatible inference endpoint
(``azure_ai/<model>``), which serves OpenAI's models (o1-mini among them) in the same shape.

Implements (provider-quirks.md rows): everything the OpenAI profile does (3, 4, 5, 59, unknown keys), and

* 9: ``developer`` messages are sent as ``system`` (older api-versions and o1 deployments answer
  "Invalid value: 'developer'");
* 10: ``file`` parts are reported by ``check`` (not fixable: Azure's Chat Completions takes no documents);
* 8, family ``o1-mini`` and ``o1-preview``: system and developer messages are sent as user messages.

Left to litellm: 7 (its Azure route moves images out of tool results, as for OpenAI), 25 (signatures cut
off ids), 6 (string arguments; litellm also fills ``""`` for missing ones).
"""

from __future__ import annotations

from messages.profiles.openai import openai_like

__all__ = ["ALIASES", "FAMILIES", "PROFILE"]

ALIASES = ("azure_ai",)

PROFILE = openai_like(
    "azure",
    system_role="system",
    accepts_parts=frozenset({"text", "image_url", "input_audio"}),
    rows={
        "tool-call-id": 3,
        "name": 4,
        "refusal": 5,
        "null-content": 5,
        "system-role": 9,
        "unsupported-part": 10,
    },
)

FAMILIES = {
    family: PROFILE.with_family(family, system_role="user", rows={**PROFILE.rows, "system-role": 8})
    for family in ("o1-mini", "o1-preview")
}
