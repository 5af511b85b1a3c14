"""Messages to Responses API input items and replies back, checked against the OpenAI SDK's own Responses
types, and a remote thread driven through the real `litellm.responses` against the loopback stand-in."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from pydantic import ConfigDict, TypeAdapter

from messages import (
    AIMessage,
    AudioPart,
    ConversionError,
    FilePart,
    ImagePart,
    Message,
    MessageTypeError,
    RemoteThread,
    ReplyError,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UnsupportedContentError,
    UserMessage,
    VideoPart,
    from_responses_items,
    from_responses_output,
    to_responses_items,
)
from messages import strategies as ms
from messages.testing import OpenAIResponsesRoute, StandInServer, scripted
from messages.testing._responses import responses_events, responses_object
from tests.oracles import materialize


@cache
def _input_items() -> TypeAdapter[Any]:
    from openai.types.responses import ResponseInputItemParam

    return TypeAdapter(list[ResponseInputItemParam], config=ConfigDict(extra="forbid"))


def responses_accepts(items: list[dict[str, Any]]) -> list[Any]:
    """Validate input items against the OpenAI SDK's ``ResponseInputItemParam``, extra keys forbidden."""
    return materialize(_input_items().validate_python(items))


CALL = ToolCall(id="call_1", name="get_weather", arguments='{"city": "Paris"}')
PNG = "data:image/png;base64,iVBORw0KGgo="


def test_each_kind_of_message_becomes_the_items_the_responses_api_documents():
    conversation: list[Message] = [
        SystemMessage(content="Be brief."),
        SystemMessage(role="developer", content=[TextPart(text="Use "), TextPart(text="metric units.")]),
        UserMessage(
            content=[
                TextPart(text="What is on these?"),
                ImagePart(url="https://example.com/a.png"),
                ImagePart(url=PNG, detail="high"),
                FilePart(file_data="data:application/pdf;base64,JVBERi0=", filename="report.pdf"),
                FilePart(file_id="file-abc"),
            ]
        ),
        AIMessage(content="Let me look.", tool_calls=[CALL]),
        ToolMessage(tool_call_id="call_1", content='{"sky": "rain"}'),
        AIMessage(content="I cannot help with that."),
        ToolMessage.for_call(
            ToolCall(id="call_2", name="chart"), [TextPart(text="chart:"), ImagePart(url=PNG)]
        ),
    ]
    items = to_responses_items(conversation[:6]) + to_responses_items(conversation[6:])
    assert items == [
        {"type": "message", "role": "system", "content": "Be brief."},
        {
            "type": "message",
            "role": "developer",
            "content": [
                {"type": "input_text", "text": "Use "},
                {"type": "input_text", "text": "metric units."},
            ],
        },
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What is on these?"},
                {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "auto"},
                {"type": "input_image", "image_url": PNG, "detail": "high"},
                {
                    "type": "input_file",
                    "file_data": "data:application/pdf;base64,JVBERi0=",
                    "filename": "report.pdf",
                },
                {"type": "input_file", "file_id": "file-abc"},
            ],
        },
        {"type": "message", "role": "assistant", "content": "Let me look."},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": '{"sky": "rain"}'},
        {"type": "message", "role": "assistant", "content": "I cannot help with that."},
        {
            "type": "function_call_output",
            "call_id": "call_2",
            "output": [
                {"type": "input_text", "text": "chart:"},
                {"type": "input_image", "image_url": PNG, "detail": "auto"},
            ],
        },
    ]
    responses_accepts(items)
    # And back: the same messages, but for the two images whose unset detail went out as "auto".
    back = from_responses_items(items)
    user, tool = conversation[2], conversation[6]
    assert isinstance(user.content, list)
    assert isinstance(tool.content, list)
    auto = ImagePart(url="https://example.com/a.png", detail="auto")
    expected = [
        *conversation[:2],
        user.model_copy(update={"content": [user.content[0], auto, *user.content[2:]]}),
        *conversation[3:6],
        tool.model_copy(update={"content": [tool.content[0], ImagePart(url=PNG, detail="auto")]}),
    ]
    assert back == expected


def _texts(message: Message) -> list[str]:
    if isinstance(message.content, str):
        return [message.content]
    return [part.text for part in message.content or [] if isinstance(part, TextPart)]


def _has_audio(conversation: list[Message]) -> bool:
    """Audio or video anywhere, or media in an assistant turn: content the Responses API cannot take."""
    return any(
        isinstance(part, AudioPart | VideoPart)
        or (isinstance(m, AIMessage) and not isinstance(part, TextPart))
        for m in conversation
        if isinstance(m.content, list)
        for part in m.content
    )


@settings(max_examples=30)
@given(ms.conversations(extensions=False))
def test_conversations_become_items_the_sdk_accepts_keeping_every_call_result_and_text(conversation):
    if _has_audio(conversation):
        # Audio is refused (UnsupportedContentError), unless an earlier message's name or refusal is first.
        with pytest.raises(ConversionError):
            to_responses_items(conversation)
        return
    try:
        items = to_responses_items(conversation)
    except ConversionError:  # tests/test_convert_responses.py checks that each one is justified
        return
    responses_accepts(items)
    calls = [
        (c.id, c.name, c.arguments) for m in conversation if isinstance(m, AIMessage) for c in m.tool_calls
    ]
    assert [(i["call_id"], i["name"], i["arguments"]) for i in items if i["type"] == "function_call"] == calls
    results = [m.tool_call_id for m in conversation if isinstance(m, ToolMessage)]
    assert [i["call_id"] for i in items if i["type"] == "function_call_output"] == results
    said = [t for m in conversation if isinstance(m, (UserMessage, SystemMessage)) for t in _texts(m)]
    sent = [
        part["text"]
        for i in items
        if i["type"] == "message" and i["role"] != "assistant"
        for part in (
            [{"type": "input_text", "text": i["content"]}] if isinstance(i["content"], str) else i["content"]
        )
        if part["type"] == "input_text"
    ]
    assert sent == said


def test_audio_is_refused_naming_the_message_and_part():
    conversation = [
        UserMessage(content="hi"),
        UserMessage(content=[TextPart(text="listen:"), AudioPart(data="UklGRg==", format="wav")]),
    ]
    with pytest.raises(
        UnsupportedContentError, match=r"^message 1, content part 1: .* no audio input"
    ) as caught:
        to_responses_items(conversation)
    assert (caught.value.index, caught.value.part) == (1, 1)
    assert isinstance(caught.value, ConversionError)
    assert isinstance(caught.value, ValueError)


def test_only_messages_are_converted():
    with pytest.raises(MessageTypeError, match="message 0 is a dict"):
        to_responses_items([{"role": "user", "content": "hi"}])


def _response_oracle(data: dict[str, Any]) -> Any:
    from openai.types.responses import Response

    return Response.model_validate(data)


@pytest.mark.parametrize(
    "reply",
    [
        AIMessage(content="Rain in Paris."),
        AIMessage(content=None, tool_calls=[CALL, ToolCall(id="call_2", name="get_time", arguments="{}")]),
        AIMessage(content="Checking.", tool_calls=[CALL], reasoning_content="The user wants weather."),
        AIMessage(content=None, refusal="I cannot help with that."),
    ],
    ids=["text", "calls", "text-calls-reasoning", "refusal"],
)
def test_a_reply_reads_back_as_the_message_the_model_sent(reply):
    body = {"model": "gpt-4o-mini", "input": [{"role": "user", "content": "hi"}]}
    data = responses_object(body, reply)
    sdk_response = _response_oracle(data)  # the stand-in's reply is a Response as the SDK reads it
    assert from_responses_output(data) == reply
    assert from_responses_output(sdk_response) == reply


def test_the_stand_ins_stream_events_are_events_the_sdk_reads():
    from openai.types.responses import ResponseStreamEvent

    reply = AIMessage(content="Checking the sky.", tool_calls=[CALL], reasoning_content="Weather asked.")
    events = list(responses_events({"model": "gpt-4o-mini", "input": []}, reply))
    adapter = TypeAdapter(ResponseStreamEvent)
    for event in events:
        adapter.validate_python(event)
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[-1]["type"] == "response.completed"
    assert from_responses_output(events[-1]["response"]) == reply
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    arguments = "".join(e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta")
    assert (text, arguments) == (reply.content, CALL.arguments)


@pytest.mark.parametrize(
    ("response", "match"),
    [
        (
            {"id": "r", "status": "failed", "error": {"message": "rate limited"}, "output": []},
            "failed.*rate limited",
        ),
        (
            {"id": "r", "output": [{"type": "web_search_call", "id": "ws"}]},
            "output item 0 is a 'web_search_call'",
        ),
        ({"id": "r", "output": None}, "no output list"),
        (
            {"id": "r", "output": [{"type": "message", "content": [{"type": "audio", "data": "x"}]}]},
            "output item 0 \\(message\\) has a 'audio' content part",
        ),
    ],
    ids=["failed", "hosted-tool", "no-output", "unknown-part"],
)
def test_replies_that_cannot_be_read_say_why(response, match):
    with pytest.raises(ReplyError, match=match):
        from_responses_output(response)


def test_a_reply_without_an_id_cannot_continue_a_thread():
    with pytest.raises(ReplyError, match="no response id"):
        RemoteThread().add(UserMessage(content="hi")).receive({"output": []})


def _call(litellm, server: StandInServer, thread: RemoteThread, **extra: Any) -> Any:
    return litellm.responses(
        model="openai/gpt-4o-mini",
        api_base=server.url,
        api_key="test-key",
        num_retries=0,
        timeout=30,
        **thread.request(),
        **extra,
    )


@pytest.mark.litellm
def test_a_remote_thread_runs_a_tool_loop_through_litellm_responses(litellm):
    calls = [CALL, ToolCall(id="call_2", name="get_weather", arguments='{"city": "Lyon"}')]
    route = OpenAIResponsesRoute()
    replies = scripted(
        AIMessage(content=None, tool_calls=calls), AIMessage(content="Rain in Paris, sun in Lyon.")
    )
    with StandInServer(replies, routes=[route]) as server:
        thread = RemoteThread().add(
            [SystemMessage(content="Be brief."), UserMessage(content="Weather in Paris and Lyon?")]
        )
        thread, reply = thread.receive(_call(litellm, server, thread))
        assert reply.tool_calls == calls
        assert thread.open_calls == ("call_1", "call_2")
        thread = thread.add([ToolMessage.for_call(calls[0], "rain"), ToolMessage.for_call(calls[1], "sun")])
        thread, reply = thread.receive(_call(litellm, server, thread))
        first, second = server.bodies()
    assert reply == AIMessage(content="Rain in Paris, sun in Lyon.")
    assert (thread.open_calls, thread.pending) == ((), ())
    # What litellm put on the wire: the first turn's messages, then only the results, chained by id.
    assert first["input"] == [
        {"type": "message", "role": "system", "content": "Be brief."},
        {"type": "message", "role": "user", "content": "Weather in Paris and Lyon?"},
    ]
    assert first["store"] is True
    assert "previous_response_id" not in first
    assert second["previous_response_id"] == route.issued[0]
    assert second["input"] == [
        {"type": "function_call_output", "call_id": "call_1", "output": "rain"},
        {"type": "function_call_output", "call_id": "call_2", "output": "sun"},
    ]
    responses_accepts(first["input"] + second["input"])


@pytest.mark.litellm
def test_a_remote_thread_reads_a_streamed_reply_from_its_completed_event(litellm):
    route = OpenAIResponsesRoute()
    with StandInServer(
        scripted(AIMessage(content="Streaming works.", tool_calls=[CALL])), routes=[route]
    ) as server:
        thread = RemoteThread(response_id=None).add(UserMessage(content="Stream, please."))
        events = list(_call(litellm, server, thread, stream=True))
        completed = [e for e in events if getattr(e, "type", None) == "response.completed"]
        assert len(completed) == 1
        thread, reply = thread.receive(completed[0].response)
        assert server.last_body()["stream"] is True
    assert reply == AIMessage(content="Streaming works.", tool_calls=[CALL])
    assert thread.open_calls == ("call_1",)
    assert thread.response_id is not None


@pytest.mark.litellm
def test_a_remote_thread_sends_earlier_tool_calls_and_results_as_items_through_litellm_responses(litellm):
    # A thread that starts from a local history with a finished tool exchange, then continues after the
    # service's own tool call: the history's call goes out as a function_call item and its result as a
    # function_call_output, through litellm's real request building, as the Responses API documents them.
    earlier = ToolCall(id="call_0", name="get_weather", arguments='{"city": "Paris"}')
    later = ToolCall(id="call_9", name="get_forecast", arguments='{"city": "Paris", "days": 2}')
    route = OpenAIResponsesRoute()
    replies = scripted(AIMessage(content=None, tool_calls=[later]), AIMessage(content="Rain, then sun."))
    with StandInServer(replies, routes=[route]) as server:
        thread = RemoteThread().add(
            [
                UserMessage(content="Weather in Paris?"),
                AIMessage(content=None, tool_calls=[earlier]),
                ToolMessage.for_call(earlier, '{"sky": "rain"}'),
                AIMessage(content="Rain."),
                UserMessage(content="And the next two days?"),
            ]
        )
        thread, reply = thread.receive(_call(litellm, server, thread))
        assert reply.tool_calls == [later]
        thread = thread.add(ToolMessage.for_call(later, '["rain", "sun"]'))
        thread, reply = thread.receive(_call(litellm, server, thread))
        first, second = server.bodies()
    assert reply == AIMessage(content="Rain, then sun.")
    assert first["input"] == [
        {"type": "message", "role": "user", "content": "Weather in Paris?"},
        {
            "type": "function_call",
            "call_id": "call_0",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {"type": "function_call_output", "call_id": "call_0", "output": '{"sky": "rain"}'},
        {"type": "message", "role": "assistant", "content": "Rain."},
        {"type": "message", "role": "user", "content": "And the next two days?"},
    ]
    assert "previous_response_id" not in first
    assert second["previous_response_id"] == route.issued[0]
    assert second["input"] == [
        {"type": "function_call_output", "call_id": "call_9", "output": '["rain", "sun"]'}
    ]
    responses_accepts(first["input"] + second["input"])


@pytest.mark.parametrize(
    ("message", "part"),
    [
        (UserMessage(content="hi", name="alice"), "name"),
        (AIMessage(content="x", reasoning_content="because"), "reasoning_content"),
        (
            AIMessage(content="x", thinking_blocks=[{"type": "thinking", "thinking": "t", "signature": "s"}]),
            "thinking_blocks",
        ),
        (AIMessage(content="x", provider_specific_fields={"citations": []}), "provider_specific_fields"),
        (AIMessage(content=None, refusal="no"), "refusal"),
    ],
)
def test_a_remote_thread_refuses_what_input_items_cannot_carry_instead_of_dropping_it(message, part):
    thread = RemoteThread().add([UserMessage(content="hi"), message])
    with pytest.raises(ConversionError, match=r"^message 1: ") as caught:
        thread.request()
    assert (caught.value.index, caught.value.part) == (1, part)
