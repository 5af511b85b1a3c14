"""The SDK oracles (tests/oracles.py) say no when they should: extra keys, wrong shapes, and (Anthropic)
blocks that only validate as response models; and yes to the documented shape."""

from __future__ import annotations

import base64

import pytest
from pydantic import ValidationError

from tests import oracles
from tests.conformance.cases import PNG

ANTHROPIC = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "system": [{"type": "text", "text": "Be brief."}],
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "t", "signature": "c2ln"},
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "rain"}]},
    ],
}


def test_anthropic_accepts_the_documented_shape():
    assert oracles.anthropic_accepts(ANTHROPIC)["messages"][2]["content"][0]["tool_use_id"] == "toolu_1"


@pytest.mark.parametrize(
    "change",
    [
        lambda b: b["messages"][0].update(name="ann"),  # an extra message key
        lambda b: b["messages"][0]["content"][0].update(foo=1),  # valid only as a response TextBlock
        lambda b: b.update(foo=1),  # an extra request key
        lambda b: b["messages"][1]["content"][1].pop("id"),  # a tool_use without id
    ],
    ids=["message key", "block key", "request key", "missing id"],
)
def test_anthropic_refuses(change):
    body = {
        **ANTHROPIC,
        "messages": [dict(m, content=[dict(b) for b in m["content"]]) for m in ANTHROPIC["messages"]],
    }
    change(body)
    with pytest.raises((ValidationError, AssertionError)):
        oracles.anthropic_accepts(body)


GEMINI = {
    "contents": [
        {
            "role": "user",
            "parts": [{"text": "hi"}, {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}],
        },
        {
            "role": "model",
            "parts": [{"function_call": {"name": "f", "args": {}}, "thought_signature": "c2ln"}],
        },
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"content": "rain"}}}]},
    ],
    "system_instruction": {"parts": [{"text": "Be brief."}]},
}


def test_gemini_accepts_snake_and_camel_case():
    assert len(oracles.gemini_accepts(GEMINI)) == 4


def test_gemini_refuses_an_unknown_key():
    body = {**GEMINI, "contents": [{"role": "user", "parts": [{"text": "hi", "name": "ann"}]}]}
    with pytest.raises(ValidationError):
        oracles.gemini_accepts(body)


CONVERSE = {
    "messages": [
        {
            "role": "user",
            "content": [
                {"text": "hi"},
                {"image": {"format": "png", "source": {"bytes": base64.b64encode(PNG).decode()}}},
            ],
        },
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "rain"}]}}]},
    ],
    "system": [{"text": "Be brief."}],
    "inferenceConfig": {"maxTokens": 10},
}


def test_bedrock_accepts_the_converse_shape_with_base64_images():
    oracles.bedrock_converse_accepts(CONVERSE, "meta.llama3-1-70b-instruct-v1:0")


@pytest.mark.parametrize(
    "message",
    [
        {"role": "user", "content": [{"text": "hi", "name": "ann"}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": "rain"}}]},
        {"role": "user", "content": "hi"},
    ],
    ids=["extra key", "result content not a list", "content not a list"],
)
def test_bedrock_refuses(message):
    with pytest.raises(AssertionError, match=r"Invalid|Unknown"):
        oracles.bedrock_converse_accepts({"messages": [message]}, "meta.llama3-1-70b-instruct-v1:0")


def test_openai_refuses_keys_litellm_would_forward():
    with pytest.raises(ValidationError):
        oracles.openai_accepts([{"role": "assistant", "content": "x", "reasoning_content": "y"}])
