"""A second process for the llamabot tests (forked from a zygote, tests/_zygote.py): a bot or an agent on a
durable store's thread, talking to the stand-in at the URL it is given, then exiting; the test goes on
with the same thread in its own process.

    python tests/llamabot/_child.py '{"bot": "simple" | "agent", "store": <spec>, "thread": ..., "url": ...,
                                      "say": [...]}'

Prints one JSON line: what each ``say`` got back (an agent's result, a bot's text and call names).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # llamabot's recorder, at its import
    import llamabot.prompt_manager
    import llamabot.recorder

from llamabot import AgentBot

from messages import (
    AsyncPostgresThreadStore,
    AsyncSQLiteThreadStore,
    PostgresThreadStore,
    SQLiteThreadStore,
)
from messages.context import BufferedContext
from messages.integrations.llamabot import DecideNode, SimpleBot, ThreadStoreChatMemory
from tests.llamabot._models import ADD
from tests.llamabot._tools import add, explode, multiply


def open_store(spec: dict[str, Any]) -> Any:
    """The store a spec names (tests/stores' specs), an async one as it is."""
    asynchronous = spec.get("api") == "async"
    if spec["backend"] == "sqlite":
        return AsyncSQLiteThreadStore(spec["path"]) if asynchronous else SQLiteThreadStore(spec["path"])
    return AsyncPostgresThreadStore(spec["dsn"]) if asynchronous else PostgresThreadStore(spec["dsn"])


def close(store: Any) -> None:
    if hasattr(store, "aclose"):
        asyncio.run(store.aclose())
    else:
        store.close()


def main(order: dict[str, Any]) -> list[Any]:
    log = Path(order["log"])
    log.parent.mkdir(parents=True, exist_ok=True)
    # The test's folder, not the project's (llamabot's message log, spans and prompt versions).
    llamabot.recorder.find_or_set_db_path = llamabot.prompt_manager.find_or_set_db_path = (
        lambda db_path=None: log
    )
    store = open_store(order["store"])
    memory = ThreadStoreChatMemory(store, order["thread"], window=BufferedContext(50))
    settings = {"api_base": order["url"], "api_key": "sk-test", "num_retries": 0}
    got: list[Any] = []
    try:
        if order["bot"] == "simple":
            bot = SimpleBot(
                "Add.",
                model_name=order["model"],
                memory=memory,
                tools=[ADD],
                stream_target="none",
                **settings,
            )
            for text in order["say"]:
                reply = bot(text)
                got.append([reply.content, [call.function.name for call in reply.tool_calls]])
        else:
            node = DecideNode(memory, model_name=order["model"], **settings)
            agent = AgentBot(tools=[add, multiply, explode], decide_node=node)
            for text in order["say"]:
                got.append(agent(text))
    finally:
        close(store)
    return got


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
