"""litellm's own keys through the real ``litellm.completion`` to the loopback stand-in (issue 12).

First what litellm alone does with each (quirks 22, 70 to 75: the findings the profiles rest on), then what
reaches each provider once the conversation is dumped with the model's profile.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from messages import (
    AIMessage,
    CacheControl,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UnfixableError,
    UserMessage,
    VideoPart,
    dump_messages,
    get_profile,
)
from messages._litellm import BEDROCK_CACHE_POINTS_GATED, version_tuple
from messages.testing import StandInServer
from tests.litellm_pins import installed
from tests.oracles import anthropic_accepts, openai_accepts

pytestmark = pytest.mark.litellm

EPHEMERAL = {"type": "ephemeral"}
ANTHROPIC = "anthropic/claude-sonnet-4-5"
VERTEX_CLAUDE = "vertex_ai/claude-sonnet-4-5@20250929"
BEDROCK_INVOKE = "bedrock/invoke/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
BEDROCK_CONVERSE = "bedrock/converse/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
TOOLS = [
    {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}
]


def _send(litellm, server: StandInServer, model: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    litellm.completion(model=model, messages=messages, tools=TOOLS, **server.completion_kwargs(model))
    body: dict[str, Any] = server.last_body()
    return body


def _placements() -> list[Any]:
    """Every placement of a breakpoint the issue names: a system text part, a system message with a ttl,
    a user text part, a tool result; and a tool result's is_error, which no route carries (quirk 71): the
    profiles say it in the content instead."""
    call = ToolCall(id="toolu_01", name="lookup", arguments={})
    return [
        SystemMessage(content=[TextPart(text="SYSTEM PART", cache_control=CacheControl())]),
        SystemMessage(content="SYSTEM MESSAGE", cache_control=CacheControl(ttl="1h")),
        UserMessage(content=[TextPart(text="USER PART", cache_control=CacheControl())]),
        AIMessage(tool_calls=[call]),
        ToolMessage(
            tool_call_id="toolu_01", content="TOOL RESULT", cache_control=CacheControl(), is_error=True
        ),
        UserMessage(content="Go on."),
    ]


SEND = {"on_unfixable": "send"}
"""What a profile cannot fix is refused before sending by default; sent here on purpose where a test shows
what litellm does with it."""


def _blocks_with(body: dict[str, Any], text: str) -> list[dict[str, Any]]:
    found = []
    for block in [*body.get("system", []), *(b for m in body["messages"] for b in m["content"])]:
        if block.get("text") == text or block.get("content") == text:
            found.append(block)
    return found


@pytest.mark.parametrize("model", [ANTHROPIC, VERTEX_CLAUDE, BEDROCK_INVOKE])
def test_each_placement_reaches_the_matching_anthropic_block(litellm, model):
    with StandInServer() as server:
        body = _send(litellm, server, model, dump_messages(_placements(), model=model, **SEND))
    assert _blocks_with(body, "SYSTEM PART") == [
        {"type": "text", "text": "SYSTEM PART", "cache_control": EPHEMERAL}
    ]
    assert _blocks_with(body, "SYSTEM MESSAGE") == [
        {"type": "text", "text": "SYSTEM MESSAGE", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    ]
    assert _blocks_with(body, "USER PART") == [
        {"type": "text", "text": "USER PART", "cache_control": EPHEMERAL}
    ]
    # Quirk 71: the failure is said in the result's content, the flag left out (litellm would drop it).
    (result,) = _blocks_with(body, "Error: TOOL RESULT")
    assert result["type"] == "tool_result"
    assert result["cache_control"] == EPHEMERAL
    assert "is_error" not in result
    if model == ANTHROPIC:
        anthropic_accepts(body)


@pytest.mark.parametrize("model", [ANTHROPIC, VERTEX_CLAUDE, BEDROCK_INVOKE, BEDROCK_CONVERSE])
def test_litellm_alone_drops_is_error_on_its_way_to_a_tool_result_that_has_the_field(litellm, model):
    # Anthropic's tool_result (and Bedrock's toolResult status) can say a call failed; litellm never sets
    # it: the flag is gone and the content says nothing of the failure. So the profiles say it in the
    # content (quirk 71) rather than send a flag that does not arrive.
    with StandInServer() as server:
        raw = _send(litellm, server, model, dump_messages(_placements()))
    sent = json.dumps(raw["messages"])
    assert "TOOL RESULT" in sent
    assert "is_error" not in sent
    assert '"status": "error"' not in sent


def test_bedrock_converse_gets_a_cache_point_after_each_marked_block(litellm):
    with StandInServer() as server:
        body = _send(
            litellm, server, BEDROCK_CONVERSE, dump_messages(_placements(), model=BEDROCK_CONVERSE, **SEND)
        )
    system = body["system"]
    assert system == [
        {"text": "SYSTEM PART"},
        {"cachePoint": {"type": "default"}},
        {"text": "SYSTEM MESSAGE"},
        {"cachePoint": {"type": "default", "ttl": "1h"}},
    ]
    points = [b for m in body["messages"] for b in m["content"] if "cachePoint" in b]
    assert len(points) == 2  # after the user text part, after the tool result


def test_litellm_alone_drops_cache_points_for_a_bedrock_model_it_does_not_know_to_cache(litellm):
    # Quirk 75: the same conversation to Claude 3.5 Sonnet (June 2024) on Converse: no cachePoint at all from
    # litellm 1.101 on; earlier releases write one for every mark, which Bedrock refuses on a model without
    # prompt caching. The profile leaves the marks out for this model on every release, and before 1.101
    # for every model but the Claude ones that cache.
    model = "bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0"
    llama = "bedrock/converse/meta.llama3-1-70b-instruct-v1:0"
    with StandInServer() as server:
        alone = {m: _send(litellm, server, m, dump_messages(_placements())) for m in (model, llama)}
        profiled = {
            m: _send(litellm, server, m, dump_messages(_placements(), model=m, **SEND)) for m in alone
        }
        caching = _send(
            litellm, server, BEDROCK_CONVERSE, dump_messages(_placements(), model=BEDROCK_CONVERSE)
        )
    for m in alone:
        assert ("cachePoint" in json.dumps(alone[m])) is not BEDROCK_CACHE_POINTS_GATED.holds()
        assert "cachePoint" not in json.dumps(profiled[m])
    assert "cachePoint" in json.dumps(caching)


def _flagged(is_error: bool) -> list[Any]:
    """``_placements`` with its tool result's ``is_error`` set to ``is_error``."""
    chat = _placements()
    chat[4] = chat[4].model_copy(update={"is_error": is_error})
    return chat


def test_the_openai_body_carries_neither_cache_control_nor_is_error(litellm):
    # litellm keeps both on a custom api_base (a proxy, vLLM...): the OpenAI profile removes the marks (70)
    # and the flag, saying a failure in the content instead (71).
    model = "openai/gpt-4o-mini"
    with StandInServer() as server:
        raw = _send(litellm, server, model, dump_messages(_placements()))
        # litellm before 1.90 strips the marks itself on this route (measured: 1.89.7 does, 1.90.0 does not).
        assert ("cache_control" in json.dumps(raw["messages"])) is (version_tuple(installed()) >= (1, 90))
        assert any(m.get("is_error") for m in raw["messages"])
        body = _send(litellm, server, model, dump_messages(_flagged(False), model=model))
    sent = json.dumps(body["messages"])
    assert "cache_control" not in sent
    assert "is_error" not in sent
    openai_accepts(body["messages"])
    assert body["messages"][4] == {"role": "tool", "tool_call_id": "toolu_01", "content": "TOOL RESULT"}
    failed = dump_messages(_flagged(True), model=model)
    assert failed[4] == {"role": "tool", "tool_call_id": "toolu_01", "content": "Error: TOOL RESULT"}
    openai_accepts(failed)


@pytest.mark.parametrize(
    "model",
    [
        "groq/llama-3.3-70b-versatile",
        "xai/grok-3",
        "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
        "hosted_vllm/Qwen/Qwen3-8B",
        "mistral/mistral-large-latest",
        "deepseek/deepseek-chat",
        "openrouter/openai/gpt-4o",
    ],
)
def test_no_openai_shaped_route_is_sent_cache_control_or_is_error(litellm, model):
    with StandInServer() as server:
        body = _send(litellm, server, model, dump_messages(_flagged(False), model=model))
    sent = json.dumps(body["messages"])
    assert "cache_control" not in sent
    assert "is_error" not in sent
    failed = dump_messages(_flagged(True), model=model)
    assert "is_error" not in json.dumps(failed)
    assert [m.get("content") for m in failed if m.get("role") == "tool"] in (
        ["Error: TOOL RESULT"],
        [[{"type": "text", "text": "Error: TOOL RESULT"}]],
    )


def test_openrouter_claude_keeps_the_breakpoints(litellm):
    model = "openrouter/anthropic/claude-sonnet-4.5"
    with StandInServer() as server:
        body = _send(litellm, server, model, dump_messages(_placements(), model=model, **SEND))
    marked = [
        p
        for m in body["messages"]
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if "cache_control" in p
    ]
    assert len(marked) == 4
    assert "is_error" not in json.dumps(body["messages"])


def _long_chat(marks: int) -> list[Any]:
    """A chat whose every user turn carries a breakpoint: ``marks`` of them, plus the system prompt's."""
    chat: list[Any] = [SystemMessage(content="SYSTEM", cache_control=CacheControl())]
    for n in range(marks):
        chat.append(UserMessage(content=f"USER {n}", cache_control=CacheControl()))
        chat.append(AIMessage(content=f"AI {n}"))
    chat.append(UserMessage(content="LAST"))
    return chat


def test_litellm_alone_sends_every_breakpoint_to_anthropic(litellm):
    # Quirk 22: Anthropic answers 400 "A maximum of 4 blocks with cache_control may be provided. Found 7."
    with StandInServer() as server:
        body = _send(litellm, server, ANTHROPIC, dump_messages(_long_chat(6)))
    assert json.dumps(body).count('"cache_control"') == 7


@pytest.mark.parametrize("model", [ANTHROPIC, BEDROCK_CONVERSE, VERTEX_CLAUDE])
def test_more_breakpoints_than_claude_allows_are_sent_as_the_newest_four(litellm, model):
    with StandInServer() as server:
        body = _send(litellm, server, model, dump_messages(_long_chat(6), model=model))
    sent = json.dumps(body)
    assert sent.count('"cache_control"') + sent.count('"cachePoint"') == 4
    if model != BEDROCK_CONVERSE:
        marked = [b["text"] for m in body["messages"] for b in m["content"] if "cache_control" in b]
        assert marked == ["USER 2", "USER 3", "USER 4", "USER 5"]
        assert "cache_control" not in json.dumps(body["system"])
    assert get_profile(model).check(dump_messages(_long_chat(6)))[0].rule == "cache-breakpoints"


def test_litellm_drops_a_video_part_on_its_way_to_anthropic_and_check_says_so(litellm):
    # Quirk 72: the video never reaches Claude, and litellm says nothing.
    chat = [
        UserMessage(content=[TextPart(text="What happens here?"), VideoPart(url="https://example.com/v.mp4")])
    ]
    with StandInServer() as server:
        body = _send(litellm, server, ANTHROPIC, dump_messages(chat, model=ANTHROPIC, on_unfixable="send"))
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "What happens here?"}]}]
    (violation,) = get_profile(ANTHROPIC).check(dump_messages(chat))
    assert (violation.rule, violation.row, violation.fixable) == ("unsupported-part", 72, False)
    # So nothing is sent by default (issue 24).
    with pytest.raises(UnfixableError, match=r"message 0: part 1 is a video: anthropic takes none"):
        dump_messages(chat, model=ANTHROPIC)


@pytest.mark.parametrize("model", ["gemini/gemini-2.5-flash", "vertex_ai/gemini-2.5-flash"])
def test_a_video_part_reaches_gemini_as_a_file(litellm, model):
    chat = [
        UserMessage(content=[TextPart(text="Summarize"), VideoPart(url="gs://bucket/talk.mp4", detail="low")])
    ]
    with StandInServer() as server:
        raw = _send(litellm, server, model, dump_messages(chat))
        assert raw["contents"][0]["parts"] == [{"text": "Summarize"}]  # litellm alone: the video is gone
        body = _send(litellm, server, model, dump_messages(chat, model=model))
    assert body["contents"][0]["parts"][1] == {
        "file_data": {"mime_type": "video/mp4", "file_uri": "gs://bucket/talk.mp4"}
    }


def test_a_mark_on_a_thinking_block_is_removed_for_anthropic(litellm):
    # Quirk 76: litellm copies it onto the thinking block; Anthropic answers "messages.1.content.0.thinking.
    # cache_control: Extra inputs are not permitted".
    call = ToolCall(id="toolu_01", name="lookup", arguments={})
    block = {"type": "thinking", "thinking": "Look it up.", "signature": "c2ln", "cache_control": EPHEMERAL}
    chat = [
        UserMessage(content="Find it."),
        AIMessage(tool_calls=[call], thinking_blocks=[block], provider="anthropic"),
        ToolMessage(tool_call_id="toolu_01", content="found"),
    ]
    with StandInServer() as server:
        raw = _send(litellm, server, ANTHROPIC, dump_messages(chat))
        assert raw["messages"][1]["content"][0]["cache_control"] == EPHEMERAL
        body = _send(litellm, server, ANTHROPIC, dump_messages(chat, model=ANTHROPIC))
    assert body["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "Look it up.",
        "signature": "c2ln",
    }
    assert [v.rule for v in get_profile(ANTHROPIC).check(dump_messages(chat))] == ["cache-control"]
