"""The oracles themselves: they must reject what the provider's own types reject, or a pass means nothing."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from messages import AIMessage, ToolCall, ToolMessage, UserMessage
from tests.oracles import openai_accepts

CALL = ToolCall(id="call_1", name="f", arguments="{}")


@pytest.mark.parametrize(
    "message",
    [
        pytest.param({"role": "tool", "content": "x"}, id="tool result without tool_call_id"),
        pytest.param(
            {"role": "tool", "tool_call_id": "a", "content": "x", "name": "f"}, id="name on a tool result"
        ),
        pytest.param({"role": "user", "content": None}, id="null user content"),
        pytest.param({"role": "user", "content": [{"type": "txt", "text": "x"}]}, id="unknown part type"),
        pytest.param(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": ""}}],
            },
            id="tool call without id",
        ),
        pytest.param(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "a", "type": "function", "index": 0, "function": {"name": "f", "arguments": ""}}
                ],
            },
            id="tool call with litellm's index",
        ),
        pytest.param(AIMessage(content="x", reasoning_content="why").model_dump(), id="reasoning_content"),
        pytest.param(
            AIMessage(
                content="x",
                thinking_blocks=[{"type": "thinking", "thinking": "t", "signature": "s"}],
                provider="anthropic",
            ).model_dump(),
            id="thinking_blocks",
        ),
        pytest.param(
            ToolMessage(
                tool_call_id="a", content=[{"type": "image_url", "image_url": {"url": "https://x"}}]
            ).model_dump(),
            id="image in a tool result",
        ),
    ],
)
def test_openai_oracle_rejects(message):
    with pytest.raises((ValidationError, AssertionError)):
        openai_accepts([message])


def test_openai_oracle_accepts_the_plain_shapes():
    openai_accepts(
        [
            UserMessage(content="hi").model_dump(),
            AIMessage(tool_calls=[CALL]).model_dump(),
            ToolMessage.for_call(CALL, {"ok": True}).model_dump(),
        ]
    )
