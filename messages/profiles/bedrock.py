"""AWS Bedrock, Converse API (``bedrock/...``, ``bedrock/converse/...``).

litellm builds the Converse request from the OpenAI-shape list, so unknown keys and ``name`` never reach
Bedrock.

Implements (quirks, ``messages quirks N``):

* 41: the first turn after the system messages is a user turn (one is added if not);
* 43: no blank text: a user or assistant turn with no text (whitespace counts) is dropped, a blank text
  part is removed (from system messages and tool results too), a tool-call turn sends no text, an empty
  tool result says so;
* 44: an assistant turn between tool results and a following user message ("Conversation blocks and tool
  result blocks cannot be provided in the same turn");
* 45: tool-call ids of ``[a-zA-Z0-9_-]``, at most 64 characters, unique in the request; family
  ``mistral``: exactly 9 letters or digits;
* 47: a conversation ending on an assistant text gets a user turn (most Bedrock models require a user
  turn last); family ``claude`` allows prefill, except 4.6 and later (quirk 15); with litellm before 1.104,
  which hoists every system message into the system prompt, one ending on an assistant text and then
  system messages too (``anthropic.HOISTS_SYSTEM``);
* 75: no cache marks for the Claude models that do not cache on Bedrock (Claude 3, 3.5 Sonnet v1, instant,
  v1, v2: their families), and with litellm before 1.101 (``CACHES_EVERY_MODEL``) for every model but the
  Claude ones that cache: those releases write a cachePoint for every model, which Bedrock refuses on one
  without prompt caching;
* 48: signed thinking blocks go back to Bedrock only (litellm turns them into ``reasoningContent``); with
  litellm before 1.85, which sends a redacted one as an empty text block, redacted thinking blocks are left
  out (``RedactedThinking``);
* 18 (Claude's thinking rules, shared with Anthropic): a turn with thinking after another assistant turn
  is merged into it with the thinking first, and a final assistant text sends no thinking;
* 58: arguments ``""`` sent as ``"{}"``; arguments that are not JSON are reported;
* 86, 77, 72, 85 (the table, ``BEDROCK_PARTS``): Converse takes text, images and documents, inline, in
  user turns and tool results, text and images in assistant turns, text in system messages: audio, video
  and files by id are refused (litellm drops the first two and raises on the last).

Left to litellm: 42 (it merges consecutive turns), 46 (document names), 48 (the block translation),
7 (images in tool results become image blocks of the ``toolResult``), ids (it also sanitizes them, with a
hash, which the rewrite leaves nothing to do).
"""

from __future__ import annotations

from messages._litellm import BEDROCK_CACHE_POINTS_GATED, BEDROCK_REDACTED_THINKING
from messages.profiles._ids import IdRule
from messages.profiles._parts import SYSTEM_TEXT, Accepts, PartTable
from messages.profiles._profile import Profile
from messages.profiles.anthropic import CLAUDE_RULES, HOISTS_SYSTEM, no_prefill_families
from messages.profiles.mistral import MISTRAL_IDS
from messages.profiles.rules import (
    BlankToolResults,
    BridgeToolResults,
    CacheMarks,
    CallTurnContent,
    DropBlank,
    FinalThinking,
    ForeignPayloads,
    NoPrefill,
    RedactedThinking,
    ThinkingOrder,
    ToolCallIds,
    UserFirst,
)

__all__ = ["ALIASES", "BEDROCK_PARTS", "CACHES_EVERY_MODEL", "FAMILIES", "PROFILE"]

ALIASES = ("bedrock_converse",)
"""Other litellm provider names this profile serves."""

_INLINE = frozenset({"text", "image_url", "file"})
_SOURCE = (
    "botocore bedrock-runtime Converse ContentBlock (image, document: bytes); litellm drops audio and video "
    "and raises on a file by id ('Unsupported image type')"
)

BEDROCK_PARTS = PartTable(
    system=SYSTEM_TEXT,
    user=Accepts(_INLINE, row=86, source=_SOURCE),
    assistant=Accepts(
        frozenset({"text", "image_url"}),
        row=77,
        source="litellm's Converse route keeps an assistant's images",
    ),
    tool=Accepts(_INLINE, row=86, source="botocore ToolResultContentBlock: text, image, document (bytes)"),
)
"""What Bedrock Converse takes, role by role, through litellm."""

_CONVERSE = Profile("bedrock", CLAUDE_RULES, parts=BEDROCK_PARTS).with_rules(
    ForeignPayloads(thinking_blocks=True, row=48),
    ToolCallIds(ids=IdRule(alphabet="a-zA-Z0-9_-", max_length=64), unique=True, row=45),
    DropBlank(whitespace=True, row=43),
    CallTurnContent(value="null", whitespace=True, row=43),
    BlankToolResults(whitespace=True, row=43),
    ThinkingOrder(row=18, hoisted=HOISTS_SYSTEM),
    FinalThinking(row=18, hoisted=HOISTS_SYSTEM),
    BridgeToolResults(row=44),
    UserFirst(row=41),
    NoPrefill(row=47, hoisted=HOISTS_SYSTEM),
    *(() if BEDROCK_REDACTED_THINKING.holds() else (RedactedThinking(row=48),)),
)

CACHES_EVERY_MODEL = not BEDROCK_CACHE_POINTS_GATED.holds()
"""Whether the installed litellm writes a cachePoint for every Converse model that gets a cache mark
(before litellm 1.101: flag ``BEDROCK_CACHE_POINTS_GATED``), which Bedrock refuses on a model
without prompt caching. The profiles then keep marks only for the Claude models that cache on Bedrock (3.5
Haiku, 3.5 Sonnet v2, 3.7 and 4 onwards): the others lose them (quirk 75), Amazon Nova's too (a missed
cache, not a refusal)."""

_UNCACHED = CacheMarks(row=75)
"""Every cache mark removed: what later releases of litellm do for a model that does not cache."""

_NOT_CACHING_CLAUDE = (
    "claude-3-opus",
    "claude-3-sonnet",
    "claude-3-haiku",
    "claude-3-5-sonnet-20240620",
    "claude-instant",
    "claude-v1",
    "claude-v2",
)
"""Claude models on Bedrock without prompt caching (none marked ``supports_prompt_caching`` in litellm's
cost map): their families lose every cache mark with any litellm (from 1.101 litellm leaves the cachePoint
out itself, before it sends one, which Bedrock refuses)."""

PROFILE = _CONVERSE.with_rules(_UNCACHED) if CACHES_EVERY_MODEL else _CONVERSE
"""The ``bedrock`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

_CLAUDE = _CONVERSE.with_family("claude", without=("prefill",))

FAMILIES = {
    "claude": _CLAUDE,
    **{family: _CLAUDE.with_family(family, _UNCACHED) for family in _NOT_CACHING_CLAUDE},
    **no_prefill_families(_CLAUDE, hoisted=HOISTS_SYSTEM),
    **{
        family: PROFILE.with_family(family, ToolCallIds(ids=MISTRAL_IDS, unique=True, row=45))
        for family in ("mistral", "mixtral", "pixtral")
    },
}
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
