"""A llamabot AgentBot whose conversation keeps the tool-call protocol, in SQLite, through this package.

llamabot's own ``AgentBot`` (a PocketFlow graph) runs two tools, ``add`` and ``multiply``. Its decide node
is the package's (``messages.integrations.llamabot.DecideNode``): the model's ``tool_calls`` and each
tool's result (``role: tool``, answering its call by id) are kept in a thread of a ``SQLiteThreadStore``,
and each decision sends the system prompt and the newest whole exchanges a ``BufferedContext`` keeps. Two
questions; then a new agent, as a second process would make it, goes on with the thread; then a
``SimpleBot`` of the package answers a question about the conversation from the same thread.

    pip install 'llm-messages[llamabot]'
    python examples/llamabot_agent.py                          # offline: a stand-in OpenAI on 127.0.0.1
    OPENAI_API_KEY=... python examples/llamabot_agent.py --model gpt-4o-mini

Offline, litellm sends its real request to ``messages.testing.StandInServer``, whose "model" is
``offline_model`` below: for "What is (a + b) * c?" it calls ``add``, then ``multiply`` with the sum, then
answers through llamabot's ``respond_to_user``.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from llamabot import AgentBot
from llamabot.components.tools import tool

from messages import AIMessage, SQLiteThreadStore, ToolCall
from messages.context import BufferedContext
from messages.integrations.llamabot import DecideNode, SimpleBot, ThreadStoreChatMemory
from messages.testing import StandInServer

QUESTIONS = ["What is (2 + 3) * 4?", "What is (10 + 5) * 3?"]
WINDOW = 8
_CALLS = itertools.count(1)


@tool  # type: ignore[untyped-decorator]  # llamabot ships no type information
def add(a: int, b: int) -> int:
    """Add two numbers.

    :param a: The first number.
    :param b: The second number.
    :return: Their sum.
    """
    return a + b


@tool  # type: ignore[untyped-decorator]
def multiply(a: int, b: int) -> int:
    """Multiply two numbers.

    :param a: The first number.
    :param b: The second number.
    :return: Their product.
    """
    return a * b


def offline_model(body: dict[str, Any]) -> AIMessage:
    """The stand-in's "model", reading the Chat Completions request: ``add``, then ``multiply``, then the
    answer, for the newest "(a + b) * c" question; a count of what it sees for anything else."""
    messages = body["messages"]
    asked = max(i for i, m in enumerate(messages) if m["role"] == "user")
    numbers = [int(n) for n in re.findall(r"\d+", str(messages[asked]["content"]))]
    results = [m["content"] for m in messages[asked + 1 :] if m["role"] == "tool"]
    call_id = f"call_{next(_CALLS)}"
    if len(numbers) != 3:
        tools = sum(m["role"] == "tool" for m in messages)
        return AIMessage(
            content=f"I see {len(messages)} messages: {tools} tool results, each after its call."
        )
    if not results:
        return AIMessage(
            tool_calls=[ToolCall(id=call_id, name="add", arguments={"a": numbers[0], "b": numbers[1]})]
        )
    if len(results) == 1:
        product = {"a": int(results[0]), "b": numbers[2]}
        return AIMessage(tool_calls=[ToolCall(id=call_id, name="multiply", arguments=product)])
    answer = {"response": f"It is {results[-1]}."}
    return AIMessage(tool_calls=[ToolCall(id=call_id, name="respond_to_user", arguments=answer)])


def agent(store: SQLiteThreadStore, model: str, **settings: Any) -> AgentBot:
    memory = ThreadStoreChatMemory(store, "maths", window=BufferedContext(WINDOW))
    return AgentBot(tools=[add, multiply], decide_node=DecideNode(memory, model_name=model, **settings))


def chat(path: Path, model: str, sent: list[int], **settings: Any) -> None:
    store = SQLiteThreadStore(path)
    bot = agent(store, model, **settings)
    for question in QUESTIONS:
        print(f"user: {question}")
        print(f"  agent: {bot(question)}")
        print(f"  [stored: {len(store.messages('maths'))} messages; sent: {sent[-1]} messages]")

    # A second process: a new store object, memory and agent over the same file and thread.
    again = SQLiteThreadStore(path)
    print(f"user: {QUESTIONS[0]}  (a new agent, same thread)")
    print(f"  agent: {agent(again, model, **settings)(QUESTIONS[0])}")
    for message in again.messages("maths")[-6:]:
        calls = ", ".join(f"{c.name}({c.arguments}) [{c.id}]" for c in getattr(message, "tool_calls", []))
        answers = f" [answers {message.tool_call_id}]" if message.role == "tool" else ""
        print(f"  {message.role:9} {calls or message.content}{answers}")

    # The package's SimpleBot (llamabot's, sending the whole conversation) reads the same thread.
    memory = ThreadStoreChatMemory(again, "maths", window=BufferedContext(WINDOW))
    bot = SimpleBot("Answer briefly.", model_name=model, memory=memory, stream_target="none", **settings)
    print("user: What did you see?")
    print(f"  bot: {bot('What did you see?').content}")
    store.close()
    again.close()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model", help="a litellm model: talk to its provider (its API key in the environment)"
    )
    parser.add_argument("--db", type=Path, help="the SQLite file (default: a new one in a temporary folder)")
    args = parser.parse_args()
    path = args.db or Path(tempfile.mkdtemp()) / "agent.db"
    sent: list[int] = [0]
    if args.model:
        chat(path, args.model, sent)
        return 0

    def model(body: dict[str, Any]) -> AIMessage:
        sent.append(len(body["messages"]))
        return offline_model(body)

    with StandInServer(model) as server:
        chat(path, "openai/gpt-4o-mini", sent, api_base=server.url, api_key="offline", num_retries=0)
        print(f"{len(server.bodies())} requests to the stand-in OpenAI, at most {max(sent)} messages each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
