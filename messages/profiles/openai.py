"""OpenAI (``openai/...``, and bare ``gpt-...``, ``o1-...`` names).

Implements (quirks, ``messages quirks N``):

* 3: tool-call ids of at most 40 characters (ids minted by Gemini, by Portkey or for web search are longer);
* 4: each ``name`` rewritten to OpenAI's current pattern (no whitespace and none of ``<|\\/>``);
* 5: a refusal with no text is sent as the content too, and an assistant turn with neither text nor
  tool calls is sent with content ``""`` (OpenAI allows ``content: null`` only beside tool calls);
* 83: a text of more than 10,485,760 characters is reported (not fixable: only the caller knows what to
  cut);
* 59: no ``name`` on assistant turns, and none on tool results (the SDK's types have none there);
* keys OpenAI does not know (the extension keys of ``messages.models``, litellm's extras) are dropped:
  litellm passes them through and OpenAI rejects additional properties;
* 8, family ``o1-mini`` and ``o1-preview``: system and developer messages are sent as user messages;
* 7, with litellm before 1.98 only (``TOOL_MEDIA``): the images, audio and files of a tool result moved to a
  user message after the results.

Parts (``OPENAI_PARTS``, from openai-python's request types): system messages take text (quirk 85); user
turns and tool results take text, images, audio and files (litellm moves those of a tool result into a user
message after the results); assistant turns take text and refusals (quirk 77); no turn takes video (72).

Left to litellm: 7 from litellm 1.98 on (its OpenAI route moves the media of tool results itself), 9 (it
sends ``developer`` as ``system`` to models without a developer role), 25 (it cuts Gemini thought
signatures off ids; the id rule removes them first, so two ids never become one), 6 (arguments are strings
in every dump). Not fixable here: 11 (``FilePart`` itself requires a filename), 12.
Empty arguments are kept byte-exact (no ``empty-arguments`` rule): OpenAI takes ``""``, and the exact
bytes matter for prompt caching. Ids a later turn uses again are kept: OpenAI scopes them to their turn.
"""

from __future__ import annotations

from messages._litellm import TOOL_MEDIA_MOVED
from messages.profiles._ids import IdRule
from messages.profiles._parts import SYSTEM_TEXT, Accepts, PartTable, system_as_user
from messages.profiles._profile import Profile
from messages.profiles.rules import (
    ForeignPayloads,
    KnownKeys,
    Names,
    NullTurn,
    Refusal,
    SystemRole,
    TextLength,
    ToolCallIds,
    ToolMedia,
)

__all__ = [
    "FAMILIES",
    "OPENAI_MEDIA",
    "OPENAI_NAME_CHARACTER",
    "OPENAI_PARTS",
    "OPENAI_RULES",
    "PROFILE",
    "TOOL_MEDIA",
    "o1_families",
]

OPENAI_MEDIA = frozenset({"text", "image_url", "input_audio", "file", "file_id"})
"""The kinds of part OpenAI's shape has for a user turn."""

OPENAI_PARTS = PartTable(
    system=SYSTEM_TEXT,
    user=Accepts(
        OPENAI_MEDIA,
        row=72,
        source="openai-python ChatCompletionUserMessageParam: text, image_url, input_audio and file parts",
    ),
    assistant=Accepts(
        frozenset({"text", "refusal"}),
        row=77,
        source="openai-python ChatCompletionAssistantMessageParam: text and refusal parts",
    ),
    tool=Accepts(
        OPENAI_MEDIA,
        row=72,
        source="openai-python ChatCompletionToolMessageParam takes text parts; the others go to a user "
        "message after the results, moved by litellm's OpenAI-shaped routes (1.98 on) or by TOOL_MEDIA "
        "(tests/conformance: hard case 'images')",
    ),
)
"""The parts OpenAI's shape takes, role by role: every OpenAI-shaped route's table, or the one it is made
from."""

OPENAI_NAME_CHARACTER = r"[^\s<|\\/>]"
"""One character of a ``name`` OpenAI accepts (quirk 4: no whitespace and none of ``<|\\/>``)."""

TOOL_MEDIA: tuple[ToolMedia, ...] = () if TOOL_MEDIA_MOVED.holds() else (ToolMedia(row=7),)
"""Quirk 7 on litellm's OpenAI-shaped routes, with the litellm installed: the rule that moves a tool
result's images, audio and files to a user message after the results, for litellm before 1.98, which
sends them in the tool message (OpenAI's tool messages take text only); none from 1.98 on, whose
OpenAI-shaped routes move them themselves (litellm compatibility flag ``TOOL_MEDIA_MOVED``)."""

OPENAI_RULES = (
    ForeignPayloads(),
    Refusal(keep_key=True),
    Names(pattern=OPENAI_NAME_CHARACTER, row=4),
    KnownKeys(extra={"assistant": frozenset({"audio", "function_call"})}),
    ToolCallIds(ids=IdRule(max_length=40), row=3),
    NullTurn(row=5),
    TextLength(row=83),
    *TOOL_MEDIA,
)
"""OpenAI's rules, wherever its models are served (OpenAI, Azure)."""


def o1_families(profile: Profile) -> dict[str, Profile]:
    """o1-mini and o1-preview: no system role (quirk 8).

    Args:
        profile: the provider's profile, which the families build on.

    Returns:
        The family profiles, by family name.

    Raises nothing.
    """
    return {
        family: profile.with_family(family, SystemRole(to="user", row=8), parts=system_as_user(profile.parts))
        for family in ("o1-mini", "o1-preview")
    }


PROFILE = Profile("openai", OPENAI_RULES, parts=OPENAI_PARTS)
"""The ``openai`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

FAMILIES = o1_families(PROFILE)
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
