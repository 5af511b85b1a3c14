"""SimpleBot and AsyncSimpleBot (messages.integrations.llamabot) through the real litellm, against a
stand-in OpenAI that refuses what OpenAI refuses in the tool-call protocol: tool calls over several turns
on every backend in both flavours, beside llamabot's SimpleBot as shipped, which gets llamabot #275's 400
on the second turn; the provider's profile applied; llamabot's spans and message log kept; streaming;
llamabot's own ChatMemory as the memory; what is refused before anything is sent."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3

import pytest

from tests.llamabot._checking import ORPHAN, checking_server
from tests.llamabot._models import ADD, SUMMARY, arithmetic
from tests.llamabot._shared import LLAMABOT_WARNINGS, MISSING

pytest.importorskip("llamabot", reason=MISSING)
import llamabot
import llamabot.components.messages as lm
from llamabot.recorder import get_spans
from pydantic import BaseModel

from messages import (
    AIMessage,
    InMemoryThreadStore,
    InvalidArgumentError,
    OrphanToolResultError,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from messages.compaction import SUMMARY_MARKER, Compactor, LiteLLMSummarizer
from messages.context import BufferedContext
from messages.integrations.llamabot import AsyncSimpleBot, SimpleBot, ThreadStoreChatMemory

pytestmark = [pytest.mark.litellm, *LLAMABOT_WARNINGS]

MODEL = "openai/gpt-4o-mini"


def bot_kwargs(server, **more):
    return {"model_name": MODEL, "api_base": server.url, "api_key": "sk-test", "num_retries": 0, **more}


def tool_conversation(body: dict) -> list[tuple[str, str | None]]:
    """A request's messages as (role, the id that ties a call to its result) pairs."""
    out = []
    for message in body["messages"]:
        if message.get("tool_calls"):
            out.extend(("call", call["id"]) for call in message["tool_calls"])
        elif message["role"] == "tool":
            out.append(("result", message.get("tool_call_id")))
        else:
            out.append((message["role"], None))
    return out


# --- llamabot as shipped -----------------------------------------------------------------------------------


def test_llamabot_simplebot_as_shipped_gets_openais_400_on_the_second_tool_turn(litellm):
    with checking_server(arithmetic) as server:
        bot = llamabot.SimpleBot(
            "Add with the add tool.", memory=llamabot.ChatMemory(), tools=[ADD], stream_target="none",
            **bot_kwargs(server),
        )  # fmt: skip
        reply = bot("What is 2 + 3?")
        assert reply.tool_calls[0].function.name == "add"
        with pytest.raises(litellm.BadRequestError) as info:
            bot(lm.ToolMessage(content="5", tool_call_id=reply.tool_calls[0].id))
        assert ORPHAN in str(info.value)
        sent = server.bodies()[-1]["messages"]
        assert sent[-2:] == [{"role": "assistant", "content": ""}, {"role": "tool", "content": "5"}]


# --- the integration ---------------------------------------------------------------------------------------


def test_tool_calls_over_several_turns_reach_the_provider_whole(store, litellm):
    with checking_server(arithmetic) as server:
        memory = ThreadStoreChatMemory(store, "sums")
        bot = SimpleBot(
            "Add with the add tool.", memory=memory, tools=[ADD], stream_target="none", **bot_kwargs(server)
        )
        first = bot("What is 2 + 3?")
        assert isinstance(first, lm.AIMessage)
        call = first.tool_calls[0]
        assert (call.function.name, json.loads(call.function.arguments)) == ("add", {"a": 2, "b": 3})
        # llamabot's ToolMessage (it has no tool_call_id) answers the open call of the thread.
        assert bot(lm.ToolMessage(content="5")).content == "The answer is 5."
        second = bot("What is 5 + 7?")
        # The package's ToolMessage, tied by id to llamabot's reply.
        assert bot(ToolMessage.for_call(second.tool_calls[0], 12)).content == "The answer is 12."
        bodies = server.bodies()
    assert len(bodies) == 4  # every request passed OpenAI's checks
    assert tool_conversation(bodies[-1]) == [
        ("system", None),
        ("user", None),
        ("call", call.id),
        ("result", call.id),
        ("assistant", None),
        ("user", None),
        ("call", second.tool_calls[0].id),
        ("result", second.tool_calls[0].id),
    ]
    assert memory.read()[-2:] == [
        ToolMessage(tool_call_id=second.tool_calls[0].id, content="12"),
        AIMessage(content="The answer is 12."),
    ]


def test_async_simplebot_does_the_same_awaited(store, litellm):
    with checking_server(arithmetic) as server:
        memory = ThreadStoreChatMemory(store)
        bot = AsyncSimpleBot("Add.", memory=memory, tools=[ADD], stream_target="none", **bot_kwargs(server))

        async def main() -> list[str]:
            first = await bot("What is 40 + 2?")
            answer = await bot(lm.ToolMessage(content="42"))
            streamed = [piece async for piece in bot.stream_async("What is 1 + 1?")]
            return [first.tool_calls[0].function.name, answer.content, "".join(streamed)]

        assert asyncio.run(main()) == ["add", "The answer is 42.", ""]
        assert tool_conversation(server.bodies()[-1])[-2:] == [("assistant", None), ("user", None)]
    roles = [m.role for m in memory.read()]
    assert roles == ["user", "assistant", "tool", "assistant", "user", "assistant"]
    assert memory.read()[-1].tool_calls[0].name == "add"  # the streamed reply's call, kept whole


def test_a_small_window_over_many_tool_turns_sends_whole_exchanges(store, litellm):
    with checking_server(arithmetic) as server:
        memory = ThreadStoreChatMemory(store, window=BufferedContext(3))
        bot = SimpleBot("Add.", memory=memory, tools=[ADD], stream_target="none", **bot_kwargs(server))
        for n in range(4):
            bot(f"What is {n} + 1?")
            assert bot(lm.ToolMessage(content=str(n + 1))).content == f"The answer is {n + 1}."
        bodies = server.bodies()
    assert len(bodies) == 8  # every request passed OpenAI's checks
    for body in bodies:
        history = body["messages"][1:-1]  # between the system prompt and the new message
        assert [m["role"] for m in history[:1]] != ["tool"]
        assert len(history) <= 3
    last = tool_conversation(bodies[-1])
    assert [role for role, _ in last] == ["system", "assistant", "user", "call", "result"]
    assert last[3][1] == last[4][1] == memory.read()[-2].tool_call_id
    whole = ThreadStoreChatMemory(store, memory.thread_id, window=BufferedContext(100)).read()
    assert len(whole) == 16  # the thread holds every turn


def test_a_compacted_tool_conversation_sends_the_summary_and_whole_exchanges(store, litellm):
    with checking_server(arithmetic) as server:
        summarizer = LiteLLMSummarizer(MODEL, api_base=server.url, api_key="sk-test", num_retries=0)
        compactor = Compactor(summarizer, limit=8, trigger=6, keep=2)
        memory = ThreadStoreChatMemory(store, "long", compactor=compactor)
        bot = SimpleBot("Add.", memory=memory, tools=[ADD], stream_target="none", **bot_kwargs(server))
        for n in range(4):
            bot(f"What is {n} + 1?")
            assert bot(lm.ToolMessage(content=str(n + 1))).content == f"The answer is {n + 1}."
        bodies = server.bodies()
    chat = [body for body in bodies if not body["messages"][-1]["content"].startswith("Write the summary")]
    assert len(bodies) > len(chat) == 8  # the summarizer's requests passed OpenAI's checks too
    last = chat[-1]["messages"]
    assert last[1] == {"role": "system", "content": f"{SUMMARY_MARKER}\n\n{SUMMARY}"}
    (call, result) = tool_conversation(chat[-1])[-2:]
    assert call == ("call", result[1])
    assert result == ("result", memory.read()[-2].tool_call_id)
    assert memory.last_compaction is not None
    whole = ThreadStoreChatMemory(store, "long", window=BufferedContext(100)).read()
    assert len(whole) == 16  # nothing rewritten: the summary is a checkpoint beside the messages


def test_the_providers_profile_is_applied_to_what_is_sent(litellm):
    # Mistral takes tool-call ids of 9 letters and digits (quirk 10): the profile rewrites them, call and
    # result alike; the thread keeps the ids the model gave.
    with checking_server(arithmetic) as server:
        memory = ThreadStoreChatMemory(InMemoryThreadStore())
        bot = SimpleBot("Add.", memory=memory, tools=[ADD], stream_target="none",
                        **bot_kwargs(server, model_name="mistral/mistral-large-latest"))  # fmt: skip
        reply = bot("What is 2 + 3?")
        bot(lm.ToolMessage(content="5"))
        sent = server.bodies()[-1]["messages"]
    call_id = sent[2]["tool_calls"][0]["id"]
    assert re.fullmatch(r"[A-Za-z0-9]{9}", call_id)
    assert sent[3]["tool_call_id"] == call_id
    assert memory.read()[1].tool_calls[0].id == reply.tool_calls[0].id != call_id


def test_llamabots_spans_and_message_log_record_the_call(llamabot_log, litellm):
    with checking_server(arithmetic) as server:
        adder = SimpleBot("Add.", tools=[ADD], stream_target="none", **bot_kwargs(server))
        adder("What is 2 + 3?")
    spans = get_spans(trace_id=adder._trace_ids[0], db_path=llamabot_log)
    names = {span.operation_name for span in spans}
    assert {"adder", "compose_messages", "llm_request", "stream_response", "process_response"} <= names
    (root,) = [span for span in spans if span.parent_span_id is None]
    assert root.attributes["tool_calls"] == "add"
    assert root.attributes["input_message_count"] == 2
    with sqlite3.connect(llamabot_log) as database:
        (logged,) = database.execute("SELECT message_log FROM message_log").fetchone()
    assert [m["role"] for m in json.loads(logged)] == ["system", "user", "assistant"]
    assert json.loads(logged)[-1]["tool_calls"] == [
        {"function": {"name": "add", "arguments": '{"a":2,"b":3}'}}
    ]


def test_a_streamed_reply_is_printed_and_its_calls_are_kept(capsys, litellm):
    with checking_server(arithmetic) as server:
        memory = ThreadStoreChatMemory(InMemoryThreadStore())
        bot = SimpleBot("Add.", memory=memory, tools=[ADD], stream_target="stdout", **bot_kwargs(server))
        reply = bot("What is 2 + 3?")
        answer = bot(lm.ToolMessage(content="5"))
    assert reply.tool_calls[0].function.arguments == '{"a":2,"b":3}'
    assert answer.content == "The answer is 5."
    assert capsys.readouterr().out == "The answer is 5."
    assert server.bodies()[0]["stream"] is True


def test_llamabots_own_chatmemory_works_as_the_memory(litellm):
    with checking_server(arithmetic) as server:
        memory = llamabot.ChatMemory()
        bot = SimpleBot("Add.", memory=memory, tools=[ADD], stream_target="none", **bot_kwargs(server))
        bot("What is 2 + 3?")
        assert bot(lm.ToolMessage(content="5")).content == "The answer is 5."
        assert bot("Hi").content == "Hello from the stand-in."
    assert [m.role for m in memory.retrieve("x")] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
    ]


def test_a_result_for_no_call_is_refused_before_anything_is_sent(litellm):
    with checking_server(arithmetic) as server:
        bot = SimpleBot("Add.", stream_target="none", **bot_kwargs(server))
        with pytest.raises(OrphanToolResultError, match="tool result for 'x'"):
            bot(UserMessage(content="hi"), ToolMessage(tool_call_id="x", content="1"))
        assert server.bodies() == []


def test_a_turn_given_whole_without_a_memory_is_sent_whole(litellm):
    call = ToolCall(id="call_9", name="add", arguments={"a": 1, "b": 1})
    with checking_server(arithmetic) as server:
        bot = SimpleBot("Add.", tools=[ADD], stream_target="none", **bot_kwargs(server))
        answer = bot(["What is 1 + 1?", AIMessage(tool_calls=[call])], ToolMessage.for_call(call, 2))
        assert answer.content == "The answer is 2."
        assert tool_conversation(server.last_body()) == [
            ("system", None),
            ("user", None),
            ("call", "call_9"),
            ("result", "call_9"),
        ]


def test_json_mode_needs_a_pydantic_model_as_llamabots_bots_do():
    bot = SimpleBot("s", json_mode=True, model_name=MODEL, stream_target="none")
    with pytest.raises(ValueError, match="Please set a pydantic_model"):
        bot("hi")

    class Answer(BaseModel):
        value: int

    bot.pydantic_model = dict
    with pytest.raises(ValueError, match="pydantic_model must be a Pydantic BaseModel class"):
        bot("hi")
    bot.pydantic_model = Answer
    bot.mock_response = '{"value": 3}'
    assert bot("hi").content == '{"value": 3}'


def test_chat_memory_is_refused_naming_memory_where_llamabot_sends_it_to_litellm():
    shipped = llamabot.SimpleBot(
        "s", model_name=MODEL, chat_memory=llamabot.ChatMemory()
    )  # as `llamabot chat` does
    assert shipped.memory is None
    assert "chat_memory" in shipped.completion_kwargs  # a request parameter of every litellm call
    with pytest.raises(InvalidArgumentError, match="the memory is memory=, not chat_memory="):
        SimpleBot("s", model_name=MODEL, chat_memory=llamabot.ChatMemory())


def test_a_dict_is_refused_naming_load_messages():
    bot = SimpleBot("s", model_name=MODEL, stream_target="none", mock_response="x")
    with pytest.raises(TypeError, match=r"read OpenAI-shape dicts with messages\.load_messages"):
        bot({"role": "user", "content": "hi"})
