"""The stores as an Agent Framework agent's history (messages.integrations.agent_framework), inside the real
Agent Framework: the behaviours Agent Framework's own tests check for InMemoryHistoryProvider and for
agents with history (test_sessions.py and test_agents.py, in the core tests of agent-framework's Python
package), in our words, on every backend in both flavours; where those tests read the session's state, the
store stands in. An agent with a tool for two turns through Agent Framework's own OpenAI chat client
against the stand-in, its history in SQLite and in PostgreSQL, and a second process going on with the
session; a replayed turn stored once, by content within a process and by id across four."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from messages import AIMessage, InvalidArgumentError, LocalThread, ToolCall, ToolMessage, UserMessage
from messages.context import BufferedContext, HeadAndTailContext
from messages.testing import StandInServer, scripted
from tests.stores._backends import Spec, open_async_store, open_store, write_lock_held

af = pytest.importorskip("agent_framework")
from agent_framework import (  # noqa: E402
    Agent,
    AgentResponse,
    AgentSession,
    CompactionProvider,
    Content,
    Message,
    SessionContext,
    tool,
)
from agent_framework._compaction import SlidingWindowStrategy  # noqa: E402
from agent_framework.openai import OpenAIChatClient, OpenAIChatCompletionClient  # noqa: E402

from messages.integrations.agent_framework import ThreadStoreHistoryProvider  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CHILD = [sys.executable, "-m", "tests.stores._agent_framework_child"]


async def opened(spec: Spec) -> Any:
    """The store a spec names, opened on the running loop (an async store) or as it is (a sync one)."""
    if spec.get("api") == "async":
        return await open_async_store(spec)
    return open_store(spec)


async def closed(store: Any) -> None:
    if hasattr(store, "aclose"):
        await store.aclose()
    else:
        store.close()


def with_store(spec: Spec, body: Callable[[Any], Awaitable[Any]]) -> Any:
    """Run ``body(store)`` on an event loop of its own, the store opened for it and closed after."""

    async def main() -> Any:
        store = await opened(spec)
        try:
            return await body(store)
        finally:
            await closed(store)

    return asyncio.run(main())


async def stored(store: Any, thread_id: str) -> list[Any]:
    records = store.records(thread_id)
    return await records if asyncio.iscoroutine(records) else records


async def run_provider(
    provider: ThreadStoreHistoryProvider, session: AgentSession, inputs: list[Message], replies: list[Message]
) -> SessionContext:
    """One run of ``provider`` as an agent drives it: load before, store after."""
    context = SessionContext(session_id=session.session_id, input_messages=inputs)
    state = session.state.setdefault(provider.source_id, {})
    await provider.before_run(agent=None, session=session, context=context, state=state)  # type: ignore[arg-type]
    context._response = AgentResponse(messages=replies)
    await provider.after_run(agent=None, session=session, context=context, state=state)  # type: ignore[arg-type]
    return context


def texts(messages: list[Message]) -> list[str]:
    return [m.text for m in messages]


# --- what InMemoryHistoryProvider's tests check, on every store ---------------------------------------------


def test_a_new_session_loads_nothing(backend, make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        context = await run_provider(provider, AgentSession(session_id="s1"), [], [])
        assert context.context_messages.get(provider.source_id, []) == []
        assert await provider.get_messages("no-such-session") == []

    with_store(make_spec(backend), body)


def test_a_run_is_stored_and_the_next_run_loads_it_in_order(backend, make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        session = AgentSession(session_id="s1")
        await run_provider(
            provider, session, [Message("user", ["hello"])], [Message("assistant", ["hi there"])]
        )
        context = await run_provider(provider, session, [Message("user", ["again"])], [])
        loaded = context.context_messages[provider.source_id]
        assert texts(loaded) == ["hello", "hi there"]
        # Where InMemoryHistoryProvider's test reads the session's state, the store holds the messages.
        assert [r.message for r in await stored(store, "s1")] == [
            UserMessage(content="hello"),
            AIMessage(content="hi there"),
            UserMessage(content="again"),
        ]

    with_store(make_spec(backend), body)


def test_the_session_serializes_with_its_id_alone_and_the_history_comes_back_through_the_store(
    durable_backend, make_spec
):
    # InMemoryHistoryProvider's state test: its messages travel inside the session's to_dict(). Here the
    # session holds only its id; a new provider over the same store, with the session restored from JSON,
    # loads what the first one stored.
    spec = make_spec(durable_backend)

    async def first(store):
        session = AgentSession(session_id="s1")
        provider = ThreadStoreHistoryProvider(store)
        await run_provider(provider, session, [Message("user", ["test"])], [Message("assistant", ["reply"])])
        return json.dumps(session.to_dict())

    saved = with_store(spec, first)

    async def second(store):
        session = AgentSession.from_dict(json.loads(saved))
        assert session.session_id == "s1"
        provider = ThreadStoreHistoryProvider(store)
        return texts(await provider.get_messages(session.session_id))

    assert with_store(spec, second) == ["test", "reply"]


def test_loaded_history_is_attributed_to_the_provider(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store, "custom-source")
        assert provider.source_id == "custom-source"
        session = AgentSession(session_id="s1")
        await run_provider(provider, session, [Message("user", ["test"])], [])
        context = await run_provider(provider, session, [], [])
        (loaded,) = context.context_messages["custom-source"]
        assert loaded.additional_properties["_attribution"] == {
            "source_id": "custom-source",
            "source_type": "ThreadStoreHistoryProvider",
        }

    with_store(make_spec("sqlite"), body)


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ({}, ["input", "reply"]),
        ({"store_inputs": False}, ["reply"]),
        ({"store_outputs": False}, ["input"]),
        ({"store_context_messages": True}, ["from rag", "from notes", "input", "reply"]),
        ({"store_context_messages": True, "store_context_from": {"rag"}}, ["from rag", "input", "reply"]),
    ],
)
def test_what_is_stored_follows_the_history_provider_flags(flags, expected, make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store, **flags)
        session = AgentSession(session_id="s1")
        context = SessionContext(session_id="s1", input_messages=[Message("user", ["input"])])
        context.extend_messages("rag", [Message("user", ["from rag"])])
        context.extend_messages("notes", [Message("user", ["from notes"])])
        context._response = AgentResponse(messages=[Message("assistant", ["reply"])])
        await provider.after_run(agent=None, session=session, context=context, state={})  # type: ignore[arg-type]
        return [r.message.content for r in await stored(store, "s1")]

    assert with_store(make_spec("sqlite"), body) == expected


def test_skip_excluded_leaves_out_what_compaction_marked(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store, skip_excluded=True)
        await provider.save_messages(
            "s1",
            [
                Message("user", ["keep"]),
                Message("assistant", ["skip"], additional_properties={"_excluded": True}),
            ],
        )
        assert texts(await provider.get_messages("s1")) == ["keep"]
        assert texts(await ThreadStoreHistoryProvider(store).get_messages("s1")) == ["keep", "skip"]

    with_store(make_spec("sqlite-async"), body)


def test_concurrent_saves_of_one_session_lose_nothing(backend, make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        await asyncio.gather(
            *(provider.save_messages("s1", [Message("user", [f"message {n}"])]) for n in range(8))
        )
        return sorted(texts(await provider.get_messages("s1")))

    assert with_store(make_spec(backend), body) == [f"message {n}" for n in range(8)]


def test_a_session_without_an_id_is_refused_naming_what_to_do(make_spec):
    async def body(store):
        with pytest.raises(InvalidArgumentError, match="run the agent with a session") as caught:
            await ThreadStoreHistoryProvider(store).get_messages(None)
        assert caught.value.argument == "session_id"

    with_store(make_spec("memory"), body)


@pytest.mark.parametrize("not_a_store", [None, "chats.sqlite", LocalThread()])
def test_an_object_that_is_no_store_is_refused_naming_the_stores_to_give(not_a_store):
    with pytest.raises(InvalidArgumentError, match="store is a ThreadStore or an AsyncThreadStore") as caught:
        ThreadStoreHistoryProvider(not_a_store)
    assert caught.value.argument == "store"


def test_a_cancelled_run_s_append_to_a_sync_store_ends_before_the_cancellation_goes_on(make_spec):
    # A sync store's calls run in a worker thread; cancelled while one is under way (here, waiting for
    # the SQLite write lock another connection holds), the call runs to its end first, as an async store's
    # would: with asyncio.to_thread it went on, and wrote, after the CancelledError.
    spec = make_spec("sqlite")
    store = open_store(spec)
    store.create_thread("s")
    provider = ThreadStoreHistoryProvider(store)

    async def run() -> None:
        with write_lock_held(spec, "s") as release:
            saving = asyncio.create_task(provider.save_messages("s", [Message("user", ["hi"])]))
            await release.wait_for_a_waiter_async()  # the append waits for the lock
            saving.cancel()
            await asyncio.sleep(0.3)
            assert not saving.done()
            release()
            with pytest.raises(asyncio.CancelledError):
                await saving
        assert [message.content for message in store.messages("s")] == ["hi"]

    asyncio.run(run())
    store.close()


def test_a_message_this_package_cannot_hold_is_refused_before_anything_is_written(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        with pytest.raises(af_conversion_error(), match="holds a value of type object, which is not JSON"):
            await provider.save_messages(
                "s1",
                [
                    Message("user", ["sign me in"]),
                    Message("assistant", ["ok"], additional_properties={"handle": object()}),
                ],
            )
        assert await provider.get_messages("s1") == []

    with_store(make_spec("sqlite"), body)


def test_what_no_message_of_this_package_holds_is_stored_in_the_envelope_and_given_back(make_spec):
    # Agent Framework's own history test hands its provider an oauth_consent_request: kept, given back.
    history = [
        Message("user", ["sign me in"]),
        Message("assistant", [Content.from_oauth_consent_request(consent_link="https://x.test")]),
        Message("assistant", ["done", Content.from_usage({"input_token_count": 3})], message_id="r-1"),
    ]

    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        await provider.save_messages("s1", history)
        await provider.save_messages("s1", history)  # a replay: stored once
        return [r.message for r in await stored(store, "s1")], await provider.get_messages("s1")

    messages, loaded = with_store(make_spec("sqlite"), body)
    assert messages == [UserMessage(content="sign me in"), AIMessage(content="done")]
    assert [m.to_dict() for m in loaded] == [m.to_dict() for m in history]


def af_conversion_error() -> type[Exception]:
    from messages import ConversionError

    return ConversionError


# --- replays -----------------------------------------------------------------------------------------------


def turn() -> list[Message]:
    """A turn with a tool, as an agent records it without message ids (Agent Framework's OpenAI client, not
    streaming): the results of the turn in one tool message."""
    return [
        Message("user", ["Weather and time in Paris?"]),
        Message(
            "assistant",
            [
                Content.from_function_call("c1", "weather", arguments='{"city":"Paris"}', id="af-call-1"),
                Content.from_function_call("c2", "time", arguments='{"city":"Paris"}', id="af-call-2"),
            ],
            author_name="bot",
        ),
        Message(
            "tool",
            [
                Content.from_function_result("c1", result="sunny", id="af-call-1"),
                Content.from_function_result("c2", result="noon", id="af-call-2"),
            ],
            author_name="bot",
        ),
        Message("assistant", ["Sunny, and it is noon."], author_name="bot"),
    ]


def test_a_replayed_turn_is_stored_once(backend, make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        await provider.save_messages("s1", turn())
        await provider.save_messages("s1", turn())  # the same turn again, new objects, no ids
        await provider.save_messages("s1", [*turn(), Message("user", ["thanks"])])  # the transcript again
        records = await stored(store, "s1")
        assert [type(r.message).__name__ for r in records] == [
            "UserMessage", "AIMessage", "ToolMessage", "ToolMessage", "AIMessage", "UserMessage"
        ]  # fmt: skip
        loaded = await provider.get_messages("s1")
        assert [m.to_dict() for m in loaded] == [m.to_dict() for m in [*turn(), Message("user", ["thanks"])]]

    with_store(make_spec(backend), body)


def test_a_user_saying_the_same_thing_again_is_not_a_replay(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        await provider.save_messages("s1", [Message("user", ["yes"])])
        await provider.save_messages("s1", [Message("user", ["yes"])])
        await provider.save_messages("s1", [Message("assistant", ["ok"]), Message("user", ["ok"])])
        await provider.save_messages("s1", [Message("user", ["ok"])])
        return texts(await provider.get_messages("s1"))

    assert with_store(make_spec("sqlite"), body) == ["yes", "yes", "ok", "ok", "ok"]


def test_messages_with_ids_are_stored_once_wherever_they_come_again(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        first = Message("assistant", ["one"], message_id="chatcmpl-1")
        await provider.save_messages("s1", [Message("user", ["q"]), first])
        await provider.save_messages(
            "s1", [Message("user", ["r"]), Message("assistant", ["two"], message_id="m2")]
        )
        # An id met again anywhere in the thread is the message it names, not a new one.
        await provider.save_messages("s1", [Message("assistant", ["one"], message_id="chatcmpl-1")])
        records = await stored(store, "s1")
        assert [r.id for r in records][1::2] == ["chatcmpl-1", "m2"]
        return texts(await provider.get_messages("s1"))

    assert with_store(make_spec("sqlite-async"), body) == ["q", "one", "r", "two"]


@pytest.mark.parametrize(
    "backend_name", ["sqlite", pytest.param("postgres-async", marks=pytest.mark.postgres)]
)
def test_a_turn_replayed_by_four_processes_at_once_is_stored_once(backend_name, make_spec):
    # Each process saves the same turn, with message ids, five times over: the store's idempotent append
    # keeps one copy of each message, whichever process gets there first.
    spec = make_spec(backend_name)
    payload = json.dumps({"spec": spec, "session": "s1"})
    children = [
        subprocess.Popen([*CHILD, "replay", payload], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    for child in children:
        out, _ = child.communicate(timeout=120)
        assert child.returncode == 0, out

    async def body(store):
        return [(r.id, r.message.content) for r in await stored(store, "s1")]

    rows = with_store(spec, body)
    assert [content for _, content in rows] == ["Weather in Paris?", None, "sunny", "It is sunny."]
    assert [i for i, _ in rows] == ["u-1", "chatcmpl-1", "tool-1", "chatcmpl-2"]


# --- agents with history -----------------------------------------------------------------------------------


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def weather_replies() -> Any:
    return scripted(
        AIMessage(
            content=None, tool_calls=[ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})]
        ),
        AIMessage(content="It is sunny in Paris."),
        AIMessage(content="You asked about the weather in Paris."),
    )


def agent_on(server: StandInServer, provider: Any, **kwargs: Any) -> Agent:
    client = OpenAIChatCompletionClient(model="gpt-4o-mini", api_key="test", base_url=server.url + "/v1")
    return Agent(
        client=client,
        name="weatherbot",
        instructions="Be brief.",
        tools=[get_weather],
        context_providers=[provider],
        **kwargs,
    )


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
def test_an_agent_with_a_tool_sends_its_history_and_stores_each_turn(stream, make_spec):
    async def body(store):
        with StandInServer(weather_replies()) as server:
            provider = ThreadStoreHistoryProvider(store)
            agent = agent_on(server, provider)
            session = agent.create_session()
            for question in ["Weather in Paris?", "What did I ask?"]:
                run = agent.run(question, session=session, stream=stream)
                response = await run.get_final_response() if stream else await run
            assert response.text == "You asked about the weather in Paris."
            last = server.bodies()[-1]["messages"]
            records = await stored(store, session.session_id)
        assert [m["role"] for m in last] == ["system", "user", "assistant", "tool", "assistant", "user"]
        assert last[2]["tool_calls"][0]["function"] == {
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
        }
        assert last[3] == {"role": "tool", "tool_call_id": "call_1", "content": "sunny in Paris"}
        assert [r.message for r in records] == [
            UserMessage(content="Weather in Paris?"),
            AIMessage(
                content=None,
                tool_calls=[ToolCall(id="call_1", name="get_weather", arguments='{"city":"Paris"}')],
                name="weatherbot",  # the agent's name, as Agent Framework stamps it on its replies
            ),
            ToolMessage(tool_call_id="call_1", content="sunny in Paris"),
            AIMessage(content="It is sunny in Paris.", name="weatherbot"),
            UserMessage(content="What did I ask?"),
            AIMessage(content="You asked about the weather in Paris.", name="weatherbot"),
        ]
        # Streamed replies keep their ids: the reply's id is the message's id in the thread.
        assert all(
            r.id.startswith("chatcmpl-") == (stream and r.message.role == "assistant") for r in records
        )

    with_store(make_spec("sqlite"), body)


def test_a_streamed_run_is_stored_once_its_stream_is_read_to_the_end(make_spec):
    async def body(store):
        with StandInServer(scripted(AIMessage(content="Hello Alice!"))) as server:
            provider = ThreadStoreHistoryProvider(store)
            agent = agent_on(server, provider)
            session = agent.create_session()
            async for _ in agent.run("My name is Alice", session=session, stream=True):
                pass
            return texts(await provider.get_messages(session.session_id))

    assert with_store(make_spec("sqlite-async"), body) == ["My name is Alice", "Hello Alice!"]


def test_history_seeded_in_the_store_is_sent_before_the_input(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        await provider.save_messages("s1", [Message("user", ["Hello"])])
        with StandInServer(scripted(AIMessage(content="ok"))) as server:
            agent = agent_on(server, provider)
            await agent.run("Test", session=AgentSession(session_id="s1"))
            return [m.get("content") for m in server.last_body()["messages"]]

    assert with_store(make_spec("sqlite"), body) == ["Be brief.", "Hello", "Test"]


def test_a_history_provider_in_the_agent_keeps_agent_framework_from_adding_its_own(make_spec):
    async def body(store):
        with StandInServer(scripted(AIMessage(content="ok"))) as server:
            agent = agent_on(server, ThreadStoreHistoryProvider(store))
            await agent.run("hi", session=agent.create_session())
            return [type(p).__name__ for p in agent.context_providers]

    assert with_store(make_spec("memory"), body) == ["ThreadStoreHistoryProvider"]


def test_each_service_call_is_persisted_and_the_turn_stored_once(make_spec):
    # require_per_service_call_history_persistence: Agent Framework saves after each model call, each time
    # the turn so far; the provider stores each message once.
    async def body(store):
        with StandInServer(weather_replies()) as server:
            provider = ThreadStoreHistoryProvider(store)
            agent = agent_on(server, provider, require_per_service_call_history_persistence=True)
            session = agent.create_session()
            response = await agent.run("Weather in Paris?", session=session)
            assert response.text == "It is sunny in Paris."
            return [type(r.message).__name__ for r in await stored(store, session.session_id)]

    assert with_store(make_spec("sqlite"), body) == ["UserMessage", "AIMessage", "ToolMessage", "AIMessage"]


def test_a_session_whose_service_keeps_the_history_is_a_remote_thread(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        await provider.save_messages("local", [Message("user", ["kept here"])])
        session = AgentSession(session_id="remote", service_session_id="resp_123")
        context = await run_provider(
            provider, session, [Message("user", ["hi"])], [Message("assistant", ["yo"])]
        )
        assert context.context_messages.get(provider.source_id, []) == []  # the service sends its history
        thread = store.load_thread("remote")
        thread = await thread if asyncio.iscoroutine(thread) else thread
        assert (thread.kind, thread.response_id) == ("remote", "resp_123")
        assert await provider.get_messages("remote") == []
        restored = await provider.load_session("remote")
        assert (restored.session_id, restored.service_session_id) == ("remote", "resp_123")
        local = await provider.load_session("local")
        assert (local.session_id, local.service_session_id) == ("local", None)
        assert await provider.load_session("missing") is None

    with_store(make_spec("sqlite-async"), body)


def test_a_session_with_stored_messages_keeps_them_when_the_service_starts_keeping_its_history(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        session = AgentSession(session_id="s1")
        await run_provider(provider, session, [Message("user", ["before"])], [Message("assistant", ["ok"])])
        session.service_session_id = "resp_9"
        await run_provider(provider, session, [Message("user", ["after"])], [Message("assistant", ["ok 2"])])
        thread = store.load_thread("s1")
        assert (thread.kind, thread.context_state["agent_framework"]["service_session_id"]) == (
            "local",
            "resp_9",
        )
        restored = await provider.load_session("s1")
        assert restored.service_session_id == "resp_9"
        return texts(await provider.get_messages("s1"))

    assert with_store(make_spec("sqlite"), body) == ["before", "ok", "after", "ok 2"]


@pytest.mark.parametrize("per_service_call", [False, True], ids=["per-run", "per-service-call"])
def test_a_responses_agent_that_stores_its_history_leaves_the_service_id_for_the_next_process(
    per_service_call, make_spec
):
    # Agent Framework's Responses client with store=True: the service keeps the history, the session its
    # response id, the store a RemoteThread holding it, saved at the end of each run or after each model call
    # (where the id is the one the call's response carries: Agent Framework sets the session's only after
    # saving). Another provider gives the session back, and its next run goes on from the newest id.
    async def body(store):
        with StandInServer(weather_replies()) as server:
            client = OpenAIChatClient(model="gpt-4o-mini", api_key="test", base_url=server.url + "/v1")
            agent = Agent(
                client=client,
                tools=[get_weather],
                context_providers=[ThreadStoreHistoryProvider(store)],
                default_options={"store": True},
                require_per_service_call_history_persistence=per_service_call,
            )
            session = agent.create_session()
            await agent.run("Weather in Paris?", session=session)
            kept = session.service_session_id
            assert isinstance(kept, str)
            assert kept.startswith("resp_")
            restored = await ThreadStoreHistoryProvider(store).load_session(session.session_id)
            assert (restored.session_id, restored.service_session_id) == (session.session_id, kept)
            await agent.run("What did I ask?", session=restored)
            assert server.last_body()["previous_response_id"] == kept
            assert [item.get("role") for item in server.last_body()["input"]] == ["user"]  # nothing loaded
            thread = store.load_thread(session.session_id)
            return thread.kind, len(await stored(store, session.session_id)) if thread.kind == "local" else 0

    assert with_store(make_spec("sqlite"), body) == ("remote", 0)


# --- windows -----------------------------------------------------------------------------------------------


def test_a_window_gives_the_agent_its_newest_exchanges_and_reads_only_them(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        for n in range(30):
            await provider.save_messages("s1", [Message("user", [f"q{n}"]), Message("assistant", [f"a{n}"])])
        reads: list[tuple[int, int | None]] = []
        records = store.records

        def counted(thread_id, start=0, stop=None):
            reads.append((start, stop))
            return records(thread_id, start, stop)

        store.records = counted
        windowed = ThreadStoreHistoryProvider(store, window=lambda: BufferedContext(buffer_size=4))
        loaded = await windowed.get_messages("s1")
        assert texts(loaded) == ["q28", "a28", "q29", "a29"]
        assert reads == [(56, 60)]  # the window's messages, found from the roles alone
        placeheld = ThreadStoreHistoryProvider(
            store, window=lambda: HeadAndTailContext(head_size=2, tail_size=2)
        )
        assert texts(await placeheld.get_messages("s1")) == [
            "q0", "a0", "[56 earlier messages of this conversation are left out here.]", "q29", "a29"
        ]  # fmt: skip

    with_store(make_spec("sqlite"), body)


def test_a_window_is_given_as_a_window_or_a_function_that_makes_one_and_anything_else_is_refused(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store)
        for n in range(5):
            await provider.save_messages("s1", [Message("user", [f"q{n}"]), Message("assistant", [f"a{n}"])])
        given = BufferedContext(buffer_size=2)
        by_window = ThreadStoreHistoryProvider(store, window=given)
        by_function = ThreadStoreHistoryProvider(store, window=lambda: BufferedContext(buffer_size=2))
        for _ in range(2):  # each read gets a window of its own
            assert texts(await by_window.get_messages("s1")) == ["q4", "a4"]
            assert texts(await by_function.get_messages("s1")) == ["q4", "a4"]
        assert given.history == []  # the window given is a template: it is never filled
        for wrong, said in [
            (BufferedContext, "which needs arguments"),
            (50, "got 50"),
            (lambda: [UserMessage(content="x")], "makes a list"),
        ]:
            with pytest.raises(
                InvalidArgumentError, match=f"window must be a window of messages.context .*{said}"
            ):
                ThreadStoreHistoryProvider(store, window=wrong)

    with_store(make_spec("memory"), body)


def test_a_run_without_a_session_leaves_a_thread_of_its_own_that_the_guide_says_how_to_clean_up(make_spec):
    # Agent Framework makes a session for such a run alone and forgets it: its turn is stored under that
    # session's id, which nobody holds (the guide's "Inside Agent Framework" says so, and how to clean up).
    async def body(store):
        with StandInServer(scripted(AIMessage(content="a"), AIMessage(content="b"))) as server:
            agent = agent_on(server, ThreadStoreHistoryProvider(store))
            kept = agent.create_session()
            await agent.run("remember me", session=kept)
            await agent.run("and forget me")
        orphans = [t for t in store.threads() if t != kept.session_id]
        assert [[m.content for m in store.messages(t)] for t in orphans] == [["and forget me", "b"]]
        for thread_id in orphans:
            store.delete_thread(thread_id)
        return store.threads() == [kept.session_id]

    assert with_store(make_spec("sqlite"), body)


def test_a_window_never_cuts_a_call_from_its_results(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store, window=lambda: BufferedContext(buffer_size=3))
        await provider.save_messages("s1", turn())
        loaded = await provider.get_messages("s1")
        # Three messages would cut the call from its results: the window keeps the newest whole exchange.
        return [m.role for m in loaded]

    assert with_store(make_spec("memory-async"), body) == ["assistant"]


def test_agent_frameworks_compaction_works_on_what_the_window_loaded(make_spec):
    async def body(store):
        provider = ThreadStoreHistoryProvider(store, window=lambda: BufferedContext(buffer_size=10))
        for n in range(10):
            await provider.save_messages("s1", [Message("user", [f"q{n}"]), Message("assistant", [f"a{n}"])])
        compaction = CompactionProvider(before_strategy=SlidingWindowStrategy(keep_last_groups=2))
        with StandInServer(scripted(AIMessage(content="ok"))) as server:
            client = OpenAIChatCompletionClient(
                model="gpt-4o-mini", api_key="test", base_url=server.url + "/v1"
            )
            agent = Agent(client=client, context_providers=[provider, compaction])
            await agent.run("q10", session=AgentSession(session_id="s1"))
            return [m["content"] for m in server.last_body()["messages"]]

    assert with_store(make_spec("sqlite"), body) == ["q9", "a9", "q10"]


# --- two turns, then a second process --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("sqlite", "sqlite-async"),
        pytest.param("postgres-async", "postgres", marks=pytest.mark.postgres),
    ],
)
def test_two_turns_with_a_tool_then_a_second_process_goes_on_with_the_session(first, second, make_spec):
    # The first process keeps the history through one flavour of the store, the second through the other.
    spec = make_spec(first)

    async def body(store):
        with StandInServer(weather_replies()) as server:
            agent = agent_on(server, ThreadStoreHistoryProvider(store))
            session = agent.create_session()
            await agent.run("Weather in Paris?", session=session, stream=True).get_final_response()
            await agent.run("What did I ask?", session=session)
            return session.session_id

    session_id = with_store(spec, body)
    with StandInServer(scripted(AIMessage(content="Paris, twice."))) as server:
        other = {key: value for key, value in spec.items() if key != "api"}
        if second.endswith("-async"):
            other["api"] = "async"
        payload = json.dumps({"spec": other, "session": session_id, "url": server.url})
        done = subprocess.run(
            [*CHILD, "continue", payload], cwd=ROOT, capture_output=True, text=True, timeout=180
        )
        assert done.returncode == 0, done.stderr
        sent = server.last_body()["messages"]
    assert [(m["role"], m.get("content")) for m in sent] == [
        ("system", "Be brief."),
        ("user", "Weather in Paris?"),
        ("assistant", None),
        ("tool", "sunny in Paris"),
        ("assistant", "It is sunny in Paris."),
        ("user", "What did I ask?"),
        ("assistant", "You asked about the weather in Paris."),
        ("user", "And before that?"),
    ]
    assert done.stdout.strip() == "Paris, twice."

    async def count(store):
        return len(await stored(store, session_id))

    assert with_store(spec, count) == 8
