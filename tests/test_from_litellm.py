"""AIMessage.from_litellm reads replies field by field, from litellm objects, OpenAI SDK objects and dicts."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from messages import AIMessage, ReplyError, ToolCall
from tests.oracles import openai_accepts

pytestmark = pytest.mark.litellm

CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
}


def test_litellm_message_extras_never_reach_the_dump(litellm):
    # litellm's Message carries provider_specific_fields {"refusal": None}, function_call None and tool-call
    # `index`, which strict providers reject when sent back (litellm-notes.md TL;DR 7).
    from litellm.types.utils import Message

    raw = Message(content=None, tool_calls=[{**CALL, "index": 0}], provider_specific_fields={"refusal": None})
    message = AIMessage.from_litellm(raw)
    assert message.model_dump() == {"role": "assistant", "content": None, "tool_calls": [CALL]}
    openai_accepts([{"role": "user", "content": "hi"}, message.model_dump()])


def test_model_response_names_its_provider_when_payloads_are_provider_bound(litellm):
    response = litellm.ModelResponse(
        model="claude-sonnet-4-5",
        choices=[
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [CALL],
                    "reasoning_content": "Paris first.",
                    "thinking_blocks": [
                        {"type": "thinking", "thinking": "Paris first.", "signature": "c2ln"}
                    ],
                },
            }
        ],
    )
    response._hidden_params["custom_llm_provider"] = "anthropic"
    message = AIMessage.from_litellm(response)
    assert message.content is None  # "" beside tool calls (Anthropic streams rebuild to "")
    assert message.reasoning_content == "Paris first."
    assert message.thinking_blocks == [{"type": "thinking", "thinking": "Paris first.", "signature": "c2ln"}]
    assert message.provider == "anthropic"


def test_gemini_thought_signature_is_kept_on_its_call():
    reply = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {**CALL, "provider_specific_fields": {"thought_signature": "AbC="}},
            {
                "id": "call_2",
                "type": "function",
                "function": {
                    "name": "get_time",
                    "arguments": "{}",
                    "provider_specific_fields": {"thought_signature": "XyZ="},
                },
            },
        ],
    }
    message = AIMessage.from_litellm(reply, provider="gemini")
    assert [c.provider_specific_fields for c in message.tool_calls] == [
        {"thought_signature": "AbC="},
        {"thought_signature": "XyZ="},
    ]
    assert message.provider == "gemini"
    assert message.model_dump()["tool_calls"][0]["provider_specific_fields"] == {"thought_signature": "AbC="}


def test_plain_reply_sets_no_provider_even_when_known(litellm):
    response = litellm.ModelResponse(choices=[{"message": {"role": "assistant", "content": "hi"}}])
    response._hidden_params["custom_llm_provider"] = "openai"
    assert AIMessage.from_litellm(response) == AIMessage(content="hi")


def test_empty_text_without_tool_calls_is_kept():
    assert AIMessage.from_litellm({"role": "assistant", "content": ""}).content == ""


def test_arguments_as_object_and_none_are_normalized():
    reply = {
        "role": "assistant",
        "tool_calls": [
            {"id": "a", "function": {"name": "f", "arguments": {"x": 1}}},
            {"id": "b", "function": {"name": "g", "arguments": None}},
        ],
    }
    message = AIMessage.from_litellm(reply)
    assert [c.arguments for c in message.tool_calls] == ['{"x":1}', ""]


def test_refusal_is_read_from_the_message_or_its_provider_fields():
    assert AIMessage.from_litellm({"role": "assistant", "content": None, "refusal": "No."}).refusal == "No."
    nested = {"role": "assistant", "content": None, "provider_specific_fields": {"refusal": "No."}}
    message = AIMessage.from_litellm(nested)
    assert message.refusal == "No."
    assert message.provider_specific_fields is None


def test_openai_sdk_completion_object():
    from openai.types.chat import ChatCompletion

    completion = ChatCompletion.model_validate(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "logprobs": None,
                    "message": {"role": "assistant", "content": None, "tool_calls": [CALL], "refusal": None},
                }
            ],
        }
    )
    assert AIMessage.from_litellm(completion) == AIMessage(
        tool_calls=[ToolCall(id="call_1", name="get_weather", arguments='{"city":"Paris"}')]
    )


def test_response_dict_and_choice_dict():
    response = {
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "a"}},
            {"index": 1, "message": {"role": "assistant", "content": "b"}},
        ]
    }
    assert AIMessage.from_litellm(response).content == "a"
    assert AIMessage.from_litellm(response, choice=1).content == "b"
    assert AIMessage.from_litellm(response["choices"][1]).content == "b"


def test_unreadable_replies_say_why():
    with pytest.raises(ReplyError, match="has 0 choice"):
        AIMessage.from_litellm({"choices": []})
    with pytest.raises(ReplyError, match="choice 3 does not exist"):
        AIMessage.from_litellm({"choices": [{"message": {"role": "assistant", "content": "a"}}]}, choice=3)
    with pytest.raises(ReplyError, match="streaming chunk"):
        AIMessage.from_litellm({"choices": [{"index": 0, "delta": {"content": "a"}}]})
    with pytest.raises(ReplyError, match="from a int"):
        AIMessage.from_litellm(5)
    with pytest.raises(ValidationError, match="'assistant'"):
        AIMessage.from_litellm({"role": "user", "content": "not a reply"})
    with pytest.raises(ValidationError, match="name"):
        AIMessage.from_litellm(
            {"role": "assistant", "tool_calls": [{"id": "a", "function": {"arguments": ""}}]}
        )
