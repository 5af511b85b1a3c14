"""The OpenAI Agents SDK's items without a store (``messages.integrations.openai_agents._items``): where a
window may start without cutting an exchange, checked against the definition written out plainly
(``tests.openai_agents_items.cuts``) over generated histories, and the message each item is stored as."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("agents")

from messages import (
    AIMessage,
    ImagePart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UnansweredToolCallError,
    UserMessage,
    validate_conversation,
)
from messages.integrations.openai_agents._items import kind_of, typed_messages, window_start
from tests.openai_agents_items import (
    STANDING_ALONE,
    approval_request,
    approval_response,
    assistant,
    computer_call,
    computer_output,
    custom_call,
    custom_output,
    expected_window,
    function_call,
    function_output,
    histories,
    orphans,
    reasoning,
    user,
    user_parts,
    web_search,
)


def window(history, limit):
    """``window_start`` over a whole history, as the session asks it."""
    kinds = [kind_of(item) for item in history]
    if limit <= 0:
        return []
    start = window_start(kinds, len(history) - limit, complete=True)
    return history[start:]


@settings(max_examples=200)
@given(drawn=histories(), data=st.data())
def test_every_limit_gives_the_newest_items_back_to_the_start_of_their_exchange(drawn, data):
    history, _ = drawn
    for limit in range(len(history) + 2):
        got = window(history, limit)
        assert got == expected_window(history, limit)
        assert len(got) >= min(limit, len(history))


@settings(max_examples=100)
@given(drawn=histories(reused_ids=True))
def test_a_call_id_used_again_in_a_later_turn_pairs_each_result_with_the_nearest_call(drawn):
    history, _ = drawn
    for limit in range(len(history) + 1):
        assert window(history, limit) == expected_window(history, limit)


@settings(max_examples=100)
@given(drawn=histories(), data=st.data())
def test_a_read_of_the_newest_items_only_finds_the_same_start_or_asks_for_more(drawn, data):
    history, _ = drawn
    kinds = [kind_of(item) for item in history]
    limit = data.draw(st.integers(1, len(history)))
    whole = window_start(kinds, len(history) - limit, complete=True)
    skip = data.draw(st.integers(0, len(history) - limit))
    part = window_start(kinds[skip:], len(history) - limit - skip, complete=skip == 0)
    assert part is None or part + skip == whole
    if whole is not None and whole > skip and not orphans(history):
        assert part is not None  # what the part holds suffices: it says so


def test_a_limit_keeps_a_function_call_with_its_output_sdk_4322():
    history = [
        user("What is the weather?"),
        function_call("call_1"),
        function_output("call_1"),
        assistant(1, "It is sunny."),
    ]
    # The SDK's SQLiteSession gives history[-2:]: an output whose call is not there.
    assert window(history, 2) == history[1:]


def test_a_limit_keeps_a_message_with_the_reasoning_item_before_it_sdk_1900():
    history = [user("Hi"), reasoning(1, encrypted=True), assistant(1, "Hello.")]
    assert window(history, 1) == history[1:]
    assert window(history, 2) == history[1:]


def test_parallel_calls_stay_together_with_their_outputs_and_reasoning():
    history = [
        user("Weather in Paris and Rome?"),
        reasoning(1, encrypted=False),
        assistant(1, "Let me look."),
        function_call("c1"),
        function_call("c2", arguments='{"city":"Rome"}'),
        function_output("c2", "rain"),
        function_output("c1", "sun"),
        assistant(2, "Sun in Paris, rain in Rome."),
    ]
    for limit in range(1, 8):
        got = window(history, limit)
        assert got == (history[-1:] if limit == 1 else history[1:])


def test_an_mcp_approval_response_keeps_its_request():
    history = [
        user("Ask the wiki"),
        approval_request("mcpr_1"),
        approval_response("mcpr_1"),
        assistant(1, "Done"),
    ]
    assert window(history, 2) == history[1:]


def test_a_result_with_no_call_anywhere_holds_nothing_back():
    history = [user("Hi"), function_output("lost"), assistant(1, "Hello.")]
    assert window(history, 2) == history[1:]


def test_items_that_stand_alone_are_counted_exactly():
    history = [dict(item) for item in STANDING_ALONE * 3]
    for limit in range(len(history) + 1):
        assert len(window(history, limit)) == limit


def test_a_limit_of_zero_gives_nothing_and_a_large_one_everything():
    history = [user("Hi"), assistant(1, "Hello.")]
    assert window(history, 0) == []
    assert window(history, 10) == history


# -- the stored messages ---------------------------------------------------------------------------------


def test_one_model_response_is_one_assistant_turn_at_its_last_item_right_before_its_results():
    items = [
        user("Weather in Paris and Rome?"),
        reasoning(1, encrypted=False),
        assistant(1, "Let me look."),
        function_call("c1"),
        function_call("c2", arguments='{"city":"Rome"}'),
        function_output("c1", "sun"),
        function_output("c2", "rain"),
    ]
    typed = typed_messages(items)
    assert typed == [
        UserMessage(content="Weather in Paris and Rome?"),
        AIMessage(),
        AIMessage(),
        AIMessage(),
        AIMessage(
            content="Let me look.",
            reasoning_content="thinking 1",
            tool_calls=[
                ToolCall(id="c1", name="get_weather", arguments='{"city":"Paris"}'),
                ToolCall(id="c2", name="get_weather", arguments='{"city":"Rome"}'),
            ],
        ),
        ToolMessage(tool_call_id="c1", content="sun"),
        ToolMessage(tool_call_id="c2", content="rain"),
    ]
    validate_conversation(typed)


def test_calls_of_other_tools_are_tool_calls_under_their_type_and_their_outputs_tool_results():
    items = [
        user("Click, grep and ask"),
        computer_call("cc1"),
        custom_call("ct1"),
        approval_request("mcpr_1"),
        web_search(1),
        computer_output("cc1"),
        custom_output("ct1"),
        approval_response("mcpr_1", approve=False),
    ]
    typed = typed_messages(items)
    turn = typed[4]
    assert isinstance(turn, AIMessage)
    assert [(c.id, c.name) for c in turn.tool_calls] == [
        ("cc1", "computer"),
        ("ct1", "grep"),
        ("mcpr_1", "ask_question"),
    ]
    assert turn.tool_calls[0].parse_arguments() == {
        "action": {"type": "click", "x": 10, "y": 20, "button": "left"},
        "pending_safety_checks": [],
    }
    assert turn.tool_calls[1].arguments == "TODO *.py"  # a custom tool's free text, byte for byte
    assert typed[5:] == [
        ToolMessage(
            tool_call_id="cc1",
            content='{"type": "computer_screenshot", "image_url": "data:image/png;base64,iVBORw0KGgo="}',
        ),
        ToolMessage(tool_call_id="ct1", content="a.py:1: TODO"),
        ToolMessage(tool_call_id="mcpr_1", content="rejected"),
    ]
    validate_conversation(typed)


def test_input_parts_are_typed_and_what_has_no_part_is_left_to_the_item():
    items = [
        user_parts("Look"),
        {"role": "system", "content": [{"type": "input_text", "text": "Be brief."}]},
        {"role": "user", "content": [{"type": "input_file", "file_url": "https://x/a.pdf"}]},
    ]
    assert typed_messages(items) == [
        UserMessage(
            content=[TextPart(text="Look"), ImagePart(url="https://example.com/sky.png", detail="low")]
        ),
        SystemMessage(content=[TextPart(text="Be brief.")]),
        UserMessage(content=[]),
    ]


def test_items_with_no_typed_form_are_empty_assistant_turns():
    assert typed_messages([dict(item) for item in STANDING_ALONE]) == [AIMessage()] * len(STANDING_ALONE)


@settings(max_examples=200)
@given(drawn=histories())
def test_stored_in_the_runners_batches_the_messages_are_a_valid_conversation_unless_a_call_waits(drawn):
    history, batches = drawn
    typed = []
    at = 0
    for size in batches:
        typed += typed_messages(history[at : at + size])
        at += size
    assert len(typed) == len(history)
    answered = {(i.get("call_id") or i.get("approval_request_id")) for i in history if kind_of(i).answers}
    waiting = [i for i in history if kind_of(i).calls and kind_of(i).calls[1] not in answered]
    if waiting:
        with pytest.raises(UnansweredToolCallError):
            validate_conversation(typed)
    else:
        validate_conversation(typed)
