"""A process of its own for tests/stores/test_openai_agents_flows.py (started by a forkserver that has this
module, and so the SDK, imported: ``run_child``): ``continue`` runs the next turn of a session an earlier
process stored (a scripted model) and sends back what the model was sent and what the session holds;
``approve`` takes the ``RunState`` an earlier process left waiting for a tool's approval, approves it, runs
it on the session, and sends back the final output, the tools that ran and the session's items."""

from __future__ import annotations

import asyncio
import json
from multiprocessing.connection import Connection
from typing import Any

from agents import Agent, Runner, RunState, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message

from messages.integrations.openai_agents import ThreadStoreSession
from tests.stores._backends import open_async_store, open_store

RAN: list[str] = []


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(path)
    return f"deleted {path}"


def run_child(mode: str, payload: dict[str, Any], sender: Connection) -> None:
    """Run ``mode`` with ``payload`` and send its result (a JSON text) down ``sender``."""
    sender.send(json.dumps(asyncio.run(main(mode, payload))))


async def main(mode: str, payload: dict[str, Any]) -> dict[str, Any]:
    set_tracing_disabled(True)
    spec = payload["spec"]
    store = await open_async_store(spec) if spec.get("api") == "async" else open_store(spec)
    session = ThreadStoreSession(payload["session"], store)
    try:
        if mode == "continue":
            model = ScriptedModel([[assistant_message("You asked about the weather.", item_id="msg_child")]])
            await Runner.run(Agent(name="bot", model=model), payload["input"], session=session)
            return {"sent": model.calls[0].input, "items": await session.get_items()}
        model = ScriptedModel([[assistant_message("Deleted a.txt.", item_id="msg_done")]])
        agent = Agent(name="bot", model=model, tools=[delete_file])
        state = await RunState.from_string(agent, payload["state"])
        for interruption in state.get_interruptions():
            state.approve(interruption)
        result = await Runner.run(agent, state, session=session)
        return {"output": result.final_output, "ran": RAN, "items": await session.get_items()}
    finally:
        if spec.get("api") == "async":
            await store.aclose()
        else:
            store.close()
