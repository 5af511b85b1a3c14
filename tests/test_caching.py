"""``place_cache_breakpoints``: marks where the cache reads them back, within the provider's limit (quirks
22 and 74), and nothing else changed."""

from __future__ import annotations

import pytest
from hypothesis import given

from messages import (
    AIMessage,
    CacheControl,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
    get_profile,
)
from messages import strategies as ms
from messages.caching import cache_limit, min_cacheable_tokens, place_cache_breakpoints
from messages.profiles.rules import cache_marks

CLAUDE = "anthropic/claude-sonnet-4-5"


def words(message):
    return len(str(message.model_dump()).split())


def marked(messages):
    return [i for i, m in enumerate(messages) if m.cache_control is not None]


def chat(turns: int):
    conversation = [SystemMessage(content="system " * 50)]
    for n in range(turns):
        conversation.append(UserMessage(content=f"question {n} " * 20))
        if n % 2:
            call = ToolCall(id=f"toolu_{n}", name="search", arguments={})
            conversation.append(AIMessage(tool_calls=[call]))
            conversation.append(ToolMessage.for_call(call, f"result {n} " * 20))
        conversation.append(AIMessage(content=f"answer {n} " * 20))
    conversation.append(UserMessage(content="and now?"))
    return conversation


def test_the_system_prompt_and_the_newest_request_ends_are_marked_within_claudes_four():
    conversation = chat(6)
    placed = place_cache_breakpoints(conversation, model=CLAUDE, min_tokens=0, token_counter=words)
    ends = [
        i
        for i in range(1, len(conversation) - 1)
        if isinstance(conversation[i], UserMessage | ToolMessage)
        and isinstance(conversation[i + 1], AIMessage)
    ]
    assert marked(placed) == sorted([0, ends[-1], ends[-2], len(conversation) - 1])


def test_system_placement_marks_the_last_leading_system_message_only():
    conversation = [SystemMessage(content="a " * 30), SystemMessage(content="b " * 30), *chat(2)[1:]]
    placed = place_cache_breakpoints(conversation, model=CLAUDE, placement="system", min_tokens=0)
    assert marked(placed) == [1]


def test_a_prefix_below_the_minimum_cacheable_length_gets_no_mark():
    # Quirk 74: Anthropic ignores it, and the mark counts against the four.
    conversation = chat(3)
    placed = place_cache_breakpoints(conversation, model=CLAUDE, min_tokens=200, token_counter=words)
    sizes = [words(m) for m in conversation]
    for i in marked(placed):
        assert sum(sizes[: i + 1]) >= 200
    assert 0 not in marked(placed)  # the system prompt alone is about 60 words


def test_the_minimum_follows_the_model_family():
    assert min_cacheable_tokens("anthropic/claude-sonnet-4-5") == 1024
    assert min_cacheable_tokens("bedrock/us.anthropic.claude-haiku-4-5-20251001-v1:0") == 4096
    assert min_cacheable_tokens("vertex_ai/claude-3-5-haiku@20241022") == 2048
    assert min_cacheable_tokens("anthropic/claude-opus-4-6") == 4096


def test_existing_marks_are_replaced_and_empty_texts_never_marked():
    conversation = [
        SystemMessage(content=[TextPart(text="sys " * 40, cache_control=CacheControl())]),
        UserMessage(content="q " * 40, cache_control=CacheControl(ttl="1h")),
        AIMessage(content="a " * 40),
        UserMessage(content=[TextPart(text="more"), TextPart(text=" ")]),
    ]
    placed = place_cache_breakpoints(conversation, model=CLAUDE, min_tokens=0, ttl="1h")
    assert marked(placed) == [0, 1]  # the last message ends on a blank text block
    assert all(p.cache_control is None for p in placed[0].content)
    assert placed[0].cache_control == CacheControl(ttl="1h")


def test_routes_without_breakpoints_get_none():
    conversation = [SystemMessage(content="s", cache_control=CacheControl()), UserMessage(content="u")]
    for model in ("openai/gpt-4o", "gemini/gemini-2.5-flash", "mistral/mistral-large-latest"):
        assert cache_limit(model) == 0
        assert marked(place_cache_breakpoints(conversation, model=model)) == []
    for model in (
        CLAUDE,
        "bedrock/converse/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "vertex_ai/claude-sonnet-4-5",
    ):
        assert cache_limit(model) == 4


def test_marked_tools_take_from_the_budget():
    placed = place_cache_breakpoints(chat(6), model=CLAUDE, min_tokens=0, marked_tools=3)
    assert len(marked(placed)) == 1


@pytest.mark.parametrize(("options", "says"), [({"placement": "all"}, "placement"), ({"limit": -1}, "limit")])
def test_bad_options_are_named(options, says):
    with pytest.raises(ValueError, match=says):
        place_cache_breakpoints(chat(1), model=CLAUDE, **options)


def _unmarked_dump(messages):
    dumped = dump_messages(messages, validate=False)
    for m in dumped:
        m.pop("cache_control", None)
        for part in m.get("content") if isinstance(m.get("content"), list) else ():
            part.pop("cache_control", None)
        for block in m.get("thinking_blocks") or ():
            block.pop("cache_control", None)
    return dumped


@given(ms.conversations())
def test_placement_changes_only_marks_and_stays_within_the_limit(conversation):
    placed = place_cache_breakpoints(conversation, model=CLAUDE, min_tokens=0)
    assert _unmarked_dump(placed) == _unmarked_dump(conversation)
    dumped = dump_messages(placed, validate=False)
    assert sum(len(cache_marks(m)) for m in dumped) <= 4
    # What the Anthropic profile sends keeps every mark placed (none is over the limit to strip); the marks
    # are the subject, so content Claude has no form for (a video) is sent as it is here.
    applied = get_profile(CLAUDE).apply(dumped, on_unfixable="send")
    assert sum(len(cache_marks(m)) for m in applied) <= 4


def test_a_long_chat_is_served_from_the_cache_with_automatic_placement(litellm):
    # The benchmark's measure, on a short chat: the figures are counts, so the order is exact.
    from benchmarks.bench_caching import STRATEGIES, measure
    from messages.testing import StandInServer, scripted

    with StandInServer(scripted(AIMessage(content="ok"))) as server:
        served = {name: measure(strategy, 8, server)["read"] for name, strategy in STRATEGIES.items()}
    assert served["none"] == 0
    assert 0 < served["system"] < served["auto"]
