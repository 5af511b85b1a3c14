"""AIMessage.from_litellm reads replies field by field, from litellm objects, OpenAI SDK objects and dicts."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from messages import AIMessage, ReplyError, ToolCall
from messages import strategies as ms
from tests.oracles import openai_accepts
from tests.test_bad_input import mutate_once

pytestmark = pytest.mark.litellm

CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
}


def test_litellm_message_extras_never_reach_the_dump(litellm):
    # litellm's Message carries provider_specific_fields {"refusal": None}, function_call None and tool-call
    # `index`, which strict providers reject when sent back (docs/litellm.md, 'Tool-call replies as litellm
    # returns them').
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


@pytest.mark.parametrize(
    "empty",
    ["", [{"type": "text", "text": ""}], [{"type": "text", "text": ""}, {"type": "text", "text": ""}]],
)
def test_empty_text_beside_tool_calls_is_none_as_a_string_or_as_parts(empty):
    message = AIMessage.from_litellm({"role": "assistant", "content": empty, "tool_calls": [CALL]})
    assert message.content is None
    assert message.model_dump()["content"] is None


def test_empty_text_parts_without_tool_calls_are_kept():
    parts = [{"type": "text", "text": ""}]
    assert AIMessage.from_litellm({"role": "assistant", "content": parts}).model_dump()["content"] == parts


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("function_call", {"name": "get_weather", "arguments": "{}"}, "legacy 'function_call'"),
    ],
)
def test_fields_an_ai_message_cannot_hold_are_refused_by_name(key, value, says):
    # Read silently they would be lost: the function call's request, the spoken reply.
    with pytest.raises(ReplyError, match=says):
        AIMessage.from_litellm({"role": "assistant", "content": None, key: value})


def test_legacy_function_call_in_a_litellm_message_is_refused(litellm):
    from litellm.types.utils import Message

    raw = Message(content=None, function_call={"name": "get_weather", "arguments": '{"city":"Paris"}'})
    with pytest.raises(ReplyError, match="function_call"):
        AIMessage.from_litellm(raw)


def test_arguments_without_a_json_form_name_the_call():
    reply = {
        "role": "assistant",
        "tool_calls": [CALL, {"id": "call_2", "function": {"name": "f", "arguments": {"x": float("nan")}}}],
    }
    with pytest.raises(ReplyError, match=r"tool call 1 of the reply \('call_2'\).*NaN"):
        AIMessage.from_litellm(reply)
    reply["tool_calls"][1]["function"]["arguments"] = {"when": object()}
    with pytest.raises(ReplyError, match=r"'call_2'.*JSON-serializable"):
        AIMessage.from_litellm(reply)


@pytest.mark.parametrize("choice", ["x", -1, 1.0, True, None])
def test_a_choice_that_is_not_an_index_is_named(choice):
    with pytest.raises(ReplyError, match=r"choice must be the index of a choice"):
        AIMessage.from_litellm(
            {"choices": [{"message": {"role": "assistant", "content": "a"}}]}, choice=choice
        )


@pytest.mark.parametrize(
    "reply",
    [
        {},
        {"role": "assistant"},
        {"role": "assistant", "content": None, "tool_calls": [], "refusal": None},
        {"choices": [{"index": 0, "message": None, "finish_reason": "length"}]},
    ],
    ids=["empty dict", "role only", "all null", "message null"],
)
def test_an_empty_reply_is_refused(reply):
    with pytest.raises(ReplyError, match="the reply is empty"):
        AIMessage.from_litellm(reply)


def test_an_empty_reply_names_its_finish_reason(litellm):
    response = litellm.ModelResponse(
        choices=[{"message": {"role": "assistant", "content": None}, "finish_reason": "content_filter"}]
    )
    with pytest.raises(ReplyError, match=r"empty \(finish_reason 'content_filter'\)"):
        AIMessage.from_litellm(response)


def test_a_reply_of_only_reasoning_or_only_a_refusal_is_not_empty():
    assert (
        AIMessage.from_litellm({"role": "assistant", "reasoning_content": "Hm."}).reasoning_content == "Hm."
    )
    assert AIMessage.from_litellm({"role": "assistant", "refusal": "No."}).refusal == "No."


@given(st.data())
def test_mutated_replies_raise_only_reply_or_validation_errors(data):
    reply = data.draw(ms.ai_messages()).model_dump()
    root = [{"choices": [{"index": 0, "message": reply, "finish_reason": "stop"}]}]
    for _ in range(data.draw(st.integers(1, 3))):
        data.draw(mutate_once(root))
    for obj in (root[0] if root else {}, reply):
        with contextlib.suppress(ReplyError, ValidationError):
            AIMessage.from_litellm(obj)


def test_a_field_of_a_pydantic_reply_reads_as_getattr_reads_it(litellm):
    # from_litellm reads a pydantic object's fields and extras without getattr (whose misses raise and
    # catch AttributeError in pydantic): the same values, set or extra, properties included, None for the
    # rest, on litellm's own types.
    from messages._from_litellm import field

    message = litellm.types.utils.Message(
        content="hi", role="assistant", reasoning_content="thought", custom_extra={"x": 1}
    )
    names = ["content", "role", "tool_calls", "reasoning_content", "custom_extra", "model_extra", "absent"]
    for name in names:
        assert field(message, name) == getattr(message, name, None), name
    response = litellm.ModelResponse(choices=[{"message": {"role": "assistant", "content": "x"}}])
    for name in ("choices", "model", "usage", "object", "delta", "nothing_here"):
        assert field(response, name) == getattr(response, name, None), name
