"""Conversations to LangChain messages and back (messages.convert), against the real langchain-core: equal
after the round trip; what LangChain's own conversion to OpenAI dicts makes of ours agrees with our dump;
named cases from LangChain's docs; a fuzz test of LangChain messages of any shape."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from messages import (
    AIMessage,
    AudioPart,
    CacheControl,
    ConversionError,
    FilePart,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
)
from messages import strategies as ms
from messages.convert import from_langchain, to_langchain
from tests.unmapped import refused_by_guard

lc = pytest.importorskip("langchain_core.messages")


@given(ms.conversations())
def test_every_conversation_round_trips_through_langchain_messages(conversation):
    try:
        converted = to_langchain(conversation)
    except ConversionError as error:  # a field of litellm's types that LangChain messages cannot hold
        assert refused_by_guard(conversation, error, text_cache_control=True), error  # noqa: PT017
        return
    assert all(isinstance(m, lc.BaseMessage) for m in converted)
    assert from_langchain(converted) == conversation


def _marks(content: Any) -> list[Any]:
    """The cache_control marks of the text parts (ours) or text blocks (LangChain's) of ``content``."""
    if not isinstance(content, list):
        return []
    return [
        (p.cache_control and p.cache_control.model_dump())
        if isinstance(p, TextPart)
        else p.get("cache_control")
        for p in content
        if isinstance(p, TextPart) or (isinstance(p, dict) and p.get("type") == "text")
    ]


@given(ms.conversations())
def test_a_text_parts_cache_control_is_the_text_blocks_own_key_and_comes_back(conversation):
    # A message-level mark has no place in LangChain (refused, below): leave it out here.
    conversation = [m.model_copy(update={"cache_control": None}) for m in conversation]
    try:
        converted = to_langchain(conversation)
    except ConversionError as error:
        assert refused_by_guard(conversation, error, text_cache_control=True), error  # noqa: PT017
        assert "cache_control" not in str(error)  # noqa: PT017
        return
    for ours, theirs in zip(conversation, converted, strict=True):
        assert _marks(theirs.content) == _marks(ours.content)
    assert from_langchain(converted) == conversation


def test_langchain_anthropics_cache_control_on_text_blocks_reads_as_marked_text_parts():
    # langchain-anthropic's prompt caching: the mark on the system prompt's text block (with a TTL), on a
    # user turn's text block, and on a tool message's block (which it sends on the tool_result).
    one_hour = {"type": "ephemeral", "ttl": "1h"}
    history = [
        lc.SystemMessage(content=[{"type": "text", "text": "A long manual.", "cache_control": one_hour}]),
        lc.HumanMessage(
            content=[
                {"type": "text", "text": "Read it."},
                {"type": "text", "text": "What does it say?", "cache_control": {"type": "ephemeral"}},
            ]
        ),
        lc.AIMessage(
            content="",
            tool_calls=[{"name": "search", "args": {}, "id": "toolu_1", "type": "tool_call"}],
        ),
        lc.ToolMessage(
            content=[{"type": "text", "text": "found", "cache_control": {"type": "ephemeral"}}],
            tool_call_id="toolu_1",
        ),
    ]
    read = from_langchain(history)
    assert read == [
        SystemMessage(content=[TextPart(text="A long manual.", cache_control=CacheControl(ttl="1h"))]),
        UserMessage(
            content=[
                TextPart(text="Read it."),
                TextPart(text="What does it say?", cache_control=CacheControl()),
            ]
        ),
        AIMessage(content="", tool_calls=[ToolCall(id="toolu_1", name="search", arguments="{}")]),
        ToolMessage(tool_call_id="toolu_1", content=[TextPart(text="found", cache_control=CacheControl())]),
    ]
    # And back: the same blocks, each mark on its own block.
    assert [m.content for m in to_langchain(read)][:2] == [h.content for h in history][:2]
    assert to_langchain(read)[3].content == history[3].content


@pytest.mark.parametrize(
    "message",
    [
        SystemMessage(content="A long manual.", cache_control=CacheControl()),
        UserMessage(content=[TextPart(text="q")], cache_control=CacheControl(ttl="1h")),
        AIMessage(content="a", cache_control=CacheControl()),
        ToolMessage(tool_call_id="c", content="r", cache_control=CacheControl()),
    ],
    ids=["system", "user", "assistant", "tool"],
)
def test_a_message_level_cache_control_is_refused_by_name_since_langchain_holds_marks_on_blocks(message):
    with pytest.raises(ConversionError, match="message-level cache_control") as caught:
        to_langchain([UserMessage(content="hi"), message])
    assert (caught.value.index, caught.value.part) == (1, "cache_control")
    assert "text part" in str(caught.value)


@pytest.mark.parametrize(
    ("block", "match"),
    [
        (
            {"type": "image", "url": "https://x/a.png", "cache_control": {"type": "ephemeral"}},
            "cache_control mark on a block of type 'image'",
        ),
        (
            {
                "type": "image_url",
                "image_url": {"url": "https://x/a.png"},
                "cache_control": {"type": "ephemeral"},
            },
            "cache_control mark on a block of type 'image_url'",
        ),
        (
            {"type": "text", "text": "x", "extras": {"cache_control": {"type": "ephemeral"}}},
            "under a 'text' block's extras",
        ),
        (
            {
                "type": "file",
                "base64": "JVBERi0=",
                "mime_type": "application/pdf",
                "extras": {"cache_control": {}},
            },
            "under a 'file' block's extras",
        ),
        ({"type": "text", "text": "x", "cache_control": {"type": "forever"}}, "not valid"),
    ],
)
def test_a_cache_control_mark_no_part_holds_is_refused_naming_the_block(block, match):
    with pytest.raises(ConversionError, match=match) as caught:
        from_langchain(
            [lc.HumanMessage("hi"), lc.HumanMessage(content=[{"type": "text", "text": "a"}, block])]
        )
    assert (caught.value.index, caught.value.part) == (1, 1)
    assert str(caught.value).startswith("message 1, content part 1")


def test_a_cache_control_mark_on_an_assistants_tool_use_block_is_refused_not_dropped():
    message = lc.AIMessage(
        content=[
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "f",
                "input": {},
                "cache_control": {"type": "ephemeral"},
            }
        ],
        tool_calls=[{"name": "f", "args": {}, "id": "toolu_1", "type": "tool_call"}],
    )
    with pytest.raises(ConversionError, match="block of type 'tool_use'") as caught:
        from_langchain([message])
    assert (caught.value.index, caught.value.part) == (0, 0)


def _parsed(arguments: str) -> Any:
    try:
        return json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return arguments


def _text(content: Any) -> str:
    if isinstance(content, str) or content is None:
        return content or ""
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")


def _urls(content: Any) -> list[str]:
    if not isinstance(content, list):
        return []
    return [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]


@settings(max_examples=30)
@given(ms.conversations(extensions=False))
def test_langchains_own_openai_conversion_of_ours_agrees_with_our_dump(conversation):
    from langchain_core.messages.utils import convert_to_openai_messages

    theirs = convert_to_openai_messages(to_langchain(conversation))
    ours = dump_messages(conversation, validate=False)
    assert [m["role"] for m in theirs] == [m["role"] for m in ours]
    for mine, other in zip(ours, theirs, strict=True):
        assert other.get("name") == mine.get("name")
        if mine["role"] in ("user", "system", "developer"):
            if isinstance(other["content"], str) and isinstance(mine["content"], list):
                # LangChain joins a system message's text parts with newlines (its own change, not ours).
                assert other["content"] == "\n".join(p["text"] for p in mine["content"])
            else:
                assert _text(other["content"]) == _text(mine["content"])
                assert _urls(other["content"]) == _urls(mine["content"])
        if mine["role"] == "tool":
            assert other["tool_call_id"] == mine["tool_call_id"]
        calls = [
            (c["id"], c["function"]["name"], _parsed(c["function"]["arguments"]))
            for c in other.get("tool_calls", [])
        ]
        assert calls == [
            (c["id"], c["function"]["name"], _parsed(c["function"]["arguments"]))
            for c in mine.get("tool_calls", [])
        ]


def test_langchain_docs_tool_calling_history_reads_as_a_call_and_its_result():
    # LangChain's tool calling guide: the model's AIMessage with parsed tool_calls, then a ToolMessage.
    history = [
        lc.HumanMessage("What is 3 * 12?"),
        lc.AIMessage(
            content="",
            tool_calls=[{"name": "multiply", "args": {"a": 3, "b": 12}, "id": "call_1", "type": "tool_call"}],
        ),
        lc.ToolMessage(content="36", tool_call_id="call_1"),
    ]
    assert from_langchain(history) == [
        UserMessage(content="What is 3 * 12?"),
        AIMessage(
            content="", tool_calls=[ToolCall(id="call_1", name="multiply", arguments='{"a":3,"b":12}')]
        ),
        ToolMessage(tool_call_id="call_1", content="36"),
    ]


def test_langchain_docs_multimodal_blocks_become_parts():
    # LangChain's multimodal docs: standard image (URL and base64), file and audio blocks.
    message = lc.HumanMessage(
        content=[
            {"type": "text", "text": "Describe the weather in this image:"},
            {"type": "image", "url": "https://example.com/weather.jpg"},
            {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
            {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf", "filename": "report.pdf"},
            {"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav"},
        ]
    )
    assert from_langchain([message]) == [
        UserMessage(
            content=[
                TextPart(text="Describe the weather in this image:"),
                ImagePart(url="https://example.com/weather.jpg"),
                ImagePart(url="data:image/png;base64,iVBORw0KGgo="),
                FilePart(file_data="data:application/pdf;base64,JVBERi0=", filename="report.pdf"),
                AudioPart(data="UklGRg==", format="wav"),
            ]
        )
    ]


def test_anthropic_thinking_blocks_in_content_become_thinking_blocks():
    # langchain-anthropic's extended thinking: thinking, text and tool_use blocks in content, and tool_calls.
    thinking = {"type": "thinking", "thinking": "Let me add.", "signature": "c2ln"}
    message = lc.AIMessage(
        content=[
            thinking,
            {"type": "text", "text": "Adding."},
            {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1}},
        ],
        tool_calls=[{"name": "add", "args": {"a": 1}, "id": "toolu_1", "type": "tool_call"}],
        response_metadata={"model_provider": "anthropic"},
    )
    (read,) = from_langchain([message])
    assert read == AIMessage(
        content=[TextPart(text="Adding.")],
        tool_calls=[ToolCall(id="toolu_1", name="add", arguments='{"a":1}')],
        thinking_blocks=[thinking],
        provider="anthropic",
    )


def test_invalid_arguments_survive_as_invalid_tool_calls_and_come_back_byte_exact():
    call = ToolCall(id="call_1", name="f", arguments='{"city": "Par')
    (converted,) = to_langchain([AIMessage(tool_calls=[call])])
    assert converted.tool_calls == []
    assert converted.invalid_tool_calls[0]["args"] == '{"city": "Par'
    assert from_langchain([converted]) == [AIMessage(tool_calls=[call])]
    # Without the exact calls in additional_kwargs, the invalid call still comes back with its raw text.
    converted.additional_kwargs.clear()
    assert from_langchain([converted]) == [AIMessage(content=None, tool_calls=[call])]


@pytest.mark.parametrize(
    ("message", "part", "match"),
    [
        (lc.ToolMessage(content="x", tool_call_id="c", artifact={"rows": 3}), "artifact", "artifact"),
        (
            lc.HumanMessage(content="x", additional_kwargs={"foo": 1}),
            "additional_kwargs['foo']",
            "additional_kwargs",
        ),
        (
            lc.AIMessage(content="x", additional_kwargs={"function_call": {"name": "f"}}),
            "additional_kwargs['function_call']",
            "function_call",
        ),
        (lc.HumanMessage(content=[{"type": "video", "url": "https://x/v.mp4"}]), 0, "'video' content block"),
        (lc.ChatMessage(content="x", role="critic"), "type", "ChatMessage"),
    ],
)
def test_what_no_message_here_can_hold_is_refused_naming_the_message_and_the_part(message, part, match):
    with pytest.raises(ConversionError, match=match) as caught:
        from_langchain([lc.HumanMessage("hi"), message])
    assert (caught.value.index, caught.value.part) == (1, part)
    assert str(caught.value).startswith("message 1")


def test_a_failed_tool_result_is_sent_as_status_error_and_comes_back_failed():
    # Found by the round-trip property: to_langchain once left status at "success".
    result = ToolMessage.model_validate({"tool_call_id": "c", "content": "boom", "is_error": True})
    (converted,) = to_langchain([result])
    assert converted.status == "error"
    assert from_langchain([converted]) == [result]
    assert to_langchain([ToolMessage(tool_call_id="c", content="ok")])[0].status == "success"


def test_a_tool_error_status_is_kept_or_refused_never_dropped():
    message = lc.ToolMessage(content="boom", tool_call_id="c", status="error")
    if "is_error" in ToolMessage.model_fields:
        (read,) = from_langchain([message])
        assert read.is_error is True  # type: ignore[attr-defined]
    else:
        with pytest.raises(ConversionError, match="status='error'") as caught:
            from_langchain([message])
        assert caught.value.part == "status"


_blocks = st.one_of(
    st.text(max_size=5),
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["text", "image", "image_url", "file", "audio", "input_audio", "thinking", "tool_use", "x"]
            )
        },
        optional={
            "text": st.text(max_size=5),
            "url": st.text(max_size=8),
            "base64": st.sampled_from(["", "UklGRg==", "!!"]),
            "mime_type": st.sampled_from(["image/png", "audio/wav", "audio/ogg", ""]),
            "image_url": st.fixed_dictionaries({"url": st.text(max_size=5)}),
            "annotations": st.lists(st.just({}), max_size=1),
            "id": st.text(max_size=3),
            "cache_control": st.sampled_from(
                [None, {"type": "ephemeral"}, {"type": "ephemeral", "ttl": "2h"}, "x"]
            ),
            "extras": st.sampled_from([{}, {"cache_control": {"type": "ephemeral"}}]),
        },
    ),
)
_contents = st.one_of(st.text(max_size=5), st.lists(_blocks, max_size=3))
_kwargs = st.dictionaries(
    st.sampled_from(["refusal", "reasoning_content", "foo", "__openai_role__"]),
    st.text(max_size=3),
    max_size=2,
)
_lc_messages = st.one_of(
    st.builds(
        lambda c, k, n: lc.HumanMessage(content=c, additional_kwargs=k, name=n),
        _contents,
        _kwargs,
        st.none() | st.text(max_size=3),
    ),
    st.builds(lambda c, k: lc.SystemMessage(content=c, additional_kwargs=k), _contents, _kwargs),
    st.builds(
        lambda c, i, s: lc.ToolMessage(content=c, tool_call_id=i, status=s),
        _contents,
        st.text(max_size=3),
        st.sampled_from(["success", "error"]),
    ),
    st.builds(
        lambda c, k, calls: lc.AIMessage(content=c, additional_kwargs=k, tool_calls=calls),
        _contents,
        _kwargs,
        st.lists(
            st.builds(
                lambda n, i: {"name": n, "args": {}, "id": i, "type": "tool_call"},
                st.text(max_size=3),
                st.text(max_size=3) | st.none(),
            ),
            max_size=2,
        ),
    ),
)


@given(st.lists(_lc_messages, max_size=5))
@example([lc.HumanMessage(content=[{"type": "text"}])])  # found by this test: a KeyError once
@example([lc.HumanMessage(content=[{"type": "audio", "base64": "!!", "mime_type": "audio/wav"}])])
def test_fuzz_any_langchain_messages_read_as_messages_or_raise_a_conversion_error_naming_one(history):
    try:
        read = from_langchain(history)
    except ConversionError as error:
        assert_names_a_message(error, history)
        return
    assert len(read) == len(history)
    assert all(isinstance(m, (SystemMessage, UserMessage, AIMessage, ToolMessage)) for m in read)


def assert_names_a_message(error: ConversionError, history: list[Any]) -> None:
    assert error.index is not None
    assert 0 <= error.index < len(history)
    assert str(error).startswith(f"message {error.index}")


def test_an_empty_list_of_assistant_parts_is_refused_since_langchain_holds_none_that_way():
    conversation: list[Message] = [AIMessage(content=[])]
    with pytest.raises(ConversionError, match="empty list of parts") as caught:
        to_langchain(conversation)
    assert (caught.value.index, caught.value.part) == (0, "content")
