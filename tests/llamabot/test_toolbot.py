"""llamabot's own ToolBot with ThreadStoreChatMemory as its chat memory, against the stand-in OpenAI
that checks the tool-call protocol: the calls ToolBot chose are kept as the calls they are, where
llamabot's ChatMemory keeps their list's repr as the assistant's text and sends it back."""

from __future__ import annotations

import pytest

from tests.llamabot._checking import checking_server
from tests.llamabot._models import arithmetic
from tests.llamabot._shared import LLAMABOT_WARNINGS, MISSING

pytest.importorskip("llamabot", reason=MISSING)
from llamabot import ChatMemory, ToolBot

from messages import AIMessage, ToolCall, UserMessage
from messages.integrations.llamabot import ThreadStoreChatMemory
from tests.llamabot._tools import add

pytestmark = [pytest.mark.litellm, *LLAMABOT_WARNINGS]

MODEL = "openai/gpt-4o-mini"


def toolbot(server, memory) -> ToolBot:
    return ToolBot(
        "Pick a tool.", MODEL, tools=[add], chat_memory=memory, stream_target="none",
        api_base=server.url, api_key="sk-test", num_retries=0,
    )  # fmt: skip


def test_toolbot_as_shipped_keeps_the_repr_of_its_calls_as_the_assistants_text(litellm):
    with checking_server(arithmetic) as server:
        memory = ChatMemory()
        bot = toolbot(server, memory)
        (call,) = bot("What is 2 + 3?")
        bot("What is 4 + 4?")
        sent = server.last_body()["messages"]
    kept = memory.retrieve("x")[1]
    assert kept.tool_calls == []
    assert kept.content == str([call])
    assert sent[2] == {"role": "assistant", "content": str([call])}


def test_toolbot_with_a_thread_store_memory_keeps_its_calls_as_calls(store, litellm):
    with checking_server(arithmetic) as server:
        memory = ThreadStoreChatMemory(store, "tools")
        bot = toolbot(server, memory)
        (first,) = bot("What is 2 + 3?")
        (second,) = bot("What is 4 + 4?")
        sent = server.last_body()["messages"]
    assert memory.read() == [
        UserMessage(content="What is 2 + 3?"),
        AIMessage(tool_calls=[ToolCall(id=first.id, name="add", arguments='{"a":2,"b":3}')]),
        UserMessage(content="What is 4 + 4?"),
        AIMessage(tool_calls=[ToolCall(id=second.id, name="add", arguments='{"a":4,"b":4}')]),
    ]
    given_back = memory.retrieve("x")[1]
    assert [(c.id, c.function.name) for c in given_back.tool_calls] == [(first.id, "add")]
    # What ToolBot itself sends of that turn is llamabot's to choose (role and content): no repr text.
    assert sent[2] == {"role": "assistant", "content": ""}
