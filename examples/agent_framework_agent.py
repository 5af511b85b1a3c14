"""An Agent Framework agent whose history lives in SQLite, through this package's history provider.

The agent (agent-framework-core) talks through Agent Framework's own OpenAI chat client and keeps its
history in a ``SQLiteThreadStore`` through ``ThreadStoreHistoryProvider``: one thread per session, each
turn loading only what a ``BufferedContext`` window keeps (read from the store as such: the newest whole
exchanges, never a call without its result). It answers three questions with a weather tool; then a new
agent, as a second process would make it, gives the session back from the store and goes on with it; then
the last turn is saved again, as a client that sends the whole transcript does, and is stored once.

    pip install 'llm-messages[agent-framework]' agent-framework-openai
    python examples/agent_framework_agent.py                       # offline: a stand-in OpenAI on 127.0.0.1
    OPENAI_API_KEY=... python examples/agent_framework_agent.py --model gpt-4o-mini

Offline, Agent Framework's client sends its real HTTP request (Chat Completions) to
``messages.testing.StandInServer``, whose "model" is ``offline_model`` below: it calls the tool for the
city a question names, then answers from the result.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from agent_framework import Agent, AgentSession, tool
from agent_framework.openai import OpenAIChatCompletionClient

from messages import AIMessage, SQLiteThreadStore, ToolCall
from messages.context import BufferedContext
from messages.integrations.agent_framework import ThreadStoreHistoryProvider
from messages.testing import StandInServer

_WEATHER = {"paris": "light rain, 14 °C", "tokyo": "clear, 22 °C", "oslo": "snow, -3 °C"}
QUESTIONS = ["Weather in Paris?", "And in Tokyo?", "Finally, Oslo?"]
WINDOW = 4


@tool
def get_weather(city: str) -> str:
    """Current weather for a city (a fixed table here)."""
    return _WEATHER.get(city.strip().lower(), "unknown")


def offline_model(body: dict[str, Any]) -> AIMessage:
    """The stand-in's "model", reading the Chat Completions request: a tool call for the city asked about,
    then an answer from the tool's result."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return AIMessage(content=f"The weather service says: {last['content']}.")
    cities = re.findall(r"([A-Z][a-z]+)\?", str(last.get("content")))
    if not cities:
        return AIMessage(content=f"I remember {len(body['messages'])} messages of our talk.")
    return AIMessage(
        tool_calls=[
            ToolCall(id=f"call_{cities[0].lower()}", name="get_weather", arguments={"city": cities[0]})
        ]
    )


def make_agent(store: SQLiteThreadStore, client: OpenAIChatCompletionClient) -> Agent:
    history = ThreadStoreHistoryProvider(store, window=lambda: BufferedContext(buffer_size=WINDOW))
    return Agent(client=client, name="weather", instructions="Answer briefly.", tools=[get_weather],
                 context_providers=[history])  # fmt: skip


async def chat(client: OpenAIChatCompletionClient, path: Path, sent: list[int]) -> None:
    store = SQLiteThreadStore(path)
    agent = make_agent(store, client)
    session = agent.create_session()
    for question in QUESTIONS:
        response = await agent.run(question, session=session)
        print(f"user: {question}")
        print(f"  assistant: {response.text}")
        print(f"  [stored: {len(store.messages(session.session_id))} messages; sent: {sent[-1]} messages]")

    # A second process: a new store object and agent over the same file, the session given back by id.
    again = SQLiteThreadStore(path)
    provider = ThreadStoreHistoryProvider(again)
    restored = await provider.load_session(session.session_id)
    assert isinstance(restored, AgentSession)
    response = await make_agent(again, client).run("How much do you remember?", session=restored)
    print("user: How much do you remember?")
    print(f"  assistant: {response.text}")

    # The last turn saved again, as a client that sends the whole transcript does: stored once.
    before = len(again.messages(session.session_id))
    last_turn = (await provider.get_messages(session.session_id))[-2:]
    await provider.save_messages(session.session_id, last_turn)
    print(f"saved the last turn again: {before} -> {len(again.messages(session.session_id))} messages")
    for record in again.records(session.session_id)[-4:]:
        kept = record.metadata.get("agent_framework")
        fields = sorted(kept) if isinstance(kept, dict) else []
        print(f"  {record.message.role:9} id={record.id[:12]}... kept beside it: {fields}")
    store.close()
    again.close()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", help="an OpenAI model: talk to OpenAI (OPENAI_API_KEY in the environment)")
    parser.add_argument("--db", type=Path, help="the SQLite file (default: a new one in a temporary folder)")
    args = parser.parse_args()
    path = args.db or Path(tempfile.mkdtemp()) / "history.db"
    sent: list[int] = [0]
    if args.model:
        asyncio.run(chat(OpenAIChatCompletionClient(model=args.model), path, sent))
        return 0

    def model(body: dict[str, Any]) -> AIMessage:
        sent.append(len(body["messages"]))
        return offline_model(body)

    with StandInServer(model) as server:
        client = OpenAIChatCompletionClient(
            model="gpt-4o-mini", api_key="offline", base_url=server.url + "/v1"
        )
        asyncio.run(chat(client, path, sent))
        print(f"{len(server.bodies())} requests to the stand-in OpenAI, at most {max(sent)} messages each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
