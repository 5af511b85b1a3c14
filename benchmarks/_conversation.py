"""The conversation every benchmark measures: text, parallel tool calls, tool results and some images."""

from __future__ import annotations

import base64

from messages import (
    AIMessage,
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
    conversation: list[Message] = [SystemMessage(content="You are a helpful assistant with weather tools.")]
    n = 0
    while len(conversation) < size:
        n += 1
        question = f"What is the weather in city {n} and in its twin town, and should I take an umbrella?"
        if n % 5 == 0:
            conversation.append(
                UserMessage(content=[TextPart(text=question), ImagePart(url=_PNG, detail="low")])
            )
        else:
            conversation.append(UserMessage(content=question))
        calls = [
            ToolCall(id=f"call_{n:08d}a", name="get_weather", arguments=f'{{"city": "City {n}"}}'),
            ToolCall(id=f"call_{n:08d}b", name="get_weather", arguments=f'{{"city": "Twin {n}"}}'),
        ]
        conversation.append(AIMessage(content=None, tool_calls=calls))
        conversation.append(ToolMessage(tool_call_id=calls[0].id, content='{"sky": "rain", "celsius": 12}'))
        conversation.append(ToolMessage(tool_call_id=calls[1].id, content='{"sky": "clear", "celsius": 19}'))
        conversation.append(
            AIMessage(content=f"Rain in city {n}, clear in its twin: take an umbrella for the first.")
        )
        conversation.append(UserMessage(content="Thanks!"))
    del conversation[size:]
    # Close a cut exchange so the conversation stays valid: drop a trailing turn whose results were cut.
    while isinstance(conversation[-1], ToolMessage) or (
        isinstance(conversation[-1], AIMessage) and conversation[-1].tool_calls
    ):
        conversation.pop()
    while len(conversation) < size:
        conversation.append(UserMessage(content="And tomorrow?"))
    return conversation
