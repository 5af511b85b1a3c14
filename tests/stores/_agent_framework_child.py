"""A process of its own for tests/stores/test_agent_framework*.py: ``replay`` saves one turn with message
ids many times over (beside three other such processes); ``continue`` runs the next turn of a session an
earlier process stored, against the stand-in at the given URL, and prints the reply; ``approve`` takes the
session an earlier process left waiting for a tool's approval (``load_session``), runs the user's answer,
and prints the reply and the tools that ran, as JSON."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from agent_framework import Agent, Content, Message, tool
from agent_framework.openai import OpenAIChatCompletionClient

from messages.integrations.agent_framework import ThreadStoreHistoryProvider
from tests.stores._backends import open_async_store, open_store


def replayed_turn() -> list[Message]:
    return [
        Message("user", ["Weather in Paris?"], message_id="u-1"),
        Message(
            "assistant",
            [Content.from_function_call("call_1", "get_weather", arguments='{"city":"Paris"}')],
            message_id="chatcmpl-1",
        ),
        Message("tool", [Content.from_function_result("call_1", result="sunny")], message_id="tool-1"),
        Message("assistant", ["It is sunny."], message_id="chatcmpl-2"),
    ]


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


RAN: list[str] = []


@tool(approval_mode="always_require")
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(f"delete {path}")
    return f"deleted {path}"


async def main(mode: str, payload: dict[str, Any]) -> None:
    spec = payload["spec"]
    store = await open_async_store(spec) if spec.get("api") == "async" else open_store(spec)
    provider = ThreadStoreHistoryProvider(store)
    try:
        if mode == "replay":
            for _ in range(5):
                await provider.save_messages(payload["session"], replayed_turn())
            return
        session = await provider.load_session(payload["session"])
        assert session is not None
        client = OpenAIChatCompletionClient(
            model="gpt-4o-mini", api_key="test", base_url=payload["url"] + "/v1"
        )
        if mode == "approve":
            agent = Agent(client=client, name="bot", tools=[delete_file], context_providers=[provider])
            answer = Message.from_dict(payload["answer"])
            run = agent.run(answer, session=session, stream=payload["stream"])
            response = await run.get_final_response() if payload["stream"] else await run
            print(json.dumps([response.text, RAN]))
            return
        agent = Agent(
            client=client,
            name="weatherbot",
            instructions="Be brief.",
            tools=[get_weather],
            context_providers=[provider],
        )
        response = await agent.run("And before that?", session=session)
        print(response.text)
    finally:
        if hasattr(store, "aclose"):
            await store.aclose()
        else:
            store.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
