"""StreamAccumulator: streams that litellm's real parser produces from stand-in providers, and the hard cases.

Three kinds of test:

* equality with ``AIMessage.from_litellm(litellm.stream_chunk_builder(chunks))`` on the chunks the real
  ``litellm.completion(..., stream=True)`` yields from the server-sent events of the OpenAI, Anthropic and
  Gemini stand-ins on loopback, for named replies and generated ones;
* named hard cases (shared index with different ids, ``"0"`` and ``None`` indexes, interleaved argument
  fragments, reasoning, usage, empty streams, ``n > 1``, unreadable chunks), each against the message the
  stream means, written out by hand;
* properties: any generated reply streamed as OpenAI streams it, cut at any chunk size, accumulates back to
  itself (less what the OpenAI wire cannot carry), and every partial on the way is a prefix of the end.

Where litellm's builder is not the truth, the comparison normalizes in stated places: a streamed refusal,
which the builder never reads (``as_builder_reads``), and, with a builder that loses it (litellm before
1.83.14), the finish reason the stream gave before a chunk with none (``builder_finish_reason``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import AIMessage, ReplyError, StreamAccumulator, StreamDelta, ToolCall
from messages import strategies as ms
from messages.testing import (
    AnthropicMessagesRoute,
    GeminiRoute,
    OpenAIChatRoute,
    StandInServer,
    scripted,
)
from messages.testing._openai import openai_stream_chunks, reply_text, word_count
from messages.testing._server import Reply, Responder
from tests.conftest import close_stream, send_kwargs

MODELS = {
    "openai": "openai/gpt-4o-mini",
    "anthropic": "anthropic/claude-sonnet-4-5",
    "gemini": "gemini/gemini-2.5-flash",
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
USER = [{"role": "user", "content": "Weather in Paris and Tokyo?"}]


def accumulate(chunks: list[Any], **options: Any) -> StreamAccumulator:
    accumulator = StreamAccumulator(**options)
    for chunk in chunks:
        accumulator.add(chunk)
    return accumulator


def stream_from(litellm: Any, provider: str, reply: AIMessage | Responder) -> list[Any]:
    """The chunks the real litellm yields for ``reply`` served by the provider's stand-in."""
    routes = [OpenAIChatRoute(), AnthropicMessagesRoute(), GeminiRoute()]
    responder = reply if callable(reply) else scripted(reply)
    with StandInServer(responder, routes=routes) as server:
        stream = litellm.completion(
            model=MODELS[provider],
            messages=USER,
            tools=TOOLS,
            stream=True,
            # with usage in the stream litellm does not count tokens itself
            stream_options={"include_usage": True},
            **send_kwargs(server),
        )
        try:
            chunks = list(stream)
        finally:
            close_stream(stream)
        assert server.requests[-1].route == provider
    return chunks


def as_builder_reads(message: AIMessage) -> AIMessage:
    """``message`` as ``litellm.stream_chunk_builder`` would assemble its stream, where litellm is not the
    truth: the builder never reads ``delta.refusal``, so a streamed refusal is lost there (on litellm's own
    streams refusals are lost earlier still, in its stream wrapper: see the test of that below)."""
    return message.model_copy(update={"refusal": None})


_BUILDER_KEEPS_FINISH_REASON: list[bool] = []


def builder_keeps_finish_reason(litellm: Any) -> bool:
    """Whether the installed litellm's ``stream_chunk_builder`` keeps a finish reason that a chunk with
    none follows (the usage chunk litellm before 1.83.14 yields after it): measured once, on two chunks made
    with litellm's own types. The builder that loses it answers ``"stop"``."""
    if not _BUILDER_KEEPS_FINISH_REASON:
        from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices

        def made(finish: str | None) -> Any:
            choice = StreamingChoices(
                index=0, finish_reason=finish, delta=Delta(content="x" if finish else None)
            )
            return ModelResponseStream(id="probe", created=1, model="m", choices=[choice])

        built = litellm.stream_chunk_builder([made("tool_calls"), made(None)])
        _BUILDER_KEEPS_FINISH_REASON.append(built.choices[0].finish_reason == "tool_calls")
    return _BUILDER_KEEPS_FINISH_REASON[0]


def builder_finish_reason(litellm: Any, chunks: list[Any], response: Any) -> str | None:
    """The finish reason ``response`` (the builder's) says, or, where the builder loses it, the last one
    the chunks said (``builder_keeps_finish_reason``)."""
    if builder_keeps_finish_reason(litellm):
        return response.choices[0].finish_reason
    said = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    return said[-1] if said else response.choices[0].finish_reason


def assert_matches_builder(litellm: Any, chunks: list[Any]) -> StreamAccumulator:
    accumulator = accumulate(chunks)
    response = litellm.stream_chunk_builder(chunks)
    assert as_builder_reads(accumulator.message()) == AIMessage.from_litellm(response)
    assert accumulator.finish_reason == builder_finish_reason(litellm, chunks, response)
    usage = accumulator.usage
    assert usage is not None
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        assert usage[key] == getattr(response.usage, key), key
    return accumulator


# -- equal to litellm's builder on streams litellm parses from the stand-ins ---------------------------------

CALLS = [
    ToolCall(id="toolu_01Paris", name="get_weather", arguments='{"city": "Paris"}'),
    ToolCall(
        id="toolu_02Tokyo",
        name="get_weather",
        arguments='{"city":"東京"}',
        provider_specific_fields={"thought_signature": "c2lnbmVkLXRva3lv"},
    ),
]
REPLIES = {
    "text": AIMessage(content="Paris: light rain, 14 °C. Tokyo: clear, 22 °C 🌞"),
    "empty text": AIMessage(content=""),
    "parallel calls": AIMessage(content=None, tool_calls=CALLS),
    "text and a call without arguments": AIMessage(
        content="Let me look.", tool_calls=[ToolCall(id="toolu_03", name="get_time", arguments="")]
    ),
    "reasoning, signed thinking and a signed call": AIMessage(
        content="Checking Tokyo.",
        reasoning_content="The user wants Tokyo.",
        thinking_blocks=[
            {"type": "thinking", "thinking": "The user wants Tokyo.", "signature": "RXF1aXZhbGVudA=="},
            {"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="},
        ],
        tool_calls=CALLS[1:],
        provider="anthropic",
    ),
}


@pytest.mark.litellm
@pytest.mark.parametrize("reply", list(REPLIES), ids=list(REPLIES))
@pytest.mark.parametrize("provider", list(MODELS))
def test_equals_the_chunk_builder_on_streams_litellm_parses(litellm, provider, reply):
    chunks = stream_from(litellm, provider, REPLIES[reply])
    assert len(chunks) >= 2
    assert_matches_builder(litellm, chunks)


@pytest.mark.litellm
@pytest.mark.parametrize("provider", list(MODELS))
def test_what_each_provider_stream_gives_back(litellm, provider):
    # The message itself, not only its equality with the builder: what survives each wire.
    reply = REPLIES["reasoning, signed thinking and a signed call"]
    message = accumulate(stream_from(litellm, provider, reply)).message()
    assert message.content == "Checking Tokyo."
    assert message.reasoning_content == "The user wants Tokyo."
    [call] = message.tool_calls
    assert call.name == "get_weather"
    assert json.loads(call.arguments) == {"city": "東京"}
    if provider == "anthropic":
        assert message.thinking_blocks == reply.thinking_blocks
        assert call.id == "toolu_02Tokyo"
        assert message.provider == "anthropic"
    elif provider == "gemini":
        # Gemini has no call ids: litellm makes one up and appends the thought signature to it.
        assert call.id.startswith("call_")
        assert call.id.endswith("__thought__c2lnbmVkLXRva3lv")
        assert call.provider_specific_fields == {"thought_signature": "c2lnbmVkLXRva3lv"}
        assert message.provider == "gemini"
    else:
        assert call == ToolCall(id="toolu_02Tokyo", name="get_weather", arguments='{"city":"東京"}')
        assert message.provider is None


@pytest.mark.litellm
@pytest.mark.parametrize("provider", list(MODELS))
def test_a_call_without_arguments_on_each_wire(litellm, provider):
    reply = REPLIES["text and a call without arguments"]
    accumulator = accumulate(stream_from(litellm, provider, reply))
    [call] = accumulator.message().tool_calls
    # OpenAI streams no fragment at all, which reads as "{}" (as the builder and a non-streamed reply
    # give it); litellm's Anthropic parser turns the empty input_json_delta into "{}" itself, and Gemini's
    # args {} are serialized as "{}".
    assert call.arguments == "{}"
    [partial] = accumulator.partial.tool_calls
    assert partial.arguments == ("" if provider == "openai" else "{}")  # partial: the text so far


def test_a_call_without_argument_text_is_empty_json_and_streamed_text_is_kept_exactly():
    chunks = [
        calls_chunk(call_delta(0, "call_time", "get_time", "")),  # an empty fragment is no text
        calls_chunk(call_delta(1, "call_space", "get_space")),
        calls_chunk(call_delta(1, args=" ")),  # whitespace is text: kept byte for byte
        calls_chunk(call_delta(2, "call_odd", "get_odd", '{ "a" :1 }')),
    ]
    accumulator = accumulate(chunks)
    assert [c.arguments for c in accumulator.message().tool_calls] == ["{}", " ", '{ "a" :1 }']
    assert [c.arguments for c in accumulator.partial.tool_calls] == ["", " ", '{ "a" :1 }']


@pytest.mark.litellm
def test_a_call_without_argument_fragments_equals_the_builder_through_litellm(litellm):
    chunks = raw_stream(
        litellm,
        [
            chunk({"role": "assistant", "content": None}),
            calls_chunk(call_delta(0, "call_time", "get_time")),
            chunk(finish="tool_calls", usage={"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}),
        ],
    )
    accumulator = assert_matches_builder(litellm, chunks)
    assert accumulator.message().tool_calls == [ToolCall(id="call_time", name="get_time", arguments="{}")]


@pytest.mark.litellm
@settings(max_examples=15)
@given(reply=ms.ai_messages(), provider=st.sampled_from(list(MODELS)))
def test_equals_the_chunk_builder_on_any_generated_reply(litellm, reply, provider):
    assert_matches_builder(litellm, stream_from(litellm, provider, reply))


def with_ids_numbered(message: AIMessage) -> AIMessage:
    """``message`` with each tool-call id replaced by its position, for a stream whose ids litellm makes up.

    Gemini sends no call ids: litellm mints one per call, at random, on every stream (``call_`` and hex),
    so two streams of the same reply differ there and only there."""
    assert all(c.id.startswith("call_") for c in message.tool_calls)
    calls = [c.model_copy(update={"id": f"call_{n}"}) for n, c in enumerate(message.tool_calls)]
    return message.model_copy(update={"tool_calls": calls})


@pytest.mark.litellm
@pytest.mark.parametrize("provider", list(MODELS))
def test_async_stream_from_litellm(litellm, provider):
    reply = REPLIES["parallel calls"]
    routes = [OpenAIChatRoute(), AnthropicMessagesRoute(), GeminiRoute()]

    async def run() -> tuple[AIMessage, list[Any]]:
        with StandInServer(scripted(reply), routes=routes) as server:
            options = {"tools": TOOLS, "stream_options": {"include_usage": True}, **send_kwargs(server)}
            model = MODELS[provider]
            stream = await litellm.acompletion(model=model, messages=USER, stream=True, **options)
            whole = await AIMessage.afrom_stream(stream)
            chunks = [
                c async for c in await litellm.acompletion(model=model, messages=USER, stream=True, **options)
            ]
            assert {r.route for r in server.requests} == {provider}
        return whole, chunks

    whole, chunks = asyncio.run(run())
    assembled = assert_matches_builder(litellm, chunks).message()  # the async chunks, against the builder
    synced = accumulate(stream_from(litellm, provider, reply)).message()  # the same reply, streamed sync
    if provider == "gemini":
        whole, assembled, synced = (with_ids_numbered(m) for m in (whole, assembled, synced))
    assert whole == assembled == synced
    assert [json.loads(c.arguments) for c in assembled.tool_calls] == [{"city": "Paris"}, {"city": "東京"}]
    if provider == "openai":
        assert assembled == over_openai(reply)


@pytest.mark.litellm
def test_from_stream_on_a_litellm_stream(litellm):
    reply = REPLIES["text"]
    with StandInServer(scripted(reply)) as server:
        stream = litellm.completion(model=MODELS["openai"], messages=USER, stream=True, **send_kwargs(server))
        assert AIMessage.from_stream(stream) == reply


# -- hard cases, through litellm's parser where the wire can say them ----------------------------------------


@dataclass(frozen=True)
class RawOpenAIRoute:
    """An OpenAI-compatible server that streams exactly the given chunk dicts (for servers that misbehave)."""

    chunks: tuple[dict[str, Any], ...]
    name: str = "raw"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.endswith("/chat/completions")

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        events = [b"data: " + json.dumps(c).encode() + b"\n\n" for c in self.chunks]
        return Reply(200, [*events, b"data: [DONE]\n\n"], "text/event-stream")


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **top: Any) -> dict[str, Any]:
    """An OpenAI ``chat.completion.chunk`` with one choice."""
    choice: dict[str, Any] = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    return {
        "id": "chatcmpl-raw",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "gpt-4o-mini",
        "choices": [choice],
        **top,
    }


def call_delta(
    index: Any = 0, id: str | None = None, name: str | None = None, args: str | None = None
) -> dict:
    delta: dict[str, Any] = {"index": index, "function": {}}
    if id is not None:
        delta["id"], delta["type"] = id, "function"
    if name is not None:
        delta["function"]["name"] = name
    if args is not None:
        delta["function"]["arguments"] = args
    return delta


def calls_chunk(*deltas: dict[str, Any]) -> dict[str, Any]:
    return chunk({"tool_calls": list(deltas)})


def raw_stream(litellm: Any, chunks: list[dict[str, Any]]) -> list[Any]:
    with StandInServer(routes=[RawOpenAIRoute(tuple(chunks))]) as server:
        options = {"stream_options": {"include_usage": True}, **send_kwargs(server)}
        stream = litellm.completion(model=MODELS["openai"], messages=USER, stream=True, **options)
        try:
            return list(stream)
        finally:
            close_stream(stream)


def weather(call_id: str, city: str) -> ToolCall:
    return ToolCall(id=call_id, name="get_weather", arguments={"city": city})


# Ollama (through litellm), Grok and vLLM-style servers send every parallel call at index 0 (LangChain #34807,
# smolagents #1569, langchain-oracle #108).
SHARED_INDEX = [
    chunk({"role": "assistant", "content": None}),
    calls_chunk(call_delta(0, "call_paris", "get_weather", '{"city":')),
    calls_chunk(call_delta(0, args='"Paris"}')),
    calls_chunk(call_delta(0, "call_tokyo", "get_weather", '{"city":"Tokyo"}')),
    chunk(finish="tool_calls"),
]
# Each fragment of two parallel calls alternates with the other's, told apart by index only.
INTERLEAVED = [
    chunk({"role": "assistant", "content": None}),
    calls_chunk(
        call_delta(0, "call_paris", "get_weather", ""), call_delta(1, "call_tokyo", "get_weather", "")
    ),
    calls_chunk(call_delta(1, args='{"city"')),
    calls_chunk(call_delta(0, args='{"city"')),
    calls_chunk(call_delta(0, args=':"Paris"}'), call_delta(1, args=':"Tokyo"}')),
    chunk(finish="tool_calls"),
]
# The index as a string, as some OpenAI-compatible servers send it.
STRING_INDEX = [
    chunk({"role": "assistant", "content": None}),
    calls_chunk(call_delta("0", "call_paris", "get_weather", '{"city":')),
    calls_chunk(call_delta("0", args='"Paris"}')),
    calls_chunk(call_delta("1", "call_tokyo", "get_weather", '{"city":"Tokyo"}')),
    chunk(finish="tool_calls"),
]
# No index at all: the id opens a call, fragments without an id continue the call opened last.
NO_INDEX = [
    chunk({"role": "assistant", "content": None}),
    calls_chunk(call_delta(None, "call_paris", "get_weather", '{"city":')),
    calls_chunk(call_delta(None, args='"Paris"}')),
    calls_chunk(call_delta(None, "call_tokyo", "get_weather", '{"city":')),
    calls_chunk(call_delta(None, args='"Tokyo"}')),
    chunk(finish="tool_calls"),
]
# Both calls at index 0 with the id on every fragment, the fragments of the two interleaved (a, b, a, b).
SHARED_INDEX_INTERLEAVED = [
    chunk({"role": "assistant", "content": None}),
    calls_chunk(call_delta(0, "call_paris", "get_weather", '{"city":')),
    calls_chunk(call_delta(0, "call_tokyo", "get_weather", '{"city":')),
    calls_chunk(call_delta(0, "call_paris", args='"Paris"}')),
    calls_chunk(call_delta(0, "call_tokyo", args='"Tokyo"}')),
    chunk(finish="tool_calls"),
]
TWO_CALLS = AIMessage(
    content=None, tool_calls=[weather("call_paris", "Paris"), weather("call_tokyo", "Tokyo")]
)


HARD_CASES = {
    "shared index, different ids": SHARED_INDEX,
    "interleaved fragments": INTERLEAVED,
    "shared index, ids on every fragment, interleaved": SHARED_INDEX_INTERLEAVED,
    "index '0'": STRING_INDEX,
    "index None": NO_INDEX,
}


@pytest.mark.parametrize("chunks", list(HARD_CASES.values()), ids=list(HARD_CASES))
def test_parallel_calls_are_told_apart(chunks):
    accumulator = accumulate(chunks)
    assert accumulator.message() == TWO_CALLS
    assert accumulator.finish_reason == "tool_calls"


@pytest.mark.litellm
@pytest.mark.parametrize("chunks", list(HARD_CASES.values()), ids=list(HARD_CASES))
def test_parallel_calls_are_told_apart_after_litellm_parses_them(litellm, chunks):
    # litellm's parser reads "0" as 0 and gives an index-less call its position in its delta (0 here), so the
    # "None" stream reaches us as a shared-index stream: the id guard still tells the calls apart.
    assert accumulate(raw_stream(litellm, chunks)).message() == TWO_CALLS


@pytest.mark.litellm
def test_litellm_builder_merges_calls_that_share_an_index(litellm):
    # The bug the id guard exists for, shown on litellm's own builder (LangChain #34807 is the same bug):
    # it keys calls by index only, so the second call's id and arguments land on the first.
    built = AIMessage.from_litellm(litellm.stream_chunk_builder(raw_stream(litellm, SHARED_INDEX)))
    assert [(c.id, c.arguments) for c in built.tool_calls] == [
        ("call_tokyo", '{"city":"Paris"}{"city":"Tokyo"}')
    ]


def test_a_fragment_without_an_id_continues_the_call_that_spoke_last_at_its_index():
    chunks = [
        calls_chunk(call_delta(0, "call_paris", "get_weather", '{"city":')),
        calls_chunk(call_delta(0, "call_tokyo", "get_weather", '{"city":"Tok')),
        calls_chunk(call_delta(0, "call_paris", args='"Par')),
        calls_chunk(call_delta(0, args='is"}')),  # no id: still Paris, the call this index switched back to
        calls_chunk(call_delta(0, "call_tokyo", args='yo"}')),
    ]
    assert accumulate(chunks).message() == TWO_CALLS


def test_a_repeated_id_or_name_on_every_fragment_continues_the_call():
    chunks = [
        calls_chunk(call_delta(None, "call_paris", "get_weather", '{"city":')),
        calls_chunk(call_delta(None, "call_paris", "get_weather", '"Paris"}')),
        # An empty id is no id; a call opened without an index sits at its position (0 here).
        calls_chunk(call_delta(0, "", "get_weather", "")),
    ]
    assert accumulate(chunks).message() == AIMessage(
        content=None, tool_calls=[weather("call_paris", "Paris")]
    )


def test_a_different_function_at_a_shared_index_without_ids_is_a_new_call_and_needs_an_id():
    chunks = [
        calls_chunk(call_delta(0, "call_1", "get_weather", '{"city":"Paris"}')),
        calls_chunk(call_delta(0, name="get_time", args='{"timezone":"Europe/Paris"}')),
    ]
    accumulator = accumulate(chunks)
    assert [c.name for c in accumulator.partial.tool_calls] == ["get_weather"]
    with pytest.raises(ReplyError, match=r"tool call at index 0 \(get_time\) never received its id"):
        accumulator.message()


def test_calls_are_ordered_by_index_even_when_they_arrive_out_of_order():
    chunks = [
        calls_chunk(call_delta(1, "call_tokyo", "get_weather", '{"city":"Tokyo"}')),
        calls_chunk(call_delta(0, "call_paris", "get_weather", '{"city":"Paris"}')),
    ]
    assert accumulate(chunks).message() == TWO_CALLS


def test_an_id_that_arrives_after_its_fragments():
    chunks = [
        calls_chunk(call_delta(0, name="get_weather", args='{"city":')),
        calls_chunk(call_delta(0, args='"Paris"}')),
        calls_chunk(call_delta(0, id="call_paris")),
    ]
    accumulator = StreamAccumulator()
    accumulator.add(chunks[0])
    assert accumulator.partial.tool_calls == []  # no id yet: not a call one could answer
    for c in chunks[1:]:
        accumulator.add(c)
    assert accumulator.message().tool_calls == [weather("call_paris", "Paris")]


def test_a_stream_cut_before_a_call_got_its_name_says_so():
    accumulator = accumulate([calls_chunk(call_delta(2, id="call_x", args='{"a"'))])
    with pytest.raises(ReplyError, match=r"tool call at index 2 never received its name.*'\{\"a\"'"):
        accumulator.message()


def test_reasoning_deltas_under_either_name_and_text():
    chunks = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"reasoning_content": "Paris is "}),
        chunk({"reasoning": "in France."}),  # OpenRouter and Groq say `reasoning`
        chunk({"content": "Bonjour"}),
        chunk({"content": [{"type": "text", "text": " !"}]}),  # Mistral streams text parts
        chunk(finish="stop"),
    ]
    accumulator = accumulate(chunks)
    assert accumulator.message() == AIMessage(content="Bonjour !", reasoning_content="Paris is in France.")
    assert accumulator.finish_reason == "stop"


def test_add_returns_what_each_chunk_added():
    chunks = [
        chunk({"reasoning_content": "hm"}),
        chunk({"content": "Hi"}),
        chunk({"refusal": "No."}),
        chunk(),
    ]
    assert [accumulate([]).add(c) for c in chunks] == [
        StreamDelta(reasoning="hm"),
        StreamDelta(text="Hi"),
        StreamDelta(refusal="No."),
        StreamDelta(),
    ]


def test_usage_is_the_last_reported_never_the_sum():
    # Anthropic restates the totals at message_start and message_delta; summing them inflates the count
    # (LangChain #30429). Gemini reports usage on every chunk.
    chunks = [
        chunk({"content": "Hi"}, usage={"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}),
        chunk({"content": " there"}),
        chunk(finish="stop", usage={"prompt_tokens": 10, "completion_tokens": 25, "total_tokens": 35}),
        {**chunk(), "choices": []},  # a trailing chunk without usage does not erase it
    ]
    accumulator = accumulate(chunks)
    assert accumulator.usage == {"prompt_tokens": 10, "completion_tokens": 25, "total_tokens": 35}


@pytest.mark.litellm
@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_usage_of_a_provider_stream_is_its_final_count(litellm, provider):
    # Anthropic says output_tokens 1 at message_start and the total at message_delta; Gemini restates its
    # growing usage on every chunk. The stand-ins count words: the final count is the reply's words.
    reply = REPLIES["text"]
    usage = accumulate(stream_from(litellm, provider, reply)).usage
    assert usage is not None
    if provider == "anthropic":
        assert usage["completion_tokens"] == word_count(reply.model_dump())
    else:
        assert usage["completion_tokens"] == word_count(reply.content)
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_an_empty_stream_is_an_empty_reply_without_a_finish_reason():
    accumulator = accumulate([])
    assert accumulator.message() == AIMessage(content="")
    assert accumulator.partial == AIMessage(content="")
    assert accumulator.finish_reason is None
    assert accumulator.usage is None
    assert AIMessage.from_stream([]) == AIMessage(content="")


def test_a_stream_of_only_a_finish_chunk():
    accumulator = accumulate([chunk(finish="stop")])
    assert accumulator.message() == AIMessage(content="")
    assert accumulator.finish_reason == "stop"


@pytest.mark.litellm
def test_a_stream_of_only_a_finish_chunk_through_litellm(litellm):
    chunks = raw_stream(litellm, [chunk(finish="stop")])
    accumulator = accumulate(chunks)
    assert accumulator.message() == AIMessage(content="")
    assert accumulator.finish_reason == "stop"
    assert AIMessage.from_litellm(litellm.stream_chunk_builder(chunks)) == AIMessage(content="")


def test_a_refusal_streams_as_a_refusal():
    chunks = [
        chunk({"role": "assistant", "content": None, "refusal": ""}),
        chunk({"refusal": "I can't help "}),
        chunk({"refusal": "with that."}),
        chunk(finish="stop"),
    ]
    assert accumulate(chunks).message() == AIMessage(content=None, refusal="I can't help with that.")


@pytest.mark.litellm
def test_litellm_drops_streamed_refusals_before_they_reach_us(litellm):
    # A litellm quirk (1.106.2 and 1.110.2): CustomStreamWrapper judges a chunk whose delta holds only
    # `refusal` empty and never yields it, so a streamed refusal is lost on the way; the same stream read
    # directly keeps it.
    reply = AIMessage(content=None, refusal="I can't help with that.")
    with StandInServer(scripted(reply)) as server:
        through_litellm = AIMessage.from_stream(
            litellm.completion(model=MODELS["openai"], messages=USER, stream=True, **send_kwargs(server))
        )
    assert through_litellm == AIMessage(content="")
    assert AIMessage.from_stream(openai_stream_chunks({}, reply)) == reply


def test_n_choices_follow_one_choice():
    def two(first: dict, second: dict, finish: str | None = None) -> dict:
        return {
            "choices": [
                {"index": 1, "delta": second, "finish_reason": finish},
                {"index": 0, "delta": first, "finish_reason": finish},
            ]
        }

    chunks = [two({"content": "Yes"}, {"content": "No"}), two({"content": "!"}, {"content": "pe"}, "stop")]
    assert accumulate(chunks).message() == AIMessage(content="Yes!")
    assert accumulate(chunks, choice=1).message() == AIMessage(content="Nope")
    assert AIMessage.from_stream(chunks, choice=1) == AIMessage(content="Nope")
    with pytest.raises(ReplyError, match=r"carried choices \[0, 1\] but never choice 2"):
        AIMessage.from_stream(chunks, choice=2)


def test_thinking_blocks_close_on_their_signature():
    def thinking(**block: Any) -> dict:
        return chunk({"thinking_blocks": [{"type": "thinking", **block}]})

    chunks = [
        thinking(thinking="First, "),
        thinking(thinking="the city."),
        thinking(thinking="", signature="c2lnMQ=="),
        chunk({"thinking_blocks": [{"type": "redacted_thinking", "data": "cmVk"}]}),
        thinking(thinking="Unsigned, cut off."),
    ]
    message = accumulate(chunks, provider="anthropic").message()
    assert message.thinking_blocks == [
        {"type": "thinking", "thinking": "First, the city.", "signature": "c2lnMQ=="},
        {"type": "redacted_thinking", "data": "cmVk"},
    ]
    assert message.provider == "anthropic"


def test_provider_fields_per_call_and_per_message():
    chunks = [
        chunk(
            {
                "provider_specific_fields": {"thought_signatures": ["c2ln"], "citation": {"n": 1}},
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "function": {
                            "name": "f",
                            "arguments": {"x": 1},  # an object, as some servers send it
                            "provider_specific_fields": {"thought_signature": "c2ln"},
                        },
                    }
                ],
            }
        ),
        chunk({"provider_specific_fields": {"citation": {"n": 2}, "refusal": None}}),
    ]
    message = accumulate(chunks, provider="gemini").message()
    assert message.tool_calls == [
        ToolCall(
            id="call_1", name="f", arguments='{"x":1}', provider_specific_fields={"thought_signature": "c2ln"}
        )
    ]
    assert message.provider_specific_fields == {
        "thought_signatures": ["c2ln"],
        "citations": [{"n": 1}, {"n": 2}],
    }
    assert message.provider == "gemini"


def test_openai_sdk_chunk_objects_read_like_dicts():
    from openai.types.chat import ChatCompletionChunk

    reply = AIMessage(content="Sure.", reasoning_content="ok", tool_calls=TWO_CALLS.tool_calls)
    body = {"model": "gpt-4o-mini", "stream_options": {"include_usage": True}}
    dicts = list(openai_stream_chunks(body, reply, piece=3))
    objects = [ChatCompletionChunk.model_validate(c) for c in dicts]
    assert accumulate(objects).message() == accumulate(dicts).message() == reply
    assert accumulate(objects).usage == accumulate(dicts).usage is not None


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("data: {}", r"stream chunk 0 is a str, not a parsed chunk"),
        (42, r"stream chunk 0 is a int; expected a litellm ModelResponseStream"),
        ({"id": "x"}, r"stream chunk 0 has no 'choices' and no 'usage'"),
        ({"error": {"message": "overloaded"}}, r"stream chunk 0 is an error from the provider: overloaded"),
        ({"choices": {"index": 0}}, r"'choices' is a dict, not a list"),
        ({"choices": [{"index": 0, "message": {"content": "x"}}]}, r"holds a complete 'message'"),
        ({"choices": [{"index": 0, "delta": "x"}]}, r"choice 0: 'delta' is a str"),
        (chunk({"content": 5}), r"choice 0: delta.content is a int, not text"),
        (chunk({"content": [{"type": "image_url"}]}), r"delta.content\[0\] is not a text part"),
        (chunk({"tool_calls": {"index": 0}}), r"delta.tool_calls is a dict, not a list"),
        (chunk({"thinking_blocks": "x"}), r"choice 0: delta.thinking_blocks is a str, not a list"),
        (chunk({"annotations": {"type": "url_citation"}}), r"choice 0: delta.annotations is a dict, not a"),
        (chunk({"images": 3}), r"choice 0: delta.images is a int, not a list"),
        (calls_chunk(call_delta("first", "call_1", "f")), r"tool_calls\[0\]: index 'first' is not a whole"),
        (calls_chunk(call_delta(True, "call_1", "f")), r"tool_calls\[0\]: index True is not a number"),
        (calls_chunk({"index": 0, "id": 7}), r"tool_calls\[0\]: 'id' is a int, not text"),
        (calls_chunk({"index": 0, "custom": {"name": "x"}}), r"custom \(non-function\) tool call"),
        (calls_chunk({"index": 0, "function": {"arguments": 3}}), r"function.arguments is a int"),
        (chunk({"function_call": {"name": "f"}}), r"legacy 'function_call' delta"),
        (chunk({"reasoning_content": ["x"]}), r"reasoning delta is a list, not text"),
        (chunk(usage=[1, 2]), r"'usage' is a list, not an object"),
    ],
)
def test_unreadable_chunks_say_where_and_why(bad, message):
    with pytest.raises(ReplyError, match=message):
        StreamAccumulator().add(bad)


def test_the_position_of_a_bad_chunk_is_named():
    accumulator = StreamAccumulator()
    accumulator.add(chunk({"content": "fine"}))
    with pytest.raises(ReplyError, match=r"stream chunk 1, choice 0, tool_calls\[0\]"):
        accumulator.add(calls_chunk(call_delta("x")))


def test_choice_must_be_an_index():
    with pytest.raises(ValueError, match="choice must be a choice index"):
        StreamAccumulator(choice=-1)


# -- properties over generated replies -----------------------------------------------------------------------


def over_openai(reply: AIMessage) -> AIMessage:
    """What of ``reply`` the OpenAI streaming wire can carry.

    It has no place for a participant ``name`` in a reply, for ``thinking_blocks``, or for provider fields of
    the message or of a call (so nothing is bound to a ``provider``); the stand-in streams no annotations,
    images or audio (``tests/test_reply_fields.py`` streams those), a reply has no ``cache_control``, and
    the wire carries text as one string:
    text parts arrive joined. ``""`` beside tool calls reads back as ``None`` (the ``from_litellm`` rule),
    and a call without argument text as ``"{}"`` (the ``StreamAccumulator`` rule, the builder's)."""
    text = reply_text(reply) if reply.content is not None else None
    calls = [
        c.model_copy(
            update={
                "provider_specific_fields": None,
                "function": {**c.function, "arguments": c.arguments or "{}"},
            }
        )
        for c in reply.tool_calls
    ]
    return reply.model_copy(
        update={
            "name": None,
            "thinking_blocks": None,
            "provider_specific_fields": None,
            "provider": None,
            "cache_control": None,
            "annotations": None,
            "images": None,
            "audio": None,
            "tool_calls": calls,
            "content": None if calls and not text else text,
        }
    )


@given(reply=ms.ai_messages(), piece=st.integers(1, 12), sdk=st.booleans())
def test_any_reply_streamed_as_openai_streams_accumulates_back(reply, piece, sdk):
    body = {"model": "gpt-4o-mini", "stream_options": {"include_usage": True}}
    chunks: list[Any] = list(openai_stream_chunks(body, reply, piece=piece))
    if sdk:
        from openai.types.chat import ChatCompletionChunk

        chunks = [ChatCompletionChunk.model_validate(c) for c in chunks]
    accumulator = accumulate(chunks)
    assert accumulator.message() == over_openai(reply)
    assert AIMessage.from_stream(chunks) == over_openai(reply)
    assert accumulator.finish_reason == ("tool_calls" if reply.tool_calls else "stop")
    assert accumulator.usage is not None


def _prefixes(chunks: list[dict[str, Any]]) -> Iterator[tuple[StreamAccumulator, StreamDelta]]:
    accumulator = StreamAccumulator()
    for c in chunks:
        yield accumulator, accumulator.add(c)


@given(reply=ms.ai_messages(extensions=False), piece=st.integers(1, 9))
def test_every_partial_is_a_prefix_of_the_reply(reply, piece):
    final = over_openai(reply)
    final_text = final.content if isinstance(final.content, str) else ""
    final_calls = {c.id: c for c in final.tool_calls}
    printed = []
    for accumulator, delta in _prefixes(list(openai_stream_chunks({}, reply, piece=piece))):
        printed.append(delta.text)
        partial = accumulator.partial
        assert final_text.startswith(partial.content or "")
        assert (final.reasoning_content or "").startswith(partial.reasoning_content or "")
        assert (final.refusal or "").startswith(partial.refusal or "")
        for call in partial.tool_calls:
            assert call.name == final_calls[call.id].name
            assert final_calls[call.id].arguments.startswith(call.arguments)
        assert [c.id for c in partial.tool_calls] == [c.id for c in final.tool_calls][
            : len(partial.tool_calls)
        ]
    assert "".join(printed) == final_text


@given(reply=ms.ai_messages(extensions=False), piece=st.integers(1, 9))
def test_reading_partials_along_the_way_changes_nothing(reply, piece):
    chunks = list(openai_stream_chunks({}, reply, piece=piece))
    watched = StreamAccumulator()
    for c in chunks:
        watched.add(c)
        assert watched.partial == watched.partial
    final = watched.message()
    assert final == accumulate(chunks).message()
    # At the end the partial is the message, but for calls that received no argument text: "" so far there,
    # "{}" in the message.
    partial = watched.partial
    assert [c.arguments or "{}" for c in partial.tool_calls] == [c.arguments for c in final.tool_calls]
    assert partial.model_copy(update={"tool_calls": final.tool_calls}) == final
