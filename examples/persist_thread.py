"""A conversation kept in a SQLite thread store and continued by another process.

The first run asks a question that needs tools, stores every message of the exchange (tool calls and
results included) in a ``LocalThread`` of a ``SQLiteThreadStore``, and saves the thread's state. Then a new
process opens the same file, loads the thread by its id, reads it through a context window, asks a
follow-up and appends the answer. Nothing is lost on the way: the reloaded conversation still has its tool
calls, and it still passes the protocol check.

    python examples/persist_thread.py                         # both steps, offline, in a temporary file
    python examples/persist_thread.py --db chats.sqlite       # keep the file; prints the thread id
    python examples/persist_thread.py --db chats.sqlite --thread <id> "And in Lima?"   # continue it

For many workers on many machines, use ``PostgresThreadStore(dsn)`` instead: the same calls, one database.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tool_loop import TOOLS, offline_model, run_tool, transcript

from messages import (
    AIMessage,
    LocalThread,
    SQLiteThreadStore,
    SystemMessage,
    ToolMessage,
    UserMessage,
    dump_messages,
    validate_conversation,
)
from messages.context import BufferedContext
from messages.testing import StandInServer

MODEL = "openai/gpt-4o-mini"


def ask(store: SQLiteThreadStore, thread: LocalThread, question: str, **send: Any) -> None:
    """One user turn with its tool loop; each message is appended to the thread as it happens."""
    import litellm

    thread.append(store, UserMessage(content=question))
    while True:
        window = thread.read(store, BufferedContext(buffer_size=20))  # whole exchanges only
        response = litellm.completion(
            model=MODEL, messages=dump_messages(window, model=MODEL), tools=TOOLS, **send
        )
        reply = AIMessage.from_litellm(response)
        thread.append(store, reply)
        if not reply.tool_calls:
            return
        # The call and all its results go in together, atomically: a crash never leaves half an exchange.
        thread.append(store, [ToolMessage.for_call(call, run_tool(call)) for call in reply.tool_calls])


def first_run(db: str, question: str, **send: Any) -> str:
    with SQLiteThreadStore(db) as store:
        thread = LocalThread(context_state={"profile": {"home": "Paris", "units": "celsius"}})
        store.save_thread(thread)
        thread.append(store, SystemMessage(content="You are a concise assistant with weather tools."))
        ask(store, thread, question, **send)
        print(f"[process {os.getpid()}] thread {thread.id}: {len(thread.messages(store))} messages stored")
        return thread.id


def continue_run(db: str, thread_id: str, question: str, **send: Any) -> None:
    with SQLiteThreadStore(db) as store:
        thread = store.load_thread(thread_id)
        assert isinstance(thread, LocalThread)
        before = thread.messages(store)
        validate_conversation(before)
        calls = sum(len(m.tool_calls) for m in before if isinstance(m, AIMessage))
        print(
            f"[process {os.getpid()}] reloaded {len(before)} messages ({calls} tool calls), "
            f"context_state {thread.context_state}"
        )
        ask(store, thread, question, **send)
        print(transcript(thread.messages(store)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("question", nargs="?", default="What's the weather in Paris and Tokyo?")
    parser.add_argument("--db", help="the SQLite file (default: a temporary one)")
    parser.add_argument("--thread", help="continue this thread instead of starting one")
    parser.add_argument(
        "--api-base", help=argparse.SUPPRESS
    )  # the stand-in's address, for the second process
    args = parser.parse_args(argv)

    if args.thread:
        if not args.db:
            parser.error("--thread needs --db")
        if args.api_base:
            continue_run(args.db, args.thread, args.question, api_base=args.api_base, api_key="offline")
            return 0
        with StandInServer(offline_model) as server:
            continue_run(args.db, args.thread, args.question, api_base=server.url, api_key="offline")
        return 0

    with tempfile.TemporaryDirectory() as tmp, StandInServer(offline_model) as server:
        db = args.db or os.path.join(tmp, "chats.sqlite")
        thread_id = first_run(db, args.question, api_base=server.url, api_key="offline")
        # A different process, as after a restart or on another worker: it knows only the file and the id.
        follow_up = [
            sys.executable,
            __file__,
            "--db",
            db,
            "--thread",
            thread_id,
            "--api-base",
            server.url,
            "And the time in Tokyo?",
        ]
        return subprocess.run(follow_up, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
