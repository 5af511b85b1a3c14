"""``CompactingChatCompletionContext`` inside AutoGen: an AssistantAgent's tool loop over a long run, its
history in a SQLite thread (sync and async stores) compacted into checkpoints, every request a valid
conversation within the limit, the summary an AutoGen ``SystemMessage`` after the instructions; its state
in AutoGen's format moving to AutoGen's own context and back; its configuration as an AutoGen component."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("autogen_core")

import autogen_core.model_context as theirs
from autogen_core import FunctionCall
from autogen_core.models import (
    CreateResult,
    FunctionExecutionResultMessage,
    ModelFamily,
    RequestUsage,
    SystemMessage,
)

from messages import AsyncSQLiteThreadStore, InvalidThreadIdError, SQLiteThreadStore, validate_conversation
from messages.compaction import SUMMARY_MARKER, SummaryRequest
from messages.convert.autogen import from_autogen
from messages.integrations.autogen import CompactingChatCompletionContext


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}, 21 C, light wind from the west all day long."


def replay(tasks: int) -> Any:
    """A model that, for each task, calls the tool once and then answers."""
    from autogen_ext.models.replay import ReplayChatCompletionClient

    script: list[Any] = []
    for i in range(tasks):
        script.append(
            CreateResult(
                finish_reason="function_calls",
                content=[
                    FunctionCall(
                        id=f"call_{i}", arguments=json.dumps({"city": f"city {i}"}), name="get_weather"
                    )
                ],
                usage=RequestUsage(prompt_tokens=10, completion_tokens=5),
                cached=False,
            )
        )
        script.append(
            CreateResult(
                finish_reason="stop",
                content=f"It is sunny in city {i}; enjoy the walk.",
                usage=RequestUsage(prompt_tokens=10, completion_tokens=5),
                cached=False,
            )
        )
    return ReplayChatCompletionClient(
        script,
        model_info={
            "function_calling": True,
            "vision": False,
            "json_output": False,
            "family": ModelFamily.GPT_4O,
            "structured_output": False,
        },
    )


def summarize(request: SummaryRequest) -> str:
    return f"Weather asked for up to position {request.upto}."


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_an_assistant_agents_long_run_is_compacted_into_checkpoints_and_every_request_stays_valid(
    tmp_path, flavour
):
    from autogen_agentchat.agents import AssistantAgent

    async def main() -> None:
        path = tmp_path / "agent.db"
        store = AsyncSQLiteThreadStore(path) if flavour == "async" else SQLiteThreadStore(path)
        context = CompactingChatCompletionContext(
            store, "agent-run", summarizer=summarize, limit=12, trigger=9, keep=4
        )
        model = replay(8)
        agent = AssistantAgent(
            "weather",
            model_client=model,
            tools=[get_weather],
            model_context=context,
            system_message="You are the weather desk.",
            reflect_on_tool_use=True,
        )
        for i in range(8):
            await agent.run(task=f"Weather in city {i}?")
        requests = [list(call["messages"]) for call in model.create_calls]
        assert len(requests) == 16
        for request in requests:
            validate_conversation(from_autogen(request))
            assert isinstance(request[0], SystemMessage)
            assert len(request) <= 1 + 12
        summarized = [
            r for r in requests if isinstance(r[1], SystemMessage) and r[1].content.startswith(SUMMARY_MARKER)
        ]
        assert summarized, "no request carried a summary"
        sync = SQLiteThreadStore(path)
        chain = sync.checkpoints("agent-run")
        assert len(chain) >= 2
        # Every message the agent added is still in the store: none rewritten.
        stored = sync.messages("agent-run")
        assert sum(1 for m in stored if m.role == "user") == 8
        assert sum(1 for m in stored if m.role == "tool") == 8
        sync.close()
        state = await context.save_state()
        assert state["thread_id"] == "agent-run"
        # AutoGen's own context reads the window; this one, given the state, goes on with the thread.
        own = theirs.UnboundedChatCompletionContext()
        await own.load_state(state)
        assert await own.get_messages() == await context.get_messages()
        again = CompactingChatCompletionContext(store, summarizer=summarize, limit=12, trigger=9, keep=4)
        await again.load_state(state)
        assert again.thread_id == "agent-run"
        assert await again.get_messages() == await context.get_messages()
        # AutoGen's own state loads as a new thread holding its messages.
        fresh = CompactingChatCompletionContext(store, summarizer=summarize, limit=12, trigger=9, keep=4)
        await fresh.load_state(await own.save_state())
        assert fresh.thread_id != "agent-run"
        assert await fresh.get_messages() == await own.get_messages()
        if flavour == "async":
            await store.aclose()
        else:
            store.close()

    asyncio.run(main())


def test_the_compacting_context_dumps_and_loads_as_an_autogen_component(tmp_path):
    store = SQLiteThreadStore(tmp_path / "c.db")
    context = CompactingChatCompletionContext(
        store, "t1", summarizer="openai/gpt-4o-mini", limit=8_000, model="openai/gpt-4o-mini", timeout=30
    )
    dumped = context.dump_component()
    assert dumped.provider == "messages.integrations.autogen.CompactingChatCompletionContext"
    loaded = CompactingChatCompletionContext.load_component(json.loads(dumped.model_dump_json()))
    assert isinstance(loaded, CompactingChatCompletionContext)
    assert loaded.thread_id == "t1"
    assert loaded._to_config() == context._to_config()
    with pytest.raises(ValueError, match="only when its summarizer is a litellm model string"):
        CompactingChatCompletionContext(store, summarizer=summarize, limit=10).dump_component()
    store.close()


@pytest.mark.parametrize(
    ("thread_id", "match"), [(7, "not a int"), ("", "cannot be empty"), ("x" * 300, "at most")]
)
def test_a_thread_id_that_is_not_usable_is_refused_when_the_context_is_made(tmp_path, thread_id, match):
    # An int used to raise pydantic's ValidationError, "" to be replaced by a random id without a word, and
    # a too long id to fail only on the first call.
    with SQLiteThreadStore(tmp_path / "c.db") as store:
        with pytest.raises(InvalidThreadIdError, match=match):
            CompactingChatCompletionContext(store, thread_id, summarizer=summarize, limit=10)
        assert store.threads() == []


def test_results_added_after_their_call_turn_keep_their_names():
    from autogen_core.models import AssistantMessage, FunctionExecutionResult

    from messages import InMemoryThreadStore

    async def main() -> None:
        store = InMemoryThreadStore()
        context = CompactingChatCompletionContext(store, summarizer=summarize, limit=10)
        call = FunctionCall(id="c1", name="get_weather", arguments="{}")
        await context.add_message(AssistantMessage(content=[call], source="weather"))
        result = FunctionExecutionResult(call_id="c1", content="sun", name="get_weather", is_error=False)
        await context.add_message(FunctionExecutionResultMessage(content=[result]))
        [message] = (await context.get_messages())[1:]
        assert message == FunctionExecutionResultMessage(content=[result])

    asyncio.run(main())


def test_a_cancelled_add_message_on_a_sync_store_ends_before_the_cancellation_goes_on(tmp_path):
    # A sync store's calls run in a worker thread; cancelled while one is under way (here, the append
    # waiting for the SQLite write lock another connection holds), the call runs to its end first, as an
    # async store's would: with asyncio.to_thread it went on, and wrote, after the CancelledError.
    from autogen_core.models import UserMessage as AutoGenUser

    from tests.stores._backends import write_lock_held

    path = tmp_path / "chat.sqlite"
    store = SQLiteThreadStore(path)
    context = CompactingChatCompletionContext(store, summarizer=summarize, limit=10)

    async def run() -> None:
        await context.add_message(AutoGenUser(content="first", source="user"))  # the thread exists
        with write_lock_held({"backend": "sqlite", "path": str(path)}, context.thread_id) as release:
            adding = asyncio.create_task(context.add_message(AutoGenUser(content="hi", source="user")))
            await release.wait_for_a_waiter_async()  # the append waits for the lock
            adding.cancel()
            await asyncio.sleep(0.3)
            assert not adding.done()
            release()
            with pytest.raises(asyncio.CancelledError):
                await adding
        assert [m.content for m in store.messages(context.thread_id)] == ["first", "hi"]

    asyncio.run(run())
    store.close()
