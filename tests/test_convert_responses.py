"""Whole conversations to Responses API input items and back (messages.convert): equal after the round trip,
or a ConversionError naming a message and a field it really has; the items checked against the OpenAI SDK's
own input types and read by litellm's own Responses-to-chat transformation; named cases from OpenAI's docs.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import (
    AIMessage,
    AudioPart,
    ConversionError,
    FilePart,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
    VideoPart,
)
from messages import strategies as ms
from messages.convert import from_responses_items, to_responses_items
from tests.test_responses import responses_accepts

_PROVIDER_FIELDS = ("reasoning_content", "thinking_blocks", "provider_specific_fields")


def auto_detail(conversation: list[Message]) -> list[Message]:
    """The conversation as it reads back: an image with no detail went out as "auto" (which the API
    requires)."""

    def part(p: Any) -> Any:
        return ImagePart(url=p.url, detail="auto") if isinstance(p, ImagePart) and p.detail is None else p

    return [
        m.model_copy(update={"content": [part(p) for p in m.content]}) if isinstance(m.content, list) else m
        for m in conversation
    ]


def assert_justified(conversation: list[Message], error: ConversionError) -> None:
    """The message the error names really holds what the error says items cannot carry."""
    assert error.index is not None
    message = conversation[error.index]
    assert str(error).startswith(f"message {error.index}")
    if isinstance(error.part, int):
        assert isinstance(message.content, list)
        assert _plain_part(message.content[error.part]) is not message.content[error.part]
    elif error.part in ("name", "refusal", *_PROVIDER_FIELDS, *_NEW_FIELDS):
        assert getattr(message, error.part) is not None
    elif error.part == "content":
        assert isinstance(message, AIMessage)
        assert isinstance(message.content, list) or (message.content is None and not message.tool_calls)
    else:
        assert error.part == "tool_calls"
        assert isinstance(message, AIMessage)
        assert any(c.provider_specific_fields for c in message.tool_calls) or (
            message.content is None and isinstance(conversation[error.index - 1], AIMessage)
        )


def unnamed_results(conversation: list[Message]) -> list[Message]:
    """The conversation as it reads back: a tool result's name, its call's own, is left out of the items
    (the function_call item carries it) and does not come back."""
    return [m.model_copy(update={"name": None}) if isinstance(m, ToolMessage) else m for m in conversation]


def named_after_calls(conversation: list[Message]) -> list[Message]:
    """Every tool result named after the tool its call calls, as LangGraph's tool node names them."""
    names: dict[str, str] = {}
    out: list[Message] = []
    for m in conversation:
        if isinstance(m, AIMessage):
            names = {c.id: c.name for c in m.tool_calls}
        elif isinstance(m, ToolMessage):
            m = m.model_copy(update={"name": names[m.tool_call_id]})
        out.append(m)
    return out


@given(ms.conversations())
def test_every_conversation_round_trips_or_names_what_items_cannot_carry(conversation):
    try:
        items = to_responses_items(conversation)
    except ConversionError as error:
        assert_justified(conversation, error)
        return
    # A tool result named anything but its call's name is refused above; its call's name does not come back.
    assert from_responses_items(items) == unnamed_results(auto_detail(conversation))


_NEW_FIELDS = ("cache_control", "is_error", "annotations", "images", "audio")
"""Fields of issue 12 that Responses API input has no place for."""


def _plain_part(p: Any) -> Any:
    """``p`` without what an ``input_*`` item cannot carry (itself when it carries all of it)."""
    if isinstance(p, AudioPart | VideoPart):
        return TextPart(text="media")
    if isinstance(p, TextPart) and p.cache_control is not None:
        return TextPart(text=p.text)
    if isinstance(p, ImagePart) and (isinstance(p.image_url, str) or p.image_url.format is not None):
        return ImagePart(url=p.url, detail=p.detail)
    if isinstance(p, FilePart) and any(
        getattr(p.file, name) is not None for name in ("format", "detail", "video_metadata")
    ):
        return FilePart(file_data=p.file.file_data, file_id=p.file.file_id, filename=p.file.filename)
    return p


def carriable(conversation: list[Message]) -> list[Message]:
    """The conversation without what items cannot carry (names, provider payloads, audio, refusals ...)."""
    out: list[Message] = []
    for message in conversation:
        update: dict[str, Any] = {"name": None, "cache_control": None}
        if isinstance(message, ToolMessage):
            update["is_error"] = None
        if isinstance(message.content, list):
            update["content"] = [_plain_part(p) for p in message.content]
        if isinstance(message, AIMessage):
            update |= dict.fromkeys(("annotations", "images", "audio"))
            text = message.content
            if isinstance(text, list):
                text = "".join(p.text for p in text if isinstance(p, TextPart))
            if text is None and (not message.tool_calls or (out and isinstance(out[-1], AIMessage))):
                text = message.refusal or ""
            calls = [c.model_copy(update={"provider_specific_fields": None}) for c in message.tool_calls]
            update |= dict.fromkeys(_PROVIDER_FIELDS) | {"refusal": None, "provider": None}
            update |= {"content": text, "tool_calls": calls}
        out.append(message.model_copy(update=update))
    return out


@given(ms.conversations().map(carriable))
def test_tool_results_named_after_their_calls_convert_and_come_back_unnamed(conversation):
    named = named_after_calls(conversation)
    items = to_responses_items(named)
    responses_accepts(items)
    assert items == to_responses_items(conversation)  # the name adds nothing the items do not already say
    assert from_responses_items(items) == auto_detail(conversation)


def test_a_langgraph_history_converts_to_responses_items():
    # LangGraph's tool node answers each call with a LangChain ToolMessage named after the tool; read through
    # the LangChain converter, the names arrive on our tool messages.
    from langchain_core import messages as lc

    from messages.convert import from_langchain

    history = [
        lc.HumanMessage("Weather in Paris and Oslo?"),
        lc.AIMessage(
            "",
            tool_calls=[
                {"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}},
                {"id": "call_2", "name": "get_time", "args": {"city": "Oslo"}},
            ],
        ),
        lc.ToolMessage("rain", tool_call_id="call_1", name="get_weather"),
        lc.ToolMessage("14:00", tool_call_id="call_2", name="get_time"),
        lc.AIMessage("Rain in Paris; it is 14:00 in Oslo."),
    ]
    conversation = from_langchain(history)
    assert [m.name for m in conversation if isinstance(m, ToolMessage)] == ["get_weather", "get_time"]
    items = to_responses_items(conversation)
    responses_accepts(items)
    assert [(i["type"], i.get("name")) for i in items if i["type"].startswith("function")] == [
        ("function_call", "get_weather"),
        ("function_call", "get_time"),
        ("function_call_output", None),
        ("function_call_output", None),
    ]
    assert from_responses_items(items) == unnamed_results(conversation)


@pytest.mark.parametrize(
    ("name", "said"),
    [("get_time", "its call ('call_1', message 1) calls 'get_weather'"), ("", "calls 'get_weather'")],
)
def test_a_tool_result_named_otherwise_than_its_call_is_refused(name, said):
    call = ToolCall(id="call_1", name="get_weather", arguments="{}")
    conversation = [
        UserMessage(content="Weather?"),
        AIMessage(tool_calls=[call]),
        ToolMessage(tool_call_id="call_1", content="rain", name=name),
    ]
    with pytest.raises(ConversionError, match="the tool result is named") as info:
        to_responses_items(conversation)
    assert (info.value.index, info.value.part) == (2, "name")
    assert said in str(info.value)


@given(ms.conversations().map(carriable))
def test_what_items_can_carry_round_trips_and_the_sdk_and_litellm_read_it_as_sent(litellm, conversation):
    items = to_responses_items(conversation)
    responses_accepts(items)
    assert from_responses_items(items) == auto_detail(conversation)
    # litellm's own reading of Responses input, as it bridges to chat-completion providers: the same calls,
    # results and texts, in the same order.
    from litellm.responses.litellm_completion_transformation.transformation import (
        LiteLLMCompletionResponsesConfig,
    )

    chat = LiteLLMCompletionResponsesConfig.transform_responses_api_input_to_messages(items, {})
    chat = [dict(m) for m in chat]
    theirs_calls = [
        (c["id"], c["function"]["name"], c["function"]["arguments"])
        for m in chat
        for c in m.get("tool_calls") or []
    ]
    ours_calls = [
        (c.id, c.name, c.arguments or "{}")
        for m in conversation
        if isinstance(m, AIMessage)
        for c in m.tool_calls
    ]
    assert [(i, n) for i, n, _ in theirs_calls] == [(i, n) for i, n, _ in ours_calls]
    theirs_results = [m["tool_call_id"] for m in chat if m["role"] == "tool"]
    assert theirs_results == [m.tool_call_id for m in conversation if isinstance(m, ToolMessage)]
    theirs_texts = [
        m["content"]
        for m in chat
        if m["role"] in ("user", "system", "developer") and isinstance(m["content"], str)
    ]
    ours_texts = [
        m.content
        for m in conversation
        if isinstance(m, (UserMessage, SystemMessage)) and isinstance(m.content, str)
    ]
    assert theirs_texts == ours_texts


_wild_parts = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["input_text", "output_text", "input_image", "input_file", "input_audio", "refusal", "x"]
        )
    },
    optional={
        "text": st.one_of(st.text(max_size=5), st.none()),
        "image_url": st.text(max_size=5),
        "detail": st.sampled_from(["auto", "low", "bad"]),
        "file_id": st.text(max_size=5),
        "annotations": st.lists(st.just({}), max_size=1),
    },
)
_wild_items = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(
            ["message", "function_call", "function_call_output", "reasoning", "web_search_call"]
        ),
        "role": st.sampled_from(["user", "system", "developer", "assistant", "tool"]),
        "content": st.one_of(st.text(max_size=5), st.lists(_wild_parts, max_size=3), st.integers()),
        "call_id": st.text(max_size=5),
        "name": st.text(max_size=5),
        "arguments": st.text(max_size=5),
        "output": st.one_of(st.text(max_size=5), st.lists(_wild_parts, max_size=2)),
        "summary": st.lists(
            st.fixed_dictionaries({"type": st.just("summary_text"), "text": st.text(max_size=5)}), max_size=2
        ),
    },
)


def assert_names_an_item(error: ConversionError, items: list[Any]) -> None:
    assert error.index is not None
    assert 0 <= error.index < len(items)
    assert str(error).startswith(f"item {error.index}")


@given(st.lists(_wild_items, max_size=6))
def test_fuzz_any_items_read_as_messages_or_raise_a_conversion_error_naming_the_item(items):
    try:
        read = from_responses_items(items)
    except ConversionError as error:
        assert_names_an_item(error, items)
        return
    assert all(isinstance(m, (SystemMessage, UserMessage, AIMessage, ToolMessage)) for m in read)


def test_openai_docs_function_calling_loop_reads_back_as_a_call_and_its_result():
    # OpenAI's function calling guide (Responses API): the user's question, the model's function_call output
    # item appended as is (with its id and status), and the function_call_output the app adds.
    items = [
        {"role": "user", "content": "What's the weather like in Paris today?"},
        {
            "type": "function_call",
            "id": "fc_12345xyz",
            "call_id": "call_12345xyz",
            "name": "get_weather",
            "arguments": '{"latitude":48.8566,"longitude":2.3522}',
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": "call_12345xyz", "output": "14"},
    ]
    call = ToolCall(
        id="call_12345xyz", name="get_weather", arguments='{"latitude":48.8566,"longitude":2.3522}'
    )
    assert from_responses_items(items) == [
        UserMessage(content="What's the weather like in Paris today?"),
        AIMessage(content=None, tool_calls=[call]),
        ToolMessage(tool_call_id="call_12345xyz", content="14"),
    ]


def test_openai_docs_conversation_state_keeps_the_services_output_message_and_refusal():
    # OpenAI's conversation state guide appends the response's output items to the next input: an output
    # message holds output_text parts (with annotations) and, when the model refused, a refusal part.
    items = [
        {"role": "user", "content": "knock knock."},
        {
            "type": "message",
            "id": "msg_1",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Who's there?", "annotations": []}],
        },
        {"role": "user", "content": "Orange."},
        {
            "type": "message",
            "id": "msg_2",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "refusal", "refusal": "I can't help with that."}],
        },
    ]
    assert from_responses_items(items) == [
        UserMessage(content="knock knock."),
        AIMessage(content="Who's there?"),
        UserMessage(content="Orange."),
        AIMessage(content=None, refusal="I can't help with that."),
    ]


def test_a_reasoning_summary_becomes_the_next_turns_reasoning_and_encrypted_reasoning_is_refused():
    summary = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Think."}]}
    call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    assert from_responses_items([{"role": "user", "content": "hi"}, summary, call]) == [
        UserMessage(content="hi"),
        AIMessage(
            content=None, tool_calls=[ToolCall(id="c1", name="f", arguments="{}")], reasoning_content="Think."
        ),
    ]
    with pytest.raises(ConversionError, match=r"^item 0: a reasoning item with encrypted") as caught:
        from_responses_items([{**summary, "encrypted_content": "gAAA"}])
    assert (caught.value.index, caught.value.part) == (0, "encrypted_content")


def test_items_of_hosted_tools_are_refused_naming_the_item():
    with pytest.raises(ConversionError, match=r"^item 1: a 'web_search_call' item") as caught:
        from_responses_items([{"role": "user", "content": "hi"}, {"type": "web_search_call", "id": "ws_1"}])
    assert (caught.value.index, caught.value.part) == (1, "type")


def test_two_assistant_turns_that_items_would_join_are_refused():
    call = ToolCall(id="c1", name="f")
    conversation: list[Message] = [
        UserMessage(content="hi"),
        AIMessage(content="Let me see."),
        AIMessage(tool_calls=[call]),
    ]
    with pytest.raises(
        ConversionError, match=r"^message 2: an assistant turn that starts with tool calls"
    ) as caught:
        to_responses_items(conversation)
    assert (caught.value.index, caught.value.part) == (2, "tool_calls")
    # Text first, then the calls, in one turn: that is what the items hold.
    merged = [conversation[0], AIMessage(content="Let me see.", tool_calls=[call])]
    assert from_responses_items(to_responses_items(merged)) == merged
