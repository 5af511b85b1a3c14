"""The conversation every benchmark measures: text, parallel tool calls, tool results and some images."""

from __future__ import annotations

import base64
from typing import Any

from messages import (
    AIMessage,
    AudioPart,
    FilePart,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
)

_PNG = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4).decode()


def build_conversation(size: int) -> list[Message]:
    """A protocol-valid conversation of exactly ``size`` messages (``size`` >= 1).

    It repeats a six-message exchange: a user question (every fifth one with an image), an assistant turn
    with two parallel tool calls, their two results, an assistant answer, and a short user follow-up.
    """
    conversation: list[Message] = [SYSTEM]
    n = 0
    while len(conversation) < size:
        n += 1
        conversation += exchange(n)
    return _cut(conversation, size)


SYSTEM = SystemMessage(content="You are a helpful assistant with weather tools.")
"""The first message of ``build_conversation``."""


def exchange(n: int) -> list[Message]:
    """The ``n``-th six-message exchange of ``build_conversation`` (``n`` >= 1)."""
    question = f"What is the weather in city {n} and in its twin town, and should I take an umbrella?"
    if n % 5 == 0:
        asked: Message = UserMessage(content=[TextPart(text=question), ImagePart(url=_PNG, detail="low")])
    else:
        asked = UserMessage(content=question)
    calls = [
        ToolCall(id=f"call_{n:08d}a", name="get_weather", arguments=f'{{"city": "City {n}"}}'),
        ToolCall(id=f"call_{n:08d}b", name="get_weather", arguments=f'{{"city": "Twin {n}"}}'),
    ]
    return [
        asked,
        AIMessage(content=None, tool_calls=calls),
        ToolMessage(tool_call_id=calls[0].id, content='{"sky": "rain", "celsius": 12}'),
        ToolMessage(tool_call_id=calls[1].id, content='{"sky": "clear", "celsius": 19}'),
        AIMessage(content=f"Rain in city {n}, clear in its twin: take an umbrella for the first."),
        UserMessage(content="Thanks!"),
    ]


def append_exchanges(store: Any, thread_id: str, size: int, *, whole: bool = False) -> int:
    """Fill an empty thread of ``store`` (a sync store) with ``SYSTEM`` and then exchanges, appended 6,000
    messages at a time, up to ``size`` messages (the last exchange cut short), or, with ``whole``, up to
    the first whole exchange that reaches ``size``; returns the thread's length."""
    store.append(thread_id, SYSTEM)
    length, n = 1, 0
    while length < size:
        chunk: list[Message] = []
        while len(chunk) < min(6_000, size - length):
            n += 1
            chunk += exchange(n)
        if not whole:
            del chunk[size - length :]
        store.append(thread_id, chunk)
        length += len(chunk)
    return length


def _cut(conversation: list[Message], size: int) -> list[Message]:
    """``conversation`` cut to exactly ``size`` messages and still valid: a trailing turn whose results
    were cut is dropped, and short user turns fill the rest."""
    del conversation[size:]
    while isinstance(conversation[-1], ToolMessage) or (
        isinstance(conversation[-1], AIMessage) and conversation[-1].tool_calls
    ):
        conversation.pop()
    while len(conversation) < size:
        conversation.append(UserMessage(content="And tomorrow?"))
    return conversation


def build_tool_heavy(size: int) -> list[Message]:
    """A protocol-valid, tool-heavy conversation of exactly ``size`` messages: every user turn is followed
    by two parallel calls, each answered, then a short answer (the shape agents send most)."""
    conversation: list[Message] = [SystemMessage(content="You are an agent with weather tools.")]
    n = 0
    while len(conversation) < size:
        n += 1
        conversation.append(UserMessage(content=f"Weather in city {n} and its twin?"))
        calls = [
            ToolCall(id=f"call_{n:08d}a", name="get_weather", arguments=f'{{"city": "City {n}"}}'),
            ToolCall(id=f"call_{n:08d}b", name="get_weather", arguments=f'{{"city": "Twin {n}"}}'),
        ]
        conversation.append(AIMessage(content=None, tool_calls=calls))
        conversation.append(ToolMessage(tool_call_id=calls[0].id, content='{"sky": "rain", "celsius": 12}'))
        conversation.append(ToolMessage(tool_call_id=calls[1].id, content='{"sky": "clear", "celsius": 19}'))
        conversation.append(AIMessage(content=f"Rain in city {n}, clear in its twin."))
    return _cut(conversation, size)


def _odd_block(n: int) -> list[Message]:
    """Six turns holding most of what provider rules fix: a late system message, names with spaces,
    same-role neighbours, blank text parts, images, blank and empty texts, long and odd tool-call ids,
    empty and repeated arguments, provider fields, reasoning and signed thinking, a refusal, empty and
    image tool results."""
    image = ImagePart(url=_PNG, detail="low")
    long_id = f"call_{n:08d}_" + "x" * 40
    calls = [
        ToolCall(id=long_id, name="get_weather", arguments=""),
        ToolCall(id=f"call.{n}|sig", name="get_weather", arguments='{"city": "Paris"}'),
        ToolCall(
            id=f"c{n}",
            name="get_weather",
            arguments='{"city": "Paris"}',
            provider_specific_fields={"thought_signature": "c2ln"},
        ),
    ]
    second = ToolCall(id=f"call_{n:08d}d", name="get_time", arguments='{"city": ')
    return [
        SystemMessage(content=f"Reminder {n}: answer briefly."),
        SystemMessage(role="developer", content=[TextPart(text="Use metric units.")]),
        UserMessage(content=f"Question {n}", name="Alice Smith"),
        UserMessage(
            content=[
                TextPart(text="  "),
                TextPart(text=""),
                image,
                ImagePart(url="https://example.com/chart.png"),
                AudioPart(data="UklGRg==", format="wav"),
                FilePart(file_data="data:application/pdf;base64,JVBERi0=", filename="a.pdf"),
                TextPart(text="and these?"),
            ]
        ),
        AIMessage(
            content="",
            tool_calls=calls,
            reasoning_content="I should look the weather up.",
            thinking_blocks=[{"type": "thinking", "thinking": "Look it up.", "signature": "c2lnbmF0dXJl"}],
            provider="anthropic",
        ),
        ToolMessage(tool_call_id=calls[0].id, content=""),
        ToolMessage(tool_call_id=calls[1].id, content=[TextPart(text="a chart:"), image]),
        ToolMessage(tool_call_id=calls[2].id, content='{"sky": "rain"}'),
        AIMessage(content="   ", refusal="I cannot say more."),
        AIMessage(content=f"Rain in Paris ({n}).", name="weather bot"),
        AIMessage(content="Let me check the time too.", tool_calls=[second]),
        ToolMessage(tool_call_id=second.id, content="12:00", name="get_time"),
        UserMessage(content="Thanks."),
        AIMessage(
            content=None,
            reasoning_content="Nothing to add.",
            thinking_blocks=[{"type": "thinking", "thinking": "Done.", "signature": "c2lnbmF0dXJl"}],
            provider="anthropic",
        ),
    ]


def build_rule_heavy(size: int) -> list[Message]:
    """A protocol-valid conversation of about ``size`` messages in which most provider rules fire on
    every block (``_odd_block``), ending on an assistant turn (a prefill)."""
    conversation: list[Message] = [
        SystemMessage(content="You are a helpful assistant with weather tools."),
        AIMessage(content="Hello! Ask me about the weather."),
    ]
    n = 0
    while len(conversation) < size:
        n += 1
        conversation += _odd_block(n)
    return conversation
