"""Anthropic (``anthropic/claude-...``); the Claude rules are shared with Bedrock, Vertex AI and OpenRouter.

litellm builds Anthropic's request from the OpenAI-shape list (system hoisted, tool results turned into
``tool_result`` blocks, consecutive turns merged), so unknown keys and ``name`` never reach Anthropic.

Implements (quirks, ``messages quirks N``):

* 13: a user or assistant turn with no text (whitespace counts) is dropped, a blank text part removed (in
  system messages and tool results too: Anthropic rejects a blank text block in ``system`` and in a
  ``tool_result``), a tool-call turn sends no text, an empty tool result says so: litellm would otherwise
  send its own "[System: Empty message content sanitised to satisfy protocol]" in their place;
* 15, families ``claude-{opus,sonnet,haiku}-4-6`` and later: a conversation ending on an assistant text
  gets a user turn ("This model does not support assistant message prefill"); with litellm before 1.104,
  whose converter hoists every system message into the system prompt, one ending on an assistant text and
  then system messages too (``HOISTS_SYSTEM``);
* 17: tool-call ids match ``[a-zA-Z0-9_-]+`` and are unique in the request ("tool_use ids must be
  unique"): an id a later turn uses again gets a new one there, collision-free;
* 18: signed ``thinking_blocks`` go back to Anthropic only; an assistant turn with thinking right after
  another assistant turn is merged into it, so that its thinking comes first; a final assistant text sends
  no thinking blocks (final as litellm sends the list: before 1.104, past trailing system messages);
* 19: a conversation with no user turn first gets one;
* 58: arguments ``""`` sent as ``"{}"``; arguments that are not a JSON object are reported;
* 66, 77, 72, 85 (the table, ``CLAUDE_PARTS``): Claude takes text, images and documents in user turns
  (files by id too) and tool results (inline only), text in assistant and system turns; audio (litellm's
  converter skips it silently) and everything else are refused;
* 22: at most 4 cache breakpoints (``cache_control``) per request, the newest kept; 76: none on a
  thinking block;
* 72: video parts reported (litellm drops them silently); 71 (every profile): a failed tool result says so
  in its content (``Error: ...``), since litellm drops ``is_error`` on its way to Anthropic's
  ``tool_result``.

Left to litellm: 14 (trailing whitespace of a final assistant text), 16 (tool results merged into one
user turn, first), 19 (system hoisting; from 1.104 a system message after the first turn goes as a user
turn), 20 (merging consecutive turns), 21 (image media types from data
URLs), 22 (``cache_control`` carried onto the matching block: system text, message, text part, tool
result), 7 (images in tool results become image blocks).
"""

from __future__ import annotations

from messages._litellm import MID_SYSTEM_AS_USER
from messages.profiles._ids import IdRule
from messages.profiles._parts import SYSTEM_TEXT, Accepts, PartTable
from messages.profiles._profile import Profile
from messages.profiles.rules import (
    CLAUDE_CACHE_LIMIT,
    BlankToolResults,
    CacheBreakpoints,
    CacheMarks,
    CallTurnContent,
    DropBlank,
    EmptyArguments,
    ExtensionKeys,
    FinalThinking,
    ForeignPayloads,
    InvalidArguments,
    NoPrefill,
    Refusal,
    ThinkingOrder,
    ToolCallIds,
    UserFirst,
)

__all__ = [
    "CLAUDE_PARTS",
    "CLAUDE_RULES",
    "FAMILIES",
    "HOISTS_SYSTEM",
    "NO_PREFILL_FAMILIES",
    "PROFILE",
    "no_prefill_families",
]

CLAUDE_PARTS = PartTable(
    system=SYSTEM_TEXT,
    user=Accepts(
        frozenset({"text", "image_url", "file", "file_id"}),
        row=66,
        source="anthropic MessageParam: text, image and document blocks (a document by file id too); "
        "litellm skips audio",
    ),
    assistant=Accepts(
        frozenset({"text"}), row=77, source="litellm's Anthropic route sends an assistant turn's text only"
    ),
    tool=Accepts(
        frozenset({"text", "image_url", "file"}),
        row=66,
        source="anthropic ToolResultBlockParam content: text, image and document blocks, inline "
        "(the SDK's types refuse the block litellm makes of a file by id)",
    ),
)
"""What Claude takes, role by role, wherever it is served through litellm's Anthropic converter."""

CLAUDE_RULES = (
    CacheMarks(keep=True),
    CacheBreakpoints(limit=CLAUDE_CACHE_LIMIT, row=22),
    ForeignPayloads(thinking_blocks=True, row=18),
    Refusal(),
    ExtensionKeys(),
    EmptyArguments(),
    InvalidArguments(),
    ToolCallIds(ids=IdRule(alphabet="a-zA-Z0-9_-"), unique=True, row=17),
    DropBlank(whitespace=True, row=13),
    CallTurnContent(value="null", whitespace=True, row=13),
    BlankToolResults(whitespace=True, row=13),
    ThinkingOrder(row=18),
    UserFirst(row=19),
    FinalThinking(row=18),
)
"""The rules every Claude profile shares, whichever platform serves it."""

NO_PREFILL_FAMILIES: tuple[str, ...] = tuple(
    f"claude-{tier}-{version}"
    for tier in ("opus", "sonnet", "haiku")
    for version in ("4-6", "4-7", "4-8", "4-9", "5", "6", "7", "8", "9")
)
"""The Claude model families that refuse assistant prefill: 4.6 and later (quirk 15)."""

HOISTS_SYSTEM = not MID_SYSTEM_AS_USER.holds()
"""Whether the installed litellm's Anthropic converter (its Anthropic, Vertex AI and Bedrock routes) sends
every system message in the system prompt, wherever it stands: litellm before 1.104
(compatibility flag ``MID_SYSTEM_AS_USER``). The rules about the final turn then read the list past its
trailing system messages (``FinalThinking``, ``NoPrefill``: ``hoisted``)."""


def no_prefill_families(profile: Profile, *, hoisted: bool = False) -> dict[str, Profile]:
    """``profile`` for each Claude family that refuses prefill (quirk 15).

    Args:
        profile: the provider's profile, which the families build on.
        hoisted: whether the route sends every system message in the system prompt (``HOISTS_SYSTEM``,
            measured from the installed litellm), so the final turn is read past trailing system messages.

    Returns:
        The family profiles, by family name.

    Raises nothing.
    """
    return {key: profile.with_family(key, NoPrefill(row=15, hoisted=hoisted)) for key in NO_PREFILL_FAMILIES}


def litellm_converter(profile: Profile) -> Profile:
    """``profile`` for a route through litellm's own Anthropic converter (Anthropic, Claude on Vertex AI
    and on Bedrock): its final turn read as the installed litellm sends the list (``HOISTS_SYSTEM``).

    Args:
        profile: the provider's profile.

    Returns:
        ``profile`` with the rules about thinking (the final turn's, and the order in merged turns) reading
        the list as the route sends it, or ``profile`` itself where the installed litellm keeps system
        messages in place.

    Raises nothing.
    """
    if not HOISTS_SYSTEM:
        return profile
    return profile.with_rules(FinalThinking(row=18, hoisted=True), ThinkingOrder(row=18, hoisted=True))


PROFILE = litellm_converter(Profile("anthropic", CLAUDE_RULES, parts=CLAUDE_PARTS))
"""The ``anthropic`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

FAMILIES = no_prefill_families(PROFILE, hoisted=HOISTS_SYSTEM)
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
