"""LocalThread and RemoteThread as values: JSON round trips, the discriminator, context state, a local
thread read through a context window, and a remote thread's bookkeeping between Responses API calls."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from messages import (
    AIMessage,
    AudioPart,
    ConversionError,
    DuplicateToolCallIdError,
    EmptyConversationError,
    InMemoryThreadStore,
    InvalidArgumentError,
    LocalThread,
    Message,
    MessageTypeError,
    OrphanToolResultError,
    RemoteThread,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UnansweredToolCallError,
    UserMessage,
    parse_thread,
    validate_conversation,
)
from messages import strategies as ms
from messages.context import (
    BufferedContext,
    HeadAndTailContext,
    TokenLimitedContext,
    UnboundedContext,
    skipped_messages_note,
)
from messages.convert import to_responses_items
from messages.threads import ContextWindow
from tests.test_convert_responses import assert_justified, carriable

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
context_states = st.dictionaries(st.text(min_size=1, max_size=12), json_values, max_size=4)


@given(thread_id=st.text(min_size=1, max_size=40), context=context_states)
def test_a_local_thread_reads_back_from_its_json_as_a_local_thread(thread_id, context):
    thread = LocalThread(id=thread_id, context_state=context)
    text = thread.model_dump_json()
    assert json.loads(text)["kind"] == "local"
    loaded = parse_thread(text)
    assert type(loaded) is LocalThread
    assert loaded == thread
    assert parse_thread(json.loads(text)) == thread


@given(
    pending=st.lists(ms.messages(), max_size=5),
    response_id=st.none() | st.text(min_size=1, max_size=30),
    open_calls=st.lists(ms.tool_call_ids(), max_size=3),
    context=context_states,
)
def test_a_remote_thread_reads_back_from_its_json_as_a_remote_thread(
    pending, response_id, open_calls, context
):
    thread = RemoteThread(
        response_id=response_id, open_calls=tuple(open_calls), pending=tuple(pending), context_state=context
    )
    loaded = parse_thread(thread.model_dump_json())
    assert type(loaded) is RemoteThread
    assert loaded == thread


def test_the_kind_tells_the_types_apart_and_an_unknown_kind_is_refused():
    assert type(parse_thread('{"kind": "remote", "id": "r"}')) is RemoteThread
    assert type(parse_thread('{"kind": "local", "id": "l"}')) is LocalThread
    with pytest.raises(ValidationError, match="kind"):
        parse_thread('{"kind": "hosted", "id": "x"}')
    with pytest.raises(ValidationError, match="kind"):
        parse_thread('{"id": "x"}')
    with pytest.raises(ValidationError, match="response_id"):
        parse_thread(
            '{"kind": "local", "id": "x", "response_id": "resp_1"}'
        )  # no remote field on a local one


def test_threads_get_distinct_random_ids():
    assert len({LocalThread().id for _ in range(50)} | {RemoteThread().id for _ in range(50)}) == 100


def test_threads_are_frozen_and_with_context_returns_a_new_value():
    thread = LocalThread(id="t", context_state={"memory": {"user": "ada"}})
    with pytest.raises(ValidationError, match="frozen"):
        thread.id = "other"
    updated = thread.with_context("summary", ["asked about rain"])
    assert updated.context_state == {"memory": {"user": "ada"}, "summary": ["asked about rain"]}
    assert thread.context_state == {"memory": {"user": "ada"}}
    assert type(RemoteThread().with_context("x", 1)) is RemoteThread


def test_context_state_must_be_json():
    with pytest.raises(ValidationError, match="context_state"):
        LocalThread(context_state={"when": object()})
    # JSON has no infinity: it would come back as null, so it is refused where it goes in.
    with pytest.raises(ValidationError, match=r"context_state\['stats'\]\['scores'\]\[1\] holds inf"):
        LocalThread(context_state={"stats": {"scores": [1.5, float("inf")]}})
    # with_context is a call: its bad arguments get the stores' and threads' InvalidArgumentError, which
    # names the argument and the path of the value (and is still a ValueError).
    with pytest.raises(
        InvalidArgumentError, match=r"with_context\(\): state .* context_state\.tags"
    ) as raised:
        LocalThread().with_context("tags", {1, 2})
    assert raised.value.argument == "state"
    with pytest.raises(InvalidArgumentError, match=r"context_state\['stats'\]\[0\] holds nan") as raised:
        RemoteThread().with_context("stats", [float("nan")])
    assert raised.value.argument == "state"
    for provider in ("", 3, None):
        with pytest.raises(InvalidArgumentError, match="provider is a non-empty string") as raised:
            LocalThread().with_context(provider, 1)  # type: ignore[arg-type]
        assert raised.value.argument == "provider"


CALL = ToolCall(id="call_1", name="get_weather", arguments='{"city": "Paris"}')
CONVERSATION: list[Message] = [
    SystemMessage(content="You are terse."),
    UserMessage(content="Weather in Paris?"),
    AIMessage(content=None, tool_calls=[CALL]),
    ToolMessage(tool_call_id="call_1", content='{"sky": "rain"}'),
    AIMessage(content="Rain."),
    UserMessage(content="And tomorrow?"),
]


def _chars(message: Message) -> int:
    """A token counter of the test's own: one token per character of the message's dump."""
    return len(message.model_dump_json())


# What each window of messages.context keeps of CONVERSATION: whole exchanges (the tool call with its
# result), the system message always, the newest message always.
WINDOWS = [
    pytest.param(UnboundedContext, CONVERSATION, id="unbounded"),
    pytest.param(lambda: BufferedContext(3), [CONVERSATION[0], *CONVERSATION[4:]], id="buffered-3"),
    # Four messages: the tool exchange fits, whole, beside the last two.
    pytest.param(lambda: BufferedContext(4), [CONVERSATION[0], *CONVERSATION[2:]], id="buffered-4"),
    pytest.param(
        lambda: HeadAndTailContext(head_size=1, tail_size=2),
        [*CONVERSATION[:2], skipped_messages_note(2), *CONVERSATION[4:]],
        id="head-and-tail",
    ),
    # A limit that holds the system message and the last four messages, not the first question as well.
    pytest.param(
        lambda: TokenLimitedContext(
            sum(map(_chars, [CONVERSATION[0], *CONVERSATION[2:]])), message_token_counter=_chars
        ),
        [CONVERSATION[0], *CONVERSATION[2:]],
        id="token-limited",
    ),
    pytest.param(
        lambda: TokenLimitedContext(sum(map(_chars, CONVERSATION)) - 1, message_token_counter=_chars),
        [CONVERSATION[0], *CONVERSATION[2:]],
        id="token-limited-one-short",
    ),
]


@pytest.mark.parametrize(("make", "expected"), WINDOWS)
def test_a_local_thread_reads_its_store_through_each_window_of_messages_context(make, expected):
    store = InMemoryThreadStore()
    thread = LocalThread(id="t")
    store.save_thread(thread)
    assert thread.append(store, CONVERSATION) == range(6)
    window = make()
    assert isinstance(window, ContextWindow)  # the protocol is all a window needs to satisfy
    window.add_message(UserMessage(content="left over from another thread"))
    # The window starts clean and sees the whole thread in order; what it keeps is what is sent.
    assert thread.read(store, window) == expected
    validate_conversation(expected)
    assert thread.read(store, window) == expected  # reading again gives the same window
    assert thread.read(store) == CONVERSATION
    assert thread.messages(store, -2) == CONVERSATION[-2:]


def test_a_remote_thread_sends_what_was_added_since_the_last_response():
    thread = RemoteThread(id="r")
    first = thread.add([SystemMessage(content="Be brief."), UserMessage(content="Paris?")])
    assert thread.pending == ()  # a frozen value: add() returned a new one
    request = first.request()
    assert request == {
        "input": [
            {"type": "message", "role": "system", "content": "Be brief."},
            {"type": "message", "role": "user", "content": "Paris?"},
        ],
        "store": True,
    }
    reply = {
        "id": "resp_1",
        "status": "completed",
        "output": [{"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"}],
    }
    second, message = first.receive(reply)
    assert message == AIMessage(
        content=None, tool_calls=[ToolCall(id="call_1", name="get_weather", arguments="{}")]
    )
    assert (second.response_id, second.open_calls, second.pending) == ("resp_1", ("call_1",), ())
    third = second.add(ToolMessage.for_call(message.tool_calls[0], "rain"))
    assert third.request() == {
        "input": [{"type": "function_call_output", "call_id": "call_1", "output": "rain"}],
        "previous_response_id": "resp_1",
        "store": True,
    }


def test_a_remote_thread_with_nothing_pending_has_nothing_to_send():
    with pytest.raises(EmptyConversationError, match="no message added since its last response"):
        RemoteThread(response_id="resp_1").request()


def test_a_remote_thread_refuses_a_request_that_leaves_a_call_unanswered():
    waiting = RemoteThread(id="r", response_id="resp_1", open_calls=("call_1", "call_2"))
    half = waiting.add(ToolMessage(tool_call_id="call_1", content="ok")).add(UserMessage(content="next"))
    with pytest.raises(UnansweredToolCallError, match=r"'call_2'.*before pending message 1") as caught:
        half.request()
    assert caught.value.tool_call_ids == ("call_2",)
    with pytest.raises(UnansweredToolCallError, match="the end of the pending messages"):
        waiting.add(ToolMessage(tool_call_id="call_2", content="ok")).request()


def test_a_remote_thread_refuses_results_that_answer_no_call():
    with pytest.raises(OrphanToolResultError, match="pending message 0 is a tool result for 'call_9'"):
        RemoteThread(response_id="resp_1", open_calls=("call_1",)).add(
            ToolMessage(tool_call_id="call_9", content="?")
        ).request()
    with pytest.raises(OrphanToolResultError, match="it called nothing"):
        RemoteThread(response_id="resp_1").add(ToolMessage(tool_call_id="call_1", content="?")).request()
    with pytest.raises(DuplicateToolCallIdError, match="a second time"):
        RemoteThread(response_id="resp_1", open_calls=("c",)).add(
            [ToolMessage(tool_call_id="c", content="1"), ToolMessage(tool_call_id="c", content="2")]
        ).request()


def _wire_pairs(items: list[dict]) -> tuple[list[str], list[tuple[str, str]]]:
    """Every function_call's call_id, and for each function_call_output the name and arguments of the call
    with its call_id (over the whole input, as the Responses API pairs them) with the output's text."""
    ids = [i["call_id"] for i in items if i.get("type") == "function_call"]
    by_id = {i["call_id"]: i["arguments"] for i in items if i.get("type") == "function_call"}
    outputs = [
        (by_id.get(i["call_id"], "?"), i["output"]) for i in items if i.get("type") == "function_call_output"
    ]
    return ids, outputs


def _local_call_0(query: str) -> AIMessage:
    return AIMessage(tool_calls=[ToolCall(id="call_0", name="time", arguments=json.dumps({"q": query}))])


def test_a_remote_thread_sends_ids_used_again_by_a_later_turn_under_new_ids():
    # A local server's call_0 in every turn, moved to a remote thread: the Responses API pairs outputs with
    # calls over the whole input and answers 400 "Duplicate function_call_output for call_id 'terminal:0'"
    # (NousResearch/hermes-agent#102629), so each later use goes out as call_0_2, call_0_3, ...
    history = [
        UserMessage(content="Time in Tokyo, Lima and Oslo?"),
        _local_call_0("tokyo"),
        ToolMessage(tool_call_id="call_0", content="tokyo 9:00"),
        _local_call_0("lima"),
        ToolMessage(tool_call_id="call_0", content="lima 19:00"),
        _local_call_0("oslo"),
        ToolMessage(tool_call_id="call_0", content="oslo 1:00"),
    ]
    validate_conversation(history)
    thread = RemoteThread().add(history)
    ids, outputs = _wire_pairs(thread.request()["input"])
    assert ids == ["call_0", "call_0_2", "call_0_3"]
    assert [(json.loads(args)["q"], text.split()[0]) for args, text in outputs] == [
        ("tokyo", "tokyo"),
        ("lima", "lima"),
        ("oslo", "oslo"),
    ]
    assert thread.pending == tuple(history)  # the thread keeps the ids as given


def test_a_remote_thread_renames_a_pending_call_that_uses_an_open_calls_id_and_keeps_the_open_one():
    # The response's own call keeps its id (the service made it); the pending turn that uses it again
    # gets a new one, never one the thread already holds (call_0_2 is taken, so call_0_3).
    thread = RemoteThread(response_id="resp_1", open_calls=("call_0", "call_0_2")).add(
        [
            ToolMessage(tool_call_id="call_0_2", content="b"),
            ToolMessage(tool_call_id="call_0", content="a"),
            _local_call_0("c"),
            ToolMessage(tool_call_id="call_0", content="c"),
        ]
    )
    items = thread.request()["input"]
    assert [(i["type"], i["call_id"]) for i in items] == [
        ("function_call_output", "call_0_2"),
        ("function_call_output", "call_0"),
        ("function_call", "call_0_3"),
        ("function_call_output", "call_0_3"),
    ]


def test_a_remote_thread_refuses_one_id_used_twice_in_a_turn():
    twice = AIMessage(
        tool_calls=[ToolCall(id="c", name="a", arguments="{}"), ToolCall(id="c", name="b", arguments="{}")]
    )
    with pytest.raises(
        DuplicateToolCallIdError, match=r"pending message 1 reuses tool-call id 'c' in tool_calls\[1\]"
    ):
        RemoteThread().add([UserMessage(content="go"), twice]).request()


@settings(max_examples=30)
@given(ms.conversations(extensions=False))
def test_a_remote_threads_input_pairs_every_output_with_its_own_call_under_unique_ids(conversation):
    # What the Responses API reads: ids unique over the input, and each output answers the call of its
    # own turn (the one the local protocol pairs it with), whatever ids the turns used again.
    sendable = carriable(conversation)
    validate_conversation(sendable)
    sent = RemoteThread().add(sendable).request()["input"]
    ids, outputs = _wire_pairs(sent)
    assert len(set(ids)) == len(ids)
    plain = to_responses_items(sendable)  # the ids as given: an output answers the nearest call before it
    expected = []
    latest: dict[str, str] = {}
    for item in plain:
        if item.get("type") == "function_call":
            latest[item["call_id"]] = item["arguments"]
        elif item.get("type") == "function_call_output":
            expected.append(latest[item["call_id"]])
    assert [args for args, _ in outputs] == expected
    # Only ids change: the same items with the ids left out.
    assert [{k: v for k, v in i.items() if k != "call_id"} for i in sent] == [
        {k: v for k, v in i.items() if k != "call_id"} for i in plain
    ]


@settings(max_examples=20)
@given(ms.conversations())
def test_a_valid_local_history_starts_a_remote_thread(conversation):
    # Moving a local conversation to a remote thread: what passes validate_conversation passes the remote
    # thread's own protocol check; what Responses API items cannot carry (audio, names, provider payloads)
    # is refused by a ConversionError naming a message that holds it, and all the rest is sent.
    validate_conversation(conversation)
    thread = RemoteThread().add(conversation)
    assert thread.pending == tuple(conversation)
    has_audio = any(isinstance(part, AudioPart) for m in conversation for part in _parts(m))
    if has_audio:
        with pytest.raises(ConversionError):
            thread.request()
    try:
        thread.request()
    except ConversionError as error:
        assert_justified(conversation, error)
    sendable = carriable(conversation)
    validate_conversation(sendable)
    assert len(RemoteThread().add(sendable).request()["input"]) >= len(conversation)


def _parts(message: Message) -> list:
    return message.content if isinstance(message.content, list) else []


def test_add_takes_only_messages():
    with pytest.raises(MessageTypeError, match="got a dict"):
        RemoteThread().add({"role": "user", "content": "hi"})
    with pytest.raises(MessageTypeError, match="message 1 is a str"):
        RemoteThread().add([UserMessage(content="hi"), "there"])
