"""``ThreadStoreHistoryProvider(store, compactor=...)`` inside the real Agent Framework: an agent's long run
through Agent Framework's own OpenAI chat client against the stand-in, its history compacted into summary
checkpoints after the runs that pass the trigger, each request the instructions, the newest summary and
the exchanges after it, and every message still in the store."""

from __future__ import annotations

import pytest

from messages import AIMessage, SystemMessage, UserMessage
from messages.compaction import SUMMARY_MARKER, Compactor, SummaryRequest
from messages.testing import StandInServer
from tests.stores.test_agent_framework import stored, with_store

af = pytest.importorskip("agent_framework")
from agent_framework import Agent, AgentSession  # noqa: E402
from agent_framework.openai import OpenAIChatCompletionClient  # noqa: E402

from messages.integrations.agent_framework import ThreadStoreHistoryProvider  # noqa: E402


def summarize(request: SummaryRequest) -> str:
    return f"Questions up to position {request.upto}."


@pytest.mark.parametrize("backend", ["sqlite", "sqlite-async"])
def test_an_agents_history_is_compacted_into_checkpoints_and_each_run_loads_the_summary_and_the_tail(
    backend, make_spec
):
    async def body(store):
        compactor = Compactor(summarize, limit=8, trigger=6, keep=2)
        provider = ThreadStoreHistoryProvider(store, compactor=compactor)
        numbered = iter(range(100))

        def answer(request_body):
            return AIMessage(content=f"answer {next(numbered)}")

        with StandInServer(answer) as server:
            client = OpenAIChatCompletionClient(
                model="gpt-4o-mini", api_key="test", base_url=server.url + "/v1"
            )
            agent = Agent(client=client, instructions="Be brief.", context_providers=[provider])
            session = AgentSession(session_id="long")
            for n in range(10):
                await agent.run(f"question {n}", session=session)
            bodies = server.bodies()
        records = await stored(store, "long")
        chain = store.checkpoints("long")
        chain = await chain if not isinstance(chain, list) else chain
        return bodies, records, chain

    bodies, records, chain = with_store(make_spec(backend), body)
    assert len(chain) >= 2
    # Every message of the ten runs is in the store, none rewritten.
    assert [r.message for r in records] == [
        m
        for n in range(10)
        for m in (UserMessage(content=f"question {n}"), AIMessage(content=f"answer {n}", name="UnnamedAgent"))
    ]
    last = bodies[-1]["messages"]
    assert last[0] == {"role": "system", "content": "Be brief."}
    assert last[1]["role"] == "system"
    assert last[1]["content"].startswith(SUMMARY_MARKER)
    # A stored checkpoint's summary, as it was before the last run (whose compaction came after it).
    [before] = [c for c in chain if c.summary == SystemMessage(content=last[1]["content"])]
    assert before in chain[-2:]
    assert last[-1] == {"role": "user", "content": "question 9"}
    assert all(len(b["messages"]) <= 2 + 8 for b in bodies)  # the instructions, the summary, the window
    assert SystemMessage(content=last[1]["content"]) == before.summary
