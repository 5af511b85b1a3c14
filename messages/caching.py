"""Prompt-cache breakpoints placed for you: ``place_cache_breakpoints(messages, model=...)``.

Anthropic (and Claude on Bedrock and Vertex AI) caches the request prefix up to each block marked
``cache_control``, for requests that come back with the same prefix. A long chat gets the most from it when
the marks move forward with the conversation: a mark on the system prompt, one on the last message (the
next request writes nothing new before it, so it reads the whole conversation so far from the cache), and
marks on the ends of the previous requests, which read what those requests wrote. Anthropic looks back at
most 20 blocks from a mark for a prefix it cached, so a tool loop that adds many blocks per request still
hits the cache through the earlier marks.

The rules it keeps (quirk catalog rows):

* 22: at most 4 marks per request (Bedrock: 4 cache points), fewer when tools carry marks of their own
  (``marked_tools``); no mark on an empty text ("cache_control cannot be set for empty text blocks");
* 74: a prefix shorter than the model's minimum cacheable length (``MIN_CACHEABLE_TOKENS``) is not cached
  and its mark is wasted, so no mark goes there.

Marks the messages had are replaced: the function places every mark of the request. On a route with no
breakpoints (OpenAI and Gemini cache prefixes on their own; the others not at all) the messages come back
without marks, as the profile would send them anyway.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from messages._wire import wire_dump
from messages.models import AIMessage, Message, SystemMessage, ToolMessage, UserMessage
from messages.parts import CacheControl, CacheTTL, TextPart

__all__ = [
    "DEFAULT_MIN_CACHEABLE_TOKENS",
    "MIN_CACHEABLE_TOKENS",
    "Placement",
    "cache_limit",
    "estimate_tokens",
    "min_cacheable_tokens",
    "place_cache_breakpoints",
]

Placement = Literal["auto", "system"]
"""``"auto"``: the system prompt and the newest ends of requests; ``"system"``: the system prompt only."""

MIN_CACHEABLE_TOKENS: Sequence[tuple[str, int]] = (
    ("claude-opus-4-6", 4096),
    ("claude-opus-4-5", 4096),
    ("claude-haiku-4-5", 4096),
    ("claude-sonnet-4-6", 2048),
    ("claude-3-5-haiku", 2048),
    ("claude-3-haiku", 2048),
    ("claude-haiku-3", 2048),
)
"""The shortest prefix each Claude family caches, in tokens, by model-name fragment (quirk 74; the first
fragment the model name contains wins); any other Claude model: ``DEFAULT_MIN_CACHEABLE_TOKENS``."""

DEFAULT_MIN_CACHEABLE_TOKENS = 1024
"""The shortest prefix Claude Sonnet 4.5, Sonnet 4, Opus 4.1, Opus 4 and Sonnet 3.7 cache, in tokens."""


def min_cacheable_tokens(model: str) -> int:
    """The shortest prefix ``model`` caches, in tokens (quirk 74).

    Args:
        model: a litellm model string.

    Returns:
        The fewest tokens a cached prefix holds (0 where the route caches nothing).

    Raises nothing.
    """
    name = model.lower()
    return next(
        (tokens for fragment, tokens in MIN_CACHEABLE_TOKENS if fragment in name),
        DEFAULT_MIN_CACHEABLE_TOKENS,
    )


def cache_limit(model: str) -> int:
    """How many breakpoints a request to ``model`` may carry: its profile's limit (4 for Claude on every
    platform), 0 where the route carries none.

    Args:
        model: a litellm model string.

    Returns:
        The most breakpoints a request may carry.

    Raises nothing.
    """
    from messages.profiles import get_profile

    profile = get_profile(model)
    marks = profile.rule("cache-control")
    if marks is None or not getattr(marks, "keep", False):
        return 0
    limit = getattr(profile.rule("cache-breakpoints"), "limit", None)
    return int(limit) if limit is not None else 4


def estimate_tokens(message: Message) -> int:
    """A rough token count of one message (4 characters of its wire JSON per token): enough to tell a prefix
    far below the minimum cacheable length from one above it. Pass ``token_counter=`` for exact counts.

    Args:
        message: a message.

    Returns:
        Its size in tokens, roughly.

    Raises nothing.
    """
    return max(1, len(repr(wire_dump(message))) // 4)


def place_cache_breakpoints(
    messages: Sequence[Message],
    *,
    model: str,
    placement: Placement = "auto",
    limit: int | None = None,
    marked_tools: int = 0,
    min_tokens: int | None = None,
    ttl: CacheTTL | None = None,
    token_counter: Callable[[Message], int] | None = None,
) -> list[Message]:
    """``messages`` with prompt-cache breakpoints where ``model``'s cache reads them back, turn after turn.

    Marks the messages already had are removed first. A message keeps its place and everything it says;
    only ``cache_control`` changes (on the message, and off its text parts).

    Args:
        messages: the conversation as it will be sent; never changed.
        model: the litellm model string of the request: its cache's limit and minimum length.
        placement: ``"auto"``: one mark on the last leading system message, then, newest first, one on
            the last message and one on the end of each earlier request (a user message or tool result
            answered by the model), within the limit; ``"system"``: the system prompt only.
        limit: at most this many marks (default: the model's, 4 for Claude; 0 where its route carries
            none).
        marked_tools: how many of the limit the request's tools already use.
        min_tokens: no mark on a prefix shorter than this (default: the model's minimum cacheable
            length, ``min_cacheable_tokens``).
        ttl: ``"1h"`` for hour-long entries (Anthropic's default is five minutes).
        token_counter: counts a message's tokens for ``min_tokens`` (default ``estimate_tokens``).

    Returns:
        A new list, the messages marked.

    Raises:
        ValueError: ``placement`` is neither ``"auto"`` nor ``"system"``, or ``limit`` or ``marked_tools`` is
            negative.

    Examples:
        ```python
        from messages import AIMessage, SystemMessage, UserMessage
        from messages.caching import place_cache_breakpoints

        conversation = [
            SystemMessage(content="You answer questions about the handbook. " * 200),
            UserMessage(content="What does chapter 1 say?"),
            AIMessage(content="That the handbook has chapters. " * 100),
            UserMessage(content="And chapter 2?"),
        ]
        marked = place_cache_breakpoints(conversation, model="anthropic/claude-sonnet-4-5")
        assert [m.cache_control is not None for m in marked] == [True, True, False, True]
        ```
    """
    if placement not in ("auto", "system"):
        raise ValueError(f"placement must be 'auto' or 'system', not {placement!r}")
    budget = cache_limit(model) if limit is None else limit
    if budget < 0 or marked_tools < 0:
        raise ValueError(
            f"limit and marked_tools must be >= 0; got limit={limit!r}, marked_tools={marked_tools!r}"
        )
    budget -= marked_tools
    cleared = [_unmarked(m) for m in messages]
    if budget <= 0 or not cleared:
        return cleared
    count = token_counter or estimate_tokens
    floor = min_cacheable_tokens(model) if min_tokens is None else min_tokens
    prefix: list[int] = []  # tokens up to and including each message
    total = 0
    for m in cleared:
        total += count(m)
        prefix.append(total)

    chosen: list[int] = []
    lead = 0
    while lead < len(cleared) and isinstance(cleared[lead], SystemMessage):
        lead += 1
    if lead and prefix[lead - 1] >= floor and _markable(cleared[lead - 1]):
        chosen.append(lead - 1)
    if placement == "auto":
        ends = [
            i
            for i in range(lead, len(cleared))
            if i == len(cleared) - 1
            or (isinstance(cleared[i], UserMessage | ToolMessage) and isinstance(cleared[i + 1], AIMessage))
        ]
        for i in reversed(ends):
            if len(chosen) >= budget:
                break
            if prefix[i] >= floor and _markable(cleared[i]):
                chosen.append(i)
    marker = CacheControl(ttl=ttl)
    for i in chosen[:budget]:
        cleared[i] = cleared[i].model_copy(update={"cache_control": marker})
    return cleared


def _unmarked(message: Message) -> Message:
    """``message`` without any cache mark (on itself, its text parts, its thinking blocks)."""
    update: dict[str, Any] = {}
    if message.cache_control is not None:
        update["cache_control"] = None
    content = message.content
    if isinstance(content, list) and any(
        isinstance(p, TextPart) and p.cache_control is not None for p in content
    ):
        update["content"] = [
            p.model_copy(update={"cache_control": None}) if isinstance(p, TextPart) and p.cache_control else p
            for p in content
        ]
    if isinstance(message, AIMessage) and any("cache_control" in b for b in message.thinking_blocks or ()):
        update["thinking_blocks"] = [
            {k: v for k, v in b.items() if k != "cache_control"} for b in message.thinking_blocks or ()
        ]
    return message.model_copy(update=update) if update else message


def _markable(message: Message) -> bool:
    """Whether a mark on ``message`` lands on a block that says something (Anthropic rejects a mark on an
    empty text block, quirk 22)."""
    content = message.content
    if content is None:
        return isinstance(message, AIMessage) and bool(message.tool_calls)
    if isinstance(content, str):
        return content.strip() != ""
    if not content:
        return False
    last = content[-1]
    return not (isinstance(last, TextPart) and last.text.strip() == "")
