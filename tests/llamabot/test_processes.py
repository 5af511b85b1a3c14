"""A conversation begun by a bot or an agent in one process and gone on with in another, on SQLite and on
PostgreSQL in both flavours (each once): the second process sends the first one's tool calls and
results, paired by id, to a stand-in OpenAI that checks the protocol; an agent whose tool raised in the
first process has that call answered as not run in the second."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.llamabot._checking import checking_server
from tests.llamabot._models import ADD, answers, arithmetic, calls, steps
from tests.llamabot._shared import LLAMABOT_WARNINGS, MISSING

pytest.importorskip("llamabot", reason=MISSING)
import llamabot.components.messages as lm

from messages import validate_conversation
from messages.context import BufferedContext
from messages.integrations.llamabot import SimpleBot, ThreadStoreChatMemory
from messages.protocol import MISSING_RESULT
from tests._zygote import Zygote
from tests.llamabot._child import close, open_store

pytestmark = [pytest.mark.litellm, pytest.mark.slow, *LLAMABOT_WARNINGS]

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).resolve().parent / "_child.py"
MODEL = "openai/gpt-4o-mini"


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    """A process that has imported litellm, llamabot and the package, to fork the second processes from
    (tests/_zygote.py): each is a process of its own, without the seconds of imports."""
    started = Zygote.start(
        preload=[
            "litellm",
            "psycopg",
            "messages.integrations.llamabot",
            "tests.llamabot._models",
            "tests.llamabot._tools",
        ]
    )
    yield started
    started.close()


def another_process(zygote: Zygote, order: dict, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run tests/llamabot/_child.py with ``order`` in a process of its own."""
    order = {"model": MODEL, "log": str(tmp_path / ".llamabot" / "child-log.db"), **order}
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    # A hang guard under pytest-timeout's 600 s (tests/test_examples.py's start_example says why 540).
    return zygote.run(CHILD, [json.dumps(order)], env=env, cwd=ROOT, timeout=540)


def in_another_process(zygote: Zygote, order: dict, tmp_path: Path) -> list:
    """What tests/llamabot/_child.py printed, run with ``order`` in a process of its own."""
    result = another_process(zygote, order, tmp_path)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


# Each durable backend in each flavour, once across the two tests (a second process costs seconds).
@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres-async", marks=pytest.mark.postgres)])
def test_a_simplebot_tool_call_begun_in_one_process_is_answered_in_another(
    backend, make_spec, zygote, tmp_path, litellm
):
    durable = make_spec(backend)
    with checking_server(arithmetic) as server:
        got = in_another_process(
            zygote,
            {
                "bot": "simple",
                "store": durable,
                "thread": "resumed",
                "url": server.url,
                "say": ["What is 2 + 3?"],
            },
            tmp_path,
        )
        assert got == [["", ["add"]]]
        store = open_store(durable)
        try:
            memory = ThreadStoreChatMemory(store, "resumed", window=BufferedContext(50))
            bot = SimpleBot("Add.", model_name=MODEL, memory=memory, tools=[ADD], stream_target="none",
                            api_base=server.url, api_key="sk-test", num_retries=0)  # fmt: skip
            # llamabot's ToolMessage has no id: it answers the call the first process stored.
            assert bot(lm.ToolMessage(content="5")).content == "The answer is 5."
            sent = server.last_body()["messages"]
        finally:
            close(store)
    call_id = sent[2]["tool_calls"][0]["id"]
    assert sent[3] == {"role": "tool", "tool_call_id": call_id, "content": "5"}


@pytest.mark.parametrize("backend", ["sqlite-async", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_an_agent_goes_on_in_another_process_and_closes_a_call_its_tool_never_answered(
    backend, make_spec, zygote, tmp_path, litellm
):
    durable = make_spec(backend)
    plan = steps(calls("add", a=2, b=3), answers("It is {}."))
    explode = steps(calls("explode", reason="the first process dies here"))

    def model(body: dict) -> object:
        asked = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
        return (explode if asked == "Explode?" else plan)(body)

    with checking_server(model) as server:
        order = {"bot": "agent", "store": durable, "thread": "agent", "url": server.url}
        assert in_another_process(zygote, {**order, "say": ["What is 2 + 3?"]}, tmp_path) == ["It is 5."]
        child = another_process(zygote, {**order, "say": ["Explode?"]}, tmp_path)
        assert child.returncode == 1
        assert "the first process dies here" in child.stderr
        assert in_another_process(zygote, {**order, "say": ["And now, 2 + 3?"]}, tmp_path) == ["It is 5."]
        sent = server.last_body()["messages"]
    store = open_store(durable)
    try:
        thread = ThreadStoreChatMemory(store, "agent", window=BufferedContext(100)).read()
    finally:
        close(store)
    validate_conversation(thread)
    roles = [m.role for m in thread]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "user", "assistant", "tool", "user",
                     "assistant", "tool", "assistant", "tool"]  # fmt: skip
    assert thread[7].content == MISSING_RESULT
    assert [m["role"] for m in sent[1:]][:9] == ["user", "assistant", "tool", "assistant", "tool", "user",
                                                  "assistant", "tool", "user"]  # fmt: skip
