"""Conversations to Agent Framework Message lists and back (messages.convert.agent_framework), against the
real agent-framework-core: equal after the round trip or a ConversionError naming a message and a field it
really has; what Agent Framework keeps beside the message (ids, properties, its occurrence ids, several
results in one message) comes back through the envelope; Agent Framework's own OpenAI chat client sends
what we dump for what it holds, and what it parses from a reply reads back as the reply; named cases for
every content type that is refused."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from messages import (
    AIMessage,
    AudioPart,
    ConversionError,
    FilePart,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UnansweredToolCallError,
    UserMessage,
    dump_messages,
    validate_conversation,
)
from messages import strategies as ms
from messages.convert.agent_framework import (
    TYPED_CONTENT_TYPES,
    AgentFrameworkEnvelope,
    from_agent_framework,
    to_agent_framework,
)
from messages.testing import StandInServer, scripted
from tests.oracles import openai_accepts
from tests.unmapped import refused_by_guard

af = pytest.importorskip("agent_framework")
from agent_framework import Content  # noqa: E402
from agent_framework import Message as AFMessage  # noqa: E402

from tests.af_contents import (  # noqa: E402
    CONTENT_TYPES,
    af_contents,
    af_histories,
    round_trips_in_agent_framework,
)


def dicts(messages: list[Any]) -> list[dict[str, Any]]:
    """Agent Framework's own serialization: what its persistence keeps of each message."""
    return [m.to_dict() for m in messages]


def one_text_part(content: Any) -> bool:
    return isinstance(content, list) and len(content) == 1 and isinstance(content[0], TextPart)


def assert_justified(conversation: list[Message], error: ConversionError) -> None:
    """The error names a message that really holds what the error says Agent Framework has no place for."""
    if refused_by_guard(conversation, error, image_format=True):
        return
    assert error.index is not None
    message = conversation[error.index]
    assert str(error).startswith(f"message {error.index}")
    if error.part == "content":
        assert one_text_part(message.content) or (isinstance(message, AIMessage) and message.content == [])
    elif error.part in ("thinking_blocks", "provider_specific_fields", "provider"):
        assert getattr(message, str(error.part)) is not None
        if error.part == "provider_specific_fields":  # reasoning details alone are a text_reasoning content
            assert set(message.provider_specific_fields or {}) != {"reasoning_details"}
    elif error.part == "tool_calls":
        assert isinstance(message, AIMessage)
        assert any(c.provider_specific_fields is not None for c in message.tool_calls)
    else:
        assert isinstance(error.part, int), error
        assert isinstance(message, UserMessage | ToolMessage)
        assert isinstance(message.content, list)
        part = message.content[error.part]
        assert isinstance(part, ImagePart), error
        assert "format" in str(error) or "media type" in str(error)


@given(ms.conversations())
def test_every_conversation_round_trips_or_names_what_agent_framework_cannot_hold(conversation):
    try:
        history = to_agent_framework(conversation)
    except ConversionError as error:
        assert_justified(conversation, error)
        return
    back, envelopes = from_agent_framework(history, envelopes=True)
    assert back == conversation
    assert all(e.is_empty() for e in envelopes)
    assert from_agent_framework(history) == conversation


def holdable(conversation: list[Message]) -> list[Message]:
    """The conversation within what Agent Framework's OpenAI chat client sends: a single text part as its
    string, a file by id given inline instead (a hosted_file, which the client leaves out of a Chat
    Completions request: only its Responses client sends one)."""

    def part(p: Any) -> Any:
        if isinstance(p, FilePart) and p.file_data is None:
            return FilePart.from_bytes(b"%PDF", filename="doc.pdf")
        return p

    out: list[Message] = []
    for m in conversation:
        content: Any = m.content
        if one_text_part(content):
            content = content[0].text
        elif isinstance(content, list):
            content = [part(p) for p in content]
        out.append(m.model_copy(update={"content": content}))
    return out


def agent_framework_client() -> Any:
    from agent_framework.openai import OpenAIChatCompletionClient

    return OpenAIChatCompletionClient(model="gpt-4o-mini", api_key="x", base_url="http://127.0.0.1:9/v1")


def agent_framework_sends(history: list[Any]) -> list[dict[str, Any]]:
    """What Agent Framework's own OpenAI chat client sends for ``history`` (its message preparation)."""
    return agent_framework_client()._prepare_messages_for_openai(history)


def texts_of(content: Any) -> str:
    if isinstance(content, str) or content is None:
        return content or ""
    return "\n".join(p["text"] for p in content if p.get("type") == "text")


def sanitized(name: str | None) -> str | None:
    from agent_framework_openai._chat_completion_client import _sanitize_author_name

    return _sanitize_author_name(name)


def parts_of(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


@settings(max_examples=30)
@given(ms.conversations(extensions=False).map(holdable))
def test_what_agent_framework_holds_round_trips_and_its_openai_client_sends_what_we_dump(conversation):
    history = to_agent_framework(conversation)
    assert from_agent_framework(history) == conversation
    client = agent_framework_client()
    for message, ours in zip(history, dump_messages(conversation, validate=False), strict=True):
        # Agent Framework's OpenAI client sends each content of a user or system message as a message of
        # its own (their text joined into one string when it is text alone), a reply's text and calls as one
        # message, and leaves out empty system text and a system message without text.
        theirs = client._prepare_message_for_openai(message)
        assert {t["role"] for t in theirs} <= {ours["role"]}
        if ours["role"] == "tool":
            # A result's texts as one string (Agent Framework leaves media out of a Chat Completions result).
            text = "\n".join(p["text"] for p in parts_of(ours["content"]) if p["type"] == "text")
            assert [(t["tool_call_id"], t["content"]) for t in theirs] == [(ours["tool_call_id"], text)]
            continue
        # Agent Framework keeps a name to the characters OpenAI documents (letters, digits, underscores).
        assert {t.get("name") for t in theirs} <= {sanitized(ours.get("name"))}
        sent = [part for t in theirs for part in parts_of(t.get("content"))]
        expected = parts_of(ours["content"])
        # Text goes as strings (joined by newlines, a system message's empty texts left out); other parts as
        # we dump them.
        if ours["role"] in ("system", "developer"):
            expected = [p for p in expected if p["text"]]
        assert [p for p in sent if p["type"] != "text"] == [p for p in expected if p["type"] != "text"]
        texts = ["\n".join(p["text"] for p in parts if p["type"] == "text") for parts in (sent, expected)]
        assert texts[0] == texts[1]
        if ours["role"] == "assistant":
            assert [c for t in theirs for c in t.get("tool_calls", [])] == ours.get("tool_calls", [])
            assert [t["refusal"] for t in theirs if "refusal" in t] == [r for r in [ours.get("refusal")] if r]


def test_agent_framework_messages_from_a_real_run_come_back_through_the_envelope():
    # The shapes an Agent with a tool records through Agent Framework's OpenAI client, streaming: the reply's
    # id as message_id, the call's occurrence id (Agent Framework's "af-call-..."), the streamed call
    # index in additional_properties, the agent's name as the author of its tool message too.
    index = {"openai": {"tool_call_index": 0, "tool_call_choice_index": 0}, "tool_call_index": 0}
    recorded = [
        AFMessage("user", ["Weather in Paris?"]),
        AFMessage(
            "assistant",
            [
                Content.from_function_call(
                    "call_1",
                    "get_weather",
                    arguments='{"city":"Paris"}',
                    id="af-call-1",
                    additional_properties=index,
                )
            ],
            author_name="weatherbot",
            message_id="chatcmpl-1",
        ),
        AFMessage(
            "tool",
            [
                Content.from_function_result(
                    "call_1", result="sunny", id="af-call-1", additional_properties=index
                )
            ],
            author_name="weatherbot",
        ),
        AFMessage("assistant", ["It is sunny."], author_name="weatherbot", message_id="chatcmpl-2"),
    ]
    ours, envelopes = from_agent_framework(recorded, envelopes=True)
    assert ours == [
        UserMessage(content="Weather in Paris?"),
        AIMessage(
            content=None,
            tool_calls=[ToolCall(id="call_1", name="get_weather", arguments='{"city":"Paris"}')],
            name="weatherbot",
        ),
        # The agent's name is the tool message's author, not the tool's name: it stays in the envelope.
        ToolMessage(tool_call_id="call_1", content="sunny"),
        AIMessage(content="It is sunny.", name="weatherbot"),
    ]
    validate_conversation(ours)
    assert [e.to_json() for e in envelopes] == [
        {},
        {
            "message_id": "chatcmpl-1",
            "content_fields": {"0": {"id": "af-call-1", "additional_properties": index}},
        },
        {
            "author_name": "weatherbot",
            "content_fields": {"0": {"id": "af-call-1", "additional_properties": index}},
        },
        {"message_id": "chatcmpl-2"},
    ]
    assert dicts(to_agent_framework(ours, envelopes)) == dicts(recorded)
    restored = [AgentFrameworkEnvelope.from_json(json.loads(json.dumps(e.to_json()))) for e in envelopes]
    assert restored == envelopes
    with pytest.raises(ConversionError) as caught:
        from_agent_framework(recorded)
    assert str(caught.value) == (
        "message 1: its content_fields has no place in a message of this package; pass envelopes=True to "
        "read it beside the messages (a thread store keeps it in its envelope)"
    )
    assert (caught.value.index, caught.value.part) == (1, "content_fields")


def test_several_results_in_one_tool_message_are_consecutive_tool_messages_and_back_one():
    history = [
        AFMessage(
            "assistant",
            [
                Content.from_function_call("w", "weather", arguments="{}"),
                Content.from_function_call("t", "time", arguments=""),
            ],
        ),
        AFMessage(
            "tool",
            [
                Content.from_function_result("w", result="sunny"),
                Content.from_function_result("t", result="noon", exception="clock broke"),
            ],
        ),
    ]
    ours, envelopes = from_agent_framework(history, envelopes=True)
    assert ours[1:] == [
        ToolMessage(tool_call_id="w", content="sunny"),
        ToolMessage(tool_call_id="t", content="noon", is_error=True),
    ]
    assert [e.joined for e in envelopes] == [False, False, True]
    back = to_agent_framework(ours, envelopes)
    assert dicts(back) == dicts(history)
    # The exception's text is not kept: Agent Framework persists its marker, and so do we.
    assert back[1].contents[1].exception == "FunctionInvocationError"
    assert dicts(back)[1]["contents"][1]["exception"] == history[1].to_dict()["contents"][1]["exception"]
    # Without the envelopes, each result is a tool message of its own: the same exchange.
    assert from_agent_framework(history) == ours
    assert [m.role for m in to_agent_framework(ours)] == ["assistant", "tool", "tool"]


def test_a_refusal_is_the_text_agent_frameworks_openai_client_marks_as_one():
    reply = AIMessage(content="I can't.", refusal="Not allowed.")
    (message,) = to_agent_framework([reply])
    sent = agent_framework_sends([message])
    assert sent == [{"role": "assistant", "content": "I can't.", "refusal": "Not allowed."}]
    assert from_agent_framework([message]) == [reply]
    # Marked the canonical way only (not the legacy flat key): still a refusal, the marker kept.
    marked = AFMessage(
        "assistant",
        [Content.from_text("No.", additional_properties={"core": {"model_output_kind": "refusal"}})],
    )
    ours, envelopes = from_agent_framework([marked], envelopes=True)
    assert ours == [AIMessage(refusal="No.")]
    assert dicts(to_agent_framework(ours, envelopes)) == dicts([marked])


def test_what_agent_frameworks_openai_client_parses_from_a_reply_reads_back_as_the_reply():
    from agent_framework.openai import OpenAIChatCompletionClient

    replies = [
        AIMessage(content="Hello."),
        AIMessage(content=None, tool_calls=[ToolCall(id="call_1", name="lookup", arguments='{"q": "x"}')]),
        AIMessage(content="Let me look.", tool_calls=[ToolCall(id="c2", name="f", arguments="")]),
        AIMessage(refusal="I cannot help with that."),
    ]

    async def parse_all(url: str) -> list[Any]:
        client = OpenAIChatCompletionClient(model="gpt-4o-mini", api_key="x", base_url=url + "/v1")
        return [(await client.get_response([AFMessage("user", ["hi"])])).messages for _ in replies]

    with StandInServer(scripted(*replies)) as server:
        parsed = asyncio.run(parse_all(server.url))
    for reply, messages in zip(replies, parsed, strict=True):
        ours, _ = from_agent_framework(messages, envelopes=True)
        assert ours == [reply]


def test_an_image_keeps_its_detail_where_agent_frameworks_client_reads_it_and_its_media_type_as_format():
    by_url = ImagePart(url="https://example.com/cat", detail="low", format="image/webp")
    unknown = ImagePart(url="https://example.com/dog.png")
    inline = ImagePart(url="data:image/png;base64,iVBORw0KGgo=", detail="high")
    user = UserMessage(content=[TextPart(text="Look:"), by_url, unknown, inline])
    (message,) = to_agent_framework([user])
    assert [(c.type, c.media_type) for c in message.contents[1:]] == [
        ("uri", "image/webp"),
        ("uri", "image/*"),  # an image by URL must say it is an image: Agent Framework reads the media type
        ("data", "image/png"),
    ]
    # Agent Framework's client sends each part as we dump it (but for the format, litellm's key for Gemini
    # and Bedrock), each in a message of its own.
    parts = dump_messages([user])[0]["content"]
    del parts[1]["image_url"]["format"]
    assert agent_framework_sends([message]) == [
        {"role": "user", "content": "Look:"},
        *({"role": "user", "content": [part]} for part in parts[1:]),
    ]
    assert from_agent_framework([message]) == [user]


def test_audio_and_files_are_data_content_and_a_file_by_id_is_a_hosted_file():
    audio = AudioPart.from_bytes(b"RIFF", format="wav")
    document = FilePart.from_bytes(b"%PDF-1.7", filename="report.pdf")
    user = UserMessage(content=[audio, document])
    (message,) = to_agent_framework([user])
    assert [(c.type, c.media_type, c.name) for c in message.contents] == [
        ("data", "audio/wav", None),
        ("data", "application/pdf", "report.pdf"),
    ]
    assert agent_framework_sends([message]) == [
        {"role": "user", "content": [part]} for part in dump_messages([user])[0]["content"]
    ]
    assert from_agent_framework([message]) == [user]
    # An uploaded file, by its id alone: Agent Framework's hosted_file, its media type kept beside it.
    by_id = UserMessage(content=[TextPart(text="see"), FilePart(file_id="file-1", filename="a.pdf")])
    (message,) = to_agent_framework([by_id])
    assert message.contents[1].to_dict() == {
        "type": "hosted_file",
        "file_id": "file-1",
        "name": "a.pdf",
        "additional_properties": {},
    }
    assert from_agent_framework([message]) == [by_id]
    typed = AFMessage("user", [Content.from_hosted_file("file-2", media_type="application/pdf")])
    ours, envelopes = from_agent_framework([typed], envelopes=True)
    assert ours == [UserMessage(content=[FilePart(file_id="file-2")])]
    assert envelopes[0].content_fields == {0: {"media_type": "application/pdf"}}
    assert dicts(to_agent_framework(ours, envelopes)) == dicts([typed])


def test_a_tool_result_of_parts_is_its_items_and_a_name_the_results_name():
    result = ToolMessage(
        tool_call_id="c1",
        name="render",
        content=[TextPart(text="done"), ImagePart(url="https://x.test/a.png")],
    )
    (message,) = to_agent_framework([result])
    (content,) = message.contents
    assert (content.call_id, content.name, content.result) == ("c1", "render", "done")
    assert [item.type for item in content.items] == ["text", "uri"]
    assert from_agent_framework([message]) == [result]


def test_arguments_given_as_a_mapping_are_their_json_text_and_the_mapping_comes_back():
    message = AFMessage(
        "assistant", [Content.from_function_call("c1", "f", arguments={"city": "Paris", "n": 2})]
    )
    ours, envelopes = from_agent_framework([message], envelopes=True)
    # The text Agent Framework's OpenAI client sends for them.
    assert ours[0].tool_calls[0].arguments == json.dumps({"city": "Paris", "n": 2})
    assert agent_framework_sends([message])[0]["tool_calls"][0]["function"]["arguments"] == json.dumps(
        {"city": "Paris", "n": 2}
    )
    assert envelopes[0].content_fields == {0: {"arguments": {"city": "Paris", "n": 2}}}
    assert dicts(to_agent_framework(ours, envelopes)) == dicts([message])


def test_an_assistant_message_in_another_order_comes_back_in_it():
    message = AFMessage(
        "assistant",
        [
            Content.from_function_call("c1", "f", arguments="{}"),
            Content.from_text("after the call"),
            Content.from_text_reasoning(text="thinking"),
        ],
    )
    ours, envelopes = from_agent_framework([message], envelopes=True)
    assert ours == [
        AIMessage(
            content="after the call",
            reasoning_content="thinking",
            tool_calls=[ToolCall(id="c1", name="f", arguments="{}")],
        )
    ]
    assert envelopes[0].order == (2, 1, 0)
    assert dicts(to_agent_framework(ours, envelopes)) == dicts([message])


@st.composite
def recorded_histories(draw: st.DrawFn) -> list[Any]:
    """Agent Framework messages as agents record them: a holdable conversation converted, then given what
    Agent Framework adds (message ids, properties, occurrence ids, content properties, authors of tool
    messages, the results of a turn joined in one message, an exception's text, contents reordered)."""
    conversation = draw(ms.conversations(extensions=False).map(holdable))
    history = to_agent_framework(conversation)
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=4), inner, max_size=2),
        max_leaves=4,
    )
    properties = st.dictionaries(st.text(min_size=1, max_size=6), json_values, max_size=2)
    out: list[Any] = []
    for message in history:
        if draw(st.booleans()):
            message.message_id = draw(st.text(min_size=1, max_size=12))
        message.additional_properties = draw(properties)
        for content in message.contents:
            if content.type in ("function_call", "function_result") and draw(st.booleans()):
                content.id = f"af-call-{draw(st.integers(0, 99))}"
            if draw(st.integers(0, 3)) == 0:
                content.additional_properties = draw(properties)
            if content.type == "function_result" and draw(st.integers(0, 3)) == 0:
                content.exception = draw(st.text(max_size=10))
        if message.role == "tool" and draw(st.booleans()):
            message.author_name = draw(ms.participant_names())
        if message.role == "assistant" and len(message.contents) > 1 and draw(st.booleans()):
            message.contents = draw(st.permutations(message.contents))
        if message.role == "tool" and out and out[-1].role == "tool" and draw(st.booleans()):
            out[-1].contents.extend(message.contents)
            continue
        out.append(message)
    return out


@settings(max_examples=30)
@given(recorded_histories())
def test_what_agents_record_comes_back_as_agent_frameworks_own_serialization_keeps_it(history):
    expected = dicts(history)
    ours, envelopes = from_agent_framework(history, envelopes=True)
    assert len(envelopes) == len(ours)
    assert dicts(to_agent_framework(ours, envelopes)) == expected
    # ... and through the envelopes' JSON, as a store keeps them.
    stored = [AgentFrameworkEnvelope.from_json(json.loads(json.dumps(e.to_json()))) for e in envelopes]
    assert dicts(to_agent_framework(ours, stored)) == expected


# --- everything Agent Framework holds is kept --------------------------------------------------------------


@settings(max_examples=60)
@given(af_histories())
def test_every_agent_framework_history_comes_back_as_agent_framework_keeps_it(history):
    # Every content type Agent Framework defines, in any message of any role: typed where this package has
    # a form, kept whole in the envelope where it has none, given back in its place, through the envelopes'
    # JSON as a store keeps them.
    assume(all(round_trips_in_agent_framework(m) for m in history))
    ours, envelopes = from_agent_framework(history, envelopes=True)
    assert len(ours) == len(envelopes) >= 1
    stored = [AgentFrameworkEnvelope.from_json(json.loads(json.dumps(e.to_json()))) for e in envelopes]
    assert dicts(to_agent_framework(ours, stored)) == dicts(history)
    # What the messages hold is what a model request can: they dump to the OpenAI shape as they are.
    TypeAdapter(list[Message]).validate_python(dump_messages(ours, validate=False))


def test_agent_framework_defines_the_content_types_these_tests_generate():
    assert set(TYPED_CONTENT_TYPES) <= set(CONTENT_TYPES)
    assert len(CONTENT_TYPES) == 26
    assert len(KEPT_TYPES) == 19


KEPT_TYPES = [t for t in CONTENT_TYPES if t not in TYPED_CONTENT_TYPES]


@pytest.mark.parametrize("kind", KEPT_TYPES)
@settings(max_examples=4)
@given(data=st.data())
def test_a_content_no_message_of_this_package_holds_is_kept_in_its_place(kind, data):
    content = data.draw(af_contents((kind,)))
    history = [AFMessage("user", ["hi"]), AFMessage("assistant", ["ok", content, "more"])]
    ours, envelopes = from_agent_framework(history, envelopes=True)
    assert ours == [
        UserMessage(content="hi"),
        AIMessage(content=[TextPart(text="ok"), TextPart(text="more")]),
    ]
    assert envelopes[1].kept == {1: content.to_dict()}
    assert dicts(to_agent_framework(ours, envelopes)) == dicts(history)
    # Without envelopes it has nowhere to go: refused, naming it and the way out.
    with pytest.raises(ConversionError) as caught:
        from_agent_framework(history)
    assert str(caught.value) == (
        f"message 1, content 1: an Agent Framework {kind!r} content, which no message of this package holds "
        "here; pass envelopes=True to read it beside the messages (a thread store keeps it in its envelope)"
    )
    assert (caught.value.index, caught.value.part) == (1, 1)


def approval_history() -> list[Any]:
    """An approval flow as Agent Framework's function invocation records it (agent-framework-core 1.23): the
    reply's call with its approval request, the user's answer, the result, the answer."""
    call = Content.from_function_call("call_1", "delete_file", arguments='{"path":"a.txt"}', id="af-call-1")
    request = Content.from_function_approval_request("af-call-1", call)
    return [
        AFMessage("user", ["Delete a.txt"]),
        AFMessage("assistant", [call, request], author_name="bot"),
        AFMessage("user", [request.to_function_approval_response(True)]),
        AFMessage("tool", [Content.from_function_result("call_1", result="deleted", id="af-call-1")]),
        AFMessage("assistant", ["Deleted a.txt."], author_name="bot"),
    ]


def test_an_approval_flow_is_kept_and_its_messages_keep_the_call_before_its_result():
    history = approval_history()
    ours, envelopes = from_agent_framework(history, envelopes=True)
    assert ours == [
        UserMessage(content="Delete a.txt"),
        AIMessage(
            tool_calls=[ToolCall(id="call_1", name="delete_file", arguments='{"path":"a.txt"}')], name="bot"
        ),
        ToolMessage(tool_call_id="call_1", content="deleted"),
        AIMessage(content="Deleted a.txt.", name="bot"),
    ]
    # The request is kept beside the call it asks about; the user's answer, which no model request holds,
    # beside the result that follows it: the conversation reads call, then result.
    assert envelopes[1].kept == {1: history[1].contents[1].to_dict()}
    assert envelopes[2].before == (history[2].to_dict(),)
    validate_conversation(ours)
    openai_accepts(dump_messages(ours, model="openai/gpt-4o"))
    assert dicts(to_agent_framework(ours, envelopes)) == dicts(history)
    # While the approval is pending, the call has no result: reported as any unanswered call.
    pending, _ = from_agent_framework(history[:2], envelopes=True)
    with pytest.raises(UnansweredToolCallError, match="'call_1'"):
        validate_conversation(pending)


def test_messages_with_nothing_typed_are_kept_beside_the_one_before_or_by_a_carrier():
    consent = AFMessage("assistant", [Content.from_oauth_consent_request("https://login.test/c")])
    approval = approval_history()[2]
    ours, envelopes = from_agent_framework([AFMessage("user", ["Sign me in"]), consent], envelopes=True)
    assert ours == [UserMessage(content="Sign me in")]
    assert envelopes[0].after == (consent.to_dict(),)
    # Nothing typed at all: an empty reply stands for none and carries them.
    ours, envelopes = from_agent_framework([approval, consent], envelopes=True)
    assert ours == [AIMessage()]
    assert envelopes == [AgentFrameworkEnvelope(before=(approval.to_dict(), consent.to_dict()), carrier=True)]
    assert dicts(to_agent_framework(ours, envelopes)) == dicts([approval, consent])
    with pytest.raises(ConversionError, match="a 'user' message with function_approval_response content"):
        from_agent_framework([approval])


def test_reasoning_details_are_provider_fields_as_litellm_keeps_them_and_go_back_as_agent_framework_sends():
    # Agent Framework's OpenAI chat client keeps OpenRouter's (and vLLM's) reasoning_details as a
    # text_reasoning content with their JSON as protected_data, and sends them back on the turn; litellm
    # keeps a reply's in provider_specific_fields, and the OpenRouter profile sends them back (quirk 56).
    details = [{"type": "reasoning.encrypted", "data": "c2ln", "id": "rs_1", "format": "anthropic-claude-v1"}]
    reply = AFMessage(
        "assistant",
        [
            Content.from_function_call("call_1", "lookup", arguments="{}"),
            Content.from_text_reasoning(protected_data=json.dumps(details)),
        ],
    )
    ours, envelopes = from_agent_framework([reply], envelopes=True)
    assert ours == [
        AIMessage(
            tool_calls=[ToolCall(id="call_1", name="lookup", arguments="{}")],
            provider_specific_fields={"reasoning_details": details},
        )
    ]
    assert dicts(to_agent_framework(ours, envelopes)) == dicts([reply])
    history = [
        AFMessage("user", ["q"]),
        reply,
        AFMessage("tool", [Content.from_function_result("call_1", result="x")]),
    ]
    theirs = agent_framework_sends(history)
    ours_sent = dump_messages(from_agent_framework(history), model="openrouter/anthropic/claude-sonnet-4.5")
    assert theirs[1]["reasoning_details"] == ours_sent[1]["reasoning_details"] == details
    assert "reasoning_details" not in dump_messages(from_agent_framework(history), model="openai/gpt-4o")[1]


@pytest.mark.parametrize(
    ("message", "typed"),
    [
        (AFMessage("critic", ["hm"]), None),
        (
            AFMessage(
                "system", ["Be brief.", Content.from_uri("https://x.test/a.png", media_type="image/png")]
            ),
            SystemMessage(content="Be brief."),
        ),
        (AFMessage("user", ["hi", Content.from_function_call("c", "f")]), UserMessage(content="hi")),
        (
            AFMessage("assistant", ["ok", Content.from_text_reasoning(protected_data="gAAAAB-encrypted")]),
            AIMessage(content="ok"),
        ),
        (
            AFMessage(
                "assistant", [Content.from_text_reasoning(text="a"), Content.from_text_reasoning(text="b")]
            ),
            AIMessage(reasoning_content="a"),
        ),
        (AFMessage("tool", []), None),
        (
            AFMessage(
                "user", ["see", Content.from_uri("https://x.test/a.pdf", media_type="application/pdf")]
            ),
            UserMessage(content="see"),
        ),
        (
            AFMessage("user", ["see", Content.from_data(b"%PDF", "application/pdf")]),
            UserMessage(content="see"),
        ),
        (
            AFMessage(
                "assistant",
                ["Looking.", Content.from_function_call("mcp_1", "search", hosted=True, server_name="docs")],
            ),
            AIMessage(content="Looking."),
        ),
    ],
    ids=[
        "an unknown role",
        "an image in a system message",
        "a call in a user message",
        "encrypted reasoning alone",
        "a second reasoning text",
        "a tool message without a result",
        "a document by URL",
        "a file without a name",
        "a call the service ran itself",
    ],
)
def test_what_was_refused_before_is_kept_where_no_message_holds_it(message, typed):
    ours, envelopes = from_agent_framework([AFMessage("user", ["q"]), message], envelopes=True)
    assert ours[1:] == ([] if typed is None else [typed])
    assert dicts(to_agent_framework(ours, envelopes)) == dicts([AFMessage("user", ["q"]), message])


def test_a_value_that_is_not_json_is_refused_naming_message_and_field():
    with pytest.raises(ConversionError) as caught:
        from_agent_framework(
            [AFMessage("user", ["hi"], additional_properties={"handle": object()})], envelopes=True
        )
    assert str(caught.value) == (
        "message 0: additional_properties['handle'] holds a value of type object, which is not JSON; a store "
        "keeps these as JSON"
    )
    assert (caught.value.index, caught.value.part) == (0, "additional_properties")
    with pytest.raises(ConversionError) as caught:
        from_agent_framework(
            [AFMessage("tool", [Content.from_mcp_server_tool_result("m1", output={1: "a"})])], envelopes=True
        )
    assert str(caught.value) == (
        "message 0, content 0: the content['output'] holds a key 1 that is not a string; a store keeps these "
        "as JSON"
    )


@pytest.mark.parametrize(
    ("message", "part", "text"),
    [
        (
            UserMessage(content=[TextPart(text="hi")]),
            "content",
            "message 0: a list of one text part, which Agent Framework holds as it holds a string (one text "
            "content): it would come back a string; give the text as a string",
        ),
        (
            AIMessage(content=[]),
            "content",
            "message 0: an empty content list, which would come back None; give None",
        ),
        (
            AIMessage(
                content="hi", thinking_blocks=[{"type": "thinking", "thinking": "x", "signature": "s"}]
            ),
            "thinking_blocks",
            "message 0: Agent Framework's Message has no place for thinking_blocks",
        ),
        (
            AIMessage(content="hi", provider_specific_fields={"thought_signatures": ["x"]}),
            "provider_specific_fields",
            "message 0: Agent Framework's Message has no place for provider_specific_fields (only "
            "reasoning_details alone, as a text_reasoning content's protected_data)",
        ),
        (
            UserMessage(
                content=[ImagePart(url="data:image/png;base64,AAAA", format="image/png"), TextPart(text="x")]
            ),
            0,
            "message 0, content 0: an image format 'image/png' equal to its data URL's own media type: it "
            "would come back unset; leave it unset",
        ),
        (
            SystemMessage(content="x", name="a"),
            "author_name",
            "message 0: an envelope author_name for a message whose name is its author_name; give it as the "
            "name",
        ),
    ],
)
def test_what_agent_framework_cannot_hold_is_refused_naming_message_and_field(message, part, text):
    envelopes = [AgentFrameworkEnvelope(author_name="b")] if part == "author_name" else None
    with pytest.raises(ConversionError) as caught:
        to_agent_framework([message], envelopes)
    assert str(caught.value) == text
    assert (caught.value.index, caught.value.part) == (0, part)


def test_an_envelope_that_does_not_read_or_fit_is_refused_naming_its_field():
    with pytest.raises(ValueError, match="has no field 'extra'"):
        AgentFrameworkEnvelope.from_json({"extra": 1})
    with pytest.raises(ValueError, match="order must be a list of positions"):
        AgentFrameworkEnvelope.from_json({"order": "01"})
    with pytest.raises(ValueError, match="kept must map positions to objects"):
        AgentFrameworkEnvelope.from_json({"kept": {"x": {}}})
    with pytest.raises(ValueError, match="before must be a list of messages"):
        AgentFrameworkEnvelope.from_json({"before": {}})
    with pytest.raises(ConversionError, match="an envelope order \\[0\\] for 2 contents"):
        to_agent_framework(
            [AIMessage(content="a", reasoning_content="b")], [AgentFrameworkEnvelope(order=(0,))]
        )
    with pytest.raises(ConversionError, match="a kept content at position 3 of 1 contents"):
        to_agent_framework([AIMessage(content="a")], [AgentFrameworkEnvelope(kept={3: {"type": "usage"}})])
    with pytest.raises(
        ConversionError, match="a carrier envelope on a message that is not an empty AIMessage"
    ):
        to_agent_framework([AIMessage(content="a")], [AgentFrameworkEnvelope(carrier=True)])
