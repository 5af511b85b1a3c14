"""Agent Framework's tool approvals and everything else its agents record, with the stores as the history
(messages.integrations.agent_framework), driven through Agent Framework's real classes: an agent with a
tool declared ``approval_mode="always_require"`` on Agent Framework's OpenAI chat client against the
stand-in, its first run ending on an approval request, the user's answer in the same session, in a session
given back by ``load_session`` in another process, and in one restored from ``to_dict`` with a fresh
provider, streaming and not, on SQLite and PostgreSQL in both flavours. The behaviours are the ones Agent
Framework's own function-invocation and session tests check (an approved call runs once, a rejected one
never, a resolved approval stays resolved), in our words; each flow is also run with Agent Framework's own
``InMemoryHistoryProvider`` (and once ``FileHistoryProvider``), and the requests sent must be the same.
Every request is checked with ``validate_conversation`` and openai-python's types. Then every content type
Agent Framework defines, through a store write and read on every backend."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings

from messages import AIMessage, ToolCall, UnansweredToolCallError, load_messages, validate_conversation
from messages.testing import StandInServer, scripted
from tests.oracles import openai_accepts
from tests.stores._backends import Spec
from tests.stores.test_agent_framework import stored, with_store

af = pytest.importorskip("agent_framework")
from agent_framework import (  # noqa: E402
    Agent,
    AgentSession,
    FileHistoryProvider,
    InMemoryHistoryProvider,
    Message,
    tool,
)
from agent_framework._feature_stage import ExperimentalWarning  # noqa: E402
from agent_framework.openai import OpenAIChatCompletionClient  # noqa: E402

from messages.integrations.agent_framework import ThreadStoreHistoryProvider  # noqa: E402
from tests.af_contents import af_histories, round_trips_in_agent_framework  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CHILD = [sys.executable, "-m", "tests.stores._agent_framework_child"]
RAN: list[str] = []


@tool(approval_mode="always_require")
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(f"delete {path}")
    return f"deleted {path}"


@tool(approval_mode="always_require")
def wipe_disk(disk: str) -> str:
    """Wipe a disk."""
    RAN.append(f"wipe {disk}")
    raise OSError("the disk is busy")


def deleting(*more: AIMessage) -> Any:
    """The model asks to delete a.txt, then says it did, then answers the turns after."""
    return scripted(
        AIMessage(tool_calls=[ToolCall(id="call_1", name="delete_file", arguments={"path": "a.txt"})]),
        AIMessage(content="Deleted a.txt."),
        *more,
    )


def agent_on(server: StandInServer, provider: Any, tools: list[Any] | None = None) -> Agent:
    client = OpenAIChatCompletionClient(model="gpt-4o-mini", api_key="test", base_url=server.url + "/v1")
    return Agent(client=client, name="bot", tools=tools or [delete_file], context_providers=[provider])


async def run(agent: Agent, message: Any, session: AgentSession, stream: bool) -> Any:
    if stream:
        return await agent.run(message, session=session, stream=True).get_final_response()
    return await agent.run(message, session=session)


def valid(bodies: list[dict[str, Any]], extra: str | None = None) -> list[list[dict[str, Any]]]:
    """Each request's messages, after checking them: the tool-call protocol holds, and openai-python's types
    take them (but for the key ``extra`` of an assistant turn, which OpenAI's shape lacks: OpenRouter's
    ``reasoning_details``)."""
    for body in bodies:
        plain = [
            {k: v for k, v in m.items() if k != extra or m["role"] != "assistant"} for m in body["messages"]
        ]
        validate_conversation(load_messages(plain))
        openai_accepts(plain)
    return [body["messages"] for body in bodies]


def answer(first: Any, approved: bool = True) -> Message:
    (request,) = first.user_input_requests
    assert request.type == "function_approval_request"
    return Message("user", [request.to_function_approval_response(approved)])


def recorded(messages: list[Message]) -> list[dict[str, Any]]:
    """What Agent Framework persists of each message, without the ids that differ from run to run (the
    stand-in's streamed replies', Agent Framework's occurrence ids ``af-call-<uuid>``)."""
    kept = [{k: v for k, v in m.to_dict().items() if k != "message_id"} for m in messages]
    return json.loads(re.sub(r"af-call-[0-9a-f]{32}", "af-call", json.dumps(kept)))  # type: ignore[no-any-return]


async def flow(
    provider: Callable[[], Any], mode: str, stream: bool, spec: Spec | None = None
) -> tuple[list[list[dict[str, Any]]], list[str], AgentSession]:
    """The approval flow with ``provider()`` as the history: run 1 asks for approval; the user approves in
    the same session (``same``), in a session restored from ``to_dict`` with a fresh provider
    (``from_dict``), or in another process that gets the session from ``load_session`` (``load_session``,
    ``spec`` the store's); then a third turn. The requests sent, what ran, and the session."""
    RAN.clear()
    with StandInServer(deleting(AIMessage(content="You deleted a.txt."))) as server:
        history = provider()
        agent = agent_on(server, history)
        session = agent.create_session()
        first = await run(agent, "Delete a.txt", session, stream)
        assert RAN == []  # nothing runs before its approval
        if mode == "same":
            second = await run(agent, answer(first), session, stream)
        elif mode == "from_dict":
            saved = json.dumps(session.to_dict())
            history = provider()
            agent = agent_on(server, history)
            session = AgentSession.from_dict(json.loads(saved))
            second = await run(agent, answer(first), session, stream)
        else:
            assert mode == "load_session"
            assert spec is not None
            payload = {
                "spec": spec,
                "session": session.session_id,
                "url": server.url,
                "answer": answer(first).to_dict(),
                "stream": stream,
            }
            child = await asyncio.to_thread(
                subprocess.run,
                [*CHILD, "approve", json.dumps(payload)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=180,
            )
            assert child.returncode == 0, child.stderr
            text, ran = json.loads(child.stdout)
            RAN.extend(ran)
            second = None
            session = await history.load_session(session.session_id)
        assert (second.text if second is not None else text) == "Deleted a.txt."
        third = await run(agent, "What did I do?", session, stream)
        assert third.text == "You deleted a.txt."
        return valid(server.bodies()), list(RAN), session


EXPECTED_SENT = [
    [{"role": "user", "content": "Delete a.txt"}],
    [
        {"role": "user", "content": "Delete a.txt"},
        {
            "role": "assistant",
            "name": "bot",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "delete_file", "arguments": '{"path":"a.txt"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "deleted a.txt"},
    ],
]


def in_memory() -> InMemoryHistoryProvider:
    return InMemoryHistoryProvider()


SLOW = pytest.mark.slow  # another process: its imports take seconds
PG = pytest.mark.postgres


@pytest.mark.parametrize(
    ("backend_name", "mode", "stream"),
    [
        ("sqlite", "same", False),
        ("sqlite", "same", True),
        ("sqlite", "from_dict", False),
        pytest.param("sqlite", "load_session", False, marks=SLOW),
        ("sqlite-async", "same", True),
        ("sqlite-async", "from_dict", True),
        pytest.param("postgres", "same", True, marks=PG),
        pytest.param("postgres", "from_dict", False, marks=PG),
        pytest.param("postgres-async", "same", False, marks=PG),
        pytest.param("postgres-async", "load_session", True, marks=[PG, SLOW]),
    ],
)
def test_an_approved_call_runs_once_and_the_requests_are_the_ones_agent_frameworks_own_history_makes(
    backend_name, mode, stream, make_spec
):
    spec = make_spec(backend_name)

    async def body(store):
        sent, ran, session = await flow(lambda: ThreadStoreHistoryProvider(store), mode, stream, spec)
        return sent, ran, [r.message for r in await stored(store, session.session_id)]

    sent, ran, messages = with_store(spec, body)
    assert ran == ["delete a.txt"]
    assert sent[:2] == EXPECTED_SENT
    # Agent Framework's own history, same session or restored from to_dict: the same requests.
    theirs, their_ran, _ = asyncio.run(flow(in_memory, "same" if mode == "load_session" else mode, stream))
    assert sent == theirs
    assert their_ran == ran
    # The thread holds the whole flow, the approval kept beside what a model reads: call, then result.
    assert [type(m).__name__ for m in messages] == [
        "UserMessage", "AIMessage", "ToolMessage", "AIMessage", "UserMessage", "AIMessage"
    ]  # fmt: skip
    validate_conversation(messages)


async def store_threads(store: Any) -> list[str]:
    found = store.threads()
    return await found if asyncio.iscoroutine(found) else found


def test_the_stored_flow_comes_back_as_agent_frameworks_own_history_keeps_it(make_spec):
    async def body(store):
        ours = ThreadStoreHistoryProvider(store)
        _, _, session = await flow(lambda: ours, "same", stream=True)
        return await ours.get_messages(session.session_id)

    loaded = with_store(make_spec("sqlite-async"), body)
    _, _, session = asyncio.run(flow(in_memory, "same", stream=True))
    kept = session.state["in_memory"]["messages"]
    assert recorded(loaded) == recorded(kept)
    assert [[c.type for c in m.contents] for m in loaded][:3] == [
        ["text"],
        ["function_call", "function_approval_request"],
        ["function_approval_response"],
    ]


def test_load_session_gives_back_the_sessions_state_with_its_pending_approval(make_spec):
    async def body(store):
        with StandInServer(deleting()) as server:
            provider = ThreadStoreHistoryProvider(store)
            agent = agent_on(server, provider)
            session = agent.create_session()
            await agent.run("Delete a.txt", session=session)
            restored = await ThreadStoreHistoryProvider(store).load_session(session.session_id)
            return session.to_dict(), restored.to_dict()

    original, restored = with_store(make_spec("sqlite"), body)
    assert "tool_approval" in original["state"]
    assert restored == original


def test_a_rejected_and_an_approved_call_answered_together(make_spec):
    replies = scripted(
        AIMessage(
            tool_calls=[
                ToolCall(id="call_1", name="delete_file", arguments={"path": "a.txt"}),
                ToolCall(id="call_2", name="delete_file", arguments={"path": "b.txt"}),
            ]
        ),
        AIMessage(content="Deleted a.txt; b.txt was not approved."),
    )

    async def body(store):
        RAN.clear()
        with StandInServer(replies) as server:
            agent = agent_on(server, ThreadStoreHistoryProvider(store))
            session = agent.create_session()
            first = await agent.run("Delete a.txt and b.txt", session=session)
            yes, no = first.user_input_requests
            decided = Message(
                "user", [yes.to_function_approval_response(True), no.to_function_approval_response(False)]
            )
            await agent.run(decided, session=session)
            return valid(server.bodies())[-1][-2:]

    assert with_store(make_spec("sqlite"), body) == [
        {"role": "tool", "tool_call_id": "call_1", "content": "deleted a.txt"},
        {
            "role": "tool",
            "tool_call_id": "call_2",
            "content": "Error: Tool call invocation was rejected by user.",
        },
    ]
    assert RAN == ["delete a.txt"]


def test_a_failing_approved_tool_and_an_abandoned_approval_leave_valid_requests(make_spec):
    replies = scripted(
        AIMessage(tool_calls=[ToolCall(id="call_1", name="wipe_disk", arguments={"disk": "C"})]),
        AIMessage(content="The disk is busy."),
        AIMessage(tool_calls=[ToolCall(id="call_2", name="wipe_disk", arguments={"disk": "D"})]),
        AIMessage(content="Never mind then."),
    )

    async def body(store):
        RAN.clear()
        with StandInServer(replies) as server:
            provider = ThreadStoreHistoryProvider(store)
            agent = agent_on(server, provider, tools=[wipe_disk])
            session = agent.create_session()
            first = await agent.run("Wipe C", session=session)
            await agent.run(answer(first), session=session)
            await agent.run("Wipe D", session=session)  # asks for approval, which never comes
            await agent.run("Forget it", session=session)
            sent = valid(server.bodies())
            thread = [r.message for r in await stored(store, session.session_id)]
        return sent, thread

    sent, thread = with_store(make_spec("sqlite-async"), body)
    assert RAN == ["wipe C"]
    # The failure went to the model as Agent Framework words it; the call never approved is not sent.
    assert {"role": "tool", "tool_call_id": "call_1", "content": "Error: Function failed."} in sent[1]
    assert all("call_2" not in json.dumps(m) for m in sent[-1])
    # The thread keeps it all; the call that never got its result is reported as such when read.
    assert thread[2].is_error is True
    with pytest.raises(UnansweredToolCallError, match="'call_2'"):
        validate_conversation(thread)


def test_agent_frameworks_file_history_makes_the_same_requests(tmp_path, make_spec):
    def file_history() -> FileHistoryProvider:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExperimentalWarning)  # it says so on each construction
            return FileHistoryProvider(tmp_path / "history")

    theirs, _, _ = asyncio.run(flow(file_history, "same", stream=False))

    async def body(store):
        sent, _, _ = await flow(lambda: ThreadStoreHistoryProvider(store), "same", stream=False)
        return sent

    assert with_store(make_spec("sqlite"), body) == theirs


@tool
def look_up(query: str) -> str:
    """Look something up."""
    return "found"


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
def test_reasoning_details_a_reply_carries_are_stored_typed_and_sent_back_each_turn(stream, make_spec):
    # OpenRouter and vLLM return reasoning_details; Agent Framework's OpenAI chat client keeps them as a
    # text_reasoning's protected_data and sends them back with the turn. Stored as the reply's
    # provider_specific_fields (what the OpenRouter profile sends back), they come back for it to send.
    details = [
        {"type": "reasoning.encrypted", "data": "c2lnbmVk", "id": "rs_1", "format": "anthropic-claude-v1"}
    ]
    replies = scripted(
        AIMessage(
            tool_calls=[ToolCall(id="call_1", name="look_up", arguments={"query": "x"})],
            provider_specific_fields={"reasoning_details": details},
        ),
        AIMessage(content="Found it."),
        AIMessage(content="Still found."),
    )

    async def body(store):
        with StandInServer(replies) as server:
            agent = agent_on(server, ThreadStoreHistoryProvider(store), tools=[look_up])
            session = agent.create_session()
            await run(agent, "Look x up", session, stream)
            restored = await ThreadStoreHistoryProvider(store).load_session(session.session_id)
            await run(
                agent_on(server, ThreadStoreHistoryProvider(store), tools=[look_up]), "And?", restored, stream
            )
            sent = valid(server.bodies(), extra="reasoning_details")
            thread = [r.message for r in await stored(store, session.session_id)]
        return sent, thread

    sent, thread = with_store(make_spec("sqlite"), body)
    assert [m.get("reasoning_details") for m in sent[-1]] == [None, details, None, None, None]
    assert thread[1].provider_specific_fields == {"reasoning_details": details}


# --- every content type Agent Framework defines, through every store -------------------------------------


@pytest.fixture
def spec(backend: str, make_spec: Callable[[str], Spec]) -> Spec:
    """A fresh store of each backend in turn, for all the examples of one property."""
    return make_spec(backend)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=af_histories(max_size=5))
def test_every_agent_framework_history_comes_back_from_every_store(spec, history):
    assume(all(round_trips_in_agent_framework(m) for m in history))

    async def body(store):
        session_id = str(uuid.uuid4())
        await ThreadStoreHistoryProvider(store).save_messages(session_id, history)
        return await ThreadStoreHistoryProvider(store).get_messages(session_id)

    loaded = with_store(spec, body)
    assert [m.to_dict() for m in loaded] == [m.to_dict() for m in history]
