"""Azure OpenAI (``azure/...``, and ``azure_ai/...``): OpenAI's rules, with Azure's own.

Implements (quirks, ``messages quirks N``):

* 3, 4, 5 and 59: as for OpenAI (ids, names, refusals and empty turns, no names on assistant turns);
* 8, family ``o1-mini`` and ``o1-preview``: system and developer messages are sent as user messages;
* 9: ``developer`` sent as ``system`` (older api-versions and o1-mini deployments reject it);
* 10: ``file`` parts are reported (Azure's Chat Completions has none; not fixable).

Left to litellm: as for OpenAI.
"""

from __future__ import annotations

from messages.profiles._profile import Profile
from messages.profiles.openai import OPENAI_RULES, o1_families
from messages.profiles.rules import SystemRole, UnsupportedParts

__all__ = ["ALIASES", "FAMILIES", "PROFILE"]

ALIASES = ("azure_ai",)

PROFILE = Profile("azure", OPENAI_RULES).with_rules(
    SystemRole(to="system", row=9),
    UnsupportedParts(accepts=frozenset({"text", "image_url", "input_audio"}), row=10),
)

FAMILIES = o1_families(PROFILE)
