"""Conversations to AutoGen LLMMessage lists and back (messages.convert.autogen), against the real
autogen-core: equal after the round trip or a ConversionError naming a message and a field it really has;
what AutoGen's own OpenAI client sends for our history agrees with our dump; named cases for what AutoGen
holds its own way (several results in one message, thought, images, source, is_error, empty call ids)."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings

from messages import (
    AIMessage,
    AudioPart,
    ConversionError,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
    validate_conversation,
)
from messages import strategies as ms
from messages.convert.autogen import from_autogen, to_autogen
from tests.unmapped import refused_by_guard

agm = pytest.importorskip("autogen_core.models")
from autogen_core import FunctionCall, Image  # noqa: E402
from autogen_core.models import (  # noqa: E402
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
)
from autogen_core.models import SystemMessage as AgSystem  # noqa: E402
from autogen_core.models import UserMessage as AgUser  # noqa: E402


@cache
def png_as_autogen_writes_it() -> str:
    """A small picture as a data URL in exactly the bytes AutoGen's Image writes back."""
    from PIL import Image as PILImage

    picture = PILImage.new("RGB", (3, 2), (200, 30, 90))
    return Image(picture).data_uri


@cache
def jpeg() -> str:
    from PIL import Image as PILImage

    out = io.BytesIO()
    PILImage.new("RGB", (3, 2), (200, 30, 90)).save(out, format="JPEG")
    return "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode()


def call_names(conversation: list[Message]) -> dict[str, str]:
    names: dict[str, str] = {}
    for m in conversation:
        if isinstance(m, AIMessage):
            names = {c.id: c.name for c in m.tool_calls}
    return names


def assert_justified(conversation: list[Message], error: ConversionError) -> None:
    """The error names a message that really holds what the error says AutoGen has no place for."""
    if refused_by_guard(conversation, error):
        return
    assert error.index is not None
    message = conversation[error.index]
    assert str(error).startswith(f"message {error.index}")
    if error.part == "role":
        assert message.role == "developer"
    elif error.part == "name":
        if isinstance(message, SystemMessage):
            assert message.name is not None
        elif isinstance(message, UserMessage):
            assert message.name == "user"
        elif isinstance(message, AIMessage):
            assert message.name == "assistant"
        else:
            assert isinstance(message, ToolMessage)
            # Its name is its call's (it would come back unset), or it has none and answers no call.
            called = call_names(conversation[: error.index]).get(message.tool_call_id)
            assert message.name == called or (message.name is None and called is None)
    elif error.part == "content":
        if isinstance(message, AIMessage):
            assert isinstance(message.content, list)
        else:
            assert isinstance(message, SystemMessage | ToolMessage)
            assert not isinstance(message.content, str)
    elif error.part == "reasoning_content":
        assert isinstance(message, AIMessage)
        assert message.reasoning_content is not None
        assert message.tool_calls or message.content is None
    elif error.part in ("refusal", "thinking_blocks", "provider_specific_fields", "provider"):
        assert getattr(message, str(error.part)) is not None
    elif error.part == "tool_calls":
        assert isinstance(message, AIMessage)
        assert any(c.provider_specific_fields is not None for c in message.tool_calls)
    else:
        assert isinstance(error.part, int), error
        assert isinstance(message, UserMessage)
        assert isinstance(message.content, list)
        part = message.content[error.part]
        if isinstance(part, ImagePart):
            # Anything but a data URL in exactly the bytes AutoGen's Image writes back.
            assert part.detail is not None or part.url != png_as_autogen_writes_it()
        else:
            assert not isinstance(part, TextPart)


@given(ms.conversations())
def test_every_conversation_round_trips_or_names_what_autogen_cannot_hold(conversation):
    try:
        history = to_autogen(conversation)
    except ConversionError as error:
        assert_justified(conversation, error)
        return
    assert from_autogen(history) == conversation


def holdable(conversation: list[Message]) -> list[Message]:
    """The conversation without what AutoGen has no place for: the same exchanges, in AutoGen's terms."""
    out: list[Message] = []
    names: dict[str, str] = {}
    for m in conversation:
        update: dict[str, Any] = {"cache_control": None}
        if isinstance(m, SystemMessage):
            text = m.content if isinstance(m.content, str) else "".join(p.text for p in m.content)
            update |= {"role": "system", "name": None, "content": text}
        elif isinstance(m, UserMessage):
            if m.name == "user":
                update["name"] = None
            if isinstance(m.content, list):
                parts: list[Any] = []
                for p in m.content:
                    if isinstance(p, TextPart):
                        parts.append(TextPart(text=p.text))
                    elif isinstance(p, ImagePart):
                        parts.append(ImagePart(url=png_as_autogen_writes_it()))
                update["content"] = parts
        elif isinstance(m, AIMessage):
            content = m.content
            if isinstance(content, list):
                content = "".join(p.text for p in content if isinstance(p, TextPart))
            names = {c.id: c.name for c in m.tool_calls}
            update |= {
                "content": content,
                "name": None if m.name == "assistant" else m.name,
                "tool_calls": [c.model_copy(update={"provider_specific_fields": None}) for c in m.tool_calls],
                "reasoning_content": None if m.tool_calls or content is None else m.reasoning_content,
                "refusal": None,
                "thinking_blocks": None,
                "provider_specific_fields": None,
                "provider": None,
                "annotations": None,
                "images": None,
                "audio": None,
            }
        else:
            assert isinstance(m, ToolMessage)
            text = (
                m.content if isinstance(m.content, str) else json.dumps([p.model_dump() for p in m.content])
            )
            update |= {"content": text, "name": None if m.name == names.get(m.tool_call_id) else m.name}
        out.append(m.model_copy(update=update))
    return out


def autogen_sends(history: list[Any]) -> list[dict[str, Any]]:
    """What AutoGen's own OpenAI client sends for ``history`` (its message transformers, offline)."""
    from autogen_ext.models.openai._openai_client import to_oai_type

    return [dict(p) for m in history for p in to_oai_type(m, model="gpt-4o", model_family="gpt-4o")]


@settings(max_examples=40)
@given(ms.conversations().map(holdable))
def test_what_autogen_holds_round_trips_and_its_openai_client_sends_what_we_dump(conversation):
    history = to_autogen(conversation)
    assert from_autogen(history) == conversation
    theirs = autogen_sends(history)
    ours = dump_messages(conversation, validate=False)
    assert [m["role"] for m in theirs] == [m["role"] for m in ours]
    for t, o in zip(theirs, ours, strict=True):
        assert [
            (c["id"], c["function"]["name"], c["function"]["arguments"]) for c in t.get("tool_calls") or []
        ] == [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in o.get("tool_calls", [])]
        if o["role"] == "tool":
            assert (t["tool_call_id"], t["content"]) == (o["tool_call_id"], o["content"])
        elif o["role"] == "assistant":
            # AutoGen sends a tool-call turn's thought as its content (None without one), as we dump ours.
            assert (t.get("content") or None) == (o["content"] or None)
        elif isinstance(o["content"], str):
            assert t["content"] == o["content"]
        else:
            assert [p.get("text") for p in t["content"]] == [p.get("text") for p in o["content"]]


def test_several_results_in_one_autogen_message_are_consecutive_tool_messages_and_back_one():
    history = [
        AgUser(content="Weather and time in Paris?", source="user"),
        AssistantMessage(
            content=[
                FunctionCall(id="call_w", arguments='{"city": "Paris"}', name="get_weather"),
                FunctionCall(id="call_t", arguments='{"city": "Paris"}', name="get_time"),
            ],
            source="assistant",
        ),
        FunctionExecutionResultMessage(
            content=[
                FunctionExecutionResult(
                    content="sunny", name="get_weather", call_id="call_w", is_error=False
                ),
                FunctionExecutionResult(content="noon", name="get_time", call_id="call_t"),
            ]
        ),
    ]
    ours = from_autogen(history)
    assert ours[2:] == [
        ToolMessage(tool_call_id="call_w", content="sunny", is_error=False),
        ToolMessage(tool_call_id="call_t", content="noon"),
    ]
    validate_conversation(ours)
    assert to_autogen(ours) == history


def test_thought_is_the_text_beside_calls_and_the_reasoning_of_a_text_reply():
    calling = AssistantMessage(
        content=[FunctionCall(id="c1", arguments="{}", name="f")], thought="Let me check.", source="assistant"
    )
    answering = AssistantMessage(content="42", thought="6 times 7", source="assistant")
    assert from_autogen([calling, answering]) == [
        AIMessage(content="Let me check.", tool_calls=[ToolCall(id="c1", name="f", arguments="{}")]),
        AIMessage(content="42", reasoning_content="6 times 7"),
    ]
    # A turn with neither text nor calls is AutoGen's empty list of calls.
    assert to_autogen([AIMessage(content=None)]) == [AssistantMessage(content=[], source="assistant")]


def test_source_is_the_name_and_the_default_source_stands_for_none():
    history = [AgUser(content="hi", source="user"), AgUser(content="and me", source="critic")]
    assert from_autogen(history) == [UserMessage(content="hi"), UserMessage(content="and me", name="critic")]
    assert to_autogen(from_autogen(history)) == history
    assert from_autogen(history, user_source="critic") == [
        UserMessage(content="hi", name="user"),
        UserMessage(content="and me"),
    ]
    with pytest.raises(ConversionError, match="the source that stands for no name") as caught:
        to_autogen([UserMessage(content="hi", name="user")])
    assert (caught.value.index, caught.value.part) == (0, "name")


def test_is_error_keeps_all_three_values():
    call = AIMessage(
        tool_calls=[ToolCall(id="c1", name="f"), ToolCall(id="c2", name="f"), ToolCall(id="c3", name="f")]
    )
    results = [
        ToolMessage(tool_call_id="c1", content="boom", is_error=True),
        ToolMessage(tool_call_id="c2", content="ok", is_error=False),
        ToolMessage(tool_call_id="c3", content="said nothing"),
    ]
    (_, converted) = to_autogen([call, *results])
    assert [r.is_error for r in converted.content] == [True, False, None]
    assert from_autogen(to_autogen([call, *results])) == [call, *results]


def test_empty_call_ids_get_ids_that_pair_each_result_with_its_call():
    # AutoGen: "this ID may be empty for some models"; results come back in call order.
    history = [
        AgUser(content="go", source="user"),
        AssistantMessage(
            content=[
                FunctionCall(id="", arguments="{}", name="a"),
                FunctionCall(id="", arguments="{}", name="b"),
            ],
            source="assistant",
        ),
        FunctionExecutionResultMessage(
            content=[
                FunctionExecutionResult(content="A", name="a", call_id=""),
                FunctionExecutionResult(content="B", name="b", call_id=""),
            ]
        ),
    ]
    ours = from_autogen(history)
    validate_conversation(ours)
    assert [c.id for c in ours[1].tool_calls] == ["autogen_call_0", "autogen_call_1"]
    assert [(m.tool_call_id, m.content) for m in ours[2:]] == [
        ("autogen_call_0", "A"),
        ("autogen_call_1", "B"),
    ]
    with pytest.raises(ConversionError, match="an empty call_id, and no call with an empty id") as caught:
        from_autogen([history[0], FunctionExecutionResultMessage(content=[history[2].content[0]])])
    assert (caught.value.index, caught.value.part) == (1, "call_id")


def test_an_empty_result_message_holds_nothing_and_reads_as_nothing():
    # AutoGen's own model-context tests put one first in a history.
    assert from_autogen(
        [FunctionExecutionResultMessage(content=[]), AgUser(content="Hello!", source="user")]
    ) == [UserMessage(content="Hello!")]


def test_an_image_round_trips_in_the_bytes_autogen_writes_and_any_other_is_refused_or_reencoded():
    png = png_as_autogen_writes_it()
    message = UserMessage(content=[TextPart(text="look"), ImagePart(url=png)])
    (converted,) = to_autogen([message])
    assert isinstance(converted.content[1], Image)
    assert from_autogen([converted]) == [message]
    photo = UserMessage(content=[ImagePart(url=jpeg())])
    with pytest.raises(ConversionError, match="would give back as different bytes") as caught:
        to_autogen([photo])
    assert (caught.value.index, caught.value.part) == (0, 0)
    (reencoded,) = to_autogen([photo], reencode_images=True)
    (read,) = from_autogen([reencoded])
    assert read.content[0].url.startswith("data:image/png;base64,")
    with pytest.raises(ConversionError, match="an image given by URL"):
        to_autogen([UserMessage(content=[ImagePart(url="https://example.com/cat.png")])])
    with pytest.raises(ConversionError, match="an image detail"):
        to_autogen([UserMessage(content=[ImagePart(url=png, detail="low")])])


def test_importing_the_converter_imports_neither_autogen_nor_pil():
    code = (
        "import sys, json, messages.convert.autogen; "
        "print(json.dumps(sorted(m for m in ('autogen_core', 'PIL') if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


@pytest.mark.parametrize(
    ("message", "part", "match"),
    [
        (SystemMessage(role="developer", content="x"), "role", "AutoGen has no developer role"),
        (SystemMessage(content="x", name="ops"), "name", "AutoGen's SystemMessage has no name"),
        (SystemMessage(content=[TextPart(text="x")]), "content", "system text as parts"),
        (UserMessage(content=[AudioPart(data="AAAA", format="wav")]), 0, "an? 'input_audio' part"),
        (AIMessage(content=[TextPart(text="a"), TextPart(text="b")]), "content", "assistant text as parts"),
        (
            AIMessage(content="x", reasoning_content="r", tool_calls=[ToolCall(id="c", name="f")]),
            "reasoning_content",
            "reasoning beside tool calls",
        ),
        (AIMessage(reasoning_content="r"), "reasoning_content", "reasoning with neither text nor tool calls"),
        (AIMessage(content=None, refusal="no"), "refusal", "no place for refusal"),
        (
            AIMessage(content="x", thinking_blocks=[{"type": "thinking", "thinking": "t", "signature": "s"}]),
            "thinking_blocks",
            "no place for thinking_blocks",
        ),
        (
            AIMessage(
                tool_calls=[ToolCall(id="c", name="f", provider_specific_fields={"thought_signature": "s"})]
            ),
            "tool_calls",
            "provider fields on call 'c'",
        ),
        (ToolMessage(tool_call_id="gone", content="x"), "name", "answers no call of this conversation"),
        (ToolMessage(tool_call_id="gone", content=[TextPart(text="x")]), "content", "a tool result of parts"),
    ],
)
def test_what_autogen_has_no_place_for_is_refused_naming_the_message_and_field(message, part, match):
    conversation = [UserMessage(content="hi"), message]
    with pytest.raises(ConversionError, match=match) as caught:
        to_autogen(conversation)
    assert (caught.value.index, caught.value.part) == (1, part)


def test_a_result_named_like_its_call_is_refused_as_it_would_come_back_unset():
    call = AIMessage(tool_calls=[ToolCall(id="c1", name="get_weather")])
    with pytest.raises(ConversionError, match="named 'get_weather' like the call it answers") as caught:
        to_autogen([call, ToolMessage(tool_call_id="c1", content="sunny", name="get_weather")])
    assert (caught.value.index, caught.value.part) == (1, "name")
    # Another name (the tool that really ran) is kept.
    kept = [call, ToolMessage(tool_call_id="c1", content="sunny", name="weather_v2")]
    assert from_autogen(to_autogen(kept)) == kept


def test_an_assistant_agents_saved_history_reads_as_a_valid_conversation():
    # The shape AssistantAgent.save_state() writes under "llm_context" after one tool round.
    state = {
        "messages": [
            {"content": "Weather in Paris?", "source": "user", "type": "UserMessage"},
            {
                "content": [{"id": "call_1", "arguments": '{"city":"Paris"}', "name": "get_weather"}],
                "thought": "Let me look.",
                "source": "weather",
                "type": "AssistantMessage",
            },
            {
                "content": [
                    {"content": "Sunny", "name": "get_weather", "call_id": "call_1", "is_error": False}
                ],
                "type": "FunctionExecutionResultMessage",
            },
            {"content": "It is sunny.", "thought": None, "source": "weather", "type": "AssistantMessage"},
        ]
    }
    from autogen_core.model_context import ChatCompletionContextState

    history = ChatCompletionContextState.model_validate(state).messages
    ours = from_autogen(history)
    validate_conversation(ours)
    assert ours[1] == AIMessage(
        content="Let me look.",
        name="weather",
        tool_calls=[ToolCall(id="call_1", name="get_weather", arguments='{"city":"Paris"}')],
    )
    assert [type(m) for m in to_autogen(ours)] == [
        AgUser,
        AssistantMessage,
        FunctionExecutionResultMessage,
        AssistantMessage,
    ]
    assert AgSystem(content="x") == to_autogen([SystemMessage(content="x")])[0]
