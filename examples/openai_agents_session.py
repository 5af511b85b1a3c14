"""An OpenAI Agents SDK agent whose session lives in SQLite (or PostgreSQL), through ``ThreadStoreSession``.

The agent (openai-agents) talks through the SDK's ``LitellmModel``, so any litellm model works, and keeps
its session in a thread of this package's store: one stored message per SDK item, the item itself kept
exactly beside it. It answers a question with two weather calls at once; a deletion waits for the user's
approval, and the ``RunState`` is saved; then a second process (a new store object over the same file,
the state read back) approves it and the run ends. A limited read of the session reaches back to the call
the newest result answers, where the SDK's own sessions would cut it off.

    pip install 'llm-messages[openai-agents]' 'openai-agents[litellm]'
    python examples/openai_agents_session.py                       # offline: a stand-in OpenAI on 127.0.0.1
    python examples/openai_agents_session.py --dsn postgresql://localhost/agents   # the session in PostgreSQL
    OPENAI_API_KEY=... python examples/openai_agents_session.py --model openai/gpt-4o-mini

Offline, litellm sends its real request to ``messages.testing.StandInServer``, whose "model" is
``offline_model`` below: it calls the weather tool for every city a question names, asks to delete the
file a question names, and answers from the tools' results.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's own cost map, not a download
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")  # no trace export without an OpenAI key

from agents import Agent, Runner, RunState, function_tool
from agents.extensions.models.litellm_model import LitellmModel

from messages import AIMessage, SQLiteThreadStore, ThreadStore, ToolCall
from messages.integrations.openai_agents import ThreadStoreSession
from messages.testing import StandInServer

_WEATHER = {"paris": "light rain, 14 °C", "rome": "sunny, 24 °C", "oslo": "snow, -3 °C"}


@function_tool
def get_weather(city: str) -> str:
    """Current weather for a city (a fixed table here)."""
    return _WEATHER.get(city.strip().lower(), "unknown")


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file (it needs the user's approval)."""
    return f"deleted {path}"


def offline_model(body: dict[str, Any]) -> AIMessage:
    """The stand-in's "model", reading the Chat Completions request litellm sends."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        results: list[str] = []
        for message in reversed(body["messages"]):  # the results of the newest calls
            if message["role"] != "tool":
                break
            results.insert(0, message["content"])
        return AIMessage(content="Done: " + "; ".join(results) + ".")
    text = str(last.get("content"))
    if "delete" in text.lower():
        path = text.split()[-1].rstrip("?.")
        return AIMessage(
            tool_calls=[ToolCall(id="call_delete", name="delete_file", arguments={"path": path})]
        )
    cities = re.findall(r"\b(Paris|Rome|Oslo)\b", text)
    if not cities:
        return AIMessage(content=f"I was sent {len(body['messages'])} messages.")
    calls = [ToolCall(id=f"call_{c.lower()}", name="get_weather", arguments={"city": c}) for c in cities]
    return AIMessage(content="Let me look.", tool_calls=calls)


def open_store(args: argparse.Namespace, path: Path) -> ThreadStore:
    if args.dsn:
        from messages import PostgresThreadStore

        return PostgresThreadStore(args.dsn)
    return SQLiteThreadStore(path)


async def chat(args: argparse.Namespace, model: LitellmModel, path: Path) -> None:
    store = open_store(args, path)
    session = ThreadStoreSession("user-42", store)
    await session.clear_session()  # a fresh start each time the example runs
    agent = Agent(name="assistant", instructions="Be brief.", model=model, tools=[get_weather, delete_file])

    result = await Runner.run(agent, "Weather in Paris and Rome?", session=session)
    print("user: Weather in Paris and Rome?")
    print(f"  assistant: {result.final_output}")

    result = await Runner.run(agent, "Please delete notes.txt", session=session)
    print("user: Please delete notes.txt")
    for waiting in result.interruptions:
        print(f"  waiting for approval: {waiting.tool_name}({waiting.arguments})")
    saved = result.to_state().to_string()  # to a file, a queue, a database: a string
    store.close()

    # A second process: a new store object over the same database, the run state read back and approved.
    again = open_store(args, path)
    session = ThreadStoreSession("user-42", again)
    state = await RunState.from_string(agent, saved)
    for waiting in state.get_interruptions():
        state.approve(waiting)
    result = await Runner.run(agent, state, session=session)
    print(f"  [approved in a second process] assistant: {result.final_output}")

    items = await session.get_items()
    stored = again.thread_info("user-42").length
    print(f"the session holds {len(items)} items, stored as {stored} messages")
    newest = await session.get_items(limit=2)
    kinds = ", ".join(str(item.get("type") or item.get("role")) for item in newest)
    print(f"get_items(limit=2) gives {len(newest)} items: {kinds}")
    print(f"pop_item() gives back: {json.dumps(await session.pop_item())[:60]}...")
    again.close()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model", help="a litellm model string: talk to that provider (its key in the environment)"
    )
    parser.add_argument("--dsn", help="a PostgreSQL DSN: keep the session there instead of in SQLite")
    parser.add_argument("--db", type=Path, help="the SQLite file (default: a new one in a temporary folder)")
    args = parser.parse_args()
    path = args.db or Path(tempfile.mkdtemp()) / "sessions.db"
    if args.model:
        asyncio.run(chat(args, LitellmModel(args.model), path))
        return 0
    with StandInServer(offline_model) as server:
        kwargs = server.completion_kwargs("openai/gpt-4o-mini")
        model = LitellmModel("openai/gpt-4o-mini", base_url=kwargs["api_base"], api_key="offline")
        asyncio.run(chat(args, model, path))
        print(f"{len(server.bodies())} requests to the stand-in OpenAI")
    return 0


if __name__ == "__main__":
    sys.exit(main())
