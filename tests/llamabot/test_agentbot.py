"""DecideNode (messages.integrations.llamabot) inside llamabot's own AgentBot and AsyncAgentBot, through
the real litellm, against a stand-in OpenAI that refuses what OpenAI refuses in the tool-call protocol:
an agent over several steps on every backend in both flavours, beside llamabot's AgentBot as shipped
(whose requests hold its history as user strings, growing); parallel calls; a text reply; the iteration
limit; a tool that raises; a small window over a tool-heavy history; a compacted conversation."""

from __future__ import annotations

import asyncio

import pytest

from tests.llamabot._checking import checking_server, protocol_problem
from tests.llamabot._models import SUMMARY, answers, calls, parallel, says, steps
from tests.llamabot._shared import LLAMABOT_WARNINGS, MISSING

pytest.importorskip("llamabot", reason=MISSING)
from llamabot import AgentBot
from llamabot.bot.async_agentbot import AsyncAgentBot

from messages import (
    AIMessage,
    InMemoryThreadStore,
    ToolArgumentsError,
    ToolCall,
    ToolMessage,
    validate_conversation,
)
from messages.compaction import SUMMARY_MARKER, Compactor, LiteLLMSummarizer
from messages.context import BufferedContext
from messages.integrations.llamabot import DecideNode, ThreadStoreChatMemory
from messages.protocol import MISSING_RESULT
from tests.llamabot._tools import add, explode, multiply

pytestmark = [pytest.mark.litellm, *LLAMABOT_WARNINGS]

MODEL = "openai/gpt-4o-mini"


TWO_STEPS = steps(
    calls("add", a=2, b=3),
    calls("multiply", a="$", b=4),
    answers("It is {}."),
)
"""(2 + 3) * 4: two tools, one after the other, then the answer through respond_to_user."""


def agent(server, memory, **more) -> AgentBot:
    node = DecideNode(memory, model_name=MODEL, api_base=server.url, api_key="sk-test", num_retries=0, **more)
    return AgentBot(tools=[add, multiply, explode], decide_node=node)


def roles(body: dict) -> list[str]:
    """A request's messages after the system prompt, a call turn as ``calls``."""
    return ["calls" if m.get("tool_calls") else m["role"] for m in body["messages"][1:]]


# --- llamabot as shipped -----------------------------------------------------------------------------------


def test_llamabot_agentbot_as_shipped_sends_its_history_as_user_strings_that_grow(litellm):
    with checking_server(TWO_STEPS) as server:
        bot = AgentBot(
            tools=[add, multiply], model_name=MODEL, api_base=server.url, api_key="sk-test", num_retries=0
        )
        assert bot("What is (2 + 3) * 4?") == "It is 20."
        bodies = server.bodies()
    assert [len(body["messages"]) for body in bodies] == [2, 5, 7]
    last = bodies[-1]["messages"]
    assert [m["content"] for m in last if m["role"] == "user"] == [
        "What is (2 + 3) * 4?",
        "Chosen Tool: add",
        "5",
        "Chosen Tool: multiply",
        "20",
    ]
    assert not any(m["role"] == "tool" or m.get("tool_calls") for body in bodies for m in body["messages"])


# --- the integration ---------------------------------------------------------------------------------------


def test_an_agent_over_several_steps_keeps_the_protocol_in_the_store(store, litellm):
    with checking_server(TWO_STEPS) as server:
        memory = ThreadStoreChatMemory(store, "agent", window=BufferedContext(50))
        bot = agent(server, memory)
        assert bot("What is (2 + 3) * 4?") == "It is 20."
        bodies = server.bodies()
    assert [roles(body) for body in bodies] == [
        ["user"],
        ["user", "calls", "tool"],
        ["user", "calls", "tool", "calls", "tool"],
    ]
    assert all(body["tool_choice"] == "required" for body in bodies)
    thread = memory.read()
    validate_conversation(thread)
    assert [m.role for m in thread] == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool"]
    assert [m.content for m in thread if isinstance(m, ToolMessage)] == ["5", "20", "It is 20."]
    assert thread[5].tool_calls[0].name == "respond_to_user"


def test_the_next_run_goes_on_with_the_thread(litellm):
    with checking_server(TWO_STEPS) as server:
        memory = ThreadStoreChatMemory(InMemoryThreadStore(), window=BufferedContext(50))
        bot = agent(server, memory)
        bot("What is (2 + 3) * 4?")
        bot("And again?")
        last = server.last_body()
    assert roles(last)[:7] == ["user", "calls", "tool", "calls", "tool", "calls", "tool"]
    assert roles(last)[7] == "user"
    assert last["messages"][8]["content"] == "And again?"


def test_parallel_calls_run_one_per_step_without_asking_the_model_again(litellm):
    model = steps(parallel(("add", {"a": 1, "b": 2}), ("multiply", {"a": 3, "b": 4})), answers("Done: {}."))
    with checking_server(model) as server:
        memory = ThreadStoreChatMemory(InMemoryThreadStore(), window=BufferedContext(50))
        assert agent(server, memory)("Add and multiply?") == "Done: 12."
        bodies = server.bodies()
    assert len(bodies) == 2
    assert roles(bodies[-1]) == ["user", "calls", "tool", "tool"]
    assert [m["content"] for m in bodies[-1]["messages"][3:]] == ["3", "12"]


def test_a_text_reply_answers_the_user_and_is_stored_as_the_reply(litellm):
    with checking_server(steps(says("Nothing to compute."))) as server:
        memory = ThreadStoreChatMemory(InMemoryThreadStore())
        bot = agent(server, memory)
        assert bot("Anything?") == "Nothing to compute."
        bot("Still nothing?")
        assert roles(server.last_body()) == ["user", "assistant", "user"]
    assert memory.read()[1] == AIMessage(content="Nothing to compute.")


def test_llamabot_as_shipped_keeps_counting_iterations_across_runs(litellm):
    with checking_server(steps(calls("add", a=1, b=1))) as server:
        bot = AgentBot(
            tools=[add],
            model_name=MODEL,
            max_iterations=2,
            api_base=server.url,
            api_key="sk-test",
            num_retries=0,
        )
        assert bot("Loop?").startswith("Maximum iteration limit (2) reached")
        asked = len(server.bodies())
        # The next run is cut off before the model is asked at all: the count and the flag stay.
        assert bot("Another question?").startswith("Maximum iteration limit (2) reached")
        assert len(server.bodies()) == asked


def test_the_iteration_limit_ends_a_run_with_its_words_stored_and_the_next_run_counts_anew(litellm):
    with checking_server(steps(calls("add", a=1, b=1))) as server:
        memory = ThreadStoreChatMemory(InMemoryThreadStore(), window=BufferedContext(50))
        bot = agent(server, memory, max_iterations=2)
        assert bot("Loop?").startswith("Maximum iteration limit (2) reached")
        asked = len(server.bodies())
        assert bot("Another question?").startswith("Maximum iteration limit (2) reached")
        assert len(server.bodies()) == asked + 2
    thread = memory.read()
    validate_conversation(thread)
    # Two decisions asked the model (each called add), the third was past the limit.
    assert [m.role for m in thread[:6]] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert thread[5] == AIMessage(
        content="Maximum iteration limit (2) reached. Terminating execution to prevent infinite loop."
    )


def test_a_call_whose_tool_raised_is_answered_as_not_run_when_the_next_query_comes(litellm):
    explode_first = steps(calls("explode", reason="boom"))
    recover = steps(answers("Recovered."))

    def model(body: dict) -> AIMessage:
        asked = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
        return (explode_first if asked == "Explode?" else recover)(body)

    with checking_server(model) as server:
        memory = ThreadStoreChatMemory(InMemoryThreadStore(), window=BufferedContext(50))
        bot = agent(server, memory)
        with pytest.raises(RuntimeError, match="boom"):
            bot("Explode?")
        assert protocol_problem([m.model_dump() for m in memory.read()]) is not None  # the call is open
        bot("Now what?")
        assert roles(server.last_body()) == ["user", "calls", "tool", "user"]
    assert memory.read()[2] == ToolMessage(
        tool_call_id=memory.read()[1].tool_calls[0].id, content=MISSING_RESULT
    )


def test_a_call_whose_arguments_are_not_json_is_kept_and_answered_as_not_run_next_time(litellm):
    def model(body: dict) -> AIMessage:
        asked = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
        if asked == "Break?":
            return AIMessage(tool_calls=[ToolCall(id="call_bad", name="add", arguments="{not json")])
        return steps(answers("Fine."))(body)

    with checking_server(model) as server:
        memory = ThreadStoreChatMemory(InMemoryThreadStore(), window=BufferedContext(50))
        bot = agent(server, memory)
        with pytest.raises(ToolArgumentsError, match="'call_bad'"):
            bot("Break?")
        assert memory.read()[1].tool_calls[0].arguments == "{not json"
        assert bot("Better?") == "Fine."
    assert memory.read()[2] == ToolMessage(tool_call_id="call_bad", content=MISSING_RESULT)


def test_llamabot_as_shipped_rewires_a_first_agents_tools_to_the_newest_agent():
    # Named in the guide, not patched: @tool makes one node per function, and every AgentBot wires it back
    # to its own decide node.
    first = AgentBot(tools=[add], model_name=MODEL)
    second = AgentBot(tools=[add], model_name=MODEL)
    assert add.successors["decide"] is second.decide_node is not first.decide_node


def test_async_agentbot_keeps_the_protocol_in_an_async_store(store, litellm):
    with checking_server(TWO_STEPS) as server:
        memory = ThreadStoreChatMemory(store, window=BufferedContext(50))
        node = DecideNode(memory, model_name=MODEL, api_base=server.url, api_key="sk-test", num_retries=0)
        bot = AsyncAgentBot(tools=[add, multiply], decide_node=node)
        assert asyncio.run(bot.arun("What is (2 + 3) * 4?")) == "It is 20."
        assert roles(server.last_body()) == ["user", "calls", "tool", "calls", "tool"]
    validate_conversation(memory.read())


def test_a_small_window_over_a_tool_heavy_history_sends_whole_exchanges(litellm):
    with checking_server(TWO_STEPS) as server:
        memory = ThreadStoreChatMemory(InMemoryThreadStore(), window=BufferedContext(4))
        bot = agent(server, memory)
        for n in range(3):
            bot(f"What is (2 + 3) * 4, take {n}?")
        bodies = server.bodies()
    for body in bodies:
        sent = body["messages"][1:]
        assert sent[0]["role"] != "tool"
        assert len(sent) <= 4
    assert len(memory.store.messages(memory.thread_id)) == 21  # the thread holds all of it


def test_a_compacted_agent_conversation_sends_the_summary_and_the_newest_exchanges(litellm):
    with checking_server(TWO_STEPS) as server:
        summarizer = LiteLLMSummarizer(MODEL, api_base=server.url, api_key="sk-test", num_retries=0)
        compactor = Compactor(summarizer, limit=12, trigger=10, keep=4)
        memory = ThreadStoreChatMemory(InMemoryThreadStore(), "long-agent", compactor=compactor)
        bot = agent(server, memory)
        for n in range(3):
            assert bot(f"What is (2 + 3) * 4, take {n}?") == "It is 20."
        bodies = server.bodies()
    summaries = [body for body in bodies if body["messages"][-1]["content"].startswith("Write the summary")]
    assert summaries  # the summarizer's own request passed OpenAI's checks too
    last = bodies[-1]["messages"]
    assert last[1]["role"] == "system"
    assert last[1]["content"] == f"{SUMMARY_MARKER}\n\n{SUMMARY}"
    assert len(last) <= 1 + 1 + 12
    checkpoints = memory.store.checkpoints(memory.thread_id)
    assert checkpoints
    assert len(memory.store.messages(memory.thread_id)) == 21  # nothing rewritten


def test_a_decide_node_needs_a_thread_store_chat_memory():
    with pytest.raises(TypeError, match="DecideNode\\(\\): memory is a ThreadStoreChatMemory, not a list"):
        DecideNode([])
    node = DecideNode(ThreadStoreChatMemory(InMemoryThreadStore()))
    assert node.system_prompt.startswith("System prompt for the decision-making bot.")
