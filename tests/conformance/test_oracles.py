"""The SDK oracles (tests/oracles.py) say no when they should: extra keys, wrong shapes, and (Anthropic)
blocks that only validate as response models; and yes to the documented shape."""

from __future__ import annotations

import base64
import json
import re

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
    with pytest.raises((ValidationError, AssertionError)):
        oracles.openai_accepts([{"role": "assistant", "content": "x", "reasoning_content": "y"}])


# --- issue 24: every oracle refuses a broken body, naming the spot -----------------------------------------

BROKEN = ["unknown key", "wrong type", "missing field"]


def _copy(body):
    return json.loads(json.dumps(body))


def _anthropic_broken(kind):
    body = _copy(ANTHROPIC)
    if kind == "unknown key":
        body["messages"][2]["content"][0]["foo"] = 1
    elif kind == "wrong type":
        body["messages"][0]["content"][0]["text"] = 7
    else:
        del body["messages"][2]["content"][0]["tool_use_id"]
    return body


@pytest.mark.parametrize("kind", BROKEN)
def test_anthropic_refuses_a_broken_body_naming_the_spot(kind):
    with pytest.raises((ValidationError, AssertionError)) as refused:
        oracles.anthropic_accepts(_anthropic_broken(kind))
    spot = {
        "unknown key": "messages[2].content[0].foo",
        "wrong type": "messages[0].content[0].text",
        "missing field": "messages[2].content[0].tool_use_id",
    }[kind]
    assert spot in str(refused.value)


def test_anthropic_types_with_their_own_config_are_read_strictly_too():
    # The TypedDicts of anthropic.types that carry a pydantic config of their own: the oracle's
    # extra="forbid" does not reach them, so an unknown key inside them would pass unseen; ignored_keys
    # reports it. Those that allow extra keys (a tool's input schema) keep them, and are left so.
    own = oracles.anthropic_ignoring_types()
    assert "anthropic.types.base64_image_source_param.Base64ImageSourceParam" in own
    assert "anthropic.types.base64_pdf_source_param.Base64PDFSourceParam" in own
    ignoring = [name for name, config in own.items() if config.get("extra") != "allow"]
    assert len(ignoring) >= 2, own
    body = _copy(ANTHROPIC)
    body["messages"][0]["content"].append(
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo=", "foo": 1},
        }
    )
    from anthropic.types.message_create_params import MessageCreateParams
    from pydantic import ConfigDict, TypeAdapter

    # What the SDK's own types say with extra keys forbidden: yes, the key silently gone. (The adapter must
    # outlive the lazy iterators it returns: pydantic-core panics on one whose adapter was collected.)
    adapter = TypeAdapter(list[MessageCreateParams], config=ConfigDict(extra="forbid"))
    kept = oracles.materialize(adapter.validate_python([body])[0])
    assert "foo" not in kept["messages"][0]["content"][1]["source"]
    with pytest.raises(AssertionError, match=r"messages\[0\]\.content\[1\]\.source\.foo"):
        oracles.anthropic_accepts(body)


@pytest.mark.parametrize("kind", BROKEN)
@pytest.mark.parametrize("backend", ["gemini", "vertex_ai"])
def test_gemini_refuses_a_broken_body_naming_the_spot(kind, backend):
    body = _copy(GEMINI)
    if kind == "unknown key":
        body["contents"][1]["parts"][0]["function_call"]["foo"] = 1
        spot = "function_call.foo"
    elif kind == "wrong type":
        body["contents"][0]["parts"][0]["text"] = ["a list"]
        spot = "parts.0.text"
    else:
        del body["contents"][0]["parts"][1]["inline_data"]["mime_type"]
        body["contents"][0]["parts"][1]["inline_data"] = "not an object"
        spot = "inline_data"
    with pytest.raises(ValidationError, match=spot.replace(".", r"\.")):
        oracles.gemini_accepts(body, backend)


@pytest.mark.parametrize(
    ("backend", "field", "part"),
    [
        # Each backend's request builder refuses what the other backend supports (google-genai's own words).
        ("gemini", "partial_args", {"function_call": {"name": "f", "args": {}, "partial_args": []}}),
        ("vertex_ai", "tool_call", {"tool_call": {"id": "x", "tool_type": "GOOGLE_SEARCH_WEB", "args": {}}}),
    ],
)
def test_gemini_request_builders_refuse_what_one_backend_does_not_support(backend, field, part):
    body = {"contents": [{"role": "model", "parts": [part]}]}
    with pytest.raises(AssertionError, match=rf"contents\[0\]: {field} parameter is only supported in"):
        oracles.gemini_accepts(body, backend)
    other = "vertex_ai" if backend == "gemini" else "gemini"
    oracles.gemini_accepts(body, other)  # the same body passes the other backend's builder


@pytest.mark.parametrize("kind", BROKEN)
def test_bedrock_refuses_a_broken_body_naming_the_spot(kind):
    body = _copy(CONVERSE)
    if kind == "unknown key":
        body["messages"][1]["content"][0]["toolUse"]["foo"] = 1
        spot = "messages[1].content[0].toolUse"
    elif kind == "wrong type":
        body["messages"][0]["content"][0]["text"] = 5
        spot = "messages[0].content[0].text"
    else:
        del body["messages"][2]["content"][0]["toolResult"]["toolUseId"]
        spot = "messages[2].content[0].toolResult"
    with pytest.raises(AssertionError) as refused:
        oracles.bedrock_converse_accepts(body, "meta.llama3-1-70b-instruct-v1:0")
    assert spot in str(refused.value)


@pytest.mark.parametrize(
    ("change", "spot"),
    [
        # ParamValidator checks min only: these are the model's max, pattern and enum, checked here.
        (
            lambda b: b["messages"][1]["content"][0]["toolUse"].update(toolUseId="x" * 65),
            "toolUseId: length 65",
        ),
        (
            lambda b: b["messages"][1]["content"][0]["toolUse"].update(name="get weather"),
            "name: 'get weather'",
        ),
        (lambda b: b["messages"][0]["content"][1]["image"].update(format="bmp"), "image.format: 'bmp'"),
        (lambda b: b["messages"][0].update(role="robot"), "messages[0].role: 'robot'"),
        (lambda b: b["messages"][0]["content"][1]["image"]["source"].update(bytes=""), "bytes"),
    ],
    ids=["id too long", "name pattern", "image format enum", "role enum", "empty bytes"],
)
def test_bedrock_constraints_botocore_leaves_out_are_checked(change, spot):
    body = _copy(CONVERSE)
    change(body)
    with pytest.raises(AssertionError, match=re.escape(spot)):
        oracles.bedrock_converse_accepts(body, "meta.llama3-1-70b-instruct-v1:0")


def test_botocore_alone_lets_those_constraints_pass():
    # The reason for converse_constraints: ParamValidator says nothing about a 65-character id.
    from botocore.validate import ParamValidator

    body = _copy(CONVERSE)
    body["messages"][1]["content"][0]["toolUse"]["toolUseId"] = "x" * 65
    params = {"modelId": "meta.llama3-1-70b-instruct-v1:0", **oracles._decode_blobs(body)}
    assert not ParamValidator().validate(params, oracles._converse_shape()).has_errors()


COHERE = {
    "model": "command-r-plus",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            ],
        },
        {
            "role": "assistant",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "rain"},
    ],
    "tools": [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    ],
}


def test_cohere_accepts_the_v2_shape():
    oracles.cohere_accepts(COHERE)


@pytest.mark.parametrize(
    ("change", "spot"),
    [
        (lambda b: b["messages"][3].update(name="f"), "messages[3].name"),  # an unknown key, kept by Fern
        (lambda b: b["messages"][1]["content"][0].update(foo=1), "messages[1].content[0].foo"),
        (lambda b: b["messages"][3].update(content=7), "messages[3]."),  # a wrong type
        (lambda b: b["messages"][3].pop("tool_call_id"), "messages[3].tool_call_id"),  # a missing field
        (
            lambda b: b["messages"][1]["content"].append(
                {"type": "input_audio", "input_audio": {"data": "AA=="}}
            ),
            "messages[1].",
        ),
        (lambda b: b.update(n=2), "n: not a parameter"),
    ],
    ids=["message key", "part key", "wrong type", "missing field", "audio part", "request key"],
)
def test_cohere_refuses_a_broken_body_naming_the_spot(change, spot):
    body = _copy(COHERE)
    change(body)
    with pytest.raises(AssertionError, match=re.escape(spot)):
        oracles.cohere_accepts(body)


def test_cohere_types_alone_let_unknown_keys_pass():
    # The reason for reading them strictly: Cohere's Fern models keep an unknown key without a word.
    from cohere import types

    message = types.ToolChatMessageV2.model_validate(
        {"role": "tool", "tool_call_id": "c1", "content": "x", "name": "f"}
    )
    assert message.model_extra == {"name": "f"}


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"role": "user", "content": "hi", "foo": 1}, r"messages\[0\]\.foo: Extra inputs are not permitted"),
        ({"role": "user", "content": 5}, "Unknown content type"),  # a wrong type
        ({"role": "tool", "content": "rain"}, "tool_call_id"),  # a missing field
    ],
    ids=BROKEN,
)
def test_mistral_common_refuses_a_broken_body(message, error):
    with pytest.raises(Exception, match=error):
        oracles.mistral_common_accepts({"model": "mistral-large-latest", "messages": [message]})
