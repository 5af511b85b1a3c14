"""Conversations to pydantic-ai histories and back (messages.convert), against the real pydantic-ai: equal
after the round trip or a ConversionError naming a message and a field it really has; what pydantic-ai's own
OpenAI model sends for our history agrees with our dump; named cases from pydantic-ai's docs; a fuzz test of
histories of any shape."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AIMessage,
    ConversionError,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
)
from messages import strategies as ms
from messages.convert import from_pydantic_ai, to_pydantic_ai
from tests.unmapped import refused_by_guard

pai = pytest.importorskip("pydantic_ai.messages")


def call_names(conversation: list[Message]) -> dict[str, str]:
    return {c.id: c.name for m in conversation if isinstance(m, AIMessage) for c in m.tool_calls}


def as_read_back(conversation: list[Message]) -> list[Message]:
    """A tool result's name equal to its call's name reads back unset (tool_name always says it)."""
    names = call_names(conversation)
    return [
        m.model_copy(update={"name": None})
        if isinstance(m, ToolMessage) and m.name is not None and names.get(m.tool_call_id) == m.name
        else m
        for m in conversation
    ]


def assert_justified(conversation: list[Message], error: ConversionError) -> None:
    if refused_by_guard(conversation, error):
        return
    assert error.index is not None
    message = conversation[error.index]
    assert str(error).startswith(f"message {error.index}")
    if error.part == "name":
        assert message.name is not None or isinstance(message, ToolMessage)
    elif error.part == "role":
        assert message.role == "developer"
    elif error.part == "refusal":
        assert isinstance(message, AIMessage)
        assert message.refusal is not None
    elif error.part == "content":
        assert isinstance(message.content, list)
        assert isinstance(message, SystemMessage) or len(message.content) < 2
    else:
        assert error.part == "thinking_blocks", error


@given(ms.conversations())
def test_every_conversation_round_trips_or_names_what_pydantic_ai_cannot_hold(conversation):
    try:
        history = to_pydantic_ai(conversation)
    except ConversionError as error:
        assert_justified(conversation, error)
        return
    assert from_pydantic_ai(history) == as_read_back(conversation)


def holdable(conversation: list[Message]) -> list[Message]:
    """The conversation without what pydantic-ai cannot hold (names, developer role, refusals, ...)."""
    out: list[Message] = []
    for m in conversation:
        update: dict[str, Any] = {"name": None} if not isinstance(m, ToolMessage) else {}
        if isinstance(m, SystemMessage):
            update |= {
                "role": "system",
                "content": m.content if isinstance(m.content, str) else "".join(p.text for p in m.content),
            }
        if isinstance(m, AIMessage):
            content = m.content
            if isinstance(content, list) and len(content) < 2:
                content = "".join(p.text for p in content)
            if content is None and not m.tool_calls:
                content = m.refusal
            update |= {"refusal": None, "content": content}
        out.append(m.model_copy(update=update))
    return out


@cache
def _openai_model() -> Any:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    return OpenAIChatModel("gpt-4o", provider=OpenAIProvider(api_key="offline"))


def _openai_messages(history: list[Any]) -> list[dict[str, Any]]:
    """What pydantic-ai's own OpenAI chat model sends for ``history`` (its message mapping, offline)."""
    from pydantic_ai.models import ModelRequestParameters

    mapped = asyncio.run(_openai_model()._map_messages(history, ModelRequestParameters()))
    return [dict(m) for m in mapped]


@settings(max_examples=40)
@given(ms.conversations(extensions=False).map(holdable))
def test_what_pydantic_ai_holds_round_trips_and_its_openai_model_sends_what_we_dump(conversation):
    history = to_pydantic_ai(conversation)
    assert from_pydantic_ai(history) == as_read_back(conversation)
    theirs = _openai_messages(history)
    ours = dump_messages(conversation, validate=False)
    calls = [
        (c["id"], c["function"]["name"], c["function"]["arguments"])
        for m in theirs
        for c in m.get("tool_calls") or []
    ]
    # pydantic-ai sends no arguments as "{}" where we keep the model's own "" (its choice, not a loss).
    assert calls == [
        (c["id"], c["function"]["name"], c["function"]["arguments"] or "{}")
        for m in ours
        for c in m.get("tool_calls", [])
    ]
    results = [(m["tool_call_id"], m["content"]) for m in theirs if m["role"] == "tool"]
    mine = [(m["tool_call_id"], m["content"]) for m in ours if m["role"] == "tool"]
    assert [r[0] for r in results] == [r[0] for r in mine]
    # Text results go out as they are; pydantic-ai sends a result of parts its own way.
    assert [t for t, o in zip(results, mine, strict=True) if isinstance(o[1], str)] == [
        o for o in mine if isinstance(o[1], str)
    ]
    said = [m["content"] for m in theirs if m["role"] in ("system", "user") and isinstance(m["content"], str)]
    assert said == [
        m["content"] for m in ours if m["role"] in ("system", "user") and isinstance(m["content"], str)
    ]


def test_pydantic_ai_docs_chat_history_reads_as_the_conversation():
    # pydantic-ai's "Messages and chat history" docs: result.all_messages() of a joke agent.
    history = [
        pai.ModelRequest(
            parts=[
                pai.SystemPromptPart(content="Be a helpful assistant."),
                pai.UserPromptPart(content="Tell me a joke."),
            ]
        ),
        pai.ModelResponse(
            parts=[
                pai.TextPart(content="Did you hear about the toothpaste scandal? They called it Colgate.")
            ],
            model_name="gpt-4o",
            timestamp=datetime(2032, 1, 1, tzinfo=UTC),
        ),
    ]
    assert from_pydantic_ai(history) == [
        SystemMessage(content="Be a helpful assistant."),
        UserMessage(content="Tell me a joke."),
        AIMessage(content="Did you hear about the toothpaste scandal? They called it Colgate."),
    ]


def test_pydantic_ai_docs_model_retry_becomes_a_tool_result_holding_the_retry_text():
    # pydantic-ai's tools docs: a tool raises ModelRetry, and the history holds a RetryPromptPart.
    history = [
        pai.ModelRequest(parts=[pai.UserPromptPart(content="Get me the details of John.")]),
        pai.ModelResponse(
            parts=[
                pai.ToolCallPart(tool_name="get_user_by_name", args={"name": "John"}, tool_call_id="pyd_ai_1")
            ]
        ),
        pai.ModelRequest(
            parts=[
                pai.RetryPromptPart(
                    content="No user found with name 'John', remember to provide their full name",
                    tool_name="get_user_by_name",
                    tool_call_id="pyd_ai_1",
                )
            ]
        ),
    ]
    read = from_pydantic_ai(history)
    assert read[1] == AIMessage(
        tool_calls=[ToolCall(id="pyd_ai_1", name="get_user_by_name", arguments='{"name":"John"}')]
    )
    result = read[2]
    assert isinstance(result, ToolMessage)
    assert result.tool_call_id == "pyd_ai_1"
    assert result.name is None  # the call's own name, found through the id
    if "is_error" in ToolMessage.model_fields:
        assert result.is_error is True  # type: ignore[attr-defined]
        assert result.content == "No user found with name 'John', remember to provide their full name"
    else:
        # Exactly the text pydantic-ai itself sends the model for this retry: nothing lost.
        assert result.content == history[2].parts[0].model_response()
        assert result.content.endswith("Fix the errors and try again.")


def test_a_retry_prompt_without_a_tool_is_the_user_message_pydantic_ai_sends():
    retry = pai.RetryPromptPart(content="Please answer in JSON.")
    (read,) = from_pydantic_ai([pai.ModelRequest(parts=[retry])])
    assert read == UserMessage(content=retry.model_response())


def test_thinking_parts_come_back_as_reasoning_and_signed_blocks():
    message = AIMessage(
        content="42",
        reasoning_content="Summing up.",
        thinking_blocks=[
            {"type": "thinking", "thinking": "6 x 7", "signature": "c2ln"},
            {"type": "redacted_thinking", "data": "ZW5j"},
        ],
        provider="anthropic",
    )
    (response,) = to_pydantic_ai([message])
    assert [type(p).__name__ for p in response.parts] == [
        "ThinkingPart",
        "ThinkingPart",
        "ThinkingPart",
        "TextPart",
    ]
    assert response.parts[1].signature == "c2ln"
    assert from_pydantic_ai([response]) == [message]


def test_images_keep_their_detail_where_pydantic_ais_openai_model_reads_it():
    png = "data:image/png;base64,iVBORw0KGgo="
    conversation: list[Message] = [
        UserMessage(content=[TextPart(text="Look:"), ImagePart(url=png, detail="high")])
    ]
    (request,) = to_pydantic_ai(conversation)
    (sent,) = _openai_messages([request])
    assert sent["content"][1] == {"type": "image_url", "image_url": {"url": png, "detail": "high"}}
    assert from_pydantic_ai([request]) == conversation


@pytest.mark.parametrize(
    ("part", "match"),
    [
        (
            pai.UserPromptPart(content=[pai.VideoUrl(url="https://example.com/v.mp4")]),
            "'video-url' content item",
        ),
        (
            pai.ToolReturnPart(tool_name="f", content="x", tool_call_id="c", outcome="denied"),
            "outcome is 'denied'",
        ),
    ],
)
def test_what_no_message_here_holds_is_refused_naming_the_request(part, match):
    if "is_error" in ToolMessage.model_fields and isinstance(part, pai.ToolReturnPart):
        pytest.skip("with ToolMessage.is_error, a denied tool return is an error result")
    with pytest.raises(ConversionError, match=match) as caught:
        from_pydantic_ai(
            [pai.ModelRequest(parts=[pai.UserPromptPart(content="hi")]), pai.ModelRequest(parts=[part])]
        )
    assert caught.value.index == 1
    assert str(caught.value).startswith("request 1")


_items = st.one_of(
    st.text(max_size=4),
    st.builds(lambda u: pai.ImageUrl(url=u), st.sampled_from(["https://x/a.png", "https://x/b.jpg"])),
    st.builds(
        lambda d, t: pai.BinaryContent(data=d, media_type=t),
        st.binary(max_size=8),
        st.sampled_from(["image/png", "audio/wav", "audio/ogg", "application/pdf", "text/plain"]),
    ),
    st.builds(lambda u: pai.VideoUrl(url=u), st.just("https://x/v.mp4")),
)
_request_parts = st.one_of(
    st.builds(pai.SystemPromptPart, content=st.text(max_size=4)),
    st.builds(pai.UserPromptPart, content=st.one_of(st.text(max_size=4), st.lists(_items, max_size=3))),
    st.builds(
        pai.ToolReturnPart,
        tool_name=st.text(max_size=3),
        content=st.one_of(st.text(max_size=3), st.integers(), st.lists(_items, max_size=2)),
        tool_call_id=st.text(max_size=3),
    ),
    st.builds(
        pai.RetryPromptPart,
        content=st.text(max_size=4),
        tool_name=st.none() | st.text(max_size=3),
        tool_call_id=st.text(max_size=3),
    ),
)
_response_parts = st.one_of(
    st.builds(pai.TextPart, content=st.text(max_size=4)),
    st.builds(pai.ThinkingPart, content=st.text(max_size=4), signature=st.none() | st.text(max_size=3)),
    st.builds(
        pai.ToolCallPart,
        tool_name=st.text(max_size=3),
        args=st.none() | st.text(max_size=4) | st.just({"a": 1}),
        tool_call_id=st.text(max_size=3),
    ),
)
_histories = st.lists(
    st.one_of(
        st.builds(lambda p: pai.ModelRequest(parts=p), st.lists(_request_parts, max_size=3)),
        st.builds(lambda p: pai.ModelResponse(parts=p), st.lists(_response_parts, max_size=3)),
    ),
    max_size=4,
)


@given(_histories)
def test_fuzz_any_history_reads_as_messages_or_raises_a_conversion_error(history):
    try:
        read = from_pydantic_ai(history)
    except ConversionError as error:
        assert_names_a_request_or_response(error, history)
        return
    assert all(isinstance(m, (SystemMessage, UserMessage, AIMessage, ToolMessage)) for m in read)


def assert_names_a_request_or_response(error: ConversionError, history: list[Any]) -> None:
    assert error.index is not None
    assert 0 <= error.index < len(history)
    assert str(error).split(" ", 2)[:2] in (
        ["request", f"{error.index},"],
        ["request", f"{error.index}:"],
        ["response", f"{error.index},"],
        ["response", f"{error.index}:"],
        ["message", f"{error.index}:"],
    )
