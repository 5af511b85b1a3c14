"""Compaction through the real litellm, against the loopback stand-ins: a compacted read (the summary as a
marked system message after the instructions) sent to every provider of the conformance suite breaks no
rule of its API, arrives once, and never as an assistant turn; the default summarizer sends its request
through the provider's profile, sync and async, and the checkpoint records its model, prompt and usage."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from messages import (
    AIMessage,
    InMemoryThreadStore,
    LocalThread,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    validate_conversation,
)
from messages.compaction import Compactor, LiteLLMSummarizer, summary_message
from messages.testing import StandInServer, scripted
from tests.conformance.harness import run
from tests.conformance.providers import PROVIDERS

pytestmark = pytest.mark.litellm

CANARY = "The user (Ada) plans a trip to Oslo in March; the weather desk found snow, -3 C."
CALL = ToolCall(id="call_Rome2wE6rT9yU3iO7pA1sD5f", name="get_weather", arguments='{"city": "Rome"}')
COMPACTED = [
    SystemMessage(content="You are the weather desk."),
    summary_message(CANARY),
    UserMessage(content="And in Rome?"),
    AIMessage(content=None, tool_calls=[CALL]),
    ToolMessage.for_call(CALL, "sun, 24 C"),
    AIMessage(content="Sun in Rome, 24 C."),
    UserMessage(content="Which is warmer?"),
]
"""A compacted read as ``CompactingContext`` gives it: the instructions, the summary, the tail."""

_ASSISTANT_ROLES = {"assistant", "model", "chatbot"}


def turns(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The turns of a native request body, whatever the API calls them."""
    for key in ("messages", "contents", "chat_history"):
        if isinstance(body.get(key), list):
            return [t for t in body[key] if isinstance(t, dict)]
    return []


@pytest.mark.parametrize("provider", PROVIDERS, ids=[p.key for p in PROVIDERS])
def test_a_compacted_read_reaches_every_provider_with_the_summary_once_and_never_as_an_assistant_turn(
    litellm, provider
):
    validate_conversation(COMPACTED)
    without_summary = [m for i, m in enumerate(COMPACTED) if i != 1]
    with StandInServer() as server:
        outcome = run(litellm, server, provider, COMPACTED, profiles=True)
        plain = run(litellm, server, provider, without_summary, profiles=True)
    assert outcome.refused is None, outcome.report()
    # The summary adds no problem: what the provider's rules find is what they find without it (Ollama's
    # chat API, for one, has no field naming the call a result answers, with or without a summary).
    assert outcome.rules == plain.rules, outcome.report()
    body = outcome.body
    assert body is not None
    assert json.dumps(body, ensure_ascii=False).count(CANARY) == 1, body
    # It lands with the instructions (a system field, or the first turns) and before every assistant turn.
    where = [i for i, t in enumerate(turns(body)) if CANARY in json.dumps(t, ensure_ascii=False)]
    for index in where:
        assert turns(body)[index].get("role") not in _ASSISTANT_ROLES, turns(body)[index]
        before = turns(body)[:index]
        assert not any(t.get("role") in _ASSISTANT_ROLES for t in before), body
    if not where and isinstance(body.get("prompt"), str):  # Ollama's generate route: one flat prompt
        assert body["prompt"].index(CANARY) < body["prompt"].index("And in Rome?")


def exchange(n: int) -> list:
    call = ToolCall(id=f"call_{n}", name="get_weather", arguments=json.dumps({"city": f"city {n}"}))
    return [
        UserMessage(content=f"Weather in city {n}? " + "Please be thorough. " * 20),
        AIMessage(content=None, tool_calls=[call]),
        ToolMessage.for_call(call, f"city {n}: rain, {n} C. " + "Details follow. " * 20),
        AIMessage(content=f"Rain in city {n}. " + "More words. " * 20),
    ]


@pytest.mark.parametrize(
    "model", ["openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-flash"]
)
def test_the_default_summarizer_sends_the_span_through_the_profile_and_records_how_it_summarized(
    litellm, model
):
    store = InMemoryThreadStore()
    thread = LocalThread()
    store.save_thread(thread)
    store.append(
        thread.id,
        [SystemMessage(content="You are the weather desk."), *(m for n in range(8) for m in exchange(n))],
    )
    with StandInServer(scripted(AIMessage(content="Rain in cities 0 to 6."))) as server:
        summarizer = LiteLLMSummarizer(model, **server.completion_kwargs(model))
        compactor = Compactor(summarizer, limit=3_000, model="openai/gpt-4o-mini")
        [checkpoint] = compactor.compact(store, thread, force=True).written
        [body] = server.bodies()
    assert checkpoint.summary == summary_message("Rain in cities 0 to 6.")
    assert checkpoint.upto == 25  # the newest exchanges within keep (a quarter of the limit) stay
    provenance = checkpoint.provenance
    assert (provenance.model, provenance.prompt_hash) == (model, summarizer.prompt_hash)
    assert provenance.input_tokens
    assert provenance.output_tokens
    assert provenance.token_counter == "litellm:openai/gpt-4o-mini"
    sent = json.dumps(body)
    assert all(f"city {n}" in sent for n in range(6))  # exactly the span, whole
    assert "city 6" not in sent
    assert "You compact a long conversation" in sent


def test_the_default_summarizer_is_awaited_with_litellm_acompletion_and_merges_the_previous_summary(litellm):
    async def main() -> None:
        from messages import AsyncInMemoryThreadStore

        store = AsyncInMemoryThreadStore()
        thread = LocalThread()
        await store.save_thread(thread)
        await store.append(
            thread.id, [SystemMessage(content="You are the weather desk."), *exchange(0), *exchange(1)]
        )
        replies = scripted(AIMessage(content="First summary."), AIMessage(content="Second summary."))
        with StandInServer(replies) as server:
            model = "openai/gpt-4o-mini"
            compactor = Compactor(
                LiteLLMSummarizer(model, **server.completion_kwargs(model)), limit=3_000, model=model
            )
            first = (await compactor.acompact(store, thread, force=True)).written
            await store.append(thread.id, [*exchange(2), *exchange(3)])
            second = (await compactor.acompact(store, thread, force=True)).written
            bodies = server.bodies()
        assert [c.base for c in second] == [first[0].id]
        assert "First summary." in json.dumps(bodies[1]["messages"][1])  # the previous summary, merged
        assert second[0].upto > first[0].upto
        assert "city 1" in json.dumps(bodies[1])
        assert "city 0" not in json.dumps(bodies[1])  # summarized once, in the first summary
        got = await thread.aread(store, compactor.window())
        assert got[1] == summary_message("Second summary.")

    asyncio.run(main())
