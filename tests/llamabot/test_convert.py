"""messages.convert.llamabot: llamabot's messages in and out, against llamabot's own classes.

Named cases for each kind llamabot has (thought, observation, developer, retrieved, image, a prompt hash,
tool calls as litellm objects and as dicts), for the results llamabot's ToolMessage cannot tie to their
calls, and for every refusal; properties for the round trips over conversations made of the package's
strategies, and over llamabot messages of every kind.
"""

from __future__ import annotations

import base64
import doctest
import json

import pytest

from tests.llamabot._shared import LLAMABOT_WARNINGS, MISSING

pytest.importorskip("llamabot", reason=MISSING)
import llamabot.components.messages as lm
from hypothesis import given
from hypothesis import strategies as st
from litellm.types.utils import ChatCompletionMessageToolCall, Function

import messages.convert.llamabot as converter
from messages import AIMessage, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages import strategies as ms
from messages.convert import ConversionError, from_llamabot, to_llamabot
from messages.convert.llamabot import LlamabotEnvelope
from messages.errors import MessageTypeError
from messages.parts import AudioPart, ImagePart, TextPart

pytestmark = LLAMABOT_WARNINGS

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40).decode()


def litellm_call(call_id: str, name: str, arguments: str) -> ChatCompletionMessageToolCall:
    return ChatCompletionMessageToolCall(
        function=Function(name=name, arguments=arguments), id=call_id, type="function"
    )


def same(ours: list, theirs: list) -> bool:
    """Whether two lists of llamabot messages are the same: classes, and every field (an image's media
    type too)."""
    return [type(m) for m in ours] == [type(m) for m in theirs] and [
        (m.model_dump(), getattr(m, "_mime_type", None)) for m in ours
    ] == [(m.model_dump(), getattr(m, "_mime_type", None)) for m in theirs]


# --- named cases: from llamabot ------------------------------------------------------------------------


def test_the_examples_in_the_module_run():
    assert doctest.testmod(converter).failed == 0


def test_every_kind_of_llamabot_message_is_read_and_given_back_with_its_envelope():
    given_messages = [
        lm.SystemMessage(content="Be brief.", prompt_hash="abc123"),
        lm.DeveloperMessage(content="Use metric units."),
        lm.HumanMessage(content="What is 2 + 3?"),
        lm.ThoughtMessage(content="I should add."),
        lm.AIMessage(content="", tool_calls=[litellm_call("call_1", "add", '{"a": 2, "b": 3}')]),
        lm.ToolMessage(content="5"),
        lm.ObservationMessage(content="The sum is 5."),
        lm.RetrievedMessage(content="Addition is commutative."),
        lm.AIMessage(content="It is 5."),
    ]
    typed, envelopes = from_llamabot(given_messages, envelopes=True)
    assert typed == [
        SystemMessage(content="Be brief."),
        SystemMessage(role="developer", content="Use metric units."),
        UserMessage(content="What is 2 + 3?"),
        AIMessage(content="I should add."),
        AIMessage(tool_calls=[ToolCall(id="call_1", name="add", arguments='{"a": 2, "b": 3}')]),
        ToolMessage(tool_call_id="call_1", content="5"),
        AIMessage(content="The sum is 5."),
        SystemMessage(content="Addition is commutative."),
        AIMessage(content="It is 5."),
    ]
    assert [e.to_json() for e in envelopes] == [
        {"prompt_hash": "abc123"},
        {},
        {},
        {"kind": "llamabot.components.messages.ThoughtMessage"},
        {},
        {},
        {"kind": "llamabot.components.messages.ObservationMessage"},
        {"kind": "llamabot.components.messages.RetrievedMessage"},
        {},
    ]
    assert same(to_llamabot(typed, envelopes), given_messages)


def test_an_image_message_is_a_user_message_of_one_image_and_comes_back_with_its_media_type(tmp_path):
    path = tmp_path / "picture.jpg"
    path.write_bytes(base64.b64decode(PNG))
    image = lm.ImageMessage(content=path)  # llamabot reads the file and keeps its media type
    (typed,) = from_llamabot([image])
    assert typed == UserMessage(content=[ImagePart(url=f"data:image/jpeg;base64,{PNG}")])
    (back,) = to_llamabot([typed])
    assert type(back) is lm.ImageMessage
    assert back.content == PNG
    assert back.model_dump()["content"][0]["image_url"]["url"] == f"data:image/jpeg;base64,{PNG}"


def test_results_answer_the_calls_of_their_turn_in_order_as_llamabot_runs_them():
    turn = lm.AIMessage(
        content="Adding twice.",
        tool_calls=[litellm_call("call_a", "add", "{}"), litellm_call("call_b", "add", "{}")],
    )
    typed = from_llamabot(
        [lm.HumanMessage(content="go"), turn, lm.ToolMessage(content="1"), lm.ToolMessage(content="2")]
    )
    assert [(m.tool_call_id, m.content) for m in typed[2:]] == [("call_a", "1"), ("call_b", "2")]
    assert typed[1].content == "Adding twice."


def test_open_calls_are_what_results_continuing_a_conversation_answer():
    typed = from_llamabot([lm.ToolMessage(content="7"), lm.ToolMessage(content="8")], open_calls=["x", "y"])
    assert typed == [ToolMessage(tool_call_id="x", content="7"), ToolMessage(tool_call_id="y", content="8")]


def test_a_result_with_no_call_left_to_answer_is_refused_naming_it():
    with pytest.raises(
        ConversionError, match="message 1: a llamabot ToolMessage, which holds no tool_call_id"
    ) as info:
        from_llamabot([lm.HumanMessage(content="hi"), lm.ToolMessage(content="5")])
    assert (info.value.index, info.value.part) == (1, "tool_call_id")
    with pytest.raises(ConversionError, match="message 3"):
        from_llamabot(
            [
                lm.AIMessage(content="", tool_calls=[litellm_call("c", "f", "{}")]),
                lm.ToolMessage(content="1"),
                lm.HumanMessage(content="and again?"),
                lm.ToolMessage(content="2"),
            ]
        )


def test_llamabot_drops_a_tool_call_id_given_to_its_tool_message_without_a_word():
    # The reason results are tied to their calls by position: llamabot keeps no id (issue #275).
    result = lm.ToolMessage(content="5", tool_call_id="call_1")
    assert "tool_call_id" not in result.model_dump()


def test_tool_calls_given_as_dicts_are_read_and_given_back_as_dicts():
    call = {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": {"a": 2}}}
    given_message = lm.AIMessage(content="", tool_calls=[call])
    (typed,), (envelope,) = from_llamabot([given_message], envelopes=True)
    assert typed.tool_calls == [ToolCall(id="call_1", name="add", arguments='{"a":2}')]
    assert envelope.tool_calls == (call,)
    (back,) = to_llamabot([typed], [envelope])
    assert back.tool_calls == [call]


def test_tool_calls_given_as_openai_sdk_objects_are_read():
    from openai.types.chat import ChatCompletionMessageFunctionToolCall

    call = ChatCompletionMessageFunctionToolCall(
        id="call_1", type="function", function={"name": "add", "arguments": '{"a": 1}'}
    )
    (typed,) = from_llamabot([lm.AIMessage(content="", tool_calls=[call])])
    assert typed.tool_calls == [ToolCall(id="call_1", name="add", arguments='{"a": 1}')]


def test_a_calls_provider_fields_go_both_ways():
    call = ChatCompletionMessageToolCall(
        function=Function(name="f", arguments="{}"),
        id="call_1",
        type="function",
        provider_specific_fields={"thought_signature": "c2ln"},
    )
    (typed,) = from_llamabot([lm.AIMessage(content="", tool_calls=[call])])
    assert typed.tool_calls[0].provider_specific_fields == {"thought_signature": "c2ln"}
    (back,) = to_llamabot([typed])
    assert back.tool_calls[0].provider_specific_fields == {"thought_signature": "c2ln"}


def test_what_needs_an_envelope_is_refused_without_envelopes_naming_the_way_out():
    with pytest.raises(ConversionError, match=r"message 0: its kind .*ThoughtMessage.* pass envelopes=True"):
        from_llamabot([lm.ThoughtMessage(content="hmm")])
    with pytest.raises(ConversionError, match="its prompt_hash"):
        from_llamabot([lm.SystemMessage(content="s", prompt_hash="h")])


@pytest.mark.parametrize(
    ("message", "said"),
    [
        (
            lm.BaseMessage(role="function", content="x"),
            "the role 'function', which no message of this package has",
        ),
        (lm.HumanMessage(content="x", tool_calls=[{"id": "c"}]), "a 'user' message with tool calls"),
        (
            lm.AIMessage(content="", tool_calls=[{"id": "c", "function": {"name": "", "arguments": "{}"}}]),
            "tool call 0 is not a tool call here",
        ),
        (lm.AIMessage(content="", tool_calls=[{"type": "function"}]), "tool call 0 is not a tool call here"),
    ],
)
def test_what_no_message_of_this_package_can_be_is_refused_naming_it(message, said):
    with pytest.raises(ConversionError, match=f"message 0: {said}"):
        from_llamabot([message], envelopes=True)


def test_an_item_that_is_not_a_llamabot_message_is_refused():
    with pytest.raises(ConversionError, match="message 0 is a str, not a llamabot message"):
        from_llamabot(["hello"])


# --- named cases: to llamabot --------------------------------------------------------------------------


def test_to_llamabot_holds_what_llamabots_bots_hold():
    call = ToolCall(id="call_1", name="add", arguments='{"a": 2}')
    out = to_llamabot(
        [
            SystemMessage(content="s"),
            SystemMessage(role="developer", content="d"),
            UserMessage(content="u"),
            AIMessage(content="Let me add.", tool_calls=[call]),
            ToolMessage.for_call(call, 2),
            AIMessage(content="2"),
        ]
    )
    assert [type(m).__name__ for m in out] == [
        "SystemMessage",
        "DeveloperMessage",
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]
    assert out[3].content == "Let me add."
    assert [(c.id, c.function.name, c.function.arguments) for c in out[3].tool_calls] == [
        ("call_1", "add", '{"a": 2}')
    ]
    assert out[4].content == "2"


def test_what_llamabot_has_no_field_for_is_left_out_and_refused_under_strict():
    call = ToolCall(id="call_1", name="f", arguments="{}")
    conversation = [
        UserMessage(content="hi", name="ada"),
        AIMessage(content="thinking done", reasoning_content="...", tool_calls=[call]),
        ToolMessage(tool_call_id="call_1", content="ok", is_error=False),
    ]
    loose = to_llamabot(conversation)
    assert loose[0].model_dump() == {
        "role": "user",
        "content": "hi",
        "prompt_hash": None,
        "tool_calls": [],
    }
    # Read back: the names, the reasoning and is_error are gone; the result is tied to its call again.
    assert from_llamabot(loose) == [
        UserMessage(content="hi"),
        AIMessage(content="thinking done", tool_calls=[call]),
        ToolMessage(tool_call_id="call_1", content="ok"),
    ]
    with pytest.raises(
        ConversionError, match=r"message 0: name \('ada'\), which llamabot's messages have no field"
    ):
        to_llamabot(conversation, strict=True)
    with pytest.raises(ConversionError, match=r"message 0: reasoning_content \(.*\), which llamabot"):
        to_llamabot(conversation[1:], strict=True)


def test_strict_refuses_every_tool_result_for_its_id():
    with pytest.raises(
        ConversionError, match=r"message 0: a tool result, whose tool_call_id \('c'\) llamabot"
    ) as info:
        to_llamabot([ToolMessage(tool_call_id="c", content="1")], strict=True)
    assert info.value.part == "tool_call_id"


@pytest.mark.parametrize(
    ("message", "said"),
    [
        (AIMessage(content="", tool_calls=[ToolCall(id="c", name="f")]), "an empty text beside tool calls"),
        (AIMessage(), "a reply with neither text nor tool calls"),
    ],
)
def test_strict_refuses_what_would_come_back_otherwise(message, said):
    with pytest.raises(ConversionError, match=said):
        to_llamabot([message], strict=True)
    to_llamabot([message])  # left as llamabot holds it


@pytest.mark.parametrize(
    ("message", "said"),
    [
        (
            UserMessage(content=[TextPart(text="a"), TextPart(text="b")]),
            "llamabot holds a user's text as one string",
        ),
        (UserMessage(content=[AudioPart(data="AAAA", format="wav")]), "llamabot holds a user's text"),
        (UserMessage(content=[ImagePart(url="https://example.com/a.png")]), "an image given by URL"),
        (SystemMessage(content=[TextPart(text="a")]), "system text as parts"),
        (AIMessage(content=[TextPart(text="a")]), "assistant content as parts"),
        (ToolMessage(tool_call_id="c", content=[TextPart(text="a")]), "a tool result as parts"),
    ],
)
def test_content_llamabots_string_cannot_be_is_refused_either_way(message, said):
    with pytest.raises(ConversionError, match=said):
        to_llamabot([message])


def test_envelopes_that_do_not_fit_are_refused():
    with pytest.raises(ConversionError, match="1 envelopes for 2 messages"):
        to_llamabot([UserMessage(content="a"), UserMessage(content="b")], [None])
    with pytest.raises(
        ConversionError, match=r"names the class 'nowhere\.Nothing', which cannot be imported"
    ):
        to_llamabot([UserMessage(content="a")], [LlamabotEnvelope(kind="nowhere.Nothing")])
    with pytest.raises(
        ConversionError, match=r"names 'json\.JSONDecoder', which is not a llamabot message class"
    ):
        to_llamabot([UserMessage(content="a")], [LlamabotEnvelope(kind="json.JSONDecoder")])
    with pytest.raises(MessageTypeError, match="message 0 is a dict"):
        to_llamabot([{"role": "user", "content": "a"}])


def test_an_envelope_goes_through_json_and_refuses_what_is_not_one():
    envelope = LlamabotEnvelope(kind="k.K", prompt_hash="h", tool_calls=({"id": "c"},))
    assert LlamabotEnvelope.from_json(json.loads(json.dumps(envelope.to_json()))) == envelope
    with pytest.raises(ValueError, match="has no field 'colour'"):
        LlamabotEnvelope.from_json({"colour": "red"})
    with pytest.raises(ValueError, match="prompt_hash must be a string"):
        LlamabotEnvelope.from_json({"prompt_hash": 3})


# --- properties ----------------------------------------------------------------------------------------

_plain_texts = ms.texts()


@st.composite
def llamabot_held(draw: st.DrawFn, *, results: bool) -> list:
    """Conversations of the package's messages holding only what llamabot's hold: text, one image by data
    URL, tool calls (the package's strategy, provider fields and all) and, with ``results``, each turn's
    results right after it in its calls' order."""
    conversation: list = []
    for kind in draw(
        st.lists(
            st.sampled_from(["system", "developer", "user", "image", "text", "calls"]), min_size=1, max_size=8
        )
    ):
        if kind in ("system", "developer"):
            conversation.append(SystemMessage(role=kind, content=draw(_plain_texts)))
        elif kind == "user":
            conversation.append(UserMessage(content=draw(_plain_texts)))
        elif kind == "image":
            data = base64.b64encode(draw(st.binary(min_size=1, max_size=20))).decode()
            conversation.append(UserMessage(content=[ImagePart(url=f"data:image/png;base64,{data}")]))
        elif kind == "text":
            conversation.append(AIMessage(content=draw(_plain_texts)))
        else:
            calls = draw(st.lists(ms.tool_calls(), min_size=1, max_size=3, unique_by=lambda c: c.id))
            text = draw(st.one_of(st.none(), _plain_texts.filter(bool)))
            conversation.append(AIMessage(content=text, tool_calls=calls))
            if results:
                conversation.extend(ToolMessage(tool_call_id=c.id, content=draw(_plain_texts)) for c in calls)
    return conversation


@given(llamabot_held(results=False))
def test_a_conversation_strict_takes_comes_back_equal(conversation):
    assert from_llamabot(to_llamabot(conversation, strict=True)) == conversation


@given(llamabot_held(results=True))
def test_results_in_their_calls_order_come_back_with_their_ids(conversation):
    assert from_llamabot(to_llamabot(conversation)) == conversation


@given(ms.conversations())
def test_any_conversation_converts_or_is_refused_by_name_and_what_converts_keeps_its_text(conversation):
    try:
        out = to_llamabot(conversation)
    except ConversionError as exc:
        refused = exc
    else:
        refused = None
    if refused is not None:
        assert refused.index is not None
        assert 0 <= refused.index < len(conversation)
        return
    assert len(out) == len(conversation)
    for message, converted in zip(conversation, out, strict=True):
        if isinstance(message.content, str):
            assert converted.content == message.content


_LLAMABOT_TEXT_KINDS = {
    "system": lambda text, h: lm.SystemMessage(content=text, prompt_hash=h),
    "developer": lambda text, h: lm.DeveloperMessage(content=text, prompt_hash=h),
    "retrieved": lambda text, h: lm.RetrievedMessage(content=text, prompt_hash=h),
    "human": lambda text, h: lm.HumanMessage(content=text, prompt_hash=h),
    "ai": lambda text, h: lm.AIMessage(content=text, prompt_hash=h),
    "thought": lambda text, h: lm.ThoughtMessage(content=text, prompt_hash=h),
    "observation": lambda text, h: lm.ObservationMessage(content=text, prompt_hash=h),
}


@st.composite
def llamabot_messages(draw: st.DrawFn) -> list:
    """Lists of llamabot messages of every kind, as llamabot's bots and memories hold them: prompt hashes,
    tool calls as litellm objects or dicts, each turn's results after it."""
    out: list = []
    hashes = st.one_of(st.none(), st.text(alphabet="0123456789abcdef", min_size=8, max_size=8))
    for kind in draw(
        st.lists(st.sampled_from([*_LLAMABOT_TEXT_KINDS, "calls", "image"]), min_size=1, max_size=8)
    ):
        if kind == "image":
            data = base64.b64encode(draw(st.binary(min_size=1, max_size=20))).decode()
            image = lm.ImageMessage.model_construct(
                content=data, role="user", prompt_hash=None, tool_calls=[]
            )
            image._mime_type = draw(st.sampled_from(["image/png", "image/jpeg", "image/webp"]))
            out.append(image)
        elif kind == "calls":
            calls = draw(
                st.lists(ms.tool_calls(extensions=False), min_size=1, max_size=3, unique_by=lambda c: c.id)
            )
            as_dicts = draw(st.booleans())
            raw = [c.model_dump() if as_dicts else litellm_call(c.id, c.name, c.arguments) for c in calls]
            out.append(lm.AIMessage(content=draw(_plain_texts), tool_calls=raw, prompt_hash=draw(hashes)))
            out.extend(lm.ToolMessage(content=draw(_plain_texts)) for _ in calls)
        else:
            out.append(_LLAMABOT_TEXT_KINDS[kind](draw(_plain_texts), draw(hashes)))
    return out


@given(llamabot_messages())
def test_llamabot_messages_of_every_kind_come_back_the_same_through_the_envelopes_json(given_messages):
    typed, envelopes = from_llamabot(given_messages, envelopes=True)
    kept = [LlamabotEnvelope.from_json(json.loads(json.dumps(e.to_json()))) for e in envelopes]
    back = to_llamabot(typed, kept)
    # An assistant's empty text beside calls reads as none, and goes back as llamabot writes none: "".
    assert same(back, given_messages)
