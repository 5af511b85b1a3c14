"""The real litellm.completion against a loopback stand-in: the dumped list is what goes on the wire,
and the reply comes back through AIMessage.from_litellm equal to what the server sent."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import AIMessage, SystemMessage, ToolCall, ToolMessage, UserMessage, dump_messages
from messages import strategies as ms
from messages.testing import StandInServer, scripted
from tests.conftest import send_kwargs

pytestmark = pytest.mark.litellm

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


def _without_signature(call_id: str) -> str:
    return call_id.split("__thought__", 1)[0]


def as_litellm_sends(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The changes litellm makes on the OpenAI route for gpt-4o-mini, and nothing else must change (the
    finding 'What the OpenAI route changes' of docs/litellm.md, measured here):

    * keys whose value is None are stripped, so an assistant's `content: null` is sent as no `content`
      key;
    * the `developer` role is sent as `system`, without its `name`;
    * a Gemini thought signature that litellm embedded in a tool-call id (`<id>__thought__<signature>`,
      quirk 25) is cut off the id, on the call and on its result alike, for every
      provider but Gemini (litellm utils.py, `_remove_thought_signatures_from_messages`).
    """
    sent = []
    for message in messages:
        message = {k: v for k, v in message.items() if v is not None}
        if message["role"] == "developer":
            message = {"role": "system", "content": message["content"]}
        if "tool_calls" in message:
            message["tool_calls"] = [
                {**call, "id": _without_signature(call["id"])} for call in message["tool_calls"]
            ]
        if "tool_call_id" in message:
            message["tool_call_id"] = _without_signature(message["tool_call_id"])
        sent.append(message)
    return sent


def _conversation() -> list[Any]:
    calls = [
        ToolCall(id="call_Ab12Cd34Ef56Gh78Ij90Kl", name="get_weather", arguments={"city": "Paris"}),
        ToolCall(id="call_Zz99", name="get_weather", arguments='{"city": "Tokyo"}'),
    ]
    return [
        SystemMessage(content="Be brief."),
        UserMessage(content="Weather in Paris and Tokyo?"),
        AIMessage(content=None, tool_calls=calls),
        ToolMessage.for_call(calls[1], {"sky": "clear"}),
        ToolMessage.for_call(calls[0], "rain"),
        AIMessage(content="Rain in Paris, clear in Tokyo."),
        UserMessage(content="Thanks!"),
    ]


REPLIES = {
    "text": AIMessage(content="You're welcome."),
    "tool calls": AIMessage(
        content=None,
        tool_calls=[
            ToolCall(id="call_1", name="get_weather", arguments='{"city": "Oslo"}'),
            ToolCall(id="call_2", name="get_weather", arguments='{"city":"Lima"}'),
        ],
    ),
    # "{}" rather than "": litellm's stream_chunk_builder writes "{}" for a call streamed with no argument
    # fragments, so "" would not survive the streamed case (a litellm choice, not a loss of data).
    "text and a call": AIMessage(
        content="Checking.", tool_calls=[ToolCall(id="call_3", name="get_weather", arguments="{}")]
    ),
}


@pytest.mark.parametrize("tools", [None, TOOLS], ids=["no tools", "tools"])
@pytest.mark.parametrize("reply", list(REPLIES), ids=list(REPLIES))
def test_wire_body_is_the_dump_and_the_reply_reads_back(litellm, tools, reply):
    expected = REPLIES[reply]
    conversation = _conversation()
    dumped = dump_messages(conversation)
    with StandInServer(scripted(expected)) as server:
        extra = {"tools": tools} if tools else {}
        response = litellm.completion(
            model="openai/gpt-4o-mini", messages=dumped, **extra, **send_kwargs(server)
        )
        body = server.last_body()
    assert body["messages"] == as_litellm_sends(dumped)
    if tools:
        assert body["tools"] == TOOLS
    assert AIMessage.from_litellm(response) == expected
    assert AIMessage.from_litellm(response.choices[0]) == expected
    assert AIMessage.from_litellm(response.choices[0].message) == expected


@pytest.mark.parametrize("tools", [None, TOOLS], ids=["no tools", "tools"])
@pytest.mark.parametrize("reply", list(REPLIES), ids=list(REPLIES))
def test_streamed_reply_reads_back_through_the_chunk_builder(litellm, tools, reply):
    expected = REPLIES[reply]
    dumped = dump_messages(_conversation())
    with StandInServer(scripted(expected)) as server:
        extra = {"tools": tools} if tools else {}
        chunks = list(
            litellm.completion(
                model="openai/gpt-4o-mini",
                messages=dumped,
                **extra,
                stream=True,
                stream_options={"include_usage": True},
                **send_kwargs(server),
            )
        )
        body = server.last_body()
    assert body["stream"] is True
    assert body["messages"] == as_litellm_sends(dumped)
    assert body.get("tools") == tools
    assert len(chunks) > 3
    assert AIMessage.from_litellm(litellm.stream_chunk_builder(chunks, messages=dumped)) == expected


@settings(max_examples=25)
@given(conversation=ms.conversations(extensions=False), stream=st.booleans())
def test_any_generated_conversation_goes_on_the_wire_unchanged(litellm, conversation, stream):
    dumped = dump_messages(conversation)
    with StandInServer() as server:
        # With usage in the stream litellm does not count tokens itself (which would try to fetch the
        # https image URLs of the conversation to size them).
        options = {"stream_options": {"include_usage": True}} if stream else {}
        result = litellm.completion(
            model="openai/gpt-4o-mini", messages=dumped, stream=stream, **options, **send_kwargs(server)
        )
        if stream:
            list(result)
        body = server.last_body()
    assert body["messages"] == as_litellm_sends(dumped)


@settings(max_examples=25)
@given(reply=ms.ai_messages(extensions=False).filter(lambda m: m.name is None and m.refusal is None))
def test_any_generated_reply_reads_back_equal(litellm, reply):
    # The stand-in serves the reply as OpenAI would, text parts joined into one string; from_litellm gives
    # back the same message, with "" beside tool calls read as None.
    with StandInServer(scripted(reply)) as server:
        response = litellm.completion(
            model="openai/gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], **send_kwargs(server)
        )
    text = "".join(p.text for p in reply.content) if isinstance(reply.content, list) else reply.content
    expected = reply.model_copy(update={"content": None if reply.tool_calls and not text else text})
    assert AIMessage.from_litellm(response) == expected
